/* contract.h - a generalized ufunc's step (matmul, vecdot, matvec,
 * vecmat): its planning, memory model and run.
 *
 * Each of the four is a contraction: for each index of the loop shape, C
 * = A @ B with A (n, k) and B (k, m), where an operand without a row or
 * column axis (a vector) has n or m of 1, and vecdot and vecmat conjugate
 * A.  The planner (gufunc.c) maps every axis of A, B and C to its role:
 * a loop axis (broadcast as NumPy, or by name), or the core's rows,
 * contraction or columns (by position, as axes= or axis= say).
 *
 * The work is a grid of cells and pieces (cells.h), whose grouping of
 * every sum depends on the shapes alone.  The space of result cells
 * (loop..., cells along n, cells along m) is laid out in boxes
 * (dist.h).  Either the boxes are dealt to the ranks and each rank sums
 * every piece of its cells (dealt), or every rank walks every box over its
 * own run of shards and the partial sums meet on rank 0 (shared: a
 * contraction much longer than its result, X.T @ X), whichever reads less
 * a rank.  A box's operands stream through in steps of pieces, so an
 * operand or result of any size goes through --memory; no rank reads a
 * whole operand that others need unless it is small beside the budget.
 * With missing values the product is numpy.ma's, np.ma.dot
 * (contract_mask.h).
 */
#ifndef H5UFUNC_CONTRACT_H
#define H5UFUNC_CONTRACT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cells.h"
#include "dist.h"
#include "err.h"
#include "gemm.h"
#include "plan.h"

/* What an axis of an operand or of the result is to the contraction. */
enum core_role { ROLE_LOOP, ROLE_ROW, ROLE_DEPTH, ROLE_COL };

struct contract_axes {
	int ndim;
	enum core_role role[H5U_MAXDIM];
	int loop[H5U_MAXDIM];   /* ROLE_LOOP: the loop shape's axis; -1 where the
				   operand's extent is 1 against a longer one */
};

struct contract {
	int nloop;
	int64_t loop[H5U_MAXDIM];     /* the loop shape */
	struct contract_axes a, b, c; /* the operands' axes, and the result's */
	bool conj;                    /* A conjugated (complex) */
	const struct cf_missing *missing[2];   /* masked mode: each operand's missing-value
						  tests (contract_mask.h) */
	struct cell_grid grid;
	struct gemm_plan gemm;
	/* the work split, from contract_layout */
	int nranks;
	bool shared;                  /* every rank walks every box over its shards */
	struct dist_layout boxes;     /* the cell space (loop..., ni, nj) */
	int64_t step;                 /* pieces a box reads at once */
	int64_t nsteps;               /* steps a box takes, on every rank */
	int buffers;                  /* partial sums a box holds (cell_tree_buffers) */
};

/* ---- the planner's stage (gufunc.c) ---- */

struct planner;
/* Plan S, a ufunc step of a generalized ufunc, with its options O: its
 * operands, loop, shapes and axes, NumPy's errors. */
int gufunc_plan(struct planner *pl, struct plan_step *s, const struct step_opts *o,
		struct err *e);

/* Masked mode of S, planned (O's missing: mask, or an operand that
 * declares missing values): np.ma.dot's rule, each operand's missing
 * elements read as its slabs are, and the epilogue's domain masks as an
 * elementwise step's. */
int gufunc_plan_missing(struct planner *pl, struct plan_step *s, const struct step_opts *o,
			struct err *e);

/* The name an epilogue's expression (a ufunc step's TREE) gives the
 * contraction's product: no recipe's name can be it. */
#define CONTRACT_RESULT "@"

/* R with every expression step that calls a generalized ufunc split into
 * a chain of steps (gufunc_steps.c), into OUT (allocated from A; OUT is
 * R itself when nothing calls one). */
int gufunc_split(const struct recipe *r, struct arena *a, struct recipe *out);

/* ---- the work split (contract_layout.c) and the run (contract.c) ---- */

/* Lay out S's work for NRANKS ranks within MEMORY bytes: every buffer
 * contract_run allocates.  Errors, at WHERE, when one cell does not fit. */
int contract_layout(struct plan_step *s, int nranks, int64_t memory, const char *where,
		    struct err *e);
/* Run S.  Collective. */
int contract_run(struct plan_step *s, struct err *e);
/* S's grid and split in words, the end of its line of `h5ufunc check`. */
void contract_print(const struct plan_step *s, FILE *f);

#endif
