/* dist.h - how rows are split over ranks and streamed in blocks.
 *
 * Pure arithmetic, no MPI: every rank can compute every rank's share, so
 * all ranks agree on how many collective calls a stage makes without
 * talking.  Rows are the first axis (a 0-d array is one row).  Each rank
 * owns one contiguous run of rows; the first (rows % ranks) ranks own one
 * more.  A rank streams its rows in blocks of at most rows_per_block rows.
 */
#ifndef H5UFUNC_DIST_H
#define H5UFUNC_DIST_H

#include <stdint.h>

#include "err.h"

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

#endif
