/* dist.c - n-d boxes dealt to ranks in contiguous runs (streams of them: dist_stream.c). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dist.h"
#include "dist_internal.h"

static void share(int64_t rows, int nranks, int rank, int64_t *first, int64_t *count)
{
	int64_t base = rows / nranks, extra = rows % nranks;
	*count = base + (rank < extra);
	*first = rank * base + (rank < extra ? rank : extra);
}

#define IO_LIMIT ((int64_t)1 << 31)      /* bytes no I/O call reaches */
/* An elementwise pass of one rank stops its boxes sooner: with 1 MiB of
 * the widest array a box's inputs and results stay in the core's caches
 * from the read that copies them in, through the ops, to the write that
 * copies them out (the benchmark's W5 and W1: a tenth less user time, a
 * third to a half less system time).  With several ranks every box is
 * collective calls whose waits cost more than the cache saves (W1 on 2
 * ranks: a quarter more user time at 1 MiB), and reductions and scans
 * stream wider chunk rows and were slower at 1 MiB: BLOCK_TARGET. */
#define PASS_TARGET ((int64_t)1 << 20)
/* Slices are one chunk column when it holds this many bytes of the widest
 * array, where a rank moves its chunks alone (one process; dist_slices_alone):
 * its chunks then lie whole in the slice's buffer, one after another, and
 * h5io moves each as stored, with no copy through HDF5's chunk cache (W4
 * in place on (256, 64) float64 chunks: half the CPU of slices of eight
 * columns).  Narrower columns make too many calls. */
#define SLICE_LEAST ((int64_t)64 << 10)

/* ---- boxes ------------------------------------------------------------ */


/* Boxes of L's lines [LO, HI): runs of at most lines_per_box lines within
 * one index of the axes before the split one. */
static int64_t boxes_in(const struct dist_layout *l, int64_t lo, int64_t hi)
{
	int64_t c = l->dim[l->axis], n = l->lines_per_box;
	if (hi <= lo || c == 0)
		return 0;
	int64_t cl = lo / c, ch = (hi - 1) / c;
	if (cl == ch)
		return (hi - lo + n - 1) / n;
	return ((cl + 1) * c - lo + n - 1) / n + (ch - cl - 1) * ((c + n - 1) / n) +
	       (hi - ch * c + n - 1) / n;
}

/* The first line of run G of L's runs of align lines (each index of the
 * axes before the split one starts a new run). */
static int64_t run_start(const struct dist_layout *l, int64_t g)
{
	int64_t c = l->dim[l->axis], per = (c + l->align - 1) / l->align;
	if (per == 0)
		return 0;
	int64_t at = g / per * c + g % per * l->align;
	return at < l->lines ? at : l->lines;
}

void dist_layout_share(const struct dist_layout *l, int rank, int64_t *first, int64_t *count)
{
	int64_t c = l->dim[l->axis], per = (c + l->align - 1) / l->align;
	int64_t runs = c ? l->lines / c * per : 0, g0, gn;
	share(runs, l->nranks, rank, &g0, &gn);
	*first = run_start(l, g0);
	*count = run_start(l, g0 + gn) - *first;
}

/* Is every rank's share of L's TOTAL elements within 25% of an equal one,
 * or within SMALL_SHARE elements of it? */
static bool shares_even(const struct dist_layout *l, int64_t total, int64_t small)
{
	double fair = (double)total / l->nranks;
	for (int r = 0; r < l->nranks; r++) {
		int64_t first, count;
		dist_layout_share(l, r, &first, &count);
		double off = (double)count * (double)l->line - fair;
		if (off < 0)
			off = -off;
		if (off > 0.25 * fair && off > small)
			return false;
	}
	return true;
}

/* Bytes a box of N elements of lines of LINE elements costs under C. */
static int64_t box_cost(const struct dist_cost *c, int64_t n, int64_t line)
{
	int64_t tile = line > c->tile ? line : c->tile;
	return c->fixed + dist_elem_bytes(c, n) + (n < tile ? n : tile) * c->per_tile;
}

int64_t dist_elem_bytes(const struct dist_cost *c, int64_t n)
{
	int64_t frac = c->per_elem_frac;
	return n * c->per_elem + (frac ? n / DIST_FRAC * frac + ((n % DIST_FRAC) * frac + DIST_FRAC - 1) / DIST_FRAC
				      : 0);
}

int64_t dist_elems_within(int64_t avail, int64_t per, int64_t frac)
{
	int64_t d = per * DIST_FRAC + frac;   /* DIST_FRAC elements' bytes, in DIST_FRAC'ths */
	if (avail < 0)
		return 0;
	if (d <= 0)
		return INT64_MAX;
	int64_t n = avail / d * DIST_FRAC + (avail % d) * DIST_FRAC / d;
	struct dist_cost c = { .per_elem = per, .per_elem_frac = frac };
	while (n > 0 && dist_elem_bytes(&c, n) > avail)   /* the rounding up: once at most */
		n--;
	return n;
}

/* The most elements a box of lines of LINE elements may hold under C: the
 * budget, then the I/O cap. */
static int64_t box_cap(const struct dist_cost *c, int64_t line)
{
	int64_t avail = c->memory - c->fixed, tile = line > c->tile ? line : c->tile;
	int64_t both = c->per_elem + c->per_tile, cap;
	if (avail < 0)
		cap = 0;
	else if ((cap = dist_elems_within(avail, both, c->per_elem_frac)) >= tile && c->per_tile > 0)
		/* past a tile, only the whole-box buffers grow */
		cap = dist_elems_within(avail - tile * c->per_tile, c->per_elem, c->per_elem_frac);
	if (c->widest > 0 && cap > (IO_LIMIT - 1) / c->widest)
		cap = (IO_LIMIT - 1) / c->widest;
	return cap;
}

int dist_too_small(int64_t memory, const char *where, struct err *e, const char *fmt, ...)
{
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	return err_set(e, EXIT_USAGE, where, "--memory %lld byte%s is too small for one block (%s)",
		       (long long)memory, memory == 1 ? "" : "s", why);
}

/* "N elements of every array need" (1 element ... needs) into BUF. */
static const char *elements_need(int64_t n, char *buf, size_t len)
{
	snprintf(buf, len, "%lld element%s of every array need%s", (long long)n, n == 1 ? "" : "s",
		 n == 1 ? "s" : "");
	return buf;
}

bool dist_over_io(const struct dist_cost *c, int64_t n)
{
	return c->widest > 0 && n > (IO_LIMIT - 1) / c->widest;
}

int dist_box_too_small(const struct dist_cost *c, int64_t least, int64_t line, int64_t floor,
			int64_t need, const char *where, struct err *e)
{
	char buf[64];
	if (dist_over_io(c, least))
		return err_set(e, EXIT_USAGE, where,
			       "a row of %lld bytes is too large: no I/O call moves 2 GiB or more",
			       (long long)(line * c->widest));
	if (least > floor)
		return dist_too_small(c->memory, where, e, "one row of every array needs %lld bytes",
				      (long long)need);
	return dist_too_small(c->memory, where, e, "%s %lld bytes", elements_need(floor, buf, sizeof buf),
			      (long long)need);
}

/* The error of a budget C whose boxes cannot hold LEAST elements of lines
 * of LINE elements (FLOOR the fewest a box may hold): box_too_small's, or
 * one piece of C's unit too large. */
static int too_small(const struct dist_cost *c, int64_t least, int64_t line, int64_t floor,
		     const char *where, struct err *e)
{
	int64_t need = box_cost(c, least, line);
	if (c->unit > 0 && least <= floor && !dist_over_io(c, least))
		return c->twin > 0 ? dist_too_small(c->memory, where, e, "one piece needs %lld bytes, and a "
						    "rank whose share begins inside one needs %lld",
						    (long long)(need - c->twin), (long long)need)
			: dist_too_small(c->memory, where, e, "one piece needs %lld bytes", (long long)need);
	return dist_box_too_small(c, least, line, floor, need, where, e);
}

void dist_cost_hold(struct dist_cost *c, enum dist_hold how, int64_t bytes)
{
	switch (how) {
	case DIST_FIXED: c->fixed += bytes; break;
	case DIST_PER_ELEM: c->per_elem += bytes; break;
	case DIST_PER_TILE: c->per_tile += bytes; break;
	case DIST_PER_ACROSS: c->per_across += bytes; break;
	default: break;
	}
}

void dist_cost_hold_per(struct dist_cost *c, int64_t bytes, int64_t group)
{
	c->per_elem += bytes / group;
	c->per_elem_frac += ((bytes % group) * DIST_FRAC + group - 1) / group;
	c->per_elem += c->per_elem_frac / DIST_FRAC;
	c->per_elem_frac %= DIST_FRAC;
}

int64_t dist_tile_lines(const struct dist_layout *l)
{
	int64_t tile = l->line > 0 && l->line < l->cost.tile ? l->cost.tile / l->line : 1;
	return tile < l->lines_per_box ? tile : l->lines_per_box;
}

int64_t dist_held_elems(const struct dist_layout *l, enum dist_hold how)
{
	switch (how) {
	case DIST_PER_ELEM:   /* a band's buffers hold one slice */
		return l->lines_per_box * (l->band ? l->line / l->dim[l->ndim - 1] * l->slice : l->line);
	case DIST_PER_TILE: return dist_tile_lines(l) * l->line;
	case DIST_PER_ACROSS: return 0;
	default: return 1;
	}
}

int64_t dist_layout_bytes(const struct dist_layout *l)
{
	const struct dist_cost *c = &l->cost;
	return c->fixed + dist_elem_bytes(c, dist_held_elems(l, DIST_PER_ELEM)) +
	       c->per_tile * dist_held_elems(l, DIST_PER_TILE);
}

/* L's boxes follow the chunk grid CHUNK when it costs nothing: whole runs
 * of a chunk's lines when the budget holds them (CAP elements a box) and
 * the shares stay even (TOTAL elements). */
static void follow_chunks(struct dist_layout *l, const int64_t *chunk, int64_t cap, int64_t total)
{
	bool ones = true;
	for (int i = 0; i < l->axis; i++)
		ones = ones && chunk[i] == 1;
	int64_t a = chunk[l->axis] < l->dim[l->axis] ? chunk[l->axis] : l->dim[l->axis];
	/* the budget, not the target, decides whether a run fits */
	if (ones && a > 1 && l->line > 0 && cap / l->line >= a) {
		l->align = a;
		if (shares_even(l, total, SMALL_SHARE))
			l->lines_per_box = l->lines_per_box < a ? a : l->lines_per_box / a * a;
		else
			l->align = 1;
	}
}

/* Does a box's chunk column of CHUNK over L hold SLICE_LEAST bytes of
 * the widest array? */
static bool column_large(const struct dist_layout *l, const int64_t *chunk)
{
	int last = l->ndim - 1;
	int64_t column = l->lines_per_box * (l->line / l->dim[last]) * chunk[last];
	return l->cost.widest > 0 && column >= SLICE_LEAST / l->cost.widest;
}

/* The width along the last axis of L's slices (dist.h): whole chunk
 * columns of CHUNK, one on one rank when it holds SLICE_LEAST bytes, else
 * as many as make about TARGET elements of a box; 0 when a box holds no
 * more, or the chunks do not cut the last axis after the split one. */
static int64_t slice_width(const struct dist_layout *l, const int64_t *chunk, int64_t target)
{
	int last = l->ndim - 1;
	int64_t d = l->dim[last], c = chunk[last];
	if (l->align <= 1 || last <= l->axis || c <= 0 || c >= d || l->lines_per_box * l->line <= target)
		return 0;
	int64_t column = l->lines_per_box * (l->line / d) * c;   /* a box's chunk column */
	int64_t k = l->nranks == 1 && column_large(l, chunk) ? 1
		  : target / column > 1 ? target / column : 1;
	return k * c < d ? k * c : 0;
}

bool dist_holds_chunks(const struct dist_layout *l, const int64_t *chunk)
{
	for (int i = 0; i < l->axis; i++)
		if (chunk[i] != 1)
			return false;
	int64_t a = chunk[l->axis] < l->dim[l->axis] ? chunk[l->axis] : l->dim[l->axis];
	int64_t d = l->dim[l->axis];
	bool whole = l->align == d && l->lines_per_box == d;   /* every box the axis whole */
	int last = l->ndim - 1;
	return !l->cut && (a == 1 || l->align == a || whole) && (l->slice <= 0 || l->slice % chunk[last] == 0);
}

bool dist_chunks_in_runs(const struct dist_layout *l, const int64_t *chunk)
{
	int last = l->ndim - 1;
	if (!dist_holds_chunks(l, chunk))
		return false;
	for (int i = l->axis + 1; i < last; i++)
		if (chunk[i] < l->dim[i])
			return false;
	return l->axis == last || chunk[last] >= l->dim[last] || l->slice == chunk[last];
}

void dist_slices_alone(struct dist_layout *l, const int64_t *chunk)
{
	if (l->slice > 0 && chunk && column_large(l, chunk))
		l->slice = chunk[l->ndim - 1];
}

int64_t dist_slices(const struct dist_layout *l)
{
	int64_t w = l->slice;
	return w > 0 ? (l->dim[l->ndim - 1] + w - 1) / w : 1;
}

void dist_slice(const struct dist_layout *l, const int64_t *start, const int64_t *count, int64_t j,
		int64_t *sstart, int64_t *scount)
{
	int last = l->ndim - 1;
	memcpy(sstart, start, sizeof *start * (size_t)l->ndim);
	memcpy(scount, count, sizeof *count * (size_t)l->ndim);
	if (l->slice <= 0 || count[last] == 0)
		return;
	int64_t at = j * l->slice, n = count[last] - at;
	sstart[last] = start[last] + at;
	scount[last] = n < l->slice ? n : l->slice;
}

void dist_count_boxes(struct dist_layout *l)
{
	l->nboxes = l->total_boxes = 0;
	l->ranks_with_work = 0;
	for (int r = 0; r < l->nranks; r++) {
		int64_t first, count;
		dist_layout_share(l, r, &first, &count);
		int64_t n = boxes_in(l, first, first + count);
		if (n > l->nboxes)
			l->nboxes = n;
		l->total_boxes += n;
		l->ranks_with_work += count > 0 && l->line > 0;
	}
}

/* Boxes of at least 64 elements (or all; one unit in a space of units),
 * shares even within SMALL_SHARE elements (of units' elements), boxes that
 * stop growing at C's target of the widest array. */
int dist_layout_make(int ndim, const int64_t *dim, const int64_t *chunk, const struct dist_cost *c,
		     int max_axis, int nranks, const char *where, struct err *e, struct dist_layout *l)
{
	memset(l, 0, sizeof *l);
	l->ndim = ndim > 0 ? ndim : 1;
	l->nranks = nranks;
	l->cost = *c;
	int64_t least_elems = c->unit > 0 ? 1 : FLOOR_ELEMS;
	int64_t small = c->unit > 0 ? SMALL_SHARE / c->unit : SMALL_SHARE;
	int64_t target_bytes = c->target ? c->target
		: c->unit > 0 || nranks > 1 ? BLOCK_TARGET : PASS_TARGET;
	int64_t total = 1, widest = c->widest;
	for (int i = 0; i < l->ndim; i++) {
		l->dim[i] = ndim > 0 ? dim[i] : 1;
		total *= l->dim[i];
	}
	bool whole = max_axis == LAYOUT_WHOLE && total > 0;
	if (max_axis >= l->ndim)
		max_axis = l->ndim - 1;
	if (max_axis < 0)
		max_axis = 0;
	int64_t floor = total < least_elems ? total : least_elems;
	if (floor < 1)
		floor = 1;
	/* the split axis: the first whose line fits and keeps the shares even */
	int64_t line = total, cap = 0;
	int axis;
	for (axis = 0; axis < l->ndim; axis++) {
		line /= l->dim[axis] ? l->dim[axis] : 1;
		bool even = line <= small || line <= total / (4 * (int64_t)nranks);
		cap = box_cap(c, line);
		if (axis == max_axis || (line <= cap && even))
			break;
	}
	if (total == 0) {   /* nothing to hold: lines are rows, each maybe empty */
		axis = 0;
		line = 1;
		for (int i = 1; i < l->ndim; i++)
			line *= l->dim[i];
		cap = box_cap(c, line);
	}
	int64_t least = whole ? total : line > floor ? line : floor;
	if (total > 0 && cap < least)
		return too_small(c, least, line, floor, where, e);
	l->axis = axis;
	l->line = line;
	l->lines = 1;
	for (int i = 0; i <= axis; i++)
		l->lines *= l->dim[i];
	int64_t lpb = line > 0 ? cap / line : l->lines;
	int64_t target = widest > 0 && line > 0 ? target_bytes / widest / line : lpb;
	if (lpb > target)
		lpb = target > 0 ? target : 1;
	int64_t sh = (l->lines + nranks - 1) / nranks;
	if (lpb > sh)
		lpb = sh;
	if (lpb > l->dim[axis] || whole)
		lpb = l->dim[axis];
	l->lines_per_box = lpb > 0 ? lpb : 1;
	l->align = whole ? l->dim[axis] : 1;   /* whole: one run of lines, rank 0's */
	if (chunk && total > 0 && !whole) {
		follow_chunks(l, chunk, cap, total);
		if (c->unit == 0 && widest > 0)
			l->slice = slice_width(l, chunk, target_bytes / widest);
	}
	dist_count_boxes(l);
	return 0;
}

/* Do L's shares stay even (TOTAL elements) when its lines are dealt in
 * runs of D? */
static bool even_in_runs(struct dist_layout *l, int64_t d, int64_t total)
{
	int64_t keep = l->align;
	l->align = d;
	bool even = shares_even(l, total, SMALL_SHARE);
	l->align = keep;
	return even;
}

/* The most lines, at most MOST, that divide A and keep L's shares even
 * when dealt in runs of that many (TOTAL elements), or 1 (lines dealt one
 * by one, as even as they go); 0 when MOST is. */
static int64_t even_divisor(struct dist_layout *l, int64_t a, int64_t most, int64_t total)
{
	int64_t n = 0;
	for (int64_t i = 1; i <= a / i; i++) {
		int64_t pair[2] = { i, a / i };
		for (int k = 0; k < 2 && a % i == 0; k++)
			if (pair[k] > n && pair[k] <= most && (pair[k] == 1 || even_in_runs(l, pair[k], total)))
				n = pair[k];
	}
	return n;
}

/* Can L's boxes be cut for the chunks CHUNK (dist_cut_chunks,
 * dist_band_chunks): laid out not following them, not in slices, not of
 * units, split before the last axis, the chunks cutting the last axis
 * and no other after the split one, 1 before it? */
static bool cuttable(const struct dist_layout *l, const int64_t *chunk)
{
	int last = l->ndim - 1, ax = l->axis;
	if (!chunk || l->align != 1 || l->slice || l->cost.unit || ax >= last || l->line <= 0 ||
	    chunk[last] >= l->dim[last])
		return false;
	for (int i = 0; i < last; i++)
		if ((i < ax && chunk[i] != 1) || (i > ax && chunk[i] < l->dim[i]))
			return false;
	return true;
}

/* L's boxes cut for the chunks CHUNK (cuttable) into runs of the most
 * lines, at most MOST, that divide a chunk's and keep the shares even,
 * each slice one chunk column; BAND: the budget pays for a slice (so
 * whole runs of a chunk's lines are no cut).  Unchanged when a box holds
 * a chunk's lines already, or the runs would be under half a box. */
static void cut_into(struct dist_layout *l, const int64_t *chunk, int64_t most, bool band)
{
	int last = l->ndim - 1, ax = l->axis;
	int64_t a = chunk[ax] < l->dim[ax] ? chunk[ax] : l->dim[ax], total = l->lines * l->line;
	if (a <= l->lines_per_box)
		return;
	int64_t n = even_divisor(l, a, most, total);
	if (n < 1 || 2 * n < l->lines_per_box)
		return;
	l->lines_per_box = n;
	l->slice = chunk[last];
	l->cut = !band || n < a;
	l->band = band;
	l->align = even_in_runs(l, a, total) ? a : n;   /* a chunk's lines, when even */
	dist_count_boxes(l);
}

void dist_cut_chunks(struct dist_layout *l, const int64_t *chunk)
{
	if (cuttable(l, chunk))
		cut_into(l, chunk, box_cap(&l->cost, l->line) / l->line, false);
}

void dist_band_chunks(struct dist_layout *l, const int64_t *chunk)
{
	if (!cuttable(l, chunk))
		return;
	const struct dist_cost *c = &l->cost;
	int ax = l->axis;
	int64_t column = l->line / l->dim[l->ndim - 1] * chunk[l->ndim - 1];   /* a line's part of a chunk column */
	struct dist_layout most_lines = *l;   /* the tile a band holds at most */
	most_lines.lines_per_box = chunk[ax] < l->dim[ax] ? chunk[ax] : l->dim[ax];
	int64_t avail = c->memory - c->fixed - c->per_tile * dist_held_elems(&most_lines, DIST_PER_TILE);
	int64_t most = c->per_elem > 0 || c->per_elem_frac > 0
		       ? dist_elems_within(avail, c->per_elem, c->per_elem_frac) / column : most_lines.lines_per_box;
	if (c->widest > 0 && most > (IO_LIMIT - 1) / c->widest / column)
		most = (IO_LIMIT - 1) / c->widest / column;
	cut_into(l, chunk, most, true);
}

void dist_divide_chunk(struct dist_layout *l, int64_t a)
{
	int64_t n = l->lines_per_box;
	if (l->align != 1 || l->slice || l->cut || l->cost.unit || n >= a || a % n == 0)
		return;
	n = even_divisor(l, a, n, l->lines * l->line);
	if (2 * n < l->lines_per_box)
		return;
	l->lines_per_box = n;
	dist_count_boxes(l);
}

bool dist_slices_cut(const struct dist_layout *l)
{
	return l->cut;
}

void dist_walk_start(const struct dist_layout *l, int rank, struct dist_walk *w)
{
	int64_t first, count;
	dist_layout_share(l, rank, &first, &count);
	w->l = l;
	w->at = first;
	w->end = first + count;
}

bool dist_walk_next(struct dist_walk *w, int64_t *start, int64_t *count)
{
	const struct dist_layout *l = w->l;
	int64_t c = l->dim[l->axis];
	int64_t n = w->end - w->at;
	if (n > l->lines_per_box)
		n = l->lines_per_box;
	if (c > 0 && n > c - w->at % c)
		n = c - w->at % c;
	if (n <= 0) {
		for (int i = 0; i < l->ndim; i++)
			start[i] = count[i] = 0;
		return false;
	}
	/* the line's index over the axes before the split one */
	int64_t cell = w->at / c;
	for (int i = l->axis - 1; i >= 0; i--) {
		start[i] = cell % l->dim[i];
		cell /= l->dim[i];
		count[i] = 1;
	}
	start[l->axis] = w->at % c;
	count[l->axis] = n;
	for (int i = l->axis + 1; i < l->ndim; i++) {
		start[i] = 0;
		count[i] = l->dim[i];
	}
	w->at += n;
	return true;
}
