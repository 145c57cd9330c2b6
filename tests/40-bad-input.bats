#!/usr/bin/env bats
# 40-bad-input.bats - the bad-input corpus: every case in tests/bad-input/
# is refused (or fails) with its exact status and message, and leaves the
# working directory exactly as it was: every file byte-identical, no new
# file, no temporary file.  Cases marked with a `ranks` file are run again
# under mpirun with those numbers of ranks: the same status, the message
# printed once, nothing written.
#
# A case is a directory (see tests/bad-input/README): `args` (the command
# line, one argument per line), `expect` (status and message), and
# optionally `stdin`, `setup`, `teardown`, `ranks` and the files it reads
# (r.yaml, ...).  Every case starts from the files that
# tests/bad-input/fixtures makes.  Each case has its own @test below; the
# last test checks that the list and the corpus agree.

load helper

BAD_INPUT=$H5U_TESTS/bad-input

setup_file() {
	fixtures <"$BAD_INPUT/fixtures"
}

teardown() {
	if [[ -n ${CASE:-} && -f $BAD_INPUT/$CASE/teardown ]]; then
		(cd "$BATS_TEST_TMPDIR" && bash "$BAD_INPUT/$CASE/teardown")
	fi
}

# bad_case NAME: run case NAME of the corpus and check it.
bad_case() {
	CASE=$1
	local dir=$BAD_INPUT/$1 file lines=() args=() want_status want n
	[[ -d $dir ]] || fail "no case '$1' in tests/bad-input"
	fixture f.h5 e.h5
	for file in "$dir"/*; do
		case ${file##*/} in
		args | expect | stdin | setup | teardown | ranks) ;;
		*) cp -R "$file" . ;;
		esac
	done
	if [[ -f $dir/setup ]]; then
		run bash "$dir/setup"
		if ((status == 3)); then
			skip "$output"
		fi
		assert_success
	fi
	mapfile -t args <"$dir/args"
	mapfile -t lines < <(grep -v '^#' "$dir/expect")
	want_status=${lines[0]}
	want=${lines[1]}
	local input=/dev/null
	[[ -f $dir/stdin ]] && input=$dir/stdin
	snapshot
	run --separate-stderr h5u "${args[@]}" <"$input"
	if [[ $want == "~"* ]]; then
		assert_error_match "$want_status" "${want#"~"}"
	else
		assert_error "$want_status" "$want"
	fi
	assert_unchanged
	[[ -f $dir/ranks ]] || return 0
	for n in $(cat "$dir/ranks"); do
		run --separate-stderr mpi "$n" h5ufunc "${args[@]}" <"$input"
		if [[ $want == "~"* ]]; then
			assert_error_once_match "$want_status" "${want#"~"}"
		else
			assert_error_once "$want_status" "$want"
		fi
		assert_unchanged
	done
}

@test "alias-bomb: a YAML alias bomb: refused at its first alias" {
	bad_case alias-bomb
}

@test "anchor-alias: an anchor and its alias" {
	bad_case anchor-alias
}

@test "at-key: ufunc.at" {
	bad_case at-key
}

@test "axis-out-of-range-call: accumulate along an axis a 1-D array lacks" {
	bad_case axis-out-of-range-call
}

@test "axis-out-of-range: a negative axis beyond the dimensions" {
	bad_case axis-out-of-range
}

@test "bad-casting: a misspelt casting rule under defaults" {
	bad_case bad-casting
}

@test "bad-dtype: a dtype NumPy has but h5ufunc does not" {
	bad_case bad-dtype
}

@test "bad-memory-size: a --memory size with an unknown suffix" {
	bad_case bad-memory-size
}

@test "broadcast-2d: a 2-D and a 1-D shape that do not broadcast" {
	bad_case broadcast-2d
}

@test "broadcast: shapes that do not broadcast, in step 2" {
	bad_case broadcast
}

@test "check-existing-output: check refuses an existing output as run does, on one process, 1 and 4 ranks" {
	bad_case check-existing-output
}

@test "check-input-option: check takes no -i (eval's), and says where a recipe binds names, on one process and 2 ranks" {
	bad_case check-input-option
}

@test "compound-dataset: a compound dataset that is not complex" {
	bad_case compound-dataset
}

@test "deep-nesting: 100000 nested lists: refused at the first list out of place" {
	bad_case deep-nesting
}

@test "duplicate-key: a key given twice in a step" {
	bad_case duplicate-key
}

@test "empty-recipe: an empty file" {
	bad_case empty-recipe
}

@test "empty-reduction: an empty reduction with no identity" {
	bad_case empty-reduction
}

@test "empty-steps: steps: []" {
	bad_case empty-steps
}

@test "enum-dataset: an enum dataset that is not h5py's bool" {
	bad_case enum-dataset
}

@test "eval-syntax: an eval expression with an unclosed parenthesis" {
	bad_case eval-syntax
}

@test "expr-1mb-chain: 500000 subtractions in a 1 MB expression: refused, no crash" {
	bad_case expr-1mb-chain
}

@test "expr-long-chain: 1000 subtractions in one expression: refused, no crash" {
	bad_case expr-long-chain
}

@test "expr-syntax: an expr step that ends in an operator" {
	bad_case expr-syntax
}

@test "group-not-dataset: a group where a dataset is expected" {
	bad_case group-not-dataset
}

@test "in-place-cast-call: true division into an int16 operand, in place" {
	bad_case in-place-cast-call
}

@test "in-place-cast: a float result into an int8 input, in place" {
	bad_case in-place-cast
}

@test "in-place-shape: a broadcast result into a smaller input, in place" {
	bad_case in-place-shape
}

@test "select-reversed-index: an index out of range after a reversed axis and None's new axis" {
	bad_case select-reversed-index
}

@test "invalid-utf8: a Latin-1 byte in UTF-8 text" {
	bad_case invalid-utf8
}

@test "literal-negative-unsigned: a negative literal input with uint8 (NEP 50)" {
	bad_case literal-negative-unsigned
}

@test "literal-out-of-range: an integer literal beyond int8 (NEP 50)" {
	bad_case literal-out-of-range
}

@test "long-line-list: a 10 MB line holding a million operands" {
	bad_case long-line-list
}

@test "long-line: a 10 MB line holding one 10 MB value" {
	bad_case long-line
}

@test "memory-fraction-of-byte: a --memory with a fraction of a byte" {
	bad_case memory-fraction-of-byte
}

@test "memory-one-byte: a --memory of one byte: too small, said in the singular" {
	bad_case memory-one-byte
}

@test "memory-too-small: a --memory too small for one block" {
	bad_case memory-too-small
}

@test "missing-dataset: a dataset that does not exist" {
	bad_case missing-dataset
}

@test "missing-file-call: an operand's file that does not exist" {
	bad_case missing-file-call
}

@test "missing-file: an input file that does not exist" {
	bad_case missing-file
}

@test "missing-parent-group: a dataset under groups that do not exist" {
	bad_case missing-parent-group
}

@test "negative-power: integers to a negative power: a data error, exit 1" {
	bad_case negative-power
}

@test "no-steps: a recipe without steps" {
	bad_case no-steps
}

@test "not-hdf5-input: an input file that is not HDF5" {
	bad_case not-hdf5-input
}

@test "not-hdf5-output: an output file that exists and is not HDF5" {
	bad_case not-hdf5-output
}

@test "not-reorderable: subtract reduced over two axes" {
	bad_case not-reorderable
}

@test "nul-byte: a NUL byte in the recipe" {
	bad_case nul-byte
}

@test "operand-garbage: an operand that is neither name, dataset nor number" {
	bad_case operand-garbage
}

@test "operand-no-dataset: FILE:/PATH with no path" {
	bad_case operand-no-dataset
}

@test "operand-no-file: FILE:/PATH with no file" {
	bad_case operand-no-file
}

@test "output-dir-missing: an output in a directory that does not exist" {
	bad_case output-dir-missing
}

@test "output-is-directory: an output file that is a directory" {
	bad_case output-is-directory
}

@test "output-literal: a number as an output" {
	bad_case output-literal
}

@test "overwrite-group: --overwrite does not replace a group" {
	bad_case overwrite-group
}

@test "overwrite-refused: an existing dataset without overwrite" {
	bad_case overwrite-refused
}

@test "reduce-not-binary: reduce with a unary ufunc" {
	bad_case reduce-not-binary
}

@test "reduceat-key: ufunc.reduceat as a verb" {
	bad_case reduceat-key
}

@test "same-output-twice: both outputs of divmod to one dataset" {
	bad_case same-output-twice
}

@test "output-given-twice: -o twice in a one-liner" {
	bad_case output-given-twice
}

@test "stdin-recipe: a recipe on stdin: its errors name <stdin>" {
	bad_case stdin-recipe
}

@test "step-not-mapping: a step written as a command line" {
	bad_case step-not-mapping
}

@test "step5-after-four: an error in step 5 after four steps that would write" {
	bad_case step5-after-four
}

@test "string-dataset: a fixed-length string dataset" {
	bad_case string-dataset
}

@test "too-many-outputs: two outputs for a one-output ufunc" {
	bad_case too-many-outputs
}

@test "truncated-hdf5: an HDF5 file cut short" {
	bad_case truncated-hdf5
}

@test "two-documents: two YAML documents in one recipe" {
	bad_case two-documents
}

@test "two-verbs: a step with two verbs" {
	bad_case two-verbs
}

@test "undefined-var: \${NAME} neither set nor in the environment" {
	bad_case undefined-var
}

@test "unknown-key-step: a misspelt key in a step" {
	bad_case unknown-key-step
}

@test "unknown-key-top: a misspelt key at the top" {
	bad_case unknown-key-top
}

@test "unknown-name: a name bound nowhere" {
	bad_case unknown-name
}

@test "unknown-option: a misspelt option" {
	bad_case unknown-option
}

@test "unknown-ufunc-call: an unknown ufunc in a one-liner" {
	bad_case unknown-ufunc-call
}

@test "unknown-ufunc: an unknown ufunc in step 2" {
	bad_case unknown-ufunc
}

@test "units-strict-exp: units: strict refuses exp of an operand in metres" {
	bad_case units-strict-exp
}

@test "units-strict-integer: units: strict does not convert an integer operand" {
	bad_case units-strict-integer
}

@test "units-strict-not-convertible: units: strict refuses adding K and m, on one process and 2 ranks" {
	bad_case units-strict-not-convertible
}

@test "units-strict-number: units: strict refuses K - 273.15, as unyt does" {
	bad_case units-strict-number
}

@test "proc-output-dir: an output in /proc: writable to access() for root, yet it takes no files" {
	bad_case proc-output-dir
}

@test "unwritable-dir: an output in a directory h5ufunc may not write" {
	bad_case unwritable-dir
}

@test "unwritable-file: an in-place target in a file h5ufunc may not write" {
	bad_case unwritable-file
}

@test "version-2: another recipe version" {
	bad_case version-2
}

@test "vstring-dataset: a variable-length string dataset" {
	bad_case vstring-dataset
}

@test "where-accumulate: where= on an accumulate step" {
	bad_case where-accumulate
}

@test "where-broadcast: a where= operand that does not broadcast" {
	bad_case where-broadcast
}

@test "where-no-initial: reduce where= of a ufunc without identity, no initial" {
	bad_case where-no-initial
}

@test "wrong-arity-call: a unary ufunc given two inputs" {
	bad_case wrong-arity-call
}

@test "wrong-arity: a binary ufunc given one input" {
	bad_case wrong-arity
}

@test "vds-existing-file: --vds into an existing file, on one process and 3 ranks" {
	bad_case vds-existing-file
}

@test "vds-in-place: vds: true on an output written in place" {
	bad_case vds-in-place
}

@test "yaml-malformed: malformed YAML: an unclosed flow list" {
	bad_case yaml-malformed
}

@test "yaml-tab: a tab that indents a line" {
	bad_case yaml-tab
}

@test "every case in tests/bad-input has a test here, and only those" {
	local listed cases
	listed=$(sed -n 's/^\tbad_case \([^ ]*\)$/\1/p' "$BATS_TEST_FILENAME" | sort)
	cases=$(cd "$BAD_INPUT" && for d in */; do echo "${d%/}"; done | sort)
	assert_equal "$listed" "$cases"
	(($(wc -l <<<"$cases") >= 40))
}
