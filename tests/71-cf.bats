#!/usr/bin/env bats
# 71-cf.bats - CF decoding by default, and packed data written back.
#
# Datasets are read as netCDF4-python and xarray read them: NCO's own
# regression file (tests/data/nco-in.cdl, built with ncgen) gives NCO's
# regression answers (ncra's record means of packed variables, ncwa's
# masked means); an ERA5-style file (int16 t2m, u10, v10 with float64
# scale_factor/add_offset, _FillValue and missing_value) is unpacked into
# float64 on every verb (call, eval, reduce, accumulate, reduceat, outer,
# where=, printed results; at works on the stored numbers), bit for bit as the netCDF User Guide's arithmetic in
# NumPy, which is netCDF4-python's own result, and within float32's
# rounding of xarray's (whose dtype is float32: h5ufunc(1), CF DECODING);
# a CMIP-style float32 file's 1e20 fill values are skipped, and summed
# with --missing raw, and its reduceat keeps time at the segments' starts
# with time_bnds spanning each (as xarray reads them); _Unsigned bytes, an int32 with a float32 scale (the
# User Guide's float32, where netCDF4-python gives float64), valid_range on
# packed values, a packed float; the same bytes on 1 to 4 ranks and a small
# --memory; a file without CF attributes gives exactly the bytes of
# --missing raw.  Writing: pack: chooses NCO ncpdq's scale_factor and
# add_offset and stores its integers (checked against ncpdq itself); a
# packed dataset written in place is packed again with its own attributes
# as netCDF4-python packs it (rounding half to even), its attributes kept;
# a value that does not fit is exit 1 with the dataset as it was; misuse
# is exit 2 before any write.  The reference is tests/cf_ref.py.

load helper

setup_file() {
	ref make "$BATS_FILE_TMPDIR"
	ncgen -k nc4 -o "$BATS_FILE_TMPDIR/nco.nc" "$H5U_TESTS/data/nco-in.cdl"
}

setup() {
	fixture era.nc cmip.nc kinds.nc plain.h5 nco.nc
}

REF=cf_ref.py

# near VALUE EXPECTED -- |VALUE - EXPECTED| <= 1e-9 |EXPECTED|
near() {
	awk -v v="$1" -v w="$2" 'BEGIN { d = v - w; if (d < 0) d = -d; s = w < 0 ? -w : w; exit !(d <= 1e-9 * s) }' ||
		fail "$1 is not $2"
}

@test "NCO's in.cdl: the record means and masked means of NCO's regression answers" {
	ok reduce add nco.nc:/rec_var_dbl_pck --axis time
	assert_output 1005.5   # ncra: 100.55
	ok reduce add nco.nc:/rec_var_dbl_pck --axis time --missing raw
	assert_output 55       # the packed shorts, as before
	ok reduce add nco.nc:/rec_var_flt_pck --axis time
	near "$(awk "BEGIN { print $output / 10 }")" 100.55
	ok reduce add nco.nc:/rec_var_pck_scale_factor_only --axis time
	near "$(awk "BEGIN { print $output / 10 }")" 55
	cat > mean.yaml <<-'EOF'
		steps:
		  - {expr: x * 0 + 1, out: one}
		  - {reduce: add, in: x, axis: '${AXIS}', out: s}
		  - {reduce: add, in: one, axis: '${AXIS}', out: n}
		  - {expr: s / n, out: 'o.nc:/m${NAME}'}
	EOF
	for case in rec_var_dbl_mss_val_dbl_pck:time:5 rec_var_dbl_mss_val_sht_pck:time:5 \
		    mss_val:lon:73 val_max_max_sht:0:17000 rec_var_flt_mss_val_dbl:time:5; do
		IFS=: read -r name axis want <<<"$case"
		sed "1i inputs:\n  x: nco.nc:/$name" mean.yaml > r.yaml
		ok run r.yaml --set NAME="$name" --set AXIS="$axis"
		near "$(h5dump -d "/m$name" -m %.17g o.nc | awk '/\(0\)/ { print $2 }')" "$want"
	done
	ok call add nco.nc:/pck 0
	assert_output 3.0
	ok call add nco.nc:/pck_7 0
	assert_output 7.0
	ref jobs "$BATS_FILE_TMPDIR" <<-'EOF'
		nc4 nco.nc:/rec_var_dbl_pck nco.nc:/rec_var_flt_pck nco.nc:/pck_arr nco.nc:/pck_crd nco.nc:/rec_var_dbl_mss_val_sht_pck
		o.nc:/mrec_var_dbl_mss_val_dbl_pck = mean(V('nco.nc:/rec_var_dbl_mss_val_dbl_pck'), 0)
		o.nc:/mmss_val = mean(V('nco.nc:/mss_val'), 0)
	EOF
}

@test "ERA5-style packed int16 on every verb: the User Guide's float64 bit for bit, xarray's float32 within its rounding" {
	ok call subtract era.nc:/t2m 273.15 -o o.nc:/c
	ok call subtract era.nc:/t2m 273.15 --missing mask -o o.nc:/cm   # the README's example
	ok call hypot era.nc:/u10 era.nc:/v10 -o o.nc:/ws
	ok eval -i t=era.nc:/t2m -i u=era.nc:/u10 'o.nc:/e = (t - 273.15) * 1.8 + 32 + u * 0'
	ok eval -i t=era.nc:/t2m 'o.nc:/w = t - 273.15' --where 't > 280'
	ok reduce add era.nc:/t2m --axis time -o o.nc:/s
	ok reduce maximum era.nc:/u10 --axis 1,2 -o o.nc:/mx
	ok accumulate add era.nc:/v10 --axis time -o o.nc:/cv
	ok call subtract.outer 'era.nc:/u10[0, 0]' 'era.nc:/v10[1, 2, 0:3]' -o o.nc:/out
	ok call subtract.outer 'era.nc:/u10[0, 0]' 'era.nc:/v10[1, 2, 0:3]' --missing raw -o o.nc:/outr
	ok reduce add era.nc:/u10 --where era.nc:/v10 -o o.nc:/rw
	ok reduceat add era.nc:/t2m --indices 0,5,9 --axis 0 -o o.nc:/ra
	ok reduce add era.nc:/t2m --axis time --missing raw -o o.nc:/raw
	printf 'steps:\n  - {ufunc: add, in: ["era.nc:/t2m[0]", 0], out: o.nc:/sd}\n  - {ufunc: add, in: ["era.nc:/t2m[0]", 0], missing: raw, out: o.nc:/sr}\n' > sel.yaml
	ok run sel.yaml
	ref jobs "$BATS_FILE_TMPDIR" <<-'EOF'
		nc4 era.nc:/t2m era.nc:/u10 era.nc:/v10
		o.nc:/sd = V('era.nc:/t2m')[0] + 0
		o.nc:/sr = R('era.nc:/t2m')[0] + 0
		o.nc:/c = V('era.nc:/t2m') - 273.15
		o.nc:/cm = V('era.nc:/t2m') - 273.15
		o.nc:/ws = np.hypot(V('era.nc:/u10'), V('era.nc:/v10')) ;; ulp=4
		o.nc:/e = (V('era.nc:/t2m') - 273.15) * 1.8 + 32 + V('era.nc:/u10') * 0
		o.nc:/s = ma.sum(V('era.nc:/t2m'), axis=0)
		o.nc:/mx = ma.max(V('era.nc:/u10'), axis=(1, 2))
		o.nc:/cv = ma.cumsum(V('era.nc:/v10'), axis=0)
		o.nc:/out = V('era.nc:/u10')[0, 0][:, None] - V('era.nc:/v10')[1, 2, 0:3][None, :]
		o.nc:/outr = np.subtract.outer(R('era.nc:/u10')[0, 0], R('era.nc:/v10')[1, 2, 0:3])
		o.nc:/rw = ma.sum(ma.where(ma.filled(V('era.nc:/v10'), 1) != 0, V('era.nc:/u10'), 0), axis=0)
		o.nc:/ra = ma.array(np.add.reduceat(ma.filled(V('era.nc:/t2m'), 0), [0, 5, 9], axis=0), mask=np.logical_and.reduceat(ma.getmaskarray(V('era.nc:/t2m')), [0, 5, 9], axis=0))
		o.nc:/raw = np.add.reduce(R('era.nc:/t2m'), axis=0)
		xr o.nc:/c = X('era.nc:/t2m') - 273.15 ;; atol=1.3e-4
		xr o.nc:/ws = np.hypot(X('era.nc:/u10'), X('era.nc:/v10'))
		xr o.nc:/s = np.nansum(X('era.nc:/t2m'), axis=0) * np.where(np.isnan(X('era.nc:/t2m')).all(0), np.nan, 1) ;; atol=4e-3
	EOF
	run h5dump -A -d /w o.nc
	assert_output --partial '_FillValue'
	ref jobs "$BATS_FILE_TMPDIR" <<-'EOF'
		o.nc:/w = ma.masked_where(~(ma.filled(V('era.nc:/t2m'), 0) > 280), V('era.nc:/t2m') - 273.15)
	EOF
}

@test "printed results and --json of decoded data: -- where missing, the unpacked dtype in check" {
	ok reduce maximum era.nc:/t2m --axis 0
	ref jobs "$BATS_FILE_TMPDIR" <<-EOF
		printed ma.max(V('era.nc:/t2m'), axis=0)
		$output
	EOF
	ok eval -i 't=era.nc:/t2m[0:2]' 't - 273.15'
	ref jobs "$BATS_FILE_TMPDIR" <<-EOF
		printed V('era.nc:/t2m')[0:2] - 273.15
		$output
	EOF
	ok reduce add era.nc:/t2m --axis 1,2 --json
	/usr/bin/python3 -c 'import json, sys; r = json.load(sys.stdin)
assert r["steps"][0]["inputs"][0]["dtype"] == "float64" and r["steps"][0]["loop"] == "dd->d", r' <<<"$output"
	printf 'inputs: {t: era.nc:/t2m}\nsteps:\n  - {expr: t * 2, out: o.nc:/x, pack: int8}\n' > r.yaml
	ok check r.yaml
	assert_output --partial 'in  era.nc:/t2m float64 (unpacked from int16) (12, 5, 7)'
	assert_output --partial 'out o.nc:/x float64 (packed as int8) (12, 5, 7)'
}

@test "CMIP-style float32 with a 1e20 _FillValue: skipped by default, summed with --missing raw" {
	ok reduce add cmip.nc:/tas --axis time -o o.nc:/s
	ok reduce add cmip.nc:/tas --axis time --missing raw -o o.nc:/raw
	ok call subtract cmip.nc:/tas 273.15 -o o.nc:/c
	ref jobs "$BATS_FILE_TMPDIR" <<-'EOF'
		o.nc:/s = ma.sum(V('cmip.nc:/tas'), axis=0)
		o.nc:/raw = np.add.reduce(R('cmip.nc:/tas'), axis=0)
		o.nc:/c = V('cmip.nc:/tas') - 273.15
		xr o.nc:/c = X('cmip.nc:/tas') - 273.15
	EOF
	run h5dump -d /raw -m %g o.nc
	assert_output --partial 'e+20'
}

@test "reduceat of a CF time series: sums of its valid values, time at the segment starts and time_bnds spanning each, as xarray decodes them" {
	ok reduceat add cmip.nc:/tas --indices 0,2,5 --axis time -o o.nc:/s
	ref jobs "$BATS_FILE_TMPDIR" <<-'EOF'
		o.nc:/s = ma.masked_array(np.add.reduceat(V('cmip.nc:/tas').filled(0), [0, 2, 5], axis=0), np.logical_and.reduceat(ma.getmaskarray(V('cmip.nc:/tas')), [0, 2, 5], axis=0))
	EOF
	run /usr/bin/python3 - "$BATS_FILE_TMPDIR/cmip.nc" <<-'EOF'
		import sys, numpy as np, xarray as xr
		src, out = xr.open_dataset(sys.argv[1]), xr.open_dataset("o.nc")
		idx, ends = [0, 2, 5], [1, 4, 5]   # each segment's first and last month
		assert out.time.dtype == src.time.dtype and (out.time.values == src.time.values[idx]).all(), out.time
		assert out.time.attrs == src.time.attrs, out.time.attrs   # bounds, calendar
		want = np.stack([src.time_bnds.values[idx, 0], src.time_bnds.values[ends, 1]], axis=1)
		assert (out.time_bnds.values == want).all(), out.time_bnds.values
		assert out.s.attrs["cell_methods"] == "time: sum" and out.s.dims == ("time", "lat", "lon")
	EOF
	assert_success
	run ncap2 -h -A -s 'nco_variable=7' o.nc o.nc
	assert_success
	REF=netcdf_ref.py run ref appendable o.nc
	assert_success
	run ncdump -v time_bnds o.nc   # netCDF-C reads the bounds, and what NCO and netCDF4-python added
	assert_output --partial "$(printf ' time_bnds =\n  0, 60,\n  60, 150,\n  150, 180 ;')"
	assert_output --partial "nco_variable"
	assert_output --partial "appended_var"
}

@test "_Unsigned bytes, an int32 with a float32 scale, valid_range on packed values, a packed float" {
	local v
	for v in ub ubs s32 vr fp sf; do
		ok call add "kinds.nc:/$v" 0 -o "o.nc:/$v"
	done
	ok reduce add kinds.nc:/ub --axis 1 -o o.nc:/ubsum
	ok reduce maximum kinds.nc:/vr -o o.nc:/vrmax
	ref jobs "$BATS_FILE_TMPDIR" <<-'EOF'
		nc4 kinds.nc:/ub kinds.nc:/ubs kinds.nc:/s32 kinds.nc:/vr kinds.nc:/fp kinds.nc:/sf
		o.nc:/ub = V('kinds.nc:/ub') + 0
		o.nc:/ubs = V('kinds.nc:/ubs') + 0
		o.nc:/s32 = V('kinds.nc:/s32') + 0
		o.nc:/vr = V('kinds.nc:/vr') + 0
		o.nc:/fp = V('kinds.nc:/fp') + 0
		o.nc:/sf = V('kinds.nc:/sf') + 0
		o.nc:/ubsum = ma.sum(V('kinds.nc:/ub'), axis=1)
		o.nc:/vrmax = ma.max(V('kinds.nc:/vr'), axis=0)
		xr o.nc:/ubs = X('kinds.nc:/ubs') + 0
		xr o.nc:/sf = X('kinds.nc:/sf') + 0
	EOF
}

@test "_Unsigned bytes from ncgen with _FillValue, missing_value and valid_range: read, reduced and written (new files, in place on 1 and 3 ranks) as netCDF4-python does; attributes of an unsigned type left out as it leaves them" {
	# a: byte attributes, read through the same bytes as ubyte (10b, -6b is
	# the range 10..250); b: ubyte attributes, which netCDF4-python leaves
	# out (they do not convert to byte exactly); c: valid_min as a short,
	# valid_max as one that is no byte (a _FillValue too: netCDF4-python's
	# masked array fails on the default one); d: a _FillValue alone, as
	# xarray reads it (it leaves a byte missing_value out on _Unsigned data)
	cat > u.cdl <<-'EOF'
		netcdf u {
		dimensions:
		  y = 3 ; x = 8 ;
		variables:
		  byte a(y, x) ;
		    a:_Unsigned = "true" ; a:_FillValue = -1b ; a:valid_range = 10b, -6b ; a:missing_value = -56b ;
		  byte b(y, x) ;
		    b:_Unsigned = "true" ; b:valid_range = 10UB, 250UB ; b:missing_value = 200UB ;
		  byte c(y, x) ;
		    c:_Unsigned = "true" ; c:_FillValue = -2b ; c:valid_min = 5s ; c:valid_max = 200s ;
		  byte d(y, x) ;
		    d:_Unsigned = "true" ; d:_FillValue = -1b ;
		data:
		  a = 0, 5, 10, 100, -56, -6, -5, -1, 11, 12, 13, -7, -8, 14, 15, 16, 17, 18, -1, 19, 20, -56, 21, 22 ;
		  b = 0, 5, 10, 100, -56, -6, -5, -1, 11, 12, 13, -7, -8, 14, 15, 16, 17, 18, -1, 19, 20, -56, 21, 22 ;
		  c = 0, 5, 10, 100, -56, -6, -5, -1, 11, 12, 13, -7, -8, 14, 15, 16, 17, 18, -1, 19, 20, -56, 21, 22 ;
		  d = 0, 5, 10, 100, -56, -6, -5, -1, 11, 12, 13, -7, -8, 14, 15, 16, 17, 18, -1, 19, 20, -56, 21, 22 ;
		}
	EOF
	ncgen -k nc4 -o u.nc u.cdl
	local v
	for v in a b c d; do
		ok call add "u.nc:/$v" 0 -o "o.nc:/$v"
		ok reduce add "u.nc:/$v" --axis 1 -o "o.nc:/${v}sum"
		ok reduce maximum "u.nc:/$v" -o "o.nc:/${v}max"
	done
	cp u.nc w1.nc
	cp u.nc w3.nc
	ok call add w1.nc:/a 0 -o w1.nc:/a
	ok call minimum w1.nc:/d 254 -o w1.nc:/d
	run --separate-stderr mpi 3 h5ufunc call add w3.nc:/a 0 -o w3.nc:/a
	assert_success
	run --separate-stderr mpi 3 h5ufunc call minimum w3.nc:/d 254 -o w3.nc:/d
	assert_success
	diff <(h5dump -d /a -d /d w1.nc | tail -n +2) <(h5dump -d /a -d /d w3.nc | tail -n +2)
	{
		echo nc4 u.nc:/a u.nc:/b u.nc:/c u.nc:/d
		for v in a b c d; do
			echo "o.nc:/$v = V('u.nc:/$v') + 0"
		done
		cat
	} <<-'EOF' | ref jobs "$PWD"
		o.nc:/asum = ma.sum(V('u.nc:/a'), axis=1)
		o.nc:/csum = ma.sum(V('u.nc:/c'), axis=1)
		o.nc:/amax = ma.max(V('u.nc:/a'), axis=0)
		o.nc:/dmax = ma.max(V('u.nc:/d'), axis=0)
		xr o.nc:/d = X('u.nc:/d') + 0
		w1.nc:/a = V('u.nc:/a') + 0
		w1.nc:/d = ma.minimum(V('u.nc:/d'), np.uint8(254))
		repack w1.nc:/d u.nc:/d ma.minimum(V('u.nc:/d'), np.uint8(254))
	EOF
	# the values, not the stored bytes, against the valid range and fill
	snapshot
	run --separate-stderr h5u call subtract w1.nc:/a 1 -o w1.nc:/a
	assert_error 1 "call subtract: a valid result, 9, would read back as missing in 'w1.nc:/a' (below its valid minimum, 10); 'w1.nc:/a' is as it was before the run"
	run --separate-stderr h5u call add w1.nc:/d 4 -o w1.nc:/d
	assert_error 1 "call add: a valid result equals 255, the fill value that marks the missing elements of 'w1.nc:/d': it would read back as missing (choose another fill value: fill:, --fill); 'w1.nc:/d' is as it was before the run"
	assert_unchanged
}

@test "a file without CF attributes gives exactly the bytes of --missing raw, NumPy's" {
	cat > r.yaml <<-'EOF'
		inputs: {x: plain.h5:/x, i: plain.h5:/i}
		steps:
		  - {ufunc: sqrt, in: x, out: '${OUT}:/sqrt'}
		  - {expr: 'log(x) + i // 7', out: '${OUT}:/e'}
		  - {reduce: add, in: x, axis: 1, out: '${OUT}:/s'}
		  - {reduce: minimum, in: i, out: '${OUT}:/m'}
		  - {accumulate: multiply, in: i, out: '${OUT}:/p'}
	EOF
	ok run r.yaml --set OUT=cf.h5 --no-history
	sed 's/^steps:/defaults: {missing: raw}\nsteps:/' r.yaml > raw.yaml
	ok run raw.yaml --set OUT=raw.h5 --no-history
	h5dump cf.h5 | sed 's/cf\.h5/FILE/' > cf.dump
	h5dump raw.h5 | sed 's/raw\.h5/FILE/' > raw.dump
	diff cf.dump raw.dump
	run h5dump -A cf.h5
	refute_output --partial _FillValue
	ref jobs "$BATS_FILE_TMPDIR" <<-'EOF'
		nc4 plain.h5:/x plain.h5:/i
		cf.h5:/sqrt = np.sqrt(R('plain.h5:/x'))
		cf.h5:/e = np.log(R('plain.h5:/x')) + R('plain.h5:/i') // 7
		cf.h5:/s = np.add.reduce(R('plain.h5:/x'), axis=1)
		cf.h5:/m = np.minimum.reduce(R('plain.h5:/i'), axis=0)
	EOF
}

@test "a masked intermediate is read masked by a later step; masked means as a recipe" {
	cat > r.yaml <<-'EOF'
		inputs: {t: era.nc:/t2m}
		steps:
		  - {expr: t - 273.15, out: c}
		  - {expr: c * 0 + 1, out: one}
		  - {reduce: add, in: c, axis: time, out: s}
		  - {reduce: add, in: one, axis: time, out: n}
		  - {expr: s / n, out: o.nc:/mean}
	EOF
	ok run r.yaml
	ref jobs "$BATS_FILE_TMPDIR" <<-'EOF'
		o.nc:/mean = mean(V('era.nc:/t2m') - 273.15, 0)
	EOF
}

@test "1, 2, 3 and 4 ranks and a small --memory: the same bytes" {
	cat > r.yaml <<-'EOF'
		inputs: {t: e.nc:/t2m, u: e.nc:/u10, v: e.nc:/v10}
		steps:
		  - {expr: 'hypot(u, v) + (t - 273.15) * 0', out: o.nc:/ws}
		  - {reduce: add, in: t, axis: time, out: o.nc:/s}
		  - {reduce: maximum, in: v, axis: [1, 2], out: o.nc:/mx}
		  - {accumulate: add, in: u, axis: time, out: o.nc:/cu}
		  - {expr: t - 273.15, out: o.nc:/p, pack: int16}
		  - {expr: u * 0.5, out: u}
	EOF
	local n mem
	for n in 1 2 3 4; do
		for mem in 256M 8K; do
			cp era.nc e.nc
			rm -f o.nc
			run --separate-stderr mpi "$n" h5ufunc run --memory "$mem" --no-history r.yaml
			[[ $status == 0 ]] || echo "$stderr"
			assert_success
			h5dump o.nc > "dump-$n-$mem"
			h5dump -d /u10 e.nc >> "dump-$n-$mem"
			cmp dump-1-256M "dump-$n-$mem"
		done
	done
	ref jobs "$BATS_FILE_TMPDIR" <<-'EOF'
		o.nc:/ws = np.hypot(V('era.nc:/u10'), V('era.nc:/v10')) + (V('era.nc:/t2m') - 273.15) * 0 ;; ulp=4
		o.nc:/s = ma.sum(V('era.nc:/t2m'), axis=0)
		o.nc:/mx = ma.max(V('era.nc:/v10'), axis=(1, 2))
		o.nc:/cu = ma.cumsum(V('era.nc:/u10'), axis=0)
		repack e.nc:/u10 era.nc:/u10 V('era.nc:/u10') * 0.5
	EOF
}

@test "pack: NCO's ncpdq scale_factor, add_offset and integers; explicit values; float32 results" {
	ok call subtract era.nc:/t2m 273.15 -o u.nc:/c
	ok call subtract era.nc:/t2m 273.15 -o o.nc:/c --pack int16
	ok call multiply era.nc:/u10 3 -o o.nc:/b --pack int8
	ok call subtract cmip.nc:/tas 273.15 -o o.nc:/f --pack int16
	ok call subtract cmip.nc:/tas 273.15 -o uf.nc:/f
	ok call multiply era.nc:/u10 3 -o ub.nc:/b
	ncpdq -O u.nc p.nc 2>/dev/null   # it warns that our float fill is not a short
	ncpdq -O uf.nc pf.nc 2>/dev/null
	ncpdq -O -M hgh_byt ub.nc pb.nc 2>/dev/null
	ok call subtract era.nc:/t2m 273.15 -o o.nc:/x --pack int16:0.01:-10
	ok call add era.nc:/u10 0 -o o.nc:/y --pack uint8:0.25:-30
	ref jobs "$BATS_FILE_TMPDIR" <<-'EOF'
		same-packing o.nc:/c p.nc:/c
		same-packing o.nc:/f pf.nc:/f
		same-packing o.nc:/b pb.nc:/b
		o.nc:/c = P(V('era.nc:/t2m') - 273.15, 'i2', np.float64(ma.min(V('era.nc:/t2m') - 273.15) - ma.max(V('era.nc:/t2m') - 273.15)) / 65532, (ma.min(V('era.nc:/t2m') - 273.15) + ma.max(V('era.nc:/t2m') - 273.15)) * 0.5)
		o.nc:/x = P(V('era.nc:/t2m') - 273.15, 'i2', 0.01, -10)
		o.nc:/y = P(V('era.nc:/u10') + 0, 'u1', 0.25, -30)
	EOF
	run h5dump -A -d /c o.nc
	assert_output --partial '_FillValue'
	assert_output --partial '-32768'
}

@test "in place: packed again with its own attributes as netCDF4-python packs it; fills stay fills" {
	cp era.nc e.nc
	h5dump -A -d /t2m e.nc > before
	ok eval -i t=e.nc:/t2m 't = (t - 273) * 0.9 + 273'
	ok eval -i v=e.nc:/v10 'v = v * 0.5' --where 'v > 0'
	ok call add e.nc:/late 0.5 -o e.nc:/late
	h5dump -A -d /t2m e.nc | diff before -
	ref jobs "$BATS_FILE_TMPDIR" <<-'EOF'
		repack e.nc:/t2m era.nc:/t2m (V('era.nc:/t2m') - 273) * 0.9 + 273
		repack e.nc:/v10 era.nc:/v10 ma.where(ma.filled(V('era.nc:/v10'), 0) > 0, V('era.nc:/v10') * 0.5, V('era.nc:/v10'))
		repack e.nc:/late era.nc:/late V('era.nc:/late') + 0.5
	EOF
	ok call add e.nc:/u10 0 -o e.nc:/u10 --missing raw
	ref jobs "$BATS_FILE_TMPDIR" <<-'EOF'
		repack e.nc:/u10 era.nc:/u10 V('era.nc:/u10')
	EOF
}

@test "in place into a dataset that marks missing values by missing_value or valid_* alone, packed or not: they stay missing, as xarray and numpy.ma read them, on 1 and 3 ranks; a valid result they would mark missing is exit 1" {
	/usr/bin/python3 - <<-'EOF'
		import netCDF4, numpy as np
		rng = np.random.default_rng(713)
		with netCDF4.Dataset("mv.nc", "w") as d:
		    d.createDimension("y", 7)
		    d.createDimension("x", 5)
		    def var(name, dtype, data, **attrs):
		        v = d.createVariable(name, dtype, ("y", "x"))
		        v.set_auto_maskandscale(False)
		        for k, a in attrs.items():
		            v.setncattr(k, a)
		        v[:] = data
		    f = np.round(rng.uniform(-50, 50, (7, 5)), 2).astype(np.float32)
		    f[rng.uniform(size=f.shape) < 0.3] = -99.5
		    var("mv", "f4", f, missing_value=np.float32(-99.5))
		    u = rng.integers(100, 60000, (7, 5)).astype(np.uint16)
		    var("vmin", "u2", u, valid_min=np.uint16(20000))
		    i = rng.integers(-30000, 30000, (7, 5)).astype(np.int16)
		    var("vmax", "i2", i, valid_max=np.int16(1000))
		    g = np.round(rng.uniform(-50, 50, (7, 5)), 2)
		    var("vrange", "f8", g, valid_range=np.array([-20.0, 30.0]))
		    p = rng.integers(-128, 80, (7, 5)).astype(np.int8)
		    var("packed", "i1", p, valid_max=np.int8(53), scale_factor=np.float64(0.01))
	EOF
	local n
	for n in '' 3; do
		cp mv.nc "m$n.nc"
		for v in mv:1 vmin:1 vmax:1 vrange:1 packed:0.5; do
			if [[ -z $n ]]; then
				ok call multiply "m$n.nc:/${v%:*}" "${v#*:}" -o "m$n.nc:/${v%:*}"
			else
				run --separate-stderr mpi "$n" h5ufunc call multiply "m$n.nc:/${v%:*}" "${v#*:}" \
					-o "m$n.nc:/${v%:*}" --memory 4K
				assert_success
			fi
		done
		N="$n" /usr/bin/python3 - <<-'EOF'
			import os, numpy as np, numpy.ma as ma, xarray as xr
			from cf_ref import nug_decode, read, P
			import h5ref
			h5ref.numpy2()
			out = "m%s.nc" % os.environ["N"]
			for v in ("mv", "vmin", "vmax", "vrange", "packed"):
			    want = nug_decode(*read("mv.nc:/" + v))
			    want = P(want * 0.5, np.int8, 0.01) if v == "packed" else want * 1
			    got = nug_decode(*read(out + ":/" + v))
			    assert np.array_equal(ma.getmaskarray(got), ma.getmaskarray(want)), (v, got, want)
			    assert np.array_equal(ma.getdata(got)[~got.mask], ma.getdata(want)[~want.mask]), (v, got, want)
			with xr.open_dataset(out) as d:   # xarray leaves valid_* alone
			    assert np.array_equal(np.isnan(d["mv"].values), ma.getmaskarray(nug_decode(*read("mv.nc:/mv")))), d["mv"].values
		EOF
	done
	cp mv.nc m.nc
	snapshot
	run --separate-stderr h5u call multiply m.nc:/vmin 0 -o m.nc:/vmin
	assert_error 1 "call multiply: a valid result, 0, would read back as missing in 'm.nc:/vmin' (below its valid minimum, 20000); 'm.nc:/vmin' is as it was before the run"
	run --separate-stderr mpi 3 h5ufunc call subtract m.nc:/vrange 100 -o m.nc:/vrange
	assert_error_once_match 1 "call subtract: a valid result, -1[0-9.]*, would read back as missing in 'm.nc:/vrange' .*"
	# the fill of a dataset with a valid range alone is the value just past
	# it: a valid result there is outside the range (the message said "the
	# fill value"), and netCDF4-python masks it
	run --separate-stderr h5u call maximum m.nc:/vmax 1001 -o m.nc:/vmax
	assert_error 1 "call maximum: a valid result, 1001, would read back as missing in 'm.nc:/vmax' (above its valid maximum, 1000); 'm.nc:/vmax' is as it was before the run"
	run --separate-stderr mpi 3 h5ufunc call maximum m.nc:/vmax 1001 -o m.nc:/vmax
	assert_error_once 1 "call maximum: a valid result, 1001, would read back as missing in 'm.nc:/vmax' (above its valid maximum, 1000); 'm.nc:/vmax' is as it was before the run"
	run --separate-stderr h5u call minimum m.nc:/vmin 19999 -o m.nc:/vmin
	assert_error 1 "call minimum: a valid result, 19999, would read back as missing in 'm.nc:/vmin' (below its valid minimum, 20000); 'm.nc:/vmin' is as it was before the run"
	assert_unchanged
	cp m.nc c.nc
	/usr/bin/python3 -c '
import netCDF4, numpy as np
with netCDF4.Dataset("c.nc", "a") as f:
    for v, x in (("vmax", 1001), ("vmin", 19999)):
        f[v].set_auto_maskandscale(False)
        f[v][0, 0] = x
        f[v].set_auto_maskandscale(True)
        assert np.ma.is_masked(f[v][0, 0]), (v, f[v][0, 0])
'
}

@test "missing_value of 5 and 12 values: every one is missing, as netCDF4-python and xarray read it, in reduce, call and in place, on 1 and 3 ranks; 64 on three operands of an expression; more than h5ufunc reads is exit 2" {
	/usr/bin/python3 - <<-'EOF'
		import netCDF4, numpy as np
		from cf_ref import _var
		rng = np.random.default_rng(7105)
		five = np.array([-101, -202, -303, 900, 901], np.float32)
		a = rng.integers(-50, 50, (9, 7)).astype(np.float32)
		a.flat[rng.choice(a.size, 20, replace=False)] = rng.choice(five, 20)
		twelve = np.arange(12, dtype=np.int16) * 7 - 500
		b = rng.integers(-90, 90, (9, 7)).astype(np.int16)
		b.flat[rng.choice(b.size, 25, replace=False)] = rng.choice(twelve, 25)
		sixty4 = np.arange(64, dtype=np.float64) + 1000   # the most h5ufunc reads, on three operands
		made = [("a", "f4", a, None, {"missing_value": five}),
		        ("b", "i2", b, np.int16(-32767), {"missing_value": twelve}),
		        ("many", "f8", a.astype(np.float64), None, {"missing_value": np.arange(65.0) + 1000})]
		for name in ("p", "q", "r"):
		    g = rng.integers(-50, 50, (9, 7)).astype(np.float64)
		    g.flat[rng.choice(g.size, 15, replace=False)] = rng.choice(sixty4, 15)
		    made.append((name, "f8", g, None, {"missing_value": sixty4}))
		with netCDF4.Dataset("mv.nc", "w") as d:
		    d.createDimension("y", 9)
		    d.createDimension("x", 7)
		    for name, dtype, data, fill, attrs in made:
		        _var(d, name, dtype, ("y", "x"), data, attrs, fill)
	EOF
	local n v launch small
	for n in 1 3; do
		cp mv.nc "m$n.nc"
		launch=(h5u) small=()
		((n > 1)) && launch=(mpi "$n" h5ufunc) small=(--memory 4K)
		for v in a b; do
			run --separate-stderr "${launch[@]}" reduce add "m$n.nc:/$v" --axis 0 -o "r$n.nc:/$v" "${small[@]}"
			assert_success
			run --separate-stderr "${launch[@]}" call multiply "m$n.nc:/$v" 3 -o "c$n.nc:/$v" "${small[@]}"
			assert_success
			run --separate-stderr "${launch[@]}" call add "m$n.nc:/$v" 1 -o "m$n.nc:/$v" "${small[@]}"
			assert_success
		done
		N="$n" /usr/bin/python3 - <<-'EOF'
			import os, netCDF4, numpy as np, numpy.ma as ma, xarray as xr
			n = os.environ["N"]
			def nc(f, v):
			    with netCDF4.Dataset(f) as d:
			        return d[v][:]
			for v in ("a", "b"):
			    x = nc("mv.nc", v)   # netCDF4-python masks every missing_value
			    with netCDF4.Dataset("mv.nc") as d:
			        mv = d[v].missing_value
			    assert np.array_equal(ma.getmaskarray(x), np.isin(ma.getdata(x), mv) | (ma.getdata(x) == -32767))
			    with xr.open_dataset("mv.nc") as d:
			        assert np.array_equal(np.isnan(d[v].values), ma.getmaskarray(x)), v
			    for got, want in ((nc("r%s.nc" % n, v), ma.sum(x, axis=0)),
			                      (nc("c%s.nc" % n, v), x * np.array(3, x.dtype)),
			                      (nc("m%s.nc" % n, v), x + np.array(1, x.dtype))):
			        assert got.dtype == want.dtype, (v, got.dtype, want.dtype)
			        assert np.array_equal(ma.getmaskarray(got), ma.getmaskarray(want)), (v, got, want)
			        assert np.array_equal(got.compressed(), want.compressed()), (v, got, want)
		EOF
	done
	ok eval -i p=mv.nc:/p -i q=mv.nc:/q -i r=mv.nc:/r 'e.nc:/s = p * q - r'
	/usr/bin/python3 - <<-'EOF'
		import netCDF4, numpy as np, numpy.ma as ma
		with netCDF4.Dataset("mv.nc") as d, netCDF4.Dataset("e.nc") as o:
		    want = d["p"][:] * d["q"][:] - d["r"][:]
		    got = o["s"][:]
		    assert np.array_equal(ma.getmaskarray(got), ma.getmaskarray(want)), (got, want)
		    assert np.array_equal(got.compressed(), want.compressed()), (got, want)
	EOF
	cp mv.nc m.nc
	snapshot
	run --separate-stderr h5u call add m.nc:/many 1 -o m.nc:/many
	assert_error 2 "call add: 'm.nc:/many' has a missing_value attribute of 65 values: h5ufunc reads at most 64"
	assert_unchanged
}

@test "matmul in place into packed datasets whose scale_factor is the result's dtype, one of them reversed: packed as netCDF4-python packs" {
	/usr/bin/python3 - <<-'EOF'
		import netCDF4, numpy as np
		rng = np.random.default_rng(71)
		with netCDF4.Dataset("m.nc", "w") as d:
		    for name, size in (("i", 6), ("k", 4), ("j", 5)):
		        d.createDimension(name, size)
		    d.createVariable("a", "f8", ("i", "k"))[:] = rng.standard_normal((6, 4))
		    d.createVariable("b", "f8", ("k", "j"))[:] = rng.standard_normal((4, 5))
		    for name in ("p", "q"):
		        v = d.createVariable(name, "i2", ("i", "j"))
		        v.set_auto_maskandscale(False)
		        v.scale_factor = np.float64(0.01)
		        v[:] = rng.integers(-500, 500, (6, 5)).astype(np.int16)
	EOF
	cp m.nc before.nc
	ok eval -i a=m.nc:/a -i b=m.nc:/b -i p=m.nc:/p 'p = a @ b'
	ok call matmul m.nc:/a m.nc:/b -o 'm.nc:/q[::-1]'
	/usr/bin/python3 - <<-'EOF'
		import h5py, netCDF4, numpy as np
		with h5py.File("before.nc") as f:
		    ab = f["a"][:] @ f["b"][:]
		with netCDF4.Dataset("before.nc", "a") as d:
		    d["p"][:], d["q"][::-1] = ab, ab
		with h5py.File("before.nc") as want, h5py.File("m.nc") as got:
		    for name in ("p", "q"):
		        assert np.array_equal(got[name][:], want[name][:]), (name, got[name][:], want[name][:])
		        assert got[name].attrs["scale_factor"] == 0.01
	EOF
}

@test "a value that does not fit the packed dtype: exit 1, the dataset as it was" {
	cp era.nc e.nc
	h5dump e.nc > before
	run --separate-stderr h5u call subtract e.nc:/t2m 273.15 --casting unsafe -o e.nc:/t2m
	assert_failure 1
	assert_output ''
	[[ $stderr == "h5ufunc: call subtract: "*" cannot be packed into 'e.nc:/t2m' (int16, scale_factor "*", add_offset "*"): out of range"* ]] ||
		fail "$stderr"
	h5dump e.nc | diff before -
	run --separate-stderr h5u call add e.nc:/late 1 -o e.nc:/late --memory 8K
	assert_failure 1
	[[ $stderr == *"16384 cannot be packed into 'e.nc:/late' (int16, scale_factor 0.5): out of range"* ]] ||
		fail "$stderr"
	h5dump e.nc | diff before -
}

@test "misuse is exit 2 before any write" {
	cp era.nc e.nc
	snapshot
	run --separate-stderr h5u call add e.nc:/t2m 1 -o e.nc:/t2m --pack int16
	assert_error 2 "call add: pack: 'e.nc:/t2m' is written in place, so it is packed with its own attributes"
	run --separate-stderr h5u call add era.nc:/t2m 1 --pack int16
	assert_error 2 "call add: pack: a printed result is not packed (write it to FILE:/PATH)"
	run --separate-stderr h5u call add era.nc:/t2m 1 -o o.nc:/x --pack float32
	assert_error 2 "call add: --pack: 'float32' is not an integer dtype of at most 32 bits, then :SCALE_FACTOR and :ADD_OFFSET if given"
	run --separate-stderr h5u call add era.nc:/t2m 1 -o o.nc:/x --pack int16:0
	assert_error_match 2 "call add: --pack: 'int16:0' is not .*"
	run --separate-stderr h5u call add era.nc:/t2m 1 -o o.nc:/x --pack int64
	assert_error_match 2 "call add: --pack: 'int64' is not .*"
	run --separate-stderr h5u call add kinds.nc:/isf 1 -o o.nc:/x
	assert_error 2 "call add: 'kinds.nc:/isf' has a scale_factor of dtype int16: h5ufunc unpacks into floats only (read it with --missing raw)"
	run --separate-stderr h5u call less era.nc:/t2m 1 -o o.nc:/x --pack int16
	assert_error 2 "call less: pack: the result is bool: only real numbers are packed"
	assert_unchanged
	ok call add kinds.nc:/isf 1 -o o.nc:/x --missing raw
}
