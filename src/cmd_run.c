/* cmd_run.c - run and check: a recipe file (or stdin) through the one
 * execution path, cmd_execute, which every data command shares. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "comm.h"
#include "exec.h"
#include "diag.h"
#include "plan.h"
#include "report.h"
#include "tmpfiles.h"

int cmd_execute(struct cli *c, struct recipe *r, bool check_only, struct err *e)
{
	struct arena a = {0};
	struct plan p;
	char token[TMPFILES_TOKEN_LEN + 1];
	if (tmpfiles_token(token, e) < 0)
		return -1;
	struct plan_options o = {
		.memory = c->memory,
		.overwrite = c->overwrite,
		.nranks = comm_size(),
		.check_only = check_only,
		.command = r->path ? NULL : c->command,
		.token = token,
		.quiet = c->quiet,
		.risk_partial_writes = c->risk_partial_writes,
	};
	int rc = plan_build(r, &o, &a, &p, e);
	if (comm_agree(e) < 0)
		rc = -1;
	if (rc == 0 && check_only) {
		if (comm_rank() == 0 && c->json)
			report_plan(&p, (int64_t)c->memory, stdout);
		else if (comm_rank() == 0)
			plan_print(&p, stdout);
	} else if (rc == 0) {
		char history[4096];
		cli_history_line(c, history, sizeof history);
		struct report_options ro = {
			.progress = c->progress_given ? c->progress : !c->quiet && isatty(STDERR_FILENO),
			.json = c->json,
			.memory = (int64_t)c->memory,
		};
		if (c->quiet)
			ro.progress = c->progress_given && c->progress;
		rc = exec_run(&p, c->no_history ? NULL : history, &ro, e);
	}
	arena_free(&a);
	return rc;
}

/* Rank 0 reads the recipe (stdin reaches only rank 0 under mpirun) and
 * sends it to the others.  *TEXT is malloc'd. */
static int read_recipe(const char *path, char **text, size_t *len, struct err *e)
{
	*text = NULL;
	*len = 0;
	if (comm_rank() == 0) {
		FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
		if (!f) {
			err_set(e, EXIT_USAGE, path, "cannot read the recipe: %s", strerror(errno));
		} else {
			size_t cap = 4096;
			*text = malloc(cap);
			size_t n;
			while (*text && (n = fread(*text + *len, 1, cap - *len - 1, f)) > 0) {
				*len += n;
				if (cap - *len - 1 == 0)
					*text = realloc(*text, cap *= 2);
			}
			if (!*text)
				abort();
			(*text)[*len] = '\0';
			if (ferror(f))
				err_set(e, EXIT_USAGE, path, "cannot read the recipe: %s", strerror(errno));
			if (f != stdin)
				fclose(f);
		}
	}
	if (comm_agree(e) < 0)
		return -1;
	comm_bcast_buffer(text, len);
	return 0;
}

static int run_or_check(int argc, char **argv, bool check_only)
{
	/* eval's -i, known here only to say where a recipe binds its names */
	static const struct cli_option own[] = { { "input", 'i', true, 1 }, { NULL, 0, false, 0 } };
	struct err e = {0};
	struct cli c;
	if (cli_parse(&c, argv[0], argc, argv, own, true, &e) == 0 && c.nval > 0)
		err_set(&e, EXIT_USAGE, argv[0], "-i binds names of eval's expression; a recipe binds its names "
			"under inputs: (a value from the command line as ${NAME}, with --set NAME=VALUE)");
	else if (!e.status && c.npos != 1)
		err_set(&e, EXIT_USAGE, argv[0], c.npos ? "one recipe at a time" : "a recipe file, or - for stdin, is needed");
	if (e.status) {
		cli_usage_error(&e);
		return e.status;
	}
	if (cli_session(&c, &argc, &argv, &e) < 0)
		return cli_finish(&e);
	char *text = NULL;
	size_t len = 0;
	if (read_recipe(c.pos[0], &text, &len, &e) == 0) {
		struct arena a = {0};
		struct recipe r;
		const char *name = strcmp(c.pos[0], "-") ? c.pos[0] : "<stdin>";
		diag_set_source(name, text, len);
		if (recipe_parse(text, len, name, &c.vars, &a, &r, &e) == 0)
			cmd_execute(&c, &r, check_only, &e);
		arena_free(&a);
	}
	int status = cli_finish(&e);
	free(text);
	return status;
}

int cmd_run(int argc, char **argv) { return run_or_check(argc, argv, false); }
int cmd_check(int argc, char **argv) { return run_or_check(argc, argv, true); }
