#pragma once
// The CUDA probes as a module of their own (libvtsim_cuda_probes.so), which `vtsim calibrate probe gpu|nccl` loads
// with dlopen (cuda_probes_loader.cpp). Linking CUDA's runtime, cuBLAS and NCCL into vtsim itself cost every vtsim
// process about 220 MB of resident memory before it did anything (their relocations alone; docs/scale.md), every
// simulation and every sweep worker included; only the probes use them.
//
// The module's entry points are C functions, so that dlsym finds them by these names; each returns a backend the
// caller owns (delete it through the base class), or throws as the backend's constructor does.

namespace vtsim::calibrate {
class GpuBackend;
class NcclBackend;
}  // namespace vtsim::calibrate

extern "C" {
/// A new CUDA GPU backend (cuda_gpu_backend.cpp).
vtsim::calibrate::GpuBackend* vtsim_new_cuda_gpu_backend();
/// A new NCCL backend over every visible GPU (nccl_backend.cpp).
vtsim::calibrate::NcclBackend* vtsim_new_nccl_backend();
}

namespace vtsim::calibrate {
/// The module's file name, looked for beside the vtsim executable, then in ../lib/vtsim from it.
inline constexpr const char* kCudaProbesModule = "libvtsim_cuda_probes.so";
}  // namespace vtsim::calibrate
