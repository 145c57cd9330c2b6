/* fuzz_expr.c - libFuzzer target: expression text through the expression
 * parser and the error display.
 *
 * Each input is what `h5ufunc eval` or an `expr:` step is given: it is
 * split at its assignment ("OUT = EXPRESSION") and the expression parsed
 * into its tree (expr.c).  The tree is walked to check what the planner
 * relies on: every node's kind is known, every column lies in the text,
 * calls have at most RECIPE_MAXIN arguments, all present, and
 * names and ufunc names are not empty.  A parse error must give a column
 * in the text (or just past it) and a message, and is shown as h5ufunc
 * shows it, with the caret (diag.c), on stderr (closed by fuzz.mk with
 * -close_fd_mask=2).
 *
 * Planning an expression against files is fuzz_recipe's business (an
 * `expr:` step of a recipe); this target stays in the text.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "err.h"
#include "expr.h"

/* Check node X of an expression of LEN bytes; abort on a broken tree. */
static void check_node(const struct expr *x, size_t len, int depth)
{
	if (!x || depth > 10000)
		abort();
	if (x->col < 1 || (size_t)x->col > len + 1)
		abort();
	switch (x->kind) {
	case EXPR_NAME:
		if (!x->name || !x->name[0])
			abort();
		break;
	case EXPR_LITERAL:
		break;
	case EXPR_CALL:
		if (!x->name || !x->name[0] || x->nargs < 0 || x->nargs > RECIPE_MAXIN)
			abort();
		for (int k = 0; k < x->nargs; k++)
			check_node(x->args[k], len, depth + 1);
		break;
	default:
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The text arrives as a C string (argv or a YAML scalar): no NUL. */
	if (memchr(data, '\0', size))
		return 0;
	char *text = malloc(size + 1);
	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';

	struct arena a = {0};
	const char *out = NULL;
	size_t at = expr_split_assignment(text, &a, &out);
	if (at > size || (at && !out))
		abort();
	const char *body = text + at;
	size_t len = size - at;
	int col = 0;
	char msg[512] = "";
	struct expr *root = expr_parse(body, &a, &col, msg, sizeof msg);
	if (root) {
		check_node(root, len, 0);
	} else {
		if (col < 1 || (size_t)col > len + 1 || !msg[0])
			abort();
		struct err e = {0};
		char where[64];
		snprintf(where, sizeof where, "eval: column %d", col);
		struct err_loc loc;
		err_loc_set(&loc, ERR_EXPRESSION, 1, col, "eval");
		err_set_at(&e, EXIT_USAGE, &loc, where, "%s", msg);
		diag_set_source(ERR_EXPRESSION, body, len);
		diag_print(&e);
	}
	arena_free(&a);
	free(text);
	return 0;
}
