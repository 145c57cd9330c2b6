/* err.h - the error record.
 *
 * One record travels through a command: functions that can fail return 0 or
 * -1 and take the record last.  The first error wins; later ones are dropped,
 * so a cleanup path may report freely.  The record is printed once, by rank
 * 0, as "h5ufunc: WHERE: WHAT".
 */
#ifndef H5UFUNC_ERR_H
#define H5UFUNC_ERR_H

#include <stdarg.h>

/* Exit statuses (SPEC 1). */
enum { EXIT_OK = 0, EXIT_RUN = 1, EXIT_USAGE = 2 };

struct err {
	int status;        /* 0 while no error */
	char msg[2048];    /* "WHERE: WHAT", without the program name */
};

/* Record "WHERE: WHAT" with STATUS unless an error is already recorded.
 * WHERE may be NULL or "" (then the message is WHAT alone).  Returns -1. */
int err_set(struct err *e, int status, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int err_vset(struct err *e, int status, const char *where, const char *fmt, va_list ap);
/* Append text to the recorded message (a hint, a folded HDF5 stack). */
void err_append(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Forget the recorded error (after a failure that is recovered from). */
void err_clear(struct err *e);
/* Print "h5ufunc: MSG" on stderr.  The caller decides which rank prints. */
void err_print(const struct err *e);

#endif
