/* deflate.h - HDF5's deflate filter served by libdeflate.
 *
 * HDF5 compresses a "gzip" chunk with zlib's compress2 and decompresses it
 * with inflate: the zlib format (RFC 1950) around a deflate stream.
 * libdeflate writes and reads the same format, in one call over a whole
 * buffer, two to three times as fast as zlib at the same level.
 * deflate_register puts it in HDF5's place for the deflate filter's id
 * (H5Z_FILTER_DEFLATE), for every dataset this process writes or reads:
 * files are read by any HDF5, h5py or netCDF as before.  H5UFUNC_DEFLATE=zlib
 * keeps HDF5's own filter.  Not here: which datasets are compressed, or
 * how (h5io_dataset.c creates them).
 */
#ifndef H5UFUNC_DEFLATE_H
#define H5UFUNC_DEFLATE_H

#include <stdbool.h>

/* Read H5UFUNC_DEFLATE (libdeflate, the default, or zlib).  Returns 0, or
 * -1 for another value. */
int deflate_choose(void);

/* Put libdeflate in place of HDF5's deflate filter, unless zlib was chosen
 * (after H5open; once is enough).  HDF5 1.10's H5Zregister refuses to
 * replace a predefined filter; its internal H5Z_register, exported by the
 * library, does it, looked up at run time, so that an HDF5 without it
 * keeps zlib. */
void deflate_register(void);

/* What compresses gzip chunks: "libdeflate VERSION" or "zlib". */
const char *deflate_name(void);

#endif
