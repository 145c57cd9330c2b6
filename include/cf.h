/* cf.h - the netCDF / CF attributes of a dataset that change what h5ufunc
 * computes or writes.
 *
 * Missing values: `_FillValue`, `missing_value`, `valid_min`, `valid_max`
 * and `valid_range`, as netCDF and numpy.ma read them (h5ufunc(1), MISSING
 * VALUES); `units`, the text UDUNITS-2 parses (units.c gives it meaning);
 * packing: `scale_factor`, `add_offset` and `_Unsigned`, the coding that
 * turns a dataset's stored numbers into the values they mean and back
 * (h5ufunc(1), CF DECODING), with the test of which are missing.
 * New datasets get their `_FillValue` where h5io creates them, in the same
 * step as the HDF5 fill value.  The HDF5 calls are h5io's typed attribute
 * functions: this file holds the conventions, not the I/O.
 */
#ifndef H5UFUNC_CF_H
#define H5UFUNC_CF_H

#include <hdf5.h>
#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "dtype.h"
#include "err.h"
#include "units.h"

/* A dataset's missing-value attributes, each converted to the dataset's
 * dtype: the values that mark an element missing (_FillValue, then
 * missing_value's: CF allows a vector of any length, and h5ufunc reads up
 * to CF_MAXMISSING of them, far more than files carry), and the valid
 * range (valid_min, valid_max, or valid_range's two values). */
#define CF_MAXMISSING 64
struct cf_missing {
	bool nan;                         /* NaN marks an element missing (a
					     packed dataset's decoded values) */
	bool fill_value;                  /* VALUE[0] is the _FillValue */
	int nvalues;
	unsigned char value[CF_MAXMISSING + 1][16];
	bool has_min, has_max;
	unsigned char min[16], max[16];
};

/* The attributes this file reads, as bits of a mask of those a dataset has. */
enum cf_attr {
	CF_FILL_VALUE, CF_MISSING_VALUE, CF_VALID_MIN, CF_VALID_MAX, CF_VALID_RANGE,
	CF_SCALE_FACTOR, CF_ADD_OFFSET, CF_UNSIGNED, CF_NATTRS
};
#define CF_MISSING_ATTRS ((1u << CF_SCALE_FACTOR) - 1)   /* _FillValue to valid_range */

/* Which of them dataset D has (1u << CF_...), asked once when it is
 * opened: a dataset without any is read as its stored numbers with no more
 * questions asked. */
unsigned cf_attrs_present(hid_t d);

/* Read them from dataset PATH of FILE, of dtype DT (none for bool), of
 * those PRESENT says it has (nothing is read when none).  A value that DT
 * cannot hold exactly is left out, as netCDF4-python leaves it out.
 * Errors (EXIT_USAGE, at WHERE, naming DISPLAY): an attribute that is not
 * a number, or a missing_value of more than CF_MAXMISSING values.
 * Collective. */
int cf_missing_read(hid_t file, const char *path, enum dtype dt, unsigned present,
		    struct cf_missing *m, const char *where, const char *display, struct err *e);
/* Does M say anything is missing? */
bool cf_missing_any(const struct cf_missing *m);
/* Into OUT, a value of T that M reads as missing, for a dataset written in
 * place to hold its missing elements: its _FillValue, else its first
 * missing_value, else the value just past its valid range (-inf, +inf for
 * floats).  False (OUT untouched) when M marks none, or when its valid
 * range is all of T. */
bool cf_missing_marker(const struct cf_missing *m, enum dtype t, void *out);
/* VALID[i] = 1 unless element i of DATA (N elements of T) is missing by
 * M's tests (M NULL: none) or, with NAN and T floating, is a NaN. */
void cf_valid(enum dtype t, const struct cf_missing *m, bool nan, const char *data, int64_t n,
	      uint8_t *valid);

/* How a dataset's stored numbers become the values they mean (the packed
 * and the unpacked values of CF section 8.1), and back:
 *   unpacked = packed * scale_factor + add_offset, in DTYPE,
 * each packed value first read as PACKED (the unsigned dtype of its size
 * under _Unsigned = "true") and cast to DTYPE; a packed value that the
 * missing-value attributes mark missing unpacks to NaN.  Packing is the
 * inverse, netCDF4-python's and NCO's: (value - add_offset) / scale_factor
 * in DTYPE, rounded half to even; NaN packs as FILL. */
struct cf_coding {
	enum dtype stored;          /* the dataset's dtype, as HDF5 reads it */
	enum dtype packed;          /* ... as its bytes mean it (_Unsigned) */
	enum dtype dtype;           /* the unpacked values' dtype: that of
				       scale_factor and add_offset, else PACKED */
	bool has_scale, has_offset;
	unsigned char scale[16], offset[16];    /* in DTYPE */
	struct cf_missing missing;  /* on the packed values */
	bool has_fill;              /* what a NaN packs as: _FillValue, else */
	unsigned char fill[16];     /* missing_value's first value, else just
				       past the valid range, in PACKED */
	const char *display;        /* the dataset, for messages */
	/* A new output packed from its results' range (NCO's ncpdq): */
	bool from_range;            /* scale and offset are chosen once ... */
	bool ranging;               /* ... the step has run once without writing, */
	bool seen;                  /* ... finding the lowest and highest of */
	double lo, hi;              /* its values that are not NaN */
};

/* The coding of dataset PATH of FILE, of dtype STORED, with the
 * attributes PRESENT (cf_attrs_present), into *OUT (allocated from A), or
 * NULL when it has no coding attributes (nor missing-value ones: the
 * values are the stored numbers).  Errors (EXIT_USAGE, at WHERE): an
 * attribute that is not a number, a scale_factor or add_offset that is not
 * a float.  Collective. */
int cf_coding_read(hid_t file, const char *path, enum dtype stored, unsigned present,
		   struct arena *a, const struct cf_coding **out, const char *where,
		   const char *display, struct err *e);
/* Does C change the stored numbers (scale, offset or _Unsigned), rather
 * than only say which are missing? */
bool cf_coding_transforms(const struct cf_coding *c);
/* Does C compute its values from the stored numbers (scale, offset), rather
 * than only read the same bytes as another dtype (_Unsigned alone)?  Values
 * only reinterpreted are tested for what reads back as missing as a
 * dataset's own numbers are (masked.c), not as they are packed. */
bool cf_coding_scales(const struct cf_coding *c);
/* The tests that say which unpacked values of C are missing (NaN, or the
 * packed values' own tests when nothing is scaled), into *M. */
void cf_coding_missing(const struct cf_coding *c, struct cf_missing *m);
/* Unpack N packed values at SRC (C's STORED dtype) into DST (C's DTYPE).
 * SRC and DST may be the same buffer, of N times the larger size. */
void cf_decode(const struct cf_coding *c, const char *src, char *dst, int64_t n);
/* Pack N values at SRC (C's DTYPE) into DST (C's STORED dtype); SRC and
 * DST as cf_decode takes them.  When C scales, a value that does not pack
 * into a value of PACKED that reads back as a value (out of its range, or
 * missing by C's tests) is an error (EXIT_RUN, at WHERE); values only
 * reinterpreted (_Unsigned alone) are copied, the missing ones among them
 * as the fill they carry already. */
int cf_encode(const struct cf_coding *c, const char *src, char *dst, int64_t n, const char *where,
	      struct err *e);
/* A new output's coding (pack: PACKED), its values of dtype DTYPE: with
 * SCALE (and OFFSET, either NULL) given, or else chosen from the values'
 * range (from_range).  Its fill: the lowest value of a signed PACKED, the
 * highest of an unsigned one. */
struct cf_coding *cf_coding_new(enum dtype packed, enum dtype dtype, const double *scale,
				const double *offset, const char *display, struct arena *a);
/* Fold N values at DATA (C's DTYPE) into C's range. */
void cf_range_fold(struct cf_coding *c, const char *data, int64_t n);
/* C's scale and offset from its range, as NCO's ncpdq chooses them. */
void cf_range_choose(struct cf_coding *c);
/* Write C's scale_factor and add_offset attributes (those it has) on
 * dataset D. */
int cf_coding_write(hid_t d, const struct cf_coding *c);

/* The `units` attribute of dataset D: UK_KNOWN with its text, or UK_NONE
 * when it has none (or an empty one, or one that is not a string). */
struct units cf_units_read(hid_t d, struct arena *a);

/* Set (UK_KNOWN) or remove (otherwise) the `units` attribute of dataset D. */
int cf_units_write(hid_t d, struct units u);

#endif
