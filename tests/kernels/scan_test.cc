// SPDX-License-Identifier: MIT
// The SIMD scanner on every Highway target, forced one at a time, compared
// column by column with the scalar oracle (ScanScalar). Inputs live in
// exact-size heap buffers so AddressSanitizer catches any over-read.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"
#include "kernels/kernels.h"
#include "src/char_class.h"
#include "tests/support/corpus.h"
#include "uriscan/uriscan.h"

namespace uriscan {
namespace {

// Rows appended back to back, as a batch will hold them.
struct Rows {
  std::string data;
  std::vector<uint32_t> offsets{0};
  void Add(std::string_view row) {
    data.append(row);
    offsets.push_back(static_cast<uint32_t>(data.size()));
  }
};

// A batch whose bytes sit in a heap block of exactly their size.
class ExactBatch {
 public:
  explicit ExactBatch(const Rows& rows)
      : bytes_(new char[rows.data.size()]), offsets_(rows.offsets) {
    if (!rows.data.empty())
      std::memcpy(bytes_.get(), rows.data.data(), rows.data.size());
  }
  Batch view() const {
    return Batch{bytes_.get(), offsets_.data(), offsets_.size() - 1};
  }

 private:
  std::unique_ptr<char[]> bytes_;
  std::vector<uint32_t> offsets_;
};

// Every column of Scan() against ScanScalar(); the first difference fails.
::testing::AssertionResult SameAsOracle(const Batch& batch) {
  ComponentSpans fast, oracle;
  Scan(batch, &fast);
  ScanScalar(batch, &oracle);
  if (fast.size() != oracle.size())
    return ::testing::AssertionFailure() << "row count differs";
  struct Col {
    const char* name;
    const std::vector<uint32_t>* a;
    const std::vector<uint32_t>* b;
  };
  const Col cols[] = {
#define URISCAN_COL(name) {#name, &fast.name, &oracle.name},
      URISCAN_SPAN_BOUNDARIES(URISCAN_COL)
#undef URISCAN_COL
      {"error_offset", &fast.error_offset, &oracle.error_offset}};
  for (size_t i = 0; i < fast.size(); ++i) {
    std::string diff;
    for (const Col& c : cols)
      if ((*c.a)[i] != (*c.b)[i])
        diff += std::string(" ") + c.name + " " + std::to_string((*c.a)[i]) +
                " vs " + std::to_string((*c.b)[i]);
    if (fast.flags[i] != oracle.flags[i])
      diff += " flags " + std::to_string(fast.flags[i]) + " vs " +
              std::to_string(oracle.flags[i]);
    if (fast.error_kind[i] != oracle.error_kind[i])
      diff += " error_kind " + std::to_string(fast.error_kind[i]) + " vs " +
              std::to_string(oracle.error_kind[i]);
    if (!fast.Validate(i)) diff += " Validate() fails";
    if (!diff.empty()) {
      return ::testing::AssertionFailure()
             << "row " << i << " '" << std::string(batch.Get(i)) << "' on "
             << DispatchedTargetName() << ":" << diff;
    }
  }
  return ::testing::AssertionSuccess();
}

const char* const kSamples[] = {
    "https://user:pw@www.Example.com:8080/a/./b/../c%7E/d.html?x=1&y=%41#frag",
    "http://192.168.0.1/index.php?q=a/b?c",
    "file:///usr/share/doc/../lib/x.txt",
    "mailto:John.Doe@example.com",
    "//cdn.example.org/x.js?v=3",
    "../up/./here;p=1?q#f",
    "urn:isbn:0451450523",
    "http://[2001:db8::7]:80/c=GB?objectClass?one",
};

class ScanTargetTest : public hwy::TestWithParamTarget {
 protected:
  void SetUp() override {
    hwy::TestWithParamTarget::SetUp();
    // The kernels really run on the requested target, not a fallback.
    ASSERT_STREQ(DispatchedTargetName(), hwy::TargetName(GetParam()));
  }
};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(ScanTargetTest);

// Lengths 0..300 and around 512 (the widest window), every fifth length
// between, starting at every offset 0..63 of a 64-byte block: a filler row
// before each one puts its start on the residue wanted.
TEST_P(ScanTargetTest, LengthsAndStartOffsets) {
  for (const char* sample : kSamples) {
    std::string text = sample;
    while (text.size() < 600) text += "/seg%20ment";
    for (size_t len = 0; len <= 600; len += len < 300 || (len >= 500 && len < 530) ? 1 : 5) {
      Rows rows;
      std::vector<bool> hit(64, false);
      for (size_t off = 0; off < 64; ++off) {
        rows.Add(std::string((off + 64 - rows.data.size() % 64) % 64, 'a'));
        hit[rows.data.size() % 64] = true;
        rows.Add(text.substr(0, len));
      }
      ASSERT_EQ(std::count(hit.begin(), hit.end(), true), 64);
      ASSERT_TRUE(SameAsOracle(ExactBatch(rows).view())) << "len " << len;
    }
  }
}

// Row i of `lines` (a ScanLines() result over `text`) equals row i of the
// oracle over BatchFromLines(text): the same bytes, boundaries relative to
// the row's start, flags and error.
::testing::AssertionResult LinesSameAsOracle(std::string_view text) {
  Scanner scanner;
  ComponentSpans lines, oracle;
  if (!scanner.ScanLines(text, &lines))
    return ::testing::AssertionFailure() << "ScanLines refused the text";
  OwnedBatch batch;
  if (!BatchFromLines(text, &batch))
    return ::testing::AssertionFailure() << "BatchFromLines refused the text";
  ScanScalar(batch.view(), &oracle);
  if (lines.size() != oracle.size()) {
    return ::testing::AssertionFailure()
           << lines.size() << " rows vs " << oracle.size();
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    const UriReference got = lines.Row(i, text.data());
    const UriReference want = oracle.Row(i, batch.data.data());
    std::string diff;
    if (got.text() != want.text()) diff += " text";
#define URISCAN_COMPARE(name) \
    if (got.boundaries().name != want.boundaries().name) diff += " " #name;
    URISCAN_INNER_BOUNDARIES(URISCAN_COMPARE)
#undef URISCAN_COMPARE
    if (got.flags() != want.flags()) diff += " flags";
    if (got.error().kind != want.error().kind) diff += " error_kind";
    if (got.error().offset != want.error().offset) diff += " error_offset";
    if (!lines.Validate(i)) diff += " Validate() fails";
    if (!diff.empty()) {
      return ::testing::AssertionFailure()
             << "line " << i << " '" << std::string(want.text()) << "' on "
             << DispatchedTargetName() << ":" << diff;
    }
  }
  return ::testing::AssertionSuccess();
}

// In-place line scans of texts cut from the corpora and the samples, with
// "\r\n", a lone "\r", empty lines, lines longer than a stage-1 window,
// with and without a last "\n", in buffers of exactly their size.
TEST_P(ScanTargetTest, ScanLinesEqualsTheOracleOverBatchFromLines) {
  std::mt19937 rng(3986);
  std::vector<std::string> pool(std::begin(kSamples), std::end(kSamples));
  for (const auto& corpus : test_corpus::LoadCorpora()) {
    OwnedBatch lines;
    ASSERT_TRUE(BatchFromLines(corpus.bytes, &lines));
    for (size_t i = 0; i < lines.size() && i < 3000; ++i)
      pool.emplace_back(lines.view().Get(i));
  }
  pool.push_back(std::string(kernels::kWindowBytes + 100, 'a'));
  pool.push_back("http://h/" + std::string(3 * kernels::kWindowBytes, 'p'));
  pool.push_back("");
#if URISCAN_SANITIZED || URISCAN_EMULATED
  constexpr int kRounds = 8;  // the one-lane SCALAR target is slow there
#else
  constexpr int kRounds = 40;
#endif
  for (int round = 0; round < kRounds; ++round) {
    std::string text;
    const size_t count = rng() % 2000;
    for (size_t k = 0; k < count; ++k) {
      text += pool[rng() % pool.size()];
      const unsigned end = rng() % 16;
      text += end == 0 ? "\r\n" : end == 1 ? "\r" : "\n";
    }
    if (round % 2 && !text.empty()) text.pop_back();  // no last "\n"
    std::unique_ptr<char[]> exact(new char[text.size() + 1]);
    std::memcpy(exact.get(), text.data(), text.size());
    ASSERT_TRUE(LinesSameAsOracle(std::string_view(exact.get(), text.size())))
        << "round " << round;
  }
  for (const char* text : {"", "\n", "\n\n", "\r", "\r\n", "a", "a\n", "a\r"}) {
    ASSERT_TRUE(LinesSameAsOracle(text)) << "'" << text << "'";
  }
}

// A text of more lines than the first guess of rows (the columns grow), and
// whole corpora, scanned in place.
TEST_P(ScanTargetTest, ScanLinesOfWholeCorporaAndShortLines) {
  ASSERT_TRUE(LinesSameAsOracle(std::string(100000, '\n')));
  std::string short_lines;
  for (int i = 0; i < 50000; ++i) short_lines += i % 3 ? "a\n" : "b:c\n";
  ASSERT_TRUE(LinesSameAsOracle(short_lines));
  for (const auto& corpus : test_corpus::LoadCorpora())
    ASSERT_TRUE(LinesSameAsOracle(corpus.bytes)) << corpus.name;
}

// Each delimiter, triplet, "://", bracket pair and bad byte at every
// position, so each straddles every 16/32/64-byte block boundary.
TEST_P(ScanTargetTest, PiecesAcrossBlockBoundaries) {
  const std::string pieces[] = {":", "/", "?", "#", "@", "[", "]", "%", "%4",
                                "%41", "%4g", "%zz", "://", "//", "[::1]",
                                "[v1.x]", ".", "..", "/./", "/../", " ", "\x7f",
                                "\x80", std::string(1, '\0'), "\r", "A", "+",
                                ":80", "@h:1", "1.2.3.4", "#x#"};
  const std::string bases[] = {
      "http://h" + std::string(200, 'p'),
      "s://" + std::string(100, 'u') + "@" + std::string(100, 'h'),
      std::string(220, 'x'),
      "http://a/" + std::string(100, 'b') + "?" + std::string(100, 'q'),
      "http://a/" + std::string(300, 'b') + "?" + std::string(200, 'q')};
  for (const std::string& base : bases) {
    Rows rows;
    for (const std::string& piece : pieces) {
      for (size_t at = 0; at <= base.size(); ++at) {
        rows.Add(base.substr(0, at) + piece + base.substr(at));
        rows.Add(base.substr(0, at) + piece);  // the piece at the end
      }
    }
    ASSERT_TRUE(SameAsOracle(ExactBatch(rows).view()));
  }
}

// Schemes and the bytes that share stage-1 classes (':' '/' '?' '#' '@'
// '%' '.', DIGIT, 'A'-'Z'), told apart by the other classes: every
// combination of these beginnings, separators and rests, at start offsets
// that the rows before them shift.
TEST_P(ScanTargetTest, SchemesAndTheBytesThatShareAClass) {
  const char* const begins[] = {"", "a", "A", "z9", "1", "1a", "+", "-", ".",
                                "a+", "a-b", "a.b", "Ab9+-.", "%41", "a%41",
                                "a@b", "a#", "a?"};
  const char* const separators[] = {":", "", "::", ":/", "/:"};
  const char* const rests[] = {
      "//h/p", "//u@h:8/p?q@x#f@g", "//H.Example.COM./a/./b/..",
      "p.q/..", "?a#b", "#@", "//%41b/", "//1.2.3.4:0/", "//h:8a/",
      "//u:p@@h/", "//h:%38/", "//h/A.B/.?.#.", "//h#a#b", "//@/1", ".",
      "..", "@", "%2e%2E/", "//[::1]:9/"};
  Rows rows;
  for (const char* begin : begins) {
    for (const char* separator : separators) {
      for (const char* rest : rests)
        rows.Add(std::string(begin) + separator + rest);
    }
  }
  ASSERT_TRUE(SameAsOracle(ExactBatch(rows).view()));
}

// A byte allowed nowhere, at every position of rows that break other rules
// before or after it (scheme, '@', port, '#', '%', brackets), at lengths
// around the 64-, 128-, 256- and 512-byte windows: the error is the leftmost
// fault, whichever settles it.
TEST_P(ScanTargetTest, BytesAllowedNowhereAndOtherFaults) {
  const char* const faulty[] = {
      "http://h/p?q#f",  "1a://h/p",        "a+b://h/",  "://h/",
      "http://u@v@h/p",  "http://h:8a/p",   "http://h:8:9/", "http://h/p#a#b",
      "http://h/%4",     "http://h/%zz/p",  "http://[::1]/p", "http://h/[x]",
      "x/y:z",           "http://u:p@h:80/a/./b?c#d",       "%41%42"};
  const char kAllowedNowhere[] = {' ', '"', '\x7f', '\x80', '\t', '{'};
  Rows rows;
  for (const char* f : faulty) {
    for (size_t len : {std::strlen(f), size_t{63}, size_t{64}, size_t{65},
                       size_t{127}, size_t{129}, size_t{256}, size_t{257},
                       size_t{511}}) {
      std::string row = f;
      // Lengthen in the last component (so that a '#' or a port stays
      // where it is) with bytes every component allows.
      while (row.size() < len) row += "a";
      for (size_t pos = 0; pos <= row.size(); ++pos) {
        for (char c : kAllowedNowhere) {
          std::string r = row;
          r.insert(pos, 1, c);
          rows.Add(r);
        }
      }
    }
  }
  ASSERT_TRUE(SameAsOracle(ExactBatch(rows).view()));
}

// The kernels settle such rows themselves: the scalar parser gets none of
// them (kNeedsScalar), while a fault before the byte still goes to it.
TEST_P(ScanTargetTest, KernelsSettleBytesAllowedNowhere) {
  Rows rows;
  const std::string pad(70, 'p');
  const char* const settled[] = {"http://a b/", "\x80http://h/", "a\"b",
                                 "http://h/p?q#f g", "http://u@h:80/x y"};
  const char* const left[] = {"1a://h/ ", "http://h:8a/ ", "http://[::1]/ ",
                              "http://h/%4 ", "http://u@v@h/ "};
  for (const char* r : settled) {
    rows.Add(r);
    rows.Add(std::string("http://h/") + pad + r);  // a 128-byte window
  }
  for (const char* r : left) rows.Add(r);
  const ExactBatch batch(rows);
  const Batch view = batch.view();
  ComponentSpans spans;
  spans.Resize(view.count);
  std::vector<uint64_t> masks(kernels::kScratchMaskWords);
  std::vector<uint32_t> entries(5 * kernels::kScratchRowEntries);
  const size_t n = kernels::kScratchRowEntries;
  const kernels::ScanScratch scratch{masks.data(),         entries.data(),
                                     entries.data() + n,   entries.data() + 2 * n,
                                     entries.data() + 3 * n, entries.data() + 4 * n};
  kernels::SpanColumns cols;
#define URISCAN_POINTER(name) cols.name = spans.name.data();
  URISCAN_SPAN_BOUNDARIES(URISCAN_POINTER)
#undef URISCAN_POINTER
  cols.flags = spans.flags.data();
  cols.error_kind = spans.error_kind.data();
  cols.error_offset = spans.error_offset.data();
  kernels::ScanBatch(reinterpret_cast<const uint8_t*>(view.data), view.offsets,
                     view.count, scratch, cols);
  const size_t n_settled = 2 * (sizeof(settled) / sizeof(settled[0]));
  for (size_t i = 0; i < view.count; ++i) {
    const ScanError want = ParseUriReference(view.Get(i)).error();
    if (i < n_settled) {
      EXPECT_EQ(spans.error_kind[i], static_cast<uint8_t>(want.kind)) << view.Get(i);
      EXPECT_EQ(spans.error_offset[i], want.offset) << view.Get(i);
    } else {
      EXPECT_EQ(spans.error_kind[i], kernels::kNeedsScalar) << view.Get(i);
    }
  }
}

// Every single-byte replacement, by the bytes that matter to the grammar,
// of the first 400 URIs of each corpus (a few thousand URIs in all). The
// sanitizer build, where the one-lane SCALAR target runs about 20x slower,
// takes the first 60: the normal build runs them all on every target.
#if URISCAN_SANITIZED || URISCAN_EMULATED
constexpr size_t kMutatedPerCorpus = 60;
#else
constexpr size_t kMutatedPerCorpus = 400;
#endif
TEST_P(ScanTargetTest, SingleByteMutationsOfCorpora) {
  static const char kBytes[] = ":/?#[]@%.A09+ \"{\x7f\x80";
  size_t uris = 0;
  for (const auto& corpus : test_corpus::LoadCorpora()) {
    OwnedBatch lines;
    ASSERT_TRUE(BatchFromLines(corpus.bytes, &lines));
    Rows rows;
    for (size_t i = 0; i < lines.size() && i < kMutatedPerCorpus; ++i, ++uris) {
      std::string s(lines.view().Get(i));
      for (size_t pos = 0; pos < s.size(); ++pos) {
        const char keep = s[pos];
        for (const char* c = kBytes; c < kBytes + sizeof(kBytes) - 1; ++c) {
          s[pos] = *c;
          rows.Add(s);
        }
        s[pos] = keep;
      }
    }
    ASSERT_TRUE(SameAsOracle(ExactBatch(rows).view())) << corpus.name;
  }
  EXPECT_GT(uris, kMutatedPerCorpus * 5);
}

TEST_P(ScanTargetTest, WholeCorpora) {
  for (const auto& corpus : test_corpus::LoadCorpora()) {
    OwnedBatch lines;
    ASSERT_TRUE(BatchFromLines(corpus.bytes, &lines));
    Rows rows;
    for (size_t i = 0; i < lines.size(); ++i) rows.Add(lines.view().Get(i));
    ASSERT_TRUE(SameAsOracle(ExactBatch(rows).view())) << corpus.name;
  }
}

TEST_P(ScanTargetTest, RandomBytesFromTheUriAlphabet) {
  static const char kAlphabet[] = "htp:/?#@[]%.1234abcdefABCDEF:v-+_~!$&'=,; ";
  std::mt19937_64 rng(3986);
  Rows rows;
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    const size_t len = rng() % 140;
    for (size_t k = 0; k < len; ++k)
      s.push_back(kAlphabet[rng() % (sizeof(kAlphabet) - 1)]);
    if (rng() % 3 == 0) s = "http://" + s;
    rows.Add(s);
  }
  ASSERT_TRUE(SameAsOracle(ExactBatch(rows).view())) << "seed 3986";
}

// The classes by their RFC definitions, for byte i of p[0, len).
bool InClass(int k, const uint8_t* p, size_t len, size_t i) {
  const unsigned char c = p[i];
  const bool allowed = chars::Is(c, chars::kAllowed);
  auto hex = [&](size_t at) { return at < len && std::isxdigit(p[at]) != 0; };
  const bool alpha = std::isalpha(c) != 0 && c < 0x80;
  switch (k) {
    case kernels::kStop:
      return !allowed || c == '[' || c == ']' ||
             (c == '%' && !(hex(i + 1) && hex(i + 2)));
    case kernels::kColonSlash: return c == ':' || c == '/';
    case kernels::kQuestionHashAt: return c == '?' || c == '#' || c == '@';
    case kernels::kDigitPercentColonHash:
      return (c >= '0' && c <= '9') || c == '%' || c == ':' || c == '#';
    case kernels::kUpperDotAt:
      return (c >= 'A' && c <= 'Z') || c == '.' || c == '@';
    case kernels::kNotAlnum: return !(alpha || (c >= '0' && c <= '9'));
    case kernels::kNewline: return c == '\n';
  }
  return false;
}

// All 256 byte values, each at every position of a block, in buffers of
// lengths around the block and window sizes: the kernel's counts equal the
// definitions'. Each byte is followed by hex and non-hex letters in turn,
// so a '%' is seen both with and without its two HEXDIG.
TEST_P(ScanTargetTest, ClassifyMatchesTheClassDefinitions) {
  for (int byte = 0; byte < 256; ++byte) {
    for (size_t len : {size_t{1}, size_t{63}, size_t{64}, size_t{65},
                       size_t{200}, kernels::kWindowBytes + 70}) {
      std::unique_ptr<uint8_t[]> exact(new uint8_t[len]);  // exact size
      for (size_t k = 0; k < len; ++k)
        exact[k] = static_cast<uint8_t>(k % 3 == 0 ? byte : 'a' + k % 7);
      uint64_t counts[kernels::kNumClasses] = {0};
      kernels::CountClasses(exact.get(), len, counts);
      for (int k = 0; k < kernels::kNumClasses; ++k) {
        uint64_t want = 0;
        for (size_t i = 0; i < len; ++i) want += InClass(k, exact.get(), len, i);
        ASSERT_EQ(counts[k], want) << "class " << k << " byte " << byte
                                   << " len " << len;
      }
    }
  }
}

// Every mask bit of Classify() against the definitions, for random bytes
// (often '%' and HEXDIG, so the '%' rule crosses block and 512-byte group
// boundaries) in buffers of lengths around the block, group and window
// sizes; the blocks past the data are zero. Classify keeps the masks of its
// last window, and writes no kNewline.
TEST_P(ScanTargetTest, ClassifyMasksMatchTheDefinitionsBitByBit) {
  std::mt19937 rng(3986);
  const char kBiased[] = "%%%%aF09:/?#@.[]-+Zz\n ";
  const size_t w = kernels::kWindowBytes;
  std::vector<uint64_t> masks(kernels::kScratchMaskWords);
  for (size_t len : {size_t{1}, size_t{2}, size_t{63}, size_t{64}, size_t{65},
                     size_t{447}, size_t{448}, size_t{510}, size_t{511},
                     size_t{512}, size_t{513}, size_t{575}, size_t{576},
                     size_t{1000}, size_t{1024}, size_t{4133}, w - 513,
                     w - 512, w - 1, w, w + 1, w + 511, 2 * w + 70}) {
    for (int round = 0; round < 4; ++round) {
      std::unique_ptr<uint8_t[]> exact(new uint8_t[len]);  // exact size
      for (size_t k = 0; k < len; ++k) {
        exact[k] = static_cast<uint8_t>(
            rng() % 3 ? kBiased[rng() % (sizeof(kBiased) - 1)] : rng() % 256);
      }
      std::fill(masks.begin(), masks.end(), ~uint64_t{0});
      kernels::Classify(exact.get(), len, masks.data());
      const size_t last = (len - 1) / w * w;  // the last window's start
      const size_t n = len - last;
      const size_t blocks = (n + 63) / 64 + kernels::kPadBlocks;
      for (int k = 0; k < kernels::kNewline; ++k) {
        for (size_t i = 0; i < blocks * 64; ++i) {
          const bool bit =
              (masks[k * kernels::kMaskStride + i / 64] >> (i % 64)) & 1;
          const bool want = i < n && InClass(k, exact.get() + last, n, i);
          ASSERT_EQ(bit, want) << "class " << k << " len " << len << " byte "
                               << i << " of the last window";
        }
      }
    }
  }
}

// A lone '%' at a block's end, its two HEXDIG candidates in the next block,
// which holds no '%' of its own (stage 1 looks HEXDIG up only for blocks
// next to a '%'), or past the end of the bytes.
TEST_P(ScanTargetTest, PercentAtABlockEndReadsTheNextBlock) {
  std::vector<uint64_t> masks(kernels::kScratchMaskWords);
  const char kAfter[] = "0aFgZ%";
  for (size_t len : {size_t{64}, size_t{65}, size_t{66}, size_t{200}}) {
    for (size_t at : {size_t{0}, size_t{61}, size_t{62}, size_t{63}}) {
      for (char c1 : std::string(kAfter)) {
        for (char c2 : std::string(kAfter)) {
          std::vector<uint8_t> bytes(len, 'b');
          bytes[at] = '%';
          if (at + 1 < len) bytes[at + 1] = static_cast<uint8_t>(c1);
          if (at + 2 < len) bytes[at + 2] = static_cast<uint8_t>(c2);
          kernels::Classify(bytes.data(), len, masks.data());
          for (int k = 0; k < kernels::kNewline; ++k) {
            for (size_t i = 0; i < len; ++i) {
              const bool bit =
                  (masks[k * kernels::kMaskStride + i / 64] >> (i % 64)) & 1;
              ASSERT_EQ(bit, InClass(k, bytes.data(), len, i))
                  << "class " << k << " len " << len << " '%' at " << at
                  << " then " << c1 << c2 << ", byte " << i;
            }
          }
        }
      }
    }
  }
}

// Every byte value at every position of buffers of lengths 0..200, with
// newlines scattered among them: one bit per "\n", none past the end.
TEST_P(ScanTargetTest, NewlineMasksMarkExactlyTheNewlines) {
  std::mt19937 rng(1630);
  for (size_t len = 0; len <= 200; ++len) {
    for (int round = 0; round < 8; ++round) {
      std::unique_ptr<uint8_t[]> exact(new uint8_t[len + 1]);  // +1: len 0
      for (size_t k = 0; k < len; ++k) {
        exact[k] = static_cast<uint8_t>(rng() % 4 == 0 ? '\n' : rng() % 256);
      }
      std::vector<uint64_t> words((len + 63) / 64 + 1, ~uint64_t{0});
      kernels::NewlineMasks(exact.get(), len, words.data());
      for (size_t i = 0; i < words.size() * 64; ++i) {
        const bool bit = (words[i / 64] >> (i % 64)) & 1;
        const bool want = i < len ? exact[i] == '\n'
                                  : i >= (len + 63) / 64 * 64;  // untouched
        ASSERT_EQ(bit, want) << "len " << len << " at " << i;
      }
    }
  }
}

// The lines of `in` as BatchFromLines splits them, by a byte loop.
std::vector<std::string> LinesByBytes(const std::string& in) {
  std::vector<std::string> want;
  std::string line;
  for (char c : in) {
    if (c != '\n') {
      line += c;
      continue;
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    want.push_back(line);
    line.clear();
  }
  if (!line.empty()) want.push_back(line);
  return want;
}

::testing::AssertionResult SplitsAsBytes(const std::string& in, OwnedBatch* b,
                                         const std::string& what) {
  const std::vector<std::string> want = LinesByBytes(in);
  if (!BatchFromLines(in, b))
    return ::testing::AssertionFailure() << what << ": refused";
  if (b->size() != want.size() || CountLines(in) != want.size()) {
    return ::testing::AssertionFailure()
           << what << ": " << b->size() << " lines, CountLines "
           << CountLines(in) << ", want " << want.size();
  }
  for (size_t i = 0; i < want.size(); ++i) {
    if (b->view().Get(i) != want[i])
      return ::testing::AssertionFailure() << what << ": line " << i << " differs";
  }
  if (b->data.size() != b->offsets.back())
    return ::testing::AssertionFailure() << what << ": bytes past the last line";
  return ::testing::AssertionSuccess();
}

// BatchFromLines (the line-splitting kernel) against a byte loop: inputs
// around its 64-byte blocks and 4 KiB pieces, sparse and dense in "\n" and
// "\r", long lines, one batch reused for all (so a shorter input follows a
// longer one).
TEST_P(ScanTargetTest, BatchFromLinesMatchesAByteLoop) {
  std::mt19937 rng(3986);
  OwnedBatch b;
  for (size_t size : {0, 1, 2, 63, 64, 65, 127, 128, 4095, 4096, 4097, 8191,
                      8192, 65537, 200000, 3}) {
    for (unsigned density : {2u, 8u, 64u, 5000u}) {
      std::string in(size, 'x');
      for (char& c : in) {
        const unsigned r = rng() % density;
        c = r == 0 ? '\n' : r == 1 ? '\r' : static_cast<char>('a' + rng() % 26);
      }
      ASSERT_TRUE(SplitsAsBytes(in, &b, "size " + std::to_string(size) +
                                            " density " + std::to_string(density)));
    }
  }
}

// "\r\n", a lone "\r" and "\n" at every position around a block and a
// piece boundary, and a "\r" that ends the input.
TEST_P(ScanTargetTest, BatchFromLinesSettlesCarriageReturnsAtBoundaries) {
  OwnedBatch b;
  for (size_t base : {size_t{0}, size_t{4096 - 64}, size_t{8192 - 64}}) {
    for (size_t at = base; at < base + 130; ++at) {
      for (const char* mark : {"\r\n", "\r", "\n", "\r\r\n", "\n\r"}) {
        std::string in(base + 200, 'u');
        in.replace(at, std::strlen(mark), mark);
        const std::string what = std::string("mark ") +
                                 (mark[0] == '\r' ? "CR" : "LF") + "... at " +
                                 std::to_string(at);
        ASSERT_TRUE(SplitsAsBytes(in, &b, what));
        ASSERT_TRUE(SplitsAsBytes(in.substr(0, at + std::strlen(mark)), &b,
                                  what + ", at the end"));
      }
    }
  }
  // Lines over many pieces, a "\r\n" at a piece's end and start.
  for (size_t len : {size_t{4095}, size_t{4096}, size_t{10000}, size_t{100000}}) {
    const std::string line(len, 'a');
    ASSERT_TRUE(SplitsAsBytes(line + "\r\n" + line + "\r\nb", &b,
                              "two lines of " + std::to_string(len)));
    ASSERT_TRUE(SplitsAsBytes(line + "\r", &b, "one line of " + std::to_string(len)));
  }
}

}  // namespace
}  // namespace uriscan
