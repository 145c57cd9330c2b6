/* gemm.h - the block products of a contraction (contract.h): one cell of
 * results from one piece of its operands, and the sums of partial results.
 *
 * A cell's operands are matrices in the packing dtype: A rows x depth, B
 * depth x cols, each transposed when its plan says so (a BLAS product
 * reads either way), row-major with a leading dimension: packed
 * contiguous, or read in place where an operand's slab is stored so.  float32, float64, complex64 and
 * complex128 cells large enough to pay for a call go to OpenBLAS's gemm
 * (serial, through CBLAS); the others, and bool, the integers (NumPy's
 * wrap-around) and float16 (packed as float32, summed in float32 and
 * rounded once at the end, as NumPy's float16 matmul does) run h5ufunc's
 * own loop, which sums each result in the order of the contraction.
 * Whether a cell goes to BLAS depends on the grid alone (cells.h), so a
 * result's bits do not depend on who computes it.  Loops never allocate.
 */
#ifndef H5UFUNC_GEMM_H
#define H5UFUNC_GEMM_H

#include <stdbool.h>
#include <stdint.h>

#include "dtype.h"

/* How the cells of one contraction are computed (gemm_plan). */
struct gemm_plan {
	enum dtype t;             /* the loop's dtype */
	enum dtype pack;          /* operands packed and results summed in this dtype */
	bool blas;                /* OpenBLAS's gemm, else the own loop */
	bool a_trans, b_trans;    /* BLAS: A packed depth x rows, B cols x depth */
};

/* The plan for cells of at most GN x GM results over pieces of GK, in the
 * loop dtype T.  A_TRANS and B_TRANS: the operands' natural order (taken
 * only by BLAS; the own loop packs A rows x depth, B depth x cols). */
void gemm_plan_make(enum dtype t, int64_t gn, int64_t gm, int64_t gk, bool a_trans, bool b_trans,
		    struct gemm_plan *p);

/* C = A B, or C += A B when ACCUMULATE, for a cell of ROWS x COLS results
 * over DEPTH: A and B laid out as P says, LDA and LDB elements from one of
 * their rows to the next (at least their rows' length: depth, or rows when
 * A is transposed; cols, or depth when B is); C rows x cols, row-major.
 * The result's bits do not depend on LDA and LDB. */
void gemm_cell(const struct gemm_plan *p, int64_t rows, int64_t cols, int64_t depth,
	       const char *a, int64_t lda, const char *b, int64_t ldb, char *c, bool accumulate);

/* LEFT[i] += RIGHT[i] for N results in the packing dtype PACK (bool: or). */
void gemm_add(enum dtype pack, char *left, const char *right, int64_t n);

/* X[i] = conj(X[i]) for N elements of the complex dtype T (others: no-op). */
void gemm_conjugate(enum dtype t, char *x, int64_t n);

/* The packing dtype of the loop dtype T. */
enum dtype gemm_pack_dtype(enum dtype t);

#endif
