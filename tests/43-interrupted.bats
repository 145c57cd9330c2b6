#!/usr/bin/env bats
# 43-interrupted.bats - runs that write in place and are stopped: killed
# (SIGKILL, a rank killed), signalled (SIGTERM, SIGINT to the process, to
# mpirun, to every rank), failing, or out of journal space, at points
# measured on an uninterrupted run and at the commit's worst moments.
# After each, once the next run opens the file or `h5ufunc recover` has
# run, the file must be wholly the one before the run (byte for byte) or
# wholly the one an uninterrupted run makes (every object, read whole
# through h5py, filters included: tests/interrupted_ref.py), with no
# journal or temporary file left.
#
# The kill points are made deterministic by the hook H5UFUNC_FAULT (src/
# journal.c): kill-write:RANK:N kills rank RANK just before its Nth write
# into the journaled file (the old bytes saved, the write not begun), N
# taken from --json's per_rank journal_writes of an uninterrupted run;
# kill-commit, kill-committed, kill-rollback and kill-replay hit the
# commit and the rollback; term-write raises SIGTERM, stop-write SIGSTOP; fail-save fails a
# save as a full disk would.  Signals from outside use SIGSTOP to hold a
# run mid-write while they are sent.

load helper

REF=interrupted_ref.py

setup_file() {
	fixtures <<-'EOF'
		make big.h5:/x float64 1000000,4 fill=range
		make s.h5:/c float64 1001,130
		make s.h5:/k float64 1001,130 chunks=77,130
	EOF
	cd "$BATS_FILE_TMPDIR" || return 1
	ref make t.h5 || return 1
	mkdir after-c
	cp t.h5 after-c/
	(cd after-c && h5ufunc $(in_place c)) || return 1
	recipe >r.yaml
	mkdir after-r
	cp t.h5 r.yaml after-r/
	(cd after-r && h5ufunc run r.yaml --memory 4K) || return 1
}

teardown() {
	local pid
	for pid in ${H5U_BACKGROUND:-}; do   # what a timeout runs, held still or not
		pkill -KILL -P "$pid" 2>/dev/null || true
	done
	kill_background
}

# in_place X: the arguments of the in-place run of dataset X of t.h5
# (W4 of make bench, in small boxes).
in_place() {
	echo "eval -i a=t.h5:/$1 a=a*2+1 --memory 4K"
}

# recipe: several steps written in place into t.h5, a new dataset in it
# and a new file.
recipe() {
	cat <<-'EOF'
		inputs: {c: t.h5:/c, k: t.h5:/k, z: t.h5:/z}
		steps:
		  - {expr: c * 2 + 1, out: c}
		  - {ufunc: add, in: [k, c], out: k}
		  - {ufunc: multiply, in: [z, 3], out: t.h5:/g/new}
		  - {expr: c - 1, out: c}
		  - {reduce: add, in: k, axis: 0, out: out.h5:/s}
	EOF
}

# h5 RANKS ARGS...: h5ufunc ARGS on one process, or under mpirun -n RANKS
# within H5U_MPI_TIMEOUT seconds, as `mpi` (a rank killed on a loaded
# machine took more than 60 s to bring mpirun down: exit 124).
h5() {
	local n=$1
	shift
	if ((n == 1)); then
		timeout 60 h5ufunc "$@"
	else
		timeout "$H5U_MPI_TIMEOUT" mpirun --oversubscribe -n "$n" h5ufunc "$@"
	fi
}

# in_dir DIR CMD...: CMD (a function too) run in DIR.
in_dir() {
	local dir=$1
	shift
	(cd "$dir" && "$@")
}

# writes RANKS ARGS...: how many writes into the journaled file each rank
# makes in an uninterrupted run of ARGS on a copy of t.h5, one per line.
writes() {
	local n=$1 dir
	shift
	dir=$(mktemp -d "$BATS_TEST_TMPDIR/measure.XXXX")
	cp "$BATS_FILE_TMPDIR/t.h5" "$BATS_FILE_TMPDIR/r.yaml" "$dir/"
	(cd "$dir" && h5 "$n" "$@" --json) | sed -n 's/.*"journal_writes": \([0-9]*\).*/\1/p'
}

# stopped DIR FAULT RANKS ARGS...: in DIR, a fresh copy of t.h5 and a run
# of ARGS with H5UFUNC_FAULT=FAULT, which must die and leave the journal.
stopped() {
	local dir=$1 fault=$2 n=$3 rc=0
	shift 3
	mkdir "$dir"
	cp "$BATS_FILE_TMPDIR/t.h5" "$BATS_FILE_TMPDIR/r.yaml" "$dir/"
	(cd "$dir" && H5U_MARK=$BATS_TEST_TMPDIR/$dir H5UFUNC_FAULT=$fault h5 "$n" "$@") >"$dir.out" 2>&1 || rc=$?
	((rc != 0 && rc != 124)) || fail "$dir: H5UFUNC_FAULT=$fault: exit status $rc"
	# mpirun may return before the last rank it killed is gone, and a rank
	# alive still holds the journal as a live run's (a busy machine)
	gone "$BATS_TEST_TMPDIR/$dir" || fail "$dir: ranks left after H5UFUNC_FAULT=$fault"
	[[ -f $dir/.t.h5.h5ufunc-journal ]] || fail "$dir: H5UFUNC_FAULT=$fault left no journal"
}

# verify AFTER DIR=STATE...: each DIR/t.h5 is t.h5 before the run (old),
# AFTER/t.h5 (new), or either; DIR holds nothing of ours but t.h5 and
# files the run made.
verify() {
	local after=$1 c cases=()
	shift
	for c in "$@"; do
		cases+=("${c%%=*}/t.h5=${c#*=}")
		run ls -A "${c%%=*}"
		refute_output --partial h5ufunc-
	done
	run ref verify "$BATS_FILE_TMPDIR/t.h5" \
		"$BATS_FILE_TMPDIR/$after/t.h5" "${cases[@]}"
	assert_success
}

# child PID: the process that PID (a timeout) runs.
child() {
	local c i
	for ((i = 0; i < 200; i++)); do
		c=$(pgrep -P "$1" | head -n 1)
		[[ -n $c ]] && echo "$c" && return 0
		sleep 0.05
	done
	return 1
}

# rank_pids MARK: the process ids of the MPI ranks of the run whose
# environment holds H5U_MARK=MARK (one grep reads every environment; a
# process per /proc entry took a second on a busy machine).
rank_pids() {
	local env
	for env in $(grep -lzx "H5U_MARK=$1" /proc/[0-9]*/environ 2>/dev/null); do
		if grep -qz '^OMPI_COMM_WORLD_RANK=' "$env" 2>/dev/null; then
			env=${env#/proc/}
			echo "${env%/environ}"
		fi
	done
}

# ---- kill -9 at measured points ------------------------------------------

@test "kill -9 at measured points of a run in place, one process: contiguous, chunked, gzip" {
	local x w n cases=()
	for x in c k z; do
		w=$(writes 1 $(in_place "$x"))
		((w >= 3)) || fail "$x: only $w writes in an uninterrupted run"
		for n in 1 $((w / 2)) "$w"; do
			stopped "$x$n" "kill-write:0:$n" 1 $(in_place "$x")
			cases+=("$x$n=old")
		done
		# The next run that opens the file rolls it back first, and says so.
		run --separate-stderr h5u reduce add "$x$n/t.h5:/n" --axis all
		assert_success
		assert_output 499500
		[[ $stderr == "h5ufunc: $x$n/t.h5: rolled back the run interrupted on "*"(1 rank): "*" it is as it was before that run" ]] ||
			fail "unexpected note: $stderr"
		for n in 1 $((w / 2)); do
			(cd "$x$n" && h5u recover t.h5 >/dev/null) || fail "recover $x$n"
		done
	done
	verify after-c "${cases[@]}"
}

# On 3 ranks, in 4K boxes (boxes cut the chunks, gzip chunks move into
# each other's places): ranks now skip bytes another rank saved first
# (journal.c's shared ranges), so a kill of the rank that saved them, or
# of the one that skipped them, after the other wrote, must still roll
# back whole.  Over /k and /z each rank is killed at its first write, a
# third and two thirds of the way and at its last, each layout at each
# of the four points, each rank in each layout: a covering design of
# layout x rank x point (at[] below), not their product.  /c (contiguous)
# is killed mid-write of rank 0.  Each is rolled back by recover but
# /z's rank 2 at its last write, which the next run on 3 ranks rolls
# back.  /z on one process at eight points.  Every file checked by one
# verify.
@test "kill -9 at measured points of 3 ranks writing in place: contiguous mid-write; chunked and gzip chunks, boxes cutting them, each rank at its first, a third, two thirds and its last write; and of one process writing gzip" {
	local x w ws r k pick points cases=()
	# indexes into points: 1, a third, two thirds, the last, the middle
	local -A at=([c0]=4 [k0]="0 1" [k1]="2 3" [k2]="0 2" [z0]="2 3" [z1]="0 1" [z2]="1 3")
	for x in c k z; do
		mapfile -t ws < <(writes 3 $(in_place "$x"))
		((${#ws[@]} == 3)) || fail "$x: ${#ws[@]} reports"
		for ((r = 0; r < 3; r++)); do
			w=${ws[r]}
			[[ -n ${at[$x$r]:-} ]] || continue
			((w >= 4)) || fail "$x: only $w writes on rank $r"
			points=(1 $((w / 3)) $((2 * w / 3)) "$w" $((w / 2)))
			for pick in ${at[$x$r]}; do
				k=${points[pick]}
				stopped "$x-$r-$k" "kill-write:$r:$k" 3 $(in_place "$x")
				if [[ $x$r$pick == z23 ]]; then
					run --separate-stderr mpi 3 h5ufunc reduce add "$x-$r-$k/t.h5:/n" --axis all
					assert_success
					assert_output 499500
				else
					(cd "$x-$r-$k" && h5u recover t.h5 >/dev/null) || fail "recover $x-$r-$k"
				fi
				cases+=("$x-$r-$k=old")
			done
		done
	done
	w=$(writes 1 $(in_place z))
	((w >= 8)) || fail "z: only $w writes on one process"
	for ((k = 1; k <= 8; k++)); do
		stopped "z1-$k" "kill-write:0:$((k * w / 8))" 1 $(in_place z)
		(cd "z1-$k" && h5u recover t.h5 >/dev/null) || fail "recover z1-$k"
		cases+=("z1-$k=old")
	done
	verify after-c "${cases[@]}"
}

# /k at the default budget: each box holds whole chunks (50, 30) of one
# rank, so on 2 and 3 ranks (8 chunk rows: 4 and 4, 3, 3 and 2) each rank
# moves its own chunks alone (independent transfers, a chunk a call, the
# journal saving each run of them ahead): no collective transfer of data,
# and HDF5's metadata written as its pieces, not sieved (68-mpi-info).
@test "kill -9 of each rank while 2 and 3 ranks write their own chunks in place alone: the first, a middle and the last write on 2 ranks and on 3" {
	local n r w k pick ws points cases=() args="eval -i a=t.h5:/k a=a*2+1"
	# a covering design, not the product: each rank of each run killed
	# once at least, each run at its first, a middle and its last write,
	# rank 0 at all three (indexes into points: 1, the middle, the last)
	local -A at=([20]="0 2" [21]=1 [30]=1 [31]=0 [32]=2)
	for n in 2 3; do
		mkdir "m$n"
		cp "$BATS_FILE_TMPDIR/t.h5" "m$n/"
		(cd "m$n" && h5 "$n" $args --json) >"m$n.json" || fail "$n ranks: exit status $?"
		python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["per_rank"]:
    assert r["mpiio_coll_reads"] == 0 and r["mpiio_coll_writes"] <= 2, r
    assert r["journal_records"] <= 6, r
    # its chunks, their runs saved ahead, and a few KiB of metadata: not
    # the whole file that a rank read and rewrote around the metadata
    # pieces it was given when ROMIO sieved them (306 KB on rank 1 of 2)
    assert r["journal_bytes"] <= 2 * r["bytes_written"] + 8192, r
' "m$n.json" || fail "$n ranks: not moved alone, or saved far more than written"
		mapfile -t ws < <(sed -n 's/.*"journal_writes": \([0-9]*\).*/\1/p' "m$n.json")
		((${#ws[@]} == n)) || fail "$n ranks: ${#ws[@]} reports"
		for ((r = 0; r < n; r++)); do
			w=${ws[r]}
			((w >= 3)) || fail "$n ranks: only $w writes on rank $r"
			points=(1 $((w / 2)) "$w")
			for pick in ${at[$n$r]}; do
				k=${points[pick]}
				stopped "k$n-$r-$k" "kill-write:$r:$k" "$n" $args
				(cd "k$n-$r-$k" && h5u recover t.h5 >/dev/null) || fail "recover k$n-$r-$k"
				cases+=("k$n-$r-$k=old")
			done
		done
	done
	verify after-c "${cases[@]}"
}

# A dataset whose chunk rows overflow a chunk cache, every chunk stored,
# is written in place on one process by pwritev at its chunks' places
# (h5io_move_in_place), past HDF5: the journal saves what each overwrites
# all the same.  Killed at the first write, the last, and random ones
# between, under budgets whose boxes cut the chunks (1M) or hold chunk
# rows (16M); `recover` or the next run puts back every byte, ncdump reads
# the file, and a run after gives NumPy's bits.
@test "kill -9 at random points of one process writing in place by runs of its chunks (pwritev past HDF5): recover or the next run puts back every byte, then NumPy's bits" {
	/usr/bin/python3 "$H5U_TESTS/chunks_ref.py" in-place . || fail "no fixture"
	local m w n k d points args=(eval -i a=ip.h5:/w 'a = a * 2 + 1')
	for m in 1M 16M; do
		mkdir "u$m"
		cp ip.h5 "u$m/"
		w=$(cd "u$m" && h5u "${args[@]}" --memory "$m" --json | sed -n 's/.*"journal_writes": \([0-9]*\).*/\1/p')
		((w >= 10)) || fail "--memory $m: only $w writes in an uninterrupted run"
		cp ip.h5 "s$m.h5"
		run grep -cE 'pwritev2?\(' <(strace -f -e trace=pwritev,pwritev2 h5ufunc eval -i "a=s$m.h5:/w" 'a = a * 2 + 1' \
			--memory "$m" 2>&1)
		((output > 0)) || fail "--memory $m: no pwritev: not written by runs"
		points="1 $((RANDOM % w + 1)) $((RANDOM % w + 1)) $((w / 2)) $w"
		for n in $points; do
			d=k$m-$n
			[[ -d $d ]] && continue
			mkdir "$d"
			cp ip.h5 "$d/"
			(cd "$d" && H5UFUNC_FAULT=kill-write:0:$n timeout 60 h5ufunc "${args[@]}" --memory "$m") &&
				fail "$d: not killed"
			[[ -n $(find "$d" -name '.ip.h5.h5ufunc-journal*') ]] || fail "$d: no journal left"
			if ((n % 2)); then
				(cd "$d" && h5u recover ip.h5 >/dev/null) || fail "recover $d"
			else
				run --separate-stderr h5u reduce add "$d/ip.h5:/p" --axis all
				assert_success
				[[ $stderr == "h5ufunc: $d/ip.h5: rolled back the run interrupted on "* ]] || fail "$d: $stderr"
			fi
			cmp ip.h5 "$d/ip.h5" || fail "$d: not as it was before the run"
			run find "$d" -name '*h5ufunc-*'
			assert_output ''
			ncdump -h "$d/ip.h5" >/dev/null || fail "$d: ncdump cannot read it"
			(cd "$d" && h5u "${args[@]}" --memory "$m") || fail "$d: the run after: exit status $?"
			cmp "u$m/ip.h5" "$d/ip.h5" >/dev/null || /usr/bin/python3 "$H5U_TESTS/chunks_ref.py" \
				same ip.h5 "$d/ip.h5" /w "w * 2 + 1" || fail "$d: not NumPy's after"
		done
	done
	run /usr/bin/python3 "$H5U_TESTS/chunks_ref.py" same ip.h5 u1M/ip.h5 /w "w * 2 + 1" :: \
		same ip.h5 u16M/ip.h5 /w "w * 2 + 1"
	assert_success
}

# gone MARK: wait until no rank of the run marked MARK is left (mpirun
# may return before the last rank it killed is gone), at most
# H5U_MPI_TIMEOUT seconds.
gone() {
	local i
	for ((i = 0; i < 10 * H5U_MPI_TIMEOUT; i++)); do
		[[ -z $(rank_pids "$1") ]] && return 0
		sleep 0.1
	done
	return 1
}

# Under MPI each rank moves its boxes of such a dataset by preadv and
# pwritev through a read-write descriptor of its own (strace: every rank
# writes by pwritev, no rank by MPI-IO but HDF5's metadata), and the
# journal saves what each rank's pwritev overwrites.  /w's 150 rows deal
# unevenly over 2 ranks (75 each: they share a chunk row) and evenly over
# 3 (one chunk row each, the last ragged).  Each rank of 2 and of 3 is
# killed, each run at its first write, a middle one and its last, every
# rank at two of them at least: a covering design of ranks x rank x point
# (at[] below), not their product.  mpirun and every rank are killed from
# outside mid-run.  `recover` or the next run (taken in turn, so each on
# 2 and on 3 ranks) puts back every byte (the file byte for byte as it
# was), and a run after the first kill on each rank count gives NumPy's
# bits.
@test "kill -9 of each rank of 2 and 3 writing in place by runs of their chunks (pwritev past MPI-IO) at the first, a middle or the last write, and of mpirun: every byte put back, then NumPy's bits" {
	/usr/bin/python3 "$H5U_TESTS/chunks_ref.py" in-place . || fail "no fixture"
	local n r w k d pick ws points cases=0 same=() args=(eval -i a=ip.h5:/w 'a = a * 2 + 1' --memory 1M)
	local -A ran_after=()
	# indexes into points: 1, the middle, the last
	local -A at=([20]="0 1" [21]="1 2" [30]="2 0" [31]="0 1" [32]="1 2")
	for n in 2 3; do
		mkdir "u$n"
		cp ip.h5 "u$n/"
		(cd "u$n" && ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -ff -o tr \
			-e trace=pwritev,pwritev2 timeout "$H5U_MPI_TIMEOUT" mpirun --oversubscribe -n "$n" \
			h5ufunc "${args[@]}" --json) >"u$n.json" ||
			fail "$n ranks: exit status $?"
		(($(grep -lE '^pwritev2?\(' "u$n"/tr.* | wc -l) == n)) || fail "$n ranks: not every rank wrote by pwritev"
		rm -f "u$n"/tr.*
		python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["per_rank"]:
    assert r["mpiio_coll_writes"] <= 2 and r["mpiio_data_writes"] == 0, r
' "u$n.json" || fail "$n ranks: data written through MPI-IO"
		same+=(:: same ip.h5 "u$n/ip.h5" /w "w * 2 + 1")
		mapfile -t ws < <(sed -n 's/.*"journal_writes": \([0-9]*\).*/\1/p' "u$n.json")
		((${#ws[@]} == n)) || fail "$n ranks: ${#ws[@]} reports"
		for ((r = 0; r < n; r++)); do
			w=${ws[r]}
			((w >= 10)) || fail "$n ranks: only $w writes on rank $r"
			points=(1 $((w / 2)) "$w")
			for pick in ${at[$n$r]}; do
				k=${points[pick]} d=k$n-$r-$k
				mkdir "$d"
				cp ip.h5 "$d/"
				(cd "$d" && H5U_MARK=$BATS_TEST_TMPDIR/$d H5UFUNC_FAULT=kill-write:$r:$k \
					mpi "$n" h5ufunc "${args[@]}") >"$d.out" 2>&1 && fail "$d: not killed"
				gone "$BATS_TEST_TMPDIR/$d" || fail "$d: ranks left"
				[[ -f $d/.ip.h5.h5ufunc-journal ]] || fail "$d: no journal left"
				if ((cases++ % 2 == 0)); then
					(cd "$d" && h5u recover ip.h5 >/dev/null) || fail "recover $d"
				else
					run --separate-stderr mpi "$n" h5ufunc reduce add "$d/ip.h5:/p" --axis all
					assert_success
					[[ $stderr == "h5ufunc: $d/ip.h5: rolled back the run interrupted on "* ]] || fail "$d: $stderr"
				fi
				cmp ip.h5 "$d/ip.h5" || fail "$d: not as it was before the run"
				run find "$d" -name '*h5ufunc-*'
				assert_output ''
				# byte for byte the file before the run: the run after it
				# (NumPy's bits again) once on each rank count
				[[ -n ${ran_after[$n]:-} ]] && continue
				ran_after[$n]=1
				(cd "$d" && mpi "$n" h5ufunc "${args[@]}") || fail "$d: the run after: exit status $?"
				cmp -s "u$n/ip.h5" "$d/ip.h5" || same+=(:: same ip.h5 "$d/ip.h5" /w "w * 2 + 1")
			done
		done
	done
	# mpirun and every rank killed from outside, as a lost node would:
	# rank 2 holds itself before its middle write (ws[] is the last
	# uninterrupted run's, on 3 ranks), so the run cannot finish first
	local pids p held=
	mkdir km
	cp ip.h5 km/
	(cd km && H5U_MARK=$BATS_TEST_TMPDIR/km H5UFUNC_FAULT=stop-write:2:$((ws[2] / 2)) \
		exec timeout "$H5U_MPI_TIMEOUT" mpirun --oversubscribe -n 3 h5ufunc "${args[@]}" 2>/dev/null) &
	H5U_BACKGROUND=$!
	for ((k = 0; k < 10 * H5U_MPI_TIMEOUT; k++)); do
		for p in $(rank_pids "$BATS_TEST_TMPDIR/km"); do
			[[ $(awk '{print $3}' "/proc/$p/stat" 2>/dev/null) == T ]] && held=$p
		done
		[[ -n $held ]] && break
		sleep 0.1
	done
	[[ -n $held ]] || fail "km: rank 2 was not held before its write"
	pids=$(rank_pids "$BATS_TEST_TMPDIR/km")
	kill -KILL "$(child "$H5U_BACKGROUND")" $pids
	wait "$H5U_BACKGROUND" || true
	H5U_BACKGROUND=
	gone "$BATS_TEST_TMPDIR/km" || fail "km: ranks left"
	cmp -s ip.h5 km/ip.h5 && fail "km: nothing was written before the kill"
	run --separate-stderr h5u recover km/ip.h5
	assert_success
	assert_output --regexp '\(3 ranks\): '
	cmp ip.h5 km/ip.h5 || fail "km: not as it was before the run"
	run /usr/bin/python3 "$H5U_TESTS/chunks_ref.py" "${same[@]:1}"
	assert_success
}

@test "the journal saves what each rank overwrites: exactly where announced, a run's tail more through MPI-IO" {
	# 1001 rows: no number of ranks from 2 to 4 splits them evenly; chunks
	# of 77 rows, which the shares may cut.  A contiguous dataset's boxes
	# and one process's chunks are announced: saved exactly.  Chunks
	# written through MPI-IO are not: saved as written, at least.
	local n d
	for d in c k; do
		printf 'inputs: {x: s.h5:/%s}\nsteps:\n  - {expr: x * 2 + 1, out: x}\n' "$d" >"$d.yaml"
		for n in 1 2 3 4; do
			fixture s.h5
			h5 "$n" run "$d.yaml" --memory 64K --json >"$d$n.json"
		done
	done
	# one process and MPI-IO rewrite different metadata: compared apart
	run ref saved "$BATS_FILE_TMPDIR/s.h5" c c1.json
	assert_success
	run ref saved "$BATS_FILE_TMPDIR/s.h5" c c{2,3,4}.json
	assert_success
	run ref saved "$BATS_FILE_TMPDIR/s.h5" k k1.json
	assert_success
	run ref saved --run "$BATS_FILE_TMPDIR/s.h5" k k{2,3,4}.json
	assert_success
}

# t.h5's /c is contiguous: its boxes are saved exactly, but its file keeps
# ROMIO's data sieving, and HDF5's metadata write at the close, sieved,
# joins a rank's pieces far apart (the history's heap near the start, an
# object header at the end) into one read-modify-write of up to 512 KiB
# (ROMIO's ind_wr_buffer_size).  Of it a rank saves the 4 KiB blocks it
# changes, not the bytes it writes back as they were (306,138 bytes on
# rank 1 of 2 when it saved all it rewrote; now about 51,000).
@test "a contiguous dataset in place on 2 to 4 ranks: each rank saves what it writes, and at most 16 KiB of metadata more" {
	local n
	for n in 2 3 4; do
		mkdir "c$n"
		cp "$BATS_FILE_TMPDIR/t.h5" "c$n/"
		(cd "c$n" && h5 "$n" eval -i a=t.h5:/c 'a = a * 2 + 1' --json) >"c$n.json" || fail "$n ranks: exit status $?"
	done
	python3 -c '
import json, sys
for path in sys.argv[1:]:
    ranks = json.load(open(path))["per_rank"]
    assert sum(r["bytes_written"] for r in ranks) == 400 * 30 * 8, (path, ranks)
    for r in ranks:
        assert r["bytes_written"] <= r["journal_bytes"] <= r["bytes_written"] + (16 << 10), (path, r)
' c2.json c3.json c4.json || fail "saved less than written, or more than 16 KiB beside it"
}

# Several ranks overwrite the same bytes: HDF5's metadata, an aggregator's
# file domain around other ranks' pieces, compressed chunks that move into
# places other chunks left.  Each rank used to save all it overwrote,
# whoever had saved it first (t.h5, 308,186 bytes: /c on 2 ranks saved
# 355,106 bytes in all, 48,000 twice; /k 382,706; /z on 3 ranks 434,915,
# 127,809 twice); a rank now saves only the blocks it changes that no rank
# saved before (journal.c's shared ranges).  Each case is then killed at
# its commit point, its journals kept, and rolled back.
@test "on 2 to 4 ranks no byte is saved twice: contiguous, chunked and gzip chunks in place, boxes cutting chunks, each on two rank counts; killed at the commit point, rolled back" {
	local x n size cases=() jobs=()
	# each layout on two of 2-4 ranks, each rank count with two layouts: a
	# covering design, not the product
	local -A ranks=([c]="2 4" [k]="3 4" [z]="2 3")
	size=$(stat -c %s "$BATS_FILE_TMPDIR/t.h5")
	for x in c k z; do
		for n in ${ranks[$x]}; do
			mkdir "$x$n"
			cp "$BATS_FILE_TMPDIR/t.h5" "$x$n/"
			(cd "$x$n" && h5 "$n" $(in_place "$x") --json) >"$x$n.json" || fail "$x on $n ranks: exit status $?"
			stopped "$x$n-commit" kill-commit:0:1 "$n" $(in_place "$x")
			jobs+=(:: twice "$BATS_FILE_TMPDIR/t.h5" "$x$n/t.h5" "/$x" :: once "$x$n-commit" "$BATS_FILE_TMPDIR/t.h5")
		done
	done
	# every report, result and journal checked by one Python each
	python3 -c '
import json, sys
assert len(sys.argv) == 8, sys.argv
for path in sys.argv[2:]:
    ranks = json.load(open(path))["per_rank"]
    saved = sum(r["journal_bytes"] for r in ranks)
    assert saved <= int(sys.argv[1]) // 2, (path, saved, ranks)
' "$size" [ckz][234].json || fail "saved more than half the file"
	run ref "${jobs[@]:1}"
	assert_success
	for x in c k z; do
		for n in ${ranks[$x]}; do
			(cd "$x$n-commit" && h5u recover t.h5 >/dev/null) || fail "recover $x$n-commit"
			cases+=("$x$n-commit=old")
		done
	done
	verify after-c "${cases[@]}"
}

@test "chunks stored out of order, 512 in a box: announced all the same, saved exactly in a few records" {
	# each chunk of /s lies before the one before it: a box's chunks are
	# 512 ranges, more than one batch of announcements, that the journal
	# sorts and joins, and HDF5's chunk cache writes them in its own
	# order; saved as written they would take a record each (514).  A
	# record a run of chunks (the chunk index's nodes lie between some),
	# and HDF5's metadata
	local syncs runs
	ref scattered sc.h5
	cp sc.h5 before.h5
	runs=$(ref runs sc.h5 /s)
	h5 1 eval -i a=sc.h5:/s 'a = a*2+1' --json >s.json
	run ref saved before.h5 s s.json :: twice before.h5 sc.h5 /s
	assert_success
	syncs=$(sed -n 's/.*"journal_syncs": \([0-9]*\).*/\1/p' s.json)
	((runs < 64 && syncs <= runs + 3)) || fail "512 chunks in $runs runs saved in $syncs fsyncs"
}

@test "kill -9 from outside: a single process, and one rank of 3, while they write in place" {
	local pids p
	cp "$BATS_FILE_TMPDIR/big.h5" big.h5
	timeout 60 h5ufunc call add big.h5:/x 1 -o big.h5:/x --memory 1K &
	H5U_BACKGROUND=$!
	wait_for '.big.h5.h5ufunc-journal.*.0' 30 || fail "no journal appeared"
	kill -KILL "$(child "$H5U_BACKGROUND")"
	wait "$H5U_BACKGROUND" || true
	H5U_BACKGROUND=
	cmp -s big.h5 "$BATS_FILE_TMPDIR/big.h5" && fail "nothing was written before the kill"
	run --separate-stderr h5u recover big.h5
	assert_success
	assert_output --regexp '^big\.h5: rolled back the run interrupted on .* \(1 rank\): '
	cmp big.h5 "$BATS_FILE_TMPDIR/big.h5" || fail "not as it was"
	H5U_MARK=$BATS_TEST_TMPDIR timeout 60 mpirun --oversubscribe -n 3 \
		h5ufunc call add big.h5:/x 1 -o big.h5:/x --memory 1K 2>/dev/null &
	H5U_BACKGROUND=$!
	wait_for '.big.h5.h5ufunc-journal.*.1' 30 || fail "no journal of rank 1 appeared"
	pids=$(rank_pids "$BATS_TEST_TMPDIR")
	p=$(sed -n 2p <<<"$pids")
	[[ -n $p ]] || fail "the ranks were not found"
	kill -KILL "$p"
	wait "$H5U_BACKGROUND" || true
	H5U_BACKGROUND=
	run --separate-stderr h5u recover big.h5
	assert_success
	assert_output --regexp '\(3 ranks\): '
	cmp big.h5 "$BATS_FILE_TMPDIR/big.h5" || fail "not as it was"
	run ls -A
	refute_output --partial h5ufunc-
}

# ---- signals ---------------------------------------------------------------

@test "SIGTERM and SIGINT to a process writing in place: exit 1, one message, the file as it was" {
	local sig rc p
	for sig in TERM INT; do
		cp "$BATS_FILE_TMPDIR/big.h5" big.h5
		timeout 60 h5ufunc call add big.h5:/x 1 -o big.h5:/x --memory 1K 2>err.txt &
		H5U_BACKGROUND=$!
		wait_for '.big.h5.h5ufunc-journal.*.0' 30 || fail "no journal appeared"
		p=$(child "$H5U_BACKGROUND")
		kill -STOP "$p"
		kill -"$sig" "$p"
		kill -CONT "$p"
		rc=0
		wait "$H5U_BACKGROUND" || rc=$?
		H5U_BACKGROUND=
		assert_equal "$rc" 1
		assert_equal "$(cat err.txt)" "h5ufunc: call add: interrupted by SIG$sig; 'big.h5:/x' is as it was before the run"
		cmp big.h5 "$BATS_FILE_TMPDIR/big.h5" || fail "SIG$sig: not as it was"
		rm err.txt
		run ls -A
		assert_output big.h5
	done
	# The same at a given write, in each layout, on one process and 3 ranks.
	local x n cases=()
	for x in c k z; do
		for n in 1 3; do
			mkdir "$x$n"
			cp "$BATS_FILE_TMPDIR/t.h5" "$x$n/"
			# The signal reaches rank 2 alone, which writes once.
			H5UFUNC_FAULT=term-write:$((n == 1 ? 0 : 2)):$((n == 1 ? 2 : 1)) \
				run --separate-stderr in_dir "$x$n" h5 "$n" $(in_place "$x")
			assert_error_once 1 "eval: interrupted by SIGTERM; 't.h5:/$x' is as it was before the run"
			cases+=("$x$n=old")
		done
	done
	verify after-c "${cases[@]}"
}

@test "SIGTERM to mpirun, to every rank, and to one rank: exit 1, one message, the file as it was" {
	local how pids p rc
	for how in mpirun every one; do
		cp "$BATS_FILE_TMPDIR/big.h5" big.h5
		# --foreground: timeout leaves the signal to mpirun alone.
		H5U_MARK=$BATS_TEST_TMPDIR timeout --foreground 60 mpirun --oversubscribe -n 3 \
			h5ufunc call add big.h5:/x 1 -o big.h5:/x --memory 1K 2>err.txt &
		H5U_BACKGROUND=$!
		wait_for '.big.h5.h5ufunc-journal.*.2' 30 || fail "$how: no journal of rank 2 appeared"
		pids=$(rank_pids "$BATS_TEST_TMPDIR")
		(($(wc -l <<<"$pids") == 3)) || fail "$how: ranks not found: $pids"
		case $how in
		mpirun) kill -TERM "$(child "$H5U_BACKGROUND")" ;;
		every) for p in $pids; do kill -TERM "$p"; done ;;
		one) kill -TERM "$(sed -n 2p <<<"$pids")" ;;
		esac
		rc=0
		wait "$H5U_BACKGROUND" || rc=$?
		H5U_BACKGROUND=
		((rc == 1)) || fail "$how: exit status $rc"
		run grep -c '^h5ufunc:' err.txt
		assert_output 1
		run grep '^h5ufunc:' err.txt
		assert_output "h5ufunc: call add: interrupted by SIGTERM; 'big.h5:/x' is as it was before the run"
		cmp big.h5 "$BATS_FILE_TMPDIR/big.h5" || fail "$how: not as it was"
		run ls -A
		assert_output $'big.h5\nerr.txt'
		rm err.txt
	done
}

# ---- several steps ---------------------------------------------------------

# One process is killed before its first write, a third and two thirds of
# the way and at its last; 3 ranks (rank 0) a third of the way and at the
# last write.
@test "kills during a recipe of several steps in place, a new dataset and a new file: 1 process and 3 ranks" {
	local n w points cases=()
	for n in 1 3; do
		w=$(writes "$n" run r.yaml --memory 4K | head -n 1)
		((w >= 6)) || fail "only $w writes"
		points="1 $((w / 3)) $((2 * w / 3)) $w"
		((n == 1)) || points="$((w / 3)) $w"
		local k
		for k in $points; do
			stopped "r$n-$k" "kill-write:0:$k" "$n" run r.yaml --memory 4K
			(cd "r$n-$k" && h5u recover t.h5 >/dev/null) || fail "recover r$n-$k"
			assert_file_not_exists "r$n-$k/out.h5"
			cases+=("r$n-$k=old")
		done
	done
	verify after-r "${cases[@]}"
}

# ---- the commit's worst moments ----------------------------------------------

@test "kill at the commit point and just after it: wholly old, wholly new" {
	local n cases=()
	for n in 1 3; do
		stopped "commit$n" kill-commit:0:1 "$n" run r.yaml --memory 4K
		(cd "commit$n" && h5u recover t.h5 >/dev/null) || fail "recover commit$n"
		assert_file_not_exists "commit$n/out.h5"
		cases+=("commit$n=old")
		mkdir "committed$n"
		cp "$BATS_FILE_TMPDIR/t.h5" "$BATS_FILE_TMPDIR/r.yaml" "committed$n/"
		H5UFUNC_FAULT=kill-committed:0:1 run in_dir "committed$n" h5 "$n" run r.yaml --memory 4K
		((status != 0 && status != 124)) || fail "kill-committed: exit status $status"
		assert_file_not_exists "committed$n/.t.h5.h5ufunc-journal"
		# The new file's temporary and the ranks' journals are left; the
		# next run that writes into the directory sweeps them away, on one
		# process whatever the number of ranks that left them.
		run ls -A "committed$n"
		assert_output --partial h5ufunc-
		h5u call sqrt "committed$n/t.h5:/n" -o "committed$n/other.h5:/r"
		assert_file_not_exists "committed$n/out.h5"
		rm "committed$n/other.h5"
		cases+=("committed$n=new")
	done
	verify after-r "${cases[@]}"
}

@test "a failure rolls back at once; killed during that rollback, or during a recovery, the next one finishes it" {
	local n cases=()
	# An error from the data in step 2, after step 1 wrote in place.
	cat >fail.yaml <<-'EOF'
		inputs: {c: t.h5:/c, n: t.h5:/n}
		steps:
		  - {expr: c * 2 + 1, out: c}
		  - {ufunc: power, in: [n, -1], out: t.h5:/p}
	EOF
	for n in 1 3; do
		mkdir "fail$n"
		cp "$BATS_FILE_TMPDIR/t.h5" fail.yaml "fail$n/"
		run --separate-stderr in_dir "fail$n" h5 "$n" run fail.yaml --memory 4K
		assert_error_once_match 1 "fail\.yaml:4:5: step 2 \(ufunc power\): Integers to negative integer powers are not allowed; 't\.h5:/c' is as it was before the run"
		cases+=("fail$n=old")
		mkdir "rollback$n"
		cp "$BATS_FILE_TMPDIR/t.h5" fail.yaml "rollback$n/"
		H5UFUNC_FAULT=kill-rollback:0:1 run in_dir "rollback$n" h5 "$n" run fail.yaml --memory 4K
		((status != 0 && status != 124)) || fail "kill-rollback: exit status $status"
		[[ -f rollback$n/.t.h5.h5ufunc-journal ]] || fail "kill-rollback: no journal left"
		(cd "rollback$n" && h5u recover t.h5 >/dev/null) || fail "recover rollback$n"
		cases+=("rollback$n=old")
		# A rollback that fails half way says so, and leaves the journal.
		mkdir "stuck$n"
		cp "$BATS_FILE_TMPDIR/t.h5" fail.yaml "stuck$n/"
		H5UFUNC_FAULT=fail-replay:0:1 run --separate-stderr in_dir "stuck$n" h5 "$n" run fail.yaml --memory 4K
		assert_error_once_match 1 "fail\.yaml:4:5: step 2 \(ufunc power\): Integers to negative integer powers are not allowed; 't\.h5:/c' holds partial results until 'h5ufunc recover t\.h5' rolls it back \(cannot put its old bytes back: Input/output error\)"
		(cd "stuck$n" && h5u recover t.h5 >/dev/null) || fail "recover stuck$n"
		cases+=("stuck$n=old")
		# A recovery killed after its first range put back: the next one
		# starts over.
		stopped "replay$n" "kill-write:0:9" "$n" $(in_place c)
		H5UFUNC_FAULT=kill-replay:0:1 run in_dir "replay$n" h5ufunc recover t.h5
		assert_failure 137
		[[ -f replay$n/.t.h5.h5ufunc-journal ]] || fail "kill-replay: no journal left"
		run in_dir "replay$n" h5ufunc recover t.h5
		assert_success
		assert_output --regexp 'rolled back the run interrupted on .* ranges?, [0-9]+ bytes put back'
		cases+=("replay$n=old")
	done
	verify after-c "${cases[@]}"
}

@test "no room to save old bytes: one process rolls back at once, 3 ranks stop at once and the next run rolls back" {
	mkdir one three
	cp "$BATS_FILE_TMPDIR/t.h5" one/
	cp "$BATS_FILE_TMPDIR/t.h5" three/
	H5UFUNC_FAULT=fail-save:0:2 run --separate-stderr in_dir one h5 1 $(in_place c)
	assert_error_match 1 "eval: (read|write) failed \(HDF5: .*No space left on device\); 't\.h5:/c' is as it was before the run"
	H5UFUNC_FAULT=fail-save:0:2 run --separate-stderr in_dir three h5 3 $(in_place c)
	assert_error_once 1 "t.h5: cannot save the bytes a write would overwrite (No space left on device): the run stops here, and the next run that opens the file, or 'h5ufunc recover t.h5', rolls it back"
	(cd three && h5u recover -q t.h5) || fail "recover"
	verify after-c one=old three=old
}

# ---- what the next run and recover do ----------------------------------------

@test "check reports an unfinished run and changes nothing; a live run's journal is refused, not touched" {
	stopped left kill-write:0:2 1 $(in_place z)
	cp left/t.h5 before.h5
	cat >left/r.yaml <<-'EOF'
		inputs: {z: t.h5:/z}
		steps:
		  - {reduce: add, in: z, axis: null}
	EOF
	run --separate-stderr in_dir left h5ufunc check r.yaml
	assert_success
	assert_line --index 0 --regexp "^t\.h5: a run interrupted on .* \(1 rank\) left it unfinished; the next run rolls it back first, as 'h5ufunc recover' does$"
	local said=${lines[0]}
	run --separate-stderr in_dir left h5ufunc check r.yaml --json
	assert_success
	/usr/bin/python3 -c 'import json, sys; d = json.loads(sys.argv[1]); assert d["unfinished"] == [sys.argv[2]], d' "$output" "$said" ||
		fail "check --json: $output"
	cmp left/t.h5 before.h5 || fail "check changed the file"
	[[ -f left/.t.h5.h5ufunc-journal ]] || fail "check removed the journal"
	# A live run: held still while others try.
	cp "$BATS_FILE_TMPDIR/big.h5" big.h5
	timeout 60 h5ufunc call add big.h5:/x 1 -o big.h5:/x --memory 1K &
	H5U_BACKGROUND=$!
	wait_for '.big.h5.h5ufunc-journal.*.0' 30 || fail "no journal appeared"
	local p
	p=$(child "$H5U_BACKGROUND")
	kill -STOP "$p"
	run --separate-stderr h5u reduce add big.h5:/x --axis all
	assert_error_match 2 "reduce add: big\.h5: being written in place by a running h5ufunc \(started .*, 1 rank\); wait until it ends"
	run --separate-stderr h5u recover big.h5
	assert_error_match 2 "recover: big\.h5: being written in place by a running h5ufunc \(started .*, 1 rank\); wait until it ends"
	kill -CONT "$p"
	wait "$H5U_BACKGROUND"
	H5U_BACKGROUND=
	np check add "$BATS_FILE_TMPDIR/big.h5:/x" 1 -o big.h5:/x
}

@test "recover: nothing to do, no such file, a directory or a file not HDF5, a file replaced since the run was killed" {
	cp "$BATS_FILE_TMPDIR/t.h5" .
	run --separate-stderr h5u recover t.h5
	assert_success
	assert_output "t.h5: no unfinished run"
	run --separate-stderr h5u recover -q t.h5
	assert_success
	assert_output ""
	run --separate-stderr h5u recover nothere.h5
	assert_error 2 "recover: cannot open 'nothere.h5': No such file or directory"
	# A directory, or a file that is not HDF5: refused, nothing touched (a
	# dead run's temporary beside it stays).
	mkdir d
	echo 'not hdf5' >notes.txt
	/usr/bin/python3 -c 'import netCDF4; netCDF4.Dataset("c3.nc", "w", format="NETCDF3_CLASSIC").close()'
	echo dead >.t.h5.h5ufunc-0123456789abcdef0123456789abcdef.tmp
	cp notes.txt notes.before
	run --separate-stderr h5u recover d
	assert_error 2 "recover: 'd' is a directory, not an HDF5 file"
	run --separate-stderr h5u recover notes.txt
	assert_error 2 "recover: 'notes.txt' is not an HDF5 file"
	run --separate-stderr h5u recover c3.nc
	assert_error 2 "recover: 'c3.nc' is a netCDF-3 file (classic format), which h5ufunc reads once it is netCDF-4: nccopy -k nc4 c3.nc NEW.nc"
	[[ -f .t.h5.h5ufunc-0123456789abcdef0123456789abcdef.tmp ]] || fail "a refused recover swept the directory"
	cmp notes.txt notes.before || fail "a refused recover changed the file"
	[[ -z "$(ls -A d)" ]] || fail "a refused recover wrote into the directory"
	rm .t.h5.h5ufunc-0123456789abcdef0123456789abcdef.tmp
	run --separate-stderr h5u recover
	assert_error 2 "recover: the file to recover is needed"
	stopped gone kill-write:0:2 1 $(in_place c)
	cp gone/t.h5 gone/copy.h5
	mv gone/copy.h5 gone/t.h5   # another file, another inode, the same name
	run --separate-stderr h5u recover gone/t.h5
	assert_error_match 1 "recover: cannot roll back what an interrupted run left: it is not the file its journal '.*/gone/\.t\.h5\.h5ufunc-journal' was made for \(it was replaced since\): remove the journal if this file is right"
}

@test "temporaries of dead runs go with the next run that writes there; a live run's, links and others stay" {
	cp "$BATS_FILE_TMPDIR/big.h5" .
	# A killed run leaves its new file's temporary behind.
	timeout 60 h5ufunc call negative big.h5:/x -o dead.h5:/y --memory 1K &
	H5U_BACKGROUND=$!
	wait_for '.dead.h5.h5ufunc-*.tmp' 30 || fail "no temporary appeared"
	kill -KILL "$(child "$H5U_BACKGROUND")"
	wait "$H5U_BACKGROUND" || true
	# A live one, held still.
	timeout 60 h5ufunc call negative big.h5:/x -o live.h5:/y --memory 1K &
	H5U_BACKGROUND=$!
	wait_for '.live.h5.h5ufunc-*.tmp' 30 || fail "no temporary appeared"
	local p
	p=$(child "$H5U_BACKGROUND")
	kill -STOP "$p"
	echo precious >victim
	ln -s victim .planted.h5.h5ufunc-0123456789abcdef0123456789abcdef.tmp
	echo mine >.notours.h5ufunc-tmp
	h5u call sqrt big.h5:/x -o other.h5:/y --memory 1M
	run ls -A
	refute_output --partial .dead.h5.h5ufunc-
	assert_output --partial .live.h5.h5ufunc-
	assert_output --partial .planted.h5.h5ufunc-
	assert_output --partial .notours.h5ufunc-tmp
	assert_equal "$(cat victim)" precious
	kill -CONT "$p"
	wait "$H5U_BACKGROUND"
	H5U_BACKGROUND=
	np check negative big.h5:/x -o live.h5:/y
}
