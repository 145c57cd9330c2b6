/* shape.h - array shapes and NumPy broadcasting.  Pure; no I/O. */
#ifndef H5UFUNC_SHAPE_H
#define H5UFUNC_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most axes an array may have: HDF5's (H5S_MAX_RANK). */
#define H5U_MAXDIM 32

struct shape {
	int ndim;
	int64_t dim[H5U_MAXDIM];
};

/* Number of elements (1 for a 0-d shape). */
int64_t shape_size(const struct shape *s);
bool shape_equal(const struct shape *a, const struct shape *b);
/* NumPy's text: "(3, 4)", "(3,)", "()".  BUF of at least 32 * 22 bytes. */
char *shape_format(const struct shape *s, char *buf, size_t len);
/* The same without spaces, as NumPy's broadcast error writes it: "(3,4)". */
char *shape_format_compact(const struct shape *s, char *buf, size_t len);
/* Broadcast N shapes as NumPy does.  Returns 0, or -1 when they do not
 * broadcast (OUT is then undefined). */
int shape_broadcast(int n, const struct shape *const *in, struct shape *out);
/* Rows of the shape as blocks see them: dim[0], or 1 for a 0-d shape. */
int64_t shape_rows(const struct shape *s);
/* Elements in one row: the product of dim[1..], 1 for 0-d and 1-d shapes. */
int64_t shape_row_size(const struct shape *s);

/* The most bytes a chunk of shape_chunks holds, and the most records it
 * takes along an axis that grows. */
#define SHAPE_CHUNK_BYTES ((int64_t)1 << 20)
#define SHAPE_CHUNK_RECORDS 1024
/* The chunks of a new dataset of shape S, elements of SIZE bytes, that
 * grows along the axes GROWS (bits 1 << axis: netCDF's record dimension),
 * into CHUNK: every axis that does not grow whole (an empty one 1), the
 * largest of them halved (rounding up; the first of equals) while a chunk
 * holds over SHAPE_CHUNK_BYTES; then the first axis that grows takes as
 * many records as fit in SHAPE_CHUNK_BYTES, 1 to SHAPE_CHUNK_RECORDS
 * (whatever its extent: the records appended later fill them), and any
 * other that grows 1.  Without GROWS: h5ufunc's chunks: auto. */
void shape_chunks(const struct shape *s, int64_t size, unsigned grows, int64_t *chunk);

#endif
