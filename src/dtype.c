/* dtype.c - the array dtypes: names, NumPy's casting rules and type
 * promotion between them, and the conversion loops.
 *
 * The dtype list is include/dtype.def; everything here is expanded from it,
 * so a dtype is added there and in the one family table below.  The casting
 * rules are NumPy's (np.can_cast, np.promote_types), derived from each
 * dtype's kind and size rather than written out as a 14x14 table.  The
 * conversions are NumPy's astype(casting='unsafe') bit for bit on x86_64,
 * including what x86_64 produces for a float out of an integer's range
 * (which C leaves undefined): the results are written down here as defined
 * arithmetic, so they are the same whatever the compiler vectorizes and on
 * every machine.  A complex value converts to a real dtype through its real
 * part (the imaginary part is dropped, as NumPy's unsafe cast drops it),
 * except to bool, which is true when either part is nonzero; a real value
 * becomes a complex one with a +0 imaginary part.
 *
 * This module knows nothing of operations (ufunc.c), of Python literals
 * (literal.c) or of text (print.c).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dtype.h"

/* The C type of one element of each dtype: ctype_INT8 is int8_t. */
#define DTYPE(TAG, CTYPE, NAME, KIND, CHAR) typedef CTYPE ctype_##TAG;
#include "dtype.def"
#undef DTYPE

const struct dtype_info dtype_table[DT_COUNT] = {
#define DTYPE(TAG, CTYPE, NAME, KIND, CHAR) \
	[DT_##TAG] = { NAME, KIND, CHAR, (int)sizeof(CTYPE) },
#include "dtype.def"
#undef DTYPE
};

const char *dtype_name(enum dtype dt)
{
	return dt >= 0 && dt < DT_COUNT ? dtype_table[dt].name : "?";
}

int dtype_size(enum dtype dt)
{
	return dtype_table[dt].size;
}

void dtype_extreme(enum dtype t, bool high, unsigned char *out)
{
	memset(out, 0, 16);
	char kind = dtype_table[t].kind;
	int size = dtype_size(t);
	if (kind == 'f' || kind == 'c') {
		double v = high ? INFINITY : -INFINITY;
		dtype_cast(DT_FLOAT64, &v, 0, kind == 'c' ? (size == 8 ? DT_FLOAT32 : DT_FLOAT64) : t, out, 0, 1);
	} else if (kind == 'b') {
		out[0] = high;
	} else if (high) {   /* two's complement, little-endian */
		memset(out, 0xff, (size_t)size);
		if (kind == 'i')
			out[size - 1] = 0x7f;
	} else if (kind == 'i') {
		out[size - 1] = 0x80;
	}
}

const char *dtype_name_order(enum dtype dt, bool swapped)
{
	static char names[DT_COUNT][8];
	if (!swapped || dt < 0 || dt >= DT_COUNT || dtype_table[dt].size == 1)
		return dtype_name(dt);
	if (!names[dt][0]) {
		bool little = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
		snprintf(names[dt], sizeof names[dt], "%c%c%d", little ? '>' : '<',
			 dtype_table[dt].kind, dtype_table[dt].size);
	}
	return names[dt];
}

/* ---------------------------------------------------------------------
 * Names
 * ------------------------------------------------------------------ */

/* The spellings np.dtype() accepts besides the dtype's own name and its
 * type character, restricted to those that mean the same dtype on every
 * Linux x86_64 NumPy (1.24 through 2.x). */
static const struct {
	const char *name;
	enum dtype dt;
} dtype_aliases[] = {
	{ "b1", DT_BOOL },
	{ "i1", DT_INT8 },     { "byte", DT_INT8 },
	{ "u1", DT_UINT8 },    { "ubyte", DT_UINT8 },
	{ "i2", DT_INT16 },    { "short", DT_INT16 },
	{ "u2", DT_UINT16 },   { "ushort", DT_UINT16 },
	{ "i4", DT_INT32 },    { "intc", DT_INT32 },
	{ "u4", DT_UINT32 },   { "uintc", DT_UINT32 },
	{ "i8", DT_INT64 },    { "int", DT_INT64 },      { "int_", DT_INT64 },
	{ "long", DT_INT64 },  { "longlong", DT_INT64 }, { "intp", DT_INT64 },
	{ "l", DT_INT64 },     { "p", DT_INT64 },
	{ "u8", DT_UINT64 },   { "uint", DT_UINT64 },    { "ulong", DT_UINT64 },
	{ "ulonglong", DT_UINT64 }, { "uintp", DT_UINT64 },
	{ "L", DT_UINT64 },    { "P", DT_UINT64 },
	{ "f2", DT_FLOAT16 },  { "half", DT_FLOAT16 },
	{ "f4", DT_FLOAT32 },  { "single", DT_FLOAT32 },
	{ "f8", DT_FLOAT64 },  { "float", DT_FLOAT64 },  { "double", DT_FLOAT64 },
	{ "c8", DT_COMPLEX64 },   { "csingle", DT_COMPLEX64 },
	{ "c16", DT_COMPLEX128 }, { "complex", DT_COMPLEX128 }, { "cdouble", DT_COMPLEX128 },
};

/* A short code ("f8", "c16", "l"): a letter, then only digits.  Only these
 * take a byte-order mark ("<c16", not "<complex"). */
static bool is_short_code(const char *alias)
{
	return alias[0] != '\0' && strspn(alias + 1, "0123456789") == strlen(alias + 1);
}

int dtype_from_name(const char *name, enum dtype *out)
{
	/* A byte-order mark that means native order on this machine: "<f8",
	 * "=i4", "|u1".  ">" (big-endian) is not a dtype results can have. */
	const char *bare = name;
	if (bare[0] == '<' || bare[0] == '=' || bare[0] == '|')
		bare++;
	for (int dt = 0; dt < DT_COUNT; dt++) {
		if (strcmp(name, dtype_table[dt].name) == 0 ||
		    (bare[0] == dtype_table[dt].typechar && bare[1] == '\0')) {
			*out = (enum dtype)dt;
			return 0;
		}
	}
	for (size_t i = 0; i < sizeof dtype_aliases / sizeof dtype_aliases[0]; i++) {
		const char *alias = dtype_aliases[i].name;
		/* the byte-order mark goes with the short codes only ("<f8", not "<int") */
		const char *s = is_short_code(alias) ? bare : name;
		if (strcmp(s, alias) == 0) {
			*out = dtype_aliases[i].dt;
			return 0;
		}
	}
	return -1;
}

enum dtype dtype_from_typechar(char c)
{
	if (c == 'l')
		return DT_INT64;
	if (c == 'L')
		return DT_UINT64;
	for (int dt = 0; dt < DT_COUNT; dt++)
		if (dtype_table[dt].typechar == c)
			return (enum dtype)dt;
	return DT_NONE;
}

/* ---------------------------------------------------------------------
 * Casting rules and promotion
 * ------------------------------------------------------------------ */

/* NumPy's order of kinds for 'same_kind': a cast may go up this order or
 * stay at the same level, never down (uint to int is same_kind, int to uint
 * is not, float to complex is, complex to float is not). */
static int kind_order(char kind)
{
	switch (kind) {
	case 'b': return 0;
	case 'u': return 1;
	case 'i': return 2;
	case 'f': return 3;
	default:  return 4;     /* 'c' */
	}
}

/* Whether the float of SIZE bytes holds every value of the integer or float
 * dtype FROM: an integer goes to the float whose significand holds it (1
 * byte to float16, 2 to float32, 4 to float64), and NumPy counts 8-byte
 * integers to float64 as safe too; a float to one at least as wide. */
static bool float_holds(const struct dtype_info *f, int size)
{
	if (f->kind == 'f')
		return size >= f->size;
	return size > f->size || size == 8;
}

/* np.can_cast(from, to, 'safe'): every value of FROM is a value of TO. */
static bool can_cast_safe(enum dtype from, enum dtype to)
{
	const struct dtype_info *f = &dtype_table[from], *t = &dtype_table[to];
	if (from == to || f->kind == 'b')
		return true;
	switch (t->kind) {
	case 'b':
		return false;
	case 'u':
		return f->kind == 'u' && t->size >= f->size;
	case 'i':
		return (f->kind == 'i' && t->size >= f->size) ||
		       (f->kind == 'u' && t->size > f->size);
	case 'f':
		return f->kind != 'c' && float_holds(f, t->size);
	default:
		/* complex: one float part must hold the value */
		if (f->kind == 'c')
			return t->size >= f->size;
		return float_holds(f, t->size / 2);
	}
}

bool dtype_can_cast(enum dtype from, enum dtype to, enum casting casting)
{
	switch (casting) {
	case CAST_NO:
	case CAST_EQUIV:
		/* the byte order: dtype_can_cast_order */
		return from == to;
	case CAST_SAFE:
		return can_cast_safe(from, to);
	case CAST_SAME_KIND:
		return can_cast_safe(from, to) ||
		       kind_order(dtype_table[from].kind) <= kind_order(dtype_table[to].kind);
	case CAST_UNSAFE:
		return true;
	}
	return false;
}

bool dtype_can_cast_order(enum dtype from, bool from_swapped, enum dtype to, bool to_swapped,
			  enum casting casting)
{
	bool reorders = from_swapped != to_swapped && dtype_size(from) > 1;
	return !(casting == CAST_NO && reorders) && dtype_can_cast(from, to, casting);
}

/* NumPy's promotion: the first dtype in type order, from the larger of the
 * two, that both cast to safely.  Among our dtypes complex128 always is one. */
enum dtype dtype_promote(enum dtype a, enum dtype b)
{
	for (int dt = a > b ? a : b; dt < DT_COUNT; dt++)
		if (can_cast_safe(a, (enum dtype)dt) && can_cast_safe(b, (enum dtype)dt))
			return (enum dtype)dt;
	return DT_NONE;
}

static const char *const casting_names[] = {
	[CAST_NO] = "no",
	[CAST_EQUIV] = "equiv",
	[CAST_SAFE] = "safe",
	[CAST_SAME_KIND] = "same_kind",
	[CAST_UNSAFE] = "unsafe",
};

const char *casting_name(enum casting c)
{
	return c >= CAST_NO && c <= CAST_UNSAFE ? casting_names[c] : "?";
}

int casting_from_name(const char *name, enum casting *out)
{
	for (int c = CAST_NO; c <= CAST_UNSAFE; c++) {
		if (strcmp(name, casting_names[c]) == 0) {
			*out = (enum casting)c;
			return 0;
		}
	}
	return -1;
}

/* ---------------------------------------------------------------------
 * float16
 * ------------------------------------------------------------------ */

static uint32_t float_bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static float bits_float(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static uint64_t double_bits(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }
static double bits_double(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }

/* The float32 bits of a half: exact.  A NaN keeps its sign and payload. */
static uint32_t half_to_float_bits(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1fu;
	uint32_t sig = h & 0x3ffu;
	if (exp == 0x1f)
		return sign | 0x7f800000u | (sig << 13);
	if (exp != 0)
		return sign | ((exp + 127 - 15) << 23) | (sig << 13);
	if (sig == 0)
		return sign;
	/* subnormal: normalise, the leading one becomes implicit */
	int shift = 0;
	while (!(sig & 0x400u)) {
		sig <<= 1;
		shift++;
	}
	return sign | ((uint32_t)(127 - 15 + 1 - shift) << 23) | ((sig & 0x3ffu) << 13);
}

float half_to_float(uint16_t h)
{
	return bits_float(half_to_float_bits(h));
}

double half_to_double(uint16_t h)
{
	/* float32 holds every half exactly, and so does the widening */
	uint16_t exp = h & 0x7c00u;
	if (exp == 0x7c00u && (h & 0x3ffu)) {
		/* a NaN keeps its payload in the top bits, as NumPy's does */
		uint64_t sign = (uint64_t)(h & 0x8000u) << 48;
		return bits_double(sign | 0x7ff0000000000000ull | ((uint64_t)(h & 0x3ffu) << 42));
	}
	return (double)half_to_float(h);
}

/* Round SIG (a significand with its implicit one, as an integer) right by
 * SHIFT bits to nearest, ties to even.  SHIFT is 1..63. */
static uint64_t round_shift(uint64_t sig, int shift)
{
	uint64_t kept = sig >> shift;
	uint64_t rest = sig & ((UINT64_C(1) << shift) - 1);
	uint64_t half = UINT64_C(1) << (shift - 1);
	return kept + (rest > half || (rest == half && (kept & 1)));
}

/* The half nearest to the binary value with SIGN (0 or 0x8000), unbiased
 * exponent E and significand SIG, whose implicit one is bit FRAC (SIG is
 * below 2**(FRAC+1)), for a finite nonzero value. */
static uint16_t half_round(uint16_t sign, int e, uint64_t sig, int frac)
{
	if (e >= 16)
		return sign | 0x7c00u;           /* 65536 and above: inf */
	if (e < -25)
		return sign;                     /* below half the least subnormal */
	if (e >= -14) {
		/* normal: keep 10 fraction bits; a carry out of the significand
		 * steps the exponent, up to inf, which is the right result */
		uint64_t q = round_shift(sig, frac - 10);
		return sign | (uint16_t)(((uint64_t)(e + 15 - 1) << 10) + q);
	}
	/* subnormal: the value in units of 2**-24; rounding up to 0x400 makes
	 * the least normal, which is the right result */
	return sign | (uint16_t)round_shift(sig, frac - 10 + (-14 - e));
}

uint16_t half_from_float(float f)
{
	uint32_t b = float_bits(f);
	uint16_t sign = (uint16_t)((b >> 16) & 0x8000u);
	int exp = (int)((b >> 23) & 0xffu);
	uint32_t sig = b & 0x7fffffu;
	if (exp == 0xff) {
		if (sig == 0)
			return sign | 0x7c00u;
		/* NaN: keep the top of the payload, and keep it a NaN */
		uint16_t nan = (uint16_t)(0x7c00u | (sig >> 13));
		return sign | (nan == 0x7c00u ? 0x7c01u : nan);
	}
	if (exp == 0)
		return sign;     /* zero or a float32 subnormal: far below 2**-25 */
	return half_round(sign, exp - 127, sig | 0x800000u, 23);
}

uint16_t half_from_double(double d)
{
	uint64_t b = double_bits(d);
	uint16_t sign = (uint16_t)((b >> 48) & 0x8000u);
	int exp = (int)((b >> 52) & 0x7ffu);
	uint64_t sig = b & 0xfffffffffffffull;
	if (exp == 0x7ff) {
		if (sig == 0)
			return sign | 0x7c00u;
		uint16_t nan = (uint16_t)(0x7c00u | (sig >> 42));
		return sign | (nan == 0x7c00u ? 0x7c01u : nan);
	}
	if (exp == 0)
		return sign;
	/* rounded once, from the double itself, not through float32 */
	return half_round(sign, exp - 1023, sig | (UINT64_C(1) << 52), 52);
}

/* ---------------------------------------------------------------------
 * Float to integer, as x86_64 truncates
 *
 * cvtt32 and cvtt64 are the x86_64 truncating conversions to a 32- or
 * 64-bit integer: in range they truncate toward zero; NaN and values out
 * of range give the "integer indefinite" value, the least integer.  NumPy
 * converts with C casts, which compile to: cvtt32 then the low bits for
 * int8/16/32 and uint8/16; cvtt64 then the low 32 bits for uint32; cvtt64
 * for int64; and for uint64, cvtt64 of x - 2**63 with the top bit flipped
 * when x >= 2**63, else cvtt64.  (NumPy's contiguous float to uint32 loop
 * vectorizes to another sequence that differs out of range; its strided
 * and scalar conversions are the ones followed here.)  Written as a select
 * on the input, so that no conversion is out of range and loops vectorize.
 * ------------------------------------------------------------------ */

static inline int32_t cvtt32(double x)
{
	bool ok = x > -2147483649.0 && x < 2147483648.0;
	int32_t r = (int32_t)(ok ? x : 0.0);
	return ok ? r : INT32_MIN;
}

static inline int64_t cvtt64(double x)
{
	bool ok = x >= -9223372036854775808.0 && x < 9223372036854775808.0;
	int64_t r = (int64_t)(ok ? x : 0.0);
	return ok ? r : INT64_MIN;
}

static inline uint64_t cvtt_u64(double x)
{
	bool high = x >= 9223372036854775808.0;
	uint64_t r = (uint64_t)cvtt64(high ? x - 9223372036854775808.0 : x);
	return high ? r ^ (UINT64_C(1) << 63) : r;
}

/* X (a double) to the signed or unsigned integer type TO.  The size tests
 * are constant. */
#define FLOAT_TO_SIGNED(TO, x) \
	(sizeof(TO) == 8 ? (TO)cvtt64(x) : (TO)cvtt32(x))
#define FLOAT_TO_UNSIGNED(TO, x) \
	(sizeof(TO) == 8 ? (TO)cvtt_u64(x) : sizeof(TO) == 4 ? (TO)cvtt64(x) : (TO)cvtt32(x))

/* ---------------------------------------------------------------------
 * The conversion matrix
 *
 * Every dtype belongs to a family: B bool, I signed and U unsigned
 * integers, F float32/float64, H float16, C complex64/complex128.  One
 * expression converts a value X of a FROM family to a TO family; bool and
 * unsigned read as the signed integers do.  C's own conversions are exact
 * or correctly rounded where used: integer to integer wraps (two's
 * complement), integer to float rounds to nearest, a real value to a
 * complex type converts the real part and sets the imaginary part to +0,
 * complex to complex converts each part.  Integers reach float16 through
 * float32, which holds every integer below 2**24 exactly, and all larger
 * ones overflow float16 either way.  A complex value leaves as its real
 * part, of its own part type (__real__), so that a float32 NaN keeps its
 * bits on the way to float32 and float16, as NumPy's casts keep them.
 * ------------------------------------------------------------------ */

#define FAMILY_BOOL    B
#define FAMILY_INT8    I
#define FAMILY_UINT8   U
#define FAMILY_INT16   I
#define FAMILY_UINT16  U
#define FAMILY_INT32   I
#define FAMILY_UINT32  U
#define FAMILY_INT64   I
#define FAMILY_UINT64  U
#define FAMILY_FLOAT16 H
#define FAMILY_FLOAT32 F
#define FAMILY_FLOAT64 F
#define FAMILY_COMPLEX64 C
#define FAMILY_COMPLEX128 C

#define CONVERT_I_B(TO, x) (TO)((x) != 0)
#define CONVERT_I_I(TO, x) (TO)(x)
#define CONVERT_I_F(TO, x) (TO)(x)
#define CONVERT_I_H(TO, x) half_from_float((float)(x))
#define CONVERT_F_B(TO, x) (TO)((x) != 0)        /* NaN is true, -0.0 false */
#define CONVERT_F_I(TO, x) FLOAT_TO_SIGNED(TO, (double)(x))
#define CONVERT_F_U(TO, x) FLOAT_TO_UNSIGNED(TO, (double)(x))
#define CONVERT_F_F(TO, x) (TO)(x)
#define CONVERT_F_H(TO, x) _Generic((x), float: half_from_float, double: half_from_double)(x)
#define CONVERT_H_B(TO, x) (TO)(((x) & 0x7fffu) != 0)
#define CONVERT_H_I(TO, x) FLOAT_TO_SIGNED(TO, (double)half_to_float(x))
#define CONVERT_H_U(TO, x) FLOAT_TO_UNSIGNED(TO, (double)half_to_float(x))
#define CONVERT_H_F(TO, x) \
	(sizeof(TO) == 8 ? (TO)half_to_double(x) : (TO)half_to_float(x))
#define CONVERT_H_H(TO, x) (TO)(x)
#define CONVERT_H_C(TO, x) \
	(sizeof(TO) == 16 ? (TO)half_to_double(x) : (TO)half_to_float(x))
#define CONVERT_I_C(TO, x) (TO)(x)
#define CONVERT_F_C(TO, x) (TO)(x)
#define CONVERT_C_C(TO, x) (TO)(x)
#define CONVERT_C_B(TO, x) (TO)(__real__ (x) != 0 || __imag__ (x) != 0)
#define CONVERT_C_I(TO, x) CONVERT_F_I(TO, __real__ (x))
#define CONVERT_C_U(TO, x) CONVERT_F_U(TO, __real__ (x))
#define CONVERT_C_F(TO, x) (TO)__real__ (x)
#define CONVERT_C_H(TO, x) CONVERT_F_H(TO, __real__ (x))
/* bool and unsigned integers convert as signed integers do */
#define CONVERT_I_U CONVERT_I_I
#define CONVERT_B_B CONVERT_I_B
#define CONVERT_B_I CONVERT_I_I
#define CONVERT_B_U CONVERT_I_I
#define CONVERT_B_F CONVERT_I_F
#define CONVERT_B_H CONVERT_I_H
#define CONVERT_B_C CONVERT_I_C
#define CONVERT_U_B CONVERT_I_B
#define CONVERT_U_I CONVERT_I_I
#define CONVERT_U_U CONVERT_I_I
#define CONVERT_U_F CONVERT_I_F
#define CONVERT_U_H CONVERT_I_H
#define CONVERT_U_C CONVERT_I_C

#define CONVERT_FAMILIES(FF, TF, TO, x) CONVERT_##FF##_##TF(TO, x)
#define CONVERT_EXPAND(FF, TF, TO, x) CONVERT_FAMILIES(FF, TF, TO, x)
/* X, an element of dtype FROM, as an element of dtype TO. */
#define CONVERT(FROM, TO, x) \
	CONVERT_EXPAND(FAMILY_##FROM, FAMILY_##TO, ctype_##TO, x)

/* Element pointers that may alias the other operand's (in-place casts). */
#define DTYPE(TAG, CTYPE, NAME, KIND, CHAR) \
	typedef CTYPE __attribute__((__may_alias__)) alias_##TAG;
#include "dtype.def"
#undef DTYPE

/* The tags of dtype.def again, as a list for the inner expansion (the
 * preprocessor cannot include a file inside a macro).  An unknown tag does
 * not compile, and the count is checked against dtype.def below. */
#define EACH_DTYPE(X, FROM)                                                  \
	X(FROM, BOOL) X(FROM, INT8) X(FROM, UINT8) X(FROM, INT16)             \
	X(FROM, UINT16) X(FROM, INT32) X(FROM, UINT32) X(FROM, INT64)         \
	X(FROM, UINT64) X(FROM, FLOAT16) X(FROM, FLOAT32) X(FROM, FLOAT64)     \
	X(FROM, COMPLEX64) X(FROM, COMPLEX128)

typedef void (*cast_fn)(const char *src, ptrdiff_t sstep, char *dst, ptrdiff_t dstep, size_t n);

/* One loop per (FROM, TO): contiguous aligned runs go through typed
 * pointers so the compiler vectorizes them; anything else element by
 * element through memcpy (no alignment assumed). */
#define CAST_LOOP(FROM, TO)                                                       \
static void cast_##FROM##_##TO(const char *src, ptrdiff_t sstep,                  \
			       char *dst, ptrdiff_t dstep, size_t n)              \
{                                                                                 \
	if (sstep == (ptrdiff_t)sizeof(ctype_##FROM) &&                           \
	    dstep == (ptrdiff_t)sizeof(ctype_##TO) &&                             \
	    (uintptr_t)src % _Alignof(ctype_##FROM) == 0 &&                       \
	    (uintptr_t)dst % _Alignof(ctype_##TO) == 0) {                         \
		const alias_##FROM *s = (const alias_##FROM *)(const void *)src;  \
		alias_##TO *d = (alias_##TO *)(void *)dst;                        \
		for (size_t i = 0; i < n; i++) {                                  \
			ctype_##FROM x = s[i];                                    \
			d[i] = CONVERT(FROM, TO, x);                              \
		}                                                                 \
		return;                                                           \
	}                                                                         \
	for (size_t i = 0; i < n; i++, src += sstep, dst += dstep) {              \
		ctype_##FROM x;                                                   \
		memcpy(&x, src, sizeof x);                                        \
		ctype_##TO y = CONVERT(FROM, TO, x);                              \
		memcpy(dst, &y, sizeof y);                                        \
	}                                                                         \
}

/* -O2's "very cheap" vectorizer model declines loops of unknown count;
 * these loops are where the time goes, so they get the full model. */
#pragma GCC push_options
#pragma GCC optimize ("vect-cost-model=dynamic")
#define DTYPE(TAG, CTYPE, NAME, KIND, CHAR) EACH_DTYPE(CAST_LOOP, TAG)
#include "dtype.def"
#undef DTYPE
#pragma GCC pop_options

#define CAST_ENTRY(FROM, TO) [DT_##TO] = cast_##FROM##_##TO,
static const cast_fn cast_table[DT_COUNT][DT_COUNT] = {
#define DTYPE(TAG, CTYPE, NAME, KIND, CHAR) [DT_##TAG] = { EACH_DTYPE(CAST_ENTRY, TAG) },
#include "dtype.def"
#undef DTYPE
};

/* EACH_DTYPE and dtype.def list the same dtypes: one conversion per pair. */
#define COUNT_ONE(FROM, TO) + 1
_Static_assert(0 EACH_DTYPE(COUNT_ONE, _) == DT_COUNT,
	       "EACH_DTYPE in dtype.c must list every row of dtype.def");

void dtype_cast(enum dtype from, const void *src, ptrdiff_t sstep,
		enum dtype to, void *dst, ptrdiff_t dstep, size_t n)
{
	cast_table[from][to]((const char *)src, sstep, (char *)dst, dstep, n);
}
