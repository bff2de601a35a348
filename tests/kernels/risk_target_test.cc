// SPDX-License-Identifier: MIT
// The risk column on every Highway target, forced one at a time: computed
// from the SIMD scan's spans, it equals the column from ScanScalar's spans.
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"
#include "tests/support/corpus.h"
#include "uriscan/uriscan.h"

namespace uriscan {
namespace {

class RiskTargetTest : public hwy::TestWithParamTarget {
 protected:
  void SetUp() override {
    hwy::TestWithParamTarget::SetUp();
    ASSERT_STREQ(DispatchedTargetName(), hwy::TargetName(GetParam()));
  }
};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(RiskTargetTest);

// The risk columns of both scans of `text` (one reference per line); the
// first difference fails. `flagged` counts rows with any flag but invalid.
::testing::AssertionResult SameRisks(const std::string& text, size_t* flagged) {
  OwnedBatch batch;
  if (!BatchFromLines(text, &batch))
    return ::testing::AssertionFailure() << "batch too large";
  ComponentSpans fast, oracle;
  Scan(batch.view(), &fast);
  ScanScalar(batch.view(), &oracle);
  std::vector<uint32_t> a, b;
  RiskFlags(batch.view(), fast, &a);
  RiskFlags(batch.view(), oracle, &b);
  if (a.size() != b.size()) return ::testing::AssertionFailure() << "size";
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) {
      return ::testing::AssertionFailure()
             << "row " << i << " '" << std::string(batch.view().Get(i))
             << "' on " << DispatchedTargetName() << ": " << RiskFlagNames(a[i])
             << " vs " << RiskFlagNames(b[i]);
    }
    *flagged += a[i] != 0 && a[i] != risks::kInvalid;
  }
  return ::testing::AssertionSuccess();
}

TEST_P(RiskTargetTest, CorporaMatchTheScalarSpans) {
  size_t flagged = 0;
  for (const auto& corpus : test_corpus::LoadCorpora())
    ASSERT_TRUE(SameRisks(corpus.bytes, &flagged)) << corpus.name;
  EXPECT_GT(flagged, 0u);
}

// References built from the pieces each flag looks at, at random places so
// they cross the kernels' block boundaries.
TEST_P(RiskTargetTest, GeneratedRiskyReferencesMatch) {
  static const char* const kSchemes[] = {"http://", "JavaScript:", "data:", "",
                                         "//",      "foo:",        "/"};
  static const char* const kUserinfo[] = {"",    "u@",     "u:p@", "a.b@",
                                          "u:@", "%41.b@", "@"};
  static const char* const kHosts[] = {"h",
                                       "0x7f.1",
                                       "127.1",
                                       "2130706433",
                                       "0177.0.0.1",
                                       "127.0.0.1.",
                                       "10.0.0.1",
                                       "[::1]",
                                       "[::ffff:169.254.169.254]",
                                       "[64:ff9b::1.2.3.4]",
                                       "[fe80::1]",
                                       "%31.2",
                                       "0x",
                                       "08",
                                       "1.2.3.4.5",
                                       "[v7.x]",
                                       "a%2eb"};
  static const char* const kPorts[] = {"",       ":",    ":65535",
                                       ":65536", ":080", ":99999999999"};
  static const char* const kPaths[] = {
      "",       "/",    "/..",  "/a/../..", "/%2e%2E/", "/.%2e", "/%2F", "/%5c",
      "/%252f", "/%00", "/%7f", "../a",     "/a/./b",   "%2e",   "/%zz", "/ "};
  static const char* const kTails[] = {"",       "?",        "?%0a",
                                       "#%2541", "?x=../..", "#f"};
  std::mt19937_64 rng(7);
  std::string text;
  for (int i = 0; i < 40000; ++i) {
    const std::string scheme = kSchemes[rng() % 7];
    const bool authority = scheme.find("//") != std::string::npos;
    std::string s = scheme;
    if (authority) {
      s += kUserinfo[rng() % 7];
      s += kHosts[rng() % 17];
      s += kPorts[rng() % 6];
    }
    // A segment of random length moves the next pieces across blocks.
    if (rng() % 2) s += "/" + std::string(rng() % 65, 'a');
    s += kPaths[rng() % 16];
    s += kTails[rng() % 6];
    text += s;
    text += '\n';
  }
  size_t flagged = 0;
  ASSERT_TRUE(SameRisks(text, &flagged)) << "seed 7";
  EXPECT_GT(flagged, 20000u);
}

}  // namespace
}  // namespace uriscan
