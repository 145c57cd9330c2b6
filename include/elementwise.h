/* elementwise.h - an elementwise step (a ufunc call, an expression, outer,
 * and the passes fusion makes of them): its memory model and its loop.
 *
 * A step is a program of ops (plan_op) over the step's inputs.  Each rank
 * streams its rows (dist.h) in blocks of rows_per_block rows; within a
 * block the ops run tile by tile, so that what one op hands the next stays
 * in the cache.  Inputs that broadcast along the rows are read whole, once;
 * the others block by block.  Reductions fused into the step (reduce.h's
 * reducers) are fed each block.  elementwise_layout() and elementwise_run()
 * count the same buffers: the one decides the block size that the other
 * allocates.
 */
#ifndef H5UFUNC_ELEMENTWISE_H
#define H5UFUNC_ELEMENTWISE_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "plan.h"

/* Is input K of S read whole (it broadcasts along the rows) rather than by
 * rows? */
bool elementwise_reads_whole(const struct plan_step *s, int k);
/* The dtype an op source SRC of S holds (OP_REF of an op's output, or
 * -1 - k for input k), before any cast. */
enum dtype elementwise_source_dtype(const struct plan_step *s, int src);
/* Size S's blocks for NRANKS ranks within MEMORY bytes: every buffer
 * elementwise_run allocates.  Errors, at WHERE, when one row of every array
 * does not fit. */
int elementwise_layout(struct plan_step *s, int nranks, int64_t memory, const char *where,
		       struct err *e);
/* Run S.  Collective. */
int elementwise_run(struct plan_step *s, struct err *e);

#endif
