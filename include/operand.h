/* operand.h - what an operand's text names: a dataset, a number, or a name.
 *
 * "FILE:/PATH" is a dataset (split at the first ":/"); a number literal is a
 * weak scalar (literal.h); an identifier is a name bound under inputs: or by
 * an earlier step's out:.  Only the text is read here; files are the
 * planner's business.
 */
#ifndef H5UFUNC_OPERAND_H
#define H5UFUNC_OPERAND_H

#include "arena.h"
#include "err.h"
#include "literal.h"

enum operand_kind { OPERAND_LITERAL, OPERAND_DATASET, OPERAND_NAME };

struct operand {
	enum operand_kind kind;
	struct literal lit;     /* OPERAND_LITERAL */
	const char *file;       /* OPERAND_DATASET: the file as written */
	const char *path;       /* OPERAND_DATASET: "/a/b", normalised */
	const char *name;       /* OPERAND_NAME */
};

/* Read TEXT.  Errors (status EXIT_USAGE, at WHERE) for text that is none of
 * the three, an empty file or dataset name, and selections, which this
 * version does not read. */
int operand_parse(const char *text, struct arena *a, struct operand *out,
		  const char *where, struct err *e);

#endif
