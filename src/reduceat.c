/* reduceat.c - np.UFUNC.reduceat; see reduceat.h.
 *
 * In order: the segments and the layout (arithmetic on the plan); a
 * rank's walk (struct walk): the block it holds, the batch of results it
 * fills; the fold of one segment, whole in the block (NumPy's one loop
 * call) or streamed (sequential, or NumPy's pairwise tree); the batches,
 * each read and written with collective calls that every rank makes the
 * same number of times; the plan in words.
 */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "hold.h"
#include "iter.h"
#include "masked.h"
#include "reduceat.h"
#include "reducer.h"
#include "stage.h"

/* NumPy's pairwise sum adds blocks of at most 128 reals, summing a complex
 * array as its 2N reals: 64 complex numbers. */
#define PAIRWISE_BLOCK 128
#define MAX_DEPTH 64         /* partial sums of a pairwise tree: 2**64 elements */

/* ---- segments and layout ------------------------------------------------ */

/* Where segment I ends (NumPy's: the next index, the last one at the end). */
static int64_t seg_end(const struct reduceat_plan *r, int64_t i)
{
	return i + 1 < r->nseg ? r->start[i + 1] : r->extent;
}

/* Rows segment I reads: its run, or its first row alone when it is empty
 * or runs backwards. */
static int64_t seg_rows(const struct reduceat_plan *r, int64_t i)
{
	int64_t n = seg_end(r, i) - r->start[i];
	return n > 1 ? n : 1;
}

void reduceat_segments(struct reduceat_plan *r, const int64_t *starts, int64_t n, int64_t extent)
{
	r->start = starts;
	r->nseg = n;
	r->extent = extent;
	r->longest = 0;
	for (int64_t i = 0; i < n; i++)
		if (seg_rows(r, i) > r->longest)
			r->longest = seg_rows(r, i);
}

/* The dtype and loop a streamed fold runs in, and how (reduceat.h). */
static void stream_kind(const struct plan_step *s, struct reduceat_plan *r)
{
	enum dtype t = s->loop->types[0];
	char kind = dtype_table[t].kind;
	r->wide = t;
	r->wide_loop = s->loop;
	if (t == DT_FLOAT16 && (s->uf->flags & UF_HALF_WIDE)) {
		r->wide = DT_FLOAT32;
		for (int l = 0; l < s->uf->nloops; l++)
			if (s->uf->loops[l].types[0] == DT_FLOAT32 && s->uf->loops[l].types[1] == DT_FLOAT32)
				r->wide_loop = &s->uf->loops[l];
	}
	bool pairwise = (s->uf->flags & UF_PAIRWISE) && (kind == 'f' || kind == 'c');
	r->stream = pairwise ? STREAM_PAIRWISE : STREAM_SEQUENTIAL;
	r->pairwise_block = kind == 'c' ? PAIRWISE_BLOCK / 2 : PAIRWISE_BLOCK;
	r->depth = 2;
	for (int64_t n = r->longest; pairwise && n > r->pairwise_block && r->depth < MAX_DEPTH; n = n / 2 + 8)
		r->depth++;
}

/* The extents and chunks of X's axes but AXIS: the space across. */
static int across_space(const struct array *x, int axis, int64_t *dim, int64_t *chunk, bool *chunked)
{
	const int64_t *c = stage_chunks(x);
	int n = 0;
	for (int i = 0; i < x->shape.ndim; i++)
		if (i != axis) {
			chunk[n] = c ? c[i] : 1;
			dim[n++] = x->shape.dim[i];
		}
	*chunked = c != NULL && n > 0;
	return n;
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

struct walk;
static void each_buffer(const struct plan_step *s, int64_t rows, int64_t batch, struct walk *w,
			struct hold *h);

/* The bytes a column across holds with ROWS rows a block and BATCH results
 * a batch: the sum of S's buffer list. */
static int64_t column_bytes(const struct plan_step *s, int64_t rows, int64_t batch)
{
	struct dist_cost c = {0};
	struct hold h;
	hold_count(&h, &c);
	each_buffer(s, rows, batch, NULL, &h);
	return c.per_elem;
}

int reduceat_layout(struct plan_step *s, int nranks, int64_t memory, const char *where,
		    struct err *e)
{
	struct reduceat_plan *r = s->reduceat;
	const struct array *x = s->in[0];
	if (s->mask.masked && s->mask.skip_fold)
		return err_set(e, EXIT_USAGE, where,
			       "numpy.ma has no reduce of '%s' (nothing to fill its masked elements with), so no masked reduceat",
			       s->uf->name);
	stream_kind(s, r);
	int64_t xs = dtype_size(x->dtype), ds = dtype_size(s->loop->types[1]);
	/* bytes of a column's row and result, of what a streamed fold keeps
	 * per column */
	int64_t extra = column_bytes(s, 0, 0), c = column_bytes(s, 1, 1) - extra;
	int64_t dim[H5U_MAXDIM], chunk[H5U_MAXDIM];
	bool chunked;
	int n = across_space(x, r->axis, dim, chunk, &chunked);
	int64_t across = 1, widest = max64(xs, ds);
	for (int i = 0; i < n; i++)
		across *= dim[i];
	/* rows a block holds: the longest segment and a few MiB across, as
	 * the budget allows (a block may be one element across); fewer,
	 * streamed, when the longest does not fit */
	int64_t fit = (memory - extra) / c;
	int64_t rows = max64(r->longest, DIST_BLOCK_BYTES / (max64(across, 1) * widest));
	rows = min64(min64(rows, fit), max64(r->extent, 1));
	int64_t least = r->longest <= rows ? 1 : r->stream == STREAM_PAIRWISE ? r->pairwise_block : 1;
	if (rows < least || rows < 1)
		return dist_too_small(memory, where, e, "%lld row%s of one element need%s %lld bytes",
				      (long long)max64(least, 1), least > 1 ? "s" : "", least > 1 ? "" : "s",
				      (long long)(max64(least, 1) * c + extra));
	r->block_rows = rows;
	r->batch = max64(min64(r->nseg, rows), 1);
	/* the boxes across: each element a column of a block's rows */
	struct dist_cost cost = { .memory = memory, .widest = rows * widest, .unit = rows };
	struct hold h;
	hold_count(&h, &cost);
	each_buffer(s, rows, r->batch, NULL, &h);
	if (dist_layout_make(n, dim, chunked ? chunk : NULL, &cost, H5U_MAXDIM, nranks, where, e,
			     &r->across) < 0)
		return -1;
	/* boxes across that idle ranks: the segments are dealt instead */
	r->by_segments = nranks > 1 && r->nseg > 1 && r->across.ranks_with_work < nranks;
	if (r->by_segments)
		return dist_layout_make(n, dim, chunked ? chunk : NULL, &cost, H5U_MAXDIM, 1, where, e,
					&r->across);
	return 0;
}

/* ---- a rank's walk -------------------------------------------------------- */

/* Where a rank is: the box across it folds, the rows of it the block
 * holds, the batch of results it fills.  DRY: only count the reads. */
struct walk {
	struct plan_step *s;
	const struct reduceat_plan *r;
	enum dtype t, dt;
	int64_t qo[H5U_MAXDIM + 1], qc[H5U_MAXDIM + 1];   /* the box across */
	int64_t before, after, width;   /* its elements before and after the axis; all */
	int64_t w0, w1;                 /* rows of the box the block holds */
	int64_t batch;                  /* segments of the batch being filled */
	bool dry;
	int64_t reads;
	char *raw, *data, *wdata, *conv;   /* the block: as stored, in the loop's dtype, wide */
	uint8_t *valid;                    /* masked: which elements of the block are valid */
	char *plane_raw;                   /* masked: scratch its mask plane is read through */
	char *out;                         /* the batch's results, in the loop's dtype */
	uint8_t *accv;                     /* masked: which results have a valid element */
	char *acc;                         /* a streamed fold: its values, wide ... */
	char *stack;                       /* ... and a pairwise tree's partial sums */
	struct hold hold;                  /* all of the above that are allocated */
};

/* START/COUNT over the input of rows [LO, HI) of the box across (all 0
 * when EMPTY). */
static void block_box(const struct walk *w, int64_t lo, int64_t hi, bool empty, int64_t *start,
		      int64_t *count)
{
	const struct shape *X = &w->s->in[0]->shape;
	for (int i = 0, k = 0; i < X->ndim; i++) {
		bool along = i == w->r->axis;
		start[i] = along ? lo : w->qo[k];
		count[i] = empty ? 0 : along ? hi - lo : w->qc[k];
		k += !along;
	}
}

/* Read the block of rows [LO, HI) (none when EMPTY): as the loop's
 * dtype, in masked mode with masked elements made numpy.ma's fill, and
 * cast wide for a wide streamed fold.  Collective. */
static void read_block(struct walk *w, int64_t lo, int64_t hi, bool empty, struct err *e)
{
	const struct plan_step *s = w->s;
	const struct array *x = s->in[0];
	int64_t start[H5U_MAXDIM], count[H5U_MAXDIM];
	block_box(w, lo, hi, empty, start, count);
	if (stage_read(x, w->dt, start, count, w->raw, w->data, s->where, e) < 0)
		err_place(e, &s->loc);
	int64_t n = stage_box_size(x->shape.ndim, count);
	if (s->mask.masked)
		masked_skip_missing(s, x, w->dt, start, count, n, x->dtype != w->dt ? w->raw : w->data,
				    w->plane_raw, w->data, w->valid, e);
	if (w->wdata)
		dtype_cast(w->dt, w->data, dtype_size(w->dt), w->r->wide, w->wdata, dtype_size(w->r->wide),
			   (size_t)n);
}

/* Make the block hold rows [LO, HI) (at most a block's worth): read from
 * LO when it does not. */
static void hold(struct walk *w, int64_t lo, int64_t hi, struct err *e)
{
	if (lo >= w->w0 && hi <= w->w1)
		return;
	w->w0 = lo;
	w->w1 = min64(lo + w->r->block_rows, w->r->extent);
	w->reads++;
	if (!w->dry)
		read_block(w, w->w0, w->w1, false, e);
}

/* Element Q across, row ROW (held), of the block: its offset. */
static int64_t at_row(const struct walk *w, int64_t q, int64_t row)
{
	return (q / w->after * (w->w1 - w->w0) + row - w->w0) * w->after + q % w->after;
}

/* Result Q across of segment J of the batch: its offset. */
static int64_t at_result(const struct walk *w, int64_t q, int64_t j)
{
	return (q / w->after * w->batch + j) * w->after + q % w->after;
}

/* In masked mode: results of segment J take the validity of rows [LO, HI). */
static void or_valid(struct walk *w, int64_t j, int64_t lo, int64_t hi, bool first)
{
	if (!w->s->mask.masked)
		return;
	for (int64_t q = 0; q < w->width; q++) {
		uint8_t *v = &w->accv[at_result(w, q, j)];
		*v = first ? 0 : *v;
		for (int64_t row = lo; row < hi && !*v; row++)
			*v = w->valid[at_row(w, q, row)];
	}
}

/* ---- the fold of a segment ------------------------------------------------ */

/* Segment I (result J) within the block: NumPy's call, element by element
 * across -- its first row copied, the others folded onto it in one call of
 * the loop, COUNT its rows (NumPy's: 1 or less when it has only one). */
static void fold_whole(struct walk *w, int64_t j, int64_t first, int64_t count)
{
	const struct ufunc_loop *loop = w->s->loop;
	ptrdiff_t ds = dtype_size(w->dt), ts = dtype_size(w->t);
	ptrdiff_t steps[3] = { 0, w->after * ds, 0 };
	for (int64_t q = 0; q < w->width; q++) {
		char *src = w->data + at_row(w, q, first) * ds, *acc = w->out + at_result(w, q, j) * ts;
		dtype_cast(w->dt, src, 0, w->t, acc, 0, 1);
		char *args[3] = { acc, src + steps[1], acc };
		if (count > 1)
			loop->fn(args, (size_t)(count - 1), steps);
	}
	or_valid(w, j, first, first + (count > 1 ? count : 1), true);
}

/* The wide accumulators ACC (one per element across) as results J. */
static void wide_done(struct walk *w, int64_t j)
{
	ptrdiff_t ws = dtype_size(w->r->wide), ts = dtype_size(w->t);
	for (int64_t q = 0; q < w->width; q++)
		dtype_cast(w->r->wide, w->acc + q * ws, 0, w->t, w->out + at_result(w, q, j) * ts, 0, 1);
}

/* The block's rows [LO, HI) in the wide dtype (the loop's, or float32). */
static char *wide_rows(const struct walk *w)
{
	return w->wdata ? w->wdata : w->data;
}

/* Fold rows [LO, HI) of the block onto the N accumulators at ACC
 * (stride AS) with the wide loop, element by element across. */
static void fold_rows(struct walk *w, char *acc, ptrdiff_t as, int64_t lo, int64_t hi)
{
	const struct ufunc_loop *loop = w->r->wide_loop;
	ptrdiff_t ds = dtype_size(w->wdata ? w->r->wide : w->dt);
	ptrdiff_t steps[3] = { 0, w->after * ds, 0 };
	for (int64_t q = 0; q < w->width && hi > lo; q++) {
		char *args[3] = { acc + q * as, wide_rows(w) + at_row(w, q, lo) * ds, acc + q * as };
		loop->fn(args, (size_t)(hi - lo), steps);
	}
}

/* The first row of a streamed segment (J, from row FIRST) into the wide
 * accumulators. */
static void stream_first(struct walk *w, int64_t j, int64_t first, struct err *e)
{
	hold(w, first, first + 1, e);
	if (w->dry)
		return;
	ptrdiff_t ws = dtype_size(w->r->wide), ds = dtype_size(w->dt);
	for (int64_t q = 0; q < w->width; q++)
		dtype_cast(w->dt, w->data + at_row(w, q, first) * ds, 0, w->r->wide, w->acc + q * ws, 0, 1);
	or_valid(w, j, first, first + 1, true);
}

/* A segment longer than a block, folded block after block onto the wide
 * accumulators: the loop's sequential fold, carried. */
static void stream_sequential(struct walk *w, int64_t j, int64_t first, int64_t end, struct err *e)
{
	stream_first(w, j, first, e);
	for (int64_t row = first + 1; row < end && !e->status;) {
		hold(w, row, row + 1, e);
		int64_t hi = min64(end, w->w1);
		if (!w->dry) {
			fold_rows(w, w->acc, dtype_size(w->r->wide), row, hi);
			or_valid(w, j, row, hi, false);
		}
		row = hi;
	}
	if (!w->dry)
		wide_done(w, j);
}

/* LEFT += RIGHT, N elements of the wide dtype (a pairwise tree's join). */
static void join(struct walk *w, char *left, char *right)
{
	ptrdiff_t ws = dtype_size(w->r->wide), steps[3] = { ws, ws, ws };
	char *args[3] = { left, right, left };
	w->r->wide_loop->fn(args, (size_t)w->width, steps);
}

/* -0 in the wide dtype (both parts of a complex one): a pairwise sum's
 * start, which leaves any sum as it is. */
static void negative_zero(enum dtype t, unsigned char *out)
{
	bool single = t == DT_FLOAT32 || t == DT_COMPLEX64;
	for (int part = 0; part < (dtype_table[t].kind == 'c' ? 2 : 1); part++) {
		if (single) {
			float z = -0.0f;
			memcpy(out + part * sizeof z, &z, sizeof z);
		} else {
			double z = -0.0;
			memcpy(out + part * sizeof z, &z, sizeof z);
		}
	}
}

/* NumPy's pairwise sum of rows [LO, LO + N) into level D of the stack:
 * blocks of at most 128 reals summed by the loop (from -0), larger runs
 * split at half of their reals rounded down to a multiple of 8, the
 * halves joined. */
static void pairwise(struct walk *w, int64_t j, int64_t lo, int64_t n, int d, struct err *e)
{
	ptrdiff_t ws = dtype_size(w->r->wide);
	char *level = w->stack + (size_t)d * (size_t)w->width * (size_t)ws;
	int64_t half = iter_pairwise_half(w->r->wide, n);
	if (half > 0) {
		pairwise(w, j, lo, half, d, e);
		pairwise(w, j, lo + half, n - half, d + 1, e);
		if (!w->dry)
			join(w, level, level + w->width * ws);
		return;
	}
	hold(w, lo, lo + n, e);
	if (w->dry || e->status)
		return;
	unsigned char zero[16];
	negative_zero(w->r->wide, zero);
	iter_fill((int)ws, level, zero, w->width);
	fold_rows(w, level, ws, lo, lo + n);
	or_valid(w, j, lo, lo + n, false);
}

/* A segment longer than a block whose loop sums pairwise: its first row,
 * plus NumPy's pairwise sum of the others, carried block to block. */
static void stream_pairwise(struct walk *w, int64_t j, int64_t first, int64_t end, struct err *e)
{
	stream_first(w, j, first, e);
	pairwise(w, j, first + 1, end - first - 1, 0, e);
	if (w->dry)
		return;
	join(w, w->acc, w->stack);
	wide_done(w, j);
}

/* Segment I as result J of the batch. */
static void fold_segment(struct walk *w, int64_t i, int64_t j, struct err *e)
{
	const struct reduceat_plan *r = w->r;
	int64_t first = r->start[i], end = seg_end(r, i);
	if (seg_rows(r, i) <= r->block_rows) {
		hold(w, first, first + seg_rows(r, i), e);
		if (!w->dry && !e->status)
			fold_whole(w, j, first, end - first);
	} else if (r->stream == STREAM_PAIRWISE) {
		stream_pairwise(w, j, first, end, e);
	} else {
		stream_sequential(w, j, first, end, e);
	}
}

/* ---- batches ---------------------------------------------------------- */

/* This rank's segments: all of them, or its run when they are dealt (runs
 * of about equal rows). */
static void my_segments(const struct reduceat_plan *r, int64_t *lo, int64_t *hi)
{
	*lo = 0;
	*hi = r->nseg;
	if (!r->by_segments)
		return;
	int64_t total = 0, sum = 0, rank = comm_rank(), size = comm_size();
	for (int64_t i = 0; i < r->nseg; i++)
		total += seg_rows(r, i);
	*lo = *hi = -1;
	for (int64_t i = 0; i <= r->nseg; i++) {
		/* segment i starts the run of the rank whose share of the rows it is in */
		if (*lo < 0 && (i == r->nseg || sum * size >= rank * total))
			*lo = i;
		if (*hi < 0 && (i == r->nseg || sum * size >= (rank + 1) * total))
			*hi = i;
		if (i < r->nseg)
			sum += seg_rows(r, i);
	}
}

/* The box across (QO/QC over the space across, ANY: it has elements) as
 * W's: its extents before and after the axis; the block is emptied. */
static void take_box(struct walk *w, const int64_t *qo, const int64_t *qc, bool any)
{
	const struct shape *X = &w->s->in[0]->shape;
	int n = X->ndim - 1;
	memcpy(w->qo, qo, sizeof w->qo);
	memcpy(w->qc, qc, sizeof w->qc);
	w->before = w->after = 1;
	for (int k = 0; k < n; k++) {
		if (k < w->r->axis)
			w->before *= any ? qc[k] : 0;
		else
			w->after *= any ? qc[k] : 0;
	}
	if (!any)
		w->before = 0;
	w->width = w->before * w->after;
	w->w0 = w->w1 = 0;
}

/* One batch: segments [I, I + N) of the box across, folded (their reads
 * made, then empty ones up to what every rank makes for it) and written.
 * Collective: N is 0 on a rank with nothing left. */
static int run_batch(struct walk *w, int64_t i, int64_t n, struct err *e)
{
	/* how many reads: a dry walk from where the block is */
	int64_t w0 = w->w0, w1 = w->w1;
	w->batch = n;
	w->dry = true;
	w->reads = 0;
	for (int64_t j = 0; j < n && w->width > 0; j++)
		fold_segment(w, i + j, j, e);
	int64_t mine = w->reads, most = comm_max(mine);
	w->w0 = w0;
	w->w1 = w1;
	w->dry = false;
	for (int64_t j = 0; j < n && w->width > 0 && !e->status; j++)
		fold_segment(w, i + j, j, e);
	for (int64_t k = w->reads - mine; k < most; k++)
		read_block(w, 0, 0, true, e);
	reducer_check_fault(w->s, e);
	int64_t start[H5U_MAXDIM], count[H5U_MAXDIM];
	block_box(w, i, i + n, n == 0 || w->width == 0, start, count);
	reducer_write_result(w->s, start, count, w->out, w->accv, w->conv, e);
	return comm_agree(e);
}

/* Every buffer a walk of S holds, a column across's: a block of ROWS
 * rows, a batch of BATCH results, a streamed fold's values; into H, with
 * W's slots (W NULL: counting; a slot NULL: one it does not use). */
static void each_buffer(const struct plan_step *s, int64_t rows, int64_t batch, struct walk *w,
			struct hold *h)
{
	const struct reduceat_plan *r = s->reduceat;
	enum dtype t = s->loop->types[0], dt = s->loop->types[1];
	int64_t ws = dtype_size(r->wide);
	hold_buffer(h, DIST_PER_ELEM, rows * stage_scratch(s->in[0], dt), HOLD_SLOT(w, raw));
	hold_buffer(h, DIST_PER_ELEM, rows * dtype_size(dt), HOLD_SLOT(w, data));
	hold_buffer(h, DIST_PER_ELEM, r->wide != t ? rows * ws : 0, HOLD_SLOT(w, wdata));
	hold_buffer(h, DIST_PER_ELEM, rows * s->mask.masked, HOLD_SLOT(w, valid));
	if (s->mask.masked)
		masked_hold(h, s->in[0], DIST_PER_ELEM, rows, HOLD_SLOT(w, plane_raw));
	hold_buffer(h, DIST_PER_ELEM, batch * dtype_size(t), HOLD_SLOT(w, out));
	hold_buffer(h, DIST_PER_ELEM, batch * stage_scratch(s->out[0], t), HOLD_SLOT(w, conv));
	hold_buffer(h, DIST_PER_ELEM, batch * s->mask.masked, HOLD_SLOT(w, accv));
	hold_buffer(h, DIST_PER_ELEM, ws, HOLD_SLOT(w, acc));
	hold_buffer(h, DIST_PER_ELEM, r->stream == STREAM_PAIRWISE ? r->depth * ws : 0, HOLD_SLOT(w, stack));
}

int reduceat_run(struct plan_step *s, struct err *e)
{
	const struct reduceat_plan *r = s->reduceat;
	struct walk w = { .s = s, .r = r, .t = s->loop->types[0], .dt = s->loop->types[1] };
	hold_layout(&w.hold, &r->across);
	each_buffer(s, r->block_rows, r->batch, &w, &w.hold);
	hold_end(&w.hold);
	int64_t lo, hi;
	my_segments(r, &lo, &hi);
	int64_t per_box = (hi - lo + r->batch - 1) / r->batch;
	int64_t batches = comm_max(r->across.nboxes * per_box);
	struct dist_walk boxes;
	dist_walk_start(&r->across, r->by_segments ? 0 : comm_rank(), &boxes);
	for (int64_t b = 0; b < batches && !e->status; b++) {
		int64_t k = per_box ? b % per_box : 0;
		if (per_box && k == 0 && b / per_box < r->across.nboxes) {
			int64_t qo[H5U_MAXDIM + 1], qc[H5U_MAXDIM + 1];
			bool any = dist_walk_next(&boxes, qo, qc);
			take_box(&w, qo, qc, any);
		}
		bool mine = per_box && b / per_box < r->across.nboxes;
		int64_t i = lo + k * r->batch;
		run_batch(&w, i, mine ? min64(r->batch, hi - i) : 0, e);
	}
	hold_free(&w.hold);
	return comm_agree(e);
}

/* ---- the plan in words ------------------------------------------------ */

void reduceat_print(const struct plan_step *s, FILE *f)
{
	const struct reduceat_plan *r = s->reduceat;
	const struct dist_layout *l = &r->across;
	fprintf(f, ", %lld segment%s along axis %d (the longest %lld rows), blocks of %lld rows",
		(long long)r->nseg, r->nseg == 1 ? "" : "s", r->axis, (long long)r->longest,
		(long long)r->block_rows);
	if (r->longest > r->block_rows)
		fprintf(f, " (longer segments streamed%s)", r->stream == STREAM_PAIRWISE ? ", pairwise" : "");
	fprintf(f, "; across it %lld box%s of up to %lld elements, %s\n", (long long)l->total_boxes,
		l->total_boxes == 1 ? "" : "es", (long long)(l->lines_per_box * l->line),
		r->by_segments ? "the segments dealt to the ranks" : "dealt to the ranks");
}
