#include "tools/plot/plot_scripts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "models/core/control_characters.hpp"
#include "models/core/error.hpp"
#include "models/core/input_file.hpp"
#include "models/core/json_reader.hpp"

namespace vtsim::tools {
namespace {

// A data-file label: one line (control characters escaped), double-quoted, without inner double quotes.
std::string data_label(const std::string& label) {
  std::string text = printable(label);
  std::replace(text.begin(), text.end(), '"', '\'');
  return "\"" + text + "\"";
}

// Whether a CSV cell is a finite decimal number ("12", "-0.5", "1e-3"): only such text reaches a data file as is.
bool is_decimal_number(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789+-.eE") != std::string::npos) return false;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(value);
}

// Field `column` of `row`, checked to be a number. "" when empty (a figure the point does not have).
const std::string& number_text(const ResultsTable& table, const std::vector<std::string>& row,
                               const std::string& column) {
  const std::string& text = table.field(row, column);
  if (!text.empty() && !is_decimal_number(text)) {
    throw InputError(table.file() + ": point " + printable(table.field(row, "point")) + ": " + column +
                     ": expected a number, got '" + printable(text) + "'");
  }
  return text;
}

// A data-file number: the CSV text, or gnuplot's missing-value mark.
std::string data_number(const ResultsTable& table, const std::vector<std::string>& row, const std::string& column) {
  const std::string& text = number_text(table, row, column);
  return text.empty() ? "?" : text;
}

// Field `column` of `row` as a number, 0 when empty.
double number(const ResultsTable& table, const std::vector<std::string>& row, const std::string& column) {
  const std::string& text = number_text(table, row, column);
  return text.empty() ? 0.0 : std::strtod(text.c_str(), nullptr);
}

// A number as gnuplot reads it back, to nine significant digits.
std::string gnuplot_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

// The label of each ok row over the varying parameters, or "point N" when nothing varies.
std::string row_label(const ResultsTable& table, const std::vector<std::string>& row,
                      const std::vector<std::string>& varying) {
  if (varying.empty()) return "point " + printable(table.field(row, "point"));
  return table.label(row, varying);
}

// Bars with labels rotated under them. The first label reaches left of its bar: the left margin makes room for it
// (cos 30 degrees of its length, in characters).
std::string bar_style(const std::string& first_label) {
  const auto margin = std::clamp<std::size_t>(first_label.size() * 87 / 100, 10, 60);
  return "set style data histograms\n"
         "set style fill solid 0.8 border -1\n"
         "set boxwidth 0.8\n"
         "set xtics rotate by 30 right scale 0\n"
         "set offsets 0, 0, graph 0.08, 0\n"
         "set lmargin " + std::to_string(margin) + "\n"
         "set grid ytics\n"
         "set key outside top center horizontal\n";
}

/// The ok rows of `table` grouped into curves: one per variant (the values of the varying parameters that do not
/// map one-to-one to `x_column`, which is the x axis), in order of first appearance, each sorted by `x_column`.
struct Curves {
  std::vector<std::string> labels;
  std::map<std::string, std::vector<const std::vector<std::string>*>> rows;  // by label
  std::vector<std::string> columns;  ///< the parameters that tell the variants apart, outermost first
};

Curves curves_along(const ResultsTable& table, const std::string& x_column) {
  std::vector<std::string> variant_columns;
  for (const std::string& parameter : table.varying_parameters()) {
    if (!table.one_to_one(parameter, x_column)) variant_columns.push_back(parameter);
  }
  Curves curves;
  curves.columns = variant_columns;
  for (const auto& row : table.ok_rows()) {
    const std::string label = variant_columns.empty() ? "all points" : table.label(row, variant_columns);
    if (!curves.rows.count(label)) curves.labels.push_back(label);
    curves.rows[label].push_back(&row);
  }
  for (auto& [label, rows] : curves.rows) {
    std::stable_sort(rows.begin(), rows.end(), [&](const auto* a, const auto* b) {
      return number(table, *a, x_column) < number(table, *b, x_column);
    });
  }
  return curves;
}

/// Bars stay readable up to about this many labels along the x axis; beyond it only every k-th bar is labelled.
constexpr std::size_t kMaxBarLabels = 25;
/// Beyond this many curves the legend leaves the plot area (it would cover the curves).
constexpr std::size_t kMaxLegendInside = 4;

/// Beyond this many curves in one panel their legend no longer fits beside it: the scaling plot draws a panel per value
/// of the outermost variant parameter (small multiples).
constexpr std::size_t kMaxCurvesPerPanel = 30;

/// Curve `index`'s line: gnuplot's 8 colours, then each again with another dash pattern, so that up to 40 curves
/// of one legend differ.
std::string curve_style(std::size_t index) {
  return " linetype " + std::to_string(index % 8 + 1) + " dashtype " + std::to_string(index / 8 % 5 + 1);
}

/// The data label of bar `index` of `count`: its own label for every k-th bar (k = ceil(count / kMaxBarLabels)), an
/// empty one for the others, so that 100 points do not print 100 overlapping labels.
std::string thinned_label(const std::string& label, std::size_t index, std::size_t count) {
  const std::size_t every = (count + kMaxBarLabels - 1) / kMaxBarLabels;
  return every <= 1 || index % every == 0 ? data_label(label) : std::string("\"\"");
}

}  // namespace

std::string gnuplot_quote(const std::string& text) {
  // gnuplot reads a script line by line: a newline would end the string and start a command (`system "..."`). Inside
  // single quotes nothing else is special (no backquote substitution, no macros; '' is a quote).
  if (has_control_character(text)) {
    throw InputError("cannot write text with control characters into a gnuplot script: '" + printable(text) + "'");
  }
  // A lone quote is written '' inside the string; gnuplot 5.4 misreads two such in a row ('a''''b' is an error), so
  // a run of quotes closes the string and is concatenated as a double-quoted string holding only quotes (nothing in
  // it for gnuplot to substitute): 'a' . "''" . 'b'.
  std::string quoted = "'";
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] != '\'') {
      quoted += text[i++];
      continue;
    }
    const std::size_t run = std::min(text.find_first_not_of('\'', i), text.size()) - i;
    quoted += run == 1 ? std::string("''") : "' . \"" + std::string(run, '\'') + "\" . '";
    i += run;
  }
  return quoted + "'";
}

/// Whether `column` exists and takes at least two values over the ok rows (an x axis to draw along).
static bool has_two_values(const ResultsTable& table, const std::string& column) {
  if (!table.column(column)) return false;
  std::set<std::string> values;
  for (const auto& row : table.ok_rows()) values.insert(table.field(row, column));
  return values.size() >= 2;
}

bool has_scaling(const ResultsTable& table) { return has_two_values(table, "ranks"); }

bool has_tenants(const ResultsTable& table) { return table.column("jobs").has_value() && !table.ok_rows().empty(); }

PlotSpec scaling_plot(const ResultsTable& table) {
  if (!has_scaling(table)) {
    throw InputError(table.file() + ": no scaling curve to draw: it needs one job per point and at least two GPU "
                     "counts (the ranks column) among the points that did not fail");
  }
  // Parameters in one-to-one correspondence with the GPU count are the x axis, not variants.
  const Curves groups = curves_along(table, "ranks");
  const std::vector<std::string>& labels = groups.labels;
  double min_ranks = 0;
  double max_ranks = 0;
  for (const auto& row : table.ok_rows()) {
    const double ranks = number(table, row, "ranks");
    min_ranks = min_ranks == 0 ? ranks : std::min(min_ranks, ranks);
    max_ranks = std::max(max_ranks, ranks);
  }
  // Points run under several seeds (simulation.seeds) carry their spread: drawn as bars from the least to the most
  // over the runs. A point run once gets a bar of no length (its own value at both ends).
  const bool seeded = std::any_of(table.ok_rows().begin(), table.ok_rows().end(), [&](const auto& row) {
    return table.column("seeds_samples_per_s_min") && !table.field(row, "seeds_samples_per_s_min").empty();
  });
  const auto spread = [&](const std::vector<std::string>& row, const std::string& figure, const std::string& bound) {
    const std::string column = "seeds_" + figure + "_" + bound;
    const std::string& text = number_text(table, row, column);
    return text.empty() ? data_number(table, row, figure) : text;
  };
  PlotSpec plot{"scaling", "", ""};
  for (std::size_t g = 0; g < labels.size(); ++g) {
    const auto& rows = groups.rows.at(labels[g]);
    plot.data += (g > 0 ? "\n\n" : "") + std::string("# ") + printable(labels[g]) + "\n";
    for (const auto* row : rows) {
      plot.data += data_number(table, *row, "ranks") + " " + data_number(table, *row, "samples_per_s") + " " +
                   data_number(table, *row, "scaling_efficiency");
      if (seeded) {
        for (const char* figure : {"samples_per_s", "scaling_efficiency"}) {
          plot.data += " " + spread(*row, figure, "min") + " " + spread(*row, figure, "max");
        }
      }
      plot.data += "\n";
    }
  }
  // Past kMaxCurvesPerPanel variants, a panel per value of the outermost variant parameter (its facets), each with
  // the curves of the others; a variant keeps its colour and dash from panel to panel. Else one panel, all curves.
  struct Facet {
    std::string title;                 // "" without facets
    std::vector<std::size_t> curves;   // indices into labels (the data file's index)
    std::vector<std::string> titles;   // each curve's title in this panel
  };
  std::vector<Facet> facets;
  std::vector<std::size_t> style_of(labels.size());
  if (labels.size() > kMaxCurvesPerPanel && groups.columns.size() >= 2) {
    const std::vector<std::string> outer = {groups.columns.front()};
    const std::vector<std::string> inner(groups.columns.begin() + 1, groups.columns.end());
    std::vector<std::string> inner_labels;
    for (std::size_t g = 0; g < labels.size(); ++g) {
      const std::vector<std::string>& first = *groups.rows.at(labels[g]).front();
      const std::string facet = table.label(first, outer);
      const std::string curve = table.label(first, inner);
      auto found = std::find_if(facets.begin(), facets.end(), [&](const Facet& f) { return f.title == facet; });
      if (found == facets.end()) found = facets.insert(facets.end(), Facet{facet, {}, {}});
      found->curves.push_back(g);
      found->titles.push_back(curve);
      auto known = std::find(inner_labels.begin(), inner_labels.end(), curve);
      if (known == inner_labels.end()) known = inner_labels.insert(inner_labels.end(), curve);
      style_of[g] = static_cast<std::size_t>(known - inner_labels.begin());
    }
  } else {
    Facet all{"", {}, labels};
    for (std::size_t g = 0; g < labels.size(); ++g) {
      all.curves.push_back(g);
      style_of[g] = g;
    }
    facets.push_back(std::move(all));
  }
  // Columns: 1 GPUs, 2 samples/s, 3 efficiency; with seeds 4-5 samples/s min and max, 6-7 efficiency's.
  const auto curves = [&](const Facet& facet, int y_column, int low_column) {
    const std::string using_columns =
        seeded ? "1:" + std::to_string(y_column) + ":" + std::to_string(low_column) + ":" +
                     std::to_string(low_column + 1) + " with yerrorlines"
               : "1:" + std::to_string(y_column) + " with linespoints";
    std::string command = "plot ";
    for (std::size_t k = 0; k < facet.curves.size(); ++k) {
      const std::size_t g = facet.curves[k];
      command += (k > 0 ? ", \\\n     " : "") + std::string("'scaling.dat' index ") + std::to_string(g) +
                 " using " + using_columns + curve_style(style_of[g]) + " pointtype 7 title " +
                 gnuplot_quote(facet.titles[k]);
    }
    return command + "\n";
  };
  std::string& c = plot.commands;
  const bool faceted = facets.size() > 1;
  const std::string title = "Scaling (" + printable(table.file()) + ")";
  if (faceted) {
    // A row per facet, samples/s on the left and efficiency on the right, each 330 pixels high.
    plot.width = 1500;
    plot.height = std::max(850, 330 * static_cast<int>(facets.size()));
    c += "set multiplot layout " + std::to_string(facets.size()) + ",2 title " +
         gnuplot_quote(title + ": a row per " + short_column_name(groups.columns.front())) + "\n";
  } else {
    c += "set multiplot layout 2,1 title " + gnuplot_quote(title) + "\n";
  }
  c += "set grid\nset xlabel 'GPUs (ranks)'\n";
  if (max_ranks >= 4 * min_ranks) c += "set logscale x 2\n";
  const std::string bars = seeded ? "bars: least to most over the seeds" : "";
  for (const Facet& facet : facets) {
    // Every panel has its legend: a few curves keep it in the panel's empty corner (samples/s rise from the lower
    // left, efficiency falls from near 1), many get it beside the panel, in small type.
    const bool inside = facet.curves.size() <= kMaxLegendInside;
    const std::string outside = "set key outside right top vertical font ',8' spacing 0.9\n";
    if (faceted) c += "set title " + gnuplot_quote(facet.title) + "\n";
    c += (inside ? "set key inside left top box opaque\n" : outside) + "set ylabel 'samples/s" +
         (seeded ? " (" + bars + ")" : "") + "'\nset yrange [0:*]\n" + curves(facet, 2, 4);
    c += (inside ? "set key inside left bottom box opaque\n" : outside) + "set ylabel 'scaling efficiency" +
         (seeded ? " (" + bars + ")" : std::string()) + "'\nset yrange [0:1.05]\n" + curves(facet, 3, 6);
  }
  c += "unset multiplot\n";
  return plot;
}

PlotSpec tenants_plot(const ResultsTable& table) {
  if (!has_tenants(table)) {
    throw InputError(table.file() + ": no tenants to draw: it needs points with several jobs (a jobs column) "
                     "among the points that did not fail");
  }
  std::size_t tenants = 0;
  while (table.column("job" + std::to_string(tenants) + ".samples_per_s")) ++tenants;
  const std::vector<std::string> varying = table.varying_parameters();
  PlotSpec plot{"tenants", "", ""};
  const std::size_t rows = table.ok_rows().size();
  for (std::size_t r = 0; r < rows; ++r) {
    const std::vector<std::string>& row = table.ok_rows()[r];
    plot.data += thinned_label(row_label(table, row, varying), r, rows);
    for (std::size_t k = 0; k < tenants; ++k) {
      plot.data += ' ';
      plot.data += data_number(table, row, "job" + std::to_string(k) + ".samples_per_s");
    }
    plot.data += ' ';
    plot.data += data_number(table, row, "total_samples_per_s");
    plot.data += ' ';
    plot.data += data_number(table, row, "jain_fairness");
    plot.data += '\n';
  }
  std::string& c = plot.commands;
  c += "set multiplot layout 2,1 title " + gnuplot_quote("Tenants (" + printable(table.file()) + ")") + "\n";
  c += bar_style(row_label(table, table.ok_rows()[0], varying));
  c += "set style histogram cluster gap 1\nset ylabel 'samples/s per tenant'\nset yrange [0:*]\nplot ";
  for (std::size_t k = 0; k < tenants; ++k) {
    c += (k > 0 ? ", \\\n     ''" : "'tenants.dat'") + std::string(" using ") + std::to_string(k + 2) +
         (k == 0 ? ":xtic(1)" : "") + " title 'tenant " + std::to_string(k + 1) + "'";
  }
  const std::string total = std::to_string(tenants + 2);
  const std::string fairness = std::to_string(tenants + 3);
  c += "\nset ylabel 'samples/s, all tenants'\nset y2label 'Jain''s fairness'\nset y2range [0:1.05]\nset y2tics\n";
  c += "plot 'tenants.dat' using " + total + ":xtic(1) title 'all tenants', \\\n     '' using 0:" + fairness +
       " axes x1y2 with linespoints pointtype 7 linewidth 2 title 'Jain''s fairness'\n";
  c += "unset multiplot\n";
  return plot;
}

bool has_tenant_counts(const ResultsTable& table) { return has_two_values(table, "jobs"); }

PlotSpec tenant_count_plot(const ResultsTable& table) {
  if (!has_tenant_counts(table)) {
    throw InputError(table.file() + ": no tenant counts to draw against: it needs at least two numbers of tenants (the "
                     "jobs column) among the points that did not fail");
  }
  // Parameters that set the tenant count (jobs[0].copies) are the x axis; the others tell the variants apart.
  const Curves groups = curves_along(table, "jobs");
  const std::vector<std::string>& labels = groups.labels;
  PlotSpec plot{"tenant_count", "", ""};
  for (std::size_t g = 0; g < labels.size(); ++g) {
    const auto& rows = groups.rows.at(labels[g]);
    plot.data += (g > 0 ? "\n\n" : "") + std::string("# ") + printable(labels[g]) + "\n";
    for (const auto* row : rows) {
      const double count = number(table, *row, "jobs");
      const double total = number(table, *row, "total_samples_per_s");
      plot.data += data_number(table, *row, "jobs") + " " + data_number(table, *row, "total_samples_per_s") + " " +
                   gnuplot_number(count > 0 ? total / count : 0.0) + " " + data_number(table, *row, "jain_fairness") +
                   "\n";
    }
  }
  // One curve per variant of `columns`, as a comma-separated list of plot elements.
  const auto curves = [&](const std::string& columns, const std::string& what) {
    std::string command;
    for (std::size_t g = 0; g < labels.size(); ++g) {
      command += (g > 0 ? ", \\\n     " : "") + std::string(g == 0 ? "'tenant_count.dat'" : "''") + " index " +
                 std::to_string(g) + " using " + columns + " with linespoints pointtype 7" +
                 " title " + gnuplot_quote(labels.size() == 1 ? what : labels[g] + ", " + what);
    }
    return command;
  };
  std::string& c = plot.commands;
  c += "set multiplot layout 2,1 title " + gnuplot_quote("Tenants per GPU (" + printable(table.file()) + ")") + "\n";
  c += 2 * labels.size() <= kMaxLegendInside ? "set grid\nset key inside right top box opaque\n"
                                         : "set grid\nset key outside right top vertical font ',8' spacing 0.9\n";
  c += "set xlabel 'tenants'\nset xtics 1\nset ylabel 'samples/s'\nset yrange [0:*]\n";
  c += "plot " + curves("1:2", "all tenants") + ", \\\n     " + curves("1:3", "mean per tenant") + "\n";
  if (2 * labels.size() <= kMaxLegendInside) c += "set key inside right bottom box opaque\n";
  c += "set ylabel 'Jain''s fairness'\nset yrange [0:1.05]\nplot " + curves("1:4", "Jain's fairness") + "\n";
  c += "unset multiplot\n";
  return plot;
}

PlotSpec breakdown_plot(const ResultsTable& table) {
  if (table.ok_rows().empty()) throw InputError(table.file() + ": every point failed: nothing to plot");
  const bool multi = table.column("jobs").has_value();
  std::size_t jobs = 1;
  if (multi) {
    jobs = 0;
    while (table.column("job" + std::to_string(jobs) + ".compute_s")) ++jobs;
  }
  // Columns of the (first) job's breakdown beyond the three every result has: the waits for data, for the slowest rank
  // and for the GPU scheduler, context switches. With them the bars add up to the step.
  std::vector<std::string> extras;
  const std::string prefix = multi ? "job0." : "";
  // A results.csv without the breakdown's columns would draw an empty plot: say which is missing instead.
  for (const char* name : {"compute_s", "interference_s", "exposed_communication_s"}) {
    if (!table.column(prefix + name)) {
      throw InputError(table.file() + ": no '" + prefix + name + "' column: not the results of `vtsim sweep`, or "
                       "cut short; nothing to draw a step-time breakdown from");
    }
  }
  for (const char* name :
       {"data_wait_s", "straggler_wait_s", "scheduler_wait_s", "context_switch_s", "context_switches_s"}) {
    if (table.column(prefix + name)) extras.push_back(name);
  }
  const auto mean_over_jobs = [&](const std::vector<std::string>& row, const std::string& name) {
    double sum = 0;
    int count = 0;
    for (std::size_t k = 0; k < jobs; ++k) {
      const std::string column = multi ? "job" + std::to_string(k) + "." + name : name;
      if (table.field(row, column).empty()) continue;
      sum += number(table, row, column);
      ++count;
    }
    return count == 0 ? std::string("?") : gnuplot_number(sum / count);
  };
  const std::vector<std::string> varying = table.varying_parameters();
  PlotSpec plot{"breakdown", "", ""};
  const std::size_t rows = table.ok_rows().size();
  for (std::size_t r = 0; r < rows; ++r) {
    const std::vector<std::string>& row = table.ok_rows()[r];
    const std::string compute = mean_over_jobs(row, "compute_s");
    const std::string interference = mean_over_jobs(row, "interference_s");
    const std::string own = compute == "?" || interference == "?"
                                ? std::string("?")
                                : gnuplot_number(std::strtod(compute.c_str(), nullptr) -
                                                std::strtod(interference.c_str(), nullptr));
    plot.data += thinned_label(row_label(table, row, varying), r, rows) + " " + own + " " + interference + " " +
                 mean_over_jobs(row, "exposed_communication_s");
    for (const std::string& extra : extras) {
      plot.data += ' ';
      plot.data += mean_over_jobs(row, extra);
    }
    plot.data += "\n";
  }
  std::vector<std::string> titles = {"compute", "interference (compute slowed by collectives)", "exposed communication"};
  const std::map<std::string, std::string> named = {{"data_wait_s", "waiting for data"},
                                                     {"straggler_wait_s", "waiting for the slowest rank"},
                                                     {"scheduler_wait_s", "waiting for the GPU scheduler"}};
  for (const std::string& extra : extras) {
    std::string title = extra.substr(0, extra.size() - 2);
    std::replace(title.begin(), title.end(), '_', ' ');
    titles.push_back(named.count(extra) ? named.at(extra) : title);
  }
  std::string& c = plot.commands;
  c += "set title " +
       gnuplot_quote("Step time breakdown (" + printable(table.file()) + (multi ? ", mean over tenants)" : ")")) + "\n";
  c += bar_style(row_label(table, table.ok_rows()[0], varying));
  c += "set style histogram rowstacked\nset ylabel 'seconds per step'\nset yrange [0:*]\nplot ";
  for (std::size_t t = 0; t < titles.size(); ++t) {
    c += (t > 0 ? ", \\\n     ''" : "'breakdown.dat'") + std::string(" using ") + std::to_string(t + 2) +
         (t == 0 ? ":xtic(1)" : "") + " title " + gnuplot_quote(titles[t]);
  }
  c += "\n";
  return plot;
}

CollectivesCurve read_collectives_curve(const std::string& file) {
  const nlohmann::json document = parse_json_text(read_input_file(file), file);
  JsonObject root = JsonValue(document, file, "").as_object();
  CollectivesCurve curve;
  curve.file = file;
  const std::string op = root.require("op").as_name();
  const std::size_t gpus = root.require("gpus").as_array(2).size();
  curve.title = op + " over " + std::to_string(gpus) + " GPUs of " + root.require("scenario").as_name();
  if (auto dtype = root.get("dtype")) curve.title += " (" + dtype->as_name() + ")";
  const bool compared = root.get("compare_log").has_value();
  if (compared) {
    curve.measured = "measured: " + root.require("compare_log").as_name();
    // An empty device name is what a log without "#  Rank" lines gives.
    const auto device = root.get("measured_device");
    if (device && !(device->is_string() && device->json().get_ref<const std::string&>().empty())) {
      curve.measured += " (" + device->as_name() + ")";
    }
    root.require("mean_abs_error").as_number(0);
    root.require("worst_error").as_number(-1);
  }
  for (const JsonValue& value : root.require("rows").as_array(1)) {
    JsonObject row = value.as_object();
    curve.bytes.push_back(row.require("bytes").as_positive_number());
    curve.simulated_gBps.push_back(row.require("busbw_gBps").as_number(0));
    row.require("time_us").as_number(0);
    row.require("algbw_gBps").as_number(0);
    row.require("nccl_choice").as_name();
    if (compared) {
      curve.measured_gBps.push_back(row.require("measured_busbw_gBps").as_number(0));
      if (auto error = row.get("error")) error->as_number(-1);
    }
    row.finish();
  }
  root.finish();
  return curve;
}

PlotSpec collectives_plot(const CollectivesCurve& curve) {
  PlotSpec plot{"collectives", "", ""};
  char line[128];
  for (std::size_t i = 0; i < curve.bytes.size(); ++i) {
    std::snprintf(line, sizeof line, "%.17g %.17g", curve.bytes[i], curve.simulated_gBps[i]);
    plot.data += line;
    // A size the log measured no bandwidth for stays off the measured curve (gnuplot skips "NaN").
    if (!curve.measured_gBps.empty()) {
      const std::optional<double>& measured = curve.measured_gBps[i];
      if (measured && *measured > 0) {
        std::snprintf(line, sizeof line, " %.17g", *measured);
        plot.data += line;
      } else {
        plot.data += " NaN";
      }
    }
    plot.data += "\n";
  }
  std::string& c = plot.commands;
  c += "set title " + gnuplot_quote(printable(curve.title)) + "\n";
  c += "set grid\nset key inside left top box opaque\nset logscale x 2\nset format x '%.0b %BB'\n";
  c += "set xlabel 'size (bytes)'\nset ylabel 'busbw (GB/s)'\nset yrange [0:*]\n";
  c += "plot 'collectives.dat' using 1:2 with linespoints pointtype 7 title 'simulated by vtsim'";
  if (!curve.measured_gBps.empty()) {
    c += ", \\\n     '' using 1:3 with linespoints pointtype 5 title " + gnuplot_quote(printable(curve.measured));
  }
  c += "\n";
  return plot;
}

}  // namespace vtsim::tools
