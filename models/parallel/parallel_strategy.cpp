#include "models/parallel/parallel_strategy.hpp"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <tuple>

#include "models/collectives/collective_model.hpp"
#include "models/core/units.hpp"

namespace vtsim {
namespace {

ParallelStrategy strategy_of(int t, int p, int d, int zero_stage, int micro_batch_size, int micro_batches,
                             Recompute recompute) {
  ParallelStrategy strategy;
  strategy.tensor = t;
  strategy.pipeline = p;
  strategy.data = d;
  strategy.zero_stage = zero_stage;
  strategy.micro_batch_size = micro_batch_size;
  strategy.micro_batches = micro_batches;
  strategy.recompute = recompute;
  strategy.sequence_parallel = t > 1;  // with tensor parallelism, as practitioners run it
  return strategy;
}

/// Whether t GPUs can split the attention's heads: whole query heads and whole key-value heads each.
bool splits_heads(const TransformerShape& shape, int t) {
  return shape.heads % t == 0 && (shape.kv_heads <= 0 || shape.kv_heads % t == 0);
}

std::vector<int> divisors(int n) {
  std::vector<int> all;
  for (int k = 1; k <= n; ++k) {
    if (n % k == 0) all.push_back(k);
  }
  return all;
}

}  // namespace

std::string_view to_string(PipelineSchedule schedule) {
  switch (schedule) {
    case PipelineSchedule::gpipe: return "gpipe";
    case PipelineSchedule::one_f_one_b: return "1f1b";
    case PipelineSchedule::interleaved: return "interleaved";
  }
  return "?";
}

std::string_view to_string(Recompute recompute) {
  switch (recompute) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
  }
  return "?";
}

std::string describe(const ParallelStrategy& strategy) {
  std::string text = "TP " + std::to_string(strategy.tensor) + " x PP " + std::to_string(strategy.pipeline) +
                     " x DP " + std::to_string(strategy.data);
  if (strategy.zero_stage > 0) text += ", ZeRO-" + std::to_string(strategy.zero_stage);
  text += ", micro-batch " + std::to_string(strategy.micro_batch_size) + " x " +
          std::to_string(strategy.micro_batches);
  if (strategy.pipeline > 1) text += ", " + std::string(to_string(strategy.schedule));
  if (strategy.recompute != Recompute::none) {
    text += ", " + std::string(to_string(strategy.recompute)) + " recomputation";
  }
  if (strategy.sequence_parallel) text += ", sequence parallel";
  if (!strategy.stage_layers.empty()) {
    text += ", blocks per stage";
    for (std::size_t k = 0; k < strategy.stage_layers.size(); ++k) {
      text += (k == 0 ? " " : "/") + std::to_string(strategy.stage_layers[k]);
    }
  }
  return text;
}

std::vector<int> blocks_per_virtual_stage(const ParallelStrategy& strategy, int layers) {
  const int stages = strategy.pipeline * strategy.virtual_stages;
  assert(stages >= 1);
  if (!strategy.stage_layers.empty()) {
    assert(strategy.stage_layers.size() == static_cast<std::size_t>(stages));
    return strategy.stage_layers;
  }
  assert(layers % stages == 0);
  return std::vector<int>(static_cast<std::size_t>(stages), layers / stages);
}

double busiest_stage_share(const ParallelStrategy& strategy, int layers) {
  const std::vector<int> blocks = blocks_per_virtual_stage(strategy, layers);
  int busiest = 0;
  for (int stage = 0; stage < strategy.pipeline; ++stage) {
    int held = 0;
    for (std::size_t k = static_cast<std::size_t>(stage); k < blocks.size();
         k += static_cast<std::size_t>(strategy.pipeline)) {
      held += blocks[k];
    }
    busiest = std::max(busiest, held);
  }
  return static_cast<double>(busiest) / layers;
}

double activation_fraction(const TransformerShape& shape, const ParallelStrategy& strategy) {
  assert(shape.layers > 0 && strategy.tensor >= 1);
  const double t = strategy.tensor;
  // 5 a s / h: scores, softmax, dropout; none under fused attention, which stores no scores (its per-row softmax
  // statistics, a s b values a layer, are left out).
  const double attention = shape.fused_attention ? 0.0 : 5.0 * shape.heads * shape.sequence / shape.hidden;
  const double unsplit = 34.0 + attention;
  const bool split_all = strategy.sequence_parallel || strategy.tensor == 1;
  double kept = 0;
  switch (strategy.recompute) {
    case Recompute::none: kept = split_all ? unsplit / t : 10.0 + 24.0 / t + attention / t; break;
    case Recompute::selective: kept = split_all ? 34.0 / t : 10.0 + 24.0 / t; break;
    case Recompute::full: kept = split_all ? 2.0 / t : 2.0; break;
  }
  return kept / unsplit;
}

double activations_in_flight(const ParallelStrategy& strategy) {
  assert(strategy.pipeline >= 1 && strategy.micro_batches >= 1 && strategy.virtual_stages >= 1);
  const double p = strategy.pipeline;
  const double m = strategy.micro_batches;
  switch (strategy.schedule) {
    case PipelineSchedule::gpipe: return m / p;
    case PipelineSchedule::one_f_one_b: return std::min(p, m) / p;
    case PipelineSchedule::interleaved: return std::min(p, m) / p * (1.0 + (p - 1.0) / (p * strategy.virtual_stages));
  }
  return 1.0;
}

MemoryFootprint strategy_memory(const Workload& workload, const ParallelStrategy& strategy, Precision precision) {
  assert(workload.transformer.layers > 0);
  assert(strategy.tensor >= 1 && strategy.pipeline >= 1 && strategy.data >= 1 && strategy.micro_batch_size >= 1);
  // The busiest stage's share of the blocks (1 / p when they split equally); the embedding's and the head's weights
  // are counted spread over the stages, as for an equal split.
  const double stage_share = busiest_stage_share(strategy, workload.transformer.layers);
  const double split = static_cast<double>(strategy.tensor) / stage_share;
  const double d = strategy.data;
  const int z = strategy.zero_stage;
  const StateBytesPerParameter bytes = state_bytes_per_parameter(workload, precision);
  const bool mixed = bytes.half > 0;
  const double parameters = workload.parameters() / split;
  const double trainable = workload.trainable_parameters() / split;
  // The fp32 master copy is optimizer state under AMP (ZeRO shards it from stage 1); without AMP it is the weights
  // the kernels read (sharded from stage 3).
  const double master_shards = (mixed ? z >= 1 : z >= 3) ? d : 1.0;
  MemoryFootprint memory;
  memory.weights_bytes = parameters * (bytes.master / master_shards + bytes.half / (z >= 3 ? d : 1.0));
  memory.gradients_bytes = trainable * bytes.gradient / (z >= 2 ? d : 1.0);
  memory.optimizer_bytes = trainable * bytes.optimizer / (z >= 1 ? d : 1.0);
  memory.activations_bytes = strategy.micro_batch_size * workload.stored_activation_bytes(activation_bytes(precision)) *
                             activation_fraction(workload.transformer, strategy) *
                             activations_in_flight(strategy) * stage_share * strategy.pipeline;
  memory.workspace_bytes = workspace_allowance_bytes();
  return memory;
}

double pipeline_bubble_fraction(const ParallelStrategy& strategy) {
  const double p = strategy.pipeline;
  const double m = strategy.micro_batches;
  const double v = strategy.schedule == PipelineSchedule::interleaved ? strategy.virtual_stages : 1.0;
  return (p - 1.0) / (v * m + p - 1.0);
}

double transformer_iteration_flop(const TransformerShape& shape, double sequences, bool recomputation) {
  const double s = shape.sequence;
  const double l = shape.layers;
  const double h = shape.hidden;
  // Per token and block, forward: 2 flop per weight of its matrices (Q, K and V: h x (h + 2 kv h / a); the
  // projection h x h; the MLP's two, or SwiGLU's three, h x ffn), and Q.K^T and P.V, 2 s h each. Backward twice the
  // forward; full recomputation the blocks' forward once more. The LM head, 2 V h forward, is not recomputed.
  // A GPT block (no grouping, ffn 4h) has 12 h^2 weights: 72 B s l h^2 (1 + s / 6h + V / 12 l h), NARAYANAN's.
  const double kv_heads = shape.kv_heads > 0 ? shape.kv_heads : shape.heads;
  const double ffn = shape.ffn > 0 ? shape.ffn : 4.0 * h;
  const double attention_weights = h * (h + 2.0 * h * kv_heads / shape.heads) + h * h;
  const double block_weights = attention_weights + (shape.swiglu ? 3.0 : 2.0) * h * ffn;
  const double block_forward = 2.0 * block_weights + 4.0 * s * h;
  const double passes = recomputation ? 4.0 : 3.0;
  return sequences * s * (passes * l * block_forward + 6.0 * shape.vocab * h);
}

double tensor_parallel_bytes_per_layer(const TransformerShape& shape, int micro_batch_size, int tensor,
                                       double element_bytes) {
  const double elements = static_cast<double>(micro_batch_size) * shape.sequence * shape.hidden;
  const double ring = collective_sent_fraction(Collective::allreduce, tensor);  // what one GPU sends, per element
  return 4.0 * ring * elements * element_bytes;  // two allreduces forward, two backward
}

double data_parallel_bytes(double parameters, double element_bytes, int data, int zero_stage) {
  const double allreduce = collective_sent_fraction(Collective::allreduce, data) * parameters * element_bytes;
  return zero_stage >= 3 ? 1.5 * allreduce : allreduce;
}

std::vector<std::pair<ParallelStrategy, MemoryFootprint>> strategies_that_fit(const Workload& workload, int gpus,
                                                                             int gpus_per_host, int micro_batch_size,
                                                                             Precision precision,
                                                                             double capacity_bytes,
                                                                             std::size_t limit) {
  const TransformerShape& shape = workload.transformer;
  std::vector<std::pair<ParallelStrategy, MemoryFootprint>> fitting;
  if (shape.layers <= 0) return fitting;
  for (int t : divisors(std::min(gpus, gpus_per_host))) {
    if (gpus % t != 0 || !splits_heads(shape, t)) continue;
    for (int p : divisors(gpus / t)) {
      if (p > shape.layers) continue;
      const int d = gpus / (t * p);
      for (int z = 0; z <= (d > 1 ? 3 : 0); ++z) {
        for (Recompute recompute : {Recompute::none, Recompute::selective, Recompute::full}) {
          // 1F1B holds min(p, m) in flight: more micro-batches than p cost no memory.
          const ParallelStrategy strategy = strategy_of(t, p, d, z, micro_batch_size, p, recompute);
          const MemoryFootprint memory = strategy_memory(workload, strategy, precision);
          if (memory.total_bytes() <= capacity_bytes) fitting.emplace_back(strategy, memory);
        }
      }
    }
  }
  // Simplest first: fewest techniques, then the smallest model split, ZeRO stage and recomputation.
  const auto key = [](const ParallelStrategy& s) {
    const int techniques = (s.tensor > 1) + (s.pipeline > 1) + (s.zero_stage > 0) + (s.recompute != Recompute::none);
    return std::make_tuple(techniques, s.tensor * s.pipeline, s.zero_stage, static_cast<int>(s.recompute));
  };
  std::stable_sort(fitting.begin(), fitting.end(),
                   [&](const auto& a, const auto& b) { return key(a.first) < key(b.first); });
  if (fitting.size() > limit) fitting.resize(limit);
  return fitting;
}

std::vector<PlanCandidate> plan_candidates(const Workload& workload, int gpus, int host_group, int global_batch,
                                           int max_micro_batch, Precision precision, double capacity_bytes) {
  const TransformerShape& shape = workload.transformer;
  std::vector<PlanCandidate> candidates;
  if (shape.layers <= 0) return candidates;
  for (int t : divisors(host_group)) {
    if (gpus % t != 0 || !splits_heads(shape, t)) continue;
    for (int p : divisors(gpus / t)) {
      const int d = gpus / (t * p);
      if (shape.layers % p != 0 || global_batch % d != 0) continue;
      const int per_replica = global_batch / d;
      for (int b = 1; b <= max_micro_batch && per_replica % b == 0; b *= 2) {
        for (int z = 0; z <= (d > 1 ? 3 : 0); ++z) {
          for (Recompute recompute : {Recompute::none, Recompute::selective, Recompute::full}) {
            const ParallelStrategy strategy = strategy_of(t, p, d, z, b, per_replica / b, recompute);
            const MemoryFootprint memory = strategy_memory(workload, strategy, precision);
            candidates.push_back({strategy, memory, memory.total_bytes() <= capacity_bytes});
          }
        }
      }
    }
  }
  return candidates;
}

bool no_slower_by_construction(const ParallelStrategy& a, const ParallelStrategy& b) {
  if (a.tensor != b.tensor || a.pipeline != b.pipeline || a.micro_batch_size != b.micro_batch_size ||
      a.schedule != b.schedule || a.virtual_stages != b.virtual_stages || a.sequence_parallel != b.sequence_parallel ||
      a.stage_layers != b.stage_layers || a.scatter_gather != b.scatter_gather) {
    return false;
  }
  const auto rank = [](int zero) { return zero <= 1 ? 0 : zero - 1; };  // stages 0 and 1 alike
  const bool zero_no_more = a.zero_stage == b.zero_stage || rank(a.zero_stage) < rank(b.zero_stage);
  return zero_no_more && static_cast<int>(a.recompute) <= static_cast<int>(b.recompute);
}

std::vector<std::size_t> undominated_candidates(const std::vector<PlanCandidate>& candidates) {
  std::vector<std::size_t> kept;
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    if (!candidates[k].fits) continue;
    bool dominated = false;
    for (std::size_t j = 0; j < candidates.size() && !dominated; ++j) {
      const ParallelStrategy& a = candidates[j].strategy;
      const ParallelStrategy& b = candidates[k].strategy;
      const bool same = a.zero_stage == b.zero_stage && a.recompute == b.recompute;
      dominated = j != k && candidates[j].fits && !same && no_slower_by_construction(a, b);
    }
    if (!dominated) kept.push_back(k);
  }
  return kept;
}

}  // namespace vtsim
