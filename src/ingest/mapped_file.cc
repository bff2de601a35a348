// SPDX-License-Identifier: MIT
// MappedFile and the SIGBUS guard of the command's mappings.
#include "src/ingest/mapped_file.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace uriscan {
namespace ingest {
namespace {

// The mappings in use, for the handler to tell them from other memory: a
// few at once (the file being read, the last chunks of the one before).
constexpr int kSlots = 32;
struct Slot {
  std::atomic<uintptr_t> begin{0}, end{0};
  std::atomic<MappedFile*> file{nullptr};
};
Slot slots[kSlots];
std::atomic<bool> guarded{false};

uintptr_t PageSize() {
  static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

}  // namespace

void OnBusError(int sig, void* info_p, void* /*context*/) {
  const auto* info = static_cast<const siginfo_t*>(info_p);
  const uintptr_t at = reinterpret_cast<uintptr_t>(info->si_addr);
  for (Slot& s : slots) {
    MappedFile* f = s.file.load(std::memory_order_acquire);
    const uintptr_t begin = s.begin.load(std::memory_order_relaxed);
    const uintptr_t end = s.end.load(std::memory_order_relaxed);
    if (reinterpret_cast<uintptr_t>(f) <= 1 || at < begin || at >= end)
      continue;  // (1: a slot being claimed)
    // The rest of the mapping from the lost page on reads as zeros: the
    // faulting read then goes on, and the reader sees faulted().
    const uintptr_t page = at & ~(PageSize() - 1);
    const uintptr_t stop = (end + PageSize() - 1) & ~(PageSize() - 1);
    ::mmap(reinterpret_cast<void*>(page), stop - page, PROT_READ,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    f->faulted_.store(true, std::memory_order_release);
    return;
  }
  // Not a mapped file's page: the default action, as without the guard.
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

namespace {

void Handler(int sig, siginfo_t* info, void* context) {
  OnBusError(sig, info, context);
}

}  // namespace

void GuardMappedFiles() {
  struct sigaction sa = {};
  sa.sa_sigaction = Handler;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  if (::sigaction(SIGBUS, &sa, nullptr) == 0)
    guarded.store(true, std::memory_order_release);
}

std::shared_ptr<MappedFile> MappedFile::Map(int fd, size_t size) {
  if (!guarded.load(std::memory_order_acquire) || size == 0) return nullptr;
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) return nullptr;
  for (int k = 0; k < kSlots; ++k) {
    MappedFile* expected = nullptr;
    Slot& s = slots[k];
    // Claimed with a placeholder first, so that the handler never sees
    // the new range with an old file.
    static MappedFile* const kClaim = reinterpret_cast<MappedFile*>(1);
    if (!s.file.compare_exchange_strong(expected, kClaim)) continue;
    std::shared_ptr<MappedFile> f(
        new MappedFile(static_cast<const char*>(p), size, k));
    s.begin.store(reinterpret_cast<uintptr_t>(p), std::memory_order_relaxed);
    s.end.store(reinterpret_cast<uintptr_t>(p) + size,
                std::memory_order_relaxed);
    s.file.store(f.get(), std::memory_order_release);
    ::madvise(p, size, MADV_SEQUENTIAL);
    return f;
  }
  ::munmap(p, size);  // every slot in use: read the file instead
  return nullptr;
}

MappedFile::~MappedFile() {
  Slot& s = slots[slot_];
  s.begin.store(0, std::memory_order_relaxed);
  s.end.store(0, std::memory_order_relaxed);
  s.file.store(nullptr, std::memory_order_release);
  ::munmap(const_cast<char*>(data_), size_);
}

void MappedFile::Release(const char* p, size_t n) const {
  const uintptr_t page = PageSize();
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p);
  const uintptr_t first = (begin + page - 1) & ~(page - 1);
  const uintptr_t last = (begin + n) & ~(page - 1);
  if (first < last && !faulted())
    ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

}  // namespace ingest
}  // namespace uriscan
