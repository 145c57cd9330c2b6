#!/usr/bin/env bats
# 38-fuse.bats - the optimizer (fuse.c): which steps become one pass, and
# that a fused plan gives NumPy's results, on no launcher and 1 to 4 ranks.
# `h5ufunc check` shows the decisions ("step N: ..., fused into step M");
# `--json` shows what each pass read and wrote.  Cases: a chain of
# elementwise steps of one shape (intermediates never written), a
# reduction fed by the pass that computes its input, steps that must not
# fuse (another shape, a step that reads back a cast in-place result, a
# step that overwrites what the pass reads, a reduction along the split
# axis), and --memory bounding how far a chain fuses.

load helper

setup_file() {
	fixtures <<-'EOF'
		make f.h5:/u float64 5,3
		make f.h5:/v float64 5,3
		make f.h5:/r float64 3
		make f.h5:/i int32 5,3 lo=-50 hi=50
		make f.h5:/t float64 2,3
		make f.h5:/w float64 40,64
	EOF
}

setup() {
	fixture f.h5
}

# run_everywhere RECIPE [FILE...]: run RECIPE in r0 (no launcher) and
# r1..r4 (mpirun -n N), each in its own copy of f.h5 and the FILEs.
run_everywhere() {
	local n
	for n in 0 1 2 3 4; do
		mkdir "r$n"
		cp f.h5 "$@" "r$n/"
		if ((n == 0)); then
			(cd "r$n" && h5u run "$1" --json >s.json) || fail "no launcher: $1 failed"
		else
			(cd "r$n" && mpi "$n" h5ufunc run "$1" --json >s.json) || fail "$n ranks: $1 failed"
		fi
	done
}

# in_each COMMAND...: run COMMAND in r0..r4; fails naming the first
# directory where it fails.
in_each() {
	local n
	for n in 0 1 2 3 4; do
		(cd "r$n" && "$@") || fail "r$n: $1 $2 ... failed"
	done
}

# json_steps FILE PYTHON: run PYTHON with steps = the --json summary's steps.
json_steps() {
	/usr/bin/python3 -c "
import json, sys
steps = json.load(open(sys.argv[1]))['steps']
$2" "$1"
}

@test "a chain of elementwise steps of one shape is one pass: NumPy's result, intermediates never written" {
	cat >c.yaml <<-'EOF'
		inputs: {u: f.h5:/u, v: f.h5:/v}
		steps:
		  - {ufunc: multiply, in: [u, u], out: a}
		  - {ufunc: multiply, in: [v, v], out: b}
		  - {expr: a + b, out: c}
		  - {ufunc: sqrt, in: c, out: o.h5:/w}
	EOF
	run --separate-stderr h5u check c.yaml
	assert_success
	assert_equal "$(fused_steps | tr '\n' ' ')" "2 3 4 "
	assert_line "step 2: ufunc multiply, fused into step 1"
	run_everywhere c.yaml
	in_each np let a multiply f.h5:/u f.h5:/u :: let b multiply f.h5:/v f.h5:/v :: let c add a b :: \
		check sqrt c -o o.h5:/w
	# u and v read once, only the 15 float64 of w written
	json_steps r0/s.json 'assert (steps[0]["bytes_read"], steps[0]["bytes_written"]) == (240, 120), steps[0]
assert all(s["fused_into"] == 1 for s in steps[1:]), steps'
	json_steps r3/s.json 'assert steps[0]["bytes_written"] == 120, steps[0]'
}

@test "a reduction along a kept axis joins the pass that computes its input; along the split axis it does not" {
	cat >c.yaml <<-'EOF'
		inputs: {u: f.h5:/u}
		steps:
		  - {expr: u * 2 - 1, out: y}
		  - {reduce: add, in: y, axis: 1, out: o.h5:/rows}
		  - {reduce: maximum, in: y, axis: 0, out: o.h5:/cols}
	EOF
	run --separate-stderr h5u check c.yaml
	assert_success
	assert_equal "$(fused_steps)" 2
	refute_line --partial "step 3: reduce maximum, fused"
	run_everywhere c.yaml
	in_each /usr/bin/python3 -c '
import h5py, numpy as np
u = h5py.File("f.h5")["u"][()]
o = h5py.File("o.h5")
y = u * 2 - 1
for name, want in (("rows", np.add.reduce(y, axis=1)), ("cols", np.maximum.reduce(y, axis=0))):
    got = o[name][()]
    assert got.dtype == want.dtype and got.shape == want.shape, (name, got.dtype, got.shape)
    assert np.array_equal(got, want), (name, got, want)
'
}

@test "steps of another shape are a pass of their own" {
	cat >c.yaml <<-'EOF'
		inputs: {u: f.h5:/u, r: f.h5:/r}
		steps:
		  - {ufunc: multiply, in: [r, 3], out: s}
		  - {ufunc: add, in: [u, s], out: o.h5:/x}
		  - {ufunc: negative, in: o.h5:/x, out: o.h5:/y}
	EOF
	run --separate-stderr h5u check c.yaml
	assert_success
	assert_equal "$(fused_steps)" 3
	run_everywhere c.yaml
	in_each np let s multiply f.h5:/r 3 :: check add f.h5:/u s -o o.h5:/x :: let x add f.h5:/u s :: \
		check negative x -o o.h5:/y
}

@test "a step that reads back a cast in-place result, or writes another view of what the pass reads, is not fused" {
	cp f.h5 g.h5
	cat >c.yaml <<-'EOF'
		inputs: {i: g.h5:/i, u: f.h5:/u}
		steps:
		  - {ufunc: multiply, in: [u, 10], out: i, casting: unsafe}
		  - {ufunc: add, in: [i, 1], out: o.h5:/j}
		  - {ufunc: negative, in: u, out: o.h5:/k}
		  - {ufunc: multiply, in: ["f.h5:/u[:, 0:3]", 2], out: o.h5:/m}
		  - {ufunc: add, in: [o.h5:/k, 1], out: "f.h5:/u[:, 0:3]"}
	EOF
	run --separate-stderr h5u check c.yaml
	assert_success
	# 2 reads i as int32, after the cast: a pass of its own, which 3 and 4
	# join; 5 writes a view of u, which that pass reads: not fused
	assert_equal "$(fused_steps | tr '\n' ' ')" "3 4 "
	assert_line "step 3: ufunc negative, fused into step 2"
	run_everywhere c.yaml g.h5
	in_each /usr/bin/python3 -c '
import h5py, numpy as np
u = h5py.File("../f.h5")["u"][()]
i = np.multiply(u, 10).astype(np.int32)
want = {"g.h5:i": i, "o.h5:j": np.add(i, np.int32(1)), "o.h5:k": np.negative(u),
        "o.h5:m": np.multiply(u, 2.0), "f.h5:u": np.add(np.negative(u), 1.0)}
for ref, w in want.items():
    name, path = ref.split(":")
    got = h5py.File(name)[path][()]
    assert got.dtype == w.dtype and np.array_equal(got, w), (ref, got, w)
'
}

@test "--memory bounds a fused pass: fewer steps fuse as the budget shrinks, results unchanged" {
	cat >c.yaml <<-'EOF'
		inputs: {w: f.h5:/w}
		steps:
		  - {ufunc: multiply, in: [w, w], out: a}
		  - {ufunc: add, in: [a, 1], out: b}
		  - {ufunc: sqrt, in: b, out: c}
		  - {ufunc: subtract, in: [c, w], out: o.h5:/d}
	EOF
	local m fused counts=() last=-1
	for m in 1K 1536 2K 3K 4K 256M; do
		rm -f o.h5
		run --separate-stderr h5u check --memory "$m" c.yaml
		((status == 0)) || continue
		fused=$(fused_steps | wc -l)
		((fused >= last)) || fail "--memory $m fuses $fused steps, a smaller budget fused $last"
		last=$fused
		counts+=("$fused")
		h5u run --memory "$m" c.yaml || fail "--memory $m: the run failed"
		np let a multiply f.h5:/w f.h5:/w :: let b add a 1 :: let c sqrt b :: \
			check subtract c f.h5:/w -o o.h5:/d || fail "--memory $m: not NumPy's result"
	done
	# 1K holds no row of every array: that budget plans nothing
	((${#counts[@]} >= 4)) || fail "too few budgets planned: ${counts[*]}"
	((counts[0] < 3 && last == 3)) || fail "fused steps by budget: ${counts[*]}"
}

@test "a fused pass pays for the chunk cache of what it writes in place as it is finally laid out: a step merged into an earlier one leaves no cache its own layout kept (--json's chunk_cache), boxes of whole chunk rows none, boxes that cut them one chunk row; NumPy's bits" {
	/usr/bin/python3 -c '
import h5py, numpy as np
with h5py.File("l.h5", "w", libver="latest") as f:   # not by runs: through HDF5
    f.create_dataset("a", data=np.random.default_rng(3).standard_normal((512, 2048)), chunks=(256, 64))
'
	printf 'inputs: {a: l.h5:/a}\nsteps:\n  - expr: a * 2\n    out: x\n  - expr: x + a\n    out: a\n' >c.yaml
	local m seen=
	# step 2 alone (x and a read, a written) cuts the chunk rows under
	# 9M and 10M and keeps a cache; the fused pass (a read and written)
	# takes boxes of whole chunk rows there, and cuts them under 7M
	for m in 7M 9M 10M; do
		run --separate-stderr h5u check --json --memory "$m" c.yaml
		assert_success
		echo "$output" >"c$m.json"
		run /usr/bin/python3 -c '
import json, re, sys
memory = int(sys.argv[2][:-1]) << 20
steps = json.load(open(sys.argv[1]))["steps"]
assert steps[1].get("fused_into") == 1, steps
lines = int(re.search(r"boxes \((\d+), 2048\)", steps[0]["plan"]).group(1))
(a,) = [o for s in steps for o in s["outputs"] if o["operand"] == "l.h5:/a"]
if lines % 256 == 0:   # boxes of whole chunk rows: no chunk stays in a cache
    assert "chunk_cache" not in a, (lines, a)
    print("whole")
else:                  # one chunk row of /a at least, within the budget
    assert 256 * 2048 * 8 <= a["chunk_cache"] <= memory, (lines, a)
    print("cut")
' "c$m.json" "$m"
		[[ $status == 0 ]] || fail "--memory $m: $output"$'\n'"$(cat "c$m.json")"
		seen+=" $output"
		cp l.h5 "r$m.h5"
		sed "s/l\.h5/r$m.h5/" c.yaml >"r$m.yaml"
		h5u run --memory "$m" "r$m.yaml" || fail "--memory $m: the run failed"
		/usr/bin/python3 -c '
import h5py, numpy as np, sys
a = h5py.File("l.h5", "r")["a"][...]
got = h5py.File(sys.argv[1], "r")["a"][...]
assert np.array_equal(got, a * 2 + a), sys.argv[1]
' "r$m.h5" || fail "--memory $m: not NumPy's result"
	done
	[[ $seen == " cut whole whole" ]] || fail "boxes by budget:$seen"
}
