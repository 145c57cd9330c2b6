/* err.c - the error record: first error wins, printed once; where it
 * points kept as fields.  See err.h. */
#include <stdio.h>
#include <string.h>

#include "err.h"

int err_vset_at(struct err *e, int status, const struct err_loc *loc, const char *where,
		const char *fmt, va_list ap)
{
	e->dropped = e->status != 0;
	if (e->dropped)
		return -1;
	e->status = status;
	size_t n = 0;
	if (where && *where)
		n = (size_t)snprintf(e->msg, sizeof e->msg, "%s: ", where);
	if (n < sizeof e->msg)
		vsnprintf(e->msg + n, sizeof e->msg - n, fmt, ap);
	memset(&e->loc, 0, sizeof e->loc);
	if (loc)
		e->loc = *loc;
	return -1;
}

int err_vset(struct err *e, int status, const char *where, const char *fmt, va_list ap)
{
	return err_vset_at(e, status, NULL, where, fmt, ap);
}

int err_set(struct err *e, int status, const char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset(e, status, where, fmt, ap);
	va_end(ap);
	return -1;
}

int err_set_at(struct err *e, int status, const struct err_loc *loc, const char *where,
	       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset_at(e, status, loc, where, fmt, ap);
	va_end(ap);
	return -1;
}

int err_at(struct err *e, int status, const struct site *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset_at(e, status, &w->loc, w->text, fmt, ap);
	va_end(ap);
	return -1;
}

int err_place(struct err *e, const struct err_loc *loc)
{
	static const struct err_loc nowhere;
	if (e->status && !memcmp(&e->loc, &nowhere, sizeof nowhere))
		e->loc = *loc;
	return -1;
}

void err_loc_set(struct err_loc *loc, const char *source, int line, int col, const char *step)
{
	memset(loc, 0, sizeof *loc);
	snprintf(loc->source, sizeof loc->source, "%s", source ? source : "");
	loc->line = line;
	loc->col = col;
	snprintf(loc->step, sizeof loc->step, "%s", step ? step : "");
}

/* Append FMT's text to E's message.  A clause joined on ("; ...", " (...)")
 * to a message that ends a sentence, as NumPy's own messages do ("...are
 * not allowed."), takes its full stop: "...are not allowed; 'a.h5:/i' is
 * as it was before the run".  An ellipsis stays. */
static void append(struct err *e, const char *fmt, va_list ap)
{
	size_t n = strlen(e->msg);
	bool clause = fmt[0] == ';' || (fmt[0] == ' ' && fmt[1] == '(');
	if (clause && n >= 2 && e->msg[n - 1] == '.' && e->msg[n - 2] != '.')
		e->msg[--n] = '\0';
	if (n + 1 < sizeof e->msg)
		vsnprintf(e->msg + n, sizeof e->msg - n, fmt, ap);
}

void err_append(struct err *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	append(e, fmt, ap);
	va_end(ap);
}

void err_hint(struct err *e, const char *fmt, ...)
{
	if (!e->status || e->dropped)
		return;
	va_list ap;
	va_start(ap, fmt);
	append(e, fmt, ap);
	va_end(ap);
}

void err_clear(struct err *e)
{
	e->status = 0;
	e->dropped = false;
	e->msg[0] = '\0';
	memset(&e->loc, 0, sizeof e->loc);
}

void err_print(const struct err *e)
{
	fprintf(stderr, "h5ufunc: %s\n", e->msg);
}
