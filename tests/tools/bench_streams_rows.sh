#!/usr/bin/env bash
# Usage: bench_streams_rows.sh VTSIM
# vtsim bench prints each row as soon as it is measured: killed during a long size, it has already shown the 16-GPU
# rows. (It used to print the whole table at the end, so a crash at the largest size lost every row.)
set -u
vtsim=$1
out=$(mktemp)
setsid "$vtsim" bench --max-gpus 8192 > "$out" 2>&1 &
pid=$!
for _ in $(seq 1200); do
  grep -q '^16 *analytic' "$out" && break
  sleep 0.1
done
kill -- -"$pid" 2>/dev/null
wait "$pid" 2>/dev/null
if grep -q '^16 *step' "$out" && grep -q '^16 *flow' "$out" && grep -q '^16 *analytic' "$out"; then
  echo "ok: rows printed before the run ended"; rm -f "$out"; exit 0
fi
echo "no 16-GPU rows before the kill; output was:"; cat "$out"; rm -f "$out"; exit 1
