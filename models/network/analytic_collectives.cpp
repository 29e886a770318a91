#include "models/network/analytic_collectives.hpp"

#include <vector>

#include "models/collectives/collective_model.hpp"
#include "models/network/flow_analysis.hpp"

namespace vtsim {

CollectiveTime flat_collective_time(NcclCollective collective, const JobRings& rings, const Topology& topology,
                                    const NcclCommunicator& nccl) {
  const bool chain = collective == NcclCollective::broadcast || collective == NcclCollective::reduce;
  const std::vector<GpuFlow> flows = flows_of(flat_rings(rings));
  const FlowBottleneck ring = concurrent_bottleneck(topology, flows);
  const double rate_Bps = ring.rate_Bps * nccl_channel_bandwidth_fraction(nccl);
  const NcclHop hop = slowest_hop(topology, flows);
  const int n = static_cast<int>(rings.ring.size());
  const double channels = static_cast<double>(rings.channels.size());
  return [=](double bytes, NcclProtocol protocol) {
    const double alpha = ring.latency_s + nccl_step_extra_s(hop, protocol);
    return chain ? ChainAlgorithm(n).time_s(bytes / channels, rate_Bps, alpha)
                 : RingAlgorithm(collective_of(collective), n).time_s(bytes / channels, rate_Bps, alpha);
  };
}

CollectiveTime hierarchical_allreduce_time(const JobRings& rings, const Topology& topology) {
  const FlowBottleneck intra = concurrent_bottleneck(topology, flows_of(intra_rings(rings)));
  const FlowBottleneck inter = concurrent_bottleneck(topology, flows_of(inter_rings(rings)));
  const int hosts = static_cast<int>(rings.intra_host.size());
  const int per_host = static_cast<int>(rings.inter_host.size());
  // The intra-host rings of a host split its data: each flow carries 1/rings of it, at the shared rate.
  const double intra_rate = intra.rate_Bps * static_cast<double>(rings.intra_host_channels.front().size());
  const NcclHop intra_hop = slowest_hop(topology, flows_of(intra_rings(rings)));
  const NcclHop inter_hop = slowest_hop(topology, flows_of(inter_rings(rings)));
  return [=](double bytes, NcclProtocol protocol) {
    return HierarchicalAllreduceAlgorithm(hosts, per_host)
        .time_s(bytes, intra_rate, intra.latency_s + nccl_step_extra_s(intra_hop, protocol), inter.rate_Bps,
                inter.latency_s + nccl_step_extra_s(inter_hop, protocol));
  };
}

}  // namespace vtsim
