/* contract_box.h - what contract_layout.c (the split) and contract.c (the
 * run) share, and nothing else may use: a box of result cells, what it
 * covers of each operand, which pieces a rank sums of it, and the memory
 * model.
 *
 * What a run holds, and what contract_layout counts: for the box of
 * result cells in flight, the partial sums (cell_tree_buffers of them,
 * one more on a shared run for what rank 0 receives), the result box in
 * the loop's dtype and, when the output's differs, cast; each operand's
 * hyperslab of the box for one step of pieces, as stored; and, for one
 * loop index and one piece, a cell of A and the box's cells of B, packed
 * as the block products read them (gemm.h) where the slab does not
 * already hold them so; in masked mode, the bytes of contract_mask.h.
 * One list of them (contract_box_buffers, hold.h) is what both count and
 * allocate, so what a run holds and what its boxes were sized by cannot
 * differ.
 *
 * Not here: choosing the boxes (contract_layout.c); reading, multiplying,
 * summing and writing them (contract.c).
 */
#ifndef H5UFUNC_CONTRACT_BOX_H
#define H5UFUNC_CONTRACT_BOX_H

#include <stddef.h>
#include <stdint.h>

#include "cells.h"
#include "contract.h"
#include "contract_mask.h"
#include "hold.h"

/* A box of cells, and what it covers. */
struct box {
	int64_t lo[H5U_MAXDIM], lc[H5U_MAXDIM];   /* the loop box */
	int64_t i0, ni, j0, nj;                   /* cells along rows, along columns */
	int64_t r0, nr, c0, nc;                   /* rows, columns */
	int64_t batch, cells;                     /* loop indexes, cells */
};

/* What a box holds: the sizes of the buffers that contract_layout weighs
 * and contract_run allocates (each_buffer). */
struct box_bytes {
	int64_t sums;        /* one partial sum of the box's cells */
	int64_t results;     /* elements of the result box */
	int64_t a, b;        /* the operands' hyperslabs of a step, as stored ... */
	int64_t na, nb;      /* ... and their elements */
	int64_t apack, bpack;   /* one cell of A's piece and the box's cells of B's, packed */
};

/* An operand's hyperslab of the current step, as stored. */
struct slab {
	int64_t start[H5U_MAXDIM], count[H5U_MAXDIM];
	ptrdiff_t stride[H5U_MAXDIM];   /* bytes, C order over COUNT */
	int row, depth;                 /* its axes of rows (or columns) and depth; -1: none */
	char *data;                     /* the slab: OWN, or the other operand's */
	char *own;
};

/* Everything a run holds, allocated before the first box. */
struct run {
	struct plan_step *s;
	const struct contract *c;
	int psize;                      /* bytes of a packed element */
	int64_t slot;                   /* elements of a cell's sum: gn x gm */
	struct slab a, b;
	char *apack, *bpack;
	int nbuf;
	char *buf[TREE_MAX_BUFFERS];    /* the partial sums */
	struct tree_stack tree;
	char *result, *conv;            /* the result box, in the loop's and the output's dtype */
	char **ops;                     /* the epilogue: op J's result (op 0's: RESULT) ... */
	char **cast;                    /* ... and its operand K cast, at J * RECIPE_MAXIN + K */
	struct box box;                 /* the box at hand */
	struct contract_masks mask;     /* masked mode's bytes (contract_mask.h) */
	struct hold hold;               /* every buffer above that the run allocated */
};

/* The box START/COUNT of C's cell space (loop..., ni, nj). */
void contract_box_of(const struct contract *c, const int64_t *start, const int64_t *count,
		     struct box *b);
/* Operand X's part of box B over the depth range [K0, K0 + NK): START and
 * COUNT over X's axes (all 0 when the box is empty; a 0-d result's one
 * element is COUNT[0], as stage.h counts it).  Returns its elements. */
int64_t contract_box_slab(const struct contract_axes *x, const struct box *b, int64_t k0,
			  int64_t nk, int64_t *start, int64_t *count);
/* The largest box any rank walks. */
void contract_box_largest(const struct contract *c, struct box *b);
/* The sizes of the buffers of S's box B that reads STEP pieces at once. */
void contract_box_bytes(const struct plan_step *s, const struct box *b, int64_t step,
			struct box_bytes *m);
/* The result box's buffers of S laid out as C, of N elements: in the
 * loop's dtype, cast to the output's, and the epilogue's results and
 * operands cast to its loops; into H with R's slots (R NULL: counting). */
void contract_result_buffers(const struct plan_step *s, const struct contract *c, int64_t n,
			     struct run *R, struct hold *h);
/* Every buffer a run of S laid out as C holds for a box of M's sizes: the
 * partial sums, the result box's, the operands' slabs and the packed
 * cells; into H with R's slots (R NULL: counting). */
void contract_box_buffers(const struct plan_step *s, const struct contract *c,
			  const struct box_bytes *m, struct run *R, struct hold *h);
/* The pieces [*FIRST, *FIRST + *COUNT) rank RANK sums: all of them, or on
 * a shared run its share of the shards, dealt in contiguous runs. */
void contract_rank_pieces(const struct contract *c, int rank, int64_t *first, int64_t *count);

#endif
