/* select.h - NumPy basic slicing of a dataset, and whether two selections
 * of one dataset overlap.
 *
 * Pure: arithmetic on extents and parsed selections (operand.h), no file is
 * read.  A selection keeps the dataset's axes (struct array_view, plan.h):
 * indexed axes are marked dropped rather than removed, so a selection maps
 * back onto the dataset's hyperslab directly.
 */
#ifndef H5UFUNC_SELECT_H
#define H5UFUNC_SELECT_H

#include <stdbool.h>

#include "err.h"
#include "operand.h"
#include "plan.h"

/* Resolve OP's selection against the dataset extents DSHAPE, as NumPy's
 * basic slicing does (negative indices count from the end, slices clip):
 * *V and the selection's shape *VSHAPE.  Errors (EXIT_USAGE, at W) name
 * the operand as TEXT, with NumPy's messages. */
int select_view(const struct operand *op, const struct shape *dshape, struct array_view *v,
		struct shape *vshape, const char *text, const char *w, struct err *e);
/* Does V run backwards along some axis (a negative step)? */
bool select_backwards(const struct array_view *v);
/* BUF holds the dataset box of extents COUNT (all of V's dataset axes, an
 * indexed one with extent one; elements of SIZE bytes, C order) that
 * holds a box of V's elements in the dataset's order: turn it round, in
 * place, along the axes V runs backwards, into V's order (or back: it is
 * its own inverse).  No allocation. */
void select_reverse(const struct array_view *v, const int64_t *count, size_t size, char *buf);
/* Reverse each of the OUTER rows of N elements of SIZE bytes at BUF, in
 * place (the one turn select_reverse and copied coordinates share). */
void select_reverse_rows(char *buf, int64_t outer, int64_t n, size_t size);
/* Do A and B select the same elements, in the same order? */
bool select_same_view(const struct array_view *a, const struct array_view *b);
/* May two arrays of one dataset (whole, or selections) touch common
 * elements?  Conservative: their bounding boxes. */
bool select_may_overlap(const struct array *a, const struct array *b);

#endif
