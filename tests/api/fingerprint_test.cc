// SPDX-License-Identifier: MIT
// Fingerprints: golden values (keys are stable across runs, machines and
// releases), profile separation, equivalence, and batch == one at a time
// over the corpora.
#include "uriscan/fingerprint.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/corpus.h"
#include "tests/support/seed_vectors.h"

namespace uriscan {
namespace {

using test_corpus::SeedVectors;

// Changing one of these changes every key anybody has stored: it needs a new
// kProfileVersion, not a new golden value.
TEST(FingerprintTest, GoldenValues) {
  const Fingerprinter syntax(Profile::kSyntax), scheme(Profile::kScheme),
      crawler(Profile::kCrawler);
  EXPECT_EQ(syntax.seed(), 0x73f683c2b0f0eed1ull);
  EXPECT_EQ(scheme.seed(), 0xb915f01246b833aaull);
  EXPECT_EQ(crawler.seed(), 0x8d51937ab138cf7cull);
  EXPECT_EQ(syntax.Key64("http://example.com/a"), 0x46833282c2ba0f8aull);
  EXPECT_EQ(scheme.Key64("http://example.com/a"), 0x7eda5ce4abc5eda5ull);
  EXPECT_EQ(crawler.Key64("http://example.com/a"), 0x65b08a6ce1b23a5eull);
  EXPECT_EQ(scheme.Key64("HTTP://Example.COM:80/%7Ea/./b?q#f"),
            0x3ff46c54ae903c72ull);
  EXPECT_EQ(Fingerprinter(Profile::kW3lib).seed(), 0xb2c54e66210e39fbull);
  EXPECT_EQ(Fingerprinter(Profile::kW3lib).Key64("http://example.com/a?b&a"),
            0x463b196804e444d2ull);
  const Key128 k = scheme.Key128Of("http://example.com/a");
  EXPECT_EQ(k.low, 0x2c35ad7c04b86d33ull);
  EXPECT_EQ(k.high, 0x79a5b5919235ed97ull);
}

TEST(FingerprintTest, InvalidIsZeroAndProfilesNeverShareKeys) {
  const Fingerprinter syntax(Profile::kSyntax), scheme(Profile::kScheme),
      crawler(Profile::kCrawler);
  EXPECT_EQ(scheme.Key64("http://a b/"), 0u);
  EXPECT_EQ(scheme.Key128Of("http://[::1/"), Key128{});
  // "http://a/x" is its own normal form under all three profiles, yet each
  // profile keys it differently.
  const uint64_t a = syntax.Key64("http://a/x"), b = scheme.Key64("http://a/x"),
                 c = crawler.Key64("http://a/x");
  EXPECT_NE(a, b);
  EXPECT_NE(b, c);
  EXPECT_NE(a, c);
  // So does a different list of tracking parameters.
  NormalizeOptions other;
  other.tracking_params = {"sid"};
  const Fingerprinter crawler_sid(Profile::kCrawler, other);
  EXPECT_NE(crawler_sid.seed(), crawler.seed());
  EXPECT_NE(crawler_sid.Key64("http://a/x"), c);
  // Nor does folding "www.".
  NormalizeOptions fold;
  fold.fold_www = true;
  EXPECT_NE(Fingerprinter(Profile::kCrawler, fold).seed(), crawler.seed());
  EXPECT_EQ(Fingerprinter(Profile::kW3lib, fold).seed(),
            Fingerprinter(Profile::kW3lib).seed());
  // The list does not matter to the profiles that do not use it.
  EXPECT_EQ(Fingerprinter(Profile::kScheme, other).seed(), scheme.seed());
}

TEST_F(SeedVectors, EquivalentUrisShareAKey) {
  const Fingerprinter syntax(Profile::kSyntax), scheme(Profile::kScheme);
  int n = 0;
  for (const auto& v : V("equivalent")) {
    if (v.value("compat_only", false) || v.value("draft_only", false)) continue;
    const std::string a = v.at("a"), b = v.at("b");
    const std::string ladder = v.at("ladder");
    if (ladder == "syntax-based") {
      EXPECT_EQ(syntax.Key64(a), syntax.Key64(b)) << v;
      EXPECT_EQ(syntax.Key128Of(a), syntax.Key128Of(b)) << v;
      ++n;
    } else if (ladder.rfind("scheme-based", 0) == 0) {
      EXPECT_EQ(scheme.Key64(a), scheme.Key64(b)) << v;
      ++n;
    }
  }
  EXPECT_GT(n, 5);
  for (const auto& v : V("not_equivalent")) {
    if (v.contains("equivalent_at")) continue;
    EXPECT_NE(scheme.Key64(v.at("a").get<std::string>()),
              scheme.Key64(v.at("b").get<std::string>()))
        << v;
  }
}

TEST(FingerprintTest, BatchEqualsOneAtATimeOverTheCorpora) {
  size_t rows = 0;
  for (const auto& corpus : test_corpus::LoadCorpora()) {
    OwnedBatch batch;
    ASSERT_TRUE(BatchFromLines(corpus.bytes, &batch));
    ComponentSpans spans;
    Scan(batch.view(), &spans);
    for (Profile p : {Profile::kSyntax, Profile::kScheme, Profile::kCrawler}) {
      const Fingerprinter f(p);
      std::vector<uint64_t> k64;
      std::vector<Key128> k128;
      f.Batch64(batch.view(), spans, &k64);
      f.Batch128(batch.view(), spans, &k128);
      ASSERT_EQ(k64.size(), batch.size());
      ASSERT_EQ(k128.size(), batch.size());
      for (size_t i = 0; i < batch.size(); i += (p == Profile::kScheme ? 1 : 7)) {
        const std::string_view line = batch.view().Get(i);
        ASSERT_EQ(k64[i], f.Key64(line)) << corpus.name << " " << line;
        ASSERT_EQ(k128[i], f.Key128Of(line)) << corpus.name << " " << line;
        ASSERT_EQ(k64[i] == 0, spans.error_kind[i] != 0) << line;
        ++rows;
      }
    }
  }
  EXPECT_GT(rows, 200000u);
}

}  // namespace
}  // namespace uriscan
