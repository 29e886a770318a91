// GpuBackend on the CUDA runtime and cuBLAS (gpu_probe.hpp says what each measurement is). Built only with CUDA.

#include <cstdio>
#include <memory>

#include "calibrate/cuda_sharing.hpp"
#include "calibrate/cuda_support.hpp"
#include "calibrate/cuda_probes_module.hpp"
#include "calibrate/gpu_probe.hpp"

namespace vtsim::calibrate {
namespace {

using cuda::check;

struct GemmTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
};

GemmTypes gemm_types(Precision precision) {
  switch (precision) {
    case Precision::fp32: return {CUDA_R_32F, CUBLAS_COMPUTE_32F};
    case Precision::tf32: return {CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32};
    case Precision::fp16: return {CUDA_R_16F, CUBLAS_COMPUTE_32F};  // fp32 accumulate, as datasheet peaks state
    case Precision::bf16: return {CUDA_R_16BF, CUBLAS_COMPUTE_32F};
  }
  return {CUDA_R_32F, CUBLAS_COMPUTE_32F};
}

// Operands of values in +-[0.5, 1): non-zero, so the GEMM draws realistic power, and small enough that sums over
// k <= 16384 stay far inside fp16's range. Built on the host as bit patterns (no device code, no cuda_fp16.h).
std::vector<std::uint16_t> half_operand(std::size_t count, bool bf16) {
  std::vector<std::uint16_t> bits(count);
  std::uint32_t state = 12345;
  for (std::uint16_t& value : bits) {
    state = state * 1664525u + 1013904223u;
    const std::uint32_t sign = state >> 31;
    const std::uint32_t mantissa = (state >> 8) & (bf16 ? 0x7fu : 0x3ffu);
    // fp16: exponent 14 (bias 15) -> [0.5, 1); bf16: exponent 126 (bias 127) -> [0.5, 1).
    value = static_cast<std::uint16_t>(bf16 ? (sign << 15) | (126u << 7) | mantissa
                                            : (sign << 15) | (14u << 10) | mantissa);
  }
  return bits;
}

std::vector<float> float_operand(std::size_t count) {
  std::vector<float> values(count);
  std::uint32_t state = 12345;
  for (float& value : values) {
    state = state * 1664525u + 1013904223u;
    value = (0.5f + static_cast<float>((state >> 8) & 0xffff) / 131072.0f) * ((state >> 31) != 0 ? -1.0f : 1.0f);
  }
  return values;
}

class CudaGpuBackend final : public GpuBackend {
 public:
  std::vector<GpuDeviceInfo> devices() override { return cuda::visible_devices(); }

  std::string driver_version() override {
    const std::string driver = cuda::nvidia_driver_version();
    int runtime = 0;
    cudaRuntimeGetVersion(&runtime);
    int blas[3] = {};
    cublasGetProperty(MAJOR_VERSION, &blas[0]);
    cublasGetProperty(MINOR_VERSION, &blas[1]);
    cublasGetProperty(PATCH_LEVEL, &blas[2]);
    std::string text = driver.empty() ? "" : "NVIDIA driver " + driver + "; ";
    return text + "CUDA runtime " + std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10) +
           "; cuBLAS " + std::to_string(blas[0]) + "." + std::to_string(blas[1]) + "." + std::to_string(blas[2]);
  }

  std::vector<double> time_gemms(int device, Precision precision, std::int64_t n, int batch,
                                 int repetitions) override {
    check(cudaSetDevice(device), "cudaSetDevice");
    const GemmTypes types = gemm_types(precision);
    const std::size_t count = static_cast<std::size_t>(n * n);
    const bool half = precision == Precision::fp16 || precision == Precision::bf16;
    const std::size_t bytes = count * (half ? 2 : 4);
    cuda::DeviceBuffer a(bytes), b(bytes), c(bytes);
    if (half) {
      const std::vector<std::uint16_t> host = half_operand(count, precision == Precision::bf16);
      check(cudaMemcpy(a.get(), host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
      check(cudaMemcpy(b.get(), host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    } else {
      const std::vector<float> host = float_operand(count);
      check(cudaMemcpy(a.get(), host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
      check(cudaMemcpy(b.get(), host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    }
    cuda::Stream stream;
    cuda::Cublas blas(stream.get());
    const float one = 1;
    const float zero = 0;
    const int size = static_cast<int>(n);
    return cuda::time_batches(stream.get(), repetitions, [&] {
      for (int i = 0; i < batch; ++i) {
        check(cublasGemmEx(blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, size, size, size, &one, a.get(), types.data, size,
                           b.get(), types.data, size, &zero, c.get(), types.data, size, types.compute,
                           CUBLAS_GEMM_DEFAULT),
              "cublasGemmEx");
      }
    });
  }

  std::vector<double> time_copies(CopyKind kind, int device, int peer, std::int64_t bytes, int batch,
                                  int repetitions) override {
    const std::size_t size = static_cast<std::size_t>(bytes);
    if (kind == CopyKind::peer) return time_peer_copies(device, peer, size, batch, repetitions);
    check(cudaSetDevice(device), "cudaSetDevice");
    cuda::Stream stream;
    cuda::DeviceBuffer on_device(size);
    if (kind == CopyKind::device_to_device) {
      cuda::DeviceBuffer other(size);
      return cuda::time_batches(stream.get(), repetitions, [&] {
        for (int i = 0; i < batch; ++i) {
          check(cudaMemcpyAsync(other.get(), on_device.get(), size, cudaMemcpyDeviceToDevice, stream.get()),
                "cudaMemcpyAsync");
        }
      });
    }
    cuda::PinnedBuffer host(size);
    const bool to_device = kind == CopyKind::host_to_device;
    return cuda::time_batches(stream.get(), repetitions, [&] {
      for (int i = 0; i < batch; ++i) {
        check(to_device ? cudaMemcpyAsync(on_device.get(), host.get(), size, cudaMemcpyHostToDevice, stream.get())
                        : cudaMemcpyAsync(host.get(), on_device.get(), size, cudaMemcpyDeviceToHost, stream.get()),
              "cudaMemcpyAsync");
      }
    });
  }

  std::vector<double> time_launches(int device, int batch, int repetitions) override {
    check(cudaSetDevice(device), "cudaSetDevice");
    cuda::Stream stream;
    cuda::DeviceBuffer word(4);
    // Wall time, enqueue to completion: what a launch-bound phase of training sees per kernel.
    const auto run_batch = [&] {
      for (int i = 0; i < batch; ++i) check(cudaMemsetAsync(word.get(), 0, 4, stream.get()), "cudaMemsetAsync");
      stream.synchronize();
    };
    run_batch();
    std::vector<double> seconds;
    for (int r = 0; r < repetitions; ++r) {
      const auto start = std::chrono::steady_clock::now();
      run_batch();
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return seconds;
  }

  std::optional<SharingSample> share_gpu(const SharingPlan& plan) override { return sharing_.run(plan); }

  std::string topology_text() override { return command_output("nvidia-smi topo -m 2>/dev/null"); }

 private:
  std::vector<double> time_peer_copies(int src, int dst, std::size_t size, int batch, int repetitions) {
    int can_access = 0;
    check(cudaDeviceCanAccessPeer(&can_access, src, dst), "cudaDeviceCanAccessPeer");
    if (can_access) {
      check(cudaSetDevice(src), "cudaSetDevice");
      const cudaError_t status = cudaDeviceEnablePeerAccess(dst, 0);
      if (status == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
      else check(status, "cudaDeviceEnablePeerAccess");
    }
    check(cudaSetDevice(dst), "cudaSetDevice");
    cuda::DeviceBuffer destination(size);
    check(cudaSetDevice(src), "cudaSetDevice");
    cuda::DeviceBuffer source(size);
    cuda::Stream stream;
    return cuda::time_batches(stream.get(), repetitions, [&] {
      for (int i = 0; i < batch; ++i) {
        check(cudaMemcpyPeerAsync(destination.get(), dst, source.get(), src, size, stream.get()),
              "cudaMemcpyPeerAsync");
      }
    });
  }

  // Forked in the constructor, before this process makes its first CUDA call (cuda_sharing.hpp says why).
  cuda::SharingHelper sharing_;
};

}  // namespace
}  // namespace vtsim::calibrate

vtsim::calibrate::GpuBackend* vtsim_new_cuda_gpu_backend() { return new vtsim::calibrate::CudaGpuBackend(); }
