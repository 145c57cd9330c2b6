/* interrupt.h - stopping a run cleanly when it is asked to stop.
 *
 * SIGTERM, SIGINT, SIGHUP, SIGUSR1 and SIGUSR2 (what batch systems send
 * before the walltime ends, what Ctrl-C sends, what mpirun forwards) do
 * not kill h5ufunc.  The first one is noted, and the next agreement
 * between the ranks (comm_agree, which every loop already makes once per
 * box, and every phase at its end) fails on every rank with "interrupted
 * by SIGTERM", whichever ranks the signal reached: all stop together at
 * their next box, undo what they wrote in existing files (journal.h),
 * remove what they created, and exit 1 with one message.  No element loop
 * ever looks at the flag.  A second signal, or SIGQUIT, ends the process
 * at once, after unlinking its temporary files (tmpfiles.h); what it wrote
 * in place is then rolled back by the next run that opens the file, or by
 * `h5ufunc recover`.
 *
 * Not here: what is undone and what the message says of it (exec.c).
 */
#ifndef H5UFUNC_INTERRUPT_H
#define H5UFUNC_INTERRUPT_H

#include <stdbool.h>

struct err_loc;   /* err.h */

/* Install the handlers (a signal ignored by whoever started us stays
 * ignored) and make comm_agree() report a noted signal; once, when a run
 * starts to write (exec.c).  Before, a signal ends the process as it
 * would any program (Ctrl-C while a recipe is read from a terminal). */
void interrupt_init(void);
/* The signal noted so far, or 0. */
int interrupt_signal(void);
/* "SIGTERM", ... */
const char *interrupt_name(int sig);
/* WHERE (or NULL) is where an interruption noted from now on is reported,
 * pointing at LOC (NULL: nowhere).  Both must live while they are in use. */
void interrupt_where(const char *where, const struct err_loc *loc);
/* While HELD, a noted signal is not reported: the run is past its point
 * of no return and finishes (a second signal still ends it). */
void interrupt_hold(bool held);

#endif
