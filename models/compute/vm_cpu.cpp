#include "models/compute/vm_cpu.hpp"

#include <algorithm>
#include <cassert>

namespace vtsim {

VmCpuBudget vm_cpu_budget(int vm_cpu_cores, int ranks_per_vm, bool tcp) {
  assert(vm_cpu_cores >= 1 && ranks_per_vm >= 1);
  const double spare = std::max(vm_cpu_cores - ranks_per_vm, 1);
  VmCpuBudget budget;
  budget.training_loop_cores = ranks_per_vm;
  const double network_threads = tcp ? 2.0 * ranks_per_vm : 0.0;  // a sending and a receiving thread per rank
  // A core per thread, up to half of the spare cores: when both groups want more than there is, equal halves.
  budget.network_cores = std::min(network_threads, spare / 2);
  budget.loader_cores = spare - budget.network_cores;
  return budget;
}

double tcp_stack_Bps_per_direction(const VmCpuBudget& budget, int ranks_per_vm, double core_Bps) {
  assert(ranks_per_vm >= 1 && core_Bps > 0);
  const double cores_per_direction = budget.network_cores / (2.0 * ranks_per_vm);
  return std::min(1.0, cores_per_direction) * core_Bps;
}

}  // namespace vtsim
