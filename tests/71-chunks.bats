#!/usr/bin/env bats
# 71-chunks.bats - chunked inputs read once per pass, compressed outputs
# written at the compressor's speed.  Tall (4096, 256),
# square (1024, 1024) and wide (256, 4096) float64 datasets in chunks 256
# rows tall (tests/chunks_ref.py), under a --memory of 40M that holds a
# chunk row of a pass's boxes only when the ops' intermediates are counted
# a tile at a time: every elementwise pass (a new output, in place), every
# reduction (over the last axis, the first, all axes) and every scan
# (along either axis; a reduction under a budget of 6M, in boxes of chunk
# columns) reads each chunk of its inputs in one call on one
# process, counted by strace (a chunk's read, and HDF5's few reads of
# metadata), and no more than the input's bytes on 2 and 3 ranks (each
# rank's own chunks, or ROMIO's collective reads joining the ranks'
# chunks where boxes cut them); the results are NumPy's, bit for bit.  gzip chunks go through libdeflate: what h5ufunc
# writes (a new dataset, and in place into h5py's shuffle+deflate one) is
# read back by h5py's zlib, what h5py's zlib wrote is read by h5ufunc, on
# one process and 2 to 4 ranks, a compressed output on several ranks in
# boxes of 16 MiB of its widest array (four times an uncompressed one's),
# each rank's share one box where it is smaller; H5UFUNC_DEFLATE=zlib writes the same
# data through HDF5's zlib, and the files differ.  On one process, slices
# of (256, 64) chunks are one chunk column wide (`h5ufunc check` says),
# and raw chunks move a chunk at a time as stored: ragged edges, an empty
# array, 3-d, float32, int16, complex, bool and packed inputs give
# NumPy's bits, as do filtered, byte-swapped and never-written chunks,
# read through HDF5's selections, and 2-4 ranks.  Under a budget that
# holds no chunk row of a wide array whose row's chunks overflow a chunk
# cache, one process reads boxes of lines that divide a chunk's extent in
# slices of one chunk column, each one run of one chunk in one pread:
# each chunk in 16 calls, each byte once (the cache read every chunk
# whole for every box); ragged, a bool result, NumPy's bits on 1-4 ranks.
# Under MPI such boxes are dealt to the ranks, in whole runs of a chunk's
# lines where that is even (no chunk read by two ranks), else in runs of a
# box's, each rank reading its runs alone: each byte once (strace: every
# pread's offset), a ragged last chunk column's runs read with their
# padding; ranks with fewer boxes, mpirun -n 1; a file a later
# step writes keeps boxes of the usual size; NumPy's bits on 1-4 ranks.
# Written in place where a later step reads a view of it, into ragged
# (300, 8010) chunk rows whose chunk cache no budget left pays (4M, 1M),
# boxes that cut the chunks are walked through HDF5 a chunk column at a
# time (check and --json say so): the file's bytes read and written once
# each (strace; boxes across the chunk row read 13 times as many);
# NumPy's bits with the journal and on 1-4 ranks.
# Written in place on one process under budgets (7M, 8M, 16M) whose boxes
# cut square (2304, 2304) chunk rows that overflow a chunk cache, each
# box's lines of each chunk are read and written by one preadv and pwritev
# at the chunk's place, past HDF5: the file's bytes read and written once
# each, the journal's as many (strace); NumPy's bits with the journal and
# on 1-3 ranks.  So ragged 2-d, float32 and 3-d datasets under budgets of
# 4K to the default, two steps and a reduction after, gzip and partly
# written ones beside them through HDF5: NumPy's bits, ncdump reads them.
# Under MPI each rank moves its boxes so, by a read-write descriptor of its
# own (strace: every rank's pwritev; --json: no data through MPI-IO), on
# 1-4 ranks whose shares cut chunk rows or have fewer boxes than others,
# a gzip dataset beside them through MPI-IO: NumPy's bits.
# Under MPI an input file
# no step writes, read in boxes of whole chunks, is read by each rank
# alone, one call a chunk and no MPI-IO read (2 ranks), and so in runs of
# its chunks where its five chunk rows do not deal evenly (3 ranks);
# NumPy's bits on 1-4 and 6 ranks.  A file one of whose datasets the
# ranks' boxes cut goes through MPI-IO, but its plain datasets read in
# whole chunks (ragged; on 3 and 4 ranks some with no rows) are read by
# the direct reader, each chunk once by one pread through a read-only
# descriptor of each rank's own (every plain chunk so on one rank), and
# a file the run writes (in place, or new and read by a later step) never
# so; NumPy's bits on 1-4 ranks.  So are reductions (over axis 0, 1,
# all) and scans (along either axis) of a ragged (1001, 37) array in
# (64, 16) chunks, raw and gzip, int64 ones whose ranks share the axis
# they fold, and reductions that share one pass: each chunk read once by
# one rank, or through MPI-IO under a budget whose boxes cut chunks;
# NumPy's bits on 1-4 and 6 ranks under several budgets.  Sums over trailing
# and all axes (sharing a pass, or alone) of chunks whose widths cut
# NumPy's blocks and pieces, read as the chunks and folded a run at a
# time, give NumPy's bits on 1-4 ranks; so do sums over rows of whole
# pieces folded a band of chunk columns at a time through NumPy's
# pairwise tree (more reads than boxes, --json says), ragged, float32,
# complex, 3-d, ranks with no rows; and so do float16 sums (the tree in
# float32) and folds exact in any grouping, each piece's running value
# folded on: int64 sums that wrap, maximum, minimum, fmax and fmin with
# NaNs in several chunks and pieces, logical and bitwise folds.  Datasets of a file
# the run writes (in place, and read beside), in boxes of whole chunks,
# are moved by each rank alone on 2 and 4 ranks (independent transfers,
# no collective one, the journal following each dataset's run of them),
# collectively
# where the boxes cut chunks (3 ranks) or beside gzip chunks; NumPy's bits.
# Chunks never written (h5py's /h, a variable
# ncgen never wrote) read as their fill value on 1-4 ranks: elementwise,
# reduce, accumulate; written in place on one process, and under MPI
# when none was written, refused (exit 2) when some were.  A
# shuffle+gzip dataset with one chunk stored without its filters (filter
# mask 3, ix.h5:/gz) gives NumPy's values on one process and 1-4 ranks,
# under budgets whose boxes cut its chunks: elementwise (to a new file,
# and to a new dataset of its own file), reduce, accumulate; written in
# place on one process, refused (exit 2, the file unchanged) under MPI.
# Chunk indexes
# read whole (tests/unit/chunkindexdump) list what h5py's get_chunk_info
# lists, a layout message in a continuation block of the object header
# (h5debug says where) included, or are refused for the other index types.  In a file with a
# userblock (MATLAB v7.3's 512 bytes) chunk addresses are places in the
# file (HDF5 1.10's get_chunk_info leaves the userblock out), and an
# in-place write saves in its journal what it saves without one.  The
# least budget whose plan folds a chunk row by bands (found by halving)
# runs them: the bytes the planner counts for the bands hold a band;
# NumPy's bits.

load helper
REF=chunks_ref.py
# the calls strace counts: every one that reads or writes a descriptor,
# the vectored ones the in-place runs move by included
TRACE_READS=pread64,preadv,preadv2,read
TRACE_WRITES=pwrite64,pwritev,pwritev2,write

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
# N ranks under strace, with --memory $mem (40M by default), its logs
# trK.* (K counting the test's traced runs, named in traces.txt); the
# check that it read each chunk of its ARRAYS inputs of c.h5 (of SHAPE: t,
# s or w) in one call (in $pieces calls, 1 by default), and no more than
# their bytes, is added to READS.
traced() {
	local n=$1 arrays=$2 shape=$3 mem=${mem:-40M} tr
	shift 3
	tr=tr$((${#READS[@]} / 6 + 1))
	echo "$tr: $n ranks (0: one process), h5ufunc $* --memory $mem" >>traces.txt
	# the leak checker does not work under ptrace: off for the traced runs
	if ((n == 0)); then
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -ff \
			-e trace=openat,open,$TRACE_READS -o "$tr" h5ufunc "$@" --memory "$mem" ||
			fail "h5ufunc $*: exit status $?"
	else
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -ff \
			-e trace=openat,open,$TRACE_READS -o "$tr" \
			timeout 60 mpirun --oversubscribe -n "$n" h5ufunc "$@" --memory "$mem" ||
			fail "$n ranks, h5ufunc $*: exit status $?"
	fi
	local calls=$((arrays * $(chunks "$shape") * ${pieces:-1} + 64 * (n + 1)))
	local bytes=$((arrays * 8388608 * 102 / 100 + 1048576))
	READS+=(:: reads "$tr" c.h5 "$calls" "$bytes")
}

# planned N MEM INPUTS EXPR: `h5ufunc check` on N ranks (0: one process)
# under --memory MEM of one step EXPR over INPUTS (a YAML map) into
# o.h5:/c, its plan in $output
planned() {
	local n=$1 mem=$2
	printf 'inputs: %s\nsteps:\n  - expr: %s\n    out: o.h5:/c\n' "$3" "$4" >planned.yaml
	if ((n == 0)); then
		run --separate-stderr h5u check --memory "$mem" planned.yaml
	else
		run --separate-stderr mpi "$n" h5ufunc check --memory "$mem" planned.yaml
	fi
	assert_success
}

# check_reads JOB...: the READS of every traced run, and the other
# chunks_ref.py JOBs given (each starting with ::), in one process.
check_reads() {
	run ref "${READS[@]:1}" "$@"
	[[ $status == 0 ]] || fail "$output"$'\n'"$(cat traces.txt)"
}

@test "elementwise passes read each chunk once: tall, square, wide, a new output on one process and 3 ranks, in place on one process" {
	cp "$BATS_FILE_TMPDIR/c.h5" .
	local d n READS=() same=()
	for d in t s w; do
		for n in 0 3; do
			traced "$n" 2 "$d" eval -i "a=c.h5:/$d" -i "b=c.h5:/${d}b" "o$d$n.h5:/c = sqrt(a*a + b*b)"
			same+=(:: same "$BATS_FILE_TMPDIR/c.h5" "o$d$n.h5" /c "np.sqrt($d*$d + ${d}b*${d}b)")
		done
	done
	# the journal reads the bytes it saves before the pass: the pass alone
	traced 0 1 w eval -i a=c.h5:/w 'a = a * 2 + 1' --risk-partial-writes
	check_reads "${same[@]}" :: same "$BATS_FILE_TMPDIR/c.h5" c.h5 /w "w * 2 + 1"
}

@test "a budget too small for a chunk row (--memory 4K): each chunk read once all the same where the chunks a row crosses fit the chunk cache; tall and square, new and in place" {
	cp "$BATS_FILE_TMPDIR/c.h5" .
	local d READS=() same=() mem=4K
	for d in t s; do
		traced 0 2 "$d" eval -i "a=c.h5:/$d" -i "b=c.h5:/${d}b" "o$d.h5:/c = sqrt(a*a + b*b)"
		same+=(:: same "$BATS_FILE_TMPDIR/c.h5" "o$d.h5" /c "np.sqrt($d*$d + ${d}b*${d}b)")
	done
	traced 0 1 s eval -i a=c.h5:/s 'a = a * 2 + 1' --risk-partial-writes
	check_reads "${same[@]}" :: same "$BATS_FILE_TMPDIR/c.h5" c.h5 /s "s * 2 + 1"
}

@test "in place into chunk rows more than a chunk cache holds, boxes cutting them (--memory 7M, 8M, 16M): each box's runs read and written by preadv and pwritev at the chunks' places, no chunk cache paid, the file's bytes read and written once each and the journal's as many; NumPy's bits with the journal and on 1-3 ranks" {
	ref square .
	local m n
	# 40.5 MiB of data, and HDF5's metadata
	local most=$((42467328 * 102 / 100 + 1048576))
	for m in 7M 8M 16M; do
		cp sq.h5 "q$m.h5"
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -ff \
			-e trace=openat,open,$TRACE_READS,$TRACE_WRITES -o "tr$m" \
			h5ufunc eval -i "a=q$m.h5:/a" 'a = a * 2 + 1' --risk-partial-writes --memory "$m" ||
			fail "--memory $m: exit status $?"
		run ref moved "tr$m" "q$m.h5" "$most" :: same sq.h5 "q$m.h5" /a "a * 2 + 1"
		assert_success
	done
	run h5u check --memory 7M - <<<$'inputs: {a: sq.h5:/a}\nsteps:\n  - expr: a * 2 + 1\n    out: a'
	assert_success
	assert_output --partial "boxes (256, 2304), 9 boxes in 36 slices 64 wide, written a slice at a time"
	# the budget pays for a slice, not a box: boxes of a chunk's lines,
	# each chunk read by one preadv and written by one pwritev (9 x 36
	# chunks), where boxes of whole rows at 7M took 128 lines, two calls
	# a chunk
	local calls
	for m in 7M 8M 16M; do
		calls=$(cat "tr$m".* | grep -cE '^pwritev2?\(' || true)
		((calls > 0 && calls <= 9 * 36)) || fail "--memory $m: $calls pwritev for 324 chunks"
	done
	# with the journal: what it saves is the file's bytes once (read
	# again by the journal, before they are overwritten)
	cp sq.h5 j.h5
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -ff \
		-e trace=openat,open,$TRACE_READS,$TRACE_WRITES -o trj \
		h5ufunc eval -i a=j.h5:/a 'a = a * 2 + 1' --memory 7M || fail "journaled: exit status $?"
	run ref moved trj j.h5 $((2 * most)) :: journaled trj j.h5 "$most"
	assert_success
	# on 1-3 ranks (each rank by runs of its own)
	local same=(same sq.h5 j.h5 /a "a * 2 + 1")
	for n in 1 2 3; do
		cp sq.h5 "r$n.h5"
		mpi "$n" h5ufunc eval -i "a=r$n.h5:/a" 'a = a * 2 + 1' --memory 7M
		same+=(:: same sq.h5 "r$n.h5" /a "a * 2 + 1")
	done
	run ref "${same[@]}"
	assert_success
}

# traced_moves PREFIX CMD...: h5ufunc CMD under strace, its reads and
# writes in the logs PREFIX.*; VECTORED: how many of them are preadv or
# pwritev (the in-place runs)
traced_moves() {
	local tr=$1
	shift
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -ff \
		-e trace=openat,open,$TRACE_READS,$TRACE_WRITES -o "$tr" h5ufunc "$@" ||
		fail "h5ufunc $*: exit status $?"
	vectored=$(cat "$tr".* | grep -cE '^p(read|write)v2?\(' || true)
}

@test "in place by runs only where no other array names the dataset: a view of it read beside, or by a later step, sends it through HDF5 with a chunk cache paid (check's plan) and no preadv or pwritev (strace), each byte moved once; the one-liner add x x -o x by runs as check plans; NumPy's bits" {
	ref square .
	# 40.5 MiB of data, and HDF5's metadata
	local most=$((42467328 * 102 / 100 + 1048576)) vectored f
	printf 'inputs: {a: F:/a, b: "F:/a[:8]"}\nsteps:\n  - expr: a * 2 + 1\n    out: a\n  - expr: b + 1\n    out: oF:/c\n' >beside.in
	printf 'inputs: {a: F:/a}\nsteps:\n  - expr: a * 2 + 1\n    out: a\n  - ufunc: add\n    in: ["F:/a[:8]", 1]\n    out: oF:/c\n' >later.in
	for f in beside later; do
		cp sq.h5 "$f.h5"
		sed "s/F:/$f.h5:/g" "$f.in" >"$f.yaml"
		run h5u check --memory 7M "$f.yaml"
		assert_success
		assert_line --index 0 --partial "boxes (32, 2304), 72 boxes, 1 of 1 ranks"
		traced_moves "tr$f" run --risk-partial-writes --memory 7M "$f.yaml"
		((vectored == 0)) || fail "$f: $vectored preadv or pwritev, where the plan moves it through HDF5"
		# and the first chunk row again, its 36 chunks of 128 KiB, for b
		run ref moved "tr$f" "$f.h5" $((most + 36 * 131072)) :: same sq.h5 "$f.h5" /a "a * 2 + 1" \
			:: same sq.h5 "o$f.h5" /c "(a * 2 + 1)[:8] + 1"
		assert_success
	done
	# one array for the three operands: by runs, as planned
	printf 'inputs: {a: sq.h5:/a}\nsteps:\n  - ufunc: add\n    in: [a, a]\n    out: a\n' >twice.yaml
	run h5u check --memory 7M twice.yaml
	assert_success
	assert_line --index 0 --partial "boxes (256, 2304), 9 boxes in 36 slices 64 wide, written a slice at a time"
	cp sq.h5 x.h5
	traced_moves trx call add x.h5:/a x.h5:/a -o x.h5:/a --risk-partial-writes --memory 7M
	((vectored > 0)) || fail "add x x -o x: no preadv or pwritev, where the plan moves it by runs"
	run ref moved trx x.h5 "$most" :: same sq.h5 x.h5 /a "a + a"
	assert_success
}

@test "in place into chunk rows whose chunk cache no budget left pays, another array naming the dataset (--memory 4M, 1M): boxes that cut the chunks walked through HDF5 a chunk column at a time (check and --json say so), the file's bytes read and written once each (strace); ragged; NumPy's bits with the journal and on 1-4 ranks" {
	ref wide-named .
	# (300, 8010) float64: 2 x 126 chunks of 128 KiB, ragged ones stored
	# whole, and HDF5's metadata; the view's first chunk row again
	local most=$((252 * 131072 * 102 / 100 + 1048576 + 126 * 131072)) m n vectored
	local plan="written a slice at a time, a chunk column across the boxes at a time"
	local expect="a * (a + 1)" sum="np.add.reduce((a * (a + 1))[:8])"
	printf 'inputs: {a: F:/a}\nsteps:\n  - ufunc: add\n    in: [a, 1]\n    out: b\n  - ufunc: multiply\n    in: [a, b]\n    out: a\n  - reduce: add\n    in: "F:/a[:8]"\n    out: oF:/s\n' >named.in
	for m in 4M 1M; do
		cp wn.h5 "n$m.h5"
		sed "s/F:/n$m.h5:/g" named.in >"n$m.yaml"
		run h5u check --memory "$m" "n$m.yaml"
		assert_success
		assert_line --index 0 --partial "$plan"
		run h5u check --json --memory "$m" "n$m.yaml"
		assert_success
		assert_output --partial "$plan"
		traced_moves "tr$m" run --risk-partial-writes --memory "$m" "n$m.yaml"
		((vectored == 0)) || fail "$m: $vectored preadv or pwritev, where the plan moves it through HDF5"
		run ref moved "tr$m" "n$m.h5" "$most" :: same wn.h5 "n$m.h5" /a "$expect" \
			:: same wn.h5 "on$m.h5" /s "$sum"
		assert_success
	done
	# with the journal, and on 1-4 ranks (no chunk cache under MPI-IO:
	# boxes as they were)
	local same=()
	cp wn.h5 nj.h5
	sed "s/F:/nj.h5:/g" named.in >nj.yaml
	h5u run --memory 1M nj.yaml
	same+=(same wn.h5 nj.h5 /a "$expect" :: same wn.h5 onj.h5 /s "$sum")
	for n in 1 2 3 4; do
		cp wn.h5 "nr$n.h5"
		sed "s/F:/nr$n.h5:/g" named.in >"nr$n.yaml"
		# the plan under MPI on two of the rank counts (mpirun -n 1, and
		# 3 ranks' uneven shares); the runs on all
		if ((n % 2)); then
			run mpi "$n" h5ufunc check --memory 1M "nr$n.yaml"
			assert_success
			refute_output --partial "a chunk column across"
		fi
		mpi "$n" h5ufunc run --memory 1M "nr$n.yaml"
		same+=(:: same wn.h5 "nr$n.h5" /a "$expect" :: same wn.h5 "onr$n.h5" /s "$sum")
	done
	run ref "${same[@]}"
	assert_success
}

@test "in place by runs on one process: ragged 2-d, float32, 3-d, two steps into one dataset and a reduction of it after; gzip and partly written datasets through HDF5's path beside them; budgets 4K, 1M, 16M and the default; NumPy's bits, h5py and ncdump read the file" {
	ref in-place .
	cat >r.yaml <<-'EOF'
		inputs: {w: ip.h5:/w, f: ip.h5:/f, t: ip.h5:/t, g: ip.h5:/g, p: ip.h5:/p}
		steps:
		  - {expr: w * 2 + 1, out: w}
		  - {expr: f * 3 - 1, out: f}
		  - {expr: t * 2 + 1, out: t}
		  - {expr: g * 2 + 1, out: g}
		  - {expr: p * 2 + 1, out: p}
		  - {expr: w - 1, out: w}
		  - {reduce: add, in: w, axis: 0, out: s.h5:/s}
	EOF
	local m d same=()
	for m in 4K 1M 16M ''; do
		d=m${m:-default}
		mkdir "$d"
		cp ip.h5 r.yaml "$d/"
		(cd "$d" && h5u run r.yaml ${m:+--memory "$m"}) || fail "--memory ${m:-default}: exit status $?"
		ncdump -h "$d/ip.h5" >/dev/null || fail "$d: ncdump cannot read it"
		same+=(:: same ip.h5 "$d/ip.h5" /w "w * 2 + 1 - 1" /f "f * np.float32(3) - np.float32(1)"
		       /t "t * 2 + 1" /g "g * 2 + 1" /p "p * 2 + 1"
		       :: same ip.h5 "$d/s.h5" /s "np.add.reduce(w * 2 + 1 - 1, axis=0)")
	done
	run ref "${same[@]:1}"
	assert_success
	run h5u check --memory 1M r.yaml
	assert_success
	assert_line --partial "step 1: expr add, loop dd->d, casting same_kind, boxes (64, 9000), 3 boxes in 141 slices 64 wide"
}

@test "in place by runs under MPI: 1-4 ranks (shares that cut chunk rows, ranks with fewer boxes), budgets 1M, 16M and the default, each on two rank counts or more; ragged 2-d, float32, 3-d beside a gzip dataset through MPI-IO; every rank writes by pwritev, no data through MPI-IO; check plans the slices; NumPy's bits" {
	ref in-place .
	cat >r.yaml <<-'EOF'
		inputs: {w: ip.h5:/w, f: ip.h5:/f, t: ip.h5:/t, g: ip.h5:/g}
		steps:
		  - {expr: w * 2 + 1, out: w}
		  - {expr: f * 3 - 1, out: f}
		  - {expr: t * 2 + 1, out: t}
		  - {expr: g * 2 + 1, out: g}
		  - {expr: w - 1, out: w}
		  - {reduce: add, in: w, axis: 0, out: s.h5:/s}
	EOF
	local n m d x same=()
	# a covering design, not every budget at every rank count: 1M (the
	# most boxes, ranks with fewer of them) on 2-4 ranks, 16M on 1 and 3,
	# the default on 2 and 4; each rank its pwritevs on 2-4 ranks, /w on
	# 2 and 3, the 3-d /t on 3 and 4
	local -A budgets=([1]=16M [2]="1M default" [3]="1M 16M" [4]="1M default") traced=([2]=w [3]="w t" [4]=t)
	for n in 1 2 3 4; do
		for m in ${budgets[$n]}; do
			m=${m/default/}
			d=r$n-${m:-default}
			mkdir "$d"
			cp ip.h5 r.yaml "$d/"
			(cd "$d" && mpi "$n" h5ufunc run r.yaml ${m:+--memory "$m"}) ||
				fail "$n ranks, --memory ${m:-default}: exit status $?"
			same+=(:: same ip.h5 "$d/ip.h5" /w "w * 2 + 1 - 1" /f "f * np.float32(3) - np.float32(1)"
			       /t "t * 2 + 1" /g "g * 2 + 1"
			       :: same ip.h5 "$d/s.h5" /s "np.add.reduce(w * 2 + 1 - 1, axis=0)")
		done
	done
	# each rank its own pwritevs, MPI-IO only for HDF5's metadata
	for n in 2 3 4; do
		for x in ${traced[$n]}; do
			d=v$n$x
			mkdir "$d"
			cp ip.h5 "$d/"
			(cd "$d" && ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -ff -o tr \
				-e trace=pwritev,pwritev2 timeout "$H5U_MPI_TIMEOUT" mpirun --oversubscribe \
				-n "$n" h5ufunc eval -i "a=ip.h5:/$x" 'a = a * 2 + 1' --memory 1M --json) >"$d.json" ||
				fail "$d: exit status $?"
			(($(grep -lE '^pwritev2?\(' "$d"/tr.* | wc -l) == n)) || fail "$d: not every rank wrote by pwritev"
			same+=(:: same ip.h5 "$d/ip.h5" "/$x" "$x * 2 + 1")
		done
	done
	python3 -c '
import json, sys
assert len(sys.argv) == 5, sys.argv
for path in sys.argv[1:]:
    for r in json.load(open(path))["per_rank"]:
        assert r["mpiio_data_writes"] == 0 and r["mpiio_data_reads"] == 0, (path, r)
' v[234][wt].json || fail "data moved through MPI-IO"
	run ref "${same[@]:1}"
	assert_success
	run --separate-stderr mpi 3 h5ufunc check --memory 1M r.yaml
	assert_success
	assert_line --partial "step 1: expr add, loop dd->d, casting same_kind, boxes (8, 9000), 19 boxes in 141 slices 64 wide, written a slice at a time, 3 of 3 ranks with work"
}

@test "in place by runs, a budget that holds no chunk row of a wide array: boxes of a chunk's lines where they deal evenly, the budget paying for a slice of one chunk column, so that each pwritev moves a chunk's part of a box of at least 32 lines (not 16); the journal's fdatasyncs a few a rank; NumPy's bits on 1-4 ranks" {
	/usr/bin/python3 -c '
import h5py, numpy as np
a = np.random.default_rng(7).standard_normal((512, 8200))
with h5py.File("band.h5", "w") as f:
    f.create_dataset("a", data=a, chunks=(256, 64))
'
	# (512, 8200) float64 in (256, 64): a chunk row of 129 chunks, 16 MiB,
	# the last column ragged; at 4M boxes of whole rows would be 16 lines
	local n d calls same=()
	for n in 1 2 3 4; do
		d=b$n
		mkdir "$d"
		cp band.h5 "$d/"
		(cd "$d" && ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -ff -o tr \
			-e trace=pwritev,pwritev2 timeout "${H5U_MPI_TIMEOUT:-60}" mpirun --oversubscribe \
			-n "$n" h5ufunc eval -i a=band.h5:/a 'a = a * 2 + 1' --memory 4M --json) >"$d.json" ||
			fail "$n ranks: exit status $?"
		# each pwritev a chunk's part of a box, 32 lines or more of 64
		# float64 (16 lines at 4M before); the ragged last column (8 of
		# 64 wide) a line a call, its lines 512 bytes apart in the file
		calls=$(cat "$d"/tr.* | grep -E '^pwritev2?\(' | grep -cE '= [0-9]{5,}$' || true)
		((calls > 0)) || fail "$n ranks: no pwritev of a chunk's part"
		if cat "$d"/tr.* | grep -E '^pwritev2?\(' | awk '$NF != 64 && $NF < 32 * 512' | grep .; then
			fail "$n ranks: pwritev of fewer than 32 lines of a chunk"
		fi
		# the journal: an fdatasync a RECORD_MAX (16 MiB) of the chunks a
		# rank writes, the records of the runs of chunks between the
		# chunk index's nodes saved ahead under one, and three for HDF5's
		# metadata beside
		python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["per_rank"]:
    most = -(-r["bytes_written"] // (16 << 20)) + 3
    assert r["journal_syncs"] <= most, (most, r)
' "$d.json" || fail "$n ranks: the journal's fdatasyncs"
		same+=(:: same band.h5 "$d/band.h5" /a "a * 2 + 1")
	done
	run ref "${same[@]:1}"
	assert_success
	for n in 1 2; do
		run --separate-stderr mpi "$n" h5ufunc check --memory 4M - <<<$'inputs: {a: band.h5:/a}\nsteps:\n  - {expr: a * 2 + 1, out: a}'
		assert_success
		assert_line --index 0 --partial "boxes (256, 8200), 2 boxes in 129 slices 64 wide, written a slice at a time"
	done
}

@test "in place by runs only where the chunk index is the version-1 B-tree, the one read whole: h5py's libver='latest' fixed and extensible arrays go through HDF5 (check's plan, no preadv or pwritev), where their slices were each an HDF5 call; the B-tree beside them by runs; NumPy's bits on 1-3 ranks, each index on one process and 2 or 3 ranks" {
	/usr/bin/python3 -c '
import h5py, numpy as np
a = np.random.default_rng(5).standard_normal((300, 9000))
with h5py.File("lat.h5", "w", libver="latest") as f:
    f.create_dataset("fixed", data=a, chunks=(256, 64))
    f.create_dataset("grow", data=a, chunks=(256, 64), maxshape=(None, 9000))
with h5py.File("v1.h5", "w") as f:
    f.create_dataset("tree", data=a, chunks=(256, 64))
'
	local x f n vectored same=()
	# under MPI the B-tree on 2 and 3 ranks, each newer index on one of
	# them: not every index at every rank count
	local -A ranks=([fixed]=2 [grow]=3 [tree]="2 3")
	for x in fixed grow tree; do
		f=lat.h5
		[[ $x == tree ]] && f=v1.h5
		printf 'inputs: {a: %s:/%s}\nsteps:\n  - {expr: a * 2 + 1, out: a}\n' "$f" "$x" >"$x.yaml"
		run h5u check --memory 1M "$x.yaml"
		assert_success
		cp "$f" "c$x.h5"
		traced_moves "tr$x" eval -i "a=c$x.h5:/$x" 'a = a * 2 + 1' --memory 1M --risk-partial-writes
		if [[ $x == tree ]]; then
			assert_line --index 0 --partial "written a slice at a time, 1 of 1 ranks"
			((vectored > 0)) || fail "$x: no preadv or pwritev, where the plan moves it by runs"
		else
			assert_line --index 0 --partial "a chunk column across the boxes at a time"
			((vectored == 0)) || fail "$x: $vectored preadv or pwritev, where the plan moves it through HDF5"
		fi
		same+=(:: same "$f" "c$x.h5" "/$x" "$x * 2 + 1")
		for n in ${ranks[$x]}; do
			# the plan under MPI once an index (the B-tree's on 2 ranks)
			if [[ $x != tree || $n == 2 ]]; then
				run mpi "$n" h5ufunc check --memory 1M "$x.yaml"
				assert_success
				if [[ $x == tree ]]; then
					assert_output --partial "slices 64 wide, written a slice at a time"
				else
					refute_output --partial "slices"
				fi
			fi
			cp "$f" "r$n$x.h5"
			mpi "$n" h5ufunc eval -i "a=r$n$x.h5:/$x" 'a = a * 2 + 1' --memory 1M ||
				fail "$x on $n ranks: exit status $?"
			same+=(:: same "$f" "r$n$x.h5" "/$x" "$x * 2 + 1")
		done
	done
	run ref "${same[@]:1}"
	assert_success
}

@test "reductions and scans read each chunk once: over the last axis, the first and all; one process, 2 and 3 ranks" {
	cp "$BATS_FILE_TMPDIR/c.h5" .
	local d n READS=() same=()
	for d in t s w; do
		traced 0 1 "$d" reduce add "c.h5:/$d" --axis 1 -o "o$d.h5:/r1"
		traced 0 1 "$d" reduce add "c.h5:/$d" --axis 0 -o "o$d.h5:/r0"
		traced 0 1 "$d" reduce add "c.h5:/$d" --axis all -o "o$d.h5:/ra"
		traced 0 1 "$d" accumulate add "c.h5:/$d" --axis 0 -o "o$d.h5:/c0"
		# /w's chunk row (8 MiB) overflows its chunk cache: on one process
		# the scan along axis 1 reads the runs of its chunks in boxes of
		# the usual 4 MiB (128 lines), each chunk in 2 runs, not in boxes
		# of a whole chunk row (check's plan below)
		pieces=$([[ $d == w ]] && echo 2 || echo 1) traced 0 1 "$d" accumulate add "c.h5:/$d" --axis 1 -o "o$d.h5:/c1"
		same+=(:: same c.h5 "o$d.h5" /r1 "np.add.reduce($d, axis=1)" /r0 "np.add.reduce($d, axis=0)"
			/ra "np.add.reduce($d, axis=None)" /c0 "np.add.accumulate($d, axis=0)"
			/c1 "np.add.accumulate($d, axis=1)")
	done
	# a budget that holds no whole chunk row: boxes of chunk columns
	mem=6M traced 0 1 w reduce add c.h5:/w --axis 0 -o o6M.h5:/r0
	traced 2 1 t reduce add c.h5:/t --axis 0 -o o.h5:/r0
	traced 3 1 s accumulate add c.h5:/s --axis 1 -o o.h5:/c1
	check_reads "${same[@]}" :: same c.h5 o6M.h5 /r0 "np.add.reduce(w, axis=0)" \
		:: same c.h5 o.h5 /r0 "np.add.reduce(t, axis=0)" /c1 "np.add.accumulate(s, axis=1)"
	printf 'steps:\n  - accumulate: add\n    in: c.h5:/w\n    axis: 1\n    out: oscan.h5:/c\n' >scan.yaml
	run --separate-stderr h5u check --memory 40M scan.yaml
	assert_success
	assert_line --partial "boxes (128,), 2 boxes, 1 of 1 ranks with work"
	assert_line --partial "read as the runs of its chunks the boxes cut"
	run --separate-stderr mpi 2 h5ufunc check --memory 40M scan.yaml
	assert_success
	assert_line --partial "boxes (256,), 1 box,"
}

@test "gzip chunks through libdeflate: h5py reads what h5ufunc writes, new and in place into shuffle+deflate, h5ufunc reads h5py's; one process and 2-4 ranks; H5UFUNC_DEFLATE=zlib" {
	cp "$BATS_FILE_TMPDIR/z.h5" "$BATS_FILE_TMPDIR/zs.h5" .
	cat >w6.yaml <<-'EOF'
		inputs: {a: z.h5:/a, b: z.h5:/b, c: zs.h5:/c}
		steps:
		  - expr: sqrt(a*a + b*b)
		    chunks: [64, 1024]
		    compression: gzip:1
		    out: o.h5:/w
		  - expr: a * 2 - b
		    out: c
		  - reduce: add
		    in: z.h5:/g
		    axis: 1
		    out: o.h5:/r
	EOF
	local n jobs=()
	for n in 0 2 3 4; do
		cp "$BATS_FILE_TMPDIR/zs.h5" .
		if ((n == 0)); then
			h5u run w6.yaml || fail "one process: exit status $?"
		else
			mpi "$n" h5ufunc run w6.yaml || fail "$n ranks: exit status $?"
		fi
		mv o.h5 "o$n.h5"
		mv zs.h5 "zs$n.h5"
		jobs+=(:: same z.h5 "o$n.h5" /w "np.sqrt(a*a + b*b)" /r "np.add.reduce(g, axis=1)"
			:: same z.h5 "zs$n.h5" /c "a * 2 - b" :: filters "o$n.h5" /w 64,1024 gzip
			:: filters "zs$n.h5" /c 64,1024 shuffle+gzip)
	done
	# every result of the four runs checked by one Python
	run ref "${jobs[@]:1}"
	[[ $status == 0 ]] || fail "$output"
	cp "$BATS_FILE_TMPDIR/zs.h5" .
	# each rank's share of the compressed outputs (the two steps' one
	# pass) in one box: one round of HDF5's collective calls for its chunks
	rm -f o.h5
	run --separate-stderr mpi 3 h5ufunc check w6.yaml
	assert_success
	assert_line --regexp '^step 1: expr sqrt, .*, boxes \(320, 1024\), 3 boxes, 3 of 3 ranks with work$'
	assert_line 'step 2: expr expression, fused into step 1'
	# 1 GiB on 4 ranks under 1G: compressed, boxes of 16 MiB (512 rows),
	# not the budget's largest (each a round of collective calls, but every
	# chunk of a box held until its write: memory touched anew each box);
	# uncompressed ones stop at 4 MiB (128 rows)
	local how rows
	for how in "compression: gzip:1" "overwrite: false"; do
		run --separate-stderr mpi 4 h5ufunc check --memory 1G - <<-EOF
			inputs: {a: zs.h5:/A, b: zs.h5:/B}
			steps:
			  - expr: sqrt(a*a + b*b)
			    chunks: [64, 4096]
			    $how
			    out: o6.h5:/w
		EOF
		assert_success
		rows=${lines[0]#*boxes (}
		rows=${rows%%,*}
		if [[ $how == *gzip* ]]; then
			((rows == 512)) || fail "compressed: ${lines[0]}"
		else
			((rows == 128)) || fail "uncompressed: ${lines[0]}"
		fi
	done
	# HDF5's own zlib: the same data, compressed to another size
	h5u run w6.yaml || fail "libdeflate: exit status $?"
	local ours zlib
	ours=$(ref stored o.h5 /w)
	rm o.h5
	H5UFUNC_DEFLATE=zlib h5u run w6.yaml || fail "zlib: exit status $?"
	run ref same z.h5 o.h5 /w "np.sqrt(a*a + b*b)"
	assert_success
	zlib=$(ref stored o.h5 /w)
	((ours != zlib)) || fail "libdeflate and zlib both compressed /w to $ours bytes"
}

@test "boxes of chunk rows computed in slices of chunk columns: a new contiguous output a box or a band of slices at a time, in place and new chunked ones a slice at a time, 2-d and 3-d; one process and 2-4 ranks, NumPy's bits" {
	cp "$BATS_FILE_TMPDIR/sl.h5" .
	cat >sl.yaml <<-'EOF'
		inputs: {p: sl.h5:/p, pb: sl.h5:/pb, v: sl.h5:/v, vb: sl.h5:/vb, q: sl.h5:/q, qb: sl.h5:/qb}
		steps:
		  - expr: sqrt(p*p + pb*pb)
		    out: o.h5:/w1
		  - expr: v * 2 + 1
		    out: v
		  - expr: vb - v
		    chunks: [1, 256, 48]
		    out: o.h5:/d
		  - expr: sqrt(q*q + qb*qb)
		    out: o.h5:/w2
	EOF
	# one process: slices of one chunk column (40 and 48 columns; the
	# last of the 2-d pass 20 wide), each chunk moved whole; 2 ranks: the
	# same slices of the 2-d pass, whose inputs, in a file the run writes
	# (/v in place), each rank moves alone (five chunk rows: one rank
	# walks an empty box's slices), the 3-d one's boxes 1.2 MiB, whose
	# chunks (1, 256, 48) do not lie whole in a box's runs; 3 ranks deal the five
	# chunk rows unevenly (2, 2, 1): boxes of rows, no slices.  The wide
	# /q's slices of 1024 columns are written to the contiguous /w2 in
	# bands of 8 (rows of 64 KiB runs; the last band 5 slices, the last
	# slice 12 wide), its last box 16 rows; under MPI its boxes whole
	run --separate-stderr h5u check --memory 20M sl.yaml
	assert_success
	assert_line --regexp '^step 1: expr sqrt, .*, boxes \(256, 2100\), 5 boxes in 53 slices 40 wide, written a box at a time, 1 of 1 ranks with work$'
	assert_line --regexp '^step 2: expr add, .*, boxes \(1, 256, 600\), 4 boxes in 13 slices 48 wide, written a slice at a time, 1 of 1 ranks with work$'
	assert_line --regexp '^step 4: expr sqrt, .*, boxes \(32, 12300\), 3 boxes in 13 slices 1024 wide, written 8 slices at a time, 1 of 1 ranks with work$'
	run --separate-stderr mpi 2 h5ufunc check --memory 20M sl.yaml
	assert_success
	assert_line --regexp '^step 1: expr sqrt, .*, boxes \(256, 2100\), 5 boxes in 53 slices 40 wide, written a box at a time, 2 of 2 ranks with work$'
	local n jobs=()
	for n in 0 2 3 4; do
		mkdir "r$n"
		cp sl.h5 sl.yaml "r$n/"
		if ((n == 0)); then
			(cd r0 && h5u run --memory 20M sl.yaml) || fail "one process: exit status $?"
		else
			(cd "r$n" && mpi "$n" h5ufunc run --memory 20M sl.yaml) || fail "$n ranks: exit status $?"
		fi
		jobs+=(:: same sl.h5 "r$n/o.h5" /w1 "np.sqrt(p*p + pb*pb)" /d "vb - (v * 2 + 1)" /w2 "np.sqrt(q*q + qb*qb)"
			:: same sl.h5 "r$n/sl.h5" /v "v * 2 + 1" /p p)
	done
	run ref "${jobs[@]:1}"
	[[ $status == 0 ]] || fail "$output"
}

@test "a budget that holds no chunk row of a wide array: boxes of lines that divide a chunk's extent, each slice one run of one chunk read in one call, each byte once; ragged, a bool result; NumPy's bits on one process and 2-4 ranks" {
	cp "$BATS_FILE_TMPDIR/c.h5" "$BATS_FILE_TMPDIR/cw.h5" .
	local n READS=() jobs=() mem=2M
	# /w (256, 4096) in (256, 32) chunks, 8 MiB a chunk row of each input,
	# more than its chunk cache holds: at 2M boxes of 16 lines (19 fit),
	# slices of one chunk column, each chunk read in 16 runs of 4 KiB (the
	# chunk cache, which a row of these chunks overflows, read every chunk
	# whole for every box that cut it: 14 times its bytes)
	planned 0 2M '{a: c.h5:/w, b: c.h5:/wb}' 'sqrt(a*a + b*b)'
	assert_line --regexp '^step 1: expr sqrt, .*, boxes \(16, 4096\), 16 boxes in 128 slices 32 wide, written a box at a time, 1 of 1 ranks with work$'
	pieces=16 traced 0 2 w eval -i a=c.h5:/w -i b=c.h5:/wb 'o0.h5:/c = sqrt(a*a + b*b)'
	jobs+=(:: same c.h5 o0.h5 /c "np.sqrt(w*w + wb*wb)")
	# ragged (300, 4500) in (128, 32): at 1M boxes of 8 lines (the last 4:
	# the last chunk row is 44 lines), the last slice 20 wide; a literal, a bool result
	planned 0 1M '{a: cw.h5:/x, b: cw.h5:/xb}' '(a * 2.5 + 1) > b'
	assert_line --regexp '^step 1: expr greater, .*, boxes \(8, 4500\), 38 boxes in 141 slices 32 wide, written a box at a time, 1 of 1 ranks with work$'
	for n in 0 2 3 4; do
		if ((n == 0)); then
			h5u eval --memory 1M -i a=cw.h5:/x -i b=cw.h5:/xb "x$n.h5:/c = (a * 2.5 + 1) > b" ||
				fail "one process: exit status $?"
			h5u eval --memory 2M -i a=c.h5:/w -i b=c.h5:/wb "w$n.h5:/c = sqrt(a*a + b*b)" ||
				fail "one process: exit status $?"
		else
			mpi "$n" h5ufunc eval --memory 1M -i a=cw.h5:/x -i b=cw.h5:/xb "x$n.h5:/c = (a * 2.5 + 1) > b" ||
				fail "$n ranks: exit status $?"
			mpi "$n" h5ufunc eval --memory 2M -i a=c.h5:/w -i b=c.h5:/wb "w$n.h5:/c = sqrt(a*a + b*b)" ||
				fail "$n ranks: exit status $?"
		fi
		jobs+=(:: same cw.h5 "x$n.h5" /c "(x * 2.5 + 1) > xb" :: same c.h5 "w$n.h5" /c "np.sqrt(w*w + wb*wb)")
	done
	check_reads "${jobs[@]}"
}


@test "under MPI, a budget that holds no chunk row of a wide array: boxes of lines that divide a chunk's extent dealt to the ranks, each slice one run of one chunk read by its rank alone, each byte once; a chunk's runs to one rank where that is even; ragged, ranks with fewer boxes, mpirun -n 1; a file the run writes keeps boxes of the usual size; NumPy's bits on 1-4 ranks" {
	cp "$BATS_FILE_TMPDIR/sl.h5" "$BATS_FILE_TMPDIR/cw.h5" .
	local n READS=() jobs=() alone
	# /p, /pb (1280, 2100) in (256, 40): five chunk rows, a row's 53 chunks
	# 4.3 MB, more than a chunk cache; at 2M boxes of 32 lines.  Dealt in a
	# chunk's runs of 256 lines where that is even (2 ranks: three and two,
	# within a quarter of a fair share), else in a box's (3 and 4 ranks),
	# where the ragged last chunk column (20 of 40 wide) is read in runs of
	# its stored chunks, padding and all
	# (the plan on mpirun -n 1 and on 3 ranks, which the 40 boxes deal to
	# unevenly; the runs on 1-4)
	for n in 1 2 3 4; do
		if ((n % 2)); then
			planned "$n" 2M '{a: sl.h5:/p, b: sl.h5:/pb}' 'sqrt(a*a + b*b)'
			assert_line --regexp "^step 1: expr sqrt, .*, boxes \(32, 2100\), 40 boxes in 53 slices 40 wide, written a box at a time, $n of $n ranks with work$"
		fi
		echo "tr$n: $n ranks, /p and /pb" >>traces.txt
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -ff -e trace=openat,open,$TRACE_READS \
			-o "tr$n" timeout 120 mpirun --oversubscribe -n "$n" h5ufunc eval --memory 2M \
			-i a=sl.h5:/p -i b=sl.h5:/pb "p$n.h5:/c = sqrt(a*a + b*b)" || fail "$n ranks: exit status $?"
		alone=$((n < 3))
		jobs+=(:: runs "tr$n" sl.h5 /p,/pb "$alone" :: same sl.h5 "p$n.h5" /c "np.sqrt(p*p + pb*pb)")
	done
	# ragged (300, 4500) in (128, 32) at 1M: boxes of 8 lines, the last
	# chunk row 44; three chunk rows never deal evenly to 2-4 ranks: 38
	# runs of a box's lines, so a rank of 3 walks an empty box at the end
	# (every rank enters the same collective writes); a literal, a bool
	# result
	for n in 2 3 4; do
		echo "tx$n: $n ranks, /x and /xb" >>traces.txt
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -ff -e trace=openat,open,$TRACE_READS \
			-o "tx$n" timeout 120 mpirun --oversubscribe -n "$n" h5ufunc eval --memory 1M \
			-i a=cw.h5:/x -i b=cw.h5:/xb "x$n.h5:/c = (a * 2.5 + 1) > b" || fail "$n ranks: exit status $?"
		jobs+=(:: runs "tx$n" cw.h5 /x,/xb 0 :: same cw.h5 "x$n.h5" /c "(x * 2.5 + 1) > xb")
	done
	planned 3 1M '{a: cw.h5:/x, b: cw.h5:/xb}' '(a * 2.5 + 1) > b'
	assert_line --regexp '^step 1: expr greater, .*, boxes \(8, 4500\), 38 boxes in 141 slices 32 wide, written a box at a time, 3 of 3 ranks with work$'
	# a file a later step writes (a new dataset of its own) is read
	# through MPI-IO: the boxes of the step before keep the usual size
	cat >w.yaml <<-'EOF2'
		inputs: {a: cw.h5:/x, b: cw.h5:/xb}
		steps:
		  - expr: sqrt(a*a + b*b)
		    out: y.h5:/c
		  - expr: a * 3 - b
		    out: cw.h5:/y
	EOF2
	run --separate-stderr mpi 2 h5ufunc check --memory 1M w.yaml
	assert_success
	refute_line --partial 'slices'
	for n in 2 3; do
		cp "$BATS_FILE_TMPDIR/cw.h5" "w$n.h5"
		sed "s/cw.h5/w$n.h5/; s/y.h5/y$n.h5/" w.yaml >"w$n.yaml"
		mpi "$n" h5ufunc run --memory 1M "w$n.yaml" || fail "$n ranks: exit status $?"
		jobs+=(:: same cw.h5 "w$n.h5" /y "x * 3 - xb" :: same cw.h5 "y$n.h5" /c "np.sqrt(x*x + xb*xb)")
	done
	run ref "${jobs[@]:1}"
	[[ $status == 0 ]] || fail "$output"$'\n'"$(cat traces.txt)"
}

@test "reductions and scans whose boxes cut chunk rows wider than a chunk cache read the runs of the chunks they cut: one pread a chunk a box, each byte once (strace) on one process and 2-3 ranks, each rank alone; ragged, 3-d, keepdims, initial, where=, a shared pass, gzip through HDF5; NumPy's bits on 1-4 ranks under 1M, on fewer under 4K (scans), 16M and the default budget, ranks with no rows" {
	cp "$BATS_FILE_TMPDIR/rr.h5" .
	local n mem d tr JOBS=() runs=()
	# /r (300, 4500) and /t (3, 130, 4500), a row crossing 141 chunks (4.6
	# and 4.5 MiB, more than a chunk cache): boxes of 16 and 12 lines at
	# 1M, parts of a chunk row each; /z deflated, read through HDF5; the
	# elements where= leaves out fold as the identity (h5ufunc(1), MISSING
	# VALUES)
	cat >rr.yaml <<-'EOF2'
		inputs: {r: rr.h5:/r, z: rr.h5:/z, m: rr.h5:/m, t: rr.h5:/t}
		steps:
		  - {reduce: add, in: r, axis: 1, out: o.h5:/r1}
		  - {reduce: add, in: r, axis: null, out: o.h5:/rn}
		  - {accumulate: add, in: r, axis: 1, out: o.h5:/a1}
		  - {reduce: add, in: r, axis: 0, keepdims: true, initial: 1.5, out: o.h5:/r0}
		  - {accumulate: add, in: r, axis: 0, out: o.h5:/a0}
		  - {reduce: add, in: r, axis: 1, where: m, out: o.h5:/rw}
		  - {accumulate: add, in: t, axis: 2, out: o.h5:/t2}
		  - {reduce: add, in: t, axis: [1, 2], out: o.h5:/tr}
		  - {accumulate: add, in: t, axis: 0, out: o.h5:/t0}
		  - {reduce: add, in: t, axis: 2, keepdims: true, out: o.h5:/tk}
		  - {accumulate: add, in: z, axis: 1, out: o.h5:/z1}
		  - {reduce: add, in: z, axis: 1, out: o.h5:/zr}
	EOF2
	local numpy=(/r1 "np.add.reduce(r, axis=1)" /rn "np.add.reduce(r, axis=None)"
		/a1 "np.add.accumulate(r, axis=1)" /r0 "np.add.reduce(r, axis=0, keepdims=True, initial=1.5)"
		/a0 "np.add.accumulate(r, axis=0)" /rw "np.add.reduce(np.where(m, r, 0.0), axis=1)"
		/t2 "np.add.accumulate(t, axis=2)" /tr "np.add.reduce(t, axis=(1, 2))"
		/t0 "np.add.accumulate(t, axis=0)" /tk "np.add.reduce(t, axis=2, keepdims=True)"
		/z1 "np.add.accumulate(z, axis=1)" /zr "np.add.reduce(z, axis=1)")
	for n in 0 2; do
		if ((n == 0)); then
			run --separate-stderr h5u check --memory 1M rr.yaml
		else
			run --separate-stderr mpi "$n" h5ufunc check --memory 1M rr.yaml
		fi
		assert_success
		assert_line --regexp '^step 1: reduce add, .*, boxes \(1[56], 4500\), (19|20) boxes, '
		assert_line '  in  rr.h5:/r float64 (300, 4500), read as the runs of its chunks the boxes cut'
		assert_line '  in  rr.h5:/t float64 (3, 130, 4500), read as the runs of its chunks the boxes cut'
		assert_line '  in  rr.h5:/z float64 (300, 4500)'
	done
	# 1M on one process and 1-4 ranks (3: a rank with fewer boxes), 16M
	# and the default budget on fewer
	for d in 1M-{0..4} 16M-{0,2,3} 256M-{0,3}; do
		mem=${d%-*} n=${d#*-}
		mkdir "$d"
		if ((n == 0)); then
			h5u run --memory "$mem" --json rr.yaml >"$d/p.json" || fail "one process, $mem: exit status $?"
		else
			mpi "$n" h5ufunc run --memory "$mem" --json rr.yaml >"$d/p.json" ||
				fail "$n ranks, $mem: exit status $?"
		fi
		mv o.h5 "$d/"
		JOBS+=(:: same rr.h5 "$d/o.h5" "${numpy[@]}")
	done
	# --json says which inputs were read so: /r and /t, not gzip /z, nor
	# /r by step 4, whose boxes hold whole chunks
	python3 -c '
import json
for n in (0, 2):
    steps = json.load(open(f"1M-{n}/p.json"))["steps"]
    got = [[i.get("read") for i in s["inputs"]] for s in steps]
    want = [["runs of its chunks"]] * 10 + [[None]] * 2
    want[3] = [None]
    assert got == want, (n, got)
'
	# 4K: scans in boxes of a part of a line, each part of a chunk one run;
	# the two scans of two datasets, each its own pass, in one run
	for n in 0 3; do
		d=4K-$n
		mkdir "$d"
		printf '%s\n' 'steps:' "  - {accumulate: add, in: rr.h5:/r, axis: 1, out: $d/o.h5:/a1}" \
			"  - {accumulate: add, in: rr.h5:/t, axis: 0, out: $d/o.h5:/t0}" >"$d.yaml"
		if ((n == 0)); then
			h5u run --memory 4K "$d.yaml" || fail "4K: exit status $?"
		else
			mpi "$n" h5ufunc run --memory 4K "$d.yaml" || fail "$n ranks, 4K: exit status $?"
		fi
		JOBS+=(:: same rr.h5 "$d/o.h5" /a1 "np.add.accumulate(r, axis=1)" /t0 "np.add.accumulate(t, axis=0)")
	done
	# /n's two rows on 4 ranks at the default budget: two ranks with none
	mpi 4 h5ufunc reduce add rr.h5:/n --axis 1 -o n4.h5:/r || fail "4 ranks, /n: exit status $?"
	mpi 4 h5ufunc accumulate add rr.h5:/n --axis 1 -o n4.h5:/a || fail "4 ranks, /n: exit status $?"
	JOBS+=(:: same rr.h5 n4.h5 /r "np.add.reduce(n, axis=1)" /a "np.add.accumulate(n, axis=1)")
	# every byte of every chunk read once (a ragged chunk's padding with
	# its run, once by each process that reads some of it), under 1M on one
	# process and 2 and 3 ranks: a scan and a sum over rows, a sum over all
	# axes of the 3-d /t, a scan along its first axis
	for n in 0 2 3; do
		for d in "accumulate r 1" "reduce r 1" "reduce t all" "accumulate t 0"; do
			# on 2 ranks two of them
			[[ $n == 2 && ($d == "reduce r 1" || $d == "accumulate t 0") ]] && continue
			set -- $d
			tr=q$n$1$2$3
			if ((n == 0)); then
				ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -ff -e trace=openat,open,$TRACE_READS \
					-o "$tr" h5ufunc "$1" add "rr.h5:/$2" --axis "$3" --memory 1M -o "o$tr.h5:/o" ||
					fail "$d: exit status $?"
			else
				ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -ff -e trace=openat,open,$TRACE_READS \
					-o "$tr" timeout 120 mpirun --oversubscribe -n "$n" h5ufunc "$1" add "rr.h5:/$2" \
					--axis "$3" --memory 1M -o "o$tr.h5:/o" --json >"o$tr.json" ||
					fail "$n ranks, $d: exit status $?"
			fi
			JOBS+=(:: runs "$tr" rr.h5 "/$2" 0
				:: same rr.h5 "o$tr.h5" /o "np.add.$1($2, axis=${3/all/None})")
		done
	done
	# each rank read its runs alone: no collective read
	python3 -c '
import glob, json
for name in glob.glob("oq*.json"):
    coll = [r["mpiio_coll_reads"] for r in json.load(open(name))["per_rank"]]
    assert len(coll) > 1 and not any(coll), (name, coll)
'
	run ref "${JOBS[@]:1}"
	[[ $status == 0 ]] || fail "$output"
}

@test "inputs no rank writes, in boxes of whole chunks: each rank reads its own chunks as stored, one call a chunk, not through MPI-IO; NumPy's bits on 1-4 and 6 ranks" {
	cp "$BATS_FILE_TMPDIR/sl.h5" "$BATS_FILE_TMPDIR/rc.h5" .
	cat >al.yaml <<-'EOF'
		inputs: {p: sl.h5:/p, pb: sl.h5:/pb, h: rc.h5:/h, r: rc.h5:/r, v: sl.h5:/v}
		steps:
		  - expr: sqrt(p*p + pb*pb)
		    out: o.h5:/w1
		  - reduce: add
		    in: h
		    axis: 1
		    out: o.h5:/r1
		  - expr: h * 2 + r
		    chunks: [256, 64]
		    out: o.h5:/e
		  - expr: v * 3 - 1
		    out: o.h5:/v
	EOF
	# 2 ranks: sl.h5's five chunk rows dealt in whole runs, its file read
	# by each rank alone, slices one chunk column as on one process
	run --separate-stderr mpi 2 h5ufunc check --memory 20M al.yaml
	assert_success
	assert_line --regexp '^step 1: expr sqrt, .*, boxes \(256, 2100\), 5 boxes in 53 slices 40 wide, written a box at a time, 2 of 2 ranks with work$'
	local n jobs=() tr
	for n in 0 1 2 3 4 6; do
		mkdir "r$n"
		if ((n == 0)); then
			h5u run --memory 20M --json al.yaml >"r$n/p.json" || fail "one process: exit status $?"
		else
			mpi "$n" h5ufunc run --memory 20M --json al.yaml >"r$n/p.json" || fail "$n ranks: exit status $?"
		fi
		mv o.h5 "r$n/"
		jobs+=(:: same sl.h5 "r$n/o.h5" /w1 "np.sqrt(p*p + pb*pb)" /v "v * 3 - 1"
			:: same rc.h5 "r$n/o.h5" /e "h * 2 + r" /r1 "np.add.reduce(h, axis=1)")
	done
	# 2 ranks: both files read by each rank alone, rc.h5 by its reduction
	# too (its boxes whole runs of chunk rows, as the pass's); 3, 4 and 6
	# ranks deal sl.h5's five chunk rows unevenly: collective reads
	python3 -c '
import json
for n in (2, 3, 4, 6):
    for r in json.load(open(f"r{n}/p.json"))["per_rank"]:
        assert (r["mpiio_coll_reads"] > 0) == (n > 2), (n, r)
'
	# an input file read only in whole chunks: no MPI-IO read on 2 ranks,
	# each of the 2 x 5 x 53 chunks of /p and /pb one read of its 81920
	# bytes (the ragged column's stored whole, read with its padding); on
	# 3 ranks, to which its five chunk rows do not deal evenly, boxes of
	# 128 lines that cut them (a row's 53 chunks overflow the chunk cache),
	# each slice one run of one chunk read by its rank alone: no MPI-IO
	# read either, each byte once
	for n in 2 3; do
		tr="al$n"
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -ff -e trace=openat,open,$TRACE_READS \
			-o "$tr" timeout 60 mpirun --oversubscribe -n "$n" h5ufunc eval --memory 20M --json \
			-i p=sl.h5:/p -i pb=sl.h5:/pb "o$n.h5:/w = sqrt(p*p + pb*pb)" >"$tr.json" ||
			fail "$n ranks: exit status $?"
		jobs+=(:: same sl.h5 "o$n.h5" /w "np.sqrt(p*p + pb*pb)")
	done
	jobs+=(:: whole al2 sl.h5 81920 530 :: runs al3 sl.h5 /p,/pb 0)
	python3 -c '
import json
# the MPI-IO reads of ranks that read alone are metadata read as the
# planning opens the file, none within a data call
for n in (2, 3):
    for r in json.load(open(f"al{n}.json"))["per_rank"]:
        assert r["mpiio_coll_reads"] == r["mpiio_data_reads"] == 0 < r["h5_reads"] and r["mpiio_reads"] > 0, (n, r)
'
	run ref "${jobs[@]:1}"
	[[ $status == 0 ]] || fail "$output"
}

@test "datasets of a file the run writes, in boxes of whole chunks: each rank moves its own alone, one call a chunk, no collective transfer, the journal's records a few a run; gzip and chunks cut by the boxes stay collective; NumPy's bits on 1-4 ranks" {
	cp "$BATS_FILE_TMPDIR/rc.h5" .
	# one pass writes four datasets in place (ragged (256, 64) chunks;
	# float32, complex and big-endian among them), reading /rb of the same
	# file; /z in gzip chunks, and the /rb it reads beside it, stay on
	# collective transfers
	cat >a.yaml <<-'EOF'
		inputs: {r: rc.h5:/r, rb: rc.h5:/rb, f: rc.h5:/f, c: rc.h5:/c, be: rc.h5:/be}
		steps:
		  - {expr: r * 2 + rb, out: r}
		  - {expr: f * f + 1, out: f}
		  - {expr: c * c, out: c}
		  - {expr: be * 2, out: be}
	EOF
	printf 'inputs: {z: rc.h5:/z, rb: rc.h5:/rb}\nsteps:\n  - {expr: z * 2 + rb, out: z}\n' >z.yaml
	# 2 and 4 ranks: the four chunk rows dealt in whole runs, slices of
	# one chunk column; 3 ranks: boxes of rows that cut chunks
	run --separate-stderr mpi 2 h5ufunc check a.yaml
	assert_success
	assert_line --regexp '^step 1: expr add, .*, boxes \(256, 1100\), 4 boxes in 18 slices 64 wide, written a slice at a time, 2 of 2 ranks with work$'
	run --separate-stderr mpi 3 h5ufunc check a.yaml
	assert_success
	assert_line --regexp '^step 1: expr add, .*, boxes \(238, 1100\), 6 boxes, 3 of 3 ranks with work$'
	local n jobs=()
	for n in 0 2 3 4; do
		mkdir "r$n"
		cp rc.h5 a.yaml z.yaml "r$n/"
		if ((n == 0)); then
			(cd r0 && h5u run a.yaml && h5u run z.yaml) || fail "one process: exit status $?"
		else
			(cd "r$n" && mpi "$n" h5ufunc run --json a.yaml >a.json && mpi "$n" h5ufunc run --json z.yaml >z.json) ||
				fail "$n ranks: exit status $?"
		fi
		jobs+=(:: same rc.h5 "r$n/rc.h5" /r "r * 2 + rb" /f "f * f + 1" /c "c * c" /be "be * 2" /z "z * 2 + rb" /rb rb)
	done
	# alone: no collective transfer of the data (HDF5's two collective
	# writes of metadata at the end), and the journal's records a few a
	# run of each dataset's chunks (2188 writes on rank 0 of 2, the rows
	# of ragged chunks among them: not a record each); otherwise
	# collective transfers
	python3 -c '
import json
for n in (2, 4):
    for r in json.load(open(f"r{n}/a.json"))["per_rank"]:
        assert r["mpiio_coll_reads"] == 0 and r["mpiio_coll_writes"] <= 2, (n, r)
        assert r["journal_records"] <= 100, (n, r)
for n, f in ((3, "a"), (2, "z"), (3, "z"), (4, "z")):
    for r in json.load(open(f"r{n}/{f}.json"))["per_rank"]:
        assert r["mpiio_coll_reads"] > 0 and r["mpiio_coll_writes"] > 2, (n, f, r)
'
	run ref "${jobs[@]:1}"
	[[ $status == 0 ]] || fail "$output"
}

# on_budgets YAML: run YAML, which writes o.h5, under --memory 64M, 3M and
# 300K, on one process (MEM-0) and on two of 1 to 4 ranks (MEM-N), each
# o.h5 moved into that directory, named in BUDGET_DIRS.  A covering
# design, not every budget at every rank count: each budget on one
# process and on two rank counts, each rank count under one budget or
# more, 3 and 4 ranks (ranks with few or no rows) under two.
on_budgets() {
	local mem n d
	local -A ranks=([64M]="0 2 4" [3M]="0 1 3" [300K]="0 3 4")
	BUDGET_DIRS=()
	for mem in 64M 3M 300K; do
		for n in ${ranks[$mem]}; do
			d=$mem-$n
			mkdir "$d"
			if ((n == 0)); then
				h5u run --memory "$mem" "$1" || fail "one process, $mem: exit status $?"
			else
				mpi "$n" h5ufunc run --memory "$mem" "$1" || fail "$n ranks, $mem: exit status $?"
			fi
			mv o.h5 "$d/"
			BUDGET_DIRS+=("$d")
		done
	done
}

# fold_recipe STEP...: a recipe of add steps, each STEP (reduce:AXIS or
# accumulate:AXIS; AXIS null: all axes) over ru.h5's /u and then over its
# gzip twin /z, so that no two consecutive reductions read one dataset
# (which would share one pass), written to o.h5:/uVAXIS and /zVAXIS (V: r
# or a, the verb's initial).
fold_recipe() {
	local step verb axis d
	printf 'inputs: {u: ru.h5:/u, z: ru.h5:/z}\nsteps:\n'
	for step in "$@"; do
		verb=${step%:*} axis=${step#*:}
		for d in u z; do
			printf '  - %s: add\n    in: %s\n    axis: %s\n    out: o.h5:/%s%s%s\n' \
				"$verb" "$d" "$axis" "$d" "${verb:0:1}" "$axis"
		done
	done
}

# fold_same OUT STEP...: the chunks_ref.py job, added to JOBS, that
# compares OUT's results of fold_recipe STEP... with NumPy's.
fold_same() {
	local out=$1 step verb axis d
	shift
	JOBS+=(:: same ru.h5 "$out")
	for step in "$@"; do
		verb=${step%:*} axis=${step#*:}
		for d in u z; do
			JOBS+=("/$d${verb:0:1}$axis" "np.add.$verb($d, axis=${axis/null/None})")
		done
	done
}

@test "reductions and scans under MPI: an input file read in boxes of whole chunks is read by each rank alone, each chunk in one call by one rank; through MPI-IO where the boxes cut chunks; ragged (1001, 37) in (64, 16), gzip, a shared pass, ranks sharing the folded axis; NumPy's bits on 1-4 and 6 ranks under several budgets" {
	cp "$BATS_FILE_TMPDIR/ru.h5" .
	local all=(reduce:0 reduce:1 reduce:null accumulate:0 accumulate:1) cut=(reduce:0 reduce:1 accumulate:0 accumulate:1)
	local n mem d step verb axis tr JOBS=()
	fold_recipe "${all[@]}" >all.yaml
	fold_recipe "${cut[@]}" >cut.yaml
	# 64M and 300K: every box holds whole chunks (runs of 64 rows dealt to
	# the ranks, 16 runs on 6 ranks; the 37 columns whole: too narrow to
	# deal, a reduction over axis 0 is one rank's, in blocks of whole
	# chunk rows); 8K: a scan's box across holds no chunk's 64 rows or 16
	# columns, a chained reduction's no run of 64 rows: MPI-IO.  64M and
	# 300K on one process and 6 ranks, and on two of 1-4 each, not every
	# budget at every rank count
	local -A ranks=([64M]="0 1 3 6" [300K]="0 2 4 6" [8K]="2 3")
	for mem in 64M 300K 8K; do
		for n in ${ranks[$mem]}; do
			d=$mem-$n
			[[ $mem == 8K ]] && d=cut$d
			mkdir "$d"
			if [[ $mem == 8K ]]; then
				mpi "$n" h5ufunc run --memory "$mem" --json cut.yaml >"$d/p.json" ||
					fail "$n ranks, $mem: exit status $?"
				fold_same "$d/o.h5" "${cut[@]}"
			elif ((n == 0)); then
				h5u run --memory "$mem" --json all.yaml >"$d/p.json" || fail "one process, $mem: exit status $?"
			else
				mpi "$n" h5ufunc run --memory "$mem" --json all.yaml >"$d/p.json" ||
					fail "$n ranks, $mem: exit status $?"
			fi
			[[ $mem == 8K ]] || fold_same "$d/o.h5" "${all[@]}"
			mv o.h5 "$d/"
		done
	done
	# int64 /i's sum and scan along axis 0, exact in any grouping: the
	# ranks share the 1001 rows (37 columns are too few to deal), dealt in
	# runs of 64 under 100K, read alone; in blocks of 27 rows under 24K,
	# through MPI-IO; each budget on 6 ranks and on one of 2 and 3
	printf '%s\n' 'inputs: {i: ru.h5:/i}' 'steps:' '  - {reduce: add, in: i, axis: 0, out: o.h5:/r}' \
		'  - {accumulate: add, in: i, axis: 0, out: o.h5:/a}' >shared.yaml
	run --separate-stderr mpi 3 h5ufunc check --memory 100K shared.yaml
	assert_success
	assert_line --regexp '^step 1: reduce add, .*, blocks of 128 along axis 0, dealt to the ranks; .*, 3 of 3 ranks with work$'
	assert_line --regexp '^step 2: accumulate add, .*, blocks of 64 along axis 0, dealt to the ranks; .*, 3 of 3 ranks with work$'
	local -A shared=([100K]="2 6" [24K]="3 6")
	for mem in 100K 24K; do
		for n in ${shared[$mem]}; do
			d=shared$mem-$n
			[[ $mem == 24K ]] && d=cut$d
			mkdir "$d"
			mpi "$n" h5ufunc run --memory "$mem" --json shared.yaml >"$d/p.json" ||
				fail "$n ranks, $mem: exit status $?"
			mv o.h5 "$d/"
			JOBS+=(:: same ru.h5 "$d/o.h5" /r "np.add.reduce(i, axis=0)" /a "np.add.accumulate(i, axis=0)")
		done
	done
	# consecutive reductions of /u share one pass (its boxes whole chunk
	# rows): read alone too
	mkdir host
	printf '%s\n' 'inputs: {u: ru.h5:/u}' 'steps:' '  - {reduce: add, in: u, axis: 1, out: host/o.h5:/s}' \
		'  - {reduce: maximum, in: u, axis: 1, out: host/o.h5:/m}' >host.yaml
	run --separate-stderr mpi 3 h5ufunc check host.yaml
	assert_success
	assert_line 'step 2: reduce maximum, fused into step 1'
	mpi 3 h5ufunc run --json host.yaml >host/p.json || fail "shared pass, 3 ranks: exit status $?"
	JOBS+=(:: same ru.h5 host/o.h5 /s "np.add.reduce(u, axis=1)" /m "np.maximum.reduce(u, axis=1)")
	python3 -c '
import glob, json
for name in glob.glob("*/p.json"):
    coll = [r["mpiio_coll_reads"] for r in json.load(open(name))["per_rank"]]
    if name.startswith("cut"):
        assert all(coll), (name, coll)
    elif len(coll) > 1:
        assert not any(coll), (name, coll)
'
	# each of the 16 x 3 chunks of /u read once in all, as stored (8192
	# bytes, the ragged ones too), by the rank whose box holds it: each
	# step on 2 or 3 ranks, the reduction over all axes on both
	local -A steps=([2]="reduce:0 reduce:null accumulate:1" [3]="reduce:1 reduce:null accumulate:0")
	for n in 2 3; do
		for step in ${steps[$n]}; do
			verb=${step%:*} axis=${step#*:}
			tr=f$n$verb$axis
			ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -ff -e trace=openat,open,$TRACE_READS \
				-o "$tr" timeout 60 mpirun --oversubscribe -n "$n" h5ufunc "$verb" add ru.h5:/u \
				--axis "${axis/null/all}" --memory 64M -o "o$tr.h5:/r" || fail "$n ranks, $step: exit status $?"
			JOBS+=(:: whole "$tr" ru.h5 8192 48
				:: same ru.h5 "o$tr.h5" /r "np.add.$verb(u, axis=${axis/null/None})")
		done
	done
	run ref "${JOBS[@]:1}"
	[[ $status == 0 ]] || fail "$output"
}

@test "one dataset whose boxes cut its chunks takes no other off the direct reader: under MPI-IO each rank reads the plain ones' chunks by one pread each through its own read-only descriptor; ragged, ranks with no rows; a file written in the same run never so; NumPy's bits on 1-4 ranks" {
	cp "$BATS_FILE_TMPDIR/mx.h5" .
	# /t's two chunk rows are cut by 2-4 ranks: the file goes through
	# MPI-IO, /t collectively; /odd's five, which 3 and 4 ranks cut too,
	# are read in runs of one chunk by each rank alone (a row's 53 chunks
	# overflow the chunk cache: boxes of 128 lines on 3 ranks); /a's
	# reductions (one pass) read its 80 chunks, ragged on both axes, /n's
	# its 4 on two ranks (none on the others), each chunk read once by one
	# pread of its bytes through a descriptor of the rank's own; the
	# scan, in whole chunk rows of /a, independently
	cat >mx.yaml <<-'EOF'
		inputs: {odd: mx.h5:/odd, a: mx.h5:/a, t: mx.h5:/t, n: mx.h5:/n}
		steps:
		  - {expr: odd * 2 - 1, out: o.h5:/odd}
		  - {reduce: add, in: a, axis: 1, out: o.h5:/a1}
		  - {reduce: add, in: a, axis: null, out: o.h5:/aall}
		  - {reduce: add, in: t, axis: 1, out: o.h5:/t1}
		  - {reduce: maximum, in: n, axis: 1, out: o.h5:/n1}
		  - {reduce: add, in: n, axis: null, out: o.h5:/nall}
		  - {accumulate: add, in: a, axis: 1, out: o.h5:/c1}
	EOF
	# in place, then read again, and a new file read by a later step:
	# written by the run, so never read by the direct reader
	cat >w.yaml <<-'EOF'
		inputs: {a: w.h5:/a, n: w.h5:/n}
		steps:
		  - {expr: a * 2, out: a}
		  - {expr: n - 1, chunks: [32, 64], out: o.h5:/b}
		  - {reduce: add, in: a, axis: 1, out: o.h5:/s}
		  - {reduce: add, in: o.h5:/b, axis: null, out: o.h5:/bs}
	EOF
	run --separate-stderr mpi 3 h5ufunc check --memory 20M mx.yaml
	assert_success
	assert_line --regexp '^step 1: expr subtract, .*, boxes \(128, 2100\), 10 boxes in 53 slices 40 wide, written a box at a time, 3 of 3 ranks with work$'
	assert_line --regexp '^step 5: reduce maximum, .*, boxes \(32, 100\), 2 boxes, 2 of 3 ranks with work$'
	local n jobs=() tr
	for n in 0 1 2 3 4; do
		mkdir -p "r$n/w"
		cp mx.h5 "r$n/w/w.h5"
		if ((n == 0)); then
			h5u run --memory 20M mx.yaml || fail "one process: exit status $?"
			mv o.h5 "r$n/"
			(cd "r$n/w" && h5u run --memory 20M ../../w.yaml) || fail "one process, w.yaml: exit status $?"
		else
			tr="r$n/mx"
			ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -ff -e trace=openat,open,$TRACE_READS \
				-o "$tr" timeout 60 mpirun --oversubscribe -n "$n" h5ufunc run --memory 20M --json mx.yaml \
				>"r$n/p.json" || fail "$n ranks: exit status $?"
			mv o.h5 "r$n/"
			(cd "r$n/w" && ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -ff \
				-e trace=openat,open,$TRACE_READS -o tr timeout 60 mpirun --oversubscribe -n "$n" \
				h5ufunc run --memory 20M ../../w.yaml) || fail "$n ranks, w.yaml: exit status $?"
			# one rank, the only one in MPI-IO's collective calls, reads
			# every plain chunk so (/t's 10 and /odd's 5 x 53 too, its
			# ragged column's stored whole)
			if ((n == 1)); then
				jobs+=(:: own "$tr" mx.h5 32768 90 :: own "$tr" mx.h5 81920 265)
			else
				jobs+=(:: own "$tr" mx.h5 32768 80)
			fi
			jobs+=(:: own "$tr" mx.h5 16384 4 :: runs "$tr" mx.h5 /odd $((n < 3)))
			jobs+=(:: own "r$n/w/tr" w.h5 32768 0 :: own "r$n/w/tr" o.h5 16384 0)
		fi
		jobs+=(:: same mx.h5 "r$n/o.h5" /odd "odd * 2 - 1" /a1 "np.add.reduce(a, axis=1)"
			/aall "np.add.reduce(a, axis=None)" /t1 "np.add.reduce(t, axis=1)"
			/n1 "np.maximum.reduce(n, axis=1)" /nall "np.add.reduce(n, axis=None)"
			/c1 "np.add.accumulate(a, axis=1)"
			:: same mx.h5 "r$n/w/o.h5" /s "np.add.reduce(a * 2, axis=1)" /b "n - 1"
			/bs "np.add.reduce(n - 1, axis=None)"
			:: same mx.h5 "r$n/w/w.h5" /a "a * 2")
	done
	# /t through MPI-IO's collective reads on 2-4 ranks
	python3 -c '
import json
for n in (2, 3, 4):
    assert all(r["mpiio_coll_reads"] > 0 for r in json.load(open(f"r{n}/p.json"))["per_rank"]), n
'
	run ref "${jobs[@]:1}"
	[[ $status == 0 ]] || fail "$output"
}

@test "reductions that share a pass fold their pieces out of the chunks as read: chunk widths that cut NumPy's blocks of 128 and pieces of 8192, rows of two pieces, pieces across rows, 3-d, float32, complex; a reduction of its own pass; NumPy's bits on 1-4 ranks under several budgets" {
	cp "$BATS_FILE_TMPDIR/fo.h5" .
	# a sum over the last axes and one over all axes of each dataset, one
	# pass each: boxes of whole chunk rows read as their chunks (64M, and
	# 3M but for /w), on one process, 2 and 3 ranks (the ragged last
	# chunk row of /c through HDF5); boxes that cut chunks read through
	# HDF5's gather (300K; /w at 3M); 4 ranks, whose shares cut chunks of
	# /c, read fo.h5 through MPI-IO
	{
		echo 'inputs: {w: fo.h5:/w, f: fo.h5:/f, v: fo.h5:/v, c: fo.h5:/c}'
		echo 'steps:'
		for name in w f v c; do
			local last=1
			[[ $name == v ]] && last='[1, 2]'
			echo "  - {reduce: add, in: $name, axis: $last, out: o.h5:/${name}r}"
			echo "  - {reduce: add, in: $name, axis: null, out: o.h5:/${name}a}"
		done
	} >sums.yaml
	run --separate-stderr h5u check sums.yaml
	assert_success
	assert_line 'step 2: reduce add, fused into step 1'
	assert_line 'step 8: reduce add, fused into step 7'
	local d name JOBS=() BUDGET_DIRS
	on_budgets sums.yaml
	for d in "${BUDGET_DIRS[@]}"; do
		JOBS+=(:: same fo.h5 "$d/o.h5" /wr "np.add.reduce(w, axis=1)" /wa "np.add.reduce(w, axis=None)"
			/fr "np.add.reduce(f, axis=1)" /fa "np.add.reduce(f, axis=None)"
			/vr "np.add.reduce(v, axis=(1, 2))" /va "np.add.reduce(v, axis=None)"
			/cr "np.add.reduce(c, axis=1)" /ca "np.add.reduce(c, axis=None)")
	done
	# a reduction of its own pass, read so too: no two steps in a row
	# reduce one dataset, so none shares another's pass (check says so),
	# one run a rank count
	printf '%s\n' 'steps:' '  - {reduce: add, in: fo.h5:/w, axis: 1, out: O:/wr}' \
		'  - {reduce: add, in: fo.h5:/f, axis: 1, out: O:/fr}' \
		'  - {reduce: add, in: fo.h5:/w, axis: null, out: O:/wa}' \
		'  - {reduce: add, in: fo.h5:/f, axis: null, out: O:/fa}' >own.yaml
	run --separate-stderr h5u check own.yaml
	assert_success
	refute_output --partial 'fused'
	for n in 0 2 3; do
		sed "s/O:/one$n.h5:/" own.yaml >"own$n.yaml"
		if ((n == 0)); then
			h5u run "own$n.yaml" || fail "one process: exit status $?"
		else
			mpi "$n" h5ufunc run "own$n.yaml" || fail "$n ranks: exit status $?"
		fi
		JOBS+=(:: same fo.h5 "one$n.h5" /wr "np.add.reduce(w, axis=1)" /wa "np.add.reduce(w, axis=None)"
			/fr "np.add.reduce(f, axis=1)" /fa "np.add.reduce(f, axis=None)")
	done
	run ref "${JOBS[@]:1}"
	[[ $status == 0 ]] || fail "$output"
}

@test "sums over wide rows fold a band of chunk columns at a time through NumPy's pairwise tree: widths that cut its blocks of 128 and pieces of 8192, ragged last chunk columns and rows, float32, complex, 3-d, initial=, ranks with no rows, a chunk column wider than a band; NumPy's bits on 1-4 ranks under several budgets" {
	cp "$BATS_FILE_TMPDIR"/fb-?.h5 .
	# rows of whole pieces: a sum over the trailing axes and one over all
	# share a pass and are folded from the chunks a band at a time (/r: a
	# row a group, its last piece short, with initial=), on one process
	# and on ranks whose boxes hold whole chunks (a file of boxes that cut
	# them is read through MPI-IO, and through HDF5's gather under 300K);
	# magnitudes over twelve decades, so that a sum folded in another
	# order than NumPy's tree gives other bits
	{
		echo 'inputs: {w: fb-w.h5:/w, f: fb-f.h5:/f, c: fb-c.h5:/c, v: fb-v.h5:/v, r: fb-r.h5:/r, n: fb-n.h5:/n, k: fb-k.h5:/k}'
		echo 'steps:'
		for name in w f c v n k; do
			local last=1
			[[ $name == v ]] && last='[1, 2]'
			echo "  - {reduce: add, in: $name, axis: $last, out: o.h5:/${name}r}"
			echo "  - {reduce: add, in: $name, axis: null, out: o.h5:/${name}a}"
		done
		echo "  - {reduce: add, in: r, axis: 1, initial: 0.5, out: o.h5:/rr}"
	} >sums.yaml
	local n d in=fb-w.h5,fb-f.h5,fb-c.h5,fb-v.h5,fb-r.h5,fb-n.h5,fb-k.h5 JOBS=() BUDGET_DIRS
	on_budgets sums.yaml
	for d in "${BUDGET_DIRS[@]}"; do
		JOBS+=(:: same "$in" "$d/o.h5" /wr "np.add.reduce(w, axis=1)" /wa "np.add.reduce(w, axis=None)"
			/fr "np.add.reduce(f, axis=1)" /fa "np.add.reduce(f, axis=None)"
			/cr "np.add.reduce(c, axis=1)" /ca "np.add.reduce(c, axis=None)"
			/vr "np.add.reduce(v, axis=(1, 2))" /va "np.add.reduce(v, axis=None)"
			/nr "np.add.reduce(n, axis=1)" /na "np.add.reduce(n, axis=None)"
			/kr "np.add.reduce(k, axis=1)" /ka "np.add.reduce(k, axis=None)"
			/rr "np.add.reduce(r, axis=1, initial=0.5)")
	done
	# the one-liner's pass: a step of its own, two datasets in one run
	printf '%s\n' 'steps:' '  - {reduce: add, in: fb-w.h5:/w, axis: 1, out: O:/wr}' \
		'  - {reduce: add, in: fb-f.h5:/f, axis: null, out: O:/fa}' >own.yaml
	run --separate-stderr h5u check own.yaml
	assert_success
	refute_output --partial 'fused'
	for n in 0 2; do
		sed "s/O:/one$n.h5:/" own.yaml >"own$n.yaml"
		if ((n == 0)); then
			h5u run "own$n.yaml" || fail "one process: exit status $?"
		else
			mpi "$n" h5ufunc run "own$n.yaml" || fail "$n ranks: exit status $?"
		fi
		JOBS+=(:: same "$in" "one$n.h5" /wr "np.add.reduce(w, axis=1)" /fa "np.add.reduce(f, axis=None)")
	done
	run ref "${JOBS[@]:1}"
	[[ $status == 0 ]] || fail "$output"
	run --separate-stderr h5u reduce add fb-w.h5:/w --axis all
	assert_success
	[[ $output == "$(/usr/bin/python3 -c "import h5py; print(repr(float(h5py.File('fb-w.h5')['w'][()].sum())))")" ]] ||
		fail "printed $output"
	# a band at a time: more reads than the 5 boxes of whole chunk rows
	run --separate-stderr h5u reduce add fb-w.h5:/w --axis 1 -o j.h5:/s --json
	assert_success
	local reads
	reads=$(/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["per_rank"][0]["h5_reads"])' <<<"$output")
	((reads > 10)) || fail "$reads reads: the boxes read whole"
}

@test "the band fold beyond float sums: integer sums that wrap, int32 and bool sums in int64, float16 sums through the float32 tree, maximum, minimum, fmax, fmin with NaNs in several chunks and pieces, logical and bitwise folds, 3-d, initial=, ranks with no rows; NumPy's bits on 1-4 ranks under several budgets" {
	cp "$BATS_FILE_TMPDIR"/fe-?.h5 .
	# each pair over the trailing axes and over all shares a pass, folded a
	# band of chunk columns at a time where its rows are whole pieces
	# (/n's rows of 20000 are a group each: its all-axes folds take the
	# box of whole chunk rows)
	local pairs=(
		"add i 1" "maximum i 1" "bitwise_xor i 1" "multiply i 1"
		"add h 1" "maximum n 1" "minimum n 1" "fmax n 1" "fmin n 1"
		"logical_and b 1" "logical_or b 1" "maximum u [1, 2]" "bitwise_or u [1, 2]" "add k 1"
		"add j 1" "maximum j 1" "add u [1, 2]" "add b 1"
	)
	local p uf name axis j=0 want=()
	{
		echo 'inputs: {i: fe-i.h5:/i, h: fe-h.h5:/h, n: fe-n.h5:/n, b: fe-b.h5:/b, u: fe-u.h5:/u, k: fe-k.h5:/k, j: fe-j.h5:/j}'
		echo 'steps:'
		for p in "${pairs[@]}"; do
			read -r uf name axis <<<"$p"
			echo "  - {reduce: $uf, in: $name, axis: $axis, out: o.h5:/r$j}"
			echo "  - {reduce: $uf, in: $name, axis: null, out: o.h5:/a$j}"
			axis=${axis//\[/(}
			want+=("/r$j" "np.$uf.reduce($name, axis=${axis//]/)})" "/a$j" "np.$uf.reduce($name, axis=None)")
			j=$((j + 1))
		done
		echo "  - {reduce: maximum, in: n, axis: 1, initial: 1.0e+5, out: o.h5:/ni}"
		echo "  - {reduce: add, in: k, axis: 1, initial: 7, keepdims: true, out: o.h5:/ki}"
		echo "  - {reduce: add, in: h, axis: 1, dtype: float32, out: o.h5:/hd}"
	} >folds.yaml
	want+=(/ni "np.maximum.reduce(n, axis=1, initial=1.0e+5)" /ki "np.add.reduce(k, axis=1, initial=7, keepdims=True)"
		/hd "np.add.reduce(h, axis=1, dtype=np.float32)")
	run --separate-stderr h5u check folds.yaml
	assert_success
	assert_line 'step 2: reduce add, fused into step 1'
	local d in=fe-i.h5,fe-h.h5,fe-n.h5,fe-b.h5,fe-u.h5,fe-k.h5,fe-j.h5 JOBS=() BUDGET_DIRS
	on_budgets folds.yaml
	for d in "${BUDGET_DIRS[@]}"; do
		JOBS+=(:: same "$in" "$d/o.h5" "${want[@]}")
	done
	run ref "${JOBS[@]:1}"
	[[ $status == 0 ]] || fail "$output"
	# a band at a time: more reads than the boxes of whole chunk rows
	# (as many as `check` counts: each read whole on the box route); the
	# int32 sum read as stored, each band cast to int64
	local case boxes reads
	for case in "add i" "maximum n" "add h" "bitwise_xor i" "logical_or b" "add j"; do
		read -r uf name <<<"$case"
		printf 'steps:\n  - {reduce: %s, in: fe-%s.h5:/%s, axis: 1, out: j.h5:/s}\n' "$uf" "$name" "$name" >one.yaml
		rm -f j.h5
		run --separate-stderr h5u check one.yaml
		assert_success
		boxes=${lines[0]%% boxes,*}
		boxes=${boxes##* }
		run --separate-stderr h5u run one.yaml --json
		assert_success
		reads=$(/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["per_rank"][0]["h5_reads"])' <<<"$output")
		((reads > boxes)) || fail "$case: $reads reads of $boxes boxes: the boxes read whole"
	done
}

@test "raw chunks read as stored on one process, each slice one chunk column: ragged edges, empty, 3-d, odd dtypes, packed; filtered, byte-swapped and unwritten chunks through HDF5's path; NumPy's bits on 1-4 ranks" {
	cp "$BATS_FILE_TMPDIR/rc.h5" .
	# NAME|EXPRESSION|NumPy's (or, for a packed input, its unpacked) value|slice width
	local cases=(
		"r|sqrt(r*r + rb*rb)|np.sqrt(r*r + rb*rb)|64"
		"f|f * f + 1|f * f + 1|64"
		"i|i * r|i * r|64"
		"c|c * c|c * c|64"
		"q|q * r|q * r|64"
		"v|v * 2 - 1|v * 2 - 1|64"
		"g|g * 3 + 1|g * 3 + 1|"
		"p|p * 2|p * 2|64"
		"k|k * 2|k * 2|"
		"z|z * 2 + r|z * 2 + r|64"
		"be|be * 2|be * 2|64"
		"h|h * 2|h * 2|64"
		"e|e + 1|e + 1|"
	)
	local c name expr want wide steps="" jobs=() n
	for c in "${cases[@]}"; do
		IFS='|' read -r name expr want wide <<<"$c"
		printf 'steps:\n  - expr: %s\n    out: o.h5:/%s\n' "$expr" "$name" >"$name.yaml"
		sed -i "1i inputs: {r: rc.h5:/r, rb: rc.h5:/rb, f: rc.h5:/f, i: rc.h5:/i, c: rc.h5:/c, q: rc.h5:/q, v: rc.h5:/v, g: rc.h5:/g, p: rc.h5:/p, k: rc.h5:/k, z: rc.h5:/z, be: rc.h5:/be, h: rc.h5:/h, e: rc.h5:/e}" "$name.yaml"
		run --separate-stderr h5u check --memory 16M "$name.yaml"
		assert_success
		if [[ $wide ]]; then
			assert_line --regexp "^step 1: .* in [0-9]+ slices $wide wide, written a box at a time, 1 of 1 ranks with work$"
		else
			refute_line --regexp "slices"
		fi
		# one process, each case its own pass; a budget that holds no
		# chunk row reads boxes of rows, through HDF5's path
		h5u run --memory 16M "$name.yaml" || fail "$name: exit status $?"
		mv o.h5 "o$name.h5"
		h5u run --memory 4M "$name.yaml" || fail "$name under 4M: exit status $?"
		mv o.h5 "o${name}4.h5"
		if [[ $name == [pk] ]]; then
			jobs+=(:: decoded rc.h5 "o$name.h5" "/$name" "$name" "$want"
				:: decoded rc.h5 "o${name}4.h5" "/$name" "$name" "$want")
		else
			jobs+=(:: same rc.h5 "o$name.h5" "/$name" "$want" :: same rc.h5 "o${name}4.h5" "/$name" "$want")
		fi
		steps+=$(sed -n '/^steps:/,$p' "$name.yaml" | tail -n +2)$'\n'
	done
	# a reduction whose boxes are single chunks under a small budget
	h5u reduce add rc.h5:/r --axis 0 --memory 200K -o oR.h5:/r || fail "reduce: exit status $?"
	jobs+=(:: same rc.h5 oR.h5 /r "np.add.reduce(r, axis=0)")
	# 2-4 ranks: every case in one recipe, collective hyperslabs
	{ head -1 r.yaml; echo steps:; printf '%s' "$steps"; } >all.yaml
	for n in 2 3 4; do
		mkdir "r$n"
		(cd "r$n" && cp ../rc.h5 ../all.yaml . && mpi "$n" h5ufunc run --memory 16M all.yaml) ||
			fail "$n ranks: exit status $?"
		for c in "${cases[@]}"; do
			IFS='|' read -r name expr want wide <<<"$c"
			if [[ $name == [pk] ]]; then
				jobs+=(:: decoded rc.h5 "r$n/o.h5" "/$name" "$name" "$want")
			else
				jobs+=(:: same rc.h5 "r$n/o.h5" "/$name" "$want")
			fi
		done
	done
	run ref "${jobs[@]:1}"
	[[ $status == 0 ]] || fail "$output"
}

# in_rank_dirs FILE FN: FN RUN... in a directory rN holding a copy of
# FILE, for one process (N 0, RUN h5u) and 1-4 ranks (RUN mpi N h5ufunc),
# $n set to N; the test fails at the first that fails.
in_rank_dirs() {
	local file=$1 fn=$2 n run
	for n in 0 1 2 3 4; do
		mkdir "r$n"
		cp "$file" "r$n/"
		run=(h5u)
		((n == 0)) || run=(mpi "$n" h5ufunc)
		(cd "r$n" && "$fn" "${run[@]}") || fail "$n ranks (0: one process): exit status $?"
	done
}

# takes J: whether the run numbered J is one that $n takes: each on one
# process (n 0), and under MPI on the rank counts of its parity (1 and
# 3, or 2 and 4), a covering design of runs and rank counts, not their
# product (each rank count takes half the runs, 1 and 4 among them)
takes() {
	((n == 0 || ($1 - n) % 2 == 0))
}

# refused_in_place RANKS FILE:/PATH WHY BEFORE: writing FILE:/PATH in place
# on each of RANKS ranks is refused (exit 2) because its chunks are WHY,
# and FILE is still BEFORE, byte for byte.
refused_in_place() {
	local n
	for n in $1; do
		run --separate-stderr mpi "$n" h5ufunc eval -i "v=$2" 'v = v * 2'
		[[ $status == 2 ]] || fail "$n ranks: exit status $status, $stderr"
		[[ ${stderr%%$'\n'*} == "h5ufunc: eval: '$2' has chunks $3: HDF5 1.10 cannot write it in place under MPI (run on one process, or write a new output)" ]] ||
			fail "$n ranks: $stderr"
	done
	cmp "${2%%:/*}" "$4" || fail "${2%%:/*} changed"
}

# never_written RUN...: the runs of the chunks-never-written test that
# $n takes
never_written() {
	{ ! takes 1 || "$@" eval -i h=../rc.h5:/h -i r=../rc.h5:/r 'o.h5:/e = h * 2 + r'; } &&
		{ ! takes 2 || "$@" reduce add ../rc.h5:/h --axis 0 -o o.h5:/r0; } &&
		{ ! takes 3 || "$@" reduce add ../rc.h5:/h --axis all -o o.h5:/ra; } &&
		{ ! takes 4 || "$@" accumulate add ../rc.h5:/h --axis 1 -o o.h5:/c1; } &&
		{ ! takes 5 || "$@" eval -i v=nw.nc:/v 'o.h5:/v = v * 2'; } &&
		{ ! takes 6 || "$@" eval -i v=nw.nc:/v 'v = v + 1'; }
}

# stored_raw RUN...: the runs of the chunks-stored-without-filters test
# that $n takes, under budgets whose boxes cut ix.h5:/gz's chunks (and
# some that do not)
stored_raw() {
	{ ! takes 1 || "$@" eval -i g=ix.h5:/gz 'o.h5:/e = g * 2 + 1' --memory 8K; } &&
		{ ! takes 2 || "$@" eval -i g=ix.h5:/gz 'o.h5:/s = sqrt(g) * 0.5'; } &&
		{ ! takes 3 || "$@" eval -i g=ix.h5:/gz 'ix.h5:/g2 = g - 3' --memory 8K; } &&
		{ ! takes 4 || "$@" reduce add ix.h5:/gz --axis 0 -o o.h5:/r0 --memory 8K; } &&
		{ ! takes 5 || "$@" reduce maximum ix.h5:/gz --axis 1 -o o.h5:/r1; } &&
		{ ! takes 6 || "$@" reduce add ix.h5:/gz --axis all -o o.h5:/ra --memory 160K; } &&
		{ ! takes 7 || "$@" accumulate add ix.h5:/gz --axis 0 -o o.h5:/c0 --memory 8K; } &&
		{ ! takes 8 || "$@" accumulate multiply ix.h5:/gz --axis 1 -o o.h5:/c1; }
}

# same_taken REF OUT J /PATH EXPR [J /PATH EXPR]...: the chunks_ref.py
# job, added to jobs, comparing those of OUT's /PATHs whose run J $n
# took with NumPy's EXPR of REF
same_taken() {
	local ref=$1 out=$2 pairs=()
	shift 2
	while (($# >= 3)); do
		! takes "$1" || pairs+=("$2" "$3")
		shift 3
	done
	((${#pairs[@]} == 0)) || jobs+=(:: same "$ref" "$out" "${pairs[@]}")
}

@test "chunks never written read as their fill value on 1-4 ranks: h5py's partly written /h, a variable ncgen never wrote; elementwise, reduce, accumulate, in place; an in-place write into a partly written dataset refused under MPI" {
	cp "$BATS_FILE_TMPDIR/rc.h5" .
	cat >nw.cdl <<-'EOF'
		netcdf nw {
		dimensions:
		  y = 300 ;
		  x = 200 ;
		variables:
		  double v(y, x) ;
		    v:_ChunkSizes = 128, 64 ;
		}
	EOF
	ncgen -k nc4 -o nw.nc nw.cdl
	local n jobs=()
	in_rank_dirs nw.nc never_written
	for n in 0 1 2 3 4; do
		same_taken rc.h5 "r$n/o.h5" 1 /e "h * 2 + r" 2 /r0 "np.add.reduce(h, axis=0)" \
			3 /ra "np.add.reduce(h, axis=None)" 4 /c1 "np.add.accumulate(h, axis=1)"
		same_taken nw.nc "r$n/o.h5" 5 /v "v * 2"
		same_taken nw.nc "r$n/nw.nc" 6 /v "v + 1"
	done
	# in place into /h: one process writes it; under MPI HDF5 1.10 cannot
	cp rc.h5 one.h5
	h5u eval -i h=one.h5:/h 'h = h * 2' || fail "in place, one process: exit status $?"
	jobs+=(:: same rc.h5 one.h5 /h "h * 2")
	refused_in_place "1 3" rc.h5:/h "that were never written" "$BATS_FILE_TMPDIR/rc.h5"
	run ref "${jobs[@]:1}"
	[[ $status == 0 ]] || fail "$output"
}

@test "chunks stored without their filters (filter mask 3) on 1-4 ranks: elementwise to a new file and beside it in its own file, under budgets that cut the chunks, reduce, accumulate; in place on one process, refused under MPI" {
	ref index-files . || fail "index-files: exit status $?"
	cp ix.h5 before.h5
	local n jobs=()
	in_rank_dirs ix.h5 stored_raw
	for n in 0 1 2 3 4; do
		same_taken ix.h5 "r$n/o.h5" 1 /e "gz * 2 + 1" 2 /s "np.sqrt(gz) * 0.5" \
			4 /r0 "np.add.reduce(gz, axis=0)" 5 /r1 "np.maximum.reduce(gz, axis=1)" \
			6 /ra "np.add.reduce(gz, axis=None)" 7 /c0 "np.add.accumulate(gz, axis=0)" \
			8 /c1 "np.multiply.accumulate(gz, axis=1)"
		same_taken ix.h5 "r$n/ix.h5" 3 /g2 "gz - 3"
		jobs+=(:: same ix.h5 "r$n/ix.h5" /gz "gz")
	done
	# in place: one process writes it; under MPI HDF5 1.10 would read the raw chunk through the filters
	cp ix.h5 one.h5
	h5u eval -i g=one.h5:/gz 'g = g * 2 + 1' --memory 8K || fail "in place, one process: exit status $?"
	jobs+=(:: same ix.h5 one.h5 /gz "gz * 2 + 1")
	refused_in_place "2 4" ix.h5:/gz "stored without their filters" before.h5
	run ref "${jobs[@]:1}"
	[[ $status == 0 ]] || fail "$output"
}

@test "chunk indexes read whole (chunkindex.h): every chunk h5py lists, in its order, 1-3 and 10 axes, sparse, gzip, 10000 chunks, headers of version 1 and 2, the layout in a continuation block; other indexes refused; in place through it, saved exactly" {
	unit_program CHUNKINDEXDUMP chunkindexdump || return 1
	ref index-files . || fail "index-files: exit status $?"
	local f names=(a1 a2 a3 many sparse s3 gz empty one ext attrs deep)
	run ref continued ix.h5 deep :: continued ix108.h5 deep :: \
		index "$CHUNKINDEXDUMP" ix.h5 "${names[@]}" :: index "$CHUNKINDEXDUMP" ix108.h5 "${names[@]}" :: \
		refused "$CHUNKINDEXDUMP" latest.h5 fixed grow both single
	[[ $status == 0 ]] || fail "$output"
	# in place with the journal, one process: its announcements come from the index
	# (no history: each run's longer line would add to the metadata saved)
	local d jobs=()
	for f in ix ix108; do
		cp "$f.h5" "$f-before.h5"
		for d in many attrs deep sparse; do
			h5u eval --no-history -i "a=$f.h5:/$d" 'a = a * 2 + 1' --json >"$f-$d.json" ||
				fail "$f:/$d: exit status $?"
			[[ $d == sparse ]] && continue   # its new chunks: nothing of the file's overwritten
			run /usr/bin/python3 "$H5U_TESTS/interrupted_ref.py" saved "$f-before.h5" "$d" "$f-$d.json"
			[[ $status == 0 ]] || fail "$f:/$d: $output"
		done
		jobs+=(:: same "$f-before.h5" "$f.h5" /many "many * 2 + 1" /attrs "attrs * 2 + 1" /deep "deep * 2 + 1"
			/sparse "sparse * 2 + 1")
	done
	run ref "${jobs[@]:1}"
	[[ $status == 0 ]] || fail "$output"
}

@test "a userblock (MATLAB v7.3 files): chunk addresses count it, the index read whole or each chunk asked of HDF5; in place, the journal saves the records and bytes it saves without one, NumPy's results" {
	unit_program CHUNKINDEXDUMP chunkindexdump || return 1
	ref userblock-files . || fail "userblock-files: exit status $?"
	run ref index "$CHUNKINDEXDUMP" ub.h5 a w :: index "$CHUNKINDEXDUMP" ub0.h5 a w :: \
		refused "$CHUNKINDEXDUMP" ubl.h5 a w :: refused "$CHUNKINDEXDUMP" ubl0.h5 a w
	[[ $status == 0 ]] || fail "$output"
	# ub*: addresses from the index read whole; ubl*: from HDF5, a chunk at a time
	local f jobs=()
	for f in ub ub0 ubl ubl0; do
		cp "$f.h5" "$f-before.h5"
		h5u eval -i "w=$f.h5:/w" 'w = w * 2 + 1' --json >"$f.json" || fail "$f:/w: exit status $?"
		jobs+=(:: same "$f-before.h5" "$f.h5" /w "w * 2 + 1")
	done
	for f in ub ubl; do
		run /usr/bin/python3 "$H5U_TESTS/interrupted_ref.py" saved "$f-before.h5" w "$f.json" "${f}0.json"
		[[ $status == 0 ]] || fail "$f:/w: $output"
		jobs+=(:: journals "${f}0.json" "$f.json")
	done
	run ref "${jobs[@]:1}"
	[[ $status == 0 ]] || fail "$output"
}

@test "one process, a budget that holds a band of chunk columns but no box of whole chunk rows: reductions that fold by bands take boxes of one chunk row, each chunk read once in one call where the runs' boxes read it in pieces; a chunk never written; the one-liner; NumPy's bits on one process and 2-4 ranks" {
	# (48, 32768) float64 in (16, 64) chunks: a box of a chunk row is 4 MiB,
	# which --memory 1M and 2M do not hold; the bands' buffer of such a box
	# (two chunk columns as read and as rows, each row's leaf, stack and
	# pieces) they do.  /p has a chunk never written (its band read
	# through HDF5, the fill value folded)
	/usr/bin/python3 - <<'PY' || fail "fixture"
import numpy as np, h5py
rng = np.random.default_rng(28)
shape = (48, 32768)
u = rng.standard_normal(shape) * 10.0 ** rng.uniform(-6, 6, shape)
with h5py.File('bx.h5', 'w') as f:
    f.create_dataset('x', data=u, chunks=(16, 64))
with h5py.File('bp.h5', 'w') as f:
    p = f.create_dataset('p', shape=shape, dtype='f8', chunks=(16, 64))
    p[0:16] = u[0:16]
    p[32:] = u[32:]
    p[16:32, 64:] = u[16:32, 64:]
PY
	printf '%s\n' 'inputs: {x: bx.h5:/x, p: bp.h5:/p}' 'steps:' \
		'  - {reduce: add, in: x, axis: 1, out: o.h5:/xr}' '  - {reduce: add, in: x, axis: null, out: o.h5:/xa}' \
		'  - {reduce: add, in: p, axis: 1, out: o.h5:/pr}' '  - {reduce: add, in: p, axis: null, out: o.h5:/pa}' >b.yaml
	local mem n want=(/xr "np.add.reduce(x, axis=1)" /xa "np.add.reduce(x, axis=None)"
		/pr "np.add.reduce(p, axis=1)" /pa "np.add.reduce(p, axis=None)") JOBS=()
	for mem in 1M 2M; do
		run --separate-stderr h5u check --memory "$mem" b.yaml
		assert_success
		assert_line 'step 1: reduce add, loop dd->d, casting same_kind, boxes (16, 32768), 3 boxes, 1 of 1 ranks with work'
		assert_line 'step 3: reduce add, loop dd->d, casting same_kind, boxes (16, 32768), 3 boxes, 1 of 1 ranks with work'
		# 1536 chunks of bx.h5, each in one call, and HDF5's reads of its
		# metadata and chunk index (boxes that cut the chunks read them in
		# pieces: 12402 and 6258 reads)
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -ff -e trace=openat,open,$TRACE_READS \
			-o "tr$mem" h5ufunc run --memory "$mem" b.yaml || fail "$mem: exit status $?"
		JOBS+=(:: reads "tr$mem" bx.h5 $((1536 + 128)) $((12582912 + 1048576)))
		mkdir "$mem-0" && mv o.h5 "$mem-0/"
		JOBS+=(:: same bx.h5,bp.h5 "$mem-0/o.h5" "${want[@]}")
		h5u reduce add bx.h5:/x --axis 1 --memory "$mem" -o "$mem-0/one.h5:/xr" || fail "one-liner: exit status $?"
		JOBS+=(:: same bx.h5 "$mem-0/one.h5" /xr "np.add.reduce(x, axis=1)")
	done
	# under MPI the budget pays for the box, as before
	for n in 2 3 4; do
		mpi "$n" h5ufunc run --memory 1M b.yaml || fail "$n ranks: exit status $?"
		mkdir "1M-$n" && mv o.h5 "1M-$n/"
		JOBS+=(:: same bx.h5,bp.h5 "1M-$n/o.h5" "${want[@]}")
	done
	run ref "${JOBS[@]:1}"
	[[ $status == 0 ]] || fail "$output"
}

@test "the least budget whose plan folds by bands holds the bands' buffer: a tree sum of float64, float16 through float32 and complex128, a running maximum of int64; the run at that budget gives NumPy's bits" {
	# One chunk row each, (256, 8192) in (256, 128) chunks and float16
	# (512, 4096) in (512, 256): a box of the chunk row folds by bands,
	# and below the bands' budget the boxes hold fewer rows.  That budget
	# is found by halving the bytes between a plan without bands and one
	# with them; at it, a count (reducer_band_bytes) short of what a band
	# of one chunk column lays out fails the run ("does not fold in its
	# bands' bytes"; a count short of two columns' only narrows the band,
	# which nothing outside sees)
	/usr/bin/python3 - <<'PY' || fail "fixture"
import numpy as np, h5py
rng = np.random.default_rng(28)
s = (256, 8192)
with h5py.File('bb.h5', 'w') as f:
    f.create_dataset('f', data=rng.standard_normal(s) * 10.0 ** rng.uniform(-6, 6, s), chunks=(256, 128))
    f.create_dataset('c', data=rng.standard_normal(s) + 1j * rng.standard_normal(s), chunks=(256, 128))
    f.create_dataset('i', data=rng.integers(-2**62, 2**62, s), chunks=(256, 128))
    f.create_dataset('h', data=rng.standard_normal((512, 4096)).astype('f2'), chunks=(512, 256))
PY
	local d uf rows lo hi mid JOBS=()
	# banded BYTES: does the plan of b$d.yaml under --memory BYTES take
	# boxes of the chunk row, folded by bands?
	banded() { h5u check --memory "$1" "b$d.yaml" 2>/dev/null | grep -q "boxes ($rows, "; }
	for d in f:add:256 h:add:512 c:add:256 i:maximum:256; do
		IFS=: read -r d uf rows <<<"$d"
		printf 'steps:\n  - {reduce: %s, in: bb.h5:/%s, axis: 1, out: o%s.h5:/r}\n' "$uf" "$d" "$d" >"b$d.yaml"
		lo=4096 hi=$((16 << 20))
		! banded "$lo" || fail "/$d: bands under $lo bytes"
		banded "$hi" || fail "/$d: no bands under $hi bytes"
		while ((hi - lo > 1)); do
			mid=$(((lo + hi) / 2))
			if banded "$mid"; then hi=$mid; else lo=$mid; fi
		done
		h5u run --memory "$hi" "b$d.yaml" || fail "/$d under $hi bytes: exit status $?"
		JOBS+=(:: same bb.h5 "o$d.h5" /r "np.$uf.reduce($d, axis=1)")
	done
	run ref "${JOBS[@]:1}"
	[[ $status == 0 ]] || fail "$output"
}
