/* contract.c - a generalized ufunc's step: its memory model and its run.
 * See contract.h.
 *
 * What a run holds, and what contract_layout counts: for the box of
 * result cells in flight, the partial sums (cell_tree_buffers of them,
 * one more on a shared run for what rank 0 receives), the result box in
 * the loop's dtype and, when the output's differs, cast; each operand's
 * hyperslab of the box for one step of pieces, as stored; and, for one
 * loop index and one piece, a cell of A and the box's cells of B, packed
 * as the block products read them (gemm.h) where the slab does not
 * already hold them so; in masked mode, the bytes of contract_mask.h.
 * One list of them (each_buffer, hold.h) is what
 * both count and allocate.  Loops never allocate: everything is allocated
 * before the first box.
 */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "contract.h"
#include "contract_mask.h"
#include "elementwise.h"
#include "hold.h"
#include "iter.h"
#include "report.h"
#include "stage.h"

#define IO_LIMIT ((int64_t)1 << 31)   /* bytes no I/O call reaches */
#define SMALL_CELLS 4096              /* elements of results too few to share out */
#ifndef SUMS_CACHE
#define SUMS_CACHE ((int64_t)2 << 20)   /* bytes of a box's partial sum that stay in cache */
#endif
#define FULL_STEP_GAIN 1.25           /* a box that reads its operands' whole rows may
					 read this much more in all */

/* ---- a box of cells, and what it covers ---- */

struct box {
	int64_t lo[H5U_MAXDIM], lc[H5U_MAXDIM];   /* the loop box */
	int64_t i0, ni, j0, nj;                   /* cells along rows, along columns */
	int64_t r0, nr, c0, nc;                   /* rows, columns */
	int64_t batch, cells;                     /* loop indexes, cells */
};

/* The box START/COUNT of C's cell space (loop..., ni, nj). */
static void box_of(const struct contract *c, const int64_t *start, const int64_t *count,
		   struct box *b)
{
	const struct cell_grid *g = &c->grid;
	b->batch = 1;
	for (int j = 0; j < c->nloop; j++) {
		b->lo[j] = start[j];
		b->lc[j] = count[j];
		b->batch *= count[j];
	}
	b->i0 = start[c->nloop];
	b->ni = count[c->nloop];
	b->j0 = start[c->nloop + 1];
	b->nj = count[c->nloop + 1];
	cell_span(g->n, g->gn, b->i0, b->ni, &b->r0, &b->nr);
	cell_span(g->m, g->gm, b->j0, b->nj, &b->c0, &b->nc);
	b->cells = b->batch * b->ni * b->nj;
}

/* Operand X's part of box B over the depth range [K0, K0 + NK): START and
 * COUNT over X's axes (all 0 when the box is empty; a 0-d result's one
 * element is COUNT[0], as stage.h counts it).  Returns its elements. */
static int64_t operand_slab(const struct contract_axes *x, const struct box *b, int64_t k0,
			    int64_t nk, int64_t *start, int64_t *count)
{
	int64_t n = x->ndim ? 1 : b->cells > 0;
	start[0] = 0;
	count[0] = n;
	for (int i = 0; i < x->ndim; i++) {
		switch (x->role[i]) {
		case ROLE_LOOP:
			start[i] = x->loop[i] < 0 ? 0 : b->lo[x->loop[i]];
			count[i] = x->loop[i] < 0 ? 1 : b->lc[x->loop[i]];
			break;
		case ROLE_ROW:
			start[i] = b->r0;
			count[i] = b->nr;
			break;
		case ROLE_COL:
			start[i] = b->c0;
			count[i] = b->nc;
			break;
		default:
			start[i] = k0;
			count[i] = nk;
			break;
		}
		n *= count[i];
	}
	if (n == 0)
		for (int i = 0; i < x->ndim; i++)
			start[i] = count[i] = 0;
	return n;
}

/* ---- the memory model ---- */

/* What a box holds: the sizes of the buffers that contract_layout weighs
 * and contract_run allocates (each_buffer). */
struct box_bytes {
	int64_t sums;        /* one partial sum of the box's cells */
	int64_t results;     /* elements of the result box */
	int64_t a, b;        /* the operands' hyperslabs of a step, as stored ... */
	int64_t na, nb;      /* ... and their elements */
	int64_t apack, bpack;   /* one cell of A's piece and the box's cells of B's, packed */
};

/* Bytes per element of operand X's slab: its values, or its stored
 * numbers where they are larger, unpacked in place as they are read. */
static int64_t slab_element(const struct array *x)
{
	int64_t n = stage_scratch(x, x->dtype);
	return n > dtype_size(x->dtype) ? n : dtype_size(x->dtype);
}

static void bytes_of(const struct plan_step *s, const struct box *b, int64_t step,
		     struct box_bytes *m)
{
	const struct contract *c = s->contract;
	const struct cell_grid *g = &c->grid;
	int psize = dtype_size(c->gemm.pack);
	int64_t start[H5U_MAXDIM], count[H5U_MAXDIM], nk = step * g->gk;
	if (nk > g->k)
		nk = g->k;
	m->sums = b->cells * g->gn * g->gm * psize;
	m->results = b->batch * b->nr * b->nc;
	m->na = operand_slab(&c->a, b, 0, nk, start, count);
	m->nb = operand_slab(&c->b, b, 0, nk, start, count);
	m->a = m->na * slab_element(s->in[0]);
	m->b = m->nb * slab_element(s->in[1]);
	m->apack = g->gn * g->gk * psize;
	m->bpack = b->nj * g->gk * g->gm * psize;
}

/* The bytes of a box of LINES lines along AXIS (whole along the axes
 * after it) that reads STEP pieces at once. */
static void line_box(const struct plan_step *s, const struct contract *c, int axis, int64_t lines,
		     int64_t step, struct box_bytes *m)
{
	int64_t start[H5U_MAXDIM + 2] = {0}, count[H5U_MAXDIM + 2];
	for (int i = 0; i < c->boxes.ndim; i++)
		count[i] = i < axis ? 1 : i == axis ? lines : c->boxes.dim[i];
	struct box b;
	box_of(c, start, count, &b);
	bytes_of(s, &b, step, m);
}

struct run;
static void result_buffers(const struct plan_step *s, const struct contract *c, int64_t n,
			   struct run *R, struct hold *h);
static void each_buffer(const struct plan_step *s, const struct contract *c, const struct box_bytes *m,
			struct run *R, struct hold *h);

/* The bytes a box of LINES lines along AXIS holds, reading STEP pieces
 * at once; more than MEMORY when an I/O call of it would reach 2 GiB. */
static int64_t box_total(const struct plan_step *s, const struct contract *c, int axis, int64_t lines,
			 int64_t step, int64_t memory)
{
	struct box_bytes m;
	struct dist_cost all = {0}, results = {0};
	struct hold h;
	line_box(s, c, axis, lines, step, &m);
	hold_count(&h, &results);
	result_buffers(s, c, m.results, NULL, &h);
	hold_count(&h, &all);
	each_buffer(s, c, &m, NULL, &h);
	return m.a < IO_LIMIT && m.b < IO_LIMIT && results.fixed < IO_LIMIT ? all.fixed : memory + 1;
}

static bool box_fits(const struct plan_step *s, const struct contract *c, int axis, int64_t lines,
		     int64_t step, int64_t memory)
{
	return box_total(s, c, axis, lines, step, memory) <= memory;
}

/* What a rank's run of MOST lines along AXIS reads in boxes of LINES
 * lines: its operands' slabs, whole along the contraction, once a box. */
static double run_reads(const struct plan_step *s, const struct contract *c, int axis, int64_t lines,
			int64_t most)
{
	struct box_bytes m;
	line_box(s, c, axis, lines, c->grid.pieces > 0 ? c->grid.pieces : 1, &m);
	return (double)((most + lines - 1) / (lines > 0 ? lines : 1)) * (double)(m.a + m.b);
}

/* LINES lines along AXIS a box, or fewer where one partial sum of the box
 * would pass SUMS_CACHE bytes and a rank's run of MOST lines reads at most
 * FULL_STEP_GAIN times as much in the smaller boxes: every piece adds into
 * all of a box's sums, which then stay in cache. */
static int64_t cached_lines(const struct plan_step *s, const struct contract *c, int axis,
			    int64_t lines, int64_t most)
{
	struct box_bytes m;
	line_box(s, c, axis, 1, 1, &m);
	int64_t fit = m.sums > 0 ? SUMS_CACHE / m.sums : lines;
	fit = fit > 1 ? fit : 1;
	if (fit >= lines || run_reads(s, c, axis, fit, most) > FULL_STEP_GAIN * run_reads(s, c, axis, lines, most))
		return lines;
	return fit;
}

/* The largest N in [LO, HI] for which a box fits MEMORY: of N lines
 * along AXIS reading STEP pieces at once (BY_LINES), or of LINES lines
 * reading N; LO when none does. */
static int64_t largest(const struct plan_step *s, const struct contract *c, int axis, bool by_lines,
		       int64_t lines, int64_t step, int64_t lo, int64_t hi, int64_t memory)
{
	while (lo < hi) {
		int64_t mid = lo + (hi - lo + 1) / 2;
		if (box_fits(s, c, axis, by_lines ? mid : lines, by_lines ? step : mid, memory))
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* The pieces [*FIRST, *FIRST + *COUNT) rank RANK sums: all of them, or on
 * a shared run its share of the shards, dealt in contiguous runs. */
static void rank_pieces(const struct contract *c, int rank, int64_t *first, int64_t *count)
{
	const struct cell_grid *g = &c->grid;
	if (!c->shared) {
		*first = 0;
		*count = g->pieces;
		return;
	}
	int64_t base = g->shards / c->nranks, extra = g->shards % c->nranks;
	int64_t s0 = rank * base + (rank < extra ? rank : extra), n = base + (rank < extra);
	*first = cell_shard_start(g, s0);
	*count = cell_shard_start(g, s0 + n) - *first;
}

/* The most pieces any rank sums. */
static int64_t most_pieces(const struct contract *c)
{
	int64_t most = 0;
	for (int r = 0; r < c->nranks; r++) {
		int64_t first, count;
		rank_pieces(c, r, &first, &count);
		most = count > most ? count : most;
	}
	return most;
}

/* C's boxes once their axis and lines are chosen: how many each rank
 * walks (the boxes are dealt, or on a shared run all rank 0's). */
static void count_boxes(struct contract *c)
{
	struct dist_layout *l = &c->boxes;
	l->nboxes = l->total_boxes = 0;
	l->ranks_with_work = 0;
	for (int r = 0; r < l->nranks; r++) {
		struct dist_walk w;
		int64_t start[H5U_MAXDIM + 2], count[H5U_MAXDIM + 2], n = 0;
		dist_walk_start(l, r, &w);
		while (dist_walk_next(&w, start, count))
			n++;
		l->nboxes = n > l->nboxes ? n : l->nboxes;
		l->total_boxes += n;
		l->ranks_with_work += n > 0;
	}
	int64_t most = most_pieces(c);
	c->nsteps = most > 0 ? (most + c->step - 1) / c->step : 0;
}

/* The split axis: the first whose lines are small beside an equal share
 * and of which one fits the budget (the last, a line of one cell, when
 * none does).  -1 when not even one cell fits. */
static int split_axis(const struct plan_step *s, const struct contract *c, int64_t memory)
{
	const struct dist_layout *l = &c->boxes;
	int64_t total = 1, line = 1;
	for (int i = 0; i < l->ndim; i++)
		total *= l->dim[i];
	for (int i = 0; i < l->ndim; i++)
		line *= l->dim[i];
	int64_t unit = c->grid.gn * c->grid.gm;
	for (int axis = 0; axis < l->ndim; axis++) {
		line /= l->dim[axis] > 0 ? l->dim[axis] : 1;
		bool even = l->nranks == 1 || line * unit <= SMALL_CELLS ||
			    line <= total / (4 * (int64_t)l->nranks);
		bool fits = box_fits(s, c, axis, 1, 1, memory);
		if (fits && (even || axis == l->ndim - 1))
			return axis;
		if (axis == l->ndim - 1)
			return -1;
	}
	return -1;
}

/* Lay out C's boxes over its cell space for a dealt or a shared run. */
static int layout_try(const struct plan_step *s, struct contract *c, bool shared, int nranks,
		      int64_t memory, const char *w, struct err *e)
{
	struct dist_layout *l = &c->boxes;
	const struct cell_grid *g = &c->grid;
	memset(l, 0, sizeof *l);
	c->nranks = nranks;
	c->shared = shared;
	c->buffers = cell_tree_buffers(g, shared);
	l->ndim = c->nloop + 2;
	memcpy(l->dim, c->loop, sizeof *c->loop * (size_t)c->nloop);
	l->dim[c->nloop] = g->ni;
	l->dim[c->nloop + 1] = g->nj;
	l->nranks = shared ? 1 : nranks;
	l->align = 1;
	int axis = split_axis(s, c, memory);
	if (axis < 0)
		return err_set(e, EXIT_USAGE, w,
			       "--memory %lld bytes is too small for one block (a cell of %s's results "
			       "needs %lld bytes)", (long long)memory, s->uf->name,
			       (long long)box_total(s, c, l->ndim - 1, 1, 1, INT64_MAX - 1));
	l->axis = axis;
	l->line = 1;
	l->lines = 1;
	for (int i = 0; i < l->ndim; i++)
		*(i <= axis ? &l->lines : &l->line) *= l->dim[i];
	int64_t most = (l->lines + l->nranks - 1) / l->nranks;
	most = most < l->dim[axis] ? most : l->dim[axis];
	int64_t run = most_pieces(c) > 0 ? most_pieces(c) : 1;
	int64_t one = largest(s, c, axis, true, 0, 1, 0, most, memory);
	int64_t full = largest(s, c, axis, true, 0, run, 0, most, memory);
	if (full > 0 && run_reads(s, c, axis, full, most) <= FULL_STEP_GAIN * run_reads(s, c, axis, one, most)) {
		l->lines_per_box = cached_lines(s, c, axis, full, most);
		c->step = run;
	} else {
		l->lines_per_box = one > 0 ? one : 1;
		c->step = largest(s, c, axis, false, l->lines_per_box, 0, 1, run, memory);
	}
	/* what its largest box holds, the run's allocation (dist_layout_bytes) */
	l->cost = (struct dist_cost){ .memory = memory,
				      .fixed = box_total(s, c, axis, l->lines_per_box, c->step, memory) };
	count_boxes(c);
	return 0;
}

/* Bytes a rank reads at most over C's layout (TOTAL_K: the depth each
 * box reads whole, or on a shared run its share), and what a shared run
 * sends to rank 0. */
static double read_cost(const struct plan_step *s, const struct contract *c)
{
	const struct cell_grid *g = &c->grid;
	double most = 0, share = g->pieces > 0 ? (double)most_pieces(c) / (double)g->pieces : 0;
	for (int r = 0; r < c->boxes.nranks; r++) {
		struct dist_walk w;
		int64_t start[H5U_MAXDIM + 2], count[H5U_MAXDIM + 2], st[H5U_MAXDIM], ct[H5U_MAXDIM];
		double bytes = 0;
		dist_walk_start(&c->boxes, r, &w);
		while (dist_walk_next(&w, start, count)) {
			struct box b;
			box_of(c, start, count, &b);
			bytes += (double)operand_slab(&c->a, &b, 0, g->k, st, ct) * dtype_size(s->in[0]->dtype);
			bytes += (double)operand_slab(&c->b, &b, 0, g->k, st, ct) * dtype_size(s->in[1]->dtype);
			if (c->shared)
				bytes += 2.0 * (double)(b.cells * g->gn * g->gm * dtype_size(c->gemm.pack));
		}
		bytes *= c->shared ? share : 1;
		most = bytes > most ? bytes : most;
	}
	return most;
}

int contract_layout(struct plan_step *s, int nranks, int64_t memory, const char *w, struct err *e)
{
	struct contract *c = s->contract, shared;
	if (layout_try(s, c, false, nranks, memory, w, e) < 0)
		return -1;
	if (nranks < 2 || c->grid.shards < 2)
		return 0;
	shared = *c;
	struct err quiet = {0};
	if (layout_try(s, &shared, true, nranks, memory, w, &quiet) == 0 &&
	    read_cost(s, &shared) < read_cost(s, c))
		*c = shared;
	return 0;
}

/* ---- the run ---- */

/* An operand's hyperslab of the current step, as stored. */
struct slab {
	int64_t start[H5U_MAXDIM], count[H5U_MAXDIM];
	ptrdiff_t stride[H5U_MAXDIM];   /* bytes, C order over COUNT */
	int row, depth;                 /* its axes of rows (or columns) and depth; -1: none */
	char *data;                     /* the slab: OWN, or the other operand's */
	char *own;
};

/* Everything a run holds, allocated before the first box. */
struct run {
	struct plan_step *s;
	const struct contract *c;
	int psize;                      /* bytes of a packed element */
	int64_t slot;                   /* elements of a cell's sum: gn x gm */
	struct slab a, b;
	char *apack, *bpack;
	int nbuf;
	char *buf[TREE_MAX_BUFFERS];    /* the partial sums */
	struct tree_stack tree;
	char *result, *conv;            /* the result box, in the loop's and the output's dtype */
	char **ops;                     /* the epilogue: op J's result (op 0's: RESULT) ... */
	char **cast;                    /* ... and its operand K cast, at J * RECIPE_MAXIN + K */
	struct box box;                 /* the box at hand */
	struct contract_masks mask;     /* masked mode's bytes (contract_mask.h) */
	struct hold hold;               /* every buffer above that the run allocated */
};

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

/* The largest box any rank walks. */
static void largest_box(const struct contract *c, struct box *b)
{
	const struct dist_layout *l = &c->boxes;
	int64_t start[H5U_MAXDIM + 2] = {0}, count[H5U_MAXDIM + 2];
	for (int i = 0; i < l->ndim; i++)
		count[i] = i < l->axis ? 1 : i == l->axis ? l->lines_per_box : l->dim[i];
	box_of(c, start, count, b);
}

/* The result box's buffers of S laid out as C, of N elements: in the
 * loop's dtype, cast to the output's, and the epilogue's results and
 * operands cast to its loops; into H with R's slots (R NULL: counting). */
static void result_buffers(const struct plan_step *s, const struct contract *c, int64_t n,
			   struct run *R, struct hold *h)
{
	enum dtype y = s->out[0]->dtype;
	hold_buffer(h, DIST_FIXED, n * dtype_size(c->gemm.t), HOLD_SLOT(R, result));
	hold_buffer(h, DIST_FIXED, y != s->out_dtype[0] ? n * dtype_size(y) : 0, HOLD_SLOT(R, conv));
	for (int j = 1; j < s->prog.nops; j++) {
		const struct plan_op *op = &s->prog.ops[j];
		hold_buffer(h, DIST_FIXED, n * dtype_size(op->loop->types[op->nin]), HOLD_SLOT(R, ops[j]));
		for (int k = 0; k < op->nin; k++)
			if (!src_is_literal(op->src[k]))
				hold_buffer(h, DIST_FIXED, n * dtype_size(op->loop->types[k]),
					    HOLD_SLOT(R, cast[j * RECIPE_MAXIN + k]));
	}
}

/* Every buffer a run of S laid out as C holds for a box of M's sizes: the
 * partial sums, the result box's, the operands' slabs and the packed
 * cells; into H with R's slots (R NULL: counting). */
static void each_buffer(const struct plan_step *s, const struct contract *c, const struct box_bytes *m,
			struct run *R, struct hold *h)
{
	for (int i = 0; i < c->buffers + c->shared; i++)
		hold_buffer(h, DIST_FIXED, m->sums, HOLD_SLOT(R, buf[i]));
	result_buffers(s, c, m->results, R, h);
	hold_buffer(h, DIST_FIXED, m->a, HOLD_SLOT(R, a.own));
	hold_buffer(h, DIST_FIXED, m->b, HOLD_SLOT(R, b.own));
	hold_buffer(h, DIST_FIXED, m->apack, HOLD_SLOT(R, apack));
	hold_buffer(h, DIST_FIXED, m->bpack, HOLD_SLOT(R, bpack));
	contract_mask_buffers(s, m->na, m->nb, m->results, c->shared, R ? &R->mask : NULL, h);
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
	largest_box(c, &b);
	bytes_of(s, &b, c->step, &m);
	hold_layout(&R->hold, &c->boxes);
	each_buffer(s, c, &m, R, &R->hold);
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
	int64_t n = operand_slab(axes, &R->box, k0, np > 0 ? k1 - k0 : 0, x->start, x->count);
	strides_of(axes->ndim, x->count, dtype_size(in->dtype), x->stride);
	x->data = k && same_slab(R) ? R->a.data : x->own;
	if (x->data != x->own)
		return;
	if (stage_read(in, in->dtype, x->start, x->count, x->data, x->data, R->s->where, e) < 0)
		err_place(e, &R->s->loc);
	if (R->s->mask.masked)
		contract_mask_slab(R->s, k, x->start, x->count, x->data, n, R->mask.valid[k], e);
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
	operand_slab(&c->c, b, 0, 0, start, count);
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
	rank_pieces(c, comm_rank(), &p0, &np);
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
	operand_slab(&c->c, b, 0, 0, start, count);
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
		box_of(c, start, count, &R.box);
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

void contract_print(const struct plan_step *s, FILE *f)
{
	const struct contract *c = s->contract;
	const struct cell_grid *g = &c->grid;
	const struct dist_layout *l = &c->boxes;
	fprintf(f, ", cells (%lld, %lld) over pieces of %lld, %lld shard%s, %s", (long long)g->gn,
		(long long)g->gm, (long long)g->gk, (long long)g->shards, g->shards == 1 ? "" : "s",
		c->gemm.blas ? "OpenBLAS" : "own loop");
	fprintf(f, "; boxes of (");
	for (int i = 0; i < l->ndim; i++)
		fprintf(f, "%s%lld", i ? ", " : "", (long long)(i < l->axis ? 1 : i == l->axis
								 ? l->lines_per_box : l->dim[i]));
	fprintf(f, ") cells, %lld box%s, %lld piece%s a read", (long long)l->total_boxes,
		l->total_boxes == 1 ? "" : "es", (long long)c->step, c->step == 1 ? "" : "s");
	for (int j = 1; j < s->prog.nops; j++)
		fprintf(f, "%s%s", j == 1 ? ", then " : " ", s->prog.ops[j].uf->name);
	if (s->prog.nops > 1)
		fprintf(f, " on each box");
	if (c->shared)
		fprintf(f, ", shared: each rank sums its shards, rank 0 finishes\n");
	else
		fprintf(f, ", %d of %d ranks with work\n", l->ranks_with_work, l->nranks);
}
