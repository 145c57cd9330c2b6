/* main.c - the command table and the dispatcher. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cpu.h"
#include "deflate.h"
#include "options.h"
#include "print.h"

const struct command commands[] = {
	{ "run", cmd_run, "[OPTIONS] RECIPE|-", "run a YAML recipe (- reads it from stdin)", "", -1,
	  true },
	{ "check", cmd_check, "[OPTIONS] RECIPE|-",
	  "validate a recipe against the real files, print the plan, write nothing", "", -1, true },
	{ "call", cmd_call, "UFUNC[.outer] OPERAND... [-o OUT[,OUT2]] [OPTIONS]",
	  "call a ufunc elementwise (or UFUNC.outer); without -o print the result",
	  "  -o OUT[,OUT2]      write the result(s) to FILE:/PATH (an operand's dataset: in place)\n",
	  ONE_CALL, true },
	{ "reduce", cmd_reduce, "UFUNC OPERAND [-o OUT] [OPTIONS]",
	  "np.UFUNC.reduce over any axes; without -o print the result",
	  "  -o OUT             write the result to FILE:/PATH\n", ONE_REDUCE, true },
	{ "accumulate", cmd_accumulate, "UFUNC OPERAND [-o OUT] [OPTIONS]",
	  "np.UFUNC.accumulate along one axis; without -o print the result",
	  "  -o OUT             write the result to FILE:/PATH\n", ONE_ACCUMULATE, true },
	{ "reduceat", cmd_reduceat, "UFUNC OPERAND --indices LIST|FILE:/PATH [-o OUT] [OPTIONS]",
	  "np.UFUNC.reduceat along one axis; without -o print the result",
	  "  -o OUT             write the result to FILE:/PATH\n"
	  "  --indices LIST|FILE:/PATH  where the segments start: 0,31,59 or an integer dataset\n",
	  ONE_REDUCEAT, true },
	{ "at", cmd_at, "UFUNC FILE:/PATH --indices IDX[,IDX...] [OPERAND] [OPTIONS]",
	  "np.UFUNC.at: unbuffered, in place into FILE:/PATH, repeated indices applied every time",
	  "  --indices IDX[,IDX...]  one index array per (leading) axis: FILE:/PATH, [0,3,3], or 0,3,3\n",
	  ONE_AT, true },
	{ "eval", cmd_eval, "[-i NAME=REF]... [OPTIONS] '[OUT =] EXPRESSION'",
	  "evaluate a NumPy-like expression in one pass; without OUT = print the result",
	  "  -i NAME=REF        bind NAME to a FILE:/PATH dataset or a number\n", ONE_EVAL, true },
	{ "recover", cmd_recover, "FILE",
	  "finish or roll back what an interrupted run left in FILE, and say what it was",
	  "  -q, --quiet        say nothing, only put it right\n", -1, false },
	{ "ufuncs", cmd_ufuncs, "[NAME]", "list the ufuncs and their type loops, or describe one", "", -1, false },
	{ "help", cmd_help, "[COMMAND]", "describe the commands, or one command", "", -1, false },
	{ NULL, NULL, NULL, NULL, NULL, -1, false }
};

const struct command *command_find(const char *name)
{
	for (const struct command *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void usage(FILE *f)
{
	fputs("usage: h5ufunc COMMAND [OPTIONS] ...\n\n"
	      "NumPy's ufuncs over HDF5 datasets, on one process or many MPI ranks.\n\n"
	      "commands:\n", f);
	for (const struct command *c = commands; c->name; c++)
		fprintf(f, "  h5ufunc %s %s\n      %s\n", c->name, c->usage, c->summary);
	fputs("\n  h5ufunc --help | help COMMAND | COMMAND --help | --version\n"
	      "See h5ufunc(1) and h5ufunc-recipe(5).\n", f);
}

int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	const struct command *c = command_find(argv[1]);
	if (!c) {
		fprintf(stderr, "h5ufunc: help: unknown command '%s'\n", argv[1]);
		return 2;
	}
	printf("usage: h5ufunc %s %s\n\n%s\n", c->name, c->usage, c->summary);
	if (*c->own || c->step_flags >= 0 || c->data) {
		printf("\noptions:\n%s", c->own);
		if (c->step_flags >= 0)
			option_print_help(stdout, (enum one_liner)c->step_flags);
		if (c->data)
			cli_print_common(stdout);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (cpu_init() < 0) {
		fprintf(stderr, "h5ufunc: H5UFUNC_CPU: unknown level '%s' (sse2, avx2 or avx512)\n",
			getenv("H5UFUNC_CPU"));
		return 2;
	}
	if (deflate_choose() < 0) {
		fprintf(stderr, "h5ufunc: H5UFUNC_DEFLATE: unknown '%s' (libdeflate or zlib)\n",
			getenv("H5UFUNC_DEFLATE"));
		return 2;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		H5open();
		deflate_register();
		printf("h5ufunc %s\nkernels: %s (this CPU: %s)\ndeflate: %s\n", H5UFUNC_VERSION,
		       cpu_level_name(cpu_level()), cpu_level_name(cpu_level_available()), deflate_name());
		return 0;
	}
	const struct command *c = command_find(argv[1]);
	if (!c) {
		fprintf(stderr, "h5ufunc: unknown command '%s' (see h5ufunc --help)\n", argv[1]);
		return 2;
	}
	/* h5ufunc COMMAND --help (or -h), as git takes it: help COMMAND.  No
	 * command takes either, and neither is a number or an operand. */
	if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
		char *help[] = { "help", argv[1], NULL };
		return cmd_help(2, help);
	}
	int status = c->run(argc - 1, argv + 1);
	/* what went to stdout after the run (--json, a plan, help) */
	const char *lost = print_flush(stdout);
	if (lost && status == 0) {
		fprintf(stderr, "h5ufunc: standard output: %s\n", lost);
		status = 1;
	}
	return status;
}
