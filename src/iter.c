/* iter.c - n-d strided iteration over 1-D loops; copies and fills. */
#include <string.h>

#include "iter.h"

/* Call FN over the index space, one call a run of the innermost axis, or
 * a piece of at most PIECE elements of it (0: no limit). */
static void run(ufunc_loop_fn fn, int nargs, char *const *base, int ndim,
		const int64_t *dims_in, const iter_strides *st_in, bool merge_axes, int64_t piece)
{
	int64_t dims[H5U_MAXDIM];
	ptrdiff_t st[UF_MAXARGS][H5U_MAXDIM];
	int n = 0;
	for (int i = 0; i < ndim; i++) {
		if (dims_in[i] == 0)
			return;
		if (dims_in[i] == 1 && merge_axes)
			continue;
		bool merge = merge_axes && n > 0;
		for (int k = 0; k < nargs && merge; k++)
			merge = st[k][n - 1] == st_in[k][i] * dims_in[i];
		if (merge) {
			dims[n - 1] *= dims_in[i];
			for (int k = 0; k < nargs; k++)
				st[k][n - 1] = st_in[k][i];
		} else {
			dims[n] = dims_in[i];
			for (int k = 0; k < nargs; k++)
				st[k][n] = st_in[k][i];
			n++;
		}
	}
	if (n == 0) {
		dims[0] = 1;
		for (int k = 0; k < nargs; k++)
			st[k][0] = 0;
		n = 1;
	}
	int64_t idx[H5U_MAXDIM] = {0};
	char *ptr[UF_MAXARGS];
	ptrdiff_t inner[UF_MAXARGS];
	for (int k = 0; k < nargs; k++)
		inner[k] = st[k][n - 1];
	for (;;) {
		for (int k = 0; k < nargs; k++) {
			ptr[k] = base[k];
			for (int i = 0; i < n - 1; i++)
				ptr[k] += idx[i] * st[k][i];
		}
		for (int64_t done = 0, len = dims[n - 1]; done < len;) {
			int64_t m = piece > 0 && len - done > piece ? piece : len - done;
			fn(ptr, (size_t)m, inner);
			for (int k = 0; k < nargs; k++)
				ptr[k] += m * inner[k];
			done += m;
		}
		int i = n - 2;
		while (i >= 0 && ++idx[i] == dims[i])
			idx[i--] = 0;
		if (i < 0)
			return;
	}
}

void iter_loop(ufunc_loop_fn fn, int nargs, char *const *base, int ndim,
	       const int64_t *dims, const iter_strides *st)
{
	run(fn, nargs, base, ndim, dims, st, true, 0);
}

void iter_fold(ufunc_loop_fn fn, int nargs, char *const *base, int ndim,
	       const int64_t *dims, const iter_strides *st)
{
	run(fn, nargs, base, ndim, dims, st, false, ITER_PIECE);
}

int64_t iter_pairwise_half(enum dtype t, int64_t n)
{
	if (dtype_table[t].kind == 'c')   /* the 2N reals halved, less their remainder modulo 8 */
		return n > 64 ? (n - n % 8) / 2 : 0;
	return n > 128 ? n / 2 - n / 2 % 8 : 0;
}

void iter_contiguous(int ndim, const int64_t *dims, const int64_t *space, int elsize,
		     ptrdiff_t *st)
{
	ptrdiff_t s = elsize;
	for (int i = ndim - 1; i >= 0; i--) {
		st[i] = dims[i] == 1 && space[i] != 1 ? 0 : s;
		s *= dims[i];
	}
}

#define COPY_LOOP(NAME, TYPE)                                                   \
	static void NAME(char **args, size_t n, const ptrdiff_t *steps)         \
	{                                                                       \
		char *src = args[0], *dst = args[1];                            \
		if (steps[0] == sizeof(TYPE) && steps[1] == sizeof(TYPE)) {    \
			memcpy(dst, src, n * sizeof(TYPE));                     \
			return;                                                 \
		}                                                               \
		for (size_t i = 0; i < n; i++, src += steps[0], dst += steps[1]) \
			memcpy(dst, src, sizeof(TYPE));                         \
	}
COPY_LOOP(copy1, uint8_t)
COPY_LOOP(copy2, uint16_t)
COPY_LOOP(copy4, uint32_t)
COPY_LOOP(copy8, uint64_t)
typedef struct { unsigned char bytes[16]; } iter_bytes16;   /* complex128 */
COPY_LOOP(copy16, iter_bytes16)
#undef COPY_LOOP

ufunc_loop_fn iter_copy_loop(int elsize)
{
	switch (elsize) {
	case 1: return copy1;
	case 2: return copy2;
	case 4: return copy4;
	case 8: return copy8;
	default: return copy16;
	}
}

void iter_copy(int elsize, char *src, const ptrdiff_t *sst, char *dst,
	       const ptrdiff_t *dst_st, int ndim, const int64_t *dims)
{
	iter_strides st[2];
	memcpy(st[0], sst, sizeof(ptrdiff_t) * (size_t)ndim);
	memcpy(st[1], dst_st, sizeof(ptrdiff_t) * (size_t)ndim);
	char *base[2] = { src, dst };
	iter_loop(iter_copy_loop(elsize), 2, base, ndim, dims, st);
}

void iter_cast(enum dtype from, char *src, const ptrdiff_t *sst, enum dtype to, char *dst,
	       const ptrdiff_t *dst_st, int ndim, const int64_t *dims)
{
	if (from == to) {
		iter_copy(dtype_size(from), src, sst, dst, dst_st, ndim, dims);
		return;
	}
	int64_t idx[H5U_MAXDIM] = {0};
	for (int i = 0; i < ndim; i++)
		if (dims[i] == 0)
			return;
	int inner = ndim - 1;
	for (;;) {
		char *s = src, *d = dst;
		for (int i = 0; i < inner; i++) {
			s += idx[i] * sst[i];
			d += idx[i] * dst_st[i];
		}
		if (ndim == 0)
			dtype_cast(from, s, 0, to, d, 0, 1);
		else
			dtype_cast(from, s, sst[inner], to, d, dst_st[inner], (size_t)dims[inner]);
		int i = inner - 1;
		while (i >= 0 && ++idx[i] == dims[i])
			idx[i--] = 0;
		if (i < 0)
			return;
	}
}

void iter_fill(int elsize, char *dst, const void *value, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		memcpy(dst + i * elsize, value, (size_t)elsize);
}
