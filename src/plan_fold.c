/* plan_fold.c - planning the folds: reduce and accumulate steps.
 *
 * A fold's one input (NumPy's errors for a ufunc that is not binary with
 * one output, or an input that is a number), the axes it runs along (by
 * number or by dimension name), its loop (resolve.c) and where its
 * accumulators start (the identity, initial=, or the first element); then
 * a reduction's where= operand and a fold's masked mode (numpy.ma's), the
 * values its skipped elements fold as.  reduceat (indexed.c) takes its
 * input and axis here too.  Part of the planner (planner.h); the runs are
 * reduce.c's and scan.c's.
 */
#include <string.h>

#include "masked.h"
#include "options.h"
#include "planner.h"
#include "resolve.h"

int fold_axis(struct planner *pl, struct plan_step *s, const struct step_opts *o, int i,
	      const struct array *x, int *out, struct err *e)
{
	int a = option_given(o, OPT_AXIS) ? o->axis[i] : 0, ndim = x->shape.ndim;
	if (option_given(o, OPT_AXIS) && o->axis_name[i]) {
		*out = dims_axis(x->dims, o->axis_name[i]);
		if (*out < 0)
			return err_at(e, EXIT_USAGE, LOCATE(pl, s, o->mark[OPT_AXIS]),
				      x->dims ? "'%s' has no dimension '%s'" :
				      "'%s' has no dimension names (no dimension scales), so no dimension '%s'",
				      x->display, o->axis_name[i]);
		return 0;
	}
	if (a < -ndim || a >= ndim)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, o->mark[OPT_AXIS]),
			      "axis %d is out of bounds for array of dimension %d", a, ndim);
	*out = a < 0 ? a + ndim : a;
	return 0;
}

/* The axes a reduce step reduces (s->reduced), from axis: as NumPy takes it. */
static int reduced_axes(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			const struct array *x, struct err *e)
{
	const struct shape *X = &x->shape;
	bool given = option_given(o, OPT_AXIS);
	int naxes = 0;
	if (given && o->axis_all) {
		for (int i = 0; i < X->ndim; i++)
			s->fold.reduced[i] = true;
		naxes = X->ndim;
	} else if (X->ndim == 0 && (!given || (o->naxis == 1 && !o->axis_name[0] &&
						   (o->axis[0] == 0 || o->axis[0] == -1)))) {
		naxes = 0;   /* NumPy 2 keeps this: reducing a 0-d array along 0 gives the element */
	} else {
		int n = given ? o->naxis : 1;
		for (int i = 0; i < n; i++) {
			int a = 0;
			if (fold_axis(pl, s, o, i, x, &a, e) < 0)
				return -1;
			if (s->fold.reduced[a])
				return err_at(e, EXIT_USAGE, LOCATE(pl, s, o->mark[OPT_AXIS]),
					      "duplicate value in 'axis'");
			s->fold.reduced[a] = true;
			naxes++;
		}
	}
	if (naxes > 1 && !ufunc_reorderable(s->uf))
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, o->mark[OPT_AXIS]),
			      "reduction operation '%s' is not reorderable, so at most one axis may be specified",
			      s->uf->name);
	return 0;
}

struct array *fold_input(struct planner *pl, struct plan_step *s, struct err *e)
{
	const struct recipe_step *rs = s->src;
	const char *verb = verb_name(s->verb);
	struct mark m = rs->fn_mark;
	if (s->uf->signature) {
		err_at(e, EXIT_USAGE, LOCATE(pl, s, m), "Reduction not defined on ufunc with signature");
	} else if (s->uf->nin != 2) {
		err_at(e, EXIT_USAGE, LOCATE(pl, s, m), "%s only supported for binary functions", verb);
	} else if (s->uf->nout != 1) {
		err_at(e, EXIT_USAGE, LOCATE(pl, s, m),
			"%s only supported for functions returning a single value", verb);
	} else if (rs->nin != 1) {
		err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->nin ? rs->in_mark[0] : rs->mark),
			"%s takes one input, got %d", verb, rs->nin);
	}
	if (e->status)
		return NULL;
	s->nin = s->nout = 1;
	struct array *x = s->in[0] = array_read_operand(pl, rs->in[0], s->decoded, LOCATE(pl, s, rs->in_mark[0]), e);
	if (x && x->kind == ARR_LITERAL) {
		err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->in_mark[0]), "%s needs a dataset, not the number '%s'",
			verb, x->display);
		return NULL;
	}
	return x;
}

/* reduce and accumulate. */
int plan_reduction(struct planner *pl, struct plan_step *s, const struct step_opts *o, struct err *e)
{
	const struct recipe_step *rs = s->src;
	const struct ufunc *uf = s->uf;
	struct array *x = fold_input(pl, s, e);
	if (!x)
		return -1;
	const struct shape *X = &x->shape;
	bool given = option_given(o, OPT_AXIS);
	memset(s->fold.reduced, 0, sizeof s->fold.reduced);
	if (s->verb == VERB_ACCUMULATE) {
		if (X->ndim == 0)
			return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->in_mark[0]), "cannot accumulate on a scalar");
		if (given && (o->axis_all || o->naxis != 1))
			return err_at(e, EXIT_USAGE, LOCATE(pl, s, o->mark[OPT_AXIS]),
				      "accumulate does not allow multiple axes");
		if (fold_axis(pl, s, o, 0, x, &s->fold.axis, e) < 0)
			return -1;
		s->fold.reduced[s->fold.axis] = true;
		s->shape = *X;
		s->dims = x->dims;
	} else {
		if (reduced_axes(pl, s, o, x, e) < 0)
			return -1;
		s->fold.keepdims = option_given(o, OPT_KEEPDIMS) && o->keepdims;
		s->dims = dims_reduce(x->dims, s->fold.reduced, s->fold.keepdims, pl->p->arena);
		s->shape.ndim = 0;
		for (int i = 0; i < X->ndim; i++)
			if (!s->fold.reduced[i])
				s->shape.dim[s->shape.ndim++] = X->dim[i];
			else if (s->fold.keepdims)
				s->shape.dim[s->shape.ndim++] = 1;
	}
	s->bshape[0] = *X;
	if (resolve_reduction_loop(s, o, LOCATE(pl, s, given && option_given(o, OPT_DTYPE) ?
						   o->mark[OPT_DTYPE] : rs->fn_mark), e) < 0)
		return -1;
	enum dtype t = s->loop->types[0];
	s->out_dtype[0] = s->loop->types[2];
	if (s->verb == VERB_ACCUMULATE) {
		s->fold.init = FOLD_FIRST_SKIP;
		return 0;
	}
	unsigned char identity[16];
	bool has_identity = ufunc_identity_value(uf, t, identity) == 0;
	bool empty = false;
	for (int i = 0; i < X->ndim; i++)
		empty = empty || (s->fold.reduced[i] && X->dim[i] == 0);
	s->fold.rest_init = has_identity ? FOLD_VALUE : ufunc_reorderable(uf) ? FOLD_FIRST : FOLD_FIRST_SKIP;
	if (has_identity)
		ufunc_identity_exact(uf, t, s->fold.rest_value);
	s->fold.init = s->fold.rest_init;
	memcpy(s->fold.init_value, identity, sizeof identity);
	if (option_given(o, OPT_INITIAL)) {
		const struct site *w = LOCATE(pl, s, o->mark[OPT_INITIAL]);
		struct literal lit;
		if (literal_parse(o->initial, &lit) < 0)
			return err_at(e, EXIT_USAGE, w, "initial must be a number, got '%s'", o->initial);
		if (literal_pack(&lit, t, s->fold.init_value, w->text, e) < 0)
			return err_place(e, &w->loc);
		s->fold.init = FOLD_VALUE;
	}
	if (empty && s->fold.init != FOLD_VALUE)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->mark),
			      "zero-size array to reduction operation %s which has no identity", uf->name);
	return 0;
}

/* A reduction's where= (NumPy's): the operand broadcast over the input;
 * the elements it skips fold as the identity, or as initial= where the
 * ufunc has none and is reorderable (so idempotent: maximum, minimum,
 * ...); a non-reorderable one (subtract, along one axis) starts from
 * initial= and leaves its running value as it was on them. */
int plan_reduce_where(struct planner *pl, struct plan_step *s, const struct step_opts *o,
		      struct err *e)
{
	const struct site *w = LOCATE(pl, s, o->mark[OPT_WHERE]);
	const struct ufunc *uf = s->uf;
	if (s->fold.init != FOLD_VALUE)
		return err_at(e, EXIT_USAGE, w,
			      "reduction operation '%s' does not have an identity, so to use a where mask one has to specify 'initial'",
			      uf->name);
	struct array *x = array_read_operand(pl, o->where, s->decoded, w, e);
	if (!x)
		return -1;
	const struct shape *X = &s->in[0]->shape, *shapes[2] = { &x->shape, X };
	struct shape b;
	if (shape_broadcast(2, shapes, &b) < 0 || !shape_equal(&b, X)) {
		char a[800], c[800];
		return err_at(e, EXIT_USAGE, w,
			      "where= with shape %s cannot be broadcast to the input's shape %s",
			      shape_format_compact(&x->shape, a, sizeof a), shape_format_compact(X, c, sizeof c));
	}
	s->mask.where_arr = x;
	if (ufunc_identity_value(uf, s->loop->types[0], s->mask.skip_value) != 0)
		memcpy(s->mask.skip_value, s->fold.init_value, sizeof s->mask.skip_value);
	s->mask.skip_fold = s->mask.skip_fold || (!ufunc_reorderable(uf) && uf->identity == ID_NONE);
	return 0;
}

/* A reduce or accumulate step in masked mode (numpy.ma's): masked elements
 * of the input fold as the ufunc's identity, as the dtype's extreme for
 * maximum and minimum, or as numpy.ma's fill; a ufunc with none of these
 * skips them (skip_fold).  A reduce masks a result with no valid element,
 * an accumulate the results of masked elements. */
int plan_reduce_missing(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			struct err *e)
{
	const struct site *w = LOCATE(pl, s, o->mark[OPT_MISSING]);
	if (masked_skip_value(s->uf, s->loop, s->mask.skip) < 0)
		s->mask.skip_fold = true;
	if (s->in[0]->kind == ARR_DATASET && !(s->mask.in_missing = array_missing(pl, s->in[0], w, e)))
		return -1;
	s->mask.masked = true;
	s->mask.nan = o->missing == MISSING_MASK_NAN;
	return 0;
}
