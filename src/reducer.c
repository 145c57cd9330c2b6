/* reducer.c - a reduction's input folded into its results; see reducer.h.
 *
 * In order: the fold of one box (reducer_fold, with fold_taken /
 * fold_valid for where= and masks; reducer_combine), a shared stream's
 * partial results combined across ranks (reducer_combine_ranks,
 * reducer_carry_in), writing results; the reducer and its tree stack
 * (tree_*): a stream's rows, a tree's pieces pushed on the stack at their
 * positions, the groups a box finished written, the groups split between
 * ranks finished on rank 0.
 */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "iter.h"
#include "reducer.h"
#include "stage.h"
#include "where.h"

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
void reducer_fold(const struct plan_step *s, enum fold_init init, char *data, int ndim,
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
void reducer_combine(const struct plan_step *s, char *left, const char *right, int64_t n)
{
	ptrdiff_t size = dtype_size(s->loop->types[0]);
	ptrdiff_t steps[3] = { size, size, size };
	char *args[3] = { left, (char *)right, left };
	if (n > 0)
		s->loop->fn(args, (size_t)n, steps);
}

/* comm_fold_fn over S's accumulators (CTX): RIGHT = LEFT op RIGHT, the
 * loop's output aliased to its second input. */
static void fold_ranks(const void *left, void *right, size_t n, const void *ctx)
{
	const struct plan_step *s = ctx;
	ptrdiff_t size = dtype_size(s->loop->types[0]);
	ptrdiff_t steps[3] = { size, size, size };
	char *args[3] = { (char *)left, right, right };
	s->loop->fn(args, n, steps);
}

void reducer_combine_ranks(const struct plan_step *s, char *acc, uint8_t *accv, int64_t n,
			   struct err *e)
{
	comm_fold_to_root(acc, n, dtype_size(s->loop->types[0]), fold_ranks, s);
	if (accv)
		comm_or_to_root(accv, (size_t)n);
	reducer_check_fault(s, e);
}

void reducer_carry_in(const struct plan_step *s, char *carry, int64_t n, struct err *e)
{
	comm_fold_before(carry, n, dtype_size(s->loop->types[0]), fold_ranks, s);
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
	if (s->masked) {
		where_mask_results(s, t, stage_box_size(y->shape.ndim, count), acc, accv);
		if (s->mask_out &&
		    stage_write(s->mask_out, DT_BOOL, start, count, (char *)accv, NULL, s->where, e) < 0)
			return -1;
	}
	return stage_write(y, t, start, count, acc, conv, s->where, e);
}

void reducer_check_fault(const struct plan_step *s, struct err *e)
{
	enum ufunc_fault f = ufunc_take_error();
	if (f != UFERR_NONE)
		err_set(e, EXIT_RUN, s->where, "%s", ufunc_fault_message(f));
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

/* ---- the reducer: rows or pieces in, results out ---------------------- */

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
	struct piece p[REDUCER_MAX_DEPTH];
};

/* A reduction fed box by box: by reduce_run for REDUCE_TREE (boxes of
 * pieces), or by a fused elementwise stage (exec.c) with boxes of whole
 * rows (REDUCE_STREAM) or whole pieces (REDUCE_TREE).  A tree reduction's
 * groups are the indices of its kept leading axes (one group when there
 * are none); a group folded whole by one rank lands in ACC, a group split
 * between ranks is held until reducer_finish. */
struct reducer {
	struct plan_step *s;
	int size;                /* of the loop's dtype */
	int64_t orow;            /* REDUCE_STREAM: output elements per row */
	int64_t osize;           /* REDUCE_TREE: output elements of a group */
	char *acc, *conv;        /* results of a box's rows, or of its groups */
	uint8_t *accv;           /* masked, skip_fold: which results have a valid
				    element (took one) */
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
	r->orow = reducer_extent(X, s->reduced, 1, false);
	r->cur.group = r->held[0].group = r->held[1].group = -1;
	if (s->mode == REDUCE_TREE) {
		int64_t groups = 1;
		for (int i = 0; i < s->kept_lead; i++)
			groups *= X->dim[i];
		r->osize = reducer_extent(X, s->reduced, s->kept_lead, false);
		r->ppg = groups ? reducer_pieces(s) / groups : 0;
	}
	bool valid = s->masked || s->skip_fold;
	r->vbytes = r->osize * r->size;
	r->slot = r->vbytes + (valid ? r->osize : 0);
	r->acc = stage_alloc((size_t)((out > 0 ? out : 1) * (r->size + valid)));
	if (valid)
		r->accv = stage_alloc((size_t)(out > 0 ? out : 1));
	if (stage_scratch(y, t))
		r->conv = stage_alloc((size_t)((out > 0 ? out : 1) * stage_scratch(y, t)));
	return r;
}

struct reducer *reducer_new(struct plan_step *s, int64_t box_lines, int64_t line)
{
	const struct shape *X = &s->in[0]->shape;
	int64_t lines = box_lines > 0 ? box_lines : 1;
	if (s->mode != REDUCE_TREE)   /* whole rows */
		return reducer_make(s, lines * reducer_extent(X, s->reduced, 1, false));
	if (s->kept_lead == 0)
		return reducer_make(s, reducer_extent(X, s->reduced, 0, false));
	/* the groups a box ends: at most as many as it holds, and two it cuts */
	int64_t group = reducer_extent(X, s->reduced, s->kept_lead, true);
	int64_t groups = (group > 0 ? lines * line / group : 0) + 2;
	return reducer_make(s, groups * reducer_extent(X, s->reduced, s->kept_lead, false));
}

int reducer_max_axis(const struct plan_step *s)
{
	if (s->mode == REDUCE_TREE)
		return s->piece_lines == 1 ? s->piece_axis : s->piece_axis - 1;
	/* a stream takes whole rows when it keeps them */
	return s->in[0]->shape.ndim == 0 || !s->reduced[0] ? 0 : -1;
}

void reducer_free(struct reducer *r)
{
	if (!r)
		return;
	struct stack *st[3] = { &r->cur, &r->held[0], &r->held[1] };
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < REDUCER_MAX_DEPTH; i++)
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
	reducer_combine(r->s, left, (char *)right, r->osize);
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
 * other in DATA (the loop's second dtype; VALID beside, or NULL). */
static void tree_pieces(struct reducer *r, char *data, const uint8_t *valid, int64_t q, int64_t nq)
{
	const struct plan_step *s = r->s;
	const struct shape *X = &s->in[0]->shape;
	int ndim = X->ndim, p = s->piece_axis;
	int64_t G = s->piece_lines, per = (X->dim[p] + G - 1) / G;
	int64_t dims[H5U_MAXDIM];
	ptrdiff_t ast[H5U_MAXDIM];
	size_t esize = (size_t)dtype_size(s->loop->types[1]);
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
		reducer_acc_strides(ndim, dims, s->reduced, r->size, ast);
		reducer_fold(s, init, data, ndim, dims, acc, ast, true, valid,
			     valid ? (uint8_t *)acc + r->vbytes : NULL);
		data += (size_t)(dims[p] * line) * esize;
		valid = valid ? valid + dims[p] * line : NULL;
		tree_push(r, &r->cur, t, 0);
		if (t == r->ppg - 1)
			tree_close(r);
	}
}

void reducer_box(struct reducer *r, char *data, const uint8_t *valid, const int64_t *start,
		 const int64_t *count)
{
	const struct plan_step *s = r->s;
	const struct shape *X = &s->in[0]->shape;
	int ndim = X->ndim ? X->ndim : 1;
	int64_t dims[H5U_MAXDIM];
	for (int i = 0; i < ndim; i++)
		dims[i] = X->ndim ? X->dim[i] : 1;
	ptrdiff_t ast[H5U_MAXDIM];
	if (s->mode == REDUCE_STREAM) {
		dims[0] = count[0];
		reducer_acc_strides(ndim, dims, s->reduced, r->size, ast);
		if (s->init == FOLD_VALUE)
			iter_fill(r->size, r->acc, s->init_value, count[0] * r->orow);
		if (r->accv)
			memset(r->accv, 0, (size_t)(count[0] * r->orow));
		reducer_fold(s, s->init, data, ndim, dims, r->acc, ast, true, valid, r->accv);
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
	tree_pieces(r, data, valid, q, nq);
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
	int rc = reducer_write_result(r->s, ostart, ocnt, r->acc, r->accv, r->conv, e);

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
	return reducer_write_result(r->s, ostart, ocnt, r->acc, r->accv, r->conv, e);
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
		reducer_check_fault(s, e);
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
			reducer_write_result(s, ostart, ocnt, r->acc, r->accv, r->conv, e);
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



int64_t reducer_pieces(const struct plan_step *s)
{
	const struct shape *X = &s->in[0]->shape;
	int64_t n = 1;
	for (int i = 0; i < s->piece_axis; i++)
		n *= X->dim[i];
	return n * ((X->dim[s->piece_axis] + s->piece_lines - 1) / s->piece_lines);
}

