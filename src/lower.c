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

#include "contract.h"
#include "elementwise.h"
#include "expr.h"
#include "planner.h"
#include "resolve.h"

struct lowering {
	struct planner *pl;
	struct plan_step *s;
	const struct step_opts *o;
	const struct expr *root;
	struct plan_op *ops;
	int nops, cap;              /* ops made, and room for (make_room) */
	int nread;                          /* the arrays the expression reads ... */
	struct array *read[RECIPE_MAXIN];   /* ... as bound ... */
	struct array *as[RECIPE_MAXIN];     /* ... and as read: broadcast by name (arrays_by_name) */
	bool in_where;              /* lowering the where= option's text ... */
	struct mark where_mark;     /* ... which is here */
	bool epilogue;              /* CONTRACT_RESULT is op 0's result, a contraction's */
};

/* An op's operand while lowering: where it comes from, and what it looks
 * like to type resolution. */
struct operand_ref {
	struct op_src src;
	struct array view;
};

/* Where column COL of the text being lowered is, into *OUT: the step's
 * expression, or its where= option.  Returns OUT. */
static const struct site *node_where(struct site *out, const struct lowering *L, int col)
{
	if (L->in_where)
		return locate_mark(out, L->pl, L->s, L->where_mark);
	return locate_column(out, L->pl, L->s, col);
}

/* Room in L for CAP ops, from the plan's arena. */
static void make_room(struct lowering *L, int cap)
{
	L->ops = arena_alloc(L->pl->p->arena, sizeof *L->ops * (size_t)cap);
	L->cap = cap;
}

/* One more op of L's program: UF of ARGS (typed with O's dtype=, when
 * given), its result in *OUT.  Errors at W, among them a program past L's
 * room. */
static int lower_op(struct lowering *L, const struct ufunc *uf, const struct operand_ref *args,
		    const struct step_opts *o, const struct site *w, struct operand_ref *out, struct err *e)
{
	struct plan_step *s = L->s;
	const struct array *views[RECIPE_MAXIN];
	const struct shape *shapes[RECIPE_MAXIN];
	for (int k = 0; k < uf->nin; k++) {
		views[k] = &args[k].view;
		shapes[k] = &args[k].view.shape;
	}
	if (L->nops == L->cap)
		return err_at(e, EXIT_USAGE, w, "a step has at most %d operations, its missing-value tests included",
			      L->cap);
	struct plan_op *op = &L->ops[L->nops];
	op->uf = uf;
	op->nin = uf->nin;
	op->nout = 1;
	op->where = s->where;
	op->loc = &s->loc;
	if (shape_broadcast(uf->nin, shapes, &op->shape) < 0) {
		char msg[1024] = "", buf[800];
		for (int k = 0; k < uf->nin; k++) {
			size_t n = strlen(msg);
			snprintf(msg + n, sizeof msg - n, "%s%s", k ? " " : "",
				 shape_format_compact(shapes[k], buf, sizeof buf));
		}
		return err_at(e, EXIT_USAGE, w, "operands could not be broadcast together with shapes %s", msg);
	}
	op->loop = resolve_loop(uf, uf->nin, views, o, s->casting, w, e);
	if (!op->loop)
		return -1;
	for (int k = 0; k < uf->nin; k++) {
		op->src[k] = args[k].src;
		if (src_is_literal(args[k].src) &&
		    resolve_literal(&args[k].view, op, k,
				    uf->nin == 2 ? args[1 - k].view.dtype : DT_NONE, w, e) < 0)
			return -1;
	}
	memset(out, 0, sizeof *out);
	out->src = src_result(L->nops++, 0);
	out->view.kind = ARR_DATASET;
	out->view.dtype = op->loop->types[uf->nin];
	out->view.shape = op->shape;
	return 0;
}

static int lower(struct lowering *L, const struct expr *x, struct operand_ref *out, struct err *e)
{
	struct planner *pl = L->pl;
	struct plan_step *s = L->s;
	memset(out, 0, sizeof *out);
	if (x->kind == EXPR_LITERAL) {
		out->src = src_literal();
		out->view.kind = ARR_LITERAL;
		out->view.lit = x->lit;
		out->view.dtype = literal_default_dtype(&x->lit);
		return 0;
	}
	if (x->kind == EXPR_NAME && L->epilogue && !strcmp(x->name, CONTRACT_RESULT)) {
		out->src = src_result(0, 0);
		out->view.kind = ARR_DATASET;
		out->view.dtype = s->prog.ops[0].loop->types[s->prog.ops[0].nin];
		out->view.shape = s->prog.ops[0].shape;
		return 0;
	}
	struct site w;
	node_where(&w, L, x->col);
	if (x->kind == EXPR_NAME) {
		struct array *a = array_bound(pl, x->name);
		if (!a)
			return err_at(e, EXIT_USAGE, &w, "unknown name '%s'", x->name);
		for (int k = 0; k < L->nread; k++)
			if (L->read[k] == a)
				a = L->as[k];
		if (s->decoded && !(a = array_decoded(pl, a, &w, e)))
			return -1;
		out->view = *a;
		if (a->kind == ARR_LITERAL) {
			out->src = src_literal();
			return 0;
		}
		int k = 0;
		while (k < s->nin && s->in[k] != a)
			k++;
		if (k == RECIPE_MAXIN)
			return err_at(e, EXIT_USAGE, &w,
				      "an expression reads at most %d arrays", RECIPE_MAXIN);
		if (k == s->nin) {
			s->in[k] = a;
			s->bshape[k] = a->shape;
			s->nin++;
		}
		out->src = src_input(k);
		return 0;
	}
	const struct ufunc *uf = ufunc_lookup(x->name);
	if (!uf)
		return err_at(e, EXIT_USAGE, &w, "unknown ufunc '%s'", x->name);
	if (uf->signature)   /* an expr step's are split off before (gufunc_split): where='s */
		return err_at(e, EXIT_USAGE, &w, "%s is a generalized ufunc: not in where=", uf->name);
	if (uf->nout != 1)
		return err_at(e, EXIT_USAGE, &w, "ufunc '%s' gives %d outputs: call it in a ufunc step",
			      uf->name, uf->nout);
	if (x->nargs != uf->nin)
		return err_at(e, EXIT_USAGE, &w, "ufunc '%s' takes %d input%s, got %d", uf->name,
			      uf->nin, uf->nin == 1 ? "" : "s", x->nargs);
	/* each text holds at most EXPR_MAXOPS calls (expr_parse); L's room
	 * counts them, and lower_op refuses past it */
	struct operand_ref args[RECIPE_MAXIN];
	for (int k = 0; k < x->nargs; k++)
		if (lower(L, x->args[k], &args[k], e) < 0)
			return -1;
	return lower_op(L, uf, args, x == L->root ? L->o : NULL, &w, out, e);
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

/* L's program becomes S's, its last op's result S's output. */
static void adopt_program(struct plan_step *s, const struct lowering *L)
{
	const struct plan_op *last = &L->ops[L->nops - 1];
	s->prog.ops = L->ops;
	s->prog.nops = L->nops;
	s->out_dtype[0] = last->loop->types[last->nin];
	s->prog.out_src[0] = src_result(L->nops - 1, 0);
}

int lower_expression(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			   struct err *e)
{
	int col;
	char msg[256];
	const struct expr *root = s->src->tree ? s->src->tree
				  : expr_parse(s->src->fn, pl->p->arena, &col, msg, sizeof msg);
	if (!root)
		return err_at(e, EXIT_USAGE, LOCATE_COLUMN(pl, s, col), "%s", msg);
	if (root->kind != EXPR_CALL)
		return err_at(e, EXIT_USAGE, LOCATE_COLUMN(pl, s, root->col),
			      "an expression needs at least one operation (an operator or a ufunc call)");
	struct lowering L = { .pl = pl, .s = s, .o = o, .root = root };
	make_room(&L, EXPR_MAXOPS);
	collect(&L, root);
	for (int k = 0; k < L.nread && s->decoded; k++)
		if (!(L.as[k] = array_decoded(pl, L.as[k], LOCATE_COLUMN(pl, s, root->col), e)))
			return -1;
	if (arrays_by_name(pl, L.nread, L.as, option_given(o, OPT_BROADCAST) && o->by_position, &s->dims,
			   LOCATE_COLUMN(pl, s, root->col), e) < 0)
		return -1;
	struct operand_ref result;
	if (lower(&L, root, &result, e) < 0)
		return -1;
	adopt_program(s, &L);
	const struct plan_op *last = &L.ops[L.nops - 1];
	s->nout = 1;
	s->uf = last->uf;
	s->loop = last->loop;
	s->shape = last->shape;
	return 0;
}

int lower_epilogue(struct planner *pl, struct plan_step *s, const struct step_opts *o, struct err *e)
{
	const struct expr *root = s->src->tree;
	struct lowering L = { .pl = pl, .s = s, .o = o, .root = root, .epilogue = true };
	make_room(&L, EXPR_MAXOPS + 1);
	L.ops[0] = s->prog.ops[0];
	L.nops = 1;
	struct operand_ref result;
	if (lower(&L, root, &result, e) < 0)
		return -1;
	adopt_program(s, &L);
	return 0;
}

struct plan_op *lower_single(struct planner *pl, struct plan_step *s)
{
	struct plan_op *op = arena_alloc(pl->p->arena, sizeof *op);
	op->uf = s->uf;
	op->loop = s->loop;
	op->nin = s->nin;
	op->nout = s->nout;
	op->where = s->where;
	op->loc = &s->loc;
	for (int k = 0; k < s->nin; k++)
		op->src[k] = src_input(k);
	s->prog.nops = 1;
	s->prog.ops = op;
	for (int k = 0; k < s->nout; k++)
		s->prog.out_src[k] = src_result(0, k);
	return op;
}

int lower_where(struct planner *pl, struct plan_step *s, const struct step_opts *o, struct err *e)
{
	struct arena *a = pl->p->arena;
	const struct site *w = LOCATE(pl, s, o->mark[OPT_WHERE]);
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
			return err_at(e, EXIT_USAGE, w, "where: %s", msg);
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
	s->prog.own_ops = s->prog.nops;
	make_room(&L, s->prog.nops + EXPR_MAXOPS + 1);   /* the text's calls, its not_equal */
	memcpy(L.ops, s->prog.ops, sizeof *L.ops * (size_t)s->prog.nops);
	L.nops = s->prog.nops;
	struct operand_ref result;
	if (lower(&L, root, &result, e) < 0)
		return -1;
	const struct shape *shapes[2] = { &s->shape, &L.ops[L.nops - 1].shape };
	struct shape b;
	if (shape_broadcast(2, shapes, &b) < 0) {
		char x[800], y[800];
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, o->mark[OPT_WHERE]),
			      "operands could not be broadcast together with shapes %s %s",
			      shape_format_compact(shapes[0], x, sizeof x),
			      shape_format_compact(shapes[1], y, sizeof y));
	}
	s->shape = b;
	s->prog.ops = L.ops;
	s->prog.nops = L.nops;
	s->mask.has_where = true;
	s->mask.where_src = s->mask.print_src = result.src;
	return 0;
}

/* ---- units: strict's conversions ---- */

/* Operand ref SRC of S (in the program being rebuilt, L) as a view of
 * shape SHAPE: its dtype is an input's or an earlier op's result's. */
static struct operand_ref source_ref(const struct lowering *L, struct op_src src,
				     const struct shape *shape)
{
	struct operand_ref r;
	memset(&r, 0, sizeof r);
	r.src = src;
	r.view.kind = ARR_DATASET;
	r.view.shape = *shape;
	if (src_is_result(src)) {
		const struct plan_op *op = &L->ops[src.op];
		r.view.dtype = op->loop->types[op->nin + src.out];
	} else {
		r.view.dtype = L->s->in[src.input]->dtype;
	}
	return r;
}

int lower_convert(struct planner *pl, struct plan_step *s, const double *factor,
		  const char *const *name, struct err *e)
{
	struct arena *a = pl->p->arena;
	const struct site *w = LOCATE(pl, s, s->src->mark);
	struct lowering L = { .pl = pl, .s = s, .where_mark = s->src->mark };
	make_room(&L, s->prog.nops * (RECIPE_MAXIN + 1));
	struct op_src *map = arena_alloc(a, sizeof *map * (size_t)src_slots(s->prog.nops));
	for (int j = 0; j < s->prog.nops; j++) {
		struct plan_op op = s->prog.ops[j];
		for (int k = 0; k < op.nin; k++) {
			if (src_is_result(op.src[k]))
				op.src[k] = map[src_slot(op.src[k])];
			double f = factor[j * RECIPE_MAXIN + k];
			if (f == 1.0 || src_is_literal(op.src[k]))
				continue;
			struct operand_ref args[2] = { source_ref(&L, op.src[k], &op.shape) }, out;
			char kind = dtype_table[args[0].view.dtype].kind;
			if (kind != 'f' && kind != 'c')
				return err_at(e, EXIT_USAGE, w,
					      "%s is %s: converting its units needs a floating-point operand "
					      "(units: strict)", name[j * RECIPE_MAXIN + k],
					      dtype_table[args[0].view.dtype].name);
			char text[64];
			snprintf(text, sizeof text, "%.17g", f);
			args[1].src = src_literal();
			args[1].view.kind = ARR_LITERAL;
			literal_parse(arena_strdup(a, text), &args[1].view.lit);
			args[1].view.dtype = literal_default_dtype(&args[1].view.lit);
			if (lower_op(&L, ufunc_lookup("multiply"), args, NULL, w, &out, e) < 0)
				return -1;
			op.src[k] = out.src;
		}
		L.ops[L.nops] = op;
		for (int k = 0; k < op.nout; k++)
			map[src_slot(src_result(j, k))] = src_result(L.nops, k);
		L.nops++;
	}
	for (int k = 0; k < s->nout; k++)
		if (src_is_result(s->prog.out_src[k]))
			s->prog.out_src[k] = map[src_slot(s->prog.out_src[k])];
	s->prog.ops = L.ops;
	s->prog.nops = L.nops;
	return 0;
}

/* ---- masked mode (numpy.ma) ---- */

/* Op UF of the operand refs A and B (B unused for a unary UF) into *OUT. */
static int masked_op(struct lowering *L, const char *name, const struct operand_ref *a,
		     const struct operand_ref *b, struct operand_ref *out, struct err *e)
{
	struct operand_ref args[2] = { *a };
	if (b)
		args[1] = *b;
	return lower_op(L, ufunc_lookup(name), args, NULL, LOCATE(L->pl, L->s, L->where_mark),
			out, e);
}

/* *ACC = *ACC op X (the first time: X); *ANY says whether ACC is set. */
static int masked_fold(struct lowering *L, const char *name, struct operand_ref *acc, bool *any,
		       const struct operand_ref *x, struct err *e)
{
	if (!*any) {
		*acc = *x;
		*any = true;
		return 0;
	}
	struct operand_ref prev = *acc;
	return masked_op(L, name, &prev, x, acc, e);
}

/* One element of dtype T at P as the weak literal NumPy would compare it
 * with: a Python int for integers, a float for the others. */
static struct operand_ref typed_literal(enum dtype t, const unsigned char *p)
{
	struct operand_ref r;
	memset(&r, 0, sizeof r);
	r.src = src_literal();
	r.view.kind = ARR_LITERAL;
	struct literal *l = &r.view.lit;
	l->text = "";
	char kind = dtype_table[t].kind;
	if (kind == 'u') {
		uint64_t u;
		dtype_cast(t, p, 0, DT_UINT64, &u, 0, 1);
		l->kind = LIT_INT;
		l->magnitude = u;
		l->f = (double)u;
	} else if (kind == 'i') {
		int64_t i;
		dtype_cast(t, p, 0, DT_INT64, &i, 0, 1);
		l->kind = LIT_INT;
		l->negative = i < 0;
		l->magnitude = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
		l->f = (double)i;
	} else {
		l->kind = LIT_FLOAT;
		dtype_cast(t, p, 0, DT_FLOAT64, &l->f, 0, 1);   /* complex: its real part */
	}
	r.view.dtype = literal_default_dtype(l);
	return r;
}

/* Input K's missing elements from its mask plane (a named intermediate's,
 * array.plane), read as one more input of the step beside it: its not. */
static int missing_by_plane(struct lowering *L, int k, struct operand_ref *miss, bool *any,
			    struct err *e)
{
	struct plan_step *s = L->s;
	struct array *plane = s->in[k]->plane;
	int j = 0;
	while (j < s->nin && s->in[j] != plane)
		j++;
	if (j == RECIPE_MAXIN)
		return err_at(e, EXIT_USAGE, LOCATE(L->pl, s, L->where_mark),
			      "a step reads at most %d arrays, masks of named intermediates included",
			      RECIPE_MAXIN);
	if (j == s->nin) {
		s->in[j] = plane;
		s->bshape[j] = s->bshape[k];
		s->nin++;
	}
	struct operand_ref p;
	memset(&p, 0, sizeof p);
	p.src = src_input(j);
	p.view = *plane;
	p.view.shape = s->bshape[j];
	*any = true;
	return masked_op(L, "logical_not", &p, NULL, miss, e);
}

/* Input K's missing elements (S's input array X): the ops that say where
 * it is missing, into *MISS (*ANY false: nothing marks it missing). */
static int missing_input(struct lowering *L, int k, enum missing_mode mode, struct operand_ref *miss,
			 bool *any, struct err *e)
{
	struct array *x = L->s->in[k];
	const struct cf_missing *m = array_missing(L->pl, x, LOCATE(L->pl, L->s, L->where_mark), e);
	if (!m)
		return -1;
	struct operand_ref xr, t;
	memset(&xr, 0, sizeof xr);
	xr.src = src_input(k);
	xr.view = *x;
	xr.view.shape = L->s->bshape[k];   /* as it broadcasts (outer: with ones appended) */
	bool floating = dtype_table[x->dtype].kind == 'f' || dtype_table[x->dtype].kind == 'c';
	*any = false;
	if (x->plane && missing_by_plane(L, k, miss, any, e) < 0)   /* and no values: */
		return -1;                                            /* NaN, with mask-nan */
	for (int i = 0; i < m->nvalues; i++) {
		struct operand_ref v = typed_literal(x->dtype, m->value[i]);
		int rc = v.view.lit.kind == LIT_FLOAT && v.view.lit.f != v.view.lit.f
			 ? masked_op(L, "isnan", &xr, NULL, &t, e)   /* a NaN fill marks the NaNs */
			 : masked_op(L, "equal", &xr, &v, &t, e);
		if (rc < 0 || masked_fold(L, "logical_or", miss, any, &t, e) < 0)
			return -1;
	}
	if (m->has_min) {
		struct operand_ref v = typed_literal(x->dtype, m->min);
		if (masked_op(L, "less", &xr, &v, &t, e) < 0 || masked_fold(L, "logical_or", miss, any, &t, e) < 0)
			return -1;
	}
	if (m->has_max) {
		struct operand_ref v = typed_literal(x->dtype, m->max);
		if (masked_op(L, "greater", &xr, &v, &t, e) < 0 ||
		    masked_fold(L, "logical_or", miss, any, &t, e) < 0)
			return -1;
	}
	if ((mode == MISSING_MASK_NAN || m->nan) && floating &&
	    (masked_op(L, "isnan", &xr, NULL, &t, e) < 0 || masked_fold(L, "logical_or", miss, any, &t, e) < 0))
		return -1;
	return 0;
}

/* Operand K of op J as numpy.ma's domain sees it: the data the ufunc is
 * given (an input in its own dtype, an earlier result), or a literal. */
static struct operand_ref op_operand(const struct lowering *L, int j, int k)
{
	const struct plan_op *op = &L->ops[j];
	if (src_is_literal(op->src[k]))
		return typed_literal(op->loop->types[k], op->lit[k]);
	struct operand_ref r;
	memset(&r, 0, sizeof r);
	r.src = op->src[k];
	r.view.kind = ARR_DATASET;
	r.view.dtype = elementwise_source_dtype(L->s, r.src);
	r.view.shape = src_is_result(r.src) ? L->ops[r.src.op].shape : L->s->bshape[r.src.input];
	return r;
}

/* The bound V as numpy.ma compares with it: a Python float (weak), or
 * with STRONG a NumPy float64 (finfo(float).tiny). */
static struct operand_ref bound(double v, bool strong)
{
	struct operand_ref r = typed_literal(DT_FLOAT64, (const unsigned char *)&v);
	r.view.strong = strong;
	return r;
}

/* Where op J's operands lie outside numpy.ma's domain of its ufunc, into
 * *OUT (ufunc.h, enum ma_domain_kind). */
static int outside_domain(struct lowering *L, int j, struct operand_ref *out, struct err *e)
{
	const struct ma_domain *d = &L->ops[j].uf->ma_domain;
	struct operand_ref x = op_operand(L, j, 0), a = bound(d->a, d->kind == MA_SAFE_DIVIDE),
			   b = bound(d->b, false), t, u, v;
	switch (d->kind) {
	case MA_BELOW:
		return masked_op(L, "less", &x, &a, out, e);
	case MA_AT_OR_BELOW:
		return masked_op(L, "less_equal", &x, &a, out, e);
	case MA_OUTSIDE:
		if (masked_op(L, "greater", &x, &b, &t, e) < 0 || masked_op(L, "less", &x, &a, &u, e) < 0)
			return -1;
		return masked_op(L, "logical_or", &t, &u, out, e);
	case MA_TAN:
		if (masked_op(L, "cos", &x, NULL, &t, e) < 0 || masked_op(L, "absolute", &t, NULL, &u, e) < 0)
			return -1;
		return masked_op(L, "less", &u, &a, out, e);
	case MA_SAFE_DIVIDE: {
		struct operand_ref x2 = op_operand(L, j, 1);
		if (masked_op(L, "absolute", &x, NULL, &t, e) < 0 ||
		    masked_op(L, "multiply", &t, &a, &u, e) < 0 ||
		    masked_op(L, "absolute", &x2, NULL, &v, e) < 0)
			return -1;
		return masked_op(L, "greater_equal", &u, &v, out, e);
	}
	default:
		return 0;
	}
}

/* Op J's results that numpy.ma masks as a domain error: not finite, or of
 * operands outside its domain; folded into *VALID. */
static int domain_errors(struct lowering *L, int j, struct operand_ref *valid, bool *any,
			 struct err *e)
{
	const struct plan_op *op = &L->ops[j];
	struct operand_ref r, t, u;
	for (int k = 0; k < op->nout; k++) {
		enum dtype rt = op->loop->types[op->nin + k];
		if (dtype_table[rt].kind != 'f' && dtype_table[rt].kind != 'c')
			continue;   /* integers and bools are finite */
		memset(&r, 0, sizeof r);
		r.src = src_result(j, k);
		r.view.kind = ARR_DATASET;
		r.view.dtype = rt;
		r.view.shape = op->shape;
		if (masked_op(L, "isfinite", &r, NULL, &t, e) < 0 || masked_fold(L, "logical_and", valid, any, &t, e) < 0)
			return -1;
	}
	if (outside_domain(L, j, &t, e) < 0 || masked_op(L, "logical_not", &t, NULL, &u, e) < 0)
		return -1;
	return masked_fold(L, "logical_and", valid, any, &u, e);
}

int lower_missing(struct planner *pl, struct plan_step *s, int nin, const struct step_opts *o,
		  struct err *e)
{
	struct lowering L = { .pl = pl, .s = s, .o = o, .in_where = true,
			      .where_mark = option_given(o, OPT_MISSING) ? o->mark[OPT_MISSING] : s->src->mark };
	int values = 0;   /* two ops (equal, logical_or) for each missing value of each input */
	for (int k = 0; k < nin; k++) {
		if (s->in[k]->kind != ARR_DATASET)
			continue;
		const struct cf_missing *m = array_missing(pl, s->in[k], LOCATE(pl, s, L.where_mark), e);
		if (!m)
			return -1;
		values += m->nvalues;
	}
	make_room(&L, s->prog.nops + EXPR_MAXOPS + 2 * values);
	memcpy(L.ops, s->prog.ops, sizeof *L.ops * (size_t)s->prog.nops);
	L.nops = s->prog.nops;
	int nprog = s->prog.nops;
	struct operand_ref valid, miss, ok;
	bool any = false;
	for (int k = 0; k < nin; k++) {
		bool has;
		if (s->in[k]->kind != ARR_DATASET)
			continue;
		if (missing_input(&L, k, o->missing, &miss, &has, e) < 0)
			return -1;
		if (has && (masked_op(&L, "logical_not", &miss, NULL, &ok, e) < 0 ||
			    masked_fold(&L, "logical_and", &valid, &any, &ok, e) < 0))
			return -1;
	}
	for (int j = 0; j < nprog; j++)
		if (L.ops[j].uf->ma_domain.kind != MA_NO_DOMAIN && domain_errors(&L, j, &valid, &any, e) < 0)
			return -1;
	if (!any)
		return 0;   /* nothing can be masked: today's result */
	if (!src_is_result(valid.src)) {   /* a bare input or literal: made an op */
		struct operand_ref t = valid;
		if (masked_op(&L, "logical_and", &t, &t, &valid, e) < 0)
			return -1;
	}
	s->mask.masked = true;
	if (!s->mask.has_where)
		s->prog.own_ops = nprog;
	s->mask.valid_src = s->mask.print_src = valid.src;
	if (s->mask.has_where) {
		struct operand_ref w;
		memset(&w, 0, sizeof w);
		w.src = s->mask.where_src;
		w.view.kind = ARR_DATASET;
		w.view.dtype = DT_BOOL;
		w.view.shape = L.ops[s->mask.where_src.op].shape;
		struct operand_ref both;
		if (masked_op(&L, "logical_and", &w, &valid, &both, e) < 0)
			return -1;
		s->mask.print_src = both.src;
	}
	const struct shape *shapes[2] = { &s->shape, &L.ops[s->mask.valid_src.op].shape };
	struct shape b;
	if (shape_broadcast(2, shapes, &b) == 0)
		s->shape = b;
	s->prog.ops = L.ops;
	s->prog.nops = L.nops;
	return 0;
}
