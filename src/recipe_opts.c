/* recipe_opts.c - the step options of a recipe (dtype, casting, initial,
 * ...), read by the recipe reader: one reader a row of options.def (the
 * rows of one scalar value share one, driven by a table), each
 * entered on its key's value and left on the event after it, checking
 * form only (which kind of value, dtype and casting names, axes, chunks,
 * compression); what the planner reads later is kept as text.  See
 * recipe_opts.h.
 */
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "options.h"
#include "reader.h"
#include "recipe_opts.h"

struct option;
typedef int option_reader(struct parser *p, const struct option *opt, struct step_opts *o);

/* One step option: its key, what its value must be, how it is read. */
struct option {
	const char *name;
	const char *expect;       /* for "'NAME' must be EXPECT, found ..." */
	option_reader *read;
};

/* The options whose value is one scalar kept in a field (initial, where,
 * fill, keepdims, overwrite, vds, missing, pack) are all read by read_scalar,
 * as the table scalars says. */
#define read_initial read_scalar
#define read_where read_scalar
#define read_fill read_scalar
#define read_keepdims read_scalar
#define read_overwrite read_scalar
#define read_vds read_scalar
#define read_missing read_scalar
#define read_pack read_scalar

#define OPTION(TAG, NAME, EXPECT, VERBS, FIELDS, CALL, REDUCE, ACCUMULATE, EVAL) static option_reader read_##NAME;
#include "options.def"
#undef OPTION

static const struct option options[OPT_COUNT] = {
#define OPTION(TAG, NAME, EXPECT, VERBS, FIELDS, CALL, REDUCE, ACCUMULATE, EVAL) \
	[OPT_##TAG] = { #NAME, EXPECT, read_##NAME },
#include "options.def"
#undef OPTION
};

void recipe_opts_init(struct step_opts *o)
{
	memset(o, 0, sizeof *o);
	o->dtype = DT_NONE;
	o->casting = CAST_SAME_KIND;
}

static int mismatch(struct parser *p, const struct option *opt, struct mark m, const char *found)
{
	return reader_fail(p, m, "'%s' must be %s, found %s", opt->name, opt->expect, found);
}

/* A YAML 1.2 core boolean, in any of its three spellings each. */
static int read_bool(struct parser *p, const struct option *opt, bool *out)
{
	static const char *const spellings[2][3] = {
		{"false", "False", "FALSE"}, {"true", "True", "TRUE"},
	};
	if (p->ev.type != YAML_SCALAR_EVENT)
		return mismatch(p, opt, reader_here(p), reader_found_event(p));
	struct value v;
	if (reader_take_value(p, &v))
		return -1;
	for (int b = 0; b < 2 && !v.null; b++)
		for (int k = 0; k < 3; k++)
			if (strcmp(v.text, spellings[b][k]) == 0) {
				*out = b;
				return 0;
			}
	return mismatch(p, opt, v.mark, reader_found_value(p, &v));
}

/* missing: by its name into O. */
static int parse_missing(const char *text, struct step_opts *o)
{
	return missing_from_name(text, &o->missing);
}

/* How an option of one scalar value is kept: its text (read later, by the
 * planner), a boolean, or what a parser of options.h makes of the text
 * (refused: < 0), at FIELD of struct step_opts. */
static const struct scalar {
	enum { SCALAR_TEXT, SCALAR_BOOL, SCALAR_PARSED } kind;
	size_t field;
	int (*parse)(const char *text, struct step_opts *o);
} scalars[OPT_COUNT] = {
	[OPT_INITIAL] = { SCALAR_TEXT, offsetof(struct step_opts, initial), NULL },
	[OPT_WHERE] = { SCALAR_TEXT, offsetof(struct step_opts, where), NULL },
	[OPT_FILL] = { SCALAR_TEXT, offsetof(struct step_opts, fill), NULL },
	[OPT_KEEPDIMS] = { SCALAR_BOOL, offsetof(struct step_opts, keepdims), NULL },
	[OPT_OVERWRITE] = { SCALAR_BOOL, offsetof(struct step_opts, overwrite), NULL },
	[OPT_VDS] = { SCALAR_BOOL, offsetof(struct step_opts, vds), NULL },
	[OPT_MISSING] = { SCALAR_PARSED, 0, parse_missing },
	[OPT_PACK] = { SCALAR_PARSED, 0, pack_from_text },
};

static int read_scalar(struct parser *p, const struct option *opt, struct step_opts *o)
{
	const struct scalar *sc = &scalars[opt - options];
	char *field = (char *)o + sc->field;
	if (sc->kind == SCALAR_BOOL)
		return read_bool(p, opt, (bool *)field);
	struct value v;
	if (reader_text_value(p, "", opt->name, opt->expect, &v))
		return -1;
	if (sc->kind == SCALAR_TEXT)
		memcpy(field, &v.text, sizeof v.text);
	else if (sc->parse(v.text, o) < 0)
		return mismatch(p, opt, v.mark, reader_found_value(p, &v));
	return 0;
}

static int read_dtype(struct parser *p, const struct option *opt, struct step_opts *o)
{
	struct value v;
	if (reader_text_value(p, "", opt->name, opt->expect, &v))
		return -1;
	if (dtype_from_name(v.text, &o->dtype))
		return reader_fail(p, v.mark, "unknown dtype %s", reader_found_value(p, &v));
	return 0;
}

static int read_casting(struct parser *p, const struct option *opt, struct step_opts *o)
{
	struct value v;
	if (reader_text_value(p, "", opt->name, opt->expect, &v))
		return -1;
	if (casting_from_name(v.text, &o->casting))
		return reader_fail(p, v.mark, "unknown casting %s (expected %s)", reader_found_value(p, &v), opt->expect);
	return 0;
}


static int read_chunks(struct parser *p, const struct option *opt, struct step_opts *o)
{
	struct value v;
	if (p->ev.type == YAML_SCALAR_EVENT) {
		if (reader_take_value(p, &v))
			return -1;
		if (!v.null && strcmp(v.text, "auto") == 0) {
			o->chunks_auto = true;
			return 0;
		}
		return mismatch(p, opt, v.mark, reader_found_value(p, &v));
	}
	if (p->ev.type != YAML_SEQUENCE_START_EVENT)
		return mismatch(p, opt, reader_here(p), reader_found_event(p));
	struct mark list = reader_here(p);
	if (reader_advance(p))
		return -1;
	while (p->ev.type != YAML_SEQUENCE_END_EVENT) {
		if (o->nchunks == H5U_MAXDIM)
			return reader_fail(p, reader_here(p), "'chunks' has more than %d dimensions", H5U_MAXDIM);
		if (p->ev.type != YAML_SCALAR_EVENT)
			return mismatch(p, opt, reader_here(p), reader_found_event(p));
		int64_t n;
		if (reader_take_value(p, &v))
			return -1;
		if (v.null || !reader_parse_int(v.text, &n) || n <= 0)
			return mismatch(p, opt, v.mark, reader_found_value(p, &v));
		o->chunks[o->nchunks++] = n;
	}
	if (o->nchunks == 0)
		return mismatch(p, opt, list, "an empty list");
	return reader_advance(p);
}

static int read_compression(struct parser *p, const struct option *opt, struct step_opts *o)
{
	struct value v;
	char names[512];   /* what it must be: filters.def's names, not OPT's text */
	filter_names(names, sizeof names);
	if (reader_text_value(p, "", opt->name, names, &v))
		return -1;
	if (filter_parse(v.text, &o->compression) < 0)
		return reader_fail(p, v.mark, "'%s' must be %s, found %s", opt->name, names,
				   reader_found_value(p, &v));
	return 0;
}

/* Is TEXT a dimension's name (a netCDF name: a letter or _ first)? */
static bool dimension_name(const char *text)
{
	if (!((*text >= 'a' && *text <= 'z') || (*text >= 'A' && *text <= 'Z') || *text == '_'))
		return false;
	for (const char *c = text; *c; c++)
		if (*c == '/' || *c == ' ' || *c == ',' || (unsigned char)*c < 0x20)
			return false;
	return true;
}

/* One axis: an integer in int's range or a dimension's name (the planner
 * checks it against the operand's dimensions). */
static int read_axis_number(struct parser *p, const struct option *opt, const struct value *v, int *out,
			    const char **name)
{
	int64_t n;
	*name = NULL;
	if (!v->null && dimension_name(v->text)) {
		*name = v->text;
		*out = 0;
		return 0;
	}
	if (v->null || !reader_parse_int(v->text, &n))
		return mismatch(p, opt, v->mark, reader_found_value(p, v));
	if (n < INT_MIN || n > INT_MAX)
		return reader_fail(p, v->mark, "axis %s is out of range", reader_shortened(p, v->text));
	*out = (int)n;
	return 0;
}

static int read_axis(struct parser *p, const struct option *opt, struct step_opts *o)
{
	struct value v;
	if (p->ev.type == YAML_SCALAR_EVENT) {
		if (reader_take_value(p, &v))
			return -1;
		if (v.null) {
			o->axis_all = true;
			return 0;
		}
		o->naxis = 1;
		return read_axis_number(p, opt, &v, &o->axis[0], &o->axis_name[0]);
	}
	if (p->ev.type != YAML_SEQUENCE_START_EVENT)
		return mismatch(p, opt, reader_here(p), reader_found_event(p));
	if (reader_advance(p))
		return -1;
	while (p->ev.type != YAML_SEQUENCE_END_EVENT) {
		if (o->naxis == H5U_MAXDIM)
			return reader_fail(p, reader_here(p), "'axis' has more than %d axes", H5U_MAXDIM);
		if (p->ev.type != YAML_SCALAR_EVENT)
			return mismatch(p, opt, reader_here(p), reader_found_event(p));
		if (reader_take_value(p, &v) || read_axis_number(p, opt, &v, &o->axis[o->naxis], &o->axis_name[o->naxis]))
			return -1;
		o->naxis++;
	}
	return reader_advance(p);
}

/* One integer of axes: (an axis number, as written). */
static int read_axes_number(struct parser *p, const struct option *opt, int *out)
{
	struct value v;
	int64_t n;
	if (p->ev.type != YAML_SCALAR_EVENT)
		return mismatch(p, opt, reader_here(p), reader_found_event(p));
	if (reader_take_value(p, &v))
		return -1;
	if (v.null || !reader_parse_int(v.text, &n))
		return mismatch(p, opt, v.mark, reader_found_value(p, &v));
	if (n < -H5U_MAXDIM || n >= H5U_MAXDIM)
		return reader_fail(p, v.mark, "axis %s is out of range", reader_shortened(p, v.text));
	*out = (int)n;
	return 0;
}

/* axes: [[1, 0], [0, 1], [0, 1]]: an entry per operand and result, each a
 * list of axes or one integer; entries past the first RECIPE_AXES, and
 * axes past an entry's first RECIPE_CORE, are counted, not kept (the
 * planner refuses them by count). */
static int read_axes(struct parser *p, const struct option *opt, struct step_opts *o)
{
	if (p->ev.type != YAML_SEQUENCE_START_EVENT)
		return mismatch(p, opt, reader_here(p), reader_found_event(p));
	if (reader_advance(p))
		return -1;
	o->naxes = 0;
	for (; p->ev.type != YAML_SEQUENCE_END_EVENT; o->naxes++) {
		int scratch[RECIPE_CORE], *axes = o->naxes < RECIPE_AXES ? o->axes[o->naxes] : scratch;
		int len = 0;
		if (o->naxes == H5U_MAXDIM)
			return reader_fail(p, reader_here(p), "'axes' has more than %d entries", H5U_MAXDIM);
		if (p->ev.type == YAML_SCALAR_EVENT) {
			len = -1;
			if (read_axes_number(p, opt, &axes[0]))
				return -1;
		} else if (p->ev.type == YAML_SEQUENCE_START_EVENT) {
			if (reader_advance(p))
				return -1;
			for (; p->ev.type != YAML_SEQUENCE_END_EVENT; len++) {
				int x;
				if (len == H5U_MAXDIM)
					return reader_fail(p, reader_here(p), "an entry of 'axes' has more than %d axes",
							   H5U_MAXDIM);
				if (read_axes_number(p, opt, &x))
					return -1;
				if (len < RECIPE_CORE)
					axes[len] = x;
			}
			if (reader_advance(p))
				return -1;
		} else {
			return mismatch(p, opt, reader_here(p), reader_found_event(p));
		}
		if (o->naxes < RECIPE_AXES)
			o->axes_len[o->naxes] = len;
	}
	return reader_advance(p);
}

static int read_broadcast(struct parser *p, const struct option *opt, struct step_opts *o)
{
	struct value v;
	if (reader_text_value(p, "", opt->name, opt->expect, &v))
		return -1;
	if (strcmp(v.text, "name") && strcmp(v.text, "position"))
		return mismatch(p, opt, v.mark, reader_found_value(p, &v));
	o->by_position = !strcmp(v.text, "position");
	return 0;
}

static int read_units(struct parser *p, const struct option *opt, struct step_opts *o)
{
	struct value v;
	if (reader_text_value(p, "", opt->name, opt->expect, &v))
		return -1;
	if (strcmp(v.text, "propagate") && strcmp(v.text, "strict") && strcmp(v.text, "off") &&
	    strcmp(v.text, "false"))
		return mismatch(p, opt, v.mark, reader_found_value(p, &v));
	o->units_strict = !strcmp(v.text, "strict");
	o->units_off = !o->units_strict && strcmp(v.text, "propagate") != 0;
	return 0;
}

int recipe_opts_find(const char *key)
{
	for (int i = 0; i < OPT_COUNT; i++)
		if (strcmp(key, options[i].name) == 0)
			return i;
	return -1;
}

int recipe_opts_read(struct parser *p, int opt, struct step_opts *o)
{
	option_give(o, opt);
	o->mark[opt] = reader_here(p);
	return options[opt].read(p, &options[opt], o);
}

const char *recipe_opts_list(struct parser *p, const char *tail)
{
	const char *names[OPT_COUNT];
	for (int i = 0; i < OPT_COUNT; i++)
		names[i] = options[i].name;
	return reader_joined(p, names, OPT_COUNT, tail);
}
