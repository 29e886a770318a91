#include "tools/sweep/sweep_axes.hpp"

#include <set>

#include "models/core/control_characters.hpp"
#include "models/core/error.hpp"
#include "models/scenario/overrides.hpp"

namespace vtsim::tools {
namespace {

// The key order of `ordered`, an object.
std::vector<std::string> keys_in_file_order(const nlohmann::ordered_json& ordered) {
  std::vector<std::string> keys;
  for (const auto& item : ordered.items()) keys.push_back(item.key());
  return keys;
}

// A path key of a grid, zip or point: must parse as an override path.
void check_path(const JsonValue& where, const std::string& path) {
  try {
    parse_override_path(path);
  } catch (const InputError& error) {
    where.fail(std::string("\"") + path + "\" is not an override path: " + error.what());
  }
}

std::string key_path(const JsonValue& object, const std::string& key) {
  return object.path() + "[\"" + key + "\"]";
}

// An axis value becomes a scenario field, a CSV cell, a plot label and a line of `--list`: no text in it, however
// deep, may hold a control character (a newline in a label once ran as a gnuplot command).
void check_value_text(const JsonValue& value) {
  const nlohmann::json& text = value.json();
  if (text.is_string() && has_control_character(text.get_ref<const std::string&>())) {
    value.fail("expected text without control characters (newline, tab, escape, ...), got " + describe_json(text));
  }
  if (text.is_array()) {
    for (std::size_t i = 0; i < text.size(); ++i) {
      check_value_text(JsonValue(text[i], value.file(), value.path() + "[" + std::to_string(i) + "]"));
    }
  }
  if (text.is_object()) {
    for (const auto& item : text.items()) {
      if (has_control_character(item.key())) {
        value.fail("expected keys without control characters, got " + describe_json(nlohmann::json(item.key())));
      }
      check_value_text(JsonValue(item.value(), value.file(), key_path(value, item.key())));
    }
  }
}

AxisBlock read_grid(const JsonValue& grid, const nlohmann::ordered_json& ordered) {
  if (!grid.is_object() || grid.json().empty()) grid.fail("expected an object {\"PATH\": [values...], ...}");
  AxisBlock block;
  std::vector<std::vector<nlohmann::json>> lists;
  for (const std::string& path : keys_in_file_order(ordered)) {
    const JsonValue list(grid.json()[path], grid.file(), key_path(grid, path));
    check_path(list, path);
    if (!list.is_array() || list.json().empty()) list.fail("expected a non-empty array of values");
    check_value_text(list);
    block.paths.push_back(path);
    block.json_paths.push_back(list.path());
    lists.emplace_back(list.json().begin(), list.json().end());
  }
  // Count first: a grid of a few long lists can make more rows than memory holds.
  std::size_t rows_in_grid = 1;
  for (const std::vector<nlohmann::json>& list : lists) {
    if (__builtin_mul_overflow(rows_in_grid, list.size(), &rows_in_grid) || rows_in_grid > kMaxSweepPoints) {
      grid.fail("makes more than " + std::to_string(kMaxSweepPoints) + " points");
    }
  }
  // Cartesian product, the first path varying slowest.
  block.rows.reserve(rows_in_grid);
  block.rows.emplace_back();
  for (const std::vector<nlohmann::json>& list : lists) {
    std::vector<std::vector<nlohmann::json>> rows;
    for (const std::vector<nlohmann::json>& row : block.rows) {
      for (const nlohmann::json& value : list) {
        rows.push_back(row);
        rows.back().push_back(value);
      }
    }
    block.rows = std::move(rows);
  }
  return block;
}

AxisBlock read_zip(const JsonValue& zip, const nlohmann::ordered_json& ordered) {
  if (!zip.is_object() || zip.json().empty()) zip.fail("expected an object {\"PATH\": [values...], ...}");
  AxisBlock block;
  std::size_t length = 0;
  std::string first_path;
  for (const std::string& path : keys_in_file_order(ordered)) {
    const JsonValue list(zip.json()[path], zip.file(), key_path(zip, path));
    check_path(list, path);
    if (!list.is_array() || list.json().empty()) list.fail("expected a non-empty array of values");
    if (block.paths.empty()) {
      length = list.json().size();
      first_path = path;
      block.rows.resize(length);
    } else if (list.json().size() != length) {
      list.fail("has " + std::to_string(list.json().size()) + " values but \"" + first_path + "\" has " +
                std::to_string(length) + "; the lists of a zip are walked together and must have equal lengths");
    }
    check_value_text(list);
    block.paths.push_back(path);
    block.json_paths.push_back(list.path());
    for (std::size_t r = 0; r < length; ++r) block.rows[r].push_back(list.json()[r]);
  }
  return block;
}

AxisBlock read_points(const JsonValue& points, const nlohmann::ordered_json& ordered) {
  const std::vector<JsonValue> elements = points.as_array(1);
  AxisBlock block;
  std::set<std::string> first_keys;
  for (std::size_t p = 0; p < elements.size(); ++p) {
    const JsonValue& point = elements[p];
    if (!point.is_object() || point.json().empty()) point.fail("expected an object {\"PATH\": value, ...}");
    check_value_text(point);
    std::set<std::string> keys;
    for (const auto& item : point.json().items()) keys.insert(item.key());
    if (p == 0) {
      first_keys = keys;
      for (const std::string& path : keys_in_file_order(ordered[0])) {
        check_path(point, path);
        block.paths.push_back(path);
        block.json_paths.push_back(key_path(point, path));
      }
    } else if (keys != first_keys) {
      point.fail("sets other paths than " + elements[0].path() + "; every point of a block must set the same paths");
    }
    std::vector<nlohmann::json> row;
    for (const std::string& path : block.paths) row.push_back(point.json()[path]);
    block.rows.push_back(std::move(row));
  }
  return block;
}

}  // namespace

AxisBlock read_axis_block(const JsonValue& value, const nlohmann::ordered_json& ordered) {
  JsonObject object = value.as_object();
  const std::optional<JsonValue> grid = object.get("grid");
  const std::optional<JsonValue> zip = object.get("zip");
  const std::optional<JsonValue> points = object.get("points");
  object.finish();
  const int kinds = (grid ? 1 : 0) + (zip ? 1 : 0) + (points ? 1 : 0);
  if (kinds != 1) value.fail("expected exactly one of \"grid\", \"zip\" or \"points\"");
  if (grid) return read_grid(*grid, ordered["grid"]);
  if (zip) return read_zip(*zip, ordered["zip"]);
  return read_points(*points, ordered["points"]);
}

std::size_t combined_size(const std::vector<AxisBlock>& blocks, std::size_t limit) {
  std::size_t size = 1;
  for (const AxisBlock& block : blocks) {
    if (__builtin_mul_overflow(size, block.rows.size(), &size) || size > limit) return 0;
  }
  return size;
}

std::vector<nlohmann::json> combination(const std::vector<AxisBlock>& blocks, std::size_t index) {
  std::vector<std::size_t> rows(blocks.size());
  for (std::size_t b = blocks.size(); b-- > 0;) {  // the last block varies fastest
    rows[b] = index % blocks[b].rows.size();
    index /= blocks[b].rows.size();
  }
  std::vector<nlohmann::json> values;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const std::vector<nlohmann::json>& row = blocks[b].rows[rows[b]];
    values.insert(values.end(), row.begin(), row.end());
  }
  return values;
}

}  // namespace vtsim::tools
