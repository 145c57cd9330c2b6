/* plan.c - recipe + files -> validated plan: the planner's driver.
 *
 * plan_build() binds the recipe's inputs, then plans each step in order,
 * a phase function each (plan_step): its options merged with the recipe's
 * defaults and checked against its verb, its operands (arrays.c), its loop
 * (resolve.c; lower.c for expressions), its shapes (broadcasting, reduced
 * axes), what its results are (plan_units.c), where= and masks, its
 * outputs (outputs.c) and its blocks (elementwise.h, reduce.h, scan.h).  Then the
 * optimizer fuses steps into passes (fuse.c) and the temporary files are
 * placed (files.c).  See plan.h for the contract, planner.h for the stages.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "at.h"
#include "chain.h"
#include "contract.h"
#include "elementwise.h"
#include "h5io.h"
#include "masked.h"
#include "options.h"
#include "planner.h"
#include "reduce.h"
#include "reduceat.h"
#include "resolve.h"
#include "scan.h"
#include "select.h"
#include "where.h"

/* Broadcast the inputs' shapes (bshape) into S's result shape. */
static int broadcast(struct planner *pl, struct plan_step *s, struct err *e)
{
	const struct shape *shapes[RECIPE_MAXIN];
	for (int k = 0; k < s->nin; k++)
		shapes[k] = &s->bshape[k];
	if (shape_broadcast(s->nin, shapes, &s->shape) == 0)
		return 0;
	char msg[1024] = "", buf[800];
	for (int k = 0; k < s->nin; k++) {
		size_t n = strlen(msg);
		snprintf(msg + n, sizeof msg - n, "%s%s", k ? " " : "",
			 shape_format_compact(shapes[k], buf, sizeof buf));
	}
	struct mark m = s->src->nin ? s->src->in_mark[0] : s->src->mark;
	return err_at(e, EXIT_USAGE, LOCATE(pl, s, m),
		      "operands could not be broadcast together with shapes %s", msg);
}

/* The operand TEXT of S as it reads it: through its dataset's CF coding
 * unless S reads the stored numbers (missing: raw). */
static struct array *step_operand(struct planner *pl, const struct plan_step *s, const char *text,
				  const struct site *w, struct err *e)
{
	struct array *x = array_operand(pl, text, w, e);
	return x && s->decoded ? array_decoded(pl, x, w, e) : x;
}

bool plan_step_ranged(const struct plan_step *s)
{
	for (int k = 0; k < s->nout; k++)
		if (s->out[k] && s->out[k]->coding && s->out[k]->coding->from_range)
			return true;
	return false;
}

/* An elementwise call, or UFUNC.outer. */
static int plan_elementwise(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			    struct err *e)
{
	const struct recipe_step *rs = s->src;
	if (s->verb == VERB_OUTER && s->uf->signature)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->fn_mark),
			      "method outer is not allowed in ufunc with non-trivial signature");
	static const int core_options[] = { OPT_AXIS, OPT_AXES };   /* a generalized ufunc's */
	for (size_t i = 0; i < sizeof core_options / sizeof *core_options && s->verb == VERB_UFUNC; i++)
		if (option_given(o, core_options[i]))
			return err_at(e, EXIT_USAGE, LOCATE(pl, s, o->mark[core_options[i]]),
				      "%s() got an unexpected keyword argument '%s'", s->uf->name,
				      step_options[core_options[i]].name);
	if (s->verb == VERB_OUTER && s->uf->nin != 2)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->fn_mark),
			      "outer product only supported for binary functions");
	if (rs->nin != s->uf->nin)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->nin ? rs->in_mark[0] : rs->mark),
			      "ufunc '%s' takes %d input%s, got %d", s->uf->name, s->uf->nin,
			      s->uf->nin == 1 ? "" : "s", rs->nin);
	s->nin = rs->nin;
	s->nout = s->uf->nout;
	for (int k = 0; k < s->nin; k++) {
		s->in[k] = step_operand(pl, s, rs->in[k], LOCATE(pl, s, rs->in_mark[k]), e);
		if (!s->in[k])
			return -1;
	}
	if (s->verb == VERB_UFUNC &&
	    arrays_by_name(pl, s, s->nin, s->in, option_given(o, OPT_BROADCAST) && o->by_position,
			   LOCATE(pl, s, rs->nin ? rs->in_mark[0] : rs->mark), e) < 0)
		return -1;
	for (int k = 0; k < s->nin; k++)
		s->bshape[k] = s->in[k]->shape;
	if (s->verb == VERB_OUTER) {   /* a.shape + (1,) * b.ndim against b */
		for (int k = 0; k < s->nin; k++)
			if (s->in[k]->kind == ARR_LITERAL)
				s->in[k]->strong = true;   /* NumPy makes arrays of them first */
		struct shape *a = &s->bshape[0];
		if (a->ndim + s->bshape[1].ndim > H5U_MAXDIM)
			return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->mark),
				      "the outer product has more than %d dimensions", H5U_MAXDIM);
		for (int i = 0; i < s->bshape[1].ndim; i++)
			a->dim[a->ndim++] = 1;
	}
	if (broadcast(pl, s, e) < 0)
		return -1;
	s->loop = resolve_loop(s->uf, s->nin, (const struct array *const *)s->in, o, s->casting,
			       LOCATE(pl, s, option_given(o, OPT_DTYPE) ? o->mark[OPT_DTYPE] : rs->mark), e);
	if (!s->loop)
		return -1;
	for (int k = 0; k < s->nout; k++)
		s->out_dtype[k] = s->loop->types[s->nin + k];
	struct plan_op *op = arena_alloc(pl->p->arena, sizeof *op);
	op->uf = s->uf;
	op->loop = s->loop;
	op->nin = s->nin;
	op->nout = s->nout;
	op->shape = s->shape;
	op->where = s->where;
	op->loc = &s->loc;
	for (int k = 0; k < s->nin; k++) {
		op->src[k] = src_input(k);
		if (s->in[k]->kind == ARR_LITERAL &&
		    resolve_literal(s->in[k], op, k, LOCATE(pl, s, rs->in_mark[k]), e) < 0)
			return -1;
	}
	s->prog.nops = 1;
	s->prog.ops = op;
	for (int k = 0; k < s->nout; k++)
		s->prog.out_src[k] = src_result(0, k);
	return 0;
}

int planner_axis(struct planner *pl, struct plan_step *s, const struct step_opts *o, int i,
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
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, s->src->opts.mark[OPT_AXIS]),
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
			if (planner_axis(pl, s, o, i, x, &a, e) < 0)
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

struct array *planner_fold_input(struct planner *pl, struct plan_step *s, struct err *e)
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
	struct array *x = s->in[0] = step_operand(pl, s, rs->in[0], LOCATE(pl, s, rs->in_mark[0]), e);
	if (x && x->kind == ARR_LITERAL) {
		err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->in_mark[0]), "%s needs a dataset, not the number '%s'",
			verb, x->display);
		return NULL;
	}
	return x;
}

/* reduce and accumulate. */
static int plan_reduction(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			  struct err *e)
{
	const struct recipe_step *rs = s->src;
	const struct ufunc *uf = s->uf;
	struct array *x = planner_fold_input(pl, s, e);
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
		if (planner_axis(pl, s, o, 0, x, &s->fold.axis, e) < 0)
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
		if (lit.kind == LIT_BOOL)
			dtype_cast(DT_BOOL, &lit.b, 0, t, s->fold.init_value, 0, 1);
		else if (literal_to_dtype(&lit, t, s->fold.init_value, w->text, e) < 0)
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
static int plan_reduce_where(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			     struct err *e)
{
	const struct site *w = LOCATE(pl, s, o->mark[OPT_WHERE]);
	const struct ufunc *uf = s->uf;
	if (s->fold.init != FOLD_VALUE)
		return err_at(e, EXIT_USAGE, w,
			      "reduction operation '%s' does not have an identity, so to use a where mask one has to specify 'initial'",
			      uf->name);
	struct array *x = step_operand(pl, s, o->where, w, e);
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

/* Does an input of S (its first NIN) declare missing values?  Then S
 * takes numpy.ma's semantics by default (missing: cf). */
static bool declares_missing(struct planner *pl, struct plan_step *s, int nin, struct err *e)
{
	for (int k = 0; k < nin; k++) {
		struct array *x = s->in[k];
		if (x->kind != ARR_DATASET)
			continue;
		const struct cf_missing *m = array_missing(pl, x, LOCATE(pl, s, s->src->mark), e);
		if (!m || cf_missing_any(m))
			return m != NULL;
	}
	return false;
}

/* A reduce or accumulate step in masked mode (numpy.ma's): masked elements
 * of the input fold as the ufunc's identity, as the dtype's extreme for
 * maximum and minimum, or as numpy.ma's fill; a ufunc with none of these
 * skips them (skip_fold).  A reduce masks a result with no valid element,
 * an accumulate the results of masked elements. */
static int plan_reduce_missing(struct planner *pl, struct plan_step *s, const struct step_opts *o,
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

/* Is Y packed from floats (its coding's fill stands for NaN)? */
static bool packs_nan(const struct array *y)
{
	return cf_coding_transforms(y->coding) && dtype_table[y->dtype].kind == 'f';
}

/* The fill values of S's outputs, where where= or a mask leaves them
 * unset: the fill: option; else, in masked mode, the output's own
 * _FillValue, or the first input's when the dtypes match; else the
 * dtype's default.  Datasets S creates keep it as their _FillValue. */
static int plan_fill(struct planner *pl, struct plan_step *s, const struct step_opts *o,
		     struct err *e)
{
	bool given = option_given(o, OPT_FILL);
	const struct site *w = LOCATE(pl, s, given ? o->mark[OPT_FILL] : s->src->mark);
	const struct cf_missing *first = NULL;
	if (s->mask.masked && s->in[0]->kind == ARR_DATASET && !(first = array_missing(pl, s->in[0], w, e)))
		return -1;
	for (int k = 0; k < s->nout; k++) {
		struct array *y = s->out[k];
		const struct cf_missing *own = NULL;
		if (s->mask.masked && !y->create && !(own = array_missing(pl, y, w, e)))
			return -1;
		unsigned char *fill = y->create ? y->fill : s->mask.fill[k];
		if (given || (!s->mask.masked && !packs_nan(y))) {
			if (where_fill_value(given ? o->fill : NULL, y->dtype, fill, w->text, e) < 0)
				return err_place(e, &w->loc);
		} else if (packs_nan(y)) {   /* packed as the dataset's fill */
			double nan = NAN;
			dtype_cast(DT_FLOAT64, &nan, 0, y->dtype, fill, 0, 1);
		} else if (own && own->fill_value) {
			memcpy(fill, own->value[0], sizeof own->value[0]);
		} else if (first && first->fill_value && s->in[0]->dtype == y->dtype) {
			memcpy(fill, first->value[0], sizeof first->value[0]);
		} else {
			where_default_fill(y->dtype, fill);
		}
		if (y->create) {
			y->has_fill = true;
			memcpy(s->mask.fill[k], y->fill, sizeof y->fill);
		}
	}
	return 0;
}

/* Masked mode of S (numpy.ma's), as missing: (MODE) says: by default
 * where one of its first NIN inputs declares missing values. */
static int plan_masks(struct planner *pl, struct plan_step *s, const struct step_opts *o,
		      enum missing_mode mode, int nin, struct err *e)
{
	const struct recipe_step *rs = s->src;
	bool masking = s->decoded && (mode != MISSING_CF || declares_missing(pl, s, nin, e));
	if (e->status)
		return -1;
	bool folds = s->verb == VERB_REDUCE || s->verb == VERB_ACCUMULATE || s->verb == VERB_REDUCEAT;
	if (masking && (folds ? plan_reduce_missing(pl, s, o, e) : lower_missing(pl, s, nin, o, e)) < 0)
		return -1;
	if (option_given(&rs->opts, OPT_FILL) && !s->mask.has_where && !masking)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->opts.mark[OPT_FILL]),
			      "'fill' needs 'where' or a mask: without them every element is computed");
	return 0;
}

/* The datasets S creates: packed (pack:), then chunks and compression. */
static int plan_created(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			struct err *e)
{
	for (int k = 0; k < s->nout && option_given(o, OPT_PACK); k++)
		if (outputs_pack(pl, s, k, o, e) < 0)
			return -1;
	for (int k = 0; k < s->nout; k++)
		if (s->out[k]->create && !s->out[k]->file->scratch && outputs_layout(pl, s, k, o, e) < 0)
			return -1;
	return 0;
}

/* ---- a step's phases, in order ---- */

/* S as step INDEX of the recipe: its verb, the name messages give it, and
 * its ufunc (an expression has none of its own). */
static int step_start(struct planner *pl, int index, struct plan_step *s, struct err *e)
{
	const struct recipe_step *rs = &pl->r->steps[index];
	s->index = index + 1;
	s->src = rs;
	s->verb = rs->verb;
	s->fused.merged_into = -1;
	locate_name_step(pl, s);
	s->uf = rs->verb == VERB_EXPR ? NULL : ufunc_lookup(rs->fn);
	if (!s->uf && rs->verb != VERB_EXPR)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->fn_mark), "unknown ufunc '%s'", rs->fn);
	return 0;
}

/* missing: as O says it, or its default. */
static enum missing_mode missing_mode_of(const struct step_opts *o)
{
	return option_given(o, OPT_MISSING) ? o->missing : MISSING_CF;
}

/* S's options into *O: the recipe's defaults overridden by the step's own,
 * less those that do not apply to its verb; then the casting and decoding
 * they ask for. */
static int step_options_of(struct planner *pl, struct plan_step *s, struct step_opts *o,
			   struct err *e)
{
	const struct recipe_step *rs = s->src;
	option_merge(&pl->r->defaults, &rs->opts, o);
	/* Options for other verbs are errors on the step itself; under
	 * defaults they are meant for other steps. */
	for (int i = 0; i < OPT_COUNT; i++) {
		if (option_applies(i, rs->verb))
			continue;
		if (option_given(&rs->opts, i))
			return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->opts.mark[i]),
				      "'%s' does not apply to %s steps", step_options[i].name, verb_name(rs->verb));
		option_forget(o, i);
	}
	/* axis under defaults is meant for reductions: a ufunc step takes its own */
	static const enum opt axes[] = { OPT_AXIS, OPT_AXES };
	for (size_t i = 0; i < sizeof axes / sizeof *axes && rs->verb == VERB_UFUNC; i++)
		if (!option_given(&rs->opts, axes[i]))
			option_forget(o, axes[i]);
	s->casting = option_given(o, OPT_CASTING) ? o->casting : CAST_SAME_KIND;
	s->decoded = missing_mode_of(o) != MISSING_RAW;
	return 0;
}

/* S's operands, loop, shapes and program, as its verb plans them. */
static int step_verb(struct planner *pl, struct plan_step *s, const struct step_opts *o, struct err *e)
{
	switch (s->verb) {
	case VERB_REDUCE:
	case VERB_ACCUMULATE:
		return plan_reduction(pl, s, o, e);
	case VERB_REDUCEAT:
		return plan_reduceat(pl, s, o, e);
	case VERB_AT:
		return plan_at(pl, s, e);
	case VERB_EXPR:
		return lower_expression(pl, s, o, e);
	default:
		return s->verb == VERB_UFUNC && s->uf->signature ? gufunc_plan(pl, s, o, e)
		       : plan_elementwise(pl, s, o, e);
	}
}

/* The elements S computes: where= (its own op, or a reduction's operand),
 * then masked mode over its first NIN inputs (before where= added its
 * own). */
static int step_selection(struct planner *pl, struct plan_step *s, const struct step_opts *o, int nin,
			  struct err *e)
{
	if (option_given(o, OPT_WHERE) &&
	    (s->verb == VERB_REDUCE ? plan_reduce_where(pl, s, o, e) : lower_where(pl, s, o, e)) < 0)
		return -1;
	return plan_masks(pl, s, o, missing_mode_of(o), nin, e);
}

/* Where S's results go (printed when the step names no output), each one
 * described, none written twice nor over what the step reads; then what
 * the datasets it creates are like, and the fill values. */
static int step_outputs(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			struct err *e)
{
	const struct recipe_step *rs = s->src;
	bool overwrite = pl->o->overwrite || (option_given(o, OPT_OVERWRITE) && o->overwrite);
	if (rs->nout && rs->nout != s->nout)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->out_mark[0]),
			      "ufunc '%s' gives %d output%s, got %d", s->uf->name, s->nout,
			      s->nout == 1 ? "" : "s", rs->nout);
	if (!rs->nout && rs->verb != VERB_AT && outputs_printed(pl, s, e) < 0)
		return -1;
	for (int k = 0; k < rs->nout; k++) {
		if (outputs_plan(pl, s, k, overwrite, e) < 0)
			return -1;
		output_describe(s, k);
		for (int j = 0; j < k; j++)
			if (s->out[j] == s->out[k])
				return err_at(e, EXIT_USAGE, LOCATE_OUTPUT(pl, s, k),
					      "both outputs go to '%s'", rs->out[k]);
		for (int j = 0; j < s->nin; j++) {
			const struct array *x = s->in[j], *y = s->out[k];
			if (x != y && x->kind == ARR_DATASET && x->file == y->file &&
			    !strcmp(x->path, y->path) && select_may_overlap(x, y))
				return err_at(e, EXIT_USAGE, LOCATE_OUTPUT(pl, s, k),
					      "'%s' overlaps '%s', which the step reads: write to another dataset",
					      y->display, x->display);
		}
	}
	if (plan_created(pl, s, o, e) < 0)
		return -1;
	if ((s->mask.has_where || s->mask.masked) && (plan_fill(pl, s, o, e) < 0 ||
			     (s->print && outputs_mask(pl, s, e) < 0)))
		return -1;
	return 0;
}

/* S's boxes within --memory on the plan's ranks, as its kind of run
 * lays them out. */
static int step_layout(struct planner *pl, struct plan_step *s, struct err *e)
{
	const struct site *site = LOCATE(pl, s, s->src->mark);
	const char *w = site->text;
	int nranks = pl->o->nranks;
	int64_t memory = (int64_t)pl->o->memory;
	int rc = s->verb == VERB_REDUCE ? reduce_layout(s, nranks, memory, w, e)
		 : s->verb == VERB_REDUCEAT ? reduceat_layout(s, nranks, memory, w, e)
		 : s->verb == VERB_AT ? at_layout(s, nranks, memory, w, e)
		 : s->verb == VERB_ACCUMULATE ? scan_layout(s, nranks, memory, w, e)
		 : s->contract ? contract_layout(s, nranks, memory, w, e)
		 : elementwise_layout(s, nranks, memory, w, e);
	if (rc < 0)
		return err_place(e, &site->loc);
	return 0;
}

/* S's outputs written under names of the scratch file: the names bound,
 * for later steps to read. */
static int step_bind_outputs(struct planner *pl, struct plan_step *s, struct err *e)
{
	const struct recipe_step *rs = s->src;
	for (int k = 0; k < rs->nout; k++) {
		struct operand op;
		operand_parse(rs->out[k], pl->p->arena, &op, "", e);
		if (op.kind == OPERAND_NAME && s->out[k]->file->scratch &&
		    array_bind(pl, op.name, s->out[k], LOCATE_OUTPUT(pl, s, k), e) < 0)
			return -1;
	}
	return 0;
}

/* Step INDEX of the recipe, phase by phase. */
static int plan_step(struct planner *pl, int index, struct err *e)
{
	struct plan_step *s = &pl->p->steps[index];
	struct step_opts o;
	if (step_start(pl, index, s, e) < 0 || step_options_of(pl, s, &o, e) < 0 ||
	    step_verb(pl, s, &o, e) < 0 || step_describe(pl, s, &o, e) < 0)
		return -1;
	int nin = s->nin;   /* the step's own inputs, before where= adds its own */
	if (step_selection(pl, s, &o, nin, e) < 0 || step_outputs(pl, s, &o, e) < 0 ||
	    step_layout(pl, s, e) < 0 || step_bind_outputs(pl, s, e) < 0)
		return -1;
	/* Errors while running name the step where the recipe has it. */
	locate_place_step(pl, s);
	return 0;
}

int plan_build(const struct recipe *r, const struct plan_options *o,
	       struct arena *a, struct plan *p, struct err *e)
{
	memset(p, 0, sizeof *p);
	p->arena = a;
	p->command = o->command;
	p->token = o->token;
	struct planner *pl = calloc(1, sizeof *pl);
	struct recipe *split = arena_alloc(a, sizeof *split);
	if (!pl)
		abort();
	gufunc_split(r, a, split);
	r = split;
	pl->p = p;
	pl->r = r;
	pl->o = o;
	int rc = -1;
	for (int i = 0; i < r->ninputs; i++) {
		const struct recipe_input *in = &r->inputs[i];
		const struct site *w = LOCATE(pl, NULL, in->ref_mark);
		struct operand op;
		if (operand_parse(in->ref, a, &op, w->text, e) < 0) {
			err_place(e, &w->loc);
			goto out;
		}
		if (op.kind == OPERAND_NAME) {
			err_at(e, EXIT_USAGE, w, "input '%s' must be a FILE:/PATH dataset or a number, not a name",
				in->name);
			goto out;
		}
		struct array *x = array_operand(pl, in->ref, w, e);
		if (!x || array_bind(pl, in->name, x, w, e) < 0)
			goto out;
	}
	p->nsteps = r->nsteps;
	p->steps = arena_alloc(a, sizeof *p->steps * (size_t)(r->nsteps ? r->nsteps : 1));
	for (int i = 0; i < r->nsteps; i++)
		if (plan_step(pl, i, e) < 0)
			goto out;
	fuse_plan(pl);
	if (place_files(pl, e) < 0)
		goto out;
	rc = 0;
out:
	for (int i = 0; i < p->nfiles; i++) {
		h5io_close(p->files[i]->id);
		p->files[i]->id = -1;
	}
	free(pl);
	return rc;
}
