#pragma once
// The `analytic` fidelity's collectives: the closed forms of models/collectives/collective_model.hpp at the rate and
// latency a communicator's rings reach together on the topology (concurrent_bottleneck: each link direction split
// equally among the flows crossing it), plus NCCL's extra per-step latency of their slowest hop class under the
// protocol NCCL picks. No SimGrid: sim/collectives/communicators.cpp runs each as one wait of this many seconds in the
// engine.

#include <functional>

#include "models/collectives/nccl_tuning.hpp"
#include "models/network/rings.hpp"
#include "models/network/topology.hpp"

namespace vtsim {

/// Seconds a collective of `bytes` (nccl-tests' size: the whole buffer) takes under `protocol`.
using CollectiveTime = std::function<double(double bytes, NcclProtocol protocol)>;

/// `collective` over the flat channel rings of `rings`, each channel carrying an equal share of the bytes at the
/// fraction of the channels' rate that `nccl`'s channel count moves (nccl_channel_bandwidth_fraction): a ring
/// (RingAlgorithm: two passes for all_reduce, one for all_gather and reduce_scatter), a pipelined chain for broadcast
/// and reduce (ChainAlgorithm). REQUIRES: rings from group_rings (at least one channel) over the topology's GPUs.
CollectiveTime flat_collective_time(NcclCollective collective, const JobRings& rings, const Topology& topology,
                                    const NcclCommunicator& nccl);

/// Horovod's hierarchical allreduce over `rings` (hierarchical_rings): HierarchicalAllreduceAlgorithm with the
/// intra-host rings' rate (each host's channel rings splitting its data) and the inter-host rings'. REQUIRES: rings
/// from hierarchical_rings.
CollectiveTime hierarchical_allreduce_time(const JobRings& rings, const Topology& topology);

}  // namespace vtsim
