/* vars.c - ${NAME} filled in from --set, else the environment (vars.h).
 * Pure text: it opens nothing and reports nothing itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vars.h"

bool vars_is_name(const char *s, size_t n)
{
	if (n == 0 || !(s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
		return false;
	for (size_t i = 1; i < n; i++) {
		char c = s[i];
		if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
			return false;
	}
	return true;
}

/* The value of NAME (N bytes): the last --set NAME=..., else the
 * environment, else NULL. */
static const char *lookup(const struct vars *v, const char *name, size_t n, struct arena *a)
{
	for (int i = v ? v->n - 1 : -1; i >= 0; i--)
		if ((v->name_len ? v->name_len[i] : strlen(v->name[i])) == n &&
		    memcmp(v->name[i], name, n) == 0)
			return v->value[i];
	return getenv(arena_strndup(a, name, n));
}

/* One pass over S (N bytes): the length of the result into *TOTAL and,
 * when BUF is not NULL, the result into BUF.  -1 with WHY on error. */
static int fill_pass(const struct vars *v, const char *s, size_t n, struct arena *a, char *buf, size_t *total, char *why, size_t len)
{
	size_t i = 0, at = 0;
	for (;;) {
		const char *open = memmem(s + i, n - i, "${", 2);
		size_t lit = open ? (size_t)(open - (s + i)) : n - i;
		const char *val = "";
		size_t next = n;
		if (open) {
			const char *name = open + 2;
			const char *close = memchr(name, '}', (size_t)(s + n - name));
			if (!close)
				return snprintf(why, len, "'${' has no closing '}'"), -1;
			size_t nlen = (size_t)(close - name);
			int show = nlen > 40 ? 40 : (int)nlen;
			if (!vars_is_name(name, nlen))
				return snprintf(why, len, "'${%.*s}' is not a variable name "
						"([A-Za-z_][A-Za-z0-9_]*)", show, name), -1;
			if (!(val = lookup(v, name, nlen, a)))
				return snprintf(why, len, "${%.*s} is not set (use --set %.*s=VALUE)", show, name,
						show, name), -1;
			next = (size_t)(close + 1 - s);
		}
		size_t vlen = strlen(val);
		if (at + lit + vlen > VARS_MAXTEXT)
			return snprintf(why, len, "value is longer than 1 MiB after ${NAME} substitution"), -1;
		if (buf) {
			memcpy(buf + at, s + i, lit);
			memcpy(buf + at + lit, val, vlen);
		}
		at += lit + vlen;
		if (!open)
			break;
		i = next;
	}
	*total = at;
	return 0;
}

int vars_fill(const struct vars *vars, const char *s, size_t n, struct arena *a, const char **out,
	      char *why, size_t len)
{
	size_t total;
	if (!memmem(s, n, "${", 2)) {
		*out = arena_strndup(a, s, n);
		return 0;
	}
	if (fill_pass(vars, s, n, a, NULL, &total, why, len) < 0)
		return -1;
	char *buf = arena_alloc(a, total + 1);
	if (fill_pass(vars, s, n, a, buf, &total, why, len) < 0)
		return -1;   /* the environment changed between the passes */
	*out = buf;
	return 0;
}
