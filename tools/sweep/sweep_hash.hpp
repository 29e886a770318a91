#pragma once
// Stable 64-bit hashes (FNV-1a) for sweep point ids and sweep fingerprints. Not cryptographic: they tell points and
// sweeps apart, they do not defend against forgery.

#include <cstdint>
#include <string>
#include <string_view>

namespace vtsim::tools {

/// Incremental FNV-1a 64-bit hash of a byte stream.
class Fnv1a64 {
 public:
  /// Adds the bytes of `text`.
  void add(std::string_view text);
  /// The hash so far as 16 lower-case hex digits.
  std::string hex() const;

 private:
  std::uint64_t state_ = 0xcbf29ce484222325ULL;  // FNV offset basis
};

}  // namespace vtsim::tools
