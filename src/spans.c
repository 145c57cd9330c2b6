/* spans.c - a sorted set of byte ranges; see spans.h. */
#include <stdlib.h>
#include <string.h>

#include "journal_disk.h"
#include "spans.h"

/* The first range of L that ends after LO (L->n when none). */
int spans_after(const struct spans *l, uint64_t lo)
{
	int a = 0, b = l->n;
	while (a < b) {
		int m = (a + b) / 2;
		if (l->v[m].hi <= lo)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* [LO, HI) joins L: the ranges it meets or touches become one. */
void spans_add(struct spans *l, uint64_t lo, uint64_t hi)
{
	int i = spans_after(l, lo ? lo - 1 : 0), j = i;
	while (j < l->n && l->v[j].lo <= hi)
		j++;
	if (i < j) {   /* V[I..J) meet [LO, HI): merged into V[I] */
		l->v[i].lo = l->v[i].lo < lo ? l->v[i].lo : lo;
		l->v[i].hi = l->v[j - 1].hi > hi ? l->v[j - 1].hi : hi;
		memmove(&l->v[i + 1], &l->v[j], sizeof *l->v * (size_t)(l->n - j));
		l->n -= j - i - 1;
		return;
	}
	l->v = disk_room(l->v, l->n, &l->cap, sizeof *l->v);
	memmove(&l->v[i + 1], &l->v[i], sizeof *l->v * (size_t)(l->n - i));
	l->v[i] = (struct span){ lo, hi };
	l->n++;
}

/* [LO, HI) appended to L, joined to its last range where it meets it: a
 * pass announces its boxes in the order it writes them, mostly one after
 * another in the file, so this costs nothing; out of order, L is sorted
 * once, when it is next searched (spans_settle), not by an insertion a
 * range. */
void spans_push(struct spans *l, uint64_t lo, uint64_t hi)
{
	struct span *last = l->n ? &l->v[l->n - 1] : NULL;
	if (last && last->lo < last->hi && lo >= last->lo && lo <= last->hi) {
		last->hi = hi > last->hi ? hi : last->hi;
		return;
	}
	l->unsorted = l->unsorted || (last && lo < last->lo);
	l->v = disk_room(l->v, l->n, &l->cap, sizeof *l->v);
	l->v[l->n++] = (struct span){ lo, hi };
}

static int span_order(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* L sorted, apart and none touching again, its empty ranges dropped: at
 * once after spans_push appended out of order, else once they are half of
 * it (so a stream of cuts costs a constant a cut). */
void spans_settle(struct spans *l)
{
	if (!l->unsorted && 2 * l->empty <= l->n)
		return;
	if (l->unsorted)
		qsort(l->v, (size_t)l->n, sizeof *l->v, span_order);
	int k = 0;
	for (int i = 0; i < l->n; i++) {
		if (l->v[i].lo == l->v[i].hi)
			continue;
		if (k > 0 && l->v[i].lo <= l->v[k - 1].hi)
			l->v[k - 1].hi = l->v[i].hi > l->v[k - 1].hi ? l->v[i].hi : l->v[k - 1].hi;
		else
			l->v[k++] = l->v[i];
	}
	l->n = k;
	l->unsorted = false;
	l->empty = 0;
}

/* [LO, HI) taken out of L (settled).  A range wholly inside is emptied in
 * place ([lo, lo), which keeps L's order for spans_after), so that cutting
 * a list from its front moves nothing; only a cut inside one range splits
 * it. */
void spans_cut(struct spans *l, uint64_t lo, uint64_t hi)
{
	for (int i = spans_after(l, lo); i < l->n && l->v[i].lo < hi; i++) {
		struct span *s = &l->v[i];
		if (s->lo == s->hi)
			continue;
		if (s->lo < lo && s->hi > hi) {
			struct span tail = { hi, s->hi };
			s->hi = lo;
			l->v = disk_room(l->v, l->n, &l->cap, sizeof *l->v);
			memmove(&l->v[i + 2], &l->v[i + 1], sizeof *l->v * (size_t)(l->n - i - 1));
			l->v[i + 1] = tail;
			l->n++;
			return;
		}
		if (s->lo < lo) {
			s->hi = lo;
		} else if (s->hi > hi) {
			s->lo = hi;
		} else {
			s->hi = s->lo;
			l->empty++;
		}
	}
}
