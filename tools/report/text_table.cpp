#include "tools/report/text_table.hpp"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <iomanip>
#include <sstream>

#include "models/core/control_characters.hpp"

namespace vtsim::tools {
namespace {

// A number, signed or not ("12", "-3%", "+4.5%", ".5"), or "-" for none: right-aligned.
bool looks_numeric(const std::string& cell) {
  if (cell.empty()) return false;
  const bool signed_number =
      cell[0] == '+' && cell.size() > 1 && std::isdigit(static_cast<unsigned char>(cell[1])) != 0;
  return std::isdigit(static_cast<unsigned char>(cell[0])) != 0 || cell[0] == '-' || cell[0] == '.' || signed_number;
}

// Cells often hold names from input (jobs, variants, profile devices): a terminal must not act on their control
// characters, so they are kept escaped.
std::vector<std::string> printable_cells(std::vector<std::string> cells) {
  for (std::string& cell : cells) {
    if (has_control_character(cell)) cell = printable(cell);
  }
  return cells;
}

}  // namespace

TextTable::TextTable(std::vector<std::string> headers) : headers_(printable_cells(std::move(headers))) {}

void TextTable::add_row(std::vector<std::string> cells) {
  assert(cells.size() == headers_.size());
  rows_.push_back(printable_cells(std::move(cells)));
}

void TextTable::print(std::ostream& out) const {
  std::vector<std::size_t> widths(headers_.size());
  for (std::size_t c = 0; c < headers_.size(); ++c) {
    widths[c] = headers_[c].size();
    for (const auto& row : rows_) widths[c] = std::max(widths[c], row[c].size());
  }
  const auto print_row = [&](const std::vector<std::string>& row, bool align_numbers) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::size_t pad = widths[c] - row[c].size();
      const bool right = align_numbers && c > 0 && looks_numeric(row[c]);  // the first column holds labels
      if (c > 0) line += "  ";
      line += right ? std::string(pad, ' ') + row[c] : row[c] + (c + 1 < row.size() ? std::string(pad, ' ') : "");
    }
    out << line << '\n';
  };
  print_row(headers_, false);
  std::vector<std::string> rule;
  for (std::size_t width : widths) rule.emplace_back(width, '-');
  print_row(rule, false);
  for (const auto& row : rows_) print_row(row, true);
}

std::string format_number(double value, int digits) {
  std::ostringstream out;
  out << std::setprecision(digits) << value;
  return out.str();
}

std::string format_percent(double fraction) { return format_number(100.0 * fraction, 3) + "%"; }

}  // namespace vtsim::tools
