#!/usr/bin/python3
"""chunks_ref.py - chunked inputs read once per pass: the reference side of
tests/71-chunks.bats.

What it is: it makes chunked fixtures with NumPy and h5py, counts the reads
a run made of a file from an strace log, and compares results with NumPy.
What it is not: a timing tool (the counts are what it asserts; timings
are tests/bench's).

Usage: chunks_ref.py JOB [:: JOB]... (h5ref's job runner); exit 0 when
every job passed, 1 when a check failed (reasons on stderr), 2 on a
malformed job.

Jobs:
  make DIR        write DIR/c.h5: float64 /t (4096, 256) in chunks
                  (256, 16), /s (1024, 1024) in (256, 32), /w (256, 4096)
                  in (256, 32) -- tall, square, wide, 1 MiB chunk rows
                  and more -- and /tb, /sb, /wb alike; DIR/z.h5: a smooth
                  field /a, /b (960, 1024) contiguous, /g the same in gzip
                  chunks (64, 1024) written by h5py (zlib), and DIR/zs.h5:
                  /c (960, 1024) in chunks (64, 1024) with shuffle and
                  deflate (netCDF's pair), never written, and /A, /B
                  (32768, 4096), never written, for plans; DIR/sl.h5:
                  float64 /p, /pb (1280, 2100) in chunks (256, 40) and /v,
                  /vb (2, 300, 600) in (1, 256, 48): chunk rows larger
                  than a box stops growing at, computed in slices of chunk
                  columns, the last one narrower; DIR/rc.h5: (1000, 1100)
                  in chunks (256, 64), ragged on both axes: float64 /r,
                  /rb, float32 /f, int16 /i, complex128 /c, bool /q, int16
                  /p packed (scale_factor, add_offset), /k alike with a
                  _FillValue (some elements missing), and, read through
                  HDF5's own path,
                  /z in shuffle+deflate, big-endian /be and /h, of whose
                  chunks only the first was ever written (the rest its
                  fill value 1.5); /e (0, 1100) empty; /v (3, 300, 700) in
                  (1, 256, 64); /g (1000, 1100) in (16, 64), boxes of
                  several chunk rows
  reads PREFIX FILE CALLS BYTES
                  the reads of FILE in the logs PREFIX.* of `strace -ff -e
                  trace=openat,open,pread64,read -o PREFIX` (every process
                  of a launch): at most CALLS calls (a chunk read in one,
                  and HDF5's few reads of metadata) and BYTES bytes
  whole PREFIX FILE SIZE COUNT
                  the logs PREFIX.* (as for reads) hold exactly COUNT reads
                  of FILE of SIZE bytes (a chunk's, each read as stored)
  same IN.h5 OUT.h5 PATH EXPR [PATH EXPR]...
                  OUT.h5:PATH holds NumPy's EXPR over IN.h5's datasets
                  (names t, tb, ...), bit for bit, for each pair
  decoded IN.h5 OUT.h5 PATH NAME EXPR
                  OUT.h5:PATH holds EXPR over IN.h5's packed /NAME unpacked
                  as the netCDF User Guide says (named NAME), its missing
                  elements OUT's _FillValue, bit for bit
  stored OUT.h5 PATH
                  print the bytes OUT.h5:PATH takes in the file (its chunks
                  as compressed)
  filters OUT.h5 PATH CHUNKS FILTERS
                  OUT.h5:PATH is chunked by CHUNKS (a,b) and stored with
                  FILTERS (gzip, or shuffle+gzip) at level 1
"""
import glob
import re

import h5py
import numpy as np

import h5ref
from h5ref import Failure, Usage

ARRAYS = {'t': ((4096, 256), (256, 16)), 's': ((1024, 1024), (256, 32)),
          'w': ((256, 4096), (256, 32))}


def make(d):
    rng = np.random.default_rng(64)
    with h5py.File(f'{d}/c.h5', 'w') as f:
        for name, (shape, chunks) in ARRAYS.items():
            for suffix in ('', 'b'):
                f.create_dataset(name + suffix, data=rng.random(shape) - 0.25, chunks=chunks)
    y, x = np.meshgrid(np.linspace(0, 6, 960), np.linspace(0, 9, 1024), indexing='ij')
    with h5py.File(f'{d}/z.h5', 'w') as f:
        f['a'] = np.sin(x) * np.cos(y) * 100 + 273.15
        f['b'] = np.cos(0.5 * x + y) * 50
        f.create_dataset('g', data=f['a'][()], chunks=(64, 1024), compression='gzip',
                         compression_opts=1)
    with h5py.File(f'{d}/zs.h5', 'w') as f:
        f.create_dataset('c', (960, 1024), dtype='f8', chunks=(64, 1024), compression='gzip',
                         compression_opts=1, shuffle=True)
        for name in 'AB':
            f.create_dataset(name, (32768, 4096), dtype='f8', chunks=(256, 64))
    with h5py.File(f'{d}/sl.h5', 'w') as f:
        for name, shape, chunks in (('p', (1280, 2100), (256, 40)), ('v', (2, 300, 600), (1, 256, 48))):
            for suffix in ('', 'b'):
                f.create_dataset(name + suffix, data=rng.random(shape) - 0.25, chunks=chunks)
    make_raw(f'{d}/rc.h5', rng)


def make_raw(path, rng):
    shape, chunks = (1000, 1100), (256, 64)
    v = rng.random(shape) * 100 - 25
    with h5py.File(path, 'w') as f:
        for name, data in (('r', v), ('rb', rng.random(shape) - 0.5), ('f', v.astype('f4')),
                           ('i', (v * 300).astype('i2')), ('c', v + 1j * v[::-1]), ('q', v > 0),
                           ('be', v.astype('>f8'))):
            f.create_dataset(name, data=data, chunks=chunks)
        f.create_dataset('z', data=v, chunks=chunks, compression='gzip', shuffle=True)
        for name in 'pk':
            p = f.create_dataset(name, data=(v * 100).astype('i2'), chunks=chunks)
            p.attrs['scale_factor'] = 0.01
            p.attrs['add_offset'] = 5.0
        f['k'][::7, ::5] = -32767
        f['k'].attrs['_FillValue'] = np.int16(-32767)
        h = f.create_dataset('h', shape, dtype='f8', chunks=chunks, fillvalue=1.5)
        h[:256, :64] = v[:256, :64]
        f.create_dataset('e', (0, 1100), dtype='f8', chunks=chunks, maxshape=(None, 1100))
        f.create_dataset('v', data=rng.random((3, 300, 700)), chunks=(1, 256, 64))
        f.create_dataset('g', data=rng.random(shape), chunks=(16, 64))


def decoded(inp, out, path, name, expr):
    with h5py.File(inp) as f:
        stored = f[name][()]
        a = f[name].attrs
        x = stored * a['scale_factor'] + a['add_offset']
        missing = stored == a['_FillValue'] if '_FillValue' in a else np.zeros(x.shape, bool)
    want = np.asarray(eval(expr, {'np': np}, {name: x}))
    if missing.any():
        with h5py.File(out) as f:
            want[missing] = f[path].attrs['_FillValue']
    h5ref.compare_arrays(f"{out}:{path} (unpacked {expr})", want, h5ref.read_ref(f"{out}:{path}"))


OPEN = re.compile(r'(?:openat|open)\(.*?"([^"]+)".*\)\s+=\s+(\d+)$')
READ = re.compile(r'(?:pread64|read)\((\d+),.*\)\s+=\s+(\d+)$')


def read_sizes(prefix, path):
    """The sizes of the reads of PATH in the strace logs PREFIX.*."""
    logs = glob.glob(prefix + '.*')
    if not logs:
        raise Failure(f'no strace logs {prefix}.*')
    sizes = []
    for name in logs:
        fds = {}
        for line in open(name):
            line = line.rstrip('\n')
            m = OPEN.match(line)
            if m:
                fds[m.group(2)] = m.group(1)
                continue
            m = READ.match(line)
            if m and fds.get(m.group(1), '').endswith(path):
                sizes.append(int(m.group(2)))
    return sizes


def reads(prefix, path, calls, nbytes):
    sizes = read_sizes(prefix, path)
    count, total = len(sizes), sum(sizes)
    if count > int(calls) or total > int(nbytes):
        raise Failure(f'{prefix}: {path}: {count} reads of {total} bytes, '
                      f'more than {calls} reads or {nbytes} bytes')


def whole(prefix, path, size, count):
    got = read_sizes(prefix, path).count(int(size))
    if got != int(count):
        raise Failure(f'{prefix}: {path}: {got} reads of {size} bytes, not {count}')


def same(inp, out, *pairs):
    if not pairs or len(pairs) % 2:
        raise Usage('PATH EXPR pairs wanted')
    with h5py.File(inp) as f:
        env = {k: f[k][()] for k in f if f[k].ndim == 0 or f[k].size < 1 << 24}
    for path, expr in zip(pairs[0::2], pairs[1::2]):
        h5ref.compare_arrays(f"{out}:{path} (NumPy's {expr})", np.asarray(eval(expr, {'np': np}, env)),
                             h5ref.read_ref(f"{out}:{path}"))


def filters(out, path, chunks, want):
    d = h5py.File(out)[path]
    got = ('shuffle+' if d.shuffle else '') + str(d.compression)
    if d.chunks != tuple(int(c) for c in chunks.split(',')) or got != want or d.compression_opts != 1:
        raise Failure(f'{out}:{path}: chunks {d.chunks}, {got} at {d.compression_opts}, '
                 f'not {chunks}, {want} at 1')


def stored(out, path):
    print(h5py.File(out)[path].id.get_storage_size())


def words(fn):
    """FN(*ARGS) as a job of h5ref's runner, which hands a job its words."""
    return lambda args: fn(*args)


if __name__ == '__main__':
    h5ref.main({f.__name__: words(f) for f in (make, reads, whole, same, decoded, filters, stored)}, 'chunks_ref.py')
