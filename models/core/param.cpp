#include "models/core/param.hpp"

#include <cassert>

namespace vtsim {

std::string_view to_string(Source source) {
  switch (source) {
    case Source::published: return "published";
    case Source::scenario: return "scenario";
    case Source::measured: return "measured";
    case Source::fitted: return "fitted";
    case Source::uncalibrated: return "uncalibrated";
  }
  assert(false && "every Source has a spelling");
  return "uncalibrated";
}

}  // namespace vtsim
