# tests/sweep.bash - the ufunc x dtype sweeps of reduce and accumulate,
# shared by 17-reduce.bats and 18-accumulate.bats (loaded after helper).
#
# The matrix fixture m.h5 (reduce_ref.py make-matrix) holds one 7x19
# dataset per dtype; 19 columns take the loops past their 16-element
# vectorized blocks along the last axis.

REF=reduce_ref.py

# The binary one-output ufuncs of `h5ufunc ufuncs` (not the generalized
# ones, listed with their core signatures: NumPy has no reduce of them).
reducible() {
	h5u ufuncs | awk '$2 == 2 && $3 == 1 && $5 !~ /^\(/ { print $1 }'
}

# sweep_matrix VERB [AXIS]: VERB (reduce or accumulate) of every binary
# one-output ufunc over every dtype NumPy accepts, along AXIS (NumPy's
# default when not given), against NumPy on one process, then the same
# recipe on 3 ranks byte for byte against one process (7 rows split 3, 2,
# 2; along axis 0 the 19 columns split 7, 6, 6).
sweep_matrix() {
	local verb=$1 axis=() u recipe problems=() ufuncs
	[[ -n ${2:-} ]] && axis=(--axis "$2")
	fixture m.h5
	ufuncs=$(reducible)
	# shellcheck disable=SC2086
	ref matrix "${axis[@]}" "$verb" m.h5 $ufuncs >cases.txt || fail "reduce_ref.py matrix failed"
	[[ $(wc -l <cases.txt) -gt 300 ]] || fail "only $(wc -l <cases.txt) cases"
	# One recipe per ufunc, so that one ufunc's failure leaves the others
	# tested; the cases of those that ran go into one recipe for 3 ranks.
	ref recipes cases.txt one.h5 r >recipes.txt || fail "reduce_ref.py recipes failed"
	: >ran.txt
	while read -r u recipe; do
		if h5u run "$recipe" 2>err.txt; then
			grep " $verb $u m.h5" cases.txt >>ran.txt
		else
			problems+=("$u: $(head -1 err.txt)")
		fi
	done <recipes.txt
	run ref check cases.txt one.h5
	((status == 0)) || problems+=("$output")
	ref recipe ran.txt three.h5 >three.yaml
	run --separate-stderr mpi 3 h5ufunc run three.yaml
	((status == 0)) || problems+=("3 ranks: status $status: $stderr")
	run ref same one.h5 three.h5
	((status == 0)) || problems+=("3 ranks against one process: $output")
	((${#problems[@]} == 0)) || fail "$(printf '%s\n' "${problems[@]}")"
}

# sweep_refused VERB: every ufunc and dtype pair NumPy refuses for VERB
# exits 2 with one message naming the command and ufunc, writes nothing and
# changes no file.
sweep_refused() {
	local verb=$1 u t problems=() ufuncs code out err
	fixture m.h5
	ufuncs=$(reducible)
	# shellcheck disable=SC2086
	ref refused "$verb" m.h5 $ufuncs >refused.txt || fail "reduce_ref.py refused failed"
	[[ $(wc -l <refused.txt) -gt 50 ]] || fail "only $(wc -l <refused.txt) refused pairs"
	snapshot
	while read -r u t; do
		code=0
		h5u "$verb" "$u" "m.h5:/$t" -o out.h5:/r >out.txt 2>err.txt || code=$?
		out=$(cat out.txt) err=$(cat err.txt)
		if ((code != 2)) || [[ -n $out || $err == *$'\n'* || $err != "h5ufunc: $verb $u: "* ]]; then
			problems+=("$verb $u $t: status $code, stdout '$out', stderr '$err'")
		fi
		[[ -e out.h5 ]] && problems+=("$verb $u $t: wrote out.h5") && rm -f out.h5
	done <refused.txt
	rm -f out.txt err.txt
	((${#problems[@]} == 0)) || fail "$(printf '%s\n' "${problems[@]}")"
	assert_unchanged
}

# same_on_ranks FIXTURE RANKS [MEMORY...]: run the recipe of cases.txt
# (outputs in out.h5) in run-N-M/, beside a link to FIXTURE, on each N of
# RANKS (0: without a launcher) and with each --memory M (the default when
# none is given); every run must succeed, its results must be NumPy's
# (checked on the first run) and every out.h5 the same bytes.
same_on_ranks() {
	local fixture=$1 ranks=$2 n m dir runs=()
	shift 2
	local budgets=("$@")
	((${#budgets[@]})) || budgets=(default)
	ref recipe cases.txt out.h5 >r.yaml
	for n in $ranks; do
		for m in "${budgets[@]}"; do
			dir="run-$n-$m"
			local opts=()
			[[ $m != default ]] && opts=(--memory "$m")
			mkdir "$dir"
			if ((n == 0)); then
				(cd "$dir" && ln -s "../$fixture" "$fixture" && h5u run "${opts[@]}" ../r.yaml)
			else
				(cd "$dir" && ln -s "../$fixture" "$fixture" && mpi "$n" h5ufunc run "${opts[@]}" ../r.yaml)
			fi || fail "run on $n ranks with --memory $m failed"
			runs+=("$dir/out.h5")
		done
	done
	run ref check cases.txt "${runs[0]}" :: same "${runs[@]}"
	assert_success
}
