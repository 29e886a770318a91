#include "sim/engine/simgrid_info.hpp"

#include <xbt/base.h>  // defines SG_BEGIN_DECL and XBT_PUBLIC, which simgrid/version.h uses without including
#include <simgrid/version.h>

namespace vtsim::sim {

std::string simgrid_version() {
  int major = 0;
  int minor = 0;
  int patch = 0;
  sg_version_get(&major, &minor, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace vtsim::sim
