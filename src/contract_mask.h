/* contract_mask.h - a contraction in masked mode: numpy.ma's matrix
 * product, np.ma.dot(a, b, strict=False), for each loop index.
 *
 * Its values are the product of the operands with their missing elements
 * made 0 (np.ma.dot's filled(a, 0) @ filled(b, 0)), so they ride the
 * contraction's own cells, pieces and tree unchanged; a result is masked
 * where no product of its contraction has two valid factors (np.ma.dot's
 * ~(~mask(a) @ ~mask(b)), a bool product: an empty contraction masks
 * every result).  Whether a result has such a product is an or, which
 * no grouping changes: each rank ors it over the pieces it reads into a
 * byte beside each result of its box, and a shared run ors the ranks'
 * bytes onto rank 0.  Then the epilogue's domain masks (lower_missing's,
 * as an elementwise step's) are and'ed in, and the masked results
 * written as the output's fill.
 *
 * What it holds (contract_mask_buffers, in contract_box.c's list of a run's
 * buffers): each operand's slab of validity bytes, and the box's bytes of
 * results, one more on a shared run for what rank 0 receives.
 *
 * Not here: the geometry of slabs and boxes (contract_box.c); the tests that
 * say which elements are missing (cf.h); the fill, by the one rule of
 * every step (plan.c, plan_fill), and its writing (masked.h).
 */
#ifndef H5UFUNC_CONTRACT_MASK_H
#define H5UFUNC_CONTRACT_MASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "contract.h"
#include "hold.h"

/* A run's buffers of masked mode (all NULL outside it). */
struct contract_masks {
	uint8_t *valid[2];   /* each operand's slab: 1 where an element is not missing */
	uint8_t *any;        /* the result box: 1 where a product has two valid factors */
	uint8_t *recv;       /* a shared run: on rank 0, another rank's ANY */
	char *plane_raw[2];  /* each slab's mask plane read through (masked_hold) */
};

/* A 2-d view of bytes: element (i, j) at DATA[i * STEP[0] + j * STEP[1]]. */
struct byte_view {
	uint8_t *data;
	ptrdiff_t step[2];
};

/* The buffers of S's masked mode, for slabs of NA and NB elements and a
 * box of RESULTS results, on a SHARED run or not, into H with M's slots
 * (M NULL: counting); none outside masked mode. */
void contract_mask_buffers(const struct plan_step *s, int64_t na, int64_t nb, int64_t results,
			   bool shared, struct contract_masks *m, struct hold *h);

/* Operand K's slab of S just read (the box START/COUNT of it): N elements
 * at DATA (its dtype), M's VALID[K] made 1 where they are not missing (masked.h's
 * masked_valid: a named intermediate's mask plane read beside them,
 * collective), and the missing ones made 0. */
int contract_mask_slab(const struct plan_step *s, int k, const int64_t *start, const int64_t *count,
		       char *data, int64_t n, const struct contract_masks *m, struct err *e);

/* ANY (NR x NC) or'ed with whether some product A (NR x NK) by B (NK x
 * NC) has two valid factors: np.ma.dot's bool product of validities. */
void contract_mask_products(struct byte_view a, struct byte_view b, int64_t nr, int64_t nk,
			    int64_t nc, struct byte_view any);

/* A shared run: the ranks' M->any (N bytes) or'ed onto rank 0's.
 * Collective over the ranks of the run. */
void contract_mask_gather(struct contract_masks *m, int64_t n);

/* The N results DATA (the step's result dtype) of the box START/COUNT of
 * S's output: those M->any (and'ed with the epilogue's domain masks,
 * EPILOGUE, NULL when it has none) leaves masked made the output's fill,
 * and the mask written when the step prints.  Collective. */
int contract_mask_results(const struct plan_step *s, struct contract_masks *m,
			  const uint8_t *epilogue, const int64_t *start, const int64_t *count,
			  int64_t n, char *data, struct err *e);

#endif
