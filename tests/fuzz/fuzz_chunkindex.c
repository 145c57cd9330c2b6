/* fuzz_chunkindex.c - libFuzzer target: a file's bytes through the chunk
 * index reader's parser (chunkindex.h, chunk_index_parse).
 *
 * What it covers: everything chunkindex.c reads from the file itself --
 * the object header of version 1 and 2 ("OHDR"), its continuation blocks
 * (version 2's "OCHK"), the layout message, and the version-1 B-tree's
 * nodes ("TREE"), levels, keys and children down to the chunks' entries.
 * What it does not: HDF5's side of chunk_index_read (opening the file,
 * the property lists, the checks of the result against H5Dget_chunk_info),
 * which would fuzz HDF5's own reader of the file, not h5ufunc's.
 *
 * An input is a header and the file's bytes.  The header (little-endian):
 *   0  address size, 1  length size (each 2 + the byte % 7),
 *   2  K (a node holds 2K children; 1 + the byte % 64),
 *   3  axes (1 + the byte % 12), 4-5 the userblock (% the file's size),
 *   6-13 the object header's address, 14-15 the chunks expected
 *   (% 4096), and two bytes an axis: its chunk's extent and the chunks
 *   along it (each 1 + the byte).
 * The rest is the file, written to a file in memory (memfd) that the
 * parser reads with pread.  Seeds (fuzz.mk) are made by
 * tests/fuzz/chunkindex_seeds.py from small h5py files.  A parse that
 * succeeds must hold COUNT chunks whose keys grow, each in the grid, at
 * a place in the file; anything else aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "chunkindex.h"

#define HEAD 16   /* and two bytes an axis */

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	while (n-- > 0)
		v = v << 8 | p[n];
	return v;
}

/* The parse's result IX, of COUNT chunks, in a file of F: abort when it
 * breaks what chunk_index_parse promises. */
static void check(const struct chunk_index *ix, size_t count, const struct chunk_file *f)
{
	uint64_t cells = 1;
	for (int i = 0; i < ix->ndim; i++)
		cells *= ix->grid[i];
	if (ix->n != count || (count && !ix->e))
		abort();
	for (size_t i = 0; i < ix->n; i++)
		if (ix->e[i].key >= cells || (i && ix->e[i].key <= ix->e[i - 1].key) ||
		    ix->e[i].addr < f->base)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int axes = size > 3 ? 1 + data[3] % 12 : 1;
	size_t head = HEAD + 2 * (size_t)axes;
	if (size <= head)
		return 0;
	int fd = memfd_create("fuzz_chunkindex", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	size_t len = size - head;
	if (write(fd, data + head, len) != (ssize_t)len)
		abort();
	struct chunk_file f = { .fd = fd, .sa = 2 + data[0] % 7, .ss = 2 + data[1] % 7,
				.two_k = 2 * (1 + data[2] % 64), .eof = len,
				.base = le(data + 4, 2) % len };
	struct chunk_index ix = { .ndim = axes };
	for (int i = 0; i < axes; i++) {
		ix.chunk[i] = 1 + (hsize_t)data[HEAD + 2 * i];
		ix.grid[i] = 1 + (hsize_t)data[HEAD + 2 * i + 1];
	}
	size_t count = (size_t)le(data + 14, 2) % 4096;
	if (chunk_index_parse(&f, le(data + 6, 8), count, &ix) == 0)
		check(&ix, count, &f);
	chunk_index_free(&ix);
	close(fd);
	return 0;
}
