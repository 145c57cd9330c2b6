/* exec.c - runs a plan: opens its files, dispatches each step to its
 * driver (elementwise.c, reduce.c, scan.c, reduceat.c, at.c), prints results, and commits the
 * run's files or cleans up after a failure.  See exec.h. */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "at.h"
#include "comm.h"
#include "contract.h"
#include "dims.h"
#include "elementwise.h"
#include "exec.h"
#include "cf.h"
#include "h5attr.h"
#include "h5io.h"
#include "interrupt.h"
#include "journal.h"
#include "print.h"
#include "reduce.h"
#include "reduceat.h"
#include "report.h"
#include "scan.h"
#include "stage.h"
#include "tmpfiles.h"
#include "vds.h"

/* Print a step's results (held in scratch datasets) on rank 0's stdout.
 * Printed results are kept in memory, where each rank's copy holds what
 * that rank wrote and zeros elsewhere: under MPI every rank reads its copy
 * whole and rank 0 ORs them together. */
/* The printed result X, whole on rank 0: a buffer the caller frees.  A
 * read error is E's, at WHERE (LOC). */
static char *read_printed(struct array *x, const char *where, const struct err_loc *loc,
			  struct err *e)
{
	bool gather = x->file->memory && comm_size() > 1;
	int64_t start[H5U_MAXDIM], cnt[H5U_MAXDIM];
	stage_row_box(&x->shape, 0, comm_rank() == 0 || gather ? shape_rows(&x->shape) : 0, start, cnt);
	size_t bytes = (size_t)shape_size(&x->shape) * (size_t)dtype_size(x->dtype);
	char *buf = stage_alloc(bytes);
	int rc;
	if (gather && comm_rank() != 0)   /* read, but counted once: by rank 0 */
		rc = h5io_read_box(x->id, &x->shape, x->dtype, start, NULL, cnt, buf, where, e);
	else
		rc = stage_read(x, x->dtype, start, cnt, NULL, buf, where, e);
	if (rc < 0)
		err_place(e, loc);
	if (gather && comm_agree(e) == 0)
		comm_or_to_root(buf, bytes);
	return buf;
}

/* Every printed result after the first, a second output's or a later
 * step's, follows a blank line, so that where one ends shows (a 1-D
 * result and a scalar do not read as one longer array).  A process runs
 * one plan. */
static int print_results(struct plan_step *s, struct err *e)
{
	static bool printed;
	uint8_t *mask = s->mask.out ? (uint8_t *)read_printed(s->mask.out, s->where, &s->loc, e) : NULL;
	for (int k = 0; k < s->nout; k++) {
		struct array *x = s->out[k];
		char *buf = read_printed(x, s->where, &s->loc, e);
		if (!e->status && comm_rank() == 0 && !report_result(s->index, k, x, buf, mask)) {
			if (printed)
				fputc('\n', stdout);
			printed = true;
			print_array(stdout, x->dtype, buf, x->shape.ndim, x->shape.dim, mask);
			const char *lost = print_flush(stdout);   /* a full disk: the run fails */
			if (lost) {
				err_set(e, EXIT_RUN, s->where, "cannot print the result: %s", lost);
				err_place(e, &s->loc);
			}
		}
		free(buf);
	}
	free(mask);
	return comm_agree(e);
}

/* Print S's results once they are all written. */
static int print_step(struct plan_step *s, struct err *e)
{
	for (int k = 0; k < s->nout; k++)
		h5io_flush(s->out[k]->file->id);
	comm_barrier();
	return print_results(s, e);
}

/* Run S through its driver. */
static int run_driver(struct plan_step *s, struct err *e)
{
	if (s->fused.host)
		return elementwise_run(s->fused.host, e);
	if (s->verb == VERB_REDUCE)
		return reduce_run(s, e);
	if (s->verb == VERB_ACCUMULATE)
		return scan_run(s, e);
	if (s->verb == VERB_REDUCEAT)
		return reduceat_run(s, e);
	if (s->verb == VERB_AT)
		return at_run(s, e);
	if (s->contract)
		return contract_run(s, e);
	return elementwise_run(s, e);
}

/* Fold two ranks' ranges of a packed output: LEFT's into RIGHT's. */
static void fold_range(const void *left, void *right, size_t n, const void *ctx)
{
	(void)ctx;
	const double *l = left;
	double *r = right;
	for (size_t i = 0; i < 3 * n; i += 3) {   /* seen, lowest, highest */
		if (l[i] && (!r[i] || l[i + 1] < r[i + 1]))
			r[i + 1] = l[i + 1];
		if (l[i] && (!r[i] || l[i + 2] > r[i + 2]))
			r[i + 2] = l[i + 2];
		r[i] = r[i] || l[i];
	}
}

/* A step whose packed outputs take their scale_factor and add_offset from
 * their range (NCO's ncpdq): run once writing nothing, the outputs' ranges
 * folded as they go and then across the ranks; the scale and offset
 * chosen and written.  Collective. */
static int find_ranges(struct plan_step *s, struct err *e)
{
	for (int k = 0; k < s->nout; k++)
		s->out[k]->dry = true;
	int rc = run_driver(s, e);
	for (int k = 0; k < s->nout; k++) {
		struct array *y = s->out[k];
		y->dry = false;
		struct cf_coding *c = y->coding;
		if (rc < 0 || !c || !c->from_range)
			continue;
		double range[3] = { c->seen, c->lo, c->hi };
		comm_fold_to_root(range, 1, sizeof range, fold_range, NULL);
		comm_bcast(range, sizeof range);
		c->seen = range[0] != 0;
		c->lo = range[1];
		c->hi = range[2];
		cf_range_choose(c);
		if (cf_coding_write(y->id, c) < 0)
			err_set(e, EXIT_RUN, y->display, "cannot write its scale_factor and add_offset");
	}
	return rc < 0 ? -1 : comm_agree(e);
}

/* Step I of P, and the printing of the reductions fused into it. */
static int run_step(struct plan *p, int i, struct err *e)
{
	struct plan_step *s = &p->steps[i];
	int rc;
	report_step_begin(s);
	/* A stop while it runs, or after it until the next step begins, names
	 * it, at its line. */
	interrupt_where(s->where, &s->loc);
	rc = plan_step_ranged(s) ? find_ranges(s, e) : 0;
	if (rc == 0)
		rc = run_driver(s, e);
	if (rc == 0 && s->print)
		rc = print_step(s, e);
	for (int j = i + 1; j < p->nsteps && rc == 0; j++)
		if (p->steps[j].fused.merged_into == i && p->steps[j].print)
			rc = print_step(&p->steps[j], e);
	report_step_end(s);
	return rc;
}

/* Make data written by a step visible to every rank's reads in later steps. */
static void sync_written(const struct plan_step *s)
{
	const struct plan_step *h = s->fused.host ? s->fused.host : s;
	for (int k = 0; k < s->nout; k++)
		if (s->out[k])
			h5io_flush(s->out[k]->file->id);
	for (int k = 0; k < h->fused.nred; k++)
		h5io_flush(h->fused.red[k]->out[0]->file->id);
	comm_barrier();
}

/* ---- files: open, commit, clean up ------------------------------------- */

#define CREATE_TRIES 4   /* temporary names drawn before giving up */

/* Is PATH taken (a file, a directory, a link)?  Rank 0 looks; all learn. */
static bool name_taken(const char *path)
{
	struct stat st;
	int taken = comm_rank() == 0 && lstat(path, &st) == 0;
	comm_bcast(&taken, sizeof taken);
	return taken;
}

/* The file just created at PATH is this run's: removed if the run is
 * stopped, and held (rank 0) so that no other run sweeps it away as a dead
 * run's (tmpfiles.h).  False, on every rank, when a sweep took it first. */
static bool claim(const char *path)
{
	int held = tmpfiles_guard(path, comm_rank() == 0) == 0;
	comm_bcast(&held, sizeof held);
	if (!held)
		tmpfiles_forget(path);
	return held;
}

/* Create F, a file new to the run: in memory, or on disk exclusively under
 * its temporary name.  A name that is taken (by chance, or by a link that
 * someone planted) is drawn again a few times, and what is there is never
 * opened: it is seen with lstat before HDF5 is given the name (HDF5 would
 * open it to look before it fails to create it).  Collective. */
static int create_file(struct plan *p, struct plan_file *f, struct err *e)
{
	if (f->memory) {
		f->id = h5io_create_memory(f->name, e);
		return comm_agree(e);
	}
	for (int attempt = 1;; attempt++) {
		if (!name_taken(f->open_path)) {
			f->id = h5io_create(f->open_path, f->scratch, f->name, e);
			if (comm_agree(e) == 0 && claim(f->open_path)) {
				f->made = true;
				return 0;
			}
			h5io_close(f->id);   /* where a rank saw success */
			f->id = -1;
			/* Taken since, or swept away: drawn again.  A sweep
			 * can also come between rank 0's creation and the
			 * other ranks' opening of the file under MPI-IO, and
			 * their open then fails on a name that is gone: so a
			 * failure is drawn again too, and one that every name
			 * meets (E says which) ends it. */
			if (e->status && attempt == CREATE_TRIES)
				return -1;
			err_clear(e);
		}
		if (attempt == CREATE_TRIES)
			return err_set(e, EXIT_RUN, f->name,
				       "cannot create a temporary file: '%s' exists, as did the %d names drawn before it",
				       f->open_path, CREATE_TRIES - 1);
		char token[TMPFILES_TOKEN_LEN + 1], name[2 * PATH_MAX];
		if (tmpfiles_token(token, e) < 0)
			return -1;
		tmpfiles_name(name, sizeof name, f->tmp_dir, f->tmp_base, token);
		f->open_path = arena_strdup(p->arena, name);
	}
}

/* Remove the temporary file F made, if it is still there (F is closed). */
static void remove_file(struct plan_file *f)
{
	if (!f->made)
		return;
	if (comm_rank() == 0)
		unlink(f->open_path);
	tmpfiles_forget(f->open_path);
	f->made = false;
}

/* The boxes of the pass that writes X, an output of an elementwise step. */
static const struct dist_layout *writer_layout(const struct plan *p, const struct array *x)
{
	for (int i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->steps[i];
		if (s->fused.merged_into >= 0)
			continue;
		for (int k = 0; k < s->nout; k++)
			if (s->out[k] == x)
				return &s->blocks.split;
	}
	return NULL;
}

/* Create X, a new dataset of P: over one file per rank (vds.h), or as one. */
static hid_t create_dataset(struct plan *p, struct array *x, struct err *e)
{
	const struct cf_coding *c = x->coding;   /* packed: pack: TYPE */
	const void *fill = c ? c->fill : x->has_fill ? x->fill : NULL;
	enum dtype dt = c ? c->stored : x->dtype;
	if (!x->vds)
		return h5io_dataset_create(x->file->id, x->replace ? x->new_path : x->path, dt,
					   &x->shape, x->nchunk, x->chunk, dims_unlimited(x->dims),
					   &x->compression, fill,
					   x->display, e);
	struct vds_spec spec = {
		.path = x->path, .dir = x->file->tmp_dir, .base = x->file->tmp_base, .token = p->token,
		.dt = dt, .shape = &x->shape, .l = writer_layout(p, x), .nchunk = x->nchunk,
		.chunk = x->chunk, .compression = &x->compression, .fill = fill,
	};
	return vds_create(x->file->id, &spec, &x->vds_run, x->display, e);
}

/* The chunk cache dataset X is opened with: the largest that the plan
 * gave any array of its file and path (HDF5 keeps one cache a dataset, set
 * by the handle opened first). */
static size_t same_cache(const struct plan *p, const struct array *x)
{
	size_t bytes = 0;
	struct plan_dataset_walk w = plan_dataset_walk(p, x->file, x->path);
	for (const struct array *y; (y = plan_dataset_next(&w));)
		if (y->chunk_cache > bytes)
			bytes = y->chunk_cache;
	return bytes;
}

static int open_all(struct plan *p, struct err *e)
{
	for (int i = 0; i < p->nfiles && !e->status; i++) {
		struct plan_file *f = p->files[i];
		if (f->exists && f->read_alone)
			f->id = h5io_open_reader(f->name, f->name, e);
		else if (f->exists && f->write_runs)
			f->id = h5io_open_runs(f->name, f->name, e);
		else if (f->exists)
			f->id = h5io_open(f->name, f->write, f->name, e);
		else
			create_file(p, f, e);
	}
	if (comm_agree(e) < 0)
		return -1;
	for (int i = 0; i < p->narrays && !e->status; i++) {
		struct array *x = p->arrays[i];
		if (x->kind != ARR_DATASET || x->unused)
			continue;
		if (x->create) {
			const struct cf_coding *c = x->coding;
			x->id = create_dataset(p, x, e);
			if (c && x->id >= 0 && !c->from_range && cf_coding_write(x->id, c) < 0)
				err_set(e, EXIT_RUN, x->display, "cannot write its scale_factor and add_offset");
		} else {
			struct shape shape;
			enum dtype dt;
			x->id = h5io_dataset_open_cached(x->file->id, x->path, same_cache(p, x), &shape,
							 &dt, x->display, x->display, e);
			if (x->id >= 0 && x->alone)
				h5io_dataset_alone(x->id);
			if (x->id >= 0)
				h5io_dataset_direct(x->id);
		}
	}
	if (comm_agree(e) < 0)
		return -1;
	/* collective under MPI-IO: every rank has each dataset open */
	for (int i = 0; i < p->narrays; i++)
		if (p->arrays[i]->id >= 0 && p->arrays[i]->by_runs)
			h5io_dataset_in_place(p->arrays[i]->id);
	return 0;
}

static void close_all(struct plan *p)
{
	for (int i = 0; i < p->narrays; i++) {
		h5io_dataset_close(p->arrays[i]->id);
		p->arrays[i]->id = -1;
	}
	for (int i = 0; i < p->nfiles; i++) {
		h5io_close(p->files[i]->id);
		p->files[i]->id = -1;
	}
	vds_close_all();
}

/* Once everything is written: move each replacing dataset over the one it
 * replaces.  The old one stays whole until this point. */
static int replace_all(struct plan *p, struct err *e)
{
	for (int i = 0; i < p->narrays && !e->status; i++) {
		struct array *x = p->arrays[i];
		if (x->kind != ARR_DATASET || !x->replace || x->unused)
			continue;
		if (x->superseded) {   /* a later output replaces it in turn */
			h5io_unlink(x->file->id, x->new_path);
			continue;
		}
		h5io_unlink(x->file->id, x->path);
		if (h5io_move(x->file->id, x->new_path, x->path, x->display, e) == 0)
			x->create = false;   /* done: a later failure keeps it */
	}
	return comm_agree(e);
}

/* ---- writes into existing files: journals ------------------------------ */

/* Rank 0: remove what dead runs left in the directories this run writes
 * into: their temporary files and journals (tmpfiles.h). */
static void sweep_dirs(struct plan *p)
{
	const char *swept[PLAN_MAXFILES];
	int n = 0;
	for (int i = 0; i < p->nfiles && comm_rank() == 0; i++) {
		struct plan_file *f = p->files[i];
		if (!f->write || f->memory)
			continue;
		const char *dir = f->tmp_dir ? f->tmp_dir : dirname(arena_strdup(p->arena, f->canon));
		bool seen = false;
		for (int k = 0; k < n && !seen; k++)
			seen = !strcmp(swept[k], dir);
		if (!seen) {
			tmpfiles_sweep(dir, NULL, 0);
			swept[n++] = dir;
		}
	}
}

/* Journal every existing file the run writes into, before it is opened
 * for writing (HDF5 may write as it opens). */
static int begin_journals(struct plan *p, struct err *e)
{
	for (int i = 0; i < p->nfiles && !e->status; i++)
		if (p->files[i]->undoable)
			p->files[i]->journal = journal_begin(p->files[i]->canon, p->token,
							     p->files[i]->name, e);
	return comm_agree(e);
}

/* Once every file is closed: the run's writes into existing files stand. */
static int commit_journals(struct plan *p, struct err *e)
{
	for (int i = 0; i < p->nfiles; i++) {
		struct plan_file *f = p->files[i];
		if (f->journal < 0)
			continue;
		if (journal_commit(f->journal, f->name, e) < 0)
			return -1;
		f->journal = -1;
		f->undo = UNDO_COMMITTED;
	}
	return 0;
}

/* After a failure, every file closed: put back what the run wrote into
 * existing files. */
static void roll_back(struct plan *p)
{
	for (int i = 0; i < p->nfiles; i++) {
		struct plan_file *f = p->files[i];
		if (f->journal < 0)
			continue;
		char why[1024];
		f->undo = journal_rollback(f->journal, why, sizeof why) == 0 ? UNDO_ROLLED_BACK : UNDO_STUCK;
		if (f->undo == UNDO_STUCK)
			f->stuck = arena_strdup(p->arena, why);
		f->journal = -1;
	}
}

/* Is X a dataset written in place whose file ended as UNDO says (with
 * UNDO_NONE, not journaled: one it has written into)? */
static bool ended_as(const struct array *x, enum undo undo)
{
	return x->kind == ARR_DATASET && x->in_place && !x->unused && x->file->undo == undo &&
	       (undo != UNDO_NONE || x->written);
}

/* The datasets ended_as UNDO, as "'a', 'b' and 'c'" in BUF; how many;
 * *FILE the file of the last. */
static int in_place_list(const struct plan *p, enum undo undo, char *buf, size_t len,
			 const struct plan_file **file)
{
	int n = 0, total = 0;
	for (int i = 0; i < p->narrays; i++)
		total += ended_as(p->arrays[i], undo);
	*buf = '\0';
	for (int i = 0, used = 0; i < p->narrays && (size_t)used < len; i++) {
		const struct array *x = p->arrays[i];
		if (!ended_as(x, undo))
			continue;
		n++;
		used += snprintf(buf + used, len - (size_t)used, "%s'%s'",
				 n == 1 ? "" : n == total ? " and " : ", ", x->display);
		*file = x->file;
	}
	return total;
}

/* Append to E what became of each dataset written in place: as it was
 * (rolled back), the results (committed before the failure), half written
 * until `recover` (the rollback failed), half written (no journal). */
static void say_in_place(const struct plan *p, struct err *e)
{
	char list[1024];
	const struct plan_file *f = NULL;
	int n;
	if ((n = in_place_list(p, UNDO_ROLLED_BACK, list, sizeof list, &f)) > 0)
		err_append(e, "; %s %s before the run", list, n == 1 ? "is as it was" : "are as they were");
	if ((n = in_place_list(p, UNDO_COMMITTED, list, sizeof list, &f)) > 0)
		err_append(e, "; %s %s the results", list, n == 1 ? "holds" : "hold");
	if ((n = in_place_list(p, UNDO_STUCK, list, sizeof list, &f)) > 0)
		err_append(e, "; %s %s partial results until 'h5ufunc recover %s' rolls %s back (%s)",
			   list, n == 1 ? "holds" : "hold", f->name, n == 1 ? "it" : "them", f->stuck);
	if ((n = in_place_list(p, UNDO_NONE, list, sizeof list, &f)) > 0)
		err_append(e, "; partial results were written in place to %s", list);
}

/* After a failure: drop datasets created in existing files, remove new
 * and scratch files, roll back what was written into existing files, and
 * say what became of each dataset written in place. */
static void clean_up(struct plan *p, struct err *e)
{
	for (int i = 0; i < p->narrays; i++) {
		struct array *x = p->arrays[i];
		if (x->kind == ARR_DATASET && x->create && x->file->exists && x->id >= 0 &&
		    x->file->id >= 0 && x->file->journal < 0) {
			h5io_dataset_close(x->id);
			x->id = -1;
			h5io_unlink(x->file->id, x->replace ? x->new_path : x->path);
		}
	}
	close_all(p);
	comm_barrier();
	for (int i = 0; i < p->nfiles; i++)
		remove_file(p->files[i]);
	vds_discard();
	roll_back(p);
	say_in_place(p, e);
}

/* What the end of a run writes about X: its scales (a dataset the run
 * created, with named axes), its units attribute (units: propagate), its
 * CF names and cell_methods (a dataset the run created). */
static bool names_of(const struct array *x)
{
	return (x->create || x->replace) && x->dims;
}

static bool described(const struct array *x, const struct plan_file *f)
{
	return x->kind == ARR_DATASET && x->file == f && !x->unused && !x->base && !x->superseded &&
	       (names_of(x) || x->units_set || x->desc_set);
}

/* Once the data is written and every file closed: attach the dimension
 * scales of the datasets the run created (dims.h), set the units of what
 * it wrote (units.h) and the CF names of what it created (cfdesc.h).
 * HDF5's dimension-scale calls are not collective, so rank 0 alone does
 * it, through a file access of its own, while the others wait. */
static int describe_all(struct plan *p, struct err *e)
{
	for (int i = 0; i < p->nfiles && comm_rank() == 0 && !e->status; i++) {
		struct plan_file *f = p->files[i];
		bool any = false;
		for (int j = 0; j < p->narrays && !any; j++)
			any = described(p->arrays[j], f);
		if (!any || f->scratch || f->memory)
			continue;
		hid_t id = h5io_open_alone(f->open_path);
		if (id < 0) {
			err_set(e, EXIT_RUN, f->name, "cannot open the file again to describe its datasets");
			break;
		}
		bool created = false;   /* a dataset, so perhaps scales: number them */
		for (int j = 0; j < p->narrays && !e->status; j++) {
			const struct array *x = p->arrays[j];
			if (!described(x, f))
				continue;
			created |= x->create;
			if (names_of(x))
				dims_attach(id, x->path, x->dims, &x->shape, x->display, e);
			if (e->status)
				continue;
			hid_t d = h5io_dataset_open_quiet(id, x->path);
			if (d < 0 || (x->units_set && cf_units_write(d, x->units) < 0))
				err_set(e, EXIT_RUN, x->display, "cannot write its units attribute");
			else if (x->desc_set && cfdesc_write(d, &x->desc) < 0)
				err_set(e, EXIT_RUN, x->display, "cannot write its CF attributes");
			h5io_dataset_close(d);
		}
		if (!e->status && created && dims_number(id, !f->exists) < 0)
			err_set(e, EXIT_RUN, f->name, "cannot number its dimensions for netCDF-4");
		h5io_close(id);
	}
	return comm_agree(e);
}

/* The paths the datasets P creates take, kept from h5io's named types. */
static void reserve_paths(struct plan *p)
{
	const char **paths = arena_alloc(p->arena, sizeof *paths * (size_t)(p->narrays + 1));
	int n = 0;
	for (int i = 0; i < p->narrays; i++)
		if (p->arrays[i]->kind == ARR_DATASET && p->arrays[i]->create)
			paths[n++] = p->arrays[i]->path;
	h5io_reserve_paths(paths, n);
}

int exec_run(struct plan *p, const char *history, const struct report_options *ro,
	     struct err *e)
{
	report_begin(p, ro);
	interrupt_init();
	sweep_dirs(p);
	reserve_paths(p);
	/* A stop while the files open names the first step, as a stop between
	 * steps names the one before. */
	if (p->nsteps > 0)
		interrupt_where(p->steps[0].where, &p->steps[0].loc);
	if (begin_journals(p, e) < 0 || open_all(p, e) < 0)
		goto fail;
	for (int i = 0; i < p->nsteps; i++) {
		if (p->steps[i].fused.merged_into >= 0)
			continue;
		if (run_step(p, i, e) < 0)
			goto fail;
		if (i + 1 < p->nsteps)
			sync_written(&p->steps[i]);
	}
	for (int i = 0; i < p->nfiles && history; i++)
		if (p->files[i]->write && !p->files[i]->scratch)
			h5attr_history(p->files[i]->id, history, p->files[i]->name, e);
	if (comm_agree(e) < 0)
		goto fail;
	if (replace_all(p, e) < 0)
		goto fail;
	close_all(p);
	comm_barrier();
	if (describe_all(p, e) < 0)
		goto fail;
	/* a --json summary that cannot be printed fails the run here, while
	 * the run can still be undone */
	if (report_summary(e) < 0)
		goto fail;
	interrupt_hold(true);   /* from here on the run finishes */
	if (commit_journals(p, e) < 0)
		goto fail;
	/* every source under its name before any file that maps it (vds.h) */
	vds_commit(e);
	if (comm_agree(e) < 0)
		goto fail;
	journal_fault("sources", 1);
	for (int i = 0; i < p->nfiles; i++) {
		struct plan_file *f = p->files[i];
		if (f->scratch) {
			remove_file(f);
		} else if (f->made) {
			if (comm_rank() == 0 && rename(f->open_path, f->name) != 0) {
				err_set(e, EXIT_RUN, f->name, "cannot move the finished file into place");
				continue;
			}
			tmpfiles_forget(f->open_path);
			f->made = false;
		}
	}
	if (comm_agree(e) < 0)
		goto fail;
	journal_fault("renamed", 1);
	vds_finish();
	interrupt_hold(false);
	interrupt_where(NULL, NULL);
	report_end();
	return 0;
fail:
	clean_up(p, e);
	interrupt_hold(false);
	interrupt_where(NULL, NULL);
	report_end();
	return -1;
}
