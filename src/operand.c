/* operand.c - operand text: FILE:/PATH, number literal, or name. */
#include <ctype.h>
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
		if (strchr(out->path, '['))
			return err_set(e, EXIT_USAGE, where,
				       "'%s': selections ([...]) are not available in this version", text);
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
