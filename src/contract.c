/* contract.c - a generalized ufunc's run: the boxes of result cells
 * walked in the layout contract_layout.c chose, their operands read a step
 * of pieces at a time, in place or packed, multiplied, summed, gathered on
 * a shared run, finished by the epilogue and written.  Loops never
 * allocate: everything is allocated before the first box, from the list
 * contract_box.h keeps.  See contract.h.
 */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "contract_box.h"
#include "elementwise.h"
#include "iter.h"
#include "stage.h"

static int role_axis(const struct contract_axes *x, enum core_role r)
{
	for (int i = 0; i < x->ndim; i++)
		if (x->role[i] == r)
			return i;
	return -1;
}

static void strides_of(int ndim, const int64_t *count, int size, ptrdiff_t *stride)
{
	ptrdiff_t st = size;
	for (int i = ndim - 1; i >= 0; i--) {
		stride[i] = st;
		st *= count[i] > 0 ? count[i] : 1;
	}
}
static void run_alloc(struct plan_step *s, struct run *R)
{
	const struct contract *c = s->contract;
	struct box b;
	struct box_bytes m;
	memset(R, 0, sizeof *R);
	R->s = s;
	R->c = c;
	R->psize = dtype_size(c->gemm.pack);
	R->slot = c->grid.gn * c->grid.gm;
	R->nbuf = c->buffers + c->shared;
	R->ops = calloc((size_t)s->prog.nops, sizeof *R->ops);
	R->cast = calloc((size_t)s->prog.nops * RECIPE_MAXIN, sizeof *R->cast);
	if (!R->ops || !R->cast)
		abort();
	contract_box_largest(c, &b);
	contract_box_bytes(s, &b, c->step, &m);
	hold_layout(&R->hold, &c->boxes);
	contract_box_buffers(s, c, &m, R, &R->hold);
	hold_end(&R->hold);
	for (int i = 0; i < R->nbuf; i++)
		memset(R->buf[i], 0, (size_t)m.sums);
	R->a.data = R->a.own;
	R->b.data = R->b.own;
	R->a.row = role_axis(&c->a, ROLE_ROW);
	R->a.depth = role_axis(&c->a, ROLE_DEPTH);
	R->b.row = role_axis(&c->b, ROLE_COL);
	R->b.depth = role_axis(&c->b, ROLE_DEPTH);
	R->ops[0] = R->result;
}

static void run_free(struct run *R)
{
	hold_free(&R->hold);
	free(R->ops);
	free(R->cast);
}

/* Is B's slab A's, the same array and hyperslab (X.T @ X)?  Asked only
 * where every rank asks it of the same box (a shared run, or one
 * process), so that all make the same reads. */
static bool same_slab(const struct run *R)
{
	const struct contract *c = R->c;
	if (R->s->in[0] != R->s->in[1] || !(c->shared || comm_size() == 1))
		return false;
	return !memcmp(R->a.start, R->b.start, sizeof *R->a.start * (size_t)c->a.ndim) &&
	       !memcmp(R->a.count, R->b.count, sizeof *R->a.count * (size_t)c->a.ndim);
}

/* Read operand K's hyperslab of the box for the pieces [P0, P0 + NP).
 * Collective (an empty selection when there is nothing to read); B's is
 * A's when it is the same (same_slab). */
static void read_slab(struct run *R, int k, int64_t p0, int64_t np, struct err *e)
{
	const struct contract *c = R->c;
	const struct cell_grid *g = &c->grid;
	struct slab *x = k ? &R->b : &R->a;
	struct array *in = R->s->in[k];
	int64_t k0 = p0 * g->gk, k1 = (p0 + np) * g->gk;
	k1 = k1 < g->k ? k1 : g->k;
	const struct contract_axes *axes = k ? &c->b : &c->a;
	int64_t n = contract_box_slab(axes, &R->box, k0, np > 0 ? k1 - k0 : 0, x->start, x->count);
	strides_of(axes->ndim, x->count, dtype_size(in->dtype), x->stride);
	x->data = k && same_slab(R) ? R->a.data : x->own;
	if (x->data != x->own)
		return;
	if (stage_read(in, in->dtype, x->start, x->count, x->data, x->data, R->s->where, e) < 0)
		err_place(e, &R->s->loc);
	if (R->s->mask.masked)
		contract_mask_slab(R->s, k, x->start, x->count, x->data, n, &R->mask, e);
}

/* Byte offset in slab X of loop index BI (relative to the box). */
static ptrdiff_t loop_offset(const struct contract_axes *axes, const struct slab *x, const int64_t *bi)
{
	ptrdiff_t off = 0;
	for (int i = 0; i < axes->ndim; i++)
		if (axes->role[i] == ROLE_LOOP && axes->loop[i] >= 0)
			off += bi[axes->loop[i]] * x->stride[i];
	return off;
}

/* BI, a loop index of box B, made the next in C order. */
static void next_index(const struct contract *c, const struct box *b, int64_t *bi)
{
	for (int j = c->nloop - 1; j >= 0 && ++bi[j] == b->lc[j]; j--)
		bi[j] = 0;
}

/* Operand K's validity bytes at loop index BI of the step's slab, as
 * contract_mask_products takes them: A rows by depth, B depth by
 * columns (B's are A's when its slab is). */
static struct byte_view validity_view(const struct run *R, int k, const int64_t *bi)
{
	const struct slab *x = k ? &R->b : &R->a;
	ptrdiff_t el = dtype_size(R->s->in[k]->dtype);
	ptrdiff_t outer = x->row >= 0 ? x->stride[x->row] / el : 0, depth = x->stride[x->depth] / el;
	uint8_t *v = (k && x->data == R->a.data ? R->mask.valid[0] : R->mask.valid[k]) +
		     loop_offset(k ? &R->c->b : &R->c->a, x, bi) / el;
	return k ? (struct byte_view){ v, { depth, outer } } : (struct byte_view){ v, { outer, depth } };
}

/* Masked mode: the box's ANY or'ed, for every loop index, with which
 * results have a product of two valid factors in the step just read. */
static void step_validity(struct run *R)
{
	const struct contract *c = R->c;
	const struct box *b = &R->box;
	int64_t start[H5U_MAXDIM], count[H5U_MAXDIM], bi[H5U_MAXDIM] = {0};
	struct slab out;
	contract_box_slab(&c->c, b, 0, 0, start, count);
	strides_of(c->c.ndim, count, 1, out.stride);
	int row = role_axis(&c->c, ROLE_ROW), col = role_axis(&c->c, ROLE_COL);
	for (int64_t f = 0; f < b->batch; f++) {
		struct byte_view any = { R->mask.any + loop_offset(&c->c, &out, bi),
					 { row >= 0 ? out.stride[row] : 0, col >= 0 ? out.stride[col] : 0 } };
		contract_mask_products(validity_view(R, 0, bi), validity_view(R, 1, bi), b->nr,
				       R->a.count[R->a.depth], b->nc, any);
		next_index(c, b, bi);
	}
}

/* A cell's operand as gemm_cell takes it: row-major, LD elements from
 * one row to the next. */
struct cell_matrix {
	const char *data;
	int64_t ld;
};

/* Operand K's cell (rows of A, or columns of B: LEN of them from FIRST)
 * over DEPTH elements from KOFF of slab X, laid out as the plan's gemm
 * takes it: A (len, depth) or, transposed, (depth, len); B the other way
 * round.  Read in place when the slab holds it so, in the packing dtype
 * and not to be conjugated; else packed into PACK (when FILL; the same
 * cell asked again without FILL finds it there). */
static struct cell_matrix cell_operand(const struct run *R, int k, const struct slab *x, ptrdiff_t off,
				       int64_t first, int64_t len, int64_t koff, int64_t depth,
				       char *pack, bool fill)
{
	const struct contract *c = R->c;
	enum dtype from = R->s->in[k]->dtype, to = c->gemm.pack;
	bool conj = k == 0 && c->conj;
	char *src = x->data + off + koff * x->stride[x->depth];
	ptrdiff_t srow = 0, psize = R->psize;
	if (x->row >= 0) {
		srow = x->stride[x->row];
		src += first * srow;
	}
	/* B is (depth, columns): its natural order is the transpose of A's */
	bool rows_outer = k == 0 ? !c->gemm.a_trans : c->gemm.b_trans;
	int64_t dims[2] = { rows_outer ? len : depth, rows_outer ? depth : len };
	ptrdiff_t sst[2] = { rows_outer ? srow : x->stride[x->depth], rows_outer ? x->stride[x->depth] : srow };
	bool inner = dims[1] <= 1 || sst[1] == psize;
	bool outer = dims[0] <= 1 || (sst[0] % psize == 0 && sst[0] / psize >= dims[1]);
	if (from == to && !conj && inner && outer)
		return (struct cell_matrix){ src, dims[0] > 1 ? sst[0] / psize : dims[1] > 1 ? dims[1] : 1 };
	if (fill) {
		ptrdiff_t dst_st[2] = { dims[1] * psize, psize };
		iter_cast(from, src, sst, to, pack, dst_st, 2, dims);
		if (conj)
			gemm_conjugate(to, pack, len * depth);
	}
	return (struct cell_matrix){ pack, dims[1] > 1 ? dims[1] : 1 };
}

/* The extent of cell INDEX of SIZE along EXTENT (the last one shorter). */
static int64_t cell_extent(int64_t extent, int64_t size, int64_t index)
{
	int64_t first, len;
	cell_span(extent, size, index, 1, &first, &len);
	return len;
}

/* The cells of loop index BI of the box, over piece P (KOFF into the
 * step's slabs), multiplied into the partial sums SUM: B's cells packed
 * first where they must be, then each row of cells with its cell of A. */
static void piece_products(struct run *R, const int64_t *bi, int64_t bflat, int64_t p, int64_t koff,
			   char *sum, bool accumulate)
{
	const struct contract *c = R->c;
	const struct cell_grid *g = &c->grid;
	const struct box *b = &R->box;
	int64_t depth = cell_extent(g->k, g->gk, p);
	ptrdiff_t aoff = loop_offset(&c->a, &R->a, bi), boff = loop_offset(&c->b, &R->b, bi);
	int64_t bpiece = g->gk * g->gm * R->psize;
	for (int64_t j = 0; j < b->nj; j++)
		cell_operand(R, 1, &R->b, boff, (b->j0 + j) * g->gm - b->c0, cell_extent(g->m, g->gm, b->j0 + j),
			     koff, depth, R->bpack + j * bpiece, true);
	char *cell = sum + bflat * b->ni * b->nj * R->slot * R->psize;
	for (int64_t i = 0; i < b->ni; i++) {
		int64_t rows = cell_extent(g->n, g->gn, b->i0 + i);
		struct cell_matrix am = cell_operand(R, 0, &R->a, aoff, (b->i0 + i) * g->gn - b->r0, rows,
						     koff, depth, R->apack, true);
		for (int64_t j = 0; j < b->nj; j++, cell += R->slot * R->psize) {
			int64_t cols = cell_extent(g->m, g->gm, b->j0 + j);
			struct cell_matrix bm = cell_operand(R, 1, &R->b, boff, (b->j0 + j) * g->gm - b->c0,
							     cols, koff, depth, R->bpack + j * bpiece, false);
			gemm_cell(&c->gemm, rows, cols, depth, am.data, am.ld, bm.data, bm.ld, cell, accumulate);
		}
	}
}

struct add_ctx {
	enum dtype pack;
	int64_t n;
};

static void add_sums(char *left, const char *right, const void *ctx)
{
	const struct add_ctx *a = ctx;
	gemm_add(a->pack, left, right, a->n);
}

/* Piece P of the box, KOFF into the step's slabs, for every loop index:
 * into the shard's sum, which is pushed onto the tree when P ends it. */
static void box_piece(struct run *R, int64_t p, int64_t koff, int64_t *shard, char **sum)
{
	const struct cell_grid *g = &R->c->grid;
	const struct box *b = &R->box;
	bool first = p == cell_shard_start(g, *shard);
	if (first)
		*sum = tree_buffer(&R->tree);
	int64_t bi[H5U_MAXDIM] = {0};
	for (int64_t f = 0; f < b->batch; f++) {
		piece_products(R, bi, f, p, koff, *sum, !first);
		next_index(R->c, b, bi);
	}
	if (p + 1 == cell_shard_start(g, *shard + 1)) {
		struct add_ctx ctx = { R->c->gemm.pack, b->cells * R->slot };
		tree_push(&R->tree, (struct tree_node){ 0, *shard }, *sum, add_sums, &ctx);
		(*shard)++;
	}
}

/* Stream the box's operands through in steps, summing this rank's pieces
 * into its tree.  Collective: every rank reads C->nsteps times. */
static void box_sums(struct run *R, bool any, struct err *e)
{
	const struct contract *c = R->c;
	const struct cell_grid *g = &c->grid;
	int64_t p0, np, shard = 0;
	contract_rank_pieces(c, comm_rank(), &p0, &np);
	np = any ? np : 0;
	while (shard + 1 < g->shards && cell_shard_start(g, shard + 1) <= p0)
		shard++;
	char *sum = NULL;
	if (R->mask.any)
		memset(R->mask.any, 0, (size_t)(R->box.batch * R->box.nr * R->box.nc));
	for (int64_t st = 0; st < c->nsteps; st++) {
		int64_t q0 = p0 + st * c->step, nq = p0 + np - q0;
		nq = nq < 0 ? 0 : nq < c->step ? nq : c->step;
		read_slab(R, 0, q0, nq, e);
		read_slab(R, 1, q0, nq, e);
		if (R->mask.any && nq > 0 && !e->status)
			step_validity(R);
		for (int64_t p = q0; p < q0 + nq && !e->status; p++)
			box_piece(R, p, (p - q0) * g->gk, &shard, &sum);
	}
	if (any && g->pieces == 0 && (!c->shared || comm_rank() == 0)) {
		/* an empty contraction: sums of nothing, 0 (False) */
		sum = tree_buffer(&R->tree);
		memset(sum, 0, (size_t)(R->box.cells * R->slot * R->psize));
		tree_push(&R->tree, (struct tree_node){ 0, 0 }, sum, add_sums, NULL);
	}
}

/* A shared run: every rank's partial sums of the box onto rank 0, in rank
 * order (the order of the shards), where the tree ends at its root. */
static void gather_sums(struct run *R)
{
	int64_t bytes = R->box.cells * R->slot * R->psize;
	struct add_ctx ctx = { R->c->gemm.pack, R->box.cells * R->slot };
	if (R->mask.any)
		contract_mask_gather(&R->mask, R->box.batch * R->box.nr * R->box.nc);
	if (comm_rank() != 0) {
		int64_t n = R->tree.n;
		comm_send(&n, sizeof n, 0);
		for (int i = 0; i < R->tree.n; i++) {
			comm_send(&R->tree.node[i], sizeof R->tree.node[i], 0);
			comm_send(R->tree.data[i], (size_t)bytes, 0);
		}
		return;
	}
	for (int r = 1; r < comm_size(); r++) {
		int64_t n = 0;
		comm_recv(&n, sizeof n, r);
		for (int64_t i = 0; i < n; i++) {
			struct tree_node nd;
			char *data = tree_buffer(&R->tree);
			comm_recv(&nd, sizeof nd, r);
			comm_recv(data, (size_t)bytes, r);
			tree_push(&R->tree, nd, data, add_sums, &ctx);
		}
	}
}

/* The epilogue over the N results of the box: each op on the results
 * before it (cast to its loop first) and numbers.  Returns the last one's. */
static char *run_epilogue(struct run *R, int64_t n, struct err *e)
{
	const struct plan_step *s = R->s;
	for (int j = 1; j < s->prog.nops; j++) {
		const struct plan_op *op = &s->prog.ops[j];
		char *args[UF_MAXARGS];
		ptrdiff_t steps[UF_MAXARGS];
		for (int k = 0; k < op->nin; k++) {
			enum dtype t = op->loop->types[k];
			struct op_src src = op->src[k];
			bool literal = src_is_literal(src);
			steps[k] = literal ? 0 : dtype_size(t);
			args[k] = literal ? (char *)op->lit[k] : R->ops[src.op];
			enum dtype from = literal ? t : elementwise_source_dtype(s, src);
			if (from != t) {
				dtype_cast(from, args[k], dtype_size(from), t, R->cast[j * RECIPE_MAXIN + k],
					   dtype_size(t), (size_t)n);
				args[k] = R->cast[j * RECIPE_MAXIN + k];
			}
		}
		args[op->nin] = R->ops[j];
		steps[op->nin] = dtype_size(op->loop->types[op->nin]);
		op->loop->fn(args, (size_t)n, steps);
		enum ufunc_fault f = ufunc_take_error();
		if (f != UFERR_NONE)
			err_set_at(e, EXIT_RUN, op->loc, op->where, "%s", ufunc_fault_message(f));
	}
	return R->ops[s->prog.out_src[0].op];
}

/* The box's results (SUM, the tree's root; NULL: none here) into the
 * result box, in the loop's dtype, through the epilogue, then written.
 * Collective. */
static void write_box(struct run *R, const char *sum, struct err *e)
{
	const struct contract *c = R->c;
	const struct cell_grid *g = &c->grid;
	const struct box *b = &R->box;
	struct array *y = R->s->out[0];
	int64_t start[H5U_MAXDIM], count[H5U_MAXDIM], bi[H5U_MAXDIM] = {0};
	ptrdiff_t stride[H5U_MAXDIM];
	struct box none;
	memset(&none, 0, sizeof none);
	if (!sum)
		b = &none;   /* nothing to write here: an empty selection */
	contract_box_slab(&c->c, b, 0, 0, start, count);
	strides_of(c->c.ndim, count, dtype_size(c->gemm.t), stride);
	int row = role_axis(&c->c, ROLE_ROW), col = role_axis(&c->c, ROLE_COL);
	struct slab out = { .data = R->result };
	memcpy(out.stride, stride, sizeof stride);
	for (int64_t f = 0; f < b->batch; f++) {
		char *base = R->result + loop_offset(&c->c, &out, bi);
		for (int64_t i = 0; i < b->ni; i++)
			for (int64_t j = 0; j < b->nj; j++) {
				int64_t dims[2] = { cell_extent(g->n, g->gn, b->i0 + i), cell_extent(g->m, g->gm, b->j0 + j) };
				ptrdiff_t sst[2] = { dims[1] * R->psize, R->psize };
				ptrdiff_t dst[2] = { row >= 0 ? stride[row] : 0, col >= 0 ? stride[col] : 0 };
				char *to = base + ((b->i0 + i) * g->gn - b->r0) * dst[0] +
					   ((b->j0 + j) * g->gm - b->c0) * dst[1];
				const char *from = sum + ((f * b->ni + i) * b->nj + j) * R->slot * R->psize;
				iter_cast(c->gemm.pack, (char *)from, sst, c->gemm.t, to, dst, 2, dims);
			}
		next_index(c, b, bi);
	}
	int64_t n = b->batch * b->nr * b->nc;
	char *data = run_epilogue(R, n, e);
	const struct step_mask *m = &R->s->mask;
	if (m->masked)   /* on error too: every rank makes the same writes */
		contract_mask_results(R->s, &R->mask, src_is_result(m->valid_src)
				      ? (const uint8_t *)R->ops[m->valid_src.op] : NULL, start, count, n, data, e);
	if (stage_write(y, R->s->out_dtype[0], start, count, data, R->conv, R->s->where, e) < 0)
		err_place(e, &R->s->loc);
}

int contract_run(struct plan_step *s, struct err *e)
{
	const struct contract *c = s->contract;
	struct run R;
	run_alloc(s, &R);
	struct dist_walk w;
	dist_walk_start(&c->boxes, c->shared ? 0 : comm_rank(), &w);
	for (int64_t n = 0; n < c->boxes.nboxes; n++) {
		int64_t start[H5U_MAXDIM + 2], count[H5U_MAXDIM + 2];
		bool any = dist_walk_next(&w, start, count);
		contract_box_of(c, start, count, &R.box);
		tree_start(&R.tree, &c->grid, R.buf, R.nbuf);
		box_sums(&R, any, e);
		if (comm_agree(e) < 0)
			break;
		if (c->shared)
			gather_sums(&R);
		write_box(&R, any ? tree_root(&R.tree) : NULL, e);
	}
	run_free(&R);
	return comm_agree(e);
}
