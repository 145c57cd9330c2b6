/* plan.c - recipe + files -> validated plan: the planner's driver.
 *
 * plan_build() binds the recipe's inputs, then plans each step in order,
 * a phase function each (plan_step): its options merged with the recipe's
 * defaults and checked against its verb, its operands (arrays.c), its loop
 * (resolve.c; lower.c for expressions; plan_fold.c for reduce and
 * accumulate, indexed.c for reduceat and at), its shapes, what its results
 * are (plan_units.c), where= and masks, its outputs (outputs.c) and its
 * blocks (elementwise.h, reduce.h, scan.h).  Then the optimizer fuses
 * steps into passes (fuse.c) and the temporary files are placed
 * (files.c).  See plan.h for the contract, planner.h for the stages.
 */
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

/* Broadcast the inputs' shapes (bshape) into S's result shape. */
static int broadcast(struct planner *pl, struct plan_step *s, struct err *e)
{
	const struct shape *shapes[RECIPE_MAXIN];
	for (int k = 0; k < s->nin; k++)
		shapes[k] = &s->bshape[k];
	if (shape_broadcast(s->nin, shapes, &s->shape) == 0)
		return 0;
	char msg[1024] = "", buf[800];
	for (int k = 0; k < s->nin; k++) {
		size_t n = strlen(msg);
		snprintf(msg + n, sizeof msg - n, "%s%s", k ? " " : "",
			 shape_format_compact(shapes[k], buf, sizeof buf));
	}
	struct mark m = s->src->nin ? s->src->in_mark[0] : s->src->mark;
	return err_at(e, EXIT_USAGE, LOCATE(pl, s, m),
		      "operands could not be broadcast together with shapes %s", msg);
}

/* An elementwise call, or UFUNC.outer. */
static int plan_elementwise(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			    struct err *e)
{
	const struct recipe_step *rs = s->src;
	if (s->verb == VERB_OUTER && s->uf->signature)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->fn_mark),
			      "method outer is not allowed in ufunc with non-trivial signature");
	static const int core_options[] = { OPT_AXIS, OPT_AXES };   /* a generalized ufunc's */
	for (size_t i = 0; i < sizeof core_options / sizeof *core_options && s->verb == VERB_UFUNC; i++)
		if (option_given(o, core_options[i]))
			return err_at(e, EXIT_USAGE, LOCATE(pl, s, o->mark[core_options[i]]),
				      "%s() got an unexpected keyword argument '%s'", s->uf->name,
				      step_options[core_options[i]].name);
	if (s->verb == VERB_OUTER && s->uf->nin != 2)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->fn_mark),
			      "outer product only supported for binary functions");
	if (rs->nin != s->uf->nin)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->nin ? rs->in_mark[0] : rs->mark),
			      "ufunc '%s' takes %d input%s, got %d", s->uf->name, s->uf->nin,
			      s->uf->nin == 1 ? "" : "s", rs->nin);
	s->nin = rs->nin;
	s->nout = s->uf->nout;
	for (int k = 0; k < s->nin; k++) {
		s->in[k] = array_read_operand(pl, rs->in[k], s->decoded, LOCATE(pl, s, rs->in_mark[k]), e);
		if (!s->in[k])
			return -1;
	}
	if (s->verb == VERB_UFUNC &&
	    arrays_by_name(pl, s->nin, s->in, option_given(o, OPT_BROADCAST) && o->by_position, &s->dims,
			   LOCATE(pl, s, rs->nin ? rs->in_mark[0] : rs->mark), e) < 0)
		return -1;
	for (int k = 0; k < s->nin; k++)
		s->bshape[k] = s->in[k]->shape;
	if (s->verb == VERB_OUTER) {   /* a.shape + (1,) * b.ndim against b */
		for (int k = 0; k < s->nin; k++)
			if (s->in[k]->kind == ARR_LITERAL)
				s->in[k]->strong = true;   /* NumPy makes arrays of them first */
		struct shape *a = &s->bshape[0];
		if (a->ndim + s->bshape[1].ndim > H5U_MAXDIM)
			return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->mark),
				      "the outer product has more than %d dimensions", H5U_MAXDIM);
		for (int i = 0; i < s->bshape[1].ndim; i++)
			a->dim[a->ndim++] = 1;
	}
	if (broadcast(pl, s, e) < 0)
		return -1;
	s->loop = resolve_loop(s->uf, s->nin, (const struct array *const *)s->in, o, s->casting,
			       LOCATE(pl, s, option_given(o, OPT_DTYPE) ? o->mark[OPT_DTYPE] : rs->mark), e);
	if (!s->loop)
		return -1;
	for (int k = 0; k < s->nout; k++)
		s->out_dtype[k] = s->loop->types[s->nin + k];
	struct plan_op *op = lower_single(pl, s);
	op->shape = s->shape;
	for (int k = 0; k < s->nin; k++)
		if (s->in[k]->kind == ARR_LITERAL &&
		    resolve_literal(s->in[k], op, k, s->nin == 2 ? s->in[1 - k]->dtype : DT_NONE,
				    LOCATE(pl, s, rs->in_mark[k]), e) < 0)
			return -1;
	return 0;
}

/* Does an input of S (its first NIN) declare missing values?  Then S
 * takes numpy.ma's semantics by default (missing: cf). */
static bool declares_missing(struct planner *pl, struct plan_step *s, int nin, struct err *e)
{
	for (int k = 0; k < nin; k++) {
		struct array *x = s->in[k];
		if (x->kind != ARR_DATASET)
			continue;
		const struct cf_missing *m = array_missing(pl, x, LOCATE(pl, s, s->src->mark), e);
		if (!m || cf_missing_any(m) || x->plane)
			return m != NULL;
	}
	return false;
}

/* Is Y packed from floats (its coding's fill stands for NaN)? */
static bool packs_nan(const struct array *y)
{
	return cf_coding_transforms(y->coding) && dtype_table[y->dtype].kind == 'f';
}

/* The fill values of S's outputs, where where= or a mask leaves them
 * unset: the fill: option; else, in masked mode, what an existing
 * output itself reads as missing (its _FillValue, else its missing_value,
 * else a value past its valid range: cf_missing_marker), or the first
 * input's _FillValue when the dtypes match, whatever the
 * verb (elementwise, reductions, scans, contractions: numpy.ma's a @ b
 * keeps a's fill_value too); else the dtype's default.  Datasets S
 * creates keep it as their _FillValue.  The one place this is decided. */
static int plan_fill(struct planner *pl, struct plan_step *s, const struct step_opts *o,
		     struct err *e)
{
	bool given = option_given(o, OPT_FILL);
	const struct site *w = LOCATE(pl, s, given ? o->mark[OPT_FILL] : s->src->mark);
	const struct cf_missing *first = NULL;
	if (s->mask.masked && s->in[0]->kind == ARR_DATASET && !(first = array_missing(pl, s->in[0], w, e)))
		return -1;
	for (int k = 0; k < s->nout; k++) {
		struct array *y = s->out[k];
		const struct cf_missing *own = NULL;
		if (s->mask.masked && !y->create && !(own = array_missing(pl, y, w, e)))
			return -1;
		unsigned char *fill = y->create ? y->fill : s->mask.fill[k];
		if (given || (!s->mask.masked && !packs_nan(y))) {
			if (where_fill_value(given ? o->fill : NULL, y->dtype, fill, w->text, e) < 0)
				return err_place(e, &w->loc);
		} else if (packs_nan(y)) {   /* packed as the dataset's fill */
			double nan = NAN;
			dtype_cast(DT_FLOAT64, &nan, 0, y->dtype, fill, 0, 1);
		} else if (own && cf_missing_marker(own, y->dtype, fill)) {
			;   /* what the dataset itself reads as missing */
		} else if (first && first->fill_value && s->in[0]->dtype == y->dtype) {
			memcpy(fill, first->value[0], sizeof first->value[0]);
		} else {
			where_default_fill(y->dtype, fill);
		}
		if (y->create) {
			y->has_fill = true;
			memcpy(s->mask.fill[k], y->fill, sizeof y->fill);
		}
	}
	return 0;
}

/* missing: as O says it, or its default. */
static enum missing_mode missing_mode_of(const struct step_opts *o)
{
	return option_given(o, OPT_MISSING) ? o->missing : MISSING_CF;
}

/* Masked mode of S (numpy.ma's), as O's missing: says: by default
 * where one of its first NIN inputs declares missing values. */
static int plan_masks(struct planner *pl, struct plan_step *s, const struct step_opts *o, int nin,
		      struct err *e)
{
	const struct recipe_step *rs = s->src;
	bool masking = s->decoded &&
		       (missing_mode_of(o) != MISSING_CF || declares_missing(pl, s, nin, e));
	if (e->status)
		return -1;
	bool folds = s->verb == VERB_REDUCE || s->verb == VERB_ACCUMULATE || s->verb == VERB_REDUCEAT;
	if (masking && (folds ? plan_reduce_missing(pl, s, o, e)
			: s->contract ? gufunc_plan_missing(pl, s, o, e)
			: lower_missing(pl, s, nin, o, e)) < 0)
		return -1;
	if (option_given(&rs->opts, OPT_FILL) && !s->mask.has_where && !masking)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->opts.mark[OPT_FILL]),
			      "'fill' needs 'where' or a mask: without them every element is computed");
	return 0;
}

/* The datasets S creates: packed (pack:), then chunks and compression,
 * then over one file per rank (vds:), then chunked where they can grow. */
static int plan_created(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			struct err *e)
{
	for (int k = 0; k < s->nout && option_given(o, OPT_PACK); k++)
		if (outputs_pack(pl, s, k, o, e) < 0)
			return -1;
	for (int k = 0; k < s->nout; k++)
		if (s->out[k]->create && !s->out[k]->file->scratch && outputs_layout(pl, s, k, o, e) < 0)
			return -1;
	for (int k = 0; k < s->nout && option_given(o, OPT_VDS) && o->vds; k++)
		if (outputs_vds(pl, s, k, o, e) < 0)
			return -1;
	for (int k = 0; k < s->nout; k++)
		outputs_growing(s, k);
	return 0;
}

/* ---- a step's phases, in order ---- */

/* S as step INDEX of the recipe: its verb, the name messages give it, and
 * its ufunc (an expression has none of its own). */
static int step_start(struct planner *pl, int index, struct plan_step *s, struct err *e)
{
	const struct recipe_step *rs = &pl->r->steps[index];
	s->index = index + 1;
	s->src = rs;
	s->verb = rs->verb;
	s->fused.merged_into = -1;
	locate_name_step(pl, s);
	s->uf = rs->verb == VERB_EXPR ? NULL : ufunc_lookup(rs->fn);
	if (!s->uf && rs->verb != VERB_EXPR)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->fn_mark), "unknown ufunc '%s'", rs->fn);
	return 0;
}

/* S's options into *O: the recipe's defaults overridden by the step's own,
 * less those that do not apply to its verb; then the casting and decoding
 * they ask for. */
static int step_options_of(struct planner *pl, struct plan_step *s, struct step_opts *o,
			   struct err *e)
{
	const struct recipe_step *rs = s->src;
	option_merge(&pl->r->defaults, &rs->opts, o);
	/* Options for other verbs are errors on the step itself; under
	 * defaults they are meant for other steps. */
	for (int i = 0; i < OPT_COUNT; i++) {
		if (option_applies(i, rs->verb))
			continue;
		if (option_given(&rs->opts, i))
			return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->opts.mark[i]),
				      "'%s' does not apply to %s steps", step_options[i].name, verb_name(rs->verb));
		option_forget(o, i);
	}
	/* axis under defaults is meant for reductions: a ufunc step takes its own */
	static const enum opt axes[] = { OPT_AXIS, OPT_AXES };
	for (size_t i = 0; i < sizeof axes / sizeof *axes && rs->verb == VERB_UFUNC; i++)
		if (!option_given(&rs->opts, axes[i]))
			option_forget(o, axes[i]);
	s->casting = option_given(o, OPT_CASTING) ? o->casting : CAST_SAME_KIND;
	s->decoded = missing_mode_of(o) != MISSING_RAW;
	return 0;
}

/* S's operands, loop, shapes and program, as its verb plans them. */
static int step_verb(struct planner *pl, struct plan_step *s, const struct step_opts *o, struct err *e)
{
	switch (s->verb) {
	case VERB_REDUCE:
	case VERB_ACCUMULATE:
		return plan_reduction(pl, s, o, e);
	case VERB_REDUCEAT:
		return plan_reduceat(pl, s, o, e);
	case VERB_AT:
		return plan_at(pl, s, o, e);
	case VERB_EXPR:
		return lower_expression(pl, s, o, e);
	default:
		return s->verb == VERB_UFUNC && s->uf->signature ? gufunc_plan(pl, s, o, e)
		       : plan_elementwise(pl, s, o, e);
	}
}

/* The elements S computes: where= (its own op, or a reduction's operand),
 * then masked mode over its first NIN inputs (before where= added its
 * own). */
static int step_selection(struct planner *pl, struct plan_step *s, const struct step_opts *o, int nin,
			  struct err *e)
{
	if (option_given(o, OPT_WHERE) &&
	    (s->verb == VERB_REDUCE ? plan_reduce_where(pl, s, o, e) : lower_where(pl, s, o, e)) < 0)
		return -1;
	return plan_masks(pl, s, o, nin, e);
}

/* Does a result of S read elements of an operand other than its own (a
 * contraction, a reduceat segment)?  Then its boxes, streamed, would read
 * what the step has already written there, so it may not write in place
 * into that operand. */
static bool reads_across(const struct plan_step *s)
{
	return (s->uf && s->uf->signature) || s->src->verb == VERB_REDUCEAT;
}

/* Where S's results go (printed when the step names no output), each one
 * described, none written twice nor over what the step reads; then what
 * the datasets it creates are like, and the fill values. */
static int step_outputs(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			struct err *e)
{
	const struct recipe_step *rs = s->src;
	bool overwrite = pl->o->overwrite || (option_given(o, OPT_OVERWRITE) && o->overwrite);
	if (rs->nout && rs->nout != s->nout)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->out_mark[0]),
			      "ufunc '%s' gives %d output%s, got %d", s->uf->name, s->nout,
			      s->nout == 1 ? "" : "s", rs->nout);
	if (!rs->nout && rs->verb != VERB_AT && outputs_printed(pl, s, e) < 0)
		return -1;
	for (int k = 0; k < rs->nout; k++) {
		if (outputs_plan(pl, s, k, overwrite, e) < 0)
			return -1;
		output_describe(s, k);
		for (int j = 0; j < k; j++)
			if (s->out[j] == s->out[k])
				return err_at(e, EXIT_USAGE, LOCATE_OUTPUT(pl, s, k),
					      "both outputs go to '%s'", rs->out[k]);
		for (int j = 0; j < s->nin; j++) {
			const struct array *x = s->in[j], *y = s->out[k];
			if (x == y && reads_across(s))
				return err_at(e, EXIT_USAGE, LOCATE_OUTPUT(pl, s, k),
					      "'%s' is read by %s%s beyond each result's own element: write to another dataset",
					      y->display, s->uf->name, s->src->verb == VERB_REDUCEAT ? ".reduceat" : "");
			if (x != y && x->kind == ARR_DATASET && x->file == y->file &&
			    !strcmp(x->path, y->path) && select_may_overlap(x, y))
				return err_at(e, EXIT_USAGE, LOCATE_OUTPUT(pl, s, k),
					      "'%s' overlaps '%s', which the step reads: write to another dataset",
					      y->display, x->display);
		}
	}
	if (plan_created(pl, s, o, e) < 0)
		return -1;
	if ((s->mask.has_where || s->mask.masked) && (plan_fill(pl, s, o, e) < 0 ||
			     (s->print ? outputs_mask(pl, s, e) : outputs_planes(pl, s, e)) < 0))
		return -1;
	return 0;
}

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

/* every_slot's test of moves_alone: S, which moves X, is an elementwise
 * pass of its own whose boxes or slices hold X's chunks whole and one
 * after another. */
static bool moves_in_runs(const struct plan_step *s, int k, const struct array *x)
{
	(void)k;
	return !s->fused.host && elementwise_pass(s) && elementwise_moves_runs(s, x);
}

/* May X, under MPI, move alone (array's alone)?  A whole dataset that
 * existed, chunked without filters, every chunk stored (HDF5 1.10
 * allocates chunks collectively), in a file the run writes through
 * MPI-IO, moved by some step and only by elementwise passes each of
 * whose boxes or slices hold its chunks whole and one after another
 * (elementwise_moves_runs), with the datasets moved alone as they are. */
static bool moves_alone(const struct plan *p, const struct array *x)
{
	if (x->kind != ARR_DATASET || x->unused || x->create || !x->file->exists || !x->file->write ||
	    x->file->scratch || !x->nstored || x->stored_filtered || x->stored_gaps || x->selected ||
	    x->base || x->coding || x->raw)
		return false;
	return every_slot(p, x, SLOTS_IN_OUT, moves_in_runs);
}

/* Under MPI, the datasets of files the run writes that each rank moves
 * alone, with independent transfers (h5io_dataset_alone): each rank reads
 * and writes its own whole chunks, each chunk one call of one run of the
 * file, so no collective call is needed, and the passes that move them
 * take one chunk column a slice.  HDF5 1.10's collective writes of chunks
 * went through ROMIO's data sieving: each rank read back every 512 KiB it
 * wrote, under a lock (W4 in place on 2 ranks: 1.36x contiguous).  A pass
 * moves a dataset in runs only when every other dataset it moves a slice
 * at a time moves alone too, so the datasets that may are found by
 * dropping, until none drops, those that some pass would not. */
static void moved_alone(struct plan *p, int nranks)
{
	bool dropped = true;
	for (int j = 0; j < p->narrays; j++)
		p->arrays[j]->alone = nranks > 1 && p->arrays[j]->kind == ARR_DATASET;
	while (dropped) {
		dropped = false;
		for (int j = 0; j < p->narrays; j++) {
			struct array *x = p->arrays[j];
			if (x->alone && !moves_alone(p, x))
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
static int read_alone(struct plan *p, int nranks, struct err *e)
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
 * whose boxes move by runs of its chunks (stage_in_place_runs), which
 * HDF5 does not cache. */
static bool cache_pays(const struct plan_step *s, const struct array *y)
{
	size_t esize = (size_t)dtype_size(y->coding ? y->coding->stored : y->dtype);
	return y->kind == ARR_DATASET && !y->create && y->nstored > 0 && !y->stored_filtered &&
	       !y->selected && !stage_in_place_runs(y) && shape_equal(&y->shape, &s->shape) &&
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
	CACHE_KEEP    /* ... and each output's chunk_cache set to its own */
};

/* Bytes of chunk cache that the elementwise pass S, on one process, would
 * have its outputs written in place keep (array's chunk_cache): each one stored in chunks without filters, of the pass's whole
 * shape, a row of whose chunks overflows the cache it gets otherwise
 * (h5io_row_overflows_cache), and whose chunks S's boxes do not hold
 * whole, the chunk rows its boxes cut at once (rows_cut), as ASK says.
 * Those boxes cut the chunks along the rows, and HDF5 reads and writes a chunk whole
 * for every box that cuts it unless it is still in the cache when the
 * next one comes (strace, (4096, 4096) float64 in (256, 64) chunks in
 * place at --memory 16M: 2.2 GiB read and 1.1 GiB written for 128 MiB;
 * with a cache of the chunk row, 258 and 256 MiB, the journal's half).
 * Under MPI-IO, HDF5 keeps no chunk cache for a file it writes: 0. */
static int64_t in_place_cache(const struct plan_step *s, int nranks, enum cache_ask ask)
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
			y->chunk_cache = row > y->chunk_cache ? row : y->chunk_cache;
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
 * tried.  Else laid out as it was. */
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
	return elementwise_layout(s, nranks, memory, w, e);
}

/* S's boxes within --memory on the plan's ranks, as its kind of run
 * lays them out; an elementwise pass that writes in place the chunk rows
 * its boxes cut pays from the budget for a chunk cache that holds them
 * (pay_cache). */
static int step_layout(struct planner *pl, struct plan_step *s, struct err *e)
{
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

/* S's outputs written under names of the scratch file: the names bound,
 * for later steps to read. */
static int step_bind_outputs(struct planner *pl, struct plan_step *s, struct err *e)
{
	const struct recipe_step *rs = s->src;
	for (int k = 0; k < rs->nout; k++) {
		struct operand op;
		operand_parse(rs->out[k], pl->p->arena, &op, "", e);
		if (op.kind == OPERAND_NAME && s->out[k]->file->scratch &&
		    array_bind(pl, op.name, s->out[k], LOCATE_OUTPUT(pl, s, k), e) < 0)
			return -1;
	}
	return 0;
}

/* Step INDEX of the recipe, phase by phase. */
static int plan_step(struct planner *pl, int index, struct err *e)
{
	struct plan_step *s = &pl->p->steps[index];
	struct step_opts o;
	if (step_start(pl, index, s, e) < 0 || step_options_of(pl, s, &o, e) < 0 ||
	    step_verb(pl, s, &o, e) < 0 || step_describe(pl, s, &o, e) < 0)
		return -1;
	int nin = s->nin;   /* the step's own inputs, before where= adds its own */
	if (outputs_vds_read(pl, s, e) < 0 ||
	    step_selection(pl, s, &o, nin, e) < 0 || step_outputs(pl, s, &o, e) < 0 ||
	    step_layout(pl, s, e) < 0 || step_bind_outputs(pl, s, e) < 0)
		return -1;
	/* Errors while running name the step where the recipe has it. */
	locate_place_step(pl, s);
	return 0;
}

int plan_build(const struct recipe *r, const struct plan_options *o,
	       struct arena *a, struct plan *p, struct err *e)
{
	memset(p, 0, sizeof *p);
	p->arena = a;
	p->command = o->command;
	p->token = o->token;
	struct planner *pl = calloc(1, sizeof *pl);
	struct recipe *split = arena_alloc(a, sizeof *split);
	if (!pl)
		abort();
	gufunc_split(r, a, split);
	r = split;
	pl->p = p;
	pl->r = r;
	pl->o = o;
	int rc = -1;
	for (int i = 0; i < r->ninputs; i++) {
		const struct recipe_input *in = &r->inputs[i];
		const struct site *w = LOCATE(pl, NULL, in->ref_mark);
		struct operand op;
		if (operand_parse(in->ref, a, &op, w->text, e) < 0) {
			err_place(e, &w->loc);
			goto out;
		}
		if (op.kind == OPERAND_NAME) {
			err_at(e, EXIT_USAGE, w, "input '%s' must be a FILE:/PATH dataset or a number, not a name",
				in->name);
			goto out;
		}
		struct array *x = array_operand(pl, in->ref, w, e);
		if (!x || array_bind(pl, in->name, x, w, e) < 0)
			goto out;
	}
	p->nsteps = r->nsteps;
	p->steps = arena_alloc(a, sizeof *p->steps * (size_t)(r->nsteps ? r->nsteps : 1));
	for (int i = 0; i < r->nsteps; i++)
		if (plan_step(pl, i, e) < 0)
			goto out;
	fuse_plan(pl);
	if (place_files(pl, e) < 0)
		goto out;
	if (read_alone(p, o->nranks, e) < 0)
		goto out;
	rc = 0;
out:
	for (int i = 0; i < p->nfiles; i++) {
		h5io_close(p->files[i]->id);
		p->files[i]->id = -1;
	}
	free(pl);
	return rc;
}
