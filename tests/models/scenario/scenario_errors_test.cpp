// A table of malformed scenarios and the exact one-line error each must give.

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "models/core/error.hpp"
#include "models/scenario/overrides.hpp"
#include "models/scenario/scenario_loader.hpp"

namespace vtsim {
namespace {

const nlohmann::json kBase = {
    {"cluster", {{"racks", 1}, {"hosts_per_rack", 2}, {"host", {{"gpus", 4}, {"gpu_model", "a100-40gb-sxm4"}}}}},
    {"jobs", {{{"name", "a"}, {"workload", "resnet-50"}, {"batch_per_gpu", 32}, {"gpus", 1}}}},
};

/// kBase with each (path, value) set as `--set` would.
nlohmann::json with(std::vector<std::pair<std::string, nlohmann::json>> edits) {
  nlohmann::json document = kBase;
  for (const auto& [path, value] : edits) set_json_path(document, path, value);
  return document;
}

nlohmann::json second_job(nlohmann::json job, std::vector<std::pair<std::string, nlohmann::json>> edits = {}) {
  nlohmann::json document = with(std::move(edits));
  document["jobs"].push_back(std::move(job));
  return document;
}

struct ErrorCase {
  std::string name;
  nlohmann::json scenario;
  std::string expected;
};

const std::string kTrace = std::string(VTSIM_SOURCE_DIR) + "/scenarios/traces/mlp-single-kineto.json";

std::vector<ErrorCase> error_cases() {
  const nlohmann::json job_b = {{"name", "b"}, {"workload", "resnet-50"}, {"batch_per_gpu", 32}, {"gpus", 1}};
  nlohmann::json no_jobs = kBase;
  no_jobs.erase("jobs");
  nlohmann::json typo_top = kBase;
  typo_top["clustr"] = typo_top["cluster"];
  typo_top.erase("cluster");
  nlohmann::json huge_global_batch = kBase;
  huge_global_batch["jobs"][0].erase("batch_per_gpu");
  huge_global_batch["jobs"][0]["global_batch"] = 2000000000;
  return {
      {"BatchZero", with({{"jobs[0].batch_per_gpu", 0}}),
       "s.json: jobs[0].batch_per_gpu: expected an integer from 1 to 1048576, got 0"},
      // issue 31: a billion iterations or samples ran forever.
      {"BatchAboveItsBound", with({{"jobs[0].batch_per_gpu", 1000000000}}),
       "s.json: jobs[0].batch_per_gpu: expected an integer from 1 to 1048576, got 1000000000"},
      {"IterationsAboveTheirBound", with({{"jobs[0].iterations", 1000000000}}),
       "s.json: jobs[0].iterations: expected an integer from 1 to 1000000, got 1000000000"},
      {"WarmupAboveItsBound", with({{"jobs[0].warmup_iterations", 1000001}}),
       "s.json: jobs[0].warmup_iterations: expected an integer from 0 to 1000000, got 1000001"},
      {"GlobalBatchAboveTheBatchBound", huge_global_batch,
       "s.json: jobs[0].global_batch: gives 2000000000 samples per GPU, above the 1048576 batch_per_gpu allows"},
      {"NegativeRacks", with({{"cluster.racks", -2}}), "s.json: cluster.racks: expected an integer >= 1, got -2"},
      {"RacksAsText", with({{"cluster.racks", "two"}}), "s.json: cluster.racks: expected an integer >= 1, got 'two'"},
      {"TypoInJobKey", with({{"jobs[0].batch_per_gppu", 8}}),
       "s.json: jobs[0].batch_per_gppu: unknown key; did you mean 'batch_per_gpu'?"},
      {"TypoInSection", typo_top, "s.json: clustr: unknown key; did you mean 'cluster'?"},
      {"TypoInNestedKey", with({{"cluster.host.gpu_modle", "t4"}}),
       "s.json: cluster.host.gpu_modle: unknown key; did you mean 'gpu_model'?"},
      {"UnknownGpuModel", with({{"cluster.host.gpu_model", "a100-40gb"}}),
       "s.json: cluster.host.gpu_model: unknown value 'a100-40gb'; did you mean 'a100-40gb-sxm4'?"},
      {"UnknownWorkload", with({{"jobs[0].workload", "resnet50"}}),
       "s.json: jobs[0].workload: unknown value 'resnet50'; did you mean 'resnet-50'?"},
      {"MisspeltMode", with({{"virtualization.mode", "vpgu"}}),
       "s.json: virtualization.mode: expected one of 'bare_metal', 'passthrough', 'vgpu' or 'mig', got 'vpgu'; "
       "did you mean 'vgpu'?"},
      {"UnknownTransport", with({{"cluster.transport", "omnipath"}}),
       "s.json: cluster.transport: expected one of 'roce_v1', 'roce_v2', 'pvrdma', 'tcp' or 'infiniband', got "
       "'omnipath'"},
      {"UnknownFidelity", with({{"simulation.fidelity", "fast"}}),
       "s.json: simulation.fidelity: expected one of 'step', 'flow' or 'analytic', got 'fast'"},
      {"MissingJobs", no_jobs, "s.json: missing required key 'jobs'"},
      {"EmptyJobs", with({{"jobs", nlohmann::json::array()}}), "s.json: jobs: expected at least 1 element, got 0"},
      {"MissingBatch", [] { nlohmann::json j = kBase; j["jobs"][0].erase("batch_per_gpu"); return j; }(),
       "s.json: jobs[0]: missing required key 'batch_per_gpu' (or 'global_batch')"},
      {"TooManyGpus", with({{"jobs[0].gpus", 9}}), "s.json: jobs[0].gpus: expected an integer from 1 to 8, got 9"},
      {"GpuIndexOutOfRange", with({{"jobs[0].gpus", {0, 8}}}),
       "s.json: jobs[0].gpus[1]: expected an integer from 0 to 7, got 8"},
      {"GpuListedTwice", with({{"jobs[0].gpus", {3, 3}}}), "s.json: jobs[0].gpus[1]: GPU 3 listed twice"},
      {"FirstGpuWithList", with({{"jobs[0].gpus", {1}}, {"jobs[0].first_gpu", 1}}),
       "s.json: jobs[0].first_gpu: 'first_gpu' goes with a GPU count, not with a list of GPUs"},
      {"SharedGpuOnBareMetal", second_job(job_b),
       "s.json: jobs[1].gpus: GPU 0 is already used by job 'a'; sharing a GPU needs virtualization.mode 'vgpu' or "
       "'mig'"},
      {"DuplicateJobName", second_job({{"name", "a"}, {"workload", "vgg-16"}, {"batch_per_gpu", 1}, {"first_gpu", 4}}),
       "s.json: jobs[1]: job name 'a' is used twice"},
      {"VgpuProfileOfOtherGpu", with({{"virtualization.mode", "vgpu"}, {"virtualization.vgpu_profile", "T4-16C"}}),
       "s.json: virtualization.vgpu_profile: expected one of 'A100X-40C', 'A100X-20C', 'A100X-10C', 'A100X-8C', "
       "'A100X-5C' or 'A100X-4C', got 'T4-16C'"},
      {"VgpuOversubscribed",
       [&] {
         nlohmann::json j = second_job(job_b, {{"virtualization.mode", "vgpu"}, {"virtualization.vgpu_profile", "A100X-20C"}});
         nlohmann::json c = job_b;
         c["name"] = "c";
         j["jobs"].push_back(c);
         return j;
       }(),
       "s.json: jobs[2].gpus: GPU 0 holds 3 A100X-20C vGPUs; the profile allows 2 per GPU"},
      {"VgpuProfileInPassthrough", with({{"virtualization.mode", "passthrough"}, {"virtualization.vgpu_profile", "A100X-40C"}}),
       "s.json: virtualization.vgpu_profile: only used when virtualization.mode is 'vgpu'"},
      {"MigWithoutProfile", with({{"virtualization.mode", "mig"}}),
       "s.json: jobs[0]: virtualization.mode is 'mig' but neither virtualization.mig_profile nor this job's mig_profile "
       "is set"},
      {"MigOverCapacity",
       second_job(job_b, {{"virtualization.mode", "mig"}, {"virtualization.mig_profile", "4g.20gb"}}),
       "s.json: jobs[1].gpus: GPU 0: 4g.20gb + 4g.20gb need 8/7 compute and 8/8 memory slices"},
      {"MigPlacementImpossible",
       [&] {
         nlohmann::json j = second_job(job_b, {{"virtualization.mode", "mig"}, {"virtualization.mig_profile", "3g.20gb"}});
         nlohmann::json c = job_b;
         c["name"] = "c";
         c["mig_profile"] = "1g.5gb";
         j["jobs"].push_back(c);
         return j;
       }(),
       // 3g + 3g + 1g: 7/7 compute and 9/8 memory slices? No: 4 + 4 + 1 = 9 memory slices: too many.
       "s.json: jobs[2].gpus: GPU 0: 3g.20gb + 3g.20gb + 1g.5gb need 7/7 compute and 9/8 memory slices"},
      {"VgpuMixedSizes",
       [&] {
         nlohmann::json j = second_job(job_b, {{"virtualization.mode", "vgpu"}, {"virtualization.vgpu_profile", "A100X-10C"}});
         j["jobs"][1]["vgpu_profile"] = "A100X-20C";
         return j;
       }(),
       "s.json: jobs[1].gpus: GPU 0 holds vGPUs of different sizes (A100X-10C, A100X-20C); time-sliced vGPUs on one "
       "GPU must have one size unless virtualization.mixed_sizes is true (vGPU 17 mixed-size mode)"},
      {"FixedShareWithMixedSizes",
       with({{"virtualization.mode", "vgpu"}, {"virtualization.scheduler.policy", "fixed_share"},
             {"virtualization.mixed_sizes", true}}),
       "s.json: virtualization.mixed_sizes: fixed share is not supported with time-sliced vGPUs of mixed sizes "
       "(NVIDIA vGPU user guide)"},
      {"IdleJobWithWorkload", with({{"virtualization.mode", "vgpu"}, {"virtualization.vgpu_profile", "A100X-10C"},
                                     {"jobs[0].idle", true}}),
       "s.json: jobs[0].workload: an idle job runs no work: remove this key or 'idle'"},
      {"SwitchLongerThanSlice",
       with({{"virtualization.mode", "vgpu"}, {"virtualization.scheduler.time_slice_ms", 1},
             {"virtualization.scheduler.context_switch_us", 1500}}),
       "s.json: virtualization.scheduler.context_switch_us: a context switch (1500 us) may take at most 90% of the "
       "time slice (1 ms): each slot would leave a vGPU almost nothing to run"},
      // Just below the slice used to make a 2-iteration run take minutes (a slot's useful part was 1 ns).
      {"SwitchAlmostTheWholeSlice",
       with({{"virtualization.mode", "vgpu"}, {"virtualization.scheduler.time_slice_ms", 2},
             {"virtualization.scheduler.context_switch_us", 1999.999}}),
       "s.json: virtualization.scheduler.context_switch_us: a context switch (1999.999 us) may take at most 90% of "
       "the time slice (2 ms): each slot would leave a vGPU almost nothing to run"},
      {"CopiesZero", with({{"jobs[0].copies", 0}}), "s.json: jobs[0].copies: expected an integer from 1 to 1024, got 0"},
      {"MigOnT4", with({{"cluster.host.gpu_model", "t4"}, {"virtualization.mode", "mig"}, {"virtualization.mig_profile", "1g.5gb"}}),
       "s.json: virtualization.mig_profile: NVIDIA T4 does not support MIG"},
      {"NvlinkOnT4", with({{"cluster.host.gpu_model", "t4"}, {"cluster.host.nvlink.present", true}}),
       "s.json: cluster.host.nvlink.present: NVIDIA T4 has no NVLink"},
      // A product whose MIG and NVLink bridge vtsim does not model says so rather than that they do not exist.
      {"MigOnH200Nvl",
       with({{"cluster.host.gpu_model", "h200-nvl"}, {"virtualization.mode", "mig"},
             {"virtualization.mig_profile", "1g.18gb"}}),
       "s.json: virtualization.mig_profile: NVIDIA H200 NVL 141GB: vtsim does not model its 2- or 4-way NVLink bridge "
       "(900 GB/s) and MIG (7 instances; no -lgip listing of its profiles found)"},
      {"NvlinkOnA40", with({{"cluster.host.gpu_model", "a40"}, {"cluster.host.nvlink.present", true}}),
       "s.json: cluster.host.nvlink.present: NVIDIA A40: vtsim does not model its NVLink bridge (112.5 GB/s)"},
      {"NcclAlgorithmNcclHasButVtsimDoesNot", with({{"jobs[0].nccl.algorithm", "pat"}}),
       "s.json: jobs[0].nccl.algorithm: expected one of 'tree', 'ring', 'nvls', 'collnetdirect' or 'collnetchain', "
       "got 'pat'"},
      {"CollnetOnEthernet", with({{"jobs[0].nccl.collnet", true}}),
       "s.json: jobs[0].nccl.collnet: CollNet reduces in the switches with SHARP, which NVIDIA's Quantum InfiniBand "
       "switches run: it needs cluster.transport 'infiniband', not 'roce_v2'"},
      {"NcclChannelsBeyondMaxChannels", with({{"jobs[0].nccl.channels", 65}}),
       "s.json: jobs[0].nccl.channels: expected an integer from 1 to 64, got 65"},
      {"NcclKeyNotKnown", with({{"jobs[0].nccl.nchannels", 4}}),
       "s.json: jobs[0].nccl.nchannels: unknown key; did you mean 'channels'?"},
      {"NcclChoiceWithHierarchicalHorovod",
       with({{"jobs[0].horovod.allreduce", "hierarchical"}, {"jobs[0].nccl.protocol", "LL"}}),
       "s.json: jobs[0].nccl: Horovod's hierarchical allreduce is simulated without NCCL's choice (Simple's costs, "
       "docs/nccl-model.md): remove this key or use horovod.allreduce 'ring'"},
      {"NvlinkEnabledButAbsent", with({{"cluster.host.nvlink.present", false}, {"cluster.host.nvlink.enabled", true}}),
       "s.json: cluster.host.nvlink.enabled: NVLink cannot be enabled: it is not present"},
      {"Tf32OnV100", with({{"cluster.host.gpu_model", "v100-sxm2-16gb"}, {"jobs[0].precision", "tf32"}}),
       "s.json: jobs[0].precision: tf32 is not supported by NVIDIA Tesla V100 SXM2 16GB"},
      {"TimeSliceTooLong", with({{"virtualization.mode", "vgpu"}, {"virtualization.scheduler.time_slice_ms", 40}}),
       "s.json: virtualization.scheduler.time_slice_ms: expected a number from 1 to 30, got 40"},
      {"OversubscriptionBelowARatioOfOneHundredth", with({{"cluster.fabric.oversubscription", 0.005}}),
       "s.json: cluster.fabric.oversubscription: expected a number from 0.01 to 64, got 0.005"},
      // 2 hosts x one 100 Gb/s NIC / (2 spines x 100 Gb/s) = 1, not 2.
      {"ThreeFabricFiguresThatDisagree",
       with({{"cluster.racks", 2}, {"cluster.fabric", {{"oversubscription", 2.0}, {"spines", 2}, {"uplink_gbps", 100}}}}),
       "s.json: cluster.fabric.oversubscription: does not match hosts_per_rack x nics x NIC line rate / (spines x "
       "uplink_gbps) = 1; give at most two of oversubscription, spines and uplink_gbps"},
      {"RoceV1AcrossRacks",
       with({{"cluster.racks", 2}, {"cluster.transport", "roce_v1"}, {"jobs[0].gpus", 16}}),
       "s.json: jobs[0].gpus: the job spans racks 0 and 1, but roce_v1 is not routable: its traffic cannot leave one "
       "rack's broadcast domain (use roce_v2)"},
      {"SpansHostsWithoutNics", with({{"cluster.host.nics", 0}, {"jobs[0].gpus", 8}}),
       "s.json: jobs[0].gpus: the job spans hosts but cluster.host.nics is 0"},
      {"HeadsDoNotDivideHidden",
       with({{"jobs[0].workload",
              {{"transformer", {{"layers", 2}, {"hidden_size", 100}, {"heads", 3}, {"sequence_length", 8}, {"vocab_size", 10}}}}}}),
       "s.json: jobs[0].workload.transformer.hidden_size: expected a multiple of heads (3), got 100"},
      {"CycleTimeTooShortToTick", with({{"jobs[0].horovod.cycle_time_ms", 1e-310}}),
       "s.json: jobs[0].horovod.cycle_time_ms: expected 0 (no cycle) or at least 0.001 ms, got 1e-310"},
      {"MissingProfileFile", with({{"calibration_profile", "no-such-profile.json"}}),
       "s.json: calibration_profile: no such file: no-such-profile.json"},
      // Names reach terminals, tables and plot scripts as they are: control characters are refused.
      {"JobNameWithEscape", with({{"jobs[0].name", "a\x1b[2J"}}),
       "s.json: jobs[0].name: expected a name without control characters (newline, tab, escape, ...), got "
       "'a\\u001b[2J'"},
      {"JobNameWithNewline", with({{"jobs[0].name", "x\nsystem \"touch PWNED\"\n#"}}),
       "s.json: jobs[0].name: expected a name without control characters (newline, tab, escape, ...), got "
       "'x\\nsystem \\\"touch PWNED\\\"\\n#'"},
      {"JobNameWithNul", with({{"jobs[0].name", std::string("a\0b", 3)}}),
       "s.json: jobs[0].name: expected a name without control characters (newline, tab, escape, ...), got "
       "'a\\u0000b'"},
      {"JobNameWithBell", with({{"jobs[0].name", "a\a"}}),
       "s.json: jobs[0].name: expected a name without control characters (newline, tab, escape, ...), got "
       "'a\\u0007'"},
      {"JobNameWithDelete", with({{"jobs[0].name", "a\x7f"}}),
       "s.json: jobs[0].name: expected a name without control characters (newline, tab, escape, ...), got "
       "'a\\x7f'"},
      {"JobNameWithC1Csi", with({{"jobs[0].name", "a\xc2\x9b" "31m"}}),
       "s.json: jobs[0].name: expected a name without control characters (newline, tab, escape, ...), got "
       "'a\\u009b31m'"},
      {"ScenarioNameWithTab", with({{"name", "a\tb"}}),
       "s.json: name: expected a name without control characters (newline, tab, escape, ...), got 'a\\tb'"},
      {"TooManyClusterGpus", with({{"cluster.racks", 100000}, {"cluster.hosts_per_rack", 100}}),
       "s.json: cluster: 40000000 GPUs (racks x hosts_per_rack x host.gpus); at most 1048576 are supported"},
      {"EventOnBareMetal", with({{"events", {{{"type", "vmotion"}, {"host", 0}, {"at_s", 1}}}}}),
       "s.json: events[0].type: events are vSphere operations on VMs: virtualization.mode is 'bare_metal'"},
      {"VmotionOfAPassedThroughGpu",
       with({{"virtualization.mode", "passthrough"},
             {"events", {{{"type", "maintenance"}, {"host", 0}, {"at_s", 1}}}}}),
       "s.json: events[0].type: a VM with a passed-through GPU (DirectPath I/O) cannot be moved by vMotion: use "
       "'vgpu' or 'mig'"},
      {"TwoEventsOfOneHostAtOneIteration",
       with({{"virtualization.mode", "vgpu"},
             {"events", {{{"type", "vmotion"}, {"host", 0}, {"at_iteration", 3}},
                         {{"type", "vmotion"}, {"host", 0}, {"at_iteration", 3}}}}}),
       "s.json: events[1]: host 0 already has an event at this iteration (events[0]): vtsim costs one event of a host "
       "at a time; give them different moments"},
      {"EventWithoutATime", with({{"virtualization.mode", "vgpu"}, {"events", {{{"type", "vmotion"}, {"host", 0}}}}}),
       "s.json: events[0]: give exactly one of 'at_s' and 'at_iteration'"},
      {"EventOnAHostWithoutJobs",
       with({{"virtualization.mode", "vgpu"}, {"events", {{{"type", "host_failure"}, {"host", 1}, {"at_s", 1}}}}}),
       "s.json: events[0].host: no job runs on host 1: the event changes nothing"},
      {"EventAfterTheJobEnds",
       with({{"virtualization.mode", "vgpu"}, {"events", {{{"type", "vmotion"}, {"host", 0}, {"at_iteration", 22}}}}}),
       "s.json: events[0].at_iteration: expected an integer from 0 to 21, got 22"},
      {"MisspeltEventType",
       with({{"virtualization.mode", "vgpu"}, {"events", {{{"type", "vmotoin"}, {"host", 0}, {"at_s", 1}}}}}),
       "s.json: events[0].type: expected one of 'vmotion', 'host_failure' or 'maintenance', got 'vmotoin'; did you "
       "mean 'vmotion'?"},
      {"VmotionOfAnotherHostsJob",
       second_job({{"name", "b"}, {"workload", "resnet-50"}, {"batch_per_gpu", 32}, {"gpus", {4}}},
                  {{"virtualization.mode", "vgpu"},
                   {"events", {{{"type", "vmotion"}, {"host", 0}, {"job", "b"}, {"at_s", 1}}}}}),
       "s.json: events[0].job: job 'b' runs no ranks on host 0"},
      {"TcpRateWithoutTcp", with({{"virtualization.tcp_gbps_per_core", 20}}),
       "s.json: virtualization.tcp_gbps_per_core: only used when cluster.transport is 'tcp'"},
      {"EmptyCheckpoint", with({{"jobs[0].checkpoint", {{"interval_iterations", 5}, {"size_gb", 0}}}}),
       "s.json: jobs[0].checkpoint.size_gb: expected a number > 0 and <= 1e+06, got 0"},
      {"VmCpuOverheadOnBareMetal", with({{"virtualization.vm_cpu_overhead", 0.1}}),
       "s.json: virtualization.vm_cpu_overhead: bare metal runs no VM"},
      {"VmCpuCoresOnBareMetal", with({{"virtualization.vm_cpu_cores", 8}}),
       "s.json: virtualization.vm_cpu_cores: bare metal runs no VM: its processes have the host's cores "
       "(cluster.host.cpu_cores)"},
      // A catalogued server (DGX A100 datasheet: 8 GPUs; Dell's XE8545 system file: 4x A100 SXM4, 2 compute NICs,
      // 2x 64-core EPYC 7763 with 2 threads per core) refuses what it does not have.
      {"HostModelGpuCount", with({{"cluster.host.model", "dgx-a100"}}),
       "s.json: cluster.host.gpus: the NVIDIA DGX A100 has 8 GPUs"},
      {"HostModelGpuModel", with({{"cluster.host.model", "dell-xe8545"}, {"cluster.host.gpu_model", "h100-sxm5"}}),
       "s.json: cluster.host.gpu_model: the Dell PowerEdge XE8545 comes with a100-40gb-sxm4 or a100-80gb-sxm4"},
      {"HostModelNics", with({{"cluster.host.model", "dell-xe8545"}, {"cluster.host.nics", 4}}),
       "s.json: cluster.host.nics: the Dell PowerEdge XE8545 has 2 compute NICs"},
      {"HostModelCpuCores", with({{"cluster.host.model", "dell-xe8545"}, {"cluster.host.cpu_cores", 300}}),
       "s.json: cluster.host.cpu_cores: the Dell PowerEdge XE8545 has 256 hardware threads"},
      {"HostModelVmCores",
       with({{"cluster.host.model", "dell-xe8545"}, {"virtualization.mode", "passthrough"},
             {"virtualization.vm_cpu_cores", 300}}),
       "s.json: virtualization.vm_cpu_cores: 300 vCPUs: the Dell PowerEdge XE8545 has 256 logical processors, the "
       "most a VM can have"},
      {"GpuLoaderOnSequences", with({{"jobs[0].workload", "bert-large-squad-seq384"}, {"jobs[0].data_loader", "gpu"}}),
       "s.json: jobs[0].data_loader: the 'gpu' loader decodes images on the GPU (DALI); this workload's samples are "
       "not images"},
      {"GpuLoaderWithoutRate", with({{"cluster.host.gpu_model", "t4"}, {"jobs[0].data_loader", "gpu"}}),
       "s.json: jobs[0].data_loader: no published DALI rate on the NVIDIA T4: give data_loader_images_per_s"},
      {"LoaderRateWithoutGpuLoader", with({{"jobs[0].data_loader_images_per_s", 3000}}),
       "s.json: jobs[0].data_loader_images_per_s: only used with data_loader 'gpu'"},
      {"SyntheticDataLoadingTime",
       with({{"jobs[0].data_loader", "synthetic"}, {"jobs[0].data_loading_cpu_ms_per_sample", 2}}),
       "s.json: jobs[0].data_loading_cpu_ms_per_sample: synthetic data is not loaded: remove this key"},
      {"InfinibandOnAnEthernetNic", with({{"cluster.transport", "infiniband"}}),
       "s.json: cluster.transport: Mellanox ConnectX-5 EN 100GbE dual-port (MCX516A-CCAT) is an Ethernet adapter: "
       "infiniband needs a VPI card (connectx-6-vpi-hdr, connectx-7-400g, bluefield-3-400g) as cluster.host.nic_model"},
      {"AdaptiveRoutingOnEthernet", with({{"cluster.fabric.adaptive_routing", true}}),
       "s.json: cluster.fabric.adaptive_routing: adaptive routing is modelled for the infiniband transport only "
       "(Ethernet fabrics hash each flow onto one spine)"},
      {"MorePcieSwitchGpusThanGpus", with({{"cluster.host.gpus", 4}, {"cluster.host.pcie_switch_gpus", 8}}),
       "s.json: cluster.host.pcie_switch_gpus: expected an integer from 0 to 4, got 8"},
      {"RailsWithoutNics", with({{"cluster.host.nics", 0}, {"cluster.fabric.rail_optimized", true}}),
       "s.json: cluster.fabric.rail_optimized: rail-optimized cabling needs NICs (cluster.host.nics)"},
      {"RailsOversubscriptionMismatch",
       with({{"cluster.host.nics", 2},
             {"cluster.hosts_per_rack", 4},
             {"cluster.fabric.rail_optimized", true},
             {"cluster.fabric.spines", 2},
             {"cluster.fabric.uplink_gbps", 100},
             {"cluster.fabric.oversubscription", 4}}),
       "s.json: cluster.fabric.oversubscription: does not match hosts_per_rack x NIC line rate / (spines x "
       "uplink_gbps) per rail leaf = 2; give at most two of oversubscription, spines and uplink_gbps"},
      {"UnknownHostModel", with({{"cluster.host.model", "dgx-a10"}}),
       "s.json: cluster.host.model: unknown value 'dgx-a10'; did you mean 'dgx-a100'?"},
      {"CheckpointWithoutInterval", with({{"jobs[0].checkpoint", nlohmann::json::object()}}),
       "s.json: jobs[0].checkpoint: missing required key 'interval_iterations'"},
      {"MisspeltOperationsKey", with({{"operations.vm_boot", 30}}),
       "s.json: operations.vm_boot: unknown key; did you mean 'vm_boot_s'?"},
      {"VmknicsBeyondWhatWasMeasured", with({{"operations.vmotion_vmknics", 4}}),
       "s.json: operations.vmotion_vmknics: expected an integer from 1 to 3, got 4"},
      // A traced workload (docs/traces.md).
      {"TraceWithoutItsGpu", with({{"jobs[0].workload", {{"trace", kTrace}}}}),
       "s.json: jobs[0].workload: missing required key 'measured_on': the catalog GPU the trace was taken on (`vtsim "
       "catalog gpus`); the trace names 'NVIDIA A100-SXM4-80GB'"},
      {"TraceMisspeltKey", with({{"jobs[0].workload", {{"trace", kTrace}, {"mesured_on", "a100-80gb-sxm4"}}}}),
       "s.json: jobs[0].workload.mesured_on: unknown key; did you mean 'measured_on'?"},
      {"TraceWithoutThatStep",
       with({{"jobs[0].workload", {{"trace", kTrace}, {"measured_on", "a100-80gb-sxm4"}, {"step", 9}}}}),
       "s.json: jobs[0].workload.step: the trace has no ProfilerStep#9; its steps are #1 to #3"},
      {"TraceMissing", with({{"jobs[0].workload", {{"trace", "no/such.json"}, {"measured_on", "t4"}}}}),
       "s.json: jobs[0].workload.trace: no such file: no/such.json"},
      // issue 31: a folder and a device were "no such file" too.
      {"TraceIsAFolder", with({{"jobs[0].workload", {{"trace", "/tmp"}, {"measured_on", "t4"}}}}),
       "s.json: jobs[0].workload.trace: /tmp is a folder, not a file"},
      {"TraceIsADevice", with({{"jobs[0].workload", {{"trace", "/dev/null"}, {"measured_on", "t4"}}}}),
       "s.json: jobs[0].workload.trace: /dev/null is not a regular file (a pipe or a device)"},
      {"TraceWithParallelism",
       with({{"jobs[0].workload", {{"trace", kTrace}, {"measured_on", "a100-80gb-sxm4"}}},
             {"jobs[0].precision", "fp32"},
             {"jobs[0].parallelism", {{"tensor", 1}}}}),
       "s.json: jobs[0].parallelism: a traced workload is replayed with data parallelism only"},
      {"TraceWithExecution",
       with({{"jobs[0].workload", {{"trace", kTrace}, {"measured_on", "a100-80gb-sxm4"}}},
             {"jobs[0].precision", "fp32"},
             {"jobs[0].execution", "cuda_graphs"}}),
       "s.json: jobs[0].execution: a traced iteration keeps the host time it was measured with: remove this key"},
      {"TraceWithHostDispatch",
       with({{"jobs[0].workload", {{"trace", kTrace}, {"measured_on", "a100-80gb-sxm4"}}},
             {"jobs[0].precision", "fp32"},
             {"jobs[0].host_dispatch_us", 5}}),
       "s.json: jobs[0].host_dispatch_us: a traced iteration keeps the host time it was measured with: remove this key"},
      // 1,025 hosts of one NIC each at 1:1 with uplinks at the NIC's rate: 1,025 x 1 x rate / rate spines, over 1,024;
      // the error names the cluster, which gave no fabric (an empty optional was dereferenced here once).
      {"TooManySpinesWithoutFabric", with({{"cluster.hosts_per_rack", 1025}}),
       "s.json: cluster: 1025 spines would be needed for a 1:1 fabric with uplinks at the NICs' line rate; at most "
       "1024: give cluster.fabric a faster uplink_gbps or a larger oversubscription"},
      {"TraceWithMemoryFormat",
       with({{"jobs[0].workload", {{"trace", kTrace}, {"measured_on", "a100-80gb-sxm4"}}},
             {"jobs[0].precision", "fp32"},
             {"jobs[0].memory_format", "nhwc"}}),
       "s.json: jobs[0].memory_format: a traced iteration's kernels are the ones it ran: remove this key"},
      {"OptimizerImplementationMisspelt", with({{"jobs[0].optimizer_implementation", "for-each"}}),
       "s.json: jobs[0].optimizer_implementation: expected one of 'fused', 'foreach', 'for_loop', 'bert_adam', "
       "'bert_adam_sync' or 'bert_fused_adam', got 'for-each'; "
       "did you mean 'foreach'?"},
      {"BertAdamInFp16",
       with({{"jobs[0].optimizer", "adam"}, {"jobs[0].optimizer_implementation", "bert_adam"},
             {"jobs[0].precision", "fp16"}}),
       "s.json: jobs[0].optimizer_implementation: DeepLearningExamples' BERT scripts run BertAdam in fp32 or tf32 "
       "only (under --fp16, Apex AMP and FusedAdam: 'bert_fused_adam')"},
      {"BertFusedAdamInFp32",
       with({{"jobs[0].optimizer", "adam"}, {"jobs[0].optimizer_implementation", "bert_fused_adam"},
             {"jobs[0].precision", "fp32"}}),
       "s.json: jobs[0].optimizer_implementation: DeepLearningExamples' BERT scripts run Apex AMP and FusedAdam under "
       "--fp16 only: precision fp16 (in fp32 or tf32, BertAdam: 'bert_adam')"},
      {"BertFusedAdamInBf16",
       with({{"jobs[0].optimizer", "adam"}, {"jobs[0].optimizer_implementation", "bert_fused_adam"},
             {"jobs[0].precision", "bf16"}}),
       "s.json: jobs[0].optimizer_implementation: DeepLearningExamples' BERT scripts run Apex AMP and FusedAdam under "
       "--fp16 only: precision fp16 (in fp32 or tf32, BertAdam: 'bert_adam')"},
      {"BertFusedAdamUnderCudaGraphs",
       with({{"jobs[0].optimizer", "adam"}, {"jobs[0].optimizer_implementation", "bert_fused_adam"},
             {"jobs[0].precision", "fp16"}, {"jobs[0].execution", "cuda_graphs"}}),
       "s.json: jobs[0].optimizer_implementation: Apex AMP reads its overflow flag and GradientClipper the gradients' "
       "norm on the host (.item()), which a CUDA graph cannot capture: remove 'execution' or this key"},
      {"ForeachLamb", with({{"jobs[0].optimizer", "lamb"}, {"jobs[0].optimizer_implementation", "foreach"}}),
       "s.json: jobs[0].optimizer_implementation: foreach is counted from torch.optim's SGD, Adam and AdamW code; lamb "
       "runs here as one fused pass: use 'fused'"},
      {"ForeachInTensorFlow",
       with({{"jobs[0].framework", "tensorflow"}, {"jobs[0].optimizer_implementation", "foreach"}}),
       "s.json: jobs[0].optimizer_implementation: foreach is torch.optim's; a tensorflow job's optimizer runs here as "
       "'fused' or 'for_loop'"},
      {"TraceWithOptimizerImplementation",
       with({{"jobs[0].workload", {{"trace", kTrace}, {"measured_on", "a100-80gb-sxm4"}}},
             {"jobs[0].precision", "fp32"},
             {"jobs[0].optimizer_implementation", "fused"}}),
       "s.json: jobs[0].optimizer_implementation: a traced iteration's optimizer kernels are in the trace: remove this "
       "key"},
      {"MemoryFormatInPyTorchsSpelling", with({{"jobs[0].memory_format", "channels_last"}}),
       "s.json: jobs[0].memory_format: expected one of 'nchw' or 'nhwc', got 'channels_last'"},
      {"ExecutionMisspelt", with({{"jobs[0].execution", "cuda_graph"}}),
       "s.json: jobs[0].execution: expected one of 'eager' or 'cuda_graphs', got 'cuda_graph'; did you mean "
       "'cuda_graphs'?"},
      {"HostDispatchUnderCudaGraphs", with({{"jobs[0].execution", "cuda_graphs"}, {"jobs[0].host_dispatch_us", 3}}),
       "s.json: jobs[0].host_dispatch_us: a job under execution 'cuda_graphs' issues no kernel from the host: remove "
       "this key or 'execution'"},
  };
}

/// Names the case in test output instead of dumping its bytes.
void PrintTo(const ErrorCase& error_case, std::ostream* out) { *out << error_case.name; }

class ScenarioErrors : public testing::TestWithParam<ErrorCase> {};

TEST_P(ScenarioErrors, GiveOneLineNamingFileAndPath) {
  const ErrorCase& c = GetParam();
  try {
    load_scenario(c.scenario, "s.json", ".");
    FAIL() << "no error; expected: " << c.expected;
  } catch (const InputError& error) {
    EXPECT_EQ(std::string(error.what()), c.expected);
    EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(Table, ScenarioErrors, testing::ValuesIn(error_cases()),
                         [](const testing::TestParamInfo<ErrorCase>& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace vtsim
