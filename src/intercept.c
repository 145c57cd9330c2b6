/* intercept.c - the C library's write calls, seen before they write: a
 * write into a file being journaled (journal.h) waits until the bytes it
 * overwrites are saved.
 *
 * h5ufunc defines write, pwrite, pwritev, ftruncate and their kin itself,
 * and the executable exports them (the Makefile's --dynamic-list, from
 * src/intercept.sym), so that every library of the process calls these:
 * HDF5's sec2 driver, and ROMIO and OMPIO, which Open MPI loads with
 * dlopen.  Each asks journal.c, then calls the next definition (dlsym
 * RTLD_NEXT: the C library's, or in a sanitizer build the sanitizer's,
 * which calls the C library's).  This is the one place every write into a
 * file passes: HDF5's MPI-IO driver cannot be wrapped through HDF5's
 * public driver interface (its collective transfers lean on HDF5's private
 * state), and MPI's profiling interface (iostat.c) sees what a rank asks
 * MPI-IO for, not the bytes the aggregators write for it.
 *
 * aio_write into a journaled file (OMPIO's nonblocking writes, which HDF5
 * 1.10 never asks for) is refused with ENOTSUP rather than let past.
 * Writes of other files cost one test of a counter while nothing is
 * journaled, one fstat while something is.  Not thread-safe: h5ufunc
 * writes files from its main thread.
 */
#include <aio.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "journal.h"

/* The next definition of NAME after ours. */
static void *next(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	if (!p)
		abort();
	return p;
}

/* REAL: the next definition of the function NAME, which is being defined. */
#define NEXT(name) \
	static __typeof__(name) *real; \
	if (!real) \
		real = (__typeof__(name) *)next(#name)

ssize_t write(int fd, const void *buf, size_t n)
{
	NEXT(write);
	struct iovec one = { (void *)buf, n };
	return journal_before_write(fd, -1, &one, 1) < 0 ? -1 : real(fd, buf, n);
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
	NEXT(writev);
	return journal_before_write(fd, -1, iov, n) < 0 ? -1 : real(fd, iov, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t at)
{
	NEXT(pwrite);
	struct iovec one = { (void *)buf, n };
	return journal_before_write(fd, at, &one, 1) < 0 ? -1 : real(fd, buf, n, at);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t at)
{
	NEXT(pwrite64);
	struct iovec one = { (void *)buf, n };
	return journal_before_write(fd, at, &one, 1) < 0 ? -1 : real(fd, buf, n, at);
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t at)
{
	NEXT(pwritev);
	return journal_before_write(fd, at, iov, n) < 0 ? -1 : real(fd, iov, n, at);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int n, off64_t at)
{
	NEXT(pwritev64);
	return journal_before_write(fd, at, iov, n) < 0 ? -1 : real(fd, iov, n, at);
}

ssize_t pwritev2(int fd, const struct iovec *iov, int n, off_t at, int flags)
{
	NEXT(pwritev2);
	return journal_before_write(fd, at < 0 ? -1 : at, iov, n) < 0 ? -1
	       : real(fd, iov, n, at, flags);
}

int ftruncate(int fd, off_t len)
{
	NEXT(ftruncate);
	return len >= 0 && journal_before_truncate(fd, (uint64_t)len) < 0 ? -1 : real(fd, len);
}

int ftruncate64(int fd, off64_t len)
{
	NEXT(ftruncate64);
	return len >= 0 && journal_before_truncate(fd, (uint64_t)len) < 0 ? -1 : real(fd, len);
}

int aio_write(struct aiocb *cb)
{
	NEXT(aio_write);
	if (journal_covers(cb->aio_fildes))
		return errno = ENOTSUP, -1;
	return real(cb);
}

int aio_write64(struct aiocb64 *cb)
{
	NEXT(aio_write64);
	if (journal_covers(cb->aio_fildes))
		return errno = ENOTSUP, -1;
	return real(cb);
}
