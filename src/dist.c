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

#define IO_LIMIT ((int64_t)1 << 31)      /* bytes no I/O call reaches */
#define BLOCK_TARGET ((int64_t)4 << 20)  /* blocks stop growing here: larger
					    ones only cost page faults */

int dist_block_units(int64_t memory, int64_t fixed, int64_t per_unit, int64_t widest,
		     int64_t units, int nranks, const char *unit, const char *where,
		     struct err *e, int64_t *out)
{
	if (memory < fixed + per_unit)
		return err_set(e, EXIT_USAGE, where,
			       "--memory %lld bytes is too small for one block (%s needs %lld bytes)",
			       (long long)memory, unit, (long long)(fixed + per_unit));
	int64_t upb = per_unit ? (memory - fixed) / per_unit : units;
	if (widest && upb > (IO_LIMIT - 1) / widest)
		upb = (IO_LIMIT - 1) / widest;
	if (upb < 1)
		return err_set(e, EXIT_USAGE, where,
			       "a row of %lld bytes is too large: no I/O call moves 2 GiB or more",
			       (long long)widest);
	if (widest && upb > BLOCK_TARGET / widest)
		upb = BLOCK_TARGET / widest > 0 ? BLOCK_TARGET / widest : 1;
	int64_t share = (units + nranks - 1) / nranks;
	*out = upb < share ? upb : share > 0 ? share : 1;
	return 0;
}
