/* verb.h - the verbs of a step (ufunc, reduce, accumulate, outer, expr,
 * reduceat, at) and their names.
 *
 * The recipe reader (recipe.c) reads a verb from its name, the step
 * options (options.c) say which verbs take an option, the planner and the
 * reports print a step's verb: all of them read this one list.  Not here:
 * what a verb does with its operands (plan.h) or which options it takes
 * (options.def).
 */
#ifndef H5UFUNC_VERB_H
#define H5UFUNC_VERB_H

enum verb { VERB_UFUNC, VERB_REDUCE, VERB_ACCUMULATE, VERB_OUTER, VERB_EXPR, VERB_REDUCEAT,
	    VERB_AT };
#define VERB_COUNT (VERB_AT + 1)
#define VERB_BIT(V) (1u << VERB_##V)
/* The verbs whose steps make results (at writes into its first operand). */
#define VERBS_ALL (VERB_BIT(UFUNC) | VERB_BIT(REDUCE) | VERB_BIT(ACCUMULATE) | \
		   VERB_BIT(OUTER) | VERB_BIT(EXPR) | VERB_BIT(REDUCEAT))

/* The verbs' names as a recipe writes them, indexed by enum verb. */
extern const char *const verb_names[VERB_COUNT];

/* NumPy-style name of a verb: "ufunc", "reduce", "accumulate", "outer", "expr",
 * "reduceat", "at"; "?" for a value that is no verb. */
const char *verb_name(enum verb v);

#endif
