#!/usr/bin/env bats
# 13-errors.bats - every way a run can be refused or fail: the exit status
# (2 before writing, 1 while running), the one line on stderr
# "h5ufunc: WHERE: WHAT" with NumPy's text where NumPy has one, and proof
# that nothing was written (every file's checksum, no new or temporary file).

load helper

setup_file() {
	fixtures <<-'EOF'
		make f.h5:/x float64 4
		make f.h5:/v3 float64 3
		make f.h5:/v4 float64 4
		make f.h5:/i8 int8 4 data=[1,-2,3,100]
		make f.h5:/u8 uint8 4 data=[0,1,2,255]
		make f.h5:/b bool 3 data=[True,False,True]
		make f.h5:/base int16 4 data=[2,3,4,5]
		make f.h5:/neg int16 4 data=[2,1,-1,3]
		make f.h5:/g/inner float64 2
		make f.h5:/s string 3
		make e.h5:/x int32 4,3
		make e.h5:/old int32 4,3
		make e.h5:/keep int32 4,3
		make big.h5:/big int8 1001,1000 fill=zeros gzip=9
	EOF
}

setup() {
	fixture f.h5
	snapshot
}

@test "unknown ufunc" {
	run --separate-stderr h5u call foo f.h5:/x 1 -o o.h5:/y
	assert_error_match 2 "call( foo)?: unknown ufunc 'foo'"
	cat >r.yaml <<-'EOF'
		steps:
		  - ufunc: foo
		    in: [f.h5:/x, 1]
		    out: o.h5:/y
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:2:12: step 1 (ufunc foo): unknown ufunc 'foo'"
	assert_unchanged
}

@test "unknown name in a recipe" {
	cat >r.yaml <<-'EOF'
		inputs:
		  u: f.h5:/x
		steps:
		  - ufunc: add
		    in: [u, w]
		    out: o.h5:/y
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error_match 2 "r\.yaml:5:(9|13): step 1 \(ufunc add\): unknown name 'w'"
	assert_unchanged
}

@test "wrong number of inputs" {
	run --separate-stderr h5u call add f.h5:/x -o o.h5:/y
	assert_error 2 "call add: ufunc 'add' takes 2 inputs, got 1"
	run --separate-stderr h5u call sqrt f.h5:/x f.h5:/x -o o.h5:/y
	assert_error_match 2 "call sqrt: ufunc 'sqrt' takes 1 inputs?, got 2"
	cat >r.yaml <<-'EOF'
		steps:
		  - {ufunc: add, in: [f.h5:/x], out: o.h5:/y}
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error_match 2 "r\.yaml:[23]:[0-9]+: step 1 \(ufunc add\): ufunc 'add' takes 2 inputs, got 1"
	assert_unchanged
}

@test "two -o outputs for a one-output ufunc" {
	run --separate-stderr h5u call add f.h5:/x 1 -o o.h5:/y,o.h5:/z
	assert_error_match 2 "call add: .+"
	assert_unchanged
}

@test "missing file" {
	run --separate-stderr h5u call add missing.h5:/x 1 -o o.h5:/y
	assert_error 2 "call add: cannot open 'missing.h5': No such file or directory"
	cat >r.yaml <<-'EOF'
		inputs: {u: missing.h5:/x}
		steps:
		  - {ufunc: add, in: [u, 1], out: o.h5:/y}
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error_match 2 "r\.yaml:[0-9]+:[0-9]+: (step 1 \(ufunc add\): )?cannot open 'missing\.h5': No such file or directory"
	assert_unchanged
}

@test "missing dataset" {
	run --separate-stderr h5u call add f.h5:/nope 1 -o o.h5:/y
	assert_error 2 "call add: 'f.h5' has no dataset '/nope'"
	run --separate-stderr h5u call add 1 f.h5:/g/none/deep
	assert_error 2 "call add: 'f.h5' has no dataset '/g/none/deep'"
	assert_unchanged
}

@test "a group is not a dataset" {
	run --separate-stderr h5u call add f.h5:/g 1 -o o.h5:/y
	assert_error 2 "call add: 'f.h5:/g' is a group, not a dataset"
	assert_unchanged
}

@test "a dataset of an unsupported type" {
	run --separate-stderr h5u call add f.h5:/s 1 -o o.h5:/y
	assert_error 2 "call add: 'f.h5:/s' has unsupported type (string)"
	assert_unchanged
}

@test "a file that is not HDF5, an operand that is neither dataset nor number" {
	echo "just text" >notes.h5
	snapshot
	run --separate-stderr h5u call add notes.h5:/x 1 -o o.h5:/y
	assert_error_match 2 "call add: .*notes\.h5.*"
	run --separate-stderr h5u call add f.h5 1 -o o.h5:/y
	assert_error_match 2 "call add: .*f\.h5.*"
	run --separate-stderr h5u call add f.h5:/x 1.2.3 -o o.h5:/y
	assert_error_match 2 "call add: .*1\.2\.3.*"
	assert_unchanged
}

@test "shapes that do not broadcast" {
	run --separate-stderr h5u call add f.h5:/v3 f.h5:/v4 -o o.h5:/y
	assert_error 2 "call add: operands could not be broadcast together with shapes (3,) (4,)"
	cat >r.yaml <<-'EOF'
		version: 1
		steps:
		  - ufunc: add
		    in: [f.h5:/v3, f.h5:/v3]
		    out: o.h5:/s
		  - ufunc: add
		    in: [f.h5:/v3, f.h5:/v4]
		    out: o.h5:/t
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error_match 2 "r\\.yaml:7:(9|10): step 2 \\(ufunc add\\): operands could not be broadcast together with shapes \\(3,\\) \\(4,\\)"
	assert_unchanged
}

@test "an integer literal out of the array's range (NEP 50)" {
	run --separate-stderr h5u call add f.h5:/i8 300 -o o.h5:/y
	assert_error 2 "call add: Python integer 300 out of bounds for int8"
	run --separate-stderr h5u call add f.h5:/u8 -1
	assert_error 2 "call add: Python integer -1 out of bounds for uint8"
	assert_unchanged
}

@test "integers to negative integer powers: exit 1, nothing left behind" {
	run --separate-stderr h5u call power f.h5:/base f.h5:/neg -o n.h5:/p
	assert_error 1 "call power: Integers to negative integer powers are not allowed."
	assert_unchanged
	run --separate-stderr h5u call power f.h5:/base f.h5:/neg
	assert_error 1 "call power: Integers to negative integer powers are not allowed."
	assert_unchanged
}

@test "a NumPy message joined with what became of a dataset written in place loses its full stop, on 1 and 3 ranks" {
	local numpy
	numpy=$(/usr/bin/python3 -c '
import h5py, numpy as np
with h5py.File("f.h5", "r") as f:
    try:
        np.power(f["base"][()], f["neg"][()])
    except ValueError as e:
        print(e)')
	[[ $numpy == *. ]] || fail "NumPy's message has no full stop: $numpy"
	local n cmd
	for n in 0 1 3; do
		cmd=(h5u)
		((n == 0)) || cmd=(mpi "$n" h5ufunc)
		run --separate-stderr "${cmd[@]}" call power f.h5:/base f.h5:/neg -o f.h5:/base
		assert_error_once 1 "call power: ${numpy%.}; 'f.h5:/base' is as it was before the run"
		# alone, the message is NumPy's as it is
		run --separate-stderr "${cmd[@]}" call power f.h5:/base f.h5:/neg
		assert_error_once 1 "call power: $numpy"
		assert_unchanged
	done
}

@test "no loop for the input types: NumPy's message" {
	run --separate-stderr h5u call left_shift f.h5:/x f.h5:/x -o o.h5:/y
	assert_error 2 "call left_shift: ufunc 'left_shift' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''"
	run --separate-stderr h5u call negative f.h5:/b -o o.h5:/y
	assert_error 2 "call negative: The numpy boolean negative, the \`-\` operator, is not supported, use the \`~\` operator or the logical_not function instead."
	run --separate-stderr h5u call subtract f.h5:/b f.h5:/b -o o.h5:/y
	assert_error 2 "call subtract: numpy boolean subtract, the \`-\` operator, is not supported, use the bitwise_xor, the \`^\` operator, or the logical_xor function instead."
	assert_unchanged
}

@test "--dtype naming a type no loop gives: NumPy's message, nothing written" {
	local cmd uf want
	snapshot
	while read -r cmd uf rest; do
		# shellcheck disable=SC2086  # the operands: REST without its --dtype
		want=$(/usr/bin/python3 -c '
import sys, h5py, numpy as np
cmd, uf, dt, *ops = sys.argv[1:]
ops = [h5py.File(o.split(":")[0])[o.split(":")[1]][()] for o in ops]
f = getattr(np, uf)
try:
    f(*ops, dtype=dt) if cmd == "call" else getattr(f, cmd)(*ops, dtype=dt)
except TypeError as e:
    print(e)
' "$cmd" "$uf" "${rest##* }" ${rest% --dtype *})
		[[ -n $want ]] || fail "NumPy raised nothing for $cmd $uf $rest"
		# shellcheck disable=SC2086
		run --separate-stderr h5u $cmd $uf $rest -o o.h5:/y
		assert_error 2 "$cmd $uf: $want"
	done <<-'EOF'
		call sqrt f.h5:/x --dtype int32
		call bitwise_and f.h5:/x f.h5:/x --dtype float64
		reduce power f.h5:/base --dtype bool
		accumulate power f.h5:/base --dtype bool
	EOF
	assert_unchanged
}

@test "a result too large to print is refused before any work" {
	fixture big.h5
	snapshot
	run --separate-stderr h5u call add big.h5:/big 1
	assert_error_match 2 "call add: .+"
	assert_unchanged
}

@test "an output directory that does not exist" {
	run --separate-stderr h5u call add f.h5:/x 1 -o nodir/o.h5:/y
	assert_error_match 2 "call add: .*nodir.*"
	assert_unchanged
}

@test "an output path that is a group" {
	run --separate-stderr h5u call add f.h5:/x 1 -o f.h5:/g
	assert_error_match 2 "call add: .*f\.h5:/g.*"
	assert_unchanged
}

@test "malformed YAML" {
	cat >r.yaml <<-'EOF'
		steps:
		  - ufunc: add
		    in: [f.h5:/x, 1
		    out: o.h5:/y
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error_match 2 "r\.yaml:[0-9]+:[0-9]+: .+"
	assert_unchanged
}

@test "an unknown key in a step" {
	cat >r.yaml <<-'EOF'
		steps:
		  - ufunc: add
		    in: [f.h5:/x, 1]
		    ouput: o.h5:/y
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error_match 2 "r\.yaml:4:5: unknown key 'ouput' in step.*"
	assert_unchanged
}

@test "a recipe file that does not exist" {
	run --separate-stderr h5u run nope.yaml
	assert_error_match 2 "(run: )?.*nope\.yaml.*"
	assert_unchanged
}

@test "recipe version 2" {
	cat >r.yaml <<-'EOF'
		version: 2
		steps:
		  - ufunc: add
		    in: [f.h5:/x, 1]
		    out: o.h5:/y
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error_match 2 "r\.yaml:1:10: unsupported recipe version 2.*"
	assert_unchanged
}

@test "\${NAME} that is neither --set nor in the environment" {
	unset H5U_UNSET_VAR
	cat >r.yaml <<-'EOF'
		steps:
		  - ufunc: add
		    in: [f.h5:/x, 1]
		    out: ${H5U_UNSET_VAR}.h5:/y
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:4:10: \${H5U_UNSET_VAR} is not set (use --set H5U_UNSET_VAR=VALUE)"
	assert_unchanged
}

# shellcheck disable=SC2016  # ${NAME} is for h5ufunc to fill, not the shell
@test "\${NAME} unset or malformed in a one-liner: the recipe's messages, nothing written" {
	unset H5U_UNSET_VAR
	snapshot
	run --separate-stderr h5u call add f.h5:/x 1 -o '${H5U_UNSET_VAR}.h5:/y'
	assert_error 2 "call add: \${H5U_UNSET_VAR} is not set (use --set H5U_UNSET_VAR=VALUE)"
	run --separate-stderr h5u call '${H5U_UNSET_VAR}' f.h5:/x 1 -o o.h5:/y
	assert_error 2 "call: \${H5U_UNSET_VAR} is not set (use --set H5U_UNSET_VAR=VALUE)"
	run --separate-stderr h5u reduce add '${DIR' -o o.h5:/y
	assert_error 2 "reduce add: '\${' has no closing '}'"
	run --separate-stderr h5u eval -i 'x=f.h5:/x' 'o.h5:/y = x * ${1X}'
	assert_error 2 "eval: '\${1X}' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)"
	assert_unchanged
}

# Four valid steps that would write (a new file, a new dataset in an existing
# file, in place, an overwrite), then a fifth that cannot run: nothing may be
# written at all.
four_writing_steps() {
	cat <<-'EOF'
		inputs:
		  x: e.h5:/x
		steps:
		  - ufunc: add            # 1: a new file
		    in: [x, 1]
		    out: n1.h5:/a
		  - ufunc: multiply       # 2: a new dataset in an existing file
		    in: [x, 2]
		    out: e.h5:/new/b
		  - ufunc: add            # 3: in place
		    in: [x, 3]
		    out: x
		  - ufunc: negative       # 4: replace an existing dataset
		    in: x
		    out: e.h5:/old
		    overwrite: true
	EOF
}

@test "an error in step 5 after four writing steps: nothing is written" {
	fixture e.h5
	{
		four_writing_steps
		cat <<-'EOF'
			  - ufunc: add            # 5: shapes that do not broadcast
			    in: [x, f.h5:/v4]
			    out: n2.h5:/c
		EOF
	} >r.yaml
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error_match 2 "r\\.yaml:18:(9|10): step 5 \\(ufunc add\\): operands could not be broadcast together with shapes \\(4,3\\) \\(4,\\)"
	assert_unchanged
	{
		four_writing_steps
		cat <<-'EOF'
			  - ufunc: add            # 5: an existing dataset, no overwrite
			    in: [x, 1]
			    out: e.h5:/keep
		EOF
	} >r.yaml
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:19:10: step 5 (ufunc add): dataset 'e.h5:/keep' exists (use overwrite: true or --overwrite to replace it)"
	assert_unchanged
	run --separate-stderr h5u check r.yaml
	assert_error 2 "r.yaml:19:10: step 5 (ufunc add): dataset 'e.h5:/keep' exists (use overwrite: true or --overwrite to replace it)"
	assert_unchanged
}

@test "an error while running step 5: no new file, no temporary file" {
	fixture e.h5
	{
		four_writing_steps | sed 's/out: x$/out: n3.h5:\/x/'
		cat <<-'EOF'
			  - ufunc: power          # 5: a negative integer power in the data
			    in: [f.h5:/base, f.h5:/neg]
			    out: n2.h5:/c
		EOF
	} >r.yaml
	local before
	before=$(ls -A)
	run --separate-stderr h5u run r.yaml
	assert_error_match 1 "r\.yaml:[0-9]+:[0-9]+: step 5 \(ufunc power\): Integers to negative integer powers are not allowed\..*"
	assert_file_not_exists n1.h5
	assert_file_not_exists n2.h5
	assert_file_not_exists n3.h5
	assert_equal "$(ls -A | grep -v '^separate-stderr-')" "$(grep -v '^separate-stderr-' <<<"$before")"
}
