/* hold.c - a pass's buffers, counted or allocated from one list; see
 * hold.h. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "hold.h"
#include "stage.h"

void hold_count(struct hold *h, struct dist_cost *c)
{
	memset(h, 0, sizeof *h);
	h->cost = c;
}

void hold_layout(struct hold *h, const struct dist_layout *l)
{
	memset(h, 0, sizeof *h);
	for (int how = 0; how < DIST_HOLDS; how++) {
		h->elems[how] = dist_held_elems(l, (enum dist_hold)how);
		h->fits[how] = how != DIST_PER_ACROSS;   /* a layout carries nothing across */
	}
	h->counted = dist_layout_bytes(l);
}

void hold_stream(struct hold *h, const struct dist_stream *s)
{
	memset(h, 0, sizeof *h);
	for (int how = 0; how < DIST_HOLDS; how++) {
		h->elems[how] = dist_stream_held_elems(s, (enum dist_hold)how);
		h->fits[how] = how != DIST_PER_TILE;   /* a stream has no tile */
	}
	h->counted = dist_stream_bytes(s);
}

bool hold_counting(const struct hold *h)
{
	return h->cost != NULL;
}

void hold_buffer(struct hold *h, enum dist_hold how, int64_t bytes, void *slot)
{
	if (h->cost) {
		dist_cost_hold(h->cost, how, bytes);
		return;
	}
	assert(bytes == 0 || how == DIST_FIXED || h->fits[how]);
	int64_t n = bytes * h->elems[how];
	void *p = NULL;
	h->held += n;
	if (slot && bytes > 0) {
		p = stage_alloc((size_t)(n > 0 ? n : 1));
		h->owned = stage_realloc(h->owned, (h->nowned + 1) * sizeof *h->owned);
		h->owned[h->nowned++] = p;
	}
	if (slot)
		memcpy(slot, &p, sizeof p);
}

void hold_end(const struct hold *h)
{
	(void)h;
	assert(h->cost || h->held <= h->counted);
}

void hold_free(struct hold *h)
{
	for (size_t i = 0; i < h->nowned; i++)
		free(h->owned[i]);
	free(h->owned);
	h->owned = NULL;
	h->nowned = 0;
}
