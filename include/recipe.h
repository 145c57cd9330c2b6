/* recipe.h - the recipe tree: what the user wrote, checked for form only.
 *
 * recipe_parse() turns YAML text into this tree with libyaml's event API.
 * It checks the recipe's shape (known keys, one verb per step, value types,
 * dtype and casting names, ${NAME} substitution) and keeps the line and
 * column of every node, so later stages can point at the text.  It does
 * not open files or look up ufuncs: that is the planner's job (plan.h).
 * One-liner commands build the same tree by hand, with zero marks.
 */
#ifndef H5UFUNC_RECIPE_H
#define H5UFUNC_RECIPE_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "dtype.h"
#include "err.h"
#include "filter.h"
#include "shape.h"   /* H5U_MAXDIM */
#include "vars.h"   /* struct vars */
#include "verb.h"

#define RECIPE_MAXIN 8      /* operands of one step */
#define RECIPE_MAXOUT 2
#define RECIPE_AXES (RECIPE_MAXIN + RECIPE_MAXOUT)   /* entries of axes: */
#define RECIPE_CORE 4                                /* axes of an entry */

struct expr;

struct mark {
	int line, col;          /* 1-based; 0 when the node has no source text */
};

/* missing: (SPEC 3.5): cf (the default: datasets read through their CF
 * coding, numpy.ma's semantics where an operand declares missing values),
 * mask (numpy.ma's always), mask-nan (NaN masked too), raw (or off: the
 * stored numbers, as NumPy on h5py data). */
enum missing_mode { MISSING_CF, MISSING_MASK, MISSING_MASK_NAN, MISSING_RAW };

/* Step options (options.def): given per step, or for all steps under
 * `defaults:`. */
enum opt {
#define OPTION(TAG, NAME, EXPECT, VERBS, FIELDS, CALL, REDUCE, ACCUMULATE, EVAL) OPT_##TAG,
#include "options.def"
#undef OPTION
	OPT_COUNT
};

struct step_opts {
	unsigned given;               /* bit (1u << OPT_x) for each option given:
					 read through option_given() */
	struct mark mark[OPT_COUNT];  /* where each given option's value is */
	enum dtype dtype;
	enum casting casting;
	const char *initial;          /* literal text, e.g. "0", "-inf", "true" */
	bool keepdims;
	bool overwrite;
	bool vds;                     /* vds: true: a new file's dataset over one file per rank */
	bool chunks_auto;             /* chunks: auto */
	int nchunks;                  /* chunks: [a, b, ...] */
	int64_t chunks[H5U_MAXDIM];
	struct compression compression;  /* compression: a filter and its level (filter.h) */
	bool axis_all;                /* axis: null */
	int naxis;                    /* axis: N -> 1, [a, b] -> 2 */
	int axis[H5U_MAXDIM];         /* as written; may be negative */
	const char *axis_name[H5U_MAXDIM];  /* a dimension's name instead of axis[i], or NULL */
	int naxes;                    /* axes: the entries given (operands', then the result's) */
	int axes_len[RECIPE_AXES];    /* ... entry i's length, or -1 for an integer */
	int axes[RECIPE_AXES][RECIPE_CORE];  /* ... and its axes, as written */
	bool by_position;             /* broadcast: position (names are not used) */
	bool units_off;               /* units: off (or false): no units computed */
	bool units_strict;            /* units: strict: refused or converted as unyt does */
	const char *where;            /* where=: operand or expression text */
	const char *fill;             /* fill: literal text */
	enum missing_mode missing;    /* missing: */
	enum dtype pack;              /* pack: TYPE[:SCALE_FACTOR[:ADD_OFFSET]] */
	int pack_values;              /* ... 0: chosen from the range, 1: SCALE, 2: both */
	double pack_scale, pack_offset;
};
/* Was option OPT given in O: on the step, or under defaults once merged? */
static inline bool option_given(const struct step_opts *o, enum opt opt)
{
	return o->given & (1u << opt);
}

/* OPT given in O from now on, or no longer. */
static inline void option_give(struct step_opts *o, enum opt opt)
{
	o->given |= 1u << opt;
}

static inline void option_forget(struct step_opts *o, enum opt opt)
{
	o->given &= ~(1u << opt);
}


struct recipe_step {
	enum verb verb;
	const char *fn;               /* ufunc name, or the expression for expr: */
	struct mark mark;             /* the step's first key */
	struct mark fn_mark;          /* the verb's value */
	struct mark fn_text;          /* where its text begins: inside quotes, or a
					 block scalar's first line (lines after the
					 first start at the same column) */
	int fn_offset;                /* columns before the text on its line, for a
					 one-liner (eval's "OUT ="), else 0 */
	int nin;                      /* `in:` scalar or list; 0 for expr: */
	const char *in[RECIPE_MAXIN]; /* operand texts: names, FILE:/PATH, literals */
	struct mark in_mark[RECIPE_MAXIN];
	int nidx;                     /* reduceat and at: `indices:` entries, each a
					 dataset, a name, or a literal list "[0,31,59]" */
	const char *idx[H5U_MAXDIM];
	struct mark idx_mark[H5U_MAXDIM];
	struct mark idx_key;          /* where `indices:` is */
	int nout;                     /* 0 when no `out:` (print the result) */
	const char *out[RECIPE_MAXOUT];
	struct mark out_mark[RECIPE_MAXOUT];
	struct step_opts opts;        /* this step's own options, not merged */
	/* After an expression step was split where it calls a generalized
	 * ufunc (contract.h, gufunc_split): every step's number as the user
	 * wrote the recipe (0: its position), the parts of the split step
	 * named in messages as it, and each part's piece of the parsed
	 * expression (NULL: parse FN), whose columns count in TEXT. */
	int number;
	bool part;
	const struct expr *tree;
	const char *text;
};

struct recipe_input {
	const char *name;
	const char *ref;              /* FILE:/PATH or a literal */
	struct mark mark;             /* the name's key */
	struct mark ref_mark;
};

struct recipe {
	const char *path;             /* for messages: the file name, or "<stdin>" */
	int version;                  /* 1 */
	int ninputs;
	struct recipe_input *inputs;
	int nsteps;
	struct recipe_step *steps;
	struct step_opts defaults;
};

/* Parse LEN bytes of YAML TEXT into R, allocating from A.  PATH names the
 * text in messages.  On error returns -1 with E holding
 * "PATH:LINE:COL: WHAT" and status EXIT_USAGE. */
int recipe_parse(const char *text, size_t len, const char *path,
		 const struct vars *vars, struct arena *a, struct recipe *r,
		 struct err *e);

#endif
