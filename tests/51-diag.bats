#!/usr/bin/env bats
# 51-diag.bats - error messages that point into the source: after the line
# "h5ufunc: FILE:LINE:COL: ..." (unchanged, other tests compare it) come the
# recipe's line under a numbered gutter and a caret under the column; tabs
# expanded, control characters and invalid UTF-8 shown as '?', long lines
# trimmed around the column; expressions ("eval: column N: ...") the same;
# errors that point nowhere stay one line, and under mpirun the context is
# printed once.  The expression path and the edge cases the YAML parser never
# lets through are driven through diag.c itself by a small C program.

load helper

DIAGPRINT="${DIAGPRINT:-$H5U_UNIT/diagprint}"

setup_file() {
	fixtures <<-'EOF'
		make f.h5:/x float64 4 data=[1,2,3,4]
		make f.h5:/i8 int8 4 data=[1,-2,3,100]
		make f.h5:/base int16 4 data=[2,3,4,5]
		make f.h5:/neg int16 4 data=[2,1,-1,3]
	EOF
	# a packed dataset (CF's scale_factor) whose third value, on rank 1 of
	# 3, leaves int16's range once 10000 is added
	(cd "$BATS_FILE_TMPDIR" && /usr/bin/python3 -c '
import h5py, numpy as np
with h5py.File("p.h5", "w") as f:
    f.create_dataset("p", data=np.array([2, 4, 16383, 8], np.int16)).attrs["scale_factor"] = 0.5
')
}

setup() {
	fixture f.h5
}

# assert_context LINE SOURCE CARET: stderr is exactly three lines: any first
# line (checked by the caller), then "    LINE | SOURCE" and the caret line
# with CARET spaces before the '^'.
assert_context() {
	local want_source want_caret
	printf -v want_source '%5s | %s' "$1" "$2"
	printf -v want_caret '      | %*s^' "$3" ''
	[[ ${#stderr_lines[@]} -eq 3 ]] || fail "want 3 lines on stderr, got ${#stderr_lines[@]}:"$'\n'"$stderr"
	[[ ${stderr_lines[1]} == "$want_source" ]] ||
		fail "source line: want '$want_source', got '${stderr_lines[1]}'"
	[[ ${stderr_lines[2]} == "$want_caret" ]] ||
		fail "caret line: want '$want_caret', got '${stderr_lines[2]}'"
}

# assert_context_once LINE SOURCE CARET: under mpirun, among the launcher's
# own lines, "    LINE | SOURCE" and the caret line with CARET spaces
# before the '^' are on stderr once each.
assert_context_once() {
	local want_source want_caret n
	printf -v want_source '%5s | %s' "$1" "$2"
	printf -v want_caret '      | %*s^' "$3" ''
	n=$(grep -cxF -- "$want_source" <<<"$stderr" || true)
	assert_equal "$n" 1
	n=$(grep -cxF -- "$want_caret" <<<"$stderr" || true)
	assert_equal "$n" 1
}

@test "a recipe error shows the line and a caret under the column" {
	cat >r.yaml <<-'EOF'
		inputs:
		  u: f.h5:/x
		steps:
		  - ufunc: add
		    in: [u, w]
		    out: o.h5:/y
	EOF
	run --separate-stderr h5u run r.yaml
	assert_equal "$status" 2
	assert_output ''
	assert_equal "${stderr_lines[0]}" "h5ufunc: r.yaml:5:13: step 1 (ufunc add): unknown name 'w'"
	assert_context 5 '    in: [u, w]' 12
	assert_file_not_exists o.h5
}

@test "the first line is the message as before; check shows the same context" {
	printf 'steps:\n  - ufunc: foo\n    in: [f.h5:/x, 1]\n' >r.yaml
	run --separate-stderr h5u check r.yaml
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "h5ufunc: r.yaml:2:12: step 1 (ufunc foo): unknown ufunc 'foo'"
	assert_context 2 '  - ufunc: foo' 11
}

@test "a YAML syntax error points at its line" {
	printf 'steps:\n  - ufunc: add\n    in: [f.h5:/x, 1]\n   out: o.h5:/y\n' >r.yaml
	run --separate-stderr h5u run r.yaml
	assert_equal "$status" 2
	[[ ${stderr_lines[0]} =~ ^h5ufunc:\ r\.yaml:([0-9]+):([0-9]+):\  ]] || fail "no location: ${stderr_lines[0]}"
	local line=${BASH_REMATCH[1]} col=${BASH_REMATCH[2]} text
	text=$(sed -n "${line}p" r.yaml)
	assert_context "$line" "$text" $((col - 1))
}

@test "a recipe from stdin is shown as <stdin>" {
	run --separate-stderr h5u run - <<-'EOF'
		steps:
		  - ufunc: add
		    in: [f.h5:/x, w]
	EOF
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "h5ufunc: <stdin>:3:19: step 1 (ufunc add): unknown name 'w'"
	assert_context 3 '    in: [f.h5:/x, w]' 18
}

@test "tabs are expanded to stops of eight, the caret following them" {
	printf 'inputs:\n  u: f.h5:/x\nsteps:\n  - ufunc: add\n    in: [u,\tw]\n' >r.yaml
	run --separate-stderr h5u run r.yaml
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "h5ufunc: r.yaml:5:13: step 1 (ufunc add): unknown name 'w'"
	# "    in: [u," is 11 cells; the tab reaches 16, where w is.
	assert_context 5 '    in: [u,     w]' 16
	[[ $stderr != *$'\t'* ]] || fail "a tab reached stderr"
}

@test "columns count characters: the caret is under the name after non-ASCII text" {
	printf 'steps:\n  - {out: "ééé€.h5:/y", ufunc: add, in: [1, w]}\n' >r.yaml
	run --separate-stderr h5u run r.yaml
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "h5ufunc: r.yaml:2:45: step 1 (ufunc add): unknown name 'w'"
	assert_context 2 '  - {out: "ééé€.h5:/y", ufunc: add, in: [1, w]}' 44
}

@test "invalid UTF-8 and control characters are shown as '?'" {
	printf 'steps:\n  - ufunc: add\n    in: [\xff, w]\n' >bad.yaml
	run --separate-stderr h5u run bad.yaml
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "h5ufunc: bad.yaml:3:10: invalid leading UTF-8 octet (byte 0xff)"
	assert_context 3 '    in: [?, w]' 9
	printf 'steps:\n  - ufunc: add\n    in: [f.h5:/x, \x01]\n' >ctl.yaml
	run --separate-stderr h5u run ctl.yaml
	assert_equal "$status" 2
	[[ ${stderr_lines[0]} == "h5ufunc: ctl.yaml:3:19: "* ]] || fail "first line: ${stderr_lines[0]}"
	assert_context 3 '    in: [f.h5:/x, ?]' 18
	# What reaches stderr is valid UTF-8 without control characters.
	printf '%s' "$stderr" | /usr/bin/python3 -c '
import sys
t = sys.stdin.buffer.read().decode("utf-8")
assert all(c == "\n" or ord(c) >= 32 for c in t), repr(t)'
}

@test "a long line is trimmed around the column, the caret still under it" {
	local long
	long=$(printf 'a%.0s' {1..150})
	printf 'steps:\n  - {out: "o.h5:/%s", ufunc: add, in: [1, w], overwrite: true, casting: same_kind, dtype: float64}\n' "$long" >r.yaml
	run --separate-stderr h5u run r.yaml
	assert_equal "$status" 2
	[[ ${stderr_lines[0]} == "h5ufunc: r.yaml:2:"*": step 1 (ufunc add): unknown name 'w'" ]] ||
		fail "first line: ${stderr_lines[0]}"
	[[ ${#stderr_lines[@]} -eq 3 ]] || fail "want 3 lines: $stderr"
	local src=${stderr_lines[1]} caret=${stderr_lines[2]}
	[[ $src == "    2 | ..."*"..." ]] || fail "not trimmed on both sides: '$src'"
	((${#src} <= 100)) || fail "the shown line is ${#src} characters long"
	# The caret's column in the caret line is the w's in the source line.
	local at=${caret%%^*}
	[[ ${src:${#at}:4} == "w], " ]] || fail "caret under '${src:${#at}:4}', want 'w], ':"$'\n'"$src"$'\n'"$caret"
}

@test "errors that point into no source stay one line" {
	run --separate-stderr h5u call foo f.h5:/x 1
	assert_error_match 2 "call( foo)?: unknown ufunc 'foo'"
	run --separate-stderr h5u run missing.yaml
	assert_equal "$status" 2
	assert_equal "${#stderr_lines[@]}" 1
	run --separate-stderr h5u call add f.h5:/x f.h5:/nope
	assert_equal "$status" 2
	assert_equal "${#stderr_lines[@]}" 1
}

@test "under mpirun the message and its context are printed once" {
	printf 'inputs:\n  u: f.h5:/x\nsteps:\n  - ufunc: add\n    in: [u, w]\n' >r.yaml
	run --separate-stderr mpi 3 h5ufunc run r.yaml
	assert_error_once 2 "r.yaml:5:13: step 1 (ufunc add): unknown name 'w'"
	assert_context_once 5 '    in: [u, w]' 12
}

@test "errors raised below the planner, and while running, point at the recipe's node" {
	# a literal that literal.c refuses for the loop resolve.c chose (NEP 50)
	printf 'steps:\n  - ufunc: add\n    in: [f.h5:/i8, 300]\n    out: o.h5:/y\n' >r.yaml
	run --separate-stderr h5u run r.yaml
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" \
		"h5ufunc: r.yaml:3:20: step 1 (ufunc add): Python integer 300 out of bounds for int8"
	assert_context 3 '    in: [f.h5:/i8, 300]' 19
	# a file h5io.c cannot open
	printf 'not HDF5\n' >bad.h5
	printf 'steps:\n  - ufunc: add\n    in: [bad.h5:/x, 1]\n    out: o.h5:/y\n' >r.yaml
	run --separate-stderr h5u run r.yaml
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "h5ufunc: r.yaml:3:10: step 1 (ufunc add): 'bad.h5' is not an HDF5 file"
	assert_context 3 '    in: [bad.h5:/x, 1]' 9
	# a data fault of a step fused into the one before it, raised on a
	# rank other than 0 (the -1 is the third of four rows on three ranks)
	printf 'steps:\n  - ufunc: add\n    in: [f.h5:/base, 1]\n    out: t\n' >r.yaml
	printf '  - ufunc: power\n    in: [t, f.h5:/neg]\n    out: o.h5:/y\n' >>r.yaml
	run --separate-stderr mpi 3 h5ufunc run r.yaml
	assert_error_once 1 "r.yaml:5:5: step 2 (ufunc power): Integers to negative integer powers are not allowed."
	assert_context_once 5 '  - ufunc: power' 4
	assert_file_not_exists o.h5
}

@test "an option given under defaults: is pointed at where it is written" {
	local verb
	for verb in reduce accumulate; do
		printf 'defaults:\n  axis: 5\nsteps:\n  - %s: add\n    in: f.h5:/x\n    out: o.h5:/y\n' "$verb" >r.yaml
		run --separate-stderr h5u check r.yaml
		assert_equal "$status" 2
		assert_equal "${stderr_lines[0]}" \
			"h5ufunc: r.yaml:2:9: step 1 ($verb add): axis 5 is out of bounds for array of dimension 1"
		assert_context 2 '  axis: 5' 8
	done
	# the step's own axis wins over the default, and is pointed at
	printf 'defaults:\n  axis: 0\nsteps:\n  - reduce: add\n    in: f.h5:/x\n    axis: -2\n    out: o.h5:/y\n' >r.yaml
	run --separate-stderr h5u run r.yaml
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" \
		"h5ufunc: r.yaml:6:11: step 1 (reduce add): axis -2 is out of bounds for array of dimension 1"
	assert_context 6 '    axis: -2' 10
	assert_file_not_exists o.h5
}

@test "an error found as a step writes, after its values are computed, points at the step" {
	fixture p.h5
	printf 'steps:\n  - ufunc: add\n    in: [p.h5:/p, 10000]\n    out: p.h5:/p\n' >r.yaml
	local msg="r.yaml:2:5: step 1 (ufunc add): 18191.5 cannot be packed into 'p.h5:/p' (int16, scale_factor 0.5): out of range; 'p.h5:/p' is as it was before the run"
	run --separate-stderr h5u run r.yaml
	assert_equal "$status" 1
	assert_equal "${stderr_lines[0]}" "h5ufunc: $msg"
	assert_context 2 '  - ufunc: add' 4
	cmp p.h5 "$BATS_FILE_TMPDIR/p.h5"
	run --separate-stderr mpi 3 h5ufunc run r.yaml
	assert_error_once 1 "$msg"
	assert_context_once 2 '  - ufunc: add' 4
	cmp p.h5 "$BATS_FILE_TMPDIR/p.h5"
}

# ---- diag.c driven directly -------------------------------------------

# build_driver: ./driver NAME TEXTFILE MESSAGE registers a source and
# prints an error record through diag_print (build/unit/diagprint, which
# make builds with the same flags as h5ufunc).
build_driver() {
	[[ -x $DIAGPRINT ]] || fail "$DIAGPRINT is missing: run make"
	ln -sf "$DIAGPRINT" driver
}

@test "an expression error shows the expression and a caret (diag_print)" {
	build_driver
	printf 'a + w * 2' >expr.txt
	run --separate-stderr ./driver '<expression>' expr.txt "eval: column 5: unknown name 'w'"
	assert_equal "${stderr_lines[0]}" "h5ufunc: eval: column 5: unknown name 'w'"
	assert_context 1 'a + w * 2' 4
	# Without a registered expression, or with another form, one line.
	run --separate-stderr ./driver other expr.txt "eval: column 5: unknown name 'w'"
	assert_equal "${#stderr_lines[@]}" 1
	run --separate-stderr ./driver '<expression>' expr.txt "eval: unknown name 'w'"
	assert_equal "${#stderr_lines[@]}" 1
	run --separate-stderr ./driver '<expression>' expr.txt "eval: column 99: past the end"
	assert_equal "${#stderr_lines[@]}" 1
}

@test "h5ufunc eval points into the expression" {
	run --separate-stderr h5u eval -i a=f.h5:/x 'a + w * 2'
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "h5ufunc: eval: column 5: unknown name 'w'"
	((${#stderr_lines[@]} > 1)) || skip "cmd_eval does not register the expression with diag_set_source yet"
	assert_context 1 'a + w * 2' 4
}

@test "diag_print: CRLF and NEL line ends, a byte order mark, a column past the end" {
	build_driver
	printf 'one\r\ntwo\r\nthree x\r\n' >crlf.txt
	run --separate-stderr ./driver r.yaml crlf.txt "r.yaml:3:7: here"
	assert_context 3 'three x' 6
	printf 'one\xc2\x85two x\n' >nel.txt
	run --separate-stderr ./driver r.yaml nel.txt "r.yaml:2:5: here"
	assert_context 2 'two x' 4
	printf '\xef\xbb\xbfsteps: x\n' >bom.txt
	run --separate-stderr ./driver r.yaml bom.txt "r.yaml:1:8: here"
	assert_context 1 'steps: x' 7
	run --separate-stderr ./driver r.yaml bom.txt "r.yaml:1:10: here"
	assert_context 1 'steps: x' 9
	run --separate-stderr ./driver r.yaml bom.txt "r.yaml:7:1: no such line"
	assert_equal "${#stderr_lines[@]}" 1
	# A path that only starts like the registered one is not it.
	run --separate-stderr ./driver r.yaml bom.txt "r.yaml.bak:1:1: other file"
	assert_equal "${#stderr_lines[@]}" 1
}

@test "diag_print: wide characters take two cells, bidi overrides are shown as '?'" {
	build_driver
	printf '漢字 x\n' >wide.txt
	run --separate-stderr ./driver w.txt wide.txt "w.txt:1:4: here"
	assert_context 1 '漢字 x' 5
	printf 'a\xe2\x80\xaeb x\n' >bidi.txt
	run --separate-stderr ./driver b.txt bidi.txt "b.txt:1:5: here"
	assert_context 1 'a?b x' 4
}
