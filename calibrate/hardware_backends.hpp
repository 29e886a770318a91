#pragma once
// The real hardware behind the probes. Each factory is defined by the backend built into this vtsim: with CUDA,
// cuBLAS and NCCL, cuda_probes_loader.cpp, which loads cuda_gpu_backend.cpp / nccl_backend.cpp from their module
// (cuda_probes_module.hpp); ibverbs_backend.cpp with libibverbs; else unavailable_backends.cpp, whose factories throw
// DeviceNotFound saying what the build lacks.

#include <memory>

#include "calibrate/gpu_probe.hpp"
#include "calibrate/nccl_probe.hpp"
#include "calibrate/rdma_probe.hpp"

namespace vtsim::calibrate {

/// The CUDA GPU backend. Create it before anything else in this process uses CUDA (it forks a helper first).
std::unique_ptr<GpuBackend> make_gpu_backend();

/// The NCCL backend over all visible GPUs.
std::unique_ptr<NcclBackend> make_nccl_backend();

/// The libibverbs backend.
std::unique_ptr<RdmaBackend> make_rdma_backend();

}  // namespace vtsim::calibrate
