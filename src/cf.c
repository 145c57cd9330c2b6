/* cf.c - missing-value, packing and units attributes; see cf.h.
 *
 * In order: reading the missing-value attributes and testing values
 * against them; reading a dataset's coding; unpacking and packing blocks
 * (cf_decode, cf_encode: a block at a time, in pieces that stay in the
 * cache, with the catalogue's loops, so that the arithmetic is NumPy's);
 * the coding of a new packed output and NCO's choice of its scale and
 * offset; units.
 */
#include <math.h>
#include <string.h>

#include "cf.h"
#include "h5attr.h"
#include "h5io.h"
#include "ufunc.h"

/* Elements unpacked or packed at a time, through a buffer on the stack. */
#define PIECE 1024

/* ---- missing values --------------------------------------------------- */

/* Attribute NAME of D as up to N numbers of DT into OUT, as cf_missing_read
 * takes them: 0 when absent or when a value does not convert to DT exactly
 * (netCDF4-python's _check_safecast leaves such an attribute out), -1 when
 * it is not numbers. */
static int exact_numbers(hid_t d, const char *name, enum dtype dt, int n, unsigned char (*out)[16])
{
	int k = h5attr_numbers(d, name, dt, n, out);
	char kind = dtype_table[dt].kind;
	if (k <= 0 || kind == 'c')
		return k;
	unsigned char as_double[CF_MAXMISSING + 1][16];
	if (h5attr_numbers(d, name, DT_FLOAT64, n, as_double) != k)
		return 0;
	for (int i = 0; i < k; i++) {
		double a, b;
		memcpy(&a, as_double[i], sizeof a);
		dtype_cast(dt, out[i], 0, DT_FLOAT64, &b, 0, 1);
		if (a != b && !(isnan(a) && isnan(b)))
			return 0;
	}
	return k;
}

/* M's values less those that repeat an earlier one (ERA5's missing_value
 * is its _FillValue): each is tested once. */
static void drop_repeats(struct cf_missing *m, enum dtype dt)
{
	size_t size = (size_t)dtype_size(dt);
	int n = 0;
	for (int i = 0; i < m->nvalues; i++) {
		int j = 0;
		while (j < n && memcmp(m->value[j], m->value[i], size))
			j++;
		if (j == n)
			memmove(m->value[n++], m->value[i], sizeof m->value[i]);
	}
	m->nvalues = n;
}

static const char *const attr_names[CF_NATTRS] = {
	[CF_FILL_VALUE] = "_FillValue", [CF_MISSING_VALUE] = "missing_value",
	[CF_VALID_MIN] = "valid_min", [CF_VALID_MAX] = "valid_max", [CF_VALID_RANGE] = "valid_range",
	[CF_SCALE_FACTOR] = "scale_factor", [CF_ADD_OFFSET] = "add_offset", [CF_UNSIGNED] = "_Unsigned"
};

unsigned cf_attrs_present(hid_t d)
{
	return h5attr_present(d, attr_names, CF_NATTRS);
}

/* M from the missing-value attributes of the open dataset D (those
 * PRESENT says it has); the name of one that is not numbers, or NULL. */
static const char *missing_attrs(hid_t d, enum dtype dt, unsigned present, struct cf_missing *m)
{
	const char *bad = NULL;
	unsigned char range[2][16];
	int n = 0;
	if ((present & (1u << CF_FILL_VALUE)) && (n = exact_numbers(d, "_FillValue", dt, 1, m->value)) < 0)
		bad = "_FillValue";
	int k = n < 0 ? 0 : n;
	m->fill_value = k > 0;
	n = 0;
	if ((present & (1u << CF_MISSING_VALUE)) &&
	    (n = exact_numbers(d, "missing_value", dt, CF_MAXMISSING, m->value + k)) < 0)
		bad = "missing_value";
	m->nvalues = n < 0 ? k : k + n;
	drop_repeats(m, dt);
	if ((present & (1u << CF_VALID_MIN)) && (n = exact_numbers(d, "valid_min", dt, 1, &m->min)) < 0)
		bad = "valid_min";
	m->has_min = (present & (1u << CF_VALID_MIN)) && n > 0;
	if ((present & (1u << CF_VALID_MAX)) && (n = exact_numbers(d, "valid_max", dt, 1, &m->max)) < 0)
		bad = "valid_max";
	m->has_max = (present & (1u << CF_VALID_MAX)) && n > 0;
	if (!(present & (1u << CF_VALID_RANGE)))
		return bad;
	if ((n = exact_numbers(d, "valid_range", dt, 2, range)) == 2) {
		memcpy(m->min, range[0], sizeof m->min);
		memcpy(m->max, range[1], sizeof m->max);
		m->has_min = m->has_max = true;
	} else if (n < 0 || (n == 1 && h5attr_numbers(d, "valid_range", dt, 2, range) != 0)) {
		bad = "valid_range";
	}
	return bad;
}

int cf_missing_read(hid_t file, const char *path, enum dtype dt, unsigned present,
		    struct cf_missing *m, const char *where, const char *display, struct err *e)
{
	memset(m, 0, sizeof *m);
	if (dt == DT_BOOL || !(present & CF_MISSING_ATTRS))
		return 0;
	struct shape shape;
	enum dtype stored;
	hid_t d = h5io_dataset_open(file, path, &shape, &stored, where, display, e);
	if (d < 0)
		return -1;
	const char *bad = missing_attrs(d, dt, present, m);
	int64_t count = bad && !strcmp(bad, "missing_value") ? h5attr_count(d, bad) : 0;
	h5io_dataset_close(d);
	if (count > CF_MAXMISSING)
		return err_set(e, EXIT_USAGE, where, "'%s' has a missing_value attribute of %lld values: "
			       "h5ufunc reads at most %d", display, (long long)count, CF_MAXMISSING);
	if (bad)
		return err_set(e, EXIT_USAGE, where, "'%s' has a %s attribute that is not %s", display, bad,
			       !strcmp(bad, "valid_range") ? "two numbers"
			       : !strcmp(bad, "missing_value") ? "numbers" : "a number");
	return 0;
}

bool cf_missing_any(const struct cf_missing *m)
{
	return m && (m->nan || m->nvalues > 0 || m->has_min || m->has_max);
}

bool cf_missing_marker(const struct cf_missing *m, enum dtype t, void *out)
{
	size_t size = (size_t)dtype_size(t);
	if (m->nvalues > 0) {
		memcpy(out, m->value[0], size);
		return true;
	}
	char kind = dtype_table[t].kind;
	if (kind != 'f' && kind != 'i' && kind != 'u')
		return false;
	for (int end = 0; end < 2; end++) {   /* below valid_min, then above valid_max */
		if (!(end ? m->has_max : m->has_min))
			continue;
		const unsigned char *bound = end ? m->max : m->min;
		unsigned char edge[16];   /* T's own end there: -inf, +inf for floats */
		dtype_extreme(t, end, edge);
		if (!memcmp(bound, edge, size))
			continue;   /* nothing of T lies past this bound */
		if (kind == 'f') {
			memcpy(out, edge, size);
			return true;
		}
		/* one step past the bound, which is not T's end: in T's range */
		enum dtype wide = kind == 'i' ? DT_INT64 : DT_UINT64;
		union { int64_t i; uint64_t u; } v;
		dtype_cast(t, bound, 0, wide, &v, 0, 1);
		if (kind == 'i')
			v.i += end ? 1 : -1;
		else
			v.u += end ? 1 : (uint64_t)-1;
		dtype_cast(wide, &v, 0, t, out, 0, 1);
		return true;
	}
	return false;
}

/* Catalogue loop NAME over operands of T giving OUT (one or two inputs), or
 * NULL. */
static const struct ufunc_loop *loop_of(const char *name, enum dtype t, enum dtype out)
{
	const struct ufunc *uf = ufunc_lookup(name);
	for (int i = 0; uf && i < uf->nloops; i++)
		if (uf->loops[i].types[0] == t && (uf->nin == 1 || uf->loops[i].types[1] == t) &&
		    uf->loops[i].types[uf->nin] == out)
			return &uf->loops[i];
	return NULL;
}

/* DATA[i] = DATA[i] NAME VALUE (VALUE one element of T) in place, for N
 * elements of T, by the catalogue's loop: NumPy's arithmetic. */
static void apply_scalar(const char *name, enum dtype t, char *data, const unsigned char *value, size_t n)
{
	const struct ufunc_loop *l = loop_of(name, t, t);
	ptrdiff_t size = dtype_size(t);
	union { unsigned char b[16]; double d; int64_t i; } v;   /* aligned for the loop */
	memcpy(v.b, value, 16);
	char *args[3] = { data, (char *)v.b, data };
	ptrdiff_t steps[3] = { size, 0, size };
	l->fn(args, n, steps);
}

/* DATA[i] = NAME(DATA[i]) in place, for N elements of T. */
static void apply_unary(const char *name, enum dtype t, char *data, size_t n)
{
	const struct ufunc_loop *l = loop_of(name, t, t);
	char *args[2] = { data, data };
	ptrdiff_t steps[2] = { dtype_size(t), dtype_size(t) };
	l->fn(args, n, steps);
}

/* MISS[i] |= the test NAME (of one operand, or against VALUE) on DATA[i]. */
static void or_test(const char *name, enum dtype t, const char *data, const void *value, size_t n,
		    uint8_t *hit, uint8_t *miss)
{
	const struct ufunc_loop *l = loop_of(name, t, DT_BOOL);
	if (!l || !n)
		return;
	ptrdiff_t size = dtype_size(t);
	union { unsigned char b[16]; double d; int64_t i; } v;   /* VALUE, aligned for the loop */
	if (value)
		memcpy(v.b, value, (size_t)size);
	char *args[3] = { (char *)data, (char *)v.b, (char *)hit };
	ptrdiff_t steps[3] = { size, 0, 1 };
	if (!value) {
		args[1] = (char *)hit;
		steps[1] = 1;
	}
	l->fn(args, n, steps);
	for (size_t i = 0; i < n; i++)
		miss[i] |= hit[i];
}

static bool is_nan(enum dtype t, const void *v)
{
	uint8_t hit = 0, miss = 0;
	or_test("isnan", t, v, NULL, 1, &hit, &miss);
	return miss;
}

void cf_valid(enum dtype t, const struct cf_missing *m, bool nan, const char *data, int64_t n,
	      uint8_t *valid)
{
	enum { CHUNK = 4096 };
	uint8_t hit[CHUNK];
	ptrdiff_t size = dtype_size(t);
	bool floating = dtype_table[t].kind == 'f' || dtype_table[t].kind == 'c';
	nan = floating && (nan || (m && m->nan));
	for (int64_t o = 0; o < n; o += CHUNK) {
		size_t c = (size_t)(n - o < CHUNK ? n - o : CHUNK);
		const char *d = data + o * size;
		uint8_t *miss = valid + o;
		memset(miss, 0, c);
		for (int i = 0; m && i < m->nvalues; i++)
			or_test(is_nan(t, m->value[i]) ? "isnan" : "equal", t, d,
				is_nan(t, m->value[i]) ? NULL : m->value[i], c, hit, miss);
		if (m && m->has_min)
			or_test("less", t, d, m->min, c, hit, miss);
		if (m && m->has_max)
			or_test("greater", t, d, m->max, c, hit, miss);
		if (nan)
			or_test("isnan", t, d, NULL, c, hit, miss);
		for (size_t i = 0; i < c; i++)
			miss[i] = !miss[i];
	}
}

/* ---- a dataset's coding ----------------------------------------------- */

/* The unsigned dtype of T's size (_Unsigned = "true"). */
static enum dtype unsigned_of(enum dtype t)
{
	static const enum dtype u[] = { [1] = DT_UINT8, [2] = DT_UINT16, [4] = DT_UINT32, [8] = DT_UINT64 };
	return u[dtype_size(t)];
}

/* Attribute NAME of D (scale_factor, add_offset): its dtype into *DT when
 * it has one number (1), 0 when absent, -1 when not one number. */
static int scalar_dtype(hid_t d, const char *name, enum dtype *dt)
{
	unsigned char v[1][16];
	int rc = h5attr_dtype(d, name, dt);
	if (rc <= 0)
		return rc;
	return h5attr_numbers(d, name, *dt, 1, v) == 1 ? 1 : -1;
}

/* C's scale_factor and add_offset from D: their dtype is C's unpacked
 * dtype.  Errors at WHERE. */
static int read_scaling(hid_t d, struct cf_coding *c, const char *where, struct err *e)
{
	enum dtype ts = DT_NONE, to = DT_NONE;
	int s = scalar_dtype(d, "scale_factor", &ts), o = scalar_dtype(d, "add_offset", &to);
	if (s < 0 || o < 0)
		return err_set(e, EXIT_USAGE, where, "'%s' has a%s attribute that is not a number", c->display,
			       s < 0 ? " scale_factor" : "n add_offset");
	c->has_scale = s > 0;
	c->has_offset = o > 0;
	c->dtype = s > 0 && o > 0 ? dtype_promote(ts, to) : s > 0 ? ts : o > 0 ? to : c->packed;
	if ((s > 0 || o > 0) && dtype_table[c->dtype].kind != 'f')
		return err_set(e, EXIT_USAGE, where,
			       "'%s' has a %s of dtype %s: h5ufunc unpacks into floats only (read it with --missing raw)",
			       c->display, s > 0 ? "scale_factor" : "add_offset", dtype_name(c->dtype));
	if (s > 0)
		h5attr_numbers(d, "scale_factor", c->dtype, 1, (unsigned char (*)[16])c->scale);
	if (o > 0)
		h5attr_numbers(d, "add_offset", c->dtype, 1, (unsigned char (*)[16])c->offset);
	return 0;
}

/* Is _Unsigned "true" on D (netCDF4-python takes "true" and "True")? */
static bool unsigned_attr(hid_t d, struct arena *a)
{
	const char *text = h5attr_text(d, "_Unsigned", a);
	return text && (!strcmp(text, "true") || !strcmp(text, "True"));
}

int cf_coding_read(hid_t file, const char *path, enum dtype stored, unsigned present,
		   struct arena *a, const struct cf_coding **out, const char *where,
		   const char *display, struct err *e)
{
	*out = NULL;
	if (dtype_table[stored].kind == 'b' || dtype_table[stored].kind == 'c' || !present)
		return 0;
	struct cf_coding c;
	memset(&c, 0, sizeof c);
	c.stored = c.packed = c.dtype = stored;
	c.display = display;
	if (cf_missing_read(file, path, stored, present, &c.missing, where, display, e) < 0)
		return -1;
	if (present & ~CF_MISSING_ATTRS) {
		struct shape shape;
		enum dtype dt;
		hid_t d = h5io_dataset_open(file, path, &shape, &dt, where, display, e);
		if (d < 0)
			return -1;
		if (dtype_table[stored].kind == 'i' && (present & (1u << CF_UNSIGNED)) && unsigned_attr(d, a))
			c.packed = c.dtype = unsigned_of(stored);   /* the same bytes, read unsigned */
		int rc = read_scaling(d, &c, where, e);
		h5io_dataset_close(d);
		if (rc < 0)
			return -1;
	}
	c.has_fill = cf_missing_marker(&c.missing, c.packed, c.fill);   /* the same bytes as stored */
	if (!cf_coding_transforms(&c) && !cf_missing_any(&c.missing))
		return 0;
	struct cf_coding *copy = arena_alloc(a, sizeof *copy);
	*copy = c;
	*out = copy;
	return 0;
}

bool cf_coding_transforms(const struct cf_coding *c)
{
	return c && (c->has_scale || c->has_offset || c->from_range || c->packed != c->stored);
}

bool cf_coding_scales(const struct cf_coding *c)
{
	return c && (c->has_scale || c->has_offset || c->from_range);
}

void cf_coding_missing(const struct cf_coding *c, struct cf_missing *m)
{
	if (cf_coding_scales(c)) {
		memset(m, 0, sizeof *m);
		m->nan = cf_missing_any(&c->missing);
	} else {
		*m = c->missing;   /* the packed values' own bytes, as PACKED */
	}
}

/* ---- unpacking and packing -------------------------------------------- */

/* Pieces of N elements moved from SRC (S bytes each) to DST (D bytes
 * each), maybe the same buffer: in order when the elements shrink, from
 * the end when they grow, so that no piece overwrites one not yet read.
 * Returns the number of pieces; piece I starts at element *AT. */
static int64_t pieces(int64_t n)
{
	return (n + PIECE - 1) / PIECE;
}

static int64_t piece_start(int64_t i, int64_t npieces, int s, int d)
{
	return (d > s ? npieces - 1 - i : i) * PIECE;
}

/* The NaN of float dtype T into OUT. */
static void nan_of(enum dtype t, unsigned char *out)
{
	double v = NAN;
	memset(out, 0, 16);
	dtype_cast(DT_FLOAT64, &v, 0, t, out, 0, 1);
}

/* Is every value of FROM exactly a value of TO (so that a packed value's
 * tests may be made on it cast)? */
static bool cast_exact(enum dtype from, enum dtype to)
{
	char kind = dtype_table[from].kind;
	int size = dtype_size(from), bits = to == DT_FLOAT64 ? 53 : to == DT_FLOAT32 ? 24 : 0;
	if (kind == 'f')
		return dtype_size(to) >= size && dtype_table[to].kind == 'f';
	return (kind == 'i' || kind == 'u') && 8 * size - (kind == 'i') <= bits;
}

/* The fast unpacking of one piece: X holds N packed values already cast
 * (exactly) to float dtype CT, tested there against LO, HI and two fill
 * values (NaN or infinite: no test) and unpacked as x * scale + offset,
 * NaN where missing: NumPy's two roundings (cf.o is built without fused
 * multiply-adds; a scale of 1 and an offset of -0 change no value), in one
 * loop the compiler vectorizes. */
#define UNPACK(CT, NAME)                                                       \
static void unpack_##NAME(CT *x, int64_t n, const double *t)                  \
{                                                                             \
	const CT s = (CT)t[0], o = (CT)t[1], lo = (CT)t[2], hi = (CT)t[3];    \
	const CT f0 = (CT)t[4], f1 = (CT)t[5];                                \
	if (isinf(t[2]) && isinf(t[3]) && isinf(t[5])) {   /* a fill alone */ \
		for (int64_t i = 0; i < n; i++) {                             \
			CT v = x[i], u = v * s + o;                           \
			x[i] = v == f0 ? (CT)NAN : u;                         \
		}                                                             \
		return;                                                       \
	}                                                                     \
	for (int64_t i = 0; i < n; i++) {                                     \
		CT v = x[i], u = v * s + o;                                   \
		int miss = (v < lo) | (v > hi) | (v == f0) | (v == f1);      \
		x[i] = miss ? (CT)NAN : u;                                    \
	}                                                                     \
}
UNPACK(float, float32)
UNPACK(double, float64)
#undef UNPACK

/* The terms of unpack_NAME for C (scale, offset, lo, hi, two fill
 * values), when C can be unpacked so: 0, else -1. */
static int fast_terms(const struct cf_coding *c, double *t)
{
	const struct cf_missing *m = &c->missing;
	if ((c->dtype != DT_FLOAT32 && c->dtype != DT_FLOAT64) || !cast_exact(c->packed, c->dtype) ||
	    m->nvalues > 2)
		return -1;
	t[0] = 1;
	t[1] = -0.0;
	if (c->has_scale)
		dtype_cast(c->dtype, c->scale, 0, DT_FLOAT64, &t[0], 0, 1);
	if (c->has_offset)
		dtype_cast(c->dtype, c->offset, 0, DT_FLOAT64, &t[1], 0, 1);
	t[2] = -INFINITY;
	t[3] = INFINITY;
	t[4] = t[5] = INFINITY;   /* no packed value is infinite but a float's */
	if (m->has_min)
		dtype_cast(c->packed, m->min, 0, DT_FLOAT64, &t[2], 0, 1);
	if (m->has_max)
		dtype_cast(c->packed, m->max, 0, DT_FLOAT64, &t[3], 0, 1);
	for (int i = 0; i < m->nvalues; i++) {
		dtype_cast(c->packed, m->value[i], 0, DT_FLOAT64, &t[4 + i], 0, 1);
		if (isnan(t[4 + i]) || isinf(t[4 + i]))
			return -1;   /* a NaN fill marks the NaNs: the general way */
	}
	return dtype_table[c->packed].kind == 'f' ? -1 : 0;
}

/* The general unpacking of one piece: X holds N values cast to C's dtype,
 * VALID (NULL: all) says which the packed values' tests keep. */
static void unpack_tested(const struct cf_coding *c, char *x, int64_t n, const uint8_t *valid)
{
	int ds = dtype_size(c->dtype);
	unsigned char nan[16];
	nan_of(c->dtype, nan);
	if (c->has_scale)
		apply_scalar("multiply", c->dtype, x, c->scale, (size_t)n);
	if (c->has_offset)
		apply_scalar("add", c->dtype, x, c->offset, (size_t)n);
	for (int64_t k = 0; valid && k < n; k++)
		if (!valid[k])
			memcpy(x + k * ds, nan, (size_t)ds);
}

/* A coding that does not scale (_Unsigned alone) keeps the same bytes both ways:
 * copies N values of SRC to DST (nothing when they are the one buffer) and says
 * true; false, touching nothing, when C scales. */
static bool same_bytes(const struct cf_coding *c, const char *src, char *dst, int64_t n)
{
	if (cf_coding_scales(c))
		return false;
	if (src != dst)
		memcpy(dst, src, (size_t)(n * dtype_size(c->stored)));
	return true;
}

void cf_decode(const struct cf_coding *c, const char *src, char *dst, int64_t n)
{
	int ps = dtype_size(c->stored), ds = dtype_size(c->dtype);
	if (same_bytes(c, src, dst, n))
		return;
	double terms[6];
	bool fast = fast_terms(c, terms) == 0, masks = cf_missing_any(&c->missing);
	_Alignas(16) unsigned char packed[PIECE * 8];
	uint8_t valid[PIECE];
	int64_t np = pieces(n);
	for (int64_t i = 0; i < np; i++) {
		int64_t at = piece_start(i, np, ps, ds), m = n - at < PIECE ? n - at : PIECE;
		char *out = dst + at * ds;
		const char *in = src + at * ps;
		if (src == dst) {   /* kept apart from what is written */
			memcpy(packed, in, (size_t)(m * ps));
			in = (const char *)packed;
		}
		if (masks && !fast)
			cf_valid(c->packed, &c->missing, false, in, m, valid);
		dtype_cast(c->packed, in, ps, c->dtype, out, ds, (size_t)m);
		if (fast && c->dtype == DT_FLOAT32)
			unpack_float32((float *)out, m, terms);
		else if (fast)
			unpack_float64((double *)out, m, terms);
		else
			unpack_tested(c, out, m, masks ? valid : NULL);
	}
}

/* The range of integer dtype T as doubles: LO <= v < HI. */
static void int_range(enum dtype t, double *lo, double *hi)
{
	int bits = 8 * dtype_size(t);
	bool sign = dtype_table[t].kind == 'i';
	*lo = sign ? -ldexp(1, bits - 1) : 0;
	*hi = ldexp(1, sign ? bits - 1 : bits);
}

/* The packed values of one piece: VALUES (M of C's DTYPE, packed as
 * numbers already: unrounded) into OUT (M of C's PACKED); a NaN becomes
 * the fill.  Returns the index of the first value that does not fit, or M. */
static int64_t to_packed(const struct cf_coding *c, const char *values, int64_t m, char *out)
{
	int ds = dtype_size(c->dtype), ps = dtype_size(c->packed);
	bool integer = strchr("iu", dtype_table[c->packed].kind) != NULL;
	double lo = 0, hi = 0;
	if (integer)
		int_range(c->packed, &lo, &hi);
	for (int64_t k = 0; k < m; k++) {
		double v;
		dtype_cast(c->dtype, values + k * ds, 0, DT_FLOAT64, &v, 0, 1);
		if (isnan(v)) {
			if (!c->has_fill)
				return k;
			memcpy(out + k * ps, c->fill, (size_t)ps);
		} else if (!integer) {
			if (isinf(v))
				return k;
			dtype_cast(DT_FLOAT64, &v, 0, c->packed, out + k * ps, 0, 1);
		} else {
			if (!(v >= lo && v < hi))
				return k;
			int64_t i = (int64_t)v;
			uint64_t u = (uint64_t)v;
			if (dtype_table[c->packed].kind == 'i')
				dtype_cast(DT_INT64, &i, 0, c->packed, out + k * ps, 0, 1);
			else
				dtype_cast(DT_UINT64, &u, 0, c->packed, out + k * ps, 0, 1);
		}
	}
	return m;
}

/* The packed value of V that failed (not a number, out of PACKED's range,
 * or missing) in words, for cf_encode's message. */
static int refuse(const struct cf_coding *c, double v, bool missing, const char *where, struct err *e)
{
	char scale[64] = "", offset[64] = "";
	double s, o;
	if (c->has_scale) {
		dtype_cast(c->dtype, c->scale, 0, DT_FLOAT64, &s, 0, 1);
		snprintf(scale, sizeof scale, ", scale_factor %.17g", s);
	}
	if (c->has_offset) {
		dtype_cast(c->dtype, c->offset, 0, DT_FLOAT64, &o, 0, 1);
		snprintf(offset, sizeof offset, ", add_offset %.17g", o);
	}
	return err_set(e, EXIT_RUN, where, "%.17g cannot be packed into '%s' (%s%s%s): %s", v, c->display,
		       dtype_name(c->packed), scale, offset,
		       isnan(v) ? "it has no _FillValue for missing values"
		       : missing ? "it would read back as missing" : "out of range");
}

int cf_encode(const struct cf_coding *c, const char *src, char *dst, int64_t n, const char *where,
	      struct err *e)
{
	int ps = dtype_size(c->stored), ds = dtype_size(c->dtype);
	if (same_bytes(c, src, dst, n))
		return 0;
	bool integer = strchr("iu", dtype_table[c->packed].kind) != NULL;
	bool masks = cf_missing_any(&c->missing);
	_Alignas(16) unsigned char values[PIECE * 8], orig[PIECE * 8];
	uint8_t valid[PIECE], taken[PIECE];
	int64_t np = pieces(n);
	for (int64_t i = 0; i < np; i++) {
		int64_t at = piece_start(i, np, ds, ps), m = n - at < PIECE ? n - at : PIECE;
		char *v = (char *)values, *out = dst + at * ps;
		memcpy(orig, src + at * ds, (size_t)(m * ds));
		memcpy(v, orig, (size_t)(m * ds));
		if (c->has_offset)
			apply_scalar("subtract", c->dtype, v, c->offset, (size_t)m);
		if (c->has_scale)
			apply_scalar("divide", c->dtype, v, c->scale, (size_t)m);
		if (integer && (c->has_scale || c->has_offset))
			apply_unary("rint", c->dtype, v, (size_t)m);
		int64_t bad = to_packed(c, v, m, out);
		bool missing = false;
		if (bad == m && masks) {
			cf_valid(c->dtype, NULL, true, v, m, taken);   /* the values that are not NaN */
			cf_valid(c->packed, &c->missing, false, out, m, valid);
			for (bad = 0; bad < m && (valid[bad] || !taken[bad]); bad++)
				;
			missing = bad < m;
		}
		if (bad < m) {
			double x;
			dtype_cast(c->dtype, orig + bad * ds, 0, DT_FLOAT64, &x, 0, 1);
			return refuse(c, x, missing, where, e);
		}
	}
	return 0;
}

/* ---- new packed outputs ----------------------------------------------- */

struct cf_coding *cf_coding_new(enum dtype packed, enum dtype dtype, const double *scale,
				const double *offset, const char *display, struct arena *a)
{
	struct cf_coding *c = arena_alloc(a, sizeof *c);
	memset(c, 0, sizeof *c);
	c->stored = c->packed = packed;
	c->dtype = dtype;
	c->display = display;
	c->from_range = !scale && !offset;
	c->has_scale = scale != NULL;
	c->has_offset = offset != NULL;
	if (scale)
		dtype_cast(DT_FLOAT64, scale, 0, dtype, c->scale, 0, 1);
	if (offset)
		dtype_cast(DT_FLOAT64, offset, 0, dtype, c->offset, 0, 1);
	double lo, hi, fill;
	int_range(packed, &lo, &hi);
	fill = dtype_table[packed].kind == 'i' ? lo : hi - 1;
	c->has_fill = true;
	int64_t f = (int64_t)fill;
	dtype_cast(DT_INT64, &f, 0, packed, c->fill, 0, 1);
	c->missing.fill_value = true;
	c->missing.nvalues = 1;
	memcpy(c->missing.value[0], c->fill, sizeof c->fill);
	return c;
}

void cf_range_fold(struct cf_coding *c, const char *data, int64_t n)
{
	int ds = dtype_size(c->dtype);
	for (int64_t k = 0; k < n; k++) {
		double v;
		dtype_cast(c->dtype, data + k * ds, 0, DT_FLOAT64, &v, 0, 1);
		if (isnan(v))
			continue;
		if (!c->seen || v < c->lo)
			c->lo = v;
		if (!c->seen || v > c->hi)
			c->hi = v;
		c->seen = true;
	}
}

void cf_range_choose(struct cf_coding *c)
{
	/* NCO's discrete representable values: leave room for the fill */
	double lo, hi;
	int_range(c->packed, &lo, &hi);
	double ndrv = dtype_table[c->packed].kind == 'u' ? hi - 2
		      : dtype_size(c->packed) == 1 ? 254 : dtype_size(c->packed) == 2 ? 65532 : hi * 2 - 3;
	double scale = 0, offset = 0;
	if (c->seen && c->hi != c->lo) {
		if (dtype_table[c->packed].kind == 'u') {   /* [0, ndrv]: not NCO's (it packs signed only) */
			scale = (c->hi - c->lo) / ndrv;
			offset = c->lo;
		} else {   /* ncpdq: max and min at -+ ndrv / 2 */
			scale = (c->lo - c->hi) / ndrv;
			offset = 0.5 * (c->lo + c->hi);
		}
	} else if (c->seen) {
		offset = c->lo;   /* constant: scale_factor 0, not written */
	}
	dtype_cast(DT_FLOAT64, &scale, 0, c->dtype, c->scale, 0, 1);
	dtype_cast(DT_FLOAT64, &offset, 0, c->dtype, c->offset, 0, 1);
	double s, o;
	dtype_cast(c->dtype, c->scale, 0, DT_FLOAT64, &s, 0, 1);
	dtype_cast(c->dtype, c->offset, 0, DT_FLOAT64, &o, 0, 1);
	/* NCO leaves out a scale_factor of 0 or 1 and an add_offset of 0, but
	 * keeps one of them */
	c->has_scale = s != 0 && s != 1;
	c->has_offset = o != 0 || !c->has_scale;
	c->from_range = false;
}

int cf_coding_write(hid_t d, const struct cf_coding *c)
{
	if (c->has_scale && h5attr_write_number(d, "scale_factor", c->dtype, c->scale) < 0)
		return -1;
	if (c->has_offset && h5attr_write_number(d, "add_offset", c->dtype, c->offset) < 0)
		return -1;
	return 0;
}

/* ---- units ------------------------------------------------------------ */

struct units cf_units_read(hid_t d, struct arena *a)
{
	const char *text = h5attr_text(d, "units", a);
	if (!text || !*text)
		return (struct units){ UK_NONE, NULL, false, 0 };
	return (struct units){ UK_KNOWN, text, false, 0 };
}

int cf_units_write(hid_t d, struct units u)
{
	return h5attr_write_text(d, "units", u.kind == UK_KNOWN ? u.text : NULL);
}
