/* cmd_call.c - the one-liners: call (and, later, reduce, accumulate,
 * eval), each built into a one-step recipe for cmd_execute. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "comm.h"

enum { OPT_CALL_OUT = 1, OPT_CALL_DTYPE, OPT_CALL_CASTING };

static const struct cli_option call_options[] = {
	{ "out", 'o', true, OPT_CALL_OUT },
	{ "dtype", 0, true, OPT_CALL_DTYPE },
	{ "casting", 0, true, OPT_CALL_CASTING },
	{ NULL, 0, false, 0 }
};

/* Split "a,b" into at most RECIPE_MAXOUT outputs. */
static int split_out(struct arena *a, const char *arg, struct recipe_step *s, const char *w,
		     struct err *e)
{
	s->nout = 0;
	const char *p = arg;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		if (s->nout == RECIPE_MAXOUT)
			return err_set(e, EXIT_USAGE, w, "-o takes at most %d outputs", RECIPE_MAXOUT);
		if (!n)
			return err_set(e, EXIT_USAGE, w, "-o '%s' has an empty output", arg);
		s->out[s->nout++] = arena_strndup(a, p, n);
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

int cmd_call(int argc, char **argv)
{
	struct err e = {0};
	struct cli c;
	struct arena a = {0};
	struct recipe r = { .version = 1, .nsteps = 1 };
	struct recipe_step step = { .verb = VERB_UFUNC };
	r.steps = &step;
	if (cli_parse(&c, "call", argc, argv, call_options, true, &e) < 0)
		goto usage;
	if (c.npos < 1) {
		err_set(&e, EXIT_USAGE, "call", "a ufunc name and its operands are needed");
		goto usage;
	}
	step.fn = c.pos[0];
	char where[128];
	snprintf(where, sizeof where, "call %s", step.fn);
	if (c.npos - 1 > RECIPE_MAXIN) {
		err_set(&e, EXIT_USAGE, where, "too many operands (at most %d)", RECIPE_MAXIN);
		goto usage;
	}
	step.nin = c.npos - 1;
	for (int i = 0; i < step.nin; i++)
		step.in[i] = c.pos[i + 1];
	for (int i = 0; i < c.nval; i++) {
		const char *arg = c.val[i].arg;
		switch (c.val[i].id) {
		case OPT_CALL_OUT:
			if (split_out(&a, arg, &step, where, &e) < 0)
				goto usage;
			break;
		case OPT_CALL_DTYPE:
			if (dtype_from_name(arg, &step.opts.dtype) < 0) {
				err_set(&e, EXIT_USAGE, where, "--dtype: unknown dtype '%s'", arg);
				goto usage;
			}
			step.opts.given |= 1u << OPT_DTYPE;
			break;
		case OPT_CALL_CASTING:
			if (casting_from_name(arg, &step.opts.casting) < 0) {
				err_set(&e, EXIT_USAGE, where,
					"--casting: '%s' is not one of no, equiv, safe, same_kind, unsafe", arg);
				goto usage;
			}
			step.opts.given |= 1u << OPT_CASTING;
			break;
		}
	}
	if (cli_session(&c, &argc, &argv, &e) == 0)
		cmd_execute(&c, &r, false, &e);
	arena_free(&a);
	return cli_finish(&e);
usage:
	arena_free(&a);
	err_print(&e);
	return e.status;
}

static int not_yet(const char *command)
{
	fprintf(stderr, "h5ufunc: %s: not available in this version of h5ufunc\n", command);
	return EXIT_USAGE;
}

int cmd_reduce(int argc, char **argv) { return not_yet("reduce"); }
int cmd_accumulate(int argc, char **argv) { return not_yet("accumulate"); }
int cmd_eval(int argc, char **argv) { return not_yet("eval"); }
