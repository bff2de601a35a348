// SPDX-License-Identifier: MIT
// Log analytics from spans: a batch's query parameters and path segments as
// columns, percent- and form-decoding into caller buffers, host parts.
#ifndef URISCAN_ANALYTICS_H_
#define URISCAN_ANALYTICS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
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
  // Where each of `rows` rows' parameters begin: row i's are
  // [(*start)[i], (*start)[i + 1]) (the parameters come in row order).
  void RowStarts(size_t rows, std::vector<uint32_t>* start) const;
};

// The parameters of every row of `spans`, a scan of bytes at `data`; '&'
// and '=' are found with SIMD bitmasks over the queries' bytes. `*out` is
// replaced, its capacity reused. Rows whose query is longer than
// `longest_query` bytes give none (see QueryParamWindows).
URISCAN_EXPORT void ExtractQueryParams(const char* data,
                                       const ComponentSpans& spans,
                                       QueryParams* out,
                                       size_t longest_query = SIZE_MAX);
// The same, byte by byte: the reference the SIMD form is tested against.
URISCAN_EXPORT void ExtractQueryParamsScalar(const char* data,
                                             const ComponentSpans& spans,
                                             QueryParams* out);

// The same parameters a window at a time, so that a query of millions of
// parameters needs no column as long as it: Next() replaces *out with the
// next parameters in order, at most kWindowParams of them (a long query's
// continue in the next window), and is false when none are left. Queries
// longer than `longest_query` bytes are skipped (their rows give no
// parameters here: the caller walks them with ForEachQueryField()). The
// span columns and the bytes must outlive the object.
class URISCAN_EXPORT QueryParamWindows {
 public:
  // The parameters one window holds: its five columns, 80 KiB, stay in L1
  // and L2.
  static constexpr size_t kWindowParams = 4096;

  QueryParamWindows() = default;
  QueryParamWindows(const char* data, const ComponentSpans& spans,
                    size_t longest_query = SIZE_MAX);
  // Starts over on another scan, the columns' capacity kept.
  void Reset(const char* data, const ComponentSpans& spans,
             size_t longest_query = SIZE_MAX);
  bool Next(QueryParams* out);

 private:
  bool NextPieces(QueryParams* out);  // one window, empty or not
  const char* data_ = nullptr;
  std::vector<uint32_t> rows_, begin_, end_;  // the queries to split
  uint32_t limit_ = 0;  // the bytes of data the kernel may read
  size_t next_ = 0;     // the query the next window begins in
  uint32_t at_ = 0;     // and where in it
  std::vector<uint32_t> piece_row_, piece_begin_, piece_end_;
};

// The fields of one query (its text after '?', before any '#'), walked in
// place with the split above: visit(name, value) for each, both as written,
// until visit returns false.
template <class Visit>
void ForEachQueryField(std::string_view query, Visit visit) {
  while (!query.empty()) {
    const size_t amp = std::min(query.find('&'), query.size());
    const std::string_view field = query.substr(0, amp);
    query.remove_prefix(std::min(amp + 1, query.size()));
    if (field.empty()) continue;
    const size_t eq = std::min(field.find('='), field.size());
    const std::string_view value =
        eq < field.size() ? field.substr(eq + 1) : std::string_view();
    if (!visit(field.substr(0, eq), value)) return;
  }
}

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

// Which bytes decoding gives. Never a NUL: "%00" stays "%00", so decoded
// text is a C string and a line of every text format. kUtf8 (the default)
// gives valid UTF-8 for ASCII input: the escapes of a well-formed UTF-8
// character (RFC 3629) are decoded together, and an escape that is part of
// none ("%E9" alone, an overlong form, a surrogate) stays as written, so
// the text loads into any UTF-8 database and decodes back to the same
// bytes. kRaw gives every other escaped byte as it is.
enum class DecodedBytes : uint8_t { kUtf8, kRaw };

// Decodes `in` into out, which has room for in.size() bytes (decoding never
// grows text); returns the bytes written. Runs of bytes with nothing to
// decode are copied a SIMD vector at a time.
URISCAN_EXPORT size_t Decode(std::string_view in, Decoding how, char* out,
                             DecodedBytes bytes = DecodedBytes::kUtf8);
// Decode() of the spans [begin[k], end[k]) of data, k < count, back to back
// into `*out`; decoded span k is [(*offsets)[k], (*offsets)[k + 1]). Both
// vectors are replaced, their capacity reused. One dispatch per call.
URISCAN_EXPORT void DecodeSpans(const char* data, const uint32_t* begin,
                                const uint32_t* end, size_t count,
                                Decoding how, std::vector<char>* out,
                                std::vector<uint32_t>* offsets,
                                DecodedBytes bytes = DecodedBytes::kUtf8);

// The host without one leading "www." (any case); the host itself when it
// has none.
URISCAN_EXPORT std::string_view HostWithoutWww(std::string_view host);
// The extension of a path's last segment: the text after the last '.' of
// its name (the segment before any ';' parameter: "index.jsp;jsessionid=A"
// gives "jsp"), when that '.' is neither the name's first byte nor its
// last ("" otherwise: ".bashrc", "a.", "dir/"). On the raw path, so an
// encoded "%2F" is no separator; but an extension never holds one (it
// would decode to '/'): "/a%2Fb.c%2Fd" has none.
URISCAN_EXPORT std::string_view PathExtension(std::string_view path);

// The raw segments of a path (as ExtractPathSegments splits them): "/a/b/"
// gives "a", "b", ""; "" none. Views into `path`.
URISCAN_EXPORT std::vector<std::string_view> PathSegmentsOf(
    std::string_view path);

// Appends `text` with every byte but RFC 3986's unreserved characters
// (ALPHA, DIGIT, "-", ".", "_", "~") percent-encoded, upper-case hex
// (section 2.1): what a component's data needs to become any one component.
URISCAN_EXPORT void AppendPercentEncoded(std::string_view text,
                                         std::string* out);

// The prefixes of a valid reference that end at a path segment, then the
// whole path, then with its query: "http://a/b/c?q#f" gives "http://a/",
// "http://a/b/", "http://a/b/c", "http://a/b/c?q" (views into its text; the
// fragment is never in one). With `path_only`, from the path on and
// without the root: "/b/", "/b/c", "/b/c?q". Empty for an invalid
// reference, and (whole) for one without a scheme and authority.
URISCAN_EXPORT std::vector<std::string_view> UriHierarchy(
    const UriReference& uri, bool path_only);

}  // namespace uriscan

#endif  // URISCAN_ANALYTICS_H_
