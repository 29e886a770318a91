#include "sim/collectives/collective.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Barrier.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mailbox.hpp>

namespace vtsim::sim {

std::uint64_t whole_bytes(double bytes) { return static_cast<std::uint64_t>(std::llround(std::max(0.0, bytes))); }

namespace {

namespace sg4 = simgrid::s4u;

using Rings = std::vector<std::unique_ptr<RingGroup>>;

/// The end of a transfer alone on its route, once it has started: `end_s`, waiting on `started` (flagging itself
/// `blocked`) while it is -1, until the other end posts the transfer (RingGroup::start_alone).
double started_end_s(const double& end_s, bool& blocked, const sg4::SemaphorePtr& started) {
  if (end_s < 0) {
    blocked = true;
    started->acquire();
    blocked = false;
  }
  return end_s;
}

/// Sleeps `then_s` past `done_s`, the end of a step's transfers (RingGroup::finish_exchange: now, or later where a
/// transfer alone on its route ends later).
void sleep_past(double done_s, double then_s) {
  if (done_s > sg4::Engine::get_clock()) {
    sg4::this_actor::sleep_until(done_s + then_s);
  } else if (then_s > 0) {
    sg4::this_actor::sleep_for(then_s);
  }
}

/// One pass of `ring` (a reduce-scatter or an allgather) for the rank at `position` on every channel ring at once:
/// N-1 steps of `step_bytes` per ring, or at `flow` fidelity one transfer of them all and the latencies that follow.
void ring_pass(const RingAlgorithm& ring, const Rings& rings, int position, double step_bytes, Fidelity fidelity,
               NcclProtocol protocol) {
  assert(ring.ranks() == rings.front()->size());
  if (ring.ranks() < 2) return;
  const bool steps = fidelity == Fidelity::step;
  double extra_s = 0;  // the protocol's own latency per step, beyond the links'
  for (const auto& group : rings) extra_s = std::max(extra_s, group->incoming_step_extra_s(position, protocol));
  const double bytes = steps ? step_bytes : ring.flow_pass_bytes(step_bytes);
  double done_s = 0;
  for (int step = 0; step < (steps ? ring.steps_per_pass() : 1); ++step) {
    for (const auto& group : rings) group->start_exchange(position, bytes);
    for (const auto& group : rings) done_s = std::max(done_s, group->finish_exchange(position));
    if (steps) sleep_past(done_s, extra_s);
  }
  if (steps) return;
  double latency_s = 0;
  for (const auto& group : rings) latency_s = std::max(latency_s, group->incoming_latency_s(position));
  sleep_past(done_s, ring.flow_pass_tail_s(latency_s, extra_s));
}

/// ring_pass at `flow` fidelity for all of `positions` at once, from one actor that runs them (one for each rank of a
/// host): every position's transfers are posted before any is waited for (RingGroup::post_receive), and the pass
/// ends when the last position's would, its transfers' end and the latencies that follow.
void pass_for_positions(const RingAlgorithm& ring, const Rings& rings, const std::vector<int>& positions,
                        double step_bytes, NcclProtocol protocol) {
  assert(ring.ranks() == rings.front()->size());
  if (ring.ranks() < 2) return;
  const double bytes = ring.flow_pass_bytes(step_bytes);
  for (const auto& group : rings) {
    for (int position : positions) group->post_receive(position);
  }
  for (const auto& group : rings) {
    for (int position : positions) group->post_send(position, bytes);
  }
  std::vector<double> done_s(positions.size(), 0.0);
  for (const auto& group : rings) {
    for (std::size_t i = 0; i < positions.size(); ++i) {
      done_s[i] = std::max(done_s[i], group->finish_send(positions[i]));
    }
  }
  for (const auto& group : rings) {
    for (std::size_t i = 0; i < positions.size(); ++i) {
      done_s[i] = std::max(done_s[i], group->finish_receive(positions[i]));
    }
  }
  double end_s = sg4::Engine::get_clock();
  for (std::size_t i = 0; i < positions.size(); ++i) {
    double extra_s = 0;
    double latency_s = 0;
    for (const auto& group : rings) {
      extra_s = std::max(extra_s, group->incoming_step_extra_s(positions[i], protocol));
      latency_s = std::max(latency_s, group->incoming_latency_s(positions[i]));
    }
    end_s = std::max(end_s, done_s[i] + ring.flow_pass_tail_s(latency_s, extra_s));
  }
  if (end_s > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(end_s);
}

/// A ring collective's passes over a buffer of `bytes`: 2 for an allreduce (reduce-scatter, then allgather), 1 for a
/// reduce-scatter or an allgather alone (each rank owns bytes / N of the buffer).
class RingCollective final : public SimulatedCollective {
 public:
  RingCollective(Rings rings, Fidelity fidelity, Collective collective)
      : rings_(std::move(rings)), fidelity_(fidelity), ring_(collective, rings_.front()->size()) {}
  void run(int position, double bytes, NcclProtocol protocol) override {
    const double step_bytes = ring_.step_bytes(bytes / static_cast<double>(rings_.size()));
    for (int pass = 0; pass < ring_.passes(); ++pass) {
      ring_pass(ring_, rings_, position, step_bytes, fidelity_, protocol);
    }
  }

 private:
  Rings rings_;
  Fidelity fidelity_;
  RingAlgorithm ring_;
};

class HierarchicalAllreduce final : public SimulatedCollective {
 public:
  HierarchicalAllreduce(std::vector<Rings> intra, Rings inter, Fidelity fidelity)
      : intra_(std::move(intra)),
        inter_(std::move(inter)),
        fidelity_(fidelity),
        algorithm_(static_cast<int>(intra_.size()), static_cast<int>(inter_.size())) {
    for (auto& ring : inter_) {
      Rings one;
      one.push_back(std::move(ring));
      across_.push_back(std::move(one));
    }
  }
  void run(int position, double bytes, NcclProtocol protocol) override {
    const int gpus_per_host = static_cast<int>(across_.size());
    const int host = position / gpus_per_host;
    const int local = position % gpus_per_host;
    const Rings& in_host = intra_[static_cast<std::size_t>(host)];
    const Rings& across = across_[static_cast<std::size_t>(local)];
    const RingAlgorithm reduce_scatter = algorithm_.intra_reduce_scatter();
    const RingAlgorithm allreduce = algorithm_.inter_allreduce();
    const RingAlgorithm allgather = algorithm_.intra_allgather();
    const double shard = algorithm_.shard_bytes(bytes);  // what each GPU owns after the intra-host reduce-scatter
    const double intra_step = shard / static_cast<double>(in_host.size());  // S/G per step, split over the channels
    const double inter_step = allreduce.step_bytes(shard);
    ring_pass(reduce_scatter, in_host, local, intra_step, fidelity_, protocol);
    for (int pass = 0; pass < allreduce.passes(); ++pass) {
      ring_pass(allreduce, across, host, inter_step, fidelity_, protocol);
    }
    ring_pass(allgather, in_host, local, intra_step, fidelity_, protocol);
  }

 private:
  std::vector<Rings> intra_;
  Rings inter_;
  Fidelity fidelity_;
  HierarchicalAllreduceAlgorithm algorithm_;
  std::vector<Rings> across_;  // per local index, its one inter-host ring
};

/// HierarchicalAllreduce with one caller per host, standing for the host's G ranks: the intra-host passes for all of
/// them at once (pass_for_positions), the inter-host passes on one ring whose every edge carries the G ranks' flows
/// between the two hosts as one (Platform::carry_class).
class HostHierarchicalAllreduce final : public SimulatedCollective {
 public:
  HostHierarchicalAllreduce(std::vector<Rings> intra, std::unique_ptr<RingGroup> across_hosts)
      : intra_(std::move(intra)), algorithm_(static_cast<int>(intra_.size()), intra_.front().front()->size()) {
    across_hosts_.push_back(std::move(across_hosts));
    for (int local = 0; local < intra_.front().front()->size(); ++local) locals_.push_back(local);
  }
  void run(int host, double bytes, NcclProtocol protocol) override {
    const Rings& in_host = intra_[static_cast<std::size_t>(host)];
    const RingAlgorithm allreduce = algorithm_.inter_allreduce();
    const double shard = algorithm_.shard_bytes(bytes);
    const double intra_step = shard / static_cast<double>(in_host.size());
    pass_for_positions(algorithm_.intra_reduce_scatter(), in_host, locals_, intra_step, protocol);
    for (int pass = 0; pass < allreduce.passes(); ++pass) {
      ring_pass(allreduce, across_hosts_, host, allreduce.step_bytes(shard), Fidelity::flow, protocol);
    }
    pass_for_positions(algorithm_.intra_allgather(), in_host, locals_, intra_step, protocol);
  }

 private:
  std::vector<Rings> intra_;
  Rings across_hosts_;
  HierarchicalAllreduceAlgorithm algorithm_;
  std::vector<int> locals_;  ///< 0 .. G-1
};

class Exchange final : public SimulatedCollective {
 public:
  Exchange(Rings groups, double share) : groups_(std::move(groups)), share_(share) {}
  void run(int position, double bytes, NcclProtocol protocol) override {
    double extra_s = 0;
    for (const auto& group : groups_) {
      group->start_exchange(position, bytes * share_);
      extra_s = std::max(extra_s, group->incoming_step_extra_s(position, protocol));
    }
    double done_s = 0;
    for (const auto& group : groups_) done_s = std::max(done_s, group->finish_exchange(position));
    sleep_past(done_s, extra_s);
  }

 private:
  Rings groups_;
  double share_;
};

class Chain final : public SimulatedCollective {
 public:
  Chain(Rings rings, bool toward_root) : rings_(std::move(rings)), toward_root_(toward_root) {}
  void run(int position, double bytes, NcclProtocol protocol) override {
    const int n = rings_.front()->size();
    if (n < 2) return;
    const double share = bytes / static_cast<double>(rings_.size());
    double extra_s = 0;
    double latency_s = 0;
    for (const auto& ring : rings_) {
      // The edge the chain does not take: out of the root for a reduce, into it for a broadcast.
      const bool idle = toward_root_ ? position == 0 : ring->previous(0) == position;
      ring->start_exchange(position, idle ? 0.0 : share);
      extra_s = std::max(extra_s, ring->incoming_step_extra_s(position, protocol));
      latency_s = std::max(latency_s, ring->incoming_latency_s(position));
    }
    double done_s = 0;
    for (const auto& ring : rings_) done_s = std::max(done_s, ring->finish_exchange(position));
    sleep_past(done_s, ChainAlgorithm(n).tail_s(latency_s, extra_s));
  }

 private:
  Rings rings_;
  bool toward_root_;
};

class AnalyticAllreduce final : public SimulatedCollective {
 public:
  AnalyticAllreduce(std::function<double(double, NcclProtocol)> duration_s, int ranks)
      : duration_s_(std::move(duration_s)), ranks_that_run_(ranks) {}
  void run(int /*position*/, double bytes, NcclProtocol protocol) override {
    if (ranks_that_run_ > 1) {
      if (!joined_) joined_ = sg4::Barrier::create(static_cast<unsigned>(ranks_that_run_));
      joined_->wait();
    }
    sg4::this_actor::sleep_for(duration_s_(bytes, protocol));
  }
  void set_ranks_that_run(int count) override { ranks_that_run_ = count; }

 private:
  std::function<double(double, NcclProtocol)> duration_s_;
  int ranks_that_run_;
  sg4::BarrierPtr joined_;  ///< every rank that runs has reached the collective (reused from one call to the next)
};

class NcclRun final : public SimulatedCollective {
 public:
  NcclRun(std::unique_ptr<SimulatedCollective> ring, NcclCommunicator comm, NcclCollective collective,
          NcclChoiceCounts* counts)
      : ring_(std::move(ring)), comm_(comm), collective_(collective), counts_(counts), ranks_that_run_(comm.ranks) {}
  void run(int position, double bytes, NcclProtocol /*chosen below*/) override {
    const NcclChoice choice = choose(bytes);
    if (position == 0 && counts_ != nullptr) {
      ++(*counts_)[std::string(to_string(choice.algorithm)) + "/" + std::string(to_string(choice.protocol))];
    }
    if (choice.algorithm != NcclAlgorithm::ring) {
      // Trees, NVLS and CollNet take NCCL's prediction from when the last rank joins: no reduction ends before that.
      if (ranks_that_run_ > 1) {
        if (!joined_) joined_ = sg4::Barrier::create(static_cast<unsigned>(ranks_that_run_));
        joined_->wait();
      }
      // CollNet: no faster than its data crosses the node's GPU links, which NCCL's table does not bound.
      sg4::this_actor::sleep_for(nccl_analytic_time_s(comm_, collective_, choice, bytes));
      return;
    }
    sg4::this_actor::sleep_for(nccl_base_latency_s(choice.algorithm, choice.protocol));
    ring_->run(position, bytes / nccl_protocol_efficiency(choice.protocol), choice.protocol);
  }
  void set_ranks_that_run(int count) override {
    ranks_that_run_ = count;
    ring_->set_ranks_that_run(count);
  }
  std::string describe(double bytes) override {
    const NcclChoice choice = choose(bytes);
    return std::string(to_string(choice.algorithm)) + "/" + std::string(to_string(choice.protocol));
  }

 private:
  /// NCCL's choice for `bytes`; a job's fusion buffers repeat their sizes, so choices are kept.
  NcclChoice choose(double bytes) {
    const auto known = choices_.find(bytes);
    if (known != choices_.end()) return known->second;
    return choices_[bytes] = nccl_choice(comm_, collective_, bytes);
  }

  std::unique_ptr<SimulatedCollective> ring_;
  NcclCommunicator comm_;
  NcclCollective collective_;
  NcclChoiceCounts* counts_;
  int ranks_that_run_;
  sg4::BarrierPtr joined_;  ///< tree, NVLS, CollNet: every rank that runs has reached the collective
  std::map<double, NcclChoice> choices_;
};

}  // namespace

RingGroup::RingGroup(std::vector<int> next, std::vector<RingEdge> edges, RouteLedger* ledger)
    : previous_(next.size()),
      edges_(std::move(edges)),
      mailbox_(edges_.size(), nullptr),
      received_(edges_.size(), nullptr),
      receiving_(edges_.size()),
      receiver_ready_(edges_.size()),
      delivered_(edges_.size()),
      capped_end_s_(edges_.size(), 0.0),
      delivered_at_s_(edges_.size(), 0.0),
      ledger_(ledger),
      alone_(ledger != nullptr ? edges_.size() : 0),
      sending_(edges_.size()) {
  assert(next.size() == edges_.size());
  static long groups = 0;  // one engine per process (sim/engine/simulation.hpp): names stay unique within it
  const std::string prefix = "ring" + std::to_string(groups++) + ".";
  for (std::size_t p = 0; p < next.size(); ++p) previous_[static_cast<std::size_t>(next[p])] = static_cast<int>(p);
  for (std::size_t e = 0; e < edges_.size(); ++e) {
    if (edges_[e].between_rank_hosts) {
      mailbox_[e] = sg4::Mailbox::by_name(prefix + std::to_string(e));
    } else {
      receiver_ready_[e] = sg4::Semaphore::create(0);
      delivered_[e] = sg4::Semaphore::create(0);
    }
    if (ledger_ != nullptr) alone_[e].route = ledger_->add_user(edges_[e].source, edges_[e].destination);
  }
}

bool RingGroup::alone(std::size_t e) {
  if (ledger_ == nullptr) return false;
  AloneEdge& edge = alone_[e];
  if (edge.state == AloneEdge::State::unknown) {
    const std::optional<RouteLedger::AloneRoute> route = ledger_->alone(edge.route);
    edge.state = route ? AloneEdge::State::alone : AloneEdge::State::simulated;
    if (route) {
      edge.latency_s = route->latency_s;
      edge.rate_Bps =
          edges_[e].rate_cap_Bps > 0 ? std::min(route->bandwidth_Bps, edges_[e].rate_cap_Bps) : route->bandwidth_Bps;
      edge.sender_started = sg4::Semaphore::create(0);
      edge.receiver_started = sg4::Semaphore::create(0);
    }
  }
  return edge.state == AloneEdge::State::alone;
}

void RingGroup::start_alone(AloneEdge& edge, double bytes) {
  // As SimGrid ends a flow alone on its links: its latency, then its whole bytes at the route's rate.
  const double end_s =
      (sg4::Engine::get_clock() + edge.latency_s) + static_cast<double>(whole_bytes(bytes)) / edge.rate_Bps;
  edge.sender_end_s = end_s;
  edge.receiver_end_s = end_s;
  if (edge.sender_blocked) edge.sender_started->release();
  if (edge.receiver_blocked) edge.receiver_started->release();
  ledger_->count_transfer();
}

void RingGroup::post_receive(int position) {
  const auto in = static_cast<std::size_t>(previous_[static_cast<std::size_t>(position)]);
  if (alone(in)) {
    AloneEdge& edge = alone_[in];
    if (edge.sender_end_s < 0) {  // the sender posted first
      start_alone(edge, edge.sender_bytes);
    } else {
      edge.receiver_end_s = -1;
    }
  } else if (edges_[in].between_rank_hosts) {
    assert(sg4::this_actor::get_host() == edges_[in].destination);
    receiving_[in] = mailbox_[in]->get_async(&received_[in]);
  } else {
    receiver_ready_[in]->release();  // the predecessor may send now
  }
}

void RingGroup::post_send(int position, double bytes) {
  const auto out = static_cast<std::size_t>(position);
  if (alone(out)) {
    AloneEdge& edge = alone_[out];
    if (edge.receiver_end_s < 0) {  // the receiver posted first
      start_alone(edge, bytes);
    } else {
      edge.sender_bytes = bytes;
      edge.sender_end_s = -1;
    }
  } else if (edges_[out].between_rank_hosts) {
    assert(sg4::this_actor::get_host() == edges_[out].source);
    sending_[out] = mailbox_[out]->put_init(this, whole_bytes(bytes));
    if (edges_[out].rate_cap_Bps > 0) sending_[out]->set_rate(edges_[out].rate_cap_Bps);
    sending_[out]->vetoable_start();
  } else {
    receiver_ready_[out]->acquire();  // wait until the successor may receive
    sending_[out] = sg4::Comm::sendto_async(edges_[out].source, edges_[out].destination, whole_bytes(bytes));
    // SimGrid 3.32 ignores the rate of a host-to-host communication: the cap holds the transfer's end back instead.
    if (edges_[out].rate_cap_Bps > 0) {
      capped_end_s_[out] = sg4::Engine::get_clock() + edges_[out].latency_s +
                           static_cast<double>(whole_bytes(bytes)) / edges_[out].rate_cap_Bps;
    }
  }
}

double RingGroup::finish_send(int position) {
  const auto out = static_cast<std::size_t>(position);
  if (alone(out)) {
    AloneEdge& edge = alone_[out];
    return started_end_s(edge.sender_end_s, edge.sender_blocked, edge.sender_started);
  }
  sending_[out]->wait();
  // When it ended, not when this actor came to wait for it (an actor that runs several positions waits for their
  // transfers one after another).
  const double end_s = std::max(sending_[out]->get_finish_time(), capped_end_s_[out]);
  sending_[out] = nullptr;
  if (sg4::Engine::get_clock() < end_s) sg4::this_actor::sleep_until(end_s);
  if (!edges_[out].between_rank_hosts) {
    delivered_at_s_[out] = end_s;
    delivered_[out]->release();
  }
  return end_s;
}

double RingGroup::finish_receive(int position) {
  const auto in = static_cast<std::size_t>(previous_[static_cast<std::size_t>(position)]);
  if (alone(in)) {
    AloneEdge& edge = alone_[in];
    return started_end_s(edge.receiver_end_s, edge.receiver_blocked, edge.receiver_started);
  }
  if (edges_[in].between_rank_hosts) {
    receiving_[in]->wait();
    const double end_s = receiving_[in]->get_finish_time();
    receiving_[in] = nullptr;
    return end_s;
  }
  delivered_[in]->acquire();
  return delivered_at_s_[in];
}

void RingGroup::start_exchange(int position, double bytes) {
  post_receive(position);
  post_send(position, bytes);
}

double RingGroup::finish_exchange(int position) {
  const double sent_s = finish_send(position);
  const double received_s = finish_receive(position);
  return std::max({sg4::Engine::get_clock(), sent_s, received_s});
}

double RingGroup::incoming_step_extra_s(int position, NcclProtocol protocol) const {
  return nccl_step_extra_s(edges_[static_cast<std::size_t>(previous_[static_cast<std::size_t>(position)])].hop, protocol);
}

double RingGroup::incoming_latency_s(int position) const {
  return edges_[static_cast<std::size_t>(previous_[static_cast<std::size_t>(position)])].latency_s;
}

std::unique_ptr<SimulatedCollective> make_ring_collective(Rings rings, Fidelity fidelity, Collective collective) {
  assert(fidelity != Fidelity::analytic && !rings.empty());
  return std::make_unique<RingCollective>(std::move(rings), fidelity, collective);
}

std::unique_ptr<SimulatedCollective> make_hierarchical_allreduce(std::vector<Rings> intra, Rings inter,
                                                                 Fidelity fidelity) {
  assert(fidelity != Fidelity::analytic);
  return std::make_unique<HierarchicalAllreduce>(std::move(intra), std::move(inter), fidelity);
}

std::unique_ptr<SimulatedCollective> make_host_hierarchical_allreduce(std::vector<Rings> intra,
                                                                      std::unique_ptr<RingGroup> across_hosts) {
  assert(!intra.empty() && across_hosts->size() == static_cast<int>(intra.size()));
  return std::make_unique<HostHierarchicalAllreduce>(std::move(intra), std::move(across_hosts));
}

std::unique_ptr<SimulatedCollective> make_exchange(Rings groups, double share, Fidelity /*every fidelity: one step*/) {
  assert(!groups.empty());
  return std::make_unique<Exchange>(std::move(groups), share);
}

std::unique_ptr<SimulatedCollective> make_chain(Rings rings, bool toward_root) {
  assert(!rings.empty());
  return std::make_unique<Chain>(std::move(rings), toward_root);
}

std::unique_ptr<SimulatedCollective> make_analytic_allreduce(
    std::function<double(double bytes, NcclProtocol)> duration_s, int ranks) {
  return std::make_unique<AnalyticAllreduce>(std::move(duration_s), ranks);
}

std::unique_ptr<SimulatedCollective> make_nccl_allreduce(std::unique_ptr<SimulatedCollective> ring,
                                                         NcclCommunicator comm, NcclChoiceCounts* counts,
                                                         NcclCollective collective) {
  return std::make_unique<NcclRun>(std::move(ring), comm, collective, counts);
}

}  // namespace vtsim::sim
