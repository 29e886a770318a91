#include "tools/commands/plot_command.hpp"

#include <iostream>
#include <memory>

#include "tools/commands/command.hpp"
#include "tools/plot/gnuplot_runner.hpp"
#include "tools/plot/plot_scripts.hpp"
#include "tools/report/results_table.hpp"

namespace vtsim::tools {

namespace {

/// Whether `file` is JSON (`vtsim collectives --format json`) rather than a results.csv: its name says so.
bool is_json(const std::string& file) { return file.size() >= 5 && file.compare(file.size() - 5, 5, ".json") == 0; }

}  // namespace

std::vector<std::string> plot_command(const PlotRequest& request, std::ostream& out) {
  std::vector<PlotSpec> plots;
  if (request.kind == "collectives" || (request.kind == "auto" && is_json(request.results_csv))) {
    plots.push_back(collectives_plot(read_collectives_curve(request.results_csv)));
  } else {
    add_results_plots(request, plots);
  }
  std::vector<std::string> images;
  for (const PlotSpec& plot : plots) {
    for (const std::string& image : render_plot(plot, request.out_dir, request.gnuplot)) {
      out << "wrote " << image << '\n';
      images.push_back(image);
    }
  }
  return images;
}

void add_results_plots(const PlotRequest& request, std::vector<PlotSpec>& plots) {
  const ResultsTable table = ResultsTable::read(request.results_csv);
  if (request.kind == "scaling" || (request.kind == "auto" && has_scaling(table))) plots.push_back(scaling_plot(table));
  if (request.kind == "tenants" || (request.kind == "auto" && has_tenants(table))) plots.push_back(tenants_plot(table));
  if (request.kind == "tenant_count" || (request.kind == "auto" && has_tenant_counts(table))) {
    plots.push_back(tenant_count_plot(table));
  }
  if (request.kind == "breakdown" || request.kind == "auto") plots.push_back(breakdown_plot(table));
}

Command add_plot_command(CLI::App& parent) {
  auto request = std::make_shared<PlotRequest>();
  CLI::App* app = parent.add_subcommand(
      "plot", "Draw a sweep's results.csv, or vtsim collectives' JSON, through gnuplot (SVG and PNG)");
  app->add_option("results", request->results_csv,
                  "A sweep's results.csv, or the FILE.json of vtsim collectives --format json [--compare LOG]")
      ->required();
  app->add_option("--out", request->out_dir, "Output folder for KIND.svg, KIND.png, KIND.dat, KIND.gp")->required();
  app->add_option("--kind", request->kind,
                  "scaling, tenants, tenant_count, breakdown, collectives, or auto (every kind the results allow; "
                  "collectives for a .json file)")
      ->check(CLI::IsMember({"scaling", "tenants", "tenant_count", "breakdown", "collectives", "auto"}));
  app->add_option("--gnuplot", request->gnuplot, "The gnuplot command (default: gnuplot from PATH)");
  return {app, [request] { plot_command(*request, std::cout); }};
}

}  // namespace vtsim::tools
