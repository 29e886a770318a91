#include "tools/commands/catalog_command.hpp"

#include <algorithm>
#include <cctype>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "models/catalog/gpu_catalog.hpp"
#include "models/catalog/host_catalog.hpp"
#include "models/catalog/interconnect_catalog.hpp"
#include "models/catalog/mig_catalog.hpp"
#include "models/catalog/nic_catalog.hpp"
#include "models/catalog/vgpu_catalog.hpp"
#include "models/compute/compute_fit.hpp"
#include "models/core/units.hpp"
#include "models/workload/workload_catalog.hpp"
#include "tools/commands/command.hpp"
#include "tools/report/text_table.hpp"

namespace vtsim::tools {
namespace {

using nlohmann::json;
using units::kBytesPerGiB;

// Each catalog is rendered once into rows of JSON objects; the table is drawn from the same objects, so the two
// formats cannot disagree. `columns` names the keys shown in the table, in order. A row's `footnote` (text that many
// rows share) is shown in the table as a number after its last column, the text once below the table.
struct Rendered {
  std::vector<std::string> columns;
  json rows = json::array();
};

std::string cell(const json& value) {
  if (value.is_null()) return "-";
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "yes" : "no";
  if (value.is_number()) return format_number(value.get<double>(), 5);
  return value.dump();
}

json optional_tflops(const std::optional<double>& flops) {
  return flops ? json(*flops / units::kFlopsPerTflops) : json(nullptr);
}

Rendered render_gpus() {
  Rendered r{{"id", "name", "fp32_tflops", "tf32_tflops", "fp16_tflops", "bf16_tflops", "fp8_tflops", "memory_gib",
              "memory_bw_gBps", "l2_mib", "sms", "mig_sms", "nvlink", "nvlink_links", "pcie_gen", "tdp_w", "source"}};
  for (const GpuSpec& g : gpu_catalog()) {
    r.rows.push_back({{"id", g.id}, {"name", g.name}, {"architecture", g.architecture},
                      {"fp32_tflops", g.fp32_flops / units::kFlopsPerTflops}, {"tf32_tflops", optional_tflops(g.tf32_flops)},
                      {"fp16_tflops", optional_tflops(g.fp16_flops)}, {"bf16_tflops", optional_tflops(g.bf16_flops)},
                      {"fp8_tflops", optional_tflops(g.fp8_flops)},
                      {"memory_gib", g.memory_bytes / kBytesPerGiB},
                      {"memory_bw_gBps", g.memory_bandwidth_Bps / units::kBytesPerSecondPerGBps},
                      {"l2_mib", g.l2_bytes / units::kBytesPerMiB}, {"sms", g.sm_count}, {"mig_sms", g.mig_sm_count},
                      {"nvlink", g.nvlink_id.empty() ? json(nullptr) : json(g.nvlink_id)},
                      {"nvlink_links", g.nvlink_links}, {"pcie_gen", g.pcie_gen},
                      {"tdp_w", g.max_power_w}, {"source", g.source},
                      {"not_modelled", g.not_modelled.empty() ? json(nullptr) : json(g.not_modelled)}});
  }
  return r;
}

// Per GPU, precision path and kernel kind: the efficiency a job gets and where it comes from
// (models/compute/compute_fit.hpp).
Rendered render_fitted_gpus() {
  Rendered r{{"gpu", "path", "kind", "efficiency", "provenance", "note"}};
  const ComputeFit& fit = published_compute_fit();
  for (const GpuSpec& g : gpu_catalog()) {
    for (PrecisionPath path : {PrecisionPath::fp32, PrecisionPath::tf32, PrecisionPath::tensor16}) {
      if (path == PrecisionPath::tf32 && !g.tf32_flops) continue;
      if (path == PrecisionPath::tensor16 && !g.fp16_flops) continue;
      for (KernelKind kind : {KernelKind::gemm, KernelKind::convolution}) {
        const std::optional<EfficiencyProvenance> found = resolved_efficiency(g, path, kind, fit);
        if (!found) continue;
        const bool refused = found->kind == EfficiencyProvenance::Kind::refused;
        const char* provenance = found->kind == EfficiencyProvenance::Kind::fitted    ? "fitted"
                                 : found->kind == EfficiencyProvenance::Kind::derived ? "derived"
                                 : refused                                            ? "refused"
                                                                                      : "transferred";
        // What every derived value of a path shares goes to a footnote.
        const std::string& shared = found->how_derivations_held;
        r.rows.push_back({{"gpu", g.id},
                          {"architecture", g.architecture},
                          {"path", std::string(to_string(path))},
                          {"kind", kind == KernelKind::gemm ? "gemm" : "convolution"},
                          {"efficiency", refused ? nlohmann::json(nullptr) : nlohmann::json(found->value)},
                          {"provenance", provenance},
                          {"note", found->note},
                          {"footnote", shared.empty() ? nlohmann::json(nullptr) : nlohmann::json(shared)}});
      }
    }
  }
  for (const auto& [framework, seconds] : fit.host_dispatch_s) {
    r.rows.push_back({{"gpu", "-"},
                      {"path", "-"},
                      {"kind", "host dispatch " + std::string(to_string(framework))},
                      {"efficiency", nullptr},
                      {"provenance", "fitted"},
                      {"note", "host dispatch " + format_number(seconds * 1e6) + " us per kernel (" +
                                   std::string(to_string(framework)) + "): fitted to published single-device rows"},
                      {"footnote", nullptr}});
  }
  return r;
}

Rendered render_interconnects() {
  Rendered r{{"id", "name", "per_direction_gBps", "links", "typical_gBps", "uncalibrated", "source"}};
  for (const NvlinkSpec& n : nvlink_catalog()) {
    r.rows.push_back({{"id", n.id}, {"name", n.name},
                      {"per_direction_gBps", n.per_link_bandwidth_Bps / units::kBytesPerSecondPerGBps},
                      {"links", n.max_links_per_gpu}, {"typical_gBps", nullptr}, {"uncalibrated", false},
                      {"source", n.source}});
  }
  for (const PcieSpec& p : pcie_catalog()) {
    r.rows.push_back({{"id", "pcie-gen" + std::to_string(p.generation)},
                      {"name", "PCIe Gen" + std::to_string(p.generation) + " x" + std::to_string(p.lanes)},
                      {"per_direction_gBps", p.theoretical_Bps / units::kBytesPerSecondPerGBps}, {"links", p.lanes},
                      {"typical_gBps", p.typical_Bps / units::kBytesPerSecondPerGBps},
                      {"uncalibrated", p.typical_uncalibrated}, {"source", p.source}});
  }
  return r;
}

Rendered render_nics() {
  Rendered r{{"id", "name", "line_rate_gbps", "ports", "latency_us", "pcie_gen", "source"}};
  for (const NicSpec& n : nic_catalog()) {
    r.rows.push_back({{"id", n.id}, {"name", n.name}, {"line_rate_gbps", n.line_rate_Bps / units::kBytesPerSecondPerGbps},
                      {"ports", n.ports}, {"latency_us", n.latency_s / units::kSecondsPerUs}, {"pcie_gen", n.pcie_gen},
                      {"source", n.source}});
  }
  return r;
}

Rendered render_hosts() {
  Rendered r{{"id", "cpu", "cpu_cores", "cpu_threads", "memory_gib", "gpus", "gpu_models", "nics", "nic_model",
              "source"}};
  for (const HostSpec& h : host_catalog()) {
    std::string gpu_models;
    for (const std::string& model : h.gpu_models) gpu_models += (gpu_models.empty() ? "" : ", ") + model;
    r.rows.push_back({{"id", h.id}, {"name", h.name}, {"cpu", h.cpu}, {"cpu_cores", h.cpu_cores},
                      {"cpu_threads", h.cpu_threads},
                      {"cpu_base_ghz", h.cpu_base_clock_hz > 0 ? json(h.cpu_base_clock_hz / 1e9) : json(nullptr)},
                      {"memory_gib", h.memory_bytes / kBytesPerGiB}, {"gpus", h.gpus}, {"gpu_models", gpu_models},
                      {"nics", h.nics}, {"nic_model", h.nic_model}, {"pcie_layout", h.pcie_layout},
                      {"pcie_switch_gpus", h.pcie_switch_gpus}, {"source", h.source}});
  }
  return r;
}

Rendered render_transports() {
  Rendered r{{"id", "added_latency_us", "bandwidth_efficiency", "routable", "uncalibrated", "description", "source"}};
  for (const TransportSpec& t : transport_catalog()) {
    r.rows.push_back({{"id", std::string(to_string(t.transport))}, {"description", t.description},
                      {"added_latency_us", t.added_latency_s / units::kSecondsPerUs},
                      {"bandwidth_efficiency", t.bandwidth_efficiency}, {"routable", t.routable},
                      {"uncalibrated", t.uncalibrated}, {"source", t.source}});
  }
  return r;
}

Rendered render_vgpu_profiles() {
  Rendered r{{"id", "gpu", "memory_gib", "max_per_gpu", "time_slice_ms", "source"}};
  for (const VgpuProfile& v : vgpu_catalog()) {
    r.rows.push_back({{"id", v.id}, {"gpu", v.gpu_id}, {"memory_gib", v.memory_bytes / kBytesPerGiB},
                      {"max_per_gpu", v.max_per_gpu}, {"time_slice_ms", v.default_time_slice_s() / units::kSecondsPerMs},
                      {"source", v.source}});
  }
  return r;
}

Rendered render_mig_profiles() {
  Rendered r{{"gpu", "id", "compute_slices", "memory_slices", "sms", "memory_gib", "max_instances", "source"}};
  for (const MigProfile& m : mig_catalog()) {
    r.rows.push_back({{"gpu", m.gpu_id}, {"id", m.id}, {"compute_slices", m.compute_slices},
                      {"memory_slices", m.memory_slices}, {"sms", m.sm_count}, {"memory_gib", m.memory_bytes / kBytesPerGiB},
                      {"max_instances", m.max_instances}, {"source", m.source}});
  }
  return r;
}

Rendered render_workloads() {
  Rendered r{{"id", "name", "unit", "input", "layers", "params_m", "published_params_m", "trainable_m",
              "fwd_gflop_per_sample", "gradient_mib", "source"}};
  for (const std::string& id : workload_ids()) {
    const Workload w = *make_workload(id);
    r.rows.push_back({{"id", w.id}, {"name", w.name}, {"unit", w.sample_unit}, {"input", w.input},
                      {"layers", w.layers.size()}, {"params_m", w.parameters() / 1e6},
                      {"published_params_m", w.published_parameters / 1e6},
                      {"trainable_m", w.trainable_parameters() / 1e6}, {"fwd_gflop_per_sample", w.forward_flop() / 1e9},
                      {"gradient_mib", w.gradient_bytes() / units::kBytesPerMiB}, {"source", w.source}});
  }
  return r;
}

Rendered render(const std::string& name) {
  if (name == "gpus") return render_gpus();
  if (name == "interconnects") return render_interconnects();
  if (name == "nics") return render_nics();
  if (name == "hosts") return render_hosts();
  if (name == "transports") return render_transports();
  if (name == "workloads") return render_workloads();
  if (name == "vgpu-profiles") return render_vgpu_profiles();
  return render_mig_profiles();
}

}  // namespace

const std::vector<std::string>& catalog_names() {
  static const std::vector<std::string> names = {"gpus",      "hosts",         "interconnects", "nics",
                                                 "transports", "workloads",    "vgpu-profiles", "mig-profiles"};
  return names;
}

void print_catalog(std::ostream& out, const std::string& name, bool as_json, bool fitted) {
  const std::vector<std::string> chosen = name.empty() ? catalog_names() : std::vector<std::string>{name};
  json all = json::object();
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const Rendered rendered = fitted && chosen[i] == "gpus" ? render_fitted_gpus() : render(chosen[i]);
    if (as_json) {
      all[chosen[i]] = rendered.rows;
      continue;
    }
    if (i > 0) out << '\n';
    out << chosen[i] << ":\n";
    TextTable table(rendered.columns);
    std::vector<std::string> footnotes;
    for (const json& row : rendered.rows) {
      std::vector<std::string> cells;
      for (const std::string& column : rendered.columns) cells.push_back(cell(row.at(column)));
      if (row.contains("footnote") && row.at("footnote").is_string()) {
        const std::string text = row.at("footnote").get<std::string>();
        auto found = std::find(footnotes.begin(), footnotes.end(), text);
        if (found == footnotes.end()) found = footnotes.insert(footnotes.end(), text);
        cells.back() += " [" + std::to_string(found - footnotes.begin() + 1) + "]";
      }
      table.add_row(std::move(cells));
    }
    table.print(out);
    for (std::size_t n = 0; n < footnotes.size(); ++n) {
      std::string text = footnotes[n];  // a clause of its rows' notes, a sentence of its own here
      text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
      out << "[" << n + 1 << "] " << text << ".\n";
    }
  }
  if (as_json) out << (name.empty() ? all : all[name]).dump(2) << '\n';
}

Command add_catalog_command(CLI::App& parent) {
  struct Options {
    std::string name;
    std::string format = "table";
    bool fitted = false;
  };
  auto options = std::make_shared<Options>();
  CLI::App* app = parent.add_subcommand("catalog", "Print the built-in hardware and workload catalogs");
  app->add_option("name", options->name, "Which catalog (all when omitted)")->check(CLI::IsMember(catalog_names()));
  app->add_option("--format", options->format, "table or json")->check(CLI::IsMember({"table", "json"}));
  app->add_flag("--fitted", options->fitted,
                "With gpus: per GPU, precision path and kernel kind, the efficiency a job gets and where it came from");
  app->parse_complete_callback([options] {
    if (options->fitted && options->name != "gpus") {
      throw CLI::ValidationError("--fitted", "only with the gpus catalog");
    }
  });
  return {app, [options] { print_catalog(std::cout, options->name, options->format == "json", options->fitted); }};
}

}  // namespace vtsim::tools
