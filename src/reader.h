/* reader.h - the recipe reader's lower layer: libyaml events, marks and
 * messages, scalar values with ${NAME} filled in.
 *
 * recipe.c and recipe_opts.c read the recipe's nodes with these; nothing
 * else includes it.
 * The reader keeps one event current (p->ev); every function that takes a
 * node leaves the event after it current.  Functions returning int give 0,
 * or -1 with the error recorded in p->e (status EXIT_USAGE, at the
 * recipe's PATH:LINE:COL, its place as fields).  Texts returned are owned
 * by the arena.
 */
#ifndef H5UFUNC_READER_H
#define H5UFUNC_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

#include "recipe.h"

/* Collections inside each other.  A backstop: the reader refuses the first
 * collection where a recipe has none, so a valid recipe nests 4 deep. */
#define RECIPE_MAXDEPTH 32
#define RECIPE_MAXSCALAR VARS_MAXTEXT    /* bytes in a scalar, before and after ${} */

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

/* The mark of the current event. */
struct mark reader_here(const struct parser *p);
/* Record "PATH:LINE:COL: WHAT" with EXIT_USAGE, pointing at M.  Returns -1. */
int reader_fail(struct parser *p, struct mark m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* TEXT cut to 40 bytes on a character boundary, "..." marking a cut. */
const char *reader_shortened(struct parser *p, const char *text);
/* What the current collection event starts, for "found ..." in messages. */
const char *reader_found_event(const struct parser *p);
/* A scalar value as "found ..." shows it: null, or its text quoted. */
const char *reader_found_value(struct parser *p, const struct value *v);
/* What the current node is, for "found ...": a scalar's value (taken), as
 * reader_found_value shows it, or what a collection event starts, as
 * reader_found_event says.  NULL on a read error. */
const char *reader_found_node(struct parser *p);
/* The N NAMES joined as "a, b, c or d", TAIL (if any) taking the place of
 * the last one's "or". */
const char *reader_joined(struct parser *p, const char *const *names, int n, const char *tail);
/* Drop the current event and read the next, checking what holds for every
 * node: no aliases, standard tags only, the nesting depth, the scalar size. */
int reader_advance(struct parser *p);
bool reader_parse_int(const char *s, int64_t *out);
/* Where the current scalar's text begins (inside quotes, or a block
 * scalar's first content line). */
struct mark reader_text_start(struct parser *p);
/* The current scalar as a value, then on to the next event. */
int reader_take_value(struct parser *p, struct value *v);
/* The current node as a mapping key, then its value's first event. */
int reader_take_key(struct parser *p, const char **key, struct mark *m);
/* The current node as a scalar with some text, for key NAME; otherwise
 * "LABEL'NAME' must be EXPECT, found ...". */
int reader_text_value(struct parser *p, const char *label, const char *name, const char *expect,
		      struct value *v);
/* "duplicate key 'KEY' (first at L:C)" at M. */
int reader_duplicate(struct parser *p, const char *key, struct mark m, struct mark first);

#endif
