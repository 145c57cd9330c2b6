/* plan.c - recipe + files -> validated plan.  See plan.h. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dist.h"
#include "expr.h"
#include "h5io.h"
#include "operand.h"
#include "plan.h"
#include "reduce.h"
#include "scan.h"
#include "tmpfiles.h"

struct binding {
	const char *name;
	struct array *array;
};

/* The planner's working state. */
struct planner {
	struct plan *p;
	const struct recipe *r;
	const struct plan_options *o;
	int nbind;
	struct binding bind[PLAN_MAXARRAYS];
	char where[1200];
};

/* "r.yaml:3:5: step 2 (ufunc add)", "r.yaml:3:5", "step 2 (ufunc add)",
 * or "call add", as the context allows. */
static const char *where(struct planner *pl, const struct plan_step *s, struct mark m)
{
	char *w = pl->where;
	size_t n = sizeof pl->where;
	if (pl->o->command) {
		snprintf(w, n, "%s", s ? s->where : pl->o->command);
	} else if (m.line > 0 && s) {
		snprintf(w, n, "%s:%d:%d: %s", pl->r->path, m.line, m.col, s->where);
	} else if (m.line > 0) {
		snprintf(w, n, "%s:%d:%d", pl->r->path, m.line, m.col);
	} else {
		snprintf(w, n, "%s", s ? s->where : pl->r->path ? pl->r->path : "");
	}
	return w;
}

/* ---- files ---------------------------------------------------------- */

/* Canonical path of NAME: realpath of an existing file, or of its directory
 * plus its base name when it does not exist.  NULL when the directory does
 * not exist. */
static char *canonical(struct arena *a, const char *name, bool *exists)
{
	char buf[PATH_MAX];
	if (realpath(name, buf)) {
		*exists = true;
		return arena_strdup(a, buf);
	}
	*exists = false;
	char *copy1 = arena_strdup(a, name), *copy2 = arena_strdup(a, name);
	char *dir = dirname(copy1), *base = basename(copy2);
	if (!realpath(dir, buf))
		return NULL;
	size_t n = strlen(buf) + strlen(base) + 2;
	char *out = arena_alloc(a, n);
	snprintf(out, n, "%s/%s", strcmp(buf, "/") ? buf : "", base);
	return out;
}

static struct plan_file *file_find(struct plan *p, const char *canon)
{
	for (int i = 0; i < p->nfiles; i++)
		if (!strcmp(p->files[i]->canon, canon))
			return p->files[i];
	return NULL;
}

static struct plan_file *file_add(struct planner *pl, const char *name,
				  const char *canon, bool exists)
{
	struct plan *p = pl->p;
	if (p->nfiles == PLAN_MAXFILES)
		return NULL;
	struct plan_file *f = arena_alloc(p->arena, sizeof *f);
	f->name = arena_strdup(p->arena, name);
	f->canon = canon;
	f->open_path = f->name;
	f->exists = exists;
	f->id = -1;
	p->files[p->nfiles++] = f;
	return f;
}

/* The plan's file for an operand that is read: it must exist, on disk or
 * as a file an earlier step creates. */
static struct plan_file *file_for_read(struct planner *pl, const char *name, const char *w,
				       struct err *e)
{
	bool exists;
	char *canon = canonical(pl->p->arena, name, &exists);
	struct plan_file *f = canon ? file_find(pl->p, canon) : NULL;
	if (f)
		return f;
	if (!exists) {
		err_set(e, EXIT_USAGE, w, "cannot open '%s': No such file or directory", name);
		return NULL;
	}
	f = file_add(pl, name, canon, true);
	if (!f) {
		err_set(e, EXIT_USAGE, w, "too many files (at most %d)", PLAN_MAXFILES);
		return NULL;
	}
	f->id = h5io_open(name, false, w, e);
	return f->id < 0 ? NULL : f;
}

static struct array *array_new(struct planner *pl, enum array_kind kind, const char *display)
{
	struct plan *p = pl->p;
	if (p->narrays == PLAN_MAXARRAYS)
		return NULL;
	struct array *x = arena_alloc(p->arena, sizeof *x);
	x->kind = kind;
	x->display = arena_strdup(p->arena, display);
	x->id = -1;
	p->arrays[p->narrays++] = x;
	return x;
}

static struct array *array_find(struct plan *p, const struct plan_file *f, const char *path)
{
	for (int i = p->narrays - 1; i >= 0; i--) {
		struct array *x = p->arrays[i];
		if (x->kind == ARR_DATASET && x->file == f && !x->selected && !strcmp(x->path, path))
			return x;
	}
	return NULL;
}

static struct array *binding_find(struct planner *pl, const char *name)
{
	for (int i = pl->nbind - 1; i >= 0; i--)
		if (!strcmp(pl->bind[i].name, name))
			return pl->bind[i].array;
	return NULL;
}

static int bind(struct planner *pl, const char *name, struct array *x, const char *w, struct err *e)
{
	if (pl->nbind == PLAN_MAXARRAYS)
		return err_set(e, EXIT_USAGE, w, "too many names (at most %d)", PLAN_MAXARRAYS);
	pl->bind[pl->nbind].name = name;
	pl->bind[pl->nbind].array = x;
	pl->nbind++;
	return 0;
}

/* Resolve OP's selection against the dataset extents DSHAPE, as NumPy's
 * basic slicing does (negative indices count from the end, slices clip). */
static int resolve_view(const struct operand *op, const struct shape *dshape,
			struct array_view *v, struct shape *vshape, const char *text,
			const char *w, struct err *e)
{
	int nd = dshape->ndim, nidx = 0, ellipsis = -1;
	for (int k = 0; k < op->nselect; k++) {
		if (op->select[k].kind != SELECT_ELLIPSIS) {
			nidx++;
		} else if (ellipsis >= 0) {
			return err_set(e, EXIT_USAGE, w, "'%s': an index can only have a single ellipsis ('...')", text);
		} else {
			ellipsis = k;
		}
	}
	if (nidx > nd)
		return err_set(e, EXIT_USAGE, w,
			       "'%s': too many indices for array: array is %d-dimensional, but %d were indexed",
			       text, nd, nidx);
	memset(v, 0, sizeof *v);
	v->ndim = nd;
	memcpy(v->dim, dshape->dim, sizeof v->dim);
	vshape->ndim = 0;
	for (int i = 0; i < nd; i++) {
		/* the item for axis i: those before the ellipsis from the left,
		 * those after it from the right */
		const struct select_item *it = NULL;
		int after = ellipsis >= 0 ? op->nselect - 1 - ellipsis : 0;
		if (ellipsis < 0 ? i < op->nselect : i < ellipsis)
			it = &op->select[i];
		else if (ellipsis >= 0 && i >= nd - after)
			it = &op->select[op->nselect - (nd - i)];
		int64_t n = dshape->dim[i];
		v->start[i] = 0;
		v->step[i] = 1;
		v->count[i] = n;
		if (it && it->kind == SELECT_INDEX) {
			int64_t idx = it->start;
			if (idx < -n || idx >= n)
				return err_set(e, EXIT_USAGE, w,
					       "'%s': index %lld is out of bounds for axis %d with size %lld",
					       text, (long long)idx, i, (long long)n);
			v->start[i] = idx < 0 ? idx + n : idx;
			v->count[i] = 1;
			v->dropped[i] = true;
			continue;
		}
		if (it && it->kind == SELECT_SLICE) {
			int64_t step = it->has_step ? it->step : 1;
			if (step == 0)
				return err_set(e, EXIT_USAGE, w, "'%s': slice step cannot be zero", text);
			if (step < 0)
				return err_set(e, EXIT_USAGE, w, "'%s': negative slice steps are not supported", text);
			int64_t lo = it->has_start ? it->start : 0, hi = it->has_stop ? it->stop : n;
			if (lo < 0)
				lo = lo + n < 0 ? 0 : lo + n;
			if (hi < 0)
				hi = hi + n < 0 ? 0 : hi + n;
			lo = lo > n ? n : lo;
			hi = hi > n ? n : hi;
			v->start[i] = lo;
			v->step[i] = step;
			v->count[i] = hi > lo ? (hi - lo + step - 1) / step : 0;
		}
		vshape->dim[vshape->ndim++] = v->count[i];
	}
	return 0;
}

static bool same_view(const struct array_view *a, const struct array_view *b)
{
	if (a->ndim != b->ndim)
		return false;
	for (int i = 0; i < a->ndim; i++)
		if (a->start[i] != b->start[i] || a->step[i] != b->step[i] ||
		    a->count[i] != b->count[i] || a->dropped[i] != b->dropped[i])
			return false;
	return true;
}

/* The dataset FILE:/PATH[SELECTION] as an operand that is read (or written
 * in place, for a selection). */
static struct array *dataset_operand(struct planner *pl, const struct operand *op,
				     const char *text, const char *w, struct err *e)
{
	struct plan_file *f = file_for_read(pl, op->file, w, e);
	if (!f)
		return NULL;
	struct array *x = array_find(pl->p, f, op->path);
	if (!x) {
		if (f->id < 0) {   /* a file the run creates: only its created datasets exist */
			err_set(e, EXIT_USAGE, w, "'%s' has no dataset '%s'", op->file, op->path);
			return NULL;
		}
		switch (h5io_probe(f->id, op->path)) {
		case H5IO_DATASET:
			break;
		case H5IO_GROUP:
			err_set(e, EXIT_USAGE, w, "'%s' is a group, not a dataset", text);
			return NULL;
		case H5IO_OTHER:
			err_set(e, EXIT_USAGE, w, "'%s' is not a dataset", text);
			return NULL;
		default:
			err_set(e, EXIT_USAGE, w, "'%s' has no dataset '%s'", op->file, op->path);
			return NULL;
		}
		char display[4096];
		snprintf(display, sizeof display, "%s:%s", op->file, op->path);
		x = array_new(pl, ARR_DATASET, op->selected ? display : text);
		if (!x) {
			err_set(e, EXIT_USAGE, w, "too many arrays (at most %d)", PLAN_MAXARRAYS);
			return NULL;
		}
		x->file = f;
		x->path = arena_strdup(pl->p->arena, op->path);
		hid_t d = h5io_dataset_open(f->id, op->path, &x->shape, &x->dtype, w, text, e);
		if (d < 0)
			return NULL;
		h5io_dataset_close(d);
	}
	if (!op->selected)
		return x;
	struct array_view v;
	struct shape vshape;
	if (resolve_view(op, &x->shape, &v, &vshape, text, w, e) < 0)
		return NULL;
	for (int i = 0; i < pl->p->narrays; i++) {
		struct array *y = pl->p->arrays[i];
		if (y->kind == ARR_DATASET && y->selected && y->file == f && !strcmp(y->path, op->path) &&
		    same_view(&y->view, &v))
			return y;
	}
	struct array *y = array_new(pl, ARR_DATASET, text);
	if (!y) {
		err_set(e, EXIT_USAGE, w, "too many arrays (at most %d)", PLAN_MAXARRAYS);
		return NULL;
	}
	y->file = f;
	y->path = x->path;
	y->dtype = x->dtype;
	y->shape = vshape;
	y->selected = true;
	y->view = v;
	return y;
}

/* The index range [lo, hi] that X covers along dataset axis I. */
static void axis_range(const struct array *x, int i, int64_t *lo, int64_t *hi)
{
	if (!x->selected) {
		*lo = 0;
		*hi = x->shape.dim[i] - 1;
		return;
	}
	*lo = x->view.start[i];
	*hi = x->view.start[i] + x->view.step[i] * (x->view.count[i] - 1);
}

/* Do two arrays of one dataset (different selections) touch common elements?
 * Conservative: their bounding boxes. */
static bool may_overlap(const struct array *a, const struct array *b)
{
	int nd = a->selected ? a->view.ndim : a->shape.ndim;
	for (int i = 0; i < nd; i++) {
		int64_t alo, ahi, blo, bhi;
		axis_range(a, i, &alo, &ahi);
		axis_range(b, i, &blo, &bhi);
		if (ahi < blo || bhi < alo)
			return false;
	}
	return true;
}

/* An operand that a step reads: a name, a dataset or a literal. */
static struct array *operand_array(struct planner *pl, const char *text, const char *w,
				   struct err *e)
{
	struct operand op;
	if (operand_parse(text, pl->p->arena, &op, w, e) < 0)
		return NULL;
	if (op.kind == OPERAND_NAME) {
		struct array *x = binding_find(pl, op.name);
		if (!x)
			err_set(e, EXIT_USAGE, w, "unknown name '%s'", op.name);
		return x;
	}
	if (op.kind == OPERAND_DATASET)
		return dataset_operand(pl, &op, text, w, e);
	struct array *x = array_new(pl, ARR_LITERAL, text);
	if (!x) {
		err_set(e, EXIT_USAGE, w, "too many arrays (at most %d)", PLAN_MAXARRAYS);
		return NULL;
	}
	x->lit = op.lit;
	x->lit.text = x->display;
	x->dtype = literal_default_dtype(&op.lit);
	x->shape.ndim = 0;
	return x;
}

/* ---- type resolution (NumPy's linear search, NEP 50 literals) ------- */

static int kind_order(char kind)
{
	return kind == 'b' ? 0 : kind == 'f' ? 2 : kind == 'c' ? 3 : 1;
}

static bool is_weak(const struct array *x)
{
	return x->kind == ARR_LITERAL && x->lit.kind != LIT_BOOL && !x->strong;
}

/* Can input X go to loop type T under CASTING?  USE_MIN_SCALAR is NumPy's:
 * weak literals then fit any dtype of their kind or a higher one. */
static bool input_fits(const struct array *x, enum dtype t, enum casting casting,
		       bool use_min_scalar)
{
	if (is_weak(x) && use_min_scalar)
		return literal_can_cast(&x->lit, t, casting);
	return dtype_can_cast(x->dtype, t, casting);
}

/* NumPy's loop search for UF over the NIN operands IN: the first loop the
 * inputs cast to (safely, or under CASTING when dtype= fixes the outputs). */
/* Ufuncs whose NumPy type resolvers refuse bool inputs rather than cast
 * them to int8, with NumPy's messages. */
static int refuse_bool(const struct ufunc *uf, int nin, const struct array *const *in,
		       const char *w, struct err *e)
{
	for (int k = 0; k < nin; k++)
		if (in[k]->dtype != DT_BOOL)
			return 0;
	if (!strcmp(uf->name, "subtract"))
		return err_set(e, EXIT_USAGE, w, "numpy boolean subtract, the `-` operator, is not supported, "
			       "use the bitwise_xor, the `^` operator, or the logical_xor function instead.");
	if (!strcmp(uf->name, "negative"))
		return err_set(e, EXIT_USAGE, w, "The numpy boolean negative, the `-` operator, is not supported, "
			       "use the `~` operator or the logical_not function instead.");
	static const char *const names[] = { "gcd", "lcm", "positive", "sign" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (!strcmp(uf->name, names[i]))
			return err_set(e, EXIT_USAGE, w,
				       "ufunc '%s' did not contain a loop with signature matching types (%s)",
				       uf->name, nin == 1 ? "bool" : "bool, bool");
	return 0;
}

static const struct ufunc_loop *resolve_loop(const struct ufunc *uf, int nin,
					     const struct array *const *in,
					     const struct step_opts *o, enum casting casting,
					     const char *w, struct err *e)
{
	if (refuse_bool(uf, nin, in, w, e) < 0)
		return NULL;
	/* NumPy's true division takes integers and bools as float64. */
	struct step_opts as_double;
	bool integers = !strcmp(uf->name, "divide");
	for (int k = 0; k < nin && integers; k++)
		integers = strchr("biu", dtype_table[in[k]->dtype].kind) != NULL;
	if (integers && !(o && (o->given & (1u << OPT_DTYPE)))) {
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
	bool fixed = o && (o->given & (1u << OPT_DTYPE));
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
			ok = input_fits(in[k], loop->types[k], in_casting, use_min_scalar);
		if (!ok)
			continue;
		for (int k = 0; k < nin && !fixed && casting < CAST_SAFE; k++)
			if (!input_fits(in[k], loop->types[k], casting, use_min_scalar)) {
				err_set(e, EXIT_USAGE, w,
					"Cannot cast ufunc '%s' input %d from %s to %s with casting rule '%s'",
					uf->name, k, dtype_name(in[k]->dtype), dtype_name(loop->types[k]),
					casting_name(casting));
				return NULL;
			}
		return loop;
	}
	if (fixed && with_out) {
		for (int k = 0; k < nin; k++)
			if (!input_fits(in[k], with_out->types[k], in_casting, use_min_scalar)) {
				err_set(e, EXIT_USAGE, w,
					"Cannot cast ufunc '%s' input %d from %s to %s with casting rule '%s'",
					uf->name, k, dtype_name(in[k]->dtype),
					dtype_name(with_out->types[k]), casting_name(in_casting));
				return NULL;
			}
	}
	if (fixed) {
		err_set(e, EXIT_USAGE, w, "ufunc '%s' has no loop that gives %s", uf->name,
			dtype_name(o->dtype));
		return NULL;
	}
	err_set(e, EXIT_USAGE, w,
		"ufunc '%s' not supported for the input types, and the inputs could not "
		"be safely coerced to any supported types according to the casting rule ''%s''",
		uf->name, casting_name(in_casting));
	return NULL;
}

/* Literal operand K of OP, converted to the loop's dtype. */
static int convert_literal(const struct array *x, struct plan_op *op, int k, const char *w,
			   struct err *e)
{
	enum dtype t = op->loop->types[k];
	op->src[k] = OP_LITERAL;
	if (is_weak(x))
		return literal_to_dtype(&x->lit, t, op->lit[k], w, e);
	/* a strong literal: its default dtype's value, then cast */
	unsigned char v[8];
	if (x->lit.kind == LIT_BOOL)
		memcpy(v, &x->lit.b, 1);
	else if (literal_to_dtype(&x->lit, x->dtype, v, w, e) < 0)
		return -1;
	dtype_cast(x->dtype, v, 0, t, op->lit[k], 0, 1);
	return 0;
}

/* ---- outputs -------------------------------------------------------- */

static int check_writable(const char *path, bool exists, const char *w, struct err *e)
{
	if (exists) {
		if (access(path, W_OK) != 0)
			return err_set(e, EXIT_USAGE, w, "cannot write '%s': %s", path, strerror(errno));
		return 0;
	}
	char *copy = strdup(path);
	if (!copy)
		abort();
	const char *dir = dirname(copy);
	int r = 0;
	struct stat st;
	if (stat(dir, &st) != 0)
		r = err_set(e, EXIT_USAGE, w, "cannot create '%s': directory '%s' does not exist", path, dir);
	else if (!S_ISDIR(st.st_mode))
		r = err_set(e, EXIT_USAGE, w, "cannot create '%s': '%s' is not a directory", path, dir);
	else if (access(dir, W_OK | X_OK) != 0)
		r = err_set(e, EXIT_USAGE, w, "cannot create '%s': directory '%s': %s", path, dir, strerror(errno));
	free(copy);
	return r;
}

/* The file an output FILE:/PATH goes to, created by the run when new. */
static struct plan_file *file_for_write(struct planner *pl, const char *name, const char *w,
					struct err *e)
{
	struct stat st;
	if (stat(name, &st) == 0 && S_ISDIR(st.st_mode)) {
		err_set(e, EXIT_USAGE, w, "'%s' is a directory, not an HDF5 file", name);
		return NULL;
	}
	bool exists;
	char *canon = canonical(pl->p->arena, name, &exists);
	if (!canon) {
		check_writable(name, false, w, e);
		return NULL;
	}
	struct plan_file *f = file_find(pl->p, canon);
	if (!f) {
		if (exists) {
			f = file_for_read(pl, name, w, e);
		} else {
			f = file_add(pl, name, canon, false);
			if (!f)
				err_set(e, EXIT_USAGE, w, "too many files (at most %d)", PLAN_MAXFILES);
		}
		if (!f)
			return NULL;
	}
	if (!f->write && check_writable(f->name, f->exists, w, e) < 0)
		return NULL;
	f->write = true;
	return f;
}

static const char *step_where(struct planner *pl, struct plan_step *s, int k)
{
	return where(pl, s, s->src->out_mark[k]);
}

/* A new dataset PATH in F holding output K of S. */
static struct array *new_output(struct planner *pl, struct plan_step *s, int k,
				struct plan_file *f, const char *path, const char *display,
				struct err *e)
{
	struct array *x = array_new(pl, ARR_DATASET, display);
	if (!x) {
		err_set(e, EXIT_USAGE, step_where(pl, s, k), "too many arrays (at most %d)", PLAN_MAXARRAYS);
		return NULL;
	}
	x->file = f;
	x->path = arena_strdup(pl->p->arena, path);
	x->shape = s->shape;
	x->dtype = s->out_dtype[k];
	x->create = true;
	x->gzip = -1;
	return x;
}

/* The scratch file of printed results (PRINTED) or of named
 * intermediates: apart, since printed results always stay in memory and
 * intermediates only while they are small (place_files). */
static struct plan_file *scratch_file(struct planner *pl, bool printed)
{
	for (int i = 0; i < pl->p->nfiles; i++)
		if (pl->p->files[i]->scratch && pl->p->files[i]->printed == printed)
			return pl->p->files[i];
	const char *name = printed ? "(results)" : "(scratch)";
	struct plan_file *f = file_add(pl, name, name, false);
	if (f) {
		f->scratch = true;
		f->printed = printed;
		f->write = true;
	}
	return f;
}

/* Check in-place target X against output K of S: shape and casting. */
static int check_in_place(struct planner *pl, struct plan_step *s, int k, struct array *x,
			  struct err *e)
{
	const char *w = step_where(pl, s, k);
	char a[800], b[800];
	if (!shape_equal(&x->shape, &s->shape))
		return err_set(e, EXIT_USAGE, w,
			       "non-broadcastable output operand with shape %s doesn't match the broadcast shape %s",
			       shape_format_compact(&x->shape, a, sizeof a),
			       shape_format_compact(&s->shape, b, sizeof b));
	enum dtype from = s->out_dtype[k];
	if (!dtype_can_cast(from, x->dtype, s->casting))
		return err_set(e, EXIT_USAGE, w,
			       "Cannot cast ufunc '%s' output from %s to %s with casting rule '%s'",
			       s->uf->name, dtype_name(from), dtype_name(x->dtype),
			       casting_name(s->casting));
	return 0;
}

static int plan_output(struct planner *pl, struct plan_step *s, int k, bool overwrite,
		       struct err *e)
{
	const char *text = s->src->out[k];
	const char *w = step_where(pl, s, k);
	struct operand op;
	if (operand_parse(text, pl->p->arena, &op, w, e) < 0)
		return -1;
	if (op.kind == OPERAND_LITERAL)
		return err_set(e, EXIT_USAGE, w, "cannot write a result to the number '%s'", text);
	struct array *x;
	if (op.kind == OPERAND_NAME) {
		x = binding_find(pl, op.name);
		if (x && x->kind == ARR_DATASET && !x->file->scratch) {
			if (check_in_place(pl, s, k, x, e) < 0)
				return -1;
			if (!x->create) {
				if (check_writable(x->file->name, true, w, e) < 0)
					return -1;
				x->in_place = true;
			}
			x->file->write = true;
			s->out[k] = x;
			return 0;
		}
		struct plan_file *f = scratch_file(pl, false);
		if (!f)
			return err_set(e, EXIT_USAGE, w, "too many files (at most %d)", PLAN_MAXFILES);
		char path[64];
		snprintf(path, sizeof path, "/t%d", pl->p->narrays);
		x = new_output(pl, s, k, f, path, op.name, e);
		if (!x)
			return -1;
		s->out[k] = x;
		return 0;   /* bound after the step: its inputs see the old value */
	}
	struct plan_file *f = file_for_write(pl, op.file, w, e);
	if (!f)
		return -1;
	if (op.selected) {   /* into part of an existing dataset */
		x = dataset_operand(pl, &op, text, w, e);
		if (!x || check_in_place(pl, s, k, x, e) < 0)
			return -1;
		x->in_place = true;
		s->out[k] = x;
		return 0;
	}
	x = array_find(pl->p, f, op.path);
	if (x) {
		if (check_in_place(pl, s, k, x, e) < 0)
			return -1;
		if (!x->create)
			x->in_place = true;
		s->out[k] = x;
		return 0;
	}
	bool replace = false;
	if (f->id >= 0) {
		switch (h5io_probe(f->id, op.path)) {
		case H5IO_NONE:
			break;
		case H5IO_DATASET:
			if (!overwrite)
				return err_set(e, EXIT_USAGE, w,
					       "dataset '%s' exists (use overwrite: true or --overwrite to replace it)",
					       text);
			replace = true;
			break;
		default:
			return err_set(e, EXIT_USAGE, w, "'%s' exists and is not a dataset", text);
		}
	}
	x = new_output(pl, s, k, f, op.path, text, e);
	if (!x)
		return -1;
	x->replace = replace;
	if (replace) {
		/* "/g/.y.h5ufunc-TOKEN.tmp" next to "/g/y" */
		const char *slash = strrchr(op.path, '/');
		size_t dir = slash ? (size_t)(slash - op.path) + 1 : 0;
		size_t n = strlen(op.path) + strlen(pl->o->token) + 16;
		char *tmp = arena_alloc(pl->p->arena, n);
		snprintf(tmp, n, "%.*s.%s.h5ufunc-%s.tmp", (int)dir, op.path, op.path + dir, pl->o->token);
		x->new_path = tmp;
	}
	s->out[k] = x;
	return 0;
}

/* ---- blocks --------------------------------------------------------- */

/* Is input K of S read whole (it broadcasts along the rows) rather than by
 * rows?  exec.c decides the same way. */
static bool read_whole(const struct plan_step *s, int k)
{
	const struct shape *b = &s->bshape[k];
	return b->ndim < s->shape.ndim || (b->ndim > 0 && b->dim[0] == 1 && s->shape.dim[0] != 1);
}

/* The dtype op J of S reads as its operand K (before any cast). */
static enum dtype op_source_dtype(const struct plan_step *s, const struct plan_op *op, int k)
{
	int src = op->src[k];
	if (src >= 0)
		return s->ops[OP_OF(src)].loop->types[s->ops[OP_OF(src)].nin + OP_OUTPUT(src)];
	return s->in[-1 - src]->dtype;
}

static int size_elementwise(struct planner *pl, struct plan_step *s, const char *w, struct err *e)
{
	int64_t fixed = 0, per_row = 0, widest = 0;
	int64_t row = shape_row_size(&s->shape);
	for (int k = 0; k < s->nin; k++) {
		const struct array *x = s->in[k];
		if (x->kind == ARR_LITERAL)
			continue;
		if (read_whole(s, k)) {
			fixed += shape_size(&x->shape) * dtype_size(x->dtype);
		} else {
			per_row += shape_row_size(&x->shape) * dtype_size(x->dtype);
			if (shape_row_size(&x->shape) * dtype_size(x->dtype) > widest)
				widest = shape_row_size(&x->shape) * dtype_size(x->dtype);
		}
	}
	for (int j = 0; j < s->nops; j++) {
		const struct plan_op *op = &s->ops[j];
		for (int k = 0; k < op->nout; k++)
			per_row += row * dtype_size(op->loop->types[op->nin + k]);
		for (int k = 0; k < op->nin; k++) {
			if (op->src[k] == OP_LITERAL || op_source_dtype(s, op, k) == op->loop->types[k])
				continue;
			int src = op->src[k];
			int64_t t = dtype_size(op->loop->types[k]);
			if (src >= 0 || !read_whole(s, -1 - src))
				per_row += (src >= 0 ? row : shape_row_size(&s->in[-1 - src]->shape)) * t;
			else
				fixed += shape_size(&s->in[-1 - src]->shape) * t;
		}
	}
	for (int k = 0; k < s->nred; k++) {
		const struct plan_step *r = s->red[k];
		enum dtype t = r->loop->types[0], target = r->out[0]->dtype;
		int src = s->red_src[k];
		enum dtype from = src >= 0 ? s->ops[OP_OF(src)].loop->types[s->ops[OP_OF(src)].nin + OP_OUTPUT(src)]
					   : s->in[-1 - src]->dtype;
		int64_t orow = shape_size(&r->shape) / (shape_rows(&s->shape) ? shape_rows(&s->shape) : 1);
		if (r->mode == REDUCE_ROWS)
			per_row += orow * (dtype_size(t) + (target != t ? dtype_size(target) : 0));
		else
			fixed += 140 * shape_size(&r->shape) * dtype_size(t);
		if (from != t)
			per_row += row * dtype_size(t);
	}
	for (int k = 0; k < s->nout; k++) {
		enum dtype t = s->out_dtype[k], target = s->out[k]->dtype;
		per_row += target != t ? row * dtype_size(target) : 0;
		if (row * dtype_size(target) > widest)
			widest = row * dtype_size(target);
	}
	return dist_block_units((int64_t)pl->o->memory, fixed, per_row, widest, shape_rows(&s->shape),
				pl->o->nranks, "one row of every array", w, e, &s->rows_per_block);
}

/* ---- steps ---------------------------------------------------------- */

static void merge_opts(const struct step_opts *d, const struct step_opts *s, struct step_opts *out)
{
	*out = *d;
	out->given = d->given | s->given;
	for (int i = 0; i < OPT_COUNT; i++)
		if (s->given & (1u << i))
			out->mark[i] = s->mark[i];
#define TAKE(OPT, FIELD) if (s->given & (1u << OPT)) out->FIELD = s->FIELD
	TAKE(OPT_DTYPE, dtype);
	TAKE(OPT_CASTING, casting);
	TAKE(OPT_INITIAL, initial);
	TAKE(OPT_KEEPDIMS, keepdims);
	TAKE(OPT_OVERWRITE, overwrite);
#undef TAKE
	if (s->given & (1u << OPT_CHUNKS)) {
		out->chunks_auto = s->chunks_auto;
		out->nchunks = s->nchunks;
		memcpy(out->chunks, s->chunks, sizeof out->chunks);
	}
	if (s->given & (1u << OPT_COMPRESSION))
		out->gzip = s->gzip;
	if (s->given & (1u << OPT_AXIS)) {
		out->axis_all = s->axis_all;
		out->naxis = s->naxis;
		memcpy(out->axis, s->axis, sizeof out->axis);
	}
}


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
	return err_set(e, EXIT_USAGE, where(pl, s, m),
		       "operands could not be broadcast together with shapes %s", msg);
}

/* An elementwise call, or UFUNC.outer. */
static int plan_elementwise(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			    struct err *e)
{
	const struct recipe_step *rs = s->src;
	if (s->verb == VERB_OUTER && s->uf->nin != 2)
		return err_set(e, EXIT_USAGE, where(pl, s, rs->fn_mark),
			       "outer product only supported for binary functions");
	if (rs->nin != s->uf->nin)
		return err_set(e, EXIT_USAGE, where(pl, s, rs->nin ? rs->in_mark[0] : rs->mark),
			       "ufunc '%s' takes %d input%s, got %d", s->uf->name, s->uf->nin,
			       s->uf->nin == 1 ? "" : "s", rs->nin);
	s->nin = rs->nin;
	s->nout = s->uf->nout;
	for (int k = 0; k < s->nin; k++) {
		s->in[k] = operand_array(pl, rs->in[k], where(pl, s, rs->in_mark[k]), e);
		if (!s->in[k])
			return -1;
		s->bshape[k] = s->in[k]->shape;
	}
	if (s->verb == VERB_OUTER) {   /* a.shape + (1,) * b.ndim against b */
		for (int k = 0; k < s->nin; k++)
			if (s->in[k]->kind == ARR_LITERAL)
				s->in[k]->strong = true;   /* NumPy makes arrays of them first */
		struct shape *a = &s->bshape[0];
		if (a->ndim + s->bshape[1].ndim > H5U_MAXDIM)
			return err_set(e, EXIT_USAGE, where(pl, s, rs->mark),
				       "the outer product has more than %d dimensions", H5U_MAXDIM);
		for (int i = 0; i < s->bshape[1].ndim; i++)
			a->dim[a->ndim++] = 1;
	}
	if (broadcast(pl, s, e) < 0)
		return -1;
	s->loop = resolve_loop(s->uf, s->nin, (const struct array *const *)s->in, o, s->casting,
			       where(pl, s, o->given & (1u << OPT_DTYPE) ? o->mark[OPT_DTYPE] : rs->mark), e);
	if (!s->loop)
		return -1;
	for (int k = 0; k < s->nout; k++)
		s->out_dtype[k] = s->loop->types[s->nin + k];
	struct plan_op *op = arena_alloc(pl->p->arena, sizeof *op);
	op->uf = s->uf;
	op->loop = s->loop;
	op->nin = s->nin;
	op->nout = s->nout;
	op->shape = s->shape;
	op->where = s->where;
	for (int k = 0; k < s->nin; k++) {
		op->src[k] = -1 - k;
		if (s->in[k]->kind == ARR_LITERAL &&
		    convert_literal(s->in[k], op, k, where(pl, s, rs->in_mark[k]), e) < 0)
			return -1;
	}
	s->nops = 1;
	s->ops = op;
	for (int k = 0; k < s->nout; k++)
		s->out_src[k] = OP_REF(0, k);
	return 0;
}

/* ---- expressions ------------------------------------------------------ */

struct lowering {
	struct planner *pl;
	struct plan_step *s;
	const struct step_opts *o;
	const struct expr *root;
	struct plan_op *ops;
	int nops;
};

/* An op's operand while lowering: where it comes from, and what it looks
 * like to type resolution. */
struct operand_ref {
	int src;
	struct array view;
};

/* Where column COL (1-based, in the expression's text) is for the user: a
 * column of the one-liner's argument, or a line and column of the recipe. */
static const char *expr_where(struct planner *pl, struct plan_step *s, int col)
{
	const struct recipe_step *rs = s->src;
	if (pl->o->command) {
		snprintf(pl->where, sizeof pl->where, "%s: column %d", s->where, col + rs->fn_offset);
		return pl->where;
	}
	struct mark m = rs->fn_text.line > 0 ? rs->fn_text : rs->fn_mark;
	if (m.line > 0) {
		int start = m.col;
		for (int i = 0; i < col - 1 && rs->fn[i]; i++) {
			if (rs->fn[i] == '\n') {
				m.line++;
				m.col = start;
			} else {
				m.col++;
			}
		}
	}
	return where(pl, s, m);
}

static int lower(struct lowering *L, const struct expr *x, struct operand_ref *out, struct err *e)
{
	struct planner *pl = L->pl;
	struct plan_step *s = L->s;
	memset(out, 0, sizeof *out);
	if (x->kind == EXPR_LITERAL) {
		out->src = OP_LITERAL;
		out->view.kind = ARR_LITERAL;
		out->view.lit = x->lit;
		out->view.dtype = literal_default_dtype(&x->lit);
		return 0;
	}
	if (x->kind == EXPR_NAME) {
		struct array *a = binding_find(pl, x->name);
		if (!a)
			return err_set(e, EXIT_USAGE, expr_where(pl, s, x->col), "unknown name '%s'", x->name);
		out->view = *a;
		if (a->kind == ARR_LITERAL) {
			out->src = OP_LITERAL;
			return 0;
		}
		int k = 0;
		while (k < s->nin && s->in[k] != a)
			k++;
		if (k == RECIPE_MAXIN)
			return err_set(e, EXIT_USAGE, expr_where(pl, s, x->col),
				       "an expression reads at most %d arrays", RECIPE_MAXIN);
		if (k == s->nin) {
			s->in[k] = a;
			s->bshape[k] = a->shape;
			s->nin++;
		}
		out->src = -1 - k;
		return 0;
	}
	const char *w = expr_where(pl, s, x->col);
	const struct ufunc *uf = ufunc_lookup(x->name);
	if (!uf)
		return err_set(e, EXIT_USAGE, w, "unknown ufunc '%s'", x->name);
	if (uf->nout != 1)
		return err_set(e, EXIT_USAGE, w, "ufunc '%s' gives %d outputs: call it in a ufunc step",
			       uf->name, uf->nout);
	if (x->nargs != uf->nin)
		return err_set(e, EXIT_USAGE, w, "ufunc '%s' takes %d input%s, got %d", uf->name,
			       uf->nin, uf->nin == 1 ? "" : "s", x->nargs);
	if (L->nops == EXPR_MAXOPS)
		return err_set(e, EXIT_USAGE, w, "an expression has at most %d operations", EXPR_MAXOPS);
	struct operand_ref args[RECIPE_MAXIN];
	const struct array *views[RECIPE_MAXIN];
	const struct shape *shapes[RECIPE_MAXIN];
	for (int k = 0; k < x->nargs; k++) {
		if (lower(L, x->args[k], &args[k], e) < 0)
			return -1;
		views[k] = &args[k].view;
		shapes[k] = &args[k].view.shape;
	}
	w = expr_where(pl, s, x->col);
	struct plan_op *op = &L->ops[L->nops];
	op->uf = uf;
	op->nin = uf->nin;
	op->nout = 1;
	op->where = s->where;
	if (shape_broadcast(x->nargs, shapes, &op->shape) < 0) {
		char msg[1024] = "", buf[800];
		for (int k = 0; k < x->nargs; k++) {
			size_t n = strlen(msg);
			snprintf(msg + n, sizeof msg - n, "%s%s", k ? " " : "",
				 shape_format_compact(shapes[k], buf, sizeof buf));
		}
		return err_set(e, EXIT_USAGE, w, "operands could not be broadcast together with shapes %s", msg);
	}
	op->loop = resolve_loop(uf, x->nargs, views, x == L->root ? L->o : NULL, s->casting, w, e);
	if (!op->loop)
		return -1;
	for (int k = 0; k < x->nargs; k++) {
		op->src[k] = args[k].src;
		if (args[k].src == OP_LITERAL && convert_literal(&args[k].view, op, k, w, e) < 0)
			return -1;
	}
	out->src = OP_REF(L->nops++, 0);
	out->view.kind = ARR_DATASET;
	out->view.dtype = op->loop->types[uf->nin];
	out->view.shape = op->shape;
	return 0;
}

static int plan_expression(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			   struct err *e)
{
	int col;
	char msg[256];
	struct expr *root = expr_parse(s->src->fn, pl->p->arena, &col, msg, sizeof msg);
	if (!root)
		return err_set(e, EXIT_USAGE, expr_where(pl, s, col), "%s", msg);
	if (root->kind != EXPR_CALL)
		return err_set(e, EXIT_USAGE, expr_where(pl, s, root->col),
			       "an expression needs at least one operation (an operator or a ufunc call)");
	struct lowering L = { .pl = pl, .s = s, .o = o, .root = root };
	L.ops = arena_alloc(pl->p->arena, sizeof *L.ops * EXPR_MAXOPS);
	struct operand_ref result;
	if (lower(&L, root, &result, e) < 0)
		return -1;
	const struct plan_op *last = &L.ops[L.nops - 1];
	s->ops = L.ops;
	s->nops = L.nops;
	s->nout = 1;
	s->uf = last->uf;
	s->loop = last->loop;
	s->shape = last->shape;
	s->out_dtype[0] = last->loop->types[last->nin];
	s->out_src[0] = OP_REF(L.nops - 1, 0);
	return 0;
}

/* NumPy's reduce and accumulate upcast bool and small integers for add and
 * multiply to the default integer. */
static enum dtype reduction_dtype(const struct ufunc *uf, enum dtype dt)
{
	if (!strcmp(uf->name, "divide") && strchr("biu", dtype_table[dt].kind))
		return DT_FLOAT64;   /* true division of integers, as a call */
	if (!strcmp(uf->name, "logical_and") || !strcmp(uf->name, "logical_or") ||
	    !strcmp(uf->name, "logical_xor"))
		return DT_BOOL;
	if (strcmp(uf->name, "add") && strcmp(uf->name, "multiply"))
		return dt;
	char kind = dtype_table[dt].kind;
	if (kind == 'b' || (kind == 'i' && dtype_size(dt) < 8))
		return DT_INT64;
	if (kind == 'u' && dtype_size(dt) < 8)
		return DT_UINT64;
	return dt;
}

static int resolve_reduction_loop(struct planner *pl, struct plan_step *s, const struct step_opts *o,
				  const char *w, struct err *e)
{
	const struct ufunc *uf = s->uf;
	bool fixed = o->given & (1u << OPT_DTYPE);
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
			return err_set(e, EXIT_USAGE, w,
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
		return err_set(e, EXIT_USAGE, w, "ufunc '%s' has no loop to %s with dtype=%s",
			       uf->name, verb_name(s->verb), dtype_name(want));
	return err_set(e, EXIT_USAGE, w, "ufunc '%s' cannot %s %s data", uf->name,
		       verb_name(s->verb), dtype_name(s->in[0]->dtype));
}

/* Normalise axis A of an NDIM-dimensional array. */
static int normalise_axis(struct planner *pl, struct plan_step *s, int a, int ndim, int *out,
			  struct err *e)
{
	if (a < -ndim || a >= ndim)
		return err_set(e, EXIT_USAGE, where(pl, s, s->src->opts.mark[OPT_AXIS]),
			       "axis %d is out of bounds for array of dimension %d", a, ndim);
	*out = a < 0 ? a + ndim : a;
	return 0;
}

/* reduce and accumulate. */
static int plan_reduction(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			  struct err *e)
{
	const struct recipe_step *rs = s->src;
	const struct ufunc *uf = s->uf;
	const char *verb = verb_name(s->verb);
	if (uf->nin != 2)
		return err_set(e, EXIT_USAGE, where(pl, s, rs->fn_mark),
			       "%s only supported for binary functions", verb);
	if (uf->nout != 1)
		return err_set(e, EXIT_USAGE, where(pl, s, rs->fn_mark),
			       "%s only supported for functions returning a single value", verb);
	if (rs->nin != 1)
		return err_set(e, EXIT_USAGE, where(pl, s, rs->nin ? rs->in_mark[0] : rs->mark),
			       "%s takes one input, got %d", verb, rs->nin);
	s->nin = s->nout = 1;
	s->in[0] = operand_array(pl, rs->in[0], where(pl, s, rs->in_mark[0]), e);
	if (!s->in[0])
		return -1;
	struct array *x = s->in[0];
	if (x->kind == ARR_LITERAL)
		return err_set(e, EXIT_USAGE, where(pl, s, rs->in_mark[0]),
			       "%s needs a dataset, not the number '%s'", verb, x->display);
	const struct shape *X = &x->shape;
	bool given = o->given & (1u << OPT_AXIS);
	memset(s->reduced, 0, sizeof s->reduced);
	if (s->verb == VERB_ACCUMULATE) {
		if (X->ndim == 0)
			return err_set(e, EXIT_USAGE, where(pl, s, rs->in_mark[0]), "cannot accumulate on a scalar");
		if (given && (o->axis_all || o->naxis != 1))
			return err_set(e, EXIT_USAGE, where(pl, s, o->mark[OPT_AXIS]),
				       "accumulate does not allow multiple axes");
		if (normalise_axis(pl, s, given ? o->axis[0] : 0, X->ndim, &s->axis, e) < 0)
			return -1;
		s->reduced[s->axis] = true;
		s->shape = *X;
	} else {
		int naxes = 0;
		if (given && o->axis_all) {
			for (int i = 0; i < X->ndim; i++)
				s->reduced[i] = true;
			naxes = X->ndim;
		} else if (X->ndim == 0 && (!given || (o->naxis == 1 && (o->axis[0] == 0 || o->axis[0] == -1)))) {
			naxes = 0;   /* NumPy 2 keeps this: reducing a 0-d array along 0 gives the element */
		} else {
			int n = given ? o->naxis : 1;
			for (int i = 0; i < n; i++) {
				int a = 0;
				if (normalise_axis(pl, s, given ? o->axis[i] : 0, X->ndim, &a, e) < 0)
					return -1;
				if (s->reduced[a])
					return err_set(e, EXIT_USAGE, where(pl, s, o->mark[OPT_AXIS]),
						       "duplicate value in 'axis'");
				s->reduced[a] = true;
				naxes++;
			}
		}
		if (naxes > 1 && !ufunc_reorderable(uf))
			return err_set(e, EXIT_USAGE, where(pl, s, o->mark[OPT_AXIS]),
				       "reduction operation '%s' is not reorderable, so at most one axis may be specified",
				       uf->name);
		s->keepdims = (o->given & (1u << OPT_KEEPDIMS)) && o->keepdims;
		s->shape.ndim = 0;
		for (int i = 0; i < X->ndim; i++)
			if (!s->reduced[i])
				s->shape.dim[s->shape.ndim++] = X->dim[i];
			else if (s->keepdims)
				s->shape.dim[s->shape.ndim++] = 1;
	}
	s->bshape[0] = *X;
	if (resolve_reduction_loop(pl, s, o, where(pl, s, given && (o->given & (1u << OPT_DTYPE)) ?
						   o->mark[OPT_DTYPE] : rs->fn_mark), e) < 0)
		return -1;
	enum dtype t = s->loop->types[0];
	s->out_dtype[0] = s->loop->types[2];
	if (s->verb == VERB_ACCUMULATE) {
		s->init = FOLD_FIRST_SKIP;
		return 0;
	}
	unsigned char identity[16];
	bool has_identity = ufunc_identity_value(uf, t, identity) == 0;
	bool empty = false;
	for (int i = 0; i < X->ndim; i++)
		empty = empty || (s->reduced[i] && X->dim[i] == 0);
	s->rest_init = has_identity ? FOLD_VALUE : ufunc_reorderable(uf) ? FOLD_FIRST : FOLD_FIRST_SKIP;
	memcpy(s->rest_value, identity, sizeof identity);
	s->init = s->rest_init;
	memcpy(s->init_value, identity, sizeof identity);
	if (o->given & (1u << OPT_INITIAL)) {
		const char *w = where(pl, s, o->mark[OPT_INITIAL]);
		struct literal lit;
		if (literal_parse(o->initial, &lit) < 0)
			return err_set(e, EXIT_USAGE, w, "initial must be a number, got '%s'", o->initial);
		if (lit.kind == LIT_BOOL)
			dtype_cast(DT_BOOL, &lit.b, 0, t, s->init_value, 0, 1);
		else if (literal_to_dtype(&lit, t, s->init_value, w, e) < 0)
			return -1;
		s->init = FOLD_VALUE;
	}
	if (empty && s->init != FOLD_VALUE)
		return err_set(e, EXIT_USAGE, where(pl, s, rs->mark),
			       "zero-size array to reduction operation %s which has no identity", uf->name);
	return 0;
}

/* Chunks and compression of output K, a dataset the step creates. */
static int plan_layout(struct planner *pl, struct plan_step *s, int k, const struct step_opts *o,
		       struct err *e)
{
	struct array *x = s->out[k];
	bool chunks = o->given & (1u << OPT_CHUNKS), gzip = o->given & (1u << OPT_COMPRESSION);
	x->gzip = gzip ? o->gzip : -1;
	if (!chunks && !gzip)
		return 0;
	const char *w = where(pl, s, o->mark[chunks ? OPT_CHUNKS : OPT_COMPRESSION]);
	const struct shape *sh = &x->shape;
	if (sh->ndim == 0)
		return err_set(e, EXIT_USAGE, w, "'%s' is a scalar (0-d): it cannot be chunked or compressed",
			       x->display);
	x->nchunk = sh->ndim;
	if (chunks && !o->chunks_auto) {
		if (o->nchunks != sh->ndim)
			return err_set(e, EXIT_USAGE, w, "chunks has %d entr%s, '%s' has %d dimension%s",
				       o->nchunks, o->nchunks == 1 ? "y" : "ies", x->display, sh->ndim,
				       sh->ndim == 1 ? "" : "s");
		for (int i = 0; i < sh->ndim; i++) {
			if (o->chunks[i] < 1 || (o->chunks[i] > sh->dim[i] && sh->dim[i] > 0))
				return err_set(e, EXIT_USAGE, w,
					       "chunk extent %lld does not fit axis %d of '%s' (extent %lld)",
					       (long long)o->chunks[i], i, x->display, (long long)sh->dim[i]);
			x->chunk[i] = o->chunks[i];
		}
		return 0;
	}
	/* auto: whole rows, then halve the largest axis while over 1 MiB */
	int64_t bytes = dtype_size(x->dtype);
	for (int i = 0; i < sh->ndim; i++) {
		x->chunk[i] = sh->dim[i] > 0 ? sh->dim[i] : 1;
		bytes *= x->chunk[i];
	}
	while (bytes > ((int64_t)1 << 20)) {
		int big = 0;
		for (int i = 1; i < sh->ndim; i++)
			if (x->chunk[i] > x->chunk[big])
				big = i;
		if (x->chunk[big] == 1)
			break;
		bytes = bytes / x->chunk[big] * ((x->chunk[big] + 1) / 2);
		x->chunk[big] = (x->chunk[big] + 1) / 2;
	}
	return 0;
}

static const char *const option_names[OPT_COUNT] = {
	"dtype", "casting", "initial", "keepdims", "overwrite", "chunks", "compression", "axis"
};

/* Outputs of S that print: scratch datasets read back after the step. */
static int printed_outputs(struct planner *pl, struct plan_step *s, struct err *e)
{
	const char *w = where(pl, s, s->src->mark);
	if (shape_size(&s->shape) > PLAN_PRINT_LIMIT)
		return err_set(e, EXIT_USAGE, w,
			       "the result has %lld elements, too many to print (at most %d): write it with out: or -o",
			       (long long)shape_size(&s->shape), PLAN_PRINT_LIMIT);
	struct plan_file *f = scratch_file(pl, true);
	if (!f)
		return err_set(e, EXIT_USAGE, w, "too many files (at most %d)", PLAN_MAXFILES);
	for (int k = 0; k < s->nout; k++) {
		char path[64];
		snprintf(path, sizeof path, "/t%d", pl->p->narrays);
		s->out[k] = new_output(pl, s, k, f, path, "(result)", e);
		if (!s->out[k])
			return -1;
	}
	s->print = true;
	return 0;
}

static int plan_step(struct planner *pl, int index, struct err *e)
{
	const struct recipe_step *rs = &pl->r->steps[index];
	struct plan_step *s = &pl->p->steps[index];
	s->index = index + 1;
	s->src = rs;
	s->verb = rs->verb;
	s->merged_into = -1;
	if (pl->o->command)
		snprintf(s->where, sizeof s->where, "%s %s", pl->o->command, rs->fn);
	else
		snprintf(s->where, sizeof s->where, "step %d (%s %s)", s->index,
			 verb_name(rs->verb), rs->verb == VERB_EXPR ? "expression" : rs->fn);
	if (pl->o->command && rs->verb == VERB_EXPR)
		snprintf(s->where, sizeof s->where, "%s", pl->o->command);
	s->uf = rs->verb == VERB_EXPR ? NULL : ufunc_lookup(rs->fn);
	if (!s->uf && rs->verb != VERB_EXPR)
		return err_set(e, EXIT_USAGE, where(pl, s, rs->fn_mark), "unknown ufunc '%s'", rs->fn);
	struct step_opts o;
	merge_opts(&pl->r->defaults, &rs->opts, &o);
	bool reduction = rs->verb == VERB_REDUCE || rs->verb == VERB_ACCUMULATE;
	/* Options for other verbs are errors on the step itself; under
	 * defaults they are meant for other steps. */
	unsigned wrong = 0;
	if (rs->verb != VERB_REDUCE)
		wrong |= (1u << OPT_INITIAL) | (1u << OPT_KEEPDIMS);
	if (!reduction)
		wrong |= 1u << OPT_AXIS;
	for (int i = 0; i < OPT_COUNT; i++) {
		if (rs->opts.given & wrong & (1u << i))
			return err_set(e, EXIT_USAGE, where(pl, s, rs->opts.mark[i]),
				       "'%s' does not apply to %s steps", option_names[i], verb_name(rs->verb));
		if (wrong & (1u << i))
			o.given &= ~(1u << i);
	}
	s->casting = o.given & (1u << OPT_CASTING) ? o.casting : CAST_SAME_KIND;
	bool overwrite = pl->o->overwrite || ((o.given & (1u << OPT_OVERWRITE)) && o.overwrite);

	int rc = reduction ? plan_reduction(pl, s, &o, e)
	       : rs->verb == VERB_EXPR ? plan_expression(pl, s, &o, e)
	       : plan_elementwise(pl, s, &o, e);
	if (rc < 0)
		return -1;
	if (rs->nout && rs->nout != s->nout)
		return err_set(e, EXIT_USAGE, where(pl, s, rs->out_mark[0]),
			       "ufunc '%s' gives %d output%s, got %d", s->uf->name, s->nout,
			       s->nout == 1 ? "" : "s", rs->nout);
	if (!rs->nout && printed_outputs(pl, s, e) < 0)
		return -1;
	for (int k = 0; k < rs->nout; k++) {
		if (plan_output(pl, s, k, overwrite, e) < 0)
			return -1;
		for (int j = 0; j < k; j++)
			if (s->out[j] == s->out[k])
				return err_set(e, EXIT_USAGE, step_where(pl, s, k),
					       "both outputs go to '%s'", rs->out[k]);
		for (int j = 0; j < s->nin; j++) {
			const struct array *x = s->in[j], *y = s->out[k];
			if (x != y && x->kind == ARR_DATASET && x->file == y->file &&
			    !strcmp(x->path, y->path) && may_overlap(x, y))
				return err_set(e, EXIT_USAGE, step_where(pl, s, k),
					       "'%s' overlaps '%s', which the step reads: write to another dataset",
					       y->display, x->display);
		}
	}
	for (int k = 0; k < s->nout; k++)
		if (s->out[k]->create && !s->out[k]->file->scratch &&
		    plan_layout(pl, s, k, &o, e) < 0)
			return -1;
	const char *w = where(pl, s, rs->mark);
	rc = rs->verb == VERB_REDUCE ? reduce_layout(s, pl->o->nranks, (int64_t)pl->o->memory, w, e)
	       : rs->verb == VERB_ACCUMULATE ? scan_layout(s, pl->o->nranks, (int64_t)pl->o->memory, w, e)
	       : size_elementwise(pl, s, w, e);
	if (rc < 0)
		return -1;
	for (int k = 0; k < rs->nout; k++) {
		struct operand op;
		operand_parse(rs->out[k], pl->p->arena, &op, "", e);
		if (op.kind == OPERAND_NAME && s->out[k]->file->scratch &&
		    bind(pl, op.name, s->out[k], step_where(pl, s, k), e) < 0)
			return -1;
	}
	/* Errors while running name the step where the recipe has it. */
	if (!pl->o->command && rs->mark.line > 0) {
		char step[sizeof s->where];
		memcpy(step, s->where, sizeof step);
		int n = snprintf(s->where, sizeof s->where, "%s:%d:%d: ", pl->r->path, rs->mark.line,
				 rs->mark.col);
		if (n > 0 && (size_t)n < sizeof s->where)
			snprintf(s->where + n, sizeof s->where - (size_t)n, "%s", step);
	}
	return 0;
}

/* ---- fusion ---------------------------------------------------------- */

static bool fusable(const struct plan_step *s)
{
	return (s->verb == VERB_UFUNC || s->verb == VERB_EXPR) && !s->print;
}

static bool same_dataset(const struct array *a, const struct array *b)
{
	return a->kind == ARR_DATASET && b->kind == ARR_DATASET && a->file == b->file &&
	       !strcmp(a->path, b->path);
}

/* Fold step B into step A (the head of a run of elementwise steps of one
 * shape): B's ops join A's program, B's inputs that A computes are taken
 * from A's ops instead of being read back, and B's outputs join A's.
 * Refused when it would change what any step reads, or not fit --memory. */
static bool fuse_into(struct planner *pl, struct plan_step *a, struct plan_step *b)
{
	if (!fusable(b) || !shape_equal(&a->shape, &b->shape) || a->nout + b->nout > PLAN_MAXOUT)
		return false;
	int from[RECIPE_MAXIN];            /* B's input k: an OP_REF of A, or A's leaf */
	struct array *leaves[RECIPE_MAXIN];
	struct shape bshapes[RECIPE_MAXIN];
	int nleaf = a->nin;
	memcpy(leaves, a->in, sizeof leaves);
	memcpy(bshapes, a->bshape, sizeof bshapes);
	for (int k = 0; k < b->nin; k++) {
		struct array *x = b->in[k];
		from[k] = -1;
		if (x->kind == ARR_LITERAL) {
			from[k] = OP_LITERAL;
			continue;
		}
		for (int j = 0; j < a->nout; j++) {
			if (a->out[j] == x) {
				if (x->dtype != a->out_dtype[j])
					return false;   /* B reads the cast values back */
				from[k] = a->out_src[j];
			} else if (same_dataset(a->out[j], x)) {
				return false;           /* another view of what A writes */
			}
		}
		if (from[k] >= 0)
			continue;
		int l = 0;
		while (l < nleaf && leaves[l] != x)
			l++;
		if (l == nleaf) {
			if (nleaf == RECIPE_MAXIN)
				return false;
			leaves[nleaf] = x;
			bshapes[nleaf++] = b->bshape[k];
		}
		from[k] = -1 - l;
	}
	for (int k = 0; k < b->nout; k++)
		for (int l = 0; l < nleaf; l++)
			if (leaves[l] != b->out[k] && same_dataset(leaves[l], b->out[k]))
				return false;
	for (int k = 0; k < b->nout; k++)
		for (int j = 0; j < a->nout; j++)
			if (same_dataset(a->out[j], b->out[k]))
				return false;
	struct plan_step saved = *a;
	struct plan_op *ops = arena_alloc(pl->p->arena, sizeof *ops * (size_t)(a->nops + b->nops));
	memcpy(ops, a->ops, sizeof *ops * (size_t)a->nops);
	for (int j = 0; j < b->nops; j++) {
		struct plan_op *op = &ops[a->nops + j];
		*op = b->ops[j];
		for (int k = 0; k < op->nin; k++) {
			int src = op->src[k];
			if (src == OP_LITERAL)
				continue;
			op->src[k] = src >= 0 ? OP_REF(OP_OF(src) + a->nops, OP_OUTPUT(src)) : from[-1 - src];
		}
	}
	for (int k = 0; k < b->nout; k++) {
		int src = b->out_src[k];
		a->out[a->nout] = b->out[k];
		a->out_dtype[a->nout] = b->out_dtype[k];
		a->out_src[a->nout++] = OP_REF(OP_OF(src) + a->nops, OP_OUTPUT(src));
	}
	a->ops = ops;
	a->nops += b->nops;
	a->nin = nleaf;
	memcpy(a->in, leaves, sizeof leaves);
	memcpy(a->bshape, bshapes, sizeof bshapes);
	struct err trial = {0};
	if (size_elementwise(pl, a, "", &trial) < 0) {
		*a = saved;
		return false;
	}
	b->merged_into = (int)(a - pl->p->steps);
	return true;
}

/* Intermediates that no step reads any more (fusion computes them in the
 * block) are not written at all. */
static void drop_unused(struct plan *p)
{
	for (int i = 0; i < p->nsteps; i++) {
		struct plan_step *h = &p->steps[i];
		if (h->merged_into >= 0 || !fusable(h))
			continue;
		for (int k = 0; k < h->nout; k++) {
			struct array *y = h->out[k];
			if (!y->file->scratch)
				continue;
			bool used = false;
			for (int t = 0; t < p->nsteps && !used; t++)
				for (int j = 0; j < p->steps[t].nin && p->steps[t].merged_into < 0; j++)
					used = used || p->steps[t].in[j] == y;
			if (used)
				continue;
			y->unused = true;
			h->nout--;
			memmove(&h->out[k], &h->out[k + 1], sizeof h->out[0] * (size_t)(h->nout - k));
			memmove(&h->out_dtype[k], &h->out_dtype[k + 1], sizeof h->out_dtype[0] * (size_t)(h->nout - k));
			memmove(&h->out_src[k], &h->out_src[k + 1], sizeof h->out_src[0] * (size_t)(h->nout - k));
			k--;
		}
	}
}

/* An elementwise step reads each array once, however many ops use it. */
static void dedupe_inputs(struct plan_step *s)
{
	for (int k = s->nin - 1; k > 0; k--) {
		int j = 0;
		while (j < k && !(s->in[j] == s->in[k] && shape_equal(&s->bshape[j], &s->bshape[k])))
			j++;
		if (j == k)
			continue;
		for (int o = 0; o <= s->nops; o++)
			for (int i = 0; i < (o < s->nops ? s->ops[o].nin : s->nred); i++) {
				int *src = o < s->nops ? &s->ops[o].src[i] : &s->red_src[i];
				if (*src == -1 - k)
					*src = -1 - j;
				else if (*src < -1 - k && *src != OP_LITERAL)
					(*src)++;   /* inputs after k move down one place */
			}
		s->nin--;
		memmove(&s->in[k], &s->in[k + 1], sizeof s->in[0] * (size_t)(s->nin - k));
		memmove(&s->bshape[k], &s->bshape[k + 1], sizeof s->bshape[0] * (size_t)(s->nin - k));
	}
}

/* Fold reduction R into elementwise step A when R reduces, row by row in
 * A's own distribution, something A computes or reads by rows. */
static bool fuse_reduction(struct planner *pl, struct plan_step *a, struct plan_step *r)
{
	if (r->verb != VERB_REDUCE || r->print || a->nred == PLAN_MAXOUT ||
	    !(r->mode == REDUCE_ROWS || (r->mode == REDUCE_TREE && r->chunk_rows == 1)))
		return false;
	struct array *x = r->in[0];
	if (!shape_equal(&x->shape, &a->shape))
		return false;
	int src = OP_LITERAL;
	for (int j = 0; j < a->nout; j++)
		if (a->out[j] == x && x->dtype == a->out_dtype[j])
			src = a->out_src[j];
	for (int k = 0; k < a->nin && src == OP_LITERAL; k++)
		if (a->in[k] == x && !read_whole(a, k))
			src = -1 - k;
	if (src == OP_LITERAL)
		return false;
	for (int k = 0; k < a->nin; k++)
		if (same_dataset(a->in[k], r->out[0]))
			return false;
	for (int j = 0; j < a->nout; j++)
		if (same_dataset(a->out[j], r->out[0]))
			return false;
	a->red[a->nred] = r;
	a->red_src[a->nred++] = src;
	struct err trial = {0};
	if (size_elementwise(pl, a, "", &trial) < 0) {
		a->nred--;
		return false;
	}
	r->merged_into = (int)(a - pl->p->steps);
	return true;
}

/* Can reduction R be fed row block by row block from another step's pass? */
static bool row_reduction(const struct plan_step *r)
{
	return r->verb == VERB_REDUCE && r->merged_into < 0 && r->in[0]->kind == ARR_DATASET &&
	       (r->mode == REDUCE_ROWS || (r->mode == REDUCE_TREE && r->chunk_rows == 1));
}

/* Consecutive reductions of one array share one pass over it: a host step
 * with no ops of its own reads the array block by block and feeds every
 * reducer.  The first reduction's step runs the host; the others are
 * fused into it. */
static void group_reductions(struct planner *pl)
{
	struct plan *p = pl->p;
	for (int i = 0; i < p->nsteps; i++) {
		struct plan_step *r = &p->steps[i];
		if (!row_reduction(r) || same_dataset(r->out[0], r->in[0]))
			continue;
		struct array *x = r->in[0];
		struct plan_step *h = arena_alloc(p->arena, sizeof *h);
		memset(h, 0, sizeof *h);
		h->index = r->index;
		h->src = r->src;
		memcpy(h->where, r->where, sizeof h->where);
		h->verb = VERB_UFUNC;
		h->nin = 1;
		h->in[0] = x;
		h->bshape[0] = x->shape;
		h->shape = x->shape;
		h->merged_into = -1;
		h->red[0] = r;
		h->red_src[0] = -1;
		h->nred = 1;
		int j = i + 1;
		while (j < p->nsteps && h->nred < PLAN_MAXOUT && row_reduction(&p->steps[j]) &&
		       p->steps[j].in[0] == x && !same_dataset(p->steps[j].out[0], x)) {
			h->red[h->nred] = &p->steps[j];
			h->red_src[h->nred++] = -1;
			j++;
		}
		struct err trial = {0};
		if (h->nred < 2 || size_elementwise(pl, h, "", &trial) < 0)
			continue;
		r->host = h;
		for (int k = 1; k < h->nred; k++)
			h->red[k]->merged_into = i;
		i = j - 1;
	}
}

static void fuse_steps(struct planner *pl)
{
	struct plan *p = pl->p;
	for (int i = 0; i < p->nsteps;) {
		int j = i + 1;
		if (fusable(&p->steps[i]))
			while (j < p->nsteps && (fuse_into(pl, &p->steps[i], &p->steps[j]) ||
						 fuse_reduction(pl, &p->steps[i], &p->steps[j])))
				j++;
		i = j;
	}
	drop_unused(p);
	for (int i = 0; i < p->nsteps; i++)
		if (p->steps[i].merged_into < 0 && p->steps[i].nops > 0)
			dedupe_inputs(&p->steps[i]);
	group_reductions(pl);
}

/* Bytes of the datasets in F. */
static int64_t file_bytes(const struct plan *p, const struct plan_file *f)
{
	int64_t n = 0;
	for (int i = 0; i < p->narrays; i++)
		if (p->arrays[i]->kind == ARR_DATASET && p->arrays[i]->file == f)
			n += shape_size(&p->arrays[i]->shape) * dtype_size(p->arrays[i]->dtype);
	return n;
}

/* Where scratch files and temporary names go, once outputs are known.
 * Printed results stay in memory (each rank's copy holds what it wrote;
 * exec.c gathers them); so do named intermediates of one process while
 * they take at most a quarter of the budget.  Larger ones spill to a file
 * beside the first output; with no output, in $TMPDIR (else /tmp) for one
 * process, in the working directory for many ranks (which must all see
 * it).  Names on disk carry the run's token (tmpfiles.h). */
static void place_files(struct planner *pl)
{
	struct plan *p = pl->p;
	const char *dir = NULL;
	for (int i = 0; i < p->nfiles && !dir; i++)
		if (p->files[i]->write && !p->files[i]->scratch)
			dir = p->files[i]->canon;
	char *scratch_dir;
	if (dir) {
		char *copy = arena_strdup(p->arena, dir);
		scratch_dir = arena_strdup(p->arena, dirname(copy));
	} else {
		const char *t = getenv("TMPDIR");
		scratch_dir = arena_strdup(p->arena, pl->o->nranks > 1 ? "." : t && *t ? t : "/tmp");
	}
	for (int i = 0; i < p->nfiles; i++) {
		struct plan_file *f = p->files[i];
		if (f->scratch) {
			f->memory = f->printed || (pl->o->nranks == 1 &&
						   file_bytes(p, f) <= (int64_t)(pl->o->memory / 4));
			if (!f->memory)
				f->tmp_dir = scratch_dir;
		} else if (!f->exists) {
			char *c1 = arena_strdup(p->arena, f->canon), *c2 = arena_strdup(p->arena, f->canon);
			f->tmp_dir = dirname(c1);
			f->tmp_base = basename(c2);
		}
		char buf[2 * PATH_MAX];   /* a canonical path is shorter than PATH_MAX */
		if (f->tmp_dir && tmpfiles_name(buf, sizeof buf, f->tmp_dir, f->tmp_base, pl->o->token) == 0)
			f->open_path = arena_strdup(p->arena, buf);
	}
}

int plan_build(const struct recipe *r, const struct plan_options *o,
	       struct arena *a, struct plan *p, struct err *e)
{
	memset(p, 0, sizeof *p);
	p->arena = a;
	p->command = o->command;
	struct planner *pl = calloc(1, sizeof *pl);
	if (!pl)
		abort();
	pl->p = p;
	pl->r = r;
	pl->o = o;
	int rc = -1;
	for (int i = 0; i < r->ninputs; i++) {
		const struct recipe_input *in = &r->inputs[i];
		const char *w = where(pl, NULL, in->ref_mark);
		struct operand op;
		if (operand_parse(in->ref, a, &op, w, e) < 0)
			goto out;
		if (op.kind == OPERAND_NAME) {
			err_set(e, EXIT_USAGE, w, "input '%s' must be a FILE:/PATH dataset or a number, not a name",
				in->name);
			goto out;
		}
		struct array *x = operand_array(pl, in->ref, w, e);
		if (!x || bind(pl, in->name, x, w, e) < 0)
			goto out;
	}
	p->nsteps = r->nsteps;
	p->steps = arena_alloc(a, sizeof *p->steps * (size_t)(r->nsteps ? r->nsteps : 1));
	for (int i = 0; i < r->nsteps; i++)
		if (plan_step(pl, i, e) < 0)
			goto out;
	fuse_steps(pl);
	place_files(pl);
	rc = 0;
out:
	for (int i = 0; i < p->nfiles; i++) {
		h5io_close(p->files[i]->id);
		p->files[i]->id = -1;
	}
	free(pl);
	return rc;
}

static void print_array_line(FILE *f, const char *role, const struct array *x)
{
	char buf[800];
	if (!x) {
		fprintf(f, "  %s (printed)\n", role);
		return;
	}
	const char *how = "";
	if (x->kind == ARR_LITERAL)
		how = ", literal";
	else if (x->file->scratch)
		how = ", named intermediate";
	else if (x->in_place)
		how = ", written in place";
	else if (x->create && !x->file->exists)
		how = ", new file";
	else if (x->replace)
		how = ", replaced";
	else if (x->create)
		how = ", new dataset";
	fprintf(f, "  %s %s %s %s%s\n", role, x->display, dtype_name(x->dtype),
		shape_format(&x->shape, buf, sizeof buf), how);
}

void plan_print(const struct plan *p, FILE *f)
{
	for (int i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->steps[i];
		if (s->merged_into >= 0) {
			fprintf(f, "step %d: %s %s, fused into step %d\n", s->index, verb_name(s->verb),
				s->verb == VERB_EXPR ? "expression" : s->uf->name, s->merged_into + 1);
			continue;
		}
		char sig[64] = "";
		size_t n = 0;
		for (int k = 0; k < s->uf->nin + s->uf->nout; k++) {
			if (k == s->uf->nin)
				n += (size_t)snprintf(sig + n, sizeof sig - n, "->");
			n += (size_t)snprintf(sig + n, sizeof sig - n, "%c",
					      dtype_table[s->loop->types[k]].typechar);
		}
		fprintf(f, "step %d: %s %s, loop %s, casting %s, %lld rows per block\n", s->index,
			verb_name(s->verb), s->uf->name, sig, casting_name(s->casting),
			(long long)s->rows_per_block);
		for (int k = 0; k < s->nin; k++)
			print_array_line(f, "in ", s->in[k]);
		for (int k = 0; k < s->nout; k++)
			print_array_line(f, "out", s->out[k]);
	}
}
