#!/usr/bin/env bats
# 11-run.bats - `h5ufunc run` and `h5ufunc check` with recipes: from a file
# and from stdin, inputs, named intermediates, two-output ufuncs, defaults,
# ${NAME} from --set and the environment, dtype/casting options, steps that
# read what earlier steps wrote, steps that print.  Results are NumPy's.

load helper

setup_file() {
	fixtures <<-'EOF'
		make wind.h5:/u float64 6,5
		make wind.h5:/v float64 6,5
		make ints.h5:/a int32 4,3
		make ints.h5:/b int32 4,3 fill=pos
		make ints.h5:/row int32 3 fill=pos
		make f.h5:/x float32 5
		make f.h5:/i int16 5 data=[-3,0,7,100,-128]
		make f.h5:/h float16 2,3
	EOF
}

@test "a recipe file: hypot of two inputs into a new file" {
	fixture wind.h5
	cat >r.yaml <<-'EOF'
		version: 1
		inputs: {u: wind.h5:/u, v: wind.h5:/v}
		steps:
		  - {ufunc: hypot, in: [u, v], out: speed.h5:/speed}
	EOF
	run --separate-stderr h5u run r.yaml
	assert_success
	assert_output ""
	np check hypot wind.h5:/u wind.h5:/v -o speed.h5:/speed
}

@test "a recipe on stdin with -" {
	fixture wind.h5
	run --separate-stderr h5u run - <<-'EOF'
		steps:
		  - ufunc: arctan2
		    in: [wind.h5:/v, wind.h5:/u]
		    out: dir.h5:/dir
	EOF
	assert_success
	np check arctan2 wind.h5:/v wind.h5:/u -o dir.h5:/dir
}

@test "named intermediates feed later steps and are not written" {
	fixture wind.h5
	cat >r.yaml <<-'EOF'
		inputs: {u: wind.h5:/u, v: wind.h5:/v}
		steps:
		  - {ufunc: multiply, in: [u, u], out: uu}
		  - {ufunc: square, in: v, out: vv}
		  - {ufunc: add, in: [uu, vv], out: s2}
		  - {ufunc: sqrt, in: s2, out: out.h5:/speed}
	EOF
	h5u run r.yaml
	np let uu multiply wind.h5:/u wind.h5:/u :: \
		let vv square wind.h5:/v :: \
		let s2 add uu vv :: \
		check sqrt s2 -o out.h5:/speed
	run np ls out.h5
	assert_output "/speed float64 (6,5)"
	run ls
	assert_output $'out.h5\nr.yaml\nwind.h5'
}

@test "two-output ufuncs: out: [a, b] to names and to datasets" {
	fixture ints.h5 f.h5
	cat >r.yaml <<-'EOF'
		inputs:
		  a: ints.h5:/a
		  b: ints.h5:/b
		steps:
		  - ufunc: divmod
		    in: [a, b]
		    out: [q, r]
		  - ufunc: multiply
		    in: [q, b]
		    out: qb
		  - ufunc: add
		    in: [qb, r]
		    out: o.h5:/back
		  - ufunc: positive
		    in: r
		    out: o.h5:/r
		  - ufunc: frexp
		    in: f.h5:/x
		    out: [o.h5:/mant, o.h5:/exp]
		  - ufunc: modf
		    in: f.h5:/h
		    out:
		      - o.h5:/frac
		      - p.h5:/whole
	EOF
	h5u run r.yaml
	np let q,r divmod ints.h5:/a ints.h5:/b :: \
		let qb multiply q ints.h5:/b :: \
		check add qb r -o o.h5:/back :: \
		compare ints.h5:/a o.h5:/back :: \
		check positive r -o o.h5:/r :: \
		check frexp f.h5:/x -o o.h5:/mant,o.h5:/exp :: \
		check modf f.h5:/h -o o.h5:/frac,p.h5:/whole
}

@test "defaults apply to every step; a step's own option wins" {
	fixture ints.h5 wind.h5
	cat >r.yaml <<-'EOF'
		defaults: {dtype: float32}
		steps:
		  - {ufunc: add, in: [ints.h5:/a, ints.h5:/b], out: o.h5:/sum}
		  - {ufunc: multiply, in: [ints.h5:/a, ints.h5:/b], dtype: float64, out: o.h5:/prod}
		  - {ufunc: subtract, in: [wind.h5:/u, wind.h5:/v], out: o.h5:/diff}
	EOF
	h5u run r.yaml
	np check add ints.h5:/a ints.h5:/b --dtype float32 -o o.h5:/sum :: \
		check multiply ints.h5:/a ints.h5:/b --dtype float64 -o o.h5:/prod :: \
		check subtract wind.h5:/u wind.h5:/v --dtype float32 -o o.h5:/diff
}

@test "defaults: casting and overwrite" {
	fixture wind.h5
	np make o.h5:/old int8 2
	cat >r.yaml <<-'EOF'
		defaults: {casting: unsafe, overwrite: true}
		steps:
		  - {ufunc: multiply, in: [wind.h5:/u, 10], dtype: int16, out: o.h5:/old}
	EOF
	h5u run r.yaml
	np check multiply wind.h5:/u 10 --dtype int16 --casting unsafe -o o.h5:/old
}

@test "step options dtype and casting" {
	fixture wind.h5 ints.h5
	cat >r.yaml <<-'EOF'
		steps:
		  - {ufunc: divide, in: [ints.h5:/a, ints.h5:/b], dtype: float32, out: o.h5:/q}
		  - {ufunc: add, in: [wind.h5:/u, wind.h5:/v], dtype: int32, casting: unsafe, out: o.h5:/s}
		  - {ufunc: add, in: [ints.h5:/a, ints.h5:/a], casting: no, out: o.h5:/n}
	EOF
	h5u run r.yaml
	np check divide ints.h5:/a ints.h5:/b --dtype float32 -o o.h5:/q :: \
		check add wind.h5:/u wind.h5:/v --dtype int32 --casting unsafe -o o.h5:/s :: \
		check add ints.h5:/a ints.h5:/a --casting no -o o.h5:/n
}

@test "\${NAME} from --set, else from the environment; --set wins" {
	mkdir data
	(cd data && fixture wind.h5)
	cat >r.yaml <<-'EOF'
		inputs:
		  u: ${DIR}/wind.h5:/u
		steps:
		  - ufunc: multiply
		    in:
		      - u
		      - ${FACTOR}
		    out: ${OUT}:/scaled
	EOF
	h5u run --set DIR=data --set FACTOR=2.5 --set OUT=o.h5 r.yaml
	DIR=data FACTOR=3 OUT=p.h5 h5u run r.yaml
	FACTOR=7 h5u run --set DIR=data --set OUT=q.h5 --set FACTOR=-4 r.yaml
	np check multiply data/wind.h5:/u 2.5 -o o.h5:/scaled :: \
		check multiply data/wind.h5:/u 3 -o p.h5:/scaled :: \
		check multiply data/wind.h5:/u -4 -o q.h5:/scaled
}

# shellcheck disable=SC2016  # ${NAME} is for h5ufunc to fill, not the shell
@test "one-liners fill \${NAME} in operands, -o, flag values and expressions as recipes do" {
	mkdir data
	(cd data && fixture wind.h5 ints.h5)
	cp data/ints.h5 at.h5
	local set=(--set DIR=data --set OUT=o.h5)
	h5u call '${UF}' '${DIR}/wind.h5:/u' '${FACTOR}' -o '${OUT}:/c' "${set[@]}" --set UF=multiply --set FACTOR=2.5
	FACTOR=-4 h5u call multiply '${DIR}/wind.h5:/u' '${FACTOR}' -o '${OUT}:/env' "${set[@]}"
	h5u reduce add '${DIR}/wind.h5:/v' --axis '${AX}' --keepdims -o '${OUT}:/r' "${set[@]}" --set AX=1
	h5u accumulate add '${DIR}/ints.h5:/a' --axis '${AX}' --dtype '${T}' -o '${OUT}:/acc' "${set[@]}" \
		--set AX=0 --set T=int64
	h5u reduceat add '${DIR}/ints.h5:/a' --indices '${IDX}' -o '${OUT}:/ra' "${set[@]}" --set IDX=0,2,1
	h5u at add '${F}:/a' --indices '${I}' '${B}' "${set[@]}" --set F=at.h5 --set B=5 --set I='[0,3,0],[2,1,2]'
	h5u eval -i 'u=${DIR}/wind.h5:/u' '${OUT}:/e = u * ${K} - v' -i 'v=${DIR}/wind.h5:/v' "${set[@]}" --set K=3
	np check multiply data/wind.h5:/u 2.5 -o o.h5:/c :: check multiply data/wind.h5:/u -4 -o o.h5:/env
	/usr/bin/python3 - <<-'PY'
		import h5py, numpy as np
		w, i = h5py.File('data/wind.h5'), h5py.File('data/ints.h5')
		u, v, a = w['u'][()], w['v'][()], i['a'][()]
		at = a.copy()
		np.add.at(at, ([0, 3, 0], [2, 1, 2]), 5)
		want = {'r': np.add.reduce(v, axis=1, keepdims=True), 'acc': np.add.accumulate(a, axis=0, dtype='int64'),
		        'ra': np.add.reduceat(a, [0, 2, 1]), 'e': u * 3 - v}
		with h5py.File('o.h5') as o:
		    for k, x in want.items():
		        assert o[k].dtype == x.dtype and np.array_equal(o[k][()], x), (k, o[k][()], x)
		assert np.array_equal(h5py.File('at.h5')['a'][()], at)
	PY
}

@test "a step sees what an earlier step wrote to a new file" {
	fixture f.h5
	cat >r.yaml <<-'EOF'
		steps:
		  - {ufunc: multiply, in: [f.h5:/x, 2], out: n.h5:/a}
		  - {ufunc: add, in: [n.h5:/a, 1], out: n.h5:/b}
		  - {ufunc: subtract, in: [n.h5:/b, n.h5:/a], out: m.h5:/one}
	EOF
	h5u run r.yaml
	np let a multiply f.h5:/x 2 :: \
		check add a 1 -o n.h5:/b :: \
		let b add a 1 :: \
		check subtract b a -o m.h5:/one :: \
		check multiply f.h5:/x 2 -o n.h5:/a
}

@test "a step sees what an earlier step wrote in place" {
	fixture f.h5
	cp f.h5 orig.h5
	cat >r.yaml <<-'EOF'
		inputs: {x: f.h5:/x}
		steps:
		  - {ufunc: multiply, in: [x, 2], out: x}
		  - {ufunc: add, in: [x, 1], out: o.h5:/by_name}
		  - {ufunc: add, in: [f.h5:/x, 1], out: o.h5:/by_path}
	EOF
	h5u run r.yaml
	np let x2 multiply orig.h5:/x 2 :: \
		compare x2 f.h5:/x :: \
		check add x2 1 -o o.h5:/by_name :: \
		check add x2 1 -o o.h5:/by_path
}

@test "a step without out prints its result" {
	fixture ints.h5 f.h5
	cat >r.yaml <<-'EOF'
		inputs: {a: ints.h5:/a}
		steps:
		  - {ufunc: add, in: [a, 1]}
	EOF
	run --separate-stderr h5u run r.yaml
	assert_success
	np printed add ints.h5:/a 1 <<<"$output"
	cat >r2.yaml <<-'EOF'
		steps:
		  - {ufunc: frexp, in: f.h5:/x}
	EOF
	run --separate-stderr h5u run r2.yaml
	assert_success
	np printed frexp f.h5:/x <<<"$output"
}

@test "the results of steps that print follow one another, a blank line between them" {
	fixture ints.h5 f.h5
	cat >r.yaml <<-'EOF'
		steps:
		  - {ufunc: add, in: [ints.h5:/a, 1]}
		  - {ufunc: frexp, in: f.h5:/x}
		  - {reduce: add, in: ints.h5:/a, axis: null}
	EOF
	run --separate-stderr h5u run r.yaml
	assert_success
	# four results: one 2-D array, frexp's two and a scalar, in order
	local parts
	parts=$(awk -v RS= '{ print NR }' <<<"$output" | tail -1)
	[[ $parts == 4 ]] || fail "expected 4 blank-line separated results, got $parts:"$'\n'"$output"
	awk -v RS= 'NR == 1' <<<"$output" | np printed add ints.h5:/a 1
	awk -v RS= 'NR == 2 || NR == 3 { printf "%s%s\n", (NR == 3 ? "\n" : ""), $0 }' <<<"$output" |
		np printed frexp f.h5:/x
	run /usr/bin/python3 -c 'import h5py, sys; print(int(h5py.File("ints.h5")["a"][()].sum()) == int(sys.argv[1]))' \
		"$(awk -v RS= 'NR == 4' <<<"$output")"
	assert_output True
}

@test "literals and aliases in recipes" {
	fixture f.h5 ints.h5
	cat >r.yaml <<-'EOF'
		steps:
		  - {ufunc: add, in: [f.h5:/i, 2], out: o.h5:/i2}
		  - {ufunc: multiply, in: [f.h5:/x, -2.5], out: o.h5:/x}
		  - {ufunc: pow, in: [ints.h5:/row, 3], out: o.h5:/cube}
		  - {ufunc: acos, in: 0.5, out: o.h5:/acos}
	EOF
	h5u run r.yaml
	np check add f.h5:/i 2 -o o.h5:/i2 :: \
		check multiply f.h5:/x -2.5 -o o.h5:/x :: \
		check power ints.h5:/row 3 -o o.h5:/cube :: \
		check arccos 0.5 -o o.h5:/acos
}

@test "relative paths resolve from the working directory, not the recipe's" {
	fixture wind.h5
	mkdir recipes
	cat >recipes/r.yaml <<-'EOF'
		steps:
		  - {ufunc: negative, in: wind.h5:/u, out: o.h5:/neg}
	EOF
	h5u run recipes/r.yaml
	assert_file_exists o.h5
	assert_file_not_exists recipes/o.h5
	np check negative wind.h5:/u -o o.h5:/neg
}

@test "check validates against the real files, prints a plan, writes nothing" {
	fixture wind.h5 ints.h5
	cat >r.yaml <<-'EOF'
		inputs: {u: wind.h5:/u, a: ints.h5:/a}
		steps:
		  - {ufunc: hypot, in: [u, u], out: speed.h5:/speed}
		  - {ufunc: add, in: [a, 1], out: a}
	EOF
	snapshot
	run --separate-stderr h5u check r.yaml
	assert_success
	[[ -n $output ]] || fail "check printed no plan"
	assert_unchanged
	run --separate-stderr h5u check - <r.yaml
	assert_success
	assert_unchanged
}

@test "check finds what run would find, with the same message" {
	fixture wind.h5 ints.h5
	cat >r.yaml <<-'EOF'
		version: 1
		steps:
		  - ufunc: add
		    in: [wind.h5:/u, wind.h5:/u]
		    out: o.h5:/s
		  - ufunc: add
		    in: [wind.h5:/u, ints.h5:/a]
		    out: o.h5:/t
	EOF
	snapshot
	run --separate-stderr h5u check r.yaml
	assert_error_match 2 "r\\.yaml:7:(9|10): step 2 \\(ufunc add\\): operands could not be broadcast together with shapes \\(6,5\\) \\(4,3\\)"
	local from_check=$stderr
	run --separate-stderr h5u run r.yaml
	assert_error_match 2 "r\\.yaml:7:(9|10): step 2 \\(ufunc add\\): operands could not be broadcast together with shapes \\(6,5\\) \\(4,3\\)"
	assert_equal "$stderr" "$from_check"
	assert_unchanged
}

@test "check of an existing output: refused as run refuses it, passed with --overwrite, nothing written, on 1-4 ranks" {
	fixture wind.h5
	cat >r.yaml <<-'EOF'
		steps:
		  - {ufunc: hypot, in: [wind.h5:/u, wind.h5:/v], out: o.h5:/speed}
	EOF
	h5u run r.yaml
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:2:55: step 1 (ufunc hypot): dataset 'o.h5:/speed' exists (use overwrite: true or --overwrite to replace it)"
	local from_run=${stderr_lines[0]} n cmd
	for n in 0 1 2 3 4; do
		cmd=(h5u)
		((n == 0)) || cmd=(mpi "$n" h5ufunc)
		run --separate-stderr "${cmd[@]}" check r.yaml
		assert_error_once 2 "${from_run#h5ufunc: }"
		run --separate-stderr "${cmd[@]}" check r.yaml --overwrite
		assert_success
		assert_line --partial "out o.h5:/speed float64 (6, 5), replaced"
		assert_unchanged
	done
	# and run --overwrite replaces it with NumPy's hypot
	mpi 3 h5ufunc run r.yaml --overwrite
	np check hypot wind.h5:/u wind.h5:/v -o o.h5:/speed
}

@test "errors in a recipe on stdin name <stdin>" {
	fixture wind.h5
	run --separate-stderr h5u run - <<-'EOF'
		steps:
		  - ufunc: add
		    in: [wind.h5:/u, w]
		    out: o.h5:/s
	EOF
	assert_error_match 2 "<stdin>:3:(9|22): step 1 \(ufunc add\): unknown name 'w'"
}
