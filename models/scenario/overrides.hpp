#pragma once
// Command-line overrides of scenario fields: `--set jobs[0].batch_per_gpu=64`.
//
// An override edits the scenario's JSON before it is validated, so an overridden value passes the same checks, with the
// same messages, as one written in the file. Sweeps use the same mechanism for their axes.

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace vtsim {

/// One step of an override path: an object key or an array index.
using PathStep = std::variant<std::string, std::size_t>;

/// Splits "a.b[2].c" into {"a", "b", 2, "c"}. Throws InputError on a malformed path.
std::vector<PathStep> parse_override_path(std::string_view path);

/// The value text as JSON when it parses as JSON (8, 2.5, true, null, "x", [1,2], {...}), else as a plain string, so
/// that `gpu_model=t4` needs no quotes.
nlohmann::json parse_override_value(std::string_view text);

/// Sets `path` to `value` in `json`, creating missing object keys. An array index must address an existing element.
/// Throws InputError naming the override on a malformed path or a path that crosses a non-object.
void set_json_path(nlohmann::json& json, std::string_view path, const nlohmann::json& value);

/// Splits "A=1,B=2" into {"A=1", "B=2"}: at each comma outside brackets, braces and quotes that is followed by
/// another PATH= (so that `gpu_ids=[0,1]` and `name=a,b` stay whole). One assignment gives itself.
std::vector<std::string> split_assignments(std::string_view text);

/// Applies one "path=value" assignment.
void apply_override(nlohmann::json& json, std::string_view assignment);

}  // namespace vtsim
