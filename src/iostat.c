/* iostat.c - this rank's I/O call counts; the MPI-IO ones through MPI's
 * profiling interface.  See iostat.h. */
#include <mpi.h>

#include "iostat.h"

struct iostat iostat;
bool iostat_moving;

int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
	iostat.mpiio_opens++;
	return PMPI_File_open(comm, filename, amode, info, fh);
}

int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count,
		     MPI_Datatype datatype, MPI_Status *status)
{
	iostat.mpiio_reads++;
	iostat.mpiio_data_reads += iostat_moving;
	return PMPI_File_read_at(fh, offset, buf, count, datatype, status);
}

int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
			 MPI_Datatype datatype, MPI_Status *status)
{
	iostat.mpiio_reads++;
	iostat.mpiio_coll_reads++;
	iostat.mpiio_data_reads += iostat_moving;
	return PMPI_File_read_at_all(fh, offset, buf, count, datatype, status);
}

int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
		      MPI_Datatype datatype, MPI_Status *status)
{
	iostat.mpiio_writes++;
	iostat.mpiio_data_writes += iostat_moving;
	return PMPI_File_write_at(fh, offset, buf, count, datatype, status);
}

int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
			  MPI_Datatype datatype, MPI_Status *status)
{
	iostat.mpiio_writes++;
	iostat.mpiio_coll_writes++;
	iostat.mpiio_data_writes += iostat_moving;
	return PMPI_File_write_at_all(fh, offset, buf, count, datatype, status);
}
