#!/usr/bin/env bats
# 68-mpi-info.bats - `--mpi-info KEY=VALUE`, MPI-IO hints for every file a
# run opens under MPI: accepted by every data command, results unchanged
# under mpirun -n 2 (and without a launcher, where there is no MPI-IO to
# hint), the hints seen by ROMIO itself (ROMIO_PRINT_HINTS), and a malformed
# hint refused with exit status 2 before anything is written.

load helper

# The Lustre/GPFS striping and collective-buffering hints h5ufunc.1 names.
HINTS=(--mpi-info striping_factor=4 --mpi-info striping_unit=1048576
	--mpi-info romio_cb_write=enable --mpi-info cb_buffer_size=1048576
	--mpi-info cb_nodes=2)

setup_file() {
	fixtures <<-'EOF'
		make h.h5:/a float64 9,5
		make h.h5:/b float32 5
		make h.h5:/i int16 9,5 fill=pos
		make k.h5:/k float64 400,30 chunks=50,30
		make k.h5:/c float64 400,30
	EOF
}

# hint_run DIR [N] [OPTION...]: in a new directory DIR with a copy of
# h.h5, run r.yaml and an eval writing new files and a call writing in
# place, with OPTIONs, without a launcher (N empty) or on N ranks.
hint_run() {
	local dir=$1 n=$2
	shift 2
	mkdir "$dir"
	cp r.yaml "$dir"/
	(
		cd "$dir" && fixture h.h5 || exit 1
		local launch=(h5u)
		[[ -n $n ]] && launch=(mpi "$n" h5ufunc)
		"${launch[@]}" run "$@" r.yaml &&
			"${launch[@]}" eval "$@" -i a=h.h5:/a -i b=h.h5:/b 'e.h5:/x = a * b - 1' &&
			"${launch[@]}" call multiply h.h5:/i 3 -o h.h5:/i "$@" &&
			"${launch[@]}" reduce add h.h5:/a --axis 0 -o e.h5:/s "$@"
	)
}

@test "--mpi-info hints are accepted and change no result, under mpirun -n 2 and without a launcher" {
	cat >r.yaml <<-'EOF'
		inputs: {a: h.h5:/a, b: h.h5:/b}
		steps:
		  - {ufunc: hypot, in: [a, b], out: o.h5:/h}
		  - {accumulate: add, in: a, out: o.h5:/acc, compression: gzip}
	EOF
	hint_run plain 2
	hint_run hinted 2 "${HINTS[@]}"
	hint_run single '' "${HINTS[@]}"
	local d
	for d in hinted single; do
		np same plain/o.h5:/h "$d/o.h5:/h" :: same plain/o.h5:/acc "$d/o.h5:/acc" \
			:: same plain/e.h5:/x "$d/e.h5:/x" :: same plain/h.h5:/i "$d/h.h5:/i" \
			:: same plain/e.h5:/s "$d/e.h5:/s"
	done
	fixture h.h5
	np check hypot h.h5:/a h.h5:/b -o hinted/o.h5:/h \
		:: let ab multiply h.h5:/a h.h5:/b :: check subtract ab 1 -o hinted/e.h5:/x \
		:: check multiply h.h5:/i 3 -o hinted/h.h5:/i
}

@test "the hints reach MPI-IO: ROMIO reports them for every file it opens" {
	ompi_info 2>/dev/null | grep -q 'MCA io: romio' || skip "Open MPI has no ROMIO io component"
	fixture h.h5
	local romio=(env ROMIO_PRINT_HINTS=1 timeout 60 mpirun --oversubscribe -n 2 -x ROMIO_PRINT_HINTS --mca io romio321)
	run --separate-stderr "${romio[@]}" h5ufunc call negative h.h5:/a -o plain.h5:/n
	assert_success
	local plain=$output
	run --separate-stderr "${romio[@]}" h5ufunc call negative h.h5:/a -o hinted.h5:/n \
		--mpi-info cb_buffer_size=1048576 --mpi-info romio_cb_write=disable \
		--mpi-info striping_unit=2097152
	assert_success
	local hinted=$output
	# Each open prints its hints; the input and the output are both opened.
	local opens
	opens=$(grep -c '^key = cb_buffer_size ' <<<"$hinted") || true
	((opens >= 2)) || fail "ROMIO printed no hints for the files:"$'\n'"$hinted"
	[[ $(grep -c '^key = cb_buffer_size *value = 1048576 *$' <<<"$hinted") -eq $opens ]] ||
		fail "cb_buffer_size=1048576 did not reach every file:"$'\n'"$hinted"
	[[ $(grep -c '^key = romio_cb_write *value = disable *$' <<<"$hinted") -eq $opens ]] ||
		fail "romio_cb_write=disable did not reach every file:"$'\n'"$hinted"
	[[ $(grep -c '^key = striping_unit *value = 2097152 *$' <<<"$hinted") -eq $opens ]] ||
		fail "striping_unit=2097152 did not reach every file:"$'\n'"$hinted"
	# Without the options ROMIO's own defaults show.
	! grep -q '^key = cb_buffer_size *value = 1048576 *$' <<<"$plain" ||
		fail "cb_buffer_size is 1048576 without --mpi-info: the test proves nothing"
	! grep -q '^key = romio_cb_write *value = disable *$' <<<"$plain" ||
		fail "romio_cb_write is disable without --mpi-info: the test proves nothing"
	np same plain.h5:/n hinted.h5:/n :: check negative h.h5:/a -o hinted.h5:/n
}

@test "a file whose datasets written in place all move alone is opened without ROMIO's data sieving of writes, unless --mpi-info names it; other files keep it" {
	# HDF5's metadata at the close, written in one collective call, left
	# a rank with a piece near the file's start and one at its end:
	# sieved, that was one read-modify-write of all between them
	# (43-interrupted counts what the journal saved of it).
	ompi_info 2>/dev/null | grep -q 'MCA io: romio' || skip "Open MPI has no ROMIO io component"
	local romio=(env ROMIO_PRINT_HINTS=1 timeout 60 mpirun --oversubscribe -n 2 -x ROMIO_PRINT_HINTS --mca io romio321)
	local d off='^key = romio_ds_write *value = disable *$'
	fixture k.h5
	for d in alone asked contiguous; do
		mkdir "$d"
		(cd "$d" && fixture k.h5) || fail "$d: no fixture"
	done
	run --separate-stderr "${romio[@]}" h5ufunc call multiply alone/k.h5:/k 3 -o alone/k.h5:/k
	assert_success
	grep -q "$off" <<<"$output" || fail "moved alone, sieved:"$'\n'"$output"
	run --separate-stderr "${romio[@]}" h5ufunc call multiply asked/k.h5:/k 3 -o asked/k.h5:/k \
		--mpi-info romio_ds_write=enable
	assert_success
	! grep -q "$off" <<<"$output" || fail "--mpi-info romio_ds_write=enable overruled"
	grep -q '^key = romio_ds_write *value = enable *$' <<<"$output" || fail "the hint lost:"$'\n'"$output"
	run --separate-stderr "${romio[@]}" h5ufunc call multiply contiguous/k.h5:/c 3 -o contiguous/k.h5:/c
	assert_success
	! grep -q "$off" <<<"$output" || fail "a contiguous dataset's file unsieved"
	np check multiply k.h5:/k 3 -o alone/k.h5:/k :: check multiply k.h5:/k 3 -o asked/k.h5:/k \
		:: check multiply k.h5:/c 3 -o contiguous/k.h5:/c
}

@test "a malformed --mpi-info is a usage error, exit 2, nothing written" {
	fixture h.h5
	printf 'steps:\n  - ufunc: negative\n    in: h.h5:/a\n    out: o.h5:/n\n' >r.yaml
	snapshot
	run --separate-stderr h5u call negative h.h5:/a -o o.h5:/n --mpi-info striping_factor
	assert_error 2 "call: --mpi-info takes KEY=VALUE, got 'striping_factor'"
	run --separate-stderr h5u run --mpi-info =4 r.yaml
	assert_error 2 "run: --mpi-info takes KEY=VALUE, got '=4'"
	run --separate-stderr h5u eval --mpi-info cb_nodes -i a=h.h5:/a 'o.h5:/n = a + 1'
	assert_error 2 "eval: --mpi-info takes KEY=VALUE, got 'cb_nodes'"
	run --separate-stderr h5u reduce add h.h5:/a --mpi-info '' -o o.h5:/n
	assert_error 2 "reduce: --mpi-info takes KEY=VALUE, got ''"
	run --separate-stderr h5u check --mpi-info striping_unit r.yaml
	assert_error 2 "check: --mpi-info takes KEY=VALUE, got 'striping_unit'"
	run --separate-stderr h5u call negative h.h5:/a -o o.h5:/n --mpi-info
	assert_error 2 "call: option '--mpi-info' needs a value"
	assert_unchanged
}

@test "a malformed --mpi-info under mpirun -n 2: exit 2, the message once, nothing written" {
	fixture h.h5
	printf 'steps:\n  - ufunc: negative\n    in: h.h5:/a\n    out: o.h5:/n\n' >r.yaml
	snapshot
	run --separate-stderr mpi 2 h5ufunc run --mpi-info romio_cb_write r.yaml
	assert_error_once 2 "run: --mpi-info takes KEY=VALUE, got 'romio_cb_write'"
	assert_unchanged
}
