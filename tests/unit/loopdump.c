/* loopdump - run ufunc type loops over a grid of interesting values and
 * print every input and output as hex bits, for tests/loops_ref.py to
 * compare with NumPy.
 *
 *   loopdump --list                 the catalogue's elementwise ufuncs (not
 *                                   the generalized ones, which have no
 *                                   kernels), one a line:
 *                                   NAME NIN NOUT IDENTITY REORDERABLE SIG...
 *   loopdump --lookup NAME...       the ufunc each NAME resolves to, or -
 *   loopdump --identity             NAME DTYPE HEX|none for every ufunc of
 *                                   --list and dtype
 *   loopdump UFUNC [SIG...]         dump the loops of UFUNC (all, or those
 *                                   with the given NumPy signatures, "bb->b")
 *
 * A dump is, per loop:
 *   loop NAME SIG
 *   row IN... OUT... FAULT          one line per combination of grid values
 *   reduce INIT RESULT FAULT        binary loops T,T->T: INIT reduced over
 *   reducef INIT RESULT FAULT       the second input's grid, as NumPy's
 *   reducem INIT RESULT FAULT       reduce (floats and complex: reducef
 *   end                             over its finite values, reducem over
 *                                   those with magnitude in [1/2, 2]; for
 *                                   complex, both parts at most 2 and one
 *                                   at least 1/2)
 *
 * Values are printed as the hexadecimal of their bytes read as a
 * little-endian unsigned integer: a complex128 is 32 digits, the
 * imaginary part's bits then the real part's.
 *
 * The rows come from calling the loop once per element; FAULT is 1 when
 * that call raised a ufunc fault (its outputs are then unspecified).
 * loopdump also runs each loop contiguously, strided, backwards, with each
 * input broadcast and in place, and checks that every way gives the same
 * bits; a difference is reported on stderr and makes the exit status 1.
 * It decides nothing about what is right: that is NumPy's, in the script.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "ufunc.h"

#define MAXGRID 160
#define MAXSIZE 16   /* bytes of the widest element, complex128 */

struct grid {
	int n;
	_Alignas(16) unsigned char v[MAXGRID][MAXSIZE];   /* aligned: loops read them in place */
};

static int failures;

/* ---- the grids ---- */

static void grid_add(struct grid *g, enum dtype dt, const void *value)
{
	int size = dtype_size(dt);
	for (int k = 0; k < g->n; k++)
		if (memcmp(g->v[k], value, (size_t)size) == 0)
			return;
	if (g->n < MAXGRID)
		memcpy(g->v[g->n++], value, (size_t)size);
}

static void grid_add_double(struct grid *g, enum dtype dt, double d)
{
	float f = (float)d;
	uint16_t h = half_from_double(d);
	if (dt == DT_FLOAT64)
		grid_add(g, dt, &d);
	else if (dt == DT_FLOAT32)
		grid_add(g, dt, &f);
	else
		grid_add(g, dt, &h);
}

/* The complex value RE + IM j as an element of the complex DT. */
static void grid_add_complex(struct grid *g, enum dtype dt, double re, double im)
{
	unsigned char b[MAXSIZE];
	if (dt == DT_COMPLEX128) {
		memcpy(b, &re, 8);
		memcpy(b + 8, &im, 8);
	} else {
		float fr = (float)re, fi = (float)im;
		memcpy(b, &fr, 4);
		memcpy(b + 4, &fi, 4);
	}
	grid_add(g, dt, b);
}

/* The integer V wrapped to the width of DT. */
static void grid_add_int(struct grid *g, enum dtype dt, uint64_t v)
{
	unsigned char b[8];
	memcpy(b, &v, 8);        /* little-endian: the low bytes first */
	grid_add(g, dt, b);
}

/* Values every float loop meets, then each width's own extremes. */
static void float_grid(enum dtype dt, struct grid *g)
{
	static const double common[] = {
		0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5,
		3.0, -3.0, 2.0, -2.0, 7.0, -7.0, 10.0, 0.1, -0.1,
		1.0 / 3.0, 0.75, 100.0, -100.0, 1e-3, 45.0, 90.0, 180.0,
		M_PI, -M_PI / 2, M_E, 0.49999999999999994, 0.9999, -0.9999,
		1.0001, 5.5, -5.5, 12.0, 1e10, -1e10, 1e30, 1e300, -1e300,
		65504.0, 65520.0, 16777217.0, 9007199254740993.0,
		709.8, -745.2, 88.8, -103.9, 11.1, -17.4, 1e-5, 6e-8,
		INFINITY, -INFINITY, NAN, -NAN,
	};
	for (size_t k = 0; k < sizeof common / sizeof common[0]; k++)
		grid_add_double(g, dt, common[k]);
	if (dt == DT_FLOAT16) {
		static const uint16_t bits[] = {
			0x7bff, 0xfbff, 0x0400, 0x8400, 0x0001, 0x8001,
			0x03ff, 0x3c01, 0x3bff, 0x4b80,
		};
		for (size_t k = 0; k < sizeof bits / sizeof bits[0]; k++)
			grid_add(g, dt, &bits[k]);
	} else if (dt == DT_FLOAT32) {
		const float v[] = { FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN,
				    FLT_TRUE_MIN, -FLT_TRUE_MIN, nextafterf(1, 2),
				    nextafterf(1, 0), 8388609.0f };
		for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
			grid_add(g, dt, &v[k]);
	} else {
		const double v[] = { DBL_MAX, -DBL_MAX, DBL_MIN, -DBL_MIN,
				     DBL_TRUE_MIN, -DBL_TRUE_MIN, nextafter(1, 2),
				     nextafter(1, 0), 4503599627370497.0 };
		for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
			grid_add(g, dt, &v[k]);
	}
}

/* Every pair of some parts, then values that reach the special paths:
 * integer powers, |z| near 1, overflow, subnormals. */
static void complex_grid(enum dtype dt, struct grid *g)
{
	bool wide = dt == DT_COMPLEX128;
	const double big = wide ? 1e300 : 1e30, tiny = wide ? 1e-310 : 1e-40;
	const double parts[] = { 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, big,
				 INFINITY, -INFINITY, NAN };
	const size_t np = sizeof parts / sizeof parts[0];
	for (size_t k = 0; k < np * np; k++)
		grid_add_complex(g, dt, parts[k / np], parts[k % np]);
	const double extra[][2] = {
		{ 2, 0 }, { -2, 0 }, { 7, 0 }, { -4, 0 }, { 100, 0 }, { 99, 0 },
		{ -99, 0 }, { 0.1, 0.2 }, { -0.9999, 1e-4 }, { 0.75, -0.25 },
		{ 0.6, 0.8 }, { 1e-20, 1e-20 }, { 20, 1 }, { wide ? 700 : 80, 3 },
		{ tiny, -tiny }, { -1e10, 1e10 }, { 1.5, -1.25 }, { -0.5, 2 },
	};
	for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++)
		grid_add_complex(g, dt, extra[k][0], extra[k][1]);
}

/* Small and special integers, then each width's extremes, wrapped to it. */
static void integer_grid(enum dtype dt, struct grid *g)
{
	static const int64_t ints[] = {
		0, 1, -1, 2, -2, 3, -3, 5, -5, 7, -7, 8, 10, -10, 15, 16, 17, 31,
		32, 33, 63, 64, 65, 100, -100, 127, -128, 128, 255, 256, 1000,
		-1074, 1024, -150, 65535, -32768, 32767, INT32_MAX, INT32_MIN,
		(int64_t)UINT32_MAX, INT64_MAX, INT64_MIN, 6, 12, 18, 36,
		INT64_C(4294967296), INT64_C(3037000499), -INT64_C(3037000499),
	};
	int bits = 8 * dtype_size(dt);
	bool is_signed = dtype_table[dt].kind == 'i';
	uint64_t mask = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
	uint64_t top = UINT64_C(1) << (bits - 1);
	uint64_t extremes[] = {
		is_signed ? top : 0, is_signed ? top + 1 : 1,
		is_signed ? top - 1 : mask, is_signed ? top - 2 : mask - 1,
		top, top - 1,
	};
	for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++)
		grid_add_int(g, dt, (uint64_t)ints[k] & mask);
	for (size_t k = 0; k < sizeof extremes / sizeof extremes[0]; k++)
		grid_add_int(g, dt, extremes[k] & mask);
}

static void make_grid(enum dtype dt, struct grid *g)
{
	g->n = 0;
	if (dt == DT_BOOL) {
		grid_add_int(g, dt, 0);
		grid_add_int(g, dt, 1);
	} else if (dtype_table[dt].kind == 'f') {
		float_grid(dt, g);
	} else if (dtype_table[dt].kind == 'c') {
		complex_grid(dt, g);
	} else {
		integer_grid(dt, g);
	}
}

/* ---- printing ---- */

static void print_hex(enum dtype dt, const void *p)
{
	const unsigned char *b = p;
	putchar(' ');
	for (int k = dtype_size(dt) - 1; k >= 0; k--)
		printf("%02x", b[k]);
}

static void signature(const struct ufunc *uf, const struct ufunc_loop *l, char *out)
{
	int k = 0, n = 0;
	for (; k < uf->nin; k++)
		out[n++] = dtype_table[l->types[k]].typechar;
	out[n++] = '-';
	out[n++] = '>';
	for (int o = 0; o < uf->nout; o++)
		out[n++] = dtype_table[l->types[uf->nin + o]].typechar;
	out[n] = 0;
}

/* ---- running loops ---- */

/* NaN payloads and signs are not NumPy's contract (the order of the
 * operands of a commutative operation picks them): all NaNs are equal. */
static int is_nan(enum dtype dt, const unsigned char *v)
{
	if (dt == DT_FLOAT16)
		return isnan(half_to_float(*(const uint16_t *)v));
	if (dt == DT_FLOAT32)
		return isnan(*(const float *)v);
	if (dt == DT_FLOAT64)
		return isnan(*(const double *)v);
	return 0;
}

/* Whether A and B, elements of DT, are the same: the same bits, or both
 * NaN; complex values part by part. */
static int same_value(enum dtype dt, const unsigned char *a, const unsigned char *b)
{
	if (memcmp(a, b, (size_t)dtype_size(dt)) == 0)
		return 1;
	if (dt == DT_COMPLEX64)
		return same_value(DT_FLOAT32, a, b) && same_value(DT_FLOAT32, a + 4, b + 4);
	if (dt == DT_COMPLEX128)
		return same_value(DT_FLOAT64, a, b) && same_value(DT_FLOAT64, a + 8, b + 8);
	return is_nan(dt, a) && is_nan(dt, b);
}


struct run {
	const struct ufunc *uf;
	const struct ufunc_loop *loop;
	char sig[16];
	int nin, nargs;
	enum dtype type[4];
	size_t size[4];
	struct grid grid[2];
	size_t n;                 /* elements: the product of the grid sizes */
	unsigned char *in[2];     /* the inputs, all combinations */
	unsigned char *ref[2];    /* the outputs, element by element */
	unsigned char *fault;     /* per element: the call raised a fault */
};

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p) {
		fprintf(stderr, "loopdump: out of memory\n");
		exit(2);
	}
	return p;
}

static void mismatch(const struct run *r, const char *how, size_t idx, int out)
{
	if (failures < 20)
		fprintf(stderr, "loopdump: %s %s: %s differs from element by element "
			"at element %zu, output %d\n", r->uf->name, r->sig, how, idx, out);
	failures++;
}

static void fault_mismatch(const struct run *r, const char *how, int want)
{
	if (failures < 20)
		fprintf(stderr, "loopdump: %s %s: %s %s a fault\n", r->uf->name, r->sig,
			how, want ? "did not raise" : "raised");
	failures++;
}

/* Compare output O written at BASE with stride STEP for elements
 * IDX0 + k*IDXSTEP, k < COUNT, against the element-by-element outputs. */
static void compare_out(const struct run *r, const char *how, int o, const unsigned char *base,
			ptrdiff_t step, size_t idx0, size_t idxstep, size_t count)
{
	size_t size = r->size[r->nin + o];
	for (size_t k = 0; k < count; k++) {
		size_t idx = idx0 + k * idxstep;
		if (r->fault[idx])
			continue;
		const unsigned char *got = base + (ptrdiff_t)k * step, *want = r->ref[o] + idx * size;
		if (!same_value(r->type[r->nin + o], got, want)) {
			mismatch(r, how, idx, o);
			return;
		}
	}
}

static int any_fault(const struct run *r, size_t idx0, size_t idxstep, size_t count)
{
	for (size_t k = 0; k < count; k++)
		if (r->fault[idx0 + k * idxstep])
			return 1;
	return 0;
}

static void call(const struct run *r, const char *how, char **args, size_t n,
		 const ptrdiff_t *steps, int want_fault)
{
	ufunc_take_error();
	r->loop->fn(args, n, steps);
	int got = ufunc_take_error() != UFERR_NONE;
	if (got != want_fault)
		fault_mismatch(r, how, want_fault);
}

/* Inputs and outputs contiguous (STRETCH 1), every STRETCH elements apart,
 * or backwards (STRETCH -1). */
static void run_layout(const struct run *r, const char *how, int stretch)
{
	char *args[4];
	ptrdiff_t steps[4];
	unsigned char *buf[4];
	size_t n = r->n;
	for (int k = 0; k < r->nargs; k++) {
		size_t size = r->size[k];
		size_t span = stretch > 0 ? (size_t)stretch : 1;
		buf[k] = xcalloc(n * span, size);
		memset(buf[k], 0x5a, n * span * size);
		steps[k] = (ptrdiff_t)size * stretch;
		args[k] = (char *)buf[k] + (stretch < 0 ? (n ? (n - 1) * size : 0) : 0);
		if (k < r->nin)
			for (size_t i = 0; i < n; i++)
				memcpy(args[k] + (ptrdiff_t)i * steps[k], r->in[k] + i * size, size);
	}
	call(r, how, args, n, steps, any_fault(r, 0, 1, n));
	for (int o = 0; o < r->nargs - r->nin; o++)
		compare_out(r, how, o, (unsigned char *)args[r->nin + o], steps[r->nin + o], 0, 1, n);
	for (int k = 0; k < r->nargs; k++)
		free(buf[k]);
}

/* Input K broadcast (step 0) against the other input's grid. */
static void run_broadcast(const struct run *r, int k)
{
	char *args[4];
	ptrdiff_t steps[4];
	unsigned char *out[2];
	const char *how = k == 0 ? "first input broadcast" : "second input broadcast";
	size_t n1 = r->nin == 2 ? (size_t)r->grid[1].n : 1;
	size_t count = r->nin == 1 ? 4 : (size_t)r->grid[1 - k].n;
	unsigned char *other = NULL;
	if (r->nin == 2) {
		/* the other input's grid, contiguous */
		other = xcalloc(count, r->size[1 - k]);
		for (size_t c = 0; c < count; c++)
			memcpy(other + c * r->size[1 - k], r->grid[1 - k].v[c], r->size[1 - k]);
	}
	for (int o = 0; o < r->nargs - r->nin; o++)
		out[o] = xcalloc(count, r->size[r->nin + o]);
	for (int v = 0; v < r->grid[k].n; v++) {
		size_t idx0, idxstep;
		if (r->nin == 1) {
			idx0 = (size_t)v;
			idxstep = 0;
		} else if (k == 0) {
			idx0 = (size_t)v * n1;
			idxstep = 1;
		} else {
			idx0 = (size_t)v;
			idxstep = n1;
		}
		args[k] = (char *)r->grid[k].v[v];
		steps[k] = 0;
		if (r->nin == 2) {
			args[1 - k] = (char *)other;
			steps[1 - k] = (ptrdiff_t)r->size[1 - k];
		}
		for (int o = 0; o < r->nargs - r->nin; o++) {
			args[r->nin + o] = (char *)out[o];
			steps[r->nin + o] = (ptrdiff_t)r->size[r->nin + o];
		}
		call(r, how, args, count, steps, any_fault(r, idx0, idxstep, count));
		for (int o = 0; o < r->nargs - r->nin; o++)
			compare_out(r, how, o, out[o], steps[r->nin + o], idx0, idxstep, count);
	}
	for (int o = 0; o < r->nargs - r->nin; o++)
		free(out[o]);
	free(other);
}

/* The first output written over input K, same pointer and step. */
static void run_in_place(const struct run *r, int k)
{
	const char *how = k == 0 ? "in place over the first input" : "in place over the second input";
	char *args[4];
	ptrdiff_t steps[4];
	unsigned char *buf[4];
	for (int a = 0; a < r->nargs; a++) {
		buf[a] = xcalloc(r->n, r->size[a]);
		if (a < r->nin)
			memcpy(buf[a], r->in[a], r->n * r->size[a]);
		args[a] = (char *)buf[a];
		steps[a] = (ptrdiff_t)r->size[a];
	}
	args[r->nin] = args[k];
	call(r, how, args, r->n, steps, any_fault(r, 0, 1, r->n));
	compare_out(r, how, 0, (unsigned char *)args[r->nin], steps[r->nin], 0, 1, r->n);
	for (int a = 0; a < r->nargs; a++)
		free(buf[a]);
}

/* NumPy's binary reduce: INIT, then the loop with the output aliased to
 * the first input, both step 0, over SEQ (COUNT elements), contiguous and
 * every other element; prints the result. */
static void run_reduce(const struct run *r, const char *label, const unsigned char *init,
		       const struct grid *seq, const int *pick, int count)
{
	size_t size = r->size[0];
	_Alignas(16) unsigned char acc[2][MAXSIZE];
	unsigned char *contig = xcalloc((size_t)count, size),
		      *spread = xcalloc(2 * (size_t)count, size);
	for (int k = 0; k < count; k++) {
		memcpy(contig + (size_t)k * size, seq->v[pick[k]], size);
		memcpy(spread + 2 * (size_t)k * size, seq->v[pick[k]], size);
	}
	int fault[2];
	for (int way = 0; way < 2; way++) {
		memcpy(acc[way], init, size);
		char *args[3] = { (char *)acc[way], (char *)(way ? spread : contig), (char *)acc[way] };
		ptrdiff_t steps[3] = { 0, (ptrdiff_t)(size * (way ? 2 : 1)), 0 };
		ufunc_take_error();
		r->loop->fn(args, (size_t)count, steps);
		fault[way] = ufunc_take_error() != UFERR_NONE;
	}
	if (fault[0] != fault[1] || (!fault[0] && !same_value(r->type[0], acc[0], acc[1]))) {
		if (failures < 20)
			fprintf(stderr, "loopdump: %s %s: %s strided differs from contiguous\n",
				r->uf->name, r->sig, label);
		failures++;
	}
	printf("%s", label);
	print_hex(r->type[0], init);
	print_hex(r->type[0], acc[0]);
	printf(" %d\n", fault[0]);
	free(contig);
	free(spread);
}

static int finite_value(enum dtype dt, const unsigned char *v)
{
	if (dt == DT_COMPLEX64)
		return finite_value(DT_FLOAT32, v) && finite_value(DT_FLOAT32, v + 4);
	if (dt == DT_COMPLEX128)
		return finite_value(DT_FLOAT64, v) && finite_value(DT_FLOAT64, v + 8);
	if (dt == DT_FLOAT16)
		return isfinite(half_to_float(*(const uint16_t *)v));
	if (dt == DT_FLOAT32)
		return isfinite(*(const float *)v);
	if (dt == DT_FLOAT64)
		return isfinite(*(const double *)v);
	return 1;
}

/* The value of an element of a float dtype. */
static double float_value(enum dtype dt, const unsigned char *v)
{
	return dt == DT_FLOAT16 ? half_to_float(*(const uint16_t *)v)
	     : dt == DT_FLOAT32 ? *(const float *)v : *(const double *)v;
}

/* Between 1/2 and 2 in magnitude: a product or sum of many stays in
 * range, so rounding, not overflow, decides the result.  A complex value:
 * both parts at most 2 in magnitude, one at least 1/2. */
static int moderate_value(enum dtype dt, const unsigned char *v)
{
	if (dtype_table[dt].kind == 'c') {
		enum dtype part = dt == DT_COMPLEX64 ? DT_FLOAT32 : DT_FLOAT64;
		double re = fabs(float_value(part, v)), im = fabs(float_value(part, v + dtype_size(part)));
		return re <= 2 && im <= 2 && (re >= 0.5 || im >= 0.5);
	}
	double d = fabs(float_value(dt, v));
	return d >= 0.5 && d <= 2;
}

static void dump_loop(const struct ufunc *uf, const struct ufunc_loop *l)
{
	struct run r = { .uf = uf, .loop = l, .nin = uf->nin, .nargs = uf->nin + uf->nout };
	signature(uf, l, r.sig);
	for (int k = 0; k < r.nargs; k++) {
		r.type[k] = l->types[k];
		r.size[k] = (size_t)dtype_size(r.type[k]);
	}
	r.n = 1;
	for (int k = 0; k < r.nin; k++) {
		make_grid(r.type[k], &r.grid[k]);
		r.n *= (size_t)r.grid[k].n;
	}
	for (int k = 0; k < r.nin; k++) {
		r.in[k] = xcalloc(r.n, r.size[k]);
		for (size_t idx = 0; idx < r.n; idx++) {
			size_t v = r.nin == 1 ? idx : k == 0 ? idx / (size_t)r.grid[1].n
							     : idx % (size_t)r.grid[1].n;
			memcpy(r.in[k] + idx * r.size[k], r.grid[k].v[v], r.size[k]);
		}
	}
	for (int o = 0; o < r.nargs - r.nin; o++)
		r.ref[o] = xcalloc(r.n, r.size[r.nin + o]);
	r.fault = xcalloc(r.n, 1);

	/* element by element: the rows */
	printf("loop %s %s\n", uf->name, r.sig);
	for (size_t idx = 0; idx < r.n; idx++) {
		char *args[4];
		ptrdiff_t steps[4];
		for (int k = 0; k < r.nargs; k++) {
			unsigned char *base = k < r.nin ? r.in[k] : r.ref[k - r.nin];
			args[k] = (char *)base + idx * r.size[k];
			steps[k] = (ptrdiff_t)r.size[k];
		}
		ufunc_take_error();
		l->fn(args, 1, steps);
		r.fault[idx] = ufunc_take_error() != UFERR_NONE;
		printf("row");
		for (int k = 0; k < r.nargs; k++)
			print_hex(r.type[k], args[k]);
		printf(" %d\n", r.fault[idx]);
	}

	run_layout(&r, "contiguous", 1);
	run_layout(&r, "strided", 3);
	run_layout(&r, "backwards", -1);
	for (int k = 0; k < r.nin; k++)
		run_broadcast(&r, k);
	for (int k = 0; k < r.nin; k++)
		if (r.type[k] == r.type[r.nin])
			run_in_place(&r, k);

	if (r.nin == 2 && r.nargs == 3 && r.type[0] == r.type[1] && r.type[0] == r.type[2]) {
		const struct grid *seq = &r.grid[1];
		int all[MAXGRID], finite[MAXGRID], nfinite = 0, moderate[MAXGRID], nmoderate = 0;
		for (int k = 0; k < seq->n; k++) {
			all[k] = k;
			if (finite_value(r.type[1], seq->v[k]))
				finite[nfinite++] = k;
			if (moderate_value(r.type[1], seq->v[k]))
				moderate[nmoderate++] = k;
		}
		for (int v = 0; v < r.grid[0].n; v++) {
			run_reduce(&r, "reduce", r.grid[0].v[v], seq, all, seq->n);
			if (dtype_table[r.type[0]].kind != 'f' && dtype_table[r.type[0]].kind != 'c')
				continue;
			if (finite_value(r.type[0], r.grid[0].v[v]))
				run_reduce(&r, "reducef", r.grid[0].v[v], seq, finite, nfinite);
			if (moderate_value(r.type[0], r.grid[0].v[v]))
				run_reduce(&r, "reducem", r.grid[0].v[v], seq, moderate, nmoderate);
		}
	}
	printf("end\n");

	for (int k = 0; k < r.nin; k++)
		free(r.in[k]);
	for (int o = 0; o < r.nargs - r.nin; o++)
		free(r.ref[o]);
	free(r.fault);
}

/* ---- the catalogue ---- */

static const char *identity_name(enum ufunc_identity id)
{
	static const char *names[] = {
		[ID_NONE] = "none", [ID_NONE_REORDER] = "none_reorderable",
		[ID_ZERO] = "0", [ID_ONE] = "1", [ID_MINUS_ONE] = "-1",
		[ID_FALSE] = "False", [ID_TRUE] = "True", [ID_MINUS_INF] = "-inf",
	};
	return names[id];
}

static void list(void)
{
	for (int u = 0; u < ufunc_count; u++) {
		const struct ufunc *uf = &ufunc_table[u];
		char sig[16];
		if (uf->signature)
			continue;
		printf("%s %d %d %s %d", uf->name, uf->nin, uf->nout, identity_name(uf->identity),
		       ufunc_reorderable(uf));
		for (int l = 0; l < uf->nloops; l++) {
			signature(uf, &uf->loops[l], sig);
			printf(" %s", sig);
		}
		printf("\n");
	}
}

static void identities(void)
{
	for (int u = 0; u < ufunc_count; u++) {
		for (int dt = 0; dt < DT_COUNT && !ufunc_table[u].signature; dt++) {
			_Alignas(16) unsigned char v[MAXSIZE];
			printf("%s %s", ufunc_table[u].name, dtype_name((enum dtype)dt));
			if (ufunc_identity_value(&ufunc_table[u], (enum dtype)dt, v) == 0)
				print_hex((enum dtype)dt, v);
			else
				printf(" none");
			printf("\n");
		}
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: loopdump --list | --identity | --lookup NAME... | UFUNC [SIG...]\n");
		return 2;
	}
	if (strcmp(argv[1], "--list") == 0) {
		list();
		return 0;
	}
	if (strcmp(argv[1], "--identity") == 0) {
		identities();
		return 0;
	}
	if (strcmp(argv[1], "--lookup") == 0) {
		for (int k = 2; k < argc; k++) {
			const struct ufunc *uf = ufunc_lookup(argv[k]);
			printf("%s %s\n", argv[k], uf ? uf->name : "-");
		}
		return 0;
	}
	const struct ufunc *uf = ufunc_lookup(argv[1]);
	if (!uf) {
		fprintf(stderr, "loopdump: no ufunc '%s'\n", argv[1]);
		return 2;
	}
	if (uf->signature) {
		fprintf(stderr, "loopdump: %s is a generalized ufunc: its loops have no kernels\n", uf->name);
		return 2;
	}
	int dumped = 0;
	for (int l = 0; l < uf->nloops; l++) {
		char sig[16];
		signature(uf, &uf->loops[l], sig);
		int wanted = argc == 2;
		for (int k = 2; k < argc; k++)
			wanted |= strcmp(argv[k], sig) == 0;
		if (wanted) {
			dump_loop(uf, &uf->loops[l]);
			dumped++;
		}
	}
	if (argc > 2 && dumped != argc - 2) {
		fprintf(stderr, "loopdump: %s has no loop for some of the signatures given\n", uf->name);
		return 2;
	}
	return failures ? 1 : 0;
}
