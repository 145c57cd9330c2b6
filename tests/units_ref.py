#!/usr/bin/python3
"""units_ref.py - unyt as the reference for the units h5ufunc writes (tests/36-units.bats).

Usage: units_ref.py JOB [:: JOB]...
  is FILE:/PATH EXPR
      the dataset's `units` attribute names the unit of the unyt expression
      EXPR (over unyt quantities such as K, m, s: `(m / s) ** 2`), compared
      as units (dimensions and scale), not as text; EXPR `none` asks that it
      has no `units` attribute.
  values FILE:/PATH EXPR
      the dataset is unyt's result of EXPR, where U('FILE:/PATH') is a
      dataset read as a unyt_array with its `units`: the same dtype, values
      equal to 1 ULP (NaNs equal) and the same units (none for a result
      without units).
  unyt EXPR
      unyt itself gives these units (a check of the reference: `K * m` is
      computed as unyt multiplies, `np.sqrt(...)` as it takes roots).
The attribute is read as UDUNITS-2 writes products and powers (`m2.s-2`,
`m s-1`, `m/s`, `K4`) and turned into unyt's spelling to be compared.
"""
import re
import warnings

import h5py
import numpy as np
import unyt

import h5ref as ref
from h5ref import Failure


def attribute(dset):
    """The units attribute of dataset FILE:/PATH as text, or None."""
    fname, path, _ = ref.split_ref(dset)
    with h5py.File(fname, "r") as f:
        return ref.text(f[path].attrs.get("units"))


def dataset(dset):
    """FILE:/PATH as a unyt_array in its units (dimensionless without)."""
    return unyt.unyt_array(ref.read_ref(dset), attribute(dset) or "dimensionless")


def check_values(dset, expr):
    """Dataset FILE:/PATH against unyt's EXPR: dtype, shape, values within 1
    ULP (NaNs equal), and units."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = eval(expr, {}, {"np": np, "unyt": unyt, "U": dataset})
    value = np.asarray(want.value if isinstance(want, unyt.unyt_array) else want)
    ref.compare_arrays(f"{dset} (against unyt's {expr})", value, ref.read_ref(dset), ulp=1)
    units = attribute(dset)
    dimensioned = isinstance(want, unyt.unyt_array) and not want.units.is_dimensionless
    if not dimensioned and units is not None:
        raise Failure(f"{dset}: units '{units}', unyt gives none for {expr}")
    if dimensioned and (units is None or not same_unit(udunits_to_unyt(units), want.units)):
        raise Failure(f"{dset}: units '{units}', unyt gives {want.units} for {expr}")


def udunits_to_unyt(text):
    """TEXT as a unyt quantity: a leading number is a factor (`0.01 m`)."""
    text = text.strip()
    factor = 1.0
    m = re.match(r"^([0-9.]+(?:[eE][-+]?[0-9]+)?)\s+(.*)$", text)
    if m:
        factor, text = float(m.group(1)), m.group(2)
    text = re.sub(r"([A-Za-z]+)(-?\d+)", r"(\1**\2)", text)
    text = re.sub(r"\)\s*\(", ")*(", text)
    text = re.sub(r"(?<=[\w)])[ .](?=[\w(])", "*", text)
    return factor * unyt.unyt_quantity(1.0, unyt.Unit(text))


def same_unit(q, unit):
    """Is quantity Q one UNIT: the same dimensions, and a factor of 1?"""
    return q.units.dimensions == unit.dimensions and np.isclose(q.to(unit).value, 1.0, rtol=1e-12)


def expected(expr):
    env = {name: unyt.unyt_quantity(1.0, name) for name in ("K", "m", "s", "cm", "kg")}
    env["np"] = np
    env["unyt"] = unyt
    return eval(expr, {}, env).units


def check_units(dset, expr):
    """Dataset FILE:/PATH's units are unyt's for EXPR (none: no units)."""
    got = attribute(dset)
    if expr == "none":
        if got is not None:
            raise Failure(f"{dset}: units '{got}', expected none")
        return
    want = expected(expr)
    if got is None:
        raise Failure(f"{dset}: no units, unyt gives {want} for {expr}")
    if not same_unit(udunits_to_unyt(got), want):
        raise Failure(f"{dset}: units '{got}', unyt gives {want} for {expr}")


JOBS = {
    'is': lambda a: check_units(a[0], a[1]),
    'values': lambda a: check_values(a[0], a[1]),
    'unyt': lambda a: print(expected(a[0])),
}

if __name__ == "__main__":
    ref.main(JOBS, "units_ref.py")
