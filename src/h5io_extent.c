/* h5io_extent.c - the bytes of a file that writing a box of a dataset
 * overwrites, announced to the rollback journal (journal.h) before the
 * write, so that it saves them in one record rather than one a write call.
 *
 * Contiguous data: the box's runs in C order.  Chunked data without
 * filters, on one process: every chunk the box touches, whole (a chunk
 * is rewritten whole).  Nothing else is announced -- a compressed chunk
 * moves when it is rewritten, and under MPI-IO the aggregator ranks write
 * for others -- and the journal then saves exactly what each write call
 * overwrites.  Announcing never widens what is saved beyond what this
 * rank writes: a box's runs and chunks are written by the box's write.
 */
#include <hdf5.h>

#include "comm.h"
#include "h5io.h"
#include "journal.h"

#define MAX_RANGES 256  /* more runs or chunks in a box: not announced */

struct extents {
	uint64_t r[MAX_RANGES][2];
	int n;
};

/* Add [AT, AT+LEN) to X, joined to the last range where it goes on from
 * it (a chunk row's chunks usually lie one after another); false when X
 * is full. */
static bool extent_add(struct extents *x, haddr_t at, uint64_t len)
{
	if (x->n > 0 && x->r[x->n - 1][1] == (uint64_t)at) {
		x->r[x->n - 1][1] += len;
		return true;
	}
	if (x->n == MAX_RANGES)
		return false;
	x->r[x->n][0] = (uint64_t)at;
	x->r[x->n][1] = (uint64_t)at + len;
	x->n++;
	return true;
}

/* The runs of the box START/STEP/COUNT of a contiguous dataset of SHAPE
 * at ADDR, elements of ESIZE bytes, into X.  False when they are too many. */
static bool contiguous_runs(haddr_t addr, size_t esize, const struct shape *shape, const int64_t *start,
			    const int64_t *step, const int64_t *count, struct extents *x)
{
	int n = shape->ndim, outer = n - 1;
	uint64_t run = esize, stride[H5U_MAXDIM + 1];
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
		if (!extent_add(x, addr + at * esize, run))
			return false;
		int i = outer;
		while (i >= 0 && ++idx[i] == count[i])
			idx[i--] = 0;
		if (i < 0)
			return true;
	}
}

/* The chunks (extents CHUNK) that the box START/COUNT of dataset D of
 * SHAPE touches, whole, into X.  False when they are too many. */
static bool chunks_touched(hid_t d, const struct shape *shape, const hsize_t *chunk,
			   const int64_t *start, const int64_t *count, struct extents *x)
{
	int n = shape->ndim;
	hsize_t first[H5U_MAXDIM], last[H5U_MAXDIM], at[H5U_MAXDIM];
	for (int i = 0; i < n; i++) {
		first[i] = at[i] = (hsize_t)start[i] / chunk[i];
		last[i] = (hsize_t)(start[i] + count[i] - 1) / chunk[i];
	}
	for (;;) {
		hsize_t offset[H5U_MAXDIM];
		unsigned mask;
		haddr_t addr;
		hsize_t size;
		for (int i = 0; i < n; i++)
			offset[i] = at[i] * chunk[i];
		if (H5Dget_chunk_info_by_coord(d, offset, &mask, &addr, &size) < 0)
			return false;
		if (addr != HADDR_UNDEF && !extent_add(x, addr, size))
			return false;
		int i = n - 1;
		while (i >= 0 && at[i] == last[i])
			at[i] = first[i], i--;
		if (i < 0)
			return true;
		at[i]++;
	}
}

/* The extents of the box of D into X, as the head says; false: none. */
static bool box_extents(hid_t d, const struct shape *shape, const int64_t *start,
			const int64_t *step, const int64_t *count, struct extents *x)
{
	hid_t dcpl = H5Dget_create_plist(d), type = H5Dget_type(d);
	size_t esize = type >= 0 ? H5Tget_size(type) : 0;
	bool strided = false, ok = false;
	for (int i = 0; step && i < shape->ndim; i++)
		strided |= count[i] > 1 && step[i] != 1;
	H5D_layout_t layout = dcpl >= 0 ? H5Pget_layout(dcpl) : H5D_LAYOUT_ERROR;
	if (layout == H5D_CONTIGUOUS && esize) {
		haddr_t addr = H5Dget_offset(d);
		ok = addr != HADDR_UNDEF && contiguous_runs(addr, esize, shape, start, step, count, x);
	} else if (layout == H5D_CHUNKED && !comm_mpi() && !strided && H5Pget_nfilters(dcpl) == 0) {
		hsize_t chunk[H5U_MAXDIM];
		ok = H5Pget_chunk(dcpl, H5U_MAXDIM, chunk) == shape->ndim &&
		     chunks_touched(d, shape, chunk, start, count, x);
	}
	if (type >= 0)
		H5Tclose(type);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	H5Eclear2(H5E_DEFAULT);
	return ok;
}

void h5io_expect_box(hid_t d, const struct shape *shape, const int64_t *start,
		     const int64_t *step, const int64_t *count)
{
	char path[4096];
	struct extents x = { .n = 0 };
	if (!journal_active() || shape->ndim == 0)
		return;
	for (int i = 0; i < shape->ndim; i++)
		if (count[i] == 0)
			return;
	ssize_t len = H5Fget_name(d, path, sizeof path);
	if (len > 0 && (size_t)len < sizeof path && box_extents(d, shape, start, step, count, &x))
		journal_expect(path, (const uint64_t (*)[2])x.r, x.n);
}
