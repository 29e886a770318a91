#pragma once
// Nonlinear least squares: Levenberg-Marquardt with a forward-difference Jacobian and Marquardt's scaling of the
// damping by diag(J^T J). The compute model's fits (models/compute/compute_fit.cpp, calibrate/kernel_fit.cpp) use it.

#include <functional>

#include <Eigen/Dense>

namespace vtsim {

/// The residuals of a problem at a point of its unknowns.
using Residuals = std::function<Eigen::VectorXd(const Eigen::VectorXd&)>;

/// The x near `start` that minimises |residuals(x)|^2: stops when a step gains less than 1e-12 of the cost, when no
/// damping finds a better point, or after `max_iterations`. Non-finite costs count as worse.
Eigen::VectorXd levenberg_marquardt(const Residuals& residuals, const Eigen::VectorXd& start,
                                    int max_iterations = 300);

}  // namespace vtsim
