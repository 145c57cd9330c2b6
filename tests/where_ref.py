#!/usr/bin/python3
"""where_ref.py - NumPy's where= as the reference for tests/70-missing.bats.

Every expected value is NumPy's own: an expression written with NumPy's
where= (and out= for what an output holds where it is false), evaluated on
the fixture data that h5ufunc read.  NumPy 2's weak literals as tests/np.py
switches them on.

Usage: where_ref.py JOB [:: JOB]..., each JOB one of
  where_ref.py make DIR
      write the fixtures: DIR/f.h5 (x float64 7x5 with negatives, i int32,
      h float32, c complex128, w bool, wi int16 of 0/1/2 (nonzero is true),
      wr bool (5,), wc bool (7,1)) and DIR/big.h5 (y float64 203x9, yw
      bool 203x9, yr bool (9,)); a copy of the originals in DIR/orig.h5;
      DIR/m.h5 for masked mode (6x5: t float32 with _FillValue -9999, r int16
      with valid_range [0, 100], q float64 with missing_value [2, 3], v
      float64 with valid_min/valid_max, n float64 with NaNs, p float64 and
      k int32 with zeros and negatives, mw bool, de/dd float64 and df float32
      at the edges of numpy.ma's domains), no attributes on n, p, k, de, dd, df
  where_ref.py orig DIR FILE...
      copy DIR/FILE to DIR/orig-FILE, what M() reads
  where_ref.py check OUT EXPR [--fill V] [--ulp N] [--rtol R [--scale SCALE]]
      the dataset OUT equals EXPR: dtype, shape, values (NaNs equal; exact,
      or each float within N units in the last place, or within R times
      SCALE, a NumPy expression giving each element's scale, such as the
      sum of the magnitudes of a sum's terms; default the element's own
      magnitude); --fill: its _FillValue attribute and HDF5 fill value are
      V, of its dtype (a bool has no _FillValue: netCDF readers would read
      every False as missing)
  where_ref.py check OUT EXPR --masked V
      EXPR is a numpy.ma array: OUT holds its data where it is not masked,
      and V (a number, or "default": netCDF's fill) where it is
  where_ref.py printed EXPR [MASK]
      stdin is EXPR printed as h5ufunc prints (SPEC 1), "--" where MASK
      (a NumPy expression of bools) is false
In EXPR and MASK the fixtures are names (x, i, h, c, w, wi, wr, wc, y, yw,
yr: the data before any run), with np, fill(dtype), netCDF's default
fill value of a dtype, as h5ufunc(1) lists it, and M(REF, nan=False): the
dataset FILE:/PATH (as copied to DIR/orig-FILE before any run) as a
numpy.ma array, masked where CF's attributes say (_FillValue,
missing_value, valid_min, valid_max, valid_range; NaN too with nan=True);
skip_reduce(UFUNC, A, axis) and skip_accumulate(UFUNC, A, axis): UFUNC
applied to the valid elements of each line of the numpy.ma array A along
axis, masked where a line has none (reduce) or where A is (accumulate).
A printed EXPR that is a masked array prints "--" where it is masked.  Exit 1 with the reason on
a mismatch (tests/h5ref.py's comparison: floats bit for bit unless a
tolerance is given, NaNs equal).
"""
import os
import shutil
import sys

import h5py
import numpy as np

import h5ref as ref
from h5ref import Failure

ref.numpy2()

NC_FILL = {
    'int8': -127, 'uint8': 255, 'int16': -32767, 'uint16': 65535,
    'int32': -2147483647, 'uint32': 4294967295,
    'int64': -9223372036854775806, 'uint64': 18446744073709551614,
    'float32': 9.9692099683868690e+36, 'float64': 9.9692099683868690e+36,
    'complex64': 9.9692099683868690e+36, 'complex128': 9.9692099683868690e+36,
    'float16': np.nan, 'bool': False,
}


def fill(dtype):
    dt = np.dtype(dtype)
    return dt.type(NC_FILL[dt.name])


def make(d):
    rng = np.random.default_rng(12)
    data = {
        'x': np.round(rng.uniform(-4, 6, (7, 5)), 3),
        'i': rng.integers(-50, 50, (7, 5)).astype(np.int32),
        'h': rng.uniform(-2, 3, (7, 5)).astype(np.float32),
        'c': (rng.uniform(-2, 2, (7, 5)) + 1j * rng.uniform(-2, 2, (7, 5))),
        'w': rng.uniform(size=(7, 5)) < 0.6,
        'wi': rng.integers(0, 3, (7, 5)).astype(np.int16),
        'wr': np.array([True, False, True, True, False]),
        'wc': (rng.uniform(size=(7, 1)) < 0.5),
    }
    data['wc'][0, 0], data['wc'][1, 0] = True, False
    big = {
        'y': rng.uniform(-1, 1, (203, 9)),
        'yw': rng.uniform(size=(203, 9)) < 0.7,
        'yr': np.array([True, False] * 4 + [True]),
    }
    for name, group in (('f.h5', data), ('big.h5', big)):
        with h5py.File(os.path.join(d, name), 'w') as f:
            for k, v in group.items():
                f[k] = v
    with h5py.File(os.path.join(d, 'orig.h5'), 'w') as f:
        for k, v in list(data.items()) + list(big.items()):
            f[k] = v
    shape = (6, 5)
    t = np.round(rng.uniform(-3, 5, shape), 2).astype(np.float32)
    t[rng.uniform(size=shape) < 0.25] = -9999
    n = rng.uniform(-1, 1, shape)
    n[rng.uniform(size=shape) < 0.3] = np.nan
    k = rng.integers(-3, 4, shape).astype(np.int32)
    k[0, :3] = 0
    g = np.round(rng.uniform(0, 9, (600, 4)), 1)   # all masked: column 2, rows 5 and 450
    g[rng.uniform(size=g.shape) < 0.3] = -1
    g[:, 2] = g[5] = g[450] = -1
    masked_sets = {   # name: (data, attributes)
        't': (t, {'_FillValue': np.float32(-9999)}),
        'r': (rng.integers(-20, 121, shape).astype(np.int16),
              {'valid_range': np.array([0, 100], np.int16)}),
        'q': (rng.integers(0, 6, shape).astype(np.float64), {'missing_value': np.array([2.0, 3.0])}),
        'v': (rng.uniform(-1.5, 1.5, shape), {'valid_min': -1.2, 'valid_max': 1.4}),
        'n': (n, {}),
        'p': (np.round(rng.uniform(-2, 4, shape)), {}),
        'k': (k, {}),
        'mw': (rng.uniform(size=shape) < 0.6, {}),
        'g': (g, {'_FillValue': -1.0}),
        # the edges of numpy.ma's domains, where results are finite
        'de': (np.array([1 - 4e-16, 1 - 1e-15, 1 - 1e-13, -1 + 4e-16, 0.5, 1e300, -1e300, 3.0]), {}),
        'dd': (np.array([1e-300, 1e-8, 1e-9, 1e-300, 2.0, 1e-8, 1e-9, 0.0]), {}),
        'df': (np.array([1 - 1e-7, 1.0, -1 + 6e-8, 0.3], np.float32), {}),
    }
    with h5py.File(os.path.join(d, 'm.h5'), 'w') as f:
        for name, (v, attrs) in masked_sets.items():
            f[name] = v
            f[name].attrs.update(attrs)


def copy_orig(d, names):
    """DIR/orig-NAME: copies of fixture files as they were before any run."""
    for name in names:
        shutil.copy(os.path.join(d, name), os.path.join(d, 'orig-' + name))


def masked(ref, nan=False):
    """FILE:/PATH as numpy.ma masks it by CF's attributes."""
    d = os.environ.get('WHERE_FIXTURES', '.')
    fname, path = ref.split(':/', 1)
    with h5py.File(os.path.join(d, 'orig-' + fname), 'r') as f:
        ds = f['/' + path]
        x, attrs = ds[()], dict(ds.attrs)
    miss = np.zeros(np.shape(x), bool)
    for key in ('_FillValue', 'missing_value'):
        for v in np.atleast_1d(attrs.get(key, [])):
            v = x.dtype.type(v)
            miss |= np.isnan(x) if v != v else x == v
    lo = attrs.get('valid_range', [attrs.get('valid_min'), None])[0]
    hi = attrs.get('valid_range', [None, attrs.get('valid_max')])[1]
    if lo is not None:
        miss |= x < x.dtype.type(lo)
    if hi is not None:
        miss |= x > x.dtype.type(hi)
    if nan and x.dtype.kind in 'fc':
        miss |= np.isnan(x)
    return np.ma.array(x, mask=miss)


def skip_reduce(uf, a, axis):
    """UFUNC.reduce of the compressed valid elements of each line."""
    lines = np.moveaxis(a, axis, -1)
    out = np.ma.masked_all(lines.shape[:-1], uf.reduce(np.ones(1, lines.dtype)).dtype)
    for idx in np.ndindex(lines.shape[:-1]):
        c = lines[idx].compressed()
        if c.size:
            out[idx] = uf.reduce(np.asarray(c))
    return out


def skip_accumulate(uf, a, axis):
    """UFUNC.accumulate of the compressed valid elements of each line, at
    their places; masked where A is."""
    lines = np.moveaxis(a, axis, -1)
    data = uf.accumulate(np.ma.filled(lines, 1), axis=-1)
    valid = ~np.ma.getmaskarray(lines)
    for idx in np.ndindex(lines.shape[:-1]):
        data[idx][valid[idx]] = uf.accumulate(np.asarray(lines[idx].compressed()))
    return np.ma.array(np.moveaxis(data, -1, axis), mask=np.moveaxis(~valid, -1, axis))


def names():
    d = os.environ.get('WHERE_FIXTURES', '.')
    ns = {'np': np, 'fill': fill, 'M': masked, 'skip_reduce': skip_reduce,
          'skip_accumulate': skip_accumulate}
    with h5py.File(os.path.join(d, 'orig.h5'), 'r') as f:
        for k in f:
            ns[k] = f[k][()]
    return ns


def read(ref):
    fname, path = ref.split(':/', 1)
    with h5py.File(fname, 'r') as f:
        ds = f['/' + path]
        return ds[()], dict(ds.attrs), ds.fillvalue


def check(argv):
    out, expr = argv[0], argv[1]
    opts = dict(zip(argv[2::2], argv[3::2]))
    ns = names()
    want = eval(expr, ns)
    if '--masked' in opts:
        want = np.ma.asarray(want)
        v = opts['--masked']
        v = fill(want.dtype) if v == 'default' else ref.parse_literal(v)
        want = want.filled(want.dtype.type(v))
    want = np.asarray(want)
    got, attrs, fillvalue = read(out)
    atol = None
    if '--rtol' in opts:   # relative to --scale EXPR, else to each value
        scale = np.ma.filled(eval(opts['--scale'], ns), 0) if '--scale' in opts else abs(want)
        atol = float(opts['--rtol']) * np.abs(scale)
    ref.compare_arrays(f"{out} (against {expr})", want, np.asarray(got),
                       ulp=int(opts.get('--ulp', 0)), atol=atol)
    if '--fill' in opts:
        v = want.dtype.type(ref.parse_literal(opts['--fill']) if opts['--fill'] != 'default'
                            else fill(want.dtype))
        fv = attrs.get('_FillValue')
        if want.dtype == bool:
            if fv is not None:
                raise Failure(f"{out}: _FillValue {fv!r}, expected none for a bool")
        elif fv is None or not (fv == v or (np.isnan(v) and np.isnan(fv))):
            raise Failure(f"{out}: _FillValue {fv!r}, expected {v!r}")
        if not (fillvalue == v or (np.isnan(v) and np.isnan(fillvalue))):
            raise Failure(f"{out}: HDF5 fill value {fillvalue!r}, expected {v!r}")


def printed(argv):
    ns = names()
    want = eval(argv[0], ns)
    if len(argv) > 1:
        mask = np.asarray(eval(argv[1], ns))
    else:
        mask = ~np.ma.getmaskarray(want)
    text = sys.stdin.read().rstrip('\n')
    expected = ref.fmt_array(np.ma.getdata(want), mask)
    if text != expected:
        raise Failure(f"printed text differs:\n{text}\nexpected:\n{expected}")


JOBS = {'make': lambda a: make(a[0]), 'orig': lambda a: copy_orig(a[0], a[1:]),
        'check': check, 'printed': printed}

if __name__ == '__main__':
    ref.main(JOBS, "where_ref.py")
