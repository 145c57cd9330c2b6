/* recipe.c - YAML text -> recipe tree, with libyaml's event API.
 *
 * The recipe is read as a stream of libyaml events by a small recursive
 * descent: one function per kind of node (the recipe, its inputs, its steps,
 * one step, one step option), each entered on the node's first event and
 * left on the event after the node.  Nothing is built that the recipe does
 * not keep, so an unknown key, a collection out of place or an overlong
 * value stops the reading where it stands, whatever follows it: a huge or
 * deeply nested text costs no more than reading up to its first fault.  Every node keeps its
 * 1-based line:col.  ${NAME} in a scalar value is replaced from --set, then
 * from the environment.
 *
 * This file checks form only: which keys, how many of each, which kind of
 * value, dtype and casting names.  It opens no file and looks up no ufunc;
 * names, operands, arities and shapes are the planner's (plan.h).  Values
 * are read by what their key expects, whatever their YAML quoting: "0" is
 * an axis as 0 is.  Only null is told apart by quoting: a plain empty value,
 * ~ or null is null, a quoted "" is the empty text.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "options.h"
#include "recipe.h"

/* Collections inside each other.  A backstop: the reader refuses the first
 * collection where a recipe has none, so a valid recipe nests 4 deep. */
#define RECIPE_MAXDEPTH 32
#define RECIPE_MAXSCALAR (1u << 20)    /* bytes in a scalar, before and after ${} */
#define RECIPE_MAXSTEPS 65536
#define RECIPE_MAXINPUTS 4096

enum { VERB_COUNT = VERB_EXPR + 1 };

static const char *const verb_names[VERB_COUNT] = {
	[VERB_UFUNC] = "ufunc", [VERB_REDUCE] = "reduce",
	[VERB_ACCUMULATE] = "accumulate", [VERB_OUTER] = "outer",
	[VERB_EXPR] = "expr",
};

/* Keys refused by name, with the reason. */
static const struct {
	const char *key, *why;
} unsupported_keys[] = {
	{"where", "'where' masks are not supported"},
	{"at", "'at' is not supported (unbuffered in-place ufunc.at)"},
	{"reduceat", "'reduceat' is not supported"},
};

enum top_key { TOP_VERSION, TOP_INPUTS, TOP_STEPS, TOP_DEFAULTS, TOP_COUNT };

static const char *const top_names[TOP_COUNT] = {
	[TOP_VERSION] = "version", [TOP_INPUTS] = "inputs",
	[TOP_STEPS] = "steps", [TOP_DEFAULTS] = "defaults",
};

/* The keys of a step, as one index space: the verbs, in, out, the options. */
enum { STEP_IN = VERB_COUNT, STEP_OUT, STEP_OPT, STEP_COUNT = STEP_OPT + OPT_COUNT };

/* The reader's state: the current event and where the tree goes. */
struct parser {
	yaml_parser_t yaml;
	yaml_event_t ev;          /* the current event, valid while have_event */
	bool have_event;
	int depth;                /* collections open, the current one included */
	struct mark anchor;       /* the first anchor seen; line 0 when none */
	const char *text;         /* the recipe text, for reader-error offsets */
	size_t len;
	const char *path;
	const struct vars *vars;
	struct arena *a;
	struct err *e;
	/* Steps and inputs grow here (malloc) and move to the arena at the end. */
	struct recipe_step *steps;
	int nsteps, capsteps;
	struct recipe_input *inputs;
	int ninputs, capinputs;
};

/* A scalar value after ${NAME} substitution, owned by the arena. */
struct value {
	const char *text;
	struct mark mark;
	bool null;                /* plain "", ~, null, Null, NULL, or !!null */
};

struct option;
typedef int option_reader(struct parser *p, const struct option *opt, struct step_opts *o);

/* One step option: its key, what its value must be, how it is read. */
struct option {
	const char *name;
	const char *expect;       /* for "'NAME' must be EXPECT, found ..." */
	option_reader *read;
};

#define OPTION(TAG, NAME, EXPECT, VERBS, CALL, REDUCE, ACCUMULATE, EVAL) static option_reader read_##NAME;
#include "options.def"
#undef OPTION

static const struct option options[OPT_COUNT] = {
#define OPTION(TAG, NAME, EXPECT, VERBS, CALL, REDUCE, ACCUMULATE, EVAL) \
	[OPT_##TAG] = { #NAME, EXPECT, read_##NAME },
#include "options.def"
#undef OPTION
};

const char *verb_name(enum verb v)
{
	return (int)v >= 0 && (int)v < VERB_COUNT ? verb_names[v] : "?";
}

/* ---- Marks and messages ------------------------------------------------ */

static struct mark mark_of(yaml_mark_t m)
{
	return (struct mark){(int)m.line + 1, (int)m.column + 1};
}

static struct mark here(const struct parser *p)
{
	return mark_of(p->ev.start_mark);
}

/* Record "PATH:LINE:COL: WHAT" with EXIT_USAGE, pointing at M.  Returns -1. */
static int fail(struct parser *p, struct mark m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct parser *p, struct mark m, const char *fmt, ...)
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
static const char *shortened(struct parser *p, const char *text)
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
static const char *found_event(const struct parser *p)
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
static const char *found_value(struct parser *p, const struct value *v)
{
	if (v->null)
		return "null";
	const char *s = shortened(p, v->text);
	size_t n = strlen(s) + 3;
	char *q = arena_alloc(p->a, n);
	snprintf(q, n, "'%s'", s);
	return q;
}

/* NAMES joined as "a, b, c or d", TAIL (if any) taking the place of the
 * last one's "or" (arena-owned). */
static const char *joined(struct parser *p, const char *const *names, int n, const char *tail)
{
	size_t size = tail ? strlen(tail) + 8 : 8;
	for (int i = 0; i < n; i++)
		size += strlen(names[i]) + 4;
	char *s = arena_alloc(p->a, size), *w = s;
	for (int i = 0; i < n; i++) {
		bool last = i == n - 1 && !tail;
		w += sprintf(w, "%s%s", i == 0 ? "" : last ? " or " : ", ", names[i]);
	}
	if (tail)
		sprintf(w, " or %s", tail);
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
			return fail(p, m, "%s (byte 0x%02x)", problem, (unsigned)y->problem_value);
		return fail(p, m, "%s", problem);
	}
	struct mark m = mark_of(y->problem_mark), c = mark_of(y->context_mark);
	const char *tab = char_at(p, m) == '\t' && !strstr(problem, "tab")
		? " (a tab: YAML indents with spaces)" : "";
	if (y->context && (c.line != m.line || c.col != m.col))
		return fail(p, m, "%s (%s at %d:%d)%s", problem, y->context, c.line, c.col, tab);
	return fail(p, m, "%s%s", problem, tab);
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
static int advance(struct parser *p)
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
		return fail(p, here(p), "YAML aliases are not supported");
	case YAML_SCALAR_EVENT:
		anchor = p->ev.data.scalar.anchor;
		tag = p->ev.data.scalar.tag;
		if (p->ev.data.scalar.length > RECIPE_MAXSCALAR)
			return fail(p, here(p), "value is longer than 1 MiB");
		if (memchr(p->ev.data.scalar.value, '\0', p->ev.data.scalar.length))
			return fail(p, here(p), "value holds a NUL character");
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
		p->anchor = here(p);
	if (!tag_allowed((const char *)tag, p->ev.type)) {
		const char *t = (const char *)tag;
		bool core = strncmp(t, core_tag, sizeof core_tag - 1) == 0;
		return fail(p, here(p), "unsupported YAML tag '%s%s'", core ? "!!" : "",
			    shortened(p, core ? t + sizeof core_tag - 1 : t));
	}
	if (p->ev.type == YAML_SEQUENCE_START_EVENT || p->ev.type == YAML_MAPPING_START_EVENT) {
		if (++p->depth > RECIPE_MAXDEPTH)
			return fail(p, here(p), "recipe nests deeper than %d levels", RECIPE_MAXDEPTH);
	}
	return 0;
}

/* ---- Scalars ----------------------------------------------------------- */

static bool is_identifier(const char *s, size_t n)
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

/* A decimal integer, optionally signed, within int64. */
static bool parse_int(const char *s, int64_t *out)
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

/* The value of ${NAME}: the last --set NAME=..., else the environment, else
 * NULL. */
static const char *lookup_var(struct parser *p, const char *name, size_t n)
{
	if (p->vars)
		for (int i = p->vars->n - 1; i >= 0; i--)
			if ((p->vars->name_len ? p->vars->name_len[i] : strlen(p->vars->name[i])) == n &&
			    memcmp(p->vars->name[i], name, n) == 0)
				return p->vars->value[i];
	return getenv(arena_strndup(p->a, name, n));
}

/* S (N bytes) with every ${NAME} replaced, into *OUT (arena-owned).  Errors
 * are reported at M, the scalar's mark.  "$${X}" is "$" then ${X}: there is
 * no escape. */
static int substitute(struct parser *p, const char *s, size_t n, struct mark m, const char **out)
{
	if (!memmem(s, n, "${", 2)) {
		*out = arena_strndup(p->a, s, n);
		return 0;
	}
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = -1;
	size_t i = 0;
	for (;;) {
		const char *open = memmem(s + i, n - i, "${", 2);
		size_t lit = open ? (size_t)(open - (s + i)) : n - i;
		const char *val = NULL;
		size_t vlen = 0, next = n;
		if (open) {
			const char *name = open + 2;
			const char *close = memchr(name, '}', (size_t)(s + n - name));
			if (!close) {
				fail(p, m, "'${' has no closing '}'");
				goto out;
			}
			size_t nlen = (size_t)(close - name);
			int show = nlen > 40 ? 40 : (int)nlen;
			if (!is_identifier(name, nlen)) {
				fail(p, m, "'${%.*s}' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)", show, name);
				goto out;
			}
			val = lookup_var(p, name, nlen);
			if (!val) {
				fail(p, m, "${%.*s} is not set (use --set %.*s=VALUE)", show, name, show, name);
				goto out;
			}
			vlen = strlen(val);
			next = (size_t)(close + 1 - s);
		}
		if (len + lit + vlen > RECIPE_MAXSCALAR) {
			fail(p, m, "value is longer than 1 MiB after ${NAME} substitution");
			goto out;
		}
		if (len + lit + vlen + 1 > cap) {
			cap = (len + lit + vlen + 1) * 2;
			char *grown = realloc(buf, cap);
			if (!grown) {
				err_set(p->e, EXIT_RUN, p->path, "out of memory while reading the recipe");
				goto out;
			}
			buf = grown;
		}
		memcpy(buf + len, s + i, lit);
		len += lit;
		if (vlen)
			memcpy(buf + len, val, vlen);
		len += vlen;
		if (!open)
			break;
		i = next;
	}
	*out = arena_strndup(p->a, buf ? buf : "", len);
	rc = 0;
out:
	free(buf);
	return rc;
}

/* Where the current scalar's text begins: after an opening quote, or at the
 * first content line of a block scalar (| or >). */
static struct mark text_start(struct parser *p)
{
	struct mark m = here(p);
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
static int take_value(struct parser *p, struct value *v)
{
	const yaml_event_t *ev = &p->ev;
	v->mark = here(p);
	if (substitute(p, (const char *)ev->data.scalar.value, ev->data.scalar.length, v->mark, &v->text))
		return -1;
	const char *tag = (const char *)ev->data.scalar.tag;
	if (tag)
		v->null = strcmp(tag, "tag:yaml.org,2002:null") == 0;
	else
		v->null = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && is_null_text(v->text);
	return advance(p);
}

/* The current node as a mapping key: its text (arena-owned, never
 * substituted) and mark; then the value's first event is current. */
static int take_key(struct parser *p, const char **key, struct mark *m)
{
	*m = here(p);
	if (p->ev.type != YAML_SCALAR_EVENT)
		return fail(p, *m, "a mapping key must be a name, found %s", found_event(p));
	*key = arena_strndup(p->a, (const char *)p->ev.data.scalar.value, p->ev.data.scalar.length);
	return advance(p);
}

/* The current node as a scalar with some text, for key NAME; otherwise
 * "LABEL'NAME' must be EXPECT, found ..." (LABEL: "" or "input "). */
static int text_value(struct parser *p, const char *label, const char *name, const char *expect,
		      struct value *v)
{
	if (p->ev.type != YAML_SCALAR_EVENT)
		return fail(p, here(p), "%s'%s' must be %s, found %s", label, name, expect, found_event(p));
	if (take_value(p, v))
		return -1;
	if (v->null || !v->text[0])
		return fail(p, v->mark, "%s'%s' must be %s, found %s", label, name, expect,
			    found_value(p, v));
	return 0;
}

/* Refuse KEY if it is one of the unsupported ones; 0 otherwise. */
static int refuse_unsupported(struct parser *p, const char *key, struct mark m)
{
	for (size_t i = 0; i < sizeof unsupported_keys / sizeof unsupported_keys[0]; i++)
		if (strcmp(key, unsupported_keys[i].key) == 0)
			return fail(p, m, "%s", unsupported_keys[i].why);
	return 0;
}

static int duplicate(struct parser *p, const char *key, struct mark m, struct mark first)
{
	return fail(p, m, "duplicate key '%s' (first at %d:%d)", shortened(p, key), first.line, first.col);
}

/* ---- Step options ------------------------------------------------------ */

static void opts_init(struct step_opts *o)
{
	memset(o, 0, sizeof *o);
	o->dtype = DT_NONE;
	o->casting = CAST_SAME_KIND;
}

static int mismatch(struct parser *p, const struct option *opt, struct mark m, const char *found)
{
	return fail(p, m, "'%s' must be %s, found %s", opt->name, opt->expect, found);
}

static int read_dtype(struct parser *p, const struct option *opt, struct step_opts *o)
{
	struct value v;
	if (text_value(p, "", opt->name, opt->expect, &v))
		return -1;
	if (dtype_from_name(v.text, &o->dtype))
		return fail(p, v.mark, "unknown dtype %s", found_value(p, &v));
	return 0;
}

static int read_casting(struct parser *p, const struct option *opt, struct step_opts *o)
{
	struct value v;
	if (text_value(p, "", opt->name, opt->expect, &v))
		return -1;
	if (casting_from_name(v.text, &o->casting))
		return fail(p, v.mark, "unknown casting %s (expected %s)", found_value(p, &v), opt->expect);
	return 0;
}

static int read_initial(struct parser *p, const struct option *opt, struct step_opts *o)
{
	struct value v;
	if (text_value(p, "", opt->name, opt->expect, &v))
		return -1;
	o->initial = v.text;
	return 0;
}

/* A YAML 1.2 core boolean, in any of its three spellings each. */
static int read_bool(struct parser *p, const struct option *opt, bool *out)
{
	static const char *const spellings[2][3] = {
		{"false", "False", "FALSE"}, {"true", "True", "TRUE"},
	};
	if (p->ev.type != YAML_SCALAR_EVENT)
		return mismatch(p, opt, here(p), found_event(p));
	struct value v;
	if (take_value(p, &v))
		return -1;
	for (int b = 0; b < 2 && !v.null; b++)
		for (int k = 0; k < 3; k++)
			if (strcmp(v.text, spellings[b][k]) == 0) {
				*out = b;
				return 0;
			}
	return mismatch(p, opt, v.mark, found_value(p, &v));
}

static int read_keepdims(struct parser *p, const struct option *opt, struct step_opts *o)
{
	return read_bool(p, opt, &o->keepdims);
}

static int read_overwrite(struct parser *p, const struct option *opt, struct step_opts *o)
{
	return read_bool(p, opt, &o->overwrite);
}

static int read_chunks(struct parser *p, const struct option *opt, struct step_opts *o)
{
	struct value v;
	if (p->ev.type == YAML_SCALAR_EVENT) {
		if (take_value(p, &v))
			return -1;
		if (!v.null && strcmp(v.text, "auto") == 0) {
			o->chunks_auto = true;
			return 0;
		}
		return mismatch(p, opt, v.mark, found_value(p, &v));
	}
	if (p->ev.type != YAML_SEQUENCE_START_EVENT)
		return mismatch(p, opt, here(p), found_event(p));
	struct mark list = here(p);
	if (advance(p))
		return -1;
	while (p->ev.type != YAML_SEQUENCE_END_EVENT) {
		if (o->nchunks == H5U_MAXDIM)
			return fail(p, here(p), "'chunks' has more than %d dimensions", H5U_MAXDIM);
		if (p->ev.type != YAML_SCALAR_EVENT)
			return mismatch(p, opt, here(p), found_event(p));
		int64_t n;
		if (take_value(p, &v))
			return -1;
		if (v.null || !parse_int(v.text, &n) || n <= 0)
			return mismatch(p, opt, v.mark, found_value(p, &v));
		o->chunks[o->nchunks++] = n;
	}
	if (o->nchunks == 0)
		return mismatch(p, opt, list, "an empty list");
	return advance(p);
}

static int read_compression(struct parser *p, const struct option *opt, struct step_opts *o)
{
	struct value v;
	if (text_value(p, "", opt->name, opt->expect, &v))
		return -1;
	const char *t = v.text;
	if (strcmp(t, "gzip") == 0)
		o->gzip = 4;
	else if (strncmp(t, "gzip:", 5) == 0 && t[5] >= '0' && t[5] <= '9' && !t[6])
		o->gzip = t[5] - '0';
	else
		return mismatch(p, opt, v.mark, found_value(p, &v));
	return 0;
}

/* One axis number: an integer in int's range (the planner checks it
 * against the operand's dimensions). */
static int read_axis_number(struct parser *p, const struct option *opt, const struct value *v, int *out)
{
	int64_t n;
	if (v->null || !parse_int(v->text, &n))
		return mismatch(p, opt, v->mark, found_value(p, v));
	if (n < INT_MIN || n > INT_MAX)
		return fail(p, v->mark, "axis %s is out of range", shortened(p, v->text));
	*out = (int)n;
	return 0;
}

static int read_axis(struct parser *p, const struct option *opt, struct step_opts *o)
{
	struct value v;
	if (p->ev.type == YAML_SCALAR_EVENT) {
		if (take_value(p, &v))
			return -1;
		if (v.null) {
			o->axis_all = true;
			return 0;
		}
		o->naxis = 1;
		return read_axis_number(p, opt, &v, &o->axis[0]);
	}
	if (p->ev.type != YAML_SEQUENCE_START_EVENT)
		return mismatch(p, opt, here(p), found_event(p));
	if (advance(p))
		return -1;
	while (p->ev.type != YAML_SEQUENCE_END_EVENT) {
		if (o->naxis == H5U_MAXDIM)
			return fail(p, here(p), "'axis' has more than %d axes", H5U_MAXDIM);
		if (p->ev.type != YAML_SCALAR_EVENT)
			return mismatch(p, opt, here(p), found_event(p));
		if (take_value(p, &v) || read_axis_number(p, opt, &v, &o->axis[o->naxis]))
			return -1;
		o->naxis++;
	}
	return advance(p);
}

static int find_option(const char *key)
{
	for (int i = 0; i < OPT_COUNT; i++)
		if (strcmp(key, options[i].name) == 0)
			return i;
	return -1;
}

/* Read the value of option OPT (the current node) into O. */
static int read_option(struct parser *p, int opt, struct step_opts *o)
{
	o->given |= 1u << opt;
	o->mark[opt] = here(p);
	return options[opt].read(p, &options[opt], o);
}

static const char *option_list(struct parser *p, const char *tail)
{
	const char *names[OPT_COUNT];
	for (int i = 0; i < OPT_COUNT; i++)
		names[i] = options[i].name;
	return joined(p, names, OPT_COUNT, tail);
}

/* ---- Recipe nodes ------------------------------------------------------ */

/* The value of the top-level KEY, which must be EXPECT (a mapping) or
 * null: 1 when it is null (taken), 0 at the mapping's first key, -1 on an
 * error. */
static int begin_mapping(struct parser *p, const char *key, const char *expect)
{
	struct value v;
	if (p->ev.type == YAML_SCALAR_EVENT) {
		if (take_value(p, &v))
			return -1;
		return v.null ? 1 : fail(p, v.mark, "'%s' must be %s, found %s", key, expect, found_value(p, &v));
	}
	if (p->ev.type != YAML_MAPPING_START_EVENT)
		return fail(p, here(p), "'%s' must be %s, found %s", key, expect, found_event(p));
	return advance(p) ? -1 : 0;
}

/* `defaults:` - a mapping of step options, or null. */
static int read_defaults(struct parser *p, struct step_opts *o)
{
	int rc = begin_mapping(p, "defaults", "a mapping of step options");
	if (rc)
		return rc < 0 ? -1 : 0;
	struct mark first[OPT_COUNT];
	while (p->ev.type != YAML_MAPPING_END_EVENT) {
		const char *key = NULL;
		struct mark km;
		if (take_key(p, &key, &km))
			return -1;
		int opt = find_option(key);
		if (opt < 0) {
			if (refuse_unsupported(p, key, km))
				return -1;
			return fail(p, km, "unknown key '%s' in defaults (expected %s)",
				    shortened(p, key), option_list(p, NULL));
		}
		if (o->given & (1u << opt))
			return duplicate(p, key, km, first[opt]);
		first[opt] = km;
		if (read_option(p, opt, o))
			return -1;
	}
	return advance(p);
}

/* `inputs:` - a mapping NAME -> reference text, or null. */
static int read_inputs(struct parser *p)
{
	struct value v;
	int rc = begin_mapping(p, "inputs", "a mapping of names to datasets");
	if (rc)
		return rc < 0 ? -1 : 0;
	while (p->ev.type != YAML_MAPPING_END_EVENT) {
		const char *name = NULL;
		struct mark km;
		if (take_key(p, &name, &km))
			return -1;
		if (!is_identifier(name, strlen(name)))
			return fail(p, km, "input name '%s' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)",
				    shortened(p, name));
		for (int i = 0; i < p->ninputs; i++)
			if (strcmp(p->inputs[i].name, name) == 0)
				return duplicate(p, name, km, p->inputs[i].mark);
		if (p->ninputs == RECIPE_MAXINPUTS)
			return fail(p, km, "recipe has more than %d inputs", RECIPE_MAXINPUTS);
		if (p->ninputs == p->capinputs) {
			int cap = p->capinputs ? 2 * p->capinputs : 16;
			struct recipe_input *grown = realloc(p->inputs, (size_t)cap * sizeof *grown);
			if (!grown)
				return err_set(p->e, EXIT_RUN, p->path, "out of memory while reading the recipe");
			p->inputs = grown;
			p->capinputs = cap;
		}
		if (text_value(p, "input ", name, "a dataset (FILE:/PATH) or a number", &v))
			return -1;
		p->inputs[p->ninputs++] = (struct recipe_input){name, v.text, km, v.mark};
	}
	return advance(p);
}

/* `in:` or `out:` - one scalar or a list of 1..MAX scalars, into TEXTS and
 * MARKS, their count in *N.  A null `out:` (NULL_OK) is no output. */
static int read_operands(struct parser *p, const char *key, const char *expect, const char *noun,
			 int max, bool null_ok, const char **texts, struct mark *marks, int *n)
{
	struct value v;
	*n = 0;
	if (p->ev.type == YAML_SCALAR_EVENT) {
		if (take_value(p, &v))
			return -1;
		if (v.null && null_ok)
			return 0;
		if (v.null || !v.text[0])
			return fail(p, v.mark, "'%s' must be %s, found %s", key, expect, found_value(p, &v));
		texts[0] = v.text;
		marks[0] = v.mark;
		*n = 1;
		return 0;
	}
	if (p->ev.type != YAML_SEQUENCE_START_EVENT)
		return fail(p, here(p), "'%s' must be %s, found %s", key, expect, found_event(p));
	struct mark list = here(p);
	if (advance(p))
		return -1;
	while (p->ev.type != YAML_SEQUENCE_END_EVENT) {
		if (*n == max)
			return fail(p, here(p), "'%s' has more than %d %s", key, max, noun);
		if (p->ev.type != YAML_SCALAR_EVENT)
			return fail(p, here(p), "'%s' must be %s, found %s in the list", key, expect, found_event(p));
		if (take_value(p, &v))
			return -1;
		if (v.null || !v.text[0])
			return fail(p, v.mark, "'%s' must be %s, found %s in the list", key, expect,
				    found_value(p, &v));
		texts[*n] = v.text;
		marks[*n] = v.mark;
		(*n)++;
	}
	if (*n == 0)
		return fail(p, list, "'%s' must be %s, found an empty list", key, expect);
	return advance(p);
}

static int find_step_key(const char *key)
{
	for (int v = 0; v < VERB_COUNT; v++)
		if (strcmp(key, verb_names[v]) == 0)
			return v;
	if (strcmp(key, "in") == 0)
		return STEP_IN;
	if (strcmp(key, "out") == 0)
		return STEP_OUT;
	int opt = find_option(key);
	return opt < 0 ? -1 : STEP_OPT + opt;
}

/* One step: a mapping with exactly one verb, its operands, outputs and
 * options.  What depends on the verb is checked at the mapping's end. */
static int read_step(struct parser *p, struct recipe_step *s)
{
	if (p->ev.type != YAML_MAPPING_START_EVENT) {
		const char *found = found_event(p);
		struct mark m = here(p);
		if (p->ev.type == YAML_SCALAR_EVENT) {
			struct value v;
			if (take_value(p, &v))
				return -1;
			found = found_value(p, &v);
		}
		return fail(p, m, "a step must be a mapping with a verb (%s), found %s",
			    joined(p, verb_names, VERB_COUNT, NULL), found);
	}
	s->mark = here(p);
	if (advance(p))
		return -1;
	struct mark key_mark[STEP_COUNT];
	bool seen[STEP_COUNT] = {false};
	int verb = -1;
	while (p->ev.type != YAML_MAPPING_END_EVENT) {
		const char *key = NULL;
		struct mark km;
		if (take_key(p, &key, &km))
			return -1;
		int k = find_step_key(key);
		if (k < 0) {
			if (refuse_unsupported(p, key, km))
				return -1;
			return fail(p, km, "unknown key '%s' in step (expected in, out, %s)",
				    shortened(p, key), option_list(p, "a verb"));
		}
		if (seen[k])
			return duplicate(p, key, km, key_mark[k]);
		if (k < VERB_COUNT && verb >= 0)
			return fail(p, km, "step has two verbs, '%s' and '%s'", verb_names[verb], key);
		seen[k] = true;
		key_mark[k] = km;
		int rc;
		if (k < VERB_COUNT) {
			struct value v;
			verb = k;
			s->verb = (enum verb)k;
			s->fn_text = here(p);
			if (p->ev.type == YAML_SCALAR_EVENT)
				s->fn_text = text_start(p);
			rc = text_value(p, "", key, k == VERB_EXPR ? "an expression" : "a ufunc name", &v);
			s->fn = v.text;
			s->fn_mark = v.mark;
		} else if (k == STEP_IN) {
			rc = read_operands(p, "in", "an operand or a list of operands", "operands",
					   RECIPE_MAXIN, false, s->in, s->in_mark, &s->nin);
		} else if (k == STEP_OUT) {
			rc = read_operands(p, "out", "an output or a list of one or two outputs", "outputs",
					   RECIPE_MAXOUT, true, s->out, s->out_mark, &s->nout);
		} else {
			rc = read_option(p, k - STEP_OPT, &s->opts);
		}
		if (rc)
			return -1;
	}
	if (verb < 0)
		return fail(p, s->mark, "step has no verb (%s)", joined(p, verb_names, VERB_COUNT, NULL));
	if (verb == VERB_EXPR && seen[STEP_IN])
		return fail(p, key_mark[STEP_IN], "'in' is not allowed with 'expr' (the expression names its operands)");
	if (verb != VERB_EXPR && !seen[STEP_IN])
		return fail(p, key_mark[verb], "'%s' step has no 'in' (its operands)", verb_names[verb]);
	for (int opt = 0; opt < OPT_COUNT; opt++) {
		if (!seen[STEP_OPT + opt])
			continue;
		struct mark km = key_mark[STEP_OPT + opt];
		char verbs[80];
		if (!option_applies(opt, verb))
			return fail(p, km, "'%s' applies to %s steps only", options[opt].name,
				    option_verbs(opt, verbs, sizeof verbs));
	}
	return advance(p);
}

/* `steps:` - a non-empty list of steps. */
static int read_steps(struct parser *p)
{
	const char *expect = "a non-empty list of steps";
	if (p->ev.type == YAML_SCALAR_EVENT) {
		struct value v;
		if (take_value(p, &v))
			return -1;
		return fail(p, v.mark, "'steps' must be %s, found %s", expect, found_value(p, &v));
	}
	if (p->ev.type != YAML_SEQUENCE_START_EVENT)
		return fail(p, here(p), "'steps' must be %s, found %s", expect, found_event(p));
	struct mark list = here(p);
	if (advance(p))
		return -1;
	while (p->ev.type != YAML_SEQUENCE_END_EVENT) {
		if (p->nsteps == RECIPE_MAXSTEPS)
			return fail(p, here(p), "recipe has more than %d steps", RECIPE_MAXSTEPS);
		if (p->nsteps == p->capsteps) {
			int cap = p->capsteps ? 2 * p->capsteps : 16;
			struct recipe_step *grown = realloc(p->steps, (size_t)cap * sizeof *grown);
			if (!grown)
				return err_set(p->e, EXIT_RUN, p->path, "out of memory while reading the recipe");
			p->steps = grown;
			p->capsteps = cap;
		}
		struct recipe_step *s = &p->steps[p->nsteps++];
		memset(s, 0, sizeof *s);
		opts_init(&s->opts);
		if (read_step(p, s))
			return -1;
	}
	if (p->nsteps == 0)
		return fail(p, list, "'steps' must be %s, found an empty list", expect);
	return advance(p);
}

/* `version:` - the integer 1. */
static int read_version(struct parser *p, struct recipe *r)
{
	if (p->ev.type != YAML_SCALAR_EVENT)
		return fail(p, here(p), "'version' must be 1, found %s", found_event(p));
	struct value v;
	int64_t n;
	if (take_value(p, &v))
		return -1;
	if (v.null)
		return fail(p, v.mark, "'version' must be 1, found null");
	if (!parse_int(v.text, &n) || n != 1)
		return fail(p, v.mark, "unsupported recipe version %s (this h5ufunc reads version 1)",
			    shortened(p, v.text));
	r->version = 1;
	return 0;
}

/* The document's root: a mapping of version, inputs, steps, defaults. */
static int read_recipe(struct parser *p, struct recipe *r)
{
	if (p->ev.type != YAML_MAPPING_START_EVENT) {
		const char *found = found_event(p);
		struct mark m = here(p);
		if (p->ev.type == YAML_SCALAR_EVENT) {
			struct value v;
			if (take_value(p, &v))
				return -1;
			found = found_value(p, &v);
		}
		return fail(p, m, "a recipe must be a mapping with 'steps', found %s", found);
	}
	struct mark top = here(p);
	if (advance(p))
		return -1;
	struct mark first[TOP_COUNT];
	bool seen[TOP_COUNT] = {false};
	while (p->ev.type != YAML_MAPPING_END_EVENT) {
		const char *key = NULL;
		struct mark km;
		if (take_key(p, &key, &km))
			return -1;
		int k = 0;
		while (k < TOP_COUNT && strcmp(key, top_names[k]) != 0)
			k++;
		if (k == TOP_COUNT)
			return fail(p, km, "unknown key '%s' at the top of the recipe (expected %s)",
				    shortened(p, key), joined(p, top_names, TOP_COUNT, NULL));
		if (seen[k])
			return duplicate(p, key, km, first[k]);
		seen[k] = true;
		first[k] = km;
		int rc = k == TOP_VERSION ? read_version(p, r)
			: k == TOP_INPUTS ? read_inputs(p)
			: k == TOP_STEPS ? read_steps(p)
			: read_defaults(p, &r->defaults);
		if (rc)
			return -1;
	}
	if (!seen[TOP_STEPS])
		return fail(p, top, "recipe has no 'steps' (a list of steps)");
	return advance(p);
}

int recipe_parse(const char *text, size_t len, const char *path,
		 const struct vars *vars, struct arena *a, struct recipe *r,
		 struct err *e)
{
	struct parser p = {
		.text = text, .len = len, .path = path ? path : "<recipe>",
		.vars = vars, .a = a, .e = e,
	};
	memset(r, 0, sizeof *r);
	r->path = arena_strdup(a, p.path);
	r->version = 1;
	opts_init(&r->defaults);
	if (!yaml_parser_initialize(&p.yaml))
		return err_set(e, EXIT_RUN, p.path, "out of memory while reading the recipe");
	yaml_parser_set_input_string(&p.yaml, (const unsigned char *)text, len);

	int rc = -1;
	if (advance(&p) || advance(&p))         /* the stream's start, then a document's */
		goto out;
	if (p.ev.type == YAML_STREAM_END_EVENT) {
		fail(&p, (struct mark){1, 1}, "recipe is empty (expected a mapping with 'steps')");
		goto out;
	}
	if (advance(&p) || read_recipe(&p, r))  /* the root node, up to the document's end */
		goto out;
	if (p.anchor.line) {
		fail(&p, p.anchor, "YAML anchors are not supported");
		goto out;
	}
	if (advance(&p))
		goto out;
	if (p.ev.type == YAML_DOCUMENT_START_EVENT) {
		fail(&p, here(&p), "recipe holds more than one YAML document");
		goto out;
	}

	r->ninputs = p.ninputs;
	r->inputs = arena_alloc(a, (size_t)p.ninputs * sizeof *r->inputs);
	if (p.ninputs)
		memcpy(r->inputs, p.inputs, (size_t)p.ninputs * sizeof *r->inputs);
	r->nsteps = p.nsteps;
	r->steps = arena_alloc(a, (size_t)p.nsteps * sizeof *r->steps);
	memcpy(r->steps, p.steps, (size_t)p.nsteps * sizeof *r->steps);
	rc = 0;
out:
	if (p.have_event)
		yaml_event_delete(&p.ev);
	yaml_parser_delete(&p.yaml);
	free(p.steps);
	free(p.inputs);
	return rc;
}
