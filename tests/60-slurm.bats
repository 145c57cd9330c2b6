#!/usr/bin/env bats
# 60-slurm.bats - h5ufunc under a real SLURM: a single-node cluster of its
# own (tests/slurm/cluster: munged, slurmctld and slurmd, every file under
# this file's temporary directory, stopped by PID at the end) runs
# `srun -n 2..4 h5ufunc` and `sbatch recipes/slurm-job.sh`, compared with
# one process and NumPy; srun with an MPI plugin Open MPI cannot join is
# refused with exit 2 before any file is touched; a one-liner in a batch
# script outside a step runs as one process; scancel stops a step that
# writes in place with the file as it was.  slurmd runs with an empty
# /sys/fs/cgroup where the system lets the cluster have a mount namespace
# of its own, as in a chroot or container: the cluster needs no cgroups.
# Where SLURM is not installed (make check installs it) every test is
# skipped, saying why.

load helper

REF=ranks_ref.py

REPO=$(cd "$H5U_TESTS/.." && pwd)

setup_file() {
	local reason rc=0
	reason=$("$H5U_TESTS/slurm/cluster" start "$BATS_FILE_TMPDIR/slurm" 32) || rc=$?
	if ((rc == 3)); then
		echo "$reason" >"$BATS_FILE_TMPDIR/no-slurm"
	elif ((rc != 0)); then
		echo "tests/slurm/cluster start failed ($rc)" >&2
		return 1
	fi
	ref make "$BATS_FILE_TMPDIR"
	/usr/bin/python3 "$REPO/tools/make-demo-data" "$BATS_FILE_TMPDIR/demo"
}

teardown_file() {
	"$H5U_TESTS/slurm/cluster" stop "$BATS_FILE_TMPDIR/slurm"
}

setup() {
	if [[ -f $BATS_FILE_TMPDIR/no-slurm ]]; then
		skip "$(cat "$BATS_FILE_TMPDIR/no-slurm")"
	fi
	export SLURM_CONF=$BATS_FILE_TMPDIR/slurm/slurm.conf
}

# A job step or a job that does not start within the time is a failure.
srun_() {
	timeout 120 srun "$@"
}

# batch_job SBATCH-ARGS...: submit a batch job and wait for it to end
# (polling every 0.1 s; sbatch --wait polls for seconds); exit 0 when it
# completed with status 0, else print its state.
batch_job() {
	local id state i
	id=$(sbatch --parsable "$@") || return 1
	for ((i = 0; i < 1200; i++)); do
		state=$(scontrol show job -o "$id" 2>/dev/null)
		[[ $state =~ JobState=(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) ]] && break
		sleep 0.1
	done
	[[ $state == *"JobState=COMPLETED"*"ExitCode=0:0"* ]] && return 0
	echo "job $id: ${state:-no state}"
	return 1
}

@test "the cluster needs no cgroups: slurmd and its tasks see an empty /sys/fs/cgroup" {
	[[ -f $BATS_FILE_TMPDIR/slurm/no-cgroups ]] ||
		skip "this system allows no mount namespace of the cluster's own (unshare -m), so slurmd runs with the host's cgroups"
	run ls -A "/proc/$(cat "$BATS_FILE_TMPDIR/slurm/slurmd.pid")/root/sys/fs/cgroup"
	assert_success
	assert_output ""
	run --separate-stderr srun_ -n 2 sh -c 'ls -A /sys/fs/cgroup | wc -l'
	assert_success
	assert_output $'0\n0'
}

@test "srun -n 2, 3, 4 (PMIx): every kind of step writes what one process writes" {
	mkdir one
	cp "$BATS_FILE_TMPDIR/in.h5" "$BATS_FILE_TMPDIR/rep.yaml" one/
	(cd one && h5u run --no-history rep.yaml) || fail "one process: exit status $?"
	run ref check "$BATS_FILE_TMPDIR/in.h5" one
	assert_success
	local n
	for n in 2 3 4; do
		mkdir "s$n"
		cp "$BATS_FILE_TMPDIR/in.h5" "$BATS_FILE_TMPDIR/rep.yaml" "s$n/"
		(cd "s$n" && srun_ -n "$n" h5ufunc run --no-history rep.yaml) || fail "srun -n $n: exit status $?"
		cmp one/out.h5 "s$n/out.h5" || fail "srun -n $n: out.h5 differs from one process's"
		run ref chunks one/gz.h5 "s$n/gz.h5"
		assert_success
		run ref chunks one/in.h5 "s$n/in.h5"
		assert_success
	done
}

@test "srun -n 4 h5ufunc --json: 4 ranks, each with its own share" {
	np make f.h5:/x float64 40,3
	run --separate-stderr srun_ -n 4 h5ufunc call sqrt f.h5:/x -o g.h5:/y --json
	assert_success
	run /usr/bin/python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["ranks"] == 4, d["ranks"]
assert [r["rank"] for r in d["per_rank"]] == [0, 1, 2, 3]
assert [r["elements"] for r in d["per_rank"]] == [30, 30, 30, 30], d["per_rank"]
' "$output"
	assert_success
	np check sqrt f.h5:/x -o g.h5:/y
}

@test "sbatch recipes/slurm-job.sh: the recipe on 4 tasks of a job, as NumPy computes it" {
	cp -R "$BATS_FILE_TMPDIR/demo" d
	# The script asks for 2 nodes of 32 tasks; this cluster has one node.
	# It runs from the directory it was submitted from, which holds recipes/.
	local here=$PWD
	cd "$REPO"
	run batch_job --nodes=1 --ntasks=4 --ntasks-per-node=4 --mem-per-cpu=100M \
		--output="$here/job.out" --export=ALL,DATA="$here/d",H5UFUNC="$H5UFUNC" recipes/slurm-job.sh
	cd "$here"
	assert_success
	run cat job.out
	assert_output ""
	REF=recipes_ref.py run ref check wind-speed "$BATS_FILE_TMPDIR/demo" d
	assert_success
}

@test "srun with --mpi=none or --mpi=pmi2: exit 2 before any file is touched, said by task 0 alone" {
	np make f.h5:/x float64 5
	snapshot
	local plugin
	for plugin in none pmi2; do
		run --separate-stderr srun_ -n 3 --mpi="$plugin" h5ufunc call sqrt f.h5:/x -o f.h5:/x
		assert_failure 2
		run grep -c '^h5ufunc:' <<<"$stderr"
		assert_output 1
		[[ $stderr == *"srun started this process as one of 3 tasks (SLURM_STEP_NUM_TASKS=3)"*"run it with srun --mpi=pmix"* ]] ||
			fail "--mpi=$plugin: $stderr"
	done
	assert_unchanged
}

@test "a one-liner in a batch script, outside a step, runs as one process; srun in the same job runs 2" {
	np make f.h5:/x float64 9
	cat >job.sh <<-'EOF'
		#!/bin/bash
		h5ufunc call sqrt f.h5:/x -o one.h5:/y --json >one.json
		echo "one: $?"
		srun -n 2 h5ufunc call sqrt f.h5:/x -o two.h5:/y --no-history
		echo "two: $?"
	EOF
	run batch_job -n 2 --output="$PWD/job.out" job.sh
	assert_success
	run cat job.out
	assert_output $'one: 0\ntwo: 0'
	run /usr/bin/python3 -c 'import json, sys; print(json.load(open("one.json"))["ranks"])'
	assert_output 1
	np check sqrt f.h5:/x -o one.h5:/y :: check sqrt f.h5:/x -o two.h5:/y
}

@test "scancel of a step that writes in place: every task stops, exit 1, one message, the file as it was" {
	# SIGTERM to srun is SLURM's own forced termination (SIGKILL to the
	# tasks): then the next run, here recover, rolls the file back.
	np make big.h5:/x float64 200000,4 fill=range
	cp big.h5 before.h5
	local how id pid
	for how in cancel term srun; do
		timeout 120 srun -n 3 h5ufunc call add big.h5:/x 1 -o big.h5:/x --memory 1K 2>err.txt &
		H5U_BACKGROUND=$!
		wait_for '.big.h5.h5ufunc-journal.*.2' 60 || fail "$how: no journal of task 2 appeared"
		id=$(squeue -h -o %i | head -n 1)
		case $how in
		cancel) scancel "$id" ;;                  # SIGTERM, SIGKILL after KillWait
		term) scancel --signal=TERM "$id" ;;      # SIGTERM alone
		srun) pid=$(pgrep -P "$H5U_BACKGROUND")   # srun kills its tasks outright
		      kill -TERM "$pid" ;;
		esac
		wait "$H5U_BACKGROUND" || true
		H5U_BACKGROUND=
		if [[ $how == srun ]]; then
			run --separate-stderr h5u recover big.h5
			assert_success
			assert_output --regexp '\(3 ranks\)'
		else
			run grep '^h5ufunc:' err.txt
			assert_output "h5ufunc: call add: interrupted by SIGTERM; 'big.h5:/x' is as it was before the run"
		fi
		cmp big.h5 before.h5 || fail "$how: not as it was"
		run ls -A
		refute_output --partial h5ufunc-
	done
}
