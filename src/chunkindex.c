/* chunkindex.c - every stored chunk of a chunked dataset, read from its
 * version-1 B-tree in one pass (chunkindex.h says when, and when not).
 *
 * The file format (HDF5 File Format Specification, version 2 and 3 of the
 * superblock alike): the dataset's object header (version 1, or 2 with
 * its "OHDR" signature, continued in further blocks) holds a data layout
 * message (type 8) whose version 3 names the chunked class, the chunks'
 * dimensionality D (the axes and one more for the element) and the
 * address of the B-tree's root.  A node of the tree ("TREE", type 1)
 * holds its level, the children it uses, and keys and children
 * interleaved: key i is the stored size (4 bytes), filter mask (4) and
 * D 8-byte element offsets of child i's first chunk; a child of a leaf
 * (level 0) is the chunk's address, any other's a node one level down.
 * The leaves, left to right, are the chunks in C order of their offsets,
 * as HDF5 itself iterates them.  Integers are little-endian; addresses
 * and lengths take the superblock's sizes, and count from the superblock,
 * which a userblock puts after the file's first bytes (its size is the
 * file creation property list's).
 *
 * Read with pread on the file descriptor of HDF5's default driver, or on
 * one of its own for a file shared through MPI-IO (closed at the end of
 * the read), at an address plus the userblock, every read bounded by the file's size; a
 * node, a block or a key out of shape ends the read with -1.  The bytes
 * are read by chunk_index_parse alone (tests/fuzz/fuzz_chunkindex.c gives
 * it any); chunk_index_read asks HDF5 where to begin and checks the
 * result against it.  Not here: writing, other index types.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chunkindex.h"
#include "h5io.h"

#define MAX_LEVELS 32          /* a B-tree deeper is a surprise */
#define MAX_BLOCKS 64          /* object header blocks followed at most */
#define MAX_BLOCK (1 << 20)    /* bytes in one of them at most */
#define MSG_LAYOUT 0x0008
#define MSG_CONTINUATION 0x0010

/* What the walk of the tree fills. */
struct walk {
	const struct chunk_file *r;
	struct chunk_index *ix;
	unsigned dims;             /* D: the key's offsets */
	size_t cap;                /* entries the index may hold: HDF5's count */
	bool any;                  /* an entry was kept (the keys must grow) */
};

static uint64_t le(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;
	while (n-- > 0)
		v = v << 8 | p[n];
	return v;
}

static bool addr_undefined(uint64_t a, unsigned sa)
{
	return sa >= 8 ? a == UINT64_MAX : a == ((uint64_t)1 << (8 * sa)) - 1;
}

/* LEN bytes at HDF5's address AT into BUF: false past the file's end or
 * short. */
static bool read_at(const struct chunk_file *r, uint64_t at, void *buf, size_t len)
{
	uint64_t end = r->eof - r->base;   /* open_reader saw the file end after the userblock */
	if (at > end || len > end - at)
		return false;
	return pread(r->fd, buf, len, (off_t)(r->base + at)) == (ssize_t)len;
}

/* LEN bytes at AT, in memory the caller frees; NULL when they cannot be. */
static unsigned char *read_block(const struct chunk_file *r, uint64_t at, uint64_t len)
{
	unsigned char *b = len > 0 && len <= MAX_BLOCK ? malloc(len) : NULL;
	if (b && !read_at(r, at, b, len)) {
		free(b);
		b = NULL;
	}
	return b;
}

/* ---- the object header: where the B-tree is ------------------------------ */

struct header {
	uint64_t at[MAX_BLOCKS], len[MAX_BLOCKS];  /* blocks still to read */
	int n, read;
	int version;
	uint64_t btree;            /* found: the B-tree's address */
	hsize_t dims[H5U_MAXDIM + 1];
	unsigned ndims;            /* 0 until the layout message is found */
};

/* The layout message's data P (LEN bytes) into H; false when it is not a
 * version 3 chunked layout. */
static bool layout_message(const struct chunk_file *r, const unsigned char *p, size_t len,
			   struct header *h)
{
	if (len < 3 || p[0] != 3 || p[1] != 2)
		return false;
	unsigned d = p[2];
	if (d < 2 || d > H5U_MAXDIM + 1 || len < 3 + r->sa + 4 * (size_t)d)
		return false;
	h->btree = le(p + 3, r->sa);
	for (unsigned i = 0; i < d; i++)
		h->dims[i] = le(p + 3 + r->sa + 4 * i, 4);
	h->ndims = d;
	return true;
}

/* The messages of one header block B (LEN bytes); false on a surprise. */
static bool header_messages(const struct chunk_file *r, const unsigned char *b, size_t len,
			    struct header *h)
{
	size_t at = 0;
	for (;;) {
		unsigned type, flags;
		size_t size, head;
		if (h->version == 1) {
			if (at + 8 > len)
				return true;
			type = (unsigned)le(b + at, 2), size = le(b + at + 2, 2), flags = b[at + 4];
			head = 8;
		} else {
			if (at + 4 > len)
				return true;   /* a gap too small for a message */
			type = b[at], size = le(b + at + 1, 2), flags = b[at + 3];
			head = flags & 0x04 ? 6 : 4;
		}
		if (at + head + size > len)
			return false;
		const unsigned char *p = b + at + head;
		if (type == MSG_LAYOUT && ((flags & 0x02) || !layout_message(r, p, size, h)))
			return false;
		if (type == MSG_CONTINUATION) {
			if (h->n == MAX_BLOCKS || size < r->sa + r->ss)
				return false;
			h->at[h->n] = le(p, r->sa);
			h->len[h->n++] = le(p + r->sa, r->ss);
		}
		at += head + size;
	}
}

/* The first block of the object header at ADDR into H (its messages read,
 * continuations queued); false on a surprise. */
static bool header_first(const struct chunk_file *r, uint64_t addr, struct header *h)
{
	unsigned char pre[64];
	uint64_t start, len;
	if (!read_at(r, addr, pre, 16))
		return false;
	if (pre[0] == 1) {               /* version 1: 16 bytes, then messages */
		h->version = 1;
		start = addr + 16;
		len = le(pre + 8, 4);
	} else if (!memcmp(pre, "OHDR", 4) && pre[4] == 2) {
		h->version = 2;
		unsigned flags = pre[5], at = 6 + (flags & 0x20 ? 16 : 0) + (flags & 0x10 ? 4 : 0);
		unsigned width = 1u << (flags & 3);
		if (!read_at(r, addr, pre, at + width))
			return false;
		start = addr + at + width;
		len = le(pre + at, width);
	} else {
		return false;
	}
	unsigned char *b = read_block(r, start, len);
	bool ok = b && header_messages(r, b, len, h);
	free(b);
	return ok;
}

/* Find the layout of the dataset whose object header is at ADDR; false
 * when it is not a version-3 chunked layout, or on a surprise. */
static bool header_layout(const struct chunk_file *r, uint64_t addr, struct header *h)
{
	if (!header_first(r, addr, h))
		return false;
	while (h->read < h->n && h->ndims == 0) {
		uint64_t at = h->at[h->read], len = h->len[h->read];
		h->read++;
		unsigned char *b = read_block(r, at, len);
		bool ok = b != NULL;
		if (ok && h->version == 2)   /* "OCHK", messages, a checksum */
			ok = len > 8 && !memcmp(b, "OCHK", 4) &&
			     header_messages(r, b + 4, len - 8, h);
		else if (ok)
			ok = header_messages(r, b, len, h);
		free(b);
		if (!ok)
			return false;
	}
	return h->ndims > 0;
}

/* ---- the B-tree ----------------------------------------------------------- */

/* Leaf key K (of W's size) and its chunk at ADDR into the index: false
 * when the key is out of shape or not after the one before. */
static bool leaf_entry(struct walk *w, const unsigned char *k, uint64_t addr)
{
	struct chunk_index *ix = w->ix;
	uint64_t key = 0;
	for (int i = 0; i < ix->ndim; i++) {
		uint64_t off = le(k + 8 + 8 * (unsigned)i, 8);
		if (off % ix->chunk[i] || off / ix->chunk[i] >= ix->grid[i])
			return false;
		key = key * ix->grid[i] + off / ix->chunk[i];
	}
	if (le(k + 8 + 8 * (unsigned)ix->ndim, 8) != 0 || ix->n == w->cap ||
	    (w->any && key <= ix->e[ix->n - 1].key) || addr_undefined(addr, w->r->sa))
		return false;
	ix->e[ix->n++] = (struct chunk_entry){ .key = key, .addr = w->r->base + addr, .size = le(k, 4),
					       .mask = (unsigned)le(k + 4, 4) };
	w->any = true;
	return true;
}

/* The node at ADDR, of LEVEL (-1: the root, any level), and all below it,
 * into W's index; false on a surprise. */
static bool walk_node(struct walk *w, uint64_t addr, int level)
{
	const struct chunk_file *r = w->r;
	size_t key = 8 + 8 * (size_t)w->dims, head = 8 + 2 * (size_t)r->sa;
	size_t size = head + (size_t)r->two_k * (key + r->sa) + key;
	unsigned char *b = read_block(r, addr, size);
	bool ok = b && !memcmp(b, "TREE", 4) && b[4] == 1 && (level < 0 || b[5] == level) &&
		  b[5] < MAX_LEVELS;
	unsigned used = ok ? (unsigned)le(b + 6, 2) : 0;
	/* Every node leads to a chunk: a tree whose nodes point at one
	 * another over and over then ends at the count, not after
	 * exponentially many visits of empty nodes. */
	ok = ok && used >= 1 && used <= r->two_k;
	for (unsigned i = 0; ok && i < used; i++) {
		const unsigned char *k = b + head + i * (key + r->sa);
		uint64_t child = le(k + key, r->sa);
		ok = b[5] == 0 ? leaf_entry(w, k, child) : walk_node(w, child, b[5] - 1);
	}
	free(b);
	return ok;
}

/* ---- the dataset ---------------------------------------------------------- */

/* A descriptor that reads file F, of access list FAPL: its own driver's
 * (the default one), or one opened for the read by its name (MPI-IO's),
 * which *OWN then holds for the caller to close; -1 for any other driver. */
static int file_descriptor(hid_t f, hid_t fapl, int *own)
{
	hid_t driver = H5Pget_driver(fapl);
	void *handle = NULL;
	char name[PATH_MAX];
	ssize_t len;
	*own = -1;
	if (driver == H5FD_SEC2)
		return H5Fget_vfd_handle(f, fapl, &handle) >= 0 && handle ? *(int *)handle : -1;
	if (driver != H5FD_MPIO || (len = H5Fget_name(f, name, sizeof name)) <= 0 ||
	    (size_t)len >= sizeof name)
		return -1;
	*own = open(name, O_RDONLY | O_CLOEXEC);
	return *own;
}

/* R for D's file, and the header address and chunk extents of D into IX
 * and *OH; false when D is not chunked in a file read by HDF5's default
 * driver or MPI-IO's (whose descriptor *OWN then holds: see
 * file_descriptor). */
static bool open_reader(hid_t d, struct chunk_file *r, struct chunk_index *ix, haddr_t *oh, int *own)
{
	hid_t f = H5Iget_file_id(d), fapl = f >= 0 ? H5Fget_access_plist(f) : -1;
	hid_t fcpl = f >= 0 ? H5Fget_create_plist(f) : -1, dcpl = H5Dget_create_plist(d);
	hid_t s = H5Dget_space(d);
	H5O_info_t info;
	hsize_t ub = 0, dims[H5U_MAXDIM];
	size_t sa = 0, ss = 0;
	unsigned ik = 0;
	int fd = -1;
	*own = -1;
	bool ok = fapl >= 0 && fcpl >= 0 && dcpl >= 0 && s >= 0 &&
		  H5Pget_userblock(fcpl, &ub) >= 0 && H5Pget_sizes(fcpl, &sa, &ss) >= 0 &&
		  sa >= 2 && sa <= 8 && ss >= 2 && ss <= 8 && H5Pget_istore_k(fcpl, &ik) >= 0 && ik > 0 &&
		  H5Pget_layout(dcpl) == H5D_CHUNKED && H5Fget_filesize(f, &r->eof) >= 0 && r->eof > ub &&
		  H5Oget_info2(d, &info, H5O_INFO_BASIC) >= 0 && (fd = file_descriptor(f, fapl, own)) >= 0;
	ix->ndim = ok ? H5Sget_simple_extent_dims(s, dims, NULL) : -1;
	ok = ok && ix->ndim > 0 && H5Pget_chunk(dcpl, H5U_MAXDIM, ix->chunk) == ix->ndim;
	for (int i = 0; ok && i < ix->ndim; i++)
		ix->grid[i] = (dims[i] + ix->chunk[i] - 1) / ix->chunk[i];
	if (ok) {
		*r = (struct chunk_file){ .fd = fd, .sa = (unsigned)sa, .ss = (unsigned)ss,
				      .eof = r->eof, .base = ub, .two_k = 2 * ik };
		*oh = info.addr;
	}
	h5io_close_ids(5, (hid_t[]){ s, dcpl, fcpl, fapl, f });
	return ok;
}

/* HDF5 before 1.14.4 leaves the userblock out of H5Dget_chunk_info*'s
 * addresses (HDF5's issue 3003). */
static bool api_leaves_out_userblock(void)
{
	unsigned major = 0, minor = 0, release = 0;
	if (H5get_libversion(&major, &minor, &release) < 0)
		return true;
	return major * 10000 + minor * 100 + release < 11404;
}

int chunk_api_base(hid_t d, haddr_t *base)
{
	hid_t f = H5Iget_file_id(d), fcpl = f >= 0 ? H5Fget_create_plist(f) : -1;
	hsize_t ub = 0;
	bool ok = fcpl >= 0 && H5Pget_userblock(fcpl, &ub) >= 0;
	*base = ok && api_leaves_out_userblock() ? (haddr_t)ub : 0;
	h5io_close_ids(2, (hid_t[]){ fcpl, f });
	H5Eclear2(H5E_DEFAULT);
	return ok ? 0 : -1;
}

/* Does HDF5 place IX's first, middle and last chunks where IX does, once
 * BASE is added to its addresses (chunk_api_base)? */
static bool index_agrees(hid_t d, const struct chunk_index *ix, haddr_t base)
{
	const size_t pick[3] = { 0, ix->n / 2, ix->n - 1 };
	for (int i = 0; i < 3; i++) {
		const struct chunk_entry *c = &ix->e[pick[i]];
		hsize_t offset[H5U_MAXDIM], size;
		haddr_t addr;
		unsigned mask;
		chunk_index_offset(ix, c->key, offset);
		if (H5Dget_chunk_info_by_coord(d, offset, &mask, &addr, &size) < 0 ||
		    addr == HADDR_UNDEF || base + addr != c->addr || size != c->size || mask != c->mask)
			return false;
	}
	return true;
}

int chunk_index_parse(const struct chunk_file *r, uint64_t oh, size_t count, struct chunk_index *ix)
{
	struct header h = { .n = 0 };
	bool ok = r->base < r->eof && r->sa >= 2 && r->sa <= 8 && r->ss >= 2 && r->ss <= 8 &&
		  r->two_k > 0 && ix->ndim > 0 && ix->ndim <= H5U_MAXDIM && header_layout(r, oh, &h) &&
		  h.ndims == (unsigned)ix->ndim + 1;
	for (int i = 0; ok && i < ix->ndim; i++)
		ok = h.dims[i] == ix->chunk[i] && ix->chunk[i] > 0;
	ix->e = NULL;
	ix->n = 0;
	if (ok && count > 0) {
		struct walk w = { .r = r, .ix = ix, .dims = h.ndims, .cap = count };
		ix->e = count <= SIZE_MAX / sizeof *ix->e ? malloc(count * sizeof *ix->e) : NULL;
		ok = ix->e && !addr_undefined(h.btree, r->sa) && walk_node(&w, h.btree, -1) &&
		     ix->n == count;
	}
	if (!ok) {
		free(ix->e);
		ix->e = NULL;
		ix->n = 0;
	}
	return ok ? 0 : -1;
}

int chunk_index_read(hid_t d, struct chunk_index *ix)
{
	*ix = (struct chunk_index){ .ndim = 0 };
	struct chunk_file r;
	haddr_t oh;
	hsize_t count = 0;
	hid_t s = H5Dget_space(d);
	int own = -1;
	bool ok = s >= 0 && open_reader(d, &r, ix, &oh, &own) && H5Dget_num_chunks(d, s, &count) >= 0 &&
		  count <= SIZE_MAX && chunk_index_parse(&r, oh, (size_t)count, ix) == 0 &&
		  (count == 0 || index_agrees(d, ix, api_leaves_out_userblock() ? r.base : 0));
	if (s >= 0)
		H5Sclose(s);
	if (own >= 0)
		close(own);
	H5Eclear2(H5E_DEFAULT);
	if (!ok)
		chunk_index_free(ix);
	return ok ? 0 : -1;
}

void chunk_index_offset(const struct chunk_index *ix, uint64_t key, hsize_t *offset)
{
	for (int i = ix->ndim - 1; i >= 0; i--) {
		offset[i] = key % ix->grid[i] * ix->chunk[i];
		key /= ix->grid[i];
	}
}

void chunk_index_free(struct chunk_index *ix)
{
	free(ix->e);
	*ix = (struct chunk_index){ .ndim = 0 };
}
