/* h5io.c - the HDF5 boundary, serial or MPI-IO; see h5io.h.
 *
 * What it holds, in sections marked "---- NAME" in this order: set-up
 * (MPI-IO hints, HDF5's own state); errors (HDF5 error stacks folded into
 * the error record); files (access properties, open, create, in memory,
 * close, probe); datasets (chunk caches, open, create with fill value and
 * reserved space, chunks, unlink, move); boxes read and written
 * (hyperslabs, or whole chunks as stored; injected faults).  HDF5 types
 * as dtypes are h5io_types.c's; attributes, the `history` one included,
 * are h5attr.c's; what these files share is in h5io_internal.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "comm.h"
#include "deflate.h"
#include "filter.h"
#include "h5attr.h"
#include "h5io.h"
#include "h5io_internal.h"
#include "iostat.h"

/* Bytes of chunk cache per dataset.  A compressed chunk that two boxes
 * share is decompressed once while it stays in the cache, so filtered
 * datasets get room for a row of typical chunks.  Raw chunks are copied
 * from the page cache at no such cost, and a small cache keeps them in the
 * processor's cache between HDF5's read and its copy into the box (W2 on
 * chunked data: 0.32 s against 0.39 s with 16 MiB). */
#define CHUNK_CACHE_FILTERED ((size_t)16 << 20)
#define CHUNK_CACHE_RAW ((size_t)1 << 20)
/* Boxes too small for a chunk row cut it along the rows, each row of boxes
 * crossing its chunks: raw caches hold those (h5io_chunk_row_bytes) up to
 * this, so each is read once, not once a row (--memory 4K, (1024, 1024)
 * float64 in (256, 64) chunks: a quarter of the CPU); wider rows cycle. */
#define CHUNK_CACHE_ROW ((size_t)4 << 20)

/* ---- set-up: MPI-IO hints, HDF5 state ---------------------------------- */

#define MAX_HINTS 32
static int nhints;
static char hint_key[MAX_HINTS][256];
static const char *hint_value[MAX_HINTS];

int h5io_hint(const char *key, size_t keylen, const char *value)
{
	if (nhints == MAX_HINTS || keylen >= sizeof hint_key[0] || keylen >= MPI_MAX_INFO_KEY)
		return -1;
	memcpy(hint_key[nhints], key, keylen);
	hint_key[nhints][keylen] = '\0';
	hint_value[nhints++] = value;
	return 0;
}

void h5io_init(void)
{
	/* No HDF5 clean-up at exit: every file is closed explicitly, and after
	 * a close that failed (a write refused for lack of space) HDF5 1.10
	 * would close the file again at exit and crash. */
	H5dont_atexit();
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	h5io_types_init();
	filter_init();
	/* gzip chunks through libdeflate: the same format, faster */
	deflate_register();
}

/* ---- errors: HDF5 error stacks folded into the error record ------------ */

static herr_t walk_first(unsigned n, const H5E_error2_t *err, void *data)
{
	char *out = data;
	if (n == 0 && err->desc)
		snprintf(out, 512, "%s", err->desc);
	return 0;
}

/* DESC, HDF5's innermost message, fit for one line of ours, into OUT (LEN
 * bytes).  A message that carries the system's error ("file write failed:
 * time = ..., filename = ..., errno = 28, error message = 'No space left on
 * device', ...") becomes its first words and the system's message ("file
 * write failed: No space left on device"); control characters (HDF5 puts a
 * line break in some) become spaces. */
static void tidy_message(const char *desc, char *out, size_t len)
{
	static const char key[] = "error message = '";
	const char *sys = strstr(desc, key);
	if (sys) {
		sys += sizeof key - 1;
		int head = (int)strcspn(desc, ":,");
		int n = (int)strcspn(sys, "'");
		snprintf(out, len, "%.*s: %.*s", head, desc, n, sys);
	} else {
		snprintf(out, len, "%s", desc);
	}
	for (char *c = out; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
}

void h5io_fold_stack(struct err *e, hid_t stack)
{
	char desc[512] = "";
	if (stack >= 0) {
		H5Ewalk2(stack, H5E_WALK_UPWARD, walk_first, desc);
		H5Eclose_stack(stack);
	}
	H5Eclear2(H5E_DEFAULT);
	if (*desc) {
		char line[512];
		tidy_message(desc, line, sizeof line);
		err_append(e, " (HDF5: %s)", line);
	}
	/* HDF5 locks a file it opens without MPI-IO (flock).  Held by another
	 * process, the lock fails with EWOULDBLOCK; on some Lustre and NFS
	 * mounts locking itself fails (ENOLCK, ENOSYS, ...), and only turning
	 * HDF5's locking off lets the file be opened. */
	if (strstr(desc, "unable to lock file") && strstr(desc, strerror(EWOULDBLOCK)))
		err_append(e, "; the file is in use by another process "
			   "(HDF5_USE_FILE_LOCKING=FALSE turns HDF5's file locking off)");
	else if (strstr(desc, "unable to lock file"))
		err_append(e, "; this file system does not support file locking, as some Lustre "
			   "and NFS mounts do not: set HDF5_USE_FILE_LOCKING=FALSE");
}

/* ---- files ------------------------------------------------------------- */

/* The stripe size given as --mpi-info striping_unit=BYTES, or 0. */
static unsigned long long striping_unit(void)
{
	for (int i = 0; i < nhints; i++)
		if (!strcmp(hint_key[i], "striping_unit")) {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(hint_value[i], &end, 10);
			return errno || end == hint_value[i] || *end || *hint_value[i] == '-' ? 0 : v;
		}
	return 0;
}

/* Objects of at least this many bytes start on a stripe boundary when the
 * stripe size is known (HDF5's metadata blocks, 2 KiB, stay packed). */
#define ALIGN_THRESHOLD ((unsigned long long)64 << 10)

/* Access through MPI-IO when MPI runs and SHARED, else HDF5's default
 * driver (a file this process has alone). */
static hid_t file_access(bool shared)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	/* Each dataset of a new file on its own stripes: a rank's collective
	 * buffer then talks to as few storage targets as it can (HDF5's advice
	 * for Lustre and GPFS). */
	/* No blocks of small raw data: under MPI-IO on 4 ranks and more, HDF5
	 * 1.10 writes the unused tail of such a block from memory it never
	 * initialised, so files differed with the number of ranks (and held
	 * stray heap bytes).  Each dataset then gets exactly its own space. */
	H5Pset_small_data_block_size(fapl, 0);
	unsigned long long unit = striping_unit();
	if (unit > 1)
		H5Pset_alignment(fapl, unit < ALIGN_THRESHOLD ? unit : ALIGN_THRESHOLD, unit);
	if (comm_mpi() && shared) {
		MPI_Info info = MPI_INFO_NULL;
		if (nhints) {
			MPI_Info_create(&info);
			for (int i = 0; i < nhints; i++)
				MPI_Info_set(info, hint_key[i], hint_value[i]);
		}
		H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, info);
		if (info != MPI_INFO_NULL)
			MPI_Info_free(&info);
		H5Pset_all_coll_metadata_ops(fapl, 1);
		H5Pset_coll_metadata_write(fapl, 1);
	}
	return fapl;
}

/* Links a group keeps in its object header before it moves them to a
 * fractal heap.  Where HDF5 places a fractal heap's blocks depends on the
 * file driver (the ranks' MPI-IO or one process's), so a file would hold
 * other bytes on other numbers of ranks; HDF5's default is 8. */
#define COMPACT_LINKS 1024

/* Creation properties of CLASS (a file's, a group's, a dataset's) as
 * netCDF-4 needs them: netCDF-C opens a file for writing only when every
 * group tracks the creation order of its links, and it lists attributes in
 * the order they were created.  Both are tracked and indexed, as netCDF-C
 * itself creates them.  Such groups have object headers that would record
 * the time: none is recorded, so that a run writes the same bytes
 * whenever it runs and on any number of ranks (COMPACT_LINKS too). */
static hid_t creation_order(hid_t class)
{
	hid_t plist = H5Pcreate(class);
	unsigned order = H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED;
	if (class != H5P_DATASET_CREATE) {
		H5Pset_link_creation_order(plist, order);
		H5Pset_link_phase_change(plist, COMPACT_LINKS, COMPACT_LINKS / 2);
	}
	H5Pset_attr_creation_order(plist, order);
	H5Pset_obj_track_times(plist, 0);
	return plist;
}

hid_t h5io_dataset_plist(void)
{
	return creation_order(H5P_DATASET_CREATE);
}

int h5io_parents(hid_t file, const char *path, const char *where, struct err *e)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	hid_t gcpl = creation_order(H5P_GROUP_CREATE);
	int rc = 0;
	for (char *p = strchr(buf + 1, '/'); p && rc == 0; p = strchr(p + 1, '/')) {
		*p = '\0';
		htri_t there = H5Lexists(file, buf, H5P_DEFAULT);
		if (there == 0) {
			iostat.h5_metadata++;
			hid_t g = H5Gcreate2(file, buf, H5P_DEFAULT, gcpl, H5P_DEFAULT);
			if (g < 0) {
				hid_t stack = H5Eget_current_stack();
				rc = err_set(e, EXIT_RUN, where, "cannot create group '%s'", buf);
				h5io_fold_stack(e, stack);
			} else {
				H5Gclose(g);
			}
		}
		*p = '/';
	}
	H5Pclose(gcpl);
	H5Eclear2(H5E_DEFAULT);
	return rc;
}

int h5io_is_hdf5(const char *path)
{
	htri_t r = H5Fis_hdf5(path);
	H5Eclear2(H5E_DEFAULT);
	return r > 0 ? 1 : r == 0 ? 0 : -1;
}

/* The netCDF-3 format of PATH by its first four bytes ("CDF" and a
 * version byte), or NULL. */
static const char *netcdf3_format(const char *path)
{
	unsigned char magic[4] = { 0 };
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(magic, 1, sizeof magic, f) : 0;
	if (f)
		fclose(f);
	if (n < 4 || memcmp(magic, "CDF", 3) != 0)
		return NULL;
	return magic[3] == 1 ? "classic format" : magic[3] == 2 ? "64-bit offset format"
	     : magic[3] == 5 ? "CDF-5, 64-bit data format" : NULL;
}

hid_t h5io_open(const char *path, bool write, const char *where, struct err *e)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return err_set(e, EXIT_USAGE, where, "cannot open '%s': %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return err_set(e, EXIT_USAGE, where, "'%s' is a directory, not an HDF5 file", path);
	if (h5io_is_hdf5(path) != 1) {
		const char *kind = netcdf3_format(path);
		if (kind)
			return err_set(e, EXIT_USAGE, where, "'%s' is a netCDF-3 file (%s), which h5ufunc "
				       "reads once it is netCDF-4: nccopy -k nc4 %s NEW.nc", path, kind, path);
		return err_set(e, EXIT_USAGE, where, "'%s' is not an HDF5 file", path);
	}
	hid_t fapl = file_access(true);
	iostat.h5_opens++;
	hid_t f = H5Fopen(path, write ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
	hid_t stack = f < 0 ? H5Eget_current_stack() : -1;
	H5Pclose(fapl);
	if (f < 0) {
		err_set(e, EXIT_USAGE, where, "cannot open '%s'%s", path, write ? " for writing" : "");
		h5io_fold_stack(e, stack);
	}
	return f;
}

static hid_t create(const char *path, bool private, bool shared, const char *where, struct err *e)
{
	hid_t fapl = file_access(shared);
	/* H5F_ACC_EXCL is O_CREAT|O_EXCL: a name that exists, a link planted
	 * under it included, is refused, never followed or truncated. */
	mode_t mask = private ? umask(077) : 0;
	hid_t fcpl = creation_order(H5P_FILE_CREATE);
	iostat.h5_opens++;
	hid_t f = H5Fcreate(path, H5F_ACC_EXCL, fcpl, fapl);
	if (private)
		umask(mask);
	hid_t stack = f < 0 ? H5Eget_current_stack() : -1;
	H5Pclose(fcpl);
	H5Pclose(fapl);
	if (f < 0) {
		err_set(e, EXIT_RUN, where, "cannot create '%s'", path);
		h5io_fold_stack(e, stack);
	}
	return f;
}

hid_t h5io_create(const char *path, bool private, const char *where, struct err *e)
{
	return create(path, private, true, where, e);
}

hid_t h5io_create_alone(const char *path, const char *where, struct err *e)
{
	return create(path, false, false, where, e);
}

hid_t h5io_create_memory(const char *where, struct err *e)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	H5Pset_fapl_core(fapl, (size_t)1 << 20, 0);
	/* HDF5 first tries to open the name it is given, to see whether the
	 * file is open already: under a path that cannot exist, nothing on
	 * disk is ever opened (and, one name a file, HDF5 sees no file twice). */
	static unsigned made;
	char name[64];
	snprintf(name, sizeof name, "/dev/null/h5ufunc-in-memory-%u", made++);
	hid_t f = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	hid_t stack = f < 0 ? H5Eget_current_stack() : -1;
	H5Pclose(fapl);
	if (f < 0) {
		err_set(e, EXIT_RUN, where, "cannot make a file in memory");
		h5io_fold_stack(e, stack);
	}
	return f;
}

hid_t h5io_open_alone(const char *path)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), id = -1;
	H5E_BEGIN_TRY {
		id = H5Fopen(path, H5F_ACC_RDWR, fapl);
	} H5E_END_TRY;
	H5Pclose(fapl);
	return id;
}

void h5io_flush(hid_t file)
{
	H5Fflush(file, H5F_SCOPE_LOCAL);
}

/* The file driver of the file that holds OBJ: H5FD_MPIO when it is shared
 * by the ranks through MPI-IO, H5FD_CORE when in this process's memory.
 * (Under MPI, asking duplicates the file's communicator, collectively:
 * dataset_driver keeps the answer for the datasets boxes move through.) */
static hid_t driver_of(hid_t obj)
{
	hid_t f = H5Iget_file_id(obj);
	hid_t fapl = f >= 0 ? H5Fget_access_plist(f) : -1;
	hid_t driver = fapl >= 0 ? H5Pget_driver(fapl) : -1;
	if (fapl >= 0)
		H5Pclose(fapl);
	if (f >= 0)
		H5Fclose(f);
	return driver;
}

#define DRIVERS 8   /* datasets whose file's driver is kept */
static struct {
	hid_t d, driver;   /* d 0: free */
} drivers[DRIVERS];
static int next_driver;

/* The driver of dataset D's file: kept from D's first box until D is
 * closed (every rank asks at the same box, so under MPI every rank joins
 * driver_of's collective call alike). */
static hid_t dataset_driver(hid_t d)
{
	for (int i = 0; i < DRIVERS; i++)
		if (drivers[i].d == d)
			return drivers[i].driver;
	int i = next_driver;
	next_driver = (next_driver + 1) % DRIVERS;
	drivers[i].d = d;
	drivers[i].driver = driver_of(d);
	return drivers[i].driver;
}

void h5io_close(hid_t f)
{
	if (f >= 0)
		H5Fclose(f);
}

void h5io_close_ids(int n, const hid_t *ids)
{
	for (int i = 0; i < n; i++)
		if (ids[i] >= 0)
			H5Idec_ref(ids[i]);
}

enum h5io_object h5io_probe(hid_t file, const char *path)
{
	iostat.h5_metadata++;
	/* Walk the path one link at a time: H5Lexists needs every parent. */
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;
			*p = '\0';
			if (p > buf + 1 && H5Lexists(file, buf, H5P_DEFAULT) <= 0) {
				H5Eclear2(H5E_DEFAULT);
				return H5IO_NONE;
			}
			*p = c;
			if (!c)
				break;
		}
	}
	H5O_info_t info;
	if (H5Oget_info_by_name(file, path, &info, H5P_DEFAULT) < 0) {
		H5Eclear2(H5E_DEFAULT);
		return H5IO_NONE;
	}
	return info.type == H5O_TYPE_DATASET ? H5IO_DATASET
	     : info.type == H5O_TYPE_GROUP ? H5IO_GROUP : H5IO_OTHER;
}

/* ---- datasets: access, open, create, chunks, unlink, move -------------- */

/* Access properties of every dataset opened or created: a chunk cache of
 * BYTES. */
static hid_t dataset_access(size_t bytes)
{
	hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
	H5Pset_chunk_cache(dapl, 12421, bytes, 0.75);
	return dapl;
}

/* How many filters has dataset D's pipeline (compression, checksums)?  If
 * one is unavailable to this HDF5, MISSING says which (filter_missing). */
static int dataset_filters(hid_t d, char *missing, size_t len)
{
	hid_t dcpl = H5Dget_create_plist(d);
	*missing = '\0';
	int n = dcpl < 0 ? 0 : filter_missing(dcpl, missing, len);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	return n;
}

/* D, dataset PATH of FILE, again through a handle of this process alone
 * when it is virtual and FILE is shared under MPI-IO: HDF5 1.10 reads no
 * virtual dataset through MPI-IO (and would open its sources with it,
 * collectively, on the ranks whose boxes meet them only).  Its reads are
 * then independent; the file stays open while the dataset is. */
static hid_t alone_if_virtual(hid_t file, const char *path, hid_t d, hid_t dapl)
{
	hid_t dcpl = H5Dget_create_plist(d);
	bool virtual = dcpl >= 0 && H5Pget_layout(dcpl) == H5D_VIRTUAL;
	if (dcpl >= 0)
		H5Pclose(dcpl);
	char name[PATH_MAX];
	ssize_t n = H5Fget_name(file, name, sizeof name);
	if (!virtual || driver_of(file) != H5FD_MPIO || n <= 0 || (size_t)n >= sizeof name)
		return d;
	hid_t alone = -1, again = -1;
	H5E_BEGIN_TRY {
		alone = H5Fopen(name, H5F_ACC_RDONLY, H5P_DEFAULT);
		again = alone < 0 ? -1 : H5Dopen2(alone, path, dapl);
	} H5E_END_TRY;
	h5io_close(alone);   /* closed with the dataset */
	if (again < 0)
		return d;
	H5Dclose(d);
	return again;
}

/* Dataset PATH of FILE, opened, and MISSING as dataset_filters says;
 * errors (EXIT_USAGE) name DISPLAY. */
static hid_t open_dataset(hid_t file, const char *path, const char *where, const char *display,
			  char *missing, size_t len, struct err *e)
{
	hid_t dapl = dataset_access(CHUNK_CACHE_RAW);
	iostat.h5_metadata++;
	hid_t d = H5Dopen2(file, path, dapl);
	if (d >= 0)
		d = alone_if_virtual(file, path, d, dapl);
	H5Pclose(dapl);
	size_t cache = d < 0 ? 0 : h5io_chunk_row_bytes(d);
	cache = cache < CHUNK_CACHE_ROW ? cache : CHUNK_CACHE_ROW;
	cache = d >= 0 && dataset_filters(d, missing, len) > 0 ? CHUNK_CACHE_FILTERED : cache;
	if (cache > CHUNK_CACHE_RAW) {
		/* The cache is fixed when a dataset is opened: open it again (its
		 * header is in HDF5's metadata cache by now). */
		H5Dclose(d);
		dapl = dataset_access(cache);
		d = H5Dopen2(file, path, dapl);
		H5Pclose(dapl);
	}
	if (d >= 0)
		h5io_unwritten_note(d, dataset_driver(d) == H5FD_MPIO);
	if (d < 0) {
		err_set(e, EXIT_USAGE, where, "cannot open dataset '%s'", display);
		h5io_fold_stack(e, H5Eget_current_stack());
	}
	return d;
}

hid_t h5io_dataset_open_quiet(hid_t file, const char *path)
{
	hid_t d = -1;
	H5E_BEGIN_TRY {
		d = H5Dopen2(file, path, H5P_DEFAULT);
	} H5E_END_TRY;
	return d;
}

hid_t h5io_dataset_open(hid_t file, const char *path, struct shape *shape,
			enum dtype *dt, const char *where, const char *display,
			struct err *e)
{
	char filter[512] = "";
	hid_t d = open_dataset(file, path, where, display, filter, sizeof filter, e);
	if (d < 0)
		return -1;
	hid_t t = H5Dget_type(d), s = H5Dget_space(d);
	char tname[64] = "";
	*dt = h5io_type_dtype(t, tname, sizeof tname);
	if (*filter) {
		H5Tclose(t);
		H5Sclose(s);
		H5Dclose(d);
		return err_set(e, EXIT_USAGE, where, "'%s' is stored with %s", display, filter);
	}
	H5S_class_t sclass = H5Sget_simple_extent_type(s);
	int ndim = H5Sget_simple_extent_ndims(s);
	hsize_t dims[H5S_MAX_RANK];
	H5Sget_simple_extent_dims(s, dims, NULL);
	H5Tclose(t);
	H5Sclose(s);
	if (*dt == DT_NONE) {
		H5Dclose(d);
		return err_set(e, EXIT_USAGE, where, "'%s' has unsupported type (%s)", display, tname);
	}
	if (sclass == H5S_NULL || ndim < 0 || ndim > H5U_MAXDIM) {
		H5Dclose(d);
		return err_set(e, EXIT_USAGE, where, "'%s' has an unsupported dataspace", display);
	}
	shape->ndim = ndim;
	for (int i = 0; i < ndim; i++)
		shape->dim[i] = (int64_t)dims[i];
	return d;
}

/* Reserve disk blocks for the whole of FILE, just flushed (Linux
 * fallocate over its size, which the flush extended to HDF5's end of
 * allocation), so that the data writes into the datasets just created
 * cannot fail for lack of space: under MPI-IO such a failure on some ranks
 * only can leave them waiting for each other for ever, or be lost without
 * an error (Open MPI 4.1's OMPIO).  Rank 0 reserves and the outcome is
 * shared; filesystems without fallocate are left as they are.  Collective.
 * A refusal (no space, quota, file size limit) is an error. */
static int reserve_space(hid_t file, const char *where, struct err *e)
{
	int failure = 0;
	unsigned long long size = 0;
	bool shared = driver_of(file) == H5FD_MPIO;   /* else this process's alone */
	if (comm_rank() == 0 || !shared) {
		char name[PATH_MAX];
		struct stat st;
		ssize_t n = H5Fget_name(file, name, sizeof name);
		if (n > 0 && (size_t)n < sizeof name && stat(name, &st) == 0 && st.st_size > 0) {
			size = (unsigned long long)st.st_size;
			int fd = open(name, O_WRONLY | O_CLOEXEC);
			if (fd >= 0) {
				if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, st.st_size) != 0 &&
				    (errno == ENOSPC || errno == EDQUOT || errno == EFBIG))
					failure = errno;
				close(fd);
			}
		}
		H5Eclear2(H5E_DEFAULT);
	}
	if (shared)
		comm_bcast(&failure, sizeof failure);
	if (failure) {
		if (shared)
			comm_bcast(&size, sizeof size);
		return err_set(e, EXIT_RUN, where, "cannot reserve %llu bytes for the output: %s",
			       size, strerror(failure));
	}
	return 0;
}

/* Create PATH in FILE of DT and SHAPE with the creation properties DCPL
 * (closed here), its chunks cached as FILTERED says, with FILL's
 * _FillValue; its metadata written and the file's space reserved.
 * Collective in a file shared under MPI-IO. */
static hid_t create_dataset(hid_t file, const char *path, enum dtype dt, const struct shape *shape,
			    hid_t dcpl, bool filtered, const void *fill, const char *where, struct err *e)
{
	hsize_t dims[H5U_MAXDIM];
	for (int i = 0; i < shape->ndim; i++)
		dims[i] = (hsize_t)shape->dim[i];
	bool memory = driver_of(file) == H5FD_CORE;
	if (fill && !memory)
		H5Pset_fill_value(dcpl, h5io_mem_type(dt), fill);
	hid_t space = shape->ndim ? H5Screate_simple(shape->ndim, dims, NULL) : H5Screate(H5S_SCALAR);
	hid_t dapl = dataset_access(filtered ? CHUNK_CACHE_FILTERED : CHUNK_CACHE_RAW);
	iostat.h5_metadata++;
	hid_t d = h5io_parents(file, path, where, e) < 0 ? -1
		: H5Dcreate2(file, path, h5io_mem_type(dt), space, H5P_DEFAULT, dcpl, dapl);
	hid_t stack = d < 0 && !e->status ? H5Eget_current_stack() : -1;
	h5io_close_ids(3, (hid_t[]){ dapl, dcpl, space });
	if (d < 0) {
		if (!e->status) {
			err_set(e, EXIT_RUN, where, "cannot create dataset '%s'", path);
			h5io_fold_stack(e, stack);
		}
		return -1;
	}
	/* Write the file's metadata now, while nothing has failed: if a data
	 * write fails later for lack of space, closing the file then has no
	 * metadata left to write.  (Under MPI-IO, HDF5 1.10 cannot survive a
	 * metadata write that fails on some ranks only: they stop meeting in
	 * the same collective calls and wait for each other for ever.) */
	int rc = 0;
	if (fill && !memory && h5attr_write_number(d, "_FillValue", dt, fill) < 0) {
		stack = H5Eget_current_stack();
		err_set(e, EXIT_RUN, where, "cannot write the _FillValue of dataset '%s'", path);
		h5io_fold_stack(e, stack);
		rc = -1;
	}
	iostat.h5_metadata++;
	if (rc < 0) {
	} else if (H5Fflush(d, H5F_SCOPE_LOCAL) < 0) {
		stack = H5Eget_current_stack();
		err_set(e, EXIT_RUN, where, "cannot create dataset '%s'", path);
		h5io_fold_stack(e, stack);
		rc = -1;
	} else if (!memory) {
		rc = reserve_space(file, where, e);
	}
	if (rc < 0) {
		/* Undone, so that an existing file is left as it was: the space
		 * given back also brings HDF5's end of file back to what the disk
		 * holds. */
		H5Dclose(d);
		h5io_unlink(file, path);
		H5Fflush(file, H5F_SCOPE_LOCAL);
		H5Eclear2(H5E_DEFAULT);
		return -1;
	}
	return d;
}

hid_t h5io_dataset_create(hid_t file, const char *path, enum dtype dt,
			  const struct shape *shape, int nchunk, const int64_t *chunk,
			  const struct compression *compression, const void *fill, const char *where,
			  struct err *e)
{
	hid_t dcpl = h5io_dataset_plist();
	bool filtered = nchunk && compression && compression->on;
	if (nchunk) {
		hsize_t c[H5U_MAXDIM];
		for (int i = 0; i < nchunk; i++)
			c[i] = (hsize_t)chunk[i];
		H5Pset_chunk(dcpl, nchunk, c);
		if (filtered)
			filter_set(dcpl, compression);
	}
	/* Data on disk is all written before it is read; a file in memory is
	 * filled with zeros, which a result gathered from every rank's copy
	 * needs (exec.c). */
	bool memory = driver_of(file) == H5FD_CORE;
	H5Pset_fill_time(dcpl, memory ? H5D_FILL_TIME_ALLOC : H5D_FILL_TIME_NEVER);
	H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
	return create_dataset(file, path, dt, shape, dcpl, filtered, fill, where, e);
}

hid_t h5io_dataset_create_virtual(hid_t file, const char *path, enum dtype dt,
				  const struct shape *shape, hid_t dcpl, const void *fill,
				  const char *where, struct err *e)
{
	return create_dataset(file, path, dt, shape, dcpl, false, fill, where, e);
}

int h5io_dataset_chunks(hid_t d, int64_t *chunk)
{
	hid_t dcpl = H5Dget_create_plist(d);
	int n = 0;
	if (dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED) {
		hsize_t c[H5U_MAXDIM];
		n = H5Pget_chunk(dcpl, H5U_MAXDIM, c);
		for (int i = 0; i < n; i++)
			chunk[i] = (int64_t)c[i];
		if (n < 0)
			n = 0;
	}
	if (dcpl >= 0)
		H5Pclose(dcpl);
	return n;
}

bool h5io_dataset_filtered(hid_t d)
{
	hid_t dcpl = H5Dget_create_plist(d);
	bool filtered = dcpl >= 0 && H5Pget_nfilters(dcpl) > 0;
	if (dcpl >= 0)
		H5Pclose(dcpl);
	return filtered;
}

void h5io_dataset_close(hid_t d)
{
	if (d < 0)
		return;
	for (int i = 0; i < DRIVERS; i++)
		if (drivers[i].d == d)
			drivers[i].d = 0;
	h5io_extent_forget(d);
	h5io_unwritten_forget(d);
	H5Dclose(d);
}

void h5io_unlink(hid_t file, const char *path)
{
	iostat.h5_metadata++;
	H5Ldelete(file, path, H5P_DEFAULT);
	H5Eclear2(H5E_DEFAULT);
}

int h5io_move(hid_t file, const char *from, const char *to, const char *where, struct err *e)
{
	iostat.h5_metadata++;
	if (H5Lmove(file, from, file, to, H5P_DEFAULT, H5P_DEFAULT) < 0) {
		H5Eclear2(H5E_DEFAULT);
		return err_set(e, EXIT_RUN, where, "cannot move the new dataset into place from '%s'", from);
	}
	return 0;
}

/* ---- boxes: hyperslabs read and written -------------------------------- */

/* Select the box START/COUNT of D in a file space, and a matching memory
 * space; an empty selection when there is nothing to move.  For a 0-d
 * dataset COUNT[0] is 1 (the element) or 0 (nothing). */
static void select_box(hid_t d, const struct shape *shape, const int64_t *start,
		       const int64_t *step, const int64_t *count, hid_t *fspace, hid_t *mspace)
{
	*fspace = H5Dget_space(d);
	int64_t n = shape->ndim ? 1 : count[0];   /* a 0-d box: count[0] is 0 or 1 */
	for (int i = 0; i < shape->ndim; i++)
		n *= count[i];
	if (n == 0) {
		hsize_t one = 1;
		H5Sselect_none(*fspace);
		*mspace = H5Screate_simple(1, &one, NULL);
		H5Sselect_none(*mspace);
		return;
	}
	if (shape->ndim == 0) {
		*mspace = H5Screate(H5S_SCALAR);
		return;
	}
	hsize_t st[H5U_MAXDIM], stride[H5U_MAXDIM], cnt[H5U_MAXDIM];
	for (int i = 0; i < shape->ndim; i++) {
		st[i] = (hsize_t)start[i];
		stride[i] = step ? (hsize_t)step[i] : 1;
		cnt[i] = (hsize_t)count[i];
	}
	H5Sselect_hyperslab(*fspace, H5S_SELECT_SET, st, stride, cnt, NULL);
	*mspace = H5Screate_simple(shape->ndim, cnt, NULL);
}

/* A fault injected for the tests: H5UFUNC_FAULT=read:RANK:N (or
 * write:RANK:N) makes the Nth read (write) of rows or boxes on rank RANK
 * fail after the collective transfer has completed on every rank, as a
 * failure HDF5 reports on that rank alone would.  Is this call the one? */
static bool fault_due(bool write)
{
	static int calls[2];
	const char *spec = getenv("H5UFUNC_FAULT");
	if (!spec || !*spec)
		return false;
	int n = ++calls[write];
	char kind[8];
	int rank, nth;
	if (sscanf(spec, "%7[a-z]:%d:%d", kind, &rank, &nth) != 3)
		return false;
	return !strcmp(kind, write ? "write" : "read") && rank == comm_rank() && nth == n;
}

/* The box START/STEP/COUNT of D as whole chunks, unfiltered and stored
 * as DT, stacked along one axis (one chunk thick along the others, and
 * of extent 1 before it), on one process: each chunk then lies whole in
 * BUF, and moves as its bytes by one call (H5Dread_chunk,
 * H5Dwrite_chunk), without HDF5's selections or a copy through its
 * chunk cache, which hold the chunk's cached copy coherent.  1: moved;
 * 0: not such a box, or a chunk that cannot be read so (not yet
 * stored): the caller moves it; a negative value: a write failed. */
static herr_t move_chunks(bool write, hid_t d, const struct shape *shape, enum dtype dt,
			  const int64_t *start, const int64_t *step, const int64_t *count, void *buf)
{
	int n = shape->ndim, a = 0;
	const hsize_t *chunk = n > 0 && !comm_mpi() ? h5io_plain_chunks(d, n, dt) : NULL;
	if (!chunk)
		return 0;
	while (a < n - 1 && count[a] == 1 && chunk[a] == 1)
		a++;
	size_t bytes = (size_t)dtype_size(dt);
	for (int i = 0; i < n; i++) {
		bool whole = i == a ? count[i] > 0 && count[i] % (int64_t)chunk[i] == 0
				    : count[i] == (int64_t)chunk[i];
		if (!whole || start[i] % (int64_t)chunk[i] || (step && count[i] > 1 && step[i] != 1))
			return 0;
		bytes *= chunk[i];
	}
	hsize_t offset[H5U_MAXDIM];
	for (int i = 0; i < n; i++)
		offset[i] = (hsize_t)start[i];
	for (int64_t j = 0; j < count[a] / (int64_t)chunk[a]; j++, offset[a] += chunk[a]) {
		char *at = (char *)buf + (size_t)j * bytes;
		uint32_t filters = 0;
		if (write && H5Dwrite_chunk(d, H5P_DEFAULT, 0, offset, bytes, at) < 0)
			return -1;
		if (!write && H5Dread_chunk(d, H5P_DEFAULT, offset, &filters, at) < 0) {
			H5Eclear2(H5E_DEFAULT);
			return 0;
		}
	}
	return 1;
}

static int transfer(bool write, hid_t d, const struct shape *shape, enum dtype dt,
		    const int64_t *start, const int64_t *step, const int64_t *count, void *buf,
		    const char *where, struct err *e)
{
	hid_t fspace = -1, mspace = -1, dxpl = -1;
	herr_t r = move_chunks(write, d, shape, dt, start, step, count, buf);
	if (r == 0) {
		select_box(d, shape, start, step, count, &fspace, &mspace);
		if (H5Sget_simple_extent_npoints(fspace) == 0) {
			/* A dataset of no elements has no storage to move (every
			 * rank sees the same extent, so every rank skips alike). */
			h5io_close_ids(2, (hid_t[]){ mspace, fspace });
			return 0;
		}
		dxpl = H5Pcreate(H5P_DATASET_XFER);
		/* reads of chunks never written go independently (h5io_unwritten.c) */
		if (comm_mpi() && dataset_driver(d) == H5FD_MPIO &&
		    (write || !h5io_unwritten_noted(d)))
			H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
		r = write ? H5Dwrite(d, h5io_mem_type(dt), mspace, fspace, dxpl, buf)
			  : H5Dread(d, h5io_mem_type(dt), mspace, fspace, dxpl, buf);
	}
	if (write)
		iostat.h5_writes++;
	else
		iostat.h5_reads++;
	hid_t stack = r < 0 ? H5Eget_current_stack() : -1;
	h5io_close_ids(3, (hid_t[]){ dxpl, mspace, fspace });
	if (r < 0) {
		err_set(e, EXIT_RUN, where, "%s failed", write ? "write" : "read");
		h5io_fold_stack(e, stack);
		return -1;
	}
	if (fault_due(write)) {
		err_set(e, EXIT_RUN, where, "%s failed (H5UFUNC_FAULT)", write ? "write" : "read");
		return -1;
	}
	return 0;
}

int h5io_read_box(hid_t d, const struct shape *shape, enum dtype dt,
		  const int64_t *start, const int64_t *step, const int64_t *count,
		  void *buf, const char *where, struct err *e)
{
	return transfer(false, d, shape, dt, start, step, count, buf, where, e);
}

int h5io_write_box(hid_t d, const struct shape *shape, enum dtype dt,
		   const int64_t *start, const int64_t *step, const int64_t *count,
		   const void *buf, const char *where, struct err *e)
{
	return transfer(true, d, shape, dt, start, step, count, (void *)buf, where, e);
}
