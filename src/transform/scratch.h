// SPDX-License-Identifier: MIT
// What the calls on one reference do for a long-lived caller (a database
// backend calls them for years on one thread): ask its check while a long
// loop runs (normalize.h, Interrupted), and let go of thread-local scratch
// that one huge reference made large.
#ifndef URISCAN_SRC_TRANSFORM_SCRATCH_H_
#define URISCAN_SRC_TRANSFORM_SCRATCH_H_

#include <cstddef>

#include "uriscan/normalize.h"

namespace uriscan {
namespace internal {

// The calling thread's check (SetInterruptCheck), or null.
extern thread_local bool (*interrupt_check)();

// Counts one step of a long loop (a field, a comparison) and, every 4096
// steps, throws Interrupted when the thread's check says so.
inline void Step(size_t* steps) {
  if ((++*steps & 4095) == 0 && interrupt_check && interrupt_check())
    throw Interrupted();
}

// Hands the memory just freed back to the system now (mimalloc keeps it
// for a while otherwise), so that what one huge reference took and let go
// does not add to what the next stage takes.
void ReturnFreedMemory();

// Frees `scratch` (a thread-local string or vector) when it goes out of
// scope holding more than 1 MiB: what an ordinary reference needs is kept
// for the next call, what a 100 MB one needed is not.
template <class T>
class LetGoIfLarge {
 public:
  explicit LetGoIfLarge(T& scratch) : scratch_(scratch) {}
  ~LetGoIfLarge() {
    if (scratch_.capacity() * sizeof(scratch_[0]) > (size_t{1} << 20)) {
      T().swap(scratch_);
      ReturnFreedMemory();
    }
  }
  LetGoIfLarge(const LetGoIfLarge&) = delete;
  LetGoIfLarge& operator=(const LetGoIfLarge&) = delete;

 private:
  T& scratch_;
};

}  // namespace internal
}  // namespace uriscan

#endif  // URISCAN_SRC_TRANSFORM_SCRATCH_H_
