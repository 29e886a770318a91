#pragma once
// Fuzz targets: each feeds one input, as text, to one of vtsim's readers of user files. Bad input must end in an
// InputError (the one-line message vtsim prints); anything else (a crash, a sanitizer report, another exception, a
// hang) is a bug the fuzzer reports. Built two ways (fuzz/CMakeLists.txt): with clang and libFuzzer (VTSIM_FUZZ=ON)
// to search for such inputs, and always as replay programs that run the kept corpus (tests/fuzz/) under CTest.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vtsim::fuzz {

/// Runs `read` on `data` as text; swallows InputError, lets everything else through.
template <typename Reader>
int feed(const std::uint8_t* data, std::size_t size, Reader read);

}  // namespace vtsim::fuzz

#include "models/core/error.hpp"

template <typename Reader>
int vtsim::fuzz::feed(const std::uint8_t* data, std::size_t size, Reader read) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    read(text);
  } catch (const vtsim::InputError&) {
    // Refused with a message: what bad input should get.
  }
  return 0;
}
