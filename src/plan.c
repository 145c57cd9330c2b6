/* plan.c - recipe + files -> validated plan: the planner's driver.
 *
 * plan_build() binds the recipe's inputs, then plans each step in order,
 * a phase function each (plan_step): its options merged with the recipe's
 * defaults and checked against its verb, its operands (arrays.c), its loop
 * (resolve.c; lower.c for expressions; plan_fold.c for reduce and
 * accumulate, indexed.c for reduceat and at), its shapes, what its results
 * are (plan_units.c), where= and masks, its outputs (outputs.c) and its
 * blocks (elementwise.h, reduce.h, scan.h).  Then the optimizer fuses
 * steps into passes (fuse.c) and the temporary files are placed
 * (files.c).  See plan.h for the contract, planner.h for the stages.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "at.h"
#include "comm.h"
#include "chain.h"
#include "contract.h"
#include "elementwise.h"
#include "h5io.h"
#include "options.h"
#include "planner.h"
#include "reduce.h"
#include "reduceat.h"
#include "resolve.h"
#include "scan.h"
#include "select.h"
#include "stage.h"
#include "where.h"

/* Broadcast the inputs' shapes (bshape) into S's result shape. */
static int broadcast(struct planner *pl, struct plan_step *s, struct err *e)
{
	const struct shape *shapes[RECIPE_MAXIN];
	for (int k = 0; k < s->nin; k++)
		shapes[k] = &s->bshape[k];
	if (shape_broadcast(s->nin, shapes, &s->shape) == 0)
		return 0;
	char msg[1024] = "", buf[800];
	for (int k = 0; k < s->nin; k++) {
		size_t n = strlen(msg);
		snprintf(msg + n, sizeof msg - n, "%s%s", k ? " " : "",
			 shape_format_compact(shapes[k], buf, sizeof buf));
	}
	struct mark m = s->src->nin ? s->src->in_mark[0] : s->src->mark;
	return err_at(e, EXIT_USAGE, LOCATE(pl, s, m),
		      "operands could not be broadcast together with shapes %s", msg);
}

/* An elementwise call, or UFUNC.outer. */
static int plan_elementwise(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			    struct err *e)
{
	const struct recipe_step *rs = s->src;
	if (s->verb == VERB_OUTER && s->uf->signature)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->fn_mark),
			      "method outer is not allowed in ufunc with non-trivial signature");
	static const int core_options[] = { OPT_AXIS, OPT_AXES };   /* a generalized ufunc's */
	for (size_t i = 0; i < sizeof core_options / sizeof *core_options && s->verb == VERB_UFUNC; i++)
		if (option_given(o, core_options[i]))
			return err_at(e, EXIT_USAGE, LOCATE(pl, s, o->mark[core_options[i]]),
				      "%s() got an unexpected keyword argument '%s'", s->uf->name,
				      step_options[core_options[i]].name);
	if (s->verb == VERB_OUTER && s->uf->nin != 2)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->fn_mark),
			      "outer product only supported for binary functions");
	if (rs->nin != s->uf->nin)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->nin ? rs->in_mark[0] : rs->mark),
			      "ufunc '%s' takes %d input%s, got %d", s->uf->name, s->uf->nin,
			      s->uf->nin == 1 ? "" : "s", rs->nin);
	s->nin = rs->nin;
	s->nout = s->uf->nout;
	for (int k = 0; k < s->nin; k++) {
		s->in[k] = array_read_operand(pl, rs->in[k], s->decoded, LOCATE(pl, s, rs->in_mark[k]), e);
		if (!s->in[k])
			return -1;
	}
	if (s->verb == VERB_UFUNC &&
	    arrays_by_name(pl, s->nin, s->in, option_given(o, OPT_BROADCAST) && o->by_position, &s->dims,
			   LOCATE(pl, s, rs->nin ? rs->in_mark[0] : rs->mark), e) < 0)
		return -1;
	for (int k = 0; k < s->nin; k++)
		s->bshape[k] = s->in[k]->shape;
	if (s->verb == VERB_OUTER) {   /* a.shape + (1,) * b.ndim against b */
		for (int k = 0; k < s->nin; k++)
			if (s->in[k]->kind == ARR_LITERAL)
				s->in[k]->strong = true;   /* NumPy makes arrays of them first */
		struct shape *a = &s->bshape[0];
		if (a->ndim + s->bshape[1].ndim > H5U_MAXDIM)
			return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->mark),
				      "the outer product has more than %d dimensions", H5U_MAXDIM);
		for (int i = 0; i < s->bshape[1].ndim; i++)
			a->dim[a->ndim++] = 1;
	}
	if (broadcast(pl, s, e) < 0)
		return -1;
	s->loop = resolve_loop(s->uf, s->nin, (const struct array *const *)s->in, o, s->casting,
			       LOCATE(pl, s, option_given(o, OPT_DTYPE) ? o->mark[OPT_DTYPE] : rs->mark), e);
	if (!s->loop)
		return -1;
	for (int k = 0; k < s->nout; k++)
		s->out_dtype[k] = s->loop->types[s->nin + k];
	struct plan_op *op = lower_single(pl, s);
	op->shape = s->shape;
	for (int k = 0; k < s->nin; k++)
		if (s->in[k]->kind == ARR_LITERAL &&
		    resolve_literal(s->in[k], op, k, s->nin == 2 ? s->in[1 - k]->dtype : DT_NONE,
				    LOCATE(pl, s, rs->in_mark[k]), e) < 0)
			return -1;
	return 0;
}

/* Does an input of S (its first NIN) declare missing values?  Then S
 * takes numpy.ma's semantics by default (missing: cf). */
static bool declares_missing(struct planner *pl, struct plan_step *s, int nin, struct err *e)
{
	for (int k = 0; k < nin; k++) {
		struct array *x = s->in[k];
		if (x->kind != ARR_DATASET)
			continue;
		const struct cf_missing *m = array_missing(pl, x, LOCATE(pl, s, s->src->mark), e);
		if (!m || cf_missing_any(m) || x->plane)
			return m != NULL;
	}
	return false;
}

/* Is Y packed from floats (its coding's fill stands for NaN)? */
static bool packs_nan(const struct array *y)
{
	return cf_coding_transforms(y->coding) && dtype_table[y->dtype].kind == 'f';
}

/* The fill values of S's outputs, where where= or a mask leaves them
 * unset: the fill: option; else, in masked mode, what an existing
 * output itself reads as missing (its _FillValue, else its missing_value,
 * else a value past its valid range: cf_missing_marker), or the first
 * input's _FillValue when the dtypes match, whatever the
 * verb (elementwise, reductions, scans, contractions: numpy.ma's a @ b
 * keeps a's fill_value too); else the dtype's default.  Datasets S
 * creates keep it as their _FillValue.  The one place this is decided. */
static int plan_fill(struct planner *pl, struct plan_step *s, const struct step_opts *o,
		     struct err *e)
{
	bool given = option_given(o, OPT_FILL);
	const struct site *w = LOCATE(pl, s, given ? o->mark[OPT_FILL] : s->src->mark);
	const struct cf_missing *first = NULL;
	if (s->mask.masked && s->in[0]->kind == ARR_DATASET && !(first = array_missing(pl, s->in[0], w, e)))
		return -1;
	for (int k = 0; k < s->nout; k++) {
		struct array *y = s->out[k];
		const struct cf_missing *own = NULL;
		if (s->mask.masked && !y->create && !(own = array_missing(pl, y, w, e)))
			return -1;
		unsigned char *fill = y->create ? y->fill : s->mask.fill[k];
		if (given || (!s->mask.masked && !packs_nan(y))) {
			if (where_fill_value(given ? o->fill : NULL, y->dtype, fill, w->text, e) < 0)
				return err_place(e, &w->loc);
		} else if (packs_nan(y)) {   /* packed as the dataset's fill */
			double nan = NAN;
			dtype_cast(DT_FLOAT64, &nan, 0, y->dtype, fill, 0, 1);
		} else if (own && cf_missing_marker(own, y->dtype, fill)) {
			;   /* what the dataset itself reads as missing */
		} else if (first && first->fill_value && s->in[0]->dtype == y->dtype) {
			memcpy(fill, first->value[0], sizeof first->value[0]);
		} else {
			where_default_fill(y->dtype, fill);
		}
		if (y->create) {
			y->has_fill = true;
			memcpy(s->mask.fill[k], y->fill, sizeof y->fill);
		}
	}
	return 0;
}

/* missing: as O says it, or its default. */
static enum missing_mode missing_mode_of(const struct step_opts *o)
{
	return option_given(o, OPT_MISSING) ? o->missing : MISSING_CF;
}

/* Masked mode of S (numpy.ma's), as O's missing: says: by default
 * where one of its first NIN inputs declares missing values. */
static int plan_masks(struct planner *pl, struct plan_step *s, const struct step_opts *o, int nin,
		      struct err *e)
{
	const struct recipe_step *rs = s->src;
	bool masking = s->decoded &&
		       (missing_mode_of(o) != MISSING_CF || declares_missing(pl, s, nin, e));
	if (e->status)
		return -1;
	bool folds = s->verb == VERB_REDUCE || s->verb == VERB_ACCUMULATE || s->verb == VERB_REDUCEAT;
	if (masking && (folds ? plan_reduce_missing(pl, s, o, e)
			: s->contract ? gufunc_plan_missing(pl, s, o, e)
			: lower_missing(pl, s, nin, o, e)) < 0)
		return -1;
	if (option_given(&rs->opts, OPT_FILL) && !s->mask.has_where && !masking)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->opts.mark[OPT_FILL]),
			      "'fill' needs 'where' or a mask: without them every element is computed");
	return 0;
}

/* The datasets S creates: packed (pack:), then chunks and compression,
 * then over one file per rank (vds:), then chunked where they can grow. */
static int plan_created(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			struct err *e)
{
	for (int k = 0; k < s->nout && option_given(o, OPT_PACK); k++)
		if (outputs_pack(pl, s, k, o, e) < 0)
			return -1;
	for (int k = 0; k < s->nout; k++)
		if (s->out[k]->create && !s->out[k]->file->scratch && outputs_layout(pl, s, k, o, e) < 0)
			return -1;
	for (int k = 0; k < s->nout && option_given(o, OPT_VDS) && o->vds; k++)
		if (outputs_vds(pl, s, k, o, e) < 0)
			return -1;
	for (int k = 0; k < s->nout; k++)
		outputs_growing(s, k);
	return 0;
}

/* ---- a step's phases, in order ---- */

/* S as step INDEX of the recipe: its verb, the name messages give it, and
 * its ufunc (an expression has none of its own). */
static int step_start(struct planner *pl, int index, struct plan_step *s, struct err *e)
{
	const struct recipe_step *rs = &pl->r->steps[index];
	s->index = index + 1;
	s->src = rs;
	s->verb = rs->verb;
	s->fused.merged_into = -1;
	locate_name_step(pl, s);
	s->uf = rs->verb == VERB_EXPR ? NULL : ufunc_lookup(rs->fn);
	if (!s->uf && rs->verb != VERB_EXPR)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->fn_mark), "unknown ufunc '%s'", rs->fn);
	return 0;
}

/* S's options into *O: the recipe's defaults overridden by the step's own,
 * less those that do not apply to its verb; then the casting and decoding
 * they ask for. */
static int step_options_of(struct planner *pl, struct plan_step *s, struct step_opts *o,
			   struct err *e)
{
	const struct recipe_step *rs = s->src;
	option_merge(&pl->r->defaults, &rs->opts, o);
	/* Options for other verbs are errors on the step itself; under
	 * defaults they are meant for other steps. */
	for (int i = 0; i < OPT_COUNT; i++) {
		if (option_applies(i, rs->verb))
			continue;
		if (option_given(&rs->opts, i))
			return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->opts.mark[i]),
				      "'%s' does not apply to %s steps", step_options[i].name, verb_name(rs->verb));
		option_forget(o, i);
	}
	/* axis under defaults is meant for reductions: a ufunc step takes its own */
	static const enum opt axes[] = { OPT_AXIS, OPT_AXES };
	for (size_t i = 0; i < sizeof axes / sizeof *axes && rs->verb == VERB_UFUNC; i++)
		if (!option_given(&rs->opts, axes[i]))
			option_forget(o, axes[i]);
	s->casting = option_given(o, OPT_CASTING) ? o->casting : CAST_SAME_KIND;
	s->decoded = missing_mode_of(o) != MISSING_RAW;
	return 0;
}

/* S's operands, loop, shapes and program, as its verb plans them. */
static int step_verb(struct planner *pl, struct plan_step *s, const struct step_opts *o, struct err *e)
{
	switch (s->verb) {
	case VERB_REDUCE:
	case VERB_ACCUMULATE:
		return plan_reduction(pl, s, o, e);
	case VERB_REDUCEAT:
		return plan_reduceat(pl, s, o, e);
	case VERB_AT:
		return plan_at(pl, s, o, e);
	case VERB_EXPR:
		return lower_expression(pl, s, o, e);
	default:
		return s->verb == VERB_UFUNC && s->uf->signature ? gufunc_plan(pl, s, o, e)
		       : plan_elementwise(pl, s, o, e);
	}
}

/* The elements S computes: where= (its own op, or a reduction's operand),
 * then masked mode over its first NIN inputs (before where= added its
 * own). */
static int step_selection(struct planner *pl, struct plan_step *s, const struct step_opts *o, int nin,
			  struct err *e)
{
	if (option_given(o, OPT_WHERE) &&
	    (s->verb == VERB_REDUCE ? plan_reduce_where(pl, s, o, e) : lower_where(pl, s, o, e)) < 0)
		return -1;
	return plan_masks(pl, s, o, nin, e);
}

/* Does a result of S read elements of an operand other than its own (a
 * contraction, a reduceat segment)?  Then its boxes, streamed, would read
 * what the step has already written there, so it may not write in place
 * into that operand. */
static bool reads_across(const struct plan_step *s)
{
	return (s->uf && s->uf->signature) || s->src->verb == VERB_REDUCEAT;
}

/* Where S's results go (printed when the step names no output), each one
 * described, none written twice nor over what the step reads; then what
 * the datasets it creates are like, and the fill values. */
static int step_outputs(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			struct err *e)
{
	const struct recipe_step *rs = s->src;
	bool overwrite = pl->o->overwrite || (option_given(o, OPT_OVERWRITE) && o->overwrite);
	if (rs->nout && rs->nout != s->nout)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->out_mark[0]),
			      "ufunc '%s' gives %d output%s, got %d", s->uf->name, s->nout,
			      s->nout == 1 ? "" : "s", rs->nout);
	if (!rs->nout && rs->verb != VERB_AT && outputs_printed(pl, s, e) < 0)
		return -1;
	for (int k = 0; k < rs->nout; k++) {
		if (outputs_plan(pl, s, k, overwrite, e) < 0)
			return -1;
		output_describe(s, k);
		for (int j = 0; j < k; j++)
			if (s->out[j] == s->out[k])
				return err_at(e, EXIT_USAGE, LOCATE_OUTPUT(pl, s, k),
					      "both outputs go to '%s'", rs->out[k]);
		for (int j = 0; j < s->nin; j++) {
			const struct array *x = s->in[j], *y = s->out[k];
			if (x == y && reads_across(s))
				return err_at(e, EXIT_USAGE, LOCATE_OUTPUT(pl, s, k),
					      "'%s' is read by %s%s beyond each result's own element: write to another dataset",
					      y->display, s->uf->name, s->src->verb == VERB_REDUCEAT ? ".reduceat" : "");
			if (x != y && x->kind == ARR_DATASET && x->file == y->file &&
			    !strcmp(x->path, y->path) && select_may_overlap(x, y))
				return err_at(e, EXIT_USAGE, LOCATE_OUTPUT(pl, s, k),
					      "'%s' overlaps '%s', which the step reads: write to another dataset",
					      y->display, x->display);
		}
	}
	if (plan_created(pl, s, o, e) < 0)
		return -1;
	if ((s->mask.has_where || s->mask.masked) && (plan_fill(pl, s, o, e) < 0 ||
			     (s->print ? outputs_mask(pl, s, e) : outputs_planes(pl, s, e)) < 0))
		return -1;
	return 0;
}

/* S's outputs written under names of the scratch file: the names bound,
 * for later steps to read. */
static int step_bind_outputs(struct planner *pl, struct plan_step *s, struct err *e)
{
	const struct recipe_step *rs = s->src;
	for (int k = 0; k < rs->nout; k++) {
		struct operand op;
		operand_parse(rs->out[k], pl->p->arena, &op, "", e);
		if (op.kind == OPERAND_NAME && s->out[k]->file->scratch &&
		    array_bind(pl, op.name, s->out[k], LOCATE_OUTPUT(pl, s, k), e) < 0)
			return -1;
	}
	return 0;
}

/* Step INDEX of the recipe, phase by phase. */
static int plan_step(struct planner *pl, int index, struct err *e)
{
	struct plan_step *s = &pl->p->steps[index];
	struct step_opts o;
	if (step_start(pl, index, s, e) < 0 || step_options_of(pl, s, &o, e) < 0 ||
	    step_verb(pl, s, &o, e) < 0 || step_describe(pl, s, &o, e) < 0)
		return -1;
	int nin = s->nin;   /* the step's own inputs, before where= adds its own */
	if (outputs_vds_read(pl, s, e) < 0 ||
	    step_selection(pl, s, &o, nin, e) < 0 || step_outputs(pl, s, &o, e) < 0 ||
	    plan_step_layout(pl, s, e) < 0 || step_bind_outputs(pl, s, e) < 0)
		return -1;
	/* Errors while running name the step where the recipe has it. */
	locate_place_step(pl, s);
	return 0;
}

int plan_build(const struct recipe *r, const struct plan_options *o,
	       struct arena *a, struct plan *p, struct err *e)
{
	memset(p, 0, sizeof *p);
	p->arena = a;
	p->command = o->command;
	p->token = o->token;
	struct planner *pl = calloc(1, sizeof *pl);
	struct recipe *split = arena_alloc(a, sizeof *split);
	if (!pl)
		abort();
	gufunc_split(r, a, split);
	r = split;
	pl->p = p;
	pl->r = r;
	pl->o = o;
	int rc = -1;
	for (int i = 0; i < r->ninputs; i++) {
		const struct recipe_input *in = &r->inputs[i];
		const struct site *w = LOCATE(pl, NULL, in->ref_mark);
		struct operand op;
		if (operand_parse(in->ref, a, &op, w->text, e) < 0) {
			err_place(e, &w->loc);
			goto out;
		}
		if (op.kind == OPERAND_NAME) {
			err_at(e, EXIT_USAGE, w, "input '%s' must be a FILE:/PATH dataset or a number, not a name",
				in->name);
			goto out;
		}
		struct array *x = array_operand(pl, in->ref, w, e);
		if (!x || array_bind(pl, in->name, x, w, e) < 0)
			goto out;
	}
	p->nsteps = r->nsteps;
	p->steps = arena_alloc(a, sizeof *p->steps * (size_t)(r->nsteps ? r->nsteps : 1));
	for (int i = 0; i < r->nsteps; i++)
		if (plan_step(pl, i, e) < 0)
			goto out;
	plan_settle_runs(p);
	if (plan_relayout_named_late(pl, e) < 0)
		goto out;
	fuse_plan(pl);
	if (plan_relayout_fused(pl, e) < 0 || place_files(pl, e) < 0)
		goto out;
	if (plan_read_alone(p, o->nranks, e) < 0)
		goto out;
	plan_settle_caches(p);
	rc = 0;
out:
	for (int i = 0; i < p->nfiles; i++) {
		h5io_close(p->files[i]->id);
		p->files[i]->id = -1;
	}
	free(pl);
	return rc;
}
