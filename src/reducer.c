/* reducer.c - a reduction's input folded into its results; see reducer.h.
 *
 * In order: the fold of one box (reducer_fold, with fold_taken /
 * fold_valid for where= and masks), a shared stream's
 * partial results combined across ranks (reducer_combine_ranks,
 * reducer_carry_in), writing results; the reducer: a stream's rows
 * folded and written box by box, or a chain's runs handed to chain.c;
 * a box of wide lines folded a band of chunk columns at a time, its
 * pieces' pairwise trees built leaf by leaf, or their running values
 * folded on (reducer_box_bands).
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
	int last = ndim - 1;
	if (start && init == FOLD_FIRST_SKIP && s->fold.reduced[last] && d[last] >= ITER_PIECE) {
		/* NumPy's first call along a line holds the element it starts
		 * from: ITER_PIECE - 1 after it, then pieces from there (a
		 * float16 loop rounds its running value at the end of each) */
		int64_t head[H5U_MAXDIM];
		memcpy(head, d, sizeof(int64_t) * (size_t)ndim);
		head[last] = ITER_PIECE - 1;
		char *first[3] = { acc, src, acc };
		iter_fold(s->loop->fn, 3, first, ndim, head, st);
		d[last] -= ITER_PIECE - 1;
		src += (ITER_PIECE - 1) * st[1][last];
	}
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

bool reducer_carry_in(const struct plan_step *s, char *carry, int64_t n, bool empty,
		      struct err *e)
{
	bool in = comm_fold_before(carry, n, dtype_size(s->loop->types[0]), empty, fold_ranks, s->loop);
	reducer_check_fault(s, e);
	return in;
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

/* ---- a box folded a band of chunk columns at a time ------------------- */

/* A leaf of NumPy's pairwise tree over a line: LEN elements summed by one
 * loop call, then JOINS sums joined (the two on top of the stack added),
 * ENDS: the last leaf of a piece. */
struct leaf {
	int32_t len;
	int16_t joins;
	bool ends;
};

/* The leaves of the pairwise sum of N elements of T appended to OUT (NULL:
 * counted) from its K-th on; returns the count after them. */
static int64_t leaves_of(enum dtype t, int64_t n, struct leaf *out, int64_t k)
{
	int64_t half = iter_pairwise_half(t, n);
	if (half == 0) {
		if (out)
			out[k] = (struct leaf){ .len = (int32_t)n };
		return k + 1;
	}
	k = leaves_of(t, half, out, k);
	k = leaves_of(t, n - half, out, k);
	if (out)
		out[k - 1].joins++;   /* after the second half: the halves added */
	return k;
}

/* Elements of piece P of a line of W elements (pieces from its start). */
static int64_t line_piece(int64_t w, int64_t p)
{
	return w - p * CHAIN_PIECE < CHAIN_PIECE ? w - p * CHAIN_PIECE : CHAIN_PIECE;
}

/* How a box's lines fold a band at a time: not so; a sum through NumPy's
 * pairwise tree of each piece; a fold exact in any grouping that keeps
 * the order (ufunc_fold_exact: integers, bools, maximum and the like),
 * each piece's running value folded on as the bands bring its elements,
 * in order, which gives the bits of one call over the piece. */
enum band_fold { BAND_NONE, BAND_TREE, BAND_RUNNING };

/* How the N chains R may take a box of X's lines (whole rows of its last
 * axis) as each line's pieces, each folded on its own (chain_piece): all
 * one loop in its own dtype, unmasked, every line a run of whole pieces (a
 * group, or pieces of 8192 that lines do not cut); a sum of a float or
 * complex dtype (float16 summed in float32, as NumPy sums it) whose pieces
 * fold from a value through the tree, a fold exact in any grouping
 * running. */
static enum band_fold band_fold_of(const struct plan_step *const *r, int n, const struct shape *X)
{
	if (n == 0 || X->ndim == 0 || X->dim[X->ndim - 1] == 0)
		return BAND_NONE;
	int64_t w = X->dim[X->ndim - 1];
	const struct plan_step *s0 = r[0];
	enum dtype t = s0->loop->types[0];
	char kind = dtype_table[t].kind;
	for (int k = 0; k < n; k++) {
		const struct plan_step *s = r[k];
		int64_t group = reducer_extent(X, s->fold.reduced, s->fold.kept_lead, true);
		if (s->fold.mode != REDUCE_CHAIN || s->mask.masked || s->loop != s0->loop ||
		    s->loop->types[1] != t || (group != w && w % CHAIN_PIECE != 0))
			return BAND_NONE;
	}
	if (ufunc_fold_exact(s0->uf, t) && ufunc_partial_loop(s0->uf, s0->loop) == s0->loop)
		return BAND_RUNNING;
	for (int k = 0; k < n; k++)
		if (r[k]->fold.init != FOLD_VALUE || r[k]->fold.rest_init != FOLD_VALUE)
			return BAND_NONE;
	return (s0->uf->flags & UF_PAIRWISE) && (kind == 'f' || kind == 'c') ? BAND_TREE : BAND_NONE;
}

/* band_fold_of for the chains of the reducers R, each its step's. */
static enum band_fold reducers_band_fold(struct reducer *const *r, int n, const struct shape *X)
{
	const struct plan_step *steps[PLAN_MAXOUT];
	for (int k = 0; k < n && k < PLAN_MAXOUT; k++)
		steps[k] = r[k]->s;
	return n <= PLAN_MAXOUT ? band_fold_of(steps, n, X) : BAND_NONE;
}

/* What a sweep of a box's bands keeps, carved from the box's buffer: the
 * leaves of a line (BAND_TREE), and for each line the elements of a leaf
 * cut by a band's edge, the stack of the tree's partial sums, its pieces'
 * folds (in the partial loop's dtype). */
struct sweep {
	enum band_fold how;
	const struct ufunc_loop *loop;   /* the partial loop (ufunc_partial_loop) */
	enum dtype dt, pt;       /* the elements' dtype as read, the partials' */
	const char *zero;        /* -0 in PT: a leaf's start */
	char zero_p[16];
	int dsz, psz;
	int64_t lines, w, band;  /* lines of the box, their elements, a band's */
	int64_t pieces, nleaves, depth, leafmax;
	struct leaf *leaves;
	char *chunks, *out;      /* a band's chunks as read, and in C order */
	int64_t chunk_cap;
	char *pending, *stack, *sums;
	char *cast;              /* a leaf (BAND_TREE) or a line's part of a band
				    (BAND_RUNNING) cast to PT, where DT is not PT */
	/* where every line is, after the bands so far */
	int64_t leaf, off, top, piece;
};

/* Bytes carved from a buffer one after another, each run of them
 * starting on a 64-byte line: from BUF, or counted only (BUF NULL). */
struct carver {
	char *buf;
	int64_t used;
};

/* BYTES from CV's next 64-byte line on (NULL when counting). */
static char *carve(struct carver *cv, int64_t bytes)
{
	char *q = cv->buf ? cv->buf + cv->used : NULL;
	cv->used += (bytes + 63) / 64 * 64;
	return q;
}

/* The leaves of a line of W elements of T, in PIECES pieces: their count. */
static int64_t count_leaves(enum dtype t, int64_t w, int64_t pieces)
{
	int64_t n = 0;
	for (int64_t q = 0; q < pieces; q++)
		n = leaves_of(t, line_piece(w, q), NULL, n);
	return n;
}

/* The height of the stack of a pairwise tree of N elements of T, at most. */
static int64_t tree_depth(enum dtype t, int64_t n)
{
	int64_t half = iter_pairwise_half(t, n);
	if (half == 0)
		return 1;
	int64_t a = tree_depth(t, half), b = tree_depth(t, n - half) + 1;
	return a > b ? a : b;
}

/* The leaves of a line of SW's carved from CV (their count and the
 * stack's height, the tallest of its pieces' trees: every piece but the
 * last is CHAIN_PIECE long), and laid out where CV's buffer holds them
 * within CAP bytes. */
static void sweep_leaves(struct sweep *sw, struct carver *cv, int64_t cap)
{
	sw->nleaves = count_leaves(sw->pt, sw->w, sw->pieces);
	sw->leaves = (struct leaf *)(void *)carve(cv, sw->nleaves * (int64_t)sizeof(struct leaf));
	if (cv->used > cap)
		sw->leaves = NULL;
	int64_t first = tree_depth(sw->pt, line_piece(sw->w, 0));
	int64_t end = tree_depth(sw->pt, line_piece(sw->w, sw->pieces - 1));
	sw->depth = first > end ? first : end;
	for (int64_t q = 0, j = 0; sw->leaves && q < sw->pieces; q++) {
		j = leaves_of(sw->pt, line_piece(sw->w, q), sw->leaves, j);
		sw->leaves[j - 1].ends = true;
	}
}

/* Lay out SW, folding HOW, for a box of LINES lines of X (chunks C), read
 * as T, of S's loop in BUF (CAP bytes), with as many chunk columns a band
 * as fit (about 256 KiB of chunks, at most); returns the bytes it takes,
 * 0 when not even one column fits.  BUF NULL: nothing laid out, only the
 * bytes a band of COLS chunk columns takes counted (CAP unused). */
static int64_t sweep_layout(struct sweep *sw, enum band_fold how, const struct plan_step *s,
			    const struct shape *X, enum dtype t, const int64_t *c, int64_t lines,
			    const int64_t *count, char *buf, int64_t cap, int64_t cols)
{
	int nd = X->ndim, last = nd - 1;
	sw->how = how;
	sw->loop = ufunc_partial_loop(s->uf, s->loop);
	sw->dt = t;
	sw->pt = sw->loop->types[0];
	sw->dsz = dtype_size(sw->dt);
	sw->psz = dtype_size(sw->pt);
	dtype_cast(s->loop->types[0], s->fold.rest_value, 0, sw->pt, sw->zero_p, 0, 1);
	sw->zero = sw->zero_p;
	sw->lines = lines;
	sw->w = X->dim[last];
	sw->pieces = (sw->w + CHAIN_PIECE - 1) / CHAIN_PIECE;
	sw->leafmax = how != BAND_TREE ? 0 : dtype_table[sw->pt].kind == 'c' ? 64 : 128;
	struct carver cv = { .buf = buf };
	if (how == BAND_TREE)
		sweep_leaves(sw, &cv, buf ? cap : INT64_MAX);
	else
		sw->leaves = NULL;
	sw->pending = carve(&cv, lines * sw->leafmax * sw->dsz);
	sw->stack = carve(&cv, how == BAND_TREE ? lines * sw->depth * sw->psz : 0);
	sw->sums = carve(&cv, lines * sw->pieces * sw->psz);
	sw->cast = carve(&cv, sw->dt != sw->pt && how == BAND_TREE ? sw->leafmax * sw->psz : 0);
	int64_t cast_col = sw->dt != sw->pt && how == BAND_RUNNING ? sw->psz : 0;
	/* a chunk column of the box, and the columns a band holds: about
	 * 256 KiB of chunks (at least a column), an even number (a leaf of
	 * 128 spans two chunks of 64), so that the band's chunks and its copy
	 * stay in the core's cache; fewer where the rest of BUF holds fewer.
	 * A column takes its chunks, its part of the lines and of the cast;
	 * 192 bytes more round the three carves up to their 64-byte lines. */
	int64_t column = sw->dsz;
	for (int i = 0; i < nd; i++)
		column *= i == last ? c[i] : (count[i] + c[i] - 1) / c[i] * c[i];
	int64_t per_col = column + c[last] * (lines * sw->dsz + cast_col);
	if (!buf)
		return cv.used + 192 + cols * per_col;
	if (cv.used > cap)
		return 0;
	int64_t ncols = (sw->w + c[last] - 1) / c[last], k = ((int64_t)256 << 10) / column;
	k = k > 1 ? k : 1;
	int64_t fit = (cap - cv.used - 192) / per_col;
	k = k < fit ? k : fit;
	k = k > 1 ? k - k % 2 : k;
	k = k < ncols ? k : ncols;
	if (k < 1)
		return 0;
	sw->band = k * c[last];
	sw->chunk_cap = k * column;
	sw->chunks = carve(&cv, sw->chunk_cap);
	sw->out = carve(&cv, lines * sw->band * sw->dsz);
	if (cast_col)
		sw->cast = carve(&cv, sw->band * cast_col);
	sw->leaf = sw->off = sw->top = sw->piece = 0;
	return cv.used;
}

/* OUT = the partial loop's call over the N elements at DATA (cast to its
 * dtype first where they are not) from -0: NumPy's sum of a leaf. */
static void leaf_sum(const struct sweep *sw, const char *data, int64_t n, char *out)
{
	if (sw->dt != sw->pt) {
		dtype_cast(sw->dt, data, sw->dsz, sw->pt, sw->cast, sw->psz, (size_t)n);
		data = sw->cast;
	}
	memcpy(out, sw->zero, (size_t)sw->psz);
	char *args[3] = { out, (char *)data, out };
	ptrdiff_t steps[3] = { 0, sw->psz, 0 };
	sw->loop->fn(args, (size_t)n, steps);
}

/* LEFT += RIGHT, as NumPy joins the halves of a pairwise sum. */
static void join(const struct sweep *sw, char *left, char *right)
{
	char *args[3] = { left, right, left };
	ptrdiff_t steps[3] = { 0, 0, 0 };
	sw->loop->fn(args, 1, steps);
}

/* Fold the band in SW->out (N columns of every line) into each line's
 * tree: its whole leaves summed where they lie, a leaf cut by the band's
 * edge gathered, the stack joined as the tree says, a piece's sum kept. */
static void sweep_band(struct sweep *sw, int64_t n)
{
	int64_t leaf = 0, off = 0, top = 0, piece = 0;
	int dsz = sw->dsz, psz = sw->psz;
	for (int64_t l = 0; l < sw->lines; l++) {   /* every line from where all were */
		const char *row = sw->out + l * n * dsz;
		char *pend = sw->pending + l * sw->leafmax * dsz, *stack = sw->stack + l * sw->depth * psz;
		leaf = sw->leaf, off = sw->off, top = sw->top, piece = sw->piece;
		for (int64_t x = 0; x < n;) {
			const struct leaf *f = &sw->leaves[leaf];
			int64_t take = f->len - off < n - x ? f->len - off : n - x;
			const char *src = row + x * dsz;
			x += take;
			if (off > 0 || take < f->len) {   /* cut by a band's edge */
				memcpy(pend + off * dsz, src, (size_t)(take * dsz));
				off += take;
				if (off < f->len)
					break;
				src = pend;
				off = 0;
			}
			leaf_sum(sw, src, f->len, stack + top++ * psz);
			for (int j = 0; j < f->joins; j++, top--)
				join(sw, stack + (top - 2) * psz, stack + (top - 1) * psz);
			if (f->ends) {
				memcpy(sw->sums + (l * sw->pieces + piece++) * psz, stack, (size_t)psz);
				top = 0;
			}
			leaf++;
		}
	}
	sw->leaf = leaf;
	sw->off = off;
	sw->top = top;
	sw->piece = piece;
}

/* Fold the band in SW->out (N columns of every line, from column COL) onto
 * each line's pieces' running values, in order: a piece's first element
 * taken as its value, the rest folded on (BAND_RUNNING). */
static void sweep_running(struct sweep *sw, int64_t col, int64_t n)
{
	int psz = sw->psz;
	ptrdiff_t steps[3] = { 0, psz, 0 };
	for (int64_t l = 0; l < sw->lines; l++) {
		const char *row = sw->out + l * n * sw->dsz;
		if (sw->dt != sw->pt) {   /* cast as the box route's read casts it */
			dtype_cast(sw->dt, row, sw->dsz, sw->pt, sw->cast, psz, (size_t)n);
			row = sw->cast;
		}
		for (int64_t x = 0; x < n;) {
			int64_t at = col + x, p = at / CHAIN_PIECE;
			int64_t take = (p + 1) * CHAIN_PIECE - at < n - x ? (p + 1) * CHAIN_PIECE - at : n - x;
			char *acc = sw->sums + (l * sw->pieces + p) * psz, *src = (char *)row + x * psz;
			int64_t m = take;
			if (at % CHAIN_PIECE == 0) {
				memcpy(acc, src, (size_t)psz);
				src += psz;
				m--;
			}
			char *args[3] = { acc, src, acc };
			if (m > 0)
				sw->loop->fn(args, (size_t)m, steps);
			x += take;
		}
	}
}

int64_t reducer_band_bytes(struct plan_step *const *r, int n, const struct array *x)
{
	const struct shape *X = &x->shape;
	const int64_t *c = stage_chunks(x);
	enum band_fold how = c && X->ndim == 2 ? band_fold_of((const struct plan_step *const *)r, n, X)
					       : BAND_NONE;
	if (how == BAND_NONE || x->dtype != r[0]->loop->types[1])
		return 0;
	/* what sweep_layout carves for a box of one chunk row with a band of
	 * two chunk columns */
	struct sweep sw;
	const int64_t count[2] = { c[0], X->dim[1] };
	return sweep_layout(&sw, how, r[0], X, x->dtype, c, c[0], count, NULL, 0, 2);
}

bool reducer_band_boxes(const struct dist_layout *l, const struct array *x)
{
	const int64_t *c = stage_chunks(x);
	return c && l->axis == 0 && l->lines_per_box == c[0] && dist_holds_chunks(l, c);
}

bool reducer_try_bands(struct plan_step *s, const struct array *x, reducer_lay_fn *lay, void *ctx)
{
	struct err trial = {0};
	s->blocks.bands = true;
	if (lay(s, ctx, &trial) == 0 && reducer_band_boxes(&s->blocks.split, x))
		return true;
	s->blocks.bands = false;
	return false;
}

int reducer_box_bands(struct reducer *const *r, int n, const struct array *x, enum dtype t,
		      const int64_t *start, const int64_t *count, char *buf, int64_t cap, bool held_whole,
		      const char *where, struct err *e)
{
	const struct shape *X = &x->shape;
	const int64_t *c = stage_chunks(x);
	int last = X->ndim - 1;
	enum band_fold how = c ? reducers_band_fold(r, n, X) : BAND_NONE;
	const struct plan_step *s = r[0]->s;
	/* read as T, cast straight to the partials' dtype: as the box route's
	 * read and fold cast it, unless both casts round (T to float16 to
	 * float32) */
	if (how == BAND_NONE || (t != s->loop->types[1] && ufunc_partial_loop(s->uf, s->loop) != s->loop) ||
	    count[last] != X->dim[last])
		return 0;
	int64_t lines = stage_box_size(X->ndim, count) / X->dim[last];
	struct sweep sw;
	if (lines == 0 || sweep_layout(&sw, how, s, X, t, c, lines, count, buf, cap, 0) == 0) {
		if (held_whole || lines == 0)
			return 0;
		return err_set(e, EXIT_RUN, where, "a box of %lld lines does not fold in its bands' %lld bytes",
			       (long long)lines, (long long)cap);
	}
	for (int64_t col = 0; col < sw.w; col += sw.band) {
		int64_t m = sw.w - col < sw.band ? sw.w - col : sw.band;
		int got = stage_read_band(x, t, start, count, col, m, sw.chunks, sw.chunk_cap, sw.out, where, e);
		if (got < 0)
			return -1;
		if (got == 0 && col == 0 && held_whole)
			return 0;   /* not read as chunks: the caller reads the box */
		if (got == 0) {   /* not read as chunks, or a chunk never written: through HDF5 */
			int64_t bo[H5U_MAXDIM], bc[H5U_MAXDIM];
			memcpy(bo, start, sizeof(int64_t) * (size_t)X->ndim);
			memcpy(bc, count, sizeof(int64_t) * (size_t)X->ndim);
			bo[last] += col;
			bc[last] = m;
			if (stage_read(x, t, bo, bc, NULL, sw.out, where, e) < 0)
				return -1;
		}
		if (how == BAND_TREE)
			sweep_band(&sw, m);
		else
			sweep_running(&sw, col, m);
	}
	/* each line's pieces, in flat order, into every chain */
	for (int k = 0; k < n && !e->status; k++) {
		for (int64_t l = 0; l < lines; l++)
			for (int64_t p = 0; p < sw.pieces; p++)
				chain_piece(r[k]->chain, sw.sums + (l * sw.pieces + p) * sw.psz, start,
					    l * sw.w + p * CHAIN_PIECE, line_piece(sw.w, p));
		reducer_check_fault(r[k]->s, e);
	}
	return 1;
}
