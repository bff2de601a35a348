// SPDX-License-Identifier: MIT
// Query splitting and decoding on every Highway target, forced one at a
// time, against byte-by-byte references written here.
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"
#include "kernels/kernels.h"
#include "tests/support/corpus.h"
#include "uriscan/uriscan.h"

namespace uriscan {
namespace {

class AnalyticsTargetTest : public hwy::TestWithParamTarget {
 protected:
  void SetUp() override {
    hwy::TestWithParamTarget::SetUp();
    ASSERT_STREQ(DispatchedTargetName(), hwy::TargetName(GetParam()));
  }
};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(AnalyticsTargetTest);

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The decoding rules of the header, one byte at a time.
std::string ReferenceDecode(const std::string& in, bool form) {
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '%' && i + 2 < in.size() && Hex(in[i + 1]) >= 0 &&
        Hex(in[i + 2]) >= 0) {
      out.push_back(static_cast<char>(Hex(in[i + 1]) * 16 + Hex(in[i + 2])));
      i += 2;
    } else {
      out.push_back(form && in[i] == '+' ? ' ' : in[i]);
    }
  }
  return out;
}

std::string RandomText(std::mt19937* rng, size_t size, const char* alphabet) {
  const std::string a = alphabet;
  std::string s(size, ' ');
  for (char& c : s) c = a[(*rng)() % a.size()];
  return s;
}

TEST_P(AnalyticsTargetTest, DelimMasksMatchEveryByte) {
  std::mt19937 rng(7);
  for (size_t size = 0; size <= 300; ++size) {
    const std::string s = RandomText(&rng, size, "a&=b%&=");
    std::vector<uint64_t> amp((size + 63) / 64 + 1, ~uint64_t{0}),
        eq(amp.size(), ~uint64_t{0});
    kernels::DelimMasks(reinterpret_cast<const uint8_t*>(s.data()), size,
                        amp.data(), eq.data());
    for (size_t i = 0; i < (size + 63) / 64 * 64; ++i) {
      const bool a = (amp[i / 64] >> (i % 64)) & 1;
      const bool e = (eq[i / 64] >> (i % 64)) & 1;
      ASSERT_EQ(a, i < size && s[i] == '&') << size << " at " << i;
      ASSERT_EQ(e, i < size && s[i] == '=') << size << " at " << i;
    }
  }
}

// Every length to 300 and every place of an escape, so runs end inside and
// at the edge of a vector of every width.
TEST_P(AnalyticsTargetTest, DecodeMatchesTheReference) {
  std::mt19937 rng(11);
  static const char* const kAlphabets[] = {"abcdefgh", "ab%2B+", "%4g1F+x",
                                           "%%%41", "\xff\x80%e2%82+"};
  std::vector<char> out;
  for (const char* alphabet : kAlphabets) {
    for (size_t size = 0; size <= 300; ++size) {
      const std::string s = RandomText(&rng, size, alphabet);
      for (Decoding how : {Decoding::kPercent, Decoding::kForm}) {
        out.assign(size, '\0');
        const size_t n = Decode(s, how, out.data());
        ASSERT_EQ(std::string(out.data(), n),
                  ReferenceDecode(s, how == Decoding::kForm))
            << "'" << s << "'";
      }
    }
  }
}

TEST_P(AnalyticsTargetTest, DecodeSpansMatchesDecode) {
  const std::string data = "a%20b+c/%41%42+%2/x+y%25";
  const std::vector<uint32_t> begin = {0, 8, 0, 22, 3};
  const std::vector<uint32_t> end = {7, 20, 0, 24, 24};
  std::vector<char> out;
  std::vector<uint32_t> offsets;
  DecodeSpans(data.data(), begin.data(), end.data(), begin.size(),
              Decoding::kForm, &out, &offsets);
  ASSERT_EQ(offsets.size(), begin.size() + 1);
  for (size_t k = 0; k < begin.size(); ++k) {
    EXPECT_EQ(std::string(out.data() + offsets[k], out.data() + offsets[k + 1]),
              ReferenceDecode(data.substr(begin[k], end[k] - begin[k]), true))
        << k;
  }
}

::testing::AssertionResult SameParams(const std::string& text,
                                      size_t* params) {
  OwnedBatch batch;
  if (!BatchFromLines(text, &batch))
    return ::testing::AssertionFailure() << "batch too large";
  ComponentSpans spans;
  Scan(batch.view(), &spans);
  QueryParams fast, oracle;
  ExtractQueryParams(batch.view().data, spans, &fast);
  ExtractQueryParamsScalar(batch.view().data, spans, &oracle);
  *params += oracle.size();
  if (fast.row != oracle.row || fast.name_begin != oracle.name_begin ||
      fast.name_end != oracle.name_end ||
      fast.value_begin != oracle.value_begin ||
      fast.value_end != oracle.value_end)
    return ::testing::AssertionFailure()
           << "params differ on " << DispatchedTargetName() << " ("
           << fast.size() << " vs " << oracle.size() << ")";
  return ::testing::AssertionSuccess();
}

TEST_P(AnalyticsTargetTest, CorporaParamsMatchTheScalarSplit) {
  size_t params = 0;
  for (const auto& corpus : test_corpus::LoadCorpora())
    ASSERT_TRUE(SameParams(corpus.bytes, &params)) << corpus.name;
  EXPECT_GT(params, 0u);
}

// Queries of every shape at random lengths, so '&' and '=' fall on both
// sides of 64-byte blocks and of the 64 KiB groups.
TEST_P(AnalyticsTargetTest, GeneratedQueriesMatch) {
  std::mt19937 rng(3);
  std::string text;
  for (int row = 0; row < 6000; ++row) {
    text += row % 7 == 0 ? "/p" : "http://h/p?";
    static const char* const kTokens[] = {"a", "b", "&", "=", "%41", "+",
                                          "&&", "xy"};
    for (size_t t = rng() % 80; t > 0; --t) text += kTokens[rng() % 8];
    if (row % 5 == 0) text += "#f&g=1";
    text += '\n';
  }
  size_t params = 0;
  ASSERT_TRUE(SameParams(text, &params));
  EXPECT_GT(params, 10000u);
}

}  // namespace
}  // namespace uriscan
