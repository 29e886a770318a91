// Transfers alone on their route (sim/engine/route_ledger.hpp): which routes the ledger finds alone, and simulations
// that compute such transfers held to the same simulations with every transfer a SimGrid communication.

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "sim/engine/route_ledger.hpp"
#include "sim_test_support.hpp"

namespace vtsim::sim {
namespace {

namespace sg4 = simgrid::s4u;
using testing::scenario_of;

TEST(RouteLedger, ARouteIsAloneWhenItIsTheOnlyUserOfEachOfItsLinksAndNoneVaries) {
  // Hosts a, b, c: a->b over links 1 (10 GB/s, 1 us) and 2 (5 GB/s, 2 us); a->c over link 1 and link 3; b->c over
  // link 4; c->a over link 5 (1 GB/s, 1 us) twice; b->a over link 5 once. A route alone pays 1 + 2 = 3 us and runs at
  // link 2's 5 GB/s; c->a, alone, pays 2 x 1 us and runs at half of link 5's 1 GB/s (its flow loads link 5 twice), as
  // a SimGrid flow of 1 GB on it does (2 s); with b->a beside it, neither is alone.
  const nlohmann::json answer = vtsim::sim::run_isolated([] {
    const auto engine = testing::test_engine(1);
    sg4::NetZone* zone = sg4::create_full_zone("zone");
    sg4::Host* a = zone->create_host("a", 1.0)->seal();
    sg4::Host* b = zone->create_host("b", 1.0)->seal();
    sg4::Host* c = zone->create_host("c", 1.0)->seal();
    sg4::Link* l1 = zone->create_link("l1", 10e9)->set_latency(1e-6)->seal();
    sg4::Link* l2 = zone->create_link("l2", 5e9)->set_latency(2e-6)->seal();
    sg4::Link* l3 = zone->create_link("l3", 1e9)->set_latency(0)->seal();
    sg4::Link* l4 = zone->create_link("l4", 1e9)->set_latency(0)->seal();
    zone->add_route(a->get_netpoint(), b->get_netpoint(), nullptr, nullptr,
                    {sg4::LinkInRoute(l1), sg4::LinkInRoute(l2)}, false);
    zone->add_route(a->get_netpoint(), c->get_netpoint(), nullptr, nullptr,
                    {sg4::LinkInRoute(l1), sg4::LinkInRoute(l3)}, false);
    zone->add_route(b->get_netpoint(), c->get_netpoint(), nullptr, nullptr, {sg4::LinkInRoute(l4)}, false);
    sg4::Link* l5 = zone->create_link("l5", 1e9)->set_latency(1e-6)->seal();
    zone->add_route(c->get_netpoint(), a->get_netpoint(), nullptr, nullptr,
                    {sg4::LinkInRoute(l5), sg4::LinkInRoute(l5)}, false);
    zone->add_route(b->get_netpoint(), a->get_netpoint(), nullptr, nullptr, {sg4::LinkInRoute(l5)}, false);
    zone->seal();
    // Each question in a ledger of its own: the first question closes a ledger to further counting.
    const auto found = [](RouteLedger& ledger, RouteLedger::RouteId route) {
      const auto alone = ledger.alone(route);
      return alone ? nlohmann::json{alone->latency_s, alone->bandwidth_Bps} : nlohmann::json();
    };
    nlohmann::json result;
    {
      RouteLedger ledger;
      const auto ab = ledger.add_user(a, b);
      ledger.add_user(b, c);
      result["one user"] = found(ledger, ab);
    }
    {
      RouteLedger ledger;
      const auto ab = ledger.add_user(a, b);
      const auto ac = ledger.add_user(a, c);  // link 1 now has two users: neither route is alone
      result["a->b sharing link 1"] = found(ledger, ab);
      result["a->c sharing link 1"] = found(ledger, ac);
    }
    {
      RouteLedger ledger;
      const auto bc = ledger.add_user(b, c);
      const auto ca = ledger.add_user(c, a);  // link 5 twice: one user, which loads it twice
      result["b->c"] = found(ledger, bc);
      result["c->a through link 5 twice"] = found(ledger, ca);
    }
    {
      RouteLedger ledger;
      const auto ca = ledger.add_user(c, a);
      ledger.add_user(b, a);
      result["c->a beside b->a"] = found(ledger, ca);
    }
    {
      RouteLedger ledger;
      const auto bc = ledger.add_user(b, c);
      ledger.add_varying(l4);
      result["b->c varying"] = found(ledger, bc);
    }
    {
      RouteLedger ledger;
      const auto bc = ledger.add_user(b, c);
      ledger.disable();
      result["disabled"] = found(ledger, bc);
    }
    // What SimGrid gives a lone flow of 1 GB from c to a.
    sg4::Actor::create("sender", c, [&result, c, a] {
      sg4::Comm::sendto(c, a, 1000000000);
      result["c->a simulated_s"] = sg4::Engine::get_clock();
    });
    sg4::Engine::get_instance()->run();
    return result;
  });
  ASSERT_TRUE(answer.at("one user").is_array());
  EXPECT_DOUBLE_EQ(answer.at("one user").at(0).get<double>(), 3e-6);
  EXPECT_DOUBLE_EQ(answer.at("one user").at(1).get<double>(), 5e9);
  EXPECT_TRUE(answer.at("a->b sharing link 1").is_null());
  EXPECT_TRUE(answer.at("a->c sharing link 1").is_null());
  ASSERT_TRUE(answer.at("b->c").is_array());
  EXPECT_DOUBLE_EQ(answer.at("b->c").at(1).get<double>(), 1e9);
  ASSERT_TRUE(answer.at("c->a through link 5 twice").is_array());
  EXPECT_DOUBLE_EQ(answer.at("c->a through link 5 twice").at(0).get<double>(), 2e-6);
  EXPECT_DOUBLE_EQ(answer.at("c->a through link 5 twice").at(1).get<double>(), 0.5e9);
  EXPECT_NEAR(answer.at("c->a simulated_s").get<double>(), 2e-6 + 1e9 / 0.5e9, 1e-9);
  EXPECT_TRUE(answer.at("c->a beside b->a").is_null());
  EXPECT_TRUE(answer.at("b->c varying").is_null());
  EXPECT_TRUE(answer.at("disabled").is_null());
}

nlohmann::json result_of(const Scenario& scenario) {
  return vtsim::sim::run_isolated([&] { return to_json(runner::simulate(scenario)); });
}

/// Holds a simulation that computes transfers alone on their route to the same one simulating every transfer
/// (simulation.reduce_flows false): the same steps and traffic, and as many transfers in all.
void expect_same_as_every_transfer_simulated(const nlohmann::json& json, const std::string& name) {
  const nlohmann::json computed = result_of(scenario_of(json));
  const nlohmann::json simulated = result_of(scenario_of(json, {"simulation.reduce_flows=false"}));
  EXPECT_EQ(simulated.at("transfers_alone").get<long>(), 0) << name;
  // Every transfer is one communication when simulated (a rendezvous is counted once), and either one or the other
  // when some are computed.
  EXPECT_EQ(computed.at("communications").get<long>() + computed.at("transfers_alone").get<long>(),
            simulated.at("communications").get<long>())
      << name;
  const nlohmann::json& job = computed.at("jobs").at(0);
  const nlohmann::json& reference = simulated.at("jobs").at(0);
  ASSERT_EQ(job.at("step_times_s").size(), reference.at("step_times_s").size()) << name;
  for (std::size_t i = 0; i < reference.at("step_times_s").size(); ++i) {
    const double step = reference.at("step_times_s").at(i).get<double>();
    // SimGrid ends an activity within its timing precision (surf/precision, 1e-9 s): a relative 1e-9 and that.
    EXPECT_NEAR(job.at("step_times_s").at(i).get<double>(), step, 1e-9 * step + 1e-9) << name << ", step " << i;
  }
  ASSERT_EQ(computed.at("link_classes").size(), simulated.at("link_classes").size()) << name;
  for (std::size_t c = 0; c < simulated.at("link_classes").size(); ++c) {
    const double bytes_per_s = simulated.at("link_classes").at(c).at("bytes_per_s").get<double>();
    EXPECT_NEAR(computed.at("link_classes").at(c).at("bytes_per_s").get<double>(), bytes_per_s, 1e-9 * bytes_per_s)
        << name << ", " << simulated.at("link_classes").at(c).at("class");
  }
}

TEST(AloneTransfers, ComputedTheyGiveTheStepsOfEveryTransferSimulatedWithStragglersAndSharedUplinks) {
  // 64 A100s in 2 racks of 4 hosts, the racks joined by 2 spines. With one NIC per host, NCCL's one ring crosses each
  // NIC and each uplink once: every transfer is alone on its route, so the steps are the computed transfers' alone.
  // With one NIC per GPU (rails), ring edges between hosts of a rack are alone on their NICs, edges between racks
  // share the spines' uplinks (ECMP), and the edges within a host cross the GPUs' memory links (the job's many
  // channels can saturate them), which kernels re-rate: both kinds run.
  // Per-iteration variability, a 5% spread of the GPUs' speeds (the slowest GPU a straggler every iteration) and a
  // 20 ms stall one iteration in five.
  for (const auto& [framework, nics] : std::vector<std::pair<std::string, int>>{
           {"horovod", 1}, {"pytorch_ddp", 1}, {"horovod", 8}, {"pytorch_ddp", 8}}) {
    const std::string name = framework + ", " + std::to_string(nics) + " NIC(s) per host";
    const nlohmann::json json = {
        {"cluster",
         {{"racks", 2},
          {"hosts_per_rack", 4},
          {"host", {{"gpus", 8}, {"gpu_model", "a100-80gb-sxm4"}, {"nics", nics}, {"nic_model", "connectx-6-200gb"}}},
          {"transport", "roce_v2"},
          {"fabric", {{"spines", 2}, {"uplink_gbps", 200}}}}},
        {"jobs",
         {{{"workload", "bert-large-pretrain-seq128"},
           {"batch_per_gpu", 32},
           {"data_parallel", framework},
           {"iterations", 4},
           {"warmup_iterations", 1}}}},
        {"simulation",
         {{"fidelity", "flow"},
          {"gpu_speed_cv", 0.05},
          {"stalls", {{"per_iteration_probability", 0.2}, {"duration_ms", 20}}}}}};
    const nlohmann::json computed = result_of(scenario_of(json));
    EXPECT_GT(computed.at("transfers_alone").get<long>(), 0) << name;
    if (nics == 1) {
      EXPECT_EQ(computed.at("communications").get<long>(), 0) << name;
    } else {
      EXPECT_GT(computed.at("communications").get<long>(), 0) << name;
    }
    expect_same_as_every_transfer_simulated(json, name);
  }
}

TEST(AloneTransfers, PipelineTransfersKeepTheEdgesTheyShareSimulated) {
  // Tensor 4 x pipeline 2 x data 2 on 4 hosts of 4 GPUs, one NIC per GPU: each data-parallel ring edge leaves by the
  // NIC its GPU's pipeline transfers take too. The ledger counts the pipeline's routes, so those edges stay SimGrid
  // communications, sharing the NIC with the pipeline as in the full simulation.
  for (const std::string schedule : {"1f1b", "interleaved"}) {
    nlohmann::json json = testing::split_gpt(schedule, 0, 3);
    json["cluster"]["host"]["nics"] = 4;
    json["simulation"] = {{"fidelity", "flow"}};
    expect_same_as_every_transfer_simulated(json, schedule);
  }
}

}  // namespace
}  // namespace vtsim::sim
