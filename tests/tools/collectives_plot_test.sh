#!/usr/bin/env bash
# Usage: collectives_plot_test.sh VTSIM BOX.json LOG
# vtsim collectives --compare LOG --format json, then vtsim plot of that JSON: collectives.svg and .png are there,
# non-empty, really an SVG and a PNG, and the SVG carries both curves' titles.
set -euo pipefail
vtsim=$1; box=$2; log=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/vtsim-collectives-plot.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$vtsim" collectives "$box" --compare "$log" --format json > "$work/compare.json"
"$vtsim" plot "$work/compare.json" --out "$work/plots"
for file in "$work/plots/collectives.svg" "$work/plots/collectives.png"; do
  [ -s "$file" ] || { echo "FAIL: $file missing or empty"; exit 1; }
done
grep -q "<svg" "$work/plots/collectives.svg" || { echo "FAIL: collectives.svg is not an SVG"; exit 1; }
[ "$(head -c 4 "$work/plots/collectives.png" | od -An -c | tr -d ' ')" = '211PNG' ] ||
  { echo "FAIL: collectives.png is not a PNG"; exit 1; }
for title in "simulated by vtsim" "measured: "; do
  grep -q "$title" "$work/plots/collectives.svg" || { echo "FAIL: no curve titled '$title'"; exit 1; }
done
echo "ok: $(basename "$box") against $(basename "$log"): both curves drawn"
