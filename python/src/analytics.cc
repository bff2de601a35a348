// SPDX-License-Identifier: MIT
// uriscan.params() and uriscan.columns(): the log analytics of the command's
// `params` and `parse --columns` (docs/cli.md, "Log analytics"), computed by
// the library with the GIL released and turned into Python objects after.
#include "src/analytics.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/rows.h"
#include "src/spans.h"
#include "uriscan/uriscan.h"

namespace uriscan {
namespace python {
namespace {

// Text decoded from URLs may be any bytes: bytes that are not UTF-8 become
// lone surrogates, as Python reads a file with errors="surrogateescape"
// (and as the package encodes such str back when it reads rows).
PyObject* Text(std::string_view s) {
  PyObject* o = PyUnicode_DecodeUTF8(
      s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
  if (!o) throw py::error_already_set();
  return o;
}

// Texts for many rows without a Python object: row i holds the items
// [item_start[i], item_start[i + 1]), item k the bytes
// [offset[k], offset[k + 1]) of text; a row may be null (None).
struct TextRows {
  std::string text;
  std::vector<size_t> offset{0}, item_start{0};
  std::vector<uint8_t> null;
  std::vector<int64_t> number;  // a bool or int cell's value, by row

  void Add(std::string_view s) {
    text.append(s);
    offset.push_back(text.size());
  }
  void AddDecoded(std::string_view s, Decoding how) {
    const size_t at = text.size();
    text.resize(at + s.size());
    text.resize(at + Decode(s, how, &text[at]));
    offset.push_back(text.size());
  }
  void EndRow(bool is_null) {
    null.push_back(is_null);
    item_start.push_back(offset.size() - 1);
  }
  void Null() {
    EndRow(true);
    number.push_back(0);
  }
  void Number(int64_t v) {
    EndRow(false);
    number.push_back(v);
  }
  // One item or None.
  void Optional(const std::optional<std::string_view>& s) {
    if (s) Add(*s);
    EndRow(!s);
  }
  std::string_view Item(size_t k) const {
    return std::string_view(text).substr(offset[k], offset[k + 1] - offset[k]);
  }
};

enum class Kind : uint8_t {
  kAuthority, kHostNowww, kSubdomain, kRegistrableDomain, kPublicSuffix,
  kExtension, kPathDecoded, kQueryDecoded, kFragmentDecoded, kPathSegments,
  kParamNames, kSurt, kLine, kValid, kAt, kError, kRaw, kRepaired, kScheme,
  kUserinfo, kHost, kPort, kPath, kQuery, kFragment, kHostType, kKey,
  kNormalized, kSurtCrawler, kParam, kParamRaw,
};
constexpr const char* kNames[] = {
    "authority", "host_nowww", "subdomain", "registrable_domain",
    "public_suffix", "extension", "path_decoded", "query_decoded",
    "fragment_decoded", "path_segments", "param_names", "surt", "line",
    "valid", "at", "error", "raw", "repaired", "scheme", "userinfo", "host",
    "port", "path", "query", "fragment", "host_type", "key", "normalized",
    "surt_crawler"};
constexpr std::string_view kParamPrefix = "param:";
constexpr std::string_view kParamRawPrefix = "param_raw:";

// What a cell holds.
enum class Cell : uint8_t { kText, kList, kBool, kInt };

struct Wanted {
  Kind kind;
  std::string name;   // as asked
  std::string param;  // NAME of param:NAME and param_raw:NAME
  Cell cell() const {
    switch (kind) {
      case Kind::kPathSegments:
      case Kind::kParamNames: return Cell::kList;
      case Kind::kValid:
      case Kind::kRepaired: return Cell::kBool;
      case Kind::kLine:
      case Kind::kAt: return Cell::kInt;
      default: return Cell::kText;
    }
  }
};

std::string ColumnList() {
  std::string all;
  for (const char* n : kNames) all += std::string(n) + ", ";
  return all + "param:NAME, param_raw:NAME";
}

std::vector<Wanted> WantedFrom(const py::handle& names) {
  if (py::isinstance<py::str>(names) || !py::isinstance<py::sequence>(names))
    throw py::type_error("names: expected a list of str, got " +
                         TypeName(names));
  std::vector<Wanted> out;
  size_t i = 0;
  for (const py::handle item : names) {
    if (!py::isinstance<py::str>(item))
      throw py::type_error(RowName("names", i) + ": expected str, got " +
                           TypeName(item));
    const std::string name = item.cast<std::string>();
    const std::string_view view = name;
    const auto* it = std::find(std::begin(kNames), std::end(kNames), view);
    if (view.substr(0, kParamPrefix.size()) == kParamPrefix) {
      out.push_back({Kind::kParam, name,
                     std::string(view.substr(kParamPrefix.size()))});
    } else if (view.substr(0, kParamRawPrefix.size()) == kParamRawPrefix) {
      out.push_back({Kind::kParamRaw, name,
                     std::string(view.substr(kParamRawPrefix.size()))});
    } else if (it != std::end(kNames)) {
      out.push_back({static_cast<Kind>(it - std::begin(kNames)), name, {}});
    } else if (name == "file") {
      throw py::value_error(RowName("names", i) + ": 'file' names the "
                            "command's input files; rows here have none");
    } else {
      throw py::value_error(RowName("names", i) + ": '" + name +
                            "' is not a column; expected one of " +
                            ColumnList());
    }
    ++i;
  }
  return out;
}

const PublicSuffixList& BuiltinList() {
  static const PublicSuffixList* const list = new PublicSuffixList();
  return *list;
}

// A chunk's parameters, row i's being [start[i], start[i + 1]), names
// form-decoded.
struct ChunkParams {
  QueryParams params;
  std::vector<uint32_t> start;
  std::vector<char> names;
  std::vector<uint32_t> name_offsets;

  void Make(const Batch& rows, const ComponentSpans& spans) {
    ExtractQueryParams(rows.data, spans, &params);
    DecodeSpans(rows.data, params.name_begin.data(), params.name_end.data(),
                params.size(), Decoding::kForm, &names, &name_offsets);
    params.RowStarts(spans.size(), &start);
  }
  std::string_view Name(size_t k) const {
    return {names.data() + name_offsets[k],
            name_offsets[k + 1] - name_offsets[k]};
  }
};

// What a chunk's rows derive beside their spans, for the columns asked.
struct ChunkDerived {
  ChunkParams params;
  std::vector<uint64_t> keys;          // key
  NormalizedBatch normalized, crawler;  // normalized, surt_crawler
};

// What a row is beside its reference.
struct RowInfo {
  int64_t line;          // 1 for the first row
  std::string_view raw;  // as given (before lenient repaired it)
  bool repaired;
};

// Row i of one column.
void AddRow(const Wanted& w, size_t i, const UriReference& uri,
            const char* data, const ChunkDerived& d, const RowInfo& info,
            TextRows* out) {
  switch (w.kind) {  // what every row has, invalid ones too
    case Kind::kLine: out->Number(info.line); return;
    case Kind::kValid: out->Number(uri.valid()); return;
    case Kind::kRepaired: out->Number(info.repaired); return;
    case Kind::kAt:  // None on a valid row, as the command's \N
      if (uri.valid()) {
        out->Null();
      } else {
        out->Number(uri.error().offset);
      }
      return;
    case Kind::kError:
      out->Optional(uri.valid() ? std::nullopt
                                : std::optional<std::string_view>(
                                      ErrorKindName(uri.error().kind)));
      return;
    case Kind::kRaw:
      out->Add(info.raw);
      out->EndRow(false);
      return;
    default:
      break;
  }
  if (!uri.valid()) {
    out->Null();
    return;
  }
  const ChunkParams& p = d.params;
  const auto host = uri.host();
  const bool name_host = host && uri.host_kind() == HostKind::kRegName;
  switch (w.kind) {
    case Kind::kAuthority: out->Optional(uri.authority()); return;
    case Kind::kHostNowww:
      out->Optional(host ? std::optional(HostWithoutWww(*host))
                         : std::nullopt);
      return;
    case Kind::kSubdomain:
      out->Optional(name_host ? BuiltinList().Subdomain(*host)
                              : std::nullopt);
      return;
    case Kind::kRegistrableDomain:
    case Kind::kPublicSuffix: {
      PublicSuffixList::Suffixes s;
      if (name_host) s = BuiltinList().Lookup(*host);
      out->Optional(w.kind == Kind::kRegistrableDomain ? s.registrable_domain
                                                       : s.public_suffix);
      return;
    }
    case Kind::kExtension:
      out->AddDecoded(PathExtension(uri.path()), Decoding::kPercent);
      out->EndRow(false);
      return;
    case Kind::kPathDecoded:
      out->AddDecoded(uri.path(), Decoding::kPercent);
      out->EndRow(false);
      return;
    case Kind::kQueryDecoded:
    case Kind::kFragmentDecoded: {
      const auto part =
          w.kind == Kind::kQueryDecoded ? uri.query() : uri.fragment();
      if (part) out->AddDecoded(*part, Decoding::kPercent);
      out->EndRow(!part);
      return;
    }
    case Kind::kPathSegments: {
      std::string_view path = uri.path();
      if (!path.empty()) {
        if (path[0] == '/') path.remove_prefix(1);
        while (true) {
          const size_t slash = std::min(path.find('/'), path.size());
          out->AddDecoded(path.substr(0, slash), Decoding::kPercent);
          if (slash == path.size()) break;
          path.remove_prefix(slash + 1);
        }
      }
      out->EndRow(false);
      return;
    }
    case Kind::kParamNames:
      for (uint32_t k = p.start[i]; k < p.start[i + 1]; ++k)
        out->Add(p.Name(k));
      out->EndRow(false);
      return;
    case Kind::kParam:
    case Kind::kParamRaw:
      for (uint32_t k = p.start[i]; k < p.start[i + 1]; ++k) {
        if (p.Name(k) != w.param) continue;
        const std::string_view value(
            data + p.params.value_begin[k],
            p.params.value_end[k] - p.params.value_begin[k]);
        if (w.kind == Kind::kParam) {
          out->AddDecoded(value, Decoding::kForm);
        } else {
          out->Add(value);
        }
        out->EndRow(false);
        return;
      }
      out->Null();
      return;
    case Kind::kSurt:
    case Kind::kSurtCrawler: {
      thread_local std::string key;
      key.clear();
      const bool ok =
          w.kind == Kind::kSurt
              ? uri.scheme() && AppendIaSurt(uri.text(), &key)
              : AppendCrawlerSurt(d.crawler.spans().Row(i, d.crawler.view().data),
                                  &key);
      out->Optional(ok ? std::optional<std::string_view>(key) : std::nullopt);
      return;
    }
    case Kind::kScheme: out->Optional(uri.scheme()); return;
    case Kind::kUserinfo: out->Optional(uri.userinfo()); return;
    case Kind::kHost: out->Optional(host); return;
    case Kind::kPort: out->Optional(uri.port()); return;
    case Kind::kPath:
      out->Add(uri.path());
      out->EndRow(false);
      return;
    case Kind::kQuery: out->Optional(uri.query()); return;
    case Kind::kFragment: out->Optional(uri.fragment()); return;
    case Kind::kHostType:
      out->Optional(host ? std::optional<std::string_view>(
                               HostKindName(uri.host_kind()))
                         : std::nullopt);
      return;
    case Kind::kKey: {  // 16 hex digits, as the command writes it
      uint64_t key = d.keys[i];
      if (key == 0) {
        out->Null();
        return;
      }
      static const char kHex[] = "0123456789abcdef";
      char text[16];
      for (int k = 15; k >= 0; --k, key >>= 4) text[k] = kHex[key & 15];
      out->Add(std::string_view(text, 16));
      out->EndRow(false);
      return;
    }
    case Kind::kNormalized:
      out->Add(d.normalized.Get(i));
      out->EndRow(false);
      return;
    case Kind::kLine:
    case Kind::kValid:
    case Kind::kAt:
    case Kind::kError:
    case Kind::kRaw:
    case Kind::kRepaired:
      return;  // above
  }
}

bool WantsParams(const std::vector<Wanted>& wanted) {
  return std::any_of(wanted.begin(), wanted.end(), [](const Wanted& w) {
    return w.kind == Kind::kParamNames || w.kind == Kind::kParam ||
           w.kind == Kind::kParamRaw;
  });
}

}  // namespace

py::dict Columns(const py::handle& urls, const py::handle& names,
                 Profile profile, const NormalizeOptions& options,
                 bool lenient) {
  const TrimScratchOnExit trim;
  const std::vector<Wanted> wanted = WantedFrom(names);
  const auto wants = [&](Kind k) {
    return std::any_of(wanted.begin(), wanted.end(),
                       [k](const Wanted& w) { return w.kind == k; });
  };
  std::shared_ptr<const RowSet> given = RowsFrom(urls, "urls", Lease<RowSet>());
  std::vector<uint8_t> repaired;
  std::shared_ptr<const RowSet> rows =
      lenient ? Repaired(*given, &repaired) : given;
  if (!lenient) repaired.assign(given->rows, 0);
  const Fingerprinter fingerprinter(profile, options);
  std::vector<TextRows> texts(wanted.size());
  {
    py::gil_scoped_release release;
    ComponentSpans spans;
    ChunkDerived derived;
    size_t given_chunk = 0;
    for (const Chunk& chunk : rows->chunks) {
      const Batch& batch = chunk.batch;
      Scan(batch, &spans);
      if (WantsParams(wanted)) derived.params.Make(batch, spans);
      if (wants(Kind::kKey)) fingerprinter.Batch64(batch, spans, &derived.keys);
      if (wants(Kind::kNormalized))
        NormalizeBatch(batch, spans, profile, &derived.normalized, options);
      if (wants(Kind::kSurtCrawler))
        NormalizeBatch(batch, spans, Profile::kCrawler, &derived.crawler,
                       options);
      for (size_t i = 0; i < batch.count; ++i) {
        const size_t row = chunk.first_row + i;
        const UriReference uri = spans.Row(i, batch.data);
        const RowInfo info{
            static_cast<int64_t>(row + 1),
            wants(Kind::kRaw) ? RowText(*given, row, &given_chunk)
                              : std::string_view(),
            repaired[row] != 0};
        for (size_t c = 0; c < wanted.size(); ++c)
          AddRow(wanted[c], i, uri, batch.data, derived, info, &texts[c]);
      }
    }
  }
  py::dict out;
  for (size_t c = 0; c < wanted.size(); ++c) {
    const TextRows& t = texts[c];
    py::list column(static_cast<py::ssize_t>(rows->rows));
    for (size_t i = 0; i < rows->rows; ++i) {
      PyObject* cell;
      if (t.null[i]) {
        Py_INCREF(Py_None);
        cell = Py_None;
      } else if (wanted[c].cell() == Cell::kList) {
        const size_t first = t.item_start[i], stop = t.item_start[i + 1];
        cell = PyList_New(static_cast<Py_ssize_t>(stop - first));
        if (!cell) throw py::error_already_set();
        for (size_t k = first; k < stop; ++k)
          PyList_SET_ITEM(cell, static_cast<Py_ssize_t>(k - first),
                          Text(t.Item(k)));
      } else if (wanted[c].cell() == Cell::kBool) {
        cell = PyBool_FromLong(static_cast<long>(t.number[i]));
      } else if (wanted[c].cell() == Cell::kInt) {
        cell = PyLong_FromLongLong(t.number[i]);
        if (!cell) throw py::error_already_set();
      } else {
        cell = Text(t.Item(t.item_start[i]));
      }
      PyList_SET_ITEM(column.ptr(), static_cast<Py_ssize_t>(i), cell);
    }
    out[py::str(wanted[c].name)] = std::move(column);
  }
  return out;
}

py::tuple Params(const py::handle& urls, bool raw, bool lenient) {
  const TrimScratchOnExit trim;
  std::shared_ptr<const RowSet> rows = InputRows(urls, lenient, Lease<RowSet>());
  std::vector<int64_t> row;
  TextRows names, values;  // one item per parameter, no row structure
  {
    py::gil_scoped_release release;
    ComponentSpans spans;
    QueryParams p;
    std::vector<char> text;
    std::vector<uint32_t> offsets;
    for (const Chunk& chunk : rows->chunks) {
      Scan(chunk.batch, &spans);
      ExtractQueryParams(chunk.batch.data, spans, &p);
      for (uint32_t r : p.row) row.push_back(int64_t(chunk.first_row) + r);
      const auto add = [&](const uint32_t* begin, const uint32_t* end,
                           TextRows* to) {
        if (raw) {
          for (size_t k = 0; k < p.size(); ++k)
            to->Add({chunk.batch.data + begin[k], end[k] - begin[k]});
          return;
        }
        DecodeSpans(chunk.batch.data, begin, end, p.size(), Decoding::kForm,
                    &text, &offsets);
        for (size_t k = 0; k < p.size(); ++k)
          to->Add({text.data() + offsets[k], offsets[k + 1] - offsets[k]});
      };
      add(p.name_begin.data(), p.name_end.data(), &names);
      add(p.value_begin.data(), p.value_end.data(), &values);
    }
  }
  const size_t count = row.size();
  py::list name_list(static_cast<py::ssize_t>(count)),
      value_list(static_cast<py::ssize_t>(count));
  for (size_t k = 0; k < count; ++k) {
    PyList_SET_ITEM(name_list.ptr(), static_cast<Py_ssize_t>(k),
                    Text(names.Item(k)));
    PyList_SET_ITEM(value_list.ptr(), static_cast<Py_ssize_t>(k),
                    Text(values.Item(k)));
  }
  return py::make_tuple(ArrayFromVector(std::move(row)), name_list,
                        value_list);
}

}  // namespace python
}  // namespace uriscan
