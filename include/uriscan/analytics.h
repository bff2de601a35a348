// SPDX-License-Identifier: MIT
// Log analytics from spans: a batch's query parameters and path segments as
// columns, percent- and form-decoding into caller buffers, host parts.
#ifndef URISCAN_ANALYTICS_H_
#define URISCAN_ANALYTICS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "uriscan/export.h"
#include "uriscan/spans.h"

namespace uriscan {

// The query parameters of a batch, one row per parameter, in the order of
// the batch's rows and of each query. Offsets are absolute, into the
// scanned bytes (as every span column), so the name of parameter k is
// [name_begin[k], name_end[k]) of the batch's data:
//
//   http://h/p?q=a+b&&lang&x=1=2#f
//              ^^^  ^
//              |||  value_end (the '&')
//              ||value_begin
//              |name_end (the '=')
//              name_begin
//   "lang" has no '=': its value is empty, value_begin = value_end =
//   name_end. "x" has the value "1=2" (a field splits at its first '=').
//
// A query splits on '&' into fields and a field at its first '=' into name
// and value; empty fields (two '&' in a row, a trailing '&') give no row;
// ';' is no separator. Rows that are invalid or have no query give none.
struct URISCAN_EXPORT QueryParams {
  std::vector<uint32_t> row;  // the batch row the parameter is in
  std::vector<uint32_t> name_begin, name_end, value_begin, value_end;

  size_t size() const { return row.size(); }
  void Clear();
};

// The parameters of every row of `spans`, a scan of bytes at `data`; '&'
// and '=' are found with SIMD bitmasks over the queries' bytes. `*out` is
// replaced, its capacity reused.
URISCAN_EXPORT void ExtractQueryParams(const char* data,
                                       const ComponentSpans& spans,
                                       QueryParams* out);
// The same, byte by byte: the reference the SIMD form is tested against.
URISCAN_EXPORT void ExtractQueryParamsScalar(const char* data,
                                             const ComponentSpans& spans,
                                             QueryParams* out);

// The segments of every valid row's path, one row per segment: the path
// split on '/', the empty first segment of an absolute path dropped, a
// trailing empty one kept ("/a/b/" gives "a", "b", ""; an empty path none).
struct URISCAN_EXPORT PathSegments {
  std::vector<uint32_t> row, begin, end;  // absolute offsets, as QueryParams

  size_t size() const { return row.size(); }
  void Clear();
};
URISCAN_EXPORT void ExtractPathSegments(const char* data,
                                        const ComponentSpans& spans,
                                        PathSegments* out);

// How decoding reads a '+': kPercent keeps it (paths, fragments, whole
// queries), kForm makes it a space first (application/x-www-form-urlencoded,
// for parameter names and values). Both turn "%HH" into that byte; a '%'
// without two hex digits after it stays as it is.
enum class Decoding : uint8_t { kPercent, kForm };

// Decodes `in` into out, which has room for in.size() bytes (decoding never
// grows text); returns the bytes written. Runs of bytes with nothing to
// decode are copied a SIMD vector at a time.
URISCAN_EXPORT size_t Decode(std::string_view in, Decoding how, char* out);
// Decode() of the spans [begin[k], end[k]) of data, k < count, back to back
// into `*out`; decoded span k is [(*offsets)[k], (*offsets)[k + 1]). Both
// vectors are replaced, their capacity reused. One dispatch per call.
URISCAN_EXPORT void DecodeSpans(const char* data, const uint32_t* begin,
                                const uint32_t* end, size_t count,
                                Decoding how, std::vector<char>* out,
                                std::vector<uint32_t>* offsets);

// The host without one leading "www." (any case); the host itself when it
// has none.
URISCAN_EXPORT std::string_view HostWithoutWww(std::string_view host);
// The extension of a path's last segment: the text after the last '.' of
// its name (the segment before any ';' parameter: "index.jsp;jsessionid=A"
// gives "jsp"), when that '.' is neither the name's first byte nor its
// last ("" otherwise: ".bashrc", "a.", "dir/"). On the raw path, so an
// encoded "%2F" is no separator.
URISCAN_EXPORT std::string_view PathExtension(std::string_view path);

}  // namespace uriscan

#endif  // URISCAN_ANALYTICS_H_
