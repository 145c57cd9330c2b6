/* loops_vmath.c - the float16, float32 and float64 loops of the
 * transcendental functions (SPEC 3.4's list), on SLEEF's vector functions.
 *
 * Each function is computed by one of SLEEF's deterministic ("cinz")
 * vector functions, at the instruction-set level cpu.h chose: 4 or 2 lanes
 * with SSE2, 8 or 4 with AVX2, 16 or 8 with AVX-512.  The cinz functions
 * use no fused multiply-add and compute every lane alike, so all levels
 * give the same bits, and so do the last elements of an array, which are
 * computed in a vector padded with zeros.  The accuracy is SLEEF's: 1 ULP
 * (hypot 0.5 ULP; float32 sin and cos 3.5 ULP; log1p, which is not
 * SLEEF's, 1 ULP: VM_FUNCS), within the 4 ULP of NumPy that SPEC 3.4
 * allows.
 *
 * A loop over contiguous float32 or float64 arrays hands them to the
 * vector function in place; other loops (strided, broadcast, float16,
 * which computes in float32 and rounds as NumPy) gather up to VM_CHUNK
 * elements into buffers on the stack and scatter the results.  An output
 * that overlaps an input other than exactly -- a reduce, an accumulate
 * along a contiguous run -- is computed one element after the other, as
 * the plain loop would.  logaddexp and logaddexp2 are NumPy's
 * npy_logaddexp formula on the vector exp, exp2 and log1p.
 *
 * The other float loops are in loops_float.c; the catalogue is ufunc.c.
 */
#include <immintrin.h>
#include <stdbool.h>
#include <string.h>

#include "cpu.h"
#include "loops.h"

/* ---- the functions ----
 * X(UF, FN, NIN, F32, F64, FIX, ...): ufunc UF is SLEEF's FN, of NIN
 * inputs, computed for float32 by the route F32 and for float64 by F64,
 * with the repair FIX of the results SLEEF leaves outside its documented
 * range (below); the rest of VM_FUNCS's arguments follow.  A route is
 *   u05, u10, u35  SLEEF's function of that accuracy (0.5, 1.0, 3.5 ULP)
 *   own            vm_own_FN below: vector code of this file
 * float32 sin and cos take SLEEF's 3.5-ULP functions, 2.7 times as fast
 * as the 1-ULP ones: over every 11th float32 of either sign they are
 * within 3 ULP of NumPy's (float64's 3.5-ULP ones reach 4, so float64
 * keeps 1 ULP).  float32 log1p is FreeBSD's log1pf in float32 vectors
 * (vm_own_log1pf), within 1 ULP of the exact result over every float32,
 * 1.4 times as fast as log(1 + x) through SLEEF's float64 log and 2 times
 * as fast as SLEEF's float32 log1p; float64 log1p is FreeBSD's log1p in
 * float64 vectors (vm_own_log1pd): h5ufunc's whole log1p(abs(a)) over
 * 134 M float64 takes 0.29 s of user CPU where SLEEF's log1p took 0.46. */
#define VM_FUNCS(X, ...)                                                      \
	X(arccos, acos, 1, u10, u10, FIX_NONE, __VA_ARGS__)                   \
	X(arccosh, acosh, 1, u10, u10, FIX_ACOSH, __VA_ARGS__)                \
	X(arcsin, asin, 1, u10, u10, FIX_NONE, __VA_ARGS__)                   \
	X(arcsinh, asinh, 1, u10, u10, FIX_ASINH, __VA_ARGS__)                \
	X(arctan, atan, 1, u10, u10, FIX_NONE, __VA_ARGS__)                   \
	X(arctan2, atan2, 2, u10, u10, FIX_NONE, __VA_ARGS__)                 \
	X(arctanh, atanh, 1, u10, u10, FIX_NONE, __VA_ARGS__)                 \
	X(cbrt, cbrt, 1, u10, u10, FIX_NONE, __VA_ARGS__)                     \
	X(cos, cos, 1, u35, u10, FIX_NONE, __VA_ARGS__)                       \
	X(cosh, cosh, 1, u10, u10, FIX_COSH, __VA_ARGS__)                     \
	X(exp, exp, 1, u10, u10, FIX_NONE, __VA_ARGS__)                       \
	X(exp2, exp2, 1, u10, u10, FIX_NONE, __VA_ARGS__)                     \
	X(expm1, expm1, 1, u10, u10, FIX_NONE, __VA_ARGS__)                   \
	X(hypot, hypot, 2, u05, u05, FIX_NONE, __VA_ARGS__)                   \
	X(log, log, 1, u10, u10, FIX_NONE, __VA_ARGS__)                       \
	X(log10, log10, 1, u10, u10, FIX_NONE, __VA_ARGS__)                   \
	X(log1p, log1p, 1, own, own, FIX_NONE, __VA_ARGS__)                  \
	X(log2, log2, 1, u10, u10, FIX_NONE, __VA_ARGS__)                     \
	X(power, pow, 2, u10, u10, FIX_POW, __VA_ARGS__)                      \
	X(sin, sin, 1, u35, u10, FIX_NONE, __VA_ARGS__)                       \
	X(sinh, sinh, 1, u10, u10, FIX_SINH, __VA_ARGS__)                     \
	X(tan, tan, 1, u10, u10, FIX_NONE, __VA_ARGS__)                       \
	X(tanh, tanh, 1, u10, u10, FIX_NONE, __VA_ARGS__)

/* ---- the levels of cpu.h, and what SLEEF and the compiler call them ----
 * VM_LEVEL_name: FLOAT VECTOR, LANES, DOUBLE VECTOR, LANES, SLEEF'S SUFFIX,
 * INTRINSICS' PREFIX.  AVX2 runs SLEEF's AVX functions: its AVX2 ones use
 * FMA, which would change the bits. */
#define VM_LEVEL_sse2 __m128, 4, __m128d, 2, sse2, _mm
#define VM_LEVEL_avx2 __m256, 8, __m256d, 4, avx, _mm256
#define VM_LEVEL_avx512 __m512, 16, __m512d, 8, avx512fnofma, _mm512
/* VM_LEVELS(X): X(LEVEL, TARGET, VM_LEVEL_LEVEL...) for every level */
#define VM_EXPAND(X, ...) X(__VA_ARGS__)
#define VM_LEVEL_ROW(TAG, LEVEL, TARGET, X) VM_EXPAND(X, LEVEL, TARGET, VM_LEVEL_##LEVEL)
#define VM_LEVELS(X) CPU_LEVELS(VM_LEVEL_ROW, X)

#define VM_SLEEF(FN, P, LANES, ULP, SUF) Sleef_cinz_##FN##P##LANES##_##ULP##SUF
/* VM_ROUTE(ROUTE, FN, P, LANES, SUF, L): the vector function of a route */
#define VM_ROUTE(ROUTE, ...) VM_ROUTE_##ROUTE(__VA_ARGS__)
#define VM_ROUTE_u05(FN, P, LANES, SUF, L) VM_SLEEF(FN, P, LANES, u05, SUF)
#define VM_ROUTE_u10(FN, P, LANES, SUF, L) VM_SLEEF(FN, P, LANES, u10, SUF)
#define VM_ROUTE_u35(FN, P, LANES, SUF, L) VM_SLEEF(FN, P, LANES, u35, SUF)
#define VM_ROUTE_own(FN, P, LANES, SUF, L) vm_own_##FN##P##_##L

/* SLEEF's functions, declared here rather than by including sleef.h: it
 * declares a level's functions only when the compiler targets that level,
 * and these loops pick their level at run time.  Each is declared for its
 * level's target, as its vector arguments require. */
#define VM_ARGS_1(V) V
#define VM_ARGS_2(V) V, V
#define VM_DECLARE(ROUTE, FN, P, NIN, TGT, V, LANES, SUF)                     \
	VM_DECLARE_##ROUTE(VM_SLEEF(FN, P, LANES, ROUTE, SUF), NIN, TGT, V)
#define VM_DECLARE_SLEEF(NAME, NIN, TGT, V) \
	__attribute__((target(TGT))) V NAME(VM_ARGS_##NIN(V));
#define VM_DECLARE_u05 VM_DECLARE_SLEEF
#define VM_DECLARE_u10 VM_DECLARE_SLEEF
#define VM_DECLARE_u35 VM_DECLARE_SLEEF
#define VM_DECLARE_own(...)   /* defined below */
#define VM_DECLARE_BOTH(UF, FN, NIN, F32, F64, FIX, L, TGT, VF, NF, VD, ND, SUF, PFX) \
	VM_DECLARE(F32, FN, f, NIN, TGT, VF, NF, SUF)                         \
	VM_DECLARE(F64, FN, d, NIN, TGT, VD, ND, SUF)
#define VM_DECLARE_LEVEL(...) VM_FUNCS(VM_DECLARE_BOTH, __VA_ARGS__)
VM_LEVELS(VM_DECLARE_LEVEL)

/* ---- the own routes: float32 log1p ----
 * vm_own_log1pf_L(X) (at the end of this section): below 2^-26 in
 * magnitude, X itself, log1p(X) correctly rounded (X - X^2/2 lies within
 * half an ULP of X); where X is in (-1, inf), vm_narrow_log1p_L; and
 * where it is -1 or less, infinite or nan, log(1 + X) in float64 through
 * SLEEF's 3.5-ULP log, rounded, for its special values.  Every step is an
 * exact or correctly rounded IEEE operation, or SLEEF's deterministic
 * function: the same bits at every level. */
/* VM_PICK(MASK, YES, NO): the lanes of the vector YES where the vector
 * comparison result MASK is set, those of NO elsewhere (GCC vector
 * arithmetic, alike at every level). */
#define VM_PICK(mask, yes, no) ((__typeof__(yes))(((__typeof__(mask))(yes) & (mask)) \
					   | ((__typeof__(mask))(no) & ~(mask))))
/* Per level: the float64 vectors of a float32 vector's low and high
 * halves, and the float32 vector of two float64 ones (rounded). */
#define VM_WIDE_LO_sse2(v) _mm_cvtps_pd(v)
#define VM_WIDE_HI_sse2(v) _mm_cvtps_pd(_mm_movehl_ps(v, v))
#define VM_NARROW_sse2(lo, hi) _mm_movelh_ps(_mm_cvtpd_ps(lo), _mm_cvtpd_ps(hi))
#define VM_WIDE_LO_avx2(v) _mm256_cvtps_pd(_mm256_castps256_ps128(v))
#define VM_WIDE_HI_avx2(v) _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1))
#define VM_NARROW_avx2(lo, hi) \
	_mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(lo)), _mm256_cvtpd_ps(hi), 1)
#define VM_WIDE_LO_avx512(v) _mm512_cvtps_pd(_mm512_castps512_ps256(v))
#define VM_WIDE_HI_avx512(v) \
	_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)))
#define VM_NARROW_avx512(lo, hi)                                              \
	_mm512_castpd_ps(_mm512_insertf64x4(                                  \
		_mm512_castps_pd(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo))), \
		_mm256_castps_pd(_mm512_cvtpd_ps(hi)), 1))

/* vm_narrow_log1p_L(X): log1p(X) in float32 arithmetic, for X in
 * (-1, inf): FreeBSD's log1pf (fdlibm's, within 1 ULP).  1 + X = 2^k m
 * with m in [sqrt(1/2), sqrt(2)) and f = m - 1 (f = X itself where k
 * is 0, exact), c the rounding error of 1 + X over it (Fast2Sum), s =
 * f/(2 + f), log(m) = f - f^2/2 + s (f^2/2 + R(s^2)) with R the minimax
 * polynomial of degree 4.  Plain IEEE operations, alike on every level;
 * the compiler fuses none (-ffp-contract=off). */
#define VM_LOG1P_LG1 0xaaaaaa.0p-24f   /* 0.66666662693 */
#define VM_LOG1P_LG2 0xccce13.0p-25f   /* 0.40000972152 */
#define VM_LOG1P_LG3 0x91e9ee.0p-25f   /* 0.28498786688 */
#define VM_LOG1P_LG4 0xf89e26.0p-26f   /* 0.24279078841 */
#define VM_LOG1P_LN2_HI 6.9313812256e-01f   /* 0x3f317180: k * LN2_HI is exact */
#define VM_LOG1P_LN2_LO 9.0580006145e-06f
#define VM_NARROW_LOG1P(L, TGT, VF, NF, VD, ND, SUF, PFX)                     \
typedef int32_t vm_i32_##L __attribute__((vector_size(sizeof(VF))));          \
typedef uint32_t vm_u32_##L __attribute__((vector_size(sizeof(VF))));         \
__attribute__((target(TGT)))                                                  \
static inline VF vm_narrow_log1p_##L(VF x)                                    \
{                                                                             \
	const VF u = x + 1.0f;                                                \
	const VF c = VM_PICK(x > 1.0f, 1.0f - (u - x), x - (u - 1.0f)) / u;   \
	const vm_u32_##L bits = (vm_u32_##L)u;   /* unsigned: no overflow */  \
	const vm_i32_##L k = (vm_i32_##L)(bits - 0x3f3504f3u) >> 23;          \
	const vm_i32_##L k0 = k == 0;                                         \
	const VF m = (VF)(bits - ((vm_u32_##L)k << 23));                      \
	const VF f = VM_PICK(k0, x, m - 1.0f);                                \
	const VF cc = VM_PICK(k0, (VF){ 0 }, c);                              \
	const VF kf = __builtin_convertvector(k, VF);                         \
	const VF s = f / (f + 2.0f);                                          \
	const VF z = s * s, w = z * z;                                        \
	const VF r = z * (VM_LOG1P_LG1 + w * VM_LOG1P_LG3)                    \
		     + w * (VM_LOG1P_LG2 + w * VM_LOG1P_LG4);                 \
	const VF hfsq = 0.5f * f * f;                                         \
	return kf * VM_LOG1P_LN2_HI                                           \
	       - ((hfsq - (s * (hfsq + r) + (kf * VM_LOG1P_LN2_LO + cc))) - f); \
}
VM_LEVELS(VM_NARROW_LOG1P)

/* VM_ORDINARY_L(P, X, ALL): every lane of the vector X of ps (float32) or
 * pd (float64) lanes, ALL the mask of them all, is in (-1, inf). */
#define VM_ORDINARY_sse2(P, x, all) (_mm_movemask_##P(_mm_and_##P(            \
	_mm_cmpgt_##P(x, _mm_set1_##P(-1.0)), _mm_cmplt_##P(x, _mm_set1_##P(INFINITY)))) == (all))
#define VM_ORDINARY_avx2(P, x, all) (_mm256_movemask_##P(_mm256_and_##P(      \
	_mm256_cmp_##P(x, _mm256_set1_##P(-1.0), _CMP_GT_OQ),                 \
	_mm256_cmp_##P(x, _mm256_set1_##P(INFINITY), _CMP_LT_OQ))) == (all))
#define VM_ORDINARY_avx512(P, x, all)                                         \
	((_mm512_cmp_##P##_mask(x, _mm512_set1_##P(-1.0), _CMP_GT_OQ)         \
	  & _mm512_cmp_##P##_mask(x, _mm512_set1_##P(INFINITY), _CMP_LT_OQ)) == (all))

/* vm_own_log1pf_L(X), as the section's head says: lane by lane, so that a
 * lane's result does not depend on its neighbours. */
#define VM_OWN_LOG1P(L, TGT, VF, NF, VD, ND, SUF, PFX)                       \
	VM_DECLARE_SLEEF(VM_SLEEF(log, d, ND, u35, SUF), 1, TGT, VD)          \
__attribute__((target(TGT)))                                                  \
static VF vm_own_log1pf_##L(VF x)                                             \
{                                                                             \
	const VF narrow = VM_PICK((x > -0x1p-26f) & (x < 0x1p-26f), x,        \
				  vm_narrow_log1p_##L(x));                    \
	if (VM_ORDINARY_##L(ps, x, (1 << NF) - 1))                            \
		return narrow;                                                \
	const VD one = PFX##_set1_pd(1.0);                                    \
	const VD lo = VM_SLEEF(log, d, ND, u35, SUF)(PFX##_add_pd(one, VM_WIDE_LO_##L(x))); \
	const VD hi = VM_SLEEF(log, d, ND, u35, SUF)(PFX##_add_pd(one, VM_WIDE_HI_##L(x))); \
	return VM_PICK((x > -1.0f) & (x < INFINITY), narrow, VM_NARROW_##L(lo, hi)); \
}
VM_LEVELS(VM_OWN_LOG1P)

/* ---- the own routes: float64 log1p ----
 * vm_own_log1pd_L(X): the float32 route's steps in float64, with
 * FreeBSD's log1p (fdlibm's, within 1 ULP): below 2^-54 in magnitude X
 * itself; where X is in (-1, inf), vm_narrow_log1pd_L; where it is -1 or
 * less, infinite or nan, SLEEF's 1-ULP log1p, for its special values.
 * 1 + X = 2^k m as above, with k + 1023 from an unsigned shift and k
 * converted to float64 through the bits of 1.5 * 2^52 + k (exact, and
 * alike at every level: SSE2 and AVX2 convert no 64-bit integers), and
 * log(m) = f - f^2/2 + s (f^2/2 + R(s^2)) with fdlibm's R of degree 7. */
#define VM_LOG1PD_LP1 6.666666666666735130e-01   /* 0x3fe5555555555593 */
#define VM_LOG1PD_LP2 3.999999999940941908e-01   /* 0x3fd999999997fa04 */
#define VM_LOG1PD_LP3 2.857142874366239149e-01   /* 0x3fd2492494229359 */
#define VM_LOG1PD_LP4 2.222219843214978396e-01   /* 0x3fcc71c51d8e78af */
#define VM_LOG1PD_LP5 1.818357216161805012e-01   /* 0x3fc7466496cb03de */
#define VM_LOG1PD_LP6 1.531383769920937332e-01   /* 0x3fc39a09d078c69f */
#define VM_LOG1PD_LP7 1.479819860511658591e-01   /* 0x3fc2f112df3e5244 */
#define VM_LOG1PD_LN2_HI 6.93147180369123816490e-01   /* 0x3fe62e42fee00000 */
#define VM_LOG1PD_LN2_LO 1.90821492927058770002e-10   /* 0x3dea39ef35793c76 */
#define VM_NARROW_LOG1PD(L, TGT, VF, NF, VD, ND, SUF, PFX)                    \
typedef int64_t vm_i64_##L __attribute__((vector_size(sizeof(VD))));          \
typedef uint64_t vm_u64_##L __attribute__((vector_size(sizeof(VD))));         \
__attribute__((target(TGT)))                                                  \
static inline VD vm_narrow_log1pd_##L(VD x)                                   \
{                                                                             \
	const VD u = x + 1.0;                                                 \
	const VD c = VM_PICK(x > 1.0, 1.0 - (u - x), x - (u - 1.0)) / u;      \
	const vm_u64_##L bits = (vm_u64_##L)u;                                \
	const vm_u64_##L kb = (bits - 0x3fe6a09e667f3bcdu + 0x3ff0000000000000u) >> 52; \
	const vm_i64_##L k0 = kb == 1023u;                                    \
	const VD m = (VD)(bits - (kb << 52) + 0x3ff0000000000000u);           \
	const VD f = VM_PICK(k0, x, m - 1.0);                                 \
	const VD cc = VM_PICK(k0, (VD){ 0 }, c);                              \
	const VD kf = (VD)(kb + (0x4338000000000000u - 1023u)) - 0x1.8p52;    \
	const VD s = f / (f + 2.0);                                           \
	const VD z = s * s;                                                   \
	const VD r = z * (VM_LOG1PD_LP1 + z * (VM_LOG1PD_LP2 + z * (VM_LOG1PD_LP3 \
		     + z * (VM_LOG1PD_LP4 + z * (VM_LOG1PD_LP5 + z * (VM_LOG1PD_LP6 \
		     + z * VM_LOG1PD_LP7))))));                               \
	const VD hfsq = 0.5 * f * f;                                          \
	return kf * VM_LOG1PD_LN2_HI                                          \
	       - ((hfsq - (s * (hfsq + r) + (kf * VM_LOG1PD_LN2_LO + cc))) - f); \
}
VM_LEVELS(VM_NARROW_LOG1PD)

/* vm_own_log1pd_L(X), as the section's head says, lane by lane. */
#define VM_OWN_LOG1PD(L, TGT, VF, NF, VD, ND, SUF, PFX)                      \
	VM_DECLARE_SLEEF(VM_SLEEF(log1p, d, ND, u10, SUF), 1, TGT, VD)        \
__attribute__((target(TGT)))                                                  \
static VD vm_own_log1pd_##L(VD x)                                            \
{                                                                             \
	const VD narrow = VM_PICK((x > -0x1p-54) & (x < 0x1p-54), x,          \
				  vm_narrow_log1pd_##L(x));                   \
	if (VM_ORDINARY_##L(pd, x, (1 << ND) - 1))                            \
		return narrow;                                                \
	return VM_PICK((x > -1.0) & (x < INFINITY), narrow,                   \
		       VM_SLEEF(log1p, d, ND, u10, SUF)(x));                  \
}
VM_LEVELS(VM_OWN_LOG1PD)

/* ---- array kernels: OUT[i] = FN(A[i]) or FN(A[i], B[i]), i < N ----
 * A kernel reads a vector's worth of every input before it stores that
 * vector, so OUT may be A or B exactly.  B is unused by one-input
 * functions. */
typedef void (*vm_f32_fn)(const float *a, const float *b, float *out, size_t n);
typedef void (*vm_f64_fn)(const double *a, const double *b, double *out, size_t n);

#define VM_CALL_1(F, LOAD, a, b) F(LOAD(a))
#define VM_CALL_2(F, LOAD, a, b) F(LOAD(a), LOAD(b))

/* Every array kernel, declared: the repairs call others of their level. */
#define VM_PROTOTYPES(UF, FN, NIN, F32, F64, FIX, L, ...)                        \
	static void vm_##UF##_FLOAT32_##L(const float *, const float *, float *, size_t); \
	static void vm_##UF##_FLOAT64_##L(const double *, const double *, double *, size_t);
#define VM_PROTOTYPES_LEVEL(...) VM_FUNCS(VM_PROTOTYPES, __VA_ARGS__)
VM_LEVELS(VM_PROTOTYPES_LEVEL)

/* FN of one element X at level L, through the array kernel. */
#define VM_ONE(FN, T, L, x)                                                   \
	({ ct_##T in_ = (x), out_; vm_##FN##_##T##_##L(&in_, &in_, &out_, 1); out_; })

/* A nan result is the same nan at every level: the first nan input,
 * quieted (as an x86 operation returns it), else the default nan of an
 * invalid operation (-nan); SLEEF's lanes differ in the sign. */
#define VM_NAN(NIN, a, b) \
	(isnan(a) ? (a) + (a) : NIN == 2 && isnan(b) ? (b) + (b) : -(__typeof__(a))NAN)

/* The repairs: a result R of X (and Y) that SLEEF leaves infinite or nan
 * past the end of its range, where the true result is finite, is
 * recomputed as
 *   FIX_ASINH, FIX_ACOSH  |x| > BIG: +-(log|x| + log 2)
 *   FIX_SINH, FIX_COSH  |x| beyond exp's range: +-(e^(|x|/2) / 2) e^(|x|/2)
 *   FIX_POW      an infinity of finite x, y (SLEEF overflows within a
 *                few ULP of the largest float): (x s)^y (1/s)^y with
 *                s = 1/2 or 2, whichever brings x^y down, when finite
 * The kernels repair only lanes whose result is not finite, so a lane's
 * result never depends on the lanes beside it (which differ from level
 * to level); SLEEF's finite results up to the end of its range are
 * within its bound.  BIG_T: below where SLEEF's asinh and acosh stop
 * (1.8e19 and 1.3e154, float32 and float64); EXP_MAX_T: the end of its
 * sinh and cosh (88 and 709). */
#define BIG_ASINH_FLOAT32 1e18f
#define BIG_ASINH_FLOAT64 1e150
#define EXP_MAX_FLOAT32 88.0f
#define EXP_MAX_FLOAT64 709.0
#define FIX_NONE(T, L, x, y, r, ...)
#define FIX_ASINH(T, L, x, y, r, ...)                                         \
	if (isfinite(x) && LIBM(fabs, x)(x) > BIG_ASINH_##T)                  \
		r = LIBM(copysign, x)(VM_ONE(log, T, L, LIBM(fabs, x)(x))     \
				      + (ct_##T)M_LN2, x);
#define FIX_ACOSH(T, L, x, y, r, ...)                                         \
	if (isfinite(x) && x > BIG_ASINH_##T)                                 \
		r = VM_ONE(log, T, L, x) + (ct_##T)M_LN2;
#define FIX_EXP_HALF(T, L, x, r, SIGN)                                        \
	if (isfinite(x) && LIBM(fabs, x)(x) > EXP_MAX_##T) {                  \
		const ct_##T w_ = VM_ONE(exp, T, L, LIBM(fabs, x)(x) / 2);    \
		r = LIBM(copysign, x)(((ct_##T)0.5 * w_) * w_, SIGN);         \
	}
#define FIX_SINH(T, L, x, y, r, ...) FIX_EXP_HALF(T, L, x, r, x)
#define FIX_COSH(T, L, x, y, r, ...) FIX_EXP_HALF(T, L, x, r, (ct_##T)1)
#define FIX_POW(T, L, x, y, r, LANES, SLEEF_FN, LOAD, STORE)                  \
	if (isinf(r) && isfinite(x) && isfinite(y)) {                         \
		const ct_##T s_ = (LIBM(fabs, x)(x) > 1) == (y > 0) ? (ct_##T)0.5 : 2; \
		ct_##T xs_[LANES] = { x * s_ }, ys_[LANES] = { y };           \
		STORE(xs_, SLEEF_FN(LOAD(xs_), LOAD(ys_)));                   \
		const ct_##T p_ = xs_[0] * VM_ONE(exp2, T, L, s_ == (ct_##T)0.5 ? y : -y); \
		if (isfinite(p_))                                             \
			r = p_;                                               \
	}

/* VM_ODD_LEVEL_P(V): the lanes of V that are not finite, as a bit mask
 * (V - V is nan exactly there).  Every nan result and every result that
 * a repair recomputes is one of them: the kernels look at lanes one by one
 * only in the rare vectors that have one. */
#define VM_ODD_sse2_ps(v) _mm_movemask_ps(_mm_cmpunord_ps(_mm_sub_ps(v, v), _mm_sub_ps(v, v)))
#define VM_ODD_sse2_pd(v) _mm_movemask_pd(_mm_cmpunord_pd(_mm_sub_pd(v, v), _mm_sub_pd(v, v)))
#define VM_ODD_avx2_ps(v) \
	_mm256_movemask_ps(_mm256_cmp_ps(_mm256_sub_ps(v, v), _mm256_sub_ps(v, v), _CMP_UNORD_Q))
#define VM_ODD_avx2_pd(v) \
	_mm256_movemask_pd(_mm256_cmp_pd(_mm256_sub_pd(v, v), _mm256_sub_pd(v, v), _CMP_UNORD_Q))
#define VM_ODD_avx512_ps(v) _mm512_cmp_ps_mask(_mm512_sub_ps(v, v), _mm512_sub_ps(v, v), _CMP_UNORD_Q)
#define VM_ODD_avx512_pd(v) _mm512_cmp_pd_mask(_mm512_sub_pd(v, v), _mm512_sub_pd(v, v), _CMP_UNORD_Q)

/* One kernel: FN at level L on elements of type T, LANES at a time in
 * vectors VEC of intrinsics PFX_..._P; the last N % LANES elements in a
 * vector padded with zeros. */
#define VM_KERNEL(UF, NIN, FIX, L, TGT, T, LANES, VEC, P, SLEEF_FN, PFX)      \
__attribute__((target(TGT)))                                                  \
static void vm_##UF##_##T##_##L(const ct_##T *a, const ct_##T *b,            \
				ct_##T *out, size_t n)                        \
{                                                                             \
	for (size_t i = 0; i < n; i += LANES) {                               \
		const size_t m = n - i < LANES ? n - i : LANES;               \
		ct_##T pa[LANES], pb[LANES], r[LANES];                        \
		const ct_##T *va = a + i, *vb = b + i;                        \
		if (m < LANES) {                                              \
			memset(pa, 0, sizeof pa);                             \
			memset(pb, 0, sizeof pb);                             \
			memcpy(pa, va, m * sizeof *a);                        \
			if (NIN == 2)                                         \
				memcpy(pb, vb, m * sizeof *b);                \
			va = pa;                                              \
			vb = pb;                                              \
		}                                                             \
		const VEC v = VM_CALL_##NIN(SLEEF_FN, PFX##_loadu_##P, va, vb); \
		if (m == LANES && !VM_ODD_##L##_##P(v)) {                     \
			PFX##_storeu_##P(out + i, v);                         \
			continue;                                             \
		}                                                             \
		PFX##_storeu_##P(r, v);                                       \
		for (size_t k = 0; k < m; k++) {                              \
			if (isnan(r[k]))                                      \
				r[k] = VM_NAN(NIN, va[k], vb[k]);             \
			if (!isfinite(r[k])) {                                \
				FIX(T, L, va[k], vb[k], r[k], LANES, SLEEF_FN, \
				    PFX##_loadu_##P, PFX##_storeu_##P)        \
			}                                                     \
		}                                                             \
		memcpy(out + i, r, m * sizeof *out);                          \
	}                                                                     \
}
#define VM_KERNELS(UF, FN, NIN, F32, F64, FIX, L, TGT, VF, NF, VD, ND, SUF, PFX) \
	VM_KERNEL(UF, NIN, FIX, L, TGT, FLOAT32, NF, VF, ps,                  \
		  VM_ROUTE(F32, FN, f, NF, SUF, L), PFX)                        \
	VM_KERNEL(UF, NIN, FIX, L, TGT, FLOAT64, ND, VD, pd,                  \
		  VM_ROUTE(F64, FN, d, ND, SUF, L), PFX)
#define VM_KERNELS_LEVEL(...) VM_FUNCS(VM_KERNELS, __VA_ARGS__)
VM_LEVELS(VM_KERNELS_LEVEL)

/* vm_UF_T[level]: the kernels of UF on T, one per level. */
#define VM_TABLE_ENTRY(TAG, LEVEL, TARGET, UF_T) UF_T##_##LEVEL,
#define VM_TABLE(UF, FN, NIN, F32, F64, FIX, _)                                  \
	static const vm_f32_fn vm_##UF##_FLOAT32[CPU_NLEVELS] = {             \
		CPU_LEVELS(VM_TABLE_ENTRY, vm_##UF##_FLOAT32) };              \
	static const vm_f64_fn vm_##UF##_FLOAT64[CPU_NLEVELS] = {             \
		CPU_LEVELS(VM_TABLE_ENTRY, vm_##UF##_FLOAT64) };
VM_FUNCS(VM_TABLE, _)

/* ---- strided operands: gather, compute, scatter ---- */

#define VM_CHUNK 256

/* Whether an output of N elements at OP, step OS, overlaps an input at IP,
 * step IS, otherwise than element for element (the same pointer and the
 * same nonzero step): then each element must see the results before it. */
static bool vm_clash(const char *ip, ptrdiff_t is, const char *op, ptrdiff_t os,
		     size_t n, size_t size)
{
	if (n <= 1 || (ip == op && is == os && os != 0))
		return false;
	const ptrdiff_t last_i = (ptrdiff_t)(n - 1) * is, last_o = (ptrdiff_t)(n - 1) * os;
	const char *i_lo = last_i < 0 ? ip + last_i : ip;
	const char *i_hi = (last_i < 0 ? ip : ip + last_i) + size;
	const char *o_lo = last_o < 0 ? op + last_o : op;
	const char *o_hi = (last_o < 0 ? op : op + last_o) + size;
	return i_lo < o_hi && o_lo < i_hi;
}

#define LOAD_AS_FLOAT32(p) (*(const float *)(p))
#define LOAD_AS_FLOAT64(p) (*(const double *)(p))
#define LOAD_AS_FLOAT16(p) half_to_float(*(const uint16_t *)(p))
#define STORE_AS_FLOAT32(p, v) (*(float *)(p) = (v))
#define STORE_AS_FLOAT64(p, v) (*(double *)(p) = (v))
#define STORE_AS_FLOAT16(p, v) (*(uint16_t *)(p) = half_from_float(v))

/* vm_run_T: run the array kernel F (of NIN inputs, on the compute type C)
 * over the loop's operands of dtype T, as a type loop of ufunc.h. */
#define VM_DEFINE_RUN(T, C, FN_TYPE, CONTIGUOUS_OK)                           \
static void vm_run_##T(FN_TYPE f, int nin, char **args, size_t n,            \
		       const ptrdiff_t *steps)                                \
{                                                                             \
	char *ip1 = args[0], *ip2 = args[nin - 1], *op = args[nin];           \
	const ptrdiff_t is1 = steps[0], is2 = steps[nin - 1], os = steps[nin]; \
	const ptrdiff_t size = (ptrdiff_t)sizeof(ct_##T);                     \
	if (CONTIGUOUS_OK && is1 == size && is2 == size && os == size         \
	    && !vm_clash(ip1, is1, op, os, n, sizeof(ct_##T))                 \
	    && !vm_clash(ip2, is2, op, os, n, sizeof(ct_##T))) {              \
		f((const C *)ip1, (const C *)ip2, (C *)op, n);                \
		return;                                                       \
	}                                                                     \
	const size_t chunk = vm_clash(ip1, is1, op, os, n, sizeof(ct_##T))    \
		|| vm_clash(ip2, is2, op, os, n, sizeof(ct_##T)) ? 1 : VM_CHUNK; \
	C a[VM_CHUNK], b[VM_CHUNK], r[VM_CHUNK];                              \
	for (size_t i = 0; i < n;) {                                          \
		const size_t m = n - i < chunk ? n - i : chunk;               \
		for (size_t k = 0; k < m; k++) {                              \
			a[k] = LOAD_AS_##T(ip1 + (ptrdiff_t)(i + k) * is1);   \
			if (nin == 2)                                         \
				b[k] = LOAD_AS_##T(ip2 + (ptrdiff_t)(i + k) * is2); \
		}                                                             \
		f(a, b, r, m);                                                \
		for (size_t k = 0; k < m; k++)                                \
			STORE_AS_##T(op + (ptrdiff_t)(i + k) * os, r[k]);     \
		i += m;                                                       \
	}                                                                     \
}
VM_DEFINE_RUN(FLOAT32, float, vm_f32_fn, 1)
VM_DEFINE_RUN(FLOAT64, double, vm_f64_fn, 1)
VM_DEFINE_RUN(FLOAT16, float, vm_f32_fn, 0)

/* ---- logaddexp and logaddexp2: NumPy's npy_logaddexp(2) ----
 * x == y gives x + SAME (which keeps infinities); otherwise the larger
 * plus SCALE * log1p(EXP(-|x - y|)); a nan difference is returned.  The
 * sum cancels when x and y have opposite signs, so an error of one ULP in
 * EXP or log1p grows many times, and NumPy's own error with it: the steps
 * are NumPy's.  EXP is rounded from a wider type, as near to correctly
 * rounded as NumPy's libm (float32 from SLEEF's float64 functions, float64
 * from the x87's long double, alike on every x86-64), and log1p is the C
 * library's log1pf or log1p, which NumPy calls: plain C code, one version
 * for every CPU. */
static void wide_exp_FLOAT32(double *t, size_t m)
{
	vm_exp_FLOAT64[cpu_level()](t, t, t, m);
}
static void wide_exp2_FLOAT32(double *t, size_t m)
{
	vm_exp2_FLOAT64[cpu_level()](t, t, t, m);
}
#define WIDE_EACH(FN, C, t, m)                                                \
	for (size_t k_ = 0; k_ < (m); k_++)                                   \
		t[k_] = FN((C)t[k_])
static void wide_exp_FLOAT64(long double *t, size_t m) { WIDE_EACH(expl, long double, t, m); }
static void wide_exp2_FLOAT64(long double *t, size_t m) { WIDE_EACH(exp2l, long double, t, m); }
static void wide_log1p_FLOAT32(double *t, size_t m) { WIDE_EACH(log1pf, float, t, m); }
static void wide_log1p_FLOAT64(long double *t, size_t m) { WIDE_EACH(log1p, double, t, m); }

#define VM_DEFINE_LOGADDEXP(NAME, T, C, W, EXP, SAME, SCALE)                  \
static void NAME##_##T(const C *x, const C *y, C *out, size_t n)             \
{                                                                             \
	W t[VM_CHUNK];                                                        \
	for (size_t i = 0; i < n; i += VM_CHUNK) {                            \
		const size_t m = n - i < VM_CHUNK ? n - i : VM_CHUNK;         \
		for (size_t k = 0; k < m; k++)                                \
			t[k] = -LIBM(fabs, x[i])(x[i + k] - y[i + k]);        \
		wide_##EXP##_##T(t, m);                                       \
		wide_log1p_##T(t, m);                                         \
		for (size_t k = 0; k < m; k++) {                              \
			const C a = x[i + k], b = y[i + k], d = a - b;        \
			const C l = (C)t[k];                                  \
			out[i + k] = a == b ? a + (C)(SAME)                   \
				: d > 0 ? a + (C)(SCALE) * l                  \
				: d <= 0 ? b + (C)(SCALE) * l : d;            \
		}                                                             \
	}                                                                     \
}
#define VM_LOGADDEXPS(T, C, W)                                                \
	VM_DEFINE_LOGADDEXP(logaddexp, T, C, W, exp, M_LN2, 1)                \
	VM_DEFINE_LOGADDEXP(logaddexp2, T, C, W, exp2, 1, M_LOG2E)
VM_LOGADDEXPS(FLOAT32, float, double)
VM_LOGADDEXPS(FLOAT64, double, long double)

/* ---- the loops ---- */

#define VM_LOOP_1(UF, T, C, F)                                                \
void loop_##UF##_##T##_##T(char **args, size_t n, const ptrdiff_t *steps)    \
{                                                                             \
	vm_run_##T(F, 1, args, n, steps);                                     \
}
#define VM_LOOP_2(UF, T, C, F)                                                \
void loop_##UF##_##T##_##T##_##T(char **args, size_t n, const ptrdiff_t *steps) \
{                                                                             \
	vm_run_##T(F, 2, args, n, steps);                                     \
}
/* float16 computes with the float32 kernel */
#define VM_LOOPS(UF, FN, NIN, F32, F64, FIX, _)                                  \
	VM_LOOP_##NIN(UF, FLOAT16, float, vm_##UF##_FLOAT32[cpu_level()])     \
	VM_LOOP_##NIN(UF, FLOAT32, float, vm_##UF##_FLOAT32[cpu_level()])     \
	VM_LOOP_##NIN(UF, FLOAT64, double, vm_##UF##_FLOAT64[cpu_level()])
VM_FUNCS(VM_LOOPS, _)

VM_LOOP_2(float_power, FLOAT64, double, vm_power_FLOAT64[cpu_level()])

VM_LOOP_2(logaddexp, FLOAT16, float, logaddexp_FLOAT32)
VM_LOOP_2(logaddexp, FLOAT32, float, logaddexp_FLOAT32)
VM_LOOP_2(logaddexp, FLOAT64, double, logaddexp_FLOAT64)
VM_LOOP_2(logaddexp2, FLOAT16, float, logaddexp2_FLOAT32)
VM_LOOP_2(logaddexp2, FLOAT32, float, logaddexp2_FLOAT32)
VM_LOOP_2(logaddexp2, FLOAT64, double, logaddexp2_FLOAT64)
