#include "models/core/least_squares.hpp"

#include <algorithm>
#include <cmath>

namespace vtsim {

Eigen::VectorXd levenberg_marquardt(const Residuals& residuals, const Eigen::VectorXd& start, int max_iterations) {
  Eigen::VectorXd x = start;
  Eigen::VectorXd r = residuals(x);
  double cost = r.squaredNorm();
  double damping = 1e-3;
  constexpr double kStep = 1e-6;
  const auto unknowns = x.size();
  for (int iteration = 0; iteration < max_iterations; ++iteration) {
    Eigen::MatrixXd jacobian(r.size(), unknowns);
    for (Eigen::Index j = 0; j < unknowns; ++j) {
      Eigen::VectorXd shifted = x;
      shifted[j] += kStep;
      jacobian.col(j) = (residuals(shifted) - r) / kStep;
    }
    const Eigen::MatrixXd normal = jacobian.transpose() * jacobian;
    const Eigen::VectorXd gradient = jacobian.transpose() * r;
    bool improved = false;
    for (int attempt = 0; attempt < 30 && !improved; ++attempt) {
      Eigen::MatrixXd damped = normal;
      for (Eigen::Index j = 0; j < unknowns; ++j) damped(j, j) += damping * std::max(normal(j, j), 1e-12);
      const Eigen::VectorXd candidate = x + damped.ldlt().solve(-gradient);
      const Eigen::VectorXd candidate_r = residuals(candidate);
      const double candidate_cost = candidate_r.squaredNorm();
      if (std::isfinite(candidate_cost) && candidate_cost < cost) {
        const double gain = cost - candidate_cost;
        x = candidate;
        r = candidate_r;
        cost = candidate_cost;
        damping = std::max(damping / 3.0, 1e-12);
        improved = true;
        if (gain < 1e-12 * std::max(cost, 1e-30)) return x;
      } else {
        damping *= 4.0;
      }
    }
    if (!improved) break;
  }
  return x;
}

}  // namespace vtsim
