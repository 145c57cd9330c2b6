/* distcheck - asserts dist.h's contract over a grid of shapes, rank counts
 * and block sizes (tests/52-unit.bats runs it):
 *  - the ranks' runs of rows tile [0, rows) in rank order, each rank's
 *    share within one row of the others', the first rows % ranks the longer;
 *  - every rank steps through the same number of blocks, the blocks of a
 *    rank tile its run in order, none over rows_per_block, and blocks past a
 *    rank's end (a rank with no rows included) are empty;
 *  - dist_block_units: the budget rule, the 2 GiB I/O cap, the 4 MiB block
 *    target, the cap at a rank's share, and its two messages.
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

int main(void)
{
	static const int64_t rows[] = { 0, 1, 2, 3, 4, 5, 7, 10, 13, 64, 100, 1001 };
	static const int64_t rpb[] = { 0, 1, 2, 3, 7, 1000 };
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
		for (int nranks = 1; nranks <= 6; nranks++)
			for (size_t j = 0; j < sizeof rpb / sizeof *rpb; j++)
				check_split(rows[i], nranks, rpb[j]);
	check_units();
	return check_done();
}
