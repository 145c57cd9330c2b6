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
#
# Masked mode (missing: mask) of elementwise steps against numpy.ma, on
# files made with h5py and with ncgen from CDL (_FillValue, missing_value,
# valid_min/valid_max, valid_range, NaN with mask-nan): masked inputs,
# numpy.ma's domain errors, the output's fill value, printed "--", with
# where=, in place, on 1 to 4 ranks; a file without those attributes gives
# exactly today's result but for domain errors.  Masked reductions against
# numpy.ma's (np.ma.sum, max, min, prod): every axis, all axes, keepdims,
# with where=, all-masked results written as the fill, printed "--" and
# counted in --json, the same bytes on 1 to 4 ranks and a small --memory;
# masked accumulations as np.ma.cumsum and cumprod (masked elements count
# as the identity, or the dtype's extreme for maximum and minimum, and stay
# masked) on every axis, ranks and --memory.  Ufuncs with no identity:
# numpy.ma's fill where numpy.ma reduces them (np.ma.subtract), else masked
# elements skipped (NumPy on each line's compressed valid elements), and
# where= with initial= on a non-reorderable reduce (np.subtract.reduce).
# Named intermediates read back by later steps (elementwise, reduce,
# accumulate, reduceat, @) masked where numpy.ma masks them, from their
# mask plane: a bool's valid False, cells where= left, a valid value equal
# to the fill, on 1 to 4 ranks and a small --memory; isfinite kept and
# summed into counts; NaNs of an intermediate under mask-nan.  A final output whose valid result equals its fill:
# exit 1 on 1 and more ranks, nothing written; a bool written as it is.

load helper

setup_file() {
	ref make "$BATS_FILE_TMPDIR"
	cat > "$BATS_FILE_TMPDIR/era.cdl" <<-'EOF'
		netcdf era {
		dimensions:
		  time = 4 ;
		  x = 3 ;
		variables:
		  float t2m(time, x) ;
		    t2m:_FillValue = -9999.f ;
		    t2m:units = "K" ;
		  double sst(time, x) ;
		    sst:missing_value = -1.e+30 ;
		  short q(time, x) ;
		    q:valid_range = 0s, 100s ;
		data:
		  t2m = 271.5, -9999, 280.25, 283, 279.5, _, 290, 250.5, -9999, 300, 301, 302.5 ;
		  sst = 1, 0, -1e30, 4, -5, 6, 7, -1e30, 9, 10, 11, 12 ;
		  q = 5, 150, 20, -3, 40, 0, 60, 70, 80, 90, 100, 101 ;
		}
	EOF
	ncgen -k nc4 -o "$BATS_FILE_TMPDIR/era.nc" "$BATS_FILE_TMPDIR/era.cdl"
	ref orig "$BATS_FILE_TMPDIR" m.h5 era.nc
}

setup() {
	fixture f.h5 big.h5 m.h5 era.nc
	export WHERE_FIXTURES=$BATS_FILE_TMPDIR
}

REF=where_ref.py

# r.yaml run on 1, 2, 3 and 4 ranks, with --memory 256M and 2K: the
# datasets PATH... of o.h5 the same bytes every time.
same_bytes() {
	local n mem path dumps=()
	for path in "$@"; do
		dumps+=(-d "$path")
	done
	for n in 1 2 3 4; do
		for mem in 256M 2K; do
			rm -f o.h5
			run --separate-stderr mpi "$n" h5ufunc run --memory "$mem" r.yaml
			assert_success
			h5dump "${dumps[@]}" o.h5 > "dump-$n-$mem"
			cmp "dump-1-256M" "dump-$n-$mem"
		done
	done
}

@test "call --where: a new output holds the default fill where it is false, as _FillValue" {
	ok call sqrt f.h5:/x --where f.h5:/w -o o.h5:/sqrt
	ok call add f.h5:/i 1 --where f.h5:/wi -o o.h5:/add
	ok call greater f.h5:/x 0 --where f.h5:/w -o o.h5:/gt
	ok call negative f.h5:/c --where f.h5:/w -o o.h5:/neg
	ok call absolute f.h5:/c --where f.h5:/w -o o.h5:/abs
	ref check o.h5:/sqrt 'np.sqrt(x, where=w, out=np.full(x.shape, fill("f8")))' --fill default :: \
		check o.h5:/add 'np.add(i, 1, where=wi != 0, out=np.full(i.shape, fill("i4"), "i4"))' --fill default :: \
		check o.h5:/gt 'np.greater(x, 0, where=w, out=np.zeros(x.shape, bool))' --fill default :: \
		check o.h5:/neg 'np.negative(c, where=w, out=np.full(c.shape, fill("c16")))' --fill default :: \
		check o.h5:/abs 'np.absolute(c, where=w, out=np.full(c.shape, fill("f8")))' --fill default
}

@test "call --where broadcasts as NumPy's: rows, columns, a larger shape, a literal; --fill" {
	ok call multiply f.h5:/h 2.5 --where f.h5:/wr --fill -1 -o o.h5:/row
	ok call divmod f.h5:/x 2 --where f.h5:/wc -o o.h5:/q,o.h5:/r
	ok call add 'f.h5:/x[0]' 1 --where f.h5:/wc --fill 0 -o o.h5:/grown
	ok call subtract f.h5:/i 3 --where false -o o.h5:/none
	ok call subtract f.h5:/i 3 --where true -o o.h5:/all
	ref check o.h5:/row 'np.multiply(h, 2.5, where=wr, out=np.full(h.shape, -1, "f4"))' --fill -1 :: \
		check o.h5:/q 'np.divmod(x, 2, where=wc, out=(np.full(x.shape, fill("f8")), np.full(x.shape, fill("f8"))))[0]' --fill default :: \
		check o.h5:/r 'np.divmod(x, 2, where=wc, out=(np.full(x.shape, fill("f8")), np.full(x.shape, fill("f8"))))[1]' --fill default :: \
		check o.h5:/grown 'np.add(x[0], 1, where=wc, out=np.zeros((7, 5)))' --fill 0 :: \
		check o.h5:/none 'np.full(i.shape, fill("i4"), "i4")' --fill default :: \
		check o.h5:/all 'i - 3' --fill default
	run --separate-stderr h5u call add f.h5:/i 1 --where f.h5:/w --fill 3000000000 -o o.h5:/big
	assert_error 2 "call add: Python integer 3000000000 out of bounds for int32"
}

@test "in place and into selections, where= keeps what the dataset held" {
	ok call add f.h5:/x 100 --where f.h5:/w -o f.h5:/x
	ok call negative 'f.h5:/h[2:5]' --where 'f.h5:/w[2:5]' -o 'f.h5:/h[2:5]'
	ok eval -i i=f.h5:/i 'i = i * 2 + 1' --where 'i > 0'
	ref check f.h5:/x 'np.add(x, 100, where=w, out=x.copy())' :: \
		check f.h5:/h 'np.concatenate([h[:2], np.negative(h[2:5], where=w[2:5], out=h[2:5].copy()), h[5:]])' :: \
		check f.h5:/i 'np.add(i * 2, 1, where=i > 0, out=i.copy())'
	run h5dump -A -d /x f.h5
	refute_output --partial _FillValue
}

@test "in place with where= and another loop dtype: what where= keeps is never cast to the loop's" {
	ok call square f.h5:/c --where f.h5:/w --dtype int64 --casting unsafe -o f.h5:/c
	ok call multiply f.h5:/x 3 --where f.h5:/w --dtype int8 --casting unsafe -o f.h5:/x
	ok call negative 'f.h5:/h[::-1]' --where 'f.h5:/w[::-1]' --dtype int16 --casting unsafe -o 'f.h5:/h[::-1]'
	ref check f.h5:/c 'np.square(c, where=w, dtype="i8", casting="unsafe", out=c.copy())' :: \
		check f.h5:/x 'np.multiply(x, 3, where=w, dtype="i1", casting="unsafe", out=x.copy())' :: \
		check f.h5:/h 'np.negative(h[::-1], where=w[::-1], dtype="i2", casting="unsafe", out=h[::-1].copy())[::-1]'
}

@test "eval --where EXPR, recipe where: and fill:, a masked intermediate read raw by a later step" {
	ok eval -i x=f.h5:/x -i w=f.h5:/w 'o.h5:/e = sqrt(x) * 2' --where 'w & (x > 1)'
	ref check o.h5:/e 'np.multiply(np.sqrt(x), 2, where=w & (x > 1), out=np.full(x.shape, fill("f8")))' --fill default
	cat > r.yaml <<-'EOF'
		inputs: {x: f.h5:/x, w: f.h5:/w, i: f.h5:/i}
		steps:
		  - {ufunc: multiply, in: [x, 3], where: w, fill: -9999, out: m}
		  - {expr: m + 1, missing: raw, out: o.h5:/after}
		  - {expr: i // 7, where: i % 2 == 0, fill: 0, out: o.h5:/even}
		  - {ufunc: logical_not, in: [w], where: f.h5:/wr, out: o.h5:/lnot}
	EOF
	run --separate-stderr h5u check r.yaml
	assert_success
	assert_output --partial 'step 2: expr add'
	ok run r.yaml
	ref check o.h5:/after 'np.multiply(x, 3, where=w, out=np.full(x.shape, -9999.0)) + 1' :: \
		check o.h5:/even 'np.floor_divide(i, 7, where=i % 2 == 0, out=np.zeros(i.shape, "i4"))' --fill 0 :: \
		check o.h5:/lnot 'np.logical_not(w, where=wr, out=np.zeros(w.shape, bool))' --fill default
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
	ok reduce add f.h5:/x --axis 1 --keepdims --where f.h5:/wr -o o.h5:/s1
	ok reduce multiply f.h5:/i --axis all --where f.h5:/wi -o o.h5:/p
	ok reduce maximum f.h5:/h --axis 0 --where f.h5:/wc --initial -10 -o o.h5:/mx
	ok reduce minimum f.h5:/x --axis all --where false --initial 7 -o o.h5:/none
	ok reduce logical_or f.h5:/w --axis 1 --where f.h5:/wi -o o.h5:/lor
	ok reduce add f.h5:/i --axis 0 --initial 1000 --where f.h5:/w -o o.h5:/init
	ref check o.h5:/s0 'np.add.reduce(x, axis=0, where=w)' --rtol 1e-12 \
			--scale 'np.add.reduce(abs(x), axis=0, where=w)' :: \
		check o.h5:/s1 'np.add.reduce(x, axis=1, keepdims=True, where=wr)' --rtol 1e-12 \
			--scale 'np.add.reduce(abs(x), axis=1, keepdims=True, where=wr)' :: \
		check o.h5:/p 'np.multiply.reduce(i, axis=None, where=wi != 0)' :: \
		check o.h5:/mx 'np.maximum.reduce(h, axis=0, where=wc, initial=-10)' :: \
		check o.h5:/none 'np.minimum.reduce(x, axis=None, where=False, initial=7)' :: \
		check o.h5:/lor 'np.logical_or.reduce(w, axis=1, where=wi != 0)' :: \
		check o.h5:/init 'np.add.reduce(i, axis=0, initial=1000, where=w)'
	run --separate-stderr h5u reduce add f.h5:/i --axis all --where f.h5:/w
	assert_success
	ref printed 'np.add.reduce(i, axis=None, where=w)' <<<"$output"
	# not reorderable, along one axis: initial= starts it, skipped elements leave it
	ok reduce subtract f.h5:/x --axis 0 --where f.h5:/w --initial 10 -o o.h5:/sub0
	ok reduce divide f.h5:/i --axis 1 --where f.h5:/wc --initial 3 -o o.h5:/div1
	ref check o.h5:/sub0 'np.subtract.reduce(x, axis=0, where=w, initial=10)' :: \
		check o.h5:/div1 'np.divide.reduce(i, axis=1, where=wc, initial=3)'
}

@test "where= refused where NumPy refuses it, and misused: exit 2, every file as it was" {
	snapshot
	run --separate-stderr h5u reduce maximum f.h5:/x --where f.h5:/w -o o.h5:/m
	assert_error 2 "reduce maximum: reduction operation 'maximum' does not have an identity, so to use a where mask one has to specify 'initial'"
	run --separate-stderr h5u reduce subtract f.h5:/x --where f.h5:/w -o o.h5:/m
	assert_error 2 "reduce subtract: reduction operation 'subtract' does not have an identity, so to use a where mask one has to specify 'initial'"
	run --separate-stderr h5u reduce subtract f.h5:/x --axis all --where f.h5:/w --initial 0 -o o.h5:/m
	assert_error 2 "reduce subtract: reduction operation 'subtract' is not reorderable, so at most one axis may be specified"
	run --separate-stderr h5u reduce add f.h5:/x --where 'f.h5:/x[0:2]' -o o.h5:/m
	assert_error 2 "reduce add: where= with shape (2,5) cannot be broadcast to the input's shape (7,5)"
	run --separate-stderr h5u accumulate add f.h5:/x --where f.h5:/w -o o.h5:/m
	assert_failure 2
	[[ $stderr == *"'--where'"* ]]
	run --separate-stderr h5u call add f.h5:/x 1 --where 'f.h5:/x[0:2]' -o o.h5:/m
	assert_error 2 "call add: operands could not be broadcast together with shapes (7,5) (2,5)"
	run --separate-stderr h5u call add f.h5:/x 1 --fill 0 -o o.h5:/m
	assert_error 2 "call add: 'fill' needs 'where' or a mask: without them every element is computed"
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
		inputs: {y: big.h5:/y, yw: big.h5:/yw, yr: big.h5:/yr}
		steps:
		  - {ufunc: sin, in: [y], where: yw, out: o.h5:/sin}
		  - {expr: y * 2 - 1, where: y > 0.25, out: o.h5:/lin}
		  - {reduce: add, in: y, where: yw, out: o.h5:/s0}
		  - {reduce: add, in: y, axis: 1, where: yr, out: o.h5:/s1}
		  - {reduce: maximum, in: y, axis: null, where: yw, initial: -5, out: o.h5:/mx}
		  - {ufunc: add, in: ['big.h5:/y[0:3]', 1], where: 'big.h5:/yw[0:3]', out: o.h5:/few}
		  - {expr: y + 10, where: yw, out: y}
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
	ref check o.h5:/sin 'np.sin(y, where=yw, out=np.full(y.shape, fill("f8")))' --fill default --ulp 4 :: \
		check o.h5:/lin 'np.subtract(y * 2, 1, where=y > 0.25, out=np.full(y.shape, fill("f8")))' --fill default :: \
		check o.h5:/s0 'np.add.reduce(y, axis=0, where=yw)' --rtol 1e-12 \
			--scale 'np.add.reduce(abs(y), axis=0, where=yw)' :: \
		check o.h5:/s1 'np.add.reduce(y, axis=1, where=yr)' --rtol 1e-12 \
			--scale 'np.add.reduce(abs(y), axis=1, where=yr)' :: \
		check o.h5:/mx 'np.maximum.reduce(y, axis=None, where=yw, initial=-5)' :: \
		check o.h5:/few 'np.add(y[0:3], 1, where=yw[0:3], out=np.full((3, 9), fill("f8")))' --fill default :: \
		check big.h5:/y 'np.add(y, 10, where=yw, out=y.copy())'
}

# ---- masked mode (missing: mask) ------------------------------------------

@test "--missing mask: _FillValue, missing_value, valid_range as numpy.ma, the first input's fill" {
	ok call sqrt m.h5:/t --missing mask -o o.h5:/sqrt
	ok call add m.h5:/r m.h5:/q --missing mask -o o.h5:/add
	ok call multiply m.h5:/q m.h5:/v --missing mask -o o.h5:/mul
	ok call arcsin m.h5:/v --missing mask --fill -5 -o o.h5:/asin
	ok call subtract era.nc:/t2m 273.15 --missing mask -o o.h5:/k
	ok call hypot era.nc:/sst era.nc:/q --missing mask -o o.h5:/h
	ref check o.h5:/sqrt 'np.ma.sqrt(M("m.h5:/t"))' --masked -9999 --fill -9999 :: \
		check o.h5:/add 'M("m.h5:/r") + M("m.h5:/q")' --masked default --fill default :: \
		check o.h5:/mul 'M("m.h5:/q") * M("m.h5:/v")' --masked default --fill default :: \
		check o.h5:/asin 'np.ma.arcsin(M("m.h5:/v"))' --masked -5 --fill -5 --ulp 4 :: \
		check o.h5:/k 'M("era.nc:/t2m") - np.float32(273.15)' --masked -9999 --fill -9999 :: \
		check o.h5:/h 'np.ma.hypot(M("era.nc:/sst"), M("era.nc:/q"))' --masked default --fill default
}

@test "--missing mask: numpy.ma's domain errors are masked, in files without fill attributes too" {
	ok call log m.h5:/p --missing mask -o o.h5:/log
	ok call floor_divide m.h5:/k m.h5:/k --missing mask -o o.h5:/fd
	ok call remainder m.h5:/k 0 --missing mask -o o.h5:/rem
	ok call divide era.nc:/sst era.nc:/sst --missing mask -o o.h5:/div
	ok eval -i p=m.h5:/p 'o.h5:/e = sqrt(p) + log10(p + 1)' --missing mask
	ref check o.h5:/log 'np.ma.log(M("m.h5:/p"))' --masked default --fill default :: \
		check o.h5:/fd 'np.ma.floor_divide(M("m.h5:/k"), M("m.h5:/k"))' --masked default --fill default :: \
		check o.h5:/rem 'np.ma.remainder(M("m.h5:/k"), np.int32(0))' --masked default --fill default :: \
		check o.h5:/div 'np.ma.divide(M("era.nc:/sst"), M("era.nc:/sst"))' --masked default --fill default :: \
		check o.h5:/e 'np.ma.sqrt(M("m.h5:/p")) + np.ma.log10(M("m.h5:/p") + 1)' --masked default --fill default
	# numpy.ma's own domains, where the results are finite: arctanh within
	# 1e-15 of +-1, a quotient beyond 1/tiny, its float32 bounds
	ok eval -i de=m.h5:/de 'o.h5:/at = arctanh(de)' --missing mask
	ok eval -i de=m.h5:/de -i dd=m.h5:/dd 'o.h5:/q = de / dd' --missing mask
	ok eval -i de=m.h5:/de -i dd=m.h5:/dd 'o.h5:/r = remainder(de, dd)' --missing mask
	ok eval -i df=m.h5:/df 'o.h5:/af = arctanh(df) + arcsin(df)' --missing mask
	ok eval -i de=m.h5:/de 'o.h5:/t = tan(de) + sqrt(-1)' --missing mask
	ref check o.h5:/at 'np.ma.arctanh(M("m.h5:/de"))' --masked default --fill default --ulp 4 :: \
		check o.h5:/q 'np.ma.divide(M("m.h5:/de"), M("m.h5:/dd"))' --masked default --fill default :: \
		check o.h5:/r 'np.ma.remainder(M("m.h5:/de"), M("m.h5:/dd"))' --masked default --fill default :: \
		check o.h5:/af 'np.ma.arctanh(M("m.h5:/df")) + np.ma.arcsin(M("m.h5:/df"))' --masked default --fill default \
			--rtol 6e-7 --scale 'abs(np.ma.arctanh(M("m.h5:/df"))) + abs(np.ma.arcsin(M("m.h5:/df")))' :: \
		check o.h5:/t 'np.ma.tan(M("m.h5:/de")) + np.ma.sqrt(-1)' --masked default --fill default
}

@test "--missing mask on a file without fill attributes gives exactly today's result" {
	ok call multiply m.h5:/p 2.5 -o o.h5:/plain
	ok call multiply m.h5:/p 2.5 --missing mask -o o.h5:/masked
	ok call add m.h5:/n m.h5:/k --missing mask -o o.h5:/nan
	ok eval -i k=m.h5:/k 'o.h5:/ik = k * 3 - 1' --missing mask
	h5diff o.h5 o.h5 /plain /masked
	run h5dump -A o.h5
	refute_output --partial _FillValue
	ref check o.h5:/masked 'M("m.h5:/p").data * 2.5' :: \
		check o.h5:/nan 'M("m.h5:/n").data + M("m.h5:/k").data' :: \
		check o.h5:/ik 'M("m.h5:/k").data * 3 - 1'
}

@test "--missing mask-nan: NaN is missing too; mask leaves it a value" {
	ok call negative m.h5:/n --missing mask-nan -o o.h5:/mn
	ok call negative m.h5:/n --missing mask -o o.h5:/m
	ref check o.h5:/mn 'np.ma.negative(M("m.h5:/n", nan=True))' --masked default --fill default :: \
		check o.h5:/m 'np.negative(M("m.h5:/n").data)'
}

@test "masked mode in recipes, in place, with where=, printed and in JSON" {
	cat > r.yaml <<-'EOF'
		defaults: {missing: mask}
		inputs: {t: m.h5:/t, q: m.h5:/q, w: m.h5:/mw}
		steps:
		  - {expr: log(t) * 2 + q, out: o.h5:/expr}
		  - {ufunc: sqrt, in: [t], where: w, out: o.h5:/both}
		  - {expr: t * 2, out: t}
	EOF
	ok run r.yaml
	ref check o.h5:/expr 'np.ma.log(M("m.h5:/t")) * 2 + M("m.h5:/q")' --masked default --fill default \
			--rtol 1e-6 --scale 'abs(np.ma.log(M("m.h5:/t")) * 2) + abs(M("m.h5:/q"))' :: \
		check o.h5:/both 'np.ma.array(np.ma.sqrt(M("m.h5:/t")), mask=np.ma.getmaskarray(np.ma.sqrt(M("m.h5:/t"))) | ~M("m.h5:/mw").data)' --masked -9999 --fill -9999 :: \
		check m.h5:/t '(M("m.h5:/t") * np.float32(2)).filled(np.float32(-9999))'
	fixture m.h5
	ok call add m.h5:/q 10 --missing mask --where m.h5:/mw -o m.h5:/q
	# masked where written as q's own first missing_value (it has no _FillValue)
	ref check m.h5:/q 'np.where(M("m.h5:/mw").data, (M("m.h5:/q") + 10).filled(2.0), M("m.h5:/q").data)'
	fixture m.h5
	run --separate-stderr h5u eval -i t=m.h5:/t 'sqrt(t)' --missing mask
	assert_success
	ref printed 'np.ma.sqrt(M("m.h5:/t"))' <<<"$output"
	run --separate-stderr h5u call log m.h5:/p --missing mask --json
	assert_success
	/usr/bin/python3 -c '
import json, sys, h5py, numpy as np
doc = json.loads(sys.stdin.read())
r = np.array(doc["result"], dtype=object)
p = h5py.File(sys.argv[1] + "/orig-m.h5")["p"][()]
with np.errstate(all="ignore"):
    want = np.ma.log(p)
for got, v, m in zip(r.ravel(), want.data.ravel(), np.ma.getmaskarray(want).ravel()):
    assert (got is None) == bool(m) and (m or got == v), (got, v, m)
assert doc["steps"][0]["outputs"][0]["masked"] == np.ma.count_masked(want), doc["steps"][0]' "$BATS_FILE_TMPDIR" <<<"$output"
	run --separate-stderr mpi 3 h5ufunc call divmod m.h5:/q m.h5:/k --missing mask --json -o o.h5:/dq,o.h5:/dr
	assert_success
	/usr/bin/python3 -c '
import json, sys, h5py, numpy as np
outs = json.loads(sys.stdin.read())["steps"][0]["outputs"]
f = h5py.File(sys.argv[1] + "/orig-m.h5")
q, k = f["q"][()], f["k"][()]
n = np.count_nonzero((q == 2) | (q == 3))   # divmod: no domain in numpy.ma
assert [o["masked"] for o in outs] == [n, n], (outs, n)' "$BATS_FILE_TMPDIR" <<<"$output"
}

@test "elements where= leaves out or masks hide raise nothing: an integer to a negative power" {
	ok eval -i i=f.h5:/i 'o.h5:/pw = 2 ** i' --where 'i >= 0'
	ref check o.h5:/pw 'np.power(np.int32(2), i, where=i >= 0, out=np.full(i.shape, fill(np.int32)))' --fill default
	run --separate-stderr mpi 3 h5ufunc call power m.h5:/k m.h5:/r --missing mask --memory 2K -o o.h5:/pm
	assert_success
	ok reduce power m.h5:/r --axis 0 --missing mask -o o.h5:/rp
	ref check o.h5:/pm 'np.ma.array(np.power(M("m.h5:/k").data, M("m.h5:/r").filled(1)), mask=M("m.h5:/r").mask)' --masked default --fill default :: \
		check o.h5:/rp 'skip_reduce(np.power, M("m.h5:/r"), 0)' --masked default --fill default
	# selected elements still raise, and so does the where= operand itself
	run --separate-stderr h5u eval -i i=f.h5:/i 'o.h5:/e1 = 2 ** i' --where 'i < 5'
	assert_error 1 "eval: Integers to negative integer powers are not allowed."
	run --separate-stderr h5u eval -i i=f.h5:/i 'o.h5:/e2 = i + 1' --where '2 ** i > 0'
	assert_error 1 "eval: Integers to negative integer powers are not allowed."
}

@test "masked mode: a bad mode, and NumPy's refusals of reductions with no identity" {
	snapshot
	run --separate-stderr h5u reduce divide m.h5:/t --axis all --missing mask -o o.h5:/s
	assert_error 2 "reduce divide: reduction operation 'divide' is not reorderable, so at most one axis may be specified"
	run --separate-stderr h5u reduce power 'm.h5:/t[0:0]' --missing mask -o o.h5:/s
	assert_error 2 "reduce power: zero-size array to reduction operation power which has no identity"
	printf 'inputs:\n  t: m.h5:/t\nsteps:\n  - ufunc: sqrt\n    in: t\n    missing: yes\n    out: o.h5:/s\n' > r.yaml
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:6:14: 'missing' must be cf, mask, mask-nan, raw or off, found 'yes'"
	run --separate-stderr h5u call sqrt m.h5:/t --missing maybe -o o.h5:/s
	assert_error 2 "call sqrt: --missing: 'maybe' is not one of cf, mask, mask-nan, raw, off"
	rm r.yaml
	assert_unchanged
}

@test "masked mode on 1, 2, 3 and 4 ranks and a small --memory: the same bytes, numpy.ma's values" {
	cat > r.yaml <<-'EOF'
		defaults: {missing: mask}
		steps:
		  - {expr: sqrt(t) - q, out: o.h5:/a}
		  - {ufunc: floor_divide, in: [m.h5:/r, m.h5:/k], out: o.h5:/b}
		  - {ufunc: add, in: ['era.nc:/t2m[1:3]', 1], out: o.h5:/c}
		inputs: {t: m.h5:/t, q: m.h5:/q}
	EOF
	same_bytes /a /b /c
	ref check o.h5:/a 'np.ma.sqrt(M("m.h5:/t")) - M("m.h5:/q")' --masked default --fill default :: \
		check o.h5:/b 'np.ma.floor_divide(M("m.h5:/r"), M("m.h5:/k"))' --masked default --fill default :: \
		check o.h5:/c 'M("era.nc:/t2m")[1:3] + np.float32(1)' --masked -9999 --fill -9999
}

# ---- masked reductions ---------------------------------------------------

@test "reduce --missing mask skips masked elements as numpy.ma; all-masked results are masked" {
	ok reduce add m.h5:/g --missing mask -o o.h5:/s0
	ok reduce maximum m.h5:/g --axis 1 --keepdims --missing mask -o o.h5:/mx
	ok reduce minimum m.h5:/q --axis 1 --missing mask -o o.h5:/mn
	ok reduce multiply m.h5:/r --axis 0 --missing mask -o o.h5:/p
	ok reduce add m.h5:/t --axis all --missing mask --fill 0 -o o.h5:/all
	ok reduce fmin m.h5:/v --axis 0 --missing mask -o o.h5:/fm
	ok reduce maximum era.nc:/t2m --axis time --missing mask -o o.h5:/tmax
	ok reduce add m.h5:/t --axis 1 --where m.h5:/mw --missing mask -o o.h5:/w
	ref check o.h5:/s0 'np.ma.sum(M("m.h5:/g"), axis=0)' --masked -1 --fill -1 --rtol 1e-12 \
			--scale 'np.ma.sum(abs(M("m.h5:/g")), axis=0)' :: \
		check o.h5:/mx 'M("m.h5:/g").max(axis=1, keepdims=True)' --masked -1 --fill -1 :: \
		check o.h5:/mn 'M("m.h5:/q").min(axis=1)' --masked default --fill default :: \
		check o.h5:/p 'M("m.h5:/r").prod(axis=0)' --masked default --fill default :: \
		check o.h5:/all 'M("m.h5:/t").sum()' --masked 0 --fill 0 --rtol 1e-6 --scale 'abs(M("m.h5:/t")).sum()' :: \
		check o.h5:/fm 'M("m.h5:/v").min(axis=0)' --masked default --fill default :: \
		check o.h5:/tmax 'M("era.nc:/t2m").max(axis=0)' --masked -9999 --fill -9999 :: \
		check o.h5:/w 'np.ma.array(np.add.reduce(M("m.h5:/t").filled(0), axis=1, where=M("m.h5:/mw").data), mask=~np.any(~np.ma.getmaskarray(M("m.h5:/t")) & M("m.h5:/mw").data, axis=1))' --masked -9999 --fill -9999 --rtol 1e-6 \
			--scale 'np.add.reduce(abs(M("m.h5:/t")).filled(0), axis=1, where=M("m.h5:/mw").data)'
}

@test "masked reductions printed with --, counted in --json, the same bytes on 1 to 4 ranks and a small --memory" {
	run --separate-stderr h5u reduce maximum m.h5:/g --axis 1 --missing mask
	assert_success
	ref printed 'M("m.h5:/g").max(axis=1)' <<<"$output"
	run --separate-stderr mpi 3 h5ufunc reduce minimum m.h5:/g --axis 1 --missing mask --json -o o.h5:/j
	assert_success
	/usr/bin/python3 -c 'import json, sys; sys.path.insert(0, sys.argv[1]); import where_ref as w, numpy as np
doc = json.loads(sys.stdin.read())
assert doc["steps"][0]["outputs"][0]["masked"] == np.ma.count_masked(w.masked("m.h5:/g").min(axis=1)), doc' "$H5U_TESTS" <<<"$output"
	# One step a reduction, each planned as its one-liner is.
	cat > r.yaml <<-'EOF'
		defaults: {missing: mask}
		steps:
		  - {reduce: add, in: m.h5:/g, axis: 0, out: o.h5:/a0}
		  - {reduce: add, in: m.h5:/g, axis: 1, out: o.h5:/a1}
		  - {reduce: add, in: m.h5:/g, axis: null, out: o.h5:/aall}
		  - {reduce: maximum, in: 'era.nc:/t2m[1:]', axis: 0, out: o.h5:/t}
	EOF
	local n mem
	for n in 1 2 3 4; do
		for mem in 256M 24K; do   # 24K: two blocks (rows, columns), three tree chunks
			rm -f o.h5
			run --separate-stderr mpi "$n" h5ufunc run --memory "$mem" r.yaml
			assert_success
			h5dump -d /a0 -d /a1 -d /aall -d /t o.h5 > "dump-$n-$mem"
			cmp "dump-1-256M" "dump-$n-$mem"
		done
	done
	ref check o.h5:/a0 'np.ma.sum(M("m.h5:/g"), axis=0)' --masked -1 --fill -1 --rtol 1e-12 \
			--scale 'np.ma.sum(abs(M("m.h5:/g")), axis=0)' :: \
		check o.h5:/a1 'np.ma.sum(M("m.h5:/g"), axis=1)' --masked -1 --fill -1 --rtol 1e-12 \
			--scale 'np.ma.sum(abs(M("m.h5:/g")), axis=1)' :: \
		check o.h5:/aall 'np.ma.sum(M("m.h5:/g"))' --masked -1 --fill -1 --rtol 1e-12 \
			--scale 'np.ma.sum(abs(M("m.h5:/g")))' :: \
		check o.h5:/t 'M("era.nc:/t2m")[1:].max(axis=0)' --masked -9999 --fill -9999
}

@test "a product that over- and underflows: NumPy's saturated 0 or inf, not inf*0's NaN, raw and masked, float16 and float32, 1 to 4 ranks" {
	# NumPy's running product, once 0 (or inf), stays so unless an element
	# is inf (or 0); h5ufunc once chained the products of 8192-element
	# pieces, where a piece's overflow met the chain's underflow gave NaN
	# (-0 in NumPy for a float16 one of 24,769 elements).  Random
	# data whose NumPy product saturates; seed 0 of each dtype also holds a
	# real 0 and a later real inf: NaN for both
	/usr/bin/python3 - <<-'EOF'
		import h5py, numpy as np
		cases = []
		for dt in ('float16', 'float32'):
		    found = 0
		    for seed in range(40):
		        rng = np.random.default_rng(seed)
		        x = (rng.standard_normal(24769) * 1.9).astype(dt)
		        m = rng.random(24769) < 0.1
		        if found == 0:
		            x[100], x[20000] = 0, np.inf
		        fill = np.asarray(-999, dt)
		        xm = x.copy(); xm[m] = fill
		        with np.errstate(all='ignore'):
		            want = [np.multiply.reduce(x), np.ma.masked_array(xm, m).prod()]
		        if any(np.isfinite(w) and w != 0 for w in want):
		            continue
		        with h5py.File(f'p{dt}{found}.h5', 'w') as f:
		            f['raw'] = x
		            f.create_dataset('m', data=xm).attrs['_FillValue'] = fill
		        cases += [f'p{dt}{found}.h5:/raw {float(want[0])!r}', f'p{dt}{found}.h5:/m {float(want[1])!r}']
		        found += 1
		        if found == 4:
		            break
		open('cases', 'w').write('\n'.join(cases) + '\n')
	EOF
	local ref want n got cases
	mapfile -t cases <cases   # mpirun reads standard input: not the list
	((${#cases[@]} == 16)) || fail "${#cases[@]} cases"
	for ref in "${cases[@]}"; do
		want=${ref#* } ref=${ref%% *}
		for n in 0 1 2 3 4; do
			if ((n)); then
				got=$(mpi "$n" h5ufunc reduce multiply "$ref" --axis all --memory 1M)
			else
				got=$(h5u reduce multiply "$ref" --axis all --memory 1M)
			fi
			[[ $got == "$want" ]] || fail "$ref on $n ranks (0: no launcher): $got, NumPy $want"
		done
	done
}

@test "accumulate --missing mask as np.ma.cumsum and cumprod: masked elements count as nothing and stay masked" {
	ok accumulate add m.h5:/t --missing mask -o o.h5:/c0
	ok accumulate add m.h5:/q --axis 1 --missing mask -o o.h5:/c1
	ok accumulate multiply m.h5:/r --missing mask -o o.h5:/p
	ok accumulate maximum m.h5:/t --axis 1 --missing mask -o o.h5:/mx
	ok accumulate minimum m.h5:/r --missing mask --fill 7 -o o.h5:/mn
	ok accumulate logaddexp m.h5:/v --missing mask -o o.h5:/l
	ref check o.h5:/c0 'M("m.h5:/t").cumsum(axis=0)' --masked -9999 --fill -9999 :: \
		check o.h5:/c1 'M("m.h5:/q").cumsum(axis=1)' --masked default --fill default :: \
		check o.h5:/p 'M("m.h5:/r").cumprod(axis=0)' --masked default --fill default :: \
		check o.h5:/mx 'np.ma.array(np.maximum.accumulate(M("m.h5:/t").filled(-np.inf), axis=1), mask=M("m.h5:/t").mask)' --masked -9999 --fill -9999 :: \
		check o.h5:/mn 'np.ma.array(np.minimum.accumulate(M("m.h5:/r").filled(32767), axis=0), mask=M("m.h5:/r").mask)' --masked 7 --fill 7 :: \
		check o.h5:/l 'np.ma.array(np.logaddexp.accumulate(M("m.h5:/v").filled(-np.inf), axis=0), mask=M("m.h5:/v").mask)' --masked default --fill default
	run --separate-stderr h5u accumulate add m.h5:/t --axis 1 --missing mask
	assert_success
	ref printed 'M("m.h5:/t").cumsum(axis=1)' <<<"$output"
	cat > r.yaml <<-'EOF'
		defaults: {missing: mask}
		steps:
		  - {accumulate: add, in: m.h5:/g, out: o.h5:/a0}
		  - {accumulate: maximum, in: m.h5:/g, axis: 1, out: o.h5:/a1}
	EOF
	local n mem
	for n in 1 2 3 4; do
		for mem in 256M 4K; do
			rm -f o.h5
			run --separate-stderr mpi "$n" h5ufunc run --memory "$mem" r.yaml
			assert_success
			h5dump -d /a0 -d /a1 o.h5 > "dump-$n-$mem"
			cmp "dump-1-256M" "dump-$n-$mem"
		done
	done
	ref check o.h5:/a0 'M("m.h5:/g").cumsum(axis=0)' --masked -1 --fill -1 :: \
		check o.h5:/a1 'np.ma.array(np.maximum.accumulate(M("m.h5:/g").filled(-np.inf), axis=1), mask=M("m.h5:/g").mask)' --masked -1 --fill -1
}

@test "masked reduce and accumulate with no identity: numpy.ma's fill, else masked elements skipped; 1 to 4 ranks" {
	ok reduce subtract m.h5:/t --axis 0 --missing mask -o o.h5:/s0
	ok accumulate subtract m.h5:/q --axis 1 --missing mask -o o.h5:/s1
	ok reduce power m.h5:/n --axis 1 --missing mask-nan -o o.h5:/pw
	ref check o.h5:/s0 'np.ma.subtract.reduce(M("m.h5:/t"), axis=0)' --masked -9999 --fill -9999 :: \
		check o.h5:/s1 'np.ma.array(np.ma.subtract.accumulate(M("m.h5:/q"), axis=1), mask=M("m.h5:/q").mask)' --masked default --fill default :: \
		check o.h5:/pw 'skip_reduce(np.power, M("m.h5:/n", nan=True), 1)' --masked default --fill default --rtol 1e-13
	run --separate-stderr h5u reduce divide m.h5:/g --axis 1 --missing mask
	assert_success
	ref printed 'skip_reduce(np.divide, M("m.h5:/g"), 1)' <<<"$output"
	cat > r.yaml <<-'EOF'
		defaults:
		  missing: mask
		steps:
		  - {reduce: divide, in: m.h5:/g, axis: 0, out: o.h5:/d0}
		  - {reduce: floor_divide, in: m.h5:/g, axis: 1, out: o.h5:/d1}
		  - {accumulate: floor_divide, in: m.h5:/r, out: o.h5:/a0}
		  - {accumulate: divide, in: m.h5:/g, axis: 1, out: o.h5:/a1}
		  - {reduce: subtract, in: big.h5:/y, where: big.h5:/yw, initial: 1, missing: off, out: o.h5:/w0}
		  - {reduce: subtract, in: big.h5:/y, axis: 1, where: big.h5:/yr, initial: 1, missing: off, out: o.h5:/w1}
	EOF
	local n mem
	for n in 1 2 3 4; do
		for mem in 256M 6K; do   # 6K: several blocks of rows, of columns, along the scan's axis
			rm -f o.h5
			run --separate-stderr mpi "$n" h5ufunc run --memory "$mem" r.yaml
			assert_success
			h5dump -d /d0 -d /d1 -d /a0 -d /a1 -d /w0 -d /w1 o.h5 > "dump-$n-$mem"
			cmp "dump-1-256M" "dump-$n-$mem"
		done
	done
	ref check o.h5:/d0 'skip_reduce(np.divide, M("m.h5:/g"), 0)' --masked -1 --fill -1 :: \
		check o.h5:/d1 'skip_reduce(np.floor_divide, M("m.h5:/g"), 1)' --masked -1 --fill -1 :: \
		check o.h5:/a0 'skip_accumulate(np.floor_divide, M("m.h5:/r"), 0)' --masked default --fill default :: \
		check o.h5:/a1 'skip_accumulate(np.divide, M("m.h5:/g"), 1)' --masked -1 --fill -1 :: \
		check o.h5:/w0 'np.subtract.reduce(y, axis=0, where=yw, initial=1)' :: \
		check o.h5:/w1 'np.subtract.reduce(y, axis=1, where=yr, initial=1)'
}

# ---- masked intermediates: their mask plane --------------------------------

@test "named intermediates keep their mask beside them: a bool's valid False, where='s cells, @, reduce, accumulate, reduceat read as numpy.ma; 1 to 4 ranks" {
	cat > r.yaml <<-'EOF2'
		inputs: {t: m.h5:/t, p: m.h5:/p, w: m.h5:/mw, s: 'm.h5:/t[0:5, 0:4]'}
		steps:
		  - {expr: t > 0, out: b}
		  - {expr: b + 0, out: o.h5:/int}
		  - {reduce: add, in: b, axis: 0, out: o.h5:/count}
		  - {accumulate: add, in: b, axis: 1, out: o.h5:/cum}
		  - {reduceat: add, in: b, indices: [0, 2, 5], axis: 0, out: o.h5:/seg}
		  - {expr: b @ s, out: o.h5:/mm}
		  - {expr: p > 0, where: w, out: gt}
		  - {expr: gt + t, out: o.h5:/gw}
		  - {expr: 'minimum(t, -9999)', out: mn}
		  - {expr: mn + 0, fill: 1, out: o.h5:/mn}
	EOF2
	same_bytes /int /count /cum /seg /mm /gw /mn
	local b='(M("m.h5:/t") > 0)'
	local gt='np.ma.array(np.greater(M("m.h5:/p").data, 0, where=M("m.h5:/mw").data, out=np.zeros((6, 5), bool)), mask=~M("m.h5:/mw").data)'
	ref check o.h5:/int "$b + 0" --masked default --fill default :: \
		check o.h5:/count "np.ma.sum($b, axis=0)" --masked default --fill default :: \
		check o.h5:/cum "np.ma.cumsum($b, axis=1)" --masked default --fill default :: \
		check o.h5:/seg "np.ma.array(np.add.reduceat($b.filled(0), [0, 2, 5], axis=0), mask=np.logical_and.reduceat(np.ma.getmaskarray($b), [0, 2, 5], axis=0))" --masked default --fill default :: \
		check o.h5:/mm "np.ma.dot($b, M('m.h5:/t')[0:5, 0:4], strict=False)" --masked default --fill default :: \
		check o.h5:/gw "$gt + M('m.h5:/t')" --masked default --fill default :: \
		check o.h5:/mn 'np.ma.minimum(M("m.h5:/t"), np.float32(-9999)) + np.float32(0)' --masked 1 --fill 1
	# the plain bool pattern: isfinite kept and summed into counts
	printf 'inputs: {t: m.h5:/t}\nsteps:\n  - {ufunc: isfinite, in: t, out: v}\n  - {reduce: add, in: v, axis: 0, out: o.h5:/n}\n' > c.yaml
	ok run c.yaml
	ref check o.h5:/n 'np.ma.sum(np.ma.array(np.isfinite(M("m.h5:/t").data), mask=M("m.h5:/t").mask), axis=0)' --masked default --fill default
	# mask-nan: an intermediate's NaNs missing too, beside its plane
	printf 'inputs: {n: m.h5:/n, t: m.h5:/t}\nsteps:\n  - {expr: n * 1, where: t > 0, out: c}\n  - {expr: c + 1, missing: mask-nan, out: o.h5:/e}\n  - {reduce: add, in: c, axis: 0, missing: mask-nan, out: o.h5:/r}\n' > n.yaml
	ok run n.yaml
	local c='np.ma.array(M("m.h5:/n").data, mask=~(M("m.h5:/t") > 0).filled(False) | np.isnan(M("m.h5:/n").data))'
	ref check o.h5:/e "$c + 1" --masked default --fill default :: \
		check o.h5:/r "np.ma.sum($c, axis=0)" --masked default --fill default
}

@test "a final output holds its masked elements as its fill: a valid result equal to it is an error (exit 1), a bool is written as it is" {
	snapshot
	# numpy.ma's valid -9999 (t's fill, taken by the result) and int16's -32767 (the default fill)
	run --separate-stderr h5u call minimum m.h5:/t -9999 -o o.h5:/mn
	assert_error 1 "call minimum: a valid result equals -9999.0, the fill value that marks the missing elements of 'o.h5:/mn': it would read back as missing (choose another fill value: fill:, --fill)"
	run --separate-stderr mpi 3 h5ufunc call minimum m.h5:/r -32767 --memory 2K -o o.h5:/mr
	assert_error_once 1 "call minimum: a valid result equals -32767, the fill value that marks the missing elements of 'o.h5:/mr': it would read back as missing (choose another fill value: fill:, --fill)"
	local top
	top=$(/usr/bin/python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import os; os.environ["WHERE_FIXTURES"] = sys.argv[2]; import where_ref as w; print(repr(float(w.masked("m.h5:/t").max(axis=0)[1])))' "$H5U_TESTS" "$BATS_FILE_TMPDIR")
	run --separate-stderr mpi 3 h5ufunc reduce maximum m.h5:/t --axis 0 --fill "$top" -o o.h5:/mx
	assert_error_once_match 1 "reduce maximum: a valid result equals .*, the fill value that marks the missing elements of 'o.h5:/mx': .*"
	assert_unchanged
	ok call minimum m.h5:/t -9999 --fill 0 -o o.h5:/mn
	ok call minimum m.h5:/r -32767 --fill 0 -o o.h5:/mr
	ok call greater m.h5:/t 0 -o o.h5:/gt
	ref check o.h5:/mn 'np.ma.minimum(M("m.h5:/t"), np.float32(-9999))' --masked 0 --fill 0 :: \
		check o.h5:/mr 'np.ma.minimum(M("m.h5:/r"), np.int16(-32767))' --masked 0 --fill 0 :: \
		check o.h5:/gt 'M("m.h5:/t") > 0' --masked 0
}
