/* resolvecheck - asserts resolve.h's answers, NumPy 2's, without a file:
 * loop selection for arrays and NEP 50 weak literals, true division, the
 * bool refusals and their messages, dtype= and casting=, literal
 * conversion, and the dtypes of reduce and accumulate (tests/52-unit.bats
 * runs it).  The catalogue's behaviour flags are checked against the
 * ufuncs NumPy gives that behaviour.
 */
#include <string.h>

#include "check.h"
#include "literal.h"
#include "resolve.h"

/* The site errors are raised at: its text starts the message, its place
 * is recorded (a literal's error through err_place, the others by err_at). */
static const struct site at = { "w", { "r.yaml", 3, 5, "step 1 (ufunc add)" } };

static bool placed(const struct err *e)
{
	return !memcmp(&e->loc, &at.loc, sizeof at.loc);
}

static struct array array_of(enum dtype dt)
{
	struct array x = { .kind = ARR_DATASET, .dtype = dt, .display = "x" };
	return x;
}

static struct array literal_of(const char *text)
{
	struct array x = { .kind = ARR_LITERAL, .display = text };
	CHECK(literal_parse(text, &x.lit) == 0, "'%s' is a literal", text);
	x.lit.text = text;
	x.dtype = literal_default_dtype(&x.lit);
	return x;
}

/* The loop of NAME over A (and B), with dtype= DTYPE (DT_NONE: none) under
 * CASTING; NULL with E set when none. */
static const struct ufunc_loop *loop_of(const char *name, const struct array *a, const struct array *b,
					enum dtype dtype, enum casting casting, struct err *e)
{
	const struct ufunc *uf = ufunc_lookup(name);
	const struct array *in[2] = { a, b };
	struct step_opts o = {0};
	if (dtype != DT_NONE) {
		o.given = 1u << OPT_DTYPE;
		o.dtype = dtype;
	}
	return resolve_loop(uf, b ? 2 : 1, in, &o, casting, &at, e);
}

/* NAME(A, B) runs the loop IN1, IN2 -> OUT. */
static void check_loop(const char *name, struct array a, struct array b, enum dtype in1, enum dtype in2,
		       enum dtype out)
{
	struct err e = {0};
	const struct ufunc_loop *l = loop_of(name, &a, &b, DT_NONE, CAST_SAME_KIND, &e);
	CHECK(l && l->types[0] == in1 && l->types[1] == in2 && l->types[2] == out,
	      "%s(%s %s, %s %s): %s", name, dtype_name(a.dtype), a.display, dtype_name(b.dtype), b.display,
	      l ? dtype_name(l->types[2]) : e.msg);
}

static void check_refused(const char *name, struct array a, const struct array *b, enum dtype dtype,
			  enum casting casting, const char *message)
{
	struct err e = {0};
	const struct ufunc_loop *l = loop_of(name, &a, b, dtype, casting, &e);
	CHECK(!l && e.status == EXIT_USAGE && !strcmp(e.msg, message), "%s: got '%s', want '%s'", name,
	      l ? "a loop" : e.msg, message);
}

static void check_calls(void)
{
	struct array i8 = array_of(DT_INT8), u8 = array_of(DT_UINT8), i32 = array_of(DT_INT32),
		     f32 = array_of(DT_FLOAT32), f16 = array_of(DT_FLOAT16), b = array_of(DT_BOOL),
		     i64 = array_of(DT_INT64), c64 = array_of(DT_COMPLEX64);
	check_loop("add", i8, literal_of("2"), DT_INT8, DT_INT8, DT_INT8);          /* weak: stays int8 */
	check_loop("multiply", f32, literal_of("2.5"), DT_FLOAT32, DT_FLOAT32, DT_FLOAT32);
	check_loop("multiply", i32, literal_of("2.5"), DT_FLOAT64, DT_FLOAT64, DT_FLOAT64);
	check_loop("add", u8, i8, DT_INT16, DT_INT16, DT_INT16);
	check_loop("add", literal_of("2"), f16, DT_FLOAT16, DT_FLOAT16, DT_FLOAT16);
	check_loop("add", b, b, DT_BOOL, DT_BOOL, DT_BOOL);
	check_loop("add", b, literal_of("1"), DT_INT64, DT_INT64, DT_INT64);      /* weak int over bool: default int */
	check_loop("divide", i8, i8, DT_FLOAT64, DT_FLOAT64, DT_FLOAT64);         /* true division */
	check_loop("true_divide", b, i32, DT_FLOAT64, DT_FLOAT64, DT_FLOAT64);
	check_loop("divide", f32, i8, DT_FLOAT32, DT_FLOAT32, DT_FLOAT32);
	check_loop("multiply", c64, literal_of("2.5"), DT_COMPLEX64, DT_COMPLEX64, DT_COMPLEX64);
	check_loop("logical_and", i32, f32, DT_FLOAT64, DT_FLOAT64, DT_BOOL);
	check_loop("less", i64, array_of(DT_UINT64), DT_INT64, DT_UINT64, DT_BOOL);  /* NumPy 2's exact loop */
	check_refused("subtract", b, &b, DT_NONE, CAST_SAME_KIND,
		      "w: numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` "
		      "operator, or the logical_xor function instead.");
	check_refused("negative", b, NULL, DT_NONE, CAST_SAME_KIND,
		      "w: The numpy boolean negative, the `-` operator, is not supported, use the `~` operator or "
		      "the logical_not function instead.");
	check_refused("gcd", b, &b, DT_NONE, CAST_SAME_KIND,
		      "w: ufunc 'gcd' did not contain a loop with signature matching types (bool, bool)");
	check_refused("sign", b, NULL, DT_NONE, CAST_SAME_KIND,
		      "w: ufunc 'sign' did not contain a loop with signature matching types (bool)");
	check_refused("add", i64, &i64, DT_FLOAT32, CAST_SAFE,
		      "w: Cannot cast ufunc 'add' input 0 from int64 to float32 with casting rule 'safe'");
	check_refused("add", f32, &i32, DT_NONE, CAST_NO,
		      "w: Cannot cast ufunc 'add' input 0 from float32 to float64 with casting rule 'no'");
	check_refused("bitwise_and", f32, &f32, DT_NONE, CAST_SAME_KIND,
		      "w: ufunc 'bitwise_and' not supported for the input types, and the inputs could not be "
		      "safely coerced to any supported types according to the casting rule ''safe''");
	check_refused("isnan", f32, NULL, DT_INT8, CAST_SAME_KIND,
		      "w: No loop matching the specified signature and casting was found for ufunc isnan");
	struct err e = {0};
	const struct ufunc_loop *l = loop_of("add", &i64, &i64, DT_FLOAT32, CAST_SAME_KIND, &e);
	CHECK(l && l->types[2] == DT_FLOAT32, "add(int64, int64, dtype=float32): %s", e.msg);
	l = loop_of("add", &i8, &i8, DT_NONE, CAST_SAME_KIND, &e);
	CHECK(l && l->types[0] == DT_INT8, "add(int8, int8): %s", e.msg);
}

/* Weak literals convert to the loop's dtype, or fail as NumPy 2 does. */
static void check_literals(void)
{
	struct array i8 = array_of(DT_INT8), f16 = array_of(DT_FLOAT16);
	struct array big = literal_of("300"), two = literal_of("2"), huge = literal_of("1e300");
	struct err e = {0};
	const struct ufunc_loop *l = loop_of("add", &i8, &big, DT_NONE, CAST_SAME_KIND, &e);
	CHECK(l && l->types[1] == DT_INT8, "add(int8, 300) picks the int8 loop: %s", e.msg);
	struct plan_op op = { .loop = l, .nin = 2, .nout = 1 };
	int rc = l ? resolve_literal(&big, &op, 1, DT_INT8, &at, &e) : -1;
	CHECK(rc < 0 && !strcmp(e.msg, "w: Python integer 300 out of bounds for int8"), "300 to int8: %s", e.msg);
	CHECK(placed(&e), "300 to int8 points at its site: %s:%d:%d", e.loc.source, e.loc.line, e.loc.col);
	struct err e2 = {0};
	rc = l ? resolve_literal(&two, &op, 1, DT_INT8, &at, &e2) : -1;
	CHECK(rc == 0 && src_is_literal(op.src[1]) && *(signed char *)op.lit[1] == 2, "2 to int8: %s", e2.msg);
	l = loop_of("add", &f16, &huge, DT_NONE, CAST_SAME_KIND, &e2);
	struct plan_op op16 = { .loop = l, .nin = 2, .nout = 1 };
	rc = l && l->types[1] == DT_FLOAT16 ? resolve_literal(&huge, &op16, 1, DT_FLOAT16, &at, &e2) : -1;
	CHECK(rc == 0, "1e300 to float16 overflows to inf, no error: %s", e2.msg);
}

/* A comparison of an integer operand with a weak integer literal out of its
 * range runs the loop of the comparison with the dtype's maximum that gives
 * NumPy 2's fixed result, under its own name (OTHER: the other operand's
 * dtype). */
static void check_comparison(const char *name, enum dtype dt, const char *text, int k,
			     enum dtype other, const char *becomes, long long max)
{
	struct array x = array_of(dt), lit = literal_of(text);
	const struct array *in[2] = { k ? &x : &lit, k ? &lit : &x };
	struct err e = {0};
	const struct ufunc_loop *l = loop_of(name, in[0], in[1], DT_NONE, CAST_SAME_KIND, &e);
	struct plan_op op = { .uf = ufunc_lookup(name), .loop = l, .nin = 2, .nout = 1 };
	int rc = l ? resolve_literal(&lit, &op, k, other, &at, &e) : -1;
	long long value = 0;
	if (rc == 0)
		dtype_cast(dt, op.lit[k], 0, DT_INT64, &value, 0, 1);
	const struct ufunc *want = ufunc_lookup(becomes);
	bool runs = rc == 0 && op.loop >= want->loops && op.loop < want->loops + want->nloops;
	CHECK(runs && !strcmp(op.uf->name, name) && op.loop->types[k] == dt && value == max,
	      "%s(%s %s) at %d: %s, want %s's loop against %lld", name, dtype_name(dt), text, k,
	      rc ? e.msg : runs ? "its loop" : "another loop", becomes, max);
}

static void check_comparisons(void)
{
	check_comparison("equal", DT_UINT8, "-1", 1, DT_UINT8, "greater", 255);        /* False */
	check_comparison("not_equal", DT_UINT8, "-1", 1, DT_UINT8, "less_equal", 255); /* True */
	check_comparison("less", DT_INT8, "300", 1, DT_INT8, "less_equal", 127);       /* True */
	check_comparison("less", DT_INT8, "-300", 1, DT_INT8, "greater", 127);         /* False */
	check_comparison("less", DT_INT8, "300", 0, DT_INT8, "less", 127);             /* False */
	check_comparison("greater_equal", DT_INT16, "-40000", 0, DT_INT16, "less", 32767);
	check_comparison("greater", DT_UINT64, "-1", 1, DT_UINT64, "less_equal", -1);  /* 2**64-1 */
	check_comparison("equal", DT_UINT8, "7", 1, DT_UINT8, "equal", 7);             /* in range */
	struct array b = array_of(DT_BOOL), huge = literal_of("18446744073709551616");
	struct err e = {0};
	const struct ufunc_loop *l = loop_of("equal", &b, &huge, DT_NONE, CAST_SAME_KIND, &e);
	struct plan_op op = { .uf = ufunc_lookup("equal"), .loop = l, .nin = 2, .nout = 1 };
	int rc = l ? resolve_literal(&huge, &op, 1, DT_BOOL, &at, &e) : 0;
	CHECK(rc < 0 && !strcmp(e.msg, "w: Python int too large to convert to C long"),
	      "equal(bool, 2**64) is NumPy's OverflowError: %s", e.msg);
}

/* NAME's reduce (or accumulate) of IN runs in ACC. */
static void check_reduction(const char *name, enum verb verb, enum dtype in, enum dtype acc)
{
	struct array x = array_of(in);
	struct plan_step s = { .verb = verb, .uf = ufunc_lookup(name), .nin = 1, .in = { &x } };
	struct step_opts o = {0};
	struct err e = {0};
	int rc = resolve_reduction_loop(&s, &o, &at, &e);
	CHECK(rc == 0 && s.loop->types[0] == acc, "%s.%s(%s): %s, want %s", name, verb_name(verb),
	      dtype_name(in), rc ? e.msg : dtype_name(s.loop->types[0]), dtype_name(acc));
}

static void check_reductions(void)
{
	check_reduction("add", VERB_REDUCE, DT_INT8, DT_INT64);
	check_reduction("add", VERB_REDUCE, DT_BOOL, DT_INT64);
	check_reduction("multiply", VERB_ACCUMULATE, DT_UINT16, DT_UINT64);
	check_reduction("add", VERB_REDUCE, DT_INT64, DT_INT64);
	check_reduction("add", VERB_REDUCE, DT_FLOAT32, DT_FLOAT32);
	check_reduction("maximum", VERB_REDUCE, DT_INT8, DT_INT8);
	check_reduction("logical_or", VERB_REDUCE, DT_FLOAT64, DT_BOOL);
	check_reduction("logical_xor", VERB_ACCUMULATE, DT_INT32, DT_BOOL);
	check_reduction("divide", VERB_REDUCE, DT_INT16, DT_FLOAT64);
	check_reduction("subtract", VERB_ACCUMULATE, DT_INT8, DT_INT8);
	struct array b = array_of(DT_BOOL);
	struct plan_step s = { .verb = VERB_REDUCE, .uf = ufunc_lookup("subtract"), .nin = 1, .in = { &b } };
	struct step_opts o = {0};
	struct err e = {0};
	int rc = resolve_reduction_loop(&s, &o, &at, &e);
	CHECK(rc < 0 && !strncmp(e.msg, "w: numpy boolean subtract", 25),
	      "subtract.reduce(bool): %s", e.msg);
	struct err e2 = {0};
	o.given = 1u << OPT_DTYPE;
	o.dtype = DT_BOOL;
	s.uf = ufunc_lookup("power");
	rc = resolve_reduction_loop(&s, &o, &at, &e2);
	CHECK(rc < 0 && !strcmp(e2.msg, "w: No loop matching the specified signature and casting was "
				 "found for ufunc power"), "power dtype=bool: %s", e2.msg);
	CHECK(placed(&e2), "power dtype=bool points at its site: %s:%d:%d", e2.loc.source, e2.loc.line,
	      e2.loc.col);
}

/* Each flag is set on exactly the ufuncs NumPy gives that behaviour. */
static void check_flags(void)
{
	static const struct {
		unsigned flag;
		const char *names;
	} want[] = {
		{ UF_TRUE_DIVIDE, " divide " },
		{ UF_BOOL_MINUS, " subtract negative " },
		{ UF_NO_BOOL, " gcd lcm positive sign " },
		{ UF_REDUCE_UPCAST, " add multiply " },
		{ UF_REDUCE_BOOL, " logical_and logical_or logical_xor " },
		{ UF_TRUE_BELOW, " less less_equal not_equal " },
		{ UF_TRUE_EQUAL, " equal less_equal greater_equal " },
		{ UF_TRUE_ABOVE, " greater greater_equal not_equal " },
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++)
		for (int u = 0; u < ufunc_count; u++) {
			char name[64];
			snprintf(name, sizeof name, " %s ", ufunc_table[u].name);
			bool set = ufunc_table[u].flags & want[i].flag, named = strstr(want[i].names, name);
			CHECK(set == named, "flag %#x on %s: %d", want[i].flag, ufunc_table[u].name, set);
		}
}

int main(void)
{
	check_calls();
	check_literals();
	check_comparisons();
	check_reductions();
	check_flags();
	return check_done();
}
