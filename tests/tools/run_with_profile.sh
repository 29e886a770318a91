#!/usr/bin/env bash
# Usage: run_with_profile.sh VTSIM FIXTURES WORKDIR SCENARIO
# Builds a RoCE profile from perftest fixture logs, runs SCENARIO over RoCE v2 with it, and checks that the result says
# the NIC links came from the profile and no longer lists them among the uncalibrated defaults.
set -eu
vtsim=$1; fixtures=$2; work=$3; scenario=$4
mkdir -p "$work"
profile="$work/roce-profile.json"
rm -f "$profile"
"$vtsim" calibrate import perftest "$fixtures/ib_write_lat_roce.log" "$fixtures/ib_write_bw_roce.log" --into "$profile"
"$vtsim" calibrate fit "$profile"
"$vtsim" run "$scenario" --set cluster.transport=roce_v2 --set "calibration_profile=$profile" \
  --set jobs[0].iterations=3 --format json > "$work/result.json"
grep -q "\"profile\": \"$profile\"" "$work/result.json"
grep -q '"nic links: bandwidth from ' "$work/result.json"
if grep -q '"nic links: Mellanox' "$work/result.json"; then
  echo "the NIC links are still listed as uncalibrated"; exit 1
fi
echo "ok: NIC links calibrated from $profile"
