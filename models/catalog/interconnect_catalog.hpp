#pragma once
// Interconnect catalog: NVLink generations and PCIe x16 links, with their published bandwidths.
//
// Bandwidths are per direction unless a name says otherwise; datasheets quote NVLink per GPU and bidirectional
// (A100: 600 GB/s = 12 links x 25 GB/s x 2 directions). Every number is cited in interconnect_catalog.cpp.

#include "models/catalog/catalog_guard.hpp"  // refused in sim/ and models/network/

#include <string>
#include <string_view>
#include <vector>

namespace vtsim {

/// One NVLink generation (or the Turing NVLink bridge).
struct NvlinkSpec {
  std::string id;                      ///< "nvlink1".."nvlink4", "nvlink-bridge-turing"
  std::string name;                    ///< e.g. "NVLink 3 (A100)"
  double per_link_bandwidth_Bps = 0;   ///< one link, one direction, bytes/s
  int max_links_per_gpu = 0;           ///< links on the GPU that introduced this generation
  std::string source;                  ///< short citation
};

/// Every catalogued NVLink generation. Built once, never changes.
const std::vector<NvlinkSpec>& nvlink_catalog();

/// The NVLink generation with this id, or nullptr when unknown.
const NvlinkSpec* find_nvlink(std::string_view id);

/// One PCIe generation at x16.
struct PcieSpec {
  int generation = 3;                    ///< 3, 4 or 5
  int lanes = 16;                        ///< always 16 in this catalog
  double lane_rate_transfers_per_s = 0;  ///< raw signalling rate of one lane, transfers/s (8, 16, 32 GT/s)
  double theoretical_Bps = 0;            ///< x16, one direction, after 128b/130b line encoding, bytes/s
  double typical_Bps = 0;                ///< achievable host<->GPU copy rate, one direction, bytes/s
  bool typical_uncalibrated = true;      ///< true when typical_Bps is not a published measurement
  std::string source;                    ///< short citation
};

/// PCIe Gen3, Gen4 and Gen5 at x16, in that order. Built once, never changes.
const std::vector<PcieSpec>& pcie_catalog();

/// The x16 link of this PCIe generation, or nullptr when not catalogued.
const PcieSpec* find_pcie(int generation);

}  // namespace vtsim
