/* dims.c - names of array axes from and to HDF5 dimension scales.  See
 * dims.h.
 *
 * What it is: the reading of scales (H5DS, HDF5's high-level library),
 * the pure name logic broadcasting and reductions need, and the writing of
 * scales onto new datasets.  What it is not: a reader of coordinate
 * values.  Names are matched by text, never by the values along them, as
 * xarray's broadcasting (not its alignment) does.
 */
#include <hdf5_hl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dims.h"
#include "h5attr.h"

/* ---- reading ----------------------------------------------------------- */

struct found {
	char path[1024];
	bool any;
};

static herr_t take_scale(hid_t did, unsigned dim, hid_t dsid, void *data)
{
	struct found *f = data;
	if (H5Iget_name(dsid, f->path, sizeof f->path) <= 0)
		return -1;
	f->any = true;
	return 1;   /* the first scale names the axis */
}

static const char *last_component(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

struct dims *dims_read(hid_t d, const char *file, const struct shape *shape, struct arena *a)
{
	if (shape->ndim == 0)
		return NULL;
	struct dims *x = arena_alloc(a, sizeof *x);
	memset(x, 0, sizeof *x);
	x->ndim = shape->ndim;
	bool ok = true;
	H5E_BEGIN_TRY {
		if (shape->ndim == 1 && H5DSis_scale(d) > 0) {   /* a coordinate variable */
			struct found f = { .any = false };
			if (H5Iget_name(d, f.path, sizeof f.path) > 0) {
				x->scale[0] = arena_strdup(a, f.path);
				x->name[0] = last_component(x->scale[0]);
				x->file[0] = file;
			} else {
				ok = false;
			}
		} else {
			for (int i = 0; i < shape->ndim && ok; i++) {
				struct found f = { .any = false };
				ok = H5DSget_num_scales(d, (unsigned)i) > 0 &&
				     H5DSiterate_scales(d, (unsigned)i, NULL, take_scale, &f) >= 0 && f.any;
				if (!ok)
					break;
				x->scale[i] = arena_strdup(a, f.path);
				x->name[i] = last_component(x->scale[i]);
				x->file[i] = file;
			}
		}
	} H5E_END_TRY;
	for (int i = 0; ok && i < x->ndim; i++)
		for (int j = 0; j < i; j++)
			ok = ok && strcmp(x->name[i], x->name[j]) != 0;   /* xarray refuses repeated names */
	return ok ? x : NULL;
}

/* ---- pure name logic ---------------------------------------------------- */

static struct dims *dims_new(struct arena *a)
{
	struct dims *x = arena_alloc(a, sizeof *x);
	memset(x, 0, sizeof *x);
	return x;
}

struct dims *dims_select(const struct dims *x, const bool *dropped, const bool *whole,
			 struct arena *a)
{
	if (!x)
		return NULL;
	struct dims *y = dims_new(a);
	for (int i = 0; i < x->ndim; i++) {
		if (dropped[i])
			continue;
		y->name[y->ndim] = x->name[i];
		y->file[y->ndim] = whole[i] ? x->file[i] : NULL;
		y->scale[y->ndim] = whole[i] ? x->scale[i] : NULL;
		y->ndim++;
	}
	return y;
}

struct dims *dims_reduce(const struct dims *x, const bool *reduced, bool keepdims, struct arena *a)
{
	if (!x)
		return NULL;
	struct dims *y = dims_new(a);
	for (int i = 0; i < x->ndim; i++) {
		if (reduced[i] && !keepdims)
			continue;
		y->name[y->ndim] = x->name[i];
		y->file[y->ndim] = reduced[i] ? NULL : x->file[i];
		y->scale[y->ndim] = reduced[i] ? NULL : x->scale[i];
		y->ndim++;
	}
	return y;
}

int dims_axis(const struct dims *x, const char *name)
{
	for (int i = 0; x && i < x->ndim; i++)
		if (!strcmp(x->name[i], name))
			return i;
	return -1;
}

int dims_union(int n, const struct dims *const *in, const struct shape *const *shapes,
	       struct arena *arena, struct dims **out, struct shape *shape,
	       int *a, int *b, const char **name)
{
	struct dims *u = dims_new(arena);
	int owner[H5U_MAXDIM];
	shape->ndim = 0;
	for (int k = 0; k < n; k++) {
		if (!in[k])
			continue;
		for (int i = 0; i < in[k]->ndim; i++) {
			int j = dims_axis(u, in[k]->name[i]);
			int64_t len = shapes[k]->dim[i];
			if (j >= 0) {
				if (shape->dim[j] != len) {
					*a = owner[j];
					*b = k;
					*name = u->name[j];
					return -1;
				}
				if (!u->scale[j] && in[k]->scale[i]) {
					u->file[j] = in[k]->file[i];
					u->scale[j] = in[k]->scale[i];
				}
				continue;
			}
			if (u->ndim == H5U_MAXDIM) {
				*a = *b = k;
				*name = NULL;
				return -1;
			}
			owner[u->ndim] = k;
			u->name[u->ndim] = in[k]->name[i];
			u->file[u->ndim] = in[k]->file[i];
			u->scale[u->ndim] = in[k]->scale[i];
			shape->dim[u->ndim] = len;
			u->ndim++;
		}
	}
	shape->ndim = u->ndim;
	*out = u;
	return 0;
}

bool dims_map(const struct dims *u, const struct dims *x, int *from)
{
	for (int i = 0; i < u->ndim; i++)
		from[i] = dims_axis(x, u->name[i]);
	int pad = u->ndim - x->ndim;
	for (int i = 0; i < x->ndim; i++)
		if (from[pad + i] != i)
			return false;
	return true;
}

char *dims_format(const struct dims *x, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "(");
	for (int i = 0; x && i < x->ndim && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", x->name[i]);
	if (n < len)
		snprintf(buf + n, len - n, ")");
	return buf;
}

/* ---- writing ------------------------------------------------------------ */

/* Attributes a copied scale must not take: the scale's own bookkeeping
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

/* Copy the scale PATH of FILE into F at the same path, as a scale. */
static hid_t copy_scale(hid_t f, const char *file, const char *path)
{
	hid_t src = -1, sd = -1, d = -1, ocp = -1, lcp = -1;
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	src = H5Fopen(file, H5F_ACC_RDONLY, fapl);
	H5Pclose(fapl);
	if (src < 0)
		goto out;
	ocp = H5Pcreate(H5P_OBJECT_COPY);
	lcp = H5Pcreate(H5P_LINK_CREATE);
	H5Pset_copy_object(ocp, H5O_COPY_WITHOUT_ATTR_FLAG);
	H5Pset_create_intermediate_group(lcp, 1);
	if (H5Ocopy(src, path, f, path, ocp, lcp) < 0 || (sd = H5Dopen2(src, path, H5P_DEFAULT)) < 0 ||
	    (d = H5Dopen2(f, path, H5P_DEFAULT)) < 0)
		goto out;
	char name[256];
	ssize_t n = H5DSget_scale_name(sd, name, sizeof name);
	if (H5Aiterate2(sd, H5_INDEX_NAME, H5_ITER_INC, NULL, copy_attribute, &d) < 0 ||
	    H5DSset_scale(d, n > 0 ? name : last_component(path)) < 0) {
		H5Dclose(d);
		d = -1;
	}
out:
	if (lcp >= 0)
		H5Pclose(lcp);
	if (ocp >= 0)
		H5Pclose(ocp);
	if (sd >= 0)
		H5Dclose(sd);
	if (src >= 0)
		H5Fclose(src);
	return d;
}

/* A netCDF-4 dimension without a variable, of length LEN, at PATH of F:
 * netCDF-4's own form for it (float, no data, a NAME that says so). */
static hid_t dimension_only(hid_t f, const char *path, int64_t len)
{
	hsize_t n = (hsize_t)len;
	hid_t sp = H5Screate_simple(1, &n, NULL), lcp = H5Pcreate(H5P_LINK_CREATE);
	H5Pset_create_intermediate_group(lcp, 1);
	hid_t d = H5Dcreate2(f, path, H5T_IEEE_F32BE, sp, lcp, H5P_DEFAULT, H5P_DEFAULT);
	H5Pclose(lcp);
	H5Sclose(sp);
	char name[128];
	snprintf(name, sizeof name, "This is a netCDF dimension but not a netCDF variable. %10lld",
		 (long long)len);
	if (d >= 0 && H5DSset_scale(d, name) < 0) {
		H5Dclose(d);
		d = -1;
	}
	return d;
}

/* The scale for axis I (length LEN) in F, or -1 when F has something else
 * at its path. */
static hid_t scale_for(hid_t f, const struct dims *dims, int i, int64_t len)
{
	char path[1024];
	if (dims->scale[i])
		snprintf(path, sizeof path, "%s", dims->scale[i]);
	else
		snprintf(path, sizeof path, "/%s", dims->name[i]);
	if (H5LTpath_valid(f, path, 1) > 0) {
		hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
		if (d < 0)
			return -1;
		hid_t sp = H5Dget_space(d);
		hsize_t n = 0;
		bool fits = H5DSis_scale(d) > 0 && H5Sget_simple_extent_ndims(sp) == 1 &&
			    H5Sget_simple_extent_dims(sp, &n, NULL) == 1 && (int64_t)n == len;
		H5Sclose(sp);
		if (!fits) {
			H5Dclose(d);
			return -1;
		}
		return d;
	}
	return dims->scale[i] ? copy_scale(f, dims->file[i], path) : dimension_only(f, path, len);
}

int dims_attach(hid_t f, const char *path, const struct dims *dims, const struct shape *shape,
		const char *where, struct err *e)
{
	if (!dims)
		return 0;
	int rc = 0;
	H5E_BEGIN_TRY {
		hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
		for (int i = 0; d >= 0 && i < dims->ndim && rc == 0; i++) {
			hid_t sd = scale_for(f, dims, i, shape->dim[i]);
			if (sd < 0)
				continue;   /* its path holds something else: the axis stays unnamed */
			if (H5DSattach_scale(d, sd, (unsigned)i) < 0)
				rc = err_set(e, EXIT_RUN, where, "cannot attach dimension '%s' to '%s'",
					     dims->name[i], path);
			H5Dclose(sd);
		}
		if (d < 0)
			rc = err_set(e, EXIT_RUN, where, "cannot open '%s' to name its dimensions", path);
		else
			H5Dclose(d);
	} H5E_END_TRY;
	return rc;
}
