#!/usr/bin/env bats
# 70-missing.bats - NumPy's where= on `call`, `eval`, `reduce` and their
# recipe steps, against NumPy's own where= (tests/where_ref.py).
#
# New outputs hold the fill: value or netCDF's default fill (as the
# dataset's _FillValue and HDF5 fill value), existing outputs keep their
# values (in place, selections), printed results show "--" (JSON null);
# where broadcasts as NumPy broadcasts it (rows, columns, a larger shape,
# an int16 taken as bool, a literal); reductions fold the selected
# elements only, with initial= where the ufunc has no identity; NumPy's
# refusals (exit 2, every file as it was); and one recipe of every kind of
# where step on 1, 2, 3 and 4 ranks, with a small --memory and a rank with
# no rows, writing the same bytes every time.

load helper

setup_file() {
	/usr/bin/python3 "$H5U_TESTS/where_ref.py" make "$BATS_FILE_TMPDIR"
}

setup() {
	fixture f.h5 big.h5
	export WHERE_FIXTURES=$BATS_FILE_TMPDIR
}

ref() {
	/usr/bin/python3 "$H5U_TESTS/where_ref.py" "$@"
}

# ok ARGS... -- h5ufunc ARGS succeeds with nothing on stderr.
ok() {
	run --separate-stderr h5u "$@"
	[[ $status == 0 ]] || echo "$stderr"
	assert_success
	assert_stderr_empty
}

@test "call --where: a new output holds the default fill where it is false, as _FillValue" {
	ok call sqrt f.h5:/x --where f.h5:/w -o o.h5:/sqrt
	ref check o.h5:/sqrt 'np.sqrt(x, where=w, out=np.full(x.shape, fill("f8")))' --fill default
	ok call add f.h5:/i 1 --where f.h5:/wi -o o.h5:/add
	ref check o.h5:/add 'np.add(i, 1, where=wi != 0, out=np.full(i.shape, fill("i4"), "i4"))' --fill default
	ok call greater f.h5:/x 0 --where f.h5:/w -o o.h5:/gt
	ref check o.h5:/gt 'np.greater(x, 0, where=w, out=np.zeros(x.shape, bool))' --fill default
	ok call negative f.h5:/c --where f.h5:/w -o o.h5:/neg
	ref check o.h5:/neg 'np.negative(c, where=w, out=np.full(c.shape, fill("c16")))' --fill default
	ok call absolute f.h5:/c --where f.h5:/w -o o.h5:/abs
	ref check o.h5:/abs 'np.absolute(c, where=w, out=np.full(c.shape, fill("f8")))' --fill default
}

@test "call --where broadcasts as NumPy's: rows, columns, a larger shape, a literal; --fill" {
	ok call multiply f.h5:/h 2.5 --where f.h5:/wr --fill -1 -o o.h5:/row
	ref check o.h5:/row 'np.multiply(h, 2.5, where=wr, out=np.full(h.shape, -1, "f4"))' --fill -1
	ok call divmod f.h5:/x 2 --where f.h5:/wc -o o.h5:/q,o.h5:/r
	ref check o.h5:/q 'np.divmod(x, 2, where=wc, out=(np.full(x.shape, fill("f8")), np.full(x.shape, fill("f8"))))[0]' --fill default
	ref check o.h5:/r 'np.divmod(x, 2, where=wc, out=(np.full(x.shape, fill("f8")), np.full(x.shape, fill("f8"))))[1]' --fill default
	ok call add 'f.h5:/x[0]' 1 --where f.h5:/wc --fill 0 -o o.h5:/grown
	ref check o.h5:/grown 'np.add(x[0], 1, where=wc, out=np.zeros((7, 5)))' --fill 0
	ok call subtract f.h5:/i 3 --where false -o o.h5:/none
	ref check o.h5:/none 'np.full(i.shape, fill("i4"), "i4")' --fill default
	ok call subtract f.h5:/i 3 --where true -o o.h5:/all
	ref check o.h5:/all 'i - 3' --fill default
	run --separate-stderr h5u call add f.h5:/i 1 --where f.h5:/w --fill 3000000000 -o o.h5:/big
	assert_error 2 "call add: Python integer 3000000000 out of bounds for int32"
}

@test "in place and into selections, where= keeps what the dataset held" {
	ok call add f.h5:/x 100 --where f.h5:/w -o f.h5:/x
	ref check f.h5:/x 'np.add(x, 100, where=w, out=x.copy())'
	ok call negative 'f.h5:/h[2:5]' --where 'f.h5:/w[2:5]' -o 'f.h5:/h[2:5]'
	ref check f.h5:/h 'np.concatenate([h[:2], np.negative(h[2:5], where=w[2:5], out=h[2:5].copy()), h[5:]])'
	ok eval -i i=f.h5:/i 'i = i * 2 + 1' --where 'i > 0'
	ref check f.h5:/i 'np.add(i * 2, 1, where=i > 0, out=i.copy())'
	run h5dump -A -d /x f.h5
	refute_output --partial _FillValue
}

@test "eval --where EXPR, recipe where: and fill:, a masked intermediate read by a later step" {
	ok eval -i x=f.h5:/x -i w=f.h5:/w 'o.h5:/e = sqrt(x) * 2' --where 'w & (x > 1)'
	ref check o.h5:/e 'np.multiply(np.sqrt(x), 2, where=w & (x > 1), out=np.full(x.shape, fill("f8")))' --fill default
	cat > r.yaml <<-'EOF'
		inputs:
		  x: f.h5:/x
		  w: f.h5:/w
		  i: f.h5:/i
		steps:
		  - ufunc: multiply
		    in: [x, 3]
		    where: w
		    fill: -9999
		    out: m
		  - expr: m + 1
		    out: o.h5:/after
		  - expr: i // 7
		    where: i % 2 == 0
		    fill: 0
		    out: o.h5:/even
		  - ufunc: logical_not
		    in: [w]
		    where: f.h5:/wr
		    out: o.h5:/lnot
	EOF
	run --separate-stderr h5u check r.yaml
	assert_success
	assert_output --partial 'step 2: expr add'
	ok run r.yaml
	ref check o.h5:/after 'np.multiply(x, 3, where=w, out=np.full(x.shape, -9999.0)) + 1'
	ref check o.h5:/even 'np.floor_divide(i, 7, where=i % 2 == 0, out=np.zeros(i.shape, "i4"))' --fill 0
	ref check o.h5:/lnot 'np.logical_not(w, where=wr, out=np.zeros(w.shape, bool))' --fill default
}

@test "printed results: -- where where= is false, JSON null" {
	run --separate-stderr h5u eval -i x=f.h5:/x 'x * 2' --where 'x > 0'
	assert_success
	ref printed 'x * 2' 'x > 0' <<<"$output"
	run --separate-stderr h5u call greater f.h5:/i 0 --where f.h5:/w
	assert_success
	ref printed 'i > 0' 'w' <<<"$output"
	run --separate-stderr h5u call add 'f.h5:/x[1]' 1 --where 'f.h5:/wr' --json
	assert_success
	/usr/bin/python3 -c '
import json, sys, h5py, numpy as np
r = json.loads(sys.stdin.read())["result"]
f = h5py.File(sys.argv[1] + "/orig.h5")
x, wr = f["x"][1], f["wr"][()]
want = [float(v + 1) if m else None for v, m in zip(x, wr)]
assert r == want, (r, want)' "$BATS_FILE_TMPDIR" <<<"$output"
}

@test "reduce --where folds the selected elements only, as NumPy's" {
	ok reduce add f.h5:/x --where f.h5:/w -o o.h5:/s0
	ref check o.h5:/s0 'np.add.reduce(x, axis=0, where=w)' --rtol 1e-12
	ok reduce add f.h5:/x --axis 1 --keepdims --where f.h5:/wr -o o.h5:/s1
	ref check o.h5:/s1 'np.add.reduce(x, axis=1, keepdims=True, where=wr)' --rtol 1e-12
	ok reduce multiply f.h5:/i --axis all --where f.h5:/wi -o o.h5:/p
	ref check o.h5:/p 'np.multiply.reduce(i, axis=None, where=wi != 0)'
	ok reduce maximum f.h5:/h --axis 0 --where f.h5:/wc --initial -10 -o o.h5:/mx
	ref check o.h5:/mx 'np.maximum.reduce(h, axis=0, where=wc, initial=-10)'
	ok reduce minimum f.h5:/x --axis all --where false --initial 7 -o o.h5:/none
	ref check o.h5:/none 'np.minimum.reduce(x, axis=None, where=False, initial=7)'
	ok reduce logical_or f.h5:/w --axis 1 --where f.h5:/wi -o o.h5:/lor
	ref check o.h5:/lor 'np.logical_or.reduce(w, axis=1, where=wi != 0)'
	ok reduce add f.h5:/i --axis 0 --initial 1000 --where f.h5:/w -o o.h5:/init
	ref check o.h5:/init 'np.add.reduce(i, axis=0, initial=1000, where=w)'
	run --separate-stderr h5u reduce add f.h5:/i --axis all --where f.h5:/w
	assert_success
	ref printed 'np.add.reduce(i, axis=None, where=w)' <<<"$output"
}

@test "where= refused where NumPy refuses it, and misused: exit 2, every file as it was" {
	snapshot
	run --separate-stderr h5u reduce maximum f.h5:/x --where f.h5:/w -o o.h5:/m
	assert_error 2 "reduce maximum: reduction operation 'maximum' does not have an identity, so to use a where mask one has to specify 'initial'"
	run --separate-stderr h5u reduce subtract f.h5:/x --where f.h5:/w --initial 0 -o o.h5:/m
	assert_error 2 "reduce subtract: where= is not supported for 'subtract', which is not reorderable"
	run --separate-stderr h5u reduce add f.h5:/x --where 'f.h5:/x[0:2]' -o o.h5:/m
	assert_error 2 "reduce add: where= with shape (2,5) cannot be broadcast to the input's shape (7,5)"
	run --separate-stderr h5u accumulate add f.h5:/x --where f.h5:/w -o o.h5:/m
	assert_failure 2
	[[ $stderr == *"'--where'"* ]]
	run --separate-stderr h5u call add f.h5:/x 1 --where 'f.h5:/x[0:2]' -o o.h5:/m
	assert_error 2 "call add: operands could not be broadcast together with shapes (7,5) (2,5)"
	run --separate-stderr h5u call add f.h5:/x 1 --fill 0 -o o.h5:/m
	assert_error 2 "call add: 'fill' needs 'where': without it every element is computed"
	run --separate-stderr h5u eval -i x=f.h5:/x 'x + 1' --where 'y > 0'
	assert_error 2 "eval: unknown name 'y'"
	printf 'inputs:\n  x: f.h5:/x\nsteps:\n  - accumulate: add\n    in: x\n    where: x\n    out: o.h5:/m\n' > r.yaml
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:6:5: 'where' applies to ufunc, reduce and expr steps only"
	rm r.yaml
	assert_unchanged
}

@test "where= on 1, 2, 3 and 4 ranks and a small --memory: the same bytes, NumPy's values" {
	cat > r.yaml <<-'EOF'
		inputs:
		  y: big.h5:/y
		  yw: big.h5:/yw
		  yr: big.h5:/yr
		steps:
		  - ufunc: sin
		    in: [y]
		    where: yw
		    out: o.h5:/sin
		  - expr: y * 2 - 1
		    where: y > 0.25
		    out: o.h5:/lin
		  - reduce: add
		    in: y
		    where: yw
		    out: o.h5:/s0
		  - reduce: add
		    in: y
		    axis: 1
		    where: yr
		    out: o.h5:/s1
		  - reduce: maximum
		    in: y
		    axis: null
		    where: yw
		    initial: -5
		    out: o.h5:/mx
		  - ufunc: add
		    in: ['big.h5:/y[0:3]', 1]
		    where: 'big.h5:/yw[0:3]'
		    out: o.h5:/few
		  - expr: y + 10
		    where: yw
		    out: y
	EOF
	local n mem
	for n in 1 2 3 4; do
		for mem in 256M 16K; do
			fixture big.h5
			rm -f o.h5
			run --separate-stderr mpi "$n" h5ufunc run --memory "$mem" r.yaml
			assert_success
			h5dump -d /sin -d /lin -d /s0 -d /s1 -d /mx -d /few o.h5 > "dump-$n-$mem"
			h5dump -d /y big.h5 >> "dump-$n-$mem"
			cmp "dump-1-256M" "dump-$n-$mem"
		done
	done
	ref check o.h5:/sin 'np.sin(y, where=yw, out=np.full(y.shape, fill("f8")))' --fill default --rtol 1e-15
	ref check o.h5:/lin 'np.subtract(y * 2, 1, where=y > 0.25, out=np.full(y.shape, fill("f8")))' --fill default
	ref check o.h5:/s0 'np.add.reduce(y, axis=0, where=yw)' --rtol 1e-12
	ref check o.h5:/s1 'np.add.reduce(y, axis=1, where=yr)' --rtol 1e-12
	ref check o.h5:/mx 'np.maximum.reduce(y, axis=None, where=yw, initial=-5)'
	ref check o.h5:/few 'np.add(y[0:3], 1, where=yw[0:3], out=np.full((3, 9), fill("f8")))' --fill default
	ref check big.h5:/y 'np.add(y, 10, where=yw, out=y.copy())'
}
