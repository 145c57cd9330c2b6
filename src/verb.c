/* verb.c - the verbs' names (verb.h). */
#include "verb.h"

const char *const verb_names[VERB_COUNT] = {
	[VERB_UFUNC] = "ufunc", [VERB_REDUCE] = "reduce",
	[VERB_ACCUMULATE] = "accumulate", [VERB_OUTER] = "outer",
	[VERB_EXPR] = "expr", [VERB_REDUCEAT] = "reduceat", [VERB_AT] = "at",
};

const char *verb_name(enum verb v)
{
	return (int)v >= 0 && (int)v < VERB_COUNT ? verb_names[v] : "?";
}
