/* h5io_internal.h - what h5io.c, h5io_types.c, h5io_extent.c,
 * h5io_unwritten.c, h5attr.c
 * and filter.c share, and nothing else may use: the HDF5 memory types of
 * dtypes (h5io_types.c), what h5io_extent.c keeps of an open dataset, and
 * the folding of HDF5's error stacks into the error record (h5io.c).
 */
#ifndef H5UFUNC_H5IO_INTERNAL_H
#define H5UFUNC_H5IO_INTERNAL_H

#include <stdbool.h>

#include <hdf5.h>

#include "dtype.h"
#include "err.h"

/* Make the types of h5py's bool and float16 (h5io_init calls it once). */
void h5io_types_init(void);
/* The memory (native) type of DT; also what new datasets are stored as.
 * Complex is h5py's: a compound of two native floats named r and i, made
 * on first use and kept, like the other types, until HDF5 closes. */
hid_t h5io_mem_type(enum dtype dt);
/* The dtype of HDF5 type T as h5py maps it, or DT_NONE with NAME (LEN
 * bytes) set to what it is. */
enum dtype h5io_type_dtype(hid_t t, char *name, size_t len);

/* The chunk extents of dataset D (of NDIM axes) when it is chunked,
 * without filters, on one process, and stored as DT's memory type, so
 * that a chunk's bytes in the file are its elements in memory; else NULL.
 * Learned on first asking, kept until h5io_extent_forget. */
const hsize_t *h5io_plain_chunks(hid_t d, int ndim, enum dtype dt);
/* Bytes of the chunks a row along dataset D's last axis crosses, and of
 * one more: what a chunk cache holds so that boxes cutting its chunk rows
 * read each chunk once (0 when D is not chunked). */
size_t h5io_chunk_row_bytes(hid_t d);
/* Dataset D is being closed: forget what h5io_extent.c learned of it. */
void h5io_extent_forget(hid_t d);

/* Fold the innermost message of STACK, HDF5's error stack taken with
 * H5Eget_current_stack() right after the failing call, into E's message;
 * STACK is closed.  (Every HDF5 call clears the default stack on entry, so
 * it must be taken before any cleanup call.) */
void h5io_fold_stack(struct err *e, hid_t stack);

/* Note dataset D, just opened (through MPI-IO when MPIO), when it is
 * chunked and partly allocated: its reads go independently
 * (h5io_unwritten.c).  Forget it when it closes. */
void h5io_unwritten_note(hid_t d, bool mpio);
bool h5io_unwritten_noted(hid_t d);
void h5io_unwritten_forget(hid_t d);

#endif
