/* dist_stream.c - streams: a reduction's or a scan's space cut into the
 * boxes across it, dealt to ranks, and the blocks along it each walks
 * (or the along space dealt and the across walked whole); which parts of
 * the chunks their boxes meet (dist_layout_runs, dist_stream_runs). */
#include <stdio.h>
#include <string.h>

#include "dist.h"
#include "dist_internal.h"
#include "iter.h"

#define NARROW_RUN 512   /* bytes: a rank's run of an array shorter than this is
			    not read as a strided box of its own (see below) */

/* The two spaces of a stream and what it costs, for stream_try. */
struct stream_spaces {
	int na, nr;                  /* axes across; axes along, the leading 1 included */
	int64_t ad[H5U_MAXDIM], ac[H5U_MAXDIM];              /* across: extents, chunks */
	int64_t rd[H5U_MAXDIM + 1], rc[H5U_MAXDIM + 1];      /* along */
	bool chunked;
	int64_t across, stream, least;   /* elements across, along; the shortest along box */
	struct dist_cost c;          /* the stream's (its target: bytes of the widest array
					boxes stop growing at) */
	int along_max;               /* the last axis along that may be cut */
	int64_t piece;               /* > 0: the last axis along is cut only at multiples
					of this many elements from its start */
	int64_t small_unit;          /* a line across holds this many elements */
	bool across_chunked;         /* the boxes across follow the chunk grid across */
};

/* L (an along space, one rank's) cut along its last axis in boxes of a
 * multiple of PIECE elements (at least one piece: L's boxes hold that
 * many), so that each box starts at a multiple of PIECE from its run's
 * start; boxes of whole runs are left as they are. */
static void whole_pieces(struct dist_layout *l, int64_t piece)
{
	int64_t n = l->lines_per_box;
	if (l->axis != l->ndim - 1 || n >= l->dim[l->axis] || n % piece == 0)
		return;
	l->lines_per_box = n > piece ? n / piece * piece : piece;
	l->align = 1;   /* the chunks' runs of lines are not followed */
	dist_count_boxes(l);
}

/* Lay out S's along and across spaces with along boxes of at most G
 * elements, shortened (halved) while the across boxes do not fit; the
 * across space is split at most at ACROSS_MAX.  SHARED: the along space
 * is dealt to the NRANKS ranks and the across space walked whole by each;
 * else the across space is dealt and the along space walked by each. */
static int stream_try(const struct stream_spaces *sp, int64_t g, int across_max, bool shared,
		      int nranks, const char *where, struct err *e, struct dist_stream *s)
{
	int64_t per_across = shared ? 2 * sp->c.per_across : sp->c.per_across;   /* and a rank's partial */
	for (;;) {
		struct err trial = {0};
		/* the along boxes count elements; the across ones are units of
		   an along box's elements */
		struct dist_cost ac = { .memory = g, .per_elem = 1, .unit = 1 };
		dist_layout_make(sp->nr, sp->rd, sp->chunked ? sp->rc : NULL, &ac, sp->along_max,
			     shared ? nranks : 1, where, &trial, &s->along);
		if (sp->piece > 0 && !shared)
			whole_pieces(&s->along, sp->piece);
		int64_t box = dist_stream_along_elems(s);
		bool last = g <= sp->least || g <= 1;
		struct dist_cost qc = { .memory = sp->c.memory, .fixed = sp->c.fixed, .per_elem = box * sp->c.per_elem + per_across,
					.widest = box * sp->c.widest, .target = sp->c.target,
					.unit = sp->small_unit };
		if (dist_layout_make(sp->na, sp->ad, sp->across_chunked ? sp->ac : NULL, &qc, across_max,
				 shared ? 1 : nranks, where, last ? e : &trial, &s->across) == 0) {
			s->shared = shared;
			return 0;
		}
		if (last)
			return -1;
		g = g / 2 > sp->least ? g / 2 : sp->least;
	}
}

int64_t dist_stream_most(const struct dist_stream *s)
{
	const struct dist_layout *l = s->shared ? &s->along : &s->across;
	int64_t most = 0, other = s->shared ? s->across.lines * s->across.line
		: s->along.lines * s->along.line;
	for (int r = 0; r < l->nranks; r++) {
		int64_t first, count;
		dist_layout_share(l, r, &first, &count);
		if (count * l->line * other > most)
			most = count * l->line * other;
	}
	return most;
}

bool dist_stream_uneven(const struct dist_stream *s)
{
	int nranks = dist_stream_nranks(s);
	int64_t total = s->across.lines * s->across.line * s->along.lines * s->along.line;
	if (nranks < 2 || total == 0)
		return false;
	double fair = (double)total / nranks, off = (double)dist_stream_most(s) - fair;
	return off > 0.25 * fair && off > SMALL_SHARE;
}

/* Errors (EXIT_USAGE, at WHERE) when SP's budget does not hold a box of
 * min(64, all of TOTAL) elements, or its shortest along box. */
static int stream_floor(const struct stream_spaces *sp, int64_t total, const char *where,
			struct err *e)
{
	int64_t least = total < FLOOR_ELEMS ? total : FLOOR_ELEMS;
	if (least < sp->least)
		least = sp->least;
	if (least < 1)
		least = 1;
	int64_t need = sp->c.fixed + least * (sp->c.per_elem + sp->c.per_across);
	if (!dist_over_io(&sp->c, least) && sp->c.memory >= need)
		return 0;
	int64_t fewest = sp->piece > 0 || least < FLOOR_ELEMS ? least : FLOOR_ELEMS;   /* a piece: no row */
	return dist_box_too_small(&sp->c, least, least, fewest, need, where, e);
}

/* The elements an along box of SP holds at most: as many as the budget
 * allows with a box across WIDTH wide (the runs across after the last axis
 * along); for a chunked array at least a chunk's extent along, so that
 * each chunk lies in one box: the box across narrower instead
 * (DIST_CHUNK_BOXES in HOW), or as wide, past the size boxes stop at (SP's
 * target raised), when the budget holds it. */
static int64_t along_length(struct stream_spaces *sp, int64_t width, unsigned how)
{
	int64_t per = sp->c.per_elem + sp->c.per_across, room = sp->c.memory - sp->c.fixed, cap = room / per;
	if (sp->c.widest > 0 && cap > BLOCK_TARGET / sp->c.widest)
		cap = BLOCK_TARGET / sp->c.widest;
	int64_t g = width > 0 ? cap / width : sp->stream, chunk_along = 1;
	for (int i = 1; sp->chunked && i < sp->nr; i++)
		chunk_along *= sp->rc[i] < sp->rd[i] ? sp->rc[i] : sp->rd[i];
	if (g < chunk_along && (how & DIST_CHUNK_BOXES) && chunk_along <= cap) {
		g = chunk_along;
	} else if (g < chunk_along && chunk_along * width <= room / per) {
		g = chunk_along;
		sp->c.target = chunk_along * width * (sp->c.widest > 0 ? sp->c.widest : 1);
	}
	if (g > sp->stream)
		g = sp->stream;
	if (g < sp->least)
		g = sp->least;
	return g > 1 ? g : 1;
}

int dist_stream_make(int ndim, const int64_t *dim, const bool *along, const int64_t *chunk,
		     const struct dist_cost *c, unsigned how, int nranks, const char *where,
		     struct err *e, struct dist_stream *s)
{
	bool pieces_last = how & DIST_PIECES_LAST, may_share = how & DIST_MAY_SHARE;
	memset(s, 0, sizeof *s);
	s->ndim = ndim > 0 ? ndim : 1;
	/* the two spaces, and the chunk grid over each */
	struct stream_spaces sp = { .nr = 1, .rd = {1}, .rc = {1}, .chunked = chunk != NULL,
				    .across_chunked = chunk != NULL, .c = *c };
	sp.c.target = BLOCK_TARGET;
	int64_t total = 1, inner = 1;   /* INNER: across extent after the last axis along */
	int inner_axes = 0;
	sp.across = 1;
	for (int i = 0; i < s->ndim; i++) {
		int64_t d = ndim > 0 ? dim[i] : 1, ch = chunk ? chunk[i] : 1;
		s->axis_along[i] = ndim > 0 && along[i];
		total *= d;
		if (s->axis_along[i]) {
			sp.rd[sp.nr] = d;
			sp.rc[sp.nr++] = ch;
			inner = 1;
			inner_axes = 0;
		} else {
			sp.ad[sp.na] = d;
			sp.ac[sp.na++] = ch;
			sp.across *= d;
			inner *= d;
			inner_axes++;
		}
	}
	sp.stream = 1;   /* elements along */
	for (int i = 1; i < sp.nr; i++)
		sp.stream *= sp.rd[i];
	/* the shortest along box: one piece of the last axis (a run no longer
	 * than one never cut) when it is cut only between pieces */
	bool pieces = pieces_last && s->axis_along[s->ndim - 1];
	bool whole = pieces && sp.rd[sp.nr - 1] <= ITER_PIECE;
	sp.piece = pieces && !whole ? ITER_PIECE : 0;
	sp.least = whole ? sp.rd[sp.nr - 1] : sp.piece ? ITER_PIECE : 1;
	if (stream_floor(&sp, total, where, e) < 0)
		return -1;
	int64_t g = along_length(&sp, inner < sp.across ? inner : sp.across, how);
	sp.along_max = whole ? sp.nr - 2 : H5U_MAXDIM;
	sp.small_unit = sp.stream > 0 ? sp.stream : 1;
	/* Narrow runs across: a box cut inside the axes across after the last
	 * axis along reads runs as short as the cut, one per element along,
	 * each a piece of a strided MPI-IO selection.  When an equal share of
	 * those axes is under NARROW_RUN bytes they are not cut: the axes
	 * before them are, or the whole space across is one box. */
	int across_max = H5U_MAXDIM;
	if (inner_axes > 0 && nranks > 1 && inner * (c->widest > 0 ? c->widest : 1) < NARROW_RUN * (int64_t)nranks)
		across_max = sp.na - inner_axes - 1 >= 0 ? sp.na - inner_axes - 1 : LAYOUT_WHOLE;
	if (stream_try(&sp, g, across_max, false, nranks, where, e, s) < 0) {
		if (across_max == H5U_MAXDIM)
			return -1;
		err_clear(e);   /* a budget too small for whole runs: cut them */
		across_max = H5U_MAXDIM;
		if (stream_try(&sp, g, across_max, false, nranks, where, e, s) < 0)
			return -1;
	}
	/* Read as the runs its boxes cut, the boxes across need not hold a
	 * chunk's lines (follow_chunks raises them to that when the budget
	 * holds it: 64 MiB of a wide array's input and as much of a scan's
	 * results a box, cold between the read and the write): boxes of the
	 * usual size, where every part of a chunk is then one run. */
	if ((how & DIST_CUT_RUNS) && sp.chunked) {
		struct stream_spaces loose = sp;
		struct dist_stream t = *s;
		struct err trial = {0};
		loose.across_chunked = false;
		if (stream_try(&loose, g, across_max, false, nranks, where, &trial, &t) == 0 &&
		    dist_stream_runs(&t, chunk))
			*s = t;
	}
	/* Dealing the space across leaves ranks idle or uneven: a fold that is
	 * exact in any grouping deals the space along instead, when that is
	 * more even and keeps every rank busy. */
	if (!may_share || nranks < 2 || total == 0)
		return 0;
	if (!dist_stream_uneven(s))
		return 0;
	int64_t most = dist_stream_most(s);
	struct dist_stream t = *s;
	struct err trial = {0};
	if (stream_try(&sp, g, across_max, true, nranks, where, &trial, &t) == 0 &&
	    t.along.ranks_with_work == nranks && dist_stream_most(&t) < most)
		*s = t;
	return 0;
}

int64_t dist_stream_along_elems(const struct dist_stream *s)
{
	const struct dist_layout *l = &s->along;
	return l->lines_per_box * l->line;
}

int64_t dist_stream_held_elems(const struct dist_stream *s, enum dist_hold how)
{
	int64_t across = s->across.lines_per_box * s->across.line;
	switch (how) {
	case DIST_PER_ELEM: return across * dist_stream_along_elems(s);
	case DIST_PER_ACROSS: return across;
	case DIST_PER_TILE: return 0;
	default: return 1;
	}
}

/* The across layout was sized (stream_try) by the stream's fixed bytes and,
 * an element across, its along box's elements' bytes and the value it
 * carries (a shared stream's, twice): what the stream holds. */
int64_t dist_stream_bytes(const struct dist_stream *s)
{
	return dist_layout_bytes(&s->across);
}

void dist_stream_across_start(const struct dist_stream *s, int rank, struct dist_walk *w)
{
	dist_walk_start(&s->across, s->shared ? 0 : rank, w);
}

void dist_stream_along_start(const struct dist_stream *s, int rank, struct dist_walk *w)
{
	dist_walk_start(&s->along, s->shared ? rank : 0, w);
}

/* CHUNK (of S's array) as chunks of its spaces: its extents across into
 * ACROSS, and along into ALONG after the along space's leading 1. */
static void stream_chunks(const struct dist_stream *s, const int64_t *chunk, int64_t *across,
			  int64_t *along)
{
	int na = 0, nr = 1;
	along[0] = 1;
	across[0] = 1;
	for (int i = 0; i < s->ndim; i++) {
		if (s->axis_along[i])
			along[nr++] = chunk[i];
		else
			across[na++] = chunk[i];
	}
}

/* A stream's array box is a box across times a box along, so it holds a
 * chunk whole when the box across holds the chunk's extents across and the
 * box along its extents along (after the along space's leading 1). */
bool dist_stream_holds_chunks(const struct dist_stream *s, const int64_t *chunk)
{
	int64_t across[H5U_MAXDIM], along[H5U_MAXDIM + 1];
	stream_chunks(s, chunk, across, along);
	return dist_holds_chunks(&s->across, across) && dist_holds_chunks(&s->along, along);
}

/* Does every share of L (of the ranks that walk it: rank 0's alone when
 * every rank WALKS the whole space, a stream's along not shared) begin
 * at a multiple of C along the split axis? */
static bool shares_aligned(const struct dist_layout *l, int64_t c, bool walks)
{
	int64_t d = l->dim[l->axis];
	for (int r = 0; r < (walks ? 1 : l->nranks) && d > 0; r++) {
		int64_t first, count;
		dist_layout_share(l, r, &first, &count);
		if (first % d % c)
			return false;
	}
	return true;
}

/* How the boxes of L (and their slices) meet a chunk of CHUNK along
 * each axis of L's space: ONE[i], in one index (or the chunk is one
 * wide); WHOLE[i], over the chunk's whole extent (the axis is whole in
 * every box, or cut in slices of whole chunk columns, or the chunk or the
 * axis is one wide).  The split axis is whole where its lines are dealt
 * in a chunk's runs and the boxes hold whole runs (dist_holds_chunks), or
 * where the shares begin at a chunk's edge (WALKS: see shares_aligned) and
 * the boxes are whole chunks' lines or the whole axis; else a rank's
 * share or a box cuts it. */
static void box_reach(const struct dist_layout *l, const int64_t *chunk, bool walks, bool *one,
		      bool *whole)
{
	int last = l->ndim - 1, a = l->axis;
	for (int i = 0; i < l->ndim; i++) {
		bool narrow = chunk[i] == 1 || l->dim[i] == 1;
		bool full = i > a && (i < last || l->slice <= 0 || l->slice % chunk[i] == 0);
		if (i == a && !l->cut)
			full = l->align == chunk[i] ||
			       ((l->lines_per_box % chunk[i] == 0 || l->lines_per_box >= l->dim[i]) &&
				shares_aligned(l, chunk[i], walks));
		one[i] = narrow || i < a || (i == a && l->lines_per_box == 1);
		whole[i] = narrow || full;
	}
}

/* Is every part of a chunk that a box meets one run of it, given how the
 * boxes meet the chunks along each of N axes (box_reach): one index
 * along the axes before some axis, whole along those after it? */
static bool reach_runs(int n, const bool *one, const bool *whole)
{
	int k = 0;
	while (k < n && one[k])
		k++;
	for (int i = k + 1; i < n; i++)
		if (!whole[i])
			return false;
	return true;
}

bool dist_layout_runs(const struct dist_layout *l, const int64_t *chunk)
{
	bool one[H5U_MAXDIM + 1], whole[H5U_MAXDIM + 1];
	box_reach(l, chunk, false, one, whole);
	return reach_runs(l->ndim, one, whole);
}

bool dist_stream_runs(const struct dist_stream *s, const int64_t *chunk)
{
	int64_t across[H5U_MAXDIM], along[H5U_MAXDIM + 1];
	bool qone[H5U_MAXDIM + 1], qwhole[H5U_MAXDIM + 1], rone[H5U_MAXDIM + 1], rwhole[H5U_MAXDIM + 1];
	bool one[H5U_MAXDIM], whole[H5U_MAXDIM];
	stream_chunks(s, chunk, across, along);
	box_reach(&s->across, across, false, qone, qwhole);
	box_reach(&s->along, along, !s->shared, rone, rwhole);
	for (int i = 0, a = 0, r = 1; i < s->ndim; i++) {
		bool al = s->axis_along[i];
		one[i] = al ? rone[r] : qone[a];
		whole[i] = al ? rwhole[r++] : qwhole[a++];
	}
	return reach_runs(s->ndim, one, whole);
}

int dist_stream_ranks_with_work(const struct dist_stream *s)
{
	return s->shared ? s->along.ranks_with_work : s->across.ranks_with_work;
}

int dist_stream_nranks(const struct dist_stream *s)
{
	return s->shared ? s->along.nranks : s->across.nranks;
}

void dist_stream_box(const struct dist_stream *s, const int64_t *qo, const int64_t *qc,
		     const int64_t *ro, const int64_t *rc, int64_t *start, int64_t *count)
{
	for (int i = 0, a = 0, r = 1; i < s->ndim; i++) {
		bool al = s->axis_along[i];
		start[i] = al ? ro[r] : qo[a];
		count[i] = al ? rc[r] : qc[a];
		if (al)
			r++;
		else
			a++;
	}
}
