/* plan.h - a recipe checked against the real files: the validated plan.
 *
 * plan_build() resolves names, opens every input to learn its shape and
 * dtype, picks each step's type loop (NumPy's resolution, NEP 50 literals,
 * dtype= and casting=), broadcasts shapes, decides every output (in place,
 * new dataset, new file, scratch, printed), and sizes blocks to --memory.
 * Everything that can fail before a write fails here, with the recipe's
 * line and column.  Then the optimizer fuses steps into passes.  Each
 * stage is a file of its own (planner.h lists them); executing the plan is
 * exec.h's job.
 */
#ifndef H5UFUNC_PLAN_H
#define H5UFUNC_PLAN_H

#include <assert.h>
#include <hdf5.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "arena.h"
#include "cf.h"
#include "cfdesc.h"
#include "dims.h"
#include "dist.h"
#include "h5io.h"
#include "units.h"
#include "literal.h"

struct contract;
struct vds;
#include "recipe.h"
#include "shape.h"
#include "ufunc.h"

#define PLAN_MAXFILES 256
#define PLAN_MAXARRAYS 1024
#define PLAN_PRINT_LIMIT 1000000   /* elements of a printed result */

struct plan_file {
	const char *name;        /* as the user wrote it */
	const char *canon;       /* canonical path: one file under two names is one file */
	const char *open_path;   /* what is opened: NAME, or a temporary name when new */
	const char *tmp_dir;     /* when new and on disk: where the temporary name is */
	const char *tmp_base;    /* ... and the final base name (NULL: a scratch file) */
	bool exists;             /* existed before the run */
	bool write;              /* the run writes into it */
	bool scratch;            /* holds the run's named intermediates or printed results */
	bool printed;            /* a scratch file of printed results only */
	bool memory;             /* a scratch file kept in memory: no file is made */
	bool read_alone;         /* read by each rank through a handle of its own
				    (h5io_open_reader), not MPI-IO: under MPI, an
				    existing file the run never writes, all of whose
				    datasets it reads are chunked */
	bool write_runs;         /* written, under MPI, only in runs of the file, one
				    a call: every dataset of it written moves alone
				    (h5io_open_runs) */
	bool undoable;           /* existed, and the run writes into it: journaled
				    (journal.h), unless --risk-partial-writes */
	const char *unfinished;  /* check: what an interrupted run's journal beside
				    it says (journal_describe), else NULL */
	hid_t id;                /* open while a stage runs, else -1 */
	bool made;               /* made on disk by this run, not yet renamed or removed */
	int journal;             /* while the run's writes into it can be undone: its
				    journal (journal.h), else -1 */
	enum undo { UNDO_NONE, UNDO_ROLLED_BACK, UNDO_STUCK, UNDO_COMMITTED } undo;
				 /* how the run ended for it ... */
	const char *stuck;       /* ... and, UNDO_STUCK, why it could not be rolled back */
	struct dims_paths *paths;   /* its objects' paths, once dims_read has needed them */
};

enum array_kind { ARR_DATASET, ARR_LITERAL };

/* A selection of a dataset (NumPy basic slicing), resolved against its
 * extents: axis i of the dataset contributes start[i] + step[i] * j for
 * j < count[i] (a negative step runs backwards: HDF5 reads the same
 * elements forwards and stage.c turns them round), or only start[i] when
 * it is indexed (dropped).  The selection's axes are the dataset's that
 * are not dropped, in order, with the axes of length one that None adds
 * among them (inserted[j]: axis j of the selection is one of those). */
struct array_view {
	int ndim;                       /* the dataset's rank */
	int64_t dim[H5U_MAXDIM];        /* the dataset's extents */
	int64_t start[H5U_MAXDIM], step[H5U_MAXDIM], count[H5U_MAXDIM];
	bool dropped[H5U_MAXDIM];
	bool inserted[H5U_MAXDIM];      /* by the selection's axes */
};

struct array {
	enum array_kind kind;
	const char *display;     /* "f.h5:/x", or the literal as written */
	struct plan_file *file;  /* ARR_DATASET */
	const char *path;        /* ARR_DATASET: path in the file */
	struct shape shape;      /* the array's: the selection's when there is one */
	bool selected;           /* VIEW applies */
	struct array_view view;
	struct dims *dims;       /* the names of its axes (dims.h); NULL: unnamed */
	struct units units;      /* its units (units.h): as read, or as a step computed them */
	bool units_set;          /* ... and written into its `units` attribute at the end */
	struct cfdesc desc;      /* its CF names and cell_methods (cfdesc.h): as read, or as
				    a step made them ... */
	bool desc_set;           /* ... and written onto it at the end (a dataset created) */
	const struct array *base;  /* broadcast by name: BASE read with its axes moved, */
	int from_axis[H5U_MAXDIM]; /* ... axis i being BASE's axis from_axis[i], or -1 for
				      an inserted axis of length one */
	enum dtype dtype;        /* stored dtype; a literal's default dtype */
	bool swapped;            /* ... stored in the other byte order than the machine's
				    (h5py's '>f8'): an existing dataset, read as it is;
				    what matters to casting: 'no' (dtype_can_cast_order) */
	struct literal lit;      /* ARR_LITERAL */
	bool strong;             /* ARR_LITERAL made an array first (outer), not weak */
	int nstored;             /* chunked as stored (an existing dataset): its */
	int64_t stored_chunk[H5U_MAXDIM];   /* chunk extents; 0: contiguous */
	bool stored_filtered;    /* ... and its chunks compressed (or filtered otherwise) */
	bool stored_gaps;        /* ... some of its chunks never written (h5io.h) */
	bool stored_raw;         /* ... under MPI, some stored without their filters (h5io.h) */
	bool stored_compact;     /* stored compact: its data in its object header */
	bool stored_btree;       /* chunked, its index the version-1 B-tree (h5io.h) */
	size_t chunk_cache;      /* ... bytes of chunk cache it is opened with: the most
				    any pass pays for it (step_blocks's chunk_cache,
				    plan_layout.c's plan_settle_caches); 0: the usual */
	bool create;             /* the run creates this dataset ... */
	int nchunk;              /* ... chunked (0: contiguous) ... */
	int64_t chunk[H5U_MAXDIM];
	struct compression compression;  /* ... and compressed (filter.h; .on false: not) */
	bool vds;                /* ... as a virtual dataset over one file per rank
				    (vds.h), written through VDS_RUN (NULL: this
				    rank has no share) while the run executes, */
	struct vds *vds_run;
	bool replace;            /* ... in place of an existing one (overwrite), */
	const char *new_path;    /* ... written under this hidden name and moved
				  * over PATH once the whole run has succeeded */
	bool superseded;         /* ... and replaced by a later step's output at PATH
				    (overwrite): read by the steps between, gone at the end */
	bool unused;             /* an intermediate that fusion made unnecessary */
	bool in_place;           /* an existing dataset the run writes into */
	bool named_twice;        /* another array of the plan names its dataset (a
				    view, its decoded or stored twin, a new one over
				    it): HDF5 keeps one chunk cache a dataset, which
				    the other's boxes fill, so it is never moved by
				    runs of its chunks (stage_in_place_runs) */
	bool by_runs;            /* written in place by runs of its chunks: the
				    answer of stage_in_place_runs, asked by the
				    planner alone (plan_layout.c's plan_settle_runs)
				    and read by the layouts and the run */
	bool alone;              /* under MPI, a chunked dataset of a file the run writes,
				    without filters, moved by each rank with independent
				    transfers, a chunk a call; or one of a file the run
				    never writes but shares through MPI-IO, read in
				    boxes of whole chunks, read independently (the
				    direct reader's) (plan_layout.c's plan_read_alone) */
	bool written;            /* ... and has written into (set while running) */
	bool announced;          /* ... and the pass now writing it announced to the
				    journal every box it writes, first (set while
				    running: its writes then announce nothing) */
	bool has_fill;           /* a created dataset with a fill value (where=, masks): */
	unsigned char fill[16];  /* ... FILL, in DTYPE (its _FillValue) */
	unsigned cf_present;     /* the CF attributes its dataset has (cf.h's cf_attr bits) */
	const struct cf_missing *missing;  /* its missing-value attributes, once read (a
				      decoded array's: the tests on its values) */
	struct array *plane;     /* its mask plane: a bool dataset beside it, true where
				    an element is valid, read as it is read (a masked or
				    where= step's named intermediate, whose missing
				    elements are said by it, not by its fill); NULL: none */
	struct cf_coding *coding;  /* read and written through this CF coding (cf.h):
				      DTYPE is the unpacked dtype, the dataset holds
				      coding->stored; NULL: the stored numbers */
	struct array *decoded;   /* a dataset as CF decoding reads it: itself, or its
				    twin with a coding; NULL until asked */
	struct array *raw;       /* a twin with a coding: the array it decodes */
	bool dry;                /* computed without being written (a first pass that
				    finds a packed output's range) */
	hid_t id;                /* open while the run executes, else -1 */
};

/* How a reduction's or scan's accumulators start. */
enum fold_init {
	FOLD_VALUE,        /* from a value: the identity, or initial= */
	FOLD_FIRST,        /* from the first element, folded again (idempotent ufuncs) */
	FOLD_FIRST_SKIP    /* from the first element, the rest folded (one axis) */
};

enum reduce_mode {
	REDUCE_STREAM,     /* a sequential fold along the reduced axes (a fused pass
			      feeds it rows when it keeps axis 0) */
	REDUCE_CHAIN       /* each index of the kept leading axes a flat run, folded in
			      NumPy's pieces chained in order (chain.h) */
};

/* Where an operand of an op comes from: a literal (the op's lit[k]), the
 * step's input INPUT, or output OUT of the step's earlier op OP.  Made with
 * src_literal(), src_input() and src_result(), asked with src_is_*(); a
 * zeroed one is src_none(), no operand (yet). */
enum src_kind { SRC_NONE, SRC_LITERAL, SRC_INPUT, SRC_RESULT };
struct op_src {
	enum src_kind kind;
	int input;   /* SRC_INPUT: which of the step's inputs */
	int op;      /* SRC_RESULT: which op (0-based, in the step's program) ... */
	int out;     /* ... and which of its outputs */
};

static inline struct op_src src_none(void)
{
	return (struct op_src){ .kind = SRC_NONE };
}

static inline struct op_src src_literal(void)
{
	return (struct op_src){ .kind = SRC_LITERAL };
}

static inline struct op_src src_input(int k)
{
	return (struct op_src){ .kind = SRC_INPUT, .input = k };
}

static inline struct op_src src_result(int op, int out)
{
	return (struct op_src){ .kind = SRC_RESULT, .op = op, .out = out };
}

static inline bool src_is_none(struct op_src s)
{
	return s.kind == SRC_NONE;
}

static inline bool src_is_literal(struct op_src s)
{
	return s.kind == SRC_LITERAL;
}

static inline bool src_is_input(struct op_src s)
{
	return s.kind == SRC_INPUT;
}

static inline bool src_is_result(struct op_src s)
{
	return s.kind == SRC_RESULT;
}

static inline bool src_equal(struct op_src a, struct op_src b)
{
	return a.kind == b.kind && (a.kind != SRC_INPUT || a.input == b.input) &&
	       (a.kind != SRC_RESULT || (a.op == b.op && a.out == b.out));
}

/* A table with an entry per result of a program of NOPS ops has
 * src_slots(NOPS) entries; result S's is at src_slot(S) (S a result). */
static inline int src_slots(int nops)
{
	return nops * RECIPE_MAXOUT;
}

static inline int src_slot(struct op_src s)
{
	assert(s.kind == SRC_RESULT);
	return s.op * RECIPE_MAXOUT + s.out;
}

/* One ufunc call of an elementwise step: a ufunc step is one op, an
 * expression one op per call, in evaluation order. */
#define PLAN_MAXOUT 16   /* outputs of a step, fused steps included */
struct plan_op {
	const struct ufunc *uf;
	const struct ufunc_loop *loop;
	int nin, nout;
	struct op_src src[RECIPE_MAXIN];    /* where each operand comes from (a result:
					       an earlier op's) */
	unsigned char lit[RECIPE_MAXIN][16]; /* literal operands in the loop's dtype (up to complex128) */
	struct shape shape;                 /* of its result */
	const char *where;                  /* its step, for faults raised from the data ... */
	const struct err_loc *loc;          /* ... and its place */
};

/* A reduction's or accumulation's fold: the axes it runs along, and how
 * its accumulators start. */
struct step_fold {
	bool reduced[H5U_MAXDIM];           /* input axes reduced (accumulate: its axis) */
	int axis;                           /* accumulate: the axis */
	bool keepdims;
	enum reduce_mode mode;
	int kept_lead;                      /* REDUCE_CHAIN: leading axes kept (its groups) */
	enum fold_init init;                /* where the first accumulators start */
	unsigned char init_value[16];
	enum fold_init rest_init;           /* REDUCE_CHAIN: where later pieces start (a
					       shared stream: later ranks' runs) */
	unsigned char rest_value[16];
};

struct reduceat_plan;   /* reduceat.h */
struct at_plan;         /* at.h */

/* The program of an elementwise step (and of the passes fusion makes): its
 * ops, in order, and the op result each output is. */
struct step_program {
	int nops;                           /* elementwise and expression steps */
	struct plan_op *ops;
	struct op_src out_src[PLAN_MAXOUT]; /* elementwise: the op result each output is */
	int own_ops;                        /* where= and masks: the ops of the step's own
					       program, before theirs */
};

/* What fusion made of a step (fuse.c). */
struct step_fusion {
	int merged_into;                    /* >= 0: fused into that step (0-based); else -1 */
	struct plan_step *host;             /* a reduction that shares its pass over its input
					       with the next ones: the step that makes that pass */
	int nred;                           /* reductions fused into this elementwise step ... */
	struct plan_step *red[PLAN_MAXOUT];
	struct op_src red_src[PLAN_MAXOUT]; /* ... and the op result or input each reads */
	int nown;                           /* the outputs the step itself names, which check
					       and --json list under it (OUT gains those of the
					       steps fused into it and loses those no step reads) */
	struct array *own[PLAN_MAXOUT];
};

/* The elements a step computes and writes: NumPy's where= and numpy.ma's
 * masked mode (where.h). */
struct step_mask {
	bool has_where;                     /* elementwise where=: ... */
	struct op_src where_src;            /* ... the op result (bool) that says
					       which elements are computed */
	bool masked;                        /* missing: mask (numpy.ma): ... */
	struct op_src valid_src;            /* ... the op result (bool) that says
					       which results are not masked ... */
	_Alignas(16) unsigned char fill[PLAN_MAXOUT][16];  /* ... and what masked ones are
							      written as, in each output's dtype */
	struct op_src print_src;            /* where= and masks: the elements shown */
	struct array *where_arr;            /* reduce where=: the operand, broadcast over
					       the input; skipped elements are SKIP_VALUE */
	_Alignas(16) unsigned char skip_value[16];
	_Alignas(16) unsigned char skip[16];  /* masked reduce and accumulate: what a
					       masked element folds as (a reduce folds which
					       results have a valid element beside them); ... */
	const struct cf_missing *in_missing;  /* ... the input's missing-value
					       attributes (NULL: none), ... */
	bool nan;                           /* ... NaN masked too (missing: mask-nan) */
	bool skip_fold;                     /* reduce and accumulate: no value can stand in for
					       the elements where= or a mask leaves out (no
					       identity, not reorderable), so they leave the
					       running value as it was; a masked result is one
					       no element was taken into */
	struct array *out;                  /* printed with where=: which elements it set */
};

/* How a step's index space is cut into boxes within --memory (dist.h). */
struct step_blocks {
	struct dist_stream stream;          /* REDUCE_STREAM, accumulate: boxes
					       across the axes kept, walked along the others */
	struct dist_layout split;           /* elementwise, REDUCE_CHAIN: the boxes of its
					       index space */
	int64_t whole_limit;                /* elementwise: an input that broadcasts is held
					       whole up to this many bytes, else read by boxes */
	bool in_runs[RECIPE_MAXIN];         /* input K read as the runs of its chunks the
					       boxes cut, each rank alone (plan_layout.c's
					       plan_read_alone decides; check and --json say so) */
	bool by_columns;                    /* elementwise, one process: boxes that cut
					       the chunks walked a chunk column at a time
					       across them (elementwise_by_columns) */
	bool bands;                         /* elementwise hosting reductions, one process:
					       boxes of one chunk row, whose input's buffer
					       holds a band of chunk columns, not the box
					       (elementwise_band_bytes) */
	size_t chunk_cache[PLAN_MAXOUT];    /* elementwise, one process: bytes of chunk cache
					       that output K, written in place, keeps, paid
					       from this step's budget (plan_layout.c's
					       in_place_cache); a layout of the step pays anew */
};

/* One step of the plan: the call (its ufunc, operands, results, where
 * they go), then its parts, each read by the stages that need it. */
struct plan_step {
	int index;                          /* 1-based */
	const struct recipe_step *src;
	char where[512];                    /* "r.yaml:6:5: step 2 (ufunc add)" or "call add" */
	struct err_loc loc;                 /* ... as fields: the place of errors raised at WHERE */
	enum verb verb;
	const struct ufunc *uf;
	const struct ufunc_loop *loop;
	int nin, nout;
	struct array *in[RECIPE_MAXIN];     /* datasets read (for expressions: the names used) */
	struct shape bshape[RECIPE_MAXIN];  /* each input's shape as it broadcasts */
	struct array *out[PLAN_MAXOUT];     /* where the results go */
	enum dtype out_dtype[PLAN_MAXOUT];  /* the result's dtypes */
	enum casting casting;
	bool decoded;                       /* reads (and writes) datasets through their
					       CF coding: not missing: raw */
	bool print;                         /* the outputs go to stdout */
	struct shape shape;                 /* of the result */
	struct dims *dims;                  /* ... and the names of its axes, NULL: unnamed */
	struct units units[PLAN_MAXOUT];    /* the results' units (units: propagate) */
	struct cfdesc desc;                 /* ... and what CF says they are (cfdesc.h) */
	bool units_off;                     /* units: off */
	struct step_program prog;           /* elementwise: its ops */
	struct step_fusion fused;           /* what fusion made of it */
	struct step_mask mask;              /* where= and masks */
	struct step_blocks blocks;          /* its boxes */
	struct step_fold fold;              /* reduce, accumulate, reduceat */
	struct contract *contract;          /* a generalized ufunc's step (contract.h), else NULL */
	struct reduceat_plan *reduceat;     /* reduceat: its segments and blocks */
	struct at_plan *at;                 /* at: its indices and rounds */
};

/* Buckets of the datasets' arrays (struct plan's named): a power of two. */
#define PLAN_DATASET_BUCKETS 1024

/* An array of the plan that names a dataset, and the next of its bucket
 * (an index into the plan's named, plus one; 0: none). */
struct plan_named {
	struct array *array;
	int next;
};

struct plan {
	struct arena *arena;
	int nfiles;
	struct plan_file *files[PLAN_MAXFILES];
	int narrays;
	struct array *arrays[PLAN_MAXARRAYS];
	/* the arrays that name datasets (every ARR_DATASET array, as it is
	 * made), hashed by file and path, the latest first in each bucket:
	 * plan_dataset_next looks at one dataset's arrays without walking
	 * all the plan's */
	int nnamed;
	struct plan_named named[PLAN_MAXARRAYS];
	int dataset_bucket[PLAN_DATASET_BUCKETS];   /* 0: empty, else an index into named plus one */
	int nsteps;
	struct plan_step *steps;
	const char *command;                /* "run", "call", ... */
	const char *token;                  /* the run's (tmpfiles.h), the same on every rank */
};

struct plan_options {
	size_t memory;                      /* per-rank budget in bytes */
	bool overwrite;                     /* --overwrite */
	int nranks;
	bool check_only;                    /* h5ufunc check: at's index datasets are not read,
					       journals are looked at, not rolled back */
	const char *command;                /* one-liner name ("call"), NULL for recipes */
	const char *token;                  /* the same on every rank: names temporary files */
	bool quiet;                         /* -q: no note when one is rolled back */
	bool risk_partial_writes;           /* --risk-partial-writes: no journals */
};

/* A walk over the arrays of P that name dataset PATH of F, the latest
 * first (arrays.c):
 *	struct plan_dataset_walk w = plan_dataset_walk(p, f, path);
 *	for (struct array *y; (y = plan_dataset_next(&w));)
 */
struct plan_dataset_walk {
	const struct plan *p;
	const struct plan_file *f;
	const char *path;
	int at;   /* the next to look at: an index into P's named plus one; 0: none */
};
struct plan_dataset_walk plan_dataset_walk(const struct plan *p, const struct plan_file *f,
					   const char *path);
/* The next array of W's dataset; NULL after the last. */
struct array *plan_dataset_next(struct plan_dataset_walk *w);

/* Check R against the files and build P (allocated from A).  Collective
 * under MPI (files are opened); every rank must call it.  Files are closed
 * again before it returns.  Errors have status EXIT_USAGE.  An existing
 * file that an interrupted run left unfinished is rolled back before it is
 * opened (journal.h), unless O says check_only. */
int plan_build(const struct recipe *r, const struct plan_options *o,
	       struct arena *a, struct plan *p, struct err *e);

/* Does S write a packed output whose scale_factor and add_offset come
 * from its results' range (pack: TYPE)?  Such a step runs twice, the first
 * time writing nothing (exec.c), and is fused with no other. */
static inline bool plan_step_ranged(const struct plan_step *s)
{
	for (int k = 0; k < s->nout; k++)
		if (s->out[k] && s->out[k]->coding && s->out[k]->coding->from_range)
			return true;
	return false;
}

/* S's number as the recipe has it, which messages, the plan and --json
 * give: the steps an expression is split into where it calls a
 * generalized ufunc share its number (INDEX counts them apart). */
static inline int plan_step_number(const struct plan_step *s)
{
	return s->src && s->src->number ? s->src->number : s->index;
}

/* What a run does with an array, as `check` and --json name it. */
enum plan_fate {
	FATE_READ,           /* a dataset that is there and is only read */
	FATE_LITERAL,
	FATE_INTERMEDIATE,   /* a named intermediate, not written to a file */
	FATE_IN_PLACE,       /* an existing dataset written into */
	FATE_REPLACED,       /* a new dataset in place of another of its path: an
				existing one (overwrite) or an earlier step's */
	FATE_NEW_FILE,       /* a new dataset of a file the run creates */
	FATE_NEW_DATASET     /* a new dataset of an existing file */
};
/* X's fate, before the run or after it. */
enum plan_fate plan_array_fate(const struct array *x);
/* The plan in words, for `h5ufunc check`. */
void plan_print(const struct plan *p, FILE *f);
/* Step S of P's line of plan_print, newline included: its verb, loop and
 * casting, and how its pass is cut (or the step it is fused into). */
void plan_print_step(const struct plan *p, const struct plan_step *s, FILE *f);

#endif
