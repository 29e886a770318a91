#include "calibrate/log_text.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "models/core/error.hpp"
#include "models/core/input_file.hpp"

namespace vtsim::calibrate {

LogText::LogText(std::string file, std::string_view text) : file_(std::move(file)) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines_.emplace_back(line);
    start = end + 1;
  }
}

void LogText::fail(std::size_t index, std::string_view message) const {
  throw InputError(file_ + ":" + std::to_string(index + 1) + ": " + std::string(message));
}

void LogText::fail(std::string_view message) const { throw InputError(file_ + ": " + std::string(message)); }

std::int64_t LogText::integer(std::size_t index, std::string_view token, std::string_view what, std::int64_t min,
                              std::int64_t max) const {
  std::int64_t value = 0;
  const auto [rest, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error != std::errc() || rest != token.data() + token.size() || value < min || value > max) {
    fail(index, std::string(what) + ": expected an integer >= " + std::to_string(min) + ", got '" +
                    std::string(token) + "'");
  }
  return value;
}

double LogText::number(std::size_t index, std::string_view token, std::string_view what, double min) const {
  // std::from_chars for double is in GCC 11+, but "1.2e+04" and "inf" need the same handling either way.
  double value = 0;
  const auto [rest, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error != std::errc() || rest != token.data() + token.size() || !std::isfinite(value) || value < min) {
    std::ostringstream bound;
    bound << min;
    fail(index, std::string(what) + ": expected a number >= " + bound.str() + ", got '" + std::string(token) + "'");
  }
  return value;
}

LogText read_log_file(const std::string& file) { return LogText(file, read_input_file(file)); }

std::vector<std::string_view> split_tokens(std::string_view line) {
  std::vector<std::string_view> tokens;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) tokens.push_back(line.substr(start, i - start));
  }
  return tokens;
}

std::size_t LineCursor::skip_spaces() {
  std::size_t skipped = 0;
  while (skipped < rest_.size() && std::isspace(static_cast<unsigned char>(rest_[skipped]))) ++skipped;
  rest_.remove_prefix(skipped);
  return skipped;
}

void LineCursor::skip_one_space() {
  if (!rest_.empty() && std::isspace(static_cast<unsigned char>(rest_.front()))) rest_.remove_prefix(1);
}

bool LineCursor::take(std::string_view word) {
  if (!rest_.starts_with(word)) return false;
  rest_.remove_prefix(word.size());
  return true;
}

std::string_view LineCursor::take_digits() {
  std::size_t n = 0;
  while (n < rest_.size() && std::isdigit(static_cast<unsigned char>(rest_[n]))) ++n;
  const std::string_view digits = rest_.substr(0, n);
  rest_.remove_prefix(n);
  return digits;
}

std::string_view LineCursor::take_token() {
  std::size_t n = 0;
  while (n < rest_.size() && !std::isspace(static_cast<unsigned char>(rest_[n]))) ++n;
  const std::string_view token = rest_.substr(0, n);
  rest_.remove_prefix(n);
  return token;
}

bool LineCursor::take_through(char end) {
  const std::size_t at = rest_.find(end);
  if (at == std::string_view::npos) return false;
  rest_.remove_prefix(at + 1);
  return true;
}

std::string strip_terminal_escapes(std::string_view line) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      i += 2;
      while (i < line.size() && !std::isalpha(static_cast<unsigned char>(line[i]))) ++i;
      continue;
    }
    out += line[i];
  }
  const std::size_t first = out.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  const std::size_t last = out.find_last_not_of(" \t");
  return out.substr(first, last - first + 1);
}

bool is_unsigned_integer(std::string_view token) {
  if (token.empty()) return false;
  for (char c : token) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace vtsim::calibrate
