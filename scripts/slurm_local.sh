#!/usr/bin/env bash
# A one-node Slurm cluster for `strata sweep --backend slurm` tests and local use (docs/experiments.md).
#   scripts/slurm_local.sh start DIR   start munged, slurmctld and slurmd with state under DIR; prints
#                                      `export SLURM_CONF=DIR/slurm.conf` on success (exit 0), else
#                                      says why on stderr (exit 1)
#   scripts/slurm_local.sh stop DIR    stop the three daemons by their pid files
# Needs root and the Debian packages slurm-wlm and munge (no systemd: the daemons are started by hand).
set -uo pipefail
cmd=${1:-}; D=${2:-}
[ -n "$cmd" ] && [ -n "$D" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
stop() {
  for p in "$D/slurmd.pid" "$D/slurmctld.pid" "$D/munge/munged.pid"; do
    [ -f "$p" ] && kill "$(cat "$p")" 2>/dev/null
  done
  return 0
}
if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
for b in munged slurmctld slurmd sbatch squeue sinfo; do
  command -v "$b" >/dev/null || { echo "slurm_local: $b not installed (apt-get install slurm-wlm munge)" >&2; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "slurm_local: needs root (slurmd runs jobs as their user)" >&2; exit 1; }
[ -f /etc/munge/munge.key ] || { echo "slurm_local: /etc/munge/munge.key missing (package munge)" >&2; exit 1; }
mkdir -p "$D"/{munge,state,spool,log}; chmod 755 "$D"
cp /etc/munge/munge.key "$D/munge/"; chown -R munge:munge "$D/munge"; chmod 755 "$D/munge"
chmod 600 "$D/munge/munge.key"
runuser -u munge -- munged -S "$D/munge/munge.socket.2" --key-file="$D/munge/munge.key" \
  --log-file="$D/munge/munged.log" --pid-file="$D/munge/munged.pid" --seed-file="$D/munge/munged.seed" \
  || { echo "slurm_local: munged did not start ($D/munge/munged.log)" >&2; exit 1; }
cpus=$(nproc)
cat > "$D/slurm.conf" <<EOF
ClusterName=strata
SlurmctldHost=localhost
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$D/munge/munge.socket.2
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$D/slurm.conf
slurmctld || { echo "slurm_local: slurmctld did not start ($D/log/slurmctld.log)" >&2; stop; exit 1; }
slurmd -N localhost || { echo "slurm_local: slurmd did not start ($D/log/slurmd.log)" >&2; stop; exit 1; }
for _ in $(seq 1 30); do  # until the node is schedulable
  if sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
    echo "export SLURM_CONF=$D/slurm.conf"; exit 0
  fi
  sleep 0.5
done
echo "slurm_local: the node did not become idle in 15 s ($D/log/)" >&2; stop; exit 1
