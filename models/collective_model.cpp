#include "models/collective_model.hpp"

#include <cassert>

namespace vtsim {
namespace {

// Seconds of a ring `collective` (an allreduce, a reduce-scatter or an allgather) of S over N ranks: ring_steps
// steps of S/N bytes, each paying the latency once.
double ring_time_s(Collective collective, int ranks, double bytes, double bandwidth_Bps, double latency_s) {
  assert(ranks >= 1 && bytes >= 0.0 && latency_s >= 0.0);
  if (ranks == 1) return 0.0;  // nothing to exchange (and no link to have a bandwidth)
  assert(bandwidth_Bps > 0.0);
  const double steps = ring_steps(collective, ranks);
  return steps * (bytes / ranks / bandwidth_Bps + latency_s);
}

}  // namespace

double ring_allreduce_time_s(int ranks, double bytes, double bandwidth_Bps, double latency_s) {
  return ring_time_s(Collective::allreduce, ranks, bytes, bandwidth_Bps, latency_s);
}

double ring_reduce_scatter_time_s(int ranks, double bytes, double bandwidth_Bps, double latency_s) {
  return ring_time_s(Collective::reduce_scatter, ranks, bytes, bandwidth_Bps, latency_s);
}

double ring_allgather_time_s(int ranks, double bytes, double bandwidth_Bps, double latency_s) {
  return ring_time_s(Collective::allgather, ranks, bytes, bandwidth_Bps, latency_s);
}

double hierarchical_allreduce_time_s(int hosts, int gpus_per_host, double bytes, double intra_bandwidth_Bps,
                                     double intra_latency_s, double inter_bandwidth_Bps, double inter_latency_s) {
  assert(hosts >= 1 && gpus_per_host >= 1);
  const double shard_bytes = bytes / gpus_per_host;
  return ring_reduce_scatter_time_s(gpus_per_host, bytes, intra_bandwidth_Bps, intra_latency_s) +
         ring_allreduce_time_s(hosts, shard_bytes, inter_bandwidth_Bps, inter_latency_s) +
         ring_allgather_time_s(gpus_per_host, bytes, intra_bandwidth_Bps, intra_latency_s);
}

double algbw_Bps(double bytes, double time_s) {
  assert(time_s > 0.0);
  return bytes / time_s;
}

double busbw_factor(Collective collective, int ranks) { return ring_sent_fraction(collective, ranks); }

double ring_sent_fraction(Collective collective, int ranks) {
  assert(ranks >= 1);
  if (collective == Collective::sendrecv || collective == Collective::broadcast || collective == Collective::reduce) {
    return 1.0;
  }
  const double one_pass = static_cast<double>(ranks - 1) / ranks;
  return collective == Collective::allreduce ? 2.0 * one_pass : one_pass;
}

int ring_steps(Collective collective, int ranks) {
  assert(ranks >= 1);
  assert(collective == Collective::allreduce || collective == Collective::reduce_scatter ||
         collective == Collective::allgather);
  return collective == Collective::allreduce ? 2 * (ranks - 1) : ranks - 1;
}

double chain_time_s(int ranks, double bytes, double bandwidth_Bps, double latency_s) {
  assert(ranks >= 1 && bandwidth_Bps > 0);
  if (ranks == 1) return 0.0;
  return bytes / bandwidth_Bps + (ranks - 1) * latency_s;
}

double busbw_Bps(Collective collective, int ranks, double algorithm_bandwidth_Bps) {
  return algorithm_bandwidth_Bps * busbw_factor(collective, ranks);
}

}  // namespace vtsim
