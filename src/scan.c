/* scan.c - np.UFUNC.accumulate; see scan.h. */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "dist.h"
#include "hold.h"
#include "iter.h"
#include "masked.h"
#include "reducer.h"
#include "report.h"
#include "scan.h"
#include "stage.h"

#define TILE_BYTES ((int64_t)256 << 10)

/* OUT = running fold of DATA along axis K of the C-ordered index space
 * DIMS; with CARRY, the first slice folds onto it, else is copied.  DATA is
 * in the loop's second dtype, OUT and CARRY in its first (they differ only
 * for ldexp). */
static void scan_block(const struct plan_step *s, char *data, char *out, int ndim,
		       const int64_t *dims, int k, const char *carry, const ptrdiff_t *carry_st)
{
	enum dtype ot = s->loop->types[0], dt = s->loop->types[1];
	iter_strides ost, dst;
	iter_contiguous(ndim, dims, dims, dtype_size(ot), ost);
	iter_contiguous(ndim, dims, dims, dtype_size(dt), dst);
	int64_t slice[H5U_MAXDIM];
	memcpy(slice, dims, sizeof(int64_t) * (size_t)ndim);
	slice[k] = dims[k] ? 1 : 0;
	iter_strides three[3];
	memcpy(three[0], ost, sizeof ost);
	memcpy(three[1], dst, sizeof dst);
	memcpy(three[2], ost, sizeof ost);
	if (carry) {
		memcpy(three[0], carry_st, sizeof(ptrdiff_t) * (size_t)ndim);
		char *base[3] = { (char *)carry, data, out };
		iter_fold(s->loop->fn, 3, base, ndim, slice, (const iter_strides *)three);
		memcpy(three[0], ost, sizeof ost);
	} else {
		iter_cast(dt, data, dst, ot, out, ost, ndim, slice);
	}
	for (int64_t i = 1; i < dims[k]; i++) {
		char *base[3] = { out + (i - 1) * ost[k], data + i * dst[k], out + i * ost[k] };
		iter_fold(s->loop->fn, 3, base, ndim, slice, (const iter_strides *)three);
	}
}

/* OUT = running fold of DATA along its last axis, one call per row of LEN
 * elements: the loop sees its output one element behind its first input
 * (NumPy's accumulate call) and runs it in order.  With CARRY (one element
 * a row), each row's first element folds onto it, else is copied. */
static void scan_last_axis(const struct plan_step *s, char *data, char *out, int64_t nrows,
			   int64_t len, const char *carry)
{
	enum dtype ot = s->loop->types[0], dt = s->loop->types[1];
	ptrdiff_t os = dtype_size(ot), ds = dtype_size(dt);
	ptrdiff_t steps[3] = { os, ds, os };
	for (int64_t r = 0; r < nrows && len > 0; r++) {
		char *x = data + r * len * ds, *y = out + r * len * os;
		if (carry) {
			char *first[3] = { (char *)carry + r * os, x, y };
			s->loop->fn(first, 1, steps);
		} else {
			dtype_cast(dt, x, 0, ot, y, 0, 1);
		}
		char *args[3] = { y, x + ds, y + os };
		s->loop->fn(args, (size_t)(len - 1), steps);
	}
}

/* The running fold of a skip_fold scan over a box of OUTER x LEN x INNER
 * elements, along its middle axis: an element VALID says starts the run
 * (RUN, one byte per element, says which have one) or folds onto it, any
 * other keeps the run as it was.  With CARRY (and CARRY_RUN, OUTER x INNER
 * each), the first slice continues them. */
static void scan_taken(const struct plan_step *s, char *data, char *out, const uint8_t *valid,
		       uint8_t *run, int64_t outer, int64_t len, int64_t inner, char *carry,
		       const uint8_t *carry_run)
{
	enum dtype ot = s->loop->types[0], dt = s->loop->types[1];
	ptrdiff_t os = dtype_size(ot), ds = dtype_size(dt), steps[3] = { 0, 0, 0 };
	for (int64_t o = 0; o < outer; o++)
		for (int64_t j = 0; j < len; j++)
			for (int64_t k = 0; k < inner; k++) {
				int64_t i = (o * len + j) * inner + k, c = o * inner + k;
				char *prev = j ? out + (i - inner) * os : carry ? carry + c * os : NULL;
				bool started = j ? run[i - inner] : carry ? carry_run[c] : false;
				char *x = data + i * ds, *y = out + i * os, *args[3] = { prev, x, y };
				if (valid[i] && started)
					s->loop->fn(args, 1, steps);
				else if (valid[i])
					dtype_cast(dt, x, 0, ot, y, 0, 1);
				else if (started)
					memcpy(y, prev, (size_t)os);
				run[i] = valid[i] || started;
			}
}

/* scan_block over the box DIMS in tiles along its first axis of more than
 * one index when that axis comes before K, so that a tile's slices stay in
 * the cache. */
static void scan_tiles(const struct plan_step *s, char *data, char *out, int ndim,
		       const int64_t *dims, int k, const char *carry, const ptrdiff_t *carry_st)
{
	int lead = 0;
	while (lead < k && dims[lead] == 1)
		lead++;
	int64_t per = 1;   /* elements of one index of LEAD */
	for (int i = lead + 1; i < ndim; i++)
		per *= dims[i];
	int64_t size = dtype_size(s->loop->types[0]), dsize = dtype_size(s->loop->types[1]);
	int64_t tile = lead < k && per > 0 ? TILE_BYTES / (per * size) : dims[lead];
	if (tile < 1)
		tile = 1;
	int64_t tdims[H5U_MAXDIM];
	memcpy(tdims, dims, sizeof(int64_t) * (size_t)ndim);
	for (int64_t r = 0; r < dims[lead]; r += tile) {
		tdims[lead] = dims[lead] - r < tile ? dims[lead] - r : tile;
		scan_block(s, data + r * per * dsize, out + r * per * size, ndim, tdims, k,
			   carry ? carry + r * (per / dims[k]) * size : NULL, carry_st);
	}
}

/* What a run of an accumulation holds, allocated before the first box. */
struct scan_buffers {
	char *raw, *data;      /* a block of the input: as stored, in the loop's second dtype */
	char *out, *conv;      /* its results: in the loop's first dtype, and (to write) the output's */
	uint8_t *valid;        /* masked: which of them are valid */
	char *plane_raw;       /* masked: scratch the input's mask plane is read through */
	uint8_t *run;          /* skip_fold: which have taken an element */
	char *carry;           /* the last slice of a block, carried into the next */
	uint8_t *carry_run;    /* skip_fold: which of it have taken one */
	bool took;             /* has a walk scanned a block into the carry */
	struct hold hold;      /* every buffer above that the run allocated */
};

/* Every buffer a run of S holds, into H, with B's slots (B NULL:
 * counting). */
static void each_buffer(const struct plan_step *s, struct scan_buffers *B, struct hold *h)
{
	enum dtype t = s->loop->types[0], dt = s->loop->types[1];
	hold_buffer(h, DIST_PER_ELEM, stage_scratch(s->in[0], dt), HOLD_SLOT(B, raw));
	hold_buffer(h, DIST_PER_ELEM, dtype_size(dt), HOLD_SLOT(B, data));
	hold_buffer(h, DIST_PER_ELEM, dtype_size(t), HOLD_SLOT(B, out));
	hold_buffer(h, DIST_PER_ELEM, stage_scratch(s->out[0], t), HOLD_SLOT(B, conv));
	hold_buffer(h, DIST_PER_ELEM, s->mask.masked, HOLD_SLOT(B, valid));
	if (s->mask.masked)
		masked_hold(h, s->in[0], DIST_PER_ELEM, 1, HOLD_SLOT(B, plane_raw));
	hold_buffer(h, DIST_PER_ELEM, s->mask.skip_fold, HOLD_SLOT(B, run));
	hold_buffer(h, DIST_PER_ACROSS, dtype_size(t), HOLD_SLOT(B, carry));
	hold_buffer(h, DIST_PER_ACROSS, s->mask.skip_fold, HOLD_SLOT(B, carry_run));
}

/* Scan the block CNT of B->data into B->out, its first slice onto the
 * carry when CARRIED, else copied; then the carry is its last slice. */
static void scan_step(const struct plan_step *s, struct scan_buffers *b, const int64_t *cnt,
		      bool carried)
{
	int n = s->blocks.stream.ndim, a = s->fold.axis, size = dtype_size(s->loop->types[0]);
	iter_strides ost, cst;
	iter_contiguous(n, cnt, cnt, size, ost);
	int64_t slice[H5U_MAXDIM];
	memcpy(slice, cnt, sizeof(int64_t) * (size_t)n);
	slice[a] = 1;
	iter_contiguous(n, slice, cnt, size, cst);
	int64_t outer = 1, inner = 1;
	for (int i = 0; i < n; i++) {
		outer *= i < a ? cnt[i] : 1;
		inner *= i > a ? cnt[i] : 1;
	}
	char *carry = carried ? b->carry : NULL;
	if (s->mask.skip_fold)
		scan_taken(s, b->data, b->out, b->valid, b->run, outer, cnt[a], inner, carry,
			   b->carry_run);
	else if (a == n - 1)
		scan_last_axis(s, b->data, b->out, stage_box_size(n, cnt) / cnt[a], cnt[a], carry);
	else
		scan_tiles(s, b->data, b->out, n, cnt, a, carry, cst);
	/* the last slice carries into the next block */
	iter_strides dst;
	iter_contiguous(n, slice, slice, size, dst);
	iter_copy(size, b->out + (cnt[a] - 1) * ost[a], ost, b->carry, dst, n, slice);
	for (int64_t o = 0; b->run && o < outer; o++)
		memcpy(b->carry_run + o * inner, b->run + (o * cnt[a] + cnt[a] - 1) * inner,
		       (size_t)inner);
}

/* This rank's walk along the axis through the box across QO/QC (none when
 * not ANY): each block read, scanned onto the carry (from the first block
 * on when CARRIED) and, when WRITE, written; else only the carry is kept,
 * the run's total, and the elements read count as computed once, by the
 * walk that writes them.  Collective. */
static int scan_walk(struct plan_step *s, struct scan_buffers *b, const int64_t *qo,
		     const int64_t *qc, bool any, bool carried, bool write, struct err *e)
{
	struct array *x = s->in[0], *y = s->out[0];
	enum dtype t = s->loop->types[0], dt = s->loop->types[1];
	const struct dist_stream *st = &s->blocks.stream;
	int n = st->ndim;
	struct dist_walk along;
	dist_stream_along_start(st, comm_rank(), &along);
	for (int64_t j = 0; j < st->along.nboxes; j++) {
		int64_t ro[H5U_MAXDIM + 1], rc[H5U_MAXDIM + 1], start[H5U_MAXDIM], cnt[H5U_MAXDIM];
		dist_walk_next(&along, ro, rc);
		dist_stream_box(st, qo, qc, ro, rc, start, cnt);
		if (!any)
			memset(cnt, 0, sizeof cnt);
		if (stage_read(x, dt, start, cnt, b->raw, b->data, s->where, e) < 0)
			err_place(e, &s->loc);
		int64_t nel = stage_box_size(n, cnt);
		if (!write)
			report_read_again(nel);
		const char *stored = x->dtype != dt ? b->raw : b->data;   /* in X's dtype */
		if (s->mask.masked)   /* skipped, or numpy.ma's: masked elements count as nothing */
			masked_skip_missing(s, x, dt, start, cnt, nel, stored, b->plane_raw, b->data, b->valid, e);
		if (any && nel > 0 && !e->status) {
			scan_step(s, b, cnt, carried || j > 0);
			b->took = true;
			reducer_check_fault(s, e);
		}
		if (comm_agree(e) < 0)
			return -1;
		if (!write)
			continue;
		if (s->mask.masked) {   /* ... and stay masked in the result */
			masked_fill_results(s, t, nel, b->out, b->valid, e);
			if (s->mask.out &&
			    stage_write(s->mask.out, DT_BOOL, start, cnt, (char *)b->valid, NULL, s->where, e) < 0)
				err_place(e, &s->loc);
		}
		if (stage_write(y, t, start, cnt, b->out, b->conv, s->where, e) < 0)
			err_place(e, &s->loc);
	}
	return 0;
}

/* Each rank walks its boxes of the space across the axis (s->stream); each
 * box goes along the axis in blocks (the stream's along boxes), the last
 * slice of one block carried into the next, so every element is NumPy's
 * sequential result whatever the ranks and blocks.  A shared stream's
 * ranks each walk every box across over their own run along, twice: the
 * first walk keeps only the run's total, the totals of the runs before a
 * rank's combine in rank order into its carry-in (reducer_carry_in, an
 * exclusive scan over the ranks), and the second walk scans onto it and
 * writes.  A rank with no rows has no total: its carry is left out of the
 * combine (a rank after it carries in the totals before it), never read.
 * The fold being exact in any grouping (dist.h), the carry-in is the bits
 * NumPy's sequential fold has there. */
int scan_run(struct plan_step *s, struct err *e)
{
	const struct dist_stream *st = &s->blocks.stream;
	struct scan_buffers b = {0};
	hold_stream(&b.hold, st);
	each_buffer(s, &b, &b.hold);
	hold_end(&b.hold);
	struct dist_walk w;
	dist_stream_across_start(st, comm_rank(), &w);
	for (int64_t k = 0; k < st->across.nboxes && !e->status; k++) {
		int64_t qo[H5U_MAXDIM], qc[H5U_MAXDIM];
		bool any = dist_walk_next(&w, qo, qc);
		bool carried = false;   /* a run that NumPy's fold enters */
		if (st->shared) {
			b.took = false;
			if (scan_walk(s, &b, qo, qc, any, false, false, e) < 0)
				break;
			carried = reducer_carry_in(s, b.carry, stage_box_size(st->across.ndim, qc), !b.took, e);
			if (comm_agree(e) < 0)
				break;
		}
		if (scan_walk(s, &b, qo, qc, any, carried, true, e) < 0)
			break;
	}
	hold_free(&b.hold);
	return comm_agree(e);
}

/* The blocks along the axis and the boxes across it: dist_stream_make,
 * following the input's chunks when it can (on one process, of an input
 * read as the runs its boxes cut, boxes across of the usual size
 * instead: DIST_CUT_RUNS), shared when the fold is exact
 * in any grouping (ufunc_fold_exact) and each element folds as a value
 * (not skip_fold, whose carry is a value and whether it took any). */
int scan_layout(struct plan_step *s, int nranks, int64_t memory, const char *where,
		struct err *e)
{
	const struct array *x = s->in[0];
	const struct shape *X = &x->shape;
	enum dtype t = s->loop->types[0];
	int64_t size = dtype_size(t), xsize = dtype_size(x->dtype);
	enum dtype yt = s->out[0]->dtype;
	int64_t widest = xsize > size ? xsize : size;
	if (dtype_size(yt) > widest)
		widest = dtype_size(yt);
	struct dist_cost c = { .memory = memory, .widest = widest };
	struct hold h;
	hold_count(&h, &c);
	each_buffer(s, NULL, &h);
	unsigned how = (ufunc_fold_exact(s->uf, t) && !s->mask.skip_fold ? DIST_MAY_SHARE : 0) |
		       (nranks == 1 && stage_cut_in_runs(x) ? DIST_CUT_RUNS : 0);
	return dist_stream_make(X->ndim, X->dim, s->fold.reduced, stage_chunks(x), &c, how, nranks, where, e,
				&s->blocks.stream);
}
