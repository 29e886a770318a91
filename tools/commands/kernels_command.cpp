// vtsim kernels FILE... [--gpu ID] [--precision fp32] [--format table|json|csv]: each operator's predicted time,
// what binds it, the tiling and waves the model picks, and, where the row has a measured latency on the GPU
// predicted, the error and per-family mean and worst.
// vtsim kernels --fit FOLDER... [--write FILE] [--check]: fits the kernel model's constants to measured kernels and
// reports them with their errors, in sample and leave-one-GPU-out (tools/report/kernel_report.hpp).

#include "tools/commands/kernels_command.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "calibrate/kernel_fit.hpp"
#include "calibrate/kernel_measurements.hpp"
#include "models/catalog/gpu_catalog.hpp"
#include "models/compute/kernel_parameters.hpp"
#include "models/core/atomic_file.hpp"
#include "models/core/csv.hpp"
#include "models/core/error.hpp"
#include "tools/commands/command.hpp"
#include "tools/report/kernel_report.hpp"
#include "tools/report/text_table.hpp"

namespace vtsim::tools {
namespace {

// Relative difference above which a refit does not reproduce the committed constants (the fit is deterministic;
// this leaves room for the last digits of another compiler's floating point).
constexpr double kReproduceTolerance = 1e-4;

// The kernels of the request's inputs, on the path its precision takes: fp16 and bf16 run the matrix products on
// the tensor cores (tensor_gemm; tensor_convolution, an implicit GEMM) and move 2-byte values; the memory-bound
// passes keep their constants (bandwidth does not depend on the type), their bytes halve. tf32 runs the products on
// the same tensor-core families with 4-byte operands at the GPU's TF32 peak, which no TF32 kernel is fitted to
// (tf32_note); its passes are fp32 ones. A row measured on another path loses its measured time.
std::vector<calibrate::MeasuredKernel> read_inputs(const KernelsRequest& request) {
  std::vector<calibrate::MeasuredKernel> kernels = calibrate::read_kernel_paths(request.inputs, request.gpu_id);
  if (request.precision == "fp32") return kernels;
  if (request.precision != "fp16" && request.precision != "bf16" && request.precision != "tf32") {
    throw InputError("--precision " + request.precision + ": expected fp32, tf32, fp16 or bf16");
  }
  const double element_bytes = request.precision == "tf32" ? 4 : 2;
  for (calibrate::MeasuredKernel& kernel : kernels) {
    // On the path already: its values that wide, and a product on the tensor cores.
    const bool product = is_matrix_product(kernel.shape.family);
    if (kernel.shape.element_bytes == element_bytes && (!product || runs_on_tensor_cores(kernel.shape.family))) {
      continue;
    }
    kernel.shape = on_tensor_cores(kernel.shape, element_bytes);
    kernel.latency_s.reset();  // measured on another path
    kernel.ran.reset();
    kernel.ran_unmodelled = false;
  }
  return kernels;
}

// What a TF32 prediction rests on, for the output: the tensor-core families' constants, fitted to 16-bit kernels.
std::string tf32_note(const FittedKernelParameters& fitted) {
  return "tf32: products on the tensor cores with 4-byte operands at each GPU's TF32 datasheet peak, with the "
         "tensor_gemm and tensor_convolution constants fitted to 16-bit kernels on " +
         fitted.gpu_list(KernelFamily::tensor_gemm) +
         " (derived: no TF32 kernel is fitted; docs/compute-model.md, \"TF32 on the tensor cores\")";
}

std::string shape_text(const KernelShape& shape) {
  const auto n = [](double value) { return format_number(value, 12); };
  if (!is_matrix_product(shape.family)) return n(shape.elements) + " x " + n(shape.tensors);
  return n(shape.batch) + " x " + n(shape.m) + " x " + n(shape.n) + " x " + n(shape.k);
}

std::string tiling_text(const KernelShape& shape, const KernelPrediction& prediction) {
  if (prediction.tile_m == 0) return "-";
  std::string text;
  if (is_convolution(shape.family)) text.append(to_string(prediction.algorithm)).append(": ");
  text.append(std::to_string(prediction.tile_m)).append("x").append(std::to_string(prediction.tile_n));
  if (prediction.split_k > 1) text.append(" split ").append(std::to_string(prediction.split_k));
  return text;
}

// Mean and worst |error| of one family's rows.
struct FamilyErrors {
  int rows = 0;
  double sum_abs = 0;
  double worst = 0;
  int worst_line = 0;
};

int predict(const KernelsRequest& request, std::ostream& out) {
  const std::vector<calibrate::MeasuredKernel> kernels = read_inputs(request);
  const FittedKernelParameters& fitted = fitted_kernel_parameters();
  std::map<std::string, KernelDevice> devices;
  const auto device_of = [&](const std::string& id) -> const KernelDevice& {
    auto found = devices.find(id);
    if (found == devices.end()) {
      const GpuSpec* gpu = find_gpu(id);
      if (gpu == nullptr) throw InputError("--gpu " + id + ": unknown GPU (see `vtsim catalog gpus`)");
      found = devices.emplace(id, kernel_device(*gpu, fitted.clocks)).first;
    }
    return found->second;
  };
  nlohmann::json rows = nlohmann::json::array();
  TextTable table({"line", "op", "family", "shape", "GPU", "predicted us", "bound", "tiling", "waves", "util.",
                   "measured us", "error"});
  std::string csv = csv_line({"line", "op", "family", "shape", "gpu", "predicted_us", "bound", "tiling", "waves",
                              "utilization", "measured_us", "error"});
  std::map<KernelFamily, FamilyErrors> errors;
  for (const calibrate::MeasuredKernel& kernel : kernels) {
    const std::string gpu = request.gpu_id.empty() ? kernel.gpu_id : request.gpu_id;
    const KernelDevice& device = device_of(gpu);
    if (family_peak_flops(kernel.shape, device) <= 0) {
      throw InputError(
          kernel.where() + ": " + std::string(to_string(kernel.shape.family)) + " on " + gpu +
          (is_tf32(kernel.shape) ? ", which has no TF32 tensor cores (before Ampere)" : ", which has no tensor cores"));
    }
    // A measured latency counts only on the GPU it was measured on; there a convolution is timed with the algorithm
    // its row says cuDNN ran (the fastest elsewhere, or where the row does not say).
    const bool measured_here = kernel.latency_s && kernel.gpu_id == gpu;
    const std::optional<ConvolutionAlgorithm> ran =
        kernel.gpu_id == gpu ? calibrate::timed_algorithm(kernel, calibrate::AlgorithmChoice::as_ran) : std::nullopt;
    const KernelPrediction p = predict_kernel(prepare_kernel(kernel.shape, device), fitted.parameters, ran);
    const double error = measured_here ? p.time_s / *kernel.latency_s - 1.0 : 0.0;
    if (measured_here) {
      FamilyErrors& e = errors[kernel.shape.family];
      ++e.rows;
      e.sum_abs += std::abs(error);
      if (std::abs(error) > std::abs(e.worst) || e.rows == 1) {
        e.worst = error;
        e.worst_line = kernel.line;
      }
    }
    const std::string family(to_string(kernel.shape.family));
    const std::vector<std::string> cells = {
        std::to_string(kernel.line), kernel.op, family, shape_text(kernel.shape), gpu,
        format_number(p.time_s * 1e6), std::string(to_string(p.bound)), tiling_text(kernel.shape, p),
        p.tile_m ? format_number(p.waves) : "-", p.tile_m ? format_number(p.utilization, 3) : "-",
        measured_here ? format_number(*kernel.latency_s * 1e6) : "-",
        measured_here ? format_number(100.0 * error, 3) + "%" : "-"};
    table.add_row(cells);
    csv += csv_line(cells);
    nlohmann::json row = {{"line", kernel.line},          {"op", kernel.op},
                          {"family", family},             {"gpu", gpu},
                          {"predicted_us", p.time_s * 1e6}, {"math_us", p.math_s * 1e6},
                          {"memory_us", p.memory_s * 1e6},  {"bound", std::string(to_string(p.bound))}};
    if (p.tile_m) {
      row["tile"] = {p.tile_m, p.tile_n};
      row["split_k"] = p.split_k;
      if (is_convolution(kernel.shape.family)) {
        row["algorithm"] = std::string(to_string(p.algorithm));
        row["algorithm_as_ran"] = ran.has_value();  // the row's Kernels named it; else the model's fastest
      }
      row["waves"] = p.waves;
      row["utilization"] = p.utilization;
      row["sustained_clock"] = device.clock(kernel.shape.family);
    }
    if (measured_here) {
      row["measured_us"] = *kernel.latency_s * 1e6;
      row["error"] = error;
    }
    rows.push_back(row);
  }
  nlohmann::json summary = nlohmann::json::object();
  TextTable summary_table({"family", "measured rows", "mean |error|", "worst", "worst line"});
  for (const auto& [family, e] : errors) {
    const double mean = e.sum_abs / e.rows;
    summary[std::string(to_string(family))] = {
        {"rows", e.rows}, {"mean_abs_error", mean}, {"worst_error", e.worst}, {"worst_line", e.worst_line}};
    summary_table.add_row({std::string(to_string(family)), std::to_string(e.rows), format_number(100 * mean, 3) + "%",
                           format_number(100 * e.worst, 3) + "%", std::to_string(e.worst_line)});
  }
  const bool tf32 = std::any_of(kernels.begin(), kernels.end(),
                                [](const calibrate::MeasuredKernel& kernel) { return is_tf32(kernel.shape); });
  if (request.format == "json") {
    nlohmann::json result = {{"parameters", fitted.data}, {"kernels", rows}, {"errors", summary}};
    if (tf32) result["derived"] = nlohmann::json::array({tf32_note(fitted)});
    out << result.dump(2) << '\n';
  } else if (request.format == "csv") {
    out << csv;
  } else {
    table.print(out);
    if (!errors.empty()) {
      out << '\n';
      summary_table.print(out);
    }
    out << "\nconstants: fitted to " << fitted.data << '\n';
    if (tf32) out << tf32_note(fitted) << '\n';
    for (const auto& [id, device] : devices) {
      std::string measured;
      for (KernelFamily family : kernel_families()) {
        if (device.clock(family) == 1.0) continue;
        if (!measured.empty()) measured += ", ";
        measured.append(to_string(family)).append(" ").append(format_number(device.clock(family), 3));
      }
      out << id;
      if (measured.empty()) {
        out << ": at its boost clock and the best card's memory share (datasheet; not measured)\n";
      } else {
        out << ": at the sustained clock (fraction of boost; memory-bound families: share of the best card's memory) "
               "measured in the constants' data: "
            << measured << '\n';
      }
    }
  }
  return 0;
}

// Whether `refit` is `committed` within kReproduceTolerance, value by value.
bool reproduces(const FittedKernelParameters& refit, const FittedKernelParameters& committed, std::ostream& out) {
  bool same = refit.gpus == committed.gpus && refit.kernels == committed.kernels &&
              refit.clocks.size() == committed.clocks.size();
  if (!same) out << "refit GPUs, kernel counts or measured clocks differ from the committed ones\n";
  for (std::size_t i = 0; same && i < refit.clocks.size(); ++i) {
    const SustainedClock& x = refit.clocks[i];
    const SustainedClock& y = committed.clocks[i];
    if (x.gpu_id != y.gpu_id || x.family != y.family || x.kernels != y.kernels ||
        std::abs(x.fraction - y.fraction) > kReproduceTolerance * y.fraction) {
      out << "refit sustained clock of " << x.gpu_id << " = " << x.fraction << ", committed " << y.fraction << '\n';
      same = false;
    }
  }
  const nlohmann::json a = to_json(refit)["families"];
  const nlohmann::json b = to_json(committed)["families"];
  for (const auto& [family, values] : a.items()) {
    for (const auto& [key, value] : values.items()) {
      if (!value.is_number()) continue;  // the GPUs, compared above
      const double x = value.get<double>();
      const double y = b[family][key].get<double>();
      if (std::abs(x - y) > kReproduceTolerance * std::max(std::abs(y), 1e-12)) {
        out << "refit " << family << "." << key << " = " << x << ", committed " << y << '\n';
        same = false;
      }
    }
  }
  return same;
}

// Compares `refit` with the committed constants and says so; 0 when it reproduces them, else 1.
int check_reproduces(const FittedKernelParameters& refit, std::ostream& out) {
  const bool same = reproduces(refit, fitted_kernel_parameters(), out);
  out << (same ? "the refit reproduces" : "the refit DIFFERS from")
      << " the committed constants (models/compute/kernel_parameters.json)\n";
  return same ? 0 : 1;
}

int fit(const KernelsRequest& request, std::ostream& out) {
  const std::vector<calibrate::MeasuredKernel> kernels = read_inputs(request);
  // The fit leaves TF32 rows out (fitted_rows); the output says how many were given.
  const std::vector<calibrate::MeasuredKernel> rows = fitted_rows(kernels);
  const std::size_t tf32_rows = kernels.size() - rows.size();
  if (std::none_of(rows.begin(), rows.end(), [](const auto& kernel) { return kernel.latency_s.has_value(); })) {
    std::string inputs;
    for (const std::string& input : request.inputs) inputs += (inputs.empty() ? "" : ", ") + input;
    throw InputError(
        inputs + ": no row has a measured Latency " +
        (request.precision == "fp32" ? std::string("to fit to") : "on the " + request.precision + " path to fit to") +
        (tf32_rows > 0 ? " (TF32 rows are not fitted)" : ""));
  }
  if (request.check && request.write_file.empty()) {
    // Only the fit of every GPU is compared: the per-GPU fits of the report are not needed for it.
    const FittedKernelParameters refit = fit_every_gpu(kernels, request.inputs);
    return check_reproduces(refit, out);
  }
  const KernelReport report = kernel_report(kernels, request.inputs);
  const std::string tf32_note = std::to_string(tf32_rows) +
                                " TF32 rows left out of the fit (the tensor-core families are fitted to 16-bit "
                                "kernels; predict them without --fit)";
  if (request.format == "json") {
    nlohmann::json result = kernel_report_json(report);
    if (tf32_rows > 0) result["left_out"] = tf32_note;
    out << result.dump(2) << '\n';
  } else {
    print_kernel_report(report, out);
    if (tf32_rows > 0) out << tf32_note << '\n';
  }
  if (!request.write_file.empty()) {
    write_file_atomically(request.write_file, to_json(report.fitted).dump(2) + "\n");
  }
  if (request.check) {
    return check_reproduces(report.fitted, out);
  }
  return 0;
}

}  // namespace

int kernels_command(const KernelsRequest& request, std::ostream& out) {
  return request.fit ? fit(request, out) : predict(request, out);
}

Command add_kernels_command(CLI::App& parent) {
  auto request = std::make_shared<KernelsRequest>();
  CLI::App* app = parent.add_subcommand(
      "kernels", "Predict operators' times with the kernel model (CSV in NeuSight's columns), or fit its constants");
  app->add_option("inputs", request->inputs, "CSV files (gzip or not) or folders of them")->required();
  app->add_option("--gpu", request->gpu_id, "Predict on this catalog GPU (default: each row's Device)");
  app->add_option("--precision", request->precision,
                  "fp32 (CUDA cores; default), fp16 or bf16 (tensor cores), tf32 (tensor cores, derived)")
      ->check(CLI::IsMember({"fp32", "tf32", "fp16", "bf16"}));
  app->add_option("--format", request->format, "table, json or csv")->check(CLI::IsMember({"table", "json", "csv"}));
  app->add_flag("--fit", request->fit, "Fit the constants to the inputs' measured kernels and report their errors");
  app->add_option("--write", request->write_file, "With --fit: write the fitted constants to this JSON file");
  app->add_flag("--check", request->check, "With --fit: exit 4 unless the refit reproduces the committed constants");
  return {app, [request] {
            if (kernels_command(*request, std::cout) != 0) {
              throw CheckFailed("the refit does not reproduce models/compute/kernel_parameters.json");
            }
          }};
}

}  // namespace vtsim::tools
