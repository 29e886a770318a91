#pragma once
// The topology built as nested SimGrid NetZones: cluster (full) > rack (full) > host (full), so that routing tables
// stay small (G^2 per host, H^2 per rack, R^2 at the top) at 10^4 GPUs.
//
// Each host zone holds one SimGrid host per physical GPU and a gateway router; its routes are the topology's
// intra-host routes (NVLink, PCIe P2P or host-memory staging, per the P2P rules) and each GPU's route up to the
// network. Each rack zone routes between its host zones through the leaf; the leaf's gateway router sits in its own
// one-router child zone (a router placed directly in an ancestor zone broke routing in our SimGrid probes). The
// cluster zone routes between racks through the spines.
//
// GPUs are SimGrid hosts so that communications have endpoints; kernels do not run on SimGrid's CPU model: a kernel's
// duration comes from the compute model and the rank's actor sleeps for it (see training_job.hpp).

#include <vector>

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include "sim/topology.hpp"

namespace vtsim::sim {

/// The SimGrid platform of one simulation. REQUIRES: a configured s4u::Engine with no platform yet.
class Platform {
 public:
  /// Builds zones, links and routes.
  explicit Platform(const Topology& topology);

  /// The SimGrid host standing for GPU `gpu`.
  simgrid::s4u::Host* gpu_host(int gpu) const { return gpu_hosts_[static_cast<std::size_t>(gpu)]; }

 private:
  std::vector<simgrid::s4u::Host*> gpu_hosts_;
  std::vector<simgrid::s4u::Link*> links_;  // indexed like Topology::links()
};

}  // namespace vtsim::sim
