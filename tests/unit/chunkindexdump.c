/* chunkindexdump FILE DATASET - what chunk_index_read (chunkindex.h) learns
 * of FILE's DATASET, for tests/71-chunks.bats to compare with h5py's
 * dsid.get_chunk_info: "index N" and one line a stored chunk, in the
 * index's order, "OFFSET,... ADDRESS SIZE MASK" (ADDRESS a place in the
 * file, its userblock counted); or "refused" when it
 * cannot read the index (the caller then asks HDF5 chunk by chunk).
 * Exit status 1 when FILE or DATASET cannot be opened.
 */
#include <inttypes.h>
#include <stdio.h>

#include <hdf5.h>

#include "chunkindex.h"

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: chunkindexdump FILE DATASET\n");
		return 2;
	}
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	hid_t f = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
	hid_t d = f >= 0 ? H5Dopen2(f, argv[2], H5P_DEFAULT) : -1;
	if (d < 0) {
		fprintf(stderr, "chunkindexdump: cannot open %s:%s\n", argv[1], argv[2]);
		return 1;
	}
	struct chunk_index ix;
	if (chunk_index_read(d, &ix) < 0) {
		printf("refused\n");
	} else {
		printf("index %zu\n", ix.n);
		for (size_t i = 0; i < ix.n; i++) {
			hsize_t offset[H5U_MAXDIM];
			chunk_index_offset(&ix, ix.e[i].key, offset);
			for (int a = 0; a < ix.ndim; a++)
				printf("%s%llu", a ? "," : "", (unsigned long long)offset[a]);
			printf(" %llu %llu %u\n", (unsigned long long)ix.e[i].addr,
			       (unsigned long long)ix.e[i].size, ix.e[i].mask);
		}
		chunk_index_free(&ix);
	}
	H5Dclose(d);
	H5Fclose(f);
	return 0;
}
