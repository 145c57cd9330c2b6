/* tmpfiles.h - the files a run makes before they are finished: their
 * names, their removal when the run is stopped, who owns them, and the
 * removal of those that killed runs left behind.
 *
 * A new output file is written under a temporary name beside its final one
 * and renamed at the end; named intermediates too large for memory spill to
 * a scratch file; writes into an existing file are undone from journals
 * beside it (journal.h).  Every such name carries a token of 128 bits from
 * the system's generator (getrandom), drawn on rank 0 and shared, so nobody
 * can guess a name and plant a link under it; the files are created
 * exclusively (h5io_create, O_EXCL), never by following what is there.
 * The names are kept here, in fixed storage, so that a signal handler may
 * unlink them.
 *
 * Ownership is a lock, not a process id (which means nothing on another
 * node): while a run lives it holds an open file description lock (Linux's
 * F_OFD_SETLK, a read lock on byte TMPFILES_HOLD_AT, far past any data) on
 * each of its files.  Such a lock belongs to the open file, not to the
 * process, so HDF5 or MPI-IO closing their own descriptors of the file
 * does not drop it, and it goes when the run dies, however it dies.  A
 * file of our kinds whose lock anyone can take is a dead run's.
 *
 * Not here: which files a run needs (plan.c), when they are renamed and
 * removed on an ordinary exit (exec.c), the signals themselves
 * (interrupt.h), or what a journal holds (journal.h).
 */
#ifndef H5UFUNC_TMPFILES_H
#define H5UFUNC_TMPFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"

#define TMPFILES_TOKEN_LEN 32   /* hex digits of a token */
/* The byte a live run locks in each of its files: past any HDF5 data, and
 * apart from the ranges ROMIO locks around its own writes. */
#define TMPFILES_HOLD_AT ((off_t)1 << 62)

/* Collective: a fresh token (TMPFILES_TOKEN_LEN hex digits and a NUL in
 * OUT), the same on every rank.  Returns 0, or -1 with E set when the
 * system's generator fails. */
int tmpfiles_token(char *out, struct err *e);

/* The temporary name of a new file: ".BASE.h5ufunc-TOKEN.tmp" in DIR, or
 * with BASE NULL a scratch file ".h5ufunc-scratch-TOKEN.h5" in DIR.
 * Returns 0, or -1 when it does not fit in LEN bytes. */
int tmpfiles_name(char *out, size_t len, const char *dir, const char *base, const char *token);
/* The journal names of the file DIR/BASE (journal.h): with TOKEN NULL the
 * master ".BASE.h5ufunc-journal"; else rank RANK's journal
 * ".BASE.h5ufunc-journal.TOKEN.RANK", or with RANK < 0 the master while it
 * is made, ".BASE.h5ufunc-journal.TOKEN.new".  0, or -1 when too long. */
int tmpfiles_journal_name(char *out, size_t len, const char *dir, const char *base,
			  const char *token, int rank);

/* The name of part RANK of the new file BASE (a virtual dataset's source
 * file, vds.h): "BASE.rankRANK", into OUT (LEN bytes).  0, or -1 when too
 * long.  A part is made under its temporary name (tmpfiles_name of
 * "BASE.rankRANK"), linked under its own name once every part is written,
 * and its temporary name removed once its whole, BASE, has been renamed
 * into place.  A dead run that had linked a part but not renamed its
 * whole leaves the part under both names, which the sweep removes (the
 * whole's temporary still there says the run never finished); once the
 * whole is in place only the temporary name goes. */
int tmpfiles_part_name(char *out, size_t len, const char *base, int rank);
/* Is PATH a part that a dead run linked without finishing its whole (see
 * tmpfiles_part_name)?  The next sweep of its directory removes it. */
bool tmpfiles_dead_part(const char *path);

/* Remove PATH if the process is stopped by a signal (interrupt.h) or
 * exits before tmpfiles_forget(PATH).  With HOLD, also open PATH and lock
 * it as this run's (kept until forgotten); -1 when it cannot be held: it
 * is gone, or someone else holds it (a run that took it for a dead one's).
 * At most 64 paths; -1 when they are all taken. */
int tmpfiles_guard(const char *path, bool hold);
void tmpfiles_forget(const char *path);
/* Unlink every guarded path.  Async-signal-safe. */
void tmpfiles_remove_guarded(void);

/* Lock FD (open for reading) as this run's file.  0, or -1 with errno. */
int tmpfiles_hold(int fd);
/* Is FD's file a dead run's?  1 when nobody holds it (and FD, open for
 * writing, now locks it for the caller), 0 when a live run does, -1 when
 * locks cannot tell (errno: this file system has none). */
int tmpfiles_unowned(int fd);
/* Does a live run hold FD's file?  (Changes nothing.) */
bool tmpfiles_held(int fd);
/* Does PATH (not followed) still name FD's file? */
bool tmpfiles_same(int fd, const char *path);

/* Remove from DIR the files of our kinds that dead runs left: new files'
 * temporaries, the parts of those never finished (tmpfiles_part_name),
 * scratch files, journals being made, and the journals of
 * ranks whose run has committed (a rank's journal beside a master is kept
 * for recovery).  Links and files of live runs are never touched.  Names
 * the removed files in REMOVED (LEN bytes, ", "-separated) when not NULL;
 * returns how many. */
int tmpfiles_sweep(const char *dir, char *removed, size_t len);

#endif
