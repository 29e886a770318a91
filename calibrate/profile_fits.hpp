#pragma once
// `vtsim calibrate fit`: turns a profile's measured series into fits (docs/design.md, "Calibration").
//
//  - each collective series: alpha-beta on bus bytes (size x the op's bus factor), so beta is the bus bandwidth the
//    links carried; labelled with the link class the host's topology gives its GPUs (ring_link_class) when it ran on
//    one host; multi-host series are fitted but not labelled.
//  - each RDMA series: latency tests fit time = latency; bandwidth tests time per message = bytes / bandwidth (the
//    message rate limit shows as alpha, the link's bandwidth as beta); labelled "nic" with the series' transport.
//  - GPU GEMM points per precision: time = overhead + flop / asymptotic throughput, i.e. throughput(w) = asymptotic x
//    w / (w + w_half), with the catalog GPU's peak when the profile names one.
// Every fit is piecewise (two segments) where one line fits badly (alpha_beta_fit.hpp).

#include <string>
#include <vector>

#include "calibrate/alpha_beta_fit.hpp"
#include "models/calibration/calibration_profile.hpp"

namespace vtsim::calibrate {

/// Replaces the profile's fits and gemm_efficiency sections with fits of its current measurements, each section
/// carrying `provenance`. Returns one line per series it could not fit, and why.
std::vector<std::string> fit_profile(CalibrationProfile& profile, const Provenance& provenance,
                                     const PiecewiseOptions& options = {});

}  // namespace vtsim::calibrate
