#!/usr/bin/python3
"""ranks_ref.py - fixtures and NumPy references for 61-ranks.bats and 60-slurm.bats.

Jobs (JOB [:: JOB]...):
  make DIR            write DIR/in.h5: a float64 (13,7), b float64 (7,),
                      i int64 (13,7) chunked (4,3), c float32 (13,7) chunked
                      and gzip-compressed, and DIR/rep.yaml, the recipe that
                      runs every kind of step on them (elementwise, fused,
                      reduce along 0, 1, both with keepdims and all, accumulate
                      along 0 and 1, outer, a selection, a compressed output, a
                      new dataset in an existing file, in place)
  check ORIG DIR      compare what rep.yaml wrote in DIR with NumPy on ORIG
                      (the in.h5 it started from): every value exact (the
                      reductions are over integers)
  chunks FILE FILE    the same datasets (dtype, shape, values) and, for every
                      chunked one, the same stored bytes of every chunk
                      (compressed as written), wherever in the file they lie
  scale MAN JSON...   the scale model of h5ufunc(1), SCALING, against the
                      per_rank counts of `--json` runs of W1 on P = 1, 2, 4,
                      8, 16, 32 ranks (one JSON file per run, in that order),
                      and the man page's table against the same counts
Exit status 0 when every check passed; what failed is printed.
"""

import json
import math
import re

import h5py
import numpy as np

import h5ref as ref
from h5ref import Failure

RECIPE = """\
inputs: {a: in.h5:/a, b: in.h5:/b, i: in.h5:/i, c: in.h5:/c}
steps:
  - {ufunc: hypot, in: [a, b], out: out.h5:/hyp}
  - {expr: sqrt(a * a + 2.5) * b, out: out.h5:/fused}
  - {reduce: add, in: i, axis: 0, out: out.h5:/r0}
  - {reduce: add, in: i, axis: 1, out: out.h5:/r1}
  - {reduce: maximum, in: i, axis: null, out: out.h5:/rall}
  - {reduce: add, in: i, axis: [0, 1], keepdims: true, out: out.h5:/rk}
  - {accumulate: add, in: i, axis: 0, out: out.h5:/s0}
  - {accumulate: add, in: i, axis: 1, out: out.h5:/s1}
  - {outer: subtract, in: [b, b], out: out.h5:/outer}
  - {ufunc: negative, in: "in.h5:/a[1:12:2, ::3]", out: out.h5:/g/sel}
  - {ufunc: add, in: [i, 1], chunks: [4, 3], compression: gzip:4, out: gz.h5:/gz}
  - {ufunc: negative, in: a, out: in.h5:/neg}
  - {ufunc: multiply, in: [c, 2], out: c}
"""

def expect(bad, label, want, got):
    """Add to BAD unless GOT is WANT: dtype, shape and bits (NaNs equal)."""
    try:
        ref.compare_arrays(label, want, got)
    except Failure as exc:
        bad.append(str(exc))


def make(d):
    r = np.random.default_rng(7)
    with h5py.File(f'{d}/in.h5', 'w') as f:
        f['a'] = r.standard_normal((13, 7))
        f['b'] = r.standard_normal(7)
        f.create_dataset('i', data=r.integers(-1000, 1000, (13, 7)), chunks=(4, 3))
        f.create_dataset('c', data=r.standard_normal((13, 7)).astype('f4'),
                         chunks=(5, 7), compression='gzip')
    with open(f'{d}/rep.yaml', 'w') as f:
        f.write(RECIPE)


def check(orig, d):
    bad = []
    with h5py.File(orig, 'r') as f:
        a, b, i, c = (f[k][()] for k in 'abic')
    want = {
        'hyp': np.hypot(a, b),
        'fused': np.sqrt(a * a + 2.5) * b,
        'r0': np.add.reduce(i, axis=0),
        'r1': np.add.reduce(i, axis=1),
        'rall': np.maximum.reduce(i, axis=None),
        'rk': np.add.reduce(i, axis=(0, 1), keepdims=True),
        's0': np.add.accumulate(i, axis=0),
        's1': np.add.accumulate(i, axis=1),
        'outer': np.subtract.outer(b, b),
        'g/sel': np.negative(a[1:12:2, ::3]),
    }
    for k, v in want.items():
        expect(bad, f'out.h5:/{k}', v, ref.read_ref(f'{d}/out.h5:/{k}'))
    expect(bad, 'gz.h5:/gz', np.add(i, 1), ref.read_ref(f'{d}/gz.h5:/gz'))
    with h5py.File(f'{d}/gz.h5', 'r') as f:
        gz = f['gz']
        if gz.compression != 'gzip' or gz.chunks != (4, 3):
            bad.append(f'gz.h5:/gz is not chunked (4, 3) and gzip-compressed: {gz.chunks} {gz.compression}')
    for k, v in (('neg', np.negative(a)), ('c', np.multiply(c, 2)), ('a', a), ('i', i)):
        expect(bad, f'in.h5:/{k}', v, ref.read_ref(f'{d}/in.h5:/{k}'))
    return bad


# ---- the scale model (h5ufunc(1), SCALING) --------------------------------
#
# W1, c = sqrt(a*a + b*b), a and b float64 (R, C) in one file, c to a new
# file, --memory giving blocks of ROWS_PER_BLOCK rows.  Per rank r of P:

R, C, ROWS_PER_BLOCK, NIN, NOUT = 64, 32, 5, 2, 1
FILES_OPENED = 3          # the input file twice (plan, run), the output once


def rows(P, r):
    return R // P + (1 if r < R % P else 0)


def model(P, r):
    blocks = math.ceil(math.ceil(R / P) / ROWS_PER_BLOCK)
    return {
        'elements': NIN * rows(P, r) * C,
        'bytes_read': 8 * NIN * rows(P, r) * C,
        'bytes_written': 8 * NOUT * rows(P, r) * C,
        'h5_reads': NIN * blocks,
        'h5_writes': NOUT * blocks,
        'mpiio_data_reads': NIN * blocks,    # each data call one MPI-IO call
        'mpiio_data_writes': NOUT * blocks,
        'h5_opens': FILES_OPENED,
        'mpiio_opens': FILES_OPENED,
    }


def metadata(entry):
    """The counts of one rank's entry that the model holds constant: its
    metadata operations, and the MPI-IO reads and writes beyond the data's
    (the model: every data read and write is one collective MPI-IO call)."""
    return (entry['h5_metadata'], entry['mpiio_reads'] - entry['h5_reads'],
            entry['mpiio_writes'] - entry['h5_writes'])


def man_table(path, bad):
    """The rows of the SCALING table: P, then the per-rank counts."""
    text = open(path).read()
    m = re.search(r'\.\\" scaling-table-begin\n(.*?)\.\\" scaling-table-end', text, re.S)
    if not m:
        bad.append(f'{path}: no scaling table (between .\\" scaling-table-begin and -end)')
        return {}
    table = {}
    for line in m.group(1).splitlines():
        cells = line.split()
        if len(cells) > 1 and cells[0].isdigit():
            table[int(cells[0])] = cells[1:]
    return table


def scale(man, *files):
    bad = []
    runs = [json.load(open(f)) for f in files]
    ps = [1, 2, 4, 8, 16, 32]
    if [d['ranks'] for d in runs] != ps:
        bad.append(f'runs on {[d["ranks"] for d in runs]} ranks, want {ps}')
        return bad
    first = None
    measured = {}
    for P, d in zip(ps, runs):
        per = d['per_rank']
        if [e['rank'] for e in per] != list(range(P)):
            bad.append(f'P={P}: per_rank ranks {[e["rank"] for e in per]}')
            continue
        for e in per:
            for k, v in model(P, e['rank']).items():
                if e[k] != v:
                    bad.append(f'P={P} rank {e["rank"]}: {k} = {e[k]}, the model says {v}')
            # every data call one collective call; every write collective
            if e['mpiio_coll_reads'] != e['h5_reads']:
                bad.append(f'P={P} rank {e["rank"]}: {e["mpiio_coll_reads"]} collective reads, '
                     f'{e["h5_reads"]} data reads')
            if e['mpiio_coll_writes'] != e['mpiio_writes']:
                bad.append(f'P={P} rank {e["rank"]}: {e["mpiio_writes"] - e["mpiio_coll_writes"]} '
                     'independent writes (metadata writes should be collective)')
        # metadata: the same on every rank but for rank 0's extra reads (it
        # reads and broadcasts), and the same at every P
        now = (metadata(per[0]), metadata(per[-1]))
        for e in per[1:]:
            if metadata(e) != metadata(per[-1]):
                bad.append(f'P={P} rank {e["rank"]}: metadata counts {metadata(e)} differ from rank {P - 1}\'s')
        if P > 1 and (now[0][0] != now[1][0] or now[0][2] != now[1][2] or now[0][1] < now[1][1]):
            bad.append(f'P={P}: rank 0\'s metadata counts {now[0]} against {now[1]} on the others')
        if first is None:
            first = now[0]
        elif now[0] != first:
            bad.append(f'P={P}: rank 0\'s metadata counts {now[0]} differ from P=1\'s {first}')
        calls = sum(e['mpiio_reads'] + e['mpiio_writes'] for e in per)
        measured[P] = [str(x) for x in (
            math.ceil(math.ceil(R / P) / ROWS_PER_BLOCK), per[0]['elements'], per[0]['h5_reads'],
            per[0]['h5_writes'], per[0]['h5_opens'], per[0]['h5_metadata'], per[0]['mpiio_reads'],
            per[-1]['mpiio_reads'], per[0]['mpiio_writes'], calls)]
    table = man_table(man, bad)
    for P in ps:
        if P in measured and table.get(P) != measured[P]:
            bad.append(f'{man}: SCALING row for P={P} is {table.get(P)}, measured {measured[P]}')
    return bad


def chunks(one, other):
    bad = ref.same_datasets(one, other)
    if bad:
        return bad
    with h5py.File(one, 'r') as f, h5py.File(other, 'r') as g:
        for n in ref.datasets(one):
            a, b = f[n], g[n]
            if a.chunks != b.chunks or a.compression != b.compression:
                bad.append(f'{other}:{n}: stored with chunks {b.chunks} {b.compression}, want {a.chunks} {a.compression}')
                continue
            for k in range(a.id.get_num_chunks() if a.chunks else 0):
                where = a.id.get_chunk_info(k).chunk_offset
                if a.id.read_direct_chunk(where) != b.id.read_direct_chunk(where):
                    bad.append(f'{other}:{n}: the stored chunk at {where} differs')
    return bad


JOBS = {'make': lambda a: make(a[0]), 'check': ref.checks(check),
        'chunks': ref.checks(chunks), 'scale': ref.checks(scale)}

if __name__ == '__main__':
    ref.main(JOBS, "ranks_ref.py")

