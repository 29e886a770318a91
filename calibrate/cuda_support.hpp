#pragma once
// Owning wrappers of CUDA runtime and cuBLAS objects, and the checks that turn their errors into ProbeFailed.
// Built only with CUDA (VTSIM_HAVE_CUDA); plain C++ against the CUDA runtime, no device code.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/gpu_probe.hpp"
#include "calibrate/probe_support.hpp"

namespace vtsim::calibrate::cuda {

/// Throws ProbeFailed "CALL: CUDA's error text" unless `status` is cudaSuccess.
inline void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw ProbeFailed(std::string(call) + ": " + cudaGetErrorString(status));
}

/// Throws ProbeFailed "CALL: cuBLAS's error text" unless `status` is CUBLAS_STATUS_SUCCESS.
inline void check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) throw ProbeFailed(std::string(call) + ": " + cublasGetStatusString(status));
}

/// Device memory on the current device.
class DeviceBuffer {
 public:
  /// Allocates `bytes` on the current device.
  explicit DeviceBuffer(std::size_t bytes) { check(cudaMalloc(&data_, bytes), "cudaMalloc"); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(data_); }
  /// The device pointer.
  void* get() const { return data_; }

 private:
  void* data_ = nullptr;
};

/// Pinned (page-locked) host memory.
class PinnedBuffer {
 public:
  /// Allocates `bytes` of pinned host memory.
  explicit PinnedBuffer(std::size_t bytes) { check(cudaMallocHost(&data_, bytes), "cudaMallocHost"); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { cudaFreeHost(data_); }
  /// The host pointer.
  void* get() const { return data_; }

 private:
  void* data_ = nullptr;
};

/// A stream on the current device.
class Stream {
 public:
  Stream() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { cudaStreamDestroy(stream_); }
  /// The stream handle.
  cudaStream_t get() const { return stream_; }
  /// Waits for all work queued so far.
  void synchronize() const { check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

 private:
  cudaStream_t stream_ = nullptr;
};

/// A timing event on the current device.
class Event {
 public:
  Event() { check(cudaEventCreate(&event_), "cudaEventCreate"); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() { cudaEventDestroy(event_); }
  /// The event handle.
  cudaEvent_t get() const { return event_; }
  /// Records the event on `stream`.
  void record(cudaStream_t stream) const { check(cudaEventRecord(event_, stream), "cudaEventRecord"); }
  /// Seconds from `start` to this event; both must have completed.
  double seconds_since(const Event& start) const {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start.event_, event_), "cudaEventElapsedTime");
    return static_cast<double>(ms) * 1e-3;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

/// A cuBLAS handle bound to a stream.
class Cublas {
 public:
  /// Creates a handle on the current device that queues its work on `stream`.
  explicit Cublas(cudaStream_t stream) {
    check(cublasCreate(&handle_), "cublasCreate");
    check(cublasSetStream(handle_, stream), "cublasSetStream");
  }
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  ~Cublas() { cublasDestroy(handle_); }
  /// The handle.
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

/// Times `repetitions` batches queued by `enqueue` on `stream` with events, after one untimed warm-up batch.
template <typename Enqueue>
std::vector<double> time_batches(cudaStream_t stream, int repetitions, Enqueue enqueue) {
  enqueue();
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  std::vector<double> seconds;
  Event start;
  Event stop;
  for (int i = 0; i < repetitions; ++i) {
    start.record(stream);
    enqueue();
    stop.record(stream);
    check(cudaEventSynchronize(stop.get()), "cudaEventSynchronize");
    seconds.push_back(stop.seconds_since(start));
  }
  return seconds;
}

/// The visible device count; 0 when there is no device or no usable driver.
inline int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" / "insufficient driver" error
    return 0;
  }
  return count;
}

/// One fp32 GEMM C = A B of n x n x n on `handle` (the sharing and interference tests' kernel).
inline void sgemm(cublasHandle_t handle, std::int64_t n, const void* a, const void* b, void* c) {
  const float one = 1;
  const float zero = 0;
  const int size = static_cast<int>(n);
  check(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, size, size, size, &one, static_cast<const float*>(a), size,
                    static_cast<const float*>(b), size, &zero, static_cast<float*>(c), size),
        "cublasSgemm");
}

/// The CUDA devices this process sees, with their names, compute capabilities and memory.
inline std::vector<GpuDeviceInfo> visible_devices() {
  std::vector<GpuDeviceInfo> devices;
  const int count = device_count();
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp properties{};
    check(cudaGetDeviceProperties(&properties, i), "cudaGetDeviceProperties");
    devices.push_back({i, properties.name, properties.major, properties.minor,
                       static_cast<double>(properties.totalGlobalMem)});
  }
  return devices;
}

/// The NVIDIA driver version as nvidia-smi reports it for the first GPU; "" when nvidia-smi cannot be run.
inline std::string nvidia_driver_version() {
  const std::string driver = command_output("nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null");
  return driver.substr(0, driver.find('\n'));
}

}  // namespace vtsim::calibrate::cuda
