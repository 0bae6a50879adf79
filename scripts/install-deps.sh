#!/usr/bin/env bash
# Installs the Debian packages Grove needs to build, test and fuzz.
# This is the one place that lists them.  Only missing packages are
# installed; nothing happens when everything is there already.
#   install-deps.sh            everything
#   install-deps.sh --testbed  only what scripts/testbed.sh runs
#   install-deps.sh --launchers only Slurm, munge, PMI-2, Open MPI, PMIx
set -euo pipefail

# The multi-host test bed (scripts/testbed.sh, docs/hosts.md).
TESTBED_PACKAGES=(
	iproute2          # ip netns, veth, bridge; tc for --rate
	openssh-server    # an sshd per test bed host
	openssh-client    # ssh, ssh-keygen
	util-linux        # unshare (a host name per host), flock
)

# A single-node Slurm (scripts/slurm-local.sh) and Open MPI's launcher,
# which start Grove MPI programs through PMI-2 and PMIx (docs/hosts.md).
LAUNCHER_PACKAGES=(
	slurm-wlm         # slurmctld, slurmd, srun, salloc
	munge             # Slurm's authentication
	libpmi2-0-dev     # Slurm's PMI-2 client library (libpmi2.so.0)
	openmpi-bin       # mpirun
	libpmix-dev       # PMIx client library and header (pmix.h)
)

PACKAGES=(
	build-essential   # gcc, make, libc headers
	cmake             # build and test driver (CTest)
	pkg-config        # finds libuv, libsodium, otf2
	libuv1-dev        # event loop, sockets, timers
	libsodium-dev     # authentication of every connection
	libcmocka-dev     # unit tests
	libotf2-trace-dev # trace export to OTF2 (optional at build time)
	otf2-tools        # otf2-print, to inspect exported traces
	clang             # fuzz targets (libFuzzer)
	libclang-rt-14-dev # libFuzzer and sanitizer runtimes for clang 14
	python3           # helper scripts in tests and docs
	strace            # tests check which programs an installed tool starts
	autoconf          # the MPI wrappers' test configures an autoconf project
	chromium          # tests open grove report's page in a headless browser
	"${TESTBED_PACKAGES[@]}"
	"${LAUNCHER_PACKAGES[@]}"
)

case ${1:-} in
--testbed) PACKAGES=("${TESTBED_PACKAGES[@]}") ;;
--launchers) PACKAGES=("${LAUNCHER_PACKAGES[@]}") ;;
"") ;;
*)
	echo "install-deps: unknown argument '$1' (expected nothing, --testbed or --launchers)" >&2
	exit 2
	;;
esac

missing=()
for p in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	if [[ "$status" != "install ok installed" ]]; then
		missing+=("$p")
	fi
done

if ((${#missing[@]} == 0)); then
	echo "install-deps: all ${#PACKAGES[@]} packages present"
	exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [[ $(id -u) -eq 0 ]]; then
	SUDO=()
elif command -v sudo >/dev/null; then
	SUDO=(sudo)
else
	echo "install-deps: not root and no sudo; please install:" \
	    "${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	--no-install-recommends "${missing[@]}"
