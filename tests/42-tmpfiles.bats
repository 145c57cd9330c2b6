#!/usr/bin/env bats
# 42-tmpfiles.bats - the files h5ufunc makes before they are finished: new
# files under a temporary name beside their final one, scratch files for
# named intermediates that do not fit in memory.  Each is created
# exclusively (O_CREAT|O_EXCL: a link planted under the name is refused,
# never followed) under a name no one can guess; scratch files are private
# (0600) and removed on every exit (errors and SIGTERM included); printed
# results and small intermediates make no file at all.
#
# Runs are traced with strace (file opens, renames, unlinks; make check
# installs it), without the leak check of a sanitizer build, which ptrace
# stops.  The names are
# random; H5UFUNC_TEST_TOKEN=HEX makes them known in advance (draw N is HEX
# followed by N as two hex digits), so that a test can plant links under
# them.

load helper

setup_file() {
	fixtures <<-'EOF'
		make f.h5:/a float64 40,7
		make f.h5:/b float64 7
		make f.h5:/i int64 40,7 fill=range
		make f.h5:/n int64 40,7 lo=-3 hi=3
		make big.h5:/x float64 200000,4 fill=range
		make mid.h5:/x float64 40000,4 fill=range
		make slow.h5:/x float64 3000000,4 fill=zeros
	EOF
}

teardown() {
	kill_background
}

# traced OUT CMD...: run CMD under strace -f, its trace of file creation in
# OUT (the program's output and status as `run` sees them).  With
# --seccomp-bpf the traced processes stop only at the calls traced, which
# halves the cost of tracing mpirun and its ranks (strace goes on without
# it where the kernel cannot filter).
traced() {
	local out=$1
	shift
	# LeakSanitizer cannot run under ptrace (a sanitizer build would exit 86).
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" run --separate-stderr strace -f --seccomp-bpf \
		-qq -o "$out" -e trace=open,openat,creat,rename,unlink,symlink,link "$@"
}

# creations TRACE: the paths a trace opened with O_CREAT, one per line, as
# "PATH FLAGS", leaving out Open MPI's own files (its session directory,
# shared memory, and the lock tests OMPIO makes beside a file it opens, named
# after that file).
creations() {
	sed -nE 's/.*open(at)?\((AT_FDCWD, )?"([^"]*)", ([A-Z_|]*O_CREAT[A-Z_|]*).*/\3 \4/p' "$1" |
		grep -vE '^(/tmp/ompi\.|/dev/shm/|/tmp/[^ ]*/ompi\.)|\.locktest\.[0-9]+ ' || true
}

# assert_exclusive TRACE: every file the run created, it created with O_EXCL.
assert_exclusive() {
	local c
	c=$(creations "$1")
	[[ -n $c ]] || fail "the trace shows no file created"
	if grep -v 'O_EXCL' <<<"$c"; then
		fail "created without O_EXCL (above)"
	fi
}

# assert_no_creation TRACE: the run created no file at all.
assert_no_creation() {
	local c
	c=$(creations "$1")
	[[ -z $c ]] || fail "files created: $c"
}

# ---- no file for printed results and small intermediates ----------------

@test "printed one-liners of every verb create no file, on one process" {
	fixture f.h5
	mkdir tmp
	export TMPDIR=$PWD/tmp
	snapshot
	local cmd
	for cmd in "call sqrt f.h5:/a" "call divmod f.h5:/a 3" "reduce add f.h5:/a --axis 0" \
		"reduce maximum f.h5:/a --axis all" "accumulate add f.h5:/a --axis 1" \
		"eval -i a=f.h5:/a -i b=f.h5:/b sqrt(a)*b+1" "call add f.h5:/a[2:9] f.h5:/b"; do
		# shellcheck disable=SC2086
		traced trace.txt h5ufunc $cmd
		assert_success
		[[ -n $output ]] || fail "$cmd printed nothing"
		assert_no_creation trace.txt
		rm trace.txt
	done
	assert_unchanged
}

@test "printed one-liners on 2-4 ranks print what one process prints, and create no file" {
	fixture f.h5
	snapshot
	local cmd n one
	for cmd in "call sqrt f.h5:/a" "reduce add f.h5:/a --axis 1" "reduce add f.h5:/a --axis 0" \
		"reduce minimum f.h5:/a --axis all" "accumulate add f.h5:/a --axis 0" "call modf f.h5:/a"; do
		# shellcheck disable=SC2086
		run --separate-stderr h5u $cmd
		assert_success
		one=$output
		for n in 2 3 4; do
			# shellcheck disable=SC2086
			traced trace.txt mpirun --oversubscribe -n "$n" h5ufunc $cmd
			assert_success
			assert_equal "$output" "$one"
			assert_no_creation trace.txt
			rm trace.txt
		done
	done
	np printed sqrt f.h5:/a <<<"$(h5u call sqrt f.h5:/a)"
	assert_unchanged
}

@test "a recipe's small named intermediate stays in memory; a large one spills to a private file in TMPDIR" {
	fixture f.h5 big.h5
	mkdir tmp
	export TMPDIR=$PWD/tmp
	cat >small.yaml <<-'EOF'
		inputs: {a: f.h5:/a}
		steps:
		  - {ufunc: multiply, in: [a, 2], out: t}
		  - {reduce: add, in: t, axis: null}
	EOF
	traced trace.txt h5ufunc run small.yaml
	assert_success
	assert_no_creation trace.txt
	cat >big.yaml <<-'EOF'
		inputs: {x: big.h5:/x}
		steps:
		  - {ufunc: multiply, in: [x, 2], out: t}
		  - {reduce: add, in: t, axis: 0}
	EOF
	traced trace.txt h5ufunc run big.yaml --memory 4M
	assert_success
	local want
	want=$(/usr/bin/python3 -c '
import h5py, numpy as np
print(" ".join(repr(float(v)) for v in np.add.reduce(h5py.File("big.h5")["x"][()] * 2, axis=0)))')
	[[ $(tr '\n' ' ' <<<"$output" | sed 's/ $//') == "$want" ]] || fail "got $output, want $want"
	assert_exclusive trace.txt
	run creations trace.txt
	assert_line --regexp "^$TMPDIR/\.h5ufunc-scratch-[0-9a-f]{32}\.h5 "
	assert_equal "$(ls -A tmp)" ""
}

# ---- every creation exclusive ------------------------------------------

@test "every file a run creates, it creates exclusively: each verb, one process and 2 ranks" {
	fixture f.h5
	cat >r.yaml <<-'EOF'
		inputs: {a: f.h5:/a, b: f.h5:/b}
		steps:
		  - {ufunc: add, in: [a, b], out: new.h5:/s}
		  - {expr: sqrt(a) * 2, out: new2.h5:/g/e}
		  - {reduce: add, in: a, axis: 0, out: new3.h5:/r}
		  - {accumulate: add, in: a, axis: 1, out: new4.h5:/c}
		  - {outer: multiply, in: [b, b], out: new5.h5:/o}
	EOF
	local launch
	for launch in "" "mpirun --oversubscribe -n 2"; do
		rm -f new*.h5 o*.h5
		# shellcheck disable=SC2086
		traced t1.txt $launch h5ufunc call hypot f.h5:/a f.h5:/b -o o1.h5:/h
		assert_success
		assert_exclusive t1.txt
		# shellcheck disable=SC2086
		traced t2.txt $launch h5ufunc reduce multiply f.h5:/a --axis 1 -o o2.h5:/p
		assert_success
		assert_exclusive t2.txt
		# shellcheck disable=SC2086
		traced t3.txt $launch h5ufunc accumulate maximum f.h5:/a --axis 0 -o o3.h5:/m
		assert_success
		assert_exclusive t3.txt
		# shellcheck disable=SC2086
		traced t4.txt $launch h5ufunc eval -i a=f.h5:/a 'o4.h5:/e = a * a - 1'
		assert_success
		assert_exclusive t4.txt
		# shellcheck disable=SC2086
		traced t5.txt $launch h5ufunc run r.yaml
		assert_success
		assert_exclusive t5.txt
		run creations t5.txt
		assert_equal "${#lines[@]}" 5
		np check add f.h5:/a f.h5:/b -o new.h5:/s :: check hypot f.h5:/a f.h5:/b -o o1.h5:/h
	done
}

# ---- planted links -----------------------------------------------------

@test "a link planted at the new file's temporary name is not followed; the next name is used" {
	fixture f.h5
	echo precious >victim
	local n
	for n in 1 2 3; do
		rm -f out.h5 .out.h5.h5ufunc-*
		ln -s "$PWD/victim" ".out.h5.h5ufunc-0123456789abcdef0123456789abcd00.tmp"
		local launch=""
		((n > 1)) && launch="mpirun --oversubscribe -n $n"
		# shellcheck disable=SC2086
		H5UFUNC_TEST_TOKEN=0123456789abcdef0123456789abcd traced trace.txt $launch \
			h5ufunc call sqrt f.h5:/a -o out.h5:/s
		assert_success
		assert_equal "$(cat victim)" precious
		# The planted link is never opened, by HDF5's look before creating either.
		run grep -c 'abcd00\.tmp' trace.txt
		assert_output 0
		assert_link_exists ".out.h5.h5ufunc-0123456789abcdef0123456789abcd00.tmp"
		np check sqrt f.h5:/a -o out.h5:/s
		run ls -A
		refute_output --partial 'abcd01'
	done
}

@test "links planted at every name drawn: exit 1 naming the path, nothing touched, nothing left" {
	fixture f.h5
	echo precious >victim
	local i
	for i in 00 01 02 03; do
		ln -s "$PWD/victim" ".out.h5.h5ufunc-0123456789abcdef0123456789abcd$i.tmp"
	done
	snapshot
	H5UFUNC_TEST_TOKEN=0123456789abcdef0123456789abcd run --separate-stderr h5u call sqrt f.h5:/a -o out.h5:/s
	assert_error 1 "out.h5: cannot create a temporary file: '$PWD/.out.h5.h5ufunc-0123456789abcdef0123456789abcd03.tmp' exists, as did the 3 names drawn before it"
	assert_unchanged
	H5UFUNC_TEST_TOKEN=0123456789abcdef0123456789abcd run --separate-stderr mpi 3 h5ufunc call sqrt f.h5:/a -o out.h5:/s
	assert_error_once 1 "out.h5: cannot create a temporary file: '$PWD/.out.h5.h5ufunc-0123456789abcdef0123456789abcd03.tmp' exists, as did the 3 names drawn before it"
	assert_unchanged
}

@test "a link planted at the scratch file's name is not followed" {
	fixture big.h5
	mkdir tmp
	export TMPDIR=$PWD/tmp
	echo precious >victim
	ln -s "$PWD/victim" "tmp/.h5ufunc-scratch-0123456789abcdef0123456789abcd00.h5"
	cat >big.yaml <<-'EOF'
		inputs: {x: big.h5:/x}
		steps:
		  - {ufunc: negative, in: [x], out: t}
		  - {reduce: maximum, in: t, axis: null}
	EOF
	H5UFUNC_TEST_TOKEN=0123456789abcdef0123456789abcd run --separate-stderr h5u run big.yaml --memory 4M
	assert_success
	assert_output -0.0
	assert_equal "$(cat victim)" precious
	assert_equal "$(ls -A tmp)" ".h5ufunc-scratch-0123456789abcdef0123456789abcd00.h5"
}

# ---- private, and removed on every exit ---------------------------------

# spill_recipe: a recipe whose named intermediate (96 MB) spills under a
# small budget and whose run, under --memory 1K, lasts seconds.
spill_recipe() {
	fixture slow.h5
	cat >spill.yaml <<-'EOF'
		inputs: {x: slow.h5:/x}
		steps:
		  - {ufunc: negative, in: [x], out: t}
		  - {ufunc: multiply, in: [t, 2], out: out.h5:/y}
	EOF
}

@test "a scratch file in TMPDIR is mode 0600 while it exists, and SIGTERM removes it" {
	mkdir tmp
	export TMPDIR=$PWD/tmp
	spill_recipe
	# No output beside which to spill (the result is printed): the scratch
	# file goes to TMPDIR.
	sed -i 's|{ufunc: multiply, in: \[t, 2\], out: out.h5:/y}|{reduce: add, in: t, axis: 0}|' spill.yaml
	grep -q 'reduce: add' spill.yaml
	# --foreground: timeout passes the signal to h5ufunc alone; without it
	# a second copy reaches h5ufunc through the process group, and a second
	# stop ends h5ufunc by the signal itself (status 143, not 1).
	timeout --foreground 60 h5ufunc run spill.yaml --memory 1K &
	H5U_BACKGROUND=$!
	wait_for 'tmp/.h5ufunc-scratch-*.h5' 30 || fail "no scratch file appeared"
	local f
	f=$(compgen -G 'tmp/.h5ufunc-scratch-*.h5')
	assert_equal "$(stat -c %a "$f")" 600
	kill -TERM "$H5U_BACKGROUND"
	local rc=0
	wait "$H5U_BACKGROUND" || rc=$?
	H5U_BACKGROUND=
	assert_equal "$rc" 1
	assert_equal "$(ls -A tmp)" ""
}

@test "SIGTERM of mpirun: no temporary or scratch file left, on 2 ranks" {
	spill_recipe
	snapshot
	# One SIGTERM for mpirun (--foreground: timeout passes the signal on to
	# mpirun alone, not to its process group too; a second one makes
	# Open MPI abandon its ranks without a signal).
	timeout --foreground 60 mpirun --oversubscribe -n 2 h5ufunc run spill.yaml --memory 1K 2>stderr.txt &
	H5U_BACKGROUND=$!
	wait_for '.out.h5.h5ufunc-*.tmp' 30 || fail "the run never created its output"
	wait_for '.h5ufunc-scratch-*.h5' 30 || fail "no scratch file beside the output"
	sleep 0.3
	kill -TERM "$H5U_BACKGROUND"
	wait "$H5U_BACKGROUND" || true
	H5U_BACKGROUND=
	sleep 0.5   # ranks may still be finishing their handlers
	rm -f stderr.txt
	run ls -A
	refute_output --partial h5ufunc-
	refute_output --partial out.h5
}

@test "SIGTERM of one process: new file's temporary and scratch file removed" {
	spill_recipe
	# --foreground: timeout passes the signal to h5ufunc alone; without it
	# a second copy reaches h5ufunc through the process group, and a second
	# stop ends h5ufunc by the signal itself (status 143, not 1).
	timeout --foreground 60 h5ufunc run spill.yaml --memory 1K &
	H5U_BACKGROUND=$!
	wait_for '.h5ufunc-scratch-*.h5' 30 || fail "no scratch file beside the output"
	assert_equal "$(stat -c %a .h5ufunc-scratch-*.h5)" 600
	kill -TERM "$H5U_BACKGROUND"
	local rc=0
	wait "$H5U_BACKGROUND" || rc=$?
	H5U_BACKGROUND=
	assert_equal "$rc" 1
	run ls -A
	refute_output --partial h5ufunc-
	refute_output --partial out.h5
}

@test "a run that fails while running (exit 1) leaves nothing in TMPDIR or beside its output, on 1-3 ranks" {
	fixture f.h5 mid.h5
	mkdir tmp
	export TMPDIR=$PWD/tmp
	# The intermediate spills (1.25 MiB against --memory 1M); the power of
	# integers to a negative power then fails on the data.
	cat >fail.yaml <<-'EOF'
		inputs: {i: f.h5:/i, n: f.h5:/n, x: mid.h5:/x}
		steps:
		  - {ufunc: negative, in: [x], out: t}
		  - {reduce: add, in: t, axis: 1, out: out.h5:/s}
		  - {ufunc: power, in: [i, n], out: out.h5:/p}
	EOF
	snapshot
	local n
	for n in 1 2 3; do
		if ((n == 1)); then
			run --separate-stderr h5u run fail.yaml --memory 1M
			assert_failure 1
		else
			run --separate-stderr mpi "$n" h5ufunc run fail.yaml --memory 1M
			assert_failure 1
		fi
		[[ $stderr == *"Integers to negative integer powers are not allowed"* ]] ||
			fail "unexpected message: $stderr"
		assert_equal "$(ls -A tmp)" ""
		assert_unchanged
	done
}

@test "a sweep by another run in the same directory while 2 ranks create a new file: drawn again, not exit 1" {
	fixture f.h5
	# The other run sweeps the directory over and over; one of its sweeps
	# can remove the new temporary between rank 0's creation and the other
	# rank's opening of it (MPI-IO), which then fails on a name that is
	# gone.  That is a sweep's doing, met by drawing another name.
	(while :; do h5ufunc call add f.h5:/b 1 -o s.h5:/b --overwrite -q 2>/dev/null; done) &
	H5U_BACKGROUND="$!"
	local i
	for i in $(seq 24); do
		rm -f out.h5
		run --separate-stderr mpi 2 h5ufunc call sqrt f.h5:/a -o out.h5:/s
		assert_success
	done
	kill_background
	np check sqrt f.h5:/a -o out.h5:/s
}
