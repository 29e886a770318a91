#pragma once
// Host catalog: the servers GPUs come in, as their vendors describe them (`cluster.host.model`).
//
// A catalogued host gives a scenario its GPUs (count and the models it is sold with), its compute NICs and, what a
// generic host cannot, its CPU: on bare metal the training processes and their data loaders have the host's cores
// (a VM has its vCPUs, virtualization.vm_cpu_cores), and where its source gives them, the PCIe switches its GPUs and
// NICs share (pcie_switch_gpus). The rest (memory, CPU clocks, `pcie_layout` in words) is catalogued for the reader.
// Every number is cited in host_catalog.cpp.

#include "models/catalog/catalog_guard.hpp"  // refused in sim/ and models/network/

#include <string>
#include <string_view>
#include <vector>

namespace vtsim {

/// One server model.
struct HostSpec {
  std::string id;                       ///< scenario key, e.g. "dgx-a100"
  std::string name;                     ///< vendor's name
  std::string cpu;                      ///< CPU model, e.g. "2x AMD EPYC 7742"
  int cpu_cores = 0;                    ///< physical cores, all sockets together
  int cpu_threads = 0;                  ///< logical processors (hardware threads), all sockets together
  double cpu_base_clock_hz = 0;         ///< base clock; catalogued, not simulated
  double memory_bytes = 0;              ///< system memory as shipped, bytes (binary TB/GB); catalogued, not simulated
  int gpus = 0;                         ///< GPUs per host
  std::vector<std::string> gpu_models;  ///< GPU catalog ids it is sold with; the first is the default
  int nics = 0;                         ///< compute-fabric NICs per host (storage and management NICs left out)
  std::string nic_model;                ///< NIC catalog id of those NICs; empty when it has none
  std::string pcie_layout;              ///< which GPUs and NICs share a PCIe switch or a socket, in words
  /// GPUs behind each PCIe switch where the source says (the switch's one x16 uplink to the CPU is then shared, and
  /// simulated, cluster.host.pcie_switch_gpus); 0 where it does not.
  int pcie_switch_gpus = 0;
  std::string source;                   ///< short citation shown by `vtsim catalog hosts`
};

/// Every catalogued host. Built once, never changes.
const std::vector<HostSpec>& host_catalog();

/// The host with this id, or nullptr when unknown.
const HostSpec* find_host(std::string_view id);

}  // namespace vtsim
