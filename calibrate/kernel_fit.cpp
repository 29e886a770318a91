#include "calibrate/kernel_fit.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <deque>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "calibrate/parallel_for.hpp"
#include "models/catalog/gpu_catalog.hpp"
#include "models/core/least_squares.hpp"

namespace vtsim::calibrate {
namespace {

// Soft-L1 loss scale on ln(predicted / measured): residuals well below 0.1 count as their squares, those above it
// about in proportion to their size, so the few kernels the library runs far off its best (ln 10 = 2.3 for one 10x
// slow) weigh tens of times less than their squares would.
constexpr double kRobustScale = 0.1;
constexpr int kReweightingRounds = 4;

// Upper bound of the L2 speedup: the A100's L2 delivers 5,120 bytes per clock (A100 whitepaper, "L2 cache"), 7.2 TB/s
// at 1,410 MHz against 1.555 TB/s of HBM2: 4.6x; V100's 2,048 B/clk at 1,380 MHz against 900 GB/s: 3.1x.
constexpr double kMaxL2Speedup = 5.0;
constexpr double kMiddleL2Speedup = 3.0;
// Where the fit starts the host's part after the launch when its start has none: half the host's time.
constexpr double kMiddleAfterLaunch = 0.5;

// A long matrix product, which measures what clock a GPU sustains (measure_sustained_clocks): at least four full
// waves of 128 x 128 tiles (wave quantisation costs it at most a fifth), a K loop of at least 512 (prologue and
// epilogue a few percent), at least 1 ms (the operator's 25-60 us fixed cost under 5%), and ten of them per GPU.
constexpr double kClockTile = 128.0;
constexpr double kClockMinWaves = 4.0;
constexpr double kClockMinK = 512.0;
constexpr double kClockMinLatency_s = 1e-3;
constexpr std::size_t kClockMinKernels = 10;
// A long memory-bound pass, which measures what share of its datasheet bandwidth a GPU's memory sustains: at least
// 128 MiB per tensor, far beyond every L2 of the data. No length is asked of it: on the A100 such an add takes
// 0.3-0.6 ms, of which the operator's fixed cost not hidden by the kernel (about 15 us) is a few percent.
constexpr double kPassMinTensorBytes = 128.0 * 1024 * 1024;

// The upper of the middle two for an even count (probe_support.hpp's median averages them): what the committed
// constants were fitted with.
double upper_median(std::vector<double> values) {
  assert(!values.empty());
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

KernelErrors summarize_errors(const std::vector<double>& errors) {
  KernelErrors summary;
  summary.kernels = static_cast<int>(errors.size());
  if (errors.empty()) return summary;
  std::vector<double> absolute;
  for (double error : errors) {
    summary.mean_abs += std::abs(error);
    absolute.push_back(std::abs(error));
  }
  summary.mean_abs /= static_cast<double>(errors.size());
  summary.median_abs = upper_median(absolute);
  summary.bias = upper_median(errors);
  return summary;
}

// A measured convolution's time for `gradient`, where its row has one.
std::optional<double> gradient_time(const MeasuredKernel& kernel, ConvolutionGradient gradient) {
  return gradient == ConvolutionGradient::input ? kernel.input_gradient_s : kernel.weight_gradient_s;
}

double logistic(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double logit(double p) { return std::log(p / (1.0 - p)); }

// The unknowns of one family's fit, in unconstrained coordinates.
class FamilyProblem {
 public:
  FamilyProblem(KernelFamily family, const std::vector<MeasuredKernel>& kernels,
                const std::vector<SustainedClock>& clocks)
      : family_(family) {
    for (const MeasuredKernel& kernel : kernels) {
      // A convolution is fitted with the algorithm it ran, which pins each algorithm's efficiency to the kernels
      // that ran it; one the model has no form for (FFT) is left out of the fit (and kept in every error).
      if (kernel.shape.family != family || !kernel.latency_s || kernel.ran_unmodelled) continue;
      const GpuSpec* gpu = find_gpu(kernel.gpu_id);
      assert(gpu != nullptr);
      prepared_.push_back(prepare_kernel(kernel.shape, kernel_device(*gpu, clocks)));
      measured_s_.push_back(*kernel.latency_s);
      ran_.push_back(timed_algorithm(kernel, AlgorithmChoice::as_ran));
    }
    weights_ = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(prepared_.size()));
  }

  bool empty() const { return prepared_.empty(); }
  bool matrix() const { return is_matrix_product(family_); }
  bool convolution() const { return family_ == KernelFamily::convolution; }

  // Every peak efficiency, each counted in its own algorithm's flop, is at most 1; the host's part after the launch
  // is a fraction of its whole.
  Eigen::VectorXd initial(const KernelFamilyParameters& start) const {
    Eigen::VectorXd x(convolution() ? 9 : matrix() ? 7 : 4);
    const auto fraction = [](double value) { return logit(std::clamp(value, 1e-3, 1.0 - 1e-3)); };
    x[0] = std::log(start.host_s);
    x[1] = logit(std::clamp(start.memory_efficiency, 1e-3, 1.0 - 1e-3));
    // The middle of the range when the start is at a bound, where the logistic's slope would keep it.
    const double l2 = start.l2_speedup > 1.0 && start.l2_speedup < kMaxL2Speedup ? start.l2_speedup : kMiddleL2Speedup;
    x[2] = logit((l2 - 1.0) / (kMaxL2Speedup - 1.0));
    const double after_launch = start.host_after_launch_s / start.host_s;
    x[3] = logit(after_launch > 0.0 && after_launch < 1.0 ? after_launch : kMiddleAfterLaunch);
    if (matrix()) {
      x[4] = fraction(start.peak_efficiency);
      x[5] = std::log(start.tile_knee);
      x[6] = std::log(std::max(start.k_overhead, 1e-3));
    }
    if (convolution()) {
      x[7] = fraction(start.winograd_2x2_efficiency);
      x[8] = fraction(start.winograd_4x4_efficiency);
    }
    return x;
  }

  KernelFamilyParameters parameters(const Eigen::VectorXd& x, const KernelFamilyParameters& start) const {
    KernelFamilyParameters p = start;
    p.host_s = std::exp(x[0]);
    p.memory_efficiency = logistic(x[1]);
    p.l2_speedup = 1.0 + (kMaxL2Speedup - 1.0) * logistic(x[2]);
    p.host_after_launch_s = p.host_s * logistic(x[3]);
    if (matrix()) {
      p.peak_efficiency = logistic(x[4]);
      p.tile_knee = std::exp(x[5]);
      p.k_overhead = std::exp(x[6]);
    }
    if (convolution()) {
      p.winograd_2x2_efficiency = logistic(x[7]);
      p.winograd_4x4_efficiency = logistic(x[8]);
    }
    return p;
  }

  /// ln(predicted / measured) per kernel.
  Eigen::VectorXd log_errors(const KernelFamilyParameters& family) {
    const std::vector<double>& device_s = device_times(family);
    Eigen::VectorXd r(static_cast<Eigen::Index>(prepared_.size()));
    for (std::size_t i = 0; i < prepared_.size(); ++i) {
      r[static_cast<Eigen::Index>(i)] = std::log(kernel_time_s(device_s[i], family) / measured_s_[i]);
    }
    return r;
  }

  KernelFamilyParameters fit(const KernelFamilyParameters& start) {
    Eigen::VectorXd x = initial(start);
    for (int round = 0; round < kReweightingRounds; ++round) {
      x = levenberg_marquardt(
          [&](const Eigen::VectorXd& at) {
            return Eigen::VectorXd(weights_.cwiseProduct(log_errors(parameters(at, start))));
          },
          x);
      // Soft-L1: weight each residual r by (1 + (r/s)^2)^(-1/4), so that its square is about s |r| when large.
      const Eigen::VectorXd r = log_errors(parameters(x, start));
      for (Eigen::Index i = 0; i < r.size(); ++i) {
        weights_[i] = std::pow(1.0 + (r[i] / kRobustScale) * (r[i] / kRobustScale), -0.25);
      }
    }
    return parameters(x, start);
  }

 private:
  // Each kernel's device time under `family`, which the host's two parameters do not enter: the fit's Jacobian
  // shifts host_s right after evaluating its base point, and host_after_launch_s after two device parameters, so the
  // device times of the last kDeviceTimesKept parameter sets (host's parts set aside) are kept for them to reuse
  // (the same numbers; about a fifth fewer predictions).
  const std::vector<double>& device_times(const KernelFamilyParameters& family) {
    KernelModelParameters model;
    KernelFamilyParameters& device_part = model.of(family_);
    device_part = family;
    device_part.host_s = 0;
    device_part.host_after_launch_s = 0;
    const auto kept = std::find_if(device_times_.begin(), device_times_.end(),
                                   [&](const DeviceTimes& times) { return times.parameters == device_part; });
    if (kept != device_times_.end()) return kept->times_s;
    if (device_times_.size() == kDeviceTimesKept) device_times_.pop_back();
    DeviceTimes& added = device_times_.emplace_front();
    added.parameters = device_part;
    added.times_s.reserve(prepared_.size());
    for (std::size_t i = 0; i < prepared_.size(); ++i) {
      added.times_s.push_back(predict_kernel(prepared_[i], model, ran_[i]).device_s);
    }
    return added.times_s;
  }

  static constexpr std::size_t kDeviceTimesKept = 3;
  struct DeviceTimes {
    KernelFamilyParameters parameters;
    std::vector<double> times_s;
  };

  KernelFamily family_;
  std::vector<PreparedKernel> prepared_;
  std::vector<double> measured_s_;
  std::vector<std::optional<ConvolutionAlgorithm>> ran_;
  Eigen::VectorXd weights_;
  std::deque<DeviceTimes> device_times_;  ///< newest first
};

// The kernels on `gpu_id` (keep_it) or on every other GPU.
std::vector<MeasuredKernel> on_gpus(const std::vector<MeasuredKernel>& kernels, const std::string& gpu_id,
                                    bool keep_it) {
  std::vector<MeasuredKernel> chosen;
  for (const MeasuredKernel& kernel : kernels) {
    if ((kernel.gpu_id == gpu_id) == keep_it) chosen.push_back(kernel);
  }
  return chosen;
}

// `clocks` taken over the best median of the GPUs other than `gpu_id` in each family, with `gpu_id`'s own (then above
// 1 when it holds more of its peak than every other GPU; 1 when no other GPU has the family) or without them.
std::vector<SustainedClock> referenced_to_others(const std::vector<SustainedClock>& clocks, std::string_view gpu_id,
                                                 bool keep_own) {
  std::vector<SustainedClock> result;
  for (SustainedClock clock : clocks) {
    if (clock.gpu_id == gpu_id && !keep_own) continue;
    double best = 0;
    for (const SustainedClock& other : clocks) {
      if (other.family == clock.family && other.gpu_id != gpu_id) best = std::max(best, other.median_utilization);
    }
    clock.fraction = best > 0 ? clock.median_utilization / best : 1.0;
    result.push_back(clock);
  }
  return result;
}

}  // namespace

bool measures_sustained_clock(const MeasuredKernel& kernel) {
  const KernelShape& shape = kernel.shape;
  if (!kernel.latency_s) return false;
  if (!is_matrix_product(shape.family)) {
    return shape.elements * shape.element_bytes >= kPassMinTensorBytes;
  }
  const GpuSpec* gpu = find_gpu(kernel.gpu_id);
  assert(gpu != nullptr);
  const double tiles = shape.batch * std::ceil(shape.m / kClockTile) * std::ceil(shape.n / kClockTile);
  return tiles >= kClockMinWaves * gpu->sm_count && shape.k >= kClockMinK && *kernel.latency_s >= kClockMinLatency_s;
}

std::vector<SustainedClock> measure_sustained_clocks(const std::vector<MeasuredKernel>& kernels) {
  std::map<std::pair<KernelFamily, std::string>, std::vector<double>> utilization;
  for (const MeasuredKernel& kernel : kernels) {
    if (!measures_sustained_clock(kernel)) continue;
    const KernelDevice device = kernel_device(*find_gpu(kernel.gpu_id));
    const double share = is_matrix_product(kernel.shape.family)
                             ? kernel.shape.flop() / datasheet_peak_flops(kernel.shape, device)
                             : kernel.shape.bytes() / device.memory_bandwidth_Bps;
    utilization[{kernel.shape.family, kernel.gpu_id}].push_back(share / *kernel.latency_s);
  }
  std::vector<SustainedClock> clocks;
  for (KernelFamily family : kernel_families()) {
    const std::size_t first = clocks.size();
    double best = 0;
    for (const GpuSpec& gpu : gpu_catalog()) {
      const auto found = utilization.find({family, gpu.id});
      if (found == utilization.end() || found->second.size() < kClockMinKernels) continue;
      SustainedClock clock;
      clock.gpu_id = gpu.id;
      clock.family = family;
      clock.median_utilization = upper_median(found->second);
      clock.kernels = static_cast<int>(found->second.size());
      best = std::max(best, clock.median_utilization);
      clocks.push_back(clock);
    }
    for (std::size_t i = first; i < clocks.size(); ++i) clocks[i].fraction = clocks[i].median_utilization / best;
  }
  return clocks;
}

std::vector<SustainedClock> clocks_without(const std::vector<SustainedClock>& clocks, std::string_view gpu_id) {
  return referenced_to_others(clocks, gpu_id, false);
}

KernelFamilyParameters fit_kernel_family(KernelFamily family, const std::vector<MeasuredKernel>& kernels,
                                         const std::vector<SustainedClock>& clocks,
                                         const KernelFamilyParameters& start) {
  FamilyProblem problem(family, kernels, clocks);
  assert(!problem.empty());
  return problem.fit(start);
}

KernelModelParameters fit_kernel_model(const std::vector<MeasuredKernel>& kernels,
                                       const std::vector<SustainedClock>& clocks,
                                       const KernelModelParameters& start) {
  KernelModelParameters fitted = start;
  const std::vector<KernelFamily>& families = kernel_families();
  parallel_for(families.size(), [&](std::size_t i) {
    FamilyProblem problem(families[i], kernels, clocks);
    if (!problem.empty()) fitted.of(families[i]) = problem.fit(start.of(families[i]));
  });
  return fitted;
}

std::optional<ConvolutionAlgorithm> timed_algorithm(const MeasuredKernel& kernel, AlgorithmChoice choice) {
  return choice == AlgorithmChoice::as_ran ? kernel.ran : std::nullopt;
}

KernelErrors kernel_errors(KernelFamily family, const std::vector<MeasuredKernel>& kernels,
                           const KernelModelParameters& parameters, const std::vector<SustainedClock>& clocks,
                           AlgorithmChoice choice) {
  std::vector<double> errors;
  for (const MeasuredKernel& kernel : kernels) {
    if (kernel.shape.family != family || !kernel.latency_s) continue;
    const GpuSpec* gpu = find_gpu(kernel.gpu_id);
    assert(gpu != nullptr);
    const KernelDevice device = kernel_device(*gpu, clocks);
    const KernelPrediction prediction =
        predict_kernel(prepare_kernel(kernel.shape, device), parameters, timed_algorithm(kernel, choice));
    errors.push_back(prediction.time_s / *kernel.latency_s - 1.0);
  }
  return summarize_errors(errors);
}

std::vector<GradientCost> measure_gradient_costs(const std::vector<MeasuredKernel>& kernels) {
  std::map<std::pair<ConvolutionShape, ConvolutionGradient>, std::vector<double>> ratios;
  for (const MeasuredKernel& kernel : kernels) {
    if (kernel.shape.family != KernelFamily::convolution || !kernel.convolution_shape || !kernel.latency_s) continue;
    for (ConvolutionGradient gradient : {ConvolutionGradient::input, ConvolutionGradient::weight}) {
      if (const std::optional<double> time = gradient_time(kernel, gradient)) {
        ratios[{*kernel.convolution_shape, gradient}].push_back(*time / *kernel.latency_s);
      }
    }
  }
  std::vector<GradientCost> costs;
  for (const auto& [key, values] : ratios) {
    if (static_cast<int>(values.size()) < kMinGradientRows) continue;
    costs.push_back({.shape = key.first,
                     .gradient = key.second,
                     .rows = static_cast<int>(values.size()),
                     .cost = upper_median(values)});
  }
  return costs;
}

std::vector<GradientCostErrors> gradient_costs_left_gpu_out(const std::vector<MeasuredKernel>& kernels) {
  std::set<std::string> gpus;
  for (const MeasuredKernel& kernel : kernels) {
    if (kernel.shape.family == KernelFamily::convolution && (kernel.input_gradient_s || kernel.weight_gradient_s)) {
      gpus.insert(kernel.gpu_id);
    }
  }
  std::vector<GradientCostErrors> result;
  for (const std::string& gpu : gpus) {
    std::vector<MeasuredKernel> others;
    std::copy_if(kernels.begin(), kernels.end(), std::back_inserter(others),
                 [&](const MeasuredKernel& kernel) { return kernel.gpu_id != gpu; });
    for (const GradientCost& cost : measure_gradient_costs(others)) {
      std::vector<double> at_cost;
      std::vector<double> at_one;
      for (const MeasuredKernel& kernel : kernels) {
        if (kernel.gpu_id != gpu || kernel.shape.family != KernelFamily::convolution || !kernel.latency_s) continue;
        const std::optional<double> measured = gradient_time(kernel, cost.gradient);
        if (kernel.convolution_shape != cost.shape || !measured) continue;
        at_cost.push_back(cost.cost * *kernel.latency_s / *measured - 1.0);
        at_one.push_back(*kernel.latency_s / *measured - 1.0);
      }
      if (at_cost.empty()) continue;
      result.push_back({.gpu_id = gpu,
                        .shape = cost.shape,
                        .gradient = cost.gradient,
                        .cost = cost.cost,
                        .at_cost = summarize_errors(at_cost),
                        .at_one = summarize_errors(at_one)});
    }
  }
  return result;
}

std::vector<GpuFamilyErrors> family_errors_by_gpu(KernelFamily family, const std::vector<MeasuredKernel>& kernels,
                                                  const KernelFamilyParameters& fitted_all,
                                                  const std::vector<SustainedClock>& clocks) {
  // The family's measured kernels, chosen once: each GPU's split below copies only these.
  std::vector<MeasuredKernel> measured;
  std::set<std::string> gpus;
  for (const MeasuredKernel& kernel : kernels) {
    if (kernel.shape.family != family || !kernel.latency_s) continue;
    measured.push_back(kernel);
    gpus.insert(kernel.gpu_id);
  }
  // In catalog order; each GPU's fits run on their own thread.
  std::vector<GpuFamilyErrors> result;
  for (const GpuSpec& gpu : gpu_catalog()) {
    if (!gpus.count(gpu.id)) continue;
    result.emplace_back();
    result.back().gpu_id = gpu.id;
  }
  parallel_for(result.size(), [&](std::size_t i) {
    GpuFamilyErrors& errors = result[i];
    const std::vector<MeasuredKernel> mine = on_gpus(measured, errors.gpu_id, true);
    const std::vector<MeasuredKernel> others = on_gpus(measured, errors.gpu_id, false);
    KernelModelParameters model;
    model.of(family) = fitted_all;
    errors.fitted_all = kernel_errors(family, mine, model, clocks);
    model.of(family) = fit_kernel_family(family, mine, clocks);
    errors.within_gpu = kernel_errors(family, mine, model, clocks);
    if (gpus.size() > 1) {
      // The others' clocks are taken without this GPU: the best of them is the reference.
      const std::vector<SustainedClock> others_clocks = clocks_without(clocks, errors.gpu_id);
      errors.left_out_parameters = fit_kernel_family(family, others, others_clocks);
      model.of(family) = errors.left_out_parameters;
      errors.left_gpu_out = kernel_errors(family, mine, model, others_clocks);
      errors.left_gpu_out_fastest = kernel_errors(family, mine, model, others_clocks, AlgorithmChoice::fastest);
      errors.left_gpu_out_measured_clock =
          kernel_errors(family, mine, model, referenced_to_others(clocks, errors.gpu_id, true));
    }
  });
  return result;
}

}  // namespace vtsim::calibrate
