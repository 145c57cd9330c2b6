/* loops_complex.c - the complex64 and complex128 type loops of every ufunc
 * that has them.
 *
 * Each element operation works on the two parts of its operands in their
 * part type (float for complex64, double for complex128) with the formulas
 * of NumPy's complex loops and of npy_math's complex functions, in the
 * same order of operations, so that the exact ones are NumPy's bit for
 * bit: add and subtract part by part; multiply as ar*br - ai*bi,
 * ar*bi + ai*br (never C's complex product, which mends infinities
 * differently); divide by Smith's algorithm, with NumPy's NaN cases;
 * reciprocal, square, conjugate, negative; absolute as hypot; sign as
 * z/|z| (NumPy 2); rint part by part; comparisons in NumPy's lexicographic
 * order (real parts first, then imaginary ones); maximum and minimum
 * propagating a NaN in either part, fmax and fmin ignoring it; and power
 * as npy_cpow computes it: z**0 = 1, 0**b = 0 when real(b) > 0 and NaN
 * otherwise (NumPy 2), integer exponents below 100 in magnitude by
 * repeated multiplication, everything else through the C library's cpow.
 * The transcendental functions are the C library's complex functions
 * (csqrt, cexp, clog, csin, cacos, ..., which npy_math uses on glibc), or
 * NumPy's formulas over the real ones (exp2, expm1, log1p, log2, log10).
 * A binary reduce of add sums both parts pairwise, as NumPy's does;
 * reduces of the other binary loops run element by element.
 *
 * Bool, integer and float loops are in loops_int.c and loops_float.c; the
 * catalogue is ufunc.c.
 */
#include <complex.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "loops.h"

/* ---- parts ---- */

/* C11's CMPLX and CMPLXF, which glibc's <complex.h> defines for GCC only. */
#ifndef CMPLX
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#endif
#ifndef CMPLXF
#define CMPLXF(x, y) __builtin_complex((float)(x), (float)(y))
#endif

/* The real and imaginary parts of Z, in its part type. */
#define RE(z) _Generic((z), float _Complex: crealf, default: creal)(z)
#define IM(z) _Generic((z), float _Complex: cimagf, default: cimag)(z)
/* The element of tag T with parts R and I, exactly (no arithmetic). */
#define CPLX_COMPLEX64(r, i) CMPLXF(r, i)
#define CPLX_COMPLEX128(r, i) CMPLX(r, i)
#define CPLX(T, r, i) CPLX_##T(r, i)
/* The C library's complex function FN for the type of Z: CLIBM(cexp, z)(z). */
#define CLIBM(FN, Z) _Generic((Z), float _Complex: FN##f, default: FN)
/* NumPy's constants in the part type of each tag, read from the decimal
 * once (NPY_LOGE2f is a float literal, not a rounded double): ln 2,
 * log2(e), log10(e). */
#define LOGE2_COMPLEX64 0.693147180559945309417232121458176568F
#define LOGE2_COMPLEX128 0.693147180559945309417232121458176568
#define LOG2E_COMPLEX64 1.442695040888963407359924681001892137F
#define LOG2E_COMPLEX128 1.442695040888963407359924681001892137
#define LOG10E_COMPLEX64 0.434294481903251827651128918916605082F
#define LOG10E_COMPLEX128 0.434294481903251827651128918916605082

/* NumPy's lexicographic order: a NaN in an imaginary part makes unequal
 * real parts unordered. */
#define CGE(xr, xi, yr, yi) \
	(((xr) > (yr) && !isnan(xi) && !isnan(yi)) || ((xr) == (yr) && (xi) >= (yi)))
#define CLE(xr, xi, yr, yi) \
	(((xr) < (yr) && !isnan(xi) && !isnan(yi)) || ((xr) == (yr) && (xi) <= (yi)))
#define CGT(xr, xi, yr, yi) \
	(((xr) > (yr) && !isnan(xi) && !isnan(yi)) || ((xr) == (yr) && (xi) > (yi)))
#define CLT(xr, xi, yr, yi) \
	(((xr) < (yr) && !isnan(xi) && !isnan(yi)) || ((xr) == (yr) && (xi) < (yi)))
#define CEQ(xr, xi, yr, yi) ((xr) == (yr) && (xi) == (yi))
#define CNE(xr, xi, yr, yi) ((xr) != (yr) || (xi) != (yi))
/* OP applied to the parts of A and B. */
#define C_ORDER(OP, a, b) OP(RE(a), IM(a), RE(b), IM(b))

/* ---- element operations that need statements: per tag T ----
 * In groups, each instantiated for both tags where it is defined:
 * multiply; divide and cdiv; reciprocal and sign; power (on multiply and
 * cdiv); exp2, expm1, log1p, log2 and log10. */

#define DEFINE_COMPLEX_PRODUCT(T, _)                                          \
/* a * b, as NumPy's loop and npy_math's cmul. */                            \
static inline ct_##T multiply_##T(ct_##T a, ct_##T b)                        \
{                                                                             \
	const pt_##T ar = RE(a), ai = IM(a), br = RE(b), bi = IM(b);          \
	return CPLX(T, ar * br - ai * bi, ar * bi + ai * br);                 \
}
FOR_COMPLEX(DEFINE_COMPLEX_PRODUCT, _)

#define DEFINE_COMPLEX_DIVIDE(T, _)                                           \
/* a / b: Smith's algorithm; a NaN dividend with an infinite part, or     \
 * over two infinite parts, is NaN in both parts; 0/0 keeps the NaN of   \
 * the dividend (NumPy 2's divide). */                                        \
static inline ct_##T divide_##T(ct_##T a, ct_##T b)                          \
{                                                                             \
	const pt_##T ar = RE(a), ai = IM(a), br = RE(b), bi = IM(b);          \
	const pt_##T abs_br = LIBM(fabs, br)(br), abs_bi = LIBM(fabs, bi)(bi); \
	const bool ar_nan = isnan(ar), ai_nan = isnan(ai);                    \
	if (!isnan(br) && !isnan(bi) && (ar_nan || ai_nan) &&                 \
	    ((((!ar_nan && isinf(ar)) || (!ai_nan && isinf(ai))) &&           \
	      (br != 0 || bi != 0)) || (isinf(br) && isinf(bi)))) {           \
		const pt_##T nan = ar_nan ? ar : ai;                          \
		return CPLX(T, nan, nan);                                     \
	}                                                                     \
	if (isgreaterequal(abs_br, abs_bi)) {                                 \
		if (abs_br == 0 && abs_bi == 0) {                             \
			if ((ar_nan && (ai == 0 || ai_nan)) || (ar == 0 && ai_nan)) \
				return CPLX(T, ar_nan ? ar : ai, ai_nan ? ai : ar); \
			/* a complex inf or nan */                            \
			return CPLX(T, ar / abs_br, ai / abs_bi);             \
		}                                                             \
		const pt_##T rat = bi / br;                                   \
		const pt_##T scl = (pt_##T)1 / (br + bi * rat);               \
		return CPLX(T, (ar + ai * rat) * scl, (ai - ar * rat) * scl); \
	}                                                                     \
	const pt_##T rat = br / bi;                                           \
	const pt_##T scl = (pt_##T)1 / (bi + br * rat);                       \
	return CPLX(T, (ar * rat + ai) * scl, (ai * rat - ar) * scl);         \
}                                                                             \
/* a / b as npy_math's cdiv, which npy_cpow uses for negative powers:    \
 * Smith's algorithm without the NaN cases. */                                \
static inline ct_##T cdiv_##T(ct_##T a, ct_##T b)                            \
{                                                                             \
	const pt_##T ar = RE(a), ai = IM(a), br = RE(b), bi = IM(b);          \
	const pt_##T abs_br = LIBM(fabs, br)(br), abs_bi = LIBM(fabs, bi)(bi); \
	if (abs_br >= abs_bi) {                                               \
		if (abs_br == 0 && abs_bi == 0)                               \
			return CPLX(T, ar / abs_br, ai / abs_bi);             \
		const pt_##T rat = bi / br;                                   \
		const pt_##T scl = (pt_##T)1 / (br + bi * rat);               \
		return CPLX(T, (ar + ai * rat) * scl, (ai - ar * rat) * scl); \
	}                                                                     \
	const pt_##T rat = br / bi;                                           \
	const pt_##T scl = (pt_##T)1 / (bi + br * rat);                       \
	return CPLX(T, (ar * rat + ai) * scl, (ai * rat - ar) * scl);         \
}
FOR_COMPLEX(DEFINE_COMPLEX_DIVIDE, _)

#define DEFINE_COMPLEX_RECIPROCAL_SIGN(T, _)                                  \
static inline ct_##T reciprocal_##T(ct_##T a)                                \
{                                                                             \
	const pt_##T ar = RE(a), ai = IM(a);                                  \
	if (LIBM(fabs, ai)(ai) <= LIBM(fabs, ar)(ar)) {                       \
		const pt_##T r = ai / ar;                                     \
		const pt_##T d = ar + ai * r;                                 \
		return CPLX(T, 1 / d, -r / d);                                \
	}                                                                     \
	const pt_##T r = ar / ai;                                             \
	const pt_##T d = ar * r + ai;                                         \
	return CPLX(T, r / d, -1 / d);                                        \
}                                                                             \
/* NumPy 2: z/|z|; 0 for 0; for an infinite |z| the direction of the     \
 * infinite part, NaN when both are infinite. */                              \
static inline ct_##T sign_##T(ct_##T a)                                      \
{                                                                             \
	const pt_##T ar = RE(a), ai = IM(a);                                  \
	const pt_##T abs = LIBM(hypot, ar)(ar, ai);                           \
	if (isnan(abs))                                                       \
		return CPLX(T, (pt_##T)NAN, (pt_##T)NAN);                     \
	if (isinf(abs)) {                                                     \
		if (isinf(ar)) {                                              \
			if (isinf(ai))                                        \
				return CPLX(T, (pt_##T)NAN, (pt_##T)NAN);     \
			return CPLX(T, ar > 0 ? (pt_##T)1 : (pt_##T)-1, (pt_##T)0); \
		}                                                             \
		return CPLX(T, (pt_##T)0, ai > 0 ? (pt_##T)1 : (pt_##T)-1);   \
	}                                                                     \
	if (abs == 0)                                                         \
		return CPLX(T, (pt_##T)0, (pt_##T)0);                         \
	return CPLX(T, ar / abs, ai / abs);                                   \
}
FOR_COMPLEX(DEFINE_COMPLEX_RECIPROCAL_SIGN, _)

#define DEFINE_COMPLEX_POWER(T, _)                                            \
/* npy_cpow. */                                                               \
static inline ct_##T power_##T(ct_##T a, ct_##T b)                           \
{                                                                             \
	const pt_##T ar = RE(a), ai = IM(a), br = RE(b), bi = IM(b);          \
	if (br == 0 && bi == 0)                                               \
		return CPLX(T, (pt_##T)1, (pt_##T)0);                         \
	if (ar == 0 && ai == 0) {                                             \
		if (br > 0)                                                   \
			return CPLX(T, (pt_##T)0, (pt_##T)0);                 \
		return CPLX(T, (pt_##T)NAN, (pt_##T)NAN);                     \
	}                                                                     \
	if (bi == 0 && br > -100 && br < 100 && (pt_##T)(int)br == br) {      \
		int n = (int)br;                                              \
		if (n == 1)                                                   \
			return a;                                             \
		if (n == 2)                                                   \
			return multiply_##T(a, a);                            \
		if (n == 3)                                                   \
			return multiply_##T(a, multiply_##T(a, a));           \
		/* by the bits of |n|, least significant first */             \
		ct_##T acc = CPLX(T, (pt_##T)1, (pt_##T)0), p = a;            \
		unsigned m = (unsigned)(n < 0 ? -n : n);                      \
		for (unsigned mask = 1;; mask <<= 1) {                        \
			if (m & mask)                                         \
				acc = multiply_##T(acc, p);                   \
			if (m < (mask << 1))                                  \
				break;                                        \
			p = multiply_##T(p, p);                               \
		}                                                             \
		if (br < 0)                                                   \
			acc = cdiv_##T(CPLX(T, (pt_##T)1, (pt_##T)0), acc);   \
		return acc;                                                   \
	}                                                                     \
	return CLIBM(cpow, a)(a, b);                                          \
}
FOR_COMPLEX(DEFINE_COMPLEX_POWER, _)

#define DEFINE_COMPLEX_EXP_LOG(T, _)                                          \
/* NumPy's nc_exp2: exp(z * ln 2). */                                         \
static inline ct_##T exp2_##T(ct_##T a)                                      \
{                                                                             \
	const pt_##T ln2 = LOGE2_##T;                                         \
	return CLIBM(cexp, a)(CPLX(T, RE(a) * ln2, IM(a) * ln2));             \
}                                                                             \
/* NumPy's nc_expm1. */                                                       \
static inline ct_##T expm1_##T(ct_##T a)                                     \
{                                                                             \
	const pt_##T ar = RE(a), ai = IM(a);                                  \
	const pt_##T s = LIBM(sin, ai)(ai / 2);                               \
	return CPLX(T, LIBM(expm1, ar)(ar) * LIBM(cos, ai)(ai) - 2 * s * s,   \
		    LIBM(exp, ar)(ar) * LIBM(sin, ai)(ai));                   \
}                                                                             \
/* NumPy's nc_log1p: log|z + 1| + i arg(z + 1). */                            \
static inline ct_##T log1p_##T(ct_##T a)                                     \
{                                                                             \
	const pt_##T ar = RE(a), ai = IM(a);                                  \
	const pt_##T l = LIBM(hypot, ar)(ar + 1, ai);                         \
	return CPLX(T, LIBM(log, l)(l), LIBM(atan2, ai)(ai, ar + 1));         \
}                                                                             \
/* NumPy's nc_log2 and nc_log10: log(z) with both parts scaled. */           \
static inline ct_##T log2_##T(ct_##T a)                                      \
{                                                                             \
	const ct_##T l = CLIBM(clog, a)(a);                                   \
	const pt_##T k = LOG2E_##T;                                           \
	return CPLX(T, RE(l) * k, IM(l) * k);                                 \
}                                                                             \
static inline ct_##T log10_##T(ct_##T a)                                     \
{                                                                             \
	const ct_##T l = CLIBM(clog, a)(a);                                   \
	const pt_##T k = LOG10E_##T;                                          \
	return CPLX(T, RE(l) * k, IM(l) * k);                                 \
}
FOR_COMPLEX(DEFINE_COMPLEX_EXP_LOG, _)

/* NumPy's pairwise summation of complex numbers (reduce of add): each part
 * summed as NumPy sums the array seen as 2N reals, blocks of 64 elements
 * with four accumulators per part, halved recursively above that.  Starts
 * at -0 so that a sum of -0 stays -0. */
#define DEFINE_COMPLEX_PAIRWISE(T, _)                                         \
static ct_##T pairwise_sum_##T(char *a, size_t n, ptrdiff_t stride)          \
{                                                                             \
	typedef pt_##T part;                                                  \
	if (n < 4) {                                                          \
		part rr = (part)-0.0, ri = (part)-0.0;                        \
		for (size_t i = 0; i < n; i++) {                              \
			const ct_##T z = *(const ct_##T *)(a + (ptrdiff_t)i * stride); \
			rr += RE(z);                                          \
			ri += IM(z);                                          \
		}                                                             \
		return CPLX(T, rr, ri);                                       \
	}                                                                     \
	if (n <= 64) {                                                        \
		part r[8];                                                    \
		size_t i;                                                     \
		for (int k = 0; k < 4; k++) {                                 \
			const ct_##T z = *(const ct_##T *)(a + k * stride);   \
			r[2 * k] = RE(z);                                     \
			r[2 * k + 1] = IM(z);                                 \
		}                                                             \
		for (i = 4; i < n - (n % 4); i += 4)                          \
			for (int k = 0; k < 4; k++) {                         \
				const ct_##T z =                              \
					*(const ct_##T *)(a + (ptrdiff_t)(i + k) * stride); \
				r[2 * k] += RE(z);                            \
				r[2 * k + 1] += IM(z);                        \
			}                                                     \
		part rr = (r[0] + r[2]) + (r[4] + r[6]);                      \
		part ri = (r[1] + r[3]) + (r[5] + r[7]);                      \
		for (; i < n; i++) {                                          \
			const ct_##T z = *(const ct_##T *)(a + (ptrdiff_t)i * stride); \
			rr += RE(z);                                          \
			ri += IM(z);                                          \
		}                                                             \
		return CPLX(T, rr, ri);                                       \
	}                                                                     \
	/* NumPy halves the 2N reals, less their remainder modulo 8 */        \
	size_t n2 = (n - n % 8) / 2;                                          \
	const ct_##T x = pairwise_sum_##T(a, n2, stride);                     \
	const ct_##T y = pairwise_sum_##T(a + (ptrdiff_t)n2 * stride, n - n2, stride); \
	return CPLX(T, RE(x) + RE(y), IM(x) + IM(y));                         \
}
FOR_COMPLEX(DEFINE_COMPLEX_PAIRWISE, _)

/* ---- element operations ---- */

#define E_C_ADD(T, a, b) CPLX(T, RE(a) + RE(b), IM(a) + IM(b))
#define E_C_SUBTRACT(T, a, b) CPLX(T, RE(a) - RE(b), IM(a) - IM(b))
#define E_C_MULTIPLY(T, a, b) multiply_##T(a, b)
#define E_C_DIVIDE(T, a, b) divide_##T(a, b)
#define E_C_POWER(T, a, b) power_##T(a, b)
#define E_C_SQUARE(T, a) \
	CPLX(T, RE(a) * RE(a) - IM(a) * IM(a), RE(a) * IM(a) + IM(a) * RE(a))
#define E_C_RECIPROCAL(T, a) reciprocal_##T(a)
#define E_C_CONJUGATE(T, a) CPLX(T, RE(a), -IM(a))
#define E_C_NEGATIVE(T, a) CPLX(T, -RE(a), -IM(a))
#define E_C_SIGN(T, a) sign_##T(a)
#define E_C_RINT(T, a) CPLX(T, LIBM(rint, RE(a))(RE(a)), LIBM(rint, IM(a))(IM(a)))
#define E_C_ABSOLUTE(T, a) LIBM(hypot, RE(a))(RE(a), IM(a))
#define E_C_EXP2(T, a) exp2_##T(a)
#define E_C_EXPM1(T, a) expm1_##T(a)
#define E_C_LOG1P(T, a) log1p_##T(a)
#define E_C_LOG2(T, a) log2_##T(a)
#define E_C_LOG10(T, a) log10_##T(a)
/* the C library's complex function FN, passed as X */
#define E_C_LIBM(FN, a) CLIBM(FN, a)(a)

#define E_C_ISNAN(T, a) (isnan(RE(a)) || isnan(IM(a)))
#define E_C_ISINF(T, a) (isinf(RE(a)) || isinf(IM(a)))
#define E_C_ISFINITE(T, a) (isfinite(RE(a)) && isfinite(IM(a)))
/* truth of a complex value: either part nonzero (NaN is true) */
#define C_TRUE(a) (RE(a) != 0 || IM(a) != 0)
#define E_C_LOGICAL_AND(T, a, b) (C_TRUE(a) && C_TRUE(b))
#define E_C_LOGICAL_OR(T, a, b) (C_TRUE(a) || C_TRUE(b))
#define E_C_LOGICAL_XOR(T, a, b) (C_TRUE(a) != C_TRUE(b))
#define E_C_LOGICAL_NOT(T, a) (!C_TRUE(a))
#define E_C_EQUAL(T, a, b) C_ORDER(CEQ, a, b)
#define E_C_NOT_EQUAL(T, a, b) C_ORDER(CNE, a, b)
#define E_C_LESS(T, a, b) C_ORDER(CLT, a, b)
#define E_C_LESS_EQUAL(T, a, b) C_ORDER(CLE, a, b)
#define E_C_GREATER(T, a, b) C_ORDER(CGT, a, b)
#define E_C_GREATER_EQUAL(T, a, b) C_ORDER(CGE, a, b)

/* maximum and minimum return the first input when it has a NaN part or
 * is not below (above) the second, else the second, so a NaN in either
 * wins; fmax and fmin return the first unless the second is the larger
 * (smaller) or the first has a NaN part.  P_C_* says whether to return the
 * first input. */
#define P_C_MAXIMUM(a, b) (isnan(RE(a)) || isnan(IM(a)) || C_ORDER(CGE, a, b))
#define P_C_MINIMUM(a, b) (isnan(RE(a)) || isnan(IM(a)) || C_ORDER(CLE, a, b))
#define P_C_FMAX(a, b) (isnan(RE(b)) || isnan(IM(b)) || C_ORDER(CGE, a, b))
#define P_C_FMIN(a, b) (isnan(RE(b)) || isnan(IM(b)) || C_ORDER(CLE, a, b))
#define E_C_PICK(P, a, b) (P(a, b) ? (a) : (b))

/* ---- instantiation shorthands for this file ---- */

/* T, T -> T with the given reduce fast path */
#define C_BINARY(T, UF, E, REDUCE) \
	KERNEL_2_1(loop_##UF##_##T##_##T##_##T, ct_##T, ct_##T, ct_##T, E, T, REDUCE)
/* maximum and friends: X is the predicate */
#define C_PICK(T, UF, P) \
	KERNEL_2_1(loop_##UF##_##T##_##T##_##T, ct_##T, ct_##T, ct_##T, E_C_PICK, P, REDUCE_SEQ)
/* the C library's complex function FN, both tags */
#define C_LIBM_UNARY(UF, FN)                                                  \
	KERNEL_1_1(loop_##UF##_COMPLEX64_COMPLEX64, ct_COMPLEX64, ct_COMPLEX64, E_C_LIBM, FN) \
	KERNEL_1_1(loop_##UF##_COMPLEX128_COMPLEX128, ct_COMPLEX128, ct_COMPLEX128, E_C_LIBM, FN)

#define C_COMPARISONS(T, _) COMPARISONS_BY(T, E_C_)

/* ---- the loops, ufunc by ufunc ---- */

KERNEL_1_1(loop_absolute_COMPLEX64_FLOAT32, ct_COMPLEX64, float, E_C_ABSOLUTE, COMPLEX64)
KERNEL_1_1(loop_absolute_COMPLEX128_FLOAT64, ct_COMPLEX128, double, E_C_ABSOLUTE, COMPLEX128)

FOR_COMPLEX(C_BINARY, add, E_C_ADD, REDUCE_PAIRWISE)

C_LIBM_UNARY(arccos, cacos)
C_LIBM_UNARY(arccosh, cacosh)
C_LIBM_UNARY(arcsin, casin)
C_LIBM_UNARY(arcsinh, casinh)
C_LIBM_UNARY(arctan, catan)
C_LIBM_UNARY(arctanh, catanh)

FOR_COMPLEX(C_COMPARISONS, _)

FOR_COMPLEX(UNARY, conjugate, E_C_CONJUGATE)

C_LIBM_UNARY(cos, ccos)
C_LIBM_UNARY(cosh, ccosh)

FOR_COMPLEX(C_BINARY, divide, E_C_DIVIDE, REDUCE_SEQ)

C_LIBM_UNARY(exp, cexp)
FOR_COMPLEX(UNARY, exp2, E_C_EXP2)
FOR_COMPLEX(UNARY, expm1, E_C_EXPM1)

C_BINARY(COMPLEX128, float_power, E_C_POWER, REDUCE_SEQ)

FOR_COMPLEX(C_PICK, fmax, P_C_FMAX)
FOR_COMPLEX(C_PICK, fmin, P_C_FMIN)

FOR_COMPLEX(UNARY_TO, isfinite, E_C_ISFINITE, BOOL)
FOR_COMPLEX(UNARY_TO, isinf, E_C_ISINF, BOOL)
FOR_COMPLEX(UNARY_TO, isnan, E_C_ISNAN, BOOL)

C_LIBM_UNARY(log, clog)
FOR_COMPLEX(UNARY, log10, E_C_LOG10)
FOR_COMPLEX(UNARY, log1p, E_C_LOG1P)
FOR_COMPLEX(UNARY, log2, E_C_LOG2)

FOR_COMPLEX(C_PICK, maximum, P_C_MAXIMUM)
FOR_COMPLEX(C_PICK, minimum, P_C_MINIMUM)

FOR_COMPLEX(C_BINARY, multiply, E_C_MULTIPLY, REDUCE_SEQ)

FOR_COMPLEX(UNARY, negative, E_C_NEGATIVE)
FOR_COMPLEX(UNARY, positive, E_IDENTITY)

FOR_COMPLEX(C_BINARY, power, E_C_POWER, REDUCE_SEQ)

FOR_COMPLEX(UNARY, reciprocal, E_C_RECIPROCAL)
FOR_COMPLEX(UNARY, rint, E_C_RINT)
FOR_COMPLEX(UNARY, sign, E_C_SIGN)

C_LIBM_UNARY(sin, csin)
C_LIBM_UNARY(sinh, csinh)
C_LIBM_UNARY(sqrt, csqrt)

FOR_COMPLEX(UNARY, square, E_C_SQUARE)

FOR_COMPLEX(C_BINARY, subtract, E_C_SUBTRACT, REDUCE_SEQ)

C_LIBM_UNARY(tan, ctan)
C_LIBM_UNARY(tanh, ctanh)
