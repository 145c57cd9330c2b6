/* reduce.c - np.UFUNC.reduce in three layouts; see reduce.h. */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "dist.h"
#include "iter.h"
#include "reduce.h"
#include "stage.h"

#define TREE_CHUNK 1024          /* elements per fixed chunk, at least one row */
#define MAX_DEPTH 130            /* pieces a rank's tree stack can hold */
#define IO_LIMIT ((int64_t)1 << 31)

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
	int size = dtype_size(s->loop->types[0]);
	iter_strides st[3];
	iter_contiguous(ndim, dims, dims, size, st[1]);
	int64_t d[H5U_MAXDIM];
	memcpy(d, dims, sizeof(int64_t) * (size_t)ndim);
	char *src = data;
	if (start && init != FOLD_VALUE) {
		int64_t first[H5U_MAXDIM];
		for (int i = 0; i < ndim; i++)
			first[i] = s->reduced[i] && dims[i] ? 1 : dims[i];
		iter_copy(size, data, st[1], acc, ast, ndim, first);
		if (init == FOLD_FIRST_SKIP)
			for (int i = 0; i < ndim; i++)
				if (s->reduced[i] && d[i] > 0) {
					d[i]--;
					src += st[1][i];
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

/* ---- REDUCE_ROWS ---------------------------------------------------- */

static int reduce_rows(struct plan_step *s, struct err *e)
{
	struct array *x = s->in[0], *y = s->out[0];
	enum dtype t = s->loop->types[0];
	int size = dtype_size(t);
	const struct shape *X = &x->shape;
	int ndim = X->ndim ? X->ndim : 1;
	int64_t rowsize = shape_row_size(X), orow = extent(X, s->reduced, 1, false);
	struct dist d;
	dist_make(shape_rows(X), comm_size(), comm_rank(), s->rows_per_block, &d);
	int64_t rpb = d.rows_per_block;
	char *raw = x->dtype != t ? stage_alloc((size_t)(rpb * rowsize * dtype_size(x->dtype))) : NULL;
	char *data = stage_alloc((size_t)(rpb * rowsize * size));
	char *acc = stage_alloc((size_t)(rpb * orow * size));
	char *conv = y->dtype != t ? stage_alloc((size_t)(rpb * orow * dtype_size(y->dtype))) : NULL;
	for (int64_t b = 0; b < d.nblocks; b++) {
		int64_t first, count, start[H5U_MAXDIM], cnt[H5U_MAXDIM], dims[H5U_MAXDIM];
		dist_block(&d, b, &first, &count);
		for (int i = 0; i < ndim; i++) {
			start[i] = 0;
			dims[i] = cnt[i] = X->ndim ? X->dim[i] : 1;
		}
		start[0] = X->ndim ? first : 0;
		dims[0] = cnt[0] = count;
		stage_read(x, t, start, cnt, raw, data, s->where, e);
		if (count > 0 && !e->status) {
			ptrdiff_t ast[H5U_MAXDIM];
			acc_strides(ndim, dims, s->reduced, size, ast);
			if (s->init == FOLD_VALUE)
				iter_fill(size, acc, s->init_value, count * orow);
			fold(s, s->init, data, ndim, dims, acc, ast, true);
			check_fault(s, e);
		}
		if (comm_agree(e) < 0)
			break;
		int64_t ostart[H5U_MAXDIM] = {0}, ocnt[H5U_MAXDIM];
		for (int i = 0; i < y->shape.ndim; i++)
			ocnt[i] = y->shape.dim[i];
		ostart[0] = y->shape.ndim ? first : 0;
		ocnt[0] = count;
		stage_write(y, t, ostart, ocnt, acc, conv, s->where, e);
	}
	free(raw);
	free(data);
	free(acc);
	free(conv);
	return comm_agree(e);
}

/* ---- REDUCE_COLUMNS ----------------------------------------------------- */

static int reduce_columns(struct plan_step *s, struct err *e)
{
	struct array *x = s->in[0], *y = s->out[0];
	enum dtype t = s->loop->types[0];
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
	char *raw = x->dtype != t ? stage_alloc(box * (size_t)dtype_size(x->dtype)) : NULL;
	char *data = stage_alloc(box * (size_t)size);
	char *acc = stage_alloc((size_t)(cmax * orest * size));
	char *conv = y->dtype != t ? stage_alloc((size_t)(cmax * orest * dtype_size(y->dtype))) : NULL;
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
		stage_read(x, t, start, cnt, raw, data, s->where, e);
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
	stage_write(y, t, ostart, ocnt, acc, conv, s->where, e);
out:
	free(raw);
	free(data);
	free(acc);
	free(conv);
	return comm_agree(e);
}

/* ---- REDUCE_TREE -------------------------------------------------------- */

struct piece {
	int64_t pos;    /* first chunk */
	int64_t level;  /* covers 2**level chunks */
	char *data;     /* the partial, owned by the stack slot */
};

/* Merge the top two pieces while they are siblings in the global tree. */
static void tree_settle(const struct plan_step *s, struct piece *stack, int *depth, int64_t osize)
{
	while (*depth >= 2) {
		struct piece *l = &stack[*depth - 2], *r = &stack[*depth - 1];
		if (l->level != r->level || l->pos + ((int64_t)1 << l->level) != r->pos ||
		    ((l->pos >> l->level) & 1))
			return;
		combine(s, l->data, r->data, osize);
		l->level++;
		(*depth)--;
	}
}

static char *slot(struct piece *stack, int i, size_t bytes)
{
	if (!stack[i].data)
		stack[i].data = stage_alloc(bytes);
	return stack[i].data;
}

static int reduce_tree(struct plan_step *s, struct err *e)
{
	struct array *x = s->in[0], *y = s->out[0];
	enum dtype t = s->loop->types[0];
	int size = dtype_size(t);
	const struct shape *X = &x->shape;
	int n = X->ndim;
	int64_t rows = X->dim[0], rowsize = shape_row_size(X), G = s->chunk_rows;
	int64_t nchunks = (rows + G - 1) / G, osize = extent(X, s->reduced, 0, false);
	size_t obytes = (size_t)(osize * size);
	struct dist d;
	dist_make(nchunks, comm_size(), comm_rank(), s->rows_per_block, &d);
	size_t box = (size_t)(d.rows_per_block * G * rowsize);
	char *raw = x->dtype != t ? stage_alloc(box * (size_t)dtype_size(x->dtype)) : NULL;
	char *data = stage_alloc(box * (size_t)size);
	struct piece stack[MAX_DEPTH] = {{0}};
	int depth = 0;
	char *result = NULL, *conv = NULL;
	for (int64_t b = 0; b < d.nblocks; b++) {
		int64_t cf, cc, start[H5U_MAXDIM] = {0}, cnt[H5U_MAXDIM];
		dist_block(&d, b, &cf, &cc);
		int64_t r0 = cf * G, r1 = (cf + cc) * G < rows ? (cf + cc) * G : rows;
		for (int i = 0; i < n; i++)
			cnt[i] = X->dim[i];
		start[0] = r0;
		cnt[0] = cc ? r1 - r0 : 0;
		stage_read(x, t, start, cnt, raw, data, s->where, e);
		for (int64_t c = cf; c < cf + cc && !e->status; c++) {
			int64_t dims[H5U_MAXDIM];
			memcpy(dims, X->dim, sizeof(int64_t) * (size_t)n);
			dims[0] = (c + 1) * G < rows ? G : rows - c * G;
			char *acc = slot(stack, depth, obytes);
			enum fold_init init = c == 0 ? s->init : s->rest_init;
			if (init == FOLD_VALUE)
				iter_fill(size, acc, c == 0 ? s->init_value : s->rest_value, osize);
			ptrdiff_t ast[H5U_MAXDIM];
			acc_strides(n, dims, s->reduced, size, ast);
			fold(s, init, data + (size_t)((c * G - r0) * rowsize * size), n, dims, acc, ast, true);
			stack[depth].pos = c;
			stack[depth].level = 0;
			depth++;
			tree_settle(s, stack, &depth, osize);
		}
		check_fault(s, e);
		if (comm_agree(e) < 0)
			goto out;
	}
	/* Rank 0 takes every other rank's pieces, in rank (so index) order. */
	if (comm_rank() != 0) {
		int64_t k = depth;
		comm_send(&k, sizeof k, 0);
		for (int i = 0; i < depth; i++) {
			int64_t head[2] = { stack[i].pos, stack[i].level };
			comm_send(head, sizeof head, 0);
			comm_send(stack[i].data, obytes, 0);
		}
	} else {
		for (int r = 1; r < comm_size(); r++) {
			int64_t k;
			comm_recv(&k, sizeof k, r);
			for (int64_t i = 0; i < k; i++) {
				int64_t head[2];
				comm_recv(head, sizeof head, r);
				comm_recv(slot(stack, depth, obytes), obytes, r);
				stack[depth].pos = head[0];
				stack[depth].level = head[1];
				depth++;
				tree_settle(s, stack, &depth, osize);
			}
		}
		result = stage_alloc(obytes);
		if (depth == 0)
			iter_fill(size, result, s->init_value, osize);
		else
			memcpy(result, stack[0].data, obytes);
		for (int i = 1; i < depth; i++)
			combine(s, result, stack[i].data, osize);
		check_fault(s, e);
	}
	if (comm_agree(e) < 0)
		goto out;
	int64_t ostart[H5U_MAXDIM] = {0}, ocnt[H5U_MAXDIM] = {0};
	for (int i = 0; i < y->shape.ndim; i++)
		ocnt[i] = comm_rank() == 0 ? y->shape.dim[i] : 0;
	if (y->shape.ndim == 0)
		ocnt[0] = comm_rank() == 0;
	conv = y->dtype != t ? stage_alloc((size_t)osize * (size_t)dtype_size(y->dtype)) : NULL;
	stage_write(y, t, ostart, ocnt, result ? result : data, conv, s->where, e);
out:
	for (int i = 0; i < MAX_DEPTH; i++)
		free(stack[i].data);
	free(result);
	free(conv);
	free(raw);
	free(data);
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
	int64_t in_elem = size + (x->dtype != t ? xsize : 0);
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
	if (memory < fixed + per_unit)
		return err_set(e, EXIT_USAGE, where,
			       "--memory %lld bytes is too small for one block (one block of this reduction needs %lld bytes)",
			       (long long)memory, (long long)(fixed + per_unit));
	int64_t upb = per_unit ? (memory - fixed) / per_unit : units;
	int64_t widest = unit_elems * (xsize > size ? xsize : size);
	if (widest && upb > (IO_LIMIT - 1) / widest)
		upb = (IO_LIMIT - 1) / widest;
	if (upb < 1)
		return err_set(e, EXIT_USAGE, where, "a row of %lld bytes is too large: no I/O call moves 2 GiB or more",
			       (long long)widest);
	int64_t share = (units + nranks - 1) / nranks;
	s->rows_per_block = upb < share ? upb : share > 0 ? share : 1;
	return 0;
}

int reduce_run(struct plan_step *s, struct err *e)
{
	switch (s->mode) {
	case REDUCE_ROWS: return reduce_rows(s, e);
	case REDUCE_COLUMNS: return reduce_columns(s, e);
	default: return reduce_tree(s, e);
	}
}
