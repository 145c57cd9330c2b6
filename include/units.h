/* units.h - the units of arrays, as CF's `units` attributes spell them
 * (UDUNITS-2), carried through ufuncs as unyt computes them.
 *
 * What it is: the reading and writing of `units` attributes, and the
 * units of a ufunc's result from its operands' (the catalogue's units
 * column, ufunc.h), for the default mode, `units: propagate`: the units
 * that can be determined are written, the others are left out, and no
 * value ever changes; and for `units: strict`, what unyt refuses and
 * the factors by which it converts operands (units_strict).  What it is
 * not: the conversion itself, which is one more op of the step's program
 * (planner.h: lower_convert).  Names of units are
 * compared through UDUNITS-2 (`m s-1` and `m/s` are one unit); a unit
 * that is computed is written as UDUNITS-2 defines it ("m2.s-2"), or,
 * where that has a factor ("7464960000 s2"), in the operands' own units
 * ("days2").  Reference times ("days since 2000-01-01") are points in
 * time, operands only of the ufuncs NumPy's datetime64 is (the catalogue's
 * UF_TAKES_DATES): a date minus a date is a duration ("days"), a date plus
 * a duration a date, a sum of dates nothing (UNITS_SUM and
 * UNITS_DIFFERENCE), the latest of dates a date; of a negated, absolute,
 * scaled, ... date nothing can be determined, and strict refuses it.
 */
#ifndef H5UFUNC_UNITS_H
#define H5UFUNC_UNITS_H

#include <stdbool.h>

#include "arena.h"
#include "ufunc.h"

/* What is known of an array's units. */
enum units_kind {
	UK_NONE,       /* dimensionless: no units (no attribute) */
	UK_KNOWN,      /* TEXT */
	UK_UNKNOWN     /* cannot be determined: the attribute is left out */
};

struct units {
	enum units_kind kind;
	const char *text;   /* UK_KNOWN */
	bool weak;          /* a literal: takes the units of what it is added to */
	double value;       /* ... its value (a literal exponent of power) */
};

/* The units of each result of UF (the catalogue's units column; a
 * two-output ufunc's are dimensionless) on the N operands IN; text from A. */
struct units units_apply(const struct ufunc *uf, int n, const struct units *in, struct arena *a);

/* Is X a reference time: CF's "UNIT since DATE" of a time coordinate,
 * UNIT a unit of time? */
bool units_dated(struct units x);
/* Does reduce, reduceat or accumulate of UF over X turn reference times
 * (X's units CF's "UNIT since DATE" of a time coordinate) into values
 * that are no dates: every ufunc but one that picks an operand (maximum,
 * minimum) -- a sum of dates is not a date, the latest one is. */
bool units_fold_undates(const struct ufunc *uf, struct units x);
/* The units of reduce (ACCUMULATE false), reduceat or accumulate of UF
 * (the catalogue's units column) over COUNT elements of X; of reference
 * times that the fold undates, those of their durations since the
 * reference ("days" for a sum of "days since 2000-01-01"). */
struct units units_fold(const struct ufunc *uf, bool accumulate, long long count, struct units x,
			struct arena *a);

/* units: strict, for one call of UF on the N operands IN (named NAME in
 * messages): 0 when unyt accepts it, with FACTOR[k] what operand k's
 * values are to be multiplied by first (1: unchanged) -- the second
 * operand of add, subtract, a comparison, ... converted to the first's
 * units, an angle to radians -- and IN as converted (the first's units;
 * none for exp, sin, ...); -1 with a message in MSG (LEN bytes) when
 * unyt refuses it: operands whose units are not convertible (a number and
 * an operand with units among them), a dimensioned operand of exp, log,
 * ..., or units that cannot be determined. */
int units_strict(const struct ufunc *uf, int n, struct units *in, const char *const *name,
		 double *factor, char *msg, size_t len);

#endif
