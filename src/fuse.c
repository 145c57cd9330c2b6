/* fuse.c - the optimizer: steps fused into passes over the data.
 *
 * Its public face is fuse_plan() (planner.h).  Three rewrites, each made
 * only when it changes no step's result and the pass still fits --memory:
 *  - consecutive elementwise steps of one shape become one program; an
 *    intermediate that no later step reads is then not written at all;
 *  - a reduction of what an elementwise pass reads or computes, box by box
 *    in the pass's own distribution, is fed by that pass, when it can take
 *    the pass's boxes and they keep as many ranks busy;
 *  - consecutive reductions of one dataset share one read of it: a host
 *    step with no ops of its own feeds every reducer.
 * A fused step keeps its place in the plan with merged_into set; `h5ufunc
 * check` shows it.
 */
#include <string.h>

#include "at.h"
#include "elementwise.h"
#include "planner.h"
#include "reduce.h"
#include "reducer.h"

static bool fusable(const struct plan_step *s)
{
	return (s->verb == VERB_UFUNC || s->verb == VERB_EXPR) && !s->print && !s->mask.has_where &&
	       !s->mask.masked && !plan_step_ranged(s) && !s->contract;
}

static bool same_dataset(const struct array *a, const struct array *b)
{
	return a->kind == ARR_DATASET && b->kind == ARR_DATASET && a->file == b->file &&
	       !strcmp(a->path, b->path);
}

/* Fold step B into step A (the head of a run of elementwise steps of one
 * shape): B's ops join A's program, B's inputs that A computes are taken
 * from A's ops instead of being read back, and B's outputs join A's.
 * Refused when it would change what any step reads, or not fit --memory. */
static bool fuse_into(struct planner *pl, struct plan_step *a, struct plan_step *b)
{
	if (!fusable(b) || !shape_equal(&a->shape, &b->shape) || a->nout + b->nout > PLAN_MAXOUT)
		return false;
	struct op_src from[RECIPE_MAXIN];  /* B's input k: a result of A, or A's leaf */
	struct array *leaves[RECIPE_MAXIN];
	struct shape bshapes[RECIPE_MAXIN];
	int nleaf = a->nin;
	memcpy(leaves, a->in, sizeof leaves);
	memcpy(bshapes, a->bshape, sizeof bshapes);
	for (int k = 0; k < b->nin; k++) {
		struct array *x = b->in[k];
		from[k] = src_none();
		if (x->kind == ARR_LITERAL) {
			from[k] = src_literal();
			continue;
		}
		for (int j = 0; j < a->nout; j++) {
			if (a->out[j] == x) {
				if (x->dtype != a->out_dtype[j] || x->coding)
					return false;   /* B reads the cast (or packed) values back */
				from[k] = a->prog.out_src[j];
			} else if (same_dataset(a->out[j], x)) {
				return false;           /* another view of what A writes */
			}
		}
		if (src_is_result(from[k]))
			continue;
		int l = 0;
		while (l < nleaf && leaves[l] != x)
			l++;
		if (l == nleaf) {
			if (nleaf == RECIPE_MAXIN)
				return false;
			leaves[nleaf] = x;
			bshapes[nleaf++] = b->bshape[k];
		}
		from[k] = src_input(l);
	}
	for (int k = 0; k < b->nout; k++)
		for (int l = 0; l < nleaf; l++)
			if (leaves[l] != b->out[k] && same_dataset(leaves[l], b->out[k]))
				return false;
	for (int k = 0; k < b->nout; k++)
		for (int j = 0; j < a->nout; j++)
			if (same_dataset(a->out[j], b->out[k]))
				return false;
	struct plan_step saved = *a;
	struct plan_op *ops = arena_alloc(pl->p->arena, sizeof *ops * (size_t)(a->prog.nops + b->prog.nops));
	memcpy(ops, a->prog.ops, sizeof *ops * (size_t)a->prog.nops);
	for (int j = 0; j < b->prog.nops; j++) {
		struct plan_op *op = &ops[a->prog.nops + j];
		*op = b->prog.ops[j];
		for (int k = 0; k < op->nin; k++) {
			struct op_src src = op->src[k];
			if (src_is_result(src))
				op->src[k] = src_result(src.op + a->prog.nops, src.out);
			else if (src_is_input(src))
				op->src[k] = from[src.input];
		}
	}
	for (int k = 0; k < b->nout; k++) {
		struct op_src src = b->prog.out_src[k];
		a->out[a->nout] = b->out[k];
		a->out_dtype[a->nout] = b->out_dtype[k];
		a->prog.out_src[a->nout++] = src_result(src.op + a->prog.nops, src.out);
	}
	a->prog.ops = ops;
	a->prog.nops += b->prog.nops;
	a->nin = nleaf;
	memcpy(a->in, leaves, sizeof leaves);
	memcpy(a->bshape, bshapes, sizeof bshapes);
	struct err trial = {0};
	if (elementwise_layout(a, pl->o->nranks, (int64_t)pl->o->memory, "", &trial) < 0) {
		*a = saved;
		return false;
	}
	b->fused.merged_into = (int)(a - pl->p->steps);
	return true;
}

/* Does S read Y as one of its index arrays (at)? */
static bool reads_as_indices(const struct plan_step *s, const struct array *y)
{
	for (int k = 0; s->at && k < s->at->nidx; k++)
		if (s->at->idx[k].x == y)
			return true;
	return false;
}

/* Intermediates that no step reads any more (fusion computes them in the
 * block) are not written at all. */
static void drop_unused(struct plan *p)
{
	for (int i = 0; i < p->nsteps; i++) {
		struct plan_step *h = &p->steps[i];
		if (h->fused.merged_into >= 0 || !fusable(h))
			continue;
		for (int k = 0; k < h->nout; k++) {
			struct array *y = h->out[k];
			if (!y->file->scratch)
				continue;
			bool used = false;
			for (int t = 0; t < p->nsteps && !used; t++) {
				for (int j = 0; j < p->steps[t].nin && p->steps[t].fused.merged_into < 0; j++)
					used = used || p->steps[t].in[j] == y || p->steps[t].in[j]->base == y;
				used = used || p->steps[t].mask.where_arr == y;   /* never merged */
				used = used || reads_as_indices(&p->steps[t], y);
			}
			if (used)
				continue;
			y->unused = true;
			h->nout--;
			memmove(&h->out[k], &h->out[k + 1], sizeof h->out[0] * (size_t)(h->nout - k));
			memmove(&h->out_dtype[k], &h->out_dtype[k + 1], sizeof h->out_dtype[0] * (size_t)(h->nout - k));
			memmove(&h->blocks.chunk_cache[k], &h->blocks.chunk_cache[k + 1],
				sizeof h->blocks.chunk_cache[0] * (size_t)(h->nout - k));
			memmove(&h->prog.out_src[k], &h->prog.out_src[k + 1],
				sizeof h->prog.out_src[0] * (size_t)(h->nout - k));
			k--;
		}
	}
}

/* An elementwise step reads each array once, however many ops use it. */
static void dedupe_inputs(struct plan_step *s)
{
	for (int k = s->nin - 1; k > 0; k--) {
		int j = 0;
		while (j < k && !(s->in[j] == s->in[k] && shape_equal(&s->bshape[j], &s->bshape[k])))
			j++;
		if (j == k)
			continue;
		for (int o = 0; o <= s->prog.nops; o++)
			for (int i = 0; i < (o < s->prog.nops ? s->prog.ops[o].nin : s->fused.nred); i++) {
				struct op_src *src = o < s->prog.nops ? &s->prog.ops[o].src[i]
								      : &s->fused.red_src[i];
				if (src_is_input(*src) && src->input == k)
					*src = src_input(j);
				else if (src_is_input(*src) && src->input > k)
					*src = src_input(src->input - 1);   /* inputs after k move down one place */
			}
		s->nin--;
		memmove(&s->in[k], &s->in[k + 1], sizeof s->in[0] * (size_t)(s->nin - k));
		memmove(&s->bshape[k], &s->bshape[k + 1], sizeof s->bshape[0] * (size_t)(s->nin - k));
	}
}

/* Lay out pass A with its fused reductions; false when that fails or
 * leaves fewer ranks with work than BUSY (the pass's own, without them):
 * a fused reduction that needs longer boxes than the pass would take is
 * better run on its own. */
static bool fused_layout_fits(struct planner *pl, struct plan_step *a, int busy)
{
	struct err trial = {0};
	return elementwise_layout(a, pl->o->nranks, (int64_t)pl->o->memory, "", &trial) == 0 &&
	       a->blocks.split.ranks_with_work >= busy;
}

/* Ranks with work in pass A laid out with only its first NRED reductions
 * (-1: it does not fit); A keeps its reductions. */
static int busy_ranks(struct planner *pl, struct plan_step *a, int nred)
{
	int keep = a->fused.nred, busy = -1;
	struct err trial = {0};
	a->fused.nred = nred;
	if (elementwise_layout(a, pl->o->nranks, (int64_t)pl->o->memory, "", &trial) == 0)
		busy = a->blocks.split.ranks_with_work;
	a->fused.nred = keep;
	return busy;
}

/* Fold reduction R into elementwise step A when R reduces, box by box in
 * A's own distribution, something A computes or reads: when R can take
 * boxes of A's pass (reducer_max_axis) and they keep as many ranks busy. */
static bool fuse_reduction(struct planner *pl, struct plan_step *a, struct plan_step *r)
{
	if (r->verb != VERB_REDUCE || r->print || r->mask.where_arr || r->mask.masked ||
	    a->fused.nred == PLAN_MAXOUT ||
	    plan_step_ranged(r) || reducer_max_axis(r) < 0)
		return false;
	struct array *x = r->in[0];
	if (!shape_equal(&x->shape, &a->shape))
		return false;
	struct op_src src = src_none();
	for (int j = 0; j < a->nout; j++)
		if (a->out[j] == x && x->dtype == a->out_dtype[j] && !x->coding)
			src = a->prog.out_src[j];
	for (int k = 0; k < a->nin && src_is_none(src); k++)
		if (a->in[k] == x && !elementwise_reads_whole(a, k))
			src = src_input(k);
	if (src_is_none(src))
		return false;
	for (int k = 0; k < a->nin; k++)
		if (same_dataset(a->in[k], r->out[0]))
			return false;
	for (int j = 0; j < a->nout; j++)
		if (same_dataset(a->out[j], r->out[0]))
			return false;
	int busy = busy_ranks(pl, a, a->fused.nred);
	a->fused.red[a->fused.nred] = r;
	a->fused.red_src[a->fused.nred++] = src;
	if (!fused_layout_fits(pl, a, busy)) {
		a->fused.nred--;
		busy_ranks(pl, a, a->fused.nred);   /* A's layout as it was */
		return false;
	}
	r->fused.merged_into = (int)(a - pl->p->steps);
	return true;
}

/* Can reduction R be fed box by box from another step's pass? */
static bool box_reduction(const struct plan_step *r)
{
	return r->verb == VERB_REDUCE && r->fused.merged_into < 0 && !r->mask.where_arr && !r->mask.masked &&
	       !plan_step_ranged(r) &&
	       r->in[0]->kind == ARR_DATASET && reducer_max_axis(r) >= 0;
}

/* Consecutive reductions of one array share one pass over it: a host step
 * with no ops of its own reads the array block by block and feeds every
 * reducer.  The first reduction's step runs the host; the others are
 * fused into it. */
static void group_reductions(struct planner *pl)
{
	struct plan *p = pl->p;
	for (int i = 0; i < p->nsteps; i++) {
		struct plan_step *r = &p->steps[i];
		if (!box_reduction(r) || same_dataset(r->out[0], r->in[0]))
			continue;
		struct array *x = r->in[0];
		struct plan_step *h = arena_alloc(p->arena, sizeof *h);
		memset(h, 0, sizeof *h);
		h->index = r->index;
		h->src = r->src;
		memcpy(h->where, r->where, sizeof h->where);
		h->loc = r->loc;
		h->verb = VERB_UFUNC;
		h->nin = 1;
		h->in[0] = x;
		h->bshape[0] = x->shape;
		h->shape = x->shape;
		h->fused.merged_into = -1;
		h->fused.red[0] = r;
		h->fused.red_src[0] = src_input(0);
		h->fused.nred = 1;
		int j = i + 1;
		while (j < p->nsteps && h->fused.nred < PLAN_MAXOUT && box_reduction(&p->steps[j]) &&
		       p->steps[j].in[0] == x && !same_dataset(p->steps[j].out[0], x)) {
			h->fused.red[h->fused.nred] = &p->steps[j];
			h->fused.red_src[h->fused.nred++] = src_input(0);
			j++;
		}
		if (h->fused.nred < 2 || !fused_layout_fits(pl, h, busy_ranks(pl, h, 0)))
			continue;
		r->fused.host = h;
		for (int k = 1; k < h->fused.nred; k++)
			h->fused.red[k]->fused.merged_into = i;
		i = j - 1;
	}
}

void fuse_plan(struct planner *pl)
{
	struct plan *p = pl->p;
	for (int i = 0; i < p->nsteps; i++) {
		struct plan_step *s = &p->steps[i];
		s->fused.nown = s->nout;
		memcpy(s->fused.own, s->out, sizeof *s->out * (size_t)s->nout);
	}
	for (int i = 0; i < p->nsteps;) {
		int j = i + 1;
		if (fusable(&p->steps[i]))
			while (j < p->nsteps && (fuse_into(pl, &p->steps[i], &p->steps[j]) ||
						 fuse_reduction(pl, &p->steps[i], &p->steps[j])))
				j++;
		i = j;
	}
	drop_unused(p);
	for (int i = 0; i < p->nsteps; i++)
		if (p->steps[i].fused.merged_into < 0 && p->steps[i].prog.nops > 0 && !p->steps[i].contract)
			dedupe_inputs(&p->steps[i]);
	group_reductions(pl);
}
