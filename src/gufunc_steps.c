/* gufunc_steps.c - an expression with generalized ufuncs (`a @ b`,
 * `vecdot(u, v)`) as a chain of steps, before planning.
 *
 * A contraction cannot run inside an elementwise pass, so an expr: step
 * (or eval) whose expression calls one is split where it does: each
 * operand of a generalized ufunc that is itself an expression becomes an
 * expr step of its own, the call a ufunc step, and what the expression
 * does with its result a last expr step.  Their results are named
 * intermediates the chain passes on (in memory, or spilled as any named
 * intermediate is), and the optimizer fuses the elementwise parts as it
 * fuses any steps.  What is done with the last product with numbers alone
 * (a @ b * 0.5) is the contraction's epilogue instead: no pass, no
 * intermediate.  Every part is named in messages as the step the user
 * wrote, and points at its expression.  An expression without a
 * generalized ufunc is left as it is.  Part of the planner (planner.h).
 */
#include <stdio.h>
#include <string.h>

#include "contract.h"
#include "expr.h"
#include "ufunc.h"

struct splitter {
	struct arena *a;
	const struct recipe *r;
	const struct recipe_step *src;   /* the expression step being split */
	int number;                      /* ... its number in the recipe */
	struct recipe_step *steps;       /* the steps so far */
	int n, cap;
	int names;                       /* intermediates named */
};

static bool is_gufunc_call(const struct expr *x)
{
	const struct ufunc *uf = x->kind == EXPR_CALL ? ufunc_lookup(x->name) : NULL;
	return uf && uf->signature;
}

static bool has_gufunc(const struct expr *x)
{
	if (is_gufunc_call(x))
		return true;
	for (int k = 0; x->kind == EXPR_CALL && k < x->nargs; k++)
		if (has_gufunc(x->args[k]))
			return true;
	return false;
}

static bool name_used(const struct recipe *r, const char *name)
{
	for (int i = 0; i < r->ninputs; i++)
		if (!strcmp(r->inputs[i].name, name))
			return true;
	for (int i = 0; i < r->nsteps; i++)
		for (int k = 0; k < r->steps[i].nout; k++)
			if (!strcmp(r->steps[i].out[k], name))
				return true;
	return false;
}

/* A name for an intermediate that the recipe does not use. */
static const char *fresh_name(struct splitter *sp)
{
	char buf[64];
	do
		snprintf(buf, sizeof buf, "_gufunc_part_%d", ++sp->names);
	while (name_used(sp->r, buf));
	return arena_strdup(sp->a, buf);
}

static struct recipe_step *new_step(struct splitter *sp)
{
	if (sp->n == sp->cap) {
		int cap = sp->cap ? 2 * sp->cap : 16;
		struct recipe_step *s = arena_alloc(sp->a, sizeof *s * (size_t)cap);
		if (sp->n)
			memcpy(s, sp->steps, sizeof *s * (size_t)sp->n);
		sp->steps = s;
		sp->cap = cap;
	}
	struct recipe_step *s = &sp->steps[sp->n++];
	memset(s, 0, sizeof *s);
	s->number = sp->number;
	return s;
}

/* A part of the expression step: its marks, and the options that apply
 * to every operation (casting, broadcast, units). */
static struct recipe_step *part(struct splitter *sp, enum verb v, const char *fn)
{
	const struct recipe_step *src = sp->src;
	struct recipe_step *s = new_step(sp);
	s->verb = v;
	s->fn = fn;
	s->mark = src->mark;
	s->fn_mark = src->fn_mark;
	s->fn_text = src->fn_text;
	s->fn_offset = src->fn_offset;
	s->part = true;
	s->text = src->fn;
	static const int every_op[] = { OPT_CASTING, OPT_BROADCAST, OPT_UNITS };
	for (size_t i = 0; i < sizeof every_op / sizeof *every_op; i++) {
		int opt = every_op[i];
		if (!option_given(&src->opts, opt))
			continue;
		option_give(&s->opts, opt);
		s->opts.mark[opt] = src->opts.mark[opt];
	}
	s->opts.casting = src->opts.casting;
	s->opts.by_position = src->opts.by_position;
	s->opts.units_off = src->opts.units_off;
	s->opts.units_strict = src->opts.units_strict;
	return s;
}

static struct expr *name_node(struct splitter *sp, const char *name, int col)
{
	struct expr *x = arena_alloc(sp->a, sizeof *x);
	memset(x, 0, sizeof *x);
	x->kind = EXPR_NAME;
	x->name = name;
	x->col = col;
	return x;
}

/* X with every generalized ufunc call in it made a step of the chain and
 * replaced by its result's name; ROOT: X is the whole expression, whose
 * call, if it is one, writes the step's outputs (NULL is returned). */
static const struct expr *hoist(struct splitter *sp, const struct expr *x, bool root)
{
	if (x->kind != EXPR_CALL || !has_gufunc(x))
		return x;
	struct expr *y = arena_alloc(sp->a, sizeof *y);
	*y = *x;
	for (int k = 0; k < x->nargs; k++)
		y->args[k] = (struct expr *)hoist(sp, x->args[k], false);
	if (!is_gufunc_call(x))
		return y;
	const char *in[RECIPE_MAXIN];
	for (int k = 0; k < y->nargs; k++) {
		const struct expr *arg = y->args[k];
		in[k] = arg->kind == EXPR_NAME ? arg->name : arg->kind == EXPR_LITERAL ? arg->lit.text : NULL;
		if (!in[k]) {   /* an operand computed by an expression of its own */
			struct recipe_step *p = part(sp, VERB_EXPR, sp->src->fn);
			p->tree = arg;
			p->nout = 1;
			p->out[0] = in[k] = fresh_name(sp);
			p->out_mark[0] = sp->src->fn_mark;
		}
	}
	struct recipe_step *g = part(sp, VERB_UFUNC, ufunc_lookup(x->name)->name);
	g->nin = y->nargs;
	for (int k = 0; k < y->nargs; k++) {
		g->in[k] = in[k];
		g->in_mark[k] = sp->src->fn_mark;
	}
	if (root) {
		g->nout = sp->src->nout;
		memcpy(g->out, sp->src->out, sizeof g->out);
		memcpy(g->out_mark, sp->src->out_mark, sizeof g->out_mark);
		g->opts = sp->src->opts;   /* every option: NumPy's errors for those it refuses */
		return NULL;
	}
	g->nout = 1;
	g->out[0] = fresh_name(sp);
	g->out_mark[0] = sp->src->fn_mark;
	return name_node(sp, g->out[0], x->col);
}

/* Does X use no array but NAME (numbers aside)? */
static bool only_name(const struct expr *x, const char *name)
{
	if (x->kind == EXPR_NAME)
		return !strcmp(x->name, name);
	for (int k = 0; x->kind == EXPR_CALL && k < x->nargs; k++)
		if (!only_name(x->args[k], name))
			return false;
	return true;
}

/* NAME's nodes in X renamed CONTRACT_RESULT. */
static void rename_result(const struct expr *x, const char *name)
{
	if (x->kind == EXPR_NAME && !strcmp(x->name, name))
		((struct expr *)x)->name = CONTRACT_RESULT;
	for (int k = 0; x->kind == EXPR_CALL && k < x->nargs; k++)
		rename_result(x->args[k], name);
}

/* What the expression does with the last call's product, REST, when it
 * does it with numbers alone (a @ b * 0.5, sqrt(u @ v)): the contraction's
 * epilogue, run on each box of results before it is written; it takes
 * the step's outputs and options (dtype= is the epilogue's outermost
 * operation's).  False when REST needs a pass of its own. */
static bool fuse_epilogue(struct splitter *sp, const struct expr *rest)
{
	struct recipe_step *g = &sp->steps[sp->n - 1];
	const struct step_opts *o = &sp->src->opts;
	unsigned own = 1u << OPT_WHERE | 1u << OPT_MISSING;
	if (g->verb != VERB_UFUNC || g->nout != 1 || !only_name(rest, g->out[0]) || (o->given & own))
		return false;
	rename_result(rest, g->out[0]);
	g->tree = rest;
	g->nout = sp->src->nout;
	memcpy(g->out, sp->src->out, sizeof g->out);
	memcpy(g->out_mark, sp->src->out_mark, sizeof g->out_mark);
	g->opts = *o;
	return true;
}

/* Step I of R, split when it needs to be. */
static void split_step(struct splitter *sp, int i)
{
	const struct recipe_step *src = &sp->r->steps[i];
	int col;
	char msg[256];
	const struct expr *root = src->verb == VERB_EXPR && !src->tree
				  ? expr_parse(src->fn, sp->a, &col, msg, sizeof msg) : NULL;
	sp->src = src;
	sp->number = i + 1;
	if (!root || !has_gufunc(root)) {   /* as it is (a parse error is the planner's) */
		*new_step(sp) = *src;
		sp->steps[sp->n - 1].number = i + 1;
		return;
	}
	const struct expr *rest = hoist(sp, root, true);
	if (!rest || fuse_epilogue(sp, rest))
		return;
	struct recipe_step *last = new_step(sp);
	*last = *src;
	last->number = i + 1;
	last->part = true;
	last->tree = rest;
	last->text = src->fn;
}

int gufunc_split(const struct recipe *r, struct arena *a, struct recipe *out)
{
	*out = *r;
	bool any = false;
	for (int i = 0; i < r->nsteps && !any; i++) {
		int col;
		char msg[256];
		const struct expr *x = r->steps[i].verb == VERB_EXPR
				       ? expr_parse(r->steps[i].fn, a, &col, msg, sizeof msg) : NULL;
		any = x && has_gufunc(x);
	}
	if (!any)
		return 0;
	struct splitter sp = { .a = a, .r = r };
	for (int i = 0; i < r->nsteps; i++)
		split_step(&sp, i);
	out->steps = sp.steps;
	out->nsteps = sp.n;
	return 0;
}
