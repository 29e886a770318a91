#include "models/catalog/link_class.hpp"

namespace vtsim {

std::string_view to_string(LinkClass link_class) {
  switch (link_class) {
    case LinkClass::nvlink: return "nvlink";
    case LinkClass::pcie: return "pcie";
    case LinkClass::host_memory: return "host_memory";
    case LinkClass::nic: return "nic";
    case LinkClass::fabric: return "fabric";
    case LinkClass::tcp_stack: return "tcp_stack";
  }
  return "?";
}

std::string_view to_string(NvlinkLayout layout) {
  switch (layout) {
    case NvlinkLayout::none: return "none";
    case NvlinkLayout::bridge_pairs: return "bridge_pairs";
    case NvlinkLayout::full_mesh: return "full_mesh";
    case NvlinkLayout::nvswitch: return "nvswitch";
    case NvlinkLayout::hub_approximation: return "hub_approximation";
  }
  return "?";
}

}  // namespace vtsim
