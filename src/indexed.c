/* indexed.c - planning the two steps that take indices: reduceat and at.
 *
 * Both read their index arrays (indices.h) and check every value against
 * the axis it indexes here, before anything is written, so that NumPy's
 * IndexError is exit status 2 with every file as it was: reduceat reads
 * its few indices whole (its layout needs the segments), at streams its
 * index datasets once, each rank a share (`h5ufunc check` leaves that
 * out).  An index dataset that an earlier step of the run writes cannot
 * be read now: reduceat refuses it, at checks it while running.  Part of
 * the planner (planner.h); the runs are reduceat.c's and at.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "at.h"
#include "literal.h"
#include "planner.h"
#include "reduceat.h"
#include "resolve.h"

/* Entry K of S's indices: a literal, or an integer dataset (a name or
 * FILE:/PATH) that RULE accepts, into IX. */
static int index_entry(struct planner *pl, struct plan_step *s, int k, enum index_rule rule,
		       struct index_array *ix, struct err *e)
{
	const struct recipe_step *rs = s->src;
	const struct site *w = LOCATE(pl, s, rs->idx_mark[k]);
	int lit = indices_literal(rs->idx[k], pl->p->arena, ix, w->text, e);
	if (lit != 0)
		return lit < 0 ? err_place(e, &w->loc) : 0;
	struct array *x = array_operand(pl, rs->idx[k], w, e);
	if (!x)
		return -1;
	ix->x = x;
	ix->shape = x->shape;
	if (indices_dtype(x->dtype, rule, x->display, w->text, e) < 0)
		return err_place(e, &w->loc);
	return 0;
}

/* S's index entries that are numbers but not integers (2.5, 1e2, nan,
 * true) refused, each where it stands: left alone, the one-liner's
 * 0,3,2.5 and a recipe's [0, 3.0] would read as several index arrays and
 * be refused for their count.  at says NumPy's IndexError; reduceat, whose
 * NumPy would truncate a list's floats, takes integers only. */
static int index_numbers(struct planner *pl, struct plan_step *s, enum index_rule rule, struct err *e)
{
	const struct recipe_step *rs = s->src;
	for (int k = 0; k < rs->nidx && k < H5U_MAXDIM; k++) {
		struct literal l;
		if (literal_parse(rs->idx[k], &l) < 0 || l.kind == LIT_INT)
			continue;
		const struct site *w = LOCATE(pl, s, rs->idx_mark[k]);
		if (rule == INDEX_WRAPS)
			return err_at(e, EXIT_USAGE, w, "only integers, slices (`:`), ellipsis (`...`), "
				      "numpy.newaxis (`None`) and integer or boolean arrays are valid indices");
		return err_at(e, EXIT_USAGE, w, "index '%s' is not an integer", rs->idx[k]);
	}
	return 0;
}

/* Is X written by an earlier step of the run (so not there to read yet)? */
static bool written_by_run(const struct index_array *ix)
{
	return ix->x && (ix->x->create || ix->x->in_place);
}

/* ---- reduceat ---------------------------------------------------------- */

/* reduceat's axis (one, by number or name; 0 when not given) into *AXIS. */
static int reduceat_axis(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			 const struct array *x, int *axis, struct err *e)
{
	if (option_given(o, OPT_AXIS) && (o->axis_all || o->naxis != 1))
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, o->mark[OPT_AXIS]),
			      "reduceat does not allow multiple axes");
	return fold_axis(pl, s, o, 0, x, axis, e);
}

/* reduceat's one index array, 1-d, read whole and checked against the
 * axis's EXTENT: its values into R. */
static int reduceat_indices(struct planner *pl, struct plan_step *s, struct reduceat_plan *r,
			    int64_t extent, struct err *e)
{
	const struct recipe_step *rs = s->src;
	const struct site *w = LOCATE(pl, s, rs->nidx ? rs->idx_mark[0] : rs->idx_key);
	if (index_numbers(pl, s, INDEX_SEGMENTS, e) < 0)
		return -1;
	if (rs->nidx != 1)
		return err_at(e, EXIT_USAGE, w, "reduceat takes one index array, got %d", rs->nidx);
	struct index_array ix;
	if (index_entry(pl, s, 0, INDEX_SEGMENTS, &ix, e) < 0)
		return -1;
	if (ix.shape.ndim != 1)
		return err_at(e, EXIT_USAGE, w, ix.shape.ndim ? "object too deep for desired array"
			      : "object of too small depth for desired array");
	if (written_by_run(&ix))
		return err_at(e, EXIT_USAGE, w,
			      "reduceat reads its indices before the run: '%s' is written by an earlier step",
			      ix.x->display);
	int64_t *all = indices_read_all(&ix, w->text, e);
	if (!all)
		return err_place(e, &w->loc);
	int64_t n = ix.shape.dim[0];
	int64_t *kept = arena_alloc(pl->p->arena, sizeof *kept * (size_t)(n > 0 ? n : 1));
	memcpy(kept, all, sizeof *kept * (size_t)n);
	free(all);
	ix.x = NULL;   /* now a literal: checked in memory */
	ix.values = kept;
	if (indices_check(&ix, INDEX_SEGMENTS, extent, s->uf->name, r->axis, 0, w->text, e) < 0)
		return err_place(e, &w->loc);
	reduceat_segments(r, kept, n, extent);
	return 0;
}

int plan_reduceat(struct planner *pl, struct plan_step *s, const struct step_opts *o, struct err *e)
{
	const struct recipe_step *rs = s->src;
	struct array *x = fold_input(pl, s, e);
	if (!x)
		return -1;
	if (x->shape.ndim == 0)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->in_mark[0]), "cannot reduceat on a scalar");
	struct reduceat_plan *r = arena_alloc(pl->p->arena, sizeof *r);
	memset(r, 0, sizeof *r);
	s->reduceat = r;
	if (reduceat_axis(pl, s, o, x, &r->axis, e) < 0 || reduceat_indices(pl, s, r, x->shape.dim[r->axis], e) < 0)
		return -1;
	s->fold.axis = r->axis;
	s->fold.reduced[r->axis] = true;
	s->bshape[0] = x->shape;
	s->shape = x->shape;
	s->shape.dim[r->axis] = r->nseg;
	/* the axis keeps its name, its coordinate taken at the segments' starts */
	s->dims = dims_reduceat(x->dims, r->axis, r->start, r->nseg, r->extent, pl->p->arena);
	bool dtype = option_given(o, OPT_DTYPE);
	if (resolve_reduction_loop(s, o, LOCATE(pl, s, dtype ? o->mark[OPT_DTYPE] : rs->fn_mark), e) < 0)
		return -1;
	s->out_dtype[0] = s->loop->types[2];
	return 0;
}

/* ---- at ---------------------------------------------------------------- */

/* at's ufunc and operands: NumPy's errors, then the target (S->in[0])
 * and b (S->in[1]) when the ufunc takes one. */
static int at_operands(struct planner *pl, struct plan_step *s, struct err *e)
{
	const struct recipe_step *rs = s->src;
	const struct ufunc *uf = s->uf;
	const struct site *w = LOCATE(pl, s, rs->fn_mark);
	if (uf->signature)
		return err_at(e, EXIT_USAGE, w, "%s.at does not support ufunc with non-trivial signature: "
			      "%s has signature %s.", uf->name, uf->name, uf->signature);
	if (uf->nin > 2)
		return err_at(e, EXIT_USAGE, w, "Only unary and binary ufuncs supported at this time");
	if (uf->nout != 1)
		return err_at(e, EXIT_USAGE, w, "Only single output ufuncs supported at this time");
	w = LOCATE(pl, s, rs->in_mark[rs->nin - 1]);
	if (rs->nin > 2)
		return err_at(e, EXIT_USAGE, w, "at takes a dataset and at most one operand, got %d operands",
			      rs->nin);
	if (uf->nin == 2 && rs->nin == 1)
		return err_at(e, EXIT_USAGE, w, "second operand needed for ufunc");
	if (uf->nin == 1 && rs->nin == 2)
		return err_at(e, EXIT_USAGE, w, "second operand provided when ufunc is unary");
	s->nin = rs->nin;
	for (int k = 0; k < s->nin; k++) {   /* read, and the target written, through CF coding */
		const struct site *wk = LOCATE(pl, s, rs->in_mark[k]);
		s->in[k] = array_operand(pl, rs->in[k], wk, e);
		if (s->in[k] && s->decoded)
			s->in[k] = array_decoded(pl, s->in[k], wk, e);
		if (!s->in[k])
			return -1;
	}
	w = LOCATE(pl, s, rs->in_mark[0]);
	if (s->in[0]->kind == ARR_LITERAL)
		return err_at(e, EXIT_USAGE, w, "at writes in place into a dataset, not the number '%s'",
			      s->in[0]->display);
	if (s->in[0]->shape.ndim == 0)
		return err_at(e, EXIT_USAGE, w, "at needs a dataset with at least one axis: '%s' is 0-d",
			      s->in[0]->display);
	return outputs_in_place(pl, s, s->in[0], w, e);
}

/* at's index arrays: one per leading axis of the target, broadcast
 * together into A->lead, each checked against its axis (unless only
 * checking, or an earlier step writes it); A->space is A->lead followed
 * by the target's axes that no index array names. */
static int at_indices(struct planner *pl, struct plan_step *s, struct at_plan *a, struct err *e)
{
	const struct recipe_step *rs = s->src;
	const struct array *t = s->in[0];
	const struct site *w = LOCATE(pl, s, rs->idx_key);
	if (index_numbers(pl, s, INDEX_WRAPS, e) < 0)
		return -1;
	if (rs->nidx > t->shape.ndim)
		return err_at(e, EXIT_USAGE, w, "too many indices for array: array is %d-dimensional, but %d were indexed",
			      t->shape.ndim, rs->nidx);
	const struct shape *shapes[H5U_MAXDIM];
	a->nidx = rs->nidx;
	for (int k = 0; k < a->nidx; k++) {
		if (index_entry(pl, s, k, INDEX_WRAPS, &a->idx[k], e) < 0)
			return -1;
		shapes[k] = &a->idx[k].shape;
	}
	if (shape_broadcast(a->nidx, shapes, &a->lead) < 0) {
		char msg[1024] = "", buf[800];
		for (int k = 0; k < a->nidx; k++) {
			size_t n = strlen(msg);
			snprintf(msg + n, sizeof msg - n, "%s ", shape_format_compact(shapes[k], buf, sizeof buf));
		}
		return err_at(e, EXIT_USAGE, w,
			      "shape mismatch: indexing arrays could not be broadcast together with shapes %s", msg);
	}
	if (a->lead.ndim + t->shape.ndim - a->nidx > H5U_MAXDIM)
		return err_at(e, EXIT_USAGE, w, "the updates' index space would have %d axes (at most %d)",
			      a->lead.ndim + t->shape.ndim - a->nidx, H5U_MAXDIM);
	a->space = a->lead;
	for (int k = a->nidx; k < t->shape.ndim; k++)
		a->space.dim[a->space.ndim++] = t->shape.dim[k];
	for (int k = 0; k < a->nidx; k++) {
		const struct index_array *ix = &a->idx[k];
		if ((pl->o->check_only && ix->x) || written_by_run(ix))
			continue;
		const struct site *wk = LOCATE(pl, s, rs->idx_mark[k]);
		if (indices_check(ix, INDEX_WRAPS, t->shape.dim[k], s->uf->name, k, (int64_t)pl->o->memory,
				  wk->text, e) < 0)
			return err_place(e, &wk->loc);
	}
	return 0;
}

/* at's b broadcast over the index space, and the loop: NumPy's
 * promotion of the target and b, the result cast back unsafely. */
static int at_loop(struct planner *pl, struct plan_step *s, struct at_plan *a, struct err *e)
{
	const struct recipe_step *rs = s->src;
	if (s->nin == 2) {
		const struct shape *shapes[2] = { &s->in[1]->shape, &a->space };
		struct shape b;
		if (shape_broadcast(2, shapes, &b) < 0 || !shape_equal(&b, &a->space))
			return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->in_mark[1]),
				      "array is not broadcastable to correct shape");
	}
	a->literal_b = s->nin == 1 || s->in[1]->kind == ARR_LITERAL;
	s->casting = CAST_UNSAFE;
	s->loop = resolve_loop(s->uf, s->nin, (const struct array *const *)s->in, NULL, CAST_UNSAFE,
			       LOCATE(pl, s, rs->mark), e);
	if (!s->loop)
		return -1;
	struct plan_op *op = lower_single(pl, s);
	op->nout = 1;   /* its result goes back into the target: the step has no outputs */
	s->out_dtype[0] = s->loop->types[s->nin];
	if (s->nin == 2 && s->in[1]->kind == ARR_LITERAL)
		return resolve_literal(s->in[1], op, 1, s->in[0]->dtype, LOCATE(pl, s, rs->in_mark[1]),
				       e);
	return 0;
}

int plan_at(struct planner *pl, struct plan_step *s, const struct step_opts *o, struct err *e)
{
	struct at_plan *a = arena_alloc(pl->p->arena, sizeof *a);
	memset(a, 0, sizeof *a);
	s->at = a;
	/* missing: raw reads and writes the stored numbers (s->decoded false);
	 * cf and mask keep the target's declared missing elements as stored,
	 * mask-nan its NaNs too */
	a->keep_nan = option_given(o, OPT_MISSING) && o->missing == MISSING_MASK_NAN;
	if (at_operands(pl, s, e) < 0 || at_indices(pl, s, a, e) < 0 || at_loop(pl, s, a, e) < 0)
		return -1;
	s->shape = s->in[0]->shape;
	s->dims = s->in[0]->dims;
	return 0;
}
