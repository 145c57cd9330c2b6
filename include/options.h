/* options.h - the step options (dtype, casting, initial, ...) as one table,
 * expanded from options.def.
 *
 * Every place that lists options reads it: the recipe reader (recipe.c
 * and recipe_opts.c: keys and the verbs that take them), the planner's check of options under
 * defaults: (plan.c), the one-liners' flags (cmd_call.c) and their help
 * (main.c).  It holds no state.
 */
#ifndef H5UFUNC_OPTIONS_H
#define H5UFUNC_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "arena.h"
#include "cli.h"
#include "err.h"
#include "recipe.h"

/* The one-liners that take step options as --flags: each takes the flags
 * of its column of options.def (reduceat: reduce's; at: call's) whose
 * option applies to its verb. */
enum one_liner { ONE_CALL, ONE_REDUCE, ONE_ACCUMULATE, ONE_EVAL, ONE_REDUCEAT, ONE_AT, ONE_COUNT };

struct option_flag {
	const char *arg;    /* NULL: no such flag; "": a flag without a value; else its value */
	const char *help;   /* its help line */
};

struct step_option {
	const char *name;                      /* the key, and --NAME */
	const char *expect;                    /* what its value must be */
	unsigned verbs;                        /* VERB_BIT of the verbs that take it */
	size_t first, end;                     /* its fields: bytes [FIRST, END) of
						  struct step_opts */
	struct option_flag flag[ONE_COUNT];    /* as each one-liner takes it */
};

extern const struct step_option step_options[OPT_COUNT];

/* Does a step of verb V take option OPT? */
bool option_applies(int opt, enum verb v);
/* The verbs that take OPT in words, "reduce" or "reduce and accumulate",
 * into BUF (N bytes). */
const char *option_verbs(int opt, char *buf, size_t n);

/* missing: MODE's name ("cf", "mask", "mask-nan", "raw", or "off" for raw)
 * into *OUT; -1 when it is none of them. */
int missing_from_name(const char *name, enum missing_mode *out);

/* pack: TEXT (TYPE, TYPE:SCALE_FACTOR or TYPE:SCALE_FACTOR:ADD_OFFSET,
 * TYPE an integer dtype of at most 32 bits) into O's pack fields; -1 when
 * it is not one of them. */
int pack_from_text(const char *text, struct step_opts *o);

/* D (a recipe's defaults) overridden by S (a step's own options): *OUT. */
void option_merge(const struct step_opts *d, const struct step_opts *s, struct step_opts *out);

/* The one-liner W's --flags of step options, for cli_parse: each with the
 * id FIRST_ID + OPT.  OUT has room for OPT_COUNT entries; returns how many
 * were written. */
int option_flags(enum one_liner w, int first_id, struct cli_option *out);
/* Set OPT in O from the one-liner flag's value ARG (NULL for a flag
 * without one); names it keeps (--axis's) are allocated from A.  Errors
 * (EXIT_USAGE, at WHERE) name the flag. */
int option_from_flag(int opt, const char *arg, struct step_opts *o, struct arena *a, const char *where,
		     struct err *e);
/* The help lines of one-liner W's step option flags, in table order. */
void option_print_help(FILE *f, enum one_liner w);

#endif
