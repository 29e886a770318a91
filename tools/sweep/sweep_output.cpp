#include "tools/sweep/sweep_output.hpp"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "models/core/atomic_file.hpp"
#include "models/core/csv.hpp"
#include "tools/sweep/sweep_csv.hpp"

namespace vtsim::tools {

SweepOutputSummary write_sweep_outputs(const std::string& dir, const std::vector<std::string>& columns,
                                       const std::vector<std::size_t>& points, const RecordSource& record_of) {
  const std::filesystem::path folder(dir);
  // First pass: the layout needs every record (the most jobs, every breakdown entry); the JSONL is written meanwhile.
  SweepCsvLayout layout(columns);
  SweepOutputSummary summary;
  AtomicOutput jsonl((folder / "results.jsonl").string());
  for (const std::size_t point : points) {
    const std::string line = record_of(point);
    if (line.empty()) continue;
    const nlohmann::json record = nlohmann::json::parse(line);
    layout.add(record);
    jsonl.write(line + "\n");
    ++summary.rows;
    if (record.contains("error")) {
      if (summary.failed == 0) summary.first_error = record["error"].get<std::string>();
      ++summary.failed;
    }
  }
  AtomicOutput csv((folder / "results.csv").string());
  csv.write(csv_line(layout.header()));
  for (const std::size_t point : points) {
    const std::string line = record_of(point);
    if (!line.empty()) csv.write(csv_line(layout.row(nlohmann::json::parse(line))));
  }
  jsonl.commit();
  csv.commit();
  return summary;
}

}  // namespace vtsim::tools
