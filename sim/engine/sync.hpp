#pragma once
// Simulated-time synchronisation between actors of one simulation: a FIFO channel and a counter to wait on.
// Both block the calling SimGrid actor, never the process. REQUIRES: a running s4u::Engine.
//
// SimGrid's actors run one at a time and yield only in a simcall, so state changed between two simcalls is changed
// atomically: a writer needs no mutex, and it signals the condition only when an actor waits on it (each mutex
// operation and each signal is a simcall, a switch to SimGrid's maestro and back: docs/scale.md, "Synchronisation
// without simcalls"). A reader whose item or count is already there takes it without a simcall; one that must wait
// counts itself a waiter, under the condition's mutex, and rechecks after each wake-up.

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
    items_.push_back(std::move(item));
    if (waiting_ > 0) ready_->notify_all();
  }
  /// Takes the oldest item, waiting for one if none is there.
  T pop() {
    if (!items_.empty()) return take();
    std::unique_lock lock(*mutex_);
    ++waiting_;
    while (items_.empty()) ready_->wait(lock);
    --waiting_;
    return take();  // before unlocking, a simcall in which another reader could run
  }

 private:
  T take() {
    T item = std::move(items_.front());
    items_.pop_front();
    return item;
  }

  std::deque<T> items_;
  int waiting_ = 0;  ///< readers waiting for an item
  simgrid::s4u::MutexPtr mutex_ = simgrid::s4u::Mutex::create();
  simgrid::s4u::ConditionVariablePtr ready_ = simgrid::s4u::ConditionVariable::create();
};

/// A monotonically increasing count that actors can wait on.
class Counter {
 public:
  /// Adds `amount` and wakes the waiters.
  void add(long amount) {
    value_ += amount;
    if (waiting_ > 0) changed_->notify_all();
  }
  /// Waits until the count reaches `target`.
  void wait_for(long target) {
    if (value_ >= target) return;
    std::unique_lock lock(*mutex_);
    ++waiting_;
    while (value_ < target) changed_->wait(lock);
    --waiting_;
  }
  /// The current count.
  long value() const { return value_; }

 private:
  long value_ = 0;
  int waiting_ = 0;  ///< actors waiting for a count
  simgrid::s4u::MutexPtr mutex_ = simgrid::s4u::Mutex::create();
  simgrid::s4u::ConditionVariablePtr changed_ = simgrid::s4u::ConditionVariable::create();
};

}  // namespace vtsim::sim
