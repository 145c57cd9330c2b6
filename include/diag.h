/* diag.h - error messages with the offending source line and a caret.
 *
 * A command that reads a recipe (or an expression) registers its text;
 * diag_print() then prints the error record as "h5ufunc: WHERE: WHAT" and,
 * when the record points into a registered text (its fields: source, line,
 * column), the line itself with a caret under the column, as compilers do.
 */
#ifndef H5UFUNC_DIAG_H
#define H5UFUNC_DIAG_H

#include <stddef.h>

#include "err.h"

/* Remember TEXT (LEN bytes, not copied: it must outlive the command) as the
 * source called PATH in messages. */
void diag_set_source(const char *path, const char *text, size_t len);
/* Print E on stderr (the caller decides which rank prints). */
void diag_print(const struct err *e);

#endif
