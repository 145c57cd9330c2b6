/* elementwise.c - an elementwise step's memory model and its loop.  See
 * elementwise.h.
 *
 * What a run holds (struct buffers), and what elementwise_layout counts:
 * each input's buffer (a block of rows, or the whole input when it
 * broadcasts along the rows); each op output's buffer (a block when the
 * step writes or reduces it, a tile otherwise); each op input cast to the
 * loop's dtype (a tile, or the whole cast input once); each output cast to
 * its dataset's dtype (a block); each fused reduction's accumulators and
 * cast input.  Loops never allocate: everything is allocated before the
 * first block.
 */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "dist.h"
#include "elementwise.h"
#include "iter.h"
#include "reduce.h"
#include "report.h"
#include "stage.h"
#include "where.h"

/* Elements per array in one tile: a block's ops run tile by tile, so that
 * the intermediates a tile passes from op to op stay in the core's cache. */
#define TILE_ELEMS 8192

bool elementwise_reads_whole(const struct plan_step *s, int k)
{
	const struct shape *b = &s->bshape[k];
	return b->ndim < s->shape.ndim || (b->ndim > 0 && b->dim[0] == 1 && s->shape.dim[0] != 1);
}

enum dtype elementwise_source_dtype(const struct plan_step *s, int src)
{
	if (src >= 0) {
		const struct plan_op *from = &s->ops[OP_OF(src)];
		return from->loop->types[from->nin + OP_OUTPUT(src)];
	}
	return s->in[-1 - src]->dtype;
}

/* ---- the memory model ------------------------------------------------- */

int elementwise_layout(struct plan_step *s, int nranks, int64_t memory, const char *w, struct err *e)
{
	int64_t fixed = 0, per_row = 0, widest = 0;
	int64_t row = shape_row_size(&s->shape);
	for (int k = 0; k < s->nin; k++) {
		const struct array *x = s->in[k];
		if (x->kind == ARR_LITERAL)
			continue;
		if (elementwise_reads_whole(s, k)) {
			fixed += shape_size(&x->shape) * dtype_size(x->dtype);
		} else {
			per_row += shape_row_size(&x->shape) * dtype_size(x->dtype);
			if (shape_row_size(&x->shape) * dtype_size(x->dtype) > widest)
				widest = shape_row_size(&x->shape) * dtype_size(x->dtype);
		}
	}
	for (int j = 0; j < s->nops; j++) {
		const struct plan_op *op = &s->ops[j];
		for (int k = 0; k < op->nout; k++)
			per_row += row * dtype_size(op->loop->types[op->nin + k]);
		for (int k = 0; k < op->nin; k++) {
			if (op->src[k] == OP_LITERAL || elementwise_source_dtype(s, op->src[k]) == op->loop->types[k])
				continue;
			int src = op->src[k];
			int64_t t = dtype_size(op->loop->types[k]);
			if (src >= 0 || !elementwise_reads_whole(s, -1 - src))
				per_row += (src >= 0 ? row : shape_row_size(&s->in[-1 - src]->shape)) * t;
			else
				fixed += shape_size(&s->in[-1 - src]->shape) * t;
		}
	}
	for (int k = 0; k < s->nred; k++) {
		const struct plan_step *r = s->red[k];
		enum dtype t = r->loop->types[0], target = r->out[0]->dtype;
		int src = s->red_src[k];
		enum dtype from = elementwise_source_dtype(s, src);
		int64_t orow = shape_size(&r->shape) / (shape_rows(&s->shape) ? shape_rows(&s->shape) : 1);
		if (r->mode == REDUCE_ROWS)
			per_row += orow * (dtype_size(t) + (target != t ? dtype_size(target) : 0));
		else
			fixed += 140 * shape_size(&r->shape) * dtype_size(t);
		if (from != t)
			per_row += row * dtype_size(t);
	}
	for (int k = 0; k < s->nout; k++) {
		enum dtype t = s->out_dtype[k], target = s->out[k]->dtype;
		per_row += target != t ? row * dtype_size(target) : 0;
		if (s->has_where && !s->out[k]->create)
			per_row += row * dtype_size(t);   /* what where= keeps of it */
		if (row * dtype_size(target) > widest)
			widest = row * dtype_size(target);
	}
	return dist_block_units(memory, fixed, per_row, widest, shape_rows(&s->shape),
				nranks, "one row of every array", w, e, &s->rows_per_block);
}

/* ---- the loop --------------------------------------------------------- */

struct input_buf {
	char *data;         /* as stored */
	bool by_rows;       /* read block by block; else held whole */
	int64_t dims[H5U_MAXDIM];   /* its buffer's extents, padded to the step's rank */
};

/* Everything one run of a step holds, allocated before the first block. */
struct buffers {
	int ndim;                        /* the step's rank, at least 1 */
	int64_t row, rpb, tile;          /* elements per row; rows per block, per tile */
	struct input_buf in[RECIPE_MAXIN];
	size_t ntmp, nconv;
	char **tmp;                      /* op output OP_REF(j, k): a block or a tile */
	bool *whole_tmp;                 /* ... a block: the step writes or reduces it */
	char **conv;                     /* op j's input k cast to its loop's dtype, at
					    j * RECIPE_MAXIN + k: a tile, or cast whole once */
	char *outconv[PLAN_MAXOUT];      /* output k cast to its dataset's dtype */
	char *keep[PLAN_MAXOUT];         /* where=: output k's values where it is false:
					    an existing dataset's block, or its fill */
	unsigned char masked[PLAN_MAXOUT][16];   /* masks: output k's fill, in its loop dtype */
	struct reducer *red[PLAN_MAXOUT];
	char *redconv[PLAN_MAXOUT];      /* reduction k's input cast to its loop's dtype */
};

/* The inputs' buffers; those read whole are read now. */
static void alloc_inputs(struct plan_step *s, struct buffers *B, struct err *e)
{
	for (int k = 0; k < s->nin; k++) {
		struct array *x = s->in[k];
		struct input_buf *in = &B->in[k];
		if (x->kind == ARR_LITERAL)
			continue;
		in->by_rows = !elementwise_reads_whole(s, k);
		int pad = B->ndim - s->bshape[k].ndim;
		for (int i = 0; i < B->ndim; i++)
			in->dims[i] = i < pad ? 1 : s->bshape[k].dim[i - pad];
		if (in->by_rows)
			in->dims[0] = B->rpb;
		in->data = stage_alloc((size_t)stage_box_size(B->ndim, in->dims) * (size_t)dtype_size(x->dtype));
		if (!in->by_rows) {
			int64_t start[H5U_MAXDIM], cnt[H5U_MAXDIM];
			stage_row_box(&x->shape, 0, shape_rows(&x->shape), start, cnt);
			stage_read(x, x->dtype, start, cnt, NULL, in->data, s->where, e);
		}
	}
}

/* The ops' output buffers and cast inputs; inputs read whole are cast
 * once, now. */
static void alloc_ops(struct plan_step *s, struct buffers *B)
{
	for (int j = 0; j < s->nops; j++) {
		const struct plan_op *op = &s->ops[j];
		for (int k = 0; k < op->nout; k++) {
			int64_t rows = B->whole_tmp[j * RECIPE_MAXOUT + k] ? B->rpb : B->tile;
			B->tmp[j * RECIPE_MAXOUT + k] =
				stage_alloc((size_t)(rows * B->row) * (size_t)dtype_size(op->loop->types[op->nin + k]));
		}
		for (int k = 0; k < op->nin; k++) {
			int src = op->src[k];
			if (src == OP_LITERAL)
				continue;
			enum dtype from = elementwise_source_dtype(s, src), t = op->loop->types[k];
			if (from == t)
				continue;
			char **c = &B->conv[j * RECIPE_MAXIN + k];
			if (src < 0 && !B->in[-1 - src].by_rows) {
				/* read whole: cast once, here */
				size_t n = (size_t)stage_box_size(B->ndim, B->in[-1 - src].dims);
				*c = stage_alloc(n * (size_t)dtype_size(t));
				dtype_cast(from, B->in[-1 - src].data, dtype_size(from), t, *c, dtype_size(t), n);
			} else {
				*c = stage_alloc((size_t)(B->tile * B->row) * (size_t)dtype_size(t));
			}
		}
	}
}

/* Every buffer of a run of S over the rows D deals this rank. */
static void alloc_buffers(struct plan_step *s, const struct dist *d, struct buffers *B,
			  struct err *e)
{
	memset(B, 0, sizeof *B);
	B->row = shape_row_size(&s->shape);
	B->rpb = d->rows_per_block;
	B->tile = B->row > 0 && B->row < TILE_ELEMS ? TILE_ELEMS / B->row : 1;
	if (B->tile > B->rpb)
		B->tile = B->rpb;
	B->ndim = s->shape.ndim ? s->shape.ndim : 1;
	B->ntmp = (size_t)s->nops * RECIPE_MAXOUT;
	B->nconv = (size_t)s->nops * RECIPE_MAXIN;
	B->tmp = stage_alloc(sizeof *B->tmp * B->ntmp);
	B->whole_tmp = stage_alloc(sizeof *B->whole_tmp * B->ntmp);
	B->conv = stage_alloc(sizeof *B->conv * B->nconv);
	memset(B->tmp, 0, sizeof *B->tmp * B->ntmp);
	memset(B->whole_tmp, 0, sizeof *B->whole_tmp * B->ntmp);
	memset(B->conv, 0, sizeof *B->conv * B->nconv);
	for (int k = 0; k < s->nout; k++)
		B->whole_tmp[s->out_src[k]] = true;
	if (s->has_where)
		B->whole_tmp[s->where_src] = true;
	if (s->masked)
		B->whole_tmp[s->valid_src] = true;
	if (s->has_where || s->masked)
		B->whole_tmp[s->print_src] = true;   /* what is shown, and counted */
	for (int k = 0; k < s->nred; k++)
		if (s->red_src[k] >= 0)
			B->whole_tmp[s->red_src[k]] = true;
	alloc_inputs(s, B, e);
	alloc_ops(s, B);
	for (int k = 0; k < s->nout; k++)
		if (s->out[k]->dtype != s->out_dtype[k])
			B->outconv[k] = stage_alloc((size_t)(B->rpb * B->row) * (size_t)dtype_size(s->out[k]->dtype));
	for (int k = 0; k < s->nout && s->masked; k++)
		dtype_cast(s->out[k]->dtype, s->mask_fill[k], 0, s->out_dtype[k], B->masked[k], 0, 1);
	for (int k = 0; k < s->nout && s->has_where; k++) {
		const struct array *y = s->out[k];
		size_t size = (size_t)dtype_size(s->out_dtype[k]);
		B->keep[k] = stage_alloc(y->create ? size : (size_t)(B->rpb * B->row) * size);
		if (y->create)
			dtype_cast(y->dtype, y->fill, 0, s->out_dtype[k], B->keep[k], 0, 1);
	}
	for (int k = 0; k < s->nred; k++) {
		B->red[k] = reducer_new(s->red[k], B->rpb);
		B->redconv[k] = stage_alloc((size_t)(B->rpb * B->row) *
					    (size_t)dtype_size(s->red[k]->loop->types[1]));
	}
}

static void free_buffers(struct plan_step *s, struct buffers *B)
{
	for (int k = 0; k < s->nred; k++) {
		reducer_free(B->red[k]);
		free(B->redconv[k]);
	}
	for (int k = 0; k < s->nin; k++)
		free(B->in[k].data);
	for (size_t j = 0; j < B->ntmp; j++)
		free(B->tmp[j]);
	for (size_t j = 0; j < B->nconv; j++)
		free(B->conv[j]);
	for (int k = 0; k < PLAN_MAXOUT; k++) {
		free(B->outconv[k]);
		free(B->keep[k]);
	}
	free(B->tmp);
	free(B->whole_tmp);
	free(B->conv);
}

/* The inputs read by rows: rows [FIRST, FIRST+COUNT). */
static void read_block(struct plan_step *s, struct buffers *B, int64_t first, int64_t count,
		       struct err *e)
{
	int64_t start[H5U_MAXDIM], cnt[H5U_MAXDIM];
	for (int k = 0; k < s->nin; k++) {
		if (!B->in[k].by_rows || s->in[k]->kind == ARR_LITERAL)
			continue;
		stage_row_box(&s->in[k]->shape, first, count, start, cnt);
		stage_read(s->in[k], s->in[k]->dtype, start, cnt, NULL, B->in[k].data, s->where, e);
	}
}

/* Operand K of op J for the tile at row R of the block (BLOCK its
 * extents): *BASE and its strides ST, cast to the loop's dtype. */
static void op_operand(const struct plan_step *s, const struct buffers *B, int j, int k, int64_t r,
		       const int64_t *block, char **base, ptrdiff_t *st)
{
	const struct plan_op *op = &s->ops[j];
	int src = op->src[k];
	if (src == OP_LITERAL) {
		*base = (char *)op->lit[k];
		memset(st, 0, sizeof(iter_strides));
		return;
	}
	enum dtype t = op->loop->types[k], from = elementwise_source_dtype(s, src);
	int64_t dims[H5U_MAXDIM];
	char *c = B->conv[j * RECIPE_MAXIN + k];
	memcpy(dims, block, sizeof dims);
	if (src >= 0) {
		*base = B->tmp[src] + (B->whole_tmp[src] ? r * B->row * dtype_size(from) : 0);
	} else {
		const struct input_buf *in = &B->in[-1 - src];
		/* its own extents: 1 where it broadcasts */
		memcpy(dims, in->dims, sizeof dims);
		if (in->by_rows) {
			dims[0] = 1;
			*base = in->data + r * stage_box_size(B->ndim, dims) * dtype_size(from);
			dims[0] = block[0];
		} else {
			*base = c ? c : in->data;
			c = NULL;   /* cast once, before the blocks */
		}
	}
	if (c) {
		dtype_cast(from, *base, dtype_size(from), t, c, dtype_size(t),
			   (size_t)stage_box_size(B->ndim, dims));
		*base = c;
	}
	iter_contiguous(B->ndim, dims, block, dtype_size(t), st);
}

/* Every op of S over the tile of rows [R, R+N) of the block. */
static void run_tile(struct plan_step *s, struct buffers *B, int64_t r, int64_t n, struct err *e)
{
	int64_t block[H5U_MAXDIM];
	block[0] = n;
	for (int i = 1; i < B->ndim; i++)
		block[i] = s->shape.dim[i];
	for (int j = 0; j < s->nops; j++) {
		const struct plan_op *op = &s->ops[j];
		char *base[UF_MAXARGS];
		iter_strides st[UF_MAXARGS];
		for (int k = 0; k < op->nin; k++)
			op_operand(s, B, j, k, r, block, &base[k], st[k]);
		for (int k = 0; k < op->nout; k++) {
			int o = j * RECIPE_MAXOUT + k, size = dtype_size(op->loop->types[op->nin + k]);
			base[op->nin + k] = B->tmp[o] + (B->whole_tmp[o] ? r * B->row * size : 0);
			iter_contiguous(B->ndim, block, block, size, st[op->nin + k]);
		}
		iter_loop(op->loop->fn, op->nin + op->nout, base, B->ndim, block, st);
		enum ufunc_fault f = ufunc_take_error();
		if (f != UFERR_NONE)
			err_set(e, EXIT_RUN, op->where, "%s", ufunc_fault_message(f));
	}
}

/* The block's rows [FIRST, FIRST+COUNT) into the fused reductions. */
static void feed_reductions(struct plan_step *s, struct buffers *B, int64_t first, int64_t count,
			    struct err *e)
{
	for (int k = 0; k < s->nred && count > 0 && !e->status; k++) {
		int src = s->red_src[k];
		enum dtype t = s->red[k]->loop->types[1], from = elementwise_source_dtype(s, src);
		char *data = src >= 0 ? B->tmp[src] : B->in[-1 - src].data;
		if (from != t) {
			dtype_cast(from, data, dtype_size(from), t, B->redconv[k], dtype_size(t),
				   (size_t)(count * B->row));
			data = B->redconv[k];
		}
		reducer_rows(B->red[k], data, first, count);
		enum ufunc_fault f = ufunc_take_error();
		if (f != UFERR_NONE)
			err_set(e, EXIT_RUN, s->red[k]->where, "%s", ufunc_fault_message(f));
	}
}

/* Output K's elements of the block (COUNT rows, the box START/CNT) that
 * are not results: where a mask masks them, the output's fill value; where
 * where= is false, what the output keeps there (an existing dataset's own
 * values, read back first, collective; a new one's fill value). */
static void keep_unselected(struct plan_step *s, struct buffers *B, int k, const int64_t *start,
			    const int64_t *cnt, int64_t count, struct err *e)
{
	struct array *y = s->out[k];
	enum dtype t = s->out_dtype[k];
	char *data = B->tmp[s->out_src[k]];
	if (s->masked)
		where_select(t, count * B->row, data, (const uint8_t *)B->tmp[s->valid_src],
			     (const char *)B->masked[k], 0);
	if (s->has_where) {
		ptrdiff_t step = 0;
		if (!y->create) {
			if (stage_read(y, t, start, cnt, B->outconv[k], B->keep[k], s->where, e) < 0)
				return;
			step = dtype_size(t);
		}
		where_select(t, count * B->row, data, (const uint8_t *)B->tmp[s->where_src], B->keep[k], step);
	}
}

/* The block's results: outputs and the reductions' finished rows. */
static void write_block(struct plan_step *s, struct buffers *B, int64_t first, int64_t count,
			struct err *e)
{
	int64_t start[H5U_MAXDIM], cnt[H5U_MAXDIM];
	for (int k = 0; k < s->nout; k++) {
		stage_row_box(&s->out[k]->shape, first, count, start, cnt);
		if (s->has_where || s->masked)
			keep_unselected(s, B, k, start, cnt, count, e);
		stage_write(s->out[k], s->out_dtype[k], start, cnt,
			    B->tmp[s->out_src[k]], B->outconv[k], s->where, e);
	}
	if (s->has_where || s->masked) {
		const uint8_t *shown = (const uint8_t *)B->tmp[s->print_src];
		int64_t n = 0;
		for (int64_t i = 0; i < count * B->row; i++)
			n += !shown[i];
		report_masked(n);
	}
	if (s->mask_out) {
		stage_row_box(&s->mask_out->shape, first, count, start, cnt);
		stage_write(s->mask_out, DT_BOOL, start, cnt, B->tmp[s->print_src], NULL, s->where, e);
	}
	for (int k = 0; k < s->nred; k++)
		reducer_write_rows(B->red[k], first, count, e);
}

int elementwise_run(struct plan_step *s, struct err *e)
{
	struct dist d;
	dist_make(shape_rows(&s->shape), comm_size(), comm_rank(), s->rows_per_block, &d);
	struct buffers B;
	alloc_buffers(s, &d, &B, e);
	for (int64_t b = 0; b < d.nblocks; b++) {
		int64_t first, count;
		dist_block(&d, b, &first, &count);
		read_block(s, &B, first, count, e);
		for (int64_t r = 0; r < count && !e->status; r += B.tile)
			run_tile(s, &B, r, count - r < B.tile ? count - r : B.tile, e);
		feed_reductions(s, &B, first, count, e);
		if (comm_agree(e) < 0)
			break;
		write_block(s, &B, first, count, e);
	}
	for (int k = 0; k < s->nred && !e->status; k++)
		reducer_finish(B.red[k], e);
	free_buffers(s, &B);
	return comm_agree(e);
}
