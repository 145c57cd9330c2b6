/* dims.h - names of array axes: read from HDF5 dimension scales (netCDF-4's
 * and h5py's), broadcast by name as xarray does, and written back as scales.
 *
 * An axis is named by the scale attached to it; the name is the scale
 * dataset's own name (the last component of its path), as netCDF-4 names
 * dimensions.  An array names its axes only when every axis has a scale;
 * otherwise it has no names at all (NULL), and everything about it is
 * positional, as NumPy has it.  One exception: an axis that a selection's
 * None adds has no name (NULL) beside the named ones, which keep theirs
 * for the outputs; such an array broadcasts by position (dims_named), and
 * an output writes that axis as xarray's dim_N (dims_attach).  Names are plan-time facts: the kernels
 * never see them, only the views (axes inserted or permuted) that
 * broadcasting by name asks stage.c to read.
 */
#ifndef H5UFUNC_DIMS_H
#define H5UFUNC_DIMS_H

#include <hdf5.h>
#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "err.h"
#include "shape.h"

/* The segments of a reduceat along an axis (dims_reduceat), for the
 * coordinate its result gets: segment k starts at element AT[k] of the
 * reduceat's input, which is element FIRST[k] of the axis's scale, and
 * covers the scale's elements LO[k] to HI[k] (in the scale's order: the
 * cells whose bounds bound it). */
struct dims_segments {
	const int64_t *at, *first, *lo, *hi;
};

struct dims {
	int ndim;
	const char *name[H5U_MAXDIM];    /* the dimension's name */
	const char *file[H5U_MAXDIM];    /* the file of its scale, as opened ... */
	const char *scale[H5U_MAXDIM];   /* ... and its path there; NULL when the axis has
					    none (a --keepdims axis of length one) */
	int64_t start[H5U_MAXDIM];       /* the axis is elements START + STEP * j of the */
	int64_t step[H5U_MAXDIM];        /* scale (0 and 1: the scale as it is) ... */
	const struct dims_segments *seg[H5U_MAXDIM];   /* ... or, where not NULL, segments
							  START + STEP * j of a reduceat */
	bool unlimited[H5U_MAXDIM];      /* the input's axis can grow (netCDF's record
					    dimension): so can the output's */
};

/* The paths of a file's objects by address (dims.c), read by one walk of
 * its links the first time dims_read needs them, for every dataset of the
 * file after that: asked of HDF5 (H5Iget_name) for each scale of each
 * variable, a path costs a walk of the whole file each time, which made
 * reading the names of a netCDF file's N variables grow as N squared. */
struct dims_paths;

/* The names of dataset D's axes (SHAPE) in FILE (its name as opened), or
 * NULL when some axis has no scale.  A one-dimensional scale that has no
 * scale of its own (a netCDF-4 coordinate variable) names its one axis
 * after itself.  PATHS (NULL: none; else *PATHS NULL until the first call
 * makes it, in A) keeps FILE's paths for the next call on a dataset of the
 * same file, opened the same way; a scale not among them (an object
 * made after the walk) is asked of HDF5.  Never fails: what cannot be read
 * is unnamed. */
struct dims *dims_read(hid_t d, const char *file, struct dims_paths **paths, const struct shape *shape,
		       struct arena *a);

/* The names of a selection of X: indexed axes (DROPPED) are gone; axis i
 * is elements START[i] + STEP[i] * j of X's axis (a negative STEP runs
 * backwards), and keeps its name and its scale, sliced alike; axis j of
 * the selection where INSERTED[j] is one that None added, with no name.
 * NULL for NULL. */
struct dims *dims_select(const struct dims *x, const bool *dropped, const int64_t *start,
			 const int64_t *step, const bool *inserted, struct arena *a);
/* Does X name every axis (no axis None added)?  Only then do its names
 * broadcast (xarray's rule); false for NULL. */
bool dims_named(const struct dims *x);

/* After a reduction over REDUCED: the kept axes' names, and with KEEPDIMS
 * each reduced axis too (length one: its name, without a scale).  NULL for
 * NULL. */
struct dims *dims_reduce(const struct dims *x, const bool *reduced, bool keepdims, struct arena *a);

/* After a reduceat along AXIS whose N segments start at STARTS (checked,
 * NumPy's rule: where one does not precede the next, the segment is its
 * first element alone; the last runs to EXTENT): the axis keeps its name,
 * its elements the segments (dims_segments).  NULL for NULL. */
struct dims *dims_reduceat(const struct dims *x, int axis, const int64_t *starts, int64_t n,
			   int64_t extent, struct arena *a);

/* Axis I of X as axis J of Y: its name, its scale and which of the
 * scale's elements (or a reduceat's segments) it is, so that an output
 * with this axis gets the coordinate values X's axis has. */
void dims_copy_axis(struct dims *y, int j, const struct dims *x, int i);

/* The axes of X (bits 1 << axis) that an input can grow along (its netCDF
 * record dimension): 0 for NULL. */
unsigned dims_unlimited(const struct dims *x);

/* The axis named NAME, or -1. */
int dims_axis(const struct dims *x, const char *name);

/* xarray's broadcasting of N named arrays (IN, their SHAPES): the union of
 * the names in order of first appearance, each with its length.  Lengths
 * must agree by name: otherwise -1 with the two operands that disagree in
 * *A and *B and the axis's name in *NAME.  OUT is allocated from ARENA. */
int dims_union(int n, const struct dims *const *in, const struct shape *const *shapes,
	       struct arena *arena, struct dims **out, struct shape *shape,
	       int *a, int *b, const char **name);

/* Where each axis of the union U comes from in X: FROM[i] is X's axis
 * named U->name[i], or -1 (an inserted axis of length one).  True when X
 * already has U's trailing axes in U's order, so that NumPy's positional
 * rule lines it up and no view is needed. */
bool dims_map(const struct dims *u, const struct dims *x, int *from);

/* "(time, lat, lon)"; "()" for no axes. */
char *dims_format(const struct dims *x, char *buf, size_t len);

/* Attach to dataset PATH of the open file F the scales DIMS names, each
 * looked up as netCDF-C resolves a dimension (PATH's group, then its
 * parents): a scale of the name and the axis's length found on the way,
 * when it holds the values the axis's coordinate would (not for a
 * reversed or shifted axis: that one is named as a clash below);
 * else a coordinate variable made in F (at its scale's path when that
 * group encloses PATH's and nothing on the way has the name, else in
 * PATH's group): a copy of the scale sliced as the axis is, with its
 * attributes and its CF bounds variables (or without the attribute that
 * names them when they cannot be copied); for an axis without a scale, a
 * netCDF-4 dimension without a variable.  A reduceat's axis (seg) takes
 * its scale's elements at the segments' starts, and for bounds the hull
 * of its segment's cells (the lower bound of the first cell in the
 * scale's order, the upper of the last); an axis with no variable to take
 * them from takes the segment starts themselves (int64).  An axis without a
 * name (None's) is dimension dim_N, N its position, without a variable.
 * An axis whose name in PATH's group holds something else gets NAME_LENGTH
 * ("lat_4"), or where that holds something else too stays unnamed.  Not collective: one
 * process, with F open for it alone. */
int dims_attach(hid_t f, const char *path, const struct dims *dims, const struct shape *shape,
		const char *where, struct err *e);
/* Give each dimension scale of F without one netCDF-4's number
 * (_Netcdf4Dimid), after the largest there, as netCDF-C gives every
 * dimension it makes, so that netCDF-C numbers the dimensions the same
 * way every time it opens F.  Only in a file the run CREATED, or one
 * netCDF-C has numbered already: the scales of an h5py file are left as
 * they are.  After dims_attach, with F open as for it. */
int dims_number(hid_t f, bool created);

#endif
