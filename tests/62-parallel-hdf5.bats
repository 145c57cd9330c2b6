#!/usr/bin/env bats
# 62-parallel-hdf5.bats - parallel HDF5 as its makers advise, each setting
# checked on this HDF5: collective metadata reads and writes (every write
# collective, metadata read by rank 0 and shared, every metadata call made by
# all ranks, seen in --json's per-rank counts), datasets never filled because
# they are written whole, alignment to the stripe from --mpi-info
# striping_unit=, the file-locking failure explained, a dataset whose
# filter is not available refused by name and the package of its plugin,
# and a compact dataset, which HDF5 1.10 cannot write from several ranks.

load helper

py() {
	/usr/bin/python3 -c "$@"
}

@test "collective metadata on 2, 3, 4 ranks: all ranks make every metadata call, all writes collective" {
	# /y's chunks cut its rows, so it is read collectively too (in
	# chunks of whole rows each rank would move it alone: 71-chunks.bats)
	np make f.h5:/x float64 23,4 attr:units=K :: make f.h5:/y int32 23,4 layout=chunked chunks=5,3
	cat >r.yaml <<-'EOF'
		steps:
		  - {ufunc: sqrt, in: f.h5:/x, out: out.h5:/g/h/s}   # a new file, new groups
		  - {ufunc: add, in: [f.h5:/y, 1], out: f.h5:/new/y1}   # a new dataset in an existing file
		  - {ufunc: multiply, in: [f.h5:/x, 2], out: f.h5:/x}   # in place, its attribute kept
		  - {ufunc: negative, in: f.h5:/y, out: out.h5:/g/h/s2}
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
    assert e["mpiio_data_reads"] == e["h5_reads"], ("MPI-IO reads within data calls", e)
    assert e["mpiio_data_writes"] == e["h5_writes"], ("MPI-IO writes within data calls", e)
    for k in ("h5_metadata", "h5_opens", "h5_reads", "h5_writes", "mpiio_opens", "mpiio_writes"):
        assert e[k] == per[0][k], (k, e, per[0])
# rank 0 reads the metadata and broadcasts it
meta = [e["mpiio_reads"] - e["mpiio_data_reads"] for e in per]
assert len(set(meta[1:])) == 1 and meta[0] > meta[1], per
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
		  - {ufunc: sqrt, in: f.h5:/x, chunks: [8, 3], out: two.h5:/chunked}
		  - {ufunc: sqrt, in: f.h5:/x, compression: gzip, out: two.h5:/gzip}
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

@test "a compact dataset: read on 1-4 ranks, written in place on one process, refused from several ranks" {
	# A compact dataset's data lives in its object header; every rank
	# holds a copy with its own part written, and HDF5 1.10 keeps one of
	# them, so a write from several ranks lost the others' rows (exit 0).
	np make f.h5:/c float64 5,6 layout=compact :: make f.h5:/x float64 5,6
	cp f.h5 before.h5
	local n
	for n in 1 2 3 4; do
		mpi "$n" h5ufunc call multiply f.h5:/c 2 -o "r$n.h5:/c" || fail "$n ranks: exit status $?"
		np check multiply before.h5:/c 2 -o "r$n.h5:/c"
		cat >r.yaml <<-'EOF'
			steps:
			  - {ufunc: add, in: [f.h5:/x, 1], out: f.h5:/x}
			  - {ufunc: multiply, in: [f.h5:/c, 2], out: f.h5:/c}
		EOF
		((n == 1)) && continue
		run --separate-stderr mpi "$n" h5ufunc run r.yaml
		assert_error_once 2 "r.yaml:3:46: step 2 (ufunc multiply): 'f.h5:/c' is stored compact: HDF5 1.10 cannot write it in place from several ranks (run on one process, or write a new output)"
		run --separate-stderr mpi "$n" h5ufunc at add f.h5:/c --indices 0,1 1
		assert_error_once 2 "at add: 'f.h5:/c' is stored compact: HDF5 1.10 cannot write it in place from several ranks (run on one process, or write a new output)"
		cmp f.h5 before.h5 || fail "$n ranks: f.h5 changed"
	done
	mpi 1 h5ufunc call multiply f.h5:/c 2 -o f.h5:/c
	np check multiply before.h5:/c 2 -o f.h5:/c
	h5u call multiply f.h5:/c 2 -o f.h5:/c
	np let c2 multiply before.h5:/c 2 :: check multiply c2 2 -o f.h5:/c
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

@test "a filter whose plugin HDF5 cannot find is refused by name and package, exit 2, nothing written, said once" {
	py '
import h5py, numpy as np
with h5py.File("f.h5", "w") as f:
    f.create_dataset("z", data=np.arange(12.0).reshape(4, 3), compression="lzf")
    f["plain"] = np.arange(3.0)
'
	mkdir none
	export HDF5_PLUGIN_PATH=$PWD/none
	snapshot
	local msg="'f.h5:/z' is stored with the lzf filter (HDF5 filter 32000), which is not available to h5ufunc: its plugin is in Debian's package hdf5-plugin-lzf"
	run --separate-stderr h5u call sqrt f.h5:/z -o out.h5:/y
	assert_error 2 "call sqrt: $msg"
	run --separate-stderr h5u call multiply f.h5:/z 2 -o f.h5:/z
	assert_error 2 "call multiply: $msg"
	run --separate-stderr mpi 3 h5ufunc reduce add f.h5:/z -o out.h5:/y
	assert_error_once 2 "reduce add: $msg"
	assert_unchanged
	unset HDF5_PLUGIN_PATH
	run --separate-stderr mpi 3 h5ufunc reduce add f.h5:/z -o out.h5:/y
	assert_success
	py '
import h5py, numpy as np
with h5py.File("f.h5") as f, h5py.File("out.h5") as o:
    assert np.array_equal(o["y"][...], np.add.reduce(f["z"][...])), o["y"][...]
'
}

# io_chosen OUT ERR: the MPI-IO component of every file each rank opened
# (Open MPI's io_base_verbose on ERR), checked to be one and the same, and
# to be chosen as often as --json (OUT) counts MPI_File_open calls.
io_chosen() {
	run py '
import json, re, sys
opens = sum(e["mpiio_opens"] for e in json.load(open(sys.argv[1]))["per_rank"])
chosen = re.findall(r"Selected io module (\w+)", open(sys.argv[2]).read())
assert len(chosen) == opens > 0, (len(chosen), opens)
assert len(set(chosen)) == 1, chosen
print(re.sub(r"\d+$", "", chosen[0]))
' "$1" "$2"
	assert_success
}

@test "Open MPI: ROMIO for every file by default on 1 to 4 ranks; the user's io choice (--mca io, OMPI_MCA_io, a parameter file) kept" {
	# Interleaved chunks of /a and /b, as h5py writes them block by block.
	py '
import h5py, numpy as np
rng = np.random.default_rng(7)
with h5py.File("f.h5", "w") as f:
    a = f.create_dataset("a", (300, 40), "f8", chunks=(32, 8))
    b = f.create_dataset("b", (300, 40), "f8", chunks=(32, 8))
    for r in range(0, 300, 64):
        a[r:r + 64] = rng.standard_normal(a[r:r + 64].shape)
        b[r:r + 64] = rng.standard_normal(b[r:r + 64].shape)
'
	# Where this Open MPI has no ROMIO, h5ufunc keeps Open MPI's default.
	local romio=romio
	ompi_info 2>/dev/null | grep -q 'MCA io: romio' || romio=ompio
	export OMPI_MCA_io_base_verbose=100
	local n expr='sqrt(a*a + b*b)'
	# NumPy's a*a + b*b, exactly, for np.py's check sqrt s
	local squares='let aa multiply f.h5:/a f.h5:/a :: let bb multiply f.h5:/b f.h5:/b :: let s add aa bb'
	for n in 1 2 3 4; do
		if ((n == 1)); then
			h5ufunc eval --mpi --json -i a=f.h5:/a -i b=f.h5:/b "c$n.h5:/c = $expr" >out 2>err
		else
			mpi "$n" h5ufunc eval --json -i a=f.h5:/a -i b=f.h5:/b "c$n.h5:/c = $expr" >out 2>err
		fi
		io_chosen out err
		[[ $output == "$romio" ]] || fail "$n ranks: $output, not $romio"
		np $squares :: check sqrt s -o "c$n.h5:/c"
	done
	# The user's choice wins: mpirun's --mca io (OMPI_MCA_io for its ranks) ...
	mpi 2 --mca io ompio h5ufunc eval --json -i a=f.h5:/a -i b=f.h5:/b "m.h5:/c = $expr" >out 2>err
	io_chosen out err
	[[ $output == ompio ]] || fail "--mca io ompio: $output"
	# ... a parameter file of Open MPI's (the user's own, under HOME) ...
	mkdir -p home/.openmpi
	printf '# the user'"'"'s\n io = ompio\n' >home/.openmpi/mca-params.conf
	HOME=$PWD/home mpi 2 h5ufunc eval --json -i a=f.h5:/a -i b=f.h5:/b "p.h5:/c = $expr" >out 2>err
	io_chosen out err
	[[ $output == ompio ]] || fail "io = ompio in ~/.openmpi/mca-params.conf: $output"
	# ... one named by OMPI_MCA_mca_base_param_files, or OMPI_MCA_io itself;
	# a file that sets other parameters only leaves the choice to h5ufunc.
	printf 'io=ompio\n' >chosen.conf
	printf 'iox = ompio\nmpi_yield_when_idle = 1\n' >other.conf
	OMPI_MCA_mca_base_param_files=$PWD/chosen.conf h5ufunc eval --mpi --json -i a=f.h5:/a -i b=f.h5:/b \
		"q.h5:/c = $expr" >out 2>err
	io_chosen out err
	[[ $output == ompio ]] || fail "io=ompio in a named parameter file: $output"
	OMPI_MCA_io=ompio h5ufunc eval --mpi --json -i a=f.h5:/a -i b=f.h5:/b "e.h5:/c = $expr" >out 2>err
	io_chosen out err
	[[ $output == ompio ]] || fail "OMPI_MCA_io=ompio: $output"
	OMPI_MCA_mca_base_param_files=$PWD/other.conf mpi 2 h5ufunc eval --json -i a=f.h5:/a -i b=f.h5:/b \
		"o.h5:/c = $expr" >out 2>err
	io_chosen out err
	[[ $output == "$romio" ]] || fail "a parameter file without io: $output"
	np $squares :: check sqrt s -o m.h5:/c :: check sqrt s -o p.h5:/c :: check sqrt s -o q.h5:/c \
		:: check sqrt s -o o.h5:/c :: check sqrt s -o e.h5:/c
}

@test "Open MPI on one node: MPI_Init opens no network library (the ob1 pml alone) unless the user chose a pml or an mtl" {
	np make f.h5:/x float64 30,4
	export OMPI_MCA_pml_base_verbose=10 OMPI_MCA_mtl_base_verbose=10
	# mtls MSG: did MPI_Init open the mtl components (the cm pml's network
	# libraries, PSM and PSM2 among them, probed for their adapters)?
	mtls() { grep -q 'components_open: opening mtl components' <<<"$1"; }
	local n
	for n in 1 2 3; do
		run --separate-stderr mpi "$n" h5ufunc call sqrt f.h5:/x -o "s$n.h5:/s"
		assert_success
		! mtls "$stderr" || fail "$n ranks: mtl components opened"
		grep -q 'select: component ob1 selected' <<<"$stderr" || fail "$n ranks: ob1 not selected"
	done
	run --separate-stderr h5ufunc call sqrt f.h5:/x -o s0.h5:/s --mpi
	assert_success
	! mtls "$stderr" || fail "--mpi: mtl components opened"
	np check sqrt f.h5:/x -o s0.h5:/s :: check sqrt f.h5:/x -o s1.h5:/s :: check sqrt f.h5:/x -o s2.h5:/s \
		:: check sqrt f.h5:/x -o s3.h5:/s
	# The user's choice of pml or mtl is kept: Open MPI then opens the
	# pmls the choice allows, cm and its mtls among them.
	run --separate-stderr mpi 2 --mca pml ^ucx h5ufunc call sqrt f.h5:/x -o u.h5:/s
	assert_success
	mtls "$stderr" || fail "--mca pml ^ucx: no mtl component opened"
	run --separate-stderr env OMPI_MCA_mtl=^ofi h5ufunc call sqrt f.h5:/x -o m.h5:/s --mpi
	assert_success
	mtls "$stderr" || fail "OMPI_MCA_mtl=^ofi: no mtl component opened"
	np check sqrt f.h5:/x -o u.h5:/s :: check sqrt f.h5:/x -o m.h5:/s
}
