// Tensor, pipeline and sharded parallelism in whole simulations (sim/training/model_parallel_rank.cpp), against the
// schedules' critical paths evaluated by hand from the compute model's stage kernel times, and against closed forms.

#include <algorithm>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "models/compute/job_compute.hpp"
#include "models/core/error.hpp"
#include "models/parallel/parallel_strategy.hpp"
#include "models/resolve/job_compute_plan.hpp"
#include "runner/point_runner.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/training/model_parallel_plan.hpp"
#include "sim/training/training_job.hpp"
#include "sim_test_support.hpp"

namespace vtsim::sim {
namespace {

using testing::simulate_in_child;

using testing::scenario_of;

/// A small GPT (8 blocks of width 256, 128 tokens) on one host of 4x A100 on NVLink, split as `parallelism` says.
/// Its activations between stages are 64 KiB per micro-batch: a few microseconds on NVLink against milliseconds of
/// compute, so the pipeline runs as if communication were free.
nlohmann::json small_gpt_job(const nlohmann::json& parallelism, int batch) {
  return {{"cluster", {{"racks", 1}, {"hosts_per_rack", 1}, {"host", {{"gpus", 4}, {"gpu_model", "a100-40gb-sxm4"}}}}},
          {"jobs",
           {{{"workload",
              {{"transformer",
                {{"layers", 8}, {"hidden_size", 256}, {"heads", 4}, {"sequence_length", 128}, {"vocab_size", 64}}}}},
             {"batch_per_gpu", batch},
             {"data_loading_cpu_ms_per_sample", 0},
             {"parallelism", parallelism},
             {"iterations", 2},
             {"warmup_iterations", 1}}}}};
}

/// The step of a pipeline whose stages run `pipeline_schedule`'s passes in order, evaluated by hand as a list
/// evaluation of the dependency graph, independent of the engine's actors: a forward of micro-batch i through virtual
/// stage k (chunk k / p of stage k % p) starts once virtual stage k - 1's forward of it has ended and its stage is
/// free, a backward once virtual stage k + 1's backward of it has; a pass that takes another stage's output first
/// moves it, `transfer_s` (the receiver pulls it when it asks: NCCL's send waits for its receiver). Then each stage's
/// optimizer. `forward_s`, `backward_s` per virtual stage, `optimizer_s` per stage.
double pipeline_critical_path_s(const ParallelStrategy& strategy, const std::vector<double>& forward_s,
                                const std::vector<double>& backward_s, const std::vector<double>& optimizer_s,
                                double transfer_s = 0) {
  const int p = strategy.pipeline;
  const int m = strategy.micro_batches;
  const auto virtual_stages = forward_s.size();
  std::vector<std::vector<PipelinePass>> passes;
  for (int s = 0; s < p; ++s) passes.push_back(pipeline_schedule(strategy, s));
  std::vector<std::vector<double>> forward_end(virtual_stages, std::vector<double>(static_cast<std::size_t>(m), -1));
  std::vector<std::vector<double>> backward_end = forward_end;
  std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
  std::vector<double> free_at(static_cast<std::size_t>(p), 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (int s = 0; s < p; ++s) {
      const auto us = static_cast<std::size_t>(s);
      while (next[us] < passes[us].size()) {
        const PipelinePass& pass = passes[us][next[us]];
        const auto i = static_cast<std::size_t>(pass.micro);
        const auto k = static_cast<std::size_t>(pass.chunk * p + s);
        const bool receives = pass.forward ? k > 0 : k + 1 < virtual_stages;
        double ready = 0;
        if (receives) ready = pass.forward ? forward_end[k - 1][i] : backward_end[k + 1][i];
        if (ready < 0) break;
        const double start = std::max(ready, free_at[us]) + (receives ? transfer_s : 0.0);
        free_at[us] = start + (pass.forward ? forward_s[k] : backward_s[k]);
        (pass.forward ? forward_end : backward_end)[k][i] = free_at[us];
        ++next[us];
        progress = true;
      }
    }
  }
  double step = 0;
  for (std::size_t s = 0; s < free_at.size(); ++s) step = std::max(step, free_at[s] + optimizer_s[s]);
  return step;
}

/// Per virtual stage, the compute model's forward and backward of one micro-batch; per stage, its chunks' optimizer.
struct StageTimes {
  std::vector<double> forward, backward, optimizer;
};
StageTimes stage_times(const JobCompute& compute, int pipeline) {
  StageTimes times;
  times.optimizer.assign(static_cast<std::size_t>(pipeline), 0.0);
  for (std::size_t k = 0; k < compute.stages.size(); ++k) {
    const KernelTimes& kernels = compute.stages[k].kernels;
    times.forward.push_back(std::accumulate(kernels.forward_s.begin(), kernels.forward_s.end(), 0.0));
    times.backward.push_back(std::accumulate(kernels.backward_s.begin(), kernels.backward_s.end(), 0.0));
    times.optimizer[k % static_cast<std::size_t>(pipeline)] += kernels.optimizer_s;
  }
  return times;
}

/// A transformer of `blocks` equal blocks with no embedding or head to speak of (vocabulary 64), width 1024, 512
/// tokens: 1 MiB of fp16 activations per micro-batch between stages.
nlohmann::json uniform_gpt_job(const nlohmann::json& parallelism, int batch, int blocks, const std::string& fidelity) {
  nlohmann::json json = small_gpt_job(parallelism, batch);
  json["jobs"][0]["workload"]["transformer"] = {
      {"layers", blocks}, {"hidden_size", 1024}, {"heads", 8}, {"sequence_length", 512}, {"vocab_size", 64}};
  json["jobs"][0]["precision"] = "fp16";
  json["simulation"]["fidelity"] = fidelity;
  return json;
}

/// The time the engine takes to move `bytes` from GPU `from` to GPU `to`: the route's latency and its bottleneck's
/// rate (SimGrid's CM02 model as configured: no slow start, no cross-traffic), then NCCL's per-step latency of the
/// hop for a point-to-point transfer (Simple).
double transfer_s(const Scenario& scenario, int from, int to, double bytes) {
  const Topology topology = scenario_topology(scenario, {});
  const std::vector<Hop> route = topology.route(from, to);
  return topology.latency_s(route) + bytes / topology.bottleneck_Bps(route) +
         nccl_step_extra_s(step_hop(topology, route), NcclProtocol::simple);
}

TEST(PipelineParallelism, EachScheduleRunsItsCriticalPathAtEveryFidelity) {
  // Four stages of two equal blocks on one host's NVLink, 8 micro-batches: GPipe, 1F1B, and interleaved with two
  // chunks of one block per stage; the transfers between stages are on the receiver's path.
  for (const std::string fidelity : {"analytic", "step", "flow"}) {
    for (const auto& [schedule, chunks] : std::vector<std::pair<std::string, int>>{
             {"gpipe", 1}, {"1f1b", 1}, {"interleaved", 2}}) {
      nlohmann::json parallelism = {{"pipeline", 4}, {"schedule", schedule}};
      if (chunks > 1) parallelism["virtual_stages"] = chunks;
      const Scenario scenario = scenario_of(uniform_gpt_job(parallelism, 8, 8, fidelity));
      const JobCompute compute = plan_job_compute(scenario, 0, {});
      const StageTimes times = stage_times(compute, 4);
      const double bytes = compute.stages.front().part.boundary_bytes_per_sample;
      EXPECT_DOUBLE_EQ(bytes, 512 * 1024 * 2.0);
      const double transfer = transfer_s(scenario, 0, 1, bytes);
      const double expected = pipeline_critical_path_s(*scenario.jobs[0].parallelism, times.forward, times.backward,
                                                       times.optimizer, transfer);
      const nlohmann::json job = simulate_in_child(scenario)["jobs"][0];
      EXPECT_NEAR(job["step_time_s"]["mean"].get<double>(), expected, 1e-9 * expected) << schedule << " " << fidelity;
      EXPECT_DOUBLE_EQ(job["parallelism"]["bubble_fraction_closed_form"].get<double>(),
                       pipeline_bubble_fraction(*scenario.jobs[0].parallelism));
    }
  }
}

TEST(PipelineParallelism, UnevenStagesRunTheirCriticalPath) {
  // 7 blocks over 4 stages, the first one block short (Megatron-LM's --decoder-first-pipeline-num-layers): its stages
  // take 1, 2, 2, 2 blocks' time, and the engine runs the schedule's critical path over those times.
  for (const std::string schedule : {"gpipe", "1f1b"}) {
    const nlohmann::json parallelism = {{"pipeline", 4}, {"schedule", schedule}, {"stage_layers", {1, 2, 2, 2}}};
    const Scenario scenario = scenario_of(uniform_gpt_job(parallelism, 8, 7, "analytic"));
    const JobCompute compute = plan_job_compute(scenario, 0, {});
    const StageTimes times = stage_times(compute, 4);
    // A middle stage runs two blocks, the first one (and the embedding, small at a vocabulary of 64).
    EXPECT_NEAR(times.forward[1], times.forward[2], 1e-12);
    EXPECT_LT(times.forward[0], 0.6 * times.forward[1]);
    const double transfer = transfer_s(scenario, 0, 1, compute.stages.front().part.boundary_bytes_per_sample);
    const double expected = pipeline_critical_path_s(*scenario.jobs[0].parallelism, times.forward, times.backward,
                                                     times.optimizer, transfer);
    const nlohmann::json job = simulate_in_child(scenario)["jobs"][0];
    EXPECT_NEAR(job["step_time_s"]["mean"].get<double>(), expected, 1e-9 * expected) << schedule;
  }
}

TEST(PipelineParallelism, ScatterGatherHalvesWhatATensorGroupPushesThroughItsHostsNic) {
  // Tensor 2 x pipeline 2 on two hosts of two GPUs with one NIC each, one micro-batch (GPipe): the stage boundary
  // crosses the NICs once forward and once back. Without scatter-gather both GPUs of a group send their whole b s h
  // activations A through the one NIC, 2 A / B; with it each sends A / 2, A / B, and the group then allgathers A over
  // NVLink, which costs less than the A / B saved. So the step is shorter, by less than 2 A / B.
  nlohmann::json json = uniform_gpt_job({{"tensor", 2}, {"pipeline", 2}, {"schedule", "gpipe"}}, 1, 2, "analytic");
  json["cluster"] = {{"racks", 1},
                     {"hosts_per_rack", 2},
                     {"host", {{"gpus", 2}, {"gpu_model", "a100-40gb-sxm4"}, {"nics", 1}}}};
  const Scenario scattered = scenario_of(json);
  const Scenario whole = scenario_of(json, {"jobs[0].parallelism.scatter_gather=false"});
  const double a = 512 * 1024 * 2.0;
  const double nic_Bps = scenario_topology(scattered, {}).bottleneck_Bps(scenario_topology(scattered, {}).route(0, 2));
  const nlohmann::json with = simulate_in_child(scattered)["jobs"][0];
  const nlohmann::json without = simulate_in_child(whole)["jobs"][0];
  const double saved = without["step_time_s"]["mean"].get<double>() - with["step_time_s"]["mean"].get<double>();
  EXPECT_GT(saved, 0.25 * 2 * a / nic_Bps);
  EXPECT_LT(saved, 2 * a / nic_Bps);
  EXPECT_LT(with["parallelism"]["communication_s"]["pipeline_wait"].get<double>(),
            without["parallelism"]["communication_s"]["pipeline_wait"].get<double>());
}

TEST(PipelineParallelism, InterleavingShrinksTheBubbleByTheVirtualStages) {
  // Equal stages, free transfers: 1F1B idles (p - 1)(F + B) of (m + p - 1)(F + B); with v chunks per stage, each
  // a v-th of the stage, the interleaved schedule idles (p - 1)(F + B) / v (Narayanan et al., SC'21, Sec. 2.2).
  ParallelStrategy strategy;
  strategy.pipeline = 4;
  strategy.micro_batches = 8;
  const double one_f_one_b = pipeline_critical_path_s(strategy, {1, 1, 1, 1}, {2, 2, 2, 2}, {0, 0, 0, 0});
  EXPECT_DOUBLE_EQ(one_f_one_b - 8 * 3.0, 3 * 3.0);
  EXPECT_DOUBLE_EQ(1 - 8 * 3.0 / one_f_one_b, pipeline_bubble_fraction(strategy));
  for (int v : {2, 4}) {
    strategy.schedule = PipelineSchedule::interleaved;
    strategy.virtual_stages = v;
    const std::vector<double> forward(static_cast<std::size_t>(4 * v), 1.0 / v);
    const std::vector<double> backward(static_cast<std::size_t>(4 * v), 2.0 / v);
    const double interleaved = pipeline_critical_path_s(strategy, forward, backward, {0, 0, 0, 0});
    EXPECT_NEAR(interleaved - 8 * 3.0, 3 * 3.0 / v, 1e-12) << v;
    EXPECT_NEAR(1 - 8 * 3.0 / interleaved, pipeline_bubble_fraction(strategy), 1e-15) << v;
  }
}

TEST(PipelineParallelism, TransfersBetweenRacksTakeTheSpineEcmpHashesThemOnto) {
  // Two racks of four one-GPU hosts, four spines; pipeline 2 x data 4 puts stage 0 in one rack and stage 1 in the
  // other (Megatron's order: the pipeline is the outermost dimension). Each rank's transfers to its neighbouring stage
  // must take the route the topology gives that flow, through the spine ECMP hashes it onto, as collectives' flows
  // do; all of them once went through one spine, so that the four transfers shared one uplink.
  nlohmann::json json = uniform_gpt_job({{"pipeline", 2}}, 2, 2, "flow");
  json["cluster"] = {{"racks", 2},
                     {"hosts_per_rack", 4},
                     {"host", {{"gpus", 1}, {"gpu_model", "a100-40gb-sxm4"}, {"nics", 1}}},
                     {"fabric", {{"spines", 4}, {"oversubscription", 1.0}}}};
  const Scenario scenario = scenario_of(json);
  const nlohmann::json routes = vtsim::sim::run_isolated([&] {
    const ResolvedRun run = resolve(scenario, nullptr);
    const Topology& topology = run.topology;
    const auto engine = testing::test_engine(16);
    const ModelParallelLayout& layout = *run.jobs[0].layout;
    const Platform platform(topology, model_parallel_ports(scenario.jobs[0], layout, topology));
    const auto plan = make_model_parallel_plan(scenario.jobs[0], scenario.simulation.fidelity, run.jobs[0].compute,
                                               layout, topology, platform, nullptr);
    nlohmann::json answer = nlohmann::json::array();
    for (std::size_t r = 0; r < layout.rank_gpu.size(); ++r) {
      const int from = layout.rank_gpu[r];
      const int to = layout.rank_gpu[static_cast<std::size_t>(layout.rank_next_stage[r])];
      std::vector<std::string> expected;
      for (const Hop& hop : topology.route(from, to, kPipelineFlow)) {
        expected.push_back(topology.links()[static_cast<std::size_t>(hop.link)].name + (hop.forward ? "_UP" : "_DOWN"));
      }
      std::vector<simgrid::s4u::Link*> links;
      double latency = 0;
      plan->rank_to_next[r].first->route_to(plan->rank_to_next[r].second, links, &latency);
      std::vector<std::string> taken;
      for (const simgrid::s4u::Link* link : links) taken.push_back(link->get_name());
      answer.push_back({{"racks", {topology.location(from).rack, topology.location(to).rack}},
                        {"spine", topology.ecmp_spine(from, to, kPipelineFlow)},
                        {"expected", expected},
                        {"taken", taken}});
    }
    return answer;
  });
  ASSERT_EQ(routes.size(), 8u);
  std::set<int> spines;
  for (const nlohmann::json& route : routes) {
    EXPECT_EQ(route["taken"], route["expected"]);
    if (route["racks"][0] != route["racks"][1]) spines.insert(route["spine"].get<int>());
  }
  EXPECT_GT(spines.size(), 1u) << "a case whose transfers ECMP spreads over several spines";
}

TEST(ScalingEfficiency, OneGpuIsItsOwnReferenceWhateverItsRecomputation) {
  // A job with parallelism alone on one GPU: its reference is itself, the same micro-batches and recomputation, so
  // its efficiency is 1 exactly (it once read 0.75 under full recomputation: the reference recomputed nothing).
  for (const std::string recompute : {"none", "selective", "full"}) {
    nlohmann::json json = uniform_gpt_job({{"recompute", recompute}}, 4, 2, "analytic");
    json["cluster"]["host"]["gpus"] = 1;
    const nlohmann::json job = simulate_in_child(scenario_of(json))["jobs"][0];
    EXPECT_NEAR(job["scaling_efficiency"].get<double>(), 1.0, 1e-12) << recompute;
    EXPECT_EQ(job["scaling_reference"]["gpus"].get<int>(), 1);
  }
}

TEST(ScalingEfficiency, ModelParallelJobsCompareWithOneReplicaAlone) {
  // Tensor 2 x data 2 on one host's four GPUs: the reference is the job with data parallelism 1, simulated on
  // replica 0's two GPUs (ranks 0 and 1 in Megatron's order: GPUs 0 and 1), built here from its own JSON.
  const nlohmann::json json = uniform_gpt_job({{"tensor", 2}, {"recompute", "full"}}, 4, 2, "flow");
  const nlohmann::json job = vtsim::runner::simulate_point(scenario_of(json))["jobs"][0];
  nlohmann::json replica_json = json;
  replica_json["jobs"][0]["gpus"] = 2;
  const nlohmann::json replica = simulate_in_child(scenario_of(replica_json))["jobs"][0];
  EXPECT_EQ(job["scaling_reference"]["gpus"].get<int>(), 2);
  EXPECT_DOUBLE_EQ(job["scaling_reference"]["samples_per_s"].get<double>(), replica["samples_per_s"].get<double>());
  EXPECT_NEAR(job["scaling_efficiency"].get<double>(),
              job["samples_per_s"].get<double>() / (2 * replica["samples_per_s"].get<double>()), 1e-12);
  EXPECT_LE(job["scaling_efficiency"].get<double>(), 1.0 + 1e-12);  // replicas add their gradients' reduction
  // MFU: the model's flop rate per GPU over the A100's dense fp16 peak, 312 TFLOP/s (A100 datasheet).
  const nlohmann::json& parallel = job["parallelism"];
  EXPECT_NEAR(parallel["model_flops_utilization"].get<double>(), parallel["model_tflops_per_gpu"].get<double>() / 312,
              1e-12);
  EXPECT_GT(parallel["hardware_flops_utilization"].get<double>(), parallel["model_flops_utilization"].get<double>());
}

TEST(TensorParallelism, EachTensorCollectiveIsOnTheCriticalPath) {
  // One micro-batch over a tensor group of 4: the step is the split kernels plus the tensor-group collectives, which
  // the result reports; nothing else waits.
  const Scenario scenario = scenario_of(small_gpt_job({{"tensor", 4}}, 1));
  const JobCompute compute = plan_job_compute(scenario, 0, {});
  const KernelTimes& k = compute.stages.front().kernels;
  const double kernels = k.total_s();
  const nlohmann::json job = simulate_in_child(scenario)["jobs"][0];
  const double tensor_s = job["parallelism"]["communication_s"]["tensor_parallel"].get<double>();
  EXPECT_GT(tensor_s, 0);
  EXPECT_NEAR(job["step_time_s"]["mean"].get<double>(), kernels + tensor_s, 1e-9 + 1e-6 * kernels);
}

TEST(ShardedDataParallelism, ZeroStageThreeSendsHalfAgainThePlainAllreducesBytes) {
  // Four data-parallel replicas, one micro-batch: without ZeRO each rank sends a ring allreduce's 2 (d - 1) / d of the
  // 16-bit gradients, 2 bytes per parameter P; ZeRO-1 a reduce-scatter of them and an allgather of the weights,
  // (d - 1) / d each: the same; ZeRO-3 the reduce-scatter and an allgather of the weights before the forward and
  // again before the backward: 1.5 times as much (Rajbhandari et al., SC'20, Sec. 7).
  const auto sent = [](int zero_stage, int micro_batches = 1) {
    const Scenario scenario = scenario_of(small_gpt_job({{"zero_stage", zero_stage}}, micro_batches));
    const nlohmann::json job = simulate_in_child(scenario)["jobs"][0];
    EXPECT_EQ(job["parallelism"]["data"].get<int>(), 4);
    return job["parallelism"]["data_parallel_sent_bytes_per_step"].get<double>();
  };
  const double parameters = plan_job_compute(scenario_of(small_gpt_job({}, 1)), 0, {}).workload.parameters();
  const double plain = sent(0);
  EXPECT_NEAR(plain, 2.0 * 3 / 4 * 2 * parameters, 1e-9 * plain);
  EXPECT_NEAR(sent(1) / plain, 1.0, 1e-12);
  EXPECT_NEAR(sent(3) / plain, 1.5, 1e-12);
  // Four micro-batches: plain DDP still reduces once; ZeRO-2 reduce-scatters each micro-batch's gradients (4 halves)
  // and gathers once (a half): 2.5 times; ZeRO-3 adds 8 gathers to the 4 reduce-scatters: 6 times.
  EXPECT_NEAR(sent(0, 4) / plain, 1.0, 1e-12);
  EXPECT_NEAR(sent(2, 4) / plain, 2.5, 1e-12);
  EXPECT_NEAR(sent(3, 4) / plain, 6.0, 1e-12);
  EXPECT_DOUBLE_EQ(data_parallel_bytes(parameters, 2, 4, 3) / data_parallel_bytes(parameters, 2, 4, 0), 1.5);
}

TEST(Parallelism, ErrorsNameTheKeyAndWhy) {
  try {
    scenario_of(small_gpt_job({{"tensor", 3}}, 1));
    ADD_FAILURE() << "tensor 3 over 4 GPUs must be refused";
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(),
                 "test.json: jobs[0].parallelism: tensor x pipeline (3 x 1) must divide the job's 4 GPUs");
  }
  try {
    // Interleaving needs the micro-batches (2) to be a multiple of the stages (4).
    plan_job_compute(scenario_of(small_gpt_job({{"pipeline", 4}, {"schedule", "interleaved"}}, 2)), 0, {});
    ADD_FAILURE() << "2 micro-batches over 4 interleaved stages must be refused";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("jobs[0].parallelism: schedule"), std::string::npos) << error.what();
  }
  nlohmann::json gradient_accumulation = small_gpt_job({{"tensor", 2}}, 2);
  gradient_accumulation["jobs"][0]["gradient_accumulation"] = 2;
  try {
    scenario_of(gradient_accumulation);
    ADD_FAILURE() << "gradient_accumulation with parallelism must be refused";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("jobs[0].gradient_accumulation"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace vtsim::sim
