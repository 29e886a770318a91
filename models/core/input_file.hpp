#pragma once
// Reading a whole input file (scenario, sweep, profile, tool log, results CSV) the one way every reader does: only a
// regular file, and only up to a size no real input reaches, so /dev/zero, a FIFO or a runaway file is one clear error
// instead of unbounded memory.

#include <cstddef>
#include <string>

namespace vtsim {

/// Largest input file vtsim reads: 64 MiB (the largest real inputs, sweep results and tool logs, are a few MiB).
inline constexpr std::size_t kMaxInputFileBytes = 64u * 1024u * 1024u;

/// Largest profiled trace vtsim reads, after decompression: 2 GiB (a PyTorch profiler trace of a large model's
/// iteration runs to hundreds of MiB).
inline constexpr std::size_t kMaxTraceBytes = 2048u * 1024u * 1024u - 1;

/// The contents of `file`. Throws InputError "FILE: cannot open file", "FILE: not a regular file (a device, FIFO or
/// folder)" or "FILE: larger than N MiB: not an input vtsim reads" (N = max_bytes, by default 64 MiB).
std::string read_input_file(const std::string& file, std::size_t max_bytes = kMaxInputFileBytes);

}  // namespace vtsim
