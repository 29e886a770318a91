#include "tools/validation_table.hpp"

#include <filesystem>

#include "models/error.hpp"
#include "models/json_reader.hpp"
#include "models/scenario_loader.hpp"

namespace vtsim::tools {

ValidationTable load_validation_table(const std::string& file) {
  const nlohmann::json json = read_json_file(file);
  JsonObject root(JsonValue(json, file, ""));
  ValidationTable table;
  table.file = file;
  if (auto description = root.get("description")) table.description = description->as_string();
  table.recorded_mean_abs_error = root.require("recorded_mean_abs_error").as_positive_number(100.0);
  table.record_note = root.require("record_note").as_string();
  const std::filesystem::path folder = std::filesystem::path(file).parent_path();
  for (const JsonValue& value : root.require("rows").as_array(1)) {
    JsonObject row = value.as_object();
    ValidationRow parsed;
    parsed.name = row.require("name").as_string();
    const JsonValue scenario = row.require("scenario");
    parsed.scenario_file = (folder / scenario.as_string()).string();
    if (auto overrides = row.get("set")) {
      for (const JsonValue& assignment : overrides->as_array()) parsed.overrides.push_back(assignment.as_string());
    }
    parsed.measured_samples_per_s = row.require("measured_samples_per_s").as_positive_number();
    parsed.source = row.require("source").as_string();
    row.finish();
    try {
      load_scenario_file(parsed.scenario_file, parsed.overrides);
    } catch (const InputError& error) {
      scenario.fail(std::string("this row's scenario does not load: ") + error.what());
    }
    table.rows.push_back(std::move(parsed));
  }
  root.finish();
  return table;
}

}  // namespace vtsim::tools
