#include "models/core/nearest_name.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace vtsim {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment distance (Damerau-Levenshtein restricted to non-overlapping swaps), case-insensitive.
  const auto same = [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  };
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = same(a[i - 1], b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1])) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::optional<std::string> nearest_name(std::string_view name, std::span<const std::string> candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = edit_distance(name, candidate);
    const std::size_t allowed = std::max<std::size_t>(2, std::max(name.size(), candidate.size()) / 3);
    // A truncated name ("a100-40gb" for "a100-40gb-sxm4") is plausible however much is missing.
    const bool truncated = name.size() >= 3 && candidate.size() > name.size() &&
                           edit_distance(name, std::string_view(candidate).substr(0, name.size())) == 0;
    if ((distance <= allowed || truncated) && (!best || distance < best_distance)) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view name, std::span<const std::string> candidates) {
  const std::optional<std::string> near = nearest_name(name, candidates);
  return near ? "; did you mean '" + *near + "'?" : std::string();
}

}  // namespace vtsim
