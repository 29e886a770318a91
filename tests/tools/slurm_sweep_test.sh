#!/usr/bin/env bash
# Usage: slurm_sweep_test.sh VTSIM SWEEP.json
# Starts a private single-node Slurm cluster from Debian's packages (munged, slurmctld, slurmd; everything under a
# temporary folder, its own munge key and socket, its own ports), submits the sweep as a 2-task job array through
# `vtsim sweep --emit-slurm`, waits for it with squeue/scontrol, merges the shards, and checks that the merged
# results equal a local run's, byte for byte. Exits 77 (CTest's SKIP_RETURN_CODE), loudly, only where Slurm cannot
# start: not root, packages missing, or the daemons do not come up. Stops its daemons on every exit.
set -uo pipefail
vtsim=$(realpath "$1"); sweep=$(realpath "$2")
readonly SKIP=77

work=$(mktemp -d "${TMPDIR:-/tmp}/vtsim-slurm.XXXXXX")
# The array's folder has a space, a quote and a '#': the script must quote it for bash and for sbatch alike.
array="$work/array dir's #1"
job_id=""

show_logs() {
  for log in "$work"/*.log "$array"/slurm-*.out; do
    [ -f "$log" ] || continue
    echo "---- $log (last 20 lines)"; tail -n 20 "$log"
  done
}
skip() {
  echo "**********************************************************************"
  echo "SKIPPED: the Slurm array test cannot run here: $*"
  echo "**********************************************************************"
  exit $SKIP
}
fail() { echo "FAIL: $*"; show_logs; exit 1; }

stop_daemon() {  # PIDFILE: TERM, up to 10 s, then KILL
  [ -s "$1" ] || return 0
  local pid; pid=$(cat "$1")
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}
cleanup() {
  [ -n "$job_id" ] && [ -f "$work/slurm.conf" ] && SLURM_CONF="$work/slurm.conf" scancel "$job_id" 2>/dev/null
  stop_daemon "$work/slurmd.pid"
  stop_daemon "$work/slurmctld.pid"
  stop_daemon "$work/munged.pid"
  rm -rf "$work"
}
trap cleanup EXIT

[ "$(id -u)" -eq 0 ] || skip "it must run as root (slurmd runs the jobs as root here); CI runs ctest as root"
for command in munged munge slurmctld slurmd sbatch squeue scontrol sinfo scancel; do
  command -v "$command" >/dev/null || skip "$command is not installed (tools/setup.sh installs slurm-wlm and munge)"
done

# munge: a key of our own and a private socket, so that a system munged (if any) is left alone.
dd if=/dev/urandom bs=1 count=1024 of="$work/munge.key" 2>/dev/null
chmod 400 "$work/munge.key"
munged --force --key-file="$work/munge.key" --socket="$work/munge.socket" --pid-file="$work/munged.pid" \
       --log-file="$work/munged.log" --seed-file="$work/munge.seed" || skip "munged does not start: $(tail -n 3 "$work/munged.log" 2>/dev/null)"
munge -S "$work/munge.socket" -n | unmunge -S "$work/munge.socket" >/dev/null || skip "munge does not answer"

host=$(hostname -s)
cpus=$(nproc)
port=$((20000 + RANDOM % 20000))
mkdir -p "$work/state" "$work/spool" "$array"
cat > "$work/slurm.conf" <<CONF
ClusterName=vtsimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$work/slurm.conf"

slurmctld -f "$SLURM_CONF" || skip "slurmctld does not start: $(tail -n 3 "$work/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" -N "$host" || skip "slurmd does not start: $(tail -n 3 "$work/slurmd.log" 2>/dev/null)"
state=""
for _ in $(seq 300); do
  state=$(sinfo -h -N -o %t 2>/dev/null | head -n 1)
  [ "$state" = "idle" ] && break
  sleep 0.1
done
[ "$state" = "idle" ] || { show_logs; skip "the node is not idle after 30 s (state '$state')"; }
echo "slurm: node $host with $cpus CPUs idle"

# The sweep as a 2-task array, one shard per task.
cd "$work" || fail "cd $work"
"$vtsim" sweep "$sweep" --out "$array" --emit-slurm --shards 2 --jobs 1 --partition test --time-limit 0:10:00 ||
  fail "vtsim sweep --emit-slurm"
grep -q '^#SBATCH --array=0-1$' "$array/sweep.sbatch" || fail "the script has no --array=0-1"
job_id=$(sbatch --parsable "$array/sweep.sbatch") || fail "sbatch"
job_id=${job_id%%;*}
echo "slurm: submitted job array $job_id"
for _ in $(seq 1200); do
  [ -z "$(squeue -h -j "$job_id" 2>/dev/null)" ] && break
  sleep 0.2
done
[ -z "$(squeue -h -j "$job_id" 2>/dev/null)" ] || fail "the array is still queued or running after 240 s"
states=$(scontrol -o show job "$job_id" | grep -o 'JobState=[A-Z_]*' | sort | uniq -c | tr -s ' ')
echo "slurm: array tasks ended:$states"
[ "$(scontrol -o show job "$job_id" | grep -c 'JobState=COMPLETED')" -eq 2 ] || fail "not both tasks completed:$states"
job_id=""

ls "$array"/slurm-*_0.out "$array"/slurm-*_1.out >/dev/null || fail "no task output in $array (sbatch split --output)"
"$vtsim" merge "$array/shard-0" "$array/shard-1" --out "$work/merged" || fail "vtsim merge"
"$vtsim" sweep "$sweep" --out "$work/local" --jobs 2 || fail "the local run"
cmp "$work/merged/results.csv" "$work/local/results.csv" || fail "merged results.csv differs from the local run's"
cmp "$work/merged/results.jsonl" "$work/local/results.jsonl" || fail "merged results.jsonl differs from the local run's"
echo "ok: the Slurm array's merged results equal the local run's ($(($(wc -l < "$work/local/results.csv") - 1)) points)"
