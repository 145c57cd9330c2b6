/* optionscheck - asserts options.h's table (options.def) and what it
 * drives: each option's fields lie apart in struct step_opts, so that
 * option_merge takes exactly a step's own options over the defaults; the
 * verbs that take each option in words; the one-liners' flags; and the
 * values and messages of those flags, --axes's lists among them
 * (tests/52-unit.bats runs it).
 */
#include <string.h>

#include "check.h"
#include "options.h"

static void check_fields(void)
{
	size_t end = offsetof(struct step_opts, mark) + sizeof ((struct step_opts *)0)->mark;
	for (int i = 0; i < OPT_COUNT; i++) {
		const struct step_option *o = &step_options[i];
		CHECK(o->first >= end && o->end > o->first && o->end <= sizeof(struct step_opts),
		      "%s: fields [%zu, %zu) after %zu", o->name, o->first, o->end, end);
		end = o->end;
	}
}

/* Merge defaults D and a step S given one option OPT: the step's value for
 * OPT, the defaults' for every other. */
static void check_merge(void)
{
	struct step_opts d, s, out;
	memset(&d, 0, sizeof d);
	memset(&s, 0, sizeof s);
	d.given = (1u << OPT_DTYPE) | (1u << OPT_AXIS);
	d.dtype = DT_FLOAT32;
	d.axis_all = false;
	d.naxis = 1;
	d.axis[0] = 1;
	d.mark[OPT_DTYPE] = (struct mark){ 2, 3 };
	s.given = (1u << OPT_AXIS) | (1u << OPT_CHUNKS);
	s.axis_all = true;
	s.naxis = 0;
	s.chunks_auto = false;
	s.nchunks = 2;
	s.chunks[1] = 7;
	s.dtype = DT_INT8;   /* not given: the defaults' stays */
	s.mark[OPT_AXIS] = (struct mark){ 5, 9 };
	option_merge(&d, &s, &out);
	CHECK(out.given == ((1u << OPT_DTYPE) | (1u << OPT_AXIS) | (1u << OPT_CHUNKS)), "given %#x", out.given);
	CHECK(out.dtype == DT_FLOAT32 && out.mark[OPT_DTYPE].line == 2, "dtype from the defaults");
	CHECK(out.axis_all && out.naxis == 0 && out.mark[OPT_AXIS].line == 5 && out.mark[OPT_AXIS].col == 9,
	      "axis from the step");
	CHECK(out.nchunks == 2 && out.chunks[1] == 7 && !out.chunks_auto, "chunks from the step");
}

static void check_verbs(void)
{
	char buf[80];
	CHECK(!strcmp(option_verbs(OPT_AXIS, buf, sizeof buf), "ufunc, reduce, accumulate and reduceat"), "axis: %s", buf);
	CHECK(!strcmp(option_verbs(OPT_AXES, buf, sizeof buf), "ufunc"), "axes: %s", buf);
	CHECK(!strcmp(option_verbs(OPT_KEEPDIMS, buf, sizeof buf), "reduce"), "keepdims: %s", buf);
	CHECK(!strcmp(option_verbs(OPT_DTYPE, buf, sizeof buf), "ufunc, reduce, accumulate, outer, expr and reduceat"),
	      "dtype: %s", buf);
	CHECK(option_applies(OPT_INITIAL, VERB_REDUCE) && !option_applies(OPT_INITIAL, VERB_ACCUMULATE) &&
	      option_applies(OPT_AXIS, VERB_ACCUMULATE) && !option_applies(OPT_AXIS, VERB_EXPR),
	      "option_applies");
}

/* One-liner W takes exactly the flags NAMES (" a b "). */
static void check_flags(enum one_liner w, const char *names)
{
	struct cli_option f[OPT_COUNT];
	int n = option_flags(w, 100, f);
	char got[256] = " ";
	for (int i = 0; i < n; i++) {
		strcat(got, f[i].name);
		strcat(got, " ");
		CHECK(f[i].id >= 100 && f[i].id < 100 + OPT_COUNT &&
		      !strcmp(step_options[f[i].id - 100].name, f[i].name), "%s: id %d", f[i].name, f[i].id);
		CHECK(f[i].has_arg == (f[i].id - 100 != OPT_KEEPDIMS && f[i].id - 100 != OPT_VDS), "%s: has_arg %d",
		      f[i].name, f[i].has_arg);
	}
	CHECK(!strcmp(got, names), "one-liner %d: flags '%s', want '%s'", (int)w, got, names);
}

/* --axes: Python's and YAML's lists and tuples, integers for one axis, an
 * empty entry; what is not a list of them. */
static void check_axes(struct step_opts *o, struct arena *a)
{
	struct err e = {0};
	int rc = option_from_flag(OPT_AXES, " [[1, 0], (0,1), [-2,-1]]", o, a, "call matmul", &e);
	CHECK(rc == 0 && o->naxes == 3 && o->axes_len[0] == 2 && o->axes[0][0] == 1 && o->axes[0][1] == 0 &&
	      o->axes_len[1] == 2 && o->axes[2][0] == -2 && (o->given & (1u << OPT_AXES)), "--axes: %s", e.msg);
	rc = option_from_flag(OPT_AXES, "[0, (1,), []]", o, a, "call vecdot", &e);
	CHECK(rc == 0 && o->naxes == 3 && o->axes_len[0] == -1 && o->axes_len[1] == 1 && o->axes[1][0] == 1 &&
	      o->axes_len[2] == 0, "--axes [0, (1,), []]: %s", e.msg);
	rc = option_from_flag(OPT_AXES, "[0, 0, 0, 0, 0]", o, a, "call vecdot", &e);
	CHECK(rc == 0 && o->naxes == 5, "five entries are counted, for the planner to refuse: %d", o->naxes);
	const char *bad[] = { "0", "[[0,1]", "[[0,x]]", "[[0,1]] x", "[[0 1]]", "[[0,99]]" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct err e2 = {0};
		char want[160];
		snprintf(want, sizeof want, "call matmul: --axes: '%s' is not a list of axes lists, such as "
			 "'[[1,0],[0,1],[0,1]]'", bad[i]);
		rc = option_from_flag(OPT_AXES, bad[i], o, a, "call matmul", &e2);
		CHECK(rc < 0 && !strcmp(e2.msg, want), "--axes %s: %s", bad[i], e2.msg);
	}
}

static void check_values(void)
{
	struct step_opts o;
	memset(&o, 0, sizeof o);
	struct err e = {0};
	struct arena a = {0};
	int rc = option_from_flag(OPT_AXIS, "0,-1", &o, &a, "reduce add", &e);
	CHECK(rc == 0 && o.naxis == 2 && o.axis[1] == -1 && (o.given & (1u << OPT_AXIS)), "--axis 0,-1: %s", e.msg);
	rc = option_from_flag(OPT_AXIS, "all", &o, &a, "reduce add", &e);
	CHECK(rc == 0 && o.axis_all, "--axis all: %s", e.msg);
	rc = option_from_flag(OPT_DTYPE, "float16", &o, &a, "call add", &e);
	CHECK(rc == 0 && o.dtype == DT_FLOAT16, "--dtype float16: %s", e.msg);
	rc = option_from_flag(OPT_DTYPE, "float17", &o, &a, "call add", &e);
	CHECK(rc < 0 && !strcmp(e.msg, "call add: --dtype: unknown dtype 'float17'"), "%s", e.msg);
	struct err e2 = {0};
	rc = option_from_flag(OPT_CASTING, "sometimes", &o, &a, "eval", &e2);
	CHECK(rc < 0 && !strcmp(e2.msg, "eval: --casting: 'sometimes' is not one of no, equiv, safe, "
				      "same_kind, unsafe"), "%s", e2.msg);
	struct err e3 = {0};
	rc = option_from_flag(OPT_AXIS, "1,-x", &o, &a, "reduce add", &e3);
	CHECK(rc < 0 && !strcmp(e3.msg, "reduce add: --axis: '1,-x' is not N[,N...] or all"), "%s", e3.msg);
	struct err e4 = {0};
	rc = option_from_flag(OPT_AXIS, "time,1,lat", &o, &a, "reduce add", &e4);
	CHECK(rc == 0 && o.naxis == 3 && !strcmp(o.axis_name[0], "time") && !o.axis_name[1] &&
	      o.axis[1] == 1 && !strcmp(o.axis_name[2], "lat"), "--axis time,1,lat: %s", e4.msg);
	struct err e5 = {0};
	rc = option_from_flag(OPT_BROADCAST, "sideways", &o, &a, "call add", &e5);
	CHECK(rc < 0 && !strcmp(e5.msg, "call add: --broadcast: 'sideways' is not name or position"), "%s", e5.msg);
	rc = option_from_flag(OPT_BROADCAST, "position", &o, &a, "call add", &e5);
	CHECK(rc == 0 && o.by_position, "--broadcast position");
	check_axes(&o, &a);
	arena_free(&a);
}

int main(void)
{
	check_fields();
	check_merge();
	check_verbs();
	check_flags(ONE_CALL, " dtype casting vds axis axes broadcast units where fill missing pack ");
	check_flags(ONE_REDUCE, " dtype initial keepdims axis units where fill missing pack ");
	check_flags(ONE_ACCUMULATE, " dtype axis units fill missing pack ");
	check_flags(ONE_EVAL, " dtype casting vds broadcast units where fill missing pack ");
	check_flags(ONE_REDUCEAT, " dtype axis units fill missing pack ");
	check_values();
	return check_done();
}
