// Allreduce timing against the alpha-beta closed form, and the fidelity levels against each other.

#include <gtest/gtest.h>

#include "models/catalog/nic_catalog.hpp"
#include "models/collectives/collective_model.hpp"
#include "models/core/units.hpp"
#include "sim_test_support.hpp"

namespace vtsim::sim {
namespace {

using testing::scenario_of;
using testing::simulated_allreduce_s;

/// N hosts of one GPU each in one rack: a homogeneous ring through the NICs.
nlohmann::json one_gpu_hosts(int hosts, const std::string& fidelity) {
  return {{"cluster",
           {{"racks", 1},
            {"hosts_per_rack", hosts},
            {"host", {{"gpus", 1}, {"gpu_model", "a100-40gb-sxm4"}, {"nic_model", "connectx-5-100gbe"}}},
            {"transport", "roce_v2"}}},
          {"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 32}}}},
          {"simulation", {{"fidelity", fidelity}}}};
}

class HomogeneousRing : public ::testing::TestWithParam<std::tuple<int, std::string>> {};

TEST_P(HomogeneousRing, MatchesAlphaBetaClosedForm) {
  const auto [hosts, fidelity] = GetParam();
  const Scenario scenario = scenario_of(one_gpu_hosts(hosts, fidelity));
  const Topology topology = scenario_topology(scenario, {});
  // The bottleneck of every hop is the NIC: 100 Gb/s line rate x RoCE's 0.97 efficiency (nic_catalog), far below the
  // A100's PCIe Gen4 (25 GB/s typical).
  const double bandwidth_Bps = 100e9 / 8 * transport_spec(Transport::roce_v2).bandwidth_efficiency;
  ASSERT_DOUBLE_EQ(topology.bottleneck_Bps(topology.route(0, 1)), bandwidth_Bps);
  const double alpha_s = topology.latency_s(topology.route(0, 1));
  const double bytes = 64.0 * 1024 * 1024;
  const double n = hosts;
  // 2 (n-1)/n x S/B + 2 (n-1) alpha with NCCL's base latency and protocol (Simple; LL128 at 64 ranks, where the
  // ring's 126 network steps make Simple's latency the larger cost in NCCL's model).
  const double expected = testing::nccl_ring_closed_form_s(scenario, bytes, bandwidth_Bps, alpha_s, NcclHop::net);
  ASSERT_GE(expected, 2 * (n - 1) / n * bytes / bandwidth_Bps + 2 * (n - 1) * alpha_s);
  EXPECT_NEAR(simulated_allreduce_s(scenario, bytes), expected, 1e-3 * expected) << hosts << " ranks, " << fidelity;
}

INSTANTIATE_TEST_SUITE_P(StepAndFlow, HomogeneousRing,
                         ::testing::Combine(::testing::Values(2, 3, 4, 8, 16, 33, 64),
                                            ::testing::Values("step", "flow")));

TEST(RingAllreduce, AnalyticMatchesClosedFormOnHomogeneousRing) {
  const Scenario scenario = scenario_of(one_gpu_hosts(16, "analytic"));
  const Topology topology = scenario_topology(scenario, {});
  const double bytes = 100e6;
  const double expected = testing::nccl_ring_closed_form_s(scenario, bytes, topology.bottleneck_Bps(topology.route(0, 1)),
                                                           topology.latency_s(topology.route(0, 1)), NcclHop::net);
  EXPECT_NEAR(simulated_allreduce_s(scenario, bytes), expected, 1e-9 * expected);
}

/// Two racks of two hosts of 4x A100 with NVLink, 2:1 oversubscribed: rings mixing NVLink, NIC and spine hops.
nlohmann::json two_rack_leaf_spine(const std::string& fidelity, const std::string& algorithm) {
  return {{"cluster",
           {{"racks", 2},
            {"hosts_per_rack", 2},
            {"host", {{"gpus", 4}, {"gpu_model", "a100-40gb-sxm4"}, {"nic_model", "connectx-5-100gbe"}}},
            {"transport", "roce_v2"},
            {"fabric", {{"oversubscription", 2.0}, {"spines", 2}}}}},
          {"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 32}, {"horovod", {{"allreduce", algorithm}}}}}},
          {"simulation", {{"fidelity", fidelity}}}};
}

TEST(RingAllreduce, FlowWithinOnePercentOfStepOnMixedLeafSpine) {
  const double bytes = 256.0 * 1024 * 1024;
  for (const std::string algorithm : {"ring", "hierarchical"}) {
    const double step = simulated_allreduce_s(scenario_of(two_rack_leaf_spine("step", algorithm)), bytes);
    const double flow = simulated_allreduce_s(scenario_of(two_rack_leaf_spine("flow", algorithm)), bytes);
    EXPECT_NEAR(flow, step, 0.01 * step) << algorithm;
  }
}

TEST(HierarchicalAllreduce, BeatsFlatRingWhereTheClosedFormsSayItShould) {
  // 4 hosts x 8 A100 (NVSwitch) behind one 100 GbE NIC each. Flat ring: 32 ranks, each NIC carries one ring edge:
  // 2(31/32) S/B_nic. Hierarchical: the 8 inter-host rings of S/8 share each NIC (B_nic/8 each): 2(3/4) S/B_nic,
  // plus two NVLink phases. Closed forms say hierarchical is faster; the simulation must agree and match each.
  nlohmann::json json = two_rack_leaf_spine("flow", "ring");
  json["cluster"]["racks"] = 1;
  json["cluster"]["hosts_per_rack"] = 4;
  json["cluster"]["host"]["gpus"] = 8;
  const double bytes = 512.0 * 1024 * 1024;
  const Scenario flat = scenario_of(json);
  const Scenario hierarchical = scenario_of(json, {"jobs[0].horovod.allreduce=hierarchical"});
  const Topology topology = scenario_topology(flat, {});
  const double nic_Bps = 100e9 / 8 * transport_spec(Transport::roce_v2).bandwidth_efficiency;
  const double cross_host_alpha = topology.latency_s(topology.route(7, 8));
  const double nvlink_Bps = topology.bottleneck_Bps(topology.route(0, 1));
  const double nvlink_alpha = topology.latency_s(topology.route(0, 1));
  // Flat ring: 28 NVLink edges and 4 NIC edges; the NIC edges bound the rate, the slowest (cross-host) hop the latency.
  const double flat_expected = RingAlgorithm(Collective::allreduce, 32).time_s(bytes, nic_Bps, cross_host_alpha);
  const double hierarchical_expected =
      HierarchicalAllreduceAlgorithm(4, 8).time_s(bytes, nvlink_Bps, nvlink_alpha, nic_Bps / 8, cross_host_alpha);
  ASSERT_LT(hierarchical_expected, flat_expected);
  const double flat_s = simulated_allreduce_s(flat, bytes);
  const double hierarchical_s = simulated_allreduce_s(hierarchical, bytes);
  EXPECT_NEAR(flat_s, flat_expected, 0.01 * flat_expected);
  EXPECT_NEAR(hierarchical_s, hierarchical_expected, 0.01 * hierarchical_expected);
  EXPECT_LT(hierarchical_s, flat_s);
}

}  // namespace
}  // namespace vtsim::sim

namespace vtsim::sim {
namespace {

TEST(HierarchicalAllreduce, AnalyticHandlesOneGpuPerHostAndOneHost) {
  // With one GPU per host the intra-host phases have nothing to exchange and the inter-host ring is the whole job;
  // with one host the inter-host ring has nothing to exchange. Both reduce to a flat ring's closed form.
  const double bytes = 64e6;
  const Scenario per_host = testing::scenario_of(one_gpu_hosts(4, "analytic"), {"jobs[0].horovod.allreduce=hierarchical"});
  const Topology topology = scenario_topology(per_host, {});
  // Hierarchical allreduce runs without NCCL's choice, with Simple's extra latency per step (NET here).
  const double expected =
      RingAlgorithm(Collective::allreduce, 4)
          .time_s(bytes, topology.bottleneck_Bps(topology.route(0, 1)),
                  topology.latency_s(topology.route(0, 1)) + nccl_step_extra_s(NcclHop::net, NcclProtocol::simple));
  EXPECT_NEAR(simulated_allreduce_s(per_host, bytes), expected, 1e-9 * expected);
  const Scenario one_host = testing::scenario_of(
      one_gpu_hosts(1, "analytic"), {"cluster.host.gpus=4", "jobs[0].horovod.allreduce=hierarchical"});
  const Topology host = scenario_topology(one_host, {});
  // On the 4-GPU NVLink mesh NCCL's 6 rings (every directed cycle) load each pair link twice each way: all together
  // they run at 3 pair links.
  const double intra =
      RingAlgorithm(Collective::allreduce, 4)
          .time_s(bytes, 3 * host.bottleneck_Bps(host.route(0, 1)),
                  host.latency_s(host.route(0, 1)) + nccl_step_extra_s(NcclHop::nvlink, NcclProtocol::simple));
  EXPECT_NEAR(simulated_allreduce_s(one_host, bytes), intra, 1e-9 * intra);
}

/// Four hosts h0-h3 (speed 1) in a zone of their own, with one private 1 GB/s link of `latency_s` per directed edge
/// p -> p + 1 of a ring over them, and its edges: those of parity `rendezvous_parity` a rendezvous between the ranks'
/// hosts, the others host-to-host communications (as between racks). REQUIRES: an engine without a platform.
std::pair<std::vector<simgrid::s4u::Host*>, std::vector<RingEdge>> four_host_ring(int rendezvous_parity,
                                                                                  double latency_s) {
  simgrid::s4u::NetZone* zone = simgrid::s4u::create_full_zone("zone");
  std::vector<simgrid::s4u::Host*> hosts;
  for (int h = 0; h < 4; ++h) hosts.push_back(zone->create_host("h" + std::to_string(h), 1.0)->seal());
  std::vector<RingEdge> edges(4);
  for (std::size_t e = 0; e < 4; ++e) {
    simgrid::s4u::Link* link = zone->create_link("l" + std::to_string(e), 1e9)->set_latency(latency_s)->seal();
    zone->add_route(hosts[e]->get_netpoint(), hosts[(e + 1) % 4]->get_netpoint(), nullptr, nullptr,
                    {simgrid::s4u::LinkInRoute(link)}, false);
    edges[e] = {.source = hosts[e],
                .destination = hosts[(e + 1) % 4],
                .latency_s = latency_s,
                .hop = NcclHop::net,
                .between_rank_hosts = static_cast<int>(e % 2) == rendezvous_parity};
  }
  zone->seal();
  return {hosts, edges};
}

TEST(RingGroup, ALateRankHoldsUpBothKindsOfEdge) {
  // Four ranks on four hosts, one private 1 GB/s link per ring edge (no latency). Every other edge is a rendezvous
  // between the ranks' own hosts, the others host-to-host communications (as between racks); both ways round, so
  // that each kind has the late rank as its sender once and as its receiver once. Rank 2 reaches the step at 1 s,
  // the others at 0. A 1 GB transfer takes 1 s once it starts, and it starts when both its sender and its receiver
  // have reached the step: 0->1 and 3->0 at 0 s, 1->2 and 2->3 at 1 s. A rank leaves when its own transfer and the
  // one into it have arrived: rank 0 at 1 s, ranks 1, 2 and 3 at 2 s. Third, the same ring with a route ledger: each
  // edge alone on its link, computed (RouteLedger) rather than simulated, with the same ends and no communication.
  for (const int rendezvous_parity : {0, 1, 2}) {
    const bool computed = rendezvous_parity == 2;
    const nlohmann::json ends = vtsim::sim::run_isolated([rendezvous_parity, computed] {
      const auto engine = testing::test_engine(4);
      const auto [hosts, edges] = four_host_ring(rendezvous_parity, 0.0);
      RouteLedger ledger;
      RingGroup ring({1, 2, 3, 0}, edges, computed ? &ledger : nullptr);
      long communications = 0;
      simgrid::s4u::Activity::on_completion_cb([&communications](const simgrid::s4u::Activity& activity) {
        if (dynamic_cast<const simgrid::s4u::Comm*>(&activity) != nullptr) ++communications;
      });
      nlohmann::json result = nlohmann::json::array({0, 0, 0, 0});
      for (int p = 0; p < 4; ++p) {
        simgrid::s4u::Actor::create("rank" + std::to_string(p), hosts[static_cast<std::size_t>(p)], [&, p] {
          if (p == 2) simgrid::s4u::this_actor::sleep_until(1.0);
          ring.start_exchange(p, 1e9);
          const double done_s = ring.finish_exchange(p);
          if (done_s > simgrid::s4u::Engine::get_clock()) simgrid::s4u::this_actor::sleep_until(done_s);
          result[static_cast<std::size_t>(p)] = simgrid::s4u::Engine::get_clock();
        });
      }
      engine->run();
      return nlohmann::json{{"ends", result}, {"communications", communications}, {"computed", ledger.transfers()}};
    });
    EXPECT_EQ(ends.at("computed").get<long>(), computed ? 4 : 0);
    if (computed) {
      EXPECT_EQ(ends.at("communications").get<long>(), 0);
    }
    const nlohmann::json& at = ends.at("ends");
    EXPECT_DOUBLE_EQ(at.at(0).get<double>(), 1.0) << "rendezvous on edges of parity " << rendezvous_parity;
    EXPECT_DOUBLE_EQ(at.at(1).get<double>(), 2.0) << "rendezvous on edges of parity " << rendezvous_parity;
    EXPECT_DOUBLE_EQ(at.at(2).get<double>(), 2.0) << "rendezvous on edges of parity " << rendezvous_parity;
    EXPECT_DOUBLE_EQ(at.at(3).get<double>(), 2.0) << "rendezvous on edges of parity " << rendezvous_parity;
  }
}

TEST(RingGroup, EachTransferStartsWithItsLaterEndAndTakesItsLatencyAndItsSendersBytesAtItsRate) {
  // Four ranks on four hosts, one private 1 GB/s link of 0.25 s latency per ring edge; rank p sends (p + 1) GB, and the
  // edge 3->0 is capped at 0.5 GB/s. Two steps: in the first rank 2 arrives at 1 s, in the second rank 1 at 10 s,
  // the others as soon as their previous step ends. A transfer starts when both its ends have arrived and takes
  // 0.25 s + bytes / rate; a rank leaves when its own and the one into it have ended (derived by hand):
  //   step 1: 0->1 0 + 1.25 = 1.25; 1->2 1 + 2.25 = 3.25; 2->3 1 + 3.25 = 4.25; 3->0 0 + 0.25 + 4 / 0.5 = 8.25.
  //           Ranks end at 8.25, 3.25, 4.25, 8.25.
  //   step 2: 0->1 max(8.25, 10) + 1.25 = 11.25; 1->2 max(10, 4.25) + 2.25 = 12.25; 2->3 max(4.25, 8.25) + 3.25 = 11.5;
  //           3->0 8.25 + 8.25 = 16.5. Ranks end at 16.5, 12.25, 12.25, 16.5.
  // Simulated with every other edge a rendezvous (both ways round), and computed, each edge alone on its link.
  for (const int mode : {0, 1, 2}) {
    const bool computed = mode == 2;
    const nlohmann::json answer = vtsim::sim::run_isolated([mode, computed] {
      const auto engine = testing::test_engine(4);
      auto [hosts, edges] = four_host_ring(mode, 0.25);
      edges[3].rate_cap_Bps = 0.5e9;
      RouteLedger ledger;
      RingGroup ring({1, 2, 3, 0}, edges, computed ? &ledger : nullptr);
      nlohmann::json result = nlohmann::json::array();
      for (int step = 0; step < 2; ++step) result.push_back(nlohmann::json::array({0, 0, 0, 0}));
      for (int p = 0; p < 4; ++p) {
        simgrid::s4u::Actor::create("rank" + std::to_string(p), hosts[static_cast<std::size_t>(p)], [&, p] {
          for (int step = 0; step < 2; ++step) {
            if (step == 0 && p == 2) simgrid::s4u::this_actor::sleep_until(1.0);
            if (step == 1 && p == 1) simgrid::s4u::this_actor::sleep_until(10.0);
            ring.start_exchange(p, (p + 1) * 1e9);
            const double done_s = ring.finish_exchange(p);
            if (done_s > simgrid::s4u::Engine::get_clock()) simgrid::s4u::this_actor::sleep_until(done_s);
            result[static_cast<std::size_t>(step)][static_cast<std::size_t>(p)] = simgrid::s4u::Engine::get_clock();
          }
        });
      }
      engine->run();
      return nlohmann::json{{"ends", result}, {"computed", ledger.transfers()}};
    });
    EXPECT_EQ(answer.at("computed").get<long>(), computed ? 8 : 0);
    const std::vector<std::vector<double>> expected = {{8.25, 3.25, 4.25, 8.25}, {16.5, 12.25, 12.25, 16.5}};
    for (std::size_t step = 0; step < 2; ++step) {
      for (std::size_t p = 0; p < 4; ++p) {
        EXPECT_NEAR(answer.at("ends").at(step).at(p).get<double>(), expected[step][p], 1e-9)
            << "mode " << mode << ", step " << step << ", rank " << p;
      }
    }
  }
}

TEST(AnalyticAllreduce, StartsWhenTheLastRankJoinsIt) {
  // Four ranks join a 0.25 s analytic allreduce at 0, 0.1, 0.2 and 1.0 s; NCCL's collective cannot end before the
  // last has joined, so every rank leaves at 1.0 + 0.25 s. Twice over: the second call waits for its own last rank
  // (joining at 2.0 s), not the first call's.
  const nlohmann::json ends = vtsim::sim::run_isolated([] {
    const auto engine = testing::test_engine(4);
    simgrid::s4u::NetZone* zone = simgrid::s4u::create_full_zone("zone");
    simgrid::s4u::Host* host = zone->create_host("host", 1.0)->seal();
    zone->seal();
    std::unique_ptr<SimulatedCollective> allreduce =
        make_analytic_allreduce([](double, NcclProtocol) { return 0.25; }, 4);
    const std::vector<double> first_join = {0.0, 0.1, 0.2, 1.0};
    const std::vector<double> second_join = {2.0, 1.5, 1.5, 1.5};
    nlohmann::json result = nlohmann::json::array();
    for (std::size_t p = 0; p < 4; ++p) {
      simgrid::s4u::Actor::create("rank" + std::to_string(p), host, [&, p] {
        simgrid::s4u::this_actor::sleep_until(first_join[p]);
        allreduce->run(static_cast<int>(p), 1e6);
        const double first_end = simgrid::s4u::Engine::get_clock();
        simgrid::s4u::this_actor::sleep_until(second_join[p]);
        allreduce->run(static_cast<int>(p), 1e6);
        result.push_back({first_end, simgrid::s4u::Engine::get_clock()});
      });
    }
    engine->run();
    return result;
  });
  ASSERT_EQ(ends.size(), 4U);
  for (const auto& end : ends) {
    EXPECT_DOUBLE_EQ(end[0].get<double>(), 1.25);
    EXPECT_DOUBLE_EQ(end[1].get<double>(), 2.25);
  }
}

}  // namespace
}  // namespace vtsim::sim
