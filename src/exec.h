/* exec.h - running a validated plan.
 *
 * Opens and creates the plan's files and datasets, hands each step (or the
 * pass it heads) to its driver, elementwise.h, reduce.h or scan.h, which
 * stream its rows block by block (read, cast, compute, cast, write, all
 * collective), prints results that have no out:, then writes the history
 * lines and moves new files under their names.  On failure it
 * removes what the run created, so no new file appears and no temporary
 * file is left; in-place targets written before the failure are named in
 * the message.
 */
#ifndef H5UFUNC_EXEC_H
#define H5UFUNC_EXEC_H

#include "err.h"
#include "plan.h"
#include "report.h"

/* Run P.  HISTORY is the line prepended to each written file's history
 * attribute (the same on every rank), or NULL for none; RO says what to
 * report besides results.  Collective. */
int exec_run(struct plan *p, const char *history, const struct report_options *ro,
	     struct err *e);

#endif
