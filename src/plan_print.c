/* plan_print.c - the plan as `check` prints it: each step's arrays, boxes,
 * idle ranks and streams; see plan.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "at.h"
#include "chain.h"
#include "contract.h"
#include "elementwise.h"
#include "planner.h"
#include "reduceat.h"

enum plan_fate plan_array_fate(const struct array *x)
{
	if (x->kind == ARR_LITERAL)
		return FATE_LITERAL;
	if (x->file->scratch)
		return FATE_INTERMEDIATE;
	if (x->in_place)
		return FATE_IN_PLACE;
	if (x->replace)   /* before create, which the run clears once it has moved it */
		return FATE_REPLACED;
	if (!x->create)
		return FATE_READ;
	return x->file->exists ? FATE_NEW_DATASET : FATE_NEW_FILE;
}

/* X's line under a step; ROUTE: how the step reads it, or "". */
static void print_array_line(FILE *f, const char *role, const struct array *x, const char *route)
{
	char buf[800];
	if (!x) {
		fprintf(f, "  %s (printed)\n", role);
		return;
	}
	if (x->base)
		x = x->base;   /* broadcast by name: the dataset it reads */
	static const char *const hows[] = {
		[FATE_READ] = "", [FATE_LITERAL] = ", literal", [FATE_INTERMEDIATE] = ", named intermediate",
		[FATE_IN_PLACE] = ", written in place", [FATE_REPLACED] = ", replaced",
		[FATE_NEW_FILE] = ", new file", [FATE_NEW_DATASET] = ", new dataset"
	};
	enum plan_fate fate = plan_array_fate(x);
	const char *how = fate == FATE_NEW_FILE && x->vds ? ", new file over one file per rank"
			: x->unused ? ", named intermediate, not written"
			: hows[fate];
	char names[800] = "";
	if (x->dims) {
		char d[700];
		snprintf(names, sizeof names, " dims %s", dims_format(x->dims, d, sizeof d));
	}
	char units[300] = "";
	if (x->units.kind == UK_KNOWN)
		snprintf(units, sizeof units, " units %s", x->units.text);
	else if (x->units_set && x->units.kind == UK_UNKNOWN)
		snprintf(units, sizeof units, " units unknown (left out)");
	char packed[64] = "";
	if (cf_coding_transforms(x->coding))
		snprintf(packed, sizeof packed, " (%s %s)", x->create ? "packed as" : "unpacked from",
			 dtype_name(x->coding->packed));
	fprintf(f, "  %s %s %s%s %s%s%s%s%s\n", role, x->display, dtype_name(x->dtype), packed,
		shape_format(&x->shape, buf, sizeof buf), names, units, how, route);
}

/* A layout's boxes: their shape and how many. */
static void print_box_shape(FILE *f, const struct dist_layout *l)
{
	fprintf(f, ", boxes (");
	for (int i = 0; i < l->ndim; i++)
		fprintf(f, "%s%lld", i ? ", " : "", (long long)(i < l->axis ? 1 : i == l->axis
								 ? l->lines_per_box : l->dim[i]));
	fprintf(f, "%s), %lld box%s", l->ndim == 1 ? "," : "", (long long)l->total_boxes,
		l->total_boxes == 1 ? "" : "es");
}

/* A pass's decomposition: box shape, boxes, ranks with work. */
static void print_boxes(FILE *f, const struct dist_layout *l)
{
	print_box_shape(f, l);
	fprintf(f, ", %d of %d ranks with work\n", l->ranks_with_work, l->nranks);
}

/* An elementwise pass's boxes, and the slices they are computed in. */
static void print_pass(FILE *f, const struct plan_step *pass)
{
	const struct dist_layout *l = &pass->blocks.split;
	int64_t per_write;
	int64_t n = elementwise_slices(pass, &per_write);
	print_box_shape(f, l);
	if (n > 1 && per_write > 1 && per_write < n)
		fprintf(f, " in %lld slices %lld wide, written %lld slices at a time", (long long)n,
			(long long)l->slice, (long long)per_write);
	else if (n > 1)
		fprintf(f, " in %lld slices %lld wide, written a %s at a time%s", (long long)n,
			(long long)l->slice, per_write == 1 ? "slice" : "box",
			pass->blocks.by_columns ? ", a chunk column across the boxes at a time" : "");
	fprintf(f, ", %d of %d ranks with work\n", l->ranks_with_work, l->nranks);
}

/* Why a stream of S leaves ranks idle or uneven, when it does: its fold
 * must follow NumPy's order along (it is not exact in any grouping, or the
 * elements it leaves out keep the running value), so only the space
 * across is dealt. */
static void print_idle(FILE *f, const struct plan_step *s)
{
	const struct dist_stream *st = &s->blocks.stream;
	int64_t across = st->across.lines * st->across.line;
	if (st->shared || !dist_stream_uneven(st))
		return;
	char why[160];
	if (s->mask.skip_fold)
		snprintf(why, sizeof why, "the elements left out keep the running value");
	else if (s->verb == VERB_ACCUMULATE)
		snprintf(why, sizeof why, "%s on %s accumulates in NumPy's order", s->uf->name,
			 dtype_name(s->loop->types[0]));
	else
		snprintf(why, sizeof why, "%s on %s folds in NumPy's order", s->uf->name,
			 dtype_name(s->loop->types[0]));
	fprintf(f, " (%s: the ranks share only the %lld element%s across)", why, (long long)across,
		across == 1 ? "" : "s");
}

/* A stream's decomposition: the blocks along its axes (dealt to the ranks
 * when it is shared), then the boxes across them, and why ranks idle. */
static void print_stream(FILE *f, const struct plan_step *s)
{
	const struct dist_stream *st = &s->blocks.stream;
	const struct dist_layout *l = &st->along;
	int nalong = l->ndim - 1;
	fprintf(f, ", blocks of ");
	if (nalong != 1)
		fprintf(f, "(");
	for (int i = 1; i < l->ndim; i++)
		fprintf(f, "%s%lld", i > 1 ? ", " : "", (long long)(i < l->axis ? 1 : i == l->axis
								    ? l->lines_per_box : l->dim[i]));
	fprintf(f, "%s along ax%s", nalong != 1 ? ")" : "", nalong == 1 ? "is" : "es");
	for (int i = 0, k = 0; i < st->ndim; i++)
		if (st->axis_along[i])
			fprintf(f, "%s%d", k++ ? ", " : " ", i);
	if (nalong == 0)
		fprintf(f, " none");
	if (st->shared)
		fprintf(f, ", dealt to the ranks");
	fprintf(f, "; across %s", nalong == 1 ? "it" : "them");
	print_box_shape(f, &st->across);
	fprintf(f, ", %d of %d ranks with work", dist_stream_ranks_with_work(st), dist_stream_nranks(st));
	print_idle(f, s);
	fprintf(f, "\n");
}

void plan_print_step(const struct plan *p, const struct plan_step *s, FILE *f)
{
	if (s->fused.merged_into >= 0) {
		fprintf(f, "step %d: %s %s, fused into step %d\n", plan_step_number(s), verb_name(s->verb),
			s->verb == VERB_EXPR ? "expression" : s->uf->name,
			plan_step_number(&p->steps[s->fused.merged_into]));
		return;
	}
	char sig[64] = "";
	size_t n = 0;
	for (int k = 0; k < s->uf->nin + s->uf->nout; k++) {
		if (k == s->uf->nin)
			n += (size_t)snprintf(sig + n, sizeof sig - n, "->");
		n += (size_t)snprintf(sig + n, sizeof sig - n, "%c",
				      dtype_table[s->loop->types[k]].typechar);
	}
	fprintf(f, "step %d: %s %s, loop %s, casting %s", plan_step_number(s), verb_name(s->verb),
		s->uf->name, sig, casting_name(s->casting));
	const struct plan_step *pass = s->fused.host ? s->fused.host : s;
	if (s->verb == VERB_REDUCE && !s->fused.host && s->fold.mode == REDUCE_CHAIN) {
		fprintf(f, ", pieces of %d elements chained in order", CHAIN_PIECE);
		print_boxes(f, &s->blocks.split);
	} else if ((s->verb == VERB_REDUCE && !s->fused.host) || s->verb == VERB_ACCUMULATE) {
		print_stream(f, s);
	} else if (s->verb == VERB_REDUCEAT) {
		reduceat_print(s, f);
	} else if (s->verb == VERB_AT) {
		at_print(s, f);
	} else if (s->contract) {
		contract_print(s, f);
	} else
		print_pass(f, pass);
}

/* How step S reads its input K (step_blocks's in_runs), or "". */
static const char *input_route(const struct plan_step *s, int k)
{
	return s->blocks.in_runs[k] ? ", read as the runs of its chunks the boxes cut" : "";
}

void plan_print(const struct plan *p, FILE *f)
{
	for (int i = 0; i < p->nfiles; i++)
		if (p->files[i]->unfinished)
			fprintf(f, "%s\n", p->files[i]->unfinished);
	for (int i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->steps[i];
		plan_print_step(p, s, f);
		/* a pass's inputs under the step that heads it; each output
		 * under the step that names it, written or not */
		for (int k = 0; s->fused.merged_into < 0 && k < s->nin; k++)
			print_array_line(f, "in ", s->in[k], input_route(s, k));
		for (int k = 0; k < s->fused.nown; k++)
			print_array_line(f, "out", s->fused.own[k], "");
	}
}
