/* shape.c - shapes and NumPy broadcasting. */
#include <stdio.h>
#include <string.h>

#include "shape.h"

int64_t shape_size(const struct shape *s)
{
	int64_t n = 1;
	for (int i = 0; i < s->ndim; i++)
		n *= s->dim[i];
	return n;
}

bool shape_equal(const struct shape *a, const struct shape *b)
{
	if (a->ndim != b->ndim)
		return false;
	for (int i = 0; i < a->ndim; i++)
		if (a->dim[i] != b->dim[i])
			return false;
	return true;
}

static char *format(const struct shape *s, char *buf, size_t len, const char *sep)
{
	size_t n = (size_t)snprintf(buf, len, "(");
	for (int i = 0; i < s->ndim && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%lld", i ? sep : "",
				      (long long)s->dim[i]);
	if (n < len)
		snprintf(buf + n, len - n, s->ndim == 1 ? ",)" : ")");
	return buf;
}

char *shape_format(const struct shape *s, char *buf, size_t len)
{
	return format(s, buf, len, ", ");
}

char *shape_format_compact(const struct shape *s, char *buf, size_t len)
{
	return format(s, buf, len, ",");
}

int shape_broadcast(int n, const struct shape *const *in, struct shape *out)
{
	int ndim = 0;
	for (int k = 0; k < n; k++)
		if (in[k]->ndim > ndim)
			ndim = in[k]->ndim;
	out->ndim = ndim;
	for (int i = 0; i < ndim; i++) {
		int64_t d = 1;
		for (int k = 0; k < n; k++) {
			int j = i - (ndim - in[k]->ndim);
			if (j < 0)
				continue;
			int64_t e = in[k]->dim[j];
			if (e == d || e == 1)
				continue;
			if (d != 1)
				return -1;
			d = e;
		}
		out->dim[i] = d;
	}
	return 0;
}

int64_t shape_rows(const struct shape *s)
{
	return s->ndim ? s->dim[0] : 1;
}

int64_t shape_row_size(const struct shape *s)
{
	int64_t n = 1;
	for (int i = 1; i < s->ndim; i++)
		n *= s->dim[i];
	return n;
}
