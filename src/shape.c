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

/* The largest of CHUNK's axes that do not grow (GROWS), the first of
 * equals; -1 when every one grows. */
static int largest_fixed(const int64_t *chunk, int ndim, unsigned grows)
{
	int big = -1;
	for (int i = 0; i < ndim; i++)
		if (!(grows >> i & 1) && (big < 0 || chunk[i] > chunk[big]))
			big = i;
	return big;
}

void shape_chunks(const struct shape *s, int64_t size, unsigned grows, int64_t *chunk)
{
	int64_t bytes = size;
	for (int i = 0; i < s->ndim; i++) {
		chunk[i] = grows >> i & 1 || s->dim[i] < 1 ? 1 : s->dim[i];
		bytes *= chunk[i];
	}
	for (int big; bytes > SHAPE_CHUNK_BYTES && (big = largest_fixed(chunk, s->ndim, grows)) >= 0 &&
		      chunk[big] > 1;) {
		bytes = bytes / chunk[big] * ((chunk[big] + 1) / 2);
		chunk[big] = (chunk[big] + 1) / 2;
	}
	for (int i = 0; i < s->ndim; i++)
		if (grows >> i & 1) {   /* the first axis that grows takes the records */
			int64_t records = SHAPE_CHUNK_BYTES / bytes;
			chunk[i] = records < 1 ? 1 : records > SHAPE_CHUNK_RECORDS ? SHAPE_CHUNK_RECORDS : records;
			break;
		}
}
