/* journal_disk.h - the journal's files as they lie on disk (journal.h):
 * the master's head, a rank's head, the records, the checksum that finds
 * a torn one, and the plain I/O they are written and read with.  Shared
 * by journal.c, which writes them, and replay.c, which reads them back.
 * Native byte order: a journal is read back on the machine type that made
 * it.
 */
#ifndef H5UFUNC_JOURNAL_DISK_H
#define H5UFUNC_JOURNAL_DISK_H

#include <stddef.h>
#include <stdint.h>

#define DISK_MASTER_MAGIC "h5uJmst1"
#define DISK_RANK_MAGIC "h5uJrnk1"
#define DISK_RECORD_MAGIC 0x31636572754a3568ull
#define DISK_COUNTER_AT 4096            /* the ranks' sequence counter, in the master */
/* ... then how many ranges the ranks' durable records hold, shared so
 * that no rank saves again what another saved (journal.c, save_changed),
 * and from DISK_SHARED_AT those ranges, [lo, hi) as two uint64_t each */
#define DISK_SHARED_COUNT_AT (DISK_COUNTER_AT + 8)
#define DISK_SHARED_AT 8192
#define DISK_PIECE ((size_t)1 << 20)    /* old bytes move through memory in pieces */

/* The master: at offset 0 of ".BASE.h5ufunc-journal". */
struct disk_master {
	char magic[8];
	uint64_t size;               /* the file's size before the run */
	uint64_t ino;                /* the file's inode (the same on every node) */
	int64_t started;             /* seconds since the epoch */
	uint32_t nranks, unused;
	char token[40];              /* the run's, NUL-terminated */
	uint64_t sum;
};

/* A rank's journal: this head, then records. */
struct disk_rank {
	char magic[8];
	char token[40];
	uint32_t rank, unused;
	uint64_t sum;
};

struct disk_record {   /* followed by LENGTH old bytes of the file at OFFSET */
	uint64_t magic, seq, offset, length, sum;
};

/* A checksum that finds torn writes (not an adversary): four lanes of
 * multiply-rotate over 32-byte words, as xxHash's, so it keeps up with
 * the disk.  Data is hashed in DISK_PIECE-sized parts from its start, and
 * only the last part may be shorter than a multiple of 32. */
struct disk_hash {
	uint64_t v[4], total;
};

/* A hash seeded with TOKEN (the run's). */
void disk_hash_init(struct disk_hash *h, const char *token);
void disk_hash_add(struct disk_hash *h, const void *data, size_t n);
/* The sum of the N bytes at HEAD up to its last field (the sum itself),
 * after DATA's hash (NULL: none), seeded with TOKEN. */
uint64_t disk_head_sum(const void *head, size_t n, const char *token, const struct disk_hash *data);
/* Read and check the master's head from FD.  0, or -1 (damaged). */
int disk_read_master(int fd, struct disk_master *h);

/* N bytes of BUF to FD at AT, whole.  0, or -1 with errno. */
int disk_write_all(int fd, const void *buf, size_t n, uint64_t at);
/* N bytes at AT of FD into BUF; past the end of the file they read as
 * zeros (what the file holds there once it grows back).  0, or -1. */
int disk_read_all(int fd, void *buf, size_t n, uint64_t at);
/* Make DIR's entries durable.  0, or -1 with errno. */
int disk_sync_dir(const char *dir);
/* ARRAY (N elements of SIZE bytes, room for *CAP) with room for one
 * more: grown by doubling when full (aborts when memory runs out). */
void *disk_room(void *array, int n, int *cap, size_t size);
/* DIR and BASE of PATH, into buffers of PATH_MAX bytes each. */
void disk_split_path(const char *path, char *dir, char *base);

#endif
