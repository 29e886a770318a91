#include "sim/training/training_job.hpp"

#include <cassert>
#include <map>

#include "models/collectives/collective_model.hpp"
#include "models/parallel/zero_sharding.hpp"
#include "sim/training/ddp_reducer.hpp"
#include "sim/training/horovod_coordinator.hpp"
#include "sim/training/training_job_state.hpp"

namespace vtsim::sim {

TrainingJob::TrainingJob(JobPlan plan, TraceRecorder* trace, int trace_pid) : state_(std::make_unique<State>()) {
  state_->plan = std::move(plan);
  state_->trace = trace;
  state_->trace_pid = trace_pid;
}

TrainingJob::~TrainingJob() = default;

namespace {

/// The gradients' bytes, in their order.
std::vector<double> bytes_of(const std::vector<GradientTensor>& tensors) {
  std::vector<double> bytes;
  for (const GradientTensor& tensor : tensors) bytes.push_back(tensor.bytes);
  return bytes;
}

/// Whether the job's reduction policy is Horovod's coordinator, which has an actor: a data-parallel Horovod job with
/// gradients to reduce over several ranks.
bool runs_coordinator(const JobPlan& plan) {
  return plan.model_parallel == nullptr && plan.rank_hosts.size() > 1 && !plan.tensors.empty() &&
         plan.data_parallel == DataParallel::horovod;
}

}  // namespace

GradientGroup TrainingJob::State::gradient_group(int position) const {
  const ModelParallelPlan* mp = plan.model_parallel.get();
  if (mp == nullptr) {
    return {.tensors = &plan.tensors,
            .buckets = &plan.buckets,
            .collective = plan.allreduce.get(),
            .collective_position = position,
            .sent_fraction_counted = 0};
  }
  const auto at = static_cast<std::size_t>(position);
  const ZeroSharding zero = ZeroSharding::of(mp->strategy);
  return {.tensors = &mp->rank_tensors[at],
          .buckets = &mp->rank_buckets[at],
          .collective = mp->data_reduce.empty()
                            ? nullptr
                            : mp->data_reduce[static_cast<std::size_t>(mp->rank_data_group[at])].get(),
          .collective_position = mp->rank_data_position[at],
          .sent_fraction_counted = collective_sent_fraction(zero.gradient_collective(), mp->strategy.data)};
}

void TrainingJob::State::start_reduction() {
  if (runs_coordinator(plan)) {
    auto coordinator = std::make_unique<HorovodCoordinator>(
        HorovodCoordinator::Settings{plan.cycle_time_s, plan.negotiation_s, plan.fusion_threshold_bytes},
        bytes_of(plan.tensors), rank_count(), [this](const FusionBuffer& buffer) {
          for (std::size_t position = 0; position < ranks.size(); ++position) {
            if (!speaks_for[position].empty()) ranks[position]->queue.push(buffer);  // every communication actor
          }
          if (buffer.iteration >= plan.warmup_iterations) ++measured_buffers;
        });
    HorovodCoordinator* running = coordinator.get();
    reduction = std::move(coordinator);
    sg4::Actor::create(plan.name + ".coordinator", plan.rank_hosts.front(), [running] { running->run(); })->daemonize();
    return;
  }
  // A layout per distinct group of gradients: one for all ranks under data parallelism, one per rank under model
  // parallelism.
  std::vector<DdpReducer::Layout> layouts;
  std::map<const std::vector<GradientTensor>*, int> layout_of_tensors;
  std::vector<int> layout_of(static_cast<std::size_t>(rank_count()), -1);
  for (std::size_t position = 0; position < layout_of.size(); ++position) {
    if (weight(position) == 0) continue;  // its class's first member reports for it
    const GradientGroup& group = ranks[position]->gradient_group;
    const auto [found, added] = layout_of_tensors.emplace(group.tensors, static_cast<int>(layouts.size()));
    if (added) layouts.emplace_back(*group.buckets, bytes_of(*group.tensors));
    layout_of[position] = found->second;
  }
  // A full bucket goes to every rank the reporting one feeds.
  const auto dispatch = [this](int position, const FusionBuffer& bucket) {
    for (int member : fed[static_cast<std::size_t>(position)]) {
      ranks[static_cast<std::size_t>(member)]->queue.push(bucket);
    }
    if (position == 0 && bucket.iteration >= plan.warmup_iterations) ++measured_buffers;
  };
  reduction = std::make_unique<DdpReducer>(std::move(layouts), std::move(layout_of), dispatch);
}

void TrainingJob::start() {
  State& s = *state_;
  s.rank0_starts = std::make_unique<Counter>();
  const ModelParallelPlan* mp = s.plan.model_parallel.get();
  s.members.resize(static_cast<std::size_t>(s.rank_count()));
  if (s.plan.rank_classes.empty()) {
    for (int position = 0; position < s.rank_count(); ++position) s.plan.rank_classes.push_back({position});
  }
  s.fed.resize(static_cast<std::size_t>(s.rank_count()));
  for (const std::vector<int>& members : s.plan.rank_classes) {
    s.members[static_cast<std::size_t>(members.front())] = members;
    s.fed[static_cast<std::size_t>(members.front())] =
        s.plan.every_rank_communicates ? members : std::vector<int>{members.front()};
  }
  if (s.plan.allreduce && !s.plan.every_rank_communicates) {
    s.plan.allreduce->set_ranks_that_run(static_cast<int>(s.plan.rank_classes.size()));
  }
  if (mp != nullptr && s.plan.rank_classes.size() < static_cast<std::size_t>(s.rank_count())) {
    // Tensor groups run as one rank each (tensor_group_classes): a group's collectives have one caller. Its data
    // groups are its first members' (tensor position 0), whole; the other data groups have no callers.
    for (const auto* collectives : {&mp->tensor_all_reduce, &mp->tensor_all_gather, &mp->tensor_reduce_scatter}) {
      for (const auto& collective : *collectives) collective->set_ranks_that_run(1);
    }
  }
  for (int position = 0; position < s.rank_count(); ++position) {
    // A rank that its class's first member runs for has no actors, so nothing to share between them, unless it
    // communicates itself.
    const bool has_actors = s.weight(static_cast<std::size_t>(position)) > 0 || s.plan.every_rank_communicates;
    s.ranks.push_back(has_actors ? std::make_unique<RankRuntime>() : nullptr);
    if (!has_actors) continue;
    RankRuntime& rank = *s.ranks.back();
    rank.device = s.make_device(position, rank);
    rank.gradient_group = s.gradient_group(position);
    if (mp == nullptr) continue;
    const std::size_t chunks = mp->stages.size() / static_cast<std::size_t>(mp->strategy.pipeline);
    for (std::size_t c = 0; c < chunks; ++c) {
      rank.from_previous.push_back(std::make_unique<Channel<PipeMessage>>());
      rank.from_next.push_back(std::make_unique<Channel<PipeMessage>>());
    }
  }
  // Who runs a communication actor, for whom: each rank with actors for itself, or a group's first for the group.
  s.speaks_for.resize(static_cast<std::size_t>(s.rank_count()));
  if (s.plan.communication_groups.empty()) {
    for (int position = 0; position < s.rank_count(); ++position) {
      if (s.ranks[static_cast<std::size_t>(position)]) s.speaks_for[static_cast<std::size_t>(position)] = {position};
    }
  } else {
    assert(mp == nullptr && s.plan.data_parallel == DataParallel::horovod && s.plan.every_rank_communicates);
    for (std::size_t g = 0; g < s.plan.communication_groups.size(); ++g) {
      const std::vector<int>& group = s.plan.communication_groups[g];
      s.speaks_for[static_cast<std::size_t>(group.front())] = group;
      s.ranks[static_cast<std::size_t>(group.front())]->gradient_group.collective_position = static_cast<int>(g);
    }
  }
  // A model-parallel rank reduces gradients when its model replica has others (data > 1).
  const bool reduces = mp == nullptr ? s.rank_count() > 1 : mp->strategy.data > 1;
  for (int position = 0; position < s.rank_count(); ++position) {
    if (!s.ranks[static_cast<std::size_t>(position)]) continue;  // its class's first member runs for it
    sg4::Host* host = s.plan.rank_hosts[static_cast<std::size_t>(position)];
    const std::string prefix = s.plan.name + ".rank" + std::to_string(position);
    // Its communication actor, where it has one: for itself, or for its group.
    const auto communicate = [&s, reduces, position, host, &prefix] {
      if (!reduces || s.speaks_for[static_cast<std::size_t>(position)].empty()) return;
      sg4::Actor::create(prefix + ".comm", host, [&s, position] { s.communication_actor(position); })->daemonize();
      ++s.communication_actors;
    };
    if (s.weight(static_cast<std::size_t>(position)) == 0) {
      communicate();  // its class's first member computes for it
      continue;
    }
    if (mp == nullptr) {
      sg4::Actor::create(prefix + ".compute", host, [&s, position] { s.compute_actor(position); });
    } else {
      sg4::Actor::create(prefix + ".compute", host, [&s, position] { s.model_parallel_actor(position); });
      if (ZeroSharding::of(mp->strategy).shards_weights() && reduces) {
        sg4::Actor::create(prefix + ".gather", host, [&s, position] { s.weight_gather_actor(position); })
            ->daemonize();
      }
    }
    communicate();
    if (s.trace != nullptr) {
      s.trace->name_thread(s.trace_pid, 2 * position, "rank " + std::to_string(position) + " compute");
      s.trace->name_thread(s.trace_pid, 2 * position + 1, "rank " + std::to_string(position) + " allreduce");
    }
  }
  if (reduces) s.start_reduction();
  if (s.trace != nullptr) s.trace->name_process(s.trace_pid, "job " + s.plan.name);
}

std::size_t TrainingJob::actor_count() const {
  // As start() creates them: per rank that computes, its compute actor (and under ZeRO-3 its gather actor); per rank
  // that communicates, or per group of JobPlan::communication_groups, a communication actor; Horovod's coordinator.
  const JobPlan& plan = state_->plan;
  const std::size_t ranks = plan.rank_hosts.size();
  const std::size_t computing = plan.rank_classes.empty() ? ranks : plan.rank_classes.size();
  const ModelParallelPlan* mp = plan.model_parallel.get();
  const bool reduces = mp == nullptr ? ranks > 1 : mp->strategy.data > 1;
  std::size_t actors = computing;
  if (mp != nullptr && ZeroSharding::of(mp->strategy).shards_weights() && reduces) actors += computing;
  if (reduces) {
    actors += !plan.communication_groups.empty() ? plan.communication_groups.size()
              : plan.every_rank_communicates     ? ranks
                                                 : computing;
  }
  if (runs_coordinator(plan)) ++actors;
  return actors;
}

std::vector<std::vector<IterationRecord>> TrainingJob::records() const {
  std::vector<std::vector<IterationRecord>> records;
  for (std::size_t position = 0; position < state_->ranks.size(); ++position) {
    if (state_->weight(position) > 0) records.push_back(state_->ranks[position]->records);
  }
  return records;
}

int TrainingJob::communication_actors() const { return state_->communication_actors; }

std::vector<int> TrainingJob::record_weights() const {
  std::vector<int> weights;
  for (std::size_t position = 0; position < state_->members.size(); ++position) {
    if (state_->weight(position) > 0) weights.push_back(state_->weight(position));
  }
  return weights;
}

double TrainingJob::allreduce_bytes_per_iteration() const {
  if (const ModelParallelPlan* mp = state_->plan.model_parallel.get()) {
    // Rank 0's data-parallel group: its stage's share of the gradients.
    double bytes = 0;
    for (const GradientTensor& tensor : mp->rank_tensors.front()) bytes += tensor.bytes;
    return mp->strategy.data > 1 ? bytes : 0.0;
  }
  double bytes = 0;
  for (const GradientTensor& tensor : state_->plan.tensors) bytes += tensor.bytes;
  return state_->rank_count() > 1 ? bytes : 0.0;
}

double TrainingJob::data_parallel_sent_bytes_per_iteration() const {
  const auto& rank = *state_->ranks.front();
  return rank.records.empty() ? 0.0 : rank.data_parallel_sent_bytes / static_cast<double>(rank.records.size());
}

double TrainingJob::allreduces_per_iteration() const {
  return static_cast<double>(state_->measured_buffers) / std::max(1, measured_iterations_run());
}

int TrainingJob::next_unstarted_iteration() const { return state_->next_unstarted; }

Counter& TrainingJob::rank0_iteration_starts() { return *state_->rank0_starts; }

std::size_t TrainingJob::add_pause(OperationsPause pause) {
  assert(pause.iteration >= state_->next_unstarted && pause.ranks.size() == state_->plan.rank_hosts.size());
  state_->pauses.push_back(std::move(pause));
  state_->pause_taken.push_back(0);
  return state_->pauses.size() - 1;
}

bool TrainingJob::pause_taken(std::size_t index) const { return state_->pause_taken[index] != 0; }

int TrainingJob::pause_iteration(std::size_t index) const { return state_->pauses[index].iteration; }

std::optional<std::size_t> TrainingJob::restart_in_progress(double now_s) const {
  for (std::size_t k = 0; k < state_->pauses.size(); ++k) {
    if (state_->pauses[k].restart && state_->pauses[k].until_s > now_s) return k;
  }
  return std::nullopt;
}

void TrainingJob::extend_restart(std::size_t index, double until_s) {
  OperationsPause& pause = state_->pauses[index];
  assert(pause.restart);
  pause.until_s = std::max(pause.until_s, until_s);
}

std::optional<std::size_t> TrainingJob::last_restart() const {
  for (std::size_t k = state_->pauses.size(); k-- > 0;) {
    if (state_->pauses[k].restart) return k;
  }
  return std::nullopt;
}

double TrainingJob::restart_end_s(std::size_t index) const {
  assert(state_->pauses[index].restart);
  return state_->pauses[index].until_s;
}

int TrainingJob::measured_iterations_run() const {
  const auto run = static_cast<int>(state_->ranks.empty() ? 0 : state_->ranks.front()->records.size());
  return std::max(0, run - state_->plan.warmup_iterations);
}

CheckpointMark TrainingJob::last_checkpoint() const { return state_->checkpoint; }

const std::vector<int>& TrainingJob::rank_host_indices() const { return state_->plan.rank_host_index; }

}  // namespace vtsim::sim
