#include "tools/commands/calibrate_command.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>

#include "calibrate/collective_bandwidth.hpp"
#include "calibrate/hardware_backends.hpp"
#include "calibrate/horovod_timeline_importer.hpp"
#include "calibrate/host_dispatch_importer.hpp"
#include "calibrate/mig_importer.hpp"
#include "calibrate/nccl_tests_importer.hpp"
#include "calibrate/perftest_importer.hpp"
#include "calibrate/probe_support.hpp"
#include "calibrate/profile_fits.hpp"
#include "calibrate/step_times_importer.hpp"
#include "calibrate/topology_importer.hpp"
#include "models/compute/variability.hpp"
#include "models/core/atomic_file.hpp"
#include "models/core/error.hpp"
#include "models/core/input_file.hpp"
#include "tools/commands/calibrate_show.hpp"
#include "tools/commands/command.hpp"

namespace vtsim::tools {
namespace {


void apply(Provenance& provenance, const ProvenanceOverrides& overrides, const std::string& log) {
  provenance.date = calibrate::file_date_iso8601(log);  // a log does not say when it was taken; its file does
  for (const auto& [field, value] : {std::pair{&provenance.device, &overrides.device},
                                     {&provenance.driver, &overrides.driver}, {&provenance.date, &overrides.date},
                                     {&provenance.host, &overrides.host}}) {
    if (!value->empty()) *field = *value;
  }
  const std::string imported = "imported from " + log + " by vtsim calibrate import";
  provenance.notes = provenance.notes.empty() ? imported : provenance.notes + "; " + imported;
  if (!overrides.notes.empty()) provenance.notes += "; " + overrides.notes;
}

// Measurements changed: fits of the old ones would mislead. Returns the note saying so, or "".
std::string drop_fits(CalibrationProfile& profile) {
  if (!profile.fits && !profile.gemm_efficiency) return "";
  profile.fits.reset();
  profile.gemm_efficiency.reset();
  return "note: removed the fits of the earlier measurements: run `vtsim calibrate fit " + profile.file + "`";
}

void write_or_print(const CalibrationProfile& profile, const std::string& out_file,
                    const std::vector<std::string>& lines) {
  if (out_file.empty()) {
    std::cout << checked_calibration_profile_text(profile, "the imported profile");
    for (const std::string& line : lines) std::cerr << "vtsim: " << line << '\n';
    return;
  }
  save_calibration_profile(profile, out_file);
  for (const std::string& line : lines) std::cout << out_file << ": " << line << '\n';
}

// ---- probe --------------------------------------------------------------------------------------------------------

struct ProbeRequest {
  std::string target;
  bool server = false;
  std::string client;
  std::string out_file;
  calibrate::RdmaProbeOptions rdma;
  std::int64_t nccl_max_bytes = std::int64_t{512} << 20;
};

void probe_command(const ProbeRequest& request) {
  std::vector<std::string> lines;
  if (request.target == "gpu") {
    // The backend first: it forks its helper before anything in this process touches CUDA.
    const std::unique_ptr<calibrate::GpuBackend> backend = calibrate::make_gpu_backend();
    CalibrationProfile profile = load_or_new_profile(request.out_file);
    calibrate::GpuProbeResult result = calibrate::probe_gpu(*backend, calibrate::GpuProbeOptions{});
    if (profile.gpu && profile.gpu->collective_sm_share && !result.gpu.collective_sm_share) {
      result.gpu.collective_sm_share = profile.gpu->collective_sm_share;  // measured by probe nccl: keep it
    }
    profile.gpu = result.gpu;
    if (result.topology) profile.topology = result.topology;
    lines.push_back("gpu: " + result.gpu.name + ", " + std::to_string(result.gpu.gemm.size()) + " GEMM points, " +
                    std::to_string(result.gpu.p2p.size()) + " P2P pairs" + (result.topology ? ", topology" : ""));
    for (const std::string& note : result.notes) lines.push_back("note: " + note);
    if (std::string dropped = drop_fits(profile); !dropped.empty()) lines.push_back(dropped);
    write_or_print(profile, request.out_file, lines);
    return;
  }
  if (request.target == "nccl") {
    const std::unique_ptr<calibrate::NcclBackend> backend = calibrate::make_nccl_backend();
    calibrate::NcclProbeOptions options;
    options.max_bytes = request.nccl_max_bytes;
    CalibrationProfile profile = load_or_new_profile(request.out_file);
    calibrate::NcclProbeResult result = calibrate::probe_nccl(*backend, options);
    profile.collectives.push_back(result.series);
    lines.push_back("collectives[" + std::to_string(profile.collectives.size() - 1) + "]: all_reduce over " +
                    std::to_string(result.series.ranks) + " GPUs, " + std::to_string(result.series.points.size()) +
                    " sizes");
    if (result.collective_sm_share) {
      if (!profile.gpu) {
        profile.gpu = GpuSection{};
        profile.gpu->provenance = result.series.provenance;
        profile.gpu->name = result.series.provenance.device;
      }
      profile.gpu->collective_sm_share = result.collective_sm_share;
      profile.gpu->provenance.notes += (profile.gpu->provenance.notes.empty() ? "" : "; ") +
                                       std::string("collective_sm_share by vtsim calibrate probe nccl, ") +
                                       result.series.provenance.date;
      lines.push_back("gpu.collective_sm_share: " + std::to_string(*result.collective_sm_share));
    }
    for (const std::string& note : result.notes) lines.push_back("note: " + note);
    if (std::string dropped = drop_fits(profile); !dropped.empty()) lines.push_back(dropped);
    write_or_print(profile, request.out_file, lines);
    return;
  }
  // rdma: the device is checked before the role, so that a machine without one says so whatever was asked.
  const std::unique_ptr<calibrate::RdmaBackend> backend = calibrate::make_rdma_backend();
  if (backend->devices().empty()) throw calibrate::DeviceNotFound("no RDMA device found");
  if (request.server) {
    calibrate::serve_rdma(*backend, request.rdma);
    return;
  }
  if (request.client.empty()) throw InputError("probe rdma: pass --server on one host and --client HOST on the other");
  CalibrationProfile profile = load_or_new_profile(request.out_file);
  const std::vector<RdmaSeries> series = calibrate::probe_rdma(*backend, request.client, request.rdma);
  for (const RdmaSeries& one : series) {
    profile.rdma.push_back(one);
    lines.push_back("rdma[" + std::to_string(profile.rdma.size() - 1) + "]: " + one.transport + " RDMA write " +
                    one.test + ", " + std::to_string(one.points.size()) + " sizes");
  }
  if (std::string dropped = drop_fits(profile); !dropped.empty()) lines.push_back(dropped);
  write_or_print(profile, request.out_file, lines);
}

// ---- fit and show -------------------------------------------------------------------------------------------------

void fit_command(const std::string& file) {
  CalibrationProfile profile = load_calibration_profile(file);
  Provenance provenance;
  provenance.tool = "vtsim calibrate fit";
  provenance.date = calibrate::utc_now_iso8601();
  provenance.notes = "least squares on relative error; two segments where one line's residual exceeds 5%";
  const std::vector<std::string> notes = calibrate::fit_profile(profile, provenance);
  save_calibration_profile(profile, file);
  std::cout << file << ": " << (profile.fits ? profile.fits->alpha_beta.size() : 0) << " alpha-beta fits, "
            << (profile.gemm_efficiency ? profile.gemm_efficiency->curves.size() : 0) << " GEMM efficiency curves\n";
  for (const std::string& note : notes) std::cout << file << ": note: " << note << '\n';
}

void show_command(const std::string& file, bool as_json) {
  const CalibrationProfile profile = load_calibration_profile(file);
  if (!as_json) {
    print_profile_tables(std::cout, profile);
    return;
  }
  const CalibratedParameters parameters = calibrated_parameters(profile);
  const nlohmann::json document = {{"profile", calibration_profile_json(profile)},
                                   {"calibrated_parameters", calibrated_parameters_json(parameters)}};
  std::cout << document.dump(2) << '\n';
}

}  // namespace

CalibrationProfile load_or_new_profile(const std::string& file) {
  if (file.empty() || !std::filesystem::exists(file)) {
    CalibrationProfile profile;
    profile.file = file;
    return profile;
  }
  return load_calibration_profile(file);
}

/// Refuses `series` when `existing` already holds its measurements (the same points, whatever the provenance): a log
/// imported twice into one profile would weigh twice in every fit.
template <typename Series>
void refuse_reimport(const std::vector<Series>& existing, Series series, const std::string& section,
                     const std::string& log) {
  for (std::size_t i = 0; i < existing.size(); ++i) {
    series.provenance = existing[i].provenance;
    if (series == existing[i]) {
      throw InputError(log + ": already in the profile as " + section + "[" + std::to_string(i) +
                       "]: each measurement counts once");
    }
  }
}

std::vector<std::string> import_logs(CalibrationProfile& profile, const ImportRequest& request) {
  std::vector<std::string> lines;
  const bool single = request.tool == "topo" || request.tool == "mig-lgip";
  if (single && request.logs.size() != 1) {
    throw InputError("import " + request.tool + ": expected one LOG, got " + std::to_string(request.logs.size()));
  }
  std::map<std::string, std::string> log_of_text;  // a log given twice, under any name, would count twice
  std::vector<calibrate::HostDispatchLog> host_logs;  // pooled into one section after the loop
  for (const std::string& log : request.logs) {
    const std::string text = read_input_file(log);
    if (const auto [seen, fresh] = log_of_text.emplace(text, log); !fresh) {
      throw InputError(log + ": the same log as " + seen->second + ": each measurement counts once");
    }
    if (request.tool == "host-dispatch") {
      host_logs.push_back({text, log});
    } else if (request.tool == "nccl-tests") {
      CollectiveSeries series = calibrate::import_nccl_tests(text, log, {request.op});
      refuse_reimport(profile.collectives, series, "collectives", log);
      apply(series.provenance, request.overrides, log);
      profile.collectives.push_back(series);
      lines.push_back("added collectives[" + std::to_string(profile.collectives.size() - 1) + "]: " + series.op +
                      " over " + std::to_string(series.ranks) + " GPUs, " + std::to_string(series.points.size()) +
                      " sizes, from " + log);
    } else if (request.tool == "perftest") {
      RdmaSeries series = calibrate::import_perftest(text, log, {request.transport});
      refuse_reimport(profile.rdma, series, "rdma", log);
      apply(series.provenance, request.overrides, log);
      profile.rdma.push_back(series);
      lines.push_back("added rdma[" + std::to_string(profile.rdma.size() - 1) + "]: " + series.transport + " RDMA " +
                      series.op + " " + series.test + ", " + std::to_string(series.points.size()) + " sizes, from " +
                      log);
    } else if (request.tool == "step-times") {
      StepTimeSeries series = calibrate::import_step_times(text, log, request.skip_first);
      refuse_reimport(profile.step_times, series, "step_times", log);
      apply(series.provenance, request.overrides, log);
      profile.step_times.push_back(series);
      char spread[32];
      std::snprintf(spread, sizeof spread, "%.2f%%", coefficient_of_variation(series.times_s) * 100);
      lines.push_back("added step_times[" + std::to_string(profile.step_times.size() - 1) + "]: " +
                      std::to_string(series.times_s.size()) + " steps (" + series.field + "), spread " + spread +
                      ", from " + log);
    } else if (request.tool == "horovod-timeline") {
      HorovodTimelineSeries series = calibrate::import_horovod_timeline(text, log);
      refuse_reimport(profile.horovod_timelines, series, "horovod_timelines", log);
      apply(series.provenance, request.overrides, log);
      profile.horovod_timelines.push_back(series);
      std::vector<double> sorted = series.negotiation_us;
      std::sort(sorted.begin(), sorted.end());
      const double tensors = std::accumulate(series.response_tensors.begin(), series.response_tensors.end(), 0.0);
      const double responses = static_cast<double>(series.response_tensors.size());
      char line[200];
      std::snprintf(line, sizeof line, "%zu negotiations over %d ranks (middle one %.1f us), %.0f responses of %.2f "
                    "tensors on average", series.negotiation_us.size(), series.ranks, sorted[sorted.size() / 2],
                    responses, responses > 0 ? tensors / responses : 0.0);
      lines.push_back("added horovod_timelines[" + std::to_string(profile.horovod_timelines.size() - 1) + "]: " +
                      line + ", from " + log);
    } else if (request.tool == "topo") {
      TopologySection topology = calibrate::import_topology(text, log);
      apply(topology.provenance, request.overrides, log);
      lines.push_back(std::string(profile.topology ? "replaced" : "added") + " topology: " +
                      std::to_string(topology.devices.size()) + " devices, from " + log);
      profile.topology = topology;
    } else {
      MigSection mig = calibrate::import_mig_profiles(text, log);
      apply(mig.provenance, request.overrides, log);
      lines.push_back(std::string(profile.mig_profiles ? "replaced" : "added") + " mig_profiles: " +
                      std::to_string(mig.profiles.size()) + " profiles, from " + log);
      profile.mig_profiles = mig;
    }
  }
  if (!host_logs.empty()) {
    HostSection host = calibrate::import_host_dispatch(host_logs);
    apply(host.provenance, request.overrides, host_logs.front().file);
    char line[240];
    std::snprintf(line, sizeof line, "%s host: %s eager %.2f us per launch over %d launches",
                  profile.host ? "replaced" : "added", std::string(to_string(host.framework)).c_str(),
                  host.eager_us_per_launch, host.eager_launches);
    std::string text = line;
    if (host.graph_us_per_node) {
      std::snprintf(line, sizeof line, ", CUDA graphs %.3f us per node", *host.graph_us_per_node);
      text += line;
    }
    if (host.launch_call_us) {
      std::snprintf(line, sizeof line, ", CUDA launch call %.2f us (median of %d)", *host.launch_call_us,
                    host.launch_calls);
      text += line;
    }
    lines.push_back(text + " (" + host.provenance.notes + ")");
    profile.host = host;
  }
  // Step times, timelines and the host feed no fit: the fits of the other measurements stay valid.
  if (request.tool != "step-times" && request.tool != "horovod-timeline" && request.tool != "host-dispatch") {
    if (std::string dropped = drop_fits(profile); !dropped.empty()) lines.push_back(dropped);
  }
  return lines;
}

Command add_calibrate_command(CLI::App& parent) {
  struct Options {
    ProbeRequest probe;
    ImportRequest import;
    std::string into;
    std::string profile;
    std::string format = "table";
  };
  auto options = std::make_shared<Options>();
  CLI::App* app = parent.add_subcommand("calibrate", "Measure GPUs and NICs, import tools' logs, fit, show profiles");
  app->require_subcommand(1);

  CLI::App* probe = app->add_subcommand("probe", "Measure this machine's GPUs (gpu), NCCL allreduce (nccl) or RDMA");
  probe->add_option("target", options->probe.target, "gpu, nccl or rdma")
      ->required()
      ->check(CLI::IsMember({"gpu", "nccl", "rdma"}));
  CLI::Option* server = probe->add_flag("--server", options->probe.server, "rdma: wait for the client");
  probe->add_option("--client", options->probe.client, "rdma: measure against the server on HOST")->excludes(server);
  probe->add_option("--out", options->probe.out_file, "Write into PROFILE (created or extended); default: stdout");
  probe->add_option("--device", options->probe.rdma.endpoint.device, "rdma: verbs device (default: the first)");
  probe->add_option("--ib-port", options->probe.rdma.endpoint.ib_port, "rdma: device port (default 1)");
  probe->add_option("--gid-index", options->probe.rdma.endpoint.gid_index, "rdma: GID index (default: RoCE v2)");
  probe->add_option("--port", options->probe.rdma.endpoint.tcp_port, "rdma: TCP port of the exchange (18515)");
  probe->add_option("--transport", options->probe.rdma.transport, "rdma: transport to record (default: the device's)")
      ->check(CLI::IsMember(rdma_transport_names()));
  probe->add_option("--max-bytes", options->probe.nccl_max_bytes, "nccl: largest allreduce (default 512 MiB)")
      ->check(CLI::Range(std::int64_t{8}, std::int64_t{1} << 34));

  CLI::App* import = app->add_subcommand("import", "Add nccl-tests, perftest or nvidia-smi output to a profile");
  import->add_option("tool", options->import.tool,
                     "nccl-tests, perftest, topo (nvidia-smi topo -m), mig-lgip, step-times (a training log), "
                     "horovod-timeline (HOROVOD_TIMELINE) or host-dispatch (calibrate/gpu_harness/host_dispatch.py)")
      ->required()
      ->check(CLI::IsMember(
          {"nccl-tests", "perftest", "topo", "mig-lgip", "step-times", "horovod-timeline", "host-dispatch"}));
  import->add_option("logs", options->import.logs, "Log files")->required();
  import->add_option("--into", options->into, "Profile to create or extend; default: print to stdout");
  import->add_option("--op", options->import.op, "nccl-tests: the collective, when the log does not say")
      ->check(CLI::IsMember(calibrate::collective_ops()));
  import->add_option("--skip-first", options->import.skip_first, "step-times: warm-up steps to drop (default 0)")
      ->check(CLI::Range(0, 1000000));
  import->add_option("--transport", options->import.transport, "perftest: the transport, e.g. roce_v2")
      ->check(CLI::IsMember(rdma_transport_names()));
  import->add_option("--device", options->import.overrides.device, "Provenance: the measured device");
  import->add_option("--driver", options->import.overrides.driver, "Provenance: driver and library versions");
  import->add_option("--date", options->import.overrides.date, "Provenance: when (default: the log's mtime)");
  import->add_option("--host", options->import.overrides.host, "Provenance: the host");
  import->add_option("--notes", options->import.overrides.notes, "Provenance: anything else");

  CLI::App* fit = app->add_subcommand("fit", "Fit alpha-beta lines and GEMM curves to a profile's measurements");
  fit->add_option("profile", options->profile, "Profile to fit (rewritten in place)")->required();
  CLI::App* show = app->add_subcommand("show", "Print a profile and what the simulator takes from it");
  show->add_option("profile", options->profile, "Profile to show")->required();
  show->add_option("--format", options->format, "table or json")->check(CLI::IsMember({"table", "json"}));

  return {app, [options, probe, import, fit, show] {
            if (*probe) probe_command(options->probe);
            if (*fit) fit_command(options->profile);
            if (*show) show_command(options->profile, options->format == "json");
            if (*import) {
              refuse_overwriting_inputs(options->into, options->import.logs, "--into");
              CalibrationProfile profile = load_or_new_profile(options->into);
              const std::vector<std::string> lines = import_logs(profile, options->import);
              write_or_print(profile, options->into, lines);
            }
          }};
}

}  // namespace vtsim::tools
