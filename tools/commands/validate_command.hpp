#pragma once
// vtsim validate: the compute model's fit with leave-one-out errors, and the validation table's rows simulated.

#include <ostream>
#include <string>

namespace vtsim::tools {

/// The validation table vtsim ships, relative to the repository's root (or the installed share folder).
inline constexpr const char* kShippedValidationTable = "scenarios/validation/table.json";

/// What `vtsim validate` was asked for.
struct ValidateRequest {
  /// The validation table; empty: the shipped one (kShippedValidationTable, wherever find_shipped_file() finds it).
  std::string table_file;
  bool json = false;   ///< print JSON instead of tables
  bool check = false;  ///< fail when a mean |error| is above the table's record or the refit is not the committed fit
  /// Non-empty: only refit the compute model to the published rows and write its constants here.
  std::string write_fit_file;
};

/// Prints the fitting rows (in-sample and leave-one-out errors) and the validation rows with their summaries.
/// Returns 1 (the command then exits 4) when `check` is set and the validation rows' or the leave-one-out mean |error|
/// is above the table's record or the fit of the published rows is not the committed one
/// (models/compute/compute_fit.json), else 0. With `write_fit_file`, only fits and writes.
int validate_command(const ValidateRequest& request, std::ostream& out);

}  // namespace vtsim::tools
