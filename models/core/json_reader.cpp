#include "models/core/json_reader.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "models/core/control_characters.hpp"
#include "models/core/error.hpp"
#include "models/core/input_file.hpp"
#include "models/core/nearest_name.hpp"

namespace vtsim {
namespace {

std::string format_bound(double bound) {
  std::ostringstream out;
  out << bound;
  return out.str();
}

std::string quoted_list(std::span<const std::string> names) {
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) list += i + 1 == names.size() ? " or " : ", ";
    list += "'" + names[i] + "'";
  }
  return list;
}

}  // namespace

std::string child_path(std::string_view parent, std::string_view key) {
  return parent.empty() ? std::string(key) : std::string(parent) + "." + std::string(key);
}

std::string describe_json(const nlohmann::json& json) {
  // JSON escapes C0 controls; printable() also escapes DEL and C1 controls, which JSON leaves raw.
  std::string text = printable(json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  constexpr std::size_t kMaxLength = 60;
  if (text.size() > kMaxLength) text = text.substr(0, kMaxLength - 3) + "...";
  if (json.is_string()) text[0] = '\'', text[text.size() - 1] = '\'';
  return text;
}

JsonValue::JsonValue(const nlohmann::json& json, std::string file, std::string path)
    : json_(&json), file_(std::move(file)), path_(std::move(path)) {}

void JsonValue::fail(std::string_view message) const {
  std::string where = file_;
  if (!path_.empty()) where += ": " + path_;
  throw InputError(where + ": " + std::string(message));
}

std::int64_t JsonValue::as_int(std::int64_t min, std::int64_t max) const {
  // The upper bound is stated when it is small, or when the value is above it (issue 31: 2147483648 was refused as
  // "expected an integer >= 1"). Messages are built only on failure: a trace reads millions of integers.
  const auto range = [&] { return "expected an integer from " + std::to_string(min) + " to " + std::to_string(max); };
  const auto expected = [&] {
    return max < std::numeric_limits<std::int32_t>::max() ? range() : "expected an integer >= " + std::to_string(min);
  };
  const auto reject = [&](const std::string& what) { fail(what + ", got " + describe_json(*json_)); };
  if (json_->is_number_integer()) {
    const auto value = json_->get<std::int64_t>();
    if (json_->is_number_unsigned() && json_->get<std::uint64_t>() > static_cast<std::uint64_t>(max)) reject(range());
    if (value > max) reject(range());
    if (value < min) reject(expected());
    return value;
  }
  if (json_->is_number_float()) {
    // Accept 8.0 for 8, which JSON writers sometimes produce; reject 8.5.
    const double value = json_->get<double>();
    if (std::isfinite(value) && std::floor(value) == value && value > static_cast<double>(max)) reject(range());
    if (std::isfinite(value) && std::floor(value) == value && value >= static_cast<double>(min)) {
      return static_cast<std::int64_t>(value);
    }
  }
  reject(expected());
  return 0;  // unreachable
}

double JsonValue::as_number(double min, double max) const {
  const auto reject = [&] {
    std::string expected = "expected a number >= " + format_bound(min);
    if (std::isfinite(max)) expected = "expected a number from " + format_bound(min) + " to " + format_bound(max);
    fail(expected + ", got " + describe_json(*json_));
  };
  if (!json_->is_number()) reject();
  const double value = json_->get<double>();
  if (!std::isfinite(value) || value < min || value > max) reject();
  return value;
}

double JsonValue::as_positive_number(double max) const {
  const auto reject = [&] {
    std::string expected = "expected a number > 0";
    if (std::isfinite(max)) expected += " and <= " + format_bound(max);
    fail(expected + ", got " + describe_json(*json_));
  };
  if (!json_->is_number()) reject();
  const double value = json_->get<double>();
  if (!std::isfinite(value) || value <= 0 || value > max) reject();
  return value;
}

bool JsonValue::as_bool() const {
  if (!json_->is_boolean()) fail("expected true or false, got " + describe_json(*json_));
  return json_->get<bool>();
}

std::string JsonValue::as_string() const {
  if (!json_->is_string() || json_->get_ref<const std::string&>().empty()) {
    fail("expected a non-empty string, got " + describe_json(*json_));
  }
  return json_->get<std::string>();
}

std::string JsonValue::as_name() const {
  std::string name = as_string();
  if (has_control_character(name)) {
    fail("expected a name without control characters (newline, tab, escape, ...), got " + describe_json(*json_));
  }
  return name;
}

std::string JsonValue::as_choice(std::span<const std::string> choices) const {
  if (!json_->is_string()) fail("expected one of " + quoted_list(choices) + ", got " + describe_json(*json_));
  const auto& text = json_->get_ref<const std::string&>();
  if (std::find(choices.begin(), choices.end(), text) != choices.end()) return text;
  const std::string hint = did_you_mean(text, choices);
  constexpr std::size_t kShortList = 6;  // longer lists (catalog ids) read better after the suggestion, or alone
  if (choices.size() <= kShortList) fail("expected one of " + quoted_list(choices) + ", got " + describe_json(*json_) + hint);
  if (!hint.empty()) fail("unknown value " + describe_json(*json_) + hint);
  fail("unknown value " + describe_json(*json_) + "; expected one of " + quoted_list(choices));
}

JsonObject JsonValue::as_object() const {
  if (!json_->is_object()) fail("expected an object, got " + describe_json(*json_));
  return JsonObject(*this);
}

std::vector<JsonValue> JsonValue::as_array(std::size_t min_size) const {
  if (!json_->is_array()) fail("expected an array, got " + describe_json(*json_));
  if (json_->size() < min_size) {
    fail("expected at least " + std::to_string(min_size) + " element" + (min_size == 1 ? "" : "s") + ", got " +
         std::to_string(json_->size()));
  }
  std::vector<JsonValue> elements;
  elements.reserve(json_->size());
  for (std::size_t i = 0; i < json_->size(); ++i) {
    elements.emplace_back((*json_)[i], file_, path_ + "[" + std::to_string(i) + "]");
  }
  return elements;
}

JsonObject::JsonObject(JsonValue value) : value_(std::move(value)) {}

std::optional<JsonValue> JsonObject::get(std::string_view key) {
  known_keys_.emplace_back(key);
  const nlohmann::json& object = value_.json();
  const auto found = object.find(key);
  if (found == object.end() || found->is_null()) return std::nullopt;
  return JsonValue(*found, value_.file(), child_path(value_.path(), key));
}

JsonValue JsonObject::require(std::string_view key) {
  std::optional<JsonValue> found = get(key);
  if (!found) value_.fail("missing required key '" + std::string(key) + "'");
  return *found;
}

void JsonObject::finish() const {
  for (const auto& [key, unused] : value_.json().items()) {
    if (std::find(known_keys_.begin(), known_keys_.end(), key) != known_keys_.end()) continue;
    const JsonValue unknown(unused, value_.file(), child_path(value_.path(), key));
    std::string hint = did_you_mean(key, known_keys_);
    if (hint.empty()) hint = "; valid keys here: " + quoted_list(known_keys_);
    unknown.fail("unknown key" + hint);
  }
}

namespace {

// Deepest nesting of arrays and objects vtsim reads: no input of its needs more than a handful of levels, and a parser
// that recurses once per level (nlohmann's, and every walk over the result) runs out of stack near 60,000.
constexpr int kMaxJsonDepth = 256;

// "line L, column C" of byte `offset` of `text`.
std::string line_and_column(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
  const std::size_t line_start = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  const std::size_t column = line_start == std::string_view::npos ? offset + 1 : offset - line_start;
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// Throws when arrays and objects nest deeper than kMaxJsonDepth, naming where the limit is crossed.
void check_depth(std::string_view text, const std::string& file) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) {
        throw InputError(file + ": " + line_and_column(text, i) + ": invalid JSON: nested deeper than " +
                         std::to_string(kMaxJsonDepth) + " levels");
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

// Builds the document from SAX events, as nlohmann's DOM parser does, refusing on the way a key given twice in one
// object (which nlohmann would resolve silently by keeping the last value) and a number below a double's range, each
// named by its JSON path; and hands each element of the top-level array `streamed` to `on_element` instead of keeping
// it (streamed empty: every value kept). Not a parse callback: with one, nlohmann 3.11's DOM builder scans the whole
// parent for discarded values at every object's end (json_sax_dom_callback_parser::end_object), quadratic in an array
// of objects (160,000 trace events took 5.7 s, 320,000 19.6 s).
class StreamingDom : public nlohmann::json_sax<nlohmann::json> {
 public:
  using OnElement = std::function<void(std::size_t, const nlohmann::json&)>;
  StreamingDom(const std::string& file, std::string_view streamed, const OnElement& on_element)
      : file_(file), streamed_(streamed), on_element_(on_element) {}

  nlohmann::json take() { return std::move(root_); }

  bool null() override { return add(nullptr); }
  bool boolean(bool value) override { return add(value); }
  bool number_integer(number_integer_t value) override { return add(value); }
  bool number_unsigned(number_unsigned_t value) override { return add(value); }
  bool number_float(number_float_t value, const string_t& text) override {
    // strtod reads a number below the smallest double as 0: "1e-400" would silently become nothing.
    const std::string mantissa = text.substr(0, text.find_first_of("eE"));
    if (value == 0 && mantissa.find_first_of("123456789") != std::string::npos) {
      throw InputError(file_ + ": " + value_path() + ": the number " + text +
                       " is below the smallest double: it would read as 0");
    }
    return add(value);
  }
  bool string(string_t& value) override { return add(std::move(value)); }
  bool binary(binary_t& value) override { return add(nlohmann::json::binary(std::move(value))); }
  bool start_object(std::size_t) override { return open(nlohmann::json::object()); }
  bool start_array(std::size_t) override { return open(nlohmann::json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& name) override {
    Frame& frame = frames_.back();
    if (!frame.keys.insert(name).second) {
      throw InputError(file_ + ": " + child_path(frame.path, name) +
                       ": duplicate key (the later value would silently replace the earlier one)");
    }
    frame.last_key = name;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) override {
    // Rethrown as its own type, for with_json_errors' messages.
    if (const auto* range = dynamic_cast<const nlohmann::json::out_of_range*>(&error)) throw *range;
    if (const auto* syntax = dynamic_cast<const nlohmann::json::parse_error*>(&error)) throw *syntax;
    throw InputError(file_ + ": invalid JSON: " + error.what());
  }

 private:
  struct Frame {
    nlohmann::json value;
    std::set<std::string> keys;
    std::string path;
    std::size_t next_index = 0;
    std::string last_key;
    bool streamed = false;  // the top-level array whose elements go to on_element
  };

  std::string value_path() const {
    const std::string path = child_of_current();
    return path.empty() ? "the document" : path;
  }
  std::string child_of_current() const {
    if (frames_.empty()) return "";
    const Frame& parent = frames_.back();
    return parent.value.is_object() ? child_path(parent.path, parent.last_key)
                                    : parent.path + "[" + std::to_string(parent.next_index) + "]";
  }
  bool add(nlohmann::json value) {
    if (frames_.empty()) {
      root_ = std::move(value);
      return true;
    }
    Frame& parent = frames_.back();
    if (parent.value.is_object()) {
      parent.value[parent.last_key] = std::move(value);
    } else if (parent.streamed) {
      on_element_(parent.next_index++, value);
    } else {
      parent.value.push_back(std::move(value));
      ++parent.next_index;
    }
    return true;
  }
  bool open(nlohmann::json value) {
    Frame frame;
    frame.streamed = !streamed_.empty() && value.is_array() && frames_.size() == 1 &&
                     frames_.back().value.is_object() && frames_.back().last_key == streamed_;
    frame.path = child_of_current();
    frame.value = std::move(value);
    frames_.push_back(std::move(frame));
    return true;
  }
  bool close() {
    nlohmann::json value = std::move(frames_.back().value);
    frames_.pop_back();
    return add(std::move(value));
  }

  const std::string& file_;
  std::string_view streamed_;
  const OnElement& on_element_;
  std::vector<Frame> frames_;
  nlohmann::json root_;
};

// Runs `parse`, turning nlohmann's errors into InputError with a line and column.
template <typename Parse>
nlohmann::json with_json_errors(std::string_view text, const std::string& file, Parse parse) {
  check_depth(text, file);
  try {
    return parse();
  } catch (const nlohmann::json::out_of_range& error) {
    // A number beyond a double ("1e400"): nlohmann names the literal, so find it for the position.
    const std::string what = error.what();
    const std::size_t quote = what.find('\'');
    const std::string literal =
        quote == std::string::npos ? "" : what.substr(quote + 1, what.find('\'', quote + 1) - quote - 1);
    const std::size_t at = literal.empty() ? std::string_view::npos : text.find(literal);
    throw InputError(file + (at == std::string_view::npos ? "" : ": " + line_and_column(text, at)) +
                     ": invalid JSON: the number " + literal + " is beyond the range of a double");
  } catch (const nlohmann::json::parse_error& error) {
    // Turn nlohmann's byte offset into a line and column a person can find.
    const std::size_t offset = std::min<std::size_t>(error.byte == 0 ? 0 : error.byte - 1, text.size());
    const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
    const std::size_t line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
    const std::size_t column = line_start == std::string_view::npos ? offset + 1 : offset - line_start;
    // nlohmann says "[json.exception.parse_error.101] parse error at line L, column C: REASON"; keep REASON.
    std::string reason = error.what();
    const std::size_t at_column = reason.find("column ");
    const std::size_t colon = reason.find(": ", at_column == std::string::npos ? 0 : at_column);
    if (colon != std::string::npos) reason = reason.substr(colon + 2);
    throw InputError(file + ": line " + std::to_string(line) + ", column " + std::to_string(column) +
                     ": invalid JSON: " + reason);
  }
}

}  // namespace

nlohmann::json parse_json_text(std::string_view text, const std::string& file) {
  return parse_json_streaming(text, file, "", [](std::size_t, const nlohmann::json&) {});
}

nlohmann::json parse_json_streaming(std::string_view text, const std::string& file, std::string_view streamed_key,
                                    const std::function<void(std::size_t, const nlohmann::json&)>& on_element) {
  return with_json_errors(text, file, [&] {
    StreamingDom dom(file, streamed_key, on_element);
    nlohmann::json::sax_parse(text, &dom);
    return dom.take();
  });
}

nlohmann::json read_json_file(const std::string& file) { return parse_json_text(read_input_file(file), file); }

}  // namespace vtsim
