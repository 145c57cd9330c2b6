/* chain.h - a reduction's contiguous groups folded as NumPy folds them.
 *
 * A REDUCE_CHAIN reduction (reduce.h) keeps its leading axes and reduces
 * all the others (or leaves them of extent 1), so each index of the kept
 * axes is a GROUP whose elements are one flat run in C order.  NumPy folds
 * such a run in pieces of CHAIN_PIECE elements (its buffer), in order: its
 * loop folds each piece (add sums it pairwise) onto the running value.
 * Here each piece is folded on its own into a partial result -- the first
 * from the reduction's start, the others from the identity, a float zero
 * as -0, so that an add's partial is exactly the piece's pairwise sum --
 * and a group's partials are chained in order: the running value op each,
 * for add NumPy's own additions, so its bits.  Which elements make a piece
 * depends on the shape alone: the result is the same whatever the ranks,
 * boxes and budget.
 *
 * A rank is fed boxes that are flat runs of the input, each continuing the
 * run of the one before (its share of a layout, dist.h): a piece cut by a
 * box boundary is gathered in a buffer of one piece, and a group the rank
 * folds from its first element to its last is finished here and written
 * with the box that ends it.  A group split between ranks is finished by
 * rank 0: every rank sends what it holds of such groups, in rank order (the
 * running value of one it began, the partials of one begun before its
 * share, the elements of a piece cut by a share boundary), and rank 0
 * chains them in order and writes the results (chain_finish).  Not here:
 * reading the input, dealing boxes to ranks, the fold of a stream's box
 * (reducer.h).
 */
#ifndef H5UFUNC_CHAIN_H
#define H5UFUNC_CHAIN_H

#include <stdint.h>

#include "err.h"
#include "iter.h"
#include "plan.h"

/* Elements of a piece: NumPy's buffer size. */
#define CHAIN_PIECE ITER_PIECE

/* A chain of S on NRANKS ranks, its buffers listed into H (hold.h):
 * counted (returns NULL), or allocated from H, its chain fed boxes of at
 * most the elements of H's layout.  Every rank creates one; hold_free
 * frees the buffers, chain_free (NULL is fine) the rest. */
struct hold;
struct chain *chain_hold(struct hold *h, struct plan_step *s, int nranks);
void chain_free(struct chain *c);

/* Fold the box START/COUNT of S's input: DATA C-contiguous in the loop's
 * second dtype, VALID (masked mode: which elements are valid) or NULL.  The
 * box must be a flat run that begins where this rank's previous box ended. */
void chain_box(struct chain *c, const char *data, const uint8_t *valid, const int64_t *start,
	       const int64_t *count);
/* chain_box of a box given a run at a time: the N elements at DATA (VALID
 * beside, or NULL) of the box at START from its AT-th element on (C order
 * over the box), each run continuing the one before, a box's first at 0. */
void chain_run(struct chain *c, const char *data, const uint8_t *valid, const int64_t *start,
	       int64_t at, int64_t n);
/* chain_run of one whole piece given by its fold: the N elements of the
 * box at START from its AT-th element on, a piece of its group, whose fold
 * is FOLD, one value of the partials' dtype (ufunc_partial_loop: float32
 * for a float16 sum): for a sum whose pieces fold from a value
 * (FOLD_VALUE), the partial loop's call over them from -0, NumPy's
 * pairwise sum; for a fold exact in any grouping that keeps the order
 * (ufunc_fold_exact), the elements folded in order. */
void chain_piece(struct chain *c, const char *fold, const int64_t *start, int64_t at, int64_t n);
/* Collective, after every chain_box: write the groups the box finished
 * (with no kept axes the one result is written by chain_finish). */
int chain_write_box(struct chain *c, struct err *e);
/* Collective, at the end: rank 0 finishes the groups split between ranks
 * and writes them. */
int chain_finish(struct chain *c, struct err *e);

/* Bytes of a chain of S on each of NRANKS ranks that are a second piece,
 * the head of one a rank's share begins inside (several ranks; 0 when
 * none). */
int64_t chain_head_bytes(const struct plan_step *s, int nranks);

#endif
