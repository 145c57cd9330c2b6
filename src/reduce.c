/* reduce.c - np.UFUNC.reduce; see reduce.h.
 *
 * Two ways through the data, chosen by reduce_layout from the shape alone:
 * a *stream* (REDUCE_ROWS, REDUCE_COLUMNS: the kept axes dealt in boxes,
 * the reduced axes walked in C order with the accumulators carried, as
 * NumPy folds) and a *tree* (REDUCE_TREE: fixed pieces folded as NumPy
 * folds them, then a fixed binary tree over the pieces).  In order below:
 * the folds of one box (fold, with fold_taken / fold_valid for where= and
 * masks; combine), the per-box hooks (read_input, write_result); the
 * reducer, which fused elementwise passes feed too (its tree stack:
 * tree_*); the two drivers (reduce_tree, reduce_stream); the layout.
 */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "dist.h"
#include "iter.h"
#include "reduce.h"
#include "stage.h"
#include "where.h"

#define TREE_PIECE 1024          /* elements a fixed piece of a tree reduction holds
				    (at least one line of its axis) ... */
#define GROUP_PIECE 32768        /* ... with kept leading axes: a row up to this
				    wide is folded whole, as NumPy folds it */
#define MAX_DEPTH 130            /* pieces a rank's tree stack can hold */

static int64_t ceil_log2(int64_t n)
{
	int64_t k = 0;
	while (((int64_t)1 << k) < n)
		k++;
	return k;
}

/* Strides of an accumulator over the index space DIMS: 0 along reduced
 * axes, C-contiguous over the others. */
static void acc_strides(int ndim, const int64_t *dims, const bool *reduced, int size,
			ptrdiff_t *st)
{
	ptrdiff_t s = size;
	for (int i = ndim - 1; i >= 0; i--) {
		st[i] = reduced[i] ? 0 : s;
		if (!reduced[i])
			s *= dims[i];
	}
}

/* The fold of a skip_fold reduction: the elements of DATA that TAKE says
 * (one byte each, laid out as DATA) fold into ACC in order, each copied in
 * where nothing was taken before it (ACCV, one byte per accumulator, 0)
 * unless the fold started from a value; ACCV says which took any. */
static void fold_taken(const struct plan_step *s, const char *data, int ndim, const int64_t *dims,
		       char *acc, const ptrdiff_t *ast, const uint8_t *take, uint8_t *accv)
{
	enum dtype at = s->loop->types[0], dt = s->loop->types[1];
	ptrdiff_t asize = dtype_size(at), dsize = dtype_size(dt), steps[3] = { 0, 0, 0 };
	int64_t idx[H5U_MAXDIM] = {0}, n = 1;
	for (int i = 0; i < ndim; i++)
		n *= dims[i];
	ptrdiff_t off = 0;   /* of the accumulator of element i, in bytes */
	for (int64_t i = 0; i < n; i++) {
		if (take[i]) {
			char *a = acc + off, *x = (char *)data + i * dsize, *args[3] = { a, x, a };
			if (accv[off / asize] || s->init == FOLD_VALUE)
				s->loop->fn(args, 1, steps);
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
 * values (a masked reduce's one pass; START: ACCV begins at none). */
static void fold_valid(const struct plan_step *s, const uint8_t *valid, int ndim,
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
		n *= s->reduced[i] ? 1 : dims[i];
		st[0][i] = st[2][i] = ast[i] / dtype_size(s->loop->types[0]);
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
static void fold(const struct plan_step *s, enum fold_init init, char *data, int ndim,
		 const int64_t *dims, char *acc, const ptrdiff_t *ast, bool start,
		 const uint8_t *valid, uint8_t *accv)
{
	if (s->skip_fold) {
		fold_taken(s, data, ndim, dims, acc, ast, valid, accv);
		return;
	}
	if (accv)
		fold_valid(s, valid, ndim, dims, accv, ast, start);
	enum dtype at = s->loop->types[0], dt = s->loop->types[1];
	iter_strides st[3];
	iter_contiguous(ndim, dims, dims, dtype_size(dt), st[1]);
	int64_t d[H5U_MAXDIM];
	memcpy(d, dims, sizeof(int64_t) * (size_t)ndim);
	char *src = data;
	if (start && init != FOLD_VALUE) {
		int64_t first[H5U_MAXDIM];
		for (int i = 0; i < ndim; i++)
			first[i] = s->reduced[i] && dims[i] ? 1 : dims[i];
		iter_cast(dt, data, st[1], at, acc, ast, ndim, first);
		if (init == FOLD_FIRST_SKIP) {
			bool skipped = false;
			for (int i = 0; i < ndim; i++)
				if (s->reduced[i] && d[i] > 0) {
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

/* LEFT = LEFT op RIGHT over N elements. */
static void combine(const struct plan_step *s, char *left, char *right, int64_t n)
{
	ptrdiff_t size = dtype_size(s->loop->types[0]);
	ptrdiff_t steps[3] = { size, size, size };
	char *args[3] = { left, right, left };
	if (n > 0)
		s->loop->fn(args, (size_t)n, steps);
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
	const char *stored = x->dtype != t ? raw : data;   /* the values as stored */
	if (s->masked && !e->status && s->skip_fold)
		where_valid(x->dtype, s->in_missing, s->mask_nan, stored, n, valid);
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

/* Write the results ACC (the loop's dtype) into the box START/COUNT of S's
 * output, through CONV.  A masked reduce writes those with no valid
 * element (ACCV 0) as the output's fill value, counted as masked, and
 * ACCV to MASK_OUT when it prints.  Collective. */
static int write_result(const struct plan_step *s, const int64_t *start, const int64_t *count,
			char *acc, uint8_t *accv, char *conv, struct err *e)
{
	struct array *y = s->out[0];
	enum dtype t = s->loop->types[0];
	if (s->masked) {
		where_mask_results(s, t, stage_box_size(y->shape.ndim, count), acc, accv);
		if (s->mask_out &&
		    stage_write(s->mask_out, DT_BOOL, start, count, (char *)accv, NULL, s->where, e) < 0)
			return -1;
	}
	return stage_write(y, t, start, count, acc, conv, s->where, e);
}

static void check_fault(const struct plan_step *s, struct err *e)
{
	enum ufunc_fault f = ufunc_take_error();
	if (f != UFERR_NONE)
		err_set(e, EXIT_RUN, s->where, "%s", ufunc_fault_message(f));
}

/* Product of X's extents from axis FROM on, counting reduced axes as 1 when
 * KEEP_REDUCED is false. */
static int64_t extent(const struct shape *x, const bool *reduced, int from, bool keep_reduced)
{
	int64_t n = 1;
	for (int i = from; i < x->ndim; i++)
		if (keep_reduced || !reduced[i])
			n *= x->dim[i];
	return n;
}

/* ---- the reducer: rows or pieces in, results out ---------------------- */

/* A / B, 0 when B is 0. */
static int64_t r_div(int64_t a, int64_t b)
{
	return b > 0 ? a / b : 0;
}

static int64_t reduce_pieces(const struct plan_step *s);

/* A partial result over the pieces [pos, pos + 2**level) of one group. */
struct piece {
	int64_t pos;
	int64_t level;
	char *data;     /* owned by the stack slot */
};

/* A group's pieces folded so far: siblings of the fixed tree merge as soon
 * as both are there, so the stack is the tree's cut at the last piece. */
struct stack {
	int64_t group;           /* -1: none */
	bool whole;              /* began at the group's first piece */
	int depth;
	struct piece p[MAX_DEPTH];
};

/* A reduction fed box by box: by reduce_run for REDUCE_TREE (boxes of
 * pieces), or by a fused elementwise stage (exec.c) with boxes of whole
 * rows (REDUCE_ROWS) or whole pieces (REDUCE_TREE).  A tree reduction's
 * groups are the indices of its kept leading axes (one group when there
 * are none); a group folded whole by one rank lands in ACC, a group split
 * between ranks is held until reducer_finish. */
struct reducer {
	struct plan_step *s;
	int size;                /* of the loop's dtype */
	int64_t rowsize;         /* input elements per row */
	int64_t orow;            /* REDUCE_ROWS: output elements per row */
	int64_t osize;           /* REDUCE_TREE: output elements of a group */
	char *acc, *conv;        /* results of a box's rows, or of its groups */
	uint8_t *accv;           /* masked, skip_fold: which results have a valid
				    element (took one) */
	const uint8_t *take;     /* ... and which elements of the rows are valid */
	int64_t vbytes;          /* REDUCE_TREE: the values of a group's partial
				    result, and with the validity of each ... */
	int64_t slot;            /* ... (masked) a partial's bytes */
	int64_t ppg;             /* REDUCE_TREE: pieces in a group */
	int64_t out_first, nout; /* the groups in ACC */
	struct stack cur, held[2];
	int nheld;
};

/* A reducer whose results hold OUT elements. */
static struct reducer *reducer_make(struct plan_step *s, int64_t out)
{
	struct reducer *r = stage_alloc(sizeof *r);
	memset(r, 0, sizeof *r);
	const struct array *x = s->in[0], *y = s->out[0];
	const struct shape *X = &x->shape;
	enum dtype t = s->loop->types[0];
	r->s = s;
	r->size = dtype_size(t);
	r->rowsize = shape_row_size(X);
	r->orow = extent(X, s->reduced, 1, false);
	r->cur.group = r->held[0].group = r->held[1].group = -1;
	if (s->mode == REDUCE_TREE) {
		int64_t groups = 1;
		for (int i = 0; i < s->kept_lead; i++)
			groups *= X->dim[i];
		r->osize = extent(X, s->reduced, s->kept_lead, false);
		r->ppg = groups ? reduce_pieces(s) / groups : 0;
	}
	bool valid = s->masked || s->skip_fold;
	r->vbytes = r->osize * r->size;
	r->slot = r->vbytes + (valid ? r->osize : 0);
	r->acc = stage_alloc((size_t)((out > 0 ? out : 1) * (r->size + valid)));
	if (valid)
		r->accv = stage_alloc((size_t)(out > 0 ? out : 1));
	if (y->dtype != t)
		r->conv = stage_alloc((size_t)((out > 0 ? out : 1) * dtype_size(y->dtype)));
	return r;
}

struct reducer *reducer_new(struct plan_step *s, int64_t box_elems)
{
	const struct shape *X = &s->in[0]->shape;
	if (s->mode != REDUCE_TREE) {   /* whole rows; a box of empty rows may hold all */
		int64_t row = shape_row_size(X);
		int64_t rows = row > 0 ? r_div(box_elems, row) : X->ndim ? X->dim[0] : 1;
		return reducer_make(s, (rows > 0 ? rows : 1) * extent(X, s->reduced, 1, false));
	}
	if (s->kept_lead == 0)
		return reducer_make(s, extent(X, s->reduced, 0, false));
	/* the groups a box ends: at most as many as it holds, and two it cuts */
	int64_t groups = r_div(box_elems, extent(X, s->reduced, s->kept_lead, true)) + 2;
	return reducer_make(s, groups * extent(X, s->reduced, s->kept_lead, false));
}

int reducer_max_axis(const struct plan_step *s)
{
	if (s->mode == REDUCE_ROWS)
		return 0;
	if (s->mode == REDUCE_TREE)
		return s->piece_lines == 1 ? s->piece_axis : s->piece_axis - 1;
	return -1;
}

void reducer_free(struct reducer *r)
{
	if (!r)
		return;
	struct stack *st[3] = { &r->cur, &r->held[0], &r->held[1] };
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < MAX_DEPTH; i++)
			free(st[k]->p[i].data);
	free(r->acc);
	free(r->accv);
	free(r->conv);
	free(r);
}

/* LEFT = LEFT op RIGHT for two partial results of a group, values and
 * (masked) validity. */
static void tree_combine(struct reducer *r, char *left, const char *right)
{
	combine(r->s, left, (char *)right, r->osize);
	for (int64_t i = r->vbytes; i < r->slot; i++)
		left[i] |= right[i];
}

/* Merge the top two pieces of ST while they are siblings in the tree. */
static void tree_settle(struct reducer *r, struct stack *st)
{
	while (st->depth >= 2) {
		struct piece *l = &st->p[st->depth - 2], *rt = &st->p[st->depth - 1];
		if (l->level != rt->level || l->pos + ((int64_t)1 << l->level) != rt->pos ||
		    ((l->pos >> l->level) & 1))
			return;
		tree_combine(r, l->data, rt->data);
		l->level++;
		st->depth--;
	}
}

/* The next free slot of ST, for a partial of POS. */
static char *tree_slot(struct reducer *r, struct stack *st)
{
	struct piece *p = &st->p[st->depth];
	if (!p->data)
		p->data = stage_alloc((size_t)(r->slot > 0 ? r->slot : 1));
	return p->data;
}

static void tree_push(struct reducer *r, struct stack *st, int64_t pos, int64_t level)
{
	st->p[st->depth].pos = pos;
	st->p[st->depth].level = level;
	st->depth++;
	tree_settle(r, st);
}

/* Combine what ST holds, left to right, into OUT; an empty stack gives the
 * starting value. */
static void tree_collapse(struct reducer *r, struct stack *st, char *out)
{
	if (st->depth == 0) {
		iter_fill(r->size, out, r->s->init_value, r->osize);
		memset(out + r->vbytes, 0, (size_t)(r->slot - r->vbytes));
		return;
	}
	memcpy(out, st->p[0].data, (size_t)r->slot);
	for (int i = 1; i < st->depth; i++)
		tree_combine(r, out, st->p[i].data);
}

/* The current group has had its last piece here: a group folded whole goes
 * to ACC, one begun by another rank is held for reducer_finish. */
static void tree_close(struct reducer *r)
{
	struct stack *c = &r->cur;
	if (c->whole && r->s->kept_lead > 0) {
		if (r->nout == 0)
			r->out_first = c->group;
		tree_collapse(r, c, r->acc + (size_t)((c->group - r->out_first) * r->slot));
		r->nout++;
		c->depth = 0;
	} else {
		struct stack t = r->held[r->nheld];
		r->held[r->nheld++] = *c;
		*c = t;
		c->depth = 0;
	}
	c->group = -1;
}

/* Fold the NQ pieces of the tree from piece Q, which lie one after the
 * other in DATA (the loop's second dtype). */
static void tree_pieces(struct reducer *r, char *data, int64_t q, int64_t nq)
{
	const struct plan_step *s = r->s;
	const struct shape *X = &s->in[0]->shape;
	int ndim = X->ndim, p = s->piece_axis;
	int64_t G = s->piece_lines, per = (X->dim[p] + G - 1) / G;
	int64_t dims[H5U_MAXDIM];
	ptrdiff_t ast[H5U_MAXDIM];
	size_t esize = (size_t)dtype_size(s->loop->types[1]);
	const uint8_t *valid = r->take;
	for (int i = 0; i < ndim; i++)
		dims[i] = i < p ? 1 : X->dim[i];
	int64_t line = 1;
	for (int i = p + 1; i < ndim; i++)
		line *= X->dim[i];
	for (int64_t end = q + nq; q < end; q++) {
		int64_t j = q % per, g = q / r->ppg, t = q % r->ppg;
		if (r->cur.group != g) {
			r->cur.group = g;
			r->cur.whole = t == 0;
		}
		dims[p] = (j + 1) * G < X->dim[p] ? G : X->dim[p] - j * G;
		char *acc = tree_slot(r, &r->cur);
		enum fold_init init = t == 0 ? s->init : s->rest_init;
		if (init == FOLD_VALUE)
			iter_fill(r->size, acc, t == 0 ? s->init_value : s->rest_value, r->osize);
		acc_strides(ndim, dims, s->reduced, r->size, ast);
		fold(s, init, data, ndim, dims, acc, ast, true, valid,
		     valid ? (uint8_t *)acc + r->vbytes : NULL);
		data += (size_t)(dims[p] * line) * esize;
		valid = valid ? valid + dims[p] * line : NULL;
		tree_push(r, &r->cur, t, 0);
		if (t == r->ppg - 1)
			tree_close(r);
	}
}

void reducer_box(struct reducer *r, char *data, const int64_t *start, const int64_t *count)
{
	const struct plan_step *s = r->s;
	const struct shape *X = &s->in[0]->shape;
	int ndim = X->ndim ? X->ndim : 1;
	int64_t dims[H5U_MAXDIM];
	for (int i = 0; i < ndim; i++)
		dims[i] = X->ndim ? X->dim[i] : 1;
	ptrdiff_t ast[H5U_MAXDIM];
	if (s->mode == REDUCE_ROWS) {
		dims[0] = count[0];
		acc_strides(ndim, dims, s->reduced, r->size, ast);
		if (s->init == FOLD_VALUE)
			iter_fill(r->size, r->acc, s->init_value, count[0] * r->orow);
		if (r->accv)
			memset(r->accv, 0, (size_t)(count[0] * r->orow));
		fold(s, s->init, data, ndim, dims, r->acc, ast, true, r->take, r->accv);
		return;
	}
	/* REDUCE_TREE: whole pieces, in C order over the space of pieces */
	int p = s->piece_axis;
	int64_t G = s->piece_lines, q = 0, nq = 1;
	for (int i = 0; i < p; i++) {
		q = q * X->dim[i] + start[i];
		nq *= count[i];
	}
	q = q * ((X->dim[p] + G - 1) / G) + start[p] / G;
	nq *= (count[p] + G - 1) / G;
	r->nout = 0;
	tree_pieces(r, data, q, nq);
}

/* Output start and count of the groups [G0, G0 + N) of S, a hyperslab of
 * its kept leading axes; every count 0 when N is 0. */
static void group_box(const struct plan_step *s, int64_t g0, int64_t n, int64_t *ostart,
		      int64_t *ocnt)
{
	const struct shape *X = &s->in[0]->shape, *Y = &s->out[0]->shape;
	if (n == 0) {
		for (int i = 0; i < Y->ndim; i++)
			ostart[i] = ocnt[i] = 0;
		return;
	}
	int m = s->kept_lead, j = 0;
	int64_t inner = 1;
	int full = m;   /* axes from here on are whole */
	while (full > 0 && n % (inner * X->dim[full - 1]) == 0 && g0 % (inner * X->dim[full - 1]) == 0)
		inner *= X->dim[--full];
	int64_t at = g0 / inner, c = n / inner;
	for (int i = m - 1; i >= 0; i--) {
		if (i >= full) {
			ostart[i] = 0;
			ocnt[i] = X->dim[i];
		} else {
			ostart[i] = at % X->dim[i];
			ocnt[i] = i == full - 1 ? c : 1;
			at /= X->dim[i];
		}
	}
	j = m;
	for (int i = m; i < X->ndim; i++) {
		if (s->reduced[i] && !s->keepdims)
			continue;
		ostart[j] = 0;
		ocnt[j] = s->reduced[i] ? 1 : X->dim[i];
		j++;
	}
}

/* The NOUT partial results in ACC (slots) as results: their values one
 * after the other in ACC, their validity in ACCV. */
static void tree_unpack(struct reducer *r)
{
	if (r->slot == r->vbytes)
		return;
	for (int64_t g = 0; g < r->nout; g++)
		memcpy(r->accv + g * r->osize, r->acc + g * r->slot + r->vbytes, (size_t)r->osize);
	for (int64_t g = 1; g < r->nout; g++)
		memmove(r->acc + g * r->vbytes, r->acc + g * r->slot, (size_t)r->vbytes);
}

/* Collective: write the groups in ACC (none: an empty selection). */
static int tree_write(struct reducer *r, struct err *e)
{
	tree_unpack(r);
	int64_t ostart[H5U_MAXDIM] = {0}, ocnt[H5U_MAXDIM] = {0};
	group_box(r->s, r->out_first, r->nout, ostart, ocnt);
	int rc = write_result(r->s, ostart, ocnt, r->acc, r->accv, r->conv, e);

	r->nout = 0;
	return rc;
}

int reducer_write_box(struct reducer *r, const int64_t *start, const int64_t *count, struct err *e)
{
	struct array *y = r->s->out[0];
	if (r->s->mode == REDUCE_TREE)
		return r->s->kept_lead > 0 ? tree_write(r, e) : 0;
	int64_t ostart[H5U_MAXDIM] = {0}, ocnt[H5U_MAXDIM];
	for (int i = 0; i < y->shape.ndim; i++)
		ocnt[i] = y->shape.dim[i];
	ostart[0] = y->shape.ndim ? start[0] : 0;
	ocnt[0] = count[0];
	return write_result(r->s, ostart, ocnt, r->acc, r->accv, r->conv, e);
}

int reducer_finish(struct reducer *r, struct err *e)
{
	struct plan_step *s = r->s;
	if (s->mode != REDUCE_TREE)
		return 0;
	if (r->cur.group >= 0 || (s->kept_lead == 0 && r->cur.depth > 0)) {
		r->cur.group = r->cur.group < 0 ? 0 : r->cur.group;
		r->cur.whole = false;   /* what this rank holds of a group the next one ends */
		tree_close(r);
	}
	size_t obytes = (size_t)r->slot;
	/* Rank 0 takes every rank's held groups, in rank (so index) order, and
	 * finishes each group's tree; then writes them one by one. */
	int64_t nf = 0;
	int64_t *groups = NULL;
	char *vals = NULL;
	if (comm_rank() != 0) {
		int64_t k = r->nheld;
		comm_send(&k, sizeof k, 0);
		for (int h = 0; h < r->nheld; h++) {
			int64_t head[2] = { r->held[h].group, r->held[h].depth };
			comm_send(head, sizeof head, 0);
			for (int i = 0; i < r->held[h].depth; i++) {
				int64_t at[2] = { r->held[h].p[i].pos, r->held[h].p[i].level };
				comm_send(at, sizeof at, 0);
				comm_send(r->held[h].p[i].data, obytes, 0);
			}
		}
	} else {
		int most = 2 * comm_size() + 1;
		groups = stage_alloc(sizeof *groups * (size_t)most);
		vals = stage_alloc(obytes * (size_t)most + 1);
		struct stack *c = &r->cur;
		c->group = -1;
		c->depth = 0;
		for (int rank = 0; rank < comm_size(); rank++) {
			int64_t k = r->nheld;
			if (rank > 0)
				comm_recv(&k, sizeof k, rank);
			for (int64_t h = 0; h < k; h++) {
				int64_t head[2];
				if (rank > 0) {
					comm_recv(head, sizeof head, rank);
				} else {
					head[0] = r->held[h].group;
					head[1] = r->held[h].depth;
				}
				if (head[0] != c->group && c->group >= 0) {
					groups[nf] = c->group;
					tree_collapse(r, c, vals + obytes * (size_t)nf++);
					c->depth = 0;
				}
				c->group = head[0];
				for (int64_t i = 0; i < head[1]; i++) {
					int64_t at[2];
					char *slot = tree_slot(r, c);
					if (rank > 0) {
						comm_recv(at, sizeof at, rank);
						comm_recv(slot, obytes, rank);
					} else {
						at[0] = r->held[h].p[i].pos;
						at[1] = r->held[h].p[i].level;
						memcpy(slot, r->held[h].p[i].data, obytes);
					}
					tree_push(r, c, at[0], at[1]);
				}
			}
		}
		if (c->group >= 0 || (s->kept_lead == 0 && nf == 0)) {
			groups[nf] = c->group < 0 ? 0 : c->group;
			tree_collapse(r, c, vals + obytes * (size_t)nf++);
		}
		check_fault(s, e);
	}
	comm_bcast(&nf, sizeof nf);
	if (comm_agree(e) < 0)
		goto out;
	for (int64_t i = 0; i < nf && !e->status; i++) {
		if (comm_rank() == 0) {
			memcpy(r->acc, vals + obytes * (size_t)i, obytes);
			r->out_first = groups[i];
			r->nout = 1;
		}
		if (s->kept_lead == 0) {
			int64_t ostart[H5U_MAXDIM] = {0}, ocnt[H5U_MAXDIM] = {0};
			struct array *y = s->out[0];
			for (int a = 0; a < y->shape.ndim; a++)
				ocnt[a] = r->nout ? y->shape.dim[a] : 0;
			if (y->shape.ndim == 0)
				ocnt[0] = r->nout;
			tree_unpack(r);
			write_result(s, ostart, ocnt, r->acc, r->accv, r->conv, e);
			r->nout = 0;
		} else {
			tree_write(r, e);
		}
		comm_agree(e);
	}
out:
	free(groups);
	free(vals);
	return comm_agree(e);
}

/* Output elements of one group of a REDUCE_TREE reduction. */
static int64_t tree_group_size(const struct plan_step *s)
{
	return extent(&s->in[0]->shape, s->reduced, s->kept_lead, false);
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
	int64_t L = ceil_log2((groups ? reduce_pieces(s) / groups : 0) + 1);
	return s->kept_lead > 0 ? 3 * L + 4 : 2 * L + 3;
}

int64_t reduce_fixed_bytes(const struct plan_step *s)
{
	if (s->mode != REDUCE_TREE)
		return 0;
	return (tree_slots(s) + 2) * tree_group_size(s) * (dtype_size(s->loop->types[0]) + s->masked);
}

static int64_t reduce_pieces(const struct plan_step *s)
{
	const struct shape *X = &s->in[0]->shape;
	int64_t n = 1;
	for (int i = 0; i < s->piece_axis; i++)
		n *= X->dim[i];
	return n * ((X->dim[s->piece_axis] + s->piece_lines - 1) / s->piece_lines);
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
	char *raw = x->dtype != t ? stage_alloc((size_t)(most * dtype_size(x->dtype))) : NULL;
	char *data = stage_alloc((size_t)(most * dtype_size(t)));
	struct reducer *r = reducer_make(s, (l->lines_per_box * l->line + 2) * tree_group_size(s));
	struct where_mask *m = s->where_arr ? where_mask_new(s->where_arr, most) : NULL;
	uint8_t *valid = s->masked ? stage_alloc((size_t)(most > 0 ? most : 1)) : NULL;
	r->take = valid;
	struct dist_walk w;
	dist_walk_start(l, comm_rank(), &w);
	for (int64_t b = 0; b < l->nboxes; b++) {
		int64_t ps[H5U_MAXDIM], pc[H5U_MAXDIM], start[H5U_MAXDIM], cnt[H5U_MAXDIM];
		bool any = dist_walk_next(&w, ps, pc);
		int64_t q = 0, nq = 1;
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
			if (i <= p) {
				q = q * l->dim[i] + ps[i];
				nq *= pc[i];
			}
		}
		if (!any)
			for (int i = 0; i < n; i++)
				cnt[i] = 0;
		read_input(s, t, start, cnt, raw, data, valid, m, e);
		if (any && !e->status) {
			tree_pieces(r, data, q, nq);
			check_fault(s, e);
		}
		if (comm_agree(e) < 0)
			break;
		if (s->kept_lead > 0 && (tree_write(r, e) < 0 || comm_agree(e) < 0))
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

/* REDUCE_ROWS and REDUCE_COLUMNS on their own: each rank takes its boxes
 * across the kept axes (s->stream) and, box by box along the reduced axes
 * in C order, folds the elements into their accumulators, then writes
 * them: every result is the fold NumPy makes, in its order, whatever the
 * ranks and the budget. */
static int reduce_stream(struct plan_step *s, struct err *e)
{
	struct array *x = s->in[0], *y = s->out[0];
	enum dtype t = s->loop->types[0], dt = s->loop->types[1];
	int size = dtype_size(t);
	const struct dist_stream *st = &s->stream;
	int n = st->ndim;
	int64_t kmax = st->across.lines_per_box * st->across.line;
	size_t box = (size_t)(kmax * dist_stream_along_elems(st));
	char *raw = x->dtype != dt ? stage_alloc((box ? box : 1) * (size_t)dtype_size(x->dtype)) : NULL;
	char *data = stage_alloc((box ? box : 1) * (size_t)dtype_size(dt));
	char *acc = stage_alloc((size_t)((kmax > 0 ? kmax : 1) * size));
	char *conv = y->dtype != t ? stage_alloc((size_t)((kmax > 0 ? kmax : 1) * dtype_size(y->dtype))) : NULL;
	struct where_mask *m = s->where_arr ? where_mask_new(s->where_arr, (int64_t)box) : NULL;
	uint8_t *valid = s->masked || s->skip_fold ? stage_alloc(box ? box : 1) : NULL;
	uint8_t *accv = valid ? stage_alloc((size_t)(kmax > 0 ? kmax : 1)) : NULL;
	struct dist_walk w;
	dist_walk_start(&st->across, comm_rank(), &w);
	for (int64_t b = 0; b < st->across.nboxes; b++) {
		int64_t qo[H5U_MAXDIM], qc[H5U_MAXDIM], start[H5U_MAXDIM], cnt[H5U_MAXDIM];
		bool any = dist_walk_next(&w, qo, qc);
		if (any && s->init == FOLD_VALUE)
			iter_fill(size, acc, s->init_value, stage_box_size(st->across.ndim, qc));
		if (any && accv)   /* nothing taken yet */
			memset(accv, 0, (size_t)stage_box_size(st->across.ndim, qc));
		struct dist_walk along;
		dist_walk_start(&st->along, 0, &along);
		for (int64_t j = 0; j < st->along.nboxes; j++) {
			int64_t ro[H5U_MAXDIM + 1], rc[H5U_MAXDIM + 1];
			dist_walk_next(&along, ro, rc);
			dist_stream_box(st, qo, qc, ro, rc, start, cnt);
			if (!any)
				memset(cnt, 0, sizeof cnt);
			read_input(s, dt, start, cnt, raw, data, valid, m, e);
			if (any && !e->status) {
				ptrdiff_t ast[H5U_MAXDIM];
				acc_strides(n, cnt, s->reduced, size, ast);
				fold(s, s->init, data, n, cnt, acc, ast, j == 0, valid, accv);
				check_fault(s, e);
			}
			if (comm_agree(e) < 0)
				goto out;
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
		write_result(s, ostart, ocnt, acc, accv, conv, e);
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

int reduce_layout(struct plan_step *s, int nranks, int64_t memory, const char *where,
		  struct err *e)
{
	const struct array *x = s->in[0];
	const struct shape *X = &x->shape;
	enum dtype t = s->loop->types[0];
	int64_t size = dtype_size(t), xsize = dtype_size(x->dtype);
	int64_t in_elem = size + (x->dtype != t ? xsize : 0) + (s->masked || s->skip_fold ? 1 : 0) +
			  (s->where_arr ? where_mask_element_bytes(s->where_arr) : 0);
	enum dtype yt = s->out[0]->dtype;
	int64_t out_elem = size + (yt != t ? dtype_size(yt) : 0) + (s->masked || s->skip_fold ? 1 : 0);
	int m = 0;   /* kept leading axes */
	while (m < X->ndim && !s->reduced[m])
		m++;
	if (X->ndim > 0 && m < X->ndim && (m + 1 == X->ndim || s->reduced[m + 1]) &&
	    ufunc_reorderable(s->uf) && (m == 0 || extent(X, s->reduced, m, true) > 0)) {
		s->mode = REDUCE_TREE;
		s->kept_lead = m;
		/* the piece axis: the first from axis m whose line fits a piece,
		 * but no later than the last reduced axis after it, so that every
		 * piece covers its group's whole output; all from the shape alone */
		int p = m;
		int64_t line = extent(X, s->reduced, m + 1, true), most = m ? GROUP_PIECE : TREE_PIECE;
		while (p + 1 < X->ndim && s->reduced[p + 1] && line > most) {
			p++;
			line /= X->dim[p] ? X->dim[p] : 1;
		}
		if (X->dim[p] == 0 || line == 0)
			p = m, line = extent(X, s->reduced, m + 1, true);
		s->piece_axis = p;
		s->piece_lines = line >= most ? 1 : most / (line ? line : 1);
		if (s->piece_lines > X->dim[p] && X->dim[p] > 0)
			s->piece_lines = X->dim[p];
		int64_t pieces = reduce_pieces(s), piece = s->piece_lines * line;
		int64_t osize = tree_group_size(s);
		if (2 * ceil_log2(pieces + 1) + 3 > MAX_DEPTH)
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
	s->mode = X->ndim == 0 || !s->reduced[0] ? REDUCE_ROWS : REDUCE_COLUMNS;
	bool whole_last = ufunc_reorderable(s->uf) || t == DT_FLOAT16 || s->loop->types[1] == DT_FLOAT16;
	return dist_stream_make(X->ndim, X->dim, s->reduced, stage_chunks(x), memory, in_elem,
				out_elem, xsize > size ? xsize : size, whole_last, nranks, where, e,
				&s->stream);
}

int reduce_run(struct plan_step *s, struct err *e)
{
	switch (s->mode) {
	case REDUCE_TREE: return reduce_tree(s, e);
	default: return reduce_stream(s, e);
	}
}
