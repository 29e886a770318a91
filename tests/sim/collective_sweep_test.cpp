// nccl-tests on a simulated cluster (vtsim collectives): bus bandwidth against hand derivations on a ring of identical
// links, at large sizes (bandwidth-bound) and small ones (latency-bound).

#include "sim/collective_sweep.hpp"

#include <gtest/gtest.h>

#include "models/collective_model.hpp"
#include "sim_test_support.hpp"

namespace vtsim::sim {
namespace {

constexpr double kRoce100_Bps = 100e9 / 8 * 0.97;  // ConnectX-5 100 GbE x RoCE v2 0.97 (nic_catalog)

/// 8 one-GPU hosts in a rack: every ring step crosses two NICs, the bottleneck of identical routes.
Scenario eight_hosts() {
  return testing::scenario_of({{"cluster",
                                {{"hosts_per_rack", 8},
                                 {"host", {{"gpus", 1}, {"gpu_model", "a100-40gb-sxm4"}, {"nic_model", "connectx-5-100gbe"}}},
                                 {"transport", "roce_v2"}}},
                               {"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 32}}}}});
}

std::vector<CollectiveTiming> sweep(const Scenario& scenario, NcclCollective collective, std::vector<double> sizes) {
  const nlohmann::json answer = vtsim::tools::run_isolated([&] {
    nlohmann::json times = nlohmann::json::array();
    for (const CollectiveTiming& t : simulate_collective_sweep(scenario, {0, 1, 2, 3, 4, 5, 6, 7}, collective, sizes)) {
      times.push_back({t.time_s, t.choice});
    }
    return times;
  });
  std::vector<CollectiveTiming> timings;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    timings.push_back({sizes[k], answer[k][0].get<double>(), answer[k][1].get<std::string>()});
  }
  return timings;
}

TEST(CollectiveSweep, LargeSizesRunAtTheLinkBandwidthTimesTheProtocolsEfficiency) {
  // 1 GiB, Simple: busbw = S / t x factor -> the NIC's 12.125 GB/s as the latency terms vanish.
  const Scenario scenario = eight_hosts();
  const double bytes = 1024.0 * 1024 * 1024;
  for (auto [collective, kind] : {std::pair{NcclCollective::all_reduce, Collective::allreduce},
                                  {NcclCollective::all_gather, Collective::allgather},
                                  {NcclCollective::reduce_scatter, Collective::reduce_scatter}}) {
    const CollectiveTiming timing = sweep(scenario, collective, {bytes}).front();
    EXPECT_EQ(timing.choice, "ring/Simple");
    const double busbw = busbw_Bps(kind, 8, algbw_Bps(bytes, timing.time_s));
    EXPECT_NEAR(busbw, kRoce100_Bps, 0.01 * kRoce100_Bps);
    EXPECT_LT(busbw, kRoce100_Bps);
  }
}

TEST(CollectiveSweep, SmallSizesAreLatencyBound) {
  // 8 bytes of all_gather: NCCL picks LL (the largest bus bandwidth is useless here); the sim pays LL's base
  // latency, 6.6 us, then 7 ring steps, each one route's latency, plus bytes that take nanoseconds.
  const Scenario scenario = eight_hosts();
  const Topology topology(scenario);
  const double alpha = topology.latency_s(topology.route(0, 1));
  const CollectiveTiming timing = sweep(scenario, NcclCollective::all_gather, {64}).front();
  EXPECT_EQ(timing.choice, "ring/LL");
  EXPECT_NEAR(timing.time_s, 6.6e-6 + 7 * alpha, 1e-8);
}

}  // namespace
}  // namespace vtsim::sim
