#include "sim/collective.hpp"

#include <cassert>
#include <cmath>
#include <cstdint>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>

namespace vtsim::sim {
namespace {

namespace sg4 = simgrid::s4u;

/// What travels in a ring message: nothing but its simulated size matters, so every message carries this marker.
struct RingChunk {};
RingChunk ring_chunk_marker;

std::uint64_t whole_bytes(double bytes) { return static_cast<std::uint64_t>(std::llround(std::max(0.0, bytes))); }

/// One ring phase (reduce-scatter or allgather) for the rank at `position`: N-1 steps of `chunk_bytes` each.
void ring_phase(const RingGroup& ring, int position, double chunk_bytes, Fidelity fidelity) {
  const int n = ring.size();
  if (n < 2) return;
  sg4::Mailbox* next = ring.inboxes[static_cast<std::size_t>((position + 1) % n)];
  sg4::Mailbox* mine = ring.inboxes[static_cast<std::size_t>(position)];
  if (fidelity == Fidelity::step) {
    for (int step = 0; step < n - 1; ++step) {
      sg4::CommPtr send = next->put_async(&ring_chunk_marker, whole_bytes(chunk_bytes));
      mine->get<RingChunk>();
      send->wait();
    }
    return;
  }
  // flow: the N-1 chunks as one transfer; the latency of the N-2 further steps is paid after it.
  sg4::CommPtr send = next->put_async(&ring_chunk_marker, whole_bytes((n - 1) * chunk_bytes));
  mine->get<RingChunk>();
  send->wait();
  sg4::this_actor::sleep_for((n - 2) * ring.incoming_latency_s[static_cast<std::size_t>(position)]);
}

class RingAllreduce final : public Allreduce {
 public:
  RingAllreduce(RingGroup ring, Fidelity fidelity) : ring_(std::move(ring)), fidelity_(fidelity) {}
  void run(int position, double bytes) override {
    const double chunk = bytes / ring_.size();
    ring_phase(ring_, position, chunk, fidelity_);  // reduce-scatter
    ring_phase(ring_, position, chunk, fidelity_);  // allgather
  }

 private:
  RingGroup ring_;
  Fidelity fidelity_;
};

class HierarchicalAllreduce final : public Allreduce {
 public:
  HierarchicalAllreduce(std::vector<RingGroup> intra, std::vector<RingGroup> inter, Fidelity fidelity)
      : intra_(std::move(intra)), inter_(std::move(inter)), fidelity_(fidelity) {}
  void run(int position, double bytes) override {
    const int gpus_per_host = static_cast<int>(inter_.size());
    const int host = position / gpus_per_host;
    const int local = position % gpus_per_host;
    const RingGroup& in_host = intra_[static_cast<std::size_t>(host)];
    const RingGroup& across = inter_[static_cast<std::size_t>(local)];
    assert(in_host.size() == gpus_per_host);
    const double share = bytes / gpus_per_host;  // what each GPU owns after the intra-host reduce-scatter
    ring_phase(in_host, local, share, fidelity_);                   // intra-host reduce-scatter of S
    ring_phase(across, host, share / across.size(), fidelity_);     // inter-host allreduce of S/G:
    ring_phase(across, host, share / across.size(), fidelity_);     //   reduce-scatter then allgather
    ring_phase(in_host, local, share, fidelity_);                   // intra-host allgather of S
  }

 private:
  std::vector<RingGroup> intra_;
  std::vector<RingGroup> inter_;
  Fidelity fidelity_;
};

class AnalyticAllreduce final : public Allreduce {
 public:
  explicit AnalyticAllreduce(std::function<double(double)> duration_s) : duration_s_(std::move(duration_s)) {}
  void run(int /*position*/, double bytes) override { sg4::this_actor::sleep_for(duration_s_(bytes)); }

 private:
  std::function<double(double)> duration_s_;
};

}  // namespace

std::unique_ptr<Allreduce> make_ring_allreduce(RingGroup ring, Fidelity fidelity) {
  assert(fidelity != Fidelity::analytic);
  return std::make_unique<RingAllreduce>(std::move(ring), fidelity);
}

std::unique_ptr<Allreduce> make_hierarchical_allreduce(std::vector<RingGroup> intra, std::vector<RingGroup> inter,
                                                       Fidelity fidelity) {
  assert(fidelity != Fidelity::analytic);
  return std::make_unique<HierarchicalAllreduce>(std::move(intra), std::move(inter), fidelity);
}

std::unique_ptr<Allreduce> make_analytic_allreduce(std::function<double(double bytes)> duration_s) {
  return std::make_unique<AnalyticAllreduce>(std::move(duration_s));
}

}  // namespace vtsim::sim
