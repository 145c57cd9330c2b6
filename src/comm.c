/* comm.c - MPI when launched or asked for; a single rank otherwise. */
#include <fcntl.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* What the launcher that started this process says about it, read from the
 * environment before MPI starts: how many tasks it started together
 * (TASKS, 1 when it does not say), the rank it gave this one (RANK), and
 * the variables that say so (TASKS_VAR, RANK_VAR; NULL when none).  The
 * innermost launcher speaks first: mpirun inside a SLURM job sets
 * OMPI_COMM_WORLD_SIZE for its ranks over the job's SLURM_* variables.
 * SLURM sets SLURM_STEP_NUM_TASKS in the tasks of a step (srun) only; a
 * batch script, which is no task of a step, has the job's SLURM_NTASKS and
 * SLURM_PROCID=0 but no SLURM_STEP_* at all. */
struct launch {
	long tasks, rank;
	const char *tasks_var, *rank_var;
	char tasks_text[32], rank_text[32];
};

static void launch_read(struct launch *l)
{
	static const char *const layers[][2] = {
		{ "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK" },   /* Open MPI's mpirun */
		{ "PMI_SIZE", "PMI_RANK" },                           /* PMI-1/2: MPICH, srun --mpi=pmi2 */
		{ "SLURM_STEP_NUM_TASKS", "SLURM_PROCID" },           /* a task of a SLURM step */
	};
	memset(l, 0, sizeof *l);
	l->tasks = 1;
	for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++) {
		const char *size = getenv(layers[i][0]), *rank = getenv(layers[i][1]);
		if (!size && !(rank && atol(rank) > 0))
			continue;
		if (size) {
			l->tasks = atol(size);
			l->tasks_var = layers[i][0];
			snprintf(l->tasks_text, sizeof l->tasks_text, "%s", size);
		}
		if (rank) {
			l->rank = atol(rank);
			l->rank_var = layers[i][1];
			snprintf(l->rank_text, sizeof l->rank_text, "%s", rank);
			if (l->rank + 1 > l->tasks)
				l->tasks = l->rank + 1;
		}
		return;
	}
}

/* "SLURM_STEP_NUM_TASKS=4", or "SLURM_PROCID=1" when only the rank says
 * that this process is one of several. */
static const char *launch_evidence(const struct launch *l, char *buf, size_t len)
{
	if (l->tasks_var && atol(l->tasks_text) == l->tasks)
		snprintf(buf, len, "%s=%s", l->tasks_var, l->tasks_text);
	else
		snprintf(buf, len, "%s=%s", l->rank_var, l->rank_text);
	return buf;
}

/* The refusal of a process that the launcher started as one of several
 * tasks but that MPI would run alone: each task would do the whole work and
 * write whole files over each other.  Said once, by the task the launcher
 * gave rank 0 (every task is rank 0 of its own world here), unless no
 * launcher said how many tasks it started (then no task 0 may exist).
 * MPI, if started, is finalised: comm_rank() is then the launcher's rank,
 * for the choice of who prints, and nothing collective follows. */
static int refuse_alone(const struct launch *l, bool mpi_started, struct err *e)
{
	char evidence[96];
	launch_evidence(l, evidence, sizeof evidence);
	comm_finalize();   /* a world of one: nothing to agree on */
	if (l->tasks_var)
		my_rank = (int)l->rank;
	const char *srun = getenv("SLURM_STEP_NUM_TASKS") ? "srun --mpi=pmix (or MpiDefault=pmix in slurm.conf)"
			 : "the launcher of this MPI (mpirun, or srun --mpi=pmix)";
	if (!mpi_started) {
		const char *type = getenv("SLURM_MPI_TYPE");
		return err_set(e, EXIT_USAGE, "mpi",
			       "srun started this process as one of %ld tasks (%s) with %s%s, "
			       "which this Open MPI cannot join into one job: run it with %s",
			       l->tasks, evidence, type ? "--mpi=" : "no MPI plugin",
			       type ? type : "", srun);
	}
	return err_set(e, EXIT_USAGE, "mpi",
		       "the launcher started this process as one of %ld tasks (%s), but MPI runs it "
		       "alone, so every task would do the whole work: start it with %s",
		       l->tasks, evidence, srun);
}

#ifdef H5UFUNC_OMPI_SYSCONFDIR
/* The value parameter file PATH (Open MPI's mca-params.conf: "NAME =
 * VALUE" lines, '#' comments) gives NAME, into VALUE (LEN bytes); false
 * when it gives none (or there is no such file). */
static bool file_value(const char *path, const char *name, char *value, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	char line[1024];
	bool found = false;
	size_t namelen = strlen(name);
	while (!found && fgets(line, sizeof line, f)) {
		const char *p = line + strspn(line, " \t");
		size_t n = strcspn(p, " \t=#\n");
		if (n != namelen || strncmp(p, name, n))
			continue;
		p += n + strspn(p + n, " \t");
		if (*p != '=')
			continue;
		p += 1 + strspn(p + 1, " \t");
		snprintf(value, len, "%.*s", (int)strcspn(p, " \t\n"), p);
		found = true;
	}
	fclose(f);
	return found;
}

/* Has the user chosen Open MPI's parameter NAME: OMPI_MCA_NAME (what
 * mpirun's --mca NAME passes its ranks), or a NAME line in one of the
 * user's parameter files (those OMPI_MCA_mca_base_param_files names, else
 * ~/.openmpi/mca-params.conf)?  SYSTEM gets the value of the
 * installation's own file (sysconfdir/openmpi-mca-params.conf, read unless
 * OMPI_MCA_mca_base_param_files names others), "" when it gives none. */
static bool mca_chosen(const char *name, char *system, size_t len)
{
	char var[64], list[4096];
	*system = '\0';
	snprintf(var, sizeof var, "OMPI_MCA_%s", name);
	if (getenv(var))
		return true;
	const char *files = getenv("OMPI_MCA_mca_base_param_files");
	const char *home = getenv("HOME");
	if (files)
		snprintf(list, sizeof list, "%s", files);
	else
		snprintf(list, sizeof list, "%s/.openmpi/mca-params.conf", home ? home : "");
	for (char *save = NULL, *path = strtok_r(list, ":", &save); path;
	     path = strtok_r(NULL, ":", &save))
		if (file_value(path, name, system, len))
			return true;
	*system = '\0';
	if (!files)
		file_value(H5UFUNC_OMPI_SYSCONFDIR "/openmpi-mca-params.conf", name, system, len);
	return false;
}

/* Open MPI's choices that h5ufunc makes where the user has not. */
static void ompi_defaults(void)
{
	char system[256];
	/* ROMIO rather than OMPIO for MPI-IO: on chunked datasets OMPIO reads
	 * spans around each rank's chunks (about twice the bytes) and copies
	 * them again, in system time, so 2 ranks were slower than 1 process;
	 * ROMIO reads what is asked for.  "^ompio" takes whichever ROMIO this
	 * Open MPI has.  An io line in the installation's file counts as a
	 * choice too. */
#ifdef H5UFUNC_OMPI_ROMIO
	if (!mca_chosen("io", system, sizeof system) && !*system)
		setenv("OMPI_MCA_io", "^ompio", 1);
#endif
	/* Ranks all on this node (mpirun says so; or no launcher at all):
	 * point-to-point goes through ob1's shared memory, and the other
	 * pml's network libraries only cost time at MPI_Init (PSM and PSM2,
	 * probing for their adapters, 0.1 s each where there is none).  Left
	 * alone when the user chose a pml or an mtl, or the installation's
	 * file requires a pml (rather than excluding some, not ob1). */
	const char *size = getenv("OMPI_COMM_WORLD_SIZE"), *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
	bool one_node = size ? local && !strcmp(size, local) : !comm_launched();
	char mtl[256];
	if (one_node && !mca_chosen("mtl", mtl, sizeof mtl) && !mca_chosen("pml", system, sizeof system) &&
	    (!*system || (*system == '^' && !strstr(system, "ob1"))))
		setenv("OMPI_MCA_pml", "ob1", 1);
}
#endif

/* Under Open MPI's mpirun, rank 0's standard output is a pipe or a
 * pseudo-terminal that mpirun copies to its own, and mpirun drops a write
 * that fails there (a full disk, /dev/full): a --json summary or a result
 * would be lost with exit status 0.  Rank 0 started by mpirun on mpirun's
 * own node (its parent) writes to mpirun's standard output itself
 * instead, reopened through /proc, so that a failed write is its own and
 * fails the run as it does on one process; a regular file is appended to,
 * as mpirun's copies would be.  Elsewhere (a rank under a remote daemon,
 * srun, output that cannot be reopened: a socket) mpirun's copy stays. */
static void own_launcher_stdout(void)
{
	static const char *const launchers[] = { "mpirun", "mpiexec", "orterun", "prterun", NULL };
	if (!getenv("OMPI_COMM_WORLD_SIZE"))
		return;
	char path[64], name[64] = "";
	pid_t parent = getppid();
	snprintf(path, sizeof path, "/proc/%ld/comm", (long)parent);
	FILE *f = fopen(path, "r");
	if (f) {
		if (!fgets(name, sizeof name, f))
			name[0] = '\0';
		fclose(f);
	}
	name[strcspn(name, "\n")] = '\0';
	int known = 0;
	for (int i = 0; launchers[i] && !known; i++)
		known = !strcmp(name, launchers[i]);
	struct stat mine, theirs;
	snprintf(path, sizeof path, "/proc/%ld/fd/1", (long)parent);
	if (!known || fstat(STDOUT_FILENO, &mine) != 0 || !(S_ISFIFO(mine.st_mode) || isatty(STDOUT_FILENO)) ||
	    stat(path, &theirs) != 0 || (theirs.st_dev == mine.st_dev && theirs.st_ino == mine.st_ino))
		return;
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | (S_ISREG(theirs.st_mode) ? O_APPEND : 0));
	if (fd < 0)
		return;
	fflush(stdout);
	dup2(fd, STDOUT_FILENO);
	close(fd);
}

int comm_init(bool want, int *argc, char ***argv, struct err *e)
{
	if (!want)
		return 0;
	struct launch l;
	launch_read(&l);
#ifdef OPEN_MPI
	/* srun's tasks join one Open MPI job only through PMIx (srun --mpi=pmix):
	 * with another plugin or none, Open MPI's MPI_Init aborts every task
	 * with a page of text about building Open MPI. */
	const char *step_tasks = getenv("SLURM_STEP_NUM_TASKS");
	if (step_tasks && atol(step_tasks) > 1 && !getenv("PMIX_RANK") &&
	    !getenv("OMPI_COMM_WORLD_SIZE")) {
		l.tasks = atol(step_tasks);
		l.tasks_var = "SLURM_STEP_NUM_TASKS";
		snprintf(l.tasks_text, sizeof l.tasks_text, "%s", step_tasks);
		const char *rank = getenv("SLURM_PROCID");
		l.rank = rank ? atol(rank) : 0;
		return refuse_alone(&l, false, e);
	}
#endif
	/* Ranks waiting in a collective give up the core instead of spinning:
	 * ranks often share cores with each other and with HDF5's work. */
	setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
#ifdef H5UFUNC_OMPI_SYSCONFDIR
	ompi_defaults();
#endif
	LEAKS_IGNORE_BEGIN();
	int rc = MPI_Init(argc, argv);
	LEAKS_IGNORE_END();
	if (rc != MPI_SUCCESS)
		return err_set(e, EXIT_RUN, "mpi", "MPI_Init failed");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n_ranks);
	use_mpi = true;
	if (n_ranks == 1 && l.tasks > 1)
		return refuse_alone(&l, true, e);
	if (my_rank == 0)
		own_launcher_stdout();
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

static void (*agree_check)(struct err *e);

void comm_on_agree(void (*check)(struct err *e))
{
	agree_check = check;
}

int comm_agree(struct err *e)
{
	if (agree_check)
		agree_check(e);
	if (!use_mpi)
		return e->status ? -1 : 0;
	int mine = e->status ? my_rank : n_ranks, first;
	MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (first == n_ranks)
		return 0;
	/* The record is plain bytes: status, message and place. */
	MPI_Bcast(e, (int)sizeof *e, MPI_BYTE, first, MPI_COMM_WORLD);
	return -1;
}

void comm_abort(const struct err *e)
{
	if (!use_mpi)
		return;
	err_print(e);
	fflush(stderr);
	MPI_Abort(MPI_COMM_WORLD, e->status);
	abort();   /* MPI_Abort does not return */
}

int64_t comm_max(int64_t v)
{
	int64_t most = v;
	if (use_mpi)
		MPI_Allreduce(&v, &most, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
	return most;
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

/* The fold an ordered reduction runs, set around the MPI call that runs
 * it (MPI's op takes no argument of its own). */
static struct {
	comm_fold_fn fn;
	const void *ctx;
} folding;

/* MPI's user op: INOUT = IN op INOUT, IN from the lower ranks. */
static void fold_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
	(void)type;
	folding.fn(in, inout, (size_t)*len, folding.ctx);
}

#define COMM_PIECE ((size_t)1 << 30)

/* On rank 0, BUF becomes every rank's BUF folded in rank order: MPI_Reduce
 * in pieces of at most COMM_PIECE bytes (MPI counts are ints), each value
 * one element of a contiguous type, so MPI never splits one. */
void comm_fold_to_root(void *buf, int64_t n, int size, comm_fold_fn fold, const void *ctx)
{
	if (!use_mpi || n <= 0 || size <= 0)
		return;
	MPI_Datatype type;
	MPI_Op op;
	MPI_Type_contiguous(size, MPI_BYTE, &type);
	MPI_Type_commit(&type);
	MPI_Op_create(fold_op, 0, &op);   /* not commutative: rank order kept */
	folding.fn = fold;
	folding.ctx = ctx;
	int64_t most = (int64_t)COMM_PIECE / size > 0 ? (int64_t)COMM_PIECE / size : 1;
	for (int64_t done = 0; done < n; done += most) {
		int k = (int)(n - done < most ? n - done : most);
		char *p = (char *)buf + done * size;
		MPI_Reduce(my_rank == 0 ? MPI_IN_PLACE : p, p, k, type, op, 0, MPI_COMM_WORLD);
	}
	folding.fn = NULL;
	folding.ctx = NULL;
	MPI_Op_free(&op);
	MPI_Type_free(&type);
}

/* N bytes of OUT to, and of IN from, rank PEER at once. */
static void exchange(const char *out, char *in, size_t n, int peer)
{
	for (size_t done = 0; done < n; done += COMM_PIECE) {
		int k = (int)(n - done < COMM_PIECE ? n - done : COMM_PIECE);
		MPI_Sendrecv(out + done, k, MPI_BYTE, peer, 1, in + done, k, MPI_BYTE, peer, 1,
			     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
}

/* An exclusive scan by recursive doubling (MPICH's): at step k each rank
 * swaps with rank ^ 2**k the fold of its aligned block of 2**k ranks, so
 * ceil(log2 P) steps whatever the MPI; Open MPI's MPI_Exscan is a chain
 * of P - 1 messages one after the other.  A block from lower ranks folds
 * on the left, so the rank order holds.  Each block travels with one byte
 * more, whether it holds a value: a block of empty ranks only passes the
 * others' through. */
bool comm_fold_before(void *buf, int64_t n, int size, bool empty, comm_fold_fn fold,
		      const void *ctx)
{
	if (!use_mpi || n <= 0 || size <= 0 || n_ranks < 2)
		return false;
	size_t bytes = (size_t)n * (size_t)size;
	char *block = malloc(bytes + 1), *got = malloc(bytes + 1);   /* my block's fold; a partner's */
	if (!block || !got)
		abort();
	if (empty)
		memset(block, 0, bytes);
	else
		memcpy(block, buf, bytes);
	block[bytes] = !empty;   /* does BLOCK hold a value */
	bool any = false;   /* does BUF hold a fold of lower ranks yet */
	for (int mask = 1; mask < n_ranks; mask <<= 1) {
		int peer = my_rank ^ mask;
		if (peer >= n_ranks)
			continue;
		exchange(block, got, bytes + 1, peer);
		if (!got[bytes])
			continue;   /* the peer's block is empty: nothing to fold */
		if (peer < my_rank) {   /* GOT: the ranks just below my block */
			if (block[bytes])
				fold(got, block, (size_t)n, ctx);
			else
				memcpy(block, got, bytes + 1);
			if (any)
				fold(got, buf, (size_t)n, ctx);
			else
				memcpy(buf, got, bytes);
			any = true;
		} else if (block[bytes]) {   /* GOT: the ranks just above: BLOCK op GOT */
			fold(block, got, (size_t)n, ctx);
			memcpy(block, got, bytes);
		} else {
			memcpy(block, got, bytes + 1);
		}
	}
	free(block);
	free(got);
	return any;
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

void comm_alltoallv(const void *send, const int64_t *send_bytes, void *recv, int64_t *recv_bytes)
{
	if (!use_mpi) {
		memmove(recv, send, (size_t)send_bytes[0]);
		recv_bytes[0] = send_bytes[0];
		return;
	}
	MPI_Alltoall(send_bytes, 1, MPI_INT64_T, recv_bytes, 1, MPI_INT64_T, MPI_COMM_WORLD);
	int *sc = malloc(sizeof *sc * 4 * (size_t)n_ranks);
	if (!sc)
		abort();
	int *sd = sc + n_ranks, *rc = sd + n_ranks, *rd = rc + n_ranks;
	for (int r = 0, so = 0, ro = 0; r < n_ranks; r++) {
		sc[r] = (int)send_bytes[r];
		rc[r] = (int)recv_bytes[r];
		sd[r] = so;
		rd[r] = ro;
		so += sc[r];
		ro += rc[r];
	}
	MPI_Alltoallv(send, sc, sd, MPI_BYTE, recv, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
	free(sc);
}

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
