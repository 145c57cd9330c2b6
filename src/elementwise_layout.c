/* elementwise_layout.c - an elementwise step's memory model: what a run
 * holds, listed once (elementwise_each_buffer) for both the layout, which
 * counts it into the budget, and the loop (elementwise.c), which allocates
 * it; the slices of a box and the routes its chunks take; the boxes.  See
 * elementwise.h.
 */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "dist.h"
#include "elementwise_internal.h"
#include "h5io.h"
#include "hold.h"
#include "reduce.h"
#include "reducer.h"
#include "stage.h"

/* Elements per array in one tile: a box's ops run tile by tile, so that
 * the intermediates a tile passes from op to op stay in the core's cache. */
#define TILE_ELEMS 8192
/* A broadcast input is held whole up to this part of the budget. */
#define WHOLE_PART 8
/* HDF5's sieve buffer for contiguous datasets (H5Pset_sieve_buf_size's
 * default): a shorter run of a band's row is read around first. */
#define BAND_RUN ((int64_t)64 << 10)

bool elementwise_reads_whole(const struct plan_step *s, int k)
{
	const struct array *x = s->in[k];
	return x->kind != ARR_LITERAL && shape_size(&s->bshape[k]) < shape_size(&s->shape) &&
	       shape_size(&x->shape) * dtype_size(x->dtype) <= s->blocks.whole_limit;
}

/* ---- the memory model ------------------------------------------------- */

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* The chunk shape S's boxes follow: a chunked output's (compressed chunks
 * are then written by one rank each), else the first chunked input of the
 * result's whole shape; NULL when none is (or each is a selection). */
static const int64_t *pass_chunks(const struct plan_step *s)
{
	for (int k = 0; k < s->nout; k++) {
		const struct array *y = s->out[k];
		if (y->create && y->nchunk == s->shape.ndim && s->shape.ndim > 0)
			return y->chunk;
		if (!y->create && !y->selected && y->nstored == s->shape.ndim && s->shape.ndim > 0)
			return y->stored_chunk;
	}
	for (int k = 0; k < s->nin; k++) {
		const struct array *x = s->in[k];
		if (x->kind == ARR_DATASET && !x->selected && x->nstored == s->shape.ndim &&
		    s->shape.ndim > 0 && shape_equal(&x->shape, &s->shape))
			return x->stored_chunk;
	}
	return NULL;
}

/* Is op result SRC held for a whole box -- the step writes, shows or
 * reduces it, or it is where= or a mask -- rather than a tile? */
bool elementwise_whole_result(const struct plan_step *s, struct op_src src)
{
	for (int k = 0; k < s->nout; k++)
		if (src_equal(s->prog.out_src[k], src))
			return true;
	for (int k = 0; k < s->fused.nred; k++)
		if (src_equal(s->fused.red_src[k], src))
			return true;
	return (s->mask.has_where && src_equal(s->mask.where_src, src)) ||
	       (s->mask.masked && src_equal(s->mask.valid_src, src)) ||
	       ((s->mask.has_where || s->mask.masked) && src_equal(s->mask.print_src, src));
}

/* ---- slices of a box ------------------------------------------------- */

/* Does X (not NULL) have the chunks CHUNK of a space of NDIM axes? */
static bool in_chunks(const int64_t *x, const int64_t *chunk, int ndim)
{
	return x && memcmp(x, chunk, sizeof *chunk * (size_t)ndim) == 0;
}

/* Is output K of S written in the chunks CHUNK, uncompressed (each box of
 * a compressed output is a round of HDF5's collective calls)? */
static bool output_in_chunks(const struct plan_step *s, int k, const int64_t *chunk)
{
	const struct array *y = s->out[k];
	return in_chunks(stage_chunks(y), chunk, s->shape.ndim) &&
	       !(y->create ? y->compression.on : y->stored_filtered);
}

/* Slices of L (N in a box) whose results one process writes at a time
 * into S's outputs when every one is a contiguous dataset: a band whose
 * rows are runs of at least BAND_RUN bytes of each output, rather than the
 * whole box (tens of MiB of whole rows on a wide shape, cold by the time
 * the write copies them into the page cache).  Under MPI, or into chunks,
 * a band would cut what a box writes whole (ROMIO's data sieving reads
 * back around every run; a chunk would be written more than once): N. */
static int64_t write_band(const struct plan_step *s, const struct dist_layout *l, int64_t n)
{
	int64_t least = INT64_MAX;
	for (int k = 0; k < s->nout; k++) {
		const struct array *y = s->out[k];
		if (comm_mpi() || y->kind != ARR_DATASET || stage_chunks(y) ||
		    (y->create ? y->nchunk > 0 : y->nstored > 0))
			return n;
		least = dtype_size(y->dtype) < least ? dtype_size(y->dtype) : least;
	}
	int64_t run = l->slice * least, k = (BAND_RUN + run - 1) / run;
	return k < n ? k : n;
}

/* A box that follows the chunks may hold whole chunk rows, tens of MiB of
 * each array, walked cold by the read's gather out of HDF5's chunk cache,
 * the ops and the write; slices of whole chunk columns (dist.h) stay in
 * the core's caches.  S takes them when its boxes
 * are plain (no fused reduction, which folds whole boxes; no where= or
 * mask) and every input read by boxes is a dataset of its whole shape in
 * the chunks the slices follow (another would be read in short pieces of
 * its rows).  Outputs in those chunks are written a slice at a time;
 * otherwise the results are held at their place in a buffer of several
 * slices, so no op may take one in another dtype (its cast reads a tile's
 * elements contiguous): a band (write_band) when one process writes only
 * contiguous datasets, else the whole box.  Boxes that cut the chunks
 * (dist_slices_cut) write a slice at a time only into datasets written in
 * place by runs (by_runs: a slice is one pwritev of one run
 * of a chunk, where HDF5 would read and write the chunk whole), or when
 * the boxes are walked a chunk column at a time (elementwise_by_columns:
 * HDF5's cache then keeps the chunk until the column is done). */
int64_t elementwise_slices(const struct plan_step *s, int64_t *per_write)
{
	const struct dist_layout *l = &s->blocks.split;
	const int64_t *chunk = pass_chunks(s);
	int nd = s->shape.ndim;
	bool by_slice = true;
	*per_write = 1;
	if (l->slice == 0 || !chunk || s->fused.nred > 0 || s->mask.has_where || s->mask.masked ||
	    s->mask.out)
		return 1;
	for (int k = 0; k < s->nin; k++) {
		const struct array *x = s->in[k];
		if (x->kind != ARR_LITERAL && !elementwise_reads_whole(s, k) &&
		    !(in_chunks(stage_chunks(x), chunk, nd) && shape_equal(&x->shape, &s->shape)))
			return 1;
	}
	for (int k = 0; k < s->nout; k++)
		by_slice = by_slice && output_in_chunks(s, k, chunk) &&
			   (!dist_slices_cut(l) || s->out[k]->by_runs || s->blocks.by_columns);
	for (int j = 0; j < s->prog.nops && !by_slice; j++) {
		const struct plan_op *op = &s->prog.ops[j];
		for (int k = 0; k < op->nin; k++)
			if (src_is_result(op->src[k]) && elementwise_whole_result(s, op->src[k]) &&
			    elementwise_source_dtype(s, op->src[k]) != op->loop->types[k])
				return 1;
	}
	int64_t n = dist_slices(l);
	if (!by_slice)   /* a box that cuts the chunks is a few lines: written whole */
		*per_write = dist_slices_cut(l) ? n : write_band(s, l, n);
	return n;
}

/* Does S read X, an input of its whole shape in the chunks CHUNK, in the
 * slices of boxes that cut them (dist_cut_chunks), each slice one run of
 * one chunk? */
static bool reads_cut_runs(const struct plan_step *s, const struct array *x, const int64_t *chunk)
{
	int64_t per_write;
	const int64_t *pass = pass_chunks(s);
	return dist_slices_cut(&s->blocks.split) && pass && in_chunks(chunk, pass, s->shape.ndim) &&
	       shape_equal(&x->shape, &s->shape) && elementwise_slices(s, &per_write) > 1;
}

bool elementwise_reads_chunks(const struct plan_step *s, int k)
{
	const struct array *x = s->in[k];
	const int64_t *chunk = stage_chunks(x);
	return x->kind == ARR_LITERAL || elementwise_reads_whole(s, k) ||
	       (chunk && shape_equal(&x->shape, &s->shape) &&
		(dist_holds_chunks(&s->blocks.split, chunk) || reads_cut_runs(s, x, chunk)));
}

bool elementwise_cut_read_alone(const struct plan_step *s)
{
	if (!dist_slices_cut(&s->blocks.split))
		return true;
	for (int k = 0; k < s->nin; k++) {
		const struct array *x = s->in[k];
		if (x->kind != ARR_LITERAL && !elementwise_reads_whole(s, k) &&
		    !(x->kind == ARR_DATASET && (x->file->read_alone || x->alone)))
			return false;
	}
	return true;
}

/* Does S, on several ranks, move its slices with no collective call:
 * every input it reads box by box in a file each rank reads alone
 * (plan_file's read_alone) or moved alone (array's alone), and its results
 * written a box at a time or each into a dataset moved alone?  N: the
 * slices of its box. */
static bool slices_alone(const struct plan_step *s, int64_t *n)
{
	int64_t per_write;
	*n = s->blocks.split.nranks < 2 ? 1 : elementwise_slices(s, &per_write);
	if (*n < 2)
		return false;
	for (int k = 0; k < s->nout; k++)
		if (per_write < *n && !s->out[k]->alone)   /* a slice's results: a round of collective calls */
			return false;
	for (int k = 0; k < s->nin; k++) {
		const struct array *x = s->in[k];
		if (x->kind != ARR_LITERAL && !elementwise_reads_whole(s, k) && !x->file->read_alone &&
		    !x->alone)
			return false;
	}
	return true;
}

void elementwise_slices_alone(struct plan_step *s)
{
	int64_t n;
	if (slices_alone(s, &n))
		dist_slices_alone(&s->blocks.split, pass_chunks(s));
}

bool elementwise_moves_runs(const struct plan_step *s, const struct array *x)
{
	const int64_t *chunk = pass_chunks(s);
	struct dist_layout l = s->blocks.split;
	int64_t per_write = 1, n = 1;
	bool out = false;
	if (!chunk || !in_chunks(stage_chunks(x), chunk, s->shape.ndim) || !shape_equal(&x->shape, &s->shape))
		return false;
	for (int k = 0; k < s->nout; k++)
		out = out || s->out[k] == x;
	if (slices_alone(s, &n))
		dist_slices_alone(&l, chunk);
	if (n > 1)
		elementwise_slices(s, &per_write);
	if (n < 2 || (out && per_write > 1))
		l.slice = 0;   /* moved a box at a time */
	return dist_chunks_in_runs(&l, chunk);
}

/* ---- what a run holds ------------------------------------------------- */



/* The input of S that its boxes may read as its chunks (stage_read_chunks),
 * or -1: S is a pass of one input that only feeds reductions (a host of
 * grouped reductions, fuse.c), each a chain that folds it, unmasked and in
 * its own dtype, so each takes its runs copied out of the chunks
 * (reducer_box_chunked), and no op nor write needs the box gathered; and
 * the input may be read so under the budget MEMORY (stage_chunked_reads). */
int elementwise_chunk_input(const struct plan_step *s, int64_t memory)
{
	if (s->prog.nops > 0 || s->nout > 0 || s->fused.nred == 0 || s->nin != 1 ||
	    !stage_chunked_reads(s->in[0], s->in[0]->dtype, memory))
		return -1;
	for (int k = 0; k < s->fused.nred; k++) {
		const struct plan_step *r = s->fused.red[k];
		struct op_src src = s->fused.red_src[k];
		if (r->fold.mode != REDUCE_CHAIN || r->mask.masked || src_is_result(src) || src.input != 0 ||
		    elementwise_source_dtype(s, src) != r->loop->types[1])
			return -1;
	}
	return elementwise_reads_whole(s, 0) ? -1 : 0;
}

/* Bytes of the buffer of S's input 0 through which a box of one chunk
 * row folds into S's reductions by bands, on NRANKS ranks within MEMORY:
 * one process, the input read as its chunks (elementwise_chunk_input),
 * reductions that fold so (reducer_band_bytes); else 0. */
static int64_t band_bytes(const struct plan_step *s, int nranks, int64_t memory)
{
	if (nranks != 1 || elementwise_chunk_input(s, memory) != 0)
		return 0;
	return reducer_band_bytes(s->fused.red, s->fused.nred, s->in[0]);
}

int64_t elementwise_band_bytes(const struct plan_step *s, int k)
{
	const struct dist_layout *l = &s->blocks.split;
	return s->blocks.bands && k == 0 ? band_bytes(s, l->nranks, l->cost.memory) : 0;
}

/* The inputs' buffers on NRANKS ranks: each held whole, or its part of a
 * box (or of its band). */
static void input_buffers(const struct plan_step *s, int nranks, struct buffers *B, struct hold *h)
{
	for (int k = 0; k < s->nin; k++) {
		const struct array *x = s->in[k];
		int64_t size = dtype_size(x->dtype), raw = stage_scratch(x, x->dtype);
		if (x->kind == ARR_LITERAL)
			continue;
		if (elementwise_reads_whole(s, k)) {
			int64_t n = shape_size(&x->shape);
			hold_buffer(h, DIST_FIXED, n * size, HOLD_SLOT(B, in[k].data));
			if (raw)   /* unpacked through scratch */
				hold_buffer(h, DIST_FIXED, n * raw, HOLD_SLOT(B, in[k].raw));
			continue;
		}
		bool chunked = k == elementwise_chunk_input(s, hold_memory(h));
		int64_t band = s->blocks.bands && k == 0 ? band_bytes(s, nranks, hold_memory(h)) : 0;
		if (band > 0) {   /* a band of the box's chunk columns */
			hold_buffer(h, DIST_FIXED, band, HOLD_SLOT(B, in[k].data));
		} else {
			hold_buffer(h, DIST_PER_ELEM, chunked ? stage_chunked_elem_bytes(x, x->dtype) : size,
				    HOLD_SLOT(B, in[k].data));
			hold_buffer(h, DIST_FIXED, chunked ? REDUCER_RUN * size : 0, HOLD_SLOT(B, run));
		}
		if (raw)
			hold_buffer(h, DIST_PER_ELEM, raw, HOLD_SLOT(B, in[k].raw));
		if (x->base)   /* read with its axes moved (stage.c): once more, as read */
			hold_buffer(h, DIST_PER_ELEM, size, NULL);
	}
}

/* The ops' results (a box when the step writes or reduces one, a tile
 * otherwise) and their inputs cast to the loops' dtypes (a tile, or an
 * input held whole cast whole, once). */
static void op_buffers(const struct plan_step *s, struct buffers *B, struct hold *h)
{
	for (int j = 0; j < s->prog.nops; j++) {
		const struct plan_op *op = &s->prog.ops[j];
		for (int k = 0; k < op->nout; k++) {
			struct op_src r = src_result(j, k);
			hold_buffer(h, elementwise_whole_result(s, r) ? DIST_PER_ELEM : DIST_PER_TILE,
				    dtype_size(op->loop->types[op->nin + k]), HOLD_SLOT(B, tmp[src_slot(r)]));
		}
		for (int k = 0; k < op->nin; k++) {
			struct op_src src = op->src[k];
			if (src_is_literal(src) || elementwise_source_dtype(s, src) == op->loop->types[k])
				continue;
			int64_t t = dtype_size(op->loop->types[k]);
			char **slot = HOLD_SLOT(B, conv[j * RECIPE_MAXIN + k]);
			if (src_is_result(src) || !elementwise_reads_whole(s, src.input))
				hold_buffer(h, DIST_PER_TILE, t, slot);
			else
				hold_buffer(h, DIST_FIXED, shape_size(&s->in[src.input]->shape) * t, slot);
		}
	}
}

/* Every buffer a run of S on NRANKS ranks holds, into H, with B's slots
 * for those the run allocates (B NULL: counting). */
void elementwise_each_buffer(const struct plan_step *s, int nranks, struct buffers *B, struct hold *h)
{
	input_buffers(s, nranks, B, h);
	op_buffers(s, B, h);
	for (int k = 0; k < s->fused.nred; k++) {
		struct plan_step *r = s->fused.red[k];
		struct reducer *red = reducer_hold(h, r, nranks);
		if (B)
			B->red[k] = red;
		if (elementwise_source_dtype(s, s->fused.red_src[k]) != r->loop->types[1])
			hold_buffer(h, DIST_PER_ELEM, dtype_size(r->loop->types[1]), HOLD_SLOT(B, redconv[k]));
	}
	for (int k = 0; k < s->nout; k++) {
		const struct array *y = s->out[k];
		enum dtype t = s->out_dtype[k];
		if (stage_scratch(y, t))
			hold_buffer(h, DIST_PER_ELEM, stage_scratch(y, t), HOLD_SLOT(B, outconv[k]));
		/* HDF5's copies of the chunks a box writes: as they are, and
		 * compressed (in buffers of their own size) */
		if (y->create ? y->compression.on : y->stored_filtered)
			hold_buffer(h, DIST_PER_ELEM, 2 * dtype_size(y->dtype), NULL);
		if (s->mask.has_where && !y->create) {   /* what where= keeps of it, in its own dtype */
			int64_t keep = stage_scratch(y, t);
			hold_buffer(h, DIST_PER_ELEM, keep > dtype_size(t) ? keep : dtype_size(t),
				    HOLD_SLOT(B, keep[k]));
		}
	}
}

/* Does each rank read every input of S that it reads by boxes as the
 * runs of its chunks that the slices of boxes cutting them are (dist_cut_chunks,
 * h5io_read_run): a plain dataset as stored (stage_as_stored) of the
 * step's shape, whose chunks a row crosses overflow its chunk cache (else
 * the cache reads each chunk once, in one call, and each slice would be a
 * call of HDF5's)?  Packed or masked values are read as stored, decoded
 * after.  On several ranks, only where the boxes are read in slices
 * (elementwise_slices): a whole box that cuts chunks would go through
 * HDF5, each chunk read whole by each box that cuts it; and each rank
 * reads alone only where the files allow it, which the planner learns
 * later (elementwise_cut_read_alone). */
static bool reads_runs(const struct plan_step *s, int nranks)
{
	bool any = false;
	if (nranks > 1 && (s->fused.nred > 0 || s->mask.has_where || s->mask.masked || s->mask.out))
		return false;
	for (int k = 0; k < s->nin; k++) {
		const struct array *x = s->in[k];
		if (x->kind == ARR_LITERAL || elementwise_reads_whole(s, k))
			continue;
		if (!stage_cut_in_runs(x) || !shape_equal(&x->shape, &s->shape))
			return false;
		any = true;
	}
	return any;
}

/* Bytes of the widest array in a box of a compressed output that several
 * ranks write into one file.  Each box is a round of HDF5 1.10's
 * collective filtered write, about 18 collective calls (which rank owns
 * each chunk, gathered on rank 0 and scattered back; the compressed sizes
 * gathered on every rank; the chunks' new places; the file views and the
 * write), where every rank waits for the slowest one's compressions; and
 * in a round a rank holds every chunk of its box, as it is and compressed,
 * memory touched for the first time and given back to the system after
 * the write.  Boxes as large as the budget allows (a rank's share in one
 * or two rounds) made W8 on 2 ranks fault in 229 MiB a rank and hold
 * 236 MiB; 16 MiB boxes, four rounds, fault in 79 MiB and hold 100 MiB,
 * for 14% less CPU (half the system time) and the same wall time; 4 MiB
 * boxes (the usual size, sixteen rounds) fault in 31 MiB but make 2.4
 * times the collective calls (README, Benchmarks: "Sixteen cores"). */
#define COMPRESSED_TARGET ((int64_t)16 << 20)

/* S's boxes as a band of chunk columns (dist_band_chunks), the budget
 * paying for a slice: where every output is written in place by runs
 * (by_runs) and S then reads, computes and writes each slice
 * alone (elementwise_slices, a write a slice).  False, S's boxes as they
 * were, where not. */
static bool band_boxes(struct plan_step *s)
{
	struct dist_layout *l = &s->blocks.split, before = *l;
	int64_t per_write;
	bool runs = s->nout > 0;
	for (int k = 0; k < s->nout; k++)
		runs = runs && s->out[k]->by_runs;
	if (!runs)
		return false;
	dist_band_chunks(l, pass_chunks(s));
	if (l->band && elementwise_slices(s, &per_write) > 1 && per_write == 1)
		return true;
	*l = before;
	return false;
}

/* S's boxes for NRANKS ranks within MEMORY (elementwise_layout), those
 * that cut the chunks grown when CUT and S reads them as runs: a band
 * where S may take one (band_boxes), else whole rows of chunk pieces. */
static int layout_boxes(struct plan_step *s, int nranks, int64_t memory, bool cut, const char *w,
			struct err *e)
{
	s->blocks.whole_limit = memory / WHOLE_PART;
	s->blocks.by_columns = false;
	/* Compressed chunks written by several ranks into one file: every box
	 * is a round of HDF5's collective calls (the chunks' owners, their new
	 * sizes, the index), so boxes of COMPRESSED_TARGET rather than the
	 * usual size.  (Over one file per rank, vds.h, each rank compresses
	 * alone, in boxes of the usual size.) */
	bool compressed = false;
	struct dist_cost c = { .memory = memory, .tile = TILE_ELEMS };
	struct hold h;
	hold_count(&h, &c);
	elementwise_each_buffer(s, nranks, NULL, &h);
	for (int k = 0; k < s->nin; k++)
		if (s->in[k]->kind != ARR_LITERAL && !elementwise_reads_whole(s, k))
			c.widest = max64(c.widest, dtype_size(s->in[k]->dtype));
	for (int k = 0; k < s->nout; k++) {
		const struct array *y = s->out[k];
		compressed = compressed || (y->create ? y->compression.on && !y->vds : y->stored_filtered);
		c.widest = max64(c.widest, dtype_size(y->dtype));
	}
	c.target = compressed && nranks > 1 ? COMPRESSED_TARGET : 0;
	/* boxes that every fused reduction can take */
	int max_axis = H5U_MAXDIM;
	for (int k = 0; k < s->fused.nred; k++)
		if (reducer_max_axis(s->fused.red[k]) < max_axis)
			max_axis = reducer_max_axis(s->fused.red[k]);
	if (max_axis < 0)
		return err_set(e, EXIT_USAGE, w, "a reduction that no box can feed");
	if (s->blocks.bands)   /* boxes of whole rows */
		max_axis = 0;
	if (dist_layout_make(s->shape.ndim, s->shape.dim, pass_chunks(s), &c, max_axis, nranks, w, e,
			     &s->blocks.split) < 0)
		return -1;
	if (cut && reads_runs(s, nranks) && !band_boxes(s))
		dist_cut_chunks(&s->blocks.split, pass_chunks(s));
	return 0;
}

/* What layout_boxes takes beside the step, for reducer_try_bands. */
struct band_trial {
	int nranks;
	int64_t memory;
	const char *where;
};

/* reducer_lay_fn: S's boxes as layout_boxes lays them, uncut. */
static int lay_bands(struct plan_step *s, void *ctx, struct err *e)
{
	const struct band_trial *t = ctx;
	return layout_boxes(s, t->nranks, t->memory, false, t->where, e);
}

int elementwise_layout(struct plan_step *s, int nranks, int64_t memory, const char *w, struct err *e)
{
	int64_t per_write;
	/* a host of reductions on one process: boxes of a chunk row folded
	 * by bands where the budget holds them so, else as usual */
	s->blocks.bands = false;
	struct band_trial t = { .nranks = nranks, .memory = memory, .where = w };
	if (band_bytes(s, nranks, memory) > 0 && reducer_try_bands(s, s->in[0], lay_bands, &t))
		return 0;
	if (layout_boxes(s, nranks, memory, true, w, e) < 0)
		return -1;
	if (nranks > 1 && dist_slices_cut(&s->blocks.split) && elementwise_slices(s, &per_write) < 2)
		return layout_boxes(s, nranks, memory, false, w, e);
	return 0;
}

int elementwise_by_columns(struct plan_step *s, int64_t memory, const char *w, struct err *e)
{
	struct dist_layout *l = &s->blocks.split;
	int64_t per_write;
	if (elementwise_layout(s, 1, memory, w, e) < 0)
		return -1;
	if (comm_mpi() || dist_slices_cut(l))   /* no cache to walk through; cut already */
		return 0;
	/* whether cut boxes serve asks of the boxes the layout chose: those
	 * kept, and put back when the cut ones do not serve */
	struct dist_layout uncut = *l;
	dist_cut_chunks(l, pass_chunks(s));
	s->blocks.by_columns = dist_slices_cut(l);
	if (s->blocks.by_columns && elementwise_slices(s, &per_write) > 1 && per_write == 1)
		return 0;
	*l = uncut;
	s->blocks.by_columns = false;
	return 0;
}

int elementwise_uncut(struct plan_step *s, struct err *e)
{
	const struct dist_layout *l = &s->blocks.split;
	return dist_slices_cut(l) ? layout_boxes(s, l->nranks, l->cost.memory, false, s->where, e) : 0;
}
