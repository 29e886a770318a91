// vtsim collectives: simulate nccl-tests (all_reduce, all_gather, reduce_scatter, sendrecv, alltoall) on any scenario's
// cluster with the cost model the training loop uses, print it as a table, JSON or nccl-tests' own layout, and hold it
// against a measured nccl-tests log size by size.

#include "tools/commands/collectives_command.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>

#include "calibrate/nccl_tests_importer.hpp"
#include "models/catalog/gpu_catalog.hpp"
#include "models/collectives/collective_model.hpp"
#include "models/core/error.hpp"
#include "models/core/input_file.hpp"
#include "models/resolve/resolve.hpp"
#include "sim/engine/isolated_run.hpp"
#include "tools/commands/check_command.hpp"
#include "tools/commands/cli_checks.hpp"
#include "tools/commands/command.hpp"
#include "tools/report/text_table.hpp"

namespace vtsim::tools {
namespace {

/// The nccl-tests operations vtsim simulates, by nccl-tests' names.
constexpr std::array<std::string_view, 7> kSimulatedOps = {"all_reduce", "all_gather", "reduce_scatter", "broadcast",
                                                          "reduce",     "sendrecv",   "alltoall"};

sim::TestedOp tested_op(const std::string& op) {
  if (op == "all_gather") return sim::TestedOp::all_gather;
  if (op == "reduce_scatter") return sim::TestedOp::reduce_scatter;
  if (op == "broadcast") return sim::TestedOp::broadcast;
  if (op == "reduce") return sim::TestedOp::reduce;
  if (op == "sendrecv") return sim::TestedOp::sendrecv;
  if (op == "alltoall") return sim::TestedOp::alltoall;
  return sim::TestedOp::all_reduce;
}

Collective bus_collective(const std::string& op) {
  if (op == "all_gather") return Collective::allgather;
  if (op == "reduce_scatter") return Collective::reduce_scatter;
  if (op == "broadcast") return Collective::broadcast;
  if (op == "reduce") return Collective::reduce;
  if (op == "sendrecv") return Collective::sendrecv;
  if (op == "alltoall") return Collective::alltoall;
  return Collective::allreduce;
}

/// nccl-tests' reduction column: "sum" for reductions, "none" for data movement.
std::string redop_of(const std::string& op) {
  return op == "all_reduce" || op == "reduce_scatter" || op == "reduce" ? "sum" : "none";
}

int dtype_bytes(const std::string& dtype) { return dtype == "float" ? 4 : 2; }

/// The ranks' GPUs: "N" = GPUs 0..N-1, "a,b,c" = those, "" = job 0's.
std::vector<int> chosen_gpus(const std::string& text, const Scenario& scenario) {
  const int total = scenario.cluster.total_gpus();
  std::vector<int> gpus;
  if (text.empty()) {
    gpus = scenario.jobs.front().gpu_ids;
  } else if (text.find(',') == std::string::npos) {
    const int count = std::stoi(text);
    if (count < 2 || count > total) {
      throw InputError("--gpus " + text + ": expected 2 to " + std::to_string(total) + " (the cluster's GPUs)");
    }
    for (int g = 0; g < count; ++g) gpus.push_back(g);
  } else {
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');) {
      const int gpu = std::stoi(item);
      if (gpu < 0 || gpu >= total) {
        throw InputError("--gpus " + text + ": GPU " + item + " is not in the cluster (0 to " +
                         std::to_string(total - 1) + ")");
      }
      gpus.push_back(gpu);
    }
  }
  std::sort(gpus.begin(), gpus.end());
  if (std::adjacent_find(gpus.begin(), gpus.end()) != gpus.end()) throw InputError("--gpus " + text + ": a GPU twice");
  if (gpus.size() < 2) throw InputError("--gpus: a collective needs at least two GPUs");
  return gpus;
}

/// nccl-tests' sizes from -b to -e by -f, each a whole number of elements (of every rank's share for all_gather and
/// reduce_scatter, whose counts nccl-tests divides among the ranks).
std::vector<double> sweep_sizes(const CollectivesRequest& request, int ranks) {
  // all_gather, reduce_scatter and alltoall divide their count among the ranks.
  const bool whole = request.op == "all_reduce" || request.op == "sendrecv" || request.op == "broadcast" ||
                     request.op == "reduce";
  const auto unit = static_cast<double>(dtype_bytes(request.dtype) * (whole ? 1 : ranks));
  std::vector<double> sizes;
  for (double size = static_cast<double>(request.min_bytes); size <= static_cast<double>(request.max_bytes) * (1 + 1e-12);
       size *= request.factor) {
    const double aligned = std::max(unit, std::floor(size / unit) * unit);
    if (sizes.empty() || aligned > sizes.back()) sizes.push_back(aligned);
    if (request.factor <= 1) break;
  }
  return sizes;
}

std::vector<sim::CollectiveTiming> simulate(const Scenario& scenario, const std::vector<int>& gpus, sim::TestedOp op,
                                            const std::vector<double>& sizes) {
  const CalibratedParameters calibration = load_scenario_calibration(scenario);
  const nlohmann::json answer = sim::run_isolated([&] {
    nlohmann::json rows = nlohmann::json::array();
    for (const sim::CollectiveTiming& t :
         sim::simulate_collective_sweep(resolve_collective(scenario, calibration, gpus), op, sizes)) {
      rows.push_back({{"bytes", t.bytes}, {"time_s", t.time_s}, {"choice", t.choice}});
    }
    return rows;
  });
  std::vector<sim::CollectiveTiming> timings;
  for (const nlohmann::json& row : answer) {
    timings.push_back({row["bytes"].get<double>(), row["time_s"].get<double>(), row["choice"].get<std::string>()});
  }
  return timings;
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

void print_compare(const CollectivesRequest& request, const Scenario& scenario, std::ostream& out) {
  const std::string text = read_input_file(request.compare_log);
  const CollectiveSeries measured = calibrate::import_nccl_tests(text, request.compare_log, {});
  if (std::find(kSimulatedOps.begin(), kSimulatedOps.end(), measured.op) == kSimulatedOps.end()) {
    throw InputError(request.compare_log + ": " + measured.op + " is not simulated (all_reduce, all_gather, "
                     "reduce_scatter, broadcast, reduce, sendrecv and alltoall are)");
  }
  std::vector<int> gpus;
  if (request.gpus.empty()) {
    for (int g = 0; g < measured.ranks; ++g) gpus.push_back(g);
    if (measured.ranks > scenario.cluster.total_gpus()) {
      throw InputError(request.compare_log + ": " + std::to_string(measured.ranks) + " ranks, but the scenario's "
                       "cluster has " + std::to_string(scenario.cluster.total_gpus()) + " GPUs");
    }
  } else {
    gpus = chosen_gpus(request.gpus, scenario);
    if (static_cast<int>(gpus.size()) != measured.ranks) {
      throw InputError("--gpus: " + std::to_string(gpus.size()) + " GPUs, but " + request.compare_log + " measured " +
                       std::to_string(measured.ranks) + " ranks: compare like with like");
    }
  }
  std::vector<double> sizes;
  for (const CollectivePoint& point : measured.points) sizes.push_back(static_cast<double>(point.bytes));
  const std::vector<CollectiveRow> rows =
      collective_rows(measured.op, static_cast<int>(gpus.size()), simulate(scenario, gpus, tested_op(measured.op), sizes));
  // Per size, the simulated busbw's relative error against the measured one (none where the log measured 0).
  std::vector<std::optional<double>> errors;
  double sum = 0;
  double worst = 0;
  int counted = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double measured_bw = measured.points[i].busbw_gBps;
    if (measured_bw <= 0) {
      errors.emplace_back();
      continue;
    }
    const double e = rows[i].busbw_gBps / measured_bw - 1;
    errors.emplace_back(e);
    sum += std::abs(e);
    if (std::abs(e) > std::abs(worst)) worst = e;
    ++counted;
  }
  const double mean = sum / std::max(1, counted);
  if (request.format == "json") {
    nlohmann::json json = {{"scenario", scenario.name},
                           {"op", measured.op},
                           {"gpus", gpus},
                           {"compare_log", request.compare_log},
                           {"measured_device", measured.provenance.device},
                           {"rows", nlohmann::json::array()},
                           {"mean_abs_error", mean},
                           {"worst_error", worst}};
    for (std::size_t i = 0; i < rows.size(); ++i) {
      json["rows"].push_back({{"bytes", rows[i].bytes}, {"time_us", rows[i].time_us},
                              {"algbw_gBps", rows[i].algbw_gBps}, {"busbw_gBps", rows[i].busbw_gBps},
                              {"nccl_choice", rows[i].choice}, {"measured_busbw_gBps", measured.points[i].busbw_gBps},
                              {"error", errors[i] ? nlohmann::json(*errors[i]) : nlohmann::json()}});
    }
    out << json.dump(2) << '\n';
    return;
  }
  TextTable table({"size (B)", "measured busbw (GB/s)", "simulated busbw (GB/s)", "error", "NCCL choice"});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string error = errors[i] ? (*errors[i] >= 0 ? "+" : "") + fixed(100 * *errors[i], 1) + "%" : "-";
    table.add_row({fixed(rows[i].bytes, 0), fixed(measured.points[i].busbw_gBps, 2), fixed(rows[i].busbw_gBps, 2),
                   error, rows[i].choice});
  }
  out << measured.op << " over " << gpus.size() << " GPUs of " << scenario.name << " against " << request.compare_log
      << " (" << measured.provenance.device << ")\n";
  table.print(out);
  out << "busbw error over " << counted << " sizes: mean |error| " << fixed(100 * mean, 1) << "%, worst "
      << (worst >= 0 ? "+" : "") << fixed(100 * worst, 1) << "%\n";
}

/// What the scenario's first job sets of NCCL, as NCCL's variables would ("NCCL_ALGO=ring NCCL_PROTO=LL
/// NCCL_MIN_NCHANNELS=NCCL_MAX_NCHANNELS=2 NCCL_COLLNET_ENABLE=1"); "" where NCCL's model chooses everything.
std::string forced_nccl(const Scenario& scenario) {
  const JobConfig& job = scenario.jobs.front();
  std::string forced;
  const auto add = [&forced](const std::string& setting) { forced += (forced.empty() ? "" : " ") + setting; };
  if (job.nccl_algorithm) add("NCCL_ALGO=" + std::string(to_string(*job.nccl_algorithm)));
  if (job.nccl_protocol) add("NCCL_PROTO=" + std::string(to_string(*job.nccl_protocol)));
  if (job.nccl_channels) add("NCCL_MIN_NCHANNELS=NCCL_MAX_NCHANNELS=" + std::to_string(*job.nccl_channels));
  if (job.nccl_collnet) add("NCCL_COLLNET_ENABLE=1");
  return forced;
}

}  // namespace

std::vector<CollectiveRow> collective_rows(const std::string& op, int ranks,
                                           const std::vector<sim::CollectiveTiming>& timings) {
  std::vector<CollectiveRow> rows;
  for (const sim::CollectiveTiming& t : timings) {
    const double algbw = algbw_Bps(t.bytes, t.time_s) / 1e9;
    rows.push_back({t.bytes, t.time_s * 1e6, algbw, busbw_Bps(bus_collective(op), ranks, algbw * 1e9) / 1e9, t.choice});
  }
  return rows;
}

std::string format_nccl_tests(const std::string& op, const std::string& dtype, const std::vector<CollectiveRow>& rows,
                              const std::vector<std::string>& hosts, const std::vector<std::string>& devices) {
  std::ostringstream out;
  const std::string redop = redop_of(op);
  const int root = op == "broadcast" || op == "reduce" ? 0 : -1;  // nccl-tests prints the root of rooted collectives
  out << "# nccl-tests layout, simulated by vtsim collectives\n";
  out << "# Collective test starting: " << op << "_perf\n";
  out << "#\n# Using devices\n";
  for (std::size_t r = 0; r < devices.size(); ++r) {
    char line[256];
    std::snprintf(line, sizeof line, "#  Rank %2zu Group  0 Pid      0 on %10s device %2zu [0000:00:00] %s\n", r,
                  hosts[r].c_str(), r, devices[r].c_str());
    out << line;
  }
  out << "#\n";
  out << "#                                                              out-of-place                       in-place\n";
  out << "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
         "#wrong\n";
  out << "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
         "(GB/s)\n";
  double bus_sum = 0;
  for (const CollectiveRow& row : rows) {
    const auto count = static_cast<long long>(row.bytes / dtype_bytes(dtype));
    char line[256];
    std::snprintf(line, sizeof line, "%12.0f  %12lld  %8s  %6s  %6d  %7.2f  %6.2f  %6.2f  %5d  %7.2f  %6.2f  %6.2f  %5d\n",
                  row.bytes, count, dtype.c_str(), redop.c_str(), root, row.time_us, row.algbw_gBps, row.busbw_gBps, 0,
                  row.time_us, row.algbw_gBps, row.busbw_gBps, 0);
    out << line;
    bus_sum += row.busbw_gBps;
  }
  out << "# Out of bounds values : 0 OK\n";
  out << "# Avg bus bandwidth    : " << fixed(rows.empty() ? 0.0 : bus_sum / static_cast<double>(rows.size()), 4)
      << " \n#\n";
  return out.str();
}

void collectives_command(const CollectivesRequest& request, std::ostream& out) {
  const Scenario scenario = load_scenario_or_default(request.scenario_file, request.overrides);
  if (!request.compare_log.empty()) {
    print_compare(request, scenario, out);
    return;
  }
  const std::vector<int> gpus = chosen_gpus(request.gpus, scenario);
  const int ranks = static_cast<int>(gpus.size());
  const std::vector<CollectiveRow> rows =
      collective_rows(request.op, ranks, simulate(scenario, gpus, tested_op(request.op), sweep_sizes(request, ranks)));
  if (request.format == "json") {
    nlohmann::json json = {{"scenario", scenario.name}, {"op", request.op}, {"dtype", request.dtype},
                           {"gpus", gpus}, {"rows", nlohmann::json::array()}};
    const std::string forced = forced_nccl(scenario);
    json["nccl_forced"] = forced.empty() ? nlohmann::json() : nlohmann::json(forced);
    for (const CollectiveRow& row : rows) {
      json["rows"].push_back({{"bytes", row.bytes}, {"time_us", row.time_us}, {"algbw_gBps", row.algbw_gBps},
                              {"busbw_gBps", row.busbw_gBps}, {"nccl_choice", row.choice}});
    }
    out << json.dump(2) << '\n';
    return;
  }
  if (request.format == "nccl-tests") {
    const int gpus_per_host = scenario.cluster.host.gpus;
    const std::string device = find_gpu(scenario.cluster.host.gpu_model)->name;
    std::vector<std::string> hosts;
    std::vector<std::string> devices;
    for (int gpu : gpus) {
      hosts.push_back("host" + std::to_string(gpu / gpus_per_host));
      devices.push_back(device);
    }
    const std::string forced = forced_nccl(scenario);
    if (!forced.empty()) out << "# vtsim: forced " << forced << "\n";
    out << format_nccl_tests(request.op, request.dtype, rows, hosts, devices);
    return;
  }
  const std::string forced = forced_nccl(scenario);
  out << request.op << " over " << ranks << " GPUs of " << scenario.name << " (" << request.dtype << ")"
      << (forced.empty() ? "" : "; forced: " + forced) << "\n";
  TextTable table({"size (B)", "count", "type", "time (us)", "algbw (GB/s)", "busbw (GB/s)", "NCCL choice"});
  for (const CollectiveRow& row : rows) {
    table.add_row({fixed(row.bytes, 0), std::to_string(static_cast<long long>(row.bytes / dtype_bytes(request.dtype))),
                   request.dtype, fixed(row.time_us, 2), fixed(row.algbw_gBps, 2), fixed(row.busbw_gBps, 2),
                   row.choice});
  }
  table.print(out);
}

Command add_collectives_command(CLI::App& parent) {
  auto request = std::make_shared<CollectivesRequest>();
  CLI::App* app = parent.add_subcommand(
      "collectives", "Simulate nccl-tests on a scenario's cluster; --compare holds it against a measured log");
  app->add_option("scenario", request->scenario_file, "Scenario JSON file (the built-in default when omitted)")
      ->check(non_empty_scenario_file());
  app->add_option("--set", request->overrides, "Override a field, PATH=VALUE; repeatable")
      ->allow_extra_args(false)
      ->check(assignment_check());
  CLI::Option* op = app->add_option("--op", request->op,
                  "all_reduce, all_gather, reduce_scatter, broadcast, reduce, sendrecv or alltoall (root 0)")
      ->check(CLI::IsMember(std::vector<std::string>(kSimulatedOps.begin(), kSimulatedOps.end())));
  app->add_option("--gpus", request->gpus, "N (GPUs 0..N-1) or a list a,b,c (default: the scenario's first job's)");
  CLI::Option* min_bytes =
      app->add_option("-b,--minbytes", request->min_bytes,
                      "Smallest size, bytes, with K, M or G for 2^10, 2^20, 2^30 as nccl-tests (default 8)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  CLI::Option* max_bytes =
      app->add_option("-e,--maxbytes", request->max_bytes,
                      "Largest size, bytes, with K, M or G for 2^10, 2^20, 2^30 as nccl-tests (default 128 MiB)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  CLI::Option* factor = app->add_option("-f,--stepfactor", request->factor, "Size factor between steps (default 2)")
      ->check(finite_number_check())
      ->check(CLI::Range(1.01, 1024.0));
  app->add_option("--dtype", request->dtype, "float, half or bfloat16")
      ->check(CLI::IsMember({"float", "half", "bfloat16"}));
  app->add_option("--format", request->format, "table, json or nccl-tests")
      ->check(CLI::IsMember({"table", "json", "nccl-tests"}));
  app->add_option("--compare", request->compare_log, "A measured nccl-tests log: per-size busbw, measured and simulated");
  app->add_option("--algo", request->algorithm,
                  "Force all_reduce's algorithm, as NCCL_ALGO: ring, tree, nvls, collnetdirect or collnetchain")
      ->check(CLI::IsMember({"ring", "tree", "nvls", "collnetdirect", "collnetchain"}));
  app->add_flag("--collnet", request->collnet,
                "Enable CollNet (SHARP reductions in the InfiniBand switches), as NCCL_COLLNET_ENABLE=1 with the SHARP "
                "plugin; needs the infiniband transport");
  app->add_option("--proto", request->protocol, "Force the protocol, as NCCL_PROTO: LL, LL128 or Simple")
      ->check(CLI::IsMember({"LL", "LL128", "Simple"}));
  app->add_option("--channels", request->channels,
                  "Force the channels every collective runs, as NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS: 1 to 64")
      ->check(CLI::Range(1, kNcclMaxChannels));
  return {app, [request, op, min_bytes, max_bytes, factor] {
            // A measured log fixes the operation and the sizes: an option that would set them is not ignored.
            if (!request->compare_log.empty()) {
              for (const auto& [option, name] : {std::pair{op, "--op"}, std::pair{min_bytes, "-b"},
                                                 std::pair{max_bytes, "-e"}, std::pair{factor, "-f"}}) {
                if (option->count() > 0) {
                  throw InputError(std::string("--compare takes the operation and the sizes from ") +
                                   request->compare_log + ": drop " + name);
                }
              }
            }
            if (request->min_bytes > request->max_bytes) {
              throw InputError("-b " + std::to_string(request->min_bytes) + " is larger than -e " +
                               std::to_string(request->max_bytes));
            }
            // The scenario's first job carries the collectives' settings: --algo and --proto are its nccl keys.
            if (!request->algorithm.empty()) request->overrides.push_back("jobs[0].nccl.algorithm=" + request->algorithm);
            if (!request->protocol.empty()) request->overrides.push_back("jobs[0].nccl.protocol=" + request->protocol);
            if (request->channels > 0) {
              request->overrides.push_back("jobs[0].nccl.channels=" + std::to_string(request->channels));
            }
            if (request->collnet) request->overrides.push_back("jobs[0].nccl.collnet=true");
            collectives_command(*request, std::cout);
          }};
}

}  // namespace vtsim::tools
