#pragma once
// `vtsim catalog [gpus|hosts|interconnects|nics|transports|workloads|vgpu-profiles|mig-profiles] [--format table|json]`

#include <ostream>
#include <string>
#include <vector>

namespace vtsim::tools {

/// The catalog names `vtsim catalog` accepts, in the order it prints them.
const std::vector<std::string>& catalog_names();

/// Prints one catalog (or all when `name` is empty) as a table or, with `json`, as one JSON object keyed by catalog;
/// with `fitted`, the gpus catalog is each GPU's resolved efficiencies and their provenance instead of its datasheet.
void print_catalog(std::ostream& out, const std::string& name, bool json, bool fitted = false);

}  // namespace vtsim::tools
