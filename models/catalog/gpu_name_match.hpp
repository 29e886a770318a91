#pragma once
// Matching the device name CUDA reports ("NVIDIA A100-SXM4-40GB", "Tesla V100-SXM2-16GB", "NVIDIA H100 80GB HBM3")
// to a gpu_catalog() id, so that measured GEMM throughput can be set against the datasheet peak.

#include "models/catalog/catalog_guard.hpp"  // a catalog look-up: refused in sim/ and models/network/

#include <string>
#include <string_view>

namespace vtsim {

/// The catalog id of the GPU named `device_name`, or "" when no catalog GPU matches unambiguously. The model token
/// (a100, h100, v100, t4, ...) must match; memory size (40gb) and form factor (sxm4, pcie) break ties, and a form
/// factor in the name that the catalog entry contradicts (PCIe against SXM) rules the entry out.
std::string catalog_gpu_for(std::string_view device_name);

}  // namespace vtsim
