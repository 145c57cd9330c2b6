/* interrupt.c - signals noted, and reported at the next agreement; see
 * interrupt.h. */
#include <signal.h>
#include <string.h>

#include "comm.h"
#include "interrupt.h"
#include "tmpfiles.h"

static volatile sig_atomic_t noted;
static bool held;
static const char *where;
static const struct err_loc *place;

static const struct {
	int sig;
	const char *name;
} stoppers[] = {
	{ SIGTERM, "SIGTERM" }, { SIGINT, "SIGINT" }, { SIGHUP, "SIGHUP" },
	{ SIGUSR1, "SIGUSR1" }, { SIGUSR2, "SIGUSR2" }, { SIGQUIT, "SIGQUIT" },
};

const char *interrupt_name(int sig)
{
	for (size_t i = 0; i < sizeof stoppers / sizeof stoppers[0]; i++)
		if (stoppers[i].sig == sig)
			return stoppers[i].name;
	return "a signal";
}

/* Async-signal-safe.  The first stop is noted; a second one, or SIGQUIT,
 * removes the temporary files and dies of the signal. */
static void on_signal(int sig)
{
	if (!noted && sig != SIGQUIT) {
		noted = sig;
		return;
	}
	tmpfiles_remove_guarded();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* comm_agree's check: a noted signal fails the agreement. */
static void report_noted(struct err *e)
{
	if (noted && !held && !e->status)
		err_set_at(e, EXIT_RUN, place, where, "interrupted by %s", interrupt_name(noted));
}

void interrupt_init(void)
{
	static bool installed;
	if (installed)
		return;
	installed = true;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;   /* I/O goes on; the flag is read between boxes */
	sigfillset(&sa.sa_mask);    /* one handler at a time */
	for (size_t i = 0; i < sizeof stoppers / sizeof stoppers[0]; i++) {
		struct sigaction old;
		if (sigaction(stoppers[i].sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(stoppers[i].sig, &sa, NULL);
	}
	comm_on_agree(report_noted);
}

int interrupt_signal(void) { return noted; }
void interrupt_where(const char *w, const struct err_loc *loc)
{
	where = w;
	place = loc;
}
void interrupt_hold(bool h) { held = h; }
