#!/usr/bin/env bats
# 16-complex.bats - complex64 and complex128 end to end: read and written as
# h5py stores them (a compound of two floats named r and i, any byte order
# in, native out), other compounds refused, NumPy's promotion with the real
# dtypes and weak literals, casting to and from real datasets, the complex
# loops through the whole program, printing (NumPy's str() of a complex
# scalar without its parentheses; [real, imaginary] in JSON), reduce add
# and accumulate multiply on 1 to 4 ranks, and expressions.  The loops
# themselves, value by value against NumPy, are 20-loops' (loopdump) and the
# casts and text forms 21-dtype's; here the values come from NumPy through
# tests/np.py and the Python snippets below.

load helper

setup_file() {
	fixtures <<-'EOF'
		make c.h5:/z64 complex64 6,4
		make c.h5:/z128 complex128 6,4
		make c.h5:/w64 complex64 6,4 seed=7
		make c.h5:/w128 complex128 6,4 seed=8
		make c.h5:/s64 complex64 ()
		make c.h5:/e128 complex128 0,4
		make c.h5:/f16 float16 6,4
		make c.h5:/f32 float32 6,4
		make c.h5:/f64 float64 6,4
		make c.h5:/i8 int8 6,4
		make c.h5:/u16 uint16 6,4
		make c.h5:/i32 int32 6,4
		make c.h5:/i64 int64 6,4
		make c.h5:/u64 uint64 6,4
		make c.h5:/b bool 6,4
		make c.h5:/row64 complex64 4
		make be.h5:/z64 complex64 6,4 order=big
		make be.h5:/z128 complex128 6,4 order=big
		make le.h5:/z128 complex128 6,4 order=little
		make t.h5:/f64 float64 4 data=[0.5,-1.0,2.0,3.5]
		make t.h5:/i32 int32 4 data=[1,-2,3,4]
		make t.h5:/z complex128 4 data=[1+2j,-0.5-1e-05j,3j,-1]
		make t.h5:/z64 complex64 4 data=[1+2j,-0.5-1e-05j,3j,-1]
		make big.h5:/z complex128 1237,7
		make big.h5:/w complex64 1237,7
		make big.h5:/v complex128 100003
		make small.h5:/z complex128 2,3
	EOF
	(cd "$BATS_FILE_TMPDIR" && /usr/bin/python3 - <<-'EOF'
		import h5py
		import numpy as np

		nan, inf = float("nan"), float("inf")
		# values whose text and JSON forms are worth checking
		special = [1 + 2j, -0.5 - 1e-05j, 3j, complex(0.0, -0.0), complex(-0.0, 0.0),
		           complex(-0.0, -0.0), 0j, complex(nan, 1), complex(1, nan),
		           complex(0, nan), complex(inf, -inf), complex(-inf, 0), complex(0, -inf),
		           100 + 1.5j, 1e20 + 1e-5j, 0.1 + 0.2j, complex(123456789.0, 1e16),
		           complex(5e-324, -1.7976931348623157e308)]
		rng = np.random.default_rng(16)
		# factors of modulus near 1, so that long products stay finite
		unit = np.exp(1j * rng.uniform(-3, 3, (50, 5))) * rng.uniform(0.98, 1.02, (50, 5))
		with h5py.File("p.h5", "w") as f:
		    f["v128"] = np.array(special, np.complex128)
		    f["v64"] = np.array(special, np.complex64)
		    f["m"] = np.array([[1 + 1j, 2, -3j], [0.5 - 0.25j, nan, complex(0, -0.0)]])
		with h5py.File("acc.h5", "w") as f:
		    f["z"] = unit.astype(np.complex128)
		    f["w"] = unit.astype(np.complex64)
		# compounds that are not h5py's complex
		with h5py.File("bad.h5", "w") as f:
		    f["ints"] = np.zeros(3, [("r", "<i4"), ("i", "<i4")])
		    f["swapped"] = np.zeros(3, [("i", "<f8"), ("r", "<f8")])
		    f["mixed"] = np.zeros(3, [("r", "<f4"), ("i", "<f8")])
		    f["orders"] = np.zeros(3, [("r", "<f8"), ("i", ">f8")])
		    f["three"] = np.zeros(3, [("r", "<f8"), ("i", "<f8"), ("k", "<f8")])
		    f["names"] = np.zeros(3, [("re", "<f8"), ("im", "<f8")])
		    f["halves"] = np.zeros(3, [("r", "<f2"), ("i", "<f2")])
	EOF
	)
}

# cref PYTHON: run the Python code PYTHON with numpy (np), h5py and
# read("FILE:/PATH") at hand; an exception (an assert) fails the test.
cref() {
	/usr/bin/python3 -c "
import json, sys
import h5py
import numpy as np
np.seterr(all='ignore')

def read(ref):
    name, path = ref.split(':', 1)
    with h5py.File(name, 'r') as f:
        return f[path][()]

def text(a):
    '''SPEC 1's layout, complex values as NumPy's str() without parentheses.'''
    a = np.asarray(a)
    s = lambda z: str(z).strip('()')
    if a.ndim == 0:
        return s(a[()])
    if a.ndim == 1:
        return '\n'.join(s(z) for z in a)
    return '\n'.join(' '.join(s(z) for z in row) for row in a)

$1"
}

@test "complex64 and complex128 are h5py's compound of r and i, scalars and empty arrays too" {
	fixture c.h5
	h5u call add c.h5:/z64 c.h5:/w64 -o o.h5:/a64
	h5u call add c.h5:/z128 c.h5:/w128 -o o.h5:/a128
	h5u call negative c.h5:/s64 -o o.h5:/s64
	h5u call conjugate c.h5:/e128 -o o.h5:/e128
	np check add c.h5:/z64 c.h5:/w64 -o o.h5:/a64 :: stored o.h5:/a64 complex64 6,4 :: \
		check add c.h5:/z128 c.h5:/w128 -o o.h5:/a128 :: stored o.h5:/a128 complex128 6,4 :: \
		check negative c.h5:/s64 -o o.h5:/s64 :: stored o.h5:/s64 complex64 "()" :: \
		check conjugate c.h5:/e128 -o o.h5:/e128 :: stored o.h5:/e128 complex128 0,4
	# exactly the fields r then i, native floats, no padding
	cref '
for path, part in (("a64", "<f4"), ("a128", "<f8"), ("s64", "<f4"), ("e128", "<f8")):
    with h5py.File("o.h5", "r") as f:
        t = f[path].id.get_type()
    assert t.get_class() == h5py.h5t.COMPOUND, path
    assert t.get_nmembers() == 2, path
    assert [t.get_member_name(k) for k in range(2)] == [b"r", b"i"], path
    size = np.dtype(part).itemsize
    assert [t.get_member_offset(k) for k in range(2)] == [0, size], path
    assert t.get_size() == 2 * size, path
    for k in range(2):
        m = t.get_member_type(k)
        assert m.get_class() == h5py.h5t.FLOAT and m.get_size() == size, path
        assert m.get_order() == h5py.h5t.ORDER_LE, path
'
}

@test "complex inputs of either byte order; results in native order" {
	fixture be.h5 le.h5 c.h5
	h5u call multiply be.h5:/z64 c.h5:/w64 -o o.h5:/m64
	h5u call subtract be.h5:/z128 le.h5:/z128 -o o.h5:/s128
	h5u call conjugate be.h5:/z128 -o o.h5:/c128
	np check multiply be.h5:/z64 c.h5:/w64 -o o.h5:/m64 :: stored o.h5:/m64 complex64 :: \
		check subtract be.h5:/z128 le.h5:/z128 -o o.h5:/s128 :: stored o.h5:/s128 complex128 :: \
		check conjugate be.h5:/z128 -o o.h5:/c128 :: stored o.h5:/c128 complex128
}

@test "compounds that are not h5py's complex are refused by name and type" {
	fixture bad.h5
	snapshot
	local path
	for path in ints swapped mixed orders three names halves; do
		run --separate-stderr h5u call add bad.h5:/"$path" 1 -o o.h5:/y
		assert_error 2 "call add: 'bad.h5:/$path' has unsupported type (compound)"
	done
	assert_unchanged
}

@test "promotion: NumPy's loops for complex with every real dtype, and weak literals" {
	fixture c.h5
	# p1 float16, p3 float32, ..., p17 bool with complex64; even: complex128
	local x y jobs=() n=0
	for x in f16 f32 f64 i8 u16 i32 i64 u64 b; do
		for y in z64 z128; do
			n=$((n + 1))
			h5u call add c.h5:/"$x" c.h5:/"$y" -o o.h5:/p$n
			h5u call multiply c.h5:/"$y" c.h5:/"$x" -o o.h5:/q$n
			jobs+=(:: check add c.h5:/"$x" c.h5:/"$y" -o o.h5:/p$n
				:: check multiply c.h5:/"$y" c.h5:/"$x" -o o.h5:/q$n)
		done
	done
	# the rules spelled out: float32 + complex64 stays complex64, int64 or
	# float64 with complex64 needs complex128; literals take the array's
	# complex dtype
	h5u call add c.h5:/z64 2.5 -o o.h5:/l1
	h5u call multiply -3 c.h5:/z64 -o o.h5:/l2
	h5u call power c.h5:/z128 2 -o o.h5:/l3
	h5u call divide c.h5:/z64 1e-3 -o o.h5:/l4
	np "${jobs[@]:1}" :: stored o.h5:/p1 complex64 :: stored o.h5:/p3 complex64 :: \
		stored o.h5:/p5 complex128 :: stored o.h5:/p7 complex64 :: \
		stored o.h5:/p9 complex64 :: stored o.h5:/p11 complex128 :: \
		stored o.h5:/p13 complex128 :: stored o.h5:/p17 complex64 :: \
		check add c.h5:/z64 2.5 -o o.h5:/l1 :: stored o.h5:/l1 complex64 :: \
		check multiply -3 c.h5:/z64 -o o.h5:/l2 :: stored o.h5:/l2 complex64 :: \
		check power c.h5:/z128 2 -o o.h5:/l3 :: stored o.h5:/l3 complex128 :: \
		check divide c.h5:/z64 1e-3 -o o.h5:/l4 :: stored o.h5:/l4 complex64
}

@test "--dtype: a complex loop for real inputs, complex64 for int64 under same_kind" {
	fixture c.h5
	h5u call add c.h5:/f32 c.h5:/f32 --dtype complex128 -o o.h5:/a
	h5u call add c.h5:/i64 c.h5:/z64 --dtype complex64 -o o.h5:/b
	h5u call sqrt c.h5:/f64 --dtype c16 -o o.h5:/c
	np check add c.h5:/f32 c.h5:/f32 --dtype complex128 -o o.h5:/a :: \
		check add c.h5:/i64 c.h5:/z64 --dtype complex64 -o o.h5:/b :: \
		check sqrt c.h5:/f64 --dtype complex128 -o o.h5:/c :: stored o.h5:/c complex128
	run --separate-stderr h5u call add c.h5:/i64 c.h5:/z64 --dtype complex64 --casting safe -o o.h5:/d
	assert_error 2 "call add: Cannot cast ufunc 'add' input 0 from int64 to complex64 with casting rule 'safe'"
}

@test "casting: complex into a real dataset only as unsafe, which keeps the real part" {
	fixture t.h5
	snapshot
	run --separate-stderr h5u call add t.h5:/f64 t.h5:/z -o t.h5:/f64
	assert_error 2 "call add: Cannot cast ufunc 'add' output from complex128 to float64 with casting rule 'same_kind'"
	assert_unchanged
	cp t.h5 orig.h5
	h5u call add t.h5:/f64 t.h5:/z --casting unsafe -o t.h5:/f64
	h5u call multiply t.h5:/i32 t.h5:/z --casting unsafe -o t.h5:/i32
	np check add orig.h5:/f64 orig.h5:/z --casting unsafe --into -o t.h5:/f64 :: \
		check multiply orig.h5:/i32 orig.h5:/z --casting unsafe --into -o t.h5:/i32
	# and a real dataset into a complex one in place, under same_kind
	h5u call multiply t.h5:/z t.h5:/f64 -o t.h5:/z
	np check multiply orig.h5:/z t.h5:/f64 --into -o t.h5:/z
}

@test "the complex loops through the program: arithmetic, comparisons, functions" {
	fixture c.h5
	local uf t jobs=()
	for t in 64 128; do
		for uf in add subtract multiply divide maximum minimum fmax fmin equal not_equal \
			less less_equal greater greater_equal logical_and logical_xor; do
			h5u call "$uf" c.h5:/z$t c.h5:/w$t -o o.h5:/"$uf$t"
			jobs+=(:: check "$uf" c.h5:/z$t c.h5:/w$t -o o.h5:/"$uf$t")
		done
		for uf in absolute conjugate negative positive square reciprocal rint sqrt exp \
			exp2 expm1 log log2 log10 log1p sin cos tan arcsinh tanh isnan isinf \
			isfinite logical_not; do
			h5u call "$uf" c.h5:/z$t -o o.h5:/"$uf$t"
			jobs+=(:: check "$uf" c.h5:/z$t -o o.h5:/"$uf$t")
		done
		h5u call power c.h5:/z$t 3 -o o.h5:/pow$t
		h5u call power c.h5:/z$t -2 -o o.h5:/npow$t
		jobs+=(:: check power c.h5:/z$t 3 -o o.h5:/pow$t
			:: check power c.h5:/z$t -2 -o o.h5:/npow$t)
	done
	np "${jobs[@]:1}"
}

@test "NumPy 2's complex sign (z/|z|) and 0**b (0 when real(b) > 0, else nan)" {
	fixture c.h5 t.h5
	h5u call sign c.h5:/z128 -o o.h5:/s128
	h5u call sign c.h5:/z64 -o o.h5:/s64
	# z/|z| part by part in the part type (no zeros or infinities here)
	local sign='
def sign(z):
    a = np.hypot(z.real, z.imag)
    s = np.empty_like(z)
    s.real, s.imag = z.real / a, z.imag / a
    return s
'
	cref "$sign"'
for t in ("128", "64"):
    z = read("c.h5:/z" + t)
    got = read("o.h5:/s" + t)
    assert got.dtype == z.dtype and got.tobytes() == sign(z).tobytes(), t
'
	run --separate-stderr h5u call sign t.h5:/z
	assert_success
	assert_output "$(cref "$sign"'print(text(sign(read("t.h5:/z"))))')"
	run --separate-stderr h5u call power 0 t.h5:/z
	assert_success
	assert_output "$(cref '
b = read("t.h5:/z")
print(text(np.where(b.real > 0, 0j, complex(np.nan, np.nan))))')"
}

@test "printing: complex as NumPy's str() without the parentheses, 2-D rows, JSON [re, im]" {
	fixture p.h5 c.h5
	local t
	for t in v128 v64; do
		run --separate-stderr h5u call positive p.h5:/$t
		assert_success
		assert_stderr_empty
		assert_output "$(cref "print(text(read('p.h5:/$t')))")"
	done
	run --separate-stderr h5u call conjugate p.h5:/m
	assert_success
	assert_output "$(cref "print(text(np.conjugate(read('p.h5:/m'))))")"
	run --separate-stderr h5u call add c.h5:/s64 1
	assert_success
	assert_output "$(cref "print(text(read('c.h5:/s64') + np.complex64(1)))")"
	# the NaN part is unsigned, a real part of +0 is left out, -0 is not
	run --separate-stderr h5u call positive 'p.h5:/v128[3:10]'
	assert_output "-0j
-0+0j
-0-0j
0j
nan+1j
1+nanj
nanj"
	h5u call positive p.h5:/v128 --json >out.json
	cref '
doc = json.load(open("out.json"))
v = read("p.h5:/v128")
num = lambda x: float(x) if isinstance(x, str) else x
got = [complex(num(re), num(im)) for re, im in doc["result"]]
assert len(got) == len(v)
for g, w in zip(got, v):
    for a, b in ((g.real, w.real), (g.imag, w.imag)):
        assert (np.isnan(a) and np.isnan(b)) or (a == b and np.signbit(a) == np.signbit(b)), (g, w)
assert all(isinstance(x, list) and len(x) == 2 for x in doc["result"])
'
}

@test "reduce of complex on every axis, the same bytes on 1 to 4 ranks, sums NumPy's bits" {
	fixture big.h5 small.h5
	local n
	for n in 1 2 3 4; do
		mpi $n h5ufunc reduce add big.h5:/z --axis 0 -o r$n.h5:/z0
		mpi $n h5ufunc reduce add big.h5:/z --axis 1 -o r$n.h5:/z1
		mpi $n h5ufunc reduce add big.h5:/w --axis all -o r$n.h5:/wall
		mpi $n h5ufunc reduce add big.h5:/v -o r$n.h5:/v
		mpi $n h5ufunc reduce add small.h5:/z --axis 0 -o r$n.h5:/s0
		mpi $n h5ufunc reduce multiply small.h5:/z --axis 1 -o r$n.h5:/m1
		mpi $n h5ufunc reduce maximum big.h5:/z --axis 0 -o r$n.h5:/max0
		mpi $n h5ufunc reduce minimum big.h5:/w --axis all -o r$n.h5:/minall
	done
	cref '
for n in "1234":
    r = "r%s.h5:/" % n
    # sums: the pairwise pieces of NumPy, chained in its order: its bits
    for src, path, axis in (("big.h5:/z", "z0", 0), ("big.h5:/z", "z1", 1),
                            ("big.h5:/w", "wall", None), ("big.h5:/v", "v", 0),
                            ("small.h5:/z", "s0", 0)):
        got, want = read(r + path), np.add.reduce(read(src), axis=axis)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (n, path)
    x = read("small.h5:/z")
    got, want = read(r + "m1"), np.multiply.reduce(x, axis=1)
    assert got.dtype == want.dtype and np.allclose(got, want, rtol=1e-14, atol=0)
    # no identity: the first element is copied in, then compared
    for src, path, uf, axis in (("big.h5:/z", "max0", np.maximum, 0), ("big.h5:/w", "minall", np.minimum, None)):
        got, want = read(r + path), uf.reduce(read(src), axis=axis)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (n, path)
    for path in ("z0", "z1", "wall", "v", "s0", "m1", "max0", "minall"):
        assert read(r + path).tobytes() == read("r1.h5:/" + path).tobytes(), (n, path)
'
}

@test "accumulate multiply of complex on both axes: NumPy's sequential product on 1 to 4 ranks" {
	fixture acc.h5
	local n
	for n in 1 2 3 4; do
		mpi $n h5ufunc accumulate multiply acc.h5:/z --axis 0 -o a$n.h5:/z0
		mpi $n h5ufunc accumulate multiply acc.h5:/z --axis 1 -o a$n.h5:/z1
		mpi $n h5ufunc accumulate multiply acc.h5:/w --axis 0 -o a$n.h5:/w0
		mpi $n h5ufunc accumulate add acc.h5:/w --axis 0 -o a$n.h5:/wsum
	done
	cref '
for n in "1234":
    a = "a%s.h5:/" % n
    for src, path, uf, axis in (("acc.h5:/z", "z0", np.multiply, 0), ("acc.h5:/z", "z1", np.multiply, 1),
                                ("acc.h5:/w", "w0", np.multiply, 0), ("acc.h5:/w", "wsum", np.add, 0)):
        got, want = read(a + path), uf.accumulate(read(src), axis=axis)
        assert got.dtype == want.dtype and got.shape == want.shape, (n, path)
        assert got.tobytes() == want.tobytes(), (n, path)
'
}

@test "complex in a recipe and in an expression, fused, as the chain of ufunc steps" {
	fixture c.h5
	cat >r.yaml <<-'EOF'
		inputs: {z: c.h5:/z64, w: c.h5:/z128, f: c.h5:/f32}
		steps:
		  - {expr: z * 2.5 + conjugate(w) - f, out: o.h5:/e}
		  - {ufunc: absolute, in: [z], out: o.h5:/abs}
		  - {reduce: add, in: z, axis: 1, out: o.h5:/sum}
	EOF
	h5u run r.yaml
	np let a multiply c.h5:/z64 2.5 :: let b conjugate c.h5:/z128 :: let c add a b :: \
		check subtract c c.h5:/f32 -o o.h5:/e :: stored o.h5:/e complex128 :: \
		check absolute c.h5:/z64 -o o.h5:/abs :: stored o.h5:/abs float32
	cref '
z = read("c.h5:/z64")
got, want = read("o.h5:/sum"), np.add.reduce(z, axis=1)
assert got.dtype == want.dtype and np.allclose(got, want, rtol=1e-6)
'
}

@test "the catalogue lists the complex loops in NumPy's order" {
	run --separate-stderr h5u ufuncs add
	assert_success
	assert_output --partial "FF->F DD->D"
	run --separate-stderr h5u ufuncs
	assert_success
	assert_line --regexp '^absolute 1 1 None .* d->d F->f D->d$'
	assert_line --regexp '^float_power 2 1 None dd->d DD->D$'
	assert_line --regexp '^equal 2 1 None .* dd->\? FF->\? DD->\?$'
}
