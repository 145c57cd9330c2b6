/* loops.h - the type loops' kernels, and the templates loops_*.c build
 * them with.  Private to ufunc.c and loops_*.c.
 *
 * Every loop row of ufunc.def names one kernel, loop_NAME_T1_..._TN (input
 * tags, then output tags), declared here from those rows so the catalogue
 * and the kernels cannot drift apart: a row without a kernel does not link.
 * A kernel is a strided loop with the signature of ufunc_loop_fn, built
 * from a per-element operation E by one of the KERNEL_* templates below:
 * the operation is written once per ufunc, over a dtype tag, and
 * instantiated per dtype with the FOR_* lists.
 *
 * This header is not an interface for other modules: they see loops only
 * through ufunc.h's catalogue.
 */
#ifndef H5UFUNC_LOOPS_H
#define H5UFUNC_LOOPS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dtype.h"
#include "ufunc.h"

/* ---- the kernels, one per loop row of ufunc.def ---- */

#define UFUNC(NAME, NIN, NOUT, IDENTITY, DOC)
#define UFUNC_END(NAME)
#define ALIAS(ALIAS, NAME)
#define LOOP11(UF, I1, O1) \
	void loop_##UF##_##I1##_##O1(char **args, size_t n, const ptrdiff_t *steps);
#define LOOP21(UF, I1, I2, O1) \
	void loop_##UF##_##I1##_##I2##_##O1(char **args, size_t n, const ptrdiff_t *steps);
#define LOOP12(UF, I1, O1, O2) \
	void loop_##UF##_##I1##_##O1##_##O2(char **args, size_t n, const ptrdiff_t *steps);
#define LOOP22(UF, I1, I2, O1, O2) \
	void loop_##UF##_##I1##_##I2##_##O1##_##O2(char **args, size_t n, const ptrdiff_t *steps);
#include "ufunc.def"
#undef UFUNC
#undef UFUNC_END
#undef ALIAS
#undef LOOP11
#undef LOOP21
#undef LOOP12
#undef LOOP22

/* ---- dtype traits, by tag ---- */

/* ct_TAG: the C type one element is stored in (float16: its bits). */
#define DTYPE(TAG, CTYPE, NAME, KIND, CHAR) typedef CTYPE ct_##TAG;
#include "dtype.def"
#undef DTYPE

/* Integer traits, one row X(TAG, UNSIGNED, WIDE, BITS, RECIP_ZERO) a type:
 *   UNSIGNED    the unsigned type of the same width: ut_TAG
 *   WIDE        an unsigned type at least as wide as unsigned int, in which
 *               +, -, * wrap without promotion to int: wt_TAG
 *   BITS        the width, for shifts
 *   RECIP_ZERO  reciprocal(0): NumPy converts 1.0/0 to the integer type,
 *               and on x86-64 that conversion of +inf yields the "integer
 *               indefinite" pattern, seen through the type's width
 */
#define LOOPS_INTEGERS(X)                                      \
	X(INT8,   uint8_t,  uint32_t, 8,  0)                   \
	X(UINT8,  uint8_t,  uint32_t, 8,  0)                   \
	X(INT16,  uint16_t, uint32_t, 16, 0)                   \
	X(UINT16, uint16_t, uint32_t, 16, 0)                   \
	X(INT32,  uint32_t, uint32_t, 32, INT32_MIN)           \
	X(UINT32, uint32_t, uint32_t, 32, 0)                   \
	X(INT64,  uint64_t, uint64_t, 64, INT64_MIN)           \
	X(UINT64, uint64_t, uint64_t, 64, 0)

#define LOOPS_INTEGER_TRAITS(TAG, UNSIGNED, WIDE, BITS, RECIP_ZERO) \
	typedef UNSIGNED ut_##TAG;                                   \
	typedef WIDE wt_##TAG;                                       \
	enum { bits_##TAG = BITS };                                  \
	static const ct_##TAG recip_zero_##TAG = RECIP_ZERO;
LOOPS_INTEGERS(LOOPS_INTEGER_TRAITS)
#undef LOOPS_INTEGER_TRAITS

/* Complex traits: pt_TAG, the type of one part (real or imaginary) of a
 * complex element; the element is that type's C complex. */
typedef float pt_COMPLEX64;
typedef double pt_COMPLEX128;

/* ---- dtype lists: M(TAG, ...) for every tag of a family ---- */

#define FOR_SIGNED(M, ...) \
	M(INT8, __VA_ARGS__) M(INT16, __VA_ARGS__) M(INT32, __VA_ARGS__) M(INT64, __VA_ARGS__)
#define FOR_UNSIGNED(M, ...) \
	M(UINT8, __VA_ARGS__) M(UINT16, __VA_ARGS__) M(UINT32, __VA_ARGS__) M(UINT64, __VA_ARGS__)
#define FOR_INTS(M, ...) FOR_SIGNED(M, __VA_ARGS__) FOR_UNSIGNED(M, __VA_ARGS__)
#define FOR_BOOL_INTS(M, ...) M(BOOL, __VA_ARGS__) FOR_INTS(M, __VA_ARGS__)
/* float32 and float64; float16 computes in float32 through HALF_* below */
#define FOR_FLOATS(M, ...) M(FLOAT32, __VA_ARGS__) M(FLOAT64, __VA_ARGS__)
/* complex64 and complex128, computed on their parts in loops_complex.c */
#define FOR_COMPLEX(M, ...) M(COMPLEX64, __VA_ARGS__) M(COMPLEX128, __VA_ARGS__)

/* ---- helpers for element operations ---- */

/* The libm function FN for the type of X: LIBM(sqrt, x)(x). */
#define LIBM(FN, X) _Generic((X), float: FN##f, default: FN)

/* float16 through float32: the element operation E of the FLOAT32 tag on
 * the converted operands, rounded back to float16 (HALF_*) or not, for a
 * boolean result (HALF_*_RAW). */
#define HALF_1(E, a) half_from_float(E(FLOAT32, half_to_float(a)))
#define HALF_2(E, a, b) half_from_float(E(FLOAT32, half_to_float(a), half_to_float(b)))
#define HALF_1_RAW(E, a) E(FLOAT32, half_to_float(a))
#define HALF_2_RAW(E, a, b) E(FLOAT32, half_to_float(a), half_to_float(b))
/* One of the operands itself, as the predicate P on their float32 values
 * chooses (maximum and friends return an input, not a rounded value). */
#define HALF_PICK(P, a, b) (P(FLOAT32, half_to_float(a), half_to_float(b)) ? (a) : (b))

/* ---- kernel templates ----
 *
 * A kernel reads its operands as C types TI/T1/T2, writes TO/TO1/TO2, and
 * computes each element with E(X, a) or E(X, a, b) (an expression), or,
 * for two outputs, the statement E(X, a, o1, o2) or E(X, a, b, o1, o2)
 * storing into the lvalues o1 and o2.  X is passed through untouched:
 * usually the dtype tag, for float16 the float32 operation.
 *
 * When every step equals its element size the loop runs in blocks of
 * LOOP_BLOCK with no loop-carried dependence declared (inputs and output
 * alias only exactly), so gcc vectorizes it at -O2 already; binary kernels
 * also have fast paths for one input broadcast (step 0).
 */
#define LOOP_BLOCK 16
#define LOOP_IVDEP _Pragma("GCC ivdep")

/* A template defines the body of kernel NAME with LOOP_BODY(NAME) { ... }
 * and then LOOP_VERSIONS(NAME), which defines the kernel itself.  In a
 * file that defines LOOPS_PER_LEVEL before including this header, the body
 * is compiled once per instruction-set level of cpu.h (SSE2, AVX2,
 * AVX-512F; never FMA, and loops_*.o are built with -ffp-contract=off, so
 * every version computes the same bits) and the kernel calls the version
 * of the level chosen at start-up; elsewhere the kernel is the body. */
#define LOOP_SIGNATURE(NAME) NAME(char **args, size_t n, const ptrdiff_t *steps)
#define LOOP_BODY(NAME) \
	static inline __attribute__((always_inline)) void LOOP_SIGNATURE(NAME##_body)
#ifdef LOOPS_PER_LEVEL
#include "cpu.h"
#define LOOP_VERSION(TAG, LEVEL, TARGET, NAME)                                \
	__attribute__((target(TARGET)))                                       \
	static void LOOP_SIGNATURE(NAME##_##LEVEL) { NAME##_body(args, n, steps); }
#define LOOP_VERSION_OF(TAG, LEVEL, TARGET, NAME) NAME##_##LEVEL,
#define LOOP_VERSIONS(NAME)                                                   \
CPU_LEVELS(LOOP_VERSION, NAME)                                                \
void LOOP_SIGNATURE(NAME)                                                     \
{                                                                             \
	static const ufunc_loop_fn version[CPU_NLEVELS] = {                   \
		CPU_LEVELS(LOOP_VERSION_OF, NAME)                             \
	};                                                                    \
	version[cpu_level()](args, n, steps);                                 \
}
#else
#define LOOP_VERSIONS(NAME) \
	void LOOP_SIGNATURE(NAME) { NAME##_body(args, n, steps); }
#endif

#define KERNEL_1_1(NAME, TI, TO, E, X)                                        \
LOOP_BODY(NAME)                                                               \
{                                                                             \
	char *ip = args[0], *op = args[1];                                    \
	const ptrdiff_t is = steps[0], os = steps[1];                         \
	size_t i = 0;                                                         \
	if (is == (ptrdiff_t)sizeof(TI) && os == (ptrdiff_t)sizeof(TO)) {     \
		const TI *in = (const TI *)ip;                                \
		TO *out = (TO *)op;                                           \
		for (; i + LOOP_BLOCK <= n; i += LOOP_BLOCK) {                \
			LOOP_IVDEP                                            \
			for (size_t j = 0; j < LOOP_BLOCK; j++) {             \
				const TI a = in[i + j];                       \
				out[i + j] = E(X, a);                         \
			}                                                     \
		}                                                             \
		for (; i < n; i++) {                                          \
			const TI a = in[i];                                   \
			out[i] = E(X, a);                                     \
		}                                                             \
		return;                                                       \
	}                                                                     \
	for (; i < n; i++, ip += is, op += os) {                              \
		const TI a = *(const TI *)ip;                                 \
		*(TO *)op = E(X, a);                                          \
	}                                                                     \
}                                                                             \
LOOP_VERSIONS(NAME)

/* REDUCE is REDUCE_NONE, or a fast path for NumPy's binary reduce (the
 * output is the first input, both with step 0), for kernels whose first
 * input and output have one type. */
#define KERNEL_2_1(NAME, T1, T2, TO, E, X, REDUCE)                            \
LOOP_BODY(NAME)                                                               \
{                                                                             \
	char *ip1 = args[0], *ip2 = args[1], *op = args[2];                   \
	const ptrdiff_t is1 = steps[0], is2 = steps[1], os = steps[2];        \
	size_t i = 0;                                                         \
	REDUCE(T2, TO, E, X)                                                  \
	ACCUMULATE_RUN(T1, T2, TO, E, X)                                      \
	if (os == (ptrdiff_t)sizeof(TO) && is2 == (ptrdiff_t)sizeof(T2)) {    \
		const T2 *in2 = (const T2 *)ip2;                              \
		TO *out = (TO *)op;                                           \
		if (is1 == (ptrdiff_t)sizeof(T1)) {                           \
			const T1 *in1 = (const T1 *)ip1;                      \
			for (; i + LOOP_BLOCK <= n; i += LOOP_BLOCK) {        \
				LOOP_IVDEP                                    \
				for (size_t j = 0; j < LOOP_BLOCK; j++) {     \
					const T1 a = in1[i + j];              \
					const T2 b = in2[i + j];              \
					out[i + j] = E(X, a, b);              \
				}                                             \
			}                                                     \
			for (; i < n; i++) {                                  \
				const T1 a = in1[i];                          \
				const T2 b = in2[i];                          \
				out[i] = E(X, a, b);                          \
			}                                                     \
			return;                                               \
		}                                                             \
		if (is1 == 0) {                                               \
			const T1 a = *(const T1 *)ip1;                        \
			for (; i + LOOP_BLOCK <= n; i += LOOP_BLOCK) {        \
				LOOP_IVDEP                                    \
				for (size_t j = 0; j < LOOP_BLOCK; j++) {     \
					const T2 b = in2[i + j];              \
					out[i + j] = E(X, a, b);              \
				}                                             \
			}                                                     \
			for (; i < n; i++) {                                  \
				const T2 b = in2[i];                          \
				out[i] = E(X, a, b);                          \
			}                                                     \
			return;                                               \
		}                                                             \
	}                                                                     \
	if (os == (ptrdiff_t)sizeof(TO) && is1 == (ptrdiff_t)sizeof(T1)       \
	    && is2 == 0) {                                                    \
		const T1 *in1 = (const T1 *)ip1;                              \
		const T2 b = *(const T2 *)ip2;                                \
		TO *out = (TO *)op;                                           \
		for (; i + LOOP_BLOCK <= n; i += LOOP_BLOCK) {                \
			LOOP_IVDEP                                            \
			for (size_t j = 0; j < LOOP_BLOCK; j++) {             \
				const T1 a = in1[i + j];                      \
				out[i + j] = E(X, a, b);                      \
			}                                                     \
		}                                                             \
		for (; i < n; i++) {                                          \
			const T1 a = in1[i];                                  \
			out[i] = E(X, a, b);                                  \
		}                                                             \
		return;                                                       \
	}                                                                     \
	for (; i < n; i++, ip1 += is1, ip2 += is2, op += os) {                \
		const T1 a = *(const T1 *)ip1;                                \
		const T2 b = *(const T2 *)ip2;                                \
		*(TO *)op = E(X, a, b);                                       \
	}                                                                     \
}                                                                             \
LOOP_VERSIONS(NAME)

#define LOOP_IS_REDUCE (ip1 == op && is1 == 0 && os == 0)

/* NumPy's accumulate along a contiguous run: the first input is the output
 * one element back (out[i] = out[i-1] op in2[i]), which the vectorized
 * paths must not see.  The previous result stays in a register, its bits
 * read as T1 as a reload from memory would. */
#define LOOP_IS_ACCUMULATE(T1, TO)                                            \
	(os == (ptrdiff_t)sizeof(TO) && is1 == os && op == ip1 + os           \
	 && sizeof(T1) == sizeof(TO))
#define ACCUMULATE_RUN(T1, T2, TO, E, X)                                      \
	if (LOOP_IS_ACCUMULATE(T1, TO)) {                                     \
		T1 a;                                                         \
		memcpy(&a, ip1, sizeof a);                                    \
		for (; i < n; i++, ip2 += is2, op += os) {                    \
			const T2 b = *(const T2 *)ip2;                        \
			const TO r = E(X, a, b);                              \
			*(TO *)op = r;                                        \
			memcpy(&a, &r, sizeof a);                             \
		}                                                             \
		return;                                                       \
	}

#define REDUCE_NONE(T2, TO, E, X)

/* The accumulator stays in a register: the same result as the plain
 * loop, element by element. */
#define REDUCE_SEQ(T2, TO, E, X)                                              \
	if (LOOP_IS_REDUCE) {                                                 \
		TO acc = *(TO *)op;                                           \
		if (is2 == (ptrdiff_t)sizeof(T2)) {                           \
			const T2 *in2 = (const T2 *)ip2;                      \
			for (; i < n; i++)                                    \
				acc = E(X, acc, in2[i]);                      \
		} else {                                                      \
			for (; i < n; i++, ip2 += is2)                        \
				acc = E(X, acc, *(const T2 *)ip2);            \
		}                                                             \
		*(TO *)op = acc;                                              \
		return;                                                       \
	}

/* NumPy's add of float32/float64 reduces by pairwise summation. */
#define REDUCE_PAIRWISE(T2, TO, E, X)                                         \
	if (LOOP_IS_REDUCE) {                                                 \
		*(TO *)op += pairwise_sum_##X(ip2, n, is2);                   \
		return;                                                       \
	}

/* NumPy's float16 add, subtract, multiply and divide reduce in a float32
 * accumulator, rounded to float16 once at the end; add sums pairwise. */
#define REDUCE_HALF_SEQ(T2, TO, E, X)                                         \
	if (LOOP_IS_REDUCE) {                                                 \
		float acc = half_to_float(*(const uint16_t *)op);             \
		for (; i < n; i++, ip2 += is2)                                \
			acc = X(FLOAT32, acc, half_to_float(*(const uint16_t *)ip2)); \
		*(uint16_t *)op = half_from_float(acc);                       \
		return;                                                       \
	}
#define REDUCE_HALF_PAIRWISE(T2, TO, E, X)                                    \
	if (LOOP_IS_REDUCE) {                                                 \
		float acc = half_to_float(*(const uint16_t *)op);             \
		acc += pairwise_sum_FLOAT16(ip2, n, is2);                     \
		*(uint16_t *)op = half_from_float(acc);                       \
		return;                                                       \
	}

#define KERNEL_1_2(NAME, TI, TO1, TO2, E, X)                                  \
LOOP_BODY(NAME)                                                               \
{                                                                             \
	char *ip = args[0], *op1 = args[1], *op2 = args[2];                   \
	const ptrdiff_t is = steps[0], os1 = steps[1], os2 = steps[2];        \
	for (size_t i = 0; i < n; i++, ip += is, op1 += os1, op2 += os2) {    \
		const TI a = *(const TI *)ip;                                 \
		E(X, a, *(TO1 *)op1, *(TO2 *)op2);                            \
	}                                                                     \
}                                                                             \
LOOP_VERSIONS(NAME)

#define KERNEL_2_2(NAME, T1, T2, TO1, TO2, E, X)                              \
LOOP_BODY(NAME)                                                               \
{                                                                             \
	char *ip1 = args[0], *ip2 = args[1], *op1 = args[2], *op2 = args[3];  \
	const ptrdiff_t is1 = steps[0], is2 = steps[1];                       \
	const ptrdiff_t os1 = steps[2], os2 = steps[3];                       \
	for (size_t i = 0; i < n;                                             \
	     i++, ip1 += is1, ip2 += is2, op1 += os1, op2 += os2) {           \
		const T1 a = *(const T1 *)ip1;                                \
		const T2 b = *(const T2 *)ip2;                                \
		E(X, a, b, *(TO1 *)op1, *(TO2 *)op2);                         \
	}                                                                     \
}                                                                             \
LOOP_VERSIONS(NAME)

/* ---- instantiation shorthands, for FOR_* lists ----
 * TAG first, then the ufunc and its element operation. */

/* T -> T */
#define UNARY(T, UF, E) KERNEL_1_1(loop_##UF##_##T##_##T, ct_##T, ct_##T, E, T)
/* T -> O */
#define UNARY_TO(T, UF, E, O) KERNEL_1_1(loop_##UF##_##T##_##O, ct_##T, ct_##O, E, T)
/* T, T -> T, with the sequential reduce fast path */
#define BINARY(T, UF, E) \
	KERNEL_2_1(loop_##UF##_##T##_##T##_##T, ct_##T, ct_##T, ct_##T, E, T, REDUCE_SEQ)
/* T, T -> O */
#define BINARY_TO(T, UF, E, O) \
	KERNEL_2_1(loop_##UF##_##T##_##T##_##O, ct_##T, ct_##T, ct_##O, E, T, REDUCE_NONE)
/* T, T -> T, T */
#define BINARY_2(T, UF, E) \
	KERNEL_2_2(loop_##UF##_##T##_##T##_##T##_##T, ct_##T, ct_##T, ct_##T, ct_##T, E, T)

/* float16 through float32 with the element operation E of FLOAT32 */
#define HALF_UNARY(UF, E) \
	KERNEL_1_1(loop_##UF##_FLOAT16_FLOAT16, uint16_t, uint16_t, HALF_1, E)
#define HALF_UNARY_TO(UF, E, O) \
	KERNEL_1_1(loop_##UF##_FLOAT16_##O, uint16_t, ct_##O, HALF_1_RAW, E)
#define HALF_BINARY(UF, E, REDUCE) \
	KERNEL_2_1(loop_##UF##_FLOAT16_FLOAT16_FLOAT16, uint16_t, uint16_t, uint16_t, HALF_2, E, REDUCE)
#define HALF_BINARY_TO(UF, E, O) \
	KERNEL_2_1(loop_##UF##_FLOAT16_FLOAT16_##O, uint16_t, uint16_t, ct_##O, HALF_2_RAW, E, REDUCE_NONE)

/* ---- element operations shared by every family ---- */

#define E_IDENTITY(T, a) (a)
#define E_EQUAL(T, a, b) ((a) == (b))
#define E_NOT_EQUAL(T, a, b) ((a) != (b))
#define E_LESS(T, a, b) ((a) < (b))
#define E_LESS_EQUAL(T, a, b) ((a) <= (b))
#define E_GREATER(T, a, b) ((a) > (b))
#define E_GREATER_EQUAL(T, a, b) ((a) >= (b))
#define E_LOGICAL_AND(T, a, b) ((a) != 0 && (b) != 0)
#define E_LOGICAL_OR(T, a, b) ((a) != 0 || (b) != 0)
#define E_LOGICAL_XOR(T, a, b) (((a) != 0) != ((b) != 0))
#define E_LOGICAL_NOT(T, a) ((a) == 0)

/* The comparison and logical loops of one family: T, T -> BOOL, each
 * element by the macro named PREFIX + the ufunc's name in capitals
 * (E_EQUAL, or E_C_EQUAL for the complex family). */
#define COMPARISONS_BY(T, PREFIX)                                             \
	BINARY_TO(T, equal, PREFIX##EQUAL, BOOL)                              \
	BINARY_TO(T, not_equal, PREFIX##NOT_EQUAL, BOOL)                      \
	BINARY_TO(T, less, PREFIX##LESS, BOOL)                                \
	BINARY_TO(T, less_equal, PREFIX##LESS_EQUAL, BOOL)                    \
	BINARY_TO(T, greater, PREFIX##GREATER, BOOL)                          \
	BINARY_TO(T, greater_equal, PREFIX##GREATER_EQUAL, BOOL)              \
	BINARY_TO(T, logical_and, PREFIX##LOGICAL_AND, BOOL)                  \
	BINARY_TO(T, logical_or, PREFIX##LOGICAL_OR, BOOL)                    \
	BINARY_TO(T, logical_xor, PREFIX##LOGICAL_XOR, BOOL)                  \
	UNARY_TO(T, logical_not, PREFIX##LOGICAL_NOT, BOOL)
#define COMPARISONS(T, _) COMPARISONS_BY(T, E_)

#endif
