/* at.c - np.UFUNC.at; see at.h.
 *
 * In order: the layout (the target's boxes, the update boxes and what a
 * round holds); a round: the update box read, each update's target
 * element and the rank that holds it, the updates sent there in order
 * (one MPI_Alltoallv) and applied; a pass: the target box read, the
 * rounds, the box written; the plan in words.
 */
#include <stdlib.h>
#include <string.h>

#include "at.h"
#include "cf.h"
#include "comm.h"
#include "hold.h"
#include "reducer.h"
#include "stage.h"

#define EXCHANGE_LIMIT ((int64_t)1 << 30)   /* bytes a round may bring one rank (MPI's int counts) */
#define IO_LIMIT (((int64_t)1 << 31) - 1)   /* bytes one read or write of a target box moves */

/* The missing-value tests of S's target, read through its CF coding, when
 * it declares any: its missing elements stay as they are (numpy.ma's
 * ufunc.at changes the data under the mask, and the mask is kept). */
static const struct cf_missing *at_missing(const struct plan_step *s)
{
	const struct cf_missing *m = s->decoded ? s->in[0]->missing : NULL;
	return cf_missing_any(m) ? m : NULL;
}

/* Does S keep some elements of its target as they are: those declared
 * missing, or under missing: mask-nan a float target's NaNs? */
static bool keeps_missing(const struct plan_step *s)
{
	char kind = dtype_table[s->in[0]->dtype].kind;
	return at_missing(s) || (s->at->keep_nan && (kind == 'f' || kind == 'c'));
}

/* ---- a round ------------------------------------------------------------ */

/* What a rank holds while it runs S: its target box (TARGET, the flat
 * range [LO[r], HI[r]) of the target rank r holds in this pass), an update
 * box read (IDX, the index values broadcast over it; B, b's values),
 * where each update goes (FLAT, OWNER), what is sent and received. */
struct at_state {
	struct plan_step *s;
	const struct at_plan *a;
	int nranks;
	char *target, *traw;
	uint8_t *valid;   /* the target box's elements that are not missing */
	char *kept;       /* the values of those that are, as read */
	int64_t *lo, *hi;
	int64_t *idx[H5U_MAXDIM];
	struct index_scratch scratch[H5U_MAXDIM];
	char *braw, *bown, *b;
	int64_t *flat;
	int *owner;
	int64_t entry;
	char *send, *recv;
	int64_t *counts, *sent, *got;
	int64_t bad, bad_axis;   /* an index found out of range (bad_axis < 0: none) */
	struct hold hold[2];              /* all of the above that are allocated: the
					     target's box, a round's buffers */
	_Alignas(16) unsigned char literal[16];   /* b as a number, in the loop's dtype */
};

/* Bytes of an entry sent: the element's offset in its box, and b's value
 * (aligned). */
static int64_t entry_bytes(const struct plan_step *s)
{
	int64_t value = s->at->literal_b ? 0 : dtype_size(s->loop->types[1]);
	return 8 + (value + 7) / 8 * 8;
}

/* The target's buffers: a box of it, as read and as stored (its CF
 * coding), and where it declares missing values their mask and values
 * kept, beside the updates' share (FIXED bytes), into H with ST's slots
 * (ST NULL: counting). */
static void target_buffers(const struct plan_step *s, int64_t fixed, struct at_state *st,
			   struct hold *h)
{
	const struct array *t = s->in[0];
	bool missing = keeps_missing(s);
	hold_buffer(h, DIST_FIXED, fixed, NULL);
	hold_buffer(h, DIST_PER_ELEM, dtype_size(t->dtype), HOLD_SLOT(st, target));
	hold_buffer(h, DIST_PER_ELEM, stage_scratch(t, t->dtype), HOLD_SLOT(st, traw));
	hold_buffer(h, DIST_PER_ELEM, missing, HOLD_SLOT(st, valid));
	hold_buffer(h, DIST_PER_ELEM, missing ? dtype_size(t->dtype) : 0, HOLD_SLOT(st, kept));
}

/* The buffers of a round on NRANKS ranks, each an update box's (its index
 * values, as stored and as int64; b's, as stored, as read and in the
 * loop's dtype; each update's target element and rank; the entries sent
 * and those received, all to one rank at most), and the ranks' ranges
 * and counts; into H with ST's slots (ST NULL: counting). */
static void update_buffers(const struct plan_step *s, int nranks, struct at_state *st, struct hold *h)
{
	const struct at_plan *a = s->at;
	for (int k = 0; k < s->in[0]->shape.ndim; k++) {   /* a trailing axis: its coordinates */
		const struct array *x = k < a->nidx ? a->idx[k].x : NULL;
		hold_buffer(h, DIST_PER_ELEM, 8, HOLD_SLOT(st, idx[k]));
		hold_buffer(h, DIST_PER_ELEM, x && x->dtype != DT_INT64 ? dtype_size(x->dtype) : 0,
			    HOLD_SLOT(st, scratch[k].raw));
		hold_buffer(h, DIST_PER_ELEM, k < a->nidx ? sizeof *st->scratch[k].own : 0,
			    HOLD_SLOT(st, scratch[k].own));
	}
	if (!a->literal_b) {
		enum dtype vt = s->loop->types[1];
		hold_buffer(h, DIST_PER_ELEM, stage_scratch(s->in[1], vt), HOLD_SLOT(st, braw));
		hold_buffer(h, DIST_PER_ELEM, dtype_size(vt), HOLD_SLOT(st, bown));
		hold_buffer(h, DIST_PER_ELEM, dtype_size(vt), HOLD_SLOT(st, b));
	}
	hold_buffer(h, DIST_PER_ELEM, sizeof *st->flat, HOLD_SLOT(st, flat));
	hold_buffer(h, DIST_PER_ELEM, sizeof *st->owner, HOLD_SLOT(st, owner));
	hold_buffer(h, DIST_FIXED, nranks * (int64_t)sizeof *st->lo, HOLD_SLOT(st, lo));
	hold_buffer(h, DIST_FIXED, nranks * (int64_t)sizeof *st->hi, HOLD_SLOT(st, hi));
	if (nranks < 2)
		return;
	hold_buffer(h, DIST_PER_ELEM, entry_bytes(s), HOLD_SLOT(st, send));
	hold_buffer(h, DIST_PER_ELEM, nranks * entry_bytes(s), HOLD_SLOT(st, recv));
	hold_buffer(h, DIST_FIXED, 3 * nranks * (int64_t)sizeof *st->counts, HOLD_SLOT(st, counts));
}

int at_layout(struct plan_step *s, int nranks, int64_t memory, const char *where, struct err *e)
{
	struct at_plan *a = s->at;
	const struct array *t = s->in[0];
	int64_t updates = shape_size(&a->space);
	struct dist_cost uc = { .widest = entry_bytes(s) }, tc = {0};
	struct hold h;
	hold_count(&h, &uc);
	update_buffers(s, nranks, NULL, &h);
	/* the target's boxes take half the budget, or what the smallest update
	 * box leaves, as large as that allows (every pass reads every update) */
	int64_t least = uc.fixed + (updates < 64 ? (updates > 0 ? updates : 1) : 64) * uc.per_elem;
	int64_t fixed = least > memory / 2 ? least : memory / 2;
	tc.memory = memory - fixed > IO_LIMIT ? fixed + IO_LIMIT : memory;
	hold_count(&h, &tc);
	target_buffers(s, fixed, NULL, &h);
	if (dist_layout_make(t->shape.ndim, t->shape.dim, stage_chunks(t), &tc, H5U_MAXDIM, nranks,
			     where, e, &a->target) < 0)
		return -1;
	a->passes = a->target.nboxes;
	a->memory = memory;
	int64_t left = memory - (dist_layout_bytes(&a->target) - fixed);
	uc.memory = left < EXCHANGE_LIMIT ? left : EXCHANGE_LIMIT;
	return dist_layout_make(a->space.ndim, a->space.dim, NULL, &uc, H5U_MAXDIM, 1, where, e,
				&a->updates);
}

/* The index values of update box START/COUNT along the target's axes
 * that no index array names: each index array's values, read for the
 * box's leading part (the first NL of the box's N positions), repeated
 * over its trailing part, and along each trailing axis the position's
 * own coordinate. */
static void spread_trailing(struct at_state *st, const int64_t *start, const int64_t *count, int64_t nl,
			    int64_t n)
{
	const struct at_plan *a = st->a;
	int lead = a->lead.ndim, ndim = st->s->in[0]->shape.ndim;
	int64_t per = nl ? n / nl : 0;
	for (int k = 0; k < a->nidx; k++)
		for (int64_t i = nl - 1; i >= 0; i--)   /* from the back: in place */
			for (int64_t j = per - 1; j >= 0; j--)
				st->idx[k][i * per + j] = st->idx[k][i];
	int64_t inner = 1;
	for (int k = ndim - 1; k >= a->nidx; k--) {
		int d = lead + k - a->nidx;
		for (int64_t i = 0; i < n; i++)
			st->idx[k][i] = start[d] + i / inner % count[d];
		inner *= count[d];
	}
}

/* Read update box START/COUNT (empty: none) of the index space: the
 * index values and b.  Collective: every rank makes every read, an empty
 * one once a read has failed here, and the caller agrees on the error. */
static void read_updates(struct at_state *st, const int64_t *start, const int64_t *count,
			 struct err *e)
{
	static const int64_t none[H5U_MAXDIM + 1];
	const struct at_plan *a = st->a;
	const struct plan_step *s = st->s;
	int64_t n = stage_box_size(a->space.ndim, count), lead[H5U_MAXDIM + 1];
	memcpy(lead, count, sizeof lead);   /* the leading part of the box */
	if (a->lead.ndim == 0)
		lead[0] = n > 0;   /* a 0-d box: whether it holds its element */
	for (int k = 0; k < a->nidx; k++)
		if (indices_read(&a->idx[k], &a->lead, start, e->status ? none : lead, &st->scratch[k],
				 st->idx[k], s->where, e) < 0)
			err_place(e, &s->loc);
	if (a->lead.ndim < a->space.ndim && !e->status)
		spread_trailing(st, start, count, stage_box_size(a->lead.ndim, lead), n);
	if (!a->literal_b &&
	    stage_read_broadcast(s->in[1], &a->space, s->loop->types[1], start, e->status ? none : count,
				 st->braw, st->bown, st->b, s->where, e) < 0)
		err_place(e, &s->loc);
}

/* The target element of each of the N updates read (a negative index
 * counted from the end) and the rank that holds it in this pass (-1:
 * none, another pass has it); an index out of range is kept in BAD. */
static void route(struct at_state *st, int64_t n)
{
	const struct shape *T = &st->s->in[0]->shape;
	for (int64_t i = 0; i < n; i++) {
		int64_t f = 0;
		for (int k = 0; k < T->ndim; k++) {
			int64_t v = st->idx[k][i], d = T->dim[k];
			if ((v < -d || v >= d) && st->bad_axis < 0) {
				st->bad = v;
				st->bad_axis = k;
			}
			f = f * d + (v < 0 ? v + d : v);
		}
		int lo = 0, hi = st->nranks;   /* the rank whose range holds F */
		while (hi - lo > 1) {
			int mid = (lo + hi) / 2;
			if (st->lo[mid] <= f)
				lo = mid;
			else
				hi = mid;
		}
		st->flat[i] = f;
		st->owner[i] = st->bad_axis < 0 && f >= st->lo[lo] && f < st->hi[lo] ? lo : -1;
	}
}

/* Update I onto its target element ELEM: the loop (through its dtypes
 * when the target's differs), its value VALUE (b's, NULL: none). */
static void apply(const struct plan_step *s, char *elem, const char *value)
{
	const struct ufunc_loop *l = s->loop;
	enum dtype tt = s->in[0]->dtype;
	int nin = s->nin;
	ptrdiff_t steps[3] = { 0, 0, 0 };
	if (l->types[0] == tt && l->types[nin] == tt) {
		char *args[3] = { elem, (char *)value, elem };
		if (nin == 1)
			args[1] = elem;
		l->fn(args, 1, steps);
		return;
	}
	_Alignas(16) unsigned char in[16], out[16];
	dtype_cast(tt, elem, 0, l->types[0], in, 0, 1);
	char *args[3] = { (char *)in, (char *)value, (char *)out };
	if (nin == 1)
		args[1] = (char *)out;
	l->fn(args, 1, steps);
	dtype_cast(l->types[nin], out, 0, tt, elem, 0, 1);
}

/* The value update I brings: b's, or the literal. */
static const char *value_of(const struct at_state *st, int64_t i)
{
	const struct plan_step *s = st->s;
	if (s->nin == 1)
		return NULL;
	if (st->a->literal_b)
		return (const char *)st->literal;
	return st->b + i * dtype_size(s->loop->types[1]);
}

/* The N updates read, sent to the ranks that hold their elements, each
 * rank's in their order, and applied there in rank order.  Collective. */
static void exchange_apply(struct at_state *st, int64_t n)
{
	const struct plan_step *s = st->s;
	int64_t ts = dtype_size(s->in[0]->dtype);
	int64_t vs = st->a->literal_b ? 0 : dtype_size(s->loop->types[1]);   /* b's bytes in an entry */
	memset(st->counts, 0, sizeof *st->counts * (size_t)st->nranks);
	for (int64_t i = 0; i < n; i++)
		if (st->owner[i] >= 0)
			st->counts[st->owner[i]]++;
	int64_t at = 0;
	for (int r = 0; r < st->nranks; r++) {   /* where each rank's entries start */
		int64_t c = st->counts[r];
		st->counts[r] = at;
		st->sent[r] = c * st->entry;
		at += c;
	}
	for (int64_t i = 0; i < n; i++) {   /* a stable counting sort: order kept */
		int r = st->owner[i];
		if (r < 0)
			continue;
		char *p = st->send + st->counts[r]++ * st->entry;
		int64_t off = st->flat[i] - st->lo[r];
		memcpy(p, &off, 8);
		if (vs)
			memcpy(p + 8, value_of(st, i), (size_t)vs);
	}
	comm_alltoallv(st->send, st->sent, st->recv, st->got);
	int64_t total = 0;
	for (int r = 0; r < st->nranks; r++)
		total += st->got[r];
	const char *literal = value_of(st, 0);
	for (int64_t k = 0; k < total / st->entry; k++) {
		const char *p = st->recv + k * st->entry;
		int64_t off;
		memcpy(&off, p, 8);
		apply(s, st->target + off * ts, vs ? p + 8 : literal);
	}
}

/* The N updates read, applied here: one rank holds the whole target. */
static void apply_here(struct at_state *st, int64_t n)
{
	int64_t ts = dtype_size(st->s->in[0]->dtype);
	for (int64_t i = 0; i < n; i++)
		if (st->owner[i] >= 0)
			apply(st->s, st->target + (st->flat[i] - st->lo[0]) * ts, value_of(st, i));
}

/* ---- passes --------------------------------------------------------------- */

/* Rank R's target box in pass P (START/COUNT), and its flat range. */
static bool target_box(const struct at_plan *a, int r, int64_t p, int64_t *start, int64_t *count,
		       int64_t *lo, int64_t *hi)
{
	struct dist_walk w;
	dist_walk_start(&a->target, r, &w);
	bool any = false;
	for (int64_t k = 0; k <= p; k++)
		any = dist_walk_next(&w, start, count);
	*lo = *hi = 0;
	if (!any)
		return false;
	int n = a->target.ndim;
	int64_t size = 1;
	for (int i = 0; i < n; i++)   /* boxes are contiguous in C order */
		size *= count[i];
	const int64_t *dim = a->target.dim;
	for (int i = 0; i < n; i++)
		*lo = *lo * dim[i] + start[i];
	*hi = *lo + size;
	return true;
}

/* Keep (RESTORE false) the values of the missing elements among the N of
 * the target box, or put them back (RESTORE true). */
static void keep_missing(struct at_state *st, int64_t n, bool restore)
{
	if (!keeps_missing(st->s))
		return;
	size_t size = (size_t)dtype_size(st->s->in[0]->dtype);
	if (!restore)
		cf_valid(st->s->in[0]->dtype, at_missing(st->s), st->s->at->keep_nan, st->target, n, st->valid);
	for (int64_t i = 0, j = 0; i < n; i++)
		if (!st->valid[i]) {
			char *elem = st->target + (size_t)i * size, *kept = st->kept + (size_t)j++ * size;
			memcpy(restore ? elem : kept, restore ? kept : elem, size);
		}
}

/* Pass P: the target boxes read, every round of updates applied, the
 * boxes written.  Collective. */
static int run_pass(struct at_state *st, int64_t p, struct err *e)
{
	const struct at_plan *a = st->a;
	struct array *t = st->s->in[0];
	int64_t start[H5U_MAXDIM + 1] = {0}, count[H5U_MAXDIM + 1] = {0};
	for (int r = 0; r < st->nranks; r++) {
		int64_t rs[H5U_MAXDIM + 1], rc[H5U_MAXDIM + 1];
		if (!target_box(a, r, p, rs, rc, &st->lo[r], &st->hi[r]))   /* none: kept in order */
			st->lo[r] = st->hi[r] = r ? st->hi[r - 1] : 0;
		else if (r == comm_rank()) {
			memcpy(start, rs, sizeof start);
			memcpy(count, rc, sizeof count);
		}
	}
	if (stage_read(t, t->dtype, start, count, st->traw, st->target, st->s->where, e) < 0)
		err_place(e, &st->s->loc);
	int64_t size = stage_box_size(t->shape.ndim, count);
	if (!e->status)   /* a box not read has nothing to keep */
		keep_missing(st, size, false);
	if (comm_agree(e) < 0)
		return -1;
	int64_t rounds = (a->updates.total_boxes + st->nranks - 1) / st->nranks;
	struct dist_walk w;
	dist_walk_start(&a->updates, 0, &w);
	for (int64_t g = 0; g < rounds && !e->status; g++) {
		int64_t us[H5U_MAXDIM + 1] = {0}, uc[H5U_MAXDIM + 1] = {0};
		int64_t os[H5U_MAXDIM + 1], oc[H5U_MAXDIM + 1];
		bool mine = false;
		for (int r = 0; r < st->nranks; r++)   /* box g * P + r is rank r's */
			if (dist_walk_next(&w, os, oc) && r == comm_rank()) {
				memcpy(us, os, sizeof us);
				memcpy(uc, oc, sizeof uc);
				mine = true;
			}
		int64_t n = mine ? stage_box_size(a->space.ndim, uc) : 0;
		read_updates(st, us, uc, e);
		if (comm_agree(e) < 0)
			break;
		route(st, n);
		if (st->nranks == 1)
			apply_here(st, n);
		else
			exchange_apply(st, n);
	}
	reducer_check_fault(st->s, e);   /* NumPy's error from the data: nothing of it written */
	if (st->bad_axis >= 0 && !e->status)
		err_set_at(e, EXIT_RUN, &st->s->loc, st->s->where, "index %lld is out of bounds for axis %lld with size %lld",
			(long long)st->bad, (long long)st->bad_axis, (long long)t->shape.dim[st->bad_axis]);
	if (comm_agree(e) < 0)   /* nothing of this pass is written */
		return -1;
	keep_missing(st, size, true);
	if (stage_write(t, t->dtype, start, count, st->target, st->traw, st->s->where, e) < 0)
		err_place(e, &st->s->loc);
	return comm_agree(e);
}

/* The buffers of S's passes and rounds. */
static void state_new(struct plan_step *s, struct at_state *st)
{
	const struct at_plan *a = s->at;
	memset(st, 0, sizeof *st);
	st->s = s;
	st->a = a;
	st->nranks = comm_size();
	st->bad_axis = -1;
	st->entry = entry_bytes(s);
	if (s->nin == 2 && a->literal_b)
		memcpy(st->literal, s->prog.ops[0].lit[1], sizeof st->literal);
	hold_layout(&st->hold[0], &a->target);
	target_buffers(s, a->target.cost.fixed, st, &st->hold[0]);
	hold_end(&st->hold[0]);
	hold_layout(&st->hold[1], &a->updates);
	update_buffers(s, st->nranks, st, &st->hold[1]);
	hold_end(&st->hold[1]);
	if (st->counts) {
		st->sent = st->counts + st->nranks;
		st->got = st->sent + st->nranks;
	}
}

static void state_free(struct at_state *st)
{
	hold_free(&st->hold[0]);
	hold_free(&st->hold[1]);
}

/* Index datasets that an earlier step of the run wrote were not there to
 * check before the run: checked now, before the target is touched (an
 * index out of range is then an error of the run, exit status 1). */
static int check_written_indices(struct plan_step *s, struct err *e)
{
	const struct at_plan *a = s->at;
	for (int k = 0; k < a->nidx; k++) {
		const struct index_array *ix = &a->idx[k];
		if (!ix->x || !(ix->x->create || ix->x->in_place))
			continue;
		if (indices_check(ix, INDEX_WRAPS, s->in[0]->shape.dim[k], s->uf->name, k, a->memory, s->where,
				  e) < 0) {
			e->status = EXIT_RUN;
			return err_place(e, &s->loc);
		}
	}
	return 0;
}

int at_run(struct plan_step *s, struct err *e)
{
	if (check_written_indices(s, e) < 0)
		return -1;
	struct at_state st;
	state_new(s, &st);
	for (int64_t p = 0; p < s->at->passes && !e->status; p++)
		run_pass(&st, p, e);
	state_free(&st);
	return comm_agree(e);
}

/* ---- the plan in words -------------------------------------------------- */

void at_print(const struct plan_step *s, FILE *f)
{
	const struct at_plan *a = s->at;
	char buf[800];
	fprintf(f, ", %lld update%s (index space %s) in rounds of %lld per rank; the target in %lld pass%s of %lld box%s, %d of %d ranks holding one\n",
		(long long)shape_size(&a->space), shape_size(&a->space) == 1 ? "" : "s",
		shape_format(&a->space, buf, sizeof buf),
		(long long)(a->updates.lines_per_box * a->updates.line), (long long)a->passes,
		a->passes == 1 ? "" : "es", (long long)a->target.total_boxes,
		a->target.total_boxes == 1 ? "" : "es", a->target.ranks_with_work, a->target.nranks);
	for (int k = 0; k < a->nidx; k++) {
		const struct index_array *ix = &a->idx[k];
		fprintf(f, "  index %s %s %s%s\n", ix->x ? ix->x->display : ix->display,
			ix->x ? dtype_name(ix->x->dtype) : "int64", shape_format(&ix->shape, buf, sizeof buf),
			ix->x ? "" : ", literal");
	}
}
