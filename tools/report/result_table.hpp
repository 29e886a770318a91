#pragma once
// The terminal table of `vtsim run`: one column per variant, drawn from the result JSON so that table and JSON agree.

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vtsim::tools {

/// One column: a label and the result JSON (sim::to_json) it shows.
struct Variant {
  std::string label;
  nlohmann::json result;
};

/// Prints the jobs' figures, the link classes and the uncalibrated defaults. REQUIRES: every variant has the same jobs.
void print_result_table(std::ostream& out, const std::vector<Variant>& variants);

}  // namespace vtsim::tools
