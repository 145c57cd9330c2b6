#!/usr/bin/env bats
# 64-layout.bats - `chunks:` and `compression:` for the datasets a step
# creates: `h5dump -p` shows the chunk shape, the DEFLATE filter and its
# level; the values are NumPy's; `defaults:` sets them for every step; the
# same files come out of 1, 2 and 3 ranks (written in parallel, through
# collective I/O, chunk and rank boundaries unaligned); and the errors: a
# chunk list of the wrong length, a chunk larger than the extent, a 0-d
# result, malformed values.

load helper

setup_file() {
	fixtures <<-'EOF'
		make l.h5:/t int32 9,6,4
		make l.h5:/m float32 50,7
		make l.h5:/e float32 0,3
		make l.h5:/big float64 2000,300
		make l.h5:/mid float64 200,30
	EOF
}

# layout FILE PATH: "CHUNKED ( a, b ) DEFLATE n", "CHUNKED ( a, b ) NONE"
# or "CONTIGUOUS NONE", as h5dump -p reports the dataset.
layout() {
	h5dump -p -H -d "$2" "$1" | awk '
		$1 == "CHUNKED" || $1 == "CONTIGUOUS" || $1 == "COMPACT" { sub(/^ +/, ""); l = $0 }
		/COMPRESSION DEFLATE/ { match($0, /LEVEL [0-9]+/); f = "DEFLATE " substr($0, RSTART + 6, RLENGTH - 6) }
		END { print l " " (f == "" ? "NONE" : f) }'
}

# assert_layout FILE PATH WANT
assert_layout() {
	local got
	got=$(layout "$1" "$2")
	[[ $got == "$3" ]] || fail "$1:$2: h5dump -p shows '$got', want '$3'"
}

@test "chunks: [a, b, c] and compression: gzip:N show in h5dump -p, values NumPy's" {
	fixture l.h5
	cat >r.yaml <<-'EOF'
		inputs: {t: l.h5:/t}
		steps:
		  - {ufunc: multiply, in: [t, 3], out: o.h5:/a, chunks: [3, 6, 4], compression: gzip:7}
		  - {ufunc: negative, in: t, out: o.h5:/g/b, chunks: [2, 5, 1]}
		  - {ufunc: negative, in: t, out: o.h5:/c, compression: gzip}
		  - {ufunc: sqrt, in: l.h5:/m, out: o.h5:/d, compression: gzip:0}
		  - {ufunc: sqrt, in: l.h5:/m, out: o.h5:/plain}
	EOF
	run --separate-stderr h5u run r.yaml
	assert_success
	assert_stderr_empty
	assert_layout o.h5 /a 'CHUNKED ( 3, 6, 4 ) DEFLATE 7'
	assert_layout o.h5 /g/b 'CHUNKED ( 2, 5, 1 ) NONE'
	assert_layout o.h5 /c 'CHUNKED ( 9, 6, 4 ) DEFLATE 4'
	assert_layout o.h5 /d 'CHUNKED ( 50, 7 ) DEFLATE 0'
	assert_layout o.h5 /plain 'CONTIGUOUS NONE'
	np check multiply l.h5:/t 3 -o o.h5:/a :: check negative l.h5:/t -o o.h5:/g/b \
		:: check negative l.h5:/t -o o.h5:/c :: check sqrt l.h5:/m -o o.h5:/d \
		:: stored o.h5:/a int32 9,6,4
}

@test "chunks: auto keeps whole rows and halves the longest axis while a chunk is over 1 MiB" {
	fixture l.h5
	cat >r.yaml <<-'EOF'
		steps:
		  - {ufunc: negative, in: l.h5:/big, out: o.h5:/big, chunks: auto}   # (2000, 300) float64: 4.8 MB
		  - {ufunc: negative, in: l.h5:/m, out: o.h5:/m, chunks: auto, compression: gzip:9}
		  - {ufunc: negative, in: l.h5:/big, out: o.h5:/gz, compression: gzip:1}   # compression alone chunks as auto
	EOF
	h5u run r.yaml
	assert_layout o.h5 /big 'CHUNKED ( 250, 300 ) NONE'
	assert_layout o.h5 /m 'CHUNKED ( 50, 7 ) DEFLATE 9'
	assert_layout o.h5 /gz 'CHUNKED ( 250, 300 ) DEFLATE 1'
	np check negative l.h5:/big -o o.h5:/big :: check negative l.h5:/m -o o.h5:/m \
		:: check negative l.h5:/big -o o.h5:/gz
}

@test "layout options on expr, reduce, accumulate and outer steps, and an empty extent" {
	fixture l.h5
	cat >r.yaml <<-'EOF'
		inputs: {t: l.h5:/t, m: l.h5:/m}
		steps:
		  - {expr: t * 2 + 1, out: o.h5:/x, chunks: [9, 1, 4], compression: gzip:5}
		  - {reduce: add, in: t, axis: 1, out: o.h5:/r, chunks: [3, 2], compression: gzip:3}
		  - {accumulate: add, in: m, axis: 0, out: o.h5:/acc, chunks: auto, compression: gzip}
		  - {ufunc: negative, in: l.h5:/e, out: o.h5:/e, chunks: auto, compression: gzip:2}
		  - {outer: multiply, in: ["l.h5:/m[0]", "l.h5:/t[0, 0]"], out: o.h5:/outer, chunks: [7, 2], compression: gzip:1}
	EOF
	h5u run r.yaml
	assert_layout o.h5 /x 'CHUNKED ( 9, 1, 4 ) DEFLATE 5'
	assert_layout o.h5 /r 'CHUNKED ( 3, 2 ) DEFLATE 3'
	assert_layout o.h5 /acc 'CHUNKED ( 50, 7 ) DEFLATE 4'
	assert_layout o.h5 /e 'CHUNKED ( 1, 3 ) DEFLATE 2'
	assert_layout o.h5 /outer 'CHUNKED ( 7, 2 ) DEFLATE 1'
	np let x2 multiply l.h5:/t 2 :: check add x2 1 -o o.h5:/x \
		:: check negative l.h5:/e -o o.h5:/e
	/usr/bin/python3 - <<-'EOF'
		import sys, h5py, numpy as np
		t = h5py.File('l.h5', 'r')['t'][()]
		m = h5py.File('l.h5', 'r')['m'][()]
		with h5py.File('o.h5', 'r') as f:
		    for name, want in (('r', np.add.reduce(t, axis=1)), ('acc', np.add.accumulate(m, axis=0)),
		                       ('outer', np.multiply.outer(m[0], t[0, 0]))):
		        got = f[name][()]
		        if got.dtype != want.dtype or got.shape != want.shape or got.tobytes() != want.tobytes():
		            sys.exit(f"o.h5:/{name} is not NumPy's")
	EOF
}

@test "defaults: sets chunks and compression for every step that creates a dataset" {
	fixture l.h5
	cp l.h5 inplace.h5
	cat >r.yaml <<-'EOF'
		defaults: {chunks: [3, 2, 2], compression: gzip:6}
		inputs: {t: l.h5:/t, w: inplace.h5:/t}
		steps:
		  - {ufunc: negative, in: t, out: o.h5:/a}
		  - {ufunc: add, in: [t, 1], out: o.h5:/b, chunks: [1, 6, 4], compression: gzip:1}   # the step's own option wins
		  - {ufunc: multiply, in: [t, 2], out: twice}   # a named intermediate: not a dataset
		  - {ufunc: add, in: [w, twice], out: w}   # in place: the dataset keeps its layout
	EOF
	h5u run r.yaml
	assert_layout o.h5 /a 'CHUNKED ( 3, 2, 2 ) DEFLATE 6'
	assert_layout o.h5 /b 'CHUNKED ( 1, 6, 4 ) DEFLATE 1'
	assert_layout inplace.h5 /t 'CONTIGUOUS NONE'
	np check negative l.h5:/t -o o.h5:/a :: check add l.h5:/t 1 -o o.h5:/b \
		:: let twice multiply l.h5:/t 2 :: check add l.h5:/t twice -o inplace.h5:/t
}

@test "a dataset replaced with --overwrite takes the step's layout" {
	fixture l.h5
	h5u call negative l.h5:/t -o o.h5:/a
	assert_layout o.h5 /a 'CONTIGUOUS NONE'
	printf 'steps:\n  - ufunc: positive\n    in: l.h5:/t\n    out: o.h5:/a\n    chunks: [9, 6, 1]\n    compression: gzip:8\n' >r.yaml
	h5u run --overwrite r.yaml
	assert_layout o.h5 /a 'CHUNKED ( 9, 6, 1 ) DEFLATE 8'
	np check positive l.h5:/t -o o.h5:/a
}

# layout_run DIR [N]: in a new directory DIR with a copy of l.h5, run
# lay.yaml (with a small --memory, so that each rank writes several blocks
# into each chunk), without a launcher or on N ranks.
layout_run() {
	run_copy "$1" "${2:-}" l.h5 lay.yaml --memory 8K
}

@test "compressed chunked outputs are the same written by 1, 2 and 3 ranks" {
	cat >lay.yaml <<-'EOF'
		inputs: {mid: l.h5:/mid, m: l.h5:/m}
		steps:
		  - {expr: mid * 0.5 - 1, out: o.h5:/a, chunks: [33, 7], compression: gzip:4}   # chunk and rank boundaries do not align
		  - {ufunc: sqrt, in: mid, out: o.h5:/b, chunks: auto, compression: gzip:9}
		  - {accumulate: add, in: m, axis: 0, out: o.h5:/c, chunks: [7, 7], compression: gzip:2}
		  - {ufunc: negative, in: "l.h5:/m[0:2]", out: o.h5:/d, chunks: [1, 7], compression: gzip}   # 3 ranks, 2 rows
	EOF
	layout_run r0
	local n
	for n in 1 2 3; do
		layout_run "r$n" "$n"
		assert_layout "r$n/o.h5" /a 'CHUNKED ( 33, 7 ) DEFLATE 4'
		assert_layout "r$n/o.h5" /b 'CHUNKED ( 200, 30 ) DEFLATE 9'
		assert_layout "r$n/o.h5" /c 'CHUNKED ( 7, 7 ) DEFLATE 2'
		assert_layout "r$n/o.h5" /d 'CHUNKED ( 1, 7 ) DEFLATE 4'
		np same r0/o.h5:/a "r$n/o.h5:/a" :: same r0/o.h5:/b "r$n/o.h5:/b" \
			:: same r0/o.h5:/c "r$n/o.h5:/c" :: same r0/o.h5:/d "r$n/o.h5:/d"
	done
	fixture l.h5
	np let h multiply l.h5:/mid 0.5 :: check subtract h 1 -o r3/o.h5:/a \
		:: check sqrt l.h5:/mid -o r3/o.h5:/b :: check negative 'l.h5:/m[0:2]' -o r3/o.h5:/d
}

# layout_error OPTION MESSAGE: a step writing new dataset o.h5:/a from
# l.h5:/t (9,6,4) with OPTION (one line of the step) fails with status 2
# and MESSAGE, and writes nothing.
layout_error() {
	printf 'steps:\n  - ufunc: negative\n    in: l.h5:/t\n    out: o.h5:/a\n    %s\n' "$1" >r.yaml
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error 2 "$2"
	assert_unchanged
}

@test "layout errors: wrong length, larger than the extent, malformed values" {
	fixture l.h5
	layout_error 'chunks: [3, 6]' "r.yaml:5:13: step 1 (ufunc negative): chunks has 2 entries, 'o.h5:/a' has 3 dimensions"
	layout_error 'chunks: [3, 6, 4, 1]' "r.yaml:5:13: step 1 (ufunc negative): chunks has 4 entries, 'o.h5:/a' has 3 dimensions"
	layout_error 'chunks: [10, 6, 4]' "r.yaml:5:13: step 1 (ufunc negative): chunk extent 10 does not fit axis 0 of 'o.h5:/a' (extent 9)"
	layout_error 'chunks: [9, 6, 5]' "r.yaml:5:13: step 1 (ufunc negative): chunk extent 5 does not fit axis 2 of 'o.h5:/a' (extent 4)"
	layout_error 'chunks: [0, 6, 4]' "r.yaml:5:14: 'chunks' must be auto or a list of positive integers, found '0'"
	layout_error 'chunks: [2.5, 6, 4]' "r.yaml:5:14: 'chunks' must be auto or a list of positive integers, found '2.5'"
	layout_error 'chunks: []' "r.yaml:5:13: 'chunks' must be auto or a list of positive integers, found an empty list"
	layout_error 'chunks: yes' "r.yaml:5:13: 'chunks' must be auto or a list of positive integers, found 'yes'"
	layout_error 'compression: gzip:10' "r.yaml:5:18: 'compression' must be gzip, gzip:N with N from 0 to 9, lzf, bzip2, bzip2:N with N from 1 to 9, lz4, blosc, blosc:N with N from 0 to 9 or zfp, found 'gzip:10'"
	layout_error 'compression: zstd' "r.yaml:5:18: 'compression' must be gzip, gzip:N with N from 0 to 9, lzf, bzip2, bzip2:N with N from 1 to 9, lz4, blosc, blosc:N with N from 0 to 9 or zfp, found 'zstd'"
	layout_error 'compression: [gzip]' "r.yaml:5:18: 'compression' must be gzip, gzip:N with N from 0 to 9, lzf, bzip2, bzip2:N with N from 1 to 9, lz4, blosc, blosc:N with N from 0 to 9 or zfp, found a list"
}

@test "a 0-d result cannot be chunked or compressed" {
	fixture l.h5
	local opt key col
	for opt in 'chunks: auto' 'compression: gzip'; do
		key=${opt%%:*}
		printf 'steps:\n  - reduce: add\n    in: l.h5:/t\n    axis: null\n    out: o.h5:/total\n    %s\n' "$opt" >r.yaml
		col=$((${#key} + 7))
		snapshot
		run --separate-stderr h5u run r.yaml
		assert_error 2 "r.yaml:6:$col: step 1 (reduce add): 'o.h5:/total' is a scalar (0-d): it cannot be chunked or compressed"
		assert_unchanged
	done
}

@test "defaults: chunks and compression leave a 0-d result contiguous; a step's own is still refused" {
	fixture l.h5
	# As where= and axis under defaults, they are meant for the outputs
	# that can take them: HDF5 chunks no scalar.
	cat >r.yaml <<-'EOF'
		defaults: {chunks: auto, compression: gzip:6}
		steps:
		  - {ufunc: negative, in: l.h5:/t, out: o.h5:/a}
		  - {reduce: add, in: l.h5:/t, axis: null, out: o.h5:/total}
	EOF
	run --separate-stderr h5u run r.yaml
	assert_success
	assert_layout o.h5 /a 'CHUNKED ( 9, 6, 4 ) DEFLATE 6'
	assert_layout o.h5 /total 'CONTIGUOUS NONE'
	run /usr/bin/python3 -c '
import sys, h5py, numpy as np
t, got = h5py.File("l.h5")["t"][()], h5py.File("o.h5")["total"][()]
want = np.add.reduce(t, axis=None)
sys.exit(0 if got.dtype == want.dtype and got.shape == () and got == want else f"total: {got!r}, NumPy {want!r}")'
	assert_success
	rm o.h5
	echo '  - {reduce: maximum, in: l.h5:/t, axis: null, out: o.h5:/max, compression: gzip}' >>r.yaml
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:5:77: step 3 (reduce maximum): 'o.h5:/max' is a scalar (0-d): it cannot be chunked or compressed"
	assert_unchanged
}

@test "defaults: a chunk list that does not fit a step is an error at the defaults line" {
	fixture l.h5
	cat >r.yaml <<-'EOF'
		defaults:
		  chunks: [2, 2, 2]
		steps:
		  - ufunc: negative
		    in: l.h5:/t
		    out: o.h5:/a
		  - ufunc: negative
		    in: l.h5:/m
		    out: o.h5:/b
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error 2 "r.yaml:2:11: step 2 (ufunc negative): chunks has 3 entries, 'o.h5:/b' has 2 dimensions"
	assert_unchanged
}
