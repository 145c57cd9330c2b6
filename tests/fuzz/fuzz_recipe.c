/* fuzz_recipe.c - libFuzzer target: recipe text through the parser, the
 * planner and the error display.
 *
 * Each input is the text of a recipe.  It is parsed as `h5ufunc run` parses
 * it (with two --set variables, so ${NAME} substitution is reached); a
 * recipe that parses is planned against the HDF5 files of the working
 * directory (fuzz.mk runs the target in a directory holding the bad-input
 * fixtures, f.h5 and e.h5), which reads every operand and literal through
 * operand.c and literal.c, and the plan is printed to /dev/null.  An error
 * is shown as h5ufunc shows it, with the source line and caret (diag.c), on
 * stderr (fuzz.mk closes it with -close_fd_mask=2; sanitizer reports still
 * reach the terminal).
 *
 * Nothing is written and nothing is run: the planner opens files read-only,
 * and executing a plan is not fuzzed here.  MPI is not initialised (one
 * rank).  It checks no results: it looks for crashes, hangs, leaks and
 * undefined behaviour, and for errors that break the message contract (an
 * empty message, or a status other than 1 or 2).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "err.h"
#include "h5io.h"
#include "plan.h"
#include "recipe.h"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	h5io_init();
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	return 0;
}

/* The error record is well formed: status 1 or 2 and some text. */
static void check_error(const struct err *e)
{
	if (e->status != EXIT_USAGE && e->status != EXIT_RUN)
		abort();
	if (!e->msg[0] || !memchr(e->msg, '\0', sizeof e->msg))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *names[] = {"DIR", "X"};
	static const char *values[] = {"f.h5", "f.h5:/x"};
	const struct vars vars = {2, names, values, NULL};
	static const char path[] = "r.yaml";

	/* h5ufunc reads a recipe into a NUL-terminated buffer (cmd_run.c). */
	char *text = malloc(size + 1);
	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';

	struct arena a = {0};
	struct recipe r;
	struct err e = {0};
	if (recipe_parse(text, size, path, &vars, &a, &r, &e) == 0) {
		struct plan p;
		struct plan_options o = {
			.memory = (size_t)256 << 20,
			.overwrite = false,
			.nranks = 1,
			.command = NULL,
			.token = "fuzz",
		};
		if (plan_build(&r, &o, &a, &p, &e) == 0)
			plan_print(&p, devnull);
	}
	if (e.status) {
		check_error(&e);
		diag_set_source(path, text, size);
		diag_print(&e);
	}
	arena_free(&a);
	free(text);
	return 0;
}
