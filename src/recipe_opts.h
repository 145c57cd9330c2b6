/* recipe_opts.h - the recipe reader's step options (recipe_opts.c), for
 * recipe.c alone: what a `defaults:` mapping and a step read for each key
 * of options.def.  The reader's conventions are reader.h's: 0, or -1 with
 * the error in p->e; the value's event and the one after it taken.
 */
#ifndef H5UFUNC_RECIPE_OPTS_H
#define H5UFUNC_RECIPE_OPTS_H

#include "reader.h"

/* O with no option given: dtype unset, casting same_kind. */
void recipe_opts_init(struct step_opts *o);
/* The option whose key is KEY (an OPT_ index), or -1. */
int recipe_opts_find(const char *key);
/* Read the value of option OPT (the current node) into O, marking it
 * given there. */
int recipe_opts_read(struct parser *p, int opt, struct step_opts *o);
/* The options' keys joined for a message as reader_joined joins names,
 * TAIL (if any) in place of the last one's "or". */
const char *recipe_opts_list(struct parser *p, const char *tail);

#endif
