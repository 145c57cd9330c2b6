/* vars.h - ${NAME} filled in: from --set NAME=VALUE, else the environment.
 *
 * One rule for every text a command reads: a recipe's scalars (reader.c)
 * and a one-liner's operands, outputs, flag values and expression
 * (cmd_call.c).  Not here: where an error points; the caller places the
 * message it is given.
 */
#ifndef H5UFUNC_VARS_H
#define H5UFUNC_VARS_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"

#define VARS_MAXTEXT (1u << 20)   /* bytes of a text, ${NAME} filled in */

/* --set NAME=VALUE pairs; ${NAME} not among them falls back to getenv. */
struct vars {
	int n;
	const char **name;
	const char **value;
	const size_t *name_len;   /* the names' lengths; NULL: they end in NUL */
};

/* Is S (N bytes) a name: [A-Za-z_][A-Za-z0-9_]*? */
bool vars_is_name(const char *s, size_t n);

/* S (N bytes) with every ${NAME} replaced by the last value VARS (NULL:
 * none) gives NAME, else by the environment's, into *OUT (owned by A).
 * "$${X}" is "$" then ${X}: there is no escape.  Returns 0, or -1 with
 * *OUT untouched and WHY (LEN bytes) saying what is wrong: an unclosed
 * "${", a name that is not one, an unset name, or a result longer than
 * VARS_MAXTEXT. */
int vars_fill(const struct vars *vars, const char *s, size_t n, struct arena *a, const char **out,
	      char *why, size_t len);

#endif
