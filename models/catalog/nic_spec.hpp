#pragma once
// The transports between hosts and one network adapter's figures (the types; models/catalog/nic_catalog.hpp holds the
// catalogued entries, the transports' defaults and the look-ups).

#include <optional>
#include <string>
#include <string_view>

namespace vtsim {

/// How data moves between hosts.
enum class Transport {
  roce_v1,  ///< RDMA over Converged Ethernet v1: Ethernet link layer, one L2 broadcast domain only
  roce_v2,  ///< RoCE v2: RDMA over UDP/IP, routable across racks
  pvrdma,   ///< VMware paravirtual RDMA (vSphere 6.5+): the physical HCA between hosts, memcpy within one host
  tcp,      ///< kernel TCP/IP sockets
  infiniband,  ///< native InfiniBand RDMA on an InfiniBand-capable (VPI) adapter, credit-based, no Ethernet
};

/// The scenario spelling: "roce_v1", "roce_v2", "pvrdma", "tcp", "infiniband".
std::string_view to_string(Transport transport);

/// Parses the scenario spelling; nullopt when unknown.
std::optional<Transport> parse_transport(std::string_view text);

/// Default costs of one transport, added to the NIC's own.
struct TransportSpec {
  Transport transport = Transport::tcp;  ///< which transport
  std::string description;               ///< one line for `vtsim catalog transports`
  double added_latency_s = 0;            ///< one-way per-message software/stack latency added to the NIC's own, s
  double bandwidth_efficiency = 1;       ///< achievable fraction of the NIC line rate for large messages, (0, 1]
  bool routable = true;                  ///< false for RoCE v1 (L2 only: one broadcast domain)
  /// Whether the NIC reads and writes GPU memory directly (GPUDirect RDMA); otherwise NCCL stages every message
  /// through host memory (the GPU's kernels write it there, the NIC or the socket reads it).
  bool gpudirect_rdma = false;
  /// What one CPU core moves through the guest's network stack per direction, bytes/s; 0 for RDMA, which bypasses
  /// it. Drawn from the VM's cores (models/compute/vm_cpu.hpp).
  double stack_core_Bps = 0;
  bool uncalibrated = true;              ///< true where no published figure backs these defaults
  std::string source;                    ///< short citation, or where an uncalibrated default came from
};

/// One network adapter model.
struct NicSpec {
  std::string id;            ///< scenario key, e.g. "connectx-5-100gbe"
  std::string name;          ///< product name and part number
  double line_rate_Bps = 0;  ///< line rate of one port, bytes/s
  int ports = 1;             ///< network ports on the card
  double latency_s = 0;      ///< adapter latency from the product brief (an upper bound: "sub-600ns"), s
  bool latency_uncalibrated = false;  ///< no figure published for this adapter: latency_s is borrowed, and says so
  bool infiniband = false;   ///< whether the adapter runs InfiniBand (a VPI card); Ethernet-only cards do not
  int pcie_gen = 3;          ///< PCIe generation of the card's host interface
  int pcie_lanes = 16;       ///< PCIe lanes of the card's host interface
  std::string source;        ///< short citation
};

}  // namespace vtsim
