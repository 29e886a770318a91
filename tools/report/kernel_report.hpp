#pragma once
// How well the kernel model predicts measured kernels: per family, the fit of every GPU, the fit of each GPU alone
// and, the honest figure, each GPU predicted by the fit of the others (leave-one-GPU-out), against the targets of
// docs/compute-model.md. `vtsim kernels --fit` and `vtsim validate` print it.

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibrate/kernel_fit.hpp"
#include "models/compute/kernel_parameters.hpp"

namespace vtsim::tools {

/// One family's figures.
struct FamilyReport {
  KernelFamily family = KernelFamily::gemm;
  int kernels = 0;
  std::vector<calibrate::GpuFamilyErrors> gpus;
  double fitted_all_mean_abs = 0;    ///< every GPU's fit, in sample, pooled over kernels
  double within_gpu_mean_abs = 0;    ///< each GPU's own fit, in sample, pooled
  double left_gpu_out_mean_abs = 0;  ///< each GPU by the others' fit at its boost clock, pooled; the target's figure
  double left_gpu_out_measured_clock_mean_abs = 0;  ///< the same at its own measured sustained clock
  /// left_gpu_out_mean_abs with each convolution at the algorithm the model finds fastest, not the one cuDNN ran
  double left_gpu_out_fastest_mean_abs = 0;
  double target_mean_abs = 0;
  bool met() const { return left_gpu_out_mean_abs <= target_mean_abs; }
};

/// The report of a fit to some measured kernels.
struct KernelReport {
  FittedKernelParameters fitted;  ///< the fit of every GPU
  std::vector<FamilyReport> families;
};

/// The rows of `kernels` the kernel model is fitted to: all but TF32 products, which the tensor-core families (16-bit
/// kernels' constants) time as derived, so that a TF32 row checks those constants and does not join them.
std::vector<calibrate::MeasuredKernel> fitted_rows(const std::vector<calibrate::MeasuredKernel>& kernels);

/// The fit of every GPU of `kernels`' fitted_rows, read from `paths`, at the clocks measured on them, with the GPUs and
/// kernels per family it saw.
FittedKernelParameters fit_every_gpu(const std::vector<calibrate::MeasuredKernel>& kernels,
                                     const std::vector<std::string>& paths);

/// Fits `kernels`' fitted_rows, read from `paths`, and evaluates the fit three ways. Families without kernels are left
/// out.
KernelReport kernel_report(const std::vector<calibrate::MeasuredKernel>& kernels,
                           const std::vector<std::string>& paths);

/// One group of a held-out GPU's kernels: a family, with the 16-bit products split by their operands' alignment
/// (cuBLAS runs its fast tensor-core kernels only on operands whose rows start at 16-byte boundaries).
struct HeldOutGroup {
  std::string name;                       ///< "gemm", "tensor_gemm, aligned", "tensor_gemm, unaligned", ...
  calibrate::KernelErrors all;            ///< every measured row
  calibrate::KernelErrors device_bound;   ///< rows measured at >= the report's device_bound_s
};

/// The committed constants on measured kernels of GPUs they were not fitted to.
struct HeldOutReport {
  std::vector<std::string> paths;
  std::vector<std::string> gpus;  ///< catalog ids of the held-out GPUs
  double device_bound_s = 0;      ///< a row measured at least this long is timed by the device, not the host
  std::vector<HeldOutGroup> groups;
};

/// The groups a held-out report may have, in its order: each family, tensor_gemm as "tensor_gemm, aligned" and
/// "tensor_gemm, unaligned".
std::vector<std::string> held_out_group_names();

/// Whether a 16-bit product's operands are 16-byte aligned: its reduction (k) and output columns (n) are multiples
/// of 8 values, the leading dimensions of a row-major linear layer's input, weight and output.
bool operands_aligned(const KernelShape& shape);

/// The committed constants (fitted_kernel_parameters()) on `kernels`, read from `paths`. Throws InputError when a
/// kernel's GPU is one the constants were fitted to (it would not be held out).
HeldOutReport held_out_report(const std::vector<calibrate::MeasuredKernel>& kernels,
                              const std::vector<std::string>& paths, double device_bound_s);
/// The held-out report as a text table, and as JSON.
void print_held_out_report(const HeldOutReport& report, std::ostream& out);
nlohmann::json held_out_report_json(const HeldOutReport& report);

/// Leave-one-GPU-out mean |error| target of a family (docs/compute-model.md, "Targets").
double kernel_target_mean_abs(KernelFamily family);

/// The report as text tables.
void print_kernel_report(const KernelReport& report, std::ostream& out);
/// The report as JSON.
nlohmann::json kernel_report_json(const KernelReport& report);

/// What convolutions' gradients cost against their forward pass on the CUDA cores, measured on convolutions with
/// gradient times (DeepBench's fp32 files), beside the constants the model runs with (cuda_core_gradient_cost), and
/// each GPU's gradients predicted from its forward passes at the cost the other GPUs measure.
struct GradientReport {
  std::vector<std::string> paths;
  std::vector<calibrate::GradientCost> measured;            ///< every GPU together
  std::vector<calibrate::GradientCostErrors> left_gpu_out;  ///< per GPU, shape and gradient
  /// Pooled over every GPU left out, per shape and gradient (measured's order): at the others' cost and at 1; their
  /// count and mean |error| only.
  std::vector<calibrate::KernelErrors> pooled_at_cost;
  std::vector<calibrate::KernelErrors> pooled_at_one;
  /// Whether every measured cost is the model's constant (to 1e-9), and the model has a cost of 1 for every shape
  /// and gradient measured on too few rows.
  bool reproduces = false;
};

/// The report for `kernels`, read from `paths`.
GradientReport gradient_report(const std::vector<calibrate::MeasuredKernel>& kernels,
                               const std::vector<std::string>& paths);
void print_gradient_report(const GradientReport& report, std::ostream& out);
nlohmann::json gradient_report_json(const GradientReport& report);

}  // namespace vtsim::tools
