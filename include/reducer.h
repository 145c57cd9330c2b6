/* reducer.h - a reduction's input folded into its results: the fold of one
 * box into accumulators, and the reducer, which takes a reduction's input
 * box by box and writes the results each box finishes.
 *
 * The reducer serves two layouts of reduce.h: REDUCE_STREAM boxes of whole
 * rows (axis 0 kept), as a fused elementwise pass makes them, and
 * REDUCE_CHAIN boxes that are flat runs, from that pass or from reduce.c's
 * chain driver, which it hands to chain.h (NumPy's pieces, chained in
 * order; a group split between ranks finished by rank 0 in rank order,
 * reducer_finish).  A shared stream's partial results
 * (dist.h) combine across ranks in rank order here too: onto rank 0 for
 * a reduction, into each rank's carry-in for a scan.  Not here: reading
 * the input, and dealing boxes to ranks (reduce.c, dist.h).
 */
#ifndef H5UFUNC_REDUCER_H
#define H5UFUNC_REDUCER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "iter.h"
#include "plan.h"

/* ---- the fold of one box ------------------------------------------------ */

/* Strides AST of accumulators of SIZE bytes over the index space DIMS: 0
 * along the REDUCED axes, C-contiguous over the others. */
void reducer_acc_strides(int ndim, const int64_t *dims, const bool *reduced, int size,
			 ptrdiff_t *ast);

/* Fold DATA (C-contiguous over DIMS, in S's loop's second dtype) into ACC
 * (strides AST over DIMS, the loop's first dtype).  START: DATA begins the
 * reduction, so INIT's FOLD_FIRST* copies its first elements in before
 * folding.  A skip_fold reduction folds only the elements VALID says, and
 * says in ACCV which results took any; a masked one ors VALID into ACCV
 * (NULL: neither). */
void reducer_fold(const struct plan_step *s, enum fold_init init, char *data, int ndim,
		  const int64_t *dims, char *acc, const ptrdiff_t *ast, bool start,
		  const uint8_t *valid, uint8_t *accv);

/* Collective, for a shared stream (dist.h): on rank 0, ACC (N
 * accumulators of S) becomes every rank's ACC combined in rank order,
 * which is the order along, and ACCV (or NULL) the OR of every rank's; a
 * tree of log P steps (comm_fold_to_root).  A fault the loop raised on
 * this rank is its error in E. */
void reducer_combine_ranks(const struct plan_step *s, char *acc, uint8_t *accv, int64_t n,
			   struct err *e);
/* Collective, for a shared scan: on rank R > 0, CARRY (N accumulators of
 * S, each rank's run total, or nothing when EMPTY: a rank that took no
 * element) becomes the totals of ranks 0 to R - 1 that took any,
 * combined in rank order, the value its run carries in.  Returns whether
 * it did; when none did (and on rank 0) CARRY is left as it was
 * (comm_fold_before). */
bool reducer_carry_in(const struct plan_step *s, char *carry, int64_t n, bool empty,
		      struct err *e);

/* Write the results ACC (the loop's dtype) into the box START/COUNT of S's
 * output, through CONV (scratch in the output's dtype, NULL when it is the
 * loop's).  A masked reduce writes those with no valid element (ACCV 0)
 * as the output's fill value.  Collective. */
int reducer_write_result(const struct plan_step *s, const int64_t *start, const int64_t *count,
			 char *acc, uint8_t *accv, char *conv, struct err *e);

/* A fault the loops raised, as S's error in E. */
void reducer_check_fault(const struct plan_step *s, struct err *e);

/* Product of X's extents from axis FROM on, counting the REDUCED axes as 1
 * unless KEEP_REDUCED. */
int64_t reducer_extent(const struct shape *x, const bool *reduced, int from, bool keep_reduced);

/* ---- the reducer -------------------------------------------------------- */

/* A reducer of S (REDUCE_STREAM with axis 0 kept, or REDUCE_CHAIN) on
 * NRANKS ranks, its buffers listed into H (hold.h): counted (returns
 * NULL), or allocated from H, the reducer fed the boxes of H's layout,
 * which a pass whose split axis is at most reducer_max_axis(S) makes: for
 * a stream, boxes of whole rows (empty ones too); a chain takes each
 * rank's boxes in order, as a flat run.  Every rank creates one; hold_free
 * frees the buffers, reducer_free (NULL is fine) the rest. */
struct hold;
struct reducer *reducer_hold(struct hold *h, struct plan_step *s, int nranks);
void reducer_free(struct reducer *r);
/* The last split axis of a pass whose boxes S can take: rows (0) for a
 * stream that keeps axis 0, any (H5U_MAXDIM) for a chain; -1 for none (a
 * stream that reduces axis 0). */
int reducer_max_axis(const struct plan_step *s);
/* Fold the box START/COUNT of the input (DATA, C-contiguous, in the loop's
 * second dtype; VALID, one byte an element, which are valid in masked mode,
 * else NULL). */
void reducer_box(struct reducer *r, char *data, const uint8_t *valid, const int64_t *start,
		 const int64_t *count);
/* Elements of the runs reducer_box_chunked copies a box out in. */
#define REDUCER_RUN 1024
/* reducer_box of the box START/COUNT read as its chunks, B (stage.h), for
 * each of the N chains R (REDUCE_CHAIN, unmasked): copied out a run of
 * REDUCER_RUN elements at a time into RUN (that many of its elements),
 * which each folds while it is in the core's cache (chain_run); a fault
 * of a fold into E. */
struct stage_chunked;
void reducer_box_chunked(struct reducer *const *r, int n, const struct stage_chunked *b, char *run,
			 const int64_t *start, const int64_t *count, struct err *e);
/* reducer_box of the box START/COUNT of X for each of the N chains R,
 * read as T (X's own dtype; where the loop's is another, each band cast
 * to it as stage_read casts) a band of chunk columns at a time
 * (stage_read_band) through
 * BUF (CAP bytes, a buffer reducer_box_chunked reads the box into), where
 * the box is whole lines (rows of X's last axis) and every chain one loop
 * in its own dtype whose lines hold whole pieces (or a line is a group):
 * a sum of a float or complex dtype has each line's pieces summed as
 * NumPy's pairwise tree sums them (float16 in float32), its leaves (at
 * most 128 elements) as the bands bring them, the partial sums joined in
 * the tree's order; a fold exact in any grouping that keeps the order
 * (ufunc_fold_exact: integer sums, maximum, logical_and, ...) has each
 * piece's running value folded on in order; then the pieces are chained
 * (chain_piece), so that only a band's chunks are held.  1: folded; 0:
 * not such a box or chains, or its chunks not read as stored (nothing
 * folded: the caller reads the box, which BUF holds whole when HELD_WHOLE;
 * never so when not); -1: a read failed (E set).  Not
 * collective, as stage_read_chunks. */
int reducer_box_bands(struct reducer *const *r, int n, const struct array *x, enum dtype t,
		      const int64_t *start, const int64_t *count, char *buf, int64_t cap, bool held_whole,
		      const char *where, struct err *e);
/* Bytes of a buffer through which a box of one chunk row of X (a 2-d
 * array read as its chunks in its own dtype) folds into the N reductions
 * R by bands (reducer_box_bands), holding only what the bands need: the
 * box's part of two chunk columns as read and in C order, and each row's
 * leaf cut by a band's edge, tree stack and pieces' sums; 0 when R do not
 * fold so.  A box held so (HELD_WHOLE false) is never handed back: where
 * its chunks are not read as stored, each band is read through HDF5. */
int64_t reducer_band_bytes(struct plan_step *const *r, int n, const struct array *x);
/* Are L's boxes (over X's space) one chunk row of X each, following its
 * chunks, as reducer_band_bytes's buffer holds them? */
bool reducer_band_boxes(const struct dist_layout *l, const struct array *x);
/* Lays out S's boxes, with S->blocks.bands saying whether they are to
 * fold by bands; 0 or -1 (E set). */
typedef int reducer_lay_fn(struct plan_step *s, void *ctx, struct err *e);
/* Try S's boxes folding X by bands: LAY (with CTX) lays them out with
 * S->blocks.bands set, its error thrown away; true when they are laid and
 * each one chunk row of X (reducer_band_boxes), which stay; else false,
 * S->blocks.bands cleared, and the caller lays them out as usual. */
bool reducer_try_bands(struct plan_step *s, const struct array *x, reducer_lay_fn *lay, void *ctx);
/* Collective, after every reducer_box: writes what the box finished (the
 * rows of a stream, the groups of a chain with kept leading axes; a chain
 * without them writes at the end). */
int reducer_write_box(struct reducer *r, const int64_t *start, const int64_t *count, struct err *e);
/* Collective, at the end: a chain finishes the groups split between ranks
 * on rank 0 and writes them. */
int reducer_finish(struct reducer *r, struct err *e);

#endif
