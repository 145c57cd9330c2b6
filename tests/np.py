#!/usr/bin/python3
"""np.py - the NumPy/h5py reference side of h5ufunc's test suite.

It makes fixture files from a compact spec, computes what NumPy gives for a
ufunc call and compares it with what h5ufunc wrote or printed, checks how
datasets are stored, and checks the `history` attribute.  Every expected
value comes from NumPy itself; this file is not a second implementation of
h5ufunc and never looks at h5ufunc's output to decide what is right.

The contract is NumPy 2, the reference here is Debian's NumPy 1.24.  The
differences are encoded explicitly:
  - NEP 50 weak literals: NumPy 1.24's own NEP 50 mode is switched on
    (np._set_promotion_state('weak')), so `int8 + 2` is int8, `int8 + 300`
    raises "Python integer 300 out of bounds for int8", `int32 * 2.5` is
    float64, exactly as in NumPy 2;
  - floor/ceil/trunc of bools and integers keep their dtype (NumPy 2's
    '?->?', 'b->b', ... loops come before 'e->e');
  - bitwise_count (NumPy 2.0) is computed here: popcount of |x|, uint8;
  - comparisons of a signed with an unsigned integer whose promotion is a
    float (int64 vs uint64) are exact, as NumPy 2's 'qQ->?'/'Qq->?' loops;
  - comparisons of an integer array with a Python int out of its range are
    exact too (NumPy 2's special_integer_comparisons: `uint8 == -1` is all
    False, `int8 < 300` all True) where other ufuncs refuse the literal,
    and so are comparisons of two Python ints (NumPy 2's object loop);
  - NumPy 2's names: divide (not true_divide) is canonical, and acos, pow,
    bitwise_left_shift, bitwise_invert, ... are aliases.

Usage:  np.py JOB [:: JOB]...      or, without arguments, one JOB per line on
stdin (blank lines and lines starting with # are skipped; words are split as
a shell would).  Exit status 0 when every job passed, 1 when a check failed
(the reasons on stderr), 2 on a malformed job.

Operands (as h5ufunc takes them): FILE:/PATH (optionally with a basic slice
suffix, FILE:/PATH[0:2, ::2]), a number literal (2, -3, 2.5, 1e-3, nan, inf,
-inf, true, false), or a NAME bound by an earlier `let` in the same run.

Jobs:
  make REF DTYPE SHAPE [KEY=VALUE...]
      Create dataset REF (file created, parent groups made, an existing
      dataset replaced).  DTYPE: bool int8 uint8 int16 uint16 int32 uint32
      int64 uint64 float16 float32 float64 complex64 complex128, or one of
      the types h5ufunc rejects: string vstring vlen enum compound longdouble
      opaque array null; or `group` (SHAPE ignored).  SHAPE: 3,4 | 5 | 0 |
      3,0 | () for a scalar | - (the shape of data=).  Keys:
        fill=random|range|special|sweep|pos|zeros|ones  (default random)
        data=PYTHON-LITERAL   explicit values (nan, inf allowed)
        seed=N                (default: derived from REF)
        lo=X hi=X             range for fill=random
        order=big|little      byte order on disk (default native)
        layout=contiguous|chunked|compact   chunks=A,B   gzip=N
        attr:NAME=VALUE       a dataset attribute (number or string)
  attr FILE[:/PATH] [--fixed] NAME=VALUE...
      set attributes (root when no path); numbers as numbers, text as h5py's
      variable-length string, or with --fixed as a fixed-length string (as
      NCO writes `history`)
  let NAME[,NAME2] UFUNC OPERAND... [--dtype T] [--casting C]
      compute with NumPy and keep the result(s) for later jobs
  check UFUNC OPERAND... -o OUT[,OUT2] [--dtype T] [--casting C] [--ulp N]
        [--into]
      compute and compare with the dataset(s) OUT: dtype and shape exact;
      values exact (all NaNs equal), or within N ULP (default 4 for SPEC
      3.4's transcendental functions on floats, 0 otherwise).  --into: OUT
      is an existing dataset written in place, so the result is first cast
      to its dtype under the casting rule, as NumPy's out= does.
  compare OPERAND FILE:/PATH [--ulp N]
      compare a value (a let NAME, a dataset, a literal) with a dataset
  printed UFUNC OPERAND... [--dtype T] [--casting C] [--ulp N] [--text FILE]
  printed OPERAND [--text FILE]
      compare text printed by h5ufunc (stdin, or FILE) with the value
      formatted as SPEC 1 says
  raises UFUNC OPERAND... [--dtype T] [--casting C] -- MESSAGE
      NumPy 2 raises exactly MESSAGE for the call
  same REF REF...         every dataset equal to the first: dtype, shape, bytes
  stored REF DTYPE [SHAPE]   the dataset's HDF5 type is the one h5py writes
                          for DTYPE in native order (bool: enum FALSE=0/TRUE=1
                          on int8; float16: 16-bit IEEE), and h5py reads
                          it back as DTYPE (with SHAPE when given: 3,4 or ())
  attrs REF NAME=VALUE...    the dataset has these attribute values
  history FILE [--first TEXT] [--since EPOCH] [--rest TEXT | --rest-none]
  history FILE --none | history FILE --exact TEXT | history FILE --print
      check the root attribute `history`: first line
      "%a %b %d %H:%M:%S %Y: TEXT", its time not before EPOCH nor after now,
      followed by "\\n" + the previous history (--rest) or nothing
  ls FILE                 print "PATH DTYPE SHAPE" for every dataset, sorted
  names                   NumPy 2's ufunc names (canonical), one per line
  catalogue               "NAME NIN NOUT IDENTITY" for every ufunc
  check-catalogue [--text FILE]
      check `h5ufunc ufuncs` output (stdin): the same names in the same
      order, nin, nout and identity as NumPy (and a generalized ufunc's
      core signature, NumPy 2's), loops well formed
  sweep FAMILY            print the sweep cases of a ufunc family, one per
                          line: "ID STATUS OUTS UFUNC OPERAND..." (inputs in
                          ./in.h5, made with `sweep-inputs`)
  sweep-inputs            write ./in.h5: a_T (16,1), b_T (16,), p_T (16,)
                          for every dtype T, values chosen to hit the edges
  sweep-check CASES       compare ./out.h5 with NumPy for every case of the
                          file CASES; a case expected to fail must have
                          written nothing
  families                print "FAMILY UFUNC..." lines (every ufunc once)
"""

import math
import operator
import os
import re
import sys
import time
import zlib

import numpy as np
import h5py

import h5ref
from h5ref import (ALIASES, DTYPES, NUMPY_UFUNCS, TRANSCENDENTAL, UFUNC_NAMES,
                   ZERO_SIGN_FREE, Failure, Usage, canonical, compare_arrays, fmt_results,
                   native, parse_literal, read_ref, split_ref, ufunc_arity, ufunc_identity)

h5ref.numpy2()

TYPECHAR = {'?': 'bool', 'b': 'int8', 'B': 'uint8', 'h': 'int16', 'H': 'uint16',
            'i': 'int32', 'I': 'uint32', 'l': 'int64', 'q': 'int64',
            'L': 'uint64', 'Q': 'uint64', 'e': 'float16', 'f': 'float32',
            'd': 'float64'}
CHAR_OF = {'bool': '?', 'int8': 'b', 'uint8': 'B', 'int16': 'h', 'uint16': 'H',
           'int32': 'i', 'uint32': 'I', 'int64': 'q', 'uint64': 'Q',
           'float16': 'e', 'float32': 'f', 'float64': 'd'}

COMPARISONS = {'equal': operator.eq, 'not_equal': operator.ne,
               'less': operator.lt, 'less_equal': operator.le,
               'greater': operator.gt, 'greater_equal': operator.ge}


# NumPy 2's generalized ufuncs and their core signatures (1.24 has matmul).
GUFUNC_SIGNATURES = {'matmul': np.matmul.signature, 'vecdot': '(n),(n)->()',
                     'matvec': '(m,n),(n)->(m)', 'vecmat': '(n),(n,m)->(m)'}


NAMES = {}   # let NAME -> tuple of arrays


# ---------------------------------------------------------------- operands

def operand(text):
    if text in NAMES:
        vals = NAMES[text]
        if len(vals) != 1:
            raise Usage(f"{text} holds {len(vals)} results; use {text}.0 or {text}.1")
        return vals[0]
    m = re.fullmatch(r'(.+)\.([01])', text)
    if m and m.group(1) in NAMES:
        return NAMES[m.group(1)][int(m.group(2))]
    return h5ref.value(text)


# ------------------------------------------------------- NumPy 2 semantics

def is_weak(x):
    return isinstance(x, (int, float)) and not isinstance(x, (bool, np.generic))


def strong_dtype(x):
    return None if is_weak(x) else np.asarray(x).dtype


def alone_default(x):
    """A weak literal called alone takes its default dtype (NumPy 2)."""
    if isinstance(x, int):
        return np.asarray(x, np.int64)
    if isinstance(x, float):
        return np.asarray(x, np.float64)
    return np.asarray(x)


def np2_call(name, args, dtype=None, casting='same_kind'):
    """np.NAME(*args, dtype=dtype, casting=casting) as NumPy 2 computes it;
    returns a tuple of arrays.  Raises what NumPy raises."""
    canon = canonical(name)
    nin, _ = ufunc_arity(canon)
    if len(args) != nin:
        raise TypeError(f"ufunc '{canon}' takes {nin} inputs, got {len(args)}")
    dt = None if dtype is None else np.dtype(dtype)
    f = np.true_divide if canon == 'divide' else getattr(np, canon, None)   # not bitwise_count
    if f is not None and canon not in COMPARISONS:   # comparisons: below
        args = h5ref.numpy2_python_ints(f, args, dt)
    if all(is_weak(a) for a in args) and any(isinstance(a, int) and not -2**63 <= a < 2**64
                                             for a in args):
        args = [alone_default(a) for a in args]   # NumPy 2's OverflowError, not 1.24's object
    if canon == 'bitwise_count':
        return (np2_bitwise_count(args[0], dt),)
    if canon in ('floor', 'ceil', 'trunc'):
        x = alone_default(args[0])
        if x.dtype.kind in 'biu' and (dt is None or dt.kind in 'biu'):
            target = dt if dt is not None else x.dtype
            if not np.can_cast(x.dtype, target, casting):
                raise TypeError(f"Cannot cast ufunc '{canon}' input from "
                                f"{x.dtype} to {target} with casting rule "
                                f"'{casting}'")
            return (x.astype(target),)
    if canon in COMPARISONS and dt is None and any(
            is_weak(a) and isinstance(a, int) for a in args):
        k = 0 if is_weak(args[0]) and isinstance(args[0], int) else 1
        other = strong_dtype(args[1 - k]) if not is_weak(args[1 - k]) else np.dtype(np.int64)
        both = all(is_weak(a) and isinstance(a, int) for a in args)   # NumPy 2: the object loop
        if (both and not all(-2**63 <= a < 2**63 for a in args)) or (
                other.kind in 'iu' and not (np.iinfo(other).min <= args[k] <= np.iinfo(other).max)):
            a = np.asarray(args[0]).astype(object)
            b = np.asarray(args[1]).astype(object)
            r = COMPARISONS[canon](a, b)
            return (np.asarray(r, dtype=bool).reshape(np.broadcast_shapes(a.shape, b.shape)),)
    if canon in COMPARISONS and dt is None:
        da, db = strong_dtype(args[0]), strong_dtype(args[1])
        if (da is not None and db is not None and da.kind in 'iu'
                and db.kind in 'iu' and da.kind != db.kind
                and np.result_type(da, db).kind == 'f'):
            a = np.asarray(args[0]).astype(object)
            b = np.asarray(args[1]).astype(object)
            r = COMPARISONS[canon](a, b)
            return (np.asarray(r, dtype=bool).reshape(np.broadcast_shapes(a.shape, b.shape)),)
    kw = {'casting': casting}
    if dt is not None:
        kw['dtype'] = dt
    r = f(*args, **kw)
    res = r if isinstance(r, tuple) else (r,)
    return tuple(np.asarray(x) for x in res)


def np2_bitwise_count(x, dt):
    if dt is not None and dt != np.uint8:
        raise Usage("bitwise_count with dtype= is not modelled")
    if is_weak(x):
        if isinstance(x, float):
            raise TypeError("ufunc 'bitwise_count' not supported for the input types")
        x = np.asarray(x, np.int64)
    x = np.asarray(x)
    if x.dtype.kind == 'b':
        x = x.astype(np.int8)
    if x.dtype.kind not in 'iu':
        raise TypeError("ufunc 'bitwise_count' not supported for the input types")
    counts = [bin(abs(int(v))).count('1') for v in x.ravel()]
    return np.array(counts, dtype=np.uint8).reshape(x.shape)


def default_ulp(name, result):
    canon = ALIASES.get(name, name)
    if canon in TRANSCENDENTAL and result.dtype.kind == 'f':
        return 4
    return 0


# ------------------------------------------------------------- printing

def compare_text(label, results, text, ulp, zero_sign_free=False):
    """Raise Failure unless TEXT is RESULTS as SPEC 1 prints them: the same
    layout, each value the same text, or (ULP > 0) a float within ULP, or
    (ZERO_SIGN_FREE) a zero of either sign where NumPy has a zero."""
    want = fmt_results(results).rstrip("\n")
    got = text.rstrip("\n")
    if got == want:
        return
    ok = ulp > 0 or zero_sign_free
    gl, wl = got.split("\n"), want.split("\n")
    ok = ok and len(gl) == len(wl)
    dtype = results[0].dtype
    zeros = {'0.0', '-0.0'}
    for g, w in zip(gl, wl) if ok else ():
        gt, wt = g.split(" "), w.split(" ")
        if len(gt) != len(wt):
            ok = False
            break
        for gv, wv in zip(gt, wt):
            if gv == wv or (zero_sign_free and gv in zeros and wv in zeros):
                continue
            try:
                if ulp <= 0 or dtype.kind != 'f':
                    raise Failure(label)
                ga = np.array([float(gv)]).astype(dtype)
                wa = np.array([float(wv)]).astype(dtype)
                compare_arrays(label, wa, ga, ulp)
            except (ValueError, Failure):
                ok = False
                break
        if not ok:
            break
    if ok:
        return
    raise Failure(f"{label}: printed text differs from NumPy's value\n"
                  f"--- printed\n{got}\n--- expected\n{want}\n---")


# ----------------------------------------------------------------- making

SPECIAL_TYPES = {'string', 'vstring', 'vlen', 'enum', 'compound',
                 'longdouble', 'opaque', 'array', 'null'}


def parse_shape(text):
    text = text.strip()
    if text in ('()', 'scalar'):
        return ()
    if text == '-':
        return None
    return tuple(int(x) for x in re.split(r'[,x]', text) if x != '')


def power_exponents(dtype):
    """Exponents for `power`: non-negative for integer dtypes (a negative
    integer power is an error, tested on its own)."""
    dt = np.dtype(dtype)
    if dt.kind in 'iu':
        return np.array([0, 1, 2, 3, 5, 7, 8, 13, 0, 1, 2, 3, 4, 6, 9, 15], dtype=dt)
    return h5ref.sweep_values(dt)


def eval_data(text):
    env = {'__builtins__': {}, 'nan': math.nan, 'inf': math.inf,
           'True': True, 'False': False}
    return eval(text, env, {})


def special_data(kind, shape):
    n = int(np.prod(shape)) if shape else 1
    if kind == 'string':
        return np.resize(np.array([b'abc', b'de', b'f'], dtype='S4'), n).reshape(shape)
    if kind == 'vstring':
        arr = np.empty(n, dtype=h5py.string_dtype())
        arr[:] = [f"s{i}" for i in range(n)]
        return arr.reshape(shape)
    if kind == 'vlen':
        arr = np.empty(n, dtype=h5py.vlen_dtype(np.int32))
        for i in range(n):
            arr[i] = np.arange(i % 3 + 1, dtype=np.int32)
        return arr.reshape(shape)
    if kind == 'enum':
        dt = h5py.enum_dtype({'RED': 0, 'GREEN': 1, 'BLUE': 2}, basetype='u1')
        return (np.arange(n) % 3).astype(dt).reshape(shape)
    if kind == 'compound':
        dt = np.dtype([('x', '<i4'), ('y', '<f8')])
        arr = np.zeros(n, dt)
        arr['x'] = np.arange(n)
        arr['y'] = np.arange(n) / 2
        return arr.reshape(shape)
    if kind == 'longdouble':
        return np.arange(n, dtype=np.longdouble).reshape(shape)
    if kind == 'opaque':
        return np.zeros(n, dtype='V4').reshape(shape)
    raise Usage(f"unknown type {kind!r}")


def attr_value(text):
    lit = parse_literal(text)
    if lit is None:
        return text
    if isinstance(lit, np.bool_):
        return lit
    return lit


def job_make(args):
    if len(args) < 2:
        raise Usage("make REF DTYPE [SHAPE] [KEY=VALUE...]")
    ref, kind = args[0], args[1]
    fname, path, _ = split_ref(ref)
    rest = args[2:]
    shape = ()
    if rest and '=' not in rest[0]:
        shape = parse_shape(rest[0])
        rest = rest[1:]
    opts, attrs = {}, {}
    for item in rest:
        key, eq, value = item.partition('=')
        if not eq:
            raise Usage(f"make: expected KEY=VALUE, got {item!r}")
        if key.startswith('attr:'):
            attrs[key[5:]] = attr_value(value)
        else:
            opts[key] = value
    known = {'fill', 'data', 'seed', 'lo', 'hi', 'order', 'layout', 'chunks', 'gzip'}
    for key in opts:
        if key not in known:
            raise Usage(f"make: unknown key {key!r}")
    with h5py.File(fname, 'a') as f:
        if kind == 'group':
            f.require_group(path)
            return
        if path in f:
            del f[path]
        kw = {}
        if kind == 'null':
            f.create_dataset(path, data=h5py.Empty('f8'))
            return
        if kind == 'array':
            f.create_dataset(path, shape=shape if shape is not None else (3,),
                             dtype=np.dtype(('<i4', (2,))))
            return
        if kind in SPECIAL_TYPES:
            data = special_data(kind, shape if shape is not None else (3,))
        else:
            dt = np.dtype(kind)
            if 'data' in opts:
                data = np.asarray(eval_data(opts['data']))
                data = data.astype(dt) if data.dtype != object else np.array(data, dt)
                if shape is not None:
                    data = data.reshape(shape)
            else:
                if shape is None:
                    raise Usage("make: SHAPE '-' needs data=")
                seed = int(opts['seed']) if 'seed' in opts else zlib.crc32(ref.encode())
                rng = np.random.default_rng(seed)
                data = h5ref.fill_values(dt, shape, opts.get('fill', 'random'), rng,
                                       opts.get('lo'), opts.get('hi'))
                data = np.asarray(data, dt)
            order = opts.get('order')
            if order == 'big':
                data = data.astype(data.dtype.newbyteorder('>'))
            elif order == 'little':
                data = data.astype(data.dtype.newbyteorder('<'))
            elif order is not None:
                raise Usage(f"make: order must be big or little, not {order!r}")
        layout = opts.get('layout')
        if 'chunks' in opts:
            kw['chunks'] = tuple(int(x) for x in opts['chunks'].split(','))
        elif layout == 'chunked':
            kw['chunks'] = True
        if 'gzip' in opts:
            kw['compression'] = 'gzip'
            kw['compression_opts'] = int(opts['gzip'])
        if layout == 'compact':
            dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
            dcpl.set_layout(h5py.h5d.COMPACT)
            space = h5py.h5s.create_simple(data.shape) if data.shape else h5py.h5s.create(h5py.h5s.SCALAR)
            tid = h5py.h5t.py_create(data.dtype, logical=True)
            parent = f.require_group(os.path.dirname(path) or '/')
            dsid = h5py.h5d.create(parent.id, os.path.basename(path).encode(), tid, space, dcpl=dcpl)
            dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(data))
            ds = f[path]
        else:
            ds = f.create_dataset(path, data=data, **kw)
        for k, v in attrs.items():
            ds.attrs[k] = v


def job_attr(args):
    if len(args) < 2:
        raise Usage("attr FILE[:/PATH] [--fixed] NAME=VALUE...")
    target = args[0]
    if ':/' in target:
        fname, path, _ = split_ref(target)
    else:
        fname, path = target, '/'
    items = args[1:]
    fixed = bool(items) and items[0] == '--fixed'
    if fixed:
        items = items[1:]
    with h5py.File(fname, 'a') as f:
        obj = f[path]
        for item in items:
            key, eq, value = item.partition('=')
            if not eq:
                raise Usage(f"attr: expected NAME=VALUE, got {item!r}")
            obj.attrs[key] = np.bytes_(value.encode()) if fixed else attr_value(value)


# ---------------------------------------------------------- call parsing

def parse_call(args, allow_out=True):
    """UFUNC OPERAND... [-o OUT[,OUT2]] [--dtype T] [--casting C] [--ulp N]
    [--into] [--text FILE] -> dict."""
    if not args:
        raise Usage("missing UFUNC")
    call = {'ufunc': args[0], 'ops': [], 'out': None, 'dtype': None,
            'casting': 'same_kind', 'ulp': None, 'into': False, 'text': None}
    i = 1
    only_operands = False
    while i < len(args):
        a = args[i]
        if not only_operands and a == '--':
            only_operands = True
        elif not only_operands and a in ('-o', '--out') and allow_out:
            call['out'] = args[i + 1].split(',')
            i += 1
        elif not only_operands and a == '--dtype':
            call['dtype'] = args[i + 1]
            i += 1
        elif not only_operands and a == '--casting':
            call['casting'] = args[i + 1]
            i += 1
        elif not only_operands and a == '--ulp':
            call['ulp'] = int(args[i + 1])
            i += 1
        elif not only_operands and a == '--text':
            call['text'] = args[i + 1]
            i += 1
        elif not only_operands and a == '--into':
            call['into'] = True
        else:
            call['ops'].append(a)
        i += 1
    return call


def compute(call):
    ops = [operand(o) for o in call['ops']]
    return np2_call(call['ufunc'], ops, call['dtype'], call['casting'])


def job_let(args):
    if len(args) < 2:
        raise Usage("let NAME[,NAME2] UFUNC OPERAND...")
    names = args[0].split(',')
    call = parse_call(args[1:], allow_out=False)
    results = compute(call)
    if len(names) == 1:
        NAMES[names[0]] = results
    else:
        if len(names) != len(results):
            raise Usage(f"let: {len(results)} results for {len(names)} names")
        for n, r in zip(names, results):
            NAMES[n] = (r,)


def job_check(args):
    call = parse_call(args)
    if not call['out']:
        raise Usage("check: missing -o OUT")
    results = compute(call)
    if len(results) != len(call['out']):
        raise Usage(f"check: {call['ufunc']} has {len(results)} outputs, "
                    f"-o names {len(call['out'])}")
    canon = canonical(call['ufunc'])
    for r, out in zip(results, call['out']):
        actual = read_ref(out)
        if call['into']:
            if not np.can_cast(r.dtype, actual.dtype, call['casting']):
                raise Failure(f"{out}: NumPy cannot cast {r.dtype} to "
                              f"{actual.dtype} under {call['casting']}")
            r = r.astype(actual.dtype)
        ulp = call['ulp'] if call['ulp'] is not None else default_ulp(canon, r)
        label = f"{canon}({', '.join(call['ops'])}) -> {out}"
        compare_arrays(label, r, actual, ulp, canon in ZERO_SIGN_FREE)


def job_compare(args):
    if len(args) < 2:
        raise Usage("compare OPERAND FILE:/PATH [--ulp N]")
    ulp = 0
    if len(args) == 4 and args[2] == '--ulp':
        ulp = int(args[3])
    want = operand(args[0])
    if is_weak(want):
        want = alone_default(want)
    want = np.asarray(want)
    compare_arrays(f"{args[1]} (against {args[0]})", want, read_ref(args[1]), ulp)


def job_printed(args):
    if not args:
        raise Usage("printed UFUNC OPERAND... | printed OPERAND")
    if ALIASES.get(args[0], args[0]) in UFUNC_NAMES:
        call = parse_call(args, allow_out=False)
        results = compute(call)
        canon = canonical(call['ufunc'])
        ulp = call['ulp'] if call['ulp'] is not None else default_ulp(canon, results[0])
        label = f"{canon}({', '.join(call['ops'])}) printed"
        textfile = call['text']
        zero_free = canon in ZERO_SIGN_FREE
    else:
        textfile = None
        if len(args) == 3 and args[1] == '--text':
            textfile = args[2]
        v = operand(args[0])
        results = (alone_default(v) if is_weak(v) else np.asarray(v),)
        ulp = 0
        zero_free = False
        label = f"{args[0]} printed"
    if textfile is not None:
        with open(textfile) as fh:
            text = fh.read()
    else:
        text = sys.stdin.read()
    compare_text(label, results, text, ulp, zero_free)


def job_raises(args):
    if '--' not in args:
        raise Usage("raises UFUNC OPERAND... -- MESSAGE")
    k = args.index('--')
    call, message = parse_call(args[:k], allow_out=False), ' '.join(args[k + 1:])
    try:
        got = compute(call)
    except Exception as exc:   # OverflowError, TypeError, ...
        if str(exc) != message:
            raise Failure(f"{call['ufunc']}({', '.join(call['ops'])}): NumPy raises "
                          f"{type(exc).__name__}: {exc!s}, not {message!r}")
        return
    raise Failure(f"{call['ufunc']}({', '.join(call['ops'])}): NumPy does not raise, "
                  f"it gives {got[0].dtype} {got[0]!r}")


def job_same(args):
    if len(args) < 2:
        raise Usage("same REF REF...")
    first = read_ref(args[0])
    for ref in args[1:]:
        other = read_ref(ref)
        if other.dtype != first.dtype or other.shape != first.shape:
            raise Failure(f"{ref}: {other.dtype} {other.shape}, but {args[0]} "
                          f"is {first.dtype} {first.shape}")
        if other.tobytes() != first.tobytes():
            compare_arrays(f"{ref} (against {args[0]})", first, other)
            raise Failure(f"{ref}: bytes differ from {args[0]} (NaN payloads)")


# -------------------------------------------------------------- storage

def describe_type(tid):
    cls = tid.get_class()
    names = {h5py.h5t.INTEGER: 'integer', h5py.h5t.FLOAT: 'float',
             h5py.h5t.ENUM: 'enum', h5py.h5t.COMPOUND: 'compound',
             h5py.h5t.STRING: 'string', h5py.h5t.VLEN: 'vlen',
             h5py.h5t.OPAQUE: 'opaque', h5py.h5t.ARRAY: 'array',
             h5py.h5t.BITFIELD: 'bitfield', h5py.h5t.REFERENCE: 'reference'}
    return f"{names.get(cls, cls)} of {tid.get_size()} bytes"


def job_stored(args):
    if len(args) < 2:
        raise Usage("stored REF DTYPE [SHAPE]")
    ref, want = args[0], np.dtype(args[1])
    fname, path, _ = split_ref(ref)
    with h5py.File(fname, 'r') as f:
        ds = f[path]
        tid = ds.id.get_type().copy()   # a named type closes with its file
        got_dtype, got_shape = ds.dtype, ds.shape
    problems = []
    if got_dtype != want:
        problems.append(f"h5py reads it as {got_dtype}, not {want}")
    if len(args) > 2 and got_shape != parse_shape(args[2]):
        problems.append(f"shape {got_shape}, not {parse_shape(args[2])}")
    cls = tid.get_class()
    le = h5py.h5t.ORDER_LE
    if want.kind == 'b':
        ok = cls == h5py.h5t.ENUM and tid.get_nmembers() == 2
        if ok:
            base = tid.get_super()
            members = {tid.get_member_name(i): tid.get_member_value(i) for i in range(2)}
            ok = (base.get_class() == h5py.h5t.INTEGER and base.get_size() == 1
                  and base.get_sign() == h5py.h5t.SGN_2
                  and members == {b'FALSE': 0, b'TRUE': 1})
        if not ok:
            problems.append(f"stored as {describe_type(tid)}, not h5py's bool "
                            "enum (FALSE=0, TRUE=1, int8 base)")
    elif want.kind in 'iu':
        sign = h5py.h5t.SGN_2 if want.kind == 'i' else h5py.h5t.SGN_NONE
        if not (cls == h5py.h5t.INTEGER and tid.get_size() == want.itemsize
                and tid.get_sign() == sign and tid.get_order() == le):
            problems.append(f"stored as {describe_type(tid)}, not a native "
                            f"{want.itemsize * 8}-bit {'signed' if want.kind == 'i' else 'unsigned'} integer")
    elif want.kind == 'f':
        fields = {2: (15, 10, 5, 0, 10), 4: (31, 23, 8, 0, 23), 8: (63, 52, 11, 0, 52)}
        bias = {2: 15, 4: 127, 8: 1023}
        ok = (cls == h5py.h5t.FLOAT and tid.get_size() == want.itemsize
              and tid.get_order() == le)
        if ok:
            ok = tid.get_fields() == fields[want.itemsize] and tid.get_ebias() == bias[want.itemsize]
        if not ok:
            problems.append(f"stored as {describe_type(tid)}, not a native "
                            f"IEEE {want.itemsize * 8}-bit float")
    if problems:
        raise Failure(f"{ref}: " + "; ".join(problems))


def job_attrs(args):
    if len(args) < 2:
        raise Usage("attrs REF NAME=VALUE...")
    fname, path, _ = split_ref(args[0])
    with h5py.File(fname, 'r') as f:
        attrs = {k: f[path].attrs[k] for k in f[path].attrs}
    for item in args[1:]:
        key, _, value = item.partition('=')
        if key not in attrs:
            raise Failure(f"{args[0]}: attribute {key!r} is missing (has {sorted(attrs)})")
        got = attrs[key]
        if isinstance(got, bytes):
            got = got.decode()
        want = attr_value(value)
        if isinstance(want, str):
            same = isinstance(got, str) and got == want
        else:
            same = not isinstance(got, str) and np.array_equal(np.asarray(got), np.asarray(want))
        if not same:
            raise Failure(f"{args[0]}: attribute {key} is {got!r}, not {want!r}")


HISTORY_LINE = re.compile(
    r'((?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)'
    r' \d{2} \d{2}:\d{2}:\d{2} \d{4}): (.*)')


def read_history(fname):
    with h5py.File(fname, 'r') as f:
        if 'history' not in f.attrs:
            return None
        h = f.attrs['history']
    if isinstance(h, np.ndarray):
        h = h.item() if h.shape == () else h.reshape(-1)[0]
    if isinstance(h, bytes):
        h = h.decode()
    return str(h)


def job_history(args):
    if not args:
        raise Usage("history FILE [--first TEXT] [--since EPOCH] [--rest TEXT | --rest-none] | --none | --exact TEXT")
    fname = args[0]
    opts = {}
    i = 1
    while i < len(args):
        if args[i] in ('--none', '--rest-none', '--print'):
            opts[args[i]] = True
        elif args[i] in ('--first', '--since', '--rest', '--exact'):
            opts[args[i]] = args[i + 1]
            i += 1
        else:
            raise Usage(f"history: unknown option {args[i]!r}")
        i += 1
    h = read_history(fname)
    if opts.get('--print'):
        if h is None:
            raise Failure(f"{fname}: no history attribute")
        sys.stdout.write(h)
        return
    if opts.get('--none'):
        if h is not None:
            raise Failure(f"{fname}: has a history attribute: {h!r}")
        return
    if h is None:
        raise Failure(f"{fname}: no history attribute")
    if '--exact' in opts:
        if h != opts['--exact']:
            raise Failure(f"{fname}: history is {h!r}, not {opts['--exact']!r}")
        return
    first, sep, rest = h.partition("\n")
    m = HISTORY_LINE.fullmatch(first)
    if not m:
        raise Failure(f"{fname}: history line {first!r} is not "
                      "'%a %b %d %H:%M:%S %Y: COMMAND'")
    if '--first' in opts and m.group(2) != opts['--first']:
        raise Failure(f"{fname}: history command is {m.group(2)!r}, not {opts['--first']!r}")
    if '--since' in opts:
        stamp = time.mktime(time.strptime(m.group(1), '%a %b %d %H:%M:%S %Y'))
        since = float(opts['--since'])
        if not since - 2 <= stamp <= time.time() + 2:
            raise Failure(f"{fname}: history time {m.group(1)!r} is not between "
                          f"{time.ctime(since)} and now")
    if '--rest' in opts and rest != opts['--rest']:
        raise Failure(f"{fname}: history after the new line is {rest!r}, "
                      f"not the previous history {opts['--rest']!r}")
    if opts.get('--rest-none') and rest.strip("\n") != "":
        raise Failure(f"{fname}: history has more than one line: {h!r}")


def job_ls(args):
    if len(args) != 1:
        raise Usage("ls FILE")
    out = []
    with h5py.File(args[0], 'r') as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                shape = ','.join(str(n) for n in obj.shape) if obj.shape is not None else 'null'
                out.append(f"/{name} {native(np.empty(0, obj.dtype)).dtype if obj.dtype.fields is None else 'compound'} ({shape})")
        f.visititems(visit)
    print("\n".join(sorted(out)))


def job_names(args):
    print("\n".join(UFUNC_NAMES))


def job_catalogue(args):
    for name in UFUNC_NAMES:
        nin, nout = ufunc_arity(name)
        print(f"{name} {nin} {nout} {ufunc_identity(name)}")


LOOP_RE = re.compile(r'([?bBhHiIlLqQefdFD]+)->([?bBhHiIlLqQefdFD]+)')


def job_check_catalogue(args):
    text = sys.stdin.read() if not args else open(args[1]).read()
    lines = [l for l in text.split("\n") if l != ""]
    names = [l.split(" ")[0] for l in lines]
    problems = []
    known = set(UFUNC_NAMES) | set(GUFUNC_SIGNATURES)
    missing = sorted(known - set(names))
    extra = sorted(set(names) - known)
    if missing:
        problems.append(f"missing ufuncs: {' '.join(missing)}")
    if extra:
        problems.append(f"not NumPy ufuncs (or aliases listed as names): {' '.join(extra)}")
    if names != sorted(names):
        problems.append("names are not in alphabetical order")
    if len(names) != len(set(names)):
        problems.append("a name is listed twice")
    for line in lines:
        fields = line.split(" ")
        name = fields[0]
        if name in GUFUNC_SIGNATURES:
            sig = GUFUNC_SIGNATURES[name]
            if fields[1:5] != ['2', '1', 'None', sig]:
                problems.append(f"{name}: '{' '.join(fields[1:5])}', NumPy 2 has '2 1 None {sig}'")
            fields = fields[:4] + fields[5:]
        elif name not in UFUNC_NAMES:
            continue
        if len(fields) < 5 or "" in fields:
            problems.append(f"{line!r}: want 'NAME NIN NOUT IDENTITY LOOP...' with single spaces")
            continue
        nin, nout = ufunc_arity(name) if name not in GUFUNC_SIGNATURES else (2, 1)
        if name not in GUFUNC_SIGNATURES and fields[1:4] != [str(nin), str(nout), ufunc_identity(name)]:
            problems.append(f"{name}: '{' '.join(fields[1:4])}', NumPy has "
                            f"'{nin} {nout} {ufunc_identity(name)}'")
        for loop in fields[4:]:
            m = LOOP_RE.fullmatch(loop)
            if not m or len(m.group(1)) != nin or len(m.group(2)) != nout:
                problems.append(f"{name}: malformed loop {loop!r}")
    if problems:
        raise Failure("h5ufunc ufuncs:\n  " + "\n  ".join(problems))


# ---------------------------------------------------------------- sweep

FAMILIES = {
    'arith': ['add', 'subtract', 'multiply', 'divide', 'floor_divide',
              'remainder', 'fmod', 'divmod', 'power', 'float_power',
              'negative', 'positive', 'absolute', 'fabs', 'reciprocal',
              'square', 'sign', 'conjugate'],
    'compare': ['equal', 'not_equal', 'less', 'less_equal', 'greater',
                'greater_equal', 'maximum', 'minimum', 'fmax', 'fmin'],
    'logic': ['logical_and', 'logical_or', 'logical_xor', 'logical_not'],
    'bits': ['bitwise_and', 'bitwise_or', 'bitwise_xor', 'invert',
             'left_shift', 'right_shift', 'bitwise_count', 'gcd', 'lcm'],
    'explog': ['exp', 'exp2', 'expm1', 'log', 'log2', 'log10', 'log1p',
               'logaddexp', 'logaddexp2', 'sqrt', 'cbrt'],
    'trig': ['sin', 'cos', 'tan', 'arcsin', 'arccos', 'arctan', 'arctan2',
             'sinh', 'cosh', 'tanh', 'arcsinh', 'arccosh', 'arctanh',
             'hypot', 'deg2rad', 'rad2deg', 'degrees', 'radians'],
    'round': ['floor', 'ceil', 'trunc', 'rint'],
    'float': ['isnan', 'isinf', 'isfinite', 'signbit', 'copysign',
              'nextafter', 'spacing', 'ldexp', 'frexp', 'modf', 'heaviside'],
}


def families():
    fams = {k: [n for n in v if n in UFUNC_NAMES] for k, v in FAMILIES.items()}
    listed = {n for v in fams.values() for n in v}
    fams['other'] = [n for n in UFUNC_NAMES if n not in listed]
    return fams


# Mixed-dtype pairs tried for every binary ufunc, besides its loops.
MIXED_PAIRS = [('int8', 'uint8'), ('uint64', 'int64'), ('bool', 'float32'),
               ('int16', 'float16'), ('float16', 'float64'), ('uint32', 'int8')]


def numpy_loop_inputs(name):
    """Input dtype tuples of NumPy 2's loops of NAME (our dtypes only)."""
    if name == 'bitwise_count':
        return [(TYPECHAR[c],) for c in 'bBhHiIqQ']
    seen = []
    for t in NUMPY_UFUNCS[name].types:
        ins, outs = t.split('->')
        if all(c in TYPECHAR for c in ins + outs):
            key = tuple(TYPECHAR[c] for c in ins)
            if key not in seen:
                seen.append(key)
    if name in COMPARISONS:
        seen += [('int64', 'uint64'), ('uint64', 'int64')]
    return seen


def sweep_cases(family):
    fams = families()
    if family not in fams:
        raise Usage(f"unknown family {family!r} (have {' '.join(fams)})")
    cases = []
    for name in fams[family]:
        nin, nout = ufunc_arity(name)
        combos = []
        if nin == 1:
            combos = [(t,) for t in DTYPES]
        else:
            combos = [(t, t) for t in DTYPES]
            for c in numpy_loop_inputs(name) + MIXED_PAIRS:
                if c not in combos:
                    combos.append(c)
        for combo in combos:
            cid = '_'.join((name,) + combo)
            if nin == 1:
                ops = [f"in.h5:/a_{combo[0]}"]
            else:
                second = 'p' if name == 'power' else 'b'
                ops = [f"in.h5:/a_{combo[0]}", f"in.h5:/{second}_{combo[1]}"]
            outs = ','.join(f"out.h5:/{cid}" + (f"_{k}" if nout > 1 else '')
                            for k in range(nout))
            cases.append((cid, name, ops, outs))
    return cases


def expected_status(name, ops):
    try:
        np2_call(name, [read_ref(o) for o in ops])
    except (TypeError, OverflowError):
        return 2
    except ValueError:
        return 1
    return 0


def job_sweep_inputs(args):
    with h5py.File('in.h5', 'w') as f:
        for t in DTYPES:
            v = h5ref.sweep_values(t)
            f.create_dataset(f"a_{t}", data=v.reshape(16, 1))
            f.create_dataset(f"b_{t}", data=v[::-1].copy())
            f.create_dataset(f"p_{t}", data=power_exponents(t))


def job_sweep(args):
    if len(args) != 1:
        raise Usage("sweep FAMILY")
    for cid, name, ops, outs in sweep_cases(args[0]):
        print(cid, expected_status(name, ops), outs, name, *ops)


def job_sweep_check(args):
    if len(args) != 1:
        raise Usage("sweep-check CASES")
    problems = []
    with open(args[0]) as fh:
        lines = [l.split() for l in fh if l.strip()]
    have = set()
    if os.path.exists('out.h5'):
        with h5py.File('out.h5', 'r') as f:
            have = set(f.keys())
    for cid, status, outs, name, *ops in lines:
        out_list = outs.split(',')
        if status != '0':
            written = [o for o in out_list if o.split(':/')[1] in have]
            if written:
                problems.append(f"{cid}: expected to fail (NumPy raises) but wrote {written}")
            continue
        missing = [o for o in out_list if o.split(':/')[1] not in have]
        if missing:
            problems.append(f"{cid}: {name}({', '.join(ops)}) wrote nothing to {missing}")
            continue
        try:
            job_check([name, *ops, '-o', outs])
        except Failure as exc:
            problems.append(str(exc))
    if problems:
        raise Failure(f"{len(problems)} of {len(lines)} cases are wrong:\n" + "\n".join(problems))
    print(f"{len(lines)} cases checked")


def job_families(args):
    for fam, names in families().items():
        print(fam, *names)


# ------------------------------------------------------------------ main

JOBS = {
    'make': job_make, 'attr': job_attr, 'let': job_let, 'check': job_check,
    'compare': job_compare, 'printed': job_printed, 'raises': job_raises, 'same': job_same,
    'stored': job_stored, 'attrs': job_attrs, 'history': job_history,
    'ls': job_ls, 'names': job_names, 'catalogue': job_catalogue,
    'check-catalogue': job_check_catalogue, 'sweep': job_sweep,
    'sweep-inputs': job_sweep_inputs, 'sweep-check': job_sweep_check,
    'families': job_families,
}


if __name__ == '__main__':
    h5ref.main(JOBS, "np.py")
