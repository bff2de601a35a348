// SPDX-License-Identifier: MIT
// Normalization (RFC 3986 sec. 6.2.2 and sec. 6.2.3) under named, versioned
// profiles, on one URI or a whole batch, and the equivalence ladder.
#ifndef URISCAN_NORMALIZE_H_
#define URISCAN_NORMALIZE_H_

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "uriscan/export.h"
#include "uriscan/spans.h"
#include "uriscan/uri.h"

namespace uriscan {

// The profiles of docs/design.md, "Profiles". Each is idempotent.
//  syntax:  sec. 6.2.2 exactly: lowercase scheme and host, uppercase the hex of
//           every pct-encoded triplet, decode the ones that encode an
//           unreserved character, remove_dot_segments. An empty port or path
//           is kept.
//  scheme:  syntax, then sec. 6.2.3 for the schemes in normalize.cc's table:
//           drop an empty port (any scheme) and a default one; an empty path
//           with an authority becomes "/" (http, https, ws, wss);
//           "file://localhost/x" becomes "file:///x"; a mailto domain is
//           lowercased. Other schemes are left alone.
//  crawler: scheme, then what crawler frontiers merge: no fragment, query
//           parameters without tracking and session ones (NormalizeOptions;
//           names compared without case), sorted by name (stable,
//           byte-wise), empty ones dropped, no ";jsessionid=" path
//           parameter, no trailing "." on a host name, an IPv4 address in
//           any inet_aton form as its dotted quad, and with
//           NormalizeOptions::fold_www no leading "www.". Not an RFC
//           equivalence: the URL to fetch is the original, which the batch
//           API keeps beside the key.
//  w3lib:   byte for byte what w3lib.url.canonicalize_url (w3lib 2.1, the
//           canonical form behind Scrapy's request fingerprints) returns
//           for a valid http or https reference with its defaults; other
//           valid references get the same steps with Python's urllib tables
//           for their scheme, and so does an invalid one that w3lib
//           canonicalizes ("?p[]=1"), split as urllib splits it: the only
//           profile with a form for an invalid reference. Not idempotent
//           where w3lib is not (docs/cli.md lists the cases); its output
//           need not be a valid reference.
enum class Profile : uint8_t { kSyntax, kScheme, kCrawler, kW3lib };
inline constexpr int kProfileCount = 4;
// Bumped whenever a profile's output changes for some input; mixed into
// fingerprints with the profile's name.
// 2: the crawler profile drops an empty query ("http://a/?" is "http://a/").
// 3: the crawler profile drops session ids, matches tracking names without
//    case and writes inet_aton IPv4 forms as dotted quads; the w3lib profile.
// 4: the crawler profile drops a session id by its value's shape, as the
//    crawlers' canonicalizers do ("sid=05/12/01/1234" stays), a cfid and
//    cftoken pair, and ASP.NET's cookieless path segment.
inline constexpr uint32_t kProfileVersion = 4;
// "syntax", "scheme", "crawler", "w3lib"
URISCAN_EXPORT const char* ProfileName(Profile profile);
URISCAN_EXPORT bool ParseProfile(std::string_view name, Profile* profile);

struct NormalizeOptions {
  // Query parameter names the crawler profile drops; a trailing '*' makes a
  // prefix. Compared without ASCII case with the parameter's name after
  // sec. 6.2.2 normalization. `uriscan normalize --help` prints this list.
  std::vector<std::string> tracking_params = DefaultTrackingParams();
  // The crawler profile drops one leading "www." of a host name: off by
  // default, as www.example.com and example.com may serve different pages.
  bool fold_www = false;

  static std::vector<std::string> DefaultTrackingParams() {
    return {"utm_*", "gclid",  "gclsrc", "dclid",  "fbclid", "msclkid",
            "yclid", "igshid", "mc_cid", "mc_eid", "_ga",    "_gl"};
  }
};

// The names of the session-id query parameters the crawler profile drops
// (compared without case, '*' a prefix), each when its value has a session
// id's shape: jsessionid, phpsessid and sid with 32 letters and digits,
// aspsessionid and 8 letters with 24 letters; cfid and cftoken as a pair,
// one right after the other. The path parameter ";jsessionid" goes from
// any path segment whatever its value, and ASP.NET's cookieless segment
// "/(S(24 letters or digits))/" before an .aspx page.
URISCAN_EXPORT const std::vector<std::string>& SessionParams();

// Appends the normal form of `uri` to *out. Returns false (appending
// nothing) when `uri` is invalid.
[[nodiscard]] URISCAN_EXPORT bool Normalize(
    const UriReference& uri, Profile profile, std::string* out,
    const NormalizeOptions& options = {});
[[nodiscard]] URISCAN_EXPORT std::string Normalize(
    std::string_view text, Profile profile,
    const NormalizeOptions& options = {});  // "" if invalid

// The rungs of the sec. 6.2 comparison ladder, cheapest first.
enum class Rung : uint8_t {
  kIdentical,  // sec. 6.2.1 simple string comparison
  kSyntax,     // equal after syntax-based normalization (sec. 6.2.2)
  kScheme,     // equal after scheme-based normalization (sec. 6.2.3)
  kCrawler,    // equal only as crawler dedup keys (not an RFC equivalence)
  kDifferent,  // not equal on any rung up to the one asked for
};
URISCAN_EXPORT const char* RungName(Rung rung);
// The first rung at which `a` and `b` become equal, trying rungs up to
// `up_to` (kSyntax, kScheme or kCrawler). Invalid references are only ever
// kIdentical (same bytes) or kDifferent.
URISCAN_EXPORT Rung Compare(std::string_view a, std::string_view b,
                            Profile up_to = Profile::kScheme,
                            const NormalizeOptions& options = {});

// The output of NormalizeBatch: a batch of normal forms in one arena (a
// mimalloc heap inside the library, released at once), and their
// ComponentSpans. Row i is the normal form of input row i; an invalid input
// row is copied unchanged and keeps its error in spans(). For the crawler
// profile, original(i) is the input row (the URL to fetch), so the input
// bytes and their spans must outlive it.
//
// Threads: a mimalloc heap allocates only on the thread that made it, and
// each NormalizeBatch() call into a NormalizedBatch makes a fresh heap on the
// calling thread after releasing the previous one. So fill a NormalizedBatch
// and destroy it on one thread (a thread_local one per worker is the usual
// shape); keep it from outliving that thread. Between fills, any thread
// may read its rows and spans.
class URISCAN_EXPORT NormalizedBatch {
 public:
  NormalizedBatch();
  ~NormalizedBatch();
  NormalizedBatch(const NormalizedBatch&) = delete;
  NormalizedBatch& operator=(const NormalizedBatch&) = delete;

  size_t size() const { return count_; }
  Batch view() const { return Batch{data_, offsets_, count_}; }
  std::string_view Get(size_t i) const { return view().Get(i); }
  std::string_view original(size_t i) const {
    return input_spans_->Row(i, input_).text();
  }
  const ComponentSpans& spans() const { return spans_; }
  // Rows copied as they were (already normal, or invalid) and rows
  // rewritten, for the last batch.
  size_t copied() const { return copied_; }

 private:
  friend void NormalizeBatch(const Batch&, const ComponentSpans&, Profile,
                             NormalizedBatch*, const NormalizeOptions&);
  void Reset(size_t rows, size_t bytes);
  char* Reserve(size_t more);  // room for `more` bytes at data_ + size_

  struct Arena;  // the mimalloc heap (normalize.cc)
  std::unique_ptr<Arena> arena_;
  char* data_ = nullptr;
  size_t size_ = 0, capacity_ = 0;
  uint32_t* offsets_ = nullptr;
  size_t count_ = 0;
  size_t copied_ = 0;
  const char* input_ = nullptr;
  const ComponentSpans* input_spans_ = nullptr;
  ComponentSpans spans_;
};

// Normalizes every row of `in` (scanned into `in_spans`). Rows whose flags
// show they are already normal under `profile` are copied with their spans
// shifted, not re-parsed. *out is replaced. Rows are read where in_spans
// says, from in.data, so in.offsets may be null: spans from
// Scanner::ScanLines() work as they are.
URISCAN_EXPORT void NormalizeBatch(const Batch& in,
                                   const ComponentSpans& in_spans,
                                   Profile profile, NormalizedBatch* out,
                                   const NormalizeOptions& options = {});

// Which rows of `in` (scanned into `in_spans`) are their own normal form
// under `profile` as they stand, from their flags and columns: (*as_is)[i]
// is 1 for such a valid row, 0 for the others (an invalid row, or one that
// may need a rewrite: Normalize() it to know). For a caller that writes the
// normal forms itself, copying runs of as-is rows in one piece and
// normalizing the rest, with no arena and no spans of the output.
URISCAN_EXPORT void MarkAlreadyNormal(const Batch& in,
                                      const ComponentSpans& in_spans,
                                      Profile profile,
                                      std::vector<uint8_t>* as_is,
                                      const NormalizeOptions& options = {});

// Stopping a long call on one huge reference. The crawler and w3lib
// profiles (Normalize(), their keys) and AppendIaSurt() split and sort a
// query's fields: a reference of millions of them takes seconds. Every
// few thousand fields and comparisons they ask the check set for the
// calling thread, and throw Interrupted when it answers true (what they
// were writing is then unspecified). A database's cancel or a time limit
// is such a check; there is none by default, and a null `check` removes
// the thread's.
struct URISCAN_EXPORT Interrupted : std::exception {
  const char* what() const noexcept override;
};
URISCAN_EXPORT void SetInterruptCheck(bool (*check)());
// Asks the calling thread's check, if it has one: true when it says to
// stop (what the long loops above and LogReader's waits ask).
URISCAN_EXPORT bool InterruptRequested();

}  // namespace uriscan

#endif  // URISCAN_NORMALIZE_H_
