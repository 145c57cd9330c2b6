/* select.c - NumPy basic slicing and overlap of selections.  See select.h. */
#include <string.h>

#include "select.h"

/* Resolve OP's selection against the dataset extents DSHAPE, as NumPy's
 * basic slicing does (negative indices count from the end, slices clip). */
int select_view(const struct operand *op, const struct shape *dshape,
			struct array_view *v, struct shape *vshape, const char *text,
			const char *w, struct err *e)
{
	int nd = dshape->ndim, nidx = 0, ellipsis = -1;
	for (int k = 0; k < op->nselect; k++) {
		if (op->select[k].kind != SELECT_ELLIPSIS) {
			nidx++;
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
	for (int i = 0; i < nd; i++) {
		/* the item for axis i: those before the ellipsis from the left,
		 * those after it from the right */
		const struct select_item *it = NULL;
		int after = ellipsis >= 0 ? op->nselect - 1 - ellipsis : 0;
		if (ellipsis < 0 ? i < op->nselect : i < ellipsis)
			it = &op->select[i];
		else if (ellipsis >= 0 && i >= nd - after)
			it = &op->select[op->nselect - (nd - i)];
		int64_t n = dshape->dim[i];
		v->start[i] = 0;
		v->step[i] = 1;
		v->count[i] = n;
		if (it && it->kind == SELECT_INDEX) {
			int64_t idx = it->start;
			if (idx < -n || idx >= n)
				return err_set(e, EXIT_USAGE, w,
					       "'%s': index %lld is out of bounds for axis %d with size %lld",
					       text, (long long)idx, i, (long long)n);
			v->start[i] = idx < 0 ? idx + n : idx;
			v->count[i] = 1;
			v->dropped[i] = true;
			continue;
		}
		if (it && it->kind == SELECT_SLICE) {
			int64_t step = it->has_step ? it->step : 1;
			if (step == 0)
				return err_set(e, EXIT_USAGE, w, "'%s': slice step cannot be zero", text);
			if (step < 0)
				return err_set(e, EXIT_USAGE, w, "'%s': negative slice steps are not supported", text);
			int64_t lo = it->has_start ? it->start : 0, hi = it->has_stop ? it->stop : n;
			if (lo < 0)
				lo = lo + n < 0 ? 0 : lo + n;
			if (hi < 0)
				hi = hi + n < 0 ? 0 : hi + n;
			lo = lo > n ? n : lo;
			hi = hi > n ? n : hi;
			v->start[i] = lo;
			v->step[i] = step;
			v->count[i] = hi > lo ? (hi - lo + step - 1) / step : 0;
		}
		vshape->dim[vshape->ndim++] = v->count[i];
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
	return true;
}

/* The index range [lo, hi] that X covers along dataset axis I. */
static void axis_range(const struct array *x, int i, int64_t *lo, int64_t *hi)
{
	if (!x->selected) {
		*lo = 0;
		*hi = x->shape.dim[i] - 1;
		return;
	}
	*lo = x->view.start[i];
	*hi = x->view.start[i] + x->view.step[i] * (x->view.count[i] - 1);
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
