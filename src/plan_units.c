/* plan_units.c - what a step's results are: their units and what CF says
 * they are.
 *
 * Units follow the catalogue's units column op by op (units.h); under
 * units: strict what unyt refuses is refused, naming each operand as the
 * user knows it, and the conversions it makes become ops of the step's
 * program (lower.c).  The CF descriptions (cfdesc.h) come from the inputs
 * and the verb.  Both are then handed to each output (output_describe)
 * for later steps to read and the end of the run to write.  Part of the
 * planner (planner.h); not here: the units arithmetic itself (units.c) and
 * where the outputs go (outputs.c).
 */
#include <stdio.h>
#include <string.h>

#include "planner.h"

/* The units of operand K of op J of S: an array's, or a weak literal's. */
static struct units operand_units(const struct plan_step *s, const struct plan_op *op, int k,
				  const struct units *res)
{
	struct op_src src = op->src[k];
	if (src_is_result(src))
		return res[src_slot(src)];
	if (src_is_literal(src) || s->in[src.input]->kind == ARR_LITERAL) {
		double v = 0;
		dtype_cast(op->loop->types[k], op->lit[k], 0, DT_FLOAT64, &v, 0, 1);
		return (struct units){ UK_NONE, NULL, true, v };
	}
	return s->in[src.input]->units;
}

/* How operand K of OP (of S) is named in messages: a dataset's display
 * name, a number, or the ufunc whose result it is; in BUF. */
static const char *operand_name(const struct plan_step *s, const struct plan_op *op, int k,
				struct units u, char *buf, size_t len)
{
	struct op_src src = op->src[k];
	if (src_is_result(src))
		snprintf(buf, len, "the result of %s", s->prog.ops[src.op].uf->name);
	else if (u.weak)
		snprintf(buf, len, "%g", u.value);
	else
		snprintf(buf, len, "%s", s->in[src.input]->display);
	return buf;
}

/* units: strict on op OP (of S) with operands IN: refused (-1), or the
 * factors its operands are converted by (FACTOR) and IN as converted;
 * NAME gets the operands' names. */
static int op_strict(struct planner *pl, struct plan_step *s, const struct plan_op *op,
		     struct units *in, double *factor, const char **name, struct err *e)
{
	struct arena *a = pl->p->arena;
	char buf[RECIPE_MAXIN][512], msg[2048];
	for (int k = 0; k < op->nin; k++)
		name[k] = arena_strdup(a, operand_name(s, op, k, in[k], buf[k], sizeof buf[k]));
	if (units_strict(op->uf, op->nin, in, name, factor, msg, sizeof msg) < 0)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, s->src->mark), "%s (units: strict)", msg);
	return 0;
}

/* The units of S's results (units.h), op by op, or of its fold; under
 * units: strict (STRICT), what unyt refuses is refused and the
 * conversions it makes become ops of S's program (lower_convert). */
static int step_units(struct planner *pl, struct plan_step *s, bool strict, struct err *e)
{
	struct arena *a = pl->p->arena;
	if (s->verb == VERB_AT)
		return 0;   /* in place: the target keeps its units */
	if (s->verb == VERB_REDUCE || s->verb == VERB_ACCUMULATE || s->verb == VERB_REDUCEAT) {
		long long count = 1;
		for (int i = 0; i < s->in[0]->shape.ndim; i++)
			if (s->fold.reduced[i])
				count *= s->in[0]->shape.dim[i];
		/* segments of many lengths fold as accumulate's running results do */
		s->units[0] = units_fold(s->uf, s->verb != VERB_REDUCE, count, s->in[0]->units, a);
		if (strict && s->units[0].kind == UK_UNKNOWN)
			return err_at(e, EXIT_USAGE, LOCATE(pl, s, s->src->mark),
				      "the units of %s.%s of %s (%s) cannot be determined (units: strict)",
				      s->uf->name, verb_name(s->verb), s->in[0]->display,
				      s->in[0]->units.kind == UK_KNOWN ? s->in[0]->units.text : "dimensionless");
		return 0;
	}
	if (s->verb == VERB_OUTER) {
		struct units in[2] = { s->in[0]->units, s->in[1]->units };
		if (strict) {
			double factor[2];
			const char *name[2] = { s->in[0]->display, s->in[1]->display };
			char msg[2048];
			if (units_strict(s->uf, 2, in, name, factor, msg, sizeof msg) < 0 || factor[0] != 1.0 ||
			    factor[1] != 1.0)
				return err_at(e, EXIT_USAGE, LOCATE(pl, s, s->src->mark), "%s (units: strict)",
					      factor[0] != 1.0 || factor[1] != 1.0 ?
					      "outer steps do not convert units" : msg);
		}
		for (int k = 0; k < s->nout; k++)
			s->units[k] = units_apply(s->uf, 2, in, a);
		return 0;
	}
	struct units *res = arena_alloc(a, sizeof *res * (size_t)src_slots(s->prog.nops));
	double *factor = arena_alloc(a, sizeof *factor * (size_t)s->prog.nops * RECIPE_MAXIN);
	const char **name = arena_alloc(a, sizeof *name * (size_t)s->prog.nops * RECIPE_MAXIN);
	bool convert = false;
	for (int j = 0; j < s->prog.nops; j++) {
		const struct plan_op *op = &s->prog.ops[j];
		struct units in[RECIPE_MAXIN];
		for (int k = 0; k < op->nin; k++)
			in[k] = operand_units(s, op, k, res);
		if (strict && op->nout == 1) {
			if (op_strict(pl, s, op, in, &factor[j * RECIPE_MAXIN], &name[j * RECIPE_MAXIN], e) < 0)
				return -1;
			for (int k = 0; k < op->nin; k++)
				convert = convert || factor[j * RECIPE_MAXIN + k] != 1.0;
		}
		for (int k = 0; k < op->nout; k++)
			res[src_slot(src_result(j, k))] = units_apply(op->uf, op->nin, in, a);
	}
	for (int k = 0; k < s->nout; k++) {
		s->units[k] = res[src_slot(s->prog.out_src[k])];
		if (strict && s->units[k].kind == UK_UNKNOWN)
			return err_at(e, EXIT_USAGE, LOCATE(pl, s, s->src->mark),
				      "the units of the result cannot be determined (units: strict)");
	}
	return convert ? lower_convert(pl, s, factor, name, e) : 0;
}

/* Is UF's result the quantity its operands are (their units, when they
 * agree: a sum, a maximum, ...)? */
static bool keeps_quantity(const struct ufunc *uf)
{
	return uf->units == UNITS_SAME || uf->units == UNITS_SUM || uf->units == UNITS_DIFFERENCE;
}

/* What CF says S's results are (cfdesc.h), from its inputs and its ops as
 * the verb planned them (before units: strict's conversions and the ops
 * of where= and masks are added). */
static void step_desc(struct planner *pl, struct plan_step *s)
{
	const struct array *x = s->in[0];
	if (s->verb == VERB_ACCUMULATE || s->verb == VERB_AT) {
		s->desc = (struct cfdesc){ 0 };   /* at: written in place, which keeps its own */
	} else if (s->verb == VERB_REDUCE || s->verb == VERB_REDUCEAT) {
		const char *names[H5U_MAXDIM];
		int n = 0;
		for (int i = 0; x->dims && i < x->shape.ndim; i++)
			if (s->fold.reduced[i] && x->dims->name[i])   /* not None's axis: no name */
				names[n++] = x->dims->name[i];
		s->desc = cfdesc_reduce(&x->desc, s->uf->cell_method, n, x->dims ? names : NULL,
					pl->p->arena);
	} else {
		bool same = s->prog.nops ? true : keeps_quantity(s->uf);
		for (int j = 0; j < s->prog.nops; j++)
			same = same && keeps_quantity(s->prog.ops[j].uf);
		const struct cfdesc *in[RECIPE_MAXIN];
		int n = 0;
		for (int k = 0; k < s->nin; k++)
			if (s->in[k]->kind == ARR_DATASET)
				in[n++] = &s->in[k]->desc;
		s->desc = cfdesc_elementwise(n, in, same && n > 0);
	}
}

/* What S's results are: their CF description, and their units unless O
 * says units: off (under units: strict, refused as unyt refuses). */
int step_describe(struct planner *pl, struct plan_step *s, const struct step_opts *o, struct err *e)
{
	step_desc(pl, s);
	s->units_off = option_given(o, OPT_UNITS) && o->units_off;
	bool strict = option_given(o, OPT_UNITS) && o->units_strict;
	/* followed under units: off too (not written), for what S's results are */
	if (step_units(pl, s, strict, e) < 0)
		return -1;
	bool dated_in = false, dated_out = false;
	const struct cfdesc *dated[RECIPE_MAXIN];
	int ndated = 0;
	for (int k = 0; k < s->nin; k++)
		if (s->in[k]->kind == ARR_DATASET && units_dated(s->in[k]->units))
			dated[ndated++] = &s->in[k]->desc;
	dated_in = ndated > 0;
	for (int k = 0; k < s->nout; k++)
		dated_out = dated_out || units_dated(s->units[k]);
	if (dated_in && !dated_out)   /* no longer the dates their inputs name: a duration, ... */
		s->desc.long_name = s->desc.standard_name = NULL;
	/* a date's calendar: the one its dated inputs agree on (cfdesc.h) */
	s->desc.calendar = dated_out && !s->units_off ? cfdesc_calendar(ndated, dated) : NULL;
	return 0;
}

/* What output K of S says of itself, for later steps to read and the end
 * of the run to write: its units, and, unless it is written in place
 * (which keeps its own, cfdesc.h), what CF says it is. */
void output_describe(struct plan_step *s, int k)
{
	struct array *x = s->out[k];
	x->units = s->units_off ? (struct units){ UK_UNKNOWN, NULL, false, 0 } : s->units[k];
	x->units_set = !s->units_off;
	if (!x->in_place) {
		x->desc = s->desc;
		x->desc_set = x->create || x->replace;
	}
}
