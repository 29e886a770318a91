#pragma once
// What the compute model resolved for one job: its kernel model's parameters, each note saying where a value came
// from, and what it refused. resolve_compute (models/compute/compute_fit.hpp, which reads the GPU catalog) makes it;
// the job's plan carries it (models/compute/job_compute.hpp), so that the engine and the network model, which may not
// reach a catalog, read it without the fit.

#include <string>
#include <utility>
#include <vector>

#include "models/compute/compute_model.hpp"
#include "models/core/param.hpp"

namespace vtsim {

/// Parameters for one job, each value with where it came from (one note each, with its source).
struct ResolvedCompute {
  ComputeParameters parameters;
  /// In the order the model resolved them: fitted (to published rows or measured kernels, naming their GPUs),
  /// published, stated in the scenario, measured by the calibration profile (with its provenance), or uncalibrated
  /// (defaults without a measurement, and values transferred from elsewhere).
  std::vector<SourcedNote> notes;
  /// What the model cannot give this GPU: an efficiency the job needs that only another architecture's fitted value
  /// would supply, on an architecture without published rows (EfficiencyProvenance::Kind::refused; no catalogued GPU
  /// since every path of theirs is derived by the kernel model).
  /// A job planner refuses the job with it.
  std::vector<std::string> refused;

  void add(Source source, std::string text) { notes.push_back({.source = source, .text = std::move(text)}); }
  /// The fitted, published and stated notes, in order (a result's compute "sources").
  std::vector<std::string> sources() const;
  /// The uncalibrated notes, in order.
  std::vector<std::string> uncalibrated() const;
  /// The notes the calibration profile measured, in order.
  std::vector<std::string> calibrated() const;
};

}  // namespace vtsim
