/* h5io_layout.h - what h5io_extent.c and h5io_announce.c share, and
 * nothing else may use: one dataset's layout as learned on its first box
 * (where its data or its chunks lie in its file, hung from its record)
 * and the walk over the chunks a box touches.
 */
#ifndef H5UFUNC_H5IO_LAYOUT_H
#define H5UFUNC_H5IO_LAYOUT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <hdf5.h>

#include "h5io_internal.h"

enum layout_kind {
	LAYOUT_NONE,         /* nothing is announced */
	LAYOUT_CONTIGUOUS,
	LAYOUT_CHUNKED       /* unfiltered, in a file this process has alone
			      * or one opened read-only */
};

/* What is known of one chunk's place. */
struct chunk_fact {
	uint64_t key;        /* its place in the chunk grid, in C order, + 1; 0: a free slot */
	haddr_t addr;        /* where its bytes begin, its file's userblock
			      * counted; HADDR_UNDEF: never written when last
			      * known (a box announced over it writes it: asked
			      * again) */
	hsize_t size;        /* the bytes stored */
};

/* Where a store's facts come from. */
enum store_source {
	STORE_EMPTY,         /* not yet filled: on the first chunk asked */
	STORE_INDEX,         /* the chunk index read whole: a chunk it lacks
			      * was never written when it was read */
	STORE_HDF5           /* HDF5, a chunk at a time, as boxes ask */
};

/* The chunks' places of one dataset: open addressing, keys hashed. */
struct chunk_store {
	enum store_source source;
	struct chunk_fact *slot;
	size_t cap, n;       /* slots (a power of two), and those used */
};

/* One dataset's layout, learned on its first box. */
struct h5io_layout {
	const struct h5io_record *rec; /* its dataset's: the handle, the
				     * driver, what it is stored as */
	enum layout_kind kind;
	haddr_t addr;              /* contiguous: where its data begins */
	haddr_t base;              /* chunked: added to HDF5's chunk addresses */
	hsize_t grid[H5U_MAXDIM];  /* chunked: chunks along each axis */
	char path[PATH_MAX];       /* its file's name, as the journal knows it */
	bool shared;               /* its file's driver is MPI-IO */
	bool read_only;            /* its file is opened read-only */
	struct chunk_store store;  /* chunked: where its chunks lie */
	int in_place;              /* chunked, written in place: 1 its boxes move
				    * by h5io_move_in_place, -1 not, 0 not
				    * written in place or not yet settled
				    * (h5io_in_place_prepare) */
	bool fd_known;             /* chunked: fd asked (direct_fd) */
	int fd;                    /* ... the descriptor the direct reader reads
				    * it by; -1: none */
};

/* The layout of REC's dataset: learned on first asking, kept in the
 * record until the dataset is closed (h5io_layout_free).  NULL without
 * a record. */
struct h5io_layout *h5io_layout_of(struct h5io_record *rec);
/* The address (a place in the file; HADDR_UNDEF: never written) and
 * stored size of L's chunk whose first element is at OFFSET, from L's
 * store (filled on the first chunk asked); false when HDF5 cannot say. */
bool h5io_chunk_at(struct h5io_layout *l, const hsize_t *offset, haddr_t *addr, hsize_t *size);
/* The chunks that the box START/COUNT touches, in C order: the first
 * one's first index into LEAD and FIRST; how many, returned. */
uint64_t h5io_first_chunk(int n, const hsize_t *chunk, const int64_t *start, const int64_t *count,
			  int64_t *lead, int64_t *first);
/* FIRST, the first index of a chunk that the box START/COUNT touches,
 * made the next one's in C order over the chunks it touches (LEAD: the
 * first one's); past the last, LEAD's again. */
void h5io_next_chunk(int n, const hsize_t *chunk, const int64_t *lead, const int64_t *start,
		     const int64_t *count, int64_t *first);

#endif
