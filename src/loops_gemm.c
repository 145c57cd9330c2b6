/* loops_gemm.c - the contraction's block products and partial sums.  See
 * gemm.h.
 *
 * The own loop runs i, k, j: each result takes its terms in the order of
 * the contraction, starting from 0 as NumPy's loop without BLAS does, and
 * the innermost loop runs along a row of B and of C.  Built, as every
 * loops_*.c, with -ffp-contract=off: no multiply-add is fused.
 */
#include <cblas.h>
#include <string.h>

#include "gemm.h"
#include "loops.h"

/* Results times depth of a cell below which a BLAS call costs more than
 * the own loop (a 16 x 16 x 16 product). */
#define BLAS_MIN_WORK 4096

/* ---- the own loop ---- */

/* C (ROWS x COLS) = (or +=) A (ROWS x DEPTH, rows LDA apart) B (DEPTH x
 * COLS, rows LDB apart), elements of dtype TAG, each term added by
 * MULADD(TAG, c, a, b). */
#define OWN_GEMM(TAG, MULADD)                                                 \
static void own_##TAG(int64_t rows, int64_t cols, int64_t depth, const char *ap, \
		      int64_t lda, const char *bp, int64_t ldb, char *cp, bool accumulate) \
{                                                                             \
	const ct_##TAG *a = (const ct_##TAG *)ap, *b = (const ct_##TAG *)bp;  \
	ct_##TAG *c = (ct_##TAG *)cp;                                         \
	if (!accumulate)                                                      \
		memset(c, 0, sizeof *c * (size_t)(rows * cols));              \
	for (int64_t i = 0; i < rows; i++) {                                  \
		ct_##TAG *ci = c + i * cols;                                  \
		for (int64_t k = 0; k < depth; k++) {                         \
			const ct_##TAG x = a[i * lda + k];                    \
			const ct_##TAG *bk = b + k * ldb;                     \
			for (int64_t j = 0; j < cols; j++)                    \
				ci[j] = MULADD(TAG, ci[j], x, bk[j]);         \
		}                                                             \
	}                                                                     \
}

/* Integers wrap as NumPy's do: computed in an unsigned type at least as
 * wide as unsigned int. */
#define MULADD_WRAP(TAG, c, x, y) \
	(ct_##TAG)((wt_##TAG)(c) + (wt_##TAG)(x) * (wt_##TAG)(y))
#define MULADD_FLOAT(TAG, c, x, y) ((c) + (x) * (y))
#define MULADD_BOOL(TAG, c, x, y) ((ct_BOOL)((c) | ((x) & (y))))
FOR_INTS(OWN_GEMM, MULADD_WRAP)
FOR_FLOATS(OWN_GEMM, MULADD_FLOAT)
OWN_GEMM(BOOL, MULADD_BOOL)

/* Complex elements as pairs of parts P: (a + bi)(c + di) as NumPy's loop
 * computes it. */
#define OWN_COMPLEX(TAG, _)                                                   \
static void own_##TAG(int64_t rows, int64_t cols, int64_t depth, const char *ap, \
		      int64_t lda, const char *bp, int64_t ldb, char *cp, bool accumulate) \
{                                                                             \
	typedef pt_##TAG P;                                                   \
	const P *a = (const P *)ap, *b = (const P *)bp;                       \
	P *c = (P *)cp;                                                       \
	if (!accumulate)                                                      \
		memset(c, 0, 2 * sizeof(P) * (size_t)(rows * cols));          \
	for (int64_t i = 0; i < rows; i++) {                                  \
		P *ci = c + 2 * i * cols;                                     \
		for (int64_t k = 0; k < depth; k++) {                         \
			const P xr = a[2 * (i * lda + k)], xi = a[2 * (i * lda + k) + 1]; \
			const P *bk = b + 2 * k * ldb;                        \
			for (int64_t j = 0; j < cols; j++) {                  \
				const P yr = bk[2 * j], yi = bk[2 * j + 1];   \
				ci[2 * j] = ci[2 * j] + (xr * yr - xi * yi);  \
				ci[2 * j + 1] = ci[2 * j + 1] + (xr * yi + xi * yr); \
			}                                                     \
		}                                                             \
	}                                                                     \
}
FOR_COMPLEX(OWN_COMPLEX, _)

typedef void own_fn(int64_t rows, int64_t cols, int64_t depth, const char *a, int64_t lda,
		    const char *b, int64_t ldb, char *c, bool accumulate);

static own_fn *own_loop(enum dtype pack)
{
	switch (pack) {
#define OWN_CASE(TAG, _) case DT_##TAG: return own_##TAG;
	FOR_INTS(OWN_CASE, _)
	FOR_FLOATS(OWN_CASE, _)
	FOR_COMPLEX(OWN_CASE, _)
#undef OWN_CASE
	default:
		return own_BOOL;
	}
}

/* ---- BLAS ---- */

static void blas_cell(const struct gemm_plan *p, int64_t rows, int64_t cols, int64_t depth,
		      const char *a, int64_t a_ld, const char *b, int64_t b_ld, char *c, bool accumulate)
{
	enum CBLAS_TRANSPOSE ta = p->a_trans ? CblasTrans : CblasNoTrans;
	enum CBLAS_TRANSPOSE tb = p->b_trans ? CblasTrans : CblasNoTrans;
	blasint M = (blasint)rows, N = (blasint)cols, K = (blasint)depth;
	blasint lda = (blasint)a_ld, ldb = (blasint)b_ld;
	switch (p->pack) {
	case DT_FLOAT32:
		cblas_sgemm(CblasRowMajor, ta, tb, M, N, K, 1.0f, (const float *)a, lda,
			    (const float *)b, ldb, accumulate ? 1.0f : 0.0f, (float *)c, N);
		return;
	case DT_FLOAT64:
		cblas_dgemm(CblasRowMajor, ta, tb, M, N, K, 1.0, (const double *)a, lda,
			    (const double *)b, ldb, accumulate ? 1.0 : 0.0, (double *)c, N);
		return;
	case DT_COMPLEX64: {
		const float one[2] = { 1, 0 }, beta[2] = { accumulate ? 1.0f : 0.0f, 0 };
		cblas_cgemm(CblasRowMajor, ta, tb, M, N, K, one, a, lda, b, ldb, beta, c, N);
		return;
	}
	default: {
		const double one[2] = { 1, 0 }, beta[2] = { accumulate ? 1.0 : 0.0, 0 };
		cblas_zgemm(CblasRowMajor, ta, tb, M, N, K, one, a, lda, b, ldb, beta, c, N);
		return;
	}
	}
}

/* ---- the interface ---- */

enum dtype gemm_pack_dtype(enum dtype t)
{
	return t == DT_FLOAT16 ? DT_FLOAT32 : t;
}

void gemm_plan_make(enum dtype t, int64_t gn, int64_t gm, int64_t gk, bool a_trans, bool b_trans,
		    struct gemm_plan *p)
{
	p->t = t;
	p->pack = gemm_pack_dtype(t);
	char kind = dtype_table[t].kind;
	p->blas = t != DT_FLOAT16 && (kind == 'f' || kind == 'c') && gn * gm * gk >= BLAS_MIN_WORK;
	p->a_trans = p->blas && a_trans;
	p->b_trans = p->blas && b_trans;
}

void gemm_cell(const struct gemm_plan *p, int64_t rows, int64_t cols, int64_t depth,
	       const char *a, int64_t lda, const char *b, int64_t ldb, char *c, bool accumulate)
{
	if (p->blas && rows > 0 && cols > 0 && depth > 0)
		blas_cell(p, rows, cols, depth, a, lda, b, ldb, c, accumulate);
	else
		own_loop(p->pack)(rows, cols, depth, a, lda, b, ldb, c, accumulate);
}

#define ADD_WRAP(TAG, _)                                                      \
	case DT_##TAG: {                                                      \
		ct_##TAG *l = (ct_##TAG *)left;                               \
		const ct_##TAG *r = (const ct_##TAG *)right;                  \
		for (int64_t i = 0; i < n; i++)                               \
			l[i] = (ct_##TAG)((wt_##TAG)l[i] + (wt_##TAG)r[i]);   \
		return;                                                       \
	}
#define ADD_PARTS(TAG, P, PARTS)                                              \
	case DT_##TAG: {                                                      \
		P *l = (P *)left;                                             \
		const P *r = (const P *)right;                                \
		for (int64_t i = 0; i < PARTS * n; i++)                       \
			l[i] = l[i] + r[i];                                   \
		return;                                                       \
	}

void gemm_add(enum dtype pack, char *left, const char *right, int64_t n)
{
	switch (pack) {
	FOR_INTS(ADD_WRAP, _)
	ADD_PARTS(FLOAT32, float, 1)
	ADD_PARTS(FLOAT64, double, 1)
	ADD_PARTS(COMPLEX64, float, 2)
	ADD_PARTS(COMPLEX128, double, 2)
	default:
		for (int64_t i = 0; i < n; i++)
			left[i] = (char)(left[i] | right[i]);
		return;
	}
}

void gemm_conjugate(enum dtype t, char *x, int64_t n)
{
	if (t == DT_COMPLEX64)
		for (int64_t i = 0; i < n; i++)
			((float *)x)[2 * i + 1] = -((float *)x)[2 * i + 1];
	else if (t == DT_COMPLEX128)
		for (int64_t i = 0; i < n; i++)
			((double *)x)[2 * i + 1] = -((double *)x)[2 * i + 1];
}
