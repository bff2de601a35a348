// SPDX-License-Identifier: MIT
// The optional ada peer: ada::can_parse (WHATWG URL, not RFC 3986) per row.
// Built only when CMake finds ada, in a library of its own compiled as
// C++20 (ada's headers need it); the rest of the bench stays C++17.
#include <ada.h>

#include <string>
#include <string_view>

#include "bench/common.h"

namespace uriscan_bench {
namespace {

// WHATWG rules, no base URL: a relative reference is rejected, and a
// URL the RFC rejects (a space, a non-ASCII host) may be accepted.
size_t AdaAccepts(const Corpus& c) {
  size_t accepted = 0;
  const uriscan::Batch b = c.batch.view();
  for (size_t i = 0; i < b.count; ++i) {
    accepted += ada::can_parse(std::string_view(
        b.data + b.offsets[i], b.offsets[i + 1] - b.offsets[i]));
  }
  return accepted;
}

void BM_ada_can_parse(benchmark::State& state, const Corpus* c) {
  const size_t accepted = AdaAccepts(*c);
  if (accepted == 0 && c->valid > 0) {
    state.SkipWithError("ada accepted nothing");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(AdaAccepts(*c));
  state.counters["accepted"] = static_cast<double>(accepted);
  Report(state, *c);
}

}  // namespace

void RegisterAdaBenchmarks(const Corpus* c) {
  benchmark::RegisterBenchmark(("BM_ada_can_parse/" + c->name).c_str(),
                               BM_ada_can_parse, c);
}

}  // namespace uriscan_bench
