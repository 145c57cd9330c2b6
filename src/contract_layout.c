/* contract_layout.c - a generalized ufunc's work split: the boxes of
 * result cells, the pieces a box reads at once, and whether the ranks deal
 * the boxes or share each box's contraction, chosen within --memory by
 * counting what a box holds (contract_box.h).  Pure arithmetic, no file
 * and no MPI call: every rank computes every rank's share.  See contract.h.
 */
#include <string.h>

#include "contract_box.h"

#define IO_LIMIT ((int64_t)1 << 31)   /* bytes no I/O call reaches */
#define SMALL_CELLS 4096              /* elements of results too few to share out */
#ifndef SUMS_CACHE
#define SUMS_CACHE ((int64_t)2 << 20)   /* bytes of a box's partial sum that stay in cache */
#endif
#define FULL_STEP_GAIN 1.25           /* a box that reads its operands' whole rows may
					 read this much more in all */

/* The bytes of a box of LINES lines along AXIS (whole along the axes
 * after it) that reads STEP pieces at once. */
static void line_box(const struct plan_step *s, const struct contract *c, int axis, int64_t lines,
		     int64_t step, struct box_bytes *m)
{
	int64_t start[H5U_MAXDIM + 2] = {0}, count[H5U_MAXDIM + 2];
	for (int i = 0; i < c->boxes.ndim; i++)
		count[i] = i < axis ? 1 : i == axis ? lines : c->boxes.dim[i];
	struct box b;
	contract_box_of(c, start, count, &b);
	contract_box_bytes(s, &b, step, m);
}

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
	contract_result_buffers(s, c, m.results, NULL, &h);
	hold_count(&h, &all);
	contract_box_buffers(s, c, &m, NULL, &h);
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
/* The most pieces any rank sums. */
static int64_t most_pieces(const struct contract *c)
{
	int64_t most = 0;
	for (int r = 0; r < c->nranks; r++) {
		int64_t first, count;
		contract_rank_pieces(c, r, &first, &count);
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
		return dist_too_small(memory, w, e, "a cell of %s's results needs %lld bytes", s->uf->name,
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
			contract_box_of(c, start, count, &b);
			bytes += (double)contract_box_slab(&c->a, &b, 0, g->k, st, ct) * dtype_size(s->in[0]->dtype);
			bytes += (double)contract_box_slab(&c->b, &b, 0, g->k, st, ct) * dtype_size(s->in[1]->dtype);
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
