#!/usr/bin/env bats
# 53-harness.bats - tests/run and tests/helper.bash themselves: what every
# other test takes for granted of its environment.
#
# A probe file is run by tests/run under a caller's environment that would
# undo the NumPy pin (NPY_DISABLE_CPU_FEATURES naming one AVX-512 level, or
# a baseline feature NumPy refuses to disable): inside, the pin is the
# AVX-512 levels NumPy reports in an environment without NPY_* variables,
# and NumPy computes with every one of them off.  Each test keeps its
# Open MPI session directory under a base of its own, not the shared
# /tmp/ompi.HOST.UID that concurrent runs race to create.  The caller's
# Python variables and user site directory do not reach the reference
# scripts, and the unit programs come from the build of the binary under
# test.  An MPI run's time limit is H5U_MPI_TIMEOUT, 300 s unless set.

load helper

# probe.bats in the test's directory: its tests write what they see into
# seen.N files there.
write_probe() {
	cat > probe.bats <<-PROBE
		load "$H5U_TESTS/helper"
		look() {
			local out=$PWD/seen.\$1   # this test's directory
			printf '%s\n' "\$NPY_DISABLE_CPU_FEATURES" "\$OMPI_MCA_orte_tmpdir_base" > "\$out"
			/usr/bin/python3 -c 'from numpy.core._multiarray_umath import __cpu_features__ as f, __cpu_dispatch__ as d; print(" ".join(k for k in d if f[k] and k.startswith("AVX512")))' >> "\$out"
			mpi 2 sh -c 'ls "\$OMPI_MCA_orte_tmpdir_base"' | sort -u >> "\$out"
		}
		TEST "one" { look 1; }
		TEST "two" { look 2; }
	PROBE
	sed -i 's/^TEST/@test/' probe.bats   # not a test of this file
}

@test "tests/run pins NumPy whatever NPY_* the caller exported, and gives each test an Open MPI session base of its own" {
	write_probe
	local clean
	clean=$(env -u NPY_DISABLE_CPU_FEATURES -u H5U_NUMPY_PINNED /usr/bin/python3 "$H5U_TESTS/numpy_avx512.py")
	local caller
	for caller in AVX512F SSE2 ''; do
		rm -f seen.*
		run env NPY_DISABLE_CPU_FEATURES="$caller" H5U_NUMPY_PINNED=1 "$H5U_TESTS/run" "$PWD/probe.bats"
		assert_success
		assert_line "2 passed, 0 failed"
		local n
		for n in 1 2; do
			mapfile -t seen < "seen.$n"
			[[ ${seen[0]} == "$clean" ]] || fail "caller '$caller': the pin is '${seen[0]}', not '$clean'"
			[[ -z ${seen[2]} ]] || fail "caller '$caller': NumPy kept ${seen[2]} on"
			[[ -n ${seen[1]} && ${seen[1]} != /tmp ]] || fail "caller '$caller': session base '${seen[1]}'"
			[[ ${seen[3]:-} == ompi.* ]] || fail "caller '$caller': no session under the base: ${seen[*]}"
		done
		[[ $(sed -n 2p seen.1) != "$(sed -n 2p seen.2)" ]] || fail "two tests share a session base"
	done
}

# pyprobe.bats in the test's directory: what Python a test sees (which
# NumPy, its flags, its warning options, what it writes on stderr), and
# where the unit programs are, into py.N files there.
write_pyprobe() {
	cat > pyprobe.bats <<-PROBE
		load "$H5U_TESTS/helper"
		look() {
			local out=$PWD/py.\$1   # this test's directory
			/usr/bin/python3 -c 'import sys, numpy, h5ref; print(numpy.__file__); print(sys.flags.optimize, sys.flags.verbose, sys.flags.inspect, sys.flags.no_user_site); print(sys.warnoptions); assert not [p for p in sys.path if "hostile" in p], sys.path' > "\$out" 2> "\$out.err"
			echo "\$H5U_UNIT" >> "\$out"
			unit_program DIAG diagprint 2>> "\$out.err" && echo "\$DIAG" >> "\$out"
		}
		TEST "one" { look 1; }
		TEST "two" { look 2; }
	PROBE
	sed -i 's/^TEST/@test/' pyprobe.bats   # not a test of this file
}

@test "the reference Python is hermetic: the caller's PYTHONPATH, PYTHONHOME, PYTHONWARNINGS, PYTHONOPTIMIZE, PYTHONVERBOSE and user site are left out, under tests/run and under bats by hand; unit programs come from beside the binary" {
	write_pyprobe
	local version debian
	version=$(/usr/bin/python3 -c 'import sys; print("python%d.%d" % sys.version_info[:2])')
	debian=$(env -i /usr/bin/python3 -c 'import numpy; print(numpy.__file__)')
	local dir
	for dir in hostile/path/numpy "hostile/home/.local/lib/$version/site-packages/numpy" \
		"hostile/user/lib/$version/site-packages/numpy"; do
		mkdir -p "$dir"
		echo 'raise ImportError("not the reference NumPy")' > "$dir/__init__.py"
	done
	# a build elsewhere: the binary and its unit programs
	mkdir -p other/unit
	cp "$H5UFUNC" other/h5ufunc
	cp "$H5U_UNIT/diagprint" other/unit/diagprint
	local how hostile=(PYTHONPATH="$PWD/hostile/path" HOME="$PWD/hostile/home"
		PYTHONUSERBASE="$PWD/hostile/user" PYTHONWARNINGS=error PYTHONOPTIMIZE=2
		PYTHONVERBOSE=1 PYTHONHOME=/nonexistent H5UFUNC="$PWD/other/h5ufunc")
	for how in run bats; do
		rm -f py.*
		if [[ $how == run ]]; then
			run env -u H5U_UNIT "${hostile[@]}" "$H5U_TESTS/run" "$PWD/pyprobe.bats"
			assert_line "2 passed, 0 failed"
		else
			run env -u H5U_UNIT -u H5U_NUMPY_PINNED -u PYTHONNOUSERSITE "${hostile[@]}" bats "$PWD/pyprobe.bats"
		fi
		assert_success
		local n
		for n in 1 2; do
			mapfile -t seen < "py.$n"
			[[ ${seen[0]} == "$debian" ]] || fail "$how: NumPy is ${seen[0]}, not $debian"
			[[ ${seen[1]} == "0 0 0 1" ]] || fail "$how: Python's flags (optimize verbose inspect no_user_site): ${seen[1]}"
			[[ ${seen[2]} == "[]" ]] || fail "$how: warning options ${seen[2]}"
			[[ ${seen[3]} == "$PWD/other/unit" ]] || fail "$how: unit programs from ${seen[3]}"
			[[ ${seen[4]} == "$PWD/other/unit/diagprint" ]] || fail "$how: diagprint is ${seen[4]:-missing}"
			[[ ! -s py.$n.err ]] || fail "$how: Python wrote on stderr: $(<"py.$n.err")"
		done
	done
}

@test "an MPI run's time limit is H5U_MPI_TIMEOUT seconds, 300 unless the caller set it (60 failed runs under load), under tests/run and bats by hand; a run past it fails" {
	cat > tprobe.bats <<-PROBE
		load "$H5U_TESTS/helper"
		TEST "limit" {
			echo "\$H5U_MPI_TIMEOUT" > "$PWD/limit"
			H5U_MPI_TIMEOUT=1 mpi 1 sleep 30 && exit 1
			echo "\$?" > "$PWD/status"
		}
	PROBE
	sed -i 's/^TEST/@test/' tprobe.bats   # not a test of this file
	local caller
	for caller in '' 450; do
		rm -f limit status
		if [[ -z $caller ]]; then
			run env -u H5U_MPI_TIMEOUT "$H5U_TESTS/run" "$PWD/tprobe.bats"
		else
			run env H5U_MPI_TIMEOUT="$caller" "$H5U_TESTS/run" "$PWD/tprobe.bats"
		fi
		assert_success
		[[ $(<limit) == "${caller:-300}" ]] || fail "caller '$caller': the limit is '$(<limit)'"
		[[ $(<status) == 124 ]] || fail "caller '$caller': a run past the limit ended with status '$(<status)'"
	done
	rm -f limit
	run env -u H5U_MPI_TIMEOUT bats "$PWD/tprobe.bats"
	assert_success
	[[ $(<limit) == 300 ]] || fail "by hand: the limit is '$(<limit)'"
}
