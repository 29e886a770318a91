#pragma once
// GPU catalog: the datasheet figures of every GPU model vtsim simulates (GpuSpec, models/catalog/gpu_spec.hpp), and the
// look-up by id. Only the loader, the resolver and the tools read it: the engine is refused it at compile time.
//
// Every number is cited next to it in gpu_catalog.cpp.

#include "models/catalog/catalog_guard.hpp"  // refused in sim/ and models/network/

#include <string_view>
#include <vector>

#include "models/catalog/gpu_spec.hpp"

namespace vtsim {

/// Every catalogued GPU, in a fixed order (oldest architecture first). Built once, never changes.
const std::vector<GpuSpec>& gpu_catalog();

/// The GPU with this id, or nullptr when unknown.
const GpuSpec* find_gpu(std::string_view id);

}  // namespace vtsim
