// translate_batch's threads: one per extra translator, started at prepare,
// asleep on a condition variable between calls. (pthreadpool, which runs the
// intra-sentence work, spins between its calls: measured 32% of the CPU time
// when a CLI's worker translators were put on it, 25% slower greedy at two
// workers; these threads sleep instead, and a batch call wakes them once.)
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace softalign::internal {

class WorkerPool {
 public:
  using Task = void (*)(void* ctx, std::size_t worker);

  // Starts `threads` threads. One that cannot be started (no threads on this
  // platform, or none left) leaves its worker to the calling thread.
  explicit WorkerPool(int threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs task(ctx, w) for every w in [0, threads + 1): w = 0 on the calling
  // thread, the others on the pool's threads; returns when all have returned.
  // One call at a time (a translator is used by one thread at a time).
  void run(Task task, void* ctx);

 private:
  void loop(std::size_t worker);

  const std::size_t workers_;  // threads asked for (each runs worker index + 1)
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  Task task_ = nullptr;
  void* ctx_ = nullptr;
  uint64_t generation_ = 0;  // one per run(): a thread runs each generation once
  std::size_t running_ = 0;  // threads still inside this generation's task
  bool stop_ = false;
};

}  // namespace softalign::internal
