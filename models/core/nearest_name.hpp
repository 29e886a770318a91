#pragma once
// "Did you mean ...?" for misspelt keys and catalog names.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace vtsim {

/// Edit distance between a and b counting insertions, deletions, substitutions and swaps of adjacent characters.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `name`, if it is close enough to be a plausible misspelling (at most a third of the
/// longer word's characters differ, and at least two; or `name` is the start of the candidate), else nullopt. Ties go
/// to the earliest candidate.
std::optional<std::string> nearest_name(std::string_view name, std::span<const std::string> candidates);

/// "; did you mean 'x'?" when a near candidate exists, else "".
std::string did_you_mean(std::string_view name, std::span<const std::string> candidates);

}  // namespace vtsim
