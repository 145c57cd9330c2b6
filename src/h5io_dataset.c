/* h5io_dataset.c - datasets opened, created and closed, and the record
 * h5io keeps of each open one; see h5io.h.
 *
 * The record (h5io_internal.h, struct h5io_record) is made where a
 * dataset is opened or created and dropped where it is closed
 * (h5io_dataset_close): its file's driver, whether its reads go
 * independently, and what its creation properties, dataspace and type say
 * of its storage (layout, shape, chunks, filters, the type stored) are
 * facts of the open, asked of HDF5 once, there, on every rank alike
 * (asking the driver is collective under MPI-IO), and read from the
 * record after (the chunk cache's size, h5io_extent.c's layouts,
 * h5io_dataset_chunks); what h5io_extent.c learns of its storage hangs
 * from it until the close.
 * Not here: files (h5io.c), boxes (h5io_box.c), which chunks were never
 * written (h5io_unwritten.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "comm.h"
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
 * crossing its chunks: raw caches hold those (chunk_row_bytes) up to
 * this, so each is read once, not once a row (--memory 4K, (1024, 1024)
 * float64 in (256, 64) chunks: a quarter of the CPU); wider rows cycle. */
#define CHUNK_CACHE_ROW ((size_t)4 << 20)

/* The file driver of the file that holds OBJ: H5FD_MPIO when it is shared
 * by the ranks through MPI-IO, H5FD_CORE when in this process's memory.
 * (Under MPI, asking duplicates the file's communicator, collectively:
 * a dataset's record keeps the answer from its open to its close.) */
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

/* ---- records: what h5io keeps of each open dataset ---------------------- */

static struct h5io_record **records;   /* the open datasets', in no order */
static int nrecords, records_cap;

struct h5io_record *h5io_record_of(hid_t d)
{
	for (int i = 0; i < nrecords; i++)
		if (records[i]->d == d)
			return records[i];
	return NULL;
}

/* What HDF5 says of dataset D's storage, into S: its creation property
 * list, dataspace and type asked once. */
static void storage_learn(hid_t d, struct h5io_storage *s)
{
	hid_t dcpl = H5Dget_create_plist(d), space = H5Dget_space(d), type = H5Dget_type(d);
	*s = (struct h5io_storage){ .layout = H5D_LAYOUT_ERROR, .ndim = -1, .as_stored = DT_NONE };
	int ndim = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
	if (ndim >= 0 && ndim <= H5U_MAXDIM && H5Sget_simple_extent_dims(space, s->dim, NULL) == ndim)
		s->ndim = ndim;
	if (dcpl >= 0) {
		s->layout = H5Pget_layout(dcpl);
		s->nfilters = H5Pget_nfilters(dcpl);
	}
	if (s->layout == H5D_CHUNKED && (s->ndim < 0 || H5Pget_chunk(dcpl, H5U_MAXDIM, s->chunk) != s->ndim))
		s->layout = H5D_LAYOUT_ERROR;
	if (type >= 0) {
		char name[64];
		enum dtype dt = h5io_type_dtype(type, name, sizeof name);
		s->esize = H5Tget_size(type);
		s->as_stored = dt != DT_NONE && H5Tequal(type, h5io_mem_type(dt)) > 0 ? dt : DT_NONE;
		s->swapped = dt != DT_NONE && h5io_type_swapped(type);
	}
	h5io_close_ids(3, (hid_t[]){ dcpl, space, type });
	H5Eclear2(H5E_DEFAULT);
}

/* The record of D, just opened or created in a file of DRIVER, with its
 * storage S, made. */
static struct h5io_record *record_make(hid_t d, hid_t driver, const struct h5io_storage *s)
{
	if (nrecords == records_cap) {
		int more = records_cap ? 2 * records_cap : 16;
		struct h5io_record **grown = realloc(records, (size_t)more * sizeof *grown);
		if (!grown)
			abort();   /* a few bytes: as every other allocation of h5io */
		records = grown;
		records_cap = more;
	}
	struct h5io_record *r = malloc(sizeof *r);
	if (!r)
		abort();
	*r = (struct h5io_record){ .d = d, .driver = driver, .read_alone = false,
				   .masks = H5IO_MASKS_NONE, .storage = *s,
				   .layout = NULL };
	records[nrecords++] = r;
	return r;
}

/* D is being closed: its record, and what hangs from it, dropped. */
static void record_drop(hid_t d)
{
	for (int i = 0; i < nrecords; i++)
		if (records[i]->d == d) {
			h5io_layout_free(records[i]->layout);
			free(records[i]);
			records[i] = records[--nrecords];
			return;
		}
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

/* Bytes of the chunks a row along the last axis of a dataset stored as S
 * crosses, and of one more: what a chunk cache holds so that boxes
 * cutting its chunk rows read each chunk once (0 when not chunked). */
static size_t chunk_row_bytes(const struct h5io_storage *s)
{
	int n = s->ndim;
	if (s->layout != H5D_CHUNKED || n <= 0)
		return 0;
	size_t bytes = s->esize * ((s->dim[n - 1] + s->chunk[n - 1] - 1) / s->chunk[n - 1] + 1);
	for (int i = 0; i < n; i++)
		bytes *= s->chunk[i];
	return bytes;
}

bool h5io_record_overflows_cache(const struct h5io_record *rec)
{
	return rec->storage.nfilters == 0 && chunk_row_bytes(&rec->storage) > CHUNK_CACHE_ROW;
}

size_t h5io_chunk_row_bytes(int ndim, const int64_t *dim, const int64_t *chunk, size_t esize)
{
	struct h5io_storage s = { .layout = H5D_CHUNKED, .ndim = ndim, .esize = esize };
	if (ndim <= 0 || ndim > H5U_MAXDIM)
		return 0;
	for (int i = 0; i < ndim; i++) {
		if (chunk[i] <= 0)
			return 0;
		s.dim[i] = (hsize_t)dim[i];
		s.chunk[i] = (hsize_t)chunk[i];
	}
	return chunk_row_bytes(&s);
}

bool h5io_row_overflows_cache(int ndim, const int64_t *dim, const int64_t *chunk, size_t esize)
{
	return h5io_chunk_row_bytes(ndim, dim, chunk, esize) > CHUNK_CACHE_ROW;
}

/* D, dataset PATH of FILE, again through a handle of this process alone
 * when it is VIRTUAL and FILE is shared under MPI-IO: HDF5 1.10 reads no
 * virtual dataset through MPI-IO (and would open its sources with it,
 * collectively, on the ranks whose boxes meet them only).  Its reads are
 * then independent; the file stays open while the dataset is. */
static hid_t alone_if_virtual(hid_t file, const char *path, hid_t d, bool virtual, hid_t dapl)
{
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

/* Dataset PATH of FILE, opened with its record, and MISSING as
 * dataset_filters says; a raw chunked one's cache holds ROW bytes when
 * that is more than it would (h5io_dataset_open_cached); errors
 * (EXIT_USAGE) name DISPLAY. */
static hid_t open_dataset(hid_t file, const char *path, size_t row, const char *where,
			  const char *display, char *missing, size_t len, struct err *e)
{
	hid_t dapl = dataset_access(CHUNK_CACHE_RAW);
	struct h5io_storage s;
	iostat.h5_metadata++;
	hid_t d = H5Dopen2(file, path, dapl);
	if (d >= 0) {
		storage_learn(d, &s);
		d = alone_if_virtual(file, path, d, s.layout == H5D_VIRTUAL, dapl);
	}
	H5Pclose(dapl);
	size_t cache = d < 0 ? 0 : chunk_row_bytes(&s);
	cache = cache < CHUNK_CACHE_ROW ? cache : CHUNK_CACHE_ROW;
	cache = d >= 0 && s.layout == H5D_CHUNKED && row > cache ? row : cache;
	*missing = '\0';
	cache = d >= 0 && s.nfilters > 0 && dataset_filters(d, missing, len) > 0 ? CHUNK_CACHE_FILTERED
										   : cache;
	if (cache > CHUNK_CACHE_RAW) {
		/* The cache is fixed when a dataset is opened: open it again (its
		 * header is in HDF5's metadata cache by now). */
		H5Dclose(d);
		dapl = dataset_access(cache);
		d = H5Dopen2(file, path, dapl);
		H5Pclose(dapl);
	}
	if (d >= 0) {
		hid_t driver = driver_of(d);
		struct h5io_record *r = record_make(d, driver, &s);
		r->masks = driver == H5FD_MPIO ? h5io_masks_read(d) : H5IO_MASKS_NONE;
		r->read_alone = h5io_unwritten_read_alone(r);
	} else {
		err_set(e, EXIT_USAGE, where, "cannot open dataset '%s'", display);
		h5io_fold_stack(e, H5Eget_current_stack());
	}
	return d;
}

void h5io_dataset_direct(hid_t d)
{
	struct h5io_record *r = h5io_record_of(d);
	if (r && r->driver == H5FD_MPIO)
		h5io_direct_prepare(r);
}

void h5io_dataset_in_place(hid_t d)
{
	struct h5io_record *r = h5io_record_of(d);
	if (r)
		h5io_in_place_prepare(r);
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
	return h5io_dataset_open_cached(file, path, 0, shape, dt, where, display, e);
}

hid_t h5io_dataset_open_cached(hid_t file, const char *path, size_t row, struct shape *shape,
			       enum dtype *dt, const char *where, const char *display,
			       struct err *e)
{
	char filter[512] = "";
	hid_t d = open_dataset(file, path, row, where, display, filter, sizeof filter, e);
	if (d < 0)
		return -1;
	hid_t t = H5Dget_type(d), s = H5Dget_space(d);
	char tname[64] = "";
	*dt = h5io_type_dtype(t, tname, sizeof tname);
	if (*filter) {
		H5Tclose(t);
		H5Sclose(s);
		h5io_dataset_close(d);
		return err_set(e, EXIT_USAGE, where, "'%s' is stored with %s", display, filter);
	}
	H5S_class_t sclass = H5Sget_simple_extent_type(s);
	int ndim = H5Sget_simple_extent_ndims(s);
	hsize_t dims[H5S_MAX_RANK];
	H5Sget_simple_extent_dims(s, dims, NULL);
	H5Tclose(t);
	H5Sclose(s);
	if (*dt == DT_NONE) {
		h5io_dataset_close(d);
		return err_set(e, EXIT_USAGE, where, "'%s' has unsupported type (%s)", display, tname);
	}
	if (sclass == H5S_NULL || ndim < 0 || ndim > H5U_MAXDIM) {
		h5io_dataset_close(d);
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
 * shared; filesystems without fallocate are left as they are.  Collective
 * when SHARED (FILE's driver is MPI-IO), else this process's alone.  A
 * refusal (no space, quota, file size limit) is an error. */
static int reserve_space(hid_t file, bool shared, const char *where, struct err *e)
{
	int failure = 0;
	unsigned long long size = 0;
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

/* Create PATH in FILE, of DRIVER, of DT and SHAPE with the creation
 * properties DCPL (closed here), its chunks cached as FILTERED says, with
 * FILL as its fill value and _FillValue (a bool's only as its fill value:
 * netCDF readers would read every False as missing); its metadata
 * written, the file's space reserved and its record made.  Collective in
 * a file shared under MPI-IO. */
static hid_t create_dataset(hid_t file, hid_t driver, const char *path, enum dtype dt,
			    const struct shape *shape, unsigned grows, hid_t dcpl, bool filtered,
			    const void *fill, const char *where, struct err *e)
{
	hsize_t dims[H5U_MAXDIM], max[H5U_MAXDIM];
	for (int i = 0; i < shape->ndim; i++) {
		dims[i] = (hsize_t)shape->dim[i];
		max[i] = grows >> i & 1 ? H5S_UNLIMITED : dims[i];
	}
	bool memory = driver == H5FD_CORE;
	if (fill && !memory)
		H5Pset_fill_value(dcpl, h5io_mem_type(dt), fill);
	hid_t space = shape->ndim ? H5Screate_simple(shape->ndim, dims, max) : H5Screate(H5S_SCALAR);
	hid_t dapl = dataset_access(filtered ? CHUNK_CACHE_FILTERED : CHUNK_CACHE_RAW);
	iostat.h5_metadata++;
	hid_t type = h5io_parents(file, path, where, e) < 0 ? -1 : h5io_file_type(file, path, dt);
	hid_t d = type < 0 ? -1 : H5Dcreate2(file, path, type, space, H5P_DEFAULT, dcpl, dapl);
	hid_t stack = d < 0 && !e->status ? H5Eget_current_stack() : -1;
	h5io_close_ids(4, (hid_t[]){ dapl, dcpl, space, type });
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
	if (fill && !memory && dt != DT_BOOL && h5attr_write_number(d, "_FillValue", dt, fill) < 0) {
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
		rc = reserve_space(file, driver == H5FD_MPIO, where, e);
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
	struct h5io_storage s;
	storage_learn(d, &s);
	record_make(d, driver, &s);
	return d;
}

hid_t h5io_dataset_create(hid_t file, const char *path, enum dtype dt,
			  const struct shape *shape, int nchunk, const int64_t *chunk, unsigned grows,
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
	hid_t driver = driver_of(file);
	H5Pset_fill_time(dcpl, driver == H5FD_CORE ? H5D_FILL_TIME_ALLOC : H5D_FILL_TIME_NEVER);
	H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
	return create_dataset(file, driver, path, dt, shape, nchunk ? grows : 0, dcpl, filtered, fill,
			      where, e);
}

hid_t h5io_dataset_create_virtual(hid_t file, const char *path, enum dtype dt,
				  const struct shape *shape, hid_t dcpl, const void *fill,
				  const char *where, struct err *e)
{
	return create_dataset(file, driver_of(file), path, dt, shape, 0, dcpl, false, fill, where, e);
}

/* What D's storage is: its record's, or (without one) learned into OWN. */
static const struct h5io_storage *storage_of(hid_t d, struct h5io_storage *own)
{
	struct h5io_record *r = h5io_record_of(d);
	if (r)
		return &r->storage;
	storage_learn(d, own);
	return own;
}

int h5io_dataset_chunks(hid_t d, int64_t *chunk)
{
	struct h5io_storage own;
	const struct h5io_storage *s = storage_of(d, &own);
	if (s->layout != H5D_CHUNKED)
		return 0;
	for (int i = 0; i < s->ndim; i++)
		chunk[i] = (int64_t)s->chunk[i];
	return s->ndim;
}

bool h5io_dataset_filtered(hid_t d)
{
	struct h5io_storage own;
	return storage_of(d, &own)->nfilters > 0;
}

bool h5io_dataset_swapped(hid_t d)
{
	struct h5io_storage own;
	return storage_of(d, &own)->swapped;
}

bool h5io_dataset_compact(hid_t d)
{
	hid_t dcpl = H5Dget_create_plist(d);
	bool compact = dcpl >= 0 && H5Pget_layout(dcpl) == H5D_COMPACT;
	if (dcpl >= 0)
		H5Pclose(dcpl);
	return compact;
}

bool h5io_dataset_btree(hid_t d)
{
	H5D_chunk_index_t idx;
	if (H5Dget_chunk_index_type(d, &idx) < 0) {
		H5Eclear2(H5E_DEFAULT);
		return false;
	}
	return idx == H5D_CHUNK_IDX_BTREE;
}

void h5io_dataset_close(hid_t d)
{
	if (d < 0)
		return;
	record_drop(d);
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

