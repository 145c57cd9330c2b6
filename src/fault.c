/* fault.c - faults injected for the tests at named points of a run; see
 * journal_fault in journal.h. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "journal.h"

/* For the tests (journal.h): H5UFUNC_FAULT=ACTION-POINT:RANK:N makes rank RANK raise
 * SIGKILL (ACTION kill), SIGTERM (term) or SIGSTOP (stop: held there for a
 * signal from outside), or fail as a full disk would
 * (fail: true is returned, and the caller fails with ENOSPC), at the Nth
 * time it reaches POINT: "save" (a write into a journaled file, before its
 * old bytes are saved), "write" (the same, its old bytes saved, the write
 * not begun), "commit"
 * (every rank's data durable, the master still there), "committed" (the
 * master gone, the ranks' journals not yet), "rollback" (before the old
 * bytes go back), "replay" (after the Nth range put back; fail: as an I/O
 * error would), "sources" (every virtual dataset's sources linked under
 * their names, no new file renamed yet; exec.c), "renamed" (the new files
 * renamed, the sources' temporary names still there).  Values of the
 * form KIND:RANK:N are fault_call's. */
bool journal_fault(const char *point, long long n)
{
	static int parsed;   /* 0 not yet, 1 a fault of ours, -1 none */
	static char action[8], where[16];
	static int rank;
	static long long nth;
	if (!parsed) {
		const char *spec = getenv("H5UFUNC_FAULT");
		parsed = spec && sscanf(spec, "%7[a-z]-%15[a-z]:%d:%lld", action, where, &rank, &nth) == 4
			 ? 1 : -1;
	}
	if (parsed < 0 || n != nth || strcmp(point, where) || rank != comm_rank())
		return false;
	if (!strcmp(action, "kill"))
		raise(SIGKILL);
	else if (!strcmp(action, "term"))
		raise(SIGTERM);
	else if (!strcmp(action, "stop"))
		raise(SIGSTOP);
	return !strcmp(action, "fail");
}

/* H5UFUNC_FAULT=KIND:RANK:N, KIND one of h5io_box.c's transfers (journal.h):
 * is this call of KIND the Nth on rank RANK?  Read once, at the first call. */
bool fault_call(const char *kind)
{
	static int parsed;   /* 0 not yet, 1 a fault of ours, -1 none */
	static char on[8];
	static int rank, nth, calls;
	if (!parsed) {
		const char *spec = getenv("H5UFUNC_FAULT");
		parsed = spec && sscanf(spec, "%7[a-z]:%d:%d", on, &rank, &nth) == 3 &&
			 (!strcmp(on, "read") || !strcmp(on, "write") || !strcmp(on, "leave")) ? 1 : -1;
	}
	return parsed > 0 && !strcmp(kind, on) && ++calls == nth && rank == comm_rank();
}
