#!/usr/bin/env bats
# 33-expr.bats - expressions (`h5ufunc eval` and `expr:` recipe steps) give
# exactly the result of the same computation as a chain of `h5ufunc call`
# steps: the datasets are compared byte for byte (dtype, shape, bytes), and
# the chain is checked against NumPy 2 (tests/np.py) step by step.  Mixed
# dtypes and weak literals, comparisons, bitwise operators, ufunc calls,
# nesting, broadcasting among names, one pass over the data, in-place
# writes on 1 to 3 ranks, recipes mixing expr steps with named
# intermediates, and errors that point at a column of the expression.

load helper

# The names every `eval` of expr_case binds, NAME=DATASET.
INPUTS=(a=e.h5:/a u=e.h5:/u h=e.h5:/h f=e.h5:/f i=e.h5:/i c=e.h5:/c
	d=e.h5:/d b=e.h5:/b p=e.h5:/p m=e.h5:/m v=e.h5:/v)

setup_file() {
	fixtures <<-'EOF'
		make e.h5:/a int8 4,5
		make e.h5:/u uint8 4,5
		make e.h5:/h float16 4,5 fill=special
		make e.h5:/f float32 4,5
		make e.h5:/i int32 4,5
		make e.h5:/c int16 4,1
		make e.h5:/d float64 5
		make e.h5:/b bool 4,5
		make e.h5:/p float64 4,5 fill=pos
		make e.h5:/m float64 3,4
		make e.h5:/v float64 4
		make e.h5:/v3 float64 3
		make x.h5:/x int32 7,5
		make x.h5:/y float32 7,5
		make x.h5:/z int16 2,5
		make big.h5:/f float32 3000,40
		make big.h5:/d float64 40
	EOF
}

# input_ref NAME: the dataset INPUTS binds NAME to (fails when none).
input_ref() {
	local kv
	for kv in "${INPUTS[@]}"; do
		if [[ ${kv%%=*} == "$1" ]]; then
			echo "${kv#*=}"
			return 0
		fi
	done
	return 1
}

# expr_case [--chain-only] ID EXPRESSION STEP...
#   Evaluate EXPRESSION (names from INPUTS) into o.h5:/ID with `h5ufunc
#   eval`, and run STEP... as a chain of `h5ufunc call`s into c.h5.  A STEP
#   is "NAME UFUNC ARG...": ARG is an input name, the NAME of an earlier
#   step or a literal; the last step's result is the expression's.  Adds
#   to NP_JOBS the checks that the two results are the same dataset, byte
#   for byte, and, unless --chain-only (for transcendental functions, which
#   SPEC 3.4 lets differ from NumPy by a few ULP), that the chain is
#   NumPy's, step by step.  expr_check runs them (NumPy starts once).
NP_JOBS=()
expr_case() {
	local reference=1
	if [[ $1 == --chain-only ]]; then
		reference=0
		shift
	fi
	local id=$1 expression=$2
	shift 2
	local kv step name uf rest arg r last='' iopts=() lets=() args=() npargs=()
	local -A made=()
	for kv in "${INPUTS[@]}"; do
		iopts+=(-i "$kv")
	done
	run --separate-stderr h5u eval "${iopts[@]}" "o.h5:/$id = $expression"
	[[ $status -eq 0 ]] || fail "h5ufunc eval 'o.h5:/$id = $expression': status $status: $stderr"
	assert_stderr_empty
	for step in "$@"; do
		read -r name uf rest <<<"$step"
		args=() npargs=()
		for arg in $rest; do
			if [[ -n ${made[$arg]:-} ]]; then
				args+=("c.h5:/${id}_$arg")
				npargs+=("${id}_$arg")
			elif r=$(input_ref "$arg"); then
				args+=("$r")
				npargs+=("$r")
			else
				args+=("$arg")
				npargs+=("$arg")
			fi
		done
		run --separate-stderr h5u call "$uf" "${args[@]}" -o "c.h5:/${id}_$name"
		[[ $status -eq 0 ]] || fail "h5ufunc call $uf ${args[*]}: status $status: $stderr"
		made[$name]=1
		last=$name
		lets+=(:: let "${id}_$name" "$uf" "${npargs[@]}")
	done
	NP_JOBS+=(:: same "c.h5:/${id}_$last" "o.h5:/$id")
	if ((reference)); then
		NP_JOBS+=("${lets[@]}" :: compare "${id}_$last" "o.h5:/$id")
	fi
}

# expr_check: run the jobs of NP_JOBS, in one NumPy process.
expr_check() {
	((${#NP_JOBS[@]} > 0)) || fail "expr_check: nothing to check"
	np "${NP_JOBS[@]:1}" || fail "expressions differ from their chains of ufunc calls or from NumPy (above)"
	NP_JOBS=()
}

@test "eval: int8 with weak literals stays int8, a signed literal included" {
	fixture e.h5
	expr_case neg2 'a * -2 + 1' 't multiply a -2' 'r add t 1'
	expr_case sub 'a - 3 * a' 't multiply 3 a' 'r subtract a t'
	expr_case div 'a // 7 + a % -3' 't floor_divide a 7' 's remainder a -3' 'r add t s'
	NP_JOBS+=(:: stored o.h5:/neg2 int8 '4,5')
	expr_check
}

@test "eval: a literal-only subexpression is an int64 array, as a chain of steps makes it" {
	fixture e.h5
	expr_case lit 'a * (2 + 3)' 't add 2 3' 'r multiply a t'
	NP_JOBS+=(:: stored o.h5:/lit int64 '4,5')
	expr_case shift 'u ^ 255 << 1' 't left_shift 255 1' 'r bitwise_xor u t'
	NP_JOBS+=(:: stored o.h5:/shift int64 '4,5')
	expr_check
}

@test "eval: uint8, float16, float32 with a float literal, int32 with 2.5" {
	fixture e.h5
	expr_case u8 'u + 7 - u // 3' 't add u 7' 's floor_divide u 3' 'r subtract t s'
	NP_JOBS+=(:: stored o.h5:/u8 uint8 '4,5')
	expr_case f16 'h * 2.5 + 1' 't multiply h 2.5' 'r add t 1'
	expr_case f16b 'h / 3 - h * h' 't divide h 3' 's multiply h h' 'r subtract t s'
	NP_JOBS+=(:: stored o.h5:/f16 float16 '4,5')
	expr_case f32 'f * 0.1 - 1e-3' 't multiply f 0.1' 'r subtract t 1e-3'
	NP_JOBS+=(:: stored o.h5:/f32 float32 '4,5')
	expr_case i32 'i * 2.5 + i' 't multiply i 2.5' 'r add t i'
	NP_JOBS+=(:: stored o.h5:/i32 float64 '4,5')
	expr_case mixed 'a + u * h' 't multiply u h' 'r add a t'
	expr_case true 'a / 4 + b' 't divide a 4' 'r add t b'
	expr_case bool 'b + 1' 'r add b 1'
	NP_JOBS+=(:: stored o.h5:/bool int64 '4,5')
	expr_check
}

@test "eval: comparisons give bool, mixed with bitwise operators" {
	fixture e.h5
	expr_case cmp '(a > 0) & (f < 1.5)' 't greater a 0' 's less f 1.5' 'r bitwise_and t s'
	NP_JOBS+=(:: stored o.h5:/cmp bool '4,5')
	expr_case eq 'a == c' 'r equal a c'
	expr_case ne '(u != 3) | (i >= -5) ^ (h <= 0.5)' \
		't not_equal u 3' 's greater_equal i -5' 'q less_equal h 0.5' \
		'x bitwise_xor s q' 'r bitwise_or t x'
	expr_case cmpsum '(a < c) + (p > 2)' 't less a c' 's greater p 2' 'r add t s'
	expr_check
}

@test "eval: bitwise operators, shifts and invert with Python's precedence" {
	fixture e.h5
	expr_case bits 'a & 12 | u ^ 255' 't bitwise_and a 12' 's bitwise_xor u 255' 'r bitwise_or t s'
	expr_case inv '~a >> 2' 't invert a' 'r right_shift t 2'
	expr_case prec 'u << 1 + 1 & 255' 't add 1 1' 's left_shift u t' 'r bitwise_and s 255'
	expr_case ib '~b | b' 't invert b' 'r bitwise_or t b'
	expr_check
}

@test "eval: arithmetic precedence, ** right-associative and above unary minus" {
	fixture e.h5
	expr_case pow '-u ** 2' 't power u 2' 'r negative t'
	expr_case powr 'u ** 2 ** 0' 't power 2 0' 'r power u t'
	expr_case assoc 'a - a // 3 - 1' 't floor_divide a 3' 's subtract a t' 'r subtract s 1'
	expr_case unary '+a * -a' 't positive a' 's negative a' 'r multiply t s'
	expr_check
}

@test "eval: ufunc calls by name and alias, nested, among operators" {
	fixture e.h5
	expr_case calls 'sqrt(p) + maximum(a, 0) * abs(f)' \
		't sqrt p' 's maximum a 0' 'q absolute f' 'x multiply s q' 'r add t x'
	expr_case nest 'maximum(minimum(a * 2, 50), -(c + 1)) // 3' \
		't multiply a 2' 's minimum t 50' 'q add c 1' 'n negative q' \
		'x maximum s n' 'r floor_divide x 3'
	expr_case fl 'floor(f) - trunc(a) + copysign(p, f)' \
		't floor f' 's trunc a' 'q copysign p f' 'x subtract t s' 'r add x q'
	expr_case --chain-only trans 'exp(f / 10) * hypot(p, 1.5) - log1p(p)' \
		't divide f 10' 's exp t' 'q hypot p 1.5' 'x multiply s q' 'y log1p p' 'r subtract x y'
	expr_case --chain-only alias 'pow(p, 0.5) + atan2(f, p)' \
		't power p 0.5' 's arctan2 f p' 'r add t s'
	expr_check
}

@test "eval: broadcasting among names: (4,5) (4,1) (5,) and (3,4) (4,)" {
	fixture e.h5
	expr_case bc1 'c + d' 'r add c d'
	NP_JOBS+=(:: stored o.h5:/bc1 float64 '4,5')
	expr_case bc2 'a * c - d' 't multiply a c' 'r subtract t d'
	expr_case bc3 'm / v + v' 't divide m v' 'r add t v'
	NP_JOBS+=(:: stored o.h5:/bc3 float64 '3,4')
	expr_check
}

@test "eval: --dtype is the outermost operation's dtype=, as call --dtype" {
	fixture e.h5
	h5u eval -i a=e.h5:/a --dtype float32 'o.h5:/r = a * 3 + 1'
	h5u call multiply e.h5:/a 3 -o c.h5:/t
	h5u call add c.h5:/t 1 --dtype float32 -o c.h5:/r
	np same c.h5:/r o.h5:/r
	np stored o.h5:/r float32 4,5
}

@test "eval: a printed result is the chain's, as SPEC 1 prints it" {
	fixture e.h5
	run --separate-stderr h5u eval -i f=e.h5:/f -i d=e.h5:/d 'f * 2.5 - d'
	assert_success
	assert_stderr_empty
	printf '%s\n' "$output" >printed.txt
	np let t multiply e.h5:/f 2.5 :: printed subtract t e.h5:/d --text printed.txt
	run --separate-stderr h5u eval '2 + 3 * 4'
	assert_success
	assert_output 14
}

@test "eval: the whole expression is one pass: each input read once, the output written once" {
	fixture big.h5
	run --separate-stderr h5u eval --memory 8K --json -i f=big.h5:/f -i d=big.h5:/d \
		'o.h5:/r = sqrt(abs(f)) * d - f / 3 + maximum(f, 0.5) * 2'
	assert_success
	printf '%s\n' "$output" >run.json
	# float32 (3000,40) + float64 (40,) read, float64 (3000,40) written:
	# no temporary array went through HDF5.
	/usr/bin/python3 - <<-'EOF'
		import json, sys
		s = json.load(open('run.json'))['steps'][0]
		want_read = 3000 * 40 * 4 + 40 * 8
		want_written = 3000 * 40 * 8
		if (s['bytes_read'], s['bytes_written']) != (want_read, want_written):
		    sys.exit(f"read {s['bytes_read']}, wrote {s['bytes_written']}; "
		             f"one pass reads {want_read} and writes {want_written}")
	EOF
	h5u call absolute big.h5:/f -o c.h5:/t1
	h5u call sqrt c.h5:/t1 -o c.h5:/t2
	h5u call multiply c.h5:/t2 big.h5:/d -o c.h5:/t3
	h5u call divide big.h5:/f 3 -o c.h5:/t4
	h5u call subtract c.h5:/t3 c.h5:/t4 -o c.h5:/t5
	h5u call maximum big.h5:/f 0.5 -o c.h5:/t6
	h5u call multiply c.h5:/t6 2 -o c.h5:/t7
	h5u call add c.h5:/t5 c.h5:/t7 -o c.h5:/r
	np same c.h5:/r o.h5:/r
}

# in_place_run DIR [N]: in a new directory DIR with a copy of x.h5, write
# x*2 + 1 in place into x.h5:/x (int32, through its -i name), x.h5:/y
# (float32, through its FILE:/PATH) and x.h5:/z (int16, 2 rows: more ranks
# than rows on 3), without a launcher or on N ranks.
in_place_run() {
	local dir=$1 n=${2:-}
	mkdir "$dir"
	(
		cd "$dir" && fixture x.h5 || exit 1
		if [[ -z $n ]]; then
			h5u eval -i a=x.h5:/x 'a = a*2 + 1' &&
				h5u eval -i y=x.h5:/y 'x.h5:/y = y * 2 + 1' &&
				h5u eval -i z=x.h5:/z 'z = z*2 + 1'
		else
			mpi "$n" h5ufunc eval -i a=x.h5:/x 'a = a*2 + 1' &&
				mpi "$n" h5ufunc eval -i y=x.h5:/y 'x.h5:/y = y * 2 + 1' &&
				mpi "$n" h5ufunc eval -i z=x.h5:/z 'z = z*2 + 1'
		fi
	)
}

@test "eval: in place a = a*2 + 1 without a launcher and on 1, 2, 3 ranks" {
	fixture x.h5
	in_place_run r0
	local n x=x.h5:/x
	for n in 1 2 3; do
		in_place_run "r$n" "$n"
	done
	np let t multiply x.h5:/x 2 :: check add t 1 -o r0/x.h5:/x \
		:: let s multiply x.h5:/y 2 :: check add s 1 -o r0/x.h5:/y \
		:: let q multiply x.h5:/z 2 :: check add q 1 -o r0/x.h5:/z
	np stored r0/x.h5:/x int32 7,5
	for n in 1 2 3; do
		np same r0/$x "r$n/$x" :: same r0/x.h5:/y "r$n/x.h5:/y" :: same r0/x.h5:/z "r$n/x.h5:/z"
	done
	np history r0/x.h5 --first "h5ufunc eval -i z=x.h5:/z z = z*2 + 1"
}

@test "eval: an in-place result that may not be cast is refused before writing" {
	fixture x.h5
	snapshot
	run --separate-stderr h5u eval -i a=x.h5:/x 'a = a * 2.5'
	assert_error 2 "eval: Cannot cast ufunc 'multiply' output from float64 to int32 with casting rule 'same_kind'"
	assert_unchanged
	cp x.h5 before.h5
	h5u eval --casting unsafe -i a=x.h5:/x 'a = a * 2.5'
	np check multiply before.h5:/x 2.5 -o x.h5:/x --into --casting unsafe
}

@test "recipe: expr steps mixed with ufunc steps and named intermediates" {
	fixture e.h5
	cat >r.yaml <<-'EOF'
		inputs: {a: e.h5:/a, f: e.h5:/f, d: e.h5:/d}
		steps:
		  - {expr: a * 2 + 1, out: t}   # int8, kept as a name
		  - {ufunc: multiply, in: [t, f], out: s}
		  - {expr: sqrt(abs(s)) - t * d, out: o.h5:/r}
		  - {expr: (s > 0) & (t < 50), out: o.h5:/mask}
		  - {expr: 'maximum(s, 0) + a', out: w}
		  - {reduce: add, in: w, axis: 1, out: o.h5:/sum}
	EOF
	run --separate-stderr h5u run r.yaml
	assert_success
	assert_stderr_empty
	h5u call multiply e.h5:/a 2 -o c.h5:/t0
	h5u call add c.h5:/t0 1 -o c.h5:/t
	h5u call multiply c.h5:/t e.h5:/f -o c.h5:/s
	h5u call absolute c.h5:/s -o c.h5:/s1
	h5u call sqrt c.h5:/s1 -o c.h5:/s2
	h5u call multiply c.h5:/t e.h5:/d -o c.h5:/s3
	h5u call subtract c.h5:/s2 c.h5:/s3 -o c.h5:/r
	h5u call greater c.h5:/s 0 -o c.h5:/m1
	h5u call less c.h5:/t 50 -o c.h5:/m2
	h5u call bitwise_and c.h5:/m1 c.h5:/m2 -o c.h5:/mask
	h5u call maximum c.h5:/s 0 -o c.h5:/w1
	h5u call add c.h5:/w1 e.h5:/a -o c.h5:/w
	h5u reduce add c.h5:/w --axis 1 -o c.h5:/sum
	np same c.h5:/r o.h5:/r :: same c.h5:/mask o.h5:/mask :: same c.h5:/sum o.h5:/sum
	np stored o.h5:/r float64 4,5 :: stored o.h5:/mask bool 4,5
	np let t0 multiply e.h5:/a 2 :: let t add t0 1 :: let s multiply t e.h5:/f \
		:: let s1 absolute s :: let s2 sqrt s1 :: let s3 multiply t e.h5:/d \
		:: check subtract s2 s3 -o o.h5:/r
}

@test "recipe: an expr step without out: prints, and the same recipe runs on 2 and 3 ranks" {
	fixture x.h5
	cat >r.yaml <<-'EOF'
		inputs: {x: x.h5:/x, y: x.h5:/y}
		steps:
		  - {expr: x * 3 - y, out: t}
		  - {expr: t // 2 + (x > 0), out: out.h5:/r}
		  - {expr: 'minimum(t, 0) * 2'}
	EOF
	run --separate-stderr h5u run r.yaml
	assert_success
	assert_stderr_empty
	printf '%s\n' "$output" >printed.txt
	np let t0 multiply x.h5:/x 3 :: let t subtract t0 x.h5:/y :: let m minimum t 0 \
		:: printed multiply m 2 --text printed.txt \
		:: let q floor_divide t 2 :: let g greater x.h5:/x 0 :: check add q g -o out.h5:/r
	local n
	for n in 2 3; do
		mkdir "r$n"
		cp r.yaml "r$n"/
		(cd "r$n" && fixture x.h5 && mpi "$n" h5ufunc run r.yaml >printed.txt)
		np same out.h5:/r "r$n/out.h5:/r"
		cmp printed.txt "r$n/printed.txt" || fail "$n ranks printed another result"
	done
}

# expr_error EXPRESSION MESSAGE: `h5ufunc eval` of EXPRESSION (names a, u,
# f bound) fails with status 2 and MESSAGE, and writes nothing.
expr_error() {
	snapshot
	run --separate-stderr h5u eval -i a=e.h5:/a -i u=e.h5:/u -i f=e.h5:/f "$1"
	assert_error 2 "$2"
	assert_unchanged
}

# chain N: an expression of N additions, left to right (x+x+...+x).
chain() {
	local text=x i
	for ((i = 0; i < $1; i++)); do text+=+x; done
	echo "$text"
}

# balanced N: N additions as a balanced tree ((x+x)+(x+(x+x))...).
balanced() {
	if (($1 == 0)); then
		echo x
		return
	fi
	local left=$((($1 - 1) / 2))
	echo "($(balanced "$left")+$(balanced $(($1 - 1 - left))))"
}

@test "eval: where= of up to 256 operations, any shape of tree, beside an expression of up to 256; 257 is exit 2 with every file as it was" {
	/usr/bin/python3 -c '
import h5py, numpy as np
with h5py.File("w.h5", "w") as f:
    f["x"] = np.array([0.0, 1, -2, 3, 0, 5, -1])
    f["y"] = np.arange(7.0) * 100 + 7'
	local cases=("1 chain 256" "256 chain 256" "256 balanced 256" "200 balanced 60" "256 balanced 255") c n shape m
	for c in "${cases[@]}"; do
		read -r n shape m <<<"$c"
		cp w.h5 "w-$n-$shape-$m.h5"
		ok eval -i "x=w-$n-$shape-$m.h5:/x" -i "y=w-$n-$shape-$m.h5:/y" "y = $(chain "$n")" --where "$($shape "$m")" --no-history
	done
	for c in "${cases[@]}"; do
		read -r n shape m <<<"$c"
		printf '%s %s %s\n' "w-$n-$shape-$m.h5" "$(chain "$n")" "$($shape "$m")"
	done | /usr/bin/python3 -c '
import sys, h5py, numpy as np
with h5py.File("w.h5", "r") as f:
    x, y = f["x"][()], f["y"][()]
for line in sys.stdin:
    name, value, cond = line.split()
    want = np.where(eval(cond) != 0, eval(value), y)
    with h5py.File(name, "r") as f:
        got = f["y"][()]
    assert got.dtype == want.dtype and np.array_equal(got, want), (name, got, want)
    assert np.array_equal(got == y, x == 0), name   # where= kept some
'
	assert_success
	snapshot
	run --separate-stderr h5u eval -i x=w.h5:/x -i y=w.h5:/y "y = $(chain 256)" --where "$(balanced 257)"
	assert_error 2 "eval: where: an expression has at most 256 operations"
	run --separate-stderr h5u eval -i x=w.h5:/x -i y=w.h5:/y "y = $(chain 257)" --where x
	assert_error_match 2 "eval: .*an expression has at most 256 operations"
	assert_unchanged
}

@test "eval errors name the column of the expression" {
	fixture e.h5
	expr_error 'a + w' "eval: column 5: unknown name 'w'"
	expr_error 'foo(a) + 1' "eval: column 1: unknown ufunc 'foo'"
	expr_error 'a + * 2' "eval: column 5: unexpected '*'"
	expr_error '(a + 2' "eval: column 7: expected ')'"
	expr_error 'a + 2)' "eval: column 6: unexpected ')'"
	expr_error 'maximum((a, 2)' "eval: column 11: expected ')'"
	expr_error 'divmod(a, 2)' "eval: column 1: ufunc 'divmod' gives 2 outputs: call it in a ufunc step"
	expr_error '1 + modf(f)' "eval: column 5: ufunc 'modf' gives 2 outputs: call it in a ufunc step"
	expr_error '1 < a < 3' "eval: column 7: chained comparisons are ambiguous for arrays: add parentheses"
	expr_error 'a == f != 2' "eval: column 8: chained comparisons are ambiguous for arrays: add parentheses"
	expr_error 'sqrt(a, 2)' "eval: column 1: ufunc 'sqrt' takes 1 input, got 2"
	expr_error 'a +' "eval: column 4: unexpected end of expression"
}

@test "eval: with OUT =, the column still counts from the start of the argument" {
	fixture e.h5
	snapshot
	run --separate-stderr h5u eval -i a=e.h5:/a 'o.h5:/r = a + w'
	assert_error 2 "eval: column 15: unknown name 'w'"
	run --separate-stderr h5u eval -i a=e.h5:/a 'o.h5:/r=a+w'
	assert_error 2 "eval: column 11: unknown name 'w'"
	assert_unchanged
}

@test "eval errors from NumPy's rules: literal bounds, broadcasting, casting" {
	fixture e.h5
	expr_error 'a + 300' "eval: column 3: Python integer 300 out of bounds for int8"
	expr_error 'f + u * -2' "eval: column 7: Python integer -2 out of bounds for uint8"
	snapshot
	run --separate-stderr h5u eval -i m=e.h5:/m -i v=e.h5:/v3 'm + v'
	assert_error 2 "eval: column 3: operands could not be broadcast together with shapes (3,4) (3,)"
	assert_unchanged
}

@test "eval: an integer to a negative integer power fails while running (exit 1), no file left" {
	fixture e.h5
	snapshot
	run --separate-stderr h5u eval -i a=e.h5:/a 'o.h5:/r = a ** (a * 0 - 1)'
	assert_error 1 "eval: Integers to negative integer powers are not allowed."
	assert_unchanged
}

@test "recipe: expression errors point at the line and column inside the expression" {
	fixture e.h5
	local body want
	while IFS='|' read -r body want; do
		printf 'inputs:\n  a: e.h5:/a\n  f: e.h5:/f\nsteps:\n  - ufunc: negative\n    in: a\n    out: o.h5:/n\n  - expr: %s\n    out: o.h5:/r\n' "$body" >r.yaml
		snapshot
		run --separate-stderr h5u run r.yaml
		assert_error 2 "$want"
		assert_unchanged
	done <<-'EOF'
		a * 2 + w|r.yaml:8:19: step 2 (expr expression): unknown name 'w'
		bar(a) - 1|r.yaml:8:11: step 2 (expr expression): unknown ufunc 'bar'
		a - - * 2|r.yaml:8:17: step 2 (expr expression): unexpected '*'
		maximum(a, 2|r.yaml:8:23: step 2 (expr expression): expected ',' or ')'
		a + 1)|r.yaml:8:16: step 2 (expr expression): unexpected ')'
		2 * divmod(a, 3)|r.yaml:8:15: step 2 (expr expression): ufunc 'divmod' gives 2 outputs: call it in a ufunc step
		0 <= a < 5|r.yaml:8:18: step 2 (expr expression): chained comparisons are ambiguous for arrays: add parentheses
		a + 300|r.yaml:8:13: step 2 (expr expression): Python integer 300 out of bounds for int8
	EOF
}

@test "recipe: columns point into quoted and block-scalar expressions too" {
	fixture e.h5
	printf 'inputs:\n  a: e.h5:/a\nsteps:\n  - expr: "a * 2 + w"\n    out: o.h5:/r\n' >q.yaml
	run --separate-stderr h5u run q.yaml
	assert_error 2 "q.yaml:4:20: step 1 (expr expression): unknown name 'w'"
	printf 'inputs:\n  a: e.h5:/a\nsteps:\n  - expr: |\n      a * 2 + w\n    out: o.h5:/r\n' >b.yaml
	run --separate-stderr h5u run b.yaml
	assert_error 2 "b.yaml:5:15: step 1 (expr expression): unknown name 'w'"
}
