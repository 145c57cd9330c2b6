/* reducer.c - a reduction's input folded into its results; see reducer.h.
 *
 * In order: the fold of one box (reducer_fold, with fold_taken /
 * fold_valid for where= and masks), a shared stream's
 * partial results combined across ranks (reducer_combine_ranks,
 * reducer_carry_in), writing results; the reducer: a stream's rows
 * folded and written box by box, or a chain's runs handed to chain.c.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "comm.h"
#include "hold.h"
#include "iter.h"
#include "masked.h"
#include "reducer.h"
#include "stage.h"

/* Strides of an accumulator over the index space DIMS: 0 along reduced
 * axes, C-contiguous over the others. */
void reducer_acc_strides(int ndim, const int64_t *dims, const bool *reduced, int size,
			 ptrdiff_t *st)
{
	ptrdiff_t s = size;
	for (int i = ndim - 1; i >= 0; i--) {
		st[i] = reduced[i] ? 0 : s;
		if (!reduced[i])
			s *= dims[i];
	}
}

/* The fold of a skip_fold reduction through LOOP: the elements of DATA
 * that TAKE says (one byte each, laid out as DATA) fold into ACC in order,
 * each copied in where nothing was taken before it (ACCV, one byte per
 * accumulator, 0) unless the fold started from a value (INIT); ACCV says
 * which took any. */
static void fold_taken(const struct ufunc_loop *loop, enum fold_init init, const char *data,
		       int ndim, const int64_t *dims, char *acc, const ptrdiff_t *ast,
		       const uint8_t *take, uint8_t *accv)
{
	enum dtype at = loop->types[0], dt = loop->types[1];
	ptrdiff_t asize = dtype_size(at), dsize = dtype_size(dt), steps[3] = { 0, 0, 0 };
	int64_t idx[H5U_MAXDIM] = {0}, n = 1;
	for (int i = 0; i < ndim; i++)
		n *= dims[i];
	ptrdiff_t off = 0;   /* of the accumulator of element i, in bytes */
	for (int64_t i = 0; i < n; i++) {
		if (take[i]) {
			char *a = acc + off, *x = (char *)data + i * dsize, *args[3] = { a, x, a };
			if (accv[off / asize] || init == FOLD_VALUE)
				loop->fn(args, 1, steps);
			else
				dtype_cast(dt, x, 0, at, a, 0, 1);
			accv[off / asize] = 1;
		}
		for (int k = ndim - 1; k >= 0; k--) {
			off += ast[k];
			if (++idx[k] < dims[k])
				break;
			off -= ast[k] * dims[k];
			idx[k] = 0;
		}
	}
}

/* ACCV |= VALID: which results have a valid element, folded beside their
 * values (a masked reduce's one pass; START: ACCV begins at none), the
 * REDUCED axes folded; AST: the accumulators' strides, ASIZE bytes each. */
static void fold_valid(const bool *reduced, int asize, const uint8_t *valid, int ndim,
		       const int64_t *dims, uint8_t *accv, const ptrdiff_t *ast, bool start)
{
	static const struct ufunc_loop *or_loop;
	const struct ufunc *lor = ufunc_lookup("logical_or");
	for (int i = 0; !or_loop && i < lor->nloops; i++)
		if (lor->loops[i].types[0] == DT_BOOL)
			or_loop = &lor->loops[i];
	int64_t n = 1;
	iter_strides st[3];
	for (int i = 0; i < ndim; i++) {
		n *= reduced[i] ? 1 : dims[i];
		st[0][i] = st[2][i] = ast[i] / asize;
	}
	if (start)
		memset(accv, 0, (size_t)n);
	iter_contiguous(ndim, dims, dims, 1, st[1]);
	char *base[3] = { (char *)accv, (char *)valid, (char *)accv };
	iter_fold(or_loop->fn, 3, base, ndim, dims, st);
}

/* Fold DATA (C-contiguous over DIMS, in the loop's dtype) into ACC (strides
 * AST over DIMS).  START: DATA begins the reduction, so FOLD_FIRST* copies
 * its first elements in before folding.  A skip_fold reduction folds only
 * the elements VALID says, and says in ACCV which results took any; a
 * masked one folds VALID into ACCV beside (fold_valid). */
void reducer_fold(const struct plan_step *s, enum fold_init init, char *data, int ndim,
		  const int64_t *dims, char *acc, const ptrdiff_t *ast, bool start,
		  const uint8_t *valid, uint8_t *accv)
{
	if (s->mask.skip_fold) {
		fold_taken(s->loop, s->fold.init, data, ndim, dims, acc, ast, valid, accv);
		return;
	}
	if (accv)
		fold_valid(s->fold.reduced, dtype_size(s->loop->types[0]), valid, ndim, dims, accv, ast,
			   start);
	enum dtype at = s->loop->types[0], dt = s->loop->types[1];
	iter_strides st[3];
	iter_contiguous(ndim, dims, dims, dtype_size(dt), st[1]);
	int64_t d[H5U_MAXDIM];
	memcpy(d, dims, sizeof(int64_t) * (size_t)ndim);
	char *src = data;
	if (start && init != FOLD_VALUE) {
		int64_t first[H5U_MAXDIM];
		for (int i = 0; i < ndim; i++)
			first[i] = s->fold.reduced[i] && dims[i] ? 1 : dims[i];
		iter_cast(dt, data, st[1], at, acc, ast, ndim, first);
		if (init == FOLD_FIRST_SKIP) {
			bool skipped = false;
			for (int i = 0; i < ndim; i++)
				if (s->fold.reduced[i] && d[i] > 0) {
					d[i]--;
					src += st[1][i];
					skipped = true;
				}
			if (!skipped)
				return;   /* nothing reduced: the result is the element itself */
		}
	}
	memcpy(st[0], ast, sizeof(ptrdiff_t) * (size_t)ndim);
	memcpy(st[2], ast, sizeof(ptrdiff_t) * (size_t)ndim);
	char *base[3] = { acc, src, acc };
	iter_fold(s->loop->fn, 3, base, ndim, d, st);
}

/* comm_fold_fn over accumulators of the loop CTX: RIGHT = LEFT op RIGHT,
 * the loop's output aliased to its second input. */
static void fold_ranks(const void *left, void *right, size_t n, const void *ctx)
{
	const struct ufunc_loop *loop = ctx;
	ptrdiff_t size = dtype_size(loop->types[0]);
	ptrdiff_t steps[3] = { size, size, size };
	char *args[3] = { (char *)left, right, right };
	loop->fn(args, n, steps);
}

void reducer_combine_ranks(const struct plan_step *s, char *acc, uint8_t *accv, int64_t n,
			   struct err *e)
{
	comm_fold_to_root(acc, n, dtype_size(s->loop->types[0]), fold_ranks, s->loop);
	if (accv)
		comm_or_to_root(accv, (size_t)n);
	reducer_check_fault(s, e);
}

void reducer_carry_in(const struct plan_step *s, char *carry, int64_t n, struct err *e)
{
	comm_fold_before(carry, n, dtype_size(s->loop->types[0]), fold_ranks, s->loop);
	reducer_check_fault(s, e);
}

/* Write the results ACC (the loop's dtype) into the box START/COUNT of S's
 * output, through CONV.  A masked reduce writes those with no valid
 * element (ACCV 0) as the output's fill value, counted as masked, and
 * ACCV to MASK_OUT when it prints.  Collective. */
int reducer_write_result(const struct plan_step *s, const int64_t *start, const int64_t *count,
			 char *acc, uint8_t *accv, char *conv, struct err *e)
{
	struct array *y = s->out[0];
	enum dtype t = s->loop->types[0];
	if (s->mask.masked) {
		masked_fill_results(s, t, stage_box_size(y->shape.ndim, count), acc, accv, e);
		if (s->mask.out &&
		    stage_write(s->mask.out, DT_BOOL, start, count, (char *)accv, NULL, s->where, e) < 0)
			return err_place(e, &s->loc);
	}
	if (stage_write(y, t, start, count, acc, conv, s->where, e) < 0)
		return err_place(e, &s->loc);
	return 0;
}

void reducer_check_fault(const struct plan_step *s, struct err *e)
{
	enum ufunc_fault f = ufunc_take_error();
	if (f != UFERR_NONE)
		err_set_at(e, EXIT_RUN, &s->loc, s->where, "%s", ufunc_fault_message(f));
}

/* Product of X's extents from axis FROM on, counting reduced axes as 1 when
 * KEEP_REDUCED is false. */
int64_t reducer_extent(const struct shape *x, const bool *reduced, int from, bool keep_reduced)
{
	int64_t n = 1;
	for (int i = from; i < x->ndim; i++)
		if (keep_reduced || !reduced[i])
			n *= x->dim[i];
	return n;
}

/* ---- the reducer: rows or runs in, results out ------------------------ */

/* A reduction fed box by box: by reduce.c's chain driver (REDUCE_CHAIN), or
 * by a fused elementwise stage (exec.c) with boxes of whole rows
 * (REDUCE_STREAM) or any boxes of its pass (REDUCE_CHAIN, chain.h). */
struct reducer {
	struct plan_step *s;
	struct chain *chain;     /* REDUCE_CHAIN */
	int size;                /* of the loop's dtype */
	int64_t orow;            /* REDUCE_STREAM: output elements per row */
	char *acc, *conv;        /* results of a box's rows */
	uint8_t *accv;           /* masked, skip_fold: which results have a valid
				    element (took one) */
};

/* A stream's results, listed into H with R's slots (R NULL: counting):
 * for a box of whole rows, each row's, in the loop's dtype, whether each
 * took an element (masked, skip_fold), and in the output's (its scratch);
 * a result for each of a row's elements it folds from -- or, when a row
 * has none, every row's at once. */
static void stream_results(struct hold *h, struct reducer *r, const struct plan_step *s)
{
	const struct shape *X = &s->in[0]->shape;
	enum dtype t = s->loop->types[0];
	int64_t bytes[3] = { dtype_size(t), s->mask.masked || s->mask.skip_fold,
			     stage_scratch(s->out[0], t) };
	void *slots[3] = { HOLD_SLOT(r, acc), HOLD_SLOT(r, accv), HOLD_SLOT(r, conv) };
	int64_t orow = reducer_extent(X, s->fold.reduced, 1, false);
	int64_t group = orow > 0 ? reducer_extent(X, s->fold.reduced, 1, true) / orow : 1;
	if (group > 0) {
		hold_results(h, group, 0, 3, bytes, slots);
		return;
	}
	for (int i = 0; i < 3; i++)
		hold_buffer(h, DIST_FIXED, bytes[i] * (X->ndim ? X->dim[0] : 1) * orow, slots[i]);
}

struct reducer *reducer_hold(struct hold *h, struct plan_step *s, int nranks)
{
	struct reducer *r = NULL;
	if (!hold_counting(h)) {
		r = stage_alloc(sizeof *r);
		memset(r, 0, sizeof *r);
		r->s = s;
		r->size = dtype_size(s->loop->types[0]);
		r->orow = reducer_extent(&s->in[0]->shape, s->fold.reduced, 1, false);
	}
	if (s->fold.mode != REDUCE_CHAIN) {
		stream_results(h, r, s);
		return r;
	}
	struct chain *c = chain_hold(h, s, nranks);
	if (r)
		r->chain = c;
	return r;
}

int reducer_max_axis(const struct plan_step *s)
{
	if (s->fold.mode == REDUCE_CHAIN)
		return H5U_MAXDIM;   /* any flat run */
	/* a stream takes whole rows when it keeps them */
	return s->in[0]->shape.ndim == 0 || !s->fold.reduced[0] ? 0 : -1;
}

void reducer_free(struct reducer *r)
{
	if (!r)
		return;
	chain_free(r->chain);
	free(r);
}

void reducer_box(struct reducer *r, char *data, const uint8_t *valid, const int64_t *start,
		 const int64_t *count)
{
	const struct plan_step *s = r->s;
	if (r->chain) {
		chain_box(r->chain, data, valid, start, count);
		return;
	}
	const struct shape *X = &s->in[0]->shape;
	int ndim = X->ndim ? X->ndim : 1;
	int64_t dims[H5U_MAXDIM];
	for (int i = 0; i < ndim; i++)
		dims[i] = X->ndim ? X->dim[i] : 1;
	ptrdiff_t ast[H5U_MAXDIM];
	dims[0] = count[0];
	reducer_acc_strides(ndim, dims, s->fold.reduced, r->size, ast);
	if (s->fold.init == FOLD_VALUE)
		iter_fill(r->size, r->acc, s->fold.init_value, count[0] * r->orow);
	if (r->accv)
		memset(r->accv, 0, (size_t)(count[0] * r->orow));
	reducer_fold(s, s->fold.init, data, ndim, dims, r->acc, ast, true, valid, r->accv);
}

void reducer_box_chunked(struct reducer *const *r, int n, const struct stage_chunked *b, char *run,
			 const int64_t *start, const int64_t *count, struct err *e)
{
	int64_t total = stage_box_size(b->ndim, count);
	for (int64_t at = 0; at < total && !e->status; at += REDUCER_RUN) {
		int64_t m = total - at < REDUCER_RUN ? total - at : REDUCER_RUN;
		stage_chunked_copy(b, at, m, run);
		for (int k = 0; k < n && !e->status; k++) {
			assert(r[k]->chain);
			chain_run(r[k]->chain, run, NULL, start, at, m);
			reducer_check_fault(r[k]->s, e);
		}
	}
}

int reducer_write_box(struct reducer *r, const int64_t *start, const int64_t *count, struct err *e)
{
	if (r->chain)
		return chain_write_box(r->chain, e);
	struct array *y = r->s->out[0];
	int64_t ostart[H5U_MAXDIM] = {0}, ocnt[H5U_MAXDIM];
	for (int i = 0; i < y->shape.ndim; i++)
		ocnt[i] = y->shape.dim[i];
	ostart[0] = y->shape.ndim ? start[0] : 0;
	ocnt[0] = count[0];
	return reducer_write_result(r->s, ostart, ocnt, r->acc, r->accv, r->conv, e);
}

int reducer_finish(struct reducer *r, struct err *e)
{
	return r->chain ? chain_finish(r->chain, e) : 0;
}
