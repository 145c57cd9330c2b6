/* where.h - NumPy's where= (and the fill values it leaves in new outputs).
 *
 * An elementwise step computes its where= operand as one more op of its
 * program, a boolean block beside its results (lower.c plans it); where it
 * is false, where_select puts back what an existing output held or the
 * fill value of a new one, just before the block is written.  A reduction
 * reads its where= operand's box beside each box of its input (struct
 * where_mask) and puts the ufunc's identity (or initial=) in the elements
 * it skips, so every layout of reduce.c, every rank count and every
 * --memory folds the same values.  The masks travel with the blocks: none
 * of this depends on how a block is cut.
 */
#ifndef H5UFUNC_WHERE_H
#define H5UFUNC_WHERE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "h5io.h"
#include "plan.h"
#include "ufunc.h"

/* The default fill value of dtype T (include/fill.def) into OUT. */
void where_default_fill(enum dtype t, void *out);
/* The fill: option TEXT (a number) as one element of T at OUT, converted
 * as a weak literal is (an integer out of T's range is an error, at WHERE);
 * TEXT NULL: the default fill. */
int where_fill_value(const char *text, enum dtype t, void *out, const char *where, struct err *e);

/* DATA[i] = KEEP (element i * KEEP_STEP bytes on) wherever MASK[i] is 0,
 * for N elements of T. */
void where_select(enum dtype t, int64_t n, char *data, const uint8_t *mask, const char *keep,
		  ptrdiff_t keep_step);

/* The where= operand of a reduction, read box by box as a boolean mask
 * over its input.  Buffers are allocated once, for boxes of at most
 * MAX_ELEMENTS elements; where_mask_free(NULL) is fine. */
struct where_mask;
struct where_mask *where_mask_new(const struct array *w, int64_t max_elements);
void where_mask_free(struct where_mask *m);
/* Bytes where_mask_new allocates per element of a box of W's target. */
int64_t where_mask_element_bytes(const struct array *w);
/* The mask over the box START/COUNT of an array of shape TARGET, against
 * which W broadcasts: C-ordered, one byte per element.  Collective (W is
 * read with the box it broadcasts into, empty when the box is).  NULL on
 * a read error (in E). */
const uint8_t *where_mask_read(struct where_mask *m, const struct shape *target,
			       const int64_t *start, const int64_t *count, const char *where,
			       struct err *e);

/* What a masked element folds as in UF's LOOP (numpy.ma's fill): the
 * identity; for maximum-like and minimum-like ufuncs, the lowest or
 * highest value of the dtype (-inf, inf for floats); for the others
 * numpy.ma reduces, its fill (0 for subtract, 1 for arctan2) -- into OUT.
 * -1: none of these, so masked elements are skipped (plan_step.mask.skip_fold). */
int where_masked_skip(const struct ufunc *uf, const struct ufunc_loop *loop, unsigned char *out);
/* Masked mode of a reduce or accumulate step S, on N elements of its input
 * just read: VALID = which are valid (cf_valid; STORED: them in the input's dtype),
 * and the others of DATA (in T) made S's MASK_SKIP. */
void where_skip_missing(const struct plan_step *s, enum dtype t, int64_t n, const char *stored,
			char *data, uint8_t *valid);
/* ... and on N of its results (DATA, in T): the output's fill value where
 * VALID is 0, counted as masked (report.h). */
void where_mask_results(const struct plan_step *s, enum dtype t, int64_t n, char *data,
			const uint8_t *valid);

#endif
