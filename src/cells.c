/* cells.c - a contraction's fixed grid and the tree over its shards.  See
 * cells.h. */
#include <stddef.h>

#include "cells.h"

/* A cell's side and a piece's length at most.  The largest box, one cell
 * with its tree's buffers and one piece of each operand as stored and
 * packed, stays under 700 KiB whatever the shape, so any --memory from
 * 1M takes it.  OpenBLAS 0.3.21 (SkylakeX kernels), user seconds for
 * (4096, 4096) @ (4096, 256) float64: one dgemm 0.17; one call a 64 x 64
 * cell and piece of 128, operands in place, 0.22 (its small-matrix
 * kernel, taken while M N K <= 10^6); pieces of 256 or 384 0.23 to 0.25
 * (the packed kernel).  Calls over a row of cells reach one dgemm's rate
 * from pieces of 256, but OpenBLAS picks its kernel by a call's sizes,
 * and a call over several cells rounds otherwise than one a cell for
 * some sizes (calls of 1 to 700 rows by 1 to 700 columns by depths of 1
 * to 384, cut in cells of 64: 835 of 4804 shapes), so a call keeps to
 * one cell of the grid. */
#define CELL_SIDE 64
#define CELL_SIDE_WIDE 32   /* elements of 16 bytes (complex128) */
#define CELL_PIECE 128

/* EXTENT in parts of at most CAP, as even as whole numbers allow: the
 * size of a part, and how many. */
static void balance(int64_t extent, int64_t cap, int64_t *size, int64_t *count)
{
	*count = extent > 0 ? (extent + cap - 1) / cap : 0;
	*size = *count > 0 ? (extent + *count - 1) / *count : 1;
}

void cell_grid_make(int64_t n, int64_t k, int64_t m, int elsize, struct cell_grid *g)
{
	int64_t side = elsize >= 16 ? CELL_SIDE_WIDE : CELL_SIDE;
	g->n = n;
	g->k = k;
	g->m = m;
	balance(n, side, &g->gn, &g->ni);
	balance(m, side, &g->gm, &g->nj);
	balance(k, CELL_PIECE, &g->gk, &g->pieces);
	g->shards = g->pieces / CELL_SHARD_PIECES;
	if (g->shards > CELL_MAX_SHARDS)
		g->shards = CELL_MAX_SHARDS;
	if (g->shards < 1)
		g->shards = 1;
	g->levels = 0;
	while (((int64_t)1 << g->levels) < g->shards)
		g->levels++;
}

int64_t cell_shard_start(const struct cell_grid *g, int64_t s)
{
	return s * g->pieces / g->shards;
}

void cell_span(int64_t extent, int64_t size, int64_t index, int64_t count, int64_t *first,
	       int64_t *len)
{
	int64_t end = (index + count) * size;
	*first = index * size;
	if (*first > extent)
		*first = extent;
	*len = (end < extent ? end : extent) - *first;
}

int cell_tree_buffers(const struct cell_grid *g, bool from_any_shard)
{
	if (g->shards == 1)
		return 1;
	return (from_any_shard ? 2 * g->levels : g->levels + 1) + 1;
}

/* ---- the tree ---- */

void tree_start(struct tree_stack *t, const struct cell_grid *g, char *const *buf, int nbuf)
{
	t->shards = g->shards;
	t->levels = g->levels;
	t->n = 0;
	t->nfree = nbuf < TREE_MAX_BUFFERS ? nbuf : TREE_MAX_BUFFERS;
	for (int i = 0; i < t->nfree; i++)
		t->free[i] = buf[i];
}

char *tree_buffer(struct tree_stack *t)
{
	return t->nfree > 0 ? t->free[--t->nfree] : NULL;
}

void tree_push(struct tree_stack *t, struct tree_node nd, char *data, tree_add_fn add,
	       const void *ctx)
{
	for (;;) {
		const struct tree_node *top = t->n > 0 ? &t->node[t->n - 1] : NULL;
		bool right = nd.index & 1;
		if (right && top && top->level == nd.level && top->index == nd.index - 1) {
			char *left = t->data[--t->n];
			add(left, data, ctx);
			t->free[t->nfree++] = data;
			data = left;
		} else if (right || nd.level == t->levels ||
			   ((nd.index + 1) << nd.level) < t->shards) {
			break;   /* a right child, the root, or a left one whose sibling is to come */
		}
		/* the parent: the sum of both children, or of the left alone */
		nd.level++;
		nd.index >>= 1;
	}
	t->node[t->n] = nd;
	t->data[t->n++] = data;
}

char *tree_root(const struct tree_stack *t)
{
	if (t->n == 1 && t->node[0].level == t->levels && t->node[0].index == 0)
		return t->data[0];
	return NULL;
}
