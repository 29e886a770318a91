#pragma once
// Which optional libraries this build found at configure time: CUDA with cuBLAS and NCCL (for the GPU probes) and
// libibverbs (for the RDMA probes). Everything else in vtsim works without them.

namespace vtsim::calibrate {

/// The optional libraries compiled in.
struct BuildFeatures {
  bool cuda = false;     ///< CUDA runtime, cuBLAS and NCCL
  bool ibverbs = false;  ///< rdma-core's libibverbs
};

/// What this build found.
BuildFeatures build_features();

}  // namespace vtsim::calibrate
