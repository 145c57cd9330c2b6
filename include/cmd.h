/* cmd.h - the commands.  Each turns its options into a recipe (one-liners
 * become one-step recipes) and hands it to cmd_execute: one execution path
 * for every command that touches data. */
#ifndef H5UFUNC_CMD_H
#define H5UFUNC_CMD_H

#include <stdbool.h>

#include "cli.h"
#include "recipe.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;      /* "UFUNC OPERAND... [-o OUT[,OUT2]] [OPTIONS]":
				   help COMMAND lists the OPTIONS */
	const char *summary;    /* one line */
	const char *own;        /* its own options (-o, -i), one per line */
	int step_flags;         /* the step options it takes as flags: an enum
				   one_liner (options.h), or -1 for none */
	bool data;              /* takes the options every data command shares
				   (cli.c's COMMON_OPTIONS) */
};

extern const struct command commands[];
const struct command *command_find(const char *name);

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_call(int argc, char **argv);
int cmd_reduce(int argc, char **argv);
int cmd_accumulate(int argc, char **argv);
int cmd_reduceat(int argc, char **argv);
int cmd_at(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_ufuncs(int argc, char **argv);
int cmd_help(int argc, char **argv);

/* Plan R against the files and, unless CHECK_ONLY, run it; with CHECK_ONLY
 * print the plan.  Collective.  Returns 0 or -1 with E set. */
int cmd_execute(struct cli *c, struct recipe *r, bool check_only, struct err *e);

#endif
