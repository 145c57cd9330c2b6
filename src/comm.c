/* comm.c - MPI when launched or asked for; a single rank otherwise. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"

/* A sanitizer build (make SANITIZE=1) leaves MPI's own memory out of the
 * leak check: what MPI_Init allocates is ignored, and the check runs just
 * before MPI_Finalize, while what MPI keeps for the process is still
 * reachable and its components still loaded (tests/lsan.supp names them);
 * h5ufunc's own leaks are found there as anywhere. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LEAKS_IGNORE_BEGIN() __lsan_disable()
#define LEAKS_IGNORE_END() __lsan_enable()
#define LEAKS_CHECK_NOW() __lsan_do_leak_check()
#else
#define LEAKS_IGNORE_BEGIN() ((void)0)
#define LEAKS_IGNORE_END() ((void)0)
#define LEAKS_CHECK_NOW() ((void)0)
#endif

static bool use_mpi;
static int my_rank, n_ranks = 1;

bool comm_launched(void)
{
	static const char *const vars[] = {
		"OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMI_SIZE", "PMIX_RANK",
		"SLURM_PROCID", "MPI_LOCALNRANKS", "HYDRA_CONTROL_FD", NULL
	};
	for (int i = 0; vars[i]; i++)
		if (getenv(vars[i]))
			return true;
	return false;
}

int comm_init(bool want, int *argc, char ***argv, struct err *e)
{
	if (!want)
		return 0;
	/* Ranks waiting in a collective give up the core instead of spinning:
	 * ranks often share cores with each other and with HDF5's work. */
	setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
	LEAKS_IGNORE_BEGIN();
	int rc = MPI_Init(argc, argv);
	LEAKS_IGNORE_END();
	if (rc != MPI_SUCCESS)
		return err_set(e, EXIT_RUN, "mpi", "MPI_Init failed");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n_ranks);
	use_mpi = true;
	return 0;
}

void comm_finalize(void)
{
	if (use_mpi) {
		LEAKS_CHECK_NOW();
		MPI_Finalize();
	}
	use_mpi = false;
}

bool comm_mpi(void) { return use_mpi; }
int comm_rank(void) { return my_rank; }
int comm_size(void) { return n_ranks; }

int comm_agree(struct err *e)
{
	if (!use_mpi)
		return e->status ? -1 : 0;
	int mine = e->status ? my_rank : n_ranks, first;
	MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (first == n_ranks)
		return 0;
	MPI_Bcast(e, (int)sizeof *e, MPI_BYTE, first, MPI_COMM_WORLD);
	return -1;
}

void comm_bcast(void *buf, size_t n)
{
	if (use_mpi)
		MPI_Bcast(buf, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
}

void comm_bcast_buffer(char **p, size_t *n)
{
	if (!use_mpi)
		return;
	uint64_t len = *n;
	MPI_Bcast(&len, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	if (my_rank) {
		*p = malloc(len + 1);
		if (!*p)
			abort();
		(*p)[len] = '\0';
		*n = len;
	}
	for (uint64_t done = 0; done < len;) {
		uint64_t k = len - done > (1u << 30) ? (1u << 30) : len - done;
		MPI_Bcast(*p + done, (int)k, MPI_BYTE, 0, MPI_COMM_WORLD);
		done += k;
	}
}

int64_t comm_max(int64_t v)
{
	if (!use_mpi)
		return v;
	int64_t r;
	MPI_Allreduce(&v, &r, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
	return r;
}

void comm_barrier(void)
{
	if (use_mpi)
		MPI_Barrier(MPI_COMM_WORLD);
}

void comm_or_to_root(void *buf, size_t n)
{
	if (!use_mpi || n == 0)
		return;
	/* In pieces: MPI counts are ints. */
	for (size_t done = 0; done < n;) {
		int part = n - done > (size_t)1 << 30 ? 1 << 30 : (int)(n - done);
		char *p = (char *)buf + done;
		MPI_Reduce(my_rank == 0 ? MPI_IN_PLACE : p, p, part, MPI_BYTE, MPI_BOR, 0,
			   MPI_COMM_WORLD);
		done += (size_t)part;
	}
}

void comm_gather(const void *buf, size_t n, void *out)
{
	if (!use_mpi) {
		if (n)
			memmove(out, buf, n);
		return;
	}
	int count = (int)n;
	int *counts = NULL, *displs = NULL;
	if (my_rank == 0) {
		counts = malloc(sizeof *counts * (size_t)n_ranks);
		displs = malloc(sizeof *displs * (size_t)n_ranks);
		if (!counts || !displs)
			abort();
	}
	MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (my_rank == 0)
		for (int r = 0, d = 0; r < n_ranks; r++) {
			displs[r] = d;
			d += counts[r];
		}
	MPI_Gatherv(buf, count, MPI_BYTE, out, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
	free(counts);
	free(displs);
}

#define COMM_PIECE ((size_t)1 << 30)

void comm_send(const void *buf, size_t n, int peer)
{
	for (size_t done = 0; use_mpi && done < n; done += COMM_PIECE) {
		size_t k = n - done < COMM_PIECE ? n - done : COMM_PIECE;
		MPI_Send((const char *)buf + done, (int)k, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
	}
}

void comm_recv(void *buf, size_t n, int peer)
{
	for (size_t done = 0; use_mpi && done < n; done += COMM_PIECE) {
		size_t k = n - done < COMM_PIECE ? n - done : COMM_PIECE;
		MPI_Recv((char *)buf + done, (int)k, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
}
