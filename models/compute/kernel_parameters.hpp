#pragma once
// The kernel model's constants as fitted to the measured kernels in data/kernels/ (`vtsim kernels --fit
// data/kernels/neusight --write models/compute/kernel_parameters.json` writes them; the build compiles that file in,
// and the test kernels.refit_reproduces_committed_constants fits them again from the data and compares).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/compute/kernel_model.hpp"

namespace vtsim {

/// What one GPU of the data sustained under one family's long kernels, measured from those kernels
/// (calibrate/kernel_fit.hpp's measure_sustained_clocks): the median of their achieved flop/s over its datasheet peak
/// (a memory-bound family: bytes/s over its datasheet bandwidth), relative to that of the GPU of the data that reaches
/// most of its peak, which is taken to hold its boost clock (its memory's best).
/// Per family, because each family's data were timed in a run of their own, and a card limited by its power or its
/// cooling holds a different clock in each (the P4's linear layers ran at a third of the V100's share of peak, its
/// batched products at two thirds).
struct SustainedClock {
  std::string gpu_id;
  KernelFamily family = KernelFamily::gemm;
  double fraction = 1.0;                     ///< of the boost clock: KernelDevice's sustained_clock for the family
  double median_utilization = 0;  ///< of the datasheet peak (or bandwidth), over the long kernels measured
  int kernels = 0;                ///< long kernels measured
};

/// `gpu` at its datasheet values, with the sustained clocks measured for it in `clocks` (the boost clock where none;
/// a 16-bit convolution without a clock of its own at the tensor GEMMs', the same tensor cores' clock).
KernelDevice kernel_device(const GpuSpec& gpu, const std::vector<SustainedClock>& clocks);

/// Fitted constants with what they were fitted to.
struct FittedKernelParameters {
  KernelModelParameters parameters;
  std::vector<SustainedClock> clocks;  ///< measured per GPU of the data and path; the constants assume them
  /// Per family (kernel_families() order): catalog ids of the GPUs whose kernels it was fitted to, in catalog order.
  std::vector<std::vector<std::string>> gpus;
  std::vector<int> kernels;  ///< kernels fitted per family (kernel_families() order)

  /// "id, id, ..." of `family`'s GPUs.
  std::string gpu_list(KernelFamily family) const;
  std::string data;               ///< what the data are, for the output
};

/// The committed fit (models/compute/kernel_parameters.json), parsed once.
const FittedKernelParameters& fitted_kernel_parameters();

/// One family's constants as JSON (host_us and the ratios; the tile constants only for matrix products).
nlohmann::json to_json(KernelFamily family, const KernelFamilyParameters& parameters);

/// The JSON form models/compute/kernel_parameters.json has.
nlohmann::json to_json(const FittedKernelParameters& fitted);

/// Reads that form. Throws InputError naming `file` and the JSON path on a bad value.
FittedKernelParameters fitted_kernel_parameters_from_json(const std::string& text, const std::string& file);

}  // namespace vtsim
