/* diag.c - error messages (being written: the caret comes next). */
#include "diag.h"

void diag_set_source(const char *path, const char *text, size_t len) {}
void diag_print(const struct err *e) { err_print(e); }
