/* reduce.h - np.UFUNC.reduce over any axes, the split one included, with
 * results that do not depend on the number of ranks or on --memory.
 *
 * Two layouts, chosen from the shape alone:
 *  - REDUCE_CHAIN: a reorderable ufunc that keeps m leading axes and
 *    reduces the others (m = 0 for all axes; kept axes of extent 1 after
 *    them do not count).  Each index of the kept axes is a group, a flat
 *    run of the input that NumPy folds in pieces of its buffer size (8192
 *    elements), in order; chain.h folds the same pieces and chains their
 *    partial results in the same order, so a sum is NumPy's bits whatever
 *    the ranks, boxes and budget.  The input is laid out in boxes like an
 *    elementwise pass's (dist_layout_units, one element the floor beside
 *    a piece's buffers); a group split between ranks is finished by rank 0
 *    in rank order.
 *  - REDUCE_STREAM otherwise: a sequential fold, streamed as a scan is
 *    (dist_stream_make): boxes across the kept axes dealt to the ranks,
 *    each walked along the reduced axes in C order with its accumulators
 *    carried from block to block, so each result is NumPy's fold in NumPy's
 *    order (exact for non-reorderable ufuncs too).  A reduced last axis is
 *    folded in loop calls of NumPy's pieces from each run's start
 *    (iter_fold), which a reorderable ufunc (add sums each pairwise) or a
 *    float16 one (in float32) folds its own way, so it is cut only for the
 *    others.  A 1-D
 *    non-reorderable reduction is one rank's sequential fold.  A fold
 *    that is exact in any grouping that keeps the order
 *    (ufunc_fold_exact: integers, maximum, ...) deals its reduced axes
 *    instead when dealing the kept ones would idle ranks (a shared
 *    stream, dist.h): each rank folds its run into partial results,
 *    which combine onto rank 0 in rank order, in an MPI reduction of
 *    log P steps (reducer_combine_ranks), and rank 0 writes them.  A fused pass feeds
 *    a stream that keeps axis 0 whole rows instead (reducer.h).
 */
#ifndef H5UFUNC_REDUCE_H
#define H5UFUNC_REDUCE_H

#include "err.h"
#include "plan.h"

/* Choose S's layout and block size for NRANKS ranks within MEMORY bytes
 * (S's input, loop, reduced axes and output are set).  Errors, at WHERE,
 * when one block does not fit. */
int reduce_layout(struct plan_step *s, int nranks, int64_t memory, const char *where,
		  struct err *e);

/* Run S.  Collective. */
int reduce_run(struct plan_step *s, struct err *e);

#endif
