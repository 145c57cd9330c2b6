#!/usr/bin/python3
"""cf_ref.py - netCDF/CF decoding and packing references for tests/71-cf.bats.

The decoded values of a dataset are the netCDF User Guide's (CF 8.1):
netCDF4-python's mask (_FillValue, missing_value, valid_min, valid_max,
valid_range, each taken only when it converts exactly to the variable's
dtype, and _Unsigned = "true" read as the unsigned dtype, all on the packed
values), then `packed * scale_factor + add_offset` in the dtype of
scale_factor/add_offset where it differs from the packed one: the cast, one
multiply and one add in that dtype, as NumPy does them.  `nc4` checks that
this is netCDF4-python's own result, bit for bit wherever netCDF4-python
unpacks into the same dtype, and says where it does not (NumPy's promotion
of the packed dtype with the attribute's, not the attribute's dtype).
`xr` compares with xarray's decode_cf, whose dtype is float32 for 8- and
16-bit packed integers that have a _FillValue: within float32's rounding,
the missing elements NaN exactly where h5ufunc masks.  NumPy 2's weak
literals as tests/np.py switches them on.

Usage:
  cf_ref.py make DIR
      the fixtures: DIR/era.nc (ERA5-style int16 t2m, u10, v10 (time 12,
      lat 5, lon 7), float64 scale_factor and add_offset, _FillValue and
      missing_value -32767, a column missing at every time, t2m chunked;
      late: int16 scaled by 0.5 whose last time step is 32766),
      DIR/cmip.nc (float32 tas (time 6, lat 4, lon 5), _FillValue and
      missing_value 1e20, time_bnds), DIR/kinds.nc (ub: int8 with _Unsigned
      and _FillValue -1; ubs: the same with float32 scale and offset; s32:
      int32 with a float32 scale; vr: int16 with valid_range and a missing_value
      that is no int16 (left out); fp: float32
      with float64 scale and offset; sf: int16 with a float32 scale_factor
      alone; isf: int16 with an int16 scale_factor), DIR/plain.h5 (h5py, no attributes: x float64 9x7, i int16 9x7)
  cf_ref.py JOBS DIR < LINES
      one job per line, every name reading the fixtures as they are in DIR:
        OUT = EXPR [;; ulp=N]
            the dataset OUT, decoded by its own attributes, equals EXPR (a
            numpy.ma array): dtype, shape, mask, and every value bit for
            bit (within N ULP)
        xr OUT = EXPR [;; rtol=R atol=A]
            OUT against EXPR of xarray's values (X(REF), NaN where missing):
            NaN exactly where OUT is masked, values within R (default
            float32's rounding, 2**-22) of the largest, plus A (the rounding
            of xarray's float32 intermediates, when larger than the result)
        nc4 REF...
            V(REF) is netCDF4-python's auto mask-and-scale result, as above
        printed EXPR
            the rest of stdin (after this line) is EXPR printed as h5ufunc
            prints, "--" where masked
        same-packing OUT REF
            OUT's stored integers (but at its _FillValue, a masked element,
            which NCO packs as it likes when the fill does not fit), its
            scale_factor and add_offset (their dtypes too) are those of REF
            (packed by NCO's ncpdq)
        repack OUT ORIG EXPR
            OUT's stored integers are what netCDF4-python stores when it
            writes EXPR into the variable ORIG (a copy of it, auto
            mask-and-scale), and its attributes are ORIG's, types included
In EXPR: V(REF), the decoded fixture FILE:/PATH; R(REF), its stored
numbers (as h5py reads them); X(REF), xarray's
decode_cf of it; np, ma (numpy.ma), mean(A, axis): the masked mean as a
masked sum over the masked sum of A * 0 + 1; P(A, DTYPE, SCALE[, OFFSET]): A packed as
netCDF4-python packs it and unpacked again.  Exit 1 with the reason on a mismatch.
"""
import os
import shutil
import sys
import tempfile

import h5py
import numpy as np
import numpy.ma as ma

import h5ref
from h5ref import Failure
import where_ref   # fill: netCDF's default fill value of a dtype

h5ref.numpy2()   # NumPy 2's weak literals

FIXTURES = '.'

_getdata = ma.core.getdata


def _weak_getdata(a, subok=True):
    """numpy.ma's getdata, leaving Python numbers as they are, so that they
    stay weak in numpy.ma's arithmetic as in NumPy's."""
    if isinstance(a, (bool, int, float, complex)):
        return a
    return _getdata(a, subok)


ma.core.getdata = _weak_getdata


# ---- fixtures ---------------------------------------------------------------

def _var(ds, name, dtype, dims, data, attrs, fill=None, chunks=None):
    v = ds.createVariable(name, dtype, dims, fill_value=fill, chunksizes=chunks)
    v.set_auto_maskandscale(False)
    for k, a in attrs.items():
        v.setncattr(k, a)
    v[:] = data
    return v


def make_era(path, rng):
    import netCDF4
    shape = (12, 5, 7)
    with netCDF4.Dataset(path, 'w') as ds:
        for n, size in zip(('time', 'lat', 'lon'), shape):
            ds.createDimension(n, size)
        ds.createVariable('time', 'f8', ('time',))[:] = np.arange(shape[0]) * 6.0
        ds['time'].units = 'hours since 2024-01-01'
        for name, lo, hi, units in (('t2m', 228.0, 318.0, 'K'), ('u10', -25.0, 27.0, 'm s**-1'),
                                    ('v10', -21.0, 24.0, 'm s**-1')):
            scale = (hi - lo) / 65534
            offset = lo + scale * 32767
            values = rng.uniform(lo, hi, shape)
            packed = np.round((values - offset) / scale).astype(np.int16)
            packed[rng.uniform(size=shape) < 0.1] = -32767
            packed[:, 0, 0] = -32767   # never observed
            packed[0, 1, :3] = [32767, -32766, 0]   # the ends of the packed range
            _var(ds, name, 'i2', ('time', 'lat', 'lon'), packed,
                 {'scale_factor': np.float64(scale), 'add_offset': np.float64(offset),
                  'missing_value': np.int16(-32767), 'units': units}, fill=np.int16(-32767),
                 chunks=(3, 5, 7) if name == 't2m' else None)
        late = rng.integers(-100, 100, shape).astype(np.int16)
        late[-1] = 32766   # adding 1 (0.5 packed as 2) overflows at the last time only
        _var(ds, 'late', 'i2', ('time', 'lat', 'lon'), late, {'scale_factor': np.float64(0.5)},
             fill=np.int16(-32767))


def make_cmip(path, rng):
    import netCDF4
    with netCDF4.Dataset(path, 'w') as ds:
        for n, size in (('time', 6), ('lat', 4), ('lon', 5), ('bnds', 2)):
            ds.createDimension(n, size)
        t = ds.createVariable('time', 'f8', ('time',))
        t[:] = np.arange(6) * 30.0 + 15
        t.bounds = 'time_bnds'
        t.calendar = 'noleap'
        ds.createVariable('time_bnds', 'f8', ('time', 'bnds'))[:] = np.stack(
            [np.arange(6) * 30.0, np.arange(6) * 30.0 + 30], 1)
        tas = np.round(rng.uniform(240, 310, (6, 4, 5)), 2).astype(np.float32)
        tas[rng.uniform(size=tas.shape) < 0.2] = 1e20
        tas[:, 3, 4] = 1e20
        _var(ds, 'tas', 'f4', ('time', 'lat', 'lon'), tas,
             {'missing_value': np.float32(1e20), 'units': 'K'}, fill=np.float32(1e20))


def make_kinds(path, rng):
    import netCDF4
    with netCDF4.Dataset(path, 'w') as ds:
        ds.createDimension('y', 6)
        ds.createDimension('x', 8)
        dims = ('y', 'x')
        ub = rng.integers(-128, 128, (6, 8)).astype(np.int8)
        ub[ub == -1] = 0
        ub[rng.uniform(size=ub.shape) < 0.15] = -1
        _var(ds, 'ub', 'i1', dims, ub, {'_Unsigned': 'true'}, fill=np.int8(-1))
        _var(ds, 'ubs', 'i1', dims, ub, {'_Unsigned': 'true', 'scale_factor': np.float32(0.5),
                                         'add_offset': np.float32(-10)}, fill=np.int8(-1))
        s32 = rng.integers(-2**31 + 2, 2**31 - 2, (6, 8)).astype(np.int32)
        _var(ds, 's32', 'i4', dims, s32, {'scale_factor': np.float32(1e-3),
                                          'add_offset': np.float32(0.25)})
        vr = rng.integers(-1500, 1500, (6, 8)).astype(np.int16)
        vr[0, :2] = [32767, 999]
        _var(ds, 'vr', 'i2', dims, vr, {'scale_factor': np.float64(0.01),
                                        'valid_range': np.array([-1000, 32767], np.int16),
                                        'missing_value': np.float64(40000.0)})   # not a short: left out
        fp = np.round(rng.uniform(-50, 50, (6, 8)), 3).astype(np.float32)
        _var(ds, 'fp', 'f4', dims, fp, {'scale_factor': np.float64(2.0), 'add_offset': np.float64(1.0)})
        sf = rng.integers(-30000, 30000, (6, 8)).astype(np.int16)
        _var(ds, 'sf', 'i2', dims, sf, {'scale_factor': np.float32(0.003)})
        _var(ds, 'isf', 'i2', dims, sf, {'scale_factor': np.int16(2)})


def make(d):
    rng = np.random.default_rng(23)
    make_era(os.path.join(d, 'era.nc'), rng)
    make_cmip(os.path.join(d, 'cmip.nc'), rng)
    make_kinds(os.path.join(d, 'kinds.nc'), rng)
    with h5py.File(os.path.join(d, 'plain.h5'), 'w') as f:
        f['x'] = np.round(rng.uniform(-3, 5, (9, 7)), 3)
        f['i'] = rng.integers(-300, 300, (9, 7)).astype(np.int16)


# ---- decoding ---------------------------------------------------------------

def _exact(attrs, name, dtype):
    """Attribute NAME as DTYPE when it converts exactly (netCDF4-python's
    _check_safecast), else None."""
    if name not in attrs:
        return None
    a = np.atleast_1d(np.asarray(attrs[name]))
    if a.dtype.kind not in 'iuf':
        return None
    b = a.astype(dtype)
    same = (b == a) | (np.isnan(a.astype(float)) & np.isnan(b.astype(float)))
    return b if np.all(same) else None


def nug_decode(raw, attrs):
    """RAW (a NumPy array of the stored dtype) with ATTRS, decoded."""
    raw = np.asarray(raw)
    stored = raw.dtype
    unsigned = attrs.get('_Unsigned', '')
    unsigned = (unsigned.decode() if isinstance(unsigned, bytes) else str(unsigned)) in ('true', 'True')
    packed = raw.view(stored.str.replace('i', 'u')) if unsigned and stored.kind == 'i' else raw
    miss = np.zeros(raw.shape, bool)
    for key in ('missing_value', '_FillValue'):
        vals = _exact(attrs, key, stored)
        for v in ([] if vals is None else vals.view(packed.dtype)):
            miss |= np.isnan(packed) if v != v else packed == v
    rng = _exact(attrs, 'valid_range', stored)
    lo, hi = (rng[0], rng[1]) if rng is not None and rng.size == 2 else (
        _exact(attrs, 'valid_min', stored), _exact(attrs, 'valid_max', stored))
    if lo is not None:
        miss |= packed < np.asarray(lo).view(packed.dtype).reshape(())
    if hi is not None:
        miss |= packed > np.asarray(hi).view(packed.dtype).reshape(())
    sf, ao = attrs.get('scale_factor'), attrs.get('add_offset')
    if sf is None and ao is None:
        return ma.array(packed, mask=miss)
    types = [np.asarray(a).dtype for a in (sf, ao) if a is not None]
    unpacked = np.result_type(*types)
    value = packed.astype(unpacked)
    if sf is not None:
        value = value * unpacked.type(np.asarray(sf).reshape(()))
    if ao is not None:
        value = value + unpacked.type(np.asarray(ao).reshape(()))
    return ma.array(value, mask=miss)


def read(ref, base=None):
    fname, path, _ = h5ref.split_ref(ref)
    with h5py.File(os.path.join(base, fname) if base else fname, 'r') as f:
        ds = f[path]
        return ds[()], {k: v for k, v in ds.attrs.items()}


def V(ref):
    return nug_decode(*read(ref, FIXTURES))


def R(ref):
    return read(ref, FIXTURES)[0]


def X(ref):
    import xarray as xr
    fname, path = ref.split(':/', 1)
    with xr.open_dataset(os.path.join(FIXTURES, fname)) as ds:
        return ds[path].values


def mean(a, axis=None):
    """The masked mean as h5ufunc's recipe computes it: a masked sum over
    the masked sum of ones (a * 0 + 1), in A's dtype."""
    return ma.sum(a, axis=axis) / ma.sum(a * 0 + 1, axis=axis)


def P(a, dtype, scale, offset=None):
    """A (a numpy.ma array) packed as DTYPE with SCALE and OFFSET as
    netCDF4-python packs it ((a - offset) / scale, numpy.around), then
    unpacked again."""
    d = ma.getdata(a).dtype.type
    v = ma.getdata(a) if offset is None else ma.getdata(a) - d(offset)
    packed = np.around(v / d(scale)).astype(dtype)
    out = packed.astype(d) * d(scale)
    return ma.array(out if offset is None else out + d(offset), mask=ma.getmaskarray(a))


def names():
    return {'np': np, 'ma': ma, 'V': V, 'R': R, 'X': X, 'mean': mean, 'P': P}


# ---- comparisons ------------------------------------------------------------

def compare(label, got, want, ulp=0):
    got, want = ma.asarray(got), ma.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        raise Failure(f"{label}: {got.dtype}{got.shape}, expected {want.dtype}{want.shape}")
    gm, wm = ma.getmaskarray(got), ma.getmaskarray(want)
    if not np.array_equal(gm, wm):
        raise Failure(f"{label}: masked at {np.argwhere(gm).tolist()}, expected {np.argwhere(wm).tolist()}")
    h5ref.compare_arrays(label, ma.getdata(want)[~wm], ma.getdata(got)[~gm], ulp)


def job_check(out, expr, opts):
    want = eval(expr, names())
    compare(out, nug_decode(*read(out)), want, int(opts.get('ulp', 0)))


def job_xarray(out, expr, opts):
    theirs = np.asarray(eval(expr, names()))
    ours = nug_decode(*read(out))
    missing = ma.getmaskarray(ours)
    if ours.shape != theirs.shape or not np.array_equal(missing, np.isnan(theirs)):
        raise Failure(f"{out}: masked at {np.argwhere(missing).tolist()}, xarray's NaN at "
             f"{np.argwhere(np.isnan(theirs)).tolist()}")
    rtol, atol = float(opts.get('rtol', 2.0 ** -22)), float(opts.get('atol', 0))
    g = ma.getdata(ours)[~missing].astype(np.float64)
    w = theirs[~missing].astype(np.float64)
    scale = max(np.max(np.abs(w), initial=0.0), 1e-300)
    worst = np.max(np.abs(g - w), initial=0.0)
    if worst > rtol * scale + atol:
        raise Failure(f"{out}: differs from xarray ({theirs.dtype}) by {worst:.3g}, more than "
             f"{rtol:.3g} of the largest value ({scale:.6g}) and {atol:.3g}")


def job_nc4(refs):
    import netCDF4
    for ref in refs:
        fname, path = ref.split(':/', 1)
        with netCDF4.Dataset(os.path.join(FIXTURES, fname)) as ds:
            theirs = ma.asarray(ds[path][:])
        ours = V(ref)
        raw, attrs = read(ref, FIXTURES)
        if '_FillValue' not in attrs and raw.dtype.itemsize > 1:
            # netCDF4-python also masks netCDF's default fill where no
            # _FillValue is given; h5ufunc(1), CF DECODING, says h5ufunc does not
            ours = ma.masked_where(raw == where_ref.fill(raw.dtype), ours)
        if theirs.dtype == ours.dtype:
            compare(f"{ref} (netCDF4-python)", ours, theirs)
            continue
        # netCDF4-python unpacks in NumPy's promotion of the packed dtype with
        # the attributes': the same arithmetic, rounded once more
        mine = ma.masked_array(ma.getdata(ours).astype(theirs.dtype), ma.getmaskarray(ours))
        wide = ma.getdata(theirs)[~ma.getmaskarray(theirs)]
        near = np.abs(ma.getdata(mine)[~ma.getmaskarray(mine)] - wide)
        eps = np.finfo(ours.dtype).eps
        if not np.array_equal(ma.getmaskarray(mine), ma.getmaskarray(theirs)) or \
           np.any(near > 2 * eps * np.abs(wide) + np.finfo(ours.dtype).tiny):
            raise Failure(f"{ref}: netCDF4-python ({theirs.dtype}) differs from the unpacked {ours.dtype} "
                 f"by more than its rounding")


def job_printed(expr, text):
    want = ma.asarray(eval(expr, names()))
    mask = ~ma.getmaskarray(want)
    expected = h5ref.fmt_array(np.asarray(ma.getdata(want)), mask)
    if text.rstrip('\n') != expected:
        raise Failure(f"printed text differs:\n{text}\nexpected:\n{expected}")


def _coding(attrs):
    return {k: (np.asarray(attrs[k]).dtype, np.asarray(attrs[k]).reshape(-1).tolist())
            for k in ('_FillValue', 'scale_factor', 'add_offset') if k in attrs}


def job_same_packing(out, ref):
    (a, aa), (b, ba) = read(out), read(ref)
    taken = a != aa['_FillValue']   # NCO packs a float fill it cannot hold as it likes
    if a.dtype != b.dtype or a.shape != b.shape or not np.array_equal(a[taken], b[taken]):
        raise Failure(f"{out}: stored {a.dtype} {a[taken][:8]}..., {ref} {b.dtype} {b[taken][:8]}...")
    ours, nco = _coding(aa), _coding(ba)
    for k in ('scale_factor', 'add_offset'):
        if ours.get(k) != nco.get(k):
            raise Failure(f"{out}: {k} {ours.get(k)}, NCO's {nco.get(k)}")


def job_repack(out, orig, expr):
    import netCDF4
    fname, path = orig.split(':/', 1)
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, 'copy.nc')
        shutil.copy(os.path.join(FIXTURES, fname), copy)
        values = eval(expr, names())
        with netCDF4.Dataset(copy, 'a') as ds:
            ds[path][:] = values
        want, wattrs = read(f"{copy}:/{path}")
    got, gattrs = read(out)
    if got.dtype != want.dtype or not np.array_equal(got, want):
        bad = np.argwhere(got != want)[:4].tolist()
        raise Failure(f"{out}: stored values differ from netCDF4-python's at {bad}")
    for k, v in wattrs.items():
        if np.asarray(v).dtype == object:
            continue   # references (dimension scales): of another file
        if k not in gattrs or np.asarray(gattrs[k]).dtype != np.asarray(v).dtype or \
           not np.array_equal(np.asarray(gattrs[k]), np.asarray(v)):
            raise Failure(f"{out}: attribute {k} is {gattrs.get(k)!r}, was {v!r}")


def run_jobs(lines):
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if not line or line.startswith('#'):
            continue
        body, _, tail = line.partition(';;')
        opts = dict(kv.split('=', 1) for kv in tail.split())
        words = body.split()
        if words[0] == 'nc4':
            job_nc4(words[1:])
        elif words[0] == 'printed':
            job_printed(body.split(None, 1)[1], ''.join(lines[i:]))
            return
        elif words[0] == 'same-packing':
            job_same_packing(words[1], words[2])
        elif words[0] == 'repack':
            job_repack(words[1], words[2], body.split(None, 3)[3])
        elif words[0] == 'xr':
            out, expr = body.split(None, 1)[1].split(' = ', 1)
            job_xarray(out.strip(), expr, opts)
        else:
            out, expr = body.split(' = ', 1)
            job_check(out.strip(), expr, opts)


if __name__ == '__main__':
    if sys.argv[1] == 'make':
        make(sys.argv[2])
    else:
        FIXTURES = sys.argv[2]
        try:
            run_jobs(sys.stdin.read().splitlines(keepends=True))
        except Failure as exc:
            print(f"cf_ref.py: {exc}", file=sys.stderr)
            sys.exit(1)
