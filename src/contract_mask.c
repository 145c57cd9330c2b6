/* contract_mask.c - a contraction in masked mode (np.ma.dot): the missing
 * elements of the operands' slabs made 0, whether each result has a
 * product of two valid factors, and the masked results written as the
 * fill.  See contract_mask.h. */
#include <string.h>

#include "comm.h"
#include "contract_mask.h"
#include "masked.h"
#include "stage.h"
#include "where.h"

void contract_mask_buffers(const struct plan_step *s, int64_t na, int64_t nb, int64_t results,
			   bool shared, struct contract_masks *m, struct hold *h)
{
	bool on = s->mask.masked;
	hold_buffer(h, DIST_FIXED, on ? na : 0, HOLD_SLOT(m, valid[0]));
	hold_buffer(h, DIST_FIXED, on ? nb : 0, HOLD_SLOT(m, valid[1]));
	hold_buffer(h, DIST_FIXED, on ? results : 0, HOLD_SLOT(m, any));
	hold_buffer(h, DIST_FIXED, on && shared ? results : 0, HOLD_SLOT(m, recv));
	for (int k = 0; on && k < 2; k++)
		masked_hold(h, s->in[k], DIST_FIXED, k ? nb : na, HOLD_SLOT(m, plane_raw[k]));
}

int contract_mask_slab(const struct plan_step *s, int k, const int64_t *start, const int64_t *count,
		       char *data, int64_t n, const struct contract_masks *m, struct err *e)
{
	static const unsigned char zero[16];
	const struct array *x = s->in[k];
	uint8_t *valid = m->valid[k];
	if (masked_valid(x, s->contract->missing[k], s->mask.nan, start, count, n, data, m->plane_raw[k],
			 valid, s->where, e) < 0)
		return err_place(e, &s->loc);
	if (!e->status)
		where_select(x->dtype, n, data, valid, (const char *)zero, 0);
	return 0;
}

/* Does every one of the N bytes at P (STEP apart) say valid? */
static bool row_full(const uint8_t *p, int64_t n, ptrdiff_t step)
{
	for (int64_t j = 0; j < n; j++)
		if (!p[j * step])
			return false;
	return true;
}

/* Row R of ANY (NC results) or'ed with A's row R against B, along the
 * contraction in runs of ROW_RUN until every result of the row has a
 * valid product: most rows are done after their first run.  The or of
 * contiguous rows (the common layout) vectorizes. */
#define ROW_RUN 8
static void row_products(struct byte_view a, struct byte_view b, int64_t r, int64_t nk, int64_t nc,
			 struct byte_view any)
{
	uint8_t *out = any.data + r * any.step[0];
	bool unit = b.step[1] == 1 && any.step[1] == 1;
	for (int64_t k = 0; k < nk; k++) {
		if (k % ROW_RUN == 0 && row_full(out, nc, any.step[1]))
			return;
		if (!a.data[r * a.step[0] + k * a.step[1]])
			continue;
		const uint8_t *bk = b.data + k * b.step[0];
		if (unit)
			for (int64_t j = 0; j < nc; j++)
				out[j] |= bk[j];
		else
			for (int64_t j = 0; j < nc; j++)
				out[j * any.step[1]] |= bk[j * b.step[1]];
	}
}

void contract_mask_products(struct byte_view a, struct byte_view b, int64_t nr, int64_t nk,
			    int64_t nc, struct byte_view any)
{
	for (int64_t r = 0; r < nr; r++)
		row_products(a, b, r, nk, nc, any);
}

void contract_mask_gather(struct contract_masks *m, int64_t n)
{
	if (comm_rank() != 0) {
		comm_send(m->any, (size_t)n, 0);
		return;
	}
	for (int r = 1; r < comm_size(); r++) {
		comm_recv(m->recv, (size_t)n, r);
		for (int64_t i = 0; i < n; i++)
			m->any[i] |= m->recv[i];
	}
}

int contract_mask_results(const struct plan_step *s, struct contract_masks *m,
			  const uint8_t *epilogue, const int64_t *start, const int64_t *count,
			  int64_t n, char *data, struct err *e)
{
	for (int64_t i = 0; epilogue && i < n; i++)
		m->any[i] &= epilogue[i];
	masked_fill_results(s, s->out_dtype[0], n, data, m->any, e);
	if (s->mask.out &&
	    stage_write(s->mask.out, DT_BOOL, start, count, (char *)m->any, NULL, s->where, e) < 0)
		return err_place(e, &s->loc);
	return 0;
}
