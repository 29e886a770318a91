#include "models/compute/kernel_parameters.hpp"

#include <array>

#include "models/compute/committed_json.hpp"
#include "models/core/json_reader.hpp"
#include "models/core/units.hpp"

// JSON keys carry their unit (host_us, host_after_launch_us); the rest are ratios.
namespace vtsim {

nlohmann::json to_json(KernelFamily family, const KernelFamilyParameters& p) {
  nlohmann::json entry = {{"host_us", p.host_s / units::kSecondsPerUs},
                          {"host_after_launch_us", p.host_after_launch_s / units::kSecondsPerUs},
                          {"memory_efficiency", p.memory_efficiency},
                          {"l2_speedup", p.l2_speedup}};
  if (is_matrix_product(family)) {
    entry["peak_efficiency"] = p.peak_efficiency;
    entry["tile_knee"] = p.tile_knee;
    entry["k_overhead"] = p.k_overhead;
  }
  if (family == KernelFamily::convolution) {
    entry["winograd_2x2_efficiency"] = p.winograd_2x2_efficiency;
    entry["winograd_4x4_efficiency"] = p.winograd_4x4_efficiency;
  }
  return entry;
}

KernelDevice kernel_device(const GpuSpec& gpu, const std::vector<SustainedClock>& clocks) {
  KernelDevice device = kernel_device(gpu);
  std::array<bool, kKernelFamilyCount> measured{};
  for (const SustainedClock& clock : clocks) {
    if (clock.gpu_id != gpu.id) continue;
    device.sustained_clock.at(static_cast<std::size_t>(clock.family)) = clock.fraction;
    measured.at(static_cast<std::size_t>(clock.family)) = true;
  }
  // The clock a card holds under long products on its tensor cores is the card's, whichever library runs them: its
  // 16-bit convolutions, none of which the data hold long enough to measure it (DeepBench's take 19 us - 4 ms), run
  // at its tensor GEMMs'.
  const auto convolution = static_cast<std::size_t>(KernelFamily::tensor_convolution);
  if (!measured.at(convolution)) {
    device.sustained_clock.at(convolution) = device.clock(KernelFamily::tensor_gemm);
  }
  return device;
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
  nlohmann::json clocks = nlohmann::json::array();
  for (const SustainedClock& clock : fitted.clocks) {
    clocks.push_back({{"gpu", clock.gpu_id},
                      {"family", std::string(to_string(clock.family))},
                      {"fraction", clock.fraction},
                      {"median_utilization", clock.median_utilization},
                      {"kernels", clock.kernels}});
  }
  return {{"data", fitted.data}, {"families", families}, {"sustained_clocks", clocks}};
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
    p.host_s = entry.require("host_us").as_positive_number() * units::kSecondsPerUs;
    p.host_after_launch_s =
        entry.require("host_after_launch_us").as_number(0.0, p.host_s / units::kSecondsPerUs) * units::kSecondsPerUs;
    p.memory_efficiency = entry.require("memory_efficiency").as_positive_number(1.0);
    p.l2_speedup = entry.require("l2_speedup").as_number(1.0);
    fitted.kernels.push_back(static_cast<int>(entry.require("kernels").as_int(0)));
    fitted.gpus.emplace_back();
    for (const JsonValue& gpu : entry.require("gpus").as_array()) fitted.gpus.back().push_back(gpu.as_string());
    if (is_matrix_product(family)) {
      p.peak_efficiency = entry.require("peak_efficiency").as_positive_number(1.0);
      p.tile_knee = entry.require("tile_knee").as_positive_number();
      p.k_overhead = entry.require("k_overhead").as_number(0.0);
    }
    if (family == KernelFamily::convolution) {
      p.winograd_2x2_efficiency = entry.require("winograd_2x2_efficiency").as_positive_number(1.0);
      p.winograd_4x4_efficiency = entry.require("winograd_4x4_efficiency").as_positive_number(1.0);
    }
    entry.finish();
  }
  families.finish();
  for (const JsonValue& value : root.require("sustained_clocks").as_array()) {
    JsonObject entry = value.as_object();
    SustainedClock clock;
    clock.gpu_id = entry.require("gpu").as_string();
    static const std::vector<std::pair<std::string, KernelFamily>> kFamilies = [] {
      std::vector<std::pair<std::string, KernelFamily>> names;
      for (KernelFamily family : kernel_families()) names.emplace_back(std::string(to_string(family)), family);
      return names;
    }();
    clock.family = entry.require("family").as_enum<KernelFamily>(kFamilies);
    clock.fraction = entry.require("fraction").as_positive_number();
    clock.median_utilization = entry.require("median_utilization").as_positive_number();
    clock.kernels = static_cast<int>(entry.require("kernels").as_int(1));
    entry.finish();
    fitted.clocks.push_back(clock);
  }
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
  static const FittedKernelParameters fitted = fitted_kernel_parameters_from_json(
      std::string(kernel_parameters_json()), "models/compute/kernel_parameters.json");
  return fitted;
}

}  // namespace vtsim
