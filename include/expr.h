/* expr.h - NumPy-like arithmetic expressions: text -> syntax tree.
 *
 * Python's precedence and operators (+ - * / // % @ ** unary - + ~, & | ^
 * << >>, comparisons; @ is matmul, at the level of *), calls of ufuncs by name, names, and number literals.
 * A sign in front of a literal belongs to the literal (-2 is the weak
 * Python int -2, as NumPy receives it).  Only the text is read here: the
 * planner resolves names, ufuncs and types (plan.c).
 */
#ifndef H5UFUNC_EXPR_H
#define H5UFUNC_EXPR_H

#include <stddef.h>

#include "arena.h"
#include "literal.h"
#include "recipe.h"

/* Operations (operators and calls) one expression may hold. */
#define EXPR_MAXOPS 256

enum expr_kind { EXPR_NAME, EXPR_LITERAL, EXPR_CALL };

struct expr {
	enum expr_kind kind;
	int col;                          /* 1-based column in the text */
	const char *name;                 /* EXPR_NAME: the name; EXPR_CALL: the ufunc */
	struct literal lit;               /* EXPR_LITERAL */
	int nargs;                        /* EXPR_CALL */
	struct expr *args[RECIPE_MAXIN];
};

/* Parse TEXT.  Returns the tree, or NULL with *COL (1-based) and MSG set;
 * more than EXPR_MAXOPS operations is an error. */
struct expr *expr_parse(const char *text, struct arena *a, int *col, char *msg, size_t len);

/* Split "OUT = EXPR" at its assignment: returns the offset of EXPR in TEXT
 * and sets *OUT (arena copy, trimmed), or returns 0 with *OUT NULL when
 * there is no assignment. */
size_t expr_split_assignment(const char *text, struct arena *a, const char **out);

#endif
