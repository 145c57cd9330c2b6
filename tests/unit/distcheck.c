/* distcheck - asserts dist.h's contract over a grid of shapes, rank counts
 * and budgets (tests/52-unit.bats runs it):
 *  - dist_layout_make and the walks over a grid of shapes (1-D, 0-d, empty,
 *    a size-1 leading axis, wide rows, (1, 2000, 3000), (3, 10^9)), ranks
 *    and budgets: every rank walks the same number of boxes; the boxes of
 *    all ranks tile the index space exactly once, in C order per rank;
 *    each box is a hyperslab (1, ..., 1, n, d[axis+1], ...) within the
 *    budget; each rank's share is within 25% of an equal one or 4096
 *    elements; the counts check prints; the budget's floor and its message;
 *    boxes of about 1 MiB of the widest array on one rank (4 MiB on
 *    several, and for units), whole chunk runs when they follow chunks;
 *    boxes that cut the chunks grown (dist_cut_chunks) to lines that
 *    divide a chunk's extent, each box within one chunk along the split
 *    axis, in slices of one chunk column, dealt in whole runs of a chunk's
 *    lines (no chunk on two ranks) or of a box's, the shares even;
 *    wherever dist_layout_runs says so, each box meets each chunk in one
 *    run of it (one index along the axes before some axis, the chunk whole
 *    along those after it), and so of a stream's array boxes where
 *    dist_stream_runs says so;
 *  - dist_stream_make over shapes, axes along, chunks, ranks and budgets:
 *    the array boxes of all ranks tile the array exactly once; every rank
 *    walks the same boxes across and, for each, the same along boxes,
 *    which cover the axes along in C order; boxes within the budget; a
 *    last-axis run never cut when it must stay whole; shares within 25%,
 *    4096 elements or one run of lines across; chunks each in one box when
 *    both layouts follow them, and wherever dist_stream_holds_chunks (and,
 *    of a layout, dist_holds_chunks) says so, which it says of whole chunk
 *    runs and not of cut ones; the floor and its messages;
 *  - shared streams (the space along dealt, every box across walked by
 *    every rank): the same tiling, each rank's along boxes one contiguous
 *    run in C order, the runs in rank order; narrow runs across never cut
 *    ((200000, 3) and (4, 300000, 3)); shared where dealing across would
 *    idle ranks, with every rank busy and within 25%;
 *  - what a stream holds (dist_stream_bytes: its fixed bytes, its array
 *    and across boxes, a shared stream's partials) within its budget;
 *  - hold.h: one list of buffers, counted into a budget and then allocated
 *    over the layout or stream it sized, holds what was counted, each
 *    buffer in its slot, none for a buffer held elsewhere or of no bytes.
 */
#include <stdint.h>
#include <string.h>

#include <stdlib.h>

#include "check.h"
#include "dist.h"
#include "iter.h"
#include "../../src/hold.h"

/* dist_layout_make with every element of a box costing PER bytes. */
static int layout(int ndim, const int64_t *dim, const int64_t *chunk, int64_t memory, int64_t fixed,
		  int64_t per, int64_t widest, int max_axis, int nranks, const char *where,
		  struct err *e, struct dist_layout *l)
{
	struct dist_cost c = { .memory = memory, .fixed = fixed, .per_elem = per, .widest = widest };
	return dist_layout_make(ndim, dim, chunk, &c, max_axis, nranks, where, e, l);
}

/* dist_layout_make over a space of units of UNIT elements, PER bytes each
 * (the widest array as wide). */
static int units_layout(int ndim, const int64_t *dim, int64_t unit, int64_t memory, int64_t per,
			int nranks, struct err *e, struct dist_layout *l)
{
	struct dist_cost c = { .memory = memory, .per_elem = per, .widest = per, .unit = unit };
	return dist_layout_make(ndim, dim, NULL, &c, H5U_MAXDIM, nranks, "w", e, l);
}

/* dist_stream_make with 8 bytes an element, 8 an across element, 8 the
 * widest. */
static int stream(int ndim, const int64_t *dim, const bool *along, const int64_t *chunk,
		  int64_t memory, unsigned how, int nranks, struct err *e, struct dist_stream *s)
{
	struct dist_cost c = { .memory = memory, .per_elem = 8, .per_across = 8, .widest = 8 };
	return dist_stream_make(ndim, dim, along, chunk, &c, how, nranks, "w", e, s);
}

static int64_t volume(int ndim, const int64_t *d)
{
	int64_t n = 1;
	for (int i = 0; i < ndim; i++)
		n *= d[i];
	return n;
}

/* The budget L was sized by holds what a pass over it holds: the largest
 * box MOST (elements) within its box buffers, a tile within the box and
 * within a tile's elements (or one line), all of it within the memory. */
static void check_budget(const struct dist_layout *l, int64_t most)
{
	int64_t box = dist_held_elems(l, DIST_PER_ELEM), tile = dist_held_elems(l, DIST_PER_TILE);
	int64_t tiles = l->line > l->cost.tile ? l->line : l->cost.tile;
	CHECK(most <= box, "a box of %lld elements, buffers of %lld", (long long)most, (long long)box);
	CHECK(dist_tile_lines(l) >= 1 && dist_tile_lines(l) <= l->lines_per_box && tile <= box &&
	      (tile <= tiles || tile == l->line), "a tile of %lld elements, a box of %lld, lines of %lld",
	      (long long)tile, (long long)box, (long long)l->line);
	CHECK(dist_held_elems(l, DIST_FIXED) == 1, "a fixed buffer of %lld elements",
	      (long long)dist_held_elems(l, DIST_FIXED));
	CHECK(dist_layout_bytes(l) <= l->cost.memory || volume(l->ndim, l->dim) == 0,
	      "a pass holds %lld bytes of a budget of %lld", (long long)dist_layout_bytes(l),
	      (long long)l->cost.memory);
	CHECK(dist_layout_bytes(l) == l->cost.fixed + box * l->cost.per_elem + tile * l->cost.per_tile,
	      "dist_layout_bytes %lld", (long long)dist_layout_bytes(l));
}

/* The slices of L's box START/COUNT (L follows CHUNK, or NULL): whole
 * chunk columns along the last axis, at most L's slice wide, in order,
 * covering the box (an empty box's all empty). */
static void check_slices(const struct dist_layout *l, const int64_t *chunk, const int64_t *start,
			 const int64_t *count)
{
	int z = l->ndim - 1;
	CHECK(l->slice == 0 || (chunk && l->slice % chunk[z] == 0 && l->slice < l->dim[z] && z > l->axis),
	      "slices %lld wide of chunks %lld", (long long)l->slice, (long long)(chunk ? chunk[z] : 0));
	int64_t ns = dist_slices(l), at = 0;
	for (int64_t j = 0; j < ns; j++) {
		int64_t ss[H5U_MAXDIM], sc[H5U_MAXDIM];
		dist_slice(l, start, count, j, ss, sc);
		for (int i = 0; i < z; i++)
			CHECK(ss[i] == start[i] && sc[i] == count[i], "a slice cuts axis %d", i);
		if (volume(l->ndim, count) == 0) {
			CHECK(volume(l->ndim, sc) == 0, "a slice of an empty box with elements");
			continue;
		}
		CHECK(ss[z] == start[z] + at && sc[z] > 0 && (l->slice == 0 || sc[z] <= l->slice) &&
		      (l->slice == 0 || ss[z] % chunk[z] == 0),
		      "slice %lld of %lld: [%lld, +%lld) after %lld", (long long)j, (long long)ns,
		      (long long)ss[z], (long long)sc[z], (long long)at);
		at += sc[z];
	}
	CHECK(volume(l->ndim, count) == 0 || at == count[z], "slices cover %lld of %lld", (long long)at,
	      (long long)count[z]);
}

/* Is every part of a chunk of CHUNK (a space of N extents DIM) that the
 * box START/COUNT meets one run of the chunk: one index along the axes
 * before some axis, the chunk whole (or to the space's edge) along those
 * after it?  The parts along an axis are the first, the middle and the
 * last chunk's; each combination from axis I on is tried, ONES saying
 * whether every axis before I had one index. */
static bool parts_run(int n, const int64_t *dim, const int64_t *chunk, const int64_t *start,
		      const int64_t *count, int i, bool ones)
{
	if (i == n)
		return true;
	int64_t c = chunk[i], lo = start[i], hi = start[i] + count[i];
	int64_t firsts[3] = { lo / c * c, (lo / c + 1) * c, (hi - 1) / c * c };
	for (int j = 0; j < 3; j++) {
		int64_t f = firsts[j];
		if (f < lo / c * c || f > (hi - 1) / c * c)
			continue;   /* no middle chunk */
		int64_t a = lo > f ? lo : f, b = hi < f + c ? hi : f + c;
		bool one = b - a == 1, whole = a == f && (b == f + c || b == dim[i]);
		if (!ones && !whole)
			return false;
		if (!parts_run(n, dim, chunk, start, count, i + 1, ones && one))
			return false;
	}
	return true;
}

/* Lay out SHAPE for NRANKS within MEMORY (8 bytes an element), with boxes
 * that cut the chunks grown (dist_cut_chunks) when CUT, and walk every
 * rank's boxes; small spaces are checked element by element. */
static void check_layout(int ndim, const int64_t *dim, const int64_t *chunk, int nranks,
			 int64_t memory, bool cut)
{
	struct dist_layout l;
	struct err e = {0};
	if (layout(ndim, dim, chunk, memory, 0, 8, 8, 32, nranks, "w", &e, &l) < 0) {
		CHECK(memory < 8 * 64, "%d-d, memory %lld refused: %s", ndim, (long long)memory, e.msg);
		return;
	}
	int64_t before = l.lines_per_box;
	if (cut)
		dist_cut_chunks(&l, chunk);
	/* cut boxes: a number of lines that divides a chunk's extent, at least
	 * half as many as before, slices of one chunk column, dealt in runs of
	 * a chunk's lines or of a box's */
	int64_t ext = chunk && chunk[l.axis] < l.dim[l.axis] ? chunk[l.axis] : l.dim[l.axis];
	CHECK(!dist_slices_cut(&l) ||
	      (ext % l.lines_per_box == 0 && 2 * l.lines_per_box >= before &&
	       l.slice == chunk[l.ndim - 1] && (l.align == ext || l.align == l.lines_per_box)),
	      "cut boxes of %lld lines (%lld before) in slices %lld wide, dealt in runs of %lld",
	      (long long)l.lines_per_box, (long long)before, (long long)l.slice, (long long)l.align);
	int64_t total = volume(l.ndim, l.dim), cap = memory / 8;
	static unsigned char seen[1 << 16];
	bool small = total <= (int64_t)sizeof seen;
	if (small)
		memset(seen, 0, (size_t)total);
	int64_t covered = 0, boxes = 0, most = 0;
	int with_work = 0;
	for (int rank = 0; rank < nranks; rank++) {
		struct dist_walk w;
		dist_walk_start(&l, rank, &w);
		int64_t mine = 0, last = -1;
		for (int64_t b = 0; b < l.nboxes + 2; b++) {
			int64_t start[H5U_MAXDIM], count[H5U_MAXDIM];
			bool any = dist_walk_next(&w, start, count);
			CHECK(any == (b < l.nboxes && any), "rank %d: box %lld past nboxes %lld", rank,
			      (long long)b, (long long)l.nboxes);
			if (!any) {
				CHECK(volume(l.ndim, count) == 0, "an empty box with elements");
				check_slices(&l, chunk, start, count);
				continue;
			}
			boxes++;
			int64_t n = volume(l.ndim, count), at = 0;
			most = n > most ? n : most;
			CHECK(n <= cap || l.line > cap, "box of %lld elements over a cap of %lld", (long long)n,
			      (long long)cap);
			for (int i = 0; i < l.ndim; i++) {
				CHECK(start[i] >= 0 && start[i] + count[i] <= l.dim[i], "box outside the space");
				CHECK(i >= l.axis || count[i] == 1, "box cuts axis %d before the split axis", i);
				CHECK(i <= l.axis || (start[i] == 0 && count[i] == l.dim[i]), "box cuts axis %d after it", i);
				at = at * l.dim[i] + start[i];
			}
			CHECK(at > last, "rank %d: boxes out of C order", rank);
			/* chunk-aligned: a box holds whole chunks along the split axis
			 * (a cut box: a whole piece of one) */
			int64_t a = dist_slices_cut(&l) ? l.lines_per_box : l.align, s0 = start[l.axis],
				e0 = s0 + count[l.axis];
			CHECK(s0 % a == 0 && (e0 % a == 0 || e0 == l.dim[l.axis]),
			      "box [%lld, %lld) along axis %d cuts chunks of %lld", (long long)s0, (long long)e0,
			      l.axis, (long long)a);
			/* where dist_holds_chunks says so, each chunk lies in one box */
			int64_t ca = chunk ? chunk[l.axis] : 1;
			CHECK(!chunk || !dist_holds_chunks(&l, chunk) ||
			      (s0 % ca == 0 && (e0 % ca == 0 || e0 == l.dim[l.axis])),
			      "dist_holds_chunks, but box [%lld, %lld) along axis %d cuts chunks of %lld",
			      (long long)s0, (long long)e0, l.axis, (long long)ca);
			/* a cut box lies within one chunk along the split axis */
			CHECK(!dist_slices_cut(&l) || s0 / ca == (e0 - 1) / ca,
			      "cut box [%lld, %lld) along axis %d crosses chunks of %lld", (long long)s0,
			      (long long)e0, l.axis, (long long)ca);
			/* where dist_layout_runs says so, each part of a chunk is one run */
			CHECK(!chunk || !dist_layout_runs(&l, chunk) || parts_run(l.ndim, l.dim, chunk, start, count, 0, true),
			      "dist_layout_runs, but a box at axis %d [%lld, %lld) cuts a chunk in several runs",
			      l.axis, (long long)s0, (long long)e0);
			check_slices(&l, chunk, start, count);
			last = at;
			mine += n;
			if (small) {   /* C order: a box is the run [at, at + n) */
				for (int64_t k = at; k < at + n; k++) {
					CHECK(!seen[k], "element %lld in two boxes", (long long)k);
					seen[k] = 1;
				}
			}
		}
		/* a share is whole runs of align lines: a cut layout dealt in
		 * a chunk's runs gives no chunk to two ranks */
		int64_t first, count, c = l.dim[l.axis];
		dist_layout_share(&l, rank, &first, &count);
		CHECK(count == 0 || c == 0 || (first % c % l.align == 0 &&
					      ((first + count) % c % l.align == 0 || (first + count) % c == 0)),
		      "rank %d's share [%lld, +%lld) cuts runs of %lld lines", rank, (long long)first,
		      (long long)count, (long long)l.align);
		covered += mine;
		with_work += mine > 0;
		double fair = (double)total / nranks;
		CHECK(mine - fair <= 0.25 * fair || mine - fair <= 4096, "%d-d %lld elements, %d ranks: rank %d has %lld",
		      ndim, (long long)total, nranks, rank, (long long)mine);
		CHECK(fair - mine <= 0.25 * fair || fair - mine <= 4096, "%d-d %lld elements, %d ranks: rank %d has %lld",
		      ndim, (long long)total, nranks, rank, (long long)mine);
	}
	CHECK(covered == total, "%d-d: boxes cover %lld of %lld elements", ndim, (long long)covered, (long long)total);
	CHECK(boxes == l.total_boxes && (total == 0 || with_work == l.ranks_with_work),
	      "%lld boxes, %d ranks with work; the layout says %lld, %d", (long long)boxes, with_work,
	      (long long)l.total_boxes, l.ranks_with_work);
	for (int64_t k = 0; small && k < total; k++)
		CHECK(seen[k], "element %lld in no box", (long long)k);
	check_budget(&l, most);
}

/* A pass that lists its buffers (dist_cost_hold) -- two inputs and a result
 * of a box, two intermediates of a tile, an input held whole -- laid out
 * over SHAPE within MEMORY: the sum is the list's, and the budget holds
 * every box it walks. */
static void check_held(int ndim, const int64_t *dim, int nranks, int64_t memory)
{
	struct dist_cost c = { .memory = memory, .tile = 8192, .widest = 8 };
	static const struct { enum dist_hold how; int64_t bytes; } list[] = {
		{ DIST_PER_ELEM, 8 }, { DIST_PER_ELEM, 4 }, { DIST_PER_ELEM, 8 },
		{ DIST_PER_TILE, 8 }, { DIST_PER_TILE, 1 }, { DIST_FIXED, 3000 },
	};
	for (size_t i = 0; i < sizeof list / sizeof *list; i++)
		dist_cost_hold(&c, list[i].how, list[i].bytes);
	CHECK(c.fixed == 3000 && c.per_elem == 20 && c.per_tile == 9, "the sum of the list: %lld %lld %lld",
	      (long long)c.fixed, (long long)c.per_elem, (long long)c.per_tile);
	struct dist_layout l;
	struct err e = {0};
	if (dist_layout_make(ndim, dim, NULL, &c, H5U_MAXDIM, nranks, "w", &e, &l) < 0) {
		CHECK(memory < 3000 + 64 * 29, "%d-d, memory %lld refused: %s", ndim, (long long)memory, e.msg);
		return;
	}
	CHECK(!memcmp(&l.cost, &c, sizeof c), "the layout keeps another budget than it was given");
	int64_t most = 0, held = 0;
	for (int rank = 0; rank < nranks; rank++) {
		struct dist_walk w;
		int64_t start[H5U_MAXDIM], count[H5U_MAXDIM];
		dist_walk_start(&l, rank, &w);
		while (dist_walk_next(&w, start, count))
			most = volume(l.ndim, count) > most ? volume(l.ndim, count) : most;
	}
	for (size_t i = 0; i < sizeof list / sizeof *list; i++)
		held += list[i].bytes * dist_held_elems(&l, list[i].how);
	CHECK(held == dist_layout_bytes(&l), "the list holds %lld bytes, the layout says %lld",
	      (long long)held, (long long)dist_layout_bytes(&l));
	check_budget(&l, most);
}

/* Layouts over a grid of shapes, rank counts and budgets, unchunked and
 * chunked. */
static void check_layouts_grid(void)
{
	static const int64_t shapes[][4] = {
		{ 0 }, { 1, 1 }, { 1, 7 }, { 1, 70001 }, { 2, 5, 0 }, { 2, 0, 5 }, { 2, 2, 300000 },
		{ 3, 1, 200, 300 }, { 2, 3, 20000 }, { 2, 64, 32 }, { 3, 7, 3, 500 }, { 2, 13, 7 },
		{ 3, 1, 2000, 3000 }, { 2, 3, 1000000000 }, { 2, 4096, 4096 }, { 1, 1000000000 },
	};
	static const int64_t memories[] = { 8 * 64, 8 * 1000, 1 << 20, (int64_t)1 << 30 };
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
		for (int nranks = 1; nranks <= 5; nranks++)
			for (size_t m = 0; m < sizeof memories / sizeof *memories; m++) {
				int64_t total = volume((int)shapes[i][0], shapes[i] + 1);
				if (total / memories[m] > 4000)
					continue;   /* too many boxes to walk here */
				check_layout((int)shapes[i][0], shapes[i] + 1, NULL, nranks, memories[m], false);
				check_held((int)shapes[i][0], shapes[i] + 1, nranks, memories[m]);
			}
	/* chunked: the boxes follow the chunk grid */
	static const int64_t chunked[][2][4] = {
		{ { 2, 1000, 64 }, { 2, 256, 64 } }, { { 2, 13, 7 }, { 2, 4, 3 } },
		{ { 2, 64, 1000 }, { 2, 1, 100 } }, { { 3, 10, 40, 30 }, { 3, 1, 8, 30 } },
		{ { 3, 10, 40, 30 }, { 3, 2, 8, 30 } }, { { 1, 100000 }, { 1, 4096 } },
		/* chunk rows computed in slices, the last one narrower */
		{ { 2, 1280, 2100 }, { 2, 256, 40 } }, { { 3, 3, 600, 1000 }, { 3, 1, 256, 48 } },
		/* rows wider than a budget's chunk row: boxes that cut them, grown */
		{ { 2, 300, 4500 }, { 2, 128, 32 } }, { { 3, 2, 300, 4500 }, { 3, 1, 96, 64 } },
	};
	for (size_t i = 0; i < sizeof chunked / sizeof *chunked; i++)
		for (int nranks = 1; nranks <= 5; nranks++)
			for (size_t m = 0; m < sizeof memories / sizeof *memories; m++)
				for (int cut = 0; cut < 2; cut++)
					check_layout((int)chunked[i][0][0], chunked[i][0] + 1, chunked[i][1] + 1,
						     nranks, memories[m], cut);
}

/* W1's and W5's boxes: about 1 MiB of the widest array on one rank, 4 MiB
 * on several, whole chunk runs; the ops' intermediates a tile at a time. */
static void check_layouts_sized(void)
{
	int64_t w1[] = { 32768, 4096 }, c1[] = { 256, 64 };
	struct dist_layout al;
	struct err ae = {0};
	CHECK(layout(2, w1, c1, (int64_t)256 << 20, 0, 24, 8, 32, 2, "w", &ae, &al) == 0 &&
	      al.axis == 0 && al.align == 256 && al.lines_per_box == 256,
	      "W1's chunks (256, 64): axis %d, align %lld, %lld lines a box", al.axis, (long long)al.align,
	      (long long)al.lines_per_box);
	/* an elementwise pass's boxes stop at about 1 MiB of the widest array
	 * on one rank (W5: float32, W1: float64), 4 MiB on several (and
	 * whole chunk runs, above); a space of units' at about 4 MiB */
	CHECK(layout(2, w1, NULL, (int64_t)256 << 20, 0, 12, 4, 32, 1, "w", &ae, &al) == 0 &&
	      al.lines_per_box == 64, "(32768, 4096) float32: %lld lines a box", (long long)al.lines_per_box);
	CHECK(layout(2, w1, NULL, (int64_t)256 << 20, 0, 24, 8, 32, 1, "w", &ae, &al) == 0 &&
	      al.lines_per_box == 32, "(32768, 4096) float64: %lld lines a box", (long long)al.lines_per_box);
	CHECK(layout(2, w1, NULL, (int64_t)256 << 20, 0, 24, 8, 32, 2, "w", &ae, &al) == 0 &&
	      al.lines_per_box == 128, "(32768, 4096) float64 on 2 ranks: %lld lines a box",
	      (long long)al.lines_per_box);
	CHECK(layout(2, w1, c1, (int64_t)256 << 20, 0, 24, 8, 32, 1, "w", &ae, &al) == 0 &&
	      al.align == 256 && al.lines_per_box == 256, "W1's chunks on 1 rank: %lld lines a box",
	      (long long)al.lines_per_box);
	/* chunk rows wider than that are computed in slices of whole chunk
	 * columns: one on 1 rank (a 128 KiB chunk column, each chunk moved
	 * whole), about as large as a box on several: 2048 columns */
	CHECK(al.slice == 64 && dist_slices(&al) == 64, "W1's chunk rows (256, 4096): slices %lld wide",
	      (long long)al.slice);
	int64_t c16[] = { 256, 16 };   /* a 32 KiB chunk column: slices of 1 MiB again */
	CHECK(layout(2, w1, c16, (int64_t)256 << 20, 0, 24, 8, 32, 1, "w", &ae, &al) == 0 &&
	      al.slice == 512, "(32768, 4096) in (256, 16) on 1 rank: slices %lld wide", (long long)al.slice);
	int64_t w2[] = { 1024, 32768 };
	CHECK(layout(2, w2, c1, (int64_t)256 << 20, 0, 24, 8, 32, 2, "w", &ae, &al) == 0 &&
	      al.lines_per_box == 256 && al.slice == 2048,
	      "(1024, 32768) in (256, 64) on 2 ranks: %lld lines, slices %lld wide",
	      (long long)al.lines_per_box, (long long)al.slice);
	/* W1 on (8192, 32768) in (256, 64): the inputs and the result whole
	 * (24 bytes an element), the ops' intermediates a tile at a time (24
	 * more): whole chunk rows fit 256M, which they would not if every
	 * buffer grew with the box */
	int64_t w8[] = { 8192, 32768 };
	struct dist_cost tiles = { .memory = (int64_t)256 << 20, .per_elem = 24, .per_tile = 24,
				   .tile = 8192, .widest = 8 };
	CHECK(dist_layout_make(2, w8, c1, &tiles, 32, 1, "w", &ae, &al) == 0 && al.align == 256 &&
	      al.lines_per_box == 256, "(8192, 32768) by tiles: align %lld, %lld lines a box",
	      (long long)al.align, (long long)al.lines_per_box);
	CHECK(layout(2, w8, c1, (int64_t)256 << 20, 0, 48, 8, 32, 1, "w", &ae, &al) == 0 && al.align == 1,
	      "(8192, 32768) at 48 bytes an element: align %lld", (long long)al.align);
	/* the floor counts a tile's buffers at the box's size below a tile */
	tiles.memory = 64 * 48 - 1;
	CHECK(dist_layout_make(2, w8, NULL, &tiles, 32, 1, "w", &ae, &al) < 0 &&
	      !strcmp(ae.msg, "w: --memory 3071 bytes is too small for one block "
			      "(64 elements of every array need 3072 bytes)"), "tiles' floor: %s", ae.msg);
	int64_t units[] = { 100000 };
	CHECK(units_layout(1, units, 1024, (int64_t)256 << 20, 8 * 1024, 1, &ae, &al) == 0 &&
	      al.lines_per_box == 512,
	      "100000 units of 1024 float64: %lld a box", (long long)al.lines_per_box);
	/* a wide (768, 32768) float64 in (256, 64) under --memory 16M: boxes of
	 * 16 lines, runs of one chunk, on every rank count; dealt in a chunk's
	 * runs where three chunk rows go evenly (3 ranks), else in a box's.  At
	 * 256M three chunk rows do not deal evenly to 2 or 4 ranks: 128 and 64
	 * lines, as even */
	int64_t w768[] = { 768, 32768 };
	static const struct { int64_t memory; int nranks; int64_t lines, align; } cuts[] = {
		{ 16 << 20, 1, 16, 256 }, { 16 << 20, 2, 16, 16 }, { 16 << 20, 3, 16, 256 },
		{ 16 << 20, 4, 16, 16 }, { 256 << 20, 2, 128, 128 }, { 256 << 20, 4, 64, 64 },
	};
	for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
		tiles.memory = cuts[i].memory;
		CHECK(dist_layout_make(2, w768, c1, &tiles, 32, cuts[i].nranks, "w", &ae, &al) == 0, "%s", ae.msg);
		dist_cut_chunks(&al, c1);
		CHECK(dist_slices_cut(&al) && al.lines_per_box == cuts[i].lines && al.align == cuts[i].align &&
		      al.slice == 64, "(768, 32768) in (256, 64) at %lld MiB on %d ranks: %s boxes of %lld lines "
		      "dealt in runs of %lld, slices %lld wide", (long long)(cuts[i].memory >> 20), cuts[i].nranks,
		      dist_slices_cut(&al) ? "cut" : "uncut", (long long)al.lines_per_box, (long long)al.align,
		      (long long)al.slice);
	}
	/* chunks over two indices of an axis before the split one: not followed */
	int64_t f3[] = { 10, 40, 3000 }, c3[] = { 2, 8, 3000 };
	CHECK(layout(3, f3, c3, 8 * 10000, 0, 8, 8, 32, 2, "w", &ae, &al) == 0 && al.align == 1,
	      "chunks (2, 8, 3000) split along axis %d: align %lld", al.axis, (long long)al.align);
}

/* The floor (64 elements of every array, or whole rows) and its messages;
 * a space of units. */
static void check_layouts_floor(void)
{
	/* the floor: 64 elements of every array, whatever the shape */
	struct dist_layout l;
	struct err e = {0};
	int64_t wide[] = { 2, 16777216 };
	CHECK(layout(2, wide, NULL, 8 * 64, 0, 8, 8, 32, 2, "w", &e, &l) == 0 && l.axis == 1 &&
	      l.lines_per_box == 64, "(2, 16777216) at the floor: axis %d, %lld lines a box", l.axis,
	      (long long)l.lines_per_box);
	CHECK(layout(2, wide, NULL, 8 * 64 - 1, 0, 8, 8, 32, 2, "w", &e, &l) < 0 &&
	      !strcmp(e.msg, "w: --memory 511 bytes is too small for one block "
			     "(64 elements of every array need 512 bytes)"), "floor: %s", e.msg);
	struct err e2 = {0};
	CHECK(layout(2, wide, NULL, (int64_t)64 << 20, 0, 8, 8, 0, 2, "w", &e2, &l) < 0 &&
	      !strcmp(e2.msg, "w: --memory 67108864 bytes is too small for one block "
			      "(one row of every array needs 134217728 bytes)"), "whole rows: %s", e2.msg);
	int64_t field[] = { 1, 2000, 3000 };
	CHECK(layout(3, field, NULL, (int64_t)256 << 20, 0, 24, 8, 32, 2, "w", &e2, &l) == 0 &&
	      l.axis == 1 && l.ranks_with_work == 2, "(1, 2000, 3000) on 2 ranks: axis %d, %d with work",
	      l.axis, l.ranks_with_work);
	/* a space of units (a reduction's fixed pieces of 1024 elements): one
	 * unit is the floor, and shares are even by units' elements */
	int64_t pieces[] = { 2, 16384 }, few[] = { 1, 400 };
	CHECK(units_layout(2, pieces, 1024, 8 * 1024, 8 * 1024, 3, &e, &l) == 0 &&
	      l.axis == 1 && l.lines_per_box == 1 && l.ranks_with_work == 3,
	      "(2, 16384) pieces at one piece of budget: axis %d, %lld a box, %d with work", l.axis,
	      (long long)l.lines_per_box, l.ranks_with_work);
	CHECK(units_layout(2, pieces, 1024, 8 * 1024 - 1, 8 * 1024, 3, &e, &l) < 0,
	      "less than one piece of budget accepted");
	CHECK(units_layout(2, few, 600, (int64_t)256 << 20, 8 * 600, 3, &e2, &l) == 0 &&
	      l.axis == 1 && l.ranks_with_work == 3, "(1, 400) pieces of 600 on 3 ranks: axis %d, %d with work",
	      l.axis, l.ranks_with_work);
}

/* What a box across of S costs within MEMORY (8 bytes an element, 8 an
 * across element): its elements, each an along box and a carried value
 * (shared: and a rank's partial). */
static void check_stream_budget(const struct dist_stream *s, int64_t memory)
{
	int64_t per_across = dist_stream_along_elems(s) * 8 + (s->shared ? 16 : 8);
	CHECK(s->across.cost.memory == memory && s->across.cost.per_elem == per_across &&
	      dist_layout_bytes(&s->across) <= memory, "a box across holds %lld bytes of %lld (%lld each)",
	      (long long)dist_layout_bytes(&s->across), (long long)memory,
	      (long long)s->across.cost.per_elem);
	int64_t across = s->across.lines_per_box * s->across.line;
	CHECK(dist_stream_held_elems(s, DIST_PER_ACROSS) == across &&
	      dist_stream_held_elems(s, DIST_PER_ELEM) == across * dist_stream_along_elems(s) &&
	      dist_stream_bytes(s) == dist_layout_bytes(&s->across) && dist_stream_bytes(s) <= memory,
	      "a stream holds %lld bytes of %lld, its box across %lld", (long long)dist_stream_bytes(s),
	      (long long)memory, (long long)dist_layout_bytes(&s->across));
}

/* One stream being walked by check_stream: the array's extents, what the
 * boxes are checked against, and where the walk is. */
struct walk {
	const struct dist_stream *s;
	int n;                       /* the stream's axes */
	int64_t d[H5U_MAXDIM];       /* ... and extents */
	int64_t memory;
	bool pieces_last;
	const int64_t *runs;         /* the chunks each box meets in one run each (dist_stream_runs), or NULL */
	bool small;                  /* checked element by element (owner) */
	int64_t id;                  /* the next box's number */
	int64_t along_end;           /* shared: where the last rank's run along ended */
};

static int32_t owner[1 << 16];   /* a small array's elements: the box each is in, or -1 */

/* The NB elements of the box START/CNT are box W->id's, and in no other. */
static void own_box(const struct walk *w, const int64_t *start, const int64_t *cnt, int64_t nb)
{
	int64_t idx[H5U_MAXDIM] = {0};
	for (int64_t k = 0; k < nb; k++) {
		int64_t off = 0;
		for (int i = 0; i < w->n; i++)
			off = off * w->d[i] + start[i] + idx[i];
		CHECK(owner[off] < 0, "element %lld in two boxes", (long long)off);
		owner[off] = (int32_t)w->id;
		for (int i = w->n - 1; i >= 0 && ++idx[i] == cnt[i]; i--)
			idx[i] = 0;
	}
}

/* RANK's along boxes of the box across QO/QC, from FIRST on (COUNT of the
 * along space's elements, STREAM of it in all): in C order, each within
 * the budget.  Returns the elements they hold. */
static int64_t walk_along(struct walk *w, int rank, const int64_t *qo, const int64_t *qc,
			  int64_t first, int64_t count, int64_t stream)
{
	const struct dist_stream *s = w->s;
	struct dist_walk rw;
	dist_stream_along_start(s, rank, &rw);
	int64_t next = first, mine = 0;   /* the along space's next element, in C order */
	for (int64_t j = 0; j < s->along.nboxes; j++, w->id++) {
		int64_t ro[H5U_MAXDIM + 1], rc[H5U_MAXDIM + 1], start[H5U_MAXDIM], cnt[H5U_MAXDIM];
		if (!dist_walk_next(&rw, ro, rc)) {
			CHECK(s->shared, "along box %lld of %lld empty", (long long)j, (long long)s->along.nboxes);
			continue;
		}
		int64_t at = 0;
		for (int i = 0; i < s->along.ndim; i++)
			at = at * s->along.dim[i] + ro[i];
		CHECK(at == next, "along boxes out of C order: %lld, want %lld", (long long)at, (long long)next);
		next = at + volume(s->along.ndim, rc);
		dist_stream_box(s, qo, qc, ro, rc, start, cnt);
		int64_t nb = volume(w->n, cnt);
		int64_t bytes = 8 * nb + 8 * volume(s->across.ndim, qc);
		int64_t last = w->d[w->n - 1], piece = last < ITER_PIECE ? last : ITER_PIECE;
		CHECK(bytes <= w->memory || nb <= 64 || (w->pieces_last && nb <= piece),
		      "box of %lld bytes over a budget of %lld", (long long)bytes, (long long)w->memory);
		if (w->pieces_last && s->axis_along[w->n - 1] && !s->shared && nb > 0)
			CHECK(start[w->n - 1] % ITER_PIECE == 0 &&
			      (cnt[w->n - 1] % ITER_PIECE == 0 || start[w->n - 1] + cnt[w->n - 1] == last),
			      "the last axis cut inside a piece: %lld + %lld of %lld", (long long)start[w->n - 1],
			      (long long)cnt[w->n - 1], (long long)last);
		CHECK(!w->runs || nb == 0 || parts_run(w->n, w->d, w->runs, start, cnt, 0, true),
		      "dist_stream_runs, but an array box cuts a chunk in several runs");
		mine += nb;
		if (w->small && nb > 0)
			own_box(w, start, cnt, nb);
	}
	CHECK(next == first + count || stream == 0, "along boxes cover %lld of %lld",
	      (long long)(next - first), (long long)count);
	return mine;
}

/* RANK's boxes of the stream (STREAM elements along): a shared stream's
 * run along follows the last rank's.  Returns the elements they hold. */
static int64_t walk_rank(struct walk *w, int rank, int64_t stream)
{
	const struct dist_stream *s = w->s;
	struct dist_walk aw;
	dist_stream_across_start(s, rank, &aw);
	int64_t mine = 0, first = 0, count = volume(s->along.ndim, s->along.dim);
	if (s->shared) {
		dist_layout_share(&s->along, rank, &first, &count);
		first *= s->along.line;
		count *= s->along.line;
		CHECK(first == w->along_end, "rank %d's run along starts at %lld, not %lld", rank,
		      (long long)first, (long long)w->along_end);
		w->along_end = first + count;
	}
	for (int64_t b = 0; b < s->across.nboxes; b++) {
		int64_t qo[H5U_MAXDIM], qc[H5U_MAXDIM];
		if (dist_walk_next(&aw, qo, qc))
			mine += walk_along(w, rank, qo, qc, first, count, stream);
	}
	return mine;
}

/* Each chunk (CHUNK's extents) of the TOTAL elements in one box: every
 * element has its chunk's first one's box. */
static void check_chunk_boxes(const struct walk *w, const int64_t *chunk, int64_t total)
{
	int64_t idx[H5U_MAXDIM] = {0};
	for (int64_t k = 0; k < total; k++) {
		int64_t off = 0, first = 0;
		for (int i = 0; i < w->n; i++) {
			off = off * w->d[i] + idx[i];
			first = first * w->d[i] + idx[i] / chunk[i] * chunk[i];
		}
		CHECK(owner[off] == owner[first], "element %lld and its chunk's first in different boxes",
		      (long long)off);
		for (int i = w->n - 1; i >= 0 && ++idx[i] == w->d[i]; i--)
			idx[i] = 0;
	}
}

/* Stream SHAPE along the axes ALONG for NRANKS within MEMORY (8 bytes an
 * element, 8 an across element) and walk it; small arrays are checked
 * element by element.  ALIGNED: each chunk must lie in one box, and
 * dist_stream_holds_chunks say so; where it says so, each does.  Returns
 * whether it says so (-1: the budget refused). */
static int check_stream(int ndim, const int64_t *dim, const bool *along, const int64_t *chunk,
			bool pieces_last, bool may_share, int nranks, int64_t memory, bool aligned)
{
	struct dist_stream s;
	struct err e = {0};
	if (stream(ndim, dim, along, chunk, memory,
		   (pieces_last ? DIST_PIECES_LAST : 0) | (may_share ? DIST_MAY_SHARE : 0), nranks, &e,
		   &s) < 0) {
		CHECK(memory < 16 * 64 || (pieces_last && along[ndim - 1] &&
					   memory < 16 * (dim[ndim - 1] < ITER_PIECE ? dim[ndim - 1] : ITER_PIECE)),
		      "%d-d, memory %lld refused: %s", ndim, (long long)memory, e.msg);
		return -1;
	}
	bool holds = chunk && dist_stream_holds_chunks(&s, chunk);
	CHECK(holds || !aligned, "%d-d on %d ranks: chunks in one box each, dist_stream_holds_chunks says not",
	      ndim, nranks);
	check_stream_budget(&s, memory);
	struct walk w = { .s = &s, .n = s.ndim, .memory = memory, .pieces_last = pieces_last,
			  .runs = chunk && dist_stream_runs(&s, chunk) ? chunk : NULL };
	int64_t total = 1, stream = 1;
	for (int i = 0; i < w.n; i++) {
		w.d[i] = ndim ? dim[i] : 1;
		total *= w.d[i];
		if (s.axis_along[i])
			stream *= w.d[i];
	}
	w.small = total <= (int64_t)(sizeof owner / sizeof *owner);
	if (w.small)
		for (int64_t k = 0; k < total; k++)
			owner[k] = -1;
	int64_t covered = 0, across_total = volume(s.across.ndim, s.across.dim);
	CHECK(may_share || !s.shared, "shared without may_share");
	for (int rank = 0; rank < nranks; rank++) {
		int64_t mine = walk_rank(&w, rank, stream);
		covered += mine;
		double fair = (double)total / nranks, off = mine - fair;
		off = off < 0 ? -off : off;
		/* at most one run of lines off: across (dealt), or along (shared) */
		double run = s.shared ? (double)across_total * s.along.line * s.along.align
			: (double)stream * s.across.line * s.across.align;
		CHECK(off <= 0.25 * fair || off <= 4096 || off <= run || across_total < 4 * nranks,
		      "%d-d %lld elements, %d ranks: rank %d has %lld", ndim, (long long)total, nranks,
		      rank, (long long)mine);
	}
	CHECK(covered == total, "%d-d: boxes cover %lld of %lld elements", ndim, (long long)covered,
	      (long long)total);
	for (int64_t k = 0; w.small && k < total; k++)
		CHECK(owner[k] >= 0, "element %lld in no box", (long long)k);
	if (holds && w.small)
		check_chunk_boxes(&w, chunk, total);
	return holds;
}

/* Streams over a grid of shapes, axes along, rank counts and budgets;
 * the most axes; chunked. */
static void check_streams_grid(void)
{
	static const int64_t shapes[][5] = {
		{ 0 }, { 1, 7 }, { 1, 100003 }, { 2, 200000, 3 }, { 2, 3, 400000 }, { 3, 2, 1, 600000 },
		{ 3, 4, 300000, 3 }, { 2, 5, 0 }, { 2, 0, 5 }, { 4, 5, 7, 11, 13 }, { 2, 300, 200 },
		{ 3, 13, 7, 5 },
	};
	static const int64_t memories[] = { 16 * 64, 16 * 1000, 1 << 20, (int64_t)1 << 30 };
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
		int nd = (int)shapes[i][0];
		for (unsigned mask = 0; mask < (1u << nd) || (nd == 0 && mask == 0); mask++) {
			bool along[H5U_MAXDIM] = {0};
			for (int a = 0; a < nd; a++)
				along[a] = mask >> a & 1;
			for (int nranks = 1; nranks <= 4; nranks++)
				for (size_t m = 0; m < sizeof memories / sizeof *memories; m++)
					for (int whole = 0; whole < 2; whole++)
						for (int share = 0; share < 2; share++)
							check_stream(nd, shapes[i] + 1, along, NULL, whole, share,
								     nranks, memories[m], false);
		}
	}
	/* the most axes, every one along */
	int64_t many[H5U_MAXDIM];
	bool all[H5U_MAXDIM];
	for (int i = 0; i < H5U_MAXDIM; i++) {
		many[i] = i % 8 == 7 ? 2 : 1;
		all[i] = true;
	}
	for (int whole = 0; whole < 2; whole++)
		check_stream(H5U_MAXDIM, many, all, NULL, whole, whole, 3, 16 * 64, false);
	/* chunked: (2000, 300) in (100, 30) along axis 0, and across it */
	int64_t gz[] = { 2000, 300 }, gc[] = { 100, 30 };
	for (int nranks = 1; nranks <= 4; nranks++)
		for (int a = 0; a < 2; a++) {
			bool along[2] = { a == 0, a == 1 };
			check_stream(2, gz, along, gc, false, a == 0, nranks, 1 << 20, true);
		}
	int64_t f3[] = { 40, 30, 20 }, c3[] = { 1, 10, 20 };
	bool mid[] = { false, true, false };
	for (int nranks = 1; nranks <= 4; nranks++)
		for (int share = 0; share < 2; share++)
			check_stream(3, f3, mid, c3, false, share, nranks, 1 << 20, true);
}

/* dist_stream_holds_chunks over a ragged (1001, 37) in (64, 16), along
 * either axis, shared or not, on 1-6 ranks, under budgets that hold whole
 * chunks in a box and that do not: where it says so, each chunk lies in
 * one array box (check_stream); it says so, and not, somewhere. */
static void check_streams_hold_chunks(void)
{
	int64_t d[] = { 1001, 37 }, c[] = { 64, 16 };
	static const int64_t memories[] = { 16 * 64, 16 * 1000, 24 << 10, 100 << 10, 1 << 20 };
	int said[2] = {0};
	for (int a = 0; a < 2; a++) {
		bool along[2] = { a == 0, a == 1 };
		for (int nranks = 1; nranks <= 6; nranks++)
			for (size_t m = 0; m < sizeof memories / sizeof *memories; m++)
				for (int share = 0; share < 2; share++) {
					int h = check_stream(2, d, along, c, false, share, nranks, memories[m], false);
					if (h >= 0)
						said[h]++;
				}
	}
	CHECK(said[0] > 0 && said[1] > 0, "(1001, 37) in (64, 16): whole chunks in %d layouts, cut in %d",
	      said[1], said[0]);
}

/* The floor of a stream and its messages. */
static void check_streams_floor(void)
{
	/* the floor and its messages */
	struct dist_stream s;
	struct err e = {0}, e2 = {0};
	int64_t wide[] = { 3, 400000 };
	bool last[] = { false, true };
	CHECK(stream(2, wide, last, NULL, 16 * 64 - 1, 0, 2, &e, &s) < 0 &&
	      !strcmp(e.msg, "w: --memory 1023 bytes is too small for one block "
			     "(64 elements of every array need 1024 bytes)"), "floor: %s", e.msg);
	/* rows cut only between NumPy's pieces: one piece is the floor */
	CHECK(stream(2, wide, last, NULL, 16 * ITER_PIECE - 1, DIST_PIECES_LAST, 2, &e2, &s) < 0 &&
	      strstr(e2.msg, "too small for one block"), "one piece: %s", e2.msg);
	CHECK(stream(2, wide, last, NULL, 1 << 20, DIST_PIECES_LAST, 2, &e2, &s) == 0 &&
	      s.along.axis == 1 && dist_stream_along_elems(&s) % ITER_PIECE == 0,
	      "rows in pieces: along axis %d, boxes of %lld", s.along.axis,
	      (long long)dist_stream_along_elems(&s));
}

/* Narrow runs across never cut, and shared where dealing across would idle
 * ranks; wide rows across still cut. */
static void check_streams_narrow(void)
{
	struct dist_stream s;
	bool first[] = { true, false };
	/* (200000, 3) along axis 0 at 1 MiB on 4 ranks: the 3 columns are not
	 * cut (one rank reads whole rows, long blocks); shared, the rows are
	 * dealt to all 4 */
	int64_t tall[] = { 200000, 3 };
	struct err e3 = {0};
	CHECK(stream(2, tall, first, NULL, 1 << 20, 0, 4, &e3, &s) == 0 &&
	      !s.shared && dist_stream_ranks_with_work(&s) == 1 && s.across.total_boxes == 1 &&
	      dist_stream_along_elems(&s) >= 10000,
	      "(200000, 3) along axis 0: %d with work, %lld boxes, blocks of %lld",
	      dist_stream_ranks_with_work(&s), (long long)s.across.total_boxes,
	      (long long)dist_stream_along_elems(&s));
	CHECK(stream(2, tall, first, NULL, 1 << 20, DIST_MAY_SHARE, 4, &e3, &s) == 0 &&
	      s.shared && dist_stream_ranks_with_work(&s) == 4 && s.across.total_boxes == 1,
	      "(200000, 3) along axis 0, shared: %d with work, %lld boxes across",
	      dist_stream_ranks_with_work(&s), (long long)s.across.total_boxes);
	/* (4, 300000, 3) along axis 1 on 3 ranks: boxes of whole rows of 3,
	 * 2, 1 and 1 of them; shared, every rank within 25% */
	int64_t cube[] = { 4, 300000, 3 };
	bool mid1[] = { false, true, false };
	CHECK(stream(3, cube, mid1, NULL, 1 << 20, DIST_PIECES_LAST, 3, &e3, &s) == 0 &&
	      !s.shared && s.across.axis == 0 && dist_stream_ranks_with_work(&s) == 3,
	      "(4, 300000, 3) along axis 1: split across axis %d, %d with work", s.across.axis,
	      dist_stream_ranks_with_work(&s));
	CHECK(stream(3, cube, mid1, NULL, 1 << 20, DIST_PIECES_LAST | DIST_MAY_SHARE, 3, &e3, &s) == 0 &&
	      s.shared && dist_stream_ranks_with_work(&s) == 3,
	      "(4, 300000, 3) along axis 1, shared: %d with work", dist_stream_ranks_with_work(&s));
	/* wide enough rows across are still cut: (1000, 300) on 4 ranks */
	int64_t rows[] = { 1000, 300 };
	CHECK(stream(2, rows, first, NULL, 1 << 20, DIST_MAY_SHARE, 4, &e3, &s) == 0 &&
	      !s.shared && dist_stream_ranks_with_work(&s) == 4,
	      "(1000, 300) along axis 0: shared %d, %d with work", s.shared, dist_stream_ranks_with_work(&s));
}

/* Chunked streams: a reduction's boxes of whole chunk columns, a scan's of
 * whole rows. */
static void check_streams_chunked(void)
{
	struct dist_stream s;
	struct err e3 = {0};
	bool first[] = { true, false };
	/* a reduction of (8192, 32768) in chunks (256, 64) along axis 0: blocks
	 * of a chunk's 256 rows, boxes across of whole chunk columns, where
	 * 4 MiB of rows would cut every chunk in 16 */
	int64_t big[] = { 8192, 32768 }, bigc[] = { 256, 64 };
	CHECK(stream(2, big, first, bigc, (int64_t)256 << 20, DIST_CHUNK_BOXES, 1, &e3, &s) == 0 &&
	      dist_stream_along_elems(&s) == 256 &&
	      s.across.lines_per_box % 64 == 0 && dist_stream_holds_chunks(&s, bigc),
	      "(8192, 32768) in (256, 64) along axis 0: blocks of %lld, boxes of %lld across",
	      (long long)dist_stream_along_elems(&s), (long long)s.across.lines_per_box);
	CHECK(stream(2, big, first, bigc, (int64_t)256 << 20, 0, 1, &e3, &s) == 0 &&
	      dist_stream_along_elems(&s) == 256 && s.across.lines_per_box == 32768,
	      "a scan keeps its rows wide: blocks of %lld, %lld across",
	      (long long)dist_stream_along_elems(&s), (long long)s.across.lines_per_box);
	CHECK(stream(2, big, first, bigc, (int64_t)64 << 20, 0, 1, &e3, &s) == 0 &&
	      dist_stream_along_elems(&s) == 16 && s.across.lines_per_box == 32768 &&
	      !dist_stream_holds_chunks(&s, bigc),
	      "a scan whose budget does not hold whole chunk rows: blocks of %lld, %lld across",
	      (long long)dist_stream_along_elems(&s), (long long)s.across.lines_per_box);
}

/* ---- hold.h: one list, counted and allocated ---------------------------- */

/* A pass's buffers: two of a box, one across, one of a tile, one held
 * whole, one held elsewhere (no slot) and one of no bytes. */
struct listed {
	char *box;
	uint8_t *mask;
	double *across;
	char *tile, *whole, *none;
	struct hold hold;
};

static void list_buffers(struct listed *B, struct hold *h, bool stream)
{
	hold_buffer(h, DIST_PER_ELEM, 8, HOLD_SLOT(B, box));
	hold_buffer(h, DIST_PER_ELEM, 1, HOLD_SLOT(B, mask));
	hold_buffer(h, DIST_PER_ELEM, 2, NULL);
	hold_buffer(h, stream ? DIST_PER_ACROSS : DIST_PER_TILE, 8, HOLD_SLOT(B, across));
	if (!stream)
		hold_buffer(h, DIST_PER_TILE, 4, HOLD_SLOT(B, tile));
	hold_buffer(h, DIST_FIXED, 1000, HOLD_SLOT(B, whole));
	hold_buffer(h, DIST_PER_ELEM, 0, HOLD_SLOT(B, none));
}

/* The list over SHAPE (along ALONG: a stream) on NRANKS within MEMORY:
 * counted, laid out, allocated; what is held is what was counted, every
 * slot filled but the one of no bytes. */
static void check_hold(int ndim, const int64_t *dim, const bool *along, int nranks, int64_t memory)
{
	struct dist_cost c = { .memory = memory, .tile = 8192, .widest = 8 };
	struct hold h;
	struct dist_layout l;
	struct dist_stream st;
	struct err e = {0};
	hold_count(&h, &c);
	CHECK(hold_counting(&h), "a counting hold");
	list_buffers(NULL, &h, along != NULL);
	CHECK(c.fixed == 1000 && c.per_elem == 11 && c.per_tile + c.per_across == (along ? 8 : 12),
	      "the sum of the list: %lld %lld %lld %lld", (long long)c.fixed, (long long)c.per_elem,
	      (long long)c.per_tile, (long long)c.per_across);
	int rc = along ? dist_stream_make(ndim, dim, along, NULL, &c, 0, nranks, "w", &e, &st)
		       : dist_layout_make(ndim, dim, NULL, &c, H5U_MAXDIM, nranks, "w", &e, &l);
	if (rc < 0) {
		CHECK(memory < 1000 + 64 * 31, "%d-d, memory %lld refused: %s", ndim, (long long)memory, e.msg);
		return;
	}
	struct listed B;
	memset(&B, 0xff, sizeof B);
	if (along)
		hold_stream(&B.hold, &st);
	else
		hold_layout(&B.hold, &l);
	CHECK(!hold_counting(&B.hold), "an allocating hold");
	list_buffers(&B, &B.hold, along != NULL);
	hold_end(&B.hold);
	int64_t counted = along ? dist_stream_bytes(&st) : dist_layout_bytes(&l);
	CHECK(B.hold.held == counted && counted <= memory, "held %lld, counted %lld, budget %lld",
	      (long long)B.hold.held, (long long)counted, (long long)memory);
	CHECK(B.box && B.mask && B.across && B.whole && !B.none && (along || B.tile) &&
	      B.hold.nowned == (size_t)(along ? 4 : 5), "slots: %zu buffers", B.hold.nowned);
	int64_t elems = along ? dist_stream_held_elems(&st, DIST_PER_ELEM) : dist_held_elems(&l, DIST_PER_ELEM);
	memset(B.box, 1, (size_t)(8 * elems));   /* as large as the boxes (the sanitizers see) */
	memset(B.whole, 1, 1000);
	hold_free(&B.hold);
	CHECK(B.hold.nowned == 0 && !B.hold.owned, "hold_free leaves %zu", B.hold.nowned);
}

static void check_holds(void)
{
	static const int64_t shapes[][4] = { { 0 }, { 1, 70001 }, { 2, 5, 0 }, { 3, 40, 30, 20 } };
	static const int64_t memories[] = { 1000, 1000 + 64 * 31, 20000, 1 << 20 };
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
		int nd = (int)shapes[i][0];
		bool along[H5U_MAXDIM] = { nd > 1 };
		for (int nranks = 1; nranks <= 3; nranks++)
			for (size_t m = 0; m < sizeof memories / sizeof *memories; m++) {
				check_hold(nd, shapes[i] + 1, NULL, nranks, memories[m]);
				check_hold(nd, shapes[i] + 1, along, nranks, memories[m]);
			}
	}
	/* a stream keeps its fixed bytes beside its boxes */
	int64_t dim[] = { 1000, 100 };
	bool along[] = { true, false };
	struct dist_cost c = { .memory = 100000, .fixed = 60000, .per_elem = 8, .per_across = 8, .widest = 8 };
	struct dist_stream st;
	struct err e = {0};
	CHECK(dist_stream_make(2, dim, along, NULL, &c, 0, 1, "w", &e, &st) == 0 &&
	      dist_stream_bytes(&st) <= c.memory && dist_stream_bytes(&st) > c.fixed,
	      "a stream with 60000 fixed bytes of 100000 holds %lld", (long long)dist_stream_bytes(&st));
	c.fixed = 100000 - 64 * 16 + 1;
	CHECK(dist_stream_make(2, dim, along, NULL, &c, 0, 1, "w", &e, &st) < 0 &&
	      strstr(e.msg, "(64 elements of every array need 100001 bytes)"), "%s", e.msg);
}

int main(void)
{
	check_layouts_grid();
	check_layouts_sized();
	check_layouts_floor();
	check_streams_grid();
	check_streams_floor();
	check_streams_narrow();
	check_streams_chunked();
	check_streams_hold_chunks();
	check_holds();
	return check_done();
}
