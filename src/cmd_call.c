/* cmd_call.c - the one-liners call, reduce and accumulate, each built into
 * a one-step recipe for cmd_execute. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "comm.h"
#include "diag.h"
#include "expr.h"
#include "options.h"

/* Flag ids: -o or -i, then the step options (options.def) from STEP_FLAG. */
enum { FLAG_OUT = 1, FLAG_INPUT, STEP_FLAG };

/* OWN (-o or -i), then one-liner W's step option flags, into OUT (room for
 * OPT_COUNT + 2). */
static void flags_of(enum one_liner w, struct cli_option own, struct cli_option *out)
{
	out[0] = own;
	int n = 1 + option_flags(w, STEP_FLAG, out + 1);
	out[n] = (struct cli_option){ NULL, 0, false, 0 };
}

/* The one-liners' end: run R when E holds no error (a usage error found
 * before MPI starts is printed by the first rank only), free A, and give the
 * exit status. */
static int finish(struct cli *c, struct recipe *r, struct arena *a, int argc, char **argv,
		  struct err *e)
{
	if (e->status) {
		arena_free(a);
		cli_usage_error(e);
		return e->status;
	}
	if (cli_session(c, &argc, &argv, e) == 0)
		cmd_execute(c, r, false, e);
	arena_free(a);
	return cli_finish(e);
}

/* Split "a,b" into at most RECIPE_MAXOUT outputs. */
static int split_out(struct arena *a, const char *arg, struct recipe_step *s, const char *w,
		     struct err *e)
{
	s->nout = 0;
	const char *p = arg;
	for (;;) {
		const char *comma = p;
		for (int depth = 0; *comma && (*comma != ',' || depth); comma++)
			depth += *comma == '[' ? 1 : *comma == ']' ? -1 : 0;
		if (!*comma)
			comma = NULL;
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

/* The one-liners share this: options and operands into a one-step recipe,
 * then cmd_execute.  VERB is the command's; UFUNC.outer in call makes an
 * outer step. */
static int one_liner(int argc, char **argv, enum verb verb, enum one_liner w)
{
	struct cli_option options[OPT_COUNT + 2];
	flags_of(w, (struct cli_option){ "out", 'o', true, FLAG_OUT }, options);
	struct err e = {0};
	struct cli c;
	struct arena a = {0};
	struct recipe r = { .version = 1, .nsteps = 1 };
	struct recipe_step step = { .verb = verb };
	r.steps = &step;
	const char *command = argv[0];
	char where[160];
	if (cli_parse(&c, command, argc, argv, options, true, &e) < 0)
		goto out;
	if (c.npos < 1) {
		err_set(&e, EXIT_USAGE, command, "a ufunc name and its operands are needed");
		goto out;
	}
	step.fn = c.pos[0];
	const char *dot = strchr(step.fn, '.');
	if (dot) {
		const char *method = dot + 1;
		if (verb != VERB_UFUNC || strcmp(method, "outer")) {
			err_set(&e, EXIT_USAGE, command, "'%s': %s", step.fn,
				!strcmp(method, "at") ? "ufunc.at is not supported" :
				!strcmp(method, "reduceat") ? "ufunc.reduceat is not supported" :
				"the only method call takes is UFUNC.outer (see h5ufunc reduce and accumulate)");
			goto out;
		}
		step.verb = VERB_OUTER;
		step.fn = arena_strndup(&a, step.fn, (size_t)(dot - step.fn));
	}
	snprintf(where, sizeof where, "%s %s", command, step.fn);
	if (c.npos - 1 > RECIPE_MAXIN) {
		err_set(&e, EXIT_USAGE, where, "too many operands (at most %d)", RECIPE_MAXIN);
		goto out;
	}
	step.nin = c.npos - 1;
	for (int i = 0; i < step.nin; i++)
		step.in[i] = c.pos[i + 1];
	struct step_opts *o = &step.opts;
	for (int i = 0; i < c.nval; i++) {
		const char *arg = c.val[i].arg;
		if (c.val[i].id == FLAG_OUT) {
			if (split_out(&a, arg, &step, where, &e) < 0)
				goto out;
		} else if (option_from_flag(c.val[i].id - STEP_FLAG, arg, o, &a, where, &e) < 0) {
			goto out;
		}
	}
out:
	return finish(&c, &r, &a, argc, argv, &e);
}

int cmd_call(int argc, char **argv) { return one_liner(argc, argv, VERB_UFUNC, ONE_CALL); }
int cmd_reduce(int argc, char **argv) { return one_liner(argc, argv, VERB_REDUCE, ONE_REDUCE); }
int cmd_accumulate(int argc, char **argv) { return one_liner(argc, argv, VERB_ACCUMULATE, ONE_ACCUMULATE); }

/* eval: -i NAME=REF bindings and '[OUT =] EXPRESSION' as a one-step recipe. */
int cmd_eval(int argc, char **argv)
{
	struct err e = {0};
	struct cli c;
	struct arena a = {0};
	struct recipe_input inputs[CLI_MAXPOS];
	struct recipe r = { .version = 1, .nsteps = 1, .inputs = inputs };
	struct recipe_step step = { .verb = VERB_EXPR };
	r.steps = &step;
	struct cli_option eval_options[OPT_COUNT + 2];
	flags_of(ONE_EVAL, (struct cli_option){ "input", 'i', true, FLAG_INPUT }, eval_options);
	if (cli_parse(&c, "eval", argc, argv, eval_options, true, &e) < 0)
		goto out;
	if (c.npos != 1) {
		err_set(&e, EXIT_USAGE, "eval", c.npos ? "one expression at a time (quote it)"
			: "an expression is needed: h5ufunc eval [-i NAME=REF]... '[OUT =] EXPRESSION'");
		goto out;
	}
	for (int i = 0; i < c.nval; i++) {
		const char *arg = c.val[i].arg;
		switch (c.val[i].id) {
		case FLAG_INPUT: {
			const char *eq = strchr(arg, '=');
			if (!eq || eq == arg) {
				err_set(&e, EXIT_USAGE, "eval", "-i takes NAME=REF, got '%s'", arg);
				goto out;
			}
			struct recipe_input *in = &inputs[r.ninputs++];
			memset(in, 0, sizeof *in);
			in->name = arena_strndup(&a, arg, (size_t)(eq - arg));
			in->ref = eq + 1;
			for (int j = 0; j < r.ninputs - 1; j++)
				if (!strcmp(inputs[j].name, in->name)) {
					err_set(&e, EXIT_USAGE, "eval", "-i %s given twice", in->name);
					goto out;
				}
			break;
		}
		default:
			if (option_from_flag(c.val[i].id - STEP_FLAG, arg, &step.opts, &a, "eval", &e) < 0)
				goto out;
			break;
		}
	}
	const char *out;
	size_t at = expr_split_assignment(c.pos[0], &a, &out);
	step.fn = c.pos[0] + at;
	step.fn_offset = (int)at;
	if (out) {
		if (!*out) {
			err_set(&e, EXIT_USAGE, "eval", "nothing before '=' to assign to");
			goto out;
		}
		bool input = strstr(out, ":/") != NULL;
		for (int j = 0; j < r.ninputs && !input; j++)
			input = !strcmp(inputs[j].name, out);
		if (!input) {
			err_set(&e, EXIT_USAGE, "eval",
				"'%s' is neither an -i name nor a FILE:/PATH dataset to write to", out);
			goto out;
		}
		step.nout = 1;
		step.out[0] = out;
	}
	diag_set_source(ERR_EXPRESSION, c.pos[0], strlen(c.pos[0]));
out:
	return finish(&c, &r, &a, argc, argv, &e);
}
