// SPDX-License-Identifier: MIT
// libFuzzer differential harness: each input, split into lines, is scanned
// on every Highway target and by the scalar oracle; any difference aborts.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "hwy/targets.h"
#include "uriscan/uriscan.h"

namespace {

bool Same(const uriscan::ComponentSpans& a, const uriscan::ComponentSpans& b) {
  return a.uri_begin == b.uri_begin && a.scheme_end == b.scheme_end &&
         a.authority_begin == b.authority_begin &&
         a.userinfo_end == b.userinfo_end && a.host_begin == b.host_begin &&
         a.host_end == b.host_end && a.port_begin == b.port_begin &&
         a.path_begin == b.path_begin && a.path_end == b.path_end &&
         a.query_begin == b.query_begin &&
         a.fragment_begin == b.fragment_begin && a.uri_end == b.uri_end &&
         a.flags == b.flags && a.error_kind == b.error_kind &&
         a.error_offset == b.error_offset;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uriscan::OwnedBatch batch;
  if (!uriscan::BatchFromLines(
          std::string_view(reinterpret_cast<const char*>(data), size), &batch))
    return 0;
  uriscan::ComponentSpans oracle, fast;
  uriscan::ScanScalar(batch.view(), &oracle);
  for (size_t i = 0; i < oracle.size(); ++i)
    if (!oracle.Validate(i)) std::abort();
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    uriscan::Scan(batch.view(), &fast);
    if (!Same(fast, oracle)) {
      std::fprintf(stderr, "target %s differs from the scalar oracle\n",
                   hwy::TargetName(target));
      std::abort();
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  return 0;
}
