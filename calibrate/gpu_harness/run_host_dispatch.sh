#!/bin/bash
# Issue 27's host measurement (host_dispatch.py): PyTorch's cost per operator and per launch in host-bound training
# steps (eager, autocast, CUDA graphs, torch.compile), with the host's CPU and the card named.
# Usage (repository root): calibrate/gpu_harness/run_host_dispatch.sh OUT
set -u
OUT=$1
R=/tmp/vtsim-host-dispatch
rm -rf "$R" && mkdir -p "$R" "$OUT"
export PYTHONUNBUFFERED=1
lscpu > "$R/lscpu.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > "$R/gpu.csv" 2>&1
echo "== host dispatch ($(date -u +%T))"
timeout 330 python3 calibrate/gpu_harness/host_dispatch.py "$R" --budget 230
tar czf "$OUT/results.tar.gz" -C "$R" .
echo "== done ($(date -u +%T))"
