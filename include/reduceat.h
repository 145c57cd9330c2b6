/* reduceat.h - np.UFUNC.reduceat along any axis, with NumPy's bits for
 * every ufunc, every number of ranks and every --memory.
 *
 * NumPy folds each segment with one call of the ufunc's reduce loop: the
 * segment's first element is copied into the result and the rest folded
 * onto it in that call, whose loop may group them its own way (a float
 * add sums pairwise; float16's add, subtract, multiply and divide fold in
 * float32).  Where indices[i] >= indices[i+1] the result is the element
 * at indices[i]; the last segment runs to the end.  A result depends on
 * its segment alone, so h5ufunc computes each one whole, on one rank, with
 * that same call: the work is split between segments and across the other
 * axes, never inside a segment.
 *
 * Blocks: the axis is read in blocks of block_rows rows (across one box
 * of the other axes), long enough for the longest segment when the budget
 * allows; a block is read from the first row a segment needs that the
 * last one did not hold, so consecutive segments read each row once.  A
 * segment longer than a block is streamed: its fold is carried from block
 * to block, in the loop's dtype for a fold that is sequential in it, in
 * float32 for float16's, and for a pairwise sum by NumPy's own tree
 * (halves of the reals rounded down to multiples of 8, blocks of at most
 * 128 reals summed by the loop) with the partial sums of the open
 * branches kept, so the bits are the single call's.
 *
 * Ranks: the boxes of the other axes are dealt to the ranks; when that
 * leaves ranks idle (a 1-d input, an (N, 3) one) the segments are dealt
 * instead, in contiguous runs of about equal rows.  Each batch of
 * results is written with one collective call.
 *
 * Masked mode (numpy.ma has no reduceat): each segment as numpy.ma reduces
 * it -- masked elements fold as numpy.ma's fill (the identity, or the
 * extreme maximum and minimum skip), a segment without a valid element is
 * masked -- in reduceat's order (np.UFUNC.reduceat of the filled data).
 * NumPy's reduceat has no where=.
 */
#ifndef H5UFUNC_REDUCEAT_H
#define H5UFUNC_REDUCEAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dist.h"
#include "err.h"
#include "plan.h"

/* How a segment longer than a block is folded. */
enum reduceat_stream {
	STREAM_SEQUENTIAL,   /* the loop, block after block onto one accumulator */
	STREAM_PAIRWISE      /* NumPy's pairwise tree, partial sums carried */
};

struct reduceat_plan {
	int axis;
	int64_t nseg;               /* segments: the result's extent along the axis */
	int64_t extent;             /* rows of the input along the axis */
	const int64_t *start;       /* their first rows (NumPy's indices) */
	int64_t longest;            /* rows of the longest segment */
	/* the layout (reduceat_layout) */
	int64_t block_rows;         /* rows along the axis a block holds */
	int64_t batch;              /* segments written by one call */
	enum reduceat_stream stream;
	enum dtype wide;            /* the dtype a streamed fold runs in */
	const struct ufunc_loop *wide_loop;   /* ... the ufunc's loop in it */
	int depth;                  /* STREAM_PAIRWISE: partial sums held ... */
	int64_t pairwise_block;     /* ... and the most elements one block sums */
	bool by_segments;           /* segments dealt to the ranks (else the boxes) */
	struct dist_layout across;  /* boxes of the other axes */
};

/* S's segments from its indices, STARTS (N of them, checked), over an
 * axis of EXTENT rows. */
void reduceat_segments(struct reduceat_plan *r, const int64_t *starts, int64_t n, int64_t extent);

/* Lay out S's blocks and boxes for NRANKS ranks within MEMORY bytes.
 * Errors (EXIT_USAGE, at WHERE) when a block of the smallest useful size
 * does not fit, or for a masked fold numpy.ma has no fill for. */
int reduceat_layout(struct plan_step *s, int nranks, int64_t memory, const char *where,
		    struct err *e);

/* Run S.  Collective. */
int reduceat_run(struct plan_step *s, struct err *e);

/* S's layout in words, for `h5ufunc check`: the rest of its plan line. */
void reduceat_print(const struct plan_step *s, FILE *f);

#endif
