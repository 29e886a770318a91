#include "calibrate/collective_bandwidth.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>

#include "models/collectives/collective_model.hpp"

namespace vtsim::calibrate {

const std::vector<std::string>& collective_ops() {
  static const std::vector<std::string> kOps = {"all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast",
                                                "reduce",     "sendrecv",   "scatter",        "gather"};
  return kOps;
}

double bus_factor(std::string_view op, int ranks) {
  assert(ranks >= 1);
  // nccl-tests' scatter and gather move what allgather and reduce-scatter move: (n-1)/n of the buffer per rank.
  static const std::map<std::string_view, Collective> kCollectives = {
      {"all_reduce", Collective::allreduce}, {"all_gather", Collective::allgather},
      {"gather", Collective::allgather},     {"reduce_scatter", Collective::reduce_scatter},
      {"scatter", Collective::reduce_scatter}, {"alltoall", Collective::alltoall},
      {"broadcast", Collective::broadcast},  {"reduce", Collective::reduce},
      {"sendrecv", Collective::sendrecv}};
  const auto found = kCollectives.find(op);
  assert(found != kCollectives.end() && "unknown collective");
  return busbw_factor(found->second, ranks);
}

std::optional<std::string> collective_in_name(std::string_view name) {
  std::vector<std::string> ops = collective_ops();
  // "all_reduce" before "reduce", "all_gather" before "gather", "reduce_scatter" before "scatter".
  std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  for (const std::string& op : ops) {
    if (name.find(op) != std::string_view::npos) return op;
  }
  return std::nullopt;
}

std::optional<int> ranks_for_bus_factor(std::string_view op, double factor, double tolerance) {
  if (op == "broadcast" || op == "reduce" || op == "sendrecv") return std::nullopt;
  constexpr int kMaxRanks = 4096;
  std::optional<int> found;
  for (int ranks = 2; ranks <= kMaxRanks; ++ranks) {
    const double expected = bus_factor(op, ranks);
    if (std::abs(expected - factor) > tolerance * expected) continue;
    if (found) return std::nullopt;  // n and n+1 both fit: the factor tends to its limit as n grows
    found = ranks;
  }
  return found;
}

}  // namespace vtsim::calibrate
