#!/usr/bin/env bats
# 34-select.bats - NumPy basic slicing on operands, `FILE:/PATH[...]`:
# reads in every form (slices with steps, negative steps, negative indices
# and bounds, an integer index that drops its axis, `...`, None, empty and
# clipped ranges, bounds beyond int64) against NumPy's own indexing of the
# same text, on 1 to 4 ranks and under a --memory that streams several
# blocks a rank; reduce and accumulate of a selection, along reversed axes;
# in-place writes into a selection (reversed too) with the rest of the
# dataset untouched; a write overlapping what the step reads is refused;
# None's axis unnamed beside named ones; NumPy's IndexError texts.  Expected values come from NumPy
# indexing the arrays that h5py reads (npy below), with NumPy 2's NEP 50.

load helper

setup_file() {
	fixtures <<-'EOF'
		make s.h5:/t int32 9,6,4
		make s.h5:/m float64 7,5
		make s.h5:/v float32 10 fill=range
		make s.h5:/z float64 () data=2.5
		make s.h5:/b bool 9,6
		make s.h5:/w int64 41,29,6 lo=-1000 hi=1000
	EOF
	# t(time, lat) with coordinate variables, as netCDF4-python writes them
	(cd "$BATS_FILE_TMPDIR" && /usr/bin/python3 -c "
import netCDF4, numpy as np
with netCDF4.Dataset('n.nc', 'w') as f:
    f.createDimension('time', 5)
    f.createDimension('lat', 4)
    f.createVariable('time', 'f8', ('time',))[:] = [10, 20, 30, 40, 50]
    f.createVariable('lat', 'f4', ('lat',))[:] = [-60, -20, 20, 60]
    f.createVariable('t', 'f8', ('time', 'lat'))[:] = np.arange(20.0).reshape(5, 4)
")
}

# npy CODE: run Python CODE with NumPy (NEP 50 as NumPy 2), and
#   read(REF)          the array h5py reads from FILE:/PATH
#   same(WANT, REF)    fail unless dataset REF is WANT: dtype, shape, bytes
#   printed(WANT, F)   fail unless file F holds WANT printed as SPEC 1 says
npy() {
	/usr/bin/python3 - "$1" <<-'EOF'
		import sys
		import h5py
		import numpy as np
		sys.dont_write_bytecode = True  # no __pycache__ in the source tree
		sys.path.insert(0, __import__('os').environ['H5U_TESTS'])
		import np as ref  # tests/np.py: native byte order, SPEC 1's printing
		np._set_promotion_state('weak')
		np.seterr(all='ignore')
		problems = []
		def read(text):
		    fname, path = text.split(':/', 1)
		    with h5py.File(fname, 'r') as f:
		        return ref.native(f['/' + path][()])
		def same(want, text):
		    want = np.asarray(want)
		    got = read(text)
		    if got.dtype != want.dtype or got.shape != want.shape:
		        problems.append(f"{text}: {got.dtype} {got.shape}, NumPy gives {want.dtype} {want.shape}")
		    elif got.tobytes() != want.tobytes():
		        problems.append(f"{text}: values differ from NumPy's:\n{got}\nwant\n{want}")
		def printed(want, path):
		    try:
		        ref.compare_text(path, (np.asarray(want),), open(path).read(), 0)
		    except ref.Failure as exc:
		        problems.append(str(exc))
		exec(sys.argv[1])
		if problems:
		    sys.exit("\n".join(problems))
	EOF
}

export H5U_TESTS

# Selections of s.h5:/t (9,6,4) and what each reads, by name.
SELECTIONS=(
	'slices|0:3, ::2, 1'
	'last|-1'
	'ellipsis|..., 2'
	'negstop|1:-1:3, 4'
	'tail|-3:'
	'head|:-7'
	'every3|::3'
	'empty|2:1'
	'clipped|0:100'
	'clippedneg|-100:2, -100:100:5'
	'scalar|8, 5, -4'
	'mid|1, ..., 1:3'
	'all|...'
	'colons|:, :, :'
	'spaces| 1 : 5 , 2 '
	'step2|5:2:2'
	'dropmid|:, 3'
	'ellipsisend|2:4, ...'
	'reversed|::-1'
	'reversedall|::-1, ::-2, ::-3'
	'reversedmix|5:1:-2, 3, ::-1'
	'reversedneg|-2:-8:-3, 1:5, -1'
	'reversedclip|100:-100:-4'
	'reversedempty|3:5:-1'
	'none|None'
	'nonemid|1, None, ::-2, np.newaxis'
	'noneellipsis|None, ..., None, 2'
	'nonebounds|None:5:None, 1:None'
	'hugebounds|-1000000000000000000000:1000000000000000000000, 2'
	'hugestep|::-1000000000000000000000, ::1000000000000000000000'
	'pythonints|0x1:0b111:0o2, 1_0:-1_0:-1'
)

@test "a selection in every basic-slicing form reads what NumPy's indexing gives" {
	fixture s.h5
	local item name sel code=
	for item in "${SELECTIONS[@]}"; do
		name=${item%%|*}
		sel=${item#*|}
		run --separate-stderr h5u call positive "s.h5:/t[$sel]" -o "o.h5:/$name"
		[[ $status -eq 0 ]] || fail "s.h5:/t[$sel]: status $status: $stderr"
		code+="same(np.positive(read('s.h5:/t')[$sel]), 'o.h5:/$name')"$'\n'
	done
	npy "$code"
}

@test "selections on both operands of a binary call broadcast as NumPy's views do" {
	fixture s.h5
	h5u call add 's.h5:/t[:, 0, 1:3]' 's.h5:/m[2:4, 3]' -o o.h5:/no
	h5u call add 's.h5:/t[::4, 1:6:2, 0]' 's.h5:/m[0, 1:4]' -o o.h5:/a
	h5u call multiply 's.h5:/m[1:, ...]' 's.h5:/v[5:10]' -o o.h5:/b
	h5u call multiply 's.h5:/m[1:6, :]' 's.h5:/v[-5:]' -o o.h5:/c
	h5u call logical_and 's.h5:/b[::2]' 's.h5:/b[-1]' -o o.h5:/d
	h5u call subtract 's.h5:/z[...]' 's.h5:/v[::3]' -o o.h5:/e
	npy "
t, m, v, b, z = (read('s.h5:/' + n) for n in 'tmvbz')
same(np.add(t[:, 0, 1:3], m[2:4, 3]), 'o.h5:/no')
same(np.add(t[::4, 1:6:2, 0], m[0, 1:4]), 'o.h5:/a')
same(np.multiply(m[1:, ...], v[5:10]), 'o.h5:/b')
same(np.multiply(m[1:6, :], v[-5:]), 'o.h5:/c')
same(np.logical_and(b[::2], b[-1]), 'o.h5:/d')
same(np.subtract(z[...], v[::3]), 'o.h5:/e')"
}

@test "a 0-d result of integer indices prints as a scalar; an empty one prints nothing" {
	fixture s.h5
	run --separate-stderr h5u call multiply 's.h5:/t[8, 5, -4]' 2
	assert_success
	printf '%s\n' "$output" >scalar.txt
	run --separate-stderr h5u call positive 's.h5:/m[-2]'
	assert_success
	printf '%s\n' "$output" >row.txt
	run --separate-stderr h5u call positive 's.h5:/m[3:3]'
	assert_success
	assert_output ''
	npy "
printed(read('s.h5:/t')[8, 5, -4] * 2, 'scalar.txt')
printed(read('s.h5:/m')[-2], 'row.txt')"
}

@test "selections in recipes, -i bindings of eval and expressions" {
	fixture s.h5
	cat >r.yaml <<-'EOF'
		inputs:
		  row: s.h5:/t[4]              # (6,4)
		  col: s.h5:/m[:, -1]          # (7,)
		  rev: s.h5:/t[8, ::-1, None, 3]   # (6,1)
		steps:
		  - ufunc: subtract
		    in: [row, "s.h5:/t[0, :, 1:2]"]
		    out: o.h5:/a
		  - expr: col * 2 + 1
		    out: o.h5:/b
		  - ufunc: add
		    in: [row, "s.h5:/t[0, :, ::-1]"]
		    out: o.h5:/d
		  - expr: row * 2 - rev
		    out: o.h5:/e
	EOF
	run --separate-stderr h5u run r.yaml
	assert_success
	h5u eval -i x='s.h5:/m[1:6:2, 1:]' -i y='s.h5:/v[:4]' 'o.h5:/c = x * y - 1'
	h5u eval -i x='s.h5:/m[::-2, None, ::-1]' -i y='s.h5:/v[8:3:-1]' 'o.h5:/f = x * y - 1'
	npy "
t, m, v = read('s.h5:/t'), read('s.h5:/m'), read('s.h5:/v')
same(np.subtract(t[4], t[0, :, 1:2]), 'o.h5:/a')
same(m[:, -1] * 2 + 1, 'o.h5:/b')
same(np.subtract(np.multiply(m[1:6:2, 1:], v[:4]), 1), 'o.h5:/c')
same(np.add(t[4], t[0, :, ::-1]), 'o.h5:/d')
same(np.subtract(np.multiply(t[4], 2), t[8, ::-1, None, 3]), 'o.h5:/e')
same(np.subtract(np.multiply(m[::-2, None, ::-1], v[8:3:-1]), 1), 'o.h5:/f')"
}

# select_run DIR [N [OPTION...]]: in a new directory DIR with a copy of
# s.h5, run sel.yaml there, without a launcher or on N ranks.
select_run() {
	run_copy "$1" "${2:-}" s.h5 sel.yaml "${@:3}"
}

@test "selections read and written in place give the same datasets on 1, 2, 3 ranks" {
	fixture s.h5
	cat >sel.yaml <<-'EOF'
		inputs: {t: s.h5:/t}
		steps:
		  - {ufunc: negative, in: "s.h5:/t[1::3, ::2]", out: o.h5:/a}   # first axis stepped: 3 rows
		  - {ufunc: multiply, in: ["s.h5:/t[4]", 10], out: o.h5:/b}   # first axis dropped: split along the next one
		  - {ufunc: add, in: ["s.h5:/t[7:8, -1]", "s.h5:/m[0, 1:5]"], out: o.h5:/c}   # one row, more ranks than rows
		  - {reduce: add, in: "s.h5:/t[1:8:2, ::2]", axis: 0, out: o.h5:/d}
		  - {accumulate: add, in: "s.h5:/m[:, 1:4]", axis: 0, out: o.h5:/e}
		  - {ufunc: multiply, in: ["s.h5:/t[2:7, 1:3]", 3], out: 's.h5:/t[2:7, 1:3]'}   # in place into a selection
		  - {ufunc: subtract, in: ["s.h5:/m[::3, 1]", 0.5], out: 's.h5:/m[::3, 1]'}   # in place into a stepped selection
	EOF
	select_run r0
	local n
	for n in 1 2 3; do
		select_run "r$n" "$n"
	done
	npy "
t, m = read('s.h5:/t'), read('s.h5:/m')
same(np.negative(t[1::3, ::2]), 'r0/o.h5:/a')
same(np.multiply(t[4], 10), 'r0/o.h5:/b')
same(np.add(t[7:8, -1], m[0, 1:5]), 'r0/o.h5:/c')
same(np.add.reduce(t[1:8:2, ::2], axis=0), 'r0/o.h5:/d')
same(np.add.accumulate(m[:, 1:4], axis=0), 'r0/o.h5:/e')
t[2:7, 1:3] *= 3
m[::3, 1] -= 0.5
same(t, 'r0/s.h5:/t')
same(m, 'r0/s.h5:/m')
for n in (1, 2, 3):
    for d in 'abcde':
        same(read(f'r0/o.h5:/{d}'), f'r{n}/o.h5:/{d}')
    same(t, f'r{n}/s.h5:/t')
    same(m, f'r{n}/s.h5:/m')"
}

@test "reversed axes (the split one too) read, reduced, accumulated and written on 1 to 4 ranks in small blocks" {
	fixture s.h5
	cat >sel.yaml <<-'EOF'
		steps:
		  - {ufunc: negative, in: "s.h5:/w[::-1]", out: o.h5:/a}   # the split axis reversed
		  - {ufunc: add, in: ["s.h5:/w[::-3, 20:2:-2, ::-1]", "s.h5:/w[None, -1, 20:2:-2, ::-1]"], out: o.h5:/b}
		  - {ufunc: multiply, in: ["s.h5:/w[3, ::-1, None]", 2], out: o.h5:/c}   # split along a reversed axis
		  - {reduce: add, in: "s.h5:/w[::-1, 3:, ::-2]", axis: [0, 2], out: o.h5:/d}
		  - {reduce: maximum, in: "s.h5:/w[30:0:-1, ::-1]", axis: 1, out: o.h5:/e}
		  - {reduce: add, in: "s.h5:/w[::-2, None, ::-1, 4]", axis: null, out: o.h5:/f}
		  - {accumulate: add, in: "s.h5:/w[::-1, ::-1, 2]", axis: 0, out: o.h5:/g}   # along the reversed split axis
		  - {accumulate: subtract, in: "s.h5:/w[::-2, 25:5:-1]", axis: 1, out: o.h5:/h}
		  - {ufunc: multiply, in: ["s.h5:/w[::-1, 0]", 3], out: "s.h5:/w[::-1, 0]"}   # in place, the same view
		  - {ufunc: positive, in: "s.h5:/w[0:10, 1]", out: "s.h5:/w[40:30:-1, 28]"}   # w[40:30:-1, 28] = w[0:10, 1]
		  - {ufunc: negative, in: "s.h5:/w[20:30, None, 5:9, 1]", out: "s.h5:/w[10:0:-1, None, 27:0:-7, 3]"}
	EOF
	# a --memory of 16 KiB: every rank streams several blocks of s.h5:/w
	select_run r0 '' --memory 16K
	local n
	for n in 1 2 3 4; do
		select_run "r$n" "$n" --memory 16K
	done
	npy "
w = read('s.h5:/w')
same(np.negative(w[::-1]), 'r0/o.h5:/a')
same(np.add(w[::-3, 20:2:-2, ::-1], w[None, -1, 20:2:-2, ::-1]), 'r0/o.h5:/b')
same(np.multiply(w[3, ::-1, None], 2), 'r0/o.h5:/c')
same(np.add.reduce(w[::-1, 3:, ::-2], axis=(0, 2)), 'r0/o.h5:/d')
same(np.maximum.reduce(w[30:0:-1, ::-1], axis=1), 'r0/o.h5:/e')
same(np.add.reduce(w[::-2, None, ::-1, 4], axis=None), 'r0/o.h5:/f')
same(np.add.accumulate(w[::-1, ::-1, 2], axis=0), 'r0/o.h5:/g')
same(np.subtract.accumulate(w[::-2, 25:5:-1], axis=1), 'r0/o.h5:/h')
w[::-1, 0] *= 3
w[40:30:-1, 28] = w[0:10, 1]
w[10:0:-1, None, 27:0:-7, 3] = np.negative(w[20:30, None, 5:9, 1])
same(w, 'r0/s.h5:/w')
for n in (1, 2, 3, 4):
    for d in 'abcdefgh':
        same(read(f'r0/o.h5:/{d}'), f'r{n}/o.h5:/{d}')
    same(w, f'r{n}/s.h5:/w')"
}

@test "at, reduceat and matmul on reversed selections: NumPy's result on the view, matmul's written into one on 3 ranks" {
	fixture s.h5
	cp s.h5 before.h5
	h5u at add 's.h5:/v[::-1]' --indices 0,1,1,-1 1
	h5u at multiply 's.h5:/m[::-2, 1]' --indices 0,2,2 3
	h5u reduceat add 's.h5:/w[::-1, 5, ::-1]' --indices 0,7,7,30 --axis 0 -o o.h5:/r
	h5u reduceat maximum 's.h5:/w[2, ::-3]' --indices 1,0,5 --axis 0 -o o.h5:/q
	h5u call matmul 's.h5:/m[::-1, ::-2]' 's.h5:/m[1:4, ::-1]' -o o.h5:/p
	h5u call matmul 's.h5:/m[::-1, ::-2]' 's.h5:/m[1:4, ::-1]' -o o.h5:/pr
	mpi 3 h5ufunc call matmul 's.h5:/m[:, 1:4]' 's.h5:/m[2:5]' -o 'o.h5:/pr[::-1, ::-1]'
	npy "
v, m, w = read('before.h5:/v'), read('before.h5:/m'), read('s.h5:/w')
np.add.at(v[::-1], [0, 1, 1, -1], 1)
np.multiply.at(m[::-2, 1], [0, 2, 2], 3)
same(v, 's.h5:/v')
same(m, 's.h5:/m')
same(np.add.reduceat(w[::-1, 5, ::-1], [0, 7, 7, 30], axis=0), 'o.h5:/r')
same(np.maximum.reduceat(w[2, ::-3], [1, 0, 5], axis=0), 'o.h5:/q')
same(np.matmul(m[::-1, ::-2], m[1:4, ::-1]), 'o.h5:/p')
a, b = m[:, 1:4], m[2:5]   # within 4 k eps (|a| @ |b|) of the product, k = 3 (h5ufunc(1))
err = np.abs(read('o.h5:/pr')[::-1, ::-1] - a.astype(np.longdouble) @ b.astype(np.longdouble))
assert np.all(err <= 12 * np.finfo(np.float64).eps * (np.abs(a) @ np.abs(b))), err"
}

@test "under that --memory every rank reads a reversed selection in several blocks" {
	fixture s.h5
	local n
	for n in 1 3; do
		run --separate-stderr mpi "$n" h5ufunc call negative 's.h5:/w[::-1, ::-2]' -o "j$n.h5:/a" --memory 16K --json
		assert_success
		printf '%s\n' "$output" >"j$n.json"
	done
	npy "
import json
w = read('s.h5:/w')
for n in (1, 3):
    same(np.negative(w[::-1, ::-2]), f'j{n}.h5:/a')
    reads = [r['h5_reads'] for r in json.load(open(f'j{n}.json'))['per_rank']]
    if len(reads) != n or min(reads) < 2:
        problems.append(f'{n} ranks: reads per rank {reads}, want two or more each')"
}

@test "None's axis has no name: the dataset's named axes keep theirs, coordinates sliced and reversed" {
	fixture n.nc
	run --separate-stderr h5u call positive 'n.nc:/t[::-2, None, 1:]' -o o.nc:/r --json
	assert_success
	assert_output --partial '"operand": "o.nc:/r", "kind": "new file", "shape": [3, 1, 3], "dims": ["time", null, "lat"]'
	h5u reduce add 'n.nc:/t[None, ::-1]' --axis time -o s.nc:/s
	ncdump o.nc >/dev/null
	ncdump s.nc >/dev/null
	/usr/bin/python3 - <<-'EOF'
		import netCDF4, numpy as np, sys
		problems = []
		with netCDF4.Dataset('n.nc') as n, netCDF4.Dataset('o.nc') as o, netCDF4.Dataset('s.nc') as so:
		    t, r, s = n['t'][:], o['r'], so['s']
		    # None's axis: a dimension without a variable, named as xarray names an unnamed one
		    if r.dimensions != ('time', 'dim_1', 'lat') or 'dim_1' in o.variables:
		        problems.append(f'r{r.dimensions}')
		    if not np.array_equal(r[:], t[::-2, None, 1:]):
		        problems.append(f'r: {r[:]}')
		    if not np.array_equal(o['time'][:], n['time'][::-2]) or not np.array_equal(o['lat'][:], n['lat'][1:]):
		        problems.append(f"coordinates {o['time'][:]} {o['lat'][:]}")
		    if s.dimensions != ('dim_0', 'lat') or not np.array_equal(s[:], np.add.reduce(t[None, ::-1], axis=1)):
		        problems.append(f's{s.dimensions}: {s[:]}')
		    if s.getncattr('cell_methods') != 'time: sum':
		        problems.append(f"cell_methods {s.getncattr('cell_methods')!r}")
		if problems:
		    sys.exit('\n'.join(problems))
	EOF
}

@test "reduce and accumulate of a selection, along every axis and all of them" {
	fixture s.h5
	h5u reduce add 's.h5:/t[1:8:2, ::2, 1:]' --axis 0 -o o.h5:/r0
	h5u reduce maximum 's.h5:/t[1:8:2, ::2, 1:]' --axis 2 -o o.h5:/r2
	h5u reduce add 's.h5:/t[..., 3]' --axis all -o o.h5:/rall
	h5u reduce multiply 's.h5:/m[2:5, 1:3]' --axis 1 --keepdims -o o.h5:/rk
	h5u reduce minimum 's.h5:/t[-1]' --axis -1 -o o.h5:/rneg
	h5u accumulate add 's.h5:/t[::2, 3]' --axis 0 -o o.h5:/a0
	h5u accumulate subtract 's.h5:/m[1:, ::2]' --axis 1 -o o.h5:/a1
	h5u accumulate add 's.h5:/v[2:9:3]' -o o.h5:/av
	run --separate-stderr h5u reduce add 's.h5:/m[:, 2]' --axis all
	assert_success
	printf '%s\n' "$output" >total.txt
	npy "
t, m, v = read('s.h5:/t'), read('s.h5:/m'), read('s.h5:/v')
same(np.add.reduce(t[1:8:2, ::2, 1:], axis=0), 'o.h5:/r0')
same(np.maximum.reduce(t[1:8:2, ::2, 1:], axis=2), 'o.h5:/r2')
same(np.add.reduce(t[..., 3], axis=None), 'o.h5:/rall')
same(np.multiply.reduce(m[2:5, 1:3], axis=1, keepdims=True), 'o.h5:/rk')
same(np.minimum.reduce(t[-1], axis=-1), 'o.h5:/rneg')
same(np.add.accumulate(t[::2, 3], axis=0), 'o.h5:/a0')
same(np.subtract.accumulate(m[1:, ::2], axis=1), 'o.h5:/a1')
same(np.add.accumulate(v[2:9:3]), 'o.h5:/av')
printed(np.add.reduce(m[:, 2], axis=None), 'total.txt')"
}

@test "call -o FILE:/PATH[...] and eval OUT = in place into a selection: the rest is untouched" {
	fixture s.h5
	cp s.h5 before.h5
	h5u call multiply 's.h5:/t[2:4]' 2 -o 's.h5:/t[2:4]'
	h5u call negative 's.h5:/m[0:2]' -o 's.h5:/m[5:7]'
	h5u eval -i w='s.h5:/t[5:7, 1]' 'w = w * 3 + 1'
	h5u eval -i r='s.h5:/m[3]' 's.h5:/m[3] = r * 0.5'
	npy "
t, m = read('before.h5:/t'), read('before.h5:/m')
t[2:4] *= 2
t[5:7, 1] = t[5:7, 1] * 3 + 1
m[5:7] = -m[0:2]
m[3] = m[3] * 0.5
same(t, 's.h5:/t')
same(m, 's.h5:/m')
same(read('before.h5:/v'), 's.h5:/v')"
}

@test "call -o into a selection with a comma writes that selection" {
	fixture s.h5
	cp s.h5 before.h5
	run --separate-stderr h5u call multiply 's.h5:/t[2:4, 1]' 2 -o 's.h5:/t[2:4, 1]'
	assert_success
	assert_stderr_empty
	npy "
t = read('before.h5:/t')
t[2:4, 1] *= 2
same(t, 's.h5:/t')"
}

@test "an in-place selection must have the result's shape and take its dtype by the casting rule" {
	fixture s.h5
	snapshot
	run --separate-stderr h5u call negative 's.h5:/t[3:5]' -o 's.h5:/t[0:3]'
	assert_error 2 "call negative: non-broadcastable output operand with shape (3,6,4) doesn't match the broadcast shape (2,6,4)"
	run --separate-stderr h5u call multiply 's.h5:/t[0:2]' 2.5 -o 's.h5:/t[4:6]'
	assert_error 2 "call multiply: Cannot cast ufunc 'multiply' output from float64 to int32 with casting rule 'same_kind'"
	assert_unchanged
}

@test "a write into a selection that overlaps what the step reads of the same dataset is refused" {
	fixture s.h5
	snapshot
	run --separate-stderr h5u call negative 's.h5:/t[0:2]' -o 's.h5:/t[1:3]'
	assert_error 2 "call negative: 's.h5:/t[1:3]' overlaps 's.h5:/t[0:2]', which the step reads: write to another dataset"
	run --separate-stderr h5u call add s.h5:/m 's.h5:/m[0]' -o s.h5:/m
	assert_error 2 "call add: 's.h5:/m' overlaps 's.h5:/m[0]', which the step reads: write to another dataset"
	# Interleaved steps share a bounding box: refused as well (documented).
	run --separate-stderr h5u call negative 's.h5:/v[::2]' -o 's.h5:/v[1::2]'
	assert_error 2 "call negative: 's.h5:/v[1::2]' overlaps 's.h5:/v[::2]', which the step reads: write to another dataset"
	# NumPy's v[::-1] = -v copies first; h5ufunc streams, so it refuses
	run --separate-stderr h5u call negative s.h5:/v -o 's.h5:/v[::-1]'
	assert_error 2 "call negative: 's.h5:/v[::-1]' overlaps 's.h5:/v', which the step reads: write to another dataset"
	run --separate-stderr h5u call negative 's.h5:/v[::-1]' -o 's.h5:/v[0:10]'
	assert_error 2 "call negative: 's.h5:/v[0:10]' overlaps 's.h5:/v[::-1]', which the step reads: write to another dataset"
	run --separate-stderr h5u eval -i a='s.h5:/m[1:4]' -i b='s.h5:/m[3:6]' 'b = a + 1'
	assert_error 2 "eval: 's.h5:/m[3:6]' overlaps 's.h5:/m[1:4]', which the step reads: write to another dataset"
	cat >r.yaml <<-'EOF'
		inputs:
		  t: s.h5:/t
		steps:
		  - ufunc: multiply
		    in: ["s.h5:/t[0:5]", 2]
		    out: s.h5:/t[4:9]
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:6:10: step 1 (ufunc multiply): 's.h5:/t[4:9]' overlaps 's.h5:/t[0:5]', which the step reads: write to another dataset"
	assert_unchanged
	# Disjoint boxes and the very same selection are fine (elementwise).
	cp s.h5 before.h5
	h5u call negative 's.h5:/t[0:2]' -o 's.h5:/t[2:4]'
	h5u call square 's.h5:/v[3:7]' -o 's.h5:/v[3:7]'
	npy "
t, v = read('before.h5:/t'), read('before.h5:/v')
t[2:4] = -t[0:2]
v[3:7] = v[3:7] ** 2
same(t, 's.h5:/t')
same(v, 's.h5:/v')"
}

@test "index errors are NumPy's IndexError texts (exit 2, nothing written)" {
	fixture s.h5
	snapshot
	local sel want
	while IFS='|' read -r sel want; do
		run --separate-stderr h5u call positive "s.h5:/t[$sel]" -o o.h5:/x
		assert_error 2 "call positive: 's.h5:/t[$sel]': $want"
	done <<-'EOF'
		9|index 9 is out of bounds for axis 0 with size 9
		-10|index -10 is out of bounds for axis 0 with size 9
		0, 6|index 6 is out of bounds for axis 1 with size 6
		..., -5|index -5 is out of bounds for axis 2 with size 4
		0,0,0,0|too many indices for array: array is 3-dimensional, but 4 were indexed
		::0|slice step cannot be zero
		1:5, 2:3:0|slice step cannot be zero
		..., ...|an index can only have a single ellipsis ('...')
	EOF
	run --separate-stderr h5u call positive 's.h5:/z[0]'
	assert_error 2 "call positive: 's.h5:/z[0]': too many indices for array: array is 0-dimensional, but 1 were indexed"
	run --separate-stderr h5u call positive 's.h5:/t[-100000000000000000000, 1]'
	assert_error 2 "call positive: 's.h5:/t[-100000000000000000000, 1]': only integers, slices (\`:\`), ellipsis (\`...\`), numpy.newaxis (\`None\`) and integer or boolean arrays are valid indices"
	run --separate-stderr h5u call positive 's.h5:/t[None, 1, None, 2, 3, 4]'
	assert_error 2 "call positive: 's.h5:/t[None, 1, None, 2, 3, 4]': too many indices for array: array is 3-dimensional, but 4 were indexed"
	assert_unchanged
	printf 'steps:\n  - ufunc: sqrt\n    in: s.h5:/m[7]\n    out: o.h5:/x\n' >r.yaml
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:3:9: step 1 (ufunc sqrt): 's.h5:/m[7]': index 7 is out of bounds for axis 0 with size 7"
	run --separate-stderr h5u eval -i x='s.h5:/m[1, 2, 3]' 'x + 1'
	assert_error 2 "eval: 's.h5:/m[1, 2, 3]': too many indices for array: array is 2-dimensional, but 3 were indexed"
	assert_unchanged
}

@test "the index errors match NumPy's own messages" {
	npy "
a = np.zeros((9, 6, 4))
for sel, text in [((9,), 'index 9 is out of bounds for axis 0 with size 9'),
                  ((0, 0, 0, 0), 'too many indices for array: array is 3-dimensional, but 4 were indexed'),
                  ((slice(None, None, 0),), 'slice step cannot be zero'),
                  ((None, 1, None, 2, 3, 4), 'too many indices for array: array is 3-dimensional, but 4 were indexed'),
                  ((-10**20, 1), 'only integers, slices (\`:\`), ellipsis (\`...\`), numpy.newaxis (\`None\`) and integer or boolean arrays are valid indices'),
                  ((Ellipsis, Ellipsis), \"an index can only have a single ellipsis ('...')\")]:
    try:
        a[sel]
        problems.append(f'NumPy accepts {sel}')
    except (IndexError, ValueError) as exc:
        if str(exc) != text:
            problems.append(f'NumPy says {str(exc)!r}, the test wants {text!r}')"
}
