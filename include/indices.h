/* indices.h - the index arrays of reduceat and at: integer datasets or
 * literal lists, read as int64 box by box, and checked against the axis
 * they index, as NumPy checks them, before anything is written.
 *
 * An index array is an integer dataset (FILE:/PATH, or a name bound to
 * one) or a literal: a list "[0,31,59]" (1-d) or one integer (0-d).  The
 * check (indices_check) reads every value once, each rank a contiguous
 * share in C order, so the error names the first bad value NumPy names.
 * Not here: what the indices select (reduceat.h, at.h).
 */
#ifndef H5UFUNC_INDICES_H
#define H5UFUNC_INDICES_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "plan.h"

struct index_array {
	const char *display;        /* as written */
	struct array *x;            /* an integer (or bool) dataset; NULL for a literal: */
	const int64_t *values;      /* ... its values, in C order */
	struct shape shape;         /* its shape: (n,) for a list, () for one integer */
};

/* How the values of an index array are checked (NumPy's IndexError). */
enum index_rule {
	INDEX_SEGMENTS,   /* reduceat: 0 <= i < extent */
	INDEX_WRAPS       /* at: -extent <= i < extent, a negative one counted from the end */
};

/* TEXT, an entry of indices:, as literal values (a list "[...]" or an
 * integer) into IX, allocated from A: 1 when it is one, 0 when TEXT is
 * not a literal (a dataset or a name), -1 for a list that is not one of
 * integers (E, EXIT_USAGE, at W). */
int indices_literal(const char *text, struct arena *a, struct index_array *ix, const char *w,
		    struct err *e);

/* Is dataset dtype T one NumPy takes as indices?  0, or -1 with NumPy's
 * message in E (EXIT_USAGE, at W): RULE's (reduceat casts bools and
 * integers safely to int64; at takes integers, and reads bools as masks,
 * which it does not do here). */
int indices_dtype(enum dtype t, enum index_rule rule, const char *display, const char *w,
		  struct err *e);

/* Check every value of IX against EXTENT under RULE, UFUNC and AXIS
 * naming it in NumPy's message (E, EXIT_USAGE, at W).  A dataset is read
 * in boxes within MEMORY bytes, each rank a share.  Collective. */
int indices_check(const struct index_array *ix, enum index_rule rule, int64_t extent,
		  const char *ufunc, int axis, int64_t memory, const char *w, struct err *e);

/* All of IX's values (1-d), as int64, in a malloc'd array every rank
 * holds: each rank reads a share, then all are exchanged.  Collective. */
int64_t *indices_read_all(const struct index_array *ix, const char *w, struct err *e);

/* Scratch for indices_read: an index array's own box, as read (RAW,
 * NULL for an int64 dataset or a literal) and as int64 (OWN), each
 * allocated for the largest box read. */
struct index_scratch {
	char *raw;
	int64_t *own;
};

/* The box START/COUNT of the index space SPACE, into which IX broadcasts,
 * as int64 into OUT (C order).  Collective for a dataset. */
int indices_read(const struct index_array *ix, const struct shape *space, const int64_t *start,
		 const int64_t *count, struct index_scratch *b, int64_t *out, const char *w,
		 struct err *e);

#endif
