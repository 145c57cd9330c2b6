/* tmpfiles.c - unguessable temporary names, removed when the run is
 * stopped, held by locks, and swept away when a dead run left them; see
 * tmpfiles.h. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
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

int tmpfiles_journal_name(char *out, size_t len, const char *dir, const char *base,
			  const char *token, int rank)
{
	int n = !token ? snprintf(out, len, "%s/.%s.h5ufunc-journal", dir, base)
	      : rank < 0 ? snprintf(out, len, "%s/.%s.h5ufunc-journal.%s.new", dir, base, token)
	      : snprintf(out, len, "%s/.%s.h5ufunc-journal.%s.%d", dir, base, token, rank);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* ---- ownership: locks ---------------------------------------------------- */

static int hold_lock(int fd, short type)
{
	struct flock l = { .l_type = type, .l_whence = SEEK_SET, .l_start = TMPFILES_HOLD_AT, .l_len = 1 };
	return fcntl(fd, F_OFD_SETLK, &l);
}

/* Errors that say the file system keeps no locks at all. */
static bool no_locks(int err)
{
	return err == ENOLCK || err == ENOSYS || err == EOPNOTSUPP || err == EINVAL;
}

int tmpfiles_hold(int fd)
{
	return hold_lock(fd, F_RDLCK);
}

int tmpfiles_unowned(int fd)
{
	if (hold_lock(fd, F_WRLCK) == 0)
		return 1;
	return errno == EAGAIN || errno == EACCES ? 0 : -1;
}

bool tmpfiles_held(int fd)
{
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = TMPFILES_HOLD_AT, .l_len = 1 };
	return fcntl(fd, F_OFD_GETLK, &l) == 0 && l.l_type != F_UNLCK;
}

bool tmpfiles_same(int fd, const char *path)
{
	struct stat a, b;
	return fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* Open PATH (a file this run has just created) and hold it.  Where a lock
 * is refused because this very process holds the file already -- HDF5's
 * own flock, which NFS turns into a lock of the whole file -- that lock
 * holds it for us.  On a file system without locks nothing can hold it,
 * and nothing can sweep it either.  The descriptor, or -1. */
static int hold_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	bool held = tmpfiles_hold(fd) == 0 || no_locks(errno);
	if (!held && errno == EAGAIN) {
		struct flock l = { .l_type = F_RDLCK, .l_whence = SEEK_SET,
				   .l_start = TMPFILES_HOLD_AT, .l_len = 1 };
		held = fcntl(fd, F_OFD_GETLK, &l) == 0 && l.l_type != F_UNLCK && l.l_pid == getpid();
	}
	if (!held || !tmpfiles_same(fd, path)) {   /* swept away before we held it */
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- removal when the run is stopped ----------------------------------- */

#define MAX_GUARDED 64
#define GUARD_PATH 4096

static char guarded[MAX_GUARDED][GUARD_PATH];
static int held_fd[MAX_GUARDED];
static volatile sig_atomic_t in_use[MAX_GUARDED];

/* Async-signal-safe: unlink alone. */
void tmpfiles_remove_guarded(void)
{
	for (int i = 0; i < MAX_GUARDED; i++)
		if (in_use[i])
			unlink(guarded[i]);
}

int tmpfiles_guard(const char *path, bool hold)
{
	static bool at_exit;
	if (strlen(path) >= GUARD_PATH)
		return -1;
	if (!at_exit) {
		/* An exit that is not h5ufunc's own: Open MPI ends a rank with
		 * exit() when its launcher goes away (mpirun killed while it
		 * tears the job down), without a signal. */
		atexit(tmpfiles_remove_guarded);
		at_exit = true;
	}
	int fd = -1;
	if (hold && (fd = hold_path(path)) < 0)
		return -1;
	for (int i = 0; i < MAX_GUARDED; i++)
		if (!in_use[i]) {
			memcpy(guarded[i], path, strlen(path) + 1);
			held_fd[i] = fd;
			in_use[i] = 1;
			return 0;
		}
	if (fd >= 0)
		close(fd);
	return -1;
}

void tmpfiles_forget(const char *path)
{
	for (int i = 0; i < MAX_GUARDED; i++)
		if (in_use[i] && !strcmp(guarded[i], path)) {
			in_use[i] = 0;
			if (held_fd[i] >= 0)
				close(held_fd[i]);
			held_fd[i] = -1;
		}
}

/* ---- what dead runs left ------------------------------------------------- */

enum kind { KIND_NONE, KIND_TEMPORARY, KIND_RANK_JOURNAL };

static bool token_at(const char *s)
{
	for (int i = 0; i < TMPFILES_TOKEN_LEN; i++)
		if (!isalnum((unsigned char)s[i]))
			return false;
	return true;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* Which of our kinds the base name NAME is.  A rank's journal is kept
 * while its master is there, whose base name goes into MASTER. */
static enum kind kind_of(const char *name, char *master, size_t len)
{
	static const char scratch[] = ".h5ufunc-scratch-", tmp[] = ".h5ufunc-",
			  journal[] = ".h5ufunc-journal.";
	const size_t T = TMPFILES_TOKEN_LEN, n = strlen(name);
	const size_t ls = sizeof scratch - 1, lt = sizeof tmp - 1, lj = sizeof journal - 1;
	if (name[0] != '.')
		return KIND_NONE;
	if (n == ls + T + 3 && !strncmp(name, scratch, ls) && token_at(name + ls) &&
	    !strcmp(name + n - 3, ".h5"))
		return KIND_TEMPORARY;
	if (n >= 2 + lt + T + 4 && !strcmp(name + n - 4, ".tmp") && token_at(name + n - 4 - T) &&
	    !strncmp(name + n - 4 - T - lt, tmp, lt))
		return KIND_TEMPORARY;
	const char *dot = strrchr(name, '.');
	size_t at = (size_t)(dot - name);   /* ".BASE.h5ufunc-journal.TOKEN" then ".SUFFIX" */
	if (at < 2 + lj + T || name[at - T - 1] != '.' || !token_at(name + at - T) ||
	    strncmp(name + at - T - lj, journal, lj))
		return KIND_NONE;
	if (!strcmp(dot, ".new"))
		return KIND_TEMPORARY;
	if (!all_digits(dot + 1))
		return KIND_NONE;
	snprintf(master, len, "%.*s", (int)(at - T - 1), name);
	return KIND_RANK_JOURNAL;
}

/* Remove PATH when it is a regular file that no live run holds. */
static bool remove_dead(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;   /* a link is never opened, let alone followed */
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool gone = tmpfiles_unowned(fd) == 1 && tmpfiles_same(fd, path) && unlink(path) == 0;
	close(fd);
	return gone;
}

/* ---- parts of a new file ------------------------------------------------ */

#define PART ".rank"

int tmpfiles_part_name(char *out, size_t len, const char *base, int rank)
{
	int n = snprintf(out, len, "%s" PART "%d", base, rank);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Is NAME in DIR the temporary of a part (".B.rankR.h5ufunc-TOKEN.tmp")
 * that is linked under its own name?  Then that name's path goes into
 * PART, and its whole's temporary (".B.h5ufunc-TOKEN.tmp") into WHOLE,
 * each of PATH_MAX bytes. */
static bool linked_part(const char *dir, const char *name, char *part, char *whole)
{
	const size_t suffix = sizeof ".h5ufunc-" - 1 + TMPFILES_TOKEN_LEN + 4, n = strlen(name);
	char master[NAME_MAX + 1], own[NAME_MAX + 1], temp[PATH_MAX];
	if (kind_of(name, master, sizeof master) != KIND_TEMPORARY || n < suffix + 2 ||
	    strcmp(name + n - 4, ".tmp"))
		return false;
	snprintf(own, sizeof own, "%.*s", (int)(n - 1 - suffix), name + 1);
	char *r = NULL;
	for (char *p = strstr(own, PART); p; p = strstr(p + 1, PART))
		r = p;
	struct stat a, b;
	return r && r > own && all_digits(r + sizeof PART - 1) &&
	       snprintf(part, PATH_MAX, "%s/%s", dir, own) < PATH_MAX &&
	       snprintf(whole, PATH_MAX, "%s/.%.*s%s", dir, (int)(r - own), own, name + n - suffix) < PATH_MAX &&
	       snprintf(temp, sizeof temp, "%s/%s", dir, name) < (int)sizeof temp &&
	       lstat(temp, &a) == 0 && lstat(part, &b) == 0 && S_ISREG(a.st_mode) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* A part's temporary TEMP, linked under PART, when a dead run left it:
 * removed, and PART too while its whole's temporary WHOLE is there (that
 * run never finished).  How many names went. */
static int remove_dead_part(const char *temp, const char *part, const char *whole)
{
	struct stat st, now;
	if (lstat(temp, &st) != 0 || !remove_dead(temp))
		return 0;
	if (lstat(whole, &now) != 0 || lstat(part, &now) != 0 || now.st_dev != st.st_dev ||
	    now.st_ino != st.st_ino)
		return 1;
	return unlink(part) == 0 ? 2 : 1;
}

bool tmpfiles_dead_part(const char *path)
{
	struct stat st, t;
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".") >=
	    (int)sizeof dir)
		return false;
	DIR *d = opendir(slash == path ? "/" : dir);
	bool dead = false;
	for (struct dirent *de; d && !dead && (de = readdir(d));) {
		char part[PATH_MAX], whole[PATH_MAX], temp[PATH_MAX];
		if (!linked_part(dir, de->d_name, part, whole) || lstat(whole, &t) != 0 ||
		    snprintf(temp, sizeof temp, "%s/%s", dir, de->d_name) >= (int)sizeof temp ||
		    lstat(temp, &t) != 0 || t.st_dev != st.st_dev || t.st_ino != st.st_ino)
			continue;
		int fd = open(temp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		dead = fd >= 0 && !tmpfiles_held(fd);
		if (fd >= 0)
			close(fd);
	}
	if (d)
		closedir(d);
	return dead;
}

/* ---- the sweep ----------------------------------------------------------- */

/* The dead run's file NAME of DIR, if it is one and of PASS's kind (0:
 * linked parts, while their wholes' temporaries tell whether the run
 * finished; 1: the others), removed: its names into REMOVED (LEN bytes,
 * *USED of them taken, N names before).  How many names went. */
static int sweep_one(const char *dir, const char *name, int pass, char *removed, size_t len,
		     size_t *used, int n)
{
	char master[NAME_MAX + 1], path[PATH_MAX], mpath[PATH_MAX], part[PATH_MAX], whole[PATH_MAX];
	enum kind k = kind_of(name, master, sizeof master);
	if (k == KIND_NONE || snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
		return 0;
	bool linked = linked_part(dir, name, part, whole);
	struct stat st;
	int gone = 0;
	if (pass == 0 && linked)
		gone = remove_dead_part(path, part, whole);
	else if (pass == 1 && !linked && !(k == KIND_RANK_JOURNAL &&
		 (snprintf(mpath, sizeof mpath, "%s/%s", dir, master) >= (int)sizeof mpath ||
		  lstat(mpath, &st) == 0)))
		gone = remove_dead(path);
	for (int i = 0; i < gone && removed && *used < len; i++)
		*used += (size_t)snprintf(removed + *used, len - *used, "%s%s", n + i ? ", " : "",
					  i ? strrchr(part, '/') + 1 : name);
	return gone;
}

int tmpfiles_sweep(const char *dir, char *removed, size_t len)
{
	if (removed && len)
		*removed = '\0';
	int n = 0;
	size_t used = 0;
	for (int pass = 0; pass < 2; pass++) {
		DIR *d = opendir(dir);
		if (!d)
			return n;
		for (struct dirent *de; (de = readdir(d));)
			n += sweep_one(dir, de->d_name, pass, removed, len, &used, n);
		closedir(d);
	}
	return n;
}
