#!/usr/bin/env bats
# 63-boxes.bats - every stage's index space cut into n-d boxes (dist.h):
# rows wider than --memory 1M, a size-1 leading axis, 1-D, 0-d and empty
# arrays, a broadcast operand larger than an eighth of the budget, through
# elementwise steps, a fused expression, outer and accumulate along every
# axis, on no launcher and on 1 to 4 ranks, compared bit for bit with NumPy
# (tests/boxes_ref.py); reduce over leading, trailing and all axes, NumPy's
# bits on every rank count and budget; each rank's share of (1, 400, 600) and (3, 200000)
# within 25% of an equal one, read from --json's per_rank elements, and
# `check` naming the boxes and the ranks with work.  Sequential reductions
# streamed under --memory 1M ((4, 300000, 3) over axis 1, (200000, 3),
# (3, 400000) and (2, 1, 600000) over axis 0, subtract and divide along the
# first and the last axis): NumPy's bits on 1 to 4 ranks, even shares, and
# their blocks and boxes in `check`.  Narrow kept axes ((200000, 3),
# (300000, 2), (4, 300000, 3) with its last axis kept) are never cut: a
# float sum is folded in NumPy's order by the ranks the kept rows allow and
# `check` says why the others idle; a fold exact in any grouping (maximum,
# minimum, integer add, multiply, bitwise_xor, with where= and masks) deals
# its reduced axis to every rank, each share within 25%, NumPy's bits on
# 1 to 4 ranks, under a sanitizer too; accumulates exact in any grouping
# over narrow kept axes ((200000, 3) along axis 0, (3, 100000) and
# (4, 300000, 3) along axis 1: int64 and dtype=int32 add and multiply
# wrapping around, maximum over ties and a nan, bitwise_or, logical_and,
# a masked maximum; fewer rows than ranks, none) deal the accumulated axis
# to the ranks: NumPy's bits on 1 to 4 ranks, each element counted once in
# per_rank and each share within 25%, and `check` naming the dealt blocks
# (dtype=float64 stays in order, and says why); a gzip-chunked input reduced and
# accumulated along each axis read in whole chunks by every rank.  Fused
# reductions take the pass's boxes where they can (a (1, 400, 600) sum on
# 4 busy ranks) and are run on their own where the boxes they need would
# idle ranks; their pass is sized by what their reducers hold (a packed
# output's scratch counted: `check` shows the rows), and at the smallest
# budget that fuses them (a packed sum, int8, bool and complex results,
# rows of no elements) writes NumPy's values on no launcher and 1 to 4
# ranks.

load helper

REF=boxes_ref.py

# every_launch JOB IN RECIPE: run RECIPE under --memory 1M on one process
# and on 1 to 4 ranks, keeping each out.h5 as out-1-process.h5,
# out-N-ranks.h5; then `ref JOB IN OUT` must pass for every one of them
# (one reference process; its messages name the file).
every_launch() {
	local job=$1 in=$2 recipe=$3 n jobs=()
	h5u run --memory 1M "$recipe" || fail "one process: exit status $?"
	mv out.h5 out-1-process.h5
	jobs+=(:: "$job" "$in" out-1-process.h5)
	for n in 1 2 3 4; do
		mpi "$n" h5ufunc run --memory 1M "$recipe" || fail "$n ranks: exit status $?"
		mv out.h5 "out-$n-ranks.h5"
		jobs+=(:: "$job" "$in" "out-$n-ranks.h5")
	done
	run ref "${jobs[@]:1}"
	assert_success
}

setup_file() {
	ref make "$BATS_FILE_TMPDIR"
	np make "$BATS_FILE_TMPDIR/ch.h5:/x" float64 2000,640 layout=chunked chunks=100,64 gzip=4 :: \
		make "$BATS_FILE_TMPDIR/sh.h5:/g" float32 1,400,600 :: \
		make "$BATS_FILE_TMPDIR/sh.h5:/r" float64 3,200000
}

@test "every verb on rows wider than --memory 1M, 1-D, 0-d and empty arrays, 1 to 4 ranks: NumPy's bits" {
	cp "$BATS_FILE_TMPDIR/in.h5" "$BATS_FILE_TMPDIR/rec.yaml" .
	every_launch check in.h5 rec.yaml
}

@test "reduce over leading, trailing and all axes on rows wider than --memory 1M, 1-D, 0-d and empty arrays: NumPy's result, the same bits on 1 to 4 ranks and every budget" {
	cp "$BATS_FILE_TMPDIR/in.h5" "$BATS_FILE_TMPDIR/red.yaml" .
	h5u run --memory 1M red.yaml || fail "one process: exit status $?"
	run ref reduced in.h5 out.h5
	assert_success
	mv out.h5 one.h5
	local how
	for how in 1:256M 2:1M 3:256M 4:1M; do
		mpi "${how%:*}" h5ufunc run --memory "${how#*:}" red.yaml || fail "$how: exit status $?"
		run ref same one.h5 out.h5
		[[ $status == 0 ]] || fail "${how%:*} ranks, --memory ${how#*:}: $output"
		rm out.h5
	done
}

@test "each rank's share within 25% of an equal one on (1, 400, 600) and (3, 200000), 2 to 4 ranks" {
	fixture sh.h5
	cat >c.yaml <<-'EOF'
		steps:
		  - {ufunc: negative, in: sh.h5:/g, out: c.h5:/y}
	EOF
	local n d size shares=() checks=()
	for n in 2 3 4; do
		for d in g:240000 r:600000; do
			size=${d#*:}
			d=${d%%:*}
			mpi "$n" h5ufunc call negative "sh.h5:/$d" -o "o$n$d.h5:/y" --json >"call-$n$d.json" ||
				fail "$n ranks, /$d: exit status $?"
			shares+=(:: shares "call-$n$d.json" "$size")
			checks+=(:: check negative "sh.h5:/$d" -o "o$n$d.h5:/y")
		done
		run --separate-stderr mpi "$n" h5ufunc check c.yaml
		assert_success
		assert_line --partial "$n of $n ranks with work"
		for d in g:240000 r:600000; do
			size=${d#*:}
			d=${d%%:*}
			mpi "$n" h5ufunc reduce add "sh.h5:/$d" --axis all -o "s$n$d.h5:/s" --json >"reduce-$n$d.json" ||
				fail "$n ranks, reduce /$d: exit status $?"
			shares+=(:: shares "reduce-$n$d.json" "$size")
		done
	done
	run ref "${shares[@]:1}"
	assert_success
	np "${checks[@]:1}"
}

@test "check prints each pass's boxes: shape, count and the ranks with work" {
	cp "$BATS_FILE_TMPDIR/in.h5" "$BATS_FILE_TMPDIR/rec.yaml" .
	run --separate-stderr h5u check --memory 1M rec.yaml
	assert_success
	# (2, 300000) float64 rows of 2.4 MB: boxes along axis 1
	assert_line "step 1: ufunc sqrt, loop d->d, casting same_kind, boxes (1, 32768), 20 boxes, 1 of 1 ranks with work"
	assert_line "step 7: ufunc negative, loop d->d, casting same_kind, boxes (5, 0), 1 box, 0 of 1 ranks with work"
	run --separate-stderr mpi 4 h5ufunc check rec.yaml
	assert_success
	assert_line --regexp '^step 4: ufunc negative, .*, boxes \(1, [0-9]+, 600\), [0-9]+ boxes, 4 of 4 ranks with work$'
	assert_line --regexp '^step 13: accumulate add, .*, blocks of 2100 along axis 2; across it, boxes \([0-9]+, 37\), [0-9]+ boxes, 4 of 4 ranks with work$'
	# a sum over trailing or all axes: NumPy's pieces, chained, in boxes
	# of the input whatever the budget
	cp "$BATS_FILE_TMPDIR/red.yaml" .
	run --separate-stderr mpi 3 h5ufunc check --memory 1M red.yaml
	assert_success
	assert_line --regexp '^step 1: reduce add, loop dd->d, casting same_kind, pieces of 8192 elements chained in order, boxes \(1, [0-9]+\), [0-9]+ boxes, 3 of 3 ranks with work$'
	# keeping the last axis of (1, 400, 600): NumPy folds it element by
	# element, a stream, 3 ranks busy across
	assert_line --regexp '^step 6: reduce add, loop ff->f, casting same_kind, blocks of \(1, [0-9]+\) along axes 0, 1; across them, boxes \([0-9]+,\), 3 boxes, 3 of 3 ranks with work$'
	# keeping axis 0 of (2, 300000): pieces inside each row, 3 ranks busy
	assert_line --regexp '^step 10: reduce add, loop dd->d, casting same_kind, pieces of 8192 elements chained in order, boxes \(1, [0-9]+\), [0-9]+ boxes, 3 of 3 ranks with work$'
}

@test "boxes follow the chunk grid: each chunk of a gzip input read, and of a gzip output written, by one rank, 2 and 4 ranks" {
	np make ch.h5:/x float64 1000,640 layout=chunked chunks=256,64 gzip=4 :: \
		make ch.h5:/c float64 2000,640
	cat >gz.yaml <<-'EOF'
		steps:
		  - {ufunc: negative, in: ch.h5:/c, chunks: [120, 640], compression: gzip, out: out.h5:/z}
	EOF
	local n
	for n in 2 4; do
		rm -f in.h5 out.h5
		run --separate-stderr mpi "$n" h5ufunc call sqrt ch.h5:/x -o in.h5:/y --json
		assert_success
		printf '%s\n' "$output" >in.json
		run --separate-stderr mpi "$n" h5ufunc check gz.yaml
		assert_success
		assert_line --regexp "^step 1: ufunc negative, .*, boxes \([0-9]+, 640\), [0-9]+ boxes?, $n of $n ranks with work$"
		local box=${lines[0]#*boxes (}
		((${box%%,*} % 120 == 0)) || fail "$n ranks: boxes of ${box%%,*} rows cut chunks of 120"
		mpi "$n" h5ufunc run --json gz.yaml >out.json || fail "$n ranks: exit status $?"
		np check sqrt ch.h5:/x -o in.h5:/y :: check negative ch.h5:/c -o out.h5:/z
		# every rank's bytes are whole rows of chunks (the last rank's may end short)
		/usr/bin/python3 - "$n" <<-'PY'
			import json, sys
			n, row = int(sys.argv[1]), 640 * 8
			for name, key, rows in (('in.json', 'bytes_read', 256), ('out.json', 'bytes_written', 120)):
			    per = json.load(open(name))['per_rank']
			    for r, c in enumerate(per[:-1]):
			        if c[key] == 0 or c[key] % (rows * row):
			            sys.exit(f'{name}: rank {r}: {key} {c[key]}, not whole rows of chunks of {rows} rows')
			PY
	done
}

@test "sequential reductions streamed under --memory 1M along any axes, 1 to 4 ranks: NumPy's bits, even shares on 3 and 4" {
	cp "$BATS_FILE_TMPDIR/st.h5" "$BATS_FILE_TMPDIR/st.yaml" .
	every_launch streamed st.h5 st.yaml
	local n what uf d size shares=()
	# every rank busy where the kept axes allow it or the fold is exact in
	# any grouping (the reduced axis dealt), its share within 25%
	for n in 3 4; do
		for what in "subtract c 0 1200000" "maximum a 1 3600000" "minimum b 0 600000" "add k 0 600000"; do
			read -r uf d axis size <<<"$what"
			mpi "$n" h5ufunc reduce "$uf" "st.h5:/$d" --axis "$axis" -o "o$n$d.h5:/s" --memory 1M \
				--json >"$uf-$d-$n.json" || fail "$n ranks, $what: exit status $?"
			shares+=(:: shares "$uf-$d-$n.json" "$size")
		done
	done
	run ref "${shares[@]:1}"
	assert_success
}

@test "folds exact in any grouping over narrow kept axes with where= and masks: the reduced axis dealt, NumPy's bits on 1 to 4 ranks" {
	/usr/bin/python3 - <<-'PY'
		import h5py, numpy as np
		rng = np.random.default_rng(63)
		with h5py.File('x.h5', 'w') as f:
		    f['k'] = rng.integers(-50, 50, (90001, 3)).astype(np.int32)
		    f['w'] = rng.random((90001, 3)) < 0.7
		    x = rng.random((90001, 3))
		    x[rng.random((90001, 3)) < 0.2] = -9999
		    d = f.create_dataset('x', data=x)
		    d.attrs['_FillValue'] = -9999.0
	PY
	local n
	for n in 0 1 2 3 4; do   # 0: one process, no launcher
		if ((n == 0)); then
			h5u reduce add x.h5:/k --axis 0 --where x.h5:/w -o o0.h5:/add --memory 1M
			h5u reduce maximum x.h5:/x --axis 0 --missing mask -o o0.h5:/max --memory 1M
		else
			mpi "$n" h5ufunc reduce add x.h5:/k --axis 0 --where x.h5:/w -o "o$n.h5:/add" --memory 1M ||
				fail "$n ranks: where=: exit status $?"
			mpi "$n" h5ufunc reduce maximum x.h5:/x --axis 0 --missing mask -o "o$n.h5:/max" --memory 1M ||
				fail "$n ranks: masked: exit status $?"
		fi
	done
	/usr/bin/python3 - o0.h5 o1.h5 o2.h5 o3.h5 o4.h5 <<-'PY' || fail "not NumPy's result"
		import sys, h5py, numpy as np
		f = h5py.File('x.h5')
		add = np.add.reduce(f['k'][()], axis=0, where=f['w'][()])
		mx = np.maximum.reduce(np.ma.masked_equal(f['x'][()], -9999), axis=0)
		assert not np.ma.getmaskarray(mx).any()
		bad = []
		for name in sys.argv[1:]:
		    o = h5py.File(name)
		    if o['add'][()].dtype != add.dtype or o['add'][()].tobytes() != add.tobytes():
		        bad.append(f'{name}:/add')
		    if o['max'][()].tobytes() != mx.filled().tobytes():
		        bad.append(f'{name}:/max')
		sys.exit(f'not NumPy\'s bits: {bad}' if bad else None)
	PY
	run --separate-stderr mpi 3 h5ufunc check - <<-'EOF'
		steps:
		  - reduce: add
		    in: x.h5:/k
		    where: x.h5:/w
		    out: c.h5:/add
		  - reduce: maximum
		    in: x.h5:/x
		    missing: mask
		    out: c.h5:/max
	EOF
	assert_success
	assert_line --regexp '^step 1: reduce add, .*, blocks of [0-9]+ along axis 0, dealt to the ranks; across it, boxes \(3,\), 1 box, 3 of 3 ranks with work$'
	assert_line --regexp '^step 2: reduce maximum, .*, blocks of [0-9]+ along axis 0, dealt to the ranks; across it, boxes \(3,\), 1 box, 3 of 3 ranks with work$'
}

@test "accumulates exact in any grouping over narrow kept axes (wrap-around add and multiply, maximum over ties and a nan, bitwise_or, logical_and, masked): the axis dealt, NumPy's bits and even shares on 1 to 4 ranks" {
	cp "$BATS_FILE_TMPDIR/sc.h5" "$BATS_FILE_TMPDIR/sc.yaml" .
	local how n jobs=()
	for how in 1:1M 2:256M 3:1M 4:1M; do
		n=${how%:*}
		mpi "$n" h5ufunc run --memory "${how#*:}" --json sc.yaml >"run-$n.json" || fail "$n ranks: exit status $?"
		mv out.h5 "out-$n-ranks.h5"
		jobs+=(:: scanned sc.h5 "out-$n-ranks.h5")
		# every element computed once: 6300006 of them, in all the steps
		((n == 1)) || jobs+=(:: shares "run-$n.json" 6300006)
	done
	run ref "${jobs[@]:1}"
	assert_success
	run --separate-stderr mpi 4 h5ufunc check --memory 1M - <<-'EOF'
		steps:
		  - {accumulate: add, in: sc.h5:/a, out: c.h5:/a}
		  - {accumulate: multiply, in: sc.h5:/m, axis: 1, dtype: int32, out: c.h5:/m}
		  - {accumulate: logical_and, in: sc.h5:/b, axis: 1, out: c.h5:/b}
		  - {accumulate: maximum, in: sc.h5:/x, missing: mask, out: c.h5:/x}
		  - {accumulate: add, in: sc.h5:/m, axis: 1, dtype: float64, out: c.h5:/f}
		  - {accumulate: add, in: sc.h5:/t, out: c.h5:/t}
	EOF
	assert_success
	assert_line --regexp '^step 1: accumulate add, loop qq->q, .*, blocks of [0-9]+ along axis 0, dealt to the ranks; across it, boxes \(3,\), 1 box, 4 of 4 ranks with work$'
	assert_line --regexp '^step 2: accumulate multiply, loop ii->i, .*, blocks of [0-9]+ along axis 1, dealt to the ranks; across it, boxes \([0-9],\), [0-9] box(es)?, 4 of 4 ranks with work$'
	assert_line --regexp '^step 3: accumulate logical_and, .*, dealt to the ranks; .*, 4 of 4 ranks with work$'
	assert_line --regexp '^step 4: accumulate maximum, .*, dealt to the ranks; .*, 4 of 4 ranks with work$'
	# dtype=float64 sums in NumPy's order: one rank a row, and check says why
	assert_line --regexp "^step 5: accumulate add, loop dd->d, .*, blocks of [0-9]+ along axis 1; across it, boxes \(1,\), 3 boxes, 3 of 4 ranks with work \(add on float64 accumulates in NumPy's order: the ranks share only the 3 elements across\)$"
	assert_line --regexp '^step 6: accumulate add, .*, blocks of 3 along axis 0; across it, boxes \(2,\), 1 box, 1 of 4 ranks with work$'
	# (4, 300000, 3) along axis 1: 4 rows of 3 on 3 ranks would be uneven
	run --separate-stderr mpi 3 h5ufunc check --memory 1M - <<-'EOF'
		steps:
		  - {accumulate: bitwise_or, in: sc.h5:/c, axis: 1, out: c.h5:/c}
	EOF
	assert_success
	assert_line --regexp '^step 1: accumulate bitwise_or, .*, blocks of [0-9]+ along axis 1, dealt to the ranks; across it, boxes \(1, 3\), 4 boxes, 3 of 3 ranks with work$'
}

@test "check prints a stream's blocks along its axes and its boxes across them" {
	cp "$BATS_FILE_TMPDIR/st.h5" "$BATS_FILE_TMPDIR/st.yaml" .
	run --separate-stderr mpi 4 h5ufunc check --memory 1M st.yaml
	assert_success
	# (4, 300000, 3) over axis 1: whole rows of 3, one a rank
	assert_line --regexp '^step 1: reduce add, loop dd->d, casting same_kind, blocks of [0-9]+ along axis 1; across it, boxes \(1, 3\), 4 boxes, 4 of 4 ranks with work$'
	# (200000, 3) over axis 0: a float sum in NumPy's order, one rank reads
	# whole rows; the others idle, and check says why
	assert_line --regexp "^step 2: reduce add, .*, blocks of [0-9]+ along axis 0; across it, boxes \(3,\), 1 box, 1 of 4 ranks with work \(add on float64 folds in NumPy's order: the ranks share only the 3 elements across\)$"
	# maximum, and int32 sums (int64): the rows dealt to all 4
	assert_line --regexp '^step 3: reduce maximum, .*, blocks of [0-9]+ along axis 0, dealt to the ranks; across it, boxes \(3,\), 1 box, 4 of 4 ranks with work$'
	assert_line --regexp '^step 10: reduce add, loop qq->q, .*, blocks of [0-9]+ along axis 0, dealt to the ranks; across it, boxes \(2,\), 1 box, 4 of 4 ranks with work$'
	# subtract along the last axis: cut, as it folds in order
	assert_line --regexp "^step 7: reduce subtract, .*, blocks of [0-9]+ along axis 1; across it, boxes \(1,\), 3 boxes, 3 of 4 ranks with work \(subtract on float64 folds in NumPy's order: the ranks share only the 3 elements across\)$"
	assert_line --regexp '^step 11: reduce add, .*, blocks of \(7, 13\) along axes 1, 3; across them, boxes \([0-9]+, [0-9]+\), [0-9]+ boxes, 4 of 4 ranks with work$'
	local line
	line=$(grep '^step 7: ' <<<"$output")
	line=${line#*blocks of }
	((${line%% *} < 400000)) || fail "subtract along the last axis held whole: $line"
	# an accumulation of (200000, 3) along axis 0: one rank, and why
	run --separate-stderr mpi 3 h5ufunc check --memory 1M - <<-'EOF'
		steps:
		  - accumulate: add
		    in: st.h5:/b
		    out: c.h5:/c
		  - reduce: add
		    in: st.h5:/a
		    axis: 1
		    out: c.h5:/s
	EOF
	assert_success
	assert_line --regexp "^step 1: accumulate add, .*, boxes \(3,\), 1 box, 1 of 3 ranks with work \(add on float64 accumulates in NumPy's order: the ranks share only the 3 elements across\)$"
	assert_line --regexp "^step 2: reduce add, .*, boxes \(1, 3\), 4 boxes, 3 of 3 ranks with work \(add on float64 folds in NumPy's order: the ranks share only the 12 elements across\)$"
}

@test "a gzip-chunked input reduced and accumulated along each axis: blocks and boxes of whole chunks, each read by one rank, on 2 or 4 ranks" {
	fixture ch.h5
	local n verb uf axis what box cases=()
	for what in "2 reduce subtract 0" "4 reduce add 1" "4 accumulate add 0" "2 accumulate add 1"; do
		read -r n verb uf axis <<<"$what"
		run --separate-stderr mpi "$n" h5ufunc "$verb" "$uf" ch.h5:/x --axis "$axis" -o "$verb-$uf-$axis.h5:/y" --memory 1M --json
		assert_success
		printf '%s\n' "$output" >"$verb-$uf-$axis.json"
		cases+=("$n $verb $uf $axis")
	done
	# NumPy's result, and every rank's bytes read are whole chunks, every
	# chunk read once
	/usr/bin/python3 - "${cases[@]}" <<-'PY' || fail "not NumPy's result, or chunks not read whole once"
		import json, sys, h5py, numpy as np
		x = h5py.File('ch.h5')['x'][()]
		chunk = 100 * 64 * 8
		bad = []
		for case in sys.argv[1:]:
		    n, verb, uf, axis = case.split()
		    name = f'{verb}-{uf}-{axis}'
		    want = getattr(getattr(np, uf), verb)(x, axis=int(axis))
		    got = h5py.File(name + '.h5')['y'][()]
		    if got.dtype != want.dtype or got.tobytes() != want.tobytes():
		        bad.append(f'{n} ranks, {case}: not NumPy\'s result')
		    per = json.load(open(name + '.json'))['per_rank']
		    read = [c['bytes_read'] for c in per]
		    if len(read) != int(n) or any(b % chunk for b in read) or sum(read) != 2000 * 640 * 8 or sum(b > 0 for b in read) < 2:
		        bad.append(f'{n} ranks, {case}: bytes read per rank {read}: not whole chunks of {chunk} bytes read once')
		sys.exit("\n".join(bad) or None)
	PY
	run --separate-stderr mpi 4 h5ufunc check --memory 1M - <<-'EOF'
		steps:
		  - reduce: subtract
		    in: ch.h5:/x
		    out: o.h5:/s
		  - accumulate: add
		    in: ch.h5:/x
		    axis: 1
		    out: o.h5:/t
	EOF
	assert_success
	box=$(grep '^step 1: ' <<<"$output")
	[[ $box =~ blocks\ of\ ([0-9]+)\ along\ axis\ 0\;\ across\ it,\ boxes\ \(([0-9]+),\) ]] || fail "$box"
	((BASH_REMATCH[1] % 100 == 0 && BASH_REMATCH[2] % 64 == 0)) || fail "chunks (100, 64) cut: $box"
	box=$(grep '^step 2: ' <<<"$output")
	[[ $box =~ blocks\ of\ ([0-9]+)\ along\ axis\ 1\;\ across\ it,\ boxes\ \(([0-9]+),\) ]] || fail "$box"
	((BASH_REMATCH[1] % 64 == 0 && BASH_REMATCH[2] % 100 == 0)) || fail "chunks (100, 64) cut: $box"
}

@test "fused reductions take the pass's boxes: every rank busy on (1, 400, 600); not fused where they would idle ranks" {
	fixture sh.h5
	cat >fz.yaml <<-'EOF'
		inputs: {g: sh.h5:/g, n: sh.h5:/r}
		steps:
		  - {expr: g * 2 + 1, out: g2}
		  - {reduce: add, in: g2, axis: null, out: fo.h5:/sum}
		  - {reduce: add, in: g2, axis: 2, out: fo.h5:/rows}
		  - {expr: n * 3, out: n3}
		  - {reduce: subtract, in: n3, axis: 1, out: fo.h5:/sub}
	EOF
	run --separate-stderr mpi 4 h5ufunc check fz.yaml
	assert_success
	assert_line --regexp '^step 1: expr add, .*, boxes \(1, [0-9]+, 600\), [0-9]+ boxes, 4 of 4 ranks with work$'
	assert_line "step 2: reduce add, fused into step 1"
	assert_line "step 3: reduce add, fused into step 1"
	assert_line --regexp '^step 4: expr multiply, .*, 4 of 4 ranks with work$'
	assert_line --regexp "^step 5: reduce subtract, loop dd->d, .*, 3 of 4 ranks with work \(subtract on float64 folds in NumPy's order: .*\)$"
	local n
	for n in 1 3 4; do
		rm -f fo.h5
		mpi "$n" h5ufunc run fz.yaml || fail "$n ranks: exit status $?"
		cp fo.h5 "fo$n.h5"
	done
	run ref same fo1.h5 fo3.h5 :: same fo1.h5 fo4.h5
	assert_success
	/usr/bin/python3 - <<-'PY' || fail "not NumPy's results"
		import sys, h5py, numpy as np
		f, o = h5py.File('sh.h5'), h5py.File('fo4.h5')
		g2 = f['g'][()] * np.float32(2) + np.float32(1)
		bad = o['sum'][()].tobytes() != np.add.reduce(g2, axis=None).tobytes()
		bad |= o['rows'][()].tobytes() != np.add.reduce(g2, axis=2).tobytes()
		bad |= o['sub'][()].tobytes() != np.subtract.reduce(f['r'][()] * 3, axis=1).tobytes()
		sys.exit(bad)
	PY
}

@test "a reduction that reads its input in another dtype than it folds into (ldexp over int8: int32 read, float16 results) sizes its boxes by what it reads" {
	np make ld.h5:/x int8 40,300
	# an element of a box: 4 bytes as read and 1 as stored; a result, 2:
	# 6000 bytes hold 3 rows of 300 (6000 / 1502), not the 6 that counting
	# each element at the 2 bytes of a result and 1 stored made
	run --separate-stderr h5ufunc check --memory 6000 - <<-'EOF'
		steps:
		  - {reduce: ldexp, in: ld.h5:/x, axis: 1, out: r.h5:/r}
	EOF
	assert_success
	assert_line 'step 1: reduce ldexp, loop ei->e, casting same_kind, blocks of 300 along axis 1; across it, boxes (3,), 14 boxes, 1 of 1 ranks with work'
	run --separate-stderr h5ufunc reduce ldexp ld.h5:/x --axis 1 --memory 2000 -o r.h5:/r
	assert_error_once 2 'reduce ldexp: --memory 2000 bytes is too small for one block (one row of every array needs 2100 bytes)'
	for n in 1 3; do
		rm -f r.h5
		mpi "$n" h5ufunc reduce ldexp ld.h5:/x --axis 1 --memory 6000 -o r.h5:/r || fail "$n ranks: exit status $?"
		/usr/bin/python3 -c 'import h5py, numpy as np
x = h5py.File("ld.h5")["x"][()]
r, want = h5py.File("r.h5")["r"][()], np.ldexp.reduce(x, axis=1)
assert r.dtype == want.dtype and r.tobytes() == want.tobytes(), (r, want)' || fail "$n ranks: not NumPy's bits"
	done
}

# fused_floor N RECIPE: the smallest --memory (bytes) at which `check` on N
# ranks (0: no launcher) fuses every reduction of RECIPE into its pass.
fused_floor() {
	local n=$1 recipe=$2 lo=64 hi=131072 mid fused want
	want=$(grep -c 'reduce:' "$recipe")
	while ((hi - lo > 1)); do
		mid=$(((lo + hi) / 2))
		if ((n == 0)); then
			fused=$(h5u check --memory "$mid" "$recipe" 2>/dev/null | grep -c 'fused into')
		else
			fused=$(mpi "$n" h5ufunc check --memory "$mid" "$recipe" 2>/dev/null | grep -c 'fused into')
		fi
		if ((fused == want)); then hi=$mid; else lo=$mid; fi
	done
	echo "$hi"
}

@test "a fused reduction's pass counts its reducer's buffers as they are allocated (a packed output's scratch; int8, bool and complex results; rows of no elements): at the smallest budget that fuses them, NumPy's values on no launcher and 1 to 4 ranks" {
	/usr/bin/python3 - <<-'PY'
		import h5py, numpy as np
		r = np.random.default_rng(7)
		with h5py.File('fin.h5', 'w') as f:
		    f['x'] = r.normal(size=(4000, 1))
		    f['b'] = r.integers(-100, 100, size=(500, 7)).astype(np.int8)
		    f['c'] = r.normal(size=(500, 7)) + 1j * r.normal(size=(500, 7))
		    f['e'] = np.zeros((6, 0, 3))
	PY
	cat >packed.yaml <<-'EOF'
		inputs: {x: fin.h5:/x}
		steps:
		  - {expr: x * 2, out: x2}
		  - {reduce: add, in: x2, axis: 1, out: out.h5:/p, pack: 'int16:0.01:0'}
	EOF
	cat >narrow.yaml <<-'EOF'
		inputs: {b: fin.h5:/b, c: fin.h5:/c}
		steps:
		  - {expr: b * 3, out: b3}
		  - {expr: c * 2, out: c2}
		  - {reduce: add, in: b3, axis: 1, dtype: int8, out: out.h5:/i}
		  - {reduce: logical_or, in: b3, axis: 1, out: out.h5:/o}
		  - {reduce: subtract, in: b3, axis: 1, out: out.h5:/s}
		  - {reduce: add, in: c2, axis: null, out: out.h5:/c}
		  - {reduce: multiply, in: c2, axis: 1, out: out.h5:/m}
	EOF
	cat >empty.yaml <<-'EOF'
		inputs: {e: fin.h5:/e}
		steps:
		  - {expr: e * 2, out: e2}
		  - {reduce: add, in: e2, axis: 1, out: out.h5:/e}
	EOF
	# a row of (4000, 1) folds into its own result, which is held in the
	# sum's float64 and, to be packed, in its scratch (8 bytes, the wider
	# of float64 and int16): 8 read + 8 the product + 16 = 32 bytes an
	# element; 4096 bytes less the chain's 88 fixed (a piece of one
	# element, 3 partials, 3 of rank 0's, 2 results more) hold 125 rows,
	# not the 168 that leaving out the scratch made
	run --separate-stderr h5u check --memory 4096 packed.yaml
	assert_success
	assert_line 'step 1: expr multiply, loop dd->d, casting same_kind, boxes (125, 1), 32 boxes, 1 of 1 ranks with work'
	assert_line 'step 2: reduce add, fused into step 1'
	# the smallest budgets that fuse them on no launcher (1 rank) and on 4
	# ranks (which hold more: the partials of groups split between ranks)
	local y n m floor=()
	for y in packed narrow empty; do
		floor=("$(fused_floor 0 "$y.yaml")" "$(fused_floor 4 "$y.yaml")")
		for n in 0 1 2 3 4; do
			m=${floor[n > 1]}
			rm -f out.h5
			if ((n == 0)); then
				h5u run --memory "$m" "$y.yaml" || fail "$y, no launcher, --memory $m: exit status $?"
			else
				mpi "$n" h5ufunc run --memory "$m" "$y.yaml" || fail "$y, $n ranks, --memory $m: exit status $?"
			fi
			/usr/bin/python3 - "$y" <<-'PY' || fail "$y, $n ranks, --memory $m: not NumPy's values"
				import sys, h5py, numpy as np
				f, o = h5py.File('fin.h5'), h5py.File('out.h5')
				def same(name, want):
				    got = o[name][()]
				    assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (name, got, want)
				if sys.argv[1] == 'packed':
				    p, want = o['p'], np.add.reduce(f['x'][()] * 2, axis=1)
				    assert p.dtype == np.int16 and p.attrs['scale_factor'] == 0.01, p
				    assert np.allclose(p[()] * 0.01, want, rtol=0, atol=0.005 + 1e-9), (p[()], want)
				elif sys.argv[1] == 'narrow':
				    b3, c2 = f['b'][()] * np.int8(3), f['c'][()] * 2
				    same('i', np.add.reduce(b3, axis=1, dtype=np.int8))
				    same('o', np.logical_or.reduce(b3, axis=1))
				    same('s', np.subtract.reduce(b3, axis=1))
				    same('c', np.add.reduce(c2, axis=None))
				    same('m', np.multiply.reduce(c2, axis=1))
				else:
				    same('e', np.add.reduce(f['e'][()] * 2, axis=1))
			PY
		done
	done
}
