/* err.h - the error record.
 *
 * One record travels through a command: functions that can fail return 0 or
 * -1 and take the record last.  The first error wins; later ones are dropped,
 * so a cleanup path may report freely.  The record is printed once, by rank
 * 0, as "h5ufunc: WHERE: WHAT" (diag.h adds the source line it points at).
 *
 * Where an error points is kept as fields, never parsed back out of the
 * text: the source (a recipe's path, or "<expression>"), its line and
 * column, and the step.  They are set when the error is raised: by
 * err_set_at() from the raiser's own place, or, for a function that only
 * takes a WHERE text (h5io, literal, operand, dist, ...), from the place its
 * caller named for that text with err_site().  The record holds no pointer
 * that matters after the error is raised, so it can be copied between
 * ranks as bytes.
 */
#ifndef H5UFUNC_ERR_H
#define H5UFUNC_ERR_H

#include <stdarg.h>

/* Exit statuses (SPEC 1). */
enum { EXIT_OK = 0, EXIT_RUN = 1, EXIT_USAGE = 2 };

#define ERR_EXPRESSION "<expression>"   /* the source of a one-liner's expression */
#define ERR_MAXSITES 64

/* A place an error can point at. */
struct err_loc {
	char source[256];   /* a recipe's path, or ERR_EXPRESSION; "" for none */
	int line, col;      /* 1-based, 0 for none: a recipe's line and column (in
			       characters); for an expression line 1 and col the
			       byte offset in its text plus one */
	char step[160];     /* "step 2 (ufunc add)", "call add", or "" */
};

/* A WHERE text handed to functions that raise errors with it, and its place. */
struct err_site {
	const char *where;
	const struct err_loc *loc;
};

struct err {   /* comm_agree() sends the fields before nsites to other ranks */
	int status;        /* 0 while no error */
	char msg[2048];    /* "WHERE: WHAT", without the program name */
	struct err_loc loc;   /* where the error points, when it does */
	int nsites;           /* the WHERE texts in use and their places (err_site) */
	struct err_site site[ERR_MAXSITES];
};

/* Record "WHERE: WHAT" with STATUS unless an error is already recorded.
 * WHERE may be NULL or "" (then the message is WHAT alone).  When WHERE is
 * a text named by err_site(), its place is recorded too.  Returns -1. */
int err_set(struct err *e, int status, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int err_vset(struct err *e, int status, const char *where, const char *fmt, va_list ap);
/* The same, pointing at LOC (NULL: nowhere). */
int err_set_at(struct err *e, int status, const struct err_loc *loc, const char *where,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int err_vset_at(struct err *e, int status, const struct err_loc *loc, const char *where,
		const char *fmt, va_list ap);
/* Name the place LOC of the WHERE text W (this very pointer): an error
 * raised with W records LOC.  LOC must live while W is in use; naming W
 * again replaces its place. */
void err_site(struct err *e, const char *w, const struct err_loc *loc);
/* Forget every named WHERE text (their places may be freed after this). */
void err_sites_clear(struct err *e);
/* Fill LOC: SOURCE (NULL: none) at LINE:COL, in STEP (NULL: none). */
void err_loc_set(struct err_loc *loc, const char *source, int line, int col, const char *step);
/* Append text to the recorded message (a hint, a folded HDF5 stack). */
void err_append(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Forget the recorded error (after a failure that is recovered from). */
void err_clear(struct err *e);
/* Print "h5ufunc: MSG" on stderr.  The caller decides which rank prints. */
void err_print(const struct err *e);

#endif
