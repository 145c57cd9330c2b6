/* resolve.h - type resolution: which of a ufunc's loops a call runs.
 *
 * NumPy's rules, as NumPy 2 has them: the first loop of the catalogue that
 * the inputs cast to safely (NEP 50: weak literals fit any dtype of their
 * kind or a higher one), dtype= fixing the outputs, casting= checked after;
 * true division of integers in float64; the ufuncs that refuse bools; the
 * dtypes reduce and accumulate upcast to.  Pure: it reads dtypes, literals
 * and the catalogue, never a file, so it is tested on its own
 * (tests/unit/resolvecheck.c).  Per-ufunc behaviour comes from the
 * catalogue's flags (ufunc.h), never from names.
 */
#ifndef H5UFUNC_RESOLVE_H
#define H5UFUNC_RESOLVE_H

#include "err.h"
#include "plan.h"
#include "recipe.h"
#include "ufunc.h"

/* The loop of UF for the NIN operands IN (arrays or literals) with the
 * options O (dtype= when given; O may be NULL) and CASTING; NULL with E set
 * (EXIT_USAGE, at site W, NumPy's message) when there is none. */
const struct ufunc_loop *resolve_loop(const struct ufunc *uf, int nin,
				      const struct array *const *in,
				      const struct step_opts *o, enum casting casting,
				      const struct site *w, struct err *e);
/* Literal X, operand K of OP (whose loop is resolved), converted to the
 * loop's dtype into OP's literal slot K.  Errors when a weak literal does
 * not fit (NEP 50), except that a comparison with an integer operand (OTHER
 * is the dtype of OP's other operand; DT_NONE when it has none) takes it
 * exactly, as NumPy 2 does: OP then runs the loop of the comparison that
 * gives its fixed result. */
int resolve_literal(const struct array *x, struct plan_op *op, int k, enum dtype other,
		    const struct site *w, struct err *e);
/* The loop of S's reduce or accumulate (S's ufunc, verb and input set): the
 * accumulator's dtype is NumPy's (dtype= when given in O). */
int resolve_reduction_loop(struct plan_step *s, const struct step_opts *o, const struct site *w,
			   struct err *e);

#endif
