#!/usr/bin/env bash
# A multi-host test bed on one machine: network namespaces standing in for
# hosts, each with its own name, address, /etc/hosts and sshd.
#
#   testbed.sh up N [--prefix NAME] [--rate RATE]
#   testbed.sh down [--prefix NAME]
#   testbed.sh exec [--prefix NAME] HOST CMD...
#   testbed.sh ssh-config [--prefix NAME]     path of the client config
#   testbed.sh hosts [--prefix NAME]          host names, one per line
#
# Hosts are PREFIX1..PREFIXN (default prefix "h"), at 10.77.0.1..N/24 on
# eth0, joined by a bridge that lives in a namespace of its own
# (PREFIX-br): nothing is added to the machine's own interfaces or routes.
# Each host runs in a UTS namespace with its own host name (entered by
# `exec` and by its sshd, so everything started over ssh has it too), sees
# an /etc/hosts naming every host (ip netns' /etc/netns/HOST bind mounts)
# and an /etc/ssh/ssh_config that logs in as root with the test bed's key,
# so a plain `ssh h2 hostname` works inside h1.  --rate caps each host's
# link in both directions with tc tbf (e.g. 1mbit, 100mbit, 10mbps).
# See docs/hosts.md.
#
# What `down` needs is kept in a state directory
# ($GROVE_TESTBED_DIR/PREFIX, default /run/grove-testbed/PREFIX), written
# before each thing it names is made, so `down` removes whatever a killed
# `up` or test left: it ends every process in the namespaces, deletes
# them, and removes the /etc/netns entries and the state.  It is
# idempotent.
#
# Exit status: 0 ok, 1 failed (said on stderr), 2 usage error, 77 this
# machine cannot have a test bed (not root, no network namespaces, packages
# missing and not installable): tests turn 77 into a skip.
set -euo pipefail

SKIP=77
SUBNET=10.77.0
MAX_HOSTS=250
here=$(cd "$(dirname "$0")" && pwd)
base=${GROVE_TESTBED_DIR:-/run/grove-testbed}

usage() {
	cat <<'EOF'
usage: testbed.sh up N [--prefix NAME] [--rate RATE]
       testbed.sh down [--prefix NAME]
       testbed.sh exec [--prefix NAME] HOST CMD...
       testbed.sh ssh-config [--prefix NAME]
       testbed.sh hosts [--prefix NAME]

up       N hosts PREFIX1..PREFIXN (network namespaces, 10.77.0.K/24, own
         host name, /etc/hosts and sshd); --rate caps each host's link
         with tc tbf (tc units: 1mbit, 100mbit, 10mbps ...)
down     stop and remove everything up made; nothing to do is fine
exec     run CMD in HOST (its network, its host name, its /etc/hosts and
         ssh config)
ssh-config  print the path of the ssh client config (for ssh -F)
hosts    print the host names

Exit status: 0 ok, 1 failed, 2 usage error, 77 no test bed possible here
(not root, no network namespaces, openssh-server not installable).
EOF
}

fail() {
	echo "testbed.sh: $*" >&2
	exit 1
}

cannot() {
	echo "testbed.sh: no test bed on this machine: $*" >&2
	exit $SKIP
}

usage_error() {
	echo "testbed.sh: $*; try 'testbed.sh --help'" >&2
	exit 2
}

# --- options -------------------------------------------------------------

cmd=${1:-}
[[ -n $cmd ]] || usage_error "no command"
shift
case $cmd in
-h | --help | help)
	usage
	exit 0
	;;
up | down | exec | ssh-config | hosts) ;;
*) usage_error "unknown command '$cmd'" ;;
esac

prefix=h
prefix_given=0
rate=
count=
args=()
while (($#)); do
	case $1 in
	--prefix)
		(($# >= 2)) || usage_error "--prefix needs a name"
		prefix=$2
		prefix_given=1
		shift 2
		;;
	--rate)
		[[ $cmd == up ]] || usage_error "--rate goes with 'up'"
		(($# >= 2)) || usage_error "--rate needs a value"
		rate=$2
		shift 2
		;;
	-h | --help)
		usage
		exit 0
		;;
	*)
		# exec: the host and its command, taken whole.
		if [[ $cmd == exec ]]; then
			args=("$@")
			break
		fi
		[[ $cmd == up && -z $count ]] ||
			usage_error "unexpected argument '$1'"
		count=$1
		shift
		;;
	esac
done

# Host names are PREFIXk and the bridge's namespace PREFIX-br: a letter
# first, then letters, digits and '-', short enough for a host name.
[[ $prefix =~ ^[a-zA-Z][a-zA-Z0-9-]{0,19}$ ]] ||
	usage_error "bad prefix '$prefix' (a letter, then up to 19 letters," \
		"digits or '-')"
state=$base/$prefix
brns=$prefix-br

# --- helpers -------------------------------------------------------------

need_root() {
	[[ $(id -u) -eq 0 ]] ||
		cannot "network namespaces and sshd need root (this is uid $(id -u))"
}

# The test bed's lock: one up or down at a time per prefix.
lock() {
	mkdir -p "$base"
	exec 9>"$base/$prefix.lock"
	flock 9
}

# The lock goes with the test bed (a waiting `up` still holds the file it
# opened, and makes its state afresh).
lock_remove() {
	rm -f "$base/$prefix.lock"
	rmdir "$base" 2>/dev/null || true
}

# Appends a line to a state list (before the thing is made).
note() {
	echo "$2" >>"$state/$1"
}

# Lines of a state list (none when it does not exist).
listed() {
	[[ -f $state/$1 ]] && cat "$state/$1" || true
}

# tc rate (bit, kbit, mbit, gbit, bps, kbps, mbps, gbps) in bytes per
# second; empty when it is not one.
rate_bytes() {
	awk -v r="$1" 'BEGIN {
		if (!match(tolower(r), /^[0-9]+(\.[0-9]+)?/)) exit
		n = substr(r, 1, RLENGTH); u = tolower(substr(r, RLENGTH + 1))
		m["bit"] = 1 / 8; m["kbit"] = 1000 / 8; m["mbit"] = 1e6 / 8
		m["gbit"] = 1e9 / 8; m["bps"] = 1; m["kbps"] = 1000
		m["mbps"] = 1e6; m["gbps"] = 1e9
		if (!(u in m) || n + 0 <= 0) exit
		printf "%d\n", n * m[u]
	}'
}

# Installs what the test bed runs when it is missing: through
# install-deps.sh, the one place that names Debian packages.
ensure_programs() {
	local missing=()
	for prog in ip tc sshd ssh ssh-keygen unshare flock; do
		command -v "$prog" >/dev/null 2>&1 ||
			[[ -x /usr/sbin/$prog ]] || missing+=("$prog")
	done
	((${#missing[@]} == 0)) && return 0
	echo "testbed.sh: missing ${missing[*]}; installing" >&2
	"$here/install-deps.sh" --testbed >&2 ||
		cannot "cannot install the test bed's packages (missing:" \
			"${missing[*]})"
}

# Ends every process in namespace $1: TERM, then KILL what is left.
kill_netns_procs() {
	local ns=$1 pids tries=0
	pids=$(ip netns pids "$ns" 2>/dev/null || true)
	[[ -z $pids ]] && return 0
	kill -TERM $pids 2>/dev/null || true
	# Up to 2 s for a clean exit (sshd, a tree shutting down).
	while ((tries < 20)); do
		pids=$(ip netns pids "$ns" 2>/dev/null || true)
		[[ -z $pids ]] && return 0
		sleep 0.1
		tries=$((tries + 1))
	done
	kill -KILL $pids 2>/dev/null || true
	tries=0
	while ((tries < 50)); do
		pids=$(ip netns pids "$ns" 2>/dev/null || true)
		[[ -z $pids ]] && return 0
		sleep 0.1
		tries=$((tries + 1))
	done
	echo "testbed.sh: processes $pids in namespace $ns survived SIGKILL" >&2
	return 1
}

# --- down ----------------------------------------------------------------

do_down() {
	[[ -d $state ]] || return 0
	local ok=0 ns dir
	for ns in $(listed netns); do
		[[ -e /run/netns/$ns ]] || continue
		kill_netns_procs "$ns" || ok=1
		ip netns del "$ns" 2>/dev/null ||
			{ echo "testbed.sh: cannot delete namespace $ns" >&2; ok=1; }
	done
	for dir in $(listed etc); do
		rm -rf -- "$dir"
	done
	rmdir /etc/netns 2>/dev/null || true
	if ((ok == 0)); then
		rm -rf -- "$state"
	else
		fail "test bed '$prefix' not wholly removed; state kept in $state"
	fi
}

# --- up ------------------------------------------------------------------

# The configuration of host $1 (index $2): /etc/hosts, ssh client config,
# sshd config.
host_files() {
	local h=$1 k=$2 etc=/etc/netns/$1
	note etc "$etc"
	mkdir -p "$etc/ssh" "$state/$h"
	cp "$state/hosts.txt" "$etc/hosts"
	cp "$state/ssh_config" "$etc/ssh/ssh_config"
	ssh-keygen -q -t ed25519 -N '' -C "$h" -f "$state/$h/host_key"
	cat >"$state/$h/sshd_config" <<EOF
# sshd of test bed host $h
ListenAddress $SUBNET.$k
HostKey $state/$h/host_key
PidFile $state/$h/sshd.pid
AuthorizedKeysFile $state/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
# The state directory is root's and private; its parents are not checked.
StrictModes no
UseDNS no
PrintMotd no
PrintLastLog no
X11Forwarding no
# A tree may start many processes on one host at once.
MaxStartups 200:30:400
MaxSessions 200
Subsystem sftp internal-sftp
EOF
	echo "$h,$SUBNET.$k $(cut -d' ' -f1-2 "$state/$h/host_key.pub")" \
		>>"$state/known_hosts"
}

# Link of host $1 (index $2): a veth pair, eth0 in the host, pK on the
# bridge; --rate caps both ends' egress.
host_link() {
	local h=$1 k=$2
	ip -n "$brns" link add "p$k" type veth peer name eth0 netns "$h"
	ip -n "$brns" link set "p$k" master br0 up
	ip -n "$h" link set lo up
	ip -n "$h" addr add "$SUBNET.$k/24" dev eth0
	ip -n "$h" link set eth0 up
	if [[ -n $rate ]]; then
		local bytes burst
		bytes=$(rate_bytes "$rate")
		# A burst of 10 ms at the rate, at least 16 KiB (a few full
		# frames), so the cap is reachable whatever the timer tick.
		burst=$((bytes / 100 > 16384 ? bytes / 100 : 16384))
		tc -n "$h" qdisc add dev eth0 root tbf rate "$rate" \
			burst "$burst" latency 200ms
		tc -n "$brns" qdisc add dev "p$k" root tbf rate "$rate" \
			burst "$burst" latency 200ms
	fi
}

# Starts host $1's sshd in the host's namespaces, under its host name.
host_sshd() {
	local h=$1
	# 9>&-: the daemon must not hold the test bed's lock.
	ip netns exec "$h" unshare --uts sh -c \
		'hostname "$1" && exec /usr/sbin/sshd -f "$2" -E "$3"' \
		sh "$h" "$state/$h/sshd_config" "$state/$h/sshd.log" 9>&- ||
		fail "sshd of $h did not start: $(tail -3 "$state/$h/sshd.log" 2>/dev/null)"
}

do_up() {
	[[ -n $count ]] || usage_error "'up' needs a host count"
	[[ $count =~ ^[0-9]+$ ]] && ((count >= 1 && count <= MAX_HOSTS)) ||
		usage_error "host count '$count' is not a number from 1 to $MAX_HOSTS"
	if [[ -n $rate && -z $(rate_bytes "$rate") ]]; then
		usage_error "bad rate '$rate' (a number with bit, kbit, mbit," \
			"gbit, bps, kbps, mbps or gbps)"
	fi
	need_root
	ensure_programs
	[[ -e $state ]] && fail "test bed '$prefix' is up already ($state);" \
		"run 'testbed.sh down --prefix $prefix' first"
	local hosts=() k h
	for ((k = 1; k <= count; k++)); do
		hosts+=("$prefix$k")
	done
	# Namespaces of these names that are not ours are left alone.
	for h in "${hosts[@]}" "$brns"; do
		if [[ -e /run/netns/$h ]]; then
			fail "a network namespace '$h' exists and is not this test" \
				"bed's; remove it or choose another --prefix"
		fi
		[[ -e /etc/netns/$h ]] && fail "/etc/netns/$h exists and is" \
			"not this test bed's; remove it or choose another --prefix"
	done
	mkdir -p -m 0700 "$state"
	printf '%s\n' "${hosts[@]}" >"$state/hosts"
	# From here on, a failure (or a signal) removes what was made.
	up_done=0
	trap 'if ((up_done == 0)); then
		echo "testbed.sh: up did not finish; removing what it made" >&2
		do_down && lock_remove
	fi' EXIT

	note netns "$brns"
	ip netns add "$brns" 2>"$state/netns.err" ||
		cannot "cannot create a network namespace:" \
			"$(cat "$state/netns.err" 2>/dev/null)"
	ip -n "$brns" link add br0 type bridge
	ip -n "$brns" link set br0 up

	# Names, keys and the client side, shared by every host.
	{
		echo "127.0.0.1 localhost"
		echo "::1 localhost ip6-localhost ip6-loopback"
		for ((k = 1; k <= count; k++)); do
			echo "$SUBNET.$k $prefix$k"
		done
	} >"$state/hosts.txt"
	ssh-keygen -q -t ed25519 -N '' -C "grove-testbed-$prefix" \
		-f "$state/id_ed25519"
	cp "$state/id_ed25519.pub" "$state/authorized_keys"
	: >"$state/known_hosts"
	cat >"$state/ssh_config" <<EOF
# ssh client config of test bed '$prefix' (testbed.sh)
Host *
	User root
	IdentityFile $state/id_ed25519
	IdentitiesOnly yes
	UserKnownHostsFile $state/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	BatchMode yes
	ConnectTimeout 10
	LogLevel ERROR
EOF
	# sshd's privilege separation directory (made by its service, which
	# does not run here).
	mkdir -p -m 0755 /run/sshd

	for ((k = 1; k <= count; k++)); do
		h=$prefix$k
		note netns "$h"
		ip netns add "$h"
		host_files "$h" "$k"
		host_link "$h" "$k"
	done
	for ((k = 1; k <= count; k++)); do
		host_sshd "$prefix$k"
	done
	# Every host answers ssh from the first, under its own name.
	local got tries
	for ((k = 1; k <= count; k++)); do
		h=$prefix$k
		tries=0
		until got=$(ip netns exec "${hosts[0]}" ssh "$h" hostname \
		    2>"$state/ssh.err" 9>&-); do
			tries=$((tries + 1))
			((tries < 50)) || fail "ssh $h from ${hosts[0]}:" \
				"$(cat "$state/ssh.err")"
			sleep 0.1
		done
		[[ $got == "$h" ]] || fail "ssh $h hostname said '$got'"
	done
	up_done=1
	echo "testbed.sh: up: ${hosts[*]} ($SUBNET.1-$count/24${rate:+, $rate}); state $state"
}

# --- exec ----------------------------------------------------------------

do_exec() {
	((${#args[@]} >= 2)) || usage_error "'exec' needs a host and a command"
	local h=${args[0]} f
	need_root
	# Without --prefix, the test bed that has this host.
	if [[ $prefix_given == 0 ]] && ! grep -qx -- "$h" "$state/hosts" \
	    2>/dev/null; then
		for f in "$base"/*/hosts; do
			grep -qx -- "$h" "$f" 2>/dev/null && state=${f%/hosts}
		done
	fi
	grep -qx -- "$h" "$state/hosts" 2>/dev/null ||
		fail "'$h' is not a host of a test bed that is up (under $base)"
	exec ip netns exec "$h" unshare --uts sh -c \
		'hostname "$0" && exec "$@"' "${args[@]}"
}

case $cmd in
up)
	need_root
	lock
	do_up
	;;
down)
	need_root
	lock
	do_down
	lock_remove
	;;
exec)
	do_exec
	;;
ssh-config)
	[[ -f $state/ssh_config ]] || fail "test bed '$prefix' is not up"
	echo "$state/ssh_config"
	;;
hosts)
	[[ -f $state/hosts ]] || fail "test bed '$prefix' is not up"
	cat "$state/hosts"
	;;
esac
