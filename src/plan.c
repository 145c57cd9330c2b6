/* plan.c - recipe + files -> validated plan: the planner's driver.
 *
 * plan_build() binds the recipe's inputs, then plans each step in order:
 * its options merged with the recipe's defaults and checked against its
 * verb, its operands (arrays.c), its loop (resolve.c; lower.c for
 * expressions), its shapes (broadcasting, reduced axes), its outputs
 * (outputs.c) and its blocks (elementwise.h, reduce.h, scan.h).  Then the
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

const char *planner_where(struct planner *pl, const struct plan_step *s, struct mark m)
{
	char *w = pl->where;
	size_t n = sizeof pl->where;
	const char *step = s ? s->where : NULL;
	err_loc_set(&pl->loc, NULL, 0, 0, step);
	if (pl->o->command) {
		snprintf(w, n, "%s", s ? s->where : pl->o->command);
	} else if (m.line > 0 && s) {
		snprintf(w, n, "%s:%d:%d: %s", pl->r->path, m.line, m.col, s->where);
		err_loc_set(&pl->loc, pl->r->path, m.line, m.col, step);
	} else if (m.line > 0) {
		snprintf(w, n, "%s:%d:%d", pl->r->path, m.line, m.col);
		err_loc_set(&pl->loc, pl->r->path, m.line, m.col, step);
	} else {
		snprintf(w, n, "%s", s ? s->where : pl->r->path ? pl->r->path : "");
	}
	err_site(pl->e, w, &pl->loc);
	return w;
}

const char *planner_step_where(struct planner *pl, struct plan_step *s, int k)
{
	return planner_where(pl, s, s->src->out_mark[k]);
}

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
	return err_set(e, EXIT_USAGE, planner_where(pl, s, m),
		       "operands could not be broadcast together with shapes %s", msg);
}

/* The operand TEXT of S as it reads it: through its dataset's CF coding
 * unless S reads the stored numbers (missing: raw). */
static struct array *step_operand(struct planner *pl, const struct plan_step *s, const char *text,
				  const char *w, struct err *e)
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
		return err_set(e, EXIT_USAGE, planner_where(pl, s, rs->fn_mark),
			       "method outer is not allowed in ufunc with non-trivial signature");
	static const int core_options[] = { OPT_AXIS, OPT_AXES };   /* a generalized ufunc's */
	for (size_t i = 0; i < sizeof core_options / sizeof *core_options && s->verb == VERB_UFUNC; i++)
		if (o->given & (1u << core_options[i]))
			return err_set(e, EXIT_USAGE, planner_where(pl, s, o->mark[core_options[i]]),
				       "%s() got an unexpected keyword argument '%s'", s->uf->name,
				       step_options[core_options[i]].name);
	if (s->verb == VERB_OUTER && s->uf->nin != 2)
		return err_set(e, EXIT_USAGE, planner_where(pl, s, rs->fn_mark),
			       "outer product only supported for binary functions");
	if (rs->nin != s->uf->nin)
		return err_set(e, EXIT_USAGE, planner_where(pl, s, rs->nin ? rs->in_mark[0] : rs->mark),
			       "ufunc '%s' takes %d input%s, got %d", s->uf->name, s->uf->nin,
			       s->uf->nin == 1 ? "" : "s", rs->nin);
	s->nin = rs->nin;
	s->nout = s->uf->nout;
	for (int k = 0; k < s->nin; k++) {
		s->in[k] = step_operand(pl, s, rs->in[k], planner_where(pl, s, rs->in_mark[k]), e);
		if (!s->in[k])
			return -1;
	}
	if (s->verb == VERB_UFUNC &&
	    arrays_by_name(pl, s, s->nin, s->in, (o->given & (1u << OPT_BROADCAST)) && o->by_position,
			   planner_where(pl, s, rs->nin ? rs->in_mark[0] : rs->mark), e) < 0)
		return -1;
	for (int k = 0; k < s->nin; k++)
		s->bshape[k] = s->in[k]->shape;
	if (s->verb == VERB_OUTER) {   /* a.shape + (1,) * b.ndim against b */
		for (int k = 0; k < s->nin; k++)
			if (s->in[k]->kind == ARR_LITERAL)
				s->in[k]->strong = true;   /* NumPy makes arrays of them first */
		struct shape *a = &s->bshape[0];
		if (a->ndim + s->bshape[1].ndim > H5U_MAXDIM)
			return err_set(e, EXIT_USAGE, planner_where(pl, s, rs->mark),
				       "the outer product has more than %d dimensions", H5U_MAXDIM);
		for (int i = 0; i < s->bshape[1].ndim; i++)
			a->dim[a->ndim++] = 1;
	}
	if (broadcast(pl, s, e) < 0)
		return -1;
	s->loop = resolve_loop(s->uf, s->nin, (const struct array *const *)s->in, o, s->casting,
			       planner_where(pl, s, o->given & (1u << OPT_DTYPE) ? o->mark[OPT_DTYPE] : rs->mark), e);
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
	for (int k = 0; k < s->nin; k++) {
		op->src[k] = -1 - k;
		if (s->in[k]->kind == ARR_LITERAL &&
		    resolve_literal(s->in[k], op, k, planner_where(pl, s, rs->in_mark[k]), e) < 0)
			return -1;
	}
	s->nops = 1;
	s->ops = op;
	for (int k = 0; k < s->nout; k++)
		s->out_src[k] = OP_REF(0, k);
	return 0;
}

int planner_axis(struct planner *pl, struct plan_step *s, const struct step_opts *o, int i,
		 const struct array *x, int *out, struct err *e)
{
	int a = o->given & (1u << OPT_AXIS) ? o->axis[i] : 0, ndim = x->shape.ndim;
	if ((o->given & (1u << OPT_AXIS)) && o->axis_name[i]) {
		*out = dims_axis(x->dims, o->axis_name[i]);
		if (*out < 0)
			return err_set(e, EXIT_USAGE, planner_where(pl, s, o->mark[OPT_AXIS]),
				       x->dims ? "'%s' has no dimension '%s'" :
				       "'%s' has no dimension names (no dimension scales), so no dimension '%s'",
				       x->display, o->axis_name[i]);
		return 0;
	}
	if (a < -ndim || a >= ndim)
		return err_set(e, EXIT_USAGE, planner_where(pl, s, s->src->opts.mark[OPT_AXIS]),
			       "axis %d is out of bounds for array of dimension %d", a, ndim);
	*out = a < 0 ? a + ndim : a;
	return 0;
}

/* The axes a reduce step reduces (s->reduced), from axis: as NumPy takes it. */
static int reduced_axes(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			const struct array *x, struct err *e)
{
	const struct shape *X = &x->shape;
	bool given = o->given & (1u << OPT_AXIS);
	int naxes = 0;
	if (given && o->axis_all) {
		for (int i = 0; i < X->ndim; i++)
			s->reduced[i] = true;
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
			if (s->reduced[a])
				return err_set(e, EXIT_USAGE, planner_where(pl, s, o->mark[OPT_AXIS]),
					       "duplicate value in 'axis'");
			s->reduced[a] = true;
			naxes++;
		}
	}
	if (naxes > 1 && !ufunc_reorderable(s->uf))
		return err_set(e, EXIT_USAGE, planner_where(pl, s, o->mark[OPT_AXIS]),
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
		err_set(e, EXIT_USAGE, planner_where(pl, s, m), "Reduction not defined on ufunc with signature");
	} else if (s->uf->nin != 2) {
		err_set(e, EXIT_USAGE, planner_where(pl, s, m), "%s only supported for binary functions", verb);
	} else if (s->uf->nout != 1) {
		err_set(e, EXIT_USAGE, planner_where(pl, s, m),
			"%s only supported for functions returning a single value", verb);
	} else if (rs->nin != 1) {
		err_set(e, EXIT_USAGE, planner_where(pl, s, rs->nin ? rs->in_mark[0] : rs->mark),
			"%s takes one input, got %d", verb, rs->nin);
	}
	if (e->status)
		return NULL;
	s->nin = s->nout = 1;
	struct array *x = s->in[0] = step_operand(pl, s, rs->in[0], planner_where(pl, s, rs->in_mark[0]), e);
	if (x && x->kind == ARR_LITERAL) {
		err_set(e, EXIT_USAGE, planner_where(pl, s, rs->in_mark[0]), "%s needs a dataset, not the number '%s'",
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
	bool given = o->given & (1u << OPT_AXIS);
	memset(s->reduced, 0, sizeof s->reduced);
	if (s->verb == VERB_ACCUMULATE) {
		if (X->ndim == 0)
			return err_set(e, EXIT_USAGE, planner_where(pl, s, rs->in_mark[0]), "cannot accumulate on a scalar");
		if (given && (o->axis_all || o->naxis != 1))
			return err_set(e, EXIT_USAGE, planner_where(pl, s, o->mark[OPT_AXIS]),
				       "accumulate does not allow multiple axes");
		if (planner_axis(pl, s, o, 0, x, &s->axis, e) < 0)
			return -1;
		s->reduced[s->axis] = true;
		s->shape = *X;
		s->dims = x->dims;
	} else {
		if (reduced_axes(pl, s, o, x, e) < 0)
			return -1;
		s->keepdims = (o->given & (1u << OPT_KEEPDIMS)) && o->keepdims;
		s->dims = dims_reduce(x->dims, s->reduced, s->keepdims, pl->p->arena);
		s->shape.ndim = 0;
		for (int i = 0; i < X->ndim; i++)
			if (!s->reduced[i])
				s->shape.dim[s->shape.ndim++] = X->dim[i];
			else if (s->keepdims)
				s->shape.dim[s->shape.ndim++] = 1;
	}
	s->bshape[0] = *X;
	if (resolve_reduction_loop(s, o, planner_where(pl, s, given && (o->given & (1u << OPT_DTYPE)) ?
						   o->mark[OPT_DTYPE] : rs->fn_mark), e) < 0)
		return -1;
	enum dtype t = s->loop->types[0];
	s->out_dtype[0] = s->loop->types[2];
	if (s->verb == VERB_ACCUMULATE) {
		s->init = FOLD_FIRST_SKIP;
		return 0;
	}
	unsigned char identity[16];
	bool has_identity = ufunc_identity_value(uf, t, identity) == 0;
	bool empty = false;
	for (int i = 0; i < X->ndim; i++)
		empty = empty || (s->reduced[i] && X->dim[i] == 0);
	s->rest_init = has_identity ? FOLD_VALUE : ufunc_reorderable(uf) ? FOLD_FIRST : FOLD_FIRST_SKIP;
	if (has_identity)
		ufunc_identity_exact(uf, t, s->rest_value);
	s->init = s->rest_init;
	memcpy(s->init_value, identity, sizeof identity);
	if (o->given & (1u << OPT_INITIAL)) {
		const char *w = planner_where(pl, s, o->mark[OPT_INITIAL]);
		struct literal lit;
		if (literal_parse(o->initial, &lit) < 0)
			return err_set(e, EXIT_USAGE, w, "initial must be a number, got '%s'", o->initial);
		if (lit.kind == LIT_BOOL)
			dtype_cast(DT_BOOL, &lit.b, 0, t, s->init_value, 0, 1);
		else if (literal_to_dtype(&lit, t, s->init_value, w, e) < 0)
			return -1;
		s->init = FOLD_VALUE;
	}
	if (empty && s->init != FOLD_VALUE)
		return err_set(e, EXIT_USAGE, planner_where(pl, s, rs->mark),
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
	const char *w = planner_where(pl, s, o->mark[OPT_WHERE]);
	const struct ufunc *uf = s->uf;
	if (s->init != FOLD_VALUE)
		return err_set(e, EXIT_USAGE, w,
			       "reduction operation '%s' does not have an identity, so to use a where mask one has to specify 'initial'",
			       uf->name);
	struct array *x = step_operand(pl, s, o->where, w, e);
	if (!x)
		return -1;
	const struct shape *X = &s->in[0]->shape, *shapes[2] = { &x->shape, X };
	struct shape b;
	if (shape_broadcast(2, shapes, &b) < 0 || !shape_equal(&b, X)) {
		char a[800], c[800];
		return err_set(e, EXIT_USAGE, w,
			       "where= with shape %s cannot be broadcast to the input's shape %s",
			       shape_format_compact(&x->shape, a, sizeof a), shape_format_compact(X, c, sizeof c));
	}
	s->where_arr = x;
	if (ufunc_identity_value(uf, s->loop->types[0], s->skip_value) != 0)
		memcpy(s->skip_value, s->init_value, sizeof s->skip_value);
	s->skip_fold = s->skip_fold || (!ufunc_reorderable(uf) && uf->identity == ID_NONE);
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
		const struct cf_missing *m = array_missing(pl, x, planner_where(pl, s, s->src->mark), e);
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
	const char *w = planner_where(pl, s, o->mark[OPT_MISSING]);
	if (masked_skip_value(s->uf, s->loop, s->mask_skip) < 0)
		s->skip_fold = true;
	if (s->in[0]->kind == ARR_DATASET && !(s->in_missing = array_missing(pl, s->in[0], w, e)))
		return -1;
	s->masked = true;
	s->mask_nan = o->missing == MISSING_MASK_NAN;
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
	bool given = o->given & (1u << OPT_FILL);
	const char *w = planner_where(pl, s, given ? o->mark[OPT_FILL] : s->src->mark);
	const struct cf_missing *first = NULL;
	if (s->masked && s->in[0]->kind == ARR_DATASET && !(first = array_missing(pl, s->in[0], w, e)))
		return -1;
	for (int k = 0; k < s->nout; k++) {
		struct array *y = s->out[k];
		const struct cf_missing *own = NULL;
		if (s->masked && !y->create && !(own = array_missing(pl, y, w, e)))
			return -1;
		unsigned char *fill = y->create ? y->fill : s->mask_fill[k];
		if (given || (!s->masked && !packs_nan(y))) {
			if (where_fill_value(given ? o->fill : NULL, y->dtype, fill, w, e) < 0)
				return -1;
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
			memcpy(s->mask_fill[k], y->fill, sizeof y->fill);
		}
	}
	return 0;
}

/* The units of operand K of op J of S: an array's, or a weak literal's. */
static struct units operand_units(const struct plan_step *s, const struct plan_op *op, int k,
				  const struct units *res)
{
	int src = op->src[k];
	if (src >= 0)
		return res[src];
	if (src == OP_LITERAL || s->in[-1 - src]->kind == ARR_LITERAL) {
		double v = 0;
		dtype_cast(op->loop->types[k], op->lit[k], 0, DT_FLOAT64, &v, 0, 1);
		return (struct units){ UK_NONE, NULL, true, v };
	}
	return s->in[-1 - src]->units;
}

/* How operand K of OP (of S) is named in messages: a dataset's display
 * name, a number, or the ufunc whose result it is; in BUF. */
static const char *operand_name(const struct plan_step *s, const struct plan_op *op, int k,
				struct units u, char *buf, size_t len)
{
	int src = op->src[k];
	if (src >= 0)
		snprintf(buf, len, "the result of %s", s->ops[OP_OF(src)].uf->name);
	else if (u.weak)
		snprintf(buf, len, "%g", u.value);
	else
		snprintf(buf, len, "%s", s->in[-1 - src]->display);
	return buf;
}

/* units: strict on op OP (of S) with operands IN: refused (-1), or the
 * factors its operands are converted by (FACTOR) and IN as converted;
 * NAME gets the operands' names. */
static int op_strict(struct planner *pl, struct plan_step *s, const struct plan_op *op,
		     struct units *in, double *factor, const char **name, struct err *e)
{
	struct arena *a = pl->p->arena;
	char buf[RECIPE_MAXIN][512], msg[2048];
	for (int k = 0; k < op->nin; k++)
		name[k] = arena_strdup(a, operand_name(s, op, k, in[k], buf[k], sizeof buf[k]));
	if (units_strict(op->uf, op->nin, in, name, factor, msg, sizeof msg) < 0)
		return err_set(e, EXIT_USAGE, planner_where(pl, s, s->src->mark), "%s (units: strict)", msg);
	return 0;
}

/* The units of S's results (units.h), op by op, or of its fold; under
 * units: strict (STRICT), what unyt refuses is refused and the
 * conversions it makes become ops of S's program (lower_convert). */
static int step_units(struct planner *pl, struct plan_step *s, bool strict, struct err *e)
{
	struct arena *a = pl->p->arena;
	if (s->verb == VERB_AT)
		return 0;   /* in place: the target keeps its units */
	if (s->verb == VERB_REDUCE || s->verb == VERB_ACCUMULATE || s->verb == VERB_REDUCEAT) {
		long long count = 1;
		for (int i = 0; i < s->in[0]->shape.ndim; i++)
			if (s->reduced[i])
				count *= s->in[0]->shape.dim[i];
		/* segments of many lengths fold as accumulate's running results do */
		s->units[0] = units_fold(s->uf->units, s->verb != VERB_REDUCE, count, s->in[0]->units, a);
		if (strict && s->units[0].kind == UK_UNKNOWN)
			return err_set(e, EXIT_USAGE, planner_where(pl, s, s->src->mark),
				       "the units of %s.%s of %s (%s) cannot be determined (units: strict)",
				       s->uf->name, verb_name(s->verb), s->in[0]->display,
				       s->in[0]->units.kind == UK_KNOWN ? s->in[0]->units.text : "dimensionless");
		return 0;
	}
	if (s->verb == VERB_OUTER) {
		struct units in[2] = { s->in[0]->units, s->in[1]->units };
		if (strict) {
			double factor[2];
			const char *name[2] = { s->in[0]->display, s->in[1]->display };
			char msg[2048];
			if (units_strict(s->uf, 2, in, name, factor, msg, sizeof msg) < 0 || factor[0] != 1.0 ||
			    factor[1] != 1.0)
				return err_set(e, EXIT_USAGE, planner_where(pl, s, s->src->mark), "%s (units: strict)",
					       factor[0] != 1.0 || factor[1] != 1.0 ?
					       "outer steps do not convert units" : msg);
		}
		for (int k = 0; k < s->nout; k++)
			s->units[k] = units_apply(s->nout == 1 ? s->uf->units : UNITS_DIMENSIONLESS, 2, in, a);
		return 0;
	}
	struct units *res = arena_alloc(a, sizeof *res * (size_t)s->nops * RECIPE_MAXOUT);
	double *factor = arena_alloc(a, sizeof *factor * (size_t)s->nops * RECIPE_MAXIN);
	const char **name = arena_alloc(a, sizeof *name * (size_t)s->nops * RECIPE_MAXIN);
	bool convert = false;
	for (int j = 0; j < s->nops; j++) {
		const struct plan_op *op = &s->ops[j];
		struct units in[RECIPE_MAXIN];
		for (int k = 0; k < op->nin; k++)
			in[k] = operand_units(s, op, k, res);
		if (strict && op->nout == 1) {
			if (op_strict(pl, s, op, in, &factor[j * RECIPE_MAXIN], &name[j * RECIPE_MAXIN], e) < 0)
				return -1;
			for (int k = 0; k < op->nin; k++)
				convert = convert || factor[j * RECIPE_MAXIN + k] != 1.0;
		}
		for (int k = 0; k < op->nout; k++)
			res[OP_REF(j, k)] = units_apply(op->nout == 1 ? op->uf->units : UNITS_DIMENSIONLESS,
							op->nin, in, a);
	}
	for (int k = 0; k < s->nout; k++) {
		s->units[k] = res[s->out_src[k]];
		if (strict && s->units[k].kind == UK_UNKNOWN)
			return err_set(e, EXIT_USAGE, planner_where(pl, s, s->src->mark),
				       "the units of the result cannot be determined (units: strict)");
	}
	return convert ? lower_convert(pl, s, factor, name, e) : 0;
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
	if ((rs->opts.given & (1u << OPT_FILL)) && !s->has_where && !masking)
		return err_set(e, EXIT_USAGE, planner_where(pl, s, rs->opts.mark[OPT_FILL]),
			       "'fill' needs 'where' or a mask: without them every element is computed");
	return 0;
}

/* The datasets S creates: packed (pack:), then chunks and compression. */
static int plan_created(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			struct err *e)
{
	for (int k = 0; k < s->nout && (o->given & (1u << OPT_PACK)); k++)
		if (outputs_pack(pl, s, k, o, e) < 0)
			return -1;
	for (int k = 0; k < s->nout; k++)
		if (s->out[k]->create && !s->out[k]->file->scratch && outputs_layout(pl, s, k, o, e) < 0)
			return -1;
	return 0;
}

/* What CF says S's results are (cfdesc.h), from its inputs and its ops as
 * the verb planned them (before units: strict's conversions and the ops
 * of where= and masks are added). */
static void step_desc(struct planner *pl, struct plan_step *s)
{
	const struct array *x = s->in[0];
	if (s->verb == VERB_ACCUMULATE || s->verb == VERB_AT) {
		s->desc = (struct cfdesc){ 0 };   /* at: written in place, which keeps its own */
	} else if (s->verb == VERB_REDUCE || s->verb == VERB_REDUCEAT) {
		const char *names[H5U_MAXDIM];
		int n = 0;
		for (int i = 0; x->dims && i < x->shape.ndim; i++)
			if (s->reduced[i])
				names[n++] = x->dims->name[i];
		s->desc = cfdesc_reduce(&x->desc, s->uf->cell_method, n, x->dims ? names : NULL,
					pl->p->arena);
	} else {
		bool same = s->nops ? true : s->uf->units == UNITS_SAME;
		for (int j = 0; j < s->nops; j++)
			same = same && s->ops[j].uf->units == UNITS_SAME;
		const struct cfdesc *in[RECIPE_MAXIN];
		int n = 0;
		for (int k = 0; k < s->nin; k++)
			if (s->in[k]->kind == ARR_DATASET)
				in[n++] = &s->in[k]->desc;
		s->desc = cfdesc_elementwise(n, in, same && n > 0);
	}
}

/* What output K of S says of itself, for later steps to read and the end
 * of the run to write: its units, and, unless it is written in place
 * (which keeps its own, cfdesc.h), what CF says it is. */
static void output_describe(struct plan_step *s, int k)
{
	struct array *x = s->out[k];
	x->units = s->units_off ? (struct units){ UK_UNKNOWN, NULL, false, 0 } : s->units[k];
	x->units_set = !s->units_off;
	if (!x->in_place) {
		x->desc = s->desc;
		x->desc_set = x->create || x->replace;
	}
}

static int plan_step(struct planner *pl, int index, struct err *e)
{
	const struct recipe_step *rs = &pl->r->steps[index];
	struct plan_step *s = &pl->p->steps[index];
	s->index = index + 1;
	s->src = rs;
	s->verb = rs->verb;
	s->merged_into = -1;
	bool expr = rs->verb == VERB_EXPR || rs->part;   /* a part of one is named as it */
	if (pl->o->command)
		snprintf(s->where, sizeof s->where, "%s %s", pl->o->command, rs->fn);
	else
		snprintf(s->where, sizeof s->where, "step %d (%s %s)", rs->number ? rs->number : s->index,
			 expr ? "expr" : verb_name(rs->verb), expr ? "expression" : rs->fn);
	if (pl->o->command && expr)
		snprintf(s->where, sizeof s->where, "%s", pl->o->command);
	s->uf = rs->verb == VERB_EXPR ? NULL : ufunc_lookup(rs->fn);
	if (!s->uf && rs->verb != VERB_EXPR)
		return err_set(e, EXIT_USAGE, planner_where(pl, s, rs->fn_mark), "unknown ufunc '%s'", rs->fn);
	struct step_opts o;
	option_merge(&pl->r->defaults, &rs->opts, &o);
	bool reduction = rs->verb == VERB_REDUCE || rs->verb == VERB_ACCUMULATE;
	/* Options for other verbs are errors on the step itself; under
	 * defaults they are meant for other steps. */
	for (int i = 0; i < OPT_COUNT; i++) {
		if (option_applies(i, rs->verb))
			continue;
		if (rs->opts.given & (1u << i))
			return err_set(e, EXIT_USAGE, planner_where(pl, s, rs->opts.mark[i]),
				       "'%s' does not apply to %s steps", step_options[i].name, verb_name(rs->verb));
		o.given &= ~(1u << i);
	}
	/* axis under defaults is meant for reductions: a ufunc step takes its own */
	if (rs->verb == VERB_UFUNC)
		o.given &= ~((1u << OPT_AXIS | 1u << OPT_AXES) & ~rs->opts.given);
	s->casting = o.given & (1u << OPT_CASTING) ? o.casting : CAST_SAME_KIND;
	enum missing_mode mode = o.given & (1u << OPT_MISSING) ? o.missing : MISSING_CF;
	s->decoded = mode != MISSING_RAW && rs->verb != VERB_AT;   /* at: the stored numbers */
	bool overwrite = pl->o->overwrite || ((o.given & (1u << OPT_OVERWRITE)) && o.overwrite);

	int rc = reduction ? plan_reduction(pl, s, &o, e)
	       : rs->verb == VERB_REDUCEAT ? plan_reduceat(pl, s, &o, e)
	       : rs->verb == VERB_AT ? plan_at(pl, s, e)
	       : rs->verb == VERB_EXPR ? lower_expression(pl, s, &o, e)
	       : rs->verb == VERB_UFUNC && s->uf->signature ? gufunc_plan(pl, s, &o, e)
	       : plan_elementwise(pl, s, &o, e);
	if (rc < 0)
		return -1;
	step_desc(pl, s);
	s->units_off = (o.given & (1u << OPT_UNITS)) && o.units_off;
	bool strict = (o.given & (1u << OPT_UNITS)) && o.units_strict;
	if (!s->units_off && step_units(pl, s, strict, e) < 0)
		return -1;
	int nin = s->nin;   /* the step's own inputs, before where= adds its own */
	if (o.given & (1u << OPT_WHERE)) {
		rc = rs->verb == VERB_REDUCE ? plan_reduce_where(pl, s, &o, e) : lower_where(pl, s, &o, e);
		if (rc < 0)
			return -1;
	}
	if (plan_masks(pl, s, &o, mode, nin, e) < 0)
		return -1;
	if (rs->nout && rs->nout != s->nout)
		return err_set(e, EXIT_USAGE, planner_where(pl, s, rs->out_mark[0]),
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
				return err_set(e, EXIT_USAGE, planner_step_where(pl, s, k),
					       "both outputs go to '%s'", rs->out[k]);
		for (int j = 0; j < s->nin; j++) {
			const struct array *x = s->in[j], *y = s->out[k];
			if (x != y && x->kind == ARR_DATASET && x->file == y->file &&
			    !strcmp(x->path, y->path) && select_may_overlap(x, y))
				return err_set(e, EXIT_USAGE, planner_step_where(pl, s, k),
					       "'%s' overlaps '%s', which the step reads: write to another dataset",
					       y->display, x->display);
		}
	}
	if (plan_created(pl, s, &o, e) < 0)
		return -1;
	if ((s->has_where || s->masked) && (plan_fill(pl, s, &o, e) < 0 ||
			     (s->print && outputs_mask(pl, s, e) < 0)))
		return -1;
	const char *w = planner_where(pl, s, rs->mark);
	rc = rs->verb == VERB_REDUCE ? reduce_layout(s, pl->o->nranks, (int64_t)pl->o->memory, w, e)
	       : rs->verb == VERB_REDUCEAT ? reduceat_layout(s, pl->o->nranks, (int64_t)pl->o->memory, w, e)
	       : rs->verb == VERB_AT ? at_layout(s, pl->o->nranks, (int64_t)pl->o->memory, w, e)
	       : rs->verb == VERB_ACCUMULATE ? scan_layout(s, pl->o->nranks, (int64_t)pl->o->memory, w, e)
	       : s->contract ? contract_layout(s, pl->o->nranks, (int64_t)pl->o->memory, w, e)
	       : elementwise_layout(s, pl->o->nranks, (int64_t)pl->o->memory, w, e);
	if (rc < 0)
		return -1;
	for (int k = 0; k < rs->nout; k++) {
		struct operand op;
		operand_parse(rs->out[k], pl->p->arena, &op, "", e);
		if (op.kind == OPERAND_NAME && s->out[k]->file->scratch &&
		    array_bind(pl, op.name, s->out[k], planner_step_where(pl, s, k), e) < 0)
			return -1;
	}
	/* Errors while running name the step where the recipe has it. */
	err_loc_set(&s->loc, NULL, 0, 0, s->where);
	if (!pl->o->command && rs->mark.line > 0) {
		err_loc_set(&s->loc, pl->r->path, rs->mark.line, rs->mark.col, s->where);
		char step[sizeof s->where];
		memcpy(step, s->where, sizeof step);
		int n = snprintf(s->where, sizeof s->where, "%s:%d:%d: ", pl->r->path, rs->mark.line,
				 rs->mark.col);
		if (n > 0 && (size_t)n < sizeof s->where)
			snprintf(s->where + n, sizeof s->where - (size_t)n, "%s", step);
	}
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
	pl->e = e;
	int rc = -1;
	for (int i = 0; i < r->ninputs; i++) {
		const struct recipe_input *in = &r->inputs[i];
		const char *w = planner_where(pl, NULL, in->ref_mark);
		struct operand op;
		if (operand_parse(in->ref, a, &op, w, e) < 0)
			goto out;
		if (op.kind == OPERAND_NAME) {
			err_set(e, EXIT_USAGE, w, "input '%s' must be a FILE:/PATH dataset or a number, not a name",
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
	err_sites_clear(e);   /* PL's WHERE goes */
	free(pl);
	return rc;
}
