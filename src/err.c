/* err.c - the error record: first error wins, printed once. */
#include <stdio.h>
#include <string.h>

#include "err.h"

int err_vset(struct err *e, int status, const char *where, const char *fmt, va_list ap)
{
	if (e->status)
		return -1;
	e->status = status;
	size_t n = 0;
	if (where && *where)
		n = (size_t)snprintf(e->msg, sizeof e->msg, "%s: ", where);
	if (n < sizeof e->msg)
		vsnprintf(e->msg + n, sizeof e->msg - n, fmt, ap);
	return -1;
}

int err_set(struct err *e, int status, const char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset(e, status, where, fmt, ap);
	va_end(ap);
	return -1;
}

void err_append(struct err *e, const char *fmt, ...)
{
	size_t n = strlen(e->msg);
	if (n + 1 >= sizeof e->msg)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg + n, sizeof e->msg - n, fmt, ap);
	va_end(ap);
}

void err_clear(struct err *e)
{
	e->status = 0;
	e->msg[0] = '\0';
}

void err_print(const struct err *e)
{
	fprintf(stderr, "h5ufunc: %s\n", e->msg);
}
