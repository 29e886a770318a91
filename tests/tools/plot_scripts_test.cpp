#include "tools/plot/plot_scripts.hpp"

#include <gtest/gtest.h>

#include "models/core/error.hpp"
#include "sweep_test_support.hpp"
#include "tools/plot/gnuplot_runner.hpp"

namespace vtsim::tools {
namespace {

using testing::TempDir;
using testing::write_text;

// A results.csv of one job per point: transport x hosts (= ranks), a zipped batch size, and one failed point.
constexpr const char* kScalingCsv =
    "point,id,cluster.transport,cluster.hosts_per_rack,jobs[0].batch_per_gpu,job,ranks,samples_per_s,"
    "scaling_efficiency,compute_s,interference_s,exposed_communication_s,error\n"
    "0,a0,pvrdma,1,64,j,1,100,1.0,0.25,0.0,0.0,\n"
    "1,a1,pvrdma,4,64,j,4,360,0.9,0.25,0.01,0.05,\n"
    "2,a2,pvrdma,2,64,j,2,190,0.95,0.25,0.01,0.02,\n"
    "3,a3,tcp,1,64,j,1,100,1.0,0.25,0.0,0.0,\n"
    "4,a4,tcp,2,64,j,2,150,0.75,0.25,0.01,0.08,\n"
    "5,a5,tcp,4,64,j,4,,,,,,\"x.json: cluster: does not fit, really\"\n";

ResultsTable table_of(const std::string& text) {
  const TempDir dir("plot");
  const std::string file = dir.path() + "/results.csv";
  write_text(file, text);
  return ResultsTable::read(file);
}

TEST(ResultsTable, FindsParametersAndSkipsFailedRows) {
  const ResultsTable table = table_of(kScalingCsv);
  EXPECT_EQ(table.parameters(),
            (std::vector<std::string>{"cluster.transport", "cluster.hosts_per_rack", "jobs[0].batch_per_gpu"}));
  EXPECT_EQ(table.ok_rows().size(), 5u);
  // The batch size never varies: it does not tell points apart.
  EXPECT_EQ(table.varying_parameters(), (std::vector<std::string>{"cluster.transport", "cluster.hosts_per_rack"}));
  EXPECT_EQ(short_column_name("cluster.host.nvlink.enabled"), "enabled");
  EXPECT_EQ(short_column_name("jobs[0].gpus"), "gpus");
}

TEST(ScalingPlot, OneLinePerVariantSortedByGpus) {
  const ResultsTable table = table_of(kScalingCsv);
  ASSERT_TRUE(has_scaling(table));
  const PlotSpec plot = scaling_plot(table);
  // hosts_per_rack maps one-to-one to ranks: it is the x axis, so the variants are the transports. tcp at 4 GPUs
  // failed and is left out.
  EXPECT_EQ(plot.data,
            "# transport=pvrdma\n1 100 1.0\n2 190 0.95\n4 360 0.9\n"
            "\n\n# transport=tcp\n1 100 1.0\n2 150 0.75\n");
  EXPECT_NE(plot.commands.find("index 1 using 1:3 with linespoints linetype 2 dashtype 1 pointtype 7 title "
                               "'transport=tcp'"),
            std::string::npos);
  EXPECT_NE(plot.commands.find("set logscale x 2"), std::string::npos);  // 1 to 4 GPUs
}

TEST(ScalingPlot, PointsRunUnderSeveralSeedsGetBarsFromTheirLeastToTheirMost) {
  // Two points run three times each and one run once: each data line carries samples/s and efficiency with their
  // least and most over the runs (the point run once, its own value twice), and the curves are drawn with bars.
  const ResultsTable table = table_of(
      "point,id,cluster.racks,job,ranks,samples_per_s,scaling_efficiency,seed_runs,seeds_samples_per_s_min,"
      "seeds_samples_per_s_max,seeds_scaling_efficiency_min,seeds_scaling_efficiency_max,error\n"
      "0,a0,1,j,8,800,1.0,,,,,,\n"
      "1,a1,2,j,16,1500,0.94,3,1400,1550,0.875,0.97,\n"
      "2,a2,4,j,32,2800,0.875,3,2500,2900,0.78,0.9,\n");
  const PlotSpec plot = scaling_plot(table);
  EXPECT_EQ(plot.data, "# all points\n8 800 1.0 800 800 1.0 1.0\n16 1500 0.94 1400 1550 0.875 0.97\n"
                       "32 2800 0.875 2500 2900 0.78 0.9\n");
  EXPECT_NE(plot.commands.find("using 1:2:4:5 with yerrorlines"), std::string::npos) << plot.commands;
  EXPECT_NE(plot.commands.find("using 1:3:6:7 with yerrorlines"), std::string::npos) << plot.commands;
  // Without seeds the curves stay lines through points.
  EXPECT_EQ(scaling_plot(table_of(kScalingCsv)).commands.find("yerrorlines"), std::string::npos);
}

TEST(BreakdownPlot, StacksComputeWithoutInterferenceThenInterferenceThenCommunication) {
  const PlotSpec plot = breakdown_plot(table_of(kScalingCsv));
  // Point 1: compute 0.25 of which 0.01 interference -> 0.24, 0.01, 0.05.
  EXPECT_NE(plot.data.find("\"transport=pvrdma, hosts_per_rack=4\" 0.24 0.01 0.05\n"), std::string::npos);
  EXPECT_THROW(tenants_plot(table_of(kScalingCsv)), InputError);
}

TEST(TenantsPlot, BarsPerTenantThenTotalAndFairness) {
  const ResultsTable table = table_of(
      "point,id,virtualization.mode,jobs[0].copies,jobs,total_samples_per_s,jain_fairness,job0.job,"
      "job0.samples_per_s,job0.compute_s,job0.interference_s,job0.exposed_communication_s,job0.scheduler_wait_s,"
      "job1.job,job1.samples_per_s,job1.compute_s,job1.interference_s,job1.exposed_communication_s,"
      "job1.scheduler_wait_s,error\n"
      "0,b0,vgpu,1,1,500,1.0,t,500,0.03,0,0,0,,,,,,,\n"
      "1,b1,vgpu,2,2,480,0.99,t-1,250,0.03,0,0,0.03,t-2,230,0.03,0,0,0.05,\n");
  ASSERT_TRUE(has_tenants(table));
  EXPECT_FALSE(has_scaling(table));
  const PlotSpec tenants = tenants_plot(table);
  EXPECT_EQ(tenants.data, "\"copies=1\" 500 ? 500 1.0\n\"copies=2\" 250 230 480 0.99\n");
  EXPECT_NE(tenants.commands.find("'' using 3 title 'tenant 2'"), std::string::npos);
  // The breakdown of several jobs is their mean: scheduler wait (0.03 + 0.05) / 2.
  const PlotSpec breakdown = breakdown_plot(table);
  EXPECT_NE(breakdown.data.find("\"copies=2\" 0.03 0 0 0.04\n"), std::string::npos);
  EXPECT_NE(breakdown.commands.find("title 'waiting for the GPU scheduler'"), std::string::npos);
}

TEST(BreakdownPlot, ItsBarsAddUpToTheStep) {
  // A loader-bound point (issue 32: its 0.64 s step showed as 0.2 s): compute 0.2 s of which 0.01 interference,
  // 0.05 s exposed communication, 0.37 s waiting for data, 0.02 s for the slowest rank: 0.64 s in all.
  const ResultsTable table = table_of(
      "point,id,cluster.racks,job,ranks,step_time_mean_s,samples_per_s,scaling_efficiency,compute_s,interference_s,"
      "straggler_wait_s,exposed_communication_s,data_wait_s,scheduler_wait_s,error\n"
      "0,a0,1,j,8,0.64,3200,0.31,0.2,0.01,0.02,0.05,0.37,0,\n");
  const PlotSpec plot = breakdown_plot(table);
  EXPECT_EQ(plot.data, "\"point 0\" 0.19 0.01 0.05 0.37 0.02 0\n");
  double sum = 0;
  for (const double part : {0.19, 0.01, 0.05, 0.37, 0.02, 0.0}) sum += part;
  EXPECT_NEAR(sum, 0.64, 1e-12);
  for (const char* title : {"'compute'", "'waiting for data'", "'waiting for the slowest rank'",
                            "'waiting for the GPU scheduler'", "'exposed communication'"}) {
    EXPECT_NE(plot.commands.find(std::string("title ") + title), std::string::npos) << title;
  }
}

TEST(GnuplotScript, QuotesAndDrawsBothFormats) {
  EXPECT_EQ(gnuplot_quote("Jain's"), "'Jain''s'");
  // gnuplot 5.4 reads 'a''''b' as an error: a run of quotes is concatenated as a double-quoted string instead.
  EXPECT_EQ(gnuplot_quote("a''b"), "'a' . \"''\" . 'b'");
  EXPECT_EQ(gnuplot_quote("''"), "'' . \"''\" . ''");
  const std::string script = gnuplot_script({"scaling", "1 2\n", "plot 'scaling.dat'\n"});
  EXPECT_NE(script.find("set output 'scaling.svg'\nplot 'scaling.dat'\n"), std::string::npos);
  EXPECT_NE(script.find("set output 'scaling.png'\nplot 'scaling.dat'\n"), std::string::npos);
  EXPECT_NE(script.find("pngcairo"), std::string::npos);
}

// A results.csv whose transport value once ran as gnuplot commands: its newline ended the quoted title, and
// `system "touch PWNED"` followed as a command of its own.
std::string injected_value(const std::string& pwned) { return "x\nsystem \"touch " + pwned + "\"\n#"; }

std::string injected_csv(const std::string& pwned) {
  std::string cell = "\"";
  for (const char c : injected_value(pwned)) cell += c == '"' ? std::string("\"\"") : std::string(1, c);
  cell += "\"";
  return "point,id,cluster.transport,cluster.hosts_per_rack,job,ranks,samples_per_s,scaling_efficiency,compute_s,"
         "interference_s,exposed_communication_s,error\n"
         "0,a0,pvrdma,1,j,1,100,1.0,0.25,0.0,0.0,\n"
         "1,a1,pvrdma,2,j,2,190,0.95,0.25,0.01,0.02,\n"
         "2,a2," + cell + ",1,j,1,100,1.0,0.25,0.0,0.0,\n"
         "3,a3," + cell + ",2,j,2,150,0.75,0.25,0.01,0.08,\n";
}

TEST(GnuplotScript, DataWithNewlinesNeverBecomesScriptLines) {
  const ResultsTable table = table_of(injected_csv("/p/PWNED"));
  ASSERT_EQ(table.field(table.ok_rows()[2], "cluster.transport"), injected_value("/p/PWNED"));  // read back intact
  for (const PlotSpec& plot : {scaling_plot(table), breakdown_plot(table)}) {
    const std::string script = gnuplot_script(plot);
    EXPECT_EQ(script.find("\nsystem"), std::string::npos) << script;
    EXPECT_EQ(plot.data.find("\nsystem"), std::string::npos) << plot.data;
  }
  // The title shows the value on one line, its newlines as \n; the data file keeps one line per point.
  EXPECT_NE(scaling_plot(table).commands.find("title 'transport=x\\nsystem \"touch /p/PWNED\"\\n#'"),
            std::string::npos);
  EXPECT_EQ(scaling_plot(table).data,
            "# transport=pvrdma\n1 100 1.0\n2 190 0.95\n"
            "\n\n# transport=x\\nsystem \"touch /p/PWNED\"\\n#\n1 100 1.0\n2 150 0.75\n");
  EXPECT_NE(breakdown_plot(table).data.find("\"transport=x\\nsystem 'touch /p/PWNED'\\n#, hosts_per_rack=2\" "),
            std::string::npos);
}

TEST(GnuplotQuote, RefusesEveryControlCharacter) {
  for (int byte = 0; byte < 0x20; ++byte) {
    std::string text = "a";
    text += static_cast<char>(byte);
    EXPECT_THROW(gnuplot_quote(text), InputError) << "byte " << byte;
  }
  EXPECT_THROW(gnuplot_quote("a\x7f"), InputError);
  // Nothing else is special in a single-quoted gnuplot string: no backquote substitution, no macros.
  EXPECT_EQ(gnuplot_quote("`touch X` @macro \\ \""), "'`touch X` @macro \\ \"'");
}

TEST(PlotScripts, FiguresThatAreNotNumbersAreRefused) {
  std::string csv = kScalingCsv;
  csv.replace(csv.find(",190,"), 5, ",1 9e,");
  try {
    scaling_plot(table_of(csv));
    FAIL() << "expected an error";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find(": point 2: samples_per_s: expected a number, got '1 9e'"),
              std::string::npos)
        << error.what();
  }
}

TEST(BreakdownPlot, AResultsFileWithoutTheBreakdownColumnsIsAnErrorNotAnEmptyPlot) {
  // A CSV that ResultsTable reads (id, a parameter, the job column) but whose breakdown columns were cut away.
  const std::string csv = "point,id,cluster.transport,job,ranks,samples_per_s,error\n0,a0,tcp,j,1,100,\n";
  try {
    breakdown_plot(table_of(csv));
    FAIL() << "drew an empty plot";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find(": no 'compute_s' column"), std::string::npos) << error.what();
  }
}

// A results.csv of `rows` one-job points varying hosts_per_rack (= ranks) and `variants` transports.
std::string many_points_csv(int hosts, int variants) {
  std::string csv =
      "point,id,cluster.transport,cluster.hosts_per_rack,job,ranks,samples_per_s,scaling_efficiency,compute_s,"
      "interference_s,exposed_communication_s,error\n";
  int point = 0;
  for (int v = 0; v < variants; ++v) {
    for (int h = 1; h <= hosts; ++h, ++point) {
      csv += std::to_string(point) + ",p" + std::to_string(point) + ",t" + std::to_string(v) + "," + std::to_string(h) +
             ",j," + std::to_string(h) + "," + std::to_string(100 * h) + ",1.0,0.25,0.01,0.05,\n";
    }
  }
  return csv;
}

TEST(PlotLegibility, ManyBarsAreLabelledEveryKthAndManyCurvesPutTheLegendOutside) {
  // 100 bars (4 transports x 25 host counts): ceil(100 / 25) = 4, so bars 0, 4, 8, ... keep their labels.
  const PlotSpec breakdown = breakdown_plot(table_of(many_points_csv(25, 4)));
  std::size_t labelled = 0;
  std::size_t blank = 0;
  std::size_t start = 0;
  while (start < breakdown.data.size()) {
    const std::size_t end = breakdown.data.find('\n', start);
    (breakdown.data.compare(start, 3, "\"\" ") == 0 ? blank : labelled) += 1;
    start = end + 1;
  }
  EXPECT_EQ(labelled, 25u);
  EXPECT_EQ(blank, 75u);
  // 2 curves: the legend sits in the plot's corner; 8 curves: beside the plot.
  EXPECT_NE(scaling_plot(table_of(many_points_csv(3, 2))).commands.find("set key inside"), std::string::npos);
  EXPECT_NE(scaling_plot(table_of(many_points_csv(3, 8))).commands.find("set key outside right"), std::string::npos);
  // Few bars keep every label.
  EXPECT_EQ(breakdown_plot(table_of(many_points_csv(3, 2))).data.find("\"\" "), std::string::npos);
}

// A results.csv of one-job points: `outer` transports x `inner` batch sizes, each at 1 to 3 hosts (= ranks).
std::string variants_csv(int outer, int inner) {
  std::string csv =
      "point,id,cluster.transport,jobs[0].batch_per_gpu,cluster.hosts_per_rack,job,ranks,samples_per_s,"
      "scaling_efficiency,compute_s,interference_s,exposed_communication_s,error\n";
  int point = 0;
  for (int o = 0; o < outer; ++o) {
    for (int i = 0; i < inner; ++i) {
      for (int h = 1; h <= 3; ++h, ++point) {
        csv += std::to_string(point) + ",p" + std::to_string(point) + ",t" + std::to_string(o) + "," +
               std::to_string(i + 1) + "," + std::to_string(h) + ",j," + std::to_string(h) + "," +
               std::to_string(100 * h) + ",0.9,0.25,0.01,0.05,\n";
      }
    }
  }
  return csv;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

TEST(PlotLegibility, OneFiveTwentyAndAHundredVariants) {
  // 1 variant: one panel each for samples/s and efficiency, legends in their corners.
  const PlotSpec one = scaling_plot(table_of(variants_csv(1, 1)));
  EXPECT_NE(one.commands.find("set multiplot layout 2,1"), std::string::npos);
  EXPECT_EQ(count_of(one.commands, "set key inside"), 2u);
  // 5: legends beside the panels, five colours.
  const PlotSpec five = scaling_plot(table_of(variants_csv(1, 5)));
  EXPECT_EQ(count_of(five.commands, "set key outside right"), 2u);
  EXPECT_EQ(count_of(five.commands, "linetype 5 dashtype 1"), 2u);
  // 20: past gnuplot's 8 colours the dash pattern changes, so curve 9 is not curve 1 again.
  const PlotSpec twenty = scaling_plot(table_of(variants_csv(4, 5)));
  EXPECT_NE(twenty.commands.find("set multiplot layout 2,1"), std::string::npos);
  EXPECT_EQ(count_of(twenty.commands, "linetype 1 dashtype 1"), 2u);
  EXPECT_EQ(count_of(twenty.commands, "linetype 1 dashtype 2"), 2u);
  EXPECT_EQ(count_of(twenty.commands, "linetype 4 dashtype 3"), 2u);  // curve 20
  // 100 (4 transports x 25 batch sizes): a row of panels per transport, each with the 25 batch sizes, a batch size in
  // the same colour and dash in every row; the image grows with the rows.
  const PlotSpec hundred = scaling_plot(table_of(variants_csv(4, 25)));
  EXPECT_NE(hundred.commands.find("set multiplot layout 4,2 title"), std::string::npos);
  EXPECT_NE(hundred.commands.find("a row per transport"), std::string::npos);
  for (const char* row : {"set title 'transport=t0'", "set title 'transport=t3'"}) {
    EXPECT_EQ(count_of(hundred.commands, row), 1u) << row;
  }
  EXPECT_EQ(count_of(hundred.commands, " title 'batch_per_gpu=25'"), 8u);      // 4 rows x 2 panels
  EXPECT_EQ(count_of(hundred.commands, "linetype 1 dashtype 4 pointtype 7 title 'batch_per_gpu=25'"), 8u);
  EXPECT_EQ(hundred.height, 4 * 330);
  if (std::system("command -v gnuplot > /dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot is not installed";
  // Drawn, none of them makes gnuplot warn (a warning is an error: RenderPlot.AGnuplotWarningIsAnErrorNamingIt).
  const TempDir dir("variants");
  for (const PlotSpec& plot : {one, five, twenty, hundred}) EXPECT_EQ(render_plot(plot, dir.path(), "gnuplot").size(), 2u);
}

TEST(TenantCountPlot, ThroughputAndFairnessAgainstTheNumberOfTenantsPerVariant) {
  const ResultsTable table = table_of(
      "point,id,virtualization.scheduler.policy,jobs[0].copies,jobs,total_samples_per_s,jain_fairness,job0.job,"
      "job0.samples_per_s,job0.compute_s,job0.interference_s,job0.exposed_communication_s,error\n"
      "0,a0,best_effort,4,4,400,0.98,t,100,0.03,0,0,\n"
      "1,a1,best_effort,2,2,300,1.0,t,150,0.03,0,0,\n"
      "2,a2,equal_share,2,2,280,1.0,t,140,0.03,0,0,\n"
      "3,a3,equal_share,4,4,360,0.97,t,90,0.03,0,0,\n");
  ASSERT_TRUE(has_tenant_counts(table));
  EXPECT_FALSE(has_tenant_counts(table_of(kScalingCsv)));
  const PlotSpec plot = tenant_count_plot(table);
  // Per policy, sorted by count: count, all tenants, mean per tenant (total / count), fairness.
  EXPECT_EQ(plot.data,
            "# policy=best_effort\n2 300 150 1.0\n4 400 100 0.98\n"
            "\n\n# policy=equal_share\n2 280 140 1.0\n4 360 90 0.97\n");
  EXPECT_NE(plot.commands.find("title 'policy=equal_share, mean per tenant'"), std::string::npos);
  EXPECT_NE(plot.commands.find("set ylabel 'Jain''s fairness'"), std::string::npos);
}

// End to end: `vtsim plot` on the injected CSV draws the plots and runs nothing.
TEST(PlotCommand, InjectedValuesDoNotRunThroughGnuplot) {
  if (std::system("command -v gnuplot > /dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot is not installed";
  const TempDir dir("plot-injection");
  const std::string pwned = dir.path() + "/PWNED";
  write_text(dir.path() + "/results.csv", injected_csv(pwned));
  std::string output;
  EXPECT_EQ(testing::run_vtsim({"plot", dir.path() + "/results.csv", "--out", dir.path() + "/plots"}, output,
                               dir.path() + "/log.txt"),
            0)
      << output;
  EXPECT_FALSE(std::filesystem::exists(pwned)) << "gnuplot ran a command from the CSV";
  for (const char* image : {"scaling.svg", "scaling.png", "breakdown.svg", "breakdown.png"}) {
    EXPECT_TRUE(std::filesystem::exists(dir.path() + "/plots/" + image)) << image;
  }
}

TEST(RenderPlot, MissingGnuplotIsAClearError) {
  try {
    const TempDir dir("nognuplot");
    render_plot({"scaling", "1 2\n", "plot 'scaling.dat'\n"}, dir.path(), "/nonexistent/gnuplot");
    FAIL() << "expected an error";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("gnuplot not found (\"/nonexistent/gnuplot\")"), std::string::npos);
  }
}

TEST(RenderPlot, AGnuplotWarningIsAnErrorNamingIt) {
  // gnuplot draws on after "Terminal canvas area too small" (here 40 x 40 panels): a plot nobody can read.
  if (std::system("command -v gnuplot > /dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot is not installed";
  const TempDir dir("gnuplot-warning");
  try {
    render_plot({"scaling", "1 2\n2 3\n", "set multiplot layout 40,40\nplot 'scaling.dat'\nunset multiplot\n"},
                dir.path(), "gnuplot");
    FAIL() << "expected an error";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("scaling.gp: gnuplot warned, so the plot would not be readable: "),
              std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("canvas area too small"), std::string::npos) << error.what();
  }
  // The same plot in one panel draws without a word.
  EXPECT_EQ(render_plot({"scaling", "1 2\n2 3\n", "plot 'scaling.dat'\n"}, dir.path(), "gnuplot").size(), 2u);
}

// What `vtsim collectives --compare LOG --format json` prints, two sizes, the first not measured (busbw 0).
constexpr const char* kComparedJson = R"({
  "compare_log": "all_reduce_perf.log", "gpus": [0, 1], "mean_abs_error": 0.1, "measured_device": "NVIDIA A100",
  "op": "all_reduce", "scenario": "box", "worst_error": -0.1,
  "rows": [
    {"algbw_gBps": 0.001, "busbw_gBps": 0.001, "bytes": 8, "error": null, "measured_busbw_gBps": 0.0,
     "nccl_choice": "ring/LL", "time_us": 8},
    {"algbw_gBps": 90, "busbw_gBps": 90, "bytes": 1048576, "error": -0.1, "measured_busbw_gBps": 100,
     "nccl_choice": "ring/Simple", "time_us": 11.65}
  ]
})";

CollectivesCurve curve_of(const std::string& text) {
  const TempDir dir("collectives-plot");
  const std::string file = dir.path() + "/curve.json";
  write_text(file, text);
  return read_collectives_curve(file);
}

TEST(CollectivesPlot, DrawsTheSimulatedAndTheMeasuredCurveLeavingUnmeasuredSizesOut) {
  const PlotSpec plot = collectives_plot(curve_of(kComparedJson));
  EXPECT_EQ(plot.name, "collectives");
  EXPECT_EQ(plot.data, "8 0.001 NaN\n1048576 90 100\n");
  EXPECT_NE(plot.commands.find("set logscale x 2"), std::string::npos);
  EXPECT_NE(plot.commands.find("using 1:2"), std::string::npos);
  EXPECT_NE(plot.commands.find("using 1:3"), std::string::npos);
  EXPECT_NE(plot.commands.find("'measured: all_reduce_perf.log (NVIDIA A100)'"), std::string::npos);
  EXPECT_NE(plot.commands.find("'all_reduce over 2 GPUs of box'"), std::string::npos);
}

TEST(CollectivesPlot, WithoutCompareOnlyTheSimulatedCurve) {
  const PlotSpec plot = collectives_plot(curve_of(R"({"scenario": "box", "op": "broadcast", "dtype": "half",
      "gpus": [0, 1, 2], "rows": [{"bytes": 1024, "time_us": 10.24, "algbw_gBps": 0.1, "busbw_gBps": 0.1,
      "nccl_choice": "ring/LL"}]})"));
  EXPECT_EQ(plot.data, "1024 0.10000000000000001\n");
  EXPECT_EQ(plot.commands.find("using 1:3"), std::string::npos);
  EXPECT_NE(plot.commands.find("'broadcast over 3 GPUs of box (half)'"), std::string::npos);
}

TEST(CollectivesPlot, AnythingElseIsOneClearError) {
  // A key the format does not have, a name with a newline (it would reach the script), a negative bandwidth.
  for (const auto& [text, message] :
       {std::pair<std::string, std::string>{R"({"scenario": "b", "op": "all_reduce", "gpus": [0, 1], "rows": [
          {"bytes": 8, "time_us": 1, "algbw_gBps": 1, "busbw_gBps": 1, "nccl_choice": "x", "colour": 1}]})",
                                            "rows[0].colour: unknown key"},
        {R"({"scenario": "b\nsystem 'touch x'", "op": "all_reduce", "gpus": [0, 1], "rows": []})", "scenario"},
        {R"({"scenario": "b", "op": "all_reduce", "gpus": [0, 1], "rows": [
          {"bytes": 8, "time_us": 1, "algbw_gBps": 1, "busbw_gBps": -1, "nccl_choice": "x"}]})",
         "rows[0].busbw_gBps"}}) {
    try {
      curve_of(text);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("curve.json"), std::string::npos) << error.what();
    }
  }
}

}  // namespace
}  // namespace vtsim::tools
