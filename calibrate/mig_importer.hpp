#pragma once
// Importer of `nvidia-smi mig -lgip`: a boxed table "GPU instance profiles:", two lines per profile between rules,
// the first with GPU, Name, ID, Instances Free/Total, Memory GiB, P2P, SM, DEC, ENC, the second with CE, JPEG, OFA:
//   |   0  MIG 1g.5gb        19     7/7        4.75       No     14     0     0   |
//   |                                                             1     0     0   |

#include <string>
#include <string_view>

#include "models/calibration/calibration_profile.hpp"

namespace vtsim::calibrate {

/// Parses `nvidia-smi mig -lgip` output; malformed input throws InputError "FILE:LINE: what is wrong".
MigSection import_mig_profiles(std::string_view text, const std::string& file);

}  // namespace vtsim::calibrate
