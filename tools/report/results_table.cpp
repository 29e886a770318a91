#include "tools/report/results_table.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "models/core/control_characters.hpp"
#include "models/core/csv.hpp"
#include "models/core/error.hpp"
#include "models/core/input_file.hpp"

namespace vtsim::tools {

std::string short_column_name(const std::string& path) {
  const std::size_t dot = path.find_last_of('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

ResultsTable ResultsTable::read(const std::string& file) {
  std::vector<std::vector<std::string>> rows = parse_csv(read_input_file(file), file);
  if (rows.empty() || rows[0].size() < 3 || rows[0][0] != "point" || rows[0][1] != "id" || rows[0].back() != "error") {
    throw InputError(file + ": not a sweep's results.csv (expected the columns point, id, ..., error)");
  }
  ResultsTable table;
  table.file_ = file;
  table.header_ = rows[0];
  std::size_t first_figure = 2;
  while (first_figure < table.header_.size() && table.header_[first_figure] != "job" &&
         table.header_[first_figure] != "jobs" && table.header_[first_figure] != "error") {
    ++first_figure;
  }
  table.parameters_.assign(table.header_.begin() + 2, table.header_.begin() + static_cast<std::ptrdiff_t>(first_figure));
  for (std::size_t r = 1; r < rows.size(); ++r) {
    if (rows[r].size() != table.header_.size()) {
      throw InputError(file + ": row " + std::to_string(r + 1) + " has " + std::to_string(rows[r].size()) +
                       " fields, the header " + std::to_string(table.header_.size()));
    }
    if (rows[r].back().empty()) table.ok_rows_.push_back(std::move(rows[r]));
  }
  return table;
}

std::optional<std::size_t> ResultsTable::column(const std::string& name) const {
  const auto it = std::find(header_.begin(), header_.end(), name);
  if (it == header_.end()) return std::nullopt;
  return static_cast<std::size_t>(it - header_.begin());
}

std::vector<std::string> ResultsTable::varying_parameters() const {
  std::vector<std::string> varying;
  for (const std::string& parameter : parameters_) {
    std::set<std::string> values;
    for (const auto& row : ok_rows_) values.insert(field(row, parameter));
    if (values.size() < 2) continue;
    const bool redundant = std::any_of(varying.begin(), varying.end(),
                                       [&](const std::string& kept) { return one_to_one(kept, parameter); });
    if (!redundant) varying.push_back(parameter);
  }
  return varying;
}

bool ResultsTable::one_to_one(const std::string& a, const std::string& b) const {
  std::map<std::string, std::set<std::string>> b_of_a;
  std::map<std::string, std::set<std::string>> a_of_b;
  for (const auto& row : ok_rows_) {
    b_of_a[field(row, a)].insert(field(row, b));
    a_of_b[field(row, b)].insert(field(row, a));
  }
  const auto single = [](const auto& map) {
    return std::all_of(map.begin(), map.end(), [](const auto& entry) { return entry.second.size() == 1; });
  };
  return single(b_of_a) && single(a_of_b);
}

std::string ResultsTable::label(const std::vector<std::string>& row, const std::vector<std::string>& columns) const {
  std::string text;
  for (const std::string& name : columns) {
    if (!text.empty()) text += ", ";
    const std::string& value = field(row, name);
    text += short_column_name(name) + "=" + (value.empty() ? "-" : value);
  }
  return printable(text);
}

const std::string& ResultsTable::field(const std::vector<std::string>& row, const std::string& name) const {
  static const std::string kEmpty;
  const std::optional<std::size_t> index = column(name);
  return index ? row[*index] : kEmpty;
}

}  // namespace vtsim::tools
