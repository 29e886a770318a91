#include "models/collectives/collective_model.hpp"

#include <cassert>

namespace vtsim {
namespace {

// After one transfer that paid its route's latency once, what a pipeline of `hops` hops still pays: the other
// hops - 1 link latencies and every hop's protocol latency. A ring pass and a chain both end so.
double pipeline_tail_s(int hops, double link_latency_s, double step_extra_s) {
  assert(hops >= 1);
  return (hops - 1) * link_latency_s + hops * step_extra_s;
}

}  // namespace

RingAlgorithm::RingAlgorithm(Collective collective, int ranks)
    : ranks_(ranks), passes_(collective == Collective::allreduce ? 2 : 1) {
  assert(ranks >= 1);
  assert(collective == Collective::allreduce || collective == Collective::reduce_scatter ||
         collective == Collective::allgather);
}

double RingAlgorithm::sent_fraction() const {
  const double one_pass = static_cast<double>(ranks_ - 1) / ranks_;
  return passes_ == 2 ? 2.0 * one_pass : one_pass;
}

double RingAlgorithm::time_s(double bytes, double bandwidth_Bps, double latency_s) const {
  assert(bytes >= 0.0 && latency_s >= 0.0);
  if (ranks_ == 1) return 0.0;  // nothing to exchange (and no link to have a bandwidth)
  assert(bandwidth_Bps > 0.0);
  const double all_steps = steps();
  return all_steps * (step_bytes(bytes) / bandwidth_Bps + latency_s);
}

double RingAlgorithm::flow_pass_tail_s(double link_latency_s, double step_extra_s) const {
  return pipeline_tail_s(steps_per_pass(), link_latency_s, step_extra_s);
}

ChainAlgorithm::ChainAlgorithm(int ranks) : ranks_(ranks) { assert(ranks >= 1); }

double ChainAlgorithm::time_s(double bytes, double bandwidth_Bps, double latency_s) const {
  assert(bandwidth_Bps > 0);
  if (ranks_ == 1) return 0.0;
  return bytes / bandwidth_Bps + (ranks_ - 1) * latency_s;
}

double ChainAlgorithm::tail_s(double link_latency_s, double step_extra_s) const {
  return pipeline_tail_s(ranks_ - 1, link_latency_s, step_extra_s);
}

HierarchicalAllreduceAlgorithm::HierarchicalAllreduceAlgorithm(int hosts, int gpus_per_host)
    : hosts_(hosts), gpus_per_host_(gpus_per_host) {
  assert(hosts >= 1 && gpus_per_host >= 1);
}

double HierarchicalAllreduceAlgorithm::time_s(double bytes, double intra_bandwidth_Bps, double intra_latency_s,
                                              double inter_bandwidth_Bps, double inter_latency_s) const {
  return intra_reduce_scatter().time_s(bytes, intra_bandwidth_Bps, intra_latency_s) +
         inter_allreduce().time_s(shard_bytes(bytes), inter_bandwidth_Bps, inter_latency_s) +
         intra_allgather().time_s(bytes, intra_bandwidth_Bps, intra_latency_s);
}

AlltoallAlgorithm::AlltoallAlgorithm(int ranks) : ranks_(ranks) { assert(ranks >= 1); }

double collective_sent_fraction(Collective collective, int ranks) {
  assert(ranks >= 1);
  switch (collective) {
    case Collective::allreduce:
    case Collective::reduce_scatter:
    case Collective::allgather:
      return RingAlgorithm(collective, ranks).sent_fraction();
    case Collective::alltoall:
      return AlltoallAlgorithm(ranks).sent_fraction();
    case Collective::broadcast:
    case Collective::reduce:
      return ChainAlgorithm(ranks).sent_fraction();
    case Collective::sendrecv:
      return 1.0;
  }
  assert(false && "every collective is handled above");
  return 0.0;
}

double algbw_Bps(double bytes, double time_s) {
  assert(time_s > 0.0);
  return bytes / time_s;
}

double busbw_factor(Collective collective, int ranks) { return collective_sent_fraction(collective, ranks); }

double busbw_Bps(Collective collective, int ranks, double algorithm_bandwidth_Bps) {
  return algorithm_bandwidth_Bps * busbw_factor(collective, ranks);
}

}  // namespace vtsim
