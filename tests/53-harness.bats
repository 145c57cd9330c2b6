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
# /tmp/ompi.HOST.UID that concurrent runs race to create.

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
