/* plan_layout.c - a planned step's boxes, and how its datasets move: the
 * layout of each kind of run within --memory (plan_step_layout; an
 * elementwise pass that writes in place the chunk rows its boxes cut pays
 * for a chunk cache), laid out again where a later step names a dataset
 * written in place (plan_relayout_named_late), and which datasets each
 * rank reads alone, as stored chunks or their runs (plan_read_alone). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "at.h"
#include "comm.h"
#include "chain.h"
#include "contract.h"
#include "elementwise.h"
#include "h5io.h"
#include "options.h"
#include "planner.h"
#include "reduce.h"
#include "reduceat.h"
#include "resolve.h"
#include "scan.h"
#include "select.h"
#include "stage.h"
#include "where.h"

/* Is S run, and laid out, by elementwise.c? */
static bool elementwise_pass(const struct plan_step *s)
{
	return s->verb != VERB_REDUCE && s->verb != VERB_REDUCEAT && s->verb != VERB_AT &&
	       s->verb != VERB_ACCUMULATE && !s->contract;
}

/* Does S (not fused into another step) read its input K in boxes that
 * hold K's chunks whole: an elementwise pass's (elementwise_reads_chunks,
 * or held whole), a reduction's that shares a pass with the next ones
 * (its host's), a chained reduction's boxes, a stream's array boxes (a
 * reduction's or a scan's)? */
static bool step_holds_chunks(const struct plan_step *s, int k)
{
	if (s->fused.host)
		return elementwise_reads_chunks(s->fused.host, k);
	if (elementwise_pass(s))
		return elementwise_reads_chunks(s, k);
	const int64_t *chunk = stage_chunks(s->in[k]);
	if (!chunk || k > 0 || (s->verb != VERB_REDUCE && s->verb != VERB_ACCUMULATE))
		return false;
	if (s->verb == VERB_REDUCE && s->fold.mode == REDUCE_CHAIN)
		return dist_holds_chunks(&s->blocks.split, chunk);
	return dist_stream_holds_chunks(&s->blocks.stream, chunk);
}

/* Does S (or the pass it is fused into: a pass that hosts reductions,
 * fuse.c), a reduction or a scan, read its input K, a plain dataset of
 * its whole shape read as stored whose rows' chunks overflow a chunk
 * cache (stage_cut_in_runs), in boxes whose part of each chunk is one run
 * of it (dist_layout_runs, dist_stream_runs), each read by one pread
 * (h5io_read_run): each byte once, however the boxes cut the chunks?
 * Under MPI each rank reads them alone where the planner lets it (a
 * plan_file's read_alone, an array's alone: in_runs). */
static bool step_reads_runs(const struct plan_step *s, int k)
{
	const struct plan_step *pass = s->fused.host ? s->fused.host : s;
	const struct array *x = pass->in[k];
	const int64_t *chunk = stage_chunks(x);
	if (!chunk || !stage_cut_in_runs(x))
		return false;
	if (elementwise_pass(pass))
		return pass->fused.nred > 0 && shape_equal(&x->shape, &pass->shape) &&
		       dist_layout_runs(&pass->blocks.split, chunk);
	if (k > 0 || (pass->verb != VERB_REDUCE && pass->verb != VERB_ACCUMULATE))
		return false;
	if (pass->verb == VERB_REDUCE && pass->fold.mode == REDUCE_CHAIN)
		return dist_layout_runs(&pass->blocks.split, chunk);
	return dist_stream_runs(&pass->blocks.stream, chunk);
}

/* Does S read its input K in boxes that hold its chunks whole
 * (step_holds_chunks) or in the runs of them its boxes cut
 * (step_reads_runs)?  Other steps, and where= masks, which are not
 * inputs, read through MPI-IO. */
static bool step_reads_chunks(const struct plan_step *s, int k)
{
	return step_holds_chunks(s, k) || step_reads_runs(s, k);
}

/* Which of a step's slots a walk of the steps looks at. */
enum slots { SLOTS_IN, SLOTS_IN_OUT };

/* Is X in some slot of SLOTS (its inputs, or its outputs too) of a step
 * of P that runs (not merged into another), and does OK hold of each step
 * S and slot K (input K, or output K - S->nin) where X is? */
static bool every_slot(const struct plan *p, const struct array *x, enum slots slots,
		       bool (*ok)(const struct plan_step *s, int k, const struct array *x))
{
	bool found = false;
	for (int i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->steps[i];
		int n = slots == SLOTS_IN_OUT ? s->nin + s->nout : s->nin;
		for (int k = 0; k < n && s->fused.merged_into < 0; k++) {
			if ((k < s->nin ? s->in[k] : s->out[k - s->nin]) != x)
				continue;
			if (!ok(s, k, x))
				return false;
			found = true;
		}
	}
	return found;
}

/* every_slot's test of read_by_chunks: step_reads_chunks. */
static bool reads_chunks(const struct plan_step *s, int k, const struct array *x)
{
	(void)x;
	return step_reads_chunks(s, k);
}

/* Is X read by some step of P, and only in boxes that hold its chunks
 * whole (step_reads_chunks)? */
static bool read_by_chunks(const struct plan *p, const struct array *x)
{
	return every_slot(p, x, SLOTS_IN, reads_chunks);
}

/* every_slot's test of moved_alone: S, which moves X, is an elementwise
 * pass of its own whose boxes or slices hold X's chunks whole and one
 * after another. */
static bool moves_in_runs(const struct plan_step *s, int k, const struct array *x)
{
	(void)k;
	return !s->fused.host && elementwise_pass(s) && elementwise_moves_runs(s, x);
}

/* How X may move under MPI, as far as X itself says: asked once per
 * array, before the passes that move it are (moved_alone). */
enum moves {
	MOVES_TOGETHER,     /* through MPI-IO's collective calls */
	MOVES_BY_RUNS,      /* written in place by runs of its chunks
			       (by_runs): each rank moves its every
			       box by its own calls, whatever cuts it */
	MOVES_IF_PASSES     /* alone if every pass that moves it moves its
			       chunks whole and one after another */
};

/* MOVES_IF_PASSES: a whole dataset that existed, chunked without filters,
 * every chunk stored (HDF5 1.10 allocates chunks collectively), in a file
 * the run writes through MPI-IO. */
static enum moves how_it_moves(const struct array *x)
{
	if (x->by_runs)
		return MOVES_BY_RUNS;
	if (x->kind != ARR_DATASET || x->unused || x->create || !x->file->exists || !x->file->write ||
	    x->file->scratch || !x->nstored || x->stored_filtered || x->stored_gaps || x->selected ||
	    x->base || x->coding || x->raw)
		return MOVES_TOGETHER;
	return MOVES_IF_PASSES;
}

/* Under MPI, the datasets of files the run writes that each rank moves
 * alone (array's alone), with independent transfers (h5io_dataset_alone):
 * each rank reads and writes its own whole chunks, each chunk one call of
 * one run of the file, so no collective call is needed, and the passes
 * that move them take one chunk column a slice.  HDF5 1.10's collective
 * writes of chunks went through ROMIO's data sieving: each rank read back
 * every 512 KiB it wrote, under a lock (W4 in place on 2 ranks: 1.36x
 * contiguous).  Those that move by runs (MOVES_BY_RUNS) move alone; those
 * that may (MOVES_IF_PASSES) when some step moves them and only
 * elementwise passes each of whose boxes or slices hold its chunks whole
 * and one after another (elementwise_moves_runs), with the datasets moved
 * alone as they are.  A pass moves a dataset in runs only when every
 * other dataset it moves a slice at a time moves alone too, so the
 * datasets that may are found by dropping, until none drops, those that
 * some pass would not. */
static void moved_alone(struct plan *p, int nranks)
{
	enum moves how[PLAN_MAXARRAYS];
	bool dropped = true;
	for (int j = 0; j < p->narrays; j++) {
		how[j] = how_it_moves(p->arrays[j]);
		p->arrays[j]->alone = nranks > 1 && p->arrays[j]->kind == ARR_DATASET;
	}
	while (dropped) {
		dropped = false;
		for (int j = 0; j < p->narrays; j++) {
			struct array *x = p->arrays[j];
			if (x->alone && how[j] != MOVES_BY_RUNS &&
			    (how[j] == MOVES_TOGETHER || !every_slot(p, x, SLOTS_IN_OUT, moves_in_runs)))
				x->alone = false, dropped = true;
		}
	}
	/* A written file whose written datasets all move alone takes its
	 * writes in runs (plan_file's write_runs). */
	for (int i = 0; i < p->nfiles; i++) {
		struct plan_file *f = p->files[i];
		f->write_runs = nranks > 1 && f->exists && f->write && !f->scratch;
		for (int j = 0; j < p->narrays && f->write_runs; j++) {
			const struct array *x = p->arrays[j];
			if (x->kind == ARR_DATASET && x->file == f && !x->unused &&
			    (x->in_place || x->create) && !x->alone)
				f->write_runs = false;
		}
	}
}

/* Once the files are placed, on several ranks: which existing files the
 * run never writes each rank reads alone (plan_file's read_alone), and
 * the elementwise passes that read only such files take one process's
 * slices (elementwise_slices_alone).  Such a file's chunks then move as
 * stored on every rank as on one process (h5io_read_box): HDF5 1.10
 * reads a chunk so only outside MPI-IO, and its collective read of chunks
 * cost a third more than of contiguous data (W1 on 2 ranks).  Each of
 * its datasets must lie in whole chunks in the boxes of one rank, or be
 * read in slices each one run of one chunk (boxes that cut the chunks,
 * dist_cut_chunks), or be read whole, in every pass that reads it,
 * elementwise, reduction or scan; otherwise the ranks' reads would cut chunks that MPI-IO's
 * collective reads join, and each rank would read and decompress every
 * chunk it cuts, once a box. */
static void decide_read_alone(struct plan *p, int nranks)
{
	for (int i = 0; i < p->nfiles; i++) {
		struct plan_file *f = p->files[i];
		f->read_alone = nranks > 1 && f->exists && !f->write && !f->scratch;
		for (int j = 0; j < p->narrays && f->read_alone; j++) {
			const struct array *x = p->arrays[j];
			if (x->kind == ARR_DATASET && x->file == f && !x->unused)
				f->read_alone = read_by_chunks(p, x);
		}
	}
	moved_alone(p, nranks);
	/* A file the run never writes that one of its datasets sends through
	 * MPI-IO (read in boxes that cut chunks, which the ranks' collective
	 * reads join) takes none of the others with it: each that every pass
	 * reads in boxes of whole chunks is read independently (array's
	 * alone), as in a file each rank reads alone, so its chunks go by the
	 * direct reader (each rank's own read-only descriptor) where they
	 * are stored plain. */
	for (int j = 0; j < p->narrays; j++) {
		struct array *x = p->arrays[j];
		const struct plan_file *f = x->kind == ARR_DATASET ? x->file : NULL;
		if (f && nranks > 1 && f->exists && !f->write && !f->scratch && !f->read_alone &&
		    !x->unused && read_by_chunks(p, x))
			x->alone = true;
	}
}

/* The elementwise passes of P that run (not merged into another). */
static bool pass_runs(const struct plan_step *s)
{
	return s->fused.merged_into < 0 && !s->fused.host && elementwise_pass(s);
}

/* decide_read_alone, then, on several ranks, the elementwise passes
 * whose boxes cut the chunks (dist_cut_chunks) and read some input
 * collectively (a file the run writes, a dataset read elsewhere in boxes
 * that cut its chunks) take boxes of the usual size again, each slice
 * being otherwise a collective call; and the files are decided again
 * with those boxes, until no pass changes.  Errors: elementwise_uncut's. */
int plan_read_alone(struct plan *p, int nranks, struct err *e)
{
	bool again = true;
	while (again) {
		decide_read_alone(p, nranks);
		again = false;
		for (int i = 0; i < p->nsteps && nranks > 1; i++) {
			struct plan_step *s = &p->steps[i];
			if (pass_runs(s) && !elementwise_cut_read_alone(s)) {
				if (elementwise_uncut(s, e) < 0)
					return -1;
				again = true;
			}
		}
	}
	for (int i = 0; i < p->nsteps; i++) {
		struct plan_step *s = &p->steps[i];
		if (pass_runs(s))
			elementwise_slices_alone(s);
		/* the inputs read as the runs their boxes cut, each rank alone */
		for (int k = 0; k < s->nin; k++) {
			const struct array *x = s->in[k];
			bool alone = nranks < 2 || (x->kind == ARR_DATASET && (x->file->read_alone || x->alone));
			s->blocks.in_runs[k] = alone && !step_holds_chunks(s, k) && step_reads_runs(s, k);
		}
	}
	return 0;
}

/* How many chunk rows of CHUNK a box of L cuts at once, so that a chunk
 * cache that holds them keeps every chunk until the boxes are done with
 * it: one when its lines divide a chunk's along the split axis (or when
 * a box ends with the rest of a chunk row it began in a row before), two
 * when a box may straddle two rows.  0 when the boxes split another axis
 * than the one before the last, or a chunk spans several indices of an
 * axis before the split one (several chunk rows a box). */
static int64_t rows_cut(const struct dist_layout *l, int ndim, const int64_t *chunk)
{
	int axis = l->axis;
	if (axis != ndim - 2 || l->lines_per_box <= 0)
		return 0;
	for (int i = 0; i < axis; i++)
		if (chunk[i] != 1)
			return 0;
	return l->lines_per_box < chunk[axis] && chunk[axis] % l->lines_per_box ? 2 : 1;
}

/* Is Y, an output of the elementwise pass S, a dataset written in place
 * that in_place_cache would give a chunk cache of its own?  Not one
 * whose boxes move by runs of its chunks (by_runs), which
 * HDF5 does not cache. */
static bool cache_pays(const struct plan_step *s, const struct array *y)
{
	size_t esize = (size_t)dtype_size(y->coding ? y->coding->stored : y->dtype);
	return y->kind == ARR_DATASET && !y->create && y->nstored > 0 && !y->stored_filtered &&
	       !y->selected && !y->by_runs && shape_equal(&y->shape, &s->shape) &&
	       !dist_holds_chunks(&s->blocks.split, y->stored_chunk) &&
	       h5io_row_overflows_cache(y->nstored, y->shape.dim, y->stored_chunk, esize);
}

/* The lines of a chunk along AXIS of the first output of S that
 * in_place_cache caches, at most the axis's extent; 0 when none. */
static int64_t chunk_axis(const struct plan_step *s, int axis)
{
	for (int k = 0; k < s->nout; k++)
		if (cache_pays(s, s->out[k]))
			return s->out[k]->stored_chunk[axis] < s->shape.dim[axis]
				       ? s->out[k]->stored_chunk[axis]
				       : s->shape.dim[axis];
	return 0;
}

enum cache_ask {
	CACHE_ROW,    /* the bytes of one chunk row of each, for a start */
	CACHE_ASK,    /* the bytes S's boxes need */
	CACHE_KEEP    /* ... and kept as S's chunk_cache of each output */
};

/* Bytes of chunk cache that the elementwise pass S, on one process, would
 * have its outputs written in place keep (step_blocks's chunk_cache): each one stored in chunks without filters, of the pass's whole
 * shape, a row of whose chunks overflows the cache it gets otherwise
 * (h5io_row_overflows_cache), and whose chunks S's boxes do not hold
 * whole, the chunk rows its boxes cut at once (rows_cut), as ASK says.
 * Those boxes cut the chunks along the rows, and HDF5 reads and writes a chunk whole
 * for every box that cuts it unless it is still in the cache when the
 * next one comes (strace, (4096, 4096) float64 in (256, 64) chunks in
 * place at --memory 16M: 2.2 GiB read and 1.1 GiB written for 128 MiB;
 * with a cache of the chunk row, 258 and 256 MiB, the journal's half).
 * Under MPI-IO, HDF5 keeps no chunk cache for a file it writes: 0. */
static int64_t in_place_cache(struct plan_step *s, int nranks, enum cache_ask ask)
{
	int64_t bytes = 0;
	for (int k = 0; k < s->nout && nranks == 1 && !comm_mpi(); k++) {
		struct array *y = s->out[k];
		size_t esize = (size_t)dtype_size(y->coding ? y->coding->stored : y->dtype);
		int64_t rows = 0;
		if (cache_pays(s, y))
			rows = ask == CACHE_ROW ? 1 : rows_cut(&s->blocks.split, y->nstored, y->stored_chunk);
		size_t row = (size_t)rows *
			     h5io_chunk_row_bytes(y->nstored, y->shape.dim, y->stored_chunk, esize);
		if (ask == CACHE_KEEP)
			s->blocks.chunk_cache[k] = row;
		bytes += (int64_t)row;
	}
	return bytes;
}

/* S, an elementwise pass, laid out within MEMORY on NRANKS ranks, and laid out
 * again within what is left of it after the chunk cache in_place_cache
 * asks, when that leaves a quarter of it to the boxes.  Where the boxes'
 * lines straddle two chunk rows (rows_cut), which a cache of one row
 * would not serve and one of two would rarely be paid for, they take the
 * most lines that divide a chunk's (dist_divide_chunk: (5016, 5016)
 * float64 in (256, 64) chunks at --memory 16M, 16 lines, not 26); where
 * they still need more than is paid, budgets each an eighth less are
 * tried.  Else laid out within MEMORY, in boxes walked a chunk column at
 * a time where that serves (elementwise_by_columns: wide rows, (256,
 * 32768) float64 in (256, 64) chunks at --memory 16M, whose chunk row
 * no budget a quarter left pays). */
static int pay_cache(struct plan_step *s, int nranks, int64_t memory, const char *w, struct err *e)
{
	if (elementwise_layout(s, nranks, memory, w, e) < 0)
		return -1;
	int64_t row = in_place_cache(s, nranks, CACHE_ROW);
	if (row <= 0)
		return 0;
	for (int64_t m = memory - row; 4 * m >= memory; m -= m / 8) {
		struct err trial = {0};
		if (elementwise_layout(s, nranks, m, w, &trial) < 0)
			break;
		int64_t need = in_place_cache(s, nranks, CACHE_ASK);
		if (need > memory - m) {
			struct dist_layout *l = &s->blocks.split;
			dist_divide_chunk(l, chunk_axis(s, l->axis));
			need = in_place_cache(s, nranks, CACHE_ASK);
		}
		if (need > 0 && need <= memory - m) {
			in_place_cache(s, nranks, CACHE_KEEP);
			return 0;
		}
	}
	return elementwise_by_columns(s, memory, w, e);
}

/* X's by_runs, the one place the planner asks stage_in_place_runs. */
static void decide_runs(struct array *x)
{
	x->by_runs = stage_in_place_runs(x);
}

void plan_settle_runs(struct plan *p)
{
	for (int i = 0; i < p->narrays; i++)
		decide_runs(p->arrays[i]);
}

/* S's boxes within --memory on the plan's ranks, as its kind of run
 * lays them out; an elementwise pass that writes in place the chunk rows
 * its boxes cut pays from the budget for a chunk cache that holds them
 * (pay_cache), and only what this layout pays: the caches an earlier
 * layout of S kept are released.  The layouts read by_runs of S's own
 * arrays alone, decided here first as the plan stands so far
 * (plan_settle_runs decides every array's for good once the steps are
 * planned). */
int plan_step_layout(struct planner *pl, struct plan_step *s, struct err *e)
{
	memset(s->blocks.chunk_cache, 0, sizeof s->blocks.chunk_cache);
	for (int k = 0; k < s->nin; k++)
		decide_runs(s->in[k]);
	for (int k = 0; k < s->nout; k++)
		decide_runs(s->out[k]);
	const struct site *site = LOCATE(pl, s, s->src->mark);
	const char *w = site->text;
	int nranks = pl->o->nranks;
	int64_t memory = (int64_t)pl->o->memory;
	int rc = s->verb == VERB_REDUCE ? reduce_layout(s, nranks, memory, w, e)
		 : s->verb == VERB_REDUCEAT ? reduceat_layout(s, nranks, memory, w, e)
		 : s->verb == VERB_AT ? at_layout(s, nranks, memory, w, e)
		 : s->verb == VERB_ACCUMULATE ? scan_layout(s, nranks, memory, w, e)
		 : elementwise_pass(s) ? pay_cache(s, nranks, memory, w, e)
		 : contract_layout(s, nranks, memory, w, e);
	return rc < 0 ? err_place(e, &site->loc) : 0;
}

void plan_settle_caches(struct plan *p)
{
	for (int i = 0; i < p->narrays; i++)
		p->arrays[i]->chunk_cache = 0;
	for (int i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->steps[i];
		if (s->fused.merged_into >= 0)
			continue;   /* its host pays for what it writes */
		for (int k = 0; k < s->nout; k++) {
			struct array *y = s->out[k];
			if (s->blocks.chunk_cache[k] > y->chunk_cache)
				y->chunk_cache = s->blocks.chunk_cache[k];
		}
	}
}

/* The elementwise passes laid out before a later step named a dataset
 * they write in place again (named_twice), laid out again: that dataset
 * moves through HDF5's chunk cache, not by runs (stage_in_place_runs),
 * and the run opens it so. */
int plan_relayout_named_late(struct planner *pl, struct err *e)
{
	for (int i = 0; i < pl->p->nsteps; i++) {
		struct plan_step *s = &pl->p->steps[i];
		bool named = false;
		for (int k = 0; k < s->nout && elementwise_pass(s); k++)
			named = named || (s->out[k]->in_place && s->out[k]->named_twice);
		if (named && plan_step_layout(pl, s, e) < 0)
			return -1;
	}
	return 0;
}

/* The passes fusion made (a step that others merged into), laid out again
 * as plan_step_layout lays them out: fusion sizes their boxes within the
 * whole budget, without the chunk cache that a dataset they write in
 * place asks, or the chunk column walk where none is paid (pay_cache).
 * A pass that writes nothing in place is laid out as fusion left it. */
int plan_relayout_fused(struct planner *pl, struct err *e)
{
	struct plan *p = pl->p;
	for (int i = 0; i < p->nsteps; i++) {
		bool host = false;
		for (int j = i + 1; j < p->nsteps && !host; j++)
			host = p->steps[j].fused.merged_into == i;
		if (host && pass_runs(&p->steps[i]) && plan_step_layout(pl, &p->steps[i], e) < 0)
			return -1;
	}
	return 0;
}
