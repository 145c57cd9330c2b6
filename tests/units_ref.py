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
import sys
import warnings

import h5py
import numpy as np
import unyt


def attribute(ref):
    path, dset = ref.split(":", 1)
    with h5py.File(path, "r") as f:
        u = f[dset].attrs.get("units")
    return u.decode() if isinstance(u, bytes) else u


def dataset(ref):
    """REF as a unyt_array in its units (dimensionless without)."""
    path, dset = ref.split(":", 1)
    with h5py.File(path, "r") as f:
        data = f[dset][...]
    return unyt.unyt_array(data, attribute(ref) or "dimensionless")


def check_values(ref, expr):
    """Problems of dataset REF against unyt's EXPR, as a list of text."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = eval(expr, {}, {"np": np, "unyt": unyt, "U": dataset})
    path, dset = ref.split(":", 1)
    with h5py.File(path, "r") as f:
        got = f[dset][...]
    value = np.asarray(want.value if isinstance(want, unyt.unyt_array) else want)
    if got.dtype != value.dtype or got.shape != value.shape:
        return [f"{ref}: {got.dtype} {got.shape}, unyt gives {value.dtype} {value.shape} for {expr}"]
    bad = []
    if value.dtype.kind in "fc":
        close = (got == value) | (np.isnan(got) & np.isnan(value)) | \
            (np.abs(got - value) <= np.spacing(np.abs(value)))
    else:
        close = got == value
    if not close.all():
        bad.append(f"{ref}: {got.ravel().tolist()}, unyt gives {value.ravel().tolist()} for {expr}")
    units = attribute(ref)
    dimensioned = isinstance(want, unyt.unyt_array) and not want.units.is_dimensionless
    if not dimensioned and units is not None:
        bad.append(f"{ref}: units '{units}', unyt gives none for {expr}")
    if dimensioned and (units is None or not same_unit(udunits_to_unyt(units), want.units)):
        bad.append(f"{ref}: units '{units}', unyt gives {want.units} for {expr}")
    return bad


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


def main(argv):
    jobs, job = [], []
    for word in argv[1:] + ["::"]:
        if word == "::":
            if job:
                jobs.append(job)
            job = []
        else:
            job.append(word)
    bad = []
    for job in jobs:
        if job[0] == "is":
            got = attribute(job[1])
            if job[2] == "none":
                if got is not None:
                    bad.append(f"{job[1]}: units '{got}', expected none")
                continue
            want = expected(job[2])
            if got is None:
                bad.append(f"{job[1]}: no units, unyt gives {want} for {job[2]}")
            elif not same_unit(udunits_to_unyt(got), want):
                bad.append(f"{job[1]}: units '{got}', unyt gives {want} for {job[2]}")
        elif job[0] == "values":
            bad += check_values(job[1], job[2])
        elif job[0] == "unyt":
            print(expected(job[1]))
    for b in bad:
        print(b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
