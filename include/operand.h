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
#include "shape.h"   /* H5U_MAXDIM */

enum operand_kind { OPERAND_LITERAL, OPERAND_DATASET, OPERAND_NAME };

/* One item of a NumPy basic-slicing selection: t[1:9:2, 5, ..., None].
 * A bound or step written as None is not given (has_ false).  Integers
 * beyond int64 saturate, which Python's slice.indices() clips alike; an
 * index beyond int64 is refused while parsing, as NumPy refuses it. */
enum select_kind { SELECT_INDEX, SELECT_SLICE, SELECT_ELLIPSIS, SELECT_NEWAXIS };
struct select_item {
	enum select_kind kind;
	bool has_start, has_stop, has_step;
	int64_t start, stop, step;   /* SELECT_INDEX: the index in start */
};

struct operand {
	enum operand_kind kind;
	struct literal lit;     /* OPERAND_LITERAL */
	const char *file;       /* OPERAND_DATASET: the file as written */
	const char *path;       /* OPERAND_DATASET: "/a/b", normalised */
	bool selected;          /* OPERAND_DATASET: a [...] selection follows */
	int nselect;
	struct select_item select[H5U_MAXDIM];
	const char *name;       /* OPERAND_NAME */
};

/* Read TEXT.  Errors (status EXIT_USAGE, at WHERE) for text that is none of
 * the three, an empty file or dataset name, and a selection that is not
 * NumPy basic slicing. */
int operand_parse(const char *text, struct arena *a, struct operand *out,
		  const char *where, struct err *e);

#endif
