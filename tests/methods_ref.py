#!/usr/bin/python3
"""methods_ref.py - NumPy's reduceat and at, the reference side of tests
65-reduceat and 66-at.

What it is: it makes random fixtures (datasets, index arrays) and the cases
to run on them, written as one recipe with a step per case, and compares
what h5ufunc wrote with what NumPy gives for the same calls on the whole
arrays (np.UFUNC.reduceat(x, indices, axis=, dtype=), np.UFUNC.at(a,
indices, b) on the dataset as it was), bit for bit: NumPy folds each
segment of reduceat in one loop call and applies the updates of at one
after the other, and h5ufunc gives the same bits, floats included.  What it
is not: a second implementation of h5ufunc (it never looks at h5ufunc's
output to decide what is right).

NumPy 2 is the contract, Debian's NumPy 1.24 the reference, with NEP 50 on
(h5ref.numpy2).  For at, a number b is a weak scalar as in NumPy 2 (NumPy 1.24's
at made it a float64 or int64 array first): it is given to NumPy as an
array of the dtype NEP 50 gives it against the target (np.result_type), so
that NumPy picks the loop NumPy 2 picks.

Usage:  methods_ref.py JOB [:: JOB]...  (exit 0 when every job passed, 1
when a check failed, 2 on a malformed job)

Jobs:
  reduceat-cases FILE CASES OUT [SEED]
      write random inputs and index datasets into FILE, the cases into
      CASES (one JSON object a line), and print a recipe with a step per
      case writing OUT:/ID
  reduceat-check CASES FILE OUT
      every case against NumPy on FILE's data: dtype, shape, bits
  reduceat-masked FILE:/PATH INDICES AXIS UFUNC OUT:/PATH
      numpy.ma's reduce of each segment of the masked input (its
      _FillValue), in reduceat's order: np.UFUNC.reduceat of the filled
      data, masked where a segment has no valid element (OUT holds the
      fill value there)
  at-cases FILE CASES [SEED]
      write random targets, index arrays and values into FILE, the cases
      into CASES, and print a recipe with a step per case
  at-check CASES BEFORE AFTER [STEPS]
      each case's target in AFTER is NumPy's np.UFUNC.at of BEFORE's (its
      first STEPS cases only, when given); every other dataset of AFTER and
      every attribute is BEFORE's
  at-one BEFORE:/PATH AFTER:/PATH UFUNC [B] -- INDEX...
      one at call: the target in AFTER is NumPy's at of BEFORE's, INDEX
      each FILE:/PATH or a list "0,3,3"; B a number or FILE:/PATH
  raises reduceat UFUNC FILE:/PATH INDEX AXIS -- MESSAGE
  raises at UFUNC FILE:/PATH [B] -- INDEX... -- MESSAGE
      NumPy raises exactly MESSAGE for the call (INDEX as for at-one; a
      number B weak, as NEP 50 has it)
"""

import json

import h5py
import numpy as np

import h5ref as ref
from h5ref import Failure, Usage

ref.numpy2()

# (ufunc, dtypes) reduceat is tried on: every dtype NumPy reduces the
# ufunc's loops in, its float ones pairwise (add) or in float32 (float16)
REDUCEAT_UFUNCS = [
    ('add', ['bool', 'int8', 'uint16', 'int32', 'int64', 'float16', 'float32', 'float64',
             'complex64', 'complex128']),
    ('multiply', ['int16', 'uint8', 'float16', 'float32', 'float64', 'complex128']),
    ('subtract', ['int32', 'float16', 'float32', 'float64']),
    ('divide', ['int16', 'float16', 'float32', 'float64']),
    ('maximum', ['int8', 'uint64', 'float32', 'float64']),
    ('minimum', ['int16', 'float16', 'float64']),
    ('fmax', ['float32']), ('fmin', ['float64']),
    ('logical_or', ['bool', 'int32']), ('logical_and', ['float64']),
    ('bitwise_xor', ['int64', 'uint8']), ('bitwise_or', ['int16']),
    ('floor_divide', ['int32']), ('true_divide', ['float32']),
]


def values(rng, dt, shape):
    """Random values of DT: small integers, floats of mixed magnitude
    (so that the grouping of a sum shows in its last bits)."""
    dt = np.dtype(dt)
    if dt.kind == 'b':
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind in 'iu':
        info = np.iinfo(dt)
        lo, hi = max(info.min, -100), min(info.max, 100)
        v = rng.integers(lo, hi + 1, shape).astype(dt)
        return np.where(v == 0, dt.type(1), v).astype(dt)   # no division by zero
    if dt.kind == 'c':
        return (values(rng, 'float64', shape) + 1j * values(rng, 'float64', shape)).astype(dt)
    v = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)
    return v.astype(dt)


def random_indices(rng, n):
    """NumPy's rule in all its cases: increasing runs, repeats,
    backward steps, the last row alone."""
    k = int(rng.integers(1, 7))
    idx = sorted(int(i) for i in rng.integers(0, n, k))
    if rng.random() < 0.5:   # a backward step, a repeat
        idx.insert(int(rng.integers(0, len(idx) + 1)), int(rng.integers(0, n)))
    if rng.random() < 0.3:
        idx.append(n - 1)
    return idx


def load_cases(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def write_cases(path, cases):
    with open(path, 'w') as f:
        for c in cases:
            f.write(json.dumps(c) + "\n")


# ------------------------------------------------------------ reduceat

# Cases along a named axis with a coordinate: (id, axis, selection along
# it, what names the axis).  The result's axis keeps the name, with the
# coordinate at the segments' starts (dtype and attributes kept) and CF
# bounds that span each segment's cells; an axis named by a dimension
# without a variable takes the segments' starts (int64).
COORD_CASES = [
    ('coord_days', 0, '', 'coordinate'),
    ('coord_every_other', 1, '3:110:2', 'coordinate'),
    ('coord_sliced', 0, '10:115:3', 'coordinate'),
    ('coord_none', 1, '', 'dimension'),
]
DIMENSION_ONLY = "This is a netCDF dimension but not a netCDF variable %10d"


def coord_fixture(f, rng, ident, axis, select, named_by):
    """x_IDENT (3 x 120, the 120 along AXIS) named (lat3, t_IDENT): t_IDENT
    an increasing time coordinate with CF attributes and time bounds, or a
    dimension without a variable."""
    n = 120
    if 'lat3' not in f:
        f['lat3'] = np.array([-30.0, 0.0, 30.0])
        f['lat3'].make_scale('lat3')
        f['nv'] = np.zeros(2, np.float32)
        f['nv'].make_scale(DIMENSION_ONLY % 2)
    x = f.create_dataset(f"x_{ident}", data=values(rng, 'float64', (n, 3) if axis == 0 else (3, n)))
    name = f"t_{ident}"
    if named_by == 'dimension':
        f[name] = np.zeros(n, np.float32)
        f[name].make_scale(DIMENSION_ONLY % n)
    else:
        edges = np.cumsum(rng.uniform(0.5, 2.0, n + 1))
        t = f.create_dataset(name, data=(edges[:-1] + edges[1:]) / 2)
        t.make_scale(name)
        for key, v in (('units', 'days since 2000-01-01'), ('calendar', 'noleap'),
                       ('long_name', 'time'), ('bounds', f"{name}_bnds")):
            t.attrs[key] = np.bytes_(v)
        b = f.create_dataset(f"{name}_bnds", data=np.stack([edges[:-1], edges[1:]], axis=1))
        b.dims[0].attach_scale(t)
        b.dims[1].attach_scale(f['nv'])
    x.dims[axis].attach_scale(f[name])
    x.dims[1 - axis].attach_scale(f['lat3'])
    extent = len(range(n)[ref.parse_selection(select)[0]]) if select else n
    return {'id': ident, 'ufunc': 'add', 'input': f"x_{ident}", 'axis': axis,
            'select': (':,' if axis else '') + select if select else '',
            'indices': random_indices(rng, extent), 'coord': name, 'named_by': named_by}


def along(c):
    """The selection of a case's input (all of it when it has none)."""
    return ref.parse_selection(c['select']) if c.get('select') else ()


def reduceat_expected(f, c):
    x = f[c['input']][()][along(c)]
    idx = f[c['indices']][()] if isinstance(c['indices'], str) else c['indices']
    uf = getattr(np, c['ufunc'])
    kw = {'axis': c['axis']}
    if c.get('dtype'):
        kw['dtype'] = np.dtype(c['dtype'])
    with np.errstate(all='ignore'):
        return uf.reduceat(x, np.asarray(idx, dtype=np.int64), **kw)


def job_reduceat_cases(args):
    if len(args) not in (3, 4):
        raise Usage("want FILE CASES OUT [SEED]")
    fname, cases_path, out = args[:3]
    rng = np.random.default_rng(int(args[3]) if len(args) == 4 else 65)
    cases = []
    with h5py.File(fname, 'a') as f:
        for uname, dtypes in REDUCEAT_UFUNCS:
            for dt in dtypes:
                ndim = int(rng.integers(1, 4))
                shape = tuple(int(d) for d in rng.integers(1, 9, ndim))
                axis = int(rng.integers(-ndim, ndim))
                shape = tuple(int(rng.integers(20, 300)) if i == axis % ndim else d
                              for i, d in enumerate(shape))
                ident = f"{uname}_{dt}"
                f.create_dataset(f"x_{ident}", data=values(rng, dt, shape))
                idx = random_indices(rng, shape[axis])
                case = {'id': ident, 'ufunc': uname, 'input': f"x_{ident}", 'axis': axis}
                if rng.random() < 0.5:
                    f.create_dataset(f"i_{ident}", data=np.asarray(
                        idx, dtype=rng.choice(['int32', 'int64', 'uint16', 'int8'] if
                                              max(idx) < 128 else ['int32', 'int64'])))
                    case['indices'] = f"i_{ident}"
                else:
                    case['indices'] = idx
                if uname in ('add', 'multiply') and dt in ('int8', 'float32') and rng.random() < 0.7:
                    case['dtype'] = 'float64' if dt == 'float32' else 'int16'
                cases.append(case)
        cases += [coord_fixture(f, rng, *c) for c in COORD_CASES]
    write_cases(cases_path, cases)
    print("steps:")
    for c in cases:
        ind = f"{fname}:/{c['indices']}" if isinstance(c['indices'], str) else json.dumps(c['indices'])
        sel = f"[{c['select']}]" if c.get('select') else ''
        print(f"  - reduceat: {c['ufunc']}\n    in: {fname}:/{c['input']}{sel}\n    indices: {ind}\n"
              f"    axis: {c['axis']}\n    out: {out}:/{c['id']}")
        if c.get('dtype'):
            print(f"    dtype: {c['dtype']}")


def check_coordinate(f, o, c):
    """The result's reduceat axis: named as the input's, its coordinate the
    input's at the segments' starts (dtype, attributes), its bounds each
    segment's hull; or the starts, for a dimension without a variable."""
    label = f"{c['id']}: coordinate"
    scales = o[c['id']].dims[c['axis']]
    if len(scales) != 1 or scales[0].name != '/' + c['coord']:
        raise Failure(f"{label}: the axis is named by {[s.name for s in scales]}, not /{c['coord']}")
    got, idx = scales[0], np.asarray(c['indices'])
    if c['named_by'] == 'dimension':
        ref.compare_arrays(label, idx.astype(np.int64), got[()])
        return
    sel = along(c)[c['axis']:][:1]
    want = f[c['coord']]
    ref.compare_arrays(label, want[()][sel][idx], got[()])
    for key in ('units', 'calendar', 'long_name'):
        if got.attrs[key] != want.attrs[key]:
            raise Failure(f"{label}: {key} {got.attrs[key]!r}, not {want.attrs[key]!r}")
    cells = f[want.attrs['bounds'].decode()][()][sel]
    n = len(cells)
    ends = [b if b > a + 1 else a + 1 for a, b in zip(idx, list(idx[1:]) + [n])]
    hull = np.array([[cells[a:e].min(), cells[a:e].max()] for a, e in zip(idx, ends)])
    ref.compare_arrays(f"{label} bounds", hull, o[got.attrs['bounds'].decode()][()])


def job_reduceat_check(args):
    if len(args) != 3:
        raise Usage("want CASES FILE OUT")
    cases = load_cases(args[0])
    failures = []
    with h5py.File(args[1], 'r') as f, h5py.File(args[2], 'r') as o:
        for c in cases:
            try:
                if c['id'] not in o:
                    raise Failure(f"{c['id']}: not written")
                ref.compare_arrays(c['id'], reduceat_expected(f, c), o[c['id']][()])
                if c.get('coord'):
                    check_coordinate(f, o, c)
            except Failure as exc:
                failures.append(str(exc))
    if failures:
        raise Failure("\n".join(failures))


def ma_fill(uname, dt):
    """What numpy.ma fills masked elements with in UFUNC's reduce."""
    dt = np.dtype(dt)
    if uname in ('maximum', 'minimum'):
        big = np.inf if dt.kind == 'f' else np.iinfo(dt).max
        return -big if uname == 'maximum' else big
    return getattr(np.ma, uname).filly if hasattr(getattr(np.ma, uname), 'filly') else 0


def job_reduceat_masked(args):
    if len(args) != 5:
        raise Usage("want FILE:/PATH INDICES AXIS UFUNC OUT:/PATH")
    xs, idxs, axis, uname, outs = args
    fn, path, _ = ref.split_ref(xs)
    with h5py.File(fn, 'r') as f:
        d = f[path]
        x = d[()]
        fill = d.attrs['_FillValue']
    idx = np.asarray([int(i) for i in idxs.split(',')], dtype=np.int64)
    axis = int(axis)
    mask = x == fill
    uf = getattr(np, uname)
    with np.errstate(all='ignore'):
        want = uf.reduceat(np.where(mask, x.dtype.type(ma_fill(uname, x.dtype)), x), idx, axis=axis)
    masked = np.logical_and.reduceat(mask, idx, axis=axis)
    # each unmasked segment is also numpy.ma's reduce of it, to rounding
    segs = [np.ma.masked_array(np.take(x, range(s, max(e, s + 1)), axis=axis),
                               np.take(mask, range(s, max(e, s + 1)), axis=axis))
            for s, e in zip(idx, list(idx[1:]) + [x.shape[axis]])]
    ma = np.stack([getattr(np.ma, uname).reduce(s, axis=axis) for s in segs], axis=axis)
    fo, po, _ = ref.split_ref(outs)
    with h5py.File(fo, 'r') as f:
        got = f[po][()]
        ofill = f[po].attrs['_FillValue']
    ref.compare_arrays(outs, np.where(masked, got.dtype.type(ofill), want).astype(got.dtype), got)
    close = np.isclose(np.ma.filled(ma, 0), want, rtol=1e-5) | masked
    if not close.all():
        raise Failure(f"{outs}: differs from numpy.ma's reduce of its segments")


# ------------------------------------------------------------------ at

# (ufunc, target dtype, b: None (unary), 'same' (a dataset of the target's
# dtype), another dtype, or a number)
AT_CASES = [
    ('add', 'float64', 'same'), ('add', 'float32', 'same'), ('add', 'float32', 0.1),
    ('add', 'float32', 'float64'), ('add', 'int8', 'same'), ('add', 'int8', 3),
    ('add', 'uint16', 'int32'), ('add', 'int64', 1), ('add', 'float16', 'same'),
    ('add', 'complex128', 'same'), ('subtract', 'float64', 'same'),
    ('multiply', 'float32', 'same'), ('multiply', 'int32', 'int8'),
    ('divide', 'float64', 'same'), ('divide', 'int32', 2), ('maximum', 'float64', 'same'),
    ('minimum', 'int16', 'same'), ('fmax', 'float32', 'float32'),
    ('bitwise_xor', 'uint8', 'same'), ('logical_or', 'bool', 'bool'),
    ('floor_divide', 'float64', 'same'), ('negative', 'float32', None), ('negative', 'int8', None),
    ('sqrt', 'float64', None), ('absolute', 'int16', None), ('add', 'int32', 2.5),
]


def target_values(rng, dt, shape, uname):
    v = values(rng, dt, shape)
    if uname in ('sqrt', 'power') and v.dtype.kind == 'f':
        v = np.abs(v)
    return v


def job_at_cases(args):
    if len(args) not in (2, 3):
        raise Usage("want FILE CASES [SEED]")
    fname, cases_path = args[:2]
    rng = np.random.default_rng(int(args[2]) if len(args) == 3 else 66)
    cases = []
    with h5py.File(fname, 'a') as f:
        for k, (uname, dt, b) in enumerate(AT_CASES):
            ndim = int(rng.integers(1, 4))
            shape = tuple(int(d) for d in rng.integers(1, 7, ndim))
            ident = f"c{k}_{uname}_{dt}"
            t = f.create_dataset(f"t_{ident}", data=target_values(rng, dt, shape, uname))
            t.attrs['units'] = 'm'
            t.attrs['note'] = k
            # the index space: 1-d or 2-d; repeated and negative indices
            space = (int(rng.integers(1, 200)),) if rng.random() < 0.7 else \
                (int(rng.integers(1, 15)), int(rng.integers(1, 15)))
            idx = []
            for a, n in enumerate(shape):
                ishape = space if rng.random() < 0.8 or len(space) == 1 else (1, space[1])
                v = rng.integers(-n, n, ishape)
                if rng.random() < 0.5:
                    f.create_dataset(f"i{a}_{ident}", data=v.astype(
                        rng.choice(['int8', 'int16', 'int32', 'int64', 'uint16'] if v.min() >= 0
                                   else ['int8', 'int16', 'int32', 'int64'])))
                    idx.append(f"i{a}_{ident}")
                else:
                    idx.append(v.reshape(-1).tolist() if len(ishape) == 1 else None)
                    if idx[-1] is None:   # a 2-d index is a dataset
                        f.create_dataset(f"i{a}_{ident}", data=v.astype('int64'))
                        idx[-1] = f"i{a}_{ident}"
            case = {'id': ident, 'ufunc': uname, 'target': f"t_{ident}", 'indices': idx}
            if isinstance(b, str):
                bdt = dt if b == 'same' else b
                bshape = space if rng.random() < 0.7 else space[-1:]
                f.create_dataset(f"b_{ident}", data=target_values(rng, bdt, bshape, uname))
                case['b'] = f"b_{ident}"
            elif b is not None:
                case['b'] = b
            cases.append(case)
    write_cases(cases_path, cases)
    print("steps:")
    for c in cases:
        ind = ", ".join(f"{fname}:/{i}" if isinstance(i, str) else json.dumps(i) for i in c['indices'])
        ops = [f"{fname}:/{c['target']}"]
        if 'b' in c:
            ops.append(f"{fname}:/{c['b']}" if isinstance(c['b'], str) else repr(c['b']))
        print(f"  - at: {c['ufunc']}\n    in: [{', '.join(ops)}]\n    indices: [{ind}]")


def weak(b, target_dtype):
    """A number b as NEP 50 types it against the target: a 0-d array of
    that dtype, so that NumPy 1.24 picks NumPy 2's loop."""
    return np.asarray(b, dtype=np.result_type(target_dtype, b))


def at_expected(before, c):
    a = before[c['target']][()].copy()
    idx = tuple(np.asarray(before[i][()] if isinstance(i, str) else i, dtype=np.int64)
                for i in c['indices'])
    uf = getattr(np, c['ufunc'])
    with np.errstate(all='ignore'):
        if 'b' not in c:
            uf.at(a, idx)
        else:
            b = before[c['b']][()] if isinstance(c['b'], str) else weak(c['b'], a.dtype)
            uf.at(a, idx, b)
    return a


def same_attrs(label, x, y):
    if sorted(x.attrs) != sorted(y.attrs) or any(
            not np.array_equal(np.asarray(x.attrs[k]), np.asarray(y.attrs[k])) for k in x.attrs):
        raise Failure(f"{label}: attributes changed: {dict(x.attrs)} -> {dict(y.attrs)}")


def job_at_check(args):
    if len(args) not in (3, 4):
        raise Usage("want CASES BEFORE AFTER [STEPS]")
    cases = load_cases(args[0])
    if len(args) == 4:
        cases = cases[:int(args[3])]
    failures = []
    with h5py.File(args[1], 'r') as before, h5py.File(args[2], 'r') as after:
        targets = {c['target'] for c in cases}
        for c in cases:
            try:
                ref.compare_arrays(c['id'], at_expected(before, c), after[c['target']][()])
                same_attrs(c['id'], before[c['target']], after[c['target']])
            except Failure as exc:
                failures.append(str(exc))
        for name in before:
            if name not in targets and not np.array_equal(before[name][()], after[name][()],
                                                          equal_nan=before[name].dtype.kind in 'fc'):
                failures.append(f"{name}: not a target, but changed")
    if failures:
        raise Failure("\n".join(failures))


def job_at_one(args):
    if '--' not in args:
        raise Usage("want BEFORE:/PATH AFTER:/PATH UFUNC [B] -- INDEX...")
    head, indices = args[:args.index('--')], args[args.index('--') + 1:]
    before, after, uname = head[:3]
    a = ref.read_ref(before).copy()
    idx = tuple(np.asarray(index_arg(i), dtype=np.int64) for i in indices)
    uf = getattr(np, ref.canonical(uname))
    with np.errstate(all='ignore'):
        if len(head) == 3:
            uf.at(a, idx)
        else:
            b = ref.read_ref(head[3]) if ':/' in head[3] else weak(ref.parse_literal(head[3]), a.dtype)
            uf.at(a, idx, b)
    ref.compare_arrays(after, a, ref.read_ref(after))


def index_arg(text):
    if ':/' in text:
        return ref.read_ref(text)
    if text and isinstance(ref.parse_literal(text), float):
        return ref.parse_literal(text)   # a number alone: the Python scalar NumPy indexes with
    return np.asarray([int(v) for v in text.split(',')] if text else [], dtype=np.int64)


def numpy_raises(label, fn, message):
    try:
        with np.errstate(all='ignore'):
            fn()
    except Exception as exc:   # NumPy's TypeError, ValueError, IndexError, ...
        got = str(exc).rstrip()
        if got != message:
            raise Failure(f"{label}: NumPy raises {got!r}, not {message!r}")
        return
    raise Failure(f"{label}: NumPy raises nothing")


def job_raises(args):
    if args.count('--') < 1 or len(args) < 3:
        raise Usage("want reduceat UFUNC X INDEX AXIS -- MESSAGE, or at UFUNC A [B] -- INDEX... -- MESSAGE")
    message = args[len(args) - 1 - args[::-1].index('--') + 1:]
    message = " ".join(message)
    body = args[:len(args) - 1 - args[::-1].index('--')]
    uf = getattr(np, ref.canonical(body[1]))
    if body[0] == 'reduceat':
        x, idx, axis = ref.read_ref(body[2]), index_arg(body[3]), int(body[4])
        idx = idx if idx.dtype.kind not in 'iu' else idx.astype(idx.dtype)
        numpy_raises(" ".join(body), lambda: uf.reduceat(x, idx, axis=axis), message)
        return
    head, indices = body[:body.index('--')], body[body.index('--') + 1:]
    a = ref.read_ref(head[2]).copy()
    idx = tuple(index_arg(i) for i in indices)
    if len(head) == 3:
        numpy_raises(" ".join(body), lambda: uf.at(a, idx), message)
        return
    if ':/' in head[3]:
        b = ref.read_ref(head[3])
        numpy_raises(" ".join(body), lambda: uf.at(a, idx, b), message)
        return
    # a number: NumPy 2 types it as a call does (NEP 50), then runs at
    lit = ref.parse_literal(head[3])
    numpy_raises(" ".join(body), lambda: (uf(np.zeros(1, a.dtype), lit), uf.at(a, idx, weak(lit, a.dtype))),
                 message)


JOBS = {
    'reduceat-cases': job_reduceat_cases, 'reduceat-check': job_reduceat_check,
    'reduceat-masked': job_reduceat_masked, 'at-cases': job_at_cases,
    'at-check': job_at_check, 'at-one': job_at_one, 'raises': job_raises,
}

if __name__ == '__main__':
    ref.main(JOBS, "methods_ref.py")
