/* exec.c - streams blocks of rows through type loops; commits or cleans up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm.h"
#include "dist.h"
#include "exec.h"
#include "h5io.h"
#include "iter.h"
#include "print.h"
#include "reduce.h"
#include "scan.h"
#include "stage.h"

/* ---- elementwise steps (and outer) ----------------------------------- */

struct input_buf {
	char *raw;          /* as stored, when the loop's dtype differs */
	char *data;         /* what the loop reads: a buffer, or a literal */
	bool by_rows;       /* read block by block; else held whole */
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

static int run_elementwise(struct plan_step *s, struct err *e)
{
	const struct ufunc_loop *loop = s->loop;
	int nin = s->nin, nout = s->nout, nargs = nin + nout;
	struct dist d;
	dist_make(shape_rows(&s->shape), comm_size(), comm_rank(), s->rows_per_block, &d);
	int64_t row = shape_row_size(&s->shape), rpb = d.rows_per_block;
	int ndim = s->shape.ndim ? s->shape.ndim : 1;
	struct input_buf in[RECIPE_MAXIN] = {{0}};
	char *res[RECIPE_MAXOUT] = {0}, *conv[RECIPE_MAXOUT] = {0};

	for (int k = 0; k < nin; k++) {
		struct array *x = s->in[k];
		enum dtype t = loop->types[k];
		if (x->kind == ARR_LITERAL) {
			in[k].data = (char *)s->lit[k];
			continue;
		}
		in[k].by_rows = !read_whole(s, k);
		int64_t n = in[k].by_rows ? rpb * shape_row_size(&x->shape) : shape_size(&x->shape);
		in[k].raw = x->dtype != t ? stage_alloc((size_t)n * (size_t)dtype_size(x->dtype)) : NULL;
		in[k].data = stage_alloc((size_t)n * (size_t)dtype_size(t));
		if (!in[k].by_rows) {
			int64_t start[H5U_MAXDIM], cnt[H5U_MAXDIM];
			row_box(&x->shape, 0, shape_rows(&x->shape), start, cnt);
			stage_read(x, t, start, cnt, in[k].raw, in[k].data, s->where, e);
		}
	}
	for (int k = 0; k < nout; k++) {
		enum dtype t = s->out_dtype[k];
		res[k] = stage_alloc((size_t)(rpb * row) * (size_t)dtype_size(t));
		if (s->out[k]->dtype != t)
			conv[k] = stage_alloc((size_t)(rpb * row) * (size_t)dtype_size(s->out[k]->dtype));
	}

	for (int64_t b = 0; b < d.nblocks; b++) {
		int64_t first, count, start[H5U_MAXDIM], cnt[H5U_MAXDIM];
		dist_block(&d, b, &first, &count);
		for (int k = 0; k < nin; k++) {
			if (!in[k].by_rows || s->in[k]->kind == ARR_LITERAL)
				continue;
			row_box(&s->in[k]->shape, first, count, start, cnt);
			stage_read(s->in[k], loop->types[k], start, cnt, in[k].raw, in[k].data, s->where, e);
		}
		if (count > 0 && !e->status) {
			int64_t block[H5U_MAXDIM], dims[H5U_MAXDIM];
			block[0] = count;
			for (int i = 1; i < ndim; i++)
				block[i] = s->shape.dim[i];
			char *base[UF_MAXARGS];
			iter_strides st[UF_MAXARGS];
			for (int k = 0; k < nin; k++) {
				base[k] = in[k].data;
				const struct shape *bs = &s->bshape[k];
				int pad = ndim - bs->ndim;
				for (int i = 0; i < ndim; i++)
					dims[i] = i < pad ? 1 : bs->dim[i - pad];
				if (in[k].by_rows)
					dims[0] = count;
				iter_contiguous(ndim, dims, block, dtype_size(loop->types[k]), st[k]);
			}
			for (int k = 0; k < nout; k++) {
				base[nin + k] = res[k];
				iter_contiguous(ndim, block, block, dtype_size(s->out_dtype[k]), st[nin + k]);
			}
			iter_loop(loop->fn, nargs, base, ndim, block, st);
			enum ufunc_fault f = ufunc_take_error();
			if (f != UFERR_NONE)
				err_set(e, EXIT_RUN, s->where, "%s", ufunc_fault_message(f));
		}
		if (comm_agree(e) < 0)
			break;
		for (int k = 0; k < nout; k++) {
			row_box(&s->out[k]->shape, first, count, start, cnt);
			stage_write(s->out[k], s->out_dtype[k], start, cnt, res[k], conv[k], s->where, e);
		}
	}
	for (int k = 0; k < nin; k++) {
		free(in[k].raw);
		if (s->in[k]->kind != ARR_LITERAL)
			free(in[k].data);
	}
	for (int k = 0; k < nout; k++) {
		free(res[k]);
		free(conv[k]);
	}
	return comm_agree(e);
}

/* Print a step's results (held in scratch datasets) on rank 0's stdout. */
static int print_results(struct plan_step *s, struct err *e)
{
	for (int k = 0; k < s->nout; k++) {
		struct array *x = s->out[k];
		int64_t start[H5U_MAXDIM], cnt[H5U_MAXDIM];
		row_box(&x->shape, 0, comm_rank() == 0 ? shape_rows(&x->shape) : 0, start, cnt);
		char *buf = stage_alloc((size_t)shape_size(&x->shape) * (size_t)dtype_size(x->dtype));
		if (stage_read(x, x->dtype, start, cnt, NULL, buf, s->where, e) == 0 && comm_rank() == 0) {
			if (k > 0)
				fputc('\n', stdout);
			print_array(stdout, x->dtype, buf, x->shape.ndim, x->shape.dim);
			fflush(stdout);
		}
		free(buf);
	}
	return comm_agree(e);
}

static int run_step(struct plan_step *s, struct err *e)
{
	int rc;
	switch (s->verb) {
	case VERB_REDUCE: rc = reduce_run(s, e); break;
	case VERB_ACCUMULATE: rc = scan_run(s, e); break;
	default: rc = run_elementwise(s, e); break;
	}
	if (rc == 0 && s->print) {
		for (int k = 0; k < s->nout; k++)
			H5Fflush(s->out[k]->file->id, H5F_SCOPE_LOCAL);
		comm_barrier();
		rc = print_results(s, e);
	}
	return rc;
}

/* Make data written by a step visible to every rank's reads in later steps. */
static void sync_written(const struct plan_step *s)
{
	for (int k = 0; k < s->nout; k++)
		if (s->out[k])
			H5Fflush(s->out[k]->file->id, H5F_SCOPE_LOCAL);
	comm_barrier();
}

/* ---- files: open, commit, clean up ------------------------------------- */

static int open_all(struct plan *p, struct err *e)
{
	for (int i = 0; i < p->nfiles && !e->status; i++) {
		struct plan_file *f = p->files[i];
		f->id = f->exists ? h5io_open(f->name, f->write, f->name, e)
				  : h5io_create(f->open_path, f->name, e);
	}
	if (comm_agree(e) < 0)
		return -1;
	for (int i = 0; i < p->narrays && !e->status; i++) {
		struct array *x = p->arrays[i];
		if (x->kind != ARR_DATASET)
			continue;
		if (x->create) {
			if (x->replace)
				h5io_unlink(x->file->id, x->path);
			x->id = h5io_dataset_create(x->file->id, x->path, x->dtype, &x->shape,
						    x->display, e);
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
			h5io_unlink(x->file->id, x->path);
		}
	}
	close_all(p);
	comm_barrier();
	if (comm_rank() == 0)
		for (int i = 0; i < p->nfiles; i++)
			if (!p->files[i]->exists)
				unlink(p->files[i]->open_path);
	int partial = 0;
	for (int i = 0; i < p->narrays; i++) {
		struct array *x = p->arrays[i];
		if (x->in_place && x->written)
			err_append(e, "%s'%s'", partial++ ? ", " : "; partial results were written in place to ",
				   x->display);
	}
}

int exec_run(struct plan *p, const char *history, struct err *e)
{
	if (open_all(p, e) < 0)
		goto fail;
	for (int i = 0; i < p->nsteps; i++) {
		if (run_step(&p->steps[i], e) < 0)
			goto fail;
		if (i + 1 < p->nsteps)
			sync_written(&p->steps[i]);
	}
	for (int i = 0; i < p->nfiles && history; i++)
		if (p->files[i]->write && !p->files[i]->scratch)
			h5io_history(p->files[i]->id, history, p->files[i]->name, e);
	if (comm_agree(e) < 0)
		goto fail;
	close_all(p);
	comm_barrier();
	if (comm_rank() == 0)
		for (int i = 0; i < p->nfiles; i++) {
			struct plan_file *f = p->files[i];
			if (f->scratch)
				unlink(f->open_path);
			else if (!f->exists && rename(f->open_path, f->name) != 0)
				err_set(e, EXIT_RUN, f->name, "cannot move the finished file into place");
		}
	if (comm_agree(e) < 0)
		goto fail;
	return 0;
fail:
	clean_up(p, e);
	return -1;
}
