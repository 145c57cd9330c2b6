#!/usr/bin/env bats
# 61-ranks.bats - many ranks with no shared memory: Open MPI's TCP transport
# only (--mca pml ob1 --mca btl tcp,self, on the loopback interface), on 2,
# 3 and 4 ranks and on 8, 16 and 32 ranks oversubscribing the cores, on
# arrays smaller than the ranks (13 rows, 7 columns, chunks of 4 x 3).  A
# recipe with every kind of step (tests/ranks_ref.py) writes the same bytes
# as one process, which NumPy checks; errors come out once with the same
# exit status on every rank; processes a launcher started as several tasks
# that MPI would run alone are refused; and the per-rank counts of --json
# match the scale model of h5ufunc(1), SCALING.  Every mpirun runs under a
# timeout, so a hang fails the test.

load helper

TCP=(--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo)

setup_file() {
	ref make "$BATS_FILE_TMPDIR"
	mkdir "$BATS_FILE_TMPDIR/one"
	cp "$BATS_FILE_TMPDIR/in.h5" "$BATS_FILE_TMPDIR/rep.yaml" "$BATS_FILE_TMPDIR/one/"
	(cd "$BATS_FILE_TMPDIR/one" && h5u run --no-history rep.yaml)
}

REF=ranks_ref.py

# same_as_one_process P...: run rep.yaml on each P over TCP in its own
# directory, and compare the files it writes with one process's: out.h5 byte
# for byte; in.h5 (an in-place write into gzip chunks) and gz.h5 (a gzip
# output) chunk by chunk, as stored: compressed chunks have the same bytes,
# but where HDF5 places each in the file depends on the order of the writes.
same_as_one_process() {
	local n
	for n in "$@"; do
		mkdir "p$n"
		cp "$BATS_FILE_TMPDIR/in.h5" "$BATS_FILE_TMPDIR/rep.yaml" "p$n/"
		(cd "p$n" && mpi "$n" "${TCP[@]}" h5ufunc run --no-history rep.yaml) ||
			fail "$n ranks over TCP: exit status $?"
		cmp "$BATS_FILE_TMPDIR/one/out.h5" "p$n/out.h5" || fail "$n ranks: out.h5 differs from one process's"
		ref chunks "$BATS_FILE_TMPDIR/one/in.h5" "p$n/in.h5" || fail "$n ranks: in.h5 differs"
		ref chunks "$BATS_FILE_TMPDIR/one/gz.h5" "p$n/gz.h5" || fail "$n ranks: gz.h5 differs"
	done
}

@test "one process: every kind of step matches NumPy" {
	run ref check "$BATS_FILE_TMPDIR/in.h5" "$BATS_FILE_TMPDIR/one"
	assert_success
}

@test "TCP only, 2, 3 and 4 ranks: the same bytes as one process" {
	same_as_one_process 2 3 4
}

@test "TCP only, 8, 16 and 32 ranks on 13 rows: the same bytes as one process" {
	same_as_one_process 8 16 32
}

# statuses N CMD...: run CMD on N ranks over TCP, each rank writing its exit
# status to status.RANK; prints the distinct statuses.
statuses() {
	local n=$1
	shift
	mpi "$n" "${TCP[@]}" sh -c '"$@"; echo $? >"status.$OMPI_COMM_WORLD_RANK"' sh "$@"
	cat status.* | sort -u
	rm -f status.*
}

@test "32 ranks over TCP: a data error on the last rank's rows, exit 1 on every rank, said once" {
	np make e.h5:/x int64 40 fill=pos :: make e.h5:/p int64 40 data="[2]*39+[-1]"
	snapshot
	run --separate-stderr statuses 32 h5ufunc call power e.h5:/x e.h5:/p -o out.h5:/y
	assert_output 1
	run grep -c '^h5ufunc:' <<<"$stderr"
	assert_output 1
	[[ $stderr == *"Integers to negative integer powers are not allowed"* ]] || fail "stderr: $stderr"
	assert_unchanged
}

@test "32 ranks over TCP: a usage error, exit 2 on every rank, said once, nothing written" {
	np make e.h5:/x int64 40
	snapshot
	run --separate-stderr statuses 32 h5ufunc call add e.h5:/x e.h5:/missing -o out.h5:/y
	assert_output 2
	run grep -c '^h5ufunc:' <<<"$stderr"
	assert_output 1
	assert_unchanged
}

@test "a task of several that MPI runs alone is refused before any file is touched" {
	np make f.h5:/x float64 5
	snapshot
	run --separate-stderr env SLURM_NTASKS=2 SLURM_PROCID=1 h5ufunc call sqrt f.h5:/x --mpi -o f.h5:/x
	assert_error 2 "mpi: the launcher started this process as one of 2 tasks (SLURM_PROCID=1), but MPI runs it alone, so every task would do the whole work: start it with the launcher of this MPI (mpirun, or srun --mpi=pmix)"
	run --separate-stderr env PMI_SIZE=3 PMI_RANK=0 h5ufunc call sqrt f.h5:/x -o g.h5:/y
	assert_error 2 "mpi: the launcher started this process as one of 3 tasks (PMI_SIZE=3), but MPI runs it alone, so every task would do the whole work: start it with the launcher of this MPI (mpirun, or srun --mpi=pmix)"
	# srun's variables without PMIx: refused before MPI_Init could abort.
	run --separate-stderr env SLURM_STEP_NUM_TASKS=4 SLURM_PROCID=0 SLURM_MPI_TYPE=pmi2 \
		h5ufunc call sqrt f.h5:/x -o g.h5:/y
	assert_error 2 "mpi: srun started this process as one of 4 tasks (SLURM_STEP_NUM_TASKS=4) with --mpi=pmi2, which this Open MPI cannot join into one job: run it with srun --mpi=pmix (or MpiDefault=pmix in slurm.conf)"
	# Only the task SLURM numbered 0 says it.
	run --separate-stderr env SLURM_STEP_NUM_TASKS=4 SLURM_PROCID=2 h5ufunc call sqrt f.h5:/x -o g.h5:/y
	assert_failure 2
	assert_equal "$stderr" ""
	assert_unchanged
}

@test "a batch script's environment outside a step (SLURM_NTASKS=4, SLURM_PROCID=0) runs as one process" {
	np make f.h5:/x float64 5
	run --separate-stderr env SLURM_JOB_ID=7 SLURM_NTASKS=4 SLURM_NPROCS=4 SLURM_PROCID=0 \
		h5ufunc call sqrt f.h5:/x -o g.h5:/y
	assert_success
	np check sqrt f.h5:/x -o g.h5:/y
}

@test "--json per_rank: counts on 1, 2, 4, 8, 16, 32 ranks match the scale model of h5ufunc(1)" {
	np make w.h5:/a float64 64,32 :: make w.h5:/b float64 64,32
	local n
	for n in 1 2 4 8 16 32; do
		rm -f c.h5
		mpi "$n" "${TCP[@]}" h5ufunc eval -i a=w.h5:/a -i b=w.h5:/b \
			--memory 8K --json 'c.h5:/c = sqrt(a*a + b*b)' >"p$n.json" || fail "$n ranks: exit status $?"
	done
	np let aa multiply w.h5:/a w.h5:/a :: let bb multiply w.h5:/b w.h5:/b :: let s add aa bb :: \
		check sqrt s -o c.h5:/c
	run ref scale "$H5U_TESTS/../man/h5ufunc.1" p1.json p2.json p4.json p8.json p16.json p32.json
	assert_success
}
