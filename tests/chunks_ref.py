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
                  float64 /p, /pb (1280, 2100) in chunks (256, 40), /v,
                  /vb (2, 300, 600) in (1, 256, 48) and /q, /qb (80,
                  12300) in (32, 1024): chunk rows larger than a box stops
                  growing at, computed in slices of chunk columns, the
                  last one narrower; DIR/rc.h5: (1000, 1100)
                  in chunks (256, 64), ragged on both axes: float64 /r,
                  /rb, float32 /f, int16 /i, complex128 /c, bool /q, int16
                  /p packed (scale_factor, add_offset), /k alike with a
                  _FillValue (some elements missing), and, read through
                  HDF5's own path,
                  /z in shuffle+deflate, big-endian /be and /h, of whose
                  chunks only the first was ever written (the rest its
                  fill value 1.5); /e (0, 1100) empty; /v (3, 300, 700) in
                  (1, 256, 64); /g (1000, 1100) in (16, 64), boxes of
                  several chunk rows; DIR/cw.h5: /x, /xb float64 and /xf
                  float32 (300, 4500) in chunks (128, 32), ragged on both
                  axes, a row's chunks more than a chunk cache holds; DIR/ru.h5: float64 /u (1001, 37)
                  in chunks (64, 16), ragged on both axes, magnitudes
                  over twelve decades (a fold in another order gives
                  other bits), /z the same in gzip chunks (level 1), and
                  int64 /i alike (its sums exact: the ranks may share
                  the axis they fold); DIR/fo.h5 and DIR/fb-*.h5: the same
                  magnitudes in chunks that cut NumPy's blocks of 128
                  and pieces of 8192 (tests/71-chunks.bats says which);
                  DIR/fe-*.h5: wide rows for the band fold of integer
                  sums, float16 sums, maximum and the like (make_exact);
                  DIR/mx.h5: float64 /odd (1280, 2100) in (256, 40), whose
                  five chunk rows 3 and 4 ranks cut, beside /a (1001,
                  300), magnitudes over twelve decades, /t, its first 100
                  rows, in (64, 64), and /n, its first 50 rows of 100, in
                  (32, 64)
  index-files DIR
                  write the chunk indexes chunkindexdump reads, all in
                  version-1 B-trees: DIR/ix.h5 (object headers of version
                  1) and DIR/ix108.h5 (version 2, libver v108), each with
                  1-d /a1 (1000,) in (7,), 2-d /a2 (300, 200) in (16, 8),
                  3-d /a3 (20, 30, 40) in (3, 7, 5), ragged, /many (20000,)
                  in (2,) (10000 chunks: nodes hold 64 children at most,
                  so three levels at least), /sparse (200, 300) and /s3
                  (40, 50, 60) with most chunks never written, /gz (250,
                  400) shuffle+gzip with one chunk written raw (both
                  filters skipped: mask 3), /empty (no chunk written),
                  /one (a single chunk), /ext (resizable, grown after
                  writing), /attrs (40 attributes: a header continued in
                  ix.h5, dense ones in ix108.h5), /deep (10-d, (2,)*8 +
                  (4, 6) in (1,)*8 + (2, 3), allocated early, the first
                  object: its dataspace fills the header's first block
                  and the B-tree is allocated right after it before the
                  layout message is added, which goes to a continuation
                  block, in both files); and the
                  indexes it refuses:
                  DIR/latest.h5 (libver latest: /fixed a fixed array,
                  /grow an extensible array, /both a version-2 B-tree,
                  /single one chunk)
  userblock-files DIR
                  write DIR/ub.h5 (a 512-byte userblock, as MATLAB v7.3
                  files have, version-1 B-trees) and DIR/ubl.h5 (the same,
                  libver latest: fixed arrays), each with /a (300, 200)
                  ragged and /w (256, 200), float64 in chunks (16, 8), and
                  their twins without a userblock, DIR/ub0.h5 and
                  DIR/ubl0.h5, holding the same
  index DUMP FILE PATH...
                  DUMP FILE PATH (tests/unit/chunkindexdump) lists every
                  chunk of FILE:PATH that h5py's dsid.get_chunk_info lists,
                  in its order: offsets, address, stored size, filter mask;
                  the address a place in the file, where HDF5 before
                  1.14.4 reports one without the file's userblock; the
                  bytes there are h5py's read_direct_chunk's
  continued FILE PATH...
                  the layout message of each FILE:PATH lies in a
                  continuation block of its object header (h5debug says
                  in which block each message is)
  refused DUMP FILE PATH...
                  DUMP refuses each FILE:PATH (HDF5 then answers alone),
                  and h5py still reads it
  journals REPORT REPORT...
                  the --json REPORTs of in-place runs saved as many
                  journal records and bytes on each rank as the first
  square DIR      write DIR/sq.h5: float64 /a (2304, 2304) in chunks
                  (256, 64), a chunk row of 4.5 MiB, more than a chunk
                  cache holds
  in-place DIR    write DIR/ip.h5, datasets a row of whose chunks more
                  than a chunk cache holds, each chunk stored, to be
                  written in place by runs: /w float64 (150, 9000) in
                  (64, 64), ragged along both axes; /f float32 (100,
                  20000) in (64, 64); /t float64 (2, 40, 9000) in (2,
                  32, 64); and two that go through HDF5's path: /g as /w
                  with gzip, /p as /w with only its first chunk row
                  written (the rest its fill value, 0.5)
  moved PREFIX FILE BYTES
                  the reads and the writes of FILE in the logs PREFIX.*
                  of `strace -ff -e trace=openat,open,$TRACE_READS,$TRACE_WRITES -o
                  PREFIX` (71-chunks.bats: every call that reads or
                  writes, vectored ones too) come to at most BYTES
                  bytes each
  journaled PREFIX FILE BYTES
                  the writes into the journals of FILE in the same logs
                  come to at most BYTES bytes, and into FILE by pwritev,
                  the run's own, to some
  reads PREFIX FILE CALLS BYTES
                  the reads of FILE in the logs PREFIX.* of `strace -ff -e
                  trace=openat,open,$TRACE_READS -o PREFIX` (every process
                  of a launch): at most CALLS calls (a chunk read in one,
                  and HDF5's few reads of metadata) and BYTES bytes
  whole PREFIX FILE SIZE COUNT
                  the logs PREFIX.* (as for reads) hold exactly COUNT reads
                  of FILE of SIZE bytes (a chunk's, each read as stored)
  own PREFIX FILE SIZE COUNT
                  as whole, counting only the reads of FILE (or of its
                  temporary name) through descriptors opened
                  O_RDONLY|O_CLOEXEC (the direct reader's under MPI-IO),
                  not HDF5's
  runs PREFIX FILE PATH[,PATH...] ALONE
                  the reads of FILE in the logs PREFIX.* (as for reads, one
                  log a process) that fall within the stored chunks of its
                  datasets PATH read each byte of every whole chunk
                  exactly once, all processes together, and no byte twice
                  in one process; a ragged edge chunk (not one run of its
                  elements, read whole by HDF5) at most once by each
                  process that reads some of it; ALONE 1: and each chunk is
                  read by one process only
  same IN.h5[,IN.h5...] OUT.h5 PATH EXPR [PATH EXPR]...
                  OUT.h5:PATH holds NumPy's EXPR over the IN.h5 files' datasets
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
import json
import os
import re
import subprocess

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
        for name, shape, chunks in (('p', (1280, 2100), (256, 40)), ('v', (2, 300, 600), (1, 256, 48)),
                                    ('q', (80, 12300), (32, 1024))):
            for suffix in ('', 'b'):
                f.create_dataset(name + suffix, data=rng.random(shape) - 0.25, chunks=chunks)
    make_raw(f'{d}/rc.h5', rng)
    with h5py.File(f'{d}/cw.h5', 'w') as f:
        # a row crosses 141 chunks, 4.6 MiB of them: more than a chunk
        # cache holds
        x = rng.random((300, 4500)) - 0.25
        for name, data in (('x', x), ('xb', rng.random(x.shape)), ('xf', x.astype('f4'))):
            f.create_dataset(name, data=data, chunks=(128, 32))
    with h5py.File(f'{d}/ru.h5', 'w') as f:
        # magnitudes over twelve decades: a sum folded in another order
        # than NumPy's gives other bits
        u = rng.standard_normal((1001, 37)) * 10.0 ** rng.uniform(-6, 6, (1001, 37))
        f.create_dataset('u', data=u, chunks=(64, 16))
        f.create_dataset('z', data=u, chunks=(64, 16), compression='gzip', compression_opts=1)
        f.create_dataset('i', data=rng.integers(-2**40, 2**40, (1001, 37)), chunks=(64, 16))
    with h5py.File(f'{d}/rr.h5', 'w') as f:
        # rows crossing more chunks than a chunk cache holds (4.6 MiB of
        # (128, 32), 4.5 MiB of (2, 64, 32)), ragged along every axis, of
        # magnitudes over twelve decades (a fold in another order than
        # NumPy's gives other bits); /z deflated, /m a where= mask (a
        # generator of their own: the files after them keep their values)
        rg = np.random.default_rng(28)
        r = rg.standard_normal((300, 4500)) * 10.0 ** rg.uniform(-6, 6, (300, 4500))
        f.create_dataset('r', data=r, chunks=(128, 32))
        f.create_dataset('z', data=r, chunks=(128, 32), compression='gzip', compression_opts=1)
        f.create_dataset('m', data=rg.random((300, 4500)) < 0.7)
        t = rg.standard_normal((3, 130, 4500)) * 10.0 ** rg.uniform(-6, 6, (3, 130, 4500))
        f.create_dataset('t', data=t, chunks=(2, 64, 32))
        # two rows of 147 chunks (4.7 MiB), fewer rows than ranks
        n = rg.standard_normal((2, 600000)) * 10.0 ** rg.uniform(-6, 6, (2, 600000))
        f.create_dataset('n', data=n, chunks=(1, 4096))
    with h5py.File(f'{d}/mx.h5', 'w') as f:
        # /odd: five chunk rows, which 3 and 4 ranks cut (MPI-IO for the
        # file), as they cut the two of /t (100, 300); /a ragged (1001,
        # 300) in (64, 64) and /n (50, 100) in (32, 64), two ranks' (none
        # on the others): read in whole chunks (a generator of its own:
        # the other files' data stays as it was)
        mx = np.random.default_rng(65)
        f.create_dataset('odd', data=mx.random((1280, 2100)) - 0.25, chunks=(256, 40))
        a = mx.standard_normal((1001, 300)) * 10.0 ** mx.uniform(-6, 6, (1001, 300))
        f.create_dataset('a', data=a, chunks=(64, 64))
        f.create_dataset('t', data=a[:100], chunks=(64, 64))
        f.create_dataset('n', data=a[:50, :100], chunks=(32, 64))
    with h5py.File(f'{d}/fo.h5', 'w') as f:
        # magnitudes over twelve decades again, in chunks whose widths cut
        # NumPy's blocks of 128 and pieces of 8192: rows of two pieces,
        # rows that pieces of an all-axes sum cross, 3-d, float32, complex;
        # chunk rows dealt whole to 2 and 3 ranks
        for name, shape, chunks, dtype in (('w', (96, 12000), (8, 48), 'f8'),
                                           ('f', (600, 1000), (25, 40), 'f4'),
                                           ('v', (12, 30, 700), (1, 16, 48), 'f8'),
                                           ('c', (86, 3000), (7, 100), 'c16')):
            u = rng.standard_normal(shape) * 10.0 ** rng.uniform(-6, 6, shape)
            if dtype == 'c16':
                u = u + 1j * rng.standard_normal(shape) * 10.0 ** rng.uniform(-6, 6, shape)
            f.create_dataset(name, data=u.astype(dtype), chunks=chunks)
    # the same magnitudes in wide rows of whole pieces (or a row a group,
    # /r), folded a band of chunk columns at a time: chunk widths that cut
    # NumPy's blocks and pieces, ragged last chunk columns and rows,
    # float32, complex, 3-d; /n two rows, so that ranks beyond the second
    # get none; /k a chunk column larger than a band's usual 256 KiB; each
    # in a file of its own, DIR/fb-NAME.h5, which ranks
    # read alone where their boxes hold its chunks whole
    for name, shape, chunks, dtype in (('w', (40, 16384), (8, 48), 'f8'),
                                       ('f', (23, 24576), (5, 40), 'f4'),
                                       ('c', (9, 8192), (4, 100), 'c16'),
                                       ('v', (3, 5, 8192), (1, 2, 64), 'f8'),
                                       ('r', (30, 20000), (8, 48), 'f8'),
                                       ('n', (2, 16384), (1, 128), 'f8'),
                                       ('k', (24, 24576), (24, 8192), 'f8')):
        u = rng.standard_normal(shape) * 10.0 ** rng.uniform(-6, 6, shape)
        if dtype == 'c16':
            u = u + 1j * rng.standard_normal(shape) * 10.0 ** rng.uniform(-6, 6, shape)
        with h5py.File(f'{d}/fb-{name}.h5', 'w') as f:
            f.create_dataset(name, data=u.astype(dtype), chunks=chunks)
    make_exact(d)


def make_exact(d):
    """DIR/fe-NAME.h5: wide rows of whole pieces for the band fold of the
    other ufuncs (a generator of its own: the other files stay as they
    were): int64 /i near 2**62 (its sums wrap), float16 /h (summed in
    float32 through the tree), float64 /n with NaNs in chunks of several
    rows and pieces (the row a group, its last piece short), bool /b, uint8
    3-d /u, int64 /k of two rows (ranks beyond the second get none), int32
    /j (NumPy sums it in int64)."""
    rng = np.random.default_rng(66)
    n = rng.standard_normal((30, 20000)) * 10.0 ** rng.uniform(-6, 6, (30, 20000))
    for row, col in ((0, 5), (3, 100), (3, 19999), (8, 8191), (9, 8192), (17, 12000), (29, 19990)):
        n[row, col] = np.nan
    b = rng.random((9, 8192)) > 0.0005
    b[4] = True
    for name, data, chunks in (('i', rng.integers(-2**62, 2**62, (40, 16384)), (8, 48)),
                               ('h', (rng.standard_normal((23, 24576)) * 10.0 ** rng.uniform(-3, 1, (23, 24576)))
                                .astype('f2'), (5, 40)),
                               ('n', n, (8, 48)),
                               ('b', b, (4, 100)),
                               ('u', rng.integers(0, 255, (3, 5, 8192), dtype='u1'), (1, 2, 64)),
                               ('k', rng.integers(-2**62, 2**62, (2, 16384)), (1, 128)),
                               ('j', rng.integers(-2**31, 2**31, (40, 16384), dtype='i4'), (8, 48))):
        with h5py.File(f'{d}/fe-{name}.h5', 'w') as f:
            f.create_dataset(name, data=data, chunks=chunks)


def square(d):
    with h5py.File(f'{d}/sq.h5', 'w') as f:
        f.create_dataset('a', data=np.random.default_rng(65).random((2304, 2304)) - 0.25,
                         chunks=(256, 64))


def wide_named(d):
    with h5py.File(f'{d}/wn.h5', 'w') as f:
        f.create_dataset('a', data=np.random.default_rng(66).random((300, 8010)) - 0.25, chunks=(256, 64))


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


def in_place(d):
    rng = np.random.default_rng(72)
    w = rng.random((150, 9000)) - 0.25
    with h5py.File(f'{d}/ip.h5', 'w') as f:
        f.create_dataset('w', data=w, chunks=(64, 64))
        f.create_dataset('f', data=rng.random((100, 20000), dtype='f4') * 9 - 3, chunks=(64, 64))
        f.create_dataset('t', data=rng.random((2, 40, 9000)), chunks=(2, 32, 64))
        f.create_dataset('g', data=w, chunks=(64, 64), compression='gzip', compression_opts=1)
        p = f.create_dataset('p', (150, 9000), dtype='f8', chunks=(64, 64), fillvalue=0.5)
        p[:64] = w[:64]


def index_files(d):
    rng = np.random.default_rng(28)
    for name, libver in (('ix', 'earliest'), ('ix108', 'v108')):
        with h5py.File(f'{d}/{name}.h5', 'w', libver=libver) as f:
            deep(f)
            f.create_dataset('a1', data=rng.random(1000), chunks=(7,))
            f.create_dataset('a2', data=rng.random((300, 200)), chunks=(16, 8))
            f.create_dataset('a3', data=rng.random((20, 30, 40)), chunks=(3, 7, 5))
            f.create_dataset('many', data=rng.random(20000), chunks=(2,))
            s = f.create_dataset('sparse', (200, 300), 'f4', chunks=(10, 10))
            s[5:50, 17:30] = 1
            s[150:190, 250:299] = 2
            s3 = f.create_dataset('s3', (40, 50, 60), 'i2', chunks=(4, 5, 6))
            s3[::9, ::11, ::13] = 7
            g = f.create_dataset('gz', data=np.arange(100000).reshape(250, 400) % 97, chunks=(32, 32),
                                 compression='gzip', shuffle=True)
            g.id.write_direct_chunk((64, 96), np.full((32, 32), 5, g.dtype).tobytes(), filter_mask=3)
            f.create_dataset('empty', (100, 100), 'f8', chunks=(10, 10))
            f.create_dataset('one', data=np.ones((5, 5)), chunks=(5, 5))
            e = f.create_dataset('ext', data=np.ones((10, 10)), chunks=(4, 4), maxshape=(None, None))
            e.resize((30, 17))
            e[20:, 12:] = 2
            a = f.create_dataset('attrs', data=rng.random((64, 64)), chunks=(8, 8))
            for i in range(40):
                a.attrs[f'note{i}'] = 'x' * (i * 7)
    with h5py.File(f'{d}/latest.h5', 'w', libver='latest') as f:
        f.create_dataset('fixed', data=rng.random((300, 200)), chunks=(16, 8))
        f.create_dataset('grow', data=rng.random((300, 200)), chunks=(16, 8), maxshape=(None, 200))
        f.create_dataset('both', data=rng.random((300, 200)), chunks=(16, 8), maxshape=(None, None))
        f.create_dataset('single', data=rng.random((30, 20)), chunks=(30, 20))


def deep(f):
    """F's /deep: the layout message in a continuation block (see
    index-files; the first object of F, where its header's first block is
    followed by the B-tree's root)."""
    shape = (2,) * 8 + (4, 6)
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk((1,) * 8 + (2, 3))
    dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
    dsid = h5py.h5d.create(f.id, b'deep', h5py.h5t.IEEE_F64LE, h5py.h5s.create_simple(shape),
                           dcpl=dcpl)
    h5py.Dataset(dsid)[...] = np.random.default_rng(10).random(shape)


def continued(path, *names):
    for name in names:
        with h5py.File(path) as f:
            addr = h5py.h5o.get_info(f[name].id).addr
        out = subprocess.run(['h5debug', path, str(addr)], capture_output=True, text=True,
                             check=True).stdout
        blocks = re.findall(r"`layout'.*?Chunk number:\s+(\d+)", out, re.S)
        if len(blocks) != 1 or blocks[0] == '0':
            raise Failure(f'{path}:{name}: layout message in header blocks {blocks}, '
                          'not one continuation block')


def userblock_files(d):
    for name, userblock, libver in (('ub', 512, 'earliest'), ('ub0', 0, 'earliest'),
                                    ('ubl', 512, 'latest'), ('ubl0', 0, 'latest')):
        rng = np.random.default_rng(512)
        with h5py.File(f'{d}/{name}.h5', 'w', userblock_size=userblock, libver=libver) as f:
            f.create_dataset('a', data=rng.random((300, 200)), chunks=(16, 8))
            f.create_dataset('w', data=rng.random((256, 200)), chunks=(16, 8))


def dump(program, path, name):
    return subprocess.run([program, path, name], capture_output=True, text=True, check=True).stdout


def index(program, path, *names):
    # HDF5's issue 3003, fixed in 1.14.4: the userblock left out of chunk addresses
    old = h5py.version.hdf5_version_tuple < (1, 14, 4)
    for name in names:
        with h5py.File(path) as f:
            base = f.userblock_size if old else 0
            dsid = f[name].id
            space = dsid.get_space()
            want = [f'index {dsid.get_num_chunks(space)}']
            for i in range(dsid.get_num_chunks(space)):
                c = dsid.get_chunk_info(i, space)
                want.append(','.join(map(str, c.chunk_offset)) +
                            f' {base + c.byte_offset} {c.size} {c.filter_mask}')
        got = dump(program, path, name).splitlines()
        if got != want:
            bad = next(i for i, (a, b) in enumerate(zip(got + [''] * len(want), want)) if a != b)
            raise Failure(f'{path}:{name}: line {bad + 1} of {len(want)}: {got[bad:bad + 1]}, '
                          f'h5py {want[bad]!r}')
        placed(path, name, got[1:])


def placed(path, name, lines):
    """The bytes at each chunk's address of LINES (chunkindexdump's) are
    the chunk h5py's read_direct_chunk reads."""
    with h5py.File(path) as f, open(path, 'rb') as raw:
        dsid = f[name].id
        for line in lines:
            offset, addr, size, _ = line.split()
            raw.seek(int(addr))
            if raw.read(int(size)) != dsid.read_direct_chunk(tuple(map(int, offset.split(','))))[1]:
                raise Failure(f'{path}:{name}: chunk {offset}: not the bytes at {addr}')


def refused(program, path, *names):
    for name in names:
        got = dump(program, path, name)
        if got != 'refused\n':
            raise Failure(f'{path}:{name}: {got[:200]!r}, not refused')
        with h5py.File(path) as f:
            f[name][()]


def journals(*reports):
    counts = []
    for report in reports:
        counts.append([(r['journal_records'], r['journal_bytes'])
                       for r in json.load(open(report))['per_rank']])
        if counts[-1] != counts[0]:
            raise Failure(f'{report}: journal (records, bytes) {counts[-1]}, '
                          f'{reports[0]}: {counts[0]}')


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
READ = re.compile(r'(?:pread64|preadv2?|read)\((\d+),.*\)\s+=\s+(\d+)$')


def traced(prefix, wanted, call):
    """(log, match) for each line of the strace logs PREFIX.* (one a
    process) that CALL matches, its group 1 a descriptor whose opening
    WANTED(path, line) accepted."""
    logs = glob.glob(prefix + '.*')
    if not logs:
        raise Failure(f'no strace logs {prefix}.*')
    for name in logs:
        fds = {}
        for line in open(name):
            line = line.rstrip('\n')
            m = OPEN.match(line)
            if m:
                fds[m.group(2)] = wanted(m.group(1), line)
                continue
            m = call.match(line)
            if m and fds.get(m.group(1)):
                yield name, m


def read_sizes(prefix, path, mine=False):
    """The sizes of the reads of PATH in the strace logs PREFIX.*; MINE:
    only those through descriptors opened O_RDONLY|O_CLOEXEC, as the
    direct reader opens its own under MPI-IO (HDF5's drivers open without
    O_CLOEXEC), of PATH or of its temporary name while a run writes it."""
    def wanted(name, line):
        base = os.path.basename(name)
        return (', O_RDONLY|O_CLOEXEC)' in line and (base == path or base.startswith(f'.{path}.h5ufunc-'))
                if mine else name.endswith(path))
    return [int(m.group(2)) for _, m in traced(prefix, wanted, READ)]


def reads(prefix, path, calls, nbytes):
    sizes = read_sizes(prefix, path)
    count, total = len(sizes), sum(sizes)
    if count > int(calls) or total > int(nbytes):
        raise Failure(f'{prefix}: {path}: {count} reads of {total} bytes, '
                      f'more than {calls} reads or {nbytes} bytes')


# a positioned read: descriptor, bytes asked (pread64) or buffers
# (preadv, which fills them from one offset on), offset, bytes read
PREAD = re.compile(r'(?:pread64|preadv)\((\d+),.*, (\d+), (\d+)\)\s+=\s+(\d+)$')
PREADV2 = re.compile(r'preadv2\((\d+),.*\)\s+=\s+(\d+)$')


WRITE = re.compile(r'(?:pwrite64|pwritev2?|write)\((\d+),.*\)\s+=\s+(\d+)$')


def moved(prefix, path, nbytes):
    wanted = lambda name, line: name.endswith(path)
    for what, call in (('read', READ), ('written', WRITE)):
        total = sum(int(m.group(2)) for _, m in traced(prefix, wanted, call))
        if total > int(nbytes):
            raise Failure(f'{prefix}: {path}: {total} bytes {what}, more than {nbytes}')


def journaled(prefix, path, nbytes):
    journal = lambda name, line: os.path.basename(name).startswith(f'.{os.path.basename(path)}.h5ufunc-journal')  # noqa: E731
    total = sum(int(m.group(2)) for _, m in traced(prefix, journal, WRITE))
    if total > int(nbytes):
        raise Failure(f'{prefix}: the journals of {path}: {total} bytes written, more than {nbytes}')
    own = [m for _, m in traced(prefix, lambda name, line: name.endswith(path), WRITE)
           if re.match(r'pwritev2?\(', m.group(0))]
    if not own:
        raise Failure(f'{prefix}: {path}: no pwritev of its chunks')


def runs(prefix, path, names, alone):
    chunks = []   # (start, end, mask of the bytes that hold elements, not a ragged edge's padding)
    with h5py.File(path) as f:
        for name in names.split(','):
            d = f[name]
            for k in range(d.id.get_num_chunks()):
                i = d.id.get_chunk_info(k)
                mask = np.zeros(d.chunks + (d.dtype.itemsize,), bool)
                mask[tuple(slice(0, min(c, n - o)) for c, n, o in zip(d.chunks, d.shape, i.chunk_offset))] = True
                chunks.append((i.byte_offset, i.byte_offset + i.size, mask.reshape(-1)))
    chunks.sort(key=lambda c: c[0])
    starts = [c[0] for c in chunks]
    seen = [{} for _ in chunks]   # per chunk, per log: how often each byte was read
    for name, m in traced(prefix, lambda name, line: name.endswith(path), PREADV2):
        raise Failure(f'{prefix}: {path}: a preadv2, whose offset is not placed: {m.group(0)}')
    for name, m in traced(prefix, lambda name, line: name.endswith(path), PREAD):
        at, n = int(m.group(3)), int(m.group(4))
        k = int(np.searchsorted(starts, at, side='right')) - 1
        if k >= 0 and at + n <= chunks[k][1]:
            lo, hi, _ = chunks[k]
            got = seen[k].setdefault(name, np.zeros(hi - lo, np.int32))
            got[at - lo:at - lo + n] += 1
    for (lo, hi, mask), each in zip(chunks, seen):
        every = sum(each.values()) if each else np.zeros(hi - lo, np.int32)
        ragged = not mask.all()
        # a ragged edge chunk: read in runs with its padding, or whole
        # through HDF5 where a box's part of it is no run, once by each
        # process that reads some of it
        once = max(g.max() for g in each.values()) if each else 0
        if (every[mask] < 1).any() or once > 1 or (not ragged and every.max() > 1):
            bad = int(np.argmax((every > 1) | (mask & (every < 1))))
            raise Failure(f'{prefix}: {path}: chunk at {lo} ({hi - lo} bytes{", ragged" if ragged else ""}): '
                          f'byte {bad} read {every[bad]} times by {len(each)} processes')
        if alone == '1' and len(each) > 1:
            raise Failure(f'{prefix}: {path}: chunk at {lo} read by {len(each)} processes')


def whole(prefix, path, size, count, mine=False):
    got = read_sizes(prefix, path, mine).count(int(size))
    if got != int(count):
        raise Failure(f'{prefix}: {path}: {got} reads of {size} bytes{" through its own descriptors" if mine else ""}, '
                      f'not {count}')


def own(prefix, path, size, count):
    whole(prefix, path, size, count, mine=True)


def same(inp, out, *pairs):
    if not pairs or len(pairs) % 2:
        raise Usage('PATH EXPR pairs wanted')
    env = {}
    for name in inp.split(','):
        with h5py.File(name) as f:
            env.update({k: f[k][()] for k in f if f[k].ndim == 0 or f[k].size < 1 << 24})
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
    jobs = {f.__name__: words(f) for f in (make, square, moved, reads, runs, whole, own, same, decoded, filters,
                                              stored, index, refused, continued, journals)}
    jobs['index-files'] = words(index_files)
    jobs['in-place'] = words(in_place)
    jobs['wide-named'] = words(wide_named)
    jobs['journaled'] = words(journaled)
    jobs['userblock-files'] = words(userblock_files)
    h5ref.main(jobs, 'chunks_ref.py')
