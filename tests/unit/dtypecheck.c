/* dtypecheck - prints the dtype module's tables and conversions as text,
 * for tests/21-dtype.bats to compare with tests/dtype_ref.py (NumPy).
 *
 *   dtypecheck cancast          np.can_cast for every pair under every rule
 *   dtypecheck cancastorder     ... with one of the two in the other byte
 *                               order than the machine's, named as NumPy's
 *                               dtype.str names it (">f8")
 *   dtypecheck promote          np.promote_types for every pair
 *   dtypecheck casting          casting names, both ways
 *   dtypecheck typechar         dtype_from_typechar for printable characters
 *   dtypecheck names   < NAMES  dtype_from_name, one name a line
 *   dtypecheck cast    < GRID   dtype_cast of "FROM TO HEXBITS" lines
 *   dtypecheck inplace          in-place casts agree with out-of-place ones
 *   dtypecheck literal < TEXTS  literal_parse, literal_default_dtype,
 *                               literal_to_dtype, literal_can_cast
 *   dtypecheck print   < VALUES print_format and JSON of "DTYPE HEXBITS"
 *   dtypecheck array            print_array and print_json of a few shapes
 *
 * Values go in and out as the hexadecimal of their bits (the element's
 * bytes read as a little-endian unsigned integer of its size: a complex128
 * is 32 digits, the imaginary part's bits then the real part's), so the
 * comparison is bit for bit.
 * It checks nothing itself except that the strided and contiguous cast
 * loops agree; NumPy's answers come from dtype_ref.py.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "err.h"
#include "literal.h"
#include "print.h"

#define MAXSIZE 16   /* bytes of the widest element, complex128 */

/* Set the element of DT at P from the hexadecimal HEX of its bits (as many
 * digits as the element has, or fewer: leading zeros may be left out).
 * Returns 0, or -1 when HEX is not that. */
static int set_element_hex(enum dtype dt, void *p, const char *hex)
{
	int size = dtype_size(dt);
	size_t n = strlen(hex);
	if (n == 0 || n > 2 * (size_t)size || strspn(hex, "0123456789abcdefABCDEF") != n)
		return -1;
	unsigned char *b = p;
	memset(b, 0, (size_t)size);
	for (size_t k = 0; k < n; k++) {
		char c = hex[n - 1 - k];
		int digit = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
		b[k / 2] |= (unsigned char)(digit << (4 * (k % 2)));
	}
	return 0;
}

/* The hexadecimal of the bits of the element of DT at P, into BUF (at least
 * 2 * MAXSIZE + 1 bytes). */
static const char *hex(enum dtype dt, const void *p, char *buf)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *b = p;
	int size = dtype_size(dt);
	for (int k = 0; k < size; k++) {   /* two digits a byte, written as such */
		buf[2 * k] = digits[b[size - 1 - k] >> 4];
		buf[2 * k + 1] = digits[b[size - 1 - k] & 15];
	}
	buf[2 * size] = '\0';
	return buf;
}

static bool same_bits(enum dtype dt, const void *a, const void *b)
{
	return memcmp(a, b, (size_t)dtype_size(dt)) == 0;
}

static enum dtype need_dtype(const char *name)
{
	enum dtype dt;
	if (dtype_from_name(name, &dt) != 0) {
		fprintf(stderr, "dtypecheck: unknown dtype %s\n", name);
		exit(2);
	}
	return dt;
}

static void cancast(void)
{
	for (int a = 0; a < DT_COUNT; a++)
		for (int b = 0; b < DT_COUNT; b++)
			for (int c = CAST_NO; c <= CAST_UNSAFE; c++)
				printf("%s %s %s %d\n", dtype_name(a), dtype_name(b),
				       casting_name(c), dtype_can_cast(a, b, c));
}

static void cancastorder(void)
{
	for (int a = 0; a < DT_COUNT; a++)
		for (int b = 0; b < DT_COUNT; b++)
			for (int swap = 0; swap < 2; swap++)
				for (int c = CAST_NO; c <= CAST_UNSAFE; c++)
					printf("%s %s %s %d\n", dtype_name_order(a, swap == 0),
					       dtype_name_order(b, swap == 1), casting_name(c),
					       dtype_can_cast_order(a, swap == 0, b, swap == 1, c));
}

static void promote(void)
{
	for (int a = 0; a < DT_COUNT; a++)
		for (int b = 0; b < DT_COUNT; b++)
			printf("%s %s %s\n", dtype_name(a), dtype_name(b),
			       dtype_name(dtype_promote(a, b)));
}

static void casting(void)
{
	const char *names[] = { "no", "equiv", "safe", "same_kind", "unsafe",
				"Safe", "same-kind", "", "unsafe " };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		enum casting c;
		if (casting_from_name(names[i], &c) == 0)
			printf("'%s' %s\n", names[i], casting_name(c));
		else
			printf("'%s' unknown\n", names[i]);
	}
}

static void typechar(void)
{
	for (int c = 33; c < 127; c++) {
		enum dtype dt = dtype_from_typechar((char)c);
		if (dt != DT_NONE)
			printf("%c %s\n", c, dtype_name(dt));
	}
}

/* Read one line into BUF without its newline; 0 at end of input. */
static int read_line(char *buf, size_t size)
{
	if (!fgets(buf, (int)size, stdin))
		return 0;
	buf[strcspn(buf, "\n")] = '\0';
	return 1;
}

static void names(void)
{
	char line[256];
	while (read_line(line, sizeof line)) {
		enum dtype dt;
		printf("'%s' %s\n", line,
		       dtype_from_name(line, &dt) == 0 ? dtype_name(dt) : "unknown");
	}
}

/* Cast one run of N values of FROM to TO, contiguously (the vectorized
 * loop) and with a stride of three elements both ways, and print them. */
#define RUN_MAX 4096
static void cast_run(enum dtype from, enum dtype to, const unsigned char (*elems)[MAXSIZE],
		     size_t n)
{
	static unsigned char src[RUN_MAX * MAXSIZE], dst[RUN_MAX * MAXSIZE];
	static unsigned char ssrc[RUN_MAX * 3 * MAXSIZE], sdst[RUN_MAX * 3 * MAXSIZE + 1];
	size_t fs = (size_t)dtype_size(from), ts = (size_t)dtype_size(to);
	for (size_t i = 0; i < n; i++) {
		memcpy(src + i * fs, elems[i], fs);
		memcpy(ssrc + 3 * i * fs, elems[i], fs);
	}
	dtype_cast(from, src, (ptrdiff_t)fs, to, dst, (ptrdiff_t)ts, n);
	/* odd byte offsets too: the strided loop assumes no alignment */
	dtype_cast(from, ssrc, (ptrdiff_t)(3 * fs), to, sdst + 1, (ptrdiff_t)(3 * ts), n);
	char a[2 * MAXSIZE + 1], b[2 * MAXSIZE + 1], c[2 * MAXSIZE + 1];
	for (size_t i = 0; i < n; i++) {
		printf("%s %s %s %s", dtype_name(from), dtype_name(to),
		       hex(from, src + i * fs, a), hex(to, dst + i * ts, b));
		if (!same_bits(to, dst + i * ts, sdst + 1 + 3 * i * ts))
			printf(" strided %s", hex(to, sdst + 1 + 3 * i * ts, c));
		printf("\n");
	}
}

static void cast(void)
{
	static unsigned char elems[RUN_MAX][MAXSIZE];
	size_t n = 0;
	enum dtype from = DT_NONE, to = DT_NONE;
	char line[256], fname[32], tname[32], value[40];
	while (read_line(line, sizeof line)) {
		if (sscanf(line, "%31s %31s %39s", fname, tname, value) != 3) {
			fprintf(stderr, "dtypecheck: bad cast line: %s\n", line);
			exit(2);
		}
		enum dtype f = need_dtype(fname), t = need_dtype(tname);
		if (n > 0 && (f != from || t != to || n == RUN_MAX)) {
			cast_run(from, to, elems, n);
			n = 0;
		}
		from = f;
		to = t;
		if (set_element_hex(f, elems[n++], value) != 0) {
			fprintf(stderr, "dtypecheck: bad cast line: %s\n", line);
			exit(2);
		}
	}
	if (n > 0)
		cast_run(from, to, elems, n);
}

/* Every cast that may be done in place (TO not wider than FROM, equal
 * strides), on a run of varied bit patterns: the same as out of place. */
static void inplace(void)
{
	enum { N = 257 };
	static unsigned char buf[N * MAXSIZE], ref[N * MAXSIZE], src[N * MAXSIZE];
	uint64_t state = 0x9e3779b97f4a7c15ull;
	for (int from = 0; from < DT_COUNT; from++) {
		size_t fs = (size_t)dtype_size(from);
		for (size_t i = 0; i < N; i++) {
			/* one draw per 8 bytes (two for a complex128), its low
			 * bytes first */
			for (size_t at = 0; at < fs; at += 8) {
				state = state * 6364136223846793005ull + 1442695040888963407ull;
				uint64_t v = state >> (i % 3 == 0 ? 0 : 33);
				if (from == DT_BOOL)
					v &= 1;
				memcpy(src + i * fs + at, &v, fs - at < 8 ? fs - at : 8);
			}
		}
		for (int to = 0; to < DT_COUNT; to++) {
			size_t ts = (size_t)dtype_size(to);
			if (ts > fs)
				continue;
			memcpy(buf, src, N * fs);
			dtype_cast(from, src, (ptrdiff_t)fs, to, ref, (ptrdiff_t)fs, N);
			dtype_cast(from, buf, (ptrdiff_t)fs, to, buf, (ptrdiff_t)fs, N);
			int bad = 0;
			for (size_t i = 0; i < N; i++)
				bad += !same_bits(to, buf + i * fs, ref + i * fs);
			printf("%s %s %s\n", dtype_name(from), dtype_name(to), bad ? "differs" : "ok");
		}
	}
}

static void literal(void)
{
	static const char *const kinds[] = { "bool", "int", "float" };
	char line[512], a[2 * MAXSIZE + 1];
	unsigned char out[MAXSIZE];
	while (read_line(line, sizeof line)) {
		struct literal l;
		if (literal_parse(line, &l) != 0) {
			printf("'%s' none\n", line);
			continue;
		}
		printf("'%s' %s", line, kinds[l.kind]);
		if (l.kind == LIT_INT && l.huge)
			printf(" huge");
		else if (l.kind == LIT_INT)
			printf(" %s%" PRIu64, l.negative ? "-" : "", l.magnitude);
		printf(" %s default %s\n", hex(DT_FLOAT64, &l.f, a),
		       dtype_name(literal_default_dtype(&l)));
		for (int dt = 0; dt < DT_COUNT; dt++) {
			struct err e = { 0 };
			printf("'%s' %s ", line, dtype_name(dt));
			if (literal_to_dtype(&l, dt, out, "operand", &e) == 0)
				printf("%s", hex(dt, out, a));
			else
				printf("status %d: %s", e.status, e.msg);
			printf(" can_cast ");
			for (int c = CAST_NO; c <= CAST_UNSAFE; c++)
				printf("%d", literal_can_cast(&l, dt, c));
			printf("\n");
		}
	}
}

static void print(void)
{
	char line[256], name[32], text[64], a[2 * MAXSIZE + 1], value[40];
	unsigned char elem[MAXSIZE];
	while (read_line(line, sizeof line)) {
		if (sscanf(line, "%31s %39s", name, value) != 2) {
			fprintf(stderr, "dtypecheck: bad print line: %s\n", line);
			exit(2);
		}
		enum dtype dt = need_dtype(name);
		if (set_element_hex(dt, elem, value) != 0) {
			fprintf(stderr, "dtypecheck: bad print line: %s\n", line);
			exit(2);
		}
		printf("%s %s %s ", name, hex(dt, elem, a), print_format(dt, elem, text));
		print_json(stdout, dt, elem, 0, NULL, NULL);
		printf("\n");
	}
}

/* Arrays of every dtype in a few shapes; element k is (k - 3) * 0.75 cast
 * to the dtype, or k % 3 == 0 for bool. */
static void array(void)
{
	static const struct { int ndim; int64_t dims[4]; } shapes[] = {
		{ 0, { 0 } }, { 1, { 5 } }, { 1, { 0 } }, { 2, { 2, 3 } },
		{ 2, { 3, 1 } }, { 2, { 2, 0 } }, { 3, { 2, 2, 3 } },
		{ 4, { 2, 1, 2, 2 } },
	};
	static unsigned char data[64 * MAXSIZE];
	for (int dt = 0; dt < DT_COUNT; dt++) {
		for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
			int64_t n = 1;
			for (int i = 0; i < shapes[s].ndim; i++)
				n *= shapes[s].dims[i];
			for (int64_t k = 0; k < n; k++) {
				double v = (double)(k - 3) * 0.75;
				uint8_t b = k % 3 == 0;
				if (dt == DT_BOOL)
					dtype_cast(DT_BOOL, &b, 1, dt, data + k, 1, 1);
				else
					dtype_cast(DT_FLOAT64, &v, 8, dt,
						   data + k * dtype_size(dt), dtype_size(dt), 1);
			}
			printf("== %s shape", dtype_name(dt));
			for (int i = 0; i < shapes[s].ndim; i++)
				printf(" %" PRId64, shapes[s].dims[i]);
			printf("\n");
			print_array(stdout, dt, data, shapes[s].ndim, shapes[s].dims, NULL);
			printf("-- json\n");
			print_json(stdout, dt, data, shapes[s].ndim, shapes[s].dims, NULL);
			printf("\n");
		}
	}
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} sections[] = {
		{ "cancast", cancast }, { "cancastorder", cancastorder }, { "promote", promote }, { "casting", casting },
		{ "typechar", typechar }, { "names", names }, { "cast", cast },
		{ "inplace", inplace }, { "literal", literal }, { "print", print },
		{ "array", array },
	};
	for (size_t i = 0; argc == 2 && i < sizeof sections / sizeof sections[0]; i++) {
		if (strcmp(argv[1], sections[i].name) == 0) {
			sections[i].fn();
			return fflush(stdout) == 0 ? 0 : 1;
		}
	}
	fprintf(stderr, "usage: dtypecheck cancast|cancastorder|promote|casting|typechar|names|cast|"
		"inplace|literal|print|array\n");
	return 2;
}
