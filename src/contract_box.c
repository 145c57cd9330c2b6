/* contract_box.c - a generalized ufunc's box of result cells: what it
 * covers of each operand, which pieces a rank sums of it, and the one list
 * of the buffers a run holds for it.  See contract_box.h.
 */
#include "contract_box.h"
#include "stage.h"

void contract_box_of(const struct contract *c, const int64_t *start, const int64_t *count,
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

int64_t contract_box_slab(const struct contract_axes *x, const struct box *b, int64_t k0,
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

/* Bytes per element of operand X's slab: its values, or its stored
 * numbers where they are larger, unpacked in place as they are read. */
static int64_t slab_element(const struct array *x)
{
	int64_t n = stage_scratch(x, x->dtype);
	return n > dtype_size(x->dtype) ? n : dtype_size(x->dtype);
}

void contract_box_bytes(const struct plan_step *s, const struct box *b, int64_t step,
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
	m->na = contract_box_slab(&c->a, b, 0, nk, start, count);
	m->nb = contract_box_slab(&c->b, b, 0, nk, start, count);
	m->a = m->na * slab_element(s->in[0]);
	m->b = m->nb * slab_element(s->in[1]);
	m->apack = g->gn * g->gk * psize;
	m->bpack = b->nj * g->gk * g->gm * psize;
}

void contract_rank_pieces(const struct contract *c, int rank, int64_t *first, int64_t *count)
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

void contract_box_largest(const struct contract *c, struct box *b)
{
	const struct dist_layout *l = &c->boxes;
	int64_t start[H5U_MAXDIM + 2] = {0}, count[H5U_MAXDIM + 2];
	for (int i = 0; i < l->ndim; i++)
		count[i] = i < l->axis ? 1 : i == l->axis ? l->lines_per_box : l->dim[i];
	contract_box_of(c, start, count, b);
}


void contract_result_buffers(const struct plan_step *s, const struct contract *c, int64_t n,
			   struct run *R, struct hold *h)
{
	hold_buffer(h, DIST_FIXED, n * dtype_size(c->gemm.t), HOLD_SLOT(R, result));
	hold_buffer(h, DIST_FIXED, n * stage_scratch(s->out[0], s->out_dtype[0]), HOLD_SLOT(R, conv));
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
void contract_box_buffers(const struct plan_step *s, const struct contract *c, const struct box_bytes *m,
			struct run *R, struct hold *h)
{
	for (int i = 0; i < c->buffers + c->shared; i++)
		hold_buffer(h, DIST_FIXED, m->sums, HOLD_SLOT(R, buf[i]));
	contract_result_buffers(s, c, m->results, R, h);
	hold_buffer(h, DIST_FIXED, m->a, HOLD_SLOT(R, a.own));
	hold_buffer(h, DIST_FIXED, m->b, HOLD_SLOT(R, b.own));
	hold_buffer(h, DIST_FIXED, m->apack, HOLD_SLOT(R, apack));
	hold_buffer(h, DIST_FIXED, m->bpack, HOLD_SLOT(R, bpack));
	contract_mask_buffers(s, m->na, m->nb, m->results, c->shared, R ? &R->mask : NULL, h);
}
