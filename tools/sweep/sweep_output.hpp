#pragma once
// A sweep folder's outputs, regenerated from its records: DIR/results.jsonl (each point's record, in point order)
// and DIR/results.csv (sweep_csv.hpp), both written through a temporary file and renamed into place.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace vtsim::tools {

/// Gives the record line of a point, or "" when it has none.
using RecordSource = std::function<std::string(std::size_t point)>;

/// What writing the outputs found.
struct SweepOutputSummary {
  std::size_t rows = 0;         ///< points written
  std::size_t failed = 0;       ///< of which failed
  std::string first_error;      ///< the first failed point's error
};

/// Writes DIR/results.jsonl and DIR/results.csv for `points` (in that order), skipping points without a record.
/// `columns` are the sweep's parameter columns. Throws std::runtime_error on an I/O failure.
SweepOutputSummary write_sweep_outputs(const std::string& dir, const std::vector<std::string>& columns,
                                       const std::vector<std::size_t>& points, const RecordSource& record_of);

}  // namespace vtsim::tools
