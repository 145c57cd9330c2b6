/* tmpfiles.h - the names of the files a run creates before they are
 * finished, and their removal when the run is stopped by a signal.
 *
 * A new output file is written under a temporary name beside its final one
 * and renamed at the end; named intermediates too large for memory spill to
 * a scratch file.  Both names carry a token of 128 bits from the system's
 * generator (getrandom), drawn on rank 0 and shared, so nobody can guess a
 * name and plant a link under it; the files are created exclusively
 * (h5io_create), never by following what is there.  The names are kept
 * here, in fixed storage, so that a signal handler may unlink them.
 *
 * Not here: which files a run needs (plan.c) or when they are renamed and
 * removed on an ordinary exit (exec.c).
 */
#ifndef H5UFUNC_TMPFILES_H
#define H5UFUNC_TMPFILES_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

#define TMPFILES_TOKEN_LEN 32   /* hex digits of a token */

/* Collective: a fresh token (TMPFILES_TOKEN_LEN hex digits and a NUL in
 * OUT), the same on every rank.  Returns 0, or -1 with E set when the
 * system's generator fails. */
int tmpfiles_token(char *out, struct err *e);

/* The temporary name of a new file: ".BASE.h5ufunc-TOKEN.tmp" in DIR, or
 * with BASE NULL a scratch file ".h5ufunc-scratch-TOKEN.h5" in DIR.
 * Returns 0, or -1 when it does not fit in LEN bytes. */
int tmpfiles_name(char *out, size_t len, const char *dir, const char *base, const char *token);

/* Remove PATH if the process is stopped by SIGTERM, SIGINT, SIGHUP or
 * SIGQUIT, or exits, before tmpfiles_forget(PATH); the first call installs
 * the handlers, which unlink every such path (and then die of the signal).
 * At most 64 paths; returns -1 when they are all taken. */
int tmpfiles_guard(const char *path);
void tmpfiles_forget(const char *path);

#endif
