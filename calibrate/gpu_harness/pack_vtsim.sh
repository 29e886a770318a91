#!/bin/bash
# Packs a vtsim build for a GPU machine without SimGrid: vt/vtsim, vt/libvtsim_cuda_probes.so and, in vt/lib, the
# shared libraries vtsim needs that a CUDA image may lack (glibc's, libstdc++ and libgcc_s stay: the machine's own
# are newer). CUDA's runtime, cuBLAS and NCCL are the machine's (run_device.sh finds them).
# Usage (from the repository root, after a build): calibrate/gpu_harness/pack_vtsim.sh BUILD_DIR OUT.tar.xz
set -eu
BUILD=$1
OUT=$2
STAGE=$(mktemp -d)
mkdir -p "$STAGE/vt/lib"
cp "$BUILD/vtsim" "$BUILD/libvtsim_cuda_probes.so" "$STAGE/vt/"
for lib in $(ldd "$BUILD/vtsim" | awk '/=>/ {print $3}'); do
  case $(basename "$lib") in
    libc.so*|libm.so*|libstdc++*|libgcc_s*|libdl*|libpthread*|librt*) ;;
    *) cp -L "$lib" "$STAGE/vt/lib/" ;;
  esac
done
tar cJf "$OUT" -C "$STAGE" vt
rm -rf "$STAGE"
