#include "tools/report/kernel_report.hpp"

#include <algorithm>
#include <iterator>
#include <cmath>
#include <set>

#include "models/catalog/gpu_catalog.hpp"
#include "models/core/error.hpp"
#include "tools/report/text_table.hpp"

namespace vtsim::tools {
namespace {

std::string signed_percent(double fraction) {
  std::string text(fraction >= 0 ? "+" : "");
  text += format_percent(fraction);
  return text;
}

nlohmann::json errors_json(const calibrate::KernelErrors& errors) {
  return {{"kernels", errors.kernels},
          {"mean_abs_error", errors.mean_abs},
          {"median_abs_error", errors.median_abs},
          {"median_error", errors.bias}};
}

// Errors pooled over GPUs: their count and mean |error| only (the GPUs' medians do not pool).
nlohmann::json pooled_json(const calibrate::KernelErrors& errors) {
  return {{"kernels", errors.kernels}, {"mean_abs_error", errors.mean_abs}};
}

}  // namespace

double kernel_target_mean_abs(KernelFamily family) { return is_matrix_product(family) ? 0.12 : 0.15; }

std::vector<calibrate::MeasuredKernel> fitted_rows(const std::vector<calibrate::MeasuredKernel>& kernels) {
  std::vector<calibrate::MeasuredKernel> rows;
  std::copy_if(kernels.begin(), kernels.end(), std::back_inserter(rows),
               [](const calibrate::MeasuredKernel& kernel) { return !is_tf32(kernel.shape); });
  return rows;
}

namespace {

// fit_every_gpu of rows already fitted_rows.
FittedKernelParameters fit_rows(const std::vector<calibrate::MeasuredKernel>& kernels,
                                const std::vector<std::string>& paths) {
  FittedKernelParameters fitted;
  fitted.clocks = calibrate::measure_sustained_clocks(kernels);
  fitted.parameters = calibrate::fit_kernel_model(kernels, fitted.clocks);
  for (const std::string& path : paths) {
    if (!fitted.data.empty()) fitted.data += ", ";
    fitted.data += path;
  }
  for (KernelFamily family : kernel_families()) {
    std::set<std::string> gpus;
    int count = 0;
    for (const calibrate::MeasuredKernel& kernel : kernels) {
      if (kernel.shape.family != family || !kernel.latency_s) continue;
      gpus.insert(kernel.gpu_id);
      ++count;
    }
    fitted.kernels.push_back(count);
    fitted.gpus.emplace_back();
    for (const GpuSpec& gpu : gpu_catalog()) {
      if (gpus.count(gpu.id)) fitted.gpus.back().push_back(gpu.id);
    }
  }
  return fitted;
}

}  // namespace

FittedKernelParameters fit_every_gpu(const std::vector<calibrate::MeasuredKernel>& kernels,
                                     const std::vector<std::string>& paths) {
  return fit_rows(fitted_rows(kernels), paths);
}

KernelReport kernel_report(const std::vector<calibrate::MeasuredKernel>& measured,
                           const std::vector<std::string>& paths) {
  const std::vector<calibrate::MeasuredKernel> kernels = fitted_rows(measured);
  KernelReport report;
  report.fitted = fit_rows(kernels, paths);
  for (std::size_t i = 0; i < kernel_families().size(); ++i) {
    const KernelFamily family = kernel_families()[i];
    const int count = report.fitted.kernels[i];
    if (count == 0) continue;
    FamilyReport entry;
    entry.family = family;
    entry.kernels = count;
    entry.target_mean_abs = kernel_target_mean_abs(family);
    entry.gpus =
        calibrate::family_errors_by_gpu(family, kernels, report.fitted.parameters.of(family), report.fitted.clocks);
    for (const calibrate::GpuFamilyErrors& gpu : entry.gpus) {
      const double share = static_cast<double>(gpu.fitted_all.kernels) / count;
      entry.fitted_all_mean_abs += share * gpu.fitted_all.mean_abs;
      entry.within_gpu_mean_abs += share * gpu.within_gpu.mean_abs;
      entry.left_gpu_out_mean_abs += share * gpu.left_gpu_out.mean_abs;
      entry.left_gpu_out_measured_clock_mean_abs += share * gpu.left_gpu_out_measured_clock.mean_abs;
      entry.left_gpu_out_fastest_mean_abs += share * gpu.left_gpu_out_fastest.mean_abs;
    }
    report.families.push_back(std::move(entry));
  }
  return report;
}

void print_kernel_report(const KernelReport& report, std::ostream& out) {
  out << "Kernel model fitted to " << report.fitted.data << "\n";
  TextTable constants({"family", "kernels", "host us", "after launch us", "peak eff.", "tile knee", "K overhead",
                       "memory eff.", "L2 x"});
  for (const FamilyReport& family : report.families) {
    const KernelFamilyParameters& p = report.fitted.parameters.of(family.family);
    const bool matrix = is_matrix_product(family.family);
    constants.add_row({std::string(to_string(family.family)), std::to_string(family.kernels),
                       format_number(p.host_s * 1e6, 3), format_number(p.host_after_launch_s * 1e6, 3),
                       matrix ? format_number(p.peak_efficiency, 3) : "-",
                       matrix ? format_number(p.tile_knee, 3) : "-", matrix ? format_number(p.k_overhead, 3) : "-",
                       format_number(p.memory_efficiency, 3), format_number(p.l2_speedup, 3)});
  }
  constants.print(out);
  out << "\nSustained clock per family and GPU: the median of its long products' flop/s over its datasheet peak (of "
         "its long memory-bound passes' bytes/s over its datasheet bandwidth), and that over the best GPU's (the "
         "fraction of the boost clock, or of the best memory's share, the constants above assume)\n";
  TextTable clocks({"family", "GPU", "long kernels", "median of peak", "sustained clock"});
  for (const SustainedClock& clock : report.fitted.clocks) {
    clocks.add_row({std::string(to_string(clock.family)), clock.gpu_id, std::to_string(clock.kernels),
                    format_percent(clock.median_utilization), format_number(clock.fraction, 3)});
  }
  clocks.print(out);
  out << "\nMean |error| per GPU: fitted on every GPU | fitted on this GPU alone | fitted without this GPU, at its "
         "boost clock (median error) | the same at its measured clock\n";
  TextTable per_gpu({"family", "GPU", "kernels", "all GPUs", "this GPU", "left out", "left-out bias",
                     "left out, measured clock"});
  for (const FamilyReport& family : report.families) {
    for (const calibrate::GpuFamilyErrors& gpu : family.gpus) {
      per_gpu.add_row({std::string(to_string(family.family)), gpu.gpu_id, std::to_string(gpu.fitted_all.kernels),
                       format_percent(gpu.fitted_all.mean_abs), format_percent(gpu.within_gpu.mean_abs),
                       format_percent(gpu.left_gpu_out.mean_abs), signed_percent(gpu.left_gpu_out.bias),
                       format_percent(gpu.left_gpu_out_measured_clock.mean_abs)});
    }
  }
  per_gpu.print(out);
  out << "\nLeave-one-GPU-out mean |error| per family, pooled over kernels, against its target (the GPU left out at "
         "its boost clock, as a GPU without measurements is)\n";
  TextTable summary({"family", "kernels", "all GPUs", "each GPU alone", "left out", "target", "",
                     "left out, measured clock", "left out, fastest algorithm"});
  for (const FamilyReport& family : report.families) {
    const bool algorithms = family.family == KernelFamily::convolution;
    summary.add_row({std::string(to_string(family.family)), std::to_string(family.kernels),
                     format_percent(family.fitted_all_mean_abs), format_percent(family.within_gpu_mean_abs),
                     format_percent(family.left_gpu_out_mean_abs), "<= " + format_percent(family.target_mean_abs),
                     family.met() ? "met" : "NOT met", format_percent(family.left_gpu_out_measured_clock_mean_abs),
                     algorithms ? format_percent(family.left_gpu_out_fastest_mean_abs) : "-"});
  }
  summary.print(out);
  out << "(Convolutions are timed with the algorithm their row says cuDNN ran, the data's Kernels column, as they are "
         "fitted; \"fastest algorithm\": with the one the model finds fastest, as a shape without that column is. "
         "For the memory-bound passes the \"measured clock\" is the card's measured memory share, and a GPU left out "
         "runs at the best card's.)\n";
}

nlohmann::json kernel_report_json(const KernelReport& report) {
  nlohmann::json families = nlohmann::json::array();
  for (const FamilyReport& family : report.families) {
    nlohmann::json gpus = nlohmann::json::array();
    for (const calibrate::GpuFamilyErrors& gpu : family.gpus) {
      gpus.push_back({{"gpu", gpu.gpu_id},
                      {"fitted_all", errors_json(gpu.fitted_all)},
                      {"within_gpu", errors_json(gpu.within_gpu)},
                      {"left_gpu_out", errors_json(gpu.left_gpu_out)},
                      {"left_gpu_out_measured_clock", errors_json(gpu.left_gpu_out_measured_clock)},
                      {"left_gpu_out_fastest_algorithm", errors_json(gpu.left_gpu_out_fastest)},
                      {"left_gpu_out_parameters", to_json(family.family, gpu.left_out_parameters)}});
    }
    families.push_back({{"family", std::string(to_string(family.family))},
                        {"kernels", family.kernels},
                        {"parameters", to_json(family.family, report.fitted.parameters.of(family.family))},
                        {"fitted_all_mean_abs_error", family.fitted_all_mean_abs},
                        {"within_gpu_mean_abs_error", family.within_gpu_mean_abs},
                        {"left_gpu_out_mean_abs_error", family.left_gpu_out_mean_abs},
                        {"left_gpu_out_measured_clock_mean_abs_error", family.left_gpu_out_measured_clock_mean_abs},
                        {"left_gpu_out_fastest_algorithm_mean_abs_error", family.left_gpu_out_fastest_mean_abs},
                        {"target_mean_abs_error", family.target_mean_abs},
                        {"met", family.met()},
                        {"gpus", gpus}});
  }
  return {{"data", report.fitted.data},
          {"sustained_clocks", to_json(report.fitted)["sustained_clocks"]},
          {"families", families}};
}

// The two groups of the 16-bit products in a held-out report, and the TF32 ones (4-byte operands), whose constants
// were fitted to 16-bit kernels: a check of that derivation.
constexpr const char* kAligned = ", aligned";
constexpr const char* kUnaligned = ", unaligned";
constexpr const char* kTf32 = ", tf32";

bool operands_aligned(const KernelShape& shape) {
  const double values = 16.0 / shape.element_bytes;  // values per 16 bytes
  return std::fmod(shape.k, values) == 0 && std::fmod(shape.n, values) == 0;
}

HeldOutReport held_out_report(const std::vector<calibrate::MeasuredKernel>& kernels,
                              const std::vector<std::string>& paths, double device_bound_s) {
  const FittedKernelParameters& fitted = fitted_kernel_parameters();
  HeldOutReport report;
  report.paths = paths;
  report.device_bound_s = device_bound_s;
  std::set<std::string> gpus;
  for (const calibrate::MeasuredKernel& kernel : kernels) {
    const auto family = static_cast<std::size_t>(kernel.shape.family);
    const bool fitted_to = family < fitted.gpus.size() && std::find(fitted.gpus[family].begin(),
                                                                    fitted.gpus[family].end(),
                                                                    kernel.gpu_id) != fitted.gpus[family].end();
    if (fitted_to) {
      throw InputError(kernel.where() + ": " + kernel.gpu_id + " is among the GPUs the committed " +
                       std::string(to_string(kernel.shape.family)) + " constants were fitted to: not held out");
    }
    gpus.insert(kernel.gpu_id);
  }
  report.gpus.assign(gpus.begin(), gpus.end());
  // One group per family, the tensor-core products in three (16-bit aligned and not, TF32); each group's rows, then
  // those the device timed.
  const auto add_group = [&](KernelFamily family, const std::string& name, auto&& belongs) {
    std::vector<calibrate::MeasuredKernel> all;
    std::vector<calibrate::MeasuredKernel> device_bound;
    for (const calibrate::MeasuredKernel& kernel : kernels) {
      if (kernel.shape.family != family || !kernel.latency_s || !belongs(kernel.shape)) continue;
      all.push_back(kernel);
      if (*kernel.latency_s >= device_bound_s) device_bound.push_back(kernel);
    }
    if (all.empty()) return;
    report.groups.push_back({.name = name,
                             .all = calibrate::kernel_errors(family, all, fitted.parameters, fitted.clocks),
                             .device_bound = calibrate::kernel_errors(family, device_bound, fitted.parameters,
                                                                      fitted.clocks)});
  };
  for (KernelFamily family : kernel_families()) {
    const std::string name(to_string(family));
    if (family != KernelFamily::tensor_gemm) {
      add_group(family, name, [](const KernelShape&) { return true; });
      continue;
    }
    add_group(family, name + kAligned,
              [](const KernelShape& shape) { return !is_tf32(shape) && operands_aligned(shape); });
    add_group(family, name + kUnaligned,
              [](const KernelShape& shape) { return !is_tf32(shape) && !operands_aligned(shape); });
    add_group(family, name + kTf32, [](const KernelShape& shape) { return is_tf32(shape); });
  }
  return report;
}

std::vector<std::string> held_out_group_names() {
  std::vector<std::string> names;
  for (KernelFamily family : kernel_families()) {
    const std::string name(to_string(family));
    if (family != KernelFamily::tensor_gemm) {
      names.push_back(name);
    } else {
      names.push_back(name + kAligned);
      names.push_back(name + kUnaligned);
      names.push_back(name + kTf32);
    }
  }
  return names;
}

void print_held_out_report(const HeldOutReport& report, std::ostream& out) {
  std::string gpus;
  for (const std::string& gpu : report.gpus) gpus += (gpus.empty() ? "" : ", ") + gpu;
  out << "Kernel model on GPUs it was not fitted to (" << gpus << "), the committed constants at the boost clock and "
      << "the best card's memory share: mean |error| (median error) over every row, and over the rows measured at >= "
      << format_number(report.device_bound_s * 1e6) << " us, which the device, not the measuring host, times\n";
  TextTable table({"group", "rows", "mean |error|", "median error", "rows >= bound", "their mean |error|",
                   "their median error"});
  for (const HeldOutGroup& group : report.groups) {
    const bool bound = group.device_bound.kernels > 0;
    table.add_row({group.name, std::to_string(group.all.kernels), format_percent(group.all.mean_abs),
                   signed_percent(group.all.bias), std::to_string(group.device_bound.kernels),
                   bound ? format_percent(group.device_bound.mean_abs) : "-",
                   bound ? signed_percent(group.device_bound.bias) : "-"});
  }
  table.print(out);
}

nlohmann::json held_out_report_json(const HeldOutReport& report) {
  nlohmann::json groups = nlohmann::json::array();
  for (const HeldOutGroup& group : report.groups) {
    groups.push_back({{"group", group.name},
                      {"all", errors_json(group.all)},
                      {"device_bound", errors_json(group.device_bound)}});
  }
  return {{"data", report.paths},
          {"gpus", report.gpus},
          {"device_bound_us", report.device_bound_s * 1e6},
          {"groups", groups}};
}

GradientReport gradient_report(const std::vector<calibrate::MeasuredKernel>& kernels,
                               const std::vector<std::string>& paths) {
  GradientReport report;
  report.paths = paths;
  report.measured = calibrate::measure_gradient_costs(kernels);
  report.left_gpu_out = calibrate::gradient_costs_left_gpu_out(kernels);
  report.reproduces = true;
  for (const calibrate::GradientCost& cost : report.measured) {
    report.reproduces = report.reproduces &&
                        std::abs(cuda_core_gradient_cost(cost.shape, cost.gradient) - cost.cost) <= 1e-9 * cost.cost;
    // Pooled over the GPUs left out: each GPU's errors weighted by its rows (means), its medians not pooled.
    calibrate::KernelErrors at_cost;
    calibrate::KernelErrors at_one;
    for (const calibrate::GradientCostErrors& e : report.left_gpu_out) {
      if (e.shape != cost.shape || e.gradient != cost.gradient) continue;
      at_cost.kernels += e.at_cost.kernels;
      at_cost.mean_abs += e.at_cost.mean_abs * e.at_cost.kernels;
      at_one.kernels += e.at_one.kernels;
      at_one.mean_abs += e.at_one.mean_abs * e.at_one.kernels;
    }
    if (at_cost.kernels > 0) at_cost.mean_abs /= at_cost.kernels;
    if (at_one.kernels > 0) at_one.mean_abs /= at_one.kernels;
    report.pooled_at_cost.push_back(at_cost);
    report.pooled_at_one.push_back(at_one);
  }
  // A shape measured on too few rows keeps 1 in the model.
  for (ConvolutionShape shape : {ConvolutionShape::three_by_three, ConvolutionShape::pointwise,
                                 ConvolutionShape::strided, ConvolutionShape::other}) {
    for (ConvolutionGradient gradient : {ConvolutionGradient::input, ConvolutionGradient::weight}) {
      const bool measured = std::any_of(report.measured.begin(), report.measured.end(), [&](const auto& cost) {
        return cost.shape == shape && cost.gradient == gradient;
      });
      if (!measured) report.reproduces = report.reproduces && cuda_core_gradient_cost(shape, gradient) == 1.0;
    }
  }
  return report;
}

void print_gradient_report(const GradientReport& report, std::ostream& out) {
  std::string paths;
  for (const std::string& path : report.paths) paths += (paths.empty() ? "" : ", ") + path;
  out << "Convolution gradients on the CUDA cores: each gradient's time over the forward pass's on the same shape, the "
      << "median over " << paths << ", and the model's constant (models/compute/kernel_model.cpp, "
      << "cuda_core_gradient_cost); left out: each GPU's gradients from its measured forward passes at the cost the "
      << "other GPUs measure, and taking each as long as the forward pass\n";
  TextTable table({"shape", "gradient", "rows", "measured cost", "model's", "left out, at cost", "left out, at 1"});
  for (std::size_t i = 0; i < report.measured.size(); ++i) {
    const calibrate::GradientCost& cost = report.measured[i];
    table.add_row({std::string(to_string(cost.shape)), std::string(to_string(cost.gradient)), std::to_string(cost.rows),
                   format_number(cost.cost), format_number(cuda_core_gradient_cost(cost.shape, cost.gradient)),
                   format_percent(report.pooled_at_cost[i].mean_abs),
                   format_percent(report.pooled_at_one[i].mean_abs)});
  }
  table.print(out);
  out << "(Shapes measured on fewer than " << calibrate::kMinGradientRows << " rows keep 1. 16-bit convolutions "
      << "on the tensor cores take their forward constants for their gradients: docs/compute-model.md, \"Convolution "
      << "gradients on the CUDA cores\".)\n";
  out << "the model's constants " << (report.reproduces ? "reproduce" : "DIFFER from") << " the measured costs\n";
}

nlohmann::json gradient_report_json(const GradientReport& report) {
  nlohmann::json costs = nlohmann::json::array();
  for (std::size_t i = 0; i < report.measured.size(); ++i) {
    const calibrate::GradientCost& cost = report.measured[i];
    costs.push_back({{"shape", std::string(to_string(cost.shape))},
                     {"gradient", std::string(to_string(cost.gradient))},
                     {"rows", cost.rows},
                     {"measured_cost", cost.cost},
                     {"model_cost", cuda_core_gradient_cost(cost.shape, cost.gradient)},
                     {"left_gpu_out_at_cost", pooled_json(report.pooled_at_cost[i])},
                     {"left_gpu_out_at_one", pooled_json(report.pooled_at_one[i])}});
  }
  nlohmann::json gpus = nlohmann::json::array();
  for (const calibrate::GradientCostErrors& e : report.left_gpu_out) {
    gpus.push_back({{"gpu", e.gpu_id},
                    {"shape", std::string(to_string(e.shape))},
                    {"gradient", std::string(to_string(e.gradient))},
                    {"cost_of_the_others", e.cost},
                    {"at_cost", errors_json(e.at_cost)},
                    {"at_one", errors_json(e.at_one)}});
  }
  return {{"data", report.paths}, {"costs", costs}, {"left_gpu_out", gpus}, {"reproduces", report.reproduces}};
}

}  // namespace vtsim::tools
