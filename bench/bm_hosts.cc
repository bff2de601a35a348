// SPDX-License-Identifier: MIT
// The host columns per row: BM_PslLookup (PublicSuffixList's table) beside
// libpsl as it was asked before (per host, behind a per-thread cache of
// 65536 hosts, and without the cache), and BM_Surt (AppendIaSurt, the
// common path first) beside the library's steps one by one.
#include <benchmark/benchmark.h>
#include <libpsl.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "bench/common.h"
#include "src/transform/surt.h"
#include "uriscan/uriscan.h"

namespace uriscan_bench {
namespace {

// The reg-name hosts of the valid rows, as the CLI asks about them.
std::vector<std::string_view> RegNameHosts(const Corpus& c) {
  std::vector<std::string_view> hosts;
  uriscan::ComponentSpans spans;
  uriscan::Scan(c.batch.view(), &spans);
  for (size_t i = 0; i < c.batch.size(); ++i) {
    const uriscan::UriReference uri = spans.Row(i, c.batch.view().data);
    const auto host = uri.host();
    if (uri.valid() && host && uri.host_kind() == uriscan::HostKind::kRegName)
      hosts.push_back(*host);
  }
  return hosts;
}

void ReportRows(benchmark::State& state, size_t rows) {
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["ns/row"] = benchmark::Counter(
      static_cast<double>(rows) * state.iterations() * 1e-9,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_PslLookup(benchmark::State& state, const Corpus* c) {
  const std::vector<std::string_view> hosts = RegNameHosts(*c);
  const uriscan::PublicSuffixList psl;
  if (!psl.HasTable()) state.SetLabel("no table: libpsl");
  for (auto _ : state) {
    for (std::string_view h : hosts) {
      const auto a = psl.Lookup(h);
      benchmark::DoNotOptimize(a.registrable_domain);
      benchmark::DoNotOptimize(a.public_suffix);
    }
  }
  ReportRows(state, hosts.size());
}

// What PublicSuffixList did before the table: lower-case into a string,
// look it up in a per-thread cache of 65536 hosts (emptied when full),
// ask libpsl on a miss. `cache` false: libpsl every time (as on a log
// with more distinct hosts than the cache holds).
void BM_PslLookupLibpsl(benchmark::State& state, const Corpus* c, bool cache) {
  const std::vector<std::string_view> hosts = RegNameHosts(*c);
  const psl_ctx_t* psl = psl_builtin();
  struct Answer {
    std::string registrable, suffix;
    bool has_registrable, has_suffix;
  };
  std::unordered_map<std::string, Answer> answers;
  std::string lower;
  for (auto _ : state) {
    for (std::string_view h : hosts) {
      lower.assign(h);
      for (char& ch : lower) ch = (ch >= 'A' && ch <= 'Z') ? ch + 32 : ch;
      auto it = answers.find(lower);
      if (it == answers.end()) {
        if (answers.size() >= (1u << 16) || !cache) answers.clear();
        const char* r = psl_registrable_domain(psl, lower.c_str());
        const char* p = psl_unregistrable_domain(psl, lower.c_str());
        it = answers.emplace(lower, Answer{r ? r : "", p ? p : "", r != nullptr,
                                           p != nullptr})
                 .first;
      }
      benchmark::DoNotOptimize(it->second.has_registrable);
    }
  }
  ReportRows(state, hosts.size());
}

// The rows with a scheme, as the CLI gives them to AppendIaSurt.
std::vector<std::string_view> RowsWithScheme(const Corpus& c) {
  std::vector<std::string_view> rows;
  for (size_t i = 0; i < c.batch.size(); ++i) {
    const std::string_view row = c.batch.view().Get(i);
    if (uriscan::ParseUriReference(row).scheme()) rows.push_back(row);
  }
  return rows;
}

void BM_Surt(benchmark::State& state, const Corpus* c, bool full_only) {
  const std::vector<std::string_view> rows = RowsWithScheme(*c);
  std::string key;
  size_t common = 0;
  for (std::string_view r : rows)
    common += uriscan::surt_internal::AppendCommonIaSurt(r, &key);
  for (auto _ : state) {
    for (std::string_view r : rows) {
      key.clear();
      benchmark::DoNotOptimize(
          full_only ? uriscan::surt_internal::AppendFullIaSurt(r, &key)
                    : uriscan::AppendIaSurt(r, &key));
    }
  }
  state.counters["common"] = static_cast<double>(common);
  ReportRows(state, rows.size());
}

}  // namespace

void RegisterHostsBenchmarks(const Corpus* c) {
  benchmark::RegisterBenchmark(("BM_PslLookup/" + c->name).c_str(),
                               BM_PslLookup, c);
  benchmark::RegisterBenchmark(("BM_PslLookupLibpslCached/" + c->name).c_str(),
                               BM_PslLookupLibpsl, c, true);
  benchmark::RegisterBenchmark(("BM_PslLookupLibpsl/" + c->name).c_str(),
                               BM_PslLookupLibpsl, c, false);
  benchmark::RegisterBenchmark(("BM_Surt/" + c->name).c_str(), BM_Surt, c,
                               false);
  benchmark::RegisterBenchmark(("BM_SurtFull/" + c->name).c_str(), BM_Surt, c,
                               true);
}

}  // namespace uriscan_bench
