#!/usr/bin/env bats
# 17-reduce.bats - `h5ufunc reduce` and `reduce:` steps against NumPy's
# np.UFUNC.reduce(x, axis=, keepdims=, dtype=, initial=).
#
# Every binary one-output ufunc of `h5ufunc ufuncs` over every dtype (axis
# 0 and the last axis, on one process and on 3 ranks; tests/sweep.bash),
# and the pairs NumPy refuses; each axis,
# lists of axes, negative axes, `--axis all` / `axis: null`, keepdims,
# initial and dtype; zero-length axes with and without an identity; 0-d
# inputs; arrays with fewer rows than ranks; NumPy's errors (exit 2, nothing
# written); printed results; and the guarantee of h5ufunc(1): the same
# recipe of reductions and accumulates on 1, 2, 3 and 4 ranks and with
# --memory 256M and 160K writes the same bytes, NumPy's bits for float
# sums; sums over runs longer than NumPy's 8192-element buffer (1-D, all
# axes across row ends, trailing axes, keepdims, dtype=float64 of float32,
# float16, complex, a last axis under kept leading axes) are NumPy's bits
# on no launcher and 1 to 4 ranks under a budget that cuts them; a sum
# over all axes needs about one piece of 8192 elements of --memory; a
# sequential fold of a reduced last axis (complex multiply and add, int32
# add, float16 multiply) cut in blocks of whole pieces writes the bytes it
# writes with whole rows, on no launcher and 1-3 ranks, and needs one piece
# of --memory, not a row; a float16 subtract or divide along rows longer than
# 8192 elements is NumPy's bits (its first call folds the row's first 8192);
# which NaN maximum, minimum, fmax and fmin
# return among NaNs of both signs and several payloads (NumPy's bits, but
# its vector reduction of long rows: h5ufunc(1)), on 1 to 4 ranks.
# Expected values and the meaning of "equal" come from tests/reduce_ref.py
# (NumPy 2 rules on Debian's NumPy).
#
# A case is a line "ID VERB UFUNC OPERAND [OPTIONS]": the words after ID are
# an h5ufunc command line; one_liners runs them, reduce_ref.py checks them
# and writes them as one recipe.

load helper
load sweep

setup_file() {
	fixtures <<-'EOF'
		make f.h5:/x float64 6,4
		make f.h5:/i int32 6,4
		make f.h5:/c float64 5,4,3
		make f.h5:/k int16 5,4,3
		make f.h5:/u uint8 5,4,3
		make f.h5:/b bool 5,4,3
		make f.h5:/h float32 5,4,3
		make f.h5:/g float16 5,4,3 fill=pos
		make f.h5:/v float64 9
		make f.h5:/n float64 5,9 lo=0.5 hi=2
		make f.h5:/s float64 () data=2.5
		make f.h5:/si int8 () data=-7
		make f.h5:/e0 float64 0,3
		make f.h5:/e1 float64 3,0
		make f.h5:/ei int32 0
		make f.h5:/eb bool 0
		make small.h5:/two float64 2,3
		make small.h5:/twoi int64 2,3
		make small.h5:/twob bool 2,3
		make small.h5:/pair float32 2
		make small.h5:/one int16 1,5
		make big.h5:/x float64 1237,37
		make big.h5:/w float64 5003,5
		make big.h5:/y float64 211,13,7
		make big.h5:/z float64 100003
		make big.h5:/p float64 1237,37 fill=pos
		make long.h5:/v float64 70001
		make long.h5:/w float64 300,2000
		make long.h5:/y float64 3,5000,3
		make long.h5:/r float64 10,9000
		make long.h5:/f float32 7,20001
		make long.h5:/h float16 3,20001 lo=0 hi=1
		make long.h5:/c complex128 3,20001
		make long.h5:/m float64 3,2,20000
		make long.h5:/k float64 2,20000,1
		make long.h5:/z float64 20000 data=[-0.0]*20000
		make long.h5:/q float16 2,20001 lo=0.999 hi=1.001
		make long.h5:/s float16 3,20001 lo=-100 hi=100
		make long.h5:/e float16 3,16385 lo=-10 hi=10
		make rows.h5:/c complex128 28,31114 lo=0.705 hi=0.709
		make rows.h5:/d complex128 2,3,20000
		make rows.h5:/f complex64 4,20000 lo=0.705 hi=0.709
		make rows.h5:/g complex64 2,3,31114
		make rows.h5:/i int32 2,3,20000
		make rows.h5:/h float16 3,200000 lo=0.999 hi=1.001
	EOF
	ref make-matrix "$BATS_FILE_TMPDIR/m.h5"
}

REF=reduce_ref.py

# The binary one-output ufuncs of `h5ufunc ufuncs`: those reduce can take
# (not the generalized ones, listed with their core signatures).
reducible() {
	h5u ufuncs | awk '$2 == 2 && $3 == 1 && $5 !~ /^\(/ { print $1 }'
}

# printed CASES DIR: run every case without -o, its stdout to DIR/ID.txt.
printed() {
	local id verb uf rest failed=()
	mkdir -p "$2"
	while read -r id verb uf rest; do
		[[ -z $id || $id == \#* ]] && continue
		# shellcheck disable=SC2086
		h5u "$verb" "$uf" $rest >"$2/$id.txt" 2>err.txt ||
			failed+=("$id: h5ufunc $verb $uf $rest: $(cat err.txt)")
	done <"$1"
	((${#failed[@]} == 0)) || fail "$(printf '%s\n' "${failed[@]}")"
}

# The cases of the axis, keepdims, initial and dtype tests.
axis_cases() {
	cat <<-'EOF'
		add0 reduce add f.h5:/c
		add1 reduce add f.h5:/c --axis 1
		add2 reduce add f.h5:/c --axis 2
		addm1 reduce add f.h5:/c --axis -1
		add01 reduce add f.h5:/c --axis 0,1
		add02 reduce add f.h5:/c --axis 0,2
		add12 reduce add f.h5:/c --axis 1,2
		add20 reduce add f.h5:/c --axis 2,0
		addall reduce add f.h5:/c --axis all
		add012 reduce add f.h5:/c --axis 0,1,2
		addkeep0 reduce add f.h5:/c --keepdims
		addkeep12 reduce add f.h5:/c --axis 1,2 --keepdims
		addkeepall reduce add f.h5:/c --axis all --keepdims
		mulk0 reduce multiply f.h5:/k
		mulk02 reduce multiply f.h5:/k --axis 0,2
		addk reduce add f.h5:/k --axis all
		addu1 reduce add f.h5:/u --axis 1
		addb02 reduce add f.h5:/b --axis 0,2
		mulb reduce multiply f.h5:/b --axis all
		andb1 reduce logical_and f.h5:/b --axis 1
		orb reduce logical_or f.h5:/b --axis all
		xorb0 reduce logical_xor f.h5:/b
		andk reduce logical_and f.h5:/k --axis 0,2
		bitandk reduce bitwise_and f.h5:/k --axis 1,2
		bitoru reduce bitwise_or f.h5:/u --axis all
		maxh reduce maximum f.h5:/h --axis 0,1
		minh2 reduce minimum f.h5:/h --axis 2
		fmaxc reduce fmax f.h5:/c --axis all --keepdims
		addh reduce add f.h5:/h --axis all
		addg reduce add f.h5:/g --axis 0,2
		subc0 reduce subtract f.h5:/c
		subc1 reduce subtract f.h5:/c --axis 1
		subc2 reduce subtract f.h5:/c --axis -1 --keepdims
		divc0 reduce divide f.h5:/c
		powg1 reduce power f.h5:/g --axis 1
		pown1 reduce power f.h5:/n --axis 1
		subk0 reduce subtract f.h5:/k
		fdivk2 reduce floor_divide f.h5:/k --axis 2
		init5 reduce add f.h5:/c --initial 5
		init5all reduce add f.h5:/c --axis all --initial -2.5
		initmax reduce maximum f.h5:/k --axis 1 --initial 40
		initmin reduce minimum f.h5:/h --axis all --initial 0
		initmul reduce multiply f.h5:/k --axis 2 --initial 3
		initsub reduce subtract f.h5:/c --axis 1 --initial 100
		initand reduce logical_and f.h5:/b --axis 2 --initial false
		initfwrap reduce minimum f.h5:/si --axis all --initial 1e3
		initftrunc reduce add f.h5:/k --axis 1 --initial -2.9
		initfneg reduce maximum f.h5:/u --axis all --initial -1.5
		dtf32 reduce add f.h5:/c --axis 1 --dtype float32
		dti16 reduce add f.h5:/u --dtype int16
		dti8 reduce add f.h5:/k --axis all --dtype int8
		dtf64 reduce multiply f.h5:/h --axis 2 --dtype float64
		dtu8 reduce maximum f.h5:/b --axis 0 --dtype uint8
		dtkeep reduce add f.h5:/k --axis 0,1 --keepdims --dtype float64 --initial 1
		vec reduce add f.h5:/v
		vecsub reduce subtract f.h5:/v --axis all
		mat1 reduce maximum f.h5:/x --axis 1
		mati reduce add f.h5:/i --axis all
	EOF
}

@test "every binary one-output ufunc reduces every dtype NumPy reduces, axis 0, on one process and on 3 ranks" {
	sweep_matrix reduce
}

@test "every binary one-output ufunc reduces every dtype NumPy reduces along the last axis, on one process and on 3 ranks" {
	sweep_matrix reduce 1
}

@test "ufunc and dtype pairs NumPy cannot reduce are refused: exit 2, one message, nothing written" {
	sweep_refused reduce
	# NumPy's own words where they are plain text.
	ref raises reduce subtract m.h5:/bool -- 'numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the logical_xor function instead.'
	run --separate-stderr h5u reduce subtract m.h5:/bool -o out.h5:/r
	assert_error 2 'reduce subtract: numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the logical_xor function instead.'
	assert_unchanged
}

@test "each axis, lists of axes, all, keepdims, initial and dtype match NumPy" {
	fixture f.h5
	axis_cases >cases.txt
	one_liners cases.txt out.h5
	run ref check cases.txt out.h5
	assert_success
	run np stored out.h5:/add01 float64 3 :: stored out.h5:/addkeep12 float64 5,1,1 :: \
		stored out.h5:/addkeepall float64 1,1,1 :: stored out.h5:/addall float64 '()' :: \
		stored out.h5:/mulk0 int64 4,3 :: stored out.h5:/addu1 uint64 5,3 :: \
		stored out.h5:/addb02 int64 4 :: stored out.h5:/andb1 bool 5,3 :: \
		stored out.h5:/dti8 int8 '()' :: stored out.h5:/addg float16 4
	assert_success
}

@test "a float initial for an integer reduction is NumPy's: truncated, and NaN, infinities and values beyond a C long refused" {
	fixture f.h5
	# initial= is stored as NumPy's setitem stores a Python float: int(),
	# then C's cast (the cases above: 1e3 for int8 is -24); what int() or
	# a C long cannot hold is NumPy's error, before anything is written.
	cat >r.yaml <<-'EOF'
		steps:
		  - {reduce: add, in: f.h5:/i, axis: 0, out: f.h5:/sum}
		  - {reduce: maximum, in: f.h5:/k, initial: nan, out: f.h5:/max}
	EOF
	local ufunc operand initial message
	snapshot
	while read -r ufunc operand initial message; do
		ref raises reduce "$ufunc" "$operand" --initial "$initial" -- "$message"
		run --separate-stderr h5u reduce "$ufunc" "$operand" --initial "$initial" -o o.h5:/r
		assert_error 2 "reduce $ufunc: $message"
	done <<-'EOF'
		maximum f.h5:/ei nan cannot convert float NaN to integer
		add f.h5:/k inf cannot convert float infinity to integer
		minimum f.h5:/u -inf cannot convert float infinity to integer
		add f.h5:/i 1e30 Python int too large to convert to C long
		maximum f.h5:/si -1e19 Python int too large to convert to C long
	EOF
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:3:45: step 2 (reduce maximum): cannot convert float NaN to integer"
	assert_unchanged
}

@test "the same cases as reduce: steps, on one process and on 2 and 4 ranks" {
	fixture f.h5
	axis_cases >cases.txt
	ref recipe cases.txt one.h5 >one.yaml
	ref recipe cases.txt two.h5 >two.yaml
	ref recipe cases.txt four.h5 >four.yaml
	run --separate-stderr h5u run one.yaml
	assert_success
	assert_stderr_empty
	run --separate-stderr mpi 2 h5ufunc run two.yaml
	assert_success
	run --separate-stderr mpi 4 h5ufunc run four.yaml
	assert_success
	run ref check cases.txt one.h5 :: same one.h5 two.h5 four.h5
	assert_success
}

@test "axis: accepts an integer, a list, an empty list and null in a recipe" {
	fixture f.h5
	cat >r.yaml <<-'EOF'
		inputs: {c: f.h5:/c}
		steps:
		  - {reduce: add, in: c, out: o.h5:/default}
		  - {reduce: add, in: c, axis: -2, out: o.h5:/one}
		  - {reduce: add, in: c, axis: [2, 0], keepdims: true, out: o.h5:/list}
		  - {reduce: maximum, in: c, axis: null, initial: -100, out: o.h5:/all}
		  - {reduce: add, in: f.h5:/k, axis: [], out: o.h5:/none}
		  - {reduce: subtract, in: c, axis: [], out: o.h5:/nonesub}
	EOF
	run --separate-stderr h5u run r.yaml
	assert_success
	cat >cases.txt <<-'EOF'
		default reduce add f.h5:/c
		one reduce add f.h5:/c --axis -2
		list reduce add f.h5:/c --axis 2,0 --keepdims
		all reduce maximum f.h5:/c --axis all --initial -100
	EOF
	run ref check cases.txt o.h5
	assert_success
	# axis: [] reduces over no axis: NumPy gives the input (upcast by add).
	run /usr/bin/python3 -c '
import sys, h5py, numpy as np
f, o = h5py.File("f.h5"), h5py.File("o.h5")
bad = []
for name, ufunc, src in (("none", np.add, "k"), ("nonesub", np.subtract, "c")):
    want = ufunc.reduce(f[src][()], axis=())
    got = o[name][()]
    if got.dtype != want.dtype or got.shape != want.shape or got.tobytes() != want.tobytes():
        bad.append(f"{name}: {ufunc.__name__}.reduce(axis=()) gives {got.dtype} {got.shape} {got.ravel()[:4]}, NumPy {want.dtype} {want.shape} {want.ravel()[:4]}")
print("\n".join(bad))
sys.exit(1 if bad else 0)'
	assert_success
}

@test "zero-length axes: the identity or initial, on 1 and 2 ranks; without them NumPy's error" {
	fixture f.h5
	cat >cases.txt <<-'EOF'
		add0 reduce add f.h5:/e0
		add1 reduce add f.h5:/e0 --axis 1
		addall reduce add f.h5:/e0 --axis all
		mul1 reduce multiply f.h5:/e1 --axis 1
		mulkeep reduce multiply f.h5:/e1 --axis 1 --keepdims
		max1 reduce maximum f.h5:/e0 --axis 1
		max0init reduce maximum f.h5:/e0 --initial -inf
		minall reduce minimum f.h5:/e1 --axis all --initial 7
		sub1 reduce subtract f.h5:/e0 --axis 1
		addi reduce add f.h5:/ei
		muli reduce multiply f.h5:/ei --axis all
		andi reduce logical_and f.h5:/eb
		ori reduce logical_or f.h5:/eb
		bitand reduce bitwise_and f.h5:/ei
		lae reduce logaddexp f.h5:/e0
	EOF
	one_liners cases.txt out.h5
	run ref check cases.txt out.h5
	assert_success
	run np stored out.h5:/add0 float64 3 :: stored out.h5:/max1 float64 0 :: \
		stored out.h5:/addi int64 '()' :: stored out.h5:/mulkeep float64 3,1
	assert_success
	# The same as a recipe on 2 ranks.
	ref recipe cases.txt two.h5 >two.yaml
	run --separate-stderr mpi 2 h5ufunc run two.yaml
	assert_success
	run ref same out.h5 two.h5
	assert_success

	local ufunc operand axis
	snapshot
	while read -r ufunc operand axis; do
		# shellcheck disable=SC2086
		ref raises reduce "$ufunc" "$operand" $axis -- "zero-size array to reduction operation $ufunc which has no identity"
		# shellcheck disable=SC2086
		run --separate-stderr h5u reduce "$ufunc" "$operand" $axis -o o.h5:/r
		assert_error 2 "reduce $ufunc: zero-size array to reduction operation $ufunc which has no identity"
		# shellcheck disable=SC2086
		run --separate-stderr mpi 2 h5ufunc reduce "$ufunc" "$operand" $axis -o o.h5:/r
		assert_error_once 2 "reduce $ufunc: zero-size array to reduction operation $ufunc which has no identity"
	done <<-'EOF'
		maximum f.h5:/e0
		maximum f.h5:/e1 --axis 1
		minimum f.h5:/e0 --axis all
		subtract f.h5:/e0
		fmin f.h5:/ei
		divide f.h5:/e1 --axis -1
	EOF
	assert_unchanged
}

@test "0-d inputs: every axis spec NumPy allows gives the element; axis 1 is out of bounds" {
	fixture f.h5
	# NumPy reduces a 0-d array over no axis for the default axis, 0, -1
	# and None (its backward-compatible special case), so the result is
	# the element, in the reduction's dtype.
	cat >cases.txt <<-'EOF'
		all reduce add f.h5:/s --axis all
		default reduce add f.h5:/s
		zero reduce maximum f.h5:/s --axis 0
		minus reduce multiply f.h5:/si --axis -1
		keep reduce add f.h5:/s --axis all --keepdims
		maxinit reduce maximum f.h5:/si --axis all --initial 3
		mul reduce multiply f.h5:/si --axis all
		sub reduce subtract f.h5:/s --axis all
		subdefault reduce subtract f.h5:/si
		max reduce maximum f.h5:/s --axis all
		div reduce divide f.h5:/si --axis all
	EOF
	one_liners cases.txt out.h5
	run ref check cases.txt out.h5
	assert_success
	run np stored out.h5:/all float64 '()' :: stored out.h5:/mul int64 '()' :: stored out.h5:/minus int64 '()'
	assert_success
	run --separate-stderr h5u reduce add f.h5:/s --axis all
	assert_success
	assert_output "2.5"
	run --separate-stderr mpi 2 h5ufunc reduce subtract f.h5:/si
	assert_success
	assert_output "-7"
	snapshot
	ref raises reduce add f.h5:/s --axis 1 -- "axis 1 is out of bounds for array of dimension 0"
	run --separate-stderr h5u reduce add f.h5:/s --axis 1 -o o.h5:/r
	assert_error 2 "reduce add: axis 1 is out of bounds for array of dimension 0"
	assert_unchanged
}

@test "fewer rows than ranks: 2 and 1 rows on 4 ranks, every layout" {
	fixture small.h5
	cat >cases.txt <<-'EOF'
		add0 reduce add small.h5:/two
		add1 reduce add small.h5:/two --axis 1
		addall reduce add small.h5:/two --axis all
		addkeep reduce add small.h5:/two --axis 0,1 --keepdims
		sub0 reduce subtract small.h5:/two
		sub1 reduce subtract small.h5:/two --axis 1
		div0 reduce divide small.h5:/two
		max0 reduce maximum small.h5:/twoi
		mulall reduce multiply small.h5:/twoi --axis all
		sub0i reduce subtract small.h5:/twoi
		xor0 reduce logical_xor small.h5:/twob
		orall reduce logical_or small.h5:/twob --axis all
		vec reduce add small.h5:/pair
		vecsub reduce subtract small.h5:/pair
		vecmax reduce maximum small.h5:/pair --initial 0.5
		onerow reduce add small.h5:/one
		onerowall reduce add small.h5:/one --axis all
		onerow1 reduce minimum small.h5:/one --axis 1
	EOF
	ref recipe cases.txt one.h5 >one.yaml
	ref recipe cases.txt four.h5 >four.yaml
	ref recipe cases.txt three.h5 >three.yaml
	run --separate-stderr h5u run one.yaml
	assert_success
	run --separate-stderr mpi 4 h5ufunc run four.yaml
	assert_success
	assert_stderr_empty
	run --separate-stderr mpi 3 h5ufunc run three.yaml
	assert_success
	run ref check cases.txt four.h5 :: same one.h5 three.h5 four.h5
	assert_success
}

@test "NumPy's errors: not reorderable, not binary, axis out of bounds, duplicate axis" {
	fixture f.h5
	snapshot
	numpy_errors 3 <<-'EOF'
		reduce subtract f.h5:/c --axis 0,1|reduction operation 'subtract' is not reorderable, so at most one axis may be specified
		reduce divide f.h5:/c --axis all|reduction operation 'divide' is not reorderable, so at most one axis may be specified
		reduce power f.h5:/k --axis 2,1|reduction operation 'power' is not reorderable, so at most one axis may be specified
		reduce arctan2 f.h5:/x --axis all|reduction operation 'arctan2' is not reorderable, so at most one axis may be specified
		reduce negative f.h5:/c|reduce only supported for binary functions
		reduce sqrt f.h5:/c --axis 1|reduce only supported for binary functions
		reduce add f.h5:/c --axis 3|axis 3 is out of bounds for array of dimension 3
		reduce add f.h5:/c --axis -4|axis -4 is out of bounds for array of dimension 3
		reduce maximum f.h5:/c --axis 0,3|axis 3 is out of bounds for array of dimension 3
		reduce add f.h5:/c --axis 1,1|duplicate value in 'axis'
		reduce add f.h5:/c --axis 0,-3|duplicate value in 'axis'
	EOF
	assert_unchanged
	# Nor is a ufunc with two outputs.
	ref raises reduce divmod f.h5:/c -- "reduce only supported for functions returning a single value"
	run --separate-stderr h5u reduce divmod f.h5:/c -o o.h5:/r
	assert_error 2 "reduce divmod: reduce only supported for functions returning a single value"
	assert_unchanged
}

@test "a recipe's reduce error names the file, line, column and step; nothing is written" {
	fixture f.h5
	cat >r.yaml <<-'EOF'
		steps:
		  - ufunc: add
		    in: [f.h5:/c, 1]
		    out: first.h5:/c
		  - reduce: subtract
		    in: f.h5:/c
		    axis: [0, 1]
		    out: o.h5:/r
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:7:11: step 2 (reduce subtract): reduction operation 'subtract' is not reorderable, so at most one axis may be specified"
	assert_unchanged
	cat >r.yaml <<-'EOF'
		steps:
		  - reduce: maximum
		    in: f.h5:/e0
		    out: o.h5:/r
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error_match 2 "r\.yaml:[0-9]+:[0-9]+: step 1 \(reduce maximum\): zero-size array to reduction operation maximum which has no identity"
	assert_unchanged
}

@test "printed results: total=\$(h5ufunc reduce add f.h5:/x --axis all) is one number" {
	fixture f.h5
	local total
	total=$(h5u reduce add f.h5:/x --axis all)
	[[ $total =~ ^-?[0-9]+\.[0-9]+(e[-+]?[0-9]+)?$ ]] || fail "not one number: '$total'"
	cat >cases.txt <<-'EOF'
		total reduce add f.h5:/x --axis all
		itotal reduce add f.h5:/i --axis all
		col reduce add f.h5:/x
		row reduce maximum f.h5:/x --axis 1
		keep reduce add f.h5:/x --axis 1 --keepdims
		plane reduce add f.h5:/c --axis 2
		cube reduce minimum f.h5:/c --axis 1 --keepdims
		bools reduce logical_and f.h5:/b --axis 0,2
		half reduce maximum f.h5:/g --axis all
		empty reduce add f.h5:/e1 --axis 1
		scalar reduce add f.h5:/s --axis all
	EOF
	printed cases.txt text
	printf '%s\n' "$total" >text/total.txt
	run ref text cases.txt text
	assert_success
	# On 3 ranks the text is the same.
	run --separate-stderr mpi 3 h5ufunc reduce add f.h5:/c --axis 2
	assert_success
	assert_equal "$output" "$(cat text/plane.txt)"
}

@test "rank and memory invariance: 1-4 ranks, --memory 256M and 160K write the same bytes, NumPy's bits for sums" {
	fixture big.h5
	cat >cases.txt <<-'EOF'
		col reduce add big.h5:/x
		row reduce add big.h5:/x --axis 1
		all reduce add big.h5:/x --axis all
		keep reduce add big.h5:/x --axis 0,1 --keepdims
		few reduce add big.h5:/w
		fewall reduce add big.h5:/w --axis all
		vec reduce add big.h5:/z
		y01 reduce add big.h5:/y --axis 0,1
		y02 reduce add big.h5:/y --axis 0,2
		y12 reduce add big.h5:/y --axis 1,2
		yall reduce add big.h5:/y --axis all --initial 1.5
		prod reduce multiply big.h5:/p --axis 1
		lae reduce logaddexp big.h5:/x --axis all
		ymax reduce maximum big.h5:/y --axis 0,1 --initial 0
		sub reduce subtract big.h5:/x
		vsub reduce subtract big.h5:/z
		div reduce divide big.h5:/p --axis 1
		f32 reduce add big.h5:/x --axis all --dtype float32
		cum0 accumulate add big.h5:/x
		cum1 accumulate add big.h5:/x --axis 1
		cumw accumulate add big.h5:/w
		cumy0 accumulate add big.h5:/y
		cumy2 accumulate multiply big.h5:/y --axis 2
		cumz accumulate add big.h5:/z
		cumsub accumulate subtract big.h5:/y --axis 1
		cummax accumulate maximum big.h5:/x
	EOF
	same_on_ranks big.h5 "1 2 3 4" 256M 160K
}

@test "sums over runs longer than NumPy's 8192-element buffer: NumPy's bits on no launcher and 1-4 ranks, under a budget that cuts them" {
	fixture long.h5
	cat >cases.txt <<-'EOF'
		v reduce add long.h5:/v
		vi reduce add long.h5:/v --initial 2.5
		wall reduce add long.h5:/w --axis all
		w1 reduce add long.h5:/w --axis 1
		y12 reduce add long.h5:/y --axis 1,2
		r1 reduce add long.h5:/r --axis 1 --keepdims
		f64 reduce add long.h5:/f --axis 1 --dtype float64
		fall reduce add long.h5:/f --axis all
		h1 reduce add long.h5:/h --axis 1
		c1 reduce add long.h5:/c --axis 1
		k1 reduce add long.h5:/k --axis 1
		m02 reduce add long.h5:/m --axis 0,2
		mprod reduce multiply long.h5:/h --axis 0
		nz reduce add long.h5:/z --initial -0.0
	EOF
	same_on_ranks long.h5 "0 1 2 3 4" 400K
}

@test "a sequential fold cuts a row only between NumPy's 8192-element pieces: the same bytes on no launcher and 1-3 ranks, whole rows or cut" {
	fixture rows.h5
	cat >cases.txt <<-'EOF'
		cmul reduce multiply rows.h5:/c --axis 1
		cadd reduce add rows.h5:/d --axis 0,2
		fmul reduce multiply rows.h5:/f --axis -1
		fadd reduce add rows.h5:/g --axis 0,2
		iadd reduce add rows.h5:/i --axis 0,2
		hmul reduce multiply rows.h5:/h --axis 1
	EOF
	same_on_ranks rows.h5 "0 1 2 3" default 300K 600K
	# the budgets cut the rows: in blocks of one and of two pieces
	printf 'steps:\n  - reduce: multiply\n    in: rows.h5:/c\n    axis: 1\n    out: c.h5:/x\n' >c.yaml
	run --separate-stderr h5u check c.yaml --memory 300K
	assert_output --partial "blocks of 8192 along axis 1"
	run --separate-stderr h5u check c.yaml --memory 600K
	assert_output --partial "blocks of 16384 along axis 1"
}

@test "a float16 subtract or divide along rows longer than 8192: NumPy's first call holds the row's first element, its bits on no launcher and 1-3 ranks" {
	fixture long.h5
	# NumPy's float16 loop keeps its running value in float32 for a call
	# and rounds it at the end; the first call of a row folds elements 1 to
	# 8191 onto element 0, the next ones 8192 elements each.
	cat >cases.txt <<-'EOF'
		ssub reduce subtract long.h5:/s --axis 1
		esub reduce subtract long.h5:/e --axis -1 --keepdims
		qdiv reduce divide long.h5:/q --axis 1
	EOF
	same_on_ranks long.h5 "0 1 3" default 64K 300K
}

@test "a sequential fold needs one piece of 8192 elements of --memory, not a row" {
	fixture rows.h5
	h5u reduce multiply rows.h5:/c --axis 1 -o b.h5:/x --memory 300K
	run --separate-stderr h5u reduce multiply rows.h5:/c --axis 1 -o c.h5:/x --memory 64K
	assert_error 2 "reduce multiply: --memory 65536 bytes is too small for one block (8192 elements of every array need 262144 bytes)"
	[[ ! -e c.h5 ]]
}

@test "a row's result counts its bytes over the row, not a byte an element: whole chunk rows under a budget that holds them" {
	# 64 x 8192 float64 in chunks of 32 x 64, summed along axis 1: a box
	# of a chunk row (32 x 8192) holds 2 MiB of input and 32 results of 8
	# bytes; counted at a byte an element, 256 KiB more, the budget cut
	# the chunk rows to 30 lines.
	np <<-'EOF'
		make w.h5:/x float64 64,8192 fill=random layout=chunked chunks=32,64
	EOF
	printf 'inputs:\n  x: w.h5:/x\nsteps:\n  - reduce: add\n    in: x\n    axis: 1\n    out: b.h5:/s\n' >r.yaml
	run --separate-stderr h5u check r.yaml --memory 2240K --json
	assert_success
	assert_output --partial 'boxes (32, 8192), 2 boxes'
	h5u run r.yaml --memory 2240K
	h5u reduce add w.h5:/x --axis 1 -o a.h5:/s
	cat >cases.txt <<-'EOF'
		s reduce add w.h5:/x --axis 1
	EOF
	run ref check cases.txt a.h5 :: same a.h5 b.h5
	assert_success
}

@test "a sum over all axes needs about one piece of 8192 elements of --memory" {
	fixture big.h5
	h5u reduce add big.h5:/x --axis all -o a.h5:/s
	h5u reduce add big.h5:/x --axis all -o b.h5:/s --memory 72K
	h5u reduce add big.h5:/z --axis all -o a.h5:/z
	h5u reduce add big.h5:/z --axis all -o b.h5:/z --memory 72K
	run ref same a.h5 b.h5
	assert_success
	snapshot
	run --separate-stderr h5u reduce add big.h5:/x --axis all -o c.h5:/s --memory 60K
	assert_error 2 "reduce add: --memory 61440 bytes is too small for one block (one piece needs 65600 bytes)"
	run --separate-stderr h5u reduce add big.h5:/z --axis 0 -o c.h5:/s --memory 60K
	assert_error_match 2 "reduce add: --memory 61440 bytes is too small for one block.*"
	assert_unchanged
}

@test "on several ranks a sum over all axes needs two pieces, and the refusal says what one needs" {
	fixture big.h5
	snapshot
	# 100K holds one piece: one rank sums in it, but a rank whose share
	# begins inside a piece holds that one beside the piece it cuts
	run --separate-stderr mpi 4 h5ufunc reduce add big.h5:/x --axis all -o c.h5:/s --memory 100K
	assert_error_once 2 "reduce add: --memory 102400 bytes is too small for one block (one piece needs 65680 bytes, and a rank whose share begins inside one needs 131216)"
	assert_unchanged
	h5u reduce add big.h5:/x --axis all -o c.h5:/s --memory 100K
	mpi 4 h5ufunc reduce add big.h5:/x --axis all -o d.h5:/s --memory 129K
	run ref same c.h5 d.h5
	assert_success
}


@test "maximum, minimum, fmax, fmin over NaNs of both signs and several payloads: NumPy's bits elementwise and along axis 0, the first NaN of a row along the last axis and all axes (h5ufunc(1) says where NumPy's vector loop differs), on no launcher and 1 to 4 ranks" {
	/usr/bin/python3 - <<-'EOF'
		import h5py, numpy as np
		rng = np.random.default_rng(1629)
		with h5py.File("n.h5", "w") as f:
		    for dt in ("float16", "float32", "float64"):
		        bits = np.dtype(f"u{np.dtype(dt).itemsize}").type
		        quiet = np.array(np.nan, dt).view(bits)
		        sign = bits(1) << bits(8 * np.dtype(dt).itemsize - 1)
		        nans = np.array([quiet, quiet | sign, quiet | bits(1), quiet | sign | bits(2)]).view(dt)
		        for shape in ((13, 21), (3, 40)):
		            x = rng.standard_normal(shape).astype(dt)
		            hit = rng.uniform(size=shape) < 0.3
		            x[hit] = nans[rng.integers(0, 4, hit.sum())]
		            x[0, 1::3] = nans[3]
		            f[f"{dt}_{shape[0]}"] = x
	EOF
	local dt r ufunc n cmd=() cases=()
	for dt in float16 float32 float64; do
		for r in 13 3; do
			for ufunc in maximum minimum fmax fmin; do
				cases+=("$ufunc $dt $r")
			done
		done
	done
	for n in '' 1 2 3 4; do
		cmd=(h5u)
		[[ -z $n ]] || cmd=(mpi "$n" h5ufunc)
		printf 'steps:\n' > "r$n.yaml"
		for c in "${cases[@]}"; do
			read -r ufunc dt r <<<"$c"
			cat >> "r$n.yaml" <<-EOF
				  - {ufunc: $ufunc, in: ['n.h5:/${dt}_$r', 'n.h5:/${dt}_$r[::-1]'], out: 'o$n.h5:/e_${ufunc}_${dt}_$r'}
				  - {reduce: $ufunc, in: 'n.h5:/${dt}_$r', axis: 0, out: 'o$n.h5:/r0_${ufunc}_${dt}_$r'}
				  - {reduce: $ufunc, in: 'n.h5:/${dt}_$r', axis: 1, out: 'o$n.h5:/r1_${ufunc}_${dt}_$r'}
				  - {reduce: $ufunc, in: 'n.h5:/${dt}_$r', axis: null, out: 'o$n.h5:/ra_${ufunc}_${dt}_$r'}
				  - {accumulate: $ufunc, in: 'n.h5:/${dt}_$r', axis: 1, out: 'o$n.h5:/a_${ufunc}_${dt}_$r'}
			EOF
		done
		run --separate-stderr "${cmd[@]}" run --memory 160K "r$n.yaml"
		assert_success
	done
	/usr/bin/python3 - "${cases[@]}" <<-'EOF'
		import sys, h5py, numpy as np
		def bits(a):
		    a = np.asarray(a)
		    return a.view(f"u{a.dtype.itemsize}")
		# NumPy's loops over rows of two columns (elementwise, never its
		# vector reduction): the first NaN of what they fold
		def first(uf, x, axis):
		    if axis == 1:
		        x = x.T
		    elif axis is None:
		        x = x.reshape(-1, 1)
		    x = np.ascontiguousarray(np.concatenate([x, x], axis=1))
		    return uf.reduce(x, axis=0)[:x.shape[1] // 2].reshape(() if axis is None else -1)
		with h5py.File("n.h5", "r") as f:
		    for n in ("", "1", "2", "3", "4"):
		        with h5py.File(f"o{n}.h5", "r") as o:
		            for case in sys.argv[1:]:
		                name, dt, r = case.split()
		                uf, x = getattr(np, name), f[f"{dt}_{r}"][()]
		                want = {"e": uf(x, x[::-1]), "r0": uf.reduce(x, axis=0),
		                        "r1": first(uf, x, 1), "ra": first(uf, x, None),
		                        "a": uf.accumulate(x, axis=1)}
		                for k, w in want.items():
		                    got = o[f"{k}_{name}_{dt}_{r}"][()]
		                    assert got.dtype == w.dtype and np.array_equal(bits(got), bits(w)), \
		                        (n, k, case, bits(got), bits(w))
		                if dt == "float16":   # NumPy's float16 reduce is never vectorized
		                    assert np.array_equal(bits(want["r1"]), bits(uf.reduce(x, axis=1)))
	EOF
	assert_success
}
