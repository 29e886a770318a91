#include "tools/sweep/sweep_hash.hpp"

namespace vtsim::tools {

void Fnv1a64::add(std::string_view text) {
  constexpr std::uint64_t kPrime = 0x100000001b3ULL;  // FNV 64-bit prime
  for (const char c : text) {
    state_ ^= static_cast<unsigned char>(c);
    state_ *= kPrime;
  }
}

std::string Fnv1a64::hex() const {
  constexpr char kDigits[] = "0123456789abcdef";
  std::string text(16, '0');
  std::uint64_t value = state_;
  for (std::size_t i = 16; i-- > 0;) {
    text[i] = kDigits[value & 0xfU];
    value >>= 4;
  }
  return text;
}

}  // namespace vtsim::tools
