#include "tools/sweep/sweep_spec.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "models/core/error.hpp"
#include "models/core/input_file.hpp"
#include "models/core/json_reader.hpp"
#include "models/scenario/overrides.hpp"
#include "tools/sweep/sweep_axes.hpp"
#include "tools/sweep/sweep_derived.hpp"
#include "tools/sweep/sweep_hash.hpp"

namespace vtsim::tools {
namespace {


// The id of a point: a hash of its swept values, sorted by path so that it does not depend on column order.
std::string point_id(const std::vector<std::string>& paths, const std::vector<nlohmann::json>& values) {
  std::vector<std::string> lines;
  for (std::size_t c = 0; c < paths.size(); ++c) lines.push_back(paths[c] + "=" + values[c].dump() + "\n");
  std::sort(lines.begin(), lines.end());
  Fnv1a64 hash;
  for (const std::string& line : lines) hash.add(line);
  return hash.hex();
}

struct ScenarioSource {
  nlohmann::json json;
  std::string label;
  std::string dir;
};

ScenarioSource read_scenario(const JsonValue& value, const std::string& file, const std::string& base_dir) {
  if (value.is_object()) {
    // The stem of the label names an unnamed scenario after the sweep file.
    return {value.json(), std::filesystem::path(file).filename().string() + " (scenario)", base_dir};
  }
  if (!value.is_string()) value.fail("expected a scenario file name (relative to the sweep file) or a scenario object");
  const std::string written = value.as_string();
  std::filesystem::path path(written);
  if (path.is_relative()) path = (std::filesystem::path(base_dir) / path).lexically_normal();
  if (!std::filesystem::is_regular_file(path)) value.fail("no such file: " + path.string());
  const std::string dir = path.parent_path().string();
  return {read_json_file(path.string()), written, dir.empty() ? "." : dir};
}

std::vector<std::string> read_set(const std::optional<JsonValue>& set) {
  std::vector<std::string> assignments;
  if (!set) return assignments;
  for (const JsonValue& element : set->as_array()) assignments.push_back(element.as_string());
  return assignments;
}

struct DerivedField {
  std::string path;
  DerivedExpression expression;
  std::string where;  // "FILE: derived["PATH"]"
};

std::vector<DerivedField> read_derived(const std::optional<JsonValue>& derived, const nlohmann::ordered_json& ordered,
                                       const std::vector<std::string>& swept_columns) {
  std::vector<DerivedField> fields;
  if (!derived) return fields;
  if (!derived->is_object()) derived->fail("expected an object {\"PATH\": \"expression\", ...}");
  for (const auto& item : ordered.items()) {
    const std::string& path = item.key();
    const JsonValue text(derived->json()[path], derived->file(), derived->path() + "[\"" + path + "\"]");
    const std::string where = text.file() + ": " + text.path();
    try {
      parse_override_path(path);
    } catch (const InputError& error) {
      text.fail(std::string("not an override path: ") + error.what());
    }
    if (std::find(swept_columns.begin(), swept_columns.end(), path) != swept_columns.end()) {
      text.fail("is also swept in \"axes\"; a path is either swept or derived");
    }
    DerivedField field{path, DerivedExpression::parse(text.as_string(), where), where};
    for (const std::string& operand : field.expression.paths()) {
      if (derived->json().contains(operand)) {
        text.fail("reads the derived path " + operand + "; a derived path may read only the scenario and swept paths");
      }
    }
    fields.push_back(std::move(field));
  }
  return fields;
}

}  // namespace

Sweep parse_sweep(std::string_view text, const std::string& file, const std::string& base_dir,
                  std::span<const std::string> extra_set) {
  const nlohmann::json json = parse_json_text(text, file);
  const nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(text);  // key order; the text is valid JSON
  JsonObject root = JsonValue(json, file, "").as_object();
  const std::optional<JsonValue> description = root.get("description");
  const JsonValue scenario_value = root.require("scenario");
  const std::optional<JsonValue> set = root.get("set");
  const std::optional<JsonValue> axes = root.get("axes");
  const std::optional<JsonValue> derived = root.get("derived");
  root.finish();

  Sweep sweep;
  sweep.file = file;
  if (description) sweep.description = description->as_string();
  ScenarioSource scenario = read_scenario(scenario_value, file, base_dir);
  sweep.scenario_label = scenario.label;
  sweep.scenario_dir = scenario.dir;
  const std::vector<std::string> assignments = read_set(set);
  for (std::size_t i = 0; i < assignments.size(); ++i) {
    try {
      apply_override(scenario.json, assignments[i]);
    } catch (const InputError& error) {
      throw InputError(file + ": set[" + std::to_string(i) + "]: " + error.what());
    }
  }
  for (const std::string& assignment : extra_set) apply_override(scenario.json, assignment);
  sweep.base_scenario = std::move(scenario.json);

  std::vector<AxisBlock> blocks;
  std::vector<std::string> column_where;
  if (axes) {
    const std::vector<JsonValue> elements = axes->as_array();
    for (std::size_t b = 0; b < elements.size(); ++b) {
      blocks.push_back(read_axis_block(elements[b], ordered["axes"][b]));
      for (std::size_t c = 0; c < blocks.back().paths.size(); ++c) {
        const std::string& path = blocks.back().paths[c];
        const auto seen = std::find(sweep.swept_columns.begin(), sweep.swept_columns.end(), path);
        if (seen != sweep.swept_columns.end()) {
          JsonValue(json, file, blocks.back().json_paths[c])
              .fail("is swept twice (also at " + column_where[static_cast<std::size_t>(seen - sweep.swept_columns.begin())] + ")");
        }
        sweep.swept_columns.push_back(path);
        column_where.push_back(blocks.back().json_paths[c]);
      }
    }
  }
  const std::vector<DerivedField> fields =
      read_derived(derived, derived ? ordered["derived"] : nlohmann::ordered_json(), sweep.swept_columns);
  for (const DerivedField& field : fields) sweep.derived_columns.push_back(field.path);

  const std::size_t count = combined_size(blocks, kMaxSweepPoints);
  if (count == 0) {
    JsonValue(json, file, "axes").fail("makes more than " + std::to_string(kMaxSweepPoints) + " points");
  }
  std::unordered_map<std::string, std::size_t> index_of_id;
  sweep.points.reserve(count);
  for (std::size_t index = 0; index < count; ++index) {
    SweepPoint point;
    point.index = index;
    point.values = combination(blocks, index);
    point.id = point_id(sweep.swept_columns, point.values);
    nlohmann::json point_json = sweep.base_scenario;
    for (std::size_t c = 0; c < point.values.size(); ++c) {
      try {
        set_json_path(point_json, sweep.swept_columns[c], point.values[c]);
      } catch (const InputError& error) {
        throw InputError(file + ": " + column_where[c] + ": " + error.what());
      }
    }
    for (const DerivedField& field : fields) {
      const nlohmann::json value =
          field.expression.evaluate(point_json, field.where + ": point " + std::to_string(index));
      try {
        set_json_path(point_json, field.path, value);
      } catch (const InputError& error) {
        throw InputError(field.where + ": " + error.what());
      }
      point.values.push_back(value);
    }
    const auto [existing, inserted] = index_of_id.emplace(point.id, index);
    if (!inserted) {
      JsonValue(json, file, "axes").fail("points " + std::to_string(existing->second) + " and " +
                                         std::to_string(index) + " are the same point (" +
                                         point_values_json(sweep, point).dump() + ")");
    }
    sweep.points.push_back(std::move(point));
  }

  Fnv1a64 fingerprint;
  fingerprint.add("vtsim-sweep-1\n" + sweep.base_scenario.dump() + "\n");
  for (const std::string& column : sweep.swept_columns) fingerprint.add("swept " + column + "\n");
  for (std::size_t f = 0; f < fields.size(); ++f) {
    fingerprint.add("derived " + fields[f].path + "=" + json["derived"][fields[f].path].get<std::string>() + "\n");
  }
  for (const SweepPoint& point : sweep.points) fingerprint.add(point.id + "\n");
  // The points also read their calibration profiles and workload traces: a file that changed makes another sweep
  // (resuming would mix rows computed from the old and the new measurements).
  for (const std::string& profile : calibration_profiles(sweep)) {
    std::string content = "(missing)";
    try {
      content = read_input_file(profile);
    } catch (const InputError&) {
      // The points that need it fail with the loader's own message.
    }
    fingerprint.add("file " + profile + "\n" + content + "\n");
  }
  sweep.fingerprint = fingerprint.hex();
  return sweep;
}

std::set<std::string> calibration_profiles(const Sweep& sweep) {
  std::set<std::string> files;
  const auto add_path = [&](const nlohmann::json& value) {
    if (!value.is_string()) return;
    std::filesystem::path path = value.get<std::string>();
    if (path.is_relative()) path = (std::filesystem::path(sweep.scenario_dir) / path).lexically_normal();
    files.insert(path.string());
  };
  const auto add = [&](const nlohmann::json& scenario) {
    if (!scenario.is_object()) return;
    if (const auto profile = scenario.find("calibration_profile"); profile != scenario.end()) add_path(*profile);
    const auto jobs = scenario.find("jobs");
    if (jobs == scenario.end() || !jobs->is_array()) return;
    for (const nlohmann::json& job : *jobs) {
      if (!job.is_object() || !job.contains("workload") || !job["workload"].is_object()) continue;
      if (const auto trace = job["workload"].find("trace"); trace != job["workload"].end()) add_path(*trace);
    }
  };
  add(sweep.base_scenario);
  // Points read other files only where a swept or derived path reaches one.
  const std::vector<std::string> columns = sweep.columns();
  if (std::any_of(columns.begin(), columns.end(), [](const std::string& column) {
        return column.rfind("calibration_profile", 0) == 0 || column.find("workload") != std::string::npos ||
               column == "jobs";
      })) {
    for (const SweepPoint& point : sweep.points) add(point_scenario_json(sweep, point));
  }
  return files;
}

Sweep load_sweep_file(const std::string& file, std::span<const std::string> extra_set) {
  const std::string dir = std::filesystem::path(file).parent_path().string();
  return parse_sweep(read_input_file(file), file, dir.empty() ? "." : dir, extra_set);
}

std::vector<std::string> Sweep::columns() const {
  std::vector<std::string> all = swept_columns;
  all.insert(all.end(), derived_columns.begin(), derived_columns.end());
  return all;
}

nlohmann::json point_scenario_json(const Sweep& sweep, const SweepPoint& point) {
  nlohmann::json json = sweep.base_scenario;
  const std::vector<std::string> columns = sweep.columns();
  for (std::size_t c = 0; c < columns.size(); ++c) set_json_path(json, columns[c], point.values[c]);
  return json;
}

nlohmann::json point_values_json(const Sweep& sweep, const SweepPoint& point) {
  nlohmann::json values = nlohmann::json::object();
  const std::vector<std::string> columns = sweep.columns();
  for (std::size_t c = 0; c < columns.size() && c < point.values.size(); ++c) values[columns[c]] = point.values[c];
  return values;
}

}  // namespace vtsim::tools
