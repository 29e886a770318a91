#pragma once
// The inside of a TrainingJob, shared by the files that run its actors: training_job.cpp (starts them; operations)
// and model_parallel_rank.cpp (tensor, pipeline and sharded parallelism). Not part of the interface: include only from
// those two. Here: the loop every rank's compute actor runs (run_iterations), the data-parallel rank inside it, and the
// communication actor. The policies plugged into the loop are sim/training/gradient_reduction.hpp (Horovod's
// coordinator, DDP's reducer) and sim/training/rank_device.hpp (a whole GPU or MIG slice, a time-sliced vGPU).

#include <algorithm>
#include <cassert>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include "models/collectives/collective_model.hpp"
#include "models/compute/interference.hpp"
#include "models/parallel/zero_sharding.hpp"
#include "sim/engine/sync.hpp"
#include "sim/training/gradient_reduction.hpp"
#include "sim/training/rank_classes.hpp"
#include "sim/training/rank_device.hpp"
#include "sim/training/training_job.hpp"

namespace vtsim::sim {

namespace sg4 = simgrid::s4u;

namespace detail {

/// The data-parallel group a rank reduces its gradients in, decided once when the job starts
/// (TrainingJob::State::gradient_group): the whole job under data parallelism, its stage's replicas under model
/// parallelism. The loop and the communication actor ask it instead of asking which parallelism runs.
struct GradientGroup {
  const std::vector<GradientTensor>* tensors = nullptr;  ///< the gradients it reduces, in the order backward makes them
  const std::vector<std::vector<int>>* buckets = nullptr;  ///< DDP's buckets: indices into `tensors`, in launch order
  SimulatedCollective* collective = nullptr;  ///< what reduces its buffers; null when the group is one rank
  int collective_position = 0;                ///< the rank's position in that collective
  /// Bytes the rank sends per byte of a buffer it reduces, counted in RankRuntime::data_parallel_sent_bytes for the
  /// model-parallel traffic report; 0 under data parallelism, which does not count them.
  double sent_fraction_counted = 0;
};

/// What one rank shares between its compute and communication actors.
struct RankRuntime {
  Channel<FusionBuffer> queue;       ///< allreduces to run, in order
  Counter tensors_reduced;           ///< cumulative count of gradients reduced on this rank
  bool collective_in_flight = false;
  double kernel_demand_Bps = 0;  ///< memory bandwidth the running stretch of kernels asks for (0: none running)
  double sliced_rate = 1;  ///< time-sliced vGPU: the speed its kernels run at now (1 - SM share with a collective)
  bool kernels_running = false;  ///< run_shared is running the rank's kernels
  /// Signalled whenever collective_in_flight changes while kernels run, so that they re-rate.
  sg4::MutexPtr collective_mutex = sg4::Mutex::create();
  sg4::ConditionVariablePtr collective_changed = sg4::ConditionVariable::create();
  /// Time the host issued kernels while this rank waited (for its vGPU's turn, for an allreduce), in the current
  /// iteration: the host does not wait with it, so that much of its later stalls is already behind it (the queue
  /// holds the kernels).
  double host_ahead_s = 0;
  /// When the loader has the next batch ready: it prepares batches back to back beside the device.
  double next_batch_ready_s = 0;
  /// When the rank's last collective of gradients ended.
  double reduced_at_s = 0;
  /// What its kernels run on: a whole GPU or a MIG slice, or a time-sliced vGPU (sim/training/rank_device.hpp).
  std::unique_ptr<RankDevice> device;
  std::vector<IterationRecord> records;
  // Model parallelism (JobPlan::model_parallel): per model chunk, the messages from the previous and the next
  // virtual stage; ZeRO-3, the layer passes the compute actor has begun and those whose weights are gathered.
  std::vector<std::unique_ptr<Channel<PipeMessage>>> from_previous, from_next;
  Counter layers_begun;
  Counter layers_gathered;
  /// Model parallelism: bytes this rank has sent in its data group's collectives (a ring's share of each buffer).
  double data_parallel_sent_bytes = 0;
  GradientGroup gradient_group;
};

}  // namespace detail

using detail::GradientGroup;
using detail::RankRuntime;

struct TrainingJob::State {
  JobPlan plan;
  TraceRecorder* trace = nullptr;
  int trace_pid = 0;
  std::vector<std::unique_ptr<RankRuntime>> ranks;  ///< per position; null where another position runs for it
  /// The reduction policy the ranks report their gradients to: Horovod's coordinator or DDP's reducer; null when the
  /// job reduces nothing.
  std::unique_ptr<GradientReduction> reduction;
  long measured_buffers = 0;  ///< collectives of gradients formed in the measured iterations (rank 0's, under DDP)
  // vSphere operations: pauses to take, the iterations started, the last checkpoint.
  std::deque<OperationsPause> pauses;  // a deque: a rank sleeping in one may see others added
  std::vector<char> pause_taken;
  int next_unstarted = 0;
  std::unique_ptr<Counter> rank0_starts;
  CheckpointMark checkpoint;
  /// Per position, the class's positions when it runs for them (itself first; itself alone unreduced), empty when
  /// another position runs for it.
  std::vector<std::vector<int>> members;

  /// How many ranks `position` stands for: 0 when another runs for it.
  int weight(std::size_t position) const { return static_cast<int>(members[position].size()); }
  /// Per position that computes, the positions whose communication actors its gradients feed: its class when every
  /// rank communicates (JobPlan::every_rank_communicates), else itself.
  std::vector<std::vector<int>> fed;
  /// Per position that runs a communication actor, the positions it communicates for (itself first; its group's under
  /// JobPlan::communication_groups), empty for the others.
  std::vector<std::vector<int>> speaks_for;
  int communication_actors = 0;  ///< as start() created them

  int rank_count() const { return static_cast<int>(plan.rank_hosts.size()); }
  int tensor_count() const { return static_cast<int>(plan.tensors.size()); }

  /// The data-parallel group rank `position` reduces its gradients in (training_job.cpp).
  GradientGroup gradient_group(int position) const;

  /// Sets the job's reduction policy (training_job.cpp): Horovod's coordinator (a data-parallel job under Horovod with
  /// gradients), whose actor it starts, or DDP's reducer, with the buckets of each rank that computes (one layout for
  /// all under data parallelism).
  void start_reduction();
  /// Runs the model-parallel iteration loop of one rank (model_parallel_rank.cpp).
  void model_parallel_actor(int position);
  /// ZeRO-3: gathers the rank's sharded weights layer by layer, one layer ahead of its compute.
  void weight_gather_actor(int position);

  /// Whether the rank's GPU memory is modelled as shared between its kernels and its collective.
  bool memory_shared(int position) const {
    return plan.platform != nullptr && plan.collective_memory_demand_Bps > 0 &&
           plan.rank_memory_gpu[static_cast<std::size_t>(position)] >= 0;
  }

  /// Narrows the memory link of the rank's GPU to the collective's share while kernels and a collective both run and
  /// the share is below the collective's demand, and gives it all of the memory otherwise.
  void update_memory_link(int position, const RankRuntime& rank) const {
    if (!memory_shared(position)) return;
    double collective_Bps = plan.memory_Bps;
    if (rank.collective_in_flight && rank.kernel_demand_Bps > 0) {
      const double share =
          share_memory(plan.memory_Bps, rank.kernel_demand_Bps, plan.collective_memory_demand_Bps).collective_Bps;
      // A share that meets the collective's demand does not bind its flows: leave the link as it is (no re-rating).
      if (share < plan.collective_memory_demand_Bps) collective_Bps = share;
    }
    plan.platform->set_collective_memory(plan.rank_memory_gpu[static_cast<std::size_t>(position)], collective_Bps);
  }

  /// The rate at which the rank's running kernels progress, as a fraction of their speed alone: 1 without a
  /// collective in flight; with one, the lesser of the SMs it leaves them and their share of memory over their demand.
  double kernel_rate(int position, const RankRuntime& rank) const {
    if (!rank.collective_in_flight) return 1.0;
    double rate = 1.0 - plan.collective_sm_share;
    if (memory_shared(position) && rank.kernel_demand_Bps > 0) {
      const MemoryShares shares =
          share_memory(plan.memory_Bps, rank.kernel_demand_Bps, plan.collective_memory_demand_Bps);
      rate = std::min(rate, shares.kernels_Bps / rank.kernel_demand_Bps);
    }
    return rate;
  }

  /// Runs `stretch`'s kernels (gpu_s, their time alone) while the rank's collectives come and go, at kernel_rate,
  /// re-rated whenever one starts or ends. Returns the time taken.
  double run_shared(int position, RankRuntime& rank, const Stretch& stretch) {
    const double start = sg4::Engine::get_clock();
    double remaining = stretch.gpu_s;
    std::unique_lock lock(*rank.collective_mutex);
    rank.kernels_running = true;
    set_kernel_demand(position, stretch.gpu_s > 0 ? stretch.bytes / stretch.gpu_s : 0.0);
    while (remaining > 0) {
      const double rate = kernel_rate(position, rank);
      const double from = sg4::Engine::get_clock();
      if (rank.collective_changed->wait_for(lock, remaining / rate) == std::cv_status::timeout) break;
      remaining -= (sg4::Engine::get_clock() - from) * rate;
    }
    rank.kernels_running = false;
    set_kernel_demand(position, 0);
    return sg4::Engine::get_clock() - start;
  }

  /// Records the memory bandwidth that `position`'s running kernels ask for, on the rank and on every member whose
  /// communication it feeds (they run the same kernels), and re-rates their memory links.
  void set_kernel_demand(int position, double demand_Bps) {
    for (int member : fed[static_cast<std::size_t>(position)]) {
      RankRuntime& rank = *ranks[static_cast<std::size_t>(member)];
      rank.kernel_demand_Bps = demand_Bps;
      update_memory_link(member, rank);
    }
  }

  /// The device policy of rank `position` (set as the job starts): a time-sliced vGPU where its GPU has a scheduler,
  /// else a whole GPU or MIG slice whose kernels share it with the rank's collectives (run_shared).
  std::unique_ptr<RankDevice> make_device(int position, RankRuntime& rank) {
    const auto at = static_cast<std::size_t>(position);
    if (!plan.rank_schedulers.empty() && plan.rank_schedulers[at] != nullptr) {
      return std::make_unique<TimeSlicedDevice>(*plan.rank_schedulers[at], plan.rank_vgpus[at], &rank.sliced_rate);
    }
    return std::make_unique<DedicatedDevice>(
        [this, position, &rank](const Stretch& stretch) { return run_shared(position, rank, stretch); });
  }

  /// Runs a stretch of kernels on the calling rank's device: first the time it waits for its host with nothing to run
  /// (`stall`, less what the host got ahead while the rank waited), then `gpu_s` of kernels, slowed while a
  /// collective runs there. The durations come from the compute model, so the actor waits rather than executing on
  /// SimGrid's CPU model, which would add nothing for a device that runs one kernel at a time. A rank that waited for
  /// its vGPU's turn has its host that much further ahead.
  void run_kernel(RankRuntime& rank, const Stretch& stretch, IterationRecord& record) {
    // Below a nanosecond the difference is the rounding of the compute model's timeline, not a stall.
    double stall = stretch.total_s - stretch.gpu_s > 1e-9 ? stretch.total_s - stretch.gpu_s : 0.0;
    if (stall + stretch.gpu_s <= 0) return;
    const double absorbed = std::min(stall, rank.host_ahead_s);
    rank.host_ahead_s -= absorbed;
    stall -= absorbed;
    const DeviceRun ran = rank.device->run(stall, stretch);
    record.scheduler_wait_s += ran.waited_s;
    rank.host_ahead_s += ran.waited_s;
    record.compute_s += stall + ran.busy_s;
    record.interference_s += ran.busy_s - stretch.gpu_s;
  }

  /// Tells the rank's device that the rank will not run kernels until its next run_kernel() (a time-sliced GPU may
  /// turn to another vGPU).
  void gpu_idle(int position) { ranks[static_cast<std::size_t>(position)]->device->idle(); }

  /// Reports to the reduction policy that `position`'s backward pass of micro-batch `micro_batch` made `tensor`'s
  /// gradient. A rank standing for its class brings its members' gradients too: its slowest member's are ready with
  /// it.
  void gradient_ready(int iteration, int micro_batch, int position, int tensor) {
    reduction->gradient_ready({iteration, micro_batch, position, tensor, weight(static_cast<std::size_t>(position))});
  }

  /// What one iteration of a rank's schedule tells the loop around it (run_iterations) for the timeline.
  struct IterationSpans {
    const char* passes = "";          ///< the name of the first span: the schedule's passes up to backward_start_s
    double backward_start_s = -1;     ///< where the last forward pass ended; negative: the passes are one span
    double backward_end_s = 0;        ///< the rank's last backward kernel ended
    const char* reduction_wait = "";  ///< the name of the wait for the gradients' reduction, if any
    double reduced_s = 0;             ///< the gradients were reduced: the optimizer began
  };
  using IterationBody = std::function<IterationSpans(int iteration, IterationRecord& record)>;

  /// The loop every rank's compute actor runs, whatever its schedule: per iteration, the pauses due (a vMotion's
  /// stun, a restart that sends the job back to its checkpoint), rank 0's start counted for the operations, then
  /// `body` (the schedule's passes, the wait for its reductions, the optimizer), then the iteration counted towards
  /// training, a checkpoint when one is due, the record kept and drawn on the timeline. At the end the GPU is let go.
  void run_iterations(int position, const IterationBody& body) {
    RankRuntime& rank = *ranks[static_cast<std::size_t>(position)];
    const int total = plan.warmup_iterations + plan.iterations;
    int progress = 0;  // iterations that count towards training: a host failure sends it back to a checkpoint
    for (int iteration = 0; progress < total; ++iteration) {
      IterationRecord record;
      next_unstarted = std::max(next_unstarted, iteration + 1);
      take_pauses(position, iteration, rank, record, progress);
      // After its pauses: an event at this iteration comes as rank 0 begins it (not while it waits for a restart).
      if (position == 0) rank0_starts->add(1);
      rank.host_ahead_s = 0;  // the iteration's end synchronises host and device
      const IterationSpans spans = body(iteration, record);
      ++progress;
      write_checkpoint_if_due(position, iteration, progress, record);
      rank.records.push_back(record);
      if (trace != nullptr) {
        const int thread = 2 * position;
        if (spans.backward_start_s >= 0) {
          trace->span(trace_pid, thread, spans.passes, record.start_s, spans.backward_start_s);
          trace->span(trace_pid, thread, "backward", spans.backward_start_s, spans.backward_end_s);
        } else {
          trace->span(trace_pid, thread, spans.passes, record.start_s, spans.backward_end_s);
        }
        if (spans.reduced_s > spans.backward_end_s) {
          trace->span(trace_pid, thread, spans.reduction_wait, spans.backward_end_s, spans.reduced_s);
        }
        trace->span(trace_pid, thread, "optimizer", spans.reduced_s, record.end_s);
      }
    }
    gpu_idle(position);
  }

  /// Waits for the loader's next batch, which it began to prepare when the rank took the previous one (the first at
  /// time 0): the loader prepares batches back to back beside the device.
  void wait_for_batch(RankRuntime& rank, IterationRecord& record) {
    rank.next_batch_ready_s += plan.data_loading_s;
    const double asked = sg4::Engine::get_clock();
    if (rank.next_batch_ready_s > asked) {
      sg4::this_actor::sleep_until(rank.next_batch_ready_s);
      record.data_wait_s += rank.next_batch_ready_s - asked;
    }
  }

  /// A data-parallel rank (no model parallelism): per iteration, its micro-batches' forward and backward passes,
  /// each layer's gradient handed to the reduction as the last micro-batch's backward makes it, the wait for all of
  /// them reduced, and the optimizer.
  void compute_actor(int position) {
    RankRuntime& rank = *ranks[static_cast<std::size_t>(position)];
    const KernelTimes& kernels = plan.kernels;
    Stretch forward;
    for (std::size_t l = 0; l < kernels.forward_s.size(); ++l) {
      forward.add(kernels.forward_s[l], kernels.forward_gpu_s[l], kernels.forward_bytes[l]);
    }
    const Stretch optimizer{kernels.optimizer_s, kernels.optimizer_gpu_s, kernels.optimizer_bytes};
    // tensor_of_layer[l] = index of layer l's gradient tensor, or -1.
    std::vector<int> tensor_of_layer(kernels.backward_s.size(), -1);
    for (int t = 0; t < tensor_count(); ++t) tensor_of_layer[static_cast<std::size_t>(plan.tensors[t].layer)] = t;
    const bool needs_allreduce = rank_count() > 1;
    // The rank runs with its class's slowest member's draws (sim/training/rank_classes.hpp); alone, with its own.
    const std::vector<int>& class_members = members[static_cast<std::size_t>(position)];
    std::vector<std::uint64_t> streams;
    for (int member : class_members) streams.push_back(plan.rank_streams[static_cast<std::size_t>(member)]);
    ClassNoise noise(plan.seed, streams, plan.step_time_cv, plan.stalls);
    const double pass_s = kernels.total_s() - kernels.optimizer_s;  // forward and backward of one micro-batch
    const double speed = plan.rank_speed[static_cast<std::size_t>(position)];
    // When every member communicates for itself, each ends its reductions at its own time (its links): per member,
    // when it starts the next iteration, after the rank does.
    const std::vector<int>& fed_members = fed[static_cast<std::size_t>(position)];
    std::vector<double> start_offsets_s;
    run_iterations(position, [&](int iteration, IterationRecord& record) {
      IterationSpans spans{"forward", 0, 0, "wait for allreduce", 0};
      double factor = speed;
      const IterationDraws draws = noise.next(plan.micro_batches, pass_s, optimizer.total_s, speed, start_offsets_s);
      // The member whose iteration ends last may start after the rank (wait for it) or before it (its forward pass
      // is that far along when the rank starts).
      const double before_s = draws.stall_s + draws.start_offset_s;
      if (before_s > 0) {
        gpu_idle(position);  // the host stalls (OS or hypervisor noise): its GPU has nothing to run meanwhile
        sg4::this_actor::sleep_for(before_s);
      }
      record.compute_s += draws.stall_s;
      double ahead_s = before_s < 0 ? -before_s : 0.0;
      for (int micro = 0; micro < plan.micro_batches; ++micro) {
        const bool last = micro + 1 == plan.micro_batches;
        wait_for_batch(rank, record);
        if (micro == 0) record.start_s = sg4::Engine::get_clock();
        factor = speed * draws.multipliers[static_cast<std::size_t>(micro)];
        Stretch first = forward.scaled(factor);
        if (ahead_s > 0 && first.total_s > 0) {
          const double done = std::min(1.0, ahead_s / first.total_s);  // of the forward pass, already behind
          record.compute_s += done * first.total_s;
          ahead_s = 0;
          first = {first.total_s * (1 - done), first.gpu_s * (1 - done), first.bytes * (1 - done)};
        }
        run_kernel(rank, first, record);
        spans.backward_start_s = sg4::Engine::get_clock();
        Stretch pending;
        for (std::size_t l = kernels.backward_s.size(); l-- > 0;) {
          pending.add(kernels.backward_s[l], kernels.backward_gpu_s[l], kernels.backward_bytes[l]);
          if (tensor_of_layer[l] < 0 || !last) continue;
          run_kernel(rank, pending.scaled(factor), record);
          pending = Stretch{};
          if (needs_allreduce) gradient_ready(iteration, micro, position, tensor_of_layer[l]);
        }
        run_kernel(rank, pending.scaled(factor), record);
      }
      spans.backward_end_s = sg4::Engine::get_clock();
      if (needs_allreduce) {
        gpu_idle(position);
        // The optimizer runs once the gradients are reduced: on the latest of the members the rank computes for.
        for (int member : fed[static_cast<std::size_t>(position)]) {
          ranks[static_cast<std::size_t>(member)]->tensors_reduced.wait_for(static_cast<long>(iteration + 1) *
                                                                            tensor_count());
        }
      }
      spans.reduced_s = sg4::Engine::get_clock();
      // The host issues the optimizer's kernels meanwhile, unless a trace says when it did.
      if (!plan.host_times_traced) rank.host_ahead_s += spans.reduced_s - spans.backward_end_s;
      run_kernel(rank, optimizer.scaled(factor), record);
      record.end_s = sg4::Engine::get_clock();
      if (needs_allreduce && fed_members.size() > 1) {
        // Each member's iteration ends its optimizer's time (at its own multiplier) after its reductions end.
        start_offsets_s.clear();
        const double optimizer_s = record.end_s - spans.reduced_s;
        double latest_end_s = 0;
        for (std::size_t k = 0; k < fed_members.size(); ++k) {
          const double member_end_s = ranks[static_cast<std::size_t>(fed_members[k])]->reduced_at_s +
                                      optimizer_s * draws.last_multipliers[k] / draws.multipliers.back();
          latest_end_s = std::max(latest_end_s, member_end_s);
          start_offsets_s.push_back(member_end_s - record.end_s);
        }
        record.end_s = latest_end_s;
      }
      if (class_members.size() > 1) {
        // Each member's compute: the rank's, with the member's own draws' kernel time in place of the rank's.
        const double size = static_cast<double>(class_members.size());
        record.class_compute_s = size * record.compute_s + draws.members_kernel_s - size * draws.kernel_s;
      }
      return spans;
    });
  }

  /// After the iteration that brought the job to `progress`: every `checkpoint_interval` of them, rank 0 writes a
  /// checkpoint; the others would wait for it at the next collective, so all of them wait here.
  void write_checkpoint_if_due(int position, int iteration, int progress, IterationRecord& record) {
    if (plan.checkpoint_interval <= 0 || progress % plan.checkpoint_interval != 0 || restart_pending(iteration)) return;
    gpu_idle(position);
    sg4::this_actor::sleep_for(plan.checkpoint_write_s);
    record.checkpoint_s = plan.checkpoint_write_s;
    // A failure during the write leaves no checkpoint behind.
    if (position == 0 && !restart_pending(iteration)) checkpoint = {iteration + 1, progress, sg4::Engine::get_clock()};
    if (trace != nullptr) trace->span(trace_pid, 2 * position, "checkpoint", record.end_s, sg4::Engine::get_clock());
  }

  /// Whether a host failure has already happened that the job will restart from at a later iteration: a checkpoint
  /// after it would be one the failed job never wrote.
  bool restart_pending(int iteration) const {
    return std::any_of(pauses.begin(), pauses.end(),
                       [&](const OperationsPause& pause) { return pause.restart && pause.iteration > iteration; });
  }

  /// Takes the pauses due as the rank starts `iteration`. A stun freezes the VM, its loader with it; after a restart
  /// the iterations since the checkpoint are lost, `progress` goes back to what the checkpoint holds, and the new
  /// loader has only the batch it prepared during the job's restart time.
  void take_pauses(int position, int iteration, RankRuntime& rank, IterationRecord& record, int& progress) {
    std::vector<std::size_t> due;  // by index: other events may add pauses (for later iterations) meanwhile
    for (std::size_t k = 0; k < pauses.size(); ++k) {
      if (pauses[k].iteration == iteration && pauses[k].ranks[static_cast<std::size_t>(position)]) due.push_back(k);
    }
    for (std::size_t k : due) {
      gpu_idle(position);
      pause_taken[k] = 1;
      const double from = sg4::Engine::get_clock();
      if (pauses[k].restart) {
        // Another failure while the job waits moves the end later: wait until the end stays put.
        while (pauses[k].until_s > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(pauses[k].until_s);
        progress = pauses[k].resume_progress;
        for (std::size_t r = static_cast<std::size_t>(pauses[k].lost_from); r < rank.records.size(); ++r) {
          rank.records[r].lost = true;
        }
        // The restarted loader has one batch ready, the one it prepared while the job started (job_restart_s).
        rank.next_batch_ready_s = std::max(rank.next_batch_ready_s, sg4::Engine::get_clock() - plan.data_loading_s);
      } else {
        sg4::this_actor::sleep_for(pauses[k].seconds);
        if (rank.next_batch_ready_s > from) rank.next_batch_ready_s += pauses[k].seconds;
      }
      record.operations_s += sg4::Engine::get_clock() - from;
      if (trace != nullptr) trace->span(trace_pid, 2 * position, pauses[k].label, from, sg4::Engine::get_clock());
    }
  }

  /// Marks the rank's collective as running or not, re-rates its GPU's memory link and wakes its running kernels to
  /// re-rate. Actors yield only in simcalls, so this runs whole: no mutex (sim/engine/sync.hpp).
  void set_collective_in_flight(int position, RankRuntime& rank, bool running) {
    rank.collective_in_flight = running;
    rank.sliced_rate = running ? 1.0 - plan.collective_sm_share : 1.0;
    update_memory_link(position, rank);
    if (rank.kernels_running) rank.collective_changed->notify_all();
  }

  void communication_actor(int position) {
    RankRuntime& rank = *ranks[static_cast<std::size_t>(position)];
    const std::vector<int>& group = speaks_for[static_cast<std::size_t>(position)];
    while (true) {
      const FusionBuffer buffer = rank.queue.pop();
      const double start = sg4::Engine::get_clock();
      for (int member : group) set_collective_in_flight(member, *ranks[static_cast<std::size_t>(member)], true);
      assert(rank.gradient_group.collective != nullptr && "a rank reduces only in a group of two or more");
      rank.gradient_group.collective->run(rank.gradient_group.collective_position, buffer.bytes);
      for (int member : group) set_collective_in_flight(member, *ranks[static_cast<std::size_t>(member)], false);
      if (trace != nullptr) {
        const std::string name = "allreduce " + std::to_string(buffer.tensor_count) + " tensors";
        const double end = sg4::Engine::get_clock();
        nlohmann::json args = {{"bytes", buffer.bytes}, {"tensors", buffer.tensor_count},
                               {"iteration", buffer.iteration}};
        nlohmann::json links = nlohmann::json::array();
        for (int track : plan.link_class_tracks) links.push_back(to_string(static_cast<LinkClass>(track)));
        args["links"] = links;
        if (const std::string how = rank.gradient_group.collective->describe(buffer.bytes); !how.empty()) {
          args["nccl"] = how;
        }
        trace->span(trace_pid, 2 * position + 1, name, start, end, args);
        if (position == 0) {  // the link classes carry the ring's traffic as long as rank 0's part lasts
          for (int track : plan.link_class_tracks) {
            trace->span(plan.links_trace_pid, track, plan.name + " " + name, start, end, args);
          }
        }
      }
      for (int member : group) {
        RankRuntime& reduced = *ranks[static_cast<std::size_t>(member)];
        reduced.data_parallel_sent_bytes += buffer.bytes * reduced.gradient_group.sent_fraction_counted;
        reduced.reduced_at_s = sg4::Engine::get_clock();
        reduced.tensors_reduced.add(buffer.tensor_count);
      }
    }
  }
};

}  // namespace vtsim::sim
