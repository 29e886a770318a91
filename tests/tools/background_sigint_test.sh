#!/usr/bin/env bash
# Usage: background_sigint_test.sh VTSIM SCENARIO
# A run started with SIGINT ignored (how a shell without job control starts a backgrounded job) keeps ignoring it in
# its simulation process too: an interrupt sent to that process must not end the run (SimGrid installs its own
# handler). The test signals the simulation process throughout the run and requires the run to finish cleanly.
set -uo pipefail
vtsim=$1; scenario=$2
trap '' INT
# Every rank simulated (reduce_ranks false): a run of a few seconds, long enough to be signalled many times.
"$vtsim" run "$scenario" --set cluster.racks=2 --set simulation.reduce_ranks=false --format json > /dev/null 2>&1 &
parent=$!
signalled=0
# Signal the simulation process again and again until the run ends: some signals arrive after SimGrid's Engine exists.
while kill -0 "$parent" 2>/dev/null; do
  for child in $(pgrep -P "$parent"); do
    kill -INT "$child" 2>/dev/null && signalled=1
  done
  sleep 0.05
done
wait "$parent"; rc=$?
[ "$signalled" -eq 1 ] || { echo "FAIL: never saw the simulation process"; exit 1; }
[ "$rc" -eq 0 ] || { echo "FAIL: the run ended with status $rc after SIGINT"; exit 1; }
echo "ok: SIGINT ignored by the simulation process of a backgrounded run"
