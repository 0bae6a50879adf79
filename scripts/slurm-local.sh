#!/usr/bin/env bash
# A single-node Slurm on this machine, for tests and for trying Grove
# under Slurm (docs/hosts.md).
#
#   slurm-local.sh up   [--dir D] [--oversubscribe K]
#   slurm-local.sh down [--dir D]
#   slurm-local.sh env  [--dir D]     prints "export SLURM_CONF=..."
#
# `up` installs what is missing (scripts/install-deps.sh --launchers:
# slurm-wlm, munge, libpmi2-0-dev), writes a slurm.conf for this host
# into D (default /run/grove-slurm), starts a munged, a slurmctld and a
# slurmd of their own (private key, socket, state, spool, logs and free
# ports, all under D: the machine's /etc/slurm and /etc/munge are not
# used) and waits until the node is idle.  Clients find it through
# SLURM_CONF=D/slurm.conf (`eval "$(slurm-local.sh env --dir D)"`).
#
# The node has K (default 8) Slurm CPUs per core (`nproc`), so that
# `srun -n 4` fits on 2 cores: Grove's ranks sleep when they wait, and
# the tests need more tasks than cores, not speed.
#
# `down` cancels every job, stops the three daemons and removes D's
# contents; it is idempotent and also cleans up after an `up` that
# failed half-way (the pid files are written by the daemons as they
# start; D/.grove-slurm marks a directory this script made).
#
# Exit status: 0 ok, 1 failed (said on stderr, with the log to read),
# 2 usage error, 77 this machine cannot run Slurm (not root, packages
# missing and not installable): tests turn 77 into a skip.
set -euo pipefail

SKIP=77
here=$(cd "$(dirname "$0")" && pwd)
dir=/run/grove-slurm
oversub=8

usage() {
	sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

die() {
	echo "slurm-local: $*" >&2
	exit 1
}

skip() {
	echo "slurm-local: SKIP: $*" >&2
	exit $SKIP
}

cmd=${1:-}
[[ -n "$cmd" ]] || usage
shift
while (($#)); do
	case $1 in
	--dir)
		[[ $# -ge 2 ]] || usage
		dir=$2
		shift 2
		;;
	--oversubscribe)
		[[ $# -ge 2 && $2 =~ ^[1-9][0-9]?$ ]] || usage
		oversub=$2
		shift 2
		;;
	*) usage ;;
	esac
done
case $dir in
/*) ;;
*) dir=$PWD/$dir ;;
esac
conf=$dir/slurm.conf

# A free TCP port on this host (the kernel picks it; it is released
# before the daemon binds it, a race no test here loses in practice).
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("",0)); print(s.getsockname()[1])'
}

pid_alive() {
	local f=$1
	[[ -s $f ]] && kill -0 "$(cat "$f")" 2>/dev/null
}

# Waits up to 10 s for a daemon's pid file naming a live process.
wait_pidfile() {
	local i
	for ((i = 0; i < 100; i++)); do
		pid_alive "$1" && return 0
		sleep 0.1
	done
	return 1
}

stop_pidfile() {
	local f=$1 pid i
	[[ -s $f ]] || return 0
	pid=$(cat "$f")
	[[ $pid =~ ^[0-9]+$ ]] || return 0
	kill -TERM "$pid" 2>/dev/null || return 0
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
}

do_down() {
	[[ -d $dir ]] || return 0
	if [[ ! -e $dir/.grove-slurm ]]; then
		echo "slurm-local: $dir was not made by slurm-local.sh up; not touching it" >&2
		return 1
	fi
	if pid_alive "$dir/slurmctld.pid" && [[ -e $conf ]]; then
		# Steps' slurmstepd processes end with their jobs.
		SLURM_CONF=$conf timeout 10 scancel --quiet --full \
			--user="$(id -un)" 2>/dev/null || true
		local i
		for ((i = 0; i < 50; i++)); do
			[[ -z $(SLURM_CONF=$conf timeout 5 squeue -h -o %i 2>/dev/null) ]] && break
			sleep 0.1
		done
	fi
	stop_pidfile "$dir/slurmd.pid"
	stop_pidfile "$dir/slurmctld.pid"
	# A daemon killed before it wrote its pid file: found by the
	# configuration it was started with (-f CONF).
	local p
	for p in $(pgrep -x slurmctld 2>/dev/null || true) $(pgrep -x slurmd 2>/dev/null || true); do
		if tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null | grep -qxF "$conf"; then
			kill -KILL "$p" 2>/dev/null || true
		fi
	done
	# Left-over slurmstepd of this Slurm: their parent slurmd is gone and
	# they run with this configuration.
	for p in $(pgrep -x slurmstepd 2>/dev/null || true); do
		if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null |
			grep -qx "SLURM_CONF=$conf"; then
			kill -KILL "$p" 2>/dev/null || true
		fi
	done
	stop_pidfile "$dir/munged.pid"
	for p in $(pgrep -x munged 2>/dev/null || true); do
		if tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null |
			grep -qxF -- "--socket=$dir/munge/munge.sock"; then
			kill -KILL "$p" 2>/dev/null || true
		fi
	done
	rm -rf "${dir:?}"/state "${dir:?}"/spool "${dir:?}"/munge \
		"${dir:?}"/*.pid "${dir:?}"/*.log "$conf" "$dir/env.sh" \
		"$dir/.grove-slurm"
	rmdir "$dir" 2>/dev/null || true
}

do_up() {
	if [[ $(id -u) -ne 0 ]]; then
		skip "slurmd must run as root (it starts tasks as their users)"
	fi
	if ! "$here/install-deps.sh" --launchers >&2; then
		skip "cannot install slurm-wlm, munge and libpmi2-0-dev"
	fi
	local b
	for b in munged slurmctld slurmd srun sinfo; do
		command -v "$b" >/dev/null || PATH=$PATH:/usr/sbin
		command -v "$b" >/dev/null || skip "$b is missing after installing slurm-wlm and munge"
	done
	if [[ -e $dir/.grove-slurm ]]; then
		do_down
	elif [[ -d $dir && -n $(ls -A "$dir") ]]; then
		die "$dir exists and is not empty; choose another --dir"
	fi
	mkdir -p "$dir"
	touch "$dir/.grove-slurm"
	# Whatever ends `up` before the node is idle (die, a failed command,
	# a signal) takes down what it started.
	trap 'echo "slurm-local: up failed; tearing down" >&2; do_down || true' EXIT

	# munge: a key and a socket of its own.
	mkdir -p "$dir/munge"
	chmod 0700 "$dir/munge"
	dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
	chmod 0400 "$dir/munge/munge.key"
	munged --key-file="$dir/munge/munge.key" \
		--socket="$dir/munge/munge.sock" \
		--pid-file="$dir/munged.pid" \
		--log-file="$dir/munged.log" \
		--seed-file="$dir/munge/munge.seed" --force ||
		die "munged did not start (see $dir/munged.log)"
	wait_pidfile "$dir/munged.pid" || die "munged wrote no pid file (see $dir/munged.log)"

	local host cpus ctld_port d_port
	host=$(hostname -s)
	cpus=$(($(nproc) * oversub))
	ctld_port=$(free_port)
	d_port=$(free_port)
	while [[ $d_port == "$ctld_port" ]]; do d_port=$(free_port); done
	mkdir -p "$dir/state" "$dir/spool"
	cat >"$conf" <<EOF
# Written by scripts/slurm-local.sh: a single-node Slurm for Grove's tests.
ClusterName=grove
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups: tests run in containers without a delegated cgroup tree.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
# A task that fails ends its step: no rank waits forever for a dead peer.
KillOnBadExit=1
InactiveLimit=0
MinJobAge=10
KillWait=2
# $(nproc) cores, $oversub Slurm CPUs each (see slurm-local.sh).
SlurmdParameters=config_overrides
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=grove Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
	echo "export SLURM_CONF=$conf" >"$dir/env.sh"
	export SLURM_CONF=$conf

	# Each daemon forks into the background; its pid file says it is
	# there (and lets `down` find it even if the next step fails).
	slurmctld -f "$conf" -i || die "slurmctld did not start (see $dir/slurmctld.log)"
	wait_pidfile "$dir/slurmctld.pid" || die "slurmctld wrote no pid file (see $dir/slurmctld.log)"
	slurmd -f "$conf" -N "$host" || die "slurmd did not start (see $dir/slurmd.log)"
	wait_pidfile "$dir/slurmd.pid" || die "slurmd wrote no pid file (see $dir/slurmd.log)"

	local i state=""
	for ((i = 0; i < 300; i++)); do
		state=$(timeout 5 sinfo -h -n "$host" -o %T 2>/dev/null || true)
		[[ $state == idle ]] && break
		pid_alive "$dir/slurmctld.pid" || die "slurmctld exited (see $dir/slurmctld.log)"
		sleep 0.2
	done
	if [[ $state != idle ]]; then
		die "node $host is '${state:-unknown}', not idle, after 60 s (see $dir/slurmd.log, $dir/slurmctld.log)"
	fi
	trap - EXIT
	echo "slurm-local: node $host idle with $cpus CPUs; export SLURM_CONF=$conf" >&2
}

case $cmd in
up) do_up ;;
down) do_down ;;
env)
	[[ -e $dir/env.sh ]] || die "no Slurm is up in $dir"
	cat "$dir/env.sh"
	;;
*) usage ;;
esac
