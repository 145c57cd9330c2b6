# numpy_pin.bash - the suite's NumPy, the same reference on every machine
# and whatever the caller exported; sourced by tests/run (once for the
# whole run) and by tests/helper.bash (for bats run by hand), with
# H5U_TESTS set to this directory.
#
# NumPy's AVX-512 loops (complex multiply and absolute, its SVML
# exp/log/pow/arctan2/...) round differently from its other loops, so on a
# CPU with AVX-512 NumPy's own bits change; h5ufunc's do not depend on the
# CPU (SPEC 3.4).  NumPy is asked to leave out the AVX-512 levels this
# machine has (naming one it lacks would make it warn).  Which it has is
# asked of a NumPy without the caller's NPY_* variables: under the
# caller's NPY_DISABLE_CPU_FEATURES it would report those levels as absent
# (and keep them on for the tests), and under a value it refuses it fails
# to import; the tests then run with none of the caller's NPY_* either.
# H5U_NUMPY_PINNED says it is done.
#
# Python itself is made hermetic first, so that the NumPy asked is the one
# the tests use: none of the caller's PYTHON* variables (PYTHONPATH or
# PYTHONHOME could put another NumPy first, PYTHONWARNINGS turn a warning
# of a reference script into an error, PYTHONOPTIMIZE make its asserts
# no-ops, PYTHONVERBOSE write to its stderr, PYTHONINSPECT wait for a
# prompt), no user site directory (a `pip install --user numpy` there
# would come before Debian's), and tests/ alone on PYTHONPATH, so that the
# Python a test writes inline imports the reference library as the
# scripts do (`import h5ref`).
if [[ -z ${H5U_NUMPY_PINNED:-} ]]; then
	unset "${!PYTHON@}"
	export PYTHONNOUSERSITE=1 PYTHONPATH=$H5U_TESTS
	unset "${!NPY_@}"
	if ! NPY_DISABLE_CPU_FEATURES=$(/usr/bin/python3 "$H5U_TESTS/numpy_avx512.py"); then
		echo "numpy_pin.bash: NumPy cannot say its AVX-512 levels (tests/numpy_avx512.py failed)" >&2
		exit 2
	fi
	export NPY_DISABLE_CPU_FEATURES H5U_NUMPY_PINNED=1
fi
