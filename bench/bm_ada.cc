// SPDX-License-Identifier: MIT
// The optional ada peers: ada::can_parse (WHATWG URL, not RFC 3986) per row,
// for each ada version CMake found, each in a shared library of its own that
// exports one C function (bench/ada/). A call goes through the PLT, as a
// call into an installed shared ada would.
#include <string>
#include <string_view>

#include "bench/common.h"

#if URISCAN_HAVE_ADA
extern "C" bool uriscan_bench_ada_can_parse(const char* data, size_t size);
#endif
#if URISCAN_HAVE_ADA_NEWEST
extern "C" bool uriscan_bench_ada_newest_can_parse(const char* data, size_t size);
#endif

namespace uriscan_bench {
#if URISCAN_HAVE_ADA || URISCAN_HAVE_ADA_NEWEST
namespace {

using CanParse = bool (*)(const char*, size_t);

// WHATWG rules, no base URL: a relative reference is rejected, and a
// URL the RFC rejects (a space, a non-ASCII host) may be accepted.
void BM_ada(benchmark::State& state, const Corpus* c, CanParse can_parse) {
  RunPeer(state, *c, /*must_accept=*/true, [can_parse](std::string_view row) {
    return can_parse(row.data(), row.size());
  });
}

}  // namespace
#endif

void RegisterAdaBenchmarks(const Corpus* c) {
  (void)c;
#if URISCAN_HAVE_ADA
  benchmark::RegisterBenchmark(("BM_ada_can_parse/" + c->name).c_str(), BM_ada,
                               c, &uriscan_bench_ada_can_parse);
#endif
#if URISCAN_HAVE_ADA_NEWEST
  benchmark::RegisterBenchmark(("BM_ada_newest_can_parse/" + c->name).c_str(),
                               BM_ada, c, &uriscan_bench_ada_newest_can_parse);
#endif
}

}  // namespace uriscan_bench
