#pragma once
// Fitting the kernel model's constants (models/compute/kernel_model.hpp) to measured kernels, and how well they predict
// kernels they were not fitted to: on the same GPUs, and on a GPU left out of the fit (leave-one-GPU-out), which is
// what a GPU without data (H100, H200, L4, ...) gets.
//
// Each family is fitted on its own: Levenberg-Marquardt on ln(predicted / measured), made robust to the few kernels the
// library runs far off its best (a soft-L1 loss, by iteratively reweighted least squares), so that those do not pull
// the constants every other kernel shares. docs/compute-model.md lists the fitted values and the errors.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "calibrate/kernel_measurements.hpp"
#include "models/compute/kernel_model.hpp"
#include "models/compute/kernel_parameters.hpp"

namespace vtsim::calibrate {

/// The long kernels of `kernels` that measure a GPU's sustained clock: matrix products no smaller than four full waves
/// of 128 x 128 tiles, K >= 512, and at least 1 ms long (the fixed cost under 5%); memory-bound passes of at least
/// 128 MiB per tensor, which measure its memory's sustained share of the datasheet bandwidth.
bool measures_sustained_clock(const MeasuredKernel& kernel);

/// Per family and GPU with at least 10 such kernels in `kernels`: the median of their flop/s over the datasheet peak
/// (memory-bound passes: bytes/s over the datasheet bandwidth), and that over the family's highest median
/// (models/compute/kernel_parameters.hpp's SustainedClock). In kernel_families() order, then catalog order.
std::vector<SustainedClock> measure_sustained_clocks(const std::vector<MeasuredKernel>& kernels);

/// `clocks` without `gpu_id`'s, each over the best median of the other GPUs in its family: what
/// measure_sustained_clocks gives on the other GPUs' kernels (a GPU's median does not depend on the others).
std::vector<SustainedClock> clocks_without(const std::vector<SustainedClock>& clocks, std::string_view gpu_id);

/// Fits `family`'s constants to `kernels` (those of the family with a latency; rows on GPUs without a catalog
/// entry are not accepted by the reader) run at `clocks`, starting from `start`. REQUIRES: at least one such kernel.
KernelFamilyParameters fit_kernel_family(KernelFamily family, const std::vector<MeasuredKernel>& kernels,
                                         const std::vector<SustainedClock>& clocks,
                                         const KernelFamilyParameters& start = {});

/// Fits every family that has kernels in `kernels`, run at `clocks`; the others keep `start`'s values.
KernelModelParameters fit_kernel_model(const std::vector<MeasuredKernel>& kernels,
                                       const std::vector<SustainedClock>& clocks,
                                       const KernelModelParameters& start = {});

/// Relative errors (predicted / measured - 1) of a set of kernels.
struct KernelErrors {
  int kernels = 0;
  double mean_abs = 0;    ///< mean |error|
  double median_abs = 0;  ///< median |error|
  double bias = 0;        ///< median error (signed)
};

/// Which algorithm a measured convolution is timed with: the one its row says cuDNN ran (as the fit times it; the
/// fastest where the row does not say or ran FFT), or the fastest, as the model picks for a shape alone.
enum class AlgorithmChoice { as_ran, fastest };

/// The algorithm `kernel` is timed with under `choice` (nullopt: the fastest).
std::optional<ConvolutionAlgorithm> timed_algorithm(const MeasuredKernel& kernel, AlgorithmChoice choice);

/// The errors of `parameters` on the kernels of `family` (with a latency) in `kernels`, run at `clocks`.
KernelErrors kernel_errors(KernelFamily family, const std::vector<MeasuredKernel>& kernels,
                           const KernelModelParameters& parameters, const std::vector<SustainedClock>& clocks,
                           AlgorithmChoice choice = AlgorithmChoice::as_ran);

/// What one convolution shape's gradient costs against its forward pass in measured convolutions.
struct GradientCost {
  ConvolutionShape shape = ConvolutionShape::other;
  ConvolutionGradient gradient = ConvolutionGradient::input;
  int rows = 0;     ///< convolutions measured with the gradient's time
  double cost = 1;  ///< the median of the gradient's time over the forward pass's (the upper of two middle values)
};
/// A shape measured on fewer convolutions than this gets no cost (models/compute/kernel_model.hpp's
/// cuda_core_gradient_cost keeps 1 for it).
inline constexpr int kMinGradientRows = 10;
/// Per shape and gradient, in that order: over the CUDA-core convolutions of `kernels` (family convolution) that
/// carry the gradient's time (DeepBench's; a first layer has no input gradient), the median of its time over the
/// forward pass's. A shape and gradient with fewer than kMinGradientRows such convolutions is left out.
std::vector<GradientCost> measure_gradient_costs(const std::vector<MeasuredKernel>& kernels);
/// One GPU's gradient times of one shape predicted from its measured forward passes, at the cost measured on the other
/// GPUs (leave-one-GPU-out) and at 1 (a gradient as long as the forward pass).
struct GradientCostErrors {
  std::string gpu_id;
  ConvolutionShape shape = ConvolutionShape::other;
  ConvolutionGradient gradient = ConvolutionGradient::input;
  double cost = 1;  ///< measured on the other GPUs
  KernelErrors at_cost;
  KernelErrors at_one;
};
/// For each GPU of `kernels` with gradient times (name order), each shape and gradient the other GPUs measure.
std::vector<GradientCostErrors> gradient_costs_left_gpu_out(const std::vector<MeasuredKernel>& kernels);

/// One family's errors on one GPU, four ways.
struct GpuFamilyErrors {
  std::string gpu_id;
  KernelErrors fitted_all;     ///< by the fit of every GPU (in sample), at the clocks measured on every GPU
  KernelErrors within_gpu;     ///< by the fit of this GPU alone (in sample), at its measured clock
  /// By the fit of the other GPUs (out of sample), this GPU at its boost clock: what a GPU with only a datasheet gets.
  KernelErrors left_gpu_out;
  /// The same fit, this GPU at its own measured sustained clock (relative to the others' best): what a GPU gets from
  /// its datasheet and one measurement of its long matrix products.
  KernelErrors left_gpu_out_measured_clock;
  /// left_gpu_out with every convolution at the algorithm the model finds fastest, not the one cuDNN ran.
  KernelErrors left_gpu_out_fastest;
  KernelFamilyParameters left_out_parameters;  ///< that fit's constants
};

/// For `family`: per GPU of `kernels` (every family's, which the clocks are measured from), the errors above.
/// `fitted_all` is the fit of every GPU at `clocks`, measure_sustained_clocks(kernels). GPUs in catalog order.
std::vector<GpuFamilyErrors> family_errors_by_gpu(KernelFamily family, const std::vector<MeasuredKernel>& kernels,
                                                  const KernelFamilyParameters& fitted_all,
                                                  const std::vector<SustainedClock>& clocks);

}  // namespace vtsim::calibrate
