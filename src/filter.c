/* filter.c - compression filters by name, and their plugins; see filter.h.
 *
 * What it holds: the table (filters.def) and the parsing of
 * `compression:`; where HDF5 looks for plugins; the loading of a library
 * a plugin needs; the check that a filter can write, made on a dataset in
 * memory before a run writes anything; and the message for a filter that
 * is missing.  What it is not: the creation of datasets (h5io_dataset.c).
 */
#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "filter.h"
#include "h5io.h"
#include "h5io_internal.h"

const struct filter filter_table[FILTER_COUNT] = {
#define FILTER(TAG, ID, NAME, PACKAGE, LIBRARY, MIN, MAX, LEVEL, AT) \
	{ ID, NAME, PACKAGE, LIBRARY, MIN, MAX, LEVEL, AT },
#include "filters.def"
#undef FILTER
};

/* ---- names ------------------------------------------------------------- */

int filter_parse(const char *text, struct compression *c)
{
	for (int k = 0; k < FILTER_COUNT; k++) {
		const struct filter *f = &filter_table[k];
		size_t n = strlen(f->name);
		if (strncmp(text, f->name, n) != 0 || (text[n] && text[n] != ':'))
			continue;
		*c = (struct compression){ true, (enum filter_kind)k, f->level };
		if (!text[n])
			return 0;
		const char *digits = text + n + 1;
		char *end;
		long level = strtol(digits, &end, 10);
		if (f->max < 0 || *digits < '0' || *digits > '9' || *end || level < f->min ||
		    level > f->max)
			return -1;
		c->level = (int)level;
		return 0;
	}
	return -1;
}

const char *filter_names(char *buf, size_t len)
{
	size_t n = 0;
	*buf = '\0';
	for (int k = 0; k < FILTER_COUNT && n < len; k++) {
		const struct filter *f = &filter_table[k];
		const char *sep = k == 0 ? "" : k + 1 == FILTER_COUNT ? " or " : ", ";
		if (f->max < 0)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", sep, f->name);
		else
			n += (size_t)snprintf(buf + n, len - n, "%s%s, %s:N with N from %d to %d", sep,
					      f->name, f->name, f->min, f->max);
	}
	return buf;
}

static const struct filter *filter_by_id(H5Z_filter_t id)
{
	for (int k = 0; k < FILTER_COUNT; k++)
		if (filter_table[k].id == (int)id)
			return &filter_table[k];
	return NULL;
}

/* ---- plugins ------------------------------------------------------------ */

void filter_init(void)
{
	if (getenv("HDF5_PLUGIN_PATH"))
		return;   /* the user's path replaces HDF5's own: left as given */
	char dir[PATH_MAX], serial[PATH_MAX];
	ssize_t n = H5PLget(0, dir, sizeof dir);
	H5Eclear2(H5E_DEFAULT);
	if (n <= 0 || (size_t)n >= sizeof dir)
		return;
	/* ".../hdf5/openmpi/plugins" -> ".../hdf5/serial/plugins" */
	char *last = strrchr(dir, '/');
	if (!last || strcmp(last, "/plugins") != 0)
		return;
	*last = '\0';
	char *flavour = strrchr(dir, '/');
	if (!flavour || !strcmp(flavour, "/serial"))
		return;
	*flavour = '\0';
	struct stat st;
	if (snprintf(serial, sizeof serial, "%s/serial/plugins", dir) < (int)sizeof serial &&
	    stat(serial, &st) == 0 && S_ISDIR(st.st_mode))
		H5PLappend(serial);
	H5Eclear2(H5E_DEFAULT);
}

/* Debian's build of the lzf plugin calls liblzf without linking it, so
 * it fails to load ("undefined symbol: lzf_decompress") unless the
 * library is in the process already: load F's library, once, before HDF5
 * loads F's plugin.  Where the library is not installed nothing happens,
 * and the plugin is then missing as HDF5 says. */
static void load_library(const struct filter *f)
{
	static bool loaded[FILTER_COUNT];
	int k = (int)(f - filter_table);
	if (!f->library || loaded[k])
		return;
	loaded[k] = true;
	dlopen(f->library, RTLD_NOW | RTLD_GLOBAL);   /* kept for the process's life */
}

/* dl_iterate_phdr's callback: silence each HDF5 library other than this
 * one (DATA: the file name of ours). */
static int quiet_library(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	const char *name = info->dlpi_name, *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	if (strncmp(base, "libhdf5", 7) != 0 || strstr(base, "_hl") || !strcmp(name, data))
		return 0;
	void *h = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
	herr_t (*set_auto)(hid_t, H5E_auto2_t, void *) = NULL;
	if (h)
		*(void **)&set_auto = dlsym(h, "H5Eset_auto2");
	if (set_auto)
		set_auto(H5E_DEFAULT, NULL, NULL);
	if (h)
		dlclose(h);
	return 0;
}

/* A plugin built for the serial HDF5 library brings that library into the
 * process, with HDF5's printing of errors on: its failures would print
 * HDF5's diagnostics on stderr.  Turn its printing off, as h5io_init does
 * for ours. */
static void quiet_other_hdf5(void)
{
	Dl_info self;
	if (dladdr((void *)H5open, &self) && self.dli_fname)
		dl_iterate_phdr(quiet_library, (void *)self.dli_fname);
}

/* Is filter ID available to this HDF5 (its plugin loaded, if it has one)? */
static bool available(H5Z_filter_t id)
{
	const struct filter *f = filter_by_id(id);
	if (f)
		load_library(f);
	htri_t r = H5Zfilter_avail(id);
	H5Eclear2(H5E_DEFAULT);
	quiet_other_hdf5();
	return r > 0;
}

/* Where the plugin of F (NULL: an unknown filter) comes from, for a
 * message: "its plugin is in Debian's package hdf5-filter-plugin". */
static const char *remedy(const struct filter *f, char *buf, size_t len)
{
	if (f && f->package)
		snprintf(buf, len, "its plugin is in Debian's package %s", f->package);
	else
		snprintf(buf, len, "set HDF5_PLUGIN_PATH to the directory of its plugin");
	return buf;
}

int filter_missing(hid_t dcpl, char *msg, size_t len)
{
	int n = H5Pget_nfilters(dcpl);
	*msg = '\0';
	for (int i = 0; i < n && !*msg; i++) {
		unsigned flags, conf;
		size_t nvalues = 0;
		char text[64] = "", how[128];
		H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &nvalues, NULL,
						 sizeof text, text, &conf);
		if (id < 0 || available(id))
			continue;
		const struct filter *f = filter_by_id(id);
		for (char *c = text; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = ' ';
		const char *name = f ? f->name : text;
		char what[128];
		if (*name)
			snprintf(what, sizeof what, "the %.60s filter (HDF5 filter %d)", name, (int)id);
		else
			snprintf(what, sizeof what, "HDF5 filter %d", (int)id);
		snprintf(msg, len, "%s, which is not available to h5ufunc: %s", what,
			 remedy(f, how, sizeof how));
	}
	H5Eclear2(H5E_DEFAULT);
	return n < 0 ? 0 : n;
}

/* ---- writing ------------------------------------------------------------ */

int filter_set(hid_t dcpl, const struct compression *c)
{
	const struct filter *f = &filter_table[c->kind];
	unsigned values[8] = { 0 };
	size_t n = 0;
	if (f->max >= 0) {
		values[f->at] = (unsigned)c->level;
		n = (size_t)f->at + 1;
	}
	load_library(f);
	/* Optional, as h5py adds them: a chunk the filter cannot shrink is
	 * stored as it is (lzf fails on such a chunk). */
	return H5Pset_filter(dcpl, (H5Z_filter_t)f->id, H5Z_FLAG_OPTIONAL, n, values) < 0 ? -1 : 0;
}

/* Create a one-chunk dataset with C in a file in memory, write it and
 * close it: what a plugin does when a run writes with it (its set-up, its
 * compression), done before the run writes anything.  On failure, -1 with
 * HDF5's error stack in *STACK. */
static int probe(const struct compression *c, hid_t *stack)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), file = -1, space = -1, dcpl = -1, d = -1;
	H5Pset_fapl_core(fapl, (size_t)1 << 16, 0);
	static unsigned made;
	char name[64];
	snprintf(name, sizeof name, "/dev/null/h5ufunc-filter-probe-%u", made++);
	int rc = -1;
	hsize_t dim = 64;
	double data[64];
	for (int i = 0; i < 64; i++)
		data[i] = i % 8;
	if ((file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)) < 0 ||
	    (space = H5Screate_simple(1, &dim, NULL)) < 0 || (dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 ||
	    H5Pset_chunk(dcpl, 1, &dim) < 0 || filter_set(dcpl, c) < 0 ||
	    (d = H5Dcreate2(file, "probe", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0 ||
	    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
		goto out;
	rc = H5Dclose(d) < 0 ? -1 : 0;
	d = -1;
out:
	*stack = rc < 0 ? H5Eget_current_stack() : -1;
	h5io_close_ids(5, (hid_t[]){ d, dcpl, space, file, fapl });
	H5Eclear2(H5E_DEFAULT);
	return rc;
}

int filter_check(const struct compression *c, const char *where, struct err *e)
{
	const struct filter *f = &filter_table[c->kind];
	char how[128];
	if (!available((H5Z_filter_t)f->id))
		return err_set(e, EXIT_USAGE, where,
			       "the %s filter (HDF5 filter %d) is not available to h5ufunc: %s", f->name,
			       f->id, remedy(f, how, sizeof how));
	hid_t stack;
	if (probe(c, &stack) == 0)
		return 0;
	err_set(e, EXIT_USAGE, where, "the %s filter cannot write through h5ufunc's HDF5 library",
		f->name);
	h5io_fold_stack(e, stack);
	err_hint(e, "; a plugin built for the serial HDF5 library can read here but not write");
	return -1;
}
