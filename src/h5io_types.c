/* h5io_types.c - HDF5 types as dtypes, the way h5py stores them: the
 * memory type h5ufunc reads, writes and creates datasets of for each
 * dtype, the type a new dataset is stored as, and the dtype of a type
 * found in a file.  Part of the HDF5 boundary (h5io_internal.h); nothing
 * here reads or writes data (h5io_file_type may commit a type).
 */
#include <stdio.h>
#include <string.h>

#include "h5io_internal.h"
#include "iostat.h"

static hid_t bool_type = -1, half_type = -1;

void h5io_types_init(void)
{
	/* h5py's bool: an enum of int8, FALSE = 0, TRUE = 1. */
	bool_type = H5Tenum_create(H5T_NATIVE_INT8);
	int8_t v = 0;
	H5Tenum_insert(bool_type, "FALSE", &v);
	v = 1;
	H5Tenum_insert(bool_type, "TRUE", &v);
	/* h5py's float16: IEEE binary16, little-endian. */
	half_type = H5Tcopy(H5T_IEEE_F32LE);
	H5Tset_fields(half_type, 15, 10, 5, 0, 10);
	H5Tset_size(half_type, 2);
	H5Tset_ebias(half_type, 15);
	H5Tlock(bool_type);
	H5Tlock(half_type);
}

hid_t h5io_mem_type(enum dtype dt)
{
	static hid_t complex_type[2] = { -1, -1 };
	switch (dt) {
	case DT_BOOL: return bool_type;
	case DT_INT8: return H5T_NATIVE_INT8;
	case DT_UINT8: return H5T_NATIVE_UINT8;
	case DT_INT16: return H5T_NATIVE_INT16;
	case DT_UINT16: return H5T_NATIVE_UINT16;
	case DT_INT32: return H5T_NATIVE_INT32;
	case DT_UINT32: return H5T_NATIVE_UINT32;
	case DT_INT64: return H5T_NATIVE_INT64;
	case DT_UINT64: return H5T_NATIVE_UINT64;
	case DT_FLOAT16: return half_type;
	case DT_FLOAT32: return H5T_NATIVE_FLOAT;
	case DT_FLOAT64: return H5T_NATIVE_DOUBLE;
	case DT_COMPLEX64:
	case DT_COMPLEX128: {
		int k = dt == DT_COMPLEX128;
		if (complex_type[k] < 0) {
			hid_t part = k ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
			size_t size = H5Tget_size(part);
			hid_t t = H5Tcreate(H5T_COMPOUND, 2 * size);
			if (t < 0 || H5Tinsert(t, "r", 0, part) < 0 ||
			    H5Tinsert(t, "i", size, part) < 0 || H5Tlock(t) < 0) {
				if (t >= 0)
					H5Tclose(t);
				return -1;
			}
			complex_type[k] = t;
		}
		return complex_type[k];
	}
	default: return -1;
	}
}

/* Names tried for the named bool type of a file, "boolean" first (not a
 * dtype's name, which outputs often take): a name already given to
 * something else, the dataset's own, or one a dataset of the run will
 * take (h5io_reserve_paths), is passed over. */
#define BOOL_TYPE_NAME "/boolean"
#define BOOL_TYPE_TRIES 16

static const char *const *reserved;
static int nreserved;

void h5io_reserve_paths(const char *const *paths, int n)
{
	reserved = paths;
	nreserved = n;
}

/* Is NAME the dataset's own PATH, or a path the run reserved? */
static bool name_reserved(const char *name, const char *path)
{
	if (!strcmp(name, path))
		return true;
	for (int i = 0; i < nreserved; i++)
		if (!strcmp(name, reserved[i]))
			return true;
	return false;
}

/* h5py writes bool as an enum type of its own in each dataset, which
 * netCDF-C passes over: it lists a variable of an enum type only when the
 * type is a named one of the file, read before the variable (in creation
 * order, or by name where that is not tracked), as netCDF-4 itself writes
 * one.  So a new bool dataset gets the file's named "boolean" from the root
 * group (read before any group's variables), committed on first use;
 * netCDF-C then lists it as an enum of byte, netCDF4-python reads it as
 * int8, and h5py reads the named type back as numpy's bool all the same.
 * Where every name tried is taken by something else, the dataset keeps
 * h5py's own type. */
static hid_t bool_file_type(hid_t file, const char *path)
{
	for (int i = 1; i <= BOOL_TYPE_TRIES; i++) {
		char name[32];
		snprintf(name, sizeof name, i == 1 ? BOOL_TYPE_NAME : BOOL_TYPE_NAME "_%d", i);
		if (name_reserved(name, path))
			continue;
		iostat.h5_metadata++;
		htri_t there = H5Lexists(file, name, H5P_DEFAULT);
		if (there < 0)
			break;
		if (there) {
			/* a named type equal to h5py's bool is taken as it is;
			 * anything else there is passed over */
			hid_t t = H5Topen2(file, name, H5P_DEFAULT);
			if (t >= 0 && H5Tequal(t, bool_type) > 0)
				return t;
			if (t >= 0)
				H5Tclose(t);
			continue;
		}
		hid_t t = H5Tcopy(bool_type);
		hid_t tcpl = H5Pcreate(H5P_DATATYPE_CREATE);
		/* no time recorded: a run writes the same bytes whenever it runs */
		if (tcpl >= 0)
			H5Pset_obj_track_times(tcpl, 0);
		iostat.h5_metadata++;
		herr_t r = t < 0 || tcpl < 0 ? -1 : H5Tcommit2(file, name, t, H5P_DEFAULT, tcpl, H5P_DEFAULT);
		if (tcpl >= 0)
			H5Pclose(tcpl);
		if (r >= 0)
			return t;
		if (t >= 0)
			H5Tclose(t);
		break;
	}
	H5Eclear2(H5E_DEFAULT);
	return H5Tcopy(bool_type);
}

hid_t h5io_file_type(hid_t file, const char *path, enum dtype dt)
{
	if (dt == DT_BOOL)
		return bool_file_type(file, path);
	hid_t t = h5io_mem_type(dt);
	return t < 0 ? -1 : H5Tcopy(t);
}

enum dtype h5io_type_dtype(hid_t t, char *name, size_t len)
{
	size_t size = H5Tget_size(t);
	switch (H5Tget_class(t)) {
	case H5T_INTEGER: {
		bool sign = H5Tget_sign(t) == H5T_SGN_2;
		switch (size) {
		case 1: return sign ? DT_INT8 : DT_UINT8;
		case 2: return sign ? DT_INT16 : DT_UINT16;
		case 4: return sign ? DT_INT32 : DT_UINT32;
		case 8: return sign ? DT_INT64 : DT_UINT64;
		}
		snprintf(name, len, "%zu-byte integer", size);
		return DT_NONE;
	}
	case H5T_FLOAT:
		if (size == 2)
			return DT_FLOAT16;
		if (size == 4)
			return DT_FLOAT32;
		if (size == 8)
			return DT_FLOAT64;
		snprintf(name, len, "%zu-byte float", size);
		return DT_NONE;
	case H5T_ENUM: {
		int n = H5Tget_nmembers(t);
		hid_t base = H5Tget_super(t);
		bool ok = n == 2 && H5Tget_size(base) == 1 && H5Tget_class(base) == H5T_INTEGER;
		H5Tclose(base);
		for (int i = 0; ok && i < 2; i++) {
			char *m = H5Tget_member_name(t, (unsigned)i);
			int8_t v = -1;
			H5Tget_member_value(t, (unsigned)i, &v);
			ok = m && ((v == 0 && !strcmp(m, "FALSE")) || (v == 1 && !strcmp(m, "TRUE")));
			H5free_memory(m);
		}
		if (ok)
			return DT_BOOL;
		snprintf(name, len, "enum");
		return DT_NONE;
	}
	case H5T_COMPOUND: {
		/* h5py's complex: exactly the fields r then i, two floats of
		 * one size (4 or 8 bytes) and one byte order */
		bool ok = H5Tget_nmembers(t) == 2;
		size_t part = 0;
		H5T_order_t order = H5T_ORDER_ERROR;
		for (unsigned i = 0; ok && i < 2; i++) {
			char *m = H5Tget_member_name(t, i);
			hid_t mt = H5Tget_member_type(t, i);
			ok = m && !strcmp(m, i == 0 ? "r" : "i") && mt >= 0 &&
			     H5Tget_class(mt) == H5T_FLOAT &&
			     (i == 0 || (H5Tget_size(mt) == part && H5Tget_order(mt) == order));
			if (ok && i == 0) {
				part = H5Tget_size(mt);
				order = H5Tget_order(mt);
			}
			if (mt >= 0)
				H5Tclose(mt);
			H5free_memory(m);
		}
		if (ok && part == 4)
			return DT_COMPLEX64;
		if (ok && part == 8)
			return DT_COMPLEX128;
		snprintf(name, len, "compound");
		return DT_NONE;
	}
	case H5T_STRING: snprintf(name, len, "string"); break;
	case H5T_VLEN: snprintf(name, len, "variable-length"); break;
	case H5T_ARRAY: snprintf(name, len, "array"); break;
	case H5T_OPAQUE: snprintf(name, len, "opaque"); break;
	case H5T_BITFIELD: snprintf(name, len, "bitfield"); break;
	case H5T_REFERENCE: snprintf(name, len, "reference"); break;
	case H5T_TIME: snprintf(name, len, "time"); break;
	default: snprintf(name, len, "unknown"); break;
	}
	return DT_NONE;
}

bool h5io_type_swapped(hid_t t)
{
	bool compound = H5Tget_class(t) == H5T_COMPOUND && H5Tget_nmembers(t) > 0;
	hid_t part = compound ? H5Tget_member_type(t, 0) : t;
	H5T_order_t order = part >= 0 && H5Tget_size(part) > 1 ? H5Tget_order(part) : H5T_ORDER_NONE;
	if (compound && part >= 0)
		H5Tclose(part);
	return (order == H5T_ORDER_LE || order == H5T_ORDER_BE) && order != H5Tget_order(H5T_NATIVE_INT);
}
