#include "models/catalog/nic_catalog.hpp"

#include <cassert>

#include "models/catalog/catalog_lookup.hpp"
#include "models/core/units.hpp"

// Sources. [S] marks a secondary source.
//   CX5 PB     Mellanox ConnectX-5 EN card product brief: two ports of up to 100 GbE, "sub-600ns latency".
//   CX5 UM     NVIDIA ConnectX-5 Ethernet adapter cards user manual: MCX512A-ACAT dual-port SFP28 10/25 GbE on PCIe 3.0
//              x8; MCX516A-CCAT dual-port QSFP28 100 GbE on PCIe 3.0 x16.
//   CX6 PB     Mellanox ConnectX-6 EN card product brief: two ports of up to 200 GbE, "sub 0.8usec latency", PCIe 4.0
//              (the VPI/InfiniBand cards' user manual quotes sub-600ns; 0.8 us is the Ethernet figure used here).
//   CX6 UM     NVIDIA ConnectX-6 EN user manual: MCX613106A-VDAT dual-port QSFP56 200 GbE, PCIe 3.0/4.0 x16; "up to
//              200GbE in a PCIe Gen 4.0 slot" (the x16 Gen4 slot carries one port at line rate, not two).
//   RDMA BW    [S] Mellanox community post: ib_send_bw over 100 GbE (ConnectX-4 MCX456A-ECAT, SN2700 switch) reaches
//              ~97 Gb/s at 64 KiB messages; [S] J. Synchrotron Rad. 27 (2020) 1297, doi:10.1107/S1600577520008140,
//              table 2: RoCE v2 SEND 97.6 Gb/s with 4096-byte packets on 100 GbE.
//   RDMA LAT   [S] D. Potter, master's thesis (git.dennispotter.eu, tables/mtu_performance.tex): ib_send_lat, RC,
//              32 B, 0.81 us one-way (half round trip), one HCA; the link layer (InfiniBand or RoCE) is not stated.
//   ROCE SPEC  InfiniBand Trade Association, RoCE (Annex A16, 2010: Ethernet link layer, EtherType 0x8915, not
//              routable) and RoCEv2 (Annex A17, 2014: UDP/IP, port 4791, routable).
//   PVRDMA DOC VMware vSphere 6.5 networking guide, "Remote Direct Memory Access for Virtual Machines": same host
//              memcpy, different hosts through the physical HCA, TCP fallback when a host has none; vSphere API 6.7
//              VirtualVmxnet3Vrdma.deviceProtocol: rocev1 | rocev2.
//   PT RDMA    VMware study of passthrough RDMA in VMs, QDR InfiniBand [P] (as summarised in
//              docs/hardware-facts.md): 1.75 us half round trip for Send.
//   GDR        NVIDIA GPUDirect RDMA documentation: a NIC with peer-memory support (nvidia-peermem) reads and writes
//              GPU memory; NCCL's socket transport supports host pointers only (src/transport/net_socket.cc,
//              ncclSocketPtrSupport: NCCL_PTR_HOST); a guest's PVRDMA device has no GPUDirect RDMA (PVRDMA DOC: a
//              paravirtual device backed by the host's HCA, which the guest's GPU driver cannot peer with).
//   TCP CORE   [S] ESnet fasterdata, "Performance Expectations for a 100G Host" (2024-01-17): one TCP stream, i.e.
//              one core, reaches 15-35 Gb/s on a tuned 100G host; N. Hagoort (VMware), "Auto-Tuning vMotion
//              Streams" (2021-03-09): one vMotion stream, one core, fills about 15 GbE. The low end, 15 Gb/s per
//              core, is taken for a guest's virtual NIC path; uncalibrated for any particular VM.
//   CX6 VPI    NVIDIA ConnectX-6 VPI adapter documentation, "Interfaces" [P]: PCIe Gen 3.0/4.0 x16; the card's ID
//              string [S]: "MCX653105A-HDAT ConnectX-6 VPI adapter card, HDR IB (200Gb/s) and 200GbE, single-port QSFP56";
//              Lenovo Press LP1195 [S]: "200 Gb/s total bandwidth at sub-600 nanosecond latency".
//   CX7 VPI    NVIDIA ConnectX-7 VPI documentation, "Introduction" [P]: single-port OSFP, NDR 400Gb/s and 400GbE;
//              ConnectX-7 OCP3 manual [P]: PCIe Gen 5.0 x16. No latency figure is published for ConnectX-7: the
//              ConnectX-6 VPI's sub-600 ns is taken, and reported as uncalibrated.
//              VPI cards run InfiniBand or Ethernet (RoCE); the EN cards above Ethernet only.
//   BF3        NVIDIA BlueField-3 Networking Platform user guide, "Supported Interfaces" [P]: the B3140H SuperNIC
//              (900-9D3D4-00EN-HA0) on "PCIe Gen 5.0 through an x16 edge connector"; its device description [S]
//              (mlxconfig output in a public Spectrum-X host configuration guide): "B3140H E-series HHHL SuperNIC;
//              400GbE (default mode) / NDR IB; Single-port QSFP112; PCIe Gen5.0 x16". The Spectrum-X network
//              operator documentation [P] pairs it with Spectrum switches for RoCE between GPUs; NVIDIA's GPU operator
//              documentation [P]: GPUDirect RDMA works with ConnectX and BlueField adapters. No latency figure is
//              published for BlueField-3: the ConnectX-6 VPI's sub-600 ns is taken, and reported as uncalibrated.
//              Its Arm cores and DPU offloads are not modelled: as a NIC it is its port.
//   IB PKT     InfiniBand per-packet headers (IBA specification: LRH 8, BTH 12, ICRC 4 bytes, as Linux's
//              include/rdma/ib_pack.h gives them; VCRC 2 bytes, IBA 7.8.2 [S]), 4096-byte MTU: at most
//              4096 / 4122 = 0.9937 of the line rate carries payload. Measured [S]: ib_write_bw with GPUDirect, 8 MiB,
//              392.8-393.0 Gb/s on each of 8 NDR 400 Gb/s HCAs (a public fork of Azure/azurehpc-health-checks,
//              customTests/debugging-test-failure.md); 23,317.65 MB/s = 195.6 Gb/s on a ConnectX-6 HDR 200 Gb/s pair
//              (a public perftest log): 0.98 of the line rate both. Latency: RDMA LAT's ib_send_lat, whose link
//              layer is not stated, as for RoCE; no InfiniBand-specific figure was found.
//   IB AR      NVIDIA InfiniBand cluster bring-up procedure, "Adaptive Routing" [S]: the switch selects the output
//              port by load, enabled by default in opensm.conf (ar_updn); NCCL env docs: NCCL_IB_ADAPTIVE_ROUTING
//              "Enabled (1) by default on IB networks. Disabled (0) by default on RoCE"; MLNX_OFED "Out-of-Order Data
//              Placement": packets of one QP may take different paths (ConnectX-5 and later).
//   IEEE 802.3 Ethernet framing: 1500-byte MTU, 14-byte header, 4-byte FCS, 8-byte preamble/SFD, 12-byte inter-frame
//              gap; RFC 791/9293: 20-byte IPv4 and TCP headers; RFC 7323: 12-byte TCP timestamp option.

namespace vtsim {
namespace {

using units::gbps;
using units::ns;
using units::us;

constexpr double kRdmaEfficiency = 0.97;  // RDMA BW [S]: ~97 Gb/s of 100 Gb/s for large messages
// RDMA LAT [S] minus the CX5 PB adapter latency: what the verbs software path adds to one message, derived.
constexpr double kRdmaAddedLatency_s = 0.81e-6 - 600e-9;
// TCP payload per Ethernet frame at MTU 1500 over what the wire carries (IEEE 802.3, RFC 791/9293/7323):
// (1500 - 20 IP - 20 TCP - 12 timestamps) / (1500 + 14 + 4 + 8 + 12) = 1448 / 1538.
constexpr double kTcpFramingEfficiency = 1448.0 / 1538.0;
constexpr double kTcpCoreBps = 15e9 / 8;  // TCP CORE [S]: 15 Gb/s per core, the low end of the published range
constexpr double kInfinibandEfficiency = 0.98;  // IB PKT [S]: ib_write_bw 392.8/400 (NDR) and 195.6/200 (HDR)

std::vector<TransportSpec> build_transport_catalog() {
  return {
      {.transport = Transport::roce_v1,
       .description = "RoCE v1: RDMA on the Ethernet link layer; hosts must share one L2 broadcast domain",
       .added_latency_s = kRdmaAddedLatency_s,
       .bandwidth_efficiency = kRdmaEfficiency,
       .routable = false,  // ROCE SPEC, Annex A16
       .gpudirect_rdma = true,  // GDR: a passed-through or SR-IOV ConnectX with nvidia-peermem
       .stack_core_Bps = 0,
       .uncalibrated = false,
       .source = "IBTA RoCE Annex A16; ib_send_bw ~97 Gb/s on 100 GbE [S]; ib_send_lat 0.81 us [S]"},
      {.transport = Transport::roce_v2,
       .description = "RoCE v2: RDMA over UDP/IP, routable across racks",
       .added_latency_s = kRdmaAddedLatency_s,
       .bandwidth_efficiency = kRdmaEfficiency,  // v2's 28-byte IP+UDP vs v1's 40-byte GRH: < 0.3% apart at 4 KiB MTU
       .routable = true,                         // ROCE SPEC, Annex A17
       .gpudirect_rdma = true,                   // GDR
       .stack_core_Bps = 0,
       .uncalibrated = false,
       .source = "IBTA RoCEv2 Annex A17; RoCE v2 SEND 97.6 Gb/s [S]; ib_send_lat 0.81 us [S]"},
      // PVRDMA: uncalibrated. No published latency or bandwidth figure was found. Defaults: the latency is the
      // published passthrough RDMA half round trip on vSphere (PT RDMA, 1.75 us), as an order of magnitude for a
      // virtualized RDMA path; the efficiency assumes the physical HCA's RoCE rate (PVRDMA DOC: between hosts the
      // data goes through the HCA). Routable when the device protocol is RoCE v2 (vSphere 6.7+).
      {.transport = Transport::pvrdma,
       .description = "VMware paravirtual RDMA: HCA between hosts, memcpy within one host, TCP without an HCA",
       .added_latency_s = us(1.75),
       .bandwidth_efficiency = kRdmaEfficiency,
       .routable = true,
       .gpudirect_rdma = false,  // GDR: staged through guest memory
       .stack_core_Bps = 0,      // verbs on the paravirtual device bypass the guest's stack
       .uncalibrated = true,
       .source = "uncalibrated: latency = vSphere passthrough RDMA 1.75 us, efficiency = RoCE's; calibrate"},
      // TCP: uncalibrated. The efficiency is the framing ceiling at MTU 1500 (derived above); the stack latency is a
      // placeholder of 10 us per message one way, a round figure for a kernel socket path on each side, not taken
      // from any measurement: calibrate it (e.g. netperf TCP_RR or sockperf between the VMs).
      {.transport = Transport::tcp,
       .description = "TCP/IP sockets through the guest and host network stacks",
       .added_latency_s = us(10),
       .bandwidth_efficiency = kTcpFramingEfficiency,
       .routable = true,
       .gpudirect_rdma = false,  // GDR: NCCL's sockets take host memory only
       .stack_core_Bps = kTcpCoreBps,
       .uncalibrated = true,
       .source = "uncalibrated: efficiency = MTU 1500 framing (1448/1538), latency = 10 us placeholder, 15 Gb/s per "
                 "core through the stack (ESnet, VMware [S])"},
      {.transport = Transport::infiniband,
       .description = "InfiniBand: native RDMA on a VPI adapter, credit-based; adaptive routing by default",
       .added_latency_s = kRdmaAddedLatency_s,        // RDMA LAT [S], as for RoCE
       .bandwidth_efficiency = kInfinibandEfficiency,  // IB PKT [S]
       .routable = true,                               // one subnet across the leaf-spine fabric
       .gpudirect_rdma = true,                         // GDR
       .stack_core_Bps = 0,
       .uncalibrated = false,
       .source = "ib_write_bw 392.8 Gb/s on NDR 400, 195.6 on HDR 200 [S]; ib_send_lat 0.81 us [S]"},
  };
}

std::vector<NicSpec> build_nic_catalog() {
  return {
      {.id = "connectx-5-25gbe", .name = "Mellanox ConnectX-5 EN 25GbE dual-port (MCX512A-ACAT)",
       .line_rate_Bps = gbps(25), .ports = 2,  // CX5 UM
       .latency_s = ns(600),                   // CX5 PB, sub-600ns
       .latency_uncalibrated = false,
       .infiniband = false,                     // EN: Ethernet only
       .pcie_gen = 3, .pcie_lanes = 8,         // CX5 UM
       .source = "ConnectX-5 EN product brief; ConnectX-5 EN user manual"},
      {.id = "connectx-5-100gbe", .name = "Mellanox ConnectX-5 EN 100GbE dual-port (MCX516A-CCAT)",
       .line_rate_Bps = gbps(100), .ports = 2,  // CX5 PB, CX5 UM
       .latency_s = ns(600),                    // CX5 PB, sub-600ns
       .latency_uncalibrated = false,
       .infiniband = false,                     // EN: Ethernet only
       .pcie_gen = 3, .pcie_lanes = 16,         // CX5 UM
       .source = "ConnectX-5 EN product brief; ConnectX-5 EN user manual"},
      {.id = "connectx-6-200gb", .name = "Mellanox ConnectX-6 EN 200GbE dual-port (MCX613106A-VDAT)",
       .line_rate_Bps = gbps(200), .ports = 2,  // CX6 PB, CX6 UM
       .latency_s = ns(800),                    // CX6 PB, sub 0.8 us (Ethernet)
       .latency_uncalibrated = false,
       .infiniband = false,                     // EN: Ethernet only
       .pcie_gen = 4, .pcie_lanes = 16,         // CX6 UM
       .source = "ConnectX-6 EN product brief; ConnectX-6 EN user manual"},
      {.id = "connectx-6-vpi-hdr", .name = "NVIDIA ConnectX-6 VPI HDR 200Gb/s / 200GbE single-port (MCX653105A-HDAT)",
       .line_rate_Bps = gbps(200), .ports = 1,  // CX6 VPI
       .latency_s = ns(600),                    // CX6 VPI, sub-600 ns
       .latency_uncalibrated = false,
       .infiniband = true,                      // CX6 VPI: HDR InfiniBand or 200GbE
       .pcie_gen = 4, .pcie_lanes = 16,         // CX6 VPI
       .source = "ConnectX-6 VPI documentation; Lenovo Press LP1195 [S]"},
      {.id = "connectx-7-400g",
       .name = "NVIDIA ConnectX-7 VPI NDR 400Gb/s / 400GbE single-port OSFP (MCX75310AAS-NEAT)",
       .line_rate_Bps = gbps(400), .ports = 1,  // CX7 VPI
       .latency_s = ns(600),                    // uncalibrated: CX6 VPI's figure, none published for ConnectX-7
       .latency_uncalibrated = true,
       .infiniband = true,                      // CX7 VPI: NDR InfiniBand or 400GbE
       .pcie_gen = 5, .pcie_lanes = 16,         // CX7 VPI
       .source = "ConnectX-7 VPI documentation and OCP3 manual; latency uncalibrated (ConnectX-6 VPI's sub-600 ns)"},
      {.id = "bluefield-3-400g",
       .name = "NVIDIA BlueField-3 B3140H SuperNIC 400GbE / NDR single-port QSFP112 (900-9D3D4-00EN-HA0)",
       .line_rate_Bps = gbps(400), .ports = 1,  // BF3
       .latency_s = ns(600),                    // uncalibrated: CX6 VPI's figure, none published for BlueField-3
       .latency_uncalibrated = true,
       .infiniband = true,                      // BF3: 400GbE or NDR InfiniBand
       .pcie_gen = 5, .pcie_lanes = 16,         // BF3
       .source = "BlueField-3 networking platform user guide; latency uncalibrated (ConnectX-6 VPI's sub-600 ns)"},
  };
}

}  // namespace

std::string_view to_string(Transport transport) {
  switch (transport) {
    case Transport::roce_v1: return "roce_v1";
    case Transport::roce_v2: return "roce_v2";
    case Transport::pvrdma: return "pvrdma";
    case Transport::tcp: return "tcp";
    case Transport::infiniband: return "infiniband";
  }
  return "?";
}

std::optional<Transport> parse_transport(std::string_view text) {
  for (const TransportSpec& spec : transport_catalog()) {
    if (to_string(spec.transport) == text) return spec.transport;
  }
  return std::nullopt;
}

const std::vector<TransportSpec>& transport_catalog() {
  static const std::vector<TransportSpec> catalog = build_transport_catalog();
  return catalog;
}

const TransportSpec& transport_spec(Transport transport) {
  for (const TransportSpec& spec : transport_catalog()) {
    if (spec.transport == transport) return spec;
  }
  assert(false && "every Transport has a catalog entry");
  return transport_catalog().front();
}

const std::vector<NicSpec>& nic_catalog() {
  static const std::vector<NicSpec> catalog = build_nic_catalog();
  return catalog;
}

const NicSpec* find_nic(std::string_view id) { return find_by_id(nic_catalog(), id); }

}  // namespace vtsim
