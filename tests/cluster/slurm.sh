#!/usr/bin/env bash
# A single-node SLURM test cluster on this machine, for the tests marked `cluster`.
#
#   bash tests/cluster/slurm.sh start    # install (if missing), configure, start; wait until the node is idle
#   bash tests/cluster/slurm.sh status   # print the node's state; exit 0 if idle, else 1
#   bash tests/cluster/slurm.sh stop     # stop slurmd, slurmctld and munged
#
# As root, on Debian 12 (slurm-wlm 22.05 and munge from apt), from a bare machine; idempotent: a second
# `start` leaves a running cluster as it is (it restarts the daemons only if slurm.conf changed).
# No systemd: apt does not start services here, so the daemons are started directly.
# One partition, `debug` (the default), with this machine as its one node; no accounting, no cgroups.
# Logs: /var/log/slurm/slurmctld.log, /var/log/slurm/slurmd.log, /var/log/munge/munged.log.
# Environment: HIGHWAYLAB_SLURM_TIMEOUT (seconds to wait for the idle node; default 60).
set -euo pipefail

CONF_DIR=/etc/slurm
CONF=$CONF_DIR/slurm.conf
SPOOL=/var/spool/slurm
LOG_DIR=/var/log/slurm
RUN_DIR=/run/slurm
TIMEOUT=${HIGHWAYLAB_SLURM_TIMEOUT:-60}
export PATH=$PATH:/usr/sbin:/sbin

say() { echo "slurm.sh: $*"; }
die() { echo "slurm.sh: error: $*" >&2; exit 1; }

need_root() { [ "$(id -u)" -eq 0 ] || die "run as root (it installs packages and starts daemons)"; }

install_packages() {
    local missing=0 cmd
    for cmd in slurmctld slurmd sinfo sbatch munged munge; do
        command -v "$cmd" >/dev/null 2>&1 || missing=1
    done
    [ "$missing" -eq 0 ] && return 0
    say "installing slurm-wlm and munge (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    local apt=(apt-get install -y -q -o Dpkg::Use-Pty=0 --no-install-recommends slurm-wlm munge)
    if ! "${apt[@]}" >/tmp/slurm-sh-apt.log 2>&1; then  # stale or absent package lists: update once
        apt-get update -q >>/tmp/slurm-sh-apt.log 2>&1 || true
        "${apt[@]}" >>/tmp/slurm-sh-apt.log 2>&1 || die "apt-get install slurm-wlm munge failed: see /tmp/slurm-sh-apt.log"
    fi
}

resolve_hostname() {
    local host; host=$(hostname)
    getent hosts "$host" >/dev/null && return 0
    say "adding $host to /etc/hosts (it did not resolve)"
    echo "127.0.1.1 $host" >>/etc/hosts || die "hostname $host does not resolve and /etc/hosts is not writable"
    getent hosts "$host" >/dev/null || die "hostname $host does not resolve, even after adding it to /etc/hosts"
}

munge_ok() { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }

start_munge() {
    id munge >/dev/null 2>&1 || die "user munge missing: the munge package did not install properly"
    mkdir -p /etc/munge /run/munge /var/log/munge /var/lib/munge
    if [ ! -s /etc/munge/munge.key ]; then
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    fi
    chown -R munge:munge /etc/munge /run/munge /var/log/munge /var/lib/munge
    chmod 0700 /etc/munge /var/log/munge /var/lib/munge
    chmod 0755 /run/munge
    chmod 0400 /etc/munge/munge.key
    munge_ok && return 0
    # munged refuses root ("Logfile is insecure"): run it as its own user
    rm -f /run/munge/munge.socket.2 /run/munge/munged.pid
    runuser -u munge -- /usr/sbin/munged || die "munged did not start: see /var/log/munge/munged.log"
    local i
    for i in $(seq 50); do munge_ok && return 0; sleep 0.1; done
    die "munge does not answer: see /var/log/munge/munged.log"
}

CONF_CHANGED=0
write_conf() {
    # sets CONF_CHANGED=1 when slurm.conf was (re)written
    local host node new
    host=$(hostname)
    # the node as slurmd sees it (CPUs, sockets, cores, threads, RealMemory): a node line that does not
    # match makes slurmd complain or the node drain
    node=$(/usr/sbin/slurmd -C | head -n 1)
    case "$node" in NodeName=*) ;; *) die "slurmd -C gave no node line: $node";; esac
    mkdir -p "$CONF_DIR"
    new=$(cat <<EOF
# written by tests/cluster/slurm.sh: a single-node test cluster (slurm 22.05)
ClusterName=highwaylab
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
# credentials expire after 30 s (default 120): with the 5 s scheduler cycles a requeued job starts again
# in about 35 s instead of about 156 s
AuthInfo=cred_expire=30
MailProg=/bin/true
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
ReturnToService=2
SlurmctldPidFile=$RUN_DIR/slurmctld.pid
SlurmdPidFile=$RUN_DIR/slurmd.pid
StateSaveLocation=$SPOOL/ctld
SlurmdSpoolDir=$SPOOL/d
SlurmctldLogFile=$LOG_DIR/slurmctld.log
SlurmdLogFile=$LOG_DIR/slurmd.log
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=5,bf_interval=5
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
# a job asking more than the partition has is refused at submission instead of pending forever
EnforcePartLimits=ALL
JobRequeue=1
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
InactiveLimit=0
KillWait=30
MinJobAge=300
SlurmctldTimeout=120
SlurmdTimeout=300
$node State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
)
    if [ -f "$CONF" ] && [ "$(cat "$CONF")" = "$new" ]; then
        return 0
    fi
    printf '%s\n' "$new" >"$CONF"
    CONF_CHANGED=1
}

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

stop_slurm() {
    local f pid i
    for f in "$RUN_DIR/slurmd.pid" "$RUN_DIR/slurmctld.pid"; do
        if pid_alive "$f"; then
            pid=$(cat "$f")
            kill "$pid"
            for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
        fi
        rm -f "$f"
    done
}

start_slurm() {
    mkdir -p "$SPOOL/ctld" "$SPOOL/d" "$LOG_DIR" "$RUN_DIR"
    pid_alive "$RUN_DIR/slurmctld.pid" || /usr/sbin/slurmctld \
        || die "slurmctld did not start: see $LOG_DIR/slurmctld.log"
    pid_alive "$RUN_DIR/slurmd.pid" || /usr/sbin/slurmd \
        || die "slurmd did not start: see $LOG_DIR/slurmd.log"
}

node_state() { sinfo -h -o %T 2>/dev/null | head -n 1; }  # fails when slurmctld does not answer

wait_idle() {
    local deadline=$((SECONDS + TIMEOUT)) state="" resumed=0
    while [ "$SECONDS" -lt "$deadline" ]; do
        state=$(node_state || true)
        case "$state" in
            # up (busy only if jobs are running), and slurmd answers: after a restart slurmctld
            # reports the saved state before slurmd has registered
            idle|mixed|allocated) scontrol show slurmd >/dev/null 2>&1 && return 0 ;;
            drained|draining|down*)  # a node left down or drained by an earlier run: put it back once
                if [ "$resumed" -eq 0 ]; then
                    scontrol update NodeName="$(hostname)" State=RESUME >/dev/null 2>&1 || true
                    resumed=1
                fi ;;
        esac
        sleep 0.5
    done
    die "the node is not idle after ${TIMEOUT}s (state: ${state:-no answer from slurmctld}): see $LOG_DIR/slurmctld.log and $LOG_DIR/slurmd.log"
}

cmd_start() {
    need_root
    local start_ns; start_ns=$(date +%s%N)
    install_packages
    resolve_hostname
    start_munge
    write_conf
    if [ "$CONF_CHANGED" -eq 1 ]; then
        stop_slurm  # daemons started with an older slurm.conf
    fi
    start_slurm
    wait_idle
    local ms=$((($(date +%s%N) - start_ns) / 1000000))
    say "cluster up in $((ms / 1000)).$(printf '%03d' $((ms % 1000))) s: node $(hostname) $(node_state), partition debug"
}

cmd_status() {
    local state; state=$(node_state || true)
    echo "${state:-down (no answer from slurmctld)}"
    [ "$state" = idle ]
}

cmd_stop() {
    need_root
    stop_slurm
    if [ -f /run/munge/munged.pid ] && kill -0 "$(cat /run/munge/munged.pid)" 2>/dev/null; then
        kill "$(cat /run/munge/munged.pid)"
    fi
    say "stopped"
}

case "${1:-}" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    *) echo "usage: bash tests/cluster/slurm.sh start|stop|status" >&2; exit 2 ;;
esac
