/* elementwise.c - an elementwise step's loop: boxes read, computed tile
 * by tile, fed to fused reductions and written.  See elementwise.h; the
 * memory model (what a run holds, the slices, the boxes) is
 * elementwise_layout.c's.
 *
 * What a run holds (struct buffers, elementwise_internal.h) is listed once
 * (elementwise_each_buffer) for both elementwise_layout, which counts it,
 * and alloc_buffers, which allocates it: each input's buffer (its part of
 * a box, or the whole input when it broadcasts and is small); each op
 * output's buffer (a box when the step writes or reduces it, a tile
 * otherwise); each op input cast to the loop's dtype (a tile, or the whole
 * cast input once); each output cast to its dataset's dtype (a box); each
 * fused reduction's accumulators and cast input.  Loops never allocate:
 * everything is allocated before the first box.
 */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "dist.h"
#include "elementwise_internal.h"
#include "h5io.h"
#include "hold.h"
#include "iter.h"
#include "masked.h"
#include "reduce.h"
#include "reducer.h"
#include "report.h"
#include "stage.h"
#include "where.h"

enum dtype elementwise_source_dtype(const struct plan_step *s, struct op_src src)
{
	if (src_is_result(src)) {
		const struct plan_op *from = &s->prog.ops[src.op];
		return from->loop->types[from->nin + src.out];
	}
	return s->in[src.input]->dtype;
}
/* ---- the loop --------------------------------------------------------- */

/* The box O/C of the step's index space (NDIM axes) as a box of an array of
 * shape X that broadcasts as DIMS (padded to NDIM): START/CNT over X's own
 * axes, 0 along the axes where it broadcasts, all 0 when the box is empty. */
static void array_box(const struct shape *x, int ndim, const int64_t *dims, const int64_t *o,
		      const int64_t *c, int64_t *start, int64_t *cnt)
{
	bool any = stage_box_size(ndim, c) > 0;
	int pad = ndim - x->ndim;
	for (int i = 0; i < x->ndim; i++) {
		start[i] = dims[pad + i] == 1 ? 0 : o[pad + i];
		cnt[i] = !any ? 0 : dims[pad + i] == 1 ? 1 : c[pad + i];
	}
	if (x->ndim == 0) {
		start[0] = 0;
		cnt[0] = any;
	}
}

/* The inputs' extents: each read by boxes (of at most BOXMAX) or whole. */
static void input_extents(struct plan_step *s, struct buffers *B, const int64_t *boxmax)
{
	for (int k = 0; k < s->nin; k++) {
		struct input_buf *in = &B->in[k];
		if (s->in[k]->kind == ARR_LITERAL)
			continue;
		in->by_box = !elementwise_reads_whole(s, k);
		int pad = B->ndim - s->bshape[k].ndim;
		for (int i = 0; i < B->ndim; i++) {
			in->dims[i] = i < pad ? 1 : s->bshape[k].dim[i - pad];
			in->ext[i] = in->by_box && in->dims[i] != 1 ? boxmax[i] : in->dims[i];
			in->origin[i] = 0;
		}
	}
}

/* The inputs held whole, read, and cast once for the ops that take them
 * in another dtype. */
static void read_whole_inputs(struct plan_step *s, struct buffers *B, struct err *e)
{
	for (int k = 0; k < s->nin; k++) {
		struct array *x = s->in[k];
		if (x->kind == ARR_LITERAL || B->in[k].by_box)
			continue;
		int64_t start[H5U_MAXDIM], cnt[H5U_MAXDIM];
		stage_row_box(&x->shape, 0, shape_rows(&x->shape), start, cnt);
		if (stage_read(x, x->dtype, start, cnt, B->in[k].raw, B->in[k].data, s->where, e) < 0)
			err_place(e, &s->loc);
	}
	for (int j = 0; j < s->prog.nops; j++) {
		const struct plan_op *op = &s->prog.ops[j];
		for (int k = 0; k < op->nin; k++) {
			struct op_src src = op->src[k];
			char *c = B->conv[j * RECIPE_MAXIN + k];
			if (!src_is_input(src) || !c || B->in[src.input].by_box)
				continue;
			const struct input_buf *in = &B->in[src.input];
			enum dtype from = elementwise_source_dtype(s, src), t = op->loop->types[k];
			dtype_cast(from, in->data, dtype_size(from), t, c, dtype_size(t),
				   (size_t)stage_box_size(B->ndim, in->ext));
		}
	}
}

/* Every buffer of a run of S over its layout: what elementwise_each_buffer lists, as
 * the layout was sized by. */
static void alloc_buffers(struct plan_step *s, struct buffers *B, struct err *e)
{
	memset(B, 0, sizeof *B);
	const struct dist_layout *l = &s->blocks.split;
	B->l = l;
	B->ndim = l->ndim;
	B->line = l->line;
	B->box_lines = l->lines_per_box;
	B->slices = elementwise_slices(s, &B->per_write);
	/* a tile of a slice's lines: no more elements than a tile's buffers hold */
	int64_t line = B->slices > 1 ? l->line / l->dim[l->ndim - 1] * l->slice : l->line;
	B->tile = line > 0 ? dist_held_elems(l, DIST_PER_TILE) / line : 1;
	B->tile = B->tile < 1 ? 1 : B->tile < B->box_lines ? B->tile : B->box_lines;
	int64_t boxmax[H5U_MAXDIM];
	for (int i = 0; i < B->ndim; i++)
		boxmax[i] = i < l->axis ? 1 : i == l->axis ? B->box_lines : l->dim[i];
	B->ntmp = (size_t)src_slots(s->prog.nops);
	B->nconv = (size_t)s->prog.nops * RECIPE_MAXIN;
	B->tmp = stage_alloc(sizeof *B->tmp * B->ntmp);
	B->faulted = stage_alloc(sizeof *B->faulted * (size_t)(s->prog.nops ? s->prog.nops : 1));
	B->whole_tmp = stage_alloc(sizeof *B->whole_tmp * B->ntmp);
	B->conv = stage_alloc(sizeof *B->conv * B->nconv);
	memset(B->tmp, 0, sizeof *B->tmp * B->ntmp);
	memset(B->whole_tmp, 0, sizeof *B->whole_tmp * B->ntmp);
	memset(B->conv, 0, sizeof *B->conv * B->nconv);
	for (int j = 0; j < s->prog.nops; j++)
		for (int k = 0; k < s->prog.ops[j].nout; k++)
			B->whole_tmp[src_slot(src_result(j, k))] = elementwise_whole_result(s, src_result(j, k));
	input_extents(s, B, boxmax);
	B->chunked_in = elementwise_chunk_input(s, l->cost.memory);
	hold_layout(&B->hold, l);
	elementwise_each_buffer(s, l->nranks, B, &B->hold);
	/* the run holds no more than the boxes were sized by (the optimizer
	 * drops outputs no step reads and repeated inputs after the last
	 * layout, and adds nothing) */
	hold_end(&B->hold);
	B->chunked_band = B->chunked_in >= 0 ? elementwise_band_bytes(s, B->chunked_in) : 0;
	if (B->chunked_band > 0) {
		B->chunked_cap = B->chunked_band;
	} else if (B->chunked_in >= 0) {
		const struct array *x = s->in[B->chunked_in];
		B->chunked_cap = stage_chunked_buffer(x, x->dtype, B->in[B->chunked_in].data,
						      dist_held_elems(l, DIST_PER_ELEM));
	}
	read_whole_inputs(s, B, e);
	for (int k = 0; k < s->nout && s->mask.masked; k++)
		dtype_cast(s->out[k]->dtype, s->mask.fill[k], 0, s->out_dtype[k], B->masked[k], 0, 1);
	for (int k = 0; k < s->nout && s->mask.has_where; k++) {
		const struct array *y = s->out[k];
		if (!y->create)
			continue;
		B->keep[k] = (char *)B->fill[k];
		dtype_cast(y->dtype, y->fill, 0, s->out_dtype[k], B->keep[k], 0, 1);
	}
}

static void free_buffers(struct plan_step *s, struct buffers *B)
{
	for (int k = 0; k < s->fused.nred; k++)
		reducer_free(B->red[k]);
	hold_free(&B->hold);
	free(B->tmp);
	free(B->whole_tmp);
	free(B->conv);
	free(B->faulted);
}

/* The inputs read by boxes: their parts of the current box (the chunked
 * input's folded into the reductions as its bands are read, where
 * reducer_box_bands takes it). */
static void read_box(struct plan_step *s, struct buffers *B, struct err *e)
{
	int64_t start[H5U_MAXDIM], cnt[H5U_MAXDIM];
	B->banded = false;
	for (int k = 0; k < s->nin; k++) {
		struct input_buf *in = &B->in[k];
		if (!in->by_box || s->in[k]->kind == ARR_LITERAL)
			continue;
		for (int i = 0; i < B->ndim; i++) {
			in->origin[i] = in->dims[i] == 1 ? 0 : B->o[i];
			in->ext[i] = in->dims[i] == 1 ? 1 : B->c[i];
		}
		array_box(&s->in[k]->shape, B->ndim, in->dims, B->o, B->c, start, cnt);
		const struct array *x = s->in[k];
		int got = 0;
		if (k == B->chunked_in && B->slices == 1) {
			/* folded into the reductions as read, or read whole */
			got = reducer_box_bands(B->red, s->fused.nred, x, x->dtype, start, cnt, in->data,
						B->chunked_cap, B->chunked_band == 0, s->where, e);
			B->banded = got > 0;
			if (got == 0)
				got = stage_read_chunks(x, x->dtype, start, cnt, in->data, B->chunked_cap,
							&B->chunked, s->where, e);
		}
		B->from_chunks = got > 0 && !B->banded;
		if (got < 0 || (got == 0 && stage_read(x, x->dtype, start, cnt, in->raw, in->data, s->where, e) < 0))
			err_place(e, &s->loc);
	}
}

/* Byte offset of the index P of the step's space in a C-ordered buffer of
 * extents EXT that starts at ORIGIN (axes of DIMS 1: broadcast, offset 0). */
static ptrdiff_t buffer_offset(int ndim, const int64_t *dims, const int64_t *ext,
			       const int64_t *origin, const int64_t *p, int size)
{
	ptrdiff_t off = 0, st = size;
	for (int i = ndim - 1; i >= 0; i--) {
		if (dims[i] != 1)
			off += (ptrdiff_t)(p[i] - origin[i]) * st;
		st *= ext[i];
	}
	return off;
}

/* Where op result SLOT (SIZE bytes an element) holds the tile at P of
 * extents TILE, and in *EXT the extents of what holds it: a result the
 * step writes or reduces holds the slice or the box (B's WO/WC), another
 * the tile. */
static char *result_at(const struct buffers *B, int slot, int size, const int64_t *p,
		       const int64_t *tile, const int64_t **ext)
{
	if (!B->whole_tmp[slot]) {
		*ext = tile;
		return B->tmp[slot];
	}
	*ext = B->wc;
	return B->tmp[slot] + buffer_offset(B->ndim, B->l->dim, B->wc, B->wo, p, size);
}

/* Operand K of op J over the tile at P of extents TILE: *BASE and its
 * strides ST, cast to the loop's dtype. */
static void op_operand(const struct plan_step *s, const struct buffers *B, int j, int k,
		       const int64_t *p, const int64_t *tile, char **base, ptrdiff_t *st)
{
	const struct plan_op *op = &s->prog.ops[j];
	struct op_src src = op->src[k];
	if (src_is_literal(src)) {
		*base = (char *)op->lit[k];
		memset(st, 0, sizeof(iter_strides));
		return;
	}
	enum dtype t = op->loop->types[k], from = elementwise_source_dtype(s, src);
	int64_t ext[H5U_MAXDIM];   /* what *BASE holds around the tile */
	char *c = B->conv[j * RECIPE_MAXIN + k];
	memcpy(ext, tile, sizeof ext);
	const int64_t *sext = ext;   /* the extents its strides are taken from */
	if (src_is_result(src)) {
		*base = result_at(B, src_slot(src), dtype_size(from), p, tile, &sext);
	} else {
		const struct input_buf *in = &B->in[src.input];
		/* the tile's part of the input: 1 where it broadcasts */
		for (int i = 0; i < B->ndim; i++)
			ext[i] = in->dims[i] == 1 ? 1 : tile[i];
		if (in->by_box) {
			*base = in->data + buffer_offset(B->ndim, in->dims, in->ext, in->origin, p,
							 dtype_size(from));
		} else {
			/* held whole (and cast once, before the boxes) */
			int size = dtype_size(c ? t : from);
			*base = (c ? c : in->data) + buffer_offset(B->ndim, in->dims, in->ext, in->origin, p, size);
			memcpy(ext, in->ext, sizeof ext);
			ext[B->l->axis] = in->dims[B->l->axis] == 1 ? 1 : tile[B->l->axis];
			for (int i = 0; i < B->l->axis; i++)
				ext[i] = 1;
			c = NULL;
		}
	}
	if (c) {   /* (a result held in a box's buffer is never cast: elementwise_slices) */
		dtype_cast(from, *base, dtype_size(from), t, c, dtype_size(t),
			   (size_t)stage_box_size(B->ndim, ext));
		*base = c;
		sext = ext;
	}
	iter_contiguous(B->ndim, sext, tile, dtype_size(t), st);
}

/* Op J's operands and results over the tile at P of extents TILE: BASE and
 * strides ST. */
static void op_args(struct plan_step *s, struct buffers *B, int j, const int64_t *p,
		    const int64_t *tile, char **base, iter_strides *st)
{
	const struct plan_op *op = &s->prog.ops[j];
	for (int k = 0; k < op->nin; k++)
		op_operand(s, B, j, k, p, tile, &base[k], st[k]);
	for (int k = 0; k < op->nout; k++) {
		int size = dtype_size(op->loop->types[op->nin + k]);
		const int64_t *ext;
		base[op->nin + k] = result_at(B, src_slot(src_result(j, k)), size, p, tile, &ext);
		iter_contiguous(B->ndim, ext, tile, size, st[op->nin + k]);
	}
}

/* Op J of the tile again, one element at a time and only where S computes
 * its result (SEL, C-ordered over TILE): the fault one of them raises, if
 * any.  Taken only after op J raised one, so never on the fast path. */
static enum ufunc_fault fault_where_selected(struct plan_step *s, struct buffers *B, int j,
					     const int64_t *p, const int64_t *tile, const uint8_t *sel)
{
	const struct plan_op *op = &s->prog.ops[j];
	char *base[UF_MAXARGS], *args[UF_MAXARGS];
	iter_strides st[UF_MAXARGS];
	ptrdiff_t one[UF_MAXARGS] = {0};
	op_args(s, B, j, p, tile, base, st);
	int nargs = op->nin + op->nout, nd = B->ndim;
	int64_t idx[H5U_MAXDIM] = {0}, n = stage_box_size(nd, tile);
	enum ufunc_fault f = UFERR_NONE;
	for (int64_t i = 0; i < n && f == UFERR_NONE; i++) {
		if (sel[i]) {
			for (int a = 0; a < nargs; a++) {
				args[a] = base[a];
				for (int d = 0; d < nd; d++)
					args[a] += idx[d] * st[a][d];
			}
			op->loop->fn(args, 1, one);
			f = ufunc_take_error();
		}
		for (int d = nd - 1; d >= 0 && ++idx[d] == tile[d]; d--)
			idx[d] = 0;
	}
	return f;
}

/* Every op of S over the tile of lines [R, R+N) of the slice.  With where=
 * or masks, a fault raised by the step's own program counts only where the
 * step computes its result (NumPy does not compute the others). */
static void run_tile(struct plan_step *s, struct buffers *B, int64_t r, int64_t n, struct err *e)
{
	int64_t tile[H5U_MAXDIM], p[H5U_MAXDIM];
	int axis = B->l->axis;
	bool selective = s->mask.has_where || s->mask.masked, any = false;
	memcpy(tile, B->c, sizeof tile);
	memcpy(p, B->o, sizeof p);
	tile[axis] = n;
	p[axis] += r;
	for (int j = 0; j < s->prog.nops; j++) {
		const struct plan_op *op = &s->prog.ops[j];
		char *base[UF_MAXARGS];
		iter_strides st[UF_MAXARGS];
		op_args(s, B, j, p, tile, base, st);
		iter_loop(op->loop->fn, op->nin + op->nout, base, B->ndim, tile, st);
		enum ufunc_fault f = ufunc_take_error();
		B->faulted[j] = f != UFERR_NONE && selective && j < s->prog.own_ops;
		any = any || B->faulted[j];
		if (f != UFERR_NONE && !B->faulted[j])
			err_set_at(e, EXIT_RUN, op->loc, op->where, "%s", ufunc_fault_message(f));
	}
	const uint8_t *sel = any ? (const uint8_t *)B->tmp[src_slot(s->mask.print_src)] + r * B->line : NULL;
	for (int j = 0; any && j < s->prog.nops; j++) {
		enum ufunc_fault f = B->faulted[j] ? fault_where_selected(s, B, j, p, tile, sel) : UFERR_NONE;
		if (f != UFERR_NONE)
			err_set_at(e, EXIT_RUN, s->prog.ops[j].loc, s->prog.ops[j].where, "%s",
				   ufunc_fault_message(f));
	}
}

/* The box into the fused reductions (whose boxes they are, see
 * reducer_max_axis). */
static void feed_reductions(struct plan_step *s, struct buffers *B, struct err *e)
{
	/* a box of rows with no elements still starts its rows' results */
	int64_t count = stage_box_size(B->ndim, B->c);
	if (B->banded)
		return;   /* folded as read (read_box) */
	if (B->from_chunks && B->c[B->l->axis] > 0) {
		reducer_box_chunked(B->red, s->fused.nred, &B->chunked, B->run, B->o, B->c, e);
		return;
	}
	for (int k = 0; k < s->fused.nred && B->c[B->l->axis] > 0 && !e->status; k++) {
		struct op_src src = s->fused.red_src[k];
		enum dtype t = s->fused.red[k]->loop->types[1], from = elementwise_source_dtype(s, src);
		char *data = src_is_result(src) ? B->tmp[src_slot(src)] : B->in[src.input].data;
		if (from != t) {
			dtype_cast(from, data, dtype_size(from), t, B->redconv[k], dtype_size(t),
				   (size_t)count);
			data = B->redconv[k];
		}
		reducer_box(B->red[k], data, NULL, B->o, B->c);
		reducer_check_fault(s->fused.red[k], e);
	}
}

/* Output K's elements of the box (COUNT elements, START/CNT in the
 * output) that are not results: where a mask masks them, the output's fill
 * value; where where= is false, what the output keeps there (an existing
 * dataset's own values, read back first, collective; a new one's fill
 * value).  *DATA and *T are the values to write and their dtype: the
 * results in the step's output dtype, or, for an existing dataset of
 * another dtype, the results cast to its own and merged there, so that
 * what where= keeps is never cast to the loop's dtype and back (int64
 * would truncate a complex output's own values); B->keep[k] is then the
 * write's conversion buffer. */
static void keep_unselected(struct plan_step *s, struct buffers *B, int k, const int64_t *start,
			    const int64_t *cnt, int64_t count, const char **out, enum dtype *out_t,
			    struct err *e)
{
	struct array *y = s->out[k];
	enum dtype t = s->out_dtype[k];
	char *data = B->tmp[src_slot(s->prog.out_src[k])];
	if (s->mask.masked) {   /* written still when it fails: collective */
		masked_fill_apart(s, k, t, count, data, (const uint8_t *)B->tmp[src_slot(s->mask.print_src)],
				  e);
		where_select(t, count, data, (const uint8_t *)B->tmp[src_slot(s->mask.valid_src)],
			     (const char *)B->masked[k], 0);
	}
	if (!s->mask.has_where)
		return;
	const uint8_t *mask = (const uint8_t *)B->tmp[src_slot(s->mask.where_src)];
	if (y->create) {
		where_select(t, count, data, mask, B->keep[k], 0);
		return;
	}
	enum dtype own = y->dtype == t ? t : y->dtype;
	if (stage_read(y, own, start, cnt, B->outconv[k], B->keep[k], s->where, e) < 0) {
		err_place(e, &s->loc);
		return;
	}
	if (own != t) {
		dtype_cast(t, data, dtype_size(t), own, B->outconv[k], dtype_size(own), (size_t)count);
		data = B->outconv[k];
		*out = data;
		*out_t = own;
	}
	where_select(own, count, data, mask, B->keep[k], dtype_size(own));
}

/* The box START/CNT of output Y behind the box O/C of the step's space. */
static void output_box(const struct buffers *B, const struct array *y, const int64_t *o,
		       const int64_t *c, int64_t *start, int64_t *cnt)
{
	int64_t full[H5U_MAXDIM];
	for (int i = 0; i < B->ndim; i++)
		full[i] = B->l->dim[i];
	array_box(&y->shape, B->ndim, full, o, c, start, cnt);
}

/* The box's results: outputs and the reductions' finished rows. */
static void write_box(struct plan_step *s, struct buffers *B, struct err *e)
{
	int64_t start[H5U_MAXDIM], cnt[H5U_MAXDIM];
	int64_t count = stage_box_size(B->ndim, B->c);
	for (int k = 0; k < s->nout; k++) {
		output_box(B, s->out[k], B->o, B->c, start, cnt);
		const char *data = B->tmp[src_slot(s->prog.out_src[k])];
		enum dtype t = s->out_dtype[k];
		if (s->mask.has_where || s->mask.masked)
			keep_unselected(s, B, k, start, cnt, count, &data, &t, e);
		char *conv = t == s->out_dtype[k] ? B->outconv[k] : B->keep[k];
		if (stage_write(s->out[k], t, start, cnt, data, conv, s->where, e) < 0)
			err_place(e, &s->loc);
	}
	if ((s->mask.has_where || s->mask.masked) && !s->out[0]->dry) {
		const uint8_t *shown = (const uint8_t *)B->tmp[src_slot(s->mask.print_src)];
		int64_t n = 0;
		for (int64_t i = 0; i < count; i++)
			n += !shown[i];
		report_masked(n);
	}
	if (s->mask.out) {
		output_box(B, s->mask.out, B->o, B->c, start, cnt);
		if (stage_write(s->mask.out, DT_BOOL, start, cnt, B->tmp[src_slot(s->mask.print_src)], NULL,
				s->where, e) < 0)
			err_place(e, &s->loc);
	}
	for (int k = 0; k < s->fused.nred; k++)
		reducer_write_box(B->red[k], B->o, B->c, e);
}

/* Announce every box this rank writes into a dataset in place before the
 * first, so that the journal saves them in a few records (journal.h), and
 * say so to the writes (ANNOUNCED; false again when the run ends). */
static void announce_writes(struct plan_step *s, const struct buffers *B, bool announced)
{
	int64_t o[H5U_MAXDIM], c[H5U_MAXDIM], start[H5U_MAXDIM], cnt[H5U_MAXDIM];
	bool any = false;
	for (int k = 0; k < s->nout; k++) {
		any |= s->out[k]->in_place;
		s->out[k]->announced = announced && s->out[k]->in_place;
	}
	if (!any || !announced)
		return;
	struct dist_walk w;
	dist_walk_start(&s->blocks.split, comm_rank(), &w);
	for (int64_t b = 0; b < s->blocks.split.nboxes && dist_walk_next(&w, o, c); b++)
		for (int k = 0; k < s->nout; k++) {
			output_box(B, s->out[k], o, c, start, cnt);
			stage_expect(s->out[k], start, cnt);
		}
}

/* Make slice J of B's box the current one, and say what the whole results
 * hold: the slices written with it (B's per_write, whose group holds J). */
static void slice_of(struct buffers *B, int64_t j)
{
	int last = B->ndim - 1;
	int64_t first = j - j % B->per_write, end = first + B->per_write - 1, o[H5U_MAXDIM],
		c[H5U_MAXDIM];
	if (end >= B->slices)
		end = B->slices - 1;
	if (B->slices == 1) {   /* the box whole (l->slice may still be set) */
		memcpy(B->o, B->bo, sizeof B->o);
		memcpy(B->c, B->bc, sizeof B->c);
		memcpy(B->wo, B->bo, sizeof B->wo);
		memcpy(B->wc, B->bc, sizeof B->wc);
		return;
	}
	dist_slice(B->l, B->bo, B->bc, j, B->o, B->c);
	dist_slice(B->l, B->bo, B->bc, first, B->wo, B->wc);
	dist_slice(B->l, B->bo, B->bc, end, o, c);
	B->wc[last] = o[last] + c[last] - B->wo[last];
}

/* The results of the slices B's whole results hold: fed to the reductions
 * and, when every rank has done without an error, written. */
static int finish(struct plan_step *s, struct buffers *B, struct err *e)
{
	memcpy(B->o, B->wo, sizeof B->o);
	memcpy(B->c, B->wc, sizeof B->c);
	feed_reductions(s, B, e);
	if (comm_agree(e) < 0)
		return -1;
	write_box(s, B, e);
	return 0;
}

/* Slice J of the box B holds: its inputs read, its ops run over tiles of
 * its lines, and its results finished when it ends a write; -1 when the
 * ranks agree on an error (finish). */
static int run_slice(struct plan_step *s, struct buffers *B, int64_t j, struct err *e)
{
	slice_of(B, j);
	int64_t n = B->c[s->blocks.split.axis];
	read_box(s, B, e);
	for (int64_t r = 0; r < n && !e->status; r += B->tile)
		run_tile(s, B, r, n - r < B->tile ? n - r : B->tile, e);
	if ((j + 1) % B->per_write == 0 || j + 1 == B->slices)
		return finish(s, B, e);
	return 0;
}

/* Each box of the run, a slice at a time (run_slice), its results written
 * a slice, a band of slices or a box at a time; or, by_columns, each slice
 * of every box in turn, a chunk column at a time (elementwise_by_columns). */
int elementwise_run(struct plan_step *s, struct err *e)
{
	struct buffers B;
	alloc_buffers(s, &B, e);
	announce_writes(s, &B, true);
	const struct dist_layout *l = &s->blocks.split;
	struct dist_walk w;
	bool stop = false;
	if (s->blocks.by_columns) {   /* slice J of every box, then J + 1 */
		for (int64_t j = 0; j < B.slices && !stop; j++) {
			dist_walk_start(l, comm_rank(), &w);
			for (int64_t b = 0; b < l->nboxes && !stop; b++) {
				dist_walk_next(&w, B.bo, B.bc);
				stop = run_slice(s, &B, j, e) < 0;
			}
		}
	} else {   /* each box's slices in turn */
		dist_walk_start(l, comm_rank(), &w);
		for (int64_t b = 0; b < l->nboxes && !stop; b++) {
			dist_walk_next(&w, B.bo, B.bc);
			for (int64_t j = 0; j < B.slices && !stop; j++)
				stop = run_slice(s, &B, j, e) < 0;
		}
	}
	for (int k = 0; k < s->fused.nred && !e->status; k++)
		reducer_finish(B.red[k], e);
	announce_writes(s, &B, false);
	free_buffers(s, &B);
	return comm_agree(e);
}
