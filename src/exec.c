/* exec.c - streams blocks of rows through type loops; commits or cleans up. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "comm.h"
#include "dist.h"
#include "exec.h"
#include "h5io.h"
#include "iter.h"
#include "print.h"
#include "reduce.h"
#include "report.h"
#include "scan.h"
#include "stage.h"
#include "tmpfiles.h"

/* ---- elementwise steps (and outer) ----------------------------------- */

struct input_buf {
	char *data;         /* as stored */
	bool by_rows;       /* read block by block; else held whole */
	int64_t dims[H5U_MAXDIM];   /* its buffer's extents, padded to the step's rank */
};

/* Is input K read whole (it broadcasts along the rows) rather than by rows? */
static bool read_whole(const struct plan_step *s, int k)
{
	const struct shape *b = &s->bshape[k];
	return b->ndim < s->shape.ndim || (b->ndim > 0 && b->dim[0] == 1 && s->shape.dim[0] != 1);
}

/* The box of rows [FIRST, FIRST+COUNT) of SHAPE (all of its other axes). */
static void row_box(const struct shape *shape, int64_t first, int64_t count,
		    int64_t *start, int64_t *cnt)
{
	for (int i = 0; i < shape->ndim; i++) {
		start[i] = 0;
		cnt[i] = shape->dim[i];
	}
	start[0] = shape->ndim ? first : 0;
	cnt[0] = count;
}

static int64_t product(int ndim, const int64_t *dims)
{
	int64_t n = 1;
	for (int i = 0; i < ndim; i++)
		n *= dims[i];
	return n;
}

/* Elements per array in one tile: a block's ops run tile by tile, so that
 * the intermediates a tile passes from op to op stay in the core's cache. */
#define TILE_ELEMS 8192

/* The dtype op source SRC holds (an op's output or a step input). */
static enum dtype source_dtype(const struct plan_step *s, int src)
{
	if (src >= 0) {
		const struct plan_op *from = &s->ops[OP_OF(src)];
		return from->loop->types[from->nin + OP_OUTPUT(src)];
	}
	return s->in[-1 - src]->dtype;
}

/* An elementwise step: its ops, block by block and tile by tile within a
 * block.  Op outputs that the step writes or reduces are block-sized, the
 * other intermediates tile-sized; inputs read whole (they broadcast along
 * the rows) are read and cast once. */
static int run_ops(struct plan_step *s, struct err *e)
{
	int nin = s->nin, nops = s->nops;
	struct dist d;
	dist_make(shape_rows(&s->shape), comm_size(), comm_rank(), s->rows_per_block, &d);
	int64_t row = shape_row_size(&s->shape), rpb = d.rows_per_block;
	int64_t tile = row > 0 && row < TILE_ELEMS ? TILE_ELEMS / row : 1;
	if (tile > rpb)
		tile = rpb;
	int ndim = s->shape.ndim ? s->shape.ndim : 1;
	struct input_buf in[RECIPE_MAXIN] = {{0}};
	size_t ntmp = (size_t)nops * RECIPE_MAXOUT, nconv = (size_t)nops * RECIPE_MAXIN;
	char **tmp = stage_alloc(sizeof *tmp * ntmp);
	bool *whole_tmp = stage_alloc(sizeof *whole_tmp * ntmp);
	char **conv = stage_alloc(sizeof *conv * nconv);
	char *outconv[PLAN_MAXOUT] = {0};
	memset(tmp, 0, sizeof *tmp * ntmp);
	memset(whole_tmp, 0, sizeof *whole_tmp * ntmp);
	memset(conv, 0, sizeof *conv * nconv);
	for (int k = 0; k < s->nout; k++)
		whole_tmp[s->out_src[k]] = true;
	for (int k = 0; k < s->nred; k++)
		if (s->red_src[k] >= 0)
			whole_tmp[s->red_src[k]] = true;

	for (int k = 0; k < nin; k++) {
		struct array *x = s->in[k];
		if (x->kind == ARR_LITERAL)
			continue;
		in[k].by_rows = !read_whole(s, k);
		int pad = ndim - s->bshape[k].ndim;
		for (int i = 0; i < ndim; i++)
			in[k].dims[i] = i < pad ? 1 : s->bshape[k].dim[i - pad];
		if (in[k].by_rows)
			in[k].dims[0] = rpb;
		in[k].data = stage_alloc((size_t)product(ndim, in[k].dims) * (size_t)dtype_size(x->dtype));
		if (!in[k].by_rows) {
			int64_t start[H5U_MAXDIM], cnt[H5U_MAXDIM];
			row_box(&x->shape, 0, shape_rows(&x->shape), start, cnt);
			stage_read(x, x->dtype, start, cnt, NULL, in[k].data, s->where, e);
		}
	}
	for (int j = 0; j < nops; j++) {
		const struct plan_op *op = &s->ops[j];
		for (int k = 0; k < op->nout; k++) {
			int64_t rows = whole_tmp[j * RECIPE_MAXOUT + k] ? rpb : tile;
			tmp[j * RECIPE_MAXOUT + k] =
				stage_alloc((size_t)(rows * row) * (size_t)dtype_size(op->loop->types[op->nin + k]));
		}
		for (int k = 0; k < op->nin; k++) {
			int src = op->src[k];
			if (src == OP_LITERAL)
				continue;
			enum dtype from = source_dtype(s, src), t = op->loop->types[k];
			if (from == t)
				continue;
			char **c = &conv[j * RECIPE_MAXIN + k];
			if (src < 0 && !in[-1 - src].by_rows) {
				/* read whole: cast once, here */
				size_t n = (size_t)product(ndim, in[-1 - src].dims);
				*c = stage_alloc(n * (size_t)dtype_size(t));
				dtype_cast(from, in[-1 - src].data, dtype_size(from), t, *c, dtype_size(t), n);
			} else {
				*c = stage_alloc((size_t)(tile * row) * (size_t)dtype_size(t));
			}
		}
	}
	for (int k = 0; k < s->nout; k++)
		if (s->out[k]->dtype != s->out_dtype[k])
			outconv[k] = stage_alloc((size_t)(rpb * row) * (size_t)dtype_size(s->out[k]->dtype));
	struct reducer *red[PLAN_MAXOUT];
	char *redconv[PLAN_MAXOUT] = {0};
	for (int k = 0; k < s->nred; k++) {
		red[k] = reducer_new(s->red[k], rpb);
		redconv[k] = stage_alloc((size_t)(rpb * row) * (size_t)dtype_size(s->red[k]->loop->types[1]));
	}

	for (int64_t b = 0; b < d.nblocks; b++) {
		int64_t first, count, start[H5U_MAXDIM], cnt[H5U_MAXDIM];
		dist_block(&d, b, &first, &count);
		for (int k = 0; k < nin; k++) {
			if (!in[k].by_rows || s->in[k]->kind == ARR_LITERAL)
				continue;
			row_box(&s->in[k]->shape, first, count, start, cnt);
			stage_read(s->in[k], s->in[k]->dtype, start, cnt, NULL, in[k].data, s->where, e);
		}
		for (int64_t r = 0; r < count && !e->status; r += tile) {
			int64_t block[H5U_MAXDIM];
			block[0] = count - r < tile ? count - r : tile;
			for (int i = 1; i < ndim; i++)
				block[i] = s->shape.dim[i];
			for (int j = 0; j < nops; j++) {
				const struct plan_op *op = &s->ops[j];
				char *base[UF_MAXARGS];
				iter_strides st[UF_MAXARGS];
				for (int k = 0; k < op->nin; k++) {
					int src = op->src[k];
					if (src == OP_LITERAL) {
						base[k] = (char *)op->lit[k];
						memset(st[k], 0, sizeof st[k]);
						continue;
					}
					enum dtype t = op->loop->types[k], from = source_dtype(s, src);
					int64_t dims[H5U_MAXDIM];
					char *c = conv[j * RECIPE_MAXIN + k];
					memcpy(dims, block, sizeof dims);
					if (src >= 0) {
						base[k] = tmp[src] + (whole_tmp[src] ? r * row * dtype_size(from) : 0);
					} else {
						/* its own extents: 1 where it broadcasts */
						memcpy(dims, in[-1 - src].dims, sizeof dims);
						if (in[-1 - src].by_rows) {
							dims[0] = 1;
							base[k] = in[-1 - src].data +
								  r * product(ndim, dims) * dtype_size(from);
							dims[0] = block[0];
						} else {
							base[k] = c ? c : in[-1 - src].data;
							c = NULL;   /* cast once, before the blocks */
						}
					}
					if (c) {
						dtype_cast(from, base[k], dtype_size(from), t, c, dtype_size(t),
							   (size_t)product(ndim, dims));
						base[k] = c;
					}
					iter_contiguous(ndim, dims, block, dtype_size(t), st[k]);
				}
				for (int k = 0; k < op->nout; k++) {
					int o = j * RECIPE_MAXOUT + k, size = dtype_size(op->loop->types[op->nin + k]);
					base[op->nin + k] = tmp[o] + (whole_tmp[o] ? r * row * size : 0);
					iter_contiguous(ndim, block, block, size, st[op->nin + k]);
				}
				iter_loop(op->loop->fn, op->nin + op->nout, base, ndim, block, st);
				enum ufunc_fault f = ufunc_take_error();
				if (f != UFERR_NONE)
					err_set(e, EXIT_RUN, op->where, "%s", ufunc_fault_message(f));
			}
		}
		for (int k = 0; k < s->nred && count > 0 && !e->status; k++) {
			int src = s->red_src[k];
			enum dtype t = s->red[k]->loop->types[1], from = source_dtype(s, src);
			char *data = src >= 0 ? tmp[src] : in[-1 - src].data;
			if (from != t) {
				dtype_cast(from, data, dtype_size(from), t, redconv[k], dtype_size(t),
					   (size_t)(count * row));
				data = redconv[k];
			}
			reducer_rows(red[k], data, first, count);
			enum ufunc_fault f = ufunc_take_error();
			if (f != UFERR_NONE)
				err_set(e, EXIT_RUN, s->red[k]->where, "%s", ufunc_fault_message(f));
		}
		if (comm_agree(e) < 0)
			break;
		for (int k = 0; k < s->nout; k++) {
			row_box(&s->out[k]->shape, first, count, start, cnt);
			stage_write(s->out[k], s->out_dtype[k], start, cnt,
				    tmp[s->out_src[k]], outconv[k], s->where, e);
		}
		for (int k = 0; k < s->nred; k++)
			reducer_write_rows(red[k], first, count, e);
	}
	for (int k = 0; k < s->nred && !e->status; k++)
		reducer_finish(red[k], e);
	for (int k = 0; k < s->nred; k++) {
		reducer_free(red[k]);
		free(redconv[k]);
	}
	for (int k = 0; k < nin; k++)
		free(in[k].data);
	for (size_t j = 0; j < ntmp; j++)
		free(tmp[j]);
	for (size_t j = 0; j < nconv; j++)
		free(conv[j]);
	for (int k = 0; k < PLAN_MAXOUT; k++)
		free(outconv[k]);
	free(tmp);
	free(whole_tmp);
	free(conv);
	return comm_agree(e);
}

/* Print a step's results (held in scratch datasets) on rank 0's stdout.
 * Printed results are kept in memory, where each rank's copy holds what
 * that rank wrote and zeros elsewhere: under MPI every rank reads its copy
 * whole and rank 0 ORs them together. */
static int print_results(struct plan_step *s, struct err *e)
{
	for (int k = 0; k < s->nout; k++) {
		struct array *x = s->out[k];
		bool gather = x->file->memory && comm_size() > 1;
		int64_t start[H5U_MAXDIM], cnt[H5U_MAXDIM];
		row_box(&x->shape, 0, comm_rank() == 0 || gather ? shape_rows(&x->shape) : 0, start, cnt);
		size_t bytes = (size_t)shape_size(&x->shape) * (size_t)dtype_size(x->dtype);
		char *buf = stage_alloc(bytes);
		if (gather && comm_rank() != 0)   /* read, but counted once: by rank 0 */
			h5io_read_box(x->id, &x->shape, x->dtype, start, NULL, cnt, buf, s->where, e);
		else
			stage_read(x, x->dtype, start, cnt, NULL, buf, s->where, e);
		if (gather && comm_agree(e) == 0)
			comm_or_to_root(buf, bytes);
		if (!e->status && comm_rank() == 0 && !report_result(s, k, buf)) {
			if (k > 0)
				fputc('\n', stdout);
			print_array(stdout, x->dtype, buf, x->shape.ndim, x->shape.dim);
			fflush(stdout);
		}
		free(buf);
	}
	return comm_agree(e);
}

/* Print S's results once they are all written. */
static int print_step(struct plan_step *s, struct err *e)
{
	for (int k = 0; k < s->nout; k++)
		H5Fflush(s->out[k]->file->id, H5F_SCOPE_LOCAL);
	comm_barrier();
	return print_results(s, e);
}

/* Step I of P, and the printing of the reductions fused into it. */
static int run_step(struct plan *p, int i, struct err *e)
{
	struct plan_step *s = &p->steps[i];
	int rc;
	report_step_begin(s);
	if (s->host)
		rc = run_ops(s->host, e);
	else if (s->verb == VERB_REDUCE)
		rc = reduce_run(s, e);
	else if (s->verb == VERB_ACCUMULATE)
		rc = scan_run(s, e);
	else
		rc = run_ops(s, e);
	if (rc == 0 && s->print)
		rc = print_step(s, e);
	for (int j = i + 1; j < p->nsteps && rc == 0; j++)
		if (p->steps[j].merged_into == i && p->steps[j].print)
			rc = print_step(&p->steps[j], e);
	report_step_end(s);
	return rc;
}

/* Make data written by a step visible to every rank's reads in later steps. */
static void sync_written(const struct plan_step *s)
{
	const struct plan_step *h = s->host ? s->host : s;
	for (int k = 0; k < s->nout; k++)
		if (s->out[k])
			H5Fflush(s->out[k]->file->id, H5F_SCOPE_LOCAL);
	for (int k = 0; k < h->nred; k++)
		H5Fflush(h->red[k]->out[0]->file->id, H5F_SCOPE_LOCAL);
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
			if (comm_agree(e) == 0) {
				tmpfiles_guard(f->open_path);
				f->made = true;
				return 0;
			}
			h5io_close(f->id);   /* where a rank saw success */
			f->id = -1;
			if (!name_taken(f->open_path))
				return -1;   /* another failure: E says which */
			err_clear(e);    /* taken since: draw again */
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

static int open_all(struct plan *p, struct err *e)
{
	for (int i = 0; i < p->nfiles && !e->status; i++) {
		struct plan_file *f = p->files[i];
		if (f->exists)
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
			x->id = h5io_dataset_create(x->file->id, x->replace ? x->new_path : x->path,
						    x->dtype, &x->shape,
						    x->nchunk, x->chunk, x->gzip, x->display, e);
		} else {
			struct shape shape;
			enum dtype dt;
			x->id = h5io_dataset_open(x->file->id, x->path, &shape, &dt, x->display,
						  x->display, e);
		}
	}
	return comm_agree(e);
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
}

/* Once everything is written: move each replacing dataset over the one it
 * replaces.  The old one stays whole until this point. */
static int replace_all(struct plan *p, struct err *e)
{
	for (int i = 0; i < p->narrays && !e->status; i++) {
		struct array *x = p->arrays[i];
		if (x->kind != ARR_DATASET || !x->replace || x->unused)
			continue;
		h5io_unlink(x->file->id, x->path);
		if (h5io_move(x->file->id, x->new_path, x->path, x->display, e) == 0)
			x->create = false;   /* done: a later failure keeps it */
	}
	return comm_agree(e);
}

/* After a failure: drop datasets created in existing files, remove new
 * and scratch files, and say which in-place targets were written. */
static void clean_up(struct plan *p, struct err *e)
{
	for (int i = 0; i < p->narrays; i++) {
		struct array *x = p->arrays[i];
		if (x->kind == ARR_DATASET && x->create && x->file->exists && x->id >= 0 &&
		    x->file->id >= 0) {
			h5io_dataset_close(x->id);
			x->id = -1;
			h5io_unlink(x->file->id, x->replace ? x->new_path : x->path);
		}
	}
	close_all(p);
	comm_barrier();
	for (int i = 0; i < p->nfiles; i++)
		remove_file(p->files[i]);
	int partial = 0;
	for (int i = 0; i < p->narrays; i++) {
		struct array *x = p->arrays[i];
		if (x->in_place && x->written)
			err_append(e, "%s'%s'", partial++ ? ", " : "; partial results were written in place to ",
				   x->display);
	}
}

int exec_run(struct plan *p, const char *history, const struct report_options *ro,
	     struct err *e)
{
	report_begin(p, ro);
	if (open_all(p, e) < 0)
		goto fail;
	for (int i = 0; i < p->nsteps; i++) {
		if (p->steps[i].merged_into >= 0)
			continue;
		if (run_step(p, i, e) < 0)
			goto fail;
		if (i + 1 < p->nsteps)
			sync_written(&p->steps[i]);
	}
	for (int i = 0; i < p->nfiles && history; i++)
		if (p->files[i]->write && !p->files[i]->scratch)
			h5io_history(p->files[i]->id, history, p->files[i]->name, e);
	if (comm_agree(e) < 0)
		goto fail;
	if (replace_all(p, e) < 0)
		goto fail;
	close_all(p);
	comm_barrier();
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
	report_end(0);
	return 0;
fail:
	clean_up(p, e);
	report_end(e->status);
	return -1;
}
