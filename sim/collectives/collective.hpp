#pragma once
// The collectives the engine simulates (allreduce, reduce-scatter, allgather, broadcast, reduce, sendrecv, alltoall),
// one type per algorithm behind one small interface, SimulatedCollective, each at the fidelity the scenario asks for.
//
// `step`: every ring step of every rank is one SimGrid communication (2(N-1) per rank per allreduce, O(N^2) in all).
// `flow`: each rank's share of a ring pass is one communication of (N-1)/N of the data, after which the rank waits
//         the N-2 further step latencies that the real ring would pay (O(N) in all; RingAlgorithm::flow_pass_tail_s).
//         A transfer that no other flow can meet on its route is computed rather than simulated (RingGroup, below).
// `analytic`: once every rank has joined, each sleeps for the closed form, with the bandwidth of the bottleneck found
//         on the topology (O(1) communications; one barrier per collective).
// On a homogeneous, uncontended ring all three give 2(N-1)/N * S/B + 2(N-1) * alpha; tests/sim holds them to it.
//
// A collective runs over several rings at once (NCCL's channels), each with an equal share of the data: the rings
// of a full NVLink mesh take different pair links, and rings across hosts leave through different NICs (rails) and
// are hashed onto different spines. Each ring edge is a communication between two explicit SimGrid hosts (a GPU,
// or for a flow between racks a port host whose route takes the spine ECMP chose, sim/engine/platform.hpp). A transfer
// starts when both its sender and its receiver have reached the step, as NCCL's sender waits for its receiver's
// buffer, so a late rank holds up its ring neighbours.
//
// How an edge waits for its receiver depends on its ends. Where the actors that run its two positions sit on the
// edge's two hosts (every edge within a rack when each rank runs its own; a host's flow to the next host under one
// actor per host, make_host_hierarchical_allreduce), the transfer is a mailbox rendezvous between them: a put and a
// get that start it when both are posted. Any other edge (between port hosts; within a host whose positions one
// actor runs) is a host-to-host communication started once the receiver has released a semaphore. Both start the
// transfer at the same simulated instant. The rendezvous is the cheaper of the two in SimGrid 3.32: it takes four
// simcalls per step instead of six, and a host-to-host communication is kept on the maestro's activity list, which
// CommImpl::finish searches from end to end (a cost proportional to the communications in flight, paid by each: 34% of
// a 16,384-GPU flow run; docs/scale.md).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include "models/collectives/collective_model.hpp"
#include "models/collectives/nccl_tuning.hpp"
#include "models/scenario/fidelity.hpp"
#include "sim/engine/route_ledger.hpp"

namespace vtsim::sim {

/// A simulated message size: `bytes` rounded to whole bytes, at least 0.
std::uint64_t whole_bytes(double bytes);

/// One directed ring edge: where its transfers leave from and arrive at, what one message pays on its route (the
/// links carry the fastest protocol's latency), and the class of step it is for the protocols' extra latency.
struct RingEdge {
  simgrid::s4u::Host* source = nullptr;
  simgrid::s4u::Host* destination = nullptr;
  double latency_s = 0;
  NcclHop hop = NcclHop::nvlink;
  /// The actor that runs the sending position is on `source` and the one that runs the receiving position on
  /// `destination`: the transfer can be a mailbox rendezvous between the two actors.
  bool between_rank_hosts = false;
  /// The most a transfer on the edge moves per second, bytes/s: the share of the communicator's bandwidth that its
  /// forced NCCL channels reach (models/collectives/nccl_tuning.hpp nccl_channel_bandwidth_fraction); 0 where nothing
  /// caps it. A rendezvous runs at the cap (SimGrid's rate); a host-to-host communication, whose rate SimGrid 3.32
  /// ignores, runs at what its links give and is then held until latency + bytes / cap: the same time alone on its
  /// links, but it takes its full share of them meanwhile.
  double rate_cap_Bps = 0;
};

/// One ring over the ranks of a communicator. Ranks keep their communicator positions; the ring visits them in its
/// own order (each of NCCL's rings takes its own path), so position p sends to next(p).
///
/// With a route ledger (flow fidelity, sim/engine/route_ledger.hpp), an edge whose route no other flow of the
/// simulation crosses carries no SimGrid communication: its transfer starts when both its ends have reached the step,
/// as any other, and ends its route's latency plus its bytes at the route's least bandwidth (RouteLedger::alone; or
/// its rate cap) later, the time SimGrid gives a flow alone on its links. Its ends sleep until then (the caller's
/// sleep, after finish_exchange); the first of the two to arrive waits on a semaphore for the other only if it has
/// not come by the time it needs the transfer's end.
class RingGroup {
 public:
  /// A group in which rank p sends to next[p] over edges[p]: a ring when next is one cycle, an alltoall shift when
  /// it is another permutation. With `ledger` (may be null), every edge's route is counted in it, and the edges it
  /// finds alone when they first carry a transfer are computed, not simulated. REQUIRES: next is a permutation of
  /// the positions; a running engine (the ring creates sync objects).
  RingGroup(std::vector<int> next, std::vector<RingEdge> edges, RouteLedger* ledger = nullptr);
  /// Number of ranks.
  int size() const { return static_cast<int>(edges_.size()); }
  /// Starts one step of `position`: tells its predecessor it may send, waits until its successor may receive, then
  /// starts sending it `bytes`. REQUIRES: every position calls it, then finish_exchange, the same number of times,
  /// from one actor at a time (an edge carries one transfer at a time: what lets it be alone on its route).
  void start_exchange(int position, double bytes);
  /// Ends the step: waits for the transfer start_exchange began, then for the one arriving from the predecessor.
  /// Returns when the two have ended: now, or later where a transfer alone on its route ends later than now (the
  /// caller sleeps until then before its next step).
  [[nodiscard]] double finish_exchange(int position);
  /// start_exchange in two halves, for an actor that runs several positions of the group at once (one for a class
  /// of ranks): it posts every position's receive, then every position's send, then finishes every send, then every
  /// receive, so that no position waits for another the same actor has not reached. The finishing halves return when
  /// the transfer ended, as finish_exchange. REQUIRES: the edges such an actor posts for are not between rank hosts
  /// (a rendezvous is posted by the actor on the edge's host).
  void post_receive(int position);
  void post_send(int position, double bytes);
  [[nodiscard]] double finish_send(int position);
  [[nodiscard]] double finish_receive(int position);
  /// The position that sends to `position`.
  int previous(int position) const { return previous_[static_cast<std::size_t>(position)]; }
  /// Latency of the edge into `position`.
  double incoming_latency_s(int position) const;
  /// What `protocol` adds to a step on the edge into `position` (models/collectives/nccl_tuning.hpp nccl_step_extra_s).
  double incoming_step_extra_s(int position, NcclProtocol protocol) const;

 private:
  std::vector<int> previous_;    ///< per position, who sends to it
  std::vector<RingEdge> edges_;  ///< per position, its outgoing edge
  // Per edge between rank hosts:
  std::vector<simgrid::s4u::Mailbox*> mailbox_;  ///< where its sender puts and its receiver gets
  std::vector<void*> received_;                  ///< where the receiver's get stores the (unused) payload
  std::vector<simgrid::s4u::CommPtr> receiving_;  ///< the receiver's get in flight
  // Per edge not between rank hosts (port hosts; a host actor's intra-host edges), null elsewhere:
  std::vector<simgrid::s4u::SemaphorePtr> receiver_ready_;  ///< the receiver has reached the step
  std::vector<simgrid::s4u::SemaphorePtr> delivered_;       ///< a transfer arrived
  std::vector<double> capped_end_s_;  ///< the earliest its transfer in flight may end at its rate cap (0: no cap)
  std::vector<double> delivered_at_s_;  ///< when its last transfer ended, for its receiver
  // Per edge alone on its route (empty without a ledger):
  struct AloneEdge {
    enum class State : std::uint8_t { unknown, simulated, alone } state = State::unknown;
    RouteLedger::RouteId route = 0;  ///< the edge's route in the ledger
    double latency_s = 0;
    double rate_Bps = 0;      ///< the route's least bandwidth (RouteLedger), or the edge's rate cap where lower
    double sender_bytes = 0;  ///< what the sender posted while the receiver had not (sender_end_s -1)
    /// The end of the sender's last transfer once it started; -1 while the sender has posted it and the receiver
    /// not yet (the sender is the one waiting).
    double sender_end_s = 0;
    double receiver_end_s = 0;  ///< the same for the receiver: -1 while it has posted and the sender not yet
    bool sender_blocked = false;    ///< the sender waits on `sender_started` for its transfer to start
    bool receiver_blocked = false;
    simgrid::s4u::SemaphorePtr sender_started, receiver_started;
  };
  /// Whether edge `e` is alone on its route, found out the first time it is asked (every route is counted by then).
  bool alone(std::size_t e);
  /// The alone edge `e`'s transfer starts now with the sender's bytes: both its ends learn when it ends.
  void start_alone(AloneEdge& edge, double bytes);
  RouteLedger* ledger_;
  std::vector<AloneEdge> alone_;
  // Per edge:
  std::vector<simgrid::s4u::CommPtr> sending_;  ///< its sender's transfer in flight
};

/// One collective algorithm shared by the ranks of a communicator (the name says what it runs: an allreduce, or any
/// of the collectives above; run()'s `bytes` are the buffer as nccl-tests count it).
class SimulatedCollective {
 public:
  virtual ~SimulatedCollective() = default;
  /// Runs the part of the collective of `bytes` that falls to the rank at `position` with NCCL's `protocol` (its
  /// per-step latency), returning when it is done. A collective that chooses its own protocol (make_nccl_allreduce)
  /// ignores it. REQUIRES: every rank calls run() for every call, in the same order, from its own actor.
  virtual void run(int position, double bytes, NcclProtocol protocol) = 0;
  /// run() with the Simple protocol, NCCL's choice for large messages.
  void run(int position, double bytes) { run(position, bytes, NcclProtocol::simple); }
  /// How a call of `bytes` runs, for the timeline: NCCL's algorithm and protocol ("ring/Simple"); "" where
  /// nothing is chosen per call.
  virtual std::string describe(double /*bytes*/) { return ""; }
  /// Only `count` of the ranks call run(), each standing for a class of alike ranks (sim/training/rank_classes.hpp).
  /// Only the analytic fidelity runs reduced: the others, whose every rank has its own flows, keep all of them and
  /// ignore it. REQUIRES: before the first run().
  virtual void set_ranks_that_run(int /*count*/) {}
};

/// `collective` (an allreduce, a reduce-scatter or an allgather) as a ring (models/collectives/collective_model.hpp
/// RingAlgorithm) over `rings` at once, each with 1 / rings of the data, at `step` or `flow` fidelity (run()'s bytes
/// are the whole buffer, as nccl-tests count them).
std::unique_ptr<SimulatedCollective> make_ring_collective(std::vector<std::unique_ptr<RingGroup>> rings,
                                                          Fidelity fidelity, Collective collective);

/// Horovod's hierarchical allreduce: reduce-scatter inside each host, allreduce of each 1/G share across hosts among
/// the GPUs with the same local index, allgather inside each host. Position p is local index p % G on host p / G.
/// REQUIRES: intra[h] are the rings of host h, each of G ranks; inter[l] has one rank per host for each local index l.
std::unique_ptr<SimulatedCollective> make_hierarchical_allreduce(
    std::vector<std::vector<std::unique_ptr<RingGroup>>> intra, std::vector<std::unique_ptr<RingGroup>> inter,
    Fidelity fidelity);

/// make_hierarchical_allreduce at flow fidelity with one caller per host, run()'s position the host: it runs the
/// intra-host passes for the host's G ranks at once, and the inter-host allreduce on `across_hosts`, one ring over
/// the hosts whose edge from each host to the next carries the flows of the G inter-host rings as one
/// (Platform::carry_class): what each of them moves, at the rate each would get where they get the same. REQUIRES:
/// intra[h] are host h's rings over its G positions, their edges not between rank hosts (the host's one actor posts
/// for all of them); across_hosts has one position per host, on the host's actor's host.
std::unique_ptr<SimulatedCollective> make_host_hierarchical_allreduce(
    std::vector<std::vector<std::unique_ptr<RingGroup>>> intra, std::unique_ptr<RingGroup> across_hosts);

/// One exchange on every group at once, each moving `share` of run()'s bytes (sendrecv; alltoall, whose shifts are
/// AlltoallAlgorithm's): one step of each group, with the protocol's extra step latency once. `analytic` runs as
/// `flow`.
std::unique_ptr<SimulatedCollective> make_exchange(std::vector<std::unique_ptr<RingGroup>> groups, double share,
                                                   Fidelity fidelity);

/// A pipelined chain over `rings` at once (NCCL's ring broadcast and reduce; the root is position 0), each ring with an
/// equal share of the data: every edge of a ring but one carries the whole share at once (broadcast: all but the edge
/// into the root; reduce, `toward_root`: all but the edge out of it), then each rank waits the N-2 further hops its
/// first chunk takes, and the protocol's extra latency per hop: S/B + (N-1)(alpha + extra) on a homogeneous ring
/// (ChainAlgorithm). Every fidelity runs it so: the chunks' pipeline as concurrent flows.
std::unique_ptr<SimulatedCollective> make_chain(std::vector<std::unique_ptr<RingGroup>> rings, bool toward_root);

/// An allreduce of `ranks` that starts when the last of them calls it (NCCL's collective cannot end before every rank
/// has joined it) and takes `duration_s(bytes, protocol)` on each: the `analytic` fidelity.
std::unique_ptr<SimulatedCollective> make_analytic_allreduce(
    std::function<double(double bytes, NcclProtocol)> duration_s, int ranks);

/// How many allreduces ran with each NCCL (algorithm, protocol), keyed "ring/Simple" and so on.
using NcclChoiceCounts = std::map<std::string, long>;

/// `ring` (a `collective` over rings) with NCCL's choice of algorithm and protocol per call
/// (models/collectives/nccl_tuning.hpp, for `comm`): a ring call first pays the protocol's base latency, then runs
/// `ring` with the bytes the protocol puts on the wire (LL twice the data, LL128 1/0.92 of it); a call NCCL would run
/// as a tree, with NVLS or with CollNet takes NCCL's own predicted time, as none of them is simulated as flows.
/// `counts` (may be null) tallies the choices made on rank 0.
std::unique_ptr<SimulatedCollective> make_nccl_allreduce(std::unique_ptr<SimulatedCollective> ring,
                                                         NcclCommunicator comm, NcclChoiceCounts* counts,
                                                         NcclCollective collective = NcclCollective::all_reduce);

}  // namespace vtsim::sim
