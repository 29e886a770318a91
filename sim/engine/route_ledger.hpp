#pragma once
// Which transfers can meet no other on their route, decided before a simulation runs.
//
// A transfer that is the only one on every link of its route, from its start to its end, takes its route's latency
// plus its bytes at the least bandwidth on the route (or its own rate cap, if lower): that is what SimGrid's max-min
// gives a flow alone (CM02, no cross-traffic, TCP gamma out of reach: sim/engine/engine_setup.cpp). Such a transfer
// need not be a SimGrid communication: the collectives compute its end instead (sim/collectives/collective.hpp), which
// spares the simulation its simcalls, its max-min variable and its completion (docs/scale.md, "Transfers alone on
// their route").
//
// The ledger counts, for each link, the routes that any flow of the simulation can take through it: every ring edge
// of every collective (RingGroup), every pipeline transfer's route and every vMotion pre-copy's. A link whose
// bandwidth changes while flows cross it (a GPU's memory, re-rated as kernels run) is never alone. A ring edge carries
// one transfer at a time (its sender and its receiver both take part in each), so an edge whose route's links have no
// other user is alone whenever it carries one.

#include <optional>
#include <unordered_map>

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

namespace vtsim::sim {

class RouteLedger {
 public:
  /// What a transfer alone on a route pays: its latency, and the least bandwidth of its links.
  struct AloneRoute {
    double latency_s = 0;
    double bandwidth_Bps = 0;
  };

  /// Counts one user of every link of the route from `source` to `destination`. REQUIRES: before the engine runs.
  void add_user(const simgrid::s4u::Host* source, const simgrid::s4u::Host* destination);
  /// `link`'s bandwidth changes while flows cross it: no route through it is alone.
  void add_varying(const simgrid::s4u::Link* link);
  /// Stops every route from being alone: each transfer is then a SimGrid communication (simulation.reduce_flows false).
  void disable() { enabled_ = false; }

  /// For a route counted once with add_user: its latency and least bandwidth when it is the only user of each of its
  /// links and none of them varies; nullopt otherwise, and always once disabled. REQUIRES: every route that a flow of
  /// the simulation can take has been counted (the engine runs).
  std::optional<AloneRoute> alone(const simgrid::s4u::Host* source, const simgrid::s4u::Host* destination) const;

  /// Counts one transfer computed in closed form (SimulationResult::transfers_alone).
  void count_transfer() { ++transfers_; }
  /// The transfers computed in closed form so far.
  long transfers() const { return transfers_; }

 private:
  static constexpr int kVarying = 1 << 30;  ///< the users counted for a link whose bandwidth varies
  std::unordered_map<const simgrid::s4u::Link*, int> users_;
  bool enabled_ = true;
  long transfers_ = 0;
};

}  // namespace vtsim::sim
