#pragma once
// Splitting a sweep into N disjoint shards for Slurm array tasks: shard i holds the points whose index % N == i.

#include <cstddef>
#include <string>

namespace vtsim::tools {

/// Shard `index` of `count`; the default {0, 1} is the whole sweep.
struct Shard {
  std::size_t index = 0;
  std::size_t count = 1;

  /// Whether the point at `point_index` belongs to this shard.
  bool contains(std::size_t point_index) const { return point_index % count == index; }
  /// "i/N".
  std::string to_string() const { return std::to_string(index) + "/" + std::to_string(count); }
};

/// Parses "i/N" (0 <= i < N). Throws InputError naming `option` on anything else.
Shard parse_shard(const std::string& text, const std::string& option = "--shard");

}  // namespace vtsim::tools
