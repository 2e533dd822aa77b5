#include "api/worker_pool.hpp"

#include <system_error>

namespace softalign::internal {

WorkerPool::WorkerPool(int threads) : workers_(threads > 0 ? static_cast<std::size_t>(threads) : 0) {
  for (std::size_t w = 0; w < workers_; ++w) {
    try {
      threads_.emplace_back(&WorkerPool::loop, this, w);
    } catch (const std::system_error&) {
      break;  // run() gives the rest to the caller
    }
  }
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void WorkerPool::loop(std::size_t worker) {
  uint64_t seen = 0;
  for (;;) {
    Task task;
    void* ctx;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      task = task_;
      ctx = ctx_;
    }
    task(ctx, worker + 1);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (--running_ == 0) done_.notify_one();
    }
  }
}

void WorkerPool::run(Task task, void* ctx) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    task_ = task;
    ctx_ = ctx;
    running_ = threads_.size();
    ++generation_;
  }
  wake_.notify_all();
  task(ctx, 0);
  for (std::size_t w = threads_.size(); w < workers_; ++w) task(ctx, w + 1);  // threads that did not start
  std::unique_lock<std::mutex> lock(mu_);
  done_.wait(lock, [&] { return running_ == 0; });
}

}  // namespace softalign::internal
