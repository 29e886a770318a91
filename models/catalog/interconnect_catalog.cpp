#include "models/catalog/interconnect_catalog.hpp"

#include "models/catalog/catalog_lookup.hpp"
#include "models/core/units.hpp"

// Sources. [S] marks a secondary source.
//   P100 WP   NVIDIA Tesla P100 whitepaper (2016): NVLink 1.0, 20 GB/s per link per direction, 4 links on P100,
//             160 GB/s bidirectional per GPU (also the P100 datasheet's "NVLink 160 GB/s").
//   V100 WP   NVIDIA Tesla V100 (Volta) whitepaper (2017): NVLink 2.0, 25 GB/s per link per direction, 6 links on V100,
//             300 GB/s per GPU (also the V100 datasheet's "NVLink 300 GB/s").
//   A100 WP   NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): NVLink 3, 4 lanes of 6.25 GB/s = 25 GB/s per
//             link per direction, 12 links on A100, 600 GB/s per GPU (A100 datasheet: "NVLink 600 GB/s").
//   H100 WP   NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022): NVLink 4, 18 links on H100 SXM5,
//             900 GB/s per GPU, i.e. 25 GB/s per link per direction.
//   TURING WP NVIDIA Turing GPU Architecture whitepaper (2018): TU102 has two x8 NVLink links of 25 GB/s per direction,
//             100 GB/s bidirectional in all; Quadro RTX 6000/8000 datasheets: "NVLink: 2 GPUs, 100 GB/s bidirectional".
//   PCIE SPEC PCI-SIG base specifications 3.0/4.0/5.0: 8, 16, 32 GT/s per lane, 128b/130b encoding.
//   HW REF    docs/hardware-facts.md [S]: measured ~12 GB/s on PCIe3 x16 and ~25 GB/s on PCIe4 x16 (A100)
//             host<->device copies; the original measurement pages are not named there.

namespace vtsim {
namespace {

using units::gBps;

/// One direction of an x16 link after 128b/130b encoding: rate x 128/130 x 16 lanes / 8 bits.
constexpr double x16_theoretical_Bps(double lane_rate_transfers_per_s) {
  return lane_rate_transfers_per_s * (128.0 / 130.0) * 16.0 / 8.0;
}

std::vector<NvlinkSpec> build_nvlink_catalog() {
  return {
      {.id = "nvlink1", .name = "NVLink 1 (P100)", .per_link_bandwidth_Bps = gBps(20),  // P100 WP
       .max_links_per_gpu = 4, .source = "NVIDIA Tesla P100 whitepaper and datasheet"},
      {.id = "nvlink2", .name = "NVLink 2 (V100)", .per_link_bandwidth_Bps = gBps(25),  // V100 WP
       .max_links_per_gpu = 6, .source = "NVIDIA Volta whitepaper; V100 datasheet"},
      {.id = "nvlink3", .name = "NVLink 3 (A100)", .per_link_bandwidth_Bps = gBps(25),  // A100 WP: 4 x 6.25 GB/s
       .max_links_per_gpu = 12, .source = "NVIDIA A100 whitepaper; A100 datasheet"},
      {.id = "nvlink4", .name = "NVLink 4 (H100/H200)", .per_link_bandwidth_Bps = gBps(25),  // H100 WP
       .max_links_per_gpu = 18, .source = "NVIDIA H100 whitepaper; H100 datasheet"},
      // NVLink 5: 1.8 TB/s per GPU over 18 links (NVIDIA HGX B200 specifications table [S] as reproduced by third
      // parties; `nvidia-smi topo -m` shows NV18 between every pair of an HGX B200's GPUs [S]): 100 GB/s per link
      // both ways, 50 per direction.
      {.id = "nvlink5", .name = "NVLink 5 (B200)", .per_link_bandwidth_Bps = gBps(50),
       .max_links_per_gpu = 18, .source = "NVIDIA HGX B200 specifications [S]: 1.8 TB/s, 18 links"},
      {.id = "nvlink-bridge-turing", .name = "NVLink bridge (Turing, 2 cards)",
       .per_link_bandwidth_Bps = gBps(25),  // TURING WP
       .max_links_per_gpu = 2, .source = "NVIDIA Turing whitepaper; Quadro RTX 6000/8000 datasheets"},
  };
}

std::vector<PcieSpec> build_pcie_catalog() {
  const double gen3_rate = 8e9;   // PCIE SPEC 3.0
  const double gen4_rate = 16e9;  // PCIE SPEC 4.0
  const double gen5_rate = 32e9;  // PCIE SPEC 5.0
  const double gen4_typical = gBps(25);  // HW REF [S], measured on an A100
  // Gen5 typical: uncalibrated default. No measurement is at hand; it assumes Gen5 reaches the same fraction of its
  // theoretical rate as the measured Gen4 point (25 / 31.5 GB/s), which gives ~50 GB/s.
  const double gen5_typical = x16_theoretical_Bps(gen5_rate) * (gen4_typical / x16_theoretical_Bps(gen4_rate));
  return {
      {.generation = 3, .lanes = 16, .lane_rate_transfers_per_s = gen3_rate,
       .theoretical_Bps = x16_theoretical_Bps(gen3_rate),
       .typical_Bps = gBps(12),  // HW REF [S]
       .typical_uncalibrated = false, .source = "PCI-SIG PCIe 3.0 spec; ~12 GB/s measured [S]"},
      {.generation = 4, .lanes = 16, .lane_rate_transfers_per_s = gen4_rate,
       .theoretical_Bps = x16_theoretical_Bps(gen4_rate),
       .typical_Bps = gen4_typical,
       .typical_uncalibrated = false, .source = "PCI-SIG PCIe 4.0 spec; ~25 GB/s measured on A100 [S]"},
      {.generation = 5, .lanes = 16, .lane_rate_transfers_per_s = gen5_rate,
       .theoretical_Bps = x16_theoretical_Bps(gen5_rate),
       .typical_Bps = gen5_typical,
       .typical_uncalibrated = true,
       .source = "PCI-SIG PCIe 5.0 spec; typical = Gen4's measured fraction (uncalibrated)"},
  };
}

}  // namespace

const std::vector<NvlinkSpec>& nvlink_catalog() {
  static const std::vector<NvlinkSpec> catalog = build_nvlink_catalog();
  return catalog;
}

const NvlinkSpec* find_nvlink(std::string_view id) { return find_by_id(nvlink_catalog(), id); }

const std::vector<PcieSpec>& pcie_catalog() {
  static const std::vector<PcieSpec> catalog = build_pcie_catalog();
  return catalog;
}

const PcieSpec* find_pcie(int generation) {
  for (const PcieSpec& pcie : pcie_catalog()) {
    if (pcie.generation == generation) return &pcie;
  }
  return nullptr;
}

}  // namespace vtsim
