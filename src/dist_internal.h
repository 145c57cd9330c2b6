/* dist_internal.h - what dist.c (boxes) and dist_stream.c (streams of
 * them) share. */
#ifndef H5U_DIST_INTERNAL_H
#define H5U_DIST_INTERNAL_H

#include "dist.h"

#define BLOCK_TARGET DIST_BLOCK_BYTES
#define FLOOR_ELEMS 64          /* the smallest box a budget must hold */
#define SMALL_SHARE 4096        /* a line this small never unbalances */
#define LAYOUT_WHOLE (-1)       /* a max_axis: the whole space is one box, rank 0's */

/* Does a box of N elements of C's widest array reach the I/O cap? */
bool dist_over_io(const struct dist_cost *c, int64_t n);

/* The error of a budget C whose boxes cannot hold LEAST elements (NEED
 * bytes) of lines of LINE elements: a line over the I/O cap, or the
 * budget too small for one row of every array (LEAST over FLOOR, the
 * fewest a box may hold) or for FLOOR elements of every array. */
int dist_box_too_small(const struct dist_cost *c, int64_t least, int64_t line, int64_t floor,
		       int64_t need, const char *where, struct err *e);

/* L's boxes counted: the most a rank walks, all ranks', and the ranks
 * with lines. */
void dist_count_boxes(struct dist_layout *l);

#endif
