// SPDX-License-Identifier: MIT
// Query parameters and path segments of a batch from its spans, decoding
// into caller buffers (include/uriscan/analytics.h).
#include "uriscan/analytics.h"

#include <algorithm>
#include <cstring>

#include "kernels/kernels.h"

namespace uriscan {
namespace {

// [begin, end) of row i's query; false when the row has none.
bool QueryOf(const ComponentSpans& s, size_t i, uint32_t* begin,
             uint32_t* end) {
  if (s.error_kind[i] != 0 || !(s.flags[i] & flags::kHasQuery)) return false;
  *begin = s.query_begin[i];
  *end = (s.flags[i] & flags::kHasFragment) ? s.fragment_begin[i] - 1
                                            : s.uri_end[i];
  return true;
}

void AddParam(QueryParams* out, size_t row, uint32_t name_begin,
              uint32_t name_end, uint32_t value_begin, uint32_t value_end) {
  out->row.push_back(static_cast<uint32_t>(row));
  out->name_begin.push_back(name_begin);
  out->name_end.push_back(name_end);
  out->value_begin.push_back(value_begin);
  out->value_end.push_back(value_end);
}

}  // namespace

void QueryParams::Clear() {
  row.clear();
  name_begin.clear();
  name_end.clear();
  value_begin.clear();
  value_end.clear();
}

void QueryParams::RowStarts(size_t rows, std::vector<uint32_t>* start) const {
  start->assign(rows + 1, 0);
  for (uint32_t r : row) ++(*start)[r + 1];
  for (size_t i = 0; i < rows; ++i) (*start)[i + 1] += (*start)[i];
}

void PathSegments::Clear() {
  row.clear();
  begin.clear();
  end.clear();
}

void ExtractQueryParamsScalar(const char* data, const ComponentSpans& spans,
                              QueryParams* out) {
  out->Clear();
  for (size_t i = 0; i < spans.size(); ++i) {
    uint32_t q = 0, qe = 0;
    if (!QueryOf(spans, i, &q, &qe)) continue;
    uint32_t field = q;
    while (field <= qe) {
      uint32_t amp = field;
      while (amp < qe && data[amp] != '&') ++amp;
      if (amp > field) {
        uint32_t eq = field;
        while (eq < amp && data[eq] != '=') ++eq;
        AddParam(out, i, field, eq, eq < amp ? eq + 1 : amp, amp);
      }
      field = amp + 1;
    }
  }
}

QueryParamWindows::QueryParamWindows(const char* data,
                                     const ComponentSpans& spans,
                                     size_t longest_query) {
  Reset(data, spans, longest_query);
}

void QueryParamWindows::Reset(const char* data, const ComponentSpans& spans,
                              size_t longest_query) {
  data_ = data;
  limit_ = 0;
  next_ = 0;
  at_ = 0;
  // The rows with a query (a SIMD scan of the flags column: a log's rows
  // mostly have none), then their queries' spans.
  const size_t n = spans.size();
  rows_.resize(n);
  const size_t with_query = kernels::RowsWithFlag(
      spans.flags.data(), n, flags::kHasQuery, rows_.data());
  begin_.resize(with_query);
  end_.resize(with_query);
  size_t queries = 0;
  for (size_t k = 0; k < with_query; ++k) {
    const uint32_t i = rows_[k];
    if (!QueryOf(spans, i, &begin_[queries], &end_[queries]) ||
        end_[queries] - begin_[queries] > longest_query)
      continue;
    rows_[queries] = i;
    limit_ = std::max(limit_, end_[queries]);
    ++queries;
  }
  rows_.resize(queries);
  begin_.resize(queries);
  end_.resize(queries);
  if (queries > 0) at_ = begin_[0];
}

bool QueryParamWindows::Next(QueryParams* out) {
  // Pieces of only empty fields ("?", "&&&") give no parameter: a window
  // is never empty while parameters are left.
  while (NextPieces(out)) {
    if (out->size() > 0) return true;
  }
  return false;
}

bool QueryParamWindows::NextPieces(QueryParams* out) {
  out->Clear();
  // Pieces of queries whose parameters fit the window: whole queries, and
  // of a long one a run of its fields, cut after a '&' (a field never
  // holds one, so the pieces give the fields of the whole).
  piece_row_.clear();
  piece_begin_.clear();
  piece_end_.clear();
  size_t room = 0;
  while (next_ < rows_.size()) {
    const uint32_t end = end_[next_];
    const size_t need = (end - at_ + 1) / 2;  // at most this many fields
    uint32_t cut = end;
    size_t fields = need;
    if (room + need > kWindowParams) {
      if (room > 0) break;  // the next window begins with this one
      // A piece of at most 2 * kWindowParams - 1 bytes, ended at its last
      // '&'; or, when no '&' is in that, the one field that begins it.
      const uint32_t span = 2 * kWindowParams - 1;
      const void* amp = memrchr(data_ + at_, '&', span);
      if (amp) {
        cut = static_cast<uint32_t>(static_cast<const char*>(amp) - data_);
        fields = (cut - at_ + 1) / 2;
      } else {
        amp = std::memchr(data_ + at_ + span, '&', end - at_ - span);
        if (amp)
          cut = static_cast<uint32_t>(static_cast<const char*>(amp) - data_);
        fields = 1;
      }
    }
    piece_row_.push_back(rows_[next_]);
    piece_begin_.push_back(at_);
    piece_end_.push_back(cut);
    room += fields;
    if (cut < end) {
      at_ = cut + 1;  // past the '&'
      break;
    }
    if (++next_ < rows_.size()) at_ = begin_[next_];
  }
  if (piece_row_.empty()) return false;
  for (auto* v : {&out->row, &out->name_begin, &out->name_end,
                  &out->value_begin, &out->value_end})
    v->resize(std::max<size_t>(room, 1));
  const size_t found = kernels::SplitQueries(
      reinterpret_cast<const uint8_t*>(data_), limit_, piece_row_.data(),
      piece_begin_.data(), piece_end_.data(), piece_row_.size(),
      out->row.data(), out->name_begin.data(), out->name_end.data(),
      out->value_begin.data(), out->value_end.data());
  for (auto* v : {&out->row, &out->name_begin, &out->name_end,
                  &out->value_begin, &out->value_end})
    v->resize(found);
  return true;
}

void ExtractQueryParams(const char* data, const ComponentSpans& spans,
                        QueryParams* out, size_t longest_query) {
  out->Clear();
  // A window at a time into scratch columns that stay in L1 and L2, then
  // appended.
  thread_local QueryParamWindows windows;
  windows.Reset(data, spans, longest_query);
  thread_local QueryParams window;
  while (windows.Next(&window)) {
    out->row.insert(out->row.end(), window.row.begin(), window.row.end());
    out->name_begin.insert(out->name_begin.end(), window.name_begin.begin(),
                           window.name_begin.end());
    out->name_end.insert(out->name_end.end(), window.name_end.begin(),
                         window.name_end.end());
    out->value_begin.insert(out->value_begin.end(),
                            window.value_begin.begin(),
                            window.value_begin.end());
    out->value_end.insert(out->value_end.end(), window.value_end.begin(),
                          window.value_end.end());
  }
}

void ExtractPathSegments(const char* data, const ComponentSpans& spans,
                         PathSegments* out) {
  out->Clear();
  for (size_t i = 0; i < spans.size(); ++i) {
    if (spans.error_kind[i] != 0) continue;
    uint32_t b = spans.path_begin[i];
    const uint32_t e = spans.path_end[i];
    if (b == e) continue;
    if (data[b] == '/') ++b;  // the empty first segment of an absolute path
    while (true) {
      const void* slash = std::memchr(data + b, '/', e - b);
      const uint32_t s =
          slash ? static_cast<uint32_t>(static_cast<const char*>(slash) - data)
                : e;
      out->row.push_back(static_cast<uint32_t>(i));
      out->begin.push_back(b);
      out->end.push_back(s);
      if (s == e) break;
      b = s + 1;
    }
  }
}

namespace {
uint32_t KernelHow(Decoding how, DecodedBytes bytes) {
  return (how == Decoding::kForm ? kernels::kDecodeForm : 0) |
         (bytes == DecodedBytes::kUtf8 ? kernels::kDecodeUtf8 : 0);
}
}  // namespace

size_t Decode(std::string_view in, Decoding how, char* out,
              DecodedBytes bytes) {
  return kernels::DecodeRun(reinterpret_cast<const uint8_t*>(in.data()),
                            in.size(), reinterpret_cast<uint8_t*>(out),
                            KernelHow(how, bytes));
}

void DecodeSpans(const char* data, const uint32_t* begin, const uint32_t* end,
                 size_t count, Decoding how, std::vector<char>* out,
                 std::vector<uint32_t>* offsets, DecodedBytes bytes) {
  size_t total = 0;
  uint32_t limit = 0;  // every span ends within data's first `limit` bytes
  for (size_t k = 0; k < count; ++k) {
    total += end[k] - begin[k];
    limit = std::max(limit, end[k]);
  }
  out->resize(total + kernels::kDecodePad);
  offsets->resize(count + 1);
  kernels::DecodeSpans(reinterpret_cast<const uint8_t*>(data), limit, begin,
                       end, count, KernelHow(how, bytes),
                       reinterpret_cast<uint8_t*>(out->data()), out->size(),
                       offsets->data());
  out->resize((*offsets)[count]);
}

std::string_view HostWithoutWww(std::string_view host) {
  if (host.size() >= 4 && (host[0] | 0x20) == 'w' && (host[1] | 0x20) == 'w' &&
      (host[2] | 0x20) == 'w' && host[3] == '.')
    host.remove_prefix(4);
  return host;
}

std::vector<std::string_view> PathSegmentsOf(std::string_view path) {
  std::vector<std::string_view> segments;
  if (path.empty()) return segments;
  if (path[0] == '/') path.remove_prefix(1);
  while (true) {
    const size_t slash = std::min(path.find('/'), path.size());
    segments.push_back(path.substr(0, slash));
    if (slash == path.size()) return segments;
    path.remove_prefix(slash + 1);
  }
}

void AppendPercentEncoded(std::string_view text, std::string* out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (const char ch : text) {
    const auto b = static_cast<unsigned char>(ch);
    if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') ||
        (b >= '0' && b <= '9') || b == '-' || b == '.' || b == '_' ||
        b == '~') {
      out->push_back(ch);
    } else {
      out->push_back('%');
      out->push_back(kHex[b >> 4]);
      out->push_back(kHex[b & 15]);
    }
  }
}

std::vector<std::string_view> UriHierarchy(const UriReference& uri,
                                           bool path_only) {
  std::vector<std::string_view> items;
  if (!uri.valid() || (!path_only && (!uri.scheme() || !uri.host())))
    return items;
  const std::string_view text = uri.text();
  const size_t path_begin = static_cast<size_t>(uri.path().data() - text.data());
  const size_t path_end = path_begin + uri.path().size();
  const size_t from = path_only ? path_begin : 0;
  const auto up_to = [&](size_t end) { items.push_back(text.substr(from, end - from)); };
  for (size_t k = path_begin; k < path_end; ++k) {
    if (text[k] != '/' || (path_only && k == path_begin)) continue;
    up_to(k + 1);
  }
  if (path_end == path_begin ? !path_only : text[path_end - 1] != '/')
    up_to(path_end);
  if (const auto query = uri.query())
    up_to(static_cast<size_t>(query->data() - text.data()) + query->size());
  return items;
}

std::string_view PathExtension(std::string_view path) {
  const size_t slash = path.rfind('/');
  std::string_view last =
      slash == std::string_view::npos ? path : path.substr(slash + 1);
  // The segment's name, without its parameters (";jsessionid=...").
  last = last.substr(0, std::min(last.find(';'), last.size()));
  const size_t dot = last.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == last.size())
    return {};
  // An encoded '/' after the dot ("b.c%2Fd"): what follows the dot is no
  // extension once decoded, so there is none.
  const std::string_view ext = last.substr(dot + 1);
  for (size_t i = 0; i + 2 < ext.size(); ++i) {
    if (ext[i] == '%' && ext[i + 1] == '2' && (ext[i + 2] | 0x20) == 'f')
      return {};
  }
  return ext;
}

}  // namespace uriscan
