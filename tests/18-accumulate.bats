#!/usr/bin/env bats
# 18-accumulate.bats - `h5ufunc accumulate` and `accumulate:` steps against
# NumPy's np.UFUNC.accumulate(x, axis=, dtype=).
#
# Every binary one-output ufunc of `h5ufunc ufuncs` over every dtype NumPy
# accumulates (axis 0 and the last axis, one process and 3 ranks; tests/sweep.bash)
# and the pairs it refuses;
# every axis, the split axis 0 included, of 1-D, 2-D and 3-D inputs on no
# launcher and on 1, 2, 3 and 4 ranks; fewer rows than ranks; add,
# multiply, maximum, subtract, divide and the logical ufuncs; dtype=; empty
# axes; arrays many blocks long under a small --memory; printed results;
# NumPy's errors.  accumulate is NumPy's sequential fold, so every result is
# compared bit for bit, floats included (tests/reduce_ref.py; the
# transcendental ufuncs of SPEC 3.4 within 4 ULP a step).

load helper
load sweep

setup_file() {
	fixtures <<-'EOF'
		make f.h5:/x float64 6,4
		make f.h5:/c float64 5,4,3
		make f.h5:/k int16 5,4,3
		make f.h5:/u uint8 5,4,3
		make f.h5:/b bool 5,4,3
		make f.h5:/h float32 5,4,3
		make f.h5:/g float16 5,4,3 fill=pos
		make f.h5:/p float64 5,4,3 fill=pos
		make f.h5:/v float64 9
		make f.h5:/vi int32 9
		make f.h5:/s float64 () data=2.5
		make f.h5:/e0 float64 0,3
		make f.h5:/e1 float64 3,0
		make f.h5:/ei int32 0
		make small.h5:/two float64 2,3
		make small.h5:/twoi int64 2,3
		make small.h5:/pair float32 2
		make small.h5:/one int16 1,5
		make small.h5:/col float64 3,1
		make big.h5:/t float64 300,7,5
		make big.h5:/n float64 2000,3
		make big.h5:/z float64 100003
		make big.h5:/q float32 777,2
	EOF
	ref make-matrix "$BATS_FILE_TMPDIR/m.h5"
}


axis_cases() {
	cat <<-'EOF'
		c0 accumulate add f.h5:/c
		c1 accumulate add f.h5:/c --axis 1
		c2 accumulate add f.h5:/c --axis 2
		cm1 accumulate add f.h5:/c --axis -1
		cm3 accumulate add f.h5:/c --axis -3
		x0 accumulate add f.h5:/x
		x1 accumulate add f.h5:/x --axis 1
		v accumulate add f.h5:/v
		vi accumulate multiply f.h5:/vi
		vsub accumulate subtract f.h5:/v
		mulp0 accumulate multiply f.h5:/p
		mulp1 accumulate multiply f.h5:/p --axis 1
		mulk2 accumulate multiply f.h5:/k --axis 2
		maxc0 accumulate maximum f.h5:/c
		maxh1 accumulate maximum f.h5:/h --axis 1
		minu2 accumulate minimum f.h5:/u --axis 2
		fmaxc accumulate fmax f.h5:/c --axis 1
		subc0 accumulate subtract f.h5:/c
		subc1 accumulate subtract f.h5:/c --axis 1
		subk2 accumulate subtract f.h5:/k --axis 2
		divp0 accumulate divide f.h5:/p
		divh2 accumulate divide f.h5:/h --axis 2
		fdivk1 accumulate floor_divide f.h5:/k --axis 1
		addk0 accumulate add f.h5:/k
		addu1 accumulate add f.h5:/u --axis 1
		addb0 accumulate add f.h5:/b
		mulb2 accumulate multiply f.h5:/b --axis 2
		andb0 accumulate logical_and f.h5:/b
		orb1 accumulate logical_or f.h5:/b --axis 1
		xorb2 accumulate logical_xor f.h5:/b --axis 2
		bitxork accumulate bitwise_xor f.h5:/k --axis 1
		addh0 accumulate add f.h5:/h
		addg1 accumulate add f.h5:/g --axis 1
		mulg0 accumulate multiply f.h5:/g
		powg2 accumulate power f.h5:/g --axis 2
		laec0 accumulate logaddexp f.h5:/c
		hypc1 accumulate hypot f.h5:/c --axis 1
		dtk accumulate add f.h5:/k --dtype int16
		dtf32 accumulate add f.h5:/c --axis 1 --dtype float32
		dtf64 accumulate multiply f.h5:/u --axis 2 --dtype float64
		dti8 accumulate maximum f.h5:/b --dtype int8
		dtf16 accumulate add f.h5:/h --dtype float16
	EOF
}

@test "every binary one-output ufunc accumulates every dtype NumPy accumulates, axis 0, on one process and on 3 ranks" {
	sweep_matrix accumulate
}

@test "every binary one-output ufunc accumulates every dtype NumPy accumulates along the last axis, on one process and on 3 ranks" {
	sweep_matrix accumulate 1
}

@test "ufunc and dtype pairs NumPy cannot accumulate are refused: exit 2, one message, nothing written" {
	sweep_refused accumulate
}

@test "every axis, dtype= and the ufuncs that matter match NumPy bit for bit" {
	fixture f.h5
	axis_cases >cases.txt
	one_liners cases.txt out.h5
	run ref check cases.txt out.h5
	assert_success
	run np stored out.h5:/addk0 int64 5,4,3 :: stored out.h5:/addu1 uint64 5,4,3 :: \
		stored out.h5:/addb0 int64 5,4,3 :: stored out.h5:/andb0 bool 5,4,3 :: \
		stored out.h5:/dtk int16 5,4,3 :: stored out.h5:/addg1 float16 5,4,3 :: \
		stored out.h5:/dti8 int8 5,4,3
	assert_success
}

@test "accumulate: steps along every axis on no launcher and 1, 2, 3, 4 ranks: NumPy's bits" {
	fixture f.h5
	axis_cases >cases.txt
	same_on_ranks f.h5 "0 1 2 3 4"
}

@test "fewer rows or columns than ranks: 2 rows, 1 row, 1 column on 4 ranks" {
	fixture small.h5
	cat >cases.txt <<-'EOF'
		two0 accumulate add small.h5:/two
		two1 accumulate add small.h5:/two --axis 1
		sub0 accumulate subtract small.h5:/two
		mul0 accumulate multiply small.h5:/twoi
		max1 accumulate maximum small.h5:/twoi --axis 1
		pair accumulate add small.h5:/pair
		pairsub accumulate subtract small.h5:/pair
		one0 accumulate add small.h5:/one
		one1 accumulate add small.h5:/one --axis 1
		col0 accumulate add small.h5:/col
		col1 accumulate divide small.h5:/col --axis 1
	EOF
	ref recipe cases.txt one.h5 >one.yaml
	ref recipe cases.txt four.h5 >four.yaml
	run --separate-stderr h5u run one.yaml
	assert_success
	run --separate-stderr mpi 4 h5ufunc run four.yaml
	assert_success
	assert_stderr_empty
	run ref check cases.txt four.h5 :: same one.h5 four.h5
	assert_success
}

@test "a shared scan on 4 ranks of 2 rows: the ranks with none carry nothing into the combine" {
	# Along the split axis each rank's run total joins an exclusive scan
	# over the ranks; ranks 2 and 3 have no rows and no total.  min/max
	# have no identity, so an empty rank must be left out, not folded in.
	fixture small.h5
	cat >cases.txt <<-'EOF'
		addf accumulate add small.h5:/two
		mulf accumulate multiply small.h5:/two
		minf accumulate minimum small.h5:/two
		maxf accumulate maximum small.h5:/two
		addi accumulate add small.h5:/twoi
		muli accumulate multiply small.h5:/twoi
		mini accumulate minimum small.h5:/twoi
		maxi accumulate maximum small.h5:/twoi
		pmin accumulate minimum small.h5:/pair
		pmul accumulate multiply small.h5:/pair
	EOF
	same_on_ranks small.h5 "0 1 2 3 4"
}

@test "many blocks: --memory 64K and 1-4 ranks carry the running value across blocks and ranks" {
	fixture big.h5
	cat >cases.txt <<-'EOF'
		t0 accumulate add big.h5:/t
		t1 accumulate add big.h5:/t --axis 1
		t2 accumulate multiply big.h5:/t --axis 2
		tsub0 accumulate subtract big.h5:/t
		n0 accumulate add big.h5:/n
		n1 accumulate add big.h5:/n --axis 1
		z accumulate add big.h5:/z
		zmax accumulate maximum big.h5:/z
		q0 accumulate add big.h5:/q
		q64 accumulate add big.h5:/q --dtype float64
	EOF
	same_on_ranks big.h5 "1 2 3 4" 256M 64K
}

@test "empty axes accumulate to empty results of NumPy's shape and dtype, on 1 and 2 ranks" {
	fixture f.h5
	cat >cases.txt <<-'EOF'
		e00 accumulate add f.h5:/e0
		e01 accumulate maximum f.h5:/e0 --axis 1
		e10 accumulate subtract f.h5:/e1
		e11 accumulate minimum f.h5:/e1 --axis 1
		ei accumulate add f.h5:/ei
		eim accumulate multiply f.h5:/ei --dtype float32
	EOF
	one_liners cases.txt out.h5
	run ref check cases.txt out.h5
	assert_success
	run np stored out.h5:/e00 float64 0,3 :: stored out.h5:/e11 float64 3,0 :: \
		stored out.h5:/ei int64 0 :: stored out.h5:/eim float32 0
	assert_success
	ref recipe cases.txt two.h5 >two.yaml
	run --separate-stderr mpi 2 h5ufunc run two.yaml
	assert_success
	run ref same out.h5 two.h5
	assert_success
}

@test "printed results: one value a line, rows, and 2-D blocks" {
	fixture f.h5
	local id verb uf rest
	mkdir text
	cat >cases.txt <<-'EOF'
		v accumulate add f.h5:/v
		vi accumulate multiply f.h5:/vi
		x1 accumulate add f.h5:/x --axis 1
		x0 accumulate maximum f.h5:/x
		c2 accumulate add f.h5:/c --axis 2
		b0 accumulate logical_or f.h5:/b
		g1 accumulate add f.h5:/g --axis 1
		e accumulate add f.h5:/e0
	EOF
	while read -r id verb uf rest; do
		# shellcheck disable=SC2086
		h5u "$verb" "$uf" $rest >"text/$id.txt" || fail "h5ufunc $verb $uf $rest failed"
	done <cases.txt
	run ref text cases.txt text
	assert_success
	run --separate-stderr mpi 4 h5ufunc accumulate add f.h5:/c --axis 2
	assert_success
	assert_equal "$output" "$(cat text/c2.txt)"
}

@test "NumPy's errors: several axes, axis out of bounds, not binary, a scalar" {
	fixture f.h5
	snapshot
	numpy_errors 2 <<-'EOF'
		accumulate add f.h5:/c --axis 0,1|accumulate does not allow multiple axes
		accumulate maximum f.h5:/x --axis 1,0|accumulate does not allow multiple axes
		accumulate add f.h5:/c --axis 3|axis 3 is out of bounds for array of dimension 3
		accumulate subtract f.h5:/v --axis -2|axis -2 is out of bounds for array of dimension 1
		accumulate negative f.h5:/c|accumulate only supported for binary functions
		accumulate sqrt f.h5:/x --axis 1|accumulate only supported for binary functions
		accumulate divmod f.h5:/x|accumulate only supported for functions returning a single value
		accumulate add f.h5:/s|cannot accumulate on a scalar
	EOF
	assert_unchanged
	cat >r.yaml <<-'EOF'
		steps:
		  - accumulate: add
		    in: f.h5:/c
		    axis: [0, 2]
		    out: o.h5:/r
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:4:11: step 1 (accumulate add): accumulate does not allow multiple axes"
	assert_unchanged
}
