/* print.c - results as text or JSON on stdout (SPEC 1).
 *
 * Each float is written with the fewest significant digits that read back
 * as the same value of its own dtype, laid out as NumPy's str() of a scalar
 * lays it out (the same as Python's repr of a float): positional when
 * 1e-4 <= |x| < 1e16 or x is zero, with ".0" when integral, scientific
 * otherwise with a two-digit-minimum exponent ("1e-05", "1.5e+16").
 * Integers in decimal, bools True/False.  A complex value is written as
 * NumPy's str() of a complex scalar writes it, without the parentheses:
 * each part in the shortest form of its part type (float32 for complex64)
 * but without the ".0" of an integral value, the imaginary part signed and
 * followed by "j" ("1+2j", "-0.5-1e-05j", "nan+infj"), a NaN part
 * unsigned whatever its sign bit ("1+nanj"); a real part of +0 is left
 * out ("2j", "0j", "-0j"), one of -0 is not ("-0+2j").
 * In JSON a complex value is the list [real, imaginary] of its parts,
 * each as a float of the part type ([1.0, -2.5], ["nan", 0.0]).  Decimals
 * are written and read with printf and strtod, in the C locale that
 * h5ufunc runs in.
 *
 * This module only formats values that are already in memory; it does not
 * read datasets or decide what to print.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"

/* A positive decimal: its significant DIGITS (no sign, no point) and
 * EXP10, the value being D.IGITS * 10**EXP10. */
struct decimal {
	char digits[24];
	int exp10;
};

/* Whether the decimal TEXT reads back as the value at VALUE, in one dtype. */
typedef bool (*roundtrip_fn)(const char *text, const void *value);

static bool roundtrip_float64(const char *text, const void *value)
{
	double d = strtod(text, NULL);
	return memcmp(&d, value, sizeof d) == 0;
}

static bool roundtrip_float32(const char *text, const void *value)
{
	float f = strtof(text, NULL);
	return memcmp(&f, value, sizeof f) == 0;
}

static bool roundtrip_float16(const char *text, const void *value)
{
	/* a decimal of at most 5 digits is never so close to a float16
	 * rounding boundary that rounding through double moves it */
	uint16_t h = half_from_double(strtod(text, NULL));
	return memcmp(&h, value, sizeof h) == 0;
}

/* Split "d.ddde[+-]XX" (printf's %e of a positive value) into D. */
static void decimal_from_e(const char *e_text, struct decimal *d)
{
	size_t n = 0;
	const char *s = e_text;
	for (; *s && *s != 'e'; s++)
		if (*s != '.')
			d->digits[n++] = *s;
	d->digits[n] = '\0';
	d->exp10 = atoi(s + 1);
}

/* Write D as "d.ddde+XX" into TEXT (at least 40 bytes). */
static void decimal_to_e(const struct decimal *d, char *text)
{
	size_t n = strlen(d->digits);
	text[0] = d->digits[0];
	size_t k = 1;
	if (n > 1) {
		text[k++] = '.';
		memcpy(text + k, d->digits + 1, n - 1);
		k += n - 1;
	}
	text[k++] = 'e';
	int e = d->exp10;
	if (e < 0) {
		text[k++] = '-';
		e = -e;
	}
	char rev[8];
	int m = 0;
	do {
		rev[m++] = (char)('0' + e % 10);
		e /= 10;
	} while (e > 0);
	while (m > 0)
		text[k++] = rev[--m];
	text[k] = '\0';
}

/* Add one unit in the last digit of D (the decimal just above it with as
 * many digits); 999 becomes 100 with the exponent one higher. */
static void decimal_step_up(struct decimal *d)
{
	size_t n = strlen(d->digits);
	size_t i = n;
	while (i > 0 && d->digits[i - 1] == '9')
		d->digits[--i] = '0';
	if (i > 0) {
		d->digits[i - 1]++;
	} else {
		d->digits[0] = '1';
		d->exp10++;
	}
}

static void decimal_trim(struct decimal *d)
{
	size_t n = strlen(d->digits);
	while (n > 1 && d->digits[n - 1] == '0')
		d->digits[--n] = '\0';
}

/* FULL is X to 17 significant digits, correctly rounded (enough for any
 * of our floats).  Set *OUT to X correctly rounded to P <= 17 digits:
 * from FULL's digits, unless rounding FULL again could differ from
 * rounding X once (FULL's digits past P are exactly 5000...), where printf
 * decides. */
static void decimal_round(const struct decimal *full, double x, int p, struct decimal *out)
{
	*out = *full;
	if (p >= 17)
		return;
	const char *rest = full->digits + p;
	if (rest[0] == '5' && strspn(rest + 1, "0") == strlen(rest + 1)) {
		char text[48];
		snprintf(text, sizeof text, "%.*e", p - 1, x);
		decimal_from_e(text, out);
		return;
	}
	out->digits[p] = '\0';
	if (rest[0] >= '5')
		decimal_step_up(out);
}

/* Whether some decimal of P significant digits reads back as the positive
 * finite value X (VALUE points at it in its own dtype; FULL is X to 17
 * digits); if so, it is in *OUT.  The correctly rounded decimal is tried
 * first, then the one above it: at a power of two the interval that reads
 * back is narrower below the value than above, so the nearer decimal may
 * miss while the other hits. */
static bool decimal_of_length(double x, const struct decimal *full, const void *value,
			      roundtrip_fn roundtrip, int p, struct decimal *out)
{
	char text[48];
	decimal_round(full, x, p, out);
	decimal_to_e(out, text);
	if (roundtrip(text, value))
		return true;
	struct decimal up = *out;
	decimal_step_up(&up);
	decimal_to_e(&up, text);
	if (!roundtrip(text, value))
		return false;
	*out = up;
	return true;
}

/* The shortest decimal that reads back as the positive finite value X, of
 * at most MAXDIGITS digits (which always suffice).  If P digits do, P + 1
 * do too (the P-digit decimal with a zero appended), so the length is
 * found by bisection. */
static void shortest_decimal(double x, const void *value, roundtrip_fn roundtrip,
			     int maxdigits, struct decimal *out)
{
	char text[48];
	struct decimal full;
	snprintf(text, sizeof text, "%.16e", x);
	decimal_from_e(text, &full);
	int lo = 1, hi = maxdigits;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (decimal_of_length(x, &full, value, roundtrip, mid, out))
			hi = mid;
		else
			lo = mid + 1;
	}
	if (!decimal_of_length(x, &full, value, roundtrip, lo, out))
		decimal_round(&full, x, maxdigits, out);   /* not reached */
	decimal_trim(out);
}

/* Lay out SIGN and D as NumPy's str() does, positional or scientific. */
static char *layout(bool negative, const struct decimal *d, bool positional, char *buf)
{
	char *s = buf;
	if (negative)
		*s++ = '-';
	int n = (int)strlen(d->digits);
	int e = d->exp10;
	if (!positional) {
		*s++ = d->digits[0];
		if (n > 1) {
			*s++ = '.';
			memcpy(s, d->digits + 1, (size_t)n - 1);
			s += n - 1;
		}
		sprintf(s, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
		return buf;
	}
	if (e < 0) {
		/* 0.000ddd */
		*s++ = '0';
		*s++ = '.';
		for (int i = 0; i < -e - 1; i++)
			*s++ = '0';
		memcpy(s, d->digits, (size_t)n);
		s += n;
	} else if (e >= n - 1) {
		/* ddd000.0 */
		memcpy(s, d->digits, (size_t)n);
		s += n;
		for (int i = 0; i < e - (n - 1); i++)
			*s++ = '0';
		*s++ = '.';
		*s++ = '0';
	} else {
		/* dd.ddd */
		memcpy(s, d->digits, (size_t)e + 1);
		s += e + 1;
		*s++ = '.';
		memcpy(s, d->digits + e + 1, (size_t)(n - e - 1));
		s += n - e - 1;
	}
	*s = '\0';
	return buf;
}

/* Format the float X of a float dtype; ABSVALUE points at |X| in that
 * dtype, for ROUNDTRIP to compare with. */
static char *format_float(double x, const void *absvalue, roundtrip_fn roundtrip,
			  int maxdigits, char *buf)
{
	if (isnan(x))
		return strcpy(buf, "nan");
	if (isinf(x))
		return strcpy(buf, x < 0 ? "-inf" : "inf");
	bool negative = signbit(x);
	double a = fabs(x);
	struct decimal d = { "0", 0 };
	if (a != 0)
		shortest_decimal(a, absvalue, roundtrip, maxdigits, &d);
	/* NumPy compares the value itself (in long double) with the bounds,
	 * so float32(1e-4), just below 1e-4, is "1e-04" */
	long double la = a;
	bool positional = a == 0 || (la >= 1e-4L && la < 1e16L);
	return layout(negative, &d, positional, buf);
}

/* One part X of a complex value, as NumPy's str() writes it inside the
 * complex: the part's float form without the ".0" of an integral value
 * ("1", "-0", "0.5", "1e+16"); with PLUS, a "+" before a value without a
 * minus sign.  A NaN is "nan" ("+nan" with PLUS) whatever its sign bit. */
static char *format_part(double x, const void *absvalue, roundtrip_fn roundtrip, int maxdigits,
			 bool plus, char *buf)
{
	char *s = buf;
	if (plus && (isnan(x) || !signbit(x)))
		*s++ = '+';
	format_float(x, absvalue, roundtrip, maxdigits, s);
	size_t n = strlen(s);
	if (n >= 2 && strcmp(s + n - 2, ".0") == 0)
		s[n - 2] = '\0';
	return buf;
}

/* Part PART (0 real, 1 imaginary) of the complex element of DT at P, as
 * format_part writes it. */
static char *complex_part(enum dtype dt, const unsigned char *p, int part, bool plus, char *buf)
{
	if (dt == DT_COMPLEX64) {
		float f, fmag;
		memcpy(&f, p + part * sizeof f, sizeof f);
		fmag = fabsf(f);
		return format_part(f, &fmag, roundtrip_float32, 9, plus, buf);
	}
	double d, dmag;
	memcpy(&d, p + part * sizeof d, sizeof d);
	dmag = fabs(d);
	return format_part(d, &dmag, roundtrip_float64, 17, plus, buf);
}

/* The complex element of DT at P as NumPy's str() without parentheses:
 * "IMAGj" when the real part is +0, else "REAL+IMAGj" / "REAL-IMAGj". */
static char *format_complex(enum dtype dt, const void *p, char *buf)
{
	double re;
	if (dt == DT_COMPLEX64) {
		float f;
		memcpy(&f, p, sizeof f);
		re = f;
	} else {
		memcpy(&re, p, sizeof re);
	}
	/* a part is at most 25 characters: "+2.2250738585072014e-308" */
	char imag[31];
	if (re == 0 && !signbit(re)) {
		complex_part(dt, p, 1, false, imag);
		snprintf(buf, 64, "%sj", imag);
	} else {
		char real[31];
		complex_part(dt, p, 0, false, real);
		complex_part(dt, p, 1, true, imag);
		snprintf(buf, 64, "%s%sj", real, imag);
	}
	return buf;
}

char *print_format(enum dtype dt, const void *p, char *buf)
{
	switch (dt) {
	case DT_BOOL:
		return strcpy(buf, *(const uint8_t *)p ? "True" : "False");
	case DT_FLOAT16: {
		uint16_t h, hmag;
		memcpy(&h, p, sizeof h);
		hmag = h & 0x7fffu;
		return format_float(half_to_double(h), &hmag, roundtrip_float16, 5, buf);
	}
	case DT_FLOAT32: {
		float f, fmag;
		memcpy(&f, p, sizeof f);
		fmag = fabsf(f);
		return format_float(f, &fmag, roundtrip_float32, 9, buf);
	}
	case DT_FLOAT64: {
		double d, dmag;
		memcpy(&d, p, sizeof d);
		dmag = fabs(d);
		return format_float(d, &dmag, roundtrip_float64, 17, buf);
	}
	case DT_COMPLEX64:
	case DT_COMPLEX128:
		return format_complex(dt, p, buf);
	default:
		break;
	}
	/* integers: read through the widest integer of their kind */
	if (dtype_table[dt].kind == 'u') {
		uint64_t u;
		dtype_cast(dt, p, dtype_size(dt), DT_UINT64, &u, 8, 1);
		sprintf(buf, "%" PRIu64, u);
	} else {
		int64_t i;
		dtype_cast(dt, p, dtype_size(dt), DT_INT64, &i, 8, 1);
		sprintf(buf, "%" PRId64, i);
	}
	return buf;
}

/* Element count of the array. */
static int64_t element_count(int ndim, const int64_t *dims)
{
	int64_t n = 1;
	for (int i = 0; i < ndim; i++)
		n *= dims[i];
	return n;
}

/* Element I at P, or "--" when MASK masks it (see print_array). */
static const char *element_text(enum dtype dt, const char *p, const uint8_t *mask, int64_t i,
				char *buf)
{
	if (mask && !mask[i])
		return "--";
	return print_format(dt, p, buf);
}

void print_array(FILE *f, enum dtype dt, const void *data, int ndim, const int64_t *dims,
		 const uint8_t *mask)
{
	const char *p = data;
	int64_t i = 0;
	size_t size = (size_t)dtype_size(dt);
	char buf[64];
	if (ndim == 0) {
		fprintf(f, "%s\n", element_text(dt, p, mask, 0, buf));
		return;
	}
	if (ndim == 1) {
		for (; i < dims[0]; i++, p += size)
			fprintf(f, "%s\n", element_text(dt, p, mask, i, buf));
		return;
	}
	/* consecutive 2-D blocks of ROWS x COLS, a blank line between blocks */
	int64_t rows = dims[ndim - 2], cols = dims[ndim - 1];
	int64_t blocks = element_count(ndim - 2, dims);
	for (int64_t b = 0; b < blocks; b++) {
		if (b > 0)
			fputc('\n', f);
		for (int64_t r = 0; r < rows; r++) {
			for (int64_t c = 0; c < cols; c++, p += size, i++) {
				if (c > 0)
					fputc(' ', f);
				fputs(element_text(dt, p, mask, i, buf), f);
			}
			fputc('\n', f);
		}
	}
}

/* One element as a JSON value. */
static void json_element(FILE *f, enum dtype dt, const char *p)
{
	char buf[64];
	if (dt == DT_BOOL) {
		fputs(*(const uint8_t *)p ? "true" : "false", f);
		return;
	}
	if (dtype_table[dt].kind == 'c') {
		/* [real, imaginary] */
		enum dtype part = dt == DT_COMPLEX64 ? DT_FLOAT32 : DT_FLOAT64;
		fputc('[', f);
		json_element(f, part, p);
		fputs(", ", f);
		json_element(f, part, p + dtype_size(part));
		fputc(']', f);
		return;
	}
	print_format(dt, p, buf);
	if (strcmp(buf, "nan") == 0 || strcmp(buf, "inf") == 0 || strcmp(buf, "-inf") == 0)
		fprintf(f, "\"%s\"", buf);
	else
		fputs(buf, f);
}

/* The nested list of dimensions DIMS[0..NDIM-1] starting at *P; advances *P. */
static void json_nested(FILE *f, enum dtype dt, const char **p, int ndim, const int64_t *dims,
			const uint8_t **mask)
{
	if (ndim == 0) {
		if (*mask && !**mask)
			fputs("null", f);
		else
			json_element(f, dt, *p);
		*p += dtype_size(dt);
		if (*mask)
			(*mask)++;
		return;
	}
	fputc('[', f);
	for (int64_t i = 0; i < dims[0]; i++) {
		if (i > 0)
			fputs(", ", f);
		json_nested(f, dt, p, ndim - 1, dims + 1, mask);
	}
	fputc(']', f);
}

void print_json(FILE *f, enum dtype dt, const void *data, int ndim, const int64_t *dims,
		const uint8_t *mask)
{
	const char *p = data;
	json_nested(f, dt, &p, ndim, dims, &mask);
}

const char *print_flush(FILE *f)
{
	static int lost;   /* the first failure's errno (stdout is the one F) */
	errno = 0;
	if (fflush(f) == 0 && !ferror(f))
		return NULL;
	if (!lost)
		lost = errno;
	/* a write of a full buffer failed inside printf: its errno is gone */
	return lost ? strerror(lost) : "a write failed";
}
