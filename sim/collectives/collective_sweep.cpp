#include "sim/collectives/collective_sweep.hpp"

#include <algorithm>
#include <cassert>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "models/network/rings.hpp"
#include "models/network/topology.hpp"
#include "models/resolve/resolved_run.hpp"
#include "sim/collectives/communicators.hpp"
#include "sim/engine/engine_setup.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/sync.hpp"

namespace vtsim::sim {

namespace sg4 = simgrid::s4u;

std::vector<CollectiveTiming> simulate_collective_sweep(const ResolvedCollective& tested, TestedOp op,
                                                        const std::vector<double>& sizes) {
  const Topology& topology = tested.topology;
  const JobRings& rings = tested.rings;
  const NcclCommunicator& comm = tested.nccl;
  const std::size_t gpus = rings.ring.size();
  assert(gpus >= 2);
  int argc = 1;
  char program[] = "vtsim";
  char* argv[] = {program, nullptr};
  sg4::Engine engine(&argc, argv);
  configure_engine();
  configure_stacks(gpus);
  const bool p2p = op == TestedOp::sendrecv || op == TestedOp::alltoall;
  const NcclCollective collective = op == TestedOp::all_gather       ? NcclCollective::all_gather
                                    : op == TestedOp::reduce_scatter ? NcclCollective::reduce_scatter
                                    : op == TestedOp::broadcast      ? NcclCollective::broadcast
                                    : op == TestedOp::reduce         ? NcclCollective::reduce
                                                                     : NcclCollective::all_reduce;
  std::vector<std::pair<int, int>> ports = cross_rack_ports(tested.job, rings, topology);
  if (op == TestedOp::alltoall) ports = alltoall_ports(rings, topology);
  const Platform platform(topology, ports);
  if (!tested.reduce_flows) platform.route_ledger().disable();
  const Fidelity fidelity = tested.fidelity;
  std::unique_ptr<SimulatedCollective> run;
  if (op == TestedOp::sendrecv) {
    run = make_sendrecv(rings, topology, platform, fidelity);
  } else if (op == TestedOp::alltoall) {
    run = make_alltoall(rings, topology, platform, fidelity);
  } else {
    run = make_collective(collective, rings, topology, platform, fidelity, comm, nullptr);
  }
  std::vector<CollectiveTiming> timings(sizes.size());
  std::vector<double> starts(sizes.size(), 0.0);
  Counter arrived;  // ranks that reached each size: every rank starts size k once all have finished size k - 1
  const long ranks = static_cast<long>(rings.ring.size());
  for (std::size_t p = 0; p < rings.ring.size(); ++p) {
    sg4::Actor::create("rank" + std::to_string(p), platform.gpu_host(rings.ring[p]), [&, p] {
      for (std::size_t k = 0; k < sizes.size(); ++k) {
        arrived.add(1);
        arrived.wait_for(static_cast<long>(k + 1) * ranks);
        if (p == 0) starts[k] = sg4::Engine::get_clock();
        run->run(static_cast<int>(p), sizes[k]);  // p2p ops: Simple (NCCL tunes no protocol for them)
        timings[k].time_s = std::max(timings[k].time_s, sg4::Engine::get_clock() - starts[k]);
      }
    });
  }
  engine.run();
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    timings[k].bytes = sizes[k];
    if (p2p) {
      timings[k].choice = "p2p/Simple";
      continue;
    }
    const NcclChoice choice = nccl_choice(comm, collective, sizes[k]);
    timings[k].choice = std::string(to_string(choice.algorithm)) + "/" + std::string(to_string(choice.protocol));
  }
  return timings;
}

}  // namespace vtsim::sim
