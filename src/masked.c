/* masked.c - numpy.ma's masked mode in reductions and scans: what a masked
 * element folds as, the missing values of an input skipped, the results
 * with no valid element filled.  See masked.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf.h"
#include "hold.h"
#include "masked.h"
#include "plan.h"
#include "print.h"
#include "report.h"
#include "stage.h"
#include "where.h"

int masked_skip_value(const struct ufunc *uf, const struct ufunc_loop *loop, unsigned char *out)
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
	dtype_extreme(t, false, low);
	dtype_extreme(t, true, high);
	ptrdiff_t size = dtype_size(t), steps[3] = { size, size, size };
	char *args[3] = { (char *)low, (char *)high, (char *)r };
	loop->fn(args, 1, steps);
	memcpy(out, memcmp(r, high, (size_t)size) ? high : low, 16);
	return 0;
}

void masked_hold(struct hold *h, const struct array *x, enum dist_hold how, int64_t per, void *slot)
{
	const struct array *p = x->plane;
	hold_buffer(h, how, p ? per * stage_scratch(p, DT_BOOL) : 0, slot);
	if (p && p->base)   /* read with its axes moved (stage.c): once more, as read */
		hold_buffer(h, how, per * dtype_size(DT_BOOL), NULL);
}

int masked_valid(const struct array *x, const struct cf_missing *missing, bool nan,
		 const int64_t *start, const int64_t *count, int64_t n, const char *stored,
		 char *raw, uint8_t *valid, const char *where, struct err *e)
{
	if (!x->plane) {
		if (!e->status)
			cf_valid(x->dtype, missing, nan, stored, n, valid);
		return 0;
	}
	enum { CHUNK = 4096 };
	int rc = stage_read(x->plane, DT_BOOL, start, count, raw, (char *)valid, where, e);
	uint8_t number[CHUNK];   /* with NAN (mask-nan): its NaNs missing too */
	ptrdiff_t size = dtype_size(x->dtype);
	for (int64_t o = 0; nan && rc == 0 && !e->status && o < n; o += CHUNK) {
		int64_t c = n - o < CHUNK ? n - o : CHUNK;
		cf_valid(x->dtype, NULL, true, stored + o * size, c, number);
		for (int64_t i = 0; i < c; i++)
			valid[o + i] &= number[i];
	}
	return rc;
}

int masked_skip_missing(const struct plan_step *s, const struct array *x, enum dtype t,
			const int64_t *start, const int64_t *count, int64_t n, const char *stored,
			char *raw, char *data, uint8_t *valid, struct err *e)
{
	const struct step_mask *m = &s->mask;
	if (masked_valid(x, m->in_missing, m->nan, start, count, n, stored, raw, valid, s->where, e) < 0)
		return err_place(e, &s->loc);
	if (!e->status && !m->skip_fold)
		where_select(t, n, data, valid, (const char *)m->skip, 0);
	return 0;
}

/* Does output Y of S keep its masked elements as its fill alone, read
 * back as missing by whatever reads the file (netCDF4-python, a later
 * run)?  Not a printed or named intermediate, which keeps its mask beside
 * it; not a first pass that writes nothing; not a bool, whose dataset is
 * never read as missing. */
static bool fill_marks_missing(const struct plan_step *s, const struct array *y)
{
	return !s->print && !y->file->scratch && !y->dry && y->dtype != DT_BOOL;
}

/* What makes V, a number of T, read back as missing in a dataset whose
 * own missing values are OWN (V is missing there): its _FillValue or
 * missing_value, else the end of its valid range that V lies past, said
 * with that end's value, into BUF (64 bytes at least).  Returns BUF. */
static const char *missing_why(const struct cf_missing *own, enum dtype t, const void *v,
			       char *buf)
{
	size_t size = (size_t)dtype_size(t);
	for (int i = 0; i < own->nvalues; i++)
		if (!memcmp(own->value[i], v, size))
			return strcpy(buf, i == 0 && own->fill_value ? "its _FillValue" : "its missing_value");
	for (int end = 0; end < 2; end++) {
		struct cf_missing bound = { .has_min = !end && own->has_min, .has_max = end && own->has_max };
		memcpy(end ? bound.max : bound.min, end ? own->max : own->min, sizeof own->min);
		uint8_t inside = 1;
		cf_valid(t, &bound, false, v, 1, &inside);
		if (!inside) {
			char text[64];
			snprintf(buf, 64, "%s its valid %s, %s", end ? "above" : "below", end ? "maximum" : "minimum",
				 print_format(t, end ? own->max : own->min, text));
			return buf;
		}
	}
	return strcpy(buf, "its missing_value or valid range");
}

int masked_fill_apart(const struct plan_step *s, int k, enum dtype t, int64_t n, const char *data,
		      const uint8_t *valid, struct err *e)
{
	enum { CHUNK = 4096 };
	const struct array *y = s->out[k];
	if (!fill_marks_missing(s, y) || e->status)
		return 0;
	struct cf_missing m;
	memset(&m, 0, sizeof m);
	m.nvalues = m.fill_value = 1;
	dtype_cast(y->dtype, s->mask.fill[k], 0, t, m.value[0], 0, 1);
	ptrdiff_t size = dtype_size(t), ysize = dtype_size(y->dtype);
	/* a dataset written in place reads its own missing_value and valid_*
	 * too, _Unsigned's reinterpreted bytes included (a packed one's are
	 * tested as it is packed: cf_encode) */
	const struct cf_missing *own = !y->create && !cf_coding_scales(y->coding) &&
				       cf_missing_any(y->missing) ? y->missing : NULL;
	uint8_t apart[CHUNK], kept[CHUNK];
	_Alignas(16) unsigned char as_y[CHUNK * 16];
	for (int64_t o = 0; o < n; o += CHUNK) {
		int64_t c = n - o < CHUNK ? n - o : CHUNK;
		cf_valid(t, &m, false, data + o * size, c, apart);
		memset(kept, 1, (size_t)c);
		if (own) {
			dtype_cast(t, data + o * size, size, y->dtype, as_y, ysize, (size_t)c);
			cf_valid(y->dtype, own, false, (const char *)as_y, c, kept);
		}
		for (int64_t i = 0; i < c; i++) {
			if (!valid[o + i] || (apart[i] && kept[i]))
				continue;
			char text[64], why[64];
			/* the fill is the dataset's own _FillValue or missing_value,
			 * or one past its valid range (cf_missing_marker): the
			 * range is what a result there falls outside of */
			if (!apart[i] && (kept[i] || own->nvalues > 0))
				return err_set_at(e, EXIT_RUN, &s->loc, s->where,
						  "a valid result equals %s, the fill value that marks the missing "
						  "elements of '%s': it would read back as missing (choose another "
						  "fill value: fill:, --fill)",
						  print_format(y->dtype, s->mask.fill[k], text), y->display);
			return err_set_at(e, EXIT_RUN, &s->loc, s->where,
					  "a valid result, %s, would read back as missing in '%s' (%s)",
					  print_format(y->dtype, as_y + i * ysize, text), y->display,
					  missing_why(own, y->dtype, as_y + i * ysize, why));
		}
	}
	return 0;
}

void masked_fill_results(const struct plan_step *s, enum dtype t, int64_t n, char *data,
			 const uint8_t *valid, struct err *e)
{
	const struct array *y = s->out[0];
	masked_fill_apart(s, 0, t, n, data, valid, e);
	unsigned char as_t[16];
	dtype_cast(y->dtype, s->mask.fill[0], 0, t, as_t, 0, 1);
	int64_t masked = 0;
	for (int64_t i = 0; i < n; i++)
		masked += !valid[i];
	where_select(t, n, data, valid, (const char *)as_t, 0);
	if (!y->dry)
		report_masked(masked);
}
