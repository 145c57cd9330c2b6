/* expr.c - expression lexer and recursive-descent parser (Python's
 * precedence), producing ufunc calls over names and literals. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "expr.h"

#define MAX_DEPTH 200

struct parser {
	const char *text, *p;
	struct arena *a;
	int depth;
	int ncalls;        /* operations made so far */
	int col;           /* of the error */
	char *msg;
	size_t len;
	bool failed;
};

static void fail(struct parser *ps, const char *at, const char *fmt, const char *arg)
{
	if (ps->failed)
		return;
	ps->failed = true;
	ps->col = (int)(at - ps->text) + 1;
	snprintf(ps->msg, ps->len, fmt, arg);
}

static void skip_space(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
}

/* Take the operator OP if it is next (and not the start of a longer one). */
static bool take(struct parser *ps, const char *op)
{
	skip_space(ps);
	size_t n = strlen(op);
	if (strncmp(ps->p, op, n))
		return false;
	char next = ps->p[n];
	/* "*" is not "**", "/" not "//", "<" not "<<" or "<=", "=" never alone */
	if (n == 1 && (next == op[0] && strchr("*/<>", op[0])))
		return false;
	if (n == 1 && next == '=' && strchr("<>!=", op[0]))
		return false;
	ps->p += n;
	return true;
}

#define STR_(x) #x
#define STR(x) STR_(x)

/* A new node at AT.  Past EXPR_MAXOPS operations the parse fails there, so
 * that no later stage walks a tree deeper than that. */
static struct expr *node(struct parser *ps, enum expr_kind kind, const char *at)
{
	if (kind == EXPR_CALL && ++ps->ncalls > EXPR_MAXOPS)
		fail(ps, at, "an expression has at most %s operations", STR(EXPR_MAXOPS));
	struct expr *x = arena_alloc(ps->a, sizeof *x);
	x->kind = kind;
	x->col = (int)(at - ps->text) + 1;
	return x;
}

static struct expr *call(struct parser *ps, const char *fn, const char *at, int nargs,
			 struct expr *a0, struct expr *a1)
{
	struct expr *x = node(ps, EXPR_CALL, at);
	x->name = fn;
	x->nargs = nargs;
	x->args[0] = a0;
	x->args[1] = a1;
	return x;
}

static struct expr *parse_expr(struct parser *ps);
static struct expr *parse_factor(struct parser *ps);

static struct expr *parse_primary(struct parser *ps)
{
	skip_space(ps);
	const char *at = ps->p;
	if (take(ps, "(")) {
		struct expr *x = parse_expr(ps);
		if (x && !take(ps, ")"))
			fail(ps, ps->p, "expected ')'%s", "");
		return ps->failed ? NULL : x;
	}
	if (isdigit((unsigned char)*at) || (*at == '.' && isdigit((unsigned char)at[1]))) {
		const char *q = at;
		while (isalnum((unsigned char)*q) || *q == '.' ||
		       ((*q == '+' || *q == '-') && (q[-1] == 'e' || q[-1] == 'E')))
			q++;
		char *text = arena_strndup(ps->a, at, (size_t)(q - at));
		struct expr *x = node(ps, EXPR_LITERAL, at);
		if (literal_parse(text, &x->lit) < 0) {
			fail(ps, at, "'%s' is not a number", text);
			return NULL;
		}
		x->lit.text = text;
		ps->p = q;
		return x;
	}
	if (isalpha((unsigned char)*at) || *at == '_') {
		const char *q = at;
		while (isalnum((unsigned char)*q) || *q == '_')
			q++;
		char *name = arena_strndup(ps->a, at, (size_t)(q - at));
		ps->p = q;
		if (take(ps, "(")) {
			struct expr *x = node(ps, EXPR_CALL, at);
			x->name = name;
			if (!take(ps, ")")) {
				do {
					if (x->nargs == RECIPE_MAXIN) {
						fail(ps, ps->p, "too many arguments%s", "");
						return NULL;
					}
					x->args[x->nargs] = parse_expr(ps);
					if (!x->args[x->nargs++])
						return NULL;
				} while (take(ps, ","));
				if (!take(ps, ")")) {
					fail(ps, ps->p, "expected ',' or ')'%s", "");
					return NULL;
				}
			}
			return x;
		}
		struct literal lit;
		if (literal_parse(name, &lit) == 0) {   /* nan, inf, true, false */
			struct expr *x = node(ps, EXPR_LITERAL, at);
			x->lit = lit;
			x->lit.text = name;
			return x;
		}
		struct expr *x = node(ps, EXPR_NAME, at);
		x->name = name;
		return x;
	}
	if (!*at)
		fail(ps, at, "unexpected end of expression%s", "");
	else
		fail(ps, at, "unexpected '%.1s'", at);
	return NULL;
}

static struct expr *parse_power(struct parser *ps)
{
	struct expr *x = parse_primary(ps);
	skip_space(ps);
	const char *at = ps->p;
	if (x && take(ps, "**")) {
		struct expr *y = parse_factor(ps);   /* right-associative, binds -y */
		return y ? call(ps, "power", at, 2, x, y) : NULL;
	}
	return x;
}

/* A literal with a sign folded in: -2 is the literal -2. */
static struct expr *negate_literal(struct parser *ps, struct expr *x, const char *at)
{
	struct literal *l = &x->lit;
	if (l->kind == LIT_BOOL)
		return NULL;
	size_t n = strlen(l->text) + 2;
	char *text = arena_alloc(ps->a, n);
	if (l->text[0] == '-')
		snprintf(text, n, "%s", l->text + 1);
	else
		snprintf(text, n, "-%s", l->text);
	struct expr *y = node(ps, EXPR_LITERAL, at);
	if (literal_parse(text, &y->lit) < 0)
		return NULL;
	y->lit.text = text;
	return y;
}

static struct expr *parse_factor(struct parser *ps)
{
	if (++ps->depth > MAX_DEPTH) {
		fail(ps, ps->p, "expression nested too deeply%s", "");
		return NULL;
	}
	skip_space(ps);
	const char *at = ps->p;
	struct expr *x = NULL;
	if (take(ps, "-")) {
		struct expr *y = parse_factor(ps);
		if (y && y->kind == EXPR_LITERAL)
			x = negate_literal(ps, y, at);
		if (y && !x)
			x = call(ps, "negative", at, 1, y, NULL);
	} else if (take(ps, "+")) {
		struct expr *y = parse_factor(ps);
		x = y && y->kind == EXPR_LITERAL ? y : y ? call(ps, "positive", at, 1, y, NULL) : NULL;
	} else if (take(ps, "~")) {
		struct expr *y = parse_factor(ps);
		x = y ? call(ps, "invert", at, 1, y, NULL) : NULL;
	} else {
		x = parse_power(ps);
	}
	ps->depth--;
	return x;
}

struct binop {
	const char *op, *fn;
};

/* The operator of OPS (the first that matches) next after spaces,
 * taken, *AT its place; NULL, nothing taken, when none is there. */
static const struct binop *take_binop(struct parser *ps, const struct binop *ops, const char **at)
{
	skip_space(ps);
	*at = ps->p;
	const struct binop *o = ops;
	while (o->op && !take(ps, o->op))
		o++;
	return o->op ? o : NULL;
}

/* One precedence level: left-associative binary operators. */
static struct expr *parse_level(struct parser *ps, const struct binop *ops,
				struct expr *(*next)(struct parser *))
{
	struct expr *x = next(ps);
	const struct binop *o;
	const char *at;
	while (x && !ps->failed && (o = take_binop(ps, ops, &at))) {
		struct expr *y = next(ps);
		x = y ? call(ps, o->fn, at, 2, x, y) : NULL;
	}
	return ps->failed ? NULL : x;
}

static const struct binop term_ops[] = {
	{ "//", "floor_divide" }, { "*", "multiply" }, { "/", "divide" }, { "%", "remainder" },
	{ "@", "matmul" }, { NULL, NULL }
};
static const struct binop arith_ops[] = { { "+", "add" }, { "-", "subtract" }, { NULL, NULL } };
static const struct binop shift_ops[] = {
	{ "<<", "left_shift" }, { ">>", "right_shift" }, { NULL, NULL }
};
static const struct binop and_ops[] = { { "&", "bitwise_and" }, { NULL, NULL } };
static const struct binop xor_ops[] = { { "^", "bitwise_xor" }, { NULL, NULL } };
static const struct binop or_ops[] = { { "|", "bitwise_or" }, { NULL, NULL } };
static const struct binop cmp_ops[] = {
	{ "==", "equal" }, { "!=", "not_equal" }, { "<=", "less_equal" }, { ">=", "greater_equal" },
	{ "<", "less" }, { ">", "greater" }, { NULL, NULL }
};

static struct expr *parse_term(struct parser *ps) { return parse_level(ps, term_ops, parse_factor); }
static struct expr *parse_arith(struct parser *ps) { return parse_level(ps, arith_ops, parse_term); }
static struct expr *parse_shift(struct parser *ps) { return parse_level(ps, shift_ops, parse_arith); }
static struct expr *parse_and(struct parser *ps) { return parse_level(ps, and_ops, parse_shift); }
static struct expr *parse_xor(struct parser *ps) { return parse_level(ps, xor_ops, parse_and); }
static struct expr *parse_or(struct parser *ps) { return parse_level(ps, or_ops, parse_xor); }

static struct expr *parse_expr(struct parser *ps)
{
	struct expr *x = parse_or(ps);
	const char *at;
	const struct binop *o = x ? take_binop(ps, cmp_ops, &at) : NULL;
	if (!o)
		return x;
	struct expr *y = parse_or(ps);
	if (!y)
		return NULL;
	x = call(ps, o->fn, at, 2, x, y);
	if (take_binop(ps, cmp_ops, &at)) {
		fail(ps, at, "chained comparisons are ambiguous for arrays: add parentheses%s", "");
		return NULL;
	}
	return x;
}

struct expr *expr_parse(const char *text, struct arena *a, int *col, char *msg, size_t len)
{
	struct parser ps = { .text = text, .p = text, .a = a, .msg = msg, .len = len };
	struct expr *x = parse_expr(&ps);
	skip_space(&ps);
	if (x && *ps.p)
		fail(&ps, ps.p, *ps.p == '=' ? "unexpected '=' (one assignment, at the start)%s"
			      : "unexpected '%.1s'", *ps.p == '=' ? "" : ps.p);
	if (ps.failed) {
		*col = ps.col;
		return NULL;
	}
	return x;
}

size_t expr_split_assignment(const char *text, struct arena *a, const char **out)
{
	*out = NULL;
	for (const char *p = text; *p; p++) {
		if (*p != '=')
			continue;
		if (p[1] == '=' ) {
			p++;
			continue;
		}
		if (p > text && strchr("<>!=", p[-1]))
			continue;
		const char *b = text, *e = p;
		while (b < e && isspace((unsigned char)*b))
			b++;
		while (e > b && isspace((unsigned char)e[-1]))
			e--;
		*out = arena_strndup(a, b, (size_t)(e - b));
		return (size_t)(p + 1 - text);
	}
	return 0;
}
