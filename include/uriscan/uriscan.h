// SPDX-License-Identifier: MIT
// Umbrella header for the uriscan library (the C++ API; the C API is
// uriscan_c.h).
#ifndef URISCAN_URISCAN_H_
#define URISCAN_URISCAN_H_

#include "uriscan/analytics.h"
#include "uriscan/dedup.h"
#include "uriscan/error.h"
#include "uriscan/fingerprint.h"
#include "uriscan/hosts.h"
#include "uriscan/lenient.h"
#include "uriscan/normalize.h"
#include "uriscan/resolve.h"
#include "uriscan/risk.h"
#include "uriscan/spans.h"
#include "uriscan/uri.h"
#include "uriscan/version.h"

#endif  // URISCAN_URISCAN_H_
