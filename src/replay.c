/* replay.c - a file's old bytes put back from its journals: the rollback
 * of a run that failed, and the recovery of what a dead run left; see
 * replay.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "comm.h"
#include "journal.h"
#include "journal_disk.h"
#include "replay.h"
#include "tmpfiles.h"

/* ---- replay ---------------------------------------------------------------- */

struct found {   /* a record found in a rank's journal */
	uint64_t seq, offset, length, at;   /* AT: where its bytes are in FD */
	int fd;
};

struct journals {   /* the ranks' journals of one run, and their records */
	char (*name)[PATH_MAX];
	int *fd, n;
	struct found *rec;
	int nrec, cap;
};


/* The records of the journal FD (TOKEN's), up to the first that is torn. */
static int scan(struct journals *js, int fd, const char *token, unsigned char *buf)
{
	struct stat st;
	struct disk_rank rh;
	if (fstat(fd, &st) != 0 || disk_read_all(fd, &rh, sizeof rh, 0) < 0)
		return -1;
	if (memcmp(rh.magic, DISK_RANK_MAGIC, 8) || strncmp(rh.token, token, sizeof rh.token) ||
	    rh.sum != disk_head_sum(&rh, sizeof rh, token, NULL))
		return 0;   /* torn at birth: it protects no write */
	uint64_t size = (uint64_t)st.st_size;
	for (uint64_t at = sizeof rh; at + sizeof(struct disk_record) <= size;) {
		struct disk_record h;
		if (disk_read_all(fd, &h, sizeof h, at) < 0)
			return -1;
		uint64_t data = at + sizeof h;
		if (h.magic != DISK_RECORD_MAGIC || h.length > size - data)
			break;
		struct disk_hash d;
		disk_hash_init(&d, token);
		for (uint64_t o = 0; o < h.length; o += DISK_PIECE) {
			size_t k = h.length - o < DISK_PIECE ? (size_t)(h.length - o) : DISK_PIECE;
			if (disk_read_all(fd, buf, k, data + o) < 0)
				return -1;
			disk_hash_add(&d, buf, k);
		}
		if (h.sum != disk_head_sum(&h, sizeof h, token, &d))
			break;
		js->rec = disk_room(js->rec, js->nrec, &js->cap, sizeof *js->rec);
		js->rec[js->nrec++] = (struct found){ h.seq, h.offset, h.length, data, fd };
		at = data + h.length;
	}
	return 0;
}

/* Is NAME ".BASE.h5ufunc-journal.TOKEN.RANK" for some RANK? */
static bool rank_journal(const char *name, const char *base, const char *token)
{
	char prefix[PATH_MAX];
	int n = snprintf(prefix, sizeof prefix, ".%s.h5ufunc-journal.%s.", base, token);
	if (n < 0 || (size_t)n >= sizeof prefix || strncmp(name, prefix, (size_t)n) || !name[n])
		return false;
	return strspn(name + n, "0123456789") == strlen(name + n);
}

/* Open every rank's journal of the run TOKEN in DIR and gather their
 * records.  0, or -1 (with WHY) when one cannot be read. */
static int gather(struct journals *js, const char *dir, const char *base, const char *token,
		  unsigned char *buf, char *why, size_t len)
{
	DIR *d = opendir(dir);
	if (!d)
		return snprintf(why, len, "cannot read the directory '%s': %s", dir, strerror(errno)), -1;
	int rc = 0;
	for (struct dirent *de; rc == 0 && (de = readdir(d));) {
		if (!rank_journal(de->d_name, base, token) || strlen(dir) + strlen(de->d_name) + 2 > PATH_MAX)
			continue;
		js->name = realloc(js->name, sizeof *js->name * (size_t)(js->n + 1));
		js->fd = realloc(js->fd, sizeof *js->fd * (size_t)(js->n + 1));
		if (!js->name || !js->fd)
			abort();
		snprintf(js->name[js->n], PATH_MAX, "%.*s/%s", PATH_MAX / 2, dir, de->d_name);
		int fd = open(js->name[js->n], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		js->fd[js->n++] = fd;
		if (fd < 0 || scan(js, fd, token, buf) < 0) {
			snprintf(why, len, "cannot read the journal '%s': %s", js->name[js->n - 1],
				 strerror(errno));
			rc = -1;
		}
	}
	closedir(d);
	return rc;
}

static void journals_free(struct journals *js, bool remove)
{
	for (int i = 0; i < js->n; i++) {
		if (js->fd[i] >= 0)
			close(js->fd[i]);
		if (remove)
			unlink(js->name[i]);
	}
	free(js->name);
	free(js->fd);
	free(js->rec);
}

static int later_first(const void *a, const void *b)
{
	uint64_t x = ((const struct found *)a)->seq, y = ((const struct found *)b)->seq;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* Put the records of JS back into FD in descending sequence, and the
 * file's SIZE; durable when it returns 0. */
static int put_back(int fd, struct journals *js, uint64_t size, unsigned char *buf,
		    struct replay_report *r)
{
	if (js->nrec > 1)
		qsort(js->rec, (size_t)js->nrec, sizeof *js->rec, later_first);
	for (int i = 0; i < js->nrec; i++) {
		const struct found *f = &js->rec[i];
		for (uint64_t o = 0; o < f->length; o += DISK_PIECE) {
			size_t k = f->length - o < DISK_PIECE ? (size_t)(f->length - o) : DISK_PIECE;
			if (disk_read_all(f->fd, buf, k, f->at + o) < 0 || disk_write_all(fd, buf, k, f->offset + o) < 0)
				return -1;
		}
		r->records++;
		r->bytes += (long long)f->length;
		if (journal_fault("replay", r->records))
			return errno = EIO, -1;
	}
	return ftruncate(fd, (off_t)size) == 0 && fsync(fd) == 0 ? 0 : -1;
}

int replay_file(int mfd, const char *path, const char *master, struct replay_report *r,
		  char *why, size_t len)
{
	char dir[PATH_MAX], base[PATH_MAX];
	struct disk_master h;
	disk_split_path(path, dir, base);
	if (disk_read_master(mfd, &h) < 0)
		return snprintf(why, len, "its journal '%s' is damaged", master), -1;
	*r = (struct replay_report){ .found = true, .started = h.started, .nranks = (int)h.nranks,
				      .size = h.size };
	struct journals js = { 0 };
	unsigned char *buf = malloc(DISK_PIECE);
	if (!buf)
		abort();
	int rc = -1, fd = open(path, O_RDWR | O_CLOEXEC);
	struct stat st;
	if (fd < 0 && errno == ENOENT) {
		r->file_gone = true;   /* nothing left to put back into */
		rc = 0;
	} else if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(why, len, "cannot open it: %s", strerror(errno));
	} else if ((uint64_t)st.st_ino != h.ino) {
		snprintf(why, len, "it is not the file its journal '%s' was made for (it was replaced "
			 "since): remove the journal if this file is right", master);
	} else if (gather(&js, dir, base, h.token, buf, why, len) == 0) {
		rc = put_back(fd, &js, h.size, buf, r);
		if (rc < 0)
			snprintf(why, len, "cannot put its old bytes back: %s", strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	if (rc == 0 && (unlink(master) != 0 || disk_sync_dir(dir) != 0)) {
		snprintf(why, len, "cannot remove its journal '%s': %s", master, strerror(errno));
		rc = -1;
	}
	if (rc == 0)
		r->done = true;
	journals_free(&js, rc == 0);
	free(buf);
	return rc;
}


/* ---- recovery --------------------------------------------------------------- */

static void master_of(const char *path, char *master)
{
	char dir[PATH_MAX], base[PATH_MAX];
	disk_split_path(path, dir, base);
	if (tmpfiles_journal_name(master, PATH_MAX, dir, base, NULL, 0) < 0)
		*master = '\0';
}

void replay_look(const char *path, struct replay_report *r)
{
	char master[PATH_MAX];
	struct disk_master h;
	memset(r, 0, sizeof *r);
	master_of(path, master);
	int fd = *master ? open(master, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	if (fd < 0) {
		r->found = *master && errno != ENOENT && errno != ENOTDIR;
		return;
	}
	r->found = true;
	r->live = tmpfiles_held(fd);
	if (disk_read_master(fd, &h) == 0) {
		r->started = h.started;
		r->nranks = (int)h.nranks;
		r->size = h.size;
	}
	close(fd);
}

static int live_error(const char *display, const char *where, const struct replay_report *r,
		      struct err *e)
{
	char buf[1024];
	replay_describe(r, display, buf, sizeof buf);
	return err_set(e, EXIT_USAGE, where, "%s; wait until it ends", buf);
}

int replay_recover(const char *path, const char *display, const char *where, int status,
		  struct replay_report *r, struct err *e)
{
	char master[PATH_MAX], why[1024];
	memset(r, 0, sizeof *r);
	master_of(path, master);
	for (int tries = 0; *master && tries < 8; tries++) {
		int fd = open(master, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT)
			return 0;
		if (fd < 0)
			return err_set(e, status, where, "an interrupted run left it unfinished, and its "
				       "journal '%s' cannot be opened to roll it back: %s", master,
				       strerror(errno));
		int unowned = tmpfiles_unowned(fd);
		if (unowned <= 0) {
			int err = errno;
			close(fd);
			replay_look(path, r);
			if (unowned == 0)
				return live_error(display, where, r, e);
			return err_set(e, status, where, "cannot lock its journal '%s': %s", master,
				       strerror(err));
		}
		if (!tmpfiles_same(fd, master)) {   /* rolled back by another meanwhile */
			close(fd);
			continue;
		}
		int rc = replay_file(fd, path, master, r, why, sizeof why);
		close(fd);
		if (rc < 0)
			return err_set(e, status, where, "cannot roll back what an interrupted run left: %s",
				       why);
		return 0;
	}
	return 0;
}

int replay_settle(const char *path, const char *display, bool recover, const char *where,
		  struct replay_report *r, struct err *e)
{
	memset(r, 0, sizeof *r);
	if (comm_rank() == 0) {
		if (recover)
			replay_recover(path, display, where, EXIT_USAGE, r, e);
		else if (replay_look(path, r), r->live)
			live_error(display, where, r, e);
	}
	comm_bcast(r, sizeof *r);
	return comm_agree(e);
}

void replay_describe(const struct replay_report *r, const char *display, char *buf, size_t len)
{
	char when[64] = "an unknown time";
	time_t t = (time_t)r->started;
	struct tm tm;
	if (r->started && localtime_r(&t, &tm))
		strftime(when, sizeof when, "%a %b %d %H:%M:%S %Y", &tm);
	const char *s = r->nranks == 1 ? "" : "s";
	if (!r->found)
		snprintf(buf, len, "%s: no unfinished run", display);
	else if (r->live)
		snprintf(buf, len, "%s: being written in place by a running h5ufunc (started %s, %d rank%s)",
			 display, when, r->nranks, s);
	else if (!r->done)
		snprintf(buf, len, "%s: a run interrupted on %s (%d rank%s) left it unfinished; the next "
			 "run rolls it back first, as 'h5ufunc recover' does", display, when, r->nranks, s);
	else if (r->file_gone)
		snprintf(buf, len, "%s: the file is gone; removed the journal of its run interrupted on %s",
			 display, when);
	else
		snprintf(buf, len, "%s: rolled back the run interrupted on %s (%d rank%s): %lld range%s, "
			 "%lld bytes put back, %llu bytes long; it is as it was before that run", display,
			 when, r->nranks, s, r->records, r->records == 1 ? "" : "s", r->bytes, r->size);
}
