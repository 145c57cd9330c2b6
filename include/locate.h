/* locate.h - the places the planner's errors point at, as values.
 *
 * A place is a site (err.h): the WHERE text a message starts with and the
 * fields diag.c shows the source line from.  The planner's stages make one
 * from the step they plan and a mark the recipe reader kept (a node's line
 * and column) or a column of an expression, and hand it to the functions
 * that may fail; the site is theirs, on their stack, for as long as they
 * keep it.  Not here: the error record itself (err.h), how it is printed
 * (diag.h), the marks (recipe.h).
 */
#ifndef H5UFUNC_LOCATE_H
#define H5UFUNC_LOCATE_H

#include "err.h"
#include "recipe.h"

struct planner;
struct plan_step;

/* Mark M of step S (NULL: before any step; M unset: the step alone) into
 * *OUT: "r.yaml:3:5: step 2 (ufunc add)", "r.yaml:3:5", "step 2 (ufunc
 * add)", or "call add", as the context allows, pointing at M.  Returns
 * OUT. */
const struct site *locate_mark(struct site *out, const struct planner *pl,
			       const struct plan_step *s, struct mark m);
/* Where output K of S is written in the recipe. */
const struct site *locate_output(struct site *out, const struct planner *pl,
				 const struct plan_step *s, int k);
/* Column COL (1-based) of S's expression text: a column of the
 * one-liner's argument ("eval: column 5"), or a line and column of the
 * recipe. */
const struct site *locate_column(struct site *out, const struct planner *pl,
				 const struct plan_step *s, int col);

/* The same into a site of the enclosing block's lifetime (a compound
 * literal), for a call's argument or a block's local. */
#define LOCATE(pl, s, m) locate_mark(&(struct site){ .text = "" }, (pl), (s), (m))
#define LOCATE_OUTPUT(pl, s, k) locate_output(&(struct site){ .text = "" }, (pl), (s), (k))
#define LOCATE_COLUMN(pl, s, col) locate_column(&(struct site){ .text = "" }, (pl), (s), (col))

/* S's name in messages while it is planned: "step 2 (ufunc add)", "call
 * add". */
void locate_name_step(const struct planner *pl, struct plan_step *s);
/* S planned: its WHERE and place for the errors of the run, the step's
 * own line in the recipe ("r.yaml:6:5: step 2 (ufunc add)"). */
void locate_place_step(const struct planner *pl, struct plan_step *s);

#endif
