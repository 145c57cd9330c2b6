#!/usr/bin/env bats
# 41-faults.bats - what h5ufunc leaves behind when things go wrong while it
# runs: a rank killed mid-write, a write refused for lack of space, an input
# locked by another process, more ranks than rows, and a read or write that
# fails on one rank only.  Every run here is bounded by a timeout (the
# helper's h5u and mpi, or an explicit `timeout`), so a rank left waiting
# in a collective call fails the test instead of hanging the suite.
#
# Failures on one rank are injected with H5UFUNC_FAULT=read:RANK:N (or
# write:RANK:N), which src/h5io_box.c reads: the Nth read (write) call of rank
# RANK fails after the collective transfer, as a failure HDF5 reports on
# that rank alone would; leave:RANK:N fails its Nth collective write before
# the transfer, the other ranks waiting in it.

load helper

setup_file() {
	fixtures <<-'EOF'
		make big.h5:/x float64 1000000,4 fill=zeros
		make mid.h5:/x float64 20000,4 fill=range
		make f.h5:/x float64 4
		make f.h5:/m int32 6,4
		make f.h5:/two float64 2,3
		make f.h5:/one int16 1,5
		make f.h5:/none float64 0,3
		make f.h5:/z float64 ()
		make f.h5:/long float64 4000,3
	EOF
}

teardown() {
	kill_background
	if [[ -n ${H5U_MOUNT:-} ]] && mountpoint -q "$H5U_MOUNT"; then
		umount "$H5U_MOUNT" || umount -l "$H5U_MOUNT"
	fi
}

# new_files: the files of the test directory that were not there at the
# last `snapshot`, one per line (bats' own files left out).
new_files() {
	diff <(printf '%s\n' "$H5U_SNAPSHOT" | sed 's/^[^ ]* //') \
		<(h5u_dir_state | sed 's/^[^ ]* //') | sed -n 's/^> //p'
}

# rank_pid MARK RANK: the process id of MPI rank RANK of the run whose
# environment holds H5U_FAULT_MARK=MARK (empty until it has started).
rank_pid() {
	local env
	for env in $(grep -lzx "H5U_FAULT_MARK=$1" /proc/[0-9]*/environ 2>/dev/null); do
		if grep -qzx "OMPI_COMM_WORLD_RANK=$2" "$env" 2>/dev/null; then
			env=${env#/proc/}
			echo "${env%/environ}"
			return 0
		fi
	done
	return 0
}

# mount_small_fs DIR SIZE: a tmpfs of SIZE at DIR (unmounted in teardown);
# skips the test when tmpfs cannot be mounted (not root).
mount_small_fs() {
	mkdir -p "$1"
	if [[ $(id -u) != 0 ]] || ! mount -t tmpfs -o "size=$2" h5u-faults "$1" 2>/dev/null; then
		skip "needs root to mount a small tmpfs"
	fi
	H5U_MOUNT=$PWD/$1
}

# ---- killed mid-write --------------------------------------------------

@test "SIGKILL of one rank mid-write: no file under the new output's name" {
	fixture big.h5
	snapshot
	local mark=$BATS_TEST_TMPDIR pid
	# --memory 1K: blocks of 16 rows, so the run lasts seconds, not less
	# than it takes to find its ranks.
	H5U_FAULT_MARK=$mark timeout 60 mpirun --oversubscribe -n 3 \
		h5ufunc call negative big.h5:/x -o out.h5:/y --memory 1K 2>stderr.txt &
	H5U_BACKGROUND=$!
	# Writing has begun once the output exists under its temporary name.
	wait_for '.out.h5.h5ufunc-*.tmp' 30 || fail "the run never created its output"
	pid=$(rank_pid "$mark" 1)
	[[ -n $pid ]] || fail "rank 1 not found"
	kill -KILL "$pid"
	local rc=0
	wait "$H5U_BACKGROUND" || rc=$?
	H5U_BACKGROUND=
	((rc != 0 && rc != 124)) || fail "mpirun exited with $rc (124: timed out)"
	assert_file_not_exists out.h5
	# What may remain is the temporary file, hidden, named after the output.
	run new_files
	refute_line --regexp '^\./out\.h5$'
	local f
	for f in $(new_files); do
		[[ $f == ./stderr.txt || $f =~ ^\./\.out\.h5\.h5ufunc-.*\.tmp$ ]] ||
			fail "unexpected file left: $f"
	done
	run np same big.h5:/x "$BATS_FILE_TMPDIR/big.h5:/x"
	assert_success
}

@test "SIGKILL of a single process mid-write: no file under the new output's name" {
	fixture big.h5
	snapshot
	timeout 60 h5ufunc call negative big.h5:/x -o out.h5:/y --memory 1K &
	H5U_BACKGROUND=$!
	wait_for '.out.h5.h5ufunc-*.tmp' 30 || fail "the run never created its output"
	sleep 0.3
	kill -KILL "$H5U_BACKGROUND"
	wait "$H5U_BACKGROUND" || true
	H5U_BACKGROUND=
	assert_file_not_exists out.h5
	local f
	for f in $(new_files); do
		[[ $f =~ ^\./\.out\.h5\.h5ufunc-.*\.tmp$ ]] || fail "unexpected file left: $f"
	done
}

# ---- no space left -----------------------------------------------------

@test "a write refused by the file size limit (ulimit -f): exit 1, no new file, no temporary file" {
	fixture mid.h5 f.h5
	snapshot
	# 640 KB of output against a 256 KB limit; SIGXFSZ ignored, so the
	# write fails with EFBIG instead of killing the process.
	run --separate-stderr bash -c 'ulimit -f 256; trap "" XFSZ; exec timeout 60 h5ufunc call negative mid.h5:/x -o out.h5:/y'
	assert_error_match 1 "$WHERE_OUT: (cannot create dataset '/y'|write failed) \(HDF5: .*File too large\)"
	assert_unchanged
	# A new dataset in an existing file: the file keeps what it had, and
	# HDF5 can still open it.
	cp mid.h5 keep.h5
	run --separate-stderr bash -c 'ulimit -f 700; trap "" XFSZ; exec timeout 60 h5ufunc call negative keep.h5:/x -o keep.h5:/y'
	assert_error_match 1 "(call negative|keep\.h5:/y): (cannot create dataset '/y'|write failed) \(HDF5: .*File too large\)"
	run np ls keep.h5
	assert_output "/x float64 (20000,4)"
	run np same keep.h5:/x mid.h5:/x
	assert_success
}

# WHERE of a failure to create or write out.h5:/y: the command, or the
# output itself.
WHERE_OUT="(call negative|out\.h5:/y)"

@test "a write on a full filesystem: exit 1, the message once, no half-written new file" {
	# The space is reserved before the first data write (fallocate), so the
	# refusal comes the same way on every rank: under MPI-IO a write that
	# fails on some ranks only can hang them or be lost without an error.
	fixture mid.h5
	mount_small_fs full 1m
	# 640 KB of the 1 MB taken: another 640 KB does not fit.
	cp mid.h5 full/keep.h5
	snapshot
	local want="(call negative|full/out\.h5:/y): cannot reserve [0-9]+ bytes for the output: No space left on device"
	run --separate-stderr h5u call negative mid.h5:/x -o full/out.h5:/y
	assert_error_match 1 "$want"
	assert_unchanged
	local n
	for n in 2 3; do
		run --separate-stderr mpi $n h5ufunc call negative mid.h5:/x -o full/out.h5:/y --memory 4K
		assert_error_once_match 1 "$want"
		assert_unchanged
	done
	# A new dataset in an existing file on the full filesystem: no room
	# beside it for the journal of the bytes the run overwrites, refused
	# before anything is written.
	run --separate-stderr mpi 2 h5ufunc call negative full/keep.h5:/x -o full/keep.h5:/y
	assert_error_once_match 2 "full/keep\.h5: cannot write into it undoably: the journal of the bytes it overwrites needs up to [0-9]+ bytes beside it, and '[^']*/full' has [0-9]+ free; --risk-partial-writes writes in place without a journal"
	assert_unchanged
	# Without the journal, the space of the new dataset is reserved before
	# its first data write: the file keeps what it had.
	run --separate-stderr mpi 2 h5ufunc call negative full/keep.h5:/x -o full/keep.h5:/y --risk-partial-writes
	assert_error_once_match 1 "(call negative|full/keep\.h5:/y): cannot reserve [0-9]+ bytes for the output: No space left on device"
	run np ls full/keep.h5
	assert_output "/x float64 (20000,4)"
	run np same full/keep.h5:/x mid.h5:/x
	assert_success
	# What fits is written.
	rm full/keep.h5
	mpi 2 h5ufunc call negative mid.h5:/x -o full/out.h5:/y
	np check negative mid.h5:/x -o full/out.h5:/y
}

# full_stdout_recipe: f.h5 (and its copy before.h5) and r.yaml, whose
# second step prints a result after its first wrote f.h5:/x in place.
full_stdout_recipe() {
	fixture f.h5
	cp f.h5 before.h5
	cat >r.yaml <<-'EOF'
		steps:
		  - {ufunc: add, in: [f.h5:/x, 1], out: f.h5:/x}
		  - {reduce: add, in: f.h5:/x, axis: null}
		  - {ufunc: negative, in: f.h5:/x, out: new.h5:/y}
	EOF
}

@test "standard output on a full disk: printed results fail the run (exit 1, what it wrote undone), as do --json and ufuncs" {
	# /dev/full refuses every write with ENOSPC: a result printed there
	# used to be lost with exit status 0.
	full_stdout_recipe
	snapshot
	run --separate-stderr bash -c 'timeout 120 h5ufunc run r.yaml >/dev/full'
	assert_error 1 "r.yaml:3:5: step 2 (reduce add): cannot print the result: No space left on device; 'f.h5:/x' is as it was before the run"
	assert_unchanged
	cmp f.h5 before.h5 || fail "f.h5 changed"
	run --separate-stderr bash -c 'timeout 120 h5ufunc call add f.h5:/m 1 >/dev/full'
	assert_error 1 "call add: cannot print the result: No space left on device"
	local cmd
	for cmd in "call add f.h5:/m 1 --json" "ufuncs" "check r.yaml"; do
		run --separate-stderr bash -c "timeout 120 h5ufunc $cmd >/dev/full"
		# the errno of a write made inside printf is gone by the flush
		assert_error_match 1 "standard output: (No space left on device|a write failed)"
	done
	assert_unchanged
	# --json's summary is printed before the run commits: a lost one
	# leaves no new file and undoes what was written in place
	for cmd in "call add f.h5:/m 1 --json -o new.h5:/z|" "run r.yaml --json|; 'f.h5:/x' is as it was before the run"; do
		run --separate-stderr bash -c "timeout 120 h5ufunc ${cmd%%|*} >/dev/full"
		assert_error_match 1 "standard output: (No space left on device|a write failed)${cmd#*|}"
	done
	assert_unchanged
	cmp f.h5 before.h5 || fail "f.h5 changed"
	# on a working stdout the same run prints NumPy's sum of x + 1
	h5u run r.yaml >sum.txt
	run /usr/bin/python3 -c '
import sys, h5py, numpy as np
want = repr(float(np.add.reduce(h5py.File("before.h5")["x"][()] + 1, axis=None)))
got = open("sum.txt").read().strip()
sys.exit(0 if got == want else f"printed {got}, NumPy {want}")'
	assert_success
}

@test "standard output on a full disk under mpirun: --json, printed results and check fail the run once, undone, each on two of 1 to 4 ranks" {
	# mpirun copies rank 0's output to its own and drops a write that
	# fails there: rank 0 writes to mpirun's standard output itself.
	full_stdout_recipe
	snapshot
	# every way of failing on two rank counts, one of them 3 or 4, and
	# each rank count in three or four ways: a covering design, not the
	# product of ways and rank counts (indexes into ways)
	local n way ways=(
		"call add f.h5:/m 1 --json|~"
		"check r.yaml|~"
		"check r.yaml --json|~"
		"call add f.h5:/m 1 --json -o new.h5:/z|~"
		"run r.yaml --json|~; 'f.h5:/x' is as it was before the run"
		"call add f.h5:/m 1|call add: cannot print the result: No space left on device"
		"run r.yaml|r.yaml:3:5: step 2 (reduce add): cannot print the result: No space left on device; 'f.h5:/x' is as it was before the run")
	local -A at=([1]="0 2 4 6" [2]="1 3 5" [3]="0 3 6" [4]="1 2 4 5")
	for n in 1 2 3 4; do
		for way in ${at[$n]}; do
			run --separate-stderr bash -c "timeout 120 mpirun --oversubscribe -n $n h5ufunc ${ways[way]%%|*} >/dev/full"
			if [[ ${ways[way]#*|} == "~"* ]]; then
				assert_error_once_match 1 "standard output: (No space left on device|a write failed)${ways[way]#*|~}"
			else
				assert_error_once 1 "${ways[way]#*|}"
			fi
		done
		assert_unchanged
		cmp f.h5 before.h5 || fail "f.h5 changed"
	done
	# a file is appended to, as mpirun's copy would be; a pipe takes it too
	echo first >out.txt
	mpi 3 h5ufunc call add f.h5:/m 1 --json >>out.txt
	mpi 2 h5ufunc call add f.h5:/m 1 --json | cat >>out.txt
	run /usr/bin/python3 -c '
import json, h5py, numpy as np
lines = open("out.txt").read().split("\n", 1)
assert lines[0] == "first", lines[0]
dec = json.JSONDecoder()
a, end = dec.raw_decode(lines[1])
b, _ = dec.raw_decode(lines[1][end:].lstrip())
want = (h5py.File("f.h5", "r")["m"][()] + 1).tolist()
assert a["result"] == want and b["result"] == want, (a["result"], want)
assert (a["ranks"], b["ranks"]) == (3, 2), (a["ranks"], b["ranks"])'
	assert_success
}

# ---- a file in use -----------------------------------------------------

# hold FILE: h5py keeps FILE open for writing in the background (HDF5's
# file lock) until teardown; returns once the file is open.
hold() {
	rm -f held
	timeout 60 /usr/bin/python3 -c '
import sys, time, h5py
f = h5py.File(sys.argv[1], "a")
open("held", "w").close()
time.sleep(60)
' "$1" &
	H5U_BACKGROUND="${H5U_BACKGROUND:-} $!"
	disown $!
	wait_for held 20 || fail "h5py could not open $1"
}

LOCKED="\(HDF5: unable to lock file: .*\); the file is in use by another process \(HDF5_USE_FILE_LOCKING=FALSE turns HDF5's file locking off\)"

@test "an input opened for writing elsewhere: a clear message naming HDF5's lock" {
	fixture f.h5
	hold f.h5
	snapshot
	run --separate-stderr h5u call add f.h5:/x 1 -o out.h5:/y
	assert_error_match 2 "call add: cannot open 'f\.h5' $LOCKED"
	assert_unchanged
	# Under mpirun, HDF5's MPI-IO driver takes no lock: the run reads the
	# file (or, with another HDF5, is refused the same way); it must not hang.
	run --separate-stderr mpi 2 h5ufunc call add f.h5:/x 1 -o out.h5:/y
	if ((status == 0)); then
		HDF5_USE_FILE_LOCKING=FALSE np check add f.h5:/x 1 -o out.h5:/y
		rm out.h5
	else
		assert_error_once_match 2 "call add: cannot open 'f\.h5' $LOCKED"
	fi
	assert_unchanged
	cat >r.yaml <<-'EOF'
		inputs:
		  x: f.h5:/x
		steps:
		  - ufunc: add
		    in: [x, 1]
		    out: x
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error_match 2 "r\.yaml:2:6: cannot open 'f\.h5' $LOCKED"
	assert_unchanged
}

@test "an output file opened elsewhere: refused before writing; the hint works" {
	fixture f.h5
	cp f.h5 busy.h5
	hold busy.h5
	snapshot
	run --separate-stderr h5u call add f.h5:/x 1 -o busy.h5:/y
	assert_error_match 2 "call add: cannot open 'busy\.h5' $LOCKED"
	assert_unchanged
	# What the hint says: without HDF5's locking the input can be read.
	HDF5_USE_FILE_LOCKING=FALSE h5u call add busy.h5:/x 1 -o out.h5:/y
	np check add f.h5:/x 1 -o out.h5:/y
}

# ---- ranks with no work ------------------------------------------------

@test "more ranks than rows: reduce and accumulate finish, as on one process" {
	fixture f.h5
	mpi 5 h5ufunc reduce add f.h5:/two -o p5.h5:/r0
	mpi 5 h5ufunc reduce add f.h5:/two --axis all -o p5.h5:/rall
	mpi 5 h5ufunc reduce maximum f.h5:/two --axis 1 -o p5.h5:/r1
	mpi 5 h5ufunc accumulate multiply f.h5:/two -o p5.h5:/a0
	mpi 5 h5ufunc accumulate add f.h5:/one --axis 1 -o p5.h5:/a1
	mpi 4 h5ufunc reduce add f.h5:/none -o p5.h5:/e0
	mpi 4 h5ufunc accumulate add f.h5:/none -o p5.h5:/ea
	mpi 3 h5ufunc call negative f.h5:/z -o p5.h5:/z
	h5u reduce add f.h5:/two -o p1.h5:/r0
	h5u reduce add f.h5:/two --axis all -o p1.h5:/rall
	h5u reduce maximum f.h5:/two --axis 1 -o p1.h5:/r1
	h5u accumulate multiply f.h5:/two -o p1.h5:/a0
	h5u accumulate add f.h5:/one --axis 1 -o p1.h5:/a1
	h5u reduce add f.h5:/none -o p1.h5:/e0
	h5u accumulate add f.h5:/none -o p1.h5:/ea
	h5u call negative f.h5:/z -o p1.h5:/z
	np same p1.h5:/r0 p5.h5:/r0 :: same p1.h5:/rall p5.h5:/rall :: \
		same p1.h5:/r1 p5.h5:/r1 :: same p1.h5:/a0 p5.h5:/a0 :: \
		same p1.h5:/a1 p5.h5:/a1 :: same p1.h5:/e0 p5.h5:/e0 :: \
		same p1.h5:/ea p5.h5:/ea :: same p1.h5:/z p5.h5:/z
}

@test "more ranks than rows with many blocks: a recipe finishes on 6 ranks" {
	fixture f.h5
	cat >r.yaml <<-'EOF'
		inputs: {m: f.h5:/m}
		steps:
		  - {ufunc: multiply, in: [m, 3], out: t}
		  - {accumulate: add, in: t, axis: 0, out: o.h5:/acc}
		  - {reduce: add, in: t, axis: null, out: o.h5:/total}
	EOF
	mpi 6 h5ufunc run r.yaml --memory 16K
	mv o.h5 o6.h5
	h5u run r.yaml
	np same o.h5:/acc o6.h5:/acc :: same o.h5:/total o6.h5:/total
}

# ---- a failure on one rank ---------------------------------------------

@test "a read error on one rank: every rank exits 1, the message once, no new file" {
	fixture f.h5
	snapshot
	run --separate-stderr env H5UFUNC_FAULT=read:1:1 timeout 60 mpirun --oversubscribe -n 3 \
		h5ufunc call add f.h5:/long 1 -o out.h5:/y
	assert_error_once 1 "call add: read failed (H5UFUNC_FAULT)"
	assert_unchanged
	# A later block on the last rank, in a recipe of two steps.
	cat >r.yaml <<-'EOF'
		steps:
		  - {ufunc: add, in: [f.h5:/long, 1], out: t}
		  - {ufunc: sqrt, in: t, out: out.h5:/y}
	EOF
	snapshot
	run --separate-stderr env H5UFUNC_FAULT=read:3:5 timeout 60 mpirun --oversubscribe -n 4 \
		h5ufunc run r.yaml --memory 2K
	assert_error_once_match 1 "r\.yaml:[0-9]+:[0-9]+: step [12] \(ufunc (add|sqrt)\): read failed \(H5UFUNC_FAULT\)"
	assert_unchanged
	run ls -A
	refute_output --regexp 'h5ufunc-'
}

@test "a read error on one rank in reduce and accumulate: same status, message once" {
	fixture f.h5
	snapshot
	# a sum over all axes holds two of NumPy's 8192-element pieces on several ranks
	run --separate-stderr env H5UFUNC_FAULT=read:2:1 timeout 60 mpirun --oversubscribe -n 3 \
		h5ufunc reduce add f.h5:/long --axis all -o out.h5:/y --memory 160K
	assert_error_once 1 "reduce add: read failed (H5UFUNC_FAULT)"
	assert_unchanged
	run --separate-stderr env H5UFUNC_FAULT=read:0:2 timeout 60 mpirun --oversubscribe -n 2 \
		h5ufunc accumulate add f.h5:/long -o out.h5:/y --memory 16K
	assert_error_once 1 "accumulate add: read failed (H5UFUNC_FAULT)"
	assert_unchanged
	run --separate-stderr env H5UFUNC_FAULT=read:1:1 timeout 60 mpirun --oversubscribe -n 2 \
		h5ufunc reduce add f.h5:/long
	assert_error_once 1 "reduce add: read failed (H5UFUNC_FAULT)"
	assert_output ""
	assert_unchanged
}

@test "a read error on one rank in at: every rank exits 1 promptly, the message once, the target as it was" {
	/usr/bin/python3 - <<-'EOF'
		import h5py, numpy as np
		rng = np.random.default_rng(7)
		with h5py.File('a.h5', 'w') as f:
		    f['t'] = rng.random(50)
		    f['i'] = rng.integers(-50, 50, 20000)   # many rounds at --memory 16K
		    f['v'] = rng.random(20000)
	EOF
	cp a.h5 before.h5
	# Read 2 of the last rank checks the indices while planning; reads 12
	# and 13 are an index box and a value box of a round: the others go on
	# to the next read of that round, which the failed rank makes empty.
	# each read on two of 2-4 ranks, each rank count failing at two reads:
	# a covering design, not the product
	local n nth
	local -A at=([2]="2 12" [3]="13 2" [4]="12 13")
	for n in 2 3 4; do
		for nth in ${at[$n]}; do
			run --separate-stderr env H5UFUNC_FAULT=read:$((n - 1)):$nth timeout 60 \
				mpirun --oversubscribe -n $n h5ufunc at add a.h5:/t --indices a.h5:/i a.h5:/v --memory 16K
			assert_error_once_match 1 "at add: read failed \(H5UFUNC_FAULT\)(; 'a\.h5:/t' is as it was before the run)?"
		done
	done
	# a target a run changed would stay changed: one comparison for all
	run np same a.h5:/t before.h5:/t
	assert_success
}

@test "a rank failing inside a collective write the others wait in: every rank stops, exit 1, the rank named; in place put back, no new file" {
	fixture f.h5
	local nr n r
	for nr in 2:1 3:0 4:3 4:1; do
		n=${nr%:*} r=${nr#*:}
		cp f.h5 g.h5
		run --separate-stderr env H5UFUNC_FAULT=leave:$r:2 timeout 120 mpirun --oversubscribe -n $n \
			h5ufunc call add g.h5:/long 1 -o g.h5:/long --memory 1K
		assert_error_once 1 "call add: write failed on rank $r (H5UFUNC_FAULT); the other ranks wait for it in a collective write: every rank is stopped, and what the run wrote in place is put back when the next run opens its file or by h5ufunc recover"
		if ((r == 0)); then   # put back by h5ufunc recover ...
			run --separate-stderr h5u recover g.h5
			assert_success
		else   # ... or by the next run that opens the file
			h5u call add g.h5:/long 0 -o h.h5:/y
			rm h.h5
		fi
		run np same g.h5:/long f.h5:/long
		assert_success
	done
	snapshot
	run --separate-stderr env H5UFUNC_FAULT=leave:1:1 timeout 120 mpirun --oversubscribe -n 3 \
		h5ufunc call add f.h5:/long 1 -o out.h5:/y --memory 1K
	assert_error_once 1 "call add: write failed on rank 1 (H5UFUNC_FAULT); the other ranks wait for it in a collective write: every rank is stopped, and what the run wrote in place is put back when the next run opens its file or by h5ufunc recover"
	h5u call add f.h5:/x 0 -o other.h5:/y   # the next run that writes there removes the temporary
	rm other.h5
	assert_unchanged
}

@test "a write error on one rank: no new file; in place, the message names the target" {
	fixture f.h5
	snapshot
	run --separate-stderr env H5UFUNC_FAULT=write:1:2 timeout 60 mpirun --oversubscribe -n 2 \
		h5ufunc call add f.h5:/long 1 -o out.h5:/y --memory 1K
	assert_error_once 1 "call add: write failed (H5UFUNC_FAULT)"
	assert_unchanged
	# A new dataset in an existing file is removed again.
	cp f.h5 g.h5
	run --separate-stderr env H5UFUNC_FAULT=write:0:1 timeout 60 mpirun --oversubscribe -n 2 \
		h5ufunc call add g.h5:/long 1 -o g.h5:/new/y
	assert_error_once 1 "call add: write failed (H5UFUNC_FAULT)"
	run np ls g.h5
	refute_line --regexp '^/new/y '
	# In place: the blocks written before the failure are rolled back, and
	# the message says so.
	run --separate-stderr env H5UFUNC_FAULT=write:1:2 timeout 60 mpirun --oversubscribe -n 2 \
		h5ufunc call add g.h5:/long 1 -o g.h5:/long --memory 1K
	assert_error_once 1 "call add: write failed (H5UFUNC_FAULT); 'g.h5:/long' is as it was before the run"
	run np same g.h5:/long f.h5:/long
	assert_success
	# Without the journal they stay, and the message says which dataset
	# holds partial results.
	run --separate-stderr env H5UFUNC_FAULT=write:1:2 timeout 60 mpirun --oversubscribe -n 2 \
		h5ufunc call add g.h5:/long 1 -o g.h5:/long --memory 1K --risk-partial-writes
	assert_error_once 1 "call add: write failed (H5UFUNC_FAULT); partial results were written in place to 'g.h5:/long'"
}

@test "an injected fault without MPI: exit 1, nothing left" {
	fixture f.h5
	snapshot
	run --separate-stderr env H5UFUNC_FAULT=read:0:1 timeout 60 h5ufunc call add f.h5:/x 1 -o out.h5:/y
	assert_error 1 "call add: read failed (H5UFUNC_FAULT)"
	assert_unchanged
	run --separate-stderr env H5UFUNC_FAULT=write:0:1 timeout 60 h5ufunc call add f.h5:/x 1 -o out.h5:/y
	assert_error 1 "call add: write failed (H5UFUNC_FAULT)"
	assert_unchanged
}

@test "a corrupt input: HDF5's reason once in the message, first error's alone, on 1 and 3 ranks; nothing left" {
	# two deflated datasets whose every chunk is garbled: each rank's reads
	# of both fail, and only the first failure's HDF5 text is told
	/usr/bin/python3 - <<-'PY'
		import h5py, numpy as np
		with h5py.File('bad.h5', 'w') as f:
		    for name in ('x', 'y'):
		        f.create_dataset(name, data=np.arange(30000.).reshape(3000, 10), chunks=(100, 10),
		                         compression='gzip')
		with h5py.File('bad.h5', 'r') as f:
		    spans = [(c.byte_offset, c.size) for d in (f['x'], f['y'])
		             for c in map(d.id.get_chunk_info, range(d.id.get_num_chunks()))]
		data = bytearray(open('bad.h5', 'rb').read())
		for offset, size in spans:
		    for k in range(offset + 2, offset + size - 4):
		        data[k] ^= 0x5a
		open('bad.h5', 'wb').write(data)
	PY
	snapshot
	local want="call add: read failed (HDF5: filter returned failure during read)" n
	run --separate-stderr h5u call add bad.h5:/x bad.h5:/y -o out.h5:/z
	assert_error 1 "$want"
	assert_unchanged
	for n in 1 3; do
		run --separate-stderr mpi "$n" h5ufunc call add bad.h5:/x bad.h5:/y -o out.h5:/z --memory 8K
		assert_error_once 1 "$want"
		assert_unchanged
	done
}
