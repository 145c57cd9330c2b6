# helper.bash - what every h5ufunc Bats file loads: `load helper`.
#
# It loads bats-support, bats-assert and bats-file, makes each test's own
# temporary directory (BATS_TEST_TMPDIR) the working directory, and gives
# the functions below.  It does not build anything and does not decide what
# is right: expected values come from NumPy through tests/np.py.
#
# Environment: H5UFUNC (default: build/h5ufunc of this tree; the file must
# be called h5ufunc) names the binary; its directory is put first on PATH, so
# the program is run as `h5ufunc` (the name the history attribute records).
# H5U_UNIT (default: unit/ beside H5UFUNC; tests/run sets it before it
# copies the binary) holds the unit programs of the same build.
# The Open MPI variables for running as root and oversubscribing are exported,
# and a session directory base of the test's own (OMPI_MCA_orte_tmpdir_base);
# Python and NumPy are pinned (numpy_pin.bash: none of the caller's
# PYTHON* or NPY_* variables, no user site directory; tests/ alone on
# PYTHONPATH, so that the Python a test writes inline imports the reference
# library as the scripts do: `import h5ref`).
#
#   h5u ARGS...          run h5ufunc ARGS on one process, no launcher, under
#                        a 120 s timeout.  Use it with `run`, e.g.
#                        `run --separate-stderr h5u call add f.h5:/x 1`.
#   mpi N CMD...         mpirun --oversubscribe -n N CMD... under a timeout of
#                        H5U_MPI_TIMEOUT seconds (300 unless the caller set it),
#                        e.g. `mpi 3 h5ufunc run r.yaml`.
#   np JOB [:: JOB]...   /usr/bin/python3 tests/np.py (see its docstring):
#                        fixtures, NumPy's expected values, comparisons.
#                        Without arguments it reads one job per line on stdin.
#   ref JOB [:: JOB]...  the file's own reference script, tests/$REF (a file
#                        sets REF=reduce_ref.py, say, before its tests; `REF=X
#                        ref ...` runs another), with JOB...: its docstring
#                        says which jobs it has.
#   fixtures             like `np` with jobs on stdin, run in BATS_FILE_TMPDIR:
#                        call it in setup_file to make a file's fixtures once.
#   fixture NAME...      copy fixture files made by `fixtures` into the
#                        test's directory (one cp; NAMEs without a
#                        directory).
#   snapshot             remember a checksum of every file and directory in
#                        the test's directory (hidden ones included).
#   assert_unchanged     fail unless the test's directory is exactly as at
#                        the last `snapshot`: no file changed, none appeared,
#                        none vanished.
#   assert_error STATUS TEXT
#                        after `run --separate-stderr`: exit STATUS, nothing
#                        on stdout, and stderr is the one line
#                        "h5ufunc: TEXT" (trailing blanks ignored), followed
#                        at most by the excerpt of the recipe that points at
#                        the place ("  7 |     in: [a, b]" and "    |  ^").
#   assert_error_match STATUS REGEX
#                        the same, stderr matching "^h5ufunc: REGEX$" (ERE).
#   assert_error_once STATUS TEXT
#                        for mpirun runs: exit STATUS, and exactly one line
#                        of stderr starts with "h5ufunc:", and it is
#                        "h5ufunc: TEXT" (the launcher may add its own lines).
#   assert_error_once_match STATUS REGEX
#                        assert_error_once with an ERE.
#   assert_stderr_empty  after `run --separate-stderr`: nothing on stderr.
#   ok ARGS...           h5ufunc ARGS (through h5u) succeeds with nothing
#                        on stderr; on failure its stderr is shown.
#   numpy_errors RANKS   read "COMMAND|MESSAGE" lines from stdin: NumPy
#                        raises MESSAGE for COMMAND (reduce_ref.py raises),
#                        and h5ufunc COMMAND -o o.h5:/r fails with exit 2
#                        and "h5ufunc: VERB UFUNC: MESSAGE", on one process
#                        and once on RANKS ranks.
#   one_liners CASES OUT run every case of the file CASES ("ID VERB UFUNC
#                        ARGS...", # comments) as its h5ufunc command line
#                        on one process, writing OUT:/ID (VERB outer: `call
#                        UFUNC.outer`); fails naming the cases that fail and
#                        their messages.
#   on_ranks MEMORY YAML FILE [FROM] -- JOB...
#                        run the recipe YAML on one process, then on 1, 2, 3
#                        and 4 ranks at --memory MEMORY, run n with FILE
#                        (x.h5) renamed FILEn (x1.h5) in a copy of YAML
#                        (rn.yaml), FILEn copied from FROM first when given;
#                        each run must succeed, and then `ref JOB` for each
#                        of the five, the word FILE in JOB its own file.
#                        Uneven splits and ranks with no rows: the recipe's
#                        shapes choose them.
#   unit_program VAR NAME
#                        in setup_file: export VAR as the unit program
#                        $H5U_UNIT/NAME (VAR's own value when it is set: a
#                        build elsewhere); fails, saying to run make, when
#                        the program is missing.
#   fused_steps          after `run h5u check ...`: the numbers of the steps
#                        the plan fuses into another, one per line.
#   now                  seconds since the epoch (for `np history --since`).
#   wait_for GLOB SECONDS
#                        wait until a file matching GLOB exists (status 1
#                        when none does by then).
#   kill_background      SIGKILL the processes whose ids a test keeps in
#                        H5U_BACKGROUND (call it in teardown).

bats_require_minimum_version 1.5.0

# Bats sources this file again for every test, so it starts no process: the
# libraries' own load.bash files spend a subshell on each of their sixteen
# files (dirname), which cost more than most tests; their function files
# are sourced here directly.
h5u_lib=
for h5u_lib in /usr/lib/bats/bats-support/src/*.bash /usr/lib/bats/bats-assert/src/*.bash \
	/usr/lib/bats/bats-file/src/*.bash; do
	source "$h5u_lib" || exit 1
done
declare -F assert_success assert_file_exists >/dev/null || {
	echo "helper.bash: bats-support, bats-assert or bats-file is missing under /usr/lib/bats" >&2
	exit 1
}
unset h5u_lib

H5U_TESTS=${BASH_SOURCE[0]%/*}
[[ $H5U_TESTS == /* ]] || H5U_TESTS=$PWD/$H5U_TESTS
: "${H5UFUNC:=$H5U_TESTS/../build/h5ufunc}"
[[ $H5UFUNC == /* ]] || H5UFUNC=$PWD/$H5UFUNC
[[ :$PATH: == *":${H5UFUNC%/*}:"* ]] || PATH="${H5UFUNC%/*}:$PATH"
: "${H5U_UNIT:=${H5UFUNC%/*}/unit}"
export H5UFUNC PATH H5U_UNIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

# The reference is the same Python and NumPy on every machine
# (numpy_pin.bash says how: tests/ on PYTHONPATH, no other PYTHON*
# variable, no user site); tests/run pins them once for the whole run.
source "$H5U_TESTS/numpy_pin.bash"

# Each mpirun (and each singleton h5ufunc --mpi) of a test or of a file's
# setup_file keeps its Open MPI session directory under a base of its own,
# removed with bats's run directory: runs at the same time on one machine
# would otherwise race to make the shared /tmp/ompi.HOST.UID ("File
# exists").  Not in the test's directory, which tests compare before and
# after; not where the path would be too long for a socket.
if [[ -n ${BATS_RUN_TMPDIR:-} && ${#BATS_RUN_TMPDIR} -lt 60 ]] &&
	OMPI_MCA_orte_tmpdir_base=$(mktemp -d "$BATS_RUN_TMPDIR/ompi.XXXXXX"); then
	export OMPI_MCA_orte_tmpdir_base
fi

# Each test runs in its own directory.  (setup_file runs before any test
# directory exists; it works in BATS_FILE_TMPDIR through `fixtures`.)
if [[ -n ${BATS_TEST_TMPDIR:-} ]]; then
	cd "$BATS_TEST_TMPDIR" || exit 1
fi

h5u() {
	timeout 120 h5ufunc "$@"
}

on_ranks() {
	local memory=$1 yaml=$2 file=$3 from= n out w jobs=()
	shift 3
	[[ $1 == -- ]] || { from=$1; shift; }
	shift
	run --separate-stderr h5u run "$yaml"
	assert_success
	for n in '' 1 2 3 4; do
		out=${file%.*}$n.${file##*.}
		if [[ -n $n ]]; then
			[[ -z $from ]] || cp "$from" "$out"
			sed "s/${file//./\\.}/$out/g" "$yaml" >"r$n.yaml"
			run --separate-stderr mpi "$n" h5ufunc run --memory "$memory" "r$n.yaml"
			assert_success
		fi
		for w in "$@"; do
			[[ $w != "$file" ]] || w=$out
			jobs+=("$w")
		done
		jobs+=(::)
	done
	run ref "${jobs[@]}"
	assert_success
}

# An MPI run that hangs fails its test rather than stopping the suite; a
# run that only waits for the CPU must not.  60 s failed runs of 3 and 4
# oversubscribed ranks on a loaded 2-core machine; a hang is still caught.
export H5U_MPI_TIMEOUT=${H5U_MPI_TIMEOUT:-300}

mpi() {
	local n=$1
	shift
	timeout "$H5U_MPI_TIMEOUT" mpirun --oversubscribe -n "$n" "$@"
}

np() {
	/usr/bin/python3 "$H5U_TESTS/np.py" "$@"
}

ref() {
	/usr/bin/python3 "$H5U_TESTS/${REF:?the test file sets no REF (its reference script)}" "$@"
}

fixtures() {
	(cd "$BATS_FILE_TMPDIR" && /usr/bin/python3 "$H5U_TESTS/np.py")
}

fixture() {
	(($# > 0)) || return 0
	cp "${@/#/$BATS_FILE_TMPDIR/}" . || return 1
}

# run_copy DIR N FIXTURE YAML [OPTION...]: in a new directory DIR with a
# copy of the fixture FIXTURE and of the recipe YAML, run YAML there with
# the OPTIONs, without a launcher (N empty) or on N ranks.
run_copy() {
	local dir=$1 n=$2 file=$3 yaml=$4
	shift 4
	mkdir "$dir"
	cp "$yaml" "$dir"/
	(
		cd "$dir" && fixture "$file" || exit 1
		if [[ -z $n ]]; then
			h5u run "$@" "$yaml"
		else
			mpi "$n" h5ufunc run "$@" "$yaml"
		fi
	)
}

now() {
	date +%s
}

wait_for() {
	local i
	for ((i = 0; i < $2 * 20; i++)); do
		compgen -G "$1" >/dev/null && return 0
		sleep 0.05
	done
	return 1
}

kill_background() {
	local pid
	for pid in ${H5U_BACKGROUND:-}; do
		kill -KILL "$pid" 2>/dev/null || true
	done
	H5U_BACKGROUND=
}

# The state of the test directory: a line with the type and path of every
# entry, and the checksum of every file (a link to a file: its target's),
# whatever their number in four processes (a subshell, find, its sha256sum,
# sort).  Bats' own files for `run --separate-stderr` are left out.
h5u_dir_state() {
	(
		cd "$BATS_TEST_TMPDIR" || exit 1
		find . -mindepth 1 ! -name 'separate-stderr-*' -printf '%y %p\n' \
			\( -xtype f -exec sha256sum {} + \)
	) | LC_ALL=C sort
}

snapshot() {
	H5U_SNAPSHOT=$(h5u_dir_state)
}

assert_unchanged() {
	local current
	current=$(h5u_dir_state)
	if [[ $current != "$H5U_SNAPSHOT" ]]; then
		diff <(printf '%s\n' "$H5U_SNAPSHOT") <(printf '%s\n' "$current") |
			batslib_decorate "the test directory changed (< before, > after)" |
			fail
	fi
}

ok() {
	run --separate-stderr h5u "$@"
	[[ $status == 0 ]] || echo "$stderr"
	assert_success
	assert_stderr_empty
}

assert_stderr_empty() {
	if [[ -n ${stderr:-} ]]; then
		batslib_print_kv_single_or_multi 8 stderr "$stderr" |
			batslib_decorate "stderr is not empty" | fail
	fi
}

# h5u_check_error STATUS MODE WANT: the shared part of assert_error*.
h5u_check_error() {
	local want_status=$1 mode=$2 want=$3 line problem=
	if [[ $status -ne $want_status ]]; then
		problem="exit status $status, want $want_status"
	elif [[ -n $output ]]; then
		problem="stdout is not empty"
	elif [[ ${#stderr_lines[@]} -lt 1 ]]; then
		problem="stderr is empty"
	elif ! h5u_only_excerpt "${stderr_lines[@]:1}"; then
		problem="stderr has more than the message (and the recipe excerpt under it)"
	else
		line=${stderr_lines[0]}
		line=${line%"${line##*[![:space:]]}"}
		if [[ $mode == exact && $line != "h5ufunc: $want" ]]; then
			problem="stderr is not the expected message"
		elif [[ $mode == match && ! $line =~ ^h5ufunc:\ ($want)$ ]]; then
			problem="stderr does not match"
		fi
	fi
	if [[ -n $problem ]]; then
		{
			printf 'problem : %s\n' "$problem"
			printf 'want    : %s%s\n' "$([[ $mode == match ]] && echo '/^h5ufunc: ' || echo 'h5ufunc: ')" "$want$([[ $mode == match ]] && echo '$/')"
			printf 'status  : %s\n' "$status"
			batslib_print_kv_single_or_multi 8 stdout "$output" stderr "${stderr:-}"
		} | batslib_decorate "h5ufunc did not fail as expected" | fail
	fi
}

# h5u_only_excerpt LINE...: true when the lines are nothing but the excerpt
# of the recipe that may follow a message (house style, as jq does): a
# numbered source line "  7 |     in: [a, b]" and a caret line "    |  ^".
h5u_only_excerpt() {
	local line
	for line in "$@"; do
		[[ $line =~ ^\ *[0-9]+\ \|( |$) || $line =~ ^\ *\|\ *[~^]+\ *$ ]] || return 1
	done
}

assert_error() {
	h5u_check_error "$1" exact "$2"
}

assert_error_match() {
	h5u_check_error "$1" match "$2"
}

assert_error_once() {
	local want_status=$1 want=$2 ours problem=
	ours=$(printf '%s\n' "${stderr:-}" | grep '^h5ufunc:' || true)
	ours=${ours%"${ours##*[![:space:]]}"}
	if [[ $status -ne $want_status ]]; then
		problem="exit status $status, want $want_status"
	elif [[ $ours != "h5ufunc: $want" ]]; then
		problem="the h5ufunc lines of stderr are not the one expected message"
	fi
	if [[ -n $problem ]]; then
		{
			printf 'problem : %s\n' "$problem"
			printf 'want    : h5ufunc: %s\n' "$want"
			batslib_print_kv_single_or_multi 8 stdout "$output" stderr "${stderr:-}"
		} | batslib_decorate "h5ufunc did not fail as expected" | fail
	fi
}

# assert_error_once_match STATUS REGEX: assert_error_once with an ERE.
assert_error_once_match() {
	local ours
	ours=$(printf '%s\n' "${stderr:-}" | grep '^h5ufunc:' || true)
	if [[ $status -ne $1 || ! $ours =~ ^h5ufunc:\ ($2)$ ]]; then
		{
			printf 'want    : exit %s, /^h5ufunc: %s$/ once\n' "$1" "$2"
			printf 'status  : %s\n' "$status"
			batslib_print_kv_single_or_multi 8 stdout "$output" stderr "${stderr:-}"
		} | batslib_decorate "h5ufunc did not fail as expected" | fail
	fi
}

numpy_errors() {
	local ranks=$1 cmd message
	while IFS='|' read -r cmd message; do
		# shellcheck disable=SC2086
		REF=reduce_ref.py ref raises $cmd -- "$message"
		# shellcheck disable=SC2086
		run --separate-stderr h5u $cmd -o o.h5:/r
		assert_error 2 "${cmd% *.h5:*}: $message"
		# shellcheck disable=SC2086
		run --separate-stderr mpi "$ranks" h5ufunc $cmd -o o.h5:/r
		assert_error_once 2 "${cmd% *.h5:*}: $message"
	done
}

one_liners() {
	local id verb uf rest failed=() cmd
	while read -r id verb uf rest; do
		[[ -z $id || $id == \#* ]] && continue
		cmd=("$verb" "$uf")
		[[ $verb == outer ]] && cmd=(call "$uf.outer")
		# shellcheck disable=SC2086
		h5u "${cmd[@]}" $rest -o "$2:/$id" 2>err.txt ||
			failed+=("$id: h5ufunc ${cmd[*]} $rest: $(cat err.txt)")
	done <"$1"
	((${#failed[@]} == 0)) || fail "$(printf '%s\n' "${failed[@]}")"
}

# `h5u call` with the words of each line of stdin in turn (UFUNC
# OPERAND... -o OUT [OPTION...]); the first that fails fails the test.
calls() {
	local words
	while read -ra words; do
		((${#words[@]})) || continue
		h5u call "${words[@]}" || fail "h5ufunc call ${words[*]}: exit $?"
	done
}

unit_program() {
	local path=${!1:-$H5U_UNIT/$2}
	if [[ ! -x $path ]]; then
		echo "${BATS_TEST_FILENAME##*/}: $path is missing: run make" >&2
		return 1
	fi
	export "$1=$path"
}

fused_steps() {
	sed -n 's/^step \([0-9]*\): .*, fused into step [0-9]*$/\1/p' <<<"$output"
}
