/* reduce.h - np.UFUNC.reduce over any axes, the split one included, with
 * results that do not depend on the number of ranks or on --memory.
 *
 * Three layouts, chosen from the shape alone:
 *  - REDUCE_TREE: a reorderable ufunc whose reduced axes follow its m kept
 *    leading axes (m = 0 for all axes; at least the axis after them too,
 *    or the last).  Each index of the kept leading axes is a group; the
 *    input falls in fixed pieces of at most 1024 elements (at least one
 *    line of the piece axis), each folded in order, and a group's pieces
 *    combine by a binary tree over their positions in it, so the grouping
 *    is the same whatever the ranks, boxes and budget.  The pieces are
 *    laid out in boxes (dist_layout_units); a group split between ranks
 *    is finished by rank 0 in rank order.
 *  - REDUCE_ROWS (axis 0 kept) and REDUCE_COLUMNS (axis 0 reduced)
 *    otherwise: a sequential fold, streamed as a scan is (dist_stream_make):
 *    boxes across the kept axes dealt to the ranks, each walked along the
 *    reduced axes in C order with its accumulators carried from block to
 *    block, so each result is NumPy's fold in NumPy's order (exact for
 *    non-reorderable ufuncs too).  A reduced last axis is one loop call
 *    that a reorderable ufunc (add sums pairwise) or a float16 one (in
 *    float32) folds its own way, so it is cut only for the others.  A 1-D
 *    non-reorderable reduction is one rank's sequential fold.  A fused
 *    pass feeds a REDUCE_ROWS reducer whole rows instead (reducer_box).
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

/* Bytes a reducer of S holds whatever its block: a tree's partial results. */
int64_t reduce_fixed_bytes(const struct plan_step *s);

/* Run S.  Collective. */
int reduce_run(struct plan_step *s, struct err *e);

/* A REDUCE_ROWS or REDUCE_TREE reduction fed box by box by an elementwise
 * stage that S was fused into, over S's input space: boxes of whole rows
 * (REDUCE_ROWS) or of whole pieces (REDUCE_TREE), which a pass whose split
 * axis is at most reducer_max_axis(S) makes.  Every rank creates one;
 * BOX_ELEMS is the most elements one box holds. */
struct reducer *reducer_new(struct plan_step *s, int64_t box_elems);
void reducer_free(struct reducer *r);
/* The last split axis of a pass whose boxes S can take: rows (0) for
 * REDUCE_ROWS, the axis before its piece axis for a tree (the piece axis
 * itself when a piece is one line of it); -1 for none (REDUCE_COLUMNS, or
 * pieces of rows). */
int reducer_max_axis(const struct plan_step *s);
/* Fold the box START/COUNT of the input (DATA, C-contiguous, in the
 * loop's dtype). */
void reducer_box(struct reducer *r, char *data, const int64_t *start, const int64_t *count);
/* Collective, after every reducer_box: writes what the box finished (the
 * rows of REDUCE_ROWS, the groups of a tree with kept leading axes; a tree
 * without them writes at the end). */
int reducer_write_box(struct reducer *r, const int64_t *start, const int64_t *count, struct err *e);
/* Collective, at the end: REDUCE_TREE finishes the groups split between
 * ranks on rank 0 and writes them. */
int reducer_finish(struct reducer *r, struct err *e);

#endif
