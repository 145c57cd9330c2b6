/* scan.h - np.UFUNC.accumulate along any axis.
 *
 * A stream (dist.h): the space across the axis (the input's shape without
 * it) is cut into boxes and dealt to the ranks as an elementwise pass is;
 * each rank goes along the axis through each of its boxes in blocks and
 * carries a block's last slice into the next, so every element is NumPy's
 * sequential result whatever the ranks, blocks and row widths.  Blocks
 * and boxes follow the input's chunks.  A fold exact in any grouping
 * (ufunc_fold_exact) whose boxes across would idle ranks (an (N, 3) array
 * along axis 0, a 1-D one) is a shared stream instead: the axis is dealt
 * in contiguous runs, each rank folds its run into totals, the totals of
 * the ranks before it combine in rank order into its carry-in (an
 * exclusive scan, reducer_carry_in), and it scans its run again from
 * there, writing.  Other folds keep NumPy's order on the ranks the boxes
 * across allow; a 1-D one is one rank's.
 */
#ifndef H5UFUNC_SCAN_H
#define H5UFUNC_SCAN_H

#include "err.h"
#include "plan.h"

/* Lay out S's boxes and blocks for NRANKS ranks within MEMORY bytes. */
int scan_layout(struct plan_step *s, int nranks, int64_t memory, const char *where,
		struct err *e);
/* Run S.  Collective. */
int scan_run(struct plan_step *s, struct err *e);

#endif
