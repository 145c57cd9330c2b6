/* replay.h - a file's old bytes put back from its journals (journal.h):
 * the rollback of a run that failed or was stopped, and the recovery of
 * what a dead run left, which the next run that opens the file does first
 * (files.c), and `h5ufunc recover` on demand (cmd_recover.c).
 *
 * The records of every rank's journal are put back in descending sequence
 * (journal.h says why), then the file is cut back to its old size and made
 * durable, and only then are the journals removed: the master first, and
 * durably.  Putting back is idempotent, so a replay that is itself stopped
 * is simply done again.  A journal whose run still holds it is never
 * touched.
 */
#ifndef H5UFUNC_REPLAY_H
#define H5UFUNC_REPLAY_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/* What recovery found beside a file, and did. */
struct replay_report {
	bool found;            /* an unfinished run's master journal */
	bool live;             /* ... whose run still holds it: nothing done */
	bool file_gone;        /* ... of a file that is no longer there */
	bool done;             /* ... and it was rolled back */
	long long started;     /* when that run began (seconds since the epoch) */
	int nranks;            /* its ranks */
	long long records;     /* saved ranges put back */
	long long bytes;       /* ... their bytes */
	unsigned long long size;   /* the file's size before that run */
};

/* Roll PATH back from its master journal MASTER, open as MASTER_FD and
 * held by the caller, and the ranks' journals beside it; fill R.  0, or -1
 * with the reason in WHY (LEN bytes), the journals left as they were. */
int replay_file(int master_fd, const char *path, const char *master, struct replay_report *r,
		char *why, size_t len);

/* This rank alone: fill R with the unfinished run's journal beside PATH,
 * if any.  Changes nothing. */
void replay_look(const char *path, struct replay_report *r);
/* This rank alone: roll back what a dead run left in PATH (DISPLAY: as
 * the user named it), filling R (R->found false: nothing to do).  -1 with
 * E set when a live run holds the journal (status 2) or the rollback fails
 * (STATUS). */
int replay_recover(const char *path, const char *display, const char *where, int status,
		   struct replay_report *r, struct err *e);
/* Collective: rank 0 recovers PATH (RECOVER) or only looks; R as it
 * found it on every rank.  A live run's journal is an error (status 2). */
int replay_settle(const char *path, const char *display, bool recover, const char *where,
		  struct replay_report *r, struct err *e);
/* What R says, in words for DISPLAY (the file as the user named it). */
void replay_describe(const struct replay_report *r, const char *display, char *buf, size_t len);

#endif
