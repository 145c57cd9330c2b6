/* cli.h - command-line options shared by the commands.
 *
 * Each command declares its options in a table; cli_parse() reads argv
 * against it and the options common to every command that reads data.  A
 * number is never taken for an option ("-3" is an operand) and "--" ends
 * the options.  cli_session() then starts what a data command needs (MPI
 * when launched or asked for, HDF5) and cli_finish() ends it, printing the
 * error record once.
 */
#ifndef H5UFUNC_CLI_H
#define H5UFUNC_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "err.h"
#include "vars.h"

#define CLI_MAXPOS 64
#define CLI_MAXSET 64

struct cli_option {
	const char *name;      /* long name without "--" */
	char short_name;       /* 0 when none */
	bool has_arg;
	int id;                /* reported back in struct cli_value */
};

struct cli_value {
	int id;
	const char *arg;
};

/* Options every data command takes. */
enum {
	OPTV_SET = 1000, OPTV_MEMORY, OPTV_MPI, OPTV_PROGRESS, OPTV_NO_PROGRESS,
	OPTV_QUIET, OPTV_JSON, OPTV_OVERWRITE, OPTV_NO_HISTORY, OPTV_MPI_INFO,
	OPTV_RISK_PARTIAL_WRITES
};

struct cli {
	const char *command;          /* "run", "call", ... */
	int argc;
	char **argv;                  /* the whole command line, for history */
	int npos;
	const char *pos[CLI_MAXPOS];  /* operands, in order */
	int nval;
	struct cli_value val[CLI_MAXPOS];   /* the command's own options, in order */
	/* common options */
	struct vars vars;
	const char *set_name[CLI_MAXSET], *set_value[CLI_MAXSET];   /* into argv */
	size_t set_name_len[CLI_MAXSET];
	size_t memory;
	bool mpi, quiet, overwrite, no_history, json, progress_given, progress;
	bool risk_partial_writes;     /* no journal for writes into existing files */
};

/* Parse ARGV[1..ARGC-1] (ARGV[0] is the command) against OWN (terminated
 * by a row with name NULL) and, when DATA, the common options. */
int cli_parse(struct cli *c, const char *command, int argc, char **argv,
	      const struct cli_option *own, bool data, struct err *e);
/* Parse a size: a whole number of bytes, or a decimal number with K, M,
 * G or T (binary; KiB and KB read as K), at least one byte in all; -1
 * for anything else. */
int cli_size(const char *text, size_t *out);
/* The common options' help, one per line, as help COMMAND shows it. */
void cli_print_common(FILE *f);
/* Start MPI (when launched or --mpi) and HDF5. */
int cli_session(struct cli *c, int *argc, char ***argv, struct err *e);
/* Print a usage error found before MPI started, on the launcher's first
 * rank only (or without a launcher). */
void cli_usage_error(const struct err *e);
/* Print E once (rank 0), finish MPI, and return the exit status. */
int cli_finish(struct err *e);
/* "Sun Nov 22 07:44:16 2026: h5ufunc run r.yaml", the same on every rank. */
void cli_history_line(const struct cli *c, char *buf, size_t len);

#endif
