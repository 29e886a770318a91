#pragma once
// Which transfers can meet no other on their route, decided before a simulation runs.
//
// A transfer that is the only one on every link of its route, from its start to its end, takes its route's latency
// plus its bytes at the least bandwidth on the route, a link the route lists k times giving 1/k of its own (or its own
// rate cap, if lower): that is what SimGrid's max-min gives a flow alone (CM02, no cross-traffic, TCP gamma out of
// reach: sim/engine/engine_setup.cpp). Such a transfer need not be a SimGrid communication: the collectives compute its
// end instead (sim/collectives/collective.hpp), which spares the simulation its simcalls, its max-min variable and its
// completion (docs/scale.md, "Transfers alone on their route").
//
// The ledger counts, for each link, the routes that any flow of the simulation can take through it: every ring edge
// of every collective (RingGroup), every pipeline transfer's route and every vMotion pre-copy's. A link whose
// bandwidth changes while flows cross it (a GPU's memory, re-rated as kernels run) is never alone. A ring edge carries
// one transfer at a time (its sender and its receiver both take part in each), so an edge whose route's links have no
// other user is alone whenever it carries one. The count must be whole before the first question: the ledger closes
// at the first one (alone()) and refuses to count after it. A network model other than vtsim's (CM02 without
// cross-traffic, which loads the reverse links too) would share links the ledger does not see: then no route is
// alone.

#include <cstddef>
#include <optional>
#include <unordered_map>
#include <vector>

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

namespace vtsim::sim {

class RouteLedger {
 public:
  /// What a transfer alone on a route pays: its latency, and the least bandwidth of its links (a link listed k times
  /// giving 1/k of its own).
  struct AloneRoute {
    double latency_s = 0;
    double bandwidth_Bps = 0;
  };

  /// A route counted with add_user.
  using RouteId = std::size_t;

  /// Counts one user of every link of the route from `source` to `destination` (a link the route lists k times is
  /// one user, whose flows load it k times: a class of flows, Platform::carry_class).
  /// REQUIRES: the ledger is open (no alone() asked yet).
  RouteId add_user(const simgrid::s4u::Host* source, const simgrid::s4u::Host* destination);
  /// `link`'s bandwidth changes while flows cross it: no route through it is alone. REQUIRES: the ledger is open.
  void add_varying(const simgrid::s4u::Link* link);
  /// Stops every route from being alone: each transfer is then a SimGrid communication (simulation.reduce_flows false).
  /// REQUIRES: the ledger is open.
  void disable();

  /// The counted route `route`'s latency and least bandwidth (a link it lists k times giving 1/k of its bandwidth)
  /// when it is the only user of each of its links and none of them varies; nullopt otherwise, and always once
  /// disabled, or when it lists a link that is not shared (a fat pipe) more than once. Closes the ledger. REQUIRES:
  /// every route that a flow of the simulation can take has been counted.
  std::optional<AloneRoute> alone(RouteId route);

  /// Counts one transfer computed in closed form, as it starts (SimulationResult::transfers_alone).
  void count_transfer() { ++transfers_; }
  /// The transfers computed in closed form so far.
  long transfers() const { return transfers_; }

 private:
  static constexpr int kVarying = 1 << 30;  ///< the users counted for a link whose bandwidth varies
  struct CountedLink {
    const simgrid::s4u::Link* link = nullptr;
    int times = 1;  ///< how many times the route lists it
  };
  struct CountedRoute {
    std::vector<CountedLink> links;
    double latency_s = 0;
  };
  std::vector<CountedRoute> routes_;
  std::unordered_map<const simgrid::s4u::Link*, int> users_;
  bool enabled_ = true;
  bool open_ = true;
  long transfers_ = 0;
};

}  // namespace vtsim::sim
