/* indexed.h - what the runs of reduceat and at (reduceat.c, at.c) share,
 * beside their planning in indexed.c: the buffers a run holds, allocated
 * one by one as its layout sizes them and freed together, so that the
 * list freed cannot drift from the list allocated.
 *
 * Not here: the planning of the two steps (planner.h), their index arrays
 * (indices.h).
 */
#ifndef H5UFUNC_INDEXED_H
#define H5UFUNC_INDEXED_H

#include <stddef.h>

#include "shape.h"

/* At most: a buffer per index array (at) and a few of the run's own. */
#define INDEXED_BUFFERS (2 * H5U_MAXDIM)

struct indexed_buffers {
	void *p[INDEXED_BUFFERS];
	int n;
};

/* BYTES from the heap (stage_alloc: never NULL), kept in B; NULL, and
 * nothing kept, for none. */
void *indexed_alloc(struct indexed_buffers *b, size_t bytes);

/* Free every buffer of B; B is empty again. */
void indexed_free(struct indexed_buffers *b);

#endif
