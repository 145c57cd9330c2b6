/* stage.c - typed box reads and writes, casting once per block. */
#include <stdio.h>
#include <stdlib.h>

#include "h5io.h"
#include "report.h"
#include "stage.h"

void *stage_alloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fputs("h5ufunc: out of memory\n", stderr);
		abort();
	}
	return p;
}

int64_t stage_box_size(int ndim, const int64_t *count)
{
	int64_t n = ndim ? 1 : count[0];
	for (int i = 0; i < ndim; i++)
		n *= count[i];
	return n;
}

int stage_read(const struct array *x, enum dtype t, const int64_t *start,
	       const int64_t *count, char *raw, char *out, const char *where,
	       struct err *e)
{
	char *buf = x->dtype == t ? out : raw;
	if (h5io_read_box(x->id, &x->shape, x->dtype, start, count, buf, where, e) < 0)
		return -1;
	report_read(stage_box_size(x->shape.ndim, count) * dtype_size(x->dtype));
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
	if (x->dtype != t) {
		dtype_cast(t, data, dtype_size(t), x->dtype, conv, dtype_size(x->dtype),
			   (size_t)stage_box_size(x->shape.ndim, count));
		buf = conv;
	}
	x->written = true;
	report_written(stage_box_size(x->shape.ndim, count) * dtype_size(x->dtype));
	return h5io_write_box(x->id, &x->shape, x->dtype, start, count, buf, where, e);
}
