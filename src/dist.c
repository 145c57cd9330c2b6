/* dist.c - contiguous row shares and the blocks within them. */
#include "dist.h"

static void share(int64_t rows, int nranks, int rank, int64_t *first, int64_t *count)
{
	int64_t base = rows / nranks, extra = rows % nranks;
	*count = base + (rank < extra);
	*first = rank * base + (rank < extra ? rank : extra);
}

void dist_make(int64_t rows, int nranks, int rank, int64_t rows_per_block, struct dist *d)
{
	d->rows = rows;
	d->rows_per_block = rows_per_block > 0 ? rows_per_block : 1;
	share(rows, nranks, rank, &d->first, &d->count);
	int64_t most = rows / nranks + (rows % nranks != 0);
	d->nblocks = (most + d->rows_per_block - 1) / d->rows_per_block;
}

void dist_block(const struct dist *d, int64_t b, int64_t *first, int64_t *count)
{
	int64_t lo = b * d->rows_per_block;
	int64_t n = d->count - lo;
	if (n < 0)
		n = 0;
	if (n > d->rows_per_block)
		n = d->rows_per_block;
	*first = d->first + (n ? lo : 0);
	*count = n;
}
