#pragma once
// Importer of `nvidia-smi topo -m`: a matrix with one column and one row per GPU and NIC, the connection of each pair
// (X itself, NV# a bonded set of # NVLinks, PIX at most one PCIe bridge, PXB several PCIe bridges, PHB a PCIe host
// bridge, NODE the interconnect between host bridges of one NUMA node, SYS the interconnect between NUMA nodes),
// then "CPU Affinity", "NUMA Affinity" (and "GPU NUMA ID") columns, the legend and, on newer drivers, a NIC legend
// ("NIC0: mlx5_0"). Tabs or spaces separate the cells; terminal escapes are ignored.

#include <string>
#include <string_view>

#include "models/calibration/calibration_profile.hpp"

namespace vtsim::calibrate {

/// Parses `nvidia-smi topo -m` output; provenance names the tool only. The matrix must be square, with X on the
/// diagonal, known connections and symmetric; otherwise InputError "FILE:LINE: what is wrong".
TopologySection import_topology(std::string_view text, const std::string& file);

}  // namespace vtsim::calibrate
