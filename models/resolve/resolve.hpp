#pragma once
// Resolving a scenario: everything `simulate` decides before it builds an engine, each value with its source
// (models/param.hpp). resolve() is the last place an input error can come from for a scenario the loader accepted
// (a job that does not fit in memory, a forced NCCL choice NCCL would refuse), so `vtsim check`, which runs it,
// refuses what `vtsim run` would.
//
// The boundary between the scenario and the engine (issue 29 items 1 and 2): the engine (sim/simulation.cpp
// simulate(ResolvedRun)) takes its plan from here, and the "calibrated" and "uncalibrated_defaults" lists of a result
// are made here once, from the values' sources (the compute model's notes are ResolvedCompute's SourcedNotes). This
// library (CMake target `resolve`) links models and network only, not SimGrid: no engine file (sim/) includes
// models/scenario.hpp or looks a catalog up, and the build keeps resolve from reaching into the engine; each job's
// compute is resolved in job_compute_plan.hpp.

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "models/fidelity.hpp"
#include "models/job_compute.hpp"
#include "models/job_config.hpp"
#include "models/link_defaults.hpp"
#include "models/nccl_tuning.hpp"
#include "models/network/flow_analysis.hpp"
#include "models/network/model_parallel_layout.hpp"
#include "models/network/rings.hpp"
#include "models/network/topology.hpp"
#include "models/operations.hpp"
#include "models/param.hpp"
#include "models/scheduler_policy.hpp"
#include "models/simulation_config.hpp"

namespace vtsim {

struct Scenario;

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
  double vmotion_line_rate_Bps = 0;  ///< the line rate of a host's NIC, which vMotion's stuns and pre-copies use
  double migration_Bps = 0;          ///< a vMotion pre-copy's rate over a host's NIC (TCP)
  /// Whether the platform needs routes between GPUs (not for data parallelism at analytic fidelity).
  bool flows_between_gpus = true;
  std::set<LinkClass> link_classes;  ///< the classes of the links some job's traffic crosses
  /// The figures of each link class the topology builds, the profile's measurements applied (link_defaults_for).
  std::vector<ClassDefault> link_defaults;
  std::vector<std::string> uncalibrated;  ///< the uncalibrated defaults the run uses (SimulationResult::uncalibrated)
  std::vector<std::string> calibrated;    ///< what the calibration profile supplied (SimulationResult::calibrated)
};

/// The spec of `scenario`'s cluster (models/network/topology.hpp): its shape, and each link class's figures with the
/// calibration profile's measurements applied. REQUIRES: a validated scenario.
TopologySpec topology_spec(const Scenario& scenario);
/// topology_spec(scenario) from `links` = scenario_links(scenario), already made.
TopologySpec topology_spec(const Scenario& scenario, const ScenarioLinks& links);

/// The topology of `scenario`'s cluster: Topology(topology_spec(scenario), rules). REQUIRES: a validated scenario
/// (throws nothing for one).
Topology scenario_topology(const Scenario& scenario, const P2pRuleTable& rules = default_p2p_rules());

/// The GPUs of `scenario`'s cluster as NCCL's tuning model sees them (its GPU model's, its transport's).
NcclDevice nccl_device(const Scenario& scenario);

/// The rings of job `index` (job_rings). Throws InputError, naming the scenario's file and the key, when a hierarchical
/// job has unequal GPU counts on its hosts.
JobRings job_rings(const Scenario& scenario, std::size_t index, const Topology& topology);

/// nccl_communicator for a communicator of job `index` over `rings` of `device` (nccl_device(scenario)), with the
/// algorithm, protocol and channels the job forces (jobs[i].nccl, as NCCL_ALGO, NCCL_PROTO and NCCL_MIN/MAX_NCHANNELS).
/// Throws InputError naming the scenario's file and the key when what it forces leaves one of NCCL's collectives
/// nothing to run on this communicator (NCCL fails such a call too).
NcclCommunicator job_nccl_communicator(const Scenario& scenario, std::size_t index, const NcclDevice& device,
                                       const JobRings& rings, const Topology& topology);

/// nccl-tests' view of a scenario's cluster (`vtsim collectives`): its ranks as one job on a flat ring, with what the
/// scenario's first job forces of NCCL.
struct ResolvedCollective {
  Topology topology;
  JobConfig job;                       ///< the scenario's first job, on the tested GPUs, reducing over a flat ring
  JobRings rings;                      ///< its rings (group_rings)
  NcclCommunicator nccl;               ///< NCCL's view of them, what the job forces included
  Fidelity fidelity = Fidelity::flow;  ///< the scenario's
};

/// The collective of `gpus` (global GPU indices of `scenario`'s cluster) resolved as resolve() resolves a job. Throws
/// the InputError job_nccl_communicator throws. REQUIRES: a scenario the loader accepted; two or more distinct GPUs of
/// its cluster.
ResolvedCollective resolve_collective(const Scenario& scenario, const std::vector<int>& gpus);

/// Resolves `scenario`. Throws the InputError `simulate` would throw for it before simulating.
/// REQUIRES: a scenario the loader accepted.
ResolvedRun resolve(const Scenario& scenario);

/// `run`'s values with their sources, for `vtsim check --sources`: the hardware, the links the jobs' traffic crosses,
/// the vGPU context switch, and per job its device, step-time spread and what its collectives and coordinator cost
/// beyond their transfers. REQUIRES: run = resolve(scenario).
std::vector<SourcedValue> sourced_values(const Scenario& scenario, const ResolvedRun& run);

}  // namespace vtsim
