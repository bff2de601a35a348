// SPDX-License-Identifier: MIT
// Query parameters and path segments of a batch from its spans, decoding
// into caller buffers (include/uriscan/analytics.h).
#include "uriscan/analytics.h"

#include <algorithm>
#include <cstring>

#include "kernels/kernels.h"

namespace uriscan {
namespace {

// Bytes of queries whose '&' and '=' masks are made at once: the masks of
// one group (a 32nd of it) stay in L1 while its rows are split.
constexpr size_t kGroupBytes = 64 * 1024;

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

// The first set bit of the mask words at or after bit `pos` and before
// `end` (bit 0 = the byte at the mask's base), `end` when there is none.
uint32_t NextBit(const uint64_t* words, uint32_t pos, uint32_t end) {
  if (pos >= end) return end;
  size_t w = pos / 64;
  uint64_t bits = words[w] & (~uint64_t{0} << (pos % 64));
  const size_t last = (end - 1) / 64;
  while (bits == 0) {
    if (++w > last) return end;
    bits = words[w];
  }
  const uint32_t at = static_cast<uint32_t>(w * 64) +
                      static_cast<uint32_t>(__builtin_ctzll(bits));
  return std::min(at, end);
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
  thread_local std::vector<uint64_t> amp_words, eq_words;
  const auto* bytes = reinterpret_cast<const uint8_t*>(data);
  const size_t n = spans.size();
  size_t i = 0;
  while (i < n) {
    // A group: the rows from i whose queries lie within kGroupBytes of the
    // first query's start (at least one row), masks made over that range.
    uint32_t q = 0, qe = 0;
    while (i < n && !QueryOf(spans, i, &q, &qe)) ++i;
    if (i == n) break;
    const uint32_t base = q;
    uint32_t top = qe;
    size_t stop = i + 1;
    for (; stop < n; ++stop) {
      uint32_t b = 0, e = 0;
      if (!QueryOf(spans, stop, &b, &e)) continue;
      if (b < base || e - base > kGroupBytes) break;
      top = std::max(top, e);
    }
    const size_t words = (top - base + 63) / 64 + 1;
    if (amp_words.size() < words) {
      amp_words.resize(words);
      eq_words.resize(words);
    }
    kernels::DelimMasks(bytes + base, top - base, amp_words.data(),
                        eq_words.data());
    for (; i < stop; ++i) {
      if (!QueryOf(spans, i, &q, &qe)) continue;
      // Bit positions from base.
      const uint32_t end = qe - base;
      uint32_t field = q - base;
      while (field <= end) {
        const uint32_t amp = NextBit(amp_words.data(), field, end);
        if (amp > field) {
          const uint32_t eq = NextBit(eq_words.data(), field, amp);
          AddParam(out, i, base + field, base + eq,
                   base + (eq < amp ? eq + 1 : amp), base + amp);
        }
        field = amp + 1;
      }
    }
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
  for (size_t k = 0; k < count; ++k) total += end[k] - begin[k];
  out->resize(total);
  offsets->resize(count + 1);
  kernels::DecodeSpans(reinterpret_cast<const uint8_t*>(data), begin, end,
                       count, how == Decoding::kForm,
                       reinterpret_cast<uint8_t*>(out->data()),
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
  const std::string_view last =
      slash == std::string_view::npos ? path : path.substr(slash + 1);
  const size_t dot = last.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == last.size())
    return {};
  return last.substr(dot + 1);
}

}  // namespace uriscan
