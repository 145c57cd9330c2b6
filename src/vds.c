/* vds.c - a new output as a virtual dataset over one file per rank (vds.h):
 * the shares as hyperslab unions, the sources, the mappings, and the
 * sources' temporary names, renames and removal. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "comm.h"
#include "h5io.h"
#include "tmpfiles.h"
#include "vds.h"

#define VDS_MAX 64   /* virtual datasets, and source files, of a run on a rank */

/* A source file of this rank: one per output file, shared by the virtual
 * datasets of that file. */
struct source {
	char tmp[2 * PATH_MAX];    /* its temporary name, while it has one */
	char name[2 * PATH_MAX];   /* its name */
	hid_t id;                  /* open, else -1 */
	bool linked;               /* under NAME now (and TMP, till vds_finish) */
};

struct vds {
	struct source *src;
	hid_t d;                   /* the source dataset ... */
	struct shape shape;        /* ... of the rows the share touches, ... */
	int64_t row0;              /* ... from this row of the output on */
};

static struct source sources[VDS_MAX];
static int nsources;
static struct vds datasets[VDS_MAX];
static int ndatasets;

/* ---- a share: a flat run of elements in C order, as hyperslabs --------- */

/* The next hyperslab of the flat run [LO, HI) over DIM (NDIM axes): the
 * largest one that starts at LO, as START/COUNT.  Returns its elements. */
static int64_t next_slab(int ndim, const int64_t *dim, int64_t lo, int64_t hi, hsize_t *start,
			 hsize_t *count)
{
	int j = ndim - 1;
	int64_t unit = 1;
	while (j > 0 && lo % (unit * dim[j]) == 0 && hi - lo >= unit * dim[j])
		unit *= dim[j--];
	int64_t at = lo / unit, n = dim[j] - at % dim[j];
	if (n > (hi - lo) / unit)
		n = (hi - lo) / unit;
	int64_t rest = lo;
	for (int i = ndim - 1; i >= 0; i--) {
		start[i] = (hsize_t)(rest % dim[i]);
		rest /= dim[i];
		count[i] = i < j ? 1 : i == j ? (hsize_t)n : (hsize_t)dim[i];
	}
	return n * unit;
}

/* Select the run [LO, HI) over SHAPE in the space of extents DIM (SHAPE's,
 * or a source's: rows from ROW0 on), as a union of hyperslabs. */
static hid_t run_space(const struct shape *shape, const int64_t *dim, int64_t lo, int64_t hi,
		       int64_t row0)
{
	hsize_t d[H5U_MAXDIM], start[H5U_MAXDIM], count[H5U_MAXDIM];
	for (int i = 0; i < shape->ndim; i++)
		d[i] = (hsize_t)dim[i];
	hid_t space = H5Screate_simple(shape->ndim, d, NULL);
	H5Sselect_none(space);
	while (lo < hi) {
		int64_t n = next_slab(shape->ndim, shape->dim, lo, hi, start, count);
		start[0] -= (hsize_t)row0;
		H5Sselect_hyperslab(space, H5S_SELECT_OR, start, NULL, count, NULL);
		lo += n;
	}
	return space;
}

/* Rank R's share of SPEC: the flat run [*LO, *HI), and the rows it touches,
 * [*ROW0, *ROW1).  False when it has none (no rank has one of an empty
 * output, whichever of its axes is empty). */
static bool share_of(const struct vds_spec *spec, int r, int64_t *lo, int64_t *hi, int64_t *row0,
		     int64_t *row1)
{
	int64_t first, count, size = shape_size(spec->shape);
	dist_layout_share(spec->l, r, &first, &count);
	if (size == 0)
		count = 0;
	*lo = first * spec->l->line;
	*hi = (first + count) * spec->l->line;
	int64_t row = count ? size / spec->shape->dim[0] : 1;
	*row0 = count ? *lo / row : 0;
	*row1 = count ? (*hi - 1) / row + 1 : 0;
	return count > 0;
}

/* ---- this rank's source ----------------------------------------------- */

/* This rank's source of the output file SPEC names: opened, or created
 * under a temporary name (held as this run's).  NULL with E set. */
static struct source *source_open(const struct vds_spec *spec, const char *where, struct err *e)
{
	char base[PATH_MAX];
	if (tmpfiles_part_name(base, sizeof base, spec->base, comm_rank()) < 0) {
		err_set(e, EXIT_RUN, where, "the name of its source file is too long");
		return NULL;
	}
	char name[2 * PATH_MAX];
	snprintf(name, sizeof name, "%s/%s", spec->dir, base);
	for (int i = 0; i < nsources; i++)
		if (!strcmp(sources[i].name, name))
			return &sources[i];
	if (nsources == VDS_MAX) {
		err_set(e, EXIT_RUN, where, "too many virtual datasets (at most %d)", VDS_MAX);
		return NULL;
	}
	struct source *s = &sources[nsources];
	snprintf(s->name, sizeof s->name, "%s", name);
	tmpfiles_name(s->tmp, sizeof s->tmp, spec->dir, base, spec->token);
	s->linked = false;
	s->id = h5io_create_alone(s->tmp, where, e);
	if (s->id < 0)
		return NULL;
	nsources++;
	if (tmpfiles_guard(s->tmp, true) < 0) {
		err_set(e, EXIT_RUN, where, "cannot hold its source file '%s'", s->tmp);
		return NULL;
	}
	return s;
}

/* This rank's source dataset X of SPEC: the rows from X's ROW0 to ROW1 of
 * the output, chunked and compressed as asked (chunks cut to its extents). */
static hid_t source_dataset(struct vds *x, const struct vds_spec *spec, int64_t row1,
			    const char *where, struct err *e)
{
	x->shape = *spec->shape;
	x->shape.dim[0] = row1 - x->row0;
	int64_t chunk[H5U_MAXDIM];
	for (int i = 0; i < spec->nchunk; i++)
		chunk[i] = spec->chunk[i] < x->shape.dim[i] ? spec->chunk[i] : x->shape.dim[i];
	return h5io_dataset_create(x->src->id, spec->path, spec->dt, &x->shape, spec->nchunk, chunk, 0,
				   spec->compression, spec->fill, where, e);
}

/* TEXT into OUT (LEN bytes) as a mapping names a file or dataset: HDF5
 * reads "%b" in them as a block number, so every '%' is doubled. */
static int escaped(char *out, size_t len, const char *text)
{
	size_t n = 0;
	for (; *text && n + 2 < len; text++) {
		if (*text == '%')
			out[n++] = '%';
		out[n++] = *text;
	}
	out[n] = '\0';
	return *text ? -1 : 0;
}

/* The mappings of every rank with work, made on every rank alike.  The
 * layout is virtual when no rank has work too (an empty output): a
 * virtual dataset without mappings, which reads as NumPy's empty array. */
static hid_t mappings(const struct vds_spec *spec)
{
	hid_t dcpl = h5io_dataset_plist();
	H5Pset_layout(dcpl, H5D_VIRTUAL);
	char path[2 * PATH_MAX];
	escaped(path, sizeof path, spec->path);
	for (int r = 0; r < spec->l->nranks; r++) {
		int64_t lo, hi, row0, row1;
		char name[PATH_MAX], base[2 * PATH_MAX];
		if (!share_of(spec, r, &lo, &hi, &row0, &row1) ||
		    tmpfiles_part_name(name, sizeof name, spec->base, r) < 0 ||
		    escaped(base, sizeof base, name) < 0)
			continue;
		int64_t sdim[H5U_MAXDIM];
		memcpy(sdim, spec->shape->dim, sizeof sdim);
		sdim[0] = row1 - row0;
		hid_t vspace = run_space(spec->shape, spec->shape->dim, lo, hi, 0);
		hid_t sspace = run_space(spec->shape, sdim, lo, hi, row0);
		H5Pset_virtual(dcpl, vspace, base, path, sspace);
		h5io_close_ids(2, (hid_t[]){ vspace, sspace });
	}
	return dcpl;
}

hid_t vds_create(hid_t file, const struct vds_spec *spec, struct vds **v, const char *where,
		 struct err *e)
{
	*v = NULL;
	int64_t lo, hi, row0, row1;
	if (ndatasets == VDS_MAX) {
		err_set(e, EXIT_RUN, where, "too many virtual datasets (at most %d)", VDS_MAX);
	} else if (share_of(spec, comm_rank(), &lo, &hi, &row0, &row1)) {
		struct vds *x = &datasets[ndatasets];
		x->row0 = row0;
		x->src = source_open(spec, where, e);
		x->d = x->src ? source_dataset(x, spec, row1, where, e) : -1;
		if (x->d >= 0) {
			ndatasets++;
			*v = x;
		}
	}
	if (comm_agree(e) < 0)
		return -1;
	return h5io_dataset_create_virtual(file, spec->path, spec->dt, spec->shape, mappings(spec),
					   spec->fill, where, e);
}

int vds_box_io(struct vds *v, bool write, enum dtype dt, const int64_t *start, const int64_t *step,
	       const int64_t *count, void *buf, const char *where, struct err *e)
{
	if (!v)
		return 0;   /* a rank without a share: every box of it is empty */
	int64_t s[H5U_MAXDIM];
	memcpy(s, start, sizeof s[0] * (size_t)v->shape.ndim);
	s[0] -= v->row0;
	return write ? h5io_write_box(v->d, &v->shape, dt, s, step, count, buf, where, e)
		     : h5io_read_box(v->d, &v->shape, dt, s, step, count, buf, where, e);
}

void vds_close_all(void)
{
	for (int i = 0; i < ndatasets; i++) {
		h5io_dataset_close(datasets[i].d);
		datasets[i].d = -1;
	}
	ndatasets = 0;
	for (int i = 0; i < nsources; i++) {
		h5io_close(sources[i].id);
		sources[i].id = -1;
	}
}

int vds_commit(struct err *e)
{
	for (int i = 0; i < nsources; i++) {
		struct source *s = &sources[i];
		if (s->linked)
			continue;
		bool linked = link(s->tmp, s->name) == 0;
		/* a file system without hard links: renamed, unguarded till the end */
		if (!linked && ((errno != EPERM && errno != ENOTSUP && errno != EMLINK) ||
				rename(s->tmp, s->name) != 0))
			return err_set(e, EXIT_RUN, s->name, "cannot move the source file into place");
		if (!linked)
			tmpfiles_forget(s->tmp);
		s->linked = true;
	}
	return 0;
}

void vds_finish(void)
{
	for (int i = 0; i < nsources; i++) {
		tmpfiles_forget(sources[i].tmp);
		unlink(sources[i].tmp);
	}
	nsources = 0;
}

void vds_discard(void)
{
	vds_close_all();
	for (int i = 0; i < nsources; i++) {
		struct source *s = &sources[i];
		if (s->linked)
			unlink(s->name);
		unlink(s->tmp);
		tmpfiles_forget(s->tmp);
	}
	nsources = 0;
}
