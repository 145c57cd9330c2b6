/* chunkindex.h - every stored chunk of a chunked dataset, learned in one
 * pass over its chunk index.
 *
 * HDF5 1.10 answers "where is this chunk?" (H5Dget_chunk_info_by_coord)
 * and "which is the Nth chunk?" (H5Dget_chunk_info) by walking the index
 * from its first chunk: one answer costs O(n), every chunk's O(n^2) (1.7 s
 * for a dataset of 16384 chunks).  chunk_index_read learns them all at
 * once, O(n): for the version-1 B-tree that h5py, netCDF-4 and HDF5 write
 * by default (the layout message's version 3), it reads the object header
 * and the tree's nodes from the file itself, and checks what it read
 * against HDF5 (the number of chunks, and the first, middle and last
 * chunk's place, size and filter mask); any surprise, and every other
 * index (single chunk, implicit, fixed and extensible arrays, version-2
 * B-tree), or a driver other than HDF5's default and MPI-IO's (whose file
 * it reads through a descriptor of its own), and it says it cannot:
 * the caller asks HDF5 chunk by chunk, as before.
 *
 * Addresses here are places in the file, a userblock (512 bytes before a
 * MATLAB v7.3 file's superblock, say) counted.  HDF5's own addresses are
 * relative to the superblock, and HDF5 before 1.14.4 reports them so from
 * H5Dget_chunk_info and H5Dget_chunk_info_by_coord (H5Dget_offset adds
 * the userblock): chunk_api_base says what to add to those.
 *
 * What the file holds: read it before this process allocates or moves
 * the dataset's chunks, or what HDF5 holds unwritten in its caches is
 * missing (a chunk allocated since changes the count, and the read is
 * refused; a filtered chunk rewritten elsewhere is not caught).  Not
 * thread-safe; no MPI: each process reads on its own.
 */
#ifndef H5UFUNC_CHUNKINDEX_H
#define H5UFUNC_CHUNKINDEX_H

#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>

#include "shape.h"

struct chunk_entry {
	uint64_t key;      /* the chunk's place in the chunk grid, in C order */
	haddr_t addr;      /* where its bytes begin in the file, userblock counted */
	hsize_t size;      /* the bytes stored (after the filters) */
	unsigned mask;     /* the filters skipped, as HDF5's filter mask */
};

struct chunk_index {
	int ndim;
	hsize_t chunk[H5U_MAXDIM];  /* a chunk's extents */
	hsize_t grid[H5U_MAXDIM];   /* chunks along each axis, ragged edges counted */
	struct chunk_entry *e;      /* the stored chunks, by key */
	size_t n;
};

/* A file as chunk_index_parse reads it. */
struct chunk_file {
	int fd;                    /* read with pread */
	unsigned sa, ss;           /* bytes of an address, of a length (2-8) */
	hsize_t eof;               /* reads stop there (a place in the file) */
	hsize_t base;              /* the userblock: where HDF5's address 0 lies */
	unsigned two_k;            /* children a B-tree node holds at most */
};

/* Read every stored chunk of dataset D into IX.  0, IX then owned by the
 * caller (chunk_index_free); -1 when it cannot (see above), IX empty, no
 * HDF5 error left on the stack. */
int chunk_index_read(hid_t d, struct chunk_index *ix);
/* The bytes-only half of chunk_index_read, which asks HDF5 for F, OH,
 * COUNT and IX's extents and checks the result against HDF5 after: the
 * chunks of the version-1 B-tree named by the layout message of the
 * object header at HDF5's address OH of F, into IX, whose ndim, chunk and
 * grid the caller set; exactly COUNT of them, keys growing.  0, IX's
 * entries then the caller's (chunk_index_free); -1 on any surprise, IX
 * without entries.  Every read is bounded by F's eof, every block by a
 * MiB, and the walk ends after COUNT chunks: any bytes are safe to give
 * (tests/fuzz/fuzz_chunkindex.c gives them). */
int chunk_index_parse(const struct chunk_file *f, uint64_t oh, size_t count, struct chunk_index *ix);
/* The first element of chunk KEY: its offset along each of IX's axes. */
void chunk_index_offset(const struct chunk_index *ix, uint64_t key, hsize_t *offset);
/* What to add to a chunk address that H5Dget_chunk_info* report for D
 * for its place in the file, into *BASE: its file's userblock where this
 * HDF5 leaves it out (before 1.14.4), else 0.  -1 when HDF5 cannot say,
 * no HDF5 error left on the stack. */
int chunk_api_base(hid_t d, haddr_t *base);
/* Free what IX holds and empty it; an empty IX is fine. */
void chunk_index_free(struct chunk_index *ix);

#endif
