// SPDX-License-Identifier: MIT
// The normalization profiles (RFC 3986 sec. 6.2.2, sec. 6.2.3 and the crawler's
// extras), batch normalization into a mimalloc arena, and the ladder.
#include "uriscan/normalize.h"

#if URISCAN_MIMALLOC_ARENAS
#include <mimalloc.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "src/transform/already_normal.h"
#include "src/transform/scratch.h"
#include "src/transform/surt.h"
#include "src/char_class.h"
#include "src/parse/ip_value.h"
#include "src/transform/w3lib.h"
#include "uriscan/hosts.h"
#include "uriscan/resolve.h"

namespace uriscan {

namespace internal {
thread_local bool (*interrupt_check)() = nullptr;
}  // namespace internal

const char* Interrupted::what() const noexcept {
  return "uriscan: interrupted";
}

void SetInterruptCheck(bool (*check)()) { internal::interrupt_check = check; }

void internal::ReturnFreedMemory() {
#if URISCAN_MIMALLOC_ARENAS
  mi_collect(true);
#endif
}

bool InterruptRequested() {
  return internal::interrupt_check && internal::interrupt_check();
}

namespace {

// sec. 6.2.3 for the schemes we know; anything else is left alone.
struct SchemeRule {
  std::string_view name;
  uint32_t default_port;
  bool empty_path_is_slash;  // an empty path with an authority means "/"
};
constexpr SchemeRule kSchemes[] = {
    {"http", 80, true},    {"https", 443, true}, {"ws", 80, true},
    {"wss", 443, true},    {"ftp", 21, false},   {"gopher", 70, false},
    {"telnet", 23, false}, {"ldap", 389, false}, {"ldaps", 636, false},
    {"nntp", 119, false},  {"rtsp", 554, false}, {"imap", 143, false},
    {"pop", 110, false},   {"ssh", 22, false},   {"sftp", 22, false},
    {"git", 9418, false},
};

const SchemeRule* FindScheme(std::string_view lower_scheme) {
  for (const SchemeRule& r : kSchemes)
    if (r.name == lower_scheme) return &r;
  return nullptr;
}

char Lower(char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }
char Upper(char c) { return c >= 'a' && c <= 'z' ? c - 32 : c; }

// sec. 6.2.2.1 and sec. 6.2.2.2 over one component of a valid reference: every
// triplet's hex uppercased, unreserved ones decoded; with `lower` (scheme,
// host) letters outside triplets are lowercased too.
void AppendPctNormal(std::string_view s, bool lower, std::string* out) {
  if (!lower && s.find('%') == std::string_view::npos) {
    out->append(s);
    return;
  }
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '%' && i + 2 < s.size()) {  // a valid reference's triplet
      const unsigned char v = static_cast<unsigned char>(
          chars::HexValue(s[i + 1]) * 16 + chars::HexValue(s[i + 2]));
      if (chars::Is(v, chars::kUnreserved)) {
        out->push_back(lower ? Lower(static_cast<char>(v))
                             : static_cast<char>(v));
      } else {
        out->push_back('%');
        out->push_back(Upper(s[i + 1]));
        out->push_back(Upper(s[i + 2]));
      }
      i += 2;
    } else {
      out->push_back(lower ? Lower(c) : c);
    }
  }
}

// remove_dot_segments for a rootless relative-path reference, which the
// RFC's algorithm would make absolute ("a/../b" gives "/b"): the path is
// treated as if under a root, excess ".." are kept (they climb from the
// base), and "./" goes first when the result would read otherwise (empty,
// a first segment with ':', or a leading "/").
void AppendRelativePathDotFree(std::string_view path, std::string* out) {
  std::string rooted = "/";
  rooted.append(path);
  std::string clean;
  RemoveDotSegments(rooted, AboveRoot::kKeep, &clean);
  std::string_view rel = std::string_view(clean).substr(1);
  const size_t colon = rel.find(':'), slash = rel.find('/');
  if ((rel.empty() && !path.empty()) || (!rel.empty() && rel[0] == '/') ||
      (colon != std::string_view::npos && colon < slash)) {
    out->append("./");
  }
  out->append(rel);
}

// `name` equals `pattern` without ASCII case; a trailing '*' in `pattern`
// makes it a prefix.
bool NameMatches(std::string_view name, std::string_view pattern) {
  if (!pattern.empty() && pattern.back() == '*') {
    pattern.remove_suffix(1);
    if (name.size() < pattern.size()) return false;
    name = name.substr(0, pattern.size());
  } else if (name.size() != pattern.size()) {
    return false;
  }
  for (size_t k = 0; k < name.size(); ++k)
    if (Lower(name[k]) != Lower(pattern[k])) return false;
  return true;
}

bool ParamMatches(std::string_view name,
                  const std::vector<std::string>& patterns) {
  for (const std::string& p : patterns)
    if (!p.empty() && NameMatches(name, p)) return true;
  return false;
}

std::string_view ParamName(std::string_view param) {
  return param.substr(0, param.find('='));
}

// Past this, a query's parameter list is sized before it is filled and
// let go after (a line of millions of parameters).
constexpr size_t kLongQueryBytes = size_t{1} << 16;

// The value of a "name=value" parameter ("" without '=').
std::string_view ParamValue(std::string_view param) {
  const size_t eq = param.find('=');
  return eq == std::string_view::npos ? std::string_view()
                                      : param.substr(eq + 1);
}

bool AllOf(std::string_view s, size_t n, uint32_t char_class) {
  if (s.size() != n) return false;
  for (char c : s)
    if (!chars::Is(static_cast<unsigned char>(c), char_class)) return false;
  return true;
}

// A session id by its name and the shape of its value, as the crawlers'
// canonicalizers (Heritrix, the Internet Archive's surt) tell one: a value
// of another shape is data ("sid=05/12/01/1234" names a story).
bool IsSessionId(std::string_view param) {
  const std::string_view name = ParamName(param), value = ParamValue(param);
  if (NameMatches(name, "jsessionid") || NameMatches(name, "phpsessid") ||
      NameMatches(name, "sid"))
    return AllOf(value, 32, chars::kAlpha | chars::kDigit);
  // ASPSESSIONIDxxxxxxxx: eight letters after the name, 24 in the value.
  return NameMatches(name, "aspsessionid*") && name.size() == 20 &&
         AllOf(name.substr(12), 8, chars::kAlpha) &&
         AllOf(value, 24, chars::kAlpha);
}

// The kept parameters of `query`, each by its first byte alone (4 bytes a
// parameter however many a line has; a query of 4 GiB or more takes 8),
// its name and end found as they are needed; then '?' and them, sorted by
// name, equal names in their order (std::sort needs no buffer where
// std::stable_sort takes one as long as the list; the offset breaks ties).
template <class Offset>
bool AppendCrawlerQueryAs(std::string_view query, const NormalizeOptions& opt,
                          std::string* out) {
  thread_local std::vector<Offset> kept;
  // Let go after a long query, also when an interrupt throws out of here.
  const internal::LetGoIfLarge<std::vector<Offset>> let_go(kept);
  kept.clear();
  if (query.size() > kLongQueryBytes) {
    kept.reserve(std::count(query.begin(), query.end(), '&') + 1);
    out->reserve(out->size() + 1 + query.size());  // grown without a copy
  }
  size_t begin = 0, steps = 0;
  bool drop_cftoken = false;  // the parameter before was a dropped cfid
  while (begin <= query.size()) {
    internal::Step(&steps);
    size_t end = query.find('&', begin);
    if (end == std::string_view::npos) end = query.size();
    const std::string_view p = query.substr(begin, end - begin);
    const size_t first = begin;
    begin = end + 1;
    if (p.empty()) continue;
    const std::string_view name = ParamName(p);
    // ColdFusion's pair: "cfid=N&cftoken=M", both or neither.
    if (drop_cftoken && NameMatches(name, "cftoken") &&
        !ParamValue(p).empty()) {
      drop_cftoken = false;
      continue;
    }
    drop_cftoken = false;
    if (NameMatches(name, "cfid") && !ParamValue(p).empty()) {
      const size_t next_end = std::min(query.find('&', begin), query.size());
      const std::string_view next =
          begin <= query.size() ? query.substr(begin, next_end - begin)
                                : std::string_view();
      if (NameMatches(ParamName(next), "cftoken") &&
          !ParamValue(next).empty()) {
        drop_cftoken = true;
        continue;
      }
    }
    if (!ParamMatches(name, opt.tracking_params) && !IsSessionId(p))
      kept.push_back(static_cast<Offset>(first));
  }
  if (kept.empty()) return false;
  const char* const q = query.data();
  const size_t n = query.size();
  const auto name_at = [q, n](Offset at) {
    size_t e = at;
    while (e < n && q[e] != '=' && q[e] != '&') ++e;
    return std::string_view(q + at, e - at);
  };
  std::sort(kept.begin(), kept.end(), [&](Offset a, Offset b) {
    internal::Step(&steps);
    const int c = name_at(a).compare(name_at(b));
    return c < 0 || (c == 0 && a < b);
  });
  out->push_back('?');
  for (size_t i = 0; i < kept.size(); ++i) {
    if (i) out->push_back('&');
    size_t e = kept[i];
    while (e < n && q[e] != '&') ++e;
    out->append(q + kept[i], e - kept[i]);
  }
  return true;
}

// The crawler's query: tracking, session-id and empty parameters out, the
// rest sorted by name (stable, byte-wise). Returns false when no parameter
// is left: the whole query is then dropped, so "?", "?&" and
// "?utm_source=1" all merge with no query at all.
bool AppendCrawlerQuery(std::string_view query, const NormalizeOptions& opt,
                        std::string* out) {
  return query.size() <= UINT32_MAX
             ? AppendCrawlerQueryAs<uint32_t>(query, opt, out)
             : AppendCrawlerQueryAs<size_t>(query, opt, out);
}

// Servlet containers put the session in the path: "/a;jsessionid=X?q".
// Every ";jsessionid" parameter (name without case, with or without a
// value) of every segment of the path written from `begin` is removed.
void DropPathSessionIds(size_t begin, std::string* out) {
  // One pass, the kept bytes moved down as it goes (erasing each match in
  // place would move the rest of the path once per match: quadratic).
  char* const s = out->data();
  const size_t n = out->size();
  size_t i = out->find(';', begin);
  if (i == std::string::npos) return;
  size_t w = i;  // where the next kept byte goes
  while (i < n) {
    // s[i] is a ';': the parameter runs to the next ';', '/' or the end.
    size_t end = i + 1;
    while (end < n && s[end] != ';' && s[end] != '/') ++end;
    const std::string_view param(s + i + 1, end - i - 1);
    const bool drop = NameMatches(ParamName(param), "jsessionid");
    // Then what follows up to the next ';' is kept as it is.
    size_t next = end;
    while (next < n && s[next] != ';') ++next;
    const size_t from = drop ? end : i;
    std::memmove(s + w, s + from, next - from);
    w += next - from;
    i = next;
  }
  out->resize(w);
}

// The crawler's host rules on a lower-cased reg-name: a name of
// percent-encoded UTF-8 in IDNA A-labels as the surt column maps it
// (AppendIdnaHost), no trailing dots, an IPv4 address in any inet_aton form (or the WHATWG
// reading the ip-rare-form risk flag uses) as its dotted quad, and with
// fold_www no leading "www.".
void CrawlerHost(const NormalizeOptions& options, std::string* host) {
  if (host->find('%') != std::string::npos) {
    thread_local std::string ace;
    ace.clear();
    if (AppendIdnaHost(*host, &ace)) host->swap(ace);
  }
  size_t n = host->size();
  while (n > 0 && (*host)[n - 1] == '.') --n;
  if (n > 0) host->resize(n);  // "example.com." is "example.com"
  if (auto v = ip::ParseRegNameIPv4(*host)) {
    host->clear();
    for (int shift = 24; shift >= 0; shift -= 8) {
      host->append(std::to_string((*v >> shift) & 0xff));
      if (shift) host->push_back('.');
    }
  } else if (options.fold_www && host->size() > 4 &&
             host->compare(0, 4, "www.") == 0) {
    host->erase(0, 4);
  }
}

bool IsLocalhost(std::string_view host) { return host == "localhost"; }

}  // namespace

const std::vector<std::string>& SessionParams() {
  static const std::vector<std::string> names = {
      "jsessionid", "phpsessid", "sid", "aspsessionid*", "cfid", "cftoken"};
  return names;
}

const char* ProfileName(Profile profile) {
  switch (profile) {
    case Profile::kSyntax: return "syntax";
    case Profile::kScheme: return "scheme";
    case Profile::kCrawler: return "crawler";
    case Profile::kW3lib: return "w3lib";
  }
  return "?";
}

bool ParseProfile(std::string_view name, Profile* profile) {
  for (Profile p : {Profile::kSyntax, Profile::kScheme, Profile::kCrawler,
                    Profile::kW3lib}) {
    if (name == ProfileName(p)) {
      *profile = p;
      return true;
    }
  }
  return false;
}

const char* RungName(Rung rung) {
  switch (rung) {
    case Rung::kIdentical: return "identical";
    case Rung::kSyntax: return "syntax";
    case Rung::kScheme: return "scheme";
    case Rung::kCrawler: return "crawler";
    case Rung::kDifferent: return "different";
  }
  return "?";
}

bool Normalize(const UriReference& uri, Profile profile, std::string* out,
               const NormalizeOptions& options) {
  if (profile == Profile::kW3lib) {
    // w3lib canonicalizes what RFC 3986 refuses too ("?a[]=1", a '"'),
    // but for a line too long, which no one reads whole.
    if (!uri.valid())
      return uri.error().kind != ErrorKind::kTooLong &&
             AppendW3libCanonicalOfText(uri.text(), out);
    AppendW3libCanonical(uri, out);
    return true;
  }
  if (!uri.valid()) return false;
  const bool by_scheme = profile != Profile::kSyntax;
  const bool crawler = profile == Profile::kCrawler;
  thread_local std::string scheme, host, path;
  const internal::LetGoIfLarge<std::string> let_go_host(host), let_go_path(path);
  scheme.clear();
  host.clear();
  path.clear();
  const SchemeRule* rule = nullptr;
  if (uri.scheme()) {
    AppendPctNormal(*uri.scheme(), true, &scheme);
    out->append(scheme);
    out->push_back(':');
    if (by_scheme) rule = FindScheme(scheme);
  }
  const bool authority = uri.authority().has_value();
  if (authority) {
    out->append("//");
    if (uri.userinfo()) {
      AppendPctNormal(*uri.userinfo(), false, out);
      out->push_back('@');
    }
    AppendPctNormal(*uri.host(), true, &host);
    if (crawler && uri.host_kind() == HostKind::kRegName)
      CrawlerHost(options, &host);
    // file://localhost/x is file:///x (sec. 6.2.3 and 003's void host).
    if (!(by_scheme && scheme == "file" && !uri.userinfo() && !uri.port() &&
          IsLocalhost(host))) {
      out->append(host);
    }
    if (const auto port = uri.port()) {
      bool keep = true;
      if (by_scheme) {
        // An empty port always goes; a default one for known schemes.
        uint64_t value = 0;
        for (char c : *port) value = std::min<uint64_t>(value * 10 + (c - '0'), 1u << 20);
        keep = !port->empty() && !(rule && value == rule->default_port);
      }
      if (keep) {
        out->push_back(':');
        out->append(*port);
      }
    }
  }
  // The path: triplets first (a decoded "%2E" is a dot), then the dots.
  AppendPctNormal(uri.path(), false, &path);
  const size_t path_begin = out->size();
  if (uri.scheme() || authority || (!path.empty() && path[0] == '/')) {
    RemoveDotSegments(path, AboveRoot::kClamp, out);
  } else {
    AppendRelativePathDotFree(path, out);
  }
  if (crawler) {
    DropPathSessionIds(path_begin, out);
    // ASP.NET's cookieless session segment, as the surt column strips it.
    if (out->find('(', path_begin) != std::string::npos) {
      thread_local std::string stripped;
      const internal::LetGoIfLarge<std::string> let_go(stripped);
      stripped.assign(*out, path_begin, std::string::npos);
      surt_internal::StripPathSessionIds(&stripped);
      out->resize(path_begin);
      out->append(stripped);
    }
  }
  if (!authority && out->size() - path_begin >= 2 && (*out)[path_begin] == '/' &&
      (*out)[path_begin + 1] == '/') {
    out->insert(path_begin, "/.");  // not to be read as an authority
  }
  if (rule && rule->empty_path_is_slash && authority &&
      out->size() == path_begin) {
    out->push_back('/');
  }
  if (by_scheme && scheme == "mailto") {
    // Each address's domain is case-insensitive: lowercase after its '@'.
    bool domain = false;
    for (size_t i = path_begin; i < out->size(); ++i) {
      char& c = (*out)[i];
      if (c == ',') domain = false;
      else if (c == '@') domain = true;
      else if (c == '%') i += 2;
      else if (domain) c = Lower(c);
    }
  }
  if (const auto query = uri.query()) {
    if (crawler) {
      thread_local std::string q;
      const internal::LetGoIfLarge<std::string> let_go(q);
      std::string_view normal = *query;  // as it is without a triplet
      if (normal.find('%') != std::string_view::npos) {
        q.clear();
        AppendPctNormal(*query, false, &q);
        normal = q;
      }
      AppendCrawlerQuery(normal, options, out);
    } else {
      out->push_back('?');
      AppendPctNormal(*query, false, out);
    }
  }
  if (const auto fragment = uri.fragment(); fragment && !crawler) {
    out->push_back('#');
    AppendPctNormal(*fragment, false, out);
  }
  return true;
}

std::string Normalize(std::string_view text, Profile profile,
                      const NormalizeOptions& options) {
  std::string out;
  // An invalid reference appends nothing: "" is the documented answer.
  (void)Normalize(ParseUriReference(text), profile, &out, options);
  return out;
}

Rung Compare(std::string_view a, std::string_view b, Profile up_to,
             const NormalizeOptions& options) {
  if (a == b) return Rung::kIdentical;
  const UriReference ua = ParseUriReference(a), ub = ParseUriReference(b);
  if (!ua.valid() || !ub.valid()) return Rung::kDifferent;
  std::string na, nb;
  for (Profile p : {Profile::kSyntax, Profile::kScheme, Profile::kCrawler}) {
    na.clear();
    nb.clear();
    (void)Normalize(ua, p, &na, options);  // both valid: checked above
    (void)Normalize(ub, p, &nb, options);
    if (na == nb) return static_cast<Rung>(static_cast<int>(p) + 1);
    if (p == up_to) break;
  }
  return Rung::kDifferent;
}

// ---------------------------------------------------------------------------
// Batches.

#if URISCAN_MIMALLOC_ARENAS
// The arena behind NormalizedBatch: one mimalloc heap, owned by the thread
// that made it (mimalloc allows mi_heap_malloc and mi_heap_destroy on that
// thread only, hence the rule in normalize.h).
struct NormalizedBatch::Arena {
  mi_heap_t* heap = mi_heap_new();
  Arena() {
    if (heap == nullptr) throw std::bad_alloc();
  }
  ~Arena() { mi_heap_destroy(heap); }
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  void* Allocate(size_t bytes) {
    void* p = mi_heap_malloc(heap, bytes);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  void* Reallocate(void* p, size_t bytes) {
    void* q = mi_heap_realloc(heap, p, bytes);
    if (q == nullptr) throw std::bad_alloc();
    return q;
  }
};
#else
// Built without mimalloc (-DURISCAN_MIMALLOC_ARENAS=OFF): the arena's few
// blocks (the bytes and the offsets of a batch) come from malloc and go
// together with it.
struct NormalizedBatch::Arena {
  std::vector<void*> blocks;
  Arena() = default;
  ~Arena() {
    for (void* p : blocks) std::free(p);
  }
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  void* Allocate(size_t bytes) {
    blocks.reserve(blocks.size() + 1);
    void* p = std::malloc(bytes);
    if (p == nullptr) throw std::bad_alloc();
    blocks.push_back(p);
    return p;
  }
  void* Reallocate(void* p, size_t bytes) {
    void* q = std::realloc(p, bytes);
    if (q == nullptr) throw std::bad_alloc();
    std::replace(blocks.begin(), blocks.end(), p, q);
    return q;
  }
};
#endif

NormalizedBatch::NormalizedBatch() = default;

NormalizedBatch::~NormalizedBatch() = default;

void NormalizedBatch::Reset(size_t rows, size_t bytes) {
  // One heap per batch: the previous batch's memory goes at once.
  arena_.reset();
  data_ = nullptr;
  offsets_ = nullptr;
  count_ = 0;
  arena_ = std::make_unique<Arena>();
  capacity_ = bytes + bytes / 8 + 64;
  data_ = static_cast<char*>(arena_->Allocate(capacity_));
  size_ = 0;
  offsets_ = static_cast<uint32_t*>(
      arena_->Allocate((rows + 1) * sizeof(uint32_t)));
  offsets_[0] = 0;
  count_ = rows;
  copied_ = 0;
}

char* NormalizedBatch::Reserve(size_t more) {
  if (size_ + more > capacity_) {
    capacity_ = std::max(capacity_ * 2, size_ + more);
    data_ = static_cast<char*>(arena_->Reallocate(data_, capacity_));
  }
  return data_ + size_;
}

// Judged from the scan's flags and a few boundary checks, with no re-parse.
bool AlreadyNormal(const Batch& in, const ComponentSpans& s, size_t i,
                   Profile profile, bool fold_www) {
  const uint16_t f = s.flags[i];
  if (f & (flags::kHasPctEncoded | flags::kHasUpperCase |
           flags::kHasDotSegment)) {
    return false;
  }
  if (profile == Profile::kSyntax) return true;
  const std::string_view scheme(in.data + s.uri_begin[i],
                                s.scheme_end[i] - s.uri_begin[i]);
  const std::string_view host(in.data + s.host_begin[i],
                              s.host_end[i] - s.host_begin[i]);
  const std::string_view path(in.data + s.path_begin[i],
                              s.path_end[i] - s.path_begin[i]);
  if (profile == Profile::kW3lib) return W3libKeepsAsIs(f, scheme, host, path);
  if (scheme == "file") {  // file://localhost/x becomes file:///x
    if ((f & flags::kHasAuthority) && host == "localhost") return false;
  } else if (scheme == "mailto") {  // upper case in a domain is lowered
    for (char c : path)
      if (c >= 'A' && c <= 'Z') return false;
  }
  if (f & flags::kHasAuthority) {
    const SchemeRule* rule = (f & flags::kHasScheme) ? FindScheme(scheme) : nullptr;
    if (f & flags::kHasPort) {
      if (s.port_begin[i] == s.path_begin[i] || rule) return false;
    }
    if (rule && rule->empty_path_is_slash && path.empty()) return false;
  }
  if (profile == Profile::kScheme) return true;
  if (f & (flags::kHasQuery | flags::kHasFragment)) return false;
  if (path.find(';') != std::string_view::npos) return false;  // jsessionid
  if (!(f & flags::kHasAuthority) || host.empty()) return true;
  // A trailing dot, and a reg-name that may be an IPv4 address (every
  // reading starts with a digit) or, with fold_www, start with "www.": the
  // host rules decide.
  return host.back() != '.' &&
         !((f & flags::kHostKindMask) == 0 &&  // HostKind::kRegName
           (chars::Is(host[0], chars::kDigit) || (fold_www && host[0] == 'w')));
}

void NormalizeBatch(const Batch& in, const ComponentSpans& s, Profile profile,
                    NormalizedBatch* out, const NormalizeOptions& options) {
  const size_t n = in.count;
  out->Reset(n, n ? s.uri_end[n - 1] - s.uri_begin[0] : 0);
  out->input_ = in.data;
  out->input_spans_ = &s;
  ComponentSpans& o = out->spans_;
  o.Resize(n);
  if (n == 0) return;
  // Pass 1, row by row: the text. A row that is already normal (or invalid)
  // is copied, and `shift` says how far its offsets move; the others are
  // rewritten and listed.
  thread_local std::vector<uint32_t> shift;
  thread_local std::vector<size_t> rewritten;
  thread_local std::string row;
  const internal::LetGoIfLarge<std::string> let_go_row(row);
  shift.resize(n);
  rewritten.clear();
  for (size_t i = 0; i < n; ++i) {
    const uint32_t out_begin = static_cast<uint32_t>(out->size_);
    const uint32_t b = s.uri_begin[i];
    shift[i] = out_begin - b;  // wraps; the sums below do not
    if (s.error_kind[i] != 0 || SurelyNormal(in.data, s, i, profile) ||
        AlreadyNormal(in, s, i, profile, options.fold_www)) {
      const uint32_t e = s.uri_end[i];
      if (e > b) {  // an empty row may come with no data at all
        std::memcpy(out->Reserve(e - b), in.data + b, e - b);
        out->size_ += e - b;
      }
    } else {
      row.clear();
      (void)Normalize(s.Row(i, in.data), profile, &row, options);  // valid
      std::memcpy(out->Reserve(row.size()), row.data(), row.size());
      out->size_ += row.size();
      rewritten.push_back(i);
    }
    out->offsets_[i + 1] = static_cast<uint32_t>(out->size_);
  }
  out->copied_ = n - rewritten.size();
  // Pass 2, column by column (a few memory streams at a time, vectorized):
  // every row's spans shifted to where its text landed.
  auto shifted = [&](const std::vector<uint32_t>& from, std::vector<uint32_t>& to) {
    const uint32_t* __restrict src = from.data();
    const uint32_t* __restrict d = shift.data();
    uint32_t* __restrict dst = to.data();
    for (size_t i = 0; i < n; ++i) dst[i] = src[i] + d[i];
  };
#define URISCAN_SHIFT(name) shifted(s.name, o.name);
  URISCAN_SPAN_BOUNDARIES(URISCAN_SHIFT)
#undef URISCAN_SHIFT
  std::memcpy(o.flags.data(), s.flags.data(), n * sizeof(uint16_t));
  std::memcpy(o.error_kind.data(), s.error_kind.data(), n);
  std::memcpy(o.error_offset.data(), s.error_offset.data(),
              n * sizeof(uint32_t));
  // Pass 3: the rewritten rows' spans, from a scalar parse of their output
  // (the oracle's own answer).
  for (size_t i : rewritten) {
    const uint32_t begin = out->offsets_[i];
    o.SetRow(i, begin,
             ParseUriReference(std::string_view(out->data_ + begin,
                                                out->offsets_[i + 1] - begin)));
  }
}

void MarkAlreadyNormal(const Batch& in, const ComponentSpans& s,
                       Profile profile, std::vector<uint8_t>* as_is,
                       const NormalizeOptions& options) {
  const size_t n = s.size();
  as_is->resize(n);
  uint8_t* out = as_is->data();
  for (size_t i = 0; i < n; ++i) {
    out[i] = s.error_kind[i] == 0 &&
             (SurelyNormal(in.data, s, i, profile) ||
              AlreadyNormal(in, s, i, profile, options.fold_www));
  }
}

}  // namespace uriscan
