/* gufunc.c - a generalized ufunc's step, planned: its core signature read
 * as NumPy reads it, the core axes that axes= or axis= name, the loop
 * axes broadcast (by name when every operand names its axes, else by
 * position), the loop by NumPy's type resolution, and NumPy's errors, all
 * before any write.  The run is contract.c's.  Part of the planner
 * (planner.h).
 *
 * Each core dimension of the signature has a role: in both operands and
 * not the result, the contraction's depth; in the first operand and the
 * result, its rows; in the second and the result, its columns.  So
 * matmul, vecdot, matvec and vecmat are one contraction with rows or
 * columns of 1 where an operand is a vector (contract.h).
 */
#include <stdio.h>
#include <string.h>

#include "contract.h"
#include "options.h"
#include "planner.h"
#include "resolve.h"

#define SIG_NAME 16

/* A core signature, "(n?,k),(k,m?)->(n?,m?)": three arguments (two
 * operands, the result), each with up to RECIPE_CORE named dimensions. */
struct signature {
	int ncore[3];
	char name[3][RECIPE_CORE][SIG_NAME];
	bool optional[3][RECIPE_CORE];
	enum core_role role[3][RECIPE_CORE];
	int distinct;                       /* distinct dimension names */
};

/* A step's arguments as the signature meets them: which core dimensions
 * each has (an optional one is missing from a vector), where its core
 * axes are, and its loop axes. */
struct gu_args {
	const struct ufunc *uf;
	struct signature sig;
	int ndim[3];
	bool present[3][RECIPE_CORE];
	int ncore[3];                       /* present core dimensions */
	int core_axis[3][RECIPE_CORE];      /* of each present one, in signature order */
	int64_t size[3];                    /* rows, depth, columns: by role, 1 when absent */
};

static int sig_parse_arg(const char **pp, int k, struct signature *sig)
{
	const char *p = *pp;
	if (*p++ != '(')
		return -1;
	for (int i = 0; *p != ')'; i++) {
		int n = 0;
		if (i == RECIPE_CORE)
			return -1;
		while (*p && *p != ',' && *p != ')' && *p != '?' && n < SIG_NAME - 1)
			sig->name[k][i][n++] = *p++;
		sig->name[k][i][n] = '\0';
		sig->optional[k][i] = *p == '?';
		p += *p == '?';
		sig->ncore[k] = i + 1;
		if (*p == ',')
			p++;
		else if (*p != ')')
			return -1;
	}
	*pp = p + 1;
	return 0;
}

/* How many arguments use dimension NAME, and whether the result does. */
static int sig_uses(const struct signature *sig, const char *name, int k)
{
	for (int i = 0; i < sig->ncore[k]; i++)
		if (!strcmp(sig->name[k][i], name))
			return 1;
	return 0;
}

/* Parse UF's signature and give each dimension its role. */
static void sig_read(const struct ufunc *uf, struct signature *sig)
{
	const char *p = uf->signature;
	memset(sig, 0, sizeof *sig);
	if (sig_parse_arg(&p, 0, sig) < 0 || *p++ != ',' || sig_parse_arg(&p, 1, sig) < 0 ||
	    strncmp(p, "->", 2) || (p += 2, sig_parse_arg(&p, 2, sig) < 0))
		return;   /* the catalogue's signatures are NumPy's: never here */
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < sig->ncore[k]; i++) {
			const char *n = sig->name[k][i];
			bool a = sig_uses(sig, n, 0), b = sig_uses(sig, n, 1), c = sig_uses(sig, n, 2);
			sig->role[k][i] = a && b && !c ? ROLE_DEPTH : a ? ROLE_ROW : ROLE_COL;
			bool seen = false;
			for (int j = 0; j < k && !seen; j++)
				seen = sig_uses(sig, n, j);
			for (int j = 0; j < i && !seen; j++)
				seen = !strcmp(sig->name[k][j], n);
			sig->distinct += !seen;
		}
}

/* The core dimensions each argument has: an optional one is missing from
 * an operand with fewer axes than the signature's, and from the result
 * when the operand it comes from lacks it.  NumPy's error for an operand
 * with too few axes. */
static int core_present(struct gu_args *g, const struct site *w, struct err *e)
{
	const struct signature *sig = &g->sig;
	for (int k = 0; k < 3; k++) {
		int required = 0;
		g->ncore[k] = 0;
		for (int i = 0; i < sig->ncore[k]; i++) {
			bool p = true;
			if (sig->optional[k][i] && k < 2)
				p = g->ndim[k] >= sig->ncore[k];
			for (int j = 0; j < 2 && k == 2 && sig->optional[k][i]; j++)
				for (int l = 0; l < sig->ncore[j]; l++)
					if (!strcmp(sig->name[j][l], sig->name[k][i]))
						p = p && g->present[j][l];
			g->present[k][i] = p;
			g->ncore[k] += p;
			required += !sig->optional[k][i];
		}
		if (k < 2 && g->ndim[k] < g->ncore[k])
			return err_at(e, EXIT_USAGE, w,
				      "%s: Input operand %d does not have enough dimensions (has %d, gufunc core "
				      "with signature %s requires %d)", g->uf->name, k, g->ndim[k],
				      g->uf->signature, required);
	}
	return 0;
}

/* ---- axes= and axis= ---- */

/* Entry K of axes= (LEN axes, or -1: one integer) against argument K's
 * core, normalised into G's core_axis[K]; NumPy's errors. */
static int axes_entry(struct gu_args *g, int k, int len, const int *axes, const struct site *w,
		      struct err *e)
{
	int ncore = g->ncore[k], ndim = g->ndim[k];
	if (len < 0 && ncore != 1)
		return err_at(e, EXIT_USAGE, w, "axes item %d should be a tuple", k);
	if (len >= 0 && len != ncore)
		return ncore == 1
		       ? err_at(e, EXIT_USAGE, w, "axes item %d should be a tuple with a single element, or an integer", k)
		       : err_at(e, EXIT_USAGE, w, "axes item %d should be a tuple with %d elements", k, ncore);
	for (int i = 0; i < ncore; i++) {
		int a = axes[i];
		if (a < -ndim || a >= ndim)
			return err_at(e, EXIT_USAGE, w, "axis %d is out of bounds for array of dimension %d", a,
				      ndim);
		a = a < 0 ? a + ndim : a;
		for (int j = 0; j < i; j++)
			if (g->core_axis[k][j] == a)
				return err_at(e, EXIT_USAGE, w, "axes item %d has value %d repeated", k, a);
		g->core_axis[k][i] = a;
	}
	return 0;
}

/* The core axes of every argument: the last ones, or where axes= (O)
 * puts them, or axis=.  The result's rank is LOOP + its core's. */
static int core_axes(struct gu_args *g, const struct step_opts *o, int loop, const struct site *w,
		     struct err *e)
{
	bool axes = option_given(o, OPT_AXES), axis = option_given(o, OPT_AXIS);
	g->ndim[2] = loop + g->ncore[2];
	if (axes && axis)
		return err_at(e, EXIT_USAGE, w, "cannot specify both 'axis' and 'axes'");
	if (axis && g->sig.distinct != 1)
		return err_at(e, EXIT_USAGE, w,
			      "%s: axis can only be used with a single shared core dimension, not with the %d "
			      "distinct ones implied by signature %s.", g->uf->name, g->sig.distinct,
			      g->uf->signature);
	int sig_out = g->sig.ncore[2];
	if (axes && o->naxes != 3 && !(o->naxes == 2 && sig_out == 0))
		return err_at(e, EXIT_USAGE, w,
			      "axes should be a list with an entry for all 3 inputs and outputs; entries for "
			      "outputs can only be omitted if none of them has core axes.");
	for (int k = 0; k < 3; k++) {
		int def[RECIPE_CORE], len = g->ncore[k];
		const int *list = def;
		for (int i = 0; i < len; i++)
			def[i] = i - len;
		if (axes && k < o->naxes) {
			len = o->axes_len[k];
			list = o->axes[k];
		} else if (axis && g->ncore[k] == 1) {
			def[0] = o->axis[0];
		}
		if (axes_entry(g, k, len, list, w, e) < 0)
			return -1;
	}
	return 0;
}

/* axis= as a generalized ufunc takes it: one integer, or the name of a
 * dimension that both operands have at the same position. */
static int axis_number(struct step_opts *o, struct array *const *in, const struct site *w, struct err *e)
{
	if (!option_given(o, OPT_AXIS))
		return 0;
	if (o->axis_all || o->naxis != 1)
		return err_at(e, EXIT_USAGE, w, "axis must be one integer for a generalized ufunc");
	if (!o->axis_name[0])
		return 0;
	int a = dims_axis(in[0]->dims, o->axis_name[0]), b = dims_axis(in[1]->dims, o->axis_name[0]);
	if (a < 0 || b < 0)
		return err_at(e, EXIT_USAGE, w, "'%s' has no dimension '%s'", in[a < 0 ? 0 : 1]->display,
			      o->axis_name[0]);
	if (a - in[0]->shape.ndim != b - in[1]->shape.ndim)
		return err_at(e, EXIT_USAGE, w,
			      "dimension '%s' is axis %d of '%s' and %d of '%s': give axes= instead",
			      o->axis_name[0], a, in[0]->display, b, in[1]->display);
	o->axis[0] = a - in[0]->shape.ndim;
	o->axis_name[0] = NULL;
	return 0;
}

/* ---- core sizes ---- */

/* The extent of each core dimension, by role (1 for a role no argument
 * has); NumPy's error when the operands disagree. */
static int core_sizes(struct gu_args *g, struct array *const *in, const struct site *w, struct err *e)
{
	const struct signature *sig = &g->sig;
	g->size[ROLE_ROW - 1] = g->size[ROLE_DEPTH - 1] = g->size[ROLE_COL - 1] = 1;
	bool known[3] = { false, false, false };
	for (int k = 0; k < 2; k++)
		for (int i = 0, c = 0; i < sig->ncore[k]; i++) {
			if (!g->present[k][i])
				continue;
			int r = sig->role[k][i] - 1;
			int64_t d = in[k]->shape.dim[g->core_axis[k][c++]];
			if (known[r] && d != g->size[r])
				return err_at(e, EXIT_USAGE, w,
					      "%s: Input operand %d has a mismatch in its core dimension %d, with "
					      "gufunc signature %s (size %lld is different from %lld)", g->uf->name, k,
					      i, g->uf->signature, (long long)d, (long long)g->size[r]);
			known[r] = true;
			g->size[r] = d;
		}
	return 0;
}

/* ---- the loop axes ---- */

/* NumPy's shape text of its iterator: leading newaxes (-1) left out, a
 * single entry with a comma. */
static void iterator_shape(char *buf, size_t len, int n, const int64_t *v)
{
	int i = 0, used = 0;
	while (i < n && v[i] < 0)
		i++;
	if (i == n) {
		snprintf(buf, len, "()");
		return;
	}
	used = snprintf(buf, len, "(%lld", (long long)v[i++]);
	for (; i < n && used < (int)len; i++)
		used += v[i] < 0 ? snprintf(buf + used, len - (size_t)used, ",newaxis")
				 : snprintf(buf + used, len - (size_t)used, ",%lld", (long long)v[i]);
	if (used < (int)len)
		snprintf(buf + used, len - (size_t)used, n == 1 ? ",)" : ")");
}

/* Is axis I of argument K one of its core axes? */
static bool is_core(const struct gu_args *g, int k, int i)
{
	for (int c = 0; c < g->ncore[k]; c++)
		if (g->core_axis[k][c] == i)
			return true;
	return false;
}

/* NumPy's message for loop axes that do not broadcast (LOOP of them). */
static int broadcast_error(const struct gu_args *g, struct array *const *in, int loop, const struct site *w,
			   struct err *e)
{
	char msg[1600] = "", orig[400], rem[400];
	int niter = loop + g->ncore[2];
	for (int k = 0; k < 2; k++) {
		int64_t v[2 * H5U_MAXDIM];
		int nl = g->ndim[k] - g->ncore[k], j = 0;
		for (int i = 0; i < loop - nl; i++)
			v[j++] = -1;
		for (int i = 0; i < g->ndim[k]; i++)
			if (!is_core(g, k, i))
				v[j++] = in[k]->shape.dim[i];
		while (j < niter)
			v[j++] = -1;
		iterator_shape(orig, sizeof orig, in[k]->shape.ndim, in[k]->shape.dim);
		iterator_shape(rem, sizeof rem, niter, v);
		size_t n = strlen(msg);
		snprintf(msg + n, sizeof msg - n, "%s->%s ", orig, rem);
	}
	int64_t req[RECIPE_CORE];
	for (int c = 0, i = 0; i < g->sig.ncore[2]; i++)
		if (g->present[2][i])
			req[c++] = g->size[g->sig.role[2][i] - 1];
	iterator_shape(rem, sizeof rem, g->ncore[2], req);
	return err_at(e, EXIT_USAGE, w, "operands could not be broadcast together with remapped shapes "
		      "[original->remapped]: %s and requested shape %s", msg, rem);
}

/* Loop axes by position, as NumPy broadcasts them: each operand's loop
 * axes aligned on the right of the loop shape C->loop. */
static int loop_by_position(struct gu_args *g, struct array *const *in, struct contract *c,
			    const struct site *w, struct err *e)
{
	c->nloop = 0;
	for (int k = 0; k < 2; k++)
		if (g->ndim[k] - g->ncore[k] > c->nloop)
			c->nloop = g->ndim[k] - g->ncore[k];
	for (int j = 0; j < c->nloop; j++)
		c->loop[j] = 1;
	for (int k = 0; k < 2; k++) {
		int j = c->nloop - (g->ndim[k] - g->ncore[k]);
		for (int i = 0; i < g->ndim[k]; i++) {
			if (is_core(g, k, i))
				continue;
			int64_t d = in[k]->shape.dim[i];
			if (d != 1 && c->loop[j] != 1 && c->loop[j] != d)
				return broadcast_error(g, in, c->nloop, w, e);
			if (d != 1)
				c->loop[j] = d;
			j++;
		}
	}
	for (int k = 0; k < 2; k++) {
		struct contract_axes *x = k ? &c->b : &c->a;
		int j = c->nloop - (g->ndim[k] - g->ncore[k]);
		for (int i = 0; i < g->ndim[k]; i++)
			if (!is_core(g, k, i)) {
				x->loop[i] = in[k]->shape.dim[i] == c->loop[j] ? j : -1;
				j++;
			}
	}
	return 0;
}

/* The names of the loop axes when they broadcast by position: each
 * axis's from the first operand that names it with its full length (not
 * one broadcast from 1), with its coordinate; NULL unless every loop axis
 * has one, as an elementwise result keeps the names of an operand with
 * all its axes. */
static struct dims *loop_named(struct planner *pl, const struct gu_args *g, struct array *const *in,
			       const struct contract *c)
{
	struct dims *u = arena_alloc(pl->p->arena, sizeof *u);
	memset(u, 0, sizeof *u);
	u->ndim = c->nloop;
	for (int k = 0; k < 2; k++) {
		const struct contract_axes *x = k ? &c->b : &c->a;
		for (int i = 0; in[k]->dims && i < g->ndim[k]; i++)
			if (!is_core(g, k, i) && x->loop[i] >= 0 && !u->name[x->loop[i]])
				dims_copy_axis(u, x->loop[i], in[k]->dims, i);
	}
	for (int j = 0; j < u->ndim; j++)
		if (!u->name[j])
			return NULL;
	return u;
}

/* The loop axes of operand K as a named array of their own. */
static void loop_names(const struct gu_args *g, const struct array *x, int k, struct dims *d,
		       struct shape *shape)
{
	memset(d, 0, sizeof *d);
	shape->ndim = 0;
	for (int i = 0; i < g->ndim[k]; i++)
		if (!is_core(g, k, i)) {
			dims_copy_axis(d, d->ndim++, x->dims, i);
			shape->dim[shape->ndim++] = x->shape.dim[i];
		}
}

/* Loop axes by name (xarray's rule): the union of the operands' loop
 * axes in order of first appearance, lengths agreeing by name.  Into
 * *LOOP the union's names. */
static int loop_by_name(struct planner *pl, struct gu_args *g, struct array *const *in,
			struct contract *c, struct dims **loop, const struct site *w, struct err *e)
{
	struct dims d[2];
	struct shape shape[2], u;
	const struct dims *dp[2] = { &d[0], &d[1] };
	const struct shape *sp[2] = { &shape[0], &shape[1] };
	int a, b;
	const char *name;
	for (int k = 0; k < 2; k++)
		loop_names(g, in[k], k, &d[k], &shape[k]);
	if (dims_union(2, dp, sp, pl->p->arena, loop, &u, &a, &b, &name) < 0) {
		if (!name)
			return err_at(e, EXIT_USAGE, w, "the operands name more than %d dimensions", H5U_MAXDIM);
		return err_at(e, EXIT_USAGE, w, "dimension '%s' is %lld in %s and %lld in %s", name,
			      (long long)shape[a].dim[dims_axis(&d[a], name)], in[a]->display,
			      (long long)shape[b].dim[dims_axis(&d[b], name)], in[b]->display);
	}
	c->nloop = u.ndim;
	memcpy(c->loop, u.dim, sizeof u.dim);
	for (int k = 0; k < 2; k++) {
		struct contract_axes *x = k ? &c->b : &c->a;
		for (int i = 0, j = 0; i < g->ndim[k]; i++)
			if (!is_core(g, k, i))
				x->loop[i] = dims_axis(*loop, d[k].name[j++]);
	}
	return 0;
}

/* The roles of operand K's axes (its loop axes are set). */
static void operand_roles(const struct gu_args *g, int k, struct contract_axes *x)
{
	x->ndim = g->ndim[k];
	for (int i = 0; i < x->ndim; i++)
		x->role[i] = ROLE_LOOP;
	for (int i = 0, c = 0; i < g->sig.ncore[k]; i++)
		if (g->present[k][i])
			x->role[g->core_axis[k][c++]] = g->sig.role[k][i];
}

/* The name of operand K's axis of role R, or NULL. */
static const struct dims *role_name(const struct gu_args *g, struct array *const *in, int k,
				    enum core_role r, int *axis)
{
	for (int i = 0, c = 0; i < g->sig.ncore[k]; i++)
		if (g->present[k][i] && g->sig.role[k][i] == r) {
			*axis = g->core_axis[k][c];
			return in[k]->dims;
		} else if (g->present[k][i]) {
			c++;
		}
	return NULL;
}

/* The result's axes, shape and names: its core axes where axes= puts
 * them, its loop axes in order in the others; named when the loop axes
 * were (LOOP) and no name comes twice. */
static void result_axes(struct planner *pl, struct plan_step *s, const struct gu_args *g,
			struct contract *c, const struct dims *loop)
{
	struct contract_axes *x = &c->c;
	struct dims *d = loop ? arena_alloc(pl->p->arena, sizeof *d) : NULL;
	x->ndim = g->ndim[2];
	s->shape.ndim = x->ndim;
	for (int i = 0; i < x->ndim; i++)
		x->role[i] = ROLE_LOOP;
	for (int i = 0, k = 0; i < g->sig.ncore[2]; i++)
		if (g->present[2][i]) {
			int a = g->core_axis[2][k++], at = 0;
			x->role[a] = g->sig.role[2][i];
			s->shape.dim[a] = g->size[x->role[a] - 1];
			const struct dims *from = role_name(g, s->in, x->role[a] == ROLE_ROW ? 0 : 1, x->role[a], &at);
			if (d && from)
				dims_copy_axis(d, a, from, at);
		}
	for (int i = 0, j = 0; i < x->ndim; i++)
		if (x->role[i] == ROLE_LOOP) {
			x->loop[i] = j;
			s->shape.dim[i] = c->loop[j];
			if (d)
				dims_copy_axis(d, i, loop, j);
			j++;
		}
	if (d)
		d->ndim = x->ndim;
	for (int i = 0; d && i < x->ndim; i++)
		for (int j = -1; j < i && d; j++)
			if (!d->name[i] || (j >= 0 && !strcmp(d->name[i], d->name[j])))
				d = NULL;
	s->dims = d;
}

/* ---- the step ---- */

/* Options a generalized ufunc does not take (NumPy's where=, and
 * h5ufunc's packing): refused.  fill: is every step's (plan.c, plan_fill). */
static int refuse_options(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			  struct err *e)
{
	static const int refused[] = { OPT_WHERE, OPT_PACK };
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
		int opt = refused[i];
		if (!option_given(o, opt))
			continue;
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, o->mark[opt]),
			      opt == OPT_WHERE ? "%s() got an unexpected keyword argument '%s'"
			      : "%s: '%s' does not apply to generalized ufuncs", s->uf->name,
			      step_options[opt].name);
	}
	return 0;
}

/* The operands and the loop: NumPy's type resolution, as for any ufunc. */
static int operands(struct planner *pl, struct plan_step *s, const struct step_opts *o,
		    struct err *e)
{
	const struct recipe_step *rs = s->src;
	if (rs->nin != 2)
		return err_at(e, EXIT_USAGE, LOCATE(pl, s, rs->nin ? rs->in_mark[0] : rs->mark),
			      "ufunc '%s' takes 2 inputs, got %d", s->uf->name, rs->nin);
	s->nin = 2;
	s->nout = 1;
	for (int k = 0; k < 2; k++) {
		const struct site *w = LOCATE(pl, s, rs->in_mark[k]);
		s->in[k] = array_read_operand(pl, rs->in[k], s->decoded, w, e);
		if (!s->in[k])
			return -1;
		s->bshape[k] = s->in[k]->shape;
	}
	bool dtype = option_given(o, OPT_DTYPE);
	s->loop = resolve_loop(s->uf, 2, (const struct array *const *)s->in, o, s->casting,
			       LOCATE(pl, s, dtype ? o->mark[OPT_DTYPE] : rs->mark), e);
	if (!s->loop)
		return -1;
	s->out_dtype[0] = s->loop->types[2];
	lower_single(pl, s);
	return 0;
}

/* The axes and loop of S, its operands and loop resolved. */
static int shapes(struct planner *pl, struct plan_step *s, struct step_opts *o, struct gu_args *g,
		  struct contract *c, struct err *e)
{
	const struct recipe_step *rs = s->src;
	const struct site *w = LOCATE(pl, s, rs->in_mark[0]);
	for (int k = 0; k < 2; k++)
		g->ndim[k] = s->in[k]->shape.ndim;
	if (core_present(g, w, e) < 0)
		return -1;
	int opt = option_given(o, OPT_AXES) ? OPT_AXES : OPT_AXIS;
	const struct site *wa = option_given(o, opt) ? LOCATE(pl, s, o->mark[opt]) : w;
	int loop = 0;
	for (int k = 0; k < 2; k++)
		if (g->ndim[k] - g->ncore[k] > loop)
			loop = g->ndim[k] - g->ncore[k];
	if (axis_number(o, s->in, wa, e) < 0 || core_axes(g, o, loop, wa, e) < 0 ||
	    core_sizes(g, s->in, w, e) < 0)
		return -1;
	struct dims *names = NULL;
	bool position = option_given(o, OPT_BROADCAST) && o->by_position;
	bool by_name = dims_named(s->in[0]->dims) && dims_named(s->in[1]->dims) && !position;
	if ((by_name ? loop_by_name(pl, g, s->in, c, &names, w, e) : loop_by_position(g, s->in, c, w, e)) < 0)
		return -1;
	if (!by_name && !position)
		names = loop_named(pl, g, s->in, c);
	/* by name the loop axes may outnumber either operand's: the result's
	 * rank, and where axes= puts its core axes, follow */
	if (c->nloop != loop && core_axes(g, o, c->nloop, wa, e) < 0)
		return -1;
	operand_roles(g, 0, &c->a);
	operand_roles(g, 1, &c->b);
	result_axes(pl, s, g, c, names);
	return 0;
}

/* Where X's axis of role R is beside its depth axis: 1 after it, -1
 * before it, 0 when X has none (a vector). */
static int core_order(const struct contract_axes *x, enum core_role r)
{
	int at = -1, depth = -1;
	for (int i = 0; i < x->ndim; i++) {
		at = x->role[i] == r ? i : at;
		depth = x->role[i] == ROLE_DEPTH ? i : depth;
	}
	return at < 0 ? 0 : at > depth ? 1 : -1;
}

int gufunc_plan(struct planner *pl, struct plan_step *s, const struct step_opts *opts,
		struct err *e)
{
	struct step_opts o = *opts;
	struct gu_args g;
	memset(&g, 0, sizeof g);
	g.uf = s->uf;
	sig_read(s->uf, &g.sig);
	struct contract *c = arena_alloc(pl->p->arena, sizeof *c);
	memset(c, 0, sizeof *c);
	struct step_opts core = o;   /* with an epilogue, dtype= is its outermost op's */
	if (s->src->tree)
		option_forget(&core, OPT_DTYPE);
	if (refuse_options(pl, s, &o, e) < 0 || operands(pl, s, &core, e) < 0 ||
	    shapes(pl, s, &core, &g, c, e) < 0)
		return -1;
	enum dtype t = s->loop->types[0];
	c->conj = s->uf->flags & UF_CONJ_FIRST;
	cell_grid_make(g.size[ROLE_ROW - 1], g.size[ROLE_DEPTH - 1], g.size[ROLE_COL - 1],
		       dtype_size(gemm_pack_dtype(t)), &c->grid);
	/* each operand packed in its own order: A (rows, depth) or transposed,
	 * B (depth, columns) or transposed */
	gemm_plan_make(t, c->grid.gn, c->grid.gm, c->grid.gk, core_order(&c->a, ROLE_ROW) > 0,
		       core_order(&c->b, ROLE_COL) < 0, &c->gemm);
	s->prog.ops[0].shape = s->shape;
	s->contract = c;
	return s->src->tree ? lower_epilogue(pl, s, &o, e) : 0;
}

int gufunc_plan_missing(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			struct err *e)
{
	const struct site *w = LOCATE(pl, s, option_given(o, OPT_MISSING) ? o->mark[OPT_MISSING]
					      : s->src->mark);
	for (int k = 0; k < 2; k++)
		if (!(s->contract->missing[k] = array_missing(pl, s->in[k], w, e)))
			return -1;
	if (lower_missing(pl, s, 0, o, e) < 0)   /* the epilogue's domains */
		return -1;
	s->mask.masked = true;
	s->mask.nan = option_given(o, OPT_MISSING) && o->missing == MISSING_MASK_NAN;
	return 0;
}
