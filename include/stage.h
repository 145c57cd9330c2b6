/* stage.h - typed box I/O for the kernels: read a box of a dataset into a
 * buffer of the loop's dtype, write a buffer of the loop's dtype into a box
 * of a dataset of another dtype.  The casts happen here, once per block.
 * Collective, like the h5io calls underneath.
 */
#ifndef H5UFUNC_STAGE_H
#define H5UFUNC_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "plan.h"

/* malloc that never returns NULL (an out-of-memory abort). */
void *stage_alloc(size_t n);
/* Ask the kernel for huge pages for the N bytes at P (the whole 2 MiB
 * pages within them), a large buffer filled afresh: one fault a 2 MiB
 * page where 4 KiB pages take 512.  Advice only: nothing changes where the
 * kernel declines. */
void stage_huge_pages(void *p, int64_t n);
/* realloc that never returns NULL, likewise. */
void *stage_realloc(void *p, size_t n);

/* Bytes per element of the scratch that stage_read and stage_write need to
 * move X's values as dtype T: the cast to or from X's dtype, X's CF
 * coding (unpacked on reading, packed on writing, in the same pass), and
 * for a selection that runs backwards the copy a write turns round; 0
 * when they need none. */
int64_t stage_scratch(const struct array *x, enum dtype t);

/* Read the box START/COUNT of X as dtype T into OUT.  RAW is scratch of
 * the box's size times stage_scratch(X, T) (may be NULL when that is 0). */
int stage_read(const struct array *x, enum dtype t, const int64_t *start,
	       const int64_t *count, char *raw, char *out, const char *where,
	       struct err *e);
/* A box read as its chunks (stage_read_chunks): where each of its
 * elements lies in BUF, each chunk whole there, in the chunk grid's C
 * order over the box. */
struct stage_chunked {
	const char *buf;
	int ndim;
	int64_t count[H5U_MAXDIM];   /* the box's extents */
	int64_t chunk[H5U_MAXDIM];   /* a chunk's */
	int64_t grid[H5U_MAXDIM];    /* the box's chunks along each axis */
	int size;                    /* bytes of an element */
};
/* Is X a dataset written in place whose boxes move by pread and pwrite at
 * its chunks' places (h5io_dataset_in_place), on one process and on
 * every rank under MPI alike: an existing, whole, not virtual dataset,
 * chunked without filters, its index the version-1 B-tree (read whole:
 * another index would leave the run no places, and its slices would go
 * through HDF5 a call each), every chunk stored, in the machine's byte
 * order, a row of whose chunks overflows its chunk cache
 * (h5io_row_overflows_cache, as the run asks), that no other array of the
 * plan names (named_twice)?  Asked by the planner alone, which keeps the
 * answer as the array's by_runs (plan_settle_runs): the plan lays out its
 * passes and the run opens it by that one answer.  The run asks the file
 * again as opened (h5io_move_in_place). */
bool stage_in_place_runs(const struct array *x);
/* Is X a plain dataset as stored, read as T: the whole of an existing,
 * not virtual, dataset, chunked without filters, in the machine's byte
 * order and stored as T bytes for bytes, in a file the run does not write
 * (so opened read-only), or written in place by runs (by_runs)?  The one test the plan asks before the direct
 * reader's routes (h5io_read_chunks, h5io_read_run: h5io_internal.h),
 * which ask it again of the file as opened. */
bool stage_as_stored(const struct array *x, enum dtype t);
/* The least --memory under which boxes are read as their chunks: smaller
 * budgets hold few whole chunk rows, and the floor of a reduction's budget
 * stays what it is without the runs (stage_read_chunks's callers). */
#define STAGE_CHUNKED_MEMORY ((int64_t)1 << 20)
/* Are boxes of X that cut its chunks read as the runs of them they hold
 * (h5io_read_box's direct reader, h5io_read_run), each byte of a chunk
 * once: a plain dataset as stored (stage_as_stored; packed or masked
 * values decoded after) whose chunks a row crosses overflow a chunk cache
 * (else the cache reads each chunk once, in one call)? */
bool stage_cut_in_runs(const struct array *x);
/* May a pass under MEMORY read boxes of X as T as its chunks (and so hold
 * stage_chunked_elem_bytes an element): X stored as T in chunks, a whole
 * dataset, and MEMORY at least STAGE_CHUNKED_MEMORY? */
bool stage_chunked_reads(const struct array *x, enum dtype t, int64_t memory);
/* Read the box START/COUNT of X as dtype T into BUF (CAP bytes) as its
 * chunks, whole, described into B, where X is a whole dataset stored as
 * T in plain chunks that the box holds whole (h5io_read_chunks): 1; 0
 * when it is not such a box (nothing read: the caller reads it with
 * stage_read); -1 on a failed read.  Not collective: only a dataset whose
 * reads are independent is read so, so ranks may differ in what they
 * return. */
int stage_read_chunks(const struct array *x, enum dtype t, const int64_t *start,
		      const int64_t *count, char *buf, int64_t cap, struct stage_chunked *b,
		      const char *where, struct err *e);
/* Read the columns [COL, COL + N) of the box START/COUNT of X as T (a box
 * stage_read_chunks could read, COL a multiple of the chunks' width) into
 * OUT, C-ordered over the box's extents with N along its last axis: its
 * chunks read whole into CHUNKS (CAP bytes, h5io_read_chunks) and each
 * chunk's part copied to its place.  1; 0 when those chunks cannot be
 * read so (nothing read: the caller reads the band); -1 on a failed read.
 * Not collective, as stage_read_chunks. */
int stage_read_band(const struct array *x, enum dtype t, const int64_t *start, const int64_t *count,
		    int64_t col, int64_t n, char *chunks, int64_t cap, char *out, const char *where,
		    struct err *e);
/* The bytes of BUF, a buffer of ELEMS elements of
 * stage_chunked_elem_bytes(X, T) bytes that stage_read_chunks fills (its
 * CAP), huge pages asked for it (stage_huge_pages). */
int64_t stage_chunked_buffer(const struct array *x, enum dtype t, void *buf, int64_t elems);
/* Copy the N elements of the box of B from its flat index AT on, in C
 * order, into OUT. */
void stage_chunked_copy(const struct stage_chunked *b, int64_t at, int64_t n, char *out);
/* Bytes a box of X of N elements takes when read as its chunks, at most
 * (N elements of T, and those its chunks hold beyond X's edges): an
 * element's share, rounded up; T's size where X is not stored so. */
int64_t stage_chunked_elem_bytes(const struct array *x, enum dtype t);

/* Write DATA (dtype T) into the box START/COUNT of X, through CONV
 * (scratch as stage_read's RAW: every caller holds it, so DATA is left
 * as it was, a view that runs backwards turned round in CONV), announced first as stage_expect says
 * unless X->announced.  A value that X's coding cannot pack is
 * an error (EXIT_RUN, -1 returned as for a failed write); the rank still
 * joins the collective write, with nothing to write.  While X is dry nothing is written: a packed output
 * whose scale comes from its range folds the values into it. */
int stage_write(struct array *x, enum dtype t, const int64_t *start,
		const int64_t *count, const char *data, char *conv,
		const char *where, struct err *e);

/* The box START/COUNT of X is going to be written (stage_write): when X
 * is an existing dataset written in place, announce the file's bytes it
 * overwrites to the journal (h5io_expect_box).  A pass that announces
 * every box it writes before the first sets X->announced while it runs,
 * and its writes announce nothing again. */
void stage_expect(const struct array *x, const int64_t *start, const int64_t *count);

/* Read the box START/COUNT of an index space SPACE from X, which
 * broadcasts into it as NumPy broadcasts (its axes aligned on the right),
 * as T into OUT (C order over COUNT): X's own box is read into OWN (as T;
 * RAW is scratch in X's dtype, as stage_read takes it) and spread over the
 * axes it broadcasts along.  Collective. */
int stage_read_broadcast(const struct array *x, const struct shape *space, enum dtype t,
			 const int64_t *start, const int64_t *count, char *raw, char *own, char *out,
			 const char *where, struct err *e);

/* The box of rows [FIRST, FIRST+COUNT) of SHAPE (all of its other axes):
 * START and CNT, as stage_read and stage_write take them. */
void stage_row_box(const struct shape *shape, int64_t first, int64_t count,
		   int64_t *start, int64_t *cnt);

/* Elements in a box (for a 0-d array, COUNT[0]). */
int64_t stage_box_size(int ndim, const int64_t *count);

/* The chunk shape boxes of X's whole shape can follow: a dataset's as
 * stored, or as the run creates it; NULL when X is contiguous, 0-d, a
 * selection or read with its axes moved. */
const int64_t *stage_chunks(const struct array *x);

#endif
