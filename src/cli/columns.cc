// SPDX-License-Identifier: MIT
// ColumnWriter: chosen TSV columns, derived ones computed per batch.
#include "src/cli/columns.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include "src/cli/output.h"
#include "src/derive/host_type.h"
#include "src/derive/public_suffix.h"
#include "src/derive/surt.h"

namespace uriscan {
namespace cli {
namespace {

constexpr const char* kColumnNames[] = {
    "line", "valid", "scheme", "userinfo", "host", "port", "path", "query",
    "fragment", "host_type", "error", "registrable_domain", "public_suffix",
    "surt", "key", "normalized", "surt_crawler"};

void AppendOptional(const std::optional<std::string_view>& v,
                    std::string* out) {
  if (v) {
    out->append(*v);
  } else {
    out->append("\\N");
  }
}

}  // namespace

std::string ColumnNames() {
  std::string names;
  for (const char* n : kColumnNames) {
    if (!names.empty()) names += ", ";
    names += n;
  }
  return names;
}

bool ParseColumns(std::string_view list, std::vector<Column>* out,
                  std::string* unknown) {
  out->clear();
  while (true) {
    const size_t comma = std::min(list.find(','), list.size());
    const std::string_view name = list.substr(0, comma);
    const auto* it = std::find(std::begin(kColumnNames),
                               std::end(kColumnNames), name);
    if (it == std::end(kColumnNames)) {
      *unknown = std::string(name);
      return false;
    }
    out->push_back(static_cast<Column>(it - std::begin(kColumnNames)));
    if (comma == list.size()) return true;
    list.remove_prefix(comma + 1);
  }
}

ColumnWriter::ColumnWriter(std::vector<Column> columns, const psl_ctx_st* psl,
                           const Fingerprinter& fingerprinter, Profile profile,
                           const NormalizeOptions& options)
    : columns_(std::move(columns)),
      psl_(psl),
      fingerprinter_(fingerprinter),
      profile_(profile),
      options_(options) {}

bool ColumnWriter::Wants(Column c) const {
  return std::find(columns_.begin(), columns_.end(), c) != columns_.end();
}

void ColumnWriter::AppendHeader(std::string* out) const {
  for (size_t k = 0; k < columns_.size(); ++k) {
    if (k) out->push_back('\t');
    out->append(kColumnNames[static_cast<size_t>(columns_[k])]);
  }
  out->push_back('\n');
}

void ColumnWriter::Prepare(const Batch& rows, const ComponentSpans& spans,
                           DerivedRows* derived) const {
  if (Wants(Column::kNormalized))
    NormalizeBatch(rows, spans, profile_, &derived->normalized, options_);
  if (Wants(Column::kSurtCrawler))
    NormalizeBatch(rows, spans, Profile::kCrawler, &derived->crawler,
                   options_);
  if (Wants(Column::kKey)) fingerprinter_.Batch64(rows, spans, &derived->keys);
}

// The surt library's key of a valid row with a scheme ("\\N" otherwise,
// and where the library raises), '\\' written "\\\\" as TSV text wants.
void ColumnWriter::AppendSurt(const UriReference& uri, std::string* out) {
  thread_local std::string key;
  key.clear();
  if (!uri.scheme() || !derive::AppendIaSurt(uri.text(), &key)) {
    out->append("\\N");
    return;
  }
  for (char c : key) {
    if (c == '\\') out->push_back('\\');
    out->push_back(c);
  }
}

// The SURT shape (docs/cli.md) of the crawler normal form of row i:
// "com,example)/a?b=1" for "http://www.Example.com:80/a?b=1#f".
void ColumnWriter::AppendSurtCrawler(size_t i, const DerivedRows& derived,
                              std::string* out) const {
  const NormalizedBatch& nb = derived.crawler;
  const UriReference n = nb.spans().Row(i, nb.view().data);
  if (!n.valid() || !n.host()) {
    out->append("\\N");
    return;
  }
  std::string_view host = *n.host();
  if (n.host_kind() == HostKind::kRegName) {
    if (host.size() > 4 && host.compare(0, 4, "www.") == 0)
      host.remove_prefix(4);
    // Labels from the last to the first, joined by ','.
    size_t end = host.size();
    while (true) {
      const size_t dot = end == 0 ? std::string_view::npos
                                  : host.rfind('.', end - 1);
      const size_t begin = dot == std::string_view::npos ? 0 : dot + 1;
      out->append(host.substr(begin, end - begin));
      if (dot == std::string_view::npos) break;
      out->push_back(',');
      end = dot;
    }
  } else {
    out->append(host);  // an IP address as written
  }
  if (const auto port = n.port(); port && !port->empty()) {
    out->push_back(':');
    out->append(*port);
  }
  out->push_back(')');
  out->append(n.path());
  if (const auto query = n.query()) {
    out->push_back('?');
    out->append(*query);
  }
}

// registrable_domain or public_suffix of the lower-cased host (libpsl);
// \N without a host name, or for a host that is itself a public suffix.
void ColumnWriter::AppendSuffix(const UriReference& uri, bool registrable,
                                std::string* out) const {
  std::string_view part;
  if (derive::PublicSuffixPart(
          psl_, uri,
          registrable ? derive::SuffixPart::kRegistrableDomain
                      : derive::SuffixPart::kPublicSuffix,
          &part)) {
    out->append(part);
  } else {
    out->append("\\N");
  }
}

void ColumnWriter::AppendRow(size_t i, uint64_t line, const UriReference& uri,
                             const DerivedRows& derived,
                             std::string* out) const {
  const bool valid = uri.valid();
  for (size_t k = 0; k < columns_.size(); ++k) {
    if (k) out->push_back('\t');
    switch (columns_[k]) {
      case Column::kLine: {
        char digits[24];
        const auto r = std::to_chars(digits, digits + sizeof(digits), line);
        out->append(digits, r.ptr);
        break;
      }
      case Column::kValid: out->append(valid ? "true" : "false"); break;
      case Column::kScheme: AppendOptional(valid ? uri.scheme() : std::nullopt, out); break;
      case Column::kUserinfo: AppendOptional(valid ? uri.userinfo() : std::nullopt, out); break;
      case Column::kHost: AppendOptional(valid ? uri.host() : std::nullopt, out); break;
      case Column::kPort: AppendOptional(valid ? uri.port() : std::nullopt, out); break;
      case Column::kPath:
        AppendOptional(valid ? std::optional<std::string_view>(uri.path())
                             : std::nullopt, out);
        break;
      case Column::kQuery: AppendOptional(valid ? uri.query() : std::nullopt, out); break;
      case Column::kFragment: AppendOptional(valid ? uri.fragment() : std::nullopt, out); break;
      case Column::kHostType:
        AppendOptional(valid && uri.host() ? std::optional<std::string_view>(
                                                 derive::HostTypeName(uri.host_kind()))
                                           : std::nullopt, out);
        break;
      case Column::kError:
        out->append(valid ? "\\N" : ErrorKindName(uri.error().kind));
        break;
      case Column::kRegistrableDomain: AppendSuffix(uri, true, out); break;
      case Column::kPublicSuffix: AppendSuffix(uri, false, out); break;
      case Column::kSurt:
        if (valid) {
          AppendSurt(uri, out);
        } else {
          out->append("\\N");
        }
        break;
      case Column::kSurtCrawler:
        if (valid) {
          AppendSurtCrawler(i, derived, out);
        } else {
          out->append("\\N");
        }
        break;
      case Column::kKey:
        if (valid && derived.keys[i] != 0) {
          static const char kHex[] = "0123456789abcdef";
          uint64_t key = derived.keys[i];
          char text[16];
          for (int d = 15; d >= 0; --d, key >>= 4) text[d] = kHex[key & 15];
          out->append(text, 16);
        } else {
          out->append("\\N");
        }
        break;
      case Column::kNormalized:
        out->append(valid ? derived.normalized.Get(i) : "\\N");
        break;
    }
  }
  out->push_back('\n');
}

}  // namespace cli
}  // namespace uriscan
