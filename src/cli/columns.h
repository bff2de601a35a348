// SPDX-License-Identifier: MIT
// parse --format=tsv --columns=LIST: the components of each row and the
// derived columns (public suffix, SURT key, fingerprint; docs/cli.md).
#ifndef URISCAN_SRC_CLI_COLUMNS_H_
#define URISCAN_SRC_CLI_COLUMNS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "uriscan/analytics.h"
#include "uriscan/fingerprint.h"
#include "uriscan/hosts.h"
#include "uriscan/normalize.h"
#include "uriscan/spans.h"
#include "uriscan/uri.h"
#include "src/cli/records.h"

namespace uriscan {
namespace cli {

enum class Column : uint8_t {
  kLine, kValid, kScheme, kUserinfo, kHost, kPort, kPath, kQuery, kFragment,
  kHostType, kError,
  kRegistrableDomain, kPublicSuffix, kSurt, kKey, kNormalized, kSurtCrawler,
  // Log analytics (docs/cli.md, "Log analytics").
  kRaw, kAt, kFile, kRepaired, kAuthority, kHostNowww, kSubdomain, kExtension,
  kPathDecoded, kQueryDecoded, kFragmentDecoded, kPathSegments, kParamNames,
  kParam, kParamRaw,  // "param:NAME", "param_raw:NAME"
};
// One column of a --columns list: param:NAME and param_raw:NAME carry NAME.
struct ColumnChoice {
  Column column;
  std::string name;
  bool operator==(Column c) const { return column == c; }
};
// "line, valid, ..., normalized": every name, for messages.
std::string ColumnNames();
// A comma-separated list of names; false (with the first unknown name in
// *unknown) when one is not a column.
bool ParseColumns(std::string_view list, std::vector<ColumnChoice>* out,
                  std::string* unknown);

// What each chunk computes once for all its rows before they are written.
// Queries longer than this are walked in place when their row is written
// (ForEachQueryField), not split into a chunk's parameter columns: a line of
// millions of parameters needs no column as long as it.
inline constexpr size_t kLongQuery = size_t{64} << 10;

struct DerivedRows {
  NormalizedBatch normalized;  // --profile: normalized
  NormalizedBatch crawler;     // surt_crawler
  std::vector<uint64_t> keys;  // key
  // param_names, param:NAME, param_raw:NAME: the chunk's parameters, row
  // i's being [param_start[i], param_start[i + 1]), names decoded.
  const char* data = nullptr;  // the bytes the parameters' offsets are in
  QueryParams params;
  std::vector<uint32_t> param_start;
  std::vector<char> names;
  std::vector<uint32_t> name_offsets;
};

// What a row is beside its reference: its number, file and original line.
struct RowContext {
  uint64_t line = 0;
  std::string_view file;
  std::string_view raw;  // the line as read (before --lenient repaired it)
  bool repaired = false;
  // Where the output may move between cells and in a long cell
  // (SpillOutput), or null.
  std::vector<std::string>* out_parts = nullptr;
};

// Writes rows of the chosen columns. One object serves every thread; each
// thread keeps its own DerivedRows.
class ColumnWriter {
 public:
  // `psl` is the Public Suffix List (not owned); the fingerprinter gives
  // `key` and its profile `normalized`.
  ColumnWriter(std::vector<ColumnChoice> columns, const PublicSuffixList* psl,
               const Fingerprinter& fingerprinter, Profile profile,
               const NormalizeOptions& options, DecodedBytes decode);
  void AppendHeader(std::string* out) const;
  // The derived columns of every row of a scanned batch, at once.
  void Prepare(const Batch& rows, const ComponentSpans& spans,
               DerivedRows* derived) const;
  // Row i (its UriReference `uri`), with "\n" unless `end_line` is false.
  void AppendRow(size_t i, const RowContext& row, const UriReference& uri,
                 const DerivedRows& derived, std::string* out,
                 bool end_line = true) const;
  // The same from the scan's columns (records.h), for a row that is not
  // over-long.
  void AppendRow(size_t i, const RowContext& row, const SpanRow& uri,
                 const DerivedRows& derived, std::string* out,
                 bool end_line = true) const;

 private:
  template <class Row>
  void AppendCells(size_t i, const RowContext& row, const Row& uri,
                   const DerivedRows& derived, std::string* out,
                   bool end_line) const;
  bool Wants(Column c) const;
  // The crawler's normal forms that surt_crawler reads: the normalized
  // column's when that is the crawler profile's (made once, not twice).
  const NormalizedBatch& CrawlerRows(const DerivedRows& derived) const {
    return profile_ == Profile::kCrawler && Wants(Column::kNormalized)
               ? derived.normalized
               : derived.crawler;
  }
  static void AppendSurt(std::string_view text, std::string* out);
  void AppendSurtCrawler(size_t i, const DerivedRows& derived,
                         std::string* out) const;
  // registrable_domain and public_suffix, subdomain: of a valid reference's
  // host, given when it is a reg-name.
  void AppendSuffix(std::optional<std::string_view> reg_name,
                    bool registrable, std::string* out) const;
  void AppendSubdomain(std::optional<std::string_view> reg_name,
                       std::string* out) const;
  // Row i's parameters from `derived`, or walked in its `query` when that
  // is longer than kLongQuery (then not in the columns).
  void AppendParam(size_t i, std::string_view query, const ColumnChoice& c,
                   const DerivedRows& derived, std::string* out) const;
  // (`out` moves onto `parts` as it grows, unless that is null.)
  void AppendParamNames(size_t i, std::string_view query,
                        const DerivedRows& derived, std::string* out,
                        std::vector<std::string>* parts) const;

  std::vector<ColumnChoice> columns_;
  const PublicSuffixList* psl_;
  const Fingerprinter& fingerprinter_;
  Profile profile_;
  NormalizeOptions options_;
  DecodedBytes decode_;  // --decode
};

// What a command that takes --columns owns for its ColumnWriter: the
// Public Suffix List and the fingerprinter of --profile.
class ColumnSetup {
 public:
  ColumnSetup();
  ~ColumnSetup();
  // Loads `psl_file` (libpsl's built-in list when empty) and makes the
  // writer; -1, or the exit status after a message.
  int Begin(const std::vector<ColumnChoice>& columns,
            const std::string& psl_file, Profile profile,
            const NormalizeOptions& options, DecodedBytes decode);
  const ColumnWriter* writer() const { return writer_.get(); }

 private:
  std::unique_ptr<PublicSuffixList> psl_;
  std::unique_ptr<Fingerprinter> fingerprinter_;
  std::unique_ptr<ColumnWriter> writer_;
};

}  // namespace cli
}  // namespace uriscan

#endif  // URISCAN_SRC_CLI_COLUMNS_H_
