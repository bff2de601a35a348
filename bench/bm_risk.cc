// SPDX-License-Identifier: MIT
// BM_Risks: the scan plus the risk column (RFC 3986 sec. 7), to be read
// beside BM_Scan on the same corpus.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench/common.h"
#include "uriscan/uriscan.h"

namespace uriscan_bench {
namespace {

using uriscan::ComponentSpans;

// Scan() then RiskFlags() per iteration; the column is checked once against
// the per-reference value on the scalar oracle's rows.
void BM_Risks(benchmark::State& state, const Corpus* c) {
  ComponentSpans spans;
  std::vector<uint32_t> column;
  uriscan::Scan(c->batch.view(), &spans);
  uriscan::RiskFlags(c->batch.view(), spans, &column);
  size_t flagged = 0;
  for (size_t i = 0; i < c->batch.size(); ++i) {
    const uint32_t want = uriscan::RiskFlagsOf(
        uriscan::ParseUriReference(c->batch.view().Get(i)));
    if (column[i] != want) {
      state.SkipWithError("risk column differs from the scalar rows");
      return;
    }
    flagged += want != 0 && want != uriscan::risks::kInvalid;
  }
  for (auto _ : state) {
    uriscan::Scan(c->batch.view(), &spans);
    uriscan::RiskFlags(c->batch.view(), spans, &column);
    benchmark::DoNotOptimize(column.data());
    benchmark::ClobberMemory();
  }
  state.counters["flagged"] = static_cast<double>(flagged);
  state.SetLabel(uriscan::DispatchedTargetName());
  Report(state, *c);
}

// RiskFlags() alone on spans scanned once: its own cost per URI.
void BM_RiskColumn(benchmark::State& state, const Corpus* c) {
  ComponentSpans spans;
  std::vector<uint32_t> column;
  uriscan::Scan(c->batch.view(), &spans);
  for (auto _ : state) {
    uriscan::RiskFlags(c->batch.view(), spans, &column);
    benchmark::DoNotOptimize(column.data());
    benchmark::ClobberMemory();
  }
  Report(state, *c);
}

}  // namespace

void RegisterRiskBenchmarks(const Corpus* c) {
  benchmark::RegisterBenchmark(("BM_Risks/" + c->name).c_str(), BM_Risks, c);
  benchmark::RegisterBenchmark(("BM_RiskColumn/" + c->name).c_str(),
                               BM_RiskColumn, c);
}

}  // namespace uriscan_bench
