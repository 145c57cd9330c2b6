#!/usr/bin/python3
"""peer.py - the NumPy + h5py script that h5ufunc's benchmark races against.

`peer.py WORKLOAD INPUT OUTPUT` does what a NumPy user would write by hand:
read whole datasets with h5py, compute with NumPy, write with h5py.
  W1 INPUT OUT    OUT:/c = sqrt(a*a + b*b) of INPUT:/a, INPUT:/b, in a new file
  W2 INPUT OUT    OUT:/s = a.sum(axis=1) in a new file; prints a.sum()
  W3 INPUT OUT    OUT:/c = cumsum(a, axis=1) in a new file
  W4 FILE -       FILE:/a = a*2 + 1, in place
  W5 INPUT OUT    OUT:/c = sin(a) * exp(b) + log1p(abs(a)), in INPUT's dtype
  W5d INPUT OUT   the same (the benchmark's name for it on float64 inputs)
  W6 INPUT OUT    OUT:/m = np.add.reduceat(t, month_start, axis=0): monthly sums
  W7 FILE INPUT   FILE:/grid += histogram: np.add.at(grid, (iy, ix), 1), in place
  W8 INPUT OUT    W1's OUT:/c in gzip chunks (64, COLS) at level 1
  W8s INPUT FILE  W1's result written into FILE:/c, an existing dataset
                  with shuffle and deflate
With `--dask` (W6, W7), the same with dask.array over the h5py datasets, as
a dask user would write it: monthly sums of (month, 181, 360) chunks, and
da.bincount of the cells (dask has no reduceat and no at).
It is the peer of the benchmark only: no streaming, no MPI, no checks beyond
what h5py and NumPy do themselves.
"""
import sys

import h5py
import numpy as np


def methods(work, source, target, dask):
    if work == "W7":
        with h5py.File(target, "r") as f:
            iy, ix = (f["iy"], f["ix"]) if dask else (f["iy"][...], f["ix"][...])
            if dask:
                import dask.array as da
                cells = da.from_array(iy, chunks=1 << 22).astype(np.int64) * 3600 \
                    + da.from_array(ix, chunks=1 << 22)
                counts = da.bincount(cells, minlength=1800 * 3600).compute()
        with h5py.File(source, "r+") as f:
            grid = f["grid"][...]
            if dask:
                grid += counts.reshape(1800, 3600)
            else:
                np.add.at(grid, (iy, ix), 1)
            f["grid"][...] = grid
        return 0
    with h5py.File(source, "r") as f:
        starts = f["month_start"][...]
        if dask:
            import dask.array as da
            t = da.from_array(f["t"], chunks=(31, 181, 360))
            ends = list(starts[1:]) + [t.shape[0]]
            sums = da.stack([t[s:e].sum(axis=0) for s, e in zip(starts, ends)]).compute()
        else:
            sums = np.add.reduceat(f["t"][...], starts, axis=0)
    with h5py.File(target, "w") as f:
        f["m"] = sums
    return 0


def compressed(work, source, target):
    """W8: W1's result to gzip-1 chunks in a new file; W8s: into TARGET's
    existing shuffle+deflate /c."""
    with h5py.File(source, "r") as f:
        a, b = f["a"][...], f["b"][...]
    c = np.sqrt(a * a + b * b)
    if work == "W8s":
        with h5py.File(target, "r+") as f:
            f["c"][...] = c
        return 0
    with h5py.File(target, "w") as f:
        f.create_dataset("c", data=c, chunks=(min(64, c.shape[0]), c.shape[1]),
                         compression="gzip", compression_opts=1)
    return 0


def main(argv):
    dask = "--dask" in argv
    argv = [a for a in argv if a != "--dask"]
    work, source, target = argv
    if work in ("W6", "W7"):
        return methods(work, source, target, dask)
    if work == "W4":
        with h5py.File(source, "r+") as f:
            a = f["a"][...]
            f["a"][...] = a * 2 + 1
        return 0
    if work in ("W8", "W8s"):
        return compressed(work, source, target)
    with h5py.File(source, "r") as f:
        a = f["a"][...]
        b = f["b"][...] if work in ("W1", "W5", "W5d") else None
    if work == "W1":
        result = {"c": np.sqrt(a * a + b * b)}
    elif work == "W2":
        result = {"s": a.sum(axis=1)}
        print(repr(float(a.sum())))
    elif work == "W3":
        result = {"c": np.cumsum(a, axis=1)}
    elif work in ("W5", "W5d"):
        result = {"c": np.sin(a) * np.exp(b) + np.log1p(np.abs(a))}
    else:
        print("peer.py: unknown workload %s" % work, file=sys.stderr)
        return 2
    with h5py.File(target, "w") as f:
        for name, value in result.items():
            f[name] = value
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
