// SPDX-License-Identifier: MIT
// OrderedPool: worker threads with results taken in submission order.
#include "src/cli/pipeline.h"

#include <sched.h>

#include <utility>

namespace uriscan {
namespace cli {

size_t AvailableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<size_t>(n);
  }
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? n : 1;
}

OrderedPool::OrderedPool(size_t threads, size_t window) : tasks_(window) {
  for (size_t i = window; i > 0; --i) free_.push_back(i - 1);
  for (size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { Work(); });
}

OrderedPool::~OrderedPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

size_t OrderedPool::Acquire() {
  const size_t slot = free_.back();
  free_.pop_back();
  return slot;
}

void OrderedPool::Submit(size_t slot, std::function<void()> job) {
  order_.push_back(slot);
  if (workers_.empty()) {
    job();
    tasks_[slot].done = true;
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_[slot].job = std::move(job);
    tasks_[slot].done = false;
    queue_.push_back(slot);
  }
  work_cv_.notify_one();
}

size_t OrderedPool::Next() {
  const size_t slot = order_.front();
  order_.pop_front();
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [&] { return tasks_[slot].done; });
  tasks_[slot].done = false;
  return slot;
}

bool OrderedPool::NextDone() {
  if (order_.empty()) return false;
  std::lock_guard<std::mutex> lock(mu_);
  return tasks_[order_.front()].done;
}

void OrderedPool::Work() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left to do
    const size_t slot = queue_.front();
    queue_.pop_front();
    std::function<void()> job = std::move(tasks_[slot].job);
    lock.unlock();
    job();
    lock.lock();
    tasks_[slot].done = true;
    done_cv_.notify_all();
  }
}

}  // namespace cli
}  // namespace uriscan
