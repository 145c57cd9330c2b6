#!/usr/bin/env bats
# 12-writes.bats - where results go: in place (attributes kept, the casting
# rule applied), new datasets in existing files (parent groups made), new
# files (visible only after success), overwrite refused and allowed, and the
# NCO-style `history` attribute on every file written.

load helper

setup_file() {
	fixtures <<-'EOF'
		make f.h5:/x float64 4,3 attr:units=m/s attr:resolution=0.5
		make f.h5:/other int16 5
		make f.h5:/xi int32 4,3 attr:long_name=counts
		make f.h5:/xf float32 4,3
		make f.h5:/row float64 3
		make f.h5:/base int16 4 data=[2,3,4,5]
		make f.h5:/neg int16 4 data=[2,1,-1,3]
		make f.h5:/g/inner float64 2
	EOF
}

setup() {
	fixture f.h5
	cp f.h5 orig.h5
}

@test "in place (call): values replaced, dtype and attributes kept, the rest untouched" {
	h5u call multiply f.h5:/x 2 -o f.h5:/x
	np check multiply orig.h5:/x 2 -o f.h5:/x --into :: \
		stored f.h5:/x float64 4,3 :: \
		attrs f.h5:/x units=m/s resolution=0.5 :: \
		same orig.h5:/other f.h5:/other :: \
		same orig.h5:/xi f.h5:/xi :: \
		same orig.h5:/g/inner f.h5:/g/inner
	assert_equal "$(np ls f.h5)" "$(np ls orig.h5)"
}

@test "in place (recipe): out names an input" {
	cat >r.yaml <<-'EOF'
		inputs: {xi: f.h5:/xi}
		steps:
		  - {ufunc: add, in: [xi, 1], out: xi}
	EOF
	h5u run r.yaml
	np check add orig.h5:/xi 1 -o f.h5:/xi --into :: \
		attrs f.h5:/xi long_name=counts :: \
		same orig.h5:/x f.h5:/x
}

@test "in place (recipe): out is the FILE:/PATH of an operand" {
	cat >r.yaml <<-'EOF'
		steps:
		  - {ufunc: multiply, in: [f.h5:/x, 3], out: f.h5:/x}
	EOF
	h5u run r.yaml
	np check multiply orig.h5:/x 3 -o f.h5:/x --into :: \
		attrs f.h5:/x units=m/s resolution=0.5
}

@test "in place into an input that is not an operand of the step" {
	cat >r.yaml <<-'EOF'
		inputs: {x: f.h5:/x, y: f.h5:/xf}
		steps:
		  - {ufunc: add, in: [y, 1], out: x}
	EOF
	h5u run r.yaml
	np check add orig.h5:/xf 1 -o f.h5:/x --into :: stored f.h5:/x float64
}

@test "in place into big-endian datasets, gzip chunks and contiguous, complex, float16, on one process and 1-4 ranks: NumPy's values, the byte order kept" {
	np make be.h5:/g float32 37,23 order=big layout=chunked chunks=8,23 gzip=4 :: \
		make be.h5:/c complex128 37,5 order=big layout=chunked chunks=5,5 gzip=1 :: \
		make be.h5:/h float16 37,4 order=big layout=chunked chunks=16,4 gzip=1 :: \
		make be.h5:/i int16 37 order=big layout=chunked chunks=7 gzip=1 lo=-100 hi=100 :: \
		make be.h5:/p float64 37,3 order=big
	local jobs=() n go d
	for n in 0 1 2 3 4; do
		cp be.h5 "b$n.h5"
		go=(mpi "$n")
		((n)) || go=()
		for d in g c h i p; do
			run --separate-stderr "${go[@]}" h5ufunc call add "b$n.h5:/$d" 1 -o "b$n.h5:/$d"
			assert_success
			jobs+=(check add "be.h5:/$d" 1 -o "b$n.h5:/$d" --into ::)
		done
		/usr/bin/python3 -c 'import h5py, sys; f = h5py.File(sys.argv[1]); assert all(f[k].dtype.str[0] == ">" for k in f), [f[k].dtype.str for k in f]' "b$n.h5"
	done
	np "${jobs[@]}"
}

@test "in place under MPI into big-endian gzip chunks that the boxes cut (--memory 4K), read again by a later step, on one process and 1-4 ranks: NumPy's values" {
	# HDF5 1.10's collective filtered write could not inflate the chunks
	# it had written once a read of the same dataset had converted its
	# byte order ("couldn't unfilter chunk for modifying": exit 1 on 1-2
	# ranks, a hang on 3-4); also a new file from such an input
	np make be.h5:/x uint16 2,9,43,5 order=big layout=chunked chunks=1,9,2,4 gzip=1 hi=1000 :: \
		make be.h5:/f float64 3,9,43 order=big layout=chunked chunks=2,9,2 gzip=4
	cat >r.yaml <<-'EOF'
		inputs: {f: b.h5:/f}
		steps:
		  - {ufunc: add, in: [f, 1.5], out: f}
		  - {ufunc: multiply, in: [f, 2], out: f}
		  - {ufunc: sqrt, in: f, out: new.h5:/s, chunks: [1, 2, 5], compression: gzip}
	EOF
	local n go
	for n in 0 1 2 3 4; do
		mkdir "r$n"
		cp be.h5 "r$n/b.h5"
		cp r.yaml "r$n/"
		go=(mpi "$n")
		((n)) || go=()
		(cd "r$n" && "${go[@]}" h5ufunc call add b.h5:/x 1 -o b.h5:/x --memory 4K) || fail "$n ranks, call: exit status $?"
		(cd "r$n" && "${go[@]}" h5ufunc run --memory 4K r.yaml) || fail "$n ranks, run: exit status $?"
		np check add be.h5:/x 1 -o "r$n/b.h5:/x" --into :: \
			let f1 add be.h5:/f 1.5 :: let f2 multiply f1 2 :: check add f2 0 -o "r$n/b.h5:/f" --into :: \
			check sqrt f2 -o "r$n/new.h5:/s"
		/usr/bin/python3 -c 'import h5py, sys; f = h5py.File(sys.argv[1]); assert all(f[k].dtype.str[0] == ">" for k in f), [f[k].dtype.str for k in f]' "r$n/b.h5"
	done
}

@test "in place: the result is cast by the casting rule (same_kind allows float64 to float32)" {
	h5u call add f.h5:/xf f.h5:/x -o f.h5:/xf
	np check add orig.h5:/xf orig.h5:/x -o f.h5:/xf --into :: stored f.h5:/xf float32
}

@test "in place: NumPy's message when the casting rule refuses, nothing written" {
	snapshot
	run --separate-stderr h5u call add f.h5:/xi 2.5 -o f.h5:/xi
	assert_error 2 "call add: Cannot cast ufunc 'add' output from float64 to int32 with casting rule 'same_kind'"
	run --separate-stderr h5u call add f.h5:/xf f.h5:/x -o f.h5:/xf --casting safe
	assert_error 2 "call add: Cannot cast ufunc 'add' output from float64 to float32 with casting rule 'safe'"
	cat >r.yaml <<-'EOF'
		inputs:
		  xi: f.h5:/xi
		steps:
		  - ufunc: add
		    in: [xi, 2.5]
		    out: xi
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:6:10: step 1 (ufunc add): Cannot cast ufunc 'add' output from float64 to int32 with casting rule 'same_kind'"
	assert_unchanged
}

@test "in place with casting unsafe truncates as NumPy does" {
	h5u call add f.h5:/xi 2.5 -o f.h5:/xi --casting unsafe
	np check add orig.h5:/xi 2.5 -o f.h5:/xi --into --casting unsafe :: stored f.h5:/xi int32
}

@test "in place: the target's shape must equal the result's" {
	snapshot
	run --separate-stderr h5u call add f.h5:/row f.h5:/x -o f.h5:/row
	assert_error 2 "call add: non-broadcastable output operand with shape (3,) doesn't match the broadcast shape (4,3)"
	cat >r.yaml <<-'EOF'
		inputs: {x: f.h5:/x}
		steps:
		  - {ufunc: add, in: [f.h5:/row, 1], out: x}
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error_match 2 "r\.yaml:[0-9]+:[0-9]+: step 1 \(ufunc add\): .*"
	assert_unchanged
}

@test "a new dataset in an existing file, parent groups created" {
	h5u call add f.h5:/x 1 -o f.h5:/new/deep/y
	h5u call negative f.h5:/row -o f.h5:/g/neg
	np check add orig.h5:/x 1 -o f.h5:/new/deep/y :: \
		check negative orig.h5:/row -o f.h5:/g/neg :: \
		same orig.h5:/x f.h5:/x :: \
		same orig.h5:/g/inner f.h5:/g/inner :: \
		attrs f.h5:/x units=m/s
	run np ls f.h5
	assert_output "$({ np ls orig.h5; echo '/g/neg float64 (3)'; echo '/new/deep/y float64 (4,3)'; } | LC_ALL=C sort)"
}

@test "a new file appears, and nothing else is left in the directory" {
	h5u call add f.h5:/x 1 -o o.h5:/y
	np check add f.h5:/x 1 -o o.h5:/y
	run ls -A
	assert_output $'f.h5\no.h5\norig.h5'
}

@test "a run that fails while running leaves no new file and no temporary file" {
	cat >r.yaml <<-'EOF'
		steps:
		  - {ufunc: add, in: [f.h5:/base, 1], out: n.h5:/a}
		  - {ufunc: power, in: [f.h5:/base, f.h5:/neg], out: n.h5:/b}
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error_match 1 "r\.yaml:[0-9]+:[0-9]+: step 2 \(ufunc power\): Integers to negative integer powers are not allowed\."
	assert_file_not_exists n.h5
	assert_unchanged
	run --separate-stderr h5u call power f.h5:/base f.h5:/neg -o m.h5:/p
	assert_error 1 "call power: Integers to negative integer powers are not allowed."
	assert_unchanged
}

@test "an existing dataset is not replaced without overwrite" {
	np make o.h5:/c int8 2 :: make o.h5:/keep int8 3
	cp o.h5 o-orig.h5
	snapshot
	run --separate-stderr h5u call add f.h5:/x 1 -o o.h5:/c
	assert_error 2 "call add: dataset 'o.h5:/c' exists (use overwrite: true or --overwrite to replace it)"
	cat >r.yaml <<-'EOF'
		steps:
		  - ufunc: add
		    in: [f.h5:/x, 1]
		    out: o.h5:/c
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:4:10: step 1 (ufunc add): dataset 'o.h5:/c' exists (use overwrite: true or --overwrite to replace it)"
	assert_unchanged
}

@test "--overwrite and overwrite: true replace an existing dataset" {
	np make o.h5:/c int8 2 :: make o.h5:/keep int8 3 :: make p.h5:/c uint8 7
	cp o.h5 o-orig.h5
	h5u call add f.h5:/x 1 -o o.h5:/c --overwrite
	np check add f.h5:/x 1 -o o.h5:/c :: same o-orig.h5:/keep o.h5:/keep
	cat >r.yaml <<-'EOF'
		steps:
		  - {ufunc: multiply, in: [f.h5:/xi, 2], out: p.h5:/c, overwrite: true}
	EOF
	h5u run r.yaml
	np check multiply f.h5:/xi 2 -o p.h5:/c
	cat >r2.yaml <<-'EOF'
		steps:
		  - {ufunc: subtract, in: [f.h5:/xi, 2], out: p.h5:/c}
	EOF
	h5u run --overwrite r2.yaml
	np check subtract f.h5:/xi 2 -o p.h5:/c
}

@test "a later step replaces with overwrite a dataset an earlier step made; the steps between read the old one, on 1-4 ranks" {
	np make o.h5:/g/y int16 5 :: make o.h5:/keep int8 3
	cp o.h5 o-orig.h5
	# /g/y: replaced by step 1 (it existed), by step 3 (another shape), by
	# step 5 (another dtype); steps 2 and 4 read the values before them
	cat >r.yaml <<-'EOF'
		steps:
		  - {ufunc: add, in: [f.h5:/x, 1], out: o.h5:/g/y}
		  - {reduce: add, in: o.h5:/g/y, axis: 0, out: o.h5:/s}
		  - {reduce: add, in: o.h5:/g/y, axis: 1, out: o.h5:/g/y}
		  - {ufunc: multiply, in: [o.h5:/g/y, 2], out: o.h5:/z}
		  - {ufunc: negative, in: [f.h5:/xi], out: o.h5:/g/y}
	EOF
	local n
	for n in 0 1 2 3 4; do
		cp o-orig.h5 o.h5
		if ((n == 0)); then
			h5u run --overwrite r.yaml
		else
			mpi "$n" h5ufunc run --overwrite r.yaml
		fi
		/usr/bin/python3 - <<-'PY'
			import h5py, numpy as np
			with h5py.File('f.h5') as f:
			    x, xi = f['x'][()], f['xi'][()]
			y1 = np.add(x, 1)
			y3 = np.add.reduce(y1, axis=1)
			want = {'g/y': np.negative(xi), 's': np.add.reduce(y1, axis=0),
			        'z': np.multiply(y3, 2), 'keep': h5py.File('o-orig.h5')['keep'][()]}
			with h5py.File('o.h5') as f:
			    got = []
			    f.visititems(lambda k, v: got.append(k) if isinstance(v, h5py.Dataset) else None)
			    assert sorted(got) == sorted(want), got
			    for k, w in want.items():
			        assert f[k].dtype == w.dtype and f[k].shape == w.shape, (k, f[k].dtype, f[k].shape)
			        assert np.array_equal(f[k][()], w), (k, f[k][()], w)
		PY
	done
}

@test "without overwrite, a step whose result does not fit a dataset an earlier step made is refused before any write" {
	cat >r.yaml <<-'EOF'
		steps:
		  - {ufunc: add, in: [f.h5:/x, 1], out: o.h5:/y}
		  - {reduce: add, in: o.h5:/y, axis: 1, out: o.h5:/y}
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:3:46: step 2 (reduce add): dataset 'o.h5:/y' is made by step 1 as float64 (4,3) (use overwrite: true or --overwrite to replace it)"
	assert_unchanged
	# a result that fits is written into it, as NumPy's out= would
	sed -i 's/axis: 1, //; s/reduce: add/ufunc: negative/' r.yaml
	h5u run r.yaml
	np let y add f.h5:/x 1 :: check negative y -o o.h5:/y
}

@test "a replaced dataset's space stays in the file until h5repack, as h5ufunc-recipe(5) says" {
	np make big.h5:/x float64 20000 :: make big.h5:/keep int8 3
	h5u call negative big.h5:/x -o big.h5:/y
	local before after
	before=$(stat -c %s big.h5)
	h5u call negative big.h5:/x -o big.h5:/y --overwrite
	h5u call negative big.h5:/x -o big.h5:/y --overwrite
	after=$(stat -c %s big.h5)
	((after >= before + 2 * 20000 * 8)) || fail "the file grew from $before to $after bytes only"
	h5repack big.h5 packed.h5
	(($(stat -c %s packed.h5) < before + 20000 * 8 / 2)) || fail "h5repack left $(stat -c %s packed.h5) bytes"
	np check negative big.h5:/x -o packed.h5:/y :: same big.h5:/keep packed.h5:/keep
	grep -q 'h5repack' "$H5U_TESTS/../man/h5ufunc-recipe.5" || fail "the man page does not name h5repack"
}

@test "an overwrite that fails while running leaves the old dataset whole, and nothing else, on 1 and 3 ranks" {
	np make o.h5:/g/c int16 4 data=[7,8,9,10] :: make o.h5:/keep int8 3
	cp o.h5 o-orig.h5
	# step 1 writes a new dataset, step 2 replaces /g/c and fails on its data
	cat >r.yaml <<-'EOF'
		steps:
		  - ufunc: add
		    in: [f.h5:/base, 100]
		    out: o.h5:/d
		  - ufunc: power
		    in: [f.h5:/base, f.h5:/neg]
		    out: o.h5:/g/c
		    overwrite: true
	EOF
	run --separate-stderr h5u check r.yaml
	assert_output --partial "out o.h5:/g/c int16 (4,), replaced"
	local n
	for n in 0 3; do
		if ((n == 0)); then
			run --separate-stderr h5u run r.yaml
		else
			run --separate-stderr mpi "$n" h5ufunc run r.yaml
		fi
		assert_error_once 1 "r.yaml:5:5: step 2 (ufunc power): Integers to negative integer powers are not allowed."
		np same o-orig.h5:/g/c o.h5:/g/c :: same o-orig.h5:/keep o.h5:/keep
		assert_equal "$(np ls o.h5)" "$(np ls o-orig.h5)"
	done
	# and when it succeeds, /g/c is replaced, the rest kept
	sed -i 's#f.h5:/neg#f.h5:/base#' r.yaml
	mpi 2 h5ufunc run r.yaml
	np check power f.h5:/base f.h5:/base -o o.h5:/g/c :: check add f.h5:/base 100 -o o.h5:/d :: \
		same o-orig.h5:/keep o.h5:/keep
}

@test "history: a new file gets one line, timestamp then the command line" {
	local t0
	t0=$(now)
	h5u call add f.h5:/x 1 -o o.h5:/y
	np history o.h5 --first "h5ufunc call add f.h5:/x 1 -o o.h5:/y" --since "$t0" --rest-none
}

@test "history: the new line is prepended to the existing history" {
	np attr f.h5 "history=Mon Jan 05 10:00:00 2026: ncks -A a.nc b.nc"$'\n'"Sun Jan 04 09:00:00 2026: ncap2 -s x=1 b.nc"
	local t0 old
	old=$(np history f.h5 --print)
	t0=$(now)
	cat >r.yaml <<-'EOF'
		steps:
		  - {ufunc: add, in: [f.h5:/x, 1], out: f.h5:/z}
	EOF
	h5u run r.yaml
	np history f.h5 --first "h5ufunc run r.yaml" --since "$t0" --rest "$old"
	old=$(np history f.h5 --print)
	h5u run --overwrite r.yaml
	np history f.h5 --first "h5ufunc run --overwrite r.yaml" --since "$t0" --rest "$old"
}

@test "history: an existing fixed-length history (as NCO writes it) is prepended to" {
	np attr f.h5 --fixed "history=Mon Jan 05 10:00:00 2026: ncks -A a.nc b.nc"
	local t0
	t0=$(now)
	h5u call add f.h5:/x 1 -o f.h5:/z
	np history f.h5 --first "h5ufunc call add f.h5:/x 1 -o f.h5:/z" --since "$t0" \
		--rest "Mon Jan 05 10:00:00 2026: ncks -A a.nc b.nc"
}

@test "history: in-place targets and every file a recipe writes get the line" {
	local t0
	t0=$(now)
	cat >r.yaml <<-'EOF'
		inputs: {x: f.h5:/x}
		steps:
		  - {ufunc: add, in: [x, 1], out: x}
		  - {ufunc: add, in: [x, 1], out: o.h5:/a}
		  - {ufunc: add, in: [x, 1], out: p.h5:/a}
	EOF
	h5u run r.yaml
	np history f.h5 --first "h5ufunc run r.yaml" --since "$t0" --rest-none :: \
		history o.h5 --first "h5ufunc run r.yaml" --since "$t0" --rest-none :: \
		history p.h5 --first "h5ufunc run r.yaml" --since "$t0" --rest-none
	h5u run --overwrite - <r.yaml
	np history o.h5 --first "h5ufunc run --overwrite -" --since "$t0"
}

@test "history: files only read are not touched" {
	cat >r.yaml <<-'EOF'
		steps:
		  - {ufunc: add, in: [f.h5:/x, f.h5:/row], out: o.h5:/a}
	EOF
	h5u run r.yaml
	cmp f.h5 orig.h5
	h5u call add f.h5:/x 1 -o p.h5:/a
	cmp f.h5 orig.h5
}

@test "--no-history writes no line and leaves an existing history alone" {
	np attr f.h5 "history=Mon Jan 05 10:00:00 2026: ncks -A a.nc b.nc"
	h5u call add f.h5:/x 1 -o o.h5:/y --no-history
	np history o.h5 --none
	h5u call add f.h5:/x 1 -o f.h5:/y --no-history
	np history f.h5 --exact "Mon Jan 05 10:00:00 2026: ncks -A a.nc b.nc" :: \
		check add orig.h5:/x 1 -o f.h5:/y
	cat >r.yaml <<-'EOF'
		steps:
		  - {ufunc: add, in: [f.h5:/x, 2], out: q.h5:/y}
	EOF
	h5u run --no-history r.yaml
	np history q.h5 --none
}
