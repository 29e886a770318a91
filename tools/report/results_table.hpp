#pragma once
// A sweep's results.csv read back (for plots): its columns, its rows, and which columns are the swept parameters
// (those between `id` and the first figure column, `job` or `jobs`; see sweep_csv.hpp).

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace vtsim::tools {

/// The rows of a results.csv.
class ResultsTable {
 public:
  /// Reads `file`. Throws InputError when it is not a sweep's results.csv.
  static ResultsTable read(const std::string& file);

  /// The file it was read from.
  const std::string& file() const { return file_; }
  /// The parameter columns (swept, then derived).
  const std::vector<std::string>& parameters() const { return parameters_; }
  /// The index of column `name`, if there is one.
  std::optional<std::size_t> column(const std::string& name) const;
  /// The rows of points that did not fail, in file order.
  const std::vector<std::vector<std::string>>& ok_rows() const { return ok_rows_; }
  /// The parameter columns that take more than one value over the ok rows, less those that map one-to-one to an
  /// earlier one (a zipped batch size next to its workload): the columns that tell the points apart.
  std::vector<std::string> varying_parameters() const;
  /// Whether columns `a` and `b` determine each other over the ok rows.
  bool one_to_one(const std::string& a, const std::string& b) const;
  /// "name=value, ..." over `columns` (named by their last path component) for `row`, control characters escaped.
  std::string label(const std::vector<std::string>& row, const std::vector<std::string>& columns) const;
  /// Field `name` of `row`, "" when there is no such column.
  const std::string& field(const std::vector<std::string>& row, const std::string& name) const;

 private:
  std::string file_;
  std::vector<std::string> header_;
  std::vector<std::string> parameters_;
  std::vector<std::vector<std::string>> ok_rows_;
};

/// The last component of an override path: "enabled" for "cluster.host.nvlink.enabled", "gpus" for "jobs[0].gpus".
std::string short_column_name(const std::string& path);

}  // namespace vtsim::tools
