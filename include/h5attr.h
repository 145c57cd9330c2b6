/* h5attr.h - attributes of HDF5 objects as h5ufunc reads and writes them.
 *
 * Numbers and text read as dtypes and C strings, whatever their stored
 * type; attributes copied whole from one object to another; the NCO-style
 * `history` attribute of a file.  What the attributes mean (missing values,
 * units, CF's conventions) is cf.c's; this file holds the I/O.  HDF5's
 * errors are folded into the error record where a call takes one.
 */
#ifndef H5UFUNC_H5ATTR_H
#define H5UFUNC_H5ATTR_H

#include <hdf5.h>

#include "arena.h"
#include "dtype.h"
#include "err.h"

/* Attribute NAME of OBJ, N numbers at most, read as DT into OUT (16 bytes
 * each): how many it has (0: none); -1 when it is not numbers or has more
 * than N. */
int h5attr_numbers(hid_t obj, const char *name, enum dtype dt, int n, unsigned char (*out)[16]);
/* How many numbers attribute NAME of OBJ holds (0: none); -1 when it is
 * not numbers. */
int64_t h5attr_count(hid_t obj, const char *name);
/* Which of the N attribute NAMES OBJ has: bit i for NAMES[i].  Not
 * counted in iostat's metadata operations: it is asked once, while
 * planning, of every dataset read (what cf.c reads, if anything). */
unsigned h5attr_present(hid_t obj, const char *const *names, int n);
/* The dtype of numeric attribute NAME of OBJ into *DT: 1; 0 when OBJ has
 * no such attribute; -1 when it is not an integer or float h5ufunc reads. */
int h5attr_dtype(hid_t obj, const char *name, enum dtype *dt);
/* Create attribute NAME of OBJ holding VALUE, one element of DT. */
int h5attr_write_number(hid_t obj, const char *name, enum dtype dt, const void *value);
/* The text calls and the copy are not counted in iostat's metadata
 * operations: they read units while planning or describe results (rank 0
 * alone, after the collective writes), outside the SCALING model. */
/* The text of string attribute NAME of OBJ (fixed or variable length),
 * copied into A; NULL when OBJ has no such attribute or it is not text. */
char *h5attr_text(hid_t obj, const char *name, struct arena *a);
/* Set attribute NAME of OBJ to TEXT, replacing what was there in the type
 * it had (a variable-length string stays one, its character set kept; a
 * fixed-length one takes TEXT's length), or as a fixed-length string when
 * it was none or no string; unchanged text is not rewritten.  With TEXT
 * NULL, remove it. */
int h5attr_write_text(hid_t obj, const char *name, const char *text);
/* Copy attribute NAME of SRC, whatever its type and shape, onto DST. */
int h5attr_copy(hid_t src, const char *name, hid_t dst);

/* Prepend LINE to FILE's root attribute "history" (created if absent).
 * Collective: every rank passes the same LINE. */
int h5attr_history(hid_t file, const char *line, const char *where, struct err *e);

#endif
