/* cpu.c - the choice of the type loops' instruction-set level: what the
 * CPU supports, capped by H5UFUNC_CPU, made once per process.
 *
 * It only chooses; the versions of the loops and their dispatch are in
 * loops.h and loops_*.c.  The choice never changes a result (cpu.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

#define CPU_NAME(TAG, NAME, TARGET, _) #NAME,
static const char *const level_names[CPU_NLEVELS] = { CPU_LEVELS(CPU_NAME, _) };
#undef CPU_NAME

/* -1 until chosen: loops read it on every call, so it is a plain int. */
static int chosen = -1;

enum cpu_level cpu_level_available(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		return CPU_AVX512;
	if (__builtin_cpu_supports("avx2"))
		return CPU_AVX2;
#endif
	return CPU_SSE2;
}

const char *cpu_level_name(enum cpu_level level)
{
	return level >= 0 && level < CPU_NLEVELS ? level_names[level] : "?";
}

int cpu_init(void)
{
	enum cpu_level level = cpu_level_available();
	const char *cap = getenv("H5UFUNC_CPU");
	int status = 0;
	if (cap && *cap) {
		int k = 0;
		while (k < CPU_NLEVELS && strcmp(cap, level_names[k]) != 0)
			k++;
		if (k == CPU_NLEVELS) {
			status = -1;
		} else if ((enum cpu_level)k < level) {
			level = (enum cpu_level)k;
		}
	}
	chosen = (int)level;
	return status;
}

enum cpu_level cpu_level(void)
{
	if (chosen < 0)
		cpu_init();
	return (enum cpu_level)chosen;
}
