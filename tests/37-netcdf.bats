#!/usr/bin/env bats
# 37-netcdf.bats - the files h5ufunc writes are netCDF-4 files that netCDF-C
# opens and appends to (ncdump, ncatted, ncap2 -A, netCDF4-python's mode
# 'a'), every kind of output and on several ranks; dimensions from groups
# resolved as netCDF-C resolves them; coordinates (CMIP-style calendars,
# NCO's time_bnds and climatology_bounds) sliced as the data was and
# decoded by xarray; cell_methods and names as ncwa writes them, and kept
# only where they stay true; attributes of in-place targets kept with their
# HDF5 types; Debian's filter plugins read and, where they can, written;
# netCDF-3 files named with the way to read them.  References:
# tests/netcdf_ref.py (netCDF4-python, xarray, h5py, NumPy) and NCO itself.

load helper

REF=netcdf_ref.py

setup_file() {
	(cd "$BATS_FILE_TMPDIR" && ref fixtures . "$H5U_TESTS/data/nco-in.cdl")
}

# nco_appends FILE...: ncdump reads each FILE, ncatted adds an attribute and
# ncap2 -A a variable, and ncdump shows both (netCDF-C writes to the file).
nco_appends() {
	local f
	for f in "$@"; do
		run ncdump -h "$f"
		assert_success
		run ncatted -h -a nco_attribute,global,c,c,ncatted "$f"
		assert_success
		run ncap2 -h -A -s 'nco_variable=7' "$f" "$f"
		assert_success
		run ncdump -h "$f"
		assert_output --partial ':nco_attribute = "ncatted"'
		assert_output --partial 'nco_variable'
	done
}

@test "every kind of output opens in ncdump and takes ncatted, ncap2 -A and netCDF4-python's mode 'a'" {
	fixture cmip.nc grp.nc in.nc
	cp cmip.nc existing.nc
	cp cmip.nc group.nc
	cp cmip.nc inplace.nc
	h5u call subtract cmip.nc:/tas 273.15 -o new.nc:/tc
	h5u call multiply existing.nc:/u 2 -o existing.nc:/u2
	mpi 3 h5ufunc call add group.nc:/u group.nc:/v -o group.nc:/derived/deeper/w
	mpi 2 h5ufunc call multiply inplace.nc:/u 2 -o inplace.nc:/u
	mpi 3 h5ufunc reduce add cmip.nc:/tas --axis time -o reduced.nc:/tsum
	mpi 4 h5ufunc accumulate add cmip.nc:/u --axis time -o accumulated.nc:/ua
	h5u call subtract cmip.nc:/tas 273.15 --missing mask -o masked.nc:/tc
	printf 'inputs: {u: cmip.nc:/u}\nsteps:\n  - expr: sqrt(u)\n    where: u > 0\n    out: where.nc:/r\n' > w.yaml
	h5u run w.yaml
	h5u call add grp.nc:/g5/var 0 -o groups.nc:/y
	h5u reduce maximum in.nc:/three_dmn_rec_var --axis time -o nco.nc:/m
	h5u call greater cmip.nc:/u 0 -o bool.nc:/positive
	printf 'steps:\n  - ufunc: negative\n    in: cmip.nc:/u\n    out: bzip2.nc:/n\n    compression: bzip2\n' > c.yaml
	h5u run c.yaml
	run ncdump -h where.nc
	assert_output --partial 'r:_FillValue'
	local files=(new.nc existing.nc group.nc inplace.nc reduced.nc accumulated.nc masked.nc where.nc
		groups.nc nco.nc bool.nc bzip2.nc)
	nco_appends "${files[@]}"
	ref appendable "${files[@]}"
}

@test "dimensions from groups resolve as netCDF-C resolves them, with their coordinates and bounds" {
	fixture grp.nc
	cp grp.nc same.nc
	h5u call add grp.nc:/g5/var 1 -o out.nc:/y
	mpi 2 h5ufunc call add grp.nc:/g5/sub/v2 1 -o out.nc:/g5/sub/y
	h5u call add 'grp.nc:/g5/var[1:3]' 1 -o out.nc:/h/z
	h5u call add same.nc:/g5/var 1 -o same.nc:/g5/sub/w
	run ncdump -h out.nc
	assert_success
	assert_line --partial 'float y(time, lat) ;'
	ref like out.nc:/y grp.nc:/g5/var :: like out.nc:/g5/sub/y grp.nc:/g5/sub/v2 \
	    :: like out.nc:/h/z grp.nc:/g5/var 1:3 :: like same.nc:/g5/sub/w same.nc:/g5/var
	# in the file that has them, the group's own scales are attached: no copies
	run h5ls -r same.nc
	assert_equal "$(grep -c '/lat ' <<<"$output")" 1
	assert_equal "$(grep -c '/time ' <<<"$output")" 1
}

@test "a slice keeps its coordinates' values and bounds, on 1 to 4 ranks; xarray decodes them" {
	fixture cmip.nc in.nc
	printf 'netcdf bad {\ndimensions: t = 3 ;\nvariables:\n  double t(t) ; t:bounds = "nowhere" ; t:units = "s" ;\n  float x(t) ;\ndata: t = 1, 2, 3 ; x = 4, 5, 6 ;\n}\n' > bad.cdl
	ncgen -k nc4 -o bad.nc bad.cdl
	local n
	for n in 1 2 3 4; do
		mpi "$n" h5ufunc call add 'cmip.nc:/u[1:4, ::2]' 1 -o "s$n.nc:/u"
	done
	h5u call add 'in.nc:/three_dmn_rec_var[2:9:3, 1]' 1 -o nco.nc:/x
	h5u call add 'bad.nc:/x[1:]' 1 -o bad_out.nc:/x
	ref like s1.nc:/u cmip.nc:/u '1:4,::2' :: like s2.nc:/u cmip.nc:/u '1:4,::2' \
	    :: like s3.nc:/u cmip.nc:/u '1:4,::2' :: like s4.nc:/u cmip.nc:/u '1:4,::2' \
	    :: xtime s3.nc cmip.nc 1:4 :: like nco.nc:/x in.nc:/three_dmn_rec_var '2:9:3,1' \
	    :: attrs nco.nc:/time bounds=time_bnds climatology=climatology_bounds calendar=gregorian \
	    :: like bad_out.nc:/x bad.nc:/x 1: :: attrs bad_out.nc:/t bounds=- units=s
	run ncdump -v time_bnds,climatology_bounds nco.nc
	assert_output --partial 'time_bnds =
  2.5, 3.5,
  5.5, 6.5,
  8.5, 9.5 ;'
}

@test "cell_methods as ncwa appends them; long_name and standard_name kept only where they stay true" {
	fixture cmip.nc
	h5u reduce add cmip.nc:/tas --axis time -o r.nc:/sum
	mpi 3 h5ufunc reduce maximum cmip.nc:/u --axis time -o r.nc:/max
	h5u reduce fmin cmip.nc:/u --axis time -o r.nc:/fmin
	h5u reduce maximum cmip.nc:/u --axis lat,lon -o r.nc:/both
	h5u reduce multiply cmip.nc:/u --axis time -o r.nc:/product
	h5u reduceat add cmip.nc:/u --indices 0,2 --axis time -o r.nc:/segments
	h5u accumulate add cmip.nc:/u --axis time -o r.nc:/running
	h5u call subtract cmip.nc:/tas 273.15 -o e.nc:/celsius
	h5u call hypot cmip.nc:/u cmip.nc:/v -o e.nc:/speed
	h5u call add cmip.nc:/u cmip.nc:/u -o e.nc:/twice
	h5u call multiply cmip.nc:/u cmip.nc:/u -o e.nc:/square
	h5u eval -i u=cmip.nc:/u 'e.nc:/clipped = maximum(u, 0) - 1'
	ncwa -O -a time -y ttl -v tas cmip.nc ttl.nc
	ncwa -O -a time -y max -v u cmip.nc max.nc
	ncwa -O -a time -y min -v u cmip.nc min.nc
	local a
	for a in long_name standard_name cell_methods; do
		assert_equal "$(ncks -M -v sum r.nc | grep "sum: $a")" "$(ncks -M -v tas ttl.nc | grep "tas: $a" | sed 's/tas: /sum: /')"
	done
	ref attrs r.nc:/sum 'cell_methods=area: mean time: sum' \
	    :: attrs ttl.nc:/tas 'cell_methods=area: mean time: sum' \
	    :: attrs max.nc:/u 'cell_methods=time: maximum' :: attrs r.nc:/max 'cell_methods=time: maximum' \
	        standard_name=eastward_wind 'long_name=eastward wind' \
	    :: attrs min.nc:/u 'cell_methods=time: minimum' :: attrs r.nc:/fmin 'cell_methods=time: minimum' \
	    :: attrs r.nc:/both 'cell_methods=lat: lon: maximum' standard_name=eastward_wind \
	    :: attrs r.nc:/product cell_methods=- standard_name=- long_name=- \
	    :: attrs r.nc:/segments 'cell_methods=time: sum' standard_name=eastward_wind \
	    :: attrs r.nc:/running cell_methods=- standard_name=- long_name=- \
	    :: attrs e.nc:/celsius 'cell_methods=area: mean' standard_name=air_temperature \
	    :: attrs e.nc:/speed standard_name=- long_name=- \
	    :: attrs e.nc:/twice standard_name=eastward_wind 'long_name=eastward wind' \
	    :: attrs e.nc:/square standard_name=- long_name=- \
	    :: attrs e.nc:/clipped standard_name=eastward_wind
}

@test "in place, attributes keep their values and HDF5 types; units are rewritten only when they change" {
	fixture strings.nc
	h5dump -A -d /s -d /c strings.nc > before
	h5u call multiply strings.nc:/s 2 -o strings.nc:/s
	mpi 2 h5ufunc call multiply strings.nc:/c 2 -o strings.nc:/c
	run diff before <(h5dump -A -d /s -d /c strings.nc)
	assert_success
	ref strtype strings.nc:/s units vlen m/s :: strtype strings.nc:/s long_name vlen speed \
	    :: strtype strings.nc:/c units fixed m/s
	h5u call multiply strings.nc:/s strings.nc:/s -o strings.nc:/s
	h5u call multiply strings.nc:/c strings.nc:/c -o strings.nc:/c
	ref strtype strings.nc:/s units vlen m2.s-2 :: strtype strings.nc:/s long_name vlen speed \
	    :: strtype strings.nc:/c units fixed m2.s-2
}

@test "a coordinate variable is not replaced by --overwrite (exit 2, file as it was); written into in place it stays the coordinate, on 1 and 3 ranks" {
	fixture cmip.nc
	cp cmip.nc c.nc
	cp cmip.nc before.nc
	run h5ufunc call negative cmip.nc:/lat -o c.nc:/lat --overwrite
	assert_failure 2
	assert_output --partial "h5ufunc: call negative: 'c.nc:/lat' is a dimension scale"
	assert_output --partial "c.nc:/lat[...]"
	cmp c.nc before.nc
	h5u call negative cmip.nc:/lat -o 'c.nc:/lat[...]'
	mpi 3 h5ufunc call multiply cmip.nc:/lon 2 -o 'c.nc:/lon[...]'
	run ncdump -h c.nc
	assert_output --partial 'float u(time, lat, lon)'
	assert_output --partial 'double lat(lat)'
	/usr/bin/python3 - <<'PY'
import netCDF4, numpy as np
with netCDF4.Dataset("cmip.nc") as a, netCDF4.Dataset("c.nc") as b:
    assert np.array_equal(b["lat"][:], np.negative(a["lat"][:])), b["lat"][:]
    assert np.array_equal(b["lon"][:], np.multiply(a["lon"][:], 2)), b["lon"][:]
    assert b["u"].dimensions == ("time", "lat", "lon"), b["u"].dimensions
    assert np.array_equal(b["u"][:], a["u"][:])
PY
	ref appendable c.nc
}

@test "an axis whose name the output group holds at another length gets a dimension NAME_LENGTH with its coordinate: netCDF-C opens the file, on 1 and 3 ranks" {
	/usr/bin/python3 - <<'PY'
import netCDF4, numpy as np
with netCDF4.Dataset("src.nc", "w") as d:
    d.createDimension("lat", 4)
    d.createDimension("time", 2)
    v = d.createVariable("lat", "f8", ("lat",))
    v[:], v.units = [10, 20, 30, 40], "degrees_north"
    d.createVariable("v", "f8", ("time", "lat"))[:] = np.arange(8).reshape(2, 4)
with netCDF4.Dataset("out.nc", "w") as d:
    d.createDimension("lat", 3)
    d.createDimension("time", 2)
    d.createVariable("lat", "f8", ("lat",))[:] = [1, 2, 3]
    d.createVariable("w", "f8", ("time", "lat"))[:] = 0
PY
	cp out.nc out3.nc
	h5u call negative src.nc:/v -o out.nc:/v2
	h5u call add src.nc:/v 1 -o out.nc:/v3
	mpi 3 h5ufunc call negative src.nc:/v -o out3.nc:/v2
	local f
	for f in out.nc out3.nc; do
		run ncdump -h "$f"
		assert_success
		assert_output --partial 'double v2(time, lat_4)'
		assert_output --partial 'double w(time, lat)'
	done
	/usr/bin/python3 - <<'PY'
import numpy as np, xarray as xr
s = xr.open_dataset("src.nc")
for f in ("out.nc", "out3.nc"):
    o = xr.open_dataset(f)
    assert o["v2"].dims == ("time", "lat_4"), o["v2"].dims
    assert np.array_equal(o["v2"].values, np.negative(s["v"].values)), o["v2"].values
    assert np.array_equal(o["lat_4"].values, s["lat"].values), o["lat_4"].values
    assert o["lat_4"].attrs["units"] == "degrees_north", o["lat_4"].attrs
    assert np.array_equal(o["lat"].values, [1, 2, 3]) and o["w"].dims == ("time", "lat")
o = xr.open_dataset("out.nc")
assert o["v3"].dims == ("time", "lat_4"), o["v3"].dims    # the second one finds it
PY
	ref appendable out.nc
}

@test "an axis reversed or shifted at its full length written beside its input gets its own coordinate NAME_LENGTH: xarray and ncdump read the reversed values, on 1 and 3 ranks" {
	/usr/bin/python3 - <<'PY'
import netCDF4, numpy as np
with netCDF4.Dataset("src.nc", "w") as d:
    d.createDimension("time", 3)
    d.createDimension("lat", 4)
    d.createDimension("nv", 2)
    t = d.createVariable("time", "f8", ("time",))
    t[:], t.units, t.bounds = [0, 31, 59], "days since 2000-01-01", "time_bnds"
    d.createVariable("time_bnds", "f8", ("time", "nv"))[:] = [[0, 31], [31, 59], [59, 90]]
    v = d.createVariable("lat", "f8", ("lat",))
    v[:], v.units = [10, 20, 30, 40], "degrees_north"
    d.createVariable("v", "f8", ("time", "lat"))[:] = np.arange(12).reshape(3, 4)
PY
	local run f
	for run in h5u "mpi 3 h5ufunc"; do
		f=src$((${#run} > 3 ? 3 : 1)).nc
		cp src.nc "$f"
		$run call negative "$f:/v[::-1, ::-1]" -o "$f:/back"
		$run call negative "$f:/v[:, ::-1]" -o "$f:/back_lat"
		$run call negative "$f:/v" -o "$f:/same"
		$run call add "$f:/v[::-1]" 1 -o "new$f:/back"
		$run call add "$f:/v" 1 -o "new$f:/fwd"
		$run call add "$f:/v[::-1]" 1 -o "new$f:/back2"
		run ncdump -h "$f"
		assert_success
		assert_output --partial "double back(time_3, lat_4) ;"
		assert_output --partial "double back_lat(time, lat_4) ;"
		assert_output --partial "double same(time, lat) ;"
		run ncdump -v lat_4 "$f"
		assert_output --partial "lat_4 = 40, 30, 20, 10 ;"
		run ncdump -h "new$f"
		assert_success
		assert_output --partial "double fwd(time_3, lat) ;"
	done
	/usr/bin/python3 - <<'PY'
import numpy as np, xarray as xr
s = xr.open_dataset("src.nc", decode_times=False)
v, lat, time = s["v"].values, s["lat"].values, s["time"].values
for f in ("src1.nc", "src3.nc"):
    o, n = xr.open_dataset(f, decode_times=False), xr.open_dataset("new" + f, decode_times=False)
    for x, dims, data, coords in ((o["back"], ("time_3", "lat_4"), -v[::-1, ::-1], (time[::-1], lat[::-1])),
                                  (o["back_lat"], ("time", "lat_4"), -v[:, ::-1], (time, lat[::-1])),
                                  (o["same"], ("time", "lat"), -v, (time, lat)),
                                  (n["back"], ("time", "lat"), v[::-1] + 1, (time[::-1], lat)),
                                  (n["fwd"], ("time_3", "lat"), v + 1, (time, lat)),
                                  (n["back2"], ("time", "lat"), v[::-1] + 1, (time[::-1], lat))):
        assert x.dims == dims, (f, x.name, x.dims)
        assert np.array_equal(x.values, data), (f, x.name, x.values)
        for dim, want in zip(dims, coords):
            assert np.array_equal(x[dim].values, want), (f, x.name, dim, x[dim].values, want)
    assert o["lat_4"].attrs["units"] == "degrees_north", o["lat_4"].attrs
    assert np.array_equal(o["lat"].values, lat) and np.array_equal(o["time"].values, time)
    assert "bounds" not in o["time_3"].attrs, o["time_3"].attrs   # time_bnds is the input's
    # xarray's own reversal of the input is what it reads back
    r = -s["v"][::-1, ::-1].rename(time="time_3", lat="lat_4")
    xr.testing.assert_equal(o["back"], r)   # values, dimensions and coordinates
PY
	ref appendable src1.nc
	ref appendable newsrc3.nc
}

@test "Debian's filter plugins: every one is read; lzf, bzip2 and lz4 written on 1 and 3 ranks" {
	fixture filters.h5
	local f
	for f in lzf bzip2 lz4 blosc zfp; do
		mpi 2 h5ufunc call multiply filters.h5:/$f 2 -o read.h5:/$f
	done
	local out rows
	for out in one.h5:24 three.h5:5; do
		rows=${out#*:}
		out=${out%:*}
		printf 'inputs: {x: filters.h5:/plain}\nsteps:\n' > $out.yaml
		for f in lzf bzip2:3 lz4 gzip:1; do
			printf '  - ufunc: negative\n    in: x\n    out: %s:/%s\n    compression: %s\n    chunks: [%s, 50]\n' \
				"$out" "${f%:*}" "$f" "$rows" >> $out.yaml
		done
	done
	h5u run one.h5.yaml
	mpi 3 h5ufunc run three.h5.yaml
	ref filtered read.h5:/lzf - filters.h5:/lzf 2*x :: filtered read.h5:/bzip2 - filters.h5:/bzip2 2*x \
	    :: filtered read.h5:/lz4 - filters.h5:/lz4 2*x :: filtered read.h5:/blosc - filters.h5:/blosc 2*x \
	    :: filtered read.h5:/zfp - filters.h5:/plain 2*x \
	    :: filtered one.h5:/lzf 32000 filters.h5:/plain -x :: filtered one.h5:/bzip2 307 filters.h5:/plain -x \
	    :: filtered one.h5:/lz4 32004 filters.h5:/plain -x :: filtered one.h5:/gzip 1 filters.h5:/plain -x \
	    :: filtered three.h5:/lzf 32000 filters.h5:/plain -x :: filtered three.h5:/bzip2 307 filters.h5:/plain -x \
	    :: filtered three.h5:/lz4 32004 filters.h5:/plain -x
}

@test "blosc and zfp cannot write through the parallel library; a missing plugin is named with its package" {
	fixture filters.h5
	mkdir none
	local f
	for f in blosc zfp; do
		printf 'steps:\n  - ufunc: negative\n    in: filters.h5:/plain\n    out: o.h5:/x\n    compression: %s\n' $f > $f.yaml
		snapshot
		run --separate-stderr mpi 2 h5ufunc run $f.yaml
		assert_error_once 2 "$f.yaml:5:18: step 1 (ufunc negative): the $f filter cannot write through h5ufunc's HDF5 library (HDF5: error during user callback); a plugin built for the serial HDF5 library can read here but not write"
		assert_unchanged
	done
	snapshot
	HDF5_PLUGIN_PATH="$PWD/none" run --separate-stderr mpi 2 h5ufunc call negative filters.h5:/lz4 -o o.h5:/x
	assert_error_once 2 "call negative: 'filters.h5:/lz4' is stored with the lz4 filter (HDF5 filter 32004), which is not available to h5ufunc: its plugin is in Debian's package hdf5-filter-plugin"
	sed -i 's/compression: zfp/compression: bzip2/' zfp.yaml
	snapshot
	HDF5_PLUGIN_PATH="$PWD/none" run --separate-stderr h5u run zfp.yaml
	assert_error 2 "zfp.yaml:5:18: step 1 (ufunc negative): the bzip2 filter (HDF5 filter 307) is not available to h5ufunc: its plugin is in Debian's package hdf5-filter-plugin"
	assert_unchanged
}

@test "a netCDF-3 file is named as such with the way to read it, exit 2, once; nccopy's copy is read" {
	fixture classic.nc offset64.nc cdf5.nc cmip.nc
	snapshot
	run --separate-stderr h5u call negative classic.nc:/v -o o.nc:/v
	assert_error 2 "call negative: 'classic.nc' is a netCDF-3 file (classic format), which h5ufunc reads once it is netCDF-4: nccopy -k nc4 classic.nc NEW.nc"
	run --separate-stderr mpi 2 h5ufunc call negative offset64.nc:/v -o o.nc:/v
	assert_error_once 2 "call negative: 'offset64.nc' is a netCDF-3 file (64-bit offset format), which h5ufunc reads once it is netCDF-4: nccopy -k nc4 offset64.nc NEW.nc"
	run --separate-stderr h5u call negative cmip.nc:/u -o cdf5.nc:/v
	assert_error 2 "call negative: 'cdf5.nc' is a netCDF-3 file (CDF-5, 64-bit data format), which h5ufunc reads once it is netCDF-4: nccopy -k nc4 cdf5.nc NEW.nc"
	assert_unchanged
	nccopy -k nc4 classic.nc new.nc
	run --separate-stderr h5u call negative new.nc:/v
	assert_success
	assert_output $'-1.0\n-2.0\n-3.0'
}

@test "the masked mean of h5ufunc(1), NETCDF, is numpy.ma's, and ncatted records it" {
	fixture cmip.nc
	cat > mean.yaml <<-'EOF'
	inputs: {tas: cmip.nc:/tas}
	steps:
	  - reduce: add
	    in: tas
	    axis: time
	    missing: mask
	    out: total
	  - ufunc: isfinite
	    in: tas
	    missing: mask
	    out: valid
	  - reduce: add
	    in: valid
	    axis: time
	    missing: mask
	    out: count
	  - expr: total / count
	    missing: mask
	    out: mean.nc:/tas
	EOF
	mpi 3 h5ufunc run mean.yaml
	ncatted -a cell_methods,tas,o,c,'area: mean time: mean' -a standard_name,tas,o,c,air_temperature mean.nc
	ref masked_mean mean.nc:/tas cmip.nc:/tas 0 \
	    :: attrs mean.nc:/tas units=K 'cell_methods=area: mean time: mean' standard_name=air_temperature
}

@test "an input's record dimension stays unlimited: ncrcat joins outputs and netCDF4-python appends records, on 1 and 3 ranks" {
	fixture cmip.nc grp.nc
	h5u call multiply cmip.nc:/u 2 -o one.nc:/u2
	mpi 3 h5ufunc call multiply cmip.nc:/u 2 -o three.nc:/u2
	mpi 3 h5ufunc reduce add cmip.nc:/u --axis lat -o lat.nc:/s
	printf 'inputs: {u: cmip.nc:/u}\nsteps:\n  - expr: u * u + 1\n    out: speed.nc:/w\n' > r.yaml
	mpi 3 h5ufunc run r.yaml
	h5u call add grp.nc:/g5/var 0 -o fixed.nc:/y
	local f
	for f in one.nc three.nc lat.nc speed.nc; do
		run ncdump -h "$f"
		assert_output --partial 'time = UNLIMITED'
	done
	run ncdump -h fixed.nc
	assert_output --partial 'time = 3 ;'
	run h5dump -p -H fixed.nc
	refute_output --partial 'CHUNKED'
	run ncrcat -O one.nc three.nc cat.nc
	assert_success
	ref records cat.nc:/u2 cmip.nc:/u 'x * 2' 2 \
	    :: records one.nc:/u2 cmip.nc:/u 'x * 2' \
	    :: records lat.nc:/s cmip.nc:/u 'x.sum(axis=1)' \
	    :: records speed.nc:/w cmip.nc:/u 'x * x + 1'
}

@test "an output that grows is chunked in whole records, up to 1 MiB and 1024 records, with or without chunks: auto, on 1 and 3 ranks" {
	fixture wide.nc cmip.nc
	h5u call add wide.nc:/wide 1 -o w1.nc:/w
	mpi 3 h5ufunc call multiply wide.nc:/mid 2 -o m3.nc:/m
	printf 'steps:\n  - ufunc: negative\n    in: wide.nc:/mid\n    out: auto.nc:/n\n    chunks: auto\n' > a.yaml
	mpi 2 h5ufunc run a.yaml
	mpi 3 h5ufunc reduce add wide.nc:/wide --axis x -o r.nc:/s
	h5u call multiply cmip.nc:/u 2 -o small.nc:/u2
	ref record_chunks w1.nc:/w m3.nc:/m auto.nc:/n r.nc:/s small.nc:/u2 w1.nc:/time small.nc:/time_bnds \
	    :: records w1.nc:/w wide.nc:/wide 'x + 1' :: records m3.nc:/m wide.nc:/mid 'x * 2' \
	    :: records auto.nc:/n wide.nc:/mid '-x' :: records r.nc:/s wide.nc:/wide 'x.sum(axis=2)'
}

@test "a bool output is an enum netCDF-C lists (ncdump, netCDF4-python, xarray) that h5py reads as bool; in place into h5py's bool stays h5py's, on 1 and 3 ranks" {
	fixture cmip.nc
	/usr/bin/python3 -c '
import h5py, numpy as np
with h5py.File("h5py.h5", "w") as f:   # no creation order, as h5py makes files
    f["b"] = np.array([True, False, False, True])
    f["x"] = np.array([1.5, -2.0, 0.0, 3.0])'
	local n cmd=(h5u)
	for n in 1 3; do
		((n == 1)) || cmd=(mpi "$n" h5ufunc)
		cp h5py.h5 "h5py$n.h5"
		"${cmd[@]}" call greater cmip.nc:/u 0 -o "b$n.nc:/positive"
		"${cmd[@]}" call greater cmip.nc:/tas 280 -o "b$n.nc:/hot"
		"${cmd[@]}" call less cmip.nc:/u cmip.nc:/v -o "b$n.nc:/g/less"
		"${cmd[@]}" call greater cmip.nc:/v 0 -o "own$n.nc:/boolean"   # the type's own name
		"${cmd[@]}" call logical_not "h5py$n.h5:/b" -o "h5py$n.h5:/b"
		"${cmd[@]}" call greater "h5py$n.h5:/x" 0 -o "h5py$n.h5:/positive"
		ref bools "b$n.nc:/positive" cmip.nc:/u 'x > 0' :: bools "b$n.nc:/hot" cmip.nc:/tas 'x > 280' \
		    :: bools "b$n.nc:/g/less" cmip.nc:/u 'x < y' cmip.nc:/v \
		    :: bools "h5py$n.h5:/positive" h5py.h5:/x 'x > 0' :: bools "own$n.nc:/boolean" cmip.nc:/v 'x > 0'
		run /usr/bin/python3 -c '
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f, h5py.File("h5py.h5", "r") as was:
    b = f["b"]   # written in place: h5py reads NumPy s logical_not, its type still h5py s own
    assert b.dtype == bool and not b.id.get_type().committed(), b.id.get_type()
    assert np.array_equal(b[...], np.logical_not(was["b"][...])), b[...]' "h5py$n.h5"
		assert_success
	done
	nco_appends b1.nc b3.nc
}

@test "the bool type passes over a name a later output of the run takes: a recipe writing a bool, then FILE:/boolean, on 1 and 3 ranks" {
	fixture cmip.nc
	printf 'steps:\n  - ufunc: greater\n    in: [cmip.nc:/v, 0]\n    out: o.nc:/b\n  - ufunc: add\n    in: [cmip.nc:/v, 1]\n    out: o.nc:/boolean\n' > r.yaml
	local n cmd=(h5u)
	for n in 1 3; do
		((n == 1)) || cmd=(mpi "$n" h5ufunc)
		rm -f o.nc
		"${cmd[@]}" run r.yaml
		run ncdump -h o.nc
		assert_success
		assert_output --partial 'byte enum boolean_2 {FALSE = 0, TRUE = 1}'
		assert_output --regexp 'boolean_2 b\('
		run /usr/bin/python3 -c '
import h5py, numpy as np
with h5py.File("o.nc", "r") as f, h5py.File("cmip.nc", "r") as c:
    v = c["v"][...]
    assert f["b"].dtype == bool and np.array_equal(f["b"][...], v > 0), f["b"][...]
    assert np.array_equal(f["boolean"][...], v + 1), f["boolean"][...]'
		assert_success
	done
}
