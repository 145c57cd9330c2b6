/* dims.c - names of array axes from HDF5 dimension scales.  See dims.h.
 *
 * What it is: the reading of scales (H5DS, HDF5's high-level library) and
 * the pure name logic broadcasting and reductions need; coords.c writes
 * them onto new datasets.  What it is not: a judge of coordinate values.
 * Names are matched by text, never by the values along them, as xarray's
 * broadcasting (not its alignment) does.
 */
#include <hdf5_hl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dims.h"

/* ---- reading ----------------------------------------------------------- */

/* A file's objects by address, the first path to each in the order
 * HDF5's own search for a name goes (names in their index's native
 * order, depth first), so that a path is the one H5Iget_name gives for an
 * object opened by reference. */
struct dims_path {
	haddr_t addr;
	size_t order;      /* of the walk, to keep the first path of several */
	const char *path;
};

struct dims_paths {
	struct dims_path *at;   /* sorted by address, one each */
	size_t n;
};

struct walk {
	struct dims_path *at;   /* malloc'd while the walk goes */
	size_t n, cap;
	hid_t file;
	struct arena *a;
};

static herr_t take_link(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
	struct walk *w = data;
	H5O_info_t oi;
	haddr_t addr;
	if (info->type == H5L_TYPE_HARD)
		addr = info->u.address;
	else if (info->type == H5L_TYPE_SOFT && H5Oget_info_by_name2(g, name, &oi, H5O_INFO_BASIC,
								    H5P_DEFAULT) >= 0)
		addr = oi.addr;   /* a soft link names what it points at too */
	else
		return 0;
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		struct dims_path *at = realloc(w->at, cap * sizeof *at);
		if (!at)
			return -1;
		w->at = at;
		w->cap = cap;
	}
	char *path = arena_alloc(w->a, strlen(name) + 2);
	path[0] = '/';
	strcpy(path + 1, name);
	w->at[w->n] = (struct dims_path){ addr, w->n, path };
	w->n++;
	return 0;
}

static int by_addr(const void *x, const void *y)
{
	const struct dims_path *p = x, *q = y;
	if (p->addr != q->addr)
		return p->addr < q->addr ? -1 : 1;
	return p->order < q->order ? -1 : p->order > q->order;
}

/* The paths of the file of D, by one walk of its links (none when the
 * walk fails: every name is then asked of HDF5, and the walk not tried
 * again). */
static struct dims_paths *paths_read(hid_t d, struct arena *a)
{
	struct walk w = { .file = H5Iget_file_id(d), .a = a };
	struct dims_paths *p = arena_alloc(a, sizeof *p);
	p->n = 0;
	if (w.file >= 0 && H5Lvisit(w.file, H5_INDEX_NAME, H5_ITER_NATIVE, take_link, &w) >= 0) {
		qsort(w.at, w.n, sizeof *w.at, by_addr);
		p->at = arena_alloc(a, (w.n ? w.n : 1) * sizeof *p->at);
		for (size_t i = 0; i < w.n; i++)
			if (i == 0 || w.at[i].addr != w.at[i - 1].addr)
				p->at[p->n++] = w.at[i];
	}
	free(w.at);
	if (w.file >= 0)
		H5Fclose(w.file);
	return p;
}

static const char *path_at(const struct dims_paths *p, haddr_t addr)
{
	size_t lo = 0, hi = p->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->at[mid].addr == addr)
			return p->at[mid].path;
		if (p->at[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

struct found {
	const struct dims_paths *paths;
	char path[1024];
	bool any;
};

static herr_t take_scale(hid_t did, unsigned dim, hid_t dsid, void *data)
{
	struct found *f = data;
	H5O_info_t info;
	const char *known = f->paths && f->paths->n > 0 && H5Oget_info2(dsid, &info, H5O_INFO_BASIC) >= 0
			    ? path_at(f->paths, info.addr) : NULL;
	if (known && strlen(known) < sizeof f->path)
		strcpy(f->path, known);
	else if (H5Iget_name(dsid, f->path, sizeof f->path) <= 0)
		return -1;
	f->any = true;
	return 1;   /* the first scale names the axis */
}

static const char *last_component(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* Mark X's axes that D (a dataset of X's shape) can grow along: netCDF-C
 * gives a variable of its record dimension maxshape unlimited there. */
static void mark_unlimited(hid_t d, struct dims *x)
{
	hsize_t dim[H5S_MAX_RANK], max[H5S_MAX_RANK];
	hid_t space = H5Dget_space(d);
	if (space >= 0 && H5Sget_simple_extent_ndims(space) == x->ndim &&
	    H5Sget_simple_extent_dims(space, dim, max) >= 0)
		for (int i = 0; i < x->ndim; i++)
			x->unlimited[i] = max[i] == H5S_UNLIMITED;
	if (space >= 0)
		H5Sclose(space);
}

struct dims *dims_read(hid_t d, const char *file, struct dims_paths **paths, const struct shape *shape,
		       struct arena *a)
{
	if (shape->ndim == 0)
		return NULL;
	struct dims *x = arena_alloc(a, sizeof *x);
	memset(x, 0, sizeof *x);
	x->ndim = shape->ndim;
	bool ok = true;
	H5E_BEGIN_TRY {
		if (shape->ndim == 1 && H5DSis_scale(d) > 0) {   /* a coordinate variable */
			struct found f = { .paths = NULL, .any = false };
			if (H5Iget_name(d, f.path, sizeof f.path) > 0) {
				x->scale[0] = arena_strdup(a, f.path);
				x->name[0] = last_component(x->scale[0]);
				x->file[0] = file;
				x->step[0] = 1;
			} else {
				ok = false;
			}
		} else {
			for (int i = 0; i < shape->ndim && ok; i++) {
				if (paths && !*paths && H5DSget_num_scales(d, (unsigned)i) > 0)
					*paths = paths_read(d, a);
				struct found f = { .paths = paths ? *paths : NULL, .any = false };
				ok = H5DSget_num_scales(d, (unsigned)i) > 0 &&
				     H5DSiterate_scales(d, (unsigned)i, NULL, take_scale, &f) >= 0 && f.any;
				if (!ok)
					break;
				x->scale[i] = arena_strdup(a, f.path);
				x->name[i] = last_component(x->scale[i]);
				x->file[i] = file;
				x->step[i] = 1;
			}
		}
	} H5E_END_TRY;
	for (int i = 0; ok && i < x->ndim; i++)
		for (int j = 0; j < i; j++)
			ok = ok && strcmp(x->name[i], x->name[j]) != 0;   /* xarray refuses repeated names */
	if (ok)
		mark_unlimited(d, x);
	return ok ? x : NULL;
}

/* ---- pure name logic ---------------------------------------------------- */

static struct dims *dims_new(struct arena *a)
{
	struct dims *x = arena_alloc(a, sizeof *x);
	memset(x, 0, sizeof *x);
	return x;
}

void dims_copy_axis(struct dims *y, int j, const struct dims *x, int i)
{
	y->name[j] = x->name[i];
	y->file[j] = x->file[i];
	y->scale[j] = x->scale[i];
	y->start[j] = x->start[i];
	y->step[j] = x->step[i];
	y->seg[j] = x->seg[i];
	y->unlimited[j] = x->unlimited[i];
}

/* Does axis I of X have values of its own (a scale, or reduceat's)? */
static bool has_values(const struct dims *x, int i)
{
	return x->scale[i] || x->seg[i];
}

struct dims *dims_select(const struct dims *x, const bool *dropped, const int64_t *start,
			 const int64_t *step, const bool *inserted, struct arena *a)
{
	if (!x)
		return NULL;
	struct dims *y = dims_new(a);
	for (int i = 0; i <= x->ndim; i++) {
		while (y->ndim < H5U_MAXDIM && inserted[y->ndim])
			y->step[y->ndim++] = 1;   /* None's: no name, no scale */
		if (i == x->ndim || dropped[i])
			continue;
		int j = y->ndim++;
		dims_copy_axis(y, j, x, i);
		y->start[j] = x->start[i] + x->step[i] * start[i];
		y->step[j] = x->step[i] * step[i];
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
		int j = y->ndim++;
		dims_copy_axis(y, j, x, i);
		if (reduced[i]) {
			y->file[j] = y->scale[j] = NULL;
			y->seg[j] = NULL;
			y->unlimited[j] = false;
			y->start[j] = 0;
			y->step[j] = 1;
		}
	}
	return y;
}

/* Element E of X's axis I as the scale's: the first, lowest and highest
 * of the scale's elements it stands for (one, unless it is a segment). */
static void scale_elements(const struct dims *x, int i, int64_t e, int64_t *first, int64_t *lo,
			   int64_t *hi)
{
	int64_t k = x->start[i] + x->step[i] * e;
	const struct dims_segments *g = x->seg[i];
	*first = g ? g->first[k] : k;
	*lo = g ? g->lo[k] : k;
	*hi = g ? g->hi[k] : k;
}

static int64_t *int64s(struct arena *a, int64_t n)
{
	return arena_alloc(a, sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
}

struct dims *dims_reduceat(const struct dims *x, int axis, const int64_t *starts, int64_t n,
			   int64_t extent, struct arena *a)
{
	if (!x)
		return NULL;
	struct dims_segments *g = arena_alloc(a, sizeof *g);
	int64_t *at = int64s(a, n), *first = int64s(a, n), *lo = int64s(a, n), *hi = int64s(a, n);
	for (int64_t k = 0; k < n; k++) {
		int64_t end = k + 1 < n ? starts[k + 1] : extent;
		int64_t last = end > starts[k] + 1 ? end - 1 : starts[k];
		int64_t f, l0, h0, f1, l1, h1;
		scale_elements(x, axis, starts[k], &f, &l0, &h0);
		scale_elements(x, axis, last, &f1, &l1, &h1);
		at[k] = starts[k];
		first[k] = f;
		lo[k] = l0 < l1 ? l0 : l1;   /* a slice with a negative step runs backwards */
		hi[k] = h0 > h1 ? h0 : h1;
	}
	*g = (struct dims_segments){ at, first, lo, hi };
	struct dims *y = dims_new(a);
	*y = *x;
	y->start[axis] = 0;
	y->step[axis] = 1;
	y->seg[axis] = g;
	y->unlimited[axis] = false;
	return y;
}

unsigned dims_unlimited(const struct dims *x)
{
	unsigned grows = 0;
	for (int i = 0; x && i < x->ndim; i++)
		if (x->unlimited[i])
			grows |= 1u << i;
	return grows;
}

bool dims_named(const struct dims *x)
{
	for (int i = 0; x && i < x->ndim; i++)
		if (!x->name[i])
			return false;
	return x != NULL;
}

int dims_axis(const struct dims *x, const char *name)
{
	for (int i = 0; x && i < x->ndim; i++)
		if (x->name[i] && !strcmp(x->name[i], name))
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
				if (!has_values(u, j) && has_values(in[k], i))
					dims_copy_axis(u, j, in[k], i);
				continue;
			}
			if (u->ndim == H5U_MAXDIM) {
				*a = *b = k;
				*name = NULL;
				return -1;
			}
			owner[u->ndim] = k;
			dims_copy_axis(u, u->ndim, in[k], i);
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
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", x->name[i] ? x->name[i] : "-");
	if (n < len)
		snprintf(buf + n, len - n, ")");
	return buf;
}
