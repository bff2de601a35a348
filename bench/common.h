// SPDX-License-Identifier: MIT
// What the benchmark files share: the named corpora and the counters.
#ifndef URISCAN_BENCH_COMMON_H_
#define URISCAN_BENCH_COMMON_H_

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "uriscan/uriscan.h"

namespace uriscan_bench {

using uriscan::OwnedBatch;

struct Corpus {
  std::string name;
  std::string text;  // the file as read, newlines and all
  OwnedBatch batch;
  size_t valid = 0;  // by the scalar oracle
};

inline std::vector<Corpus>& Corpora() {
  static std::vector<Corpus> corpora;
  return corpora;
}

// bytes/s and URIs/s of `batch` per iteration, and ns per URI.
inline void Report(benchmark::State& state, const OwnedBatch& batch) {
  const double uris = static_cast<double>(batch.size());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(batch.data.size()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(batch.size()));
  state.counters["URIs/s"] = benchmark::Counter(
      uris * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["ns/URI"] = benchmark::Counter(
      uris * state.iterations() * 1e-9,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
inline void Report(benchmark::State& state, const Corpus& c) {
  Report(state, c.batch);
}

// A peer's benchmark: `accepts(row)` on every row of the corpus, per
// iteration. The count it accepts is reported; with `must_accept`, a peer
// that accepts nothing on a corpus with valid rows is reported as broken.
template <class Accepts>
void RunPeer(benchmark::State& state, const Corpus& c, bool must_accept,
             Accepts accepts) {
  const uriscan::Batch b = c.batch.view();
  auto count = [&] {
    size_t accepted = 0;
    for (size_t i = 0; i < b.count; ++i) accepted += accepts(b.Get(i)) ? 1 : 0;
    return accepted;
  };
  const size_t accepted = count();
  if (must_accept && accepted == 0 && c.valid > 0) {
    state.SkipWithError("the peer accepted nothing");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(count());
  state.counters["accepted"] = static_cast<double>(accepted);
  Report(state, c);
}

// BM_Normalize, BM_Resolve and their peers for one corpus (bm_transform.cc).
void RegisterTransformBenchmarks(const Corpus* c);
// BM_Fingerprint, BM_Dedup and the one-at-a-time reference (bm_dedup.cc).
void RegisterDedupBenchmarks(const Corpus* c);
// BM_ada_can_parse and BM_ada_newest_can_parse, for each ada install
// CMake found (bm_ada.cc; none without them).
void RegisterAdaBenchmarks(const Corpus* c);
// BM_Risks: the scan plus the risk column (bm_risk.cc).
void RegisterRiskBenchmarks(const Corpus* c);
void RegisterAnalyticsBenchmarks(const Corpus* c);
// BM_PslLookup, BM_Surt and their old paths (bm_hosts.cc).
void RegisterHostsBenchmarks(const Corpus* c);

}  // namespace uriscan_bench

#endif  // URISCAN_BENCH_COMMON_H_
