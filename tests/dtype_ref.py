#!/usr/bin/python3
"""dtype_ref.py - NumPy's answers for the tables that build/unit/dtypecheck prints.

    dtype_ref.py SECTION          what dtypecheck SECTION must print
    dtype_ref.py SECTION-input    the input lines for sections that read stdin
                                  (names, cast, literal, print)

Sections: cancast cancastorder promote casting typechar names cast inplace literal print
array.  Values are written as the hexadecimal of their bits (the element's
bytes as a little-endian unsigned integer: a complex128 is 32 digits, the
imaginary part's bits then the real part's).  The dtypes are the rows of
include/dtype.def.  A complex value prints as NumPy's str() of the scalar
without its parentheses, and in JSON as the list [real, imaginary].

NumPy here is Debian's 1.24; the contract is NumPy 2.  Where the two differ
the NumPy 2 rule is written out below rather than asked of NumPy:
  - Python integer and float literals are weak (NEP 50): an integer out of
    an integer dtype's range raises "Python integer N out of bounds for T";
    both take a complex array's dtype;
  - the aliases 'bool8', 'int0', 'uint0' are gone from NumPy 2.
Float to integer casts out of range are what NumPy's strided (and scalar)
loops give on x86_64; its contiguous float to uint32 loop is vectorized into
another instruction sequence that differs out of range, so the reference
casts through a strided view.
"""
import math
import os
import random
import re
import struct
import sys
import warnings

import numpy as np

import h5ref as ref

warnings.simplefilter("ignore")   # "invalid value encountered in cast" and the like

HERE = os.path.dirname(os.path.abspath(__file__))


def read_dtypes():
    """The dtype names of include/dtype.def, in order."""
    names = []
    with open(os.path.join(HERE, "..", "include", "dtype.def")) as f:
        for line in f:
            m = re.match(r'\s*DTYPE\(\s*\w+\s*,\s*[\w ]+,\s*"(\w+)"', line)
            if m:
                names.append(m.group(1))
    return names


DTYPES = read_dtypes()
RULES = ["no", "equiv", "safe", "same_kind", "unsafe"]
# ---------------------------------------------------------------------------
# tables

def cancast():
    for a in DTYPES:
        for b in DTYPES:
            for r in RULES:
                print(a, b, r, int(np.can_cast(a, b, r)))


def cancastorder():
    """np.can_cast with the first, then the second, of each pair in the other
    byte order than the machine's, named by dtype.str ('>f8'); a one-byte
    dtype has no byte order and keeps its name."""
    def name(d):
        return d.name if d.isnative else d.str
    for a in DTYPES:
        for b in DTYPES:
            for swap in (0, 1):
                x, y = np.dtype(a), np.dtype(b)
                x, y = (x.newbyteorder(), y) if swap == 0 else (x, y.newbyteorder())
                for r in RULES:
                    print(name(x), name(y), r, int(np.can_cast(x, y, r)))


def promote():
    for a in DTYPES:
        for b in DTYPES:
            print(a, b, np.promote_types(a, b).name)


def casting():
    for name in ["no", "equiv", "safe", "same_kind", "unsafe",
                 "Safe", "same-kind", "", "unsafe "]:
        print("'%s' %s" % (name, name if name in RULES else "unknown"))


def typechar():
    """The type characters of NumPy's ufunc loops that name our dtypes."""
    chars = set()
    for name in dir(np):
        uf = getattr(np, name)
        if isinstance(uf, np.ufunc):
            for t in uf.types:
                chars.update(c for c in t if c.isalpha() or c == "?")
    for c in sorted(chars):
        if np.dtype(c).name in DTYPES:
            print(c, np.dtype(c).name)


NAMES = [
    "bool", "?", "b1", "|b1",
    "int8", "i1", "b", "byte", "uint8", "u1", "B", "ubyte", "|u1",
    "int16", "i2", "h", "short", "uint16", "u2", "H", "ushort", "<u2",
    "int32", "i4", "i", "intc", "=i4", "uint32", "u4", "I", "uintc",
    "int64", "i8", "int", "int_", "long", "longlong", "intp", "l", "q", "p", "<i8",
    "uint64", "u8", "uint", "ulong", "ulonglong", "uintp", "L", "Q", "P",
    "float16", "f2", "e", "half", "<f2",
    "float32", "f4", "f", "single",
    "float64", "f8", "d", "float", "double", "<f8", "=f8",
    "complex64", "c8", "F", "csingle", "<c8", "|c8",
    "complex128", "c16", "D", "complex", "cdouble", "<c16", "=c16",
    # not ours, or not dtypes at all
    ">f8", ">i4", "float128", "f16", "longdouble", "g", ">c8", ">c16",
    "complex256", "c32", "G", "clongdouble", "c4", "<complex", "complex32",
    "object", "O", "str", "U", "S", "datetime64", "i3", "f3", "Float64", "INT8",
    "int7", "uint128", "", " f8", "f8 ", "<<f8", "<int",
    # NumPy 1.24 aliases that NumPy 2 removed
    "bool8", "int0", "uint0",
]
NUMPY2_REMOVED = {"bool8", "int0", "uint0"}


def names_input():
    for n in NAMES:
        print(n)


def names():
    for n in NAMES:
        try:
            dt = np.dtype(n)
            ok = dt.name in DTYPES and dt.isnative and n not in NUMPY2_REMOVED
            # a byte-order mark goes with the short codes only
            ok = ok and not re.match(r"[<=|>][a-z]{3,}", n)
        except TypeError:
            ok = False
        print("'%s' %s" % (n, dt.name if ok else "unknown"))


# ---------------------------------------------------------------------------
# casts

FLOATS = [
    0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, 1.0, -1.0,
    0.1, 1 / 3, math.pi, -math.e,
    127.0, 127.9, 128.0, -128.0, -128.9, -129.0, 255.0, 255.9, 256.0, 300.0,
    -300.0, 32767.0, 32768.0, -32768.0, -32769.0, 65504.0, 65519.99, 65520.0,
    65535.0, 65535.9, 65536.0, 70000.0, -70000.0, 1e5, -1e5,
    2.0**31 - 1, 2.0**31 - 0.5, 2.0**31, -2.0**31, -2.0**31 - 1, 2.0**32 - 1,
    2.0**32, -2.0**32, 3e9, -3e9, 4294967295.5, 1e10, -1e10, 2.0**53 + 2,
    2.0**63 - 1024, 2.0**63, -2.0**63, -2.0**63 - 2048, 2.0**64 - 2048, 2.0**64,
    1e19, -1e19, 1e20, -1e20, 1e30, -1e30, 1e300, -1e300,
    5e-324, 1e-310, 2.0**-126, 1e-40, 2.0**-149,
    2.0**-24, 2.0**-25, 3 * 2.0**-26, 2.0**-25 + 2.0**-40, 2.0**-25 - 2.0**-60,
    6e-8, 6.1e-5, 2.0**-14, 2.0**-14 - 2.0**-25,
    1 + 2.0**-11, 1 + 3 * 2.0**-11, 1 + 2.0**-11 + 2.0**-40, 1 + 2.0**-11 - 2.0**-40,
    1 + 2.0**-24, 1 + 2.0**-24 + 2.0**-50,
    3.4028234663852886e38, 3.4028235677973366e38, 3.4028235677973362e38, 1e39,
    1.7976931348623157e308, math.inf, -math.inf, math.nan, -math.nan,
]


def integer_values(bits):
    """Bit patterns of interesting values for an integer dtype of BITS bits."""
    vals = [0, 1, -1, 2, 7, 127, 128, 255, 256, -128, -129, 2047, 2048, 2049,
            2050, 2051, 4097, 4098, 4099, 32767, 32768, -32768, -32769, 65504,
            65505, 65519, 65520, 65535, 65536, -65504, -65520, 16777217,
            2**31 - 1, 2**31, -2**31, 2**32 - 1, 2**53 + 1, 2**63 - 1, -2**63,
            2**63 + 1025, 2**64 - 1, 2**(bits - 1) - 1, -2**(bits - 1),
            2**(bits - 1), 2**bits - 1]
    mask = 2**bits - 1
    out = []
    for v in vals:
        b = v & mask
        if b not in out:
            out.append(b)
    return out


def source_bits(dtype, rng):
    """The cast grid's source values of DTYPE, as bit patterns."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return [0, 1]
    if dt.kind == "c":
        # pairs of the part dtype's values: each with a few imaginary
        # parts, and a few real parts with each imaginary part
        half = dt.itemsize // 2
        parts = source_bits("float%d" % (8 * half), rng)
        few = parts[:6] + parts[-51:-48]      # 0, -0, 1/2, ... and the NaN payloads
        pairs = [(r, i) for r in parts for i in few] + [(r, i) for r in few for i in parts]
        return [r | i << (8 * half) for r, i in pairs]
    if dt.kind in "iu":
        vals = integer_values(8 * dt.itemsize)
        vals += [rng.getrandbits(8 * dt.itemsize) for _ in range(48)]
        return vals
    floats = list(FLOATS)
    for _ in range(200):
        floats.append(rng.choice([-1, 1]) * rng.random() * 2.0 ** rng.randint(-30, 70))
    vals = [int(b) for b in ref.bits_of(np.array(floats, dtype=np.float64).astype(dt))]
    if dt.itemsize == 4:
        vals += [0x7fc00001, 0xffc12345, 0x7f800001]            # NaN payloads
        vals += [rng.getrandbits(32) for _ in range(48)]
    elif dt.itemsize == 8:
        vals += [0x7ff8000000000001, 0xfff8123456789abc, 0x7ff0000000000001]
        vals += [rng.getrandbits(64) for _ in range(48)]
    return vals


def half_boundaries(dtype):
    """float32/float64 values at and beside each float16 rounding boundary."""
    dt = np.dtype(dtype)
    h = np.arange(0, 0x7c00, dtype=np.uint16)
    lo = h.view(np.float16).astype(np.float64)
    hi = (h + 1).view(np.float16).astype(np.float64)
    mid = ((lo + hi) / 2).astype(dt)      # exact in both
    vals = np.concatenate([mid, np.nextafter(mid, dt.type(np.inf)),
                           np.nextafter(mid, dt.type(0))])
    vals = np.concatenate([vals, -vals])
    return [int(b) for b in ref.bits_of(vals)]


def cast_grid():
    """(from, to, bits) triples: every pair on the grid, every float16 to
    every dtype, and float32/float64 at every float16 rounding boundary."""
    rng = random.Random(21)
    for f in DTYPES:
        src = source_bits(f, rng)
        if f == "float16":
            src = list(range(65536))
        for t in DTYPES:
            for b in src:
                yield f, t, b
    for f in ("float32", "float64"):
        if f in DTYPES and "float16" in DTYPES:
            for b in half_boundaries(f):
                yield f, "float16", b


def cast_input():
    for f, t, b in cast_grid():
        print("%s %s %x" % (f, t, b))


def cast():
    """Runs of consecutive lines with the same (from, to), as dtypecheck reads them."""
    runs = []
    for f, t, b in cast_grid():
        if not runs or runs[-1][:2] != (f, t):
            runs.append((f, t, []))
        runs[-1][2].append(b)
    out = []
    for f, t, bits in runs:
        src = ref.from_bits(f, bits)
        # a strided view: NumPy's element-by-element loop
        strided = np.repeat(src, 2)[::2]
        res = strided.astype(t)
        for a, b in zip(ref.hexes(src), ref.hexes(res)):
            out.append("%s %s %s %s\n" % (f, t, a, b))
    sys.stdout.write("".join(out))


def inplace():
    for f in DTYPES:
        for t in DTYPES:
            if np.dtype(t).itemsize <= np.dtype(f).itemsize:
                print(f, t, "ok")


# ---------------------------------------------------------------------------
# literals (NumPy 2, NEP 50)

LITERALS = [
    "0", "1", "-1", "+7", "007", "-0", "127", "128", "-128", "-129", "255",
    "256", "300", "-300", "32767", "32768", "-32769", "65504", "65520", "70000",
    "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295",
    "4294967296", "9007199254740993", "9223372036854775807",
    "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
    "18446744073709551615", "18446744073709551616", "-18446744073709551616",
    "100000000000000000000000",
    "2.5", "-2.5", "1e-3", ".5", "5.", "-.5", "1e5", "1e+5", "1E-5", "0e0",
    "1e400", "-1e400", "1e-400", "2e-324", "65504.0", "65520.0", "65519.99",
    "3.4028235677973366e38", "1e39", "0.1", "-0.0", "300.7", "-1.5",
    "nan", "-nan", "NaN", "inf", "-inf", "+inf", "Infinity", "-INF",
    "true", "false", "True", "False",
    # not literals
    "TRUE", "1_000", "1_0.5", "0x10", "0b1", "1e", "e5", "--1", "+-1", "abc", "",
    " 1", "1 ", "1.5.2", "nan(1)", "infinit", "+", "-", ".", "1e5.0", "1j",
]

INT_RE = re.compile(r"[+-]?[0-9]+\Z")
FLOAT_RE = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")
SPECIAL_RE = re.compile(r"[+-]?(nan|inf|infinity)\Z", re.IGNORECASE)


def parse_literal(text):
    """(kind, value) as literal_parse reads TEXT, or None."""
    if text in ("true", "True", "false", "False"):
        return "bool", text[0] in "tT"
    if INT_RE.match(text):
        v = int(text)
        if -2**63 <= v <= 2**64 - 1:
            return "int", v
        # NumPy 2 keeps it a Python int: a float dtype converts it, an
        # integer one reads it through a C long and fails
        return "huge", v
    if FLOAT_RE.match(text) or SPECIAL_RE.match(text):
        return "float", float(text)
    return None


def literals_input():
    for t in LITERALS:
        print(t)


def f64hex(x):
    return "%016x" % struct.unpack("<Q", struct.pack("<d", x))[0]


def literal():
    for text in LITERALS:
        lit = parse_literal(text)
        if lit is None:
            print("'%s' none" % text)
            continue
        kind, v = lit
        if kind == "bool":
            default = "bool"
            print("'%s' bool %s default bool" % (text, f64hex(float(v))))
        elif kind == "int":
            default = "uint64" if v > 2**63 - 1 else "int64"
            print("'%s' int %d %s default %s" % (text, v, f64hex(float(v)), default))
        elif kind == "huge":
            default = "int64"
            print("'%s' int huge %s default int64" % (text, f64hex(float(v))))
        else:
            default = "float64"
            print("'%s' float %s default float64" % (text, f64hex(v)))
        for name in DTYPES:
            dt = np.dtype(name)
            if kind == "huge" and dt.kind in "iu":
                res = "status 2: operand: Python int too large to convert to C long"
            elif kind == "int" and dt.kind in "iu":
                info = np.iinfo(dt)
                if info.min <= v <= info.max:
                    res = ref.hexes(np.array([v], dtype=dt))[0]
                else:
                    res = "status 2: operand: Python integer %d out of bounds for %s" % (v, name)
            elif kind in ("int", "huge") and dt.kind == "b":
                res = ref.hexes(np.array([v != 0]))[0]
            elif kind == "bool":
                res = ref.hexes(np.array([v]).astype(dt))[0]
            else:
                # a Python float (or an int for a float dtype, through its
                # double) as NumPy converts it
                res = ref.hexes(np.array([float(v)], dtype=np.float64).astype(dt))[0]
            weak = (kind in ("int", "huge") and dt.kind in "iufc") or (kind == "float" and dt.kind in "fc")
            cc = "".join("1" if weak or np.can_cast(default, dt, r) else "0" for r in RULES)
            print("'%s' %s %s can_cast %s" % (text, name, res, cc))


# ---------------------------------------------------------------------------
# printing

def print_values():
    """(dtype, bits) pairs whose printing is checked."""
    rng = random.Random(22)
    out = []
    for name in DTYPES:
        dt = np.dtype(name)
        if dt.kind == "b":
            out += [(name, 0), (name, 1)]
        elif dt.kind in "iu":
            out += [(name, b) for b in integer_values(8 * dt.itemsize)]
    if "float16" in DTYPES:
        out += [("float16", b) for b in range(65536)]
    tricky = [0.1, 0.2, 0.3, 1 / 3, 2 / 3, 1e-4, 1e16, 1e15, 9999999999999998.0,
              123456789012345678.0, 1e22, 1e23, 5e-324, 1.7976931348623157e308,
              2.2250738585072014e-308, 9007199254740993.0, 0.5, 100.0, 1e-5,
              1.5e16, 1e-300, 12345.678, 0.000123, 65504.0, 3.4028235e38, 1.1]
    for name, size in (("float32", 4), ("float64", 8)):
        if name not in DTYPES:
            continue
        dt = np.dtype(name)
        vals = np.array(tricky + [-x for x in tricky] + [0.0, -0.0, math.inf, -math.inf, math.nan],
                        dtype=np.float64).astype(dt)
        # at and beside the positional/scientific bounds
        for bound in (1e-4, 1e16):
            b = dt.type(bound)
            vals = np.concatenate([vals, [b, np.nextafter(b, dt.type(0)),
                                          np.nextafter(b, dt.type(np.inf))]])
        # every power of two, where the shortest decimal is hardest to find
        info = np.finfo(dt)
        pw = np.ldexp(np.ones(1, dtype=dt), np.arange(-info.nmant + info.minexp, info.maxexp))
        vals = np.concatenate([vals, pw.astype(dt)])
        b = [int(x) for x in ref.bits_of(vals)]
        # random bit patterns, and random short decimals
        b += [rng.getrandbits(8 * size) for _ in range(20000)]
        dec = [float("%.*e" % (rng.randint(0, 8), rng.random() * 10.0 ** rng.randint(-8, 20)))
               for _ in range(5000)]
        b += [int(x) for x in ref.bits_of(np.array(dec).astype(dt))]
        out += [(name, x) for x in b]
    for name, part in (("complex64", "float32"), ("complex128", "float64")):
        if name not in DTYPES:
            continue
        # every pair of some parts, then random parts
        pdt = np.dtype(part)
        vals = np.array([0.0, -0.0, 1.0, -1.0, 0.1, -2.5, 100.0, 1e-5, 1.5e16,
                         123456789.0, 1e-300, math.inf, -math.inf, math.nan],
                        dtype=np.float64).astype(pdt)
        pb = [int(x) for x in ref.bits_of(vals)] + [0x7fc00001 if pdt.itemsize == 4 else 0xfff8000000000001]
        w = 8 * pdt.itemsize
        b = [r | i << w for r in pb for i in pb]
        rand = [int(x) for x in ref.bits_of(np.array(
            [float("%.*e" % (rng.randint(0, 8), rng.random() * 10.0 ** rng.randint(-8, 20)))
             * rng.choice([-1, 1]) for _ in range(4000)]).astype(pdt))]
        b += [rand[k] | rand[k + 1] << w for k in range(0, len(rand), 2)]
        b += [rng.getrandbits(2 * w) for _ in range(2000)]
        out += [(name, x) for x in b]
    return out


def print_input():
    for name, b in print_values():
        print("%s %x" % (name, b))


def scalar_text(x):
    """NumPy's str() of the scalar X (True/False for bools), a complex one
    without its parentheses."""
    s = str(x)
    if isinstance(x, np.complexfloating) and s.startswith("("):
        s = s[1:-1]
    return s


def json_text(x):
    if isinstance(x, np.bool_):
        return "true" if x else "false"
    if isinstance(x, np.complexfloating):
        return "[%s, %s]" % (json_text(x.real), json_text(x.imag))
    s = str(x)
    return '"%s"' % s if s in ("nan", "inf", "-inf") else s


def print_():
    out = []
    for name, b in print_values():
        x = ref.from_bits(name, [b])[0]
        out.append("%s %s %s %s\n" % (name, ref.hexes(np.array([x]))[0], scalar_text(x), json_text(x)))
    sys.stdout.write("".join(out))


# ---------------------------------------------------------------------------
# arrays

SHAPES = [(), (5,), (0,), (2, 3), (3, 1), (2, 0), (2, 2, 3), (2, 1, 2, 2)]


def text_of(a):
    """SPEC 1's text layout of the array A."""
    if a.ndim == 0:
        return scalar_text(a[()]) + "\n"
    if a.ndim == 1:
        return "".join(scalar_text(x) + "\n" for x in a)
    blocks = a.reshape((int(np.prod(a.shape[:-2])),) + a.shape[-2:])
    return "\n".join("".join(" ".join(scalar_text(x) for x in row) + "\n" for row in blk)
                     for blk in blocks)


def json_of(a):
    if a.ndim == 0:
        return json_text(a[()])
    return "[" + ", ".join(json_of(x) for x in a) + "]"


def array():
    for name in DTYPES:
        for shape in SHAPES:
            n = int(np.prod(shape))
            if name == "bool":
                a = np.array([k % 3 == 0 for k in range(n)], dtype=bool)
            else:
                a = np.array([(k - 3) * 0.75 for k in range(n)], dtype=np.float64).astype(name)
            a = a.reshape(shape)
            sys.stdout.write("== %s shape%s\n" % (name, "".join(" %d" % d for d in shape)))
            sys.stdout.write(text_of(a))
            sys.stdout.write("-- json\n%s\n" % json_of(a))


SECTIONS = {
    "cancast": cancast, "cancastorder": cancastorder, "promote": promote, "casting": casting,
    "typechar": typechar, "names": names, "names-input": names_input,
    "cast": cast, "cast-input": cast_input, "inplace": inplace,
    "literal": literal, "literal-input": literals_input,
    "print": print_, "print-input": print_input, "array": array,
}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in SECTIONS:
        sys.exit("usage: dtype_ref.py " + "|".join(SECTIONS))
    SECTIONS[sys.argv[1]]()
