#!/usr/bin/env bats
# 36-units.bats - units (CF `units` attributes, UDUNITS-2) carried to the
# outputs as unyt computes them, in the default mode `units: propagate`:
# products, quotients, powers by a literal, roots, sums of like units,
# multiply.reduce over n elements, comparisons without units; left out
# where they cannot be determined (cm + m, K + m), never a value changed;
# in place the attribute follows the result; `units: off`; check shows
# them; 1 to 4 ranks.  A root UDUNITS-2 cannot write (sqrt of kg m-3: a
# power of 3/2) is spelt as unyt prints it; one of a scaled unit (sqrt of
# cm) is left out.  `units: strict` converts (cm + m in cm, sin
# of degrees in radians) and refuses (K + m, K - 273.15, exp of metres) as
# unyt does.  unyt is the reference (tests/units_ref.py).

load helper

setup_file() {
	(cd "$BATS_FILE_TMPDIR" && REF=names_ref.py ref fixtures . &&
	 /usr/bin/python3 - <<-'EOF'
		import h5py, numpy as np
		with h5py.File("u.h5", "w") as f:
		    for name, units in (("u", "m/s"), ("v", "m s-1"), ("len", "cm"), ("len2", "m"),
		                        ("rho", "kg m-3"), ("t", "K"), ("tc", "degC"), ("deg", "degree")):
		        f[name] = np.arange(1.0, 7.0).reshape(2, 3)
		        f[name].attrs["units"] = units
		    f["f32"] = np.linspace(0.1, 0.6, 6, dtype=np.float32).reshape(2, 3)
		    f["f32"].attrs["units"] = "m"
		    f["rows_cm"] = np.linspace(-3.0, 7.0, 12).reshape(3, 4)
		    f["rows_cm"].attrs["units"] = "cm"
		    f["rows_km"] = np.linspace(0.001, 0.04, 12).reshape(3, 4)
		    f["rows_km"].attrs["units"] = "km"
		    f["plain"] = np.arange(6.0).reshape(2, 3)
	EOF
	)
}

setup() {
	fixture era.nc u.h5
}

REF=units_ref.py

@test "elementwise units as unyt computes them, left out where they cannot be determined" {
	calls <<-'EOF'
		multiply u.h5:/u u.h5:/v -o o.h5:/uv
		divide u.h5:/rho u.h5:/u -o o.h5:/q
		power u.h5:/len 3 -o o.h5:/p
		sqrt u.h5:/rho -o o.h5:/r
		cbrt u.h5:/u -o o.h5:/cu
		sqrt u.h5:/len -o o.h5:/sc
		cbrt o.h5:/p -o o.h5:/r3
		add u.h5:/u u.h5:/v -o o.h5:/s
		hypot u.h5:/u u.h5:/v -o o.h5:/h
		add u.h5:/len u.h5:/len2 -o o.h5:/cm_m
		add u.h5:/t u.h5:/len2 -o o.h5:/k_m
		multiply u.h5:/t u.h5:/plain -o o.h5:/tp
		greater u.h5:/t 2 -o o.h5:/g
		exp u.h5:/t -o o.h5:/e
		reciprocal u.h5:/u -o o.h5:/rc
	EOF
	h5u eval -i u=u.h5:/u 'o.h5:/r2 = sqrt(u * u * u * u)'
	h5u eval -i u=u.h5:/u -i r=u.h5:/rho -i t=u.h5:/t 'o.h5:/x = sqrt(u * u) * r / t ** 2 - 1'
	ref is o.h5:/uv "m/s * m/s" :: is o.h5:/q "kg/m**3 / (m/s)" :: is o.h5:/p "cm**3" \
	    :: is o.h5:/r "np.sqrt(kg/m**3)" :: is o.h5:/r2 "np.sqrt((m/s)**4)" :: is o.h5:/r3 "(cm**3) ** (1 / 3)" :: is o.h5:/s "m/s" :: is o.h5:/h "np.hypot(m/s, m/s)" \
	    :: is o.h5:/cm_m none :: is o.h5:/k_m none :: is o.h5:/tp K :: is o.h5:/g none \
	    :: is o.h5:/e none :: is o.h5:/rc "1 / (m/s)" \
	    :: is o.h5:/x "np.sqrt(m/s * m/s) * (kg/m**3) / K**2" \
	    :: is o.h5:/cu "(m/s) ** (1 / 3)" :: is o.h5:/sc none
	# roots UDUNITS-2 cannot write are spelt as unyt prints them
	run /usr/bin/python3 -c 'import h5py; print(h5py.File("o.h5")["r"].attrs["units"].decode())'
	assert_output "$(/usr/bin/python3 -c 'import numpy as np, unyt; print(np.sqrt(unyt.unyt_quantity(1.0, "kg/m**3")).units)')"
	# the values are NumPy's: units never change one
	np check add u.h5:/len u.h5:/len2 -o o.h5:/cm_m :: check power u.h5:/len 3 -o o.h5:/p
}

@test "a literal keeps the units in propagate mode: t2m - 273.15 is K, as NCO has it" {
	h5u call subtract era.nc:/t2m 273.15 -o era.nc:/t2c
	run ncdump -h era.nc
	assert_line --partial 't2c:units = "K" ;'
	ref is era.nc:/t2c K
}

@test "reduce and accumulate: add keeps the units, multiply.reduce over n elements raises to n" {
	h5u reduce multiply u.h5:/t --axis 0 -o o.h5:/m
	h5u reduce multiply u.h5:/len --axis all -o o.h5:/all
	h5u reduce add u.h5:/rho --axis 1 -o o.h5:/a
	h5u accumulate add u.h5:/u --axis 1 -o o.h5:/c
	h5u reduce maximum u.h5:/t -o o.h5:/mx
	ref is o.h5:/m "np.multiply.reduce(unyt.unyt_array([1.0, 2.0], 'K'))" \
	    :: is o.h5:/all "np.multiply.reduce(unyt.unyt_array(np.ones(6), 'cm'))" \
	    :: is o.h5:/a "kg/m**3" :: is o.h5:/c "m/s" :: is o.h5:/mx K
}

@test "in place the units follow the result (u = u * u is m2 s-2), or go where unknown; units: off keeps them" {
	h5u call multiply u.h5:/u u.h5:/u -o u.h5:/u
	h5u call add u.h5:/len u.h5:/len2 -o u.h5:/len
	ref is u.h5:/u "(m/s)**2" :: is u.h5:/len none
	h5u call multiply u.h5:/t 2 -o u.h5:/t --units off
	h5u call multiply u.h5:/rho u.h5:/rho -o o.h5:/off --units off
	printf 'defaults:\n  units: false\nsteps:\n  - ufunc: multiply\n    in: [u.h5:/v, u.h5:/v]\n    out: u.h5:/v\n' > r.yaml
	h5u run r.yaml
	ref is u.h5:/t K :: is o.h5:/off none :: is u.h5:/v "m/s"
	run --separate-stderr h5u call add u.h5:/t 1 --units strictly
	assert_error 2 "call add: --units: 'strictly' is not propagate, strict or off"
	printf 'steps:\n  - ufunc: add\n    in: [u.h5:/t, 1]\n    units: sometimes\n' > r.yaml
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:4:12: 'units' must be propagate, strict, off or false, found 'sometimes'"
}

@test "units: strict converts as unyt does: the second operand to the first's units, degrees to radians" {
	h5u call add u.h5:/len u.h5:/len2 -o o.h5:/a --units strict
	h5u call subtract u.h5:/len2 u.h5:/len -o o.h5:/b --units strict
	h5u call maximum u.h5:/len u.h5:/len2 -o o.h5:/mx --units strict
	h5u call less_equal u.h5:/len2 u.h5:/len -o o.h5:/le --units strict
	h5u call add u.h5:/t u.h5:/tc -o o.h5:/k --units strict
	h5u call sin u.h5:/deg -o o.h5:/sin --units strict
	h5u call multiply u.h5:/len 2 -o o.h5:/twice --units strict
	printf 'defaults:\n  units: strict\ninputs:\n  a: u.h5:/len\n  b: u.h5:/len2\n  f: u.h5:/f32\nsteps:\n  - expr: hypot(a, b) * 2 + f\n    out: o.h5:/x\n  - ufunc: add\n    in: [f, b]\n    out: o.h5:/f\n' > r.yaml
	h5u run r.yaml
	ref values o.h5:/a "U('u.h5:/len') + U('u.h5:/len2')" \
	    :: values o.h5:/b "U('u.h5:/len2') - U('u.h5:/len')" \
	    :: values o.h5:/mx "np.maximum(U('u.h5:/len'), U('u.h5:/len2'))" \
	    :: values o.h5:/le "np.less_equal(U('u.h5:/len2'), U('u.h5:/len'))" \
	    :: values o.h5:/k "U('u.h5:/t') + U('u.h5:/tc')" \
	    :: values o.h5:/sin "np.sin(U('u.h5:/deg'))" \
	    :: values o.h5:/twice "U('u.h5:/len') * 2" \
	    :: values o.h5:/x "np.hypot(U('u.h5:/len'), U('u.h5:/len2')) * 2 + U('u.h5:/f32')" \
	    :: values o.h5:/f "U('u.h5:/f32') + U('u.h5:/len2')"
}

@test "units: strict refuses what unyt refuses, before anything is written" {
	snapshot
	run --separate-stderr h5u call hypot u.h5:/len u.h5:/t -o u.h5:/len --units strict
	assert_error 2 "call hypot: cannot hypot u.h5:/len (cm) and u.h5:/t (K): their units are not convertible (units: strict)"
	run --separate-stderr h5u eval -i t=u.h5:/t 'u.h5:/t = log(t / 2)' --units strict
	assert_error 2 "eval: cannot take log of the result of divide (K): it needs a dimensionless operand (units: strict)"
	run --separate-stderr h5u call greater u.h5:/len 1 -o u.h5:/g --units strict
	assert_error 2 "call greater: cannot greater u.h5:/len (cm) and 1 (dimensionless): their units are not convertible (units: strict)"
	assert_unchanged
}

@test "units: strict on 1-4 ranks: cm + km converted on uneven rows and a rank with none" {
	for n in 1 2 3 4; do
		mpi $n h5ufunc call add u.h5:/rows_cm u.h5:/rows_km -o o$n.h5:/s --units strict
		mpi $n h5ufunc eval -i a=u.h5:/rows_km -i b=u.h5:/rows_cm "o$n.h5:/e = a - b" --units strict
		ref values o$n.h5:/s "U('u.h5:/rows_cm') + U('u.h5:/rows_km')" \
		    :: values o$n.h5:/e "U('u.h5:/rows_km') - U('u.h5:/rows_cm')"
	done
}

@test "check shows each output's units, and what is left out" {
	printf 'inputs:\n  a: u.h5:/len\n  b: u.h5:/len2\nsteps:\n  - expr: a * b\n    out: o.h5:/ab\n  - expr: a + b\n    out: o.h5:/s\n' > r.yaml
	snapshot
	run --separate-stderr h5u check r.yaml
	assert_success
	assert_line "  in  u.h5:/len float64 (2, 3) units cm"
	assert_line --regexp '^  out o.h5:/ab float64 \(2, 3\) units (0.01 m2|m2.0.01|cm.m|m.cm), new file$'
	assert_line "  out o.h5:/s float64 (2, 3) units unknown (left out), new file"
	assert_unchanged
}

@test "1-4 ranks: units written after the collective writes, new and in place" {
	printf 'inputs:\n  t: era.nc:/t2m\n  o: era.nc:/orog\nsteps:\n  - expr: t * o\n    out: out.nc:/to\n  - reduce: multiply\n    in: o\n    axis: lat\n    out: out.nc:/p\n  - ufunc: subtract\n    in: [t, 273.15]\n    out: t\n' > r.yaml
	cp era.nc era0.nc
	for n in 1 2 3 4; do
		cp era0.nc era.nc
		mpi $n h5ufunc run r.yaml
		ref is out.nc:/to "K * m" :: is out.nc:/p "m**3" :: is era.nc:/t2m K
		run ncdump -h out.nc
		assert_line --partial 'float to(time, lat, lon) ;'
		rm out.nc
	done
}

# Reference times ("days since 2000-01-01") are points in time, as xarray
# decodes them (datetime64): a difference of two is a duration (timedelta64).
dates_nc() {
	/usr/bin/python3 - <<-'EOF'
		import netCDF4, numpy as np
		with netCDF4.Dataset("d.nc", "w") as d:
		    d.createDimension("time", 5)
		    for name, units in (("t", "days since 2000-01-01"), ("t0", "days since 2000-01-01"),
		                        ("th", "hours since 1990-01-01"), ("dur", "days"), ("hrs", "hours")):
		        v = d.createVariable(name, "f8", ("time",))
		        v.units = units
		        if name.startswith("t"):
		            v.long_name, v.standard_name, v.calendar = "time", "time", "standard"
		        v[:] = np.arange(5) * 1.5 + (30 if name == "t" else 2)
		    v = d.createVariable("tn", "f8", ("time",))   # around 1 March in a 365-day year
		    v.units, v.long_name, v.calendar = "days since 2000-01-01", "time", "noleap"
		    v[:] = np.arange(57, 62)
		    v = d.createVariable("tp", "f8", ("time",))   # no calendar: CF's standard
		    v.units = "days since 2000-01-01"
		    v[:] = np.arange(5) * 2.5 - 4
	EOF
}

@test "dates: a difference is a duration without a time's names, a date plus a number or a duration stays a date, a sum of dates has no units (netCDF4, xarray)" {
	dates_nc
	calls <<-'EOF'
		subtract d.nc:/t d.nc:/t0 -o o.nc:/diff
		subtract d.nc:/t d.nc:/t0 -o o.nc:/diff_off --units off
		subtract d.nc:/t d.nc:/t0 -o o.nc:/diff_strict --units strict
		add d.nc:/t 1 -o o.nc:/plus1
		add d.nc:/dur d.nc:/t -o o.nc:/plus_dur
		subtract d.nc:/t d.nc:/dur -o o.nc:/minus_dur
		add d.nc:/t d.nc:/t -o o.nc:/sum
		subtract d.nc:/dur d.nc:/t -o o.nc:/dur_minus
		subtract d.nc:/t d.nc:/th -o o.nc:/other_ref
		add d.nc:/t d.nc:/hrs -o o.nc:/other_unit
		maximum d.nc:/t d.nc:/t0 -o o.nc:/latest
	EOF
	h5u eval -i t=d.nc:/t -i t0=d.nc:/t0 'o.nc:/expr = (t - t0) * 2'
	/usr/bin/python3 - <<-'EOF'
		import netCDF4, numpy as np, xarray as xr
		with netCDF4.Dataset("d.nc") as d, netCDF4.Dataset("o.nc") as o:
		    v = {k: d[k][:] for k in ("t", "t0", "dur", "th", "hrs")}
		    want = {"diff": v["t"] - v["t0"], "diff_off": v["t"] - v["t0"], "diff_strict": v["t"] - v["t0"],
		            "expr": (v["t"] - v["t0"]) * 2, "plus1": v["t"] + 1, "plus_dur": v["dur"] + v["t"],
		            "minus_dur": v["t"] - v["dur"], "sum": v["t"] + v["t"], "dur_minus": v["dur"] - v["t"],
		            "other_ref": v["t"] - v["th"], "other_unit": v["t"] + v["hrs"],
		            "latest": np.maximum(v["t"], v["t0"])}
		    for name, w in want.items():
		        assert np.array_equal(o[name][:], w), (name, o[name][:], w)
		    def attrs(name):
		        return {k: o[name].getncattr(k) for k in o[name].ncattrs()}
		    date = {"units": "days since 2000-01-01", "long_name": "time", "standard_name": "time",
		            "calendar": "standard"}
		    for name in ("diff", "diff_strict", "expr"):
		        assert attrs(name) == {"units": "days"}, (name, attrs(name))
		    assert attrs("diff_off") == {}, attrs("diff_off")
		    assert attrs("plus1") == date, attrs("plus1")
		    assert attrs("latest") == date, attrs("latest")
		    for name in ("plus_dur", "minus_dur"):
		        assert attrs(name) == {"units": "days since 2000-01-01", "calendar": "standard"}, \
		            (name, attrs(name))
		    for name in ("sum", "dur_minus", "other_ref", "other_unit"):
		        assert attrs(name) == {}, (name, attrs(name))
		x = xr.open_dataset("o.nc")
		kinds = {"diff": "m", "diff_strict": "m", "expr": "m", "plus1": "M", "plus_dur": "M",
		         "minus_dur": "M", "latest": "M", "sum": "f", "dur_minus": "f", "other_ref": "f"}
		for name, kind in kinds.items():
		    assert x[name].dtype.kind == kind, (name, x[name].dtype)
		d = xr.open_dataset("d.nc")   # xarray's own t - t0 is what it reads
		assert (x["diff"].values == d["t"].values - d["t0"].values).all(), x["diff"].values
	EOF
}

@test "a date keeps its calendar: noleap dates plus a day, their latest and running maximum decode as xarray decodes the input's; sums and differences carry none" {
	dates_nc
	local run
	for run in h5u "mpi 3 h5ufunc"; do
		rm -f o.nc
		$run call add d.nc:/tn 1 -o o.nc:/next
		$run reduce maximum d.nc:/tn -o o.nc:/last
		$run accumulate maximum d.nc:/tn -o o.nc:/running
		$run reduce add d.nc:/tn -o o.nc:/total
		$run call subtract d.nc:/tn d.nc:/t -o o.nc:/mixed
		$run call add d.nc:/tn 1 -o o.nc:/next_off --units off
		/usr/bin/python3 - <<-'EOF'
			import datetime, netCDF4, numpy as np, xarray as xr
			d, o = xr.open_dataset("d.nc"), xr.open_dataset("o.nc")
			tn = d["tn"].values                      # cftime's 365-day dates
			day = datetime.timedelta(days=1)
			assert list(o["next"].values) == [x + day for x in tn], o["next"].values
			assert o["last"].values.item() == max(tn), o["last"].values
			assert list(o["running"].values) == list(tn), o["running"].values
			with netCDF4.Dataset("o.nc") as f:
			    cal = {k: getattr(f[k], "calendar", None) for k in
			           ("next", "last", "running", "total", "mixed", "next_off")}
			assert cal == {"next": "noleap", "last": "noleap", "running": "noleap", "total": None,
			               "mixed": None, "next_off": None}, cal
		EOF
	done
}

@test "dates are operands of what NumPy's datetime64 is (add, subtract, compare, pick): a negated, absolute, scaled, ... date has no units, no calendar, no time's names; xarray decodes numbers (0 and 3 ranks)" {
	dates_nc
	local run
	for run in h5u "mpi 3 h5ufunc"; do
		rm -f o.nc
		for t in t tn tp; do
			$run call negative d.nc:/$t -o o.nc:/neg_$t
			$run call absolute d.nc:/$t -o o.nc:/abs_$t
			$run call fmod d.nc:/$t 7 -o o.nc:/fmod_$t
			$run call remainder d.nc:/$t 7 -o o.nc:/rem_$t
			$run call hypot d.nc:/$t d.nc:/$t -o o.nc:/hypot_$t
			$run call multiply d.nc:/$t 2 -o o.nc:/mul_$t
			$run call floor d.nc:/$t -o o.nc:/floor_$t
			$run call positive d.nc:/$t -o o.nc:/pos_$t
			$run call sqrt d.nc:/$t -o o.nc:/sqrt_$t
			$run eval -i t=d.nc:/$t "o.nc:/expr_$t = -t + 5"
			$run call minimum d.nc:/$t 40 -o o.nc:/min_$t
		done
		/usr/bin/python3 - <<-'EOF'
			import netCDF4, numpy as np, xarray as xr
			with netCDF4.Dataset("d.nc") as d, netCDF4.Dataset("o.nc") as o:
			    for t in ("t", "tn", "tp"):
			        v = d[t][:].data
			        with np.errstate(invalid="ignore"):
			            want = {"neg": -v, "abs": np.absolute(v), "fmod": np.fmod(v, 7),
			                    "rem": np.remainder(v, 7), "hypot": np.hypot(v, v), "mul": v * 2,
			                    "floor": np.floor(v), "pos": np.positive(v), "sqrt": np.sqrt(v),
			                    "expr": -v + 5}
			        for name, w in want.items():
			            got = o[f"{name}_{t}"]
			            assert np.array_equal(got[:].data, w, equal_nan=True), (name, t, got[:], w)
			            assert got.ncattrs() == [], (name, t, got.ncattrs())
			        date = {k: d[t].getncattr(k) for k in d[t].ncattrs()}
			        got = o[f"min_{t}"]
			        assert {k: got.getncattr(k) for k in got.ncattrs()} == date, (t, got.ncattrs())
			        assert np.array_equal(got[:].data, np.minimum(v, 40))
			x, d = xr.open_dataset("o.nc"), xr.open_dataset("d.nc")
			for name, var in x.data_vars.items():
			    want = "O" if name == "min_tn" else "M" if name.startswith("min_") else "f"
			    assert var.dtype.kind == want, (name, var.dtype)   # cftime's noleap dates: objects
			assert list(x["min_tn"].values) == [min(a, b) for a, b in
			        zip(d["tn"].values, xr.decode_cf(xr.Dataset({"m": ("time", [40.0] * 5,
			            {"units": "days since 2000-01-01", "calendar": "noleap"})}))["m"].values)]
		EOF
	done
}

@test "dates under units: strict: a negated or scaled date, and one compared with another reference, refused before anything is written" {
	dates_nc
	snapshot
	local msg="a date is only added to, subtracted, compared or picked (maximum, minimum), as NumPy's datetime64 is (units: strict)"
	run --separate-stderr h5u call negative d.nc:/tp -o o.nc:/n --units strict
	assert_error 2 "call negative: cannot take negative of d.nc:/tp (days since 2000-01-01): $msg"
	run --separate-stderr h5u call fmod d.nc:/t 7 -o d.nc:/t --units strict
	assert_error 2 "call fmod: cannot take fmod of d.nc:/t (days since 2000-01-01): $msg"
	run --separate-stderr h5u call multiply 2 d.nc:/tn -o o.nc:/n --units strict
	assert_error 2 "call multiply: cannot take multiply of d.nc:/tn (days since 2000-01-01): $msg"
	run --separate-stderr h5u eval --units strict -i t=d.nc:/t 'o.nc:/n = absolute(t - 1)'
	assert_error 2 "eval: cannot take absolute of the result of subtract (days since 2000-01-01): $msg"
	run --separate-stderr h5u call less d.nc:/t d.nc:/th -o o.nc:/n --units strict
	assert_error 2 "call less: cannot take less of d.nc:/t (days since 2000-01-01) and d.nc:/th (hours since 1990-01-01): a date is compared with or picked among numbers and dates in the same units (units: strict)"
	run --separate-stderr h5u call maximum d.nc:/t d.nc:/dur -o o.nc:/n --units strict
	assert_error 2 "call maximum: cannot take maximum of d.nc:/t (days since 2000-01-01) and d.nc:/dur (days): a date is compared with or picked among numbers and dates in the same units (units: strict)"
	assert_unchanged
	h5u call less d.nc:/t d.nc:/t0 -o o.nc:/earlier --units strict
	h5u call maximum d.nc:/t 31 -o o.nc:/latest --units strict
	/usr/bin/python3 - <<-'EOF'
		import h5py, numpy as np
		with h5py.File("d.nc") as d, h5py.File("o.nc") as o:   # a bool: h5py's enum
		    assert np.array_equal(o["earlier"][()], d["t"][()] < d["t0"][()])
		    assert np.array_equal(o["latest"][()], np.maximum(d["t"][()], 31))
		    assert o["latest"].attrs["units"] == b"days since 2000-01-01", dict(o["latest"].attrs)
		    assert "units" not in o["earlier"].attrs, dict(o["earlier"].attrs)
	EOF
}

@test "dates under units: strict: a sum of dates, or dates of other references, refused before anything is written" {
	dates_nc
	snapshot
	run --separate-stderr h5u call add d.nc:/t d.nc:/t -o o.nc:/s --units strict
	assert_error 2 "call add: cannot add d.nc:/t (days since 2000-01-01) and d.nc:/t (days since 2000-01-01): a date takes a number or a duration in its own unit, and is subtracted from a date in the same units (units: strict)"
	run --separate-stderr h5u call subtract d.nc:/t d.nc:/th -o d.nc:/t --units strict
	assert_error 2 "call subtract: cannot subtract d.nc:/t (days since 2000-01-01) and d.nc:/th (hours since 1990-01-01): a date takes a number or a duration in its own unit, and is subtracted from a date in the same units (units: strict)"
	assert_unchanged
}

@test "a product of a unit with itself is written in the input's own unit: days2, cm3, km2; UDUNITS-2's base units where it has no factor" {
	dates_nc
	h5u reduce multiply d.nc:/dur -o o.nc:/dd
	h5u reduce multiply d.nc:/t -o o.nc:/tt
	calls <<-'EOF'
		multiply d.nc:/dur d.nc:/dur -o o.nc:/sq
		power u.h5:/len 3 -o o.h5:/p
		multiply u.h5:/len u.h5:/len2 -o o.h5:/cm_m
		multiply u.h5:/rows_km u.h5:/rows_km -o o.h5:/km2
		multiply u.h5:/u u.h5:/u -o o.h5:/uu
	EOF
	ref is o.h5:/p "cm**3" :: is o.h5:/cm_m "cm*m" :: is o.h5:/uu "m/s * m/s"
	/usr/bin/python3 - <<-'EOF'
		import h5py, netCDF4, xarray as xr
		with netCDF4.Dataset("d.nc") as d, netCDF4.Dataset("o.nc") as o:
		    n = len(d["dur"])
		    got = {k: o[k].units for k in ("dd", "tt", "sq")}
		    assert got == {"dd": f"days{n}", "tt": f"days{n}", "sq": "days2"}, got
		with h5py.File("o.h5") as f:
		    got = {k: f[k].attrs["units"].decode() for k in ("p", "cm_m", "km2", "uu")}
		    assert got == {"p": "cm3", "cm_m": "cm.m", "km2": "km2", "uu": "m2.s-2"}, got
		x = xr.open_dataset("o.nc")
		assert all(x[k].dtype.kind == "f" for k in ("dd", "tt", "sq")), x   # no durations
	EOF
}
