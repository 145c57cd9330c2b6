#!/usr/bin/env bats
# 20-loops: the ufunc catalogue and every type loop of every ufunc, against
# NumPy.  build/unit/loopdump runs each loop over a grid of interesting
# values (and checks that contiguous, strided, backwards, broadcast and
# in-place calls agree); tests/loops_ref.py computes the same with NumPy
# and compares: bit for bit, or within 4 ULP for the transcendental
# functions, with NumPy 2's rules where Debian's NumPy 1.24 differs.

load helper

REF=loops_ref.py

# One Python process checks every ufunc that loopdump lists, each
# ufunc's report in $BATS_FILE_TMPDIR/loops/UFUNC.out (UFUNC.ok where it
# passed); each test below reads its ufunc's.
setup_file() {
	unit_program LOOPDUMP loopdump || return 1
	local names
	names=$("$LOOPDUMP" --list) || return 1
	# shellcheck disable=SC2046  # one word a ufunc
	ref "$LOOPDUMP" --into "$BATS_FILE_TMPDIR/loops" $(cut -d' ' -f1 <<<"$names")
}

# loops UFUNC: every loop of UFUNC agrees with NumPy.
loops() {
	local out=$BATS_FILE_TMPDIR/loops/$1
	[[ -f $out.out ]] || fail "$1: no report (loopdump --list does not name it?)"
	[[ -f $out.ok ]] || fail "$(<"$out.out")"
}

@test "catalogue: names, arity, identities, loops in NumPy's order, aliases" {
	run ref "$LOOPDUMP" --catalogue
	assert_success
}

@test "catalogue: every ufunc has its test below" {
	run "$LOOPDUMP" --list
	assert_success
	local name missing=
	for name in $(printf '%s\n' "$output" | cut -d' ' -f1); do
		grep -q "^@test \"loops: $name\" " "$BATS_TEST_FILENAME" || missing="$missing $name"
	done
	[ -z "$missing" ] || fail "no test for:$missing"
}

@test "loops: absolute" { loops absolute; }
@test "loops: add" { loops add; }
@test "loops: arccos" { loops arccos; }
@test "loops: arccosh" { loops arccosh; }
@test "loops: arcsin" { loops arcsin; }
@test "loops: arcsinh" { loops arcsinh; }
@test "loops: arctan" { loops arctan; }
@test "loops: arctan2" { loops arctan2; }
@test "loops: arctanh" { loops arctanh; }
@test "loops: bitwise_and" { loops bitwise_and; }
@test "loops: bitwise_count" { loops bitwise_count; }
@test "loops: bitwise_or" { loops bitwise_or; }
@test "loops: bitwise_xor" { loops bitwise_xor; }
@test "loops: cbrt" { loops cbrt; }
@test "loops: ceil" { loops ceil; }
@test "loops: conjugate" { loops conjugate; }
@test "loops: copysign" { loops copysign; }
@test "loops: cos" { loops cos; }
@test "loops: cosh" { loops cosh; }
@test "loops: deg2rad" { loops deg2rad; }
@test "loops: degrees" { loops degrees; }
@test "loops: divide" { loops divide; }
@test "loops: divmod" { loops divmod; }
@test "loops: equal" { loops equal; }
@test "loops: exp" { loops exp; }
@test "loops: exp2" { loops exp2; }
@test "loops: expm1" { loops expm1; }
@test "loops: fabs" { loops fabs; }
@test "loops: float_power" { loops float_power; }
@test "loops: floor" { loops floor; }
@test "loops: floor_divide" { loops floor_divide; }
@test "loops: fmax" { loops fmax; }
@test "loops: fmin" { loops fmin; }
@test "loops: fmod" { loops fmod; }
@test "loops: frexp" { loops frexp; }
@test "loops: gcd" { loops gcd; }
@test "loops: greater" { loops greater; }
@test "loops: greater_equal" { loops greater_equal; }
@test "loops: heaviside" { loops heaviside; }
@test "loops: hypot" { loops hypot; }
@test "loops: invert" { loops invert; }
@test "loops: isfinite" { loops isfinite; }
@test "loops: isinf" { loops isinf; }
@test "loops: isnan" { loops isnan; }
@test "loops: lcm" { loops lcm; }
@test "loops: ldexp" { loops ldexp; }
@test "loops: left_shift" { loops left_shift; }
@test "loops: less" { loops less; }
@test "loops: less_equal" { loops less_equal; }
@test "loops: log" { loops log; }
@test "loops: log10" { loops log10; }
@test "loops: log1p" { loops log1p; }
@test "loops: log2" { loops log2; }
@test "loops: logaddexp" { loops logaddexp; }
@test "loops: logaddexp2" { loops logaddexp2; }
@test "loops: logical_and" { loops logical_and; }
@test "loops: logical_not" { loops logical_not; }
@test "loops: logical_or" { loops logical_or; }
@test "loops: logical_xor" { loops logical_xor; }
@test "loops: maximum" { loops maximum; }
@test "loops: minimum" { loops minimum; }
@test "loops: modf" { loops modf; }
@test "loops: multiply" { loops multiply; }
@test "loops: negative" { loops negative; }
@test "loops: nextafter" { loops nextafter; }
@test "loops: not_equal" { loops not_equal; }
@test "loops: positive" { loops positive; }
@test "loops: power" { loops power; }
@test "loops: rad2deg" { loops rad2deg; }
@test "loops: radians" { loops radians; }
@test "loops: reciprocal" { loops reciprocal; }
@test "loops: remainder" { loops remainder; }
@test "loops: right_shift" { loops right_shift; }
@test "loops: rint" { loops rint; }
@test "loops: sign" { loops sign; }
@test "loops: signbit" { loops signbit; }
@test "loops: sin" { loops sin; }
@test "loops: sinh" { loops sinh; }
@test "loops: spacing" { loops spacing; }
@test "loops: sqrt" { loops sqrt; }
@test "loops: square" { loops square; }
@test "loops: subtract" { loops subtract; }
@test "loops: tan" { loops tan; }
@test "loops: tanh" { loops tanh; }
@test "loops: trunc" { loops trunc; }
