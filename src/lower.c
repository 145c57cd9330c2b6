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
	int nread;                          /* the arrays the expression reads ... */
	struct array *read[RECIPE_MAXIN];   /* ... as bound ... */
	struct array *as[RECIPE_MAXIN];     /* ... and as read: broadcast by name (arrays_by_name) */
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
			return err_set(e, EXIT_USAGE, expr_where(pl, s, x->col), "unknown name '%s'", x->name);
		for (int k = 0; k < L->nread; k++)
			if (L->read[k] == a)
				a = L->as[k];
		out->view = *a;
		if (a->kind == ARR_LITERAL) {
			out->src = OP_LITERAL;
			return 0;
		}
		int k = 0;
		while (k < s->nin && s->in[k] != a)
			k++;
		if (k == RECIPE_MAXIN)
			return err_set(e, EXIT_USAGE, expr_where(pl, s, x->col),
				       "an expression reads at most %d arrays", RECIPE_MAXIN);
		if (k == s->nin) {
			s->in[k] = a;
			s->bshape[k] = a->shape;
			s->nin++;
		}
		out->src = -1 - k;
		return 0;
	}
	const char *w = expr_where(pl, s, x->col);
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
	w = expr_where(pl, s, x->col);
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

/* The arrays X reads, each once, in the order they appear. */
static void collect(struct lowering *L, const struct expr *x)
{
	if (x->kind == EXPR_CALL) {
		for (int k = 0; k < x->nargs; k++)
			collect(L, x->args[k]);
		return;
	}
	struct array *a = x->kind == EXPR_NAME ? array_bound(L->pl, x->name) : NULL;
	if (!a || a->kind == ARR_LITERAL || L->nread == RECIPE_MAXIN)
		return;
	for (int k = 0; k < L->nread; k++)
		if (L->read[k] == a)
			return;
	L->read[L->nread] = L->as[L->nread] = a;
	L->nread++;
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
	collect(&L, root);
	if (arrays_by_name(pl, s, L.nread, L.as, (o->given & (1u << OPT_BROADCAST)) && o->by_position,
			   expr_where(pl, s, root->col), e) < 0)
		return -1;
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
