/* h5attr.c - attributes of HDF5 objects; see h5attr.h.
 *
 * What it holds, in sections marked "---- NAME" in this order: the
 * `history` attribute (read with the way it is stored, written back alike);
 * typed attributes (numbers, text, copies), whose meaning is cf.c's.  The
 * memory types of dtypes and the folding of HDF5's error stacks are
 * h5io.c's (h5io_internal.h).
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5attr.h"
#include "h5io.h"
#include "h5io_internal.h"
#include "iostat.h"

/* ---- the history attribute --------------------------------------------- */

/* The root attribute "history" as a malloc'd string, or NULL when absent
 * or not a scalar string.  *KEEP is false when it exists but is no string;
 * *VLEN and *CSET tell how it is stored, so it can be written back alike. */
static char *history_read(hid_t file, bool *keep, bool *vlen, H5T_cset_t *cset)
{
	*keep = true;
	*vlen = false;
	*cset = H5T_CSET_ASCII;
	if (H5Aexists(file, "history") <= 0) {
		H5Eclear2(H5E_DEFAULT);
		return NULL;
	}
	hid_t a = H5Aopen(file, "history", H5P_DEFAULT);
	hid_t t = H5Aget_type(a), s = H5Aget_space(a);
	char *text = NULL;
	if (H5Tget_class(t) != H5T_STRING || H5Sget_simple_extent_npoints(s) != 1) {
		*keep = false;
	} else {
		*cset = H5Tget_cset(t);
		hid_t mt = H5Tcopy(H5T_C_S1);
		H5Tset_cset(mt, *cset);
		if (H5Tis_variable_str(t) > 0) {
			*vlen = true;
			H5Tset_size(mt, H5T_VARIABLE);
			char *p = NULL;
			if (H5Aread(a, mt, &p) >= 0 && p) {
				text = strdup(p);
				H5free_memory(p);
			}
		} else {
			size_t n = H5Tget_size(t);
			H5Tset_size(mt, n + 1);
			text = calloc(1, n + 2);
			if (text && H5Aread(a, mt, text) < 0) {
				free(text);
				text = NULL;
			}
		}
		H5Tclose(mt);
	}
	H5Tclose(t);
	H5Sclose(s);
	H5Aclose(a);
	H5Eclear2(H5E_DEFAULT);
	return text;
}

int h5attr_history(hid_t file, const char *line, const char *where, struct err *e)
{
	bool keep, vlen;
	H5T_cset_t cset;
	iostat.h5_metadata++;
	char *old = history_read(file, &keep, &vlen, &cset);
	if (!keep)
		return 0;   /* a history that is not a string is left as it is */
	size_t n = strlen(line) + (old && *old ? strlen(old) + 1 : 0);
	char *text = malloc(n + 1);
	if (!text)
		abort();
	if (old && *old)
		snprintf(text, n + 1, "%s\n%s", line, old);
	else
		snprintf(text, n + 1, "%s", line);
	free(old);
	if (H5Aexists(file, "history") > 0)
		H5Adelete(file, "history");
	hid_t t = H5Tcopy(H5T_C_S1);
	H5Tset_cset(t, cset);
	H5Tset_size(t, vlen ? H5T_VARIABLE : n + 1);
	H5Tset_strpad(t, H5T_STR_NULLTERM);
	hid_t s = H5Screate(H5S_SCALAR);
	hid_t a = H5Acreate2(file, "history", t, s, H5P_DEFAULT, H5P_DEFAULT);
	const char *p = text;
	herr_t r = a < 0 ? -1 : H5Awrite(a, t, vlen ? (const void *)&p : (const void *)text);
	hid_t stack = r < 0 ? H5Eget_current_stack() : -1;
	if (a >= 0)
		H5Aclose(a);
	H5Sclose(s);
	H5Tclose(t);
	free(text);
	if (r < 0) {
		err_set(e, EXIT_RUN, where, "cannot write the history attribute");
		h5io_fold_stack(e, stack);
		return -1;
	}
	return 0;
}

/* ---- attributes -------------------------------------------------------- */

/* Attribute NAME of OBJ opened, its ids into IDS (type, space,
 * attribute; -1 where not opened, h5io_close_ids closes them): how many
 * numbers it holds, 0 when OBJ has none, -1 when it is not numbers. */
static int64_t numbers_open(hid_t obj, const char *name, hid_t ids[3])
{
	ids[0] = ids[1] = ids[2] = -1;
	iostat.h5_metadata++;
	if (H5Aexists(obj, name) <= 0) {
		H5Eclear2(H5E_DEFAULT);
		return 0;
	}
	hid_t a = ids[2] = H5Aopen(obj, name, H5P_DEFAULT);
	hid_t space = ids[1] = a < 0 ? -1 : H5Aget_space(a);
	hid_t type = ids[0] = a < 0 ? -1 : H5Aget_type(a);
	hssize_t count = space < 0 ? -1 : H5Sget_simple_extent_npoints(space);
	H5T_class_t cls = type < 0 ? H5T_NO_CLASS : H5Tget_class(type);
	return count >= 1 && (cls == H5T_INTEGER || cls == H5T_FLOAT) ? (int64_t)count : -1;
}

int h5attr_numbers(hid_t obj, const char *name, enum dtype dt, int n, unsigned char (*out)[16])
{
	hid_t ids[3];
	int64_t count = numbers_open(obj, name, ids);
	int rc = count == 0 ? 0 : -1;
	unsigned char *buf = count >= 1 && count <= n ? malloc((size_t)count * 16) : NULL;
	if (buf && H5Aread(ids[2], h5io_mem_type(dt), buf) >= 0) {
		for (int64_t i = 0; i < count; i++)
			memcpy(out[i], buf + i * dtype_size(dt), (size_t)dtype_size(dt));
		rc = (int)count;
	}
	free(buf);
	h5io_close_ids(3, ids);
	H5Eclear2(H5E_DEFAULT);
	return rc;
}

int64_t h5attr_count(hid_t obj, const char *name)
{
	hid_t ids[3];
	int64_t count = numbers_open(obj, name, ids);
	h5io_close_ids(3, ids);
	H5Eclear2(H5E_DEFAULT);
	return count;
}

struct attr_names {
	const char *const *names;
	int n;
	unsigned present;
};

static herr_t attr_seen(hid_t obj, const char *name, const H5A_info_t *info, void *data)
{
	struct attr_names *a = data;
	for (int i = 0; i < a->n; i++)
		if (!strcmp(name, a->names[i]))
			a->present |= 1u << i;
	return 0;
}

unsigned h5attr_present(hid_t obj, const char *const *names, int n)
{
	struct attr_names a = { names, n, 0 };
	H5E_BEGIN_TRY {
		H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, attr_seen, &a);
	} H5E_END_TRY;
	return a.present;
}

int h5attr_dtype(hid_t obj, const char *name, enum dtype *dt)
{
	iostat.h5_metadata++;
	int rc = 0;
	H5E_BEGIN_TRY {
		hid_t a = H5Aexists(obj, name) > 0 ? H5Aopen(obj, name, H5P_DEFAULT) : -1;
		hid_t t = a >= 0 ? H5Aget_type(a) : -1;
		if (t >= 0) {
			char what[64];
			H5T_class_t cls = H5Tget_class(t);
			*dt = cls == H5T_INTEGER || cls == H5T_FLOAT ? h5io_type_dtype(t, what, sizeof what)
								      : DT_NONE;
			rc = *dt == DT_NONE ? -1 : 1;
			H5Tclose(t);
		}
		if (a >= 0)
			H5Aclose(a);
	} H5E_END_TRY;
	return rc;
}

int h5attr_write_number(hid_t obj, const char *name, enum dtype dt, const void *value)
{
	hid_t space = H5Screate(H5S_SCALAR);
	iostat.h5_metadata++;
	hid_t a = H5Acreate2(obj, name, h5io_mem_type(dt), space, H5P_DEFAULT, H5P_DEFAULT);
	herr_t r = a < 0 ? -1 : H5Awrite(a, h5io_mem_type(dt), value);
	if (a >= 0)
		H5Aclose(a);
	H5Sclose(space);
	return r < 0 ? -1 : 0;
}

char *h5attr_text(hid_t obj, const char *name, struct arena *ar)
{
	char *text = NULL;
	H5E_BEGIN_TRY {
		hid_t a = H5Aexists(obj, name) > 0 ? H5Aopen(obj, name, H5P_DEFAULT) : -1;
		hid_t t = a >= 0 ? H5Aget_type(a) : -1;
		if (t >= 0 && H5Tget_class(t) == H5T_STRING) {
			hid_t mt = H5Tcopy(H5T_C_S1);
			H5Tset_cset(mt, H5Tget_cset(t));
			if (H5Tis_variable_str(t) > 0) {
				char *s = NULL;
				H5Tset_size(mt, H5T_VARIABLE);
				if (H5Aread(a, mt, &s) >= 0 && s) {
					text = arena_strdup(ar, s);
					H5free_memory(s);
				}
			} else {
				size_t n = H5Tget_size(t);
				char *s = arena_alloc(ar, n + 1);
				H5Tset_size(mt, n + 1);
				if (H5Aread(a, mt, s) >= 0) {
					s[n] = '\0';
					text = s;
				}
			}
			H5Tclose(mt);
		}
		if (t >= 0)
			H5Tclose(t);
		if (a >= 0)
			H5Aclose(a);
	} H5E_END_TRY;
	return text;
}

/* How attribute NAME of OBJ holds one string, to write another alike:
 * its string type, with the size TEXT needs when it is of fixed length,
 * into *TYPE, and its dataspace (scalar, or one element) into *SPACE;
 * -1 when it is not one string. */
static int text_like(hid_t obj, const char *name, const char *text, hid_t *type, hid_t *space)
{
	hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
	hid_t t = a >= 0 ? H5Aget_type(a) : -1, sp = a >= 0 ? H5Aget_space(a) : -1;
	int rc = t >= 0 && sp >= 0 && H5Tget_class(t) == H5T_STRING &&
		 H5Sget_simple_extent_npoints(sp) == 1 ? 0 : -1;
	if (rc == 0) {
		*type = H5Tcopy(t);
		*space = H5Scopy(sp);
		if (H5Tis_variable_str(t) <= 0)
			H5Tset_size(*type, strlen(text) ? strlen(text) : 1);
	}
	h5io_close_ids(3, (hid_t[]){ sp, t, a });
	return rc;
}

int h5attr_write_text(hid_t obj, const char *name, const char *text)
{
	int rc = 0;
	H5E_BEGIN_TRY {
		struct arena ar = { 0 };
		const char *old = H5Aexists(obj, name) > 0 ? h5attr_text(obj, name, &ar) : NULL;
		hid_t t = -1, sp = -1;
		if (old && text && !strcmp(old, text)) {
			/* unchanged: left exactly as it is */
		} else {
			if (!text || !old || text_like(obj, name, text, &t, &sp) < 0) {
				t = H5Tcopy(H5T_C_S1);
				sp = H5Screate(H5S_SCALAR);
				H5Tset_size(t, text && *text ? strlen(text) : 1);
			}
			if (H5Aexists(obj, name) > 0)
				rc = H5Adelete(obj, name) < 0 ? -1 : 0;
			hid_t a = text && rc == 0 ? H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT) : -1;
			if (text && rc == 0)
				rc = a >= 0 && H5Awrite(a, t, H5Tis_variable_str(t) > 0 ? (const void *)&text
									 : (const void *)text) >= 0 ? 0 : -1;
			if (a >= 0)
				H5Aclose(a);
			H5Sclose(sp);
			H5Tclose(t);
		}
		arena_free(&ar);
	} H5E_END_TRY;
	return rc;
}

int h5attr_copy(hid_t src, const char *name, hid_t dst)
{
	int rc = -1;
	hid_t a = H5Aopen(src, name, H5P_DEFAULT), t = -1, sp = -1, b = -1;
	void *buf = NULL;
	if (a < 0 || (t = H5Aget_type(a)) < 0 || (sp = H5Aget_space(a)) < 0)
		goto out;
	hssize_t n = H5Sget_simple_extent_npoints(sp);
	buf = calloc((size_t)(n > 0 ? n : 1), H5Tget_size(t));
	if (!buf || H5Aread(a, t, buf) < 0)
		goto out;
	b = H5Acreate2(dst, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
	rc = b >= 0 && H5Awrite(b, t, buf) >= 0 ? 0 : -1;
	if (H5Tdetect_class(t, H5T_VLEN) > 0 || H5Tis_variable_str(t) > 0)
		H5Dvlen_reclaim(t, sp, H5P_DEFAULT, buf);
out:
	free(buf);
	h5io_close_ids(4, (hid_t[]){ b, sp, t, a });
	return rc;
}
