/* journal.c - the rollback journal of a file's bytes; see journal.h.
 *
 * In sections: the files being journaled; saving old bytes (announced
 * ranges, records, the ranks' sequence); begin, commit, roll back.
 * Injected faults for the tests are fault.c's.
 * The ranges a rank saved and announced are spans.h's sets; the files'
 * formats are journal_disk.h's; putting old bytes back is
 * replay.h's.
 */
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
#include "iostat.h"
#include "journal.h"
#include "journal_disk.h"
#include "replay.h"
#include "spans.h"
#include "tmpfiles.h"

/* The most old bytes of an announced range one record saves. */
#define RECORD_MAX ((uint64_t)16 << 20)
/* ... and of a run of writes nobody announced (see save), and how many
 * such runs are followed at once. */
#define RUN_MAX ((uint64_t)4 << 20)
#define RUNS 8
/* ... and the bytes a write may skip and still go on with one (or the
 * record's size, when that is more). */
#define SKIP_MAX ((uint64_t)64 << 10)
/* A write is compared with the bytes it overwrites in blocks of the file
 * this size: a block it leaves as it was is not saved (see save_changed). */
#define SAME_BLOCK ((uint64_t)4 << 10)

/* ---- the files being journaled -------------------------------------------- */

struct run {   /* where an unannounced record ended, and its size */
	uint64_t end, size;
};

struct target {
	char path[PATH_MAX], dir[PATH_MAX], base[PATH_MAX];
	char display[PATH_MAX];       /* the file as the user named it */
	char master[PATH_MAX], own[PATH_MAX];   /* the master; this rank's journal */
	char token[TMPFILES_TOKEN_LEN + 1];
	dev_t dev;
	ino_t ino;
	uint64_t size;                /* the file's size at journal_begin */
	int master_fd, read_fd, own_fd;   /* own_fd: -1 until the first record */
	uint64_t own_end;             /* where the next record goes */
	struct spans saved;           /* the ranges this rank, or another (shared), has
					 saved */
	struct spans ahead;           /* ... and those it announced it overwrites, not
					 saved yet (appended by spans_push) */
	struct run runs[RUNS];        /* the last unannounced records, ... */
	int next_run;                 /* ... the oldest replaced next */
	uint64_t seq;                 /* one rank: the sequence is counted here */
	bool unsynced;                /* records written since the last fdatasync */
	struct spans unshared;        /* ranges of durable records not yet shared */
	uint64_t shared_seen;         /* how many of the master's shared ranges were read */
	bool dirty;                   /* this rank wrote into the file */
};

static struct target *targets[JOURNAL_MAX];
static int ntargets;
static unsigned char *piece;      /* DISK_PIECE bytes while anything is journaled */

static void target_free(struct target *t)
{
	if (!t)
		return;
	if (t->master_fd >= 0)
		close(t->master_fd);
	if (t->read_fd >= 0)
		close(t->read_fd);
	if (t->own_fd >= 0)
		close(t->own_fd);
	free(t->saved.v);
	free(t->ahead.v);
	free(t->unshared.v);
	free(t);
}

static struct target *target_new(const char *path, const char *display, const char *token)
{
	struct target *t = calloc(1, sizeof *t);
	if (!t)
		abort();
	t->master_fd = t->read_fd = t->own_fd = -1;
	snprintf(t->path, sizeof t->path, "%s", path);
	snprintf(t->display, sizeof t->display, "%s", display);
	snprintf(t->token, sizeof t->token, "%s", token);
	disk_split_path(path, t->dir, t->base);
	if (tmpfiles_journal_name(t->master, sizeof t->master, t->dir, t->base, NULL, 0) < 0 ||
	    tmpfiles_journal_name(t->own, sizeof t->own, t->dir, t->base, token, comm_rank()) < 0 ||
	    strlen(t->base) + 64 > NAME_MAX) {
		target_free(t);
		return NULL;
	}
	return t;
}

/* The journaled file that ST describes, or NULL. */
static struct target *target_at(const struct stat *st)
{
	for (int i = 0; i < JOURNAL_MAX; i++)
		if (targets[i] && targets[i]->ino == st->st_ino && targets[i]->dev == st->st_dev)
			return targets[i];
	return NULL;
}

/* The journaled file FD writes into, or NULL. */
static struct target *target_of(int fd)
{
	struct stat st;
	if (!ntargets || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return NULL;
	return target_at(&st);
}

bool journal_active(void)
{
	return ntargets > 0;
}

bool journal_covers(int fd)
{
	return target_of(fd) != NULL;
}

/* Stop journaling the file of handle J on this rank (the master and the
 * journals stay). */
static void target_drop(int j)
{
	targets[j] = NULL;
	if (--ntargets == 0) {
		free(piece);
		piece = NULL;
	}
}

/* ---- saving old bytes ----------------------------------------------------- */

/* This rank's journal of T, made on its first record: created exclusively,
 * held, and its name made durable before any record counts. */
static int own_journal(struct target *t)
{
	if (t->own_fd >= 0)
		return 0;
	int fd = open(t->own, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	struct disk_rank h = { .magic = DISK_RANK_MAGIC, .rank = (uint32_t)comm_rank() };
	snprintf(h.token, sizeof h.token, "%s", t->token);
	h.sum = disk_head_sum(&h, sizeof h, t->token, NULL);
	if (tmpfiles_hold(fd) < 0 || disk_write_all(fd, &h, sizeof h, 0) < 0 || disk_sync_dir(t->dir) < 0) {
		int err = errno;
		close(fd);
		unlink(t->own);
		errno = err;
		return -1;
	}
	t->own_fd = fd;
	t->own_end = sizeof h;
	return 0;
}

/* Take (F_WRLCK) or give back (F_UNLCK) the lock that every rank of the
 * run takes on the master's counter and shared ranges.  0, or -1. */
static int master_lock(struct target *t, short type)
{
	struct flock l = { .l_type = type, .l_whence = SEEK_SET, .l_start = DISK_COUNTER_AT, .l_len = 8 };
	int rc;
	while ((rc = fcntl(t->master_fd, type == F_UNLCK ? F_OFD_SETLK : F_OFD_SETLKW, &l)) < 0 && errno == EINTR)
		;
	return rc;
}

/* The next number of the ranks' sequence: counted here on one rank, else
 * in the master under the lock that every rank of the run takes. */
static int next_seq(struct target *t, uint64_t *seq)
{
	if (comm_size() == 1) {
		*seq = ++t->seq;
		return 0;
	}
	if (master_lock(t, F_WRLCK) < 0)
		return -1;
	uint64_t v = 0;
	int rc = disk_read_all(t->master_fd, &v, sizeof v, DISK_COUNTER_AT);
	v++;
	if (rc == 0)
		rc = disk_write_all(t->master_fd, &v, sizeof v, DISK_COUNTER_AT);
	int err = errno;
	master_lock(t, F_UNLCK);
	errno = err;
	*seq = v;
	return rc;
}

/* Under MPI: tell the other ranks the ranges of T's records made durable
 * since the last time (the master's shared ranges, appended under its
 * lock).  0, or -1. */
static int share_saved(struct target *t)
{
	if (!t->unshared.n)
		return 0;
	if (master_lock(t, F_WRLCK) < 0)
		return -1;
	uint64_t n = 0;
	int rc = disk_read_all(t->master_fd, &n, sizeof n, DISK_SHARED_COUNT_AT);
	for (int i = 0; rc == 0 && i < t->unshared.n; i++) {
		uint64_t r[2] = { t->unshared.v[i].lo, t->unshared.v[i].hi };
		rc = disk_write_all(t->master_fd, r, sizeof r, DISK_SHARED_AT + (n + (uint64_t)i) * sizeof r);
	}
	n += (uint64_t)t->unshared.n;
	if (rc == 0)
		rc = disk_write_all(t->master_fd, &n, sizeof n, DISK_SHARED_COUNT_AT);
	int err = errno;
	master_lock(t, F_UNLCK);
	errno = err;
	t->unshared.n = 0;
	return rc;
}

/* Under MPI: the ranges other ranks shared since the last time join T's
 * saved ones.  0, or -1. */
static int learn_saved(struct target *t)
{
	if (master_lock(t, F_WRLCK) < 0)
		return -1;
	uint64_t n = 0, r[2];
	int rc = disk_read_all(t->master_fd, &n, sizeof n, DISK_SHARED_COUNT_AT);
	for (; rc == 0 && t->shared_seen < n; t->shared_seen++) {
		rc = disk_read_all(t->master_fd, r, sizeof r, DISK_SHARED_AT + t->shared_seen * sizeof r);
		if (rc == 0 && r[0] < r[1] && r[1] <= t->size)
			spans_add(&t->saved, r[0], r[1]);
	}
	int err = errno;
	master_lock(t, F_UNLCK);
	errno = err;
	return rc;
}

/* Save bytes [LO, HI) of T's file in a record of this rank's journal; it
 * is durable after sync_records.  The sequence number is taken after the
 * old bytes are read: journal.h says why that order makes replay right. */
static int record(struct target *t, uint64_t lo, uint64_t hi)
{
	if (own_journal(t) < 0)
		return -1;
	struct disk_record h = { .magic = DISK_RECORD_MAGIC, .offset = lo, .length = hi - lo };
	uint64_t at = t->own_end + sizeof h;
	struct disk_hash data;
	disk_hash_init(&data, t->token);
	for (uint64_t o = lo; o < hi; o += DISK_PIECE) {
		size_t k = hi - o < DISK_PIECE ? (size_t)(hi - o) : DISK_PIECE;
		if (disk_read_all(t->read_fd, piece, k, o) < 0 || disk_write_all(t->own_fd, piece, k, at + (o - lo)) < 0)
			return -1;
		disk_hash_add(&data, piece, k);
	}
	if (next_seq(t, &h.seq) < 0)
		return -1;
	h.sum = disk_head_sum(&h, sizeof h, t->token, &data);
	if (disk_write_all(t->own_fd, &h, sizeof h, t->own_end) < 0)
		return -1;
	t->own_end = at + (hi - lo);
	t->unsynced = true;
	if (comm_size() > 1)
		spans_push(&t->unshared, lo, hi);
	iostat.journal_records++;
	iostat.journal_bytes += (int64_t)(hi - lo);
	return 0;
}

/* Make T's records durable, with one fdatasync however many a write
 * needed: a write begins only after it, so a record torn before it (which
 * ends its journal at replay) protects no write that began.  Then their
 * ranges are shared with the other ranks (save_changed). */
static int sync_records(struct target *t)
{
	if (!t->unsynced)
		return 0;
	if (fdatasync(t->own_fd) < 0)
		return -1;
	t->unsynced = false;
	iostat.journal_syncs++;
	return share_saved(t);
}

/* The range of T's announced ones (settled) that holds byte AT, or -1. */
static int ahead_at(const struct target *t, uint64_t at)
{
	int k = spans_after(&t->ahead, at);
	return k < t->ahead.n && t->ahead.v[k].lo <= at ? k : -1;
}

/* The first byte from LO on that T's saved ranges do not hold; *NEXT:
 * the first of them after it (T->saved.n when none). */
static uint64_t unsaved_from(const struct target *t, uint64_t lo, int *next)
{
	int i = spans_after(&t->saved, lo);
	if (i < t->saved.n && t->saved.v[i].lo <= lo)
		lo = t->saved.v[i++].hi;   /* the next one begins past it: none touch */
	*next = i;
	return lo;
}

/* The run of T's unannounced records that a write at LO goes on with:
 * one that ended at LO, or at most SKIP_MAX or its own size before it (a
 * write that skips a few bytes, as a chunk's rows cut by a ragged edge
 * do); NULL when none. */
static struct run *run_going_on(struct target *t, uint64_t lo)
{
	for (int i = 0; i < RUNS; i++) {
		struct run *r = &t->runs[i];
		if (r->size && lo >= r->end && lo - r->end <= (r->size > SKIP_MAX ? r->size : SKIP_MAX))
			return r;
	}
	return NULL;
}

/* After a record of announced bytes that ended at END, the announced
 * ranges not saved yet saved too, in the file's order from END on and
 * then from the start, wherever they lie (a chunk row's chunks with the
 * chunk index's nodes among them, and a ragged last chunk column's
 * chunks, which HDF5 may have placed far from the rest of their row),
 * LEFT bytes in all, each exactly in a record of its own, so that the
 * one fdatasync the write waits for (sync_records) covers them.  Every
 * announced byte is one this rank overwrites: saving it sooner saves
 * nothing more. */
static int save_ahead(struct target *t, uint64_t end, uint64_t left)
{
	bool wrapped = false;
	while (left > 0) {
		spans_settle(&t->ahead);
		int k = spans_after(&t->ahead, end), i;
		while (k < t->ahead.n && (t->ahead.v[k].lo == t->ahead.v[k].hi || t->ahead.v[k].hi <= end))
			k++;   /* emptied by a cut, not yet dropped; or behind END */
		if (k == t->ahead.n) {
			if (wrapped || end == 0)
				return 0;
			wrapped = true;   /* on from the start */
			end = 0;
			continue;
		}
		uint64_t lo = t->ahead.v[k].lo > end ? t->ahead.v[k].lo : end;
		if (unsaved_from(t, lo, &i) != lo) {
			end = unsaved_from(t, lo, &i);   /* saved already: on past it */
			continue;
		}
		uint64_t hi = t->ahead.v[k].hi - lo < left ? t->ahead.v[k].hi : lo + left;
		uint64_t ceil = i < t->saved.n ? t->saved.v[i].lo : t->size;
		hi = hi < ceil ? hi : ceil;
		if (hi <= lo) {   /* past the file's old size: nothing to save */
			end = t->ahead.v[k].hi;
			continue;
		}
		if (record(t, lo, hi) < 0)
			return -1;
		spans_add(&t->saved, lo, hi);
		spans_cut(&t->ahead, lo, hi);
		left -= hi - lo;
		end = hi;
	}
	return 0;
}

/* Save whatever of [LO, HI) this rank has not saved yet, each gap in one
 * record, never past the old size or into a range saved already.  A gap
 * that begins inside a range this rank announced (journal_expect) is
 * saved with that range around it, up to RECORD_MAX: on to the range's
 * end, and back towards its start as far as that leaves room (writes
 * need not come in the file's order: a chunk cache flushes its chunks
 * in its own); the writes that follow there then need no record of
 * their own, so a stream of writes costs a few fsyncs.  (The announced
 * ranges hold no byte saved already: spans_cut.)  Elsewhere (HDF5's
 * metadata, an aggregator's writes for other ranks, a chunk written
 * through MPI-IO, a compressed chunk where it moves) a gap is saved
 * exactly, unless it goes on with one of the last RUNS such records
 * (begins where it ended, or skips a few bytes): a run of
 * writes (MPI-IO's pieces of a share; each dataset's chunks that a pass
 * moves alone, a ragged chunk's rows among them) then saves twice that
 * record ahead, up to RUN_MAX, so a run costs a few fsyncs and saves at
 * most RUN_MAX past its end. */
static int save(struct target *t, uint64_t lo, uint64_t hi)
{
	spans_settle(&t->ahead);
	int i;
	while ((lo = unsaved_from(t, lo, &i)) < hi) {
		uint64_t ceil = i < t->saved.n ? t->saved.v[i].lo : t->size;
		uint64_t end = hi < ceil ? hi : ceil;
		int k = ahead_at(t, lo);
		bool announced = k >= 0;
		uint64_t most = 0;   /* where the record may reach, past END */
		if (announced)
			most = lo + RECORD_MAX < t->ahead.v[k].hi ? lo + RECORD_MAX : t->ahead.v[k].hi;
		struct run *r = announced ? NULL : run_going_on(t, lo);
		if (r)
			most = lo + (2 * r->size < RUN_MAX ? 2 * r->size : RUN_MAX);
		if (end < most)
			end = most < ceil ? most : ceil;
		if (!announced) {
			r = r ? r : &t->runs[t->next_run++ % RUNS];
			*r = (struct run){ end, end - lo };
		}
		uint64_t from = lo;   /* where the record begins: back into the range */
		if (announced && end - lo < RECORD_MAX) {
			uint64_t floor = i > 0 ? t->saved.v[i - 1].hi : 0;
			uint64_t back = end > RECORD_MAX ? end - RECORD_MAX : 0;
			back = back > floor ? back : floor;
			from = back > t->ahead.v[k].lo ? back : t->ahead.v[k].lo;
		}
		if (record(t, from, end) < 0)
			return -1;
		spans_add(&t->saved, from, end);
		spans_cut(&t->ahead, from, end);   /* saved: no longer ahead */
		if (announced && end - from < RECORD_MAX && save_ahead(t, end, RECORD_MAX - (end - from)) < 0)
			return -1;
		lo = end;
	}
	return 0;
}

/* What a write puts into the file: its buffers, from offset AT on. */
struct source {
	const struct iovec *iov;
	int n;
	uint64_t at;
};

/* Does SRC write at [LO, LO + N) of the file the N bytes at OLD? */
static bool source_same(const struct source *src, uint64_t lo, const unsigned char *old, size_t n)
{
	uint64_t skip = lo - src->at;
	for (int i = 0; i < src->n && n; i++) {
		size_t len = src->iov[i].iov_len;
		if (skip >= len) {
			skip -= len;
			continue;
		}
		size_t k = len - skip < n ? len - (size_t)skip : n;
		if (memcmp((const unsigned char *)src->iov[i].iov_base + skip, old, k))
			return false;
		old += k;
		n -= k;
		skip = 0;
	}
	return true;
}

/* The first run of [LO, HI) that SRC changes, in blocks of SAME_BLOCK
 * (the file's, cut by LO and HI): [*A, *B), or *A = *B = HI when SRC
 * writes there what T's file holds.  The run ends at the first block
 * that stays as it is, or at once where it begins inside an announced
 * range (save takes the range around it).  0, or -1 with errno. */
static int changed(struct target *t, const struct source *src, uint64_t lo, uint64_t hi,
		   uint64_t *a, uint64_t *b)
{
	*a = *b = hi;
	for (uint64_t o = lo; o < hi; o += DISK_PIECE) {
		uint64_t end = hi - o < DISK_PIECE ? hi : o + DISK_PIECE;
		if (disk_read_all(t->read_fd, piece, (size_t)(end - o), o) < 0)
			return -1;
		for (uint64_t p = o; p < end;) {
			uint64_t q = (p / SAME_BLOCK + 1) * SAME_BLOCK;
			q = q < end ? q : end;
			bool same = source_same(src, p, piece + (p - o), (size_t)(q - p));
			if (!same && *a == hi) {
				*a = p;
				if (ahead_at(t, p) >= 0)
					return *b = q, 0;
			} else if (same && *a < hi) {
				return *b = p, 0;
			}
			p = q;
		}
	}
	return 0;
}

/* Save what a write of SRC into [LO, HI) of T's file changes and this
 * rank has not saved yet (save, a run of changed blocks at a time).
 * Blocks it writes back as they are need no record: the first write that
 * changes a byte, on whichever rank, saves it first, and replay ends on
 * the oldest record of it (journal.h).  So a read-modify-write that
 * rewrites bytes around its own -- ROMIO's data sieving, or an aggregator
 * writing a whole file domain for its ranks -- costs the bytes it
 * changes, not the span it rewrites. */
static int save_changed(struct target *t, const struct source *src, uint64_t lo, uint64_t hi)
{
	bool learnt = comm_size() == 1;
	spans_settle(&t->ahead);
	int i;
	while ((lo = unsaved_from(t, lo, &i)) < hi) {
		uint64_t end = i < t->saved.n && t->saved.v[i].lo < hi ? t->saved.v[i].lo : hi, a, b;
		if (changed(t, src, lo, end, &a, &b) < 0)
			return -1;
		if (a < b && !learnt) {   /* saved by another rank already? */
			learnt = true;
			if (learn_saved(t) < 0)
				return -1;
			lo = a;
			continue;
		}
		if (a < b && save(t, a, b) < 0)
			return -1;
		lo = b;
	}
	return 0;
}

/* Where a write without an offset goes: FD's position, or the end of the
 * file for a descriptor opened to append. */
static int64_t position(int fd)
{
	int flags = fcntl(fd, F_GETFL);
	struct stat st;
	if (flags >= 0 && (flags & O_APPEND))
		return fstat(fd, &st) == 0 ? (int64_t)st.st_size : -1;
	return (int64_t)lseek(fd, 0, SEEK_CUR);
}

/* Under MPI, a write that fails on some ranks only leaves the others
 * waiting for them in a collective call for ever: a rank that cannot save
 * the old bytes (no space for its journal) stops the whole run at once
 * instead -- the launcher ends the other ranks -- and leaves the journals
 * for the next run to roll back from.  On one process the write fails,
 * and the run rolls back as after any failure. */
static void give_up(const struct target *t)
{
	char msg[3 * PATH_MAX];
	int n = snprintf(msg, sizeof msg, "h5ufunc: %s: cannot save the bytes a write would overwrite "
			 "(%s): the run stops here, and the next run that opens the file, or "
			 "'h5ufunc recover %s', rolls it back\n", t->display, strerror(errno), t->display);
	tmpfiles_remove_guarded();
	if (write(STDERR_FILENO, msg, n > 0 && (size_t)n < sizeof msg ? (size_t)n : 0) < 0)
		_exit(EXIT_RUN);
	_exit(EXIT_RUN);
}

int journal_before_write(int fd, int64_t offset, const struct iovec *iov, int n)
{
	struct target *t = target_of(fd);
	if (!t)
		return 0;
	iostat.journal_writes++;
	t->dirty = true;
	if (offset < 0 && (offset = position(fd)) < 0)
		return -1;
	uint64_t len = 0;
	for (int i = 0; i < n; i++)
		len += iov[i].iov_len;
	struct source src = { iov, n, (uint64_t)offset };
	uint64_t lo = (uint64_t)offset, hi = lo + len < t->size ? lo + len : t->size;
	bool fail = false;
	if (lo < hi && journal_fault("save", iostat.journal_writes)) {
		errno = ENOSPC;
		fail = true;
	} else if (lo < hi) {
		fail = save_changed(t, &src, lo, hi) < 0 || sync_records(t) < 0;
	}
	if (fail && comm_size() > 1)
		give_up(t);
	if (!fail)
		journal_fault("write", iostat.journal_writes);
	return fail ? -1 : 0;
}

void journal_expect(const char *path, const uint64_t (*ranges)[2], int n)
{
	struct stat st;
	struct target *t = ntargets && stat(path, &st) == 0 ? target_at(&st) : NULL;
	for (int i = 0; t && i < n; i++)
		if (ranges[i][0] < ranges[i][1])
			spans_push(&t->ahead, ranges[i][0], ranges[i][1]);
}

int journal_before_truncate(int fd, uint64_t len)
{
	struct target *t = target_of(fd);
	struct stat st;
	if (!t)
		return 0;
	t->dirty = true;
	if (fstat(fd, &st) != 0)
		return -1;
	uint64_t hi = (uint64_t)st.st_size < t->size ? (uint64_t)st.st_size : t->size;
	if (len < hi && (save(t, len, hi) < 0 || sync_records(t) < 0)) {
		if (comm_size() > 1)
			give_up(t);
		return -1;
	}
	return 0;
}

/* ---- begin, commit, roll back --------------------------------------------- */

/* Give the master MADE its name MASTER, which must be free: by a link
 * where the file system has them, else by a rename that will not replace.
 * 0, or -1 with errno (EEXIST: taken). */
static int place_master(const char *made, const char *master)
{
	if (link(made, master) == 0)
		return unlink(made), 0;
	if (errno == EEXIST)
		return -1;
	if (renameat2(AT_FDCWD, made, AT_FDCWD, master, RENAME_NOREPLACE) == 0)
		return 0;
	struct stat st;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	if (lstat(master, &st) == 0)
		return errno = EEXIST, -1;
	return rename(made, master);
}

/* The steps of making a master, in order. */
enum master_step { MASTER_LOCK, MASTER_WRITE, MASTER_NAME, MASTER_DURABLE, MASTER_MADE };

/* Hold, write and make durable the master MADE (open as FD) of T's file
 * (ST), then give it its name and make that durable.  The step that
 * failed (errno says why), or MASTER_MADE. */
static enum master_step place_new_master(struct target *t, int fd, const char *made,
					 const struct stat *st)
{
	struct disk_master h = { .magic = DISK_MASTER_MAGIC, .size = t->size,
				 .ino = (uint64_t)st->st_ino, .started = (int64_t)time(NULL),
				 .nranks = (uint32_t)comm_size() };
	uint64_t zero = 0;
	snprintf(h.token, sizeof h.token, "%s", t->token);
	h.sum = disk_head_sum(&h, sizeof h, t->token, NULL);
	if (tmpfiles_hold(fd) < 0)
		return MASTER_LOCK;
	if (disk_write_all(fd, &h, sizeof h, 0) < 0 ||
	    disk_write_all(fd, &zero, sizeof zero, DISK_COUNTER_AT) < 0 || fdatasync(fd) < 0)
		return MASTER_WRITE;
	if (place_master(made, t->master) < 0)
		return MASTER_NAME;
	return disk_sync_dir(t->dir) < 0 ? MASTER_DURABLE : MASTER_MADE;
}

/* Rank 0: make T's master, all before the first byte of the file is
 * written.  A master there already is another run's (planning has rolled
 * back dead runs' first). */
static int make_master(struct target *t, const char *where, struct err *e)
{
	static const char *const failed[] = { "cannot lock", "cannot write", "cannot name",
					      "cannot make durable" };
	struct stat st;
	char made[PATH_MAX];
	if (stat(t->path, &st) != 0)
		return err_set(e, EXIT_USAGE, where, "cannot open '%s': %s", t->path, strerror(errno));
	t->size = (uint64_t)st.st_size;
	tmpfiles_journal_name(made, sizeof made, t->dir, t->base, t->token, -1);
	int fd = open(made, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return err_set(e, EXIT_USAGE, where, "cannot make the journal '%s' that an interrupted "
			       "run is undone from: %s", made, strerror(errno));
	enum master_step step = place_new_master(t, fd, made, &st);
	if (step == MASTER_MADE) {
		t->master_fd = fd;
		return 0;
	}
	int err = errno;
	unlink(made);
	close(fd);
	if (step == MASTER_DURABLE)
		unlink(t->master);
	if (step == MASTER_NAME && err == EEXIST)
		return err_set(e, EXIT_USAGE, where, "another h5ufunc run is writing it in place");
	if (step == MASTER_LOCK)
		return err_set(e, EXIT_USAGE, where, "cannot lock the journal that an interrupted run is "
			       "undone from (%s): this file system keeps no file locks; "
			       "--risk-partial-writes writes in place without a journal", strerror(err));
	return err_set(e, EXIT_USAGE, where, "%s the journal '%s' that an interrupted run is undone "
		       "from: %s", failed[step], t->master, strerror(err));
}

/* Every rank: T's master held, the file open to read old bytes from, and
 * known by its device and inode as this node sees them. */
static void open_target(struct target *t, const char *where, struct err *e)
{
	struct stat st;
	if (comm_rank() != 0) {
		t->master_fd = open(t->master, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		if (t->master_fd < 0 || tmpfiles_hold(t->master_fd) < 0) {
			err_set(e, EXIT_USAGE, where, "cannot hold the journal '%s': %s", t->master,
				strerror(errno));
			return;
		}
	}
	t->read_fd = open(t->path, O_RDONLY | O_CLOEXEC);
	if (t->read_fd < 0 || fstat(t->read_fd, &st) != 0) {
		err_set(e, EXIT_USAGE, where, "cannot open '%s': %s", t->path, strerror(errno));
		return;
	}
	t->dev = st.st_dev;
	t->ino = st.st_ino;
}

int journal_begin(const char *path, const char *token, const char *where, struct err *e)
{
	int j = 0;
	while (j < JOURNAL_MAX && targets[j])
		j++;
	struct target *t = j < JOURNAL_MAX ? target_new(path, where, token) : NULL;
	if (j == JOURNAL_MAX)
		err_set(e, EXIT_USAGE, where, "too many files written in place (at most %d)", JOURNAL_MAX);
	else if (!t)
		err_set(e, EXIT_USAGE, where, "its name is too long for the journal beside it");
	else if (comm_rank() == 0)
		make_master(t, where, e);
	if (comm_agree(e) < 0) {
		target_free(t);
		return -1;
	}
	uint64_t size = t->size;
	comm_bcast(&size, sizeof size);
	t->size = size;
	open_target(t, where, e);
	if (comm_agree(e) < 0) {
		if (comm_rank() == 0)
			unlink(t->master);   /* nothing was written yet */
		target_free(t);
		return -1;
	}
	if (!piece && !(piece = malloc(DISK_PIECE)))
		abort();
	targets[j] = t;
	ntargets++;
	return j;
}

int journal_commit(int j, const char *where, struct err *e)
{
	struct target *t = targets[j];
	if (t->dirty && fsync(t->read_fd) != 0)
		err_set(e, EXIT_RUN, where, "cannot make what was written durable: %s", strerror(errno));
	if (comm_agree(e) < 0)
		return -1;
	journal_fault("commit", 1);
	/* The commit point.  Its removal must be durable before the ranks'
	 * journals go: a master that a power cut brings back without them
	 * would cut the file back to its old size under new data.  Kept when
	 * that cannot be known; a later sweep removes them. */
	int durable = 1;
	if (comm_rank() == 0) {
		if (unlink(t->master) != 0)
			err_set(e, EXIT_RUN, where, "cannot remove the journal '%s': %s", t->master,
				strerror(errno));
		else
			durable = disk_sync_dir(t->dir) == 0;
	}
	if (comm_agree(e) < 0)
		return -1;
	comm_bcast(&durable, sizeof durable);
	journal_fault("committed", 1);
	if (t->own_fd >= 0 && durable)
		unlink(t->own);
	target_drop(j);
	target_free(t);
	return 0;
}

int journal_rollback(int j, char *why, size_t len)
{
	struct target *t = targets[j];
	/* What is written from now on is the old bytes going back. */
	target_drop(j);
	if (t->own_fd >= 0)
		close(t->own_fd);   /* the master beside it keeps it from sweeps */
	t->own_fd = -1;
	comm_barrier();
	int rc = 0;
	*why = '\0';
	if (comm_rank() == 0) {
		struct replay_report r;
		journal_fault("rollback", 1);
		rc = replay_file(t->master_fd, t->path, t->master, &r, why, len);
	}
	comm_bcast(&rc, sizeof rc);
	comm_bcast(why, len);
	target_free(t);
	return rc;
}
