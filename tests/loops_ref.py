#!/usr/bin/python3
"""loops_ref.py - NumPy's side of the type loop tests (tests/20-loops.bats).

    loops_ref.py LOOPDUMP UFUNC...     every loop of each UFUNC
    loops_ref.py LOOPDUMP --into DIR UFUNC...
                                       the same, each UFUNC's report in
                                       DIR/UFUNC.out and DIR/UFUNC.ok made
                                       where it passed (exit 0 either way)
    loops_ref.py LOOPDUMP --catalogue  the catalogue: names, arity, loops,
                                       identities, aliases

For each UFUNC it runs `LOOPDUMP UFUNC`, which prints every loop's inputs
and outputs over a grid of interesting values as hex bits (see
tests/unit/loopdump.c), computes the same with NumPy and compares: bit for
bit (all NaNs equal; a tie of +0 and -0 in maximum, minimum, fmax, fmin
may return either) except for the transcendental functions, which may be
4 ULP apart.  Complex values compare part by part by the same rules.  A
fault (an integer to a negative integer power) must be raised exactly
where NumPy raises.  Reduce lines are compared with
np.UFUNC.reduce(seq, initial=init, dtype=...), seq being the second
input's grid, its finite values (reducef) or those of magnitude 1/2 to 2
(reducem; complex: both parts at most 2, one at least 1/2).

The contract is NumPy 2; the reference is Debian's NumPy 1.24.  Where they
differ, NumPy 2's rule is encoded here:
  - floor, ceil and trunc of bools and integers return the input unchanged,
    in its dtype (NumPy 2's '?->?', 'b->b', ... loops);
  - bitwise_count (NumPy 2.0) is the number of 1-bits of |x|, as uint8;
  - int64 compared with uint64 ('qQ->?', 'Qq->?') is exact;
  - the sign of a complex z is z/|z| (0 for 0; for an infinite |z| the
    direction of the infinite part, nan when both parts are infinite);
  - a complex 0**b is 0 when real(b) > 0, whatever imag(b) (npy_cpow);
  - the catalogue has those loops, bitwise_count, NumPy 2's ReorderableNone
    for maximum, minimum, fmax, fmin, and NumPy 2's aliases.
Exit status 0 when everything matches, 1 otherwise (the differences on
stdout), 2 on a usage error.
"""
import math
import os
import subprocess
import sys

import numpy as np

import h5ref as ref

BINTS = "?bBhHiIqQ"
KEEP_INT = ("floor", "ceil", "trunc")
COMPARISONS = ("equal", "not_equal", "less", "less_equal", "greater",
               "greater_equal")
EXCLUDED = {"isnat"}
# Generalized ufuncs: in the catalogue, but loopdump lists only elementwise
# loops (tests/67-gufunc.bats tests the contraction).
GUFUNCS = {"matmul", "vecdot", "matvec", "vecmat"}
REORDERABLE_NONE = {"maximum", "minimum", "fmax", "fmin"}
# int64 and uint64 as 'l' and 'L': the characters of NumPy's own loops here.
DTYPES = {c: np.dtype({"q": "l", "Q": "L"}.get(c, c)) for c in "?bBhHiIqQefdFD"}
# the part dtype of a complex one
PART = {np.dtype(np.complex64): np.dtype(np.float32),
        np.dtype(np.complex128): np.dtype(np.float64)}


def transcendental(name, sig):
    return ref.transcendental(name, DTYPES[sig[0]])


# ---- reading loopdump ----

def from_hex(words, c):
    """Elements of dtype C from the hex of their little-endian bytes."""
    return ref.from_bits(DTYPES[c], [int(w, 16) for w in words])


def hex_of(arr, i):
    """The hex of element I of ARR, as loopdump prints it."""
    return ref.hexes(arr[i:i + 1])[0]


def parse_dump(text):
    """loopdump's output -> list of (name, sig, rows, reduces)."""
    loops = []
    cur = None
    for line in text.splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == "loop":
            cur = (w[1], w[2], [], [])
        elif w[0] == "row":
            cur[2].append(w[1:])
        elif w[0] in ("reduce", "reducef", "reducem"):
            cur[3].append(w)
        elif w[0] == "end":
            loops.append(cur)
            cur = None
    return loops


# ---- NumPy's results, with NumPy 2's rules ----

def popcount_abs(x):
    return np.array([bin(abs(int(v))).count("1") for v in x], dtype=np.uint8)


def numpy_call(name, sig, ins):
    """Expected outputs and per-element faults of loop SIG on inputs INS."""
    cin, cout = sig.split("->")
    n = len(ins[0])
    faults = np.zeros(n, dtype=bool)
    if name in KEEP_INT and cin in BINTS:
        return [ins[0].copy()], faults
    if name == "bitwise_count":
        return [popcount_abs(ins[0])], faults
    if sig in ("qQ->?", "Qq->?"):
        op = {"equal": "__eq__", "not_equal": "__ne__", "less": "__lt__",
              "less_equal": "__le__", "greater": "__gt__",
              "greater_equal": "__ge__"}[name]
        out = [getattr(int(a), op)(int(b)) for a, b in zip(*ins)]
        return [np.array(out, dtype=bool)], faults
    if name == "sign" and cin in "FD":
        return [complex_sign(ins[0])], faults
    if name == "power" and cin[1] in "bhiq":
        # NumPy raises for the whole call; element by element, these raise
        faults = ins[1] < 0
        ins = [ins[0], np.where(faults, 0, ins[1]).astype(ins[1].dtype)]
    signature = tuple(DTYPES[c] for c in cin + cout)
    with np.errstate(all="ignore"):
        res = getattr(np, name)(*ins, signature=signature)
    if not isinstance(res, tuple):
        res = (res,)
    res = list(res)
    if name in ("power", "float_power") and cin[0] in "FD":
        res[0] = complex_zero_power(ins[0], ins[1], res[0])
    return res, faults


def complex_sign(z):
    """NumPy 2's sign of complex z: z/|z|, computed in the part type."""
    part = PART[z.dtype]
    r, i = z.real.astype(part), z.imag.astype(part)
    with np.errstate(all="ignore"):
        a = np.hypot(r, i)
        out_r = r / a
        out_i = i / a
    one = part.type(1)
    nan, zero = part.type(np.nan), part.type(0)
    inf_r, inf_i = np.isinf(r), np.isinf(i)
    out_r = np.where(np.isinf(a), np.where(inf_r, np.where(inf_i, nan, np.where(r > 0, one, -one)), zero), out_r)
    out_i = np.where(np.isinf(a), np.where(inf_r, np.where(inf_i, nan, zero), np.where(i > 0, one, -one)), out_i)
    out_r = np.where(a == 0, zero, out_r)
    out_i = np.where(a == 0, zero, out_i)
    out_r = np.where(np.isnan(a), nan, out_r)
    out_i = np.where(np.isnan(a), nan, out_i)
    out = np.empty(z.shape, z.dtype)
    out.real, out.imag = out_r, out_i
    return out


def complex_zero_power(a, b, res):
    """NumPy 2's npy_cpow for a zero base: z**0 is 1 (checked first), 0**b
    is 0 when real(b) > 0, nan otherwise."""
    res = res.copy()
    zero_base = (a.real == 0) & (a.imag == 0) & ~((b.real == 0) & (b.imag == 0))
    res[zero_base & (b.real > 0)] = 0
    res[zero_base & ~(b.real > 0)] = complex(np.nan, np.nan)
    return res


def numpy_reduce(name, dt, init, seq):
    """np.UFUNC.reduce(seq, initial=init) in dtype DT: (value, fault)."""
    with np.errstate(all="ignore"):
        try:
            v = getattr(np, name).reduce(seq, initial=init, dtype=dt)
        except ValueError:
            return None, True
    return np.array([v], dtype=dt), False


# ---- comparing ----

def differs(name, sig, got, want):
    """Indices where GOT and WANT (same dtype) disagree beyond tolerance;
    complex values part by part."""
    if got.dtype.kind == "c":
        bad = set(differs(name, sig, got.real.copy(), want.real.copy()))
        bad |= set(differs(name, sig, got.imag.copy(), want.imag.copy()))
        return sorted(bad)
    bad = np.nonzero(~ref.bits_equal(got, want))[0]
    if bad.size == 0:
        return []
    out = []
    inexact = got.dtype.kind == "f"
    for i in bad:
        if inexact:
            g, w = float(got[i]), float(want[i])
            if math.isnan(g) and math.isnan(w):
                continue
            if name in ref.ZERO_SIGN_FREE and g == 0 and w == 0:
                continue
            if transcendental(name, sig) and not math.isnan(g) and not math.isnan(w):
                if ref.ulps(got[i:i + 1], want[i:i + 1])[0] <= ref.MAX_ULP:
                    continue
        out.append(i)
    return out


def check_loop(name, sig, rows, reduces, report):
    cin, cout = sig.split("->")
    nin = len(cin)
    cols = list(zip(*rows))
    ins = [from_hex(cols[k], c) for k, c in enumerate(cin)]
    gots = [from_hex(cols[nin + k], c) for k, c in enumerate(cout)]
    got_fault = np.array([int(x) for x in cols[-1]], dtype=bool)
    wants, want_fault = numpy_call(name, sig, ins)
    bad = 0

    def show(i, what):
        args = " ".join(cols[k][i] for k in range(nin))
        report(f"{name} {sig}: row {i}: inputs {args}: {what}")

    for i in np.nonzero(got_fault != want_fault)[0][:5]:
        show(i, "raised a fault" if got_fault[i] else "raised no fault, NumPy does")
        bad += 1
    ok = ~want_fault
    for k, (got, want) in enumerate(zip(gots, wants)):
        want = np.asarray(want).astype(got.dtype, copy=False)
        idx = np.nonzero(ok)[0]
        for j in differs(name, sig, got[idx], want[idx])[:5]:
            i = idx[j]
            show(i, f"output {k}: got {cols[nin + k][i]} ({got[i]!r}), "
                 f"NumPy {hex_of(want, i)} ({want[i]!r})")
            bad += 1
    if reduces and not transcendental(name, sig):
        dt = DTYPES[cin[0]]
        first = cols[0][0]
        n1 = sum(1 for x in cols[0] if x == first)
        seq = ins[1][:n1]
        subsets = {"reduce": seq}
        if dt.kind == "f":
            with np.errstate(all="ignore"):
                magnitude = np.abs(seq.astype(np.float64))
            subsets["reducef"] = seq[np.isfinite(seq)]
            subsets["reducem"] = seq[(magnitude >= 0.5) & (magnitude <= 2)]
        elif dt.kind == "c":
            with np.errstate(all="ignore"):
                re, im = np.abs(seq.real), np.abs(seq.imag)
            subsets["reducef"] = seq[np.isfinite(seq)]
            subsets["reducem"] = seq[(re <= 2) & (im <= 2) & ((re >= 0.5) | (im >= 0.5))]
        for kind, init_hex, res_hex, fault in reduces:
            init = from_hex([init_hex], cin[0])[0]
            s = subsets[kind]
            want, want_f = numpy_reduce(name, dt, init, s)
            got_f = fault == "1"
            if got_f != want_f:
                report(f"{name} {sig}: {kind} from {init_hex}: "
                       f"{'raised' if got_f else 'did not raise'} a fault")
                bad += 1
                continue
            if want_f:
                continue
            got = from_hex([res_hex], cin[0])
            if differs(name, sig, got, want):
                report(f"{name} {sig}: {kind} from {init_hex}: got {res_hex} ({got[0]!r}), "
                       f"NumPy {hex_of(want, 0)} ({want[0]!r})")
                bad += 1
    return bad


def check_ufunc(loopdump, name, say):
    """The loops of NAME against NumPy, the report given line by line to
    SAY; the number of failures."""
    proc = subprocess.run([loopdump, name], capture_output=True, text=True)
    if proc.returncode != 0:
        say(f"{name}: loopdump failed ({proc.returncode}): {proc.stderr.strip()}")
        return 1
    failed = 0
    loops = parse_dump(proc.stdout)
    if not loops:
        say(f"{name}: loopdump printed no loop")
        failed += 1
    lines = []
    for lname, sig, rows, reduces in loops:
        failed += check_loop(lname, sig, rows, reduces, lines.append)
    for line in lines[:40]:
        say(line)
    if len(lines) > 40:
        say(f"... {len(lines) - 40} more")
    if not lines:
        say(f"{name}: {len(loops)} loops agree with NumPy")
    return failed


def check_ufuncs(loopdump, names):
    return sum(check_ufunc(loopdump, name, print) for name in names)


def check_into(loopdump, directory, names):
    """Each UFUNC's report in DIRECTORY/UFUNC.out, and DIRECTORY/UFUNC.ok
    beside it where every loop agrees: one process for many tests."""
    os.makedirs(directory, exist_ok=True)
    for name in names:
        lines = []
        failed = check_ufunc(loopdump, name, lines.append)
        with open(os.path.join(directory, name + ".out"), "w") as f:
            f.write("".join(line + "\n" for line in lines))
        if not failed:
            open(os.path.join(directory, name + ".ok"), "w").close()
    return 0


# ---- the catalogue ----

def numpy_types(name, types):
    """NumPy's loop list in h5ufunc's dtypes, with NumPy 2's changes."""
    if name in KEEP_INT:
        types = [c + "->" + c for c in "?bBhHiIlLqQ"] + types
    if name in COMPARISONS:
        last = max(i for i, s in enumerate(types) if s[0] in "?bBhHiIlLqQ")
        types = types[:last + 1] + ["qQ->?", "Qq->?"] + types[last + 1:]
    out = []
    for sig in types:
        sig = sig.replace("l", "q").replace("L", "Q")
        if all(c in DTYPES or c in "->" for c in sig) and sig not in out:
            out.append(sig)
    return out


def identity_text(name, identity):
    if identity is None:
        return "none_reorderable" if name in REORDERABLE_NONE else "none"
    if isinstance(identity, (bool, np.bool_)):
        return str(bool(identity))
    if isinstance(identity, float):
        return repr(identity)
    return str(identity)


def numpy_catalogue():
    rows = {}
    for attr in dir(np):
        u = getattr(np, attr)
        if isinstance(u, np.ufunc) and u.__name__ not in EXCLUDED | GUFUNCS:
            rows[u.__name__] = (u.nin, u.nout, identity_text(u.__name__, u.identity),
                                numpy_types(u.__name__, list(u.types)))
    rows["bitwise_count"] = (1, 1, "none",
                             numpy_types("bitwise_count", [c + "->B" for c in "bBhHiIlLqQ"]))
    return rows


def expected_identity(identity_text_, c):
    """The hex identity of a ufunc in dtype character C, or 'none'."""
    dt = DTYPES[c]
    if identity_text_.startswith("none"):
        return "none"
    value = {"True": 1, "False": 0}.get(identity_text_)
    if value is None:
        value = float(identity_text_) if "inf" in identity_text_ else int(identity_text_)
    if isinstance(value, float) and dt.kind in "iu":
        return "none"       # NumPy cannot convert an infinity to an integer
    if dt.kind == "b":
        arr = np.array([value != 0])
    elif dt.kind in "iu":
        arr = ref.from_bits(dt, [value & ((1 << (8 * dt.itemsize)) - 1)])
    else:
        arr = np.array([value], dtype=dt)
    return hex_of(arr, 0)


def check_catalogue(loopdump):
    bad = []
    want = numpy_catalogue()
    listing = subprocess.run([loopdump, "--list"], capture_output=True, text=True,
                             check=True).stdout.splitlines()
    got = {}
    order = []
    for line in listing:
        w = line.split()
        order.append(w[0])
        got[w[0]] = (int(w[1]), int(w[2]), w[3], w[5:], w[4])
    if order != sorted(order):
        bad.append("the catalogue is not in alphabetical order")
    for name in sorted(set(want) | set(got)):
        if name not in got:
            bad.append(f"{name}: missing from the catalogue")
            continue
        if name not in want:
            bad.append(f"{name}: not a NumPy ufunc")
            continue
        nin, nout, ident, loops = want[name]
        gnin, gnout, gident, gloops, greorder = got[name]
        if (gnin, gnout) != (nin, nout):
            bad.append(f"{name}: nin, nout {gnin}, {gnout}; NumPy {nin}, {nout}")
        if gident != ident:
            bad.append(f"{name}: identity {gident}; NumPy {ident}")
        if greorder != ("0" if ident == "none" else "1"):
            bad.append(f"{name}: reorderable {greorder}; NumPy's identity {ident}")
        if gloops != loops:
            bad.append(f"{name}: loops {' '.join(gloops)}; NumPy {' '.join(loops)}")

    # names and aliases
    names = {}
    for attr in dir(np):
        u = getattr(np, attr)
        if isinstance(u, np.ufunc):
            names[attr] = "-" if u.__name__ in EXCLUDED else u.__name__
    names.update(ref.ALIASES)
    names.update({"bitwise_count": "bitwise_count", "nosuch": "-", "": "-", "Add": "-"})
    looked = subprocess.run([loopdump, "--lookup"] + list(names), capture_output=True,
                            text=True, check=True).stdout.splitlines()
    for attr, line in zip(names, looked):
        resolved = line.split()[-1] if line.split() else "-"
        if resolved != names[attr]:
            bad.append(f"lookup {attr!r}: {resolved}; expected {names[attr]}")

    # identity values in every dtype
    ident = subprocess.run([loopdump, "--identity"], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    by_name = {np.dtype(c).name: c for c in DTYPES}
    for line in ident:
        name, dtname, value = line.split()
        if name not in want:
            continue
        exp = expected_identity(want[name][2], by_name[dtname])
        if value != exp:
            bad.append(f"identity of {name} in {dtname}: {value}; expected {exp}")
    for line in bad:
        print(line)
    if not bad:
        print(f"catalogue: {len(got)} ufuncs agree with NumPy")
    return len(bad)


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    loopdump = argv[1]
    if argv[2] == "--catalogue":
        return 1 if check_catalogue(loopdump) else 0
    if argv[2] == "--into":
        if len(argv) < 5:
            print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
            return 2
        return check_into(loopdump, argv[3], argv[4:])
    return 1 if check_ufuncs(loopdump, argv[2:]) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
