#!/usr/bin/env bats
# 29-memory.bats - --memory bounds what a rank holds: on inputs 8 times the
# budget (64 MiB per dataset against --memory 8M), contiguous and chunked,
# every kind of step (an expression, reductions along each layout, a scan
# along each axis, an in-place update; a call, scans and column and
# sequential row reductions on rows of 32 MiB, wider than the budget) peaks within --memory + 64 MiB of
# resident memory per process, on one process and on each of 2 ranks, and
# writes the same bytes as with the default budget (whose results the other
# files compare with NumPy).  Peak RSS comes from /usr/bin/time (%M, KiB).
#
# A sanitizer build (make check SANITIZE=1) carries a fixed cost of its own
# (shadow memory, allocator pools: about 60 MiB more on a tiny run) and keeps
# freed memory in quarantine; there the quarantine is off, and the peak of a
# tiny run on the same launcher is measured and added to the limit, so the
# budget still bounds what h5ufunc itself holds.

load helper

LIMIT_KIB=$(((8 + 64) * 1024))

setup_file() {
	# 8192 x 1024 float64: 64 MiB each
	fixtures <<-'EOF'
		make big.h5:/a float64 8192,1024 fill=random
		make big.h5:/b float64 8192,1024 fill=random
		make big.h5:/ca float64 8192,1024 fill=random layout=chunked chunks=256,64
		make wide.h5:/w float64 2,4194304 fill=random
		make tiny.h5:/x float64 4
	EOF
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
# exceeds --memory + 64 MiB (plus a sanitizer's fixed cost, see above).
peak_rss() {
	local n=$1 f peak limit=$LIMIT_KIB
	shift
	if ldd "$H5UFUNC" | grep -q 'libasan'; then
		measure "$n" call add tiny.h5:/x 1 >/dev/null
		limit=$((limit + $(largest_rss)))
	fi
	measure "$n" "$@"
	for f in rss.*; do
		peak=$(tail -n 1 "$f")
		((peak <= limit)) || fail "$f: peak RSS $peak KiB > $limit KiB (--memory 8M + 64 MiB): h5ufunc $*"
	done
}

# bounded_run N DSET ARGS...: h5ufunc ARGS -o ref.h5:DSET with the default
# budget, then ARGS -o out.h5:DSET through peak_rss on N ranks; the two must
# hold the same bytes.
bounded_run() {
	local n=$1 dset=$2
	shift 2
	rm -f ref.h5 out.h5
	h5u "$@" -o "ref.h5:$dset"
	peak_rss "$n" "$@" -o "out.h5:$dset"
	np same "ref.h5:$dset" "out.h5:$dset"
}

@test "an expression over two inputs 8x the budget: peak RSS within --memory + 64 MiB, 1 and 2 ranks" {
	fixture big.h5 tiny.h5
	h5u eval -i a=big.h5:/a -i b=big.h5:/ca 'ref.h5:/c = sqrt(a*a + b*b)'
	local n
	for n in 0 2; do
		rm -f w.h5
		peak_rss "$n" eval -i a=big.h5:/a -i b=big.h5:/ca 'w.h5:/c = sqrt(a*a + b*b)'
		np same ref.h5:/c w.h5:/c
	done
}

@test "reductions along axis 1, axis 0 and all axes, 8x the budget: within --memory + 64 MiB" {
	fixture big.h5 tiny.h5
	local n axis
	for n in 0 2; do
		for axis in 1 0 all; do
			bounded_run "$n" /s reduce add big.h5:/ca --axis "$axis"
		done
	done
}

@test "accumulate along axis 1 and axis 0, 8x the budget: within --memory + 64 MiB" {
	fixture big.h5 tiny.h5
	local n axis
	for n in 0 2; do
		for axis in 1 0; do
			bounded_run "$n" /c accumulate add big.h5:/a --axis "$axis"
		done
	done
}

@test "an in-place update of a chunked dataset 8x the budget: within --memory + 64 MiB" {
	fixture big.h5 tiny.h5
	cp big.h5 ref.h5
	h5u eval -i a=ref.h5:/ca 'a = a*2 + 1'
	local n
	for n in 0 2; do
		cp "$BATS_FILE_TMPDIR/big.h5" big.h5
		peak_rss "$n" eval -i a=big.h5:/ca 'a = a*2 + 1'
		np same ref.h5:/ca big.h5:/ca
	done
}

@test "rows of 32 MiB, wider than the budget, 8x it in all: a call and scans along both axes within --memory + 64 MiB" {
	fixture tiny.h5
	cp "$BATS_FILE_TMPDIR/wide.h5" .
	local n axis
	for n in 0 2; do
		bounded_run "$n" /c call hypot wide.h5:/w wide.h5:/w
		for axis in 1 0; do
			bounded_run "$n" /c accumulate add wide.h5:/w --axis "$axis"
		done
	done
}

@test "rows of 32 MiB, wider than the budget: a column reduction and a sequential row reduction within --memory + 64 MiB" {
	fixture tiny.h5
	cp "$BATS_FILE_TMPDIR/wide.h5" .
	local n
	for n in 0 2; do
		bounded_run "$n" /s reduce add wide.h5:/w --axis 0
		bounded_run "$n" /s reduce subtract wide.h5:/w --axis 1
	done
}
