#include "models/kernel_parameters.hpp"

#include "models/json_reader.hpp"
#include "models/kernel_parameters_json.hpp"

namespace vtsim {
namespace {

// JSON keys carry their unit (host_us); the rest are ratios.
constexpr double kSecondsPerMicrosecond = 1e-6;

}  // namespace

nlohmann::json to_json(KernelFamily family, const KernelFamilyParameters& p) {
  nlohmann::json entry = {{"host_us", p.host_s / kSecondsPerMicrosecond},
                          {"memory_efficiency", p.memory_efficiency},
                          {"l2_speedup", p.l2_speedup}};
  if (is_matrix_product(family)) {
    entry["peak_efficiency"] = p.peak_efficiency;
    entry["tile_knee"] = p.tile_knee;
    entry["k_overhead"] = p.k_overhead;
  }
  return entry;
}

nlohmann::json to_json(const FittedKernelParameters& fitted) {
  nlohmann::json families = nlohmann::json::object();
  for (std::size_t i = 0; i < kernel_families().size(); ++i) {
    const KernelFamily family = kernel_families()[i];
    nlohmann::json entry = to_json(family, fitted.parameters.of(family));
    entry["kernels"] = i < fitted.kernels.size() ? fitted.kernels[i] : 0;
    entry["gpus"] = i < fitted.gpus.size() ? fitted.gpus[i] : std::vector<std::string>{};
    families[std::string(to_string(family))] = entry;
  }
  return {{"data", fitted.data}, {"families", families}};
}

FittedKernelParameters fitted_kernel_parameters_from_json(const std::string& text, const std::string& file) {
  const nlohmann::json json = parse_json_text(text, file);
  JsonObject root = JsonValue(json, file, "").as_object();
  FittedKernelParameters fitted;
  fitted.data = root.require("data").as_string();
  JsonObject families = root.require("families").as_object();
  for (KernelFamily family : kernel_families()) {
    JsonObject entry = families.require(to_string(family)).as_object();
    KernelFamilyParameters& p = fitted.parameters.of(family);
    p.host_s = entry.require("host_us").as_positive_number() * kSecondsPerMicrosecond;
    p.memory_efficiency = entry.require("memory_efficiency").as_positive_number(1.0);
    p.l2_speedup = entry.require("l2_speedup").as_number(1.0);
    fitted.kernels.push_back(static_cast<int>(entry.require("kernels").as_int(0)));
    fitted.gpus.emplace_back();
    for (const JsonValue& gpu : entry.require("gpus").as_array()) fitted.gpus.back().push_back(gpu.as_string());
    if (is_matrix_product(family)) {
      p.peak_efficiency = entry.require("peak_efficiency").as_positive_number(2.25);
      p.tile_knee = entry.require("tile_knee").as_positive_number();
      p.k_overhead = entry.require("k_overhead").as_number(0.0);
    }
    entry.finish();
  }
  families.finish();
  root.finish();
  return fitted;
}

std::string FittedKernelParameters::gpu_list(KernelFamily family) const {
  std::string list;
  const auto i = static_cast<std::size_t>(family);
  if (i >= gpus.size()) return list;
  for (const std::string& id : gpus[i]) {
    if (!list.empty()) list += ", ";
    list += id;
  }
  return list;
}

const FittedKernelParameters& fitted_kernel_parameters() {
  static const FittedKernelParameters fitted =
      fitted_kernel_parameters_from_json(std::string(kernel_parameters_json()), "models/kernel_parameters.json");
  return fitted;
}

}  // namespace vtsim
