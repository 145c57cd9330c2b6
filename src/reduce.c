/* reduce.c - np.UFUNC.reduce; see reduce.h.
 *
 * Two ways through the data, chosen by reduce_layout from the shape alone:
 * a *stream* (REDUCE_STREAM: the kept axes dealt in boxes, the reduced
 * axes walked in C order with the accumulators carried, as NumPy folds)
 * and a *chain* (REDUCE_CHAIN: each group a flat run, cut in NumPy's pieces
 * wherever the boxes and ranks fall, chain.h).  The folds themselves are
 * reducer.h's and chain.h's.  In order below: reading a box (read_input);
 * the two drivers (reduce_chain, reduce_stream); the layout.
 */
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "comm.h"
#include "dist.h"
#include "hold.h"
#include "iter.h"
#include "masked.h"
#include "reduce.h"
#include "reducer.h"
#include "stage.h"
#include "where.h"

/* Read the box START/COUNT of S's input as T into DATA (RAW: scratch in
 * its own dtype), with the elements where= skips (M, when S has it) made
 * the value that folds as nothing, and in masked mode the missing ones
 * the value numpy.ma fills them with; a skip_fold reduction leaves them.
 * VALID (one byte per element, for a masked or skip_fold S, else NULL):
 * which elements are valid and where= takes (PLANE_RAW: masked_hold's
 * scratch for its mask plane).  Collective. */
static void read_input(const struct plan_step *s, enum dtype t, const int64_t *start,
		       const int64_t *count, char *raw, char *data, uint8_t *valid, char *plane_raw,
		       struct where_mask *m, struct err *e)
{
	const struct array *x = s->in[0];
	int64_t n = stage_box_size(x->shape.ndim, count);
	if (stage_read(x, t, start, count, raw, data, s->where, e) < 0)
		err_place(e, &s->loc);
	const char *stored = x->dtype != t ? raw : data;   /* the values in X's dtype */
	if (s->mask.masked)
		masked_skip_missing(s, x, t, start, count, n, stored, plane_raw, data, valid, e);
	else if (s->mask.skip_fold)
		memset(valid, 1, (size_t)n);
	if (!m)
		return;
	const uint8_t *mask = where_mask_read(m, &x->shape, start, count, s->where, e);
	if (!mask)
		err_place(e, &s->loc);
	for (int64_t i = 0; mask && valid && !e->status && i < n; i++)
		valid[i] &= mask[i];
	if (mask && !e->status && !s->mask.skip_fold)
		where_select(t, n, data, mask, (const char *)s->mask.skip_value, 0);
}

/* May S's boxes be read as its input's chunks where they hold them whole
 * (stage_read_chunks), its chain fed from them a run at a time
 * (reducer_box_chunked): a chain, unmasked, with no where=, of an input
 * so read under the budget MEMORY? */
static bool read_chunked(const struct plan_step *s, int64_t memory)
{
	return s->fold.mode == REDUCE_CHAIN && !s->mask.masked && !s->mask.where_arr &&
	       stage_chunked_reads(s->in[0], s->loop->types[1], memory);
}

/* May S's boxes be folded a band of chunk columns at a time
 * (reducer_box_bands) from its input read as stored, in its own dtype,
 * where the loop's is another (NumPy sums int32 in int64): a chain,
 * unmasked, with no where=, of an input so read under MEMORY, each band
 * cast as stage_read casts a box? */
static bool read_bands_cast(const struct plan_step *s, int64_t memory)
{
	return s->fold.mode == REDUCE_CHAIN && !s->mask.masked && !s->mask.where_arr &&
	       s->in[0]->dtype != s->loop->types[1] && stage_chunked_reads(s->in[0], s->in[0]->dtype, memory);
}

/* What a run of a reduction holds, allocated before the first box. */
struct reduce_buffers {
	char *raw, *data;     /* a box of the input: as stored, in the loop's second dtype
				 (or its chunks, read_chunked, or a band of them and
				 what its fold keeps, reducer_box_bands) */
	char *run;            /* read_chunked: a run of the box copied out */
	uint8_t *valid;       /* masked, skip_fold: which of its elements fold */
	char *plane_raw;      /* masked: scratch its mask plane is read through */
	struct where_mask *m; /* where=: its mask over the box */
	char *acc, *conv;     /* REDUCE_STREAM: a box across's results, in the loop's
				 first dtype and (to write) the output's */
	uint8_t *accv;        /* ... which of them took an element */
	struct reducer *r;    /* REDUCE_CHAIN: the chain's */
	struct hold hold;     /* every buffer above that the run allocated */
};

/* Every buffer a run of S (its fold.mode chosen) on NRANKS ranks holds,
 * into H, with B's slots (B NULL: counting). */
static void each_buffer(struct plan_step *s, int nranks, struct reduce_buffers *B, struct hold *h)
{
	const struct array *x = s->in[0], *y = s->out[0];
	enum dtype t = s->loop->types[0], dt = s->loop->types[1];
	int64_t valid = s->mask.masked || s->mask.skip_fold;
	bool chunked = read_chunked(s, hold_memory(h));
	if (s->blocks.bands) {   /* a band of a box of one chunk row */
		hold_buffer(h, DIST_FIXED, reducer_band_bytes(&s, 1, x), HOLD_SLOT(B, data));
	} else {
		hold_buffer(h, DIST_PER_ELEM, chunked ? stage_chunked_elem_bytes(x, dt) : dtype_size(dt),
			    HOLD_SLOT(B, data));
		hold_buffer(h, DIST_FIXED, chunked ? REDUCER_RUN * dtype_size(dt) : 0, HOLD_SLOT(B, run));
	}
	hold_buffer(h, DIST_PER_ELEM, stage_scratch(x, dt), HOLD_SLOT(B, raw));
	hold_buffer(h, DIST_PER_ELEM, valid, HOLD_SLOT(B, valid));
	if (s->mask.masked)
		masked_hold(h, x, DIST_PER_ELEM, 1, HOLD_SLOT(B, plane_raw));
	struct where_mask *m = s->mask.where_arr ? where_mask_hold(h, s->mask.where_arr) : NULL;
	if (s->fold.mode == REDUCE_STREAM) {
		hold_buffer(h, DIST_PER_ACROSS, dtype_size(t), HOLD_SLOT(B, acc));
		hold_buffer(h, DIST_PER_ACROSS, stage_scratch(y, t), HOLD_SLOT(B, conv));
		hold_buffer(h, DIST_PER_ACROSS, valid, HOLD_SLOT(B, accv));
	}
	struct reducer *r = s->fold.mode == REDUCE_CHAIN ? reducer_hold(h, s, nranks) : NULL;
	if (B) {
		B->m = m;
		B->r = r;
	}
}

/* B's buffers freed. */
static void free_buffers(struct reduce_buffers *B)
{
	reducer_free(B->r);
	where_mask_free(B->m);
	hold_free(&B->hold);
}

/* REDUCE_CHAIN on its own: each rank's boxes of its share, a flat run, fed
 * to the chain in order. */
static int reduce_chain(struct plan_step *s, struct err *e)
{
	struct array *x = s->in[0];
	enum dtype t = s->loop->types[1];   /* the input is read as the loop's second operand */
	const struct dist_layout *l = &s->blocks.split;
	int n = x->shape.ndim ? x->shape.ndim : 1;
	struct reduce_buffers B = {0};
	hold_layout(&B.hold, l);
	each_buffer(s, l->nranks, &B, &B.hold);
	hold_end(&B.hold);
	struct reducer *r = B.r;
	bool from_chunks = read_chunked(s, l->cost.memory), cast = read_bands_cast(s, l->cost.memory);
	enum dtype bt = cast ? x->dtype : t;   /* the bands read as */
	int64_t held = dist_held_elems(l, DIST_PER_ELEM);
	int64_t cap = s->blocks.bands ? reducer_band_bytes(&s, 1, x)
		      : from_chunks ? stage_chunked_buffer(x, t, B.data, held) : cast ? held * dtype_size(t) : 0;
	struct dist_walk w;
	dist_walk_start(l, comm_rank(), &w);
	for (int64_t b = 0; b < l->nboxes; b++) {
		int64_t start[H5U_MAXDIM], cnt[H5U_MAXDIM];
		bool any = dist_walk_next(&w, start, cnt);
		if (!any)
			for (int i = 0; i < n; i++)
				cnt[i] = 0;
		struct stage_chunked chunked;
		int banded = any && (from_chunks || cast)
				     ? reducer_box_bands(&r, 1, x, bt, start, cnt, B.data, cap, !s->blocks.bands, s->where, e)
				     : 0;
		int got = any && from_chunks && banded == 0 ? stage_read_chunks(x, t, start, cnt, B.data, cap,
										 &chunked, s->where, e)
							    : 0;
		if (got < 0 || banded < 0)
			err_place(e, &s->loc);
		else if (got == 0 && banded == 0)
			read_input(s, t, start, cnt, B.raw, B.data, B.valid, B.plane_raw, B.m, e);
		if (any && !e->status && got > 0) {
			reducer_box_chunked(&r, 1, &chunked, B.run, start, cnt, e);
		} else if (any && !e->status && banded == 0) {
			reducer_box(r, B.data, B.valid, start, cnt);
			reducer_check_fault(s, e);
		}
		if (comm_agree(e) < 0)
			break;
		if (s->fold.kept_lead > 0) {
			reducer_write_box(r, start, cnt, e);   /* failed or not, every rank agrees */
			if (comm_agree(e) < 0)
				break;
		}
	}
	if (!e->status)
		reducer_finish(r, e);
	free_buffers(&B);
	return comm_agree(e);
}

/* REDUCE_STREAM on its own: each rank takes its boxes across the kept axes
 * (s->stream) and, box by box along the reduced axes in C order, folds the
 * elements into their accumulators, then writes them: every result is the
 * fold NumPy makes, in its order, whatever the ranks and the budget.  A
 * shared stream's ranks each fold their run along into partial results,
 * from the start NumPy's fold has (rank 0) or from where later parts
 * start (the others), combined in rank order by an MPI reduction
 * onto rank 0 (reducer_combine_ranks: log P steps), which writes them. */
static int reduce_stream(struct plan_step *s, struct err *e)
{
	const struct array *y = s->out[0];
	enum dtype t = s->loop->types[0], dt = s->loop->types[1];
	int size = dtype_size(t);
	const struct dist_stream *st = &s->blocks.stream;
	int n = st->ndim;
	struct reduce_buffers B = {0};
	hold_stream(&B.hold, st);
	each_buffer(s, dist_stream_nranks(st), &B, &B.hold);
	hold_end(&B.hold);
	/* where this rank's fold starts: NumPy's start, or a later piece's */
	int64_t first = 0, mine = 1;
	if (st->shared)
		dist_layout_share(&st->along, comm_rank(), &first, &mine);
	enum fold_init init = first == 0 ? s->fold.init : s->fold.rest_init;
	const unsigned char *init_value = first == 0 ? s->fold.init_value : s->fold.rest_value;
	struct dist_walk w;
	dist_stream_across_start(st, comm_rank(), &w);
	for (int64_t b = 0; b < st->across.nboxes; b++) {
		int64_t qo[H5U_MAXDIM], qc[H5U_MAXDIM], start[H5U_MAXDIM], cnt[H5U_MAXDIM];
		bool any = dist_walk_next(&w, qo, qc) && mine > 0;
		int64_t nq = stage_box_size(st->across.ndim, qc);
		if (any && init == FOLD_VALUE)
			iter_fill(size, B.acc, init_value, nq);
		if (any && B.accv)   /* nothing taken yet */
			memset(B.accv, 0, (size_t)nq);
		struct dist_walk along;
		dist_stream_along_start(st, comm_rank(), &along);
		for (int64_t j = 0; j < st->along.nboxes; j++) {
			int64_t ro[H5U_MAXDIM + 1], rc[H5U_MAXDIM + 1];
			bool some = dist_walk_next(&along, ro, rc) && any;
			dist_stream_box(st, qo, qc, ro, rc, start, cnt);
			if (!some)
				memset(cnt, 0, sizeof cnt);
			read_input(s, dt, start, cnt, B.raw, B.data, B.valid, B.plane_raw, B.m, e);
			if (some && !e->status) {
				ptrdiff_t ast[H5U_MAXDIM];
				reducer_acc_strides(n, cnt, s->fold.reduced, size, ast);
				reducer_fold(s, init, B.data, n, cnt, B.acc, ast, j == 0, B.valid, B.accv);
				reducer_check_fault(s, e);
			}
			if (comm_agree(e) < 0)
				goto out;
		}
		if (st->shared) {   /* rank 0 holds the results, and writes them */
			reducer_combine_ranks(s, B.acc, B.accv, nq, e);
			if (comm_agree(e) < 0)
				goto out;
			any = any && comm_rank() == 0;
		}
		int64_t ostart[H5U_MAXDIM] = {0}, ocnt[H5U_MAXDIM] = {0};
		for (int i = 0, a = 0, k = 0; i < n && y->shape.ndim > 0; i++) {
			if (s->fold.reduced[i] && !s->fold.keepdims)
				continue;
			ostart[k] = s->fold.reduced[i] || !any ? 0 : qo[a];
			ocnt[k++] = !any ? 0 : s->fold.reduced[i] ? 1 : qc[a];
			a += !s->fold.reduced[i];
		}
		if (y->shape.ndim == 0)
			ocnt[0] = any;
		reducer_write_result(s, ostart, ocnt, B.acc, B.accv, B.conv, e);
		if (comm_agree(e) < 0)
			goto out;
	}
out:
	free_buffers(&B);
	return comm_agree(e);
}

/* ---- layout ------------------------------------------------------------- */

/* Is each index of S's M leading kept axes a group NumPy folds as one flat
 * run whose pieces may be folded apart and chained: a reorderable ufunc
 * whose fold is exact in any grouping that keeps the order
 * (ufunc_fold_exact), or a sum (UF_PAIRWISE: NumPy sums each piece on
 * its own and adds it); not a float product, logaddexp or hypot, which
 * NumPy folds onto the running value an element at a time, so that a
 * piece folded apart rounds otherwise; axis M reduced and every axis
 * after it reduced or of extent 1, and (with kept axes) a group of at
 * least one element? */
static bool chain_group(const struct plan_step *s, int m)
{
	const struct shape *X = &s->in[0]->shape;
	if (X->ndim == 0 || m == X->ndim || !ufunc_reorderable(s->uf) || s->mask.skip_fold ||
	    !(ufunc_fold_exact(s->uf, s->loop->types[0]) || (s->uf->flags & UF_PAIRWISE)))
		return false;
	for (int i = m + 1; i < X->ndim; i++)
		if (!s->fold.reduced[i] && X->dim[i] != 1)
			return false;
	return m == 0 || reducer_extent(X, s->fold.reduced, m, true) > 0;
}

/* May S's stream be shared (dist.h): does its loop fold exactly in any
 * grouping that keeps the order (ufunc_fold_exact), and does every
 * element it leaves out fold as a value (not skip_fold)? */
static bool may_share(const struct plan_step *s)
{
	return ufunc_fold_exact(s->uf, s->loop->types[0]) && !s->mask.skip_fold;
}

/* What a chain's boxes are laid out with beside the step, for
 * reducer_try_bands: its cost before its buffers are counted. */
struct band_trial {
	struct dist_cost c;
	int nranks;
	const char *where;
};

/* reducer_lay_fn: S's boxes of whole rows, its buffers (a band's, with
 * S->blocks.bands) counted into a copy of the trial's cost. */
static int lay_bands(struct plan_step *s, void *ctx, struct err *e)
{
	const struct band_trial *t = ctx;
	const struct array *x = s->in[0];
	struct dist_cost c = t->c;
	struct hold h;
	hold_count(&h, &c);
	each_buffer(s, t->nranks, NULL, &h);
	return dist_layout_make(x->shape.ndim, x->shape.dim, stage_chunks(x), &c, 0, t->nranks, t->where, e,
				&s->blocks.split);
}

int reduce_layout(struct plan_step *s, int nranks, int64_t memory, const char *where,
		  struct err *e)
{
	const struct array *x = s->in[0];
	const struct shape *X = &x->shape;
	enum dtype t = s->loop->types[0];
	int64_t size = dtype_size(t), xsize = dtype_size(x->dtype);
	struct dist_cost c = { .memory = memory, .widest = xsize > size ? xsize : size };
	struct hold h;
	hold_count(&h, &c);
	int m = 0;   /* kept leading axes */
	while (m < X->ndim && !s->fold.reduced[m])
		m++;
	s->blocks.bands = false;
	if (chain_group(s, m)) {
		s->fold.mode = REDUCE_CHAIN;
		s->fold.kept_lead = m;
		c.unit = 1;
		c.twin = chain_head_bytes(s, nranks);
		/* one process: boxes of a chunk row folded by bands where the
		 * budget holds them so, else as usual */
		struct band_trial trial = { .c = c, .nranks = nranks, .where = where };
		if (nranks == 1 && read_chunked(s, memory) && reducer_band_bytes(&s, 1, x) > 0 &&
		    reducer_try_bands(s, x, lay_bands, &trial))
			return 0;
		each_buffer(s, nranks, NULL, &h);
		return dist_layout_make(X->ndim, X->dim, stage_chunks(x), &c, H5U_MAXDIM, nranks, where, e,
					&s->blocks.split);
	}
	/* a sequential fold: NumPy's order along the reduced axes, in C order;
	 * a last-axis run is folded in loop calls of NumPy's pieces from its
	 * start (iter_fold), which a reorderable ufunc's loop may fold its own
	 * way (add sums each pairwise) and a float16 one folds in float32, so
	 * such a run is cut only between pieces, the running value carried
	 * from one box to the next as from one call to the next */
	s->fold.mode = REDUCE_STREAM;
	bool pieces = ufunc_reorderable(s->uf) || t == DT_FLOAT16 || s->loop->types[1] == DT_FLOAT16;
	unsigned how = DIST_CHUNK_BOXES | (pieces ? DIST_PIECES_LAST : 0) |
		       (may_share(s) ? DIST_MAY_SHARE : 0);
	each_buffer(s, nranks, NULL, &h);
	return dist_stream_make(X->ndim, X->dim, s->fold.reduced, stage_chunks(x), &c, how, nranks, where, e,
				&s->blocks.stream);
}

int reduce_run(struct plan_step *s, struct err *e)
{
	switch (s->fold.mode) {
	case REDUCE_CHAIN: return reduce_chain(s, e);
	default: return reduce_stream(s, e);
	}
}

