/* scan.h - np.UFUNC.accumulate along any axis.
 *
 * A stream (dist.h): the space across the axis (the input's shape without
 * it) is cut into boxes and dealt to the ranks as an elementwise pass is;
 * each rank goes along the axis through each of its boxes in blocks and
 * carries a block's last slice into the next, so every element is NumPy's
 * sequential result whatever the ranks, blocks and row widths; a 1-D scan
 * is one rank's.  Blocks and boxes follow the input's chunks.
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
