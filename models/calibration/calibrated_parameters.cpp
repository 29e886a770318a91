#include "models/calibration/calibrated_parameters.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <set>
#include <string_view>

#include "models/catalog/gpu_catalog.hpp"
#include "models/catalog/gpu_name_match.hpp"
#include "models/catalog/link_defaults.hpp"
#include "models/collectives/collective_model.hpp"
#include "models/compute/variability.hpp"
#include "models/core/units.hpp"

// Rules, in the order they are applied. "Bandwidth" of a fit is its last segment's beta (the largest messages) and
// "latency" its first segment's alpha (the smallest), or the single line's when it has no segments.
//
//  1. Ring collectives on one host (fits of all_reduce, reduce_scatter, all_gather series with hosts == 1, labelled
//     by `vtsim calibrate fit` with ring_link_class() of the topology): the fit is on bus bytes, so its beta is the
//     bus bandwidth, which is what each link of a ring carries (nccl-tests doc/PERFORMANCE.md) -> the class's
//     bandwidth. Its alpha spreads over the ring's steps, 2(n-1) for all_reduce, n-1 for the others -> one step's
//     latency. nvlink takes the step; pcie half of it (a step crosses two PCIe links); host_memory what the step
//     adds beyond its two PCIe links (step - 2 x the pcie link latency, calibrated or NCCL's 5.7 us / 2, at least 0).
//     all_reduce is preferred to the others; among equals, the first series in the profile wins.
//  2. GPU probe P2P matrix, for a class rule 1 left open: pairs the topology says are NV# -> nvlink, PIX/PXB -> pcie;
//     the median bandwidth of those pairs, the median latency (halved for pcie). One pair's copy uses only that
//     pair's links: on a full NVLink mesh NCCL's rings use every pair at once, so prefer rule 1 there.
//  3. pcie bandwidth still open: min(h2d, d2h) of the GPU probe (pinned copies over the GPU's own link).
//  4. RDMA fits, per transport: latency from the latency test of op write (else send, else read), whose points are
//     perftest's typical one-way latency; bandwidth from the bandwidth test's fit (time per message = bytes / average
//     bandwidth), else from the latency fit's slope.
//  5. GEMM: gemm_efficiency curves give the asymptotic throughput per precision and, with a catalog GPU, its
//     efficiency against the datasheet peak; without curves, the best measured throughput per precision and, with a
//     catalog GPU (gpu.catalog_gpu), its efficiency against the datasheet peak.
//  6. memory bandwidth, kernel launch, context switch and collective SM share: the GPU probe's values as they are.
//  7. step-time spread: the pooled coefficient of variation of the step_times series (apply_step_times).
//  8. Horovod's negotiation message: the median over the horovod_timelines series of each one's median negotiation
//     divided by its tree's 2 ceil(log2 ranks) messages (apply_horovod_timelines).

namespace vtsim {
namespace {

constexpr double kGBps = units::kBytesPerSecondPerGBps;
constexpr double kUs = units::kSecondsPerUs;

std::string describe(const CalibrationProfile& profile, const std::string& path, const Provenance& provenance,
                     const std::string& what) {
  std::string text = profile.file.empty() ? path : profile.file + ": " + path;
  std::string source = provenance.tool;
  for (const std::string* field : {&provenance.device, &provenance.host, &provenance.date}) {
    if (!field->empty()) source += ", " + *field;
  }
  return text + " (" + source + "): " + what;
}

// The index N of "PREFIX[N]", or -1.
int subject_index(const std::string& subject, std::string_view prefix) {
  if (subject.size() < prefix.size() + 3 || subject.compare(0, prefix.size(), prefix) != 0) return -1;
  if (subject[prefix.size()] != '[' || subject.back() != ']') return -1;
  int index = -1;
  const char* begin = subject.data() + prefix.size() + 1;
  const char* end = subject.data() + subject.size() - 1;
  const auto [rest, error] = std::from_chars(begin, end, index);
  return error == std::errc() && rest == end ? index : -1;
}

double fit_bandwidth_gBps(const AlphaBetaFit& fit) {
  return fit.segments.empty() ? fit.beta_gBps : fit.segments.back().beta_gBps;
}

double fit_latency_us(const AlphaBetaFit& fit) {
  return fit.segments.empty() ? fit.alpha_us : fit.segments.front().alpha_us;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

int connection_rank(const std::string& connection) {
  static const std::vector<std::string> kOrder = {"PIX", "PXB", "PHB", "NODE", "SYS"};
  if (nvlink_count(connection)) return 0;
  const auto found = std::find(kOrder.begin(), kOrder.end(), connection);
  return found == kOrder.end() ? static_cast<int>(kOrder.size()) : 1 + static_cast<int>(found - kOrder.begin());
}

std::string gpu_name(int index) { return "GPU" + std::to_string(index); }

// ---- rule 1 -------------------------------------------------------------------------------------------------------

struct CollectiveCandidate {
  int preference = 0;  // 0 all_reduce, 1 reduce_scatter / all_gather
  std::size_t fit_index = 0;
  const CollectiveSeries* series = nullptr;
};

// The steps of a ring collective series (an allreduce, a reduce-scatter or an allgather).
int series_ring_steps(const CollectiveSeries& series) {
  return RingAlgorithm(series.op == "all_reduce" ? Collective::allreduce : Collective::allgather, series.ranks).steps();
}

void apply_collectives(const CalibrationProfile& profile, CalibratedParameters& out) {
  if (!profile.fits) return;
  std::map<std::string, std::vector<CollectiveCandidate>> by_class;
  for (std::size_t i = 0; i < profile.fits->alpha_beta.size(); ++i) {
    const AlphaBetaFit& fit = profile.fits->alpha_beta[i];
    const int index = subject_index(fit.subject, "collectives");
    if (index < 0 || index >= static_cast<int>(profile.collectives.size())) continue;
    const CollectiveSeries& series = profile.collectives[index];
    const bool ring = series.op == "all_reduce" || series.op == "reduce_scatter" || series.op == "all_gather";
    const std::string path = "fits.alpha_beta[" + std::to_string(i) + "]";
    if (!ring || series.ranks < 2 || fit.link_class.empty() || fit.link_class == "nic") {
      out.notes.push_back(path + " (" + fit.subject + ", " + series.op + "): not used: only ring collectives of >= 2 "
                          "ranks on one host whose topology is known calibrate a link class");
      continue;
    }
    by_class[fit.link_class].push_back({series.op == "all_reduce" ? 0 : 1, i, &series});
  }
  // pcie first: host_memory's latency subtracts the PCIe links'.
  for (const char* link_class : {"nvlink", "pcie", "host_memory"}) {
    std::vector<CollectiveCandidate>& candidates = by_class[link_class];
    if (candidates.empty()) continue;
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const auto& a, const auto& b) { return a.preference < b.preference; });
    const CollectiveCandidate& chosen = candidates.front();
    const AlphaBetaFit& fit = profile.fits->alpha_beta[chosen.fit_index];
    const std::string path = "fits.alpha_beta[" + std::to_string(chosen.fit_index) + "]";
    const std::string source = fit.subject + " " + chosen.series->op + " over " +
                               std::to_string(chosen.series->ranks) + " GPUs";
    const double step_s = fit_latency_us(fit) * kUs / series_ring_steps(*chosen.series);
    CalibratedLink link;
    link.bandwidth_Bps = CalibratedValue{fit_bandwidth_gBps(fit) * kGBps,
                                         describe(profile, path, chosen.series->provenance,
                                                  "bus bandwidth of " + source)};
    const std::string step_text =
        "step latency (alpha / " + std::to_string(series_ring_steps(*chosen.series)) + ") of " + source;
    if (std::string(link_class) == "nvlink") {
      link.latency_s = CalibratedValue{step_s, describe(profile, path, chosen.series->provenance, step_text)};
    } else if (std::string(link_class) == "pcie") {
      link.latency_s = CalibratedValue{step_s / 2, describe(profile, path, chosen.series->provenance,
                                                            "half the " + step_text)};
    } else {
      const double pcie_link_s = out.pcie.latency_s ? out.pcie.latency_s->value : pcie_default(4).latency_s;
      link.latency_s = CalibratedValue{std::max(0.0, step_s - 2 * pcie_link_s),
                                       describe(profile, path, chosen.series->provenance,
                                                step_text + " less its two PCIe links")};
    }
    CalibratedLink& target = std::string(link_class) == "nvlink" ? out.nvlink
                             : std::string(link_class) == "pcie" ? out.pcie
                                                                 : out.host_memory;
    target = link;
    for (std::size_t i = 1; i < candidates.size(); ++i) {
      out.notes.push_back("fits.alpha_beta[" + std::to_string(candidates[i].fit_index) + "] (" +
                          profile.fits->alpha_beta[candidates[i].fit_index].subject + "): not used: " + link_class +
                          " already calibrated by " + fit.subject);
    }
  }
}

// ---- rules 2 and 3 --------------------------------------------------------------------------------------------------

void apply_p2p(const CalibrationProfile& profile, CalibratedParameters& out) {
  if (!profile.gpu || profile.gpu->p2p.empty()) return;
  const GpuSection& gpu = *profile.gpu;
  if (!profile.topology) {
    out.notes.push_back("gpu.p2p: not used: without a topology the link class of each pair is unknown");
    return;
  }
  for (const bool nvlink : {true, false}) {
    CalibratedLink& target = nvlink ? out.nvlink : out.pcie;
    if (target.bandwidth_Bps) continue;
    std::vector<double> bandwidths_gBps;
    std::vector<double> latencies_us;
    for (const P2pMeasurement& pair : gpu.p2p) {
      const std::optional<std::string> connection =
          profile.topology->connection(gpu_name(pair.src), gpu_name(pair.dst));
      if (!connection) continue;
      const int rank = connection_rank(*connection);
      if ((nvlink && rank != 0) || (!nvlink && (rank < 1 || rank > 2))) continue;
      bandwidths_gBps.push_back(pair.bandwidth_gBps);
      if (pair.latency_us) latencies_us.push_back(*pair.latency_us);
    }
    if (bandwidths_gBps.empty()) continue;
    const std::string pairs = std::to_string(bandwidths_gBps.size()) + (nvlink ? " NVLink" : " PCIe P2P") + " pairs";
    target.bandwidth_Bps = CalibratedValue{median(bandwidths_gBps) * kGBps,
                                           describe(profile, "gpu.p2p", gpu.provenance,
                                                    "median copy bandwidth of " + pairs + " (one pair's links)")};
    if (!latencies_us.empty() && !target.latency_s) {
      const double factor = nvlink ? 1.0 : 0.5;
      target.latency_s = CalibratedValue{median(latencies_us) * kUs * factor,
                                         describe(profile, "gpu.p2p", gpu.provenance,
                                                  std::string(nvlink ? "median" : "half the median") +
                                                      " small-copy latency of " + pairs)};
    }
  }
}

void apply_host_copies(const CalibrationProfile& profile, CalibratedParameters& out) {
  if (!profile.gpu || out.pcie.bandwidth_Bps || !profile.gpu->h2d_gBps || !profile.gpu->d2h_gBps) return;
  const GpuSection& gpu = *profile.gpu;
  out.pcie.bandwidth_Bps = CalibratedValue{std::min(*gpu.h2d_gBps, *gpu.d2h_gBps) * kGBps,
                                           describe(profile, "gpu.h2d_gBps/d2h_gBps", gpu.provenance,
                                                    "the slower of pinned host-to-device and device-to-host copies")};
}

// ---- rule 4 -------------------------------------------------------------------------------------------------------

void apply_rdma(const CalibrationProfile& profile, CalibratedParameters& out) {
  if (!profile.fits) return;
  struct Choice {
    int op_rank = 99;
    std::size_t fit_index = 0;
  };
  const auto op_rank = [](const std::string& op) { return op == "write" ? 0 : op == "send" ? 1 : 2; };
  std::map<std::string, Choice> latency;
  std::map<std::string, Choice> bandwidth;
  for (std::size_t i = 0; i < profile.fits->alpha_beta.size(); ++i) {
    const int index = subject_index(profile.fits->alpha_beta[i].subject, "rdma");
    if (index < 0 || index >= static_cast<int>(profile.rdma.size())) continue;
    const RdmaSeries& series = profile.rdma[index];
    Choice& slot = series.test == "latency" ? latency[series.transport] : bandwidth[series.transport];
    if (op_rank(series.op) < slot.op_rank) slot = {op_rank(series.op), i};
  }
  const auto series_of = [&](std::size_t fit_index) -> const RdmaSeries& {
    return profile.rdma[subject_index(profile.fits->alpha_beta[fit_index].subject, "rdma")];
  };
  for (const auto& [transport, choice] : latency) {
    const AlphaBetaFit& fit = profile.fits->alpha_beta[choice.fit_index];
    const RdmaSeries& series = series_of(choice.fit_index);
    const std::string path = "fits.alpha_beta[" + std::to_string(choice.fit_index) + "]";
    CalibratedLink& link = out.nic[transport];
    link.latency_s = CalibratedValue{fit_latency_us(fit) * kUs,
                                     describe(profile, path, series.provenance,
                                              "one-way latency fit of " + fit.subject + " (RDMA " + series.op + ")")};
    if (!bandwidth.count(transport)) {
      link.bandwidth_Bps = CalibratedValue{fit_bandwidth_gBps(fit) * kGBps,
                                           describe(profile, path, series.provenance,
                                                    "slope of the latency fit of " + fit.subject +
                                                        " (no bandwidth test for this transport)")};
    }
  }
  for (const auto& [transport, choice] : bandwidth) {
    const AlphaBetaFit& fit = profile.fits->alpha_beta[choice.fit_index];
    const RdmaSeries& series = series_of(choice.fit_index);
    const std::string path = "fits.alpha_beta[" + std::to_string(choice.fit_index) + "]";
    out.nic[transport].bandwidth_Bps =
        CalibratedValue{fit_bandwidth_gBps(fit) * kGBps,
                        describe(profile, path, series.provenance,
                                 "large-message bandwidth of " + fit.subject + " (RDMA " + series.op + ")")};
  }
}

// ---- rules 5 and 6 --------------------------------------------------------------------------------------------------

void apply_gpu(const CalibrationProfile& profile, CalibratedParameters& out) {
  if (profile.gemm_efficiency) {
    const GemmEfficiencySection& section = *profile.gemm_efficiency;
    for (std::size_t i = 0; i < section.curves.size(); ++i) {
      const GemmEfficiencyCurve& curve = section.curves[i];
      const std::string path = "gemm_efficiency.curves[" + std::to_string(i) + "]";
      out.gemm_flops[curve.precision] = {units::tflops_to_flops(curve.asymptotic_tflops),
                                         describe(profile, path, section.provenance, "asymptotic GEMM throughput")};
      if (curve.max_efficiency) {
        out.gemm_flop_efficiency[curve.precision] = {
            *curve.max_efficiency, describe(profile, path, section.provenance, "asymptotic GEMM throughput / peak")};
      }
    }
  }
  if (!profile.gpu) return;
  const GpuSection& gpu = *profile.gpu;
  for (const GemmMeasurement& gemm : gpu.gemm) {
    if (profile.gemm_efficiency) break;
    const double flops = units::tflops_to_flops(gemm.tflops);
    auto found = out.gemm_flops.find(gemm.precision);
    if (found == out.gemm_flops.end() || found->second.value < flops) {
      out.gemm_flops[gemm.precision] = {flops, describe(profile, "gpu.gemm", gpu.provenance,
                                                        "best measured GEMM throughput (no fitted curve)")};
    }
  }
  // Without curves, the best measured throughput against the catalog GPU's peak (rule 5).
  const GpuSpec* catalog = gpu.catalog_gpu.empty() ? nullptr : find_gpu(gpu.catalog_gpu);
  for (const auto& [precision, flops] : out.gemm_flops) {
    if (profile.gemm_efficiency || catalog == nullptr || !catalog->peak_flops(precision)) continue;
    out.gemm_flop_efficiency[precision] = {flops.value / *catalog->peak_flops(precision),
                                           flops.provenance + " / the " + catalog->id + " datasheet peak"};
  }
  if (gpu.memory_bandwidth_gBps) {
    out.memory_bandwidth_Bps = CalibratedValue{*gpu.memory_bandwidth_gBps * kGBps,
                                               describe(profile, "gpu.memory_bandwidth_gBps", gpu.provenance,
                                                        "device-to-device copy, bytes read and written")};
  }
  if (gpu.kernel_launch_us) {
    out.kernel_launch_s = CalibratedValue{*gpu.kernel_launch_us * kUs,
                                          describe(profile, "gpu.kernel_launch_us", gpu.provenance, "measured")};
  }
  if (gpu.context_switch_us) {
    out.context_switch_s = CalibratedValue{*gpu.context_switch_us * kUs,
                                           describe(profile, "gpu.context_switch_us", gpu.provenance, "measured")};
  }
  if (gpu.collective_sm_share) {
    out.collective_sm_share = CalibratedValue{*gpu.collective_sm_share,
                                              describe(profile, "gpu.collective_sm_share", gpu.provenance, "measured")};
  }
}

}  // namespace

const CalibratedLink* CalibratedParameters::nic_for(Transport transport) const {
  auto found = nic.find(std::string(to_string(transport)));
  if (found == nic.end() && (transport == Transport::roce_v1 || transport == Transport::roce_v2)) {
    found = nic.find("roce");
  }
  return found == nic.end() ? nullptr : &found->second;
}

std::string ring_link_class(const TopologySection& topology, const std::vector<int>& gpus) {
  if (gpus.size() < 2) return "";
  const std::size_t n = gpus.size();
  std::vector<std::vector<int>> rank(n, std::vector<int>(n, 0));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      const std::optional<std::string> connection = topology.connection(gpu_name(gpus[i]), gpu_name(gpus[j]));
      if (!connection) return "";
      rank[i][j] = rank[j][i] = connection_rank(*connection);
    }
  }
  // The best ring: the one whose worst hop is least bad (NCCL searches for rings over the fastest paths). Exhaustive
  // up to 9 GPUs (8! orders with the first fixed); beyond, the worst pair bounds it.
  int best = 0;
  if (n <= 9) {
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    best = 99;
    do {
      int worst = 0;
      for (std::size_t i = 0; i < n; ++i) worst = std::max(worst, rank[order[i]][order[(i + 1) % n]]);
      best = std::min(best, worst);
    } while (std::next_permutation(order.begin() + 1, order.end()));
  } else {
    for (const auto& row : rank) best = std::max(best, *std::max_element(row.begin(), row.end()));
  }
  if (best == 0) return "nvlink";
  return best <= 2 ? "pcie" : "host_memory";
}

namespace {

// ---- rule 7 ---------------------------------------------------------------------------------------------------------

/// Step-time spread: the pooled coefficient of variation of the step_times series, sqrt(sum (n_i - 1) cv_i^2 /
/// sum (n_i - 1)), each series taken relative to its own mean (runs of different models or batches pool alike).
void apply_step_times(const CalibrationProfile& profile, CalibratedParameters& out) {
  if (profile.step_times.empty()) return;
  double weighted = 0;
  double degrees = 0;
  for (const StepTimeSeries& series : profile.step_times) {
    const double cv = coefficient_of_variation(series.times_s);
    const double n = static_cast<double>(series.times_s.size()) - 1;
    weighted += n * cv * cv;
    degrees += n;
  }
  const StepTimeSeries& first = profile.step_times.front();
  const std::string what = "per-iteration step-time spread of " + std::to_string(profile.step_times.size()) +
                           " single-GPU log(s), " + std::to_string(static_cast<long>(degrees) +
                                                                    static_cast<long>(profile.step_times.size())) +
                           " steps";
  out.step_time_cv = CalibratedValue{std::sqrt(weighted / degrees), describe(profile, "step_times", first.provenance, what)};
}

// ---- rule 8 ---------------------------------------------------------------------------------------------------------

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/// Horovod's negotiation per tree message: per timeline, the median of its negotiations (the coordinator's time from
/// the last rank's report to its decision) over the 2 ceil(log2 N) messages of a tree over its N ranks; the median
/// over timelines.
void apply_horovod_timelines(const CalibrationProfile& profile, CalibratedParameters& out) {
  if (profile.horovod_timelines.empty()) return;
  std::vector<double> per_message_s;
  std::size_t negotiations = 0;
  for (const HorovodTimelineSeries& series : profile.horovod_timelines) {
    const double messages = 2 * std::ceil(std::log2(static_cast<double>(series.ranks)));
    per_message_s.push_back(median_of(series.negotiation_us) * kUs / messages);
    negotiations += series.negotiation_us.size();
  }
  const HorovodTimelineSeries& first = profile.horovod_timelines.front();
  const std::string what = "Horovod negotiation per tree message, median of " + std::to_string(negotiations) +
                           " negotiations in " + std::to_string(profile.horovod_timelines.size()) + " timeline(s) of " +
                           std::to_string(first.ranks) + (profile.horovod_timelines.size() > 1 ? "+" : "") + " ranks";
  out.horovod_negotiation_message_s =
      CalibratedValue{median_of(per_message_s), describe(profile, "horovod_timelines", first.provenance, what)};
}

void apply_host(const CalibrationProfile& profile, CalibratedParameters& out) {
  if (!profile.host) return;
  const HostSection& host = *profile.host;
  const std::string measured = "measured in host-bound " + std::string(to_string(host.framework)) +
                               (host.framework_version.empty() ? "" : " " + host.framework_version) +
                               " training steps" + (host.cpu_model.empty() ? "" : " on " + host.cpu_model);
  CalibratedDispatch dispatch{
      .framework = host.framework,
      .eager_s = {host.eager_us_per_launch * kUs,
                  describe(profile, "host.eager_us_per_launch", host.provenance,
                           measured + " (wall time over " + std::to_string(host.eager_launches) + " launches)")},
      .graph_node_s = std::nullopt,
      .launch_call_s = std::nullopt};
  if (host.graph_us_per_node) {
    dispatch.graph_node_s = CalibratedValue{*host.graph_us_per_node * kUs,
                                            describe(profile, "host.graph_us_per_node", host.provenance,
                                                     measured + ", replayed as one CUDA graph")};
  }
  if (host.launch_call_us) {
    dispatch.launch_call_s = CalibratedValue{
        *host.launch_call_us * kUs,
        describe(profile, "host.launch_call_us", host.provenance,
                 measured + " (the median CUDA launch call of " + std::to_string(host.launch_calls) + " kernels)")};
  }
  out.host_dispatch = dispatch;
}

}  // namespace

CalibratedParameters calibrated_parameters(const CalibrationProfile& profile) {
  CalibratedParameters out;
  apply_step_times(profile, out);
  apply_horovod_timelines(profile, out);
  apply_collectives(profile, out);
  apply_p2p(profile, out);
  apply_host_copies(profile, out);
  apply_rdma(profile, out);
  apply_gpu(profile, out);
  apply_host(profile, out);
  for (std::size_t i = 0; i < profile.collectives.size(); ++i) {
    const std::string subject = "collectives[" + std::to_string(i) + "]";
    const bool fitted = profile.fits && std::any_of(profile.fits->alpha_beta.begin(), profile.fits->alpha_beta.end(),
                                                    [&](const AlphaBetaFit& fit) { return fit.subject == subject; });
    if (!fitted) out.notes.push_back(subject + ": not used: not fitted (run `vtsim calibrate fit`)");
  }
  for (std::size_t i = 0; i < profile.rdma.size(); ++i) {
    const std::string subject = "rdma[" + std::to_string(i) + "]";
    const bool fitted = profile.fits && std::any_of(profile.fits->alpha_beta.begin(), profile.fits->alpha_beta.end(),
                                                    [&](const AlphaBetaFit& fit) { return fit.subject == subject; });
    if (!fitted) out.notes.push_back(subject + ": not used: not fitted (run `vtsim calibrate fit`)");
  }
  return out;
}

std::vector<std::string> calibration_mismatches(const CalibrationProfile& profile, const CalibratedBox& box) {
  std::vector<std::string> found;
  const std::string hosts = "the cluster's hosts have " + std::to_string(box.gpus_per_host) + " " + box.gpu_model;
  if (profile.gpu && !profile.gpu->catalog_gpu.empty() && profile.gpu->catalog_gpu != box.gpu_model) {
    found.push_back("gpu: measured a " + profile.gpu->catalog_gpu + ", " + hosts);
  }
  if (!profile.fits) return found;
  for (const AlphaBetaFit& fit : profile.fits->alpha_beta) {
    const int index = subject_index(fit.subject, "collectives");
    if (index < 0 || index >= static_cast<int>(profile.collectives.size())) continue;
    if (fit.link_class.empty() || fit.link_class == "nic") continue;  // rule 1 does not use it
    const CollectiveSeries& series = profile.collectives[static_cast<std::size_t>(index)];
    const std::string what = fit.subject + " (" + series.op + ", " + fit.link_class + ")";
    std::set<std::string> others;
    std::string_view devices = series.provenance.device;
    while (!devices.empty()) {
      const std::size_t comma = devices.find(", ");
      const std::string id = catalog_gpu_for(devices.substr(0, comma));
      if (!id.empty() && id != box.gpu_model) others.insert(id);
      devices = comma == std::string_view::npos ? std::string_view() : devices.substr(comma + 2);
    }
    for (const std::string& other : others) found.push_back(what + ": measured on " + other + " GPUs, " + hosts);
    if (series.hosts.value_or(1) == 1 && series.ranks != box.gpus_per_host) {
      found.push_back(what + ": measured over " + std::to_string(series.ranks) + " GPUs of one host, " + hosts);
    }
    if (fit.link_class == "nvlink" && !box.nvlink_present) {
      found.push_back(what + ": measured over NVLink, the cluster's GPUs have none");
    }
  }
  return found;
}

}  // namespace vtsim
