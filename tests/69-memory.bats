#!/usr/bin/env bats
# 69-memory.bats - --memory bounds what a rank holds: on inputs 8 times the
# budget (64 MiB per dataset against --memory 8M), contiguous and chunked,
# every kind of step (an expression, reductions along each layout, a scan
# along each axis, an in-place update; a call, scans and column and
# sequential row reductions on rows of 32 MiB, wider than the budget) peaks
# within its fixed cost + 2 x --memory of resident memory per process, on
# one process and on each of 2 ranks, and writes the same bytes as with the
# default budget (whose results the other files compare with NumPy).  Peak
# RSS comes from /usr/bin/time (%M, KiB).
#
# The fixed cost is the peak of a tiny run on the same launcher (the
# program, its libraries, MPI's and HDF5's start-up: about 17 MiB on one
# process, 25 MiB on each of 2 ranks, more in a sanitizer build, whose
# quarantine of freed memory is turned off here).  Beside it a run may hold
# its budget, and as much again for what a real run holds that a tiny one
# does not (HDF5's chunk and metadata caches, MPI-IO's collective buffers,
# the allocator's slack: measured at 1.3 to 6.4 MiB on one process, 3.5 to
# 11.7 MiB on 2 ranks at --memory 8M); a rank holding 3 times its budget
# fails.

load helper

BUDGET_KIB=$((8 * 1024))

setup_file() {
	# 8192 x 1024 float64: 64 MiB each
	fixtures <<-'EOF'
		make big.h5:/a float64 8192,1024 fill=random
		make big.h5:/b float64 8192,1024 fill=random
		make big.h5:/ca float64 8192,1024 fill=random layout=chunked chunks=256,64
		make wide.h5:/w float64 2,4194304 fill=random
		make tiny.h5:/x float64 4
	EOF
	# the fixed cost on each launcher: a tiny run's peak
	cd "$BATS_FILE_TMPDIR" || return 1
	measure 0 call add tiny.h5:/x 1 >/dev/null
	FIXED_KIB_0=$(largest_rss)
	measure 2 call add tiny.h5:/x 1 >/dev/null
	FIXED_KIB_2=$(largest_rss)
	rm -f rss.*
	export FIXED_KIB_0 FIXED_KIB_2
}

# measure N ARGS...: h5ufunc ARGS with --memory 8M on one process (N=0) or
# under mpirun -n N, each process under /usr/bin/time, its peak RSS in
# rss.RANK.
measure() {
	local n=$1
	shift
	rm -f rss.*
	# (a sanitizer build: no quarantine, which keeps freed memory on purpose)
	local -x ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=0"
	if ((n == 0)); then
		/usr/bin/time -f %M -o rss.0 "$H5UFUNC" "$@" --memory 8M
	else
		mpirun --oversubscribe -n "$n" sh -c \
			'exec /usr/bin/time -f %M -o "rss.$OMPI_COMM_WORLD_RANK" "$@"' sh \
			"$H5UFUNC" "$@" --memory 8M
	fi
}

# largest_rss: the largest peak of the last measure, KiB.
largest_rss() {
	tail -q -n 1 rss.* | sort -n | tail -n 1
}

# peak_rss N ARGS...: measure, and fail naming the process whose peak
# exceeds the fixed cost on its launcher + 2 x --memory (see above).
peak_rss() {
	local n=$1 f peak fixed
	shift
	fixed=FIXED_KIB_$n
	fixed=${!fixed:?no fixed cost measured for $n ranks}
	measure "$n" "$@"
	for f in rss.*; do
		peak=$(tail -n 1 "$f")
		((peak <= fixed + 2 * BUDGET_KIB)) ||
			fail "$f: peak RSS $peak KiB > $((fixed + 2 * BUDGET_KIB)) KiB ($fixed KiB fixed + 2 x --memory 8M): h5ufunc $*"
	done
}

# bounded_run DSET ARGS...: h5ufunc ARGS -o refK.h5:DSET with the default
# budget, then ARGS -o outK-N.h5:DSET through peak_rss on one process (N
# 0) and on 2 ranks (K counting the test's commands); the checks that each
# holds the bytes of refK.h5 are added to SAME, for same_bytes.
bounded_run() {
	local dset=$1 k n
	shift
	k=$((${#SAME[@]} / 8 + 1))
	h5u "$@" -o "ref$k.h5:$dset"
	for n in 0 2; do
		peak_rss "$n" "$@" -o "out$k-$n.h5:$dset"
		SAME+=(:: same "ref$k.h5:$dset" "out$k-$n.h5:$dset")
	done
}

# same_bytes: every check of SAME, in one reference process; the files
# compared are removed after.
same_bytes() {
	np "${SAME[@]:1}"
	rm -f ref*.h5 out*.h5
}

# inputs: the file fixtures big.h5 and wide.h5, linked, not copied (the
# runs that read them write elsewhere).
inputs() {
	ln -s "$BATS_FILE_TMPDIR/big.h5" "$BATS_FILE_TMPDIR/wide.h5" .
}

@test "an expression over two inputs 8x the budget: peak RSS within the fixed cost + 2 x --memory, 1 and 2 ranks" {
	inputs
	h5u eval -i a=big.h5:/a -i b=big.h5:/ca 'ref.h5:/c = sqrt(a*a + b*b)'
	local n
	for n in 0 2; do
		peak_rss "$n" eval -i a=big.h5:/a -i b=big.h5:/ca "w$n.h5:/c = sqrt(a*a + b*b)"
	done
	np same ref.h5:/c w0.h5:/c :: same ref.h5:/c w2.h5:/c
}

@test "reductions along axis 1, axis 0 and all axes, 8x the budget: within the fixed cost + 2 x --memory" {
	inputs
	local axis SAME=()
	for axis in 1 0 all; do
		bounded_run /s reduce add big.h5:/ca --axis "$axis"
	done
	same_bytes
}

@test "masked mode, 8x the budget: reductions and a scan of a named intermediate read with its mask plane, within the fixed cost + 2 x --memory" {
	inputs
	# log(a - 0.5) masks about half the elements (numpy.ma's domain); m
	# spills to scratch with its mask plane, which each fold reads beside it
	cat >r.yaml <<-'EOF2'
		defaults: {missing: mask}
		inputs: {a: big.h5:/a}
		steps:
		  - {expr: log(a - 0.5), out: m}
		  - {reduce: add, in: m, axis: 0, out: "${OUT}:/s0"}
		  - {reduce: maximum, in: m, axis: 1, out: "${OUT}:/s1"}
		  - {accumulate: add, in: m, axis: 0, out: "${OUT}:/c0"}
	EOF2
	h5u run r.yaml --set OUT=ref.h5
	local n
	for n in 0 2; do
		peak_rss "$n" run r.yaml --set OUT="w$n.h5"
	done
	np same ref.h5:/s0 w0.h5:/s0 :: same ref.h5:/s0 w2.h5:/s0 :: same ref.h5:/s1 w0.h5:/s1 :: \
		same ref.h5:/s1 w2.h5:/s1 :: same ref.h5:/c0 w0.h5:/c0 :: same ref.h5:/c0 w2.h5:/c0
	/usr/bin/python3 - <<-'EOF2'
		import h5py, numpy as np, numpy.ma as ma
		with h5py.File("big.h5") as f:
		    m = ma.log(f["a"][()] - 0.5)
		with h5py.File("ref.h5") as f:
		    for name, want in (("s0", m.sum(axis=0)), ("s1", m.max(axis=1))):
		        got = ma.masked_equal(f[name][()], f[name].attrs["_FillValue"])
		        assert np.array_equal(ma.getmaskarray(got), ma.getmaskarray(want)), name
		        assert ma.allclose(got, want, rtol=1e-12), name
	EOF2
}

@test "accumulate along axis 1 and axis 0, 8x the budget: within the fixed cost + 2 x --memory" {
	inputs
	local axis SAME=()
	for axis in 1 0; do
		bounded_run /c accumulate add big.h5:/a --axis "$axis"
	done
	same_bytes
}

@test "an in-place update of a chunked dataset 8x the budget: within the fixed cost + 2 x --memory" {
	fixture big.h5
	cp big.h5 ref.h5
	h5u eval -i a=ref.h5:/ca 'a = a*2 + 1'
	local n
	for n in 0 2; do
		cp "$BATS_FILE_TMPDIR/big.h5" "big$n.h5"
		peak_rss "$n" eval -i "a=big$n.h5:/ca" 'a = a*2 + 1'
	done
	np same ref.h5:/ca big0.h5:/ca :: same ref.h5:/ca big2.h5:/ca
}

@test "rows of 32 MiB, wider than the budget, 8x it in all: a call and scans along both axes within the fixed cost + 2 x --memory" {
	inputs
	local axis SAME=()
	bounded_run /c call hypot wide.h5:/w wide.h5:/w
	for axis in 1 0; do
		bounded_run /c accumulate add wide.h5:/w --axis "$axis"
	done
	same_bytes
}

@test "rows of 32 MiB, wider than the budget: a column reduction and a sequential row reduction within the fixed cost + 2 x --memory" {
	inputs
	local SAME=()
	bounded_run /s reduce add wide.h5:/w --axis 0
	bounded_run /s reduce subtract wide.h5:/w --axis 1
	same_bytes
}
