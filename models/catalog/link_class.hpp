#pragma once
// The classes of physical link in a cluster, a link's default figures, and how the GPUs of one host are wired by
// NVLink: the types the engine's topology is built from, apart from the scenario (models/catalog/link_defaults.hpp
// gives each class's default for a scenario).

#include <string>
#include <string_view>

namespace vtsim {

/// The classes of physical link in the topology.
enum class LinkClass {
  nvlink,       ///< NVLink or NVLink bridge, GPU to GPU or GPU to NVSwitch
  pcie,         ///< a GPU's PCIe x16 link to its host's PCIe root
  host_memory,  ///< the CPU-side transport through host memory used by GPUs without peer-to-peer access
  nic,          ///< a NIC port and its cable to its rack's leaf switch (its rail's), with the transport's costs
  fabric,       ///< a leaf-to-spine uplink
  tcp_stack,    ///< one rank's share of its VM's cores running the guest's TCP stack (TCP between hosts only)
};

/// The spelling used in names and results: "nvlink", "pcie", "host_memory", "nic", "fabric", "tcp_stack".
std::string_view to_string(LinkClass link_class);

/// Default figures of one link class.
struct LinkDefault {
  double bandwidth_Bps = 0;  ///< per direction, after protocol efficiency, bytes/s
  double latency_s = 0;      ///< per message on the path this default describes, s
  bool uncalibrated = true;  ///< true when either figure is not backed by a published measurement or model
  std::string source;        ///< citation of both figures, or where an uncalibrated one came from
  bool bandwidth_measured = false;  ///< the calibration profile measured the bandwidth (with_calibration)
  bool latency_measured = false;    ///< the calibration profile measured the latency (with_calibration)
};

/// A link class with its default (models/catalog/link_defaults.hpp link_defaults_for makes them).
struct ClassDefault {
  LinkClass link_class = LinkClass::pcie;
  LinkDefault value;
};

/// How the NVLink ports of the GPUs in one host are joined.
enum class NvlinkLayout {
  none,               ///< no usable NVLink (no NVLink on the GPU, not present, or one GPU per host)
  bridge_pairs,       ///< Turing NVLink bridges joining GPUs (0,1), (2,3), ...
  full_mesh,          ///< <= 4 GPUs, every pair joined by links / (gpus - 1) links (HGX A100 4-GPU: NV4)
  nvswitch,           ///< > 4 GPUs of NVLink 3 or later, each GPU's links to NVSwitches (HGX A100/H100 8-GPU)
  hub_approximation,  ///< > 4 GPUs of NVLink 1/2: the DGX-1 hybrid cube-mesh approximated by a star
};

/// The spelling used in documents: "none", "bridge_pairs", "full_mesh", "nvswitch", "hub_approximation".
std::string_view to_string(NvlinkLayout layout);

}  // namespace vtsim
