#pragma once
// Fitting the kernel model's constants (models/kernel_model.hpp) to measured kernels, and how well they predict
// kernels they were not fitted to: on the same GPUs, and on a GPU left out of the fit (leave-one-GPU-out), which is
// what a GPU without data (H100, H200, L4, ...) gets.
//
// Each family is fitted on its own: Levenberg-Marquardt on ln(predicted / measured), made robust to the few kernels the
// library runs far off its best (a soft-L1 loss, by iteratively reweighted least squares), so that those do not pull
// the constants every other kernel shares. docs/compute-model.md lists the fitted values and the errors.

#include <map>
#include <string>
#include <vector>

#include "calibrate/kernel_measurements.hpp"
#include "models/kernel_model.hpp"

namespace vtsim::calibrate {

/// Fits `family`'s constants to `kernels` (those of the family with a latency; rows on GPUs without a catalog
/// entry are not accepted by the reader), starting from `start`. REQUIRES: at least one such kernel.
KernelFamilyParameters fit_kernel_family(KernelFamily family, const std::vector<MeasuredKernel>& kernels,
                                         const KernelFamilyParameters& start = {});

/// Fits every family that has kernels in `kernels`; the others keep `start`'s values.
KernelModelParameters fit_kernel_model(const std::vector<MeasuredKernel>& kernels,
                                       const KernelModelParameters& start = {});

/// Relative errors (predicted / measured - 1) of a set of kernels.
struct KernelErrors {
  int kernels = 0;
  double mean_abs = 0;    ///< mean |error|
  double median_abs = 0;  ///< median |error|
  double bias = 0;        ///< median error (signed)
};

/// The errors of `parameters` on the kernels of `family` (with a latency) in `kernels`.
KernelErrors kernel_errors(KernelFamily family, const std::vector<MeasuredKernel>& kernels,
                           const KernelModelParameters& parameters);

/// One family's errors on one GPU, three ways.
struct GpuFamilyErrors {
  std::string gpu_id;
  KernelErrors fitted_all;     ///< by the fit of every GPU (in sample)
  KernelErrors within_gpu;     ///< by the fit of this GPU alone (in sample)
  KernelErrors left_gpu_out;   ///< by the fit of the other GPUs (out of sample)
  KernelFamilyParameters left_out_parameters;  ///< that fit's constants
};

/// For `family`: per GPU of `kernels`, the three errors above. GPUs in catalog order.
std::vector<GpuFamilyErrors> family_errors_by_gpu(KernelFamily family, const std::vector<MeasuredKernel>& kernels,
                                                  const KernelFamilyParameters& fitted_all);

}  // namespace vtsim::calibrate
