#pragma once
// Fairness across tenants.

#include <vector>

namespace vtsim {

/// Jain's fairness index (Jain, Chiu and Hawe, "A Quantitative Measure of Fairness and Discrimination for Resource
/// Allocation in Shared Computer Systems", DEC TR-301, 1984): (sum x)^2 / (n sum x^2). 1 when every x is equal, 1/n
/// when one tenant has everything. 1 for an empty or all-zero list.
inline double jain_index(const std::vector<double>& x) {
  double sum = 0;
  double sum_of_squares = 0;
  for (double value : x) {
    sum += value;
    sum_of_squares += value * value;
  }
  return sum_of_squares > 0 ? sum * sum / (static_cast<double>(x.size()) * sum_of_squares) : 1.0;
}

}  // namespace vtsim
