#include "sim/communicators.hpp"

#include <simgrid/s4u/Mailbox.hpp>

#include "models/collective_model.hpp"
#include "models/error.hpp"

namespace vtsim::sim {
namespace {

namespace sg4 = simgrid::s4u;

std::vector<GpuFlow> all_ring_flows(const std::vector<std::vector<int>>& rings) {
  std::vector<GpuFlow> flows;
  for (const auto& ring : rings) {
    const std::vector<GpuFlow> more = ring_flows(ring);
    flows.insert(flows.end(), more.begin(), more.end());
  }
  return flows;
}

}  // namespace

JobRings job_rings(const Scenario& scenario, std::size_t index, const Topology& topology) {
  const JobConfig& job = scenario.jobs[index];
  JobRings rings;
  rings.ring = topology.ring_order(job.gpu_ids);
  for (int gpu : rings.ring) {
    const int host = topology.location(gpu).host;
    if (rings.intra_host.empty() || topology.location(rings.intra_host.back().front()).host != host) {
      rings.intra_host.emplace_back();
    }
    rings.intra_host.back().push_back(gpu);
  }
  if (job.horovod.allreduce == AllreduceAlgorithm::hierarchical) {
    const std::size_t per_host = rings.intra_host.front().size();
    for (const auto& host_gpus : rings.intra_host) {
      if (host_gpus.size() != per_host) {
        throw InputError(scenario.file + ": jobs[" + std::to_string(index) +
                         "].horovod.allreduce: 'hierarchical' needs the same number of the job's GPUs on every host; "
                         "host " + std::to_string(topology.location(host_gpus.front()).host) + " has " +
                         std::to_string(host_gpus.size()) + ", host " +
                         std::to_string(topology.location(rings.intra_host.front().front()).host) + " has " +
                         std::to_string(per_host));
      }
    }
    rings.inter_host.assign(per_host, {});
    for (const auto& host_gpus : rings.intra_host) {
      for (std::size_t l = 0; l < per_host; ++l) rings.inter_host[l].push_back(host_gpus[l]);
    }
  }
  return rings;
}

RingGroup ring_group(const std::string& name, const std::vector<int>& gpus, const Topology& topology,
                     const Platform& platform) {
  RingGroup group;
  group.name = name;
  const std::size_t n = gpus.size();
  for (std::size_t i = 0; i < n; ++i) {
    group.hosts.push_back(platform.gpu_host(gpus[i]));
    group.inboxes.push_back(sg4::Mailbox::by_name(name + "." + std::to_string(i)));
    const int previous = gpus[(i + n - 1) % n];
    group.incoming_latency_s.push_back(n > 1 ? topology.latency_s(topology.route(previous, gpus[i])) : 0.0);
  }
  return group;
}

std::unique_ptr<Allreduce> make_allreduce(const JobConfig& job, const std::string& name, const JobRings& rings,
                                          const Topology& topology, const Platform& platform, Fidelity fidelity) {
  const bool hierarchical = job.horovod.allreduce == AllreduceAlgorithm::hierarchical;
  if (fidelity == Fidelity::analytic) {
    if (!hierarchical) {
      const FlowBottleneck ring = concurrent_bottleneck(topology, ring_flows(rings.ring));
      const int n = static_cast<int>(rings.ring.size());
      return make_analytic_allreduce([=](double bytes) {
        return ring_allreduce_time_s(n, bytes, ring.rate_Bps, ring.latency_s);
      });
    }
    const FlowBottleneck intra = concurrent_bottleneck(topology, all_ring_flows(rings.intra_host));
    const FlowBottleneck inter = concurrent_bottleneck(topology, all_ring_flows(rings.inter_host));
    const int hosts = static_cast<int>(rings.intra_host.size());
    const int per_host = static_cast<int>(rings.inter_host.size());
    return make_analytic_allreduce([=](double bytes) {
      return hierarchical_allreduce_time_s(hosts, per_host, bytes, intra.rate_Bps, intra.latency_s, inter.rate_Bps,
                                           inter.latency_s);
    });
  }
  if (!hierarchical) return make_ring_allreduce(ring_group(name + ".ring", rings.ring, topology, platform), fidelity);
  std::vector<RingGroup> intra;
  for (std::size_t h = 0; h < rings.intra_host.size(); ++h) {
    intra.push_back(ring_group(name + ".host" + std::to_string(h), rings.intra_host[h], topology, platform));
  }
  std::vector<RingGroup> inter;
  for (std::size_t l = 0; l < rings.inter_host.size(); ++l) {
    inter.push_back(ring_group(name + ".local" + std::to_string(l), rings.inter_host[l], topology, platform));
  }
  return make_hierarchical_allreduce(std::move(intra), std::move(inter), fidelity);
}

/// Bytes each ring edge of a job carries per step, per flow: 2(N-1)/N of the data for a ring allreduce.
std::vector<std::pair<GpuFlow, double>> job_traffic(const JobConfig& job, const JobRings& rings, double bytes) {
  std::vector<std::pair<GpuFlow, double>> traffic;
  const auto add_rings = [&](const std::vector<std::vector<int>>& groups, double data) {
    for (const auto& ring : groups) {
      const double n = static_cast<double>(ring.size());
      for (const GpuFlow& flow : ring_flows(ring)) traffic.push_back({flow, 2.0 * (n - 1) / n * data});
    }
  };
  if (job.horovod.allreduce == AllreduceAlgorithm::hierarchical) {
    add_rings(rings.intra_host, bytes);
    add_rings(rings.inter_host, bytes / static_cast<double>(rings.inter_host.size()));
  } else {
    add_rings({rings.ring}, bytes);
  }
  return traffic;
}

}  // namespace vtsim::sim
