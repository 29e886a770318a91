#include "calibrate/alpha_beta_fit.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/Dense>

namespace vtsim::calibrate {
namespace {

double squared_relative_error(std::span<const FitSample> samples, double alpha_s, double inverse_beta) {
  double sum = 0;
  for (const FitSample& sample : samples) {
    const double error = (alpha_s + sample.size * inverse_beta - sample.time_s) / sample.time_s;
    sum += error * error;
  }
  return sum;
}

}  // namespace

std::optional<LineFit> fit_line(std::span<const FitSample> samples) {
  if (samples.size() < 2) return std::nullopt;
  const auto [smallest, largest] = std::minmax_element(samples.begin(), samples.end(),
                                                       [](const auto& a, const auto& b) { return a.size < b.size; });
  if (smallest->size == largest->size) return std::nullopt;
  for (const FitSample& sample : samples) {
    if (!(sample.time_s > 0) || !std::isfinite(sample.time_s) || !(sample.size >= 0)) return std::nullopt;
  }
  // Rows (1/t_i, s_i/t_i) . (alpha, 1/beta) = 1. The columns differ by many orders of magnitude: scale each to unit
  // norm before the QR solve, and back after.
  const Eigen::Index n = static_cast<Eigen::Index>(samples.size());
  Eigen::MatrixXd design(n, 2);
  for (Eigen::Index i = 0; i < n; ++i) {
    const FitSample& sample = samples[static_cast<std::size_t>(i)];
    design(i, 0) = 1 / sample.time_s;
    design(i, 1) = sample.size / sample.time_s;
  }
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(n);
  const Eigen::Vector2d scale(design.col(0).norm(), design.col(1).norm());
  const Eigen::MatrixXd scaled = design * scale.cwiseInverse().asDiagonal();
  Eigen::Vector2d solution = scaled.colPivHouseholderQr().solve(ones).cwiseQuotient(scale);
  if (!(solution(0) >= 0)) {
    // Through the origin: minimise sum (s_i/t_i * g - 1)^2 -> g = sum(s_i/t_i) / sum((s_i/t_i)^2).
    solution(0) = 0;
    solution(1) = design.col(1).sum() / design.col(1).squaredNorm();
  }
  if (!(solution(1) > 0) || !std::isfinite(solution(1))) return std::nullopt;
  LineFit fit;
  fit.alpha_s = solution(0);
  fit.beta = 1 / solution(1);
  fit.points = static_cast<int>(n);
  fit.residual = std::sqrt(squared_relative_error(samples, fit.alpha_s, solution(1)) / static_cast<double>(n));
  return fit;
}

std::optional<PiecewiseFit> fit_piecewise(std::span<const FitSample> samples, const PiecewiseOptions& options) {
  std::optional<LineFit> whole = fit_line(samples);
  if (!whole) return std::nullopt;
  PiecewiseFit result{*whole, {}, {}};
  const std::size_t n = samples.size();
  const std::size_t min_points = static_cast<std::size_t>(std::max(2, options.min_segment_points));
  if (whole->residual <= options.poor_residual || n < 2 * min_points) return result;

  std::vector<FitSample> sorted(samples.begin(), samples.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.size < b.size; });
  double best_squares = whole->residual * whole->residual * static_cast<double>(n) / (options.min_improvement *
                                                                                      options.min_improvement);
  for (std::size_t split = min_points; split + min_points <= n; ++split) {
    if (sorted[split].size == sorted[split - 1].size) continue;  // a size belongs to one segment
    const std::span<const FitSample> left(sorted.data(), split);
    const std::span<const FitSample> right(sorted.data() + split, n - split);
    const std::optional<LineFit> small = fit_line(left);
    const std::optional<LineFit> large = fit_line(right);
    if (!small || !large) continue;
    const double squares = small->residual * small->residual * static_cast<double>(small->points) +
                           large->residual * large->residual * static_cast<double>(large->points);
    if (squares < best_squares) {
      best_squares = squares;
      result.from_size = {0, sorted[split].size};
      result.segments = {*small, *large};
    }
  }
  return result;
}

}  // namespace vtsim::calibrate
