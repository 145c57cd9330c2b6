/* operand.c - operand text: FILE:/PATH, number literal, or name. */
#include <ctype.h>
#include <stdint.h>
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

/* The value of digit C in bases up to 16, or 16 when C is none. */
static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : 16;
}

/* A Python integer literal at *P (an optional sign, decimal digits or 0x,
 * 0o, 0b ones, single underscores between digits) into *V, saturated at
 * int64's ends: *HUGE when it had to be. */
static int parse_int(const char **p, int64_t *v, bool *huge)
{
	const char *q = *p;
	bool negative = *q == '-';
	if (*q == '+' || *q == '-')
		q = skip_blank(q + 1);
	int base = 10, digits = 0;
	if (q[0] == '0' && q[1] && strchr("xXoObB", q[1])) {
		base = tolower((unsigned char)q[1]) == 'x' ? 16 : tolower((unsigned char)q[1]) == 'o' ? 8 : 2;
		q += q[2] == '_' ? 3 : 2;
	}
	uint64_t m = 0, limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	*huge = false;
	for (;; q++) {
		if (*q == '_' && digits && digit_value(q[1]) < base)
			continue;
		int d = digit_value(*q);
		if (d >= base)
			break;
		digits++;
		if (m > (limit - (uint64_t)d) / (uint64_t)base)
			*huge = true;
		else
			m = m * (uint64_t)base + (uint64_t)d;
	}
	if (!digits)
		return -1;
	if (*huge)
		m = limit;
	*v = !negative ? (int64_t)m : m == limit ? INT64_MIN : -(int64_t)m;
	*p = q;
	return 0;
}

/* Is the word W at P, followed by blanks and one of ENDS?  The end then. */
static const char *word_at(const char *p, const char *w, const char *ends)
{
	size_t n = strlen(w);
	if (strncmp(p, w, n))
		return NULL;
	const char *q = skip_blank(p + n);
	return *q && strchr(ends, *q) ? q : NULL;
}

/* An optional integer or None at *P, up to one of the characters in ENDS:
 * *HAS when an integer is there, *NONE when None is; *HUGE as parse_int. */
static int parse_index(const char **p, const char *ends, bool *has, int64_t *v, bool *none,
		       bool *huge)
{
	const char *q = skip_blank(*p), *end = word_at(q, "None", ends);
	*has = *none = *huge = false;
	if (end || (*q && strchr(ends, *q))) {
		*none = end != NULL;
		*p = end ? end : q;
		return 0;
	}
	if (parse_int(&q, v, huge) < 0)
		return -1;
	q = skip_blank(q);
	if (!*q || !strchr(ends, *q))
		return -1;
	*has = true;
	*p = q;
	return 0;
}

/* One item at *P (after '[' or ','), up to the ',' or ']' after it. */
static int parse_item(const char **p, struct select_item *it, const char *text, const char *where,
		      struct err *e)
{
	const char *q = skip_blank(*p), *end;
	bool none, huge;
	memset(it, 0, sizeof *it);
	if (!strncmp(q, "...", 3)) {
		it->kind = SELECT_ELLIPSIS;
		*p = skip_blank(q + 3);
		return 0;
	}
	if ((end = word_at(q, "np.newaxis", ",]")) || (end = word_at(q, "numpy.newaxis", ",]"))) {
		it->kind = SELECT_NEWAXIS;
		*p = end;
		return 0;
	}
	if (parse_index(&q, ":,]", &it->has_start, &it->start, &none, &huge) < 0)
		return -1;
	if (*q != ':') {
		if (!it->has_start && !none)
			return -1;
		if (huge)   /* beyond intp: NumPy's IndexError */
			return err_set(e, EXIT_USAGE, where, "'%s': only integers, slices (`:`), ellipsis "
				       "(`...`), numpy.newaxis (`None`) and integer or boolean arrays are "
				       "valid indices", text);
		it->kind = none ? SELECT_NEWAXIS : SELECT_INDEX;
		*p = q;
		return 0;
	}
	it->kind = SELECT_SLICE;
	q++;
	if (parse_index(&q, ":,]", &it->has_stop, &it->stop, &none, &huge) < 0)
		return -1;
	if (*q == ':') {
		q++;
		if (parse_index(&q, ",]", &it->has_step, &it->step, &none, &huge) < 0)
			return -1;
	}
	*p = q;
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
		if (parse_item(&p, &out->select[out->nselect++], text, where, e) < 0) {
			if (e->status)
				return -1;
			goto bad;
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
		       "'%s': a selection is NumPy basic slicing: [start:stop:step, index, None, ...]", text);
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
