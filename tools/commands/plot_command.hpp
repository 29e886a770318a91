#pragma once
// `vtsim plot RESULTS.csv --out DIR [--kind scaling|tenants|breakdown|collectives|auto] [--gnuplot PATH]`: draws a
// sweep's results through gnuplot into DIR/KIND.svg and DIR/KIND.png (with the KIND.dat and KIND.gp that made them);
// given the JSON of `vtsim collectives --format json [--compare LOG]` (a .json file, or --kind collectives), its busbw
// curves.

#include <ostream>
#include <string>
#include <vector>

#include "tools/plot/plot_scripts.hpp"

namespace vtsim::tools {

/// What `vtsim plot` was asked for.
struct PlotRequest {
  std::string results_csv;
  std::string out_dir;
  std::string kind = "auto";  ///< scaling, tenants, breakdown, collectives, or auto: every kind the input allows
  std::string gnuplot = "gnuplot";  ///< the gnuplot command
};

/// Draws the plots, prints the files written and returns them. Throws InputError on unusable input or no gnuplot.
std::vector<std::string> plot_command(const PlotRequest& request, std::ostream& out);

/// The plots of a sweep's results.csv that `request.kind` asks for, appended to `plots`.
void add_results_plots(const PlotRequest& request, std::vector<PlotSpec>& plots);

}  // namespace vtsim::tools
