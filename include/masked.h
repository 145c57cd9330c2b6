/* masked.h - numpy.ma's masked mode in reductions and accumulations.
 *
 * An input's missing values (its fill value, missing_value, valid range,
 * or NaN for a CF-unpacked dataset: cf_valid) are masked; a reduction or
 * scan folds a masked element as numpy.ma's fill for its ufunc and keeps,
 * beside each accumulator, a byte saying whether any valid element
 * reached it; results none reached are written as the output's fill.
 * The step carries what these read in its mask part (plan.h's step_mask:
 * in_missing, nan, skip, fill), set while planning.  A named intermediate
 * of a masked step says what is missing in its mask plane (plan.h's
 * array.plane), read beside its values, never by its fill.
 *
 * Not here: NumPy's where= operand and the select that applies a mask
 * (where.h); masked mode of elementwise steps, which lower.c lowers into
 * ops of the step's program.
 */
#ifndef H5UFUNC_MASKED_H
#define H5UFUNC_MASKED_H

#include <stdbool.h>
#include <stdint.h>

#include "dist.h"
#include "dtype.h"
#include "ufunc.h"

struct array;
struct cf_missing;
struct err;
struct hold;
struct plan_step;
struct step_mask;

/* What a masked element folds as in UF's LOOP (numpy.ma's fill): the
 * identity; for maximum-like and minimum-like ufuncs, the lowest or
 * highest value of the dtype (-inf, inf for floats); for the others
 * numpy.ma reduces, its fill (0 for subtract, 1 for arctan2) -- into OUT.
 * -1: none of these, so masked elements are skipped (plan_step.mask.skip_fold). */
int masked_skip_value(const struct ufunc *uf, const struct ufunc_loop *loop, unsigned char *out);
/* The scratch masked_valid reads X's mask plane through, when X has
 * one: a buffer of the pass's list H (hold.h) that grows HOW, PER bytes
 * of it for each element, into SLOT (NULL when the plane needs none);
 * and, for a plane read with its axes moved, the copy stage.c makes,
 * counted.  Nothing without a plane. */
void masked_hold(struct hold *h, const struct array *x, enum dist_hold how, int64_t per, void *slot);
/* Which of N elements of X just read (the box START/COUNT; STORED: them
 * in X's dtype) are valid, into VALID: X's mask plane read over the same
 * box through RAW (masked_hold's) when it has one (a named intermediate's:
 * collective, so every rank calls it whatever E holds), else MISSING's
 * tests (cf_valid; NaN too with NAN), left undone once E holds an error.
 * -1: the plane's read failed. */
int masked_valid(const struct array *x, const struct cf_missing *missing, bool nan,
		 const int64_t *start, const int64_t *count, int64_t n, const char *stored,
		 char *raw, uint8_t *valid, const char *where, struct err *e);
/* Masked mode of a reduce, accumulate or reduceat step S, on N elements
 * of its input X just read (box START/COUNT; STORED: them in X's dtype):
 * VALID = which are valid (masked_valid, of S's mask part, through RAW),
 * and the others of DATA (in T) made s->mask.skip, unless S is a
 * skip_fold step.  Collective; -1 (E set, at S's place) when a read failed. */
int masked_skip_missing(const struct plan_step *s, const struct array *x, enum dtype t,
			const int64_t *start, const int64_t *count, int64_t n, const char *stored,
			char *raw, char *data, uint8_t *valid, struct err *e);
/* Are the VALID elements of N results (DATA, in T) of S's output K apart
 * from its fill value (s->mask.fill[K], in the output's dtype), so that
 * none reads back as missing?  Asked of outputs written to the user's
 * files only, where the fill alone marks what is missing (CF): a printed
 * result or named intermediate keeps its mask beside it, and a bool
 * dataset is never read as missing.  A dataset written in place (not
 * packed: cf_encode tests those) is asked of its own missing_value and
 * valid range too.  One that is not: an error (EXIT_RUN,
 * at S's place) left in E; nothing asked once E holds one. */
int masked_fill_apart(const struct plan_step *s, int k, enum dtype t, int64_t n, const char *data,
		      const uint8_t *valid, struct err *e);
/* ... and on N of the results (DATA, in T) of S's one output: checked
 * apart from its fill (masked_fill_apart; an error is left in E for the
 * caller, who still writes, as every rank must), then the fill where
 * VALID is 0, counted as masked (report.h) unless the output is dry. */
void masked_fill_results(const struct plan_step *s, enum dtype t, int64_t n, char *data,
			 const uint8_t *valid, struct err *e);

#endif
