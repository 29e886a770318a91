#pragma once
// What resolve() (models/resolve/resolve.hpp) makes of a scenario: everything a run uses that is decided before it is
// simulated, each value with its source. The engine (sim/) includes this header and not resolve.hpp: it takes a
// ResolvedRun and never the scenario.

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "models/catalog/link_class.hpp"
#include "models/collectives/nccl_tuning.hpp"
#include "models/compute/job_compute.hpp"
#include "models/core/param.hpp"
#include "models/network/flow_analysis.hpp"
#include "models/network/model_parallel_layout.hpp"
#include "models/network/rings.hpp"
#include "models/network/topology.hpp"
#include "models/scenario/fidelity.hpp"
#include "models/scenario/job_config.hpp"
#include "models/scenario/operations.hpp"
#include "models/scenario/scheduler_policy.hpp"
#include "models/scenario/simulation_config.hpp"

namespace vtsim {

/// A job that runs (idle jobs only hold their vGPUs), as resolved.
struct ResolvedJob {
  std::size_t index = 0;  ///< its place in scenario.jobs
  JobConfig config;       ///< what the scenario asks of it
  JobCompute compute;     ///< its kernels, memory fit and host side
  JobRings rings;         ///< its ranks' GPUs and rings (rank order: Megatron-LM's under model parallelism)
  std::optional<ModelParallelLayout> layout;        ///< tensor, pipeline or sharded parallelism
  std::optional<NcclCommunicator> nccl;             ///< what NCCL sees of the job's ranks (none for one rank)
  std::vector<std::pair<GpuFlow, double>> traffic;  ///< bytes each flow carries per iteration
  std::set<LinkClass> link_classes;                 ///< the classes of the links its traffic crosses
  int nccl_channels = 0;                            ///< channels its collectives run (0 without a communicator)
  /// Of the device's compute while a collective runs (with a communicator): measured, or one SM per channel.
  std::optional<Param<double>> collective_sm_share;
  double collective_memory_demand_Bps = 0;  ///< of its GPU's memory, per rank, while a collective runs
  /// Horovod's coordinator's cost per tick (a data-parallel Horovod job of several ranks): measured per message, or
  /// 2 ceil(log2 N) messages at the ranks' largest neighbour latency.
  std::optional<Param<double>> negotiation_s;
};

/// Everything a run of a scenario uses that is decided before it is simulated.
struct ResolvedRun {
  std::string name;                 ///< the scenario's
  std::string calibration_profile;  ///< the calibration profile's file; "" for none
  SimulationConfig simulation;      ///< the scenario's: fidelity, seed, variability, rank classes
  std::size_t scenario_jobs = 0;    ///< the scenario's jobs, idle ones included (ResolvedJob::index is below)
  int gpus_per_host = 1;
  std::vector<OperationEvent> events;  ///< vMotions, host failures and maintenance, in the scenario's order
  OperationsConfig operations;         ///< vSphere's figures for them
  Topology topology;
  std::vector<ResolvedJob> jobs;                      ///< the jobs that run, in scenario order
  std::vector<std::pair<int, int>> cross_rack_ports;  ///< (GPU, uplink port) hosts of flows leaving their racks
  std::vector<SlicedGpu> sliced_gpus;                 ///< the GPUs whose vGPUs a scheduler time-slices
  /// The cost of one switch between vGPUs, where a GPU is time-sliced (none otherwise).
  std::optional<Param<double>> context_switch_s;
  /// The latency of one leaf or spine switch, where some job's traffic crosses one (none otherwise).
  std::optional<Param<double>> switch_latency_s;
  std::map<int, int> ranks_per_gpu;  ///< ranks of all jobs on each GPU that has any
  /// Achievable memory bandwidth of the GPUs (the datasheet's times the compute model's memory efficiency), the
  /// largest over the jobs outside MIG; 0 when every job runs on MIG.
  double gpu_memory_Bps = 0;
  /// Whether some job's collective asks more than half of gpu_memory_Bps (only then can the memory links bind).
  bool memory_can_bind = false;
  double vmotion_rate_Bps = 0;       ///< what a host's vMotion moves a stun's framebuffer at (vmotion_rate_Bps())
  double migration_Bps = 0;          ///< a vMotion pre-copy's rate over a host's NIC (TCP), at most vmotion_rate_Bps
  /// Whether the platform needs routes between GPUs (not for data parallelism at analytic fidelity).
  bool flows_between_gpus = true;
  std::set<LinkClass> link_classes;  ///< the classes of the links some job's traffic crosses
  /// The figures of each link class the topology builds, the profile's measurements applied (link_defaults_for).
  std::vector<ClassDefault> link_defaults;
  std::vector<std::string> uncalibrated;  ///< the uncalibrated defaults the run uses (SimulationResult::uncalibrated)
  std::vector<std::string> calibrated;    ///< what the calibration profile supplied (SimulationResult::calibrated)
};

/// nccl-tests' view of a scenario's cluster (`vtsim collectives`): its ranks as one job on a flat ring, with what the
/// scenario's first job forces of NCCL.
struct ResolvedCollective {
  Topology topology;
  JobConfig job;                       ///< the scenario's first job, on the tested GPUs, reducing over a flat ring
  JobRings rings;                      ///< its rings (group_rings)
  NcclCommunicator nccl;               ///< NCCL's view of them, what the job forces included
  Fidelity fidelity = Fidelity::flow;  ///< the scenario's
  bool reduce_flows = true;            ///< the scenario's simulation.reduce_flows
};

}  // namespace vtsim
