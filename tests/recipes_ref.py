#!/usr/bin/python3
"""recipes_ref.py - what each example recipe in recipes/ must write, computed with NumPy.

What it is: the reference for tests/31-recipes.bats.  For every recipe it
states, in NumPy, what the recipe means (the same call the recipe's own
comment gives), computes it from a pristine copy of the input files, and
compares it with what h5ufunc wrote.  What it is not: a recipe interpreter
(it never reads the YAML: a mistake in the parser must not cancel out) or a
general comparison tool (tests/np.py is that).

Usage (run with /usr/bin/python3; the working directory does not matter):
recipes_ref.py JOB [:: JOB]..., each JOB one of
  recipes_ref.py check RECIPE ORIG RUN
      RECIPE is a recipe's base name (wind-speed).  ORIG holds the files
      tools/make-demo-data wrote, RUN a copy of them after `h5ufunc run
      --set DATA=RUN`.  Checks every dataset the recipe writes (dtype, shape,
      values: bit for bit, or within 4 ULP where a transcendental function is
      involved, NaNs equal), that every other dataset and every attribute of
      the inputs is unchanged, that RUN holds no file but the expected ones
      (no temporary file left behind), and that each file written starts its
      history attribute with a "DATE: ... h5ufunc ... run ..." line.
  recipes_ref.py same RUN1 RUN2
      Every dataset of every file in RUN1 equals RUN2's bit for bit (a run on
      one rank against a run on two).
  recipes_ref.py list
      The recipes it knows, one base name per line.
Says what differs on stderr and exits 1; exits 0 silently when all is well.
"""

import os
import re

import h5py
import numpy as np

import h5ref as ref
from h5ref import Failure, Usage

F32, F64 = np.float32, np.float64


# Each recipe: the files RUN must hold afterwards, and a function from the
# original datasets to {"file.h5:/path": (expected array, max ULP)}.
def wind_speed(read):
    u, v = read("wind.h5:/u"), read("wind.h5:/v")
    return {"speed.h5:/speed": (np.hypot(u, v), 4)}


def rescale_in_place(read):
    t = read("air.h5:/t")
    # NumPy 2: t - 32 and t / 1.8 keep float32 (weak literals).
    t = np.subtract(t, F32(32))
    t = np.divide(t, F32(1.8))
    return {"air.h5:/t": (t, 0)}


def time_of_day(read):
    elapsed = read("time.h5:/elapsed")
    day, second = np.divmod(elapsed, np.int32(86400))
    return {"time.h5:/split/day": (day, 0), "time.h5:/split/second": (second, 0)}


def potential_temperature(read):
    t, p = read("atmos.h5:/t"), read("atmos.h5:/p")
    ratio = np.divide(F64(1000.0), p, dtype=F64)
    factor = np.power(ratio, F64(0.2857142857142857), dtype=F64)
    theta = np.multiply(t, factor, dtype=F64)
    return {"theta.h5:/theta": (theta, 4)}


def column_totals(read):
    t = read("air.h5:/t")
    # NumPy 2: 65 - t and maximum(below, 0) keep float32 (weak literals).
    deficit = np.maximum(np.subtract(F32(65), t), F32(0))
    # A float sum may group its terms differently from NumPy's pairwise sum
    # (h5ufunc(1), "Exactness"): 64 ULP of the total for these nine positive
    # terms, far inside float32's 1e-5.
    return {"degree-days.h5:/heating": (np.add.reduce(deficit, axis=0), 64),
            "degree-days.h5:/coldest": (np.minimum.reduce(t, axis=0), 0)}


def cumulative(read):
    u, v = read("wind.h5:/u"), read("wind.h5:/v")
    # accumulate is NumPy's sequential sum, bit for bit.
    return {"drift.h5:/x": (np.add.accumulate(np.multiply(u, F32(21.6)), axis=0), 0),
            "drift.h5:/y": (np.add.accumulate(np.multiply(v, F32(21.6)), axis=0), 0)}


def anomalies(read):
    t2m, clim = read("era.nc:/t2m"), read("era.nc:/clim")
    anomaly = np.subtract(t2m, clim.T[None])   # broadcast by name: clim(lon, lat)
    # A float sum over six terms, grouped as h5ufunc groups it (h5ufunc(1),
    # "Exactness"): within 64 ULP of NumPy's.
    return {"anomalies.nc:/anomaly": (anomaly, 0),
            "anomalies.nc:/mean": (np.divide(np.add.reduce(anomaly, axis=0), F32(6)), 64)}


def frost_days(read):
    t = read("air.h5:/t")
    frost = np.less(t, F32(32))
    fill = np.full(t.shape, F32(9.9692099683868690e+36))   # netCDF's float fill
    return {"frost.h5:/days": (np.add.reduce(frost, axis=0), 0),
            "frost.h5:/warmest": (np.maximum.reduce(t, axis=0, where=frost, initial=-np.inf), 0),
            "frost.h5:/depth": (np.subtract(F32(32), t, where=frost, out=fill), 0)}


def observed_extremes(read):
    obs = np.ma.masked_equal(read("era.nc:/obs"), F32(-9999))
    return {"extremes.nc:/tmax": (obs.max(axis=0).filled(F32(-9999)), 0),
            "extremes.nc:/tmin": (obs.min(axis=0).filled(F32(-9999)), 0)}


def eof_projection(read):
    t2m, clim, eofs = read("era.nc:/t2m"), read("era.nc:/clim"), read("era.nc:/eofs")
    anomaly = np.subtract(t2m, clim.T[None])   # broadcast by name: clim(lon, lat)
    # NumPy 2: np.matmul(anomaly, eofs, axes=[(0, 2), (2, 0), (1, 2)]).sum(axis=0);
    # float sums within SPEC 3.1's bound 4 * k * eps * (|A| @ |B|), k = lat * lon
    # (the products' and the reduction's terms), of the exact projection
    exact = np.einsum("tyx,myx->tm", anomaly.astype(np.longdouble), eofs.astype(np.longdouble))
    mag = np.einsum("tyx,myx->tm", np.abs(anomaly).astype(np.longdouble),
                    np.abs(eofs).astype(np.longdouble))
    k = anomaly.shape[1] * anomaly.shape[2]
    return {"pcs.nc:/pc": (exact.astype(np.float32), 4 * k * np.finfo(np.float32).eps * mag)}


def monthly_means(read):
    t = np.ma.masked_equal(read("daily.nc:/t2m"), F32(-9999))
    idx = read("daily.nc:/month_start")
    sums = np.add.reduceat(t.filled(F32(0)), idx, axis=0, dtype=np.float64)
    days = np.add.reduceat(~np.ma.getmaskarray(t), idx, axis=0)
    with np.errstate(invalid="ignore"):
        means = np.where(days == 0, 9.969209968386869e36, sums / days)
    # and each month's mean is numpy.ma's
    assert np.allclose(np.ma.filled(np.ma.stack([t[s:e].mean(axis=0) for s, e in zip(idx, [31, 60, 91])]),
                                    9.969209968386869e36), means, rtol=1e-6)
    return {"monthly.nc:/t2m": (means, 0)}


RECIPES = {
    "wind-speed": wind_speed,
    "rescale-in-place": rescale_in_place,
    "time-of-day": time_of_day,
    "potential-temperature": potential_temperature,
    "column-totals": column_totals,
    "cumulative": cumulative,
    "anomalies": anomalies,
    "frost-days": frost_days,
    "observed-extremes": observed_extremes,
    "eof-projection": eof_projection,
    "monthly-means": monthly_means,
}

HISTORY = re.compile(r"[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-6][0-9] "
                     r"[0-9]{4}: \S*h5ufunc .*\brun\b")


def compare(label, got, want, max_ulp, problems):
    try:
        if isinstance(max_ulp, np.ndarray):   # a bound on the error, elementwise
            ref.compare_arrays(label, want, got, atol=max_ulp)
        else:
            ref.compare_arrays(label, want, got, ulp=max_ulp)
    except Failure as exc:
        problems.append(str(exc))


def history(path):
    with h5py.File(path, "r") as f:
        return ref.text(f.attrs.get("history"))


def check(name, orig, run):
    if name not in RECIPES:
        raise Usage("no reference for recipe '%s'" % name)
    def read(dset):
        return ref.read_ref(os.path.join(orig, dset))
    expected = RECIPES[name](read)
    written = {ref.split(":", 1)[0] for ref in expected}
    problems = []

    before = sorted(os.listdir(orig))
    after = sorted(os.listdir(run))
    want_files = sorted(set(before) | written)
    if after != want_files:
        problems.append("%s holds %s, expected %s" % (run, after, want_files))

    for dset, (want, max_ulp) in expected.items():
        try:
            got = ref.read_ref(os.path.join(run, dset))
        except Failure as e:
            problems.append("cannot read: %s" % e)
            continue
        compare(dset, got, want, max_ulp, problems)

    # What the recipe does not write must be as it was, attributes included.
    for path in before:
        if not os.path.exists(os.path.join(run, path)):
            continue
        now = ref.datasets(os.path.join(run, path), attrs=True)
        for dset, (value, attrs) in ref.datasets(os.path.join(orig, path), attrs=True).items():
            name = "%s:%s" % (path, dset)
            if dset not in now:
                problems.append("%s: gone" % name)
                continue
            if attrs != now[dset][1]:
                problems.append("%s: attributes %s, were %s" % (name, now[dset][1], attrs))
            if name not in expected:
                compare(name + " (not an output)", now[dset][0], value, 0, problems)

    for path in sorted(written):
        h = history(os.path.join(run, path))
        first = h.split("\n", 1)[0] if isinstance(h, str) else None
        if first is None or not HISTORY.match(first):
            problems.append("%s: history attribute starts %r, expected 'DATE: h5ufunc ... run ...'"
                            % (path, first))

    if problems:
        raise Failure("\n".join(problems))


def same(run1, run2):
    problems = []
    names1, names2 = sorted(os.listdir(run1)), sorted(os.listdir(run2))
    if names1 != names2:
        problems.append("files differ: %s has %s, %s has %s" % (run1, names1, run2, names2))
    for path in sorted(set(names1) & set(names2)):
        problems += ref.same_datasets(os.path.join(run1, path), os.path.join(run2, path))
    if problems:
        raise Failure("\n".join(problems))


JOBS = {
    'check': lambda a: check(*a),
    'same': lambda a: same(*a),
    'list': lambda a: print("\n".join(sorted(RECIPES))),
}

if __name__ == "__main__":
    ref.main(JOBS, "recipes_ref.py")
