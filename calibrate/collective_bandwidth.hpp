#pragma once
// nccl-tests' bandwidth conventions (NVIDIA/nccl-tests doc/PERFORMANCE.md and each test's GetBw):
//   algbw = S / t, S the operation's size in bytes (for all_gather / reduce_scatter, the whole array, n x per rank);
//   busbw = algbw x factor: all_reduce 2(n-1)/n; reduce_scatter, all_gather, alltoall, scatter, gather (n-1)/n;
//   broadcast, reduce, sendrecv 1.
// Bus bandwidth is what each rank's link carries, comparable to the hardware's peak whatever the rank count.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vtsim::calibrate {

/// The collective names vtsim knows, as nccl-tests names its binaries without "_perf" ("all_reduce", ...).
const std::vector<std::string>& collective_ops();

/// busbw / algbw for `op` over `ranks` ranks. REQUIRES: op is one of collective_ops(), ranks >= 1.
double bus_factor(std::string_view op, int ranks);

/// The collective a program or file name names ("all_reduce_perf", "logs/all_gather_perf.8gpu.log"), longest match
/// first; nullopt when none.
std::optional<std::string> collective_in_name(std::string_view name);

/// The one rank count from 2 to 4096 whose bus factor for `op` is within `tolerance` (relative) of `factor`; nullopt
/// when none or several are, or when the factor does not depend on the rank count (broadcast, reduce, sendrecv).
std::optional<int> ranks_for_bus_factor(std::string_view op, double factor, double tolerance = 0.002);

}  // namespace vtsim::calibrate
