#!/usr/bin/env bats
# 19-outer.bats - `h5ufunc call UFUNC.outer A B` and `outer:` steps against
# NumPy's np.UFUNC.outer(a, b): the result has shape a.shape + b.shape.
#
# Shapes (3,)x(4,), (2,3)x(4,), (4,)x(2,3), 0-d and empty operands, mixed
# dtypes, comparisons, dtype=, number operands (converted as np.asarray
# converts them: NumPy's outer does not treat them as weak literals), a
# two-output ufunc; written to a file and printed, on one process and on 1,
# 2 and 3 ranks; and the refusals: a unary ufunc, a wrong number of
# operands, and the methods at, reduceat and where masks, named in the
# message.  Expected values from tests/reduce_ref.py.

load helper

setup_file() {
	fixtures <<-'EOF'
		make f.h5:/a float64 3
		make f.h5:/b float64 4
		make f.h5:/m float64 2,3
		make f.h5:/h float32 3
		make f.h5:/i8 int8 3
		make f.h5:/u int32 4
		make f.h5:/pi int16 3 fill=pos
		make f.h5:/pu uint8 4 fill=pos
		make f.h5:/bo bool 4
		make f.h5:/s float64 () data=2.5
		make f.h5:/e float64 0
		make big.h5:/r float64 301
		make big.h5:/q float64 17
		make big.h5:/k int32 5,7 fill=pos
	EOF
}

REF=reduce_ref.py

outer_cases() {
	cat <<-'EOF'
		add outer add f.h5:/a f.h5:/b
		sub outer subtract f.h5:/a f.h5:/b
		mul23x4 outer multiply f.h5:/m f.h5:/b
		mul4x23 outer multiply f.h5:/b f.h5:/m
		m23x23 outer subtract f.h5:/m f.h5:/m
		max outer maximum f.h5:/i8 f.h5:/u
		eq outer equal f.h5:/a f.h5:/b
		less outer less f.h5:/u f.h5:/i8
		pow outer power f.h5:/pi f.h5:/pu
		atan outer arctan2 f.h5:/a f.h5:/b
		and outer logical_and f.h5:/bo f.h5:/a
		mixed outer add f.h5:/h f.h5:/i8
		div outer divide f.h5:/i8 f.h5:/u
		hyp outer hypot f.h5:/h f.h5:/h
		scalar outer add f.h5:/s f.h5:/m
		scalar2 outer multiply f.h5:/b f.h5:/s
		empty outer add f.h5:/e f.h5:/b
		empty2 outer add f.h5:/m f.h5:/e
		dt32 outer add f.h5:/a f.h5:/b --dtype float32
		lit outer add 2 f.h5:/b
		lit2 outer multiply f.h5:/a 2.5
	EOF
}

@test "outer of (3,)x(4,), (2,3)x(4,), (4,)x(2,3), 0-d and empty operands matches NumPy" {
	fixture f.h5
	outer_cases >cases.txt
	one_liners cases.txt out.h5
	run ref check cases.txt out.h5
	assert_success
	run np stored out.h5:/add float64 3,4 :: stored out.h5:/mul23x4 float64 2,3,4 :: \
		stored out.h5:/mul4x23 float64 4,2,3 :: stored out.h5:/m23x23 float64 2,3,2,3 :: \
		stored out.h5:/eq bool 3,4 :: stored out.h5:/max int32 3,4 :: \
		stored out.h5:/scalar float64 2,3 :: stored out.h5:/empty float64 0,4 :: \
		stored out.h5:/empty2 float64 2,3,0 :: stored out.h5:/dt32 float32 3,4
	assert_success
}

@test "outer: steps on no launcher and on 1, 2 and 3 ranks write NumPy's result" {
	fixture f.h5 big.h5
	outer_cases >cases.txt
	cat >>cases.txt <<-'EOF'
		big outer multiply big.h5:/r big.h5:/q
		bigk outer subtract big.h5:/k big.h5:/q
		small outer add big.h5:/q big.h5:/r
	EOF
	ref recipe cases.txt out.h5 >r.yaml
	local n
	mkdir run-0
	(cd run-0 && ln -s ../f.h5 f.h5 && ln -s ../big.h5 big.h5 && h5u run ../r.yaml) ||
		fail "run without a launcher failed"
	for n in 1 2 3; do
		mkdir "run-$n"
		(cd "run-$n" && ln -s ../f.h5 f.h5 && ln -s ../big.h5 big.h5 &&
			mpi "$n" h5ufunc run --memory 64K ../r.yaml) || fail "run on $n ranks failed"
	done
	run ref check cases.txt run-3/out.h5 :: check cases.txt run-0/out.h5 :: \
		same run-0/out.h5 run-1/out.h5 run-2/out.h5 run-3/out.h5
	assert_success
}

@test "printed outer products: rows of a 2-D result, blocks of a 3-D one" {
	fixture f.h5
	local id verb uf rest
	mkdir text
	cat >cases.txt <<-'EOF'
		add outer add f.h5:/a f.h5:/b
		cube outer multiply f.h5:/m f.h5:/b
		eq outer greater f.h5:/a f.h5:/b
		ints outer maximum f.h5:/i8 f.h5:/u
		vec outer add f.h5:/s f.h5:/b
		lit outer subtract f.h5:/a 1.5
	EOF
	while read -r id verb uf rest; do
		# shellcheck disable=SC2086
		h5u call "$uf.outer" $rest >"text/$id.txt" || fail "h5ufunc call $uf.outer $rest failed"
	done <cases.txt
	run ref text cases.txt text
	assert_success
	run --separate-stderr mpi 3 h5ufunc call multiply.outer f.h5:/m f.h5:/b
	assert_success
	assert_equal "$output" "$(cat text/cube.txt)"
	run --separate-stderr mpi 2 h5ufunc call add.outer 2 3
	assert_success
	assert_output "5"
}

@test "number operands of outer are converted as np.asarray does: int64, float64, bool" {
	fixture f.h5
	cat >cases.txt <<-'EOF'
		f32 outer multiply f.h5:/h 2.5
		i8 outer add f.h5:/i8 300
		i8neg outer subtract -3 f.h5:/i8
		both outer subtract 1 2
		bools outer logical_or true f.h5:/bo
	EOF
	one_liners cases.txt out.h5
	run ref check cases.txt out.h5
	assert_success
	run np stored out.h5:/f32 float64 3 :: stored out.h5:/i8 int64 3 :: stored out.h5:/both int64 '()'
	assert_success
}

@test "a two-output ufunc's outer gives both results, as NumPy's divmod.outer does" {
	fixture f.h5
	echo "dm outer divmod f.h5:/a f.h5:/b" >cases.txt
	run --separate-stderr h5u call divmod.outer f.h5:/a f.h5:/b -o out.h5:/dm_0,out.h5:/dm_1
	assert_success
	run ref check cases.txt out.h5
	assert_success
	mkdir text
	h5u call divmod.outer f.h5:/a f.h5:/b >text/dm.txt
	run ref text cases.txt text
	assert_success
}

@test "refused: a unary ufunc, one or three operands, at, reduceat, and where on outer" {
	fixture f.h5
	snapshot
	ref raises outer negative f.h5:/a f.h5:/b -- "outer product only supported for binary functions"
	run --separate-stderr h5u call negative.outer f.h5:/a f.h5:/b -o o.h5:/r
	assert_error 2 "call negative: outer product only supported for binary functions"
	run --separate-stderr mpi 2 h5ufunc call sqrt.outer f.h5:/a f.h5:/b -o o.h5:/r
	assert_error_once 2 "call sqrt: outer product only supported for binary functions"
	# h5ufunc's arity message, or NumPy's own for outer.
	run --separate-stderr h5u call add.outer f.h5:/a -o o.h5:/r
	assert_error_match 2 "call add: (ufunc 'add' takes 2 inputs, got 1|exactly two arguments expected)"
	run --separate-stderr h5u call add.outer f.h5:/a f.h5:/b f.h5:/a -o o.h5:/r
	assert_error_match 2 "call add: (ufunc 'add' takes 2 inputs, got 3|exactly two arguments expected)"
	run --separate-stderr h5u call add.at f.h5:/a 1
	assert_error_match 2 ".*'add\.at'.*"
	run --separate-stderr h5u call add.reduceat f.h5:/a 1
	assert_error_match 2 ".*'add\.reduceat'.*reduceat.*"
	assert_unchanged

	local step
	for step in 'at: add\n    in: [f.h5:/a, 1]' 'reduceat: add\n    in: f.h5:/a' \
		'outer: add\n    in: [f.h5:/a, f.h5:/b]\n    where: f.h5:/a'; do
		printf "steps:\n  - $step\n    out: o.h5:/r\n" >r.yaml
		snapshot
		run --separate-stderr h5u run r.yaml
		[[ $status -eq 2 && -z $output && ${stderr_lines[0]} == "h5ufunc: r.yaml:"[0-9]*:[0-9]*": "* ]] ||
			fail "step '$step': status $status, stderr: $stderr"
		case $step in
		at:*) [[ ${stderr_lines[0]} == *"'at'"* ]] ;;
		reduceat:*) [[ ${stderr_lines[0]} == *"'reduceat'"* ]] ;;
		*) [[ ${stderr_lines[0]} == *"'where'"* ]] ;;
		esac || fail "the message does not name what is refused: $stderr"
		assert_unchanged
	done
}

@test "an outer step's error names the recipe line and step; nothing is written" {
	fixture f.h5
	cat >r.yaml <<-'EOF'
		steps:
		  - outer: add
		    in: [f.h5:/a, f.h5:/b]
		    out: first.h5:/r
		  - outer: negative
		    in: [f.h5:/a, f.h5:/b]
		    out: o.h5:/r
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:5:12: step 2 (outer negative): outer product only supported for binary functions"
	assert_unchanged
}
