#include "calibrate/profile_fits.hpp"

#include <cmath>
#include <map>
#include <numeric>

#include "calibrate/collective_bandwidth.hpp"
#include "models/calibration/calibrated_parameters.hpp"
#include "models/catalog/gpu_catalog.hpp"
#include "models/core/units.hpp"

namespace vtsim::calibrate {
namespace {

using units::kBytesPerSecondPerGBps;
using units::kSecondsPerUs;

// `size_per_byte`: the fitted size of one message byte (the bus factor for collectives, else 1); segments start at a
// message size in bytes.
AlphaBetaFit to_profile_fit(const std::string& subject, const PiecewiseFit& fit, double size_per_byte = 1) {
  AlphaBetaFit out;
  out.subject = subject;
  out.alpha_us = fit.whole.alpha_s / kSecondsPerUs;
  out.beta_gBps = fit.whole.beta / kBytesPerSecondPerGBps;
  out.residual = fit.whole.residual;
  out.points = fit.whole.points;
  for (std::size_t i = 0; i < fit.segments.size(); ++i) {
    const LineFit& line = fit.segments[i];
    const auto from_bytes = static_cast<std::int64_t>(std::llround(fit.from_size[i] / size_per_byte));
    out.segments.push_back(
        {from_bytes, line.alpha_s / kSecondsPerUs, line.beta / kBytesPerSecondPerGBps, line.residual, line.points});
  }
  return out;
}

std::optional<AlphaBetaFit> fit_collective(const CalibrationProfile& profile, std::size_t index,
                                           const PiecewiseOptions& options, std::vector<std::string>& notes) {
  const CollectiveSeries& series = profile.collectives[index];
  const std::string subject = "collectives[" + std::to_string(index) + "]";
  const double factor = bus_factor(series.op, series.ranks);
  if (factor <= 0) {
    notes.push_back(subject + ": not fitted: one rank moves no bytes over any link");
    return std::nullopt;
  }
  std::vector<FitSample> samples;
  for (const CollectivePoint& point : series.points) {
    samples.push_back({static_cast<double>(point.bytes) * factor, point.time_us * kSecondsPerUs});
  }
  const std::optional<PiecewiseFit> fit = fit_piecewise(samples, options);
  if (!fit) {
    notes.push_back(subject + ": not fitted: needs two sizes or more, with time growing with size");
    return std::nullopt;
  }
  AlphaBetaFit out = to_profile_fit(subject, *fit, factor);
  if (series.hosts == 1 && profile.topology) {
    std::vector<int> gpus = series.gpus;
    if (gpus.empty()) {
      gpus.resize(static_cast<std::size_t>(series.ranks));
      std::iota(gpus.begin(), gpus.end(), 0);
    }
    out.link_class = ring_link_class(*profile.topology, gpus);
    if (out.link_class.empty()) notes.push_back(subject + ": no link class: the topology lacks some of its GPUs");
  } else if (series.hosts == 1) {
    notes.push_back(subject + ": no link class: import the host's `nvidia-smi topo -m` and fit again");
  } else {
    const std::string hosts =
        series.hosts ? std::to_string(*series.hosts) + " hosts" : std::string("an unknown number of hosts");
    notes.push_back(subject + ": no link class: it ran on " + hosts +
                    ", and only single-host runs calibrate a link class");
  }
  return out;
}

std::optional<AlphaBetaFit> fit_rdma(const RdmaSeries& series, std::size_t index, const PiecewiseOptions& options,
                                     std::vector<std::string>& notes) {
  const std::string subject = "rdma[" + std::to_string(index) + "]";
  std::vector<FitSample> samples;
  for (const RdmaPoint& point : series.points) {
    const double bytes = static_cast<double>(point.bytes);
    if (series.test == "latency" && point.latency_us) samples.push_back({bytes, *point.latency_us * kSecondsPerUs});
    if (series.test == "bandwidth" && point.bandwidth_gBps) {
      samples.push_back({bytes, bytes / (*point.bandwidth_gBps * kBytesPerSecondPerGBps)});
    }
  }
  const std::optional<PiecewiseFit> fit = fit_piecewise(samples, options);
  if (!fit) {
    notes.push_back(subject + ": not fitted: needs two sizes or more, with time growing with size");
    return std::nullopt;
  }
  AlphaBetaFit out = to_profile_fit(subject, *fit);
  out.link_class = "nic";
  out.transport = series.transport;
  return out;
}

std::vector<GemmEfficiencyCurve> fit_gemm(const GpuSection& gpu, std::vector<std::string>& notes) {
  std::map<Precision, std::vector<FitSample>> by_precision;
  for (const GemmMeasurement& gemm : gpu.gemm) {
    const double flop = 2.0 * static_cast<double>(gemm.m) * static_cast<double>(gemm.n) * static_cast<double>(gemm.k);
    by_precision[gemm.precision].push_back({flop, flop / units::tflops_to_flops(gemm.tflops)});
  }
  const GpuSpec* catalog = gpu.catalog_gpu.empty() ? nullptr : find_gpu(gpu.catalog_gpu);
  if (!gpu.catalog_gpu.empty() && catalog == nullptr) {
    notes.push_back("gpu.catalog_gpu: '" + gpu.catalog_gpu + "' is not in the GPU catalog: no efficiency against peak");
  }
  std::vector<GemmEfficiencyCurve> curves;
  for (const auto& [precision, samples] : by_precision) {
    // GEMM efficiency rises smoothly with size: one curve, no segments.
    const std::optional<LineFit> fit = fit_line(samples);
    if (!fit) {
      notes.push_back(std::string("gpu.gemm ") + std::string(to_string(precision)) +
                      ": not fitted: needs two sizes or more, with time growing with size");
      continue;
    }
    GemmEfficiencyCurve curve;
    curve.precision = precision;
    curve.asymptotic_tflops = fit->beta / units::kFlopsPerTflops;
    curve.half_rate_gflop = fit->alpha_s * fit->beta / 1e9;  // overhead = flop / throughput at half rate
    curve.residual = fit->residual;
    curve.points = fit->points;
    if (catalog != nullptr) {
      if (const std::optional<double> peak = catalog->peak_flops(precision)) {
        curve.catalog_peak_tflops = *peak / units::kFlopsPerTflops;
        curve.max_efficiency = fit->beta / *peak;
      }
    }
    curves.push_back(curve);
  }
  return curves;
}

}  // namespace

std::vector<std::string> fit_profile(CalibrationProfile& profile, const Provenance& provenance,
                                     const PiecewiseOptions& options) {
  std::vector<std::string> notes;
  FitsSection fits;
  fits.provenance = provenance;
  for (std::size_t i = 0; i < profile.collectives.size(); ++i) {
    if (auto fit = fit_collective(profile, i, options, notes)) fits.alpha_beta.push_back(*fit);
  }
  for (std::size_t i = 0; i < profile.rdma.size(); ++i) {
    if (auto fit = fit_rdma(profile.rdma[i], i, options, notes)) fits.alpha_beta.push_back(*fit);
  }
  profile.fits.reset();
  if (!fits.alpha_beta.empty()) profile.fits = fits;
  profile.gemm_efficiency.reset();
  if (profile.gpu && !profile.gpu->gemm.empty()) {
    GemmEfficiencySection section;
    section.provenance = provenance;
    section.curves = fit_gemm(*profile.gpu, notes);
    if (!section.curves.empty()) profile.gemm_efficiency = section;
  }
  return notes;
}

}  // namespace vtsim::calibrate
