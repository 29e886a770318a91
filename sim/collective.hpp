#pragma once
// Allreduce algorithms behind one small interface, each at the fidelity the scenario asks for.
//
// `step`: every ring step of every rank is one SimGrid communication (2(N-1) per rank per allreduce, O(N^2) in all).
// `flow`: each rank's share of a ring phase is one communication of (N-1)/N of the data, after which the rank waits
//         the N-2 further step latencies that the real ring would pay (O(N) in all).
// `analytic`: each rank sleeps for the closed form, with the bandwidth of the bottleneck found on the topology (O(1)).
// On a homogeneous, uncontended ring all three give 2(N-1)/N * S/B + 2(N-1) * alpha; tests/sim holds them to it.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include "models/scenario.hpp"

namespace vtsim::sim {

/// The ranks of one communicator in ring order: position i sends to i + 1 and receives from i - 1 (mod size).
struct RingGroup {
  std::string name;
  std::vector<simgrid::s4u::Host*> hosts;        ///< SimGrid host of each position
  std::vector<simgrid::s4u::Mailbox*> inboxes;   ///< where each position receives (from its predecessor only)
  std::vector<double> incoming_latency_s;        ///< route latency from position i - 1 to i
  /// Number of ranks.
  int size() const { return static_cast<int>(hosts.size()); }
};

/// One allreduce algorithm shared by the ranks of a job.
class Allreduce {
 public:
  virtual ~Allreduce() = default;
  /// Runs the part of an allreduce of `bytes` that falls to the rank at `position`, returning when it is done.
  /// REQUIRES: every rank calls run() for every allreduce, in the same order, from its own actor.
  virtual void run(int position, double bytes) = 0;
};

/// Reduce-scatter then allgather around one ring, at `step` or `flow` fidelity.
std::unique_ptr<Allreduce> make_ring_allreduce(RingGroup ring, Fidelity fidelity);

/// Horovod's hierarchical allreduce: reduce-scatter inside each host, allreduce of each 1/G share across hosts among
/// the GPUs with the same local index, allgather inside each host. Position p is local index p % G on host p / G.
/// REQUIRES: intra[h] has G ranks for every host h, inter[l] has one rank per host for every local index l.
std::unique_ptr<Allreduce> make_hierarchical_allreduce(std::vector<RingGroup> intra, std::vector<RingGroup> inter,
                                                       Fidelity fidelity);

/// An allreduce that takes `duration_s(bytes)` on every rank: the `analytic` fidelity.
std::unique_ptr<Allreduce> make_analytic_allreduce(std::function<double(double bytes)> duration_s);

}  // namespace vtsim::sim
