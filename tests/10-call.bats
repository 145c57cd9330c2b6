#!/usr/bin/env bats
# 10-call.bats - `h5ufunc call`: every ufunc on every dtype its loops take,
# broadcasting, literals, --dtype/--casting, two outputs, printed results.
# Every expected value is NumPy's (tests/np.py), NumPy 2's rules encoded.

load helper

DTYPES=(bool int8 uint8 int16 uint16 int32 uint32 int64 uint64 float16 float32 float64)

setup_file() {
	{
		echo "sweep-inputs"
		for t in "${DTYPES[@]}"; do
			echo "make t.h5:/x_$t $t 4,5"
			echo "make t.h5:/y_$t $t 4,5 fill=pos"
		done
		cat <<-'EOF'
			make m.h5:/m34 float64 3,4
			make m.h5:/v4 float64 4
			make m.h5:/v3 float64 3
			make m.h5:/c31 int32 3,1
			make m.h5:/r14 int32 1,4
			make m.h5:/t513 float32 5,1,3
			make m.h5:/t41 float32 4,1
			make m.h5:/t42 float32 4,2
			make m.h5:/s float64 () data=2.5
			make m.h5:/si int16 () data=7
			make m.h5:/e0 float64 0
			make m.h5:/e03 int32 0,3
			make m.h5:/i8 int8 6 data=[-7,-1,0,1,2,100]
			make m.h5:/i8pos int8 6 data=[0,1,2,3,4,6]
			make m.h5:/u16 uint16 6 data=[0,1,2,300,65535,7]
			make m.h5:/i32 int32 6 data=[-9,-4,0,3,8,1000]
			make m.h5:/f32 float32 6 data=[0.1,-2.5,3.75,1e-5,-0.0,100.0]
			make m.h5:/f64 float64 2,3 data=[[0.1,-2.5,1e-300],[nan,inf,-0.0]]
			make m.h5:/h16 float16 6 data=[0.1,-2.5,65504.0,6e-8,0.0,1.0]
			make m.h5:/pos float64 6 fill=pos
			make m.h5:/fmt float64 10 data=[0.1,1.0,1e-300,nan,inf,-inf,-0.0,1e16,123456.789,-2.5]
			make m.h5:/fmt32 float32 4 data=[0.1,2.5,1e-5,3.0]
			make m.h5:/fmt16 float16 3 data=[0.1,65504.0,-2.0]
			make m.h5:/b bool 5 data=[True,False,True,True,False]
		EOF
	} | fixtures
}

# sweep FAMILY: call every ufunc of FAMILY on every dtype (and dtype pair)
# NumPy's loops accept, each result written to out.h5, then compare them all
# with NumPy.  Cases NumPy refuses must exit 2 and write nothing.  A call is
# a recipe of one step (one execution path), so the cases NumPy takes are
# the steps of one recipe, one process for them all (when it fails, each
# is called alone, to name the ones that fail); each refused case is a
# call of its own, refused alone.
sweep() {
	local family=$1 id want outs uf ops st c bad=() taken=() refused=()
	fixture in.h5
	np sweep "$family" >cases.txt
	echo "steps:" >sweep.yaml
	while read -r id want outs uf ops; do
		if [[ $want == 0 ]]; then
			taken+=("$id $want $outs $uf $ops")
			[[ $outs == *,* ]] && outs="[$outs]"
			echo "  - {ufunc: $uf, in: [${ops// /, }], out: $outs}" >>sweep.yaml
		else
			refused+=("$id $want $outs $uf $ops")
		fi
	done <cases.txt
	if ((${#taken[@]})) && ! h5u run sweep.yaml </dev/null >/dev/null 2>err.txt; then
		bad+=("$family: the recipe of the ${#taken[@]} cases NumPy takes failed: $(head -c 300 err.txt)")
		rm -f out.h5
		refused=("${taken[@]}" "${refused[@]}")
	fi
	for c in "${refused[@]}"; do
		read -r id want outs uf ops <<<"$c"
		# shellcheck disable=SC2086  # OPS is a list of words
		h5u call "$uf" $ops -o "$outs" </dev/null >/dev/null 2>err.txt && st=0 || st=$?
		if [[ $st != "$want" ]]; then
			bad+=("$id: h5ufunc call $uf $ops: exit $st, want $want: $(head -c 300 err.txt)")
		fi
	done
	local checked=0
	np sweep-check cases.txt || checked=$?
	if ((${#bad[@]})); then
		printf '%s\n' "${bad[@]}" | batslib_decorate "$family: ${#bad[@]} of $(wc -l <cases.txt) cases ended wrongly" | fail
	fi
	((checked == 0)) || fail "$family: results differ from NumPy (above)"
}

@test "sweep: arithmetic (add ... sign) on every dtype" {
	sweep arith
}

@test "sweep: comparisons and maximum/minimum/fmax/fmin on every dtype" {
	sweep compare
}

@test "sweep: logical_* on every dtype" {
	sweep logic
}

@test "sweep: bitwise, shifts, bitwise_count, gcd, lcm on every dtype" {
	sweep bits
}

@test "sweep: exp/log family, sqrt, cbrt on every dtype" {
	sweep explog
}

@test "sweep: trigonometric, hyperbolic, angle conversions on every dtype" {
	sweep trig
}

@test "sweep: floor, ceil, trunc, rint on every dtype" {
	sweep round
}

@test "sweep: float classification and manipulation on every dtype" {
	sweep float
}

@test "sweep: every ufunc not in a family above" {
	sweep other
}

@test "every dtype through add, subtract, multiply, divide, maximum, equal" {
	fixture t.h5
	local t uf jobs=()
	# the calls as the steps of one recipe, one process (a call is a
	# recipe of one step)
	echo "steps:" >r.yaml
	for t in "${DTYPES[@]}"; do
		for uf in add subtract multiply divide maximum equal; do
			[[ $t == bool && $uf == subtract ]] && continue
			echo "  - {ufunc: $uf, in: [t.h5:/x_$t, t.h5:/y_$t], out: o.h5:/${uf}_$t}" >>r.yaml
			jobs+=(:: check "$uf" t.h5:/x_"$t" t.h5:/y_"$t" -o o.h5:/"${uf}_$t")
		done
	done
	ok run r.yaml
	np "${jobs[@]:1}"
}

@test "broadcasting (3,4)+(4,), (3,1)+(1,4), (5,1,3)+(4,1), 0-d, empty" {
	fixture m.h5
	h5u call add m.h5:/m34 m.h5:/v4 -o o.h5:/a
	h5u call maximum m.h5:/v4 m.h5:/m34 -o o.h5:/a2
	h5u call multiply m.h5:/c31 m.h5:/r14 -o o.h5:/b
	h5u call subtract m.h5:/t513 m.h5:/t41 -o o.h5:/c
	h5u call add m.h5:/s m.h5:/m34 -o o.h5:/d
	h5u call multiply m.h5:/s m.h5:/s -o o.h5:/e
	h5u call add m.h5:/si m.h5:/s -o o.h5:/f
	h5u call add m.h5:/e0 1 -o o.h5:/g
	h5u call add m.h5:/e03 m.h5:/c31 -o o.h5:/h 2>err.txt && st=0 || st=$?
	# (0,3) with (3,1) does not broadcast; (0,3) with (1,3)-like rows does.
	assert_equal "$st" 2
	h5u call add m.h5:/e03 m.h5:/v3 -o o.h5:/i
	np check add m.h5:/m34 m.h5:/v4 -o o.h5:/a :: \
		check maximum m.h5:/v4 m.h5:/m34 -o o.h5:/a2 :: \
		check multiply m.h5:/c31 m.h5:/r14 -o o.h5:/b :: \
		check subtract m.h5:/t513 m.h5:/t41 -o o.h5:/c :: \
		check add m.h5:/s m.h5:/m34 -o o.h5:/d :: \
		check multiply m.h5:/s m.h5:/s -o o.h5:/e :: \
		check add m.h5:/si m.h5:/s -o o.h5:/f :: \
		check add m.h5:/e0 1 -o o.h5:/g :: \
		check add m.h5:/e03 m.h5:/v3 -o o.h5:/i
	run np ls o.h5
	assert_line "/c float32 (5,4,3)"
	assert_line "/e float64 ()"
	assert_line "/g float64 (0)"
	assert_line "/i float64 (0,3)"
}

@test "shapes that do not broadcast give NumPy's message and write nothing" {
	fixture m.h5
	snapshot
	run --separate-stderr h5u call add m.h5:/v3 m.h5:/v4 -o o.h5:/x
	assert_error 2 "call add: operands could not be broadcast together with shapes (3,) (4,)"
	run --separate-stderr h5u call multiply m.h5:/m34 m.h5:/v3
	assert_error 2 "call multiply: operands could not be broadcast together with shapes (3,4) (3,)"
	run --separate-stderr h5u call subtract m.h5:/t513 m.h5:/t42 -o o.h5:/x
	assert_error 2 "call subtract: operands could not be broadcast together with shapes (5,1,3) (4,2)"
	assert_unchanged
}

@test "literals on either side of a dataset" {
	fixture m.h5
	h5u call subtract m.h5:/v4 1.5 -o o.h5:/a
	h5u call subtract 1.5 m.h5:/v4 -o o.h5:/b
	h5u call power 2 m.h5:/i8pos -o o.h5:/c
	h5u call divide 1 m.h5:/i32 -o o.h5:/d
	h5u call maximum 0 m.h5:/i8 -o o.h5:/e
	h5u call left_shift 1 m.h5:/i8pos -o o.h5:/f
	h5u call fmod m.h5:/f32 -0.75 -o o.h5:/g
	h5u call copysign 3 m.h5:/f32 -o o.h5:/h
	h5u call arctan2 m.h5:/f32 -1 -o o.h5:/i
	np check subtract m.h5:/v4 1.5 -o o.h5:/a :: \
		check subtract 1.5 m.h5:/v4 -o o.h5:/b :: \
		check power 2 m.h5:/i8pos -o o.h5:/c :: \
		check divide 1 m.h5:/i32 -o o.h5:/d :: \
		check maximum 0 m.h5:/i8 -o o.h5:/e :: \
		check left_shift 1 m.h5:/i8pos -o o.h5:/f :: \
		check fmod m.h5:/f32 -0.75 -o o.h5:/g :: \
		check copysign 3 m.h5:/f32 -o o.h5:/h :: \
		check arctan2 m.h5:/f32 -1 -o o.h5:/i
}

# printed_alone CALL...: each CALL ("add 2 3") printed by h5ufunc is what
# NumPy 2 prints for it.
printed_alone() {
	local c k=0 jobs=()
	for c in "$@"; do
		k=$((k + 1))
		# shellcheck disable=SC2086
		h5u call $c >"p$k.txt"
		# shellcheck disable=SC2206
		jobs+=(:: printed $c --text "p$k.txt")
	done
	np "${jobs[@]:1}"
}

@test "literals alone: NumPy's default dtypes, printed" {
	local -a calls=(
		"add 2 3" "divide 1 4" "add 1 2.5" "sqrt 2" "add true true"
		"multiply 2 -3" "power 2 10" "floor 7" "floor -2.5" "divmod 7 -2"
		"logical_and true false" "exp 1" "less 2 2.5" "bitwise_count 255"
		"subtract 0 9223372036854775807" "add 1e308 1e308" "arccos 2"
	)
	printed_alone "${calls[@]}"
	run h5u call add 2 3
	assert_output "5"
	run h5u call divide 1 4
	assert_output "0.25"
	run h5u call add true true
	assert_output "True"
	run h5u call divmod 7 -2
	assert_output $'-4\n\n-1'
}

@test "literals alone beyond int64: NumPy 2 promotes a Python int as int64 beside another input (2**63 + 1 refused), alone or beside a float it is uint64 or float64" {
	local -a calls=(
		"negative 9223372036854775808" "add 9223372036854775808 1.5"
		"add 18446744073709551615 0.0" "subtract 1.0 18446744073709551616"
		"add 1 9223372036854775807" "less 9223372036854775808 -1" "greater_equal 1 18446744073709551615"
	)
	printed_alone "${calls[@]}"
	local -a refused=(
		"add 9223372036854775808 1|Python integer 9223372036854775808 out of bounds for int64"
		"add 9223372036854775808 9223372036854775808|Python integer 9223372036854775808 out of bounds for int64"
		"multiply 2 18446744073709551615|Python integer 18446744073709551615 out of bounds for int64"
		"subtract -9223372036854775809 1|Python int too large to convert to C long"
		"add 18446744073709551616 1|Python int too large to convert to C long"
	)
	local c message uf a b
	for c in "${refused[@]}"; do
		message=${c#*|}
		c=${c%%|*}
		# shellcheck disable=SC2086
		np raises $c -- "$message"
		# shellcheck disable=SC2086
		run --separate-stderr h5u call $c
		assert_error 2 "call ${c%% *}: $message"
		read -r uf a b <<<"$c"
		run --separate-stderr h5u eval "$uf($a, $b)"   # the same operands in an expression
		((status == 2)) && [[ $stderr == *": $message"* ]] || fail "eval $uf($a, $b): $status: $stderr"
	done
}

@test "unary ufuncs of an integer beyond uint64: NumPy 2's OverflowError where the loop is an integer one, else the value in the float loop" {
	# NumPy 2 promotes a Python int beyond uint64 as the default int64,
	# picks the loop, then sets the int into the loop's dtype: an integer
	# (or bool-from-integer) loop cannot hold it, a float one rounds it
	local uf kind lit
	h5u ufuncs | awk '$2 == 1 && $3 == 1 { print $1 }' >unary
	/usr/bin/python3 - <<-'EOF' >kinds
		import numpy as np
		for name in open("unary").read().split():
		    uf = getattr(np, name, None)
		    if uf is None or uf.nin != 1 or uf.nout != 1:
		        continue   # not in this NumPy
		    t = np.dtype(uf.resolve_dtypes((np.dtype("int64"), None))[0])
		    # NumPy 2: floor, ceil and trunc of integers keep their dtype (1.24: float64)
		    print(name, "i" if name in ("floor", "ceil", "trunc") else t.kind)
	EOF
	(($(wc -l <kinds) > 40)) || fail "$(wc -l <kinds) unary ufuncs"
	# each refusal a call of its own; the values of the float loops the
	# steps of one recipe (a call is a recipe of one step), one process
	: >values
	echo "steps:" >lit.yaml
	local k=0
	for lit in 18446744073709551616 -18446744073709551616 99999999999999999999999999; do
		k=$((k + 1))
		while read -r uf kind; do
			if [[ $kind == [iub] ]]; then
				run --separate-stderr h5u call "$uf" "$lit"
				assert_error 2 "call $uf: Python int too large to convert to C long"
			else
				echo "  - {ufunc: $uf, in: [$lit], out: v.h5:/${uf}_$k}" >>lit.yaml
				echo "$uf $lit ${uf}_$k" >>values
			fi
		done <kinds
	done
	ok run lit.yaml
	/usr/bin/python3 - <<-'EOF'
		import h5py, numpy as np
		f = h5py.File("v.h5", "r")
		for line in open("values"):
		    name, lit, ds = line.split()
		    uf = getattr(np, name)
		    t = uf.resolve_dtypes((np.dtype("int64"), None))[0]
		    with np.errstate(all="ignore"):
		        want = uf(np.asarray(int(lit), dtype=t))
		    got = f[ds][()]
		    assert got.dtype == want.dtype and got.shape == (), (name, lit, got.dtype, got.shape, want.dtype)
		    w, g = want.item(), got.item()
		    if want.dtype.kind == "f":   # transcendental functions: within 4 ULP (SPEC 3.4)
		        ok = g == w or (np.isnan(g) and np.isnan(w)) or abs(g - w) <= 4 * np.spacing(abs(want))
		    else:
		        ok = g == w
		    assert ok, (name, lit, g, w)
	EOF
}

@test "printed results: scalar, 1-D, 2-D rows, 3-D blocks, bools" {
	fixture m.h5
	h5u call add m.h5:/s 1 >s.txt
	h5u call add m.h5:/i8 1 >v.txt
	h5u call multiply m.h5:/m34 0.5 >m.txt
	h5u call negative m.h5:/t513 >t.txt
	h5u call greater m.h5:/i8 0 >b.txt
	h5u call logical_not m.h5:/b >nb.txt
	np printed add m.h5:/s 1 --text s.txt :: \
		printed add m.h5:/i8 1 --text v.txt :: \
		printed multiply m.h5:/m34 0.5 --text m.txt :: \
		printed negative m.h5:/t513 --text t.txt :: \
		printed greater m.h5:/i8 0 --text b.txt :: \
		printed logical_not m.h5:/b --text nb.txt
	run h5u call add m.h5:/s 1
	assert_output "3.5"
	run h5u call greater m.h5:/i8 0
	assert_output $'False\nFalse\nFalse\nTrue\nTrue\nTrue'
	run h5u call add m.h5:/c31 m.h5:/r14
	assert_equal "${#lines[@]}" 3
	[[ ${lines[0]} =~ ^-?[0-9]+\ -?[0-9]+\ -?[0-9]+\ -?[0-9]+$ ]] || fail "a row is not 4 values: ${lines[0]}"
	run h5u call negative m.h5:/t513
	# 5 blocks of 1 row, separated by blank lines.
	assert_equal "$(grep -c '^$' <<<"$output")" 4
}

@test "printed floats are Python's shortest round-trip form" {
	fixture m.h5
	run --separate-stderr h5u call positive m.h5:/fmt
	assert_success
	assert_output $'0.1\n1.0\n1e-300\nnan\ninf\n-inf\n-0.0\n1e+16\n123456.789\n-2.5'
	run --separate-stderr h5u call positive m.h5:/fmt32
	assert_success
	assert_output $'0.1\n2.5\n1e-05\n3.0'
	run --separate-stderr h5u call positive m.h5:/fmt16
	assert_success
	assert_output $'0.1\n65500.0\n-2.0'
	run --separate-stderr h5u call divide m.h5:/f32 3
	assert_success
	np printed divide m.h5:/f32 3 <<<"$output"
	run --separate-stderr h5u call multiply m.h5:/h16 3
	assert_success
	np printed multiply m.h5:/h16 3 <<<"$output"
}

@test "printed values of every dtype at the edges of its range" {
	fixture in.h5
	local t jobs=()
	for t in "${DTYPES[@]}"; do
		h5u call maximum in.h5:/a_"$t" in.h5:/b_"$t" >"p_$t.txt"
		h5u call minimum in.h5:/b_"$t" 0 >"q_$t.txt"
		jobs+=(:: printed maximum in.h5:/a_"$t" in.h5:/b_"$t" --text "p_$t.txt"
			:: printed minimum in.h5:/b_"$t" 0 --text "q_$t.txt")
	done
	np "${jobs[@]:1}"
}

@test "two-output ufuncs print both results separated by a blank line" {
	fixture m.h5
	h5u call divmod m.h5:/i32 4 >d.txt
	h5u call modf m.h5:/f32 >m.txt
	h5u call frexp m.h5:/f64 >f.txt
	np printed divmod m.h5:/i32 4 --text d.txt :: \
		printed modf m.h5:/f32 --text m.txt :: \
		printed frexp m.h5:/f64 --text f.txt
	run h5u call divmod m.h5:/i32 4
	assert_equal "${#lines[@]}" 12
	assert_equal "$(grep -c '^$' <<<"$output")" 1
}

@test "two-output ufuncs write both datasets with -o OUT,OUT2" {
	fixture m.h5
	h5u call divmod m.h5:/i32 m.h5:/i8 -o o.h5:/q,o.h5:/r
	h5u call modf m.h5:/m34 -o o.h5:/frac,p.h5:/whole
	h5u call frexp m.h5:/h16 -o o.h5:/mant,o.h5:/exp
	h5u call divmod m.h5:/f32 -1.5 -o o.h5:/fq,o.h5:/fr
	np check divmod m.h5:/i32 m.h5:/i8 -o o.h5:/q,o.h5:/r :: \
		check modf m.h5:/m34 -o o.h5:/frac,p.h5:/whole :: \
		check frexp m.h5:/h16 -o o.h5:/mant,o.h5:/exp :: \
		check divmod m.h5:/f32 -1.5 -o o.h5:/fq,o.h5:/fr
	run np ls o.h5
	assert_line "/exp int32 (6)"
	assert_line "/mant float16 (6)"
}

@test "--dtype chooses the loop as NumPy's dtype= does" {
	fixture m.h5 t.h5
	h5u call add t.h5:/x_int8 t.h5:/y_int8 --dtype float32 -o o.h5:/a
	h5u call multiply m.h5:/i8 2 --dtype int16 -o o.h5:/b
	h5u call sqrt m.h5:/i8pos --dtype float32 -o o.h5:/c
	h5u call divide m.h5:/i32 7 --dtype float32 -o o.h5:/d
	h5u call add m.h5:/b m.h5:/b --dtype int8 -o o.h5:/e
	h5u call floor m.h5:/i32 --dtype float64 -o o.h5:/f
	h5u call minimum m.h5:/i8 m.h5:/u16 --dtype float64 -o o.h5:/g
	np check add t.h5:/x_int8 t.h5:/y_int8 --dtype float32 -o o.h5:/a :: \
		check multiply m.h5:/i8 2 --dtype int16 -o o.h5:/b :: \
		check sqrt m.h5:/i8pos --dtype float32 -o o.h5:/c :: \
		check divide m.h5:/i32 7 --dtype float32 -o o.h5:/d :: \
		check add m.h5:/b m.h5:/b --dtype int8 -o o.h5:/e :: \
		check floor m.h5:/i32 --dtype float64 -o o.h5:/f :: \
		check minimum m.h5:/i8 m.h5:/u16 --dtype float64 -o o.h5:/g
}

@test "--casting: same_kind by default, no/safe stricter, unsafe allowed" {
	fixture m.h5
	snapshot
	run --separate-stderr h5u call add m.h5:/m34 m.h5:/m34 --dtype int32 -o o.h5:/a
	assert_error_match 2 "call add: Cannot cast ufunc 'add' input 0 from (dtype\('float64'\)|float64) to (dtype\('int32'\)|int32) with casting rule 'same_kind'"
	run --separate-stderr h5u call add m.h5:/i8 m.h5:/i32 --casting no -o o.h5:/a
	assert_error_match 2 "call add: Cannot cast ufunc 'add' input 0 from (dtype\('int8'\)|int8) to (dtype\('int32'\)|int32) with casting rule 'no'"
	run --separate-stderr h5u call add m.h5:/m34 m.h5:/v4 --dtype float32 --casting safe -o o.h5:/a
	assert_error_match 2 "call add: Cannot cast ufunc 'add' input 0 from (dtype\('float64'\)|float64) to (dtype\('float32'\)|float32) with casting rule 'safe'"
	assert_unchanged
	h5u call add m.h5:/m34 m.h5:/m34 --dtype int32 --casting unsafe -o o.h5:/a
	h5u call add m.h5:/m34 m.h5:/v4 --dtype float32 -o o.h5:/b
	h5u call add m.h5:/i32 m.h5:/i32 --casting no -o o.h5:/c
	h5u call multiply m.h5:/i8 m.h5:/u16 --casting equiv -o o.h5:/d 2>/dev/null && st=0 || st=$?
	assert_equal "$st" 2
	np check add m.h5:/m34 m.h5:/m34 --dtype int32 --casting unsafe -o o.h5:/a :: \
		check add m.h5:/m34 m.h5:/v4 --dtype float32 -o o.h5:/b :: \
		check add m.h5:/i32 m.h5:/i32 --casting no -o o.h5:/c
}

@test "NumPy 2's aliases call the same ufuncs" {
	fixture m.h5
	local pairs=(
		"acos arccos" "asin arcsin" "atan arctan" "acosh arccosh" "asinh arcsinh"
		"atanh arctanh" "abs absolute" "conj conjugate" "bitwise_invert invert"
		"bitwise_not invert"
	)
	local p alias jobs=()
	for p in "${pairs[@]}"; do
		alias=${p%% *}
		case $alias in
		bitwise_*) h5u call "$alias" m.h5:/i32 -o "o.h5:/$alias"
			jobs+=(:: check "${p#* }" m.h5:/i32 -o "o.h5:/$alias") ;;
		*) h5u call "$alias" m.h5:/f32 -o "o.h5:/$alias"
			jobs+=(:: check "${p#* }" m.h5:/f32 -o "o.h5:/$alias") ;;
		esac
	done
	h5u call atan2 m.h5:/f32 m.h5:/i8 -o o.h5:/atan2
	h5u call pow m.h5:/i32 m.h5:/i8pos -o o.h5:/pow
	h5u call true_divide m.h5:/i32 m.h5:/i8pos -o o.h5:/true_divide
	h5u call mod m.h5:/i32 m.h5:/i8 -o o.h5:/mod
	h5u call bitwise_left_shift m.h5:/i32 m.h5:/i8pos -o o.h5:/bls
	h5u call bitwise_right_shift m.h5:/i32 m.h5:/i8pos -o o.h5:/brs
	np "${jobs[@]:1}" :: \
		check arctan2 m.h5:/f32 m.h5:/i8 -o o.h5:/atan2 :: \
		check power m.h5:/i32 m.h5:/i8pos -o o.h5:/pow :: \
		check divide m.h5:/i32 m.h5:/i8pos -o o.h5:/true_divide :: \
		check remainder m.h5:/i32 m.h5:/i8 -o o.h5:/mod :: \
		check left_shift m.h5:/i32 m.h5:/i8pos -o o.h5:/bls :: \
		check right_shift m.h5:/i32 m.h5:/i8pos -o o.h5:/brs
}

@test "outputs go to new files in other directories, relative to the working directory" {
	fixture m.h5
	mkdir -p sub/deeper
	h5u call add m.h5:/v4 1 -o sub/deeper/o.h5:/x
	(cd sub && h5u call add ../m.h5:/v4 2 -o ./p.h5:/y)
	np check add m.h5:/v4 1 -o sub/deeper/o.h5:/x :: \
		check add m.h5:/v4 2 -o sub/p.h5:/y
}
