#!/usr/bin/env bats
# 72-vds.bats - outputs over one file per rank (`vds: true`, `--vds`): a
# new file's dataset written as a virtual dataset whose rank R's share
# lives in OUT.rankR beside it.  On one process and 1 to 4 ranks (37 rows:
# uneven splits; 2 rows on 4 ranks: ranks with nothing to do; (3, 3, 4001)
# on 2 and 4 ranks: shares that cross rows, mapped as unions; empty
# outputs: virtual datasets without mappings), the values are NumPy's and
# the one-file output's, bit for bit, read by h5py, by netCDF4-python
# (names and units kept) and by ncdump, from another directory after the
# set is moved, and by h5ufunc itself on several ranks; compressed sources
# are each compressed by their rank; a run that fails leaves no file; and
# every output that cannot be one is refused before anything is written
# (tests/vds_ref.py).

load helper
REF=vds_ref.py

setup_file() {
	ref make "$BATS_FILE_TMPDIR"
}

setup() {
	fixture in.h5
}

W1='sqrt(a*a+b*b)'

@test "one process and 1 to 4 ranks: NumPy's bits, the one-file output's, one mapping a rank" {
	ok eval -i a=in.h5:/a -i b=in.h5:/b "one.h5:/c = $W1"
	ok eval --vds -i a=in.h5:/a -i b=in.h5:/b "v.h5:/c = $W1"
	local jobs=(same one.h5 /c "np.sqrt(a*a+b*b)" :: plain one.h5 /c ::
		same v.h5 /c "np.sqrt(a*a+b*b)" :: mapped v.h5 /c 1) n
	for n in 1 2 3 4; do
		run --separate-stderr mpi "$n" h5ufunc eval --vds -i a=in.h5:/a -i b=in.h5:/b "v$n.h5:/c = $W1"
		assert_success
		jobs+=(:: same "v$n.h5" /c "np.sqrt(a*a+b*b)" :: mapped "v$n.h5" /c "$n")
	done
	run ref "${jobs[@]}"
	assert_success
	[[ ! -e one.h5.rank0 ]]
}

@test "ranks with no rows have no source; shares that cross rows map as unions" {
	local jobs=() n
	for n in 2 3 4; do
		run --separate-stderr mpi "$n" h5ufunc eval --vds -i a=in.h5:/a[0:2] -i b=in.h5:/b[0:2] \
			"r$n.h5:/c = $W1"
		assert_success
		run --separate-stderr mpi "$n" h5ufunc eval --vds -i t=in.h5:/t -i u=in.h5:/u \
			"t$n.h5:/c = t*u+1" --memory 1M
		assert_success
		jobs+=(same "r$n.h5" /c "np.sqrt(a[0:2]*a[0:2]+b[0:2]*b[0:2])" :: mapped "r$n.h5" /c 2 ::
			same "t$n.h5" /c "t*u+1" :: mapped "t$n.h5" /c "$n" ::)
		((n == 3)) || jobs+=(unions "t$n.h5" /c ::)
	done
	run ref "${jobs[@]}"
	assert_success
	[[ ! -e r4.h5.rank2 && ! -e r4.h5.rank3 ]]
}

@test "an empty output, whichever axis is empty: a virtual dataset without mappings, no source file, h5py and h5ufunc read it as NumPy's empty result; one process and 1 to 4 ranks" {
	local jobs=() n go
	for n in 0 1 2 3 4; do
		go=(mpi "$n")
		((n)) || go=()
		run --separate-stderr "${go[@]}" h5ufunc call multiply "in.h5:/a[:, 0:0]" "in.h5:/b[:, 0:0]" -o "a$n.h5:/c" --vds
		assert_success
		run --separate-stderr "${go[@]}" h5ufunc eval --vds -i "t=in.h5:/t[:, 1:1]" "t$n.h5:/c = t+1"
		assert_success
		run --separate-stderr "${go[@]}" h5ufunc eval --vds -i t=in.h5:/t[0:0] "z$n.h5:/c = t+1"
		assert_success
		run --separate-stderr "${go[@]}" h5ufunc reduce add "a$n.h5:/c" --axis 1 -o "s$n.h5:/s"
		assert_success
		jobs+=(same "a$n.h5" /c "a[:, 0:0]*b[:, 0:0]" :: mapped "a$n.h5" /c 0 ::
			same "t$n.h5" /c "t[:, 1:1]+1" :: mapped "t$n.h5" /c 0 ::
			same "z$n.h5" /c "t[0:0]+1" :: mapped "z$n.h5" /c 0 ::
			same "s$n.h5" /s "np.add.reduce(a[:, 0:0]*b[:, 0:0], axis=1)" ::)
		[[ ! -e a$n.h5.rank0 && ! -e t$n.h5.rank0 && ! -e z$n.h5.rank0 ]]
	done
	run ref "${jobs[@]}"
	assert_success
}

@test "names, units and history kept; netCDF4, ncdump and h5ufunc read it, from another directory" {
	run --separate-stderr mpi 3 h5ufunc eval --vds -i a=in.h5:/a -i b=in.h5:/b "v.h5:/c = $W1"
	assert_success
	mkdir -p moved/deep
	mv v.h5 v.h5.rank* moved/deep/
	cp in.h5 moved/deep/
	# a decoy where the sources' relative names would be looked up first if
	# the working directory came before the virtual file's own
	cp in.h5 v.h5.rank0
	run ref netcdf moved/deep/v.h5 /c "np.sqrt(a*a+b*b)" y,x m :: same moved/deep/v.h5 /c "np.sqrt(a*a+b*b)"
	assert_success
	run --separate-stderr ncdump -v c moved/deep/v.h5
	assert_success
	[[ $output == *"double c(y, x) ;"* && $output == *'c:units = "m" ;'* && $output == *':history = '* ]]
	(cd moved && mpi 2 h5ufunc call add deep/v.h5:/c 1 -o ../p.h5:/p) || fail "h5ufunc reading it: exit $?"
	run ref same p.h5 /p "np.sqrt(a*a+b*b)+1"
	assert_success
}

@test "a recipe's vds: true with gzip chunks: each rank compresses its own source" {
	cat >r.yaml <<-'EOF'
	inputs:
	  a: in.h5:/a
	  b: in.h5:/b
	steps:
	  - expr: sqrt(a*a + b*b)
	    chunks: [8, 23]
	    compression: gzip:1
	    vds: true
	    out: z.h5:/g/c
	EOF
	run --separate-stderr h5u check r.yaml
	assert_success
	[[ $output == *"out z.h5:/g/c float64 (37, 23) dims (y, x) units m, new file over one file per rank"* ]]
	run --separate-stderr mpi 3 h5ufunc run r.yaml
	assert_success
	run ref same z.h5 /g/c "np.sqrt(a*a+b*b)" :: mapped z.h5 /g/c 3 :: filters z.h5 /g/c gzip
	assert_success
}

@test "a failing run leaves no output, no source and no temporary file" {
	snapshot
	run --separate-stderr env H5UFUNC_FAULT=write:1:1 timeout 60 mpirun --oversubscribe -n 3 \
		h5ufunc eval --vds -i a=in.h5:/a -i b=in.h5:/b "v.h5:/c = $W1"
	assert_failure
	assert_unchanged
}

@test "a killed run's sources are swept away by the next run that writes beside them" {
	local dead=.v.h5.rank1.h5ufunc-0123456789abcdef0123456789abcdef.tmp
	h5u eval -i a=in.h5:/a "$dead:/c = a * 1"
	run --separate-stderr mpi 2 h5ufunc eval --vds -i a=in.h5:/a -i b=in.h5:/b "w.h5:/c = $W1"
	assert_success
	[[ ! -e $dead ]] || fail "$dead is still there"
	run ref same w.h5 /c "np.sqrt(a*a+b*b)" :: mapped w.h5 /c 2
	assert_success
	[[ -z $(compgen -G '.*.tmp') ]] || fail "temporary files left: $(compgen -G '.*.tmp')"
}

@test "refused before anything is written: in place, existing files and datasets, printed, names taken" {
	h5u eval -i a=in.h5:/a "e.h5:/c = a * 1"
	snapshot
	run --separate-stderr h5u eval --vds -i a=in.h5:/a 'a = a * 2'
	assert_error 2 "eval: vds: 'in.h5:/a' exists: only a new file's dataset is written over one file per rank"
	run --separate-stderr h5u eval --vds -i a=in.h5:/a 'e.h5:/d = a * 2'
	assert_error 2 "eval: vds: 'e.h5:/d' is in an existing file: only a new file's dataset is written over one file per rank"
	run --separate-stderr h5u eval --vds --overwrite -i a=in.h5:/a 'e.h5:/c = a * 2'
	assert_error 2 "eval: vds: 'e.h5:/c' exists: only a new file's dataset is written over one file per rank"
	run --separate-stderr h5u eval --vds -i a=in.h5:/a 'a * 2'
	assert_error 2 "eval: vds: a printed result is not written to a file (write it to FILE:/PATH)"
	touch n.h5.rank1
	snapshot
	run --separate-stderr mpi 2 h5ufunc eval --vds -i a=in.h5:/a 'n.h5:/c = a * 2'
	assert_error_once 2 "eval: vds: 'n.h5.rank1' exists, where rank 1's part of 'n.h5:/c' goes: remove it or choose another output file"
	assert_unchanged
}

# refused RECIPE MESSAGE: RECIPE (printf's format) is refused with MESSAGE.
refused() {
	# shellcheck disable=SC2059
	printf "$1" >r.yaml
	run --separate-stderr h5u run r.yaml
	assert_error 2 "$2"
	rm r.yaml
}

@test "refused in recipes: another verb, a named intermediate, a later step reading it" {
	local step='  - ufunc: negative\n    in: [in.h5:/a]\n    vds: true\n'
	snapshot
	refused 'steps:\n  - reduce: add\n    in: in.h5:/a\n    vds: true\n    out: s.h5:/s\n' \
		"r.yaml:4:5: 'vds' applies to ufunc and expr steps only"
	refused "steps:\n$step    out: t\n" \
		"r.yaml:4:10: step 1 (ufunc negative): vds: the named intermediate 't' is not written to a file (write it to FILE:/PATH)"
	refused "steps:\n$step    out: v.h5:/c\n  - ufunc: negative\n    in: [v.h5:/c]\n    out: w.h5:/c\n" \
		"r.yaml:6:5: step 2 (ufunc negative): 'v.h5:/c' is written over one file per rank (vds): read it in a later run"
	refused "steps:\n$step    out: v.h5:/c\n  - ufunc: negative\n    in: [in.h5:/b]\n    out: v.h5:/c\n" \
		"r.yaml:8:10: step 2 (ufunc negative): 'v.h5:/c' is written over one file per rank (vds): no later step of the run writes into it"
	assert_unchanged
}

@test "a run killed between placing its sources and renaming its output: the sources go with the next run or recover; killed after, the output stays whole" {
	local W="v.h5:/c = $W1"
	# killed with every source placed (linked under its name), the output not
	run --separate-stderr env H5UFUNC_FAULT=kill-sources:0:1 timeout 60 mpirun --oversubscribe -n 3 \
		h5ufunc eval --vds -i a=in.h5:/a -i b=in.h5:/b "$W"
	assert_failure
	[[ ! -e v.h5 && -e v.h5.rank0 && -e v.h5.rank2 ]] || fail "not killed between the renames: $(ls -A)"
	run --separate-stderr h5u recover in.h5
	assert_success
	assert_output --regexp "removed 7 files that dead runs left in .*v\.h5\.rank0.*"
	[[ -z $(compgen -G 'v.h5*') && -z $(compgen -G '.*.tmp') ]] || fail "left: $(ls -A)"
	# the same output again, after the same kill: the next run sweeps and writes it
	run --separate-stderr env H5UFUNC_FAULT=kill-sources:0:1 timeout 60 mpirun --oversubscribe -n 3 \
		h5ufunc eval --vds -i a=in.h5:/a -i b=in.h5:/b "$W"
	assert_failure
	[[ ! -e v.h5 && -e v.h5.rank1 ]] || fail "not killed between the renames: $(ls -A)"
	run --separate-stderr mpi 3 h5ufunc eval --vds -i a=in.h5:/a -i b=in.h5:/b "$W"
	assert_success
	run ref same v.h5 /c "np.sqrt(a*a+b*b)" :: mapped v.h5 /c 3
	assert_success
	[[ -z $(compgen -G '.*.tmp') ]] || fail "temporary files left: $(compgen -G '.*.tmp')"
	# killed once the output is in place: only the sources' temporary names go
	run --separate-stderr env H5UFUNC_FAULT=kill-renamed:2:1 timeout 60 mpirun --oversubscribe -n 3 \
		h5ufunc eval --vds -i a=in.h5:/a -i b=in.h5:/b "w.h5:/c = $W1"
	assert_failure
	[[ -n $(compgen -G '.w.h5.rank*.tmp') ]] || fail "not killed before the temporary names went: $(ls -A)"
	run --separate-stderr h5u recover in.h5
	assert_success
	[[ -z $(compgen -G '.*.tmp') ]] || fail "temporary files left: $(compgen -G '.*.tmp')"
	run ref same w.h5 /c "np.sqrt(a*a+b*b)" :: mapped w.h5 /c 3
	assert_success
}
