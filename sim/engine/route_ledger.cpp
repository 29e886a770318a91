#include "sim/engine/route_ledger.hpp"

#include <algorithm>
#include <cassert>
#include <limits>
#include <string>

#include <xbt/config.hpp>

namespace vtsim::sim {

namespace sg4 = simgrid::s4u;

namespace {

/// Whether SimGrid runs the network model a lone flow's closed form is (sim/engine/engine_setup.cpp): CM02 without
/// cross-traffic (with it a flow also loads its route's reverse links, which the ledger does not count).
bool lone_flow_is_closed_form() {
  return simgrid::config::get_value<std::string>("network/model") == "CM02" &&
         !simgrid::config::get_value<bool>("network/crosstraffic");
}

}  // namespace

RouteLedger::RouteId RouteLedger::add_user(const sg4::Host* source, const sg4::Host* destination) {
  assert(open_ && "routes are counted before the ledger is first asked");
  std::vector<sg4::Link*> links;
  CountedRoute route;
  source->route_to(destination, links, &route.latency_s);
  // A link the route lists k times is one user, loaded k times by each of its flows.
  for (const sg4::Link* link : links) {
    const auto listed = std::find_if(route.links.begin(), route.links.end(),
                                     [link](const CountedLink& counted) { return counted.link == link; });
    if (listed != route.links.end()) {
      ++listed->times;
      continue;
    }
    route.links.push_back({link, 1});
    int& users = users_[link];
    if (users < kVarying) ++users;
  }
  routes_.push_back(std::move(route));
  return routes_.size() - 1;
}

void RouteLedger::add_varying(const sg4::Link* link) {
  assert(open_ && "links are counted before the ledger is first asked");
  users_[link] = kVarying;
}

void RouteLedger::disable() {
  assert(open_ && "the ledger is switched off before it is first asked");
  enabled_ = false;
}

std::optional<RouteLedger::AloneRoute> RouteLedger::alone(RouteId id) {
  if (open_) {
    open_ = false;
    enabled_ = enabled_ && lone_flow_is_closed_form();
  }
  if (!enabled_) return std::nullopt;
  const CountedRoute& counted = routes_.at(id);
  if (counted.links.empty()) return std::nullopt;  // no link: nothing the closed form could be taken from
  AloneRoute route{.latency_s = counted.latency_s, .bandwidth_Bps = std::numeric_limits<double>::infinity()};
  for (const CountedLink& counted_link : counted.links) {
    if (users_.at(counted_link.link) != 1) return std::nullopt;
    // Max-min loads a shared link a flow's route lists k times with k times its rate (docs/simgrid-notes.md); a fat
    // pipe takes the largest of its flows' rates, not their sum.
    if (counted_link.times > 1 && counted_link.link->get_sharing_policy() != sg4::Link::SharingPolicy::SHARED) {
      return std::nullopt;
    }
    route.bandwidth_Bps = std::min(route.bandwidth_Bps, counted_link.link->get_bandwidth() / counted_link.times);
  }
  return route;
}

}  // namespace vtsim::sim
