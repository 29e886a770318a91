#include "tools/plot_scripts.hpp"

#include <gtest/gtest.h>

#include "models/error.hpp"
#include "sweep_test_support.hpp"
#include "tools/gnuplot_runner.hpp"

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
  EXPECT_NE(plot.commands.find("index 1 using 1:3 with linespoints pointtype 7 title 'transport=tcp'"),
            std::string::npos);
  EXPECT_NE(plot.commands.find("set logscale x 2"), std::string::npos);  // 1 to 4 GPUs
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
  EXPECT_NE(breakdown.commands.find("title 'scheduler wait'"), std::string::npos);
}

TEST(GnuplotScript, QuotesAndDrawsBothFormats) {
  EXPECT_EQ(gnuplot_quote("Jain's"), "'Jain''s'");
  const std::string script = gnuplot_script({"scaling", "1 2\n", "plot 'scaling.dat'\n"});
  EXPECT_NE(script.find("set output 'scaling.svg'\nplot 'scaling.dat'\n"), std::string::npos);
  EXPECT_NE(script.find("set output 'scaling.png'\nplot 'scaling.dat'\n"), std::string::npos);
  EXPECT_NE(script.find("pngcairo"), std::string::npos);
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

}  // namespace
}  // namespace vtsim::tools
