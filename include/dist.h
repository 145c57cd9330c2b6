/* dist.h - how work is split over ranks and streamed in blocks or boxes.
 *
 * Pure arithmetic, no MPI: every rank can compute every rank's share, so
 * all ranks agree on how many collective calls a stage makes without
 * talking.  Two ways: rows (reductions) and boxes (elementwise passes and
 * scans, below).  Rows are the first axis (a 0-d array is one row).  Each
 * rank owns one contiguous run of rows; the first (rows % ranks) ranks own
 * one more.  A rank streams its rows in blocks of at most rows_per_block
 * rows.
 */
#ifndef H5UFUNC_DIST_H
#define H5UFUNC_DIST_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "recipe.h"   /* H5U_MAXDIM */

struct dist {
	int64_t rows;            /* of the whole array */
	int64_t first, count;    /* this rank's run */
	int64_t rows_per_block;  /* >= 1 */
	int64_t nblocks;         /* blocks every rank steps through (the most any rank has) */
};

/* How many units (rows, or a reduction's chunks) one block takes: as many
 * as MEMORY holds after FIXED bytes at PER_UNIT bytes each, but no I/O call
 * of 2 GiB or more and no more than about 4 MiB of the widest array (WIDEST
 * bytes a unit), and no more than a rank's share of UNITS over NRANKS.
 * Returns 0 with *OUT; else -1 with E set (EXIT_USAGE, at WHERE) when MEMORY
 * does not hold one UNIT ("one row of every array") or one unit's widest
 * array reaches 2 GiB. */
int dist_block_units(int64_t memory, int64_t fixed, int64_t per_unit, int64_t widest,
		     int64_t units, int nranks, const char *unit, const char *where,
		     struct err *e, int64_t *out);

/* Split ROWS over NRANKS; RANK's share, with blocks of ROWS_PER_BLOCK. */
void dist_make(int64_t rows, int nranks, int rank, int64_t rows_per_block, struct dist *d);
/* Block B of this rank: its first row and row count (0 past the rank's end). */
void dist_block(const struct dist *d, int64_t b, int64_t *first, int64_t *count);

/* ---- boxes: an n-d index space cut over as many axes as needed ----------
 *
 * The space (a 0-d one is (1,)) is seen as LINES: a line fixes every index
 * before the split axis and one index of it, and spans every axis after it.
 * The split axis is the first one whose line fits a box and is small enough
 * that one line more or less is within 25% of an equal share (or at most
 * 4096 elements).  The lines are dealt to the ranks in contiguous runs as
 * rows were (the first lines % ranks ranks own one more), and each rank
 * streams its run in boxes of at most lines_per_box lines that never cross
 * an index of an axis before the split one, so every box is a hyperslab
 * (1, ..., 1, n, d[axis+1], ...), contiguous in C order.
 *
 * Given the chunk shape of a chunked array of the space, the boxes follow
 * its grid when they can: when every chunk extent before the split axis is
 * 1, a chunk's run of lines (align) keeps the shares even and the budget
 * holds it, the lines are dealt in whole runs of align lines and the boxes
 * hold whole runs, so each chunk lies in one box of one rank.
 */
struct dist_layout {
	int ndim;                  /* of the space, at least 1 */
	int64_t dim[H5U_MAXDIM];
	int axis;                  /* the split axis */
	int64_t line;              /* elements of a line */
	int64_t lines;             /* in the space */
	int64_t lines_per_box;     /* >= 1, at most dim[axis]; a multiple of align */
	int64_t align;             /* lines are dealt in runs of this many (a chunk's) */
	int nranks;
	int64_t nboxes;            /* boxes every rank steps through (the most any rank has) */
	int64_t total_boxes;       /* boxes of all ranks */
	int ranks_with_work;
};

/* Lay out the space of NDIM extents DIM for NRANKS ranks within MEMORY
 * bytes, of which FIXED are taken and PER_ELEM a box element costs; no
 * array of a box (WIDEST bytes an element) reaches 2 GiB in one I/O call,
 * and boxes stop growing at about 4 MiB of it.  The split axis is at most
 * MAX_AXIS (0 when something needs whole rows).  Errors (EXIT_USAGE, at
 * WHERE) when MEMORY does not hold a box of min(64, all) elements, or one
 * line when MAX_AXIS forces lines wider than that.  CHUNK (NULL: none)
 * is the chunk shape the boxes follow when they can. */
int dist_layout_make(int ndim, const int64_t *dim, const int64_t *chunk, int64_t memory,
		     int64_t fixed, int64_t per_elem, int64_t widest, int max_axis, int nranks,
		     const char *where, struct err *e, struct dist_layout *l);

/* The same for a space of NDIM extents DIM whose elements are units of
 * UNIT elements each, PER_UNIT bytes (WIDEST bytes of the widest array),
 * such as a reduction's fixed pieces: a box holds at least one unit, not
 * 64, and shares are even when within 25% or 4096 elements' worth of units. */
int dist_layout_units(int ndim, const int64_t *dim, int64_t unit, int64_t memory,
		      int64_t fixed, int64_t per_unit, int64_t widest, int nranks,
		      const char *where, struct err *e, struct dist_layout *l);

/* Rank RANK's walk through its boxes: dist_walk_start, then dist_walk_next
 * L->nboxes times; past the rank's end (or a rank with no lines) the box is
 * empty (every count 0, START a valid index or 0). */
struct dist_walk {
	const struct dist_layout *l;
	int64_t at, end;           /* lines of this rank still to walk */
};
void dist_walk_start(const struct dist_layout *l, int rank, struct dist_walk *w);
/* The next box: START and COUNT over L's space (L->ndim entries).  Returns
 * false when it is empty. */
bool dist_walk_next(struct dist_walk *w, int64_t *start, int64_t *count);
/* The run of lines rank RANK owns. */
void dist_layout_share(const struct dist_layout *l, int rank, int64_t *first, int64_t *count);

#endif
