#!/usr/bin/python3
"""data.py - the input files of h5ufunc's benchmark, and the check of its outputs.

`data.py make DIR ROWS COLS` writes, once, the float64 datasets the workloads
read, filled with standard normal values from a fixed seed:
  DIR/in-contiguous.h5  /a and /b, contiguous
  DIR/in-chunked.h5     /a and /b, the same values, chunked as h5py's
                        `chunks=True` chooses for that shape
  DIR/a-contiguous.h5   /a alone (the pristine copy that W4 restores from)
  DIR/a-chunked.h5      /a alone, chunked
  DIR/in-float32.h5     /a and /b as float32, contiguous (W5)
  DIR/in-smooth.h5      /a and /b, a smooth field (sines of the indices, as a
                        temperature and a wind might be), contiguous (W8)
  DIR/w8s-empty.h5      /c, never written, in chunks (64, COLS) with shuffle
                        and deflate at level 1, netCDF's usual pair (W8s)
  DIR/tiny.h5           /x, three float64 values (the start-up probe)
  DIR/in-wide-contiguous.h5, DIR/in-wide-chunked.h5, DIR/a-wide-contiguous.h5,
  DIR/a-wide-chunked.h5 the same four of the wide shape (wide_shape: as many
                        elements in rows of 32768), chunked in (256, 64), the
                        chunks whose columns a wide row crosses 512 of
It writes in blocks of rows, so its memory stays near 64 MiB whatever the size,
and it does nothing when DIR/ready already records the same shape.  The
chunked files are then copied over themselves (as `cp` copies): the file
h5py writes, chunk by chunk in blocks of rows, reads slower from the page
cache than the copy a user would stage (W1 on the small chunked input took
1.15 times the CPU on it, in turns with its copy, on the 2-core machine),
and the chunked columns would time that rather than h5ufunc.

`data.py methods DIR DAYS POINTS` writes, once, the inputs of the
workloads of reduceat and at (W6, W7):
  DIR/daily.h5   /t float32 (DAYS, 181, 360): a daily field on a 1-degree
                 grid; /month_start int64: the first day of each month of a
                 365-day calendar
  DIR/hist.h5    /iy, /ix int32 (POINTS,): grid cells of random
                 observations; /grid float64 (1800, 3600) zeros
  DIR/grid.h5    /grid alone (the pristine copy that W7 restores from)
and does nothing when DIR/methods-ready records the same sizes.

`data.py deflate DIR SHUFFLE` prints the CPU seconds zlib (level 1, in
chunks of (64, COLS)) alone takes to compress W8's result, byte-shuffled
first when SHUFFLE is 1: the compressor's own time, W8's floor.

`data.py compare REF OUT...` compares datasets named FILE:/PATH, block by block,
and prints one line per OUT: `identical` or `max relative difference X`; the
exit status is 0 when every OUT has REF's shape and dtype, 1 otherwise.

This is the benchmark's fixture and sanity check, not a reference for the
test suite (tests/np.py is that), and it is never timed.
"""
import os
import shutil
import sys
import time
import zlib

import h5py
import numpy as np

BLOCK_BYTES = 32 << 20
WIDE_COLS = 32768
WIDE_CHUNKS = (256, 64)


def wide_shape(rows, cols):
    """The wide inputs' shape: ROWS x COLS elements in rows of WIDE_COLS."""
    return (rows * cols // WIDE_COLS, WIDE_COLS)


def made(stamp, want):
    """Does the file STAMP record WANT (the inputs are there already)?"""
    try:
        with open(stamp) as f:
            return f.read() == want
    except OSError:
        return False


def make(directory, rows, cols):
    stamp = os.path.join(directory, "ready")
    want = "%d %d float32 smooth wide, chunked copied\n" % (rows, cols)
    if made(stamp, want) and os.path.exists(os.path.join(directory, "w8s-empty.h5")):
        return 0
    os.makedirs(directory, exist_ok=True)
    if os.path.exists(stamp):
        os.unlink(stamp)
    shape = (rows, cols)
    names = {
        "in-contiguous.h5": ("a", "b"),
        "in-chunked.h5": ("a", "b"),
        "a-contiguous.h5": ("a",),
        "a-chunked.h5": ("a",),
        "in-float32.h5": ("a", "b"),
        "in-smooth.h5": ("a", "b"),
    }
    wide = {"in-wide-contiguous.h5": ("a", "b"), "in-wide-chunked.h5": ("a", "b"),
            "a-wide-contiguous.h5": ("a",), "a-wide-chunked.h5": ("a",)}
    files = {name: h5py.File(os.path.join(directory, name), "w") for name in names}
    try:
        sets = []
        for name, datasets in names.items():
            chunks = True if "chunked" in name else None
            for d in datasets:
                dtype = "f4" if "float32" in name else "f8"
                sets.append((d, files[name].create_dataset(d, shape, dtype, chunks=chunks)))
        rng = np.random.default_rng(20261122)
        step = max(1, BLOCK_BYTES // (cols * 8))
        for first in range(0, rows, step):
            count = min(step, rows - first)
            block = {d: rng.standard_normal((count, cols)) for d in ("a", "b")}
            smooth = smooth_rows(first, count, rows, cols)
            for d, ds in sets:
                ds[first:first + count] = smooth[d] if ds.file.filename.endswith("smooth.h5") \
                    else block[d]
        chunk = files["in-chunked.h5"]["a"].chunks
    finally:
        for f in files.values():
            f.close()
    make_wide(directory, wide_shape(rows, cols), wide)
    for name in list(names) + list(wide):
        if "chunked" in name:
            path = os.path.join(directory, name)
            shutil.copyfile(path, path + ".copy")
            os.replace(path + ".copy", path)
    with h5py.File(os.path.join(directory, "tiny.h5"), "w") as f:
        f["x"] = np.array([0.5, 1.5, 2.5])
    with h5py.File(os.path.join(directory, "w8s-empty.h5"), "w") as f:
        f.create_dataset("c", shape, "f8", chunks=(min(64, rows), cols), compression="gzip",
                         compression_opts=1, shuffle=True)
    with open(stamp, "w") as f:
        f.write(want)
    print("data.py: wrote %dx%d float64 inputs in %s (chunks %s)"
          % (rows, cols, directory, chunk), file=sys.stderr)
    return 0


def make_wide(directory, shape, names):
    """The wide files NAMES ({file: datasets}) of SHAPE, standard normal
    values from their own seed, the chunked ones in WIDE_CHUNKS."""
    files = {name: h5py.File(os.path.join(directory, name), "w") for name in names}
    try:
        sets = [(d, files[name].create_dataset(
            d, shape, "f8", chunks=WIDE_CHUNKS if "chunked" in name else None))
            for name, datasets in names.items() for d in datasets]
        rng = np.random.default_rng(20261127)
        for first in range(0, shape[0], WIDE_CHUNKS[0]):   # whole chunk rows
            count = min(WIDE_CHUNKS[0], shape[0] - first)
            block = {d: rng.standard_normal((count, shape[1])) for d in ("a", "b")}
            for d, ds in sets:
                ds[first:first + count] = block[d]
    finally:
        for f in files.values():
            f.close()


def smooth_rows(first, count, rows, cols):
    """Rows [FIRST, FIRST+COUNT) of W8's smooth /a and /b."""
    y, x = np.meshgrid(np.arange(first, first + count) * (6.0 / rows),
                       np.arange(cols) * (9.0 / cols), indexing="ij")
    return {"a": np.sin(x) * np.cos(y) * 100 + 273.15, "b": np.cos(0.5 * x + y) * 50}


def deflate(directory, shuffle):
    """CPU seconds of zlib-1 over W8's result in chunks of (64, cols)."""
    with h5py.File(os.path.join(directory, "in-smooth.h5"), "r") as f:
        rows, cols = f["a"].shape
        seconds = 0.0
        for first in range(0, rows, 64):
            a, b = f["a"][first:first + 64], f["b"][first:first + 64]
            c = np.sqrt(a * a + b * b)
            t = time.process_time()
            raw = c.view(np.uint8).reshape(-1, 8).T.copy() if shuffle else c
            zlib.compress(raw.tobytes(), 1)
            seconds += time.process_time() - t
    print("%.3f" % seconds)
    return 0


MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def month_starts(days):
    """The first day of each month of a 365-day calendar, before DAYS."""
    starts, day = [], 0
    while day < days:
        for n in MONTH_DAYS:
            if day < days:
                starts.append(day)
            day += n
    return np.asarray(starts, dtype=np.int64)


def methods(directory, days, points):
    stamp = os.path.join(directory, "methods-ready")
    want = "%d %d\n" % (days, points)
    if made(stamp, want):
        return 0
    os.makedirs(directory, exist_ok=True)
    rng = np.random.default_rng(20261123)
    with h5py.File(os.path.join(directory, "daily.h5"), "w") as f:
        t = f.create_dataset("t", (days, 181, 360), "f4")
        step = max(1, BLOCK_BYTES // (181 * 360 * 4))
        for first in range(0, days, step):
            count = min(step, days - first)
            t[first:first + count] = (280 + 10 * rng.standard_normal((count, 181, 360))).astype("f4")
        f["month_start"] = month_starts(days)
    for name in ("hist.h5", "grid.h5"):
        with h5py.File(os.path.join(directory, name), "w") as f:
            f.create_dataset("grid", (1800, 3600), "f8", fillvalue=0.0)[...] = 0.0
            if name == "hist.h5":
                iy = f.create_dataset("iy", (points,), "i4")
                ix = f.create_dataset("ix", (points,), "i4")
                step = BLOCK_BYTES // 8
                for first in range(0, points, step):
                    count = min(step, points - first)
                    iy[first:first + count] = rng.integers(0, 1800, count)
                    ix[first:first + count] = rng.integers(0, 3600, count)
    with open(stamp, "w") as f:
        f.write(want)
    print("data.py: wrote the reduceat and at inputs (%d days, %d points) in %s"
          % (days, points, directory), file=sys.stderr)
    return 0


def split(ref):
    file, path = ref.split(":/", 1)
    return file, "/" + path


def compare(ref, outs):
    status = 0
    rfile, rpath = split(ref)
    with h5py.File(rfile, "r") as rf:
        r = rf[rpath]
        for out in outs:
            ofile, opath = split(out)
            with h5py.File(ofile, "r") as of:
                o = of[opath]
                if o.shape != r.shape or o.dtype != r.dtype:
                    print("shape %s dtype %s, expected %s %s" % (o.shape, o.dtype, r.shape, r.dtype))
                    status = 1
                    continue
                if r.ndim == 0:
                    pairs = [(r[()], o[()])]
                else:
                    step = max(1, BLOCK_BYTES // max(1, r[0:1].nbytes))
                    pairs = ((r[i:i + step], o[i:i + step]) for i in range(0, r.shape[0], step))
                worst, same = 0.0, True
                for x, y in pairs:
                    x, y = np.asarray(x), np.asarray(y)
                    if same and not np.array_equal(x, y, equal_nan=True):
                        same = False
                    if not same:
                        scale = np.maximum(np.abs(x), np.finfo(np.float64).tiny)
                        worst = max(worst, float(np.nanmax(np.abs(x - y) / scale)))
                print("identical" if same else "max relative difference %.3g" % worst)
    return status


def main(argv):
    if len(argv) == 4 and argv[0] == "make":
        return make(argv[1], int(argv[2]), int(argv[3]))
    if len(argv) == 4 and argv[0] == "methods":
        return methods(argv[1], int(argv[2]), int(argv[3]))
    if len(argv) >= 3 and argv[0] == "compare":
        return compare(argv[1], argv[2:])
    if len(argv) == 3 and argv[0] == "deflate":
        return deflate(argv[1], argv[2] == "1")
    print("usage: data.py make DIR ROWS COLS | data.py methods DIR DAYS POINTS | "
          "data.py compare REF OUT... | data.py deflate DIR SHUFFLE", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
