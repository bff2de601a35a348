// SPDX-License-Identifier: MIT
// Query splitting and decoding on every Highway target, forced one at a
// time, against byte-by-byte references written here.
#include <algorithm>
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

// The byte of the escape at in[i], or -1.
int EscapeByte(const std::string& in, size_t i) {
  if (i + 2 >= in.size() || in[i] != '%' || Hex(in[i + 1]) < 0 ||
      Hex(in[i + 2]) < 0)
    return -1;
  return Hex(in[i + 1]) * 16 + Hex(in[i + 2]);
}

// Whether `bytes` is one UTF-8 character, by its code point: continuation
// bytes 10xxxxxx, the shortest form, no surrogate, nothing past U+10FFFF.
bool OneUtf8Character(const std::vector<int>& bytes) {
  const size_t n = bytes.size();
  const int lead_bits[] = {0, 0, 5, 4, 3};
  const int lead_mark[] = {0, 0, 0xC0, 0xE0, 0xF0};
  if (n < 2 || n > 4 ||
      (bytes[0] >> lead_bits[n]) != (lead_mark[n] >> lead_bits[n]))
    return false;
  uint32_t cp = bytes[0] & ((1 << lead_bits[n]) - 1);
  for (size_t k = 1; k < n; ++k) {
    if ((bytes[k] & 0xC0) != 0x80) return false;
    cp = cp << 6 | (bytes[k] & 0x3F);
  }
  const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  return cp >= least[n] && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
}

// The decoding rules of the header, one byte at a time: with `utf8`, the
// longest run of 2 to 4 escapes from here that is one character is decoded
// whole, and a high escape in none stays as written; "%00" always stays.
std::string ReferenceDecode(const std::string& in, bool form,
                            bool utf8 = true) {
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    const int v = EscapeByte(in, i);
    if (v < 0) {
      out.push_back(form && in[i] == '+' ? ' ' : in[i]);
      continue;
    }
    if (v == 0) {
      out.append(in, i, 3);
      i += 2;
      continue;
    }
    if (v < 0x80 || !utf8) {
      out.push_back(static_cast<char>(v));
      i += 2;
      continue;
    }
    std::vector<int> bytes = {v};
    size_t taken = 0;
    for (size_t n = 2; n <= 4; ++n) {
      const int b = EscapeByte(in, i + 3 * (n - 1));
      if (b < 0) break;
      bytes.push_back(b);
      if (OneUtf8Character(bytes)) taken = n;
    }
    if (taken == 0) {
      out.append(in, i, 3);
      i += 2;
      continue;
    }
    for (size_t k = 0; k < taken; ++k) out.push_back(static_cast<char>(bytes[k]));
    i += 3 * taken - 1;
  }
  return out;
}

std::string RandomText(std::mt19937* rng, size_t size, const char* alphabet) {
  const std::string a = alphabet;
  std::string s(size, ' ');
  for (char& c : s) c = a[(*rng)() % a.size()];
  return s;
}

// The split of the header, one byte at a time: "row name_begin name_end
// value_begin value_end" per parameter.
std::string ReferenceSplit(const std::string& s, uint32_t row, uint32_t q,
                           uint32_t qe) {
  std::string out;
  for (uint32_t field = q; field <= qe;) {
    uint32_t amp = field;
    while (amp < qe && s[amp] != '&') ++amp;
    if (amp > field) {
      uint32_t eq = field;
      while (eq < amp && s[eq] != '=') ++eq;
      out += std::to_string(row) + " " + std::to_string(field) + " " +
             std::to_string(eq) + " " +
             std::to_string(eq < amp ? eq + 1 : amp) + " " +
             std::to_string(amp) + "\n";
    }
    field = amp + 1;
  }
  return out;
}

// Queries of every length to 300 at every offset in a 64-byte block, the
// last ending at the readable limit (its final block goes through the
// zeroed copy), with '&' and '=' in the bytes after each query.
TEST_P(AnalyticsTargetTest, SplitQueriesMatchesTheByteLoop) {
  std::mt19937 rng(7);
  for (uint32_t size = 0; size <= 300; ++size) {
    const uint32_t lead = static_cast<uint32_t>(rng() % 64);
    const std::string s = RandomText(&rng, lead + 2 * size + 1, "a&=b%&=");
    const std::vector<uint32_t> row = {3, 9};
    const std::vector<uint32_t> begin = {lead, lead + size + 1};
    const std::vector<uint32_t> end = {lead + size, lead + 2 * size + 1};
    std::string expected;
    for (size_t k = 0; k < 2; ++k)
      expected += ReferenceSplit(s, row[k], begin[k], end[k]);
    const size_t room = size + 2;
    std::vector<uint32_t> r(room), nb(room), ne(room), vb(room), ve(room);
    const size_t found = kernels::SplitQueries(
        reinterpret_cast<const uint8_t*>(s.data()), s.size(), row.data(),
        begin.data(), end.data(), 2, r.data(), nb.data(), ne.data(),
        vb.data(), ve.data());
    std::string got;
    for (size_t k = 0; k < found; ++k)
      got += std::to_string(r[k]) + " " + std::to_string(nb[k]) + " " +
             std::to_string(ne[k]) + " " + std::to_string(vb[k]) + " " +
             std::to_string(ve[k]) + "\n";
    ASSERT_EQ(got, expected) << "'" << s << "'";
  }
}

TEST_P(AnalyticsTargetTest, RowsWithFlagFindsEveryRow) {
  std::mt19937 rng(5);
  for (size_t count = 0; count <= 300; count += 7) {
    std::vector<uint16_t> flags(count);
    for (auto& f : flags) f = static_cast<uint16_t>(rng() & 0x3f);
    std::vector<uint32_t> rows(count + 1, 0), expected;
    for (size_t i = 0; i < count; ++i)
      if (flags[i] & flags::kHasQuery) expected.push_back(static_cast<uint32_t>(i));
    const size_t found = kernels::RowsWithFlag(flags.data(), count,
                                               flags::kHasQuery, rows.data());
    rows.resize(found);
    ASSERT_EQ(rows, expected) << count;
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
        for (DecodedBytes bytes : {DecodedBytes::kUtf8, DecodedBytes::kRaw}) {
          out.assign(size, '\0');
          const size_t n = Decode(s, how, out.data(), bytes);
          ASSERT_EQ(std::string(out.data(), n),
                    ReferenceDecode(s, how == Decoding::kForm,
                                    bytes == DecodedBytes::kUtf8))
              << "'" << s << "'";
        }
      }
    }
  }
}

// Escapes of UTF-8 characters of every length, of bytes that begin or end
// none (a lone lead, a stray continuation, overlong forms, surrogates, past
// U+10FFFF, F5 to FF), "%00", cut at every place: the decoded text is
// valid UTF-8 with no NUL, and the reference's.
TEST_P(AnalyticsTargetTest, DecodeKeepsEscapesOfNoUtf8CharacterAsWritten) {
  static const char* const kTokens[] = {
      "%C3%A9", "%e2%82%ac", "%F0%9F%98%80", "%F4%8F%BF%BF", "%E9", "%C3",
      "%A9", "%C0%AF", "%E0%80%AF", "%ED%A0%80", "%F4%90%80%80", "%F5%80",
      "%FF", "%00", "%41", "a", "+", "%", "%4", "\xc3\xa9"};
  std::mt19937 rng(17);
  std::vector<char> out;
  for (int round = 0; round < 3000; ++round) {
    std::string s;
    for (size_t t = rng() % 12; t > 0; --t) s += kTokens[rng() % 20];
    s = s.substr(0, s.size() - std::min<size_t>(s.size(), rng() % 3));
    for (DecodedBytes bytes : {DecodedBytes::kUtf8, DecodedBytes::kRaw}) {
      out.assign(s.size(), '\0');
      const std::string got(out.data(),
                            Decode(s, Decoding::kForm, out.data(), bytes));
      ASSERT_EQ(got, ReferenceDecode(s, true, bytes == DecodedBytes::kUtf8))
          << "'" << s << "'";
      ASSERT_EQ(got.find('\0'), std::string::npos) << s;
    }
  }
  // Case by case.
  const auto utf8 = [&](const std::string& s) {
    out.assign(s.size(), '\0');
    return std::string(out.data(), Decode(s, Decoding::kPercent, out.data()));
  };
  EXPECT_EQ(utf8("caf%C3%A9"), "caf\xc3\xa9");
  EXPECT_EQ(utf8("caf%E9"), "caf%E9");
  EXPECT_EQ(utf8("%E9%C3%A9"), "%E9\xc3\xa9");
  EXPECT_EQ(utf8("%C3%A9%A9"), "\xc3\xa9%A9");
  EXPECT_EQ(utf8("a%00b"), "a%00b");
  EXPECT_EQ(utf8("%ED%A0%80"), "%ED%A0%80");  // a surrogate
  EXPECT_EQ(utf8("%C0%AF"), "%C0%AF");        // overlong '/'
  out.assign(6, '\0');
  EXPECT_EQ(std::string(out.data(), Decode("%E9%00", Decoding::kPercent,
                                           out.data(), DecodedBytes::kRaw)),
            "\xe9%00");
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

// Many short spans of a long buffer, so that most are one vector load and
// store past their end (into the next span's output), and the last spans
// end at the buffer's end.
TEST_P(AnalyticsTargetTest, DecodeSpansOfEveryLength) {
  std::mt19937 rng(13);
  for (const char* alphabet : {"abcdefgh", "ab%2B+x", "%4g1F+x"}) {
    const std::string data = RandomText(&rng, 3000, alphabet);
    std::vector<uint32_t> begin, end;
    for (uint32_t b = 0; b < data.size();) {
      const uint32_t size = std::min<uint32_t>(
          static_cast<uint32_t>(rng() % 90), static_cast<uint32_t>(data.size()) - b);
      begin.push_back(b);
      end.push_back(b + size);
      b += size + static_cast<uint32_t>(rng() % 3);
    }
    for (Decoding how : {Decoding::kPercent, Decoding::kForm}) {
      std::vector<char> out;
      std::vector<uint32_t> offsets;
      DecodeSpans(data.data(), begin.data(), end.data(), begin.size(), how,
                  &out, &offsets);
      ASSERT_EQ(out.size(), offsets.back());
      for (size_t k = 0; k < begin.size(); ++k) {
        ASSERT_EQ(
            std::string(out.data() + offsets[k], out.data() + offsets[k + 1]),
            ReferenceDecode(data.substr(begin[k], end[k] - begin[k]),
                            how == Decoding::kForm))
            << alphabet << " span " << k;
      }
    }
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

// Queries longer than a window (QueryParamWindows::kWindowParams fields),
// which are cut between windows after a '&': a field of 20,000 bytes, runs
// of empty fields, a window's worth of one-byte fields, and short rows
// between them. The windows give the scalar split, none over its bound.
TEST_P(AnalyticsTargetTest, LongQueriesAreSplitAcrossWindowsExactly) {
  constexpr size_t kWindow = QueryParamWindows::kWindowParams;
  std::mt19937 rng(5);
  std::string text;
  for (int row = 0; row < 40; ++row) {
    text += "http://h/p?";
    switch (row % 5) {
      case 0:
        for (size_t k = 0; k < 3 * kWindow + row; ++k) text += "x&";
        break;
      case 1:
        text += "a=" + std::string(20000 + row, 'v') + "&b&" +
                std::string(2 * kWindow + 1, '&') + "c=1";
        break;
      case 2:
        for (size_t t = 0; t < 30000; ++t) text += "ab=&"[rng() % 4];
        break;
      case 3:
        text += "q=" + std::string(2 * kWindow - 3, 'z');  // one field only
        break;
      default:
        // Short rows, and rows whose query has no field at all.
        text += row % 10 == 4 ? "s=1&t=2" : row % 20 == 9 ? "" : "&&&";
    }
    if (row % 3 == 0) text += "#f&g=1";
    text += '\n';
  }
  size_t params = 0;
  ASSERT_TRUE(SameParams(text, &params));
  OwnedBatch batch;
  ASSERT_TRUE(BatchFromLines(text, &batch));
  ComponentSpans spans;
  Scan(batch.view(), &spans);
  QueryParams oracle, window, all;
  ExtractQueryParamsScalar(batch.view().data, spans, &oracle);
  QueryParamWindows windows(batch.view().data, spans);
  size_t count = 0;
  while (windows.Next(&window)) {
    ASSERT_LE(window.size(), kWindow);
    ASSERT_GT(window.size(), 0u);
    ++count;
    all.row.insert(all.row.end(), window.row.begin(), window.row.end());
    all.name_end.insert(all.name_end.end(), window.name_end.begin(),
                        window.name_end.end());
    all.value_begin.insert(all.value_begin.end(), window.value_begin.begin(),
                           window.value_begin.end());
  }
  EXPECT_GT(count, 40u);
  EXPECT_EQ(all.row, oracle.row);
  EXPECT_EQ(all.name_end, oracle.name_end);
  EXPECT_EQ(all.value_begin, oracle.value_begin);
  // Queries over `longest_query` bytes give nothing: only the short rows.
  QueryParamWindows short_only(batch.view().data, spans, 100);
  size_t short_params = 0;
  while (short_only.Next(&window)) {
    for (uint32_t r : window.row) ASSERT_EQ(r % 5, 4u);
    short_params += window.size();
  }
  EXPECT_EQ(short_params, 4u * 2);
}

}  // namespace
}  // namespace uriscan
