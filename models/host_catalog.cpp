#include "models/host_catalog.hpp"

#include "models/catalog_lookup.hpp"
#include "models/units.hpp"

// Sources. [P] primary (the vendor's own document or system file), [S] secondary (a copy or a third party's page).
//   DGX A100  NVIDIA DGX A100 datasheet, as copied in university cluster documentation [S] (GMU ORC, UVA RC notes):
//             2x AMD EPYC 7742, 128 cores / 256 threads, 2.25 GHz base (3.4 GHz boost); 8x A100 SXM4 40 GB (DGX A100
//             320GB, 1 TB of memory) or 80 GB (640GB model, 2 TB); 6 NVSwitches; 8x single-port ConnectX-6 VPI HDR
//             200 Gb/s for the compute fabric, plus one (320GB) or two (640GB) dual-port ConnectX-6 for storage.
//             `nvidia-smi topo -m` of a DGX A100 [S]: four PCIe groups, each two GPUs and two compute NICs behind
//             PCIe bridges (PXB), on NUMA nodes 3, 1, 7, 5; the storage NICs are SYS to every GPU.
//   DGX H100  NVIDIA DGX BasePOD reference architecture, "Core Components" [P]: 8 Hopper GPUs, 4 NVSwitch chips,
//             2x Xeon Platinum 8480C, 112 cores (224 threads), 2.0 GHz base, 3.8 GHz boost; 2 TB DDR5; eight
//             single-port ConnectX-7 VPI (InfiniBand, up to 400 Gb/s) for the compute fabric, two dual-port ConnectX-7
//             for storage and in-band management. DGX H100 user guide, table 6 [S]: one ConnectX-7 per GPU; GPUs 0-3
//             on CPU 0's network module, 4-7 on CPU 1's. The DGX H200 is the same system with H200 GPUs (BasePOD
//             reference architecture, same table [P]).
//   XE9680    Dell PowerEdge XE9680, as Dell's MLPerf Inference v3.1 system description gives it [P for that system]:
//             HGX H100 8-GPU, 2x Xeon Platinum 8470 (52 cores each), 2 TB, 8x 400 Gb/s InfiniBand, PCIe Gen5.
//   XE8545    Dell PowerEdge XE8545, as Dell's MLPerf Training v1.1 system file gives it [P for that system]
//             (mlcommons/training_results_v1.1 Dell/systems/XE8545x4A100-SXM-40GB.json): 2x AMD EPYC 7763 64-Core,
//             128 vCPUs per CPU, 1 TB (16x 64 GB DDR4-3200), 4x A100-SXM4-40GB (400 W) on NVLink 3.0, PCIe 4.0 x16,
//             2x ConnectX-6 IB HDR 200 Gb/s; the 80 GB version (inference v2.0 system file) has the same CPUs and
//             memory. The seed study's server (VMware, 2022) was a Dell PowerEdge with 4x A100 40GB SXM4; whether it
//             was this configuration its post does not say.
//   DGX B200  NVIDIA DGX B200 user guide, "Hardware Overview" [P]: 8x B200 (1,440 GB of GPU memory), 2x Intel Xeon
//             Platinum 8570 with 56 cores each, 2.1 GHz base (4 GHz boost), 2 TB (32 DIMMs), 2 NVLink 5 switches;
//             4 OSFP ports for 8 single-port ConnectX-7 cards (InfiniBand up to 400 Gb/s) for the cluster network,
//             2 dual-port BlueField-3 DPUs for storage and in-band management. NVIDIA's MLPerf Training v5.0 system
//             file nyx_n1_ngc25.04_nemo.json [P for that system]: "8x ConnectX-7 IB NDR 400Gb/s", 2.0 TB. Threads:
//             2 per core (third-party NUMA listings of B200 nodes, CPUs 0-223 [S]). The user guide's topology figure
//             could not be read: which GPUs and NICs share a PCIe switch is not published here.
// Clocks and PCIe layouts that no source above gives are left out (0 / "not published").

namespace vtsim {
namespace {

constexpr double tib(double value) { return value * 1024.0 * units::kBytesPerGiB; }
constexpr double ghz(double value) { return value * 1e9; }

std::vector<HostSpec> build_host_catalog() {
  return {
      {.id = "dgx-a100", .name = "NVIDIA DGX A100",
       .cpu = "2x AMD EPYC 7742", .cpu_cores = 128, .cpu_threads = 256,  // DGX A100
       .cpu_base_clock_hz = ghz(2.25),                                    // DGX A100
       .memory_bytes = tib(2),  // DGX A100, 640GB model (the 320GB model, with 40 GB GPUs, has 1 TB)
       .gpus = 8, .gpu_models = {"a100-80gb-sxm4", "a100-40gb-sxm4"},     // DGX A100
       .nics = 8, .nic_model = "connectx-6-vpi-hdr",                      // DGX A100: compute fabric only
       .pcie_layout = "four PCIe switches, each with 2 GPUs and 2 compute NICs; GPUs joined by 6 NVSwitches",
       .source = "NVIDIA DGX A100 datasheet [S]; nvidia-smi topo -m of a DGX A100 [S]"},
      {.id = "dgx-h100", .name = "NVIDIA DGX H100",
       .cpu = "2x Intel Xeon Platinum 8480C", .cpu_cores = 112, .cpu_threads = 224,  // BasePOD RA
       .cpu_base_clock_hz = ghz(2.0),                                                // BasePOD RA
       .memory_bytes = tib(2),                                                       // BasePOD RA
       .gpus = 8, .gpu_models = {"h100-sxm5"},
       .nics = 8, .nic_model = "connectx-7-400g",  // BasePOD RA: eight single-port ConnectX-7 for compute
       .pcie_layout = "one ConnectX-7 per GPU; GPUs 0-3 on CPU 0's network module, 4-7 on CPU 1's; 4 NVSwitch chips",
       .source = "NVIDIA DGX BasePOD reference architecture [P]; DGX H100 user guide table 6 [S]"},
      {.id = "dgx-h200", .name = "NVIDIA DGX H200",
       .cpu = "2x Intel Xeon Platinum 8480C", .cpu_cores = 112, .cpu_threads = 224,  // BasePOD RA
       .cpu_base_clock_hz = ghz(2.0),                                                // BasePOD RA
       .memory_bytes = tib(2),                                                       // BasePOD RA
       .gpus = 8, .gpu_models = {"h200-sxm"},
       .nics = 8, .nic_model = "connectx-7-400g",  // BasePOD RA
       .pcie_layout = "one ConnectX-7 per GPU; GPUs 0-3 on CPU 0's network module, 4-7 on CPU 1's; 4 NVSwitch chips",
       .source = "NVIDIA DGX BasePOD reference architecture [P]"},
      {.id = "dgx-b200", .name = "NVIDIA DGX B200",
       .cpu = "2x Intel Xeon Platinum 8570", .cpu_cores = 112, .cpu_threads = 224,  // DGX B200: 56 cores each
       .cpu_base_clock_hz = ghz(2.1),                                               // DGX B200
       .memory_bytes = tib(2),                                                      // DGX B200
       .gpus = 8, .gpu_models = {"b200-sxm"},
       .nics = 8, .nic_model = "connectx-7-400g",  // DGX B200: eight single-port ConnectX-7 for the cluster network
       .pcie_layout = "8 ConnectX-7 for compute, 2 BlueField-3 for storage; PCIe Gen5 x16 GPUs; 2 NVLink 5 switches; "
                      "which GPUs and NICs share a switch is not published in the sources read",
       .source = "NVIDIA DGX B200 user guide [P]; NVIDIA MLPerf Training v5.0 system file [P]"},
      {.id = "dell-xe9680", .name = "Dell PowerEdge XE9680",
       .cpu = "2x Intel Xeon Platinum 8470", .cpu_cores = 104, .cpu_threads = 208,  // XE9680: 52 cores each, 2 threads
       .cpu_base_clock_hz = 0,                                                      // not in the source
       .memory_bytes = tib(2),                                                      // XE9680
       .gpus = 8, .gpu_models = {"h100-sxm5"},
       .nics = 8, .nic_model = "connectx-7-400g",  // XE9680: 8x 400 Gb/s InfiniBand
       .pcie_layout = "HGX H100 8-GPU board; PCIe Gen5; the layout is not published in the source",
       .source = "Dell MLPerf Inference v3.1 system description [P]"},
      {.id = "dell-xe8545", .name = "Dell PowerEdge XE8545",
       .cpu = "2x AMD EPYC 7763", .cpu_cores = 128, .cpu_threads = 256,  // XE8545: 64 cores, 128 vCPUs per CPU
       .cpu_base_clock_hz = 0,                                           // not in the source
       .memory_bytes = tib(1),                                           // XE8545: 16x 64 GB
       .gpus = 4, .gpu_models = {"a100-40gb-sxm4", "a100-80gb-sxm4"},     // XE8545 (40 GB), inference v2.0 (80 GB)
       .nics = 2, .nic_model = "connectx-6-vpi-hdr",                      // XE8545: 2x ConnectX-6 IB HDR 200 Gb/s
       .pcie_layout = "GPUs on PCIe 4.0 x16 and NVLink 3.0; the layout is not published in the source",
       .source = "Dell MLPerf Training v1.1 system file XE8545x4A100-SXM-40GB.json [P] (configuration as submitted)"},
  };
}

}  // namespace

const std::vector<HostSpec>& host_catalog() {
  static const std::vector<HostSpec> catalog = build_host_catalog();
  return catalog;
}

const HostSpec* find_host(std::string_view id) { return find_by_id(host_catalog(), id); }

}  // namespace vtsim
