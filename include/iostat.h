/* iostat.h - how many I/O calls of each kind this rank has made, so that
 * the growth of a run with the number of ranks can be measured (--json's
 * "per_rank", h5ufunc(1) SCALING).
 *
 * Two levels are counted.  h5io counts its own HDF5 calls: dataset reads
 * and writes (H5Dread, H5Dwrite: collective, so every rank makes as many),
 * file opens (H5Fopen, H5Fcreate) and metadata operations (opening,
 * creating, probing, moving and unlinking datasets and groups, the history
 * attribute, flushes).  Below HDF5, the MPI-IO calls HDF5 makes on this rank
 * are counted through MPI's profiling interface (iostat.c defines the
 * MPI_File_* functions HDF5 calls and forwards them to PMPI_File_*): reads
 * and writes, collective and independent, of data and metadata alike, and
 * MPI_File_open; of the reads and writes, those HDF5 makes within h5io's
 * data calls (H5Dread, H5Dwrite and their chunk calls, while h5io sets
 * iostat_moving) are data's, the others metadata's (file opens, object
 * headers, the planning's opens of inputs each rank then reads alone
 * without MPI-IO).  Without MPI only the HDF5 level counts.  Counting never
 * changes what a call does.
 *
 * Below both, the writes into files whose old bytes are journaled
 * (journal.h, intercept.c): how many write calls reached them on this rank,
 * and the records, bytes and syncs the old bytes cost.
 */
#ifndef H5UFUNC_IOSTAT_H
#define H5UFUNC_IOSTAT_H

#include <stdbool.h>
#include <stdint.h>

struct iostat {
	int64_t h5_reads, h5_writes;            /* H5Dread, H5Dwrite */
	int64_t h5_opens;                       /* H5Fopen, H5Fcreate */
	int64_t h5_metadata;                    /* metadata operations (above) */
	int64_t mpiio_reads, mpiio_writes;      /* MPI_File_read_at[_all], MPI_File_write_at[_all] */
	int64_t mpiio_coll_reads;               /* of the reads, the collective ones (_all) */
	int64_t mpiio_coll_writes;              /* of the writes, likewise */
	int64_t mpiio_data_reads;               /* of the reads, those within data calls */
	int64_t mpiio_data_writes;              /* of the writes, likewise */
	int64_t mpiio_opens;                    /* MPI_File_open */
	int64_t journal_writes;                 /* write calls into journaled files */
	int64_t journal_records;                /* ranges of old bytes saved ... */
	int64_t journal_bytes;                  /* ... their bytes ... */
	int64_t journal_syncs;                  /* ... and the fsyncs that made them durable */
};

/* This rank's counts since the process started. */
extern struct iostat iostat;
/* True while h5io's data call moves a box (h5io_box.c). */
extern bool iostat_moving;

#endif
