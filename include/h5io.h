/* h5io.h - HDF5 files and datasets as h5ufunc uses them.
 *
 * Opens files with the MPI-IO driver when MPI is running (HDF5's default
 * driver otherwise, and for an input each rank reads alone), maps HDF5 types to dtypes as h5py stores them, reads and
 * writes runs of rows as hyperslabs (collectively: every rank calls, a rank
 * with no rows with an empty selection), and creates datasets and their
 * parent groups.  Attributes are h5attr.h's.  It knows nothing of
 * recipes or plans.  HDF5's own error printing is off; failures come back in
 * the error record with HDF5's innermost message folded in.
 */
#ifndef H5UFUNC_H5IO_H
#define H5UFUNC_H5IO_H

#include <hdf5.h>
#include <stdbool.h>

#include "arena.h"
#include "dtype.h"
#include "err.h"
#include "filter.h"
#include "shape.h"

/* Call once, after comm_init. */
void h5io_init(void);
/* The paths (N of them, kept, not copied) that datasets of the run will
 * take in any file: the file's named bool type (h5io_types.c) passes over
 * them, so that a later output of the run may take "/boolean". */
void h5io_reserve_paths(const char *const *paths, int n);
/* Remember an MPI-IO hint (the KEY of KEYLEN bytes = VALUE, e.g.
 * striping_factor=16) for every file opened or created under MPI.  Returns
 * 0, or -1 when too many. */
int h5io_hint(const char *key, size_t keylen, const char *value);

/* Open PATH (read-only unless WRITE).  Collective under MPI.  Returns the
 * file id, or a negative value with E set (WHERE names the operand). */
hid_t h5io_open(const char *path, bool write, const char *where, struct err *e);
/* Open PATH for writing, as h5io_open, when every rank's raw writes into
 * it are runs of the file, one a call (its datasets written in place all
 * moved alone): ROMIO's data sieving of writes is off (unless --mpi-info
 * names romio_ds_write), so that HDF5's metadata is written as its pieces,
 * not as one read-modify-write of everything between them. */
hid_t h5io_open_runs(const char *path, const char *where, struct err *e);
/* Open PATH read-only, as h5io_open, for this process alone: HDF5's
 * default driver, not collective, and (under MPI, as MPI-IO) no file
 * lock.  For an input that no rank writes while it is open: each rank
 * then reads its own share, whole chunks as stored (h5io_read_box). */
hid_t h5io_open_reader(const char *path, const char *where, struct err *e);
/* Create PATH exclusively: a file or link already there is an error (exit
 * status 1), never followed or replaced.  PRIVATE: mode 0600 (for scratch
 * files).  Collective. */
hid_t h5io_create(const char *path, bool private, const char *where, struct err *e);
/* Create PATH exclusively, as h5io_create, for this process alone: HDF5's
 * default driver, not collective. */
hid_t h5io_create_alone(const char *path, const char *where, struct err *e);
/* Create an HDF5 file that lives in this process's memory only and leaves
 * nothing behind.  Not shared between
 * ranks: under MPI each rank has its own, and data moves in and out of it
 * independently. */
hid_t h5io_create_memory(const char *where, struct err *e);
/* Open PATH for writing by this process alone, through HDF5's default
 * driver, for calls that are not collective (rank 0 describing datasets
 * once the run's files are closed).  Not collective.  A negative id when
 * it cannot; nothing is recorded. */
hid_t h5io_open_alone(const char *path);
/* Write out what this process holds of FILE, so that other ranks read it
 * after a barrier. */
void h5io_flush(hid_t file);
/* Close a file; F < 0 is fine. */
void h5io_close(hid_t f);
/* Close each of the N ids of IDS that is open (>= 0), whatever it is (a
 * file, dataset, attribute, type, space, property list): a cleanup's
 * one call, e.g. h5io_close_ids(3, (hid_t[]){ a, type, space }). */
void h5io_close_ids(int n, const hid_t *ids);
/* Is PATH an HDF5 file?  1 yes, 0 no (message in E), -1 cannot be read. */
int h5io_is_hdf5(const char *path);
/* Can PATH be opened as an HDF5 file?  0 yes; -1 with E (EXIT_USAGE,
 * at WHERE) when it does not exist, is a directory, a netCDF-3 file or
 * another file that is not HDF5.  Opens nothing for writing. */
int h5io_check_file(const char *path, const char *where, struct err *e);

enum h5io_object { H5IO_NONE, H5IO_DATASET, H5IO_GROUP, H5IO_OTHER };
/* What PATH (absolute, "/a/b") names in FILE; H5IO_NONE when any part is
 * missing.  With SCALE, *SCALE says whether it is a dataset that is a
 * dimension scale (a netCDF-4 coordinate variable or dimension, an h5py
 * scale), learned from the same open; NULL asks nothing more. */
enum h5io_object h5io_probe(hid_t file, const char *path, bool *scale);

/* Open dataset PATH of FILE, and give its shape and dtype.  A dataset of a
 * type h5ufunc does not handle is an error naming the type.  DISPLAY is the
 * operand as the user wrote it. */
hid_t h5io_dataset_open(hid_t file, const char *path, struct shape *shape,
			enum dtype *dt, const char *where, const char *display,
			struct err *e);
/* h5io_dataset_open with a chunk cache of ROW bytes for a dataset stored
 * in chunks without filters, where that is more than it would get
 * otherwise: what a plan's budget pays (h5io_chunk_row_bytes) so that the
 * boxes of a pass that writes it, cutting its chunk rows, find each chunk
 * still in the cache, read and written once a pass. */
hid_t h5io_dataset_open_cached(hid_t file, const char *path, size_t row, struct shape *shape,
			       enum dtype *dt, const char *where, const char *display,
			       struct err *e);
/* Under MPI-IO, learn where the chunks of dataset D (opened by
 * h5io_dataset_open) lie, once, so that the direct reader may read them
 * (h5io_internal.h): a run calls it for the datasets it reads, every rank
 * alike (the chunk index's checks read HDF5's metadata collectively); a
 * plan, which moves no box, does not, so the index is read once a run.
 * Nothing elsewhere. */
void h5io_dataset_direct(hid_t d);
/* Open dataset PATH of FILE as it is, its type and shape unasked, for its
 * attributes (no box moves through it); a negative id when it cannot,
 * nothing recorded. */
hid_t h5io_dataset_open_quiet(hid_t file, const char *path);
/* Create dataset PATH (parent groups too, h5io_parents) of DT and SHAPE,
 * contiguous, or chunked by CHUNK (NCHUNK == SHAPE's rank) and compressed
 * as COMPRESSION says (NULL or not on: no filter); chunked, it can grow
 * along the axes whose bits GROWS sets (1 << axis).  FILL (one element of
 * DT, or NULL): the dataset's fill value and its _FillValue attribute
 * (netCDF's), in a file on disk.  Collective. */
hid_t h5io_dataset_create(hid_t file, const char *path, enum dtype dt,
			  const struct shape *shape, int nchunk, const int64_t *chunk, unsigned grows,
			  const struct compression *compression, const void *fill,
			  const char *where, struct err *e);
/* Create dataset PATH as h5io_dataset_create, its layout the virtual
 * mappings of DCPL (made from h5io_dataset_plist(); closed here).
 * Collective when FILE is shared. */
hid_t h5io_dataset_create_virtual(hid_t file, const char *path, enum dtype dt,
				  const struct shape *shape, hid_t dcpl, const void *fill,
				  const char *where, struct err *e);

/* ---- netCDF-4's structure: what netCDF-C needs to append to a file ---- */

/* Create the groups above PATH in FILE that are missing, tracking the
 * creation order of their links and attributes as netCDF-4 requires (new
 * files track it at the root).  Collective under MPI-IO.  Errors: EXIT_RUN. */
int h5io_parents(hid_t file, const char *path, const char *where, struct err *e);
/* A dataset's creation properties as netCDF-4 requires them (attribute
 * creation order tracked), no times recorded; the caller closes it. */
hid_t h5io_dataset_plist(void);
void h5io_dataset_close(hid_t d);
/* D's chunk extents into CHUNK (H5U_MAXDIM entries); returns their number,
 * 0 when D is not chunked. */
int h5io_dataset_chunks(hid_t d, int64_t *chunk);
/* Does D's data go through filters (compression, checksums)? */
bool h5io_dataset_filtered(hid_t d);
/* Is D's type stored in the other byte order than the machine's (h5py's
 * '>f8' on a little-endian machine)?  Never for one-byte dtypes. */
bool h5io_dataset_swapped(hid_t d);
/* Do the chunks that a row along the last axis of a dataset of NDIM
 * extents DIM, stored without filters in chunks CHUNK of ESIZE bytes an
 * element, crosses take more than its chunk cache holds, so that boxes
 * that cut them along the rows read each one whole again for every box? */
bool h5io_row_overflows_cache(int ndim, const int64_t *dim, const int64_t *chunk, size_t esize);
/* Bytes of the chunks such a row crosses, and of one more: a chunk cache
 * that holds them reads and writes each chunk once for boxes that cut the
 * chunk rows (0 when CHUNK is not a chunk shape). */
size_t h5io_chunk_row_bytes(int ndim, const int64_t *dim, const int64_t *chunk, size_t esize);
/* Is D stored compact (its data in its object header)? */
bool h5io_dataset_compact(hid_t d);
/* Is D chunked with the version-1 B-tree index, the one chunkindex.h
 * reads whole (h5py's and netCDF-4's default; not HDF5 1.10's newer
 * indexes, which h5py's libver='latest' and HDF5 1.10 files with
 * unlimited axes write)? */
bool h5io_dataset_btree(hid_t d);
/* How many of D's chunks were ever written (h5py's and netCDF-4's
 * incremental allocation leaves some unwritten; a dataset not chunked
 * counts as written)?  Reads fill them with the fill value; HDF5 1.10
 * writes collectively into no dataset of SOME (h5io_unwritten.c). */
enum h5io_written { H5IO_WRITTEN_ALL, H5IO_WRITTEN_SOME, H5IO_WRITTEN_NONE };
enum h5io_written h5io_dataset_written(hid_t d);
/* Are some of D's chunks stored without their filters (a filter mask not
 * 0: h5py's write_direct_chunk with filter_mask=3)?  HDF5 1.10 reads and
 * writes no such dataset collectively (h5io_unwritten.c): its reads go
 * independently under MPI-IO.  UNKNOWN: a chunk index that cannot be
 * read whole, of more chunks than are asked of HDF5 one by one.  Learned
 * when D was opened through MPI-IO, else read now. */
enum h5io_masks { H5IO_MASKS_NONE, H5IO_MASKS_SOME, H5IO_MASKS_UNKNOWN };
enum h5io_masks h5io_dataset_masks(hid_t d);

/* Unlink PATH from FILE (best effort, for cleanup after a failure). */
void h5io_unlink(hid_t file, const char *path);
/* Move the link FROM to TO (which must not exist) in FILE.  Collective. */
int h5io_move(hid_t file, const char *from, const char *to, const char *where, struct err *e);

/* The box START/STEP/COUNT of dataset D of SHAPE (as h5io_write_box takes
 * it) is going to be written: announce the file's bytes it overwrites to
 * the journal (journal.h), when they are known (h5io_extent.c says
 * which), so that a few records save them.  h5io_write_box announces
 * nothing: its caller announces each box, or a pass all of its boxes
 * first.  What it learns of D is kept until h5io_dataset_close.  Not
 * collective: no I/O under MPI-IO. */
void h5io_expect_box(hid_t d, const struct shape *shape, const int64_t *start,
		     const int64_t *step, const int64_t *count);

/* Under MPI-IO, move the boxes of dataset D (opened by h5io_dataset_open)
 * with each rank's own independent transfers, no collective call, when
 * every chunk of it is stored (HDF5 1.10 allocates chunks only
 * collectively): the planner's array alone, whose boxes hold whole chunks
 * of one rank each.  Decided from the file, so alike on every rank. */
void h5io_dataset_alone(hid_t d);
/* Let the boxes of dataset D (opened by h5io_dataset_open), written in
 * place, move by pread and pwrite at its chunks' places where every chunk
 * is stored whole, unfiltered (h5io_box.c, h5io_move_in_place): the
 * planner's stage_in_place_runs, for a dataset no other array of the plan
 * moves.  Collective under MPI-IO (every rank moves it so, or none): called
 * on every rank, once every dataset is open. */
void h5io_dataset_in_place(hid_t d);
/* Read or write the box START[i] + STEP[i] * j, j < COUNT[i], of every axis
 * of dataset D of SHAPE, opened or created by h5io_dataset_open or
 * h5io_dataset_create; C order in BUF.  STEP may be NULL (all 1).  Any
 * COUNT may be 0; for a 0-d dataset COUNT[0] is 1 or 0.  Collective, but
 * for a dataset moved alone (h5io_dataset_alone). */
int h5io_read_box(hid_t d, const struct shape *shape, enum dtype dt,
		  const int64_t *start, const int64_t *step, const int64_t *count,
		  void *buf, const char *where, struct err *e);
int h5io_write_box(hid_t d, const struct shape *shape, enum dtype dt,
		   const int64_t *start, const int64_t *step, const int64_t *count,
		   const void *buf, const char *where, struct err *e);
/* Read the box START/COUNT of dataset D of SHAPE as its chunks, whole and
 * as stored, one call a chunk, into BUF in the chunk grid's C order over
 * the box (each chunk's bytes C-ordered over its full extents, the parts
 * past the dataset's edge included): the kernel's copy alone, no gather
 * of HDF5's into the box.  Only where the box begins at a chunk's corner
 * and ends at one or at the dataset's edge along every axis, D is read by
 * the direct reader as DT (a plain dataset as stored in a file opened
 * read-only, its reads never collective: h5io_internal.h), and its
 * chunks fit CAP bytes.  1: read; 0:
 * not such a box, or a chunk not yet stored (the caller reads the box);
 * -1: a read failed (E set). */
int h5io_read_chunks(hid_t d, const struct shape *shape, enum dtype dt, const int64_t *start,
		     const int64_t *count, void *buf, int64_t cap, const char *where, struct err *e);

#endif
