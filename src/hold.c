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
	h->memory = c->memory;
}

void hold_layout(struct hold *h, const struct dist_layout *l)
{
	memset(h, 0, sizeof *h);
	for (int how = 0; how < DIST_HOLDS; how++) {
		h->elems[how] = dist_held_elems(l, (enum dist_hold)how);
		h->fits[how] = how != DIST_PER_ACROSS;   /* a layout carries nothing across */
	}
	h->counted = dist_layout_bytes(l);
	h->memory = l->cost.memory;
}

void hold_stream(struct hold *h, const struct dist_stream *s)
{
	memset(h, 0, sizeof *h);
	for (int how = 0; how < DIST_HOLDS; how++) {
		h->elems[how] = dist_stream_held_elems(s, (enum dist_hold)how);
		h->fits[how] = how != DIST_PER_TILE;   /* a stream has no tile */
	}
	h->counted = dist_stream_bytes(s);
	h->memory = s->across.cost.memory;
}

int64_t hold_memory(const struct hold *h)
{
	return h->memory;
}

bool hold_counting(const struct hold *h)
{
	return h->cost != NULL;
}

/* Allocating: N bytes held, into *SLOT when SLOT is not NULL and ANY
 * (else *SLOT is NULL). */
static void take(struct hold *h, int64_t n, bool any, void *slot)
{
	void *p = NULL;
	h->held += n;
	if (slot && any) {
		p = stage_alloc((size_t)(n > 0 ? n : 1));
		h->owned = stage_realloc(h->owned, (h->nowned + 1) * sizeof *h->owned);
		h->owned[h->nowned++] = p;
	}
	if (slot)
		memcpy(slot, &p, sizeof p);
}

void hold_buffer(struct hold *h, enum dist_hold how, int64_t bytes, void *slot)
{
	if (h->cost) {
		dist_cost_hold(h->cost, how, bytes);
		return;
	}
	assert(bytes == 0 || how == DIST_FIXED || h->fits[how]);
	take(h, bytes * h->elems[how], bytes > 0, slot);
}

int64_t hold_results(struct hold *h, int64_t group, int64_t extra, int n, const int64_t *bytes,
		     void *const *slots)
{
	int64_t g = group > 0 ? group : 1, sum = 0;
	for (int i = 0; i < n; i++)
		sum += bytes[i];
	if (h->cost) {
		dist_cost_hold(h->cost, DIST_FIXED, extra * sum);
		dist_cost_hold_per(h->cost, sum, g);
		return 0;
	}
	int64_t results = h->elems[DIST_PER_ELEM] / g + extra;
	for (int i = 0; i < n; i++)
		take(h, bytes[i] * results, bytes[i] > 0, slots[i]);
	return results;
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
