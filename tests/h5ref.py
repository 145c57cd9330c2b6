"""h5ref.py - what the reference scripts of h5ufunc's tests share.

tests/np.py and every tests/*_ref.py import it (`import h5ref as ref`; a
script's own directory is on Python's path, and helper.bash puts tests/ on
PYTHONPATH for the scripts written inside .bats files).  It holds:

  - NumPy 2's model of the ufuncs' names: canonical names and aliases,
    arity, identity, the transcendental functions of SPEC 3.4, and
    numpy2(), which switches Debian's NumPy 1.24 to NumPy 2's weak
    literals (NEP 50);
  - reading what h5ufunc names: FILE:/PATH[slices] in native byte order,
    number literals (and NumPy 2's conversion of the Python ints beyond
    int64 among a ufunc's inputs), every dataset of a file, attribute
    values as text;
  - the one comparison of arrays (compare_arrays): dtype and shape exact,
    values bit for bit (NaNs equal), or within N units in the last place
    (ulps), or within an absolute tolerance per element; and
    same_datasets, two files' datasets byte for byte;
  - element bits as integers and hexadecimal (bits_of, hexes, from_bits);
  - SPEC 1's text form of a result (fmt_scalar, fmt_array, fmt_results);
  - the values fixtures are made of (fill_values, sweep_values);
  - the job runner: JOB [:: JOB]... or one job per line of stdin, with
    exit status 0 (every check held), 1 (a check failed: Failure or an
    assert) or 2 (a malformed job: Usage).

What it is not: the reference of any one family (each script is that), nor
a second implementation of h5ufunc: nothing here looks at h5ufunc's output
to decide what is right.

The tests rely on Python's asserts, so it refuses to run with them off
(PYTHONOPTIMIZE or -O; tests/run and helper.bash clear PYTHONOPTIMIZE).
"""

import os
import re
import shlex
import sys
import warnings

import numpy as np

if not __debug__:
    sys.exit("h5ref: Python's asserts are off (PYTHONOPTIMIZE or -O), and the "
             "tests' checks would pass unseen")


class Failure(Exception):
    """A check that did not hold."""


class Usage(Exception):
    """A malformed job."""


def numpy2():
    """Debian's NumPy 1.24 with NumPy 2's weak literals (NEP 50: `int8 + 2`
    is int8, `int8 + 300` raises, `int32 * 2.5` is float64), and without
    its floating-point warnings (the references compute through
    overflows and NaNs on purpose)."""
    np._set_promotion_state('weak')
    warnings.simplefilter('ignore')
    np.seterr(all='ignore')


# ------------------------------------------------------- NumPy 2's ufuncs

DTYPES = ['bool', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32',
          'int64', 'uint64', 'float16', 'float32', 'float64']

ALIASES = {
    'abs': 'absolute', 'acos': 'arccos', 'acosh': 'arccosh', 'asin': 'arcsin',
    'asinh': 'arcsinh', 'atan': 'arctan', 'atan2': 'arctan2',
    'atanh': 'arctanh', 'bitwise_invert': 'invert', 'bitwise_not': 'invert',
    'bitwise_left_shift': 'left_shift', 'bitwise_right_shift': 'right_shift',
    'conj': 'conjugate', 'true_divide': 'divide', 'mod': 'remainder',
    'pow': 'power',
}

# SPEC 3.4: these stay within 4 ULP of NumPy (power and float_power on
# floats only; see transcendental()).
TRANSCENDENTAL = {
    'exp', 'exp2', 'expm1', 'log', 'log2', 'log10', 'log1p', 'sin', 'cos',
    'tan', 'arcsin', 'arccos', 'arctan', 'arctan2', 'sinh', 'cosh', 'tanh',
    'arcsinh', 'arccosh', 'arctanh', 'cbrt', 'hypot', 'logaddexp',
    'logaddexp2', 'power', 'float_power',
}
MAX_ULP = 4
# SPEC 3.4: the sign of a zero these return for a tie of +0 and -0 is free.
ZERO_SIGN_FREE = {'maximum', 'minimum', 'fmax', 'fmin'}


def transcendental(name, dtype):
    """Whether ufunc NAME computing in DTYPE is held to MAX_ULP, not bits."""
    return ALIASES.get(name, name) in TRANSCENDENTAL and np.dtype(dtype).kind in 'fc'


def _numpy_ufuncs():
    found = {}
    for attr in dir(np):
        uf = getattr(np, attr)
        if isinstance(uf, np.ufunc) and uf.signature is None:
            name = ALIASES.get(uf.__name__, uf.__name__)
            if name not in ('matmul', 'isnat'):
                found[name] = uf
    return found


NUMPY_UFUNCS = _numpy_ufuncs()
UFUNC_NAMES = sorted(set(NUMPY_UFUNCS) | {'bitwise_count'})


def canonical(name):
    canon = ALIASES.get(name, name)
    if canon not in UFUNC_NAMES:
        raise Usage(f"unknown ufunc {name!r}")
    return canon


def ufunc_arity(name):
    if name == 'bitwise_count':
        return 1, 1
    uf = NUMPY_UFUNCS[name]
    return uf.nin, uf.nout


def ufunc_identity(name):
    if name == 'bitwise_count':
        return 'None'
    return str(NUMPY_UFUNCS[name].identity)


# -------------------------------------------------------------- reading

def split_ref(ref):
    """FILE:/PATH[sel] -> (file, path, selection text or None)."""
    i = ref.find(':/')
    if i <= 0:
        raise Usage(f"not a FILE:/PATH reference: {ref!r}")
    fname, path = ref[:i], ref[i + 1:]
    sel = None
    m = re.fullmatch(r'(.*?)\[(.*)\]', path)
    if m:
        path, sel = m.group(1), m.group(2)
    return fname, path, sel


def parse_selection(text):
    items = []
    for part in text.split(','):
        part = part.strip()
        if ':' in part:
            bits = [int(b) if b.strip() else None for b in part.split(':')]
            items.append(slice(*bits))
        else:
            items.append(int(part))
    return tuple(items)


def native(a):
    """A in native byte order (h5py keeps a dataset's own)."""
    a = np.asarray(a)
    if a.dtype.fields is None and a.dtype.byteorder not in ('=', '|'):
        a = a.astype(a.dtype.newbyteorder('='))
    return a


def read_ref(ref):
    """The dataset FILE:/PATH[sel] as an array in native byte order."""
    import h5py
    fname, path, sel = split_ref(ref)
    if not os.path.exists(fname):
        raise Failure(f"{ref}: no file {fname!r}")
    with h5py.File(fname, 'r') as f:
        if path not in f:
            raise Failure(f"{ref}: no dataset {path!r} in {fname!r}")
        obj = f[path]
        if not isinstance(obj, h5py.Dataset):
            raise Failure(f"{ref}: {path!r} is not a dataset")
        a = obj[()]
    a = native(a)
    if sel is not None:
        a = np.asarray(a[parse_selection(sel)])
    return a


def parse_literal(text):
    """A number literal as h5ufunc reads it, as the Python value NumPy 2
    sees (Python int/float are weak; true/false are NumPy bools), or None.
    An integer stays a Python int whatever its size, as in NumPy 2 (NEP 50):
    a float array takes one beyond 64 bits, an integer array refuses it."""
    if text in ('true', 'True'):
        return np.bool_(True)
    if text in ('false', 'False'):
        return np.bool_(False)
    if re.fullmatch(r'[+-]?\d+', text):
        return int(text)
    low = text.lower()
    if re.fullmatch(r'[+-]?(inf|infinity|nan)', low):
        return float(low)
    if re.fullmatch(r'[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?', text):
        return float(text)
    return None


def numpy2_python_ints(ufunc, args, dtype=None):
    """ARGS of np.UFUNC (several inputs) with NumPy 2's handling of a Python
    int that np.asarray would not make int64 (2**63 and up, below -2**63):
    it promotes as the default int64 (NumPy 2's zero_pyint_like_arr), and
    is then converted to the loop's dtype, which raises NumPy 2's
    OverflowError where that does not hold it: `np.add(2**63, 1)` picks the
    int64 loop and refuses 2**63 (beyond 64 bits: its C long message), where
    NumPy 1.24 raises its own message;
    `np.add(2**63, 1.5)` is float64 and `np.add(uint64_array, 2**63)`
    uint64.  Such an int is returned as a 0-d array of the loop's dtype,
    the others as they are.  A unary ufunc takes np.asarray's dtype
    (uint64 for 2**63), as NumPy 2 does, and ARGS stay as they are."""
    def python_int(a):
        return isinstance(a, int) and not isinstance(a, (bool, np.generic))
    if ufunc.nin < 2 or not any(python_int(a) and not -2**63 <= a < 2**63 for a in args):
        return args
    sig = tuple(type(a) if python_int(a) or isinstance(a, float) else np.asarray(a).dtype
                for a in args) + (None,) * ufunc.nout
    kw = {} if dtype is None else {'signature': (None,) * ufunc.nin + (np.dtype(dtype),) * ufunc.nout}
    loop = ufunc.resolve_dtypes(sig, **kw)
    out = []
    for a, t in zip(args, loop):
        if python_int(a) and not -2**63 <= a < 2**63:
            if t.kind in 'iu' and not -2**63 <= a < 2**64:   # read through a C long first
                raise OverflowError("Python int too large to convert to C long")
            if t.kind in 'iu' and not np.iinfo(t).min <= a <= np.iinfo(t).max:
                raise OverflowError(f"Python integer {a} out of bounds for {t}")
            a = np.asarray(a, t)
        out.append(a)
    return out


def value(text):
    """An operand as h5ufunc reads it: a number literal or FILE:/PATH."""
    lit = parse_literal(text)
    if lit is not None:
        return lit
    if ':/' in text:
        return read_ref(text)
    raise Usage(f"not an operand: {text!r}")


def text(v):
    """An attribute value as text where it is text (h5py gives fixed-length
    strings as bytes), else as it is."""
    if isinstance(v, np.ndarray) and v.dtype.kind in 'SO' and v.size == 1:
        v = v.reshape(-1)[0]
    return v.decode() if isinstance(v, bytes) else v


def datasets(path, attrs=False):
    """{"/path": array} for every dataset of file PATH, or with ATTRS
    {"/path": (array, {name: value})}; a dimension scale's object references
    are given as the names of the objects they point to."""
    import h5py
    out = {}
    with h5py.File(path, 'r') as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                data = obj[()]
                out['/' + name] = (data, {k: _attribute(f, k, v) for k, v in obj.attrs.items()}) \
                    if attrs else data
        f.visititems(visit)
    return out


SCALE_ATTRS = ('DIMENSION_LIST', 'REFERENCE_LIST')


def _attribute(f, key, v):
    import h5py
    if key in SCALE_ATTRS:
        flat = [x for row in np.asarray(v, dtype=object).ravel()
                for x in (row if isinstance(row, (np.ndarray, tuple, np.void)) else [row])]
        return [f[x].name if isinstance(x, h5py.Reference) else repr(x) for x in flat]
    return np.asarray(v).tolist()


# ------------------------------------------------------------ comparing

def ulps(a, b):
    """How many floats of A's dtype lie between A and B, element by element
    (+0 and -0 are one number)."""
    itype = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    def ordered(x):
        i = np.ascontiguousarray(x).view(itype).astype(np.int64)
        top = np.int64(1) << (a.dtype.itemsize * 8 - 1)
        return np.where(i < 0, -(i & (top - 1)), i)
    return np.abs(ordered(a) - ordered(np.asarray(b, a.dtype)))


def worst(bad, what, x, got, want, err, limit):
    """Add to BAD the worst element of ERR (per element, ULP) when it passes
    LIMIT: its input X, GOT and WANT there."""
    if err.size and err.max() > limit:
        i = int(err.argmax())
        bad.append(f"{what}: {x[i]!r} gives {got[i]!r}, want {want[i]!r} ({float(err[i]):.2f} ULP)")


def differs(bad, what, x, got, first, where):
    """Add to BAD the first element where GOT's bits are not FIRST's (what
    WHERE, another CPU level or rank count, wrote)."""
    if got.tobytes() != first.tobytes():
        i = int(np.argmax(bits_of(got) != bits_of(first)))
        bad.append(f"{what}: {x[i]!r} gives {got[i]!r}, {where} {first[i]!r}")


def done(bad):
    """Print BAD's lines and exit 1 when there are any (an inline check's end)."""
    print("\n".join(bad))
    sys.exit(1 if bad else 0)


def bits_of(arr):
    """The elements of ARR as unsigned integers of their size (Python ints
    for the 16 bytes of a complex128; bool as 0 and 1)."""
    arr = np.ascontiguousarray(arr)
    if arr.dtype.itemsize == 16:
        halves = arr.view(np.uint64).reshape(-1, 2)
        return [int(lo) | int(hi) << 64 for lo, hi in halves]
    return arr.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[arr.dtype.itemsize])


def hexes(arr):
    """The hex of each element's little-endian bytes, as h5ufunc's unit
    programs print them (a complex: the imaginary part's bits first)."""
    width = 2 * np.dtype(arr.dtype).itemsize
    return ["%0*x" % (width, int(b)) for b in bits_of(arr)]


def from_bits(dtype, bits):
    """Elements of DTYPE from the integers of their bits."""
    dt = np.dtype(dtype)
    if dt.itemsize == 16:
        halves = [(b & (2**64 - 1), b >> 64) for b in bits]
        return np.array(halves, dtype=np.uint64).reshape(len(halves), 2).view(dt).reshape(len(halves))
    ints = np.array(bits, dtype={1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize])
    return ints.astype(bool) if dt.kind == 'b' else ints.view(dt)


def show(a, i):
    v = a[i]
    if a.dtype.kind == 'f':
        return f"{v!r} (0x{hexes(np.asarray(v).reshape(1))[0]})"
    return repr(v.item())


def compare_arrays(label, expected, actual, ulp=0, zero_sign_free=False, atol=None):
    """Raise Failure unless ACTUAL is EXPECTED: dtype and shape exact; each
    value the same bits (NaNs equal; a complex value equal), or a float
    within ULP units in the last place, or within ATOL (an array over
    EXPECTED) of it; with ZERO_SIGN_FREE a zero of either sign where NumPy
    has a zero.  Infinities only where NumPy has them."""
    if actual.dtype != expected.dtype:
        raise Failure(f"{label}: dtype {actual.dtype}, NumPy gives {expected.dtype}")
    if actual.shape != expected.shape:
        raise Failure(f"{label}: shape {actual.shape}, NumPy gives {expected.shape}")
    e = expected.reshape(-1)
    a = actual.reshape(-1)
    if e.dtype.kind in 'fc':
        good = np.isnan(e) & np.isnan(a)
        good |= (bits_equal(e, a) if e.dtype.kind == 'f' else e == a)
        finite = np.isfinite(e) & np.isfinite(a)
        if ulp > 0 and e.dtype.kind == 'f':
            good |= finite & (ulps(e, a) <= ulp)
        if zero_sign_free:
            good |= (e == 0) & (a == 0)
        if atol is not None:
            with np.errstate(all='ignore'):
                good |= finite & (np.abs(a - e) <= np.broadcast_to(atol, expected.shape).reshape(-1))
    else:
        good = e == a
    bad = np.flatnonzero(~good)
    if bad.size:
        how = f" (more than {ulp} ULP)" if ulp and atol is None else ""
        lines = [f"{label}: {bad.size} of {e.size} values differ from NumPy{how}:"]
        for k in bad[:8]:
            idx = np.unravel_index(k, expected.shape) if expected.shape else ()
            room = "" if atol is None else \
                f" (at most {np.broadcast_to(atol, expected.shape).reshape(-1)[k]!r} apart)"
            lines.append(f"  at {tuple(int(x) for x in idx)}: got {show(a, k)}, "
                         f"want {show(e, k)}{room}")
        raise Failure("\n".join(lines))


def bits_equal(a, b):
    return np.asarray(bits_of(a)) == np.asarray(bits_of(b))


def same_datasets(one, other):
    """What differs between the datasets of file ONE and file OTHER: the
    same names, and each the same dtype, shape and bytes.  A list of text."""
    first, those = datasets(one), datasets(other)
    problems = []
    if not first:
        problems.append(f"{one}: no dataset")
    if sorted(those) != sorted(first):
        problems.append(f"{other}: datasets {sorted(those)}, {one} has {sorted(first)}")
    for name in sorted(set(first) & set(those)):
        a, b = np.asarray(first[name]), np.asarray(those[name])
        if a.dtype != b.dtype or a.shape != b.shape:
            problems.append(f"{other}:{name}: {b.dtype} {b.shape}, {one} has {a.dtype} {a.shape}")
        elif a.tobytes() != b.tobytes():
            width = max(a.dtype.itemsize, 1)
            ra = np.frombuffer(a.tobytes(), np.uint8).reshape(-1, width)
            rb = np.frombuffer(b.tobytes(), np.uint8).reshape(-1, width)
            diff = np.flatnonzero((ra != rb).any(axis=1))
            k = int(diff[0])
            problems.append(f"{other}:{name}: {diff.size} of {a.size} values differ from {one}, "
                            f"first at flat index {k}: {b.reshape(-1)[k]!r} against "
                            f"{a.reshape(-1)[k]!r}")
    return problems


# ------------------------------------------------------------- printing

def fmt_scalar(dtype, v):
    """One value as SPEC 1 prints it: the shortest text that round-trips."""
    if dtype.kind == 'b':
        return 'True' if v else 'False'
    if dtype.kind in 'iu':
        return str(int(v))
    if dtype.kind == 'f':
        return str(dtype.type(v))
    if dtype.kind == 'c':
        z = complex(v)
        part = np.dtype(dtype.type(0).real.dtype)
        re_s, im_s = fmt_scalar(part, z.real), fmt_scalar(part, z.imag)
        sign = '' if im_s.startswith('-') else '+'
        return f"{re_s}{sign}{im_s}j"
    raise Usage(f"cannot format {dtype}")


def fmt_array(a, valid=None):
    """SPEC 1: a scalar; 1-D one per line; 2-D rows; more: 2-D blocks; "--"
    where the bool array VALID (default: everywhere valid) is false."""
    a = np.asarray(a)
    valid = np.broadcast_to(True if valid is None else valid, a.shape)
    f = lambda v, ok: fmt_scalar(a.dtype, v) if ok else '--'
    if a.ndim == 0:
        return f(a[()], valid[()])
    if a.ndim == 1:
        return "\n".join(f(v, ok) for v, ok in zip(a, valid))
    if a.ndim == 2:
        return "\n".join(" ".join(f(v, ok) for v, ok in zip(r, rv)) for r, rv in zip(a, valid))
    blocks = zip(a.reshape((-1,) + a.shape[-2:]), valid.reshape((-1,) + a.shape[-2:]))
    return "\n\n".join(fmt_array(b, v) for b, v in blocks)


def fmt_results(results):
    return "\n\n".join(fmt_array(r) for r in results)


# ------------------------------------------------------------- fixtures

def sweep_values(dtype):
    """Sixteen values of DTYPE that reach the edges of its range."""
    dt = np.dtype(dtype)
    if dt.kind == 'b':
        return np.array([False, True] * 8, dtype=bool)
    if dt.kind == 'i':
        info = np.iinfo(dt)
        vals = [0, 1, -1, 2, -3, 5, 7, -8, 13, 100, -100, 3,
                info.min, info.max, info.min + 1, info.max - 1]
        return np.array(vals, dtype=dt)
    if dt.kind == 'u':
        info = np.iinfo(dt)
        vals = [0, 1, 2, 3, 5, 7, 8, 13, 100, 64, 31, 200 % (info.max + 1),
                info.max, info.max - 1, (info.max >> 1) + 1, info.max >> 1]
        return np.array(vals, dtype=dt)
    info = np.finfo(dt)
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 0.75, np.nan, np.inf,
            -np.inf, float(info.max), float(info.tiny),
            float(info.smallest_subnormal), 2.5, -100.0]
    return np.array(vals, dtype=dt)


def fill_values(dt, shape, fill, rng, lo=None, hi=None):
    """SHAPE values of dtype DT: fill zeros, ones, range, special (sweep:
    the edges of the dtype, repeated), pos (positive) or random (LO to HI,
    default about -100 to 100, normal for floats)."""
    n = int(np.prod(shape)) if shape else 1
    if fill == 'zeros':
        return np.zeros(shape, dt)
    if fill == 'ones':
        return np.ones(shape, dt)
    if fill == 'range':
        base = np.arange(n)
        if dt.kind == 'b':
            base = base % 2
        return base.astype(dt).reshape(shape)
    if fill in ('special', 'sweep'):
        return np.resize(sweep_values(dt), n).reshape(shape)
    if fill == 'pos':
        if dt.kind == 'b':
            return np.ones(shape, dt)
        if dt.kind in 'iu':
            return rng.integers(1, 50, size=shape).astype(dt)
        return rng.uniform(0.5, 10.0, size=shape).astype(dt)
    if fill != 'random':
        raise Usage(f"unknown fill {fill!r}")
    if dt.kind == 'b':
        return rng.integers(0, 2, size=shape).astype(bool)
    if dt.kind in 'iu':
        info = np.iinfo(dt)
        low = max(info.min, -100 if lo is None else int(lo))
        high = min(info.max, (100 if dt.kind == 'i' else 200) if hi is None else int(hi))
        return rng.integers(low, high, size=shape, endpoint=True).astype(dt)
    if dt.kind == 'c' and lo is None and hi is None:
        return (rng.standard_normal(shape) * 10 + 1j * rng.standard_normal(shape) * 10).astype(dt)
    if dt.kind == 'c':   # real and imaginary parts each LO to HI
        return (rng.uniform(float(lo or 0), float(hi or 1), size=shape)
                + 1j * rng.uniform(float(lo or 0), float(hi or 1), size=shape)).astype(dt)
    if lo is not None or hi is not None:
        return rng.uniform(float(lo or 0), float(hi or 1), size=shape).astype(dt)
    return (rng.standard_normal(shape) * 10).astype(dt)


# ------------------------------------------------------------------ jobs

def split_jobs(argv):
    jobs, cur = [], []
    for a in argv:
        if a == '::':
            if cur:
                jobs.append(cur)
            cur = []
        else:
            cur.append(a)
    if cur:
        jobs.append(cur)
    return jobs


def run_jobs(argv, table, prog):
    """Run the jobs of ARGV (split at '::'), or of stdin's lines, from TABLE
    (name -> function of the job's words); messages on stderr start with
    PROG.  Returns the exit status: 0, 1 (a check failed: a Failure or an
    assert) or 2."""
    if argv:
        jobs = split_jobs(argv)
    else:
        jobs = [shlex.split(line) for line in sys.stdin.read().split("\n")
                if line.strip() and not line.lstrip().startswith('#')]
    status = 0
    for job in jobs:
        fn = table.get(job[0])
        try:
            if fn is None:
                raise Usage(f"unknown job {job[0]!r} (have {' '.join(table)})")
            fn(job[1:])
        except Failure as exc:
            print(f"{prog}: {exc}", file=sys.stderr)
            status = max(status, 1)
        except AssertionError as exc:   # a check written as an assert
            print(f"{prog}: {job[0]}: {exc}", file=sys.stderr)
            status = max(status, 1)
        except Usage as exc:
            print(f"{prog}: {' '.join(job)}: {exc}", file=sys.stderr)
            status = 2
        except (TypeError, ValueError, OverflowError, KeyError, OSError) as exc:
            print(f"{prog}: {' '.join(job)}: {type(exc).__name__}: {exc}", file=sys.stderr)
            status = max(status, 1)
    return status


def checks(job):
    """JOB, a function of a job's words that returns what it found wrong (a
    list of text), as a job of run_jobs: the list raised as one Failure."""
    def run(words):
        bad = job(*words)
        if bad:
            raise Failure("\n".join(bad))
    return run


def main(table, prog):
    """sys.exit(run_jobs(the command line's words, TABLE, PROG))."""
    sys.exit(run_jobs(sys.argv[1:], table, prog))
