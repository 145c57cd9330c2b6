/* cells.h - the fixed grid of a contraction, and the fixed tree its
 * partial sums combine by.
 *
 * A generalized ufunc's core is a contraction: C = A @ B, with A (n, k) and
 * B (k, m) for each index of the loop shape (contract.h).  Its results are
 * cut into cells of at most 64 x 64 (32 x 32 for complex128) and its
 * contraction into pieces of at most 128, both balanced, their sizes from the core
 * extents and the dtype alone.  A result cell is one block product per
 * piece, summed in order within a shard (a run of pieces); the shards'
 * sums combine by a binary tree over their positions.  So the grouping of
 * every sum depends on the shape alone: whichever rank computes which cell
 * and shard, and whatever --memory allows at once, the bits are the same.
 *
 * Pure arithmetic, no MPI, no allocation: the tree's stack lends out and
 * holds the caller's buffers and combines them with the caller's addition.  Not here:
 * the memory model and the boxes (contract_box.c, contract_layout.c), the block products
 * (loops_gemm.c).
 */
#ifndef H5UFUNC_CELLS_H
#define H5UFUNC_CELLS_H

#include <stdbool.h>
#include <stdint.h>

/* Shards at most: the tree has at most 4 levels, so a stack holds at most
 * 2 * 4 + 1 partial sums, one buffer more with the shard being summed. */
#define CELL_MAX_SHARDS 16
#define TREE_MAX_BUFFERS 10
/* Pieces a shard has at least, when there are enough. */
#define CELL_SHARD_PIECES 4

struct cell_grid {
	int64_t n, k, m;          /* core extents (1 where an operand has no such axis) */
	int64_t gn, gk, gm;       /* a cell's rows, a piece's length, a cell's columns */
	int64_t ni, nj, pieces;   /* cells along n and along m, pieces along k */
	int64_t shards;           /* runs of pieces summed in order; 1: no tree */
	int levels;               /* of the tree over the shards: ceil(log2(shards)) */
};

/* The grid of an (n, k) @ (k, m) contraction over elements of ELSIZE
 * bytes (the loop's dtype). */
void cell_grid_make(int64_t n, int64_t k, int64_t m, int elsize, struct cell_grid *g);
/* The first piece of shard S (S == shards: the number of pieces). */
int64_t cell_shard_start(const struct cell_grid *g, int64_t s);
/* Rows [*FIRST, *FIRST + *LEN) of EXTENT that the cells [INDEX, INDEX +
 * COUNT) of SIZE cover (the last cell may be shorter). */
void cell_span(int64_t extent, int64_t size, int64_t index, int64_t count, int64_t *first,
	       int64_t *len);
/* Buffers of partial sums a rank needs for G: the one a shard is summed
 * into, and those its tree's stack may hold, for runs of shards that start
 * at the first one, or (FROM_ANY_SHARD) anywhere. */
int cell_tree_buffers(const struct cell_grid *g, bool from_any_shard);

/* ---- the tree over the shards ----
 *
 * Node (level l, index a) sums shards [a * 2^l, (a + 1) * 2^l) that exist;
 * it is its children's sum, left + right, or its left child alone when the
 * right one lies past the last shard.  A stack takes the nodes of a run of
 * shards in order and sums siblings as soon as both are there; stacks of
 * consecutive runs, pushed in order onto the first, end as the root.
 */
struct tree_node {
	int level;
	int64_t index;
};

/* LEFT = LEFT + RIGHT (a partial sum's every accumulator). */
typedef void (*tree_add_fn)(char *left, const char *right, const void *ctx);

struct tree_stack {
	int64_t shards;
	int levels;
	int n;                                  /* nodes on the stack, bottom first */
	struct tree_node node[TREE_MAX_BUFFERS];
	char *data[TREE_MAX_BUFFERS];
	int nfree;                              /* buffers not in use */
	char *free[TREE_MAX_BUFFERS];
};

/* An empty stack for G's shards, lending out the NBUF (at most
 * TREE_MAX_BUFFERS) buffers BUF, which the caller owns. */
void tree_start(struct tree_stack *t, const struct cell_grid *g, char *const *buf, int nbuf);
/* A buffer to sum a node into before it is pushed; NULL when all are in
 * use (more than cell_tree_buffers() were needed: a caller's mistake). */
char *tree_buffer(struct tree_stack *t);
/* Push DATA (a buffer of tree_buffer), the sum of node ND: added into its
 * left sibling while that is the top, and so on up; buffers added into
 * others are lent out again. */
void tree_push(struct tree_stack *t, struct tree_node nd, char *data, tree_add_fn add,
	       const void *ctx);
/* The root's sum when the stack holds the whole tree, else NULL. */
char *tree_root(const struct tree_stack *t);

#endif
