/* h5io_announce.c - the bytes that writing a box overwrites, announced
 * to the rollback journal (journal.h) before the write, from where the
 * dataset's bytes lie in its file (h5io_layout.h).
 *
 * So that the journal saves a box's bytes in one record
 * rather than one a write call.  Contiguous data: the box's runs in C
 * order.  Chunked data without filters, in a file this process has alone
 * (one process: MPI-IO is not its driver), or written in place by runs
 * (on every rank): every chunk the box touches, whole (a chunk is
 * rewritten whole).  Nothing else is announced -- a compressed chunk
 * moves when it is rewritten, and under MPI-IO the aggregator ranks write
 * for others -- and the journal then saves exactly what each write call
 * overwrites.  Announcing widens what is saved beyond what this rank
 * writes only where ranks share a chunk written in place by runs (their
 * shares cut it, as where whole chunk rows would not deal evenly): the
 * first rank to write into it saves it whole,
 * the others learn that it is saved (journal.c's shared ranges) or save
 * it again after, with a later sequence number, and replay puts back the
 * oldest record's bytes (journal.h), so the order stays right.
 */
#include <hdf5.h>
#include <stdbool.h>
#include <stdint.h>

#include "h5io.h"
#include "h5io_internal.h"
#include "h5io_layout.h"
#include "journal.h"
#include "shape.h"

#define BATCH 256            /* ranges handed to the journal at once */
#define MAX_BATCHES 16       /* ... and at most these many batches a box */

/* The ranges of a box, handed to the journal a batch at a time. */
struct extents {
	const char *path;
	uint64_t r[BATCH][2];
	int n, batches;
};

static void extents_flush(struct extents *x)
{
	if (x->n > 0)
		journal_expect(x->path, (const uint64_t (*)[2])x->r, x->n);
	x->n = 0;
	x->batches++;
}

/* Add [AT, AT+LEN) to X, joined to the last range where it goes on from
 * it (a chunk row's chunks usually lie one after another); false when the
 * box has had MAX_BATCHES batches (the rest is saved as it is written). */
static bool extent_add(struct extents *x, haddr_t at, uint64_t len)
{
	if (x->n > 0 && x->r[x->n - 1][1] == (uint64_t)at) {
		x->r[x->n - 1][1] += len;
		return true;
	}
	if (x->n == BATCH)
		extents_flush(x);
	if (x->batches == MAX_BATCHES)
		return false;
	x->r[x->n][0] = (uint64_t)at;
	x->r[x->n][1] = (uint64_t)at + len;
	x->n++;
	return true;
}

/* ---- the extents of a box ------------------------------------------------ */

/* The runs of the box START/STEP/COUNT of the contiguous dataset of L, of
 * SHAPE, into X.  False when they are too many. */
static bool contiguous_runs(const struct h5io_layout *l, const struct shape *shape,
			    const int64_t *start, const int64_t *step, const int64_t *count,
			    struct extents *x)
{
	int n = shape->ndim, outer = n - 1;
	uint64_t esize = l->rec->storage.esize, run = esize, stride[H5U_MAXDIM + 1];
	stride[n > 0 ? n - 1 : 0] = 1;
	for (int i = n - 1; i > 0; i--)
		stride[i - 1] = stride[i] * (uint64_t)shape->dim[i];
	/* The axes after OUTER lie in one run; OUTER's indices and those
	 * before it are enumerated. */
	for (; outer >= 0; outer--) {
		if (count[outer] > 1 && step && step[outer] != 1)
			break;
		run *= (uint64_t)count[outer];
		if (start[outer] != 0 || count[outer] != shape->dim[outer]) {
			outer--;
			break;
		}
	}
	int64_t idx[H5U_MAXDIM] = { 0 };
	for (;;) {
		uint64_t at = 0;
		for (int i = 0; i < n; i++)
			at += (uint64_t)(start[i] + idx[i] * (step ? step[i] : 1)) * stride[i];
		if (!extent_add(x, l->addr + at * esize, run))
			return false;
		int i = outer;
		while (i >= 0 && ++idx[i] == count[i])
			idx[i--] = 0;
		if (i < 0)
			return true;
	}
}

/* The chunks that the box START/COUNT of the chunked dataset of L
 * touches, whole, into X.  False when they are too many or HDF5 cannot
 * say where one is. */
static bool chunks_touched(struct h5io_layout *l, const int64_t *start, const int64_t *count,
			   struct extents *x)
{
	const hsize_t *chunk = l->rec->storage.chunk;
	int n = l->rec->storage.ndim;
	int64_t first[H5U_MAXDIM], lead[H5U_MAXDIM];
	uint64_t parts = h5io_first_chunk(n, chunk, start, count, lead, first);
	for (uint64_t j = 0; j < parts; j++) {
		hsize_t offset[H5U_MAXDIM], size;
		haddr_t addr;
		for (int i = 0; i < n; i++)
			offset[i] = (hsize_t)first[i];
		if (!h5io_chunk_at(l, offset, &addr, &size))
			return false;
		if (addr != HADDR_UNDEF && !extent_add(x, addr, size))
			return false;
		h5io_next_chunk(n, chunk, lead, start, count, first);
	}
	return true;
}

void h5io_expect_box(hid_t d, const struct shape *shape, const int64_t *start,
		     const int64_t *step, const int64_t *count)
{
	if (!journal_active() || shape->ndim == 0)
		return;
	for (int i = 0; i < shape->ndim; i++)
		if (count[i] == 0)
			return;
	struct h5io_layout *l = h5io_layout_of(h5io_record_of(d));
	if (!l || l->rec->storage.ndim != shape->ndim)
		return;
	bool strided = false;
	for (int i = 0; step && i < shape->ndim; i++)
		strided |= count[i] > 1 && step[i] != 1;
	struct extents x = { .path = l->path, .n = 0 };
	if (l->kind == LAYOUT_CONTIGUOUS)
		contiguous_runs(l, shape, start, step, count, &x);
	else if (l->kind == LAYOUT_CHUNKED && !strided)
		chunks_touched(l, start, count, &x);
	H5Eclear2(H5E_DEFAULT);
	if (x.batches < MAX_BATCHES)
		extents_flush(&x);
}
