/* reduce.c - np.UFUNC.reduce; see reduce.h.
 *
 * Two ways through the data, chosen by reduce_layout from the shape alone:
 * a *stream* (REDUCE_STREAM: the kept axes dealt in boxes, the reduced
 * axes walked in C order with the accumulators carried, as NumPy folds)
 * and a *tree* (REDUCE_TREE: fixed pieces folded as NumPy folds them, then
 * a fixed binary tree over the pieces).  The folds themselves and the
 * tree's stack are reducer.h's.  In order below: reading a box
 * (read_input); the tree's layout arithmetic; the two drivers
 * (reduce_tree, reduce_stream); the layout.
 */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "dist.h"
#include "iter.h"
#include "reduce.h"
#include "reducer.h"
#include "stage.h"
#include "where.h"

#define TREE_PIECE 1024          /* elements a fixed piece of a tree reduction holds
				    (at least one line of its axis) ... */
#define GROUP_PIECE 32768        /* ... with kept leading axes: a row up to this
				    wide is folded whole, as NumPy folds it */

static int64_t ceil_log2(int64_t n)
{
	int64_t k = 0;
	while (((int64_t)1 << k) < n)
		k++;
	return k;
}

/* Read the box START/COUNT of S's input as T into DATA (RAW: scratch in
 * its own dtype), with the elements where= skips (M, when S has it) made
 * the value that folds as nothing, and in masked mode the missing ones
 * the value numpy.ma fills them with; a skip_fold reduction leaves them.
 * VALID (one byte per element, for a masked or skip_fold S, else NULL):
 * which elements are valid and where= takes.  Collective. */
static void read_input(const struct plan_step *s, enum dtype t, const int64_t *start,
		       const int64_t *count, char *raw, char *data, uint8_t *valid,
		       struct where_mask *m, struct err *e)
{
	const struct array *x = s->in[0];
	int64_t n = stage_box_size(x->shape.ndim, count);
	stage_read(x, t, start, count, raw, data, s->where, e);
	const char *stored = x->dtype != t ? raw : data;   /* the values in X's dtype */
	if (s->masked && !e->status && s->skip_fold)
		cf_valid(x->dtype, s->in_missing, s->mask_nan, stored, n, valid);
	else if (s->masked && !e->status)
		where_skip_missing(s, t, n, stored, data, valid);
	else if (s->skip_fold)
		memset(valid, 1, (size_t)n);
	if (!m)
		return;
	const uint8_t *mask = where_mask_read(m, &x->shape, start, count, s->where, e);
	for (int64_t i = 0; mask && valid && !e->status && i < n; i++)
		valid[i] &= mask[i];
	if (mask && !e->status && !s->skip_fold)
		where_select(t, n, data, mask, (const char *)s->skip_value, 0);
}

/* Output elements of one group of a REDUCE_TREE reduction. */
static int64_t tree_group_size(const struct plan_step *s)
{
	return reducer_extent(&s->in[0]->shape, s->reduced, s->kept_lead, false);
}

/* Partial results a rank of a REDUCE_TREE reduction may hold at once: a
 * stack of a group begun by another rank (2L + 2 for groups of 2**L
 * pieces) and, with kept leading axes, a stack of the group it leaves to
 * the next rank (L + 1); rank 0 holds its own last group and the one it
 * assembles. */
static int64_t tree_slots(const struct plan_step *s)
{
	const struct shape *X = &s->in[0]->shape;
	int64_t groups = 1;
	for (int i = 0; i < s->kept_lead; i++)
		groups *= X->dim[i];
	int64_t L = ceil_log2((groups ? reducer_pieces(s) / groups : 0) + 1);
	return s->kept_lead > 0 ? 3 * L + 4 : 2 * L + 3;
}

int64_t reduce_fixed_bytes(const struct plan_step *s)
{
	if (s->mode != REDUCE_TREE)
		return 0;
	return (tree_slots(s) + 2) * tree_group_size(s) * (dtype_size(s->loop->types[0]) + s->masked);
}

/* The space of S's pieces: X's axes before the piece axis, then its pieces
 * along it. */
static int piece_space(const struct plan_step *s, int64_t *dim)
{
	const struct shape *X = &s->in[0]->shape;
	int p = s->piece_axis;
	for (int i = 0; i < p; i++)
		dim[i] = X->dim[i];
	dim[p] = (X->dim[p] + s->piece_lines - 1) / s->piece_lines;
	return p + 1;
}

/* The chunk grid CHUNK of S's input over its space of pieces, in OUT; NULL
 * when chunk edges along the piece axis are not piece edges (or there is
 * no CHUNK). */
static const int64_t *piece_chunks(const struct plan_step *s, const int64_t *chunk, int64_t *out)
{
	int p = s->piece_axis;
	int64_t g = s->piece_lines;
	if (!chunk || chunk[p] < 1 || g < 1)
		return NULL;
	for (int i = 0; i < p; i++)
		out[i] = chunk[i];
	if (chunk[p] % g == 0)
		out[p] = chunk[p] / g;
	else if (g % chunk[p] == 0)
		out[p] = 1;
	else
		return NULL;
	return out;
}

/* REDUCE_TREE on its own: boxes of whole pieces, each piece folded into
 * the tree at its global index. */
static int reduce_tree(struct plan_step *s, struct err *e)
{
	struct array *x = s->in[0];
	enum dtype t = s->loop->types[1];   /* the input is read as the loop's second operand */
	const struct shape *X = &x->shape;
	const struct dist_layout *l = &s->split;
	int p = s->piece_axis, n = X->ndim;
	int64_t line = 1;
	for (int i = p + 1; i < n; i++)
		line *= X->dim[i];
	int64_t most = l->lines_per_box * l->line * s->piece_lines * line;
	char *raw = stage_scratch(x, t) ? stage_alloc((size_t)(most * stage_scratch(x, t))) : NULL;
	char *data = stage_alloc((size_t)(most * dtype_size(t)));
	struct reducer *r = reducer_new(s, l->lines_per_box, l->line * s->piece_lines * line);
	struct where_mask *m = s->where_arr ? where_mask_new(s->where_arr, most) : NULL;
	uint8_t *valid = s->masked ? stage_alloc((size_t)(most > 0 ? most : 1)) : NULL;
	struct dist_walk w;
	dist_walk_start(l, comm_rank(), &w);
	for (int64_t b = 0; b < l->nboxes; b++) {
		int64_t ps[H5U_MAXDIM], pc[H5U_MAXDIM], start[H5U_MAXDIM], cnt[H5U_MAXDIM];
		bool any = dist_walk_next(&w, ps, pc);
		for (int i = 0; i < n; i++) {
			if (i < p) {
				start[i] = ps[i];
				cnt[i] = pc[i];
			} else if (i == p) {
				int64_t end = (ps[p] + pc[p]) * s->piece_lines;
				start[i] = ps[p] * s->piece_lines;
				cnt[i] = (end < X->dim[p] ? end : X->dim[p]) - start[i];
			} else {
				start[i] = 0;
				cnt[i] = X->dim[i];
			}
		}
		if (!any)
			for (int i = 0; i < n; i++)
				cnt[i] = 0;
		read_input(s, t, start, cnt, raw, data, valid, m, e);
		if (any && !e->status) {
			reducer_box(r, data, valid, start, cnt);
			reducer_check_fault(s, e);
		}
		if (comm_agree(e) < 0)
			break;
		if (s->kept_lead > 0 && (reducer_write_box(r, start, cnt, e) < 0 || comm_agree(e) < 0))
			break;
	}
	if (!e->status)
		reducer_finish(r, e);
	reducer_free(r);
	where_mask_free(m);
	free(valid);
	free(raw);
	free(data);
	return comm_agree(e);
}

/* REDUCE_STREAM on its own: each rank takes its boxes across the kept axes
 * (s->stream) and, box by box along the reduced axes in C order, folds the
 * elements into their accumulators, then writes them: every result is the
 * fold NumPy makes, in its order, whatever the ranks and the budget.  A
 * shared stream's ranks each fold their run along into partial results,
 * from the start NumPy's fold has (rank 0) or from where the tree's later
 * pieces start (the others), combined in rank order by an MPI reduction
 * onto rank 0 (reducer_combine_ranks: log P steps), which writes them. */
static int reduce_stream(struct plan_step *s, struct err *e)
{
	struct array *x = s->in[0], *y = s->out[0];
	enum dtype t = s->loop->types[0], dt = s->loop->types[1];
	int size = dtype_size(t);
	const struct dist_stream *st = &s->stream;
	int n = st->ndim;
	int64_t kmax = st->across.lines_per_box * st->across.line;
	size_t box = (size_t)(kmax * dist_stream_along_elems(st));
	char *raw = stage_scratch(x, dt) ? stage_alloc((box ? box : 1) * (size_t)stage_scratch(x, dt)) : NULL;
	char *data = stage_alloc((box ? box : 1) * (size_t)dtype_size(dt));
	char *acc = stage_alloc((size_t)((kmax > 0 ? kmax : 1) * size));
	char *conv = stage_scratch(y, t) ? stage_alloc((size_t)((kmax > 0 ? kmax : 1) * stage_scratch(y, t))) : NULL;
	struct where_mask *m = s->where_arr ? where_mask_new(s->where_arr, (int64_t)box) : NULL;
	uint8_t *valid = s->masked || s->skip_fold ? stage_alloc(box ? box : 1) : NULL;
	uint8_t *accv = valid ? stage_alloc((size_t)(kmax > 0 ? kmax : 1)) : NULL;
	/* where this rank's fold starts: NumPy's start, or a later piece's */
	int64_t first = 0, mine = 1;
	if (st->shared)
		dist_layout_share(&st->along, comm_rank(), &first, &mine);
	enum fold_init init = first == 0 ? s->init : s->rest_init;
	const unsigned char *init_value = first == 0 ? s->init_value : s->rest_value;
	struct dist_walk w;
	dist_stream_across_start(st, comm_rank(), &w);
	for (int64_t b = 0; b < st->across.nboxes; b++) {
		int64_t qo[H5U_MAXDIM], qc[H5U_MAXDIM], start[H5U_MAXDIM], cnt[H5U_MAXDIM];
		bool any = dist_walk_next(&w, qo, qc) && mine > 0;
		int64_t nq = stage_box_size(st->across.ndim, qc);
		if (any && init == FOLD_VALUE)
			iter_fill(size, acc, init_value, nq);
		if (any && accv)   /* nothing taken yet */
			memset(accv, 0, (size_t)nq);
		struct dist_walk along;
		dist_stream_along_start(st, comm_rank(), &along);
		for (int64_t j = 0; j < st->along.nboxes; j++) {
			int64_t ro[H5U_MAXDIM + 1], rc[H5U_MAXDIM + 1];
			bool some = dist_walk_next(&along, ro, rc) && any;
			dist_stream_box(st, qo, qc, ro, rc, start, cnt);
			if (!some)
				memset(cnt, 0, sizeof cnt);
			read_input(s, dt, start, cnt, raw, data, valid, m, e);
			if (some && !e->status) {
				ptrdiff_t ast[H5U_MAXDIM];
				reducer_acc_strides(n, cnt, s->reduced, size, ast);
				reducer_fold(s, init, data, n, cnt, acc, ast, j == 0, valid, accv);
				reducer_check_fault(s, e);
			}
			if (comm_agree(e) < 0)
				goto out;
		}
		if (st->shared) {   /* rank 0 holds the results, and writes them */
			reducer_combine_ranks(s, acc, accv, nq, e);
			if (comm_agree(e) < 0)
				goto out;
			any = any && comm_rank() == 0;
		}
		int64_t ostart[H5U_MAXDIM] = {0}, ocnt[H5U_MAXDIM] = {0};
		for (int i = 0, a = 0, k = 0; i < n && y->shape.ndim > 0; i++) {
			if (s->reduced[i] && !s->keepdims)
				continue;
			ostart[k] = s->reduced[i] || !any ? 0 : qo[a];
			ocnt[k++] = !any ? 0 : s->reduced[i] ? 1 : qc[a];
			a += !s->reduced[i];
		}
		if (y->shape.ndim == 0)
			ocnt[0] = any;
		reducer_write_result(s, ostart, ocnt, acc, accv, conv, e);
		if (comm_agree(e) < 0)
			goto out;
	}
out:
	where_mask_free(m);
	free(valid);
	free(accv);
	free(raw);
	free(data);
	free(acc);
	free(conv);
	return comm_agree(e);
}

/* ---- layout ------------------------------------------------------------- */

/* May S's stream be shared (dist.h): does its loop fold exactly in any
 * grouping that keeps the order (ufunc_fold_exact), and does every
 * element it leaves out fold as a value (not skip_fold)? */
static bool may_share(const struct plan_step *s)
{
	return ufunc_fold_exact(s->uf, s->loop->types[0]) && !s->skip_fold;
}

int reduce_layout(struct plan_step *s, int nranks, int64_t memory, const char *where,
		  struct err *e)
{
	const struct array *x = s->in[0];
	const struct shape *X = &x->shape;
	enum dtype t = s->loop->types[0];
	int64_t size = dtype_size(t), xsize = dtype_size(x->dtype);
	int64_t in_elem = size + stage_scratch(x, t) + (s->masked || s->skip_fold ? 1 : 0) +
			  (s->where_arr ? where_mask_element_bytes(s->where_arr) : 0);
	int64_t out_elem = size + stage_scratch(s->out[0], t) + (s->masked || s->skip_fold ? 1 : 0);
	int m = 0;   /* kept leading axes */
	while (m < X->ndim && !s->reduced[m])
		m++;
	if (X->ndim > 0 && m < X->ndim && (m + 1 == X->ndim || s->reduced[m + 1]) &&
	    ufunc_reorderable(s->uf) && (m == 0 || reducer_extent(X, s->reduced, m, true) > 0)) {
		s->mode = REDUCE_TREE;
		s->kept_lead = m;
		/* the piece axis: the first from axis m whose line fits a piece,
		 * but no later than the last reduced axis after it, so that every
		 * piece covers its group's whole output; all from the shape alone */
		int p = m;
		int64_t line = reducer_extent(X, s->reduced, m + 1, true), most = m ? GROUP_PIECE : TREE_PIECE;
		while (p + 1 < X->ndim && s->reduced[p + 1] && line > most) {
			p++;
			line /= X->dim[p] ? X->dim[p] : 1;
		}
		if (X->dim[p] == 0 || line == 0)
			p = m, line = reducer_extent(X, s->reduced, m + 1, true);
		s->piece_axis = p;
		s->piece_lines = line >= most ? 1 : most / (line ? line : 1);
		if (s->piece_lines > X->dim[p] && X->dim[p] > 0)
			s->piece_lines = X->dim[p];
		int64_t pieces = reducer_pieces(s), piece = s->piece_lines * line;
		int64_t osize = tree_group_size(s);
		if (2 * ceil_log2(pieces + 1) + 3 > REDUCER_MAX_DEPTH)
			return err_set(e, EXIT_USAGE, where, "too many rows to reduce");
		int64_t dim[H5U_MAXDIM];
		int pdim = piece_space(s, dim);
		int64_t fixed = tree_slots(s) * osize * (size + s->masked) + 2 * osize * out_elem;
		int64_t pchunk[H5U_MAXDIM];
		return dist_layout_units(pdim, dim, piece_chunks(s, stage_chunks(x), pchunk), piece,
					 memory, fixed, piece * in_elem + osize * out_elem,
					 piece * (xsize > size ? xsize : size), nranks, where, e,
					 &s->split);
	}
	/* a sequential fold: NumPy's order along the reduced axes, in C order;
	 * a last-axis run is one loop call that a reorderable ufunc's loop may
	 * fold its own way (add sums pairwise) and a float16 one folds in
	 * float32, so such a run is never cut */
	s->mode = REDUCE_STREAM;
	bool whole_last = ufunc_reorderable(s->uf) || t == DT_FLOAT16 || s->loop->types[1] == DT_FLOAT16;
	return dist_stream_make(X->ndim, X->dim, s->reduced, stage_chunks(x), memory, in_elem,
				out_elem, xsize > size ? xsize : size, whole_last, may_share(s),
				nranks, where, e, &s->stream);
}

int reduce_run(struct plan_step *s, struct err *e)
{
	switch (s->mode) {
	case REDUCE_TREE: return reduce_tree(s, e);
	default: return reduce_stream(s, e);
	}
}

