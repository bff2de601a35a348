// SPDX-License-Identifier: MIT
// Umbrella header for the uriscan library.
#ifndef URISCAN_URISCAN_H_
#define URISCAN_URISCAN_H_

#include "uriscan/dedup.h"
#include "uriscan/error.h"
#include "uriscan/fingerprint.h"
#include "uriscan/normalize.h"
#include "uriscan/resolve.h"
#include "uriscan/risk.h"
#include "uriscan/spans.h"
#include "uriscan/uri.h"

namespace uriscan {
// The Highway target the kernels dispatch to on this machine ("AVX2", ...).
const char* DispatchedTargetName();
}  // namespace uriscan

#endif  // URISCAN_URISCAN_H_
