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
#define URISCAN_SAME(name) a.name == b.name &&
  return URISCAN_SPAN_BOUNDARIES(URISCAN_SAME) a.flags == b.flags &&
         a.error_kind == b.error_kind && a.error_offset == b.error_offset;
#undef URISCAN_SAME
}

// Row i of the in-place scan over `text` against row i of the oracle over
// the copied lines: the same bytes and the same relative columns.
bool SameRows(const uriscan::ComponentSpans& lines, const char* text,
              const uriscan::ComponentSpans& oracle, const char* data) {
  if (lines.size() != oracle.size()) return false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const uriscan::UriReference a = lines.Row(i, text);
    const uriscan::UriReference b = oracle.Row(i, data);
    if (a.text() != b.text() || a.flags() != b.flags() ||
        a.error().kind != b.error().kind ||
        a.error().offset != b.error().offset)
      return false;
#define URISCAN_SAME(name) \
    if (a.boundaries().name != b.boundaries().name) return false;
    URISCAN_INNER_BOUNDARIES(URISCAN_SAME)
#undef URISCAN_SAME
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  uriscan::OwnedBatch batch;
  if (!uriscan::BatchFromLines(text, &batch)) return 0;
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
    uriscan::Scanner scanner;
    if (!scanner.ScanLines(text, &fast) ||
        !SameRows(fast, text.data(), oracle, batch.data.data())) {
      std::fprintf(stderr, "target %s: ScanLines differs from the oracle\n",
                   hwy::TargetName(target));
      std::abort();
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  return 0;
}
