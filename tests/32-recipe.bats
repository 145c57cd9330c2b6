#!/usr/bin/env bats
# 32-recipe.bats - the recipe parser: YAML text -> recipe tree (src/recipe.c).
#
# Runs build/unit/recipedump, which prints the tree recipe_parse() reads, one
# node per line with its @LINE:COL, or the error as h5ufunc prints it (exit 2).
# Valid recipes are compared with the whole expected tree; invalid ones with
# the exact message and its line:col.  Nothing here opens HDF5 files.

load helper

setup_file() {
	# RECIPEDUMP runs another build of the driver (a sanitizer build, say).
	unit_program RECIPEDUMP recipedump
	export CASES="$BATS_TEST_DIRNAME/recipe-cases"
}

# recipe: r.yaml from stdin.
recipe() {
	cat > r.yaml
}

# fails POS MESSAGE [NAME=VALUE...]: recipedump r.yaml exits 2 with exactly
# "h5ufunc: r.yaml:POS: MESSAGE" and prints nothing else.
fails() {
	local pos=$1 msg=$2
	shift 2
	run -2 "$RECIPEDUMP" r.yaml "$@"
	assert_output "h5ufunc: r.yaml:$pos: $msg"
}

# dumps: recipedump r.yaml succeeds and prints exactly the header
# "recipe 'r.yaml'", "version 1", "defaults" and then stdin.
dumps() {
	run -0 "$RECIPEDUMP" r.yaml
	assert_output "recipe 'r.yaml'"$'\nversion 1\ndefaults\n'"$(cat)"
}

# A step that is valid, for recipes whose fault is elsewhere.
STEP=$'steps:\n  - ufunc: add\n    in: [a, b]\n'

# ---- Valid recipes -------------------------------------------------------

@test "every key of a recipe, block style" {
	cd "$CASES"
	run -0 "$RECIPEDUMP" full.yaml
	assert_output "$(cat full.out)"
}

@test "flow style gives the same tree as block style" {
	cd "$CASES"
	run -0 "$RECIPEDUMP" full-flow.yaml
	local want
	want=$(sed 's/ @[0-9]*:[0-9]*//g; s/full\.yaml/full-flow.yaml/' full.out)
	assert_equal "$(sed 's/ @[0-9]*:[0-9]*//g' <<< "$output")" "$want"
}

@test "scalar forms: in and out as one text, no out, no version" {
	recipe <<'EOF'
steps:
  - accumulate: multiply
    in: data.h5:/x
  - ufunc: negative
    in: x
    out: y
  - ufunc: modf
    in: x
    out:
EOF
	dumps <<'EOF'
step 1 @2:5
  accumulate 'multiply' @2:17
  in 'data.h5:/x' @3:9
step 2 @4:5
  ufunc 'negative' @4:12
  in 'x' @5:9
  out 'y' @6:10
step 3 @7:5
  ufunc 'modf' @7:12
  in 'x' @8:9
EOF
}

@test "where, fill and missing: kept as written, for the planner" {
	recipe <<'EOF'
defaults:
  missing: mask-nan
steps:
  - expr: x + 1
    where: x > 0
    fill: -1
    missing: off
    pack: int16:0.5:-3
EOF
	dumps <<'EOF'
  missing mask-nan @2:12
step 1 @4:5
  expr 'x + 1' @4:11
  where 'x > 0' @5:12
  fill '-1' @6:11
  missing raw @7:14
  pack int16 scale 0.5 offset -3 @8:11
EOF
	printf 'steps:\n  - ufunc: sqrt\n    in: x\n    missing: maybe\n' > r.yaml
	fails 4:14 "'missing' must be cf, mask, mask-nan, raw or off, found 'maybe'"
}

@test "list forms: eight operands, two outputs, literals kept as written" {
	recipe <<'EOF'
steps:
  - ufunc: f
    in: [a, b, -3, 2.50, 1e-3, nan, -inf, true]
    out: [q, "r.h5:/g/r"]
EOF
	dumps <<'EOF'
step 1 @2:5
  ufunc 'f' @2:12
  in 'a' @3:10
  in 'b' @3:13
  in '-3' @3:16
  in '2.50' @3:20
  in '1e-3' @3:26
  in 'nan' @3:32
  in '-inf' @3:37
  in 'true' @3:43
  out 'q' @4:11
  out 'r.h5:/g/r' @4:14
EOF
}

@test "defaults take every step option" {
	recipe <<'EOF'
defaults:
  dtype: int
  casting: no
  initial: "0"
  keepdims: TRUE
  overwrite: False
  chunks: [1, 2, 3]
  compression: gzip:9
  axis: [-2]
steps:
  - reduce: add
    in: a
EOF
	dumps <<'EOF'
  dtype int64 @2:10
  casting no @3:12
  initial '0' @4:12
  keepdims true @5:13
  overwrite false @6:14
  chunks [1, 2, 3] @7:11
  compression gzip:9 @8:16
  axis [-2] @9:9
step 1 @11:5
  reduce 'add' @11:13
  in 'a' @12:9
EOF
}

@test "axis: null in its spellings is every axis, [] is no axis" {
	recipe <<'EOF'
steps:
  - reduce: add
    in: a
    axis:
  - reduce: add
    in: a
    axis: ~
  - reduce: add
    in: a
    axis: Null
  - reduce: add
    in: a
    axis: []
  - reduce: add
    in: a
    axis: [0, 1, -1]
EOF
	run -0 "$RECIPEDUMP" r.yaml
	run -0 grep axis <<< "$output"
	assert_output - <<'EOF'
  axis all @4:10
  axis all @7:11
  axis all @10:11
  axis [] @13:11
  axis [0, 1, -1] @16:11
EOF
}

@test "booleans: true/false, True/False, TRUE/FALSE" {
	recipe <<'EOF'
steps:
  - reduce: add
    in: a
    keepdims: true
    overwrite: false
  - reduce: add
    in: a
    keepdims: True
    overwrite: False
  - reduce: add
    in: a
    keepdims: TRUE
    overwrite: FALSE
EOF
	run -0 "$RECIPEDUMP" r.yaml
	run -0 grep -E 'keepdims|overwrite' <<< "$output"
	assert_output - <<'EOF'
  keepdims true @4:15
  overwrite false @5:16
  keepdims true @8:15
  overwrite false @9:16
  keepdims true @12:15
  overwrite false @13:16
EOF
}

@test "\${NAME} is filled from --set" {
	recipe <<'EOF'
inputs:
  t: ${DIR}/run${N}.h5:/t
steps:
  - reduce: ${FN}
    in: t
    axis: ${AXIS}
    keepdims: ${KEEP}
    out: "${DIR}/sum.h5:/s"
EOF
	run -0 "$RECIPEDUMP" r.yaml DIR=/data N=7 FN=add AXIS=1 KEEP=true
	assert_output - <<'EOF'
recipe 'r.yaml'
version 1
input t @2:3 = '/data/run7.h5:/t' @2:6
defaults
step 1 @4:5
  reduce 'add' @4:13
  in 't' @5:9
  out '/data/sum.h5:/s' @8:10
  keepdims true @7:15
  axis [1] @6:11
EOF
}

@test "\${NAME} falls back to the environment; --set wins over it" {
	recipe <<'EOF'
steps:
  - ufunc: ${FN}
    in: x
    out: ${OUT}
EOF
	export FN=sqrt OUT=env.h5:/y
	run -0 "$RECIPEDUMP" r.yaml OUT=set.h5:/y
	assert_line "  ufunc 'sqrt' @2:12"
	assert_line "  out 'set.h5:/y' @4:10"
}

@test "\${NAME}: empty values, the last --set, \$\${X} is \$ then \${X}, keys kept" {
	recipe <<'EOF'
steps:
  - reduce: add
    in: a${EMPTY}b
    out: $${X}
    axis: ${EMPTY}
EOF
	run -0 "$RECIPEDUMP" r.yaml EMPTY= X=1 X=2
	assert_line "  in 'ab' @3:9"
	assert_line "  out '\$2' @4:10"
	assert_line "  axis all @5:11"
	recipe <<'EOF'
steps:
  - ufunc: add
    ${K}: a
EOF
	fails 3:5 "unknown key '\${K}' in step (expected in, out, indices, dtype, casting, initial, keepdims, overwrite, vds, chunks, compression, axis, axes, broadcast, units, where, fill, missing, pack or a verb)" K=in
}

@test "recipe from stdin is named <stdin>" {
	printf '%s' "$STEP" > r.yaml
	run -0 "$RECIPEDUMP" - < r.yaml
	assert_line -n 0 "recipe '<stdin>'"
	printf 'steps: 3\n' > r.yaml
	run -2 "$RECIPEDUMP" - < r.yaml
	assert_output "h5ufunc: <stdin>:1:8: 'steps' must be a non-empty list of steps, found '3'"
}

@test "comments, CRLF line ends, a byte-order mark, standard tags, a final ..." {
	printf '\xef\xbb\xbf# c\r\nversion: !!int 1\r\nsteps: !!seq\r\n  - ufunc: !!str add\r\n    in: [a, !!str 2]   # two\r\n...\r\n' > r.yaml
	dumps <<'EOF'
step 1 @4:5
  ufunc 'add' @4:12
  in 'a' @5:10
  in '2' @5:13
EOF
}

@test "values are read by their key, quoted or not" {
	recipe <<'EOF'
version: "1"
steps:
  - reduce: "add"
    in: 'a'
    axis: "0"
    keepdims: "true"
    chunks: ["8"]
EOF
	run -0 "$RECIPEDUMP" r.yaml
	assert_line "  axis [0] @5:11"
	assert_line "  keepdims true @6:15"
	assert_line "  chunks [8] @7:13"
}

@test "a 1 MiB value is accepted" {
	{ printf 'steps:\n  - ufunc: add\n    in: '; head -c 1048576 /dev/zero | tr '\0' x; printf '\n'; } > r.yaml
	run -0 "$RECIPEDUMP" r.yaml
	assert_line -n 3 'step 1 @2:5'
}

# ---- Malformed YAML --------------------------------------------------------

@test "malformed YAML: a mapping where a scalar was going" {
	recipe <<'EOF'
steps:
  - ufunc: add
    in: a: b
EOF
	fails 3:10 "mapping values are not allowed in this context"
}

@test "malformed YAML: an unclosed quote" {
	recipe <<'EOF'
steps:
  - ufunc: add
    in: "a
EOF
	fails 4:1 "found unexpected end of stream (while scanning a quoted scalar at 3:9)"
}

@test "malformed YAML: an unclosed flow list" {
	recipe <<'EOF'
steps:
  - ufunc: add
    in: [a, b
EOF
	fails 4:1 "did not find expected ',' or ']' (while parsing a flow sequence at 3:9)"
}

@test "malformed YAML: bad indentation" {
	recipe <<'EOF'
steps:
  - ufunc: add
    in: a
  out: b
EOF
	fails 4:3 "did not find expected '-' indicator (while parsing a block collection at 2:3)"
}

@test "tabs: a tab that indents a line" {
	printf 'steps:\n\t- ufunc: add\n' > r.yaml
	fails 2:1 "found character that cannot start any token (a tab: YAML indents with spaces)"
	printf 'steps:\n  - ufunc: add\n\tin: [a]\n' > r.yaml
	fails 3:1 "found a tab character that violates indentation (while scanning a plain scalar at 2:12)"
}

@test "invalid UTF-8" {
	printf 'steps:\n  - ufunc: add\n    in: caf\xe9\n' > r.yaml
	fails 3:12 "incomplete UTF-8 octet sequence"
	printf 'steps:\n  - ufunc: add\n    in: \xc3\xa9\xff\n' > r.yaml
	fails 3:10 "invalid leading UTF-8 octet (byte 0xff)"
}

@test "control characters and NUL" {
	printf 'steps:\n  - ufunc: add\n    in: a\0b\n' > r.yaml
	fails 3:10 "control characters are not allowed (byte 0x00)"
	printf 'steps:\n  - ufunc: add\n    in: "a\\0b"\n' > r.yaml
	fails 3:9 "value holds a NUL character"
}

@test "an empty recipe, and one that is not a mapping" {
	: > r.yaml
	fails 1:1 "recipe is empty (expected a mapping with 'steps')"
	printf '# nothing but a comment\n' > r.yaml
	fails 1:1 "recipe is empty (expected a mapping with 'steps')"
	printf -- '- ufunc: add\n' > r.yaml
	fails 1:1 "a recipe must be a mapping with 'steps', found a list"
	printf 'hypot\n' > r.yaml
	fails 1:1 "a recipe must be a mapping with 'steps', found 'hypot'"
}

@test "multiple documents" {
	recipe <<EOF
${STEP}---
${STEP}
EOF
	fails 4:1 "recipe holds more than one YAML document"
}

# ---- Keys ----------------------------------------------------------------

@test "unknown key at the top" {
	recipe <<'EOF'
step:
  - ufunc: add
EOF
	fails 1:1 "unknown key 'step' at the top of the recipe (expected version, inputs, steps or defaults)"
}

@test "unknown key in a step" {
	recipe <<'EOF'
steps:
  - ufunc: add
    in: [a, b]
    ouput: c.h5:/c
EOF
	fails 4:5 "unknown key 'ouput' in step (expected in, out, indices, dtype, casting, initial, keepdims, overwrite, vds, chunks, compression, axis, axes, broadcast, units, where, fill, missing, pack or a verb)"
}

@test "unknown key in defaults, verbs included" {
	recipe <<EOF
defaults:
  compresion: gzip
${STEP}
EOF
	fails 2:3 "unknown key 'compresion' in defaults (expected dtype, casting, initial, keepdims, overwrite, vds, chunks, compression, axis, axes, broadcast, units, where, fill, missing or pack)"
	recipe <<EOF
defaults:
  ufunc: add
${STEP}
EOF
	fails 2:3 "unknown key 'ufunc' in defaults (expected dtype, casting, initial, keepdims, overwrite, vds, chunks, compression, axis, axes, broadcast, units, where, fill, missing or pack)"
}

@test "a mapping key that is not a name" {
	recipe <<'EOF'
steps:
  - ufunc: add
    ? [in]
    : a
EOF
	fails 3:7 "a mapping key must be a name, found a list"
}

@test "duplicate keys: in a step, at the top, in defaults, among inputs" {
	recipe <<'EOF'
steps:
  - ufunc: add
    in: a
    in: b
EOF
	fails 4:5 "duplicate key 'in' (first at 3:5)"
	recipe <<EOF
${STEP}steps: []
EOF
	fails 4:1 "duplicate key 'steps' (first at 1:1)"
	recipe <<EOF
defaults: {dtype: int8, dtype: int8}
${STEP}
EOF
	fails 1:25 "duplicate key 'dtype' (first at 1:12)"
	recipe <<EOF
inputs:
  a: x.h5:/a
  a: x.h5:/b
${STEP}
EOF
	fails 3:3 "duplicate key 'a' (first at 2:3)"
	recipe <<'EOF'
steps:
  - ufunc: add
    ufunc: add
EOF
	fails 3:5 "duplicate key 'ufunc' (first at 2:5)"
}

# ---- Steps ---------------------------------------------------------------

@test "a step with two verbs" {
	recipe <<'EOF'
steps:
  - ufunc: add
    in: [a, b]
    reduce: add
EOF
	fails 4:5 "step has two verbs, 'ufunc' and 'reduce'"
}

@test "a step with no verb" {
	recipe <<'EOF'
steps:
  - in: [a, b]
    out: c
EOF
	fails 2:5 "step has no verb (ufunc, reduce, accumulate, outer, expr, reduceat or at)"
	printf 'steps: [{}]\n' > r.yaml
	fails 1:9 "step has no verb (ufunc, reduce, accumulate, outer, expr, reduceat or at)"
}

@test "a verb with no name" {
	recipe <<'EOF'
steps:
  - ufunc:
    in: a
EOF
	fails 2:11 "'ufunc' must be a ufunc name, found null"
	printf 'steps:\n  - expr: [a]\n' > r.yaml
	fails 2:11 "'expr' must be an expression, found a list"
}

@test "steps missing" {
	recipe <<'EOF'
version: 1
inputs: {a: x.h5:/a}
EOF
	fails 1:1 "recipe has no 'steps' (a list of steps)"
}

@test "steps empty" {
	printf 'steps: []\n' > r.yaml
	fails 1:8 "'steps' must be a non-empty list of steps, found an empty list"
	printf 'steps:\n' > r.yaml
	fails 1:7 "'steps' must be a non-empty list of steps, found null"
}

@test "steps not a list, a step not a mapping" {
	recipe <<'EOF'
steps:
  ufunc: add
  in: a
EOF
	fails 2:3 "'steps' must be a non-empty list of steps, found a mapping"
	printf 'steps: add\n' > r.yaml
	fails 1:8 "'steps' must be a non-empty list of steps, found 'add'"
	printf 'steps:\n  - add\n' > r.yaml
	fails 2:5 "a step must be a mapping with a verb (ufunc, reduce, accumulate, outer, expr, reduceat or at), found 'add'"
}

@test "in: missing, empty, too many, not scalars; not with expr" {
	printf 'steps:\n  - reduce: add\n    out: x\n' > r.yaml
	fails 2:5 "'reduce' step has no 'in' (its operands)"
	printf 'steps:\n  - ufunc: add\n    in: []\n' > r.yaml
	fails 3:9 "'in' must be an operand or a list of operands, found an empty list"
	printf 'steps:\n  - ufunc: add\n    in: [a, b, c, d, e, f, g, h, i]\n' > r.yaml
	fails 3:34 "'in' has more than 8 operands"
	printf 'steps:\n  - ufunc: add\n    in: [a, {b: c}]\n' > r.yaml
	fails 3:13 "'in' must be an operand or a list of operands, found a mapping in the list"
	printf 'steps:\n  - ufunc: add\n    in: [a, ""]\n' > r.yaml
	fails 3:13 "'in' must be an operand or a list of operands, found '' in the list"
	printf 'steps:\n  - expr: a + b\n    in: [a, b]\n' > r.yaml
	fails 3:5 "'in' is not allowed with 'expr' (the expression names its operands)"
}

@test "out: too many, empty list" {
	printf 'steps:\n  - ufunc: divmod\n    in: [a, b]\n    out: [q, r, s]\n' > r.yaml
	fails 4:17 "'out' has more than 2 outputs"
	printf 'steps:\n  - ufunc: divmod\n    in: [a, b]\n    out: []\n' > r.yaml
	fails 4:10 "'out' must be an output or a list of one or two outputs, found an empty list"
}

@test "options that belong to other verbs" {
	printf 'steps:\n  - ufunc: add\n    in: [a, b]\n    keepdims: true\n' > r.yaml
	fails 4:5 "'keepdims' applies to reduce steps only"
	printf 'steps:\n  - accumulate: add\n    in: a\n    initial: 0\n' > r.yaml
	fails 4:5 "'initial' applies to reduce steps only"
	printf 'steps:\n  - outer: add\n    in: [a, b]\n    axis: 0\n' > r.yaml
	fails 4:5 "'axis' applies to ufunc, reduce, accumulate and reduceat steps only"
	printf 'steps:\n  - outer: add\n    in: [a, b]\n    axes: [0, 0, 0]\n' > r.yaml
	fails 4:5 "'axes' applies to ufunc steps only"
}

@test "at and reduceat need indices, which other steps refuse; where on accumulate steps" {
	printf 'steps:\n  - accumulate: add\n    in: a\n    where: m\n' > r.yaml
	fails 4:5 "'where' applies to ufunc, reduce and expr steps only"
	printf 'steps:\n  - at: add\n    in: [a, i]\n' > r.yaml
	fails 2:5 "'at' step has no 'indices'"
	printf 'steps:\n  - reduceat: add\n    in: [a, i]\n' > r.yaml
	fails 2:5 "'reduceat' step has no 'indices'"
	printf 'steps:\n  - reduce: add\n    in: a\n    indices: [0, 1]\n' > r.yaml
	fails 4:5 "'indices' applies to reduceat and at steps only"
	printf 'steps:\n  - at: add\n    in: [a, 1]\n    indices: [0]\n    out: a\n' > r.yaml
	fails 5:5 "'out' is not allowed with 'at' (it writes into its first operand)"
	printf 'steps:\n  - reduceat: add\n    in: a\n    indices: {a: 1}\n' > r.yaml
	fails 4:14 "'indices' must be a dataset, a list of integers, or a list of them, found a mapping"
	printf 'steps:\n  - at: add\n    in: a\n    indices: [[0, x]]\n' > r.yaml
	fails 4:19 "'indices' must be a list of integers, found 'x' in a list"
}

# ---- Option values -------------------------------------------------------

@test "bad dtype" {
	printf 'steps:\n  - ufunc: add\n    in: [a, b]\n    dtype: float8\n' > r.yaml
	fails 4:12 "unknown dtype 'float8'"
	printf 'steps:\n  - ufunc: add\n    in: [a, b]\n    dtype:\n' > r.yaml
	fails 4:11 "'dtype' must be a dtype name, found null"
}

@test "bad casting" {
	printf 'steps:\n  - ufunc: add\n    in: [a, b]\n    casting: sloppy\n' > r.yaml
	fails 4:14 "unknown casting 'sloppy' (expected no, equiv, safe, same_kind or unsafe)"
}

@test "bad compression" {
	printf 'steps:\n  - ufunc: add\n    in: [a, b]\n    compression: gzip:10\n' > r.yaml
	local names="gzip, gzip:N with N from 0 to 9, lzf, bzip2, bzip2:N with N from 1 to 9, lz4, blosc, blosc:N with N from 0 to 9 or zfp"
	fails 4:18 "'compression' must be $names, found 'gzip:10'"
	printf 'steps:\n  - ufunc: add\n    in: [a, b]\n    compression: lzf:3\n' > r.yaml
	fails 4:18 "'compression' must be $names, found 'lzf:3'"
	printf 'steps:\n  - ufunc: add\n    in: [a, b]\n    compression: bzip2:0\n' > r.yaml
	fails 4:18 "'compression' must be $names, found 'bzip2:0'"
	printf 'steps:\n  - ufunc: add\n    in: [a, b]\n    compression: gzipx\n' > r.yaml
	fails 4:18 "'compression' must be $names, found 'gzipx'"
	printf 'defaults:\n  compression: {gzip: 5}\n%s' "$STEP" > r.yaml
	fails 2:16 "'compression' must be $names, found a mapping"
}

@test "bad chunks" {
	printf 'steps:\n  - ufunc: add\n    in: [a, b]\n    chunks: [10, 0]\n' > r.yaml
	fails 4:18 "'chunks' must be auto or a list of positive integers, found '0'"
	printf 'steps:\n  - ufunc: add\n    in: [a, b]\n    chunks: [-1]\n' > r.yaml
	fails 4:14 "'chunks' must be auto or a list of positive integers, found '-1'"
	printf 'steps:\n  - ufunc: add\n    in: [a, b]\n    chunks: []\n' > r.yaml
	fails 4:13 "'chunks' must be auto or a list of positive integers, found an empty list"
	printf 'steps:\n  - ufunc: add\n    in: [a, b]\n    chunks: 64\n' > r.yaml
	fails 4:13 "'chunks' must be auto or a list of positive integers, found '64'"
	printf 'steps:\n  - ufunc: add\n    in: [a, b]\n    chunks: [99999999999999999999]\n' > r.yaml
	fails 4:14 "'chunks' must be auto or a list of positive integers, found '99999999999999999999'"
}

@test "bad axis" {
	printf 'steps:\n  - reduce: add\n    in: a\n    axis: [0, 2x]\n' > r.yaml
	fails 4:15 "'axis' must be an integer, a dimension name, a list of them or null, found '2x'"
	printf 'steps:\n  - reduce: add\n    in: a\n    axis: 1.5\n' > r.yaml
	fails 4:11 "'axis' must be an integer, a dimension name, a list of them or null, found '1.5'"
	printf 'steps:\n  - reduce: add\n    in: a\n    axis: [[0]]\n' > r.yaml
	fails 4:12 "'axis' must be an integer, a dimension name, a list of them or null, found a list"
	printf 'steps:\n  - reduce: add\n    in: a\n    axis: 99999999999\n' > r.yaml
	fails 4:11 "axis 99999999999 is out of range"
}

@test "bad booleans" {
	printf 'steps:\n  - reduce: add\n    in: a\n    keepdims: yes\n' > r.yaml
	fails 4:15 "'keepdims' must be true or false, found 'yes'"
	printf 'steps:\n  - reduce: add\n    in: a\n    overwrite: 1\n' > r.yaml
	fails 4:16 "'overwrite' must be true or false, found '1'"
	printf 'defaults:\n  overwrite:\n%s' "$STEP" > r.yaml
	fails 2:13 "'overwrite' must be true or false, found null"
}

# ---- Version, inputs -----------------------------------------------------

@test "version 2 and other versions" {
	printf 'version: 2\n%s' "$STEP" > r.yaml
	fails 1:10 "unsupported recipe version 2 (this h5ufunc reads version 1)"
	printf 'version: 1.0\n%s' "$STEP" > r.yaml
	fails 1:10 "unsupported recipe version 1.0 (this h5ufunc reads version 1)"
	printf 'version: [1]\n%s' "$STEP" > r.yaml
	fails 1:10 "'version' must be 1, found a list"
}

@test "input names must be identifiers" {
	printf 'inputs:\n  2a: x.h5:/a\n%s' "$STEP" > r.yaml
	fails 2:3 "input name '2a' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)"
	printf 'inputs:\n  a-b: x.h5:/a\n%s' "$STEP" > r.yaml
	fails 2:3 "input name 'a-b' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)"
}

@test "inputs: not a mapping, a name with no reference" {
	printf 'inputs: [a, b]\n%s' "$STEP" > r.yaml
	fails 1:9 "'inputs' must be a mapping of names to datasets, found a list"
	printf 'inputs:\n  a:\n%s' "$STEP" > r.yaml
	fails 2:5 "input 'a' must be a dataset (FILE:/PATH) or a number, found null"
}

# ---- YAML features refused -----------------------------------------------

@test "aliases and anchors" {
	recipe <<'EOF'
inputs:
  a: &w wind.h5:/u
steps:
  - ufunc: add
    in: [*w, a]
EOF
	fails 5:10 "YAML aliases are not supported"
	recipe <<'EOF'
steps:
  - &s
    ufunc: add
    in: a
EOF
	fails 2:5 "YAML anchors are not supported"
}

@test "tags other than the standard ones" {
	printf 'steps:\n  - ufunc: add\n    in: !file a.h5\n' > r.yaml
	fails 3:9 "unsupported YAML tag '!file'"
	printf 'steps:\n  - ufunc: add\n    in: !!binary aGVsbG8=\n' > r.yaml
	fails 3:9 "unsupported YAML tag '!!binary'"
	printf 'steps: !!map\n  - ufunc: add\n' > r.yaml
	fails 1:8 "unsupported YAML tag '!!map'"
}

@test "deep nesting is refused at the first level out of place" {
	{ printf 'steps:\n  - ufunc: add\n    in: '; printf '[%.0s' {1..40}; printf a; printf ']%.0s' {1..40}; printf '\n'; } > r.yaml
	fails 3:10 "'in' must be an operand or a list of operands, found a list in the list"
	{ printf 'steps: '; head -c 10000000 /dev/zero | tr '\0' '['; } > r.yaml
	fails 1:9 "a step must be a mapping with a verb (ufunc, reduce, accumulate, outer, expr, reduceat or at), found a list"
	head -c 10000000 /dev/zero | tr '\0' '{' > r.yaml
	fails 1:2 "a mapping key must be a name, found a mapping"
}

# ---- Sizes ---------------------------------------------------------------

@test "a 10 MB single-line recipe is refused quickly" {
	{ printf 'steps: '; head -c 10000000 /dev/zero | tr '\0' x; } > r.yaml
	local t0=$(date +%s%N)
	fails 1:8 "value is longer than 1 MiB"
	local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	echo "# ${ms} ms" >&3
	[ "$ms" -lt 5000 ]
	{ printf '{steps: ['; yes '{ufunc: a, in: b},' | head -n 600000 | tr -d '\n'; printf ']}'; } > r.yaml
	t0=$(date +%s%N)
	fails 1:1179658 "recipe has more than 65536 steps"
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	[ "$ms" -lt 5000 ]
}

@test "a value over 1 MiB, also after substitution" {
	{ printf 'steps:\n  - ufunc: add\n    in: "'; head -c 1048577 /dev/zero | tr '\0' x; printf '"\n'; } > r.yaml
	fails 3:9 "value is longer than 1 MiB"
	local a
	a=$(head -c 100000 /dev/zero | tr '\0' x)
	printf 'steps:\n  - ufunc: add\n    in: ${A}${A}${A}${A}${A}${A}${A}${A}${A}${A}${A}\n' > r.yaml
	fails 3:9 "value is longer than 1 MiB after \${NAME} substitution" A="$a"
}

# ---- Variables -----------------------------------------------------------

@test "undefined \${VAR}" {
	unset OUTDIR
	printf 'steps:\n  - ufunc: add\n    in: [a, b]\n    out: ${OUTDIR}/c.h5:/c\n' > r.yaml
	fails 4:10 "\${OUTDIR} is not set (use --set OUTDIR=VALUE)"
}

@test "\${ unclosed, \${} not a name" {
	printf 'steps:\n  - ufunc: add\n    in: ${A\n' > r.yaml
	fails 3:9 "'\${' has no closing '}'"
	printf 'steps:\n  - ufunc: add\n    in: ${1A}\n' > r.yaml
	fails 3:9 "'\${1A}' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)"
}
