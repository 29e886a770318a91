#pragma once
// A job's communicators: its ring (topology-aware order), and for hierarchical allreduce its intra-host and inter-host
// rings; the allreduce built on them at the scenario's fidelity; and the bytes each ring edge carries.

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/scenario.hpp"
#include "sim/collective.hpp"
#include "sim/flow_analysis.hpp"
#include "sim/platform.hpp"
#include "sim/topology.hpp"

namespace vtsim::sim {

/// The communicator layout of a job.
struct JobRings {
  std::vector<int> ring;                      ///< all the job's GPUs, topology-aware order
  std::vector<std::vector<int>> intra_host;   ///< per host of the job, its GPUs in ring order
  std::vector<std::vector<int>> inter_host;   ///< hierarchical only: per local index, the GPUs with it on each host
};

/// The rings of job `index`. Throws InputError when a hierarchical job has unequal GPU counts on its hosts.
JobRings job_rings(const Scenario& scenario, std::size_t index, const Topology& topology);

/// A SimGrid ring over `gpus` (in that order) whose mailboxes are named after `name`.
RingGroup ring_group(const std::string& name, const std::vector<int>& gpus, const Topology& topology,
                     const Platform& platform);

/// The job's allreduce at `fidelity`. REQUIRES: a running engine whose platform is `platform`.
std::unique_ptr<Allreduce> make_allreduce(const JobConfig& job, const std::string& name, const JobRings& rings,
                                          const Topology& topology, const Platform& platform, Fidelity fidelity);

/// Each ring edge of the job with the bytes it carries for an allreduce of `bytes`: 2(N-1)/N of the data per edge of an
/// N-rank ring; hierarchical rings carry the full data inside hosts and 1/G of it across.
std::vector<std::pair<GpuFlow, double>> job_traffic(const JobConfig& job, const JobRings& rings, double bytes);

}  // namespace vtsim::sim
