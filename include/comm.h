/* comm.h - the ranks of a run, and agreement between them.
 *
 * Hides whether MPI is initialised: without a launcher (and without --mpi)
 * h5ufunc is one process that never calls MPI, and every function here is
 * then a cheap no-op with rank 0 of 1.  Every phase of a command ends with
 * comm_agree(), so that no rank enters a collective call alone.
 */
#ifndef H5UFUNC_COMM_H
#define H5UFUNC_COMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* True when a launcher (mpirun, srun, ...) started this process. */
bool comm_launched(void);
/* Initialise MPI when USE_MPI; otherwise run as rank 0 of 1.  Under Open
 * MPI, first makes the choices the user has not made (environment, Open
 * MPI's parameter files): ROMIO for MPI-IO, and the ob1 pml alone when
 * every rank is on this node. */
int comm_init(bool use_mpi, int *argc, char ***argv, struct err *e);
void comm_finalize(void);
bool comm_mpi(void);
int comm_rank(void);
int comm_size(void);
/* Collective: returns 0 when every rank's E is clear; otherwise -1 on every
 * rank, with E on every rank holding the record of the lowest failing rank.
 * The check given to comm_on_agree runs on each rank first. */
int comm_agree(struct err *e);
/* Not collective, under MPI only: this rank left a collective call that
 * the other ranks wait in (an HDF5 collective write that failed on it
 * before its MPI-IO part), so no agreement can reach them: print E's
 * message from this rank and end every rank with MPI_Abort, exit status
 * E's.  Without MPI it returns, and the caller goes on with its error. */
void comm_abort(const struct err *e);
/* CHECK(E) runs at the start of every comm_agree and may set E: how a
 * stop asked for by a signal reaches every rank (interrupt.h). */
void comm_on_agree(void (*check)(struct err *e));
/* Collective: the largest of every rank's V. */
int64_t comm_max(int64_t v);
/* Collective broadcast of N bytes from rank 0. */
void comm_bcast(void *buf, size_t n);
/* Collective: rank 0's *P, a malloc'd buffer of *N bytes, sent to all
 * (others receive a new malloc'd buffer). */
void comm_bcast_buffer(char **p, size_t *n);
void comm_barrier(void);
/* Collective: gather N bytes from each rank to rank 0, in rank order, into
 * OUT (rank 0 only; at least the sum of all N). */
void comm_gather(const void *buf, size_t n, void *out);
/* Collective: N bytes of BUF on rank 0 become the bitwise OR of every
 * rank's BUF (a result each rank holds part of, zeros elsewhere). */
void comm_or_to_root(void *buf, size_t n);
/* FOLD(LEFT, RIGHT, N, CTX): RIGHT[i] = LEFT[i] op RIGHT[i] for i < N, the
 * values of LEFT coming first in the order of the ranks. */
typedef void (*comm_fold_fn)(const void *left, void *right, size_t n, const void *ctx);
/* Collective: on rank 0, BUF (N values of SIZE bytes each) becomes every
 * rank's BUF combined by FOLD in rank order; the others' BUF is left as it
 * was.  An MPI reduction with an op that is not commutative, so MPI keeps
 * the rank order while it groups as it likes: FOLD must be associative,
 * and the work grows as log P. */
void comm_fold_to_root(void *buf, int64_t n, int size, comm_fold_fn fold, const void *ctx);
/* Collective: on rank R > 0, BUF becomes the BUFs of ranks 0 to R - 1
 * combined by FOLD in rank order (an exclusive scan, in ceil(log2 P)
 * exchanges between pairs of ranks), leaving out those of ranks that say
 * EMPTY (their BUF is never read: it may hold anything).  Returns whether
 * BUF became such a fold; when no rank before R holds a value (and on
 * rank 0, and without MPI) BUF is left as it was and false returned. */
bool comm_fold_before(void *buf, int64_t n, int size, bool empty, comm_fold_fn fold,
		      const void *ctx);
/* Collective: SEND holds SEND_BYTES[r] bytes for each rank r in turn; RECV
 * gets, in rank order, what every rank sends this one (RECV_BYTES[r] from
 * rank r), and must have room for all of it.  Each rank's part is under
 * 2 GiB, and so is all it receives (MPI's int counts). */
void comm_alltoallv(const void *send, const int64_t *send_bytes, void *recv, int64_t *recv_bytes);
/* Point to point: N bytes to or from rank PEER. */
void comm_send(const void *buf, size_t n, int peer);
void comm_recv(void *buf, size_t n, int peer);

#endif
