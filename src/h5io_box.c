/* h5io_box.c - boxes of a dataset read and written; see h5io.h.
 *
 * A box is a hyperslab, moved by one H5Dread or H5Dwrite: collectively
 * through MPI-IO where the dataset's file is shared by the ranks
 * (independently where its record says its reads go alone), as this
 * process's own call elsewhere.  A box of whole chunks, unfiltered and
 * stored as moved, goes a chunk a call as its bytes: read by the direct
 * reader (h5io_internal.h) from a file opened read-only, on one process
 * and under MPI, else moved by HDF5's chunk calls where this process has
 * the file alone.
 * A dataset written in place whose chunks are all stored plain moves
 * every box by preadv and pwritev at its chunks' places
 * (h5io_move_in_place), a chunk's lines in one call, past HDF5's chunk
 * cache, which read and wrote a chunk whole for every box that cut it,
 * and under MPI past MPI-IO's collective calls: each rank moves its boxes
 * alone, and a rank with an empty box moves nothing.
 * Under MPI-IO a dataset moved alone (h5io_dataset_alone) goes
 * independently: each rank's boxes hold whole chunks of its own, so no
 * collective call joins them, and a chunk that lies whole in the buffer,
 * one run of it, is one MPI-IO call of one run of the file (a collective
 * write of chunks went through ROMIO's data sieving, which read back
 * what it wrote).
 * Faults are injected here for the tests (H5UFUNC_FAULT).  What it reads
 * of a dataset is its record (h5io_dataset.c), made when the dataset was
 * opened; it opens nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "h5io.h"
#include "h5io_internal.h"
#include "iostat.h"
#include "journal.h"

/* Select the box START/COUNT of D in a file space, and a matching memory
 * space; an empty selection when there is nothing to move.  For a 0-d
 * dataset COUNT[0] is 1 (the element) or 0 (nothing). */
static void select_box(hid_t d, const struct shape *shape, const int64_t *start,
		       const int64_t *step, const int64_t *count, hid_t *fspace, hid_t *mspace)
{
	*fspace = H5Dget_space(d);
	int64_t n = shape->ndim ? 1 : count[0];   /* a 0-d box: count[0] is 0 or 1 */
	for (int i = 0; i < shape->ndim; i++)
		n *= count[i];
	if (n == 0) {
		hsize_t one = 1;
		H5Sselect_none(*fspace);
		*mspace = H5Screate_simple(1, &one, NULL);
		H5Sselect_none(*mspace);
		return;
	}
	if (shape->ndim == 0) {
		*mspace = H5Screate(H5S_SCALAR);
		return;
	}
	hsize_t st[H5U_MAXDIM], stride[H5U_MAXDIM], cnt[H5U_MAXDIM];
	for (int i = 0; i < shape->ndim; i++) {
		st[i] = (hsize_t)start[i];
		stride[i] = step ? (hsize_t)step[i] : 1;
		cnt[i] = (hsize_t)count[i];
	}
	H5Sselect_hyperslab(*fspace, H5S_SELECT_SET, st, stride, cnt, NULL);
	*mspace = H5Screate_simple(shape->ndim, cnt, NULL);
}

/* The box START/STEP/COUNT of REC's dataset as whole chunks, unfiltered
 * and stored as DT, stacked along one axis (one chunk thick along the
 * others, and of extent 1 before it): each chunk then lies whole in BUF,
 * and moves as its bytes by one call, without HDF5's selections or a
 * copy through its chunk cache: read by the direct reader where it reads
 * the dataset (h5io_read_chunk: a file opened read-only, on one process
 * or under MPI), else, in a file this process has alone (not through
 * MPI-IO), by H5Dread_chunk and H5Dwrite_chunk, which hold the chunk's
 * cached copy coherent.  1: moved;
 * 0: not such a box, or a chunk that cannot be read so (not yet
 * stored): the caller moves it; a negative value: a move failed. */
static herr_t move_chunks(bool write, struct h5io_record *rec, const struct shape *shape,
			  enum dtype dt, const int64_t *start, const int64_t *step, const int64_t *count,
			  void *buf)
{
	int n = shape->ndim, a = 0;
	const hsize_t *direct = n > 0 && !write ? h5io_direct_chunks(rec, dt) : NULL;
	const hsize_t *chunk = direct ? direct : n > 0 ? h5io_plain_chunks(rec, dt) : NULL;
	if (!chunk)
		return 0;
	while (a < n - 1 && count[a] == 1 && chunk[a] == 1)
		a++;
	size_t bytes = (size_t)dtype_size(dt);
	for (int i = 0; i < n; i++) {
		bool whole = i == a ? count[i] > 0 && count[i] % (int64_t)chunk[i] == 0
				    : count[i] == (int64_t)chunk[i];
		if (!whole || start[i] % (int64_t)chunk[i] || (step && count[i] > 1 && step[i] != 1))
			return 0;
		bytes *= chunk[i];
	}
	hsize_t offset[H5U_MAXDIM];
	for (int i = 0; i < n; i++)
		offset[i] = (hsize_t)start[i];
	for (int64_t j = 0; j < count[a] / (int64_t)chunk[a]; j++, offset[a] += chunk[a]) {
		char *at = (char *)buf + (size_t)j * bytes;
		uint32_t filters = 0;
		if (write && H5Dwrite_chunk(rec->d, H5P_DEFAULT, 0, offset, bytes, at) < 0)
			return -1;
		if (direct) {
			int got = h5io_read_chunk(rec, dt, offset, at);
			if (got <= 0)
				return got;
		} else if (!write && H5Dread_chunk(rec->d, H5P_DEFAULT, offset, &filters, at) < 0) {
			H5Eclear2(H5E_DEFAULT);
			return 0;
		}
	}
	return 1;
}

/* Reverse the bytes of each number of the N elements of DT at BUF (both
 * halves of a complex one), between the machine's byte order and the
 * other. */
static void swap_order(void *buf, hsize_t n, enum dtype dt)
{
	size_t part = (size_t)dtype_size(dt) / (dtype_table[dt].kind == 'c' ? 2 : 1);
	unsigned char *p = buf, *end = p + n * (size_t)dtype_size(dt);
	for (; part > 1 && p < end; p += part)
		for (size_t i = 0; i < part / 2; i++) {
			unsigned char t = p[i];
			p[i] = p[part - 1 - i];
			p[part - 1 - i] = t;
		}
}

/* H5Dwrite of BUF into D (or H5Dread of D into BUF), whose record is REC,
 * through DXPL.  A dataset stored in the other byte order is moved as
 * stored, its bytes swapped in BUF (before and after a write, after a
 * read): HDF5's collective filtered writes convert no type (they failed:
 * "datatype conversions were required"), and a read that converts, which
 * HDF5 1.10 does alone through its chunk cache, left that dataset's chunks
 * where the next collective filtered write could not inflate them
 * ("couldn't unfilter chunk for modifying"). */
static herr_t move_as_stored(bool write, hid_t d, const struct h5io_record *rec, enum dtype dt,
			     hid_t mspace, hid_t fspace, hid_t dxpl, void *buf)
{
	bool swapped = rec && rec->storage.swapped && rec->storage.esize == (size_t)dtype_size(dt);
	hid_t type = swapped ? H5Dget_type(d) : h5io_mem_type(dt);
	hsize_t n = swapped ? (hsize_t)H5Sget_simple_extent_npoints(mspace) : 0;
	if (write)
		swap_order(buf, n, dt);
	herr_t r = type < 0 ? -1
		 : write ? H5Dwrite(d, type, mspace, fspace, dxpl, buf)
			 : H5Dread(d, type, mspace, fspace, dxpl, buf);
	if (write || r >= 0)
		swap_order(buf, n, dt);
	if (swapped && type >= 0)
		H5Tclose(type);
	return r;
}

static int transfer(bool write, hid_t d, const struct shape *shape, enum dtype dt,
		    const int64_t *start, const int64_t *step, const int64_t *count, void *buf,
		    const char *where, struct err *e)
{
	hid_t fspace = -1, mspace = -1, dxpl = -1;
	struct h5io_record *rec = h5io_record_of(d);
	bool collective = false, left = false;
	int64_t joined = 0;   /* this rank's collective MPI-IO writes before the transfer */
	iostat_moving = true;
	herr_t r = rec && shape->ndim > 0 ? h5io_move_in_place(write, rec, dt, start, step, count, buf) : 0;
	if (r < 0) {
		iostat_moving = false;
		return err_set(e, EXIT_RUN, where, "%s failed: %s", write ? "write" : "read", strerror(errno));
	}
	if (r == 0)
		r = move_chunks(write, rec, shape, dt, start, step, count, buf);
	if (r == 0 && !write && rec && shape->ndim > 0)
		r = h5io_read_run(rec, dt, start, step, count, buf);
	if (r == 0) {
		select_box(d, shape, start, step, count, &fspace, &mspace);
		if (H5Sget_simple_extent_npoints(fspace) == 0) {
			/* A dataset of no elements has no storage to move (every
			 * rank sees the same extent, so every rank skips alike). */
			h5io_close_ids(2, (hid_t[]){ mspace, fspace });
			iostat_moving = false;
			return 0;
		}
		dxpl = H5Pcreate(H5P_DATASET_XFER);
		/* reads of chunks never written go independently (h5io_unwritten.c),
		 * and every box of a dataset moved alone */
		collective = comm_mpi() && rec && rec->driver == H5FD_MPIO && !rec->alone &&
			     (write || !rec->read_alone);
		if (collective)
			H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
		joined = iostat.mpiio_coll_writes;
		left = write && collective && fault_call("leave");
		r = left ? -1 : move_as_stored(write, d, rec, dt, mspace, fspace, dxpl, buf);
	}
	iostat_moving = false;
	if (write)
		iostat.h5_writes++;
	else
		iostat.h5_reads++;
	hid_t stack = r < 0 ? H5Eget_current_stack() : -1;
	h5io_close_ids(3, (hid_t[]){ dxpl, mspace, fspace });
	if (r < 0) {
		/* failed before its collective MPI-IO write, which the other
		   ranks wait in: no agreement reaches them */
		bool stranded = write && collective && iostat.mpiio_coll_writes == joined;
		if (stranded)
			err_set(e, EXIT_RUN, where, "write failed on rank %d%s", comm_rank(),
				left ? " (H5UFUNC_FAULT)" : "");
		else
			err_set(e, EXIT_RUN, where, "%s failed", write ? "write" : "read");
		h5io_fold_stack(e, stack);
		if (stranded) {
			err_append(e, "; the other ranks wait for it in a collective write: every rank is "
				   "stopped, and what the run wrote in place is put back when the next run opens "
				   "its file or by h5ufunc recover");
			comm_abort(e);
		}
		return -1;
	}
	if (fault_call(write ? "write" : "read")) {
		err_set(e, EXIT_RUN, where, "%s failed (H5UFUNC_FAULT)", write ? "write" : "read");
		return -1;
	}
	return 0;
}

void h5io_dataset_alone(hid_t d)
{
	struct h5io_record *rec = h5io_record_of(d);
	if (rec && rec->driver == H5FD_MPIO && h5io_dataset_written(d) == H5IO_WRITTEN_ALL)
		rec->alone = true;
}

int h5io_read_box(hid_t d, const struct shape *shape, enum dtype dt,
		  const int64_t *start, const int64_t *step, const int64_t *count,
		  void *buf, const char *where, struct err *e)
{
	return transfer(false, d, shape, dt, start, step, count, buf, where, e);
}

int h5io_write_box(hid_t d, const struct shape *shape, enum dtype dt,
		   const int64_t *start, const int64_t *step, const int64_t *count,
		   const void *buf, const char *where, struct err *e)
{
	return transfer(true, d, shape, dt, start, step, count, (void *)buf, where, e);
}

int h5io_read_chunks(hid_t d, const struct shape *shape, enum dtype dt, const int64_t *start,
		     const int64_t *count, void *buf, int64_t cap, const char *where, struct err *e)
{
	struct h5io_record *rec = h5io_record_of(d);
	int n = shape->ndim;
	const hsize_t *chunk = rec && n > 0 ? h5io_direct_chunks(rec, dt) : NULL;
	if (!chunk)
		return 0;
	int64_t bytes = dtype_size(dt), first[H5U_MAXDIM], last[H5U_MAXDIM];
	for (int i = 0; i < n; i++) {
		int64_t c = (int64_t)chunk[i], end = start[i] + count[i];
		if (count[i] <= 0 || start[i] % c || (end % c && end != shape->dim[i]))
			return 0;
		first[i] = start[i] / c;
		last[i] = (end - 1) / c;
		bytes *= c;
	}
	int64_t nchunks = 1;
	for (int i = 0; i < n; i++)
		nchunks *= last[i] - first[i] + 1;
	if (nchunks > cap / bytes)
		return 0;
	hsize_t offset[H5U_MAXDIM];
	for (int i = 0; i < n; i++)
		offset[i] = (hsize_t)(first[i] * (int64_t)chunk[i]);
	iostat_moving = true;
	int rc = 1;
	for (int64_t j = 0; j < nchunks && rc == 1; j++) {
		/* 0: never written: HDF5 reads its fill value */
		rc = h5io_read_chunk(rec, dt, offset, (char *)buf + j * bytes);
		for (int i = n - 1; i >= 0; i--) {   /* the next chunk, in C order */
			offset[i] += chunk[i];
			if ((int64_t)(offset[i] / chunk[i]) <= last[i])
				break;
			offset[i] = (hsize_t)(first[i] * (int64_t)chunk[i]);
		}
	}
	iostat_moving = false;
	iostat.h5_reads++;
	if (rc < 0)
		return err_set(e, EXIT_RUN, where, "read failed: %s", strerror(errno));
	if (rc == 1 && fault_call("read")) {
		err_set(e, EXIT_RUN, where, "read failed (H5UFUNC_FAULT)");
		return -1;
	}
	return rc;
}
