#!/usr/bin/env bats
# 67-gufunc.bats - the generalized ufuncs matmul, vecdot, matvec and vecmat
# (SPEC 3.1, 3.2): the catalogue's signatures; every dtype and shape class
# (1-D operands, stacks broadcast against each other, axes= and axis=, an
# empty contraction, mixed dtypes and dtype=) against NumPy, integers bit
# for bit with their wrap-around and floats within 4 * k * eps * (|A| @
# |B|); the same bytes on 1 to 4 ranks and under --memory 1M, with a
# contraction and a result each larger than that budget, ranks without
# cells, contractions shared between the ranks, and operands that the
# block products read in place in boxes of several cells; NumPy's errors with exit
# 2 and nothing written; loop axes broadcast by name; the result's axes
# with the coordinate variables of the axes they come from (sliced, with
# their bounds), as netCDF-C and xarray read them; `@` in expressions;
# operands with missing values, against np.ma.dot (numpy.ma's product).
# tests/gufunc_ref.py holds the cases and NumPy's side; cellscheck asserts
# the grid and the tree over shards that make the bits independent of the
# ranks (cells.h).

load helper

REF=gufunc_ref.py

setup_file() {
	unit_program CELLSCHECK cellscheck
	ref inputs "$BATS_FILE_TMPDIR/in.h5"
	ref recipe in.h5 '${OUT}' >"$BATS_FILE_TMPDIR/cases.yaml"
}

@test "cells: the fixed grid of cells, pieces and shards, and the tree over shards (cellscheck)" {
	run --separate-stderr "$CELLSCHECK"
	[[ $status -eq 0 ]] || fail "cellscheck: exit $status"$'\n'"$stderr"
	assert_stderr_empty
	[[ $output =~ ^([0-9]+)\ checks,\ 0\ failed$ ]] || fail "$output"
}

@test "ufuncs: each generalized ufunc's signature; reduce, accumulate, reduceat, at and outer refused as NumPy refuses them" {
	local uf sig
	while read -r uf sig; do
		run --separate-stderr h5u ufuncs "$uf"
		assert_success
		assert_line "signature: $sig"
		assert_line --regexp '^loops: \?\?->\? bb->b .* ee->e ff->f dd->d FF->F DD->D$'
	done <<-'EOF'
		matmul (n?,k),(k,m?)->(n?,m?)
		vecdot (n),(n)->()
		matvec (m,n),(n)->(m)
		vecmat (n),(n,m)->(m)
	EOF
	run --separate-stderr h5u ufuncs vecdot
	assert_line "doc: Vector dot product of two arrays."
	fixture in.h5
	printf 'steps:\n  - at: vecdot\n    in: [in.h5:/u_float64, in.h5:/u_float64]\n    indices: [0]\n' > r.yaml
	snapshot
	run --separate-stderr h5u reduce matmul in.h5:/a_float64 -o o.h5:/r
	assert_error 2 "reduce matmul: Reduction not defined on ufunc with signature"
	run --separate-stderr h5u accumulate vecdot in.h5:/u_float64 -o o.h5:/r
	assert_error 2 "accumulate vecdot: Reduction not defined on ufunc with signature"
	run --separate-stderr h5u call matmul.outer in.h5:/a_float64 in.h5:/b_float64 -o o.h5:/r
	assert_error 2 "call matmul: method outer is not allowed in ufunc with non-trivial signature"
	run --separate-stderr h5u reduceat matmul in.h5:/a_float64 --indices 0,1 -o o.h5:/r
	assert_error 2 "reduceat matmul: Reduction not defined on ufunc with signature"
	run --separate-stderr h5u at matmul in.h5:/a_float64 --indices 0 in.h5:/a_float64
	assert_error 2 "at matmul: matmul.at does not support ufunc with non-trivial signature: matmul has signature (n?,k),(k,m?)->(n?,m?)."
	run --separate-stderr h5u at matvec in.h5:/a_float64 --indices 0 in.h5:/u_float64
	assert_error 2 "at matvec: matvec.at does not support ufunc with non-trivial signature: matvec has signature (m,n),(n)->(m)."
	run --separate-stderr h5u reduceat vecmat in.h5:/u_float64 --indices 0 -o o.h5:/r
	assert_error 2 "reduceat vecmat: Reduction not defined on ufunc with signature"
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:2:9: step 1 (at vecdot): vecdot.at does not support ufunc with non-trivial signature: vecdot has signature (n),(n)->()."
	assert_unchanged
}

@test "every dtype and shape class against NumPy: dtypes, shapes, wrap-around, the error bound" {
	fixture in.h5 cases.yaml
	run --separate-stderr h5u run cases.yaml --set OUT=out.h5
	assert_success
	assert_stderr_empty
	run ref check in.h5 out.h5
	assert_success
}

@test "the same bytes on 1, 2, 3 and 4 ranks and under --memory 1M, contractions shared or dealt" {
	fixture in.h5 cases.yaml
	h5u run cases.yaml --set OUT=one.h5
	h5u run cases.yaml --set OUT=small.h5 --memory 1M
	local n
	for n in 2 3 4; do
		run --separate-stderr mpi "$n" h5ufunc run cases.yaml --set OUT="ranks$n.h5"
		assert_success
	done
	run --separate-stderr mpi 3 h5ufunc run cases.yaml --set OUT=ranks3small.h5 --memory 1M
	assert_success
	run ref same one.h5 small.h5 ranks2.h5 ranks3.h5 ranks4.h5 ranks3small.h5
	assert_success
	# The plan says how: X.T @ X shared between the ranks, the wide result
	# dealt in boxes, the tiny one leaving ranks without cells.
	run --separate-stderr mpi 3 h5ufunc check cases.yaml --set OUT=plan.h5 --memory 1M
	assert_success
	assert_output --regexp "step [0-9]+: ufunc matmul, loop dd->d, casting same_kind, cells \(24, 24\) over pieces of 128, 16 shards, OpenBLAS; .*shared: each rank sums its shards, rank 0 finishes"
	assert_output --regexp "loop qq->q, casting same_kind, cells \(2, 2\) over pieces of 2, 1 shard, own loop; boxes of \(1, 1\) cells, 1 box, 1 piece a read, 1 of 3 ranks with work"
	assert_output --regexp "loop ff->f, casting same_kind, cells \(63, 60\) over pieces of 16, 1 shard, OpenBLAS; boxes of \([0-9]+, [0-9]+\) cells, [0-9]+ boxes, 1 piece a read, 3 of 3 ranks with work"
	# the operands read in place: a row of cells a box, a piece a read
	# here; one box of every cell reading the whole contraction at once on
	# one process at the default budget
	assert_output --regexp "loop dd->d, casting same_kind, cells \(61, 51\) over pieces of 125, 2 shards, OpenBLAS; boxes of \(1, 4\) cells, [0-9]+ boxes, 1 piece a read, 3 of 3 ranks with work"
	run --separate-stderr h5u check cases.yaml --set OUT=plan.h5
	assert_success
	assert_output --regexp "loop dd->d, casting same_kind, cells \(61, 51\) over pieces of 125, 2 shards, OpenBLAS; boxes of \(5, 4\) cells, 1 box, 8 pieces a read, 1 of 1 ranks with work"
}

@test "boxes: at most 2 MiB of one partial sum where the smaller boxes read little more, else as large as the budget allows" {
	# shapes alone (check reads no data): (4096, 1024) @ (1024, 128) has 4
	# MiB of sums, 2 boxes of them read A once and B (1 MiB) twice;
	# (4096, 128) @ (128, 1024) would read its B 16 times as often as A
	/usr/bin/python3 -c "
import h5py
with h5py.File('shapes.h5', 'w') as f:
    for n, shape in [('a', (4096, 1024)), ('b', (1024, 128)), ('w', (4096, 128)), ('v', (128, 1024))]:
        f.create_dataset(n, shape, 'f8')"
	printf 'steps:\n  - ufunc: matmul\n    in: [shapes.h5:/a, shapes.h5:/b]\n    out: c.h5:/c\n  - ufunc: matmul\n    in: [shapes.h5:/w, shapes.h5:/v]\n    out: c.h5:/d\n' >r.yaml
	run --separate-stderr h5u check r.yaml
	assert_success
	assert_line --regexp "^step 1: .*, cells \(64, 64\) over pieces of 128, 2 shards, OpenBLAS; boxes of \(32, 2\) cells, 2 boxes, 8 pieces a read, 1 of 1 ranks with work$"
	assert_line --regexp "^step 2: .*, cells \(64, 64\) over pieces of 128, 1 shard, OpenBLAS; boxes of \(64, 16\) cells, 1 box, 1 piece a read, 1 of 1 ranks with work$"
	# two ranks: a box each, whose sums are 2 MiB
	run --separate-stderr mpi 2 h5ufunc check r.yaml
	assert_success
	assert_line --regexp "^step 1: .*; boxes of \(32, 2\) cells, 2 boxes, 8 pieces a read, 2 of 2 ranks with work$"
}

@test "NumPy's errors: core dimensions, 0-d operands, axes= and axis=, broadcasting; exit 2, nothing written" {
	fixture in.h5
	snapshot
	local args message
	# matmul's messages are NumPy's own (np.matmul on the same operands)
	while IFS='|' read -r args message; do
		# shellcheck disable=SC2086
		run ref raises in.h5 $args -- "$message"
		assert_success
		local ops=(${args%% axes=*})
		ops=("${ops[@]/#/in.h5:/}")
		[[ $args == *axes=* ]] && ops+=(--axes "${args##* axes=}")
		[[ ${ops[1]} == in.h5:/2 ]] && ops[1]=2
		run --separate-stderr h5u call matmul "${ops[@]}" -o o.h5:/r
		assert_error 2 "call matmul: $message"
	done <<-'EOF2'
		a_float64 a_float64|matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size 37 is different from 70)
		u_float64 2|matmul: Input operand 1 does not have enough dimensions (has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)
		s_left field|matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size 50 is different from 7)
		odd_a odd_b|operands could not be broadcast together with remapped shapes [original->remapped]: (2,2,3)->(2,newaxis,newaxis) (3,3,4)->(3,newaxis,newaxis)  and requested shape (2,4)
		s_left odd_c|operands could not be broadcast together with remapped shapes [original->remapped]: (5,1,6,7)->(5,1,newaxis,newaxis) (3,4,7,2)->(3,4,newaxis,newaxis)  and requested shape (6,2)
		a_float64 b_float64 axes=[(0,1),(0,1)]|axes should be a list with an entry for all 3 inputs and outputs; entries for outputs can only be omitted if none of them has core axes.
		a_float64 b_float64 axes=[(0,1),(0,1),(0,5)]|axis 5 is out of bounds for array of dimension 2
		a_float64 b_float64 axes=[(0,1),(0,1),(0,0)]|axes item 2 has value 0 repeated
		a_float64 b_float64 axes=[(0,),(0,1),(0,1)]|axes item 0 should be a tuple with 2 elements
		a_float64 b_float64 axes=[(0,1),(0,1),0]|axes item 2 should be a tuple
		a_float64 v_float64 axes=[(0,1),(0,),(0,1)]|axes item 2 should be a tuple with a single element, or an integer
	EOF2
	run --separate-stderr h5u call matmul in.h5:/a_float64 in.h5:/b_float64 --axis 0 -o o.h5:/r
	assert_error 2 "call matmul: matmul: axis can only be used with a single shared core dimension, not with the 3 distinct ones implied by signature (n?,k),(k,m?)->(n?,m?)."
	# NumPy 2's vecdot, matvec and vecmat say the same with their names
	run --separate-stderr h5u call vecdot in.h5:/u_float64 in.h5:/field -o o.h5:/r
	assert_error 2 "call vecdot: vecdot: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n),(n)->() (size 3 is different from 70)"
	run --separate-stderr h5u call matvec in.h5:/u_float64 in.h5:/u_float64 -o o.h5:/r
	assert_error 2 "call matvec: matvec: Input operand 0 does not have enough dimensions (has 1, gufunc core with signature (m,n),(n)->(m) requires 2)"
	run --separate-stderr h5u call vecmat in.h5:/u_float64 in.h5:/b_float64 --axis 0 -o o.h5:/r
	assert_error 2 "call vecmat: vecmat: axis can only be used with a single shared core dimension, not with the 2 distinct ones implied by signature (n),(n,m)->(m)."
	run --separate-stderr h5u call vecdot in.h5:/field in.h5:/field --axis 0 --axes '[0,0]' -o o.h5:/r
	assert_error 2 "call vecdot: cannot specify both 'axis' and 'axes'"
	run --separate-stderr h5u call vecdot in.h5:/field in.h5:/field --axes '[0,0,0]' -o o.h5:/r
	assert_error 2 "call vecdot: axes item 2 should be a tuple"
	run --separate-stderr h5u call vecdot in.h5:/field in.h5:/tll --axes '[[0],[1],[]]' -o o.h5:/r
	assert_error 2 "call vecdot: vecdot: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n),(n)->() (size 8 is different from 40)"
	# what NumPy takes as keywords of elementwise ufuncs only, or not at all
	run --separate-stderr h5u call add in.h5:/a_float64 1 --axis 0 -o o.h5:/r
	assert_error 2 "call add: add() got an unexpected keyword argument 'axis'"
	run --separate-stderr h5u call matmul in.h5:/a_float64 in.h5:/b_float64 --where true -o o.h5:/r
	assert_error 2 "call matmul: matmul() got an unexpected keyword argument 'where'"
	run --separate-stderr h5u call matmul in.h5:/a_float64 in.h5:/b_float64 --dtype int8 -o o.h5:/r
	assert_error 2 "call matmul: Cannot cast ufunc 'matmul' input 0 from float64 to int8 with casting rule 'same_kind'"
	run --separate-stderr h5u call matmul in.h5:/a_float64 in.h5:/b_float64 --axes '[[0,1],[0,1' -o o.h5:/r
	assert_error 2 "call matmul: --axes: '[[0,1],[0,1' is not a list of axes lists, such as '[[1,0],[0,1],[0,1]]'"
	assert_unchanged
	# in a recipe the message points at axes:, once on 3 ranks
	cat >r.yaml <<-'EOF2'
		inputs: {a: in.h5:/a_float64, b: in.h5:/b_float64}
		steps:
		  - ufunc: matmul
		    in: [a, b]
		    axes: [[0, 1], [0, 1], [1, 1]]
		    out: o.h5:/r
	EOF2
	snapshot
	run --separate-stderr mpi 3 h5ufunc run r.yaml
	assert_error_once 2 "r.yaml:5:11: step 1 (ufunc matmul): axes item 2 has value 1 repeated"
	assert_unchanged
}

@test "one-liners: --axes and --axis, results printed, --memory too small for one cell" {
	fixture in.h5
	run --separate-stderr h5u call matmul in.h5:/a2 in.h5:/a2
	assert_success
	want=$(/usr/bin/python3 -c "import h5py; a = h5py.File('in.h5')['a2'][()]; r = a @ a; print('\n'.join(' '.join(map(str, row)) for row in r))")
	assert_output "$want"
	run --separate-stderr h5u call vecdot in.h5:/rot in.h5:/rot --axis 0
	assert_success
	want=$(/usr/bin/python3 -c "import h5py, numpy as np; a = h5py.File('in.h5')['rot'][()]; print('\n'.join(repr(float(x)) for x in (a * a).sum(0)))")
	run /usr/bin/python3 -c "import sys; g, w = (list(map(float, s.split())) for s in sys.argv[1:]); assert all(abs(x - y) <= 1e-14 * (1 + abs(y)) for x, y in zip(g, w)) and len(g) == len(w) == 3, (g, w)" "$output" "$want"
	assert_success
	h5u call matmul in.h5:/tall in.h5:/tall --axes '[[1,0],[0,1],[0,1]]' -o g.h5:/gram
	run /usr/bin/python3 -c "import h5py, numpy as np; x = h5py.File('in.h5')['tall'][()]; g = h5py.File('g.h5')['gram'][()]; assert np.allclose(g, x.T @ x, rtol=1e-12, atol=1e-9)"
	assert_success
	run --separate-stderr h5u call matmul in.h5:/a_float64 in.h5:/b_float64 -o o.h5:/r --memory 64K
	assert_error_match 2 "call matmul: --memory 65536 bytes is too small for one block \(a cell of matmul's results needs [0-9]+ bytes\)"
}

@test "--memory at the edge: the budget the message names runs (NumPy's values, the same bytes on 1 and 3 ranks), a byte less is refused, nothing written" {
	# the need of a cell grows with the contraction's tree of shards (k of
	# 8200: 16 shards) and with an expression fused after the product
	/usr/bin/python3 - <<-'EOF'
		import h5py, numpy as np
		rng = np.random.default_rng(5)
		with h5py.File('e.h5', 'w') as f:
		    f['a'] = rng.standard_normal((100, 3000)); f['b'] = rng.standard_normal((3000, 50))
		    f['c'] = rng.standard_normal((2000, 2)); f['d'] = rng.standard_normal((2, 2000))
		    f['w'] = rng.standard_normal((130, 8200)); f['v'] = rng.standard_normal(8200)
		    f['z'] = (rng.standard_normal((8200, 130)) + 1j * rng.standard_normal((8200, 130))).astype('c16')
		    f['y'] = (rng.standard_normal((64, 8200)) + 1j * rng.standard_normal((64, 8200))).astype('c16')
	EOF
	local cases=(
		"matmul e.h5:/a e.h5:/b|a @ b"
		"matmul e.h5:/c e.h5:/d|c @ d"
		"matvec e.h5:/w e.h5:/v|w @ v"
		"vecmat e.h5:/v e.h5:/z|np.conj(v) @ z"
		"vecdot e.h5:/v e.h5:/v|v @ v"
		"matmul e.h5:/y e.h5:/z|y @ z"
	)
	local c args want need t
	for t in "${!cases[@]}"; do
		c=${cases[t]}
		args=${c%%|*} want=${c#*|}
		run --separate-stderr h5u call $args -o "o$t.h5:/r" --memory 4K
		need=$(sed -n 's/.*(a cell of [a-z]*.s results needs \([0-9]*\) bytes)$/\1/p' <<<"$stderr")
		[[ $need ]] || fail "no need said: $stderr"
		snapshot
		run --separate-stderr h5u call $args -o "o$t.h5:/r" --memory $((need - 1))
		assert_error 2 "call ${args%% *}: --memory $((need - 1)) bytes is too small for one block (a cell of ${args%% *}'s results needs $need bytes)"
		assert_unchanged
		run --separate-stderr h5u call $args -o "o$t.h5:/r" --memory "$need"
		assert_success
		run --separate-stderr mpi 3 h5ufunc call $args -o "m$t.h5:/r" --memory "$need"
		assert_success
		run ref same "o$t.h5" "m$t.h5"
		assert_success
		run /usr/bin/python3 - "$want" "o$t.h5" <<-'EOF'
			import sys, h5py, numpy as np
			f = h5py.File('e.h5')
			data = {k: f[k][()] for k in f}
			want = eval(sys.argv[1], data | {'np': np})
			got = h5py.File(sys.argv[2])['r'][()]
			absprod = eval(sys.argv[1].replace('np.conj', 'np.abs'), {k: np.abs(v) for k, v in data.items()} | {'np': np})
			k = 8200
			assert got.shape == np.shape(want) and got.dtype == np.result_type(want), (got.shape, got.dtype)
			assert np.all(np.abs(got - want) <= 4 * k * np.finfo(np.float64).eps * absprod), sys.argv[1]
		EOF
		assert_success
	done
	# an expression fused after the product needs more, and says so
	run --separate-stderr h5u eval -i a=e.h5:/a -i b=e.h5:/b 'f.h5:/r = (a @ b) * 2 + 1' --memory 4K
	need=$(sed -n 's/.*needs \([0-9]*\) bytes)$/\1/p' <<<"$stderr")
	run --separate-stderr h5u eval -i a=e.h5:/a -i b=e.h5:/b 'f.h5:/r = (a @ b) * 2 + 1' --memory $((need - 1))
	assert_error 2 "eval: --memory $((need - 1)) bytes is too small for one block (a cell of matmul's results needs $need bytes)"
	run --separate-stderr h5u eval -i a=e.h5:/a -i b=e.h5:/b 'f.h5:/r = (a @ b) * 2 + 1' --memory "$need"
	assert_success
	run /usr/bin/python3 -c '
import h5py, numpy as np
f = h5py.File("e.h5"); a, b = f["a"][()], f["b"][()]
got = h5py.File("f.h5")["r"][()]
assert np.all(np.abs(got - ((a @ b) * 2 + 1)) <= 2 * 4 * 3000 * np.finfo(float).eps * (np.abs(a) @ np.abs(b)) + 1e-15)'
	assert_success
}

@test "loop axes broadcast by name, the core ones by position; the result names its axes and multiplies units" {
	/usr/bin/python3 - <<-'EOF2'
		import h5py, numpy as np
		rng = np.random.default_rng(5)
		with h5py.File('named.h5', 'w') as f:
		    for n, size in [('x', 4), ('y', 3), ('n', 5), ('k', 6), ('m', 2)]:
		        f[n] = np.arange(size, dtype='f8')
		        f[n].make_scale(n)
		    a = f.create_dataset('a', data=rng.standard_normal((4, 3, 5, 6)))
		    b = f.create_dataset('b', data=rng.standard_normal((3, 4, 6, 2)))
		    a.attrs['units'], b.attrs['units'] = 'm', 's'
		    for ds, names in [(a, 'xynk'), (b, 'yxkm')]:
		        for i, n in enumerate(names):
		            ds.dims[i].attach_scale(f[n])
	EOF2
	run --separate-stderr h5u call matmul named.h5:/a named.h5:/b -o out.h5:/c
	assert_success
	run /usr/bin/python3 - <<-'EOF2'
		import h5py, numpy as np
		f, o = h5py.File('named.h5'), h5py.File('out.h5')
		want = np.matmul(f['a'][()], np.transpose(f['b'][()], (1, 0, 2, 3)))
		assert o['c'].shape == want.shape and np.allclose(o['c'][()], want, rtol=1e-13, atol=1e-13)
		names = [o['c'].dims[i][0].name.lstrip('/') for i in range(4)]
		assert names == ['x', 'y', 'n', 'm'], names
		assert o['c'].attrs['units'] == b'm.s' or o['c'].attrs['units'] == 'm.s', o['c'].attrs['units']
	EOF2
	assert_success
	# by position the loop axes (4, 3) and (3, 4) do not broadcast
	run --separate-stderr h5u call matmul named.h5:/a named.h5:/b --broadcast position -o out.h5:/d
	assert_error 2 "call matmul: operands could not be broadcast together with remapped shapes [original->remapped]: (4,3,5,6)->(4,3,newaxis,newaxis) (3,4,6,2)->(3,4,newaxis,newaxis)  and requested shape (5,2)"
}

@test "the result's axes carry the coordinates of the axes they come from: sliced, broadcast by name or position, core axes; 1-4 ranks; ncdump and netCDF4 'a'" {
	run ref coord_inputs in.nc plain.h5
	assert_success
	ref coord_recipe in.nc plain.h5 out.nc >c.yaml
	on_ranks 1M c.yaml out.nc -- coord_check in.nc plain.h5 out.nc
	run ref same out.nc out1.nc out2.nc out3.nc out4.nc :: appendable out.nc
	assert_success
	run ncdump -v time,lat_bnds out.nc
	assert_success
	assert_output --partial $'group: sliced {\n  variables:\n  \tdouble r(time, ens, lat, m) ;'
	assert_output --partial $' time = 45, 105 ;\n\n lat_bnds =\n  -80, -40,\n  0, 40 ;'
}

@test "@ in eval and expr: Python's precedence, operands computed first, numbers applied to each box, the same bytes on 3 ranks" {
	fixture in.h5
	cat >r.yaml <<-'EOF2'
		inputs: {a: in.h5:/a_float64, b: in.h5:/b_float64, u: in.h5:/u_float64, v: in.h5:/v_float64,
		         f: in.h5:/a_float32, g: in.h5:/b_float32, i: in.h5:/a_int16, j: in.h5:/b_int16,
		         r: in.h5:/rot, x: in.h5:/field}
		steps:
		  - expr: a @ b * 0.5 + 1
		    out: ${OUT}:/scaled
		  - expr: 2 * a @ b
		    out: ${OUT}:/left
		  - expr: (a - 1) @ (b * b) + a @ b
		    out: ${OUT}:/sum
		  - expr: sqrt(abs(u @ v)) * -1
		    out: ${OUT}:/scalar
		  - expr: f @ g > 0
		    out: ${OUT}:/sign
		  - expr: i @ j * 3 - 1
		    out: ${OUT}:/wrap
		  - expr: matvec(r, x) @ r
		    out: ${OUT}:/chain
	EOF2
	run --separate-stderr h5u check r.yaml --set OUT=one.h5
	assert_success
	# numbers after the last product run on each box of it: no pass of their own
	assert_line --regexp "^step 1: ufunc matmul, .*, then multiply add on each box, 1 of 1 ranks with work$"
	assert_line --regexp "^step 3: expr add, .*"
	h5u run r.yaml --set OUT=one.h5
	run --separate-stderr mpi 3 h5ufunc run r.yaml --set OUT=three.h5 --memory 1M
	assert_success
	run ref same one.h5 three.h5
	assert_success
	run /usr/bin/python3 - <<-'EOF2'
		import h5py, numpy as np
		f, o = h5py.File('in.h5'), h5py.File('one.h5')
		a, b, u, v = (f[n][()] for n in ('a_float64', 'b_float64', 'u_float64', 'v_float64'))
		want = {'scaled': a @ b * 0.5 + 1, 'left': 2 * a @ b, 'sum': (a - 1) @ (b * b) + a @ b,
		        'scalar': np.sqrt(np.abs(u @ v)) * -1,
		        'sign': f['a_float32'][()] @ f['b_float32'][()] > 0,
		        'wrap': f['a_int16'][()] @ f['b_int16'][()] * np.int16(3) - np.int16(1),
		        'chain': np.matmul(f['rot'][()], f['field'][()][..., None])[..., 0] @ f['rot'][()]}
		for name, w in want.items():
		    got = o[name][()]
		    assert got.dtype == w.dtype and got.shape == w.shape, (name, got.dtype, got.shape, w.dtype, w.shape)
		    ok = np.array_equal(got, w) if w.dtype.kind in 'biu' else np.allclose(got, w, rtol=1e-12, atol=1e-12)
		    # a comparison of a product within the bound of 0 may go either way
		    assert ok or name == 'sign' and (got != w).mean() < 1e-3, name
	EOF2
	assert_success
	# a chain of products, unnamed 1-D ones between them: --json holds the result
	run --separate-stderr h5u eval --json -i a=in.h5:/a_float64 -i u=in.h5:/u_float64 '2 * a @ u @ a'
	assert_success
	run /usr/bin/python3 -c "import sys, json, h5py, numpy as np; f = h5py.File('in.h5'); a, u = f['a_float64'][()], f['u_float64'][()]; got = np.array(json.loads(sys.argv[1])['result']); w = 2 * a @ u @ a; assert got.shape == w.shape and np.allclose(got, w, rtol=1e-12, atol=1e-12)" "$output"
	assert_success
	run --separate-stderr h5u eval -i a=in.h5:/a_float64 'a @ 2'
	assert_error 2 "eval: matmul: Input operand 1 does not have enough dimensions (has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)"
	run --separate-stderr h5u eval -i a=in.h5:/a_float64 -i b=in.h5:/b_float64 'a @ b' --where 'a > 0'
	assert_error 2 "eval: matmul() got an unexpected keyword argument 'where'"
	run --separate-stderr h5u eval -i a=in.h5:/a_float64 -i b=in.h5:/b_float64 'a @ b + 1' --where 'a @ b > 0'
	assert_error 2 "eval: matmul is a generalized ufunc: not in where="
}

@test "CF operands: packed and _Unsigned ones unpacked as read, as netCDF4-python decodes them; 1 and 3 ranks under a small --memory; --missing raw the stored numbers" {
	ref cf_inputs cf.nc
	ref cf_recipe cf.nc '${OUT}' >r.yaml
	for n in 1 3; do
		run --separate-stderr mpi "$n" h5ufunc call matmul cf.nc:/p cf.nc:/q --out "$n.h5:/call" --memory 64K
		assert_success
		run --separate-stderr mpi "$n" h5ufunc eval -i p=cf.nc:/p -i q=cf.nc:/q "$n.h5:/eval = p @ q" --memory 64K
		assert_success
		run --separate-stderr mpi "$n" h5ufunc run r.yaml --set OUT="$n.h5" --memory 64K
		assert_success
	done
	run ref cf_check cf.nc 1.h5 :: same 1.h5 3.h5
	assert_success
	ok call matmul cf.nc:/p cf.nc:/q --out raw.h5:/call --missing raw
	run ref cf_check cf.nc raw.h5 raw
	assert_success
}

@test "operands with missing values: np.ma.dot's rule for call, eval, recipe steps and expressions (_FillValue, missing_value, valid_range, packed int16, an operand computed masked, missing: mask, complex under mask-nan); the first operand's _FillValue, as every step takes it; the same bytes on 1-4 ranks under a small --memory; xarray reads the mask" {
	ref ma_inputs ma.nc ma.h5
	ref ma_recipe ma.nc ma.h5 '${OUT}' >r.yaml
	local n memory=()
	for n in 1 2 3 4; do
		((n == 1)) || memory=(--memory 256K)
		run --separate-stderr mpi "$n" h5ufunc run r.yaml --set OUT="$n.nc" "${memory[@]}"
		assert_success
		run --separate-stderr mpi "$n" h5ufunc call matmul ma.nc:/f ma.nc:/g -o "$n.nc:/call" "${memory[@]}"
		assert_success
		run --separate-stderr mpi "$n" h5ufunc eval -i f=ma.nc:/f -i g=ma.nc:/g "$n.nc:/eval = f @ g" "${memory[@]}"
		assert_success
	done
	run ref ma_check ma.nc ma.h5 1.nc :: same 1.nc 2.nc 3.nc 4.nc
	assert_success
	# X.T @ X shared between the ranks: their bytes of valid products or'ed on rank 0
	run --separate-stderr mpi 3 h5ufunc check r.yaml --set OUT=plan.nc --memory 256K
	assert_success
	assert_output --regexp "cells \(6, 6\) over pieces of 125, 6 shards, OpenBLAS; .*shared: each rank sums its shards"
	# missing: mask on an operand that declares missing values: the default's bytes
	ok call matmul ma.nc:/f ma.nc:/g -o mask.nc:/call --missing mask
	run /usr/bin/python3 -c "import h5py, numpy as np; a, b = h5py.File('1.nc')['call'], h5py.File('mask.nc')['call']; assert a[()].tobytes() == b[()].tobytes() and a.attrs['_FillValue'] == b.attrs['_FillValue']"
	assert_success
	# one fill rule for every step: the product's _FillValue is its first
	# operand's, as an elementwise step's and a reduction's on it are; a
	# first operand without one (g: missing_value only) gives the default
	ok call negative ma.nc:/f -o rule.nc:/negative
	ok reduce add ma.nc:/f -o rule.nc:/sum
	ok call vecdot ma.nc:/g ma.nc:/g --axis 0 -o rule.nc:/g_first
	run /usr/bin/python3 -c "import netCDF4, xarray as xr, numpy as np; o, r = netCDF4.Dataset('1.nc'), netCDF4.Dataset('rule.nc'); fills = {o['call'].getncattr('_FillValue'), r['negative'].getncattr('_FillValue'), r['sum'].getncattr('_FillValue')}; assert fills == {-999.0}, fills; assert r['g_first'][:].mask.any() and r['g_first'].getncattr('_FillValue') == netCDF4.default_fillvals['f8']; c = o['call'][:]; x = xr.open_dataset('1.nc')['call'].values; assert c.mask.any() and np.array_equal(np.isnan(x), c.mask) and np.array_equal(x[~c.mask], c.compressed())"
	assert_success
	# --missing raw: the stored numbers, fills and all, as NumPy on h5py's reading
	ok call matmul ma.nc:/f ma.nc:/g -o raw.h5:/c --missing raw
	run /usr/bin/python3 -c "import h5py, numpy as np; f, o = h5py.File('ma.nc'), h5py.File('raw.h5'); w = f['f'][()] @ f['g'][()]; assert '_FillValue' not in o['c'].attrs and np.allclose(o['c'][()], w, rtol=1e-12)"
	assert_success
	# complex, NaN missing under mask-nan: vecdot and vecmat conjugate the first
	ok call vecdot ma.h5:/cu ma.h5:/cv --missing mask-nan -o cx.h5:/vecdot
	ok call vecmat 'ma.h5:/cu[0]' ma.h5:/cv --axes '[[0],[1,0],[0]]' --missing mask-nan -o cx.h5:/vecmat
	run ref ma_complex ma.h5 cx.h5
	assert_success
	# fill: as on every step: over the first operand's _FillValue, in a
	# step, a one-liner, a fused epilogue, a computed operand, on 1-3 ranks
	cat >fill.yaml <<-'EOF2'
		inputs: {f: ma.nc:/f, g: ma.nc:/g, v: ma.nc:/v}
		steps:
		  - ufunc: matmul
		    in: [f, g]
		    fill: -5
		    out: ${OUT}:/step
		  - expr: (f * 2) @ g
		    fill: -5
		    out: ${OUT}:/computed
		  - expr: f @ g * 2
		    fill: -5
		    out: ${OUT}:/epilogue
		  - ufunc: vecdot
		    in: [f, v]
		    fill: -5
		    out: ${OUT}:/vecdot
	EOF2
	for n in 1 3; do
		run --separate-stderr mpi "$n" h5ufunc run fill.yaml --set OUT="fill$n.nc" --memory 256K
		assert_success
		run --separate-stderr mpi "$n" h5ufunc call matmul ma.nc:/f ma.nc:/g --fill -5 -o "fill$n.nc:/call"
		assert_success
		run --separate-stderr mpi "$n" h5ufunc eval -i f=ma.nc:/f -i g=ma.nc:/g "fill$n.nc:/eval = f @ g * 2" --fill -5
		assert_success
	done
	run ref ma_fill ma.nc fill1.nc -5 :: same fill1.nc fill3.nc
	assert_success
	# a fill does not keep numbers from the contraction's epilogue
	run --separate-stderr h5u check fill.yaml --set OUT=plan.nc
	assert_success
	assert_line --partial "pieces a read, then multiply on each box"
	# without a mask there is nothing to fill, as for any step
	run --separate-stderr h5u call matmul ma.h5:/h ma.h5:/h --axes '[[1,0],[0,1],[0,1]]' --fill -5 -o o.h5:/r
	assert_error 2 "call matmul: 'fill' needs 'where' or a mask: without them every element is computed"
	# printed: masked results as --, as for any masked step
	run --separate-stderr h5u call vecdot 'ma.nc:/f[0]' ma.nc:/v
	assert_success
	run /usr/bin/python3 -c "import sys, netCDF4, numpy as np; sys.path.insert(0, '$H5U_TESTS'); import gufunc_ref as g; f = netCDF4.Dataset('ma.nc'); w = g.ma_dot('vecdot', f['f'][0], f['v'][:], {}); got = sys.argv[1].split(); assert [x == '--' for x in got] == list(np.ma.getmaskarray(w)) and any(x == '--' for x in got); assert np.allclose([float(x) for x in got if x != '--'], w.compressed(), rtol=1e-12)" "$output"
	assert_success
}

@test "written in place into an operand it contracts: refused before any write, since streamed boxes would read results; to another dataset NumPy's, under any --memory" {
	/usr/bin/python3 -c "import h5py, numpy as np; r = np.random.default_rng(5); f = h5py.File('sq.h5', 'w'); f['A'] = r.integers(-5, 5, (300, 300)); f['v'] = r.integers(-5, 5, 300)"
	printf 'inputs: {A: sq.h5:/A}\nsteps:\n  - expr: (A + 1) @ A\n    out: A\n' >r.yaml
	snapshot
	run --separate-stderr h5u call matmul sq.h5:/A sq.h5:/A -o sq.h5:/A --memory 300K
	assert_error 2 "call matmul: 'sq.h5:/A' is read by matmul beyond each result's own element: write to another dataset"
	run --separate-stderr h5u call matvec sq.h5:/A sq.h5:/v -o sq.h5:/v
	assert_error 2 "call matvec: 'sq.h5:/v' is read by matvec beyond each result's own element: write to another dataset"
	run --separate-stderr h5u eval -i A=sq.h5:/A 'A = A @ A'
	assert_error 2 "eval: 'sq.h5:/A' is read by matmul beyond each result's own element: write to another dataset"
	run --separate-stderr mpi 3 h5ufunc run r.yaml
	assert_error_once 2 "r.yaml:4:10: step 1 (expr expression): 'sq.h5:/A' is read by matmul beyond each result's own element: write to another dataset"
	assert_unchanged
	# what an in-place write would have had to give: NumPy's out= copies an
	# operand it overlaps first
	ok call matmul sq.h5:/A sq.h5:/A -o o.h5:/A --memory 300K
	ok call matvec sq.h5:/A sq.h5:/v -o o.h5:/v --memory 100K
	run /usr/bin/python3 -c "import h5py, numpy as np; f, o = h5py.File('sq.h5'), h5py.File('o.h5'); A, v = f['A'][()], f['v'][()]; B = A.copy(); np.matmul(B, B, out=B); assert np.array_equal(o['A'][()], B) and np.array_equal(B, A @ A) and np.array_equal(o['v'][()], A @ v)"
	assert_success
}
