#!/usr/bin/env bash
# Installs the Debian 12 packages vtsim builds and tests with, if any are missing. Idempotent: when everything is
# present it installs nothing and touches no network.
set -euo pipefail

packages=(
  cmake g++ make pkg-config          # toolchain
  libsimgrid-dev                     # SimGrid 3.32: the discrete-event engine (sim/)
  libboost-graph-dev                 # topology graph (sim/)
  libeigen3-dev                      # least-squares fits (calibrate/)
  nlohmann-json3-dev                 # scenarios, profiles, results
  libcli11-dev                       # the vtsim command line
  libprotobuf-dev protobuf-compiler  # Chakra execution traces (models/traces/chakra_trace.hpp)
  zlib1g-dev                         # gzip-compressed traces
  libgtest-dev libgmock-dev          # tests
  libibverbs-dev                     # optional RDMA probes (built when present)
  libjemalloc-dev                    # optional allocator of the vtsim binary (faster large simulations)
  gnuplot-nox                        # vtsim plot draws through gnuplot (SVG, PNG via pngcairo)
  slurm-wlm munge                    # the sweep test's single-node Slurm cluster (slurmctld, slurmd, sbatch)
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$package")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
echo "setup: installing ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
