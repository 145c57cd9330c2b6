/* spans.h - a set of byte ranges [lo, hi) of a file, kept sorted, apart
 * and none touching, with a binary search (spans_after); the journal
 * keeps in it what a rank saved and what it announced it overwrites.
 * Appends in order cost nothing (spans_push); one out of order, or cuts
 * that empty ranges in place, are tidied once, when next searched
 * (spans_settle).  Private to journal.c.
 */
#ifndef H5UFUNC_SPANS_H
#define H5UFUNC_SPANS_H

#include <stdbool.h>
#include <stdint.h>

struct span {
	uint64_t lo, hi;
};

struct spans {   /* sorted, apart, none touching; but see spans_push */
	struct span *v;
	int n, cap;
	bool unsorted;   /* spans_push appended out of order: spans_settle sorts */
	int empty;       /* ranges spans_cut emptied, left in place */
};

/* The first range of L that ends after LO (L->n when none). */
int spans_after(const struct spans *l, uint64_t lo);
/* [LO, HI) joins L: the ranges it meets or touches become one. */
void spans_add(struct spans *l, uint64_t lo, uint64_t hi);
/* [LO, HI) appended to L, joined to its last range where it meets it;
 * out of order, L is sorted when next settled. */
void spans_push(struct spans *l, uint64_t lo, uint64_t hi);
/* L sorted, apart and none touching again, its empty ranges dropped:
 * after an append out of order, or once they are half of it. */
void spans_settle(struct spans *l);
/* [LO, HI) taken out of L (settled). */
void spans_cut(struct spans *l, uint64_t lo, uint64_t hi);

#endif
