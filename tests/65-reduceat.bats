#!/usr/bin/env bats
# 65-reduceat.bats - `h5ufunc reduceat` and `reduceat:` steps against
# NumPy's np.UFUNC.reduceat(x, indices, axis=, dtype=).
#
# Random shapes, dtypes, ufuncs, axes (the split axis 0 included) and
# indices (repeated, backward steps, the last row alone; literal lists and
# integer datasets of several dtypes) in one recipe, on one process and on
# 1, 2, 3 and 4 ranks at a small --memory; segments longer than memory
# (pairwise sums, float16 in float32, sequential folds); one-liners,
# printed results and --json; NumPy's errors with exit 2 and nothing
# written; masked mode (numpy.ma's reduce of each segment); dimension
# names, and the coordinate of the reduced axis at the segments' starts
# with CF bounds spanning each segment (the random cases include named
# axes, sliced and not, and one without a coordinate variable).  NumPy folds each segment in one loop call, and every result is
# compared bit for bit, floats included (tests/methods_ref.py).

load helper

REF=methods_ref.py

setup_file() {
	(cd "$BATS_FILE_TMPDIR" && ref reduceat-cases f.h5 cases.jsonl out.h5 >r.yaml) || return 1
	fixtures <<-'EOF'
		make s.h5:/a float32 5000
		make s.h5:/b float64 3000,3
		make s.h5:/h float16 700,2
		make s.h5:/z complex128 600
		make s.h5:/k int16 900,4
		make s.h5:/c float64 40,5,6
		make s.h5:/ia int32 - data=[0,4000,17,17,4999]
		make s.h5:/i2 int64 2,2 data=[[0,1],[2,3]]
		make s.h5:/fi float64 2 data=[0.0,1.0]
		make s.h5:/u64 uint64 2 data=[0,1]
		make s.h5:/s float64 () data=2.5
		make m.h5:/t float32 60,4 attr:_FillValue=-999.0
	EOF
	/usr/bin/python3 - "$BATS_FILE_TMPDIR/m.h5" <<-'EOF'
		import sys, h5py, numpy as np
		with h5py.File(sys.argv[1], 'a') as f:   # missing days, a month with none
		    t = f['t'][()]
		    t[::7] = -999.0
		    t[31:59, 1] = -999.0
		    f['t'][()] = t
	EOF
}

@test "random shapes, dtypes, ufuncs, axes and indices: NumPy's bits on one process and on 1-4 ranks at --memory 32K" {
	cp "$BATS_FILE_TMPDIR"/{f.h5,r.yaml,cases.jsonl} .
	on_ranks 32K r.yaml out.h5 -- reduceat-check cases.jsonl f.h5 out.h5
}

@test "segments longer than memory stream: pairwise sums, float16 in float32, sequential folds, NumPy's bits on 1 and 3 ranks" {
	fixture s.h5
	cat >cases.txt <<-'EOF'
		a add s.h5:/a 0,4000,17,17,4999 0
		b add s.h5:/b 0,2999,1000 0
		z add s.h5:/z 3,590,1 0
		hm multiply s.h5:/h 0,600,5 0
		ha add s.h5:/h 0,600,5 0
		hs subtract s.h5:/h 1,650 0
		k subtract s.h5:/k 0,600,5,7 0
		kmax maximum s.h5:/k 2,890 0
		c1 add s.h5:/c 0,2,2,4 1
	EOF
	local id uf x idx axis n mem
	for n in 1 3; do
		for mem in 8K 256M; do
			{
				echo "steps:"
				while read -r id uf x idx axis; do
					printf '  - reduceat: %s\n    in: %s\n    indices: [%s]\n    axis: %s\n    out: o%s%s.h5:/%s\n' \
						"$uf" "$x" "$idx" "$axis" "$n" "$mem" "$id"
				done <cases.txt
			} >"r$n$mem.yaml"
			run --separate-stderr mpi "$n" h5ufunc run --memory "$mem" "r$n$mem.yaml"
			assert_success
		done
	done
	run --separate-stderr h5u check --overwrite --memory 8K r18K.yaml
	assert_output --partial "segments along axis 0 (the longest 4982 rows), blocks of"
	assert_output --partial "(longer segments streamed, pairwise)"
	/usr/bin/python3 - <<-'EOF'
		import h5py, numpy as np
		x = h5py.File("s.h5")
		for line in open("cases.txt"):
		    ident, uf, ref, idx, axis = line.split()
		    want = getattr(np, uf).reduceat(x[ref[5:]][()], [int(i) for i in idx.split(",")], axis=int(axis))
		    for out in ("o18K.h5", "o1256M.h5", "o38K.h5", "o3256M.h5"):
		        got = h5py.File(out)[ident][()]
		        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (out, ident)
	EOF
}

@test "one-liners: a literal list, an integer dataset, printed results, -o, --dtype and --json" {
	fixture s.h5
	run --separate-stderr h5u reduceat add s.h5:/b --indices 0,31,59 -o o.h5:/m
	assert_success
	run --separate-stderr h5u reduceat maximum s.h5:/k --indices s.h5:/ia --axis 0 -o o.h5:/kmax
	assert_failure 2   # 4000 is past the 900 rows of k
	run --separate-stderr h5u reduceat add s.h5:/a --indices s.h5:/ia -o o.h5:/a --dtype float64
	assert_success
	run ref raises reduceat maximum s.h5:/k s.h5:/ia 0 -- "index 4000 out-of-bounds in maximum.reduceat [0, 900)"
	assert_success
	printf 'import numpy as np, h5py\nf = h5py.File("s.h5"); o = h5py.File("o.h5")\n' >ref.py
	printf 'r = np.add.reduceat(f["b"][()], [0, 31, 59]); assert o["m"][()].tobytes() == r.tobytes()\n' >>ref.py
	printf 'r = np.add.reduceat(f["a"][()], f["ia"][()], dtype=np.float64)\n' >>ref.py
	printf 'assert o["a"].dtype == np.float64 and o["a"][()].tobytes() == r.tobytes()\n' >>ref.py
	run /usr/bin/python3 ref.py
	assert_success
	run --separate-stderr h5u reduceat add s.h5:/c --indices 0,2,2,4 --axis 1
	assert_success
	echo "$output" >printed.txt
	h5u reduceat add s.h5:/c --indices 0,2,2,4 --axis 1 -o o.h5:/c1
	run np printed o.h5:/c1 --text printed.txt
	assert_success
	run --separate-stderr mpi 3 h5ufunc reduceat add s.h5:/c --indices 0,2,2,4 --axis 1
	assert_success
	assert_equal "$output" "$(cat printed.txt)"
	run --separate-stderr h5u reduceat multiply s.h5:/k --indices 1,3 --axis 1 --json -o o.h5:/j
	assert_success
	assert_output --partial '"verb": "reduceat", "ufunc": "multiply", "loop": "qq->q"'
	assert_output --partial '"bytes_read": 5400, "bytes_written": 14400'   # column 0 is in no segment: not read
	assert_output --partial '"kind": "new dataset", "shape": [900, 2]'
}

@test "NumPy's errors: exit 2, one message (also on 3 ranks), nothing written" {
	fixture s.h5
	snapshot
	local line args want jobs=()
	while IFS='|' read -r args want; do
		read -r uf x idx axis <<<"$args"
		[[ $uf == -* ]] || jobs+=(raises reduceat "$uf" "$x" "$idx" "$axis" -- "$want" ::)
	done <<-'EOF'
		add s.h5:/b 0,3000 0|index 3000 out-of-bounds in add.reduceat [0, 3000)
		add s.h5:/b 2,-1 0|index -1 out-of-bounds in add.reduceat [0, 3000)
		add s.h5:/c 1,6 -1|index 6 out-of-bounds in add.reduceat [0, 6)
		sqrt s.h5:/b 0 0|reduceat only supported for binary functions
		divmod s.h5:/b 0 0|reduceat only supported for functions returning a single value
		add s.h5:/b 0 2|axis 2 is out of bounds for array of dimension 2
		add s.h5:/s 0 0|cannot reduceat on a scalar
		add s.h5:/b s.h5:/i2 0|object too deep for desired array
		add s.h5:/b s.h5:/fi 0|Cannot cast array data from dtype('float64') to dtype('int64') according to the rule 'safe'
		add s.h5:/b s.h5:/u64 0|Cannot cast array data from dtype('uint64') to dtype('int64') according to the rule 'safe'
	EOF
	run ref "${jobs[@]}"
	assert_success
	check_error() {
		local want=$1
		shift
		run --separate-stderr h5u reduceat "$@" -o o.h5:/r
		assert_error 2 "$want"
	}
	check_error "reduceat add: index 3000 out-of-bounds in add.reduceat [0, 3000)" add s.h5:/b --indices 0,3000
	check_error "reduceat add: index -1 out-of-bounds in add.reduceat [0, 3000)" add s.h5:/b --indices 2,-1
	check_error "reduceat add: index 6 out-of-bounds in add.reduceat [0, 6)" add s.h5:/c --indices 1,6 --axis -1
	check_error "reduceat sqrt: reduceat only supported for binary functions" sqrt s.h5:/b --indices 0
	check_error "reduceat divmod: reduceat only supported for functions returning a single value" divmod s.h5:/b --indices 0
	check_error "reduceat add: axis 2 is out of bounds for array of dimension 2" add s.h5:/b --indices 0 --axis 2
	check_error "reduceat add: reduceat does not allow multiple axes" add s.h5:/b --indices 0 --axis 0,1
	check_error "reduceat add: reduceat does not allow multiple axes" add s.h5:/b --indices 0 --axis all
	check_error "reduceat add: cannot reduceat on a scalar" add s.h5:/s --indices 0
	check_error "reduceat add: object too deep for desired array" add s.h5:/b --indices s.h5:/i2
	check_error "reduceat add: Cannot cast array data from dtype('float64') to dtype('int64') according to the rule 'safe'" add s.h5:/b --indices s.h5:/fi
	check_error "reduceat add: Cannot cast array data from dtype('uint64') to dtype('int64') according to the rule 'safe'" add s.h5:/b --indices s.h5:/u64
	check_error "reduceat add: reduceat takes one index array, got 2" add s.h5:/b --indices s.h5:/ia,s.h5:/ia
	check_error "reduceat add: --indices is needed (where the segments start)" add s.h5:/b
	check_error "reduceat: unknown option '--where' (see h5ufunc help reduceat)" add s.h5:/b --indices 0 --where s.h5:/b
	check_error "reduceat divide: numpy.ma has no reduce of 'divide' (nothing to fill its masked elements with), so no masked reduceat" divide s.h5:/b --indices 0 --missing mask
	check_error "reduceat add: indices '[0,,1]' is not a list of integers" add s.h5:/b --indices 0,,1
	check_error "reduceat add: index '1e2' is not an integer" add s.h5:/b --indices 0,3,1e2
	check_error "reduceat add: index '3.5' is not an integer" add s.h5:/b --indices 3.5
	run --separate-stderr mpi 3 h5ufunc reduceat add s.h5:/b --indices 0,3000 -o o.h5:/r
	assert_error_once 2 "reduceat add: index 3000 out-of-bounds in add.reduceat [0, 3000)"
	run --separate-stderr mpi 3 h5ufunc reduceat add s.h5:/b --indices s.h5:/fi -o o.h5:/r
	assert_error_once 2 "reduceat add: Cannot cast array data from dtype('float64') to dtype('int64') according to the rule 'safe'"
	assert_unchanged
	printf 'steps:\n  - reduceat: add\n    in: s.h5:/b\n    indices: [0, 5000]\n    out: o.h5:/r\n' >r.yaml
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:4:14: step 1 (reduceat add): index 5000 out-of-bounds in add.reduceat [0, 3000)"
	assert_unchanged
	printf 'steps:\n  - reduceat: add\n    in: s.h5:/b\n    indices: [0, 3.0]\n    out: o.h5:/r\n' >r.yaml
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:4:18: step 1 (reduceat add): index '3.0' is not an integer"
	assert_unchanged
}

@test "written in place into its input: refused before any write, since streamed segments would read results; to another dataset NumPy's" {
	/usr/bin/python3 -c "import h5py, numpy as np; n = 200000; f = h5py.File('ip.h5', 'w'); f['x'] = np.random.default_rng(5).integers(-5, 5, n); f['j'] = np.roll(np.arange(n), n // 2)"
	printf 'inputs: {x: ip.h5:/x}\nsteps:\n  - reduceat: add\n    in: x\n    indices: ip.h5:/j\n    out: x\n' >r.yaml
	snapshot
	run --separate-stderr h5u reduceat add ip.h5:/x --indices ip.h5:/j -o ip.h5:/x --memory 64K
	assert_error 2 "reduceat add: 'ip.h5:/x' is read by add.reduceat beyond each result's own element: write to another dataset"
	run --separate-stderr mpi 3 h5ufunc run r.yaml
	assert_error_once 2 "r.yaml:6:10: step 1 (reduceat add): 'ip.h5:/x' is read by add.reduceat beyond each result's own element: write to another dataset"
	assert_unchanged
	run --separate-stderr h5u reduceat add ip.h5:/x --indices ip.h5:/j -o o.h5:/x --memory 64K
	assert_success
	run /usr/bin/python3 -c "import h5py, numpy as np; f = h5py.File('ip.h5'); x = f['x'][()]; y = x.copy(); np.add.reduceat(y, f['j'][()], out=y); assert np.array_equal(h5py.File('o.h5')['x'][()], y)"
	assert_success
}

@test "masked: numpy.ma's reduce of each month in reduceat's order, a month with no valid day masked, on 1 and 2 ranks" {
	fixture m.h5
	run --separate-stderr h5u reduceat add m.h5:/t --indices 0,31,59 --missing mask --json -o o.h5:/s
	assert_success
	assert_output --partial '"masked": 1'   # February has no valid day in column 1
	run --separate-stderr mpi 2 h5ufunc reduceat maximum m.h5:/t --indices 0,31,59 --missing mask -o o.h5:/x
	assert_success
	run ref reduceat-masked m.h5:/t 0,31,59 0 add o.h5:/s :: reduceat-masked m.h5:/t 0,31,59 0 maximum o.h5:/x
	assert_success
}

@test "a named axis keeps its name, its length the segments' and its coordinate at their starts (ncdump); units as reduce carries them" {
	/usr/bin/python3 - <<-'EOF'
		import netCDF4, numpy as np
		with netCDF4.Dataset("d.nc", "w") as d:
		    d.createDimension("time", 90)
		    d.createDimension("lat", 3)
		    t = d.createVariable("time", "f8", ("time",))
		    t[:] = np.arange(90)
		    v = d.createVariable("t2m", "f4", ("time", "lat"))
		    v.units = "K"
		    v[:] = np.arange(270, dtype="f4").reshape(90, 3)
	EOF
	run --separate-stderr h5u reduceat add d.nc:/t2m --indices 0,31,59 --axis time -o m.nc:/t2m
	assert_success
	run ncdump -h m.nc
	assert_success
	assert_output --partial "time = 3 ;"
	assert_output --partial "float t2m(time, lat) ;"
	assert_output --partial 't2m:units = "K" ;'
	run ncdump -v time m.nc
	assert_output --partial " time = 0, 31, 59 ;"
	run --separate-stderr h5u reduceat add d.nc:/t2m --indices 0,31,59 --axis latitude
	assert_error 2 "reduceat add: 'd.nc:/t2m' has no dimension 'latitude'"
}

@test "sums of dates are durations: reduceat, reduce and accumulate add of a 'days since' time give 'days', without its names; maximum stays a date, with its calendar (netCDF4, xarray)" {
	/usr/bin/python3 - <<-'EOF'
		import netCDF4, numpy as np
		with netCDF4.Dataset("d.nc", "w") as d:
		    d.createDimension("time", 90)
		    t = d.createVariable("time", "f8", ("time",))
		    t.units, t.calendar = "days since 2000-01-01", "standard"
		    t.long_name, t.standard_name = "time", "time"
		    t[:] = np.arange(90) + 0.5
		    v = d.createVariable("t2m", "f4", ("time",))
		    v.units, v.long_name = "K", "air temperature"
		    v[:] = np.arange(90, dtype="f4")
	EOF
	h5u reduceat add d.nc:/time --indices 0,31,59 -o o.nc:/sum_at
	h5u reduceat maximum d.nc:/time --indices 0,31,59 -o o.nc:/max_at
	h5u reduceat add d.nc:/t2m --indices 0,31,59 -o o.nc:/t2m_at
	h5u reduce add d.nc:/time -o o.nc:/sum
	h5u accumulate add d.nc:/time -o o.nc:/cumsum
	/usr/bin/python3 - <<-'EOF'
		import netCDF4, numpy as np, xarray as xr
		idx = [0, 31, 59]
		with netCDF4.Dataset("d.nc") as d, netCDF4.Dataset("o.nc") as o:
		    t, v = d["time"][:], d["t2m"][:]
		    def attrs(name):
		        return {k: o[name].getncattr(k) for k in o[name].ncattrs()}
		    want = {"sum_at": np.add.reduceat(t, idx), "max_at": np.maximum.reduceat(t, idx),
		            "t2m_at": np.add.reduceat(v, idx), "sum": np.add.reduce(t),
		            "cumsum": np.add.accumulate(t)}
		    for name, w in want.items():
		        assert np.array_equal(o[name][:], w), (name, o[name][:], w)
		    sums = {"units": "days", "cell_methods": "time: sum"}
		    assert attrs("sum_at") == sums, attrs("sum_at")
		    assert attrs("sum") == sums, attrs("sum")
		    assert attrs("cumsum") == {"units": "days"}, attrs("cumsum")
		    assert attrs("max_at") == {"units": "days since 2000-01-01", "long_name": "time",
		                               "standard_name": "time", "cell_methods": "time: maximum",
		                               "calendar": "standard"}, attrs("max_at")
		    assert attrs("t2m_at") == {"units": "K", "long_name": "air temperature",
		                               "cell_methods": "time: sum"}, attrs("t2m_at")
		    # the segments' coordinate is still their starts, as dates
		    assert o["time"].units == "days since 2000-01-01", o["time"].units
		    assert np.array_equal(o["time"][:], t[idx]), o["time"][:]
		x = xr.open_dataset("o.nc")
		assert x["max_at"].dtype.kind == "M", x["max_at"].dtype   # dates
		for name in ("sum_at", "sum", "cumsum"):                   # not dates
		    assert x[name].dtype.kind != "M", (name, x[name].dtype)
	EOF
}
