/* deflate.c - HDF5's deflate filter (zlib format) through libdeflate; see
 * deflate.h. */
#include <dlfcn.h>
#include <hdf5.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

#include "deflate.h"

#define LEVELS 13   /* libdeflate's 0 to 12; HDF5's gzip takes 0 to 9 */

/* One compressor a level, made when first used and kept for the process. */
static struct libdeflate_compressor *compressor_at(unsigned level)
{
	static struct libdeflate_compressor *made[LEVELS];
	if (level >= LEVELS)
		level = LEVELS - 1;
	if (!made[level])
		made[level] = libdeflate_alloc_compressor((int)level);
	return made[level];
}

static struct libdeflate_decompressor *decompressor(void)
{
	static struct libdeflate_decompressor *made;
	if (!made)
		made = libdeflate_alloc_decompressor();
	return made;
}

/* Compress the NBYTES at *BUF at LEVEL into a buffer that holds the
 * worst case (as HDF5 1.10's own filter, with compressBound): a chunk that
 * does not shrink is stored compressed and larger, never refused, since
 * the parallel library's filtered writes do not record a skipped optional
 * filter and its readers would inflate raw bytes.  Returns the new size,
 * 0 on failure. */
static size_t compress_chunk(unsigned level, size_t nbytes, size_t *buf_size, void **buf)
{
	struct libdeflate_compressor *c = compressor_at(level);
	size_t bound = c ? libdeflate_zlib_compress_bound(c, nbytes) : 0;
	void *out = c ? H5allocate_memory(bound > nbytes ? bound : nbytes, false) : NULL;
	size_t n = out ? libdeflate_zlib_compress(c, *buf, nbytes, out, bound) : 0;
	if (n == 0) {
		H5free_memory(out);
		return 0;
	}
	H5free_memory(*buf);
	*buf = out;
	*buf_size = bound > nbytes ? bound : nbytes;
	return n;
}

/* Decompress the NBYTES at *BUF, the output's size unknown: into a buffer
 * of at least *BUF_SIZE bytes and four times the input, doubled while it is
 * too small.  Returns the new size, 0 on failure (corrupt data). */
static size_t decompress_chunk(size_t nbytes, size_t *buf_size, void **buf)
{
	struct libdeflate_decompressor *d = decompressor();
	size_t nalloc = *buf_size > 4 * nbytes ? *buf_size : 4 * nbytes;
	for (; d; nalloc *= 2) {
		void *out = H5allocate_memory(nalloc, false);
		size_t n = 0;
		enum libdeflate_result r = out ? libdeflate_zlib_decompress(d, *buf, nbytes, out, nalloc, &n)
					       : LIBDEFLATE_BAD_DATA;
		if (r == LIBDEFLATE_SUCCESS) {
			H5free_memory(*buf);
			*buf = out;
			*buf_size = nalloc;
			return n;
		}
		H5free_memory(out);
		if (r != LIBDEFLATE_INSUFFICIENT_SPACE)
			break;
	}
	return 0;
}

/* HDF5's filter callback: CD_VALUES[0] is the level (H5Pset_deflate). */
static size_t filter(unsigned flags, size_t cd_nelmts, const unsigned cd_values[], size_t nbytes,
		     size_t *buf_size, void **buf)
{
	if (flags & H5Z_FLAG_REVERSE)
		return decompress_chunk(nbytes, buf_size, buf);
	return compress_chunk(cd_nelmts ? cd_values[0] : 6, nbytes, buf_size, buf);
}

static bool want_zlib, in_place;

int deflate_choose(void)
{
	const char *v = getenv("H5UFUNC_DEFLATE");
	want_zlib = v && !strcmp(v, "zlib");
	return !v || !*v || want_zlib || !strcmp(v, "libdeflate") ? 0 : -1;
}

void deflate_register(void)
{
	static const H5Z_class2_t cls = {
		.version = H5Z_CLASS_T_VERS,
		.id = H5Z_FILTER_DEFLATE,
		.encoder_present = 1,
		.decoder_present = 1,
		.name = "deflate (libdeflate)",
		.filter = filter,
	};
	if (want_zlib || in_place)
		return;
	herr_t (*internal)(const H5Z_class2_t *) = NULL;
	H5E_BEGIN_TRY {
		in_place = H5Zregister(&cls) >= 0;
	} H5E_END_TRY;
	if (!in_place)
		*(void **)&internal = dlsym(RTLD_DEFAULT, "H5Z_register");
	if (internal)
		in_place = internal(&cls) >= 0;
}

const char *deflate_name(void)
{
	return in_place ? "libdeflate " LIBDEFLATE_VERSION_STRING : "zlib";
}
