/* tmpfiles.c - unguessable temporary names, removed on signals; see tmpfiles.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "comm.h"
#include "tmpfiles.h"

/* The test suite's way to know the names in advance (to plant links under
 * them): H5UFUNC_TEST_TOKEN=HEX makes draw N "HEX" (up to 30 digits)
 * followed by N as two hex digits.  Not a user's setting. */
static int test_token(char *out, int draw)
{
	const char *seed = getenv("H5UFUNC_TEST_TOKEN");
	if (!seed || !*seed)
		return -1;
	snprintf(out, TMPFILES_TOKEN_LEN + 1, "%.*s%02x", TMPFILES_TOKEN_LEN - 2, seed, draw & 0xff);
	return 0;
}

int tmpfiles_token(char *out, struct err *e)
{
	static int draws;
	char token[TMPFILES_TOKEN_LEN + 1] = "";
	int failure = 0;
	if (comm_rank() == 0 && test_token(token, draws) < 0) {
		unsigned char bytes[TMPFILES_TOKEN_LEN / 2];
		size_t got = 0;
		while (got < sizeof bytes) {
			ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
			if (n < 0 && errno != EINTR) {
				failure = errno;
				break;
			}
			got += n > 0 ? (size_t)n : 0;
		}
		for (size_t i = 0; i < sizeof bytes && !failure; i++)
			snprintf(token + 2 * i, 3, "%02x", bytes[i]);
	}
	draws++;
	comm_bcast(&failure, sizeof failure);
	if (failure)
		return err_set(e, EXIT_RUN, "temporary files", "cannot draw a random name: %s",
			       strerror(failure));
	comm_bcast(token, sizeof token);
	memcpy(out, token, sizeof token);
	return 0;
}

int tmpfiles_name(char *out, size_t len, const char *dir, const char *base, const char *token)
{
	int n = base ? snprintf(out, len, "%s/.%s.h5ufunc-%s.tmp", dir, base, token)
		     : snprintf(out, len, "%s/.h5ufunc-scratch-%s.h5", dir, token);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* ---- removal on signals ------------------------------------------------ */

#define MAX_GUARDED 64
#define GUARD_PATH 4096

static char guarded[MAX_GUARDED][GUARD_PATH];
static volatile sig_atomic_t in_use[MAX_GUARDED];

/* Async-signal-safe: unlink alone. */
static void remove_guarded(void)
{
	for (int i = 0; i < MAX_GUARDED; i++)
		if (in_use[i])
			unlink(guarded[i]);
}

static void on_signal(int sig)
{
	remove_guarded();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_handlers(void)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT };
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigfillset(&sa.sa_mask);   /* one handler at a time */
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old;
		/* A signal ignored by whoever started us stays ignored. */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

int tmpfiles_guard(const char *path)
{
	static bool installed;
	if (strlen(path) >= GUARD_PATH)
		return -1;
	if (!installed) {
		install_handlers();
		/* And on an exit that is not h5ufunc's own: Open MPI ends a
		 * rank with exit() when its launcher goes away (mpirun killed
		 * while it tears the job down), without a signal. */
		atexit(remove_guarded);
		installed = true;
	}
	for (int i = 0; i < MAX_GUARDED; i++)
		if (!in_use[i]) {
			memcpy(guarded[i], path, strlen(path) + 1);
			in_use[i] = 1;
			return 0;
		}
	return -1;
}

void tmpfiles_forget(const char *path)
{
	for (int i = 0; i < MAX_GUARDED; i++)
		if (in_use[i] && !strcmp(guarded[i], path))
			in_use[i] = 0;
}
