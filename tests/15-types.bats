#!/usr/bin/env bats
# 15-types.bats - dtypes at the edges of the program: every dtype read and
# written as h5py stores it (bool as the FALSE/TRUE enum, float16 as a 16-bit
# IEEE float), big-endian inputs, layouts, NEP 50 weak literals, NumPy 2's
# exact int64/uint64 comparisons and integer floor/ceil/trunc, bitwise_count,
# and datasets of types h5ufunc does not take, refused by name and type.

load helper

DTYPES=(bool int8 uint8 int16 uint16 int32 uint32 int64 uint64 float16 float32 float64)
NUMERIC=(int8 uint8 int16 uint16 int32 uint32 int64 uint64 float16 float32 float64)

setup_file() {
	{
		for t in "${DTYPES[@]}"; do
			echo "make t.h5:/$t $t 3,4 fill=special"
			echo "make t.h5:/s_$t $t ()"
			echo "make t.h5:/e_$t $t 0"
		done
		for t in "${NUMERIC[@]}"; do
			echo "make be.h5:/$t $t 3,4 fill=special order=big"
			echo "make le.h5:/$t $t 3,4 order=little"
		done
		for t in string vstring vlen enum compound opaque array longdouble null; do
			echo "make bad.h5:/$t $t 3"
		done
		cat <<-'EOF'
			make lay.h5:/chunked float64 6,4 layout=chunked chunks=2,3 gzip=4
			make lay.h5:/compact int16 5 layout=compact
			make lay.h5:/contig float64 6,4 layout=contiguous
			make n.h5:/i8 int8 4 data=[1,-2,3,127]
			make n.h5:/u8 uint8 4 data=[0,1,2,255]
			make n.h5:/i16 int16 4 data=[-7,0,3,-32768]
			make n.h5:/i32 int32 4 data=[1,-2,3,2147483647]
			make n.h5:/f32 float32 4 data=[0.1,-2.5,3.0,1e30]
			make n.h5:/h float16 4 data=[1.0,-2.5,60000.0,0.0]
			make n.h5:/b bool 4 data=[True,False,True,False]
			make n.h5:/i64 int64 4 data=[9223372036854775807,-1,0,5]
			make n.h5:/u64 uint64 4 data=[9223372036854775808,18446744073709551615,0,5]
		EOF
	} | fixtures
}

@test "every dtype is read and written as h5py stores it, scalars and empty arrays too" {
	fixture t.h5
	local t jobs=()
	for t in "${DTYPES[@]}"; do
		h5u call maximum t.h5:/"$t" t.h5:/"$t" -o o.h5:/"$t"
		h5u call maximum t.h5:/s_"$t" t.h5:/s_"$t" -o o.h5:/s_"$t"
		h5u call maximum t.h5:/e_"$t" t.h5:/e_"$t" -o o.h5:/e_"$t"
		jobs+=(:: check maximum t.h5:/"$t" t.h5:/"$t" -o o.h5:/"$t"
			:: stored o.h5:/"$t" "$t" 3,4
			:: check maximum t.h5:/s_"$t" t.h5:/s_"$t" -o o.h5:/s_"$t"
			:: stored o.h5:/s_"$t" "$t" "()"
			:: check maximum t.h5:/e_"$t" t.h5:/e_"$t" -o o.h5:/e_"$t"
			:: stored o.h5:/e_"$t" "$t" 0)
	done
	np "${jobs[@]:1}"
}

@test "bool results are h5py's enum, float16 results are 16-bit IEEE floats" {
	fixture n.h5 t.h5
	h5u call less n.h5:/i8 n.h5:/i16 -o o.h5:/lt
	h5u call isnan t.h5:/float32 -o o.h5:/nan
	h5u call multiply n.h5:/h 2 -o o.h5:/h2
	h5u call sqrt t.h5:/int8 -o o.h5:/sq
	np check less n.h5:/i8 n.h5:/i16 -o o.h5:/lt :: stored o.h5:/lt bool :: \
		check isnan t.h5:/float32 -o o.h5:/nan :: stored o.h5:/nan bool :: \
		check multiply n.h5:/h 2 -o o.h5:/h2 :: stored o.h5:/h2 float16 :: \
		check sqrt t.h5:/int8 -o o.h5:/sq :: stored o.h5:/sq float16
}

@test "big-endian inputs of every numeric dtype; results in native order" {
	fixture be.h5 le.h5
	local t jobs=()
	for t in "${NUMERIC[@]}"; do
		h5u call add be.h5:/"$t" 1 -o o.h5:/"$t"
		jobs+=(:: check add be.h5:/"$t" 1 -o o.h5:/"$t" :: stored o.h5:/"$t" "$t")
	done
	h5u call multiply be.h5:/int32 le.h5:/int32 -o o.h5:/mixed
	h5u call subtract le.h5:/float16 be.h5:/float16 -o o.h5:/mixed16
	np "${jobs[@]:1}" :: \
		check multiply be.h5:/int32 le.h5:/int32 -o o.h5:/mixed :: \
		check subtract le.h5:/float16 be.h5:/float16 -o o.h5:/mixed16
}

@test "in place into a big-endian dataset" {
	fixture be.h5
	cp be.h5 orig.h5
	h5u call add be.h5:/float64 1 -o be.h5:/float64
	h5u call multiply be.h5:/int16 3 -o be.h5:/int16
	np check add orig.h5:/float64 1 -o be.h5:/float64 --into :: \
		check multiply orig.h5:/int16 3 -o be.h5:/int16 --into :: \
		same orig.h5:/int32 be.h5:/int32
}

# NumPy's verdict on each case, on the data as h5py reads it (its byte
# order kept): "CASE|MESSAGE" lines, dtype('>f8') written as h5ufunc's >f8.
casting_order_ref() {
	/usr/bin/python3 - <<-'EOF'
		import re, h5py, numpy as np
		be, le = h5py.File("be.h5", "r"), h5py.File("le.h5", "r")
		b64, b16, l64, l16 = be["float64"][...], be["int16"][...], le["float64"][...], le["int16"][...]
		assert b64.dtype.byteorder == ">" and l64.dtype.isnative
		cases = {
		    "add0": lambda: np.add(b64, 1.0, casting="no"),
		    "add1": lambda: np.add(1.0, b64, casting="no"),
		    "sqrt": lambda: np.sqrt(b64, casting="no"),
		    "mixed": lambda: np.add(l16, b16, casting="no"),
		    "dtype": lambda: np.add(b64, b64, dtype="float32", casting="equiv"),
		    "out": lambda: np.add(l64, 1.0, out=b64.copy(), casting="no"),
		    "out2": lambda: np.divmod(l64, 2.0, out=(l64.copy(), b64.copy()), casting="no"),
		}
		for name, f in cases.items():
		    try:
		        f()
		        print(f"{name}|accepted")
		    except TypeError as x:
		        print(f"{name}|" + re.sub(r"dtype\('([^']*)'\)", r"\1", str(x)))
	EOF
}

@test "casting no: a big-endian input or in-place output is refused as NumPy refuses it, equiv takes it; nothing written (1 and 3 ranks)" {
	fixture be.h5 le.h5
	local -A argv=(
		[add0]="call add be.h5:/float64 1.0 --casting no"
		[add1]="call add 1.0 be.h5:/float64 --casting no"
		[sqrt]="call sqrt be.h5:/float64 --casting no"
		[mixed]="call add le.h5:/int16 be.h5:/int16 --casting no"
		[dtype]="call add be.h5:/float64 be.h5:/float64 --dtype float32 --casting equiv"
		[out]="run out.yaml"
		[out2]="run out2.yaml"
	)
	printf 'inputs: {b: be.h5:/float64, l: le.h5:/float64}\nsteps:\n  - {ufunc: add, in: [l, 1.0], casting: no, out: b}\n' >out.yaml
	printf 'inputs: {b: be.h5:/float64, l: le.h5:/float64}\nsteps:\n  - {ufunc: divmod, in: [l, 2.0], casting: no, out: [l, b]}\n' >out2.yaml
	run casting_order_ref
	assert_success
	local lines=("${lines[@]}") line name message where n verb uf
	assert_equal "${#lines[@]}" 7
	snapshot
	for line in "${lines[@]}"; do
		name=${line%%|*} message=${line#*|}
		read -r verb uf _ <<<"${argv[$name]}"
		where="$verb $uf"
		[[ $name != out* ]] || where="$name.yaml:3:[0-9]+: step 1 \((ufunc add|ufunc divmod)\)"
		[[ $message == "Cannot cast ufunc "* ]] || fail "NumPy accepts $name: $message"
		for n in 0 1 3; do
			# shellcheck disable=SC2086
			if ((n)); then run --separate-stderr mpi $n h5ufunc ${argv[$name]}
			else run --separate-stderr h5u ${argv[$name]}; fi
			assert_error_once_match 2 "$where: ${message//[()]/.}"
		done
	done
	assert_unchanged
}

@test "casting equiv: big-endian inputs and in-place outputs; reduce and accumulate take no casting=, as NumPy's (1 and 3 ranks)" {
	fixture be.h5 le.h5
	cp be.h5 orig.h5
	local n
	for n in 0 1 3; do
		cp orig.h5 be$n.h5
		cat >r$n.yaml <<-EOF
			inputs: {b: be$n.h5:/float64, l: le.h5:/float64, i: be$n.h5:/float32}
			steps:
			  - {ufunc: add, in: [b, 1.0], casting: equiv, out: o$n.h5:/a}
			  - {ufunc: add, in: [l, 1.0], casting: equiv, out: b}
			  - {reduce: add, in: i, axis: 1, casting: no, out: o$n.h5:/r}
			  - {accumulate: add, in: i, casting: no, out: i}
		EOF
		if ((n)); then run --separate-stderr mpi $n h5ufunc run r$n.yaml
		else run --separate-stderr h5u run r$n.yaml; fi
		[[ $status == 0 ]] || echo "$stderr"
		assert_success
		/usr/bin/python3 - "$n" <<-'EOF'
			import sys, h5py, numpy as np
			n = sys.argv[1]
			orig, le = h5py.File("orig.h5", "r"), h5py.File("le.h5", "r")
			be, o = h5py.File(f"be{n}.h5", "r"), h5py.File(f"o{n}.h5", "r")
			b64, f32, l64 = orig["float64"][...], orig["float32"][...], le["float64"][...]
			want = {"a": np.add(b64, 1.0, casting="equiv"), "r": np.add.reduce(f32, axis=1)}
			for k, w in want.items():
			    assert o[k].dtype == w.dtype and o[k].dtype.isnative, (k, o[k].dtype, w.dtype)
			    assert np.array_equal(o[k][...], w, equal_nan=True), (k, o[k][...], w)
			b = b64.copy()
			np.add(l64, 1.0, out=b, casting="equiv")
			i = f32.copy()
			np.add.accumulate(i, axis=0, out=i)
			for k, w in (("float64", b), ("float32", i)):
			    assert be[k].dtype == w.dtype and be[k].dtype.byteorder == ">", (k, be[k].dtype)
			    assert np.array_equal(be[k][...], w, equal_nan=True), (k, be[k][...], w)
		EOF
	done
}

@test "chunked and compressed, compact and contiguous inputs read alike" {
	fixture lay.h5
	h5u call add lay.h5:/chunked lay.h5:/contig -o o.h5:/a
	h5u call multiply lay.h5:/compact 2 -o o.h5:/b
	np check add lay.h5:/chunked lay.h5:/contig -o o.h5:/a :: \
		check multiply lay.h5:/compact 2 -o o.h5:/b
}

@test "NEP 50: a literal takes the array's dtype when it fits its kind" {
	fixture n.h5
	local -a calls=(
		"add n.h5:/i8 2"                     # int8
		"multiply n.h5:/f32 2.5"             # float32
		"multiply n.h5:/i32 2.5"             # float64
		"add n.h5:/b 1"                      # int64
		"add n.h5:/i8 2.5"                   # float64
		"add n.h5:/h 1e6"                    # float16, inf
		"multiply n.h5:/f32 1e40"            # float32, inf
		"add n.h5:/u8 255"                   # uint8, wraps
		"add n.h5:/u64 18446744073709551615" # uint64
		"multiply n.h5:/i16 true"            # int16
		"floor_divide n.h5:/i8 -2"           # int8
		"add n.h5:/i8 -128"                  # int8
		"logical_or n.h5:/b false"           # bool
		"subtract 1 n.h5:/u8"                # uint8
	)
	local c k=0 jobs=()
	for c in "${calls[@]}"; do
		k=$((k + 1))
		# shellcheck disable=SC2086
		h5u call $c -o o.h5:/c$k
		# shellcheck disable=SC2206
		jobs+=(:: check $c -o o.h5:/c$k)
	done
	np "${jobs[@]:1}" :: \
		stored o.h5:/c1 int8 :: stored o.h5:/c2 float32 :: stored o.h5:/c3 float64 :: \
		stored o.h5:/c4 int64 :: stored o.h5:/c5 float64 :: stored o.h5:/c6 float16 :: \
		stored o.h5:/c7 float32 :: stored o.h5:/c8 uint8 :: stored o.h5:/c9 uint64 :: \
		stored o.h5:/c10 int16 :: stored o.h5:/c11 int8 :: stored o.h5:/c13 bool
}

@test "NEP 50: an integer literal out of the array's range is an error" {
	fixture n.h5
	snapshot
	run --separate-stderr h5u call add n.h5:/i8 300 -o o.h5:/a
	assert_error 2 "call add: Python integer 300 out of bounds for int8"
	run --separate-stderr h5u call add n.h5:/u8 -1 -o o.h5:/a
	assert_error 2 "call add: Python integer -1 out of bounds for uint8"
	run --separate-stderr h5u call add n.h5:/i8 -129 -o o.h5:/a
	assert_error 2 "call add: Python integer -129 out of bounds for int8"
	run --separate-stderr h5u call multiply n.h5:/i16 32768 -o o.h5:/a
	assert_error 2 "call multiply: Python integer 32768 out of bounds for int16"
	run --separate-stderr h5u call add n.h5:/i64 9223372036854775808 -o o.h5:/a
	assert_error 2 "call add: Python integer 9223372036854775808 out of bounds for int64"
	run --separate-stderr h5u call subtract -1 n.h5:/u64 -o o.h5:/a
	assert_error 2 "call subtract: Python integer -1 out of bounds for uint64"
	assert_unchanged
}

@test "NEP 50: comparisons take an integer literal out of the array's range exactly (NumPy 2)" {
	fixture n.h5
	# NumPy 2 refuses `uint8 + -1` but compares `uint8 == -1` (all False) and
	# `int8 < 300` (all True): its special_integer_comparisons loops.
	local uf operand literal k=0 jobs=()
	for uf in equal not_equal less less_equal greater greater_equal; do
		for operand in "n.h5:/u8 -1" "n.h5:/i8 300" "-129 n.h5:/i8" "n.h5:/i16 -32769" \
			"n.h5:/u64 -1" "n.h5:/i64 9223372036854775808" "n.h5:/u64 18446744073709551616" \
			"n.h5:/u8 255"; do
			k=$((k + 1))
			# shellcheck disable=SC2086
			h5u call "$uf" $operand -o o.h5:/c$k
			# shellcheck disable=SC2206
			jobs+=(:: check "$uf" $operand -o o.h5:/c$k)
		done
	done
	np "${jobs[@]:1}"
	run h5u call less_equal n.h5:/u8 -1
	assert_output $'False\nFalse\nFalse\nFalse'
	run h5u eval -i u=n.h5:/u8 -i i=n.h5:/i8 '(u != -1) & (300 > i) & ~(i == -129)'
	assert_output $'True\nTrue\nTrue\nTrue'
	# a bool array meets the literal as int64, which 2**64 does not fit
	run --separate-stderr h5u call equal n.h5:/b 18446744073709551616
	assert_error 2 "call equal: Python int too large to convert to C long"
}

@test "NEP 50: an integer literal beyond 64 bits stays an integer: a float array takes it, an integer array refuses it" {
	fixture n.h5
	# NumPy 2 keeps 10**20 a Python int: float32 + 10**20 is float32, while
	# int32 + 10**20 fails converting it through a C long (it used to be
	# read as the float 1e20, so int32 + 10**20 was a float64 array).
	h5u call add n.h5:/f32 100000000000000000000 -o o.h5:/f
	h5u call multiply n.h5:/h -18446744073709551617 -o o.h5:/h
	np check add n.h5:/f32 100000000000000000000 -o o.h5:/f :: stored o.h5:/f float32 :: \
		check multiply n.h5:/h -18446744073709551617 -o o.h5:/h :: stored o.h5:/h float16
	snapshot
	local ufunc operand literal
	while read -r ufunc operand literal; do
		run /usr/bin/python3 -c '
import sys, h5py, numpy as np
np._set_promotion_state("weak")   # NumPy 2 rules (NEP 50)
ufunc, (f, path), literal = getattr(np, sys.argv[1]), sys.argv[2].split(":"), int(sys.argv[3])
try:
    ufunc(h5py.File(f)[path][()], literal)
except OverflowError as exc:
    sys.exit(0 if str(exc) == "Python int too large to convert to C long" else f"NumPy says {exc}")
sys.exit("NumPy computes it")' "$ufunc" "$operand" "$literal"
		assert_success
		run --separate-stderr h5u call "$ufunc" "$operand" "$literal" -o o.h5:/a
		assert_error 2 "call $ufunc: Python int too large to convert to C long"
		# and the tests' reference (np.py, h5ref.py) reads the literal as NumPy 2 does
		run np check "$ufunc" "$operand" "$literal" -o o.h5:/a
		assert_failure
		assert_output --partial "OverflowError: Python int too large to convert to C long"
	done <<-'EOF'
		add n.h5:/i32 100000000000000000000
		subtract n.h5:/u64 18446744073709551616
		maximum n.h5:/i8 -9223372036854775809
	EOF
	# literals alone: the default int64 cannot hold it
	run --separate-stderr h5u call add 100000000000000000000 1 -o o.h5:/a
	assert_error 2 "call add: Python int too large to convert to C long"
	run np check add 100000000000000000000 1 -o o.h5:/a
	assert_failure
	assert_output --partial "OverflowError: Python int too large to convert to C long"
	assert_unchanged
}

@test "literals alone take NumPy's default dtypes" {
	h5u call add 2 3 -o o.h5:/a
	h5u call add 2 2.5 -o o.h5:/b
	h5u call add true 1 -o o.h5:/c
	h5u call logical_not true -o o.h5:/d
	h5u call add true false -o o.h5:/e
	h5u call floor 7 -o o.h5:/f
	np check add 2 3 -o o.h5:/a :: stored o.h5:/a int64 "()" :: \
		check add 2 2.5 -o o.h5:/b :: stored o.h5:/b float64 :: \
		check add true 1 -o o.h5:/c :: stored o.h5:/c int64 :: \
		check logical_not true -o o.h5:/d :: stored o.h5:/d bool :: \
		check add true false -o o.h5:/e :: stored o.h5:/e bool :: \
		check floor 7 -o o.h5:/f :: stored o.h5:/f int64
}

@test "int64 and uint64 compare exactly (NumPy 2)" {
	fixture n.h5
	local uf jobs=()
	for uf in less less_equal equal not_equal greater greater_equal; do
		h5u call "$uf" n.h5:/i64 n.h5:/u64 -o o.h5:/"$uf"
		h5u call "$uf" n.h5:/u64 n.h5:/i8 -o o.h5:/"${uf}_8"
		jobs+=(:: check "$uf" n.h5:/i64 n.h5:/u64 -o o.h5:/"$uf"
			:: check "$uf" n.h5:/u64 n.h5:/i8 -o o.h5:/"${uf}_8")
	done
	np "${jobs[@]:1}"
	# 2**63-1 < 2**63 although both round to the same float64.
	run h5u call less n.h5:/i64 n.h5:/u64
	assert_output $'True\nTrue\nFalse\nFalse'
	run h5u call equal n.h5:/i64 n.h5:/u64
	assert_output $'False\nFalse\nTrue\nTrue'
}

@test "floor, ceil and trunc keep bool and integer dtypes (NumPy 2)" {
	fixture n.h5 t.h5
	h5u call floor n.h5:/i16 -o o.h5:/a
	h5u call ceil n.h5:/u8 -o o.h5:/b
	h5u call trunc n.h5:/b -o o.h5:/c
	h5u call floor t.h5:/uint64 -o o.h5:/d
	h5u call ceil t.h5:/float16 -o o.h5:/e
	np check floor n.h5:/i16 -o o.h5:/a :: stored o.h5:/a int16 :: \
		check ceil n.h5:/u8 -o o.h5:/b :: stored o.h5:/b uint8 :: \
		check trunc n.h5:/b -o o.h5:/c :: stored o.h5:/c bool :: \
		check floor t.h5:/uint64 -o o.h5:/d :: stored o.h5:/d uint64 :: \
		check ceil t.h5:/float16 -o o.h5:/e :: stored o.h5:/e float16
}

@test "bitwise_count gives uint8 counts of |x| (NumPy 2)" {
	fixture n.h5 t.h5
	h5u call bitwise_count n.h5:/i16 -o o.h5:/a
	h5u call bitwise_count n.h5:/u64 -o o.h5:/b
	h5u call bitwise_count n.h5:/b -o o.h5:/c
	h5u call bitwise_count t.h5:/int64 -o o.h5:/d
	np check bitwise_count n.h5:/i16 -o o.h5:/a :: stored o.h5:/a uint8 :: \
		check bitwise_count n.h5:/u64 -o o.h5:/b :: \
		check bitwise_count n.h5:/b -o o.h5:/c :: \
		check bitwise_count t.h5:/int64 -o o.h5:/d
	run h5u call bitwise_count n.h5:/i16
	assert_output $'3\n0\n2\n1'
}

@test "datasets of other types are refused by name and type" {
	fixture bad.h5
	snapshot
	run --separate-stderr h5u call add bad.h5:/string 1 -o o.h5:/a
	assert_error 2 "call add: 'bad.h5:/string' has unsupported type (string)"
	run --separate-stderr h5u call add bad.h5:/vstring 1 -o o.h5:/a
	assert_error 2 "call add: 'bad.h5:/vstring' has unsupported type (string)"
	run --separate-stderr h5u call add bad.h5:/vlen 1 -o o.h5:/a
	assert_error_match 2 "call add: 'bad\.h5:/vlen' has unsupported type \(.*(vlen|variable).*\)"
	run --separate-stderr h5u call add bad.h5:/enum 1 -o o.h5:/a
	assert_error_match 2 "call add: 'bad\.h5:/enum' has unsupported type \(.*enum.*\)"
	run --separate-stderr h5u call add bad.h5:/compound 1 -o o.h5:/a
	assert_error_match 2 "call add: 'bad\.h5:/compound' has unsupported type \(.*compound.*\)"
	run --separate-stderr h5u call add bad.h5:/opaque 1 -o o.h5:/a
	assert_error_match 2 "call add: 'bad\.h5:/opaque' has unsupported type \(.*opaque.*\)"
	run --separate-stderr h5u call add bad.h5:/array 1 -o o.h5:/a
	assert_error_match 2 "call add: 'bad\.h5:/array' has unsupported type \(.*array.*\)"
	run --separate-stderr h5u call add bad.h5:/longdouble 1 -o o.h5:/a
	assert_error_match 2 "call add: 'bad\.h5:/longdouble' has unsupported type \(.+\)"
	run --separate-stderr h5u call add bad.h5:/null 1 -o o.h5:/a
	assert_error_match 2 "call add: .*'bad\.h5:/null'.*"
	assert_unchanged
}

@test "an unsupported dataset in a later step is found before any write" {
	fixture bad.h5 n.h5
	cat >r.yaml <<-'EOF'
		steps:
		  - ufunc: add
		    in: [n.h5:/i8, 1]
		    out: o.h5:/a
		  - ufunc: add
		    in: [bad.h5:/enum, 1]
		    out: n.h5:/b
	EOF
	snapshot
	run --separate-stderr h5u run r.yaml
	assert_error_match 2 "r\.yaml:6:[0-9]+: (step 2 \(ufunc add\): )?'bad\.h5:/enum' has unsupported type \(.*enum.*\)"
	assert_unchanged
}
