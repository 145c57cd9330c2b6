/* masked.h - numpy.ma's masked mode in reductions and accumulations.
 *
 * An input's missing values (its fill value, missing_value, valid range,
 * or NaN for a CF-unpacked dataset: cf_valid) are masked; a reduction or
 * scan folds a masked element as numpy.ma's fill for its ufunc and keeps,
 * beside each accumulator, a byte saying whether any valid element
 * reached it; results none reached are written as the output's fill.
 * The step carries what these read in its mask part (plan.h's step_mask:
 * in_missing, nan, skip, fill), set while planning.
 *
 * Not here: NumPy's where= operand and the select that applies a mask
 * (where.h); masked mode of elementwise steps, which lower.c lowers into
 * ops of the step's program.
 */
#ifndef H5UFUNC_MASKED_H
#define H5UFUNC_MASKED_H

#include <stdbool.h>
#include <stdint.h>

#include "dtype.h"
#include "ufunc.h"

struct array;
struct cf_missing;
struct step_mask;

/* What a masked element folds as in UF's LOOP (numpy.ma's fill): the
 * identity; for maximum-like and minimum-like ufuncs, the lowest or
 * highest value of the dtype (-inf, inf for floats); for the others
 * numpy.ma reduces, its fill (0 for subtract, 1 for arctan2) -- into OUT.
 * -1: none of these, so masked elements are skipped (plan_step.mask.skip_fold). */
int masked_skip_value(const struct ufunc *uf, const struct ufunc_loop *loop, unsigned char *out);
/* N elements just read: VALID = which are valid (cf_valid: MISSING's
 * tests, NaN too with NAN; STORED: them in STORED_T), and the others of
 * DATA (in T) made WITH (one element of T). */
void masked_replace_missing(const struct cf_missing *missing, bool nan, const void *with,
			    enum dtype stored_t, enum dtype t, int64_t n, const char *stored, char *data,
			    uint8_t *valid);
/* Masked mode of a reduce or accumulate step (M, its mask part), on N
 * elements of its input just read: VALID = which are valid (cf_valid;
 * STORED: them in the input's dtype STORED_T), and the others of DATA (in
 * T) made M->skip. */
void masked_skip_missing(const struct step_mask *m, enum dtype stored_t, enum dtype t, int64_t n,
			 const char *stored, char *data, uint8_t *valid);
/* ... and on N of its results (DATA, in T): FILL (the fill value of its
 * output Y, in Y's dtype) where VALID is 0, counted as masked (report.h)
 * unless Y is dry. */
void masked_fill_results(const struct array *y, const void *fill, enum dtype t, int64_t n,
			 char *data, const uint8_t *valid);

#endif
