#pragma once
// Strict, path-aware reading of JSON input (scenarios, profiles, sweeps).
//
// Every read names what it expects; every failure throws one InputError "FILE: PATH: what was expected, got what".
// A JsonObject records each key the parser asks for, present or not; finish() then rejects any other key and suggests
// the nearest valid one. So a misspelt key can never be silently ignored, without a list of valid keys kept apart from
// the code that reads them.

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace vtsim {

class JsonObject;

/// One JSON value together with where it came from: the file name and its JSON path (e.g. "jobs[0].precision").
/// REQUIRES: the nlohmann::json it refers to outlives this view.
class JsonValue {
 public:
  JsonValue(const nlohmann::json& json, std::string file, std::string path);

  /// The JSON path of this value; "" for the document root.
  const std::string& path() const { return path_; }
  /// The file this value was read from.
  const std::string& file() const { return file_; }
  /// The raw JSON.
  const nlohmann::json& json() const { return *json_; }

  /// Throws InputError "FILE: PATH: message".
  [[noreturn]] void fail(std::string_view message) const;

  /// An integer in [min, max]; "expected an integer >= min, got ...".
  std::int64_t as_int(std::int64_t min, std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;
  /// A finite number in [min, max].
  double as_number(double min, double max = std::numeric_limits<double>::infinity()) const;
  /// A finite number > 0 (and <= max).
  double as_positive_number(double max = std::numeric_limits<double>::infinity()) const;
  /// true or false.
  bool as_bool() const;
  /// A non-empty string.
  std::string as_string() const;
  /// A non-empty string without control characters (models/core/control_characters.hpp): a name that terminals, tables
  /// and plots show as it is.
  std::string as_name() const;
  /// One of `choices`, with a suggestion when it is near one.
  std::string as_choice(std::span<const std::string> choices) const;
  /// One of the named enumerators: `choices` pairs each spelling with its value.
  template <typename Enum>
  Enum as_enum(std::span<const std::pair<std::string, Enum>> choices) const;
  /// A JSON object, read key by key.
  JsonObject as_object() const;
  /// A JSON array with at least `min_size` elements, each with its indexed path.
  std::vector<JsonValue> as_array(std::size_t min_size = 0) const;

  bool is_string() const { return json_->is_string(); }
  bool is_number() const { return json_->is_number(); }
  bool is_array() const { return json_->is_array(); }
  bool is_object() const { return json_->is_object(); }
  bool is_null() const { return json_->is_null(); }

 private:
  const nlohmann::json* json_;
  std::string file_;
  std::string path_;
};

/// A JSON object being read. Ask for every key the format allows, then call finish().
class JsonObject {
 public:
  explicit JsonObject(JsonValue value);

  /// The value under `key`, or nullopt when absent (an explicit null counts as absent). Records `key` as valid.
  std::optional<JsonValue> get(std::string_view key);
  /// The value under `key`; an error when absent. Records `key` as valid.
  JsonValue require(std::string_view key);
  /// This object as a value (for error messages about the object as a whole).
  const JsonValue& value() const { return value_; }
  /// Throws on the first key that was never asked for, suggesting the nearest valid key.
  void finish() const;

 private:
  JsonValue value_;
  std::vector<std::string> known_keys_;
};

/// The JSON path of `key` inside the object at `parent` ("a.b" or "b" at the root).
std::string child_path(std::string_view parent, std::string_view key);
/// Short rendering of a JSON value for error messages (strings quoted, long values cut).
std::string describe_json(const nlohmann::json& json);
/// Parses JSON text; a syntax error becomes InputError "FILE: line L, column C: ...".
nlohmann::json parse_json_text(std::string_view text, const std::string& file);
/// parse_json_text for a document whose top-level object holds one very large array under `streamed_key` (a trace's
/// millions of events): each element of that array goes to `on_element(index, element)` as soon as it is read and is
/// not kept, so memory holds one element at a time besides the text; the document returned has the array empty. The
/// same errors (syntax, duplicate keys, numbers out of a double's range) with the same messages.
nlohmann::json parse_json_streaming(std::string_view text, const std::string& file, std::string_view streamed_key,
                                    const std::function<void(std::size_t, const nlohmann::json&)>& on_element);
/// Reads and parses a JSON file; a missing or unreadable file is an InputError.
nlohmann::json read_json_file(const std::string& file);

template <typename Enum>
Enum JsonValue::as_enum(std::span<const std::pair<std::string, Enum>> choices) const {
  std::vector<std::string> names;
  names.reserve(choices.size());
  for (const auto& choice : choices) names.push_back(choice.first);
  const std::string chosen = as_choice(names);
  for (const auto& choice : choices) {
    if (choice.first == chosen) return choice.second;
  }
  fail("internal: choice not found");  // unreachable: as_choice only returns one of names
}

}  // namespace vtsim
