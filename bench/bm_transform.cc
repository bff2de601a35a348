// SPDX-License-Identifier: MIT
// Normalization and resolution on whole batches, beside uriparser and
// Boost.URL doing the same one reference at a time.
#include <memory>
#include <string>

#include "bench/common.h"

#if URISCAN_HAVE_URIPARSER
#include <uriparser/Uri.h>
#endif
#if URISCAN_HAVE_BOOST_URL
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>
#endif

namespace uriscan_bench {
namespace {

using uriscan::ComponentSpans;
using uriscan::Profile;

// BM_Normalize/<profile>/<corpus>: NormalizeBatch from the scan's spans
// (the scan itself is BM_Scan). Checked once against Normalize() row by
// row before timing.
void BM_Normalize(benchmark::State& state, const Corpus* c, Profile p) {
  ComponentSpans spans;
  uriscan::Scan(c->batch.view(), &spans);
  uriscan::NormalizedBatch out;
  uriscan::NormalizeBatch(c->batch.view(), spans, p, &out);
  size_t rewritten = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const std::string_view in = c->batch.view().Get(i);
    const bool ok = spans.error_kind[i] ? out.Get(i) == in
                                        : out.Get(i) == uriscan::Normalize(in, p);
    if (!ok) {
      state.SkipWithError("NormalizeBatch differs from Normalize()");
      return;
    }
    rewritten += out.Get(i) != in;
  }
  for (auto _ : state) {
    uriscan::NormalizeBatch(c->batch.view(), spans, p, &out);
    benchmark::DoNotOptimize(out.view().data);
    benchmark::ClobberMemory();
  }
  state.counters["rewritten"] = static_cast<double>(rewritten);
  state.counters["copied"] = static_cast<double>(out.copied());
  Report(state, *c);
}

// The references of BM_Resolve: each valid line's path and query.
struct References {
  OwnedBatch batch;
};
const char kBase[] = "http://example.com/a/b/c/d;p?q";

std::unique_ptr<References> MakeReferences(const Corpus& c) {
  auto r = std::make_unique<References>();
  std::string lines;
  for (size_t i = 0; i < c.batch.size(); ++i) {
    const uriscan::UriReference u =
        uriscan::ParseUriReference(c.batch.view().Get(i));
    if (!u.valid()) continue;
    std::string ref(u.path());
    if (u.query()) ref += "?" + std::string(*u.query());
    if (!uriscan::ParseUriReference(ref).valid()) continue;  // "a:b" paths
    lines += ref;
    lines += '\n';
  }
  if (!uriscan::BatchFromLines(lines, &r->batch)) r->batch = OwnedBatch{};
  return r;
}

// BM_Resolve/<corpus>: scan the references and resolve them all against
// one base (scan included: the peers parse too).
void BM_Resolve(benchmark::State& state, const References* refs) {
  const uriscan::UriReference base = uriscan::ParseUriReference(kBase);
  ComponentSpans spans;
  uriscan::ResolvedBatch out;
  uriscan::Scan(refs->batch.view(), &spans);
  uriscan::ResolveBatch(base, refs->batch.view(), spans, {}, false, &out);
  for (size_t i = 0; i < out.size(); ++i) {
    if (out.Get(i) != uriscan::Resolve(kBase, refs->batch.view().Get(i))) {
      state.SkipWithError("ResolveBatch differs from Resolve()");
      return;
    }
  }
  for (auto _ : state) {
    uriscan::Scan(refs->batch.view(), &spans);
    uriscan::ResolveBatch(base, refs->batch.view(), spans, {}, false, &out);
    benchmark::DoNotOptimize(out.data.data());
    benchmark::ClobberMemory();
  }
  Report(state, refs->batch);
}

#if URISCAN_HAVE_URIPARSER
bool UriparserString(const UriUriA& u, std::string* out) {
  int chars = 0;
  if (uriToStringCharsRequiredA(&u, &chars) != URI_SUCCESS) return false;
  out->resize(static_cast<size_t>(chars) + 1);
  if (uriToStringA(out->data(), &u, chars + 1, nullptr) != URI_SUCCESS)
    return false;
  out->resize(static_cast<size_t>(chars));
  return true;
}

// Parse, uriNormalizeSyntaxExA, uriToStringA: what a uriparser user writes.
size_t UriparserNormalizeAll(const OwnedBatch& batch, std::string* s) {
  size_t done = 0;
  const uriscan::Batch b = batch.view();
  for (size_t i = 0; i < b.count; ++i) {
    UriUriA u;
    const char* err = nullptr;
    if (uriParseSingleUriExA(&u, b.data + b.offsets[i],
                             b.data + b.offsets[i + 1], &err) != URI_SUCCESS)
      continue;
    unsigned int mask = 0;
    if (uriNormalizeSyntaxMaskRequiredExA(&u, &mask) == URI_SUCCESS &&
        uriNormalizeSyntaxExA(&u, mask) == URI_SUCCESS &&
        UriparserString(u, s)) {
      ++done;
    }
    uriFreeUriMembersA(&u);
  }
  return done;
}

void BM_uriparser_Normalize(benchmark::State& state, const Corpus* c) {
  std::string s;
  const size_t done = UriparserNormalizeAll(c->batch, &s);
  if (done == 0 && c->valid > 0) {
    state.SkipWithError("uriparser normalized nothing");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(UriparserNormalizeAll(c->batch, &s));
  state.counters["accepted"] = static_cast<double>(done);
  Report(state, *c);
}

size_t UriparserResolveAll(const UriUriA& base, const OwnedBatch& batch,
                           std::string* s) {
  size_t done = 0;
  const uriscan::Batch b = batch.view();
  for (size_t i = 0; i < b.count; ++i) {
    UriUriA r, t;
    const char* err = nullptr;
    if (uriParseSingleUriExA(&r, b.data + b.offsets[i],
                             b.data + b.offsets[i + 1], &err) != URI_SUCCESS)
      continue;
    if (uriAddBaseUriA(&t, &r, &base) == URI_SUCCESS) {
      done += UriparserString(t, s);
      uriFreeUriMembersA(&t);
    }
    uriFreeUriMembersA(&r);
  }
  return done;
}

void BM_uriparser_Resolve(benchmark::State& state, const References* refs) {
  UriUriA base;
  if (uriParseSingleUriA(&base, kBase, nullptr) != URI_SUCCESS) {
    state.SkipWithError("uriparser rejects the base");
    return;
  }
  std::string s;
  const size_t done = UriparserResolveAll(base, refs->batch, &s);
  if (done != refs->batch.size()) state.SkipWithError("uriparser refused some");
  for (auto _ : state)
    benchmark::DoNotOptimize(UriparserResolveAll(base, refs->batch, &s));
  uriFreeUriMembersA(&base);
  state.counters["accepted"] = static_cast<double>(done);
  Report(state, refs->batch);
}
#endif

#if URISCAN_HAVE_BOOST_URL
size_t BoostNormalizeAll(const OwnedBatch& batch, boost::urls::url* u) {
  size_t done = 0;
  const uriscan::Batch b = batch.view();
  for (size_t i = 0; i < b.count; ++i) {
    auto r = boost::urls::parse_uri_reference(boost::core::string_view(
        b.data + b.offsets[i], b.offsets[i + 1] - b.offsets[i]));
    if (!r) continue;
    *u = *r;
    u->normalize();
    benchmark::DoNotOptimize(u->buffer().data());
    ++done;
  }
  return done;
}

void BM_BoostUrl_Normalize(benchmark::State& state, const Corpus* c) {
  boost::urls::url u;
  const size_t done = BoostNormalizeAll(c->batch, &u);
  for (auto _ : state) benchmark::DoNotOptimize(BoostNormalizeAll(c->batch, &u));
  state.counters["accepted"] = static_cast<double>(done);
  Report(state, *c);
}

size_t BoostResolveAll(const boost::urls::url_view& base,
                       const OwnedBatch& batch, boost::urls::url* dest) {
  size_t done = 0;
  const uriscan::Batch b = batch.view();
  for (size_t i = 0; i < b.count; ++i) {
    auto r = boost::urls::parse_uri_reference(boost::core::string_view(
        b.data + b.offsets[i], b.offsets[i + 1] - b.offsets[i]));
    if (!r) continue;
    if (boost::urls::resolve(base, *r, *dest)) {
      benchmark::DoNotOptimize(dest->buffer().data());
      ++done;
    }
  }
  return done;
}

void BM_BoostUrl_Resolve(benchmark::State& state, const References* refs) {
  const boost::urls::url_view base = boost::urls::parse_uri(kBase).value();
  boost::urls::url dest;
  const size_t done = BoostResolveAll(base, refs->batch, &dest);
  if (done != refs->batch.size()) state.SkipWithError("Boost.URL refused some");
  for (auto _ : state)
    benchmark::DoNotOptimize(BoostResolveAll(base, refs->batch, &dest));
  state.counters["accepted"] = static_cast<double>(done);
  Report(state, refs->batch);
}
#endif

}  // namespace

void RegisterTransformBenchmarks(const Corpus* c) {
  for (Profile p : {Profile::kSyntax, Profile::kScheme, Profile::kCrawler,
                    Profile::kW3lib}) {
    benchmark::RegisterBenchmark(
        ("BM_Normalize/" + std::string(uriscan::ProfileName(p)) + "/" + c->name)
            .c_str(),
        BM_Normalize, c, p);
  }
  static std::vector<std::unique_ptr<References>> all_refs;
  all_refs.push_back(MakeReferences(*c));
  const References* refs = all_refs.back().get();
  benchmark::RegisterBenchmark(("BM_Resolve/" + c->name).c_str(), BM_Resolve,
                               refs);
#if URISCAN_HAVE_URIPARSER
  benchmark::RegisterBenchmark(("BM_uriparser_Normalize/" + c->name).c_str(),
                               BM_uriparser_Normalize, c);
  benchmark::RegisterBenchmark(("BM_uriparser_Resolve/" + c->name).c_str(),
                               BM_uriparser_Resolve, refs);
#endif
#if URISCAN_HAVE_BOOST_URL
  benchmark::RegisterBenchmark(("BM_BoostUrl_Normalize/" + c->name).c_str(),
                               BM_BoostUrl_Normalize, c);
  benchmark::RegisterBenchmark(("BM_BoostUrl_Resolve/" + c->name).c_str(),
                               BM_BoostUrl_Resolve, refs);
#endif
}

}  // namespace uriscan_bench
