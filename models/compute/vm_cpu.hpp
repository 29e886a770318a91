#pragma once
// How a VM's vCPUs are spent during training (docs/vsphere-model.md, "CPU cores per VM").
//
// A VM is a job's group of ranks on one host; it has virtualization.vm_cpu_cores vCPUs. Each rank's training loop
// holds one core (it issues the kernels). With TCP between hosts, NCCL's socket transport moves every byte through
// the guest's network stack on threads of its own: on a generic NIC one thread per connection (NCCL_SOCKET_NTHREADS
// and NCCL_NSOCKS_PERTHREAD auto-detect to 1 x 1 outside AWS and GCP, src/transport/net_socket.cc), one sending and
// one receiving connection per rank. Those threads get a core each, up to half of the VM's spare cores; the data
// loader's workers take the rest. When both want more than there is, they get equal halves (the kernel's fair
// scheduler gives runnable threads equal time; two groups of equal weight is this model's assumption, uncalibrated).
// RDMA transports (RoCE, PVRDMA) bypass the guest's stack: their proxy threads only post work and take no core here.

namespace vtsim {

/// Where a VM's cores go, in cores (fractions allowed: a share of the time of the spare cores).
struct VmCpuBudget {
  double training_loop_cores = 1;  ///< one per rank
  double network_cores = 0;        ///< TCP: the socket threads' share; 0 for RDMA or a job within one host
  double loader_cores = 1;         ///< the data loader's workers, all ranks of the VM together; > 0
};

/// The budget of a VM of `vm_cpu_cores` vCPUs running `ranks_per_vm` ranks; `tcp` when its ranks exchange data
/// with other hosts over TCP. The spare cores are max(vm_cpu_cores - ranks_per_vm, 1): a VM with no core beyond its
/// training loops still runs its loaders and network threads, on borrowed time.
/// REQUIRES: vm_cpu_cores >= 1, ranks_per_vm >= 1.
VmCpuBudget vm_cpu_budget(int vm_cpu_cores, int ranks_per_vm, bool tcp);

/// The guest's TCP throughput one rank gets in each direction (bytes/s): its share of the VM's network cores, at
/// most one core per direction, times what one core moves through the stack (`core_Bps`).
/// REQUIRES: ranks_per_vm >= 1, core_Bps > 0.
double tcp_stack_Bps_per_direction(const VmCpuBudget& budget, int ranks_per_vm, double core_Bps);

}  // namespace vtsim
