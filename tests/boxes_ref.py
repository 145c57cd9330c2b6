#!/usr/bin/python3
"""boxes_ref.py - fixtures and NumPy references for 63-boxes.bats.

Jobs (JOB [:: JOB]...):
  make DIR          write DIR/in.h5 (rows wider than --memory 1M, a size-1
                    leading axis, 1-D, 0-d and empty arrays, a broadcast
                    operand larger than an eighth of 1M) and DIR/rec.yaml,
                    a recipe with every verb whose boxes matter on them
                    (elementwise, a fused expression, outer, accumulate
                    along every axis)
  check IN OUT      compare what rec.yaml wrote in OUT with NumPy on IN:
                    dtype, shape and bits
  reduced IN OUT    compare what red.yaml (reductions over leading axes, all
                    axes and trailing axes, rows wider than --memory 1M,
                    1-D, 0-d, empty)
                    wrote in OUT with NumPy on IN: dtype, shape and bits
  streamed IN OUT   compare what st.yaml (sequential reductions, streamed
                    under --memory 1M: kept and reduced axes in any order,
                    ufuncs that are not reorderable along the first and the
                    last axis, folds exact in any grouping over narrow kept
                    axes, whose reduced axes are dealt to the ranks: integer
                    add, multiply and bitwise_xor, maximum over ties and a
                    nan, minimum) wrote in OUT with NumPy on IN: dtype, shape
                    and bits
  scanned IN OUT    compare what sc.yaml (accumulates over narrow kept
                    axes: integer add and multiply wrapping around, in
                    int64 and with dtype=int32, maximum over ties and a
                    nan, bitwise_or, logical_and, a masked maximum;
                    (4, 300000, 3) along axis 1; fewer rows than ranks,
                    and none) wrote in OUT with NumPy
                    on IN (sc.h5): dtype, shape and bits; masked results
                    hold the input's _FillValue
  same A B          the datasets of A and B hold the same bits
  shares JSON N     the per_rank elements of a `--json` run of a one-input
                    call over N elements: one entry per rank, each within
                    25% of N / ranks
Exit status 0 when every check passed; what failed is printed.
"""

import json

import h5py
import numpy as np

import h5ref as ref
from h5ref import Failure

RECIPE = """\
inputs:
  w: in.h5:/w
  b1: in.h5:/b1
  g: in.h5:/g
  v: in.h5:/v
  s: in.h5:/s
  e: in.h5:/e
  i: in.h5:/i
  col: in.h5:/col
  t: in.h5:/t
  p: in.h5:/p
  q: in.h5:/q
steps:
  - {ufunc: sqrt, in: w, out: out.h5:/sqrt_w}
  - {ufunc: add, in: [w, b1], out: out.h5:/add_wb}
  - {expr: (i * 2.5 + col) // 3, out: out.h5:/expr_i}
  - {ufunc: negative, in: g, out: out.h5:/neg_g}
  - {ufunc: sqrt, in: v, out: out.h5:/sqrt_v}
  - {ufunc: multiply, in: [s, 2], out: out.h5:/mul_s}
  - {ufunc: negative, in: e, out: out.h5:/neg_e}
  - {outer: subtract, in: [p, q], out: out.h5:/outer}
  - {accumulate: add, in: w, axis: 0, out: out.h5:/acc_w0}
  - {accumulate: add, in: w, axis: 1, out: out.h5:/acc_w1}
  - {accumulate: add, in: t, axis: 0, out: out.h5:/acc_t0}
  - {accumulate: add, in: t, axis: 1, out: out.h5:/acc_t1}
  - {accumulate: add, in: t, axis: 2, out: out.h5:/acc_t2}
  - {accumulate: multiply, in: v, axis: 0, out: out.h5:/acc_v}
  - {accumulate: add, in: e, axis: 1, out: out.h5:/acc_e}
"""

REDUCTIONS = {   # name: (ufunc, input, axis)
    'sum_w': ('add', 'w', None),
    'sum_t01': ('add', 't', [0, 1]),
    'sum_t': ('add', 't', None),
    'max_t': ('maximum', 't', None),
    'sum_i': ('add', 'i', None),
    'sum_g01': ('add', 'g', [0, 1]),
    'sum_v': ('add', 'v', 0),
    'sum_s': ('add', 's', None),
    'sum_e': ('add', 'e', None),
    'sum_w1': ('add', 'w', 1),
    'sum_t12': ('add', 't', [1, 2]),
    'min_i2': ('minimum', 'i', 2),
}


STREAMS = {   # name: (ufunc, input, axis), on st.h5
    'sum_a1': ('add', 'a', 1),
    'sum_b0': ('add', 'b', 0),
    'max_b0': ('maximum', 'b', 0),
    'sum_c0': ('add', 'c', 0),
    'sum_d0': ('add', 'd', 0),
    'sub_c0': ('subtract', 'c', 0),
    'sub_c1': ('subtract', 'c', 1),
    'div_d2': ('divide', 'd', 2),
    'sub_v': ('subtract', 'v', 0),
    'sum_k0': ('add', 'k', 0),
    'sum_h13': ('add', 'h', [1, 3]),
    'max_a1': ('maximum', 'a', 1),
    'min_b0': ('minimum', 'b', 0),
    'max_z0': ('maximum', 'z', 0),
    'mul_k0': ('multiply', 'k', 0),
    'xor_k0': ('bitwise_xor', 'k', 0),
}


SCANS = {   # name: (ufunc, input, axis, dtype or None), on sc.h5
    'add_a0': ('add', 'a', 0, None),
    'add_w1': ('add', 'w', 1, 'int32'),
    'mul_m1': ('multiply', 'm', 1, 'int32'),
    'max_z0': ('maximum', 'z', 0, None),
    'or_c1': ('bitwise_or', 'c', 1, None),
    'and_b1': ('logical_and', 'b', 1, None),
    'add_t0': ('add', 't', 0, None),   # fewer rows than ranks
    'add_e1': ('add', 'e', 1, None),   # empty
}
SCAN_MASKED = ('maximum', 'x', 0)   # 'max_x0', with missing: mask
SCAN_FILL = -9999.0


def step(verb, uf, src, axis, name, **opts):
    """One recipe step, a flow mapping on one line, written to out.h5:/NAME."""
    more = ''.join(f', {k}: {v}' for k, v in opts.items() if v is not None)
    axis = 'null' if axis is None else axis
    return f'  - {{{verb}: {uf}, in: {src}, axis: {axis}{more}, out: out.h5:/{name}}}\n'


def scan_recipe():
    text = 'steps:\n'
    for name, (uf, x, axis, dt) in SCANS.items():
        text += step('accumulate', uf, f'sc.h5:/{x}', axis, name, dtype=dt)
    uf, x, axis = SCAN_MASKED
    return text + step('accumulate', uf, f'sc.h5:/{x}', axis, 'max_x0', missing='mask')


def stream_recipe():
    return 'steps:\n' + ''.join(step('reduce', uf, f'st.h5:/{x}', axis, name)
                                for name, (uf, x, axis) in STREAMS.items())


def red_recipe():
    return ('inputs: {' + ', '.join(f'{k}: in.h5:/{k}' for k in 'wtigvse') + '}\nsteps:\n'
            + ''.join(step('reduce', uf, x, axis, name) for name, (uf, x, axis) in REDUCTIONS.items()))


def make(d):
    rng = np.random.default_rng(10)
    with h5py.File(f'{d}/in.h5', 'w') as f:
        f['w'] = rng.random((2, 300000))
        f['b1'] = rng.random((1, 300000))
        f['g'] = rng.random((1, 400, 600)).astype(np.float32)
        f['v'] = 1 + rng.random(70001) * 1e-5
        f['s'] = np.float64(3.5)
        f['e'] = np.zeros((5, 0))
        f['i'] = rng.integers(-100, 100, (7, 3, 5000)).astype(np.int32)
        f['col'] = rng.random((7, 1, 1))
        f['t'] = rng.random((4, 37, 2100)).astype(np.float32)
        f['p'] = rng.random(3)
        f['q'] = rng.random(300000)
    with h5py.File(f'{d}/st.h5', 'w') as f:
        f['a'] = rng.random((4, 300000, 3))
        f['b'] = rng.random((200000, 3))
        f['c'] = 1 + rng.random((3, 400000))
        f['d'] = 1 + rng.random((2, 1, 600000))
        f['v'] = rng.random(300000)
        f['k'] = rng.integers(-1000, 1000, (300000, 2)).astype(np.int32)
        f['h'] = rng.random((5, 7, 11, 13))
        z = rng.random((60000, 3)) - 0.5   # ties at 0, a nan in a column
        z[z > 0] = 0.0
        z[40000, 1] = np.nan
        f['z'] = z
    with h5py.File(f'{d}/sc.h5', 'w') as f:
        f['a'] = rng.integers(-2**62, 2**62, (200000, 3))   # sums wrap around
        f['w'] = rng.integers(-2**30, 2**30, (3, 100000)).astype(np.int32)
        f['m'] = rng.integers(-2**30, 2**30, (3, 100000)).astype(np.int32) | 1   # odd: never 0
        # running maxima that keep rising, through ties, and a nan in a column
        rise = np.arange(200000)[:, None] / 1000
        z = np.floor(rng.random((200000, 3)) * rise)
        z[150000, 2] = np.nan
        f['z'] = z
        bits = np.left_shift(1, rng.integers(0, 8, (4, 300000, 3)))   # a few bits a column
        f['c'] = np.where(rng.random((4, 300000, 3)) < 2e-5, bits, 0).astype(np.uint8)
        f['b'] = rng.random((3, 100000)) < 0.99999
        f['t'] = rng.integers(-9, 9, (3, 2)).astype(np.int32)
        f['e'] = np.zeros((0, 3), np.int64)
        x = rng.random((200000, 3)) * rise
        x[rng.random((200000, 3)) < 0.2] = SCAN_FILL
        f.create_dataset('x', data=x).attrs['_FillValue'] = SCAN_FILL
    with open(f'{d}/sc.yaml', 'w') as f:
        f.write(scan_recipe())
    with open(f'{d}/st.yaml', 'w') as f:
        f.write(stream_recipe())
    with open(f'{d}/rec.yaml', 'w') as f:
        f.write(RECIPE)
    with open(f'{d}/red.yaml', 'w') as f:
        f.write(red_recipe())


def reduced(inp, out):
    want = {}
    with h5py.File(inp) as f:
        for name, (uf, x, axis) in REDUCTIONS.items():
            ax = None if axis is None else tuple(np.atleast_1d(axis))
            want[name] = getattr(np, uf).reduce(f[x][()], axis=ax)
    return compare(out, want, {})


def streamed(inp, out):
    want = {}
    with h5py.File(inp) as f:
        for name, (uf, x, axis) in STREAMS.items():
            want[name] = getattr(np, uf).reduce(f[x][()], axis=tuple(np.atleast_1d(axis)))
    return compare(out, want, {})


def scanned(inp, out):
    want = {}
    with h5py.File(inp) as f:
        for name, (uf, x, axis, dt) in SCANS.items():
            want[name] = getattr(np, uf).accumulate(f[x][()], axis=axis, dtype=dt)
        x = f[SCAN_MASKED[1]][()]
    miss = x == SCAN_FILL
    got = getattr(np, SCAN_MASKED[0]).accumulate(np.where(miss, -np.inf, x), axis=SCAN_MASKED[2])
    want['max_x0'] = np.where(miss, SCAN_FILL, got)
    return compare(out, want, {})


def check(inp, out):
    with h5py.File(inp) as f:
        x = {k: f[k][()] for k in f}
    want = {
        'sqrt_w': np.sqrt(x['w']),
        'add_wb': x['w'] + x['b1'],
        'expr_i': (x['i'] * 2.5 + x['col']) // 3,
        'neg_g': -x['g'],
        'sqrt_v': np.sqrt(x['v']),
        'mul_s': x['s'] * 2,
        'neg_e': -x['e'],
        'outer': np.subtract.outer(x['p'], x['q']),
        'acc_w0': np.add.accumulate(x['w'], 0),
        'acc_w1': np.add.accumulate(x['w'], 1),
        'acc_t0': np.add.accumulate(x['t'], 0),
        'acc_t1': np.add.accumulate(x['t'], 1),
        'acc_t2': np.add.accumulate(x['t'], 2),
        'acc_v': np.multiply.accumulate(x['v']),
        'acc_e': np.add.accumulate(x['e'], 1),
    }
    return compare(out, want, {})


def compare(out, want, rtols):
    """What OUT holds against WANT: dtype, shape, and bits (within the
    relative tolerance of RTOLS for the names it holds)."""
    bad = []
    for k, w in want.items():
        w = np.asarray(w)
        atol = rtols[k] * np.abs(w) if k in rtols else None
        try:
            ref.compare_arrays(f'{out}:/{k}', w, ref.read_ref(f'{out}:/{k}'), atol=atol)
        except Failure as exc:
            bad.append(str(exc))
    return bad


def shares(path, n):
    per = json.load(open(path))['per_rank']
    p = len(per)
    got = [r['elements'] for r in per]
    bad = [f'{p} ranks: rank {r} computes {e} elements, an equal share is {n / p:.0f}'
           for r, e in enumerate(got) if abs(e - n / p) > 0.25 * n / p]
    if sum(got) != n:
        bad.append(f'{p} ranks: {sum(got)} elements in all, not {n}')
    return bad


JOBS = {'make': lambda a: make(a[0]), 'check': ref.checks(check),
        'reduced': ref.checks(reduced), 'same': ref.checks(ref.same_datasets),
        'streamed': ref.checks(streamed), 'scanned': ref.checks(scanned),
        'shares': ref.checks(lambda path, n: shares(path, int(n)))}

if __name__ == '__main__':
    ref.main(JOBS, "boxes_ref.py")
