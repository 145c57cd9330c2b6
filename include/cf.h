/* cf.h - the netCDF / CF attributes of a dataset that change what h5ufunc
 * computes or writes.
 *
 * Missing values: `_FillValue`, `missing_value`, `valid_min`, `valid_max`
 * and `valid_range`, as netCDF and numpy.ma read them (h5ufunc(1), MISSING
 * VALUES); `units`, the text UDUNITS-2 parses (units.c gives it meaning).
 * New datasets get their `_FillValue` where h5io creates them, in the same
 * step as the HDF5 fill value.  The HDF5 calls are h5io's typed attribute
 * functions: this file holds the conventions, not the I/O.
 */
#ifndef H5UFUNC_CF_H
#define H5UFUNC_CF_H

#include <hdf5.h>
#include <stdbool.h>

#include "arena.h"
#include "dtype.h"
#include "err.h"
#include "units.h"

/* A dataset's missing-value attributes, each converted to the dataset's
 * dtype: the values that mark an element missing (_FillValue, then
 * missing_value's), and the valid range (valid_min, valid_max, or
 * valid_range's two values). */
#define CF_MAXMISSING 5
struct cf_missing {
	bool fill_value;                  /* VALUE[0] is the _FillValue */
	int nvalues;
	unsigned char value[CF_MAXMISSING][16];
	bool has_min, has_max;
	unsigned char min[16], max[16];
};

/* Read them from dataset PATH of FILE, of dtype DT (none for bool).
 * Errors (EXIT_USAGE, at WHERE, naming DISPLAY): an attribute that is not
 * a number, or too many values.  Collective. */
int cf_missing_read(hid_t file, const char *path, enum dtype dt, struct cf_missing *m,
		    const char *where, const char *display, struct err *e);

/* The `units` attribute of dataset D: UK_KNOWN with its text, or UK_NONE
 * when it has none (or an empty one, or one that is not a string). */
struct units cf_units_read(hid_t d, struct arena *a);

/* Set (UK_KNOWN) or remove (otherwise) the `units` attribute of dataset D. */
int cf_units_write(hid_t d, struct units u);

#endif
