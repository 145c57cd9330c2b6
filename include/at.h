/* at.h - np.UFUNC.at: unbuffered, in place into a dataset, the same bits
 * as NumPy's for every number of ranks.
 *
 * The updates are the positions of the index space, in C order: the
 * index arrays (one per leading axis of the target, as many as it has
 * axes or fewer) broadcast together, followed by the target's axes that
 * no index array names, whole (NumPy's a[indices] of shape
 * lead + trailing).  Update p applies the ufunc to the target element
 * that the indices at p name (a negative index counted from the end;
 * along a trailing axis, p's own coordinate) and to b at p (b broadcast
 * over the index space; a unary ufunc takes none), and stores the
 * result, cast to the target's dtype, before update p + 1 reads it.  An
 * element named twice is updated twice, in that order.
 *
 * The target is cut into boxes (dist.h), each rank holding one box of it
 * at a time; a target larger than the ranks' memory is done in passes,
 * a box per rank each.  In a pass the updates stream through in rounds:
 * round g is the update boxes g*P .. g*P + P - 1, one per rank, in C
 * order, so a round precedes the next and in a round rank r's updates
 * precede rank r + 1's.  Each rank reads its update box (indices and b),
 * works out which rank holds each target element, and sends every update
 * there, in its order, with MPI_Alltoallv; the rank that holds the element
 * applies what it receives in rank order.  So every element sees its
 * updates in NumPy's order whatever the ranks.  Each pass writes each
 * target box once.  A round moves at most P update boxes, whatever the
 * skew of the indices, so the buffers are bounded by --memory.
 *
 * Indices are checked before the run (indices.h), and an index dataset
 * that an earlier step of the run writes is checked when the step starts:
 * an index out of range never leaves the target half updated (exit
 * status 2, or 1 for one an earlier step wrote).
 */
#ifndef H5UFUNC_AT_H
#define H5UFUNC_AT_H

#include <stdint.h>
#include <stdio.h>

#include "dist.h"
#include "err.h"
#include "indices.h"
#include "plan.h"

struct at_plan {
	int nidx;                           /* index arrays: one per leading axis of the target */
	struct index_array idx[H5U_MAXDIM];
	struct shape lead;                  /* the shape they broadcast to */
	struct shape space;                 /* the index space: LEAD, then the target's other axes */
	bool literal_b;                     /* b is a number (or absent): one value */
	bool keep_nan;                      /* missing: mask-nan: the target's NaNs stay too */
	/* the layout (at_layout) */
	struct dist_layout target;          /* boxes of the target, a box per rank per pass */
	struct dist_layout updates;         /* boxes of the index space, for one rank */
	int64_t passes;
	int64_t memory;                     /* the budget (index datasets checked while running) */
};

/* Lay out S for NRANKS ranks within MEMORY bytes.  Errors (EXIT_USAGE, at
 * WHERE) when the smallest target box and update box do not fit. */
int at_layout(struct plan_step *s, int nranks, int64_t memory, const char *where, struct err *e);

/* Run S.  Collective. */
int at_run(struct plan_step *s, struct err *e);

/* S's layout in words, for `h5ufunc check`: the rest of its plan line. */
void at_print(const struct plan_step *s, FILE *f);

#endif
