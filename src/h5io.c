/* h5io.c - the HDF5 boundary, serial or MPI-IO, as far as files; see h5io.h.
 *
 * What it holds, in sections marked "---- NAME" in this order: set-up
 * (MPI-IO hints, HDF5's own state); errors (HDF5 error stacks folded into
 * the error record); files (access properties, open, create, in memory,
 * close, probe; netCDF-4's creation order for files, groups, datasets).
 * Not here: datasets, opened, created and closed with the record h5io
 * keeps of each open one (h5io_dataset.c); boxes read and written
 * (h5io_box.c); HDF5 types as dtypes (h5io_types.c); attributes, the
 * `history` one included (h5attr.c).  What these files share is in
 * h5io_internal.h.
 */
#include <errno.h>
#include <hdf5_hl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "comm.h"
#include "deflate.h"
#include "filter.h"
#include "h5io.h"
#include "h5io_internal.h"
#include "iostat.h"

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
		err_hint(e, " (HDF5: %s)", line);
	}
	/* HDF5 locks a file it opens without MPI-IO (flock).  Held by another
	 * process, the lock fails with EWOULDBLOCK; on some Lustre and NFS
	 * mounts locking itself fails (ENOLCK, ENOSYS, ...), and only turning
	 * HDF5's locking off lets the file be opened. */
	if (strstr(desc, "unable to lock file") && strstr(desc, strerror(EWOULDBLOCK)))
		err_hint(e, "; the file is in use by another process "
			 "(HDF5_USE_FILE_LOCKING=FALSE turns HDF5's file locking off)");
	else if (strstr(desc, "unable to lock file"))
		err_hint(e, "; this file system does not support file locking, as some Lustre "
			 "and NFS mounts do not: set HDF5_USE_FILE_LOCKING=FALSE");
}

/* ---- files ------------------------------------------------------------- */

/* The value --mpi-info gave KEY, or NULL. */
static const char *hint_given(const char *key)
{
	for (int i = 0; i < nhints; i++)
		if (!strcmp(hint_key[i], key))
			return hint_value[i];
	return NULL;
}

/* The stripe size given as --mpi-info striping_unit=BYTES, or 0. */
static unsigned long long striping_unit(void)
{
	const char *v = hint_given("striping_unit");
	if (!v)
		return 0;
	char *end;
	errno = 0;
	unsigned long long unit = strtoull(v, &end, 10);
	return errno || end == v || *end || *v == '-' ? 0 : unit;
}

/* Objects of at least this many bytes start on a stripe boundary when the
 * stripe size is known (HDF5's metadata blocks, 2 KiB, stay packed). */
#define ALIGN_THRESHOLD ((unsigned long long)64 << 10)

/* Access through MPI-IO when MPI runs and SHARED, else HDF5's default
 * driver (a file this process has alone).  RUNS: every rank's raw writes
 * into the file are runs of it, one a call (h5io_open_runs), so ROMIO's
 * data sieving of writes, unless --mpi-info asks for it, is off: it would
 * serve only HDF5's metadata, whose pieces it joins into one 512 KiB
 * read-modify-write around whatever lies between them. */
static hid_t file_access(bool shared, bool runs)
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
		bool unsieved = runs && !hint_given("romio_ds_write");
		if (nhints || unsieved) {
			MPI_Info_create(&info);
			for (int i = 0; i < nhints; i++)
				MPI_Info_set(info, hint_key[i], hint_value[i]);
			if (unsieved)
				MPI_Info_set(info, "romio_ds_write", "disable");
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

int h5io_check_file(const char *path, const char *where, struct err *e)
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
	return 0;
}

/* Open PATH, read-only unless WRITE, through MPI-IO when SHARED (and MPI
 * runs), else for this process alone, its writes RUNS as file_access
 * says; errors as h5io_open says. */
static hid_t open_file(const char *path, bool write, bool shared, bool runs, const char *where,
		       struct err *e)
{
	if (h5io_check_file(path, where, e) < 0)
		return -1;
	hid_t fapl = file_access(shared, runs);
	/* A file each rank reads alone is not locked, as MPI-IO locks none: a
	 * file system without locks (some Lustre and NFS mounts) serves such
	 * a run as before. */
	if (comm_mpi() && !shared)
		H5Pset_file_locking(fapl, false, true);
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

hid_t h5io_open(const char *path, bool write, const char *where, struct err *e)
{
	return open_file(path, write, true, false, where, e);
}

hid_t h5io_open_runs(const char *path, const char *where, struct err *e)
{
	return open_file(path, true, true, true, where, e);
}

hid_t h5io_open_reader(const char *path, const char *where, struct err *e)
{
	return open_file(path, false, false, false, where, e);
}

static hid_t create(const char *path, bool private, bool shared, const char *where, struct err *e)
{
	hid_t fapl = file_access(shared, false);
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

enum h5io_object h5io_probe(hid_t file, const char *path, bool *scale)
{
	iostat.h5_metadata++;
	if (scale)
		*scale = false;
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
	/* Asked about scales, the object is opened once for both answers. */
	H5O_info_t info;
	hid_t o = scale ? H5Oopen(file, path, H5P_DEFAULT) : -1;
	herr_t got = !scale ? H5Oget_info_by_name(file, path, &info, H5P_DEFAULT)
		     : o >= 0 ? H5Oget_info(o, &info) : -1;
	if (got >= 0 && scale && info.type == H5O_TYPE_DATASET)
		*scale = H5DSis_scale(o) > 0;
	if (o >= 0)
		H5Oclose(o);
	H5Eclear2(H5E_DEFAULT);
	if (got < 0)
		return H5IO_NONE;
	return info.type == H5O_TYPE_DATASET ? H5IO_DATASET
	     : info.type == H5O_TYPE_GROUP ? H5IO_GROUP : H5IO_OTHER;
}

