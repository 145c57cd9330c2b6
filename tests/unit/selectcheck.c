/* selectcheck - select.h on its own: NumPy basic slicing and overlap.
 *
 *   selectcheck          asserts: NumPy's messages for bad selections,
 *                        what select_may_overlap says of overlapping and
 *                        disjoint selections, select_same_view
 *   selectcheck grid     reads lines "D0,D1,... SELECTION" (extents of a
 *                        dataset, then "[...]") and prints, for each, the
 *                        selection's shape and the row-major flat indices of
 *                        the dataset elements it selects, in order (or
 *                        "error"), for tests/52-unit.bats to compare with
 *                        NumPy's indexing of an arange of those extents
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "check.h"
#include "select.h"

static struct arena arena;

/* The view of TEXT ("[...]") on a dataset of extents DIMS; 0, or -1 with E. */
static int view_of(int ndim, const int64_t *dims, const char *text, struct array *x, struct err *e)
{
	char buf[512];
	snprintf(buf, sizeof buf, "f.h5:/x%s", text);
	struct operand op;
	if (operand_parse(buf, &arena, &op, "", e) < 0)
		return -1;
	struct shape dshape = { .ndim = ndim };
	memcpy(dshape.dim, dims, sizeof *dims * (size_t)ndim);
	memset(x, 0, sizeof *x);
	x->kind = ARR_DATASET;
	x->selected = true;
	return select_view(&op, &dshape, &x->view, &x->shape, buf, "w", e);
}

static void print_grid_line(char *line)
{
	int64_t dims[H5U_MAXDIM];
	int ndim = 0;
	char *sel = strchr(line, ' ');
	if (!sel)
		return;
	*sel++ = '\0';
	sel[strcspn(sel, "\n")] = '\0';
	for (char *t = strtok(line, ","); t && ndim < H5U_MAXDIM; t = strtok(NULL, ","))
		dims[ndim++] = strtoll(t, NULL, 10);
	struct array x;
	struct err e = {0};
	if (view_of(ndim, dims, sel, &x, &e) < 0) {
		printf("error\n");
		return;
	}
	printf("(");
	for (int i = 0; i < x.shape.ndim; i++)
		printf("%s%" PRId64, i ? ", " : "", x.shape.dim[i]);
	printf("%s):", x.shape.ndim == 1 ? "," : "");
	/* walk the selected elements in row-major order of the selection */
	int64_t j[H5U_MAXDIM] = {0}, n = 1;
	for (int i = 0; i < ndim; i++)
		n *= x.view.count[i];
	for (int64_t k = 0; k < n; k++) {
		int64_t flat = 0;
		for (int i = 0; i < ndim; i++)
			flat = flat * dims[i] + x.view.start[i] + x.view.step[i] * j[i];
		printf(" %" PRId64, flat);
		for (int i = ndim - 1; i >= 0; i--) {
			if (++j[i] < x.view.count[i])
				break;
			j[i] = 0;
		}
	}
	printf("\n");
}

/* TEXT on DIMS fails with MESSAGE ("w: 'f.h5:/x[...]': ...", without
 * "w: " for text that does not parse). */
static void check_error(int ndim, const int64_t *dims, const char *text, const char *message)
{
	struct array x;
	struct err e = {0};
	CHECK(view_of(ndim, dims, text, &x, &e) < 0 && e.status == EXIT_USAGE && !strcmp(e.msg, message),
	      "%s: got '%s', want '%s'", text, e.msg, message);
}

static bool overlap(int ndim, const int64_t *dims, const char *a, const char *b)
{
	struct array x, y;
	struct err e = {0};
	bool ok = view_of(ndim, dims, a, &x, &e) == 0 && view_of(ndim, dims, b, &y, &e) == 0;
	CHECK(ok, "%s or %s: %s", a, b, e.msg);
	if (!ok)
		return false;
	return select_may_overlap(&x, &y);
}

static void check_all(void)
{
	const int64_t d2[] = { 10, 6 }, d3[] = { 4, 5, 6 };
	check_error(2, d2, "[1, 2, 3]", "w: 'f.h5:/x[1, 2, 3]': too many indices for array: "
		    "array is 2-dimensional, but 3 were indexed");
	check_error(2, d2, "[10]", "w: 'f.h5:/x[10]': index 10 is out of bounds for axis 0 with size 10");
	check_error(2, d2, "[:, -7]", "w: 'f.h5:/x[:, -7]': index -7 is out of bounds for axis 1 with size 6");
	check_error(2, d2, "[::0]", "w: 'f.h5:/x[::0]': slice step cannot be zero");
	check_error(2, d2, "[None, 10]", "w: 'f.h5:/x[None, 10]': index 10 is out of bounds for axis 0 with size 10");
	check_error(2, d2, "[1, None, 2, None, 3]", "w: 'f.h5:/x[1, None, 2, None, 3]': too many indices for "
		    "array: array is 2-dimensional, but 3 were indexed");
	check_error(2, d2, "[-99999999999999999999]", "'f.h5:/x[-99999999999999999999]': only integers, "
		    "slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are "
		    "valid indices");
	check_error(2, d2, "[None None]", "'f.h5:/x[None None]': a selection is NumPy basic slicing: "
		    "[start:stop:step, index, None, ...]");
	check_error(3, d3, "[..., 1, ...]", "w: 'f.h5:/x[..., 1, ...]': an index can only have a single "
		    "ellipsis ('...')");
	CHECK(overlap(2, d2, "[0:5]", "[4:10]"), "rows 0-4 and 4-9 share row 4");
	CHECK(!overlap(2, d2, "[0:5]", "[5:10]"), "rows 0-4 and 5-9 are disjoint");
	CHECK(!overlap(2, d2, "[:, 0:3]", "[:, 3:]"), "columns 0-2 and 3-5 are disjoint");
	CHECK(overlap(2, d2, "[::2]", "[1::2]"), "even and odd rows: conservative, their boxes meet");
	CHECK(!overlap(3, d3, "[..., 0]", "[..., 5]"), "last-axis planes 0 and 5 are disjoint");
	CHECK(overlap(3, d3, "[1]", "[:, 2]"), "a plane and a column of planes meet");
	CHECK(!overlap(2, d2, "[3]", "[4]"), "rows 3 and 4 are disjoint");
	CHECK(overlap(2, d2, "[::-1]", "[9]"), "all rows backwards hold row 9");
	CHECK(!overlap(2, d2, "[4::-1]", "[5:]"), "rows 4-0 and 5-9 are disjoint");
	CHECK(overlap(2, d2, "[4::-2]", "[0]"), "rows 4, 2, 0 hold row 0");
	CHECK(!overlap(2, d2, "[3:5:-1]", "[:]"), "an empty selection meets nothing");
	struct array x, y;
	struct err e = {0};
	CHECK(view_of(2, d2, "[1:3, -2:]", &x, &e) == 0 && view_of(2, d2, "[1:3:1, 4:6]", &y, &e) == 0 &&
	      select_same_view(&x.view, &y.view), "[1:3, -2:] is [1:3:1, 4:6] on (10, 6): %s", e.msg);
	CHECK(view_of(2, d2, "[1:3, 4]", &y, &e) == 0 && !select_same_view(&x.view, &y.view),
	      "[1:3, -2:] is not [1:3, 4]");
	CHECK(view_of(2, d2, "[2:0:-1, 4:6]", &y, &e) == 0 && !select_same_view(&x.view, &y.view),
	      "[1:3, -2:] is not [2:0:-1, 4:6]: the same elements, another order");
	CHECK(view_of(2, d2, "[None, 1:3, -2:]", &y, &e) == 0 && !select_same_view(&x.view, &y.view),
	      "[1:3, -2:] is not [None, 1:3, -2:]");
	CHECK(view_of(2, d2, "[3:4, 0x4:6]", &x, &e) == 0 && view_of(2, d2, "[3:2:-1, 1_0-6:]", &y, &e) < 0,
	      "1_0-6 is no integer");
	CHECK(view_of(2, d2, "[3:2:-1, 0b100:-10**0]", &y, &e) < 0, "10**0 is no integer");
	CHECK(view_of(2, d2, "[3:2:-1, 0b100:None:None]", &y, &e) == 0 && select_same_view(&x.view, &y.view),
	      "one element backwards is one element forwards: %s", e.msg);
	int64_t box[] = { 3, 4 };
	char v[12] = "abcdefghijkl";
	CHECK(view_of(2, d2, "[::-1, ::-2]", &x, &e) == 0, "[::-1, ::-2]: %s", e.msg);
	select_reverse(&x.view, box, 1, v);
	CHECK(!memcmp(v, "lkjihgfedcba", 12), "a 3x4 box turned round along both axes: %.12s", v);
	char w[24] = "aabbccddeeffgghhiijjkkll";
	CHECK(view_of(2, d2, "[::-1, 1]", &x, &e) == 0, "[::-1, 1]: %s", e.msg);
	box[0] = 4;
	box[1] = 1;
	select_reverse(&x.view, box, 6, w);
	CHECK(!memcmp(w, "jjkkllgghhiiddeeffaabbcc", 24), "rows of 6 bytes turned round: %.24s", w);
}

int main(int argc, char **argv)
{
	int rc = 0;
	if (argc == 2 && !strcmp(argv[1], "grid")) {
		char line[1024];
		while (fgets(line, sizeof line, stdin))
			print_grid_line(line);
	} else if (argc == 1) {
		check_all();
		rc = check_done();
	} else {
		fprintf(stderr, "usage: selectcheck [grid]\n");
		rc = 2;
	}
	arena_free(&arena);
	return rc;
}
