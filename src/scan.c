/* scan.c - np.UFUNC.accumulate; see scan.h. */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "dist.h"
#include "iter.h"
#include "scan.h"
#include "stage.h"

#define TILE_BYTES ((int64_t)256 << 10)

static void check_fault(const struct plan_step *s, struct err *e)
{
	enum ufunc_fault f = ufunc_take_error();
	if (f != UFERR_NONE)
		err_set(e, EXIT_RUN, s->where, "%s", ufunc_fault_message(f));
}

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
 * (NumPy's accumulate call) and runs it in order. */
static void scan_last_axis(const struct plan_step *s, char *data, char *out, int64_t nrows,
			   int64_t len)
{
	enum dtype ot = s->loop->types[0], dt = s->loop->types[1];
	ptrdiff_t os = dtype_size(ot), ds = dtype_size(dt);
	ptrdiff_t steps[3] = { os, ds, os };
	for (int64_t r = 0; r < nrows && len > 0; r++) {
		char *x = data + r * len * ds, *y = out + r * len * os;
		dtype_cast(dt, x, 0, ot, y, 0, 1);
		char *args[3] = { y, x + ds, y + os };
		s->loop->fn(args, (size_t)(len - 1), steps);
	}
}

/* Along an axis other than 0: rows are independent. */
static int scan_rows(struct plan_step *s, struct err *e)
{
	struct array *x = s->in[0], *y = s->out[0];
	enum dtype t = s->loop->types[0], dt = s->loop->types[1];
	int size = dtype_size(t), dsize = dtype_size(dt), n = x->shape.ndim;
	int64_t rowsize = shape_row_size(&x->shape);
	struct dist d;
	dist_make(x->shape.dim[0], comm_size(), comm_rank(), s->rows_per_block, &d);
	int64_t rpb = d.rows_per_block;
	char *raw = x->dtype != dt ? stage_alloc((size_t)(rpb * rowsize * dtype_size(x->dtype))) : NULL;
	char *data = stage_alloc((size_t)(rpb * rowsize * dsize));
	char *out = stage_alloc((size_t)(rpb * rowsize * size));
	char *conv = y->dtype != t ? stage_alloc((size_t)(rpb * rowsize * dtype_size(y->dtype))) : NULL;
	int64_t tile = rowsize > 0 ? TILE_BYTES / (rowsize * size) : 1;
	if (tile < 1)
		tile = 1;
	for (int64_t b = 0; b < d.nblocks; b++) {
		int64_t first, count, start[H5U_MAXDIM] = {0}, cnt[H5U_MAXDIM];
		dist_block(&d, b, &first, &count);
		memcpy(cnt, x->shape.dim, sizeof(int64_t) * (size_t)n);
		start[0] = first;
		cnt[0] = count;
		stage_read(x, dt, start, cnt, raw, data, s->where, e);
		if (s->axis == n - 1 && !e->status && x->shape.dim[n - 1] > 0)
			scan_last_axis(s, data, out, count * rowsize / (n ? x->shape.dim[n - 1] : 1),
				       x->shape.dim[n - 1]);
		for (int64_t r = 0; r < count && !e->status && s->axis != n - 1; r += tile) {
			int64_t dims[H5U_MAXDIM];
			memcpy(dims, cnt, sizeof(int64_t) * (size_t)n);
			dims[0] = count - r < tile ? count - r : tile;
			scan_block(s, data + (size_t)(r * rowsize * dsize), out + (size_t)(r * rowsize * size),
				   n, dims, s->axis, NULL, NULL);
		}
		check_fault(s, e);
		if (comm_agree(e) < 0)
			break;
		stage_write(y, t, start, cnt, out, conv, s->where, e);
	}
	free(raw);
	free(data);
	free(out);
	free(conv);
	return comm_agree(e);
}

/* Along axis 0: the ranks split axis 1; the carry passes block to block. */
static int scan_columns(struct plan_step *s, struct err *e)
{
	struct array *x = s->in[0], *y = s->out[0];
	enum dtype t = s->loop->types[0], dt = s->loop->types[1];
	int size = dtype_size(t), n = x->shape.ndim;
	int64_t columns = n >= 2 ? x->shape.dim[1] : 1;
	struct dist dc;
	dist_make(columns, comm_size(), comm_rank(), columns ? columns : 1, &dc);
	int64_t c0 = dc.first, cn = dc.count;
	int64_t cmax = columns / comm_size() + (columns % comm_size() != 0);
	int64_t rest = 1;
	for (int i = 2; i < n; i++)
		rest *= x->shape.dim[i];
	int64_t g = s->rows_per_block, rows = x->shape.dim[0];
	int64_t nblocks = (rows + g - 1) / g;
	size_t box = (size_t)(g * cmax * rest);
	char *raw = x->dtype != dt ? stage_alloc(box * (size_t)dtype_size(x->dtype)) : NULL;
	char *data = stage_alloc(box * (size_t)dtype_size(dt));
	char *out = stage_alloc(box * (size_t)size);
	char *carry = stage_alloc((size_t)(cmax * rest * size));
	char *conv = y->dtype != t ? stage_alloc(box * (size_t)dtype_size(y->dtype)) : NULL;
	for (int64_t b = 0; b < nblocks; b++) {
		int64_t start[H5U_MAXDIM] = {0}, cnt[H5U_MAXDIM];
		int64_t r0 = b * g, gr = rows - r0 < g ? rows - r0 : g;
		memcpy(cnt, x->shape.dim, sizeof(int64_t) * (size_t)n);
		start[0] = r0;
		cnt[0] = cn ? gr : 0;
		if (n >= 2) {
			start[1] = c0;
			cnt[1] = cn;
		}
		stage_read(x, dt, start, cnt, raw, data, s->where, e);
		if (cn > 0 && gr > 0 && !e->status) {
			iter_strides st;
			iter_contiguous(n, cnt, cnt, size, st);
			st[0] = 0;   /* the carry is one slice */
			scan_block(s, data, out, n, cnt, 0, b ? carry : NULL, st);
			memcpy(carry, out + (size_t)((gr - 1) * (cn * rest) * size), (size_t)(cn * rest * size));
			check_fault(s, e);
		}
		if (comm_agree(e) < 0)
			break;
		stage_write(y, t, start, cnt, out, conv, s->where, e);
	}
	free(raw);
	free(data);
	free(out);
	free(carry);
	free(conv);
	return comm_agree(e);
}

int scan_layout(struct plan_step *s, int nranks, int64_t memory, const char *where,
		struct err *e)
{
	const struct array *x = s->in[0];
	const struct shape *X = &x->shape;
	enum dtype t = s->loop->types[0];
	int64_t size = dtype_size(t), xsize = dtype_size(x->dtype);
	enum dtype yt = s->out[0]->dtype;
	int64_t elem = 2 * size + (x->dtype != t ? xsize : 0) + (yt != t ? dtype_size(yt) : 0);
	int64_t unit_elems, fixed = 0, units = X->dim[0];
	if (s->axis != 0) {
		unit_elems = shape_row_size(X);
	} else {
		int64_t columns = X->ndim >= 2 ? X->dim[1] : 1;
		int64_t cmax = columns / nranks + (columns % nranks != 0);
		unit_elems = cmax * (X->ndim >= 2 ? shape_row_size(X) / (columns ? columns : 1) : 1);
		fixed = unit_elems * size;
		nranks = 1;
	}
	int64_t per_unit = unit_elems * elem;
	int64_t widest = unit_elems * (xsize > size ? xsize : size);
	return dist_block_units(memory, fixed, per_unit, widest, units, nranks,
				"one row of every array", where, e, &s->rows_per_block);
}

int scan_run(struct plan_step *s, struct err *e)
{
	return s->axis == 0 ? scan_columns(s, e) : scan_rows(s, e);
}
