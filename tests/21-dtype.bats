#!/usr/bin/env bats
# 21-dtype: dtypes, casting rules, conversions, literals and printing,
# compared with NumPy table by table.  build/unit/dtypecheck prints what the
# dtype, literal and print modules do; tests/dtype_ref.py prints what NumPy
# does (its NumPy 2 rules where Debian's NumPy 1.24 differs).

load helper

REF=dtype_ref.py

setup_file() {
	unit_program DTYPECHECK dtypecheck
}

# compare SECTION [input]: dtypecheck SECTION against dtype_ref.py SECTION;
# with "input", dtypecheck reads the lines that dtype_ref.py SECTION-input
# makes (the reference builds the same ones itself).
compare() {
	local section=$1 dir=$BATS_TEST_TMPDIR
	if [ "${2-}" = input ]; then
		ref "$section-input" >"$dir/input"
	else
		: >"$dir/input"
	fi
	"$DTYPECHECK" "$section" <"$dir/input" >"$dir/got"
	ref "$section" >"$dir/want"
	if ! cmp -s "$dir/want" "$dir/got"; then
		echo "dtypecheck $section differs from NumPy (first differences, - NumPy + h5ufunc):"
		diff -u "$dir/want" "$dir/got" | head -n 60
		return 1
	fi
}

@test "can_cast: every pair of dtypes under no, equiv, safe, same_kind, unsafe" {
	compare cancast
}

@test "can_cast with either dtype in the other byte order: no refuses it, equiv and the rest allow it" {
	compare cancastorder
}

@test "promote_types: every pair of dtypes" {
	compare promote
}

@test "casting rule names" {
	compare casting
}

@test "type characters of NumPy's ufunc loops" {
	compare typechar
}

@test "dtype names as np.dtype() reads them" {
	compare names input
}

@test "casts: all 144 pairs bit for bit, every float16, float16 rounding boundaries" {
	compare cast input
}

@test "casts in place agree with casts out of place" {
	compare inplace
}

@test "literals: parsing, default dtype, NEP 50 conversion and casting" {
	compare literal input
}

@test "printing: shortest round-trip floats (every float16), integers, bools, JSON" {
	compare print input
}

@test "printing arrays: scalar, 1-D, 2-D, blocks of higher dimensions, empty, JSON" {
	compare array
}

# A few of the rules above spelled out, NumPy 2's where 1.24 differs.

@test "NEP 50: an integer literal out of range is an error naming the value and dtype" {
	run "$DTYPECHECK" literal <<<'300'
	assert_success
	assert_line "'300' int8 status 2: operand: Python integer 300 out of bounds for int8 can_cast 11111"
	assert_line "'300' int16 012c can_cast 11111"
	assert_line "'300' float16 5cb0 can_cast 11111"
	assert_line "'300' bool 01 can_cast 00001"
}

@test "NEP 50: a float literal overflows float16 to inf and goes to no integer dtype safely" {
	run "$DTYPECHECK" literal <<<'1e5'
	assert_success
	assert_line "'1e5' float16 7c00 can_cast 11111"
	assert_line "'1e5' int32 000186a0 can_cast 00001"
}

@test "float64 to float16 rounds once, not through float32" {
	# 1 + 2**-11 + 2**-40: through float32 it would tie and round to 1.0
	run "$DTYPECHECK" cast <<<'float64 float16 3ff0020000001000'
	assert_success
	assert_output "float64 float16 3ff0020000001000 3c01"
}

@test "float to integer out of range gives what NumPy gives on x86_64" {
	# 300.0 -> int8 44 (low byte); nan -> int32 INT32_MIN; -1.0 -> uint64 all ones
	run "$DTYPECHECK" cast <<<'float64 int8 4072c00000000000
float64 int32 7ff8000000000000
float64 uint64 bff0000000000000'
	assert_success
	assert_line "float64 int8 4072c00000000000 2c"
	assert_line "float64 int32 7ff8000000000000 80000000"
	assert_line "float64 uint64 bff0000000000000 ffffffffffffffff"
}

@test "floats print as Python writes them" {
	run "$DTYPECHECK" print <<<'float64 3fb999999999999a
float32 3dcccccd
float64 0000000000000001
float64 4341c37937e08000
float64 8000000000000000
float32 38d1b717
float16 7e00'
	assert_success
	assert_output "float64 3fb999999999999a 0.1 0.1
float32 3dcccccd 0.1 0.1
float64 0000000000000001 5e-324 5e-324
float64 4341c37937e08000 1e+16 1e+16
float64 8000000000000000 -0.0 -0.0
float32 38d1b717 1e-04 1e-04
float16 7e00 nan \"nan\""
}
