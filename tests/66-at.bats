#!/usr/bin/env bats
# 66-at.bats - `h5ufunc at` and `at:` steps against NumPy's np.UFUNC.at(a,
# indices, b): unbuffered, in place.
#
# Random targets, ufuncs (binary and unary), dtypes (the loop's and the
# target's differing: casts back each time), index arrays (datasets of
# several dtypes and literal lists; repeated and negative indices;
# broadcast) and values (datasets, numbers as NEP 50 weak scalars) in one
# recipe, on one process and on 1, 2, 3 and 4 ranks at a small --memory;
# index and value datasets many times the budget and a target larger than
# it (rounds, passes); one-liners and --json; NumPy's errors with exit 2
# and every file as it was; an index out of range that an earlier step of
# the run writes; CF-coded targets decoded (as netCDF4-python), raw
# (missing: raw, as NumPy on h5py's data) or with NaNs kept (mask-nan, as
# numpy.ma).  Every target is compared with NumPy's bit for bit,
# floats included (the order of the updates shows in their last bits),
# its attributes and every other dataset unchanged (tests/methods_ref.py).

load helper

REF=methods_ref.py

setup_file() {
	(cd "$BATS_FILE_TMPDIR" && ref at-cases f.h5 cases.jsonl >r.yaml) || return 1
	fixtures <<-'EOF'
		make g.h5:/grid float64 4,5 fill=zeros attr:units=m
		make g.h5:/iy int32 - data=[0,1,1,3,-1,0,-4]
		make g.h5:/ix int64 - data=[0,2,2,4,-2,0,1]
		make g.h5:/w float64 7
		make g.h5:/i8 int8 5 fill=zeros
		make g.h5:/bad int16 - data=[0,1,2,7,3,9]
		make g.h5:/fi float64 - data=[0.0,1.0]
		make g.h5:/bi bool - data=[True,False]
		make g.h5:/other float32 3,3
		make big.h5:/t float32 300,200 fill=zeros
		make big.h5:/iy int32 120000 lo=-300 hi=300
		make big.h5:/ix int16 120000 lo=-200 hi=200
		make big.h5:/v float32 120000
	EOF
	/usr/bin/python3 - "$BATS_FILE_TMPDIR/big.h5" <<-'EOF'
		import sys, h5py, numpy as np
		with h5py.File(sys.argv[1], 'a') as f:   # integers: fill=random makes floats of them
		    rng = np.random.default_rng(1)
		    f['iy'][()] = rng.integers(-300, 300, 120000)
		    f['ix'][()] = rng.integers(-200, 200, 120000)
		    f['hot'] = np.zeros(120000, np.int64)   # every update onto one element
	EOF
	# CF-coded: p packed with a fill, q with missing_value and valid_range,
	# b packed, f with NaNs and no attributes
	(cd "$BATS_FILE_TMPDIR" && /usr/bin/python3 -) <<-'EOF'
		import netCDF4, numpy as np
		d = netCDF4.Dataset("cf.nc", "w")
		d.createDimension("t", 40); d.createDimension("x", 3); d.createDimension("u", 7)
		p = d.createVariable("p", "i2", ("t", "x"), fill_value=-999)
		p.scale_factor, p.add_offset = np.float32(0.1), np.float32(5.0)
		b = d.createVariable("b", "i2", ("u",))
		b.scale_factor = np.float32(2.0)
		for v in (p, b):
		    v.set_auto_maskandscale(False)
		raw = (np.arange(120) % 97).astype("i2").reshape(40, 3)
		raw[1, 0] = raw[7, 2] = -999
		p[:] = raw
		b[:] = np.array([3, -4, 5, 9, -2, 1, 6], "i2")
		q = d.createVariable("q", "f8", ("t", "x"))
		q.missing_value = -1.0; q.valid_range = np.array([0.0, 100.0])
		v = np.arange(120.0).reshape(40, 3) % 90; v[0, 2] = -1; v[5, 1] = 200
		q[:] = v
		f = d.createVariable("f", "f8", ("t", "x"))
		v = np.arange(120.0).reshape(40, 3) % 90; v[0, 2] = v[5, 1] = v[9, 0] = np.nan
		f[:] = v
		d.close()
	EOF
}

@test "random targets, indices and values: NumPy's bits on one process and on 1-4 ranks at --memory 16K" {
	cp "$BATS_FILE_TMPDIR"/{f.h5,r.yaml,cases.jsonl} .
	cp f.h5 before.h5
	on_ranks 16K r.yaml f.h5 before.h5 -- at-check cases.jsonl before.h5 f.h5
}

@test "index and value datasets many times the budget, a target larger than it: passes and rounds, NumPy's bits on 1 and 3 ranks" {
	fixture big.h5
	cp big.h5 before.h5
	run --separate-stderr h5u check --memory 64K <(printf 'steps:\n  - at: add\n    in: [big.h5:/t, big.h5:/v]\n    indices: [big.h5:/iy, big.h5:/ix]\n')
	assert_success
	assert_output --regexp "120000 updates \(index space \(120000,\)\) in rounds of [0-9]+ per rank; the target in [2-9] passes"
	run --separate-stderr h5u at add big.h5:/t --indices big.h5:/iy,big.h5:/ix big.h5:/v --memory 64K
	assert_success
	run ref at-one before.h5:/t big.h5:/t add before.h5:/v -- before.h5:/iy before.h5:/ix
	assert_success
	cp before.h5 big.h5
	run --separate-stderr mpi 3 h5ufunc at add big.h5:/t --indices big.h5:/iy,big.h5:/ix big.h5:/v --memory 64K
	assert_success
	run ref at-one before.h5:/t big.h5:/t add before.h5:/v -- before.h5:/iy before.h5:/ix
	assert_success
	# 120000 float32 values of mixed magnitude onto one element: their order shows
	cp before.h5 big.h5
	run --separate-stderr mpi 4 h5ufunc at add big.h5:/t --indices big.h5:/hot,big.h5:/hot big.h5:/v --memory 64K
	assert_success
	run ref at-one before.h5:/t big.h5:/t add before.h5:/v -- before.h5:/hot before.h5:/hot
	assert_success
}

@test "a round holds what its updates cost: rounds sized by the buffers allocated, on 1 and 3 ranks" {
	fixture big.h5
	# An update of big.h5 costs 58 bytes: its two indices as int64 (16), as
	# read from int32 and int16 (6) and unpacked (16), b as read and in the
	# loop's float32 (8), its target element (8) and rank (4); on 3 ranks
	# also an entry sent (16) and one received from each rank (48), and
	# each rank's range and counts (120 bytes in all); one rank has only
	# its range (16).  --memory 64K: the target's boxes of 40 rows (32000
	# bytes) leave 33536, rounds of (33536 - 16) / 58 = 577 and
	# (33536 - 120) / 122 = 273 updates.
	local recipe='steps:\n  - at: add\n    in: [big.h5:/t, big.h5:/v]\n    indices: [big.h5:/iy, big.h5:/ix]\n'
	run --separate-stderr h5u check --memory 64K <(printf "$recipe")
	assert_success
	assert_line "step 1: at add, loop ff->f, casting unsafe, 120000 updates (index space (120000,)) in rounds of 577 per rank; the target in 8 passes of 8 boxes, 1 of 1 ranks holding one"
	printf "$recipe" >r.yaml
	run --separate-stderr mpi 3 h5ufunc check --memory 64K r.yaml
	assert_success
	assert_line "step 1: at add, loop ff->f, casting unsafe, 120000 updates (index space (120000,)) in rounds of 273 per rank; the target in 3 passes of 9 boxes, 3 of 3 ranks holding one"
}

@test "one-liners: index datasets, literal lists (blanks around their commas), unary ufuncs, numbers; --json counts" {
	fixture g.h5
	cp g.h5 before.h5
	run --separate-stderr h5u at add g.h5:/grid --indices g.h5:/iy,g.h5:/ix g.h5:/w --json
	assert_success
	assert_output --partial '"verb": "at", "ufunc": "add", "loop": "dd->d"'
	# the indices (28 + 56 bytes), the values (56) and the target (160) read; the target written
	assert_output --partial '"bytes_read": 300, "bytes_written": 160'
	assert_output --partial '"kind": "in place", "shape": [4, 5], "units": "m"'
	run ref at-one before.h5:/grid g.h5:/grid add before.h5:/w -- before.h5:/iy before.h5:/ix
	assert_success
	cp g.h5 step1.h5
	run --separate-stderr h5u at multiply g.h5:/grid --indices ' [0, 0, 3] , [1, 1, -1]' 2.5   # blanks as Python allows them
	assert_success
	run --separate-stderr h5u at negative g.h5:/i8 --indices '0, 0, 1, 4, -1'
	assert_success
	run --separate-stderr mpi 2 h5ufunc at add g.h5:/i8 --indices 2,2,2 -3
	assert_success
	run ref at-one step1.h5:/grid g.h5:/grid multiply 2.5 -- 0,0,3 1,1,-1 :: \
		at-one before.h5:/i8 step1.h5:/i8 add 0 -- 0
	assert_success
	/usr/bin/python3 - <<-'EOF'
		import h5py, numpy as np
		a = h5py.File("before.h5")["i8"][()]
		np.negative.at(a, [0, 0, 1, 4, -1])
		np.add.at(a, [2, 2, 2], np.int8(-3))
		assert h5py.File("g.h5")["i8"][()].tobytes() == a.tobytes()
	EOF
	run np attrs g.h5:/grid units=m :: same g.h5:/other before.h5:/other
	assert_success
}

@test "an empty index list, --indices '' as '[]': no update, NumPy's shape checks still made; on one process and on 1-4 ranks" {
	# np.add.at(a, [], b) updates nothing but still broadcasts b against
	# the (empty) indexed elements; the integers of --indices 0,3,3 are
	# [0,3,3], so none at all are []
	fixture g.h5
	cp g.h5 before.h5
	local n ix
	for ix in '' ' ' '[]'; do
		run --separate-stderr h5u at add g.h5:/grid --indices "$ix" 1
		assert_success
		run --separate-stderr h5u at negative g.h5:/i8 --indices "$ix"
		assert_success
		run --separate-stderr h5u at multiply g.h5:/grid --indices "$ix" --indices "$ix" 2.5
		assert_success
	done
	for n in 1 2 3 4; do
		run --separate-stderr mpi "$n" h5ufunc at add g.h5:/grid --indices '' g.h5:/w --memory 4K
		assert_error_once 2 "at add: array is not broadcastable to correct shape"
		run --separate-stderr mpi "$n" h5ufunc at subtract g.h5:/grid --indices '' 3 --memory 4K
		assert_success
	done
	run ref at-one before.h5:/grid g.h5:/grid add 1 -- '' :: \
		at-one before.h5:/grid g.h5:/grid multiply 2.5 -- '' '' :: \
		at-one before.h5:/i8 g.h5:/i8 negative -- '' :: \
		raises at add g.h5:/grid g.h5:/w -- '' -- "array is not broadcastable to correct shape"
	assert_success
	run np same g.h5:/grid before.h5:/grid :: same g.h5:/i8 before.h5:/i8
	assert_success
	# reduceat's --indices is read the same way: np.add.reduceat(w, [])
	run --separate-stderr h5u reduceat add g.h5:/w --indices '' -o r.h5:/r
	assert_success
	run /usr/bin/python3 -c '
import h5py, numpy as np
want = np.add.reduceat(h5py.File("g.h5")["w"][()], np.zeros(0, np.intp))
got = h5py.File("r.h5")["r"]
assert got.dtype == want.dtype and got.shape == want.shape, (got, want)'
	assert_success
}

@test "NumPy's errors: exit 2, one message (also on 3 ranks), every file as it was" {
	fixture g.h5
	snapshot
	run ref raises at add g.h5:/grid 1 -- g.h5:/bad 0 -- "index 7 is out of bounds for axis 0 with size 4" :: \
		raises at add g.h5:/grid 1 -- 0,-5 0 -- "index -5 is out of bounds for axis 0 with size 4" :: \
		raises at add g.h5:/grid 1 -- 0 0 0 -- "too many indices for array: array is 2-dimensional, but 3 were indexed" :: \
		raises at add g.h5:/grid 1 -- 0,1 0,1,2 -- "shape mismatch: indexing arrays could not be broadcast together with shapes (2,) (3,)" :: \
		raises at add g.h5:/grid g.h5:/w -- 0,1 0,1 -- "array is not broadcastable to correct shape" :: \
		raises at add g.h5:/grid 1 -- g.h5:/fi 0 -- "arrays used as indices must be of integer (or boolean) type" :: \
		raises at add g.h5:/grid 1 -- 0 2.5 -- "only integers, slices (\`:\`), ellipsis (\`...\`), numpy.newaxis (\`None\`) and integer or boolean arrays are valid indices" :: \
		raises at add g.h5:/grid -- 0 0 -- "second operand needed for ufunc" :: \
		raises at divmod g.h5:/grid 1 -- 0 0 -- "Only single output ufuncs supported at this time" :: \
		raises at add g.h5:/i8 300 -- 0 -- "Python integer 300 out of bounds for int8"
	assert_success
	check_error() {
		local want=$1
		shift
		run --separate-stderr h5u at "$@"
		assert_error 2 "$want"
	}
	check_error "at add: index 7 is out of bounds for axis 0 with size 4" add g.h5:/grid --indices g.h5:/bad,0 1
	check_error "at add: index 7 is out of bounds for axis 1 with size 5" add g.h5:/grid --indices 0,g.h5:/bad 1
	check_error "at add: index -5 is out of bounds for axis 0 with size 4" add g.h5:/grid --indices '[0,-5],[0,0]' 1
	check_error "at add: too many indices for array: array is 2-dimensional, but 3 were indexed" add g.h5:/grid --indices '[0],[0],[0]' 1
	check_error "at add: shape mismatch: indexing arrays could not be broadcast together with shapes (2,) (3,)" add g.h5:/grid --indices '[0,1],[0,1,2]' 1
	check_error "at add: array is not broadcastable to correct shape" add g.h5:/grid --indices '[0,1],[0,1]' g.h5:/w
	check_error "at add: arrays used as indices must be of integer (or boolean) type" add g.h5:/grid --indices g.h5:/fi,0 1
	check_error "at add: only integers, slices (\`:\`), ellipsis (\`...\`), numpy.newaxis (\`None\`) and integer or boolean arrays are valid indices" add g.h5:/grid --indices 0,2.5 1
	check_error "at add: only integers, slices (\`:\`), ellipsis (\`...\`), numpy.newaxis (\`None\`) and integer or boolean arrays are valid indices" add g.h5:/i8 --indices 0,nan 1
	check_error "at add: 'g.h5:/bi' is bool: at takes integer index arrays (NumPy would read a bool one as a mask)" add g.h5:/grid --indices g.h5:/bi,0 1
	check_error "at add: second operand needed for ufunc" add g.h5:/grid --indices 0,0
	check_error "at negative: second operand provided when ufunc is unary" negative g.h5:/i8 --indices 0 1
	check_error "at divmod: Only single output ufuncs supported at this time" divmod g.h5:/grid --indices '[0],[0]' 1
	check_error "at add: Python integer 300 out of bounds for int8" add g.h5:/i8 --indices 0 300
	check_error "at add: at writes in place into a dataset, not the number '2'" add 2 --indices 0 1
	check_error "at add: --indices is needed (one index array per axis, or per leading axis)" add g.h5:/i8 1
	check_error "at: unknown option '-o' (see h5ufunc help at)" add g.h5:/i8 --indices 0 1 -o x.h5:/y
	run --separate-stderr mpi 3 h5ufunc at add g.h5:/grid --indices g.h5:/bad,0 1 --memory 4K
	assert_error_once 2 "at add: index 7 is out of bounds for axis 0 with size 4"
	assert_unchanged
	printf 'steps:\n  - at: add\n    in: [g.h5:/grid, 1]\n    indices: [g.h5:/iy, [0, 1, 2, 3, 4, 5, 0]]\n' >r.yaml
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:4:25: step 1 (at add): index 5 is out of bounds for axis 1 with size 5"
	assert_unchanged
}

@test "fewer index arrays than axes: the rows they name updated whole, b broadcast over them; NumPy's bits on one process and on 1-4 ranks" {
	/usr/bin/python3 - <<-'EOF'
		import h5py, numpy as np
		rng = np.random.default_rng(7)
		with h5py.File("t.h5", "w") as f:
		    f.create_dataset("a", data=rng.normal(size=(7, 5, 6)).astype(np.float32), chunks=(2, 3, 4))
		    f["b"] = f["a"][()]
		    f["c"] = (rng.normal(size=(50, 3)) + 1j * rng.normal(size=(50, 3))).astype(np.complex64)
		    f["u"] = rng.integers(0, 256, (30, 4)).astype(np.uint8)
		    f["i"] = rng.integers(-7, 7, (40, 3))             # repeated and negative rows
		    f["j"] = rng.integers(-5, 5, (1, 3)).astype(np.int16)
		    f["k"] = np.int64(-2)                             # 0-d: one row
		    f["v"] = rng.normal(size=(3, 5, 6))               # float64 into float32, cast back
		    f["cy"] = rng.integers(0, 50, 500).astype(np.uint32)
		    f["cv"] = (rng.normal(size=(500, 3)) + 1j * rng.normal(size=(500, 3))).astype(np.complex128)
	EOF
	printf 'steps:\n  - at: maximum\n    in: [t.h5:/u, 200]\n    indices: [[3, -1, 3]]\n' >r.yaml
	local n
	for n in 0 1 2 3 4; do   # 0: one process, without MPI
		cp t.h5 "t$n.h5"
		sed "s/t\.h5:\/u/t$n.h5:\/u/" r.yaml >"r$n.yaml"
		local cmds=(
			"at subtract t$n.h5:/a --indices t.h5:/i t.h5:/v"
			"at add t$n.h5:/b --indices t.h5:/i,t.h5:/j 2"
			"at multiply t$n.h5:/b --indices t.h5:/k,t.h5:/k 0.5"
			"at multiply t$n.h5:/c --indices t.h5:/cy t.h5:/cv"
			"at subtract t$n.h5:/u --indices [0,29,-1,0] 7"
			"run r$n.yaml"
		)
		local c
		for c in "${cmds[@]}"; do
			if ((n == 0)); then
				run --separate-stderr h5u $c
			else
				run --separate-stderr mpi "$n" h5ufunc $c --memory 16K
			fi
			assert_success
		done
	done
	/usr/bin/python3 - <<-'EOF'
		import h5py, numpy as np
		f = h5py.File("t.h5", "r")
		a, b, c, u = (f[k][()] for k in "abcu")
		i = f["i"][()]
		np.subtract.at(a, i, f["v"][()])
		np.add.at(b, (i, f["j"][()]), 2)
		np.multiply.at(b, (f["k"][()], f["k"][()]), 0.5)
		np.multiply.at(c, f["cy"][()], f["cv"][()])
		np.subtract.at(u, [0, 29, -1, 0], np.uint8(7))
		np.maximum.at(u, [3, -1, 3], np.uint8(200))
		for n in range(5):
		    g = h5py.File(f"t{n}.h5", "r")
		    for k, want in zip("abcu", (a, b, c, u)):
		        got = g[k][()]
		        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (n, k)
	EOF
}

@test "NumPy's error from the data (an integer to a negative power): exit 1, one message, the target as it was, on 1 and 3 ranks" {
	/usr/bin/python3 - <<-'EOF'
		import h5py, numpy as np
		a = np.arange(1, 3001, dtype=np.int32).reshape(1000, 3)
		i, b = np.array([5, 900, 999, 0]), np.array([2, 3, -1, 2])
		with h5py.File("p.h5", "w") as f:
		    f.create_dataset("a", data=a, chunks=(10, 3))
		    f["i"], f["j"], f["b"] = i, np.array([0, 1, 2, 0]), b
		try:
		    np.power.at(a, (i, np.array([0, 1, 2, 0])), b)
		except ValueError as e:
		    assert str(e) == "Integers to negative integer powers are not allowed.", e
		else:
		    raise AssertionError("NumPy took a negative integer power")
	EOF
	cp p.h5 before.h5
	run --separate-stderr h5u at power p.h5:/a --indices p.h5:/i,p.h5:/j p.h5:/b
	assert_error_once 1 "at power: Integers to negative integer powers are not allowed; 'p.h5:/a' is as it was before the run"
	run np same before.h5:/a p.h5:/a
	assert_success
	# in passes of a few rows: the pass that meets the error writes nothing
	run --separate-stderr mpi 3 h5ufunc at power p.h5:/a --indices p.h5:/i,p.h5:/j p.h5:/b --memory 4K
	assert_error_once 1 "at power: Integers to negative integer powers are not allowed; 'p.h5:/a' is as it was before the run"
	run np same before.h5:/a p.h5:/a
	assert_success
}

# indices_made UFUNC=U B=B OUT=O VALUE=V: a recipe whose first step writes
# O, U(g.h5:/iy, B), and whose second adds V into g.h5:/grid at (O, g.h5:/ix).
indices_made() {
	local "$@"
	printf 'inputs:\n  iy: g.h5:/iy\nsteps:\n  - ufunc: %s\n    in: [iy, %s]\n    out: %s\n' "$UFUNC" "$B" "$OUT"
	printf '  - at: add\n    in: [g.h5:/grid, %s]\n    indices: [%s, g.h5:/ix]\n' "$VALUE" "$OUT"
}

@test "indices an earlier step writes: out of range, exit 1 and the target as it was; a named intermediate, NumPy's bits" {
	fixture g.h5
	cp g.h5 before.h5
	indices_made UFUNC=add B=2 OUT=iy VALUE=1 >r.yaml
	run --separate-stderr h5u run r.yaml
	assert_failure 1
	[[ ${stderr_lines[0]} == "h5ufunc: r.yaml:7:5: step 2 (at add): index 5 is out of bounds for axis 0 with size 4;"* ]] ||
		fail "stderr: $stderr"
	# the target is left as it was (the first step's in-place write is the
	# business of the run's journal, which makes the whole run all or nothing)
	run np same before.h5:/grid g.h5:/grid
	assert_success
	run --separate-stderr mpi 2 h5ufunc run r.yaml
	assert_failure 1
	run np same before.h5:/grid g.h5:/grid
	assert_success
	# an index array that an earlier step makes, as a named intermediate
	cp before.h5 g.h5
	indices_made UFUNC=subtract B=0 OUT=j VALUE=g.h5:/w >r2.yaml
	run --separate-stderr h5u run r2.yaml
	assert_success
	run ref at-one before.h5:/grid g.h5:/grid add before.h5:/w -- before.h5:/iy before.h5:/ix
	assert_success
}

@test "CF-coded targets: unpacked, updated and packed again; missing elements stay missing; as netCDF4-python on 1 and 3 ranks" {
	fixture cf.nc
	local n
	for n in 1 3; do
		cp cf.nc "r$n.nc"
		run --separate-stderr mpi "$n" h5ufunc at add "r$n.nc:/p" --indices '[0,0,1,7,39,-1],[0,0,0,2,1,1]' 1 --memory 16K
		assert_success
		run --separate-stderr mpi "$n" h5ufunc at fmax "r$n.nc:/q" --indices '[0,0,5,5,9],[2,2,1,0,0]' 50 --memory 16K
		assert_success
	done
	/usr/bin/python3 - <<-'EOF2'
		import shutil, netCDF4, h5py, numpy as np
		shutil.copy("cf.nc", "want.nc")
		d = netCDF4.Dataset("want.nc", "a")
		p, q = d["p"][:], d["q"][:]
		np.add.at(p, ([0, 0, 1, 7, 39, -1], [0, 0, 0, 2, 1, 1]), np.float32(1))
		np.fmax.at(q, ([0, 0, 5, 5, 9], [2, 2, 1, 0, 0]), 50.0)
		d["p"][:], d["q"][:] = p, q
		d.close()
		# p packed as netCDF4-python packs it, bit for bit; q as it reads
		# back, its missing elements kept as they were stored
		w, before = h5py.File("want.nc"), h5py.File("cf.nc")
		for n in "13":
		    g = h5py.File(f"r{n}.nc")
		    assert g["p"].dtype == w["p"].dtype and np.array_equal(g["p"][()], w["p"][()]), (n, g["p"][()])
		    got, want = netCDF4.Dataset(f"r{n}.nc")["q"][:], netCDF4.Dataset("want.nc")["q"][:]
		    assert np.array_equal(got.mask, want.mask) and np.array_equal(got.filled(0), want.filled(0)), n
		    assert np.array_equal(g["q"][()][got.mask], before["q"][()][got.mask]), n
	EOF2
}

@test "missing: raw and --missing raw: the stored numbers, as NumPy's ufunc.at on h5py's data; mask-nan keeps NaNs, as numpy.ma; on 1 and 3 ranks" {
	fixture cf.nc
	local n
	for n in 1 3; do
		cp cf.nc "r$n.nc"
		run --separate-stderr mpi "$n" h5ufunc at add "r$n.nc:/p" --indices '[0,0,1,7,39,-1,2],[0,0,0,2,1,1,2]' "r$n.nc:/b" --missing raw --memory 16K
		assert_success
		cat >r.yaml <<-EOF2
			steps:
			  - at: subtract
			    in: [r$n.nc:/p, 7]
			    indices: [[1, 1, 3], -1]
			    missing: raw
			  - at: fmax
			    in: [r$n.nc:/f, 50]
			    indices: [[0, 0, 5, 5, 9, 9, 3], [2, 2, 1, 0, 0, 1, 1]]
			    missing: mask-nan
		EOF2
		run --separate-stderr mpi "$n" h5ufunc run r.yaml --memory 16K
		assert_success
	done
	/usr/bin/python3 - <<-'EOF2'
		import h5py, numpy as np
		before = h5py.File("cf.nc")
		p, b, f = before["p"][()], before["b"][()], before["f"][()]
		np.add.at(p, ([0, 0, 1, 7, 39, -1, 2], [0, 0, 0, 2, 1, 1, 2]), b)   # raw: int16, no scale, no fill
		np.subtract.at(p, ([1, 1, 3], -1), 7)
		m = np.ma.masked_invalid(f)
		np.fmax.at(m, ([0, 0, 5, 5, 9, 9, 3], [2, 2, 1, 0, 0, 1, 1]), 50.0)
		for n in "13":
		    g = h5py.File(f"r{n}.nc")
		    assert g["p"].dtype == p.dtype and g["p"][()].tobytes() == p.tobytes(), (n, g["p"][()])
		    assert dict(g["p"].attrs).keys() == dict(before["p"].attrs).keys(), n
		    got = g["f"][()]
		    assert np.array_equal(np.isnan(got), m.mask) and np.array_equal(got[~m.mask], m.data[~m.mask]), (n, got)
	EOF2
	# missing: raw under defaults:
	cp cf.nc d.nc
	printf 'defaults:\n  missing: raw\nsteps:\n  - at: add\n    in: [d.nc:/p, d.nc:/b]\n    indices: [[0, 0, 1, 7, 39, -1, 2], [0, 0, 0, 2, 1, 1, 2]]\n' >d.yaml
	run --separate-stderr h5u run d.yaml
	assert_success
	/usr/bin/python3 - <<-'EOF2'
		import h5py, numpy as np
		p, b = h5py.File("cf.nc")["p"][()], h5py.File("cf.nc")["b"][()]
		np.add.at(p, ([0, 0, 1, 7, 39, -1, 2], [0, 0, 0, 2, 1, 1, 2]), b)
		assert h5py.File("d.nc")["p"][()].tobytes() == p.tobytes()
	EOF2
}
