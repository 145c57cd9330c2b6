/* reduce.c - np.UFUNC.reduce in three layouts; see reduce.h. */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "dist.h"
#include "iter.h"
#include "reduce.h"
#include "stage.h"
#include "where.h"

#define TREE_CHUNK 1024          /* elements per fixed chunk, at least one row */
#define MAX_DEPTH 130            /* pieces a rank's tree stack can hold */

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

/* Fold DATA (C-contiguous over DIMS, in the loop's dtype) into ACC (strides
 * AST over DIMS).  START: DATA begins the reduction, so FOLD_FIRST* copies
 * its first elements in before folding. */
static void fold(const struct plan_step *s, enum fold_init init, char *data, int ndim,
		 const int64_t *dims, char *acc, const ptrdiff_t *ast, bool start)
{
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
 * the value numpy.ma fills them with.  The valid pass of a masked reduce
 * reads instead whether each element is valid (and where= takes it).
 * Collective. */
static void read_input(const struct plan_step *s, enum dtype t, const int64_t *start,
		       const int64_t *count, char *raw, char *data, struct where_mask *m,
		       struct err *e)
{
	const struct array *x = s->in[0];
	int64_t n = stage_box_size(x->shape.ndim, count);
	if (!s->valid_pass) {
		stage_read(x, t, start, count, raw, data, s->where, e);
	} else if (x->dtype == DT_BOOL) {   /* no missing values: every element is valid */
		stage_read(x, t, start, count, raw, data, s->where, e);
		memset(data, 1, (size_t)n);
	} else {
		stage_read(x, x->dtype, start, count, NULL, raw, s->where, e);
		if (!e->status)
			where_valid(x->dtype, s->in_missing, s->mask_nan, raw, n, (uint8_t *)data);
	}
	if (s->masked && !e->status) {   /* the values as stored: RAW, or DATA itself */
		uint8_t *valid = stage_alloc((size_t)(n ? n : 1));
		where_skip_missing(s, t, n, x->dtype != t ? raw : data, data, valid);
		free(valid);
	}
	if (!m)
		return;
	const uint8_t *mask = where_mask_read(m, &x->shape, start, count, s->where, e);
	if (mask && !e->status)
		where_select(t, n, data, mask, (const char *)s->skip_value, 0);
}

/* Write the results ACC (the loop's dtype) into the box START/COUNT of S's
 * output, through CONV.  A masked reduce first reads which of them have a
 * valid element (its valid pass wrote them to MASK_OUT) and writes the
 * others as the output's fill value, counted as masked.  Collective. */
static int write_result(const struct plan_step *s, const int64_t *start, const int64_t *count,
			char *acc, char *conv, struct err *e)
{
	struct array *y = s->out[0];
	enum dtype t = s->loop->types[0];
	if (s->masked) {
		int64_t n = stage_box_size(y->shape.ndim, count);
		uint8_t *valid = stage_alloc((size_t)(n ? n : 1));
		if (stage_read(s->mask_out, DT_BOOL, start, count, NULL, (char *)valid, s->where, e) == 0)
			where_mask_results(s, t, n, acc, valid);
		free(valid);
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

/* ---- the reducer: rows in, partials out ------------------------------ */

struct piece {
	int64_t pos;    /* first chunk */
	int64_t level;  /* covers 2**level chunks */
	char *data;     /* the partial, owned by the stack slot */
};

/* A REDUCE_ROWS or REDUCE_TREE reduction fed block by block with rows of
 * its input in the loop's dtype, by reduce_run or by a fused elementwise
 * stage (exec.c). */
struct reducer {
	struct plan_step *s;
	int size;                /* of the loop's dtype */
	int64_t rowsize;         /* input elements per row */
	int64_t orow;            /* REDUCE_ROWS: output elements per row */
	int64_t osize;           /* REDUCE_TREE: output elements */
	char *acc, *conv;        /* REDUCE_ROWS: accumulators for a block of rows */
	struct piece stack[MAX_DEPTH];
	int depth;
};

struct reducer *reducer_new(struct plan_step *s, int64_t max_rows)
{
	struct reducer *r = stage_alloc(sizeof *r);
	memset(r, 0, sizeof *r);
	const struct array *x = s->in[0], *y = s->out[0];
	enum dtype t = s->loop->types[0];
	r->s = s;
	r->size = dtype_size(t);
	r->rowsize = shape_row_size(&x->shape);
	r->orow = extent(&x->shape, s->reduced, 1, false);
	r->osize = extent(&x->shape, s->reduced, 0, false);
	int64_t out = s->mode == REDUCE_ROWS ? max_rows * r->orow : r->osize;
	r->acc = stage_alloc((size_t)(out * r->size));
	if (y->dtype != t)
		r->conv = stage_alloc((size_t)(out * dtype_size(y->dtype)));
	return r;
}

void reducer_free(struct reducer *r)
{
	if (!r)
		return;
	for (int i = 0; i < MAX_DEPTH; i++)
		free(r->stack[i].data);
	free(r->acc);
	free(r->conv);
	free(r);
}

/* Merge the top two pieces while they are siblings in the global tree. */
static void tree_settle(struct reducer *r)
{
	while (r->depth >= 2) {
		struct piece *l = &r->stack[r->depth - 2], *rt = &r->stack[r->depth - 1];
		if (l->level != rt->level || l->pos + ((int64_t)1 << l->level) != rt->pos ||
		    ((l->pos >> l->level) & 1))
			return;
		combine(r->s, l->data, rt->data, r->osize);
		l->level++;
		r->depth--;
	}
}

static char *tree_slot(struct reducer *r)
{
	struct piece *p = &r->stack[r->depth];
	if (!p->data)
		p->data = stage_alloc((size_t)(r->osize * r->size));
	return p->data;
}

void reducer_rows(struct reducer *r, char *data, int64_t first, int64_t count)
{
	const struct plan_step *s = r->s;
	const struct shape *X = &s->in[0]->shape;
	int ndim = X->ndim ? X->ndim : 1;
	int64_t dims[H5U_MAXDIM];
	for (int i = 0; i < ndim; i++)
		dims[i] = X->ndim ? X->dim[i] : 1;
	ptrdiff_t ast[H5U_MAXDIM];
	if (s->mode == REDUCE_ROWS) {
		dims[0] = count;
		acc_strides(ndim, dims, s->reduced, r->size, ast);
		if (s->init == FOLD_VALUE)
			iter_fill(r->size, r->acc, s->init_value, count * r->orow);
		fold(s, s->init, data, ndim, dims, r->acc, ast, true);
		return;
	}
	/* REDUCE_TREE: whole chunks of chunk_rows rows (the last may be short) */
	int64_t G = s->chunk_rows, rows = X->dim[0];
	for (int64_t c = first / G; c * G < first + count; c++) {
		dims[0] = (c + 1) * G < rows ? G : rows - c * G;
		char *acc = tree_slot(r);
		enum fold_init init = c == 0 ? s->init : s->rest_init;
		if (init == FOLD_VALUE)
			iter_fill(r->size, acc, c == 0 ? s->init_value : s->rest_value, r->osize);
		acc_strides(ndim, dims, s->reduced, r->size, ast);
		fold(s, init, data + (size_t)((c * G - first) * r->rowsize * dtype_size(s->loop->types[1])), ndim, dims,
		     acc, ast, true);
		r->stack[r->depth].pos = c;
		r->stack[r->depth].level = 0;
		r->depth++;
		tree_settle(r);
	}
}

int reducer_write_rows(struct reducer *r, int64_t first, int64_t count, struct err *e)
{
	struct array *y = r->s->out[0];
	if (r->s->mode != REDUCE_ROWS)
		return 0;
	int64_t ostart[H5U_MAXDIM] = {0}, ocnt[H5U_MAXDIM];
	for (int i = 0; i < y->shape.ndim; i++)
		ocnt[i] = y->shape.dim[i];
	ostart[0] = y->shape.ndim ? first : 0;
	ocnt[0] = count;
	return write_result(r->s, ostart, ocnt, r->acc, r->conv, e);
}

int reducer_finish(struct reducer *r, struct err *e)
{
	struct plan_step *s = r->s;
	struct array *y = s->out[0];
	if (s->mode != REDUCE_TREE)
		return 0;
	size_t obytes = (size_t)(r->osize * r->size);
	/* Rank 0 takes every other rank's pieces, in rank (so index) order. */
	if (comm_rank() != 0) {
		int64_t k = r->depth;
		comm_send(&k, sizeof k, 0);
		for (int i = 0; i < r->depth; i++) {
			int64_t head[2] = { r->stack[i].pos, r->stack[i].level };
			comm_send(head, sizeof head, 0);
			comm_send(r->stack[i].data, obytes, 0);
		}
	} else {
		for (int rank = 1; rank < comm_size(); rank++) {
			int64_t k;
			comm_recv(&k, sizeof k, rank);
			for (int64_t i = 0; i < k; i++) {
				int64_t head[2];
				comm_recv(head, sizeof head, rank);
				comm_recv(tree_slot(r), obytes, rank);
				r->stack[r->depth].pos = head[0];
				r->stack[r->depth].level = head[1];
				r->depth++;
				tree_settle(r);
			}
		}
		if (r->depth == 0)
			iter_fill(r->size, r->acc, s->init_value, r->osize);
		else
			memcpy(r->acc, r->stack[0].data, obytes);
		for (int i = 1; i < r->depth; i++)
			combine(s, r->acc, r->stack[i].data, r->osize);
		check_fault(s, e);
	}
	if (comm_agree(e) < 0)
		return -1;
	int64_t ostart[H5U_MAXDIM] = {0}, ocnt[H5U_MAXDIM] = {0};
	for (int i = 0; i < y->shape.ndim; i++)
		ocnt[i] = comm_rank() == 0 ? y->shape.dim[i] : 0;
	if (y->shape.ndim == 0)
		ocnt[0] = comm_rank() == 0;
	write_result(s, ostart, ocnt, r->acc, r->conv, e);
	return comm_agree(e);
}

/* REDUCE_ROWS and REDUCE_TREE on their own: read blocks of rows (of
 * chunks, for the tree) and feed the reducer. */
static int reduce_by_rows(struct plan_step *s, struct err *e)
{
	struct array *x = s->in[0];
	enum dtype t = s->loop->types[1];   /* the input is read as the loop's second operand */
	const struct shape *X = &x->shape;
	int ndim = X->ndim ? X->ndim : 1;
	int64_t unit = s->mode == REDUCE_TREE ? s->chunk_rows : 1;
	int64_t rows = shape_rows(X), units = (rows + unit - 1) / unit;
	struct dist d;
	dist_make(units, comm_size(), comm_rank(), s->rows_per_block, &d);
	int64_t max_rows = d.rows_per_block * unit, rowsize = shape_row_size(X);
	char *raw = x->dtype != t ? stage_alloc((size_t)(max_rows * rowsize * dtype_size(x->dtype))) : NULL;
	char *data = stage_alloc((size_t)(max_rows * rowsize * dtype_size(t)));
	struct reducer *r = reducer_new(s, max_rows);
	struct where_mask *m = s->where_arr ? where_mask_new(s->where_arr, max_rows * rowsize) : NULL;
	for (int64_t b = 0; b < d.nblocks; b++) {
		int64_t uf, uc, start[H5U_MAXDIM] = {0}, cnt[H5U_MAXDIM];
		dist_block(&d, b, &uf, &uc);
		int64_t first = uf * unit, last = (uf + uc) * unit < rows ? (uf + uc) * unit : rows;
		int64_t count = uc ? last - first : 0;
		for (int i = 0; i < ndim; i++)
			cnt[i] = X->ndim ? X->dim[i] : 1;
		start[0] = X->ndim ? first : 0;
		cnt[0] = count;
		read_input(s, t, start, cnt, raw, data, m, e);
		if (count > 0 && !e->status) {
			reducer_rows(r, data, first, count);
			check_fault(s, e);
		}
		if (comm_agree(e) < 0)
			break;
		reducer_write_rows(r, first, count, e);
	}
	if (!e->status)
		reducer_finish(r, e);
	reducer_free(r);
	where_mask_free(m);
	free(raw);
	free(data);
	return comm_agree(e);
}

/* ---- REDUCE_COLUMNS ----------------------------------------------------- */

static int reduce_columns(struct plan_step *s, struct err *e)
{
	struct array *x = s->in[0], *y = s->out[0];
	enum dtype t = s->loop->types[0], dt = s->loop->types[1];
	int size = dtype_size(t);
	const struct shape *X = &x->shape;
	int n = X->ndim;
	int64_t columns = n >= 2 ? X->dim[1] : 1;
	struct dist dc;
	dist_make(columns, comm_size(), comm_rank(), columns ? columns : 1, &dc);
	int64_t c0 = dc.first, cn = dc.count;
	int64_t cmax = columns / comm_size() + (columns % comm_size() != 0);
	int64_t rest = extent(X, s->reduced, 2, true), orest = extent(X, s->reduced, 2, false);
	int64_t g = s->rows_per_block, rows = X->dim[0];
	int64_t nblocks = (rows + g - 1) / g;
	size_t box = (size_t)(g * cmax * rest);
	char *raw = x->dtype != dt ? stage_alloc(box * (size_t)dtype_size(x->dtype)) : NULL;
	char *data = stage_alloc(box * (size_t)dtype_size(dt));
	char *acc = stage_alloc((size_t)(cmax * orest * size));
	char *conv = y->dtype != t ? stage_alloc((size_t)(cmax * orest * dtype_size(y->dtype))) : NULL;
	struct where_mask *m = s->where_arr ? where_mask_new(s->where_arr, (int64_t)box) : NULL;
	if (s->init == FOLD_VALUE)
		iter_fill(size, acc, s->init_value, cn * orest);
	for (int64_t b = 0; b < nblocks; b++) {
		int64_t start[H5U_MAXDIM], cnt[H5U_MAXDIM];
		int64_t r0 = b * g, gr = rows - r0 < g ? rows - r0 : g;
		for (int i = 0; i < n; i++) {
			start[i] = 0;
			cnt[i] = X->dim[i];
		}
		start[0] = r0;
		cnt[0] = cn ? gr : 0;
		if (n >= 2) {
			start[1] = c0;
			cnt[1] = cn;
		}
		read_input(s, dt, start, cnt, raw, data, m, e);
		if (cn > 0 && gr > 0 && !e->status) {
			ptrdiff_t ast[H5U_MAXDIM];
			acc_strides(n, cnt, s->reduced, size, ast);
			fold(s, s->init, data, n, cnt, acc, ast, b == 0);
			check_fault(s, e);
		}
		if (comm_agree(e) < 0)
			goto out;
	}
	int64_t ostart[H5U_MAXDIM] = {0}, ocnt[H5U_MAXDIM] = {0};
	for (int i = 0, j = 0; i < n; i++) {
		if (s->reduced[i] && !s->keepdims)
			continue;
		ostart[j] = i == 1 ? c0 : 0;
		ocnt[j] = i == 1 ? cn : s->reduced[i] ? 1 : X->dim[i];
		j++;
	}
	if (n == 1)
		ocnt[0] = cn;   /* the one rank that owns the whole fold */
	write_result(s, ostart, ocnt, acc, conv, e);
out:
	where_mask_free(m);
	free(raw);
	free(data);
	free(acc);
	free(conv);
	return comm_agree(e);
}

/* ---- layout ------------------------------------------------------------- */

static int64_t ceil_log2(int64_t n)
{
	int64_t k = 0;
	while (((int64_t)1 << k) < n)
		k++;
	return k;
}

int reduce_layout(struct plan_step *s, int nranks, int64_t memory, const char *where,
		  struct err *e)
{
	const struct array *x = s->in[0];
	const struct shape *X = &x->shape;
	enum dtype t = s->loop->types[0];
	int64_t size = dtype_size(t), xsize = dtype_size(x->dtype);
	int64_t in_elem = size + (x->dtype != t ? xsize : 0) + (s->masked ? 1 + xsize : 0) +
			  (s->where_arr ? where_mask_element_bytes(s->where_arr) : 0);
	enum dtype yt = s->out[0]->dtype;
	int64_t out_elem = size + (yt != t ? dtype_size(yt) : 0);
	int64_t fixed, per_unit, unit_elems, units;
	if (X->ndim == 0 || !s->reduced[0]) {
		s->mode = REDUCE_ROWS;
		unit_elems = shape_row_size(X);
		per_unit = unit_elems * in_elem + extent(X, s->reduced, 1, false) * out_elem;
		fixed = 0;
		units = shape_rows(X);
	} else if ((X->ndim >= 2 && !s->reduced[1]) || !ufunc_reorderable(s->uf)) {
		s->mode = REDUCE_COLUMNS;
		int64_t columns = X->ndim >= 2 ? X->dim[1] : 1;
		int64_t cmax = columns / nranks + (columns % nranks != 0);
		unit_elems = cmax * extent(X, s->reduced, 2, true);
		per_unit = unit_elems * in_elem;
		fixed = cmax * extent(X, s->reduced, 2, false) * out_elem;
		units = X->dim[0];
		nranks = 1;   /* every rank streams every row */
	} else {
		s->mode = REDUCE_TREE;
		int64_t rowsize = shape_row_size(X);
		s->chunk_rows = rowsize >= TREE_CHUNK ? 1 : TREE_CHUNK / (rowsize ? rowsize : 1);
		units = (X->dim[0] + s->chunk_rows - 1) / s->chunk_rows;
		unit_elems = s->chunk_rows * rowsize;
		per_unit = unit_elems * in_elem;
		int64_t osize = extent(X, s->reduced, 0, false);
		fixed = (2 * ceil_log2(units + 1) + 3) * osize * size + osize * out_elem;
		if (2 * ceil_log2(units + 1) + 3 > MAX_DEPTH)
			return err_set(e, EXIT_USAGE, where, "too many rows to reduce");
	}
	int64_t widest = unit_elems * (xsize > size ? xsize : size);
	return dist_block_units(memory, fixed, per_unit, widest, units, nranks,
				"one block of this reduction", where, e, &s->rows_per_block);
}

/* A masked reduce's valid pass: the same layout and boxes as S, folding
 * with logical_or whether each element is valid into S's MASK_OUT. */
static int reduce_valid(const struct plan_step *s, struct err *e)
{
	struct plan_step v = *s;
	v.uf = ufunc_lookup("logical_or");
	v.loop = NULL;
	for (int i = 0; i < v.uf->nloops && !v.loop; i++)
		if (v.uf->loops[i].types[0] == DT_BOOL)
			v.loop = &v.uf->loops[i];
	v.masked = false;
	v.valid_pass = true;
	v.out[0] = s->mask_out;
	v.init = v.rest_init = FOLD_VALUE;
	memset(v.init_value, 0, sizeof v.init_value);
	memset(v.rest_value, 0, sizeof v.rest_value);
	memset(v.skip_value, 0, sizeof v.skip_value);
	if (reduce_run(&v, e) < 0)
		return -1;
	H5Fflush(s->mask_out->file->id, H5F_SCOPE_LOCAL);   /* read back by the value pass */
	comm_barrier();
	return 0;
}

int reduce_run(struct plan_step *s, struct err *e)
{
	if (s->masked && reduce_valid(s, e) < 0)
		return -1;
	switch (s->mode) {
	case REDUCE_COLUMNS: return reduce_columns(s, e);
	default: return reduce_by_rows(s, e);
	}
}
