#pragma once
// The plots of a sweep's results.csv, as gnuplot data and commands:
// - scaling: samples/s and scaling efficiency against GPUs (the `ranks` column), one line per variant; a variant is
//   a combination of the varying parameter columns, leaving out those that map one-to-one to the GPU count (such
//   as the swept host count itself);
// - tenants: per-tenant samples/s as clustered bars per point, then all tenants' samples/s and Jain's fairness
//   (sweeps whose points have several jobs);
// - breakdown: each point's step time stacked as compute, interference, exposed communication, and any scheduler
//   wait or context-switch columns (the mean over tenants when a point has several jobs);
// - tenant_count: when the number of tenants varies, all tenants' samples/s and the mean per tenant against the count
//   (one line per variant), then Jain's fairness against the count;
// - collectives: the bus bandwidth against size of `vtsim collectives --format json`, simulated, and measured when it
//   was run with --compare (both curves, log-scaled sizes).

#include <optional>
#include <string>
#include <vector>

#include "tools/report/results_table.hpp"

namespace vtsim::tools {

/// One plot: the name of its files (NAME.dat, NAME.gp, NAME.svg, NAME.png), its data, and the gnuplot commands
/// that draw it from NAME.dat once a terminal and output are set.
struct PlotSpec {
  std::string name;
  std::string data;
  std::string commands;
  int width = 1100;  ///< the image's size in pixels (svg and png alike)
  int height = 850;
};

/// Whether the results have a scaling curve to draw (a `ranks` column with at least two values).
bool has_scaling(const ResultsTable& table);
/// Whether the results have several jobs per point (a `jobs` column).
bool has_tenants(const ResultsTable& table);

/// Whether the results' points have at least two tenant counts (the `jobs` column).
bool has_tenant_counts(const ResultsTable& table);
/// The tenant-count plot. Throws InputError when !has_tenant_counts(table).
PlotSpec tenant_count_plot(const ResultsTable& table);
/// The scaling plot. Throws InputError when !has_scaling(table).
PlotSpec scaling_plot(const ResultsTable& table);
/// The per-tenant plot. Throws InputError when !has_tenants(table).
PlotSpec tenants_plot(const ResultsTable& table);
/// The step-time breakdown plot.
PlotSpec breakdown_plot(const ResultsTable& table);

/// A busbw curve of `vtsim collectives --format json` (with --compare: the measured one beside it).
struct CollectivesCurve {
  std::string file;         ///< the JSON file it was read from
  std::string title;        ///< e.g. "all_reduce over 8 GPUs of hgx-a100-8gpu"
  std::string measured;     ///< the measured log's name and device; "" without --compare
  std::vector<double> bytes;
  std::vector<double> simulated_gBps;
  std::vector<std::optional<double>> measured_gBps;  ///< per size; empty without --compare
};

/// Reads the JSON `vtsim collectives --format json` printed. Throws InputError naming the file and the JSON path of
/// anything else.
CollectivesCurve read_collectives_curve(const std::string& file);
/// The busbw-against-size plot of `curve`.
PlotSpec collectives_plot(const CollectivesCurve& curve);

/// `text` as a single-quoted gnuplot string (a run of two or more quotes concatenated as a double-quoted string of
/// quotes: 'a' . "''" . 'b'). Throws InputError when it holds a control character (a newline would end the string
/// and start a gnuplot command): callers pass text from input through printable() first.
std::string gnuplot_quote(const std::string& text);

}  // namespace vtsim::tools
