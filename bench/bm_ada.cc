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
void BM_ada_can_parse(benchmark::State& state, const Corpus* c) {
  RunPeer(state, *c, /*must_accept=*/true,
          [](std::string_view row) { return ada::can_parse(row); });
}

}  // namespace

void RegisterAdaBenchmarks(const Corpus* c) {
  benchmark::RegisterBenchmark(("BM_ada_can_parse/" + c->name).c_str(),
                               BM_ada_can_parse, c);
}

}  // namespace uriscan_bench
