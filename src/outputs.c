/* outputs.c - where each result of a step goes: written in place into a
 * dataset it matches, a new dataset (in a new or existing file), one that
 * replaces an existing dataset (overwrite), a named intermediate in the
 * scratch file, or printed; and how a created dataset is laid out (chunks,
 * compression).
 *
 * Every rule that a write could break is checked here, before anything is
 * written: shapes (no broadcasting of out), the casting rule, overwrite,
 * writable files and directories.  Part of the planner (planner.h).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "comm.h"
#include "dims.h"
#include "h5io.h"
#include "planner.h"
#include "tmpfiles.h"

/* A new dataset PATH in F holding output K of S. */
static struct array *new_output(struct planner *pl, struct plan_step *s, int k,
				struct plan_file *f, const char *path, const char *display,
				struct err *e)
{
	struct array *x = array_new(pl, ARR_DATASET, display);
	if (!x) {
		err_at(e, EXIT_USAGE, LOCATE_OUTPUT(pl, s, k), "too many arrays (at most %d)", PLAN_MAXARRAYS);
		return NULL;
	}
	x->file = f;
	x->path = arena_strdup(pl->p->arena, path);
	array_named(pl, x);
	x->shape = s->shape;
	x->dims = s->dims;
	x->dtype = s->out_dtype[k];
	x->create = true;
	return x;
}

/* Can X, an existing dataset, be written in place (W, E: where and how it
 * fails)?  Under MPI not when some of its chunks were never written: HDF5
 * 1.10's collective write fails on them, and it allocates none in an
 * independent one (h5io_unwritten.c).  Nor when some are stored without
 * their filters: its collective write reads them through the filters.  Nor on several ranks when it is
 * stored compact: its data lives in its object header, of which every rank
 * holds a copy with its own part written, and the library keeps one of
 * them. */
static int check_mpi_writable(const struct array *x, const struct site *w, struct err *e)
{
	if (x->stored_compact && comm_size() > 1)
		return err_at(e, EXIT_USAGE, w, "'%s' is stored compact: HDF5 1.10 cannot write it in "
			      "place from several ranks (run on one process, or write a new output)",
			      x->display);
	if (!comm_mpi() || !(x->stored_gaps || x->stored_raw))
		return 0;
	return err_at(e, EXIT_USAGE, w, "'%s' has chunks %s: HDF5 1.10 cannot write it in place "
		      "under MPI (run on one process, or write a new output)", x->display,
		      x->stored_gaps ? "that were never written" : "stored without their filters");
}

/* Check in-place target X against output K of S: shape and casting. */
static int check_in_place(struct planner *pl, struct plan_step *s, int k, struct array *x,
			  struct err *e)
{
	const struct site *w = LOCATE_OUTPUT(pl, s, k);
	char a[800], b[800];
	if (!shape_equal(&x->shape, &s->shape))
		return err_at(e, EXIT_USAGE, w,
			      "non-broadcastable output operand with shape %s doesn't match the broadcast shape %s",
			      shape_format_compact(&x->shape, a, sizeof a),
			      shape_format_compact(&s->shape, b, sizeof b));
	enum dtype from = s->out_dtype[k];
	/* NumPy's reduce, accumulate and reduceat take no casting=: their
	 * outputs may be of either byte order */
	bool order = s->verb == VERB_UFUNC || s->verb == VERB_OUTER || s->verb == VERB_EXPR;
	char number[16] = "";
	if (s->uf->nout != 1)   /* NumPy numbers outputs after the inputs */
		snprintf(number, sizeof number, "%d ", s->uf->nin + k);
	if (!dtype_can_cast_order(from, false, x->dtype, order && x->swapped, s->casting))
		return err_at(e, EXIT_USAGE, w,
			      "Cannot cast ufunc '%s' output %sfrom %s to %s with casting rule '%s'",
			      s->uf->name, number, dtype_name(from),
			      dtype_name_order(x->dtype, order && x->swapped), casting_name(s->casting));
	return 0;
}

/* In-place target X of output K of S, as S writes it: through its CF
 * coding (packed again with its own attributes) unless S writes the stored
 * numbers (missing: raw); checked against the output: shape and casting.
 * NULL on error. */
static struct array *in_place(struct planner *pl, struct plan_step *s, int k, struct array *x,
			      struct err *e)
{
	const struct site *w = LOCATE_OUTPUT(pl, s, k);
	if (x && x->vds)
		return err_at(e, EXIT_USAGE, w, "'%s' is written over one file per rank (vds): "
			      "no later step of the run writes into it", x->display), NULL;
	if (x && check_mpi_writable(x, w, e) < 0)
		return NULL;
	if (x && s->decoded)
		x = array_decoded(pl, x, w, e);
	return x && check_in_place(pl, s, k, x, e) == 0 ? x : NULL;
}

/* Output K of S written to NAME, a name of the recipe (W, E: where and
 * how it fails): in place into the dataset NAME is bound to, else a new
 * dataset in the scratch file, bound to NAME after the step (its inputs
 * see the old value). */
static int output_named(struct planner *pl, struct plan_step *s, int k, const char *name,
			const struct site *w, struct err *e)
{
	struct array *x = array_bound(pl, name);
	if (x && x->kind == ARR_DATASET && !x->file->scratch) {
		if (!(x = in_place(pl, s, k, x, e)))
			return -1;
		if (!x->create) {
			if (file_check_writable(x->file->name, true, w, e) < 0)
				return -1;
			x->in_place = true;
		}
		x->file->write = true;
		s->out[k] = x;
		return 0;
	}
	struct plan_file *f = scratch_file(pl, false);
	if (!f)
		return err_at(e, EXIT_USAGE, w, "too many files (at most %d)", PLAN_MAXFILES);
	char path[64];
	snprintf(path, sizeof path, "/t%d", pl->p->narrays);
	x = new_output(pl, s, k, f, path, name, e);
	if (!x)
		return -1;
	s->out[k] = x;
	return 0;
}

/* What stands at PATH of F, open (TEXT: the output as written): nothing,
 * or a dataset that OVERWRITE lets the output replace (*REPLACE set);
 * anything else is an error. */
static int check_replace(const struct plan_file *f, const char *path, const char *text,
			 bool overwrite, bool *replace, const struct site *w, struct err *e)
{
	bool scale;
	*replace = false;
	if (f->id < 0)
		return 0;
	switch (h5io_probe(f->id, path, &scale)) {
	case H5IO_NONE:
		return 0;
	case H5IO_DATASET:
		if (!overwrite)
			return err_at(e, EXIT_USAGE, w,
				      "dataset '%s' exists (use overwrite: true or --overwrite to replace it)",
				      text);
		if (scale)   /* replacing it would detach the datasets naming axes by it */
			return err_at(e, EXIT_USAGE, w,
				      "'%s' is a dimension scale (a coordinate variable): replacing it "
				      "would take its dimension from the datasets that use it; write "
				      "into it in place instead (%s[...])", text, text);
		*replace = true;
		return 0;
	default:
		return err_at(e, EXIT_USAGE, w, "'%s' exists and is not a dataset", text);
	}
}

/* The name a dataset replacing PATH is written under until the run ends:
 * "/g/.y.h5ufunc-TOKEN.tmp" next to "/g/y", or "/g/.y.h5ufunc-TOKEN.N.tmp"
 * for the array numbered N when it replaces one that an earlier step
 * created (AGAIN), which may have a hidden name of its own. */
static const char *replacement_path(struct planner *pl, const char *path, bool again)
{
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
	size_t n = strlen(path) + strlen(pl->o->token) + 32;
	char *tmp = arena_alloc(pl->p->arena, n);
	char nth[16] = "";
	if (again)
		snprintf(nth, sizeof nth, ".%d", pl->p->narrays);
	snprintf(tmp, n, "%.*s.%s.h5ufunc-%s%s.tmp", (int)dir, path, path + dir, pl->o->token, nth);
	return tmp;
}

/* X, a dataset that an earlier step of the run created, named by output K
 * of S.  Without OVERWRITE it is written into, as a dataset in place, when
 * the result fits it (shape and casting), else that is the error.  With
 * OVERWRITE the output replaces it: a new dataset under a hidden name,
 * moved over X's at the end of the run; the steps before S read X, those
 * after S the new one. */
static int output_over_created(struct planner *pl, struct plan_step *s, int k, struct array *x,
			       bool overwrite, const char *text, struct err *e)
{
	const struct site *w = LOCATE_OUTPUT(pl, s, k);
	int maker = 0;
	for (const struct plan_step *t = pl->p->steps; t < s && !maker; t++)
		for (int j = 0; j < t->nout; j++)
			maker = t->out[j] == x ? (int)(t - pl->p->steps) + 1 : maker;
	char a[800];
	if (!overwrite && !x->vds && (!shape_equal(&x->shape, &s->shape) ||
				      !dtype_can_cast(s->out_dtype[k], x->dtype, s->casting)))
		return err_at(e, EXIT_USAGE, w, "dataset '%s' is made by step %d as %s %s "
			      "(use overwrite: true or --overwrite to replace it)", text, maker,
			      dtype_name(x->dtype), shape_format_compact(&x->shape, a, sizeof a));
	if (!overwrite || x->vds) {
		if (!(x = in_place(pl, s, k, x, e)))
			return -1;
		s->out[k] = x;
		return 0;
	}
	struct array *y = new_output(pl, s, k, x->file, x->path, text, e);
	if (!y)
		return -1;
	y->replace = true;
	y->new_path = replacement_path(pl, x->path, true);
	x->superseded = true;
	s->out[k] = y;
	return 0;
}

int outputs_plan(struct planner *pl, struct plan_step *s, int k, bool overwrite,
		       struct err *e)
{
	const char *text = s->src->out[k];
	const struct site *w = LOCATE_OUTPUT(pl, s, k);
	struct operand op;
	if (operand_parse(text, pl->p->arena, &op, w->text, e) < 0)
		return err_place(e, &w->loc);
	if (op.kind == OPERAND_LITERAL)
		return err_at(e, EXIT_USAGE, w, "cannot write a result to the number '%s'", text);
	if (op.kind == OPERAND_NAME)
		return output_named(pl, s, k, op.name, w, e);
	struct plan_file *f = file_for_write(pl, op.file, w, e);
	if (!f)
		return -1;
	struct array *x;
	if (op.selected) {   /* into part of an existing dataset */
		x = array_dataset(pl, &op, text, w, e);
		if (!x || !(x = in_place(pl, s, k, x, e)))
			return -1;
		x->in_place = true;
		s->out[k] = x;
		return 0;
	}
	x = array_find(pl, f, op.path);
	if (x && x->create)
		return output_over_created(pl, s, k, x, overwrite, text, e);
	if (x) {
		if (!(x = in_place(pl, s, k, x, e)))
			return -1;
		x->in_place = true;
		s->out[k] = x;
		return 0;
	}
	bool replace;
	if (check_replace(f, op.path, text, overwrite, &replace, w, e) < 0)
		return -1;
	x = new_output(pl, s, k, f, op.path, text, e);
	if (!x)
		return -1;
	x->replace = replace;
	if (replace)
		x->new_path = replacement_path(pl, op.path, false);
	s->out[k] = x;
	return 0;
}

int outputs_pack(struct planner *pl, struct plan_step *s, int k, const struct step_opts *o,
		 struct err *e)
{
	const struct site *w = LOCATE(pl, s, o->mark[OPT_PACK]);
	struct array *y = s->out[k];
	if (s->print)
		return err_at(e, EXIT_USAGE, w, "pack: a printed result is not packed (write it to FILE:/PATH)");
	if (y->file->scratch)
		return err_at(e, EXIT_USAGE, w, "pack: the named intermediate '%s' is not packed (write it to FILE:/PATH)",
			      y->display);
	if (!y->create)
		return err_at(e, EXIT_USAGE, w,
			      "pack: '%s' is written in place, so it is packed with its own attributes", y->display);
	enum dtype t = s->out_dtype[k];
	char kind = dtype_table[t].kind;
	if (kind == 'c' || kind == 'b')
		return err_at(e, EXIT_USAGE, w, "pack: the result is %s: only real numbers are packed",
			      dtype_name(t));
	/* the unpacked dtype, that of scale_factor and add_offset: NCO's float or double */
	enum dtype d = kind == 'f' && dtype_size(t) <= 4 ? DT_FLOAT32 : DT_FLOAT64;
	y->coding = cf_coding_new(o->pack, d, o->pack_values > 0 ? &o->pack_scale : NULL,
				  o->pack_values > 1 ? &o->pack_offset : NULL, y->display, pl->p->arena);
	y->dtype = d;
	y->decoded = y;
	struct cf_missing *m = arena_alloc(pl->p->arena, sizeof *m);
	cf_coding_missing(y->coding, m);
	y->missing = m;
	return 0;
}

int outputs_in_place(struct planner *pl, struct plan_step *s, struct array *x, const struct site *w,
		     struct err *e)
{
	if (x->kind != ARR_DATASET || x->file->scratch || x->create)
		return err_at(e, EXIT_USAGE, w, "%s writes in place into an existing dataset: '%s' is not one",
			      verb_name(s->verb), x->display);
	if (check_mpi_writable(x, w, e) < 0 || file_check_writable(x->file->name, true, w, e) < 0)
		return -1;
	x->in_place = true;
	x->file->write = true;
	s->nout = 1;
	s->out[0] = x;
	return 0;
}

/* Is a file beside X, a new output, named as rank R's source would be? */
static bool source_taken(const struct array *x, int r, char *name, size_t len)
{
	char base[PATH_MAX];
	struct stat st;
	return tmpfiles_part_name(base, sizeof base, x->file->name, r) == 0 &&
	       snprintf(name, len, "%s", base) < (int)len && lstat(name, &st) == 0 &&
	       !tmpfiles_dead_part(name);   /* a killed run's: swept before this run writes */
}

int outputs_vds(struct planner *pl, struct plan_step *s, int k, const struct step_opts *o,
		struct err *e)
{
	const struct site *w = LOCATE(pl, s, o->mark[OPT_VDS]);
	struct array *y = s->out[k];
	if (s->print)
		return err_at(e, EXIT_USAGE, w, "vds: a printed result is not written to a file "
			      "(write it to FILE:/PATH)");
	if (y->file->scratch)
		return err_at(e, EXIT_USAGE, w, "vds: the named intermediate '%s' is not written to a file "
			      "(write it to FILE:/PATH)", y->display);
	if (!y->create || y->replace)
		return err_at(e, EXIT_USAGE, w, "vds: '%s' exists: only a new file's dataset is written "
			      "over one file per rank", y->display);
	if (y->file->exists)
		return err_at(e, EXIT_USAGE, w, "vds: '%s' is in an existing file: only a new file's "
			      "dataset is written over one file per rank", y->display);
	if (y->shape.ndim == 0)
		return err_at(e, EXIT_USAGE, w, "vds: '%s' is a scalar (0-d): nothing to split over ranks",
			      y->display);
	if (s->contract)
		return err_at(e, EXIT_USAGE, w, "vds: a generalized ufunc's result is written to one file");
	char name[PATH_MAX];
	for (int r = 0; r < pl->o->nranks; r++)
		if (source_taken(y, r, name, sizeof name))
			return err_at(e, EXIT_USAGE, w, "vds: '%s' exists, where rank %d's part of '%s' goes: "
				      "remove it or choose another output file", name, r, y->display);
	y->vds = true;
	return 0;
}

int outputs_vds_read(struct planner *pl, struct plan_step *s, struct err *e)
{
	for (int k = 0; k < s->nin; k++)
		if (s->in[k] && s->in[k]->vds)
			return err_at(e, EXIT_USAGE, LOCATE(pl, s, s->src->mark),
				      "'%s' is written over one file per rank (vds): read it in a later run",
				      s->in[k]->display);
	return 0;
}

/* X chunked as chunks: auto says (shape_chunks), along the axes it grows
 * along in records. */
static void auto_chunks(struct array *x)
{
	x->nchunk = x->shape.ndim;
	shape_chunks(&x->shape, dtype_size(x->dtype), dims_unlimited(x->dims), x->chunk);
}

/* Chunks and compression of output K, a dataset the step creates. */
int outputs_layout(struct planner *pl, struct plan_step *s, int k, const struct step_opts *o,
		       struct err *e)
{
	struct array *x = s->out[k];
	bool chunks = option_given(o, OPT_CHUNKS), compress = option_given(o, OPT_COMPRESSION);
	/* under defaults they are meant for the outputs HDF5 can chunk: a 0-d
	 * one stays contiguous, as h5py stores a scalar */
	const struct step_opts *own = &s->src->opts;
	if (x->shape.ndim == 0 && !option_given(own, OPT_CHUNKS) && !option_given(own, OPT_COMPRESSION))
		chunks = compress = false;
	x->compression = compress ? o->compression : (struct compression){ .on = false };
	if (!chunks && !compress)
		return 0;
	const struct site *wc = LOCATE(pl, s, o->mark[OPT_COMPRESSION]);
	if (compress && filter_check(&x->compression, wc->text, e) < 0)
		return err_place(e, &wc->loc);
	const struct site *w = LOCATE(pl, s, o->mark[chunks ? OPT_CHUNKS : OPT_COMPRESSION]);
	const struct shape *sh = &x->shape;
	if (sh->ndim == 0)   /* the step's own option, not a default */
		return err_at(e, EXIT_USAGE,
			      LOCATE(pl, s, o->mark[option_given(own, OPT_CHUNKS) ? OPT_CHUNKS : OPT_COMPRESSION]),
			      "'%s' is a scalar (0-d): it cannot be chunked or compressed", x->display);
	x->nchunk = sh->ndim;
	if (chunks && !o->chunks_auto) {
		if (o->nchunks != sh->ndim)
			return err_at(e, EXIT_USAGE, w, "chunks has %d entr%s, '%s' has %d dimension%s",
				      o->nchunks, o->nchunks == 1 ? "y" : "ies", x->display, sh->ndim,
				      sh->ndim == 1 ? "" : "s");
		for (int i = 0; i < sh->ndim; i++) {
			if (o->chunks[i] < 1 || (o->chunks[i] > sh->dim[i] && sh->dim[i] > 0))
				return err_at(e, EXIT_USAGE, w,
					      "chunk extent %lld does not fit axis %d of '%s' (extent %lld)",
					      (long long)o->chunks[i], i, x->display, (long long)sh->dim[i]);
			x->chunk[i] = o->chunks[i];
		}
		return 0;
	}
	auto_chunks(x);
	return 0;
}

void outputs_growing(struct plan_step *s, int k)
{
	struct array *x = s->out[k];
	if (x->create && !x->file->scratch && !x->nchunk && !x->vds &&
	    dims_unlimited(x->dims))
		auto_chunks(x);
}

/* Outputs of S that print: scratch datasets read back after the step. */
int outputs_printed(struct planner *pl, struct plan_step *s, struct err *e)
{
	const struct site *w = LOCATE(pl, s, s->src->mark);
	if (shape_size(&s->shape) > PLAN_PRINT_LIMIT)
		return err_at(e, EXIT_USAGE, w,
			      "the result has %lld elements, too many to print (at most %d): write it with out: or -o",
			      (long long)shape_size(&s->shape), PLAN_PRINT_LIMIT);
	struct plan_file *f = scratch_file(pl, true);
	if (!f)
		return err_at(e, EXIT_USAGE, w, "too many files (at most %d)", PLAN_MAXFILES);
	for (int k = 0; k < s->nout; k++) {
		char path[64];
		snprintf(path, sizeof path, "/t%d", pl->p->narrays);
		s->out[k] = new_output(pl, s, k, f, path, "(result)", e);
		if (!s->out[k])
			return -1;
	}
	s->print = true;
	return 0;
}

/* The mask dataset of S in F. */
static int mask_in(struct planner *pl, struct plan_step *s, struct plan_file *f, struct err *e)
{
	char path[64];
	snprintf(path, sizeof path, "/t%d", pl->p->narrays);
	s->mask.out = new_output(pl, s, 0, f, path, "(mask)", e);
	if (!s->mask.out)
		return -1;
	s->mask.out->dtype = DT_BOOL;
	return 0;
}

int outputs_mask(struct planner *pl, struct plan_step *s, struct err *e)
{
	return mask_in(pl, s, s->out[0]->file, e);   /* beside the results */
}

int outputs_planes(struct planner *pl, struct plan_step *s, struct err *e)
{
	for (int k = 0; k < s->nout; k++) {
		struct array *y = s->out[k];
		if (!y->create || !y->file->scratch || y->dry)
			continue;
		if (!s->mask.out) {
			char display[512];
			if (mask_in(pl, s, y->file, e) < 0)
				return -1;
			snprintf(display, sizeof display, "%s (mask)", y->display);
			s->mask.out->display = arena_strdup(pl->p->arena, display);
		}
		y->plane = s->mask.out;
	}
	return 0;
}
