/* coords.c - the names of a new dataset's axes written as netCDF-4 has
 * them.  See dims.h (dims_attach, dims_number).
 *
 * What it is: dimensions and coordinate variables found in the output file
 * or made there as netCDF-C resolves them (by name and length in the
 * enclosing groups), coordinate variables copied from the inputs, sliced,
 * reversed or taken at a reduceat's segment starts as the data was, with
 * their CF bounds and attributes; a found coordinate shared only where its
 * values are the axis's (else NAME_LENGTH); and netCDF-4's numbering of
 * the file's dimensions.  dims.c says what the names are.
 */
#include <hdf5_hl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dims.h"
#include "h5attr.h"
#include "h5io.h"
#include "select.h"

/* ---- writing: netCDF-4's dimensions and coordinate variables ------------ */

/* Attributes a copied coordinate must not take: the scale's own bookkeeping
 * (set again by H5DSset_scale and H5DSattach_scale) and netCDF-4's
 * numbering of dimensions in the file it came from. */
static bool own_attribute(const char *name)
{
	static const char *const skip[] = {
		"CLASS", "NAME", "REFERENCE_LIST", "DIMENSION_LIST", "_Netcdf4Dimid",
		"_Netcdf4Coordinates", NULL
	};
	for (int i = 0; skip[i]; i++)
		if (!strcmp(name, skip[i]))
			return true;
	return false;
}

static herr_t copy_attribute(hid_t src, const char *name, const H5A_info_t *info, void *data)
{
	(void)info;
	return own_attribute(name) ? 0 : h5attr_copy(src, name, *(hid_t *)data);
}

/* Copy the attributes of SRC onto DST in the order they were created
 * (netCDF's order), or by name where SRC does not track it. */
static int copy_attributes(hid_t src, hid_t dst)
{
	hsize_t at = 0;
	if (H5Aiterate2(src, H5_INDEX_CRT_ORDER, H5_ITER_INC, &at, copy_attribute, &dst) >= 0)
		return 0;
	H5Eclear2(H5E_DEFAULT);
	if (at > 0)
		return -1;   /* failed on the way, not for want of the order */
	return H5Aiterate2(src, H5_INDEX_NAME, H5_ITER_INC, NULL, copy_attribute, &dst) < 0 ? -1 : 0;
}

/* The group that holds PATH ("/a/b/c" -> "/a/b"; "/c" -> "/") into BUF. */
static void group_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	int n = slash && slash > path ? (int)(slash - path) : 1;
	snprintf(buf, len, "%.*s", n, path);
}

/* GROUP/NAME into BUF; "" when it does not fit (no such object). */
static void path_in(const char *group, const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", strcmp(group, "/") ? group : "", name);
	if (n < 0 || (size_t)n >= len)
		*buf = '\0';
}

/* Is group A the group G or one of its parents? */
static bool encloses(const char *a, const char *g)
{
	size_t n = strlen(a);
	return !strcmp(a, "/") || (!strncmp(a, g, n) && (g[n] == '\0' || g[n] == '/'));
}

/* The length of D, a one-dimensional dimension scale, or -1 when D is no
 * such thing. */
static int64_t scale_length(hid_t d)
{
	hid_t sp = H5Dget_space(d);
	hsize_t n = 0;
	bool scale = H5DSis_scale(d) > 0 && H5Sget_simple_extent_ndims(sp) == 1 &&
		     H5Sget_simple_extent_dims(sp, &n, NULL) == 1;
	H5Sclose(sp);
	return scale ? (int64_t)n : -1;
}

enum lookup {
	DIM_FOUND,      /* a scale of the name and the length, at PATH */
	DIM_MAKE,       /* none: one is to be made in the group (or at the
			   source's path when no group on the way has the name) */
	DIM_BLOCKED     /* the group has something of the name that does not fit */
};

/* Dimension NAME of length LEN seen from GROUP of F as netCDF-C sees it:
 * the first scale of that name in GROUP, its parent, ..., the root.
 * *SHADOWED: some group on the way has something of the name. */
static enum lookup find_dimension(hid_t f, const char *group, const char *name, int64_t len,
				  char *path, size_t plen, bool *shadowed)
{
	char g[1024];
	snprintf(g, sizeof g, "%s", group);
	*shadowed = false;
	for (bool here = true;; here = false) {
		path_in(g, name, path, plen);
		if (H5Lexists(f, path, H5P_DEFAULT) > 0) {
			*shadowed = true;
			H5O_info_t info;
			hid_t d = H5Oget_info_by_name(f, path, &info, H5P_DEFAULT) >= 0 &&
				  info.type == H5O_TYPE_DATASET ? H5Dopen2(f, path, H5P_DEFAULT) : -1;
			int64_t n = d >= 0 ? scale_length(d) : -1;
			if (d >= 0)
				H5Dclose(d);
			if (n == len)
				return DIM_FOUND;
			if (here)
				return DIM_BLOCKED;
			if (n >= 0)
				return DIM_MAKE;   /* a scale of another length: shadowed here */
		}
		if (!strcmp(g, "/"))
			return DIM_MAKE;
		char up[1024];
		group_of(g, up, sizeof up);
		snprintf(g, sizeof g, "%s", up);
	}
}

/* The rows of a source that a copy takes: row j (j < COUNT) is the
 * source's row START + STEP * j, or with PICK row PICK[START + STEP * j];
 * with UPPER too, the last of two columns comes from row UPPER[...] (the
 * upper bounds of a reduceat's segments). */
struct rows {
	int64_t start, step, count;
	const int64_t *pick, *upper;
};

/* The source rows [*LO, *HI] that R takes (*HI < *LO: none). */
static void rows_span(const struct rows *r, int64_t *lo, int64_t *hi)
{
	*lo = INT64_MAX;
	*hi = -1;
	for (int64_t j = 0; j < r->count; j++) {
		if (!r->pick && j > 0 && j < r->count - 1)
			j = r->count - 1;   /* a slice: its ends bound it */
		int64_t k = r->start + r->step * j, a = r->pick ? r->pick[k] : k;
		int64_t b = r->upper ? r->upper[k] : a;
		*lo = a < *lo ? a : *lo;
		*hi = b > *hi ? b : *hi;
	}
}

/* R's rows of the ROW-byte rows of ALL (the source's rows from LO) into
 * OUT, each a run of elements of ES bytes. */
static void gather_rows(const struct rows *r, const char *all, int64_t lo, size_t row, size_t es,
			char *out)
{
	for (int64_t j = 0; j < r->count; j++) {
		int64_t k = r->start + r->step * j;
		memcpy(out + (size_t)j * row, all + (size_t)(r->pick[k] - lo) * row, row);
		if (r->upper)
			memcpy(out + (size_t)j * row + row - es, all + (size_t)(r->upper[k] - lo) * row + row - es, es);
	}
}

/* Does SSPACE (of rank N) grow along its first axis, netCDF's record
 * dimension?  Then DCPL is chunked for the copy of extents DIM, elements
 * of SIZE bytes, as any dataset that grows there (shape_chunks: 1024
 * records of a coordinate or its bounds) and MAX is the copy's maximum
 * extents. */
static bool growing_copy(hid_t sspace, int n, const hsize_t *dim, size_t size, hid_t dcpl,
			 hsize_t *max)
{
	hsize_t smax[H5S_MAX_RANK], chunk[H5S_MAX_RANK];
	struct shape shape = { .ndim = n };
	int64_t c[H5U_MAXDIM];
	if (H5Sget_simple_extent_dims(sspace, chunk, smax) < 0 || smax[0] != H5S_UNLIMITED)
		return false;
	for (int i = 0; i < n; i++) {
		max[i] = i ? dim[i] : H5S_UNLIMITED;
		shape.dim[i] = (int64_t)dim[i];
	}
	shape_chunks(&shape, (int64_t)size, 1u, c);
	for (int i = 0; i < n; i++)
		chunk[i] = (hsize_t)c[i];
	return H5Pset_chunk(dcpl, n, chunk) >= 0;
}

/* The rows R of SRC's first axis (and all of its others) in memory, in
 * R's order, as taken_rows reads them. */
struct taken {
	hid_t mtype, sspace, mspace;   /* memory type; SRC's space; the space read */
	int n;                         /* SRC's rank */
	hsize_t dim[H5S_MAX_RANK];     /* the rows' extents: R's count, then SRC's */
	size_t es, size;               /* an element's bytes; BUF's */
	char *all, *buf;               /* as read; in R's order (ALL itself unless picked) */
};

/* Read R's rows of SRC into T: a slice is read as one, picked rows as
 * the span that holds them.  -1 when they cannot be read (T is still to
 * be freed). */
static int taken_rows(hid_t src, const struct rows *r, struct taken *t)
{
	hid_t ftype = H5Dget_type(src);
	*t = (struct taken){ .mtype = H5Tget_native_type(ftype, H5T_DIR_DEFAULT), .sspace = H5Dget_space(src),
			     .mspace = -1 };
	H5Tclose(ftype);
	hsize_t dim[H5S_MAX_RANK], st[H5S_MAX_RANK] = { 0 }, stride[H5S_MAX_RANK], cnt[H5S_MAX_RANK];
	int64_t lo, hi;
	rows_span(r, &lo, &hi);
	t->n = H5Sget_simple_extent_ndims(t->sspace);
	if (t->n < 1 || t->n > H5S_MAX_RANK || H5Sget_simple_extent_dims(t->sspace, dim, NULL) < 0)
		return -1;
	size_t row = t->es = H5Tget_size(t->mtype), read;
	bool back = !r->pick && r->step < 0;   /* read forwards, then turned round */
	for (int i = 0; i < t->n; i++) {
		stride[i] = i || r->pick ? 1 : (hsize_t)(back ? -r->step : r->step);
		cnt[i] = i ? dim[i] : r->pick ? (hsize_t)(hi >= lo ? hi - lo + 1 : 0) : (hsize_t)r->count;
		row *= i ? dim[i] : 1;
	}
	st[0] = (hsize_t)(r->pick || back ? (hi >= lo ? lo : 0) : r->start);
	read = (size_t)cnt[0] * row;
	t->size = (size_t)r->count * row;
	memcpy(t->dim, cnt, sizeof t->dim);
	t->dim[0] = (hsize_t)r->count;
	t->mspace = H5Screate_simple(t->n, cnt, NULL);
	t->all = calloc(read ? read : 1, 1);
	t->buf = r->pick ? calloc(t->size ? t->size : 1, 1) : t->all;
	if (!t->all || !t->buf || H5Sselect_hyperslab(t->sspace, H5S_SELECT_SET, st, stride, cnt, NULL) < 0 ||
	    (read && H5Dread(src, t->mtype, t->mspace, t->sspace, H5P_DEFAULT, t->all) < 0))
		return -1;
	if (r->pick)
		gather_rows(r, t->all, lo, row, t->es, t->buf);
	if (back)
		select_reverse_rows(t->all, 1, r->count, row);
	return 0;
}

/* Free what taken_rows left in T (the strings of variable length too). */
static void taken_free(struct taken *t)
{
	if (t->all && (H5Tdetect_class(t->mtype, H5T_VLEN) > 0 || H5Tis_variable_str(t->mtype) > 0))
		H5Dvlen_reclaim(t->mtype, t->mspace, H5P_DEFAULT, t->all);   /* BUF holds ALL's pointers */
	if (t->buf != t->all)
		free(t->buf);
	free(t->all);
	h5io_close_ids(3, (hid_t[]){ t->mspace, t->sspace, t->mtype });
}

/* Create dataset PATH of F as a copy of SRC (a dataset of any file): its
 * type, the rows R of its first axis and all of the others (taken_rows),
 * and its attributes but own_attribute's.  The copy is contiguous, with
 * netCDF-4's creation properties, but chunked and unlimited along a first
 * axis that is so in SRC (growing_copy). */
static hid_t copy_rows(hid_t f, const char *path, hid_t src, const struct rows *r)
{
	hid_t type = H5Dget_type(src), tspace = -1, dcpl = -1, d = -1;   /* a committed type: a copy */
	struct taken t;
	if (taken_rows(src, r, &t) < 0)
		goto out;
	hsize_t max[H5S_MAX_RANK];
	dcpl = h5io_dataset_plist();
	bool grows = growing_copy(t.sspace, t.n, t.dim, t.es, dcpl, max);
	tspace = H5Screate_simple(t.n, t.dim, grows ? max : NULL);
	d = H5Dcreate2(f, path, type, tspace, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	if (d >= 0 && ((t.size && H5Dwrite(d, t.mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.buf) < 0) ||
		       copy_attributes(src, d) < 0)) {
		H5Dclose(d);
		H5Ldelete(f, path, H5P_DEFAULT);
		d = -1;
	}
out:
	taken_free(&t);
	h5io_close_ids(3, (hid_t[]){ dcpl, tspace, type });
	return d;
}

/* netCDF-4's NAME of a dimension that has no variable (dimension_only). */
#define DIMENSION_ONLY "This is a netCDF dimension but not a netCDF variable"

/* A netCDF-4 dimension without a variable, of length LEN, at PATH of F:
 * netCDF-4's own form for it (float, no data, a NAME that says so). */
static hid_t dimension_only(hid_t f, const char *path, int64_t len)
{
	hsize_t n = (hsize_t)len;
	hid_t sp = H5Screate_simple(1, &n, NULL), dcpl = h5io_dataset_plist();
	hid_t d = H5Dcreate2(f, path, H5T_IEEE_F32BE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	H5Pclose(dcpl);
	H5Sclose(sp);
	char name[128];
	snprintf(name, sizeof name, DIMENSION_ONLY ". %10lld",
		 (long long)len);
	if (d >= 0 && H5DSset_scale(d, name) < 0) {
		H5Dclose(d);
		d = -1;
	}
	return d;
}

/* Where axis of a new variable comes from: NAME, and the scale SCALE of
 * FILE (NULL: none), its elements START + STEP * j for j < LEN, or (SEG)
 * a reduceat's segments START + STEP * j. */
struct axis_source {
	const char *name, *file, *scale;
	int64_t start, step, len;
	const struct dims_segments *seg;
	bool renamed;   /* NAME is not its scale's (whose name was taken) */
};

/* The rows of A's scale its coordinate takes (BOUNDS: of its bounds). */
static struct rows rows_of(const struct axis_source *a, bool bounds)
{
	const struct dims_segments *g = a->seg;
	return (struct rows){ a->start, a->step, a->len, !g ? NULL : bounds ? g->lo : g->first,
			      g && bounds ? g->hi : NULL };
}

static hid_t scale_for(hid_t f, const char *group, const struct axis_source *a, bool bounds);

/* The dataset NAME as netCDF-C and CF find names from GROUP of F: in
 * GROUP, then its parents; -1 when none. */
static hid_t find_variable(hid_t f, const char *group, const char *name)
{
	char g[1024], path[1024];
	snprintf(g, sizeof g, "%s", group);
	for (;;) {
		path_in(g, name, path, sizeof path);
		if (H5Lexists(f, path, H5P_DEFAULT) > 0)
			return H5Dopen2(f, path, H5P_DEFAULT);
		if (!strcmp(g, "/"))
			return -1;
		char up[1024];
		group_of(g, up, sizeof up);
		snprintf(g, sizeof g, "%s", up);
	}
}

/* Copy NAME, the bounds variable of the coordinate that axis A copies
 * from (in SF), beside that copy D (at PATH of F): sliced as the
 * coordinate was along its first axis, that axis attached to D and its
 * others named as in SF.  False when it cannot be done (nothing is left
 * of it then). */
static bool bounds_copied(hid_t f, hid_t d, const char *path, hid_t sf,
			  const struct axis_source *a, const char *name)
{
	char sgroup[1024], group[1024], bpath[1024];
	if (!*name || strchr(name, '/'))
		return false;
	group_of(a->scale, sgroup, sizeof sgroup);
	group_of(path, group, sizeof group);
	path_in(group, name, bpath, sizeof bpath);
	hid_t bd = find_variable(sf, sgroup, name), sp = bd >= 0 ? H5Dget_space(bd) : -1;
	hsize_t dim[H5S_MAX_RANK];
	int n = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
	struct rows rows = rows_of(a, true);
	int64_t lo, hi;
	rows_span(&rows, &lo, &hi);
	bool ok = n >= 2 && n <= H5U_MAXDIM && H5Sget_simple_extent_dims(sp, dim, NULL) == n &&
		  (int64_t)dim[0] > hi && (!a->seg || (n == 2 && dim[1] == 2)) &&
		  H5Lexists(f, bpath, H5P_DEFAULT) == 0;
	hid_t bt = ok ? copy_rows(f, bpath, bd, &rows) : -1;
	ok = bt >= 0 && H5DSattach_scale(bt, d, 0) >= 0;
	struct arena ar = { 0 };
	struct shape shape = { .ndim = n };
	for (int i = 0; i < n && ok; i++)
		shape.dim[i] = (int64_t)dim[i];
	const struct dims *x = ok ? dims_read(bd, a->file, NULL, &shape, &ar) : NULL;
	for (int i = 1; x && i < n && ok; i++) {
		struct axis_source b = { x->name[i], x->file[i], x->scale[i], 0, 1, shape.dim[i], NULL, false };
		hid_t sd = scale_for(f, group, &b, false);
		ok = sd >= 0 && H5DSattach_scale(bt, sd, (unsigned)i) >= 0;
		if (sd >= 0)
			H5Dclose(sd);
	}
	arena_free(&ar);
	if (!ok && bt >= 0)
		H5Ldelete(f, bpath, H5P_DEFAULT);
	h5io_close_ids(3, (hid_t[]){ bt, sp, bd });
	return ok;
}

/* CF's cell bounds travel with their coordinate: the variables that the
 * `bounds` and `climatology` attributes of SD (in SF) name are copied
 * beside D, its copy at PATH of F (bounds_copied), or D loses the
 * attribute rather than name a variable that is not there. */
static void copy_bounds(hid_t f, hid_t d, const char *path, hid_t sf, hid_t sd,
			const struct axis_source *a)
{
	static const char *const kinds[] = { "bounds", "climatology" };
	for (int k = 0; k < 2; k++) {
		struct arena ar = { 0 };
		const char *name = h5attr_text(sd, kinds[k], &ar);
		if (name && !bounds_copied(f, d, path, sf, a, name))
			h5attr_write_text(d, kinds[k], NULL);
		arena_free(&ar);
	}
}

/* The starts of reduceat's segments A->seg, the coordinate of an axis
 * without a variable, into T: int64, one dimension. */
static int segment_starts(const struct axis_source *a, struct taken *t)
{
	*t = (struct taken){ .mtype = H5Tcopy(H5T_NATIVE_INT64), .sspace = -1, .mspace = -1, .n = 1,
			     .es = sizeof(int64_t), .size = sizeof(int64_t) * (size_t)a->len };
	t->dim[0] = (hsize_t)a->len;
	int64_t *v = malloc(t->size ? t->size : 1);
	t->all = t->buf = (char *)v;
	for (int64_t j = 0; v && j < a->len; j++)
		v[j] = a->seg->at[a->start + a->step * j];
	return v ? 0 : -1;
}

/* Is SD (of SCALE_NAME) a variable, not netCDF-4's dimension without one? */
static bool is_variable(hid_t sd, const char *scale_name)
{
	return sd >= 0 && strncmp(scale_name, DIMENSION_ONLY, strlen(DIMENSION_ONLY)) != 0;
}

/* The values of axis A's coordinate (make_coordinate) into T: the rows
 * of its scale SD (VARIABLE: one with values), or its segments' starts;
 * -1 when it has none (T is still to be freed). */
static int axis_values(hid_t sd, bool variable, const struct axis_source *a, struct taken *t)
{
	struct rows rows = rows_of(a, false);
	if (a->seg && !variable)
		return segment_starts(a, t);
	if (sd >= 0)
		return taken_rows(sd, &rows, t);
	*t = (struct taken){ .mtype = -1, .sspace = -1, .mspace = -1 };
	return -1;
}

/* Dataset PATH of F holding T's values, without attributes; -1 when it
 * cannot be written (nothing is left of it then). */
static hid_t write_values(hid_t f, const char *path, const struct taken *t)
{
	hid_t sp = H5Screate_simple(t->n, t->dim, NULL), dcpl = h5io_dataset_plist();
	hid_t d = H5Dcreate2(f, path, t->mtype, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	if (d >= 0 && t->size && H5Dwrite(d, t->mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, t->buf) < 0) {
		H5Dclose(d);
		H5Ldelete(f, path, H5P_DEFAULT);
		d = -1;
	}
	h5io_close_ids(2, (hid_t[]){ dcpl, sp });
	return d;
}

/* Are D and E one dataset? */
static bool one_dataset(hid_t d, hid_t e)
{
	H5O_info_t x, y;
	return d >= 0 && e >= 0 && H5Oget_info(d, &x) >= 0 && H5Oget_info(e, &y) >= 0 &&
	       x.fileno == y.fileno && x.addr == y.addr;
}

/* Does the scale D (found by A's name and length) hold what axis A's
 * coordinate would (make_coordinate)?  Yes for an axis without values of
 * its own, or one that takes D itself whole and in order; else when
 * their values are equal, element for element, so that a reversed or
 * shifted axis does not take the name of its input's coordinate (or of
 * an earlier output's copy of it), as netCDF-C and xarray would then
 * read it, but gets one of its own. */
static bool holds_axis(hid_t d, const struct axis_source *a)
{
	if (!a->scale && !a->seg)
		return true;
	hid_t sf = a->scale ? H5Fopen(a->file, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
	hid_t sd = sf >= 0 ? H5Dopen2(sf, a->scale, H5P_DEFAULT) : -1;
	char name[256];
	ssize_t n = sd >= 0 ? H5DSget_scale_name(sd, name, sizeof name) : -1;
	bool variable = is_variable(sd, n > 0 && (size_t)n < sizeof name ? name : a->name);
	bool whole = !a->seg && a->start == 0 && a->step == 1 && one_dataset(d, sd);
	struct taken t;
	bool same = whole || (!a->seg && !variable);
	if (!same && axis_values(sd, variable, a, &t) == 0) {
		hid_t sp = H5Dget_space(d);
		char *got = H5Tdetect_class(t.mtype, H5T_VLEN) > 0 || H5Tis_variable_str(t.mtype) > 0 ? NULL
			    : malloc(t.size ? t.size : 1);
		same = got && H5Sget_simple_extent_npoints(sp) * (hssize_t)t.es == (hssize_t)t.size &&
		       H5Dread(d, t.mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, got) >= 0 &&
		       !memcmp(got, t.buf, t.size);
		free(got);
		H5Sclose(sp);
		taken_free(&t);
	} else if (!same) {
		taken_free(&t);
	}
	h5io_close_ids(2, (hid_t[]){ sd, sf });
	return same;
}

/* The coordinate variable of axis A made at PATH of F: a copy of its
 * scale, sliced as the axis is (or at its segments' starts), with its
 * attributes and (BOUNDS) its bounds; for a reduceat's axis without a
 * variable, its segments' starts; otherwise a dimension without a
 * variable when it has none or it cannot be read. */
static hid_t make_coordinate(hid_t f, const char *path, const struct axis_source *a, bool bounds)
{
	hid_t sf = a->scale ? H5Fopen(a->file, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
	hid_t sd = sf >= 0 ? H5Dopen2(sf, a->scale, H5P_DEFAULT) : -1;
	char name[256];
	ssize_t n = sd >= 0 ? H5DSget_scale_name(sd, name, sizeof name) : -1;
	const char *scale_name = n > 0 && (size_t)n < sizeof name ? name : a->name;
	bool variable = is_variable(sd, scale_name);
	if (a->renamed)
		scale_name = a->name;
	struct rows rows = rows_of(a, false);
	hid_t d = -1;
	if (a->seg && !variable) {
		struct taken t;
		d = segment_starts(a, &t) == 0 ? write_values(f, path, &t) : -1;
		taken_free(&t);
	} else if (sd >= 0) {
		d = copy_rows(f, path, sd, &rows);
	}
	if (d >= 0 && H5DSset_scale(d, a->seg && !variable ? a->name : scale_name) < 0) {
		H5Dclose(d);
		H5Ldelete(f, path, H5P_DEFAULT);
		d = -1;
	}
	if (d >= 0 && bounds && variable)
		copy_bounds(f, d, path, sf, sd, a);
	h5io_close_ids(2, (hid_t[]){ sd, sf });
	return d >= 0 ? d : dimension_only(f, path, a->len);
}

/* The scale for axis A of a new variable in GROUP of F, found or made as
 * netCDF-C resolves dimension names (find_dimension): made at the path
 * of the scale it copies when that group encloses GROUP and nothing on
 * the way has the name, else in GROUP itself.  -1: the axis stays
 * unnamed. */
static hid_t scale_for(hid_t f, const char *group, const struct axis_source *a, bool bounds)
{
	char path[1024], from[1024];
	bool shadowed;
	switch (find_dimension(f, group, a->name, a->len, path, sizeof path, &shadowed)) {
	case DIM_FOUND: {
		hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
		if (d >= 0 && holds_axis(d, a))
			return d;
		if (d >= 0)
			H5Dclose(d);
		return -1;   /* another coordinate of the name and length */
	}
	case DIM_BLOCKED:
		return -1;
	case DIM_MAKE:
		break;
	}
	if (a->scale)
		group_of(a->scale, from, sizeof from);
	if (a->scale && !shadowed && !a->renamed && encloses(from, group))
		snprintf(path, sizeof path, "%s", a->scale);
	else
		path_in(group, a->name, path, sizeof path);
	struct err ignored = { 0 };
	if (h5io_parents(f, path, "", &ignored) < 0)
		return -1;
	return make_coordinate(f, path, a, bounds);
}

/* ---- netCDF-4's numbering of dimensions ---------------------------------- */

/* netCDF-C numbers the dimensions of a file it opens by the attribute
 * below on each scale, and those without it in the order it happens to
 * find them, which a later writer can change: a variable netCDF-C appends
 * records its dimensions by number, and once the order has moved they
 * are the wrong ones (or a rename fails on the scales). */
#define NETCDF_DIMID "_Netcdf4Dimid"

struct numbering {
	int next;        /* one past the largest number seen */
	bool any;        /* some scale has one */
	hid_t *open;     /* the scales without one, open, in the order found */
	haddr_t *addr;   /* ... and where each is (a scale under two links is one) */
	size_t n, cap;
	bool failed;
};

/* Keep D, a scale at ADDR without a number, open in NB (once). */
static void keep_unnumbered(struct numbering *nb, hid_t d, haddr_t addr)
{
	for (size_t i = 0; i < nb->n; i++)
		if (nb->addr[i] == addr) {
			H5Dclose(d);
			return;
		}
	if (nb->n == nb->cap) {
		size_t cap = nb->cap ? 2 * nb->cap : 16;
		hid_t *open = realloc(nb->open, cap * sizeof *open);
		if (open)
			nb->open = open;
		haddr_t *at = open ? realloc(nb->addr, cap * sizeof *at) : NULL;
		if (at)
			nb->addr = at;
		if (!open || !at) {
			nb->failed = true;
			H5Dclose(d);
			return;
		}
		nb->cap = cap;
	}
	nb->open[nb->n] = d;
	nb->addr[nb->n++] = addr;
}

/* One link of the walk: a scale's number raises NB's largest; a scale
 * without one is kept open to be numbered once the largest is known. */
static herr_t number_scale(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
	struct numbering *nb = data;
	H5O_info_t oi;
	if (info->type != H5L_TYPE_HARD || H5Oget_info_by_name(g, name, &oi, H5P_DEFAULT) < 0 ||
	    oi.type != H5O_TYPE_DATASET)
		return 0;
	hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
	unsigned char v[1][16];
	int has = d >= 0 && H5DSis_scale(d) > 0 ? h5attr_numbers(d, NETCDF_DIMID, DT_INT32, 1, v) : -1;
	if (has == 1) {
		int32_t id;
		memcpy(&id, v[0], sizeof id);
		nb->any = true;
		nb->next = id >= nb->next ? id + 1 : nb->next;
	}
	if (has == 0)
		keep_unnumbered(nb, d, oi.addr);
	else if (d >= 0)
		H5Dclose(d);
	return 0;
}

/* Close the scales NB keeps and forget them. */
static void forget_unnumbered(struct numbering *nb)
{
	for (size_t i = 0; i < nb->n; i++)
		H5Dclose(nb->open[i]);
	nb->n = 0;
}

/* Walk every link of F once, in creation order where the groups keep it
 * (else by name, from the start). */
static int walk_scales(hid_t f, struct numbering *nb)
{
	if (H5Lvisit(f, H5_INDEX_CRT_ORDER, H5_ITER_INC, number_scale, nb) >= 0)
		return 0;
	H5Eclear2(H5E_DEFAULT);
	forget_unnumbered(nb);
	return H5Lvisit(f, H5_INDEX_NAME, H5_ITER_INC, number_scale, nb) < 0 ? -1 : 0;
}

int dims_number(hid_t f, bool created)
{
	struct numbering nb = { 0 };
	int rc = 0;
	H5E_BEGIN_TRY {
		rc = walk_scales(f, &nb);
		for (size_t i = 0; rc == 0 && (created || nb.any) && i < nb.n; i++) {
			int32_t id = nb.next++;
			nb.failed |= h5attr_write_number(nb.open[i], NETCDF_DIMID, DT_INT32, &id) < 0;
		}
		forget_unnumbered(&nb);
	} H5E_END_TRY;
	free(nb.open);
	free(nb.addr);
	return rc < 0 || nb.failed ? -1 : 0;
}

int dims_attach(hid_t f, const char *path, const struct dims *dims, const struct shape *shape,
		const char *where, struct err *e)
{
	if (!dims)
		return 0;
	int rc = 0;
	char group[1024];
	group_of(path, group, sizeof group);
	H5E_BEGIN_TRY {
		hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
		for (int i = 0; d >= 0 && i < dims->ndim && rc == 0; i++) {
			/* None's axis, unnamed: a dimension without a variable named
			 * as xarray names an unnamed axis (netCDF-C cannot open a
			 * dataset that leaves an axis after a named one without one) */
			char unnamed[32];
			snprintf(unnamed, sizeof unnamed, "dim_%d", i);
			struct axis_source a = { dims->name[i] ? dims->name[i] : unnamed, dims->file[i],
						 dims->scale[i], dims->start[i], dims->step[i], shape->dim[i],
						 dims->seg[i], false };
			hid_t sd = scale_for(f, group, &a, true);
			char other[300];
			if (sd < 0) {   /* its name holds something else: NAME_LENGTH */
				snprintf(other, sizeof other, "%s_%lld", a.name, (long long)a.len);
				a.name = other;
				a.renamed = true;
				sd = scale_for(f, group, &a, true);
			}
			if (sd < 0)
				continue;   /* that too: the axis stays unnamed */
			if (H5DSattach_scale(d, sd, (unsigned)i) < 0)
				rc = err_set(e, EXIT_RUN, where, "cannot attach dimension '%s' to '%s'",
					     a.name, path);
			H5Dclose(sd);
		}
		if (d < 0)
			rc = err_set(e, EXIT_RUN, where, "cannot open '%s' to name its dimensions", path);
		else
			H5Dclose(d);
	} H5E_END_TRY;
	return rc;
}
