#include "models/scenario/scenario_loader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "models/catalog/catalog_lookup.hpp"
#include "models/catalog/gpu_catalog.hpp"
#include "models/catalog/host_catalog.hpp"
#include "models/catalog/mig_catalog.hpp"
#include "models/catalog/nic_catalog.hpp"
#include "models/catalog/vgpu_catalog.hpp"
#include "models/compute/data_loading.hpp"
#include "models/core/control_characters.hpp"
#include "models/core/error.hpp"
#include "models/core/input_file.hpp"
#include "models/core/json_reader.hpp"
#include "models/core/nearest_name.hpp"
#include "models/core/units.hpp"
#include "models/scenario/operations_loader.hpp"
#include "models/scenario/overrides.hpp"
#include "models/scenario/scenario_checks.hpp"
#include "models/traces/chakra_trace.hpp"
#include "models/workload/workload_catalog.hpp"

namespace vtsim {
namespace {

// HGX/DGX boards hold 8 GPUs (16 on a DGX-2); a GB200 NVL72 rack, taken as one host, 72 in one NVLink domain.
constexpr int kMaxGpusPerHost = 72;
constexpr int kMaxNicsPerHost = 72;  // one per GPU, as on a GB200 NVL72 rack
constexpr int kMaxCopies = 1024;  // identical tenants from one job entry
constexpr std::int64_t kMaxClusterGpus = 1 << 20;  // far beyond what one SimGrid process can hold
constexpr int kMaxCount = std::numeric_limits<std::int32_t>::max();  // "expected an integer >= min"

// Why `path` cannot be read as a file, "" when it can: nothing there, a folder, or something that is not a regular
// file (a FIFO, a device), each said as it is (issue 31: every one was "no such file").
std::string not_a_file(const std::filesystem::path& path) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) return "no such file: " + path.string();
  if (std::filesystem::is_directory(status)) return path.string() + " is a folder, not a file";
  if (!std::filesystem::is_regular_file(status)) return path.string() + " is not a regular file (a pipe or a device)";
  return "";
}
// A job's simulated iterations, measured and warm-up, each: a simulation of more would run for days, and the steady
// state repeats long before (issue 31: 1e9 ran forever).
constexpr int kMaxIterations = 1000000;
// Samples per GPU per step: 2^20, far above any that fits a GPU's memory.
constexpr int kMaxBatchPerGpu = 1 << 20;

int read_int(JsonObject& object, std::string_view key, int fallback, int min, int max) {
  const std::optional<JsonValue> value = object.get(key);
  return value ? static_cast<int>(value->as_int(min, max)) : fallback;
}

// ---- cluster ----------------------------------------------------------------------------------------------------

HostConfig read_host(JsonObject host) {
  const std::optional<JsonValue> server = host.get("model");
  const std::optional<JsonValue> gpus = host.get("gpus");
  const std::optional<JsonValue> model = host.get("gpu_model");
  const std::optional<JsonValue> nvlink_value = host.get("nvlink");
  const std::optional<JsonValue> pcie_gen = host.get("pcie_gen");
  const std::optional<JsonValue> pcie_switch_gpus = host.get("pcie_switch_gpus");
  const std::optional<JsonValue> nics = host.get("nics");
  const std::optional<JsonValue> nic_model = host.get("nic_model");
  const std::optional<JsonValue> cpu_cores = host.get("cpu_cores");
  host.finish();

  HostConfig config;
  // A catalogued server sets the defaults and bounds what the scenario may say of it.
  const HostSpec* spec = nullptr;
  if (server) {
    config.model = server->as_choice(ids_of(host_catalog()));
    spec = find_host(config.model);
    config.gpus = spec->gpus;
    config.gpu_model = spec->gpu_models.front();
    config.nics = spec->nics;
    if (spec->nics > 0) config.nic_model = spec->nic_model;
    config.cpu_cores = spec->cpu_cores;
    config.pcie_switch_gpus = spec->pcie_switch_gpus;
  }
  if (gpus) {
    config.gpus = static_cast<int>(gpus->as_int(1, kMaxGpusPerHost));
    if (spec && config.gpus != spec->gpus) {
      gpus->fail("the " + spec->name + " has " + std::to_string(spec->gpus) + " GPUs");
    }
  }
  if (model) {
    config.gpu_model = model->as_choice(ids_of(gpu_catalog()));
    if (spec && std::find(spec->gpu_models.begin(), spec->gpu_models.end(), config.gpu_model) ==
                    spec->gpu_models.end()) {
      std::string offered;
      for (const std::string& id : spec->gpu_models) offered += (offered.empty() ? "" : " or ") + id;
      model->fail("the " + spec->name + " comes with " + offered);
    }
  }
  const GpuSpec& gpu = *find_gpu(config.gpu_model);

  apply_gpu_model_defaults(config, gpu);
  if (nvlink_value) {
    JsonObject nvlink = nvlink_value->as_object();
    const std::optional<JsonValue> present = nvlink.get("present");
    const std::optional<JsonValue> enabled = nvlink.get("enabled");
    nvlink.finish();
    if (present) {
      config.nvlink_present = present->as_bool();
      if (config.nvlink_present && gpu.nvlink_links == 0) {
        present->fail(gpu.not_modelled.empty() ? gpu.name + " has no NVLink"
                                               : gpu.name + ": vtsim does not model " + gpu.not_modelled);
      }
      config.nvlink_enabled = config.nvlink_present;
    }
    if (enabled) {
      config.nvlink_enabled = enabled->as_bool();
      if (config.nvlink_enabled && !config.nvlink_present) enabled->fail("NVLink cannot be enabled: it is not present");
    }
  }
  if (pcie_gen) config.pcie_gen = static_cast<int>(pcie_gen->as_int(3, 5));
  if (pcie_switch_gpus) config.pcie_switch_gpus = static_cast<int>(pcie_switch_gpus->as_int(0, config.gpus));
  // A server's NIC slots: fewer of its compute NICs may be used, not more; another adapter may sit in them. A server
  // sold without a compute-fabric NIC (its source names none) takes what the scenario adds.
  if (nics) {
    config.nics = static_cast<int>(nics->as_int(0, kMaxNicsPerHost));
    if (spec && spec->nics > 0 && config.nics > spec->nics) {
      nics->fail("the " + spec->name + " has " + std::to_string(spec->nics) + " compute NICs");
    }
  }
  if (nic_model) config.nic_model = nic_model->as_choice(ids_of(nic_catalog()));
  // With SMT a process may run on each hardware thread: up to the server's threads.
  if (cpu_cores) {
    config.cpu_cores = static_cast<int>(cpu_cores->as_int(1, 4096));
    if (spec && *config.cpu_cores > spec->cpu_threads) {
      cpu_cores->fail("the " + spec->name + " has " + std::to_string(spec->cpu_threads) + " hardware threads");
    }
  }
  return config;
}

/// The fabric of a cluster whose hosts are `host`, `hosts_per_rack` to a rack. Of oversubscription, spines and
/// uplink_gbps the scenario gives at most two (all three only when they agree); the rest follow from
/// oversubscription = a leaf's NIC bandwidth / (spines x uplink line rate), the uplink defaulting to the NIC's line
/// rate and the ratio to 1:1; a leaf's NIC bandwidth is hosts_per_rack x nics x NIC line rate, or with rail-optimized
/// cabling (one leaf per NIC of the rack's hosts) hosts_per_rack x NIC line rate. `cluster` is where an error points
/// when the scenario gives no fabric.
FabricConfig read_fabric(std::optional<JsonValue> value, const JsonValue& cluster, const HostConfig& host,
                         int hosts_per_rack, Transport transport) {
  FabricConfig config;
  config.adaptive_routing = transport == Transport::infiniband;
  const NicSpec* nic = find_nic(host.nic_model);
  std::optional<double> ratio;
  std::optional<double> uplink_Bps;
  std::optional<int> spines;
  std::optional<JsonValue> ratio_value;
  bool spines_given = false;
  bool uplink_given = false;
  if (value) {
    JsonObject fabric = value->as_object();
    ratio_value = fabric.get("oversubscription");
    if (ratio_value) ratio = ratio_value->as_number(0.01, 64.0);
    if (auto speed = fabric.get("uplink_gbps")) uplink_Bps = units::gbps_to_Bps(speed->as_number(1.0, 1e6));
    if (auto count = fabric.get("spines")) spines = static_cast<int>(count->as_int(1, 1024));
    if (auto latency = fabric.get("switch_latency_us")) {
      config.switch_latency_s = latency->as_number(0.0, 1000.0) * units::kSecondsPerUs;
      config.switch_latency_stated = true;
    }
    if (auto adaptive = fabric.get("adaptive_routing")) {
      config.adaptive_routing = adaptive->as_bool();
      if (config.adaptive_routing && transport != Transport::infiniband) {
        adaptive->fail("adaptive routing is modelled for the infiniband transport only (Ethernet fabrics hash each "
                       "flow onto one spine)");
      }
    }
    if (auto rails = fabric.get("rail_optimized")) {
      config.rail_optimized = rails->as_bool();
      if (config.rail_optimized && host.nics < 1) rails->fail("rail-optimized cabling needs NICs (cluster.host.nics)");
    }
    fabric.finish();
    spines_given = spines.has_value();
    uplink_given = uplink_Bps.has_value();
  }
  // What one leaf's host ports carry: every NIC of its rack's hosts, or with rail-optimized cabling one per host.
  const int nics_per_leaf = config.rail_optimized ? 1 : host.nics;
  const double leaf_Bps =
      static_cast<double>(hosts_per_rack) * nics_per_leaf * (nic != nullptr ? nic->line_rate_Bps : 0.0);
  if (leaf_Bps <= 0) {  // no NICs: no fabric to size
    config.spines = spines.value_or(1);
    config.uplink_stated = uplink_Bps.has_value();
    config.uplink_bandwidth_Bps = uplink_Bps.value_or(0.0);
    return config;
  }
  if (ratio && spines && !uplink_Bps) uplink_Bps = leaf_Bps / (*ratio * *spines);
  config.uplink_stated = uplink_Bps.has_value();
  config.uplink_bandwidth_Bps = uplink_Bps.value_or(nic->line_rate_Bps);
  if (!spines) {
    // Enough uplinks for the ratio asked for (1:1 by default), rounded up; the ratio is then what they give.
    spines = std::max(1, static_cast<int>(std::ceil(leaf_Bps / (ratio.value_or(1.0) * config.uplink_bandwidth_Bps) - 1e-9)));
    if (*spines > 1024 && value) {
      value->fail(std::to_string(*spines) + " spines would be needed for that oversubscription at that uplink speed; "
                  "at most 1024: give a faster uplink_gbps or a larger oversubscription");
    }
    if (*spines > 1024) {
      cluster.fail(std::to_string(*spines) + " spines would be needed for a 1:1 fabric with uplinks at the NICs' line "
                   "rate; at most 1024: give cluster.fabric a faster uplink_gbps or a larger oversubscription");
    }
  }
  config.spines = *spines;
  config.oversubscription = leaf_Bps / (config.spines * config.uplink_bandwidth_Bps);
  if (ratio && spines_given && uplink_given && std::abs(config.oversubscription - *ratio) > 1e-6 * *ratio) {
    char derived[32];
    std::snprintf(derived, sizeof derived, "%.4g", config.oversubscription);
    ratio_value->fail(std::string(config.rail_optimized ? "does not match hosts_per_rack x NIC line rate / (spines x "
                                                          "uplink_gbps) per rail leaf = "
                                                        : "does not match hosts_per_rack x nics x NIC line rate / "
                                                          "(spines x uplink_gbps) = ") +
                      std::string(derived) + "; give at most two of oversubscription, spines and uplink_gbps");
  }
  return config;
}

ClusterConfig read_cluster(JsonObject cluster) {
  ClusterConfig config;
  config.racks = read_int(cluster, "racks", config.racks, 1, kMaxCount);
  config.hosts_per_rack = read_int(cluster, "hosts_per_rack", config.hosts_per_rack, 1, kMaxCount);
  if (auto host = cluster.get("host")) {
    config.host = read_host(host->as_object());
  } else {
    config.host = read_host(JsonValue(nlohmann::json::object(), cluster.value().file(),
                                      child_path(cluster.value().path(), "host")).as_object());
  }
  if (auto transport = cluster.get("transport")) {
    std::vector<std::string> names;
    for (const TransportSpec& spec : transport_catalog()) names.emplace_back(to_string(spec.transport));
    config.transport = *parse_transport(transport->as_choice(names));
    const NicSpec* nic = find_nic(config.host.nic_model);
    if (config.transport == Transport::infiniband && config.host.nics > 0 && !nic->infiniband) {
      std::string vpi;
      for (const NicSpec& card : nic_catalog()) {
        if (card.infiniband) vpi += (vpi.empty() ? "" : ", ") + card.id;
      }
      transport->fail(nic->name + " is an Ethernet adapter: infiniband needs a VPI card (" + vpi +
                      ") as cluster.host.nic_model");
    }
  }
  config.fabric =
      read_fabric(cluster.get("fabric"), cluster.value(), config.host, config.hosts_per_rack, config.transport);
  cluster.finish();
  const std::int64_t gpus = std::int64_t{config.racks} * config.hosts_per_rack * config.host.gpus;
  if (gpus > kMaxClusterGpus) {
    cluster.value().fail(std::to_string(gpus) + " GPUs (racks x hosts_per_rack x host.gpus); at most " +
                         std::to_string(kMaxClusterGpus) + " are supported");
  }
  return config;
}

// ---- virtualization ---------------------------------------------------------------------------------------------

SchedulerConfig read_scheduler(std::optional<JsonValue> value, double default_time_slice_s) {
  SchedulerConfig config;
  config.time_slice_s = default_time_slice_s;
  if (!value) return config;
  JsonObject scheduler = value->as_object();
  if (auto policy = scheduler.get("policy")) config.policy = policy->as_enum(scheduler_policy_names());
  // NVIDIA vGPU user guide: the time slice is settable from 1 to 30 ms.
  if (auto slice = scheduler.get("time_slice_ms")) config.time_slice_s = slice->as_number(1.0, 30.0) * units::kSecondsPerMs;
  if (auto cost = scheduler.get("context_switch_us")) {
    config.context_switch_s = cost->as_number(0.0, 100000.0) * units::kSecondsPerUs;
    config.context_switch_stated = true;
  }
  scheduler.finish();
  return config;
}

std::string check_vgpu_profile(const JsonValue& value, const GpuSpec& gpu) {
  std::vector<std::string> names;
  for (const VgpuProfile* profile : vgpu_profiles_for(gpu.id)) names.push_back(profile->id);
  if (names.empty()) value.fail("no time-sliced vGPU profile is catalogued for " + gpu.name);
  return value.as_choice(names);
}

std::string check_mig_profile(const JsonValue& value, const GpuSpec& gpu) {
  std::vector<std::string> names;
  for (const MigProfile* profile : mig_profiles_for(gpu.id)) names.push_back(profile->id);
  if (names.empty()) {
    value.fail(gpu.not_modelled.find("MIG") != std::string::npos
                   ? gpu.name + ": vtsim does not model " + gpu.not_modelled
                   : gpu.name + " does not support MIG");
  }
  return value.as_choice(names);
}

VirtualizationConfig read_virtualization(std::optional<JsonValue> value, const GpuSpec& gpu, const HostConfig& host,
                                         const std::string& file) {
  VirtualizationConfig config;
  const HostSpec* server = find_host(host.model);
  const nlohmann::json empty = nlohmann::json::object();
  JsonObject virtualization = value ? value->as_object() : JsonValue(empty, file, "virtualization").as_object();
  if (auto mode = virtualization.get("mode")) config.mode = mode->as_enum(virtualization_mode_names());

  if (auto profile = virtualization.get("vgpu_profile")) {
    if (config.mode != VirtualizationMode::vgpu) profile->fail("only used when virtualization.mode is 'vgpu'");
    config.vgpu_profile = check_vgpu_profile(*profile, gpu);
  } else if (config.mode == VirtualizationMode::vgpu) {
    // Default: the profile that takes the whole framebuffer (one vGPU per GPU), as in the seed study's A100X-40C.
    for (const VgpuProfile* candidate : vgpu_profiles_for(gpu.id)) {
      if (candidate->max_per_gpu == 1) config.vgpu_profile = candidate->id;
    }
    if (config.vgpu_profile.empty()) {
      virtualization.value().fail("mode 'vgpu': no time-sliced vGPU profile is catalogued for " + gpu.name);
    }
  }
  if (auto profile = virtualization.get("mig_profile")) {
    if (config.mode != VirtualizationMode::mig) profile->fail("only used when virtualization.mode is 'mig'");
    config.mig_profile = check_mig_profile(*profile, gpu);
  }

  double default_slice_s = config.scheduler.time_slice_s;
  if (const VgpuProfile* profile = find_vgpu_profile(config.vgpu_profile)) {
    default_slice_s = profile->default_time_slice_s();
  }
  config.scheduler = read_scheduler(virtualization.get("scheduler"), default_slice_s);
  if (auto cores = virtualization.get("vm_cpu_cores")) {
    if (config.mode == VirtualizationMode::bare_metal) {
      cores->fail("bare metal runs no VM: its processes have the host's cores (cluster.host.cpu_cores)");
    }
    config.vm_cpu_cores = static_cast<int>(cores->as_int(1, 4096));
    // vSphere documentation, "Change the Number of Virtual CPUs": a VM cannot have more vCPUs than the host has
    // logical CPUs.
    if (server && config.vm_cpu_cores > server->cpu_threads) {
      cores->fail(std::to_string(config.vm_cpu_cores) + " vCPUs: the " + server->name + " has " +
                  std::to_string(server->cpu_threads) + " logical processors, the most a VM can have");
    }
  }
  if (auto overhead = virtualization.get("vm_cpu_overhead")) {
    if (config.mode == VirtualizationMode::bare_metal) overhead->fail("bare metal runs no VM");
    config.vm_cpu_overhead = overhead->as_number(0.0, 1.0);
  }
  if (auto per_core = virtualization.get("tcp_gbps_per_core")) {
    config.tcp_core_Bps = units::gbps_to_Bps(per_core->as_positive_number(1e4));
  }
  if (auto mixed = virtualization.get("mixed_sizes")) {
    if (config.mode != VirtualizationMode::vgpu) mixed->fail("only used when virtualization.mode is 'vgpu'");
    config.mixed_sizes = mixed->as_bool();
    if (config.mixed_sizes && config.scheduler.policy == SchedulerPolicy::fixed_share) {
      mixed->fail("fixed share is not supported with time-sliced vGPUs of mixed sizes (NVIDIA vGPU user guide)");
    }
  }
  virtualization.finish();
  return config;
}

// ---- jobs -------------------------------------------------------------------------------------------------------

TransformerConfig read_transformer(JsonObject transformer) {
  TransformerConfig config;
  config.layers = static_cast<int>(transformer.require("layers").as_int(1, 100000));
  config.hidden_size = static_cast<int>(transformer.require("hidden_size").as_int(1, 1 << 20));
  config.heads = static_cast<int>(transformer.require("heads").as_int(1, 1 << 16));
  config.sequence_length = static_cast<int>(transformer.require("sequence_length").as_int(1, 1 << 24));
  config.vocab_size = static_cast<int>(transformer.require("vocab_size").as_int(1, 1 << 24));
  config.ffn_size = read_int(transformer, "ffn_size", 0, 1, 1 << 24);
  if (auto attention = transformer.get("attention")) {
    const std::vector<std::string> kinds = {"eager", "fused_softmax", "fused"};
    const std::string kind = attention->as_choice(kinds);
    config.fused_attention = kind == "fused";
    config.fused_softmax = kind == "fused_softmax";
  }
  config.kv_heads = read_int(transformer, "kv_heads", 0, 1, 1 << 16);
  if (auto mlp = transformer.get("mlp")) {
    const std::vector<std::string> kinds = {"gelu", "swiglu"};
    config.swiglu = mlp->as_choice(kinds) == "swiglu";
  }
  if (auto positions = transformer.get("positions")) {
    const std::vector<std::string> kinds = {"learned", "rotary"};
    config.learned_positions = positions->as_choice(kinds) == "learned";
  }
  if (auto tied = transformer.get("tied_embeddings")) config.tied_embeddings = tied->as_bool();
  if (auto dropout = transformer.get("dropout")) config.dropout = dropout->as_bool();
  if (auto bias = transformer.get("bias")) config.bias = bias->as_bool();
  transformer.finish();
  // The generator states its own shape rules as "field: what is wrong"; report them at that field's path.
  if (const std::string problem = transformer_config_problem(config); !problem.empty()) {
    const std::size_t colon = problem.find(": ");
    const std::string field = problem.substr(0, colon);
    transformer.require(field).fail(problem.substr(colon + 2));
  }
  return config;
}

std::vector<int> read_gpu_ids(JsonObject& job, int total_gpus) {
  const std::optional<JsonValue> gpus = job.get("gpus");
  const std::optional<JsonValue> first = job.get("first_gpu");
  if (gpus && gpus->is_array()) {
    if (first) first->fail("'first_gpu' goes with a GPU count, not with a list of GPUs");
    std::vector<int> ids;
    for (const JsonValue& element : gpus->as_array(1)) {
      const int id = static_cast<int>(element.as_int(0, total_gpus - 1));
      if (std::find(ids.begin(), ids.end(), id) != ids.end()) element.fail("GPU " + std::to_string(id) + " listed twice");
      ids.push_back(id);
    }
    return ids;
  }
  const int start = first ? static_cast<int>(first->as_int(0, total_gpus - 1)) : 0;
  int count = total_gpus - start;
  if (gpus) {
    if (!gpus->is_number()) gpus->fail("expected a GPU count or a list of GPU indices, got " + describe_json(gpus->json()));
    count = static_cast<int>(gpus->as_int(1, total_gpus - start));
  }
  std::vector<int> ids(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) ids[static_cast<std::size_t>(i)] = start + i;
  return ids;
}

HorovodConfig read_horovod(JsonObject horovod) {
  HorovodConfig config;
  // Horovod's autotuner explores 0-64 MB fusion and 1-100 ms cycles; allow a wider but finite range.
  if (auto threshold = horovod.get("fusion_threshold_mib")) {
    config.fusion_threshold_bytes = threshold->as_number(0.0, 65536.0) * units::kBytesPerMiB;
  }
  if (auto cycle = horovod.get("cycle_time_ms")) {
    const double cycle_ms = cycle->as_number(0.0, 10000.0);
    // A cycle of a few attoseconds would tick the coordinator forever: 0 means none, else at least a microsecond.
    if (cycle_ms > 0.0 && cycle_ms < 1e-3) {
      cycle->fail("expected 0 (no cycle) or at least 0.001 ms, got " + describe_json(cycle->json()));
    }
    config.cycle_time_s = cycle_ms * units::kSecondsPerMs;
  }
  if (auto algorithm = horovod.get("allreduce")) config.allreduce = algorithm->as_enum(allreduce_algorithm_names());
  horovod.finish();
  return config;
}

DdpConfig read_ddp(JsonObject ddp) {
  DdpConfig config;
  if (auto cap = ddp.get("bucket_cap_mb")) config.bucket_cap_bytes = cap->as_number(0.0, 65536.0) * units::kBytesPerMiB;
  if (auto first = ddp.get("first_bucket_mb")) {
    config.first_bucket_bytes = first->as_number(0.0, 65536.0) * units::kBytesPerMiB;
  }
  ddp.finish();
  return config;
}

/// What a job with `parallelism` may not combine it with, and where its groups must lie: each tensor group inside
/// one host (its NVLink domain), as Megatron-LM places them.
void check_parallel_job(JobConfig& config, const JsonValue& parallelism, const std::optional<JsonValue>& accumulation,
                        const std::optional<JsonValue>& horovod, const std::optional<JsonValue>& data_parallel,
                        const ClusterConfig& cluster) {
  ParallelStrategy& strategy = *config.parallelism;
  if (accumulation) {
    accumulation->fail("a job with parallelism takes micro-batches instead: batch_per_gpu / "
                       "parallelism.micro_batch_size of them per step");
  }
  if (horovod || (data_parallel && data_parallel->as_enum(data_parallel_names()) == DataParallel::horovod)) {
    (horovod ? *horovod : *data_parallel)
        .fail("a job with parallelism reduces its gradients in DDP-style buckets (Megatron-LM, DeepSpeed), not with "
              "Horovod");
  }
  if (config.batch_per_gpu % strategy.micro_batch_size != 0) {
    parallelism.fail("micro_batch_size " + std::to_string(strategy.micro_batch_size) + " must divide the " +
                     std::to_string(config.batch_per_gpu) + " samples each model replica takes per step");
  }
  strategy.micro_batches = config.batch_per_gpu / strategy.micro_batch_size;
  for (const auto& [host, ranks] : ranks_per_host(config, cluster.host.gpus)) {
    if (ranks % strategy.tensor != 0) {
      parallelism.fail("tensor groups stay inside a host: host " + std::to_string(host) + " has " +
                       std::to_string(ranks) + " of the job's GPUs, not a multiple of tensor " +
                       std::to_string(strategy.tensor));
    }
  }
}

std::span<const std::pair<std::string, PipelineSchedule>> schedule_names() {
  static const std::pair<std::string, PipelineSchedule> names[] = {{"gpipe", PipelineSchedule::gpipe},
                                                                   {"1f1b", PipelineSchedule::one_f_one_b},
                                                                   {"interleaved", PipelineSchedule::interleaved}};
  return names;
}

std::span<const std::pair<std::string, Recompute>> recompute_names() {
  static const std::pair<std::string, Recompute> names[] = {
      {"none", Recompute::none}, {"selective", Recompute::selective}, {"full", Recompute::full}};
  return names;
}

/// `parallelism` of a job over `gpus` GPUs; `data` and `micro_batches` are filled in once the batch is known.
ParallelStrategy read_parallelism(JsonObject parallelism, int gpus) {
  ParallelStrategy strategy;
  const std::optional<JsonValue> tensor = parallelism.get("tensor");
  const std::optional<JsonValue> pipeline = parallelism.get("pipeline");
  const std::optional<JsonValue> virtual_stages = parallelism.get("virtual_stages");
  if (tensor) strategy.tensor = static_cast<int>(tensor->as_int(1, gpus));
  if (pipeline) strategy.pipeline = static_cast<int>(pipeline->as_int(1, gpus));
  if (auto zero = parallelism.get("zero_stage")) strategy.zero_stage = static_cast<int>(zero->as_int(0, 3));
  if (auto micro = parallelism.get("micro_batch_size")) {
    strategy.micro_batch_size = static_cast<int>(micro->as_int(1, kMaxCount));
  }
  if (auto schedule = parallelism.get("schedule")) strategy.schedule = schedule->as_enum(schedule_names());
  if (virtual_stages) strategy.virtual_stages = static_cast<int>(virtual_stages->as_int(1, 1024));
  if (auto recompute = parallelism.get("recompute")) strategy.recompute = recompute->as_enum(recompute_names());
  if (auto sequence = parallelism.get("sequence_parallel")) strategy.sequence_parallel = sequence->as_bool();
  if (auto scatter = parallelism.get("scatter_gather")) strategy.scatter_gather = scatter->as_bool();
  if (auto stage_layers = parallelism.get("stage_layers")) {
    for (const JsonValue& blocks : stage_layers->as_array(1)) {
      strategy.stage_layers.push_back(static_cast<int>(blocks.as_int(1, kMaxCount)));
    }
  }
  parallelism.finish();
  if (gpus % (strategy.tensor * strategy.pipeline) != 0) {
    parallelism.value().fail("tensor x pipeline (" + std::to_string(strategy.tensor) + " x " +
                             std::to_string(strategy.pipeline) + ") must divide the job's " + std::to_string(gpus) +
                             " GPUs");
  }
  if (strategy.schedule == PipelineSchedule::interleaved && !virtual_stages) strategy.virtual_stages = 2;
  strategy.data = gpus / (strategy.tensor * strategy.pipeline);
  return strategy;
}

/// `{"trace": PATH, "measured_on": GPU, "step": N}`: reads the trace (PATH relative to `base_dir`) and cuts the
/// iteration it replays (models/traces/traced_iteration.hpp).
TraceWorkloadConfig read_trace_workload(JsonObject workload, const std::string& base_dir) {
  const JsonValue trace = workload.require("trace");
  const std::optional<JsonValue> measured_on = workload.get("measured_on");
  const std::optional<JsonValue> step = workload.get("step");
  workload.finish();
  TraceWorkloadConfig config;
  std::filesystem::path path = trace.as_string();
  if (path.is_relative()) path = (std::filesystem::path(base_dir) / path).lexically_normal();
  if (const std::string problem = not_a_file(path); !problem.empty()) trace.fail(problem);
  // Absolute, so that `vtsim check`'s output (models/scenario/scenario_writer.cpp) loads from any folder.
  config.path = std::filesystem::absolute(path).lexically_normal().string();
  const ProfiledRun run = read_profiled_run(read_input_file(config.path, kMaxTraceBytes), config.path);
  if (!measured_on) {
    workload.value().fail("missing required key 'measured_on': the catalog GPU the trace was taken on (`vtsim "
                          "catalog gpus`)" +
                          (run.device_name.empty() ? "" : "; the trace names '" + run.device_name + "'"));
  }
  config.measured_on = measured_on->as_choice(ids_of(gpu_catalog()));
  std::size_t replayed = run.steps.size() - 1;
  if (step) {
    config.step = static_cast<int>(step->as_int(0, kMaxCount));
    const auto found = std::find_if(run.steps.begin(), run.steps.end(),
                                    [&](const TracedStep& traced) { return traced.number == config.step; });
    if (found == run.steps.end()) {
      step->fail("the trace has no ProfilerStep#" + std::to_string(config.step) + "; its steps are #" +
                 std::to_string(run.steps.front().number) + " to #" + std::to_string(run.steps.back().number));
    }
    replayed = static_cast<std::size_t>(found - run.steps.begin());
  }
  config.step = run.steps[replayed].number;
  config.iteration = std::make_shared<const TracedIteration>(traced_iteration(run, replayed));
  return config;
}

// The optimizer a job trains with when it states none: its workload's (transformers train with Adam,
// models/workload/transformer_workloads.cpp; a catalog workload names its own).
Optimizer default_optimizer(const JobConfig& config) {
  if (config.transformer) return Optimizer::adam;
  return make_workload(config.workload_id)->optimizer;
}

/// One entry of `jobs`: one job, or `copies` identical ones named NAME-1 ... NAME-k.
std::vector<JobConfig> read_job(JsonObject job, std::size_t index, const ClusterConfig& cluster,
                                const VirtualizationConfig& virtualization, const GpuSpec& gpu,
                                const std::string& base_dir) {
  // All keys first, so that a misspelt key is reported as such rather than as a missing one.
  const std::optional<JsonValue> name = job.get("name");
  const std::optional<JsonValue> workload = job.get("workload");
  const std::optional<JsonValue> precision = job.get("precision");
  const std::optional<JsonValue> batch = job.get("batch_per_gpu");
  const std::optional<JsonValue> framework = job.get("framework");
  const std::optional<JsonValue> host_dispatch = job.get("host_dispatch_us");
  const std::optional<JsonValue> execution = job.get("execution");
  const std::optional<JsonValue> optimizer = job.get("optimizer");
  const std::optional<JsonValue> memory_format = job.get("memory_format");
  const std::optional<JsonValue> optimizer_implementation = job.get("optimizer_implementation");
  const std::optional<JsonValue> loading = job.get("data_loading_cpu_ms_per_sample");
  const std::optional<JsonValue> loader = job.get("data_loader");
  const std::optional<JsonValue> loader_rate = job.get("data_loader_images_per_s");
  const std::optional<JsonValue> iterations = job.get("iterations");
  const std::optional<JsonValue> warmup = job.get("warmup_iterations");
  const std::optional<JsonValue> horovod = job.get("horovod");
  const std::optional<JsonValue> data_parallel = job.get("data_parallel");
  const std::optional<JsonValue> ddp = job.get("ddp");
  const std::optional<JsonValue> accumulation = job.get("gradient_accumulation");
  const std::optional<JsonValue> step_time_cv = job.get("step_time_cv");
  const std::optional<JsonValue> vgpu_profile = job.get("vgpu_profile");
  const std::optional<JsonValue> mig_profile = job.get("mig_profile");
  const std::optional<JsonValue> idle = job.get("idle");
  const std::optional<JsonValue> copies = job.get("copies");
  const std::optional<JsonValue> checkpoint = job.get("checkpoint");
  const std::optional<JsonValue> parallelism = job.get("parallelism");
  const std::optional<JsonValue> global_batch = job.get("global_batch");
  const std::optional<JsonValue> nccl = job.get("nccl");
  JobConfig config;
  config.json_path = job.value().path();
  config.idle = idle && idle->as_bool();
  config.gpu_ids = read_gpu_ids(job, cluster.total_gpus());  // takes "gpus" and "first_gpu"
  job.finish();

  config.name = name ? name->as_name() : "job" + std::to_string(index);
  if (config.idle) {
    if (virtualization.mode != VirtualizationMode::vgpu && virtualization.mode != VirtualizationMode::mig) {
      idle->fail("an idle job holds vGPUs or MIG instances: virtualization.mode must be 'vgpu' or 'mig'");
    }
    for (const auto& key : {workload, precision, batch, framework, host_dispatch, execution, optimizer, memory_format,
                            optimizer_implementation, loading, loader, loader_rate, iterations, warmup, horovod,
                            data_parallel, ddp, accumulation, step_time_cv, checkpoint, parallelism, global_batch,
                            nccl}) {
      if (key) key->fail("an idle job runs no work: remove this key or 'idle'");
    }
  } else if (!workload) {
    job.value().fail("missing required key 'workload'");
  }
  if (config.idle) {
    config.workload_id = "none";
  } else if (workload->is_object() && workload->json().contains("trace")) {
    config.trace = read_trace_workload(workload->as_object(), base_dir);
    config.workload_id = "trace";
  } else if (workload->is_object()) {
    JsonObject generated = workload->as_object();
    config.transformer = read_transformer(generated.require("transformer").as_object());
    generated.finish();
    config.workload_id = "transformer";
  } else {
    if (!workload->is_string()) {
      workload->fail("expected a workload id, {\"transformer\": {...}} or {\"trace\": PATH, ...}, got " +
                     describe_json(workload->json()));
    }
    config.workload_id = workload->as_choice(workload_ids());
  }

  if (precision) {
    std::vector<std::string> names;
    for (Precision p : kAllPrecisions) names.emplace_back(to_string(p));
    config.precision = *parse_precision(precision->as_choice(names));
    if (!gpu.peak_flops(config.precision)) {
      precision->fail(std::string(to_string(config.precision)) + " is not supported by " + gpu.name);
    }
  }
  if (!batch && !global_batch && !config.idle) {
    job.value().fail("missing required key 'batch_per_gpu' (or 'global_batch')");
  }
  if (batch && global_batch) global_batch->fail("give either batch_per_gpu or global_batch, not both");
  if (batch) config.batch_per_gpu = static_cast<int>(batch->as_int(1, kMaxBatchPerGpu));
  if (framework) config.framework = framework->as_enum(framework_names());
  if (execution) config.execution = execution->as_enum(execution_names());
  if (optimizer) config.optimizer = optimizer->as_enum(optimizer_names());
  if (memory_format) config.memory_format = memory_format->as_enum(tensor_layout_names());
  if (optimizer_implementation) {
    config.optimizer_implementation = optimizer_implementation->as_enum(optimizer_implementation_names());
    if (config.trace) {
      optimizer_implementation->fail("a traced iteration's optimizer kernels are in the trace: remove this key");
    }
    const Optimizer used = config.optimizer ? *config.optimizer : default_optimizer(config);
    const OptimizerKernelsChoice choice =
        optimizer_kernels_for(*config.optimizer_implementation, config.framework, used);
    if (!choice.refused.empty()) optimizer_implementation->fail(choice.refused);
    if (choice.kernels == OptimizerKernels::bert_adam || choice.kernels == OptimizerKernels::bert_adam_sync) {
      // DeepLearningExamples' BERT scripts run BertAdam only without --fp16, and its clipping reads a norm on the host.
      if (is_mixed_precision(config.precision)) {
        optimizer_implementation->fail(
            "DeepLearningExamples' BERT scripts run BertAdam in fp32 or tf32 only (under "
            "--fp16, Apex AMP and FusedAdam: 'bert_fused_adam')");
      }
      if (config.execution == Execution::cuda_graphs) {
        optimizer_implementation->fail(
            "BertAdam's clipping reads the gradients' norm on the host (.item()), which a "
            "CUDA graph cannot capture: remove 'execution' or this key");
      }
    }
    if (choice.kernels == OptimizerKernels::bert_fused_adam) {
      // DeepLearningExamples' BERT scripts run Apex AMP (O2, fp16) and FusedAdam under --fp16 only, and Apex reads
      // its overflow flag and GradientClipper the gradients' norm on the host.
      if (config.precision != Precision::fp16) {
        optimizer_implementation->fail(
            "DeepLearningExamples' BERT scripts run Apex AMP and FusedAdam under --fp16 only: precision fp16 (in fp32 "
            "or tf32, BertAdam: 'bert_adam')");
      }
      if (config.execution == Execution::cuda_graphs) {
        optimizer_implementation->fail(
            "Apex AMP reads its overflow flag and GradientClipper the gradients' norm on the host (.item()), which a "
            "CUDA graph cannot capture: remove 'execution' or this key");
      }
    }
  }
  if (host_dispatch) {
    if (config.execution == Execution::cuda_graphs) {
      host_dispatch->fail("a job under execution 'cuda_graphs' issues no kernel from the host: remove this key or "
                          "'execution'");
    }
    config.host_dispatch_s = host_dispatch->as_number(0.0, 1e5) * units::kSecondsPerUs;
  }
  if (loader) {
    config.data_loader = loader->as_enum(data_loader_names());
    // DALI's GPU pipeline decodes JPEG images; a sequence or a replayed trace has no images to decode.
    const bool images =
        !config.trace && !config.transformer && make_workload(config.workload_id)->sample_unit == "image";
    if (config.data_loader == DataLoader::gpu && !images) {
      loader->fail("the 'gpu' loader decodes images on the GPU (DALI); this workload's samples are not images");
    }
  }
  if (loader_rate) {
    if (config.data_loader != DataLoader::gpu) loader_rate->fail("only used with data_loader 'gpu'");
    config.data_loader_images_per_s = loader_rate->as_positive_number(1e9);
  } else if (config.data_loader == DataLoader::gpu && !dali_images_per_s(gpu)) {
    loader->fail("no published DALI rate on the " + gpu.name + ": give data_loader_images_per_s");
  }
  if (loading) {
    if (config.data_loader == DataLoader::synthetic) loading->fail("synthetic data is not loaded: remove this key");
    config.data_loading_cpu_s_per_sample = loading->as_number(0.0, 1e5) * units::kSecondsPerMs;
  }
  if (iterations) config.iterations = static_cast<int>(iterations->as_int(1, kMaxIterations));
  if (warmup) config.warmup_iterations = static_cast<int>(warmup->as_int(0, kMaxIterations));
  if (horovod) config.horovod = read_horovod(horovod->as_object());
  if (ddp) config.ddp = read_ddp(ddp->as_object());
  if (nccl) {
    JsonObject settings = nccl->as_object();
    if (auto algorithm = settings.get("algorithm")) config.nccl_algorithm = algorithm->as_enum(nccl_algorithm_names());
    if (auto protocol = settings.get("protocol")) config.nccl_protocol = protocol->as_enum(nccl_protocol_names());
    if (auto channels = settings.get("channels")) {
      config.nccl_channels = static_cast<int>(channels->as_int(1, kNcclMaxChannels));
    }
    if (auto collnet = settings.get("collnet")) {
      config.nccl_collnet = collnet->as_bool();
      if (config.nccl_collnet && cluster.transport != Transport::infiniband) {
        const std::string transport(to_string(cluster.transport));
        collnet->fail("CollNet reduces in the switches with SHARP, which NVIDIA's Quantum InfiniBand switches run: it "
                      "needs cluster.transport 'infiniband', not '" + transport + "'");
      }
    }
    settings.finish();
  }
  if (accumulation) config.gradient_accumulation = static_cast<int>(accumulation->as_int(1, 65536));
  if (step_time_cv) config.step_time_cv = step_time_cv->as_number(0.0, 1.0);
  if (checkpoint) config.checkpoint = read_checkpoint(checkpoint->as_object());
  const int gpus = static_cast<int>(config.gpu_ids.size());
  if (parallelism) config.parallelism = read_parallelism(parallelism->as_object(), gpus);
  if (global_batch) {
    // Samples per optimizer step: per model replica (data-parallel rank) and micro-batch, or per GPU.
    const std::int64_t samples = global_batch->as_int(1, kMaxCount);
    const std::int64_t shares =
        config.parallelism ? config.parallelism->data : std::int64_t{gpus} * config.gradient_accumulation;
    if (samples % shares != 0) {
      global_batch->fail("expected a multiple of " + std::to_string(shares) + " (" +
                         (config.parallelism ? "the data-parallel replicas" : "the GPUs x gradient_accumulation") +
                         "), got " + std::to_string(samples));
    }
    if (samples / shares > kMaxBatchPerGpu) {
      global_batch->fail("gives " + std::to_string(samples / shares) + " samples per " +
                         (config.parallelism ? "replica" : "GPU") + ", above the " + std::to_string(kMaxBatchPerGpu) +
                         " batch_per_gpu allows");
    }
    config.batch_per_gpu = static_cast<int>(samples / shares);
  }
  if (config.parallelism) check_parallel_job(config, *parallelism, accumulation, horovod, data_parallel, cluster);
  if (config.trace) {
    // A traced iteration is one data-parallel optimizer step as the program ran it.
    if (parallelism) parallelism->fail("a traced workload is replayed with data parallelism only");
    // Its gaps between kernels are the host's time as measured (models/resolve/job_compute_plan.cpp).
    if (optimizer) optimizer->fail("a traced iteration's optimizer kernels are in the trace: remove this key");
    for (const auto& key : {host_dispatch, execution}) {
      if (key) key->fail("a traced iteration keeps the host time it was measured with: remove this key");
    }
    if (memory_format) memory_format->fail("a traced iteration's kernels are the ones it ran: remove this key");
    if (accumulation && config.gradient_accumulation != 1) {
      accumulation->fail("a traced iteration is one optimizer step: trace the accumulated steps instead");
    }
    if (!find_gpu(config.trace->measured_on)->peak_flops(config.precision)) {
      workload->fail("the trace's GPU, " + config.trace->measured_on + ", has no " +
                     std::string(to_string(config.precision)) + " path: state the precision the trace ran in");
    }
  }
  // DDP is PyTorch's; other frameworks' jobs, or jobs that give Horovod settings, reduce with Horovod.
  config.data_parallel = config.framework == Framework::pytorch && !horovod ? DataParallel::pytorch_ddp
                                                                            : DataParallel::horovod;
  if (ddp && !data_parallel) config.data_parallel = DataParallel::pytorch_ddp;
  if (data_parallel) config.data_parallel = data_parallel->as_enum(data_parallel_names());
  if (horovod && config.data_parallel != DataParallel::horovod) {
    horovod->fail("Horovod settings for a job whose data_parallel is 'pytorch_ddp'");
  }
  if (config.parallelism) config.data_parallel = DataParallel::pytorch_ddp;  // check_parallel_job: never horovod
  if (ddp && config.data_parallel != DataParallel::pytorch_ddp) {
    ddp->fail("DDP settings for a job whose data_parallel is 'horovod'");
  }
  if (nccl && config.horovod.allreduce == AllreduceAlgorithm::hierarchical) {
    nccl->fail("Horovod's hierarchical allreduce is simulated without NCCL's choice (Simple's costs, "
               "docs/nccl-model.md): remove this key or use horovod.allreduce 'ring'");
  }

  config.vgpu_profile = virtualization.vgpu_profile;
  if (vgpu_profile) {
    if (virtualization.mode != VirtualizationMode::vgpu) vgpu_profile->fail("only used when virtualization.mode is 'vgpu'");
    config.vgpu_profile = check_vgpu_profile(*vgpu_profile, gpu);
  }
  config.mig_profile = virtualization.mig_profile;
  if (mig_profile) {
    if (virtualization.mode != VirtualizationMode::mig) mig_profile->fail("only used when virtualization.mode is 'mig'");
    config.mig_profile = check_mig_profile(*mig_profile, gpu);
  }
  if (virtualization.mode == VirtualizationMode::mig && config.mig_profile.empty()) {
    job.value().fail("virtualization.mode is 'mig' but neither virtualization.mig_profile nor this job's "
                     "mig_profile is set");
  }
  const int count = copies ? static_cast<int>(copies->as_int(1, kMaxCopies)) : 1;
  if (count == 1) return {config};
  std::vector<JobConfig> jobs(static_cast<std::size_t>(count), config);
  for (int k = 0; k < count; ++k) jobs[static_cast<std::size_t>(k)].name = config.name + "-" + std::to_string(k + 1);
  return jobs;
}

/// The raw value at scheduler key `key`, or null.
const nlohmann::json* scheduler_key(const nlohmann::json& json, const char* key) {
  const auto virtualization = json.find("virtualization");
  if (virtualization == json.end() || !virtualization->is_object()) return nullptr;
  const auto scheduler = virtualization->find("scheduler");
  if (scheduler == virtualization->end() || !scheduler->is_object()) return nullptr;
  const auto value = scheduler->find(key);
  return value == scheduler->end() || value->is_null() ? nullptr : &*value;
}

/// Once the jobs are known: the default time slice follows the profiles actually used (1 ms if any allows more than 8
/// per GPU), and a context switch the scenario decides (stated, or the default without a calibration profile) must fit
/// in it (check_context_switch); a profile's measurement is checked where the profile is applied
/// (scenario_calibration()).
void check_scheduler_timing(Scenario& scenario, const nlohmann::json& json) {
  if (scenario.virtualization.mode != VirtualizationMode::vgpu) return;
  SchedulerConfig& scheduler = scenario.virtualization.scheduler;
  if (scheduler_key(json, "time_slice_ms") == nullptr) {
    for (const JobConfig& job : scenario.jobs) {
      scheduler.time_slice_s = std::min(scheduler.time_slice_s, find_vgpu_profile(job.vgpu_profile)->default_time_slice_s());
    }
  }
  if (scheduler.context_switch_stated || scenario.calibration_profile.empty()) {
    check_context_switch(scenario, CalibratedParameters{});
  }
}

}  // namespace

Scenario load_scenario(const nlohmann::json& json, const std::string& file, const std::string& base_dir) {
  // Take every top-level key first and reject unknown ones before anything is parsed, so that a misspelt section
  // ("clustr") is reported as such, not as a confusing consequence of the defaults that replaced it.
  JsonObject root = JsonValue(json, file, "").as_object();
  const std::optional<JsonValue> name = root.get("name");
  const std::optional<JsonValue> description = root.get("description");
  const std::optional<JsonValue> cluster = root.get("cluster");
  const std::optional<JsonValue> virtualization = root.get("virtualization");
  const std::optional<JsonValue> jobs = root.get("jobs");
  const std::optional<JsonValue> profile = root.get("calibration_profile");
  const std::optional<JsonValue> allow_mismatch = root.get("calibration_allow_mismatch");
  const std::optional<JsonValue> simulation = root.get("simulation");
  const std::optional<JsonValue> operations = root.get("operations");
  const std::optional<JsonValue> events = root.get("events");
  root.finish();

  Scenario scenario;
  scenario.file = file;
  // A name from the file name cannot be refused with a JSON path: its control characters are escaped instead.
  scenario.name = name ? name->as_name() : printable(std::filesystem::path(file).stem().string());
  if (description) {
    if (!description->is_string()) description->fail("expected a string, got " + describe_json(description->json()));
    scenario.description = description->json().get<std::string>();
  }
  const nlohmann::json empty = nlohmann::json::object();
  scenario.cluster = read_cluster(cluster ? cluster->as_object() : JsonValue(empty, file, "cluster").as_object());
  const GpuSpec& gpu = *find_gpu(scenario.cluster.host.gpu_model);
  if (profile) {
    std::filesystem::path path = profile->as_string();
    if (path.is_relative()) path = (std::filesystem::path(base_dir) / path).lexically_normal();
    if (const std::string problem = not_a_file(path); !problem.empty()) profile->fail(problem);
    scenario.calibration_profile = path.string();
    if (allow_mismatch) scenario.calibration_allow_mismatch = allow_mismatch->as_bool();
  } else if (allow_mismatch) {
    allow_mismatch->fail("only with a calibration_profile");
  }
  scenario.virtualization = read_virtualization(virtualization, gpu, scenario.cluster.host, file);
  if (scenario.virtualization.tcp_core_Bps && scenario.cluster.transport != Transport::tcp) {
    throw InputError(file + ": virtualization.tcp_gbps_per_core: only used when cluster.transport is 'tcp'");
  }

  if (!jobs) root.value().fail("missing required key 'jobs'");
  std::set<std::string> job_names;
  const std::vector<JsonValue> entries = jobs->as_array(1);
  for (std::size_t index = 0; index < entries.size(); ++index) {
    for (JobConfig& job : read_job(entries[index].as_object(), index, scenario.cluster, scenario.virtualization, gpu,
                                       base_dir)) {
      if (!job_names.insert(job.name).second) entries[index].fail("job name '" + job.name + "' is used twice");
      scenario.jobs.push_back(std::move(job));
    }
  }
  if (std::all_of(scenario.jobs.begin(), scenario.jobs.end(), [](const JobConfig& job) { return job.idle; })) {
    jobs->fail("every job is idle: nothing to simulate");
  }


  if (simulation) {
    JsonObject options = simulation->as_object();
    if (auto fidelity = options.get("fidelity")) scenario.simulation.fidelity = fidelity->as_enum(fidelity_names());
    if (auto seed = options.get("seed")) scenario.simulation.seed = static_cast<std::uint64_t>(seed->as_int(0));
    if (auto seeds = options.get("seeds")) scenario.simulation.seeds = static_cast<int>(seeds->as_int(1, kMaxSeeds));
    if (auto variability = options.get("variability")) scenario.simulation.variability = variability->as_bool();
    if (auto spread = options.get("gpu_speed_cv")) scenario.simulation.gpu_speed_cv = spread->as_number(0.0, 1.0);
    if (auto reduce = options.get("reduce_ranks")) scenario.simulation.reduce_ranks = reduce->as_bool();
    if (auto reduce = options.get("reduce_flows")) scenario.simulation.reduce_flows = reduce->as_bool();
    if (auto stalls = options.get("stalls")) {
      JsonObject stall = stalls->as_object();
      scenario.simulation.stalls.probability = stall.require("per_iteration_probability").as_number(0.0, 1.0);
      scenario.simulation.stalls.duration_s = stall.require("duration_ms").as_number(0.0, 1e6) * units::kSecondsPerMs;
      stall.finish();
    }
    options.finish();
  }

  scenario.operations = read_operations(operations);
  if (events) scenario.events = read_events(*events, scenario);

  check_scheduler_timing(scenario, json);
  check_gpu_sharing(scenario);
  check_transport_reach(scenario);
  return scenario;
}

Scenario load_scenario_file(const std::string& file, std::span<const std::string> overrides) {
  nlohmann::json json = read_json_file(file);
  for (const std::string& assignment : overrides) apply_override(json, assignment);
  const std::filesystem::path base = std::filesystem::path(file).parent_path();
  return load_scenario(json, file, base.empty() ? "." : base.string());
}

}  // namespace vtsim
