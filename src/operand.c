/* operand.c - operand text: FILE:/PATH, number literal, or name. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "operand.h"

static int is_identifier(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (s++; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

/* Copy PATH with repeated and trailing slashes removed. */
static char *normalise_path(struct arena *a, const char *path)
{
	size_t n = strlen(path);
	char *out = arena_alloc(a, n + 2), *q = out;
	for (const char *p = path; *p; p++)
		if (*p != '/' || q == out || q[-1] != '/')
			*q++ = *p;
	if (q > out + 1 && q[-1] == '/')
		q--;
	*q = '\0';
	return out;
}

static const char *skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* An optional integer at *P, up to one of the characters in ENDS. */
static int parse_index(const char **p, const char *ends, bool *has, int64_t *v)
{
	const char *q = skip_blank(*p);
	*has = false;
	if (strchr(ends, *q)) {
		*p = q;
		return 0;
	}
	char *end;
	errno = 0;
	long long n = strtoll(q, &end, 10);
	if (end == q || errno)
		return -1;
	end = (char *)skip_blank(end);
	if (!strchr(ends, *end))
		return -1;
	*has = true;
	*v = n;
	*p = end;
	return 0;
}

/* "1:9:2, 5, ...]" (after the '[') into OUT's selection items. */
static int parse_selection(const char *p, struct operand *out, const char *text,
			   const char *where, struct err *e)
{
	out->selected = true;
	for (;;) {
		if (out->nselect == H5U_MAXDIM)
			return err_set(e, EXIT_USAGE, where, "'%s': too many indices", text);
		struct select_item *it = &out->select[out->nselect++];
		memset(it, 0, sizeof *it);
		p = skip_blank(p);
		if (!strncmp(p, "...", 3)) {
			it->kind = SELECT_ELLIPSIS;
			p = skip_blank(p + 3);
		} else {
			if (parse_index(&p, ":,]", &it->has_start, &it->start) < 0)
				goto bad;
			it->kind = SELECT_INDEX;
			if (*p == ':') {
				it->kind = SELECT_SLICE;
				p++;
				if (parse_index(&p, ":,]", &it->has_stop, &it->stop) < 0)
					goto bad;
				if (*p == ':') {
					p++;
					if (parse_index(&p, ",]", &it->has_step, &it->step) < 0)
						goto bad;
				}
			} else if (!it->has_start) {
				goto bad;
			}
		}
		if (*p == ']') {
			if (*skip_blank(p + 1))
				goto bad;
			return 0;
		}
		if (*p != ',')
			goto bad;
		p++;
		if (*skip_blank(p) == ']' && !*skip_blank(skip_blank(p) + 1))
			return 0;   /* a trailing comma, as Python allows */
	}
bad:
	return err_set(e, EXIT_USAGE, where,
		       "'%s': a selection is NumPy basic slicing: [start:stop:step, index, ...]", text);
}

int operand_parse(const char *text, struct arena *a, struct operand *out,
		  const char *where, struct err *e)
{
	memset(out, 0, sizeof *out);
	if (literal_parse(text, &out->lit) == 0) {
		out->kind = OPERAND_LITERAL;
		return 0;
	}
	const char *sep = strstr(text, ":/");
	if (sep) {
		out->kind = OPERAND_DATASET;
		out->file = arena_strndup(a, text, (size_t)(sep - text));
		out->path = normalise_path(a, sep + 1);
		if (!*out->file)
			return err_set(e, EXIT_USAGE, where, "'%s' names no file before ':/'", text);
		if (!strcmp(out->path, "/"))
			return err_set(e, EXIT_USAGE, where, "'%s' names no dataset after ':/'", text);
		char *bracket = strchr(out->path, '[');
		if (bracket) {
			*bracket = '\0';
			if (parse_selection(bracket + 1, out, text, where, e) < 0)
				return -1;
			if (!strcmp(out->path, "/"))
				return err_set(e, EXIT_USAGE, where, "'%s' names no dataset after ':/'", text);
		}
		return 0;
	}
	if (is_identifier(text)) {
		out->kind = OPERAND_NAME;
		out->name = text;
		return 0;
	}
	return err_set(e, EXIT_USAGE, where,
		       "'%s' is not a name, a FILE:/PATH dataset or a number", text);
}
