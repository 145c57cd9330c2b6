#!/usr/bin/env bats
# 64-chunks.bats - chunked inputs read once per pass.  Tall (4096, 256),
# square (1024, 1024) and wide (256, 4096) float64 datasets in chunks 256
# rows tall (tests/chunks_ref.py), under a --memory of 40M that holds a
# chunk row of a pass's boxes only when the ops' intermediates are counted
# a tile at a time: every elementwise pass (a new output, in place), every
# reduction (over the last axis, the first, all axes) and every scan
# (along either axis; a reduction under a budget of 6M, in boxes of chunk
# columns) reads each chunk of its inputs in one call on one
# process, counted by strace (a chunk's read, and HDF5's few reads of
# metadata), and no more than the input's bytes on 2 and 3 ranks (where
# ROMIO's collective reads join the ranks' chunks); the results are
# NumPy's, bit for bit.

load helper

ref() {
	/usr/bin/python3 "$H5U_TESTS/chunks_ref.py" "$@"
}

setup_file() {
	ref make "$BATS_FILE_TMPDIR"
}

# chunks NAME: the chunks of c.h5:/NAME
chunks() {
	case $1 in
	t) echo 256 ;;
	*) echo 128 ;;
	esac
}

# traced N ARRAYS SHAPE CMD...: run h5ufunc CMD on one process (N 0) or
# N ranks under strace, with --memory $mem (40M by default), then fail
# unless it read each chunk of its ARRAYS inputs of c.h5 (of SHAPE: t, s
# or w) in one call, and no more than their bytes.
traced() {
	local n=$1 arrays=$2 shape=$3 mem=${mem:-40M}
	shift 3
	rm -f tr.*
	if ((n == 0)); then
		strace -ff -e trace=openat,open,pread64,read -o tr h5ufunc "$@" --memory "$mem" ||
			fail "h5ufunc $*: exit status $?"
	else
		strace -ff -e trace=openat,open,pread64,read -o tr \
			timeout 60 mpirun --oversubscribe -n "$n" h5ufunc "$@" --memory "$mem" ||
			fail "$n ranks, h5ufunc $*: exit status $?"
	fi
	local calls=$((arrays * $(chunks "$shape") + 64 * (n + 1)))
	local bytes=$((arrays * 8388608 * 102 / 100 + 1048576))
	run ref reads tr c.h5 "$calls" "$bytes"
	[[ $status == 0 ]] || fail "$n ranks, h5ufunc $*: $output"
}

@test "elementwise passes read each chunk once: tall, square, wide, a new output on one process and 3 ranks, in place on one process" {
	cp "$BATS_FILE_TMPDIR/c.h5" .
	local d n
	for d in t s w; do
		for n in 0 3; do
			rm -f o.h5
			traced "$n" 2 "$d" eval -i "a=c.h5:/$d" -i "b=c.h5:/${d}b" 'o.h5:/c = sqrt(a*a + b*b)'
			run ref same c.h5 o.h5 /c "np.sqrt($d*$d + ${d}b*${d}b)"
			assert_success
		done
	done
	cp "$BATS_FILE_TMPDIR/c.h5" .
	traced 0 1 w eval -i a=c.h5:/w 'a = a * 2 + 1'
	run ref same "$BATS_FILE_TMPDIR/c.h5" c.h5 /w "w * 2 + 1"
	assert_success
}

@test "reductions and scans read each chunk once: over the last axis, the first and all; one process, 2 and 3 ranks" {
	cp "$BATS_FILE_TMPDIR/c.h5" .
	local d n
	for d in t s w; do
		rm -f o.h5
		traced 0 1 "$d" reduce add "c.h5:/$d" --axis 1 -o o.h5:/r1
		traced 0 1 "$d" reduce add "c.h5:/$d" --axis 0 -o o.h5:/r0
		traced 0 1 "$d" reduce add "c.h5:/$d" --axis all -o o.h5:/ra
		traced 0 1 "$d" accumulate add "c.h5:/$d" --axis 0 -o o.h5:/c0
		traced 0 1 "$d" accumulate add "c.h5:/$d" --axis 1 -o o.h5:/c1
		run ref same c.h5 o.h5 /r1 "np.add.reduce($d, axis=1)"
		assert_success
		run ref same c.h5 o.h5 /r0 "np.add.reduce($d, axis=0)"
		assert_success
		run ref same c.h5 o.h5 /ra "np.add.reduce($d, axis=None)"
		assert_success
		run ref same c.h5 o.h5 /c0 "np.add.accumulate($d, axis=0)"
		assert_success
		run ref same c.h5 o.h5 /c1 "np.add.accumulate($d, axis=1)"
		assert_success
	done
	# a budget that holds no whole chunk row: boxes of chunk columns
	rm -f o.h5
	mem=6M traced 0 1 w reduce add c.h5:/w --axis 0 -o o.h5:/r0
	run ref same c.h5 o.h5 /r0 "np.add.reduce(w, axis=0)"
	assert_success
	rm -f o.h5
	traced 2 1 t reduce add c.h5:/t --axis 0 -o o.h5:/r0
	traced 3 1 s accumulate add c.h5:/s --axis 1 -o o.h5:/c1
	run ref same c.h5 o.h5 /r0 "np.add.reduce(t, axis=0)"
	assert_success
	run ref same c.h5 o.h5 /c1 "np.add.accumulate(s, axis=1)"
	assert_success
}
