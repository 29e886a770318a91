#include "models/catalog/link_defaults.hpp"

#include <cassert>
#include <cstdio>

#include "models/compute/vm_cpu.hpp"
#include "models/core/units.hpp"
#include "models/scenario/scenario.hpp"

// Sources. [P] primary, [S] secondary.
//   HW REF     docs/hardware-facts.md: "NVLink ring collectives reach roughly 80% of NVLink line rate after
//              protocol overhead" (NCCL maintainers [S]); nccl-tests all_reduce_perf posted publicly [S]: 4x A100 PCIe
//              in one host, every GPU pair SYS (no P2P), ~5 GB/s busbw at large sizes (4x RTX 4090 without P2P:
//              ~2.6 GB/s); HGX A100 4-GPU boards join each pair by 4 NVLink3 links (NV4) [S].
//   NCCL TUNE  [P] NVIDIA NCCL, src/graph/tuning.cc, table hwLat, Ring/LL (its fastest protocol): 0.6 us per ring
//              step over NVLink, 1.0 us over PCI. The links carry these; the slower protocols' extra per step
//              (Simple: 3.4 and 5.7 us in all) is added by the collective (models/collectives/nccl_tuning.hpp
// nccl_step_extra_s).
//              NCCL charges every intra-node path that is not NVLink as PCI (intraHw = typeIntra == LINK_NVL ? NVLINK
//              : PCI), so a step staged through host memory (its SHM transport) costs the same in NCCL's own model.
//   BOARDS     NVIDIA DGX-1 (P100/V100): 8 GPUs in a hybrid cube-mesh, not every pair linked; HGX A100/H100 8-GPU
//              boards: every GPU's links to NVSwitches (A100 and H100 whitepapers; HGX B200: NV18 between every
//              pair [S]); Turing: an NVLink bridge joins two cards (Turing whitepaper; Quadro RTX 6000/8000
//              datasheets).
//   NIC CAT    models/catalog/nic_catalog.hpp: one message between hosts costs nic.latency_s +
// transport.added_latency_s
//              + bytes / (nic.line_rate_Bps * transport.bandwidth_efficiency), each figure cited there.
//   NCCL BUF   [P] NVIDIA NCCL: NCCL_BUFFSIZE default 4 MiB (environment variables documentation), split into
//              NCCL_STEPS = 8 slots (src/include/device.h): a network transfer moves 512 KiB per step with Simple.
//   SCENARIO   models/scenario/scenario.hpp, FabricConfig: switch_latency_s default 300 ns, uncalibrated.

namespace vtsim {
namespace {

using units::us;

constexpr double kNvlinkStepLatency_s = us(0.6);  // NCCL TUNE, hwLat NVLINK Ring/LL
constexpr double kPcieStepLatency_s = us(1.0);    // NCCL TUNE, hwLat PCI Ring/LL
constexpr double kHostMemoryGen4_Bps = 5e9;       // HW REF [S]: 4x A100 PCIe, all pairs SYS, ~5 GB/s busbw
constexpr double kNcclNetSlotBytes = 4.0 * 1024 * 1024 / 8;  // NCCL BUF: NCCL_BUFFSIZE / NCCL_STEPS

const PcieSpec& pcie_spec(int pcie_gen) {
  const PcieSpec* spec = find_pcie(pcie_gen);
  assert(spec != nullptr && "validated scenarios have PCIe Gen3-5");
  return *spec;
}

}  // namespace

NvlinkLayout nvlink_layout(const GpuSpec& gpu, int gpus_per_host) {
  // BOARDS. The generations whose 8-GPU boards use NVSwitch; older ones (DGX-1) are approximated by a star.
  constexpr std::string_view kSwitchedGenerations[] = {"nvlink3", "nvlink4", "nvlink5"};
  if (gpu.nvlink_links == 0 || gpus_per_host < 2) return NvlinkLayout::none;
  if (gpu.nvlink_id == "nvlink-bridge-turing") return NvlinkLayout::bridge_pairs;
  if (gpus_per_host <= 4) return NvlinkLayout::full_mesh;
  for (std::string_view generation : kSwitchedGenerations) {
    if (gpu.nvlink_id == generation) return NvlinkLayout::nvswitch;
  }
  return NvlinkLayout::hub_approximation;
}

int nvlink_links_per_connection(const GpuSpec& gpu, int gpus_per_host) {
  switch (nvlink_layout(gpu, gpus_per_host)) {
    case NvlinkLayout::none: return 0;
    case NvlinkLayout::bridge_pairs: return gpu.nvlink_links;  // both of a TU102's links go to its partner card
    // A full mesh has floor(links / (G - 1)) links per pair (12 / 3 = NV4 on the HGX A100 4-GPU board,
    // docs/hardware-facts.md). NCCL lays several rings over the mesh at once, each over other pair links
    // (models/network/rings.cpp), so a job uses the links between its own GPUs and no more.
    case NvlinkLayout::full_mesh: return gpu.nvlink_links / (gpus_per_host - 1);
    case NvlinkLayout::nvswitch: return gpu.nvlink_links;
    // Not the DGX-1's per-pair links (1 or 2, and some pairs none): the star gives every GPU its full NVLink bandwidth
    // to every other, an optimistic approximation for rings, which NCCL lays along the cube-mesh's linked pairs.
    case NvlinkLayout::hub_approximation: return gpu.nvlink_links;
  }
  return 0;
}

LinkDefault nvlink_default(const NvlinkSpec& nvlink, int links) {
  return {.bandwidth_Bps = links * nvlink.per_link_bandwidth_Bps * kNvlinkProtocolEfficiency,
          .latency_s = kNvlinkStepLatency_s,
          .uncalibrated = false,
          .source = "links x " + nvlink.name + " per-link rate (" + nvlink.source +
                    ") x 0.8 ring protocol efficiency (NCCL maintainers [S]); 0.6 us per GPU-to-GPU step "
                    "(NCCL tuning.cc hwLat NVLINK Ring/LL; slower protocols add theirs)"};
}

LinkDefault pcie_default(int pcie_gen) {
  const PcieSpec& pcie = pcie_spec(pcie_gen);
  return {.bandwidth_Bps = pcie.typical_Bps,
          .latency_s = kPcieStepLatency_s / 2,  // a GPU-to-GPU step over PCIe crosses two links: GPU-root-GPU
          .uncalibrated = pcie.typical_uncalibrated,
          .source = "PCIe Gen" + std::to_string(pcie_gen) + " x16 typical rate (" + pcie.source +
                    "); 1.0 us per GPU-to-GPU step (NCCL tuning.cc hwLat PCI Ring/LL; slower protocols add theirs), "
                    "half per link"};
}

LinkDefault host_memory_default(int pcie_gen) {
  // Scaled from the Gen4 measurement by the ratio of typical PCIe rates: an assumption (the CPU-side transport is not
  // the PCIe link), which is why other generations are uncalibrated.
  const double scale = pcie_spec(pcie_gen).typical_Bps / pcie_spec(4).typical_Bps;
  const bool measured = pcie_gen == 4;
  return {.bandwidth_Bps = kHostMemoryGen4_Bps * scale,
          .latency_s = 0,  // NCCL TUNE: a staged step is charged like a PCIe step, already on the two PCIe links
          .uncalibrated = !measured,
          .source = std::string(measured ? "" : "uncalibrated: Gen4 figure scaled by the PCIe typical-rate ratio; ") +
                    "5 GB/s = nccl-tests all_reduce_perf busbw posted publicly, 4x A100 PCIe SYS [S] (4x RTX 4090: "
                    "2.6 GB/s); latency 0 beyond the PCIe links, as NCCL's tuning model charges SHM steps as PCI"};
}

LinkDefault nic_default(const NicSpec& nic, const TransportSpec& transport) {
  return {.bandwidth_Bps = nic.line_rate_Bps * transport.bandwidth_efficiency,
          .latency_s = nic.latency_s + transport.added_latency_s,  // NIC CAT: once per message between two hosts
          .uncalibrated = transport.uncalibrated || nic.latency_uncalibrated,
          .source = nic.name + " (" + nic.source + "); " + std::string(to_string(transport.transport)) + ": " +
                    transport.source};
}

double staging_fill_s(const TransportSpec& transport, double pcie_Bps) {
  return transport.gpudirect_rdma ? 0.0 : kNcclNetSlotBytes / pcie_Bps;
}

LinkDefault tcp_stack_default(const Scenario& scenario, int cpu_cores, int ranks_per_vm) {
  const TransportSpec& transport = transport_spec(scenario.cluster.transport);
  assert(transport.stack_core_Bps > 0);
  const std::optional<double> stated = scenario.virtualization.tcp_core_Bps;
  const double core_Bps = stated.value_or(transport.stack_core_Bps);
  const VmCpuBudget budget = vm_cpu_budget(cpu_cores, ranks_per_vm, true);
  char cores[128];
  std::snprintf(cores, sizeof cores, "%.3g network cores of %d %s for %d ranks, %.3g Gb/s per core",
                budget.network_cores, cpu_cores,
                scenario.virtualization.mode == VirtualizationMode::bare_metal ? "cores" : "vCPUs", ranks_per_vm,
                core_Bps * 8 / 1e9);
  return {.bandwidth_Bps = tcp_stack_Bps_per_direction(budget, ranks_per_vm, core_Bps),
          .latency_s = 0,  // the stack's per-message cost is the transport's added latency, on the NIC link
          .uncalibrated = !stated,
          .source = std::string(stated ? "" : "uncalibrated: ") + cores +
                    " (a sending and a receiving socket thread per rank, NCCL net_socket.cc defaults; per core: " +
                    (stated ? "virtualization.tcp_gbps_per_core" : "ESnet, VMware [S]") + ")"};
}

LinkDefault uplink_default(const ClusterConfig& cluster) {
  const FabricConfig& fabric = cluster.fabric;
  // One leaf port to one spine, at the fabric's uplink line rate (the NIC's by default). The transport's efficiency
  // applies as on the NIC links: the same packets, headers included, cross the uplinks.
  const TransportSpec& transport = transport_spec(cluster.transport);
  const NicSpec* nic = find_nic(cluster.host.nic_model);
  assert(nic != nullptr && "validated scenarios name a catalogued NIC");
  const double line_rate_Bps = fabric.uplink_bandwidth_Bps > 0 ? fabric.uplink_bandwidth_Bps : nic->line_rate_Bps;
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.3g", fabric.oversubscription);
  // Adaptive routing spreads every flow over all the spines: a leaf's uplinks act as one of their summed rate.
  const int joined = fabric.adaptive_routing ? fabric.spines : 1;
  // The line rate is the scenario's or the NIC catalog's, the efficiency the transport's, the latency one switch's:
  // the scenario's, or the uncalibrated default (which is also listed on its own where traffic crosses a switch,
  // models/resolve/resolve.cpp, as the NIC links carry a leaf's).
  const bool uncalibrated = transport.uncalibrated || !fabric.switch_latency_stated;
  return {.bandwidth_Bps = joined * line_rate_Bps * transport.bandwidth_efficiency,
          .latency_s = fabric.switch_latency_s,
          .uncalibrated = uncalibrated,
          .source = std::string(uncalibrated ? "uncalibrated: " : "") +
                    (fabric.adaptive_routing
                         ? "a leaf's " + std::to_string(fabric.spines) + " uplink ports joined by adaptive routing"
                         : "one uplink port per spine (" + std::to_string(fabric.spines) + ")") +
                    (fabric.rail_optimized ? " on each rail leaf" : "") + " at " +
                    (fabric.uplink_stated || line_rate_Bps != nic->line_rate_Bps ? "the scenario's uplink line rate"
                                                                                 : "the NIC's line rate") +
                    " x the transport's efficiency (" + transport.source + "), " + ratio +
                    ":1 oversubscribed; latency: one switch (" +
                    (fabric.switch_latency_stated ? "cluster.fabric.switch_latency_us" : "the 300 ns default") + ")"};
}

LinkDefault with_calibration(LinkDefault base, const CalibratedLink& calibrated) {
  std::string measured;
  if (calibrated.bandwidth_Bps) {
    base.bandwidth_Bps = calibrated.bandwidth_Bps->value;
    base.bandwidth_measured = true;
    measured = "bandwidth from " + calibrated.bandwidth_Bps->provenance;
  }
  if (calibrated.latency_s) {
    base.latency_s = calibrated.latency_s->value;
    base.latency_measured = true;
    measured += (measured.empty() ? "" : "; ") + std::string("latency from ") + calibrated.latency_s->provenance;
  }
  if (measured.empty()) return base;
  if (calibrated.bandwidth_Bps && calibrated.latency_s) {
    base.uncalibrated = false;
    base.source = measured;
  } else {
    base.source = measured + "; the rest: " + base.source;
  }
  return base;
}

ScenarioLinks scenario_links(const Scenario& scenario, const CalibratedParameters& calibration) {
  const ClusterConfig& cluster = scenario.cluster;
  const HostConfig& host = cluster.host;
  const GpuSpec* gpu = find_gpu(host.gpu_model);
  const NicSpec* nic = find_nic(host.nic_model);
  assert(gpu != nullptr && nic != nullptr && "validated scenarios name catalogued GPU and NIC models");
  ScenarioLinks links;
  const int nvlink_links = nvlink_links_per_connection(*gpu, host.gpus);
  if (nvlink_links > 0) {
    links.nvlink = with_calibration(nvlink_default(*find_nvlink(gpu->nvlink_id), nvlink_links), calibration.nvlink);
  }
  links.pcie = with_calibration(pcie_default(host.pcie_gen), calibration.pcie);
  links.host_memory = with_calibration(host_memory_default(host.pcie_gen), calibration.host_memory);
  const TransportSpec& transport = transport_spec(cluster.transport);
  links.nic = nic_default(*nic, transport);
  if (const CalibratedLink* measured = calibration.nic_for(transport.transport)) {
    links.nic = with_calibration(links.nic, *measured);
  }
  if (const double fill_s = staging_fill_s(transport, links.pcie.bandwidth_Bps); fill_s > 0) {
    links.nic.latency_s += 2 * fill_s;
    char fill[160];
    std::snprintf(fill, sizeof fill, "; no GPUDirect RDMA: + %.3g us per end staging a 512 KiB NCCL slot over PCIe "
                  "(NCCL_BUFFSIZE / NCCL_STEPS)", fill_s * 1e6);
    links.nic.source += fill;
  }
  links.uplink = uplink_default(cluster);
  return links;
}

std::vector<ClassDefault> link_defaults_for(const Scenario& scenario, const ScenarioLinks& links) {
  const ClusterConfig& cluster = scenario.cluster;
  const HostConfig& host = cluster.host;
  std::vector<ClassDefault> defaults;
  const int nvlink_links = nvlink_links_per_connection(*find_gpu(host.gpu_model), host.gpus);
  if (host.nvlink_present && host.nvlink_enabled && nvlink_links > 0) {
    defaults.push_back({LinkClass::nvlink, links.nvlink});
  }
  defaults.push_back({LinkClass::pcie, links.pcie});
  if (host.gpus >= 2) defaults.push_back({LinkClass::host_memory, links.host_memory});
  if (cluster.total_hosts() > 1 && host.nics > 0) defaults.push_back({LinkClass::nic, links.nic});
  if (cluster.racks > 1 && host.nics > 0) defaults.push_back({LinkClass::fabric, links.uplink});
  const TransportSpec& transport = transport_spec(cluster.transport);
  if (cluster.total_hosts() > 1 && host.nics > 0 && transport.stack_core_Bps > 0) {
    // Shown for a VM holding all of a host's GPUs; each rank's link takes its own VM's count
    // (models/network/topology.cpp).
    defaults.push_back({LinkClass::tcp_stack, tcp_stack_default(scenario, whole_host_cpu_cores(scenario), host.gpus)});
  }
  return defaults;
}

}  // namespace vtsim
