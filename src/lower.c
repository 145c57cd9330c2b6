/* lower.c - an expression step's syntax tree (expr.h) -> its op program.
 *
 * Each ufunc call of the expression becomes one op, in evaluation order,
 * with the dtype NumPy gives that node as a ufunc step would (NEP 50 weak
 * literals, the node's own type resolution), so that an expression gives
 * exactly the result of the equivalent chain of steps.  The names it reads
 * become the step's inputs.  Errors point at the column of the node in the
 * expression's text.  Part of the planner (planner.h).
 */
#include <stdio.h>
#include <string.h>

#include "expr.h"
#include "planner.h"
#include "resolve.h"

struct lowering {
	struct planner *pl;
	struct plan_step *s;
	const struct step_opts *o;
	const struct expr *root;
	struct plan_op *ops;
	int nops;
	bool in_where;              /* lowering the where= option's text ... */
	struct mark where_mark;     /* ... which is here */
};

/* An op's operand while lowering: where it comes from, and what it looks
 * like to type resolution. */
struct operand_ref {
	int src;
	struct array view;
};

/* Where column COL (1-based, in the expression's text) is for the user: a
 * column of the one-liner's argument, or a line and column of the recipe. */
static const char *expr_where(struct planner *pl, struct plan_step *s, int col)
{
	const struct recipe_step *rs = s->src;
	if (pl->o->command) {
		snprintf(pl->where, sizeof pl->where, "%s: column %d", s->where, col + rs->fn_offset);
		err_loc_set(&pl->loc, ERR_EXPRESSION, 1, col + rs->fn_offset, s->where);
		err_site(pl->e, pl->where, &pl->loc);
		return pl->where;
	}
	struct mark m = rs->fn_text.line > 0 ? rs->fn_text : rs->fn_mark;
	if (m.line > 0) {
		int start = m.col;
		for (int i = 0; i < col - 1 && rs->fn[i]; i++) {
			if (rs->fn[i] == '\n') {
				m.line++;
				m.col = start;
			} else {
				m.col++;
			}
		}
	}
	return planner_where(pl, s, m);
}

/* Where column COL of the text being lowered is: the step's expression,
 * or its where= option. */
static const char *node_where(struct lowering *L, int col)
{
	if (L->in_where)
		return planner_where(L->pl, L->s, L->where_mark);
	return expr_where(L->pl, L->s, col);
}

static int lower(struct lowering *L, const struct expr *x, struct operand_ref *out, struct err *e)
{
	struct planner *pl = L->pl;
	struct plan_step *s = L->s;
	memset(out, 0, sizeof *out);
	if (x->kind == EXPR_LITERAL) {
		out->src = OP_LITERAL;
		out->view.kind = ARR_LITERAL;
		out->view.lit = x->lit;
		out->view.dtype = literal_default_dtype(&x->lit);
		return 0;
	}
	if (x->kind == EXPR_NAME) {
		struct array *a = array_bound(pl, x->name);
		if (!a)
			return err_set(e, EXIT_USAGE, node_where(L, x->col), "unknown name '%s'", x->name);
		out->view = *a;
		if (a->kind == ARR_LITERAL) {
			out->src = OP_LITERAL;
			return 0;
		}
		int k = 0;
		while (k < s->nin && s->in[k] != a)
			k++;
		if (k == RECIPE_MAXIN)
			return err_set(e, EXIT_USAGE, node_where(L, x->col),
				       "an expression reads at most %d arrays", RECIPE_MAXIN);
		if (k == s->nin) {
			s->in[k] = a;
			s->bshape[k] = a->shape;
			s->nin++;
		}
		out->src = -1 - k;
		return 0;
	}
	const char *w = node_where(L, x->col);
	const struct ufunc *uf = ufunc_lookup(x->name);
	if (!uf)
		return err_set(e, EXIT_USAGE, w, "unknown ufunc '%s'", x->name);
	if (uf->nout != 1)
		return err_set(e, EXIT_USAGE, w, "ufunc '%s' gives %d outputs: call it in a ufunc step",
			       uf->name, uf->nout);
	if (x->nargs != uf->nin)
		return err_set(e, EXIT_USAGE, w, "ufunc '%s' takes %d input%s, got %d", uf->name,
			       uf->nin, uf->nin == 1 ? "" : "s", x->nargs);
	if (L->nops == EXPR_MAXOPS)
		return err_set(e, EXIT_USAGE, w, "an expression has at most %d operations", EXPR_MAXOPS);
	struct operand_ref args[RECIPE_MAXIN];
	const struct array *views[RECIPE_MAXIN];
	const struct shape *shapes[RECIPE_MAXIN];
	for (int k = 0; k < x->nargs; k++) {
		if (lower(L, x->args[k], &args[k], e) < 0)
			return -1;
		views[k] = &args[k].view;
		shapes[k] = &args[k].view.shape;
	}
	w = node_where(L, x->col);
	struct plan_op *op = &L->ops[L->nops];
	op->uf = uf;
	op->nin = uf->nin;
	op->nout = 1;
	op->where = s->where;
	if (shape_broadcast(x->nargs, shapes, &op->shape) < 0) {
		char msg[1024] = "", buf[800];
		for (int k = 0; k < x->nargs; k++) {
			size_t n = strlen(msg);
			snprintf(msg + n, sizeof msg - n, "%s%s", k ? " " : "",
				 shape_format_compact(shapes[k], buf, sizeof buf));
		}
		return err_set(e, EXIT_USAGE, w, "operands could not be broadcast together with shapes %s", msg);
	}
	op->loop = resolve_loop(uf, x->nargs, views, x == L->root ? L->o : NULL, s->casting, w, e);
	if (!op->loop)
		return -1;
	for (int k = 0; k < x->nargs; k++) {
		op->src[k] = args[k].src;
		if (args[k].src == OP_LITERAL && resolve_literal(&args[k].view, op, k, w, e) < 0)
			return -1;
	}
	out->src = OP_REF(L->nops++, 0);
	out->view.kind = ARR_DATASET;
	out->view.dtype = op->loop->types[uf->nin];
	out->view.shape = op->shape;
	return 0;
}

int lower_expression(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			   struct err *e)
{
	int col;
	char msg[256];
	struct expr *root = expr_parse(s->src->fn, pl->p->arena, &col, msg, sizeof msg);
	if (!root)
		return err_set(e, EXIT_USAGE, expr_where(pl, s, col), "%s", msg);
	if (root->kind != EXPR_CALL)
		return err_set(e, EXIT_USAGE, expr_where(pl, s, root->col),
			       "an expression needs at least one operation (an operator or a ufunc call)");
	struct lowering L = { .pl = pl, .s = s, .o = o, .root = root };
	L.ops = arena_alloc(pl->p->arena, sizeof *L.ops * EXPR_MAXOPS);
	struct operand_ref result;
	if (lower(&L, root, &result, e) < 0)
		return -1;
	const struct plan_op *last = &L.ops[L.nops - 1];
	s->ops = L.ops;
	s->nops = L.nops;
	s->nout = 1;
	s->uf = last->uf;
	s->loop = last->loop;
	s->shape = last->shape;
	s->out_dtype[0] = last->loop->types[last->nin];
	s->out_src[0] = OP_REF(L.nops - 1, 0);
	return 0;
}

int lower_where(struct planner *pl, struct plan_step *s, const struct step_opts *o, struct err *e)
{
	struct arena *a = pl->p->arena;
	const char *w = planner_where(pl, s, o->mark[OPT_WHERE]);
	struct expr *cond = NULL;
	struct operand op;
	struct err quiet = {0};
	bool operand = s->verb != VERB_EXPR ||
		       (operand_parse(o->where, a, &op, "", &quiet) == 0 && op.kind == OPERAND_DATASET);
	if (operand) {
		/* a name, a dataset or a number, bound to a name no recipe can write */
		struct array *x = array_operand(pl, o->where, w, e);
		if (!x || array_bind(pl, "where=", x, w, e) < 0)
			return -1;
		cond = arena_alloc(a, sizeof *cond);
		memset(cond, 0, sizeof *cond);
		cond->kind = EXPR_NAME;
		cond->name = "where=";
	} else {
		int col;
		char msg[256];
		cond = expr_parse(o->where, a, &col, msg, sizeof msg);
		if (!cond)
			return err_set(e, EXIT_USAGE, w, "where: %s", msg);
	}
	/* NumPy takes where= as bool: not_equal(WHERE, 0) */
	struct expr *zero = arena_alloc(a, sizeof *zero), *root = arena_alloc(a, sizeof *root);
	memset(zero, 0, sizeof *zero);
	memset(root, 0, sizeof *root);
	zero->kind = EXPR_LITERAL;
	literal_parse("0", &zero->lit);
	root->kind = EXPR_CALL;
	root->name = "not_equal";
	root->nargs = 2;
	root->args[0] = cond;
	root->args[1] = zero;
	struct lowering L = { .pl = pl, .s = s, .o = o, .root = NULL, .in_where = true,
			      .where_mark = o->mark[OPT_WHERE] };
	L.ops = arena_alloc(a, sizeof *L.ops * (size_t)(s->nops + EXPR_MAXOPS));
	memcpy(L.ops, s->ops, sizeof *L.ops * (size_t)s->nops);
	L.nops = s->nops;
	struct operand_ref result;
	if (lower(&L, root, &result, e) < 0)
		return -1;
	const struct shape *shapes[2] = { &s->shape, &L.ops[L.nops - 1].shape };
	struct shape b;
	if (shape_broadcast(2, shapes, &b) < 0) {
		char x[800], y[800];
		return err_set(e, EXIT_USAGE, planner_where(pl, s, o->mark[OPT_WHERE]),
			       "operands could not be broadcast together with shapes %s %s",
			       shape_format_compact(shapes[0], x, sizeof x),
			       shape_format_compact(shapes[1], y, sizeof y));
	}
	s->shape = b;
	s->ops = L.ops;
	s->nops = L.nops;
	s->has_where = true;
	s->where_src = result.src;
	return 0;
}
