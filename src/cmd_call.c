/* cmd_call.c - the one-liners call, reduce, accumulate, reduceat, at and
 * eval, each built into a one-step recipe for cmd_execute. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "comm.h"
#include "diag.h"
#include "expr.h"
#include "options.h"
#include "vars.h"

/* Flag ids: -o, -i, --indices, then the step options (options.def) from
 * STEP_FLAG. */
enum { FLAG_OUT = 1, FLAG_INPUT, FLAG_INDICES, STEP_FLAG };
#define OWN_MAX 2   /* a one-liner's own flags */

/* The NOWN flags OWN, then one-liner W's step option flags, into OUT
 * (room for OPT_COUNT + OWN_MAX + 1). */
static void flags_of(enum one_liner w, int nown, const struct cli_option *own, struct cli_option *out)
{
	memcpy(out, own, sizeof *own * (size_t)nown);
	int n = nown + option_flags(w, STEP_FLAG, out + nown);
	out[n] = (struct cli_option){ NULL, 0, false, 0 };
}

/* The one-liners' end: run R when E holds no error (a usage error found
 * before MPI starts is printed by the first rank only), free A once the
 * error is printed (its texts, ${NAME} filled in, are what it quotes), and
 * give the exit status. */
static int finish(struct cli *c, struct recipe *r, struct arena *a, int argc, char **argv,
		  struct err *e)
{
	if (e->status) {
		cli_usage_error(e);
		arena_free(a);
		return e->status;
	}
	if (cli_session(c, &argc, &argv, e) == 0)
		cmd_execute(c, r, false, e);
	int status = cli_finish(e);
	arena_free(a);
	return status;
}

/* ${NAME} filled in (vars.h), as in a recipe's scalars, in C's texts FROM
 * to TO - 1: its operands, then the values of its flags (NULL for a flag
 * without one); W is where messages point. */
static int fill_vars(struct cli *c, struct arena *a, int from, int to, const char *w, struct err *e)
{
	char why[200];
	for (int i = from; i < to; i++) {
		const char **t = i < c->npos ? &c->pos[i] : &c->val[i - c->npos].arg;
		if (*t && vars_fill(&c->vars, *t, strlen(*t), a, t, why, sizeof why) < 0)
			return err_set(e, EXIT_USAGE, w, "%s", why);
	}
	return 0;
}

/* Split "a,b" (commas inside [...] kept, blanks around each piece
 * dropped, as Python reads "[0, 1] , [1, 2]") into at most MAX pieces of
 * FLAG's value ARG, each a WHAT, into TEXTS (*N of them). */
static int split_commas(struct arena *a, const char *flag, const char *what, const char *arg, int max,
			const char **texts, int *n, const char *w, struct err *e)
{
	*n = 0;
	const char *p = arg;
	for (;;) {
		const char *comma = p;
		for (int depth = 0; *comma && (*comma != ',' || depth); comma++)
			depth += *comma == '[' ? 1 : *comma == ']' ? -1 : 0;
		if (!*comma)
			comma = NULL;
		const char *end = comma ? comma : p + strlen(p);
		while (*p == ' ' || *p == '\t')
			p++;
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		size_t len = (size_t)(end - p);
		if (*n == max)
			return err_set(e, EXIT_USAGE, w, "%s takes at most %d %ss", flag, max, what);
		if (!len)
			return err_set(e, EXIT_USAGE, w, "%s '%s' has an empty %s", flag, arg, what);
		texts[(*n)++] = arena_strndup(a, p, len);
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* --indices IDX[,IDX...]: integers only (blanks between them) are one
 * index array, as NumPy reads a list ("[0,31,59]" for the planner), and
 * no integers at all ("" or blanks) the empty one, "[]" (NumPy's
 * ufunc.at(a, [], b): no update, shapes still checked); otherwise one index array
 * per axis: FILE:/PATH, a name, or a bracketed list.  Repeated, the
 * entries add up. */
static int add_indices(struct arena *a, const char *arg, struct recipe_step *s, const char *w,
		       struct err *e)
{
	bool ints = strpbrk(arg, "0123456789") != NULL || !arg[strspn(arg, " \t")];
	for (const char *c = arg; *c && ints; c++)
		ints = (*c >= '0' && *c <= '9') || *c == '-' || *c == '+' || *c == ',' || *c == ' ';
	if (ints && s->nidx == H5U_MAXDIM)
		return err_set(e, EXIT_USAGE, w, "--indices takes at most %d index arrays", H5U_MAXDIM);
	if (ints) {
		size_t len = strlen(arg) + 3;
		char *list = arena_alloc(a, len);
		snprintf(list, len, "[%s]", arg);
		s->idx[s->nidx++] = list;
		return 0;
	}
	int n;
	if (split_commas(a, "--indices", "index array", arg, H5U_MAXDIM - s->nidx, s->idx + s->nidx, &n,
			 w, e) < 0)
		return -1;
	s->nidx += n;
	return 0;
}

/* A one-liner's own flags (-o, --indices) and which step options it
 * takes as flags. */
struct one_liner_flags {
	int nown;
	struct cli_option own[OWN_MAX];
	enum one_liner w;
};

/* Macros, not objects: an object is no constant expression in C. */
#define OUT_FLAG { "out", 'o', true, FLAG_OUT }
#define INDICES_FLAG { "indices", 0, true, FLAG_INDICES }

/* UFUNC.METHOD as the first operand: call's UFUNC.outer, else refused,
 * naming the command that has the method.  Sets S's verb and ufunc. */
static int method_call(struct arena *a, struct recipe_step *s, const char *command, struct err *e)
{
	const char *dot = strchr(s->fn, '.');
	if (!dot)
		return 0;
	const char *method = dot + 1;
	if (s->verb != VERB_UFUNC || strcmp(method, "outer"))
		return err_set(e, EXIT_USAGE, command, "'%s': %s", s->fn,
			       !strcmp(method, "at") ? "ufunc.at is the command h5ufunc at" :
			       !strcmp(method, "reduceat") ? "ufunc.reduceat is the command h5ufunc reduceat" :
			       "the only method call takes is UFUNC.outer (see h5ufunc reduce and accumulate)");
	s->verb = VERB_OUTER;
	s->fn = arena_strndup(a, s->fn, (size_t)(dot - s->fn));
	return 0;
}

/* The one-liners share this: options and operands into a one-step recipe,
 * then cmd_execute.  VERB is the command's; UFUNC.outer in call makes an
 * outer step. */
static int one_liner(int argc, char **argv, enum verb verb, const struct one_liner_flags *f)
{
	struct cli_option options[OPT_COUNT + OWN_MAX + 1];
	flags_of(f->w, f->nown, f->own, options);
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
	if (fill_vars(&c, &a, 0, 1, command, &e) < 0)   /* the ufunc's name first */
		goto out;
	step.fn = c.pos[0];
	if (method_call(&a, &step, command, &e) < 0)
		goto out;
	snprintf(where, sizeof where, "%s %s", command, step.fn);
	if (fill_vars(&c, &a, 1, c.npos + c.nval, where, &e) < 0)
		goto out;
	if (c.npos - 1 > RECIPE_MAXIN) {
		err_set(&e, EXIT_USAGE, where, "too many operands (at most %d)", RECIPE_MAXIN);
		goto out;
	}
	step.nin = c.npos - 1;
	for (int i = 0; i < step.nin; i++)
		step.in[i] = c.pos[i + 1];
	for (int i = 0; i < c.nval; i++) {
		const char *arg = c.val[i].arg;
		if (c.val[i].id == FLAG_OUT && step.nout) {
			/* the last would win: a typo could turn a new file into an in-place write */
			err_set(&e, EXIT_USAGE, where, "-o given twice (several outputs go in one: -o A,B)");
			goto out;
		}
		int rc = c.val[i].id == FLAG_OUT ? split_commas(&a, "-o", "output", arg, RECIPE_MAXOUT, step.out,
								 &step.nout, where, &e)
		       : c.val[i].id == FLAG_INDICES ? add_indices(&a, arg, &step, where, &e)
		       : option_from_flag(c.val[i].id - STEP_FLAG, arg, &step.opts, &a, where, &e);
		if (rc < 0)
			goto out;
	}
	if ((verb == VERB_REDUCEAT || verb == VERB_AT) && step.nidx == 0)
		err_set(&e, EXIT_USAGE, where, "--indices is needed (%s)",
			verb == VERB_AT ? "one index array per axis, or per leading axis" : "where the segments start");
out:
	return finish(&c, &r, &a, argc, argv, &e);
}

int cmd_call(int argc, char **argv)
{
	static const struct one_liner_flags f = { 1, { OUT_FLAG }, ONE_CALL };
	return one_liner(argc, argv, VERB_UFUNC, &f);
}

int cmd_reduce(int argc, char **argv)
{
	static const struct one_liner_flags f = { 1, { OUT_FLAG }, ONE_REDUCE };
	return one_liner(argc, argv, VERB_REDUCE, &f);
}

int cmd_accumulate(int argc, char **argv)
{
	static const struct one_liner_flags f = { 1, { OUT_FLAG }, ONE_ACCUMULATE };
	return one_liner(argc, argv, VERB_ACCUMULATE, &f);
}

int cmd_reduceat(int argc, char **argv)
{
	static const struct one_liner_flags f = { 2, { OUT_FLAG, INDICES_FLAG }, ONE_REDUCEAT };
	return one_liner(argc, argv, VERB_REDUCEAT, &f);
}

int cmd_at(int argc, char **argv)
{
	static const struct one_liner_flags f = { 1, { INDICES_FLAG }, ONE_AT };
	return one_liner(argc, argv, VERB_AT, &f);
}

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
	struct cli_option eval_options[OPT_COUNT + OWN_MAX + 1];
	static const struct cli_option input_flag = { "input", 'i', true, FLAG_INPUT };
	flags_of(ONE_EVAL, 1, &input_flag, eval_options);
	if (cli_parse(&c, "eval", argc, argv, eval_options, true, &e) < 0)
		goto out;
	if (c.npos != 1) {
		err_set(&e, EXIT_USAGE, "eval", c.npos ? "one expression at a time (quote it)"
			: "an expression is needed: h5ufunc eval [-i NAME=REF]... '[OUT =] EXPRESSION'");
		goto out;
	}
	if (fill_vars(&c, &a, 0, c.npos + c.nval, "eval", &e) < 0)
		goto out;
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
