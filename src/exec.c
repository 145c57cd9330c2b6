/* exec.c - streams blocks of rows through type loops; commits or cleans up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm.h"
#include "dist.h"
#include "exec.h"
#include "h5io.h"
#include "print.h"

/* ---- the strided n-d driver ------------------------------------------ */

/* Call LOOP over an NDIM-dimensional index space DIMS, operand k starting
 * at BASE[k] with byte strides STRIDES[k][i].  Dimensions of extent 1 are
 * dropped and neighbours that are contiguous for every operand merged, so
 * same-shape operands make one call over the whole block. */
static void nd_loop(ufunc_loop_fn fn, int nargs, char **base, int ndim,
		    const int64_t *dims_in, ptrdiff_t strides_in[][H5U_MAXDIM])
{
	int64_t dims[H5U_MAXDIM];
	ptrdiff_t st[UF_MAXARGS][H5U_MAXDIM];
	int n = 0;
	for (int i = 0; i < ndim; i++) {
		if (dims_in[i] == 0)
			return;
		if (dims_in[i] == 1)
			continue;
		bool merge = n > 0;
		for (int k = 0; k < nargs && merge; k++)
			merge = st[k][n - 1] == strides_in[k][i] * dims_in[i];
		if (merge) {
			dims[n - 1] *= dims_in[i];
			for (int k = 0; k < nargs; k++)
				st[k][n - 1] = strides_in[k][i];
		} else {
			dims[n] = dims_in[i];
			for (int k = 0; k < nargs; k++)
				st[k][n] = strides_in[k][i];
			n++;
		}
	}
	if (n == 0) {
		dims[0] = 1;
		for (int k = 0; k < nargs; k++)
			st[k][0] = 0;
		n = 1;
	}
	int64_t idx[H5U_MAXDIM] = {0};
	char *ptr[UF_MAXARGS];
	ptrdiff_t inner[UF_MAXARGS];
	for (int k = 0; k < nargs; k++)
		inner[k] = st[k][n - 1];
	for (;;) {
		for (int k = 0; k < nargs; k++) {
			ptr[k] = base[k];
			for (int i = 0; i < n - 1; i++)
				ptr[k] += idx[i] * st[k][i];
		}
		fn(ptr, (size_t)dims[n - 1], inner);
		int i = n - 2;
		while (i >= 0 && ++idx[i] == dims[i])
			idx[i--] = 0;
		if (i < 0)
			return;
	}
}

/* ---- one elementwise step ---------------------------------------------- */

struct input_buf {
	char *raw;          /* as stored */
	char *conv;         /* in the loop's dtype, when it differs */
	char *data;         /* what the loop reads: raw, conv or a literal */
	bool by_rows;       /* read block by block; else held whole */
};

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fputs("h5ufunc: out of memory\n", stderr);
		abort();
	}
	return p;
}

/* Byte strides of an operand buffer of SHAPE (padded to NDIM) iterated over
 * BLOCK dims: 0 along broadcast axes. */
static void buffer_strides(const struct shape *shape, int ndim, const int64_t *block,
			   int elsize, bool by_rows, ptrdiff_t *st)
{
	int64_t dims[H5U_MAXDIM];
	int pad = ndim - shape->ndim;
	for (int i = 0; i < ndim; i++)
		dims[i] = i < pad ? 1 : shape->dim[i - pad];
	if (by_rows)
		dims[0] = block[0];
	ptrdiff_t s = elsize;
	for (int i = ndim - 1; i >= 0; i--) {
		st[i] = dims[i] == 1 && block[i] != 1 ? 0 : s;
		s *= dims[i];
	}
}

static bool read_whole(const struct plan_step *s, const struct array *x)
{
	return x->shape.ndim < s->shape.ndim || (x->shape.ndim > 0 && x->shape.dim[0] == 1);
}

static int run_step(struct plan *p, struct plan_step *s, struct err *e)
{
	const struct ufunc *uf = s->uf;
	const struct ufunc_loop *loop = s->loop;
	int nin = s->nin, nout = uf->nout, nargs = nin + nout;
	struct dist d;
	dist_make(shape_rows(&s->shape), comm_size(), comm_rank(), s->rows_per_block, &d);
	int64_t row = shape_row_size(&s->shape), rpb = d.rows_per_block;
	int ndim = s->shape.ndim ? s->shape.ndim : 1;
	struct input_buf in[RECIPE_MAXIN] = {{0}};
	char *res[RECIPE_MAXOUT] = {0}, *outc[RECIPE_MAXOUT] = {0}, *printed[RECIPE_MAXOUT] = {0};

	for (int k = 0; k < nin; k++) {
		struct array *x = s->in[k];
		enum dtype t = loop->types[k];
		if (x->kind == ARR_LITERAL) {
			in[k].data = (char *)s->lit[k];
			continue;
		}
		in[k].by_rows = !read_whole(s, x);
		int64_t n = in[k].by_rows ? rpb * shape_row_size(&x->shape) : shape_size(&x->shape);
		in[k].raw = xmalloc((size_t)n * (size_t)dtype_size(x->dtype));
		in[k].conv = x->dtype != t ? xmalloc((size_t)n * (size_t)dtype_size(t)) : NULL;
		in[k].data = in[k].conv ? in[k].conv : in[k].raw;
		if (!in[k].by_rows) {
			h5io_read_rows(x->id, &x->shape, x->dtype, 0, shape_rows(&x->shape),
				       in[k].raw, s->where, e);
			if (in[k].conv)
				dtype_cast(x->dtype, in[k].raw, dtype_size(x->dtype), t, in[k].conv,
					   dtype_size(t), (size_t)n);
		}
	}
	for (int k = 0; k < nout; k++) {
		enum dtype t = loop->types[nin + k];
		res[k] = xmalloc((size_t)(rpb * row) * (size_t)dtype_size(t));
		if (s->out[k] && s->out[k]->dtype != t)
			outc[k] = xmalloc((size_t)(rpb * row) * (size_t)dtype_size(s->out[k]->dtype));
		if (!s->out[k])
			printed[k] = xmalloc((size_t)(d.count * row) * (size_t)dtype_size(t));
	}

	for (int64_t b = 0; b < d.nblocks; b++) {
		int64_t first, count;
		dist_block(&d, b, &first, &count);
		for (int k = 0; k < nin; k++) {
			struct array *x = s->in[k];
			if (!in[k].by_rows)
				continue;
			h5io_read_rows(x->id, &x->shape, x->dtype, first, count, in[k].raw, s->where, e);
			if (in[k].conv)
				dtype_cast(x->dtype, in[k].raw, dtype_size(x->dtype), loop->types[k],
					   in[k].conv, dtype_size(loop->types[k]),
					   (size_t)(count * shape_row_size(&x->shape)));
		}
		if (count > 0 && !e->status) {
			int64_t block[H5U_MAXDIM];
			block[0] = count;
			for (int i = 1; i < ndim; i++)
				block[i] = s->shape.dim[i];
			char *base[UF_MAXARGS];
			ptrdiff_t st[UF_MAXARGS][H5U_MAXDIM];
			for (int k = 0; k < nin; k++) {
				base[k] = in[k].data;
				if (s->in[k]->kind == ARR_LITERAL)
					memset(st[k], 0, sizeof st[k]);
				else
					buffer_strides(&s->in[k]->shape, ndim, block,
						       dtype_size(loop->types[k]), in[k].by_rows, st[k]);
			}
			for (int k = 0; k < nout; k++) {
				base[nin + k] = res[k];
				buffer_strides(&s->shape, ndim, block, dtype_size(loop->types[nin + k]),
					       true, st[nin + k]);
			}
			nd_loop(loop->fn, nargs, base, ndim, block, st);
			enum ufunc_fault f = ufunc_take_error();
			if (f != UFERR_NONE)
				err_set(e, EXIT_RUN, s->where, "%s", ufunc_fault_message(f));
		}
		if (comm_agree(e) < 0)
			break;
		for (int k = 0; k < nout; k++) {
			enum dtype t = loop->types[nin + k];
			size_t n = (size_t)(count * row);
			struct array *x = s->out[k];
			if (!x) {
				memcpy(printed[k] + (size_t)((first - d.first) * row) * (size_t)dtype_size(t),
				       res[k], n * (size_t)dtype_size(t));
				continue;
			}
			if (outc[k])
				dtype_cast(t, res[k], dtype_size(t), x->dtype, outc[k], dtype_size(x->dtype), n);
			h5io_write_rows(x->id, &x->shape, x->dtype, first, count,
					outc[k] ? outc[k] : res[k], s->where, e);
			x->written = true;
		}
	}
	comm_agree(e);

	for (int k = 0; k < nout && !e->status; k++) {
		if (s->out[k])
			continue;
		enum dtype t = loop->types[nin + k];
		size_t total = (size_t)shape_size(&s->shape) * (size_t)dtype_size(t);
		char *all = comm_rank() == 0 ? xmalloc(total) : NULL;
		comm_gather(printed[k], (size_t)(d.count * row) * (size_t)dtype_size(t), all);
		if (comm_rank() == 0) {
			if (k > 0)
				fputc('\n', stdout);
			print_array(stdout, t, all, s->shape.ndim, s->shape.dim);
			fflush(stdout);
		}
		free(all);
	}
	for (int k = 0; k < nin; k++) {
		free(in[k].raw);
		free(in[k].conv);
	}
	for (int k = 0; k < nout; k++) {
		free(res[k]);
		free(outc[k]);
		free(printed[k]);
	}
	return e->status ? -1 : 0;
}

/* Make data written by a step visible to every rank's reads in later steps. */
static void sync_written(struct plan *p, const struct plan_step *s)
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
		if (run_step(p, &p->steps[i], e) < 0)
			goto fail;
		if (i + 1 < p->nsteps)
			sync_written(p, &p->steps[i]);
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
