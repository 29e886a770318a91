#!/usr/bin/env bash
# Usage: plot_hardening_test.sh VTSIM RESULTS_CSV
# Issue 31: `vtsim plot` never writes through a symbolic link planted where an image goes (gnuplot would follow it and
# overwrite the file it points to), an --out that is a file is one clear line, exit 1, and a results file named with
# two quotes in a row (which the plots' titles quote for gnuplot) plots.
set -u
vtsim=$1; results=$2
work=$(mktemp -d /tmp/vtsim-plot-link-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/plots"
printf 'keep' > "$work/victim.txt"
ln -s "$work/victim.txt" "$work/plots/breakdown.svg"
stderr=$("$vtsim" plot "$results" --out "$work/plots" 2>&1 >/dev/null)
code=$?
want="vtsim: $work/plots/breakdown.svg: is a symbolic link; vtsim writes no output through a link (remove it, or name the file it points to)"
if [ "$code" -ne 1 ] || [ "$stderr" != "$want" ]; then
  printf 'expected exit 1 and:\n  %s\ngot exit %s and:\n  %s\n' "$want" "$code" "$stderr"; exit 1
fi
if [ "$(cat "$work/victim.txt")" != "keep" ]; then echo "the link's target was written"; exit 1; fi
printf 'x' > "$work/a-file"
stderr=$("$vtsim" plot "$results" --out "$work/a-file" 2>&1 >/dev/null)
code=$?
want="vtsim: $work/a-file: --out is a file, not a folder"
if [ "$code" -ne 1 ] || [ "$stderr" != "$want" ]; then
  printf 'expected exit 1 and:\n  %s\ngot exit %s and:\n  %s\n' "$want" "$code" "$stderr"; exit 1
fi
cp "$results" "$work/a''b.csv"
if ! "$vtsim" plot "$work/a''b.csv" --out "$work/quoted" > /dev/null; then echo "a''b.csv did not plot"; exit 1; fi
echo "ok: links and files refused, quotes plotted"
