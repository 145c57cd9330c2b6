/* foldcheck - asserts comm.h's folds in rank order, run under mpirun on
 * several rank counts (tests/52-unit.bats): comm_fold_before (an exclusive
 * scan) and comm_fold_to_root (a reduction onto rank 0) with a fold that
 * is associative but not commutative -- affine maps x -> a x + b composed
 * in rank order, with wrap-around, so any other order gives other values
 * -- over 1 to 5 values of 16 bytes; the scan again with some ranks
 * empty (the high ones, as ranks with no rows are, and every third one),
 * their buffers garbage that must not reach any rank.  Each rank checks its own result;
 * rank 0 prints "N checks, N failed" and every rank exits 1 on a failure.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "comm.h"

#define MOST 5

/* RIGHT = LEFT then RIGHT, for N maps (a, b) each. */
static void compose(const void *left, void *right, size_t n, const void *ctx)
{
	const uint64_t *l = left;
	uint64_t *r = right;
	(void)ctx;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = r[2 * i] * l[2 * i], b = r[2 * i] * l[2 * i + 1] + r[2 * i + 1];
		r[2 * i] = a;
		r[2 * i + 1] = b;
	}
}

/* Rank R's I-th map. */
static void map_of(int r, int i, uint64_t *m)
{
	m[0] = 3 + 2 * (uint64_t)r + (uint64_t)i * 0x9e3779b97f4a7c15u;
	m[1] = 7 * (uint64_t)r + 1 + (uint64_t)i;
}

/* Is rank R of RANKS empty in the scan HOW (0: none; 1: the upper half,
 * as ranks with no rows are; 2: every third rank from rank 1)? */
static bool empty_in(int how, int r, int ranks)
{
	return how == 1 ? r >= (ranks + 1) / 2 : how == 2 ? r % 3 == 1 : false;
}

/* The maps of ranks [0, UPTO) that are not empty in HOW composed in order,
 * I-th of each; how many there were. */
static int composed_of(int how, int ranks, int upto, int i, uint64_t *m)
{
	int took = 0;
	m[0] = 1;
	m[1] = 0;
	for (int r = 0; r < upto; r++) {
		if (empty_in(how, r, ranks))
			continue;
		uint64_t next[2];
		map_of(r, i, next);
		compose(m, next, 1, NULL);
		memcpy(m, next, sizeof next);
		took++;
	}
	return took;
}

/* The maps of ranks [0, UPTO) composed in order, I-th of each. */
static void composed(int upto, int i, uint64_t *m)
{
	m[0] = 1;
	m[1] = 0;
	for (int r = 0; r < upto; r++) {
		uint64_t next[2];
		map_of(r, i, next);
		compose(m, next, 1, NULL);
		memcpy(m, next, sizeof next);
	}
}

int main(int argc, char **argv)
{
	struct err e = {0};
	if (comm_init(true, &argc, &argv, &e) < 0)
		return 2;
	int me = comm_rank(), ranks = comm_size();
	for (int n = 1; n <= MOST; n++) {
		uint64_t v[2 * MOST], want[2];
		for (int i = 0; i < n; i++)
			map_of(me, i, v + 2 * i);
		comm_fold_before(v, n, 16, false, compose, NULL);
		for (int i = 0; i < n && me > 0; i++) {
			composed(me, i, want);
			CHECK(v[2 * i] == want[0] && v[2 * i + 1] == want[1],
			      "rank %d of %d, %d values: exclusive scan of value %d", me, ranks, n, i);
		}
		for (int how = 1; how <= 2; how++) {
			bool empty = empty_in(how, me, ranks);
			for (int i = 0; i < n; i++) {
				map_of(me, i, v + 2 * i);
				if (empty)   /* garbage: must never be folded in */
					v[2 * i] = v[2 * i + 1] = 0xdeadbeefu + (uint64_t)i;
			}
			uint64_t before[2 * MOST];
			memcpy(before, v, sizeof v);
			bool in = comm_fold_before(v, n, 16, empty, compose, NULL);
			for (int i = 0; i < n; i++) {
				int took = composed_of(how, ranks, me, i, want);
				CHECK(in == (took > 0), "rank %d of %d, empty ranks %d: said %d folded in, %d were",
				      me, ranks, how, (int)in, took);
				if (took > 0)
					CHECK(v[2 * i] == want[0] && v[2 * i + 1] == want[1],
					      "rank %d of %d, empty ranks %d, %d values: scan of value %d", me,
					      ranks, how, n, i);
				else
					CHECK(v[2 * i] == before[2 * i] && v[2 * i + 1] == before[2 * i + 1],
					      "rank %d of %d, empty ranks %d: its buffer changed with none before",
					      me, ranks, how);
			}
		}
		for (int i = 0; i < n; i++)
			map_of(me, i, v + 2 * i);
		comm_fold_to_root(v, n, 16, compose, NULL);
		for (int i = 0; i < n; i++) {
			uint64_t mine[2];
			map_of(me, i, mine);
			composed(ranks, i, want);
			if (me == 0)
				CHECK(v[2 * i] == want[0] && v[2 * i + 1] == want[1],
				      "%d ranks, %d values: reduction of value %d", ranks, n, i);
			else
				CHECK(v[2 * i] == mine[0] && v[2 * i + 1] == mine[1],
				      "rank %d of %d: its buffer changed by the reduction", me, ranks);
		}
	}
	int failed = check_failed;
	if (me == 0)
		failed = check_done();
	comm_finalize();
	return failed ? 1 : 0;
}
