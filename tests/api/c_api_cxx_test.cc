// SPDX-License-Identifier: MIT
// The C API against the C++ one over the corpora: the same columns, keys
// and normal forms, row for row. (tests/c_api/c_api_test.c checks the C
// API from C itself.)
#include "uriscan/uriscan_c.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/corpus.h"
#include "uriscan/analytics.h"
#include "uriscan/fingerprint.h"
#include "uriscan/normalize.h"
#include "uriscan/spans.h"
#include "uriscan/version.h"

namespace uriscan {
namespace {

struct ScannerDeleter {
  void operator()(uriscan_scanner* s) const { uriscan_scanner_free(s); }
};
using ScannerPtr = std::unique_ptr<uriscan_scanner, ScannerDeleter>;

// Caller-owned columns for n rows, and the C struct that points at them.
struct Columns {
  explicit Columns(size_t n) : flags(n), error_kind(n) {
    for (auto& column : boundaries) column.assign(n, 0xDEADBEEF);
    size_t k = 0;
#define URISCAN_POINT(name) c.name = boundaries[k++].data();
    URISCAN_SPAN_BOUNDARIES(URISCAN_POINT)
#undef URISCAN_POINT
    error_offset.assign(n, 0xDEADBEEF);
    c.flags = flags.data();
    c.error_kind = error_kind.data();
    c.error_offset = error_offset.data();
  }
  std::vector<uint32_t> boundaries[12];
  std::vector<uint16_t> flags;
  std::vector<uint8_t> error_kind;
  std::vector<uint32_t> error_offset;
  uriscan_columns c{};
};

void ExpectSameColumns(const ComponentSpans& want, const Columns& got,
                       const std::string& name) {
  size_t k = 0;
#define URISCAN_COMPARE(col) \
  EXPECT_EQ(got.boundaries[k++], want.col) << name << " " #col;
  URISCAN_SPAN_BOUNDARIES(URISCAN_COMPARE)
#undef URISCAN_COMPARE
  EXPECT_EQ(got.flags, want.flags) << name;
  EXPECT_EQ(got.error_kind, want.error_kind) << name;
  EXPECT_EQ(got.error_offset, want.error_offset) << name;
}

TEST(CApiTest, ColumnsKeysAndNormalFormsMatchTheCxxApi) {
  ScannerPtr scanner(uriscan_scanner_new());
  ASSERT_NE(scanner, nullptr);
  const auto corpora = test_corpus::LoadCorpora();
  ASSERT_GE(corpora.size(), 2u);
  for (const auto& corpus : corpora) {
    const std::string& text = corpus.bytes;
    ComponentSpans want;
    Scanner cxx;
    ASSERT_TRUE(cxx.ScanLines(text, &want));
    const size_t n = want.size();
    ASSERT_EQ(uriscan_count_lines(text.data(), text.size()), n);

    // The lines form.
    Columns lines(n);
    size_t rows = 0;
    ASSERT_EQ(uriscan_scan_lines(scanner.get(), text.data(), text.size(),
                                 &lines.c, n, &rows),
              URISCAN_OK);
    ASSERT_EQ(rows, n);
    ExpectSameColumns(want, lines, corpus.name + " (lines)");

    // The (data, offsets) form, over the same rows.
    OwnedBatch batch;
    ASSERT_TRUE(BatchFromLines(text, &batch));
    ComponentSpans want_batch;
    cxx.Scan(batch.view(), &want_batch);
    Columns cols(n);
    ASSERT_EQ(uriscan_scan(scanner.get(), batch.data.data(),
                           batch.offsets.data(), n, &cols.c),
              URISCAN_OK);
    ExpectSameColumns(want_batch, cols, corpus.name + " (batch)");

    // Fingerprints: batch, lines and one at a time agree with Batch64.
    for (int p = 0; p < kProfileCount; ++p) {
      const Fingerprinter fp(static_cast<Profile>(p));
      std::vector<uint64_t> want_keys;
      fp.Batch64(batch.view(), want_batch, &want_keys);
      std::vector<uint64_t> keys(n, 7);
      ASSERT_EQ(uriscan_fingerprint_batch(
                    scanner.get(), static_cast<uriscan_profile>(p),
                    batch.data.data(), batch.offsets.data(), n, keys.data()),
                URISCAN_OK);
      EXPECT_EQ(keys, want_keys) << corpus.name;
      std::vector<uint64_t> line_keys(n, 7);
      ASSERT_EQ(uriscan_fingerprint_lines(
                    scanner.get(), static_cast<uriscan_profile>(p),
                    text.data(), text.size(), line_keys.data(), n, &rows),
                URISCAN_OK);
      EXPECT_EQ(line_keys, want_keys) << corpus.name;
      for (size_t i = 0; i < n && i < 2000; ++i) {
        const std::string_view uri = batch.view().Get(i);
        uint64_t key = 7;
        const uriscan_status st = uriscan_fingerprint64(
            static_cast<uriscan_profile>(p), uri.data(), uri.size(), &key);
        EXPECT_EQ(key, want_keys[i]) << uri;
        EXPECT_EQ(st, want_keys[i] ? URISCAN_OK : URISCAN_INVALID_URI) << uri;
      }
    }

    // Normal forms, with the size query first.
    for (size_t i = 0; i < n && i < 2000; ++i) {
      const std::string_view uri = batch.view().Get(i);
      const std::string want_normal = Normalize(uri, Profile::kScheme);
      size_t size = 99;
      uriscan_status st = uriscan_normalize(
          uri.data(), uri.size(), URISCAN_PROFILE_SCHEME, nullptr, 0, &size);
      if (want_batch.error_kind[i] != 0) {
        EXPECT_EQ(st, URISCAN_INVALID_URI) << uri;
        EXPECT_EQ(size, 0u);
        continue;
      }
      EXPECT_EQ(size, want_normal.size()) << uri;
      EXPECT_EQ(st, size == 0 ? URISCAN_OK : URISCAN_BUFFER_TOO_SMALL) << uri;
      std::string got(size, '\0');
      st = uriscan_normalize(uri.data(), uri.size(), URISCAN_PROFILE_SCHEME,
                             got.data(), got.size(), &size);
      EXPECT_EQ(st, URISCAN_OK) << uri;
      EXPECT_EQ(got, want_normal) << uri;
    }
  }
}

// uriscan_query_params(), uriscan_decode_spans() and uriscan_decode() give
// on every corpus what ExtractQueryParams(), DecodeSpans() and Decode() do.
TEST(CApiTest, ParamsAndDecodingMatchTheCxxApi) {
  ScannerPtr scanner(uriscan_scanner_new());
  ASSERT_NE(scanner, nullptr);
  size_t total = 0;
  for (const auto& corpus : test_corpus::LoadCorpora()) {
    OwnedBatch batch;
    ASSERT_TRUE(BatchFromLines(corpus.bytes, &batch));
    const size_t n = batch.offsets.size() - 1;
    ComponentSpans spans;
    Scan(batch.view(), &spans);
    QueryParams want;
    ExtractQueryParams(batch.view().data, spans, &want);
    total += want.size();

    size_t count = 99;
    uriscan_params none{};
    ASSERT_EQ(uriscan_query_params(scanner.get(), batch.data.data(),
                                   batch.offsets.data(), n, &none, 0, &count),
              want.size() == 0 ? URISCAN_OK : URISCAN_BUFFER_TOO_SMALL);
    ASSERT_EQ(count, want.size());
    std::vector<uint32_t> row(count), nb(count), ne(count), vb(count),
        ve(count);
    uriscan_params out{row.data(), nb.data(), ne.data(), vb.data(),
                       ve.data()};
    ASSERT_EQ(uriscan_query_params(scanner.get(), batch.data.data(),
                                   batch.offsets.data(), n, &out, count,
                                   &count),
              URISCAN_OK);
    EXPECT_EQ(row, want.row) << corpus.name;
    EXPECT_EQ(nb, want.name_begin) << corpus.name;
    EXPECT_EQ(ne, want.name_end) << corpus.name;
    EXPECT_EQ(vb, want.value_begin) << corpus.name;
    EXPECT_EQ(ve, want.value_end) << corpus.name;

    std::vector<char> want_text;
    std::vector<uint32_t> want_offsets;
    DecodeSpans(batch.view().data, vb.data(), ve.data(), count,
                Decoding::kForm, &want_text, &want_offsets);
    std::vector<char> text(batch.data.size() + 1);
    std::vector<uint32_t> offsets(count + 1);
    ASSERT_EQ(uriscan_decode_spans(batch.data.data(), vb.data(), ve.data(),
                                   count, URISCAN_DECODE_FORM, text.data(),
                                   text.size(), offsets.data()),
              URISCAN_OK);
    EXPECT_EQ(offsets, want_offsets) << corpus.name;
    EXPECT_EQ(std::string(text.data(), offsets[count]),
              std::string(want_text.data(), want_text.size()))
        << corpus.name;

    // Each row's path, percent-decoded one at a time.
    for (size_t i = 0; i < n && i < 2000; ++i) {
      if (spans.error_kind[i] != 0) continue;
      const std::string_view path(batch.view().data + spans.path_begin[i],
                                  spans.path_end[i] - spans.path_begin[i]);
      std::string want_path(path.size(), '\0');
      want_path.resize(Decode(path, Decoding::kPercent, want_path.data()));
      std::string got(path.size() + 1, '\0');
      size_t size = 0;
      ASSERT_EQ(uriscan_decode(path.data(), path.size(),
                               URISCAN_DECODE_PERCENT, got.data(), got.size(),
                               &size),
                URISCAN_OK);
      EXPECT_EQ(got.substr(0, size), want_path) << path;
    }
  }
  EXPECT_GT(total, 0u);
}

TEST(CApiTest, VersionMatchesTheHeaders) {
  EXPECT_STREQ(uriscan_version(), URISCAN_VERSION_STRING);
  EXPECT_STREQ(uriscan_target_name(), DispatchedTargetName());
  EXPECT_EQ(URISCAN_VERSION_NUMBER, URISCAN_VERSION_MAJOR * 10000 +
                                        URISCAN_VERSION_MINOR * 100 +
                                        URISCAN_VERSION_PATCH);
}

TEST(CApiTest, EveryNameMatchesTheCxxOne) {
  for (int k = 0; k < kErrorKindCount; ++k) {
    const auto kind = static_cast<uriscan_error_kind>(k);
    EXPECT_STREQ(uriscan_error_name(kind),
                 ErrorKindName(static_cast<ErrorKind>(k)));
    EXPECT_STREQ(uriscan_error_message(kind),
                 ErrorKindMessage(static_cast<ErrorKind>(k)));
  }
  EXPECT_EQ(uriscan_error_name(static_cast<uriscan_error_kind>(12)), nullptr);
  EXPECT_EQ(uriscan_error_name(URISCAN_ERROR_KIND_MAX_ENUM), nullptr);
  EXPECT_EQ(uriscan_status_name(URISCAN_STATUS_MAX_ENUM), nullptr);
  for (int p = 0; p < kProfileCount; ++p) {
    const char* name = uriscan_profile_name(static_cast<uriscan_profile>(p));
    EXPECT_STREQ(name, ProfileName(static_cast<Profile>(p)));
    uriscan_profile back = URISCAN_PROFILE_SYNTAX;
    ASSERT_EQ(uriscan_profile_from_name(name, std::strlen(name), &back),
              URISCAN_OK);
    EXPECT_EQ(back, p);
  }
  EXPECT_EQ(uriscan_profile_name(static_cast<uriscan_profile>(kProfileCount)),
            nullptr);
}

}  // namespace
}  // namespace uriscan
