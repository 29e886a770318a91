#include "calibrate/tcp_channel.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "calibrate/probe_support.hpp"

namespace vtsim::calibrate {
namespace {

[[noreturn]] void fail_exchange(const std::string& call) {
  throw ProbeFailed("TCP exchange: " + call + ": " + std::strerror(errno));
}

}  // namespace

TcpChannel::TcpChannel(int socket) : socket_(socket) {
  const int on = 1;
  setsockopt(socket_, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);  // small commands must not wait for Nagle
}

TcpChannel::TcpChannel(TcpChannel&& other) noexcept : socket_(other.socket_) { other.socket_ = -1; }

TcpChannel& TcpChannel::operator=(TcpChannel&& other) noexcept {
  if (this != &other) {
    if (socket_ >= 0) close(socket_);
    socket_ = other.socket_;
    other.socket_ = -1;
  }
  return *this;
}

TcpChannel::~TcpChannel() {
  if (socket_ >= 0) close(socket_);
}

TcpChannel TcpChannel::connect_to(const std::string& host, int port, double timeout_s) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int status = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (status != 0) throw ProbeFailed("TCP exchange: cannot resolve '" + host + "': " + gai_strerror(status));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (true) {
    for (addrinfo* address = found; address != nullptr; address = address->ai_next) {
      const int socket = ::socket(address->ai_family, address->ai_socktype, address->ai_protocol);
      if (socket < 0) continue;
      if (::connect(socket, address->ai_addr, address->ai_addrlen) == 0) {
        freeaddrinfo(found);
        return TcpChannel(socket);
      }
      close(socket);
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      freeaddrinfo(found);
      fail_exchange("connect to " + host + ":" + std::to_string(port));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

void TcpChannel::send_bytes(std::span<const std::byte> bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t count = ::send(socket_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) fail_exchange("send");
    sent += static_cast<std::size_t>(count);
  }
}

void TcpChannel::receive_bytes(std::span<std::byte> bytes) {
  std::size_t received = 0;
  while (received < bytes.size()) {
    const ssize_t count = ::recv(socket_, bytes.data() + received, bytes.size() - received, 0);
    if (count < 0 && errno == EINTR) continue;
    if (count == 0) throw ProbeFailed("TCP exchange: the peer closed the connection");
    if (count < 0) fail_exchange("recv");
    received += static_cast<std::size_t>(count);
  }
}

TcpListener::TcpListener(int port) {
  socket_ = ::socket(AF_INET6, SOCK_STREAM, 0);
  sockaddr_in6 address{};
  address.sin6_family = AF_INET6;
  address.sin6_addr = in6addr_any;  // dual stack: IPv4 clients arrive as mapped addresses
  address.sin6_port = htons(static_cast<std::uint16_t>(port));
  if (socket_ < 0) fail_exchange("socket");
  const int on = 1;
  setsockopt(socket_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  const int off = 0;
  setsockopt(socket_, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
  if (bind(socket_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    close(socket_);
    fail_exchange("bind port " + std::to_string(port));
  }
  if (listen(socket_, 1) != 0) {
    close(socket_);
    fail_exchange("listen");
  }
  socklen_t length = sizeof address;
  getsockname(socket_, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin6_port);
}

TcpListener::~TcpListener() {
  if (socket_ >= 0) close(socket_);
}

TcpChannel TcpListener::accept_one() {
  while (true) {
    const int client = ::accept(socket_, nullptr, nullptr);
    if (client >= 0) return TcpChannel(client);
    if (errno != EINTR) fail_exchange("accept");
  }
}

}  // namespace vtsim::calibrate
