#include "tools/commands/calibrate_show.hpp"

#include "models/core/control_characters.hpp"
#include "models/core/units.hpp"
#include "tools/report/text_table.hpp"

namespace vtsim::tools {
namespace {

using nlohmann::json;

std::string optional_number(const std::optional<double>& value, int digits = 4) {
  return value ? format_number(*value, digits) : "-";
}

std::string provenance_line(const Provenance& provenance) {
  std::string line = provenance.tool;
  for (const std::string* field : {&provenance.device, &provenance.driver, &provenance.host, &provenance.date}) {
    if (!field->empty()) line += "; " + *field;
  }
  if (!provenance.notes.empty()) line += "; " + provenance.notes;
  return "  measured by " + printable(line) + "\n";
}

void print_gpu(std::ostream& out, const GpuSection& gpu) {
  out << "gpu: " << printable(gpu.name)
      << (gpu.catalog_gpu.empty() ? "" : " (catalog " + printable(gpu.catalog_gpu) + ")") << '\n'
      << provenance_line(gpu.provenance);
  TextTable scalars({"quantity", "value", "unit"});
  const auto add = [&](const char* name, const std::optional<double>& value, const char* unit) {
    if (value) scalars.add_row({name, format_number(*value), unit});
  };
  add("memory bandwidth", gpu.memory_bandwidth_gBps, "GB/s");
  add("host to device", gpu.h2d_gBps, "GB/s");
  add("device to host", gpu.d2h_gBps, "GB/s");
  add("kernel launch", gpu.kernel_launch_us, "us");
  add("context switch", gpu.context_switch_us, "us");
  add("collective SM share", gpu.collective_sm_share, "fraction");
  scalars.print(out);
  if (!gpu.gemm.empty()) {
    TextTable gemm({"precision", "m", "n", "k", "TFLOP/s"});
    for (const GemmMeasurement& point : gpu.gemm) {
      gemm.add_row({std::string(to_string(point.precision)), std::to_string(point.m), std::to_string(point.n),
                    std::to_string(point.k), format_number(point.tflops)});
    }
    gemm.print(out << '\n');
  }
  if (!gpu.p2p.empty()) {
    TextTable p2p({"src", "dst", "bandwidth GB/s", "latency us"});
    for (const P2pMeasurement& pair : gpu.p2p) {
      p2p.add_row({"GPU" + std::to_string(pair.src), "GPU" + std::to_string(pair.dst),
                   format_number(pair.bandwidth_gBps), optional_number(pair.latency_us)});
    }
    p2p.print(out << '\n');
  }
}

void print_collectives(std::ostream& out, const CalibrationProfile& profile) {
  for (std::size_t i = 0; i < profile.collectives.size(); ++i) {
    const CollectiveSeries& series = profile.collectives[i];
    out << "\ncollectives[" << i << "]: " << printable(series.op) << " over " << series.ranks << " GPUs"
        << (series.hosts ? " on " + std::to_string(*series.hosts) + " host" + (*series.hosts == 1 ? "" : "s") : "")
        << '\n' << provenance_line(series.provenance);
    TextTable table({"bytes", "time us", "algbw GB/s", "busbw GB/s"});
    for (const CollectivePoint& point : series.points) {
      table.add_row({std::to_string(point.bytes), format_number(point.time_us), format_number(point.algbw_gBps),
                     format_number(point.busbw_gBps)});
    }
    table.print(out);
  }
}

void print_rdma(std::ostream& out, const CalibrationProfile& profile) {
  for (std::size_t i = 0; i < profile.rdma.size(); ++i) {
    const RdmaSeries& series = profile.rdma[i];
    out << "\nrdma[" << i << "]: " << printable(series.transport) << " RDMA " << printable(series.op) << " "
        << printable(series.test) << '\n'
        << provenance_line(series.provenance);
    TextTable table({"bytes", "latency us", "bandwidth GB/s"});
    for (const RdmaPoint& point : series.points) {
      table.add_row({std::to_string(point.bytes), optional_number(point.latency_us),
                     optional_number(point.bandwidth_gBps)});
    }
    table.print(out);
  }
}

void print_topology(std::ostream& out, const TopologySection& topology) {
  out << "\ntopology:\n" << provenance_line(topology.provenance);
  std::vector<std::string> headers = {""};
  for (const TopologyDevice& device : topology.devices) headers.push_back(device.name);
  headers.insert(headers.end(), {"CPU affinity", "NUMA affinity", "NIC"});
  TextTable matrix(headers);
  for (const TopologyDevice& row : topology.devices) {
    std::vector<std::string> cells = {row.name};
    for (const TopologyDevice& column : topology.devices) {
      cells.push_back(row.name == column.name ? "X" : topology.connection(row.name, column.name).value_or("?"));
    }
    cells.insert(cells.end(), {row.cpu_affinity.empty() ? "-" : row.cpu_affinity,
                               row.numa_affinity.empty() ? "-" : row.numa_affinity,
                               row.nic_name.empty() ? "-" : row.nic_name});
    matrix.add_row(cells);
  }
  matrix.print(out);
}

void print_mig(std::ostream& out, const MigSection& mig) {
  out << "\nmig_profiles:\n" << provenance_line(mig.provenance);
  TextTable table({"gpu", "name", "id", "free/total", "memory GiB", "p2p", "SMs", "dec", "enc", "ce", "jpeg", "ofa"});
  for (const MigProfileRow& row : mig.profiles) {
    table.add_row({std::to_string(row.gpu), row.name, std::to_string(row.id),
                   std::to_string(row.instances_free) + "/" + std::to_string(row.instances_total),
                   format_number(row.memory_gib), row.p2p ? "yes" : "no", std::to_string(row.sms),
                   std::to_string(row.dec), std::to_string(row.enc), std::to_string(row.ce), std::to_string(row.jpeg),
                   std::to_string(row.ofa)});
  }
  table.print(out);
}

void print_fits(std::ostream& out, const CalibrationProfile& profile) {
  if (profile.fits) {
    out << "\nfits:\n" << provenance_line(profile.fits->provenance);
    TextTable table({"subject", "class", "from bytes", "alpha us", "beta GB/s", "residual", "points"});
    for (const AlphaBetaFit& fit : profile.fits->alpha_beta) {
      std::string link = fit.link_class.empty() ? "-" : fit.link_class;
      if (!fit.transport.empty()) link += ":" + fit.transport;
      table.add_row({fit.subject, link, "all", format_number(fit.alpha_us), format_number(fit.beta_gBps),
                     format_number(fit.residual, 2), std::to_string(fit.points)});
      for (const FitSegment& segment : fit.segments) {
        table.add_row({"", "", std::to_string(segment.from_bytes), format_number(segment.alpha_us),
                       format_number(segment.beta_gBps), format_number(segment.residual, 2),
                       std::to_string(segment.points)});
      }
    }
    table.print(out);
  }
  if (profile.gemm_efficiency) {
    out << "\ngemm_efficiency:\n" << provenance_line(profile.gemm_efficiency->provenance);
    TextTable table({"precision", "asymptotic TFLOP/s", "half rate GFLOP", "peak TFLOP/s", "max efficiency",
                     "residual", "points"});
    for (const GemmEfficiencyCurve& curve : profile.gemm_efficiency->curves) {
      table.add_row({std::string(to_string(curve.precision)), format_number(curve.asymptotic_tflops),
                     format_number(curve.half_rate_gflop), optional_number(curve.catalog_peak_tflops),
                     optional_number(curve.max_efficiency, 3), format_number(curve.residual, 2),
                     std::to_string(curve.points)});
    }
    table.print(out);
  }
}

void add_value(TextTable& table, const std::string& name, const std::optional<CalibratedValue>& value, double scale,
               const char* unit) {
  if (value) table.add_row({name, format_number(value->value / scale), unit, value->provenance});
}

}  // namespace

json calibrated_parameters_json(const CalibratedParameters& parameters) {
  const auto value = [](const std::optional<CalibratedValue>& v) {
    return v ? json{{"value", v->value}, {"provenance", v->provenance}} : json(nullptr);
  };
  const auto link = [&](const CalibratedLink& l) {
    return json{{"bandwidth_Bps", value(l.bandwidth_Bps)}, {"latency_s", value(l.latency_s)}};
  };
  json nic = json::object();
  for (const auto& [transport, figures] : parameters.nic) nic[transport] = link(figures);
  json gemm_flops = json::object();
  for (const auto& [precision, v] : parameters.gemm_flops) gemm_flops[std::string(to_string(precision))] = value(v);
  json efficiency = json::object();
  for (const auto& [precision, v] : parameters.gemm_flop_efficiency) {
    efficiency[std::string(to_string(precision))] = value(v);
  }
  return {{"nvlink", link(parameters.nvlink)},
          {"pcie", link(parameters.pcie)},
          {"host_memory", link(parameters.host_memory)},
          {"nic", nic},
          {"memory_bandwidth_Bps", value(parameters.memory_bandwidth_Bps)},
          {"gemm_flops", gemm_flops},
          {"gemm_flop_efficiency", efficiency},
          {"kernel_launch_s", value(parameters.kernel_launch_s)},
          {"context_switch_s", value(parameters.context_switch_s)},
          {"collective_sm_share", value(parameters.collective_sm_share)},
          {"step_time_cv", value(parameters.step_time_cv)},
          {"horovod_negotiation_message_s", value(parameters.horovod_negotiation_message_s)},
          {"host_dispatch", parameters.host_dispatch
                                ? json{{"framework", std::string(to_string(parameters.host_dispatch->framework))},
                                       {"eager_s", value(parameters.host_dispatch->eager_s)},
                                       {"graph_node_s", value(parameters.host_dispatch->graph_node_s)},
                                       {"launch_call_s", value(parameters.host_dispatch->launch_call_s)}}
                                : json(nullptr)},
          {"notes", parameters.notes}};
}

void print_profile_tables(std::ostream& out, const CalibrationProfile& profile) {
  out << "profile: " << printable(profile.file) << '\n';
  if (profile.gpu) print_gpu(out, *profile.gpu);
  print_collectives(out, profile);
  print_rdma(out, profile);
  if (profile.topology) print_topology(out, *profile.topology);
  if (profile.mig_profiles) print_mig(out, *profile.mig_profiles);
  print_fits(out, profile);
  for (std::size_t i = 0; i < profile.step_times.size(); ++i) {
    const StepTimeSeries& series = profile.step_times[i];
    out << "\nstep_times[" << i << "]: " << series.times_s.size() << " steps of " << printable(series.field) << " ("
        << series.log_format << "), " << printable(series.provenance.tool) << '\n';
  }
  for (std::size_t i = 0; i < profile.horovod_timelines.size(); ++i) {
    const HorovodTimelineSeries& series = profile.horovod_timelines[i];
    double bytes = 0;
    int tensors = 0;
    for (std::size_t r = 0; r < series.response_bytes.size(); ++r) {
      bytes += series.response_bytes[r];
      tensors += series.response_tensors[r];
    }
    const double responses = static_cast<double>(series.response_bytes.size());
    double cycle_ms = 0;
    for (double interval : series.cycle_ms) cycle_ms += interval / static_cast<double>(series.cycle_ms.size());
    out << "\nhorovod_timelines[" << i << "]: " << series.ranks << " ranks, " << series.negotiation_us.size()
        << " negotiations, " << series.response_bytes.size() << " fused responses (on average "
        << format_number(responses > 0 ? tensors / responses : 0) << " tensors, "
        << format_number(responses > 0 ? bytes / responses / units::kBytesPerMiB : 0) << " MiB)"
        << (series.cycle_ms.empty() ? std::string(", no cycle markers")
                                    : ", cycle " + format_number(cycle_ms) + " ms on average")
        << ", " << printable(series.provenance.tool) << '\n';
  }
  if (profile.host) {
    const HostSection& host = *profile.host;
    out << "\nhost: " << to_string(host.framework) << ' ' << printable(host.framework_version) << " on "
        << printable(host.cpu_model.empty() ? std::string("an unnamed CPU") : host.cpu_model) << ", eager "
        << format_number(host.eager_us_per_launch) << " us per launch over " << host.eager_launches << " launches"
        << (host.graph_us_per_node ? ", CUDA graphs " + format_number(*host.graph_us_per_node) + " us per node" : "")
        << (host.launch_call_us ? ", CUDA launch call " + format_number(*host.launch_call_us) + " us (median of " +
                                      std::to_string(host.launch_calls) + ")"
                                : "")
        << ", " << printable(host.provenance.tool) << '\n';
  }

  const CalibratedParameters parameters = calibrated_parameters(profile);
  out << "\ncalibrated parameters (what a scenario naming this profile takes instead of catalog defaults):\n";
  TextTable table({"parameter", "value", "unit", "from"});
  const double gBps = units::kBytesPerSecondPerGBps;
  const double us = units::kSecondsPerUs;
  for (const auto& [name, link] : {std::pair<std::string, const CalibratedLink*>{"nvlink", &parameters.nvlink},
                                   {"pcie", &parameters.pcie}, {"host_memory", &parameters.host_memory}}) {
    add_value(table, name + " bandwidth", link->bandwidth_Bps, gBps, "GB/s");
    add_value(table, name + " latency", link->latency_s, us, "us");
  }
  for (const auto& [transport, link] : parameters.nic) {
    add_value(table, "nic " + transport + " bandwidth", link.bandwidth_Bps, gBps, "GB/s");
    add_value(table, "nic " + transport + " latency", link.latency_s, us, "us");
  }
  add_value(table, "memory bandwidth", parameters.memory_bandwidth_Bps, gBps, "GB/s");
  for (const auto& [precision, value] : parameters.gemm_flops) {
    add_value(table, "gemm " + std::string(to_string(precision)), value, units::kFlopsPerTflops, "TFLOP/s");
  }
  for (const auto& [precision, value] : parameters.gemm_flop_efficiency) {
    add_value(table, "gemm " + std::string(to_string(precision)) + " efficiency", value, 1, "of peak");
  }
  add_value(table, "kernel launch", parameters.kernel_launch_s, us, "us");
  add_value(table, "context switch", parameters.context_switch_s, us, "us");
  add_value(table, "collective SM share", parameters.collective_sm_share, 1, "fraction");
  add_value(table, "step-time spread", parameters.step_time_cv, 1, "coefficient of variation");
  add_value(table, "Horovod negotiation message", parameters.horovod_negotiation_message_s, us, "us");
  if (parameters.host_dispatch) {
    const std::string framework(to_string(parameters.host_dispatch->framework));
    add_value(table, "host dispatch " + framework + " eager", parameters.host_dispatch->eager_s, us, "us per kernel");
    add_value(table, "host dispatch " + framework + " CUDA graphs", parameters.host_dispatch->graph_node_s, us,
              "us per node");
    add_value(table, "CUDA launch call (a library's own launch)", parameters.host_dispatch->launch_call_s, us,
              "us per launch");
  }
  table.print(out);
  for (const std::string& note : parameters.notes) out << "note: " << printable(note) << '\n';
}

}  // namespace vtsim::tools
