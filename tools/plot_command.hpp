#pragma once
// `vtsim plot RESULTS.csv --out DIR [--kind scaling|tenants|breakdown|auto] [--gnuplot PATH]`: draws a sweep's
// results through gnuplot into DIR/KIND.svg and DIR/KIND.png (with the KIND.dat and KIND.gp that made them).

#include <ostream>
#include <string>
#include <vector>

namespace vtsim::tools {

/// What `vtsim plot` was asked for.
struct PlotRequest {
  std::string results_csv;
  std::string out_dir;
  std::string kind = "auto";        ///< scaling, tenants, breakdown, or auto: every kind the results allow
  std::string gnuplot = "gnuplot";  ///< the gnuplot command
};

/// Draws the plots, prints the files written and returns them. Throws InputError on unusable input or no gnuplot.
std::vector<std::string> plot_command(const PlotRequest& request, std::ostream& out);

}  // namespace vtsim::tools
