#!/usr/bin/python3
"""gufunc_ref.py - NumPy's matmul, vecdot, matvec and vecmat: the reference
side of tests/67-gufunc.bats.

What it is: the cases of the family (one table, CASES below), the inputs
they read, a recipe with one step per case, and the comparison of what
h5ufunc wrote with what NumPy 2 gives.  What it is not: a second
implementation (it never reads h5ufunc's output to decide what is right).

NumPy 2 is the contract and Debian's NumPy 1.24 the reference, which has
matmul but not vecdot, matvec and vecmat: those are computed as NumPy 2
defines them, from np.matmul on the operands with their core axes moved
last (vecdot(a, b) = conj(a)[..., None, :] @ b[..., :, None], matvec(A, v)
= A @ v[..., None], vecmat(v, B) = conj(v)[..., None, :] @ B), with NumPy's
own type resolution (np.result_type of matmul's loops).

What "right" means (SPEC 3.1): the dtype and shape NumPy gives; bool and
integer results bit for bit (NumPy's wrap-around); float and complex
results within 4 * k * eps * (|A| @ |B|) elementwise of the exact product
(computed in long double), eps the result dtype's, k the contraction's
length.

Usage:  gufunc_ref.py JOB [:: JOB]...
Jobs:
  inputs FILE.h5     write the operands of every case
  recipe IN OUT      print the recipe: one step per case reading IN.h5,
                     writing OUT:/ID (OUT may be ${OUT})
  check IN OUT       every case's OUT:/ID against NumPy
  same A B...        every dataset of A equals B's, byte for byte
  ids                print the case ids
  raises FILE A B [axes=L] [axis=N] [dtype=T] -- MESSAGE
                     np.matmul of FILE's datasets A and B raises MESSAGE
  coord_inputs NC H5 write the operands of the coordinate cases (COORD_CASES)
  coord_recipe NC H5 OUT
                     print their recipe: each case writes OUT:/ID/r
  coord_check NC H5 OUT
                     each case's values against NumPy, its dimensions and
                     their coordinate variables against the inputs'
  appendable FILE... netCDF4-python appends to each FILE (netcdf_ref.py)
  cf_inputs NC       write the CF-coded operands of the CF cases (CF_CASES)
  cf_recipe NC OUT   print their recipe: each case writes OUT:/ID
  cf_check NC OUT [raw]
                     each case's OUT:/ID against NumPy on netCDF4-python's
                     decoded operands (raw: on the stored numbers)
  ma_inputs NC H5    write the operands with missing values of the masked
                     cases (MA_CASES; H5: without attributes)
  ma_recipe NC H5 OUT
                     print their recipe: each case writes OUT:/ID
  ma_check NC H5 OUT each case's OUT:/ID against np.ma.dot on netCDF4-python's
                     masked operands: the mask, the values, the fill; and
                     xarray's reading of it (masked: NaN)
  ma_complex H5 OUT  OUT:/ID of UF(H5:/cu, H5:/cv) under missing: mask-nan for
                     vecdot and vecmat (the first conjugated), against
                     np.ma.dot on numpy.ma's masked_invalid (h5py)
Exit 0 when every job passed, 1 when a check failed, 2 on a malformed job.
"""
import ast

import h5py
import numpy as np

import h5ref as ref

ref.numpy2()

DTYPES = ['bool', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64',
          'uint64', 'float16', 'float32', 'float64', 'complex64', 'complex128']
SIGNATURES = {'matmul': ((('n', True), ('k', False)), (('k', False), ('m', True)),
                         (('n', True), ('m', True))),
              'vecdot': ((('k', False),), (('k', False),), ()),
              'matvec': ((('n', False), ('k', False)), (('k', False),), (('n', False),)),
              'vecmat': ((('k', False),), (('k', False), ('m', False)), (('m', False),))}


def _cases():
    """(id, ufunc, a, b, options): a and b dataset names of IN.h5, options a
    dict of recipe keys (axes, axis, dtype)."""
    c = []
    for t in DTYPES:   # every dtype: a matrix product and a vector dot
        c.append((f'mm_{t}', 'matmul', f'a_{t}', f'b_{t}', {}))
        c.append((f'vd_{t}', 'vecdot', f'u_{t}', f'v_{t}', {}))
    c += [
        # 1-D operands (matmul's optional dimensions), an empty contraction
        ('vec_mat', 'matmul', 'u_float64', 'b_float64', {}),
        ('mat_vec', 'matmul', 'a_float64', 'v_float64', {}),
        ('vec_vec', 'matmul', 'u_int32', 'v_int32', {}),
        ('empty_k', 'matmul', 'e_left', 'e_right', {}),
        # stacks broadcast against each other, and against one matrix
        ('stack', 'matmul', 's_left', 's_right', {}),
        ('stack_c', 'matmul', 's_left_c', 's_right_c', {}),
        ('rotate', 'matvec', 'rot', 'field', {}),
        ('rotate_int', 'matvec', 'rot_int', 'field_int', {}),
        ('vm_c', 'vecmat', 'u_complex128', 'b_complex128', {}),
        ('mv_c', 'matvec', 'a_complex64', 'v_complex64', {}),
        ('vd_stack', 'vecdot', 'field', 'field', {}),
        # axes= and axis=
        ('gram', 'matmul', 'tall', 'tall', {'axes': [[1, 0], [0, 1], [0, 1]]}),
        ('gram_c', 'matmul', 'tall_c', 'tall_c', {'axes': [[1, 0], [0, 1], [0, 1]]}),
        ('per_lat', 'matmul', 'tll', 'modes', {'axes': [[0, 2], [2, 0], [1, 2]]}),
        ('out_axes', 'matmul', 's_left', 's_right', {'axes': [[-2, -1], [-2, -1], [0, 2]]}),
        ('vd_axis', 'vecdot', 'field', 'field', {'axis': 0}),
        ('vd_axis_neg', 'vecdot', 'tall', 'tall', {'axis': -2}),
        # mixed dtypes, dtype=
        ('mixed', 'matmul', 'a_int8', 'b_float32', {}),
        ('mixed_half', 'matmul', 'a_int16', 'b_float16', {}),
        ('mixed_c', 'vecdot', 'u_float32', 'v_complex64', {}),
        ('dtype_f', 'matmul', 'a_float64', 'b_float64', {'dtype': 'float32'}),
        # longer than --memory 1M: the contraction, the result
        ('long_k', 'vecdot', 'long_u', 'long_v', {}),
        ('long_k_mm', 'matmul', 'long_a', 'long_b', {}),
        ('big_out', 'matmul', 'wide_a', 'wide_b', {}),
        # smaller than the ranks: ranks without cells
        ('tiny', 'matmul', 'a2', 'a2', {}),
        # boxes of several cells with shorter last ones, read in place by
        # the block products, B also stored transposed
        ('in_place', 'matmul', 'ip_a', 'ip_b', {}),
        ('in_place_t', 'matmul', 'ip_a', 'ip_bt', {'axes': [[0, 1], [1, 0], [0, 1]]}),
    ]
    return c


CASES = _cases()


def _inputs():
    rng = np.random.default_rng(2026)

    def rand(t, shape):
        t = np.dtype(t)
        if t.kind == 'b':
            return rng.random(shape) < 0.3
        if t.kind in 'iu':   # the whole range: products and sums wrap
            info = np.iinfo(t)
            return rng.integers(info.min, info.max, shape, dtype=t, endpoint=True)
        x = rng.standard_normal(shape)
        if t.kind == 'c':
            x = x + 1j * rng.standard_normal(shape)
        return x.astype(t)

    d = {}
    for t in DTYPES:
        d[f'a_{t}'], d[f'b_{t}'] = rand(t, (37, 70)), rand(t, (70, 29))
        d[f'u_{t}'], d[f'v_{t}'] = rand(t, (70,)), rand(t, (70,))
    d['e_left'], d['e_right'] = rand('float64', (3, 0)), rand('float64', (0, 4))
    d['s_left'], d['s_right'] = rand('float64', (5, 1, 6, 7)), rand('float64', (3, 7, 4))
    d['s_left_c'], d['s_right_c'] = rand('complex64', (2, 1, 6, 7)), rand('complex64', (4, 7, 5))
    d['rot'], d['field'] = rand('float64', (3, 3)), rand('float64', (40, 50, 3))
    d['rot_int'], d['field_int'] = rand('int16', (3, 3)), rand('int16', (40, 50, 3))
    d['tall'], d['tall_c'] = rand('float64', (30000, 24)), rand('complex128', (9000, 12))
    d['tll'], d['modes'] = rand('float32', (30, 8, 20)), rand('float32', (5, 8, 20))
    d['long_u'], d['long_v'] = rand('float64', (300000,)), rand('float64', (300000,))
    d['long_a'], d['long_b'] = rand('float32', (3, 200000)), rand('float32', (200000, 2))
    d['wide_a'], d['wide_b'] = rand('float32', (1000, 16)), rand('float32', (16, 600))
    d['a2'] = rand('int64', (2, 2))
    d['ip_a'], d['ip_b'] = rand('float64', (301, 1000)), rand('float64', (1000, 203))
    d['ip_bt'] = rand('float64', (203, 1000))
    d['odd_a'], d['odd_b'] = rand('float64', (2, 2, 3)), rand('float64', (3, 3, 4))   # errors
    d['odd_c'] = rand('float64', (3, 4, 7, 2))
    return d


# ---- NumPy's result ----

def _core_axes(uf, shapes, opts):
    """Each argument's core axes (normalised, in signature order) and the
    result's rank, as NumPy's axes=/axis= handling gives them."""
    sig = SIGNATURES[uf]
    present = []
    for k in (0, 1):
        present.append([not opt or len(shapes[k]) >= len(sig[k]) for _, opt in sig[k]])
    names = {n for k in (0, 1) for (n, _), p in zip(sig[k], present[k]) if not p}
    present.append([n not in names for n, _ in sig[2]])
    ncore = [sum(p) for p in present]
    loop = max(len(shapes[k]) - ncore[k] for k in (0, 1))
    ndim = [len(shapes[0]), len(shapes[1]), loop + ncore[2]]
    axes = opts.get('axes')
    if axes is None:
        axes = [[opts['axis']] if ncore[k] else [] for k in range(3)] if 'axis' in opts \
            else [list(range(-ncore[k], 0)) for k in range(3)]
    axes = [[a] if isinstance(a, int) else a for a in axes] + [[]] * (3 - len(axes))
    return [[a % ndim[k] for a in axes[k]] for k in range(3)], present


def _moved(x, core):
    return np.moveaxis(x, core, list(range(-len(core), 0))) if core else x


def numpy_result(uf, a, b, opts, dtype=None):
    """NumPy 2's UF(A, B, **OPTS), computed from np.matmul, in DTYPE (the
    loop's, or long double for the exact product) or NumPy's own."""
    core, present = _core_axes(uf, (a.shape, b.shape), opts)
    if dtype is None:
        dtype = np.dtype(opts['dtype']) if 'dtype' in opts else \
            np.matmul(np.ones(1, a.dtype), np.ones(1, b.dtype)).dtype
    x, y = _moved(a, core[0]).astype(dtype), _moved(b, core[1]).astype(dtype)
    if uf in ('vecdot', 'vecmat') and x.dtype.kind == 'c':
        x = np.conj(x)
    if uf == 'vecdot':
        r = np.matmul(x[..., None, :], y[..., :, None])[..., 0, 0]
    elif uf == 'matvec':
        r = np.matmul(x, y[..., None])[..., 0]
    elif uf == 'vecmat':
        r = np.matmul(x[..., None, :], y)[..., 0, :]
    else:
        r = np.matmul(x, y)
    out = core[2]
    return np.moveaxis(r, list(range(-len(out), 0)), out) if out else r


def _bound(uf, a, b, opts, want):
    """4 * k * eps * (|A| @ |B|), elementwise."""
    core, present = _core_axes(uf, (a.shape, b.shape), opts)
    names = [n for (n, _), p in zip(SIGNATURES[uf][0], present[0]) if p]
    k = max(1, a.shape[core[0][names.index('k')]])
    # |x| after widening (np.abs of int8's -128 is -128): a long double
    mag = numpy_result(uf, np.abs(a.astype(np.clongdouble)), np.abs(b.astype(np.clongdouble)),
                       opts, np.longdouble)
    return 4 * k * np.finfo(want.dtype).eps * mag


def _exact(uf, a, b, opts):
    kind = 'c' if 'c' in (a.dtype.kind, b.dtype.kind) else 'f'
    wide = np.clongdouble if kind == 'c' else np.longdouble
    if 'dtype' in opts:   # operands cast to the loop's dtype first
        a, b = a.astype(opts['dtype']), b.astype(opts['dtype'])
    return numpy_result(uf, a, b, opts, wide)


def check_case(case, inp, got):
    cid, uf, an, bn, opts = case
    check_values(cid, uf, inp[an][()], inp[bn][()], opts, got)


def check_values(cid, uf, a, b, opts, got):
    """GOT is NumPy's UF(A, B, **OPTS): integers bit for bit, floats within
    the bound."""
    want = numpy_result(uf, a, b, opts)
    if got.dtype != want.dtype or got.shape != want.shape:
        raise ref.Failure(f"{cid}: {got.dtype} {got.shape}, NumPy {want.dtype} {want.shape}")
    if want.dtype.kind in 'biu':
        if not np.array_equal(got, want):
            bad = np.argwhere(got != want)[0]
            raise ref.Failure(f"{cid}: at {tuple(bad)} {got[tuple(bad)]}, NumPy {want[tuple(bad)]}")
        return
    err = np.abs(got.astype(np.clongdouble) - _exact(uf, a, b, opts))
    bound = _bound(uf, a, b, opts, want)
    if not np.all(err <= bound):
        bad = tuple(np.argwhere(~(err <= bound))[0])
        raise ref.Failure(f"{cid}: at {bad} {got[bad]} is {float(err[bad]):.3g} off, "
                          f"over the bound {float(bound[bad]):.3g}")


# ---- the coordinates of a result's axes ----

# (id, ufunc, a, b, options, the result's dimensions as (name, the slice
# of the input's coordinate it carries), or None: no names).  {nc} is a
# netCDF-4 file whose variables name their axes, {h5} an HDF5 file whose
# datasets name none.  Named operands broadcast their loop axes by name
# (an axis only one has is taken from it), an unnamed one by position (a
# loop axis named by the operand that has its whole length, broadcast
# or not in the other); core axes are named after the operand's core
# axis they come from.
COORD_CASES = [
    ('sliced', 'matmul', '{nc}:/A[1:5:2,::2]', '{nc}:/B', {},
     [('time', '1:5:2'), ('ens', ':'), ('lat', '::2'), ('m', ':')]),
    ('out_axes', 'matmul', '{nc}:/A', '{nc}:/B', {'axes': [[-2, -1], [-2, -1], [0, 1]]},
     [('lat', ':'), ('m', ':'), ('time', ':'), ('ens', ':')]),
    ('matvec', 'matvec', '{nc}:/A[::2]', '{nc}:/v', {}, [('time', '::2'), ('lat', ':')]),
    ('cores', 'matmul', '{nc}:/X[1:,1:]', '{nc}:/Y[1:]', {'axes': [[1, 0], [0, 1], [0, 1]]},
     [('lat', '1:'), ('ens', ':')]),
    ('pos_vec', 'matmul', '{nc}:/A', '{h5}:/u', {}, [('time', ':'), ('lat', ':')]),
    ('pos_bcast', 'vecdot', '{nc}:/A[:,1:]', '{h5}:/P', {}, [('time', ':'), ('lat', '1:')]),
    ('unnamed_core', 'matmul', '{nc}:/A', '{h5}:/M', {}, None),
    ('one', 'vecdot', '{nc}:/C', '{h5}:/W', {}, None),
    ('position', 'matvec', '{nc}:/A', '{nc}:/v', {'broadcast': 'position'}, None),
]


# The views NumPy takes of A to broadcast as the names do (B's loop axis
# ens is new to A: it comes after A's time, and the result has both).
COORD_NUMPY_A = {'sliced': (slice(None), None), 'out_axes': (slice(None), None)}


def job_coord_inputs(args):
    """NC (netCDF4-python: noleap time with bounds, lat with bounds, ens,
    k, m, one; A(time, lat, k), B(ens, k, m), v(k), X(time, lat), Y(time,
    ens), C(one, k)) and H5 (h5py, no scales: u, M, W, P)."""
    import netCDF4
    nc, h5 = args
    rng = np.random.default_rng(27)
    with netCDF4.Dataset(nc, 'w') as f:
        coords = {'time': np.arange(6) * 30 + 15.0, 'lat': np.array([-60, -20, 20, 60], 'f4'),
                  'ens': np.array([1, 2, 3], 'i4'), 'k': np.array([1000, 850, 500, 250, 100.0]),
                  'm': np.array([7, 9], 'i2'), 'one': np.array([0.5])}
        for name, x in coords.items():
            f.createDimension(name, x.size)
            f.createVariable(name, x.dtype, (name,))[:] = x
        f.createDimension('nv', 2)
        t, lat = f['time'], f['lat']
        t.setncatts({'units': 'days since 2000-01-01', 'calendar': 'noleap', 'bounds': 'time_bnds'})
        lat.setncatts({'units': 'degrees_north', 'long_name': 'latitude', 'bounds': 'lat_bnds'})
        f['ens'].long_name = 'member'
        f.createVariable('time_bnds', 'f8', ('time', 'nv'))[:] = np.stack([t[:] - 15, t[:] + 15], 1)
        f.createVariable('lat_bnds', 'f4', ('lat', 'nv'))[:] = np.stack([lat[:] - 20, lat[:] + 20], 1)
        for name, dims in [('A', ('time', 'lat', 'k')), ('B', ('ens', 'k', 'm')), ('v', ('k',)),
                           ('X', ('time', 'lat')), ('Y', ('time', 'ens')), ('C', ('one', 'k'))]:
            shape = tuple(f.dimensions[d].size for d in dims)
            f.createVariable(name, 'f8', dims)[:] = rng.standard_normal(shape)
    with h5py.File(h5, 'w') as f:
        for name, shape in [('u', (5,)), ('M', (5, 2)), ('W', (6, 5)), ('P', (1, 5))]:
            f[name] = rng.standard_normal(shape)


def job_coord_recipe(args):
    nc, h5, out = args
    lines = ['steps:']
    for cid, uf, a, b, opts, _ in COORD_CASES:
        a, b = (x.format(nc=nc, h5=h5) for x in (a, b))
        lines += [f'  - ufunc: {uf}', f"    in: ['{a}', '{b}']", f'    out: {out}:/{cid}/r']
        lines += [f'    {k}: {_yaml(v)}' for k, v in opts.items()]
    print('\n'.join(lines))


def _coordinate_like(label, co, fr, cr, idx):
    """Coordinate variable CO is CR (of FR) at IDX: dtype, values,
    attributes, and its bounds sliced alike."""
    import netcdf_ref
    assert co is not None, f"{label}: no coordinate variable"
    assert co.dtype == cr.dtype, f"{label}: {co.dtype}, the input's {cr.dtype}"
    assert np.array_equal(co[:], cr[idx]), f"{label}: {co[:]}, want {cr[idx]}"
    netcdf_ref.same_attrs(label, co, cr)
    if 'bounds' in cr.ncattrs():
        bo, br = netcdf_ref.lookup(co.group(), co.bounds), fr[cr.bounds]
        assert bo is not None and np.array_equal(bo[:], br[idx]), f"{label}: bounds"


def job_coord_check(args):
    """Every case's values against NumPy; its dimensions and their
    coordinates against the inputs' (netCDF4-python), time decoded alike
    by xarray; the unnamed ones without scales (h5py)."""
    import netCDF4
    import xarray as xr
    import netcdf_ref
    nc, h5, out = args
    with netCDF4.Dataset(out) as fo, netCDF4.Dataset(nc) as fr, h5py.File(out, 'r') as ho:
        for cid, uf, a, b, opts, dims in COORD_CASES:
            got = ho[f'{cid}/r']
            x, y = (ref.read_ref(z.format(nc=nc, h5=h5)) for z in (a, b))
            check_values(cid, uf, x[COORD_NUMPY_A.get(cid, ())], y, opts, got[()])
            if dims is None:
                names = [[s.name for s in d.values()] for d in got.dims]
                assert not any(names), f"{cid}: named {names}, want no names"
                continue
            v = fo[f'{cid}/r']
            assert list(v.dimensions) == [d for d, _ in dims], f"{cid}: {v.dimensions}"
            for d, sel in dims:
                co = netcdf_ref.lookup(v.group(), d)
                _coordinate_like(f"{cid}: {d}", co, fr, fr[d], netcdf_ref.parse_index(sel, 1))
    with xr.open_dataset(out, group='matvec') as o, xr.open_dataset(nc) as r:
        want, bounds = r.time.values[::2], r.time_bnds.values[::2]
        assert o.time.values.tolist() == want.tolist(), f"xarray: time {o.time.values}, want {want}"
        assert o[o.time.attrs['bounds']].values.tolist() == bounds.tolist(), "xarray: time bounds"
        dot = xr.dot(r.A[::2], r.v, dims='k').transpose('time', 'lat')
        assert np.allclose(o.r.values, dot.values, rtol=1e-12, atol=1e-12), "xarray: values"


def job_appendable(args):
    """netcdf_ref.py's appendable: netCDF4-python appends to each file."""
    import netcdf_ref
    netcdf_ref.appendable(args)


# ---- CF-coded operands (SPEC 3.5) ----

# Packed with scale_factor and add_offset in float32 (p, decoded float32),
# scale_factor alone in float64 (q), _Unsigned (u) and _Unsigned with a
# float32 scale_factor (v); p's contraction (150) longer than a piece
# (128), so that a small --memory splits it.  The cases' ids: call and
# eval are written by `call matmul` and `eval 'p @ q'`.
CF_VARS = {'p': ('i2', ('s', 'n', 'k'), {'scale_factor': np.float32(0.01),
                                         'add_offset': np.float32(2.5)}),
           'q': ('i2', ('k', 'm'), {'scale_factor': np.float64(0.001)}),
           'u': ('i1', ('k', 'm'), {'_Unsigned': 'true'}),
           'v': ('i1', ('k',), {'_Unsigned': 'true', 'scale_factor': np.float32(0.5)})}
CF_DIMS = {'s': 3, 'n': 70, 'k': 150, 'm': 9}
CF_CASES = [('call', 'matmul', 'p', 'q'), ('eval', 'matmul', 'p', 'q'),
            ('pu', 'matmul', 'p', 'u'), ('vecdot', 'vecdot', 'p', 'v'),
            ('matvec', 'matvec', 'p', 'v'), ('vecmat', 'vecmat', 'v', 'q')]


def job_cf_inputs(args):
    import netCDF4
    rng = np.random.default_rng(35)
    with netCDF4.Dataset(args[0], 'w') as f:
        for d, n in CF_DIMS.items():
            f.createDimension(d, n)
        for name, (t, dims, attrs) in CF_VARS.items():
            v = f.createVariable(name, t, dims)
            v.set_auto_maskandscale(False)
            info = np.iinfo(t)
            v[:] = rng.integers(info.min, info.max, [CF_DIMS[d] for d in dims], endpoint=True)
            v.setncatts(attrs)
        w = f.createVariable('w', 'i2', ('k', 'm'), fill_value=np.int16(-999))
        w.set_auto_maskandscale(False)
        w[:] = np.where(np.arange(150 * 9).reshape(150, 9) % 7, 3, -999)


def job_cf_recipe(args):
    nc, out = args
    lines = ['steps:']
    for cid, uf, a, b in CF_CASES[2:]:
        lines += [f'  - ufunc: {uf}', f"    in: ['{nc}:/{a}', '{nc}:/{b}']", f'    out: {out}:/{cid}']
    print('\n'.join(lines))


def job_cf_check(args):
    """Each case against NumPy on the operands as netCDF4-python decodes
    them (none masked), or with raw on their stored numbers (h5py)."""
    import netCDF4
    nc, out = args[:2]
    raw = args[2:] == ['raw']
    with netCDF4.Dataset(nc) as f, h5py.File(out, 'r') as o:
        for cid, uf, a, b in CF_CASES:
            if cid not in o:
                if raw:
                    continue
                raise ref.Failure(f"{cid}: not written")
            ops = []
            for name in (a, b):
                f[name].set_auto_maskandscale(not raw)
                x = f[name][:]
                assert not np.ma.getmaskarray(x).any(), f"{name}: masked"
                ops.append(np.ma.getdata(x))
            check_values(cid, uf, ops[0], ops[1], {}, o[cid][()])


# ---- operands with missing values (SPEC 3.5): np.ma.dot ----

# numpy.ma's product is np.ma.dot(a, b, strict=False): missing elements
# count as 0 in the sums, and a result is masked where no product of its
# contraction has two valid factors.  NumPy 1.24's np.ma has no vecdot,
# matvec or vecmat: each is np.ma.dot on the equivalent contraction for
# every loop index (conj(a) first for vecdot and vecmat).  In NC: f
# (_FillValue; a row all missing; f[1, 7] missing where g[:, 4] is
# valid, so that result has no valid product), g (missing_value; a column
# all missing), r (valid_range), p (int16 packed, with a _FillValue), u
# and v (vectors, _FillValue), t (a long contraction that 3 ranks share);
# in H5, h and the empty e_left @ e_right, which declare nothing (missing:
# mask: np.ma.dot masks every result of an empty contraction).
MA_DIMS = {'s': 3, 'n': 37, 'k': 150, 'm': 29, 'l': 3000, 'c': 6}
MA_CASES = [('call', 'matmul', 'f', 'g', {}), ('eval', 'matmul', 'f', 'g', {}),
            ('range', 'matmul', 'f', 'r', {}), ('packed', 'matmul', 'p', 'g', {'axes': [[1, 0], [0, 1], [0, 1]]}),
            ('vecdot', 'vecdot', 'f', 'v', {}), ('matvec', 'matvec', 'f', 'v', {}),
            ('vecmat', 'vecmat', 'v', 'g', {}), ('vv', 'matmul', 'u', 'v', {}),
            ('gram', 'matmul', 't', 't', {'axes': [[1, 0], [0, 1], [0, 1]]}),
            ('mask', 'matmul', 'f', 'h', {'missing': 'mask'}),
            ('empty', 'matmul', 'e_left', 'e_right', {'missing': 'mask'})]
MA_EXPRS = {'sqrt': ('sqrt(f @ g)', lambda x: np.ma.sqrt(x)),
            'masked_in': ('(f * 2) @ g', None)}


def job_ma_inputs(args):
    import netCDF4
    nc, h5 = args
    rng = np.random.default_rng(44)

    def holes(shape, p):
        return rng.random(shape) < p
    with netCDF4.Dataset(nc, 'w') as fo:
        for d, n in MA_DIMS.items():
            fo.createDimension(d, n)
        def var(name, t, dims, x, **attrs):
            v = fo.createVariable(name, t, dims, fill_value=attrs.pop('fill', None))
            v.set_auto_maskandscale(False)
            v[:] = x
            v.setncatts(attrs)
        f = rng.standard_normal((3, 37, 150))
        f[holes(f.shape, 0.3)] = -999
        f[0, 5] = -999
        f[1, 7, ::2] = -999
        var('f', 'f8', ('s', 'n', 'k'), f, fill=-999.0)
        g = rng.standard_normal((150, 29))
        g[holes(g.shape, 0.3)] = 1e30
        g[:, 3] = 1e30
        g[:, 4] = np.where(np.arange(150) % 2, 1e30, g[:, 4])
        var('g', 'f8', ('k', 'm'), g, missing_value=1e30)
        var('r', 'f4', ('k', 'm'), rng.uniform(-3, 3, (150, 29)).astype('f4'),
            valid_range=np.array([-2, 2], 'f4'))
        p = rng.integers(-30000, 30000, (150, 37), dtype='i2')
        p[holes(p.shape, 0.2)] = -32767
        var('p', 'i2', ('k', 'n'), p, fill=np.int16(-32767), scale_factor=np.float32(0.01),
            add_offset=np.float32(1.5))
        for name in 'uv':
            x = rng.standard_normal(150)
            x[holes(150, 0.4)] = -1.0
            var(name, 'f8', ('k',), x, fill=-1.0)
        t = rng.standard_normal((3000, 6))
        t[holes(t.shape, 0.5)] = -999
        var('t', 'f8', ('l', 'c'), t, fill=-999.0)
    with h5py.File(h5, 'w') as fo:
        fo['h'] = rng.standard_normal((150, 29))
        for name in ('cu', 'cv'):   # complex, NaN missing (mask-nan)
            x = rng.standard_normal((4, 50)) + 1j * rng.standard_normal((4, 50))
            x[holes(x.shape, 0.5)] = np.nan
            fo[name] = x
        fo['cu'][2] = fo['cv'][3] = np.nan
        fo['e_left'], fo['e_right'] = np.zeros((3, 0)), np.zeros((0, 4))


def job_ma_recipe(args):
    nc, h5, out = args
    lines = ['steps:']
    for cid, uf, a, b, opts in MA_CASES[2:]:
        src = lambda x: f'{h5}:/{x}' if x in ('h', 'e_left', 'e_right') else f'{nc}:/{x}'
        lines += [f'  - ufunc: {uf}', f"    in: ['{src(a)}', '{src(b)}']", f'    out: {out}:/{cid}']
        lines += [f'    {k}: {_yaml(v)}' for k, v in opts.items()]
    lines += ['inputs:', f'  f: {nc}:/f', f'  g: {nc}:/g']
    lines[1:1] = [f'  - expr: {text}\n    out: {out}:/{cid}' for cid, (text, _) in MA_EXPRS.items()]
    print('\n'.join(lines))


def ma_dot(uf, a, b, opts):
    """np.ma.dot(a, b) for each loop index of UF's contraction (axes= as
    numpy_result takes them), conj(a) first for vecdot and vecmat."""
    core, _ = _core_axes(uf, (a.shape, b.shape), opts)
    x, y = _moved(a, core[0]), _moved(b, core[1])
    if uf in ('vecdot', 'vecmat'):
        x = np.ma.conjugate(x)
    nx, ny = (1 if uf in ('vecdot', 'vecmat') or x.ndim == 1 else 2), \
        (1 if uf in ('vecdot', 'matvec') or y.ndim == 1 else 2)
    loop = np.broadcast_shapes(x.shape[:x.ndim - nx], y.shape[:y.ndim - ny])
    x = np.ma.array(np.broadcast_to(x.data, loop + x.shape[x.ndim - nx:]),
                    mask=np.broadcast_to(np.ma.getmaskarray(x), loop + x.shape[x.ndim - nx:]))
    y = np.ma.array(np.broadcast_to(y.data, loop + y.shape[y.ndim - ny:]),
                    mask=np.broadcast_to(np.ma.getmaskarray(y), loop + y.shape[y.ndim - ny:]))
    r = [np.ma.dot(x[i], y[i], strict=False) for i in np.ndindex(loop)]
    r = np.ma.array([np.ma.getdata(z) for z in r], mask=[np.ma.getmaskarray(z) for z in r])
    r = r.reshape(loop + r.shape[1:])
    out, move = core[2], lambda z: np.moveaxis(z, list(range(-len(core[2]), 0)), core[2])
    return np.ma.array(move(r.data), mask=move(np.ma.getmaskarray(r))) if out else r


def _ma_check_one(cid, uf, a, b, opts, got, fill):
    """GOT (netCDF4-python's masked reading) is np.ma.dot's: the same mask,
    the values (within the bound, of the filled operands) where unmasked,
    the fill where masked."""
    want = ma_dot(uf, a, b, opts)
    mask, wmask = np.ma.getmaskarray(got), np.ma.getmaskarray(want)
    if got.shape != want.shape or not np.array_equal(mask, wmask):
        raise ref.Failure(f"{cid}: masked {mask.sum()} of {got.shape}, np.ma.dot {wmask.sum()} of {want.shape}")
    data = np.where(mask, np.ma.getdata(want), np.ma.getdata(got))
    check_values(cid, uf, np.ma.filled(a, 0), np.ma.filled(b, 0), opts, data.astype(got.dtype))
    if not np.all(np.ma.getdata(got)[mask] == fill):
        raise ref.Failure(f"{cid}: masked elements not its _FillValue {fill}")
    return wmask.sum()


def job_ma_check(args):
    """Each case against np.ma.dot on netCDF4-python's reading of the
    operands; every output's _FillValue its first operand's where that
    declares one and is read (decoded) in the output's dtype, else the
    default of its dtype: the rule of every other step (numpy.ma's a @ b
    keeps a's fill_value too), read back by xarray as NaN where
    netCDF4-python masks it."""
    import netCDF4
    import xarray as xr
    nc, h5, out = args
    opts_of = {cid: {k: v for k, v in o.items() if k != 'missing'} for cid, _, _, _, o in MA_CASES}
    masked = 0
    with netCDF4.Dataset(nc) as fi, h5py.File(h5, 'r') as hi, netCDF4.Dataset(out) as fo:
        read = lambda x: np.ma.array(hi[x][()]) if x in hi else fi[x][:]
        cases = [(cid, uf, read(a), read(b), opts_of[cid]) for cid, uf, a, b, _ in MA_CASES]
        f, g = read('f'), read('g')
        cases.append(('masked_in', 'matmul', f * 2, g, {}))
        # the cases hold what they are for: a row all missing, and a result
        # whose every product has a missing factor though neither its row
        # nor its column is all missing
        call = fo['call'][:]
        if not (f.mask[0, 5].all() and call.mask[0, 5].all() and call.mask[1, 7, 4] and
                not f.mask[1, 7].all() and not g.mask[:, 4].all()):
            raise ref.Failure("call: the row all missing, or f[1, 7] @ g[:, 4], not as meant")
        first = {cid: a for cid, _, a, _, _ in MA_CASES}
        first.update(masked_in='f', sqrt='f')

        def want_fill(cid, dtype):
            x = fi.variables.get(first[cid])
            if x is not None and '_FillValue' in x.ncattrs() and x[:].dtype == dtype:
                return x.getncattr('_FillValue')
            return netCDF4.default_fillvals[dtype.str[1:]]
        for cid, uf, a, b, opts in cases:
            v = fo[cid]
            fill = v.getncattr('_FillValue')
            if fill != want_fill(cid, v.dtype):
                raise ref.Failure(f"{cid}: _FillValue {fill}, not {want_fill(cid, v.dtype)} (its first operand's or the default)")
            masked += _ma_check_one(cid, uf, a, b, opts, v[:], fill)
        want, got = np.ma.sqrt(ma_dot('matmul', f, g, {})), fo['sqrt'][:]
        if not np.array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want)) or \
                not np.allclose(got.compressed(), want.compressed(), rtol=1e-12, atol=1e-12):
            raise ref.Failure("sqrt: not np.ma.sqrt(np.ma.dot(f, g))")
        if fo['sqrt'].getncattr('_FillValue') != want_fill('sqrt', fo['sqrt'].dtype):
            raise ref.Failure("sqrt: _FillValue not f's")
        if len({fo[cid].getncattr('_FillValue') for cid in first}) < 3:
            raise ref.Failure("the cases' fills do not tell the rule from the default")
    if masked < 200:
        raise ref.Failure(f"only {masked} results masked: the cases test too little")
    with xr.open_dataset(out) as x, netCDF4.Dataset(out) as fo:
        for name in x.data_vars:
            got = fo[name][:]
            if not np.array_equal(x[name].values, got.filled(np.nan), equal_nan=True) or \
                    not np.array_equal(np.isnan(x[name].values), np.ma.getmaskarray(got)):
                raise ref.Failure(f"xarray reads {name} otherwise")


def job_ma_complex(args):
    h5, out = args
    with h5py.File(h5, 'r') as hi, h5py.File(out, 'r') as fo:
        u, v = (np.ma.masked_invalid(hi[n][()]) for n in ('cu', 'cv'))
        for uf, a, b, opts in [('vecdot', u, v, {}), ('vecmat', u[0], v, {'axes': [[0], [1, 0], [0]]})]:
            got, fill = fo[uf][()], complex(netCDF4_default('c16'))
            _ma_check_one(uf, uf, a, b, opts, np.ma.masked_equal(got, fill), fill)
            if not np.ma.getmaskarray(ma_dot(uf, a, b, opts)).any():
                raise ref.Failure(f"{uf}: nothing masked: the case tests too little")


# fill: on a product, as on every other step: what its masked results hold
# and its _FillValue, over the first operand's (f's -999) and the default.
MA_FILLS = {'step': ('matmul', 'f', 'g', lambda x: x), 'call': ('matmul', 'f', 'g', lambda x: x),
            'epilogue': ('matmul', 'f', 'g', lambda x: x * 2), 'eval': ('matmul', 'f', 'g', lambda x: x * 2),
            'computed': ('matmul', 'f2', 'g', lambda x: x),
            'vecdot': ('vecdot', 'f', 'v', lambda x: x)}


def job_ma_fill(args):
    """fill OUT VALUE: each of MA_FILLS's datasets in OUT is np.ma.dot's
    (through its epilogue) with VALUE where it is masked and as its
    _FillValue; some results are masked."""
    import netCDF4
    nc, out, value = args
    value = float(value)
    with netCDF4.Dataset(nc) as fi, netCDF4.Dataset(out) as fo:
        ops = {name: fi[name][:] for name in ('f', 'g', 'v')}
        ops['f2'] = ops['f'] * 2
        for cid, (uf, a, b, then) in MA_FILLS.items():
            v = fo[cid]
            if v.getncattr('_FillValue') != value:
                raise ref.Failure(f"{cid}: _FillValue {v.getncattr('_FillValue')}, not the fill: {value}")
            want, got = then(ma_dot(uf, ops[a], ops[b], {})), v[:]
            mask = np.ma.getmaskarray(got)
            if not mask.any() or not np.array_equal(mask, np.ma.getmaskarray(want)):
                raise ref.Failure(f"{cid}: masked {mask.sum()}, np.ma {np.ma.getmaskarray(want).sum()}")
            v.set_auto_mask(False)
            if not np.all(v[:][mask] == value):
                raise ref.Failure(f"{cid}: masked results not {value}")
            if not np.allclose(got.compressed(), want.compressed(), rtol=1e-12, atol=1e-12):
                raise ref.Failure(f"{cid}: values not np.ma.dot's")


def netCDF4_default(code):
    import netCDF4
    return netCDF4.default_fillvals['f8' if code == 'c16' else code]


# ---- jobs ----

def job_inputs(args):
    with h5py.File(args[0], 'w') as f:
        for name, x in _inputs().items():
            f[name] = x


def _yaml(v):
    return str(v).replace("'", '')


def job_recipe(args):
    src, out = args
    lines = ['inputs:'] + [f'  {n}: {src}:/{n}' for n in sorted(_inputs())] + ['steps:']
    for cid, uf, an, bn, opts in CASES:
        lines += [f'  - ufunc: {uf}', f'    in: [{an}, {bn}]', f'    out: {out}:/{cid}']
        lines += [f'    {k}: {_yaml(v)}' for k, v in opts.items()]
    print('\n'.join(lines))


def job_check(args):
    src, out = args
    bad = []
    with h5py.File(src, 'r') as inp, h5py.File(out, 'r') as f:
        for case in CASES:
            try:
                check_case(case, inp, f[case[0]][()])
            except ref.Failure as exc:
                bad.append(str(exc))
            except KeyError:
                bad.append(f"{case[0]}: not written")
    if bad:
        raise ref.Failure("\n  ".join([f"{len(bad)} of {len(CASES)} cases wrong:"] + bad))


def job_same(args):
    bad = [p for other in args[1:] for p in ref.same_datasets(args[0], other)]
    if bad:
        raise ref.Failure("\n".join(bad))


def job_ids(args):
    print('\n'.join(c[0] for c in CASES))


def job_raises(args):
    """raises FILE A B [axes=LIST] [axis=N] [dtype=T] -- MESSAGE: NumPy's
    np.matmul(A, B, ...) on FILE's datasets A and B (a number: a Python
    scalar) raises MESSAGE."""
    k = args.index('--')
    words, message = args[:k], ' '.join(args[k + 1:])
    with h5py.File(words[0], 'r') as f:
        ops = [f[w][()] if w in f else ast.literal_eval(w) for w in words[1:3]]
    kw = {}
    for w in words[3:]:
        key, value = w.split('=', 1)
        kw[key] = np.dtype(value) if key == 'dtype' else ast.literal_eval(value)
    if 'axes' in kw:
        kw['axes'] = [tuple(a) if isinstance(a, list) else a for a in kw['axes']]
    try:
        np.matmul(*ops, **kw)
    except Exception as exc:
        if str(exc) != message:
            raise ref.Failure(f"NumPy raises {exc!s}, not {message!r}")
        return
    raise ref.Failure(f"NumPy does not raise for {' '.join(words)}")


JOBS = {'inputs': job_inputs, 'recipe': job_recipe, 'check': job_check, 'same': job_same,
        'ids': job_ids, 'raises': job_raises, 'coord_inputs': job_coord_inputs,
        'coord_recipe': job_coord_recipe, 'coord_check': job_coord_check,
        'appendable': job_appendable, 'cf_inputs': job_cf_inputs,
        'cf_recipe': job_cf_recipe, 'cf_check': job_cf_check, 'ma_inputs': job_ma_inputs,
        'ma_recipe': job_ma_recipe, 'ma_check': job_ma_check, 'ma_complex': job_ma_complex,
        'ma_fill': job_ma_fill}

if __name__ == '__main__':
    ref.main(JOBS, "gufunc_ref.py")
