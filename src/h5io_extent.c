/* h5io_extent.c - the bytes of a file that writing a box of a dataset
 * overwrites, announced to the rollback journal (journal.h) before the
 * write, so that it saves them in one record rather than one a write call.
 *
 * Contiguous data: the box's runs in C order.  Chunked data without
 * filters, in a file this process has alone (one process: MPI-IO is not
 * its driver): every chunk the box touches, whole (a chunk is rewritten
 * whole).  Nothing else is announced -- a compressed chunk
 * moves when it is rewritten, and under MPI-IO the aggregator ranks write
 * for others -- and the journal then saves exactly what each write call
 * overwrites.  Announcing never widens what is saved beyond what this
 * rank writes: a box's runs and chunks are written by the box's write.
 *
 * What a dataset's boxes need is learned on its first box and hangs from
 * the dataset's record (h5io_dataset.c) until the dataset is closed: its
 * layout and its file's name, and its chunks' addresses: the whole chunk
 * index read at once (chunkindex.h), or, where that cannot be read and
 * for chunks written since, each chunk's once looked up, so that a chunk
 * that many boxes touch is looked up once.  (HDF5 1.10 finds a chunk's
 * address by walking the chunk index from its first chunk: tens of
 * microseconds a chunk in a dataset of thousands, 1.7 s for every chunk
 * of 16384.)  A reader that learns many chunks' addresses at once hands
 * them in with h5io_chunk_keep; chunk_look_up is where a chunk not kept
 * is asked of HDF5.  Every address kept is a place in the file, its
 * userblock counted, as the journal's ranges are: HDF5 1.10 leaves the
 * userblock out of a chunk's address (chunk_api_base adds it back), not
 * out of H5Dget_offset's.
 */
#include <hdf5.h>
#include <limits.h>
#include <stdlib.h>

#include "chunkindex.h"
#include "comm.h"
#include "h5io.h"
#include "h5io_internal.h"
#include "journal.h"

#define BATCH 256            /* ranges handed to the journal at once */
#define MAX_BATCHES 16       /* ... and at most these many batches a box */
#define CHUNKS_KEPT ((size_t)1 << 16)   /* chunk addresses kept a dataset */

enum layout_kind {
	LAYOUT_NONE,         /* nothing is announced */
	LAYOUT_CONTIGUOUS,
	LAYOUT_CHUNKED       /* unfiltered, the file this process's alone */
};

struct chunk_addr {
	uint64_t key;        /* the chunk's index in the chunk grid + 1; 0: free */
	haddr_t addr;
	hsize_t size;
};

/* One dataset's layout, learned on its first box. */
struct h5io_layout {
	hid_t d;
	enum layout_kind kind;
	size_t esize;              /* bytes an element */
	haddr_t addr;              /* contiguous: where its data begins */
	haddr_t base;              /* chunked: added to HDF5's chunk addresses */
	int ndim;
	hsize_t chunk[H5U_MAXDIM]; /* chunked: the chunks' extents */
	hsize_t grid[H5U_MAXDIM];  /* ... and how many along each axis */
	char path[PATH_MAX];       /* its file's name, as the journal knows it */
	enum dtype asked;          /* chunked: the dtype last asked of h5io_plain_chunks */
	bool same;                 /* ... whose memory type is the stored type */
	int indexed;               /* chunked: 0 not yet read, 1 INDEX read, -1 refused */
	struct chunk_index index;  /* ... the chunks stored when it was read */
	struct chunk_addr *map;    /* chunked: the chunks looked up (open addressing) */
	size_t cap, n;
};

/* The ranges of a box, handed to the journal a batch at a time. */
struct extents {
	const char *path;
	uint64_t r[BATCH][2];
	int n, batches;
};

static void extents_flush(struct extents *x)
{
	if (x->n > 0)
		journal_expect(x->path, (const uint64_t (*)[2])x->r, x->n);
	x->n = 0;
	x->batches++;
}

/* Add [AT, AT+LEN) to X, joined to the last range where it goes on from
 * it (a chunk row's chunks usually lie one after another); false when the
 * box has had MAX_BATCHES batches (the rest is saved as it is written). */
static bool extent_add(struct extents *x, haddr_t at, uint64_t len)
{
	if (x->n > 0 && x->r[x->n - 1][1] == (uint64_t)at) {
		x->r[x->n - 1][1] += len;
		return true;
	}
	if (x->n == BATCH)
		extents_flush(x);
	if (x->batches == MAX_BATCHES)
		return false;
	x->r[x->n][0] = (uint64_t)at;
	x->r[x->n][1] = (uint64_t)at + len;
	x->n++;
	return true;
}

/* ---- layouts and chunk addresses, kept ---------------------------------- */

void h5io_layout_free(struct h5io_layout *l)
{
	if (l) {
		free(l->map);
		chunk_index_free(&l->index);
	}
	free(l);
}

size_t h5io_chunk_row_bytes(hid_t d)
{
	hid_t dcpl = H5Dget_create_plist(d), space = H5Dget_space(d), type = H5Dget_type(d);
	hsize_t chunk[H5S_MAX_RANK], dim[H5S_MAX_RANK];
	size_t bytes = 0;
	int n = dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED ? H5Pget_chunk(dcpl, H5S_MAX_RANK, chunk)
									   : 0;
	if (n > 0 && space >= 0 && type >= 0 && H5Sget_simple_extent_dims(space, dim, NULL) == n) {
		bytes = H5Tget_size(type) * ((dim[n - 1] + chunk[n - 1] - 1) / chunk[n - 1] + 1);
		for (int i = 0; i < n; i++)
			bytes *= chunk[i];
	}
	h5io_close_ids(3, (hid_t[]){ dcpl, space, type });
	return bytes;
}

/* What L's dataset D, in a file of DRIVER, is, asked of HDF5. */
static void layout_learn(struct h5io_layout *l, hid_t d, hid_t driver)
{
	*l = (struct h5io_layout){ .d = d, .kind = LAYOUT_NONE, .asked = DT_NONE };
	hid_t dcpl = H5Dget_create_plist(d), type = H5Dget_type(d), space = H5Dget_space(d);
	ssize_t len = H5Fget_name(d, l->path, sizeof l->path);
	hsize_t dim[H5U_MAXDIM];
	l->ndim = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
	l->esize = type >= 0 ? H5Tget_size(type) : 0;
	H5D_layout_t layout = dcpl >= 0 ? H5Pget_layout(dcpl) : H5D_LAYOUT_ERROR;
	if (len <= 0 || (size_t)len >= sizeof l->path || !l->esize || l->ndim < 0 ||
	    l->ndim > H5U_MAXDIM || H5Sget_simple_extent_dims(space, dim, NULL) != l->ndim) {
		l->kind = LAYOUT_NONE;
	} else if (layout == H5D_CONTIGUOUS) {
		l->addr = H5Dget_offset(d);
		l->kind = l->addr != HADDR_UNDEF ? LAYOUT_CONTIGUOUS : LAYOUT_NONE;
	} else if (layout == H5D_CHUNKED && driver != H5FD_MPIO && H5Pget_nfilters(dcpl) == 0 &&
		   H5Pget_chunk(dcpl, H5U_MAXDIM, l->chunk) == l->ndim && chunk_api_base(d, &l->base) == 0) {
		l->kind = LAYOUT_CHUNKED;
		for (int i = 0; i < l->ndim; i++)
			l->grid[i] = (dim[i] + l->chunk[i] - 1) / l->chunk[i];
	}
	h5io_close_ids(3, (hid_t[]){ space, type, dcpl });
	H5Eclear2(H5E_DEFAULT);
}

/* The layout of REC's dataset: learned on first asking, kept in the
 * record until the dataset is closed.  NULL without a record. */
static struct h5io_layout *layout_of(struct h5io_record *rec)
{
	if (!rec || rec->layout)
		return rec ? rec->layout : NULL;
	rec->layout = malloc(sizeof *rec->layout);
	if (!rec->layout)
		abort();
	layout_learn(rec->layout, rec->d, rec->driver);
	return rec->layout;
}

const hsize_t *h5io_plain_chunks(struct h5io_record *rec, enum dtype dt)
{
	struct h5io_layout *l = layout_of(rec);
	if (!l || l->kind != LAYOUT_CHUNKED)
		return NULL;
	if (l->asked != dt) {
		hid_t type = H5Dget_type(l->d);
		l->asked = dt;
		l->same = type >= 0 && H5Tequal(type, h5io_mem_type(dt)) > 0;
		if (type >= 0)
			H5Tclose(type);
		H5Eclear2(H5E_DEFAULT);
	}
	return l->same ? l->chunk : NULL;
}

/* Where KEY's entry of L's map is, or would go. */
static struct chunk_addr *chunk_slot(const struct h5io_layout *l, uint64_t key)
{
	size_t i = (size_t)(key * 0x9E3779B97F4A7C15u) & (l->cap - 1);
	while (l->map[i].key && l->map[i].key != key)
		i = (i + 1) & (l->cap - 1);
	return &l->map[i];
}

/* Keep chunk KEY's address and size in L's map: grown as it fills, up to
 * CHUNKS_KEPT, then emptied to start again. */
static void chunk_keep(struct h5io_layout *l, uint64_t key, haddr_t addr, hsize_t size)
{
	if (2 * (l->n + 1) > l->cap) {
		struct chunk_addr *old = l->map;
		size_t ncap = l->cap, cap = l->cap ? 2 * l->cap : 1024;
		bool again = cap > CHUNKS_KEPT;
		l->cap = again ? l->cap : cap;
		l->map = calloc(l->cap, sizeof *l->map);
		if (!l->map)
			abort();
		l->n = 0;
		for (size_t i = 0; i < ncap && !again; i++)
			if (old[i].key) {
				*chunk_slot(l, old[i].key) = old[i];
				l->n++;
			}
		free(old);
	}
	*chunk_slot(l, key) = (struct chunk_addr){ key, addr, size };
	l->n++;
}

/* The key of the chunk whose first element is at OFFSET in L's dataset:
 * its index in the chunk grid, in C order, + 1. */
static uint64_t chunk_key(const struct h5io_layout *l, const hsize_t *offset)
{
	uint64_t key = 0;
	for (int i = 0; i < l->ndim; i++)
		key = key * l->grid[i] + offset[i] / l->chunk[i];
	return key + 1;
}

void h5io_chunk_keep(struct h5io_record *rec, const hsize_t *offset, haddr_t addr, hsize_t size)
{
	struct h5io_layout *l = layout_of(rec);
	if (l && l->kind == LAYOUT_CHUNKED && addr != HADDR_UNDEF)
		chunk_keep(l, chunk_key(l, offset), addr, size);
}

/* Where the chunk at OFFSET of L's dataset lies, not kept: asked of HDF5
 * (its address plus L's base), and kept.  A chunk not yet allocated is not kept: writing it allocates
 * it.  False when HDF5 cannot say. */
static bool chunk_look_up(struct h5io_layout *l, const hsize_t *offset, haddr_t *addr,
			  hsize_t *size)
{
	unsigned mask;
	if (H5Dget_chunk_info_by_coord(l->d, offset, &mask, addr, size) < 0)
		return false;
	if (*addr != HADDR_UNDEF) {
		*addr += l->base;
		chunk_keep(l, chunk_key(l, offset), *addr, *size);
	}
	return true;
}

/* The address and size of the chunk at OFFSET of L's dataset: in its
 * chunk index, read on the first call, else kept, or looked up.  False
 * when HDF5 cannot say. */
static bool chunk_at(struct h5io_layout *l, const hsize_t *offset, haddr_t *addr, hsize_t *size)
{
	uint64_t key = chunk_key(l, offset);
	if (!l->indexed)
		l->indexed = chunk_index_read(l->d, &l->index) == 0 ? 1 : -1;
	const struct chunk_entry *stored = l->indexed > 0 ? chunk_index_find(&l->index, key - 1) : NULL;
	if (stored) {
		*addr = stored->addr;
		*size = stored->size;
		return true;
	}
	struct chunk_addr *c = l->cap ? chunk_slot(l, key) : NULL;
	if (c && c->key == key) {
		*addr = c->addr;
		*size = c->size;
		return true;
	}
	return chunk_look_up(l, offset, addr, size);
}

/* ---- the extents of a box ------------------------------------------------ */

/* The runs of the box START/STEP/COUNT of the contiguous dataset of L, of
 * SHAPE, into X.  False when they are too many. */
static bool contiguous_runs(const struct h5io_layout *l, const struct shape *shape,
			    const int64_t *start, const int64_t *step, const int64_t *count,
			    struct extents *x)
{
	int n = shape->ndim, outer = n - 1;
	uint64_t run = l->esize, stride[H5U_MAXDIM + 1];
	stride[n > 0 ? n - 1 : 0] = 1;
	for (int i = n - 1; i > 0; i--)
		stride[i - 1] = stride[i] * (uint64_t)shape->dim[i];
	/* The axes after OUTER lie in one run; OUTER's indices and those
	 * before it are enumerated. */
	for (; outer >= 0; outer--) {
		if (count[outer] > 1 && step && step[outer] != 1)
			break;
		run *= (uint64_t)count[outer];
		if (start[outer] != 0 || count[outer] != shape->dim[outer]) {
			outer--;
			break;
		}
	}
	int64_t idx[H5U_MAXDIM] = { 0 };
	for (;;) {
		uint64_t at = 0;
		for (int i = 0; i < n; i++)
			at += (uint64_t)(start[i] + idx[i] * (step ? step[i] : 1)) * stride[i];
		if (!extent_add(x, l->addr + at * l->esize, run))
			return false;
		int i = outer;
		while (i >= 0 && ++idx[i] == count[i])
			idx[i--] = 0;
		if (i < 0)
			return true;
	}
}

/* The chunks that the box START/COUNT of the chunked dataset of L
 * touches, whole, into X.  False when they are too many or HDF5 cannot
 * say where one is. */
static bool chunks_touched(struct h5io_layout *l, const int64_t *start, const int64_t *count,
			   struct extents *x)
{
	int n = l->ndim;
	hsize_t first[H5U_MAXDIM], last[H5U_MAXDIM], at[H5U_MAXDIM];
	for (int i = 0; i < n; i++) {
		first[i] = at[i] = (hsize_t)start[i] / l->chunk[i];
		last[i] = (hsize_t)(start[i] + count[i] - 1) / l->chunk[i];
	}
	for (;;) {
		hsize_t offset[H5U_MAXDIM], size;
		haddr_t addr;
		for (int i = 0; i < n; i++)
			offset[i] = at[i] * l->chunk[i];
		if (!chunk_at(l, offset, &addr, &size))
			return false;
		if (addr != HADDR_UNDEF && !extent_add(x, addr, size))
			return false;
		int i = n - 1;
		while (i >= 0 && at[i] == last[i])
			at[i] = first[i], i--;
		if (i < 0)
			return true;
		at[i]++;
	}
}

void h5io_expect_box(hid_t d, const struct shape *shape, const int64_t *start,
		     const int64_t *step, const int64_t *count)
{
	if (!journal_active() || shape->ndim == 0)
		return;
	for (int i = 0; i < shape->ndim; i++)
		if (count[i] == 0)
			return;
	struct h5io_layout *l = layout_of(h5io_record_of(d));
	if (!l || l->ndim != shape->ndim)
		return;
	bool strided = false;
	for (int i = 0; step && i < shape->ndim; i++)
		strided |= count[i] > 1 && step[i] != 1;
	struct extents x = { .path = l->path, .n = 0 };
	if (l->kind == LAYOUT_CONTIGUOUS)
		contiguous_runs(l, shape, start, step, count, &x);
	else if (l->kind == LAYOUT_CHUNKED && !strided)
		chunks_touched(l, start, count, &x);
	H5Eclear2(H5E_DEFAULT);
	if (x.batches < MAX_BATCHES)
		extents_flush(&x);
}
