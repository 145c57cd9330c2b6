/* literal.h - number literals in operands: 2, -3, 2.5, 1e-3, nan, inf, true.
 *
 * Integer and float literals are *weak* (NumPy 2, NEP 50): they take the
 * dtype of the array they meet when they fit its kind, and an integer that
 * does not fit that dtype is an error.  true/false are NumPy bools (strong,
 * but bool casts safely to everything, so they behave alike).
 */
#ifndef H5UFUNC_LITERAL_H
#define H5UFUNC_LITERAL_H

#include <stdbool.h>
#include <stdint.h>

#include "dtype.h"
#include "err.h"

enum literal_kind { LIT_BOOL, LIT_INT, LIT_FLOAT };

struct literal {
	enum literal_kind kind;
	bool b;             /* LIT_BOOL */
	bool negative;      /* LIT_INT: the sign ... */
	uint64_t magnitude; /* ... and |value|, so -2**63 .. 2**64-1 are exact */
	bool huge;          /* LIT_INT beyond that: no integer dtype holds it */
	double f;           /* LIT_FLOAT; for LIT_INT too, the value as a double */
	const char *text;   /* as written (borrowed), for messages */
};

/* Parse TEXT as a literal: decimal integers (with optional sign, "_" not
 * allowed), floats as strtod reads them in decimal ("2.5", "1e-3", ".5"),
 * "nan", "inf", "-inf", "+inf", "true", "false" (also "True", "False").
 * Returns 0 with *OUT filled, or -1 when TEXT is not a literal (no error is
 * recorded: the caller tries other readings).  An integer beyond
 * -2**63 .. 2**64-1 is still a weak integer (huge set, its value as a
 * double in f): NumPy 2 converts it for a float dtype and refuses it for
 * an integer one, its default int64 included. */
int literal_parse(const char *text, struct literal *out);

/* The dtype NumPy gives the literal alone: bool, int64 (uint64 from 2**63
 * to 2**64-1) or float64. */
enum dtype literal_default_dtype(const struct literal *l);

/* np.can_cast of a weak literal to DT under CASTING, as NumPy 2's type
 * resolution sees it: a Python int may go to any integer or float dtype, a
 * Python float to any float or complex dtype; otherwise the default dtype's
 * rule. */
bool literal_can_cast(const struct literal *l, enum dtype dt, enum casting casting);

/* Convert the literal to one element of DT at OUT, as NumPy 2 converts a weak
 * Python scalar: an integer out of DT's range is an error ("Python integer
 * 300 out of bounds for int8", status EXIT_USAGE, at WHERE; a huge one "Python
 * int too large to convert to C long"); a float converts
 * with rounding (overflow to inf for float16/float32); a float or bool to an
 * integer dtype, or an int to bool, converts as an unsafe cast would. */
int literal_to_dtype(const struct literal *l, enum dtype dt, void *out,
		     const char *where, struct err *e);

/* Where the integer literal L lies against the integer dtype DT's range:
 * -1 below it, 1 above it (a huge one by its sign), 0 within it. */
int literal_int_side(const struct literal *l, enum dtype dt);

/* Store the literal into one element of DT as NumPy stores a Python scalar
 * given for a dtype it does not promote (initial=: PyArray_Pack, the
 * dtype's setitem): as literal_to_dtype, except a float for an integer
 * dtype, which Python's int() truncates first, so NaN ("cannot convert
 * float NaN to integer"), an infinity ("cannot convert float infinity to
 * integer") and a value beyond the C long NumPy reads it through ("Python
 * int too large to convert to C long") are errors (EXIT_USAGE, at WHERE);
 * a value within it wraps to DT as C's cast does (1000.0 for int8 is
 * -24). */
int literal_pack(const struct literal *l, enum dtype dt, void *out, const char *where,
		 struct err *e);

#endif
