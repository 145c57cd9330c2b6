/* cfdesc.h - the CF attributes that say what a result is: `long_name`,
 * `standard_name`, `cell_methods` and a date's `calendar`, carried from a step's inputs to its
 * outputs where they stay true (h5ufunc(1), NETCDF).
 *
 * The rules, as NCO keeps them where they stay true: a reduction (reduce,
 * or reduceat's segments) whose ufunc is a CF cell method (the catalogue's
 * column: add is `sum`, maximum and fmax `maximum`, minimum and fmin
 * `minimum`) keeps its input's names and appends "NAME: METHOD" to its
 * `cell_methods`, as ncwa and ncra do; a reduction by another ufunc, over
 * unnamed axes, or an accumulation, describes a quantity CF has no name for
 * and carries none of them.  An elementwise step keeps an attribute only
 * when every op of it keeps units (the catalogue's UNITS_SAME, UNITS_SUM
 * and UNITS_DIFFERENCE: add, maximum, negative, ...) and every array
 * operand has the attribute with one value.  A result of reference times
 * that is no longer a date (a sum of them, a difference of two: units.h's
 * units_dated) keeps no long_name or standard_name (ncap2 takes
 * the leftmost variable's attributes whatever the operation; here
 * hypot(u, v) does not call itself eastward_wind).  `calendar` belongs to
 * a date's units: a result that is a date (units_dated: t + 1, the latest
 * of t and t0, a maximum over time) keeps the one calendar its dated
 * inputs agree on, any other result none (plan_units.c), so that xarray
 * decodes a noleap date as one.
 *
 * Not here: units (units.h), missing values (cf.h), coordinates and
 * their bounds (dims.h).  These are plan-time facts, written by the end
 * of a run onto the datasets it creates; a dataset written in place keeps
 * its own.
 */
#ifndef H5UFUNC_CFDESC_H
#define H5UFUNC_CFDESC_H

#include <hdf5.h>
#include <stdbool.h>

#include "arena.h"

struct cfdesc {
	const char *long_name;       /* NULL: none */
	const char *standard_name;
	const char *cell_methods;
	const char *calendar;        /* a date's: see above */
};

/* Dataset D's (fields NULL where it has none, or not as text). */
struct cfdesc cfdesc_read(hid_t d, struct arena *a);

/* An elementwise result of the N array operands IN: each attribute that
 * every one of them has with one value, when SAME_QUANTITY (every op keeps
 * units); else none. */
struct cfdesc cfdesc_elementwise(int n, const struct cfdesc *const *in, bool same_quantity);

/* A reduction of X over the NAXES axes named NAMES (NULL: unnamed) by a
 * ufunc whose cell method is METHOD (NULL: none): X's names with
 * "NAME: NAME: METHOD" appended to its cell_methods; none without a
 * method or names. */
struct cfdesc cfdesc_reduce(const struct cfdesc *x, const char *method, int naxes,
			    const char *const *names, struct arena *a);

/* The calendar all N of IN have, one value, or NULL. */
const char *cfdesc_calendar(int n, const struct cfdesc *const *in);

/* Write X's attributes onto D, a dataset the run created; 0 or -1. */
int cfdesc_write(hid_t d, const struct cfdesc *x);

#endif
