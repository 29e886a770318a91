// How a VM's cores are spent, against hand counts of the rule in models/compute/vm_cpu.hpp.

#include "models/compute/vm_cpu.hpp"

#include <gtest/gtest.h>

namespace vtsim {
namespace {

TEST(VmCpuBudget, RdmaLeavesEverySpareCoreToTheLoaders) {
  // 24 vCPUs, 4 ranks: 4 training loops, 20 spare cores, no socket threads.
  const VmCpuBudget budget = vm_cpu_budget(24, 4, false);
  EXPECT_DOUBLE_EQ(budget.training_loop_cores, 4);
  EXPECT_DOUBLE_EQ(budget.network_cores, 0);
  EXPECT_DOUBLE_EQ(budget.loader_cores, 20);
}

TEST(VmCpuBudget, TcpSocketThreadsTakeACoreEachWhileHalfTheSpareCoresAllow) {
  // 24 vCPUs, 4 ranks, TCP: 8 socket threads (a sender and a receiver per rank) <= 20 / 2: 8 cores, 12 left.
  const VmCpuBudget plenty = vm_cpu_budget(24, 4, true);
  EXPECT_DOUBLE_EQ(plenty.network_cores, 8);
  EXPECT_DOUBLE_EQ(plenty.loader_cores, 12);
  // 12 vCPUs: 8 spare, the 8 threads get half of them, the loaders the other half.
  const VmCpuBudget scarce = vm_cpu_budget(12, 4, true);
  EXPECT_DOUBLE_EQ(scarce.network_cores, 4);
  EXPECT_DOUBLE_EQ(scarce.loader_cores, 4);
  // 4 vCPUs for 4 ranks: one borrowed spare core, split in halves.
  const VmCpuBudget none = vm_cpu_budget(4, 4, true);
  EXPECT_DOUBLE_EQ(none.network_cores, 0.5);
  EXPECT_DOUBLE_EQ(none.loader_cores, 0.5);
}

TEST(TcpStack, ARankGetsItsShareOfTheNetworkCoresAtMostOneCorePerDirection) {
  const double core_Bps = 15e9 / 8;
  // Enough cores: each of a rank's two threads has one: one core's rate each way.
  EXPECT_DOUBLE_EQ(tcp_stack_Bps_per_direction(vm_cpu_budget(24, 4, true), 4, core_Bps), core_Bps);
  // 12 vCPUs, 4 ranks: 4 network cores for 8 threads: half a core's rate each way.
  EXPECT_DOUBLE_EQ(tcp_stack_Bps_per_direction(vm_cpu_budget(12, 4, true), 4, core_Bps), core_Bps / 2);
  // 2 vCPUs, 1 rank: 1 spare core, half of it to 2 threads: a quarter of a core each way.
  EXPECT_DOUBLE_EQ(tcp_stack_Bps_per_direction(vm_cpu_budget(2, 1, true), 1, core_Bps), core_Bps / 4);
}

}  // namespace
}  // namespace vtsim
