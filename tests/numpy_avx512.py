#!/usr/bin/python3
"""numpy_avx512.py - print the AVX-512 dispatch levels NumPy would use on
this machine, space-separated (nothing where it has none), for
NPY_DISABLE_CPU_FEATURES: the test suite's reference is NumPy without them
(tests/numpy_pin.bash says why)."""
from numpy.core._multiarray_umath import __cpu_features__ as have, __cpu_dispatch__ as levels

print(" ".join(k for k in levels if k.startswith("AVX512") and have.get(k)))
