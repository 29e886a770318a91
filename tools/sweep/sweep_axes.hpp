#pragma once
// The "axes" of a sweep file: blocks of grid (cartesian), zip (walked together) or explicit points, combined as a
// cartesian product across blocks, the first block varying slowest.

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/core/json_reader.hpp"

namespace vtsim::tools {

/// The most points one sweep may have (each point holds its values in memory), and so one block too. 10^7 took 108 s
/// and 3.2 GB to `--list` (issue 31); a sweep runs a few points a second on a 2-core machine, so a million points are
/// already days of Slurm time: more is split into several sweeps.
inline constexpr std::size_t kMaxSweepPoints = 1'000'000;

}  // namespace vtsim::tools

namespace vtsim::tools {

/// One block of axes, expanded: `rows[r][c]` is the value of `paths[c]` in the block's r-th combination.
struct AxisBlock {
  std::vector<std::string> paths;
  std::vector<std::string> json_paths;  ///< where each path was written, for error messages
  std::vector<std::vector<nlohmann::json>> rows;
};

/// Reads one element of "axes": {"grid": {...}}, {"zip": {...}} or {"points": [...]}. `ordered` is the same element
/// parsed with its keys in file order (nlohmann::json sorts them), which fixes the order of paths and combinations.
/// Throws InputError naming the file and JSON path.
AxisBlock read_axis_block(const JsonValue& value, const nlohmann::ordered_json& ordered);

/// The number of points the blocks make (the product of their row counts), or 0 when it exceeds `limit`.
std::size_t combined_size(const std::vector<AxisBlock>& blocks, std::size_t limit);

/// The values of combination `index` of the blocks' cartesian product (first block slowest), one per path, in
/// block order. REQUIRES: index < combined_size(blocks, ...).
std::vector<nlohmann::json> combination(const std::vector<AxisBlock>& blocks, std::size_t index);

}  // namespace vtsim::tools
