/* scan.h - np.UFUNC.accumulate along any axis, the split one included.
 *
 * Along an axis other than 0, each rank scans its own rows, in tiles of rows
 * small enough to stay in cache.  Along axis 0 the ranks split axis 1 and
 * each carries the last row of a block into the next, so every element is
 * NumPy's sequential result whatever the ranks and blocks; a 1-D scan is
 * one rank's.
 */
#ifndef H5UFUNC_SCAN_H
#define H5UFUNC_SCAN_H

#include "err.h"
#include "plan.h"

/* Size S's blocks for NRANKS ranks within MEMORY bytes. */
int scan_layout(struct plan_step *s, int nranks, int64_t memory, const char *where,
		struct err *e);
/* Run S.  Collective. */
int scan_run(struct plan_step *s, struct err *e);

#endif
