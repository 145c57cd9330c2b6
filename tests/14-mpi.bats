#!/usr/bin/env bats
# 14-mpi.bats - the same work on any number of ranks: results identical for
# 1, 2, 3 and 4 ranks and without a launcher (compared as datasets with h5py,
# not as file bytes), uneven splits, more ranks than rows (0-d and empty
# arrays too), small --memory budgets, and errors reported once with every
# rank agreeing on the exit status.  Every mpirun runs under a timeout, so a
# rank left alone in a collective call fails the test instead of hanging it.

load helper

setup_file() {
	fixtures <<-'EOF'
		make g.h5:/a float64 7,5
		make g.h5:/b float64 5
		make g.h5:/c int32 7,1
		make g.h5:/i int16 7,5 fill=pos
		make g.h5:/h float16 7,5 fill=pos
		make g.h5:/bo bool 7,5
		make g.h5:/base int16 7 data=[2,3,4,5,6,7,8]
		make g.h5:/exps int16 7 data=[1,2,3,0,1,2,-1]
		make small.h5:/two float32 2,3
		make small.h5:/z float64 () data=1.5
		make small.h5:/e float64 0
		make small.h5:/e03 int32 0,3
		make small.h5:/r3 int32 3
		make small.h5:/one int8 1,4
		make big.h5:/x float64 2000,64
		make big.h5:/y float64 2000,64
	EOF
}

G() {
	echo "$BATS_FILE_TMPDIR/g.h5:/$1"
}

# in_dir DIR CMD...: run CMD in a new directory DIR holding a copy of g.h5
# and of the recipes in the test directory.
in_dir() {
	local dir=$1
	shift
	mkdir "$dir"
	cp ./*.yaml "$dir"/ 2>/dev/null || true
	(cd "$dir" && fixture g.h5 && "$@")
}

@test "a recipe gives the same datasets on 1, 2, 3, 4 ranks and without a launcher" {
	cat >grid.yaml <<-'EOF'
		inputs: {a: g.h5:/a, b: g.h5:/b, c: g.h5:/c}
		steps:
		  - {ufunc: multiply, in: [a, b], out: t}   # (7,5) * (5,), kept in memory
		  - {ufunc: add, in: [t, c], out: out.h5:/sum}   # (7,5) + (7,1) int32
		  - {ufunc: divmod, in: [g.h5:/i, 3], out: [out.h5:/q, out.h5:/r]}
		  - {ufunc: greater, in: [a, 0], out: out.h5:/pos}
		  - {ufunc: sqrt, in: g.h5:/h, out: out.h5:/h}
		  - {ufunc: logical_xor, in: [g.h5:/bo, out.h5:/pos], out: out.h5:/x}
		  - {ufunc: multiply, in: [c, 2], out: c}   # in place, after c was read above
	EOF
	in_dir r0 h5u run grid.yaml
	local n
	for n in 1 2 3 4; do
		in_dir "r$n" mpi "$n" h5ufunc run grid.yaml
	done
	np let t multiply "$(G a)" "$(G b)" :: \
		check add t "$(G c)" -o r0/out.h5:/sum :: \
		check divmod "$(G i)" 3 -o r0/out.h5:/q,r0/out.h5:/r :: \
		check greater "$(G a)" 0 -o r0/out.h5:/pos :: \
		check sqrt "$(G h)" -o r0/out.h5:/h :: \
		let pos greater "$(G a)" 0 :: \
		check logical_xor "$(G bo)" pos -o r0/out.h5:/x :: \
		check multiply "$(G c)" 2 -o r0/g.h5:/c --into :: \
		same r{0,1,2,3,4}/out.h5:/sum :: \
		same r{0,1,2,3,4}/out.h5:/q :: \
		same r{0,1,2,3,4}/out.h5:/r :: \
		same r{0,1,2,3,4}/out.h5:/pos :: \
		same r{0,1,2,3,4}/out.h5:/h :: \
		same r{0,1,2,3,4}/out.h5:/x :: \
		same r{0,1,2,3,4}/g.h5:/c :: \
		history r3/out.h5 --first "h5ufunc run grid.yaml" --rest-none :: \
		history r4/g.h5 --first "h5ufunc run grid.yaml" --rest-none
	for n in 0 1 2 3 4; do
		assert_equal "$(cd "r$n" && ls -A)" $'g.h5\ngrid.yaml\nout.h5'
	done
}

@test "uneven split: 7 rows on 3 ranks" {
	fixture g.h5
	mpi 3 h5ufunc call add g.h5:/a g.h5:/b -o o.h5:/s
	mpi 3 h5ufunc call multiply g.h5:/c g.h5:/a -o o.h5:/m
	mpi 3 h5ufunc call frexp g.h5:/a -o o.h5:/mant,o.h5:/exp
	np check add g.h5:/a g.h5:/b -o o.h5:/s :: \
		check multiply g.h5:/c g.h5:/a -o o.h5:/m :: \
		check frexp g.h5:/a -o o.h5:/mant,o.h5:/exp
}

@test "more ranks than rows: 2 rows, 1 row, 0-d and empty arrays on 4 ranks" {
	fixture small.h5
	mpi 4 h5ufunc call multiply small.h5:/two 2 -o o.h5:/two
	mpi 4 h5ufunc call add small.h5:/one 1 -o o.h5:/one
	mpi 4 h5ufunc call add small.h5:/z 1 -o o.h5:/z
	mpi 4 h5ufunc call add small.h5:/e 1 -o o.h5:/e
	mpi 4 h5ufunc call add small.h5:/e03 small.h5:/r3 -o o.h5:/e03
	mpi 4 h5ufunc call divmod small.h5:/z 0.25 -o o.h5:/zq,o.h5:/zr
	np check multiply small.h5:/two 2 -o o.h5:/two :: \
		check add small.h5:/one 1 -o o.h5:/one :: \
		check add small.h5:/z 1 -o o.h5:/z :: \
		check add small.h5:/e 1 -o o.h5:/e :: \
		check add small.h5:/e03 small.h5:/r3 -o o.h5:/e03 :: \
		check divmod small.h5:/z 0.25 -o o.h5:/zq,o.h5:/zr
	run np ls o.h5
	assert_line "/e float64 (0)"
	assert_line "/e03 int32 (0,3)"
	assert_line "/z float64 ()"
}

@test "printed results come out once and in order on any number of ranks" {
	fixture g.h5 small.h5
	run --separate-stderr mpi 3 h5ufunc call add g.h5:/a g.h5:/b
	assert_success
	np printed add g.h5:/a g.h5:/b <<<"$output"
	run --separate-stderr mpi 4 h5ufunc call add small.h5:/two 1
	assert_success
	np printed add small.h5:/two 1 <<<"$output"
	run --separate-stderr mpi 4 h5ufunc call add small.h5:/z 1
	assert_success
	assert_output "2.5"
	run --separate-stderr mpi 2 h5ufunc call divmod g.h5:/i 4
	assert_success
	np printed divmod g.h5:/i 4 <<<"$output"
}

@test "--memory small enough for many blocks gives the same result" {
	fixture big.h5
	cat >big.yaml <<-'EOF'
		inputs: {x: big.h5:/x, y: big.h5:/y}
		steps:
		  - {ufunc: multiply, in: [x, y], out: t}
		  - {ufunc: add, in: [t, x], out: d.h5:/s}
	EOF
	h5u call add big.h5:/x big.h5:/y -o a.h5:/s
	h5u call add big.h5:/x big.h5:/y -o b.h5:/s --memory 64K
	mpi 3 h5ufunc call add big.h5:/x big.h5:/y -o c.h5:/s --memory 64K
	mpi 2 h5ufunc run --memory 64K big.yaml
	h5u call add big.h5:/x big.h5:/y -o e.h5:/s --memory 1048576
	h5u call add big.h5:/x big.h5:/y -o f.h5:/s --memory 1M
	np check add big.h5:/x big.h5:/y -o a.h5:/s :: \
		same a.h5:/s b.h5:/s c.h5:/s e.h5:/s f.h5:/s :: \
		let t multiply big.h5:/x big.h5:/y :: \
		check add t big.h5:/x -o d.h5:/s
	run ls -A
	assert_output $'a.h5\nb.h5\nbig.h5\nbig.yaml\nc.h5\nd.h5\ne.h5\nf.h5'
}

@test "--memory too small for one row is refused before any write" {
	fixture big.h5
	snapshot
	run --separate-stderr h5u call add big.h5:/x big.h5:/y -o o.h5:/s --memory 256
	assert_error_match 2 "call add: .+"
	assert_unchanged
	run --separate-stderr mpi 2 h5ufunc call add big.h5:/x big.h5:/y -o o.h5:/s --memory 256
	assert_equal "$status" 2
	assert_equal "$(grep -c '^h5ufunc: call add: ' <<<"$stderr")" 1
	assert_unchanged
}

@test "an error under mpirun is printed once and nothing is written" {
	fixture g.h5 small.h5
	snapshot
	run --separate-stderr mpi 3 h5ufunc call add g.h5:/a small.h5:/two -o o.h5:/s
	assert_error_once 2 "call add: operands could not be broadcast together with shapes (7,5) (2,3)"
	assert_output ""
	cat >r.yaml <<-'EOF'
		steps:
		  - ufunc: add
		    in: [g.h5:/a, w]
		    out: o.h5:/s
	EOF
	snapshot
	run --separate-stderr mpi 2 h5ufunc run r.yaml
	[[ $status -eq 2 ]] || fail "exit $status, want 2: $stderr"
	assert_equal "$(grep -c '^h5ufunc: r\.yaml:3:[0-9]*: step 1 (ufunc add): unknown name '"'w'" <<<"$stderr")" 1
	assert_unchanged
}

@test "a data error on the last rank only: exit 1, reported once, no new file" {
	fixture g.h5
	snapshot
	run --separate-stderr mpi 3 h5ufunc call power g.h5:/base g.h5:/exps -o n.h5:/p
	assert_error_once 1 "call power: Integers to negative integer powers are not allowed."
	assert_file_not_exists n.h5
	assert_unchanged
}

@test "--mpi initialises MPI without a launcher" {
	fixture g.h5
	# A sanitizer build: a singleton MPI_Init leaves helper threads that
	# LeakSanitizer cannot stop to look for leaks (it crashes); ASan and
	# UBSan still watch this run.  No effect on a plain build.
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" h5u call add g.h5:/a 1 -o o.h5:/s --mpi
	np check add g.h5:/a 1 -o o.h5:/s
}
