/* stage.c - typed box reads and writes, casting (and unpacking or packing
 * through a CF coding) once per block. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cf.h"
#include "comm.h"
#include "h5io.h"
#include "iter.h"
#include "report.h"
#include "select.h"
#include "stage.h"
#include "vds.h"

void *stage_alloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fputs("h5ufunc: out of memory\n", stderr);
		abort();
	}
	return p;
}

void stage_huge_pages(void *p, int64_t n)
{
	uintptr_t page = 2u << 20, a = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t end = ((uintptr_t)p + (uintptr_t)n) & ~(page - 1);
	if (end > a)
		madvise((void *)a, end - a, MADV_HUGEPAGE);
}

void *stage_realloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		fputs("h5ufunc: out of memory\n", stderr);
		abort();
	}
	return q;
}

void stage_row_box(const struct shape *shape, int64_t first, int64_t count,
		   int64_t *start, int64_t *cnt)
{
	for (int i = 0; i < shape->ndim; i++) {
		start[i] = 0;
		cnt[i] = shape->dim[i];
	}
	start[0] = shape->ndim ? first : 0;
	cnt[0] = count;
}

int64_t stage_box_size(int ndim, const int64_t *count)
{
	int64_t n = ndim ? 1 : count[0];
	for (int i = 0; i < ndim; i++)
		n *= count[i];
	return n;
}

const int64_t *stage_chunks(const struct array *x)
{
	if (x->kind != ARR_DATASET || x->selected || x->base || x->shape.ndim == 0)
		return NULL;
	if (x->create)
		return x->nchunk == x->shape.ndim ? x->chunk : NULL;
	return x->nstored == x->shape.ndim ? x->stored_chunk : NULL;
}

/* The dataset box behind the box START/COUNT of X's (selected) shape:
 * the same elements, forwards along an axis the view runs backwards
 * (select_reverse turns them round); an axis None inserted has none. */
static void file_box(const struct array *x, const int64_t *start, const int64_t *count,
		     struct shape *fshape, int64_t *fstart, int64_t *fstep, int64_t *fcount)
{
	const struct array_view *v = &x->view;
	fshape->ndim = v->ndim;
	memcpy(fshape->dim, v->dim, sizeof v->dim);
	bool any = stage_box_size(x->shape.ndim, count) > 0;
	for (int i = 0, j = 0; i < v->ndim; i++) {
		fstep[i] = v->dropped[i] ? 1 : v->step[i] < 0 ? -v->step[i] : v->step[i];
		fstart[i] = v->start[i];
		fcount[i] = any;
		if (v->dropped[i])
			continue;
		while (v->inserted[j])
			j++;
		int64_t first = start[j], n = any ? count[j] : 0;
		if (v->step[i] < 0)
			first += n - 1;   /* the last of the box, the first in the dataset */
		fstart[i] = n ? v->start[i] + first * v->step[i] : 0;
		fcount[i] = n;
		j++;
	}
	if (v->ndim == 0)
		fcount[0] = any;
}

/* The dtype X's dataset holds, as HDF5 moves it. */
static enum dtype stored_dtype(const struct array *x)
{
	return x->coding ? x->coding->stored : x->dtype;
}

/* Bytes one element of X takes while it is moved: the larger of its dtype
 * and its dataset's. */
static int element_bytes(const struct array *x)
{
	int a = dtype_size(x->dtype), b = dtype_size(stored_dtype(x));
	return a > b ? a : b;
}

/* Is X a view that runs backwards (its blocks are turned round)? */
static bool backwards(const struct array *x)
{
	return x->selected && select_backwards(&x->view);
}

int64_t stage_scratch(const struct array *x, enum dtype t)
{
	const struct array *b = x->base ? x->base : x;
	if (cf_coding_transforms(b->coding))
		return element_bytes(b);
	/* a read turns its block round where it lands; a write, a copy */
	return x->dtype != t || (backwards(x) && x->in_place) ? dtype_size(x->dtype) : 0;
}

/* The dataset box behind the box START/COUNT of X: the box itself (no
 * step) when X is its whole dataset, else file_box's, held in B. */
struct dset_box {
	const struct shape *shape;
	const int64_t *start, *step, *count;
	struct shape fshape;
	int64_t fstart[H5U_MAXDIM + 1], fstep[H5U_MAXDIM + 1], fcount[H5U_MAXDIM + 1];
};

static void dset_box(const struct array *x, const int64_t *start, const int64_t *count,
		     struct dset_box *b)
{
	if (!x->selected) {
		b->shape = &x->shape;
		b->start = start;
		b->step = NULL;
		b->count = count;
		return;
	}
	file_box(x, start, count, &b->fshape, b->fstart, b->fstep, b->fcount);
	b->shape = &b->fshape;
	b->start = b->fstart;
	b->step = b->fstep;
	b->count = b->fcount;
}

/* The dataset box B of X is going to be written: announced to the
 * journal when X is written in place. */
static void expect(const struct array *x, const struct dset_box *b)
{
	if (x->in_place && x->id >= 0)
		h5io_expect_box(x->id, b->shape, b->start, b->step, b->count);
}

/* Read or write the box START/COUNT of X; a box written in place is
 * announced first, unless its pass announced every box already.  A view
 * that runs backwards along some axis moves the box forwards, BUF turned
 * round after a read and before a write (it is scratch then). */
static int box_io(bool write, const struct array *x, const int64_t *start, const int64_t *count,
		  char *buf, const char *where, struct err *e)
{
	enum dtype dt = stored_dtype(x);
	struct dset_box b;
	dset_box(x, start, count, &b);
	bool back = backwards(x);
	if (back && write)
		select_reverse(&x->view, b.count, (size_t)dtype_size(dt), buf);
	if (write && !x->announced)
		expect(x, &b);
	int rc;
	if (x->vds)
		rc = vds_box_io(x->vds_run, write, dt, b.start, b.step, b.count, buf, where, e);
	else
		rc = write ? h5io_write_box(x->id, b.shape, dt, b.start, b.step, b.count, buf, where, e)
			   : h5io_read_box(x->id, b.shape, dt, b.start, b.step, b.count, buf, where, e);
	if (back && !write && rc == 0)
		select_reverse(&x->view, b.count, (size_t)dtype_size(dt), buf);
	return rc;
}

void stage_expect(const struct array *x, const int64_t *start, const int64_t *count)
{
	struct dset_box b;
	dset_box(x, start, count, &b);
	expect(x, &b);
}

/* Read the box START/COUNT of X as X's dtype into OUT: through SCRATCH
 * (element_bytes per element; it may be OUT) when X has a coding that
 * transforms, unpacked there, in the same pass. */
static int read_values(const struct array *x, const int64_t *start, const int64_t *count,
		       char *scratch, char *out, const char *where, struct err *e)
{
	if (!cf_coding_transforms(x->coding))
		return box_io(false, x, start, count, out, where, e);
	if (box_io(false, x, start, count, scratch, where, e) < 0)
		return -1;
	cf_decode(x->coding, scratch, out, stage_box_size(x->shape.ndim, count));
	return 0;
}

/* X is BASE read with its axes moved (broadcasting by name, plan.h): read
 * the box of BASE behind the box START/COUNT of X into OUT, laid out in
 * X's order.  Inserted axes have length one; when BASE's axes keep their
 * order, the bytes are already in place, else they are moved once, here.
 * RAW: scratch as read_values takes it. */
static int read_moved(const struct array *x, const int64_t *start, const int64_t *count,
		      char *raw, char *out, const char *where, struct err *e)
{
	const struct array *b = x->base;
	int n = x->shape.ndim, m = b->shape.ndim;
	int64_t bstart[H5U_MAXDIM], bcount[H5U_MAXDIM];
	bool empty = stage_box_size(n, count) == 0, ordered = true;
	for (int i = 0, last = -1; i < n; i++) {
		int j = x->from_axis[i];
		if (j < 0)
			continue;
		bstart[j] = start[i];
		bcount[j] = empty ? 0 : count[i];
		ordered = ordered && j > last;
		last = j;
	}
	if (ordered)
		return read_values(b, bstart, bcount, raw, out, where, e);
	size_t size = (size_t)dtype_size(x->dtype);
	char *tmp = stage_alloc((size_t)stage_box_size(m, bcount) * (size_t)element_bytes(b));
	int rc = read_values(b, bstart, bcount, tmp, tmp, where, e);
	if (rc == 0 && !empty) {
		/* X's element at index idx is BASE's at sum idx[i] * stride[from[i]] */
		int64_t stride[H5U_MAXDIM], idx[H5U_MAXDIM] = {0}, total = stage_box_size(n, count);
		for (int j = m - 1, s = 1; j >= 0; s *= (int)bcount[j], j--)
			stride[j] = s;
		for (int64_t k = 0; k < total; k++) {
			int64_t off = 0;
			for (int i = 0; i < n; i++)
				if (x->from_axis[i] >= 0)
					off += idx[i] * stride[x->from_axis[i]];
			memcpy(out + (size_t)k * size, tmp + (size_t)off * size, size);
			for (int i = n - 1; i >= 0 && ++idx[i] == count[i]; i--)
				idx[i] = 0;
		}
	}
	free(tmp);
	return rc;
}

int stage_read(const struct array *x, enum dtype t, const int64_t *start,
	       const int64_t *count, char *raw, char *out, const char *where,
	       struct err *e)
{
	char *buf = x->dtype == t ? out : raw;
	if ((x->base ? read_moved(x, start, count, raw, buf, where, e)
		     : read_values(x, start, count, raw, buf, where, e)) < 0)
		return -1;
	const struct array *b = x->base ? x->base : x;
	report_read(stage_box_size(x->shape.ndim, count), dtype_size(stored_dtype(b)));
	if (buf != out)
		dtype_cast(x->dtype, raw, dtype_size(x->dtype), t, out, dtype_size(t),
			   (size_t)stage_box_size(x->shape.ndim, count));
	return 0;
}

int stage_write(struct array *x, enum dtype t, const int64_t *start,
		const int64_t *count, const char *data, char *conv,
		const char *where, struct err *e)
{
	const char *buf = data;
	int64_t n = stage_box_size(x->shape.ndim, count);
	if (x->dtype != t) {
		dtype_cast(t, data, dtype_size(t), x->dtype, conv, dtype_size(x->dtype), (size_t)n);
		buf = conv;
	} else if (backwards(x)) {   /* turned round in CONV, not in the caller's DATA */
		memcpy(conv, data, (size_t)n * (size_t)dtype_size(t));
		buf = conv;
	}
	if (x->dry) {   /* a first pass: what a packed output's values range over */
		if (x->coding && x->coding->from_range)
			cf_range_fold(x->coding, buf, n);
		return 0;
	}
	int64_t none[H5U_MAXDIM + 1] = {0};
	if (cf_coding_transforms(x->coding)) {
		if (cf_encode(x->coding, buf, conv, n, where, e) < 0)
			count = none;   /* still in the collective call, with nothing */
		buf = conv;
	}
	x->written = x->written || count != none;
	report_written(stage_box_size(x->shape.ndim, count), dtype_size(stored_dtype(x)));
	int rc = box_io(true, x, start, count, (char *)buf, where, e);
	return count == none ? -1 : rc;   /* failed either way: the caller places it */
}

int stage_read_broadcast(const struct array *x, const struct shape *space, enum dtype t,
			 const int64_t *start, const int64_t *count, char *raw, char *own, char *out,
			 const char *where, struct err *e)
{
	/* X's box: the space's, or its one element along axes it broadcasts */
	int n = space->ndim, xn = x->shape.ndim, pad = n - xn;
	int64_t xstart[H5U_MAXDIM] = {0}, xcount[H5U_MAXDIM], dims[H5U_MAXDIM];
	int64_t total = stage_box_size(n, count);
	for (int i = 0; i < xn; i++) {
		bool bcast = x->shape.dim[i] == 1 && space->dim[pad + i] != 1;
		xstart[i] = bcast ? 0 : start[pad + i];
		xcount[i] = total == 0 ? 0 : bcast ? 1 : count[pad + i];
	}
	if (xn == 0)
		xcount[0] = total > 0;
	if (stage_read(x, t, xstart, xcount, raw, own, where, e) < 0)
		return -1;
	int size = dtype_size(t);
	if (total == 0)
		return 0;
	if (n == 0) {
		memcpy(out, own, (size_t)size);
		return 0;
	}
	for (int i = 0; i < n; i++)
		dims[i] = i < pad ? 1 : xcount[i - pad];
	ptrdiff_t sst[H5U_MAXDIM], dst[H5U_MAXDIM];
	iter_contiguous(n, dims, count, size, sst);
	iter_contiguous(n, count, count, size, dst);
	iter_copy(size, own, sst, out, dst, n, count);
	return 0;
}

bool stage_in_place_runs(const struct array *x)
{
	return x->kind == ARR_DATASET && x->in_place && x->nstored > 0 && x->stored_btree &&
	       !x->stored_filtered && !x->stored_gaps && !x->selected && !x->swapped && !x->vds &&
	       !x->named_twice &&
	       h5io_row_overflows_cache(x->nstored, x->shape.dim, x->stored_chunk,
					(size_t)dtype_size(x->coding ? x->coding->stored : x->dtype));
}

bool stage_as_stored(const struct array *x, enum dtype t)
{
	return stage_chunks(x) && !x->create && !x->vds && (!x->file->write || x->by_runs) &&
	       !x->stored_filtered && !x->swapped && stored_dtype(x) == t;
}

bool stage_cut_in_runs(const struct array *x)
{
	enum dtype stored = x->coding ? x->coding->stored : x->dtype;
	return x->kind == ARR_DATASET && stage_as_stored(x, stored) &&
	       h5io_row_overflows_cache(x->nstored, x->shape.dim, x->stored_chunk, (size_t)dtype_size(stored));
}

/* Is X read as its dataset's chunks, as T: a plain dataset as stored as
 * T (stage_as_stored) whose values are its stored ones (no packing, no
 * missing values, no cast)? */
static bool chunked_as_stored(const struct array *x, enum dtype t)
{
	return stage_as_stored(x, t) && x->dtype == t && !cf_coding_transforms(x->coding);
}

bool stage_chunked_reads(const struct array *x, enum dtype t, int64_t memory)
{
	return memory >= STAGE_CHUNKED_MEMORY && chunked_as_stored(x, t);
}

int64_t stage_chunked_elem_bytes(const struct array *x, enum dtype t)
{
	int64_t size = dtype_size(t);
	if (!chunked_as_stored(x, t))
		return size;
	const int64_t *c = stage_chunks(x);
	/* the chunks' elements over the dataset's, at most twice (beyond, the
	 * boxes are read as boxes) */
	double ratio = 1;
	for (int i = 0; i < x->shape.ndim; i++)
		if (x->shape.dim[i] > 0)
			ratio *= (double)((x->shape.dim[i] + c[i] - 1) / c[i] * c[i]) / (double)x->shape.dim[i];
	if (ratio > 2)
		return size;
	int64_t bytes = (int64_t)(ratio * (double)size);
	return bytes < (double)size * ratio ? bytes + 1 : bytes;
}

int64_t stage_chunked_buffer(const struct array *x, enum dtype t, void *buf, int64_t elems)
{
	int64_t bytes = elems * stage_chunked_elem_bytes(x, t);
	stage_huge_pages(buf, bytes);   /* whole chunk rows, filled afresh each run */
	return bytes;
}

int stage_read_chunks(const struct array *x, enum dtype t, const int64_t *start,
		      const int64_t *count, char *buf, int64_t cap, struct stage_chunked *b,
		      const char *where, struct err *e)
{
	if (!chunked_as_stored(x, t) || x->id < 0)
		return 0;
	int rc = h5io_read_chunks(x->id, &x->shape, t, start, count, buf, cap, where, e);
	if (rc <= 0)
		return rc;
	const int64_t *c = stage_chunks(x);
	b->buf = buf;
	b->ndim = x->shape.ndim;
	b->size = dtype_size(t);
	for (int i = 0; i < b->ndim; i++) {
		b->count[i] = count[i];
		b->chunk[i] = c[i];
		b->grid[i] = (count[i] + c[i] - 1) / c[i];
	}
	report_read(stage_box_size(x->shape.ndim, count), dtype_size(t));
	return 1;
}

int stage_read_band(const struct array *x, enum dtype t, const int64_t *start, const int64_t *count,
		    int64_t col, int64_t n, char *chunks, int64_t cap, char *out, const char *where,
		    struct err *e)
{
	int nd = x->shape.ndim, last = nd - 1, size = dtype_size(t);
	if (!chunked_as_stored(x, t) || x->id < 0 || nd == 0)
		return 0;
	int64_t bo[H5U_MAXDIM], bc[H5U_MAXDIM], grid[H5U_MAXDIM], g[H5U_MAXDIM] = {0};
	memcpy(bo, start, sizeof(int64_t) * (size_t)nd);
	memcpy(bc, count, sizeof(int64_t) * (size_t)nd);
	bo[last] += col;
	bc[last] = n;
	int rc = h5io_read_chunks(x->id, &x->shape, t, bo, bc, chunks, cap, where, e);
	if (rc <= 0)
		return rc;
	/* each chunk, C-ordered over its full extents, copied to its place in
	 * the band, as far as the band reaches into it */
	const int64_t *c = stage_chunks(x);
	ptrdiff_t cst[H5U_MAXDIM], ost[H5U_MAXDIM];
	iter_contiguous(nd, c, c, size, cst);
	iter_contiguous(nd, bc, bc, size, ost);
	int64_t nchunks = 1, chunk_bytes = size;
	for (int i = 0; i < nd; i++) {
		grid[i] = (bc[i] + c[i] - 1) / c[i];
		nchunks *= grid[i];
		chunk_bytes *= c[i];
	}
	for (int64_t j = 0; j < nchunks; j++) {
		int64_t ext[H5U_MAXDIM];
		ptrdiff_t off = 0;
		for (int i = 0; i < nd; i++) {
			ext[i] = bc[i] - g[i] * c[i] < c[i] ? bc[i] - g[i] * c[i] : c[i];
			off += g[i] * c[i] * ost[i];
		}
		iter_copy(size, chunks + j * chunk_bytes, cst, out + off, ost, nd, ext);
		for (int i = last; i >= 0; i--) {   /* the next chunk, in C order */
			if (++g[i] < grid[i])
				break;
			g[i] = 0;
		}
	}
	report_read(stage_box_size(nd, bc), size);
	return 1;
}

void stage_chunked_copy(const struct stage_chunked *b, int64_t at, int64_t n, char *out)
{
	int nd = b->ndim, last = nd - 1;
	int64_t idx[H5U_MAXDIM], chunk_bytes = b->size;
	for (int i = 0; i < nd; i++)
		chunk_bytes *= b->chunk[i];
	for (int i = last; i >= 0; i--) {   /* AT's index in the box */
		idx[i] = at % b->count[i];
		at /= b->count[i];
	}
	int64_t c = b->chunk[last], row = b->count[last];
	while (n > 0) {
		/* the chunk of the line IDX lies on (but its last axis), and where
		 * the line lies in it */
		int64_t key = 0, within = 0;
		for (int i = 0; i < last; i++) {
			key = key * b->grid[i] + idx[i] / b->chunk[i];
			within = within * b->chunk[i] + idx[i] % b->chunk[i];
		}
		key *= b->grid[last];
		within *= c;
		/* the line from IDX[LAST] on, a chunk's run at a time */
		int64_t j = idx[last];
		while (n > 0 && j < row) {
			int64_t k = j / c, off = j - k * c, take = c - off;
			if (take > row - j)
				take = row - j;
			if (take > n)
				take = n;
			memcpy(out, b->buf + (key + k) * chunk_bytes + (within + off) * b->size,
			       (size_t)(take * b->size));
			out += take * b->size;
			j += take;
			n -= take;
		}
		idx[last] = 0;
		for (int i = last - 1; i >= 0; i--) {   /* the next line */
			if (++idx[i] < b->count[i])
				break;
			idx[i] = 0;
		}
	}
}
