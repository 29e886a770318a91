#pragma once
// Derived fields of a sweep point: a value computed from the point's other values, e.g. a job that takes every GPU
// of a swept cluster: {"jobs[0].gpus": "cluster.racks * cluster.hosts_per_rack * cluster.host.gpus"}.
//
// Grammar, and nothing more: expression = term {"+" term}; term = factor {"*" factor}; factor = number | path.
// A number is a non-negative decimal literal (8, 0.5); a path is an override path (cluster.host.gpus, jobs[0].gpus).
// `*` binds tighter than `+`; no parentheses, subtraction or division. A path is read from the point's scenario JSON
// after the sweep's "set" and the point's swept values: it must hold a number there (defaults are not filled in).
// The result is an integer when every operand is one, else a number.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/scenario/overrides.hpp"

namespace vtsim::tools {

/// A parsed derived expression: a sum of products of numbers and paths.
class DerivedExpression {
 public:
  /// Parses `text`. Throws InputError "what: ..." naming the position of a syntax error.
  static DerivedExpression parse(const std::string& text, const std::string& what);

  /// The value for `scenario`. Throws InputError "what: PATH ..." when a path is absent or not a number, or an
  /// integer result overflows.
  nlohmann::json evaluate(const nlohmann::json& scenario, const std::string& what) const;

  /// Every path the expression reads, in order of appearance.
  std::vector<std::string> paths() const;

 private:
  struct Factor {
    nlohmann::json number;        ///< the literal, when `path` is empty
    std::string path;
    std::vector<PathStep> steps;  ///< parsed `path`
  };
  std::vector<std::vector<Factor>> terms_;  // a sum of products
};

}  // namespace vtsim::tools
