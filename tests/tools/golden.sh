#!/usr/bin/env bash
# Usage: golden.sh GOLDEN_FILE SOURCE_DIR [--exit CODE] -- COMMAND...
# Runs COMMAND and holds its standard output, the source tree's path written <source>, byte for byte against
# GOLDEN_FILE (tests/golden/). Passes when both agree and COMMAND exits with CODE (default 0); else prints the exit
# code, COMMAND's standard error and the first differing lines.
# With VTSIM_UPDATE_GOLDEN=1 in the environment it writes GOLDEN_FILE instead (still refusing a wrong exit code):
# do that only in a commit that moves a result on purpose, and say why in its message (tests/golden/README.md).
set -u
golden=$1; source_dir=$2; shift 2
want_code=0
if [ "${1:-}" = "--exit" ]; then want_code=$2; shift 2; fi
[ "${1:-}" = "--" ] || { echo "golden.sh: expected -- before the command"; exit 2; }
shift
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
"$@" > "$scratch/raw" 2> "$scratch/stderr"
code=$?
if [ "$code" -ne "$want_code" ]; then
  echo "expected exit $want_code, got $code; stderr:"; head -c 4000 "$scratch/stderr"; exit 1
fi
# Literal replacement of the source path (awk's index(), not a pattern: a path may hold any character; through the
# environment, which awk reads without interpreting backslashes as -v does).
GOLDEN_SOURCE_DIR=$source_dir awk -v to="<source>" 'BEGIN { from = ENVIRON["GOLDEN_SOURCE_DIR"] } {
  line = $0; out = ""
  while ((at = index(line, from)) > 0) { out = out substr(line, 1, at - 1) to; line = substr(line, at + length(from)) }
  print out line
}' "$scratch/raw" > "$scratch/out"
if [ "${VTSIM_UPDATE_GOLDEN:-0}" = "1" ]; then
  cp "$scratch/out" "$golden" && echo "wrote $golden"; exit $?
fi
if [ ! -f "$golden" ]; then
  echo "no golden file $golden (write it with VTSIM_UPDATE_GOLDEN=1)"; exit 1
fi
if cmp -s "$scratch/out" "$golden"; then
  echo "ok: identical to $golden ($(wc -c < "$golden") bytes)"; exit 0
fi
# Not byte for byte: the same text with every fractional number (one with a point or an exponent) within a relative
# 1e-9 passes, as the last bits of a libm call may differ on another CPU (glibc picks its exp and log by the CPU's
# features). Integers (counts, seeds, digits in names) and numbers beyond 1e300 must match as text.
# VTSIM_GOLDEN_EXACT=1 refuses anything but the same bytes. (The source path's replacement ends every line, the last
# included, with a newline: a missing final newline is not told apart.)
if [ "${VTSIM_GOLDEN_EXACT:-0}" != "1" ] && GOLDEN_FILE=$golden awk '
  BEGIN { other = ENVIRON["GOLDEN_FILE"] }
  function split_tokens(text, into,   count) {
    count = 0
    while (match(text, /-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/)) {
      if (RSTART > 1) into[++count] = "t" substr(text, 1, RSTART - 1)
      into[++count] = "n" substr(text, RSTART, RLENGTH)
      text = substr(text, RSTART + RLENGTH)
    }
    if (length(text) > 0) into[++count] = "t" text
    return count
  }
  function abs(x) { return x < 0 ? -x : x }
  {
    if ((getline theirs < other) <= 0) exit 1
    split("", mine_tokens); split("", their_tokens)
    count = split_tokens($0, mine_tokens)
    if (split_tokens(theirs, their_tokens) != count) exit 1
    for (i = 1; i <= count; ++i) {
      a = mine_tokens[i]; b = their_tokens[i]
      if (substr(a, 1, 1) != substr(b, 1, 1)) exit 1
      if (substr(a, 1, 1) == "t" || a !~ /[.eE]/ || b !~ /[.eE]/) { if (a != b) exit 1; continue }
      x = substr(a, 2) + 0; y = substr(b, 2) + 0
      if (abs(x) > 1e300 || abs(y) > 1e300) { if (a != b) exit 1; continue }
      if (abs(x - y) > 1e-9 * (abs(x) > abs(y) ? abs(x) : abs(y))) exit 1
    }
  }
  END { if ((getline theirs < other) > 0) exit 1 }' "$scratch/out"; then
  echo "ok: as $golden, every number within a relative 1e-9 but not byte for byte"; exit 0
fi
echo "output differs from $golden (- golden, + now):"
diff -u "$golden" "$scratch/out" | head -n 60
exit 1
