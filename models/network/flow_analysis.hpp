#pragma once
// Static analysis of concurrent flows on the topology: which link directions they share, and the rate each gets.
// Used by the `analytic` fidelity (closed form with the bottleneck found on the graph) and for link accounting.

#include <utility>
#include <vector>

#include "models/network/topology.hpp"

namespace vtsim {

/// A flow between two GPUs; `flow` tells apart several connections of one pair (NCCL's channels), which ECMP may
/// hash onto different spines (Topology::route).
struct GpuFlow {
  int src = 0;
  int dst = 0;
  int flow = 0;
};

/// What a set of flows running at once gets from the topology.
struct FlowBottleneck {
  double rate_Bps = 0;   ///< the slowest flow's rate when each link direction is split equally among its flows
  double latency_s = 0;  ///< the largest route latency among the flows
};

/// Equal-share bottleneck of `flows` running concurrently: each flow gets, on each link direction it crosses, the
/// link's bandwidth divided by the number of flows crossing that direction, and its rate is the smallest such share.
/// For rings on a tree-like topology this is what max-min fairness gives too, since every flow of a ring moves the
/// same number of bytes.
FlowBottleneck concurrent_bottleneck(const Topology& topology, const std::vector<GpuFlow>& flows);

/// The flows of one ring step: position i sends to position i + 1 (mod n), as connection `flow`.
std::vector<GpuFlow> ring_flows(const std::vector<int>& ring, int flow = 0);

}  // namespace vtsim
