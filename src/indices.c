/* indices.c - the index arrays of reduceat and at; see indices.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "dist.h"
#include "h5io.h"
#include "hold.h"
#include "indices.h"
#include "stage.h"

/* One decimal integer at *P (blanks around it skipped), *P moved past it. */
static bool parse_int(const char **p, int64_t *out)
{
	const char *s = *p;
	while (*s == ' ')
		s++;
	const char *d = s + (*s == '-' || *s == '+');
	if (*d < '0' || *d > '9')
		return false;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno)
		return false;
	while (*end == ' ')
		end++;
	*out = v;
	*p = end;
	return true;
}

int indices_literal(const char *text, struct arena *a, struct index_array *ix, const char *w,
		    struct err *e)
{
	memset(ix, 0, sizeof *ix);
	ix->display = text;
	const char *p = text;
	int64_t v;
	if (*text != '[') {   /* one integer, or not a literal */
		if (!parse_int(&p, &v) || *p)
			return 0;
		int64_t *one = arena_alloc(a, sizeof *one);
		*one = v;
		ix->values = one;
		ix->shape.ndim = 0;
		return 1;
	}
	int64_t n = 0;
	for (const char *c = text; *c; c++)
		n += *c == ',';
	int64_t *values = arena_alloc(a, sizeof *values * (size_t)(n + 1));
	p = text + 1;
	while (*p == ' ')
		p++;
	n = 0;
	if (*p != ']') {
		for (;;) {
			if (!parse_int(&p, &values[n]))
				return err_set(e, EXIT_USAGE, w, "indices '%s' is not a list of integers", text);
			n++;
			if (*p != ',')
				break;
			p++;
		}
	}
	if (*p != ']' || p[1])
		return err_set(e, EXIT_USAGE, w, "indices '%s' is not a list of integers", text);
	ix->values = values;
	ix->shape.ndim = 1;
	ix->shape.dim[0] = n;
	return 1;
}

int indices_dtype(enum dtype t, enum index_rule rule, const char *display, const char *w,
		  struct err *e)
{
	char kind = dtype_table[t].kind;
	if (rule == INDEX_WRAPS) {
		if (kind == 'b')
			return err_set(e, EXIT_USAGE, w,
				       "'%s' is bool: at takes integer index arrays (NumPy would read a bool one as a mask)",
				       display);
		if (kind != 'i' && kind != 'u')
			return err_set(e, EXIT_USAGE, w, "arrays used as indices must be of integer (or boolean) type");
		return 0;
	}
	if (kind == 'b' || kind == 'i' || (kind == 'u' && dtype_size(t) < 8))
		return 0;
	return err_set(e, EXIT_USAGE, w,
		       "Cannot cast array data from dtype('%s') to dtype('int64') according to the rule 'safe'",
		       dtype_name(t));
}

/* The first of the N values at V that RULE refuses for EXTENT, or -1. */
static int64_t first_bad(const int64_t *v, int64_t n, enum index_rule rule, int64_t extent)
{
	int64_t lo = rule == INDEX_WRAPS ? -extent : 0;
	for (int64_t i = 0; i < n; i++)
		if (v[i] < lo || v[i] >= extent)
			return i;
	return -1;
}

static int bad_index(int64_t v, enum index_rule rule, int64_t extent, const char *ufunc, int axis,
		     const char *w, struct err *e)
{
	if (rule == INDEX_WRAPS)
		return err_set(e, EXIT_USAGE, w, "index %lld is out of bounds for axis %d with size %lld",
			       (long long)v, axis, (long long)extent);
	return err_set(e, EXIT_USAGE, w, "index %lld out-of-bounds in %s.reduceat [0, %lld)", (long long)v,
		       ufunc, (long long)extent);
}

/* Open IX's dataset for reading when the planner has it closed: *OPENED
 * says so, for close_dataset. */
static int open_dataset(const struct index_array *ix, bool *opened, const char *w, struct err *e)
{
	struct array *x = ix->x;
	*opened = false;
	if (x->id >= 0)
		return 0;
	struct shape shape;
	enum dtype dt;
	x->id = h5io_dataset_open(x->file->id, x->path, &shape, &dt, w, x->display, e);
	if (x->id >= 0)
		h5io_dataset_direct(x->id);
	*opened = x->id >= 0;
	return x->id >= 0 ? 0 : -1;
}

static void close_dataset(const struct index_array *ix, bool opened)
{
	if (!opened)
		return;
	h5io_dataset_close(ix->x->id);
	ix->x->id = -1;
}

/* What a check of an index dataset holds: a box of its values, as read
 * and as int64. */
struct check_buffers {
	char *raw;
	int64_t *v;
	struct hold hold;
};

/* Every buffer a check of X holds, into H with B's slots (B NULL:
 * counting). */
static void each_buffer(const struct array *x, struct check_buffers *B, struct hold *h)
{
	hold_buffer(h, DIST_PER_ELEM, dtype_size(x->dtype), HOLD_SLOT(B, raw));
	hold_buffer(h, DIST_PER_ELEM, sizeof *B->v, HOLD_SLOT(B, v));
}

int indices_check(const struct index_array *ix, enum index_rule rule, int64_t extent,
		  const char *ufunc, int axis, int64_t memory, const char *w, struct err *e)
{
	if (!ix->x) {
		int64_t n = shape_size(&ix->shape), bad = first_bad(ix->values, n, rule, extent);
		return bad < 0 ? 0 : bad_index(ix->values[bad], rule, extent, ufunc, axis, w, e);
	}
	const struct array *x = ix->x;
	struct dist_layout l;
	struct dist_cost c = { .memory = memory, .widest = dtype_size(x->dtype) };
	struct check_buffers B = {0};
	hold_count(&B.hold, &c);
	each_buffer(x, NULL, &B.hold);
	if (dist_layout_make(x->shape.ndim, x->shape.dim, stage_chunks(x), &c, H5U_MAXDIM, comm_size(),
			     w, e, &l) < 0)
		return -1;
	bool opened;
	if (comm_agree(e) < 0 || open_dataset(ix, &opened, w, e) < 0)
		return comm_agree(e);
	hold_layout(&B.hold, &l);
	each_buffer(x, &B, &B.hold);
	hold_end(&B.hold);
	struct dist_walk walk;
	dist_walk_start(&l, comm_rank(), &walk);
	bool found = false;   /* the rest of this rank's share comes after it */
	int64_t value = 0;
	for (int64_t b = 0; b < l.nboxes; b++) {   /* every rank reads every box: collective */
		int64_t start[H5U_MAXDIM + 1], count[H5U_MAXDIM + 1];
		if (!dist_walk_next(&walk, start, count) || found || e->status)
			memset(count, 0, sizeof count);
		if (stage_read(x, DT_INT64, start, count, B.raw, (char *)B.v, w, e) < 0)
			continue;
		int64_t bad = first_bad(B.v, stage_box_size(x->shape.ndim, count), rule, extent);
		if (bad >= 0) {
			found = true;
			value = B.v[bad];
		}
	}
	if (found && !e->status)
		bad_index(value, rule, extent, ufunc, axis, w, e);
	hold_free(&B.hold);
	close_dataset(ix, opened);
	return comm_agree(e);
}

int64_t *indices_read_all(const struct index_array *ix, const char *w, struct err *e)
{
	int64_t n = shape_size(&ix->shape);
	int64_t *all = stage_alloc(sizeof *all * (size_t)(n > 0 ? n : 1));
	if (!ix->x) {
		memcpy(all, ix->values, sizeof *all * (size_t)n);
		return all;
	}
	memset(all, 0, sizeof *all * (size_t)(n > 0 ? n : 1));
	/* each rank reads its share into its place; the shares are then or'ed
	 * onto rank 0 (zeros elsewhere) and sent to all */
	int64_t first = 0, count = 0, per = n / comm_size(), extra = n % comm_size();
	count = per + (comm_rank() < extra);
	first = comm_rank() * per + (comm_rank() < extra ? comm_rank() : extra);
	bool opened;
	char *raw = stage_alloc((size_t)(count > 0 ? count : 1) * (size_t)dtype_size(ix->x->dtype));
	if (open_dataset(ix, &opened, w, e) == 0) {
		int64_t start[1] = { first }, cnt[1] = { count };
		stage_read(ix->x, DT_INT64, start, cnt, raw, (char *)(all + first), w, e);
		close_dataset(ix, opened);
	}
	free(raw);
	if (comm_agree(e) < 0) {
		free(all);
		return NULL;
	}
	comm_or_to_root(all, sizeof *all * (size_t)n);
	comm_bcast(all, sizeof *all * (size_t)n);
	return all;
}

int indices_read(const struct index_array *ix, const struct shape *space, const int64_t *start,
		 const int64_t *count, struct index_scratch *b, int64_t *out, const char *w,
		 struct err *e)
{
	if (ix->x)
		return stage_read_broadcast(ix->x, space, DT_INT64, start, count, b->raw, (char *)b->own,
					    (char *)out, w, e);
	/* a literal: a list along the last axis (or broadcast), or one value */
	int n = space->ndim;
	int64_t total = stage_box_size(n, count);
	if (total == 0)
		return 0;
	int64_t inner = n ? count[n - 1] : 1;
	bool list = ix->shape.ndim == 1 && ix->shape.dim[0] != 1;
	for (int64_t i = 0; i < total; i++)
		out[i] = list ? ix->values[start[n - 1] + i % inner] : ix->values[0];
	return 0;
}
