#include "tools/sweep/sweep_derived.hpp"

#include <cctype>
#include <cmath>
#include <cstdint>

#include "models/core/error.hpp"
#include "models/core/json_reader.hpp"

namespace vtsim::tools {
namespace {

bool is_path_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.' || c == '[' || c == ']';
}

// The value at `steps` in `document`, or nullptr when absent.
const nlohmann::json* find_path(const nlohmann::json& document, const std::vector<PathStep>& steps) {
  const nlohmann::json* node = &document;
  for (const PathStep& step : steps) {
    if (const auto* key = std::get_if<std::string>(&step)) {
      if (!node->is_object() || !node->contains(*key)) return nullptr;
      node = &(*node)[*key];
    } else {
      const std::size_t index = std::get<std::size_t>(step);
      if (!node->is_array() || index >= node->size()) return nullptr;
      node = &(*node)[index];
    }
  }
  return node;
}

}  // namespace

DerivedExpression DerivedExpression::parse(const std::string& text, const std::string& what) {
  DerivedExpression expression;
  expression.terms_.emplace_back();
  std::size_t i = 0;
  bool expect_factor = true;
  const auto fail = [&](const std::string& why) {
    throw InputError(what + ": " + why + " at character " + std::to_string(i + 1) + " of \"" + text +
                     "\"; allowed: numbers and paths joined by * and +");
  };
  while (true) {
    while (i < text.size() && text[i] == ' ') ++i;
    if (i == text.size()) break;
    const char c = text[i];
    if (!expect_factor) {
      if (c == '*') {
        ++i;
      } else if (c == '+') {
        expression.terms_.emplace_back();
        ++i;
      } else {
        fail("expected * or +");
      }
      expect_factor = true;
      continue;
    }
    Factor factor;
    std::size_t end = i;
    if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
      while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) != 0 || text[end] == '.')) ++end;
      const nlohmann::json number = nlohmann::json::parse(text.substr(i, end - i), nullptr, false);
      if (number.is_discarded() || !number.is_number()) fail("malformed number");
      factor.number = number;
    } else if (is_path_char(c)) {
      while (end < text.size() && is_path_char(text[end])) ++end;
      factor.path = text.substr(i, end - i);
      try {
        factor.steps = parse_override_path(factor.path);
      } catch (const InputError&) {
        fail("malformed path '" + factor.path + "'");
      }
    } else {
      fail(std::string("unexpected '") + c + "'");
    }
    expression.terms_.back().push_back(std::move(factor));
    i = end;
    expect_factor = false;
  }
  if (expect_factor) fail(expression.terms_.size() == 1 && expression.terms_[0].empty() ? "empty expression"
                                                                                       : "expression ends with an operator");
  return expression;
}

nlohmann::json DerivedExpression::evaluate(const nlohmann::json& scenario, const std::string& what) const {
  bool integral = true;
  std::int64_t int_sum = 0;
  double sum = 0;
  for (const std::vector<Factor>& term : terms_) {
    std::int64_t int_product = 1;
    double product = 1;
    for (const Factor& factor : term) {
      const nlohmann::json* value = &factor.number;
      if (!factor.path.empty()) {
        value = find_path(scenario, factor.steps);
        if (value == nullptr) {
          throw InputError(what + ": " + factor.path + " is not in the scenario; set it in the sweep's \"set\"");
        }
        if (!value->is_number()) {
          throw InputError(what + ": " + factor.path + " is not a number (got " + describe_json(*value) + ")");
        }
      }
      product *= value->get<double>();
      if (value->is_number_integer()) {
        if (__builtin_mul_overflow(int_product, value->get<std::int64_t>(), &int_product)) integral = false;
      } else {
        integral = false;
      }
    }
    sum += product;
    if (integral && __builtin_add_overflow(int_sum, int_product, &int_sum)) integral = false;
  }
  if (integral) return int_sum;
  if (!std::isfinite(sum)) throw InputError(what + ": the result is not a finite number");
  return sum;
}

std::vector<std::string> DerivedExpression::paths() const {
  std::vector<std::string> paths;
  for (const std::vector<Factor>& term : terms_) {
    for (const Factor& factor : term) {
      if (!factor.path.empty()) paths.push_back(factor.path);
    }
  }
  return paths;
}

}  // namespace vtsim::tools
