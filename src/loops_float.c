/* loops_float.c - the float16, float32 and float64 type loops of every
 * ufunc.
 *
 * float32 and float64 loops apply each ufunc's element operation (E_*, or
 * the C library function of the same name) to the C type; float16 loops
 * convert to float32, apply the float32 operation and round back to
 * float16, as NumPy's do, except where NumPy works on the float16 bits
 * (absolute, negative, nextafter, spacing) or returns an input (maximum,
 * minimum, fmax, fmin).  Floor division, remainder and divmod follow
 * NumPy's npy_divmod exactly; sign of nan is nan; maximum and minimum
 * propagate nan, fmax and fmin ignore it.  Binary reduces (output aliased
 * to the first input with step 0) of add sum pairwise, and float16 add,
 * subtract, multiply and divide reduce in a float32 accumulator, as NumPy.
 *
 * The transcendental functions (SPEC 3.4's list) are in loops_vmath.c;
 * bool and integer loops are in loops_int.c; the catalogue is ufunc.c.
 */
#include <float.h>
#include <limits.h>
#include <string.h>

/* every kernel here in one version per instruction-set level (loops.h) */
#define LOOPS_PER_LEVEL
#include "loops.h"

/* ---- arithmetic ---- */

/* Of two nan operands an x86 instruction returns its first, and a
 * compiler may swap the operands of + and *: these return a's nan
 * whatever the instructions, so every level gives the same bits. */
#define DEFINE_NAN_FIRST(T, _)                                                \
static inline ct_##T add_##T(ct_##T a, ct_##T b)                             \
{                                                                             \
	return isnan(a) ? a + a : a + b;                                      \
}                                                                             \
static inline ct_##T multiply_##T(ct_##T a, ct_##T b)                        \
{                                                                             \
	return isnan(a) ? a * a : a * b;                                      \
}
FOR_FLOATS(DEFINE_NAN_FIRST, _)
#define E_ADD_FLOAT(T, a, b) add_##T(a, b)
#define E_SUBTRACT_FLOAT(T, a, b) ((a) - (b))
#define E_MULTIPLY_FLOAT(T, a, b) multiply_##T(a, b)
#define E_DIVIDE_FLOAT(T, a, b) ((a) / (b))
#define E_SQUARE_FLOAT(T, a) ((a) * (a))
#define E_RECIPROCAL_FLOAT(T, a) ((ct_##T)1 / (a))
#define E_NEGATIVE_FLOAT(T, a) (-(a))
#define E_ABSOLUTE_FLOAT(T, a) LIBM(fabs, a)(a)
/* NumPy 2: the sign of nan is nan, of either zero +0. */
#define E_SIGN_FLOAT(T, a) \
	((a) > 0 ? (ct_##T)1 : (a) < 0 ? (ct_##T)-1 : (a) == 0 ? (ct_##T)0 : (a))
/* NumPy's constants are computed in the type itself. */
#define E_RAD2DEG(T, a) ((a) * ((ct_##T)180 / (ct_##T)M_PI))
#define E_DEG2RAD(T, a) ((a) * ((ct_##T)M_PI / (ct_##T)180))
#define E_HEAVISIDE(T, a, b) \
	(isnan(a) ? (ct_##T)NAN : (a) == 0 ? (b) : (a) < 0 ? (ct_##T)0 : (ct_##T)1)

#define E_ISNAN(T, a) (isnan(a) != 0)
#define E_ISINF(T, a) (isinf(a) != 0)
#define E_ISFINITE(T, a) (isfinite(a) != 0)
#define E_SIGNBIT(T, a) (signbit(a) != 0)

/* maximum and minimum return the nan of either side; fmax and fmin return
 * the other side of a nan.  P_* says whether to return the first input. */
#define P_MAXIMUM(T, a, b) ((a) >= (b) || isnan(a))
#define P_MINIMUM(T, a, b) ((a) <= (b) || isnan(a))
#define P_FMAX(T, a, b) ((a) >= (b) || isnan(b))
#define P_FMIN(T, a, b) ((a) <= (b) || isnan(b))
#define E_PICK(P, a, b) (P(_, a, b) ? (a) : (b))

/* ---- division: inline functions per type ---- */

/* NumPy's npy_divmod: Python's floor division and modulo. */
#define DEFINE_FLOAT_OPS(T, _)                                                \
static inline ct_##T divmod_##T(ct_##T a, ct_##T b, ct_##T *modulus)         \
{                                                                             \
	ct_##T mod = LIBM(fmod, a)(a, b);                                     \
	if (!b) {                                                             \
		*modulus = mod;                                               \
		return a / b;                                                 \
	}                                                                     \
	ct_##T div = (a - mod) / b;                                           \
	if (mod) {                                                            \
		if (isless(b, (ct_##T)0) != isless(mod, (ct_##T)0)) {         \
			mod += b;                                             \
			div -= (ct_##T)1;                                     \
		}                                                             \
	} else {                                                              \
		mod = LIBM(copysign, a)((ct_##T)0, b);                        \
	}                                                                     \
	ct_##T floordiv;                                                      \
	if (div) {                                                            \
		floordiv = LIBM(floor, div)(div);                             \
		if (isgreater(div - floordiv, (ct_##T)0.5))                   \
			floordiv += (ct_##T)1;                                \
	} else {                                                              \
		floordiv = LIBM(copysign, a)((ct_##T)0, a / b);               \
	}                                                                     \
	*modulus = mod;                                                       \
	return floordiv;                                                      \
}                                                                             \
static inline ct_##T floor_divide_##T(ct_##T a, ct_##T b)                    \
{                                                                             \
	ct_##T mod;                                                           \
	return !b ? a / b : divmod_##T(a, b, &mod);                           \
}                                                                             \
static inline ct_##T remainder_##T(ct_##T a, ct_##T b)                       \
{                                                                             \
	ct_##T mod;                                                           \
	if (!b)                                                               \
		return LIBM(fmod, a)(a, b);                                   \
	divmod_##T(a, b, &mod);                                               \
	return mod;                                                           \
}
FOR_FLOATS(DEFINE_FLOAT_OPS, _)

/* NumPy's npy_spacing: the distance to the next number away from zero
 * (negative for negative x); nan for infinities. */
#define DEFINE_SPACING(T, BITS, TRUE_MIN)                                     \
static inline ct_##T spacing_##T(ct_##T x)                                   \
{                                                                             \
	if (isinf(x))                                                         \
		return (ct_##T)NAN;                                           \
	if (isnan(x))                                                         \
		return x;                                                     \
	if (x == 0)                                                           \
		return TRUE_MIN;                                              \
	BITS u;                                                               \
	ct_##T next;                                                          \
	memcpy(&u, &x, sizeof u);                                             \
	u++;                                                                  \
	memcpy(&next, &u, sizeof next);                                       \
	return next - x;                                                      \
}
DEFINE_SPACING(FLOAT32, uint32_t, FLT_TRUE_MIN)
DEFINE_SPACING(FLOAT64, uint64_t, DBL_TRUE_MIN)

#define E_DIVMOD_FLOAT(T, a, b, q, r) ((q) = divmod_##T(a, b, &(r)))
#define E_FLOOR_DIVIDE_FLOAT(T, a, b) floor_divide_##T(a, b)
#define E_REMAINDER_FLOAT(T, a, b) remainder_##T(a, b)
#define E_SPACING(T, a) spacing_##T(a)
#define E_FREXP(T, a, m, e) ((m) = LIBM(frexp, a)(a, &(e)))
#define E_MODF(T, a, f, i) ((f) = LIBM(modf, a)(a, &(i)))
#define E_LDEXP(T, a, b) LIBM(ldexp, a)(a, b)
/* NumPy's ldexp_int64: an exponent beyond int saturates. */
#define LDEXP_EXPONENT(b) ((b) > INT_MAX ? INT_MAX : (b) < INT_MIN ? INT_MIN : (int)(b))
#define E_LDEXP_INT64(T, a, b) LIBM(ldexp, a)(a, LDEXP_EXPONENT(b))

/* ---- float16 on its bits (NumPy's npy_half_*) ---- */

#define HALF_NAN 0x7e00u
#define HALF_PINF 0x7c00u
#define HALF_MAX 0x7bffu

static inline int half_isnan(uint16_t h)
{
	return (h & 0x7c00u) == 0x7c00u && (h & 0x03ffu) != 0;
}

/* npy_half_spacing: the distance to the next float16 away from zero,
 * positive whatever the sign of h. */
static inline uint16_t half_spacing(uint16_t h)
{
	const uint16_t h_exp = h & 0x7c00u, h_sig = h & 0x03ffu;
	if (h_exp == 0x7c00u)
		return HALF_NAN;
	if (h == HALF_MAX)
		return HALF_PINF;
	if ((h & 0x8000u) && h_sig == 0) {        /* negative boundary case */
		if (h_exp > 0x2c00u)
			return (uint16_t)(h_exp - 0x2c00u);
		if (h_exp > 0x0400u)
			return (uint16_t)(1u << ((h_exp >> 10) - 2));
		return 0x0001u;
	}
	if (h_exp > 0x2800u)
		return (uint16_t)(h_exp - 0x2800u);
	if (h_exp > 0x0400u)
		return (uint16_t)(1u << ((h_exp >> 10) - 1));
	return 0x0001u;
}

/* npy_half_nextafter: x itself when x == y (unlike C's nextafter). */
static inline uint16_t half_nextafter(uint16_t x, uint16_t y)
{
	if (half_isnan(x) || half_isnan(y))
		return HALF_NAN;
	if (half_to_float(x) == half_to_float(y))
		return x;
	if ((x & 0x7fffu) == 0)
		return (uint16_t)((y & 0x8000u) + 1);
	if (!(x & 0x8000u))
		return (int16_t)x > (int16_t)y ? (uint16_t)(x - 1) : (uint16_t)(x + 1);
	if (!(y & 0x8000u) || (x & 0x7fffu) > (y & 0x7fffu))
		return (uint16_t)(x - 1);
	return (uint16_t)(x + 1);
}

#define E_HALF_ABSOLUTE(X, a) ((uint16_t)((a) & 0x7fffu))
#define E_HALF_NEGATIVE(X, a) ((uint16_t)((a) ^ 0x8000u))
#define E_HALF_SPACING(X, a) half_spacing(a)
#define E_HALF_NEXTAFTER(X, a, b) half_nextafter(a, b)
#define E_HALF_DIVMOD(X, a, b, q, r)                                          \
	do {                                                                  \
		float mod_;                                                   \
		(q) = half_from_float(divmod_FLOAT32(half_to_float(a),        \
						     half_to_float(b), &mod_)); \
		(r) = half_from_float(mod_);                                  \
	} while (0)
#define E_HALF_FREXP(X, a, m, e) ((m) = half_from_float(frexpf(half_to_float(a), &(e))))
#define E_HALF_MODF(X, a, f, i)                                               \
	do {                                                                  \
		float int_;                                                   \
		(f) = half_from_float(modff(half_to_float(a), &int_));        \
		(i) = half_from_float(int_);                                  \
	} while (0)
#define E_HALF_LDEXP(X, a, b) half_from_float(ldexpf(half_to_float(a), b))
#define E_HALF_LDEXP_INT64(X, a, b) half_from_float(ldexpf(half_to_float(a), LDEXP_EXPONENT(b)))

/* NumPy's pairwise summation (reduce of add): blocks of 128 summed with
 * eight accumulators, halved recursively above that; float16 sums in
 * float32.  Starts at -0 so that a sum of -0 stays -0.
 *
 * PAIRWISE_BODY is the body of SELF(a, n, stride), the sum of the N
 * elements at A: AT(i) is element i (as ACC), PTR(i) its address.  It is
 * instantiated for any stride, and for contiguous float32 and float64
 * once more per level of cpu.h, where the eight accumulators become the
 * lanes of vectors: the same additions in the same order, so every level
 * and either instance give the same bits. */
#define PAIRWISE_BLOCK 128
#define PAIRWISE_BODY(ACC, AT, PTR, SELF)                                     \
	if (n < 8) {                                                          \
		ACC res = (ACC)-0.0;                                          \
		for (size_t i = 0; i < n; i++)                                \
			res += AT(i);                                         \
		return res;                                                   \
	}                                                                     \
	if (n <= PAIRWISE_BLOCK) {                                            \
		ACC r[8], res;                                                \
		size_t i;                                                     \
		for (size_t k = 0; k < 8; k++)                                \
			r[k] = AT(k);                                         \
		for (i = 8; i < n - (n % 8); i += 8)                          \
			for (size_t k = 0; k < 8; k++)                        \
				r[k] += AT(i + k);                            \
		res = ((r[0] + r[1]) + (r[2] + r[3])) +                       \
		      ((r[4] + r[5]) + (r[6] + r[7]));                        \
		for (; i < n; i++)                                            \
			res += AT(i);                                         \
		return res;                                                   \
	}                                                                     \
	size_t n2 = n / 2;                                                    \
	n2 -= n2 % 8;                                                         \
	return SELF(a, n2, stride) + SELF(PTR(n2), n - n2, stride);

/* pairwise_contiguous_T[level]: the sum of N elements of T at A, stride
 * sizeof(T), at each level. */
#define PAIRWISE_LEVEL(TAG, LEVEL, TARGET, T)                                 \
__attribute__((target(TARGET)))                                               \
static ct_##T pairwise_contiguous_##T##_##LEVEL(char *a, size_t n, ptrdiff_t stride) \
{                                                                             \
	PAIRWISE_BODY(ct_##T, PAIRWISE_AT_##T, PAIRWISE_NEXT_##T,             \
		      pairwise_contiguous_##T##_##LEVEL)                      \
}
#define PAIRWISE_LEVEL_ENTRY(TAG, LEVEL, TARGET, T) pairwise_contiguous_##T##_##LEVEL,
#define DEFINE_PAIRWISE_CONTIGUOUS(T, _)                                      \
CPU_LEVELS(PAIRWISE_LEVEL, T)                                                 \
static ct_##T (*const pairwise_contiguous_##T[CPU_NLEVELS])(char *, size_t, ptrdiff_t) = { \
	CPU_LEVELS(PAIRWISE_LEVEL_ENTRY, T)                                   \
};
#define PAIRWISE_AT_FLOAT32(i) ((const float *)a)[i]
#define PAIRWISE_AT_FLOAT64(i) ((const double *)a)[i]
#define PAIRWISE_NEXT_FLOAT32(i) (a + (i) * sizeof(float))
#define PAIRWISE_NEXT_FLOAT64(i) (a + (i) * sizeof(double))
FOR_FLOATS(DEFINE_PAIRWISE_CONTIGUOUS, _)

/* pairwise_sum_T(A, N, STRIDE): any stride; contiguous float32 and float64
 * at the level in use. */
#define LOAD_FLOAT32(p) (*(const float *)(p))
#define LOAD_FLOAT64(p) (*(const double *)(p))
#define LOAD_FLOAT16(p) half_to_float(*(const uint16_t *)(p))
#define PAIRWISE_CONTIGUOUS_FLOAT32(a, n, stride)                             \
	if (stride == (ptrdiff_t)sizeof(float))                               \
		return pairwise_contiguous_FLOAT32[cpu_level()](a, n, stride);
#define PAIRWISE_CONTIGUOUS_FLOAT64(a, n, stride)                             \
	if (stride == (ptrdiff_t)sizeof(double))                              \
		return pairwise_contiguous_FLOAT64[cpu_level()](a, n, stride);
#define PAIRWISE_CONTIGUOUS_FLOAT16(a, n, stride)
#define DEFINE_PAIRWISE(T, ACC)                                               \
static ACC pairwise_sum_##T(char *a, size_t n, ptrdiff_t stride)             \
{                                                                             \
	PAIRWISE_CONTIGUOUS_##T(a, n, stride)                                 \
	PAIRWISE_BODY(ACC, PAIRWISE_STRIDED_AT_##T, PAIRWISE_STRIDED_NEXT,    \
		      pairwise_sum_##T)                                       \
}
#define PAIRWISE_STRIDED_AT_FLOAT32(i) LOAD_FLOAT32(a + (ptrdiff_t)(i) * stride)
#define PAIRWISE_STRIDED_AT_FLOAT64(i) LOAD_FLOAT64(a + (ptrdiff_t)(i) * stride)
#define PAIRWISE_STRIDED_AT_FLOAT16(i) LOAD_FLOAT16(a + (ptrdiff_t)(i) * stride)
#define PAIRWISE_STRIDED_NEXT(i) (a + (ptrdiff_t)(i) * stride)
DEFINE_PAIRWISE(FLOAT32, float)
DEFINE_PAIRWISE(FLOAT64, double)
DEFINE_PAIRWISE(FLOAT16, float)

/* ---- instantiation shorthands for this file ---- */

/* T, T -> T with a given reduce fast path */
#define BINARY_REDUCE(T, UF, E, REDUCE) \
	KERNEL_2_1(loop_##UF##_##T##_##T##_##T, ct_##T, ct_##T, ct_##T, E, T, REDUCE)
/* float16 -> float16 on the bits */
#define HALF_BITS_UNARY(UF, E) \
	KERNEL_1_1(loop_##UF##_FLOAT16_FLOAT16, uint16_t, uint16_t, E, FLOAT16)

/* The loops of a ufunc that is the C library function FN: FNf for float32
 * and float16, FN for float64. */
#define E_LIBM_1(FN, a) LIBM(FN, a)(a)
#define E_LIBM_2(FN, a, b) LIBM(FN, a)(a, b)
#define E_HALF_LIBM_1(FN, a) half_from_float(FN##f(half_to_float(a)))
#define E_HALF_LIBM_2(FN, a, b) half_from_float(FN##f(half_to_float(a), half_to_float(b)))
#define LIBM_UNARY(UF, FN)                                                    \
	KERNEL_1_1(loop_##UF##_FLOAT16_FLOAT16, uint16_t, uint16_t, E_HALF_LIBM_1, FN) \
	KERNEL_1_1(loop_##UF##_FLOAT32_FLOAT32, float, float, E_LIBM_1, FN)   \
	KERNEL_1_1(loop_##UF##_FLOAT64_FLOAT64, double, double, E_LIBM_1, FN)
#define LIBM_BINARY(UF, FN)                                                   \
	KERNEL_2_1(loop_##UF##_FLOAT16_FLOAT16_FLOAT16, uint16_t, uint16_t, uint16_t, \
		   E_HALF_LIBM_2, FN, REDUCE_NONE)                              \
	KERNEL_2_1(loop_##UF##_FLOAT32_FLOAT32_FLOAT32, float, float, float,   \
		   E_LIBM_2, FN, REDUCE_SEQ)                                    \
	KERNEL_2_1(loop_##UF##_FLOAT64_FLOAT64_FLOAT64, double, double, double, \
		   E_LIBM_2, FN, REDUCE_SEQ)

/* maximum and friends: float16 returns the chosen input's bits. */
#define PICK_LOOPS(UF, P)                                                     \
	KERNEL_2_1(loop_##UF##_FLOAT16_FLOAT16_FLOAT16, uint16_t, uint16_t, uint16_t, \
		   HALF_PICK, P, REDUCE_NONE)                                   \
	KERNEL_2_1(loop_##UF##_FLOAT32_FLOAT32_FLOAT32, float, float, float,   \
		   E_PICK, P, REDUCE_SEQ)                                       \
	KERNEL_2_1(loop_##UF##_FLOAT64_FLOAT64_FLOAT64, double, double, double, \
		   E_PICK, P, REDUCE_SEQ)

#define HALF_COMPARISONS                                                      \
	HALF_BINARY_TO(equal, E_EQUAL, BOOL)                                  \
	HALF_BINARY_TO(not_equal, E_NOT_EQUAL, BOOL)                          \
	HALF_BINARY_TO(less, E_LESS, BOOL)                                    \
	HALF_BINARY_TO(less_equal, E_LESS_EQUAL, BOOL)                        \
	HALF_BINARY_TO(greater, E_GREATER, BOOL)                              \
	HALF_BINARY_TO(greater_equal, E_GREATER_EQUAL, BOOL)                  \
	HALF_BINARY_TO(logical_and, E_LOGICAL_AND, BOOL)                      \
	HALF_BINARY_TO(logical_or, E_LOGICAL_OR, BOOL)                        \
	HALF_BINARY_TO(logical_xor, E_LOGICAL_XOR, BOOL)                      \
	HALF_UNARY_TO(logical_not, E_LOGICAL_NOT, BOOL)

/* ---- the loops, ufunc by ufunc ---- */

HALF_BITS_UNARY(absolute, E_HALF_ABSOLUTE)
FOR_FLOATS(UNARY, absolute, E_ABSOLUTE_FLOAT)

HALF_BINARY(add, E_ADD_FLOAT, REDUCE_HALF_PAIRWISE)
FOR_FLOATS(BINARY_REDUCE, add, E_ADD_FLOAT, REDUCE_PAIRWISE)

LIBM_UNARY(ceil, ceil)

HALF_COMPARISONS
FOR_FLOATS(COMPARISONS, _)

HALF_BITS_UNARY(conjugate, E_IDENTITY)
FOR_FLOATS(UNARY, conjugate, E_IDENTITY)

LIBM_BINARY(copysign, copysign)

HALF_UNARY(deg2rad, E_DEG2RAD)
FOR_FLOATS(UNARY, deg2rad, E_DEG2RAD)
HALF_UNARY(degrees, E_RAD2DEG)
FOR_FLOATS(UNARY, degrees, E_RAD2DEG)

HALF_BINARY(divide, E_DIVIDE_FLOAT, REDUCE_HALF_SEQ)
FOR_FLOATS(BINARY, divide, E_DIVIDE_FLOAT)

KERNEL_2_2(loop_divmod_FLOAT16_FLOAT16_FLOAT16_FLOAT16, uint16_t, uint16_t,
	   uint16_t, uint16_t, E_HALF_DIVMOD, FLOAT16)
FOR_FLOATS(BINARY_2, divmod, E_DIVMOD_FLOAT)

LIBM_UNARY(fabs, fabs)

LIBM_UNARY(floor, floor)

HALF_BINARY(floor_divide, E_FLOOR_DIVIDE_FLOAT, REDUCE_NONE)
FOR_FLOATS(BINARY, floor_divide, E_FLOOR_DIVIDE_FLOAT)

PICK_LOOPS(fmax, P_FMAX)
PICK_LOOPS(fmin, P_FMIN)

LIBM_BINARY(fmod, fmod)

KERNEL_1_2(loop_frexp_FLOAT16_FLOAT16_INT32, uint16_t, uint16_t, int32_t, E_HALF_FREXP, FLOAT16)
KERNEL_1_2(loop_frexp_FLOAT32_FLOAT32_INT32, float, float, int32_t, E_FREXP, FLOAT32)
KERNEL_1_2(loop_frexp_FLOAT64_FLOAT64_INT32, double, double, int32_t, E_FREXP, FLOAT64)

HALF_BINARY(heaviside, E_HEAVISIDE, REDUCE_NONE)
FOR_FLOATS(BINARY, heaviside, E_HEAVISIDE)


HALF_UNARY_TO(isfinite, E_ISFINITE, BOOL)
FOR_FLOATS(UNARY_TO, isfinite, E_ISFINITE, BOOL)
HALF_UNARY_TO(isinf, E_ISINF, BOOL)
FOR_FLOATS(UNARY_TO, isinf, E_ISINF, BOOL)
HALF_UNARY_TO(isnan, E_ISNAN, BOOL)
FOR_FLOATS(UNARY_TO, isnan, E_ISNAN, BOOL)

KERNEL_2_1(loop_ldexp_FLOAT16_INT32_FLOAT16, uint16_t, int32_t, uint16_t,
	   E_HALF_LDEXP, FLOAT16, REDUCE_NONE)
KERNEL_2_1(loop_ldexp_FLOAT16_INT64_FLOAT16, uint16_t, int64_t, uint16_t,
	   E_HALF_LDEXP_INT64, FLOAT16, REDUCE_NONE)
KERNEL_2_1(loop_ldexp_FLOAT32_INT32_FLOAT32, float, int32_t, float,
	   E_LDEXP, FLOAT32, REDUCE_NONE)
KERNEL_2_1(loop_ldexp_FLOAT32_INT64_FLOAT32, float, int64_t, float,
	   E_LDEXP_INT64, FLOAT32, REDUCE_NONE)
KERNEL_2_1(loop_ldexp_FLOAT64_INT32_FLOAT64, double, int32_t, double,
	   E_LDEXP, FLOAT64, REDUCE_NONE)
KERNEL_2_1(loop_ldexp_FLOAT64_INT64_FLOAT64, double, int64_t, double,
	   E_LDEXP_INT64, FLOAT64, REDUCE_NONE)


PICK_LOOPS(maximum, P_MAXIMUM)
PICK_LOOPS(minimum, P_MINIMUM)

KERNEL_1_2(loop_modf_FLOAT16_FLOAT16_FLOAT16, uint16_t, uint16_t, uint16_t, E_HALF_MODF, FLOAT16)
KERNEL_1_2(loop_modf_FLOAT32_FLOAT32_FLOAT32, float, float, float, E_MODF, FLOAT32)
KERNEL_1_2(loop_modf_FLOAT64_FLOAT64_FLOAT64, double, double, double, E_MODF, FLOAT64)

HALF_BINARY(multiply, E_MULTIPLY_FLOAT, REDUCE_HALF_SEQ)
FOR_FLOATS(BINARY, multiply, E_MULTIPLY_FLOAT)

HALF_BITS_UNARY(negative, E_HALF_NEGATIVE)
FOR_FLOATS(UNARY, negative, E_NEGATIVE_FLOAT)

KERNEL_2_1(loop_nextafter_FLOAT16_FLOAT16_FLOAT16, uint16_t, uint16_t, uint16_t,
	   E_HALF_NEXTAFTER, FLOAT16, REDUCE_NONE)
KERNEL_2_1(loop_nextafter_FLOAT32_FLOAT32_FLOAT32, float, float, float,
	   E_LIBM_2, nextafter, REDUCE_SEQ)
KERNEL_2_1(loop_nextafter_FLOAT64_FLOAT64_FLOAT64, double, double, double,
	   E_LIBM_2, nextafter, REDUCE_SEQ)

HALF_BITS_UNARY(positive, E_IDENTITY)
FOR_FLOATS(UNARY, positive, E_IDENTITY)


HALF_UNARY(rad2deg, E_RAD2DEG)
FOR_FLOATS(UNARY, rad2deg, E_RAD2DEG)
HALF_UNARY(radians, E_DEG2RAD)
FOR_FLOATS(UNARY, radians, E_DEG2RAD)

HALF_UNARY(reciprocal, E_RECIPROCAL_FLOAT)
FOR_FLOATS(UNARY, reciprocal, E_RECIPROCAL_FLOAT)

HALF_BINARY(remainder, E_REMAINDER_FLOAT, REDUCE_NONE)
FOR_FLOATS(BINARY, remainder, E_REMAINDER_FLOAT)

LIBM_UNARY(rint, rint)

HALF_UNARY(sign, E_SIGN_FLOAT)
FOR_FLOATS(UNARY, sign, E_SIGN_FLOAT)

HALF_UNARY_TO(signbit, E_SIGNBIT, BOOL)
FOR_FLOATS(UNARY_TO, signbit, E_SIGNBIT, BOOL)


HALF_BITS_UNARY(spacing, E_HALF_SPACING)
FOR_FLOATS(UNARY, spacing, E_SPACING)

LIBM_UNARY(sqrt, sqrt)

HALF_UNARY(square, E_SQUARE_FLOAT)
FOR_FLOATS(UNARY, square, E_SQUARE_FLOAT)

HALF_BINARY(subtract, E_SUBTRACT_FLOAT, REDUCE_HALF_SEQ)
FOR_FLOATS(BINARY, subtract, E_SUBTRACT_FLOAT)

LIBM_UNARY(trunc, trunc)
