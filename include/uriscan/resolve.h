// SPDX-License-Identifier: MIT
// Reference resolution (RFC 3986 sec. 5.2) and its inverse, for one reference
// or a whole batch.
#ifndef URISCAN_RESOLVE_H_
#define URISCAN_RESOLVE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "uriscan/export.h"
#include "uriscan/spans.h"
#include "uriscan/uri.h"

namespace uriscan {

// What to do with a ".." segment that would climb above the root of a path
// (RFC 3986 sec. 5.2.4 drops it; the 1997 draft, 001 sec. 5.2 step 6g, lets an
// implementation keep it, drop it or refuse the reference).
enum class AboveRoot : uint8_t {
  kClamp,   // drop it: RFC 3986, the default
  kKeep,    // keep it in the path: "http://a/../g" (001 App. C.2)
  kReject,  // refuse the reference: ResolveStatus::kAboveRoot
};

struct ResolveOptions {
  // RFC 3986 sec. 5.2.2 "non-strict" (backward compatible) parsers: a reference
  // whose scheme equals the base's (case-insensitively) is taken as relative,
  // so "http:g" against "http://a/b/c/d" is "http://a/b/c/g".
  bool nonstrict = false;
  // The 1997 draft's algorithm (draft-fielding-uri-syntax-01 sec. 5.2): an
  // empty reference (fragment aside) is the current document, the base
  // query is never inherited, dot segments are removed only from merged
  // relative paths. Use with above_root = kKeep to get its App. C.
  bool draft_1997 = false;
  AboveRoot above_root = AboveRoot::kClamp;
};

enum class ResolveStatus : uint8_t {
  kOk,
  kBadBase,       // the base is invalid or has no scheme (sec. 5.1: absolute)
  kBadReference,  // the reference is invalid
  kAboveRoot,     // ".." above the root with AboveRoot::kReject
  kSameDocument,  // draft_1997 only: a reference to the current document;
                  // the output holds just "#fragment" (or nothing)
};
URISCAN_EXPORT const char* ResolveStatusName(ResolveStatus status);

// remove_dot_segments (sec. 5.2.4), appended to *out. Returns false only with
// AboveRoot::kReject when a ".." climbs above the root (out is then
// unspecified). With kClamp it is exactly the RFC's algorithm.
URISCAN_EXPORT bool RemoveDotSegments(std::string_view path,
                                      AboveRoot above_root, std::string* out);

// Resolves `ref` against `base` (sec. 5.2.2, recomposed as in sec. 5.3) and
// appends the target URI to *out. A base fragment is ignored (sec. 5.1). On
// any status but kOk and kSameDocument nothing is appended.
[[nodiscard]] URISCAN_EXPORT ResolveStatus
Resolve(const UriReference& base, const UriReference& ref,
        const ResolveOptions& options, std::string* out);
// Convenience: parses both, returns the target or "" with *status set.
[[nodiscard]] URISCAN_EXPORT std::string Resolve(
    std::string_view base, std::string_view ref,
    ResolveStatus* status = nullptr, const ResolveOptions& options = {});

// The inverse: the shortest reference r (by length; a relative one when the
// target shares the base's scheme) with Resolve(base, r) == target for the
// strict RFC algorithm. `target` must be a valid absolute URI and `base`
// one too; returns false (and appends nothing) when either is not. When
// the target's path has dot segments, or cannot be reached by a relative
// reference, the result is the target itself or its network-path form.
[[nodiscard]] URISCAN_EXPORT bool Relativize(const UriReference& base,
                                             const UriReference& target,
                                             std::string* out);

// A batch of resolved URIs: data + offsets (row i is [offsets[i],
// offsets[i+1])) plus a status per row. Rows that did not resolve are
// empty unless `keep_errors` echoed the reference.
struct ResolvedBatch {
  std::string data;
  std::vector<uint32_t> offsets{0};
  std::vector<ResolveStatus> status;
  size_t size() const { return status.size(); }
  std::string_view Get(size_t i) const {
    return std::string_view(data).substr(offsets[i],
                                         offsets[i + 1] - offsets[i]);
  }
};

// Every reference of `refs` (scanned into `ref_spans`) against one base.
// Rows are read where the spans say, so refs.offsets may be null (spans
// from Scanner::ScanLines() over refs.data). With keep_errors an unresolved row holds the reference unchanged, so line
// alignment is kept for callers that echo it. `*out` is replaced, its
// capacity reused.
URISCAN_EXPORT void ResolveBatch(const UriReference& base, const Batch& refs,
                                 const ComponentSpans& ref_spans,
                                 const ResolveOptions& options,
                                 bool keep_errors, ResolvedBatch* out);
// Row i of `refs` against row i of `bases` (same count).
URISCAN_EXPORT void ResolveBatch(const Batch& bases,
                                 const ComponentSpans& base_spans,
                                 const Batch& refs,
                                 const ComponentSpans& ref_spans,
                                 const ResolveOptions& options,
                                 bool keep_errors, ResolvedBatch* out);

}  // namespace uriscan

#endif  // URISCAN_RESOLVE_H_
