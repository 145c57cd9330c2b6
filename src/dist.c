/* dist.c - n-d boxes dealt to ranks in contiguous runs; streams of them. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dist.h"
#include "iter.h"

static void share(int64_t rows, int nranks, int rank, int64_t *first, int64_t *count)
{
	int64_t base = rows / nranks, extra = rows % nranks;
	*count = base + (rank < extra);
	*first = rank * base + (rank < extra ? rank : extra);
}

#define IO_LIMIT ((int64_t)1 << 31)      /* bytes no I/O call reaches */
#define BLOCK_TARGET DIST_BLOCK_BYTES
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

#define FLOOR_ELEMS 64          /* the smallest box a budget must hold */
#define SMALL_SHARE 4096        /* a line this small never unbalances */
#define LAYOUT_WHOLE (-1)       /* a max_axis: the whole space is one box, rank 0's */

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
	return c->fixed + n * c->per_elem + (n < tile ? n : tile) * c->per_tile;
}

/* The most elements a box of lines of LINE elements may hold under C: the
 * budget, then the I/O cap. */
static int64_t box_cap(const struct dist_cost *c, int64_t line)
{
	int64_t avail = c->memory - c->fixed, tile = line > c->tile ? line : c->tile;
	int64_t both = c->per_elem + c->per_tile, cap;
	if (avail < 0)
		cap = 0;
	else if (both <= 0)
		cap = INT64_MAX;
	else if (avail / both < tile || c->per_tile == 0)
		cap = avail / both;
	else   /* past a tile, only the whole-box buffers grow */
		cap = c->per_elem > 0 ? (avail - tile * c->per_tile) / c->per_elem : INT64_MAX;
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

/* Does a box of N elements of C's widest array reach the I/O cap? */
static bool over_io(const struct dist_cost *c, int64_t n)
{
	return c->widest > 0 && n > (IO_LIMIT - 1) / c->widest;
}

/* The error of a budget C whose boxes cannot hold LEAST elements (NEED
 * bytes) of lines of LINE elements: a line over the I/O cap, or the
 * budget too small for one row of every array (LEAST over FLOOR, the
 * fewest a box may hold) or for FLOOR elements of every array. */
static int box_too_small(const struct dist_cost *c, int64_t least, int64_t line, int64_t floor,
			 int64_t need, const char *where, struct err *e)
{
	char buf[64];
	if (over_io(c, least))
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
	if (c->unit > 0 && least <= floor && !over_io(c, least))
		return c->twin > 0 ? dist_too_small(c->memory, where, e, "one piece needs %lld bytes, and a "
						    "rank whose share begins inside one needs %lld",
						    (long long)(need - c->twin), (long long)need)
			: dist_too_small(c->memory, where, e, "one piece needs %lld bytes", (long long)need);
	return box_too_small(c, least, line, floor, need, where, e);
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

int64_t dist_tile_lines(const struct dist_layout *l)
{
	int64_t tile = l->line > 0 && l->line < l->cost.tile ? l->cost.tile / l->line : 1;
	return tile < l->lines_per_box ? tile : l->lines_per_box;
}

int64_t dist_held_elems(const struct dist_layout *l, enum dist_hold how)
{
	switch (how) {
	case DIST_PER_ELEM: return l->lines_per_box * l->line;
	case DIST_PER_TILE: return dist_tile_lines(l) * l->line;
	case DIST_PER_ACROSS: return 0;
	default: return 1;
	}
}

int64_t dist_layout_bytes(const struct dist_layout *l)
{
	const struct dist_cost *c = &l->cost;
	return c->fixed + c->per_elem * dist_held_elems(l, DIST_PER_ELEM) +
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

/* L's boxes counted: the most a rank walks, all ranks', and the ranks
 * with lines. */
static void count_boxes(struct dist_layout *l)
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
	count_boxes(l);
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

void dist_cut_chunks(struct dist_layout *l, const int64_t *chunk)
{
	int last = l->ndim - 1, ax = l->axis;
	if (!chunk || l->align != 1 || l->slice || l->cost.unit || ax >= last ||
	    l->line <= 0 || chunk[last] >= l->dim[last])
		return;
	for (int i = 0; i < last; i++)
		if ((i < ax && chunk[i] != 1) || (i > ax && chunk[i] < l->dim[i]))
			return;
	int64_t a = chunk[ax] < l->dim[ax] ? chunk[ax] : l->dim[ax], total = l->lines * l->line;
	if (a <= l->lines_per_box)
		return;
	int64_t n = even_divisor(l, a, box_cap(&l->cost, l->line) / l->line, total);
	if (2 * n < l->lines_per_box)
		return;
	l->lines_per_box = n;
	l->slice = chunk[last];
	l->cut = true;
	l->align = even_in_runs(l, a, total) ? a : n;   /* a chunk's lines, when even */
	count_boxes(l);
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
	count_boxes(l);
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

/* ---- streams ---------------------------------------------------------- */

#define NARROW_RUN 512   /* bytes: a rank's run of an array shorter than this is
			    not read as a strided box of its own (see below) */

/* The two spaces of a stream and what it costs, for stream_try. */
struct stream_spaces {
	int na, nr;                  /* axes across; axes along, the leading 1 included */
	int64_t ad[H5U_MAXDIM], ac[H5U_MAXDIM];              /* across: extents, chunks */
	int64_t rd[H5U_MAXDIM + 1], rc[H5U_MAXDIM + 1];      /* along */
	bool chunked;
	int64_t across, stream, least;   /* elements across, along; the shortest along box */
	struct dist_cost c;          /* the stream's (its target: bytes of the widest array
					boxes stop growing at) */
	int along_max;               /* the last axis along that may be cut */
	int64_t piece;               /* > 0: the last axis along is cut only at multiples
					of this many elements from its start */
	int64_t small_unit;          /* a line across holds this many elements */
};

/* L (an along space, one rank's) cut along its last axis in boxes of a
 * multiple of PIECE elements (at least one piece: L's boxes hold that
 * many), so that each box starts at a multiple of PIECE from its run's
 * start; boxes of whole runs are left as they are. */
static void whole_pieces(struct dist_layout *l, int64_t piece)
{
	int64_t n = l->lines_per_box;
	if (l->axis != l->ndim - 1 || n >= l->dim[l->axis] || n % piece == 0)
		return;
	l->lines_per_box = n > piece ? n / piece * piece : piece;
	l->align = 1;   /* the chunks' runs of lines are not followed */
	count_boxes(l);
}

/* Lay out S's along and across spaces with along boxes of at most G
 * elements, shortened (halved) while the across boxes do not fit; the
 * across space is split at most at ACROSS_MAX.  SHARED: the along space
 * is dealt to the NRANKS ranks and the across space walked whole by each;
 * else the across space is dealt and the along space walked by each. */
static int stream_try(const struct stream_spaces *sp, int64_t g, int across_max, bool shared,
		      int nranks, const char *where, struct err *e, struct dist_stream *s)
{
	int64_t per_across = shared ? 2 * sp->c.per_across : sp->c.per_across;   /* and a rank's partial */
	for (;;) {
		struct err trial = {0};
		/* the along boxes count elements; the across ones are units of
		   an along box's elements */
		struct dist_cost ac = { .memory = g, .per_elem = 1, .unit = 1 };
		dist_layout_make(sp->nr, sp->rd, sp->chunked ? sp->rc : NULL, &ac, sp->along_max,
			     shared ? nranks : 1, where, &trial, &s->along);
		if (sp->piece > 0 && !shared)
			whole_pieces(&s->along, sp->piece);
		int64_t box = dist_stream_along_elems(s);
		bool last = g <= sp->least || g <= 1;
		struct dist_cost qc = { .memory = sp->c.memory, .fixed = sp->c.fixed, .per_elem = box * sp->c.per_elem + per_across,
					.widest = box * sp->c.widest, .target = sp->c.target,
					.unit = sp->small_unit };
		if (dist_layout_make(sp->na, sp->ad, sp->chunked ? sp->ac : NULL, &qc, across_max,
				 shared ? 1 : nranks, where, last ? e : &trial, &s->across) == 0) {
			s->shared = shared;
			return 0;
		}
		if (last)
			return -1;
		g = g / 2 > sp->least ? g / 2 : sp->least;
	}
}

int64_t dist_stream_most(const struct dist_stream *s)
{
	const struct dist_layout *l = s->shared ? &s->along : &s->across;
	int64_t most = 0, other = s->shared ? s->across.lines * s->across.line
		: s->along.lines * s->along.line;
	for (int r = 0; r < l->nranks; r++) {
		int64_t first, count;
		dist_layout_share(l, r, &first, &count);
		if (count * l->line * other > most)
			most = count * l->line * other;
	}
	return most;
}

bool dist_stream_uneven(const struct dist_stream *s)
{
	int nranks = dist_stream_nranks(s);
	int64_t total = s->across.lines * s->across.line * s->along.lines * s->along.line;
	if (nranks < 2 || total == 0)
		return false;
	double fair = (double)total / nranks, off = (double)dist_stream_most(s) - fair;
	return off > 0.25 * fair && off > SMALL_SHARE;
}

/* Errors (EXIT_USAGE, at WHERE) when SP's budget does not hold a box of
 * min(64, all of TOTAL) elements, or its shortest along box. */
static int stream_floor(const struct stream_spaces *sp, int64_t total, const char *where,
			struct err *e)
{
	int64_t least = total < FLOOR_ELEMS ? total : FLOOR_ELEMS;
	if (least < sp->least)
		least = sp->least;
	if (least < 1)
		least = 1;
	int64_t need = sp->c.fixed + least * (sp->c.per_elem + sp->c.per_across);
	if (!over_io(&sp->c, least) && sp->c.memory >= need)
		return 0;
	int64_t fewest = sp->piece > 0 || least < FLOOR_ELEMS ? least : FLOOR_ELEMS;   /* a piece: no row */
	return box_too_small(&sp->c, least, least, fewest, need, where, e);
}

/* The elements an along box of SP holds at most: as many as the budget
 * allows with a box across WIDTH wide (the runs across after the last axis
 * along); for a chunked array at least a chunk's extent along, so that
 * each chunk lies in one box: the box across narrower instead
 * (DIST_CHUNK_BOXES in HOW), or as wide, past the size boxes stop at (SP's
 * target raised), when the budget holds it. */
static int64_t along_length(struct stream_spaces *sp, int64_t width, unsigned how)
{
	int64_t per = sp->c.per_elem + sp->c.per_across, room = sp->c.memory - sp->c.fixed, cap = room / per;
	if (sp->c.widest > 0 && cap > BLOCK_TARGET / sp->c.widest)
		cap = BLOCK_TARGET / sp->c.widest;
	int64_t g = width > 0 ? cap / width : sp->stream, chunk_along = 1;
	for (int i = 1; sp->chunked && i < sp->nr; i++)
		chunk_along *= sp->rc[i] < sp->rd[i] ? sp->rc[i] : sp->rd[i];
	if (g < chunk_along && (how & DIST_CHUNK_BOXES) && chunk_along <= cap) {
		g = chunk_along;
	} else if (g < chunk_along && chunk_along * width <= room / per) {
		g = chunk_along;
		sp->c.target = chunk_along * width * (sp->c.widest > 0 ? sp->c.widest : 1);
	}
	if (g > sp->stream)
		g = sp->stream;
	if (g < sp->least)
		g = sp->least;
	return g > 1 ? g : 1;
}

int dist_stream_make(int ndim, const int64_t *dim, const bool *along, const int64_t *chunk,
		     const struct dist_cost *c, unsigned how, int nranks, const char *where,
		     struct err *e, struct dist_stream *s)
{
	bool pieces_last = how & DIST_PIECES_LAST, may_share = how & DIST_MAY_SHARE;
	memset(s, 0, sizeof *s);
	s->ndim = ndim > 0 ? ndim : 1;
	/* the two spaces, and the chunk grid over each */
	struct stream_spaces sp = { .nr = 1, .rd = {1}, .rc = {1}, .chunked = chunk != NULL, .c = *c };
	sp.c.target = BLOCK_TARGET;
	int64_t total = 1, inner = 1;   /* INNER: across extent after the last axis along */
	int inner_axes = 0;
	sp.across = 1;
	for (int i = 0; i < s->ndim; i++) {
		int64_t d = ndim > 0 ? dim[i] : 1, ch = chunk ? chunk[i] : 1;
		s->axis_along[i] = ndim > 0 && along[i];
		total *= d;
		if (s->axis_along[i]) {
			sp.rd[sp.nr] = d;
			sp.rc[sp.nr++] = ch;
			inner = 1;
			inner_axes = 0;
		} else {
			sp.ad[sp.na] = d;
			sp.ac[sp.na++] = ch;
			sp.across *= d;
			inner *= d;
			inner_axes++;
		}
	}
	sp.stream = 1;   /* elements along */
	for (int i = 1; i < sp.nr; i++)
		sp.stream *= sp.rd[i];
	/* the shortest along box: one piece of the last axis (a run no longer
	 * than one never cut) when it is cut only between pieces */
	bool pieces = pieces_last && s->axis_along[s->ndim - 1];
	bool whole = pieces && sp.rd[sp.nr - 1] <= ITER_PIECE;
	sp.piece = pieces && !whole ? ITER_PIECE : 0;
	sp.least = whole ? sp.rd[sp.nr - 1] : sp.piece ? ITER_PIECE : 1;
	if (stream_floor(&sp, total, where, e) < 0)
		return -1;
	int64_t g = along_length(&sp, inner < sp.across ? inner : sp.across, how);
	sp.along_max = whole ? sp.nr - 2 : H5U_MAXDIM;
	sp.small_unit = sp.stream > 0 ? sp.stream : 1;
	/* Narrow runs across: a box cut inside the axes across after the last
	 * axis along reads runs as short as the cut, one per element along,
	 * each a piece of a strided MPI-IO selection.  When an equal share of
	 * those axes is under NARROW_RUN bytes they are not cut: the axes
	 * before them are, or the whole space across is one box. */
	int across_max = H5U_MAXDIM;
	if (inner_axes > 0 && nranks > 1 && inner * (c->widest > 0 ? c->widest : 1) < NARROW_RUN * (int64_t)nranks)
		across_max = sp.na - inner_axes - 1 >= 0 ? sp.na - inner_axes - 1 : LAYOUT_WHOLE;
	if (stream_try(&sp, g, across_max, false, nranks, where, e, s) < 0) {
		if (across_max == H5U_MAXDIM)
			return -1;
		err_clear(e);   /* a budget too small for whole runs: cut them */
		across_max = H5U_MAXDIM;
		if (stream_try(&sp, g, across_max, false, nranks, where, e, s) < 0)
			return -1;
	}
	/* Dealing the space across leaves ranks idle or uneven: a fold that is
	 * exact in any grouping deals the space along instead, when that is
	 * more even and keeps every rank busy. */
	if (!may_share || nranks < 2 || total == 0)
		return 0;
	if (!dist_stream_uneven(s))
		return 0;
	int64_t most = dist_stream_most(s);
	struct dist_stream t = *s;
	struct err trial = {0};
	if (stream_try(&sp, g, across_max, true, nranks, where, &trial, &t) == 0 &&
	    t.along.ranks_with_work == nranks && dist_stream_most(&t) < most)
		*s = t;
	return 0;
}

int64_t dist_stream_along_elems(const struct dist_stream *s)
{
	const struct dist_layout *l = &s->along;
	return l->lines_per_box * l->line;
}

int64_t dist_stream_held_elems(const struct dist_stream *s, enum dist_hold how)
{
	int64_t across = s->across.lines_per_box * s->across.line;
	switch (how) {
	case DIST_PER_ELEM: return across * dist_stream_along_elems(s);
	case DIST_PER_ACROSS: return across;
	case DIST_PER_TILE: return 0;
	default: return 1;
	}
}

/* The across layout was sized (stream_try) by the stream's fixed bytes and,
 * an element across, its along box's elements' bytes and the value it
 * carries (a shared stream's, twice): what the stream holds. */
int64_t dist_stream_bytes(const struct dist_stream *s)
{
	return dist_layout_bytes(&s->across);
}

void dist_stream_across_start(const struct dist_stream *s, int rank, struct dist_walk *w)
{
	dist_walk_start(&s->across, s->shared ? 0 : rank, w);
}

void dist_stream_along_start(const struct dist_stream *s, int rank, struct dist_walk *w)
{
	dist_walk_start(&s->along, s->shared ? rank : 0, w);
}

/* CHUNK (of S's array) as chunks of its spaces: its extents across into
 * ACROSS, and along into ALONG after the along space's leading 1. */
static void stream_chunks(const struct dist_stream *s, const int64_t *chunk, int64_t *across,
			  int64_t *along)
{
	int na = 0, nr = 1;
	along[0] = 1;
	across[0] = 1;
	for (int i = 0; i < s->ndim; i++) {
		if (s->axis_along[i])
			along[nr++] = chunk[i];
		else
			across[na++] = chunk[i];
	}
}

/* A stream's array box is a box across times a box along, so it holds a
 * chunk whole when the box across holds the chunk's extents across and the
 * box along its extents along (after the along space's leading 1). */
bool dist_stream_holds_chunks(const struct dist_stream *s, const int64_t *chunk)
{
	int64_t across[H5U_MAXDIM], along[H5U_MAXDIM + 1];
	stream_chunks(s, chunk, across, along);
	return dist_holds_chunks(&s->across, across) && dist_holds_chunks(&s->along, along);
}

/* Does every share of L (of the ranks that walk it: rank 0's alone when
 * every rank WALKS the whole space, a stream's along not shared) begin
 * at a multiple of C along the split axis? */
static bool shares_aligned(const struct dist_layout *l, int64_t c, bool walks)
{
	int64_t d = l->dim[l->axis];
	for (int r = 0; r < (walks ? 1 : l->nranks) && d > 0; r++) {
		int64_t first, count;
		dist_layout_share(l, r, &first, &count);
		if (first % d % c)
			return false;
	}
	return true;
}

/* How the boxes of L (and their slices) meet a chunk of CHUNK along
 * each axis of L's space: ONE[i], in one index (or the chunk is one
 * wide); WHOLE[i], over the chunk's whole extent (the axis is whole in
 * every box, or cut in slices of whole chunk columns, or the chunk or the
 * axis is one wide).  The split axis is whole where its lines are dealt
 * in a chunk's runs and the boxes hold whole runs (dist_holds_chunks), or
 * where the shares begin at a chunk's edge (WALKS: see shares_aligned) and
 * the boxes are whole chunks' lines or the whole axis; else a rank's
 * share or a box cuts it. */
static void box_reach(const struct dist_layout *l, const int64_t *chunk, bool walks, bool *one,
		      bool *whole)
{
	int last = l->ndim - 1, a = l->axis;
	for (int i = 0; i < l->ndim; i++) {
		bool narrow = chunk[i] == 1 || l->dim[i] == 1;
		bool full = i > a && (i < last || l->slice <= 0 || l->slice % chunk[i] == 0);
		if (i == a && !l->cut)
			full = l->align == chunk[i] ||
			       ((l->lines_per_box % chunk[i] == 0 || l->lines_per_box >= l->dim[i]) &&
				shares_aligned(l, chunk[i], walks));
		one[i] = narrow || i < a || (i == a && l->lines_per_box == 1);
		whole[i] = narrow || full;
	}
}

/* Is every part of a chunk that a box meets one run of it, given how the
 * boxes meet the chunks along each of N axes (box_reach): one index
 * along the axes before some axis, whole along those after it? */
static bool reach_runs(int n, const bool *one, const bool *whole)
{
	int k = 0;
	while (k < n && one[k])
		k++;
	for (int i = k + 1; i < n; i++)
		if (!whole[i])
			return false;
	return true;
}

bool dist_layout_runs(const struct dist_layout *l, const int64_t *chunk)
{
	bool one[H5U_MAXDIM + 1], whole[H5U_MAXDIM + 1];
	box_reach(l, chunk, false, one, whole);
	return reach_runs(l->ndim, one, whole);
}

bool dist_stream_runs(const struct dist_stream *s, const int64_t *chunk)
{
	int64_t across[H5U_MAXDIM], along[H5U_MAXDIM + 1];
	bool qone[H5U_MAXDIM + 1], qwhole[H5U_MAXDIM + 1], rone[H5U_MAXDIM + 1], rwhole[H5U_MAXDIM + 1];
	bool one[H5U_MAXDIM], whole[H5U_MAXDIM];
	stream_chunks(s, chunk, across, along);
	box_reach(&s->across, across, false, qone, qwhole);
	box_reach(&s->along, along, !s->shared, rone, rwhole);
	for (int i = 0, a = 0, r = 1; i < s->ndim; i++) {
		bool al = s->axis_along[i];
		one[i] = al ? rone[r] : qone[a];
		whole[i] = al ? rwhole[r++] : qwhole[a++];
	}
	return reach_runs(s->ndim, one, whole);
}

int dist_stream_ranks_with_work(const struct dist_stream *s)
{
	return s->shared ? s->along.ranks_with_work : s->across.ranks_with_work;
}

int dist_stream_nranks(const struct dist_stream *s)
{
	return s->shared ? s->along.nranks : s->across.nranks;
}

void dist_stream_box(const struct dist_stream *s, const int64_t *qo, const int64_t *qc,
		     const int64_t *ro, const int64_t *rc, int64_t *start, int64_t *count)
{
	for (int i = 0, a = 0, r = 1; i < s->ndim; i++) {
		bool al = s->axis_along[i];
		start[i] = al ? ro[r] : qo[a];
		count[i] = al ? rc[r] : qc[a];
		if (al)
			r++;
		else
			a++;
	}
}
