#!/usr/bin/env bats
# 31-recipes.bats - every file in recipes/ runs, and does what its comment
# says.
#
# Each YAML recipe runs with `h5ufunc run --set DATA=DIR` on a fresh copy of
# the sample data (tools/make-demo-data) on one process without a launcher
# and on 2 MPI ranks; tests/recipes_ref.py checks every dataset it wrote
# against NumPy, that nothing else changed, that no stray file is left, and
# that both runs wrote the same bits.  `h5ufunc check` of each recipe must
# accept it and write nothing.  slurm-job.sh runs with its srun line turned
# into an mpirun line.  The last test fails when a file in recipes/ has no
# test here: a test for recipes/NAME is titled "recipes/NAME ...".

load helper

REPO=$(cd "$H5U_TESTS/.." && pwd)

setup_file() {
	/usr/bin/python3 "$REPO/tools/make-demo-data" "$BATS_FILE_TMPDIR/orig"
}

REF=recipes_ref.py

# A fresh copy of the sample data in ./DIR.
data() {
	rm -rf "$1"
	cp -R "$BATS_FILE_TMPDIR/orig" "$1"
}

# run_recipe NAME: check, then run recipes/NAME.yaml on 1 process and on 2
# ranks, each on its own copy of the data, and compare with NumPy.
run_recipe() {
	local name=$1 recipe=$REPO/recipes/$1.yaml

	data checked
	snapshot
	run --separate-stderr h5u check --set DATA=checked "$recipe"
	assert_success
	assert_unchanged

	data one
	run --separate-stderr h5u run --set DATA=one "$recipe"
	assert_success
	assert_stderr_empty
	run ref check "$name" "$BATS_FILE_TMPDIR/orig" one
	assert_success

	data two
	run --separate-stderr mpi 2 h5ufunc run --set DATA=two "$recipe"
	assert_success
	assert_stderr_empty
	run ref check "$name" "$BATS_FILE_TMPDIR/orig" two
	assert_success

	run ref same one two
	assert_success
}

@test "recipes/wind-speed.yaml on 1 and 2 ranks matches NumPy" {
	run_recipe wind-speed
}

@test "recipes/wind-speed.yaml run again: refused without --overwrite, replaced with it" {
	data d
	run --separate-stderr h5u run --set DATA=d "$REPO/recipes/wind-speed.yaml"
	assert_success
	snapshot
	run --separate-stderr h5u run --set DATA=d "$REPO/recipes/wind-speed.yaml"
	assert_equal "$status" 2
	assert_unchanged
	run --separate-stderr h5u run --overwrite --set DATA=d "$REPO/recipes/wind-speed.yaml"
	assert_success
	run ref check wind-speed "$BATS_FILE_TMPDIR/orig" d
	assert_success
}

@test "recipes/wind-speed.yaml without DATA set: a recipe error, nothing written" {
	data d
	snapshot
	run --separate-stderr env -u DATA timeout 120 h5ufunc run "$REPO/recipes/wind-speed.yaml"
	assert_error_match 2 '.*/recipes/wind-speed\.yaml:[0-9]+:[0-9]+: \$\{DATA\} is not set.*'
	assert_unchanged
}

@test "recipes/rescale-in-place.yaml on 1 and 2 ranks matches NumPy" {
	run_recipe rescale-in-place
}

@test "recipes/time-of-day.yaml on 1 and 2 ranks matches NumPy" {
	run_recipe time-of-day
}

@test "recipes/potential-temperature.yaml on 1 and 2 ranks matches NumPy" {
	run_recipe potential-temperature
}

@test "recipes/potential-temperature.yaml runs twice: defaults' overwrite replaces theta" {
	data d
	run --separate-stderr h5u run --set DATA=d "$REPO/recipes/potential-temperature.yaml"
	assert_success
	run --separate-stderr h5u run --set DATA=d "$REPO/recipes/potential-temperature.yaml"
	assert_success
	assert_stderr_empty
	run ref check potential-temperature "$BATS_FILE_TMPDIR/orig" d
	assert_success
}

@test "recipes/anomalies.yaml on 1 and 2 ranks matches NumPy, and ncdump names every dimension" {
	run_recipe anomalies
	for d in one two; do
		run ncdump -h $d/anomalies.nc
		assert_success
		assert_line --partial "float anomaly(time, lat, lon) ;"
		assert_line --partial "float mean(lat, lon) ;"
		refute_output --partial phony_dim
	done
}

@test "recipes/eof-projection.yaml (matmul per latitude, by name) on 1 and 2 ranks matches NumPy, and names pc(time, mode)" {
	run_recipe eof-projection
	for d in one two; do
		run ncdump -h $d/pcs.nc
		assert_success
		assert_line --partial "float pc(time, mode) ;"
	done
}

@test "recipes/column-totals.yaml on 1 and 2 ranks matches NumPy" {
	run_recipe column-totals
}

@test "recipes/frost-days.yaml (where= on reduce and expr steps) on 1 and 2 ranks matches NumPy" {
	run_recipe frost-days
}

@test "recipes/observed-extremes.yaml (masked reduce steps, an ncgen-made _FillValue) on 1 and 2 ranks matches numpy.ma" {
	run_recipe observed-extremes
	run /usr/bin/python3 -c 'import h5py, sys; f = h5py.File(sys.argv[1], "r")
assert (f["tmax"][4, 7], f["tmin"][4, 7], f["tmax"].attrs["_FillValue"]) == (-9999, -9999, -9999)' two/extremes.nc
	assert_success
}

@test "recipes/monthly-means.yaml (masked reduceat steps: sums and counts of valid days) on 1 and 2 ranks matches numpy.ma" {
	run_recipe monthly-means
	run ncdump -h one/monthly.nc
	assert_success
	assert_line --partial "time = 3 ;"
	assert_line --partial "double t2m(time, lat, lon) ;"
	run ncdump -v time one/monthly.nc   # time at the months' first days
	assert_output --partial " time = 0, 31, 60 ;"
	data r3
	run --separate-stderr mpi 3 h5ufunc run --memory 8K --set DATA=r3 "$REPO/recipes/monthly-means.yaml"
	assert_success
	run ref same one r3
	assert_success
}

@test "recipes/column-totals.yaml on 3 and 4 ranks (5 stations split unevenly) writes the same bits" {
	data one
	run --separate-stderr h5u run --set DATA=one "$REPO/recipes/column-totals.yaml"
	assert_success
	local n
	for n in 3 4; do
		data "r$n"
		run --separate-stderr mpi "$n" h5ufunc run --set DATA="r$n" "$REPO/recipes/column-totals.yaml"
		assert_success
		run ref same one "r$n"
		assert_success
	done
}

@test "recipes/cumulative.yaml on 1 and 2 ranks matches NumPy bit for bit" {
	run_recipe cumulative
}

@test "recipes/cumulative.yaml on 3 and 4 ranks, many blocks (--memory 8K), writes the same bits" {
	data one
	run --separate-stderr h5u run --set DATA=one "$REPO/recipes/cumulative.yaml"
	assert_success
	local n
	for n in 3 4; do
		data "r$n"
		run --separate-stderr mpi "$n" h5ufunc run --memory 8K --set DATA="r$n" "$REPO/recipes/cumulative.yaml"
		assert_success
		run ref same one "r$n"
		assert_success
	done
}

@test "recipes/slurm-job.sh runs its srun line under mpirun -n 2" {
	local script=$REPO/recipes/slurm-job.sh
	run bash -n "$script"
	assert_success
	# Exactly one srun line, and it runs h5ufunc.
	run grep -c '^srun ' "$script"
	assert_output 1
	run grep '^srun .*h5ufunc.* run ' "$script"
	assert_success

	sed 's/^srun /timeout 120 mpirun --oversubscribe -n 2 /' "$script" >job.sh
	data d
	run --separate-stderr env SLURM_SUBMIT_DIR="$REPO" DATA="$PWD/d" H5UFUNC="$H5UFUNC" bash job.sh
	assert_success
	assert_stderr_empty
	run ref check wind-speed "$BATS_FILE_TMPDIR/orig" d
	assert_success

	# Without DATA the script stops before starting anything.
	run --separate-stderr env -u DATA SLURM_SUBMIT_DIR="$REPO" H5UFUNC=false bash job.sh
	assert_failure
	[[ $stderr == *"set DATA"* ]] || fail "stderr does not ask for DATA: $stderr"
}

@test "recipes/* every file has a test here and a reference" {
	local f name known missing=()
	known=$(ref list) || fail "recipes_ref.py list failed"
	for f in "$REPO"/recipes/*; do
		name=${f##*/}
		grep -qF "@test \"recipes/$name " "$BATS_TEST_FILENAME" || missing+=("$name: no test")
		if [[ $name == *.yaml ]]; then
			grep -qxF "${name%.yaml}" <<<"$known" || missing+=("$name: no reference in recipes_ref.py")
		fi
	done
	((${#missing[@]} == 0)) || fail "$(printf '%s\n' "${missing[@]}")"
	# And every recipe_ref.py reference has its recipe.
	for name in $known; do
		[[ -f $REPO/recipes/$name.yaml ]] || fail "recipes_ref.py knows '$name', recipes/ has no $name.yaml"
	done
}
