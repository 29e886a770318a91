// The probe factories of a build without CUDA (VTSIM_HAVE_CUDA off) or without libibverbs (VTSIM_HAVE_IBVERBS off):
// they report that no device can be probed, and why, on one line.

#include "calibrate/hardware_backends.hpp"
#include "calibrate/probe_support.hpp"

namespace vtsim::calibrate {

#if !VTSIM_HAVE_CUDA
std::unique_ptr<GpuBackend> make_gpu_backend() {
  throw DeviceNotFound("no CUDA device found (this vtsim was built without CUDA, cuBLAS and NCCL)");
}

std::unique_ptr<NcclBackend> make_nccl_backend() {
  throw DeviceNotFound("no CUDA device found (this vtsim was built without CUDA, cuBLAS and NCCL)");
}
#endif

#if !VTSIM_HAVE_IBVERBS
std::unique_ptr<RdmaBackend> make_rdma_backend() {
  throw DeviceNotFound("no RDMA device found (this vtsim was built without libibverbs)");
}
#endif

}  // namespace vtsim::calibrate
