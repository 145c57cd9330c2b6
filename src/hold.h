/* hold.h - the buffers a pass holds, listed once for its sizing and its
 * allocation.
 *
 * A pass names every buffer it holds in one function, its list, which
 * runs twice: counting (hold_count), before the pass's boxes are sized,
 * when each buffer is summed into the budget they are sized by (dist.h's
 * struct dist_cost); and allocating (hold_layout, hold_stream), over the
 * layout that budget sized, when each buffer is allocated as large as the
 * layout's boxes make it.  What a run holds and what its boxes were sized
 * by then cannot disagree, and hold_end asserts that they do not.
 *
 * A buffer grows with the box as dist.h's enum dist_hold says, by BYTES
 * (whole, or an element's), and has a slot: the address of the pointer
 * the run keeps it in (of any object pointer type), or NULL -- counting,
 * or a buffer held for the run elsewhere (by stage.c, HDF5), which counts
 * but is not allocated here.
 *
 * Not here: the sizing itself (dist.c); what a pass keeps in its buffers.
 */
#ifndef H5UFUNC_HOLD_H
#define H5UFUNC_HOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dist.h"

struct hold {
	struct dist_cost *cost;        /* counting: what each buffer is added to */
	int64_t elems[DIST_HOLDS];     /* allocating: a buffer's elements, by how it grows */
	bool fits[DIST_HOLDS];         /* ... and whether its layout or stream has such buffers */
	int64_t held, counted;         /* bytes of the buffers listed; bytes the boxes were sized by */
	int64_t memory;                /* the budget (--memory) they are held within */
	void **owned;                  /* the buffers allocated, freed by hold_free */
	size_t nowned;
};

/* The slot of field F of R, or NULL without an R (counting). */
#define HOLD_SLOT(R, f) ((R) ? (void *)&(R)->f : NULL)

/* Start H counting: each buffer listed is added to C. */
void hold_count(struct hold *h, struct dist_cost *c);
/* Start H allocating over the layout L, or the stream S, each sized by the
 * cost that counting H made. */
void hold_layout(struct hold *h, const struct dist_layout *l);
void hold_stream(struct hold *h, const struct dist_stream *s);

/* The budget H's buffers are held within, counting or allocating: a list
 * may choose its buffers by it (the same choice both times). */
int64_t hold_memory(const struct hold *h);
/* Is H counting (its list's slots are NULL)? */
bool hold_counting(const struct hold *h);

/* A buffer that grows HOW, BYTES whole or an element: counted, or
 * allocated (stage_alloc: never NULL, at least one byte) into *SLOT when
 * SLOT is not NULL and BYTES is not 0 (else *SLOT is NULL).  A buffer of
 * BYTES an element grows as the layout or stream H allocates over grows
 * such buffers: a layout has none across, a stream no tile (dist.h; an
 * assertion). */
void hold_buffer(struct hold *h, enum dist_hold how, int64_t bytes, void *slot);

/* N buffers of a box's results, BYTES[i] a result, into SLOTS[i] (each as
 * hold_buffer's SLOT): a result for every GROUP elements of a box
 * (DIST_PER_ELEM; GROUP < 1: one an element), and EXTRA more.  Counted
 * together: EXTRA results of each whole, and their bytes over GROUP an
 * element, below a byte too (dist_cost_hold_per).  Returns the results each holds (0 counting). */
int64_t hold_results(struct hold *h, int64_t group, int64_t extra, int n, const int64_t *bytes,
		     void *const *slots);

/* The list is done: what an allocating H holds is within what its boxes
 * were sized by (an assertion: a list that differs between its two runs
 * is a bug). */
void hold_end(const struct hold *h);

/* Free every buffer H allocated; free(NULL)-like for a counting H. */
void hold_free(struct hold *h);

#endif
