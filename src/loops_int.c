/* loops_int.c - the bool and integer type loops of every ufunc.
 *
 * Each ufunc's operation is written once below, as an element operation
 * over a dtype tag (E_*, or an inline function for the longer ones), and
 * instantiated for every dtype of its family with the FOR_* lists of
 * loops.h.  The results are NumPy 2's bit for bit: integers wrap around
 * (the arithmetic is done in unsigned types, so there is no undefined
 * behaviour), division and remainder by zero give 0, the most negative
 * integer divided by -1 gives itself, shifts by the width or more (or by a
 * negative amount) give 0 or -1, and an integer to a negative integer
 * power raises UFERR_NEGATIVE_POWER.
 *
 * Float loops are in loops_float.c; the catalogue is ufunc.c.
 */
#include "loops.h"

/* ---- arithmetic: wraps around through the wide unsigned type ---- */

#define E_ADD_INT(T, a, b) ((ct_##T)((wt_##T)(a) + (wt_##T)(b)))
#define E_SUBTRACT_INT(T, a, b) ((ct_##T)((wt_##T)(a) - (wt_##T)(b)))
#define E_MULTIPLY_INT(T, a, b) ((ct_##T)((wt_##T)(a) * (wt_##T)(b)))
#define E_SQUARE_INT(T, a) E_MULTIPLY_INT(T, a, a)
#define E_NEGATIVE_INT(T, a) ((ct_##T)(0 - (wt_##T)(a)))
/* The most negative integer is its own absolute value. */
#define E_ABSOLUTE_SIGNED(T, a) ((a) < 0 ? E_NEGATIVE_INT(T, a) : (a))
#define E_SIGN_SIGNED(T, a) ((ct_##T)(((a) > 0) - ((a) < 0)))
#define E_SIGN_UNSIGNED(T, a) ((ct_##T)((a) > 0))
/* NumPy's reciprocal of an integer is (T)(1.0 / a). */
#define E_RECIPROCAL_INT(T, a) ((a) == 0 ? recip_zero_##T : (ct_##T)(1.0 / (a)))
#define E_MAXIMUM_INT(T, a, b) ((a) >= (b) ? (a) : (b))
#define E_MINIMUM_INT(T, a, b) ((a) <= (b) ? (a) : (b))

/* ---- bits ---- */

#define E_BITWISE_AND_INT(T, a, b) ((ct_##T)((a) & (b)))
#define E_BITWISE_OR_INT(T, a, b) ((ct_##T)((a) | (b)))
#define E_BITWISE_XOR_INT(T, a, b) ((ct_##T)((a) ^ (b)))
#define E_INVERT_INT(T, a) ((ct_##T) ~(a))
/* NumPy's npy_lshift/npy_rshift: a shift by the width or more, or by a
 * negative amount, shifts everything out (the sign fills a right shift). */
#define E_LEFT_SHIFT_SIGNED(T, a, b) \
	((b) >= 0 && (b) < bits_##T ? (ct_##T)((wt_##T)(a) << (b)) : (ct_##T)0)
#define E_LEFT_SHIFT_UNSIGNED(T, a, b) \
	((b) < bits_##T ? (ct_##T)((wt_##T)(a) << (b)) : (ct_##T)0)
#define E_RIGHT_SHIFT_SIGNED(T, a, b) \
	((b) >= 0 && (b) < bits_##T ? (ct_##T)((a) >> (b)) : (ct_##T)((a) < 0 ? -1 : 0))
#define E_RIGHT_SHIFT_UNSIGNED(T, a, b) \
	((b) < bits_##T ? (ct_##T)((a) >> (b)) : (ct_##T)0)
/* The 1-bits of |a|, as uint8. */
#define E_BITWISE_COUNT_SIGNED(T, a) \
	((uint8_t)__builtin_popcountll((ut_##T)((a) < 0 ? 0 - (ut_##T)(a) : (ut_##T)(a))))
#define E_BITWISE_COUNT_UNSIGNED(T, a) ((uint8_t)__builtin_popcountll(a))

/* ---- bool: arithmetic is logic ---- */

#define E_OR_BOOL(T, a, b) ((ct_BOOL)((a) || (b)))
#define E_AND_BOOL(T, a, b) ((ct_BOOL)((a) && (b)))
#define E_XOR_BOOL(T, a, b) ((ct_BOOL)(!(a) != !(b)))
#define E_NOT_BOOL(T, a) ((ct_BOOL)!(a))
#define E_ABSOLUTE_BOOL(T, a) ((ct_BOOL)((a) != 0))

/* Integers are never nan nor infinite. */
#define E_FALSE(T, a) ((void)(a), 0)
#define E_TRUE(T, a) ((void)(a), 1)

/* ---- division, remainder, power, gcd: inline functions per type ---- */

/* a ** e modulo 2**64, by squaring. */
static inline uint64_t power_wrap(uint64_t base, uint64_t e)
{
	uint64_t out = 1;
	while (e) {
		if (e & 1)
			out *= base;
		base *= base;
		e >>= 1;
	}
	return out;
}

static inline uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (a != 0) {
		uint64_t c = a;
		a = b % a;
		b = c;
	}
	return b;
}

/* floor_divide: NumPy's floor division; x // 0 is 0 and MIN // -1 is MIN.
 * remainder: Python's modulo, with the sign of the divisor; x % 0 is 0.
 * fmod: C's remainder, with the sign of the dividend; fmod(x, 0) is 0.
 * power: a negative exponent raises UFERR_NEGATIVE_POWER (the element
 * becomes 0).  gcd, lcm: of |a| and |b|, wrapped to the type. */
#define DEFINE_SIGNED_OPS(T, _)                                               \
static inline ct_##T floor_divide_##T(ct_##T a, ct_##T b)                    \
{                                                                             \
	if (b == 0)                                                           \
		return 0;                                                     \
	if (b == -1)                                                          \
		return E_NEGATIVE_INT(T, a);                                  \
	ct_##T q = (ct_##T)(a / b);                                           \
	if (a % b != 0 && (a < 0) != (b < 0))                                 \
		q--;                                                          \
	return q;                                                             \
}                                                                             \
static inline ct_##T remainder_##T(ct_##T a, ct_##T b)                       \
{                                                                             \
	if (b == 0 || b == -1)                                                \
		return 0;                                                     \
	ct_##T r = (ct_##T)(a % b);                                           \
	if (r != 0 && (r < 0) != (b < 0))                                     \
		r = (ct_##T)(r + b);                                          \
	return r;                                                             \
}                                                                             \
static inline ct_##T fmod_##T(ct_##T a, ct_##T b)                            \
{                                                                             \
	if (b == 0 || b == -1)                                                \
		return 0;                                                     \
	return (ct_##T)(a % b);                                               \
}                                                                             \
static inline ct_##T power_##T(ct_##T a, ct_##T b)                           \
{                                                                             \
	if (b < 0) {                                                          \
		ufunc_raise(UFERR_NEGATIVE_POWER);                            \
		return 0;                                                     \
	}                                                                     \
	return (ct_##T)power_wrap((uint64_t)a, (uint64_t)b);                  \
}                                                                             \
static inline uint64_t magnitude_##T(ct_##T a)                               \
{                                                                             \
	return (ut_##T)(a < 0 ? 0 - (ut_##T)a : (ut_##T)a);                   \
}                                                                             \
static inline ct_##T gcd_##T(ct_##T a, ct_##T b)                             \
{                                                                             \
	return (ct_##T)gcd_u64(magnitude_##T(a), magnitude_##T(b));           \
}                                                                             \
static inline ct_##T lcm_##T(ct_##T a, ct_##T b)                             \
{                                                                             \
	uint64_t g = gcd_u64(magnitude_##T(a), magnitude_##T(b));             \
	return g == 0 ? 0 : (ct_##T)(magnitude_##T(a) / g * magnitude_##T(b)); \
}
FOR_SIGNED(DEFINE_SIGNED_OPS, _)

#define DEFINE_UNSIGNED_OPS(T, _)                                             \
static inline ct_##T floor_divide_##T(ct_##T a, ct_##T b)                    \
{                                                                             \
	return b == 0 ? 0 : (ct_##T)(a / b);                                  \
}                                                                             \
static inline ct_##T remainder_##T(ct_##T a, ct_##T b)                       \
{                                                                             \
	return b == 0 ? 0 : (ct_##T)(a % b);                                  \
}                                                                             \
static inline ct_##T fmod_##T(ct_##T a, ct_##T b)                            \
{                                                                             \
	return remainder_##T(a, b);                                           \
}                                                                             \
static inline ct_##T power_##T(ct_##T a, ct_##T b)                           \
{                                                                             \
	return (ct_##T)power_wrap(a, b);                                      \
}                                                                             \
static inline ct_##T gcd_##T(ct_##T a, ct_##T b)                             \
{                                                                             \
	return (ct_##T)gcd_u64(a, b);                                         \
}                                                                             \
static inline ct_##T lcm_##T(ct_##T a, ct_##T b)                             \
{                                                                             \
	uint64_t g = gcd_u64(a, b);                                           \
	return g == 0 ? 0 : (ct_##T)((uint64_t)a / g * b);                    \
}
FOR_UNSIGNED(DEFINE_UNSIGNED_OPS, _)

#define E_FLOOR_DIVIDE_INT(T, a, b) floor_divide_##T(a, b)
#define E_REMAINDER_INT(T, a, b) remainder_##T(a, b)
#define E_FMOD_INT(T, a, b) fmod_##T(a, b)
#define E_POWER_INT(T, a, b) power_##T(a, b)
#define E_GCD_INT(T, a, b) gcd_##T(a, b)
#define E_LCM_INT(T, a, b) lcm_##T(a, b)
#define E_DIVMOD_INT(T, a, b, q, r) \
	do { (q) = floor_divide_##T(a, b); (r) = remainder_##T(a, b); } while (0)

/* ---- int64 against uint64, compared exactly (NumPy 2) ---- */

#define E_SIGNED_UNSIGNED(OP, a, b) ((a) < 0 ? ((a) OP 0) : ((uint64_t)(a) OP (b)))
#define E_UNSIGNED_SIGNED(OP, a, b) ((b) < 0 ? (0 OP (b)) : ((a) OP (uint64_t)(b)))

#define MIXED_COMPARISON(UF, OP)                                              \
	KERNEL_2_1(loop_##UF##_INT64_UINT64_BOOL, int64_t, uint64_t, ct_BOOL,  \
		   E_SIGNED_UNSIGNED, OP, REDUCE_NONE)                          \
	KERNEL_2_1(loop_##UF##_UINT64_INT64_BOOL, uint64_t, int64_t, ct_BOOL,  \
		   E_UNSIGNED_SIGNED, OP, REDUCE_NONE)

MIXED_COMPARISON(equal, ==)
MIXED_COMPARISON(not_equal, !=)
MIXED_COMPARISON(less, <)
MIXED_COMPARISON(less_equal, <=)
MIXED_COMPARISON(greater, >)
MIXED_COMPARISON(greater_equal, >=)

/* ---- the loops, ufunc by ufunc ---- */

UNARY(BOOL, absolute, E_ABSOLUTE_BOOL)
FOR_SIGNED(UNARY, absolute, E_ABSOLUTE_SIGNED)
FOR_UNSIGNED(UNARY, absolute, E_IDENTITY)

BINARY(BOOL, add, E_OR_BOOL)
FOR_INTS(BINARY, add, E_ADD_INT)

BINARY(BOOL, bitwise_and, E_AND_BOOL)
FOR_INTS(BINARY, bitwise_and, E_BITWISE_AND_INT)
BINARY(BOOL, bitwise_or, E_OR_BOOL)
FOR_INTS(BINARY, bitwise_or, E_BITWISE_OR_INT)
BINARY(BOOL, bitwise_xor, E_XOR_BOOL)
FOR_INTS(BINARY, bitwise_xor, E_BITWISE_XOR_INT)

FOR_SIGNED(UNARY_TO, bitwise_count, E_BITWISE_COUNT_SIGNED, UINT8)
FOR_UNSIGNED(UNARY_TO, bitwise_count, E_BITWISE_COUNT_UNSIGNED, UINT8)

/* NumPy 2: floor, ceil and trunc of bools and integers keep the value. */
FOR_BOOL_INTS(UNARY, ceil, E_IDENTITY)
FOR_BOOL_INTS(UNARY, floor, E_IDENTITY)
FOR_BOOL_INTS(UNARY, trunc, E_IDENTITY)

FOR_BOOL_INTS(COMPARISONS, _)

FOR_INTS(UNARY, conjugate, E_IDENTITY)
FOR_INTS(UNARY, positive, E_IDENTITY)

FOR_INTS(BINARY_2, divmod, E_DIVMOD_INT)
FOR_INTS(BINARY, floor_divide, E_FLOOR_DIVIDE_INT)
FOR_INTS(BINARY, remainder, E_REMAINDER_INT)
FOR_INTS(BINARY, fmod, E_FMOD_INT)

BINARY(BOOL, maximum, E_OR_BOOL)
FOR_INTS(BINARY, maximum, E_MAXIMUM_INT)
BINARY(BOOL, minimum, E_AND_BOOL)
FOR_INTS(BINARY, minimum, E_MINIMUM_INT)
BINARY(BOOL, fmax, E_OR_BOOL)
FOR_INTS(BINARY, fmax, E_MAXIMUM_INT)
BINARY(BOOL, fmin, E_AND_BOOL)
FOR_INTS(BINARY, fmin, E_MINIMUM_INT)

FOR_INTS(BINARY, gcd, E_GCD_INT)
FOR_INTS(BINARY, lcm, E_LCM_INT)

UNARY(BOOL, invert, E_NOT_BOOL)
FOR_INTS(UNARY, invert, E_INVERT_INT)

FOR_BOOL_INTS(UNARY_TO, isfinite, E_TRUE, BOOL)
FOR_BOOL_INTS(UNARY_TO, isinf, E_FALSE, BOOL)
FOR_BOOL_INTS(UNARY_TO, isnan, E_FALSE, BOOL)

FOR_SIGNED(BINARY, left_shift, E_LEFT_SHIFT_SIGNED)
FOR_UNSIGNED(BINARY, left_shift, E_LEFT_SHIFT_UNSIGNED)
FOR_SIGNED(BINARY, right_shift, E_RIGHT_SHIFT_SIGNED)
FOR_UNSIGNED(BINARY, right_shift, E_RIGHT_SHIFT_UNSIGNED)

BINARY(BOOL, multiply, E_AND_BOOL)
FOR_INTS(BINARY, multiply, E_MULTIPLY_INT)

FOR_INTS(UNARY, negative, E_NEGATIVE_INT)

FOR_INTS(BINARY, power, E_POWER_INT)

FOR_INTS(UNARY, reciprocal, E_RECIPROCAL_INT)

FOR_SIGNED(UNARY, sign, E_SIGN_SIGNED)
FOR_UNSIGNED(UNARY, sign, E_SIGN_UNSIGNED)

FOR_INTS(UNARY, square, E_SQUARE_INT)

FOR_INTS(BINARY, subtract, E_SUBTRACT_INT)
