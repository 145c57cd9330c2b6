/* err.h - the error record.
 *
 * One record travels through a command: functions that can fail return 0 or
 * -1 and take the record last.  The first error wins; later ones are dropped,
 * so a cleanup path may report freely.  The record is printed once, by rank
 * 0, as "h5ufunc: WHERE: WHAT" (diag.h adds the source line it points at).
 *
 * Where an error points is kept as fields, never parsed back out of the
 * text: the source (a recipe's path, or "<expression>"), its line and
 * column, and the step.  They are set when the error is raised, from the
 * place the raiser holds: a site (a WHERE text and its place, made by the
 * planner's locate.c) through err_at(), a text and a place side by side
 * through err_set_at().  A function that only takes a WHERE text (h5io,
 * literal, operand, dist, ...) raises with the text alone; its caller,
 * which holds the text's place, adds it with err_place() when the call
 * fails.  The record holds no pointer, so it can be copied between ranks
 * as bytes.
 */
#ifndef H5UFUNC_ERR_H
#define H5UFUNC_ERR_H

#include <stdarg.h>
#include <stdbool.h>

/* Exit statuses (SPEC 1). */
enum { EXIT_OK = 0, EXIT_RUN = 1, EXIT_USAGE = 2 };

#define ERR_EXPRESSION "<expression>"   /* the source of a one-liner's expression */

/* A place an error can point at. */
struct err_loc {
	char source[256];   /* a recipe's path, or ERR_EXPRESSION; "" for none */
	int line, col;      /* 1-based, 0 for none: a recipe's line and column (in
			       characters); for an expression line 1 and col the
			       byte offset in its text plus one */
	char step[160];     /* "step 2 (ufunc add)", "call add", or "" */
};

/* A WHERE text and the place it names: what a raiser holds when it has a
 * place.  A value: copy it, keep it, no other storage behind it. */
struct site {
	char text[1200];      /* "r.yaml:3:5: step 2 (ufunc add)", "call add", or "" */
	struct err_loc loc;   /* where an error raised at it points */
};

struct err {   /* plain bytes: comm_agree() sends it to other ranks */
	int status;        /* 0 while no error */
	char msg[2048];    /* "WHERE: WHAT", without the program name */
	struct err_loc loc;   /* where the error points, when it does */
	bool dropped;      /* the last raise came after this error and was dropped */
};

/* Record "WHERE: WHAT" with STATUS unless an error is already recorded.
 * WHERE may be NULL or "" (then the message is WHAT alone); the error
 * points nowhere.  Returns -1. */
int err_set(struct err *e, int status, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int err_vset(struct err *e, int status, const char *where, const char *fmt, va_list ap);
/* The same, pointing at LOC (NULL: nowhere). */
int err_set_at(struct err *e, int status, const struct err_loc *loc, const char *where,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int err_vset_at(struct err *e, int status, const struct err_loc *loc, const char *where,
		const char *fmt, va_list ap);
/* The same at site W: its text, pointing at its place. */
int err_at(struct err *e, int status, const struct site *w, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A function given only the WHERE text of a place LOC has failed: its
 * error, raised with that text, points at LOC, unless it points somewhere
 * already.  Call it right after such a call fails, and only then (an
 * error recorded earlier, pointing nowhere, would take LOC too).
 * Returns -1. */
int err_place(struct err *e, const struct err_loc *loc);
/* Fill LOC: SOURCE (NULL: none) at LINE:COL, in STEP (NULL: none). */
void err_loc_set(struct err_loc *loc, const char *source, int line, int col, const char *step);
/* Append text to the recorded message, whichever raise recorded it (what
 * a failed run left behind). */
void err_append(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append text to the message of the error raised last (a hint, a folded
 * HDF5 stack): nothing when that raise was dropped because an earlier
 * error had won, whose message says nothing of this one's cause. */
void err_hint(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Forget the recorded error (after a failure that is recovered from). */
void err_clear(struct err *e);
/* Print "h5ufunc: MSG" on stderr.  The caller decides which rank prints. */
void err_print(const struct err *e);

#endif
