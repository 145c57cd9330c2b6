#!/usr/bin/python3
"""vds_ref.py - outputs over one file per rank: the reference side of
tests/72-vds.bats.

What it is: it makes the fixtures with NumPy and h5py, and checks what
h5ufunc wrote as a virtual dataset against NumPy, against the same output
written as one file, and as h5py, netCDF4-python and HDF5 see its mappings.
What it is not: a timing tool.

Usage: vds_ref.py JOB [:: JOB]... (h5ref's job runner); exit 0 when every
job passed, 1 when a check failed (reasons on stderr), 2 on a malformed job.

Jobs:
  make DIR        write DIR/in.h5: float64 /a, /b (37, 23) with named
                  dimensions y, x (coordinate variables) and units "m";
                  /t, /u (3, 3, 4001), shares of which cross rows
  same OUT PATH EXPR
                  OUT:PATH read by h5py is NumPy's EXPR over in.h5's
                  datasets (a, b, t, u), bit for bit
  mapped OUT PATH N
                  OUT:PATH is a virtual dataset of N mappings, one per
                  source OUT.rankR (named relative, R counting from 0),
                  every source a file beside OUT
  unions OUT PATH a mapping of OUT:PATH is a union of several hyperslabs,
                  none of more than 2 * ndim - 1
  plain OUT PATH  OUT:PATH is not virtual
  netcdf OUT PATH EXPR DIMS UNITS
                  netCDF4-python reads OUT:PATH as NumPy's EXPR, its
                  dimensions DIMS (comma-separated) and its units UNITS
  filters OUT PATH FILTER
                  every source of OUT:PATH stores its dataset compressed by
                  FILTER (gzip)
"""
import os

import h5py
import netCDF4
import numpy as np

import h5ref


def make(d):
    rng = np.random.default_rng(28)
    with h5py.File(os.path.join(d, 'in.h5'), 'w', track_order=True) as f:
        y = f.create_dataset('y', data=np.arange(37.0))
        x = f.create_dataset('x', data=np.arange(23.0) * 0.5)
        y.make_scale('y')
        x.make_scale('x')
        for name in ('a', 'b'):
            v = f.create_dataset(name, data=rng.standard_normal((37, 23)))
            v.dims[0].attach_scale(y)
            v.dims[1].attach_scale(x)
            v.attrs['units'] = 'm'
        for name in ('t', 'u'):
            f[name] = rng.standard_normal((3, 3, 4001))


def inputs(out):
    with h5py.File(os.path.join(os.path.dirname(out) or '.', 'in.h5')) as f:
        return {k: f[k][()] for k in ('a', 'b', 't', 'u')}


def same(out, path, expr):
    env = inputs(out)
    h5ref.compare_arrays(f"{out}:{path} (NumPy's {expr})", np.asarray(eval(expr, {'np': np}, env)),
                         h5ref.read_ref(f"{out}:{path}"))


def mapped(out, path, n):
    with h5py.File(out) as f:
        d = f[path]
        assert d.is_virtual, f"{out}:{path} is not a virtual dataset"
        names = [m.file_name for m in d.virtual_sources()]
    base = os.path.basename(out)
    want = [f"{base}.rank{r}" for r in range(int(n))]
    assert names == want, f"{out}:{path} maps {names}, not {want}"
    for name in names:
        assert os.path.isfile(os.path.join(os.path.dirname(out) or '.', name)), f"no source {name}"


def unions(out, path):
    with h5py.File(out) as f:
        ndim = f[path].ndim
        blocks = [m.vspace.get_select_hyper_nblocks() for m in f[path].virtual_sources()]
    assert max(blocks) > 1 and max(blocks) <= 2 * ndim - 1, f"{out}:{path}: mappings of {blocks} blocks"


def plain(out, path):
    with h5py.File(out) as f:
        assert not f[path].is_virtual, f"{out}:{path} is a virtual dataset"


def netcdf(out, path, expr, dims, units):
    env = inputs(out)
    with netCDF4.Dataset(out) as f:
        v = f[path]
        got = np.asarray(v[:])
        assert ','.join(v.dimensions) == dims, f"{out}:{path} has dimensions {v.dimensions}, not {dims}"
        assert getattr(v, 'units', None) == units, f"{out}:{path} has units {getattr(v, 'units', None)!r}"
    h5ref.compare_arrays(f"{out}:{path} by netCDF4 (NumPy's {expr})",
                         np.asarray(eval(expr, {'np': np}, env)), got)


def filters(out, path, want):
    with h5py.File(out) as f:
        names = [m.file_name for m in f[path].virtual_sources()]
    for name in names:
        with h5py.File(os.path.join(os.path.dirname(out) or '.', name)) as s:
            assert s[path].compression == want, f"{name}:{path} is stored as {s[path].compression}"


def words(fn):
    """FN(*ARGS) as a job of h5ref's runner, which hands a job its words."""
    return lambda args: fn(*args)


if __name__ == '__main__':
    h5ref.main({f.__name__: words(f) for f in (make, same, mapped, unions, plain, netcdf, filters)},
               'vds_ref.py')
