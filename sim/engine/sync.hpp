#pragma once
// Simulated-time synchronisation between actors of one simulation: a FIFO channel and a counter to wait on.
// Both block the calling SimGrid actor, never the process. REQUIRES: a running s4u::Engine.

#include <deque>
#include <mutex>
#include <utility>

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

namespace vtsim::sim {

/// A first-in first-out queue between actors; pop() waits until an item is there.
template <typename T>
class Channel {
 public:
  /// Appends an item and wakes the waiting reader.
  void push(T item) {
    std::unique_lock lock(*mutex_);
    items_.push_back(std::move(item));
    ready_->notify_all();
  }
  /// Takes the oldest item, waiting for one if none is there.
  T pop() {
    std::unique_lock lock(*mutex_);
    ready_->wait(lock, [this] { return !items_.empty(); });
    T item = std::move(items_.front());
    items_.pop_front();
    return item;
  }

 private:
  std::deque<T> items_;
  simgrid::s4u::MutexPtr mutex_ = simgrid::s4u::Mutex::create();
  simgrid::s4u::ConditionVariablePtr ready_ = simgrid::s4u::ConditionVariable::create();
};

/// A monotonically increasing count that actors can wait on.
class Counter {
 public:
  /// Adds `amount` and wakes the waiters.
  void add(long amount) {
    std::unique_lock lock(*mutex_);
    value_ += amount;
    changed_->notify_all();
  }
  /// Waits until the count reaches `target`.
  void wait_for(long target) {
    std::unique_lock lock(*mutex_);
    changed_->wait(lock, [this, target] { return value_ >= target; });
  }
  /// The current count.
  long value() const { return value_; }

 private:
  long value_ = 0;
  simgrid::s4u::MutexPtr mutex_ = simgrid::s4u::Mutex::create();
  simgrid::s4u::ConditionVariablePtr changed_ = simgrid::s4u::ConditionVariable::create();
};

}  // namespace vtsim::sim
