#!/usr/bin/env bats
# 62-parallel-hdf5.bats - parallel HDF5 as its makers advise, each setting
# checked on this HDF5: collective metadata reads and writes (every write
# collective, metadata read by rank 0 and shared, every metadata call made by
# all ranks, seen in --json's per-rank counts), datasets never filled because
# they are written whole, alignment to the stripe from --mpi-info
# striping_unit=, the file-locking failure explained, and a dataset whose
# filter is not available (h5py's lzf) refused by name.

load helper

py() {
	/usr/bin/python3 -c "$@"
}

@test "collective metadata on 2, 3, 4 ranks: all ranks make every metadata call, all writes collective" {
	np make f.h5:/x float64 23,4 attr:units=K :: make f.h5:/y int32 23,4 layout=chunked chunks=5,4
	cat >r.yaml <<-'EOF'
		steps:
		  - ufunc: sqrt
		    in: f.h5:/x
		    out: out.h5:/g/h/s          # a new file, new groups
		  - ufunc: add
		    in: [f.h5:/y, 1]
		    out: f.h5:/new/y1           # a new dataset in an existing file
		  - ufunc: multiply
		    in: [f.h5:/x, 2]
		    out: f.h5:/x                # in place, its attribute kept
		  - ufunc: negative
		    in: f.h5:/y
		    out: out.h5:/g/h/s2
	EOF
	local n
	for n in 2 3 4; do
		mkdir "r$n"
		cp f.h5 r.yaml "r$n/"
		(cd "r$n" && mpi "$n" h5ufunc run --json r.yaml >run.json) || fail "$n ranks: exit status $?"
		run py '
import json, sys
per = json.load(open(sys.argv[1]))["per_rank"]
for e in per:
    assert e["mpiio_writes"] == e["mpiio_coll_writes"] > 0, ("independent writes", e)
    assert e["mpiio_coll_reads"] == e["h5_reads"], ("data reads not one collective call each", e)
    for k in ("h5_metadata", "h5_opens", "h5_reads", "h5_writes", "mpiio_opens", "mpiio_writes"):
        assert e[k] == per[0][k], (k, e, per[0])
# rank 0 reads the metadata and broadcasts it
others = {e["mpiio_reads"] for e in per[1:]}
assert len(others) == 1 and per[0]["mpiio_reads"] > others.pop(), per
' "r$n/run.json"
		assert_success
		(cd "r$n" && np check sqrt ../f.h5:/x -o out.h5:/g/h/s :: check add ../f.h5:/y 1 -o f.h5:/new/y1 \
			:: check multiply ../f.h5:/x 2 -o f.h5:/x :: check negative ../f.h5:/y -o out.h5:/g/h/s2 \
			:: attrs f.h5:/x units=K :: history f.h5 --first "h5ufunc run --json r.yaml" \
			:: history out.h5 --first "h5ufunc run --json r.yaml") || fail "$n ranks: results"
	done
}

@test "datasets written whole are never filled and allocated at creation, on 1 process and 2 ranks" {
	np make f.h5:/x float32 40,6
	h5u call sqrt f.h5:/x -o one.h5:/c
	mpi 2 h5ufunc call sqrt f.h5:/x -o two.h5:/c
	cat >r.yaml <<-'EOF'
		steps:
		  - ufunc: sqrt
		    in: f.h5:/x
		    chunks: [8, 3]
		    out: two.h5:/chunked
		  - ufunc: sqrt
		    in: f.h5:/x
		    compression: gzip
		    out: two.h5:/gzip
	EOF
	mpi 2 h5ufunc run r.yaml
	run py '
import h5py
from h5py import h5d
for name in ("one.h5:/c", "two.h5:/c", "two.h5:/chunked", "two.h5:/gzip"):
    f, path = name.split(":")
    plist = h5py.File(f, "r")[path].id.get_create_plist()
    assert plist.get_fill_time() == h5d.FILL_TIME_NEVER, (name, plist.get_fill_time())
    assert plist.get_alloc_time() == h5d.ALLOC_TIME_EARLY, (name, plist.get_alloc_time())
'
	assert_success
	np check sqrt f.h5:/x -o one.h5:/c :: check sqrt f.h5:/x -o two.h5:/c :: check sqrt f.h5:/x -o two.h5:/chunked \
		:: check sqrt f.h5:/x -o two.h5:/gzip
}

@test "--mpi-info striping_unit= aligns datasets of 64 KiB and more to the stripe, and changes no value" {
	np make f.h5:/big float64 128,64 :: make f.h5:/small float64 10
	mpi 2 h5ufunc call sqrt f.h5:/big -o a.h5:/big --mpi-info striping_unit=1048576
	mpi 2 h5ufunc call sqrt f.h5:/small -o s.h5:/small --mpi-info striping_unit=1048576
	h5u call sqrt f.h5:/big -o b.h5:/big --mpi-info striping_unit=65536
	mpi 2 h5ufunc call sqrt f.h5:/big -o c.h5:/big
	run py '
import h5py
def offset(name):
    f, path = name.split(":")
    return h5py.File(f, "r")[path].id.get_offset()
assert offset("a.h5:/big") % 1048576 == 0, offset("a.h5:/big")
assert offset("s.h5:/small") < 65536, offset("s.h5:/small")       # packed, not aligned
assert offset("b.h5:/big") % 65536 == 0, offset("b.h5:/big")
assert offset("c.h5:/big") % 65536 != 0, offset("c.h5:/big")     # no hint, no alignment
'
	assert_success
	np check sqrt f.h5:/big -o a.h5:/big :: check sqrt f.h5:/small -o s.h5:/small \
		:: check sqrt f.h5:/big -o b.h5:/big :: check sqrt f.h5:/big -o c.h5:/big
}

@test "a file system without file locking: the message says so, and HDF5_USE_FILE_LOCKING=FALSE works" {
	# flock() failing as on a mount without locks (ENOLCK), for h5ufunc alone
	cat >nolock.c <<-'EOF'
		#include <errno.h>
		int flock(int fd, int op) { (void)fd; (void)op; errno = ENOLCK; return -1; }
	EOF
	gcc -shared -fPIC -o nolock.so nolock.c
	np make f.h5:/x float64 6
	snapshot
	# (a sanitizer build must not insist on coming first in the preload list)
	run --separate-stderr env LD_PRELOAD="$PWD/nolock.so" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		h5ufunc call sqrt f.h5:/x -o f.h5:/x
	assert_error 2 "call sqrt: cannot open 'f.h5' (HDF5: unable to lock file: No locks available); this file system does not support file locking, as some Lustre and NFS mounts do not: set HDF5_USE_FILE_LOCKING=FALSE"
	assert_unchanged
	run --separate-stderr env LD_PRELOAD="$PWD/nolock.so" HDF5_USE_FILE_LOCKING=FALSE \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		h5ufunc call sqrt f.h5:/x -o g.h5:/y
	assert_success
	np check sqrt f.h5:/x -o g.h5:/y
}

@test "a dataset stored with h5py's lzf filter is refused by name, exit 2, nothing written, said once" {
	py '
import h5py, numpy as np
with h5py.File("f.h5", "w") as f:
    f.create_dataset("z", data=np.arange(12.0).reshape(4, 3), compression="lzf")
    f["plain"] = np.arange(3.0)
'
	snapshot
	local msg="'f.h5:/z' is stored with the lzf filter (HDF5 filter 32000), which is not available to h5ufunc"
	run --separate-stderr h5u call sqrt f.h5:/z -o out.h5:/y
	assert_error 2 "call sqrt: $msg"
	run --separate-stderr h5u call multiply f.h5:/z 2 -o f.h5:/z
	assert_error 2 "call multiply: $msg"
	run --separate-stderr mpi 3 h5ufunc reduce add f.h5:/z -o out.h5:/y
	assert_error_once 2 "reduce add: $msg"
	assert_unchanged
}
