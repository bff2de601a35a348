// SPDX-License-Identifier: MIT
// BM_QueryParams and BM_Decode: a batch's query parameters and their
// decoding from spans scanned once, each beside a straightforward scalar
// peer in the same run (a byte loop over each row's query).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench/common.h"
#include "uriscan/uriscan.h"

namespace uriscan_bench {
namespace {

using uriscan::ComponentSpans;
using uriscan::QueryParams;

void ReportParams(benchmark::State& state, const Corpus& c, size_t params) {
  state.counters["params"] = static_cast<double>(params);
  state.SetLabel(uriscan::DispatchedTargetName());
  Report(state, c);
}

// ExtractQueryParams(): '&' and '=' from SIMD bitmasks.
void BM_QueryParams(benchmark::State& state, const Corpus* c) {
  ComponentSpans spans;
  uriscan::Scan(c->batch.view(), &spans);
  QueryParams params;
  for (auto _ : state) {
    uriscan::ExtractQueryParams(c->batch.view().data, spans, &params);
    benchmark::DoNotOptimize(params.row.data());
    benchmark::ClobberMemory();
  }
  ReportParams(state, *c, params.size());
}

// The peer: the same columns, byte by byte.
void BM_QueryParamsScalar(benchmark::State& state, const Corpus* c) {
  ComponentSpans spans;
  uriscan::Scan(c->batch.view(), &spans);
  QueryParams params;
  for (auto _ : state) {
    uriscan::ExtractQueryParamsScalar(c->batch.view().data, spans, &params);
    benchmark::DoNotOptimize(params.row.data());
    benchmark::ClobberMemory();
  }
  ReportParams(state, *c, params.size());
}

// Form-decoding of every name and value: DecodeSpans(), one call each.
void BM_Decode(benchmark::State& state, const Corpus* c) {
  ComponentSpans spans;
  uriscan::Scan(c->batch.view(), &spans);
  QueryParams p;
  uriscan::ExtractQueryParams(c->batch.view().data, spans, &p);
  std::vector<char> out;
  std::vector<uint32_t> offsets;
  for (auto _ : state) {
    uriscan::DecodeSpans(c->batch.view().data, p.name_begin.data(),
                         p.name_end.data(), p.size(),
                         uriscan::Decoding::kForm, &out, &offsets);
    uriscan::DecodeSpans(c->batch.view().data, p.value_begin.data(),
                         p.value_end.data(), p.size(),
                         uriscan::Decoding::kForm, &out, &offsets);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  ReportParams(state, *c, p.size());
}

int HexDigit(char h) {
  if (h >= '0' && h <= '9') return h - '0';
  h = static_cast<char>(h | 0x20);
  return h >= 'a' && h <= 'f' ? h - 'a' + 10 : -1;
}

// The peer: a byte loop into a std::string per span.
void ScalarFormDecode(const char* s, size_t n, std::string* out) {
  out->clear();
  for (size_t i = 0; i < n; ++i) {
    int hi, lo;
    if (s[i] == '%' && i + 2 < n && (hi = HexDigit(s[i + 1])) >= 0 &&
        (lo = HexDigit(s[i + 2])) >= 0) {
      out->push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      out->push_back(s[i] == '+' ? ' ' : s[i]);
    }
  }
}

void BM_DecodeScalar(benchmark::State& state, const Corpus* c) {
  ComponentSpans spans;
  uriscan::Scan(c->batch.view(), &spans);
  QueryParams p;
  uriscan::ExtractQueryParams(c->batch.view().data, spans, &p);
  const char* data = c->batch.view().data;
  std::string text;
  for (auto _ : state) {
    for (size_t k = 0; k < p.size(); ++k) {
      ScalarFormDecode(data + p.name_begin[k], p.name_end[k] - p.name_begin[k],
                       &text);
      benchmark::DoNotOptimize(text.data());
      ScalarFormDecode(data + p.value_begin[k],
                       p.value_end[k] - p.value_begin[k], &text);
      benchmark::DoNotOptimize(text.data());
    }
    benchmark::ClobberMemory();
  }
  ReportParams(state, *c, p.size());
}

}  // namespace

void RegisterAnalyticsBenchmarks(const Corpus* c) {
  benchmark::RegisterBenchmark(("BM_QueryParams/" + c->name).c_str(),
                               BM_QueryParams, c);
  benchmark::RegisterBenchmark(("BM_QueryParamsScalar/" + c->name).c_str(),
                               BM_QueryParamsScalar, c);
  benchmark::RegisterBenchmark(("BM_Decode/" + c->name).c_str(), BM_Decode,
                               c);
  benchmark::RegisterBenchmark(("BM_DecodeScalar/" + c->name).c_str(),
                               BM_DecodeScalar, c);
}

}  // namespace uriscan_bench
