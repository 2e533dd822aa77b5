// When a call stops before its end: a cancel from another thread
// (Translator::cancel, TranslatorPool::cancel), its deadline
// (SearchOptions::timeout_ms), or its stream callback. The search asks at
// every step, the translator between the parts of a long text and between
// a batch's runs; the answer reads one atomic and the clock, and allocates
// nothing.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "softalign/status.hpp"

namespace softalign::internal {

class CallStop {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Reason { kNone, kCancelled, kDeadline, kCallback };

  // No cancel, no deadline: never stops (the ids calls of tests and tools).
  CallStop() = default;
  CallStop(const CallStop&) = delete;
  CallStop& operator=(const CallStop&) = delete;
  // A call that starts now: `cancels` counts its owner's cancel() calls, so
  // one that comes after this point stops it (and no later call);
  // timeout_ms > 0 is its deadline from now.
  CallStop(const std::atomic<uint64_t>* cancels, int timeout_ms)
      : cancels_(cancels),
        epoch_(cancels != nullptr ? cancels->load(std::memory_order_acquire) : 0),
        timeout_ms_(timeout_ms),
        deadline_(timeout_ms > 0 ? Clock::now() + std::chrono::milliseconds(timeout_ms) : Clock::time_point::max()) {}

  // Whether the call must stop now. Once it has, it stays stopped.
  bool stopped() const {
    if (reason() != Reason::kNone) return true;
    if (cancels_ != nullptr && cancels_->load(std::memory_order_relaxed) != epoch_) set(Reason::kCancelled);
    else if (timeout_ms_ > 0 && Clock::now() >= deadline_) set(Reason::kDeadline);
    return reason() != Reason::kNone;
  }
  // The stream callback asked to stop.
  void stop_by_callback() const { set(Reason::kCallback); }
  Reason reason() const { return reason_.load(std::memory_order_relaxed); }

  // The status of a stopped call. Its messages fit std::string's inline
  // buffer (15 bytes): a stopped ids call allocates nothing either.
  Status status() const {
    switch (reason()) {
      case Reason::kCancelled: return Status(StatusCode::kCancelled, "cancel() called");
      case Reason::kDeadline: return Status(StatusCode::kDeadlineExceeded, "past timeout_ms");
      case Reason::kCallback: return Status(StatusCode::kCancelled, "stream callback");
      case Reason::kNone: break;
    }
    return Status(StatusCode::kInternal, "not stopped");
  }

 private:
  const std::atomic<uint64_t>* cancels_ = nullptr;
  uint64_t epoch_ = 0;
  int timeout_ms_ = 0;
  Clock::time_point deadline_ = Clock::time_point::max();
  // The first reason seen; a pool's replicas share one CallStop.
  void set(Reason r) const {
    Reason none = Reason::kNone;
    reason_.compare_exchange_strong(none, r, std::memory_order_relaxed);
  }
  mutable std::atomic<Reason> reason_{Reason::kNone};
};

}  // namespace softalign::internal
