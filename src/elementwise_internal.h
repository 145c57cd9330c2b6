/* elementwise_internal.h - what elementwise.c (the loop) and
 * elementwise_layout.c (the memory model) share, and nothing else may use:
 * the list of what a run holds (struct buffers), which the layout counts
 * into the budget and the loop allocates, from one function
 * (elementwise_each_buffer, hold.h).
 */
#ifndef H5UFUNC_ELEMENTWISE_INTERNAL_H
#define H5UFUNC_ELEMENTWISE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "dist.h"
#include "elementwise.h"
#include "hold.h"
#include "plan.h"
#include "stage.h"

struct input_buf {
	char *data;                 /* in its dtype */
	char *raw;                  /* scratch to unpack it through (stage_scratch) */
	bool by_box;                /* read box by box; else held whole */
	int64_t dims[H5U_MAXDIM];   /* its extents as it broadcasts, padded to the step's rank */
	int64_t ext[H5U_MAXDIM];    /* its buffer's extents: the whole, or its part of the box */
	int64_t origin[H5U_MAXDIM]; /* where its buffer starts in the step's index space */
};

/* Everything one run of a step holds, allocated before the first box. */
struct buffers {
	int ndim;                        /* the step's rank, at least 1 */
	const struct dist_layout *l;
	int64_t line, box_lines, tile;   /* elements per line; lines per box; lines per
					    tile (of a slice's lines) */
	int64_t slices;                  /* a box is read and computed in this many slices */
	int64_t per_write;               /* ... and written this many slices at a time
					    (elementwise_slices) */
	int64_t bo[H5U_MAXDIM], bc[H5U_MAXDIM];   /* the current box */
	int64_t o[H5U_MAXDIM], c[H5U_MAXDIM];     /* the current slice of it */
	int64_t wo[H5U_MAXDIM], wc[H5U_MAXDIM];   /* what the whole results hold: the
						     slice, or the box */
	struct input_buf in[RECIPE_MAXIN];
	size_t ntmp, nconv;
	char **tmp;                      /* op results, at src_slot: a box or a tile */
	bool *whole_tmp;                 /* ... a box: the step writes or reduces it */
	char **conv;                     /* op j's input k cast to its loop's dtype, at
					    j * RECIPE_MAXIN + k: a tile, or cast whole once */
	bool *faulted;                   /* where= and masks: op j of the step's own
					    program raised a fault in the tile */
	char *outconv[PLAN_MAXOUT];      /* output k cast to its dataset's dtype */
	char *keep[PLAN_MAXOUT];         /* where=: output k's values where it is false:
					    an existing dataset's block, or its fill */
	unsigned char masked[PLAN_MAXOUT][16];   /* masks: output k's fill, in its loop dtype */
	unsigned char fill[PLAN_MAXOUT][16];     /* where=: a new output k's fill, its keep */
	struct reducer *red[PLAN_MAXOUT];
	char *redconv[PLAN_MAXOUT];      /* reduction k's input cast to its loop's dtype */
	int chunked_in;                  /* the input read as its chunks where a box holds
					    them whole (chunk_input), or -1 */
	int64_t chunked_cap;             /* ... the bytes its buffer holds */
	int64_t chunked_band;            /* ... > 0: a band's, not the box's
					    (elementwise_band_bytes) */
	struct stage_chunked chunked;    /* ... the current box so read, when FROM_CHUNKS */
	bool from_chunks;
	bool banded;                     /* ... folded into the reductions as read
					    (reducer_box_bands) */
	char *run;                       /* ... a run of it copied out (reducer_box_chunked) */
	struct hold hold;                /* every buffer above that the run allocated */
};

/* Is op result SRC held for a whole box -- the step writes, shows or
 * reduces it, or it is where= or a mask -- rather than a tile? */
bool elementwise_whole_result(const struct plan_step *s, struct op_src src);
/* The input of S that its boxes may read as its chunks under the budget
 * MEMORY (stage_read_chunks), or -1. */
int elementwise_chunk_input(const struct plan_step *s, int64_t memory);
/* Bytes of the buffer through which S, laid out in bands (its blocks'
 * bands), folds a box of its input K into its reductions a band of chunk
 * columns at a time (reducer_box_bands): what the bands of a box of one
 * chunk row need (reducer_band_bytes); 0 when S's boxes are not so
 * folded, or K is not that input. */
int64_t elementwise_band_bytes(const struct plan_step *s, int k);
/* Every buffer a run of S on NRANKS ranks holds, into H, with B's slots
 * for those the run allocates (B NULL: counting). */
void elementwise_each_buffer(const struct plan_step *s, int nranks, struct buffers *B, struct hold *h);

#endif
