/* report.h - what a run tells the user besides its results: the progress
 * meter on stderr and the --json run summary on stdout (and check's
 * --json plan, in the summary's form).
 *
 * exec.c and stage.c call the hooks; this module keeps the counts and does
 * the printing (rank 0 only, once).  It never changes what a run computes.
 */
#ifndef H5UFUNC_REPORT_H
#define H5UFUNC_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "plan.h"

struct report_options {
	bool progress;      /* draw the meter on stderr */
	bool json;          /* print the summary as JSON on stdout at the end */
	int64_t memory;     /* the --memory budget, for the summary */
};

/* Start a run of P.  Collective (totals may be agreed between ranks). */
void report_begin(const struct plan *p, const struct report_options *o);
/* Step S starts / ends (every rank calls, in step order). */
void report_step_begin(const struct plan_step *s);
void report_step_end(const struct plan_step *s);
/* This rank moved ELEMENTS of dataset data, of SIZE bytes each (called by
 * stage.c for every read and write). */
void report_read(int64_t elements, int64_t size);
void report_written(int64_t elements, int64_t size);
/* ELEMENTS this rank has just read again for results it computes once
 * (a shared scan's first walk): their bytes count as read, the elements
 * not as computed twice. */
void report_read_again(int64_t elements);
/* ELEMENTS of every output of the running step that this rank wrote
 * masked: where= false, or a masked result (--json's "masked"). */
void report_masked(int64_t elements);
/* A printed result of step STEP (1-based), its K-th output X: with --json
 * it is kept for the summary (under "result") instead of printed as text.
 * Returns true when the report took it, false when the caller prints it
 * as text.  MASK as print_json takes it. */
bool report_result(int step, int k, const struct array *x, const void *data,
		   const uint8_t *mask);
/* The run has written everything and not yet committed: print the
 * --json summary (rank 0) and see it reach standard output, so that a
 * summary that cannot be written (a full disk) fails the run before its
 * files are committed: E's error (EXIT_RUN, "standard output"), agreed.
 * Nothing without --json.  Collective. */
int report_summary(struct err *e);
/* The run ended (after report_summary, or after a failure).  Local. */
void report_end(void);

/* check --json: P (planned for MEMORY bytes a rank) as one JSON object on
 * F, the run summary's members that a plan knows (h5ufunc(1), JSON
 * OUTPUT), each step with its line of `h5ufunc check` as "plan". */
void report_plan(const struct plan *p, int64_t memory, FILE *f);

#endif
