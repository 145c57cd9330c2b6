/* journal.h - writes into an existing file that no stop can leave half
 * done: a rollback journal of the file's bytes (SQLite's design), on one
 * process or many ranks.
 *
 * From journal_begin to the commit, every byte of the file below its size
 * at the start that any rank is about to overwrite -- raw data, chunks,
 * chunk indexes, HDF5's metadata, whoever writes it: HDF5's own driver,
 * an MPI-IO aggregator, a rank cutting the file -- is first copied to that
 * rank's journal beside the file and made durable (intercept.c catches the
 * write calls).  The file's size at the start is recorded, so growth is
 * undone by cutting it back.  Removing the master journal, once every rank
 * has made the file durable, is the commit: before it, the next run that
 * opens the file, or `h5ufunc recover FILE`, puts the old bytes back
 * (replay); after it, the journals are leftovers of a finished run.
 * Whatever stops the run -- an error, a signal, SIGKILL, a crashed rank, a
 * lost node, a power cut -- the file is then byte for byte either what it
 * was before the run or what the run made of it.
 *
 * Files beside DIR/BASE (names from tmpfiles.h):
 *   .BASE.h5ufunc-journal           the master: the file's size and inode,
 *                                   the run's token, when it began, the
 *                                   ranks' sequence counter, and the
 *                                   ranges their durable records hold
 *   .BASE.h5ufunc-journal.TOKEN.R   rank R's records, each the old bytes of
 *                                   a range with a sequence number taken
 *                                   after they were read and before they
 *                                   were overwritten, and a checksum
 * Several ranks may save the same byte (metadata written by different
 * ranks, collective buffering, several steps writing in place): replay
 * applies the records in descending sequence, so each byte ends as the
 * record with the smallest number left it, and no write can have come
 * before that record's read.  A record holds exactly the bytes a write
 * changes (compared in 4 KiB blocks: bytes written back as they were --
 * a read-modify-write around a rank's own, an aggregator's file domain --
 * need no record, as the write that first changes them saves them, on
 * whichever rank; nor do bytes another rank's durable record holds, as
 * that record was read before any write changed them), or, where the rank announced that it overwrites a whole
 * range (journal_expect: the boxes it writes), the rest of that range, so
 * that one fsync covers many writes; either way only bytes the rank
 * overwrites, and the order stays right for them.  A torn record fails its
 * checksum and ends its journal: the write it would protect never began.
 * While a run lives, each of its ranks holds a lock on the master
 * (tmpfiles.h), so a journal whose lock anyone can take is a dead run's.
 *
 * Not here: catching the writes (intercept.c), putting the old bytes back
 * (replay.h), the files' formats (journal_disk.h), which files a run
 * journals and what its messages say (exec.c).
 */
#ifndef H5UFUNC_JOURNAL_H
#define H5UFUNC_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "err.h"

#define JOURNAL_MAX 64   /* files journaled at once */

/* Collective.  Journal every write into PATH (a canonical path, on disk)
 * from now on; TOKEN is the run's.  Returns a handle >= 0, or -1 with E
 * set (status 2: nothing was written) when the journal cannot be made
 * beside PATH, another run holds one, or the file system keeps no locks. */
int journal_begin(const char *path, const char *token, const char *where, struct err *e);
/* Collective.  Make the file durable on every rank, then commit: the
 * run's writes stand.  -1 with E set when that fails before the commit
 * point, and the caller rolls back. */
int journal_commit(int j, const char *where, struct err *e);
/* Collective.  Put back every byte written into the file since
 * journal_begin, and its size.  Returns 0, or -1 with the reason in WHY
 * (LEN bytes) on every rank; the journal then stays for recovery. */
int journal_rollback(int j, char *why, size_t len);

/* For intercept.c.  Before the N buffers IOV are written at OFFSET (-1:
 * FD's position) of FD's file, or before FD's file is cut to LEN bytes:
 * save what a journaled file would lose (of a write, the blocks it
 * changes).  0 to go ahead, or -1 with errno set, and then the write must
 * not happen.  Cheap when nothing is journaled. */
int journal_before_write(int fd, int64_t offset, const struct iovec *iov, int n);
int journal_before_truncate(int fd, uint64_t len);
/* Before writes: this rank is about to overwrite each of the N byte
 * ranges RANGES ([lo, hi)) of the file at PATH, whole (the bytes of the
 * boxes it writes).  A write that begins in one of them saves the rest of
 * it in the same record.  Nothing when PATH is not journaled. */
void journal_expect(const char *path, const uint64_t (*ranges)[2], int n);
/* Is any file journaled now? */
bool journal_active(void);
/* Is FD a journaled file's? */
bool journal_covers(int fd);

/* The tests' hook (H5UFUNC_FAULT, journal.c lists its points): true when
 * this rank is to fail at the Nth time it reaches POINT (it may instead be
 * killed here). */
bool journal_fault(const char *point, long long n);
/* The tests' hook for h5io_box.c's transfers (fault.c): with
 * H5UFUNC_FAULT=read:RANK:N (or write:RANK:N), the Nth read (write) of
 * rows or boxes on rank RANK fails after the collective transfer has
 * completed on every rank, as a failure HDF5 reports on that rank alone
 * would; leave:RANK:N makes its Nth collective write fail before the
 * transfer, as an HDF5 error inside H5Dwrite before its MPI-IO part would,
 * the other ranks going on into it.  Is this call of KIND the one? */
bool fault_call(const char *kind);

#endif
