/* h5io_internal.h - what h5io.c, h5io_dataset.c, h5io_box.c,
 * h5io_types.c, h5io_extent.c, h5io_announce.c, h5io_unwritten.c,
 * h5attr.c and filter.c share, and nothing else may use: the HDF5 memory types of dtypes
 * (h5io_types.c), the record of an open dataset (h5io_dataset.c) and what
 * h5io_extent.c hangs from it, and the folding of HDF5's error stacks
 * into the error record (h5io.c).
 */
#ifndef H5UFUNC_H5IO_INTERNAL_H
#define H5UFUNC_H5IO_INTERNAL_H

#include <stdbool.h>

#include <hdf5.h>

#include "dtype.h"
#include "err.h"
#include "h5io.h"
#include "shape.h"

/* Make the types of h5py's bool and float16 (h5io_init calls it once). */
void h5io_types_init(void);
/* The memory (native) type of DT; also what new datasets are stored as.
 * Complex is h5py's: a compound of two native floats named r and i, made
 * on first use and kept, like the other types, until HDF5 closes. */
hid_t h5io_mem_type(enum dtype dt);
/* The type a new dataset of DT at PATH (absolute) is created with in
 * FILE: its memory type, but for bool a named (committed) copy of it in
 * FILE's root group, found there or committed (collective where FILE is
 * shared under MPI-IO).  A new type to close with H5Tclose, or -1. */
hid_t h5io_file_type(hid_t file, const char *path, enum dtype dt);
/* The dtype of HDF5 type T as h5py maps it, or DT_NONE with NAME (LEN
 * bytes) set to what it is. */
enum dtype h5io_type_dtype(hid_t t, char *name, size_t len);
/* Is HDF5 type T (of a dtype, h5io_type_dtype) stored in the other byte
 * order than the machine's?  Never for one-byte types; a complex compound
 * by its parts'. */
bool h5io_type_swapped(hid_t t);

/* ---- the record of an open dataset (h5io_dataset.c) ----
 *
 * What h5io keeps of a dataset from the call that opens or creates it
 * (h5io_dataset_open, h5io_dataset_create, h5io_dataset_create_virtual)
 * to h5io_dataset_close, which drops it: facts of the open, asked of HDF5
 * there once on every rank alike, and what h5io_extent.c learns of the
 * dataset's storage on its first box.  A dataset opened otherwise
 * (h5io_dataset_open_quiet, or HDF5 directly) has none. */
struct h5io_layout;   /* h5io_extent.c's */
/* What a dataset's creation property list, dataspace and type say of how
 * it is stored: asked of HDF5 once, where its record is made. */
struct h5io_storage {
	H5D_layout_t layout;        /* H5D_CONTIGUOUS, H5D_CHUNKED, ...;
				     * H5D_LAYOUT_ERROR when HDF5 cannot say */
	int ndim;                   /* -1: not a simple dataspace of at most
				     * H5U_MAXDIM axes */
	hsize_t dim[H5U_MAXDIM];
	hsize_t chunk[H5U_MAXDIM];  /* chunked: a chunk's extents */
	int nfilters;               /* its filters: compression, checksums */
	size_t esize;               /* bytes an element as stored; 0 unknown */
	enum dtype as_stored;       /* the dtype whose memory type it is stored
				     * as, bytes for bytes; DT_NONE: none */
	bool swapped;               /* its type in the other byte order than
				     * the machine's (h5io_type_swapped) */
};
struct h5io_record {
	hid_t d;
	hid_t driver;               /* its file's: H5FD_MPIO when shared by the
				     * ranks, H5FD_CORE in memory, ... */
	bool read_alone;            /* its reads go independently (chunks never
				     * written, or stored without their filters,
				     * under MPI-IO: h5io_unwritten.c) */
	enum h5io_masks masks;      /* under MPI-IO, whether chunks are stored
				     * without their filters (h5io_masks_read);
				     * H5IO_MASKS_NONE otherwise */
	bool alone;                 /* its reads and writes go independently
				     * (h5io_dataset_alone) */
	bool in_place;              /* written in place, each box moved by
				     * h5io_move_in_place where it can be
				     * (h5io_dataset_in_place) */
	struct h5io_storage storage;
	struct h5io_layout *layout; /* h5io_extent.c's, learned on first
				     * asking; NULL before */
};
/* The record of dataset D; NULL when it has none. */
struct h5io_record *h5io_record_of(hid_t d);

/* Whether some chunk of dataset D is stored without its filters, read
 * from its chunk index (h5io_dataset_masks's answer for a dataset without
 * a record of MPI-IO). */
enum h5io_masks h5io_masks_read(hid_t d);
/* Whether the dataset of REC, just opened, its masks learned, is read
 * independently: under MPI-IO, chunked with chunks never written or
 * stored without their filters. */
bool h5io_unwritten_read_alone(const struct h5io_record *rec);

/* The chunk extents of REC's dataset when it is chunked, without filters,
 * in a file this process has alone (not through MPI-IO), and stored as
 * DT's memory type, so that a chunk's bytes in the file are its elements
 * in memory (H5Dread_chunk and H5Dwrite_chunk move them); else NULL (and
 * without a record). */
const hsize_t *h5io_plain_chunks(struct h5io_record *rec, enum dtype dt);
/* Is REC's dataset stored without filters in chunks of which a row along
 * its last axis crosses more than its chunk cache holds
 * (h5io_row_overflows_cache)? */
bool h5io_record_overflows_cache(const struct h5io_record *rec);

/* ---- the direct reader (h5io_extent.c) ----
 *
 * Stored chunks read by their addresses, one pread a chunk or a run of
 * one, for a plain dataset as stored: chunked, without filters, stored as
 * DT's memory type bytes for bytes (the machine's byte order), in a file
 * opened read-only (so the run never writes it), on one process or in a
 * file each rank reads alone (HDF5's descriptor), or in a file the ranks
 * share through MPI-IO (a descriptor of this rank's own, O_RDONLY, one a
 * file), there only for a dataset whose reads go independently (its
 * record's alone or read_alone; any on one rank) and whose chunk index
 * was read whole when the run opened it (h5io_direct_prepare). */

/* Learn where the chunks of REC's dataset, opened through MPI-IO, lie,
 * when the direct reader may read it: every rank calls it alike, as the
 * run opens the dataset (h5io_dataset_direct; the index's checks read
 * HDF5's metadata collectively). */
void h5io_direct_prepare(struct h5io_record *rec);
/* The chunk extents of REC's dataset when the direct reader reads it as
 * DT; else NULL. */
const hsize_t *h5io_direct_chunks(struct h5io_record *rec, enum dtype dt);
/* Read the whole stored chunk at OFFSET (its first element) of REC's
 * dataset, as DT, into BUF by one pread.  1: read; 0: not so read (the
 * direct reader does not read the dataset, or the chunk was never
 * written: HDF5 gives its fill); -1: the read failed. */
int h5io_read_chunk(struct h5io_record *rec, enum dtype dt, const hsize_t *offset, void *buf);
/* Read the box START/STEP/COUNT of REC's dataset, stored as DT, into BUF
 * as the runs of the chunks it touches, one pread each, when its part of
 * every such chunk is one run of the chunk's bytes (one index along the
 * axes before some axis, the chunk whole along those after it: a box of
 * whole lines, or of a few lines of one chunk column), of a dataset the
 * direct reader reads whose rows' chunks overflow its chunk cache
 * (h5io_record_overflows_cache: the cache would read each chunk whole for
 * the box, and again for the next box that cuts it); so each byte of a
 * chunk is read once by the boxes that cut it.  A box that is one run
 * moves as its bytes into BUF; the others' runs pass through a scratch
 * of one run (at most one chunk, less than the chunk cache it stands for),
 * allocated for the call, each copied to its place.  A smaller dataset's
 * chunks stay in the cache, which serves the boxes that cut them without
 * a call each.  1: read; 0: not such a box, or a chunk never written (the
 * caller reads it); -1: the read failed. */
int h5io_read_run(struct h5io_record *rec, enum dtype dt, const int64_t *start,
		  const int64_t *step, const int64_t *count, void *buf);
/* Read or write (WRITE) the box START/STEP/COUNT of REC's dataset,
 * stored as DT, C order in BUF, by preadv or pwritev at its chunks'
 * places, one call a chunk (or fewer than IOV_MAX lines of one), when
 * REC is written in place (h5io_dataset_in_place) and its chunks are
 * moved so: chunked without filters, stored as DT, in a file this process
 * writes (HDF5's own descriptor, or under MPI-IO a read-write one of this
 * rank's), every chunk stored whole
 * (the chunk index read whole), a row of its chunks more than its chunk
 * cache holds, and the box not strided.  Then every box of it moves
 * here, read and written, so HDF5 never holds a copy of its chunks that
 * these writes would leave stale (it is flushed once first).  The
 * journal (intercept.c) saves what each pwritev overwrites, as HDF5's
 * writes.  1: moved; 0: not so moved (the caller moves it through HDF5);
 * -1: the move failed (errno). */
/* Settle whether the boxes of REC's dataset, written in place, move by
 * h5io_move_in_place (its in_place set; what HDF5 holds of it unwritten
 * flushed, its chunk index read, its descriptor opened).  Collective
 * under MPI-IO (HDF5's flush, and the ranks' agreement: every rank moves
 * it so or none). */
void h5io_in_place_prepare(struct h5io_record *rec);
int h5io_move_in_place(bool write, struct h5io_record *rec, enum dtype dt, const int64_t *start,
		       const int64_t *step, const int64_t *count, void *buf);
/* A box's pieces gathered for few calls (h5io_pieces.c): a new empty
 * gathering (freed with h5io_pieces_free; NULL is fine); the part of
 * the box START/COUNT (BSTRIDE: its axes' strides in BUF, in elements)
 * that the chunk at C0 of storage
 * ST, stored at ADDR of descriptor FD, holds, added and moved as calls
 * fill; what is left moved.  0, or -1 (errno). */
struct h5io_pieces;
struct h5io_pieces *h5io_pieces_new(void);
void h5io_pieces_free(struct h5io_pieces *p);
int h5io_chunk_part(bool write, int fd, const struct h5io_storage *st, struct h5io_pieces *p,
		    const hsize_t *c0, haddr_t addr, const int64_t *start, const int64_t *count,
		    const uint64_t *bstride, char *buf);
int h5io_pieces_flush(bool write, int fd, struct h5io_pieces *p);
/* Free L, what h5io_extent.c learned of a dataset being closed; NULL is
 * fine. */
void h5io_layout_free(struct h5io_layout *l);

/* Fold the innermost message of STACK, HDF5's error stack taken with
 * H5Eget_current_stack() right after the failing call, into the message
 * of the error just raised on E (err_hint: nothing when an earlier error
 * won); STACK is closed.  (Every HDF5 call clears the default stack on entry, so
 * it must be taken before any cleanup call.) */
void h5io_fold_stack(struct err *e, hid_t stack);

#endif
