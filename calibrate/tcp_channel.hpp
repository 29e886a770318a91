#pragma once
// A blocking TCP connection for the out-of-band exchange of the RDMA probe (queue pair numbers, keys, addresses and
// the client's commands), as perftest exchanges them before any RDMA traffic. Failures throw ProbeFailed naming the
// call and errno's text.

#include <cstddef>
#include <span>
#include <string>
#include <type_traits>

namespace vtsim::calibrate {

/// One connected TCP socket; closes it when destroyed.
class TcpChannel {
 public:
  /// Takes ownership of a connected socket.
  explicit TcpChannel(int socket);
  TcpChannel(TcpChannel&& other) noexcept;
  TcpChannel& operator=(TcpChannel&& other) noexcept;
  TcpChannel(const TcpChannel&) = delete;
  TcpChannel& operator=(const TcpChannel&) = delete;
  ~TcpChannel();

  /// Connects to `host`:`port`, retrying for up to `timeout_s` while the server is not yet listening.
  static TcpChannel connect_to(const std::string& host, int port, double timeout_s);

  /// Sends all of `bytes`.
  void send_bytes(std::span<const std::byte> bytes);
  /// Receives exactly `bytes.size()` bytes; a peer that closes first is an error.
  void receive_bytes(std::span<std::byte> bytes);

  /// Sends a trivially copyable value as its bytes (both ends run the same build).
  template <typename T>
  void send_value(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    send_bytes(std::as_bytes(std::span<const T, 1>(&value, 1)));
  }
  /// Receives a value sent by send_value.
  template <typename T>
  T receive_value() {
    static_assert(std::is_trivially_copyable_v<T>);
    T value{};
    receive_bytes(std::as_writable_bytes(std::span<T, 1>(&value, 1)));
    return value;
  }

 private:
  int socket_ = -1;
};

/// A listening TCP socket on all interfaces.
class TcpListener {
 public:
  /// Listens on `port`; 0 picks a free port (see port()).
  explicit TcpListener(int port);
  TcpListener(const TcpListener&) = delete;
  TcpListener& operator=(const TcpListener&) = delete;
  ~TcpListener();

  /// The port listened on.
  int port() const { return port_; }
  /// Waits for one client.
  TcpChannel accept_one();

 private:
  int socket_ = -1;
  int port_ = 0;
};

}  // namespace vtsim::calibrate
