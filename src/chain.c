/* chain.c - a reduction's contiguous groups folded in NumPy's pieces and
 * chained in order; see chain.h.
 *
 * In order: a piece's fold and the chain step; where a box's elements go
 * (whole pieces folded where they lie, cut ones gathered, partials chained
 * or held); writing the groups a box finished; the records of groups split
 * between ranks, sent to rank 0 and chained there in rank order.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "comm.h"
#include "hold.h"
#include "reducer.h"
#include "stage.h"

/* Elements of one piece gathered from several boxes (or ranks). */
struct fragment {
	char *data;              /* a piece's elements, of the loop's second dtype */
	uint8_t *valid;          /* masked: whether each is valid; else NULL */
	int64_t start;           /* the flat index of data[0] */
	int64_t n;               /* elements held */
};

struct chain {
	struct plan_step *s;
	int asz, dsz;            /* bytes of a result, of an input element */
	const struct ufunc_loop *ploop;   /* the loop that folds pieces (ufunc_partial_loop) ... */
	enum dtype pt;           /* ... and the dtype of its partial results, */
	int psz;                 /* their bytes */
	char *scratch;           /* a piece cast to PT, when the input is not */
	unsigned char init_p[16], rest_p[16];   /* the reduction's starts in PT */
	bool masked;
	size_t slot;             /* a partial result: its value (PT), and (masked) a
				    byte saying whether it has a valid element */
	int64_t group_len;       /* elements of a group ... */
	int64_t pieces;          /* ... its pieces ... */
	int64_t piece_max;       /* ... and the elements of the longest */
	bool begun;              /* a box was fed: FIRST and NEXT hold */
	int64_t first, next;     /* flat index of this rank's first element, of the next box */
	struct fragment cut;     /* a piece cut by a box boundary, being gathered */
	struct fragment head;    /* the piece this rank's share begins inside */
	/* the group being folded */
	int64_t group;           /* -1: none */
	bool own;                /* this rank folds it from its first element: ACC is its chain */
	int64_t done;            /* its pieces chained into ACC, or held */
	char *acc, *part;        /* slots: the chain so far; a piece's partial */
	/* the group this rank's share begins inside (rank 0 finishes it) */
	char *held;              /* its partials, in order */
	char *grown;             /* HELD, grown past what was counted; else NULL */
	int64_t nheld, held_cap;
	bool held_ends;          /* it ends in this share */
	/* the groups a box finished (no kept axes: the one result, in FINAL) */
	char *res, *conv, *final;
	uint8_t *resv;
	bool has_final;
	int64_t res_cap, out_first, nout;
};

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* ---- a piece's fold, and the chain step ------------------------------- */

/* PART = the fold of the M elements at SRC (of dtype ST, STEP bytes
 * apart), the whole of piece K of a group (one call of the partial loop,
 * as NumPy makes it): from the reduction's start for the first piece,
 * from the identity (-0 for a float zero) for the others. */
static void fold_from(const struct chain *c, int64_t k, enum dtype st, const char *src, ptrdiff_t step,
		      int64_t m, char *part)
{
	const struct plan_step *s = c->s;
	enum fold_init init = k == 0 ? s->fold.init : s->fold.rest_init;
	if (init == FOLD_VALUE) {
		memcpy(part, k == 0 ? c->init_p : c->rest_p, (size_t)c->psz);
	} else {
		dtype_cast(st, src, 0, c->pt, part, 0, 1);
		if (init == FOLD_FIRST_SKIP) {
			src += step;
			m--;
		}
	}
	char *args[3] = { part, (char *)src, part };
	ptrdiff_t steps[3] = { 0, step, 0 };
	if (m > 0)
		c->ploop->fn(args, (size_t)m, steps);
}

/* PART = the fold of the N elements at DATA (VALID beside, masked mode), the
 * whole of piece K of a group (N <= CHAIN_PIECE), cast to the partials'
 * dtype first where the input's is not (fold_from). */
static void fold_piece(const struct chain *c, int64_t k, const char *data, const uint8_t *valid,
		       int64_t n, char *part)
{
	enum dtype dt = c->s->loop->types[1];
	const char *src = data;
	ptrdiff_t step = c->dsz;
	if (c->scratch) {
		dtype_cast(dt, data, c->dsz, c->pt, c->scratch, c->psz, (size_t)n);
		src = c->scratch;
		dt = c->pt;
		step = c->psz;
	}
	fold_from(c, k, dt, src, step, n, part);
	if (c->masked) {
		uint8_t any = 0;
		for (int64_t i = 0; i < n; i++)
			any |= valid[i];
		part[c->psz] = (char)any;
	}
}

/* Chain PART, the partial result of a group's piece, onto ACC, the
 * chain of the pieces before it (FIRST: there are none): values, rounded
 * to the result's dtype as the loop's call rounds its accumulator, and
 * (masked) whether they have a valid element. */
static void chain_onto(const struct chain *c, char *acc, const char *part, bool first)
{
	if (first) {
		memcpy(acc, part, c->slot);
	} else {
		char *args[3] = { acc, (char *)part, acc };
		ptrdiff_t steps[3] = { 0, 0, 0 };
		c->ploop->fn(args, 1, steps);
		if (c->masked)
			acc[c->psz] |= part[c->psz];
	}
	if (c->scratch) {
		enum dtype at = c->s->loop->types[0];
		unsigned char t[16];
		dtype_cast(c->pt, acc, 0, at, t, 0, 1);
		dtype_cast(at, t, 0, c->pt, acc, 0, 1);
	}
}

/* Piece K of a group in the flat index space: its first element and length. */
static int64_t piece_len(const struct chain *c, int64_t k)
{
	return min64(CHAIN_PIECE, c->group_len - k * CHAIN_PIECE);
}

/* ---- where a box's elements go ---------------------------------------- */

/* Group G's result, finished on this rank: with kept axes into the box's
 * results (a run of groups), else FINAL. */
static void emit(struct chain *c, int64_t g, const char *acc)
{
	if (c->s->fold.kept_lead == 0) {
		memcpy(c->final, acc, c->slot);
		c->has_final = true;
		return;
	}
	assert(c->nout < c->res_cap && (c->nout == 0 || g == c->out_first + c->nout));
	if (c->nout == 0)
		c->out_first = g;
	dtype_cast(c->pt, acc, 0, c->s->loop->types[0], c->res + c->nout * c->asz, 0, 1);
	if (c->masked)
		c->resv[c->nout] = (uint8_t)acc[c->psz];
	c->nout++;
}

/* Piece K of group G folded into PART: chained when this rank folds G from
 * its start (and G emitted after its last piece), else held for rank 0. */
static void take_partial(struct chain *c, int64_t g, int64_t k, const char *part)
{
	if (c->group != g) {   /* its first piece, or (begun before) the first after the head */
		c->group = g;
		c->own = g * c->group_len >= c->first;
		c->done = k;
	}
	assert(k == c->done && (k == 0 || !c->own || c->done > 0));
	c->done++;
	if (c->own) {
		chain_onto(c, c->acc, part, k == 0);
		if (c->done == c->pieces)
			emit(c, g, c->acc);
		return;
	}
	if (c->nheld == c->held_cap) {   /* beyond what the budget counted: grown here */
		c->held_cap = c->held_cap ? 2 * c->held_cap : 16;
		char *grown = stage_alloc((size_t)c->held_cap * c->slot);
		memcpy(grown, c->held, (size_t)c->nheld * c->slot);
		free(c->grown);
		c->held = c->grown = grown;
	}
	memcpy(c->held + c->nheld++ * c->slot, part, c->slot);
	c->held_ends = c->done == c->pieces;
}

/* Append N elements (DATA, VALID) to F. */
static void gather(const struct chain *c, struct fragment *f, const char *data, const uint8_t *valid,
		   int64_t n)
{
	memcpy(f->data + f->n * c->dsz, data, (size_t)(n * c->dsz));
	if (c->masked)
		memcpy(f->valid + f->n, valid, (size_t)n);
	f->n += n;
}

/* The flat index of START in an input of shape X. */
static int64_t flat_index(const struct shape *X, const int64_t *start)
{
	int64_t f = 0;
	for (int i = 0; i < X->ndim; i++)
		f = f * X->dim[i] + start[i];
	return f;
}

/* The flat index of the box START's element AT (C order over the box),
 * which continues this rank's run: where a box's first element (AT 0)
 * begins its results. */
static int64_t run_at(struct chain *c, const int64_t *start, int64_t at)
{
	int64_t f = flat_index(&c->s->in[0]->shape, start) + at;
	if (!c->begun) {
		c->begun = true;
		c->first = c->next = f;
	}
	assert(f == c->next);
	if (at == 0)
		c->nout = 0;
	return f;
}

void chain_run(struct chain *c, const char *data, const uint8_t *valid, const int64_t *start,
	       int64_t at, int64_t n)
{
	int64_t f = run_at(c, start, at);
	while (n > 0) {
		int64_t g = f / c->group_len, k = (f - g * c->group_len) / CHAIN_PIECE;
		int64_t pstart = g * c->group_len + k * CHAIN_PIECE, plen = piece_len(c, k);
		int64_t take = min64(pstart + plen - f, n);
		if (f == pstart && take == plen) {   /* a whole piece, where it lies */
			fold_piece(c, k, data, valid, plen, c->part);
			take_partial(c, g, k, c->part);
		} else {
			if (c->cut.n == 0)
				c->cut.start = f;
			gather(c, &c->cut, data, valid, take);
			if (c->cut.start + c->cut.n == pstart + plen) {   /* complete */
				if (c->cut.start == pstart) {
					fold_piece(c, k, c->cut.data, c->cut.valid, plen, c->part);
					take_partial(c, g, k, c->part);
				} else {   /* begun before this share: rank 0's */
					struct fragment t = c->head;
					c->head = c->cut;
					c->cut = t;
				}
				c->cut.n = 0;
			}
		}
		f += take;
		n -= take;
		data += take * c->dsz;
		valid = valid ? valid + take : NULL;
	}
	c->next = f;
}

void chain_piece(struct chain *c, const char *fold, const int64_t *start, int64_t at, int64_t n)
{
	int64_t f = run_at(c, start, at);
	int64_t g = f / c->group_len, k = (f - g * c->group_len) / CHAIN_PIECE;
	assert(c->cut.n == 0 && f == g * c->group_len + k * CHAIN_PIECE && n == piece_len(c, k));
	/* the piece's fold from the reduction's start is the loop's call over
	 * it, which adds its sum (or folds its fold in): the same call over the
	 * sum alone (a pairwise sum of one element is the element, and a fold
	 * exact in any grouping folds its pieces' folds as their elements) */
	fold_from(c, k, c->pt, fold, c->psz, 1, c->part);
	take_partial(c, g, k, c->part);
	c->next = f + n;
}

void chain_box(struct chain *c, const char *data, const uint8_t *valid, const int64_t *start,
	       const int64_t *count)
{
	chain_run(c, data, valid, start, 0, stage_box_size(c->s->in[0]->shape.ndim, count));
}

/* ---- writing what a box finished -------------------------------------- */

/* Output start and count of the groups [G0, G0 + N) of the reduction
 * FOLD of an input of shape X into Y, a hyperslab of its kept leading
 * axes; every count 0 when N is 0. */
static void group_box(const struct step_fold *fold, const struct shape *X, const struct shape *Y,
		      int64_t g0, int64_t n, int64_t *ostart, int64_t *ocnt)
{
	if (n == 0) {
		for (int i = 0; i < Y->ndim; i++)
			ostart[i] = ocnt[i] = 0;
		return;
	}
	int m = fold->kept_lead;
	int64_t inner = 1;
	int full = m;   /* axes from here on are whole */
	while (full > 0 && n % (inner * X->dim[full - 1]) == 0 && g0 % (inner * X->dim[full - 1]) == 0)
		inner *= X->dim[--full];
	int64_t at = g0 / inner, cnt = n / inner;
	for (int i = m - 1; i >= 0; i--) {
		if (i >= full) {
			ostart[i] = 0;
			ocnt[i] = X->dim[i];
		} else {
			ostart[i] = at % X->dim[i];
			ocnt[i] = i == full - 1 ? cnt : 1;
			at /= X->dim[i];
		}
	}
	for (int i = m, j = m; i < X->ndim; i++) {
		if (fold->reduced[i] && !fold->keepdims)
			continue;
		ostart[j] = 0;
		ocnt[j++] = fold->reduced[i] ? 1 : X->dim[i];
	}
	if (Y->ndim == 0)
		ocnt[0] = 1;
}

/* Collective: write the NOUT results of C (none: an empty selection). */
static int write_results(struct chain *c, struct err *e)
{
	int64_t ostart[H5U_MAXDIM] = {0}, ocnt[H5U_MAXDIM] = {0};
	group_box(&c->s->fold, &c->s->in[0]->shape, &c->s->out[0]->shape, c->out_first, c->nout, ostart,
		  ocnt);
	int rc = reducer_write_result(c->s, ostart, ocnt, c->res, c->resv, c->conv, e);
	c->nout = 0;
	return rc;
}

int chain_write_box(struct chain *c, struct err *e)
{
	return c->s->fold.kept_lead > 0 ? write_results(c, e) : 0;
}

/* ---- groups split between ranks --------------------------------------- */

/* What a rank holds of a group split between ranks, in flat order: the
 * running value of one it began (OWN), or the head of a piece begun before
 * its share and the partials after it; then the tail of a piece its share
 * ends inside. */
struct record {
	int64_t group;
	int64_t own;             /* ACC (DONE pieces chained) follows */
	int64_t done;
	int64_t head_n;          /* elements of the head */
	int64_t nheld;           /* partials after it */
	int64_t tail_start, tail_n;
};

/* Does C->cut hold the piece this rank's share begins inside (its share
 * ends inside that piece too)?  Else it holds the tail of one begun here. */
static bool cut_is_head(const struct chain *c)
{
	return c->cut.n > 0 && c->cut.start % c->group_len % CHAIN_PIECE != 0;
}

/* This rank's records (at most two, in flat order) into R; returns how many. */
static int records(const struct chain *c, struct record *r)
{
	if (!c->begun)
		return 0;
	int n = 0;
	int64_t G = c->group_len, last = (c->next - 1) / G;
	bool tail = c->cut.n > 0 && !cut_is_head(c);
	if (c->first % G != 0) {   /* a group begun before this share */
		int64_t g = c->first / G;
		r[n++] = (struct record){ .group = g, .nheld = c->nheld,
					  .head_n = cut_is_head(c) ? c->cut.n : c->head.n,
					  .tail_start = tail && last == g ? c->cut.start : 0,
					  .tail_n = tail && last == g ? c->cut.n : 0 };
	}
	if (c->next % G != 0 && last * G >= c->first)   /* one begun here, going on past it */
		r[n++] = (struct record){ .group = last, .own = 1,
					  .done = c->group == last ? c->done : 0,
					  .tail_start = tail ? c->cut.start : 0,
					  .tail_n = tail ? c->cut.n : 0 };
	return n;
}

/* Partials sent in one message: as many as the head buffer holds. */
static int64_t batch(const struct chain *c)
{
	int64_t b = c->piece_max * c->dsz / (int64_t)c->slot;
	return b > 0 ? b : 1;
}

/* Rank R > 0: send this rank's records to rank 0. */
static void send_records(const struct chain *c)
{
	struct record r[2];
	int64_t n = records(c, r);
	comm_send(&n, sizeof n, 0);
	for (int i = 0; i < n; i++) {
		comm_send(&r[i], sizeof r[i], 0);
		if (r[i].own)
			comm_send(c->acc, c->slot, 0);
		const struct fragment *h = cut_is_head(c) ? &c->cut : &c->head;
		comm_send(h->data, (size_t)(r[i].head_n * c->dsz), 0);
		if (c->masked)
			comm_send(h->valid, (size_t)r[i].head_n, 0);
		for (int64_t k = 0; k < r[i].nheld; k += batch(c))
			comm_send(c->held + k * c->slot, (size_t)min64(batch(c), r[i].nheld - k) * c->slot, 0);
		comm_send(c->cut.data, (size_t)(r[i].tail_n * c->dsz), 0);
		if (c->masked)
			comm_send(c->cut.valid, (size_t)r[i].tail_n, 0);
	}
}

/* Rank 0's assembly: the group being finished (C->group, C->acc, C->done
 * pieces chained) and the piece being gathered (C->cut). */

/* Chain PART as the next piece of the group rank 0 finishes. */
static void finish_piece(struct chain *c, const char *part)
{
	chain_onto(c, c->acc, part, c->done == 0);
	c->done++;
}

/* Rank 0: the groups finished from the records, as (group, slot) pairs. */
struct finished {
	int64_t n, cap;
	int64_t *group;
	char *value;
};

static void finished_add(const struct chain *c, struct finished *f)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 8;
		f->group = stage_realloc(f->group, sizeof *f->group * (size_t)f->cap);
		f->value = stage_realloc(f->value, c->slot * (size_t)f->cap);
	}
	f->group[f->n] = c->group;
	memcpy(f->value + c->slot * (size_t)f->n++, c->acc, c->slot);
}

/* Rank 0: take record R of rank RANK (rank 0's own from its buffers, the
 * others' received in the order send_records sends them) into the group
 * being finished. */
static void take_record(struct chain *c, const struct record *r, int rank, struct finished *f)
{
	struct fragment *p = &c->cut;
	if (r->own) {
		c->group = r->group;
		c->done = r->done;
		if (rank > 0)
			comm_recv(c->acc, c->slot, rank);
	} else {
		assert(r->group == c->group);
		if (rank > 0) {   /* the head goes on the piece being gathered */
			comm_recv(p->data + p->n * c->dsz, (size_t)(r->head_n * c->dsz), rank);
			if (c->masked)
				comm_recv(p->valid + p->n, (size_t)r->head_n, rank);
		}
		p->n += r->head_n;
		int64_t k = (p->start - c->group * c->group_len) / CHAIN_PIECE;
		if (r->head_n > 0 && p->n == piece_len(c, k)) {
			fold_piece(c, k, p->data, p->valid, p->n, c->part);
			finish_piece(c, c->part);
			p->n = 0;
		}
		for (int64_t k0 = 0; k0 < r->nheld; k0 += batch(c)) {
			int64_t b = min64(batch(c), r->nheld - k0);
			const char *part = rank > 0 ? c->head.data : c->held + k0 * c->slot;
			if (rank > 0)
				comm_recv(c->head.data, (size_t)b * c->slot, rank);
			for (int64_t i = 0; i < b; i++)
				finish_piece(c, part + i * c->slot);
		}
	}
	if (r->tail_n > 0) {
		p->start = r->tail_start;
		p->n = r->tail_n;
		if (rank > 0) {
			comm_recv(p->data, (size_t)(r->tail_n * c->dsz), rank);
			if (c->masked)
				comm_recv(p->valid, (size_t)r->tail_n, rank);
		}
	}
	if (c->done == c->pieces)
		finished_add(c, f);
}

/* Rank 0: every rank's records, in rank order, into F. */
static void assemble(struct chain *c, struct finished *f)
{
	struct record own[2];
	int n0 = records(c, own);
	if (c->s->fold.kept_lead == 0 && c->has_final) {   /* folded whole here */
		c->group = 0;
		memcpy(c->acc, c->final, c->slot);
		finished_add(c, f);
	}
	for (int i = 0; i < n0; i++)
		take_record(c, &own[i], 0, f);
	for (int rank = 1; rank < comm_size(); rank++) {
		int64_t n;
		comm_recv(&n, sizeof n, rank);
		for (int64_t i = 0; i < n; i++) {
			struct record r;
			comm_recv(&r, sizeof r, rank);
			take_record(c, &r, rank, f);
		}
	}
	if (c->s->fold.kept_lead == 0 && f->n == 0) {   /* an empty reduction: its start */
		c->group = 0;
		memcpy(c->acc, c->init_p, (size_t)c->psz);
		if (c->masked)
			c->acc[c->psz] = 0;
		finished_add(c, f);
	}
}

int chain_finish(struct chain *c, struct err *e)
{
	struct finished f = {0};
	if (comm_rank() == 0) {
		assemble(c, &f);
		reducer_check_fault(c->s, e);
	} else {
		send_records(c);
	}
	int64_t nf = f.n;
	comm_bcast(&nf, sizeof nf);
	if (comm_agree(e) < 0)
		goto out;
	/* one group a write: they lie apart, at the ranks' boundaries */
	for (int64_t i = 0; i < nf; i++) {
		c->nout = 0;
		if (comm_rank() == 0) {
			const char *v = f.value + c->slot * (size_t)i;
			dtype_cast(c->pt, v, 0, c->s->loop->types[0], c->res, 0, 1);
			if (c->masked)
				c->resv[0] = (uint8_t)v[c->psz];
			c->out_first = f.group[i];
			c->nout = 1;
		}
		write_results(c, e);
		if (comm_agree(e) < 0)
			break;
	}
out:
	free(f.group);
	free(f.value);
	return comm_agree(e);
}

/* ---- set-up ------------------------------------------------------------- */

/* Elements of a group of an input of shape X whose KEPT leading axes are
 * kept. */
static int64_t group_elems(const struct shape *X, int kept)
{
	int64_t group = 1;
	for (int i = kept; i < X->ndim; i++)
		group *= X->dim[i];
	return group;
}

/* Elements of the longest piece of those groups (at least 1). */
static int64_t piece_elems(const struct shape *X, int kept)
{
	int64_t g = group_elems(X, kept);
	return g < 1 ? 1 : min64(g, CHAIN_PIECE);
}

/* Does a rank of NRANKS hold the head of a piece beside the piece it cuts:
 * is the input more than one piece, split between ranks? */
static bool needs_head(const struct shape *X, int kept, int nranks)
{
	return nranks > 1 && shape_size(X) > piece_elems(X, kept);
}

/* Partials a rank may hold for rank 0 of a group begun before its share: the
 * pieces of its share, which is at most a quarter (or 4096 elements) over
 * an equal one and a row more (dist.h), and no more than a group has. */
static int64_t held_most(const struct shape *X, int kept, int nranks)
{
	int64_t total = shape_size(X), row = 1, group = group_elems(X, kept);
	for (int i = 1; i < X->ndim; i++)
		row *= X->dim[i];
	if (nranks < 2 || total == 0)
		return 0;
	int64_t share = total / nranks + total / (4 * (int64_t)nranks) + 4096 + row;
	return min64((group + CHAIN_PIECE - 1) / CHAIN_PIECE, share / CHAIN_PIECE + 2);
}

/* Bytes of a partial result of the PARTIAL loop (ufunc_partial_loop),
 * with a byte more when MASKED. */
static size_t slot_bytes(const struct ufunc_loop *partial, bool masked)
{
	return (size_t)dtype_size(partial->types[0]) + (masked ? 1 : 0);
}

/* Bytes of a piece of S, its scratch included. */
static int64_t piece_bytes(const struct plan_step *s)
{
	const struct ufunc_loop *p = ufunc_partial_loop(s->uf, s->loop);
	int64_t n = piece_elems(&s->in[0]->shape, s->fold.kept_lead), piece = n * (dtype_size(s->loop->types[1]) + (s->mask.masked ? 1 : 0));
	if (p != s->loop)
		piece += n * dtype_size(p->types[1]);   /* the scratch */
	return piece;
}

int64_t chain_head_bytes(const struct plan_step *s, int nranks)
{
	return needs_head(&s->in[0]->shape, s->fold.kept_lead, nranks) ? piece_bytes(s) : 0;
}

/* A fragment of one piece of N elements of dtype DT, listed into H with
 * F's slots (F NULL: counting): its elements, and (MASKED) a byte each
 * saying which are valid. */
static void fragment_hold(struct hold *h, int64_t n, enum dtype dt, bool masked, struct fragment *f)
{
	hold_buffer(h, DIST_FIXED, n * dtype_size(dt), HOLD_SLOT(f, data));
	hold_buffer(h, DIST_FIXED, masked ? n : 0, HOLD_SLOT(f, valid));
}

/* The results a box of C finishes, listed into H: with kept axes, at most a
 * result for each group it holds and one it ends (and one cut at its
 * start); else the one result, which chain_finish writes. */
static void results_hold(struct hold *h, struct chain *c, const struct plan_step *s)
{
	enum dtype t = s->loop->types[0];
	int64_t bytes[3] = { dtype_size(t), s->mask.masked, stage_scratch(s->out[0], t) };
	void *slots[3] = { HOLD_SLOT(c, res), HOLD_SLOT(c, resv), HOLD_SLOT(c, conv) };
	if (s->fold.kept_lead == 0) {
		for (int i = 0; i < 3; i++)
			hold_buffer(h, DIST_FIXED, bytes[i], slots[i]);
		if (c)
			c->res_cap = 1;
		return;
	}
	int64_t group = group_elems(&s->in[0]->shape, s->fold.kept_lead);
	int64_t cap = hold_results(h, group, 2, 3, bytes, slots);
	if (c)
		c->res_cap = cap;
}

/* Every buffer of a chain of S on NRANKS ranks, listed into H with C's
 * slots (C NULL: counting). */
static void each_buffer(struct hold *h, struct chain *c, const struct plan_step *s, int nranks)
{
	const struct ufunc_loop *p = ufunc_partial_loop(s->uf, s->loop);
	const struct shape *X = &s->in[0]->shape;
	int kept = s->fold.kept_lead;
	int64_t slot = (int64_t)slot_bytes(p, s->mask.masked), n = piece_elems(X, kept);
	hold_buffer(h, DIST_FIXED, p != s->loop ? n * dtype_size(p->types[0]) : 0, HOLD_SLOT(c, scratch));
	fragment_hold(h, n, s->loop->types[1], s->mask.masked, c ? &c->cut : NULL);
	if (needs_head(X, kept, nranks))
		fragment_hold(h, n, s->loop->types[1], s->mask.masked, c ? &c->head : NULL);
	hold_buffer(h, DIST_FIXED, slot, HOLD_SLOT(c, acc));
	hold_buffer(h, DIST_FIXED, slot, HOLD_SLOT(c, part));
	hold_buffer(h, DIST_FIXED, slot, HOLD_SLOT(c, final));
	hold_buffer(h, DIST_FIXED, held_most(X, kept, nranks) * slot, HOLD_SLOT(c, held));
	/* rank 0's groups finished from the records (chain_finish) */
	hold_buffer(h, DIST_FIXED, (1 + 2 * (int64_t)nranks) * slot, NULL);
	results_hold(h, c, s);
}

struct chain *chain_hold(struct hold *h, struct plan_step *s, int nranks)
{
	assert(s->fold.mode == REDUCE_CHAIN && !s->mask.skip_fold);
	if (hold_counting(h)) {
		each_buffer(h, NULL, s, nranks);
		return NULL;
	}
	struct chain *c = stage_alloc(sizeof *c);
	memset(c, 0, sizeof *c);
	c->s = s;
	c->asz = dtype_size(s->loop->types[0]);
	c->dsz = dtype_size(s->loop->types[1]);
	c->masked = s->mask.masked;
	c->ploop = ufunc_partial_loop(s->uf, s->loop);
	c->pt = c->ploop->types[0];
	c->psz = dtype_size(c->pt);
	dtype_cast(s->loop->types[0], s->fold.init_value, 0, c->pt, c->init_p, 0, 1);
	dtype_cast(s->loop->types[0], s->fold.rest_value, 0, c->pt, c->rest_p, 0, 1);
	const struct shape *X = &s->in[0]->shape;
	c->slot = slot_bytes(c->ploop, c->masked);
	c->group_len = group_elems(X, s->fold.kept_lead);
	c->pieces = (c->group_len + CHAIN_PIECE - 1) / CHAIN_PIECE;
	c->piece_max = piece_elems(X, s->fold.kept_lead);
	if (c->group_len == 0)
		c->group_len = 1;   /* no elements: no piece is ever fed */
	c->group = -1;
	c->held_cap = held_most(X, s->fold.kept_lead, nranks);
	each_buffer(h, c, s, nranks);
	return c;
}

void chain_free(struct chain *c)
{
	if (!c)
		return;
	free(c->grown);
	free(c);
}
