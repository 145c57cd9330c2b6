/* dist.h - how work is split over ranks and streamed in blocks or boxes.
 *
 * Pure arithmetic, no MPI: every rank can compute every rank's share, so
 * all ranks agree on how many collective calls a stage makes without
 * talking.  Every pass is cut into boxes: an elementwise pass's index
 * space, a tree reduction's space of pieces (dist_layout_make), and
 * a scan's or a sequential reduction's array, as boxes across the axes it
 * keeps, each streamed along the axes it folds (dist_stream_make).
 */
#ifndef H5UFUNC_DIST_H
#define H5UFUNC_DIST_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "shape.h"   /* H5U_MAXDIM */

/* The error of a budget of MEMORY bytes too small for one block: "--memory
 * N bytes is too small for one block (WHY)" (1 byte), WHY formatted from
 * FMT; EXIT_USAGE at WHERE into E.  Returns -1. */
int dist_too_small(int64_t memory, const char *where, struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Bytes of the widest array at which blocks stop growing: larger ones only
 * cost page faults. */
#define DIST_BLOCK_BYTES ((int64_t)4 << 20)

/* ---- the budget: what a pass holds ----------------------------------------
 *
 * A pass lists the buffers it holds once (hold.h), and both the sizing of
 * its boxes and their allocation read that list: each buffer is held whole
 * (FIXED bytes) or grows with the box, by its elements (PER_ELEM bytes
 * each: the buffers of whole boxes), by a tile's (PER_TILE each: the
 * buffers a pass fills a tile at a time, TILE elements, or one line when a
 * line is longer, never more than the box) or, in a stream
 * (dist_stream_make), by its box across's (PER_ACROSS each: the values it
 * carries).  dist_cost_hold adds a buffer to the sum; the layout (a
 * stream's across one) keeps the sum it was sized by, dist_held_elems
 * (dist_stream_held_elems) says how many elements a buffer holds under it,
 * and dist_layout_bytes (dist_stream_bytes) what the pass holds in all,
 * which is never more than MEMORY, the budget.
 *
 * Beside the buffers: no array of a box (WIDEST bytes an element) reaches
 * 2 GiB in one I/O call; TARGET is the bytes of the widest array a box
 * stops growing at (0: about 1 MiB on one rank, 4 MiB on several).
 * UNIT > 0: the space's elements are units of UNIT elements each, such as
 * a reduction's pieces: a box holds at least one unit, not 64, boxes stop
 * growing at about 4 MiB, and shares are even when within 25% or 4096
 * elements' worth of units.  TWIN: the bytes of FIXED a rank holds for a
 * second unit (a piece where its share may begin inside one), which a
 * budget too small names apart.
 *
 * PER_ELEM_FRAC: DIST_FRAC'ths of a byte more an element, for buffers that
 * hold less than a byte an element (a result for every row of a box of
 * wide rows): a box of N elements holds N * PER_ELEM_FRAC / DIST_FRAC
 * bytes of them, rounded up.  A layout's cost only: no stream holds such
 * buffers.
 */
struct dist_cost {
	int64_t memory, fixed, per_elem, per_elem_frac, per_tile, tile, per_across, widest, target,
		unit, twin;
};

#define DIST_FRAC ((int64_t)1 << 16)

/* The bytes N elements hold by C's PER_ELEM and PER_ELEM_FRAC. */
int64_t dist_elem_bytes(const struct dist_cost *c, int64_t n);
/* The most elements whose PER bytes and FRAC DIST_FRAC'ths of a byte each
 * (rounded up in all) fit in AVAIL bytes (INT64_MAX when both are 0). */
int64_t dist_elems_within(int64_t avail, int64_t per, int64_t frac);

/* How a buffer grows with the box: held whole, by the box's elements, by
 * a tile's, or (a stream's) by the elements of its box across. */
enum dist_hold { DIST_FIXED, DIST_PER_ELEM, DIST_PER_TILE, DIST_PER_ACROSS, DIST_HOLDS };

/* Add a buffer of BYTES (DIST_FIXED) or BYTES an element (of a box, of a
 * tile, across) to C. */
void dist_cost_hold(struct dist_cost *c, enum dist_hold how, int64_t bytes);
/* Add to C a buffer of BYTES for every GROUP (> 0) elements of a box:
 * BYTES / GROUP an element, the part below a byte in PER_ELEM_FRAC. */
void dist_cost_hold_per(struct dist_cost *c, int64_t bytes, int64_t group);

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
 *
 * Such a box may be far larger than boxes stop growing at (a chunk row of
 * a wide array: 256 rows of 32768), and cold in the core's caches from the
 * read's gather out of HDF5's chunk cache to the write.  When the chunks
 * also cut the last axis (after the split one), SLICE is a width along it:
 * whole chunk columns, as many as make a box of about the size boxes stop
 * growing at (on one rank one column when it is large enough: its chunks
 * then lie whole in the slice, which moves them as stored); a pass may read and compute its box a slice (the box's
 * extents, the last one cut into runs of SLICE) at a time, each chunk
 * still in one slice.  0: the box is one slice.
 */
struct dist_layout {
	int ndim;                  /* of the space, at least 1 */
	int64_t dim[H5U_MAXDIM + 1];   /* (a stream's along space has one axis more) */
	int axis;                  /* the split axis */
	int64_t line;              /* elements of a line */
	int64_t lines;             /* in the space */
	int64_t lines_per_box;     /* >= 1, at most dim[axis]; a multiple of align,
				      or (cut) a number that divides it */
	int64_t align;             /* lines are dealt in runs of this many (a chunk's) */
	int64_t slice;             /* > 0: boxes may be computed in slices this wide
				      along the last axis (whole chunk columns) */
	bool cut;                  /* boxes are pieces of the chunks they cut
				      (dist_cut_chunks): slices of one chunk column */
	bool band;                 /* the budget pays for a slice, not a box: each
				      box is read, computed and written a slice at a
				      time (dist_band_chunks) */
	int nranks;
	int64_t nboxes;            /* boxes every rank steps through (the most any rank has) */
	int64_t total_boxes;       /* boxes of all ranks */
	int ranks_with_work;
	struct dist_cost cost;     /* the budget the boxes were sized by */
};

/* Lines of a tile of L (its cost's TILE elements, or one line when a line
 * is longer, never more than a box). */
int64_t dist_tile_lines(const struct dist_layout *l);
/* Elements of a buffer held HOW in a pass over L: 1 (DIST_FIXED: its bytes
 * are the buffer's), a box's most (a slice's, L's band), or a tile's
 * (none across: a layout carries nothing). */
int64_t dist_held_elems(const struct dist_layout *l, enum dist_hold how);
/* Bytes a pass over L holds: every buffer of its cost at its size; at most
 * the cost's memory. */
int64_t dist_layout_bytes(const struct dist_layout *l);

/* Lay out the space of NDIM extents DIM (an elementwise pass's, or a space
 * of units) for NRANKS ranks within the budget C; boxes stop growing at C's
 * target, or one chunk's run of lines when they follow the chunks.  The
 * split axis is at most MAX_AXIS (0 when something needs whole rows).
 * Errors (EXIT_USAGE, at WHERE) when the budget does not hold a box of
 * min(64, all) elements (one unit), or one line when MAX_AXIS forces
 * lines wider than that.  CHUNK (NULL: none) is the chunk shape (in units)
 * the boxes follow when they can. */
int dist_layout_make(int ndim, const int64_t *dim, const int64_t *chunk, const struct dist_cost *c,
		     int max_axis, int nranks, const char *where, struct err *e, struct dist_layout *l);

/* Does each chunk of CHUNK (a chunked array of L's space) lie whole in
 * one box of L, and in one of its slices? */
bool dist_holds_chunks(const struct dist_layout *l, const int64_t *chunk);
/* Does each box of L, or each of its slices where L->slice is set, hold
 * the chunks CHUNK whole and one after another in its buffer (C order), so
 * that each chunk is one run of the buffer and one run of the file?  Yes
 * when L holds them (dist_holds_chunks), they span every axis between the
 * split one and the last, and along the last span it or are as wide as a
 * slice. */
bool dist_chunks_in_runs(const struct dist_layout *l, const int64_t *chunk);
/* L, laid out for several ranks, is walked by ranks that each move the
 * chunks CHUNK (L's slices follow them) alone, as one process does (no
 * collective call a slice): its slices, where it has any, are one chunk
 * column when that is large enough, as on one process. */
void dist_slices_alone(struct dist_layout *l, const int64_t *chunk);
/* L has boxes that cut the chunks CHUNK along the split axis (the budget
 * holds no run of a chunk's lines, or whole runs would not deal evenly,
 * so L does not follow them) while the chunks also cut the last axis: each
 * box then crosses a row of chunks, reading a piece of each.  Its boxes
 * grow past the size they stop growing at to as many lines as the budget
 * holds, a number N that divides a chunk's extent along the split axis (so
 * that no box straddles a chunk), and L->slice becomes one chunk column: a
 * slice of a box is then one run of one chunk, read in one call (h5io.h).
 * On several ranks the lines are dealt in whole runs of a chunk's lines
 * when that keeps the shares even (so that no chunk is read by two ranks),
 * else in runs of N, and N is the largest that keeps them even; each
 * rank's boxes still lie within one chunk along the split axis.
 * Unchanged when it is not such a layout, or when no such number is at
 * least half its lines a box. */
void dist_cut_chunks(struct dist_layout *l, const int64_t *chunk);
/* dist_cut_chunks's boxes for a pass that reads, computes and writes
 * each box a slice at a time, so that its buffers hold one slice (L's
 * band): boxes of a chunk's lines where they deal evenly, else of the
 * most that divide them and do, and that the budget holds a slice of (one
 * chunk column), rather than a whole row's.  Each chunk's part of a box
 * is then one run of the chunk of a chunk's lines (W4 in place on (512,
 * 32768) float64 in (256, 64) chunks at --memory 16M: a run of 128 KiB,
 * where dist_cut_chunks's boxes of 16 lines make runs of 8 KiB).  Unchanged
 * when it is not such a layout. */
void dist_band_chunks(struct dist_layout *l, const int64_t *chunk);
/* L's boxes, of whole lines dealt one by one (not following chunks, not
 * in slices) and fewer than A, a chunk's extent along the split axis,
 * that does not divide by them, made of the most lines that divide A and
 * keep the shares even, when that is at least half as many: no box then
 * straddles two chunk rows (a chunk cache of one row serves a pass that
 * writes them in place, plan_layout.c).  Else unchanged. */
void dist_divide_chunk(struct dist_layout *l, int64_t a);
/* Are L's slices a box's pieces of the chunks it cuts (dist_cut_chunks)
 * rather than whole chunk columns? */
bool dist_slices_cut(const struct dist_layout *l);
/* Slices (see above) a box of L is computed in: 1 when L->slice is 0. */
int64_t dist_slices(const struct dist_layout *l);
/* Slice J of the box START/COUNT over L's space, into SSTART/SCOUNT; an
 * empty box's slices are empty. */
void dist_slice(const struct dist_layout *l, const int64_t *start, const int64_t *count, int64_t j,
		int64_t *sstart, int64_t *scount);

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

/* ---- streams: boxes across some axes, each walked along the others -----
 *
 * A scan or a reduction along some axes (ALONG) carries one value per
 * index of the other axes, the space across.  The space across is laid
 * out as above and dealt to the ranks; for each of its boxes, a rank walks
 * the whole space along (the axes along, after a leading axis of extent 1)
 * in boxes of its own, in C order, one rank's walk being every rank's.  So
 * every carried value sees its elements in C order, as NumPy folds them,
 * whatever the ranks and the budget.  An array box is an across box times
 * an along box; with a chunk shape, both follow the chunk grid when they
 * can, so that each chunk lies in one array box.
 *
 * Narrow runs: the axes across after the last axis along are cut only when
 * an equal share of them is at least 512 bytes; else the axes before them
 * are dealt, or the whole space across is one box of one rank, so that no
 * rank reads an array box as a strided selection of tiny runs.
 *
 * Shared: when dealing the space across leaves ranks idle or more than 25%
 * (4096 elements) off an equal share, and the fold is exact in any
 * grouping that keeps the order, the space along is dealt to the ranks in
 * contiguous runs instead, and every rank walks every box across over its
 * own run: the partial results of a box across are then combined in rank
 * order, which is the order along (a reduction's onto rank 0, a scan's
 * into each rank's carry-in).
 */
struct dist_stream {
	int ndim;                  /* of the array, at least 1 */
	bool axis_along[H5U_MAXDIM];  /* the axes along */
	bool shared;               /* the space along is dealt, the space across walked by all */
	struct dist_layout across; /* the axes not along, dealt to the ranks (shared: to one) */
	struct dist_layout along;  /* (1, the axes along), walked by every rank (shared: dealt) */
};

/* How a stream may be laid out (dist_stream_make's HOW, or'ed). */
enum dist_stream_how {
	DIST_PIECES_LAST = 1u << 0,  /* the last axis, when along, is cut only at
					multiples of ITER_PIECE from its start (a loop
					that folds each of NumPy's pieces in its own way) */
	DIST_MAY_SHARE = 1u << 1,    /* the fold is exact in any grouping: the stream may
					be shared */
	DIST_CHUNK_BOXES = 1u << 2,  /* each chunk in one array box even when that narrows
					the boxes across: the stream writes no array of its
					size (a reduction), whose rows would be cut too;
					else only when the budget holds boxes as wide */
	DIST_CUT_RUNS = 1u << 3      /* the array is read as the runs of its chunks that
					its boxes cut (h5io_read_run): boxes across of the
					usual size (about 4 MiB), not raised to runs of a
					chunk's lines, where each part of a chunk is then
					one run (dist_stream_runs) */
};

/* Lay out the array of NDIM extents DIM (0-d: (1,)) streamed along the axes
 * ALONG marks, for NRANKS ranks within C's memory: C's FIXED bytes are
 * held beside the boxes (a stream has no tiles), an array box element
 * costs C's PER_ELEM bytes, an across element its PER_ACROSS (the carried
 * value; shared, twice: what the reduction between ranks receives
 * beside), no array of a box (WIDEST bytes an element) reaches 2 GiB in
 * one I/O call and boxes stop growing at about 4 MiB of it.  Boxes are as
 * long along as the space across allows (and a chunk's extent along at
 * least: see DIST_CHUNK_BOXES), then as wide across as the budget allows.
 * Errors (EXIT_USAGE, at WHERE) when the memory does not hold a box of
 * min(64, all) elements (or one last-axis run). */
int dist_stream_make(int ndim, const int64_t *dim, const bool *along, const int64_t *chunk,
		     const struct dist_cost *c, unsigned how, int nranks, const char *where,
		     struct err *e, struct dist_stream *s);

/* Does each chunk of CHUNK (a chunked array of S's, S->ndim extents) lie
 * whole in one array box of S: its extents across in one box across (whole
 * runs of its lines dealt, dist_holds_chunks), its extents along in one box
 * along?  A shared stream's runs along are dealt so too, or it does not. */
bool dist_stream_holds_chunks(const struct dist_stream *s, const int64_t *chunk);

/* Is each part of a chunk of CHUNK (a chunked array of the space of L,
 * or of S's array, S->ndim extents) that a box of L (an array box of S)
 * meets one run of the chunk's bytes: one index along the axes before some
 * axis, the chunk whole along those after it (h5io_read_run reads it in
 * one call)?  Boxes of whole lines are; a stream's boxes across that cut
 * lines and chunks are not. */
bool dist_layout_runs(const struct dist_layout *l, const int64_t *chunk);
bool dist_stream_runs(const struct dist_stream *s, const int64_t *chunk);

/* Rank RANK's walks: through the boxes across (S->across.nboxes of them),
 * and for each, through the boxes along (S->along.nboxes); past the end
 * of what the rank has, the boxes are empty. */
void dist_stream_across_start(const struct dist_stream *s, int rank, struct dist_walk *w);
void dist_stream_along_start(const struct dist_stream *s, int rank, struct dist_walk *w);
/* Ranks that have elements to fold, of how many. */
int dist_stream_ranks_with_work(const struct dist_stream *s);
int dist_stream_nranks(const struct dist_stream *s);
/* The most elements any rank folds. */
int64_t dist_stream_most(const struct dist_stream *s);
/* Does some rank fold more than 25% (and 4096 elements) over an equal
 * share? */
bool dist_stream_uneven(const struct dist_stream *s);

/* The array box START/COUNT (S->ndim entries) that the across box QO/QC
 * and the along box RO/RC (over the along layout's space) make. */
void dist_stream_box(const struct dist_stream *s, const int64_t *qo, const int64_t *qc,
		     const int64_t *ro, const int64_t *rc, int64_t *start, int64_t *count);

/* The most elements an along box holds. */
int64_t dist_stream_along_elems(const struct dist_stream *s);
/* Elements of a buffer held HOW in a pass over S: 1 (DIST_FIXED), an
 * array box's most (DIST_PER_ELEM), a box across's (DIST_PER_ACROSS); no
 * tile. */
int64_t dist_stream_held_elems(const struct dist_stream *s, enum dist_hold how);
/* Bytes a pass over S holds: every buffer of its cost at its size, and a
 * shared stream's partials received beside its values across (once
 * more); at most the cost's memory. */
int64_t dist_stream_bytes(const struct dist_stream *s);

#endif
