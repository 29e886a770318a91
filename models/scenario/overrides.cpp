#include "models/scenario/overrides.hpp"

#include <cctype>

#include "models/core/control_characters.hpp"
#include "models/core/error.hpp"
#include "models/core/json_reader.hpp"

namespace vtsim {
namespace {

[[noreturn]] void bad_path(std::string_view path, std::string_view why) {
  throw InputError("--set " + std::string(path) + ": " + std::string(why));
}

bool is_key_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-'; }

}  // namespace

std::vector<PathStep> parse_override_path(std::string_view path) {
  std::vector<PathStep> steps;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '[') {
      const std::size_t close = path.find(']', i);
      if (close == std::string_view::npos || close == i + 1) bad_path(path, "expected an index like [0]");
      std::size_t index = 0;
      for (std::size_t k = i + 1; k < close; ++k) {
        if (!std::isdigit(static_cast<unsigned char>(path[k]))) bad_path(path, "array index must be a whole number");
        index = index * 10 + static_cast<std::size_t>(path[k] - '0');
      }
      steps.emplace_back(index);
      i = close + 1;
      if (i < path.size() && path[i] == '.') {
        ++i;
        if (i == path.size()) bad_path(path, "path ends with '.'");
      }
      continue;
    }
    std::size_t end = i;
    while (end < path.size() && is_key_char(path[end])) ++end;
    if (end == i) bad_path(path, "expected a key at character " + std::to_string(i + 1));
    steps.emplace_back(std::string(path.substr(i, end - i)));
    i = end;
    if (i < path.size() && path[i] == '.') {
      ++i;
      if (i == path.size()) bad_path(path, "path ends with '.'");
    } else if (i < path.size() && path[i] != '[') {
      bad_path(path, std::string("unexpected character '") + path[i] + "'");
    }
  }
  if (steps.empty()) bad_path(path, "empty path");
  return steps;
}

nlohmann::json parse_override_value(std::string_view text) {
  nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return nlohmann::json(std::string(text));
  // JSON: read again as files are, so that a key given twice or a number that underflows is refused, not resolved.
  return parse_json_text(text, "the value '" + printable(std::string(text)) + "'");
}

void set_json_path(nlohmann::json& json, std::string_view path, const nlohmann::json& value) {
  nlohmann::json* node = &json;
  std::string walked;
  for (const PathStep& step : parse_override_path(path)) {
    if (const auto* key = std::get_if<std::string>(&step)) {
      if (node->is_null()) *node = nlohmann::json::object();
      if (!node->is_object()) bad_path(path, (walked.empty() ? "the scenario" : walked) + " is not an object");
      node = &(*node)[*key];
      walked += (walked.empty() ? "" : ".") + *key;
    } else {
      const std::size_t index = std::get<std::size_t>(step);
      if (!node->is_array()) bad_path(path, (walked.empty() ? "the scenario" : walked) + " is not an array");
      if (index >= node->size()) {
        bad_path(path, walked + " has " + std::to_string(node->size()) + " element" + (node->size() == 1 ? "" : "s"));
      }
      node = &(*node)[index];
      walked += "[" + std::to_string(index) + "]";
    }
  }
  *node = value;
}

void apply_override(nlohmann::json& json, std::string_view assignment) {
  const std::size_t equals = assignment.find('=');
  if (equals == std::string_view::npos) {
    throw InputError("--set " + std::string(assignment) + ": expected PATH=VALUE, e.g. jobs[0].batch_per_gpu=32");
  }
  set_json_path(json, assignment.substr(0, equals), parse_override_value(assignment.substr(equals + 1)));
}

std::vector<std::string> split_assignments(std::string_view text) {
  // Where a new assignment may start: a path (letters, digits, '_', '.', '[', ']') and then '='.
  const auto starts_assignment = [&](std::size_t from) {
    std::size_t end = from;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) != 0 || text[end] == '_' ||
                                 text[end] == '.' || text[end] == '[' || text[end] == ']')) {
      ++end;
    }
    return end > from && end < text.size() && text[end] == '=' &&
           std::isalpha(static_cast<unsigned char>(text[from])) != 0;
  };
  std::vector<std::string> parts;
  int depth = 0;
  bool quoted = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '\\') ++i;
      else if (c == '"') quoted = false;
      continue;
    }
    if (c == '"') quoted = true;
    else if (c == '[' || c == '{') ++depth;
    else if ((c == ']' || c == '}') && depth > 0) --depth;
    else if (c == ',' && depth == 0 && starts_assignment(i + 1)) {
      parts.emplace_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.emplace_back(text.substr(start));
  return parts;
}

}  // namespace vtsim
