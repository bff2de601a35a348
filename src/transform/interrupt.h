// SPDX-License-Identifier: MIT
// The check a long call on one reference asks (normalize.h, Interrupted).
#ifndef URISCAN_SRC_TRANSFORM_INTERRUPT_H_
#define URISCAN_SRC_TRANSFORM_INTERRUPT_H_

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

}  // namespace internal
}  // namespace uriscan

#endif  // URISCAN_SRC_TRANSFORM_INTERRUPT_H_
