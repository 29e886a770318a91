#include "tools/report/validation_table.hpp"

#include <filesystem>
#include <optional>
#include <utility>

#include "models/compute/kernel_model.hpp"
#include "models/core/error.hpp"
#include "models/core/json_reader.hpp"
#include "models/resolve/scenario_calibration.hpp"
#include "models/scenario/scenario_loader.hpp"
#include "tools/report/kernel_report.hpp"

namespace vtsim::tools {

namespace {

// The rows of `array`: each a scenario (relative to `folder`) with overrides, the published figure and its source.
std::vector<ValidationRow> read_rows(const JsonValue& array, const std::filesystem::path& folder) {
  std::vector<ValidationRow> rows;
  for (const JsonValue& value : array.as_array(1)) {
    // All keys first, so that a misspelt key is reported as such rather than as a missing one.
    JsonObject row = value.as_object();
    const std::optional<JsonValue> name = row.get("name");
    const std::optional<JsonValue> scenario = row.get("scenario");
    const std::optional<JsonValue> overrides = row.get("set");
    const std::optional<JsonValue> measured = row.get("measured_samples_per_s");
    const std::optional<JsonValue> source = row.get("source");
    const std::optional<JsonValue> doubt = row.get("doubt");
    row.finish();
    for (const auto& [key, present] : {std::pair{"name", name.has_value()},
                                       {"scenario", scenario.has_value()},
                                       {"measured_samples_per_s", measured.has_value()},
                                       {"source", source.has_value()}}) {
      if (!present) value.fail(std::string("missing required key '") + key + "'");
    }
    ValidationRow parsed;
    parsed.name = name->as_string();
    parsed.scenario_file = (folder / scenario->as_string()).string();
    if (overrides) {
      for (const JsonValue& assignment : overrides->as_array()) parsed.overrides.push_back(assignment.as_string());
    }
    parsed.measured_samples_per_s = measured->as_positive_number();
    parsed.source = source->as_string();
    if (doubt) parsed.doubt = doubt->as_string();  // as_string refuses an empty one
    try {
      static_cast<void>(load_scenario_calibration(load_scenario_file(parsed.scenario_file, parsed.overrides)));
    } catch (const InputError& error) {
      scenario->fail(std::string("this row's scenario does not load: ") + error.what());
    }
    rows.push_back(std::move(parsed));
  }
  return rows;
}

}  // namespace

ValidationTable load_validation_table(const std::string& file) {
  const nlohmann::json json = read_json_file(file);
  JsonObject root(JsonValue(json, file, ""));
  ValidationTable table;
  table.file = file;
  if (auto description = root.get("description")) table.description = description->as_string();
  table.recorded_mean_abs_error = root.require("recorded_mean_abs_error").as_positive_number(100.0);
  table.record_note = root.require("record_note").as_string();
  table.recorded_leave_one_out_mean_abs_error =
      root.require("recorded_leave_one_out_mean_abs_error").as_positive_number(100.0);
  table.recorded_out_of_sample_mean_abs_error =
      root.require("recorded_out_of_sample_mean_abs_error").as_positive_number(100.0);
  const std::filesystem::path folder = std::filesystem::path(file).parent_path();
  if (auto kernels = root.get("kernel_data")) {
    for (const JsonValue& path : kernels->as_array(1)) {
      table.kernel_data.push_back((folder / path.as_string()).string());
    }
    JsonObject recorded = root.require("recorded_kernel_left_gpu_out_mean_abs_error").as_object();
    for (KernelFamily family : kernel_families()) {
      const std::string name(to_string(family));
      table.recorded_kernel_left_gpu_out_mean_abs_error[name] = recorded.require(name).as_positive_number(100.0);
    }
    recorded.finish();
    table.kernel_record_note = root.require("kernel_record_note").as_string();
  }
  if (auto gradients = root.get("convolution_gradient_data")) {
    for (const JsonValue& path : gradients->as_array(1)) {
      table.convolution_gradient_data.push_back((folder / path.as_string()).string());
    }
  }
  if (auto held_out = root.get("held_out_kernels")) {
    JsonObject object = held_out->as_object();
    HeldOutKernels kernels;
    kernels.description = object.require("description").as_string();
    for (const JsonValue& path : object.require("data").as_array(1)) {
      kernels.data.push_back((folder / path.as_string()).string());
    }
    kernels.device_bound_s = object.require("device_bound_us").as_positive_number(1e6) * 1e-6;
    JsonObject recorded = object.require("recorded_mean_abs_error").as_object();
    for (const std::string& group : held_out_group_names()) {
      if (auto value = recorded.get(group)) kernels.recorded_mean_abs_error[group] = value->as_positive_number(100.0);
    }
    recorded.finish();
    kernels.record_note = object.require("record_note").as_string();
    object.finish();
    table.held_out_kernels = std::move(kernels);
  }
  table.rows = read_rows(root.require("rows"), folder);
  if (auto large = root.get("large_model_rows")) {
    table.large_model_rows = read_rows(*large, folder);
    table.recorded_large_model_mean_abs_error =
        root.require("recorded_large_model_mean_abs_error").as_positive_number(100.0);
    table.large_model_record_note = root.require("large_model_record_note").as_string();
  }
  if (auto single = root.get("single_gpu_rows")) {
    table.single_gpu_rows = read_rows(*single, folder);
    table.recorded_single_gpu_mean_abs_error =
        root.require("recorded_single_gpu_mean_abs_error").as_positive_number(100.0);
    table.single_gpu_record_note = root.require("single_gpu_record_note").as_string();
  }
  root.finish();
  return table;
}

}  // namespace vtsim::tools
