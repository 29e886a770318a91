#include "sim/engine/route_ledger.hpp"

#include <algorithm>
#include <limits>
#include <vector>

namespace vtsim::sim {

namespace sg4 = simgrid::s4u;

void RouteLedger::add_user(const sg4::Host* source, const sg4::Host* destination) {
  std::vector<sg4::Link*> links;
  double latency_s = 0;
  source->route_to(destination, links, &latency_s);
  for (const sg4::Link* link : links) {
    int& users = users_[link];
    if (users < kVarying) ++users;
  }
}

void RouteLedger::add_varying(const sg4::Link* link) { users_[link] = kVarying; }

std::optional<RouteLedger::AloneRoute> RouteLedger::alone(const sg4::Host* source, const sg4::Host* destination) const {
  if (!enabled_) return std::nullopt;
  std::vector<sg4::Link*> links;
  AloneRoute route;
  source->route_to(destination, links, &route.latency_s);
  // A host's route to itself (a ring of one) has no link: it is left to SimGrid, as it never carries a transfer.
  if (links.empty()) return std::nullopt;
  route.bandwidth_Bps = std::numeric_limits<double>::infinity();
  for (const sg4::Link* link : links) {
    const auto found = users_.find(link);
    if (found == users_.end() || found->second != 1) return std::nullopt;
    route.bandwidth_Bps = std::min(route.bandwidth_Bps, link->get_bandwidth());
  }
  return route;
}

}  // namespace vtsim::sim
