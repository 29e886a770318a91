#include "models/param.hpp"

namespace vtsim {

std::string_view to_string(Source source) {
  switch (source) {
    case Source::published: return "published";
    case Source::scenario: return "scenario";
    case Source::measured: return "measured";
    case Source::fitted: return "fitted";
    case Source::uncalibrated: return "uncalibrated";
  }
  return "uncalibrated";
}

}  // namespace vtsim
