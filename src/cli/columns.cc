// SPDX-License-Identifier: MIT
// ColumnWriter: chosen TSV columns, derived ones computed per batch.
#include "src/cli/columns.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <charconv>
#include <cstring>
#include <optional>

#include "src/cli/output.h"

namespace uriscan {
namespace cli {
namespace {

constexpr const char* kColumnNames[] = {
    "line", "valid", "scheme", "userinfo", "host", "port", "path", "query",
    "fragment", "host_type", "error", "registrable_domain", "public_suffix",
    "surt", "key", "normalized", "surt_crawler", "raw", "at", "file",
    "repaired", "authority", "host_nowww", "subdomain", "extension",
    "path_decoded", "query_decoded", "fragment_decoded", "path_segments",
    "param_names", "param:NAME", "param_raw:NAME"};
// The columns that take a NAME after their prefix.
constexpr std::string_view kParamPrefix = "param:";
constexpr std::string_view kParamRawPrefix = "param_raw:";

void AppendNumber(uint64_t v, std::string* out) {
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof(digits), v);
  out->append(digits, r.ptr);
}

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

bool ParseColumns(std::string_view list, std::vector<ColumnChoice>* out,
                  std::string* unknown) {
  out->clear();
  while (true) {
    const size_t comma = std::min(list.find(','), list.size());
    const std::string_view name = list.substr(0, comma);
    const auto* it = std::find(std::begin(kColumnNames),
                               std::end(kColumnNames), name);
    if (name.compare(0, kParamPrefix.size(), kParamPrefix) == 0) {
      out->push_back({Column::kParam, std::string(name)});
    } else if (name.compare(0, kParamRawPrefix.size(), kParamRawPrefix) == 0) {
      out->push_back({Column::kParamRaw, std::string(name)});
    } else if (it == std::end(kColumnNames) || name.find(':') != name.npos) {
      *unknown = std::string(name);
      return false;
    } else {
      out->push_back({static_cast<Column>(it - std::begin(kColumnNames)), {}});
    }
    if (comma == list.size()) return true;
    list.remove_prefix(comma + 1);
  }
}

ColumnWriter::ColumnWriter(std::vector<ColumnChoice> columns,
                           const PublicSuffixList* psl,
                           const Fingerprinter& fingerprinter, Profile profile,
                           const NormalizeOptions& options,
                           DecodedBytes decode)
    : columns_(std::move(columns)),
      psl_(psl),
      fingerprinter_(fingerprinter),
      profile_(profile),
      options_(options),
      decode_(decode) {}

bool ColumnWriter::Wants(Column c) const {
  return std::find(columns_.begin(), columns_.end(), c) != columns_.end();
}

void ColumnWriter::AppendHeader(std::string* out) const {
  for (size_t k = 0; k < columns_.size(); ++k) {
    if (k) out->push_back('\t');
    const Column c = columns_[k].column;
    if (c == Column::kParam || c == Column::kParamRaw) {
      AppendPgText(columns_[k].name, out);  // as the list spelled it
    } else {
      out->append(kColumnNames[static_cast<size_t>(c)]);
    }
  }
  out->push_back('\n');
}

void ColumnWriter::Prepare(const Batch& rows, const ComponentSpans& spans,
                           DerivedRows* derived) const {
  // The keys first: what they take is let go before the batches are made.
  if (Wants(Column::kKey)) fingerprinter_.Batch64(rows, spans, &derived->keys);
  if (Wants(Column::kNormalized))
    NormalizeBatch(rows, spans, profile_, &derived->normalized, options_);
  if (Wants(Column::kSurtCrawler) && &CrawlerRows(*derived) == &derived->crawler)
    NormalizeBatch(rows, spans, Profile::kCrawler, &derived->crawler,
                   options_);
  if (Wants(Column::kParamNames) || Wants(Column::kParam) ||
      Wants(Column::kParamRaw)) {
    QueryParams& p = derived->params;
    derived->data = rows.data;
    ExtractQueryParams(rows.data, spans, &p, kLongQuery);
    DecodeSpans(rows.data, p.name_begin.data(), p.name_end.data(), p.size(),
                Decoding::kForm, &derived->names, &derived->name_offsets,
                decode_);
    p.RowStarts(spans.size(), &derived->param_start);
  }
}

namespace {

// `in` decoded (with `how`, giving `bytes`) as TSV text.
void AppendDecoded(std::string_view in, Decoding how, DecodedBytes bytes,
                   std::string* out) {
  thread_local std::string buffer;
  buffer.resize(in.size());
  buffer.resize(Decode(in, how, buffer.data(), bytes));
  AppendPgText(buffer, out);
}
void AppendDecoded(const std::optional<std::string_view>& in, Decoding how,
                   DecodedBytes bytes, std::string* out) {
  if (in) {
    AppendDecoded(*in, how, bytes, out);
  } else {
    out->append("\\N");
  }
}

// A JSON array of strings as TSV text (its backslashes doubled), written
// into `out` a string at a time (an array of millions is never held twice),
// which moves onto `parts` as it grows, unless that is null.
class JsonArrayCell {
 public:
  explicit JsonArrayCell(std::string* out,
                         std::vector<std::string>* parts = nullptr)
      : out_(out), parts_(parts) {}
  void Add(std::string_view s) {
    if (parts_) SpillOutput(out_, parts_);
    out_->push_back(empty_ ? '[' : ',');
    empty_ = false;
    item_.clear();
    AppendJsonString(s, &item_);
    AppendPgText(item_, out_);
  }
  void Close() {
    if (empty_) out_->push_back('[');
    out_->push_back(']');
  }

 private:
  std::string* out_;
  std::vector<std::string>* parts_;
  std::string item_;
  bool empty_ = true;
};

// path_segments: each segment decoded.
void AppendPathSegments(std::string_view path, DecodedBytes bytes,
                        std::string* out) {
  JsonArrayCell cell(out);
  thread_local std::string buffer;
  if (!path.empty()) {
    if (path[0] == '/') path.remove_prefix(1);
    while (true) {
      const size_t slash = std::min(path.find('/'), path.size());
      const std::string_view segment = path.substr(0, slash);
      buffer.resize(segment.size());
      buffer.resize(
          Decode(segment, Decoding::kPercent, buffer.data(), bytes));
      cell.Add(buffer);
      if (slash == path.size()) break;
      path.remove_prefix(slash + 1);
    }
  }
  cell.Close();
}

}  // namespace

void ColumnWriter::AppendParamNames(size_t i, std::string_view query,
                                    const DerivedRows& derived,
                                    std::string* out,
                                    std::vector<std::string>* parts) const {
  JsonArrayCell cell(out, parts);
  if (query.size() > kLongQuery) {  // not in the columns: walked here
    thread_local std::string name;
    ForEachQueryField(query, [&](std::string_view raw, std::string_view) {
      name.resize(raw.size());
      name.resize(Decode(raw, Decoding::kForm, name.data(), decode_));
      cell.Add(name);
      return true;
    });
    cell.Close();
    return;
  }
  const char* names = derived.names.data();
  for (uint32_t k = derived.param_start[i]; k < derived.param_start[i + 1];
       ++k) {
    cell.Add({names + derived.name_offsets[k],
              derived.name_offsets[k + 1] - derived.name_offsets[k]});
  }
  cell.Close();
}

// param:NAME and param_raw:NAME: the value of the first parameter whose
// decoded name is NAME, decoded or as written; \N when there is none.
void ColumnWriter::AppendParam(size_t i, std::string_view query,
                               const ColumnChoice& c,
                               const DerivedRows& derived,
                               std::string* out) const {
  const char* data = derived.data;
  const bool raw = c.column == Column::kParamRaw;
  const std::string_view name = std::string_view(c.name).substr(
      raw ? kParamRawPrefix.size() : kParamPrefix.size());
  if (query.size() > kLongQuery) {  // not in the columns: walked here
    thread_local std::string decoded;
    bool found = false;
    ForEachQueryField(query, [&](std::string_view n, std::string_view value) {
      if (n.size() < name.size()) return true;  // decoding never grows text
      decoded.resize(n.size());
      decoded.resize(Decode(n, Decoding::kForm, decoded.data(), decode_));
      if (decoded != name) return true;
      if (raw) {
        AppendPgText(value, out);
      } else {
        AppendDecoded(value, Decoding::kForm, decode_, out);
      }
      found = true;
      return false;
    });
    if (!found) out->append("\\N");
    return;
  }
  const QueryParams& p = derived.params;
  for (uint32_t k = derived.param_start[i]; k < derived.param_start[i + 1];
       ++k) {
    const std::string_view decoded(
        derived.names.data() + derived.name_offsets[k],
        derived.name_offsets[k + 1] - derived.name_offsets[k]);
    if (decoded != name) continue;
    const std::string_view value(data + p.value_begin[k],
                                 p.value_end[k] - p.value_begin[k]);
    if (raw) {
      AppendPgText(value, out);
    } else {
      AppendDecoded(value, Decoding::kForm, decode_, out);
    }
    return;
  }
  out->append("\\N");
}

// The surt library's key of a valid row with a scheme ("\\N" otherwise,
// and where the library raises), '\\' written "\\\\" as TSV text wants.
void ColumnWriter::AppendSurt(std::string_view text, std::string* out) {
  // Written in place; only a key with a '\\' (rare) is escaped after.
  const size_t base = out->size();
  if (!AppendIaSurt(text, out)) {
    out->resize(base);
    out->append("\\N");
    return;
  }
  if (std::memchr(out->data() + base, '\\', out->size() - base)) {
    thread_local std::string key;
    key.assign(*out, base);
    out->resize(base);
    for (char c : key) {
      if (c == '\\') out->push_back('\\');
      out->push_back(c);
    }
  }
}

// The SURT shape (docs/cli.md) of the crawler normal form of row i:
// "com,example)/a?b=1" for "http://www.Example.com:80/a?b=1#f".
void ColumnWriter::AppendSurtCrawler(size_t i, const DerivedRows& derived,
                                     std::string* out) const {
  const NormalizedBatch& nb = CrawlerRows(derived);
  if (!AppendCrawlerSurt(nb.spans().Row(i, nb.view().data), out))
    out->append("\\N");
}

// registrable_domain or public_suffix of the lower-cased host (libpsl);
// \N without a host name, or for a host that is itself a public suffix.
void ColumnWriter::AppendSuffix(std::optional<std::string_view> reg_name,
                                bool registrable, std::string* out) const {
  PublicSuffixList::Suffixes answer;
  if (reg_name) answer = psl_->Lookup(*reg_name);
  AppendOptional(registrable ? answer.registrable_domain
                             : answer.public_suffix,
                 out);
}

// The host's labels left of its registrable domain, as written ("" for a
// host that is its registrable domain); \N where registrable_domain is.
void ColumnWriter::AppendSubdomain(std::optional<std::string_view> reg_name,
                                   std::string* out) const {
  std::optional<std::string_view> subdomain;
  if (reg_name) subdomain = psl_->Subdomain(*reg_name);
  if (subdomain) {
    AppendPgText(*subdomain, out);
  } else {
    out->append("\\N");
  }
}

void ColumnWriter::AppendRow(size_t i, const RowContext& row,
                             const UriReference& uri,
                             const DerivedRows& derived, std::string* out,
                             bool end_line) const {
  AppendCells(i, row, uri, derived, out, end_line);
}

void ColumnWriter::AppendRow(size_t i, const RowContext& row,
                             const SpanRow& uri, const DerivedRows& derived,
                             std::string* out, bool end_line) const {
  AppendCells(i, row, uri, derived, out, end_line);
}

template <class Row>
void ColumnWriter::AppendCells(size_t i, const RowContext& row,
                               const Row& uri, const DerivedRows& derived,
                               std::string* out, bool end_line) const {
  const bool valid = uri.valid();
  // The host when it is a reg-name of a valid reference: what the Public
  // Suffix List columns look up.
  const auto reg_name = [&]() -> std::optional<std::string_view> {
    if (!valid || uri.host_kind() != HostKind::kRegName) return std::nullopt;
    return uri.host();
  };
  for (size_t k = 0; k < columns_.size(); ++k) {
    if (row.out_parts) SpillOutput(out, row.out_parts);
    if (k) out->push_back('\t');
    switch (columns_[k].column) {
      case Column::kLine: AppendNumber(row.line, out); break;
      case Column::kRaw: AppendPgText(row.raw, out); break;
      case Column::kAt:  // \N as any undefined value, for an integer column
        if (valid) {
          out->append("\\N");
        } else {
          AppendNumber(uri.error().offset, out);
        }
        break;
      case Column::kFile: AppendPgText(row.file, out); break;
      case Column::kRepaired:
        out->append(row.repaired ? "true" : "false");
        break;
      case Column::kAuthority: AppendOptional(valid ? uri.authority() : std::nullopt, out); break;
      case Column::kHostNowww:
        if (const auto host = valid ? uri.host() : std::nullopt) {
          out->append(HostWithoutWww(*host));
        } else {
          out->append("\\N");
        }
        break;
      case Column::kSubdomain: AppendSubdomain(reg_name(), out); break;
      case Column::kExtension:
        if (valid) {
          AppendDecoded(PathExtension(uri.path()), Decoding::kPercent,
                        decode_, out);
        } else {
          out->append("\\N");
        }
        break;
      case Column::kPathDecoded:
        AppendDecoded(valid ? std::optional<std::string_view>(uri.path())
                            : std::nullopt,
                      Decoding::kPercent, decode_, out);
        break;
      case Column::kQueryDecoded:
        AppendDecoded(valid ? uri.query() : std::nullopt, Decoding::kPercent,
                      decode_, out);
        break;
      case Column::kFragmentDecoded:
        AppendDecoded(valid ? uri.fragment() : std::nullopt,
                      Decoding::kPercent, decode_, out);
        break;
      case Column::kPathSegments:
        if (valid) {
          AppendPathSegments(uri.path(), decode_, out);
        } else {
          out->append("\\N");
        }
        break;
      case Column::kParamNames:
        if (valid) {
          AppendParamNames(i, uri.query().value_or(""), derived, out,
                           row.out_parts);
        } else {
          out->append("\\N");
        }
        break;
      case Column::kParam:
      case Column::kParamRaw:
        if (valid) {
          AppendParam(i, uri.query().value_or(""), columns_[k], derived, out);
        } else {
          out->append("\\N");
        }
        break;
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
                                                 HostKindName(uri.host_kind()))
                                           : std::nullopt, out);
        break;
      case Column::kError:
        out->append(valid ? "\\N" : ErrorKindName(uri.error().kind));
        break;
      case Column::kRegistrableDomain:
        AppendSuffix(reg_name(), true, out);
        break;
      case Column::kPublicSuffix: AppendSuffix(reg_name(), false, out); break;
      case Column::kSurt:
        if (valid && uri.scheme()) {
          AppendSurt(uri.text(), out);
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
        // (An invalid row's key is 0, but under w3lib where w3lib
        // canonicalizes it: fingerprint.h.)
        if (derived.keys[i] != 0) {
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
        if (valid) {
          out->append(derived.normalized.Get(i));
        } else {  // w3lib's form of a line RFC 3986 refuses, if any
          thread_local std::string form;
          form.clear();
          if (profile_ == Profile::kW3lib &&
              uri.error().kind != ErrorKind::kTooLong &&
              Normalize(ParseUriReference(uri.text()), profile_, &form)) {
            AppendPgText(form, out);
          } else {
            out->append("\\N");
          }
        }
        break;
    }
  }
  // (A long cell that filled `out` moves before a byte is added to it.)
  if (row.out_parts) SpillOutput(out, row.out_parts);
  if (end_line) out->push_back('\n');
}

// --psl: the largest list file read (the real one is about 250 KB).
constexpr off_t kMaxPslBytes = off_t{64} << 20;

ColumnSetup::ColumnSetup() = default;
ColumnSetup::~ColumnSetup() = default;

int ColumnSetup::Begin(const std::vector<ColumnChoice>& columns,
                       const std::string& psl_file, Profile profile,
                       const NormalizeOptions& options, DecodedBytes decode) {
  const bool wants_psl = std::any_of(
      columns.begin(), columns.end(), [](const ColumnChoice& c) {
        return c == Column::kRegistrableDomain || c == Column::kPublicSuffix ||
               c == Column::kSubdomain;
      });
  if (psl_file.empty()) {
    // Its table is built once, in tens of milliseconds: only when asked.
    if (wants_psl) psl_ = std::make_unique<PublicSuffixList>();
  } else {
    // A list is a regular file of some hundred kilobytes: a FIFO or a
    // device (/dev/zero, /dev/urandom) would be read forever.
    struct stat st;
    if (stat(psl_file.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_size > kMaxPslBytes) {
      std::fprintf(stderr,
                   "uriscan: --psl: '%s' is not a regular file of at most "
                   "64 MiB\n",
                   psl_file.c_str());
      return 2;
    }
    psl_ = PublicSuffixList::FromFile(psl_file);
    if (!psl_) {
      std::fprintf(stderr, "uriscan: --psl: cannot load '%s'\n",
                   psl_file.c_str());
      return 2;
    }
  }
  fingerprinter_ = std::make_unique<Fingerprinter>(profile, options);
  writer_ = std::make_unique<ColumnWriter>(
      columns, psl_.get(), *fingerprinter_, profile, options, decode);
  return -1;
}

}  // namespace cli
}  // namespace uriscan
