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
/* Do A and B select the same elements? */
bool select_same_view(const struct array_view *a, const struct array_view *b);
/* May two arrays of one dataset (whole, or selections) touch common
 * elements?  Conservative: their bounding boxes. */
bool select_may_overlap(const struct array *a, const struct array *b);

#endif
