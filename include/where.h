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
 *
 * Not here: numpy.ma's masked mode, which tests missing values rather
 * than reading a where= operand (masked.h).
 */
#ifndef H5UFUNC_WHERE_H
#define H5UFUNC_WHERE_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "err.h"
#include "shape.h"

struct array;

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

/* The where= operand W of a reduction, read box by box as a boolean mask
 * over its input, its buffers listed into H (hold.h): counted (returns
 * NULL), or allocated from H for the boxes of its layout or stream, which
 * hold_free frees.  where_mask_free frees the rest; NULL is fine. */
struct where_mask;
struct hold;
struct where_mask *where_mask_hold(struct hold *h, const struct array *w);
void where_mask_free(struct where_mask *m);
/* The mask over the box START/COUNT of an array of shape TARGET, against
 * which W broadcasts: C-ordered, one byte per element.  Collective (W is
 * read with the box it broadcasts into, empty when the box is).  NULL on
 * a read error (in E). */
const uint8_t *where_mask_read(struct where_mask *m, const struct shape *target,
			       const int64_t *start, const int64_t *count, const char *where,
			       struct err *e);

#endif
