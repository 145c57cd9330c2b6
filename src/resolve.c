/* resolve.c - type resolution, NumPy's linear search with NEP 50
 * literals.  See resolve.h. */
#include <stdio.h>
#include <string.h>

#include "resolve.h"

/* NumPy's TypeError when dtype= names a type that no loop of the ufunc
 * gives (call, reduce and accumulate alike). */
#define NO_LOOP "No loop matching the specified signature and casting was found for ufunc %s"

static int kind_order(char kind)
{
	return kind == 'b' ? 0 : kind == 'f' ? 2 : kind == 'c' ? 3 : 1;
}

static bool is_weak(const struct array *x)
{
	return x->kind == ARR_LITERAL && x->lit.kind != LIT_BOOL && !x->strong;
}

/* The dtype X promotes as among NIN inputs: its own, but a weak integer
 * literal beside other inputs is a Python int, which NumPy 2 promotes as
 * the default int64 even where np.asarray would make it uint64 (2**63 and
 * up: its zero_pyint_like_arr), so that converting it to an int64 loop
 * refuses it (np.add(2**63, 1)); alone (a unary ufunc) it is uint64. */
static enum dtype promoted_dtype(const struct array *x, int nin)
{
	return is_weak(x) && nin > 1 && x->lit.kind == LIT_INT ? DT_INT64 : x->dtype;
}

/* Can input X (of NIN) go to loop type T under CASTING?  USE_MIN_SCALAR is
 * NumPy's: weak literals then fit any dtype of their kind or a higher one. */
static bool input_fits(const struct array *x, int nin, enum dtype t, enum casting casting,
		       bool use_min_scalar)
{
	if (is_weak(x) && use_min_scalar)
		return literal_can_cast(&x->lit, t, casting);
	return dtype_can_cast_order(promoted_dtype(x, nin), x->swapped, t, false, casting);
}

/* NumPy's refusal of input K (X) of UF to loop type T under CASTING
 * (its number shown when UF has more than one input); NULL. */
static const struct ufunc_loop *refuse_input(const struct ufunc *uf, int k, const struct array *x,
					     enum dtype t, enum casting casting,
					     const struct site *w, struct err *e)
{
	char number[16] = "";
	if (uf->nin != 1)
		snprintf(number, sizeof number, "%d ", k);
	err_at(e, EXIT_USAGE, w, "Cannot cast ufunc '%s' input %sfrom %s to %s with casting rule '%s'",
	       uf->name, number, dtype_name_order(x->dtype, x->swapped), dtype_name(t),
	       casting_name(casting));
	return NULL;
}

/* Ufuncs whose NumPy type resolvers refuse bool inputs rather than cast
 * them to int8, with NumPy's messages. */
static int refuse_bool(const struct ufunc *uf, int nin, const struct array *const *in,
		       const struct site *w, struct err *e)
{
	for (int k = 0; k < nin; k++)
		if (in[k]->dtype != DT_BOOL)
			return 0;
	if (uf->flags & UF_BOOL_MINUS)
		return err_at(e, EXIT_USAGE, w, "%s", uf->nin == 2
			      ? "numpy boolean subtract, the `-` operator, is not supported, "
				"use the bitwise_xor, the `^` operator, or the logical_xor function instead."
			      : "The numpy boolean negative, the `-` operator, is not supported, "
				"use the `~` operator or the logical_not function instead.");
	if (uf->flags & UF_NO_BOOL)
		return err_at(e, EXIT_USAGE, w,
			      "ufunc '%s' did not contain a loop with signature matching types (%s)",
			      uf->name, nin == 1 ? "bool" : "bool, bool");
	return 0;
}

/* NumPy's loop search for UF over the NIN operands IN: the first loop the
 * inputs cast to (safely, or under CASTING when dtype= fixes the outputs). */
const struct ufunc_loop *resolve_loop(const struct ufunc *uf, int nin,
					     const struct array *const *in,
					     const struct step_opts *o, enum casting casting,
					     const struct site *w, struct err *e)
{
	if (refuse_bool(uf, nin, in, w, e) < 0)
		return NULL;
	/* NumPy's true division takes integers and bools as float64. */
	struct step_opts as_double;
	bool integers = uf->flags & UF_TRUE_DIVIDE;
	for (int k = 0; k < nin && integers; k++)
		integers = strchr("biu", dtype_table[in[k]->dtype].kind) != NULL;
	if (integers && !(o && option_given(o, OPT_DTYPE))) {
		memset(&as_double, 0, sizeof as_double);
		as_double.given = 1u << OPT_DTYPE;
		as_double.dtype = DT_FLOAT64;
		o = &as_double;
	}
	int max_array = -1, max_weak = -1;
	for (int k = 0; k < nin; k++) {
		int kind = kind_order(dtype_table[in[k]->dtype].kind);
		if (is_weak(in[k])) {
			if (kind > max_weak)
				max_weak = kind;
		} else if (kind > max_array) {
			max_array = kind;
		}
	}
	bool use_min_scalar = max_array >= 0 && max_array >= max_weak;
	bool fixed = o && option_given(o, OPT_DTYPE);
	/* NumPy 2 picks the loop by safe promotion, then checks casting=. */
	enum casting in_casting = fixed ? casting : CAST_SAFE;
	const struct ufunc_loop *with_out = NULL;
	for (int l = 0; l < uf->nloops; l++) {
		const struct ufunc_loop *loop = &uf->loops[l];
		if (fixed) {
			bool match = true;
			for (int k = 0; k < uf->nout; k++)
				match = match && loop->types[uf->nin + k] == o->dtype;
			if (!match)
				continue;
			if (!with_out)
				with_out = loop;
		}
		bool ok = true;
		for (int k = 0; k < nin && ok; k++)
			ok = input_fits(in[k], nin, loop->types[k], in_casting, use_min_scalar);
		if (!ok)
			continue;
		for (int k = 0; k < nin && !fixed && casting < CAST_SAFE; k++)
			if (!input_fits(in[k], nin, loop->types[k], casting, use_min_scalar))
				return refuse_input(uf, k, in[k], loop->types[k], casting, w, e);
		return loop;
	}
	if (fixed && with_out) {
		for (int k = 0; k < nin; k++)
			if (!input_fits(in[k], nin, with_out->types[k], in_casting, use_min_scalar))
				return refuse_input(uf, k, in[k], with_out->types[k], in_casting, w, e);
	}
	if (fixed) {
		err_at(e, EXIT_USAGE, w, NO_LOOP, uf->name);
		return NULL;
	}
	err_at(e, EXIT_USAGE, w,
		"ufunc '%s' not supported for the input types, and the inputs could not "
		"be safely coerced to any supported types according to the casting rule ''%s''",
		uf->name, casting_name(in_casting));
	return NULL;
}

/* NumPy 2 compares a Python int with an integer operand exactly, also out
 * of the operand's range, where every element orders the same way against
 * it (special_integer_comparisons.cpp): `uint8 == -1` is all False, `int8 <
 * 300` all True.  Then OP, a comparison whose weak integer literal X (its
 * operand K) lies outside the integer loop dtype, runs the loop of the
 * comparison that gives the same fixed result against the dtype's maximum,
 * which every element orders at or below, with that maximum for X; it
 * keeps its ufunc, whose name plans and messages show.  Its other operand,
 * of dtype OTHER, must be an integer (a bool one meets the literal as
 * int64, and NumPy refuses it there).  Returns 1 when OP's loop and literal
 * were set so, 0 when this does not apply. */
static int compare_out_of_range(const struct array *x, struct plan_op *op, int k,
				enum dtype other)
{
	enum dtype t = op->loop->types[k];
	if (!op->uf || !(op->uf->flags & UF_COMPARISON) || !is_weak(x) || x->lit.kind != LIT_INT ||
	    other == DT_NONE || !strchr("iu", dtype_table[other].kind) ||
	    !strchr("iu", dtype_table[t].kind))
		return 0;
	int side = literal_int_side(&x->lit, t);
	if (!side)
		return 0;
	/* how every element orders against the literal, as the op reads them */
	bool element_first = k == 1;
	unsigned order = (side > 0) == element_first ? UF_TRUE_BELOW : UF_TRUE_ABOVE;
	bool truth = op->uf->flags & order;
	/* against the maximum, elements order below or equal (element first)
	 * or it orders above or equal (literal first) */
	unsigned at_max = element_first ? UF_TRUE_BELOW | UF_TRUE_EQUAL : UF_TRUE_ABOVE | UF_TRUE_EQUAL;
	const struct ufunc *uf = ufunc_comparison(truth ? at_max : UF_COMPARISON & ~at_max);
	const struct ufunc_loop *loop = NULL;
	for (int l = 0; uf && l < uf->nloops && !loop; l++)
		if (uf->loops[l].types[0] == op->loop->types[0] &&
		    uf->loops[l].types[1] == op->loop->types[1])
			loop = &uf->loops[l];
	if (!loop)
		return 0;
	int bits = 8 * dtype_size(t);
	uint64_t max = dtype_table[t].kind == 'u' ? UINT64_MAX >> (64 - bits) : UINT64_MAX >> (65 - bits);
	dtype_cast(DT_UINT64, &max, 8, t, op->lit[k], dtype_size(t), 1);
	op->loop = loop;
	return 1;
}

/* Literal operand K of OP, converted to the loop's dtype. */
int resolve_literal(const struct array *x, struct plan_op *op, int k, enum dtype other,
		    const struct site *w, struct err *e)
{
	enum dtype t = op->loop->types[k];
	op->src[k] = src_literal();
	if (compare_out_of_range(x, op, k, other))
		return 0;
	if (is_weak(x))
		return literal_to_dtype(&x->lit, t, op->lit[k], w->text, e) < 0 ? err_place(e, &w->loc) : 0;
	/* a strong literal: its default dtype's value, then cast */
	unsigned char v[8];
	if (x->lit.kind == LIT_BOOL)
		memcpy(v, &x->lit.b, 1);
	else if (literal_to_dtype(&x->lit, x->dtype, v, w->text, e) < 0)
		return err_place(e, &w->loc);
	dtype_cast(x->dtype, v, 0, t, op->lit[k], 0, 1);
	return 0;
}

/* The dtype NumPy's reduce and accumulate of UF take DT in: true division
 * of integers in float64, the logical ufuncs in bool, add and multiply of
 * bool and small integers in the default integer. */
static enum dtype reduction_dtype(const struct ufunc *uf, enum dtype dt)
{
	if ((uf->flags & UF_TRUE_DIVIDE) && strchr("biu", dtype_table[dt].kind))
		return DT_FLOAT64;   /* true division of integers, as a call */
	if (uf->flags & UF_REDUCE_BOOL)
		return DT_BOOL;
	if (!(uf->flags & UF_REDUCE_UPCAST))
		return dt;
	char kind = dtype_table[dt].kind;
	if (kind == 'b' || (kind == 'i' && dtype_size(dt) < 8))
		return DT_INT64;
	if (kind == 'u' && dtype_size(dt) < 8)
		return DT_UINT64;
	return dt;
}

int resolve_reduction_loop(struct plan_step *s, const struct step_opts *o, const struct site *w,
			   struct err *e)
{
	const struct ufunc *uf = s->uf;
	bool fixed = option_given(o, OPT_DTYPE);
	const struct array *in2[2] = { s->in[0], s->in[0] };
	if (!fixed && refuse_bool(uf, 2, in2, w, e) < 0)
		return -1;
	enum dtype want = fixed ? o->dtype : reduction_dtype(uf, s->in[0]->dtype);
	for (int l = 0; l < uf->nloops; l++) {
		const struct ufunc_loop *loop = &uf->loops[l];
		/* The accumulator is the first operand and the output; the data
		 * goes in as the second (ldexp's differs: float and int). */
		if (loop->types[0] != loop->types[2])
			continue;
		if (s->verb == VERB_ACCUMULATE && loop->types[1] != loop->types[0] &&
		    (fixed ? loop->types[0] == want : dtype_can_cast(want, loop->types[1], CAST_SAFE)))
			return err_at(e, EXIT_USAGE, w,
				      "the resolved dtypes are not compatible with %s.accumulate. "
				      "Resolved (dtype('%s'), dtype('%s'), dtype('%s'))", uf->name,
				      dtype_name(loop->types[0]), dtype_name(loop->types[1]),
				      dtype_name(loop->types[2]));
		if (fixed ? loop->types[0] == want
			  : dtype_can_cast(want, loop->types[0], CAST_SAFE) &&
			    dtype_can_cast(want, loop->types[1], CAST_SAFE)) {
			s->loop = loop;
			return 0;
		}
	}
	if (fixed)
		return err_at(e, EXIT_USAGE, w, NO_LOOP, uf->name);
	return err_at(e, EXIT_USAGE, w, "ufunc '%s' cannot %s %s data", uf->name,
		      verb_name(s->verb), dtype_name(s->in[0]->dtype));
}
