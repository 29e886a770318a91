#pragma once
// What every id-keyed catalog (GPUs, hosts, NICs, NVLink generations, vGPU profiles) shares: its entries are found
// and listed by their `id`.

#include "models/catalog/catalog_guard.hpp"  // refused in sim/ and models/network/

#include <string>
#include <string_view>
#include <vector>

namespace vtsim {

/// The entry of `catalog` whose `id` is `id`, or nullptr when none is.
template <typename Spec>
const Spec* find_by_id(const std::vector<Spec>& catalog, std::string_view id) {
  for (const Spec& spec : catalog) {
    if (spec.id == id) return &spec;
  }
  return nullptr;
}

/// The ids of `catalog`, in its order.
template <typename Spec>
std::vector<std::string> ids_of(const std::vector<Spec>& catalog) {
  std::vector<std::string> ids;
  for (const Spec& spec : catalog) ids.push_back(spec.id);
  return ids;
}

}  // namespace vtsim
