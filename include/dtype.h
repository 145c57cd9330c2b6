/* dtype.h - the array dtypes, NumPy's casting rules between them, and the
 * conversion loops.
 *
 * This module knows types, not operations: which dtype may be cast to which
 * under a casting rule, how a weak (Python) literal converts to a dtype, and
 * how to convert a strided run of elements.  Operations live in ufunc.h.
 */
#ifndef H5UFUNC_DTYPE_H
#define H5UFUNC_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum dtype {
#define DTYPE(TAG, CTYPE, NAME, KIND, CHAR) DT_##TAG,
#include "dtype.def"
#undef DTYPE
	DT_COUNT,
	DT_NONE = -1
};

struct dtype_info {
	const char *name;   /* "int8" */
	char kind;          /* 'b', 'i', 'u', 'f', 'c' */
	char typechar;      /* NumPy's: '?', 'b', ... */
	int size;           /* bytes per element */
};

extern const struct dtype_info dtype_table[DT_COUNT];

enum casting { CAST_NO, CAST_EQUIV, CAST_SAFE, CAST_SAME_KIND, CAST_UNSAFE };

/* NumPy's name of a dtype; "?" for DT_NONE. */
const char *dtype_name(enum dtype dt);
/* NumPy's name of DT stored in the other byte order than the machine's
 * when SWAPPED (its dtype.str: ">f8" on a little-endian machine), else
 * dtype_name's.  Static storage. */
const char *dtype_name_order(enum dtype dt, bool swapped);
/* Size in bytes of one element. */
int dtype_size(enum dtype dt);
/* The lowest (HIGH false) or highest value of T into OUT (16 bytes, the
 * rest zeroed): -inf/+inf for floats, the real part's for complex. */
void dtype_extreme(enum dtype t, bool high, unsigned char *out);
/* Parse a dtype name as NumPy accepts it in dtype= ("float32", "f4", "int",
 * "float", "bool", "double", "i8", ...).  Returns 0, or -1 when unknown. */
int dtype_from_name(const char *name, enum dtype *out);
/* The dtype of a NumPy type character ('l' and 'q' are both int64), or DT_NONE. */
enum dtype dtype_from_typechar(char c);

/* np.can_cast(from, to, casting). */
bool dtype_can_cast(enum dtype from, enum dtype to, enum casting casting);
/* np.can_cast(from, to, casting) where FROM or TO is stored in the other
 * byte order than the machine's (FROM_SWAPPED, TO_SWAPPED; one-byte dtypes
 * have none): 'no' refuses any change of byte order, 'equiv' and the
 * others allow it (dtype('>f8') to float64). */
bool dtype_can_cast_order(enum dtype from, bool from_swapped, enum dtype to, bool to_swapped,
			  enum casting casting);
/* np.promote_types(a, b) for strong dtypes. */
enum dtype dtype_promote(enum dtype a, enum dtype b);
const char *casting_name(enum casting c);
/* Returns 0, or -1 when NAME is not one of no|equiv|safe|same_kind|unsafe. */
int casting_from_name(const char *name, enum casting *out);

/* Convert N elements of FROM at SRC (stride SSTEP bytes) to TO at DST (stride
 * DSTEP bytes), as NumPy's astype(casting='unsafe') does on this machine:
 * integers wrap, float to integer truncates, anything to bool is != 0,
 * float16 rounds to nearest even.  SRC and DST may be the same buffer when
 * both strides are equal and TO is not wider than FROM. */
void dtype_cast(enum dtype from, const void *src, ptrdiff_t sstep,
		enum dtype to, void *dst, ptrdiff_t dstep, size_t n);

/* IEEE binary16 <-> binary32/64, round to nearest even (NumPy's npy_half). */
float half_to_float(uint16_t h);
double half_to_double(uint16_t h);
uint16_t half_from_float(float f);
uint16_t half_from_double(double d);

#endif
