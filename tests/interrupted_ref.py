#!/usr/bin/python3
"""interrupted_ref.py - h5py's view of a file that an interrupted h5ufunc run
wrote in place, for tests/43-interrupted.bats.

A file after an interrupted run must be wholly one of two things: the file
as it was before the run (byte for byte: a rollback puts every byte back),
or the file an uninterrupted run makes (every object as that run leaves it:
its bytes on disk may sit elsewhere, its history line has another time).
Either way every object opens and reads through h5py, filters included.

Usage:  interrupted_ref.py JOB [:: JOB]...  (exit 0 when every job passed, 1
when a check failed, 2 on a malformed job; tests/h5ref.py runs the jobs)

Jobs:
  make FILE
      the fixture: float64 datasets /c (contiguous), /k (chunked) and /z
      (chunked, gzip), 400x30 each, beside what must survive any run: an
      int32 dataset, a group with attributes and a dataset, a dimension
      scale attached to /c and /k, an attribute holding object references,
      and a root history attribute
  verify BEFORE AFTER FILE=STATE...
      STATE old: FILE has the same bytes as BEFORE; new: every object of
      FILE equals AFTER's (dtype, shape, layout, filters, data, attributes,
      references by the names they point to; history lines without their
      times); either: one of the two.  Every object of FILE is read whole.
      Fails naming each FILE that fails and why.
  scattered FILE
      /s, float64 (16, 4096) in 512 chunks (16, 8), stored last chunk
      first, so that no chunk lies after the one before it in the file
  runs FILE PATH
      prints how many runs PATH's chunks make in FILE (chunks that lie one
      after another in the file are a run; the chunk index's nodes lie
      between some)
  twice BEFORE AFTER PATH
      AFTER's PATH is NumPy's BEFORE's PATH * 2 + 1, bit for bit
  saved [--run] FILE DATASETS REPORT...
      each REPORT is the --json of an uninterrupted run (on any number of
      ranks) that wrote the comma-separated DATASETS of (a copy of) FILE in
      place, whole: on every rank the journal saved exactly the bytes the
      rank wrote (bytes_written) plus the few bytes of HDF5's metadata it
      rewrote (under METADATA in all), the ranks' bytes written add up to
      the datasets' storage in FILE, and the journal of every REPORT holds
      as many bytes in all as the first's (the metadata saved once).
      --run: writes nobody announced (chunks through MPI-IO): a rank may
      also save up to RUN bytes past the end of each run of its writes
  once DIR BEFORE
      the ranks' journals in DIR, left by a run killed at its commit point,
      hold each byte of BEFORE (the file before that run) at most once in
      all (but TWICE bytes, for a rank that saves while another shares
      the same bytes), and none past its end: no rank saves again what it
      or another saved, whatever writes it (journal.c's shared ranges)
"""
import glob
import hashlib
import json
import os
import re
import struct

import h5py
import numpy as np

import h5ref as ref
from h5ref import Usage

SHAPE = (400, 30)
CHUNKS = (50, 30)


def make(path):
    rng = np.random.default_rng(24)
    with h5py.File(path, "w") as f:
        f.attrs["history"] = "Mon Jan 05 10:00:00 2026: made by interrupted_ref.py"
        f.attrs["title"] = "what an interrupted run must not lose"
        f.create_dataset("c", data=rng.standard_normal(SHAPE))
        f.create_dataset("k", data=rng.standard_normal(SHAPE), chunks=CHUNKS)
        f.create_dataset("z", data=rng.standard_normal(SHAPE), chunks=CHUNKS,
                         compression="gzip", compression_opts=4)
        f.create_dataset("n", data=np.arange(1000, dtype=np.int32))
        g = f.create_group("g")
        g.attrs["units"] = "K"
        g.attrs["scale"] = np.float32(0.5)
        g.create_dataset("d", data=rng.integers(0, 100, (17, 3)), chunks=(4, 3),
                         compression="gzip")
        x = f.create_dataset("x", data=np.arange(SHAPE[0], dtype=np.float64))
        x.make_scale("x")
        f["c"].dims[0].attach_scale(x)
        f["k"].dims[0].attach_scale(x)
        f["c"].attrs["note"] = "contiguous"
        refs = np.array([f["c"].ref, f["g/d"].ref], dtype=h5py.ref_dtype)
        f.attrs.create("refs", refs, dtype=h5py.ref_dtype)


STAMP = re.compile(r"^[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d \d{4}: ", re.M)


def value(f, v):
    """An attribute's value, comparable: references become names, history
    lines lose their times."""
    if isinstance(v, h5py.Reference):
        return ("ref", f[v].name if v else None)
    if isinstance(v, np.ndarray):
        if v.dtype == h5py.ref_dtype or (v.dtype.kind == "O" and v.size and
                                         isinstance(v.flat[0], h5py.Reference)):
            return ("refs", tuple(value(f, r) for r in v.flat))
        if v.dtype.kind == "O":
            return ("objects", tuple(value(f, x) for x in v.flat))
        if v.dtype.names:   # a compound: REFERENCE_LIST holds references
            return ("records", tuple(tuple(value(f, r[n]) for n in v.dtype.names)
                                     for r in v.flat))
        return ("array", str(v.dtype), v.shape, v.tobytes())
    if isinstance(v, bytes):
        v = v.decode("utf-8", "replace")
    if isinstance(v, str):
        return ("text", STAMP.sub("", v))
    if isinstance(v, np.generic):
        return ("scalar", str(v.dtype), v.tobytes())
    return ("scalar", repr(v))


def digest(path):
    """Every object of PATH, read whole: {name: description}."""
    out = {}
    with h5py.File(path, "r") as f:
        out["/"] = ("group", tuple(sorted((k, value(f, f.attrs[k])) for k in f.attrs)))

        def visit(name, obj):
            attrs = tuple(sorted((k, value(f, obj.attrs[k])) for k in obj.attrs))
            if isinstance(obj, h5py.Dataset):
                data = obj[()]
                out[name] = ("dataset", str(obj.dtype), obj.shape, obj.chunks,
                             obj.compression, obj.compression_opts,
                             hashlib.sha256(np.ascontiguousarray(data).tobytes()).hexdigest(),
                             attrs)
            else:
                out[name] = ("group", attrs)
        f.visititems(visit)
    return out


def differences(a, b):
    names = sorted(set(a) | set(b))
    return [n for n in names if a.get(n) != b.get(n)]


def verify(before, after, *cases):
    old_bytes = open(before, "rb").read()
    new = digest(after)
    old = digest(before)
    failed = []
    for case in cases:
        path, _, state = case.rpartition("=")
        try:
            same_bytes = open(path, "rb").read() == old_bytes
            d = digest(path)
        except Exception as exc:   # the file, or an object in it, does not read
            failed.append(f"{path}: does not read back: {exc}")
            continue
        is_new = d == new
        if state == "old" and not same_bytes:
            failed.append(f"{path}: not byte-identical to the file before the run "
                          f"(objects that differ: {differences(old, d)})")
        elif state == "new" and not is_new:
            failed.append(f"{path}: not what the uninterrupted run made "
                          f"(objects that differ: {differences(new, d)})")
        elif state == "either" and not (same_bytes or is_new):
            failed.append(f"{path}: neither the file before the run nor after it "
                          f"(differs from before: {differences(old, d)}; "
                          f"from after: {differences(new, d)})")
        elif state not in ("old", "new", "either"):
            raise Usage(f"{case}: unknown state (old, new or either)")
    return failed


METADATA = 512   # HDF5's superblock and the like, rewritten at the end
RUN = 4 << 20    # journal.c's RUN_MAX
TWICE = 8192     # two 4 KiB blocks (journal.c's SAME_BLOCK)
RANK_HEAD = 64   # journal_disk.h's struct disk_rank ...
RECORD = struct.Struct("=QQQQQ")   # ... and struct disk_record
RECORD_MAGIC = 0x31636572754a3568


def saved(path, datasets, *reports, run=False):
    with h5py.File(path, "r") as f:
        storage = sum(f[d].id.get_storage_size() for d in datasets.split(","))
    failed, first = [], None
    for report in reports:
        ranks = json.load(open(report))["per_rank"]
        total = sum(r["journal_bytes"] for r in ranks)
        first = total if first is None else first
        slack = METADATA + (RUN if run else 0)
        for r in ranks:
            extra = r["journal_bytes"] - r["bytes_written"]
            if not 0 <= extra < slack:
                failed.append(f"{report}: rank {r['rank']} of {len(ranks)} saved "
                              f"{r['journal_bytes']} bytes, wrote {r['bytes_written']}")
        written = sum(r["bytes_written"] for r in ranks)
        if written != storage:
            failed.append(f"{report}: the ranks wrote {written} bytes, the datasets hold {storage}")
        if not storage <= total < storage + slack * len(ranks) or (total != first and not run):
            failed.append(f"{report}: the journal saved {total} bytes on {len(ranks)} ranks, "
                          f"{first} on the first run's, for {storage} bytes of data")
    return failed


def once(folder, before):
    size = os.path.getsize(before)
    failed, ranges = [], []
    paths = glob.glob(os.path.join(folder, ".*.h5ufunc-journal.*.*"))
    if len(paths) < 2:
        return [f"{folder}: {len(paths)} ranks' journals, not those of a run of several ranks"]
    for path in paths:
        with open(path, "rb") as j:
            data = j.read()
        at = RANK_HEAD
        while at + RECORD.size <= len(data):
            magic, _, offset, length, _ = RECORD.unpack_from(data, at)
            if magic != RECORD_MAGIC:
                break
            if offset + length > size:
                failed.append(f"{path}: a record of [{offset}, {offset + length}) past the end {size}")
            ranges.append((offset, offset + length))
            at += RECORD.size + length
    total, union, reach = 0, 0, 0
    for lo, hi in sorted(ranges):
        total += hi - lo
        union += max(0, hi - max(lo, reach))
        reach = max(reach, hi)
    if total - union > TWICE:
        failed.append(f"{folder}: the journals hold {total} bytes, {total - union} of them twice "
                      f"({union} bytes of the file saved)")
    return failed


def scattered(path):
    rng = np.random.default_rng(28)
    a = rng.standard_normal((16, 4096))
    with h5py.File(path, "w") as f:
        d = f.create_dataset("s", shape=a.shape, dtype="f8", chunks=(16, 8))
        for j in reversed(range(4096 // 8)):
            d.id.write_direct_chunk((0, 8 * j), np.ascontiguousarray(a[:, 8 * j:8 * j + 8]).tobytes())


def job_once(args):
    if len(args) != 2:
        raise Usage("want DIR BEFORE")
    ref.checks(once)(args)


def job_scattered(args):
    if len(args) != 1:
        raise Usage("want FILE")
    scattered(args[0])


def job_runs(args):
    if len(args) != 2:
        raise Usage("want FILE PATH")
    with h5py.File(args[0], "r") as f:
        d = f[args[1]].id
        extents = sorted((c.byte_offset, c.byte_offset + c.size)
                         for c in map(d.get_chunk_info, range(d.get_num_chunks())))
    print(1 + sum(1 for a, b in zip(extents, extents[1:]) if a[1] != b[0]))


def job_twice(args):
    if len(args) != 3:
        raise Usage("want BEFORE AFTER PATH")
    before, after, path = args
    with h5py.File(before, "r") as f:
        want = f[path][()] * 2 + 1
    ref.compare_arrays(f"{after}:{path} (NumPy's a * 2 + 1)", want, ref.read_ref(f"{after}:{path}"))


def job_make(args):
    if len(args) != 1:
        raise Usage("want FILE")
    make(args[0])


def job_verify(args):
    if len(args) < 3:
        raise Usage("want BEFORE AFTER FILE=STATE...")
    ref.checks(verify)(args)


def job_saved(args):
    run = args[:1] == ["--run"]
    args = args[1:] if run else args
    if len(args) < 3:
        raise Usage("want [--run] FILE DATASETS REPORT...")
    ref.checks(lambda *a: saved(*a, run=run))(args)


JOBS = {'make': job_make, 'verify': job_verify, 'saved': job_saved, 'scattered': job_scattered,
        'runs': job_runs, 'twice': job_twice, 'once': job_once}

if __name__ == "__main__":
    ref.main(JOBS, "interrupted_ref.py")
