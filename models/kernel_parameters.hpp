#pragma once
// The kernel model's constants as fitted to the measured kernels in data/kernels/ (`vtsim kernels --fit
// data/kernels/neusight --write models/kernel_parameters.json` writes them; the build compiles that file in, and the
// test kernels.refit_reproduces_committed_constants fits them again from the data and compares).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/kernel_model.hpp"

namespace vtsim {

/// Fitted constants with what they were fitted to.
struct FittedKernelParameters {
  KernelModelParameters parameters;
  /// Per family (kernel_families() order): catalog ids of the GPUs whose kernels it was fitted to, in catalog order.
  std::vector<std::vector<std::string>> gpus;
  std::vector<int> kernels;  ///< kernels fitted per family (kernel_families() order)

  /// "id, id, ..." of `family`'s GPUs.
  std::string gpu_list(KernelFamily family) const;
  std::string data;               ///< what the data are, for the output
};

/// The committed fit (models/kernel_parameters.json), parsed once.
const FittedKernelParameters& fitted_kernel_parameters();

/// One family's constants as JSON (host_us and the ratios; the tile constants only for matrix products).
nlohmann::json to_json(KernelFamily family, const KernelFamilyParameters& parameters);

/// The JSON form models/kernel_parameters.json has.
nlohmann::json to_json(const FittedKernelParameters& fitted);

/// Reads that form. Throws InputError naming `file` and the JSON path on a bad value.
FittedKernelParameters fitted_kernel_parameters_from_json(const std::string& text, const std::string& file);

}  // namespace vtsim
