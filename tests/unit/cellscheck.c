/* cellscheck - asserts cells.h's contract (tests/67-gufunc.bats runs it):
 *  - cell_grid_make over extents and element sizes: the cells along rows
 *    and columns and the pieces along the contraction cover each extent
 *    exactly, all but the last of one size, none over the caps (64, or
 *    32 for 16-byte elements; pieces 128), balanced (no two differ by more
 *    than one); the shards split the pieces into contiguous runs of at
 *    least CELL_SHARD_PIECES, at most CELL_MAX_SHARDS of them; an empty
 *    contraction has no pieces and one shard;
 *  - the tree: for every number of shards up to CELL_MAX_SHARDS and every
 *    cut of them into runs (one to five ranks, every cut for up to four),
 *    each run's stack pushed in order onto the first run's gives the same
 *    grouping of the sums as one run of all shards (sums are written out
 *    as text, "((0+1)+2)"), the root is found only then, and no stack
 *    needs more buffers than cell_tree_buffers says (runs from the first
 *    shard: FROM_ANY_SHARD false).
 */
#include <stdio.h>
#include <string.h>

#include "cells.h"
#include "check.h"

#define TEXT 512

static void grid_checks(int64_t n, int64_t k, int64_t m, int elsize)
{
	struct cell_grid g;
	cell_grid_make(n, k, m, elsize, &g);
	int64_t side = elsize >= 16 ? 32 : 64;
	const int64_t ext[3] = { n, k, m }, size[3] = { g.gn, g.gk, g.gm }, cnt[3] = { g.ni, g.pieces, g.nj };
	for (int a = 0; a < 3; a++) {
		int64_t cap = a == 1 ? 128 : side, covered = 0, first, len;
		if (cnt[a] > 100000) {   /* the last cell only */
			cell_span(ext[a], size[a], cnt[a] - 1, 1, &first, &len);
			CHECK(first + len == ext[a] && len > 0 && size[a] <= cap, "axis %d of %lld", a,
			      (long long)ext[a]);
			continue;
		}
		for (int64_t i = 0; i < cnt[a]; i++) {
			cell_span(ext[a], size[a], i, 1, &first, &len);
			CHECK(first == covered && len > 0 && len <= cap, "(%lld,%lld,%lld) axis %d cell %lld",
			      (long long)n, (long long)k, (long long)m, a, (long long)i);
			CHECK(len >= size[a] - cnt[a], "(%lld,%lld,%lld) axis %d: cell %lld of %lld unbalanced",
			      (long long)n, (long long)k, (long long)m, a, (long long)i, (long long)len);
			covered += len;
		}
		CHECK(covered == ext[a], "(%lld,%lld,%lld) axis %d covers %lld", (long long)n, (long long)k,
		      (long long)m, a, (long long)covered);
	}
	CHECK(g.shards >= 1 && g.shards <= CELL_MAX_SHARDS, "%lld shards", (long long)g.shards);
	CHECK(cell_shard_start(&g, 0) == 0 && cell_shard_start(&g, g.shards) == g.pieces, "shard ends");
	for (int64_t s = 0; s < g.shards && g.shards > 1; s++)
		CHECK(cell_shard_start(&g, s + 1) - cell_shard_start(&g, s) >= CELL_SHARD_PIECES,
		      "k %lld: shard %lld short", (long long)k, (long long)s);
	CHECK((1 << g.levels) >= g.shards && (g.levels == 0 || (1 << (g.levels - 1)) < g.shards), "levels");
}

/* ---- the tree, with sums as text ---- */

static void add_text(char *left, const char *right, const void *ctx)
{
	char t[TEXT];
	(void)ctx;
	snprintf(t, sizeof t, "(%s+%s)", left, right);
	memcpy(left, t, TEXT);
}

struct pool {
	char text[TREE_MAX_BUFFERS][TEXT];
	char *buf[TREE_MAX_BUFFERS];
};

static void pool_start(struct pool *p, struct tree_stack *t, const struct cell_grid *g, int nbuf)
{
	for (int i = 0; i < TREE_MAX_BUFFERS; i++)
		p->buf[i] = p->text[i];
	tree_start(t, g, p->buf, nbuf);
}

/* Shards [FIRST, END) pushed onto T; false when a buffer was missing. */
static bool push_run(struct tree_stack *t, int64_t first, int64_t end)
{
	for (int64_t s = first; s < end; s++) {
		char *b = tree_buffer(t);
		if (!b)
			return false;
		snprintf(b, TEXT, "%lld", (long long)s);
		tree_push(t, (struct tree_node){ 0, s }, b, add_text, NULL);
	}
	return true;
}

/* The shards cut at CUT[0..NCUT) into runs: the root's text into OUT. */
static bool cut_sum(const struct cell_grid *g, const int64_t *cut, int ncut, char *out)
{
	struct pool p0, pr;
	struct tree_stack root, run;
	pool_start(&p0, &root, g, cell_tree_buffers(g, false));
	int64_t prev = 0;
	for (int r = 0; r <= ncut; r++) {
		int64_t end = r < ncut ? cut[r] : g->shards;
		if (r == 0) {
			if (!push_run(&root, 0, end))
				return false;
		} else {
			pool_start(&pr, &run, g, cell_tree_buffers(g, true));
			if (!push_run(&run, prev, end))
				return false;
			for (int i = 0; i < run.n; i++) {
				char *b = tree_buffer(&root);
				if (!b)
					return false;
				memcpy(b, run.data[i], TEXT);
				tree_push(&root, run.node[i], b, add_text, NULL);
			}
		}
		CHECK(!tree_root(&root) == (end < g->shards), "root found only at the end");
		prev = end;
	}
	snprintf(out, TEXT, "%s", tree_root(&root) ? tree_root(&root) : "(none)");
	return true;
}

static void tree_checks(int64_t shards)
{
	struct cell_grid g;
	cell_grid_make(1, shards * CELL_SHARD_PIECES * 128, 1, 8, &g);
	CHECK(g.shards == shards, "shards %lld from %lld pieces", (long long)g.shards, (long long)g.pieces);
	char whole[TEXT], text[TEXT];
	CHECK(cut_sum(&g, NULL, 0, whole), "%lld shards in one run: out of buffers", (long long)shards);
	for (int ncut = 1; ncut <= 4 && ncut < shards; ncut++) {
		int64_t cut[4];
		for (int i = 0; i < ncut; i++)
			cut[i] = i + 1;
		for (;;) {
			CHECK(cut_sum(&g, cut, ncut, text), "%lld shards, %d cuts: out of buffers", (long long)shards, ncut);
			CHECK(!strcmp(text, whole), "%lld shards cut at %lld...: %s, not %s", (long long)shards,
			      (long long)cut[0], text, whole);
			int i = ncut - 1;   /* the next cut: increasing positions in (0, shards) */
			while (i >= 0 && cut[i] == shards - ncut + i)
				i--;
			if (i < 0)
				break;
			cut[i]++;
			for (int j = i + 1; j < ncut; j++)
				cut[j] = cut[j - 1] + 1;
		}
	}
}

int main(void)
{
	const int64_t ext[] = { 0, 1, 2, 3, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 4096, 100000 };
	const int sizes[] = { 1, 4, 8, 16 };
	for (size_t a = 0; a < sizeof ext / sizeof *ext; a++)
		for (size_t b = 0; b < sizeof ext / sizeof *ext; b += 3)
			for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
				grid_checks(ext[a], ext[b], ext[(a + b) % (sizeof ext / sizeof *ext)], sizes[s]);
	grid_checks(5, 1 << 20, 7, 8);
	grid_checks(5, (int64_t)1 << 34, 7, 8);
	struct cell_grid g;
	cell_grid_make(4, 0, 5, 8, &g);
	CHECK(g.pieces == 0 && g.shards == 1, "an empty contraction: %lld pieces", (long long)g.pieces);
	for (int64_t shards = 1; shards <= CELL_MAX_SHARDS; shards++)
		tree_checks(shards);
	return check_done();
}
