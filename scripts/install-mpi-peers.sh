#!/usr/bin/env bash
# Installs the peers of the side-by-side MPI benchmark (scripts/bench-mpi.sh):
# Debian's Open MPI and MPICH, and gnuplot for scripts/plot-mpi.sh.  Only
# missing packages are installed; nothing happens when everything is there.
# Debian installs both MPIs side by side; the benchmark calls each by its own
# name (mpicc.openmpi, mpirun.openmpi, mpicc.mpich, mpirun.mpich), never
# through the mpicc/mpirun alternatives.
set -euo pipefail

PACKAGES=(
	openmpi-bin     # mpirun.openmpi
	libopenmpi-dev  # mpicc.openmpi
	mpich           # mpirun.mpich
	libmpich-dev    # mpicc.mpich
)
# gnuplot-nox where the distribution still has it, gnuplot otherwise.
GNUPLOT=gnuplot-nox

installed() {
	[[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true) == \
	    "install ok installed" ]]
}

missing=()
for p in "${PACKAGES[@]}"; do
	installed "$p" || missing+=("$p")
done
if ! command -v gnuplot >/dev/null && ! installed gnuplot-nox &&
    ! installed gnuplot; then
	missing+=("$GNUPLOT")
fi

if ((${#missing[@]} == 0)); then
	echo "install-mpi-peers: all packages present"
	exit 0
fi

echo "install-mpi-peers: installing ${missing[*]}"
if [[ $(id -u) -eq 0 ]]; then
	SUDO=()
elif command -v sudo >/dev/null; then
	SUDO=(sudo)
else
	echo "install-mpi-peers: not root and no sudo; please install:" \
	    "${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Wait for the dpkg lock rather than fail when another apt-get is running.
APT=("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get
	-o DPkg::Lock::Timeout=300)
"${APT[@]}" update -q
if [[ " ${missing[*]} " == *" $GNUPLOT "* ]] &&
    ! apt-cache show "$GNUPLOT" >/dev/null 2>&1; then
	missing=("${missing[@]/#$GNUPLOT/gnuplot}")
fi
"${APT[@]}" install -y -q --no-install-recommends "${missing[@]}"
