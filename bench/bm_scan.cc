// SPDX-License-Identifier: MIT
// uriscan_bench: scanning named corpora, uriscan beside its peers.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <vector>

#include "bench/common.h"
#include "tests/support/corpus.h"
#include "uriscan/uriscan.h"

#include "hwy/targets.h"
#include "kernels/kernels.h"

#if URISCAN_HAVE_URIPARSER
#include <uriparser/Uri.h>
#endif
#if URISCAN_HAVE_BOOST_URL
#include <boost/url/parse.hpp>
#endif
#if URISCAN_HAVE_CURL
#include <curl/curl.h>
#endif

namespace uriscan_bench {
namespace {

using uriscan::ComponentSpans;
using uriscan::OwnedBatch;

// The dispatched SIMD scan; checked once against the scalar oracle.
void BM_Scan(benchmark::State& state, const Corpus* c) {
  ComponentSpans spans, oracle;
  uriscan::Scan(c->batch.view(), &spans);
  uriscan::ScanScalar(c->batch.view(), &oracle);
  if (spans.flags != oracle.flags || spans.path_end != oracle.path_end ||
      spans.host_end != oracle.host_end ||
      spans.error_offset != oracle.error_offset) {
    state.SkipWithError("SIMD scan differs from the scalar oracle");
    return;
  }
  for (auto _ : state) {
    uriscan::Scan(c->batch.view(), &spans);
    benchmark::DoNotOptimize(spans.flags.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(uriscan::DispatchedTargetName());
  Report(state, *c);
}

// Scanner::ScanLines over the corpus file as read: newline-separated text
// scanned where it lies (the command's path), rows checked once against
// the oracle over the copied lines.
void BM_ScanLines(benchmark::State& state, const Corpus* c) {
  uriscan::Scanner scanner;
  ComponentSpans spans, oracle;
  uriscan::ScanScalar(c->batch.view(), &oracle);
  if (!scanner.ScanLines(c->text, &spans) || spans.size() != oracle.size()) {
    state.SkipWithError("ScanLines failed or split differently");
    return;
  }
  for (size_t i = 0; i < spans.size(); ++i) {
    if (spans.Row(i, c->text.data()).text() !=
            oracle.Row(i, c->batch.data.data()).text() ||
        spans.flags[i] != oracle.flags[i] ||
        spans.error_kind[i] != oracle.error_kind[i]) {
      state.SkipWithError("ScanLines differs from the scalar oracle");
      return;
    }
  }
  for (auto _ : state) {
    const bool ok = scanner.ScanLines(c->text, &spans);
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(spans.flags.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(uriscan::DispatchedTargetName());
  Report(state, *c);
}

// BatchFromLines over the corpus file as read, into a reused batch (the
// steady state of a caller that cuts chunk after chunk into batches);
// checked once against a byte loop that splits the same lines.
void BM_BatchFromLines(benchmark::State& state, const Corpus* c) {
  OwnedBatch expected;
  size_t begin = 0;
  const std::string& text = c->text;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    const size_t next = end == std::string::npos ? text.size() : end + 1;
    if (end == std::string::npos) end = text.size();
    if (end > begin && next == end + 1 && text[end - 1] == '\r') --end;
    expected.data.insert(expected.data.end(), text.begin() + begin,
                         text.begin() + end);
    expected.offsets.push_back(static_cast<uint32_t>(expected.data.size()));
    begin = next;
  }
  OwnedBatch batch;
  if (!uriscan::BatchFromLines(text, &batch) ||
      batch.offsets != expected.offsets || batch.data != expected.data) {
    state.SkipWithError("BatchFromLines differs from a byte loop");
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(uriscan::BatchFromLines(text, &batch));
    benchmark::ClobberMemory();
  }
  Report(state, *c);
}

// Stage 1 alone over the batch bytes, window by window into the same
// L1-sized scratch the scan uses: the floor of BM_Scan. The class counts
// are checked against a byte loop once, outside the timing.
void BM_Classify(benchmark::State& state, const Corpus* c) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(c->batch.data.data());
  const size_t size = c->batch.data.size();
  uint64_t want = 0;
  for (char ch : c->batch.data) want += ch == ':' || ch == '/';
  uint64_t counts[uriscan::kernels::kNumClasses] = {0};
  uriscan::kernels::CountClasses(bytes, size, counts);
  if (counts[uriscan::kernels::kColonSlash] != want) {
    state.SkipWithError("classification miscounts ':' and '/'");
    return;
  }
  std::vector<uint64_t> masks(uriscan::kernels::kScratchMaskWords);
  for (auto _ : state) {
    uriscan::kernels::Classify(bytes, size, masks.data());
    benchmark::DoNotOptimize(masks.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(uriscan::DispatchedTargetName());
  Report(state, *c);
}

// The scalar parser over the batch: the reference every target must match.
void BM_ScanScalar(benchmark::State& state, const Corpus* c) {
  ComponentSpans spans;
  uriscan::ScanScalar(c->batch.view(), &spans);
  size_t valid = 0;
  for (size_t i = 0; i < spans.size(); ++i) valid += spans.error_kind[i] == 0;
  if (valid != c->valid || spans.size() != c->batch.size()) {
    state.SkipWithError("scan disagrees with the oracle's counts");
    return;
  }
  for (auto _ : state) {
    uriscan::ScanScalar(c->batch.view(), &spans);
    benchmark::DoNotOptimize(spans.flags.data());
    benchmark::ClobberMemory();
  }
  state.counters["valid"] = static_cast<double>(valid);
  Report(state, *c);
}

#if URISCAN_HAVE_URIPARSER
// uriparser's RFC 3986 parser, one reference at a time.
void BM_uriparser(benchmark::State& state, const Corpus* c) {
  UriUriA uri;
  const char* error_pos = nullptr;
  RunPeer(state, *c, /*must_accept=*/true, [&](std::string_view row) {
    if (uriParseSingleUriExA(&uri, row.data(), row.data() + row.size(),
                             &error_pos) != URI_SUCCESS)
      return false;
    uriFreeUriMembersA(&uri);
    return true;
  });
}
#endif

#if URISCAN_HAVE_BOOST_URL
// Boost.URL's RFC 3986 URI-reference parser (parse_uri_reference).
void BM_BoostUrl(benchmark::State& state, const Corpus* c) {
  RunPeer(state, *c, /*must_accept=*/false, [](std::string_view row) {
    auto r = boost::urls::parse_uri_reference(
        boost::core::string_view(row.data(), row.size()));
    benchmark::DoNotOptimize(r);
    return r.has_value();
  });
}
#endif

#if URISCAN_HAVE_CURL
// libcurl's URL API (curl_url_set; WHATWG-leaning, not RFC 3986 exact). It
// rejects every node_files line, so accepting nothing is no error here.
void BM_curl(benchmark::State& state, const Corpus* c) {
  CURLU* h = curl_url();
  std::string line;
  RunPeer(state, *c, /*must_accept=*/false, [&](std::string_view row) {
    line.assign(row);  // curl takes a NUL-terminated string
    return curl_url_set(h, CURLUPART_URL, line.c_str(), 0) == CURLUE_OK;
  });
  curl_url_cleanup(h);
}
#endif

}  // namespace
}  // namespace uriscan_bench

// --target=NAME (AVX3, AVX2, SSE4, ...): runs the kernels on that Highway
// target, every better one disabled, so targets compare in one binary.
bool ForceTarget(int* argc, char** argv) {
  for (int i = 1; i < *argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--target=", 0) != 0) continue;
    const std::string name = arg.substr(9);
    for (int bit = 0; bit < 63; ++bit) {
      const int64_t target = int64_t{1} << bit;
      if (name != hwy::TargetName(target)) continue;
      if ((hwy::SupportedTargets() & target) == 0) break;
      hwy::DisableTargets(target - 1);  // better targets have lower bits
      for (int k = i; k + 1 < *argc; ++k) argv[k] = argv[k + 1];
      --*argc;
      return true;
    }
    std::fprintf(stderr, "uriscan_bench: target %s is not supported here\n",
                 name.c_str());
    return false;
  }
  return true;
}

int main(int argc, char** argv) {
  using namespace uriscan_bench;  // NOLINT: the benchmark functions
  if (!ForceTarget(&argc, argv)) return 2;
  benchmark::Initialize(&argc, argv);
  std::vector<uriscan::test_corpus::CorpusFile> files =
      uriscan::test_corpus::LoadCorpora();
  for (auto& f : files) {
    if (f.name == "tricky" || f.name == "apache_access") continue;
    Corpus c;
    c.name = f.name;
    c.text = f.bytes;
    if (!uriscan::BatchFromLines(f.bytes, &c.batch)) continue;
    ComponentSpans spans;
    for (size_t i = 0; i < c.batch.size(); ++i)
      c.valid += uriscan::ParseUriReference(c.batch.view().Get(i)).valid();
    benchmark::AddCustomContext(
        "corpus." + c.name,
        std::to_string(c.batch.size()) + " lines, " +
            std::to_string(c.batch.data.size()) + " bytes, " +
            std::to_string(c.batch.size() - c.valid) + " invalid");
    Corpora().push_back(std::move(c));
  }
  benchmark::AddCustomContext("highway.target", uriscan::DispatchedTargetName());
  for (const Corpus& c : Corpora()) {
    benchmark::RegisterBenchmark(("BM_Scan/" + c.name).c_str(), BM_Scan, &c);
    benchmark::RegisterBenchmark(("BM_ScanLines/" + c.name).c_str(),
                                 BM_ScanLines, &c);
    benchmark::RegisterBenchmark(("BM_BatchFromLines/" + c.name).c_str(),
                                 BM_BatchFromLines, &c);
    RegisterRiskBenchmarks(&c);
    RegisterAnalyticsBenchmarks(&c);
    RegisterHostsBenchmarks(&c);
    benchmark::RegisterBenchmark(("BM_ScanScalar/" + c.name).c_str(),
                                 BM_ScanScalar, &c);
    benchmark::RegisterBenchmark(("BM_Classify/" + c.name).c_str(),
                                 BM_Classify, &c);
#if URISCAN_HAVE_URIPARSER
    benchmark::RegisterBenchmark(("BM_uriparser/" + c.name).c_str(),
                                 BM_uriparser, &c);
#endif
    RegisterAdaBenchmarks(&c);
#if URISCAN_HAVE_BOOST_URL
    benchmark::RegisterBenchmark(("BM_BoostUrl/" + c.name).c_str(),
                                 BM_BoostUrl, &c);
#endif
#if URISCAN_HAVE_CURL
    benchmark::RegisterBenchmark(("BM_curl/" + c.name).c_str(), BM_curl, &c);
#endif
  }
  for (const Corpus& c : Corpora()) RegisterTransformBenchmarks(&c);
  for (const Corpus& c : Corpora()) RegisterDedupBenchmarks(&c);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
