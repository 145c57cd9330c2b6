/* h5io_unwritten.c - chunked datasets under MPI-IO some of whose chunks
 * were never written (h5py's and netCDF-4's incremental allocation): the
 * ones whose boxes are read independently.
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
 * Not here: writes.  A collective write into a dataset some of whose
 * chunks were never written fails alike, and an independent one never
 * returned when tried (HDF5 1.10 allocates chunks collectively): the planner refuses such an in-place
 * write under MPI (outputs.c).  One none of whose chunks were written is
 * allocated whole by HDF5 when its file is opened for writing through
 * MPI-IO, and is written as any other.
 */
#include <hdf5.h>

#include "h5io.h"
#include "h5io_internal.h"

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

bool h5io_unwritten_read_alone(hid_t d, hid_t driver)
{
	return driver == H5FD_MPIO && h5io_dataset_written(d) != H5IO_WRITTEN_ALL;
}
