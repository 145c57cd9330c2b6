/* planner.h - the planner's working state, shared by the stages of
 * plan_build().
 *
 * plan_build() (plan.c) is the driver: it binds the recipe's inputs, plans
 * each step through its verb, then hands the plan to the optimizer and
 * places the temporary files.  The stages it calls live one per file, in
 * the order a step flows through them:
 *
 *   locate.c    the places errors point at (locate.h): sites made from
 *               a step and a mark of the recipe or the expression
 *   files.c     the plan's file table: files read, written, created; the
 *               scratch file; temporary names once the outputs are known
 *   arrays.c    what an operand stands for: the array table, names bound
 *               by inputs: and out:, datasets (with select.c's slicing),
 *               literals
 *   resolve.c   type resolution (resolve.h: pure, no HDF5)
 *   lower.c     an expression -> the step's op program
 *   plan_fold.c  reduce and accumulate steps: input, axes, loop, where
 *               their accumulators start; a fold's where= and masks
 *   indexed.c   reduceat and at steps: their index arrays (indices.h),
 *               checked against the data before anything is written
 *   plan_units.c  what each result is: its units and CF description
 *   outputs.c   where each result goes: in place, new, replacing, scratch,
 *               printed; chunks and compression
 *   elementwise_layout.c  the elementwise memory model (elementwise.h)
 *   fuse.c      the optimizer: steps fused into passes
 *
 * This header is not a module's public face: only those files include it.
 * Every function here reports errors at the site it is given (W, made by
 * locate.h), with status EXIT_USAGE, and returns -1 (or NULL); see err.h.
 */
#ifndef H5UFUNC_PLANNER_H
#define H5UFUNC_PLANNER_H

#include "locate.h"
#include "operand.h"
#include "plan.h"

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
};

/* ---- plan_fold.c ---- */

/* Axis I of axis: (O) of X, given by number or by name (NumPy's range
 * check), into *OUT. */
int fold_axis(struct planner *pl, struct plan_step *s, const struct step_opts *o, int i,
	      const struct array *x, int *out, struct err *e);
/* The one input of a fold (reduce, accumulate, reduceat) of S: NumPy's
 * errors for a ufunc that is not binary with one output, one input, a
 * dataset; into S->in[0].  NULL on error. */
struct array *fold_input(struct planner *pl, struct plan_step *s, struct err *e);
/* A reduce or accumulate step: its input, axes, loop, result shape and
 * where its accumulators start (S->fold). */
int plan_reduction(struct planner *pl, struct plan_step *s, const struct step_opts *o, struct err *e);
/* A reduction's where= (O's WHERE): the operand, broadcast over the input,
 * and what the elements it skips fold as (S->mask). */
int plan_reduce_where(struct planner *pl, struct plan_step *s, const struct step_opts *o,
		      struct err *e);
/* Masked mode (numpy.ma's) of a fold S: what its masked elements fold as,
 * and its input's missing-value attributes (S->mask). */
int plan_reduce_missing(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			struct err *e);

/* ---- plan_units.c ---- */

/* What S's results are (its verb planned, before where= and masks add
 * ops): what CF says they are (cfdesc.h), and, unless O says units: off,
 * their units, op by op; under units: strict, what unyt refuses is
 * refused and its conversions become ops of S's program. */
int step_describe(struct planner *pl, struct plan_step *s, const struct step_opts *o, struct err *e);
/* Output K of S (planned) takes S's units and description, for later steps
 * to read and the end of the run to write. */
void output_describe(struct plan_step *s, int k);

/* ---- files.c ---- */

struct plan_file *file_find(struct plan *p, const char *canon);
/* A new entry of the file table (NULL when it is full). */
struct plan_file *file_add(struct planner *pl, const char *name, const char *canon, bool exists);
/* The file of an operand that is read: on disk (opened), or one an earlier
 * step creates. */
struct plan_file *file_for_read(struct planner *pl, const char *name, const struct site *w,
				struct err *e);
/* The file an output goes to, created by the run when new; checked
 * writable. */
struct plan_file *file_for_write(struct planner *pl, const char *name, const struct site *w,
				 struct err *e);
/* Can PATH (an existing file, or one to create) be written? */
int file_check_writable(const char *path, bool exists, const struct site *w, struct err *e);
/* The run's scratch file of printed results (PRINTED) or of named
 * intermediates, added on first use; NULL when the table is full. */
struct plan_file *scratch_file(struct planner *pl, bool printed);
/* Where scratch files and temporary names go, once outputs are known;
 * which files are journaled, and that their journals can be made. */
int place_files(struct planner *pl, struct err *e);

/* ---- arrays.c ---- */

struct array *array_new(struct planner *pl, enum array_kind kind, const char *display);
/* The whole (unselected) dataset PATH of F, when the plan has it (the
 * latest array naming it so). */
struct array *array_find(struct planner *pl, const struct plan_file *f, const char *path);
/* X, a dataset array whose file and path are just set (once): it and
 * every other array of the plan naming the same dataset are named_twice.
 * Looks at that dataset's arrays only (the planner's buckets), so naming
 * every array of a plan costs time linear in their number. */
void array_named(struct planner *pl, struct array *x);
/* The array NAME is bound to, the latest binding first; NULL if none. */
struct array *array_bound(struct planner *pl, const char *name);
int array_bind(struct planner *pl, const char *name, struct array *x, const struct site *w, struct err *e);
/* The dataset FILE:/PATH[SELECTION] of OP (written as TEXT), as an operand
 * that is read (or written in place, for a selection). */
struct array *array_dataset(struct planner *pl, const struct operand *op, const char *text,
			    const struct site *w, struct err *e);
/* X's missing-value attributes (cf.h), read once: a dataset the run
 * creates has its fill value only, which tests nothing when it has a mask
 * plane (X->plane, set here for a view of a dataset with one: what is
 * missing is read from it) or is bool.  NULL on error. */
const struct cf_missing *array_missing(struct planner *pl, struct array *x, const struct site *w,
					 struct err *e);
/* X as CF decoding reads it (cf.h): X itself when its dataset's values are
 * its stored numbers (no coding, or missing-value attributes only), else
 * its twin read through the coding (made once, the attributes read once):
 * its dtype the unpacked one, its missing values NaN.  A literal, a twin
 * or a view made of one: itself.  NULL on error. */
struct array *array_decoded(struct planner *pl, struct array *x, const struct site *w, struct err *e);
/* An operand that a step reads: a name, a dataset or a literal. */
struct array *array_operand(struct planner *pl, const char *text, const struct site *w, struct err *e);
/* ... as the step reads it: through its dataset's CF coding when DECODED
 * (array_decoded), else its stored numbers. */
struct array *array_read_operand(struct planner *pl, const char *text, bool decoded,
				 const struct site *w, struct err *e);
/* The names of the result of an elementwise step over its N operands IN
 * (dims.h), into *DIMS (NULL: unnamed).  When every array operand names all its axes
 * (and not BY_POSITION), xarray's rule: the union of the names, lengths
 * agreeing by name, and each operand whose axes are not the union's
 * trailing ones in order replaced in IN by a view with the union's axes
 * (inserted, permuted), so that NumPy's positional rule then lines them
 * up.  Otherwise nothing moves, and the result keeps the names of an
 * operand of the result's shape, if any. */
int arrays_by_name(struct planner *pl, int n, struct array **in, bool by_position,
		   struct dims **dims, const struct site *w, struct err *e);

/* ---- indexed.c ---- */

/* A reduceat step: its input, axis, indices (read and checked now), loop
 * and result shape. */
int plan_reduceat(struct planner *pl, struct plan_step *s, const struct step_opts *o, struct err *e);
/* An at step: its target (written in place), index arrays (checked now,
 * unless only checking), b, and loop. */
int plan_at(struct planner *pl, struct plan_step *s, const struct step_opts *o, struct err *e);

/* ---- outputs.c ---- */

/* X, a dataset S reads, is also where S writes, in place (at). */
int outputs_in_place(struct planner *pl, struct plan_step *s, struct array *x, const struct site *w,
		     struct err *e);

/* Decide output K of S (its out: entry): in place, a new or replacing
 * dataset, a new file, or a named intermediate in the scratch file. */
int outputs_plan(struct planner *pl, struct plan_step *s, int k, bool overwrite, struct err *e);
/* S has no out:, so its results print: scratch datasets read back after it. */
int outputs_printed(struct planner *pl, struct plan_step *s, struct err *e);
/* S prints its results (outputs_printed has made their scratch datasets)
 * and has where= or masks (a masked reduce among them): the scratch
 * dataset of its mask (bool, true where a result is set), in the file of
 * its results, which printed results read as numpy.ma's mask. */
int outputs_mask(struct planner *pl, struct plan_step *s, struct err *e);
/* S has where= or masks and keeps results as named intermediates: their
 * mask plane (outputs_mask's dataset, in the scratch file), made theirs
 * (array.plane), so that a later step reads what is missing from it and
 * no valid result is lost to the fill. */
int outputs_planes(struct planner *pl, struct plan_step *s, struct err *e);
/* pack: (O's) of output K of S, a new dataset: its coding (cf.h), its
 * dtype the unpacked one (float32 for float16 and float32 results, else
 * float64, as NCO's attributes are). */
int outputs_pack(struct planner *pl, struct plan_step *s, int k, const struct step_opts *o,
		 struct err *e);
/* vds: (O's) of output K of S: a dataset of a new file, written over one
 * file per rank (vds.h); refused for every other output, and where a
 * source's name beside it is taken. */
int outputs_vds(struct planner *pl, struct plan_step *s, int k, const struct step_opts *o,
		struct err *e);
/* Refuse an input of S that an earlier step writes over one file per rank:
 * its sources have their names only once the run has ended. */
int outputs_vds_read(struct planner *pl, struct plan_step *s, struct err *e);
/* Chunks and compression of output K, a dataset the step creates. */
int outputs_layout(struct planner *pl, struct plan_step *s, int k, const struct step_opts *o,
		   struct err *e);
/* Output K of S chunked, as chunks: auto does, where it can grow (an axis
 * of an input's netCDF record dimension, dims_unlimited; not over one file
 * per rank) and is not chunked already: HDF5 grows chunked datasets only. */
void outputs_growing(struct plan_step *s, int k);

/* ---- lower.c ---- */

/* S's program as one op: its ufunc through its loop, over its inputs in
 * order, giving its outputs (literals and the op's shape are the
 * caller's).  Returns the op. */
struct plan_op *lower_single(struct planner *pl, struct plan_step *s);
/* Parse S's expression and lower it into S's ops, in evaluation order. */
int lower_expression(struct planner *pl, struct plan_step *s, const struct step_opts *o,
		     struct err *e);
/* A contraction's epilogue (S's recipe step's TREE, contract.h): what an
 * expression does with the product with numbers alone, as more ops after
 * S's op 0, the contraction, whose result CONTRACT_RESULT names; dtype= in
 * O is the outermost one's. */
int lower_epilogue(struct planner *pl, struct plan_step *s, const struct step_opts *o,
		   struct err *e);
/* S's where= option (O's WHERE: an operand, or in an expr step an
 * expression) as more ops of S's program, whose last gives the boolean
 * mask (S->mask.where_src); the step's shape grows to broadcast with it. */
int lower_where(struct planner *pl, struct plan_step *s, const struct step_opts *o,
		struct err *e);
/* Masked mode (O's missing: mask or mask-nan): S's first NIN inputs'
 * missing elements (their _FillValue, missing_value, valid_* attributes,
 * NaN for mask-nan) and the domain errors numpy.ma masks (its domains,
 * ufunc.h's ma_domain) as more ops, whose last says which results are valid
 * (S->mask.valid_src).  Nothing to mask: S is left as it was. */
int lower_missing(struct planner *pl, struct plan_step *s, int nin, const struct step_opts *o,
		  struct err *e);

/* units: strict's conversions: S's program again, with operand K of op J
 * first multiplied by FACTOR[J * RECIPE_MAXIN + K] (a weak float literal,
 * so an op like any other) wherever that is not 1; NAME[...] names the
 * operand in messages.  An integer operand is refused (its converted
 * values would not be integers).  Before where= and masks. */
int lower_convert(struct planner *pl, struct plan_step *s, const double *factor,
		  const char *const *name, struct err *e);

/* ---- fuse.c ---- */

/* The optimizer: consecutive elementwise steps of one shape become one
 * program, reductions of what a pass reads or computes join it, and
 * consecutive reductions of one dataset share one pass.  Never fails: a
 * fusion that would not fit --memory is not made. */
void fuse_plan(struct planner *pl);

/* plan_layout.c: S's boxes within --memory, as its kind of run lays them
 * out; the elementwise passes that write in place a dataset a later step
 * named, laid out again, and the passes fusion made; which datasets of P each rank reads alone, after
 * fusion and the files' placing. */
int plan_step_layout(struct planner *pl, struct plan_step *s, struct err *e);
/* Every array's by_runs, decided once the steps are planned: no later
 * phase changes what stage_in_place_runs asks (a later step naming a
 * dataset again, named_twice, withdraws the runs of an earlier one's
 * output, whose passes plan_relayout_named_late then lays out again). */
void plan_settle_runs(struct plan *p);
int plan_relayout_named_late(struct planner *pl, struct err *e);
int plan_relayout_fused(struct planner *pl, struct err *e);
int plan_read_alone(struct plan *p, int nranks, struct err *e);
/* Each array's chunk_cache, once every pass is laid out for good: the
 * most that a pass that runs (not one merged into another, whose host
 * pays for what it writes) keeps for it. */
void plan_settle_caches(struct plan *p);

#endif
