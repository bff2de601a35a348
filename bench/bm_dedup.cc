// SPDX-License-Identifier: MIT
// Fingerprints and dedup on whole batches, beside the one-at-a-time way:
// normalize each line and keep the strings in a std::unordered_set.
#include <string>
#include <unordered_set>
#include <vector>

#include "bench/common.h"

namespace uriscan_bench {
namespace {

using uriscan::ComponentSpans;
using uriscan::Profile;

// BM_Fingerprint/<profile>/<corpus>: scan, normalize and hash the raw batch
// into a column of 64-bit keys. Checked once against Key64() row by row.
void BM_Fingerprint(benchmark::State& state, const Corpus* c, Profile p) {
  const uriscan::Fingerprinter f(p);
  ComponentSpans spans;
  std::vector<uint64_t> keys;
  uriscan::Scan(c->batch.view(), &spans);
  f.Batch64(c->batch.view(), spans, &keys);
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] != f.Key64(c->batch.view().Get(i))) {
      state.SkipWithError("Batch64 differs from Key64()");
      return;
    }
  }
  for (auto _ : state) {
    uriscan::Scan(c->batch.view(), &spans);
    f.Batch64(c->batch.view(), spans, &keys);
    benchmark::DoNotOptimize(keys.data());
    benchmark::ClobberMemory();
  }
  Report(state, *c);
}

// Distinct normal forms (scheme profile), the one-at-a-time way.
size_t ReferenceDistinct(const Corpus& c, std::unordered_set<std::string>* seen) {
  seen->clear();
  std::string normal;
  for (size_t i = 0; i < c.batch.size(); ++i) {
    normal.clear();
    if (uriscan::Normalize(uriscan::ParseUriReference(c.batch.view().Get(i)),
                           Profile::kScheme, &normal))
      seen->insert(normal);
  }
  return seen->size();
}

// BM_Dedup/<corpus>: scan, fingerprint (scheme profile) and a fresh
// in-memory Dedup deciding every row, as `uriscan dedup` does per chunk.
void BM_Dedup(benchmark::State& state, const Corpus* c) {
  const uriscan::Fingerprinter f(Profile::kScheme);
  ComponentSpans spans;
  std::vector<uint64_t> keys;
  std::unordered_set<std::string> seen;
  const size_t want = ReferenceDistinct(*c, &seen);
  size_t firsts = 0;
  double bytes_per_url = 0;
  for (auto _ : state) {
    uriscan::Dedup dedup(uriscan::Dedup::Options{});
    uriscan::Scan(c->batch.view(), &spans);
    f.Batch64(c->batch.view(), spans, &keys);
    firsts = 0;
    for (uint64_t k : keys)
      firsts += k != 0 && dedup.Add(k) == uriscan::Dedup::Verdict::kFirst;
    bytes_per_url = dedup.set_bytes_per_key();
  }
  if (firsts != want) state.SkipWithError("distinct count differs from the reference");
  state.counters["distinct"] = static_cast<double>(firsts);
  state.counters["set_bytes/distinct"] = bytes_per_url;
  Report(state, *c);
}

// BM_Reference_Dedup/<corpus>: parse, normalize and insert each line's
// normal form into a std::unordered_set<std::string>.
void BM_Reference_Dedup(benchmark::State& state, const Corpus* c) {
  std::unordered_set<std::string> seen;
  size_t distinct = 0;
  for (auto _ : state) distinct = ReferenceDistinct(*c, &seen);
  state.counters["distinct"] = static_cast<double>(distinct);
  Report(state, *c);
}

}  // namespace

void RegisterDedupBenchmarks(const Corpus* c) {
  for (Profile p : {Profile::kSyntax, Profile::kScheme, Profile::kCrawler}) {
    benchmark::RegisterBenchmark(("BM_Fingerprint/" +
                                  std::string(uriscan::ProfileName(p)) + "/" +
                                  c->name)
                                     .c_str(),
                                 BM_Fingerprint, c, p);
  }
  benchmark::RegisterBenchmark(("BM_Dedup/" + c->name).c_str(), BM_Dedup, c);
  benchmark::RegisterBenchmark(("BM_Reference_Dedup/" + c->name).c_str(),
                               BM_Reference_Dedup, c);
}

}  // namespace uriscan_bench
