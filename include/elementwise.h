/* elementwise.h - an elementwise step (a ufunc call, an expression, outer,
 * and the passes fusion makes of them): its memory model and its loop.
 *
 * A step is a program of ops (plan_op) over the step's inputs.  Its index
 * space is cut into boxes (dist.h's layout, kept in the step's split) and
 * each rank streams its boxes; within a box the ops run tile by tile, so
 * that what one op hands the next stays in the cache.  A box that holds
 * whole chunk rows is read and computed in the layout's slices of whole
 * chunk columns, which stay in the cache too (elementwise_slices).  Inputs that
 * broadcast are read whole, once, while they take at most an eighth of the
 * budget; the others box by box.  Reductions fused into the step (reduce.h's
 * reducers) are fed each box, which then holds whole rows.
 * elementwise_layout() and elementwise_run() read one list of the buffers a
 * run holds: the one sums it into the budget the boxes are sized by
 * (dist.h), the other allocates it, each buffer at the size the layout
 * says, and asserts that it holds no more than the boxes were sized by.
 */
#ifndef H5UFUNC_ELEMENTWISE_H
#define H5UFUNC_ELEMENTWISE_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "plan.h"

/* Is input K of S read whole (it broadcasts and is small beside the
 * budget) rather than box by box? */
bool elementwise_reads_whole(const struct plan_step *s, int k);
/* The dtype an op source SRC of S holds (an op's result or an input),
 * before any cast. */
enum dtype elementwise_source_dtype(const struct plan_step *s, struct op_src src);
/* Lay out S's boxes for NRANKS ranks within MEMORY bytes: every buffer
 * elementwise_run allocates.  Errors, at WHERE, when the smallest box
 * (dist.h) does not fit. */
int elementwise_layout(struct plan_step *s, int nranks, int64_t memory, const char *where,
		       struct err *e);
/* The slices S's boxes are read and computed in (dist.h; 1: each box
 * whole), and in *PER_WRITE how many are written at a time: 1 when its
 * outputs are in the chunks the slices follow (each slice's results
 * written as it is done), else a band of them or the whole box, the
 * results held at their place in the box's buffers meanwhile. */
int64_t elementwise_slices(const struct plan_step *s, int64_t *per_write);
/* S, an elementwise pass on one process without MPI that writes in place
 * a dataset whose chunk rows its boxes cut and whose chunk cache the
 * budget cannot pay (plan_layout.c), laid out again, when it can be, in
 * boxes that cut the chunks (dist_cut_chunks) walked a chunk column at a
 * time: slice J of every box, then slice J + 1 (the step's by_columns).
 * Each slice is read and written through HDF5 as it is done, so the
 * pieces of one chunk column follow one another through the chunk cache
 * and each chunk is read and written once a pass, where boxes that cross
 * the whole chunk row read and write each chunk whole once a box.  Else
 * S is laid out as elementwise_layout lays it out.  Errors as its. */
int elementwise_by_columns(struct plan_step *s, int64_t memory, const char *where, struct err *e);
/* Does S read its input K whole, or in boxes that hold its chunks whole
 * (each chunk in one box of one rank, and in one slice of it), or in
 * slices each of which is one run of one chunk (boxes that cut the chunks,
 * dist_cut_chunks)? */
bool elementwise_reads_chunks(const struct plan_step *s, int k);
/* Once the files are placed: are S's boxes either whole pieces of the
 * chunk grid, or cut (dist_cut_chunks) with every input S reads by boxes
 * read independently on each rank (its file's read_alone or its own
 * alone), so that each slice is one pread of a rank's own?  Else each
 * slice would be a collective read. */
bool elementwise_cut_read_alone(const struct plan_step *s);
/* S's boxes laid out again as they are without being cut
 * (elementwise_cut_read_alone said no); the same budget and ranks.
 * Errors as elementwise_layout's, at S's step: the files placed since
 * the first layout may have changed what a box holds. */
int elementwise_uncut(struct plan_step *s, struct err *e);
/* Once the files are placed: S, on several ranks, reads its slices of
 * chunks with no collective call when every input it reads by boxes is in
 * a file each rank reads alone (plan_file's read_alone) or a dataset moved
 * alone (array's alone), and its results are written a box at a time or
 * into datasets moved alone; they are then one chunk column each, as on
 * one process (dist_slices_alone). */
void elementwise_slices_alone(struct plan_step *s);
/* Would S, on several ranks and with the files and datasets moved alone
 * as they are now, read or write X (one of its inputs or outputs) in
 * boxes or slices each of whose chunks is one run of the buffer
 * (dist_chunks_in_runs), so that an independent transfer moves a chunk
 * in one call rather than a call a row? */
bool elementwise_moves_runs(const struct plan_step *s, const struct array *x);
/* Run S.  Collective. */
int elementwise_run(struct plan_step *s, struct err *e);

#endif
