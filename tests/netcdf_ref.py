#!/usr/bin/python3
"""netcdf_ref.py - the netCDF4-python / xarray / h5py reference side of tests/37-netcdf.bats.

netCDF4-python (netCDF-C underneath) decides what a netCDF reader sees and
whether it can append; xarray decodes the CF coordinates (calendars,
bounds); NumPy computes the values.  It never takes h5ufunc's output as
the truth about itself.

Usage: netcdf_ref.py JOB ARGS... [:: JOB ARGS...]...  (tests/h5ref.py runs
the jobs: exit 0 when every job passed, 1 when a check failed, 2 on a
malformed job)
  fixtures DIR [CDL]
      in.nc from NCO's regression file CDL (ncgen -k nc4); cmip.nc (a CMIP
      style tas(time, lat, lon) with _FillValue, cell_methods, standard and
      long names, time_bnds and lat_bnds, a noleap calendar, and the winds
      u and v); grp.nc (groups: time in the root, lat with lat_bnds and
      the dimension nv in /g5, var(time, lat) in /g5 and v2(time, lat) in
      /g5/sub); strings.nc (units as a netCDF string and as chars);
      filters.h5 (h5py: one dataset per filter of Debian's plugins);
      classic.nc, offset64.nc, cdf5.nc (the netCDF-3 formats); wide.nc
      (time unlimited, two records: wide(time, y, x) float64 of 2.4 MB a
      record, mid(time, lat, lon) float32 of 80 kB a record).
  appendable FILE...
      netCDF4-python opens each FILE in mode 'a' and adds a global
      attribute, a dimension and a variable over one of the file's own
      dimensions when it has one, and a copy of the first variable that is
      not a coordinate, over its dimensions; opened again, every variable
      reads and the additions are there; then that first variable is
      renamed in mode 'a' and back, and opened again after each every
      variable has the dimensions it had (netCDF-C numbers a file's
      dimensions the same way on every open).
  like OUT IN [INDEX]
      variable OUT (FILE:/PATH) is variable IN indexed by INDEX (NumPy's
      basic indexing, "1:3,:,0"; default all) + 0, as netCDF4-python sees
      both: the same dimension names, and for each the coordinate variable
      netCDF-C finds (its group, then the parents) with IN's coordinate's
      values sliced alike and its attributes; where IN's coordinate names
      bounds, OUT's names bounds that hold IN's sliced alike, and where
      those are not there, OUT's names none.
  attrs FILE:/PATH NAME=TEXT|NAME=-...
      the variable's attribute NAME is TEXT, or (-) absent.
  strtype FILE:/PATH NAME vlen|fixed TEXT
      h5py reads attribute NAME as TEXT, stored as a variable-length
      ('m/s', a str) or fixed-length (b'm/s') string.
  xtime OUT IN INDEX
      xarray decodes OUT's time coordinate (its calendar) to IN's time
      indexed by INDEX, and OUT's time bounds to IN's sliced alike.
  filtered FILE:/PATH ID SOURCE:/PATH EXPR
      the dataset is stored with HDF5 filter ID (-: any, none included)
      and holds EXPR of x, the dataset SOURCE (h5py, NumPy).
  masked_mean FILE:/PATH SOURCE:/PATH AXIS
      the dataset holds the mean of the valid values of SOURCE
      (netCDF4-python's masked read) over AXIS, as NumPy computes
      numpy.ma's sum (in SOURCE's dtype) over the count, masked where no
      value is valid.
  bools FILE:/PATH SOURCE:/PATH EXPR [SOURCE2:/PATH]
      the dataset holds EXPR of x (SOURCE, netCDF4-python's masked read,
      masked elements False; y: SOURCE2 likewise): h5py reads it as
      numpy's bool; netCDF-C lists it (ncdump -h: "boolean NAME(" and the
      file's "byte enum boolean {FALSE = 0, TRUE = 1}", boolean_N where
      the name was taken); netCDF4-python sees
      an enum of int8 {FALSE: 0, TRUE: 1} and reads 0 and 1, never
      missing; xarray reads the same; the file holds one named bool type.
  record_chunks FILE:/PATH...
      h5py sees each dataset grow along its first axis and chunked as
      h5ufunc-recipe(5) says chunks: auto chunks a dataset that grows: the
      other axes whole, the longest halved (rounding up, the first of
      equals) while a chunk holds over 1 MiB, then as many records as fit
      in 1 MiB, 1 to 1024.
  records OUT SOURCE:/PATH EXPR [COPIES]
      netCDF4-python sees OUT's first dimension as unlimited, its values
      as EXPR of x (SOURCE, NumPy) repeated COPIES (default 1) times along
      it and its coordinate as SOURCE's alike; then appends a record (to
      the variable and its coordinate) in mode 'a' and reads it back.
"""
import re
import subprocess

import numpy as np

import h5ref

FILTERS = {"lzf": ("lzf", None), "bzip2": (307, ()), "lz4": (32004, ()),
           "blosc": (32001, (0, 0, 0, 0, 5, 1, 0)), "zfp": (32013, ())}


def fixtures(d, cdl=None):
    import h5py
    import netCDF4
    if cdl:
        subprocess.run(["ncgen", "-k", "nc4", "-o", f"{d}/in.nc", cdl], check=True)
    rng = np.random.default_rng(23)
    with netCDF4.Dataset(f"{d}/cmip.nc", "w") as f:
        f.createDimension("time", None)
        f.createDimension("lat", 3)
        f.createDimension("lon", 4)
        f.createDimension("bnds", 2)
        t = f.createVariable("time", "f8", ("time",))
        t.units, t.calendar, t.bounds, t.standard_name = \
            "days since 1850-01-01", "noleap", "time_bnds", "time"
        edges = np.array([0, 31, 59, 90, 120, 151], dtype=float)
        t[:] = (edges[:-1] + edges[1:]) / 2
        f.createVariable("time_bnds", "f8", ("time", "bnds"))[:] = \
            np.stack([edges[:-1], edges[1:]], axis=1)
        lat = f.createVariable("lat", "f8", ("lat",))
        lat.units, lat.bounds, lat.standard_name = "degrees_north", "lat_bnds", "latitude"
        lat[:] = [-60, 0, 60]
        f.createVariable("lat_bnds", "f8", ("lat", "bnds"))[:] = [[-90, -30], [-30, 30], [30, 90]]
        lon = f.createVariable("lon", "f8", ("lon",))
        lon.units = "degrees_east"
        lon[:] = [0, 90, 180, 270]
        tas = f.createVariable("tas", "f4", ("time", "lat", "lon"), fill_value=np.float32(1e20))
        tas.standard_name, tas.long_name, tas.units, tas.cell_methods = \
            "air_temperature", "Near-Surface Air Temperature", "K", "area: mean"
        data = np.ma.masked_array(250 + 60 * rng.random((5, 3, 4)), mask=rng.random((5, 3, 4)) < 0.2)
        data.mask[:, 1, 2] = True      # no valid value along time
        tas[:] = data
        for name, std in (("u", "eastward_wind"), ("v", "northward_wind")):
            w = f.createVariable(name, "f4", ("time", "lat", "lon"))
            w.standard_name, w.long_name, w.units = std, std.replace("_", " "), "m s-1"
            w[:] = rng.normal(0, 8, (5, 3, 4))
    with netCDF4.Dataset(f"{d}/wide.nc", "w") as f:
        f.createDimension("time", None)
        for dim, n in (("y", 600), ("x", 500), ("lat", 200), ("lon", 100)):
            f.createDimension(dim, n)
            f.createVariable(dim, "f8", (dim,))[:] = np.arange(n, dtype="f8")
        f.createVariable("time", "f8", ("time",))[:] = [0.5, 1.5]
        wide = np.random.default_rng(29)   # the others' values stay as they were
        f.createVariable("wide", "f8", ("time", "y", "x"))[:] = wide.normal(0, 1, (2, 600, 500))
        f.createVariable("mid", "f4", ("time", "lat", "lon"))[:] = wide.normal(0, 1, (2, 200, 100))
    with netCDF4.Dataset(f"{d}/grp.nc", "w") as f:
        f.createDimension("time", 3)
        t = f.createVariable("time", "f8", ("time",))
        t.units = "days since 2000-01-01"
        t[:] = [0, 1, 2]
        g = f.createGroup("g5")
        g.createDimension("lat", 2)
        g.createDimension("nv", 2)
        lat = g.createVariable("lat", "f4", ("lat",))
        lat.units, lat.bounds = "degrees_north", "lat_bnds"
        lat[:] = [10, 20]
        g.createVariable("lat_bnds", "f4", ("lat", "nv"))[:] = [[5, 15], [15, 25]]
        v = g.createVariable("var", "f4", ("time", "lat"))
        v.units, v.long_name = "K", "a variable"
        v[:] = np.arange(6).reshape(3, 2)
        g.createGroup("sub").createVariable("v2", "f4", ("time", "lat"))[:] = \
            np.arange(6).reshape(3, 2) * 10
    with netCDF4.Dataset(f"{d}/strings.nc", "w") as f:
        f.createDimension("x", 4)
        s = f.createVariable("s", "f8", ("x",))
        s[:] = [1, 2, 3, 4]
        s.setncattr_string("units", "m/s")
        s.setncattr_string("long_name", "speed")
        c = f.createVariable("c", "f8", ("x",))
        c[:] = [1, 2, 3, 4]
        c.units = "m/s"
    x = np.arange(24 * 50, dtype=np.float64).reshape(24, 50) / 7
    with h5py.File(f"{d}/filters.h5", "w") as f:
        f["plain"] = x
        for name, (fid, opts) in FILTERS.items():
            f.create_dataset(name, data=x, chunks=(6, 25), compression=fid, compression_opts=opts)
    for name, fmt in (("classic", "NETCDF3_CLASSIC"), ("offset64", "NETCDF3_64BIT_OFFSET"),
                      ("cdf5", "NETCDF3_64BIT_DATA")):
        with netCDF4.Dataset(f"{d}/{name}.nc", "w", format=fmt) as f:
            f.createDimension("x", 3)
            f.createVariable("v", "f8", ("x",))[:] = [1, 2, 3]


def split_ref(ref):
    """FILE:/GROUP/NAME -> (file, group path, variable name)."""
    fname, path, _ = h5ref.split_ref(ref)
    group, _, name = path.rpartition("/")
    return fname, group, name


def variable(ds, group, name):
    g = ds
    for part in filter(None, group.split("/")):
        g = g.groups[part]
    return g.variables[name]


def lookup(group, name):
    """The variable NAME as netCDF-C finds it from GROUP: there, then the parents."""
    while group is not None:
        if name in group.variables:
            return group.variables[name]
        group = group.parent
    return None


def parse_index(text, ndim):
    """NumPy's basic index "1:3,:,0" for NDIM axes, the axes it leaves out whole."""
    out = h5ref.parse_selection(text) if text else ()
    return out + (slice(None),) * (ndim - len(out))


def appendable(files):
    import netCDF4
    for fname in files:
        with netCDF4.Dataset(fname, "a") as f:
            f.setncattr("appended_by", "netCDF4-python")
            f.createDimension("appended", 2)
            dims = [d for d in f.dimensions if d != "appended"]
            shape = ("appended",) + ((dims[0],) if dims else ())
            v = f.createVariable("appended_var", "f8", shape)
            v[:] = np.ones(tuple(len(f.dimensions[d]) for d in shape))
            first = next((v for v in all_variables(f) if v.dimensions and v.name not in v.group().dimensions),
                         None)
            if first is not None:
                c = first.group().createVariable("appended_copy", first.dtype, first.dimensions)
                c[...] = first[...]
                first = (first.group().path, first.name)
        with netCDF4.Dataset(fname, "r") as f:
            assert f.getncattr("appended_by") == "netCDF4-python", fname
            assert float(np.sum(f["appended_var"][:])) == f["appended_var"].size, fname
            dims = {(v.group().path, v.name): v.dimensions for v in all_variables(f)}   # reads each
        if first is None:
            continue
        for old, new in ((first[1], first[1] + "_renamed"), (first[1] + "_renamed", first[1])):
            with netCDF4.Dataset(fname, "a") as f:
                (f if first[0] == "/" else f[first[0]]).renameVariable(old, new)
            with netCDF4.Dataset(fname, "r") as f:
                got = {(v.group().path, v.name.removesuffix("_renamed")): v.dimensions for v in all_variables(f)}
                assert got == dims, f"{fname}: dimensions after renaming {old} {got}, not {dims}"


def all_variables(g):
    """Every variable of G and its groups, each read whole."""
    for v in g.variables.values():
        v[...]
        yield v
    for sub in g.groups.values():
        yield from all_variables(sub)


def like(out, ref, index=""):
    import netCDF4
    of, ogroup, oname = split_ref(out)
    rf, rgroup, rname = split_ref(ref)
    with netCDF4.Dataset(of) as fo, netCDF4.Dataset(rf) as fr:
        vo, vr = variable(fo, ogroup, oname), variable(fr, rgroup, rname)
        idx = parse_index(index, vr.ndim)
        kept = [d for d, i in zip(vr.dimensions, idx) if isinstance(i, slice)]
        assert list(vo.dimensions) == kept, f"{out}: dimensions {vo.dimensions}, want {kept}"
        want = np.ma.filled(vr[idx], np.nan).astype(np.float64)
        got = np.ma.filled(vo[...], np.nan).astype(np.float64) - 1
        assert np.allclose(got, want, rtol=1e-6, equal_nan=True), f"{out}: values {got} not {want}"
        for dim, i in zip(vr.dimensions, idx):
            if not isinstance(i, slice):
                continue
            cr = lookup(vr.group(), dim)
            co = lookup(vo.group(), dim)
            if cr is None:
                assert co is None or co.dimensions == (dim,), f"{out}: {dim}"
                continue
            assert co is not None, f"{out}: no coordinate variable for {dim}"
            assert np.array_equal(co[:], cr[i]), f"{out}: {dim} = {co[:]}, want {cr[i]}"
            same_attrs(f"{out} {dim}", co, cr)
            br = lookup(cr.group(), cr.bounds) if "bounds" in cr.ncattrs() else None
            if br is None:
                assert "bounds" not in co.ncattrs(), f"{out}: {dim} names bounds that are not there"
            else:
                assert "bounds" in co.ncattrs(), f"{out}: {dim} lost its bounds"
                bo = lookup(co.group(), co.bounds)
                assert bo is not None, f"{out}: {dim}'s bounds {co.bounds} are missing"
                assert bo.dimensions[0] == dim, f"{out}: {co.bounds} {bo.dimensions}"
                assert np.array_equal(bo[:], br[i]), f"{out}: {co.bounds} {bo[:]} not {br[i]}"


def same_attrs(label, got, want):
    names = [a for a in want.ncattrs() if a not in ("bounds", "climatology")]
    for a in names:
        assert a in got.ncattrs(), f"{label}: attribute {a} is missing"
        assert np.array_equal(np.asarray(got.getncattr(a)), np.asarray(want.getncattr(a))), \
            f"{label}: {a} = {got.getncattr(a)!r}, want {want.getncattr(a)!r}"


def attrs(ref, items):
    import netCDF4
    fname, group, name = split_ref(ref)
    with netCDF4.Dataset(fname) as f:
        v = variable(f, group, name)
        for item in items:
            key, _, text = item.partition("=")
            if text == "-":
                assert key not in v.ncattrs(), f"{ref}: {key} = {v.getncattr(key)!r}, want none"
            else:
                assert key in v.ncattrs(), f"{ref}: no {key} (has {v.ncattrs()})"
                assert v.getncattr(key) == text, f"{ref}: {key} = {v.getncattr(key)!r}, want {text!r}"


def strtype(ref, name, kind, text):
    import h5py
    fname, group, var = split_ref(ref)
    with h5py.File(fname, "r") as f:
        a = f[f"{group}/{var}"].attrs
        value = a[name]
        vlen = a.get_id(name).get_type().is_variable_str()
    value = value[0] if isinstance(value, np.ndarray) else value
    want = text if kind == "vlen" else text.encode()
    assert vlen == (kind == "vlen"), f"{ref}: {name} is {'not ' if kind == 'vlen' else ''}variable-length"
    assert value == want, f"{ref}: h5py reads {name} as {value!r}, want {want!r}"


def xtime(out, ref, index):
    import xarray as xr
    with xr.open_dataset(out) as o, xr.open_dataset(ref) as r:
        want = r["time"][parse_index(index, 1)]
        assert o["time"].values.tolist() == want.values.tolist(), \
            f"{out}: time {o['time'].values} want {want.values}"
        assert o["time"].encoding.get("calendar") == r["time"].encoding.get("calendar"), out
        bo, br = o[o["time"].attrs["bounds"]], r[r["time"].attrs["bounds"]]
        assert bo.values.tolist() == br[parse_index(index, 1)].values.tolist(), f"{out}: time bounds"


def filtered(ref, fid, source, expr):
    import h5py
    fname, group, name = split_ref(ref)
    sf, sgroup, sname = split_ref(source)
    with h5py.File(fname, "r") as f, h5py.File(sf, "r") as s:
        d = f[f"{group}/{name}"]
        ids = [str(k) for k in d._filters]
        key = {"32000": "lzf", "1": "gzip"}.get(fid, fid)
        assert fid == "-" or key in ids, f"{ref}: filters {ids}, want {key}"
        x = s[f"{sgroup}/{sname}"][...]
        want = eval(expr, {"np": np, "x": x})
        assert np.array_equal(d[...], want), f"{ref}: values differ from {expr}"


def masked_mean(ref, source, axis):
    import h5py
    import netCDF4
    fname, group, name = split_ref(ref)
    sf, sgroup, sname = split_ref(source)
    with netCDF4.Dataset(sf) as s:
        x = variable(s, sgroup, sname)[:]
    count = np.sum(~np.ma.getmaskarray(x), axis=int(axis))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.ma.filled(x, 0).sum(axis=int(axis)) / count
    want = np.ma.masked_array(mean, mask=count == 0)
    with netCDF4.Dataset(fname) as f:
        got = variable(f, group, name)[:]
    assert np.array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want)), f"{ref}: mask"
    assert np.array_equal(got.compressed(), want.compressed()), \
        f"{ref}: {got.compressed()} not {want.compressed()}"


def records(out, source, expr, copies="1"):
    import netCDF4
    of, group, name = split_ref(out)
    sf, sgroup, sname = split_ref(source)
    with netCDF4.Dataset(of) as f, netCDF4.Dataset(sf) as s:
        v, x = variable(f, group, name), variable(s, sgroup, sname)
        dim = v.dimensions[0]
        assert f.dimensions[dim].isunlimited(), f"{out}: {dim} is not unlimited"
        want = np.concatenate([eval(expr, {"np": np, "x": x[...]})] * int(copies))
        assert np.allclose(v[...], want, rtol=1e-6), f"{out}: values {v[...]} not {want}"
        times = np.concatenate([lookup(s, dim)[:]] * int(copies))
        assert np.array_equal(lookup(f, dim)[:], times), f"{out}: {dim} {lookup(f, dim)[:]}"
        n = len(f.dimensions[dim])
    with netCDF4.Dataset(of, "a") as f:
        v = variable(f, group, name)
        v[n] = np.full(v.shape[1:], 7, dtype=v.dtype)
        lookup(f, dim)[n] = times[-1] + 1
    with netCDF4.Dataset(of) as f:
        v = variable(f, group, name)
        assert len(f.dimensions[dim]) == n + 1, f"{out}: {dim} did not grow"
        assert np.all(v[n] == 7) and np.allclose(v[:n], want), f"{out}: after appending"
        assert lookup(f, dim)[n] == times[-1] + 1, f"{out}: {dim} after appending"


def bools(ref, source, expr, source2=None):
    import h5py
    import netCDF4
    import xarray
    fname, group, name = split_ref(ref)
    arrays = {}
    for key, src in (("x", source), ("y", source2)):
        if src:
            sf, path, _ = h5ref.split_ref(src)
            sgroup, _, sname = path.rpartition("/")
            with netCDF4.Dataset(sf) as s:   # a dataset netCDF-C does not list: h5py's view
                v = variable(s, sgroup, sname) if sname in (s[sgroup] if sgroup else s).variables else None
                arrays[key] = v[...] if v is not None else h5py.File(sf, "r")[path][...]
    want = np.ma.filled(eval(expr, {"np": np, **arrays}), False).astype(bool)
    named = []
    with h5py.File(fname, "r") as f:
        got = f[f"{group}/{name}"]
        assert got.dtype == np.dtype(bool), f"{ref}: h5py reads {got.dtype}"
        assert np.array_equal(got[...], want), f"{ref}: h5py reads {got[...]}, want {want}"
        f.visititems(lambda n, o: named.append(n) if isinstance(o, h5py.Datatype) else None)
    assert len(named) == 1, f"{fname}: named types {named}"
    dump = subprocess.run(["ncdump", "-h", fname], capture_output=True, text=True, check=True).stdout
    m = re.search(r"byte enum (boolean(?:_\d+)?) \{FALSE = 0, TRUE = 1\} ;", dump)
    assert m, f"{fname}: ncdump -h\n{dump}"
    assert f"{m[1]} {name}(" in dump, f"{ref}: not listed by ncdump -h\n{dump}"
    with netCDF4.Dataset(fname) as f:
        v = variable(f, group, name)
        assert isinstance(v.datatype, netCDF4.EnumType), f"{ref}: netCDF4-python sees {v.datatype}"
        assert v.datatype.enum_dict == {"FALSE": 0, "TRUE": 1} and v.datatype.dtype == np.int8, v.datatype
        values = v[...]
        assert not np.ma.is_masked(values), f"{ref}: netCDF4-python masks {values}"
        assert np.array_equal(np.ma.getdata(values), want.astype(np.int8)), f"{ref}: netCDF4-python reads {values}"
    with xarray.open_dataset(fname, group=group or None) as x:
        values = x[name].values
        assert np.array_equal(values, want.astype(np.int8)), f"{ref}: xarray reads {values}"


def record_chunks(refs):
    import h5py
    for ref in refs:
        fname, path, _ = h5ref.split_ref(ref)
        with h5py.File(fname, "r") as f:
            d = f[path]
            shape, size, got = d.shape, d.dtype.itemsize, d.chunks
            assert d.maxshape[0] is None and None not in d.maxshape[1:], f"{ref}: maxshape {d.maxshape}"
        want = [1] + [n if n > 0 else 1 for n in shape[1:]]
        while size * int(np.prod(want)) > 1 << 20:
            big = max(range(1, len(want)), key=lambda i: (want[i], -i), default=None)
            if big is None or want[big] == 1:
                break
            want[big] = (want[big] + 1) // 2
        want[0] = min(1024, max(1, (1 << 20) // (size * int(np.prod(want)))))
        assert got == tuple(want), f"{ref}: chunks {got}, not {tuple(want)}"


JOBS = {
    "fixtures": lambda a: fixtures(*a),
    "appendable": appendable,
    "like": lambda a: like(*a),
    "attrs": lambda a: attrs(a[0], a[1:]),
    "strtype": lambda a: strtype(*a),
    "xtime": lambda a: xtime(*a),
    "filtered": lambda a: filtered(*a),
    "masked_mean": lambda a: masked_mean(*a),
    "records": lambda a: records(*a),
    "record_chunks": record_chunks,
    "bools": lambda a: bools(*a),
}

if __name__ == "__main__":
    h5ref.main(JOBS, "netcdf_ref.py")
