#include "models/scenario/scenario_loader.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "models/resolve/job_compute_plan.hpp"
#include "models/core/error.hpp"
#include "models/scenario/overrides.hpp"
#include "models/scenario/scenario_writer.hpp"

namespace vtsim {
namespace {

const nlohmann::json kMinimal = {{"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 32}}}}};

Scenario load(const nlohmann::json& document) { return load_scenario(document, "s.json", "."); }

TEST(ScenarioLoader, MinimalScenarioGetsTheDocumentedDefaults) {
  const Scenario s = load(kMinimal);
  EXPECT_EQ(s.name, "s");  // the file name without extension
  EXPECT_EQ(s.cluster.racks, 1);
  EXPECT_EQ(s.cluster.hosts_per_rack, 1);
  EXPECT_EQ(s.cluster.host.gpus, 1);
  EXPECT_EQ(s.cluster.host.gpu_model, "a100-40gb-sxm4");
  EXPECT_TRUE(s.cluster.host.nvlink_present);  // A100 SXM4 has NVLink3
  EXPECT_TRUE(s.cluster.host.nvlink_enabled);
  EXPECT_EQ(s.cluster.host.pcie_gen, 4);       // A100 is PCIe Gen4
  EXPECT_EQ(s.cluster.transport, Transport::roce_v2);
  EXPECT_DOUBLE_EQ(s.cluster.fabric.oversubscription, 1.0);
  EXPECT_EQ(s.virtualization.mode, VirtualizationMode::bare_metal);
  ASSERT_EQ(s.jobs.size(), 1u);
  const JobConfig& job = s.jobs[0];
  EXPECT_EQ(job.name, "job0");
  EXPECT_EQ(job.precision, Precision::fp16);
  EXPECT_EQ(job.gpu_ids, std::vector<int>{0});
  EXPECT_DOUBLE_EQ(job.horovod.fusion_threshold_bytes, 64.0 * 1024 * 1024);  // Horovod's 64 MiB
  EXPECT_DOUBLE_EQ(job.horovod.cycle_time_s, 0.005);                          // Horovod's 5 ms
  EXPECT_EQ(job.horovod.allreduce, AllreduceAlgorithm::ring);
  EXPECT_EQ(s.simulation.fidelity, Fidelity::flow);
  EXPECT_EQ(s.simulation.seed, 1u);
}

// A scenario built by hand starts from what the loader makes of a file that gives nothing but its job (whose defaults
// MinimalScenarioGetsTheDocumentedDefaults holds to scenarios/README.md): the initialisers of the cluster,
// virtualization and simulation settings, the ones derived from the GPU model included, compared as the writer spells
// every field.
TEST(ScenarioLoader, ADefaultConstructedScenarioHasTheDocumentedDefaults) {
  const nlohmann::json loaded = scenario_to_json(load(kMinimal));
  const nlohmann::json built = scenario_to_json(Scenario{});
  for (const char* part : {"cluster", "virtualization", "simulation"}) {
    EXPECT_EQ(built.at(part), loaded.at(part)) << part;
  }
}

TEST(ScenarioLoader, UnitsInKeysConvertToSi) {
  nlohmann::json document = kMinimal;
  set_json_path(document, "jobs[0].horovod.fusion_threshold_mib", 128);
  set_json_path(document, "jobs[0].horovod.cycle_time_ms", 1);
  set_json_path(document, "cluster.fabric.switch_latency_us", 0.5);
  const Scenario s = load(document);
  EXPECT_DOUBLE_EQ(s.jobs[0].horovod.fusion_threshold_bytes, 128.0 * 1048576.0);
  EXPECT_DOUBLE_EQ(s.jobs[0].horovod.cycle_time_s, 1e-3);
  EXPECT_DOUBLE_EQ(s.cluster.fabric.switch_latency_s, 0.5e-6);
}

TEST(ScenarioLoader, VgpuDefaultsToTheFullFramebufferProfileAndItsTimeSlice) {
  nlohmann::json document = kMinimal;
  set_json_path(document, "virtualization.mode", "vgpu");
  const Scenario full = load(document);
  EXPECT_EQ(full.virtualization.vgpu_profile, "A100X-40C");  // one vGPU per A100 40GB
  EXPECT_DOUBLE_EQ(full.virtualization.scheduler.time_slice_s, 2e-3);  // <= 8 per GPU: 2 ms (vGPU user guide)
  set_json_path(document, "virtualization.vgpu_profile", "A100X-4C");
  EXPECT_DOUBLE_EQ(load(document).virtualization.scheduler.time_slice_s, 1e-3);  // 10 per GPU: 1 ms
}

TEST(ScenarioLoader, JobGpusAcceptCountWithOffsetOrExplicitList) {
  nlohmann::json document = kMinimal;
  set_json_path(document, "cluster.hosts_per_rack", 2);
  set_json_path(document, "cluster.host.gpus", 4);
  set_json_path(document, "jobs[0].gpus", 3);
  set_json_path(document, "jobs[0].first_gpu", 2);
  EXPECT_EQ(load(document).jobs[0].gpu_ids, (std::vector<int>{2, 3, 4}));
  document["jobs"][0].erase("first_gpu");
  set_json_path(document, "jobs[0].gpus", nlohmann::json::array({7, 0}));
  EXPECT_EQ(load(document).jobs[0].gpu_ids, (std::vector<int>{7, 0}));
  document["jobs"][0].erase("gpus");
  EXPECT_EQ(load(document).jobs[0].gpu_ids.size(), 8u);  // default: every GPU of the cluster
}

TEST(ScenarioLoader, TransformerWorkloadIsGeneratedFromItsShape) {
  nlohmann::json document = kMinimal;
  set_json_path(document, "jobs[0].workload",
                {{"transformer",
                  {{"layers", 12}, {"hidden_size", 768}, {"heads", 12}, {"sequence_length", 1024}, {"vocab_size", 50257}}}});
  const Scenario s = load(document);
  ASSERT_TRUE(s.jobs[0].transformer.has_value());
  EXPECT_EQ(s.jobs[0].workload_id, "transformer");
  EXPECT_EQ(s.jobs[0].transformer->hidden_size, 768);
}

TEST(ScenarioLoader, LlamaStyleTransformerKeysLoadAndWriteBack) {
  // Grouped-query attention, SwiGLU, rotary positions, an untied head, no dropout, no biases, and an uneven pipeline
  // split.
  nlohmann::json document = kMinimal;
  set_json_path(document, "jobs[0].workload",
                {{"transformer",
                  {{"layers", 6}, {"hidden_size", 512}, {"heads", 8}, {"kv_heads", 2}, {"ffn_size", 1376},
                   {"mlp", "swiglu"}, {"positions", "rotary"}, {"tied_embeddings", false}, {"dropout", false},
                   {"bias", false}, {"sequence_length", 256}, {"vocab_size", 32000}}}});
  set_json_path(document, "cluster.host.gpus", 4);
  set_json_path(document, "jobs[0].parallelism", {{"pipeline", 4}, {"stage_layers", {1, 2, 2, 1}}});
  set_json_path(document, "jobs[0].batch_per_gpu", 4);
  const Scenario s = load(document);
  const TransformerConfig& t = *s.jobs[0].transformer;
  EXPECT_EQ(t.kv_heads, 2);
  EXPECT_TRUE(t.swiglu);
  EXPECT_FALSE(t.learned_positions);
  EXPECT_FALSE(t.tied_embeddings);
  EXPECT_FALSE(t.dropout);
  EXPECT_FALSE(t.bias);
  EXPECT_EQ(s.jobs[0].parallelism->stage_layers, (std::vector<int>{1, 2, 2, 1}));
  const nlohmann::json written = scenario_to_json(s);
  EXPECT_EQ(scenario_to_json(load(written)), written);
  EXPECT_EQ(written["jobs"][0]["workload"]["transformer"]["mlp"], "swiglu");
  EXPECT_EQ(written["jobs"][0]["workload"]["transformer"]["bias"], false);
  set_json_path(document, "jobs[0].workload.transformer.mlp", "relu");
  EXPECT_THROW(load(document), InputError);
  set_json_path(document, "jobs[0].workload.transformer.mlp", "swiglu");
  set_json_path(document, "jobs[0].workload.transformer.kv_heads", 3);
  try {
    load(document);
    ADD_FAILURE() << "3 key-value heads for 8 query heads must be refused";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("jobs[0].workload.transformer.kv_heads: expected a divisor of heads (8)"),
              std::string::npos)
        << error.what();
  }
}

TEST(ScenarioLoader, AttentionKernelsLoadAndWriteBack) {
  // eager (the default), Megatron-LM's fused scale-mask-softmax, FlashAttention; anything else is refused.
  nlohmann::json document = kMinimal;
  set_json_path(document, "jobs[0].workload",
                {{"transformer",
                  {{"layers", 2}, {"hidden_size", 256}, {"heads", 4}, {"sequence_length", 128}, {"vocab_size", 1000},
                   {"attention", "fused_softmax"}}}});
  Scenario s = load(document);
  EXPECT_TRUE(s.jobs[0].transformer->fused_softmax);
  EXPECT_FALSE(s.jobs[0].transformer->fused_attention);
  nlohmann::json written = scenario_to_json(s);
  EXPECT_EQ(written["jobs"][0]["workload"]["transformer"]["attention"], "fused_softmax");
  EXPECT_EQ(scenario_to_json(load(written)), written);
  set_json_path(document, "jobs[0].workload.transformer.attention", "fused");
  s = load(document);
  EXPECT_TRUE(s.jobs[0].transformer->fused_attention);
  EXPECT_FALSE(s.jobs[0].transformer->fused_softmax);
  set_json_path(document, "jobs[0].workload.transformer.attention", "eager");
  s = load(document);
  EXPECT_FALSE(s.jobs[0].transformer->fused_attention || s.jobs[0].transformer->fused_softmax);
  EXPECT_FALSE(scenario_to_json(s)["jobs"][0]["workload"]["transformer"].contains("attention"));
  set_json_path(document, "jobs[0].workload.transformer.attention", "flash");
  EXPECT_THROW(load(document), InputError);
}

TEST(ScenarioWriter, ResolvedScenarioLoadsBackIdentically) {
  nlohmann::json document = kMinimal;
  set_json_path(document, "virtualization.mode", "mig");
  set_json_path(document, "virtualization.mig_profile", "3g.20gb");
  set_json_path(document, "cluster.host.gpus", 4);
  document["jobs"].push_back({{"name", "b"}, {"workload", "vgg-16"}, {"batch_per_gpu", 8}, {"gpus", 2}});
  const nlohmann::json written = scenario_to_json(load(document));
  EXPECT_EQ(scenario_to_json(load(written)), written);
  EXPECT_EQ(written["jobs"][1]["mig_profile"], "3g.20gb");
  EXPECT_EQ(written["cluster"]["host"]["nic_model"], "connectx-5-100gbe");
}

TEST(ScenarioWriter, OperationsAndTheirStatedDefaultsLoadBackIdentically) {
  const nlohmann::json document = {
      {"cluster", {{"hosts_per_rack", 2}, {"host", {{"gpus", 2}, {"gpu_model", "t4"}}}, {"transport", "tcp"}}},
      {"virtualization", {{"mode", "vgpu"}, {"vm_cpu_overhead", 0.05}, {"tcp_gbps_per_core", 20.0}}},
      {"jobs", {{{"name", "a"}, {"workload", "resnet-50"}, {"batch_per_gpu", 32}, {"gpus", {0, 2}},
                 {"checkpoint", {{"interval_iterations", 5}, {"size_gb", 2.5}, {"storage_bandwidth_gbps", 16.0}}}},
                {{"name", "b"}, {"workload", "resnet-50"}, {"batch_per_gpu", 32}, {"gpus", {1, 3}}}}},
      {"operations", {{"vm_memory_gib", 16.0}, {"vm_boot_s", 45.0}, {"vmotion_vmknics", 2}}},
      {"events", {{{"type", "vmotion"}, {"host", 1}, {"job", "b"}, {"at_s", 2.5}},
                  {{"type", "host_failure"}, {"host", 0}, {"at_iteration", 4}}}}};
  const Scenario loaded = load(document);
  const nlohmann::json written = scenario_to_json(loaded);
  EXPECT_EQ(scenario_to_json(load(written)), written);
  EXPECT_DOUBLE_EQ(written["virtualization"]["tcp_gbps_per_core"].get<double>(), 20.0);
  EXPECT_DOUBLE_EQ(written["virtualization"]["vm_cpu_overhead"].get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(written["jobs"][0]["checkpoint"]["size_gb"].get<double>(), 2.5);
  EXPECT_EQ(written["events"][0]["job"], "b");
  EXPECT_DOUBLE_EQ(written["events"][0]["at_s"].get<double>(), 2.5);
  EXPECT_EQ(written["events"][1]["at_iteration"], 4);
  // A default left in place stays a default (and is reported as uncalibrated): it is not written.
  EXPECT_FALSE(written["operations"].contains("job_restart_s"));
  EXPECT_FALSE(load(written).operations.job_restart_stated);
  EXPECT_TRUE(load(written).operations.vm_boot_stated);
  EXPECT_EQ(written["operations"]["vmotion_vmknics"], 2);
  EXPECT_FALSE(scenario_to_json(load(kMinimal))["operations"].contains("vmotion_vmknics"));  // 7.0 U2 on: none
}

TEST(ScenarioLoader, AHostModelSetsItsGpusNicsAndCoresAndRoundTrips) {
  // DGX A100 datasheet: 8x A100 80GB (640GB model), 8 compute ConnectX-6 HDR NICs, 2x EPYC 7742 = 128 cores.
  nlohmann::json document = kMinimal;
  set_json_path(document, "cluster.host.model", "dgx-a100");
  const Scenario s = load(document);
  EXPECT_EQ(s.cluster.host.gpus, 8);
  EXPECT_EQ(s.cluster.host.gpu_model, "a100-80gb-sxm4");
  EXPECT_EQ(s.cluster.host.nics, 8);
  EXPECT_EQ(s.cluster.host.nic_model, "connectx-6-vpi-hdr");
  EXPECT_EQ(s.cluster.host.cpu_cores, 128);
  const nlohmann::json written = scenario_to_json(s);
  EXPECT_EQ(written["cluster"]["host"]["model"], "dgx-a100");
  EXPECT_EQ(scenario_to_json(load(written)), written);
  // What the server offers may be chosen: the 320GB model's 40 GB GPUs, fewer of its NICs, cores less its SMT.
  set_json_path(document, "cluster.host.gpu_model", "a100-40gb-sxm4");
  set_json_path(document, "cluster.host.nics", 4);
  set_json_path(document, "cluster.host.cpu_cores", 256);
  const Scenario chosen = load(document);
  EXPECT_EQ(chosen.cluster.host.gpu_model, "a100-40gb-sxm4");
  EXPECT_EQ(chosen.cluster.host.nics, 4);
  EXPECT_EQ(chosen.cluster.host.cpu_cores, 256);
  // A generic host states no cores; bare metal then writes no VM size.
  EXPECT_FALSE(load(kMinimal).cluster.host.cpu_cores.has_value());
  EXPECT_FALSE(scenario_to_json(load(kMinimal))["virtualization"].contains("vm_cpu_cores"));
}

TEST(Scenario, BareMetalJobsShareTheHostsCoresByRanksAndAVmHasItsVcpus) {
  // One 8-GPU host of 128 cores; job a has 2 GPUs, job b 6: 128 x 2/8 = 32 and 128 x 6/8 = 96 cores.
  nlohmann::json document = {{"cluster", {{"host", {{"model", "dgx-a100"}}}}},
                         {"jobs", {{{"name", "a"}, {"workload", "resnet-50"}, {"batch_per_gpu", 32}, {"gpus", 2}},
                                   {{"name", "b"}, {"workload", "resnet-50"}, {"batch_per_gpu", 32},
                                    {"gpus", 6}, {"first_gpu", 2}}}}};
  Scenario s = load(document);
  EXPECT_EQ(job_cpu_cores(s, s.jobs[0], 0).cores, 32);
  EXPECT_EQ(job_cpu_cores(s, s.jobs[1], 0).cores, 96);
  EXPECT_FALSE(job_cpu_cores(s, s.jobs[0], 0).uncalibrated);
  // In VMs each job has its VM's vCPUs, whatever the host's.
  set_json_path(document, "virtualization.mode", "passthrough");
  set_json_path(document, "virtualization.vm_cpu_cores", 16);
  s = load(document);
  EXPECT_EQ(job_cpu_cores(s, s.jobs[0], 0).cores, 16);
  EXPECT_EQ(job_cpu_cores(s, s.jobs[1], 0).cores, 16);
  // A generic bare-metal host has the stated default, and says it is one.
  const Scenario generic = load(kMinimal);
  const JobCpuCores cores = job_cpu_cores(generic, generic.jobs[0], 0);
  EXPECT_EQ(cores.cores, kGenericHostCpuCores);
  EXPECT_TRUE(cores.uncalibrated);
}

TEST(Scenario, AServerSoldWithoutAComputeNicTakesTheNicsTheScenarioAdds) {
  // The Dell R760 of Dell's MLPerf v4.0 file has two L40S and a 1 GbE port only: no compute NIC of its own.
  nlohmann::json document = {{"cluster", {{"host", {{"model", "dell-r760-l40s"}}}}},
                             {"jobs", {{{"name", "a"}, {"workload", "resnet-50"}, {"batch_per_gpu", 32}}}}};
  const Scenario alone = load(document);
  EXPECT_EQ(alone.cluster.host.gpus, 2);
  EXPECT_EQ(alone.cluster.host.nics, 0);
  set_json_path(document, "cluster.host.nics", 2);
  set_json_path(document, "cluster.host.nic_model", "connectx-6-vpi-hdr");
  const Scenario added = load(document);
  EXPECT_EQ(added.cluster.host.nics, 2);
  EXPECT_EQ(added.cluster.host.nic_model, "connectx-6-vpi-hdr");
}

TEST(Scenario, RanksPerHostCountsAJobsGpusOnEachHost) {
  JobConfig job;
  job.gpu_ids = {0, 1, 5, 11};  // 4 GPUs per host: hosts 0, 0, 1, 2
  EXPECT_EQ(ranks_per_host(job, 4), (std::map<int, int>{{0, 2}, {1, 1}, {2, 1}}));
}

TEST(Scenario, SamplesPerStepIsEveryReplicasBatch) {
  JobConfig job;
  job.gpu_ids = {0, 1, 2, 3, 4, 5, 6, 7};
  job.batch_per_gpu = 32;
  job.gradient_accumulation = 2;
  EXPECT_EQ(samples_per_step(job), 8 * 32 * 2);  // every GPU's batch, twice per step
  ParallelStrategy strategy;
  strategy.tensor = 2;
  strategy.data = 4;
  job.parallelism = strategy;
  job.batch_per_gpu = 16;
  EXPECT_EQ(samples_per_step(job), 4 * 16);  // each of the 4 model replicas takes its batch once
}

TEST(ScenarioLoader, EveryShippedScenarioLoadsAndRoundTrips) {
  const std::filesystem::path folder = std::filesystem::path(VTSIM_SOURCE_DIR) / "scenarios";
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().string());
    const Scenario s = load_scenario_file(entry.path().string());
    const nlohmann::json written = scenario_to_json(s);
    EXPECT_EQ(scenario_to_json(load_scenario(written, entry.path().string(), folder.string())), written);
    ++count;
  }
  EXPECT_GE(count, 4);
}

TEST(ScenarioLoader, AContextSwitchIsStatedOnlyWhereTheScenarioGivesItAndRoundTripsSo) {
  nlohmann::json document = kMinimal;
  set_json_path(document, "virtualization.mode", "vgpu");
  const Scenario unstated = load(document);
  EXPECT_FALSE(unstated.virtualization.scheduler.context_switch_stated);
  EXPECT_DOUBLE_EQ(unstated.virtualization.scheduler.context_switch_s, 100e-6);  // the documented default
  // Written back and loaded again, the default stays a default (not the scenario's).
  EXPECT_FALSE(scenario_to_json(unstated)["virtualization"]["scheduler"].contains("context_switch_us"));
  EXPECT_FALSE(load(scenario_to_json(unstated)).virtualization.scheduler.context_switch_stated);
  set_json_path(document, "virtualization.scheduler.context_switch_us", 40);
  const Scenario stated = load(document);
  EXPECT_TRUE(stated.virtualization.scheduler.context_switch_stated);
  const Scenario again = load(scenario_to_json(stated));
  EXPECT_TRUE(again.virtualization.scheduler.context_switch_stated);
  EXPECT_DOUBLE_EQ(again.virtualization.scheduler.context_switch_s, 40e-6);
}

TEST(ScenarioLoader, ASwitchLatencyIsStatedOnlyWhereTheScenarioGivesItAndRoundTripsSo) {
  nlohmann::json document = kMinimal;
  const Scenario unstated = load(document);
  EXPECT_FALSE(unstated.cluster.fabric.switch_latency_stated);
  EXPECT_DOUBLE_EQ(unstated.cluster.fabric.switch_latency_s, 300e-9);  // the documented default
  EXPECT_FALSE(scenario_to_json(unstated)["cluster"]["fabric"].contains("switch_latency_us"));
  EXPECT_FALSE(load(scenario_to_json(unstated)).cluster.fabric.switch_latency_stated);
  set_json_path(document, "cluster.fabric.switch_latency_us", 0.45);
  const Scenario again = load(scenario_to_json(load(document)));
  EXPECT_TRUE(again.cluster.fabric.switch_latency_stated);
  EXPECT_DOUBLE_EQ(again.cluster.fabric.switch_latency_s, 0.45e-6);
}

TEST(ScenarioLoader, AnUplinkIsStatedOnlyWhereTheScenarioSetsItsRateAndRoundTripsSo) {
  nlohmann::json document = kMinimal;
  set_json_path(document, "cluster.racks", 2);
  set_json_path(document, "cluster.hosts_per_rack", 4);
  const Scenario defaulted = load(document);
  // The NIC's line rate (ConnectX-5 100 GbE, the default NIC), 4 spines for 1:1; not the scenario's.
  EXPECT_FALSE(defaulted.cluster.fabric.uplink_stated);
  EXPECT_DOUBLE_EQ(defaulted.cluster.fabric.uplink_bandwidth_Bps, 100e9 / 8);
  EXPECT_EQ(defaulted.cluster.fabric.spines, 4);
  EXPECT_FALSE(scenario_to_json(defaulted)["cluster"]["fabric"].contains("uplink_gbps"));
  const Scenario again = load(scenario_to_json(defaulted));
  EXPECT_FALSE(again.cluster.fabric.uplink_stated);
  EXPECT_DOUBLE_EQ(again.cluster.fabric.uplink_bandwidth_Bps, 100e9 / 8);
  EXPECT_EQ(again.cluster.fabric.spines, 4);
  // Oversubscription with spines sets the rate: 4 x 100 Gb/s / (2:1 x 2 spines) = 100 Gb/s, the scenario's.
  set_json_path(document, "cluster.fabric.oversubscription", 2.0);
  set_json_path(document, "cluster.fabric.spines", 2);
  const Scenario derived = load(document);
  EXPECT_TRUE(derived.cluster.fabric.uplink_stated);
  EXPECT_DOUBLE_EQ(derived.cluster.fabric.uplink_bandwidth_Bps, 100e9 / 8);
  EXPECT_TRUE(load(scenario_to_json(derived)).cluster.fabric.uplink_stated);
}

TEST(ScenarioLoader, ExecutionDefaultsToEagerAndCudaGraphsRoundTrips) {
  EXPECT_EQ(load(kMinimal).jobs[0].execution, Execution::eager);
  nlohmann::json document = kMinimal;
  set_json_path(document, "jobs[0].execution", "cuda_graphs");
  const Scenario s = load(document);
  EXPECT_EQ(s.jobs[0].execution, Execution::cuda_graphs);
  EXPECT_EQ(scenario_to_json(s)["jobs"][0]["execution"], "cuda_graphs");
  EXPECT_EQ(load(scenario_to_json(s)).jobs[0].execution, Execution::cuda_graphs);
}

TEST(ScenarioLoader, MemoryFormatIsTheFrameworksUnlessStatedAndRoundTrips) {
  EXPECT_FALSE(load(kMinimal).jobs[0].memory_format.has_value());
  EXPECT_FALSE(scenario_to_json(load(kMinimal))["jobs"][0].contains("memory_format"));
  nlohmann::json document = kMinimal;
  set_json_path(document, "jobs[0].memory_format", "nhwc");
  const Scenario s = load(document);
  ASSERT_TRUE(s.jobs[0].memory_format.has_value());
  EXPECT_EQ(*s.jobs[0].memory_format, TensorLayout::nhwc);
  EXPECT_EQ(scenario_to_json(s)["jobs"][0]["memory_format"], "nhwc");
  EXPECT_EQ(load(scenario_to_json(s)).jobs[0].memory_format, TensorLayout::nhwc);
  // The job's workload takes it over the framework's default (PyTorch's NCHW).
  EXPECT_EQ(job_workload(s.jobs[0]).layout, TensorLayout::nhwc);
  EXPECT_EQ(job_workload(load(kMinimal).jobs[0]).layout, TensorLayout::nchw);
}

TEST(ScenarioLoader, OptimizerImplementationIsTheFrameworksUnlessStatedAndRoundTrips) {
  EXPECT_FALSE(load(kMinimal).jobs[0].optimizer_implementation.has_value());
  EXPECT_FALSE(scenario_to_json(load(kMinimal))["jobs"][0].contains("optimizer_implementation"));
  // PyTorch's default is the fused pass (Apex's optimizers, which the fitted rows ran).
  EXPECT_EQ(job_workload(load(kMinimal).jobs[0]).optimizer_kernels, OptimizerKernels::multi_tensor);
  nlohmann::json document = kMinimal;
  set_json_path(document, "jobs[0].optimizer_implementation", "foreach");
  const Scenario s = load(document);
  ASSERT_TRUE(s.jobs[0].optimizer_implementation.has_value());
  EXPECT_EQ(*s.jobs[0].optimizer_implementation, OptimizerImplementation::foreach);
  EXPECT_EQ(scenario_to_json(s)["jobs"][0]["optimizer_implementation"], "foreach");
  EXPECT_EQ(load(scenario_to_json(s)).jobs[0].optimizer_implementation, OptimizerImplementation::foreach);
  EXPECT_EQ(job_workload(s.jobs[0]).optimizer_kernels, OptimizerKernels::torch_foreach);
  // A TensorFlow job's for_loop is NVIDIA's per-tensor Adam.
  set_json_path(document, "jobs[0].framework", "tensorflow");
  set_json_path(document, "jobs[0].optimizer", "adam");
  set_json_path(document, "jobs[0].optimizer_implementation", "for_loop");
  EXPECT_EQ(job_workload(load(document).jobs[0]).optimizer_kernels, OptimizerKernels::per_tensor_ops);
}

TEST(ScenarioLoader, NcclChoiceIsNcclsUnlessForcedAndForcedChoicesRoundTrip) {
  EXPECT_FALSE(load(kMinimal).jobs[0].nccl_algorithm.has_value());
  EXPECT_FALSE(load(kMinimal).jobs[0].nccl_protocol.has_value());
  EXPECT_FALSE(load(kMinimal).jobs[0].nccl_channels.has_value());
  EXPECT_FALSE(scenario_to_json(load(kMinimal))["jobs"][0].contains("nccl"));
  nlohmann::json document = kMinimal;
  set_json_path(document, "jobs[0].nccl.algorithm", "ring");
  set_json_path(document, "jobs[0].nccl.protocol", "LL128");
  set_json_path(document, "jobs[0].nccl.channels", 8);
  const Scenario s = load(document);
  EXPECT_EQ(s.jobs[0].nccl_algorithm, NcclAlgorithm::ring);
  EXPECT_EQ(s.jobs[0].nccl_protocol, NcclProtocol::ll128);
  EXPECT_EQ(s.jobs[0].nccl_channels, 8);
  const nlohmann::json written = scenario_to_json(s);
  EXPECT_EQ(written["jobs"][0]["nccl"],
            (nlohmann::json{{"algorithm", "ring"}, {"protocol", "LL128"}, {"channels", 8}}));
  EXPECT_EQ(load(written).jobs[0].nccl_protocol, NcclProtocol::ll128);
  EXPECT_EQ(load(written).jobs[0].nccl_channels, 8);
}

TEST(ScenarioLoader, CopiesExpandIntoNamedIdenticalTenants) {
  nlohmann::json document = kMinimal;
  set_json_path(document, "virtualization.mode", "vgpu");
  set_json_path(document, "virtualization.vgpu_profile", "A100X-10C");
  set_json_path(document, "jobs[0].name", "t");
  set_json_path(document, "jobs[0].copies", 3);
  const Scenario s = load(document);
  ASSERT_EQ(s.jobs.size(), 3u);
  EXPECT_EQ(s.jobs[0].name, "t-1");
  EXPECT_EQ(s.jobs[2].name, "t-3");
  EXPECT_EQ(s.jobs[2].gpu_ids, std::vector<int>{0});
  EXPECT_EQ(s.jobs[2].json_path, "jobs[0]");
}

TEST(ScenarioLoader, IdleJobHoldsAVgpuWithoutWork) {
  nlohmann::json document = kMinimal;
  set_json_path(document, "virtualization.mode", "vgpu");
  set_json_path(document, "virtualization.vgpu_profile", "A100X-20C");
  document["jobs"].push_back({{"name", "parked"}, {"idle", true}});
  const Scenario s = load(document);
  ASSERT_EQ(s.jobs.size(), 2u);
  EXPECT_TRUE(s.jobs[1].idle);
  EXPECT_EQ(s.jobs[1].vgpu_profile, "A100X-20C");
}

TEST(ScenarioLoader, NullOverrideRemovesAKeySoModesCanBeSwitched) {
  const std::string file = std::string(VTSIM_SOURCE_DIR) + "/scenarios/vgpu-vs-mig-a100.json";
  const std::vector<std::string> overrides = {"virtualization.vgpu_profile=null", "virtualization.mode=mig",
                                              "virtualization.mig_profile=1g.10gb"};
  const Scenario s = load_scenario_file(file, overrides);
  EXPECT_EQ(s.virtualization.mode, VirtualizationMode::mig);
  EXPECT_EQ(s.jobs[0].mig_profile, "1g.10gb");
  EXPECT_EQ(s.jobs[0].vgpu_profile, "");
}

TEST(ScenarioLoader, OverridesApplyBeforeValidation) {
  const std::string file = std::string(VTSIM_SOURCE_DIR) + "/scenarios/a100-nvlink-bert.json";
  const std::vector<std::string> overrides = {"cluster.host.nvlink.enabled=false", "jobs[0].batch_per_gpu=16"};
  const Scenario s = load_scenario_file(file, overrides);
  EXPECT_FALSE(s.cluster.host.nvlink_enabled);
  EXPECT_TRUE(s.cluster.host.nvlink_present);
  EXPECT_EQ(s.jobs[0].batch_per_gpu, 16);
}

}  // namespace
}  // namespace vtsim
