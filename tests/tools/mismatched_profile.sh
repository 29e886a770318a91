#!/usr/bin/env bash
# Usage: mismatched_profile.sh VTSIM WORKDIR SCENARIO
# A calibration profile measured on another GPU (an H100's memory bandwidth for a cluster of T4s) is refused by every
# command that would apply it, with the one line that names the scenario's calibration_profile key, exit 1 and nothing
# simulated: `vtsim check`, `vtsim run` (with --compare, whose variants load before any run), `vtsim plan` (before it
# looks at the job or runs a candidate, each of which would otherwise fail on its own) and `vtsim collectives`.
set -u
vtsim=$1; work=$2; scenario=$3
mkdir -p "$work"
profile="$work/h100-profile.json"
cat > "$profile" <<'JSON'
{"format": "vtsim-calibration-profile", "version": 1,
 "gpu": {"provenance": {"tool": "vtsim calibrate probe gpu"}, "name": "NVIDIA H100 80GB HBM3",
         "catalog_gpu": "h100-sxm5", "memory_bandwidth_gBps": 3000}}
JSON
expected="$scenario: calibration_profile: the profile measured another box than the cluster's: gpu: measured a h100-sxm5"
status=0
for command in check plan collectives "run --compare cluster.transport=tcp"; do
  # shellcheck disable=SC2086  # the command's words are meant to split
  "$vtsim" $command "$scenario" --set "calibration_profile=$profile" > "$work/out.txt" 2> "$work/err.txt"
  rc=$?
  if [ "$rc" -ne 1 ] || ! grep -qF "vtsim: $expected" "$work/err.txt" || [ "$(wc -l < "$work/err.txt")" -ne 1 ] ||
     [ -s "$work/out.txt" ]; then
    echo "vtsim $command: exit $rc, expected 1 with the profile's refusal alone:"
    cat "$work/err.txt" "$work/out.txt"
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "ok: every command refuses the H100 profile for T4 hosts"
exit "$status"
