#!/usr/bin/env bash
# Usage: import_fit_show.sh VTSIM FIXTURES WORKDIR
# Builds a profile from the fixture logs with `vtsim calibrate import`, fits it, and shows it; prints what it ran.
set -eu
vtsim=$1; fixtures=$2; work=$3
mkdir -p "$work"
profile="$work/profile.json"
rm -f "$profile"
"$vtsim" calibrate import nccl-tests "$fixtures/all_gather_perf_4xv100.log" --into "$profile" --date 2024-05-01
"$vtsim" calibrate import topo "$fixtures/topo_4xa100_nv4.txt" --into "$profile" --host dgx1-a
"$vtsim" calibrate import perftest "$fixtures/ib_write_lat_roce.log" "$fixtures/ib_write_bw_roce.log" --into "$profile"
"$vtsim" calibrate import mig-lgip "$fixtures/mig_lgip_a100_40gb.txt" --into "$profile"
"$vtsim" calibrate import step-times "$fixtures/dllogger_resnet50_1gpu.log" --into "$profile" --skip-first 1
"$vtsim" calibrate fit "$profile"
"$vtsim" calibrate show "$profile"
"$vtsim" calibrate show "$profile" --format json > "$work/show.json"
grep -q '"calibrated_parameters"' "$work/show.json"
grep -q '"step_time_cv": {' "$work/show.json"
