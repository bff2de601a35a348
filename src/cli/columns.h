// SPDX-License-Identifier: MIT
// parse --format=tsv --columns=LIST: the components of each row and the
// derived columns (public suffix, SURT key, fingerprint; docs/cli.md).
#ifndef URISCAN_SRC_CLI_COLUMNS_H_
#define URISCAN_SRC_CLI_COLUMNS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "uriscan/fingerprint.h"
#include "uriscan/normalize.h"
#include "uriscan/spans.h"
#include "uriscan/uri.h"

struct psl_ctx_st;

namespace uriscan {
namespace cli {

enum class Column : uint8_t {
  kLine, kValid, kScheme, kUserinfo, kHost, kPort, kPath, kQuery, kFragment,
  kHostType, kError,
  kRegistrableDomain, kPublicSuffix, kSurt, kKey, kNormalized, kSurtCrawler,
};
// "line, valid, ..., normalized": every name, for messages.
std::string ColumnNames();
// A comma-separated list of names; false (with the first unknown name in
// *unknown) when one is not a column.
bool ParseColumns(std::string_view list, std::vector<Column>* out,
                  std::string* unknown);

// What each chunk computes once for all its rows before they are written.
struct DerivedRows {
  NormalizedBatch normalized;  // --profile: normalized
  NormalizedBatch crawler;     // surt_crawler
  std::vector<uint64_t> keys;  // key
};

// Writes rows of the chosen columns. One object serves every thread; each
// thread keeps its own DerivedRows.
class ColumnWriter {
 public:
  // `psl` is libpsl's list (not owned); the fingerprinter gives `key` and
  // its profile `normalized`.
  ColumnWriter(std::vector<Column> columns, const psl_ctx_st* psl,
               const Fingerprinter& fingerprinter, Profile profile,
               const NormalizeOptions& options);
  void AppendHeader(std::string* out) const;
  // The derived columns of every row of a scanned batch, at once.
  void Prepare(const Batch& rows, const ComponentSpans& spans,
               DerivedRows* derived) const;
  // Row i (its UriReference `uri`, input line `line`), with "\n".
  void AppendRow(size_t i, uint64_t line, const UriReference& uri,
                 const DerivedRows& derived, std::string* out) const;

 private:
  bool Wants(Column c) const;
  static void AppendSurt(const UriReference& uri, std::string* out);
  void AppendSurtCrawler(size_t i, const DerivedRows& derived,
                         std::string* out) const;
  void AppendSuffix(const UriReference& uri, bool registrable,
                    std::string* out) const;

  std::vector<Column> columns_;
  const psl_ctx_st* psl_;
  const Fingerprinter& fingerprinter_;
  Profile profile_;
  NormalizeOptions options_;
};

}  // namespace cli
}  // namespace uriscan

#endif  // URISCAN_SRC_CLI_COLUMNS_H_
