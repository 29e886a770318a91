// Kernel CSV reader (NeuSight's columns or a DeepBench results file), then the kernel model on every row it read.
#include "calibrate/kernel_measurements.hpp"
#include "fuzz/fuzz_targets.hpp"
#include "models/catalog/gpu_catalog.hpp"
#include "models/compute/kernel_parameters.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return vtsim::fuzz::feed(data, size, [](std::string_view text) {
    const vtsim::KernelDevice t4 = vtsim::kernel_device(*vtsim::find_gpu("t4"));
    for (const vtsim::calibrate::MeasuredKernel& kernel : vtsim::calibrate::read_kernel_csv(text, "fuzz.csv", "t4")) {
      vtsim::predict_kernel(kernel.shape, t4, vtsim::fitted_kernel_parameters().parameters);
    }
  });
}
