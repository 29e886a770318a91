#!/usr/bin/env bash
# Usage: sweep_plot_test.sh VTSIM SWEEP.json "KIND..." [--set PATH=VALUE ...]
# Runs a shipped sweep (with the given small settings) into a temporary folder, plots it, and checks that every
# expected KIND.svg and KIND.png is there, non-empty, and really an SVG and a PNG.
set -euo pipefail
vtsim=$1; sweep=$2; kinds=$3; shift 3
work=$(mktemp -d "${TMPDIR:-/tmp}/vtsim-sweep-plot.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$vtsim" sweep "$sweep" --out "$work/out" --jobs 2 "$@"
"$vtsim" plot "$work/out/results.csv" --out "$work/plots"
for kind in $kinds; do
  for file in "$work/plots/$kind.svg" "$work/plots/$kind.png"; do
    [ -s "$file" ] || { echo "FAIL: $file missing or empty"; exit 1; }
  done
  grep -q "<svg" "$work/plots/$kind.svg" || { echo "FAIL: $kind.svg is not an SVG"; exit 1; }
  [ "$(head -c 4 "$work/plots/$kind.png" | od -An -c | tr -d ' ')" = '211PNG' ] ||
    { echo "FAIL: $kind.png is not a PNG"; exit 1; }
done
errors=$(awk -F, 'NR > 1 && $NF != "" { n++ } END { print n + 0 }' "$work/out/results.csv")
[ "$errors" -eq 0 ] || { echo "FAIL: $errors points failed"; grep -v ',$' "$work/out/results.csv" | head -3; exit 1; }
echo "ok: $(basename "$sweep"): $(($(wc -l < "$work/out/results.csv") - 1)) points; plots: $kinds"
