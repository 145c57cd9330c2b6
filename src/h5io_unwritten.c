/* h5io_unwritten.c - chunked datasets under MPI-IO some of whose chunks
 * were never written (h5py's and netCDF-4's incremental allocation), or
 * were stored without their filters: the ones whose boxes are read
 * independently.
 *
 * HDF5 1.10's collective read of a chunked dataset builds one MPI file
 * type from the addresses of the chunks the ranks select; a chunk never
 * written has none, the type it makes is invalid, and every rank's
 * H5Dread fails in MPI_File_set_view ("MPI_ERR_TYPE: invalid datatype"),
 * on one rank as on four.  An independent read fills such a chunk's part
 * with the dataset's fill value, as h5py reads it.  So whether a dataset
 * has chunks never written is decided here when it is opened, kept in its
 * record (h5io_dataset.c), and its reads (not its writes) go
 * independently; every other read stays collective.  Which chunks were
 * written is read from the file, so every rank decides alike and no rank
 * enters a collective read alone.
 *
 * A chunk stored without its filters (a filter mask not 0: h5py's
 * write_direct_chunk(..., filter_mask=3), a filter that declined) is read
 * by HDF5 1.10's collective filtered path through the filters all the
 * same ("filter returned failure during read"); its independent read
 * honours the mask.  Which chunks are so is read from the chunk index
 * (chunkindex.h) once, when a filtered dataset is opened through MPI-IO.
 *
 * Not here: writes.  A collective write into a dataset some of whose
 * chunks were never written fails alike, and an independent one never
 * returned when tried (HDF5 1.10 allocates chunks collectively): the planner refuses such an in-place
 * write under MPI (outputs.c).  One none of whose chunks were written is
 * allocated whole by HDF5 when its file is opened for writing through
 * MPI-IO, and is written as any other.  A collective write of a dataset
 * with chunks stored without their filters would read them through the
 * filters too: refused alike (outputs.c).
 */
#include <hdf5.h>

#include "chunkindex.h"
#include "h5io.h"
#include "h5io_internal.h"

/* Chunks asked of HDF5 one by one, at most, where the index cannot be
 * read whole (each answer walks the index: this many cost milliseconds). */
#define MASKS_ASKED 1024

enum h5io_written h5io_dataset_written(hid_t d)
{
	/* Chunks counted, not H5Dget_space_status: HDF5 1.10 compares the
	 * bytes stored with the dataset's, and calls a dataset with ragged
	 * edge chunks or compressed ones partly allocated. */
	int64_t chunk[H5U_MAXDIM];
	int ndim = h5io_dataset_chunks(d, chunk);
	hid_t s = ndim > 0 ? H5Dget_space(d) : -1;
	hsize_t dims[H5U_MAXDIM], stored = 0, all = 1;
	if (s < 0 || H5Sget_simple_extent_dims(s, dims, NULL) != ndim ||
	    H5Dget_num_chunks(d, s, &stored) < 0) {
		if (s >= 0)
			H5Sclose(s);
		H5Eclear2(H5E_DEFAULT);
		return H5IO_WRITTEN_ALL;
	}
	H5Sclose(s);
	for (int i = 0; i < ndim; i++)
		all *= (dims[i] + (hsize_t)chunk[i] - 1) / (hsize_t)chunk[i];
	return stored >= all ? H5IO_WRITTEN_ALL : stored == 0 ? H5IO_WRITTEN_NONE : H5IO_WRITTEN_SOME;
}

/* Whether some chunk of D is stored without its filters, asked of HDF5
 * a chunk at a time: H5IO_MASKS_UNKNOWN past MASKS_ASKED chunks. */
static enum h5io_masks masks_asked(hid_t d)
{
	hid_t s = H5Dget_space(d);
	hsize_t n = 0, offset[H5U_MAXDIM], size;
	haddr_t addr;
	unsigned mask = 0;
	enum h5io_masks m = s >= 0 && H5Dget_num_chunks(d, s, &n) >= 0 && n <= MASKS_ASKED
				    ? H5IO_MASKS_NONE : H5IO_MASKS_UNKNOWN;
	for (hsize_t i = 0; m == H5IO_MASKS_NONE && i < n; i++)
		if (H5Dget_chunk_info(d, s, i, offset, &mask, &addr, &size) < 0)
			m = H5IO_MASKS_UNKNOWN;
		else if (mask != 0)
			m = H5IO_MASKS_SOME;
	if (s >= 0)
		H5Sclose(s);
	H5Eclear2(H5E_DEFAULT);
	return m;
}

enum h5io_masks h5io_masks_read(hid_t d)
{
	if (!h5io_dataset_filtered(d) || h5io_dataset_chunks(d, (int64_t[H5U_MAXDIM]){ 0 }) <= 0)
		return H5IO_MASKS_NONE;
	struct chunk_index ix;
	if (chunk_index_read(d, &ix) < 0)
		return masks_asked(d);
	enum h5io_masks m = H5IO_MASKS_NONE;
	for (size_t i = 0; i < ix.n && m == H5IO_MASKS_NONE; i++)
		if (ix.e[i].mask != 0)
			m = H5IO_MASKS_SOME;
	chunk_index_free(&ix);
	return m;
}

enum h5io_masks h5io_dataset_masks(hid_t d)
{
	const struct h5io_record *rec = h5io_record_of(d);
	return rec && rec->driver == H5FD_MPIO ? rec->masks : h5io_masks_read(d);
}

bool h5io_unwritten_read_alone(const struct h5io_record *rec)
{
	return rec->driver == H5FD_MPIO && (h5io_dataset_written(rec->d) != H5IO_WRITTEN_ALL ||
					    rec->masks != H5IO_MASKS_NONE);
}
