#pragma once
// Rank classes: simulate what differs, once (docs/scale.md).
//
// At analytic fidelity the ranks of a data-parallel job meet only where they synchronise: Horovod's coordinator
// reduces a gradient once every rank has it, and each collective is its closed form, the same on every rank. Ranks
// whose GPUs have the same fixed speed, that share their GPU with no other vGPU and whose memory is modelled alike
// differ only by their random draws (models/compute/variability.hpp). Such ranks form a class, and one actor runs for
// the class: each iteration it draws every member's stall and multipliers from the member's own stream, exactly as the
// full simulation draws them, and runs with its slowest member's, the one whose kernels take longest in all. The
// coordinator counts it as its class's size. The iteration's end, the latest of the members', is then exact when the
// members start the iteration together; the ready time of a gradient in mid-backward is the slowest member's, which can
// be a little earlier than the latest member's when two members' draws cross (a member with a long stall and a small
// multiplier). Each member's compute time is the representative's with its own draws in place of the representative's.
//
// At flow and step fidelity each rank's flows meet the others' on the links, so the classes reduce compute only: the
// first member computes for its class and feeds every member's communication actor (Horovod's coordinator hands each
// member the fusion buffers, DDP's buckets go to each member's queue), and every member runs its own flows. The
// members then end their reductions at their own times (an uplink two flows share is slower). Each member's
// iteration ends its optimizer's time after its own reductions, and the rank runs the next iteration with the draws
// of the member whose iteration ends last counted from where that member starts: it waits when that member starts
// after it, and finds that member's forward pass that far along when it starts before. Without variability this is
// the full simulation's step to the last digit (tested, with every flow kept); with it, within 1% (tested).
//
// A rank on a time-sliced GPU is a class of its own (its scheduler's turns are its alone). Under tensor, pipeline or
// sharded parallelism the classes are the tensor groups, at analytic fidelity only (tensor_group_classes). Not
// reduced at all, and said so on the job's result: such parallelism at flow or step fidelity, vSphere events (they
// pause some ranks), and a trace (one track per rank).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/compute/variability.hpp"
#include "models/scenario/fidelity.hpp"

namespace vtsim::sim {

/// What decides whether a job's ranks may run as classes.
struct ReductionContext {
  bool reduce_ranks = true;     ///< simulation.reduce_ranks
  bool model_parallel = false;  ///< the job has tensor, pipeline or sharded parallelism
  Fidelity fidelity = Fidelity::flow;
  bool events = false;   ///< the scenario has vSphere events
  bool tracing = false;  ///< a trace is written (one track per rank)
};

/// Why a job's ranks cannot run as classes in `context`; nullopt when they can. Under tensor, pipeline or sharded
/// parallelism they can at analytic fidelity only, as tensor groups (tensor_group_classes).
std::optional<std::string> reduction_blocker(const ReductionContext& context);

/// The classes of alike ranks: positions with the same `rank_speed`, no scheduler (`time_sliced` false) and the same
/// memory status (`memory_gpu` >= 0 or not), each class's positions in order, classes by their first position.
/// REQUIRES: the three vectors have one entry per rank.
std::vector<std::vector<int>> rank_classes(const std::vector<double>& rank_speed, const std::vector<bool>& time_sliced,
                                           const std::vector<int>& memory_gpu);

/// Model parallelism: the classes are the tensor groups, each member at its tensor position (the group's rank 0
/// first, which runs for it), when every group's members are alike as rank_classes() sees them; nullopt when some are
/// not. A tensor group's members run the same layers and meet at every layer's collectives (barriers at analytic
/// fidelity), so the group advances as its slowest member in each stretch between two of them: one actor runs the
/// stretch at the largest of its members' multipliers (LockstepNoise), and runs the transfers of all its members
/// (pipeline messages are flows, whose sharing of the links is kept). Exact without variability; with it, a member
/// whose trailing stretch ends early starts its transfer early in the full simulation and late here.
/// REQUIRES: `tensor_group` and `tensor_position` have one entry per rank, as the three vectors of rank_classes().
std::optional<std::vector<std::vector<int>>> tensor_group_classes(const std::vector<int>& tensor_group,
                                                                  const std::vector<int>& tensor_position,
                                                                  const std::vector<double>& rank_speed,
                                                                  const std::vector<bool>& time_sliced,
                                                                  const std::vector<int>& memory_gpu);

/// The draws of ranks that meet at every collective of every layer (a tensor group standing as one class): every
/// member draws from its own stream exactly as it would alone, and the group takes the longest stall and, for each
/// pass, the largest multiplier. It also counts how much less kernel time each member's own draws would have taken,
/// for the members' compute figures. With one member it draws as ComputeNoise.
class LockstepNoise {
 public:
  LockstepNoise(std::uint64_t seed, const std::vector<std::uint64_t>& member_streams, double cv, StallConfig stalls);
  /// The members' longest stall at the start of an iteration.
  double next_stall_s();
  /// The members' largest multiplier for the next pass.
  double next_multiplier();
  /// Counts `base_s` of kernel time (before the multiplier) run at the last next_multiplier().
  void ran(double base_s);
  /// Over the members, the kernel and stall time their own draws would have saved since the last call (0 with one
  /// member); resets it.
  double take_members_saved_s();

 private:
  std::vector<ComputeNoise> members_;
  double multiplier_shortfall_ = 0;  ///< sum over members of (largest - own) at the last next_multiplier()
  double saved_s_ = 0;
};

/// One iteration's draws for a rank standing for its class: its slowest member's.
struct IterationDraws {
  double stall_s = 0;
  std::vector<double> multipliers;  ///< per micro-batch
  int member = 0;                   ///< index of the chosen member in the class
  double kernel_s = 0;              ///< the chosen member's stall and kernel time at these draws
  double members_kernel_s = 0;      ///< the same, summed over the members
  double start_offset_s = 0;        ///< when the chosen member starts the iteration, after the rank (next()'s offsets)
  std::vector<double> last_multipliers;  ///< per member, its last micro-batch's multiplier (its optimizer's too)
};

/// The per-iteration draws of every member of a class (one member: an unreduced rank).
class ClassNoise {
 public:
  /// Each member draws from `seed` and its own stream, with the spread `cv` and `stalls`.
  ClassNoise(std::uint64_t seed, const std::vector<std::uint64_t>& member_streams, double cv, StallConfig stalls);
  /// Draws every member's next iteration (its stall, then a multiplier per micro-batch, as a rank draws them) and
  /// returns those of the member whose stall plus kernels end last: `start_offsets_s` (per member, when it starts
  /// after the rank; empty: together) plus `speed` x (the sum over micro-batches of multiplier x `pass_s`, plus the
  /// last multiplier x `optimizer_s`). Ties go to the first member.
  IterationDraws next(int micro_batches, double pass_s, double optimizer_s, double speed,
                      const std::vector<double>& start_offsets_s = {});

 private:
  std::vector<ComputeNoise> members_;
};

}  // namespace vtsim::sim
