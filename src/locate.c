/* locate.c - the places the planner's errors point at, as values: a step
 * and a mark of the recipe (or a column of an expression) -> a site.
 * See locate.h.  Part of the planner (planner.h), below every stage.
 */
#include <stdio.h>
#include <string.h>

#include "locate.h"
#include "planner.h"
#include "verb.h"

const struct site *locate_mark(struct site *out, const struct planner *pl,
			       const struct plan_step *s, struct mark m)
{
	char *w = out->text;
	size_t n = sizeof out->text;
	bool at_mark = !pl->o->command && m.line > 0;   /* the recipe's line and column */
	err_loc_set(&out->loc, at_mark ? pl->r->path : NULL, at_mark ? m.line : 0, at_mark ? m.col : 0,
		    s ? s->where : NULL);
	if (pl->o->command)
		snprintf(w, n, "%s", s ? s->where : pl->o->command);
	else if (at_mark)
		snprintf(w, n, "%s:%d:%d%s%s", pl->r->path, m.line, m.col, s ? ": " : "", s ? s->where : "");
	else
		snprintf(w, n, "%s", s ? s->where : pl->r->path ? pl->r->path : "");
	return out;
}

const struct site *locate_output(struct site *out, const struct planner *pl,
				 const struct plan_step *s, int k)
{
	return locate_mark(out, pl, s, s->src->out_mark[k]);
}

const struct site *locate_column(struct site *out, const struct planner *pl,
				 const struct plan_step *s, int col)
{
	const struct recipe_step *rs = s->src;
	if (pl->o->command) {
		snprintf(out->text, sizeof out->text, "%s: column %d", s->where, col + rs->fn_offset);
		err_loc_set(&out->loc, ERR_EXPRESSION, 1, col + rs->fn_offset, s->where);
		return out;
	}
	struct mark m = rs->fn_text.line > 0 ? rs->fn_text : rs->fn_mark;
	const char *text = rs->text ? rs->text : rs->fn;
	if (m.line > 0) {
		int start = m.col;
		for (int i = 0; i < col - 1 && text[i]; i++) {
			if (text[i] == '\n') {
				m.line++;
				m.col = start;
			} else {
				m.col++;
			}
		}
	}
	return locate_mark(out, pl, s, m);
}

void locate_name_step(const struct planner *pl, struct plan_step *s)
{
	const struct recipe_step *rs = s->src;
	bool expr = rs->verb == VERB_EXPR || rs->part;   /* a part of one is named as it */
	if (pl->o->command)
		snprintf(s->where, sizeof s->where, "%s %s", pl->o->command, rs->fn);
	else
		snprintf(s->where, sizeof s->where, "step %d (%s %s)", plan_step_number(s),
			 expr ? "expr" : verb_name(rs->verb), expr ? "expression" : rs->fn);
	if (pl->o->command && expr)
		snprintf(s->where, sizeof s->where, "%s", pl->o->command);
}

void locate_place_step(const struct planner *pl, struct plan_step *s)
{
	struct site w;
	locate_mark(&w, pl, s, s->src->mark);
	s->loc = w.loc;
	size_t n = strnlen(w.text, sizeof s->where - 1);   /* cut as WHERE holds it */
	memcpy(s->where, w.text, n);
	s->where[n] = '\0';
}
