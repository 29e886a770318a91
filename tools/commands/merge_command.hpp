#pragma once
// `vtsim merge DIR... --out DIR`: joins the output folders of a sweep's shards (or of any runs of the same sweep)
// into one folder, as if the whole sweep had run there, and reports points missing or present more than once.

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace vtsim::tools {

/// What merging found.
struct MergeReport {
  std::size_t points = 0;                ///< points in the sweep
  std::size_t merged = 0;                ///< points with a record, written to the output
  std::vector<std::size_t> missing;      ///< points no input holds
  std::vector<std::size_t> duplicated;   ///< points more than one input holds (the first input's record is kept)
  std::vector<std::size_t> conflicting;  ///< of the duplicated, those whose records differ
};

/// Merges the sweep folders `inputs` into `out_dir` (created, or a former merge of the same sweep, whose records
/// stay for the points no input holds) and prints the report. Throws InputError when the inputs are not folders of one sweep, and, after writing the output,
/// when points are missing (rerunning the sweep into `out_dir` runs just those).
MergeReport merge_command(const std::vector<std::string>& inputs, const std::string& out_dir, std::ostream& out);

}  // namespace vtsim::tools
