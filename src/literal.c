/* literal.c - number literals in operands, and how NumPy 2 converts them.
 *
 * A literal is read once (literal_parse) and kept exact: an integer as sign
 * and magnitude, so every value from -2**63 to 2**64-1 survives, a float as
 * the double strtod reads.  Integer and float literals are weak (NEP 50):
 * they take the dtype of the array they meet, and literal_to_dtype converts
 * them as NumPy 2 converts a Python int or float for that dtype, with its
 * OverflowError text for an integer out of range.
 *
 * This module does not decide result dtypes (the ufunc type resolution
 * does, asking literal_can_cast) and does not read dataset references.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "literal.h"

/* Python's float() spellings of the special values, any case, after the
 * sign: "nan", "inf", "infinity". */
static bool is_special(const char *s)
{
	return strcasecmp(s, "nan") == 0 || strcasecmp(s, "inf") == 0 ||
	       strcasecmp(s, "infinity") == 0;
}

/* A decimal float as Python's float() reads it, without "_" or spaces:
 * digits with at most one ".", at least one digit, then an optional
 * exponent "e" or "E", an optional sign and digits. */
static bool is_decimal_float(const char *s)
{
	size_t digits = 0;
	if (*s == '+' || *s == '-')
		s++;
	while (*s >= '0' && *s <= '9')
		s++, digits++;
	if (*s == '.') {
		s++;
		while (*s >= '0' && *s <= '9')
			s++, digits++;
	}
	if (digits == 0)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

int literal_parse(const char *text, struct literal *out)
{
	memset(out, 0, sizeof *out);
	out->text = text;
	if (strcmp(text, "true") == 0 || strcmp(text, "True") == 0 ||
	    strcmp(text, "false") == 0 || strcmp(text, "False") == 0) {
		out->kind = LIT_BOOL;
		out->b = text[0] == 't' || text[0] == 'T';
		out->f = out->b;
		return 0;
	}

	/* an integer: an optional sign, then decimal digits only */
	const char *s = text;
	bool negative = *s == '-';
	if (*s == '+' || *s == '-')
		s++;
	if (*s != '\0' && strspn(s, "0123456789") == strlen(s)) {
		uint64_t magnitude = 0;
		bool fits = true;
		for (; *s; s++) {
			unsigned digit = (unsigned)(*s - '0');
			if (magnitude > (UINT64_MAX - digit) / 10) {
				fits = false;
				break;
			}
			magnitude = magnitude * 10 + digit;
		}
		if (negative && magnitude > (UINT64_C(1) << 63))
			fits = false;
		out->kind = LIT_INT;
		out->negative = negative && (magnitude != 0 || !fits);
		out->magnitude = magnitude;
		/* correctly rounded, as Python's float(int) */
		out->f = out->negative ? -(double)magnitude : (double)magnitude;
		if (fits)
			return 0;
		/* beyond int64 and uint64: NumPy 2 keeps it a Python int, which
		 * only a float dtype takes (ufunc_object.c replaces it by a
		 * default-int array for the promotion, then converts it) */
		out->huge = true;
		out->magnitude = UINT64_MAX;
		out->f = strtod(text, NULL);
		return 0;
	}

	const char *unsigned_text = text + (*text == '+' || *text == '-');
	if (!is_special(unsigned_text) && !is_decimal_float(text))
		return -1;
	errno = 0;
	char *end;
	/* strtod reads the same decimal spellings and rounds correctly; its
	 * ERANGE (overflow to inf, underflow to 0) is what float() gives too */
	out->f = strtod(text, &end);
	if (*end != '\0')
		return -1;
	out->kind = LIT_FLOAT;
	return 0;
}

enum dtype literal_default_dtype(const struct literal *l)
{
	switch (l->kind) {
	case LIT_BOOL:
		return DT_BOOL;
	case LIT_INT:
		/* np.asarray(2**63) is uint64: int64 does not hold it; beyond
		 * uint64 NumPy 2 promotes as the default int64 (and refuses it) */
		return !l->negative && !l->huge && l->magnitude > INT64_MAX ? DT_UINT64 : DT_INT64;
	default:
		return DT_FLOAT64;
	}
}

bool literal_can_cast(const struct literal *l, enum dtype dt, enum casting casting)
{
	char kind = dtype_table[dt].kind;
	if (l->kind == LIT_INT && (kind == 'i' || kind == 'u' || kind == 'f' || kind == 'c'))
		return true;
	if (l->kind == LIT_FLOAT && (kind == 'f' || kind == 'c'))
		return true;
	return dtype_can_cast(literal_default_dtype(l), dt, casting);
}

/* Whether the integer literal L is a value of the integer dtype DT. */
static bool int_in_range(const struct literal *l, enum dtype dt)
{
	int bits = 8 * dtype_table[dt].size;
	if (dtype_table[dt].kind == 'u')
		return !l->negative && (bits == 64 || l->magnitude < UINT64_C(1) << bits);
	uint64_t limit = UINT64_C(1) << (bits - 1);   /* |min|; max is limit - 1 */
	return l->negative ? l->magnitude <= limit : l->magnitude < limit;
}

int literal_int_side(const struct literal *l, enum dtype dt)
{
	if (!l->huge && int_in_range(l, dt))
		return 0;
	return l->negative ? -1 : 1;
}

int literal_to_dtype(const struct literal *l, enum dtype dt, void *out,
		     const char *where, struct err *e)
{
	char kind = dtype_table[dt].kind;
	if (l->kind == LIT_BOOL) {
		uint8_t b = l->b;
		dtype_cast(DT_BOOL, &b, 1, dt, out, dtype_size(dt), 1);
		return 0;
	}
	if (l->kind == LIT_INT && (kind == 'i' || kind == 'u')) {
		if (l->huge)   /* NumPy reads it through a C long first */
			return err_set(e, EXIT_USAGE, where, "Python int too large to convert to C long");
		if (!int_in_range(l, dt))
			return err_set(e, EXIT_USAGE, where,
				       "Python integer %s%llu out of bounds for %s",
				       l->negative ? "-" : "", (unsigned long long)l->magnitude,
				       dtype_name(dt));
		/* two's complement of the magnitude, truncated by the cast */
		uint64_t bits = l->negative ? 0 - l->magnitude : l->magnitude;
		dtype_cast(l->negative ? DT_INT64 : DT_UINT64, &bits, 8, dt, out, dtype_size(dt), 1);
		return 0;
	}
	if (l->kind == LIT_INT && kind == 'b') {
		uint8_t b = l->magnitude != 0;
		dtype_cast(DT_BOOL, &b, 1, dt, out, dtype_size(dt), 1);
		return 0;
	}
	/* a float, or an integer for a float or complex dtype: the double,
	 * converted as NumPy converts a Python float (to float16 directly, not
	 * through float32; overflow gives inf; a complex value gets a +0
	 * imaginary part) */
	dtype_cast(DT_FLOAT64, &l->f, 8, dt, out, dtype_size(dt), 1);
	return 0;
}

/* Which C integer NumPy's setitem reads a Python float through for the
 * integer dtype DT (arraytypes.c.src): unsigned long for uint32 and uint64,
 * which take a negative long too when the unsigned read fails; long for
 * the others.  Returns the exclusive top of that range; the bottom is
 * -2**63 either way. */
static double setitem_top(enum dtype dt)
{
	return dtype_table[dt].kind == 'u' && dtype_table[dt].size >= 4 ? 0x1p64 : 0x1p63;
}

int literal_pack(const struct literal *l, enum dtype dt, void *out, const char *where,
		 struct err *e)
{
	char kind = dtype_table[dt].kind;
	if (l->kind != LIT_FLOAT || (kind != 'i' && kind != 'u'))
		return literal_to_dtype(l, dt, out, where, e);
	if (isnan(l->f))
		return err_set(e, EXIT_USAGE, where, "cannot convert float NaN to integer");
	if (isinf(l->f))
		return err_set(e, EXIT_USAGE, where, "cannot convert float infinity to integer");
	double t = trunc(l->f);   /* Python's int() */
	if (t < -0x1p63 || t >= setitem_top(dt))
		return err_set(e, EXIT_USAGE, where, "Python int too large to convert to C long");
	/* the C integer, then C's cast to DT: it wraps */
	if (t >= 0x1p63) {
		uint64_t u = (uint64_t)t;
		dtype_cast(DT_UINT64, &u, 8, dt, out, dtype_size(dt), 1);
	} else {
		int64_t v = (int64_t)t;
		dtype_cast(DT_INT64, &v, 8, dt, out, dtype_size(dt), 1);
	}
	return 0;
}
