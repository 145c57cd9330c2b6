/* options.c - the step options' table and what the one-liners do with it.
 * See options.h; the rows are options.def's. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

#define FLAG(ARG, HELP) { ARG, HELP }
#define NO_FLAG { NULL, NULL }
#define FIELDS(FIRST, LAST) offsetof(struct step_opts, FIRST), \
	offsetof(struct step_opts, LAST) + sizeof ((struct step_opts *)0)->LAST
const struct step_option step_options[OPT_COUNT] = {
#define OPTION(TAG, NAME, EXPECT, VERBS, FIELDS, CALL, REDUCE, ACCUMULATE, EVAL) \
	[OPT_##TAG] = { #NAME, EXPECT, VERBS, FIELDS, { CALL, REDUCE, ACCUMULATE, EVAL, REDUCE } },
#include "options.def"
#undef OPTION
};
#undef FLAG
#undef NO_FLAG
#undef FIELDS

/* The verb of each one-liner's step. */
static const enum verb one_liner_verb[ONE_COUNT] = {
	[ONE_CALL] = VERB_UFUNC, [ONE_REDUCE] = VERB_REDUCE, [ONE_ACCUMULATE] = VERB_ACCUMULATE,
	[ONE_EVAL] = VERB_EXPR, [ONE_REDUCEAT] = VERB_REDUCEAT,
};

/* One-liner W's flag for OPT, or NULL when it has none.  reduceat takes
 * reduce's flags, but one axis, as accumulate does. */
static const struct option_flag *flag_of(enum one_liner w, int opt)
{
	const struct option_flag *f = &step_options[opt].flag[w == ONE_REDUCEAT && opt == OPT_AXIS ? ONE_ACCUMULATE : w];
	return f->arg && option_applies(opt, one_liner_verb[w]) ? f : NULL;
}

void option_merge(const struct step_opts *d, const struct step_opts *s, struct step_opts *out)
{
	*out = *d;
	out->given = d->given | s->given;
	for (int i = 0; i < OPT_COUNT; i++)
		if (option_given(s, i)) {
			const struct step_option *opt = &step_options[i];
			out->mark[i] = s->mark[i];
			memcpy((char *)out + opt->first, (const char *)s + opt->first, opt->end - opt->first);
		}
}

bool option_applies(int opt, enum verb v)
{
	return step_options[opt].verbs & (1u << v);
}

const char *option_verbs(int opt, char *buf, size_t n)
{
	static const enum verb order[] = { VERB_UFUNC, VERB_REDUCE, VERB_ACCUMULATE, VERB_OUTER,
					   VERB_EXPR, VERB_REDUCEAT, VERB_AT };
	int count = 0, total = 0;
	for (size_t i = 0; i < sizeof order / sizeof *order; i++)
		total += option_applies(opt, order[i]);
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof order / sizeof *order && used < n; i++) {
		if (!option_applies(opt, order[i]))
			continue;
		const char *sep = !count ? "" : count == total - 1 ? " and " : ", ";
		used += (size_t)snprintf(buf + used, n - used, "%s%s", sep, verb_name(order[i]));
		count++;
	}
	return buf;
}

int option_flags(enum one_liner w, int first_id, struct cli_option *out)
{
	int n = 0;
	for (int opt = 0; opt < OPT_COUNT; opt++) {
		const struct option_flag *f = flag_of(w, opt);
		if (f)
			out[n++] = (struct cli_option){ step_options[opt].name, 0, *f->arg != '\0',
							first_id + opt };
	}
	return n;
}

int missing_from_name(const char *name, enum missing_mode *out)
{
	static const struct { const char *name; enum missing_mode mode; } names[] = {
		{ "cf", MISSING_CF }, { "mask", MISSING_MASK }, { "mask-nan", MISSING_MASK_NAN },
		{ "raw", MISSING_RAW }, { "off", MISSING_RAW }   /* off: before CF decoding, the default */
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (!strcmp(name, names[i].name)) {
			*out = names[i].mode;
			return 0;
		}
	return -1;
}

int pack_from_text(const char *text, struct step_opts *o)
{
	char name[32];
	size_t n = strcspn(text, ":");
	if (n >= sizeof name)
		return -1;
	memcpy(name, text, n);
	name[n] = '\0';
	if (dtype_from_name(name, &o->pack) < 0 || strchr("iu", dtype_table[o->pack].kind) == NULL ||
	    dtype_size(o->pack) > 4)
		return -1;
	double *value[2] = { &o->pack_scale, &o->pack_offset };
	const char *p = text + n;   /* at the ':' before each value */
	for (o->pack_values = 0; *p; o->pack_values++) {
		char *end;
		if (o->pack_values == 2)
			return -1;
		*value[o->pack_values] = strtod(p + 1, &end);
		if (end == p + 1 || (*end && *end != ':') || !isfinite(*value[o->pack_values]))
			return -1;
		p = end;
	}
	return o->pack_values > 0 && o->pack_scale == 0 ? -1 : 0;
}

/* --axis N[,N...] | all */
static int parse_axis(const char *arg, struct step_opts *o, struct arena *a, const char *w,
		      struct err *e)
{
	if (!strcmp(arg, "all") || !strcmp(arg, "None") || !strcmp(arg, "none")) {
		o->axis_all = true;
		return 0;
	}
	const char *p = arg;
	o->naxis = 0;
	for (;;) {
		char *end;
		long v = strtol(p, &end, 10);
		o->axis_name[o->naxis] = NULL;
		if (end == p && o->naxis < H5U_MAXDIM &&
		    ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_')) {
			end = strchr(p, ',');   /* a dimension's name */
			if (!end)
				end = (char *)p + strlen(p);
			o->axis_name[o->naxis] = arena_strndup(a, p, (size_t)(end - p));
			v = 0;
		} else if (end == p || (*end && *end != ',') || v < -H5U_MAXDIM || v >= H5U_MAXDIM ||
			   o->naxis == H5U_MAXDIM) {
			return err_set(e, EXIT_USAGE, w, "--axis: '%s' is not N[,N...] or all", arg);
		}
		o->axis[o->naxis++] = (int)v;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

/* One integer of --axes at *P, which moves past it. */
static bool axes_number(const char **p, int *out)
{
	char *end;
	long v = strtol(*p, &end, 10);
	if (end == *p || v < -H5U_MAXDIM || v >= H5U_MAXDIM)
		return false;
	*out = (int)v;
	*p = end;
	return true;
}

static const char *skip_blanks(const char *p)
{
	while (*p == ' ')
		p++;
	return p;
}

/* One entry of --axes at *P: an integer, or a list [a, b] or tuple (a, b)
 * of them (a trailing comma allowed, as Python writes (a,)). */
static bool axes_entry(const char **pp, int *len, int *axes)
{
	const char *p = skip_blanks(*pp);
	if (*p != '[' && *p != '(') {
		*len = -1;
		*pp = p;
		return axes_number(pp, &axes[0]);
	}
	char close = *p == '[' ? ']' : ')';
	*len = 0;
	for (p = skip_blanks(p + 1); *p != close; p = skip_blanks(p)) {
		int x;
		if (*len == H5U_MAXDIM || !axes_number(&p, &x))
			return false;
		if (*len < RECIPE_CORE)
			axes[*len] = x;
		(*len)++;
		p = skip_blanks(p);
		if (*p == ',')
			p++;
		else if (*p != close)
			return false;
	}
	*pp = p + 1;
	return true;
}

/* --axes '[[1,0],[0,1],[0,1]]': the list of entries (recipe.c's read_axes
 * for one-liners). */
static int parse_axes(const char *arg, struct step_opts *o, const char *w, struct err *e)
{
	const char *p = skip_blanks(arg);
	char close = *p == '[' ? ']' : *p == '(' ? ')' : 0;
	o->naxes = 0;
	if (close)
		for (p = skip_blanks(p + 1); *p != close; p = skip_blanks(p)) {
			int scratch[RECIPE_CORE], len;
			int *axes = o->naxes < RECIPE_AXES ? o->axes[o->naxes] : scratch;
			if (o->naxes == H5U_MAXDIM || !axes_entry(&p, &len, axes))
				break;
			if (o->naxes < RECIPE_AXES)
				o->axes_len[o->naxes] = len;
			o->naxes++;
			p = skip_blanks(p);
			if (*p == ',')
				p++;
			else if (*p != close)
				break;
		}
	if (!close || *p != close || *skip_blanks(p + 1))
		return err_set(e, EXIT_USAGE, w,
			       "--axes: '%s' is not a list of axes lists, such as '[[1,0],[0,1],[0,1]]'", arg);
	return 0;
}

int option_from_flag(int opt, const char *arg, struct step_opts *o, struct arena *a, const char *where,
		     struct err *e)
{
	option_give(o, opt);
	switch (opt) {
	case OPT_DTYPE:
		if (dtype_from_name(arg, &o->dtype) < 0)
			return err_set(e, EXIT_USAGE, where, "--dtype: unknown dtype '%s'", arg);
		return 0;
	case OPT_CASTING:
		if (casting_from_name(arg, &o->casting) < 0)
			return err_set(e, EXIT_USAGE, where,
				       "--casting: '%s' is not one of no, equiv, safe, same_kind, unsafe", arg);
		return 0;
	case OPT_AXIS:
		return parse_axis(arg, o, a, where, e);
	case OPT_AXES:
		return parse_axes(arg, o, where, e);
	case OPT_MISSING:
		if (missing_from_name(arg, &o->missing) < 0)
			return err_set(e, EXIT_USAGE, where, "--missing: '%s' is not one of cf, mask, mask-nan, raw, off",
				       arg);
		return 0;
	case OPT_PACK:
		if (pack_from_text(arg, o) < 0)
			return err_set(e, EXIT_USAGE, where, "--pack: '%s' is not %s", arg, step_options[opt].expect);
		return 0;
	case OPT_KEEPDIMS:
		o->keepdims = true;
		return 0;
	case OPT_VDS:
		o->vds = true;
		return 0;
	case OPT_UNITS:
		if (strcmp(arg, "propagate") && strcmp(arg, "strict") && strcmp(arg, "off") &&
		    strcmp(arg, "false"))
			return err_set(e, EXIT_USAGE, where, "--units: '%s' is not propagate, strict or off", arg);
		o->units_strict = !strcmp(arg, "strict");
		o->units_off = !o->units_strict && strcmp(arg, "propagate") != 0;
		return 0;
	case OPT_BROADCAST:
		if (strcmp(arg, "name") && strcmp(arg, "position"))
			return err_set(e, EXIT_USAGE, where, "--broadcast: '%s' is not name or position", arg);
		o->by_position = !strcmp(arg, "position");
		return 0;
	case OPT_INITIAL:
	case OPT_WHERE:
	case OPT_FILL:   /* kept as text, read by the planner */
		*(const char **)((char *)o + step_options[opt].first) = arg;
		return 0;
	default:   /* no one-liner has a flag for it (options.def) */
		return err_set(e, EXIT_USAGE, where, "--%s: not an option here", step_options[opt].name);
	}
}

void option_print_help(FILE *f, enum one_liner w)
{
	for (int opt = 0; opt < OPT_COUNT; opt++) {
		const struct option_flag *fl = flag_of(w, opt);
		if (!fl)
			continue;
		char flag[64];
		snprintf(flag, sizeof flag, "--%s%s%s", step_options[opt].name, *fl->arg ? " " : "", fl->arg);
		int n = (int)strlen(flag);
		fprintf(f, "  %s%*s%s\n", flag, n < 19 ? 19 - n : 3, "", fl->help);
	}
}
