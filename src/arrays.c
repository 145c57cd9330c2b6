/* arrays.c - what an operand of a step stands for: the plan's array
 * table, the names bound by inputs: and by out:, datasets (whole or a
 * selection, select.h) and literals.
 *
 * One dataset is one array however often it is named, and one selection of
 * it one more, so that later stages compare arrays by pointer.  Part of the
 * planner (planner.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cf.h"
#include "comm.h"
#include "h5io.h"
#include "planner.h"
#include "select.h"

struct array *array_new(struct planner *pl, enum array_kind kind, const char *display)
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

/* The bucket of a plan's datasets that dataset PATH of F falls in (FNV-1a
 * of the path, mixed with the file's place in memory). */
static unsigned dataset_bucket(const struct plan_file *f, const char *path)
{
	uint64_t h = 14695981039346656037u ^ (uint64_t)(uintptr_t)f;
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		h = (h ^ *c) * 1099511628211u;
	return (unsigned)((h ^ h >> 32) & (PLAN_DATASET_BUCKETS - 1));
}

struct plan_dataset_walk plan_dataset_walk(const struct plan *p, const struct plan_file *f,
					   const char *path)
{
	return (struct plan_dataset_walk){
		.p = p, .f = f, .path = path, .at = p->dataset_bucket[dataset_bucket(f, path)]
	};
}

struct array *plan_dataset_next(struct plan_dataset_walk *w)
{
	while (w->at > 0) {
		const struct plan_named *n = &w->p->named[w->at - 1];
		w->at = n->next;
		struct array *y = n->array;
		if (y->kind == ARR_DATASET && y->file == w->f && !strcmp(y->path, w->path))
			return y;
	}
	return NULL;
}

struct array *array_find(struct planner *pl, const struct plan_file *f, const char *path)
{
	struct plan_dataset_walk w = plan_dataset_walk(pl->p, f, path);
	for (struct array *x; (x = plan_dataset_next(&w));)
		if (!x->selected && !x->base && !x->raw)
			return x;
	return NULL;
}

void array_named(struct planner *pl, struct array *x)
{
	/* two arrays of a dataset are both marked when the second comes,
	 * so one earlier array marked is all of them */
	struct plan_dataset_walk w = plan_dataset_walk(pl->p, x->file, x->path);
	for (struct array *y; (y = plan_dataset_next(&w));)
		if (y != x) {
			x->named_twice = y->named_twice = true;
			break;
		}
	struct plan *p = pl->p;
	int *bucket = &p->dataset_bucket[dataset_bucket(x->file, x->path)];
	if (p->nnamed == PLAN_MAXARRAYS)   /* never: an array is named once */
		return;
	p->named[p->nnamed] = (struct plan_named){ .array = x, .next = *bucket };
	*bucket = ++p->nnamed;
}

struct array *array_bound(struct planner *pl, const char *name)
{
	for (int i = pl->nbind - 1; i >= 0; i--)
		if (!strcmp(pl->bind[i].name, name))
			return pl->bind[i].array;
	return NULL;
}

int array_bind(struct planner *pl, const char *name, struct array *x, const struct site *w, struct err *e)
{
	if (pl->nbind == PLAN_MAXARRAYS)
		return err_at(e, EXIT_USAGE, w, "too many names (at most %d)", PLAN_MAXARRAYS);
	pl->bind[pl->nbind].name = name;
	pl->bind[pl->nbind].array = x;
	pl->nbind++;
	return 0;
}

/* X's mask plane as X is read (its selection, its axes moved): the
 * plane of the dataset X reads, twinned for a view of it; NULL when that
 * dataset has none, or on error (E set). */
static struct array *plane_of(struct planner *pl, struct array *x, const struct site *w,
			      struct err *e)
{
	if (x->plane || x->kind != ARR_DATASET || x->raw)
		return x->plane;
	struct array *root = x->base ? plane_of(pl, (struct array *)x->base, w, e)
			     : x->selected ? array_find(pl, x->file, x->path) : NULL;
	if (!root || (!x->base && !root->plane))
		return NULL;
	struct array *m = array_new(pl, ARR_DATASET, "(mask)");
	if (!m) {
		err_at(e, EXIT_USAGE, w, "too many arrays (at most %d)", PLAN_MAXARRAYS);
		return NULL;
	}
	const struct array *of = x->base ? root : root->plane;
	*m = *x;   /* the same view, of the plane's dataset */
	m->display = of->display;
	m->file = of->file;
	m->path = of->path;
	m->base = x->base ? root : NULL;
	m->dtype = DT_BOOL;
	m->create = m->has_fill = m->in_place = m->replace = m->units_set = m->desc_set = false;
	m->nstored = 0;
	m->stored_filtered = m->stored_gaps = m->stored_raw = m->stored_compact = m->stored_btree = false;
	m->missing = NULL;
	m->coding = NULL;
	m->decoded = m;
	m->named_twice = false;
	array_named(pl, m);
	return x->plane = m;
}

const struct cf_missing *array_missing(struct planner *pl, struct array *x, const struct site *w,
					 struct err *e)
{
	if (x->missing)
		return x->missing;
	if (!plane_of(pl, x, w, e) && e->status)
		return NULL;
	if (x->base)   /* read with its axes moved: its dataset's */
		return x->missing = array_missing(pl, (struct array *)x->base, w, e);
	struct cf_missing *m = arena_alloc(pl->p->arena, sizeof *m);
	memset(m, 0, sizeof *m);
	if (x->create || x->file->id < 0) {
		/* its fill, inherited by the steps that read it (plan_fill); what
		 * is missing its plane says, and a bool (as cf_missing_read) has
		 * no value to spare for it */
		m->fill_value = x->has_fill;
		m->nvalues = x->has_fill && !x->plane && x->dtype != DT_BOOL;
		memcpy(m->value[0], x->fill, sizeof m->value[0]);
	} else if (cf_missing_read(x->file->id, x->path, x->dtype, x->cf_present, m, w->text, x->display,
				   e) < 0) {
		err_place(e, &w->loc);
		return NULL;
	}
	x->missing = m;
	return m;
}

struct array *array_decoded(struct planner *pl, struct array *x, const struct site *w, struct err *e)
{
	if (x->kind != ARR_DATASET || x->coding || x->base || x->raw)
		return x;   /* a literal, decoded already, or made of a decoded array */
	if (x->decoded)
		return x->decoded;
	const struct cf_coding *c = NULL;
	if (!x->create && x->file->id >= 0 &&
	    cf_coding_read(x->file->id, x->path, x->dtype, x->cf_present, pl->p->arena, &c, w->text,
			   x->display, e) < 0) {
		err_place(e, &w->loc);
		return NULL;
	}
	x->decoded = x;
	if (!cf_coding_transforms(c)) {   /* its values are its stored numbers */
		if (c && !x->missing)
			x->missing = &c->missing;
		return x;
	}
	struct array *y = array_new(pl, ARR_DATASET, x->display);
	if (!y) {
		err_at(e, EXIT_USAGE, w, "too many arrays (at most %d)", PLAN_MAXARRAYS);
		return NULL;
	}
	*y = *x;
	struct cf_coding *own = arena_alloc(pl->p->arena, sizeof *own);
	struct cf_missing *m = arena_alloc(pl->p->arena, sizeof *m);
	*own = *c;
	cf_coding_missing(own, m);
	y->coding = own;
	y->dtype = own->dtype;
	/* unpacked values are computed, in the machine's order; values only
	 * reinterpreted (_Unsigned) keep the stored order, as netCDF4's do */
	y->swapped = x->swapped && !own->has_scale && !own->has_offset;
	y->missing = m;
	y->decoded = y;
	y->raw = x;
	x->decoded = y;
	array_named(pl, y);
	return y;
}

/* What X's dataset D, just opened, says of how it is stored, of its axes'
 * names and of what it is (units, CF attributes); from A. */
static void dataset_learn(struct array *x, hid_t d, struct arena *a)
{
	x->nstored = h5io_dataset_chunks(d, x->stored_chunk);
	x->stored_filtered = h5io_dataset_filtered(d);
	x->stored_gaps = h5io_dataset_written(d) == H5IO_WRITTEN_SOME;
	x->stored_raw = comm_mpi() && h5io_dataset_masks(d) == H5IO_MASKS_SOME;
	x->stored_compact = h5io_dataset_compact(d);
	x->stored_btree = x->nstored > 0 && h5io_dataset_btree(d);
	x->swapped = h5io_dataset_swapped(d);
	x->dims = dims_read(d, x->file->name, &x->file->paths, &x->shape, a);
	x->units = cf_units_read(d, a);
	x->cf_present = cf_attrs_present(d);
	x->desc = cfdesc_read(d, a);
}

/* The dataset FILE:/PATH[SELECTION] as an operand that is read (or written
 * in place, for a selection). */
struct array *array_dataset(struct planner *pl, const struct operand *op,
				     const char *text, const struct site *w, struct err *e)
{
	struct plan_file *f = file_for_read(pl, op->file, w, e);
	if (!f)
		return NULL;
	struct array *x = array_find(pl, f, op->path);
	if (!x) {
		if (f->id < 0) {   /* a file the run creates: only its created datasets exist */
			err_at(e, EXIT_USAGE, w, "'%s' has no dataset '%s'", op->file, op->path);
			return NULL;
		}
		switch (h5io_probe(f->id, op->path, NULL)) {
		case H5IO_DATASET:
			break;
		case H5IO_GROUP:
			err_at(e, EXIT_USAGE, w, "'%s' is a group, not a dataset", text);
			return NULL;
		case H5IO_OTHER:
			err_at(e, EXIT_USAGE, w, "'%s' is not a dataset", text);
			return NULL;
		default:
			err_at(e, EXIT_USAGE, w, "'%s' has no dataset '%s'", op->file, op->path);
			return NULL;
		}
		char display[4096];
		snprintf(display, sizeof display, "%s:%s", op->file, op->path);
		x = array_new(pl, ARR_DATASET, op->selected ? display : text);
		if (!x) {
			err_at(e, EXIT_USAGE, w, "too many arrays (at most %d)", PLAN_MAXARRAYS);
			return NULL;
		}
		x->file = f;
		x->path = arena_strdup(pl->p->arena, op->path);
		array_named(pl, x);
		hid_t d = h5io_dataset_open(f->id, op->path, &x->shape, &x->dtype, w->text, text, e);
		if (d < 0) {
			err_place(e, &w->loc);
			return NULL;
		}
		dataset_learn(x, d, pl->p->arena);
		h5io_dataset_close(d);
	}
	if (!op->selected)
		return x;
	struct array_view v;
	struct shape vshape;
	if (select_view(op, &x->shape, &v, &vshape, text, w->text, e) < 0) {
		err_place(e, &w->loc);
		return NULL;
	}
	struct plan_dataset_walk named = plan_dataset_walk(pl->p, f, op->path);
	for (struct array *y; (y = plan_dataset_next(&named));)
		if (y->selected && !y->raw && select_same_view(&y->view, &v))
			return y;
	struct array *y = array_new(pl, ARR_DATASET, text);
	if (!y) {
		err_at(e, EXIT_USAGE, w, "too many arrays (at most %d)", PLAN_MAXARRAYS);
		return NULL;
	}
	y->file = f;
	y->path = x->path;
	y->dtype = x->dtype;
	y->swapped = x->swapped;
	y->shape = vshape;
	y->selected = true;
	y->view = v;
	y->units = x->units;
	y->cf_present = x->cf_present;
	y->desc = x->desc;
	y->dims = dims_select(x->dims, v.dropped, v.start, v.step, v.inserted, pl->p->arena);
	array_named(pl, y);
	return y;
}

/* X read with the axes of the union U (length SHAPE): axis i is X's axis
 * FROM[i], or one of length one. */
static struct array *axes_view(struct planner *pl, struct array *x, const struct dims *u,
			       const struct shape *shape, const int *from)
{
	/* a view of X names X's dataset (array_named) */
	struct plan_dataset_walk views = plan_dataset_walk(pl->p, x->file, x->path);
	for (struct array *y; (y = plan_dataset_next(&views));)
		if (y->base == x && y->shape.ndim == u->ndim &&
		    !memcmp(y->from_axis, from, sizeof *from * (size_t)u->ndim))
			return y;
	struct array *y = array_new(pl, ARR_DATASET, x->display);
	if (!y)
		return NULL;
	y->file = x->file;
	y->path = x->path;
	y->dtype = x->dtype;
	y->swapped = x->swapped;
	y->base = x;
	array_named(pl, y);
	y->units = x->units;
	y->desc = x->desc;
	y->dims = (struct dims *)u;
	y->shape.ndim = u->ndim;
	for (int i = 0; i < u->ndim; i++) {
		y->from_axis[i] = from[i];
		y->shape.dim[i] = from[i] < 0 ? 1 : shape->dim[i];
	}
	return y;
}

int arrays_by_name(struct planner *pl, int n, struct array **in, bool by_position,
		   struct dims **dims, const struct site *w, struct err *e)
{
	*dims = NULL;
	int named = 0, arrays = 0;
	for (int k = 0; k < n; k++) {
		if (in[k]->kind == ARR_LITERAL)
			continue;
		arrays++;
		named += dims_named(in[k]->dims);
	}
	if (by_position || !named || named < arrays) {
		/* positional: the result keeps the names of an operand with all its axes */
		const struct shape *shapes[RECIPE_MAXIN];
		struct shape out;
		for (int k = 0; k < n; k++)
			shapes[k] = &in[k]->shape;
		if (by_position || shape_broadcast(n, shapes, &out) < 0)
			return 0;
		for (int k = 0; k < n && !*dims; k++)
			if (in[k]->dims && shape_equal(&in[k]->shape, &out))
				*dims = in[k]->dims;
		return 0;
	}
	const struct dims *d[RECIPE_MAXIN];
	const struct shape *shapes[RECIPE_MAXIN];
	for (int k = 0; k < n; k++) {
		d[k] = in[k]->kind == ARR_LITERAL ? NULL : in[k]->dims;
		shapes[k] = &in[k]->shape;
	}
	struct dims *u;
	struct shape shape;
	int a, b;
	const char *name;
	if (dims_union(n, d, shapes, pl->p->arena, &u, &shape, &a, &b, &name) < 0) {
		if (!name)
			return err_at(e, EXIT_USAGE, w, "the operands name more than %d dimensions", H5U_MAXDIM);
		return err_at(e, EXIT_USAGE, w, "dimension '%s' is %lld in %s and %lld in %s", name,
			      (long long)shapes[a]->dim[dims_axis(d[a], name)], in[a]->display,
			      (long long)shapes[b]->dim[dims_axis(d[b], name)], in[b]->display);
	}
	*dims = u;
	for (int k = 0; k < n; k++) {
		int from[H5U_MAXDIM];
		if (!d[k] || dims_map(u, d[k], from))
			continue;
		struct array *y = axes_view(pl, in[k], u, &shape, from);
		if (!y)
			return err_at(e, EXIT_USAGE, w, "too many arrays (at most %d)", PLAN_MAXARRAYS);
		in[k] = y;
	}
	return 0;
}

/* An operand that a step reads: a name, a dataset or a literal. */
struct array *array_operand(struct planner *pl, const char *text, const struct site *w,
				   struct err *e)
{
	struct operand op;
	if (operand_parse(text, pl->p->arena, &op, w->text, e) < 0) {
		err_place(e, &w->loc);
		return NULL;
	}
	if (op.kind == OPERAND_NAME) {
		struct array *x = array_bound(pl, op.name);
		if (!x)
			err_at(e, EXIT_USAGE, w, "unknown name '%s'", op.name);
		return x;
	}
	if (op.kind == OPERAND_DATASET)
		return array_dataset(pl, &op, text, w, e);
	struct array *x = array_new(pl, ARR_LITERAL, text);
	if (!x) {
		err_at(e, EXIT_USAGE, w, "too many arrays (at most %d)", PLAN_MAXARRAYS);
		return NULL;
	}
	x->lit = op.lit;
	x->lit.text = x->display;
	x->dtype = literal_default_dtype(&op.lit);
	x->shape.ndim = 0;
	return x;
}

/* The operand TEXT as a step reads it: through its dataset's CF coding when
 * DECODED (not missing: raw). */
struct array *array_read_operand(struct planner *pl, const char *text, bool decoded,
				 const struct site *w, struct err *e)
{
	struct array *x = array_operand(pl, text, w, e);
	return x && decoded ? array_decoded(pl, x, w, e) : x;
}
