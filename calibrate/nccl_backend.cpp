// NcclBackend on CUDA, cuBLAS and NCCL: one process drives every visible GPU (ncclCommInitAll), as nccl-tests does
// with -g N. Built only with CUDA.

#include <nccl.h>

#include <chrono>
#include <memory>

#include "calibrate/cuda_support.hpp"
#include "calibrate/cuda_probes_module.hpp"
#include "calibrate/nccl_probe.hpp"

namespace vtsim::calibrate {
namespace {

using cuda::check;

void check_nccl(ncclResult_t status, const char* call) {
  if (status != ncclSuccess) throw ProbeFailed(std::string(call) + ": " + ncclGetErrorString(status));
}

// Send and receive buffers of one allreduce size on every device.
struct AllreduceBuffers {
  std::vector<std::unique_ptr<cuda::DeviceBuffer>> send;
  std::vector<std::unique_ptr<cuda::DeviceBuffer>> receive;
};

class CudaNcclBackend final : public NcclBackend {
 public:
  ~CudaNcclBackend() override {
    for (ncclComm_t comm : comms_) ncclCommDestroy(comm);
  }

  std::vector<GpuDeviceInfo> devices() override { return cuda::visible_devices(); }

  std::string versions() override {
    int code = 0;
    check_nccl(ncclGetVersion(&code), "ncclGetVersion");
    const std::string driver = cuda::nvidia_driver_version();
    // NCCL_VERSION(X,Y,Z) = X*10000 + Y*100 + Z since 2.9 (nccl.h).
    std::string text = "NCCL " + std::to_string(code / 10000) + "." + std::to_string(code % 10000 / 100) + "." +
                       std::to_string(code % 100);
    return driver.empty() ? text : text + "; NVIDIA driver " + driver;
  }

  std::vector<double> time_allreduce(std::int64_t bytes, int batch, int repetitions) override {
    initialise();
    const AllreduceBuffers buffers = allocate(bytes);
    const auto run_batch = [&](int count) {
      for (int i = 0; i < count; ++i) enqueue_allreduce(buffers, bytes);
      synchronize_all();
    };
    run_batch(batch);  // warm-up
    std::vector<double> seconds;
    for (int r = 0; r < repetitions; ++r) {
      const auto start = std::chrono::steady_clock::now();
      run_batch(batch);
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return seconds;
  }

  InterferenceSample time_gemm_beside_allreduce(std::int64_t n, std::int64_t bytes, int batch,
                                                int repetitions) override {
    initialise();
    const AllreduceBuffers buffers = allocate(bytes);
    check(cudaSetDevice(0), "cudaSetDevice");
    const std::size_t matrix_bytes = static_cast<std::size_t>(n * n) * sizeof(float);
    cuda::DeviceBuffer a(matrix_bytes), b(matrix_bytes), c(matrix_bytes);
    check(cudaMemset(a.get(), 0x3c, matrix_bytes), "cudaMemset");
    check(cudaMemset(b.get(), 0x3c, matrix_bytes), "cudaMemset");
    cuda::Stream gemm_stream;
    cuda::Cublas blas(gemm_stream.get());
    const auto gemms = [&] {
      for (int i = 0; i < batch; ++i) cuda::sgemm(blas.get(), n, a.get(), b.get(), c.get());
    };
    InterferenceSample sample;
    sample.alone_s = cuda::time_batches(gemm_stream.get(), repetitions, gemms);
    // Enough allreduces to outlast a GEMM batch slowed down threefold.
    const std::vector<double> allreduce_s = time_allreduce(bytes, 3, 1);
    const double one_allreduce_s = allreduce_s.front() / 3;
    const int allreduces = 1 + static_cast<int>(3 * median(sample.alone_s) / one_allreduce_s);
    cuda::Event start;
    cuda::Event stop;
    for (int r = 0; r < repetitions; ++r) {
      for (int i = 0; i < allreduces; ++i) enqueue_allreduce(buffers, bytes);
      check(cudaSetDevice(0), "cudaSetDevice");
      start.record(gemm_stream.get());
      gemms();
      stop.record(gemm_stream.get());
      synchronize_all();
      check(cudaEventSynchronize(stop.get()), "cudaEventSynchronize");
      sample.beside_allreduce_s.push_back(stop.seconds_since(start));
    }
    return sample;
  }

 private:
  void initialise() {
    if (!comms_.empty()) return;
    const int count = cuda::device_count();
    if (count == 0) throw DeviceNotFound("no CUDA device found");
    std::vector<int> devices(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) devices[static_cast<std::size_t>(i)] = i;
    comms_.resize(devices.size());
    check_nccl(ncclCommInitAll(comms_.data(), count, devices.data()), "ncclCommInitAll");
    for (int device : devices) {
      check(cudaSetDevice(device), "cudaSetDevice");
      streams_.push_back(std::make_unique<cuda::Stream>());
    }
  }

  AllreduceBuffers allocate(std::int64_t bytes) {
    AllreduceBuffers buffers;
    for (std::size_t d = 0; d < comms_.size(); ++d) {
      check(cudaSetDevice(static_cast<int>(d)), "cudaSetDevice");
      buffers.send.push_back(std::make_unique<cuda::DeviceBuffer>(static_cast<std::size_t>(bytes)));
      buffers.receive.push_back(std::make_unique<cuda::DeviceBuffer>(static_cast<std::size_t>(bytes)));
      check(cudaMemset(buffers.send.back()->get(), 0, static_cast<std::size_t>(bytes)), "cudaMemset");
    }
    return buffers;
  }

  void enqueue_allreduce(const AllreduceBuffers& buffers, std::int64_t bytes) {
    const std::size_t count = static_cast<std::size_t>(bytes) / sizeof(float);
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (std::size_t d = 0; d < comms_.size(); ++d) {
      check_nccl(ncclAllReduce(buffers.send[d]->get(), buffers.receive[d]->get(), count, ncclFloat, ncclSum,
                               comms_[d], streams_[d]->get()),
                 "ncclAllReduce");
    }
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
  }

  void synchronize_all() {
    for (std::size_t d = 0; d < streams_.size(); ++d) {
      check(cudaSetDevice(static_cast<int>(d)), "cudaSetDevice");
      streams_[d]->synchronize();
    }
  }

  std::vector<ncclComm_t> comms_;
  std::vector<std::unique_ptr<cuda::Stream>> streams_;
};

}  // namespace
}  // namespace vtsim::calibrate

vtsim::calibrate::NcclBackend* vtsim_new_nccl_backend() { return new vtsim::calibrate::CudaNcclBackend(); }
