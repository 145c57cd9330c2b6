/* iter.h - strided n-d iteration: driving a 1-D type loop over an n-d
 * index space, and the copies and fills that reductions and scans need.
 *
 * Operands are described by a base pointer and one byte stride per axis of
 * the index space (0 along axes where the operand is broadcast, or where a
 * reduction's accumulator stays put).  Pure memory work: no I/O, no MPI.
 */
#ifndef H5UFUNC_ITER_H
#define H5UFUNC_ITER_H

#include <stddef.h>
#include <stdint.h>

#include "shape.h"   /* H5U_MAXDIM */
#include "ufunc.h"

typedef ptrdiff_t iter_strides[H5U_MAXDIM];

/* Call FN over the NDIM-dimensional index space DIMS in C order, operand k
 * starting at BASE[k] with byte strides ST[k].  Axes of extent 1 are
 * dropped and axes contiguous for every operand merged, so same-shape
 * operands make one call.  Nothing happens when an extent is 0. */
void iter_loop(ufunc_loop_fn fn, int nargs, char *const *base, int ndim,
	       const int64_t *dims, const iter_strides *st);

/* NumPy's buffer size: a reduction's loop sees at most this many elements
 * of a run in one call, so a sum folds a longer run in pieces of it, each
 * summed pairwise and added to the running value in order. */
#define ITER_PIECE 8192

/* The same without merging or dropping axes: every call covers one run of
 * the innermost axis, or ITER_PIECE elements of it, from the run's start.
 * Reductions use it, so that how elements are grouped into calls (and so a
 * pairwise sum's rounding) is NumPy's, from the array's shape alone, never
 * from how rows were split into blocks or ranks. */
void iter_fold(ufunc_loop_fn fn, int nargs, char *const *base, int ndim,
	       const int64_t *dims, const iter_strides *st);

/* NumPy's pairwise sum of N elements of the float or complex dtype T (a
 * reduce of add): a block of at most 128 reals (64 complex numbers) is
 * summed by one loop of eight accumulators; a longer run is split in two,
 * each half summed so, the halves added.  Returns the elements of the
 * first half, or 0 when N is one block. */
int64_t iter_pairwise_half(enum dtype t, int64_t n);

/* Byte strides of a C-ordered buffer of DIMS, with stride 0 on every axis
 * where DIMS is 1 but SPACE (the index space) is not. */
void iter_contiguous(int ndim, const int64_t *dims, const int64_t *space, int elsize,
		     ptrdiff_t *st);

/* The copy loop for elements of ELSIZE bytes (args: source, destination). */
ufunc_loop_fn iter_copy_loop(int elsize);

/* Copy the index space from SRC (strides SST) to DST (strides DST_ST). */
void iter_copy(int elsize, char *src, const ptrdiff_t *sst, char *dst,
	       const ptrdiff_t *dst_st, int ndim, const int64_t *dims);

/* Copy the index space from SRC (dtype FROM, strides SST) to DST (dtype TO,
 * strides DST_ST), converting as dtype_cast does. */
void iter_cast(enum dtype from, char *src, const ptrdiff_t *sst, enum dtype to, char *dst,
	       const ptrdiff_t *dst_st, int ndim, const int64_t *dims);

/* Fill N contiguous elements of ELSIZE bytes at DST with the element at VALUE. */
void iter_fill(int elsize, char *dst, const void *value, int64_t n);

#endif
