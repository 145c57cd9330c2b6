/* where.c - NumPy's where=: fill values, the select, a reduction's mask.
 * See where.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hold.h"
#include "literal.h"
#include "plan.h"
#include "stage.h"
#include "where.h"

void where_default_fill(enum dtype t, void *out)
{
	union { int64_t INT64; uint64_t UINT64; double FLOAT64; } v;
	switch (t) {
#define FILL(TAG, FROM, VALUE) \
	case DT_##TAG: \
		v.FROM = VALUE; \
		dtype_cast(DT_##FROM, &v, 0, DT_##TAG, out, 0, 1); \
		return;
#include "fill.def"
#undef FILL
	default:
		memset(out, 0, (size_t)dtype_size(t));
	}
}

int where_fill_value(const char *text, enum dtype t, void *out, const char *where, struct err *e)
{
	if (!text) {
		where_default_fill(t, out);
		return 0;
	}
	struct literal lit;
	if (literal_parse(text, &lit) < 0)
		return err_set(e, EXIT_USAGE, where, "fill must be a number, got '%s'", text);
	if (lit.kind == LIT_BOOL) {
		dtype_cast(DT_BOOL, &lit.b, 0, t, out, 0, 1);
		return 0;
	}
	return literal_to_dtype(&lit, t, out, where, e);
}

void where_select(enum dtype t, int64_t n, char *data, const uint8_t *mask, const char *keep,
		  ptrdiff_t keep_step)
{
	size_t size = (size_t)dtype_size(t);
	for (int64_t i = 0; i < n; i++)
		if (!mask[i])
			memcpy(data + (size_t)i * size, keep + i * keep_step, size);
}

struct where_mask {
	const struct array *w;
	uint8_t *mask;     /* the expanded mask: one byte per element of the box */
	char *bools;       /* W's own box as bool */
	char *raw;         /* ... as stored, when it is not bool */
};

struct where_mask *where_mask_hold(struct hold *h, const struct array *w)
{
	struct where_mask *m = hold_counting(h) ? NULL : stage_alloc(sizeof *m);
	if (m)
		m->w = w;
	hold_buffer(h, DIST_PER_ELEM, 1, HOLD_SLOT(m, mask));
	hold_buffer(h, DIST_PER_ELEM, 1, HOLD_SLOT(m, bools));
	hold_buffer(h, DIST_PER_ELEM, stage_scratch(w, DT_BOOL), HOLD_SLOT(m, raw));
	return m;
}

void where_mask_free(struct where_mask *m)
{
	free(m);
}

const uint8_t *where_mask_read(struct where_mask *m, const struct shape *target,
			       const int64_t *start, const int64_t *count, const char *where,
			       struct err *e)
{
	const struct array *w = m->w;
	int n = target->ndim;
	int64_t total = stage_box_size(n, count);
	if (w->kind == ARR_LITERAL) {
		uint8_t truth = 0;
		if (w->lit.kind == LIT_BOOL)
			truth = w->lit.b;
		else if (literal_to_dtype(&w->lit, DT_BOOL, &truth, where, e) < 0)
			return NULL;
		memset(m->mask, truth, (size_t)total);
		return m->mask;
	}
	if (stage_read_broadcast(w, target, DT_BOOL, start, count, m->raw, m->bools, (char *)m->mask,
				 where, e) < 0)
		return NULL;
	return m->mask;
}
