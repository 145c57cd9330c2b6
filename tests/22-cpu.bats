#!/usr/bin/env bats
# 22-cpu: the instruction-set levels of the type loops (SSE2, AVX2,
# AVX-512; H5UFUNC_CPU caps the level, h5ufunc --version names it).  Every
# level this machine has must compute the same bits as every other: each
# loop of the catalogue over tests/unit/loopdump's grid (at each level its
# vector code the bits of its scalar code, loopdump's status), and a fused
# transcendental expression end to end on 1-4 ranks and a budget of a few
# blocks.  The loops' agreement with NumPy at the widest level is
# tests/20-loops.bats; equal bytes carry it to the other levels, and the
# transcendental loops are also compared with NumPy at the narrowest, and
# float32 log1p, sin and cos over the whole float32 range at every level,
# float64 log1p against the exact result, the ends of SLEEF's ranges
# where its results are repaired, and float sums (pairwise, vectorized per level) against NumPy's bits.

load helper

LEVELS_ALL=(sse2 avx2 avx512)
TRANSCENDENTAL="arccos arccosh arcsin arcsinh arctan arctan2 arctanh cbrt cos cosh exp exp2 expm1
	float_power hypot log log10 log1p log2 logaddexp logaddexp2 power sin sinh tan tanh"

setup_file() {
	unit_program LOOPDUMP loopdump
	# 37 rows: uneven blocks on 2-4 ranks; 3 rows: ranks with no rows
	fixtures <<-'EOF'
		make in.h5:/a32 float32 37,53 lo=-10 hi=10
		make in.h5:/b32 float32 37,53 lo=-4 hi=4
		make in.h5:/a64 float64 37,53 lo=-10 hi=10
		make in.h5:/b64 float64 37,53 lo=-4 hi=4
		make in.h5:/a16 float16 37,53 lo=-4 hi=4
		make in.h5:/s32 float32 3,41 fill=special
		make in.h5:/s64 float64 3,41 fill=special
	EOF
}

# The levels this machine has, narrowest first, from --version's
# "kernels: LEVEL (this CPU: WIDEST)".
levels() {
	local top
	top=$(env -u H5UFUNC_CPU h5ufunc --version | sed -n 's/^kernels: .* (this CPU: \(.*\))$/\1/p')
	[[ -n $top ]] || return 1
	local l
	for l in "${LEVELS_ALL[@]}"; do
		echo "$l"
		[[ $l == "$top" ]] && break
	done
}

@test "--version names the level in use; H5UFUNC_CPU caps it at a level the CPU has" {
	local have top l want
	have=$(levels) || fail "h5ufunc --version does not name the CPU's level"
	top=$(printf '%s\n' "$have" | tail -n 1)
	run --separate-stderr env -u H5UFUNC_CPU h5ufunc --version
	assert_success
	assert_line --index 0 "h5ufunc 0.1.0"
	assert_line --index 1 "kernels: $top (this CPU: $top)"
	for l in "${LEVELS_ALL[@]}"; do
		# a cap above what the CPU has leaves the CPU's widest
		want=$l
		printf '%s\n' "$have" | grep -qx "$l" || want=$top
		run --separate-stderr env H5UFUNC_CPU="$l" h5ufunc --version
		assert_success
		assert_line --index 1 "kernels: $want (this CPU: $top)"
	done
	run --separate-stderr env H5UFUNC_CPU= h5ufunc --version
	assert_line --index 1 "kernels: $top (this CPU: $top)"
}

@test "an unknown H5UFUNC_CPU is refused before any work, and writes nothing" {
	fixture in.h5
	snapshot
	H5UFUNC_CPU=avx3 run --separate-stderr h5u call sin in.h5:/a32 -o out.h5:/c
	assert_error 2 "H5UFUNC_CPU: unknown level 'avx3' (sse2, avx2 or avx512)"
	assert_unchanged
	H5UFUNC_CPU=AVX2 run --separate-stderr h5u --version
	assert_error 2 "H5UFUNC_CPU: unknown level 'AVX2' (sse2, avx2 or avx512)"
}

# loopdump prints each loop's results element by element and exits 1 when
# the same loop run contiguously, strided, backwards, broadcast or in place
# (its vector code) gives other bits: at every level its status says that
# the vector code agrees with the scalar code of that level, and the dumps
# say that every level's scalar code agrees with the narrowest's.
@test "every loop of every ufunc gives the same bits at every level, its vector code the bits of its scalar code" {
	local names l u differ= failed=
	names=$("$LOOPDUMP" --list | cut -d' ' -f1)
	[[ $(printf '%s\n' "$names" | wc -l) -gt 80 ]] || fail "loopdump --list is short"
	mapfile -t have < <(levels)
	for u in $names; do
		for l in "${have[@]}"; do
			H5UFUNC_CPU=$l "$LOOPDUMP" "$u" >"$l.txt" 2>err.txt ||
				failed+=$'\n'"$u at $l: $(head -n 3 err.txt)"
			cmp -s "${have[0]}.txt" "$l.txt" || differ+=" $u@$l"
		done
	done
	[[ -z $failed ]] || fail "loopdump found vector code that differs from the scalar code:$failed"
	[[ -z $differ ]] || fail "bits differ from ${have[0]}'s:$differ"
}

@test "the transcendental loops agree with NumPy at the narrowest level (sse2)" {
	H5UFUNC_CPU=sse2 REF=loops_ref.py run ref "$LOOPDUMP" $TRANSCENDENTAL
	assert_success
}

@test "special values through h5ufunc call, at every level: NumPy's within 4 ULP" {
	fixture in.h5
	local l f t jobs=()
	for l in $(levels); do
		for f in sin exp log1p arcsinh cosh tan; do
			for t in 32 64; do
				H5UFUNC_CPU=$l h5u call "$f" in.h5:/s$t -o "o-$l.h5:/$f$t" || fail "$f at $l"
				jobs+=(check "$f" in.h5:/s$t -o "o-$l.h5:/$f$t" ::)
			done
		done
		H5UFUNC_CPU=$l h5u call power in.h5:/s64 in.h5:/s64 -o "o-$l.h5:/pow" || fail "power at $l"
		jobs+=(check power in.h5:/s64 in.h5:/s64 -o "o-$l.h5:/pow" ::)
	done
	run np "${jobs[@]:0:${#jobs[@]}-1}"
	assert_success
}

@test "sin(a) * exp(b) + log1p(abs(a)): the same bytes at every level, on 1-4 ranks, at --memory 64K" {
	fixture in.h5
	cat > r.yaml <<-'EOF'
		inputs:
		  a32: in.h5:/a32
		  b32: in.h5:/b32
		  a64: in.h5:/a64
		  b64: in.h5:/b64
		  a16: in.h5:/a16
		  s32: in.h5:/s32
		steps:
		  - {expr: sin(a32) * exp(b32) + log1p(abs(a32)), out: '${OUT}:/c32'}
		  - {expr: sin(a64) * exp(b64) + log1p(abs(a64)), out: '${OUT}:/c64'}
		  - {expr: sin(a16) * exp(a16) + log1p(abs(a16)), out: '${OUT}:/c16'}
		  - {expr: 'arctan2(s32, s32 + 1) - power(abs(s32), 0.5) * cosh(s32)', out: '${OUT}:/s32'}
	EOF
	local l top outs=() n
	for l in $(levels); do
		top=$l
		H5UFUNC_CPU=$l h5u run r.yaml --set OUT="o-$l.h5" || fail "run at $l"
		outs+=("o-$l.h5")
	done
	H5UFUNC_CPU=sse2 h5u run r.yaml --set OUT=o-sse2-64k.h5 --memory 64K || fail "sse2 at 64K"
	outs+=(o-sse2-64k.h5)
	for n in 2 3 4; do
		H5UFUNC_CPU=$top mpi "$n" h5ufunc run r.yaml --set OUT="o-$top-$n.h5" --memory 64K ||
			fail "$n ranks at $top"
		outs+=("o-$top-$n.h5")
	done
	H5UFUNC_CPU=sse2 mpi 3 h5ufunc run r.yaml --set OUT=o-sse2-3.h5 || fail "3 ranks at sse2"
	outs+=(o-sse2-3.h5)
	local d jobs=()
	for d in c32 c64 c16 s32; do
		jobs+=(same "${outs[@]/%/:/$d}" ::)
	done
	run np "${jobs[@]:0:${#jobs[@]}-1}"
	assert_success
}

@test "float32 log1p within 1 ULP of float64's rounded, sin and cos within 3 ULP of NumPy, over float32's range, the same bits at every level" {
	# every 4099th float32 of either sign (2 million values), tiny to huge
	/usr/bin/python3 - <<-'EOF'
		import h5py, numpy as np
		bits = np.arange(0, 0x7f800000, 4099, dtype=np.uint32)
		x = np.concatenate([bits, bits | 0x80000000]).view(np.float32)
		with h5py.File("x.h5", "w") as f:
		    f["x"] = x
	EOF
	local l f
	for l in $(levels); do
		for f in log1p sin cos; do
			H5UFUNC_CPU=$l h5u call "$f" x.h5:/x -o "o-$l.h5:/$f" || fail "$f at $l"
		done
	done
	run /usr/bin/python3 - $(levels) <<-'EOF'
		import sys, h5py, numpy as np
		from h5ref import ulps, worst, differs, done
		x = h5py.File("x.h5", "r")["x"][...]
		bad = []
		with np.errstate(all="ignore"):
		    want = {"log1p": (np.log1p(x.astype(np.float64)).astype(np.float32), 1),
		            "sin": (np.sin(x), 3), "cos": (np.cos(x), 3)}
		for level in sys.argv[1:]:
		    for f, (w, ulp) in want.items():
		        g = h5py.File("o-%s.h5" % level, "r")[f][...]
		        differs(bad, f"{f} at {level}", x, g, h5py.File("o-%s.h5" % sys.argv[1], "r")[f][...],
		                sys.argv[1])
		        worst(bad, f"{f} at {level}", x, g, w, np.where(np.isnan(w) & np.isnan(g), 0, ulps(w, g)), ulp)
		done(bad)
	EOF
	assert_success
}

@test "float64 log1p within 1 ULP of the exact result and 2 of NumPy, special values NumPy's, the same bits at every level" {
	# random bits of every exponent, the ranges each branch of the
	# algorithm takes (1 + x on either side of sqrt(2) and sqrt(1/2),
	# below -1/2, tiny, past 2^53), and the special values
	/usr/bin/python3 - <<-'EOF'
		import h5py, numpy as np
		rng = np.random.default_rng(15)
		b = rng.integers(0, 0x7ff0000000000000, 400000, dtype=np.uint64)
		s = np.where(rng.integers(0, 2, b.size) == 1, np.uint64(1 << 63), np.uint64(0))
		x = (b | s).view(np.float64)
		u = lambda lo, hi: rng.uniform(lo, hi, 100000)
		e = lambda lo, hi: np.ldexp(u(1, 2), rng.integers(lo, hi, 100000)) * rng.choice([-1, 1], 100000)
		special = [0.0, -0.0, 5e-324, -5e-324, 2.0**-54, -2.0**-54, 2.0**-53, -1.0, -1.0 + 2**-53,
		           -2.0, np.inf, -np.inf, np.nan, 2.0**53, 2.0**53 + 2, 1e306, 1.7976931348623157e308,
		           np.sqrt(2) - 1, np.sqrt(0.5) - 1, 1.0, -0.5]
		x = np.concatenate([x, u(-1, -0.5), u(-0.5, 0.5), u(-0.3, -0.29), u(0.41, 0.42), u(0.5, 4),
		                    e(-60, -20), e(40, 60), special])
		with h5py.File("x.h5", "w") as f:
		    f["x"] = x
	EOF
	local l
	for l in $(levels); do
		H5UFUNC_CPU=$l h5u call log1p x.h5:/x -o "o-$l.h5:/y" || fail "log1p at $l"
	done
	run /usr/bin/python3 - $(levels) <<-'EOF'
		import sys, h5py, numpy as np
		from h5ref import ulps, worst, differs, done
		x = h5py.File("x.h5", "r")["x"][...]
		g = {l: h5py.File("o-%s.h5" % l, "r")["y"][...] for l in sys.argv[1:]}
		bad = []
		for l in g:
		    differs(bad, f"at {l}", x, g[l], g[sys.argv[1]], sys.argv[1])
		y = g[sys.argv[1]]
		with np.errstate(all="ignore"):
		    want = np.log1p(x)
		    exact = np.log1p(x.astype(np.longdouble))
		odd = ~np.isfinite(want) | (want == 0)   # NumPy's bits, any nan for a nan
		yo, wo = y[odd], want[odd]
		if not (np.array_equal(np.isnan(yo), np.isnan(wo)) and
		        np.array_equal(yo[~np.isnan(yo)].view(np.int64), wo[~np.isnan(wo)].view(np.int64))):
		    bad.append("special values: %r give %r, want %r" % (x[odd], yo, wo))
		f = ~odd
		worst(bad, "NumPy", x[f], y[f], want[f], ulps(y[f], want[f]), 2)
		err = np.abs((y[f].astype(np.longdouble) - exact[f]) / np.spacing(np.abs(y[f])))
		worst(bad, "exactly", x[f], y[f], exact[f], np.where(err >= 1, err, 0), 0)
		done(bad)
	EOF
	assert_success
}

@test "near the ends of SLEEF's ranges (arcsinh, arccosh, sinh, cosh, log1p): the same bits at every level, NumPy's within 4 ULP" {
	# 100001 elements each, so vectors and the last short one hold other
	# elements at each level; SLEEF's results turn infinite inside each
	# range and are repaired there, lane by lane
	/usr/bin/python3 - <<-'EOF'
		import h5py, numpy as np
		with h5py.File("big.h5", "w") as f:
		    f["asinh64"] = np.logspace(140, 308, 100001)
		    f["asinh32"] = np.logspace(15, 38, 100001).astype(np.float32)
		    f["sinh64"] = np.linspace(700, 710.4, 100001)
		    f["sinh32"] = np.linspace(85, 89.4, 100001).astype(np.float32)
		    f["log1p32"] = np.logspace(35, 38.5, 100001).astype(np.float32)
		    f["log1p64"] = np.logspace(300, 308.2, 100001)
	EOF
	local l d f
	for l in $(levels); do
		for d in asinh64:arcsinh asinh64:arccosh asinh32:arcsinh asinh32:arccosh sinh64:sinh \
			 sinh64:cosh sinh32:sinh sinh32:cosh log1p32:log1p log1p64:log1p; do
			f=${d#*:} d=${d%:*}
			H5UFUNC_CPU=$l h5u call "$f" "big.h5:/$d" -o "o-$l.h5:/$f-$d" || fail "$f $d at $l"
		done
	done
	run /usr/bin/python3 - $(levels) <<-'EOF'
		import sys, h5py, numpy as np
		from h5ref import ulps, worst, differs, done
		src = h5py.File("big.h5", "r")
		first = h5py.File("o-%s.h5" % sys.argv[1], "r")
		bad = []
		for level in sys.argv[1:]:
		    out = h5py.File("o-%s.h5" % level, "r")
		    for k in out:
		        f, d = k.split("-")
		        x, g = src[d][...], out[k][...]
		        differs(bad, f"{k} at {level}", x, g, first[k][...], f"at {sys.argv[1]}")
		        want = getattr(np, f)(x)
		        worst(bad, f"{k} at {level}", x, g, want, ulps(want, g), 4)
		done(bad)
	EOF
	assert_success
}

@test "float32 and float64 sums of lengths 0 to 136 and up to 8192: NumPy's pairwise bits at every level" {
	# rows of random values, of -0.0, with an inf or a nan among finite
	# values; each length is one (5, N) dataset reduced along its rows
	/usr/bin/python3 - <<-'EOF2'
		import h5py, numpy as np
		lengths = list(range(0, 137)) + [150, 255, 256, 257, 300, 383, 1000, 1024, 4099, 8192]
		rng = np.random.default_rng(24)
		with h5py.File("x.h5", "w") as f, open("r.yaml", "w") as r:
		    r.write("inputs: {}\nsteps:\n")
		    for n in lengths:
		        for t in ("float32", "float64"):
		            x = (rng.standard_normal((5, n)) * 10.0 ** rng.integers(-3, 4, (5, n))).astype(t)
		            x[1] = -0.0
		            if n:
		                x[2, n // 2] = np.inf
		                x[3, n - 1] = np.nan
		                x[4, ::3] = -x[4, ::3]
		            f["%s_%d" % (t, n)] = x
		            r.write("  - reduce: add\n    in: x.h5:/%s_%d\n    axis: 1\n"
		                    "    out: ${OUT}:/%s_%d\n" % (t, n, t, n))
	EOF2
	local l
	for l in $(levels); do
		H5UFUNC_CPU=$l h5u run r.yaml --set OUT="o-$l.h5" || fail "sums at $l"
	done
	run /usr/bin/python3 - $(levels) <<-'EOF2'
		import sys, h5py, numpy as np
		x = h5py.File("x.h5", "r")
		bad = []
		for level in sys.argv[1:]:
		    o = h5py.File("o-%s.h5" % level, "r")
		    for name in x:
		        want = np.add.reduce(x[name][...], axis=1)
		        got = o[name][...]
		        if want.tobytes() != got.tobytes():
		            bad.append("%s at %s: %r, want %r" % (name, level, got, want))
		print("\n".join(bad[:10]))
		sys.exit(1 if bad else 0)
	EOF2
	assert_success
}
