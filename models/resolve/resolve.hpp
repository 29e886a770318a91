#pragma once
// Resolving a scenario: everything `simulate` decides before it builds an engine, each value with its source
// (models/core/param.hpp). resolve() is the last place an input error can come from for a scenario the loader accepted
// (a job that does not fit in memory, a forced NCCL choice NCCL would refuse), so `vtsim check`, which runs it,
// refuses what `vtsim run` would.
//
// The boundary between the scenario and the engine (issue 29 items 1 and 2): the engine (sim/engine/simulation.cpp
// simulate(ResolvedRun), which includes resolved_run.hpp and not this header) takes its plan from here, and the
// "calibrated" and "uncalibrated_defaults" lists of a result are made here once, from the values' sources (the compute
// model's notes are ResolvedCompute's SourcedNotes). This library (CMake target `resolve`) links models and network
// only, not SimGrid: no engine file (sim/) includes models/scenario/scenario.hpp or looks a catalog up, and the build
// keeps resolve from reaching into the engine; each job's compute is resolved in job_compute_plan.hpp.

#include <cstddef>
#include <string>
#include <vector>

#include "models/catalog/link_defaults.hpp"
#include "models/collectives/nccl_tuning.hpp"
#include "models/core/param.hpp"
#include "models/network/rings.hpp"
#include "models/network/topology.hpp"
#include "models/resolve/resolved_run.hpp"
#include "models/resolve/scenario_calibration.hpp"

namespace vtsim {

struct Scenario;

/// The spec of `scenario`'s cluster (models/network/topology.hpp): its shape, and each link class's figures from
/// `links` = scenario_links(scenario, calibration) (models/catalog/link_defaults.hpp). REQUIRES: a validated scenario.
TopologySpec topology_spec(const Scenario& scenario, const ScenarioLinks& links);

/// The topology of `scenario`'s cluster with `calibration`'s measurements (scenario_calibration(); empty: the
/// catalogs' figures): Topology(topology_spec(scenario, scenario_links(scenario, calibration)), rules). REQUIRES: a
/// validated scenario (throws nothing for one).
Topology scenario_topology(const Scenario& scenario, const CalibratedParameters& calibration,
                           const P2pRuleTable& rules = default_p2p_rules());

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

/// The collective of `gpus` (global GPU indices of `scenario`'s cluster) resolved as resolve() resolves a job, with
/// `calibration`'s link measurements. Throws the InputError job_nccl_communicator throws. REQUIRES: a scenario the
/// loader accepted; two or more distinct GPUs of its cluster.
ResolvedCollective resolve_collective(const Scenario& scenario, const CalibratedParameters& calibration,
                                      const std::vector<int>& gpus);

/// Resolves `scenario` with `profile` (load_scenario_profile(scenario); null: none), applied by scenario_calibration
/// (models/resolve/scenario_calibration.hpp). Throws the InputError `simulate` would throw for it before simulating.
/// REQUIRES: a scenario the loader accepted.
ResolvedRun resolve(const Scenario& scenario, const CalibrationProfile* profile);
/// resolve(scenario, profile) once the profile is applied: `calibration` = scenario_calibration(scenario, profile),
/// which raised the profile's errors, or measurements a test states by hand (taken as they are).
ResolvedRun resolve(const Scenario& scenario, const CalibratedParameters& calibration);

/// `run`'s values with their sources, for `vtsim check --sources`: the hardware, the links the jobs' traffic crosses,
/// the vGPU context switch, and per job its device, step-time spread and what its collectives and coordinator cost
/// beyond their transfers. REQUIRES: run = resolve(scenario, ...).
std::vector<SourcedValue> sourced_values(const Scenario& scenario, const ResolvedRun& run);

}  // namespace vtsim
