#pragma once
// Least-squares fits of time = alpha + size / beta (Eigen), the model of a message's cost on a link (and, with size
// the flop count, of a GEMM's time: fixed overhead + flop / asymptotic throughput).
//
// Measurements span many orders of magnitude (8 B to 1 GiB), so an ordinary least-squares line would follow the
// largest points and leave alpha to chance. The fits minimise the relative error instead:
//   sum_i ((alpha + size_i / beta - time_i) / time_i)^2,
// linear in (alpha, 1/beta), and report its root mean square as the residual (0.05 = 5% typical error).
// alpha is kept >= 0: when the unconstrained optimum is negative, the fit is redone through the origin.
//
// One line often fits badly: small messages pay a protocol's latency, large ones its bandwidth, and libraries switch
// protocols in between (NCCL's LL / LL128 / Simple; eager and rendezvous in RDMA stacks). fit_piecewise() then splits
// the points in two at the breakpoint that minimises the total squared relative error, as SimGrid's piecewise network
// factors do.

#include <optional>
#include <span>
#include <vector>

namespace vtsim::calibrate {

/// One measured point: a size (bytes or flop) and the time it took (s).
struct FitSample {
  double size = 0;
  double time_s = 0;
};

/// time = alpha_s + size / beta.
struct LineFit {
  double alpha_s = 0;   ///< fixed cost, s, >= 0
  double beta = 0;      ///< size per second (bytes/s or flop/s), > 0
  double residual = 0;  ///< root-mean-square relative error of the points
  int points = 0;       ///< points fitted

  /// The fitted time of `size`.
  double time_s(double size) const { return alpha_s + size / beta; }
};

/// A line per range of sizes: segment i applies from from_size[i] (inclusive) to the next segment's.
struct PiecewiseFit {
  LineFit whole;                      ///< one line through every point
  std::vector<double> from_size;      ///< start of each segment; empty when one line fits well enough
  std::vector<LineFit> segments;      ///< the segments' lines, same length as from_size
};

/// When fit_piecewise() splits the points.
struct PiecewiseOptions {
  double poor_residual = 0.05;     ///< one line is kept when its residual is at most this (5%)
  double min_improvement = 2.0;    ///< and the split is kept only when it divides the total residual by this much
  int min_segment_points = 3;      ///< points each segment needs
};

/// The relative least-squares line through `samples`; nullopt with fewer than 2 distinct sizes, a non-positive
/// time, or no positive slope (time not growing with size). REQUIRES: sizes >= 0.
std::optional<LineFit> fit_line(std::span<const FitSample> samples);

/// The best line, and two segments when one line fits poorly and two fit much better; nullopt as fit_line().
std::optional<PiecewiseFit> fit_piecewise(std::span<const FitSample> samples, const PiecewiseOptions& options = {});

}  // namespace vtsim::calibrate
