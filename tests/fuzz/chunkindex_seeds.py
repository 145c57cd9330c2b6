#!/usr/bin/python3
"""chunkindex_seeds.py DIR - seeds of tests/fuzz/fuzz_chunkindex.c: small
h5py files whose chunk index chunkindex.c reads, each behind the header
that fuzz_chunkindex.c reads first (its sizes, K, the axes, the userblock,
the object header's address, the chunks stored, a chunk's extents and
the chunks along each axis).

Version-1 B-trees under object headers of version 1 and 2 (libver
earliest, v108): 1-d with three levels of nodes, 2-d ragged, 3-d sparse, a
512-byte userblock, and a 10-d dataset whose layout message lies in a
continuation block (allocated early: the B-tree's root follows the first
block before the layout message is added).
"""
import os
import struct
import sys
import tempfile

import h5py
import numpy as np


def plain(f, name, shape, chunks, written=None):
    d = f.create_dataset(name, shape, 'f8', chunks=chunks)
    d[written if written is not None else ()] = 1.5


def early(f, name, shape, chunks):
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk(chunks)
    dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
    dsid = h5py.h5d.create(f.id, name.encode(), h5py.h5t.IEEE_F64LE, h5py.h5s.create_simple(shape),
                           dcpl=dcpl)
    h5py.Dataset(dsid)[...] = 2.5


CASES = [
    ('a1', {}, lambda f: plain(f, 'x', (300,), (2,))),
    ('a2', {}, lambda f: plain(f, 'x', (20, 30), (4, 7))),
    ('s3', {}, lambda f: plain(f, 'x', (12, 10, 8), (3, 2, 4), np.s_[::5, 1:3, ::7])),
    ('ub', {'userblock_size': 512}, lambda f: plain(f, 'x', (20, 30), (4, 7))),
    ('deep', {}, lambda f: early(f, 'x', (2, 2) + (1,) * 8, (1,) * 10)),
]


def seed(path, fcpl_userblock):
    with h5py.File(path) as f:
        dsid = f['x'].id
        oh = h5py.h5o.get_info(dsid).addr
        count = dsid.get_num_chunks(dsid.get_space())
        chunks = dsid.get_create_plist().get_chunk()
        shape = f['x'].shape
    head = struct.pack('<BBBBHQH', 8 - 2, 8 - 2, 32 - 1, len(shape) - 1, fcpl_userblock, oh, count)
    for n, c in zip(shape, chunks):
        head += bytes([c - 1, -(-n // c) - 1])
    with open(path, 'rb') as raw:
        return head + raw.read()


def main(out):
    for name, opts, make in CASES:
        for libver in ('earliest', 'v108'):
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, 'f.h5')
                with h5py.File(path, 'w', libver=libver, **opts) as f:
                    make(f)
                data = seed(path, opts.get('userblock_size', 0))
            if len(data) > 65536:
                sys.exit(f'chunkindex_seeds.py: {name}: {len(data)} bytes, over 64 KiB')
            with open(os.path.join(out, f'{name}-{libver}'), 'wb') as s:
                s.write(data)


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: chunkindex_seeds.py DIR')
    main(sys.argv[1])
