// SPDX-License-Identifier: MIT
// Runs jobs on worker threads and hands their results back in submission
// order, so the command's output order never depends on the thread count.
#ifndef URISCAN_SRC_CLI_PIPELINE_H_
#define URISCAN_SRC_CLI_PIPELINE_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace uriscan {
namespace cli {

// The number of cores this process may run on (sched_getaffinity), at least 1.
size_t AvailableCores();

// A fixed pool of worker threads behind a bounded window of `window` slots.
// The caller takes a free slot with Acquire(), fills in its own data for that
// slot, and Submit()s a job for it; Next() waits for the oldest submitted job
// and returns its slot, which goes back with Release(). Results therefore come
// back in submission order whatever the thread count. With threads == 0 a job
// runs inline inside Submit().
class OrderedPool {
 public:
  OrderedPool(size_t threads, size_t window);
  ~OrderedPool();
  OrderedPool(const OrderedPool&) = delete;
  OrderedPool& operator=(const OrderedPool&) = delete;

  bool Full() const { return free_.empty(); }
  bool Pending() const { return !order_.empty(); }
  size_t Acquire();  // requires !Full()
  void Submit(size_t slot, std::function<void()> job);
  size_t Next();  // requires Pending()
  // Whether Next() would return without waiting.
  bool NextDone();
  void Release(size_t slot) { free_.push_back(slot); }

 private:
  void Work();

  struct Task {
    std::function<void()> job;
    bool done = false;
  };
  std::vector<Task> tasks_;
  std::vector<size_t> free_;
  std::deque<size_t> order_;   // submitted, not yet taken (caller-only)
  std::deque<size_t> queue_;   // submitted, not yet started (locked)
  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace cli
}  // namespace uriscan

#endif  // URISCAN_SRC_CLI_PIPELINE_H_
