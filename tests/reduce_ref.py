#!/usr/bin/python3
"""reduce_ref.py - NumPy's reduce, accumulate and outer, the reference side of
tests 17-reduce, 18-accumulate and 19-outer.

What it is: for a list of cases written as h5ufunc command lines, it computes
what NumPy 2 gives (np.UFUNC.reduce / .accumulate / .outer on the whole
arrays, read with h5py) and compares it with the datasets or the text h5ufunc
produced; it writes the same cases as one recipe, lists the cases of the
every-ufunc-every-dtype sweep, and checks that NumPy raises a given message.
What it is not: a second implementation of h5ufunc (it never looks at
h5ufunc's output to decide what is right) nor a general comparison tool
(tests/np.py is that; this file uses tests/h5ref.py's operand reading,
formatting and comparison).

The contract is NumPy 2, the reference Debian's NumPy 1.24 with NEP 50
switched on (h5ref.numpy2).  For reduce, accumulate and outer the two agree on
everything tested here (loop choice, the upcast of bool and small integers
to int64/uint64 by add and multiply, messages).  Note that outer converts
its operands with np.asarray, so a number operand of outer is a 0-d int64,
float64 or bool array, not a weak literal (NumPy 2 does the same).

A CASE is one line "ID VERB UFUNC OPERAND... [OPTIONS]", the words after ID
being h5ufunc's command line for it (`outer UFUNC A B` stands for
`call UFUNC.outer A B`):
  ID reduce UFUNC REF [--axis N[,N...]|all] [--keepdims] [--dtype T] [--initial V]
  ID accumulate UFUNC REF [--axis N] [--dtype T]
  ID outer UFUNC A B [--dtype T]
REF is FILE:/PATH; outer's operands may also be number literals.  Blank
lines and lines starting with # are skipped.

What "equal" means (SPEC 3.4, h5ufunc(1) "What is guaranteed"):
  - integer and bool results, and every result of a ufunc that does not
    round (maximum, minimum, fmax, fmin, copysign, ...): bit for bit (NaNs
    equal; the sign of a zero that maximum/minimum/fmax/fmin return for a
    tie of +0 and -0 is free);
  - reduce with add: NumPy's bits (h5ufunc folds NumPy's pieces of 8192
    elements and chains them in NumPy's order);
  - reduce with multiply, logaddexp, logaddexp2 or hypot on floats over a
    run that NumPy folds as one (the reduced trailing axes, extent-1 axes
    aside) longer than 8192 elements: NumPy folds it element by element,
    h5ufunc chains the folds of its 8192-element pieces, so
    |got - want| <= RTOL * scale, RTOL 1e-12 for float64, 1e-5 for
    float32, 1e-2 for float16, scale |want|; infinities and NaNs where
    NumPy has them; bit for bit otherwise;
  - accumulate, and outer: NumPy's result bit for bit;
  - a transcendental ufunc (SPEC 3.4's list) on floats, each step within 4
    ULP of NumPy's: outer within 4 ULP; accumulate, each value within 4 ULP
    of NumPy's step from the value h5ufunc wrote before it (the first: the
    input's, bit for bit); reduce of arctan2, power or float_power (folded
    in index order) within the bound that 4 ULP a step gives along NumPy's
    own running values, each error carried into the next step by the
    derivative of the ufunc in its first operand (to first order).

Usage:  reduce_ref.py JOB [:: JOB]...   or one JOB per line on stdin.
Exit 0 when every job passed, 1 when a check failed (reasons on stderr),
2 on a malformed job.

Jobs:
  check CASES OUT.h5 [--exact]
      every case of the file CASES against the dataset OUT.h5:/ID: dtype
      and shape exact, values as above (--exact: bit for bit everywhere)
  text CASES DIR
      every case against the text h5ufunc printed for it, in DIR/ID.txt
      (SPEC 1's format; numbers compared as `check` compares values)
  recipe CASES OUT.h5
      print one YAML recipe with a step per case, each writing OUT.h5:/ID
      (OUT.h5:/ID_0 and OUT.h5:/ID_1 for a two-output ufunc's outer)
  recipes CASES OUT.h5 PREFIX
      the same, one recipe per ufunc, written to PREFIX-UFUNC.yaml; prints
      a line "UFUNC PREFIX-UFUNC.yaml" for each
  raises CASE-WORDS... -- MESSAGE
      NumPy raises exactly MESSAGE for the case (words without the ID)
  matrix [--axis N] VERB FILE UFUNC...
      print a case "VERB-UFUNC-DTYPE VERB UFUNC FILE:/DTYPE" for every
      listed ufunc and every dtype NumPy accepts it for (FILE:/pos_DTYPE
      for power: positive values, no negative integer powers); fails unless
      UFUNC... are exactly NumPy's binary one-output ufuncs
  refused VERB FILE UFUNC...
      print "UFUNC DTYPE" for every pair NumPy refuses (a TypeError)
  make-matrix FILE
      write FILE with /DTYPE and /pos_DTYPE, shape (7, 5), for every dtype
  same FILE FILE...
      every dataset of the first file is in each other file, with the same
      dtype, shape and bytes (h5py .tobytes()), and no other dataset is
"""

import os
import shlex

import h5py
import numpy as np

import h5ref as ref

ref.numpy2()
Failure, Usage = ref.Failure, ref.Usage
DTYPES = ref.DTYPES

# Reorderable ufuncs that NumPy folds element by element: h5ufunc folds a
# long contiguous run in pieces (CHAIN_PIECE) and chains them, so their
# float results over such runs depend on that grouping.
REGROUPED = {'multiply', 'logaddexp', 'logaddexp2', 'hypot'}
CHAIN_PIECE = 8192
RTOL = {2: 1e-2, 4: 1e-5, 8: 1e-12}
# h5ufunc(1): a transcendental ufunc is within 4 ULP of NumPy at each step.
STEP_ULP = 4


# ------------------------------------------------------------------ cases

class Case:
    """One parsed case: verb, ufunc, operands and options."""

    def __init__(self, words, ident=None):
        if len(words) < 3:
            raise Usage(f"case {' '.join(words)!r}: want VERB UFUNC OPERAND...")
        self.ident = ident
        self.verb, self.ufunc = words[0], ref.canonical(words[1])
        self.name = words[1]
        if self.verb not in ('reduce', 'accumulate', 'outer'):
            raise Usage(f"unknown verb {self.verb!r}")
        self.ops, self.axis, self.keepdims = [], None, False
        self.dtype, self.initial = None, None
        i = 2
        while i < len(words):
            w = words[i]
            if w == '--axis':
                self.axis = words[i + 1]
                i += 1
            elif w == '--keepdims':
                self.keepdims = True
            elif w == '--dtype':
                self.dtype = words[i + 1]
                i += 1
            elif w == '--initial':
                self.initial = words[i + 1]
                i += 1
            elif w.startswith('--'):
                raise Usage(f"unknown option {w!r}")
            else:
                self.ops.append(w)
            i += 1
        want = 2 if self.verb == 'outer' else 1
        if len(self.ops) != want:
            raise Usage(f"{self.verb} takes {want} operand(s), got {self.ops}")

    def label(self):
        words = [self.verb, self.name] + self.ops
        if self.axis is not None:
            words += ['--axis', self.axis]
        if self.keepdims:
            words.append('--keepdims')
        if self.dtype:
            words += ['--dtype', self.dtype]
        if self.initial is not None:
            words += ['--initial', self.initial]
        return (f"{self.ident}: " if self.ident else "") + ' '.join(words)

    def numpy_axis(self):
        if self.axis is None:
            return 0
        if self.axis == 'all':
            return None
        axes = tuple(int(a) for a in self.axis.split(','))
        return axes[0] if len(axes) == 1 and ',' not in self.axis else axes

    def ufunc_object(self):
        return np.true_divide if self.ufunc == 'divide' else getattr(np, self.ufunc)

    def compute(self):
        """NumPy 2's result (an array); raises what NumPy raises."""
        uf = self.ufunc_object()
        kw = {}
        if self.dtype:
            kw['dtype'] = np.dtype(self.dtype)
        if self.verb == 'outer':
            a, b = (ref.value(o) for o in self.ops)
            r = uf.outer(a, b, **kw)
            return tuple(np.asarray(x) for x in r) if isinstance(r, tuple) else np.asarray(r)
        x = ref.read_ref(self.ops[0])
        if self.verb == 'accumulate':
            return np.asarray(uf.accumulate(x, axis=self.numpy_axis(), **kw))
        if self.keepdims:
            kw['keepdims'] = True
        if self.initial is not None:
            kw['initial'] = ref.parse_literal(self.initial)
        axis = self.numpy_axis()
        if x.ndim == 0 and axis in (0, -1):
            # NumPy 2 keeps a special case that 1.24 lacks: reducing a 0-d
            # array along axis 0 (or -1) reduces over no axes.
            axis = ()
        return np.asarray(uf.reduce(x, axis=axis, **kw))

    def terms(self):
        """The input as float64 magnitudes, and the reduced axes."""
        x = ref.read_ref(self.ops[0])
        axis = self.numpy_axis()
        if axis is None:
            axis = tuple(range(x.ndim))
        elif isinstance(axis, int):
            axis = (axis,)
        if x.ndim == 0:
            axis = ()   # NumPy 2's 0-d special case, as in compute()
        return np.abs(x.astype(np.float64)), tuple(a % max(x.ndim, 1) for a in axis)


def read_cases(path):
    cases = []
    with open(path) as fh:
        for line in fh:
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            words = shlex.split(line)
            cases.append(Case(words[1:], words[0]))
    return cases


# ------------------------------------------------------------- comparing

def fold_axis(case, ndim):
    """The one axis a fold in index order runs along (reduce of a ufunc that
    is not reorderable, accumulate), or None for a 0-d input."""
    axis = case.numpy_axis()
    if ndim == 0:
        return None
    if isinstance(axis, tuple):
        axis = axis[0]
    return (0 if axis is None else axis) % ndim


def carry(name, a, b, r):
    """d f(a, b) / d a where r = f(a, b), for the transcendental ufuncs
    that fold in index order: how an error in the running value a carries
    into the next one."""
    if name == 'arctan2':
        return b / (a * a + b * b)
    return b * r / a   # power, float_power: b * a**(b - 1)


def fold_bound(case, want):
    """How far from NumPy a fold in index order may end when each of its
    steps is within STEP_ULP of NumPy's (h5ufunc(1)): along NumPy's own
    running values r_k, e_k = |df/da| e_(k-1) + STEP_ULP ulp(r_k), to first
    order; infinite where the derivative is."""
    x = ref.read_ref(case.ops[0])
    axis = fold_axis(case, x.ndim)
    if axis is None:
        return np.zeros(want.shape)
    seq = np.moveaxis(x, axis, 0).astype(want.dtype)
    if case.initial is not None:
        first = np.full((1,) + seq.shape[1:], ref.parse_literal(case.initial), want.dtype)
        seq = np.concatenate([first, seq])
    with np.errstate(all='ignore'):
        r = case.ufunc_object().accumulate(seq, axis=0, dtype=want.dtype)
        e = np.zeros(seq.shape[1:])
        for k in range(1, len(seq)):
            a, b, rk = (v.astype(np.float64) for v in (r[k - 1], seq[k], r[k]))
            ulp = np.spacing(np.abs(r[k])).astype(np.float64)
            e = np.abs(carry(case.ufunc, a, b, rk)) * e + STEP_ULP * ulp
    e = np.where(np.isnan(e), np.inf, e)
    return np.broadcast_to(np.expand_dims(e, axis) if case.keepdims else e, want.shape)


def chained_run(shape, axes):
    """The elements of the run h5ufunc chains in pieces for a reduction of
    SHAPE over AXES: the reduced trailing axes after the kept leading ones,
    axes of extent 1 aside (NumPy drops them); 0 when the reduced axes do
    not make such a run."""
    kept = [a for a in range(len(shape)) if a not in axes and shape[a] != 1]
    if not axes or (kept and max(kept) > min(axes)):
        return 0
    return int(np.prod([shape[a] for a in axes]))


def regrouped(case):
    """Whether CASE reduces with a REGROUPED ufunc over a run longer than
    one of NumPy's pieces."""
    if case.ufunc not in REGROUPED:
        return False
    mags, axes = case.terms()
    return chained_run(mags.shape, axes) > CHAIN_PIECE


def tolerance(case, want):
    """None for bit for bit, else how far (an array over WANT) each value
    of a reduce may be from NumPy's: h5ufunc(1), "What is guaranteed"."""
    if want.dtype.kind != 'f' or case.verb != 'reduce':
        return None
    if regrouped(case):
        rtol = RTOL[want.dtype.itemsize]
        with np.errstate(all='ignore'):
            scale = np.abs(want.astype(np.float64))
        return np.broadcast_to(rtol * scale, want.shape)
    if case.ufunc in ref.TRANSCENDENTAL:
        return fold_bound(case, want)
    return None


def outputs(case, want):
    """[(dataset name, expected array)]: ID, or ID_0 and ID_1 for the two
    results of a two-output ufunc's outer."""
    if isinstance(want, tuple):
        return [(f"{case.ident}_{k}", w) for k, w in enumerate(want)]
    return [(case.ident, want)]


def steps(case, got):
    """What each step of an accumulate gives by NumPy from the value h5ufunc
    wrote before it (the first: the input's first value)."""
    x = ref.read_ref(case.ops[0])
    axis = fold_axis(case, x.ndim)
    seq = np.moveaxis(x, axis, 0).astype(got.dtype)
    g = np.moveaxis(got, axis, 0)
    want = np.empty_like(g)
    want[:1] = seq[:1]
    with np.errstate(all='ignore'):
        want[1:] = case.ufunc_object()(g[:-1], seq[1:], dtype=got.dtype)
    return np.moveaxis(want, 0, axis)


def stepwise(case, want):
    """Whether CASE is held to STEP_ULP at each step: a transcendental
    outer or accumulate of floats."""
    return (want.dtype.kind == 'f' and case.ufunc in ref.TRANSCENDENTAL
            and case.verb in ('outer', 'accumulate'))


def compare(case, want, got, exact=False):
    label = case.label()
    if not exact and stepwise(case, want):
        if case.verb == 'accumulate' and got.dtype == want.dtype and got.shape == want.shape:
            want, label = steps(case, got), label + " (each step from the one before)"
        ref.compare_arrays(label, want, got, STEP_ULP)
        return
    ref.compare_arrays(label, want, got, zero_sign_free=case.ufunc in ref.ZERO_SIGN_FREE,
                       atol=None if exact else tolerance(case, want))


def parse_text(text, want):
    """The numbers h5ufunc printed, shaped like WANT when the layout (lines,
    blank lines, words per line) is SPEC 1's for WANT's shape."""
    expected_layout = [len(l.split(' ')) if l else 0
                       for l in ref.fmt_array(want).split('\n')]
    lines = text.rstrip('\n').split('\n')
    layout = [len(l.split(' ')) if l else 0 for l in lines]
    if want.size == 0:
        return None if text.strip() == '' else False
    if layout != expected_layout:
        return False
    words = [w for l in lines for w in l.split(' ') if l]
    if want.dtype.kind == 'b':
        if any(w not in ('True', 'False') for w in words):
            return False
        return np.array([w == 'True' for w in words]).reshape(want.shape)
    try:
        if want.dtype.kind in 'iu':
            return np.array([int(w) for w in words], want.dtype).reshape(want.shape)
        return np.array([float(w) for w in words]).astype(want.dtype).reshape(want.shape)
    except (ValueError, OverflowError):
        return False


# ------------------------------------------------------------------- jobs

def job_check(args):
    if len(args) not in (2, 3) or (len(args) == 3 and args[2] != '--exact'):
        raise Usage("check CASES OUT.h5 [--exact]")
    exact = len(args) == 3
    problems = []
    cases = read_cases(args[0])
    with h5py.File(args[1], 'r') as f:
        have = {name: ref.native(f[name][()]) for name in f
                if isinstance(f[name], h5py.Dataset)}
    for c in cases:
        try:
            for name, want in outputs(c, c.compute()):
                if name not in have:
                    raise Failure(f"{c.label()}: {args[1]} has no dataset /{name}")
                compare(c, want, np.asarray(have[name]), exact)
        except Failure as exc:
            problems.append(str(exc))
    if problems:
        raise Failure(f"{len(problems)} of {len(cases)} cases differ from NumPy:\n"
                      + "\n".join(problems))


def job_text(args):
    if len(args) != 2:
        raise Usage("text CASES DIR")
    problems = []
    cases = read_cases(args[0])
    for c in cases:
        want = c.compute()
        path = os.path.join(args[1], f"{c.ident}.txt")
        try:
            with open(path) as fh:
                text = fh.read()
        except OSError as exc:
            problems.append(f"{c.label()}: {exc}")
            continue
        results = want if isinstance(want, tuple) else (want,)
        expected = ref.fmt_results(results)
        shown = f"--- printed\n{text}--- NumPy, as SPEC 1 prints it\n{expected}\n---"
        parts = text.rstrip('\n').split('\n\n') if len(results) > 1 else [text]
        if len(parts) != len(results):
            problems.append(f"{c.label()}: printed {len(parts)} results, not {len(results)}\n{shown}")
            continue
        for part, w in zip(parts, results):
            got = parse_text(part, w)
            if got is None:
                continue
            if got is False:
                problems.append(f"{c.label()}: printed text is not laid out as SPEC 1 says\n{shown}")
                break
            try:
                compare(c, w, got)
            except Failure as exc:
                problems.append(f"{exc}\n{shown}")
                break
        else:
            if (tolerance(c, results[0]) is None and not stepwise(c, results[0])
                    and text.rstrip('\n') != expected):
                problems.append(f"{c.label()}: values right, text not SPEC 1's form\n{shown}")
    if problems:
        raise Failure(f"{len(problems)} of {len(cases)} printed cases are wrong:\n"
                      + "\n".join(problems))


def yaml_scalar(text):
    return text if all(ch.isalnum() or ch in '._-:/+' for ch in text) else shlex.quote(text)


def job_recipe(args):
    if len(args) != 2:
        raise Usage("recipe CASES OUT.h5")
    print(recipe_text(read_cases(args[0]), args[1]))


def job_recipes(args):
    if len(args) != 3:
        raise Usage("recipes CASES OUT.h5 PREFIX")
    groups = {}
    for c in read_cases(args[0]):
        groups.setdefault(c.ufunc, []).append(c)
    for name, cases in groups.items():
        path = f"{args[2]}-{name}.yaml"
        with open(path, 'w') as fh:
            fh.write(recipe_text(cases, args[1]) + "\n")
        print(name, path)


def recipe_text(cases, target):
    out = ["# written by tests/reduce_ref.py recipe", "version: 1", "steps:"]
    for c in cases:
        out.append(f"  - {c.verb}: {c.name}")
        if c.verb == 'outer':
            out.append(f"    in: [{', '.join(yaml_scalar(o) for o in c.ops)}]")
        else:
            out.append(f"    in: {yaml_scalar(c.ops[0])}")
        if c.axis is not None:
            if c.axis == 'all':
                out.append("    axis: null")
            elif ',' in c.axis:
                out.append(f"    axis: [{', '.join(c.axis.split(','))}]")
            else:
                out.append(f"    axis: {c.axis}")
        if c.keepdims:
            out.append("    keepdims: true")
        if c.dtype:
            out.append(f"    dtype: {c.dtype}")
        if c.initial is not None:
            out.append(f"    initial: {c.initial}")
        if ref.ufunc_arity(c.ufunc)[1] == 2:
            out.append(f"    out: [{target}:/{c.ident}_0, {target}:/{c.ident}_1]")
        else:
            out.append(f"    out: {target}:/{c.ident}")
    return "\n".join(out)


def job_raises(args):
    if '--' not in args:
        raise Usage("raises CASE-WORDS... -- MESSAGE")
    k = args.index('--')
    case, message = Case(args[:k]), ' '.join(args[k + 1:])
    try:
        got = case.compute()
    except Exception as exc:   # NumPy raises TypeError, ValueError, AxisError...
        if str(exc) != message:
            raise Failure(f"{case.label()}: NumPy raises {type(exc).__name__}: {exc!s}, "
                          f"not {message!r}")
        return
    raise Failure(f"{case.label()}: NumPy does not raise, it gives {got.dtype} {got.shape}")


def binary_ufuncs():
    return sorted(n for n in ref.UFUNC_NAMES if ref.ufunc_arity(n) == (2, 1))


def matrix(verb, fname, names, want_status, axis=None):
    known = binary_ufuncs()
    if sorted(names) != known:
        raise Failure(f"the ufuncs given are not NumPy's binary one-output ufuncs: "
                      f"missing {sorted(set(known) - set(names))}, "
                      f"extra {sorted(set(names) - set(known))}")
    for name in names:
        for t in DTYPES:
            src = f"pos_{t}" if name == 'power' else t
            words = [verb, name, f"{fname}:/{src}"] + (['--axis', axis] if axis else [])
            case = Case(words)
            try:
                case.compute()
                status = 0
            except TypeError:
                status = 2
            if status == want_status == 0:
                print(f"{verb}-{name}-{t} {' '.join(words)}")
            elif status == want_status == 2:
                print(f"{name} {t}")


def job_matrix(args):
    axis = None
    if args[:1] == ['--axis'] and len(args) > 1:
        axis, args = args[1], args[2:]
    if len(args) < 3:
        raise Usage("matrix [--axis N] VERB FILE UFUNC...")
    matrix(args[0], args[1], args[2:], 0, axis)


def job_refused(args):
    if len(args) < 3:
        raise Usage("refused VERB FILE UFUNC...")
    matrix(args[0], args[1], args[2:], 2)


def job_make_matrix(args):
    if len(args) != 1:
        raise Usage("make-matrix FILE")
    rng = np.random.default_rng(20261122)
    with h5py.File(args[0], 'w') as f:
        for t in DTYPES:
            dt = np.dtype(t)
            f[t] = ref.fill_values(dt, (7, 19), 'random', rng)
            f[f"pos_{t}"] = ref.fill_values(dt, (7, 19), 'pos', rng)


def job_same(args):
    if len(args) < 2:
        raise Usage("same FILE FILE...")
    problems = [p for other in args[1:] for p in ref.same_datasets(args[0], other)]
    if problems:
        raise Failure("\n".join(problems))


JOBS = {
    'check': job_check, 'text': job_text, 'recipe': job_recipe, 'recipes': job_recipes,
    'raises': job_raises, 'matrix': job_matrix, 'refused': job_refused,
    'make-matrix': job_make_matrix, 'same': job_same,
}


if __name__ == '__main__':
    ref.main(JOBS, "reduce_ref.py")
