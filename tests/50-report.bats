#!/usr/bin/env bats
# 50-report.bats - what a run says besides its results: the progress meter
# on stderr (rank 0 only; on by default on a terminal, forced by --progress,
# silenced by --no-progress and -q; redrawn at most ten times a second, one
# final line per step) and the --json run summary on stdout (one JSON object,
# valid for python3 -m json.tool, results as JSON compared with NumPy, bytes
# summed over ranks and identical for every rank count, nothing on stdout
# after a failure).

load helper

setup_file() {
	fixtures <<-'EOF'
		make f.h5:/x float64 4 data=[1,2,3,4]
		make f.h5:/m int32 3,4 fill=range
		make f.h5:/b bool 3 data=[True,False,True]
		make f.h5:/sp float64 3 data=[nan,inf,-inf]
		make f.h5:/neg int16 4 data=[2,1,-1,3]
		make f.h5:/h float32 5,3
		make big.h5:/b float64 4000,500
		make big.h5:/w float64 300,1100
	EOF
}

setup() {
	fixture f.h5
}

# A recipe of three steps: an expression kept by name, a printed reduce, an
# elementwise step written to a new file.
three_steps() {
	cat >r.yaml <<-'EOF'
		inputs: {u: f.h5:/x}
		steps:
		  - {expr: (u - 0.5) * 2.5, out: a}
		  - {reduce: maximum, in: a}
		  - {ufunc: add, in: [u, a], out: o.h5:/y}
	EOF
}

# meter_finals: the lines the meter leaves on stderr (the last redraw of
# each line), one per line of $stderr.
meter_finals() {
	printf '%s\n' "$stderr" | awk -F'\r' 'NF { print $NF }'
}

# pyjson FILE CODE: run CODE with d = the JSON object of FILE, numpy as np,
# ds(REF) = a dataset as NumPy reads it, and same(JSON, ARRAY) asserting that
# a JSON result equals a NumPy value (shape, values, NaN equal to NaN).
pyjson() {
	/usr/bin/python3 - "$@" <<-'PY'
		import json, sys
		import numpy as np, h5py
		np._set_promotion_state('weak')
		np.seterr(all='ignore')
		d = json.load(open(sys.argv[1]))
		def ds(ref):
		    name, path = ref.split(':/', 1)
		    with h5py.File(name, 'r') as f:
		        return f['/' + path][()]
		def fromjson(v):
		    if isinstance(v, list):
		        return [fromjson(x) for x in v]
		    return float(v) if isinstance(v, str) else v
		def same(got, want):
		    want = np.asarray(want)
		    g = np.asarray(fromjson(got), dtype=want.dtype)
		    assert g.shape == want.shape, (g.shape, want.shape)
		    if want.dtype.kind == 'f':
		        assert np.array_equal(g, want, equal_nan=True), (g, want)
		    else:
		        assert np.array_equal(g, want), (g, want)
		    if want.dtype == bool:
		        assert all(isinstance(x, bool) for x in np.ravel(np.asarray(got, dtype=object))), got
		exec(sys.argv[2])
	PY
}

# json_valid FILE: python3 -m json.tool accepts FILE as one JSON document.
json_valid() {
	/usr/bin/python3 -m json.tool "$1" >/dev/null || fail "not valid JSON:"$'\n'"$(cat "$1")"
}

# ---- progress -----------------------------------------------------------

@test "without --progress nothing is written on stderr (not a terminal)" {
	three_steps
	run --separate-stderr h5u run r.yaml
	assert_success
	assert_stderr_empty
	run --separate-stderr h5u call add f.h5:/x 1
	assert_success
	assert_stderr_empty
	run --separate-stderr h5u reduce add f.h5:/m --axis all --json
	assert_success
	assert_stderr_empty
	run --separate-stderr mpi 2 h5ufunc call add f.h5:/x 1 -o o2.h5:/y
	assert_success
	[[ $stderr != *"step "* ]] || fail "a meter on stderr: $stderr"
}

@test "--progress draws one final line per step, ended with a newline" {
	three_steps
	run --separate-stderr h5u run r.yaml
	local plain=$output
	rm -f o.h5
	run --separate-stderr h5u run r.yaml --progress
	assert_success
	assert_equal "$output" "$plain"
	local finals
	finals=$(meter_finals)
	assert_equal "$(wc -l <<<"$finals")" 3
	local re='^step ([0-9]+)/3 ([a-z]+) (.+): [0-9.]+ (B|KiB|MiB|GiB) in [0-9]+\.[0-9] s( \([0-9.]+ (B|KiB|MiB|GiB)/s\))?$'
	local i=0 line
	while IFS= read -r line; do
		i=$((i + 1))
		[[ $line =~ $re ]] || fail "meter line '$line' is not of the form 'step N/M VERB NAME: BYTES in S s (RATE/s)'"
		assert_equal "${BASH_REMATCH[1]}" "$i"
	done <<<"$finals"
	[[ $finals == *"step 1/3 expr (u - 0.5) * 2.5: "* ]] || fail "step 1 not named by its expression: $finals"
	[[ $finals == *"step 2/3 reduce maximum: "* ]] || fail "step 2: $finals"
	[[ $finals == *"step 3/3 ufunc add: 96 B in "* ]] || fail "step 3 (32 + 32 read, 32 written): $finals"
	# stderr is meter lines only, each ended by a newline.
	rm -f o.h5
	h5u run r.yaml --progress >/dev/null 2>err.txt
	[[ $(tr -d '\r' <err.txt | grep -vc '^step ') -eq 0 ]] || fail "other lines on stderr: $(cat err.txt)"
	assert_equal "$(tail -c 1 err.txt | od -An -tx1 | tr -d ' ')" 0a
}

@test "--no-progress and -q silence the meter; -q --progress draws it" {
	run --separate-stderr h5u call add f.h5:/x 1 -o o.h5:/y --no-progress
	assert_success
	assert_stderr_empty
	run --separate-stderr h5u call add f.h5:/x 1 -o o.h5:/y --overwrite -q
	assert_success
	assert_stderr_empty
	run --separate-stderr h5u call add f.h5:/x 1 -o o.h5:/y --overwrite -q --progress
	assert_success
	[[ $(meter_finals) == "step 1/1 ufunc add: 64 B in "* ]] || fail "no meter: $stderr"
}

@test "a printed result is not mixed with the meter" {
	run --separate-stderr h5u call add f.h5:/x 1
	local plain=$output
	run --separate-stderr h5u call add f.h5:/x 1 --progress
	assert_success
	assert_equal "$output" "$plain"
	[[ $(meter_finals) == "step 1/1 ufunc add: "* ]] || fail "no meter: $stderr"
}

@test "on a terminal the meter is on by default, and off with --no-progress or -q" {
	command -v script >/dev/null || skip "script(1) is not installed"
	local cmd="h5ufunc call sqrt f.h5:/h -o o.h5:/y --overwrite"
	run script -qec "$cmd" /dev/null
	assert_success
	[[ $output == *"step 1/1 ufunc sqrt: "*" in "* ]] || fail "no meter on a terminal: $output"
	run script -qec "$cmd --no-progress" /dev/null
	assert_success
	assert_output ''
	run script -qec "$cmd -q" /dev/null
	assert_success
	assert_output ''
	# stderr a terminal, stdout a file: the result text is unchanged.
	run script -qec "h5ufunc call add f.h5:/x 1 >out.txt" /dev/null
	assert_success
	[[ $output == *"step 1/1 ufunc add: "* ]] || fail "no meter on a terminal: $output"
	run --separate-stderr h5u call add f.h5:/x 1
	assert_equal "$(cat out.txt)" "$output"
}

@test "the meter redraws at most ten times a second, percentages rising below 100" {
	fixture big.h5
	local t0 t1
	t0=$(date +%s.%N)
	run --separate-stderr h5u call arctan2 big.h5:/b 2.0 -o o.h5:/y --memory 64K --progress --json
	t1=$(date +%s.%N)
	assert_success
	json_valid <(printf '%s' "$output")
	printf '%s' "$output" >s.json
	printf '%s' "$stderr" >meter.txt
	/usr/bin/python3 - "$t0" "$t1" <<-'PY'
		import json, re, sys
		elapsed = float(sys.argv[2]) - float(sys.argv[1])
		text = open('meter.txt', encoding='utf-8', newline='').read()
		lines = text.rstrip('\n').split('\n')
		assert len(lines) == 1, lines
		draws = [d.rstrip() for d in lines[0].split('\r') if d.strip()]
		redraws = draws[:-1]
		assert len(redraws) <= 10 * elapsed + 2, (len(redraws), elapsed)
		pcts = []
		for d in redraws:
		    m = re.match(r'^step 1/1 ufunc arctan2: [0-9.]+ (B|KiB|MiB) of ([0-9.]+ (B|KiB|MiB)) \(([0-9]+)%\)(, [0-9.]+ (B|KiB|MiB|GiB)/s, [0-9]+:[0-9]{2} left)?$', d)
		    assert m, d
		    pcts.append(int(m.group(4)))
		assert pcts == sorted(pcts) and all(p <= 99 for p in pcts), pcts
		# The final line has the exact total of the summary.
		s = json.load(open('s.json'))['steps'][0]
		n = s['bytes_read'] + s['bytes_written']
		want = '%.1f MiB' % (n / 2**20)
		assert re.match(r'^step 1/1 ufunc arctan2: %s in [0-9.]+ s' % re.escape(want), draws[-1]), (draws[-1], want)
		# 16 MB read and written once.
		assert n == 2 * 4000 * 500 * 8, n
	PY
}

@test "under mpirun the meter is drawn by rank 0 only" {
	three_steps
	run --separate-stderr mpi 3 h5ufunc run r.yaml --progress
	assert_success
	local finals
	finals=$(meter_finals | grep '^step ')
	assert_equal "$(wc -l <<<"$finals")" 3
	[[ $finals == *"step 3/3 ufunc add: 96 B in "* ]] || fail "bytes not summed over ranks: $finals"
}

# ---- --json ---------------------------------------------------------------

@test "--json: a one-liner prints one object with the result and the run summary" {
	run --separate-stderr h5u call add f.h5:/x 1 --json
	assert_success
	assert_stderr_empty
	printf '%s\n' "$output" >s.json
	json_valid s.json
	pyjson s.json '
same(d["result"], np.add(ds("f.h5:/x"), 1))
assert list(d)[0] == "result", list(d)
assert d["command"] == "call" and d["ranks"] == 1 and d["memory"] == 256 * 2**20, d
assert isinstance(d["h5ufunc"], str)
[s] = d["steps"]
assert s["step"] == 1 and s["verb"] == "ufunc" and s["ufunc"] == "add" and s["loop"] == "dd->d", s
assert s["inputs"] == [
    {"operand": "f.h5:/x", "kind": "dataset", "shape": [4], "dtype": "float64"},
    {"operand": "1", "kind": "literal", "shape": [], "dtype": "float64"}], s["inputs"]
assert s["outputs"] == [{"operand": None, "kind": "printed", "shape": [4], "dtype": "float64"}], s["outputs"]
# 32 bytes read, 32 written to the result, read back once to print it
assert (s["bytes_read"], s["bytes_written"]) == (64, 32), s
assert "result" not in s
assert isinstance(s["seconds"], float) and s["seconds"] >= 0
t = d["totals"]
assert (t["bytes_read"], t["bytes_written"]) == (64, 32) and t["seconds"] >= s["seconds"], t
'
}

@test "--json: results of reduce, accumulate, two outputs, bools, nan and inf" {
	local cases=(
		"reduce add f.h5:/m --axis all|same(d['result'], np.add.reduce(ds('f.h5:/m'), axis=None))"
		"reduce maximum f.h5:/m --axis 1|same(d['result'], np.maximum.reduce(ds('f.h5:/m'), axis=1))"
		"accumulate multiply f.h5:/m --axis 0|same(d['result'], np.multiply.accumulate(ds('f.h5:/m'), axis=0))"
		"call divmod f.h5:/m 3|q, r = np.divmod(ds('f.h5:/m'), 3); assert len(d['result']) == 2; same(d['result'][0], q); same(d['result'][1], r)"
		"call logical_not f.h5:/b|same(d['result'], np.logical_not(ds('f.h5:/b')))"
		"call add f.h5:/sp 1|same(d['result'], ds('f.h5:/sp') + 1); assert d['result'] == ['nan', 'inf', '-inf']"
		"call multiply 2 21|same(d['result'], np.multiply(2, 21))"
		"eval -i a=f.h5:/x sqrt(a)+1|same(d['result'], np.sqrt(ds('f.h5:/x')) + 1); assert d['steps'][0]['expr'] == 'sqrt(a)+1'"
	)
	local c
	for c in "${cases[@]}"; do
		# shellcheck disable=SC2086
		run --separate-stderr h5u ${c%%|*} --json
		[[ $status -eq 0 ]] || fail "h5ufunc ${c%%|*} --json: status $status: $stderr"
		printf '%s\n' "$output" >s.json
		json_valid s.json
		pyjson s.json "${c#*|}" || fail "h5ufunc ${c%%|*} --json:"$'\n'"$output"
	done
}

@test "--json: written results are not in the summary, and the files are right" {
	run --separate-stderr h5u call add f.h5:/x 1 -o o.h5:/y --json
	assert_success
	printf '%s\n' "$output" >s.json
	json_valid s.json
	pyjson s.json '
assert "result" not in d
[s] = d["steps"]
assert s["outputs"] == [{"operand": "o.h5:/y", "kind": "new file", "shape": [4], "dtype": "float64"}], s
assert (s["bytes_read"], s["bytes_written"]) == (32, 32), s
'
	np check add f.h5:/x 1 -o o.h5:/y
	run --separate-stderr h5u eval -i a=f.h5:/x 'o.h5:/z = a * 2' --json
	assert_success
	printf '%s\n' "$output" >s.json
	json_valid s.json
	pyjson s.json '
assert "result" not in d and d["command"] == "eval"
[s] = d["steps"]
assert s["verb"] == "expr" and s["expr"] == "a * 2", s
assert s["outputs"][0]["operand"] == "o.h5:/z" and s["outputs"][0]["kind"] == "new dataset", s
'
	run --separate-stderr h5u call add f.h5:/x 1 -o f.h5:/x --json
	assert_success
	printf '%s\n' "$output" >s.json
	pyjson s.json 'assert d["steps"][0]["outputs"][0]["kind"] == "in place", d'
}

@test "check and --json call a dataset that replaces an earlier step's in a new file, or an existing one (--overwrite), replaced: before the run and after it" {
	cat >r.yaml <<-'EOF'
		steps:
		  - {ufunc: negative, in: [f.h5:/x], out: o.h5:/y}
		  - {ufunc: add, in: [f.h5:/x, 1], out: o.h5:/y, overwrite: true}
	EOF
	run --separate-stderr h5u check r.yaml
	assert_success
	assert_line "  out o.h5:/y float64 (4,), new file"
	assert_line "  out o.h5:/y float64 (4,), replaced"
	[[ ! -e o.h5 ]] || fail "check wrote o.h5"
	local cmd
	for cmd in check run; do
		run --separate-stderr h5u "$cmd" r.yaml --json
		assert_success
		printf '%s\n' "$output" >s.json
		pyjson s.json '
kinds = [[o["kind"] for o in s["outputs"]] for s in d["steps"]]
assert kinds == [["new file"], ["replaced"]], kinds
'
	done
	np check add f.h5:/x 1 -o o.h5:/y
	run --separate-stderr h5u call negative f.h5:/x -o o.h5:/y --overwrite --json
	assert_success
	printf '%s\n' "$output" >s.json
	pyjson s.json 'assert d["steps"][0]["outputs"][0]["kind"] == "replaced", d'
	np check negative f.h5:/x -o o.h5:/y
}

@test "--json: a recipe's printed steps go under their step's result; stdout holds the object alone" {
	three_steps
	run --separate-stderr h5u run r.yaml --json --memory 1M
	assert_success
	assert_stderr_empty
	printf '%s\n' "$output" >s.json
	json_valid s.json
	pyjson s.json '
u = ds("f.h5:/x")
a = (u - 0.5) * 2.5
assert "result" not in d and d["command"] == "run" and d["memory"] == 2**20, d
s1, s2, s3 = d["steps"]
assert s1["verb"] == "expr" and s1["expr"] == "(u - 0.5) * 2.5" and "ufunc" not in s1, s1
assert s1["outputs"] == [{"operand": "a", "kind": "intermediate", "shape": [4], "dtype": "float64"}], s1
assert (s1["bytes_read"], s1["bytes_written"]) == (32, 32), s1
assert s2["verb"] == "reduce" and s2["ufunc"] == "maximum", s2
same(s2["result"], np.maximum.reduce(a))
assert (s2["bytes_read"], s2["bytes_written"]) == (40, 8), s2
assert "result" not in s1 and "result" not in s3
assert s3["inputs"][1]["operand"] == "a" and s3["inputs"][1]["kind"] == "intermediate", s3
assert (s3["bytes_read"], s3["bytes_written"]) == (64, 32), s3
t = d["totals"]
assert (t["bytes_read"], t["bytes_written"]) == (136, 72), t
same(ds("o.h5:/y"), u + a)
'
}

@test "--json: the same summary on 1, 2, 3 and 4 ranks, bytes summed over ranks" {
	cat >r.yaml <<-'EOF'
		steps:
		  - {ufunc: multiply, in: [f.h5:/h, 2.5], out: o.h5:/y}
		  - {reduce: add, in: o.h5:/y, axis: null}
		  - {accumulate: add, in: f.h5:/m, axis: 1}
	EOF
	run --separate-stderr h5u run r.yaml --json
	assert_success
	printf '%s\n' "$output" >s0.json
	json_valid s0.json
	local p
	for p in 1 2 3 4; do
		rm -f o.h5
		run --separate-stderr mpi "$p" h5ufunc run r.yaml --json
		[[ $status -eq 0 ]] || fail "$p ranks: status $status: $stderr"
		printf '%s\n' "$output" >s$p.json
		json_valid s$p.json
		pyjson s$p.json '
import json
ref = json.load(open("s0.json"))
assert d["ranks"] == '"$p"', d["ranks"]
def strip(x):
    x = dict(x)
    x.pop("seconds", None)
    return x
assert [strip(s) for s in d["steps"]] == [strip(s) for s in ref["steps"]], (d["steps"], ref["steps"])
assert strip(d["totals"]) == strip(ref["totals"])
h = ds("f.h5:/h")
same(d["steps"][1]["result"], np.add.reduce(h * np.float32(2.5), axis=None))
same(d["steps"][2]["result"], np.add.accumulate(ds("f.h5:/m"), axis=1))
assert d["steps"][0]["bytes_read"] == h.nbytes and d["steps"][0]["bytes_written"] == h.nbytes
'
	done
}

@test "--json: after a failure nothing is printed on stdout" {
	run --separate-stderr h5u call power f.h5:/neg f.h5:/neg --json
	assert_error 1 "call power: Integers to negative integer powers are not allowed."
	run --separate-stderr h5u call add f.h5:/x f.h5:/nope --json
	assert_error 2 "call add: 'f.h5' has no dataset '/nope'"
	printf 'steps:\n  - ufunc: add\n    in: [f.h5:/x, 1]\n  - ufunc: power\n    in: [f.h5:/neg, f.h5:/neg]\n' >r.yaml
	run --separate-stderr h5u run r.yaml --json
	assert_equal "$status" 1
	assert_output ''
	[[ ${stderr_lines[0]} == "h5ufunc: "*"step 2 (ufunc power): Integers to negative integer powers are not allowed." ]] ||
		fail "stderr: $stderr"
}

@test "check --json: the plan as the run summary's members, each step with check's line; nothing written; 1 and 3 ranks; nothing on stdout after an error" {
	local text one three
	cat >r.yaml <<-'EOF2'
		inputs: {u: f.h5:/x}
		steps:
		  - {ufunc: multiply, in: [u, 2], out: a}
		  - {expr: a + u, out: o.h5:/p}
		  - {reduce: maximum, in: a}
		  - {accumulate: add, in: f.h5:/m, axis: 1, out: o.h5:/c}
	EOF2
	snapshot
	run --separate-stderr h5u check r.yaml
	assert_success
	text=$output
	run --separate-stderr h5u check r.yaml --json --memory 1M
	assert_success
	assert_stderr_empty
	one=$output
	run --separate-stderr mpi 3 h5ufunc check r.yaml --json
	assert_success
	three=$output
	assert_unchanged
	printf '%s\n' "$text" | grep '^step ' >plan.txt
	printf '%s\n' "$one" >c.json
	printf '%s\n' "$three" >c3.json
	json_valid c.json
	json_valid c3.json
	run --separate-stderr h5u run r.yaml --json --memory 1M
	assert_success
	printf '%s\n' "$output" >s.json
	pyjson c.json '
import json
run, c3, lines = json.load(open("s.json")), json.load(open("c3.json")), open("plan.txt").read().splitlines()
assert d["command"] == "check" and c3["command"] == "check" and run["command"] == "run"
assert d["memory"] == 1 << 20 and d["ranks"] == 1 and c3["ranks"] == 3
assert [k for k in d if k != "command"] == [k for k in run if k not in ("per_rank", "totals", "command")], list(d)
assert any("fused" in s for s in d["steps"]), d["steps"]
assert [s["plan"] for s in d["steps"]] == lines, ([s["plan"] for s in d["steps"]], lines)
def planned(s):
    s = {k: v for k, v in s.items() if k not in ("bytes_read", "bytes_written", "seconds", "result", "plan")}
    s["outputs"] = [{k: v for k, v in o.items() if k != "masked"} for o in s["outputs"]]
    return s
assert [planned(s) for s in d["steps"]] == [planned(s) for s in run["steps"]], (d["steps"], run["steps"])
assert [planned(s) for s in c3["steps"]] == [planned(s) for s in d["steps"]]
assert all(set(s) - set(planned(s)) == {"plan"} for s in d["steps"])
'
	# an invalid recipe: the message, and nothing on stdout
	printf 'steps:\n  - ufunc: add\n    in: [f.h5:/x, f.h5:/nope]\n    out: o2.h5:/y\n' >bad.yaml
	run --separate-stderr h5u check bad.yaml --json
	assert_error 2 "bad.yaml:3:19: step 1 (ufunc add): 'f.h5' has no dataset '/nope'"
	assert_output ''
}

@test "--json with --progress: the object on stdout, the meter on stderr" {
	three_steps
	run --separate-stderr h5u run r.yaml --json --progress
	assert_success
	printf '%s\n' "$output" >s.json
	json_valid s.json
	assert_equal "$(meter_finals | grep -c '^step ')" 3
}

@test "consecutive reductions of one dataset share one pass: read once, NumPy's results, 1 to 4 ranks" {
	fixture big.h5
	# rows of 1100 elements: reductions over all axes fold one row a chunk
	cat >r.yaml <<-'EOF2'
		inputs: {w: big.h5:/w}
		steps:
		  - {reduce: add, in: w, axis: 1, out: o.h5:/rows}
		  - {reduce: maximum, in: w, axis: null}
		  - {reduce: add, in: w, axis: null, out: o.h5:/total}
		  - {reduce: add, in: w, axis: 0, out: o.h5:/cols}
	EOF2
	run --separate-stderr h5u check r.yaml
	assert_success
	assert_line "step 2: reduce maximum, fused into step 1"
	assert_line "step 3: reduce add, fused into step 1"
	# axis 0 folds columns in another layout: a pass of its own
	refute_line --partial "step 4: reduce add, fused"
	local n
	for n in 0 1 2 3 4; do
		mkdir "r$n"
		cp big.h5 r.yaml "r$n/"
		if ((n == 0)); then
			(cd "r$n" && h5u run r.yaml --json >s.json)
		else
			(cd "r$n" && mpi "$n" h5ufunc run r.yaml --json >s.json)
		fi
	done
	(cd r0 && pyjson s.json '
b = ds("big.h5:/w")
s1, s2, s3, s4 = d["steps"]
assert s1["fused"] == [2, 3] and s2["fused_into"] == 1 and s3["fused_into"] == 1, (s1, s2, s3)
# w read once (and the printed maximum read back from its 8-byte scratch)
assert s1["bytes_read"] == b.nbytes + 8 and s2["bytes_read"] == s3["bytes_read"] == 0, (s1, s2, s3)
assert s4["bytes_read"] == b.nbytes, s4
same(s2["result"], np.maximum.reduce(b, axis=None))
same(ds("o.h5:/rows"), np.add.reduce(b, axis=1))
assert abs(ds("o.h5:/total") - b.sum()) <= 1e-12 * np.abs(b).sum()
same(ds("o.h5:/cols"), np.add.reduce(b, axis=0))
')
	for n in 1 2 3 4; do
		np same r0/o.h5:/rows "r$n/o.h5:/rows" :: same r0/o.h5:/total "r$n/o.h5:/total" :: \
			same r0/o.h5:/cols "r$n/o.h5:/cols"
		(cd "r$n" && pyjson s.json "same(d['steps'][1]['result'], np.maximum.reduce(ds('big.h5:/w'), axis=None))")
	done
}

@test "--json numbers steps as the recipe and the plan do: an expression split at @ is one number" {
	/usr/bin/python3 -c '
import h5py, numpy as np
rng = np.random.default_rng(5)
with h5py.File("g.h5", "w") as f:
    f["a"], f["b"], f["c"] = rng.random((3, 4)), rng.random((4, 2)), rng.random((3, 2))'
	cat >r.yaml <<-'EOF2'
		inputs: {a: g.h5:/a, b: g.h5:/b, c: g.h5:/c}
		steps:
		  - {expr: (a @ b) * 2 + c, out: y}
		  - {ufunc: negative, in: y, out: o.h5:/n}
		  - {reduce: add, in: y, out: o.h5:/s}
	EOF2
	run --separate-stderr h5u check r.yaml
	assert_success
	assert_line "step 2: ufunc negative, fused into step 1"
	h5u check r.yaml --json >c.json
	h5u run r.yaml --json >s.json
	local f
	for f in c.json s.json; do
		pyjson "$f" '
steps = d["steps"]
# matmul, then the expression pass with step 2 in it, then the reduce
assert [s["step"] for s in steps] == [1, 1, 2, 3], steps
assert [s["verb"] for s in steps] == ["ufunc", "expr", "ufunc", "reduce"], steps
assert steps[1]["fused"] == [2] and steps[2]["fused_into"] == 1, steps
if "plan" in steps[0]:   # check: each object is its plan line
    assert all(s["plan"].startswith("step %d: " % s["step"]) for s in steps), steps
else:
    a, b, c = ds("g.h5:/a"), ds("g.h5:/b"), ds("g.h5:/c")
    y = (a @ b) * 2 + c
    assert np.allclose(ds("o.h5:/n"), -y, rtol=1e-14, atol=0), ds("o.h5:/n")
    assert np.allclose(ds("o.h5:/s"), np.add.reduce(y), rtol=1e-14, atol=0), ds("o.h5:/s")
'
	done
}

@test "--json and the meter with fused steps: one pass, counted on the step that heads it" {
	cat >r.yaml <<-'EOF2'
		inputs: {u: f.h5:/x}
		steps:
		  - {ufunc: multiply, in: [u, 2], out: a}
		  - {expr: a + u, out: o.h5:/p}
		  - {ufunc: negative, in: a, out: o.h5:/q}
		  - {reduce: add, in: o.h5:/q}
	EOF2
	run --separate-stderr h5u check r.yaml
	assert_success
	[[ $output == *"fused into step 1"* ]] || fail "these steps are not fused (h5ufunc check: $output)"
	run --separate-stderr h5u run r.yaml --json --progress
	assert_success
	printf '%s\n' "$output" >s.json
	json_valid s.json
	pyjson s.json '
u = ds("f.h5:/x")
s1, s2, s3, s4 = d["steps"]
assert s1["fused"] == [2, 3] and "fused_into" not in s1, s1
assert s2["fused_into"] == 1 and s3["fused_into"] == 1, (s2, s3)
assert (s2["bytes_read"], s2["bytes_written"], s3["bytes_read"], s3["bytes_written"]) == (0, 0, 0, 0)
# one pass: u read once, p and q written, a never written
assert (s1["bytes_read"], s1["bytes_written"]) == (32, 64), s1
assert s1["inputs"][1] == {"operand": "2", "kind": "literal", "shape": [], "dtype": "float64"}, s1
same(s4["result"], np.add.reduce(-(u * 2)))
same(ds("o.h5:/p"), u * 2 + u)
'
	local finals
	finals=$(meter_finals)
	assert_equal "$(wc -l <<<"$finals")" 2
	[[ $finals == "step 1/4 ufunc multiply (+2 fused): 96 B in "*$'\n'"step 4/4 reduce add: 48 B in "* ]] ||
		fail "meter: $finals"
}

# ranks_cmd N: h5ufunc's command on N ranks (1: without a launcher), in
# the array cmd.
ranks_cmd() {
	cmd=(h5u)
	(($1 == 1)) || cmd=(mpi "$1" h5ufunc)
}

@test "check and --json list each output under the step that names it, fused steps' too, on 1 and 2 ranks" {
	cat >r.yaml <<-'EOF2'
		inputs: {u: f.h5:/x}
		steps:
		  - {expr: u * 2, out: o.h5:/p}
		  - {ufunc: negative, in: o.h5:/p, out: o.h5:/q}
		  - {reduce: maximum, in: o.h5:/q, out: o.h5:/s}
		  - {expr: u + 1, out: o.h5:/r}
	EOF2
	local n cmd
	for n in 1 2; do
		ranks_cmd "$n"
		rm -f o.h5
		run --separate-stderr "${cmd[@]}" check r.yaml
		assert_success
		[[ $output == *"fused into step 1"* ]] || fail "these steps are not fused (h5ufunc check: $output)"
		# the step each out line follows names it in the recipe
		run awk '/^step / { step = $2 } /^  out / { print step, $2 }' <<<"$output"
		assert_output $'1: o.h5:/p\n2: o.h5:/q\n3: o.h5:/s\n4: o.h5:/r'
		"${cmd[@]}" check r.yaml --json >c.json
		"${cmd[@]}" run r.yaml --json >s.json
		local f
		for f in c.json s.json; do
			pyjson "$f" '
named = {1: ["o.h5:/p"], 2: ["o.h5:/q"], 3: ["o.h5:/s"], 4: ["o.h5:/r"]}   # as r.yaml names them
got = {s["step"]: [o["operand"] for o in s["outputs"]] for s in d["steps"]}
assert got == named, got
assert any("fused_into" in s for s in d["steps"]), d["steps"]
if "plan" not in d["steps"][0]:
    u = ds("f.h5:/x")
    same(ds("o.h5:/q"), -(u * 2))
    same(ds("o.h5:/s"), np.maximum.reduce(-(u * 2)))
    same(ds("o.h5:/r"), u + 1)
'
		done
	done
}

@test "check and --json list a named intermediate no step reads after its pass under its step, as not written, on 1 and 2 ranks" {
	# t is read only by the step fused with it, v and w by none: computed
	# in their passes and never written, they used to be listed under no
	# step where they head a pass
	cat >r.yaml <<-'EOF2'
		inputs: {u: f.h5:/x}
		steps:
		  - {ufunc: multiply, in: [u, 2], out: t}
		  - {ufunc: add, in: [t, 1], out: o.h5:/y}
		  - {ufunc: negative, in: u, out: v}
		  - {reduce: maximum, in: o.h5:/y, out: o.h5:/m}
		  - {expr: u - 3, out: w}
	EOF2
	local n cmd f
	for n in 1 2; do
		ranks_cmd "$n"
		rm -f o.h5
		run --separate-stderr "${cmd[@]}" check r.yaml
		assert_success
		run awk '/^step / { step = $2 } /^  out / { print step, $0 }' <<<"$output"
		assert_output - <<-'EOF2'
			1:   out t float64 (4,), named intermediate, not written
			2:   out o.h5:/y float64 (4,), new file
			3:   out v float64 (4,), named intermediate, not written
			4:   out o.h5:/m float64 (), new file
			5:   out w float64 (4,), named intermediate, not written
		EOF2
		"${cmd[@]}" check r.yaml --json >c.json
		"${cmd[@]}" run r.yaml --json >s.json
		for f in c.json s.json; do
			pyjson "$f" '
named = {1: [("t", False)], 2: [("o.h5:/y", True)], 3: [("v", False)], 4: [("o.h5:/m", True)], 5: [("w", False)]}
got = {s["step"]: [(o["operand"], o.get("written", True)) for o in s["outputs"]] for s in d["steps"]}
assert got == named, got
if "plan" not in d["steps"][0]:
    u = ds("f.h5:/x")
    same(ds("o.h5:/y"), u * 2 + 1)
    same(ds("o.h5:/m"), np.maximum.reduce(u * 2 + 1))
'
		done
	done
}
