#pragma once
// Plain-text tables for the terminal: a header row, aligned columns, numbers right-aligned. Control characters in
// cells are shown escaped (models/core/control_characters.hpp).

#include <ostream>
#include <string>
#include <vector>

namespace vtsim::tools {

/// A table built row by row and printed with columns padded to their widest cell.
class TextTable {
 public:
  /// Starts a table with these column headers.
  explicit TextTable(std::vector<std::string> headers);
  /// Adds one row; it must have as many cells as there are headers.
  void add_row(std::vector<std::string> cells);
  /// Prints the header, a rule and the rows.
  void print(std::ostream& out) const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

/// `value` with `digits` significant digits, without trailing zeros ("156", "1.555", "0.25").
std::string format_number(double value, int digits = 4);

/// `fraction` as a percentage with three significant digits ("74.4%").
std::string format_percent(double fraction);

}  // namespace vtsim::tools
