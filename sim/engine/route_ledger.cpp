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
  for (const sg4::Link* link : links) {
    int& users = users_[link];
    if (users < kVarying) ++users;
    route.links.push_back(link);
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
  for (const sg4::Link* link : counted.links) {
    if (users_.at(link) != 1) return std::nullopt;
    route.bandwidth_Bps = std::min(route.bandwidth_Bps, link->get_bandwidth());
  }
  return route;
}

}  // namespace vtsim::sim
