// SPDX-License-Identifier: MIT
// Query parameters and path segments of a batch from its spans, decoding
// into caller buffers (include/uriscan/analytics.h).
#include "uriscan/analytics.h"

#include <algorithm>
#include <cstring>

#include "kernels/kernels.h"

namespace uriscan {
namespace {

// The parameters one SplitQueries() call may write (its queries' bound): the
// five scratch columns, 80 KiB, stay in L1 and L2 until they are appended.
constexpr size_t kWindowParams = 4096;

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

void ExtractQueryParams(const char* data, const ComponentSpans& spans,
                        QueryParams* out) {
  out->Clear();
  // The rows with a query (a SIMD scan of the flags column: a log's rows
  // mostly have none), then their queries' spans.
  thread_local std::vector<uint32_t> rows, begin, end;
  const size_t n = spans.size();
  if (rows.size() < n) rows.resize(n);
  const size_t with_query =
      kernels::RowsWithFlag(spans.flags.data(), n, flags::kHasQuery,
                            rows.data());
  if (begin.size() < with_query) {
    begin.resize(with_query);
    end.resize(with_query);
  }
  size_t queries = 0;
  uint32_t limit = 0;  // the bytes of data the kernel may read
  for (size_t k = 0; k < with_query; ++k) {
    const uint32_t i = rows[k];
    if (!QueryOf(spans, i, &begin[queries], &end[queries])) continue;
    rows[queries] = i;
    limit = std::max(limit, end[queries]);
    ++queries;
  }
  // Split a window of queries at a time into scratch columns that stay in
  // L1, then append them.
  thread_local std::vector<uint32_t> row_of, name_begin, name_end,
      value_begin, value_end;
  size_t k = 0;
  while (k < queries) {
    size_t stop = k, room = 0;
    do {
      room += (end[stop] - begin[stop] + 1) / 2;
      ++stop;
    } while (stop < queries &&
             room + (end[stop] - begin[stop] + 1) / 2 <= kWindowParams);
    if (row_of.size() < room) {
      for (auto* v : {&row_of, &name_begin, &name_end, &value_begin,
                      &value_end})
        v->resize(std::max(room, kWindowParams));
    }
    const size_t found = kernels::SplitQueries(
        reinterpret_cast<const uint8_t*>(data), limit, rows.data() + k,
        begin.data() + k, end.data() + k, stop - k, row_of.data(),
        name_begin.data(), name_end.data(), value_begin.data(),
        value_end.data());
    out->row.insert(out->row.end(), row_of.data(), row_of.data() + found);
    out->name_begin.insert(out->name_begin.end(), name_begin.data(),
                           name_begin.data() + found);
    out->name_end.insert(out->name_end.end(), name_end.data(),
                         name_end.data() + found);
    out->value_begin.insert(out->value_begin.end(), value_begin.data(),
                            value_begin.data() + found);
    out->value_end.insert(out->value_end.end(), value_end.data(),
                          value_end.data() + found);
    k = stop;
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

size_t Decode(std::string_view in, Decoding how, char* out) {
  return kernels::DecodeRun(reinterpret_cast<const uint8_t*>(in.data()),
                            in.size(), reinterpret_cast<uint8_t*>(out),
                            how == Decoding::kForm);
}

void DecodeSpans(const char* data, const uint32_t* begin, const uint32_t* end,
                 size_t count, Decoding how, std::vector<char>* out,
                 std::vector<uint32_t>* offsets) {
  size_t total = 0;
  uint32_t limit = 0;  // every span ends within data's first `limit` bytes
  for (size_t k = 0; k < count; ++k) {
    total += end[k] - begin[k];
    limit = std::max(limit, end[k]);
  }
  out->resize(total + kernels::kDecodePad);
  offsets->resize(count + 1);
  kernels::DecodeSpans(reinterpret_cast<const uint8_t*>(data), limit, begin,
                       end, count, how == Decoding::kForm,
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

std::string_view PathExtension(std::string_view path) {
  const size_t slash = path.rfind('/');
  std::string_view last =
      slash == std::string_view::npos ? path : path.substr(slash + 1);
  // The segment's name, without its parameters (";jsessionid=...").
  last = last.substr(0, std::min(last.find(';'), last.size()));
  const size_t dot = last.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == last.size())
    return {};
  return last.substr(dot + 1);
}

}  // namespace uriscan
