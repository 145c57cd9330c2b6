#!/usr/bin/env bats
# 35-names.bats - named dimensions (netCDF-4 / CF files): names read from
# dimension scales (ncgen's, netCDF4-python's, h5py's), shown by check and
# --json, broadcasting by name with xarray as the reference, axes by name,
# names kept by intermediates, and scales written to new datasets and new
# files so that ncdump and netCDF4-python name every dimension, on 1 to 4
# ranks.  Files without scales behave as before (the rest of the suite).

load helper

setup_file() {
	(cd "$BATS_FILE_TMPDIR" && ref fixtures .)
}

setup() {
	fixture era.nc other.nc wide.nc h5.h5 plain.h5 big.nc
}

REF=names_ref.py

# no_phony FILE: ncdump reads FILE, and names every dimension.
no_phony() {
	run ncdump -h "$1"
	assert_success
	refute_output --partial phony_dim
}

@test "check and --json show the names of named operands, and no names for others" {
	run --separate-stderr h5u call add era.nc:/t2m other.nc:/t -o o.nc:/a --json
	assert_success
	assert_output --partial '"operand": "era.nc:/t2m", "kind": "dataset", "shape": [4, 3, 5], "dims": ["time", "lat", "lon"]'
	assert_output --partial '"operand": "other.nc:/t", "kind": "dataset", "shape": [3, 4], "dims": ["lat", "time"]'
	assert_output --partial '"operand": "o.nc:/a", "kind": "new file", "shape": [4, 3, 5], "dims": ["time", "lat", "lon"]'
	printf 'inputs:\n  z: h5.h5:/z\n  p: plain.h5:/z\nsteps:\n  - ufunc: add\n    in: [z, 1]\n    out: n.h5:/z\n  - ufunc: add\n    in: [p, 1]\n    out: n.h5:/p\n' > r.yaml
	run --separate-stderr h5u check r.yaml
	assert_success
	assert_line "  in  h5.h5:/z float64 (3, 4) dims (y, x)"
	assert_line "  out n.h5:/z float64 (3, 4) dims (y, x), new file"
	assert_line "  in  plain.h5:/z float64 (3, 4)"
	assert_line "  out n.h5:/p float64 (3, 4), new file"
}

@test "many variables sharing dimensions: every operand named as netCDF4-python and h5py read it, a scale linked twice by its first path" {
	# Each file's paths are read once (dims.c): 200 variables in the root
	# group and 200 in a group of a dimension of its own, and an h5py
	# file whose scale y is also linked as /a/b, the path HDF5 finds first.
	ref many . 200
	run --separate-stderr h5u check many.yaml --json
	assert_success
	echo "$output" >check.json
	run ref many-dims check.json . 200
	assert_success
}

@test "a new dataset in a netCDF-4 file gets its scales: ncdump shows t2c(time, lat, lon)" {
	run --separate-stderr h5u call subtract era.nc:/t2m 273.15 -o era.nc:/t2c
	assert_success
	run ncdump -h era.nc
	assert_line --partial "float t2c(time, lat, lon) ;"
	ref dims era.nc t2c time lat lon :: same era.nc t2c "t2m - 273.15" era.nc
}

@test "broadcasting by name gives xarray's dimensions and values, into new netCDF-4 files" {
	h5u call add era.nc:/t2m era.nc:/time -o a.nc:/v
	h5u call add era.nc:/t2m era.nc:/sst -o b.nc:/v
	h5u call add era.nc:/sst era.nc:/t2m -o c.nc:/v
	h5u call multiply era.nc:/wind era.nc:/t2m -o d.nc:/v
	h5u call subtract era.nc:/t2m other.nc:/t -o e.nc:/v
	h5u call hypot era.nc:/orog era.nc:/sst -o f.nc:/v
	for f in a b c d e f; do no_phony $f.nc; done
	ref same a.nc v "t2m + time" :: same b.nc v "t2m + sst" :: same c.nc v "sst + t2m" \
	    :: same d.nc v "wind * t2m" :: same e.nc v "t2m - t" :: same f.nc v "hypot(orog, sst)" \
	    :: dims d.nc v level lat time lon :: dims c.nc v lon lat time
}

@test "expressions broadcast by name: the union over the names they read, in order" {
	h5u eval -i t2m=era.nc:/t2m -i t=other.nc:/t -i orog=era.nc:/orog -i sst=era.nc:/sst \
	    'x.nc:/v = orog * 2 - t + sqrt(sst) / t2m'
	h5u eval -i t=other.nc:/t -i sst=era.nc:/sst 'y.nc:/v = maximum(t, 0) + sst'
	no_phony x.nc
	ref same x.nc v "orog * 2 - t + sqrt(sst) / t2m" :: same y.nc v "maximum(t, 0) + sst"
}

@test "lengths must agree by name: exit 2, the two operands named, nothing written" {
	snapshot
	run --separate-stderr h5u call add era.nc:/t2m wide.nc:/x -o o.nc:/v
	assert_error 2 "call add: dimension 'lat' is 3 in era.nc:/t2m and 4 in wide.nc:/x"
	printf 'inputs:\n  a: era.nc:/orog\n  b: wide.nc:/x\nsteps:\n  - expr: a + 1 - b\n    out: era.nc:/bad\n' > r.yaml
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:5:17: step 1 (expr expression): dimension 'lat' is 3 in era.nc:/orog and 4 in wide.nc:/x"
	assert_unchanged
}

@test "broadcast: position turns names off; an unnamed operand is positional and keeps the named one's names" {
	run --separate-stderr h5u call add era.nc:/t2m era.nc:/lat --broadcast position
	assert_error 2 "call add: operands could not be broadcast together with shapes (4,3,5) (3,)"
	printf 'defaults:\n  broadcast: position\nsteps:\n  - ufunc: add\n    in: [era.nc:/t2m, era.nc:/sst]\n' > r.yaml
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:5:10: step 1 (ufunc add): operands could not be broadcast together with shapes (4,3,5) (5,3,4)"
	# named z(y, x) with unnamed w(4): NumPy's rule, the result named (y, x)
	h5u call add h5.h5:/z plain.h5:/w -o n.h5:/v
	h5u call add plain.h5:/z plain.h5:/w -o n.h5:/p
	run h5dump -A -d /v n.h5
	assert_output --partial DIMENSION_LIST
	run h5dump -A -d /p n.h5
	refute_output --partial DIMENSION_LIST
	np check add plain.h5:/z plain.h5:/w -o n.h5:/v :: check add plain.h5:/z plain.h5:/w -o n.h5:/p
	run --separate-stderr h5u call add era.nc:/t2m 1 --broadcast sideways
	assert_error 2 "call add: --broadcast: 'sideways' is not name or position"
}

@test "reduce and accumulate take axes by name; reduced names are dropped, keepdims keeps a length-one axis" {
	h5u reduce add era.nc:/t2m --axis time -o r.nc:/s
	h5u reduce maximum era.nc:/sst --axis lat,time -o r.nc:/m
	h5u accumulate add era.nc:/t2m --axis lon -o r.nc:/c
	h5u reduce add era.nc:/t2m --axis time --keepdims -o k.nc:/s
	printf 'steps:\n  - reduce: add\n    in: era.nc:/t2m\n    axis: [lat, lon]\n    out: r.nc:/ll\n' > r.yaml
	h5u run r.yaml
	no_phony r.nc
	no_phony k.nc
	ref dims r.nc s lat lon :: dims r.nc m lon :: dims r.nc c time lat lon :: dims r.nc ll time \
	    :: dims k.nc s time lat lon \
	    :: same r.nc s "t2m.sum('time')" era.nc :: same r.nc m "sst.max(['lat', 'time'])" era.nc \
	    :: same r.nc c "t2m.cumsum('lon')" era.nc :: same r.nc ll "t2m.sum(['lat', 'lon'])" era.nc
	run ncdump -h k.nc
	assert_line --partial "time = 1 ;"
	snapshot
	run --separate-stderr h5u reduce add era.nc:/t2m --axis level
	assert_error 2 "reduce add: 'era.nc:/t2m' has no dimension 'level'"
	run --separate-stderr h5u accumulate add plain.h5:/z --axis x
	assert_error 2 "accumulate add: 'plain.h5:/z' has no dimension names (no dimension scales), so no dimension 'x'"
	assert_unchanged
}

@test "named intermediates keep their names: anomalies t2m - mean over time" {
	cat > r.yaml <<-'EOF'
		inputs: {t2m: era.nc:/t2m, t: other.nc:/t}
		steps:
		  - {reduce: add, in: t2m, axis: time, out: total}
		  - {expr: t2m - total / 4, out: an.nc:/anomaly}
		  - {ufunc: subtract, in: [t, total], out: an.nc:/d}
	EOF
	h5u run r.yaml
	no_phony an.nc
	ref same an.nc anomaly "t2m - t2m.sum('time') / 4" era.nc :: same an.nc d "t - t2m.sum('time')" \
	    :: dims an.nc d lat time lon
}

@test "slices: an indexed axis loses its name, a sliced one keeps it with a dimension of its length" {
	h5u call multiply 'era.nc:/t2m[1, :, 1:4]' 2 -o s.nc:/v
	no_phony s.nc
	ref dims s.nc v lat lon
	run ncdump -h s.nc
	assert_line --partial "lon = 3 ;"
}

@test "1-4 ranks: broadcast by name, reduce by name, scales attached after the collective writes" {
	cat > r.yaml <<-'EOF'
		inputs: {t2m: era.nc:/t2m, sst: era.nc:/sst, t: other.nc:/t}
		steps:
		  - {reduce: add, in: t2m, axis: time, out: out.nc:/s}
		  - {expr: sst * 2 + t, out: out.nc:/x}
		  - {ufunc: subtract, in: [t, t2m], out: era.nc:/new}
	EOF
	cp era.nc era0.nc
	for n in 1 2 3 4; do
		cp era0.nc era.nc
		mpi $n h5ufunc run r.yaml
		no_phony out.nc
		ref dims out.nc s lat lon :: dims out.nc x lon lat time :: dims era.nc new lat time lon \
		    :: same out.nc s "t2m.sum('time')" era.nc :: same out.nc x "sst * 2 + t" \
		    :: same era.nc new "t - t2m" era.nc other.nc
		rm out.nc
	done
}

@test "operands read with their axes moved, block by block under --memory 1M (one row of x per block), on 1 and 3 ranks" {
	for n in 1 3; do
		mpi $n h5ufunc eval --memory 1M -i a=big.nc:/a -i b=big.nc:/b -i c=big.nc:/c \
		    "o$n.nc:/v = b * 2 + a - c"
		mpi $n h5ufunc call add big.nc:/c big.nc:/a --memory 1M -o o$n.nc:/w
	done
	ref same o1.nc v "b * 2 + a - c" big.nc :: same o3.nc v "b * 2 + a - c" big.nc \
	    :: same o1.nc w "c + a" big.nc :: same o3.nc w "c + a" big.nc
}
