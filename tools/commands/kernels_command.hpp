#pragma once
// vtsim kernels: the kernel model on operators a user lists (CSV), or its fit to measured kernels.

#include <ostream>
#include <string>
#include <vector>

namespace vtsim::tools {

/// What `vtsim kernels` was asked.
struct KernelsRequest {
  std::vector<std::string> inputs;  ///< CSV files (gzip or not) or folders of them
  std::string gpu_id;               ///< predict on this GPU; "" = each row's Device
  std::string precision = "fp32";
  std::string format = "table";  ///< table, json or csv
  bool fit = false;              ///< fit the constants to the inputs instead of predicting them
  std::string write_file;        ///< with fit: write the fitted constants here (models/compute/kernel_parameters.json)
  bool check = false;            ///< with fit: fail when the refit differs from the committed constants
};

/// Runs the request, printing to `out`. Returns 0, or 1 when a check asked for failed. Throws InputError on bad
/// input.
int kernels_command(const KernelsRequest& request, std::ostream& out);

}  // namespace vtsim::tools
