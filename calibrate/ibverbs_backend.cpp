// RdmaBackend on libibverbs: one RC queue pair per side, connected by the exchange of queue pair numbers, LIDs,
// GIDs, keys and addresses over TCP, as perftest does (rdma_probe.hpp describes the measurements). Built only with
// libibverbs.

#include <infiniband/verbs.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>

#include "calibrate/hardware_backends.hpp"
#include "calibrate/probe_support.hpp"
#include "calibrate/tcp_channel.hpp"

namespace vtsim::calibrate {
namespace {

constexpr int kQueueDepth = 256;       // send work requests a queue pair holds; >= the bandwidth test's depth
constexpr std::uint32_t kInline = 64;  // bytes sent inline (lower latency for small messages, as perftest does)
constexpr int kWarmup = 16;            // untimed ping-pongs before a latency test
constexpr double kConnectTimeout_s = 60;

[[noreturn]] void fail(const std::string& call) { throw ProbeFailed(call + ": " + std::strerror(errno)); }

// What each side tells the other before any RDMA traffic.
struct QueuePairInfo {
  std::uint32_t qp_number = 0;
  std::uint32_t packet_sequence = 0;
  std::uint16_t lid = 0;
  std::uint8_t gid[16] = {};
  std::uint8_t use_gid = 0;
  std::uint32_t mtu = 0;          // enum ibv_mtu of the port
  std::uint64_t address = 0;      // the registered buffer
  std::uint32_t rkey = 0;
};

enum class Command : std::int32_t { latency = 1, bandwidth = 2, finish = 3 };

struct CommandMessage {
  Command command = Command::finish;
  std::int64_t bytes = 0;
  std::int32_t iterations = 0;
};

struct Deleters {
  void operator()(ibv_context* context) const { ibv_close_device(context); }
  void operator()(ibv_pd* pd) const { ibv_dealloc_pd(pd); }
  void operator()(ibv_mr* mr) const { ibv_dereg_mr(mr); }
  void operator()(ibv_cq* cq) const { ibv_destroy_cq(cq); }
  void operator()(ibv_qp* qp) const { ibv_destroy_qp(qp); }
  void operator()(std::uint8_t* buffer) const { std::free(buffer); }
};

std::vector<std::string> device_names() {
  int count = 0;
  ibv_device** list = ibv_get_device_list(&count);
  std::vector<std::string> names;
  if (list == nullptr) return names;
  for (int i = 0; i < count; ++i) names.emplace_back(ibv_get_device_name(list[i]));
  ibv_free_device_list(list);
  return names;
}

// One side: device, protection domain, a buffer of two halves (sent from / written into by the peer), completion
// queue and queue pair, connected to the peer through `channel`.
class Endpoint {
 public:
  Endpoint(const RdmaEndpointOptions& options, TcpChannel channel)
      : options_(options), channel_(std::move(channel)), half_(static_cast<std::size_t>(options.max_bytes)) {
    open_device();
    create_queue_pair();
    const QueuePairInfo local = local_info();
    channel_.send_value(local);
    const QueuePairInfo remote = channel_.receive_value<QueuePairInfo>();
    connect(local, remote);
    remote_address_ = remote.address;
    remote_key_ = remote.rkey;
    barrier();
  }

  std::string device_name() const { return ibv_get_device_name(context_->device); }
  std::string link_layer() const {
    return port_.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand";
  }
  TcpChannel& channel() { return channel_; }

  void barrier() {
    channel_.send_value(std::uint8_t{1});
    channel_.receive_value<std::uint8_t>();
  }

  // Clears the halves a latency test of `bytes` watches, then waits for the peer to have done the same.
  void prepare_latency(std::int64_t bytes) {
    std::memset(buffer_.get(), 0, static_cast<std::size_t>(bytes));
    std::memset(buffer_.get() + half_, 0, static_cast<std::size_t>(bytes));
    barrier();
  }

  // One ping-pong step: the marker byte `value` goes out in a write of `bytes` (client first, server answering).
  void send_marked(std::int64_t bytes, std::uint8_t value) {
    buffer_.get()[bytes - 1] = value;
    post_write(bytes, true);
  }

  void wait_marked(std::int64_t bytes, std::uint8_t value) const {
    const volatile std::uint8_t* marker = buffer_.get() + half_ + static_cast<std::size_t>(bytes - 1);
    while (*marker != value) {
    }
  }

  void post_write(std::int64_t bytes, bool signaled) {
    ibv_sge sge{};
    sge.addr = reinterpret_cast<std::uint64_t>(buffer_.get());
    sge.length = static_cast<std::uint32_t>(bytes);
    sge.lkey = mr_->lkey;
    ibv_send_wr request{};
    request.sg_list = &sge;
    request.num_sge = 1;
    request.opcode = IBV_WR_RDMA_WRITE;
    request.send_flags = 0;
    if (signaled) request.send_flags |= IBV_SEND_SIGNALED;
    if (static_cast<std::uint32_t>(bytes) <= inline_bytes_) request.send_flags |= IBV_SEND_INLINE;
    request.wr.rdma.remote_addr = remote_address_ + half_;
    request.wr.rdma.rkey = remote_key_;
    ibv_send_wr* bad = nullptr;
    if (ibv_post_send(qp_.get(), &request, &bad) != 0) fail("ibv_post_send");
  }

  // Waits for up to `most` completions, at least one; returns how many.
  int poll(int most) {
    ibv_wc completions[16];
    while (true) {
      const int count = ibv_poll_cq(cq_.get(), std::min(most, 16), completions);
      if (count < 0) throw ProbeFailed("ibv_poll_cq failed");
      for (int i = 0; i < count; ++i) {
        if (completions[i].status != IBV_WC_SUCCESS) {
          throw ProbeFailed(std::string("RDMA write completion: ") + ibv_wc_status_str(completions[i].status));
        }
      }
      if (count > 0) return count;
    }
  }

 private:
  void open_device() {
    int count = 0;
    ibv_device** list = ibv_get_device_list(&count);
    if (list == nullptr || count == 0) {
      if (list != nullptr) ibv_free_device_list(list);
      throw DeviceNotFound("no RDMA device found");
    }
    ibv_device* chosen = nullptr;
    for (int i = 0; i < count && chosen == nullptr; ++i) {
      if (options_.device.empty() || options_.device == ibv_get_device_name(list[i])) chosen = list[i];
    }
    if (chosen == nullptr) {
      ibv_free_device_list(list);
      throw InputError("no RDMA device named '" + options_.device + "'");
    }
    context_.reset(ibv_open_device(chosen));
    ibv_free_device_list(list);
    if (!context_) fail("ibv_open_device");
    if (ibv_query_port(context_.get(), static_cast<std::uint8_t>(options_.ib_port), &port_) != 0) {
      fail("ibv_query_port");
    }
    pd_.reset(ibv_alloc_pd(context_.get()));
    if (!pd_) fail("ibv_alloc_pd");
    buffer_.reset(static_cast<std::uint8_t*>(std::aligned_alloc(4096, 2 * half_)));
    if (!buffer_) throw ProbeFailed("cannot allocate the RDMA buffer");
    std::memset(buffer_.get(), 0, 2 * half_);
    mr_.reset(ibv_reg_mr(pd_.get(), buffer_.get(), 2 * half_,
                         IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ));
    if (!mr_) fail("ibv_reg_mr");
    cq_.reset(ibv_create_cq(context_.get(), 2 * kQueueDepth, nullptr, nullptr, 0));
    if (!cq_) fail("ibv_create_cq");
  }

  void create_queue_pair() {
    ibv_qp_init_attr init{};
    init.send_cq = cq_.get();
    init.recv_cq = cq_.get();
    init.qp_type = IBV_QPT_RC;
    init.cap.max_send_wr = kQueueDepth;
    init.cap.max_recv_wr = 1;
    init.cap.max_send_sge = 1;
    init.cap.max_recv_sge = 1;
    init.cap.max_inline_data = kInline;
    qp_.reset(ibv_create_qp(pd_.get(), &init));
    if (!qp_) fail("ibv_create_qp");
    inline_bytes_ = init.cap.max_inline_data;  // what the device granted
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_INIT;
    attr.pkey_index = 0;
    attr.port_num = static_cast<std::uint8_t>(options_.ib_port);
    attr.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    if (ibv_modify_qp(qp_.get(), &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) != 0) {
      fail("ibv_modify_qp(INIT)");
    }
  }

  // RoCE needs a GID; prefer RoCE v2 (routable), else the first valid entry. InfiniBand routes by LID.
  int choose_gid_index() {
    if (options_.gid_index >= 0) return options_.gid_index;
    if (port_.link_layer != IBV_LINK_LAYER_ETHERNET) return -1;
    int first_valid = -1;
    for (int i = 0; i < port_.gid_tbl_len; ++i) {
      ibv_gid_entry entry{};
      if (ibv_query_gid_ex(context_.get(), static_cast<std::uint32_t>(options_.ib_port), static_cast<std::uint32_t>(i),
                           &entry, 0) != 0) {
        continue;
      }
      if (entry.gid_type == IBV_GID_TYPE_ROCE_V2) return i;
      if (first_valid < 0) first_valid = i;
    }
    if (first_valid < 0) throw ProbeFailed("no valid GID on the RoCE port: pass --gid-index");
    return first_valid;
  }

  QueuePairInfo local_info() {
    QueuePairInfo info;
    info.qp_number = qp_->qp_num;
    info.packet_sequence = std::random_device{}() & 0xffffffu;
    info.lid = port_.lid;
    info.mtu = static_cast<std::uint32_t>(port_.active_mtu);
    info.address = reinterpret_cast<std::uint64_t>(buffer_.get());
    info.rkey = mr_->rkey;
    gid_index_ = choose_gid_index();
    if (gid_index_ >= 0) {
      ibv_gid gid{};
      if (ibv_query_gid(context_.get(), static_cast<std::uint8_t>(options_.ib_port), gid_index_, &gid) != 0) {
        fail("ibv_query_gid");
      }
      std::memcpy(info.gid, gid.raw, sizeof info.gid);
      info.use_gid = 1;
    }
    local_sequence_ = info.packet_sequence;
    return info;
  }

  void connect(const QueuePairInfo& local, const QueuePairInfo& remote) {
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_RTR;
    attr.path_mtu = static_cast<ibv_mtu>(std::min(local.mtu, remote.mtu));
    attr.dest_qp_num = remote.qp_number;
    attr.rq_psn = remote.packet_sequence;
    attr.max_dest_rd_atomic = 1;
    attr.min_rnr_timer = 12;
    attr.ah_attr.dlid = remote.lid;
    attr.ah_attr.port_num = static_cast<std::uint8_t>(options_.ib_port);
    if (local.use_gid && remote.use_gid) {
      attr.ah_attr.is_global = 1;
      std::memcpy(attr.ah_attr.grh.dgid.raw, remote.gid, sizeof remote.gid);
      attr.ah_attr.grh.sgid_index = static_cast<std::uint8_t>(gid_index_);
      attr.ah_attr.grh.hop_limit = 64;
    }
    if (ibv_modify_qp(qp_.get(), &attr,
                      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                          IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) != 0) {
      fail("ibv_modify_qp(RTR)");
    }
    attr = ibv_qp_attr{};
    attr.qp_state = IBV_QPS_RTS;
    attr.timeout = 14;
    attr.retry_cnt = 7;
    attr.rnr_retry = 7;
    attr.sq_psn = local_sequence_;
    attr.max_rd_atomic = 1;
    if (ibv_modify_qp(qp_.get(), &attr,
                      IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                          IBV_QP_MAX_QP_RD_ATOMIC) != 0) {
      fail("ibv_modify_qp(RTS)");
    }
  }

  RdmaEndpointOptions options_;
  TcpChannel channel_;
  std::size_t half_ = 0;
  ibv_port_attr port_{};
  int gid_index_ = -1;
  std::uint32_t local_sequence_ = 0;
  std::uint32_t inline_bytes_ = 0;
  std::uint64_t remote_address_ = 0;
  std::uint32_t remote_key_ = 0;
  // Declared in creation order: destroyed queue pair first, device last.
  std::unique_ptr<ibv_context, Deleters> context_;
  std::unique_ptr<ibv_pd, Deleters> pd_;
  std::unique_ptr<std::uint8_t, Deleters> buffer_;
  std::unique_ptr<ibv_mr, Deleters> mr_;
  std::unique_ptr<ibv_cq, Deleters> cq_;
  std::unique_ptr<ibv_qp, Deleters> qp_;
};

std::uint8_t marker(int iteration) { return static_cast<std::uint8_t>(1 + iteration % 250); }

class VerbsConnection final : public RdmaConnection {
 public:
  explicit VerbsConnection(std::unique_ptr<Endpoint> endpoint) : endpoint_(std::move(endpoint)) {}

  std::string device_name() override { return endpoint_->device_name(); }
  std::string link_layer() override { return endpoint_->link_layer(); }

  std::vector<double> write_round_trips_s(std::int64_t bytes, int iterations) override {
    endpoint_->channel().send_value(CommandMessage{Command::latency, bytes, iterations});
    endpoint_->prepare_latency(bytes);
    std::vector<double> round_trips;
    for (int i = 0; i < kWarmup + iterations; ++i) {
      const auto start = std::chrono::steady_clock::now();
      endpoint_->send_marked(bytes, marker(i));
      endpoint_->wait_marked(bytes, marker(i));
      const auto end = std::chrono::steady_clock::now();
      endpoint_->poll(1);
      if (i >= kWarmup) round_trips.push_back(std::chrono::duration<double>(end - start).count());
    }
    endpoint_->barrier();
    return round_trips;
  }

  double write_stream_s(std::int64_t bytes, int iterations, int depth) override {
    endpoint_->channel().send_value(CommandMessage{Command::bandwidth, bytes, iterations});
    int posted = 0;
    int completed = 0;
    const auto start = std::chrono::steady_clock::now();
    while (completed < iterations) {
      while (posted < iterations && posted - completed < std::min(depth, kQueueDepth)) {
        endpoint_->post_write(bytes, true);
        ++posted;
      }
      completed += endpoint_->poll(posted - completed);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    endpoint_->barrier();
    return seconds;
  }

  void finish() override { endpoint_->channel().send_value(CommandMessage{Command::finish, 0, 0}); }

 private:
  std::unique_ptr<Endpoint> endpoint_;
};

class VerbsBackend final : public RdmaBackend {
 public:
  std::vector<std::string> devices() override { return device_names(); }

  void serve(const RdmaEndpointOptions& options) override {
    TcpListener listener(options.tcp_port);
    Endpoint endpoint(options, listener.accept_one());
    while (true) {
      const CommandMessage command = endpoint.channel().receive_value<CommandMessage>();
      if (command.command == Command::finish) return;
      if (command.command == Command::latency) {
        endpoint.prepare_latency(command.bytes);
        for (int i = 0; i < kWarmup + command.iterations; ++i) {
          endpoint.wait_marked(command.bytes, marker(i));
          endpoint.send_marked(command.bytes, marker(i));
          endpoint.poll(1);
        }
      }
      endpoint.barrier();  // the bandwidth test needs nothing from the server but this
    }
  }

  std::unique_ptr<RdmaConnection> connect(const std::string& host, const RdmaEndpointOptions& options) override {
    return std::make_unique<VerbsConnection>(
        std::make_unique<Endpoint>(options, TcpChannel::connect_to(host, options.tcp_port, kConnectTimeout_s)));
  }
};

}  // namespace

std::unique_ptr<RdmaBackend> make_rdma_backend() { return std::make_unique<VerbsBackend>(); }

}  // namespace vtsim::calibrate
