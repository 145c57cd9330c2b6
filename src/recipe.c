/* recipe.c - YAML text -> recipe tree, with libyaml's event API (its
 * lower layer, events, marks, messages and scalar values, is reader.c).
 *
 * The recipe is read as a stream of libyaml events by a small recursive
 * descent: one function per kind of node (the recipe, its inputs, its steps,
 * one step; one step option, in recipe_opts.c), each entered on the node's
 * first event and left on the event after the node.  Nothing is built that the recipe does
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "reader.h"
#include "recipe_opts.h"

#define RECIPE_MAXSTEPS 65536
#define RECIPE_MAXINPUTS 4096

enum top_key { TOP_VERSION, TOP_INPUTS, TOP_STEPS, TOP_DEFAULTS, TOP_COUNT };

static const char *const top_names[TOP_COUNT] = {
	[TOP_VERSION] = "version", [TOP_INPUTS] = "inputs",
	[TOP_STEPS] = "steps", [TOP_DEFAULTS] = "defaults",
};

/* The keys of a step, as one index space: the verbs, in, out, indices, the
 * options. */
enum { STEP_IN = VERB_COUNT, STEP_OUT, STEP_INDICES, STEP_OPT, STEP_COUNT = STEP_OPT + OPT_COUNT };

/* ---- Recipe nodes ------------------------------------------------------ */

/* The value of the top-level KEY, which must be EXPECT (a mapping) or
 * null: 1 when it is null (taken), 0 at the mapping's first key, -1 on an
 * error. */
static int begin_mapping(struct parser *p, const char *key, const char *expect)
{
	struct value v;
	if (p->ev.type == YAML_SCALAR_EVENT) {
		if (reader_take_value(p, &v))
			return -1;
		return v.null ? 1 : reader_fail(p, v.mark, "'%s' must be %s, found %s", key, expect, reader_found_value(p, &v));
	}
	if (p->ev.type != YAML_MAPPING_START_EVENT)
		return reader_fail(p, reader_here(p), "'%s' must be %s, found %s", key, expect, reader_found_event(p));
	return reader_advance(p) ? -1 : 0;
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
		if (reader_take_key(p, &key, &km))
			return -1;
		int opt = recipe_opts_find(key);
		if (opt < 0)
			return reader_fail(p, km, "unknown key '%s' in defaults (expected %s)",
				    reader_shortened(p, key), recipe_opts_list(p, NULL));
		if (option_given(o, opt))
			return reader_duplicate(p, key, km, first[opt]);
		first[opt] = km;
		if (recipe_opts_read(p, opt, o))
			return -1;
	}
	return reader_advance(p);
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
		if (reader_take_key(p, &name, &km))
			return -1;
		if (!vars_is_name(name, strlen(name)))
			return reader_fail(p, km, "input name '%s' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)",
				    reader_shortened(p, name));
		for (int i = 0; i < p->ninputs; i++)
			if (strcmp(p->inputs[i].name, name) == 0)
				return reader_duplicate(p, name, km, p->inputs[i].mark);
		if (p->ninputs == RECIPE_MAXINPUTS)
			return reader_fail(p, km, "recipe has more than %d inputs", RECIPE_MAXINPUTS);
		if (p->ninputs == p->capinputs) {
			int cap = p->capinputs ? 2 * p->capinputs : 16;
			struct recipe_input *grown = realloc(p->inputs, (size_t)cap * sizeof *grown);
			if (!grown)
				return err_set(p->e, EXIT_RUN, p->path, "out of memory while reading the recipe");
			p->inputs = grown;
			p->capinputs = cap;
		}
		if (reader_text_value(p, "input ", name, "a dataset (FILE:/PATH) or a number", &v))
			return -1;
		p->inputs[p->ninputs++] = (struct recipe_input){name, v.text, km, v.mark};
	}
	return reader_advance(p);
}

/* `in:` or `out:` - one scalar or a list of 1..MAX scalars, into TEXTS and
 * MARKS, their count in *N.  A null `out:` (NULL_OK) is no output. */
static int read_operands(struct parser *p, const char *key, const char *expect, const char *noun,
			 int max, bool null_ok, const char **texts, struct mark *marks, int *n)
{
	struct value v;
	*n = 0;
	if (p->ev.type == YAML_SCALAR_EVENT) {
		if (reader_take_value(p, &v))
			return -1;
		if (v.null && null_ok)
			return 0;
		if (v.null || !v.text[0])
			return reader_fail(p, v.mark, "'%s' must be %s, found %s", key, expect, reader_found_value(p, &v));
		texts[0] = v.text;
		marks[0] = v.mark;
		*n = 1;
		return 0;
	}
	if (p->ev.type != YAML_SEQUENCE_START_EVENT)
		return reader_fail(p, reader_here(p), "'%s' must be %s, found %s", key, expect, reader_found_event(p));
	struct mark list = reader_here(p);
	if (reader_advance(p))
		return -1;
	while (p->ev.type != YAML_SEQUENCE_END_EVENT) {
		if (*n == max)
			return reader_fail(p, reader_here(p), "'%s' has more than %d %s", key, max, noun);
		if (p->ev.type != YAML_SCALAR_EVENT)
			return reader_fail(p, reader_here(p), "'%s' must be %s, found %s in the list", key, expect, reader_found_event(p));
		if (reader_take_value(p, &v))
			return -1;
		if (v.null || !v.text[0])
			return reader_fail(p, v.mark, "'%s' must be %s, found %s in the list", key, expect,
				    reader_found_value(p, &v));
		texts[*n] = v.text;
		marks[*n] = v.mark;
		(*n)++;
	}
	if (*n == 0)
		return reader_fail(p, list, "'%s' must be %s, found an empty list", key, expect);
	return reader_advance(p);
}

/* A list of integers as the planner reads it, "[0,31,59]", being built. */
struct int_text {
	char *buf;
	size_t len, cap;
};

/* Append N to T; -1 when out of memory. */
static int int_text_add(struct int_text *t, int64_t n)
{
	char num[32];
	int k = snprintf(num, sizeof num, "%s%lld", t->len ? "," : "[", (long long)n);
	if (t->len + (size_t)k + 2 > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		char *grown = realloc(t->buf, cap);
		if (!grown)
			return -1;
		t->buf = grown;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, num, (size_t)k);
	t->len += (size_t)k;
	return 0;
}

/* T closed ("[]" when empty) and copied to the arena; T freed. */
static const char *int_text_end(struct parser *p, struct int_text *t)
{
	size_t n = t->len ? t->len : 1;
	char *out = arena_alloc(p->a, n + 2);
	memcpy(out, t->len ? t->buf : "[", n);
	out[n] = ']';
	out[n + 1] = '\0';
	free(t->buf);
	*t = (struct int_text){0};
	return out;
}

/* The current scalar: an integer of `indices:` (0, *INTEGER set) or some
 * other text (*INTEGER false), into V and *N. */
static int index_scalar(struct parser *p, const char *expect, struct value *v, int64_t *n, bool *integer)
{
	if (reader_take_value(p, v))
		return -1;
	if (v->null || !v->text[0])
		return reader_fail(p, v->mark, "'indices' must be %s, found %s in the list", expect,
				   reader_found_value(p, v));
	*integer = reader_parse_int(v->text, n);
	return 0;
}

/* A list of integers (the current node, a sequence) as "[0,31,59]" in *OUT. */
static int read_int_list(struct parser *p, const char **out)
{
	struct int_text t = {0};
	int rc = reader_advance(p);
	while (rc == 0 && p->ev.type != YAML_SEQUENCE_END_EVENT) {
		struct value v;
		int64_t n = 0;
		bool integer = false;
		if (p->ev.type != YAML_SCALAR_EVENT)
			rc = reader_fail(p, reader_here(p), "'indices' must be a list of integers, found %s in a list",
					 reader_found_event(p));
		else if (index_scalar(p, "a list of integers", &v, &n, &integer) < 0)
			rc = -1;
		else if (!integer)
			rc = reader_fail(p, v.mark, "'indices' must be a list of integers, found %s in a list",
					 reader_found_value(p, &v));
		else if (int_text_add(&t, n) < 0)
			rc = err_set(p->e, EXIT_RUN, p->path, "out of memory while reading the recipe");
	}
	*out = int_text_end(p, &t);
	return rc ? rc : reader_advance(p);
}

/* `indices:` (reduceat, at) - a dataset or name, a list of integers (one
 * index array, as NumPy reads a list), or a list of index arrays, one per
 * axis (datasets, names, integers, lists of integers), into S. */
static int read_indices(struct parser *p, struct recipe_step *s)
{
	const char *expect = "a dataset, a list of integers, or a list of them";
	struct value v;
	if (p->ev.type == YAML_SCALAR_EVENT) {
		if (reader_take_value(p, &v))
			return -1;
		if (v.null || !v.text[0])
			return reader_fail(p, v.mark, "'indices' must be %s, found %s", expect, reader_found_value(p, &v));
		s->idx[0] = v.text;
		s->idx_mark[0] = v.mark;
		s->nidx = 1;
		return 0;
	}
	if (p->ev.type != YAML_SEQUENCE_START_EVENT)
		return reader_fail(p, reader_here(p), "'indices' must be %s, found %s", expect, reader_found_event(p));
	struct int_text ints = {0};   /* while every entry is an integer: all of them */
	struct mark start = reader_here(p);
	bool all_int = true;
	int rc = reader_advance(p), n = 0;
	while (rc == 0 && p->ev.type != YAML_SEQUENCE_END_EVENT) {
		struct mark m = reader_here(p);
		const char *text = NULL;
		int64_t k = 0;
		bool integer = false;
		if (p->ev.type == YAML_SEQUENCE_START_EVENT)
			rc = read_int_list(p, &text);
		else if (p->ev.type == YAML_SCALAR_EVENT && (rc = index_scalar(p, expect, &v, &k, &integer)) == 0)
			text = v.text;
		else if (p->ev.type != YAML_SCALAR_EVENT)
			rc = reader_fail(p, m, "'indices' must be %s, found %s in the list", expect,
					 reader_found_event(p));
		all_int = all_int && integer;
		if (rc == 0 && all_int && int_text_add(&ints, k) < 0)
			rc = err_set(p->e, EXIT_RUN, p->path, "out of memory while reading the recipe");
		if (rc == 0 && n == H5U_MAXDIM && !all_int)
			rc = reader_fail(p, m, "'indices' has more than %d index arrays", H5U_MAXDIM);
		if (rc == 0 && n < H5U_MAXDIM) {
			s->idx[n] = text;
			s->idx_mark[n] = m;
		}
		n++;
	}
	const char *list = int_text_end(p, &ints);
	if (rc)
		return rc;
	s->nidx = all_int ? 1 : n;   /* integers only: one index array, as NumPy reads a list */
	if (all_int) {
		s->idx[0] = list;
		s->idx_mark[0] = start;
	}
	return reader_advance(p);
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
	if (strcmp(key, "indices") == 0)
		return STEP_INDICES;
	int opt = recipe_opts_find(key);
	return opt < 0 ? -1 : STEP_OPT + opt;
}

/* What depends on VERB: the keys a step of it needs and those it may not
 * have (SEEN, at KEY_MARK). */
static int check_step_keys(struct parser *p, int verb, const bool *seen, const struct mark *key_mark)
{
	const char *name = verb_names[verb];
	if (verb == VERB_EXPR && seen[STEP_IN])
		return reader_fail(p, key_mark[STEP_IN], "'in' is not allowed with 'expr' (the expression names its operands)");
	if (verb != VERB_EXPR && !seen[STEP_IN])
		return reader_fail(p, key_mark[verb], "'%s' step has no 'in' (its operands)", name);
	bool indexed = verb == VERB_REDUCEAT || verb == VERB_AT;
	if (indexed && !seen[STEP_INDICES])
		return reader_fail(p, key_mark[verb], "'%s' step has no 'indices'", name);
	if (!indexed && seen[STEP_INDICES])
		return reader_fail(p, key_mark[STEP_INDICES], "'indices' applies to reduceat and at steps only");
	if (verb == VERB_AT && seen[STEP_OUT])
		return reader_fail(p, key_mark[STEP_OUT], "'out' is not allowed with 'at' (it writes into its first operand)");
	for (int opt = 0; opt < OPT_COUNT; opt++) {
		if (!seen[STEP_OPT + opt])
			continue;
		struct mark km = key_mark[STEP_OPT + opt];
		char verbs[80];
		if (!option_applies(opt, verb))
			return reader_fail(p, km, "'%s' applies to %s steps only", step_options[opt].name,
				    option_verbs(opt, verbs, sizeof verbs));
	}
	return 0;
}

/* One step: a mapping with exactly one verb, its operands, outputs and
 * options.  What depends on the verb is checked at the mapping's end. */
static int read_step(struct parser *p, struct recipe_step *s)
{
	if (p->ev.type != YAML_MAPPING_START_EVENT) {
		struct mark m = reader_here(p);
		const char *found = reader_found_node(p);
		if (!found)
			return -1;
		return reader_fail(p, m, "a step must be a mapping with a verb (%s), found %s",
			    reader_joined(p, verb_names, VERB_COUNT, NULL), found);
	}
	s->mark = reader_here(p);
	if (reader_advance(p))
		return -1;
	struct mark key_mark[STEP_COUNT];
	bool seen[STEP_COUNT] = {false};
	int verb = -1;
	while (p->ev.type != YAML_MAPPING_END_EVENT) {
		const char *key = NULL;
		struct mark km;
		if (reader_take_key(p, &key, &km))
			return -1;
		int k = find_step_key(key);
		if (k < 0)
			return reader_fail(p, km, "unknown key '%s' in step (expected in, out, indices, %s)",
				    reader_shortened(p, key), recipe_opts_list(p, "a verb"));
		if (seen[k])
			return reader_duplicate(p, key, km, key_mark[k]);
		if (k < VERB_COUNT && verb >= 0)
			return reader_fail(p, km, "step has two verbs, '%s' and '%s'", verb_names[verb], key);
		seen[k] = true;
		key_mark[k] = km;
		int rc;
		if (k < VERB_COUNT) {
			struct value v;
			verb = k;
			s->verb = (enum verb)k;
			s->fn_text = reader_here(p);
			if (p->ev.type == YAML_SCALAR_EVENT)
				s->fn_text = reader_text_start(p);
			rc = reader_text_value(p, "", key, k == VERB_EXPR ? "an expression" : "a ufunc name", &v);
			s->fn = v.text;
			s->fn_mark = v.mark;
		} else if (k == STEP_IN) {
			rc = read_operands(p, "in", "an operand or a list of operands", "operands",
					   RECIPE_MAXIN, false, s->in, s->in_mark, &s->nin);
		} else if (k == STEP_OUT) {
			rc = read_operands(p, "out", "an output or a list of one or two outputs", "outputs",
					   RECIPE_MAXOUT, true, s->out, s->out_mark, &s->nout);
		} else if (k == STEP_INDICES) {
			s->idx_key = km;
			rc = read_indices(p, s);
		} else {
			rc = recipe_opts_read(p, k - STEP_OPT, &s->opts);
		}
		if (rc)
			return -1;
	}
	if (verb < 0)
		return reader_fail(p, s->mark, "step has no verb (%s)", reader_joined(p, verb_names, VERB_COUNT, NULL));
	if (check_step_keys(p, verb, seen, key_mark) < 0)
		return -1;
	return reader_advance(p);
}

/* `steps:` - a non-empty list of steps. */
static int read_steps(struct parser *p)
{
	const char *expect = "a non-empty list of steps";
	struct mark list = reader_here(p);
	if (p->ev.type != YAML_SEQUENCE_START_EVENT) {
		const char *found = reader_found_node(p);
		return found ? reader_fail(p, list, "'steps' must be %s, found %s", expect, found) : -1;
	}
	if (reader_advance(p))
		return -1;
	while (p->ev.type != YAML_SEQUENCE_END_EVENT) {
		if (p->nsteps == RECIPE_MAXSTEPS)
			return reader_fail(p, reader_here(p), "recipe has more than %d steps", RECIPE_MAXSTEPS);
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
		recipe_opts_init(&s->opts);
		if (read_step(p, s))
			return -1;
	}
	if (p->nsteps == 0)
		return reader_fail(p, list, "'steps' must be %s, found an empty list", expect);
	return reader_advance(p);
}

/* `version:` - the integer 1. */
static int read_version(struct parser *p, struct recipe *r)
{
	if (p->ev.type != YAML_SCALAR_EVENT)
		return reader_fail(p, reader_here(p), "'version' must be 1, found %s", reader_found_event(p));
	struct value v;
	int64_t n;
	if (reader_take_value(p, &v))
		return -1;
	if (v.null)
		return reader_fail(p, v.mark, "'version' must be 1, found null");
	if (!reader_parse_int(v.text, &n) || n != 1)
		return reader_fail(p, v.mark, "unsupported recipe version %s (this h5ufunc reads version 1)",
			    reader_shortened(p, v.text));
	r->version = 1;
	return 0;
}

/* The document's root: a mapping of version, inputs, steps, defaults. */
static int read_recipe(struct parser *p, struct recipe *r)
{
	if (p->ev.type != YAML_MAPPING_START_EVENT) {
		struct mark m = reader_here(p);
		const char *found = reader_found_node(p);
		if (!found)
			return -1;
		return reader_fail(p, m, "a recipe must be a mapping with 'steps', found %s", found);
	}
	struct mark top = reader_here(p);
	if (reader_advance(p))
		return -1;
	struct mark first[TOP_COUNT];
	bool seen[TOP_COUNT] = {false};
	while (p->ev.type != YAML_MAPPING_END_EVENT) {
		const char *key = NULL;
		struct mark km;
		if (reader_take_key(p, &key, &km))
			return -1;
		int k = 0;
		while (k < TOP_COUNT && strcmp(key, top_names[k]) != 0)
			k++;
		if (k == TOP_COUNT)
			return reader_fail(p, km, "unknown key '%s' at the top of the recipe (expected %s)",
				    reader_shortened(p, key), reader_joined(p, top_names, TOP_COUNT, NULL));
		if (seen[k])
			return reader_duplicate(p, key, km, first[k]);
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
		return reader_fail(p, top, "recipe has no 'steps' (a list of steps)");
	return reader_advance(p);
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
	recipe_opts_init(&r->defaults);
	if (!yaml_parser_initialize(&p.yaml))
		return err_set(e, EXIT_RUN, p.path, "out of memory while reading the recipe");
	yaml_parser_set_input_string(&p.yaml, (const unsigned char *)text, len);

	int rc = -1;
	if (reader_advance(&p) || reader_advance(&p))         /* the stream's start, then a document's */
		goto out;
	if (p.ev.type == YAML_STREAM_END_EVENT) {
		reader_fail(&p, (struct mark){1, 1}, "recipe is empty (expected a mapping with 'steps')");
		goto out;
	}
	if (reader_advance(&p) || read_recipe(&p, r))  /* the root node, up to the document's end */
		goto out;
	if (p.anchor.line) {
		reader_fail(&p, p.anchor, "YAML anchors are not supported");
		goto out;
	}
	if (reader_advance(&p))
		goto out;
	if (p.ev.type == YAML_DOCUMENT_START_EVENT) {
		reader_fail(&p, reader_here(&p), "recipe holds more than one YAML document");
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
