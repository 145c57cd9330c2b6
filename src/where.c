/* where.c - NumPy's where=: fill values, the select, a reduction's mask.
 * See where.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf.h"
#include "iter.h"
#include "literal.h"
#include "report.h"
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

int64_t where_mask_element_bytes(const struct array *w)
{
	return 2 + stage_scratch(w, DT_BOOL);
}

struct where_mask *where_mask_new(const struct array *w, int64_t max_elements)
{
	struct where_mask *m = stage_alloc(sizeof *m);
	size_t n = (size_t)(max_elements > 0 ? max_elements : 1);
	m->w = w;
	m->mask = stage_alloc(n);
	m->bools = stage_alloc(n);
	m->raw = stage_scratch(w, DT_BOOL) ? stage_alloc(n * (size_t)stage_scratch(w, DT_BOOL)) : NULL;
	return m;
}

void where_mask_free(struct where_mask *m)
{
	if (!m)
		return;
	free(m->mask);
	free(m->bools);
	free(m->raw);
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

/* ---- masked mode in reductions ------------------------------------------ */

/* The lowest (HIGH false) or highest value of T: -inf/inf for floats. */
static void extreme(enum dtype t, bool high, unsigned char *out)
{
	memset(out, 0, 16);
	char kind = dtype_table[t].kind;
	int size = dtype_size(t);
	if (kind == 'f' || kind == 'c') {
		double v = high ? INFINITY : -INFINITY;
		dtype_cast(DT_FLOAT64, &v, 0, kind == 'c' ? (size == 8 ? DT_FLOAT32 : DT_FLOAT64) : t, out, 0, 1);
	} else if (kind == 'b') {
		out[0] = high;
	} else if (high) {   /* two's complement, little-endian */
		memset(out, 0xff, (size_t)size);
		if (kind == 'i')
			out[size - 1] = 0x7f;
	} else if (kind == 'i') {
		out[size - 1] = 0x80;
	}
}

int where_masked_skip(const struct ufunc *uf, const struct ufunc_loop *loop, unsigned char *out)
{
	enum dtype t = loop->types[0];
	if (ufunc_identity_value(uf, t, out) == 0)
		return 0;
	if (uf->flags & (UF_MA_FILL_ZERO | UF_MA_FILL_ONE)) {   /* numpy.ma's filly */
		int64_t filly = (uf->flags & UF_MA_FILL_ONE) != 0;
		memset(out, 0, 16);
		dtype_cast(DT_INT64, &filly, 0, t, out, 0, 1);
		return 0;
	}
	if (uf->identity != ID_NONE_REORDER)
		return -1;
	/* maximum-like or minimum-like: whichever extreme the loop lets pass */
	unsigned char low[16], high[16], r[16];
	extreme(t, false, low);
	extreme(t, true, high);
	ptrdiff_t size = dtype_size(t), steps[3] = { size, size, size };
	char *args[3] = { (char *)low, (char *)high, (char *)r };
	loop->fn(args, 1, steps);
	memcpy(out, memcmp(r, high, (size_t)size) ? high : low, 16);
	return 0;
}

void where_skip_missing(const struct plan_step *s, enum dtype t, int64_t n, const char *stored,
			char *data, uint8_t *valid)
{
	cf_valid(s->in[0]->dtype, s->mask.in_missing, s->mask.nan, stored, n, valid);
	where_select(t, n, data, valid, (const char *)s->mask.skip, 0);
}

void where_mask_results(const struct plan_step *s, enum dtype t, int64_t n, char *data,
			const uint8_t *valid)
{
	unsigned char fill[16];
	dtype_cast(s->out[0]->dtype, s->mask.fill[0], 0, t, fill, 0, 1);
	int64_t masked = 0;
	for (int64_t i = 0; i < n; i++)
		masked += !valid[i];
	where_select(t, n, data, valid, (const char *)fill, 0);
	if (!s->out[0]->dry)
		report_masked(masked);
}
