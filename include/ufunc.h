/* ufunc.h - the ufunc catalogue: NumPy's universal functions, their type
 * loops, identities, and type resolution.
 *
 * Every ufunc is one row of ufunc.def (name, nin, nout, identity, flags, the
 * ordered list of type loops; a generalized ufunc's core signature).  Loops are homogeneous strided kernels: the
 * caller casts the operands to the loop's types first, then calls the loop.
 * A reduce is the binary loop with the output aliased to the first input.
 * Loops never allocate and never print; a fault that NumPy raises from the
 * data (an integer to a negative integer power) is recorded with
 * ufunc_raise() and read back with ufunc_take_error().
 */
#ifndef H5UFUNC_UFUNC_H
#define H5UFUNC_UFUNC_H

#include <stdbool.h>
#include <stddef.h>

#include "dtype.h"

#define UF_MAXARGS 4   /* nin + nout of the widest ufunc (divmod) */

/* One strided kernel.  ARGS[0..nin+nout-1] point at the first element of each
 * operand, STEPS[k] is the byte stride of operand k (0 to broadcast), N the
 * element count.  Inputs and output may alias exactly (same pointer, same
 * step). */
typedef void (*ufunc_loop_fn)(char **args, size_t n, const ptrdiff_t *steps);

struct ufunc_loop {
	enum dtype types[UF_MAXARGS];   /* inputs, then outputs */
	ufunc_loop_fn fn;
};

enum ufunc_identity {
	ID_NONE,          /* no identity, not reorderable (subtract) */
	ID_NONE_REORDER,  /* no identity, reorderable (maximum) */
	ID_ZERO,
	ID_ONE,
	ID_MINUS_ONE,     /* all bits set (bitwise_and) */
	ID_FALSE,
	ID_TRUE,
	ID_MINUS_INF      /* logaddexp */
};

/* Behaviour that NumPy decides in a ufunc's type resolver rather than in
 * its loop table: columns of the catalogue (tools/gen-ufunc-def), read by
 * type resolution (resolve.h) instead of comparing names. */
enum ufunc_flag {
	UF_TRUE_DIVIDE = 1u << 0,    /* bool and integer inputs divide as float64 */
	UF_BOOL_MINUS = 1u << 1,     /* bool inputs refused: NumPy's message on `-` */
	UF_NO_BOOL = 1u << 2,        /* bool inputs refused: no loop matches */
	UF_REDUCE_UPCAST = 1u << 3,  /* reduce/accumulate take bool and small integers
					in int64 (uint64 for unsigned) */
	UF_REDUCE_BOOL = 1u << 4,    /* reduce/accumulate run in bool */
	UF_MA_FILL_ZERO = 1u << 5,   /* no identity, but numpy.ma's reduce and accumulate
					fill masked elements with 0 ... */
	UF_MA_FILL_ONE = 1u << 6,    /* ... or with 1 */
	UF_PICKS_OPERAND = 1u << 7,  /* the result is one of the operands (maximum) */
	UF_CONJ_FIRST = 1u << 8,     /* a generalized ufunc that conjugates its first
					operand (vecdot, vecmat) */
	UF_PAIRWISE = 1u << 9,       /* a reduce of the float and complex loops, one
					call, sums pairwise (NumPy's pairwise summation) */
	UF_HALF_WIDE = 1u << 10,     /* a reduce of the float16 loop folds in float32,
					rounded to float16 at the end of the call */
	UF_TRUE_BELOW = 1u << 11,    /* a comparison, true where its first operand */
	UF_TRUE_EQUAL = 1u << 12,    /* orders below, equal to, or above its second */
	UF_TRUE_ABOVE = 1u << 13,
	UF_COMPARISON = UF_TRUE_BELOW | UF_TRUE_EQUAL | UF_TRUE_ABOVE,
	UF_TAKES_DATES = 1u << 14    /* NumPy has a datetime64 loop of it: dates
					(units.h) are its operands (add, maximum, less) */
};

/* numpy.ma's domain of a ufunc (its ufunc_domain), a column of the
 * catalogue: in masked mode a result is masked where it is not finite or
 * where its operands X (and X2) lie where the domain says, against its
 * bounds A and B -- compared as numpy.ma compares them (lower.c). */
enum ma_domain_kind {
	MA_NO_DOMAIN,      /* not domained: nothing more is masked */
	MA_BELOW,          /* x < a (sqrt, arccosh) */
	MA_AT_OR_BELOW,    /* x <= a (log, log2, log10) */
	MA_OUTSIDE,        /* x < a or x > b (arcsin, arccos, arctanh) */
	MA_TAN,            /* |cos x| < a (tan) */
	MA_SAFE_DIVIDE     /* |x| * a >= |x2|, a: float64's tiny (divide, ...) */
};

struct ma_domain {
	enum ma_domain_kind kind;
	double a, b;
};

/* How a ufunc's result carries units (units.h), as unyt computes them: a
 * column of the catalogue (tools/gen-ufunc-def). */
enum units_rule {
	UNITS_DIMENSIONLESS,   /* none from dimensionless inputs, else unknown */
	UNITS_SAME,            /* its operands' units, when they agree */
	UNITS_SUM,             /* the same; of reference times (units.h), a date
				  plus a duration is a date */
	UNITS_DIFFERENCE,      /* the same; a date minus a date is a duration,
				  a date minus a duration a date */
	UNITS_PRODUCT,
	UNITS_QUOTIENT,
	UNITS_POWER,           /* the first's units to a literal integer power */
	UNITS_SQRT,
	UNITS_CBRT,
	UNITS_SQUARE,
	UNITS_RECIPROCAL,
	UNITS_COMPARE,         /* no units: comparisons (of operands whose units agree) */
	UNITS_ANGLE,           /* none: sin, cos, tan (of an angle or a dimensionless operand) */
	UNITS_NONE             /* no units: logical ufuncs, ... */
};

struct ufunc {
	const char *name;                 /* NumPy's __name__ */
	int nin, nout;
	enum ufunc_identity identity;
	int nloops;
	const struct ufunc_loop *loops;   /* NumPy's order */
	const char *doc;                  /* one line */
	unsigned flags;                   /* enum ufunc_flag bits */
	enum units_rule units;
	struct ma_domain ma_domain;
	const char *cell_method;          /* the CF cell method its reduce is ("sum"),
					     a column of the catalogue; NULL: none */
	const char *signature;            /* a generalized ufunc's core signature,
					     "(n?,k),(k,m?)->(n?,m?)" (its loops have no
					     kernel: contract.h runs them); NULL for an
					     elementwise ufunc */
};

/* The catalogue, in alphabetical order of name. */
extern const struct ufunc ufunc_table[];
extern const int ufunc_count;

/* The ufunc called NAME, aliases included ("abs", "acos", "pow",
 * "bitwise_not", "divide", "mod", "conj", ...); NULL when unknown. */
const struct ufunc *ufunc_lookup(const char *name);
/* The I-th other name of UF ("abs" for absolute), or NULL past the last. */
const char *ufunc_alias(const struct ufunc *uf, int i);
/* The comparison true exactly for the orders TRUE_FOR (UF_TRUE_* bits:
 * UF_TRUE_BELOW | UF_TRUE_EQUAL is less_equal); NULL when none is. */
const struct ufunc *ufunc_comparison(unsigned true_for);
/* Reorderable: np.UFUNC.reduce may take several axes. */
bool ufunc_reorderable(const struct ufunc *uf);
/* Does a fold of UF's loop over dtype T give the same bits in any grouping
 * that keeps the order of the elements?  A reorderable ufunc's bool and
 * integer loops (wrap-around add and multiply, the bitwise and logical
 * ones, ...) and a loop that picks one of its operands (maximum, ...) do;
 * float add does not. */
bool ufunc_fold_exact(const struct ufunc *uf, enum dtype t);
/* The loop that folds the parts of a reduction of UF whose loop is LOOP,
 * so that their partial results keep what the loop's accumulator holds:
 * UF's float32 loop where LOOP is a float16 one that reduces in float32
 * (UF_HALF_WIDE), else LOOP. */
const struct ufunc_loop *ufunc_partial_loop(const struct ufunc *uf, const struct ufunc_loop *loop);

/* Write the identity of UF as one element of DT into OUT.  Returns 0, or -1
 * when UF has no identity. */
int ufunc_identity_value(const struct ufunc *uf, enum dtype dt, void *out);
/* The same, but a float zero (each part of a complex one) as -0: the value
 * a part of a reduction after the first starts from, since -0 + x is x for
 * every x where +0 + -0 is +0, so the part's partial result is exactly its
 * fold. */
int ufunc_identity_exact(const struct ufunc *uf, enum dtype dt, void *out);

/* Faults raised from the data by loops (NumPy's ValueError). */
enum ufunc_fault { UFERR_NONE, UFERR_NEGATIVE_POWER };
void ufunc_raise(enum ufunc_fault f);
/* The first fault raised since the last call, then cleared. */
enum ufunc_fault ufunc_take_error(void);
/* NumPy's message for a fault. */
const char *ufunc_fault_message(enum ufunc_fault f);

#endif
