#!/usr/bin/python3
"""names_ref.py - the xarray / netCDF4-python reference side of tests/35-names.bats.

xarray decides what broadcasting by name gives (dimensions and values) and
netCDF4-python what a netCDF-4 reader sees in the files h5ufunc wrote; this
file never looks at h5ufunc's output to decide what is right.

Usage: names_ref.py JOB ARGS... [:: JOB ARGS...]...
  fixtures DIR
      era.nc from tests/names/era.cdl (ncgen -k nc4); made with
      netCDF4-python, other.nc (t(lat, time): a transposed operand from
      another file), wide.nc (x(lat) with lat = 4) and big.nc (a(x, y, z),
      b(z, x), c(y, z, x): 300 x 40 x 7, read block by block); h5.h5 made with h5py
      (z(y, x) with scales y and x attached by dims[i].attach_scale) and
      plain.h5 (the same data, no scales).
  same OUT VAR EXPR [FILE...]
      dataset VAR of OUT holds what xarray gives for EXPR over the variables
      of FILE... (default era.nc and other.nc; times left as numbers), with
      the same dimensions in the same order, the same dtype and the same
      bits (SPEC 3.4: elementwise results are NumPy's bit for bit).
  dims FILE VAR DIM...
      netCDF4-python reads FILE and finds VAR with exactly these dimensions,
      each of the length the variable has there.
  many DIR N
      many.nc (netCDF4-python: N variables in the root group and N in a
      group /g, all of time, lat, lon, /g's of a lat of its own) and
      links.h5 (h5py: N datasets z0... of scales y and x, y linked twice,
      at /y and /a/b, x once at /x) in DIR, and DIR/many.yaml, a recipe
      that reads every variable of both.
  many-dims JSON DIR N
      the operands of `check --json` (JSON, of DIR/many.yaml) have the
      dimension names netCDF4-python (many.nc) and h5py (links.h5) read.
"""
import subprocess

import numpy as np

import h5ref as ref
from h5ref import Failure


def fixtures(d):
    import h5py
    import netCDF4
    here = __file__.rsplit("/", 1)[0]
    subprocess.run(["ncgen", "-k", "nc4", "-o", f"{d}/era.nc", f"{here}/names/era.cdl"], check=True)
    with netCDF4.Dataset(f"{d}/other.nc", "w") as f:
        f.createDimension("lat", 3)
        f.createDimension("time", 4)
        t = f.createVariable("t", "f4", ("lat", "time"))
        t[:] = np.arange(12, dtype=np.float32).reshape(3, 4) * 0.25 - 1
        t.units = "K"
    with netCDF4.Dataset(f"{d}/wide.nc", "w") as f:
        f.createDimension("lat", 4)
        v = f.createVariable("x", "f8", ("lat",))
        v[:] = np.arange(4) * 0.5
    rng = np.random.default_rng(11)
    with netCDF4.Dataset(f"{d}/big.nc", "w") as f:
        f.createDimension("x", 300)
        f.createDimension("y", 40)
        f.createDimension("z", 7)
        f.createVariable("a", "f8", ("x", "y", "z"))[:] = rng.random((300, 40, 7))
        f.createVariable("b", "f8", ("z", "x"))[:] = rng.random((7, 300))
        f.createVariable("c", "i4", ("y", "z", "x"))[:] = rng.integers(0, 100, (40, 7, 300))
    z = np.arange(12, dtype=np.float64).reshape(3, 4) - 5.5
    with h5py.File(f"{d}/h5.h5", "w") as f:
        f["y"] = np.arange(3.0)
        f["x"] = np.arange(4.0)
        f["y"].make_scale("y")
        f["x"].make_scale("x")
        f["z"] = z
        f["z"].dims[0].attach_scale(f["y"])
        f["z"].dims[1].attach_scale(f["x"])
        f["w"] = np.arange(4.0) * 2
        f["w"].dims[0].attach_scale(f["x"])
    with h5py.File(f"{d}/plain.h5", "w") as f:
        f["z"] = z
        f["w"] = np.arange(4.0) * 2


def same(out, var, expr, files):
    import xarray as xr
    env = {}
    for name in files:
        ds = xr.open_dataset(name, decode_times=False, engine="netcdf4")
        env.update({k: ds[k] for k in ds.variables})
    env.update({k: getattr(np, k) for k in ("sqrt", "maximum", "hypot")})
    want = eval(expr, {}, env)
    got = xr.open_dataset(out, decode_times=False, engine="netcdf4")[var]
    if tuple(got.dims) != tuple(want.dims):
        raise Failure(f"{out}:{var}: dimensions {got.dims}, xarray gives {want.dims} for {expr}")
    ref.compare_arrays(f"{out}:{var} (against xarray's {expr})", want.values, got.values)


def dims(path, var, want):
    import netCDF4
    with netCDF4.Dataset(path) as f:
        v = f[var]
        if list(v.dimensions) != want:
            raise Failure(f"{path}:{var}: dimensions {v.dimensions}, want {want}")
        for n, length in zip(v.dimensions, v.shape):
            if len(f.dimensions[n]) != length:
                raise Failure(f"{path}:{var}: dimension {n} is {len(f.dimensions[n])}, "
                              f"the variable {length}")


def many(d, n):
    import h5py
    import netCDF4
    with netCDF4.Dataset(f"{d}/many.nc", "w") as f:
        for g, lat in ((f, 3), (f.createGroup("g"), 2)):
            if g is f:
                f.createDimension("time", 4)
                f.createDimension("lon", 5)
            g.createDimension("lat", lat)
            for i in range(n):
                v = g.createVariable(f"v{i}", "f4", ("time", "lat", "lon"))
                v[:] = np.full((4, lat, 5), i, "f4")
    with h5py.File(f"{d}/links.h5", "w") as f:
        f["y"] = np.arange(3.0)
        f["x"] = np.arange(4.0)
        f["y"].make_scale("y")
        f["x"].make_scale("x")
        f["a/b"] = f["y"]   # a second hard link to y, found first
        for i in range(n):
            z = f.create_dataset(f"z{i}", data=np.full((3, 4), i, "f8"))
            z.dims[0].attach_scale(f["y"])
            z.dims[1].attach_scale(f["x"])
    ops = [f"many.nc:/v{i}" for i in range(n)] + [f"many.nc:/g/v{i}" for i in range(n)] + \
        [f"links.h5:/z{i}" for i in range(n)]
    with open(f"{d}/many.yaml", "w") as y:
        y.write("inputs:\n" + "".join(f"  i{k}: {op}\n" for k, op in enumerate(ops)) + "steps:\n")
        y.write("".join(f"  - ufunc: negative\n    in: [i{k}]\n    out: i{k}\n" for k in range(len(ops))))


def many_dims(path, d, n):
    import json

    import h5py
    import netCDF4
    want = {}
    with netCDF4.Dataset(f"{d}/many.nc") as f:
        for g, pre in ((f, "/"), (f["g"], "/g/")):
            for i in range(n):
                want[f"many.nc:{pre}v{i}"] = list(g[f"v{i}"].dimensions)
    with h5py.File(f"{d}/links.h5") as f:
        for i in range(n):
            want[f"links.h5:/z{i}"] = [dim[0].name.rsplit("/", 1)[-1] for dim in f[f"z{i}"].dims]
    with open(path) as j:
        got = {o["operand"]: o.get("dims") for s in json.load(j)["steps"] for o in s["inputs"]
               if o["kind"] == "dataset"}
    for op, names in want.items():
        if got.get(op) != names:
            raise Failure(f"{op}: dims {got.get(op)}, netCDF4-python/h5py read {names}")


JOBS = {
    'fixtures': lambda a: fixtures(a[0]),
    'same': lambda a: same(a[0], a[1], a[2], a[3:] or ["era.nc", "other.nc"]),
    'dims': lambda a: dims(a[0], a[1], a[2:]),
    'many': lambda a: many(a[0], int(a[1])),
    'many-dims': lambda a: many_dims(a[0], a[1], int(a[2])),
}

if __name__ == "__main__":
    ref.main(JOBS, "names_ref.py")
