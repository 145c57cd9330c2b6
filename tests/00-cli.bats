#!/usr/bin/env bats
# 00-cli.bats - the command line itself: help, version, the command table,
# option parsing, and the ufunc catalogue that `h5ufunc ufuncs` prints.
# Computation is tested from 10-call.bats on; here only what the command
# line accepts, refuses, and prints about itself.

load helper

COMMANDS=(run check call reduce accumulate eval ufuncs help)

setup_file() {
	fixtures <<-'EOF'
		make f.h5:/x int32 4 data=[1,2,3,4]
		make f.h5:/v float64 3 data=[0.5,-1.25,8.0]
		make -x.h5:/a int8 3 data=[1,2,3]
	EOF
}

@test "--version prints the name and version, the kernels' instruction-set level and what compresses gzip chunks" {
	run --separate-stderr h5u --version
	assert_success
	assert_line --index 0 "h5ufunc 0.1.0"
	assert_line --index 1 --regexp '^kernels: (sse2|avx2|avx512) \(this CPU: (sse2|avx2|avx512)\)$'
	assert_line --index 2 --regexp '^deflate: libdeflate [0-9.]+$'
	[[ ${#lines[@]} -eq 3 ]] || fail "more than three lines"
	assert_stderr_empty
	run --separate-stderr env H5UFUNC_DEFLATE=zlib h5ufunc --version
	assert_success
	assert_line --index 2 "deflate: zlib"
	run --separate-stderr env H5UFUNC_DEFLATE=zstd h5ufunc --version
	assert_error 2 "H5UFUNC_DEFLATE: unknown 'zstd' (libdeflate or zlib)"
}

@test "--help names every command" {
	run --separate-stderr h5u --help
	assert_success
	assert_stderr_empty
	local c
	for c in "${COMMANDS[@]}"; do
		[[ $output == *"h5ufunc $c"* || ($c == help && $output == *"help COMMAND"*) ]] ||
			fail "--help does not show 'h5ufunc $c':"$'\n'"$output"
	done
}

@test "help alone prints the same as --help" {
	run --separate-stderr h5u --help
	local want=$output
	run --separate-stderr h5u help
	assert_success
	assert_output "$want"
}

@test "help COMMAND describes each command" {
	local c
	for c in "${COMMANDS[@]}"; do
		run --separate-stderr h5u help "$c"
		[[ $status -eq 0 ]] || fail "help $c: exit $status: $stderr"
		[[ -z $stderr ]] || fail "help $c wrote to stderr: $stderr"
		[[ $output == *"h5ufunc $c"* || ($c == help && $output == *help*) ]] ||
			fail "help $c does not show its usage 'h5ufunc $c ...':"$'\n'"$output"
	done
}

@test "COMMAND --help and COMMAND -h print what help COMMAND prints" {
	local c want
	for c in "${COMMANDS[@]}" reduceat at recover; do
		run --separate-stderr h5u help "$c"
		assert_success
		want=$output
		[[ $want == *"usage: h5ufunc $c"* ]] || fail "help $c: $want"
		for flag in --help -h; do
			run --separate-stderr h5u "$c" "$flag"
			[[ $status -eq 0 && -z $stderr ]] || fail "$c $flag: exit $status: $stderr"
			assert_output "$want"
		done
	done
}

@test "help of an unknown command is a usage error" {
	run --separate-stderr h5u help frobnicate
	assert_error_match 2 ".*'?frobnicate'?.*"
}

@test "no command at all is a usage error" {
	run --separate-stderr h5u
	assert_equal "$status" 2
	assert_output ""
	[[ $stderr == *h5ufunc* ]] || fail "nothing useful on stderr: '$stderr'"
}

@test "an unknown command is named in the error" {
	run --separate-stderr h5u frobnicate f.h5:/x
	assert_error_match 2 ".*'?frobnicate'?.*"
}

@test "an unknown option is named in the error, and nothing is written" {
	fixture f.h5
	snapshot
	run --separate-stderr h5u call add f.h5:/x 1 -o o.h5:/y --frobnicate
	assert_error_match 2 ".*--frobnicate.*"
	assert_unchanged
	run --separate-stderr h5u --frobnicate call add f.h5:/x 1
	assert_error_match 2 ".*--frobnicate.*"
	run --separate-stderr h5u run --frobnicate r.yaml
	assert_error_match 2 ".*--frobnicate.*"
	assert_unchanged
}

@test "an option without its value is a usage error" {
	fixture f.h5
	local opt
	for opt in --dtype --casting -o --memory --set; do
		run --separate-stderr h5u call add f.h5:/x 1 "$opt"
		[[ $status -eq 2 ]] || fail "'$opt' without a value: exit $status"
		[[ ${#stderr_lines[@]} -eq 1 && ${stderr_lines[0]} == "h5ufunc: "* ]] ||
			fail "'$opt' without a value: stderr is not one 'h5ufunc: ' line: $stderr"
		assert_output ""
	done
}

@test "bad option values are usage errors that name the value" {
	fixture f.h5
	snapshot
	run --separate-stderr h5u call add f.h5:/x 1 --dtype float17
	assert_error_match 2 ".*float17.*"
	run --separate-stderr h5u call add f.h5:/x 1 --casting sometimes
	assert_error_match 2 ".*sometimes.*"
	run --separate-stderr h5u call add f.h5:/x 1 -o o.h5:/y --memory 12Q
	assert_error_match 2 ".*12Q.*"
	run --separate-stderr h5u call add f.h5:/x 1 -o o.h5:/y --memory lots
	assert_error_match 2 ".*lots.*"
	local size
	for size in 0 0.5 1.5 1e3 0x10 0.0001K .5K; do   # no fraction of a byte, decimal only
		run --separate-stderr h5u call add f.h5:/x 1 -o o.h5:/y --memory "$size"
		assert_error 2 "call: --memory: invalid size '$size' (bytes, or a number with K, M, G or T)"
	done
	for size in 1536:1536 1.5K:1536 2KiB:2048 1.5m:1572864 3MB:3145728; do   # what --json reports
		run --separate-stderr h5u call add f.h5:/x 1 --memory "${size%%:*}" --json
		assert_success
		/usr/bin/python3 -c 'import json, sys; assert json.loads(sys.argv[1])["memory"] == int(sys.argv[2])' \
			"$output" "${size#*:}" || fail "--memory ${size%%:*}: $output"
	done
	run --separate-stderr h5u call add f.h5:/x 1 -o o.h5:/y --set NOEQUALSIGN
	assert_error_match 2 ".*NOEQUALSIGN.*"
	assert_unchanged
}

@test "ufuncs lists every NumPy ufunc but isnat, the generalized ones with their signatures" {
	run --separate-stderr h5u ufuncs
	assert_success
	assert_stderr_empty
	np check-catalogue <<<"$output"
	refute_line --regexp '^isnat '
	assert_line --regexp '^matmul 2 1 None \(n\?,k\),\(k,m\?\)->\(n\?,m\?\) \?\?->\? bb->b .* ee->e ff->f dd->d FF->F DD->D$'
	assert_line --regexp '^vecdot 2 1 None \(n\),\(n\)->\(\) '
	assert_line --regexp '^matvec 2 1 None \(m,n\),\(n\)->\(m\) '
	assert_line --regexp '^vecmat 2 1 None \(n\),\(n,m\)->\(m\) '
	# NumPy 2's names are the canonical ones; aliases are not listed as names.
	assert_line --regexp '^divide 2 1 None '
	refute_line --regexp '^(true_divide|acos|pow|abs|mod|conj|bitwise_not|bitwise_invert) '
	assert_line --regexp '^bitwise_count 1 1 None '
}

@test "ufuncs lists NumPy 2's loops where they differ from NumPy 1" {
	run --separate-stderr h5u ufuncs
	assert_success
	# floor/ceil/trunc keep integer dtypes, bitwise_count returns uint8,
	# int64 and uint64 compare exactly.
	assert_line --regexp '^floor 1 1 None (.* )?b->b( .*)? e->e'
	assert_line --regexp '^trunc 1 1 None (.* )?\?->\?( .*)?'
	assert_line --regexp '^bitwise_count 1 1 None (.* )?b->B( .*)?'
	assert_line --regexp '^less 2 1 None (.* )?qQ->\?( .*)?'
	assert_line --regexp '^frexp 1 2 None (.* )?d->di( .*)?'
	assert_line --regexp '^add 2 1 0 \?\?->\? bb->b '
	assert_line --regexp '^logaddexp 2 1 -inf '
	assert_line --regexp '^logical_and 2 1 True '
	assert_line --regexp '^bitwise_and 2 1 -1 '
}

@test "ufuncs NAME describes one ufunc" {
	run --separate-stderr h5u ufuncs add
	assert_success
	assert_stderr_empty
	local key
	for key in name aliases inputs outputs identity reorderable loops doc; do
		assert_line --regexp "^$key:( |\$)"
	done
	assert_line "name: add"
	assert_line "inputs: 2"
	assert_line "outputs: 1"
	assert_line "identity: 0"
	assert_line --regexp '^loops: (.* )?ff->f( |$)'
	refute_line --regexp '^signature:'
	run --separate-stderr h5u ufuncs matmul
	assert_success
	assert_line "signature: (n?,k),(k,m?)->(n?,m?)"
	assert_line "reduce: no (a generalized ufunc)"
}

@test "ufuncs NAME accepts NumPy 2's aliases and shows the canonical name" {
	run --separate-stderr h5u ufuncs acos
	assert_success
	assert_line "name: arccos"
	assert_line --regexp '^aliases: (.*[ ,])?acos([ ,]|$)'
	run --separate-stderr h5u ufuncs true_divide
	assert_success
	assert_line "name: divide"
	run --separate-stderr h5u ufuncs pow
	assert_success
	assert_line "name: power"
	run --separate-stderr h5u ufuncs divmod
	assert_success
	assert_line "outputs: 2"
	assert_line "identity: None"
}

@test "ufuncs of an unknown name is an error" {
	run --separate-stderr h5u ufuncs frobnicate
	assert_error_match 2 "(ufuncs( frobnicate)?: )?unknown ufunc 'frobnicate'"
}

@test "a negative number is an operand, never an option" {
	fixture f.h5
	h5u call add f.h5:/x -3 >o1.txt
	h5u call subtract -2.5 f.h5:/v >o2.txt
	h5u call add f.h5:/v -inf >o3.txt
	h5u call multiply f.h5:/v -1e-3 >o4.txt
	h5u call maximum -2 f.h5:/x >o5.txt
	np printed add f.h5:/x -3 --text o1.txt :: \
		printed subtract -2.5 f.h5:/v --text o2.txt :: \
		printed add f.h5:/v -inf --text o3.txt :: \
		printed multiply f.h5:/v -1e-3 --text o4.txt :: \
		printed maximum -2 f.h5:/x --text o5.txt
}

@test "-- ends the options: what follows is an operand" {
	fixture -x.h5
	run --separate-stderr h5u call add -- -x.h5:/a 1
	assert_success
	np printed add ./-x.h5:/a 1 <<<"$output"
	# Without it, -x.h5:/a is an unknown option, and the message says where
	# it goes.
	run --separate-stderr h5u call add -x.h5:/a 1
	assert_error 2 "call: unknown option '-x.h5:/a' (an operand or expression that starts with - goes after --: h5ufunc call ... -- '-x.h5:/a')"
	# So is an expression that starts with -, and after -- it is NumPy's.
	fixture f.h5
	run --separate-stderr h5u eval -i v=f.h5:/v '-v**2'
	assert_error 2 "eval: unknown option '-v**2' (an operand or expression that starts with - goes after --: h5ufunc eval ... -- '-v**2')"
	run --separate-stderr h5u eval -i v=f.h5:/v -- '-v**2'
	assert_success
	np let sq power f.h5:/v 2 :: printed negative sq <<<"$output"
}

@test "options may follow the operands, -q keeps stdout and stderr quiet" {
	fixture f.h5
	run --separate-stderr h5u call add f.h5:/x 1 -o o.h5:/y -q
	assert_success
	assert_output ""
	assert_stderr_empty
	np check add f.h5:/x 1 -o o.h5:/y
	run --separate-stderr h5u call add f.h5:/x 1 -o o.h5:/z --quiet
	assert_success
	assert_output ""
	assert_stderr_empty
}

@test "run and check need a recipe argument" {
	run --separate-stderr h5u run
	assert_equal "$status" 2
	[[ $stderr == "h5ufunc: "* ]] || fail "stderr: $stderr"
	run --separate-stderr h5u check
	assert_equal "$status" 2
	[[ $stderr == "h5ufunc: "* ]] || fail "stderr: $stderr"
}

@test "call needs a ufunc and operands" {
	run --separate-stderr h5u call
	assert_equal "$status" 2
	[[ $stderr == "h5ufunc: "* ]] || fail "stderr: $stderr"
}
