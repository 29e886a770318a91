#pragma once
// Rendering a plot through gnuplot (a Debian package: gnuplot-nox), called as a child process on a generated script.
// Values from the results reach gnuplot only through NAME.dat, which gnuplot reads as data and never runs; the script
// holds fixed commands and single-quoted titles that gnuplot_quote() has checked (plot_scripts.hpp).

#include <string>
#include <vector>

#include "tools/plot/plot_scripts.hpp"

namespace vtsim::tools {

/// The script that draws `plot` from NAME.dat into NAME.svg and NAME.png (pngcairo when this gnuplot has it,
/// else png), run from the folder that holds them.
std::string gnuplot_script(const PlotSpec& plot);

/// Writes NAME.dat and NAME.gp into `dir`, runs `gnuplot` (a command name or path) on the script there, and
/// returns the image files. Throws InputError when gnuplot is missing, std::runtime_error when it fails.
std::vector<std::string> render_plot(const PlotSpec& plot, const std::string& dir, const std::string& gnuplot);

}  // namespace vtsim::tools
