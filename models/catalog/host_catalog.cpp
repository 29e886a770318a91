#include "models/catalog/host_catalog.hpp"

#include "models/catalog/catalog_lookup.hpp"
#include "models/core/units.hpp"

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
//   D54U-3U   QuantaGrid D54U-3U, as Quanta's MLPerf Inference v4.0 system file gives it [P for that system]
//             (mlcommons/inference_results_v4.0 @3c4a1cf1, closed/Quanta_Cloud_Technology/systems/
//             D54U_3U_L40S_PCIe_48GBx4_TRT.json): 2x Xeon Platinum 8470 (core count 52, per socket), 512 GB (16x 32 GB
//             at 4800 MT/s), 4x L40S 48 GB on PCIe Gen4 x16, "2x 400Gb InfiniBand" (the adapter is not named: taken
//             as the catalog's 400 Gb/s ConnectX-7 VPI), "GPU-PCIe: 252GB/s; PCIe-NIC: 100GB/s".
//   R760      Dell PowerEdge R760 under VMware ESXi 8.0.2, as Dell's MLPerf Inference v4.0 system file gives it [P for
//             that system] (same repository and commit, closed/Dell/systems/vR760_L40S_48Cx2_TRT.json): 2x Xeon
//             Platinum 8580 (core count 60; "32vCPU out of 120"), 2 GHz, 1.5 TB, 2x L40S on PCIe Gen4 x16, run as
//             L40S-48C vGPUs of one VM with 32 vCPUs and 128 GB; networking "1x 1Gbe" only.
//   SE360 V2  Lenovo ThinkEdge SE360 V2, an edge server, as Lenovo's MLPerf Inference v4.1 system file gives it [P
//             for that system] (mlcommons/inference_results_v4.1 @a2f5d66d, closed/Lenovo/systems/
//             Lenovo_2xL4_TRT.json): 1x Xeon D-2775TE (16 cores), 256 GB (4x 64 GB), 2x L4 24 GB, networking "Gig
//             Ethernet" x 2. Its GPUs' host interconnect reads "Ethernet", an error: the L4 is a PCIe Gen4 x16 card.
//   XE2420    Dell EMC PowerEdge XE2420, as Dell EMC's MLPerf Inference v1.0 system file gives it [P for that
//             system] (mlcommons/inference_results_v1.0 @cd4f7a9b, closed/DellEMC/systems/
//             XE2420_datacenter_T4x4_TRT.json): 2x Xeon Gold 6252 @ 2.10 GHz (core count 24, per socket), 384 GB,
//             4x T4 16 GB; networking not given.
//   Xeons     Cores, threads and base clocks of the four Xeons above, as quattor/template-library-standard's CPU
//             files give them [S] (hardware/cpu/intel/xeon_platinum_8470.pan, _8580.pan, xeon_d_2775te.pan,
//             xeon_gold_6252.pan; Intel's product pages not read): Platinum 8470 52 cores / 104 threads, 2.00 GHz;
//             Platinum 8580 60 / 120, 2.00 GHz; D-2775TE 16 / 32, 2.00 GHz; Gold 6252 24 / 48, 2.10 GHz.
// A server whose source lists no compute-fabric NIC has none here (nics 0): a scenario adds one in a free slot
// (cluster.host.nics and nic_model), as its buyer would for a multi-host job.
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
       .pcie_switch_gpus = 2,  // DGX A100: 2 GPUs and 2 NICs per PCIe switch (nvidia-smi topo -m [S])
       .source = "NVIDIA DGX A100 datasheet [S]; nvidia-smi topo -m of a DGX A100 [S]"},
      {.id = "dgx-h100", .name = "NVIDIA DGX H100",
       .cpu = "2x Intel Xeon Platinum 8480C", .cpu_cores = 112, .cpu_threads = 224,  // BasePOD RA
       .cpu_base_clock_hz = ghz(2.0),                                                // BasePOD RA
       .memory_bytes = tib(2),                                                       // BasePOD RA
       .gpus = 8, .gpu_models = {"h100-sxm5"},
       .nics = 8, .nic_model = "connectx-7-400g",  // BasePOD RA: eight single-port ConnectX-7 for compute
       .pcie_layout = "one ConnectX-7 per GPU; GPUs 0-3 on CPU 0's network module, 4-7 on CPU 1's; 4 NVSwitch chips",
       .pcie_switch_gpus = 0,
       .source = "NVIDIA DGX BasePOD reference architecture [P]; DGX H100 user guide table 6 [S]"},
      {.id = "dgx-h200", .name = "NVIDIA DGX H200",
       .cpu = "2x Intel Xeon Platinum 8480C", .cpu_cores = 112, .cpu_threads = 224,  // BasePOD RA
       .cpu_base_clock_hz = ghz(2.0),                                                // BasePOD RA
       .memory_bytes = tib(2),                                                       // BasePOD RA
       .gpus = 8, .gpu_models = {"h200-sxm"},
       .nics = 8, .nic_model = "connectx-7-400g",  // BasePOD RA
       .pcie_layout = "one ConnectX-7 per GPU; GPUs 0-3 on CPU 0's network module, 4-7 on CPU 1's; 4 NVSwitch chips",
       .pcie_switch_gpus = 0,
       .source = "NVIDIA DGX BasePOD reference architecture [P]"},
      {.id = "dgx-b200", .name = "NVIDIA DGX B200",
       .cpu = "2x Intel Xeon Platinum 8570", .cpu_cores = 112, .cpu_threads = 224,  // DGX B200: 56 cores each
       .cpu_base_clock_hz = ghz(2.1),                                               // DGX B200
       .memory_bytes = tib(2),                                                      // DGX B200
       .gpus = 8, .gpu_models = {"b200-sxm"},
       .nics = 8, .nic_model = "connectx-7-400g",  // DGX B200: eight single-port ConnectX-7 for the cluster network
       .pcie_layout = "8 ConnectX-7 for compute, 2 BlueField-3 for storage; PCIe Gen5 x16 GPUs; 2 NVLink 5 switches; "
                      "which GPUs and NICs share a switch is not published in the sources read",
       .pcie_switch_gpus = 0,
       .source = "NVIDIA DGX B200 user guide [P]; NVIDIA MLPerf Training v5.0 system file [P]"},
      // A GB200 NVL72 rack is one NVLink domain: 18 compute trays of 2 GB200 superchips (a Grace CPU and 2 Blackwell
      // GPUs each) whose 72 GPUs meet through 9 NVLink switch trays. vtsim takes the domain as one host (its GPUs
      // routed to each other over NVLink, docs/cluster-model.md); its cores are the 36 Graces'.
      {.id = "gb200-nvl72", .name = "NVIDIA GB200 NVL72 (one rack, one NVLink domain)",
       // 36 Graces of 72 Neoverse V2 cores (144 per compute tray, MLPerf system description [S]), no SMT
       .cpu = "36x NVIDIA Grace (Arm Neoverse V2)", .cpu_cores = 2592, .cpu_threads = 2592,
       .cpu_base_clock_hz = ghz(3.1),                    // MLPerf GB200-NVL72 system description: 3.1 GHz base
       .memory_bytes = units::gib(36 * 480),             // up to 480 GB of LPDDR5X per Grace, as quoted [S]
       .gpus = 72, .gpu_models = {"gb200"},
       .nics = 72, .nic_model = "bluefield-3-400g",  // MLPerf system description: 4 BlueField-3 per 4-GPU tray
       .pcie_layout = "per compute tray: 2 Grace CPUs, each joined to its 2 GPUs by NVLink-C2C; 4 compute NICs, one "
                      "per GPU; the 72 GPUs joined by 9 NVLink switch trays (18 NVLink 5 links per GPU)",
       .pcie_switch_gpus = 0,
       .source = "NVIDIA GB200 NVL72 figures, as quoted [S]; MLPerf Inference v6.1 GB200-NVL72 system description "
                 "(Crusoe) [S]"},
      {.id = "dell-xe9680", .name = "Dell PowerEdge XE9680",
       .cpu = "2x Intel Xeon Platinum 8470", .cpu_cores = 104, .cpu_threads = 208,  // XE9680: 52 cores each, 2 threads
       .cpu_base_clock_hz = 0,                                                      // not in the source
       .memory_bytes = tib(2),                                                      // XE9680
       .gpus = 8, .gpu_models = {"h100-sxm5"},
       .nics = 8, .nic_model = "connectx-7-400g",  // XE9680: 8x 400 Gb/s InfiniBand
       .pcie_layout = "HGX H100 8-GPU board; PCIe Gen5; the layout is not published in the source",
       .pcie_switch_gpus = 0,
       .source = "Dell MLPerf Inference v3.1 system description [P]"},
      {.id = "dell-xe8545", .name = "Dell PowerEdge XE8545",
       .cpu = "2x AMD EPYC 7763", .cpu_cores = 128, .cpu_threads = 256,  // XE8545: 64 cores, 128 vCPUs per CPU
       .cpu_base_clock_hz = 0,                                           // not in the source
       .memory_bytes = tib(1),                                           // XE8545: 16x 64 GB
       .gpus = 4, .gpu_models = {"a100-40gb-sxm4", "a100-80gb-sxm4"},     // XE8545 (40 GB), inference v2.0 (80 GB)
       .nics = 2, .nic_model = "connectx-6-vpi-hdr",                      // XE8545: 2x ConnectX-6 IB HDR 200 Gb/s
       .pcie_layout = "GPUs on PCIe 4.0 x16 and NVLink 3.0; the layout is not published in the source",
       .pcie_switch_gpus = 0,
       .source = "Dell MLPerf Training v1.1 system file XE8545x4A100-SXM-40GB.json [P] (configuration as submitted)"},
      {.id = "quanta-d54u-l40s", .name = "QuantaGrid D54U-3U (4x L40S)",
       .cpu = "2x Intel Xeon Platinum 8470", .cpu_cores = 104, .cpu_threads = 208,  // D54U-3U; Xeons: 52 / 104
       .cpu_base_clock_hz = ghz(2.0),                                               // Xeons
       .memory_bytes = units::gib(512),                                             // D54U-3U: 16x 32 GB
       .gpus = 4, .gpu_models = {"l40s"},                                           // D54U-3U
       .nics = 2, .nic_model = "connectx-7-400g",  // D54U-3U: "2x 400Gb InfiniBand", adapter not named
       .pcie_layout = "GPUs on PCIe Gen4 x16, no NVLink; 252 GB/s of GPU-PCIe and 100 GB/s of PCIe-NIC bandwidth; "
                      "which GPUs and NICs share a switch is not in the source",
       .pcie_switch_gpus = 0,
       .source = "Quanta MLPerf Inference v4.0 system file D54U_3U_L40S_PCIe_48GBx4_TRT.json [P for that system]"},
      {.id = "dell-r760-l40s", .name = "Dell PowerEdge R760 (2x L40S, VMware ESXi 8.0.2)",
       .cpu = "2x Intel Xeon Platinum 8580", .cpu_cores = 120, .cpu_threads = 240,  // R760; Xeons: 60 / 120
       .cpu_base_clock_hz = ghz(2.0),                                               // R760: "2 GHz"
       .memory_bytes = tib(1.5),                                                    // R760
       .gpus = 2, .gpu_models = {"l40s"},                                           // R760
       .nics = 0, .nic_model = "",  // R760: "1x 1Gbe", no compute-fabric NIC
       .pcie_layout = "GPUs on PCIe Gen4 x16, no NVLink; the layout is not in the source",
       .pcie_switch_gpus = 0,
       .source = "Dell MLPerf Inference v4.0 system file vR760_L40S_48Cx2_TRT.json [P for that system]; run there as "
                 "L40S-48C vGPUs of one 32-vCPU VM"},
      {.id = "lenovo-se360-v2-l4", .name = "Lenovo ThinkEdge SE360 V2 (2x L4)",
       .cpu = "1x Intel Xeon D-2775TE", .cpu_cores = 16, .cpu_threads = 32,  // SE360 V2; Xeons: 16 / 32
       .cpu_base_clock_hz = ghz(2.0),                                        // Xeons
       .memory_bytes = units::gib(256),                                      // SE360 V2: 4x 64 GB
       .gpus = 2, .gpu_models = {"l4"},                                      // SE360 V2
       .nics = 0, .nic_model = "",  // SE360 V2: two Gigabit Ethernet ports, no compute-fabric NIC
       .pcie_layout = "an edge server, no NVLink; the GPUs' link is not given (the system file's \"Ethernet\" is an "
                      "error)",
       .pcie_switch_gpus = 0,
       .source = "Lenovo MLPerf Inference v4.1 system file Lenovo_2xL4_TRT.json [P for that system]"},
      {.id = "dell-xe2420-t4", .name = "Dell EMC PowerEdge XE2420 (4x T4)",
       .cpu = "2x Intel Xeon Gold 6252", .cpu_cores = 48, .cpu_threads = 96,  // XE2420; Xeons: 24 / 48
       .cpu_base_clock_hz = ghz(2.1),                                         // XE2420: "@ 2.10GHz"
       .memory_bytes = units::gib(384),                                       // XE2420
       .gpus = 4, .gpu_models = {"t4"},                                       // XE2420
       .nics = 0, .nic_model = "",  // XE2420: networking not given
       .pcie_layout = "PCIe; the layout and the network are not in the source",
       .pcie_switch_gpus = 0,
       .source = "Dell EMC MLPerf Inference v1.0 system file XE2420_datacenter_T4x4_TRT.json [P for that system]"},
  };
}

}  // namespace

const std::vector<HostSpec>& host_catalog() {
  static const std::vector<HostSpec> catalog = build_host_catalog();
  return catalog;
}

const HostSpec* find_host(std::string_view id) { return find_by_id(host_catalog(), id); }

}  // namespace vtsim
