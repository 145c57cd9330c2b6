/* select.c - NumPy basic slicing and overlap of selections.  See select.h. */
#include <stdint.h>
#include <string.h>

#include "select.h"

/* Bound X of a slice over N elements, as Python's slice.indices() takes
 * it: from the end when negative, then clipped to [LO, HI]. */
static int64_t clip_bound(int64_t x, int64_t n, int64_t lo, int64_t hi)
{
	if (x < 0)
		x += n;   /* no overflow: n >= 0 */
	return x < lo ? lo : x > hi ? hi : x;
}

/* Axis I of the dataset (extent N) as IT takes it (NULL: whole) into V;
 * false for an index out of range. */
static bool take_axis(const struct select_item *it, int i, int64_t n, struct array_view *v)
{
	v->start[i] = 0;
	v->step[i] = 1;
	v->count[i] = n;
	if (it && it->kind == SELECT_INDEX) {
		if (it->start < -n || it->start >= n)
			return false;
		v->start[i] = it->start < 0 ? it->start + n : it->start;
		v->count[i] = 1;
		v->dropped[i] = true;
		return true;
	}
	if (!it)
		return true;
	/* Python's slice.indices(n): a step beyond int64 saturated, clipped
	 * as Python clips it; the bounds clip to [0, n], or to [-1, n - 1]
	 * going backwards (-1: before the first element) */
	int64_t step = !it->has_step ? 1 : it->step < -INT64_MAX ? -INT64_MAX : it->step;
	bool back = step < 0;
	int64_t lo = back ? -1 : 0, hi = back ? n - 1 : n;
	int64_t a = it->has_start ? clip_bound(it->start, n, lo, hi) : back ? hi : lo;
	int64_t b = it->has_stop ? clip_bound(it->stop, n, lo, hi) : back ? lo : hi;
	int64_t count = back ? (b < a ? (a - b - 1) / -step + 1 : 0) : (a < b ? (b - a - 1) / step + 1 : 0);
	v->start[i] = count ? a : 0;   /* one view for each set of elements in its order */
	v->step[i] = count > 1 ? step : 1;
	v->count[i] = count;
	return true;
}

/* The next axis of the selection: length LEN, or one that None inserts. */
static int add_axis(struct array_view *v, struct shape *vshape, int64_t len, bool inserted,
		    const char *text, const char *w, struct err *e)
{
	if (vshape->ndim == H5U_MAXDIM)
		return err_set(e, EXIT_USAGE, w, "'%s': number of dimensions must be within [0, %d], "
			       "indexing result would have %d", text, H5U_MAXDIM, H5U_MAXDIM + 1);
	v->inserted[vshape->ndim] = inserted;
	vshape->dim[vshape->ndim++] = len;
	return 0;
}

/* Dataset axis I (extents DSHAPE) as IT takes it (NULL: whole), and the
 * axis it leaves in the selection, unless it is indexed. */
static int select_axis(const struct select_item *it, int i, const struct shape *dshape,
		       struct array_view *v, struct shape *vshape, const char *text, const char *w,
		       struct err *e)
{
	if (it && it->kind == SELECT_SLICE && it->has_step && it->step == 0)
		return err_set(e, EXIT_USAGE, w, "'%s': slice step cannot be zero", text);
	if (!take_axis(it, i, dshape->dim[i], v))
		return err_set(e, EXIT_USAGE, w, "'%s': index %lld is out of bounds for axis %d with size %lld",
			       text, (long long)it->start, i, (long long)dshape->dim[i]);
	return v->dropped[i] ? 0 : add_axis(v, vshape, v->count[i], false, text, w, e);
}

/* Resolve OP's selection against the dataset extents DSHAPE, as NumPy's
 * basic slicing does (negative indices count from the end, slices clip,
 * None inserts an axis). */
int select_view(const struct operand *op, const struct shape *dshape,
			struct array_view *v, struct shape *vshape, const char *text,
			const char *w, struct err *e)
{
	int nd = dshape->ndim, nidx = 0, ellipsis = -1;
	for (int k = 0; k < op->nselect; k++) {
		if (op->select[k].kind == SELECT_INDEX || op->select[k].kind == SELECT_SLICE) {
			nidx++;
		} else if (op->select[k].kind != SELECT_ELLIPSIS) {
			continue;
		} else if (ellipsis >= 0) {
			return err_set(e, EXIT_USAGE, w, "'%s': an index can only have a single ellipsis ('...')", text);
		} else {
			ellipsis = k;
		}
	}
	if (nidx > nd)
		return err_set(e, EXIT_USAGE, w,
			       "'%s': too many indices for array: array is %d-dimensional, but %d were indexed",
			       text, nd, nidx);
	memset(v, 0, sizeof *v);
	v->ndim = nd;
	memcpy(v->dim, dshape->dim, sizeof v->dim);
	vshape->ndim = 0;
	for (int k = 0, i = 0; k <= op->nselect; k++) {
		const struct select_item *it = k < op->nselect ? &op->select[k] : NULL;
		if (!it || it->kind == SELECT_ELLIPSIS) {
			/* whole axes: those `...` stands for, and those after the last item */
			for (int whole = it ? nd - nidx : nd - i; whole > 0; whole--)
				if (select_axis(NULL, i++, dshape, v, vshape, text, w, e) < 0)
					return -1;
		} else if (it->kind == SELECT_NEWAXIS) {
			if (add_axis(v, vshape, 1, true, text, w, e) < 0)
				return -1;
		} else if (select_axis(it, i++, dshape, v, vshape, text, w, e) < 0) {
			return -1;
		}
	}
	return 0;
}

bool select_same_view(const struct array_view *a, const struct array_view *b)
{
	if (a->ndim != b->ndim)
		return false;
	for (int i = 0; i < a->ndim; i++)
		if (a->start[i] != b->start[i] || a->step[i] != b->step[i] ||
		    a->count[i] != b->count[i] || a->dropped[i] != b->dropped[i])
			return false;
	return !memcmp(a->inserted, b->inserted, sizeof a->inserted);
}

/* The index range [lo, hi] that X covers along dataset axis I (hi < lo:
 * none), whichever way it runs. */
static void axis_range(const struct array *x, int i, int64_t *lo, int64_t *hi)
{
	if (!x->selected) {
		*lo = 0;
		*hi = x->shape.dim[i] - 1;
		return;
	}
	const struct array_view *v = &x->view;
	int64_t first = v->start[i], last = v->start[i] + v->step[i] * (v->count[i] - 1);
	*lo = first < last ? first : last;
	*hi = first < last ? last : first;
	if (v->count[i] == 0)
		*hi = *lo - 1;
}

/* Do two arrays of one dataset (different selections) touch common elements?
 * Conservative: their bounding boxes. */
bool select_may_overlap(const struct array *a, const struct array *b)
{
	int nd = a->selected ? a->view.ndim : a->shape.ndim;
	for (int i = 0; i < nd; i++) {
		int64_t alo, ahi, blo, bhi;
		axis_range(a, i, &alo, &ahi);
		axis_range(b, i, &blo, &bhi);
		if (ahi < blo || bhi < alo)
			return false;
	}
	return true;
}

bool select_backwards(const struct array_view *v)
{
	for (int i = 0; i < v->ndim; i++)
		if (v->step[i] < 0)
			return true;
	return false;
}

/* Swap the N bytes at A and B. */
static void swap_bytes(char *a, char *b, size_t n)
{
	char t[1024];
	for (size_t k = 0; k < n; k += sizeof t) {
		size_t m = n - k < sizeof t ? n - k : sizeof t;
		memcpy(t, a + k, m);
		memcpy(a + k, b + k, m);
		memcpy(b + k, t, m);
	}
}

/* Reverse each of the OUTER rows of N elements of SIZE bytes at BUF. */
#define REVERSE_ROWS(T)                                                         \
	for (int64_t o = 0; o < outer; o++) {                                   \
		T *r = (T *)(void *)(buf + (size_t)(o * n) * sizeof(T));         \
		for (int64_t k = 0, l = n - 1; k < l; k++, l--) {              \
			T t = r[k];                                             \
			r[k] = r[l];                                            \
			r[l] = t;                                               \
		}                                                               \
	}
void select_reverse_rows(char *buf, int64_t outer, int64_t n, size_t size)
{
	switch (size) {
	case 1: REVERSE_ROWS(uint8_t) return;
	case 2: REVERSE_ROWS(uint16_t) return;
	case 4: REVERSE_ROWS(uint32_t) return;
	case 8: REVERSE_ROWS(uint64_t) return;
	}
	for (int64_t o = 0; o < outer; o++) {
		char *r = buf + (size_t)(o * n) * size;
		for (int64_t k = 0, l = n - 1; k < l; k++, l--)
			swap_bytes(r + (size_t)k * size, r + (size_t)l * size, size);
	}
}

void select_reverse(const struct array_view *v, const int64_t *count, size_t size, char *buf)
{
	for (int i = 0; i < v->ndim; i++) {
		if (v->step[i] >= 0 || count[i] < 2)
			continue;
		int64_t outer = 1, inner = 1;
		for (int j = 0; j < v->ndim; j++)
			if (j < i)
				outer *= count[j];
			else if (j > i)
				inner *= count[j];
		select_reverse_rows(buf, outer, count[i], size * (size_t)inner);
	}
}
