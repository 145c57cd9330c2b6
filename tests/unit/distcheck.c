/* distcheck - asserts dist.h's contract over a grid of shapes, rank counts
 * and block sizes (tests/52-unit.bats runs it):
 *  - the ranks' runs of rows tile [0, rows) in rank order, each rank's
 *    share within one row of the others', the first rows % ranks the longer;
 *  - every rank steps through the same number of blocks, the blocks of a
 *    rank tile its run in order, none over rows_per_block, and blocks past a
 *    rank's end (a rank with no rows included) are empty;
 *  - dist_block_units: the budget rule, the 2 GiB I/O cap, the 4 MiB block
 *    target, the cap at a rank's share, and its two messages;
 *  - dist_layout_make and the walks over a grid of shapes (1-D, 0-d, empty,
 *    a size-1 leading axis, wide rows, (1, 2000, 3000), (3, 10^9)), ranks
 *    and budgets: every rank walks the same number of boxes; the boxes of
 *    all ranks tile the index space exactly once, in C order per rank;
 *    each box is a hyperslab (1, ..., 1, n, d[axis+1], ...) within the
 *    budget; each rank's share is within 25% of an equal one or 4096
 *    elements; the counts check prints; the budget's floor and its message.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "dist.h"

static void check_split(int64_t rows, int nranks, int64_t rpb)
{
	int64_t next = 0, nblocks = -1;
	for (int rank = 0; rank < nranks; rank++) {
		struct dist d;
		dist_make(rows, nranks, rank, rpb, &d);
		CHECK(d.first == next, "rows %lld ranks %d rank %d: first %lld, want %lld",
		      (long long)rows, nranks, rank, (long long)d.first, (long long)next);
		int64_t want = rows / nranks + (rank < rows % nranks);
		CHECK(d.count == want, "rows %lld ranks %d rank %d: count %lld, want %lld",
		      (long long)rows, nranks, rank, (long long)d.count, (long long)want);
		CHECK(rank == 0 || d.nblocks == nblocks, "rows %lld ranks %d: rank %d has %lld blocks, rank 0 %lld",
		      (long long)rows, nranks, rank, (long long)d.nblocks, (long long)nblocks);
		nblocks = d.nblocks;
		int64_t at = d.first;
		for (int64_t b = 0; b < d.nblocks + 2; b++) {
			int64_t first, count;
			dist_block(&d, b, &first, &count);
			CHECK(count >= 0 && count <= d.rows_per_block, "block %lld of %lld rows", (long long)b,
			      (long long)count);
			if (count == 0)
				continue;
			CHECK(first == at && b < d.nblocks, "rows %lld ranks %d rank %d block %lld: first %lld, want %lld",
			      (long long)rows, nranks, rank, (long long)b, (long long)first, (long long)at);
			at = first + count;
		}
		CHECK(at == d.first + d.count, "rows %lld ranks %d rank %d: blocks end at %lld, run at %lld",
		      (long long)rows, nranks, rank, (long long)at, (long long)(d.first + d.count));
		next = d.first + d.count;
	}
	CHECK(next == rows, "rows %lld ranks %d: runs end at %lld", (long long)rows, nranks, (long long)next);
}

static void check_units(void)
{
	struct err e = {0};
	int64_t n = 0;
	/* 1000 bytes after 100 fixed, 100 a row: 9 rows, capped at a share of 10 rows over 2 ranks */
	CHECK(dist_block_units(1000, 100, 100, 100, 10, 2, "one row", "w", &e, &n) == 0 && n == 5,
	      "share cap: %lld", (long long)n);
	CHECK(dist_block_units(1000, 100, 100, 100, 100, 1, "one row", "w", &e, &n) == 0 && n == 9,
	      "budget: %lld", (long long)n);
	/* a row of 1 MiB: the 4 MiB target stops the block at 4 rows */
	CHECK(dist_block_units((int64_t)1 << 40, 0, 1 << 20, 1 << 20, 1000, 1, "one row", "w", &e, &n) == 0 &&
	      n == 4, "block target: %lld", (long long)n);
	/* no per-row cost: one block of the rank's share */
	CHECK(dist_block_units(1000, 10, 0, 0, 7, 3, "one row", "w", &e, &n) == 0 && n == 3,
	      "no per-row cost: %lld", (long long)n);
	/* no rows at all: still one row a block */
	CHECK(dist_block_units(1000, 0, 10, 10, 0, 4, "one row", "w", &e, &n) == 0 && n == 1,
	      "no rows: %lld", (long long)n);
	CHECK(e.status == 0, "no error expected: %s", e.msg);
	CHECK(dist_block_units(199, 100, 100, 100, 10, 1, "one row of every array", "step 1", &e, &n) < 0 &&
	      e.status == EXIT_USAGE &&
	      !strcmp(e.msg, "step 1: --memory 199 bytes is too small for one block "
			     "(one row of every array needs 200 bytes)"), "too small: %s", e.msg);
	struct err e2 = {0};
	int64_t huge = (int64_t)1 << 31;
	CHECK(dist_block_units(huge * 4, 0, huge, huge, 10, 1, "one row", "w", &e2, &n) < 0 &&
	      !strcmp(e2.msg, "w: a row of 2147483648 bytes is too large: no I/O call moves 2 GiB or more"),
	      "2 GiB row: %s", e2.msg);
}

static int64_t volume(int ndim, const int64_t *d)
{
	int64_t n = 1;
	for (int i = 0; i < ndim; i++)
		n *= d[i];
	return n;
}

/* Lay out SHAPE for NRANKS within MEMORY (8 bytes an element) and walk
 * every rank's boxes; small spaces are checked element by element. */
static void check_layout(int ndim, const int64_t *dim, const int64_t *chunk, int nranks,
			 int64_t memory)
{
	struct dist_layout l;
	struct err e = {0};
	if (dist_layout_make(ndim, dim, chunk, memory, 0, 8, 8, 32, nranks, "w", &e, &l) < 0) {
		CHECK(memory < 8 * 64, "%d-d, memory %lld refused: %s", ndim, (long long)memory, e.msg);
		return;
	}
	int64_t total = volume(l.ndim, l.dim), cap = memory / 8;
	static unsigned char seen[1 << 16];
	bool small = total <= (int64_t)sizeof seen;
	if (small)
		memset(seen, 0, (size_t)total);
	int64_t covered = 0, boxes = 0;
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
				continue;
			}
			boxes++;
			int64_t n = volume(l.ndim, count), at = 0;
			CHECK(n <= cap || l.line > cap, "box of %lld elements over a cap of %lld", (long long)n,
			      (long long)cap);
			for (int i = 0; i < l.ndim; i++) {
				CHECK(start[i] >= 0 && start[i] + count[i] <= l.dim[i], "box outside the space");
				CHECK(i >= l.axis || count[i] == 1, "box cuts axis %d before the split axis", i);
				CHECK(i <= l.axis || (start[i] == 0 && count[i] == l.dim[i]), "box cuts axis %d after it", i);
				at = at * l.dim[i] + start[i];
			}
			CHECK(at > last, "rank %d: boxes out of C order", rank);
			/* chunk-aligned: a box holds whole chunks along the split axis */
			int64_t a = l.align, s0 = start[l.axis], e0 = s0 + count[l.axis];
			CHECK(s0 % a == 0 && (e0 % a == 0 || e0 == l.dim[l.axis]),
			      "box [%lld, %lld) along axis %d cuts chunks of %lld", (long long)s0, (long long)e0,
			      l.axis, (long long)a);
			last = at;
			mine += n;
			if (small) {   /* C order: a box is the run [at, at + n) */
				for (int64_t k = at; k < at + n; k++) {
					CHECK(!seen[k], "element %lld in two boxes", (long long)k);
					seen[k] = 1;
				}
			}
		}
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
}

static void check_layouts(void)
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
				check_layout((int)shapes[i][0], shapes[i] + 1, NULL, nranks, memories[m]);
			}
	/* chunked: the boxes follow the chunk grid */
	static const int64_t chunked[][2][4] = {
		{ { 2, 1000, 64 }, { 2, 256, 64 } }, { { 2, 13, 7 }, { 2, 4, 3 } },
		{ { 2, 64, 1000 }, { 2, 1, 100 } }, { { 3, 10, 40, 30 }, { 3, 1, 8, 30 } },
		{ { 3, 10, 40, 30 }, { 3, 2, 8, 30 } }, { { 1, 100000 }, { 1, 4096 } },
	};
	for (size_t i = 0; i < sizeof chunked / sizeof *chunked; i++)
		for (int nranks = 1; nranks <= 5; nranks++)
			for (size_t m = 0; m < sizeof memories / sizeof *memories; m++)
				check_layout((int)chunked[i][0][0], chunked[i][0] + 1, chunked[i][1] + 1, nranks,
					     memories[m]);
	int64_t w1[] = { 32768, 4096 }, c1[] = { 256, 64 };
	struct dist_layout al;
	struct err ae = {0};
	CHECK(dist_layout_make(2, w1, c1, (int64_t)256 << 20, 0, 24, 8, 32, 2, "w", &ae, &al) == 0 &&
	      al.axis == 0 && al.align == 256 && al.lines_per_box == 256,
	      "W1's chunks (256, 64): axis %d, align %lld, %lld lines a box", al.axis, (long long)al.align,
	      (long long)al.lines_per_box);
	/* chunks over two indices of an axis before the split one: not followed */
	int64_t f3[] = { 10, 40, 3000 }, c3[] = { 2, 8, 3000 };
	CHECK(dist_layout_make(3, f3, c3, 8 * 10000, 0, 8, 8, 32, 2, "w", &ae, &al) == 0 && al.align == 1,
	      "chunks (2, 8, 3000) split along axis %d: align %lld", al.axis, (long long)al.align);
	/* the floor: 64 elements of every array, whatever the shape */
	struct dist_layout l;
	struct err e = {0};
	int64_t wide[] = { 2, 16777216 };
	CHECK(dist_layout_make(2, wide, NULL, 8 * 64, 0, 8, 8, 32, 2, "w", &e, &l) == 0 && l.axis == 1 &&
	      l.lines_per_box == 64, "(2, 16777216) at the floor: axis %d, %lld lines a box", l.axis,
	      (long long)l.lines_per_box);
	CHECK(dist_layout_make(2, wide, NULL, 8 * 64 - 1, 0, 8, 8, 32, 2, "w", &e, &l) < 0 &&
	      !strcmp(e.msg, "w: --memory 511 bytes is too small for one block "
			     "(64 elements of every array need 512 bytes)"), "floor: %s", e.msg);
	struct err e2 = {0};
	CHECK(dist_layout_make(2, wide, NULL, (int64_t)64 << 20, 0, 8, 8, 0, 2, "w", &e2, &l) < 0 &&
	      !strcmp(e2.msg, "w: --memory 67108864 bytes is too small for one block "
			      "(one row of every array needs 134217728 bytes)"), "whole rows: %s", e2.msg);
	int64_t field[] = { 1, 2000, 3000 };
	CHECK(dist_layout_make(3, field, NULL, (int64_t)256 << 20, 0, 24, 8, 32, 2, "w", &e2, &l) == 0 &&
	      l.axis == 1 && l.ranks_with_work == 2, "(1, 2000, 3000) on 2 ranks: axis %d, %d with work",
	      l.axis, l.ranks_with_work);
	/* a space of units (a reduction's fixed pieces of 1024 elements): one
	 * unit is the floor, and shares are even by units' elements */
	int64_t pieces[] = { 2, 16384 }, few[] = { 1, 400 };
	CHECK(dist_layout_units(2, pieces, 1024, 8 * 1024, 0, 8 * 1024, 8 * 1024, 3, "w", &e, &l) == 0 &&
	      l.axis == 1 && l.lines_per_box == 1 && l.ranks_with_work == 3,
	      "(2, 16384) pieces at one piece of budget: axis %d, %lld a box, %d with work", l.axis,
	      (long long)l.lines_per_box, l.ranks_with_work);
	CHECK(dist_layout_units(2, pieces, 1024, 8 * 1024 - 1, 0, 8 * 1024, 8 * 1024, 3, "w", &e, &l) < 0,
	      "less than one piece of budget accepted");
	CHECK(dist_layout_units(2, few, 600, (int64_t)256 << 20, 0, 8 * 600, 8 * 600, 3, "w", &e2, &l) == 0 &&
	      l.axis == 1 && l.ranks_with_work == 3, "(1, 400) pieces of 600 on 3 ranks: axis %d, %d with work",
	      l.axis, l.ranks_with_work);
}

int main(void)
{
	static const int64_t rows[] = { 0, 1, 2, 3, 4, 5, 7, 10, 13, 64, 100, 1001 };
	static const int64_t rpb[] = { 0, 1, 2, 3, 7, 1000 };
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
		for (int nranks = 1; nranks <= 6; nranks++)
			for (size_t j = 0; j < sizeof rpb / sizeof *rpb; j++)
				check_split(rows[i], nranks, rpb[j]);
	check_units();
	check_layouts();
	return check_done();
}
