/* filter.h - HDF5 compression filters by name: the table of filters.def,
 * `compression:`'s values, the plugins HDF5 is pointed at, and what is
 * said when a filter is missing.
 *
 * The names and the parsing are pure.  The rest asks HDF5: whether a
 * filter's plugin is installed, and whether it can write through the
 * parallel HDF5 library h5ufunc uses (filter_check), never assumed from
 * the table.  How a dataset is created with a filter is h5io's.
 */
#ifndef H5UFUNC_FILTER_H
#define H5UFUNC_FILTER_H

#include <hdf5.h>
#include <stdbool.h>
#include <stddef.h>

#include "err.h"

enum filter_kind {
#define FILTER(TAG, ID, NAME, PACKAGE, LIBRARY, MIN, MAX, LEVEL, AT) FILTER_##TAG,
#include "filters.def"
#undef FILTER
	FILTER_COUNT
};

struct filter {
	int id;                  /* HDF5's filter id */
	const char *name;
	const char *package;     /* Debian's package of its plugin; NULL: in HDF5 */
	const char *library;     /* loaded before its plugin, or NULL */
	int min, max;            /* the levels it takes; max -1: none */
	int level;               /* its default level */
	int at;                  /* the parameter that holds the level */
};

extern const struct filter filter_table[FILTER_COUNT];

/* How a new dataset is compressed: ON, with filter KIND at LEVEL. */
struct compression {
	bool on;
	enum filter_kind kind;
	int level;
};

/* TEXT ("gzip", "gzip:6", "lz4", ...) into C: 0, or -1 when it names no
 * filter of the table, or a level the filter does not take.  Pure. */
int filter_parse(const char *text, struct compression *c);

/* "gzip, gzip:N with N from 0 to 9, lzf, ..." for messages, into BUF. */
const char *filter_names(char *buf, size_t len);

/* Call once, after HDF5 is set up: where HDF5 looks for plugins.  Debian
 * builds most filter plugins for its serial HDF5 library only, into
 * .../hdf5/serial/plugins, while the parallel library looks in
 * .../hdf5/openmpi/plugins; unless HDF5_PLUGIN_PATH says otherwise, the
 * serial directory is searched after the parallel one. */
void filter_init(void);

/* Add C's filter to DCPL, a chunked dataset's creation properties.
 * Returns 0, or -1 (HDF5's error stack set). */
int filter_set(hid_t dcpl, const struct compression *c);

/* Can this HDF5 write a dataset with C?  0; or -1 with E set (EXIT_USAGE,
 * at WHERE) when its plugin is missing (the package that provides it
 * named) or fails here (a plugin built for another HDF5 library).  Asked
 * of a small dataset in memory. */
int filter_check(const struct compression *c, const char *where, struct err *e);

/* When a filter of DCPL (a dataset's creation properties) is not available
 * to this HDF5: "the lz4 filter (HDF5 filter 32004), which is not
 * available to h5ufunc: ..." with the way to get it, into MSG; else MSG is
 * "".  Returns the number of filters DCPL has. */
int filter_missing(hid_t dcpl, char *msg, size_t len);

#endif
