/* reader.c - the recipe reader's lower layer: libyaml events, marks and
 * messages, scalars with ${NAME} filled in.  See reader.h; recipe.c reads
 * the nodes. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "vars.h"

/* Keys refused by name, with the reason. */
/* ---- Marks and messages ------------------------------------------------ */

static struct mark mark_of(yaml_mark_t m)
{
	return (struct mark){(int)m.line + 1, (int)m.column + 1};
}

struct mark reader_here(const struct parser *p)
{
	return mark_of(p->ev.start_mark);
}

int reader_fail(struct parser *p, struct mark m, const char *fmt, ...)
{
	char where[1024];
	snprintf(where, sizeof where, "%s:%d:%d", p->path, m.line, m.col);
	struct err_loc loc;
	err_loc_set(&loc, p->path, m.line, m.col, NULL);
	va_list ap;
	va_start(ap, fmt);
	err_vset_at(p->e, EXIT_USAGE, &loc, where, fmt, ap);
	va_end(ap);
	return -1;
}

/* TEXT cut to 40 bytes on a character boundary, "..." marking a cut
 * (arena-owned), so that a message quotes a huge value briefly. */
const char *reader_shortened(struct parser *p, const char *text)
{
	size_t n = strlen(text), cut = n;
	if (cut > 40) {
		cut = 40;
		while (cut > 0 && ((unsigned char)text[cut] & 0xC0) == 0x80)
			cut--;
	}
	char *s = arena_alloc(p->a, cut + 4);
	snprintf(s, cut + 4, "%.*s%s", (int)cut, text, cut < n ? "..." : "");
	return s;
}

/* What the current collection event starts, for "found ..." in messages. */
const char *reader_found_event(const struct parser *p)
{
	switch (p->ev.type) {
	case YAML_SEQUENCE_START_EVENT:
		return "a list";
	case YAML_MAPPING_START_EVENT:
		return "a mapping";
	default:
		return "no value";
	}
}

/* A scalar value as "found ..." shows it: null, or its text quoted. */
const char *reader_found_value(struct parser *p, const struct value *v)
{
	if (v->null)
		return "null";
	const char *s = reader_shortened(p, v->text);
	size_t n = strlen(s) + 3;
	char *q = arena_alloc(p->a, n);
	snprintf(q, n, "'%s'", s);
	return q;
}

/* What the current node is, for "found ...": a scalar's value (taken), or
 * what a collection event starts.  NULL on a read error. */
const char *reader_found_node(struct parser *p)
{
	if (p->ev.type != YAML_SCALAR_EVENT)
		return reader_found_event(p);
	struct value v;
	return reader_take_value(p, &v) ? NULL : reader_found_value(p, &v);
}

/* NAMES joined as "a, b, c or d", TAIL (if any) taking the place of the
 * last one's "or" (arena-owned). */
const char *reader_joined(struct parser *p, const char *const *names, int n, const char *tail)
{
	size_t size = tail ? strlen(tail) + 8 : 8;
	for (int i = 0; i < n; i++)
		size += strlen(names[i]) + 4;
	char *s = arena_alloc(p->a, size), *w = s;
	for (int i = 0; i < n; i++) {
		bool last = i == n - 1 && !tail;
		w += snprintf(w, size - (size_t)(w - s), "%s%s", i == 0 ? "" : last ? " or " : ", ",
			      names[i]);
	}
	if (tail)
		snprintf(w, size - (size_t)(w - s), " or %s", tail);
	return s;
}

/* Move AT, the mark of byte I of the text, past that byte.  Columns count
 * characters, as libyaml's do; a line ends at \n, \r\n or a lone \r. */
static void step_mark(const struct parser *p, size_t i, struct mark *at)
{
	unsigned char c = (unsigned char)p->text[i];
	if (c == '\n' || (c == '\r' && (i + 1 >= p->len || p->text[i + 1] != '\n'))) {
		at->line++;
		at->col = 1;
	} else if ((c & 0xC0) != 0x80 && c != '\r') {
		at->col++;
	}
}

/* The line:col of byte OFFSET of the text (reader errors carry an offset,
 * not a mark). */
static struct mark mark_at_offset(const struct parser *p, size_t offset)
{
	struct mark at = {1, 1};
	for (size_t i = 0; i < offset && i < p->len; i++)
		step_mark(p, i, &at);
	return at;
}

/* The byte of the text at mark M, or NUL past the end. */
static char char_at(const struct parser *p, struct mark m)
{
	struct mark at = {1, 1};
	for (size_t i = 0; i < p->len; i++) {
		if (at.line == m.line && at.col == m.col && ((unsigned char)p->text[i] & 0xC0) != 0x80)
			return p->text[i];
		step_mark(p, i, &at);
	}
	return '\0';
}

/* libyaml's error as ours: its problem text at its problem mark, with its
 * context when it says more (a mark elsewhere), and a word on tabs when a
 * tab is what it stumbled on.  Returns -1. */
static int yaml_fail(struct parser *p)
{
	const yaml_parser_t *y = &p->yaml;
	if (y->error == YAML_MEMORY_ERROR)
		return err_set(p->e, EXIT_RUN, p->path, "out of memory while reading the recipe");
	const char *problem = y->problem ? y->problem : "malformed YAML";
	if (y->error == YAML_READER_ERROR) {
		struct mark m = mark_at_offset(p, y->problem_offset);
		if (y->problem_value >= 0)
			return reader_fail(p, m, "%s (byte 0x%02x)", problem, (unsigned)y->problem_value);
		return reader_fail(p, m, "%s", problem);
	}
	struct mark m = mark_of(y->problem_mark), c = mark_of(y->context_mark);
	const char *tab = char_at(p, m) == '\t' && !strstr(problem, "tab")
		? " (a tab: YAML indents with spaces)" : "";
	if (y->context && (c.line != m.line || c.col != m.col))
		return reader_fail(p, m, "%s (%s at %d:%d)%s", problem, y->context, c.line, c.col, tab);
	return reader_fail(p, m, "%s%s", problem, tab);
}

/* ---- Events ------------------------------------------------------------ */

static const char core_tag[] = "tag:yaml.org,2002:";

/* Is TAG (NULL when none) a standard tag for a node of event type TYPE? */
static bool tag_allowed(const char *tag, yaml_event_type_t type)
{
	static const char *const scalar_tags[] = {"str", "int", "float", "bool", "null"};
	if (!tag)
		return true;
	if (type == YAML_SCALAR_EVENT && strcmp(tag, "!") == 0)
		return true;
	if (strncmp(tag, core_tag, sizeof core_tag - 1) != 0)
		return false;
	const char *name = tag + sizeof core_tag - 1;
	if (type == YAML_SEQUENCE_START_EVENT)
		return strcmp(name, "seq") == 0;
	if (type == YAML_MAPPING_START_EVENT)
		return strcmp(name, "map") == 0;
	for (size_t i = 0; i < sizeof scalar_tags / sizeof scalar_tags[0]; i++)
		if (strcmp(name, scalar_tags[i]) == 0)
			return true;
	return false;
}

/* Drop the current event and read the next, checking what holds for every
 * node: no aliases, standard tags only, the nesting depth, the scalar size.
 * Anchors are noted here and refused at the end of the document, so that a
 * recipe with an anchor and its alias is told about the alias. */
int reader_advance(struct parser *p)
{
	if (p->have_event)
		yaml_event_delete(&p->ev);
	p->have_event = false;
	if (!yaml_parser_parse(&p->yaml, &p->ev))
		return yaml_fail(p);
	p->have_event = true;

	const yaml_char_t *anchor = NULL, *tag = NULL;
	switch (p->ev.type) {
	case YAML_ALIAS_EVENT:
		return reader_fail(p, reader_here(p), "YAML aliases are not supported");
	case YAML_SCALAR_EVENT:
		anchor = p->ev.data.scalar.anchor;
		tag = p->ev.data.scalar.tag;
		if (p->ev.data.scalar.length > RECIPE_MAXSCALAR)
			return reader_fail(p, reader_here(p), "value is longer than 1 MiB");
		if (memchr(p->ev.data.scalar.value, '\0', p->ev.data.scalar.length))
			return reader_fail(p, reader_here(p), "value holds a NUL character");
		break;
	case YAML_SEQUENCE_START_EVENT:
		anchor = p->ev.data.sequence_start.anchor;
		tag = p->ev.data.sequence_start.tag;
		break;
	case YAML_MAPPING_START_EVENT:
		anchor = p->ev.data.mapping_start.anchor;
		tag = p->ev.data.mapping_start.tag;
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		p->depth--;
		break;
	default:
		break;
	}
	if (anchor && p->anchor.line == 0)
		p->anchor = reader_here(p);
	if (!tag_allowed((const char *)tag, p->ev.type)) {
		const char *t = (const char *)tag;
		bool core = strncmp(t, core_tag, sizeof core_tag - 1) == 0;
		return reader_fail(p, reader_here(p), "unsupported YAML tag '%s%s'", core ? "!!" : "",
			    reader_shortened(p, core ? t + sizeof core_tag - 1 : t));
	}
	if (p->ev.type == YAML_SEQUENCE_START_EVENT || p->ev.type == YAML_MAPPING_START_EVENT) {
		if (++p->depth > RECIPE_MAXDEPTH)
			return reader_fail(p, reader_here(p), "recipe nests deeper than %d levels", RECIPE_MAXDEPTH);
	}
	return 0;
}

/* ---- Scalars ----------------------------------------------------------- */

/* A decimal integer, optionally signed, within int64. */
bool reader_parse_int(const char *s, int64_t *out)
{
	const char *d = s + (*s == '-' || *s == '+');
	if (!*d)
		return false;
	for (const char *c = d; *c; c++)
		if (*c < '0' || *c > '9')
			return false;
	errno = 0;
	long long v = strtoll(s, NULL, 10);
	if (errno)
		return false;
	*out = v;
	return true;
}

static bool is_null_text(const char *s)
{
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

/* S (N bytes) with every ${NAME} filled in (vars.h), into *OUT (arena-owned).
 * Errors are reported at M, the scalar's mark. */
static int substitute(struct parser *p, const char *s, size_t n, struct mark m, const char **out)
{
	char why[200];
	if (vars_fill(p->vars, s, n, p->a, out, why, sizeof why) < 0)
		return reader_fail(p, m, "%s", why);
	return 0;
}

/* Where the current scalar's text begins: after an opening quote, or at the
 * first content line of a block scalar (| or >). */
struct mark reader_text_start(struct parser *p)
{
	struct mark m = reader_here(p);
	yaml_scalar_style_t style = p->ev.data.scalar.style;
	if (style == YAML_SINGLE_QUOTED_SCALAR_STYLE || style == YAML_DOUBLE_QUOTED_SCALAR_STYLE) {
		m.col++;
	} else if (style == YAML_LITERAL_SCALAR_STYLE || style == YAML_FOLDED_SCALAR_STYLE) {
		size_t i = p->ev.start_mark.index;
		while (i < p->len && p->text[i] != '\n')
			i++;
		if (i < p->len) {
			i++;
			size_t col = 0;
			while (i + col < p->len && p->text[i + col] == ' ')
				col++;
			m.line++;
			m.col = (int)col + 1;
		}
	}
	return m;
}

/* The current scalar as a value (substituted, null told apart), then on to
 * the next event. */
int reader_take_value(struct parser *p, struct value *v)
{
	const yaml_event_t *ev = &p->ev;
	v->mark = reader_here(p);
	if (substitute(p, (const char *)ev->data.scalar.value, ev->data.scalar.length, v->mark, &v->text))
		return -1;
	const char *tag = (const char *)ev->data.scalar.tag;
	if (tag)
		v->null = strcmp(tag, "tag:yaml.org,2002:null") == 0;
	else
		v->null = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && is_null_text(v->text);
	return reader_advance(p);
}

/* The current node as a mapping key: its text (arena-owned, never
 * substituted) and mark; then the value's first event is current. */
int reader_take_key(struct parser *p, const char **key, struct mark *m)
{
	*m = reader_here(p);
	if (p->ev.type != YAML_SCALAR_EVENT)
		return reader_fail(p, *m, "a mapping key must be a name, found %s", reader_found_event(p));
	*key = arena_strndup(p->a, (const char *)p->ev.data.scalar.value, p->ev.data.scalar.length);
	return reader_advance(p);
}

/* The current node as a scalar with some text, for key NAME; otherwise
 * "LABEL'NAME' must be EXPECT, found ..." (LABEL: "" or "input "). */
int reader_text_value(struct parser *p, const char *label, const char *name, const char *expect,
		      struct value *v)
{
	if (p->ev.type != YAML_SCALAR_EVENT)
		return reader_fail(p, reader_here(p), "%s'%s' must be %s, found %s", label, name, expect, reader_found_event(p));
	if (reader_take_value(p, v))
		return -1;
	if (v->null || !v->text[0])
		return reader_fail(p, v->mark, "%s'%s' must be %s, found %s", label, name, expect,
			    reader_found_value(p, v));
	return 0;
}

/* Refuse KEY if it is one of the unsupported ones; 0 otherwise. */
int reader_duplicate(struct parser *p, const char *key, struct mark m, struct mark first)
{
	return reader_fail(p, m, "duplicate key '%s' (first at %d:%d)", reader_shortened(p, key), first.line, first.col);
}

