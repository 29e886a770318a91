#include "models/network/flow_analysis.hpp"

#include <algorithm>
#include <limits>
#include <map>

namespace vtsim {

FlowBottleneck concurrent_bottleneck(const Topology& topology, const std::vector<GpuFlow>& flows) {
  std::vector<std::vector<Hop>> routes;
  routes.reserve(flows.size());
  std::map<std::pair<int, bool>, int> crossing;  // (link, direction) -> number of flows
  for (const GpuFlow& flow : flows) {
    routes.push_back(topology.route(flow.src, flow.dst, flow.flow));
    for (const Hop& hop : routes.back()) ++crossing[{hop.link, hop.forward}];
  }
  FlowBottleneck result;
  result.rate_Bps = flows.empty() ? 0.0 : std::numeric_limits<double>::infinity();
  for (const std::vector<Hop>& route : routes) {
    for (const Hop& hop : route) {
      const double share =
          topology.links()[static_cast<std::size_t>(hop.link)].bandwidth_Bps / crossing[{hop.link, hop.forward}];
      result.rate_Bps = std::min(result.rate_Bps, share);
    }
    result.latency_s = std::max(result.latency_s, topology.latency_s(route));
  }
  return result;
}

std::vector<GpuFlow> ring_flows(const std::vector<int>& ring, int flow) {
  std::vector<GpuFlow> flows;
  if (ring.size() < 2) return flows;
  for (std::size_t i = 0; i < ring.size(); ++i) flows.push_back({ring[i], ring[(i + 1) % ring.size()], flow});
  return flows;
}

}  // namespace vtsim
