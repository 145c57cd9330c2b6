/* cpu.h - the instruction-set level the type loops run at.
 *
 * The float loops come in one version per level; which one runs is chosen
 * once per process: the widest level the CPU (and its operating system)
 * supports, capped by the environment variable H5UFUNC_CPU.  Every level
 * computes the same bits -- no level uses fused multiply-add, and the
 * vector functions of the transcendental loops are SLEEF's deterministic
 * ones -- so the choice changes the speed of a run, never its output, and
 * ranks on different CPUs write the same bytes.
 */
#ifndef H5UFUNC_CPU_H
#define H5UFUNC_CPU_H

/* The levels, narrowest first (a cap admits its own level and those
 * before it): X(TAG, NAME, TARGET, ...) with NAME the word H5UFUNC_CPU
 * takes and TARGET the compiler's target attribute for the level; the
 * rest of CPU_LEVELS's arguments follow.
 *   SSE2    x86-64's baseline: 128-bit vectors
 *   AVX2    256-bit vectors (AVX and AVX2)
 *   AVX512  512-bit vectors (AVX-512F) */
#define CPU_LEVELS(X, ...)                                                    \
	X(SSE2, sse2, "sse2", __VA_ARGS__)                                    \
	X(AVX2, avx2, "avx2", __VA_ARGS__)                                    \
	X(AVX512, avx512, "avx512f", __VA_ARGS__)

#define CPU_ENUM(TAG, NAME, TARGET, _) CPU_##TAG,
enum cpu_level {
	CPU_LEVELS(CPU_ENUM, _)
	CPU_NLEVELS
};
#undef CPU_ENUM

/* Choose the level from the CPU and H5UFUNC_CPU (unset or empty: no cap).
 * Returns 0, or -1 when H5UFUNC_CPU names no level; the widest level the
 * CPU has is then used. */
int cpu_init(void);
/* The level in use (cpu_init's choice, made on first use if it was not
 * called). */
enum cpu_level cpu_level(void);
/* The widest level this CPU supports, whatever the cap. */
enum cpu_level cpu_level_available(void);
/* "sse2", "avx2", "avx512": the names H5UFUNC_CPU takes. */
const char *cpu_level_name(enum cpu_level level);

#endif
