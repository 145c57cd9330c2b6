/* srccheck - asserts plan.h's op sources (tests/52-unit.bats runs it):
 *  - each constructor makes a source of its kind and no other, holding the
 *    index it was given; a zeroed source is none;
 *  - src_equal: equal only to a source of the same kind and indexes (two
 *    literals are equal, as are two nones);
 *  - src_slot: every result of a program of up to 64 ops has a place of
 *    its own in a table of src_slots(NOPS) entries.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "plan.h"

#define NOPS 64

static void kind_checks(void)
{
	struct op_src zero;
	memset(&zero, 0, sizeof zero);
	CHECK(src_is_none(zero) && src_equal(zero, src_none()), "a zeroed source");
	CHECK(src_is_literal(src_literal()) && !src_is_input(src_literal()) &&
	      !src_is_result(src_literal()) && !src_is_none(src_literal()), "literal");
	for (int k = 0; k < RECIPE_MAXIN; k++) {
		struct op_src s = src_input(k);
		CHECK(src_is_input(s) && !src_is_literal(s) && !src_is_result(s) && !src_is_none(s) &&
		      s.input == k, "input %d", k);
		CHECK(!src_equal(s, src_literal()) && !src_equal(s, src_result(k, 0)) &&
		      src_equal(s, src_input(k)) && !src_equal(s, src_input(k + 1)), "input %d equal", k);
	}
	for (int j = 0; j < 3; j++)
		for (int k = 0; k < RECIPE_MAXOUT; k++) {
			struct op_src s = src_result(j, k);
			CHECK(src_is_result(s) && !src_is_input(s) && !src_is_literal(s) && s.op == j &&
			      s.out == k, "result %d.%d", j, k);
			CHECK(src_equal(s, src_result(j, k)) && !src_equal(s, src_result(j + 1, k)) &&
			      !src_equal(s, src_result(j, k + 1)) && !src_equal(s, src_input(j)),
			      "result %d.%d equal", j, k);
		}
	CHECK(src_equal(src_literal(), src_literal()) && !src_equal(src_literal(), src_none()), "literals");
}

static void slot_checks(void)
{
	for (int nops = 1; nops <= NOPS; nops++) {
		int n = src_slots(nops);
		char *used = calloc((size_t)n, 1);
		int distinct = 0;
		for (int j = 0; j < nops; j++)
			for (int k = 0; k < RECIPE_MAXOUT; k++) {
				int i = src_slot(src_result(j, k));
				bool inside = i >= 0 && i < n;
				CHECK(inside && !used[i], "%d ops: result %d.%d at %d of %d", nops, j, k, i, n);
				if (inside && !used[i]++)
					distinct++;
			}
		CHECK(distinct == nops * RECIPE_MAXOUT, "%d ops: %d places", nops, distinct);
		free(used);
	}
}

int main(void)
{
	kind_checks();
	slot_checks();
	return check_done();
}
