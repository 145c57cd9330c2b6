/* cmd_call.c - the one-liners call, reduce and accumulate, each built into
 * a one-step recipe for cmd_execute. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "comm.h"
#include "diag.h"
#include "expr.h"

enum {
	OPT_CALL_OUT = 1, OPT_CALL_DTYPE, OPT_CALL_CASTING, OPT_CALL_AXIS, OPT_CALL_KEEPDIMS,
	OPT_CALL_INITIAL
};

static const struct cli_option call_options[] = {
	{ "out", 'o', true, OPT_CALL_OUT },
	{ "dtype", 0, true, OPT_CALL_DTYPE },
	{ "casting", 0, true, OPT_CALL_CASTING },
	{ NULL, 0, false, 0 }
};

static const struct cli_option reduce_options[] = {
	{ "out", 'o', true, OPT_CALL_OUT },
	{ "dtype", 0, true, OPT_CALL_DTYPE },
	{ "axis", 0, true, OPT_CALL_AXIS },
	{ "keepdims", 0, false, OPT_CALL_KEEPDIMS },
	{ "initial", 0, true, OPT_CALL_INITIAL },
	{ NULL, 0, false, 0 }
};

static const struct cli_option accumulate_options[] = {
	{ "out", 'o', true, OPT_CALL_OUT },
	{ "dtype", 0, true, OPT_CALL_DTYPE },
	{ "axis", 0, true, OPT_CALL_AXIS },
	{ NULL, 0, false, 0 }
};

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

/* --axis N[,N...] | all */
static int parse_axis(const char *arg, struct step_opts *o, const char *w, struct err *e)
{
	o->given |= 1u << OPT_AXIS;
	if (!strcmp(arg, "all") || !strcmp(arg, "None") || !strcmp(arg, "none")) {
		o->axis_all = true;
		return 0;
	}
	const char *p = arg;
	o->naxis = 0;
	for (;;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || (*end && *end != ',') || v < -H5U_MAXDIM || v >= H5U_MAXDIM ||
		    o->naxis == H5U_MAXDIM)
			return err_set(e, EXIT_USAGE, w, "--axis: '%s' is not N[,N...] or all", arg);
		o->axis[o->naxis++] = (int)v;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

/* The one-liners share this: options and operands into a one-step recipe,
 * then cmd_execute.  VERB is the command's; UFUNC.outer in call makes an
 * outer step. */
static int one_liner(int argc, char **argv, enum verb verb, const struct cli_option *options)
{
	struct err e = {0};
	struct cli c;
	struct arena a = {0};
	struct recipe r = { .version = 1, .nsteps = 1 };
	struct recipe_step step = { .verb = verb };
	r.steps = &step;
	const char *command = argv[0];
	char where[160];
	if (cli_parse(&c, command, argc, argv, options, true, &e) < 0)
		goto usage;
	if (c.npos < 1) {
		err_set(&e, EXIT_USAGE, command, "a ufunc name and its operands are needed");
		goto usage;
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
			goto usage;
		}
		step.verb = VERB_OUTER;
		step.fn = arena_strndup(&a, step.fn, (size_t)(dot - step.fn));
	}
	snprintf(where, sizeof where, "%s %s", command, step.fn);
	if (c.npos - 1 > RECIPE_MAXIN) {
		err_set(&e, EXIT_USAGE, where, "too many operands (at most %d)", RECIPE_MAXIN);
		goto usage;
	}
	step.nin = c.npos - 1;
	for (int i = 0; i < step.nin; i++)
		step.in[i] = c.pos[i + 1];
	struct step_opts *o = &step.opts;
	for (int i = 0; i < c.nval; i++) {
		const char *arg = c.val[i].arg;
		switch (c.val[i].id) {
		case OPT_CALL_OUT:
			if (split_out(&a, arg, &step, where, &e) < 0)
				goto usage;
			break;
		case OPT_CALL_DTYPE:
			if (dtype_from_name(arg, &o->dtype) < 0) {
				err_set(&e, EXIT_USAGE, where, "--dtype: unknown dtype '%s'", arg);
				goto usage;
			}
			o->given |= 1u << OPT_DTYPE;
			break;
		case OPT_CALL_CASTING:
			if (casting_from_name(arg, &o->casting) < 0) {
				err_set(&e, EXIT_USAGE, where,
					"--casting: '%s' is not one of no, equiv, safe, same_kind, unsafe", arg);
				goto usage;
			}
			o->given |= 1u << OPT_CASTING;
			break;
		case OPT_CALL_AXIS:
			if (parse_axis(arg, o, where, &e) < 0)
				goto usage;
			break;
		case OPT_CALL_KEEPDIMS:
			o->given |= 1u << OPT_KEEPDIMS;
			o->keepdims = true;
			break;
		case OPT_CALL_INITIAL:
			o->given |= 1u << OPT_INITIAL;
			o->initial = arg;
			break;
		}
	}
	if (cli_session(&c, &argc, &argv, &e) == 0)
		cmd_execute(&c, &r, false, &e);
	arena_free(&a);
	return cli_finish(&e);
usage:
	arena_free(&a);
	cli_usage_error(&e);
	return e.status;
}

int cmd_call(int argc, char **argv) { return one_liner(argc, argv, VERB_UFUNC, call_options); }
int cmd_reduce(int argc, char **argv) { return one_liner(argc, argv, VERB_REDUCE, reduce_options); }
int cmd_accumulate(int argc, char **argv) { return one_liner(argc, argv, VERB_ACCUMULATE, accumulate_options); }

enum { OPT_EVAL_INPUT = 1, OPT_EVAL_DTYPE, OPT_EVAL_CASTING };

static const struct cli_option eval_options[] = {
	{ "input", 'i', true, OPT_EVAL_INPUT },
	{ "dtype", 0, true, OPT_EVAL_DTYPE },
	{ "casting", 0, true, OPT_EVAL_CASTING },
	{ NULL, 0, false, 0 }
};

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
	if (cli_parse(&c, "eval", argc, argv, eval_options, true, &e) < 0)
		goto usage;
	if (c.npos != 1) {
		err_set(&e, EXIT_USAGE, "eval", c.npos ? "one expression at a time (quote it)"
			: "an expression is needed: h5ufunc eval [-i NAME=REF]... '[OUT =] EXPRESSION'");
		goto usage;
	}
	for (int i = 0; i < c.nval; i++) {
		const char *arg = c.val[i].arg;
		switch (c.val[i].id) {
		case OPT_EVAL_INPUT: {
			const char *eq = strchr(arg, '=');
			if (!eq || eq == arg) {
				err_set(&e, EXIT_USAGE, "eval", "-i takes NAME=REF, got '%s'", arg);
				goto usage;
			}
			struct recipe_input *in = &inputs[r.ninputs++];
			memset(in, 0, sizeof *in);
			in->name = arena_strndup(&a, arg, (size_t)(eq - arg));
			in->ref = eq + 1;
			for (int j = 0; j < r.ninputs - 1; j++)
				if (!strcmp(inputs[j].name, in->name)) {
					err_set(&e, EXIT_USAGE, "eval", "-i %s given twice", in->name);
					goto usage;
				}
			break;
		}
		case OPT_EVAL_DTYPE:
			if (dtype_from_name(arg, &step.opts.dtype) < 0) {
				err_set(&e, EXIT_USAGE, "eval", "--dtype: unknown dtype '%s'", arg);
				goto usage;
			}
			step.opts.given |= 1u << OPT_DTYPE;
			break;
		case OPT_EVAL_CASTING:
			if (casting_from_name(arg, &step.opts.casting) < 0) {
				err_set(&e, EXIT_USAGE, "eval",
					"--casting: '%s' is not one of no, equiv, safe, same_kind, unsafe", arg);
				goto usage;
			}
			step.opts.given |= 1u << OPT_CASTING;
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
			goto usage;
		}
		bool input = strstr(out, ":/") != NULL;
		for (int j = 0; j < r.ninputs && !input; j++)
			input = !strcmp(inputs[j].name, out);
		if (!input) {
			err_set(&e, EXIT_USAGE, "eval",
				"'%s' is neither an -i name nor a FILE:/PATH dataset to write to", out);
			goto usage;
		}
		step.nout = 1;
		step.out[0] = out;
	}
	diag_set_source("<expression>", c.pos[0], strlen(c.pos[0]));
	if (cli_session(&c, &argc, &argv, &e) == 0)
		cmd_execute(&c, &r, false, &e);
	arena_free(&a);
	return cli_finish(&e);
usage:
	arena_free(&a);
	cli_usage_error(&e);
	return e.status;
}
