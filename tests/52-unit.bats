#!/usr/bin/env bats
# 52-unit.bats - the unit programs of the pure modules, built by make in
# build/unit/: distcheck (dist.h: boxes and streams), resolvecheck
# (resolve.h: type resolution, NEP 50 literals, the catalogue's flags),
# selectcheck (select.h: NumPy slicing and overlap), srccheck (plan.h's
# op sources: kinds, equality, a table place per op result) and optionscheck
# (options.h: the step options' table, merge, flags and their values), and
# foldcheck (comm.h's folds in rank order, under mpirun on 1 to 7 ranks:
# an exclusive scan, also with empty ranks left out, and a reduction with
# a fold that is not commutative).  Each asserts and ends
# "N checks, 0 failed"; selectcheck's grid is compared with NumPy's own
# indexing of the same extents.  tools/module-calls checks the layering:
# the planner's stages never call back up into plan.c.

load helper

UNIT="${UNIT:-$H5U_UNIT}"

# run_unit NAME: build/unit/NAME passes every check, and makes some.
run_unit() {
	run --separate-stderr "$UNIT/$1"
	[[ $status -eq 0 ]] || fail "$1: exit $status"$'\n'"$stderr"$'\n'"$output"
	assert_stderr_empty
	[[ $output =~ ^([0-9]+)\ checks,\ 0\ failed$ ]] || fail "$1: $output"
	((BASH_REMATCH[1] > 0)) || fail "$1: no checks ran"
}

@test "dist: shares and blocks on 1 to 6 ranks, ranks with no rows, the block budget" {
	run_unit distcheck
}

@test "comm: folds in rank order, exclusive scan and reduction onto rank 0, on no launcher and 1 to 7 ranks" {
	run_unit foldcheck
	local n
	for n in 1 2 3 4 7; do
		run --separate-stderr mpi "$n" "$UNIT/foldcheck"
		[[ $status -eq 0 ]] || fail "$n ranks: exit $status"$'\n'"$stderr"$'\n'"$output"
		[[ $output =~ ^([0-9]+)\ checks,\ 0\ failed$ ]] || fail "$n ranks: $output"
	done
}

@test "resolve: loops for arrays and weak literals, true division, bool refusals, reductions, flags" {
	run_unit resolvecheck
}

@test "options: fields apart, defaults merged, the verbs and one-liner flags of each option" {
	run_unit optionscheck
}

@test "plan: op sources of each kind, equal only to their own, a place per op result" {
	run_unit srccheck
}

@test "select: NumPy's messages for bad selections, overlap of selections" {
	run_unit selectcheck
}

@test "select: 900 selections resolve to the elements NumPy's indexing picks, in its order" {
	/usr/bin/python3 - "$UNIT/selectcheck" <<-'PY'
		import random, subprocess, sys
		import numpy as np

		rng = random.Random(13)

		def bound(n):
		    r = rng.random()
		    if r < 0.1:   # beyond int64: Python's slice.indices() clips it
		        return rng.choice(["10**30", "-10**30", "None"])
		    return rng.choice([None, rng.randint(-n - 2, n + 2)])

		def item(n):
		    r = rng.random()
		    if r < 0.25:
		        return str(rng.randint(-n - 1, n))
		    if r < 0.33:
		        return rng.choice(["None", "np.newaxis"])
		    start, stop = bound(n), bound(n)
		    step = rng.choice([None, None, 1, 2, 3, 5, 0, -1, -1, -2, -3, -7, "-10**30"])
		    text = ("" if start is None else str(start)) + ":" + ("" if stop is None else str(stop))
		    return text + ("" if step is None else ":" + str(step))

		cases = []
		for _ in range(900):
		    dims = [rng.randint(0, 6) for _ in range(rng.randint(1, 4))]
		    items = [item(n) for n in dims[:rng.randint(1, len(dims))]]
		    if rng.random() < 0.25:
		        items.insert(rng.randint(0, len(items)), "...")
		    cases.append((dims, "[" + ", ".join(items) + "]"))
		# Python's integer text, as the operand takes it
		literal = lambda s: s.replace("10**30", "1" + "0" * 30)
		text = "".join(",".join(map(str, d)) + " " + literal(s) + "\n" for d, s in cases)
		got = subprocess.run([sys.argv[1], "grid"], input=text, capture_output=True, text=True,
		                     check=True).stdout.splitlines()
		assert len(got) == len(cases), (len(got), len(cases))
		bad = 0
		for (dims, sel), line in zip(cases, got):
		    a = np.arange(int(np.prod(dims))).reshape(dims)
		    try:
		        r = eval("a" + sel)
		        r = np.asarray(r)
		        want = str(r.shape) + ":" + "".join(" %d" % v for v in r.ravel())
		    except (IndexError, ValueError):
		        want = "error"
		    if line != want:
		        bad += 1
		        print(dims, sel, "got", line, "want", want)
		assert bad == 0, f"{bad} of {len(cases)} selections differ from NumPy"
		assert sum(1 for line in got if line != "error") > 450, "too few valid selections"
	PY
}

@test "layering: the planner's stages never call back up into plan.c: only the run command calls it" {
	local build callers
	build="$(cd "$H5U_TESTS/.." && pwd)/build"
	run "$H5U_TESTS/../tools/module-calls" "$build"
	[[ $status -eq 0 ]] || fail "module-calls: exit $status: $output"
	grep -q '^plan_fold: .*\barrays\b' <<<"$output" || fail "module-calls read no calls: $output"
	callers=$(awk '{ for (i = 2; i <= NF; i++) if ($i == "plan") { sub(":", "", $1); print $1 } }' <<<"$output")
	[[ $callers == cmd_run ]] || fail "plan.c called by: $callers"
}
