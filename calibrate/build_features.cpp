#include "calibrate/build_features.hpp"

namespace vtsim::calibrate {

BuildFeatures build_features() {
  BuildFeatures features;
  features.cuda = VTSIM_HAVE_CUDA != 0;
  features.ibverbs = VTSIM_HAVE_IBVERBS != 0;
  return features;
}

}  // namespace vtsim::calibrate
