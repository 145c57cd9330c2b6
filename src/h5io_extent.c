/* h5io_extent.c - where a dataset's bytes lie in its file: the bytes
 * that writing a box overwrites (announced to the rollback journal by
 * h5io_announce.c), the direct reader, which reads stored chunks by their
 * addresses, and in place by runs.
 *
 * What a dataset's boxes need is learned on its first box and hangs from
 * the dataset's record (h5io_dataset.c) until the dataset is closed: its
 * file's name and, chunked, one store of where its chunks lie.  The store
 * is filled on the first chunk asked with the whole chunk index read at
 * once (chunkindex.h), where that can be read, or else with each chunk
 * asked of HDF5 once as boxes touch it, so that a chunk that many boxes
 * touch is looked up once.  (HDF5 1.10 finds a chunk's address by walking
 * the chunk index from its first chunk: tens of microseconds a chunk in a
 * dataset of thousands, 1.7 s for every chunk of 16384.)  A chunk never
 * written is kept as such, and asked of HDF5 again once a box announced
 * over it has written it.  h5io_chunk_at is where an address is looked up and
 * where it says where it comes from.  What the dataset is (layout, shape,
 * chunks, type) is its record's, learned when it was opened.  Every
 * address kept is a place in the file, its userblock counted, as the
 * journal's ranges are: HDF5 1.10 leaves the userblock out of a chunk's
 * address (chunk_api_base adds it back), not out of H5Dget_offset's.
 *
 * The direct reader: the same store serves reads of a plain dataset as
 * stored (direct_layout, the one test: chunked, no filters, stored as the
 * dtype read, bytes for bytes, so in the machine's byte order, in a file
 * opened read-only, which the run therefore never writes), one pread a
 * chunk (h5io_read_chunk) or a run of each chunk a box cuts (h5io_read_run),
 * not HDF5's selections or its copy of the whole chunk through its cache.
 * On one process, and in a file each rank reads alone, the descriptor is
 * HDF5's own; in a file the ranks share through MPI-IO, each rank reads
 * through a read-only descriptor of its own, opened once a file and
 * closed with the last of its datasets read so, and its chunk places are the
 * index's, read whole as the run opens the dataset, on every rank alike
 * (h5io_direct_prepare: HDF5 reads metadata collectively there, so no
 * rank asks it of a chunk alone; a plan, which reads no box, does not
 * read it), and only a dataset whose reads go
 * independently (its record's alone or read_alone), or any on one rank,
 * is read so: another's reads are collective, which a rank reading
 * directly would leave.
 *
 * In place by runs: a dataset written in place whose chunks are all
 * stored plain, a row of them more than its chunk cache holds
 * (in_place_runs), moves every box, read and written, at its chunks'
 * places (h5io_move_in_place): the lines a box has of each chunk by one
 * preadv or pwritev, where HDF5 read and wrote a chunk whole for every
 * box that cut it.  On one process through HDF5's descriptor; under
 * MPI-IO through a read-write descriptor of each rank's own (opened after
 * HDF5 flushed the dataset), the chunks' places the index's, read whole
 * on every rank as the run opens the dataset (h5io_in_place_prepare,
 * collective: the ranks agree, so that all move it so or none, and no
 * rank is left alone in a collective call), each rank moving its own
 * boxes with no collective call.  HDF5 then never holds a copy of its
 * chunks (what it held unwritten is flushed first) and never writes them,
 * so none goes stale; the direct reader reads it as a read-only one's.
 * The journal saves what each pwritev overwrites (intercept.c: it knows
 * the file by its inode, whichever descriptor writes), announced whole
 * chunks at a time as HDF5's writes are, and the commit's fsync of the
 * file on each rank that wrote makes its pwritevs durable (fsync is the
 * inode's, not the descriptor's).
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <hdf5.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chunkindex.h"
#include "comm.h"
#include "h5io.h"
#include "h5io_internal.h"
#include "h5io_layout.h"
#include "iter.h"
#include "journal.h"

#define CHUNKS_KEPT ((size_t)1 << 16)   /* slots of a store filled a chunk at a time */

/* ---- layouts ------------------------------------------------------------ */

static void direct_close(int fd);

void h5io_layout_free(struct h5io_layout *l)
{
	if (l && l->shared && l->fd >= 0)
		direct_close(l->fd);
	if (l)
		free(l->store.slot);
	free(l);
}

/* Is the file of dataset D opened read-only? */
static bool read_only(hid_t d)
{
	hid_t f = H5Iget_file_id(d);
	unsigned intent = H5F_ACC_RDWR;
	if (f >= 0) {
		H5Fget_intent(f, &intent);
		H5Fclose(f);
	}
	H5Eclear2(H5E_DEFAULT);
	return !(intent & H5F_ACC_RDWR);
}

/* What L's dataset, of record REC, is: read from the record, and where
 * it lies asked of HDF5.  Chunked under MPI-IO only read-only or written
 * in place (REC's in_place, settled by h5io_in_place_prepare before any
 * box): the journal announces no chunk of another there, and the direct
 * reader reads only such files. */
static void layout_learn(struct h5io_layout *l, const struct h5io_record *rec)
{
	const struct h5io_storage *s = &rec->storage;
	*l = (struct h5io_layout){ .rec = rec, .kind = LAYOUT_NONE, .fd = -1,
				   .shared = rec->driver == H5FD_MPIO, .read_only = read_only(rec->d) };
	ssize_t len = H5Fget_name(rec->d, l->path, sizeof l->path);
	if (len <= 0 || (size_t)len >= sizeof l->path || !s->esize || s->ndim < 0) {
		l->kind = LAYOUT_NONE;
	} else if (s->layout == H5D_CONTIGUOUS) {
		l->addr = H5Dget_offset(rec->d);
		l->kind = l->addr != HADDR_UNDEF ? LAYOUT_CONTIGUOUS : LAYOUT_NONE;
	} else if (s->layout == H5D_CHUNKED && (!l->shared || l->read_only || rec->in_place) &&
		   s->nfilters == 0 &&
		   chunk_api_base(rec->d, &l->base) == 0) {
		l->kind = LAYOUT_CHUNKED;
		for (int i = 0; i < s->ndim; i++)
			l->grid[i] = (s->dim[i] + s->chunk[i] - 1) / s->chunk[i];
	}
	H5Eclear2(H5E_DEFAULT);
}

/* The layout of REC's dataset: learned on first asking, kept in the
 * record until the dataset is closed.  NULL without a record. */
struct h5io_layout *h5io_layout_of(struct h5io_record *rec)
{
	if (!rec || rec->layout)
		return rec ? rec->layout : NULL;
	rec->layout = malloc(sizeof *rec->layout);
	if (!rec->layout)
		abort();
	layout_learn(rec->layout, rec);
	return rec->layout;
}

const hsize_t *h5io_plain_chunks(struct h5io_record *rec, enum dtype dt)
{
	struct h5io_layout *l = h5io_layout_of(rec);
	if (!l || l->kind != LAYOUT_CHUNKED || l->shared || rec->storage.as_stored != dt)
		return NULL;
	return rec->storage.chunk;
}

/* ---- chunk places, kept ------------------------------------------------- */

/* Where KEY's fact in S is, or would go. */
static struct chunk_fact *chunk_slot(const struct chunk_store *s, uint64_t key)
{
	size_t i = (size_t)(key * 0x9E3779B97F4A7C15u) & (s->cap - 1);
	while (s->slot[i].key && s->slot[i].key != key)
		i = (i + 1) & (s->cap - 1);
	return &s->slot[i];
}

/* S with room for N facts, at most three quarters of its slots used: its
 * slots grown, or, filled from HDF5 and at CHUNKS_KEPT slots, emptied to
 * start again (the index's facts are never dropped: it lists the
 * dataset's chunks, as many as they are). */
static void store_room(struct chunk_store *s, size_t n)
{
	size_t cap = s->cap ? s->cap : 1024;
	while (4 * n > 3 * cap)
		cap *= 2;
	if (cap == s->cap)
		return;
	struct chunk_fact *old = s->slot;
	size_t ncap = s->cap;
	bool again = s->source == STORE_HDF5 && cap > CHUNKS_KEPT;
	s->cap = again ? (ncap ? ncap : 1024) : cap;
	s->slot = calloc(s->cap, sizeof *s->slot);
	if (!s->slot)
		abort();
	s->n = 0;
	for (size_t i = 0; i < ncap && !again; i++)
		if (old[i].key) {
			*chunk_slot(s, old[i].key) = old[i];
			s->n++;
		}
	free(old);
}

/* Keep in S that chunk KEY lies at ADDR, SIZE bytes (HADDR_UNDEF: not
 * written when last known). */
static void chunk_keep(struct chunk_store *s, uint64_t key, haddr_t addr, hsize_t size)
{
	struct chunk_fact *c = s->cap ? chunk_slot(s, key) : NULL;
	if (!c || !c->key) {
		store_room(s, s->n + 1);
		c = chunk_slot(s, key);
		s->n++;
	}
	*c = (struct chunk_fact){ key, addr, size };
}

/* Fill L's store on the first chunk asked: with the whole chunk index
 * read at once (chunkindex.h), else left to HDF5 a chunk at a time. */
static void store_fill(struct h5io_layout *l)
{
	struct chunk_index ix;
	struct chunk_store *s = &l->store;
	s->source = chunk_index_read(l->rec->d, &ix) == 0 ? STORE_INDEX : STORE_HDF5;
	store_room(s, ix.n);
	for (size_t i = 0; i < ix.n; i++) {
		*chunk_slot(s, ix.e[i].key + 1) =
			(struct chunk_fact){ ix.e[i].key + 1, ix.e[i].addr, ix.e[i].size };
		s->n++;
	}
	chunk_index_free(&ix);
}

/* The key of the chunk whose first element is at OFFSET in L's dataset:
 * its index in the chunk grid, in C order, + 1. */
static uint64_t chunk_key(const struct h5io_layout *l, const hsize_t *offset)
{
	uint64_t key = 0;
	for (int i = 0; i < l->rec->storage.ndim; i++)
		key = key * l->grid[i] + offset[i] / l->rec->storage.chunk[i];
	return key + 1;
}

/* The address (a place in the file; HADDR_UNDEF: never written) and
 * size of the chunk at OFFSET of L's dataset, the one place that says
 * where they come from: L's store, filled on the first call; a chunk the
 * index lacks was never written, and the box being announced writes it,
 * so it is asked of HDF5 next time (in a read-only file it stays
 * unwritten); any other chunk the store lacks is asked of HDF5 (its
 * address plus L's base) and kept once written.  Under MPI-IO HDF5 is
 * never asked (a rank would read metadata collectively alone): only the
 * index, read whole, answers.  False when neither can say. */
bool h5io_chunk_at(struct h5io_layout *l, const hsize_t *offset, haddr_t *addr, hsize_t *size)
{
	struct chunk_store *s = &l->store;
	if (s->source == STORE_EMPTY)
		store_fill(l);
	uint64_t key = chunk_key(l, offset);
	const struct chunk_fact *c = chunk_slot(s, key);
	unsigned mask;
	if (c->key == key && c->addr != HADDR_UNDEF) {
		*addr = c->addr;
		*size = c->size;
	} else if (s->source == STORE_INDEX && (c->key != key || l->read_only)) {
		*addr = HADDR_UNDEF;
		*size = 0;
		if (c->key != key)
			chunk_keep(s, key, HADDR_UNDEF, 0);
	} else if (l->shared) {
		return false;
	} else if (H5Dget_chunk_info_by_coord(l->rec->d, offset, &mask, addr, size) < 0) {
		return false;
	} else if (*addr != HADDR_UNDEF) {
		*addr += l->base;
		chunk_keep(s, key, *addr, *size);
	}
	return true;
}

/* ---- the direct reader --------------------------------------------------- */

/* The descriptors of files the ranks share through MPI-IO, by name and
 * mode: one a file read-only, and one read-write for its datasets written
 * in place by runs, opened on first use, closed when the last layout
 * that moves by it is freed (its dataset closed). */
struct direct_file {
	char path[PATH_MAX];
	bool write;          /* opened read-write */
	int fd;
	int users;           /* layouts moving by it */
};
static struct direct_file *direct_files;
static int ndirect, direct_cap;

/* This process's descriptor of the file named PATH, read-write where
 * WRITE, else read-only; -1 when it cannot be opened. */
static int direct_open(const char *path, bool write)
{
	for (int i = 0; i < ndirect; i++)
		if (!strcmp(direct_files[i].path, path) && direct_files[i].write == write) {
			direct_files[i].users++;
			return direct_files[i].fd;
		}
	int fd = open(path, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (ndirect == direct_cap) {
		direct_cap = direct_cap ? 2 * direct_cap : 8;
		direct_files = realloc(direct_files, (size_t)direct_cap * sizeof *direct_files);
		if (!direct_files)
			abort();
	}
	struct direct_file *f = &direct_files[ndirect++];
	snprintf(f->path, sizeof f->path, "%s", path);
	f->write = write;
	f->fd = fd;
	f->users = 1;
	return fd;
}

/* A layout that read by descriptor FD (direct_open) is being freed. */
static void direct_close(int fd)
{
	for (int i = 0; i < ndirect; i++)
		if (direct_files[i].fd == fd) {
			if (--direct_files[i].users == 0) {
				close(fd);
				direct_files[i] = direct_files[--ndirect];
			}
			return;
		}
}

static bool in_place_runs(struct h5io_layout *l);

/* The descriptor the direct reader reads L's dataset by, when its file
 * is open read-only (so HDF5 holds none of its bytes unwritten), or it
 * is written in place by runs (in_place_runs: HDF5 holds none of its
 * chunks): HDF5's default driver's own, or under MPI-IO this process's
 * (direct_open; read-write for one written in place); -1 otherwise.
 * Asked once. */
static int direct_fd(struct h5io_layout *l)
{
	if (l->fd_known)
		return l->fd;
	l->fd_known = true;
	l->fd = -1;
	if (!l->read_only && !in_place_runs(l))
		return -1;
	if (l->shared)
		return l->fd = direct_open(l->path, !l->read_only);
	hid_t f = H5Iget_file_id(l->rec->d), fapl = f >= 0 ? H5Fget_access_plist(f) : -1;
	void *handle = NULL;
	if (fapl >= 0 && H5Pget_driver(fapl) == H5FD_SEC2 && H5Fget_vfd_handle(f, fapl, &handle) >= 0 &&
	    handle)
		l->fd = *(int *)handle;
	h5io_close_ids(2, (hid_t[]){ fapl, f });
	H5Eclear2(H5E_DEFAULT);
	return l->fd;
}

/* The layout of REC's dataset when the direct reader reads it as DT: a
 * plain dataset as stored (chunked, no filters, stored as DT bytes for
 * bytes), in a file opened read-only or written in place by runs
 * (in_place_runs), by a descriptor; under MPI-IO its
 * chunks' places read from the index at its opening, and its reads
 * independent (or this rank the only one, whose collective calls no
 * other rank waits in).  Else NULL.  The one test of both direct
 * routes. */
static struct h5io_layout *direct_layout(struct h5io_record *rec, enum dtype dt)
{
	struct h5io_layout *l = h5io_layout_of(rec);
	if (!l || l->kind != LAYOUT_CHUNKED || rec->storage.as_stored != dt || direct_fd(l) < 0)
		return NULL;
	if (l->shared && (l->store.source != STORE_INDEX ||
			  !(rec->alone || rec->read_alone || l->in_place > 0 || comm_size() == 1)))
		return NULL;
	return l;
}

void h5io_direct_prepare(struct h5io_record *rec)
{
	if (!rec->layout && !read_only(rec->d))
		return;   /* written: learned on its first box, as ever */
	struct h5io_layout *l = h5io_layout_of(rec);
	if (l && l->kind == LAYOUT_CHUNKED && l->shared && l->store.source == STORE_EMPTY)
		store_fill(l);
}

const hsize_t *h5io_direct_chunks(struct h5io_record *rec, enum dtype dt)
{
	return direct_layout(rec, dt) ? rec->storage.chunk : NULL;
}

/* Read BYTES from byte AT of the stored chunk at OFFSET of L's dataset
 * into BUF: 1 read; 0 not stored, or not at its whole size (never
 * written: HDF5 gives its fill); -1 the read failed. */
static int read_stored(struct h5io_layout *l, const hsize_t *offset, uint64_t at, uint64_t bytes,
		       void *buf)
{
	const struct h5io_storage *st = &l->rec->storage;
	uint64_t whole = st->esize;
	for (int i = 0; i < st->ndim; i++)
		whole *= st->chunk[i];
	haddr_t addr;
	hsize_t size;
	if (!h5io_chunk_at(l, offset, &addr, &size) || addr == HADDR_UNDEF || size != whole)
		return 0;
	for (uint64_t done = 0; done < bytes;) {
		ssize_t got = pread(l->fd, (char *)buf + done, bytes - done, (off_t)(addr + at + done));
		if (got <= 0) {
			errno = got == 0 ? EIO : errno;   /* the file ends before the chunk */
			return -1;
		}
		done += (uint64_t)got;
	}
	return 1;
}

int h5io_read_chunk(struct h5io_record *rec, enum dtype dt, const hsize_t *offset, void *buf)
{
	struct h5io_layout *l = direct_layout(rec, dt);
	uint64_t whole = rec->storage.esize;
	for (int i = 0; i < rec->storage.ndim; i++)
		whole *= rec->storage.chunk[i];
	return l ? read_stored(l, offset, 0, whole, buf) : 0;
}

uint64_t h5io_first_chunk(int n, const hsize_t *chunk, const int64_t *start, const int64_t *count,
			  int64_t *lead, int64_t *first)
{
	uint64_t parts = 1;
	for (int i = 0; i < n; i++) {
		int64_t c = (int64_t)chunk[i];
		lead[i] = first[i] = start[i] / c * c;
		parts *= (uint64_t)((start[i] + count[i] - 1) / c - start[i] / c + 1);
	}
	return parts;
}

void h5io_next_chunk(int n, const hsize_t *chunk, const int64_t *lead, const int64_t *start,
		     const int64_t *count, int64_t *first)
{
	for (int i = n - 1; i >= 0; i--) {
		first[i] += (int64_t)chunk[i];
		if (first[i] < start[i] + count[i])
			return;
		first[i] = lead[i];
	}
}

/* The part of the box START/COUNT in the chunk whose first index is
 * FIRST, of the dataset of ST, as a run of the chunk's bytes: one index
 * along the axes before some axis K, the chunk whole along those after it
 * (a ragged edge chunk as far as the dataset reaches counts as whole: its
 * run takes the padding beyond the edge, which no other box reads), what
 * the box holds along K.  Its first element within the chunk into *AT,
 * its elements into *LEN, the extents it copies into the box (the part's,
 * from K on; 1 before K) into EXT, and the extents it lies in (a chunk's
 * after K) into RUN.  Only for a box whose parts are all such runs
 * (parts_are_runs said so): the axes before K are then one index each. */
static void part_run(const struct h5io_storage *st, const int64_t *first, const int64_t *start,
		     const int64_t *count, uint64_t *at, uint64_t *len, int64_t *ext, int64_t *run)
{
	int n = st->ndim, k = n - 1;
	int64_t lo[H5U_MAXDIM];
	bool whole[H5U_MAXDIM];
	for (int i = 0; i < n; i++) {
		int64_t c = (int64_t)st->chunk[i], end = first[i] + c;
		int64_t a = start[i] > first[i] ? start[i] : first[i];
		int64_t b = start[i] + count[i] < end ? start[i] + count[i] : end;
		lo[i] = a - first[i];
		ext[i] = b - a;
		whole[i] = lo[i] == 0 && (ext[i] == c || b == (int64_t)st->dim[i]);
	}
	while (k > 0 && whole[k])
		k--;
	*at = 0;
	*len = 1;
	for (int i = 0; i < n; i++) {
		assert(i >= k || ext[i] == 1);
		run[i] = i > k ? (int64_t)st->chunk[i] : ext[i];
		*at = *at * st->chunk[i] + (uint64_t)lo[i];
		*len *= (uint64_t)run[i];
	}
}

/* Is the part of the box START/COUNT in each chunk it touches, of the
 * dataset of ST, one run of the chunk's bytes (part_run)?  A part is no
 * run when an axis before its last cut axis holds more than one index; the
 * parts are the products of each axis's pieces (the box's first chunk
 * along it, its last, those between: whole), so asked of each axis's
 * first, last and a middle piece, not of each part. */
static bool parts_are_runs(const struct h5io_storage *st, const int64_t *start, const int64_t *count)
{
	bool multi = false;   /* an axis before this one holds more than one index */
	for (int i = 0; i < st->ndim; i++) {
		int64_t c = (int64_t)st->chunk[i], end = start[i] + count[i], d = (int64_t)st->dim[i];
		int64_t f0 = start[i] / c * c, f1 = (end - 1) / c * c;
		/* the first piece, from START to its chunk's end (or END), and
		   the last, from its chunk's first index (or START) to END */
		int64_t ext0 = (f0 + c < end ? f0 + c : end) - start[i];
		int64_t ext1 = end - (f1 > start[i] ? f1 : start[i]);
		bool cut = start[i] > f0 || (ext0 != c && start[i] + ext0 != d) || (ext1 != c && end != d);
		if (multi && cut)
			return false;
		multi = multi || ext0 != 1 || ext1 != 1 || (f1 - f0 > c && c != 1);
	}
	return true;
}

int h5io_read_run(struct h5io_record *rec, enum dtype dt, const int64_t *start,
		  const int64_t *step, const int64_t *count, void *buf)
{
	struct h5io_layout *l = direct_layout(rec, dt);
	if (!l || !h5io_record_overflows_cache(rec))
		return 0;
	const struct h5io_storage *st = &rec->storage;
	int n = st->ndim, size = (int)st->esize;
	int64_t first[H5U_MAXDIM], lead[H5U_MAXDIM], ext[H5U_MAXDIM], run[H5U_MAXDIM];
	uint64_t at, len, box = 1, held = 0;
	for (int i = 0; i < n; i++) {
		if (count[i] <= 0 || (step && count[i] > 1 && step[i] != 1))
			return 0;   /* empty or strided */
		box *= (uint64_t)count[i];
	}
	if (!parts_are_runs(st, start, count))
		return 0;
	uint64_t parts = h5io_first_chunk(n, st->chunk, start, count, lead, first);
	char *scratch = NULL;
	ptrdiff_t sst[H5U_MAXDIM], bst[H5U_MAXDIM];
	int got = 1;
	iter_contiguous(n, count, count, size, bst);
	for (uint64_t j = 0; j < parts && got > 0; j++) {
		hsize_t offset[H5U_MAXDIM];
		ptrdiff_t into = 0;
		part_run(st, first, start, count, &at, &len, ext, run);
		for (int i = 0; i < n; i++) {
			offset[i] = (hsize_t)first[i];
			into += ((first[i] > start[i] ? first[i] : start[i]) - start[i]) * bst[i];
		}
		if (parts == 1 && len == box) {   /* one part, the whole box: read where it goes */
			got = read_stored(l, offset, at * st->esize, len * st->esize, buf);
			break;
		}
		if (len > held) {   /* a scratch of the longest run so far, at most a chunk */
			char *more = realloc(scratch, (size_t)(len * st->esize));
			if (!more) {
				got = -1;
				break;
			}
			scratch = more;
			held = len;
		}
		got = read_stored(l, offset, at * st->esize, len * st->esize, scratch);
		if (got > 0) {
			iter_contiguous(n, run, run, size, sst);
			iter_copy(size, scratch, sst, (char *)buf + into, bst, n, ext);
		}
		h5io_next_chunk(n, st->chunk, lead, start, count, first);
	}
	free(scratch);
	return got;
}

/* ---- in place, by runs ---------------------------------------------------- */

/* Are the boxes of L's dataset, written in place (its record's in_place),
 * moved by h5io_move_in_place: chunked without filters, in a file this
 * process writes, a row of its chunks more than its chunk cache holds,
 * every chunk stored at its whole size (the chunk index read whole lists
 * them all: HDF5 would allocate one never written)?  Settled by
 * h5io_in_place_prepare as the dataset is opened, on every rank alike. */
static bool in_place_runs(struct h5io_layout *l)
{
	return l->in_place > 0;
}

/* in_place_runs's answer for L, asked of its dataset after what HDF5
 * held of it unwritten was flushed (so that nothing of it is written
 * after the runs, and the index on disk is the dataset's). */
static bool in_place_settle(struct h5io_layout *l)
{
	const struct h5io_storage *st = &l->rec->storage;
	if (!l->rec->in_place || l->kind != LAYOUT_CHUNKED || l->read_only ||
	    !h5io_record_overflows_cache(l->rec))
		return false;
	if (H5Dflush(l->rec->d) < 0) {
		H5Eclear2(H5E_DEFAULT);
		return false;
	}
	if (l->store.source == STORE_EMPTY)
		store_fill(l);
	uint64_t whole = st->esize, chunks = 1;
	for (int i = 0; i < st->ndim; i++) {
		whole *= st->chunk[i];
		chunks *= l->grid[i];
	}
	if (l->store.source != STORE_INDEX || l->store.n != chunks)
		return false;
	for (size_t i = 0; i < l->store.cap; i++)
		if (l->store.slot[i].key &&
		    (l->store.slot[i].addr == HADDR_UNDEF || l->store.slot[i].size != whole))
			return false;
	return true;
}

void h5io_in_place_prepare(struct h5io_record *rec)
{
	rec->in_place = true;
	struct h5io_layout *l = h5io_layout_of(rec);
	l->in_place = in_place_settle(l) ? 1 : -1;
	bool yes = l->in_place > 0 && direct_fd(l) >= 0;
	if (l->shared)   /* every rank moves it so, or none: the others' calls are collective */
		yes = comm_max(!yes) == 0;
	if (yes)
		return;
	l->in_place = -1;
	if (l->shared && l->fd >= 0)
		direct_close(l->fd);   /* its descriptor, read-write: never read by */
	l->fd = -1;
	if (l->shared && !l->read_only)
		l->kind = LAYOUT_NONE;   /* its chunks go through MPI-IO's aggregators: none announced */
}

int h5io_move_in_place(bool write, struct h5io_record *rec, enum dtype dt, const int64_t *start,
		       const int64_t *step, const int64_t *count, void *buf)
{
	struct h5io_layout *l = rec && rec->in_place ? h5io_layout_of(rec) : NULL;
	if (!l || !in_place_runs(l) || rec->storage.as_stored != dt || direct_fd(l) < 0)
		return 0;
	const struct h5io_storage *st = &rec->storage;
	int n = st->ndim;
	int64_t first[H5U_MAXDIM], lead[H5U_MAXDIM];
	uint64_t bstride[H5U_MAXDIM];
	for (int i = 0; i < n; i++)
		if (count[i] <= 0)
			return 1;   /* nothing to move (under MPI no collective call either) */
	for (int i = 0; i < n; i++)
		if (step && count[i] > 1 && step[i] != 1)
			return 0;   /* strided */
	bstride[n - 1] = 1;
	for (int i = n - 1; i > 0; i--)
		bstride[i - 1] = bstride[i] * (uint64_t)count[i];
	uint64_t parts = h5io_first_chunk(n, st->chunk, start, count, lead, first);
	struct h5io_pieces *p = h5io_pieces_new();
	int rc = 1;
	for (uint64_t j = 0; j < parts && rc == 1; j++) {
		hsize_t c0[H5U_MAXDIM], size;
		haddr_t addr;
		for (int i = 0; i < n; i++)
			c0[i] = (hsize_t)first[i];
		if (!h5io_chunk_at(l, c0, &addr, &size) || addr == HADDR_UNDEF) {
			errno = EIO;   /* listed stored whole when first asked */
			rc = -1;
		} else if (h5io_chunk_part(write, l->fd, st, p, c0, addr, start, count, bstride, buf) < 0) {
			rc = -1;
		}
		h5io_next_chunk(n, st->chunk, lead, start, count, first);
	}
	if (rc == 1 && h5io_pieces_flush(write, l->fd, p) < 0)
		rc = -1;
	h5io_pieces_free(p);
	return rc;
}
