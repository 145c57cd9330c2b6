#!/usr/bin/env bats
# 30-docs.bats - the documentation agrees with the program.
#
# Both man pages are clean under `groff -man -ww -z`; h5ufunc.1 lists every
# command of `h5ufunc --help`, every option of `h5ufunc help COMMAND`, and
# exactly the ufuncs of `h5ufunc ufuncs` with their inputs, outputs,
# identities and aliases; what the docs call "not yet available" is refused
# by the program; the version is the program's; the README tells a new user
# about `make demo` and `make check` and lists every recipe.  What the docs
# say a command computes is tested where the command is (10-call onwards,
# 31-recipes).

load helper

REPO=$(cd "$H5U_TESTS/.." && pwd)
MAN1=$REPO/man/h5ufunc.1
MAN5=$REPO/man/h5ufunc-recipe.5

# The source of a man page with groff's \- read as -, for searching.
man_text() {
	sed 's/\\-/-/g' "$1"
}

# The lines of section NAME of man page FILE (from .SH NAME to the next .SH).
man_section() {
	awk -v name="$2" '
		/^\.SH / { on = ($0 == ".SH " name || $0 == ".SH \"" name "\"") ; next }
		on' "$1"
}

# "name nin nout identity" for each ufunc of the man page's UFUNCS section,
# read from its ".B name" line and the "N in, N out[, identity X]" line after.
man_ufunc_table() {
	man_section "$MAN1" UFUNCS | sed 's/\\-/-/g' | awk '
		/^\.B / { name = $2; next }
		name != "" {
			if ($0 !~ /^[0-9]+ in, [0-9]+ out/) {
				print name " ? ? ?"; name = ""; next
			}
			split($0, w, " ")
			id = "None"
			if (match($0, /identity [^;.,]+/))
				id = substr($0, RSTART + 9, RLENGTH - 9)
			print name " " w[1] " " w[3] " " id
			name = ""
		}'
}

# "name alias" for each alias (\fBalias\fP) the UFUNCS section gives.
man_aliases() {
	man_section "$MAN1" UFUNCS | awk '
		/^\.B / { name = $2; next }
		name != "" {
			s = $0
			while (match(s, /\\fB[A-Za-z0-9_]+\\fP/)) {
				print name " " substr(s, RSTART + 3, RLENGTH - 6)
				s = substr(s, RSTART + RLENGTH)
			}
			name = ""
		}'
}

@test "man/h5ufunc.1 is clean under groff -man -ww -z" {
	run --separate-stderr groff -man -ww -z "$MAN1"
	assert_success
	assert_stderr_empty
}

@test "man/h5ufunc-recipe.5 is clean under groff -man -ww -z" {
	run --separate-stderr groff -man -ww -z "$MAN5"
	assert_success
	assert_stderr_empty
}

@test "man pages render as text without warnings" {
	local page
	for page in "$MAN1" "$MAN5"; do
		run --separate-stderr groff -man -ww -Tutf8 "$page"
		assert_success
		assert_stderr_empty
		[[ ${#output} -gt 2000 ]] || fail "$page renders to only ${#output} characters"
	done
}

@test "man/h5ufunc.1 lists exactly the ufuncs of h5ufunc ufuncs, in its order" {
	run --separate-stderr h5u ufuncs
	assert_success
	local program man
	program=$(cut -d' ' -f1 <<<"$output")
	man=$(man_section "$MAN1" UFUNCS | sed -n 's/^\.B \([A-Za-z0-9_]*\)$/\1/p')
	[[ $(wc -l <<<"$man") -gt 80 ]] || fail "the UFUNCS section of h5ufunc.1 has $(wc -l <<<"$man") .B lines"
	if [[ $program != "$man" ]]; then
		diff <(printf '%s\n' "$program") <(printf '%s\n' "$man") |
			batslib_decorate "h5ufunc ufuncs (<) against the UFUNCS section of h5ufunc.1 (>)" |
			fail
	fi
}

@test "man/h5ufunc.1 gives each ufunc the inputs, outputs and identity of h5ufunc ufuncs" {
	run --separate-stderr h5u ufuncs
	assert_success
	local program man
	program=$(cut -d' ' -f1-4 <<<"$output")
	man=$(man_ufunc_table)
	if [[ $program != "$man" ]]; then
		diff <(printf '%s\n' "$program") <(printf '%s\n' "$man") |
			batslib_decorate "h5ufunc ufuncs (<) against h5ufunc.1 (>): name nin nout identity" |
			fail
	fi
}

@test "man/h5ufunc.1: every alias it names resolves to its ufunc" {
	local name alias count=0
	while read -r name alias; do
		run --separate-stderr h5u ufuncs "$alias"
		assert_success
		assert_line "name: $name"
		count=$((count + 1))
	done < <(man_aliases)
	((count >= 15)) || fail "only $count aliases found in h5ufunc.1"
}

@test "man/h5ufunc.1 describes every command of h5ufunc --help" {
	run --separate-stderr h5u --help
	assert_success
	local commands c text
	# The commands: every "h5ufunc WORD" synopsis line.
	commands=$(awk '$1 == "h5ufunc" && $2 ~ /^[a-z][a-z-]*$/ { print $2 }' <<<"$output" | sort -u)
	[[ $commands == *run* && $commands == *call* ]] || fail "no commands found in --help:"$'\n'"$output"
	text=$(man_text "$MAN1")
	for c in $commands; do
		# In SYNOPSIS as ".B h5ufunc CMD", and a tagged paragraph in COMMANDS.
		grep -qE "^\.B h5ufunc $c\$" <<<"$text" || fail "h5ufunc.1 SYNOPSIS lacks 'h5ufunc $c'"
		man_section "$MAN1" COMMANDS | grep -qE "^\.(B|BI|BR) \"?$c\\b" ||
			fail "h5ufunc.1 COMMANDS lacks an entry for '$c'"
	done
}

@test "man/h5ufunc.1 documents every option of h5ufunc help COMMAND" {
	run --separate-stderr h5u --help
	assert_success
	local commands c opt text missing=()
	commands=$(awk '$1 == "h5ufunc" && $2 ~ /^[a-z][a-z-]*$/ { print $2 }' <<<"$output" | sort -u)
	text=$(man_text "$MAN1")
	for c in $commands; do
		run --separate-stderr h5u help "$c"
		assert_success
		for opt in $(grep -oE '(^|[[ ,])--?[A-Za-z][A-Za-z-]*' <<<"$output" | sed 's/^[[ ,]//' | sort -u); do
			grep -qE -- "(^|[^A-Za-z-])$opt([^A-Za-z-]|\$)" <<<"$text" || missing+=("$c $opt")
		done
	done
	((${#missing[@]} == 0)) || fail "h5ufunc.1 does not mention: ${missing[*]}"
}

# The options h5ufunc help COMMAND lists (the code's: options.def and the
# command table), one a line.
help_flags() {
	h5u help "$1" | sed -n '/^options:/,$p' | grep -oE '^  -{1,2}[A-Za-z][A-Za-z-]*' | sed 's/^  //' | sort -u
}

ONE_LINERS="call reduce accumulate reduceat at eval"

@test "man/h5ufunc.1 SYNOPSIS and --help give each one-liner exactly the options of h5ufunc help COMMAND" {
	local c common want got usage problems=()
	common=$(help_flags run)
	[[ $common == *--memory* ]] || fail "no shared options found in help run"
	for c in $ONE_LINERS; do
		want=$(comm -23 <(help_flags "$c") <(echo "$common"))
		got=$(man_section "$MAN1" SYNOPSIS | sed 's/\\-/-/g' |
			awk -v c="$c" '$0 == ".B h5ufunc " c { on = 1; next } on && /^\.br/ { on = 0 } on' |
			grep -oE -- '(^|[[ ])-{1,2}[A-Za-z][A-Za-z-]*' | sed 's/^[[ ]//' | sort -u)
		[[ $want == "$got" ]] || problems+=("SYNOPSIS of $c: $(echo $got), help: $(echo $want)")
		# the --help line names only options the command takes
		usage=$(h5u --help | awk -v c="$c" '$1 == "h5ufunc" && $2 == c' |
			grep -oE -- '(^|[[ ])-{1,2}[A-Za-z][A-Za-z-]*' | sed 's/^[[ ]//' | sort -u)
		got=$(comm -23 <(echo "$usage") <(help_flags "$c"))
		[[ -z $got ]] || problems+=("--help line of $c names $(echo $got)")
	done
	((${#problems[@]} == 0)) || fail "$(printf '%s\n' "${problems[@]}")"
}

@test "man/h5ufunc.1 OPTIONS: an entry that names its commands names every one-liner that takes it" {
	local entries flag list want got c problems=() n=0
	# "SECTION FLAG CMD..." for each tagged option; SECTION is eval in
	# "Options of eval", which has entries of its own
	entries=$(man_section "$MAN1" OPTIONS | sed 's/\\-/-/g' | awk -v names=" $ONE_LINERS " '
		prev == "Options of" { section = ($0 == ".BR eval :") ? "eval" : "other" }
		{ prev = $0 }
		tp && match($0, /--?[A-Za-z][A-Za-z-]*/) {
			flag = substr($0, RSTART, RLENGTH); tp = 0; list = ""; listing = 1; next
		}
		/^\.TP/ { tp = 1; if (flag != "") print section, flag, list; flag = ""; next }
		{ tp = 0 }
		listing && $0 == "and" { next }
		listing && /^\.(B|BR) [a-z]+( [,:])?$/ && index(names, " " $2 " ") {
			list = list " " $2
			if ($NF == ":") listing = 0
			next
		}
		listing { listing = 0; list = "" }   # not a list of commands ending in ":"
		END { if (flag != "") print section, flag, list }')
	while read -r section flag list; do
		[[ $section == other && -n $list ]] || continue
		n=$((n + 1))
		want=$(for c in $ONE_LINERS; do help_flags "$c" | grep -qxF -- "$flag" && echo "$c"; done | sort)
		got=$( (printf '%s\n' $list; grep -qE "^eval $flag( |\$)" <<<"$entries" && echo eval) | sort -u)
		[[ $want == "$got" ]] || problems+=("$flag names $(echo $list), taken by $(echo $want)")
	done <<<"$entries"
	((n >= 6)) || fail "only $n entries that name their commands found:"$'\n'"$entries"
	((${#problems[@]} == 0)) || fail "$(printf '%s\n' "${problems[@]}")"
}

# Other programs' options that the docs show in their own command lines:
# mpirun's (--bind-to, --mca), srun's and #SBATCH's (--nodes,
# --ntasks-per-node, --mem-per-cpu, --signal), ompi_info's (--param,
# --level), an OMPIO variable (--no_tmp_fl) and tests/bench's (--root).
FOREIGN_FLAGS="--bind-to --mca --nodes --ntasks-per-node --mem-per-cpu --signal --param --level --no_tmp_fl --root"

@test "every --option that h5ufunc.1, h5ufunc-recipe.5 and README.md name is one h5ufunc takes" {
	local taken page flag missing=()
	taken=$( (h5u --help; for c in run check call reduce accumulate reduceat at eval recover ufuncs; do
		h5u help "$c"; done) | grep -oE -- '--[a-z][a-z_-]*' | sort -u)
	[[ $taken == *--memory* && $taken == *--indices* ]] || fail "no options found in h5ufunc help"
	for page in "$MAN1" "$MAN5" "$REPO/README.md"; do
		for flag in $(man_text "$page" | grep -oE -- '(^|[^A-Za-z0-9_-])--[a-z][a-z_-]*' | sed 's/^[^-]*//' | sort -u); do
			grep -qxF -- "$flag" <<<"$taken" && continue
			[[ " $FOREIGN_FLAGS " == *" $flag "* ]] || missing+=("${page##*/}: $flag")
		done
	done
	((${#missing[@]} == 0)) || fail "named in the docs, taken by no command of h5ufunc help: ${missing[*]}"
}

# "KEY" for each key the recipe reader takes, as its messages list them:
# the top level's, a step's (its options, options.def's rows, among them)
# and the verbs.
recipe_keys() {
	local yaml
	for yaml in 'bogus: 1' $'steps:\n  - bogus: 1' $'defaults:\n  bogus: 1' $'steps:\n  - in: x'; do
		h5u check - <<<"$yaml" 2>&1 | head -1
	done | sed -n 's/.*(expected \(.*\))$/\1/p; s/.*(\(ufunc, .*\))$/\1/p' |
		sed 's/ or a verb$//; s/, / /g; s/ or / /g' | tr ' ' '\n' | sort -u
}

# "SECTION KEY HOW" for each key h5ufunc-recipe.5 introduces: HOW is
# "entry" for a tagged paragraph (".B key", ".BI \"key: \" ...") or a
# subsection (".SS key"), "mention" for a key in bold at the start of a
# line elsewhere (".B indices" in the paragraphs of reduceat and at).
man5_keys() {
	man_text "$MAN5" | awk '
		/^\.SH / { section = $0; sub(/^\.SH "?/, "", section); sub(/"$/, "", section); gsub(/ /, "_", section) }
		/^\.SS [a-z_]+$/ { print section, $2, "entry" }
		match($0, /^\.B[IR]? "?[a-z_]+(: |:"|$)/) {
			key = substr($0, RSTART, RLENGTH); sub(/^\.B[IR]? "?/, "", key); sub(/:.*$/, "", key)
			print section, key, (tp ? "entry" : "mention")
		}
		{ tp = ($0 == ".TP") }'
}

@test "h5ufunc-recipe.5 documents exactly the keys the recipe reader takes" {
	local code man key problems=()
	code=$(recipe_keys)
	[[ $(wc -l <<<"$code") -ge 25 && $code == *pack* && $code == *reduceat* && $code == *version* ]] ||
		fail "the reader's messages gave only these keys:"$'\n'"$code"
	man=$(man5_keys | awk '$1 ~ /^(TOP_LEVEL|STEPS|STEP_OPTIONS)$/')
	for key in $code; do
		grep -qE "^[A-Z_]+ $key (entry|mention)\$" <<<"$man" || problems+=("nothing on '$key'")
	done
	for key in $(awk '$3 == "entry" { print $2 }' <<<"$man" | sort -u); do
		grep -qxF "$key" <<<"$code" || problems+=("an entry for '$key', which the reader refuses")
	done
	((${#problems[@]} == 0)) || fail "$(printf '%s\n' "${problems[@]}")"
}

@test "man/h5ufunc-recipe.5: every recipe in it passes h5ufunc check" {
	/usr/bin/python3 "$REPO/tools/make-demo-data" .
	fixtures <<<'make obs.h5:/rain float32 6,3 lo=0 hi=5'
	fixture obs.h5
	# Each .EX block that starts like a recipe, unescaped, to exN.yaml.
	sed -e 's/\\-/-/g' -e 's/\\(aq/'"'"'/g' -e 's/\\e/\\/g' "$MAN5" | awk '
		/^\.EX$/ { inside = 1; first = 1; next }
		/^\.EE$/ { inside = 0; next }
		inside && first { first = 0; keep = ($0 ~ /^(version|inputs|defaults|steps):/); if (keep) n++ }
		inside && keep { print > ("ex" n ".yaml") }'
	local f count=0
	for f in ex*.yaml; do
		[[ -f $f ]] || continue
		snapshot
		run --separate-stderr h5u check --set DATA=. "$f"
		[[ $status -eq 0 ]] || fail "h5ufunc check refuses this example of h5ufunc-recipe.5 (status $status): $stderr"$'\n'"$(cat "$f")"
		assert_unchanged
		count=$((count + 1))
	done
	((count >= 5)) || fail "only $count recipe examples found in h5ufunc-recipe.5"
}

@test "man pages carry the program's version" {
	run --separate-stderr h5u --version
	assert_success
	local version=${lines[0]#h5ufunc }
	grep -q "^\.TH H5UFUNC 1 .*\"h5ufunc $version\"" "$MAN1" || fail "h5ufunc.1 .TH does not say h5ufunc $version"
	grep -q "^\.TH H5UFUNC.-RECIPE 5 .*\"h5ufunc $version\"" "$MAN5" || fail "h5ufunc-recipe.5 .TH does not say h5ufunc $version"
}

@test "complex dtypes, once listed as not yet available, work" {
	fixtures <<-'EOF'
		make f.h5:/x float64 3 data=[1,2,3]
	EOF
	fixture f.h5
	run --separate-stderr h5u call sqrt f.h5:/x --dtype complex128
	assert_success
	assert_output $'1+0j\n1.4142135623730951+0j\n1.7320508075688772+0j'
	run --separate-stderr h5u call negative f.h5:/x --dtype complex64 -o o.h5:/y
	assert_success
	! grep -q "NOT YET AVAILABLE" "$MAN1" || fail "h5ufunc.1 still has a NOT YET AVAILABLE section"
}

@test "what the docs no longer call not yet available works: eval, expr, selections, chunks, compression" {
	fixtures <<<'make f.h5:/x float64 3 data=[1,2,3]'
	fixture f.h5
	run --separate-stderr h5u eval -i x=f.h5:/x 'x + 1'
	assert_success
	run --separate-stderr h5u call negative 'f.h5:/x[0:2]'
	assert_success
	local step
	for step in 'expr: f + 1' \
		'ufunc: negative\n    in: f.h5:/x\n    out: g.h5:/y\n    compression: gzip' \
		'ufunc: negative\n    in: f.h5:/x\n    out: g.h5:/z\n    chunks: auto'; do
		printf "inputs:\n  f: f.h5:/x\nsteps:\n  - $step\n" >r.yaml
		run --separate-stderr h5u run r.yaml
		[[ $status -eq 0 ]] || fail "recipe step '$step': status $status: $stderr"
	done
	# Neither the man pages' lists of what is missing nor README.md's name them.
	local missing word
	missing=$(man_section "$MAN1" "NOT YET AVAILABLE"
		grep -A3 '^Not yet available' "$REPO/README.md" || true
		grep -i -A3 'not yet available' "$MAN5" || true)
	for word in eval expr slicing selection chunks compression; do
		! grep -qi "$word" <<<"$missing" || fail "the docs still call '$word' not yet available"
	done
}

@test "README.md tells a new user about make demo and make check" {
	local readme=$REPO/README.md
	assert_file_exists "$readme"
	grep -q 'make demo' "$readme" || fail "README.md does not mention make demo"
	grep -q 'make check' "$readme" || fail "README.md does not mention make check"
	grep -q 'make install PREFIX=' "$readme" || fail "README.md does not show make install PREFIX=..."
	grep -q 'mpirun ' "$readme" || fail "README.md has no mpirun example"
	grep -q 'srun ' "$readme" || fail "README.md has no srun example"
	grep -q 'man/h5ufunc.1' "$readme" || fail "README.md does not say where the man pages are"
}

@test "README.md lists every file in recipes/" {
	local f missing=()
	for f in "$REPO"/recipes/*; do
		grep -qF "\`${f##*/}\`" "$REPO/README.md" || missing+=("${f##*/}")
	done
	((${#missing[@]} == 0)) || fail "README.md does not list: ${missing[*]}"
}

@test "README.md's recipe is recipes/potential-temperature.yaml without its comment lines" {
	local shown file
	shown=$(awk '/^```yaml$/ { on = 1; next } /^```$/ { on = 0 } on' "$REPO/README.md")
	file=$(grep -v '^#' "$REPO/recipes/potential-temperature.yaml")
	[[ -n $shown && $shown == "$file" ]] ||
		diff <(printf '%s\n' "$file") <(printf '%s\n' "$shown") |
		batslib_decorate "recipes/potential-temperature.yaml (<) against README.md's yaml block (>)" | fail
}

@test "README.md names every source module" {
	local f missing=()
	for f in "$REPO"/src/*.c; do
		f=${f##*/}
		case $f in
		loops_*.c) grep -qF 'loops_*.c' "$REPO/README.md" || missing+=("$f") ;;
		cmd_*.c) grep -qF 'cmd_*.c' "$REPO/README.md" || missing+=("$f") ;;
		*) grep -qF "\`$f\`" "$REPO/README.md" || missing+=("$f") ;;
		esac
	done
	((${#missing[@]} == 0)) || fail "README.md's layout does not name: ${missing[*]}"
}

@test "tools/make-demo-data writes the same sample files every time" {
	run /usr/bin/python3 "$REPO/tools/make-demo-data" data
	assert_success
	run /usr/bin/python3 "$REPO/tools/make-demo-data" again
	assert_success
	local f
	for f in wind air time atmos; do
		assert_file_exists "data/$f.h5"
		[[ $(h5dump "data/$f.h5" | tail -n +2) == "$(h5dump "again/$f.h5" | tail -n +2)" ]] ||
			fail "make-demo-data wrote different $f.h5 files"
	done
}

@test "tools/demo (make demo) runs its recipe on 2 ranks and shows the results" {
	# A copy of the parts of the tree the demo uses, with this build as
	# build/h5ufunc, so that the demo's demo/ is made here.
	mkdir -p tree/tools tree/recipes tree/build
	cp "$REPO/tools/demo" "$REPO/tools/make-demo-data" tree/tools/
	cp "$REPO"/recipes/* tree/recipes/
	ln -s "$H5UFUNC" tree/build/h5ufunc
	run --separate-stderr env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM \
		-u OMPI_MCA_rmaps_base_oversubscribe timeout 300 tree/tools/demo
	assert_success
	assert_stderr_empty
	assert_line --partial "mpirun --oversubscribe -n 2 build/h5ufunc run --set DATA=demo recipes/wind-speed.yaml"
	assert_line --regexp '^speed\.h5:/speed +[0-9.]+, '
	assert_line --regexp '^"[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} [0-9]{4}: h5ufunc run --set DATA=demo recipes/wind-speed\.yaml"$'
	# What it wrote is NumPy's.
	np check hypot tree/demo/wind.h5:/u tree/demo/wind.h5:/v -o tree/demo/speed.h5:/speed
	np check greater_equal tree/demo/speed.h5:/speed 15 -o tree/demo/speed.h5:/windy
}
