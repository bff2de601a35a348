// SPDX-License-Identifier: MIT
// surt.surt(url) of the Internet Archive's surt library, step by step: its
// URL split (handyurl), GoogleURLCanonicalizer, IAURLCanonicalizer, then
// the SURT form. Each step names the library's function it follows.
#include "uriscan/hosts.h"

#include <idn2.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include "kernels/utf8.h"
#include "src/char_class.h"
#include "src/parse/ip_value.h"
#include "src/transform/scratch.h"
#include "src/transform/surt.h"

namespace uriscan {
namespace surt_internal {

bool ToIdnaAscii(const std::string& utf8, std::string* ace) {
  // The codec splits the name at the four dots of IDNA 2003 (". U+3002
  // U+FF0E U+FF61") and refuses an empty label but the last one; UTS #46
  // would map those dots and drop the label.
  bool empty_label = true;
  for (size_t i = 0; i < utf8.size();) {
    const std::string_view rest = std::string_view(utf8).substr(i);
    size_t dot = rest[0] == '.' ? 1 : 0;
    for (const char* wide : {"\xE3\x80\x82", "\xEF\xBC\x8E", "\xEF\xBD\xA1"})
      if (rest.substr(0, 3) == wide) dot = 3;
    if (dot && empty_label) return false;
    empty_label = dot != 0;
    i += dot ? dot : 1;
  }
  char* out = nullptr;
  const bool ok = idn2_lookup_u8(reinterpret_cast<const uint8_t*>(utf8.c_str()),
                                 reinterpret_cast<uint8_t**>(&out),
                                 IDN2_NFC_INPUT | IDN2_TRANSITIONAL) == IDN2_OK;
  if (ok) ace->assign(out);
  std::free(out);
  return ok;
}

}  // namespace surt_internal
namespace {

char Lower(char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

void LowerAll(std::string* s) {
  for (char& c : *s) c = Lower(c);
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (Lower(a[k]) != Lower(b[k])) return false;
  return true;
}

// urllib's unquote_to_bytes: each '%' and two hex digits after it become
// that byte, in one pass. Returns whether anything changed.
bool UnquoteOnce(const std::string& in, std::string* out) {
  out->clear();
  bool changed = false;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '%' && i + 2 < in.size() &&
        chars::Is(in[i + 1], chars::kHexDig) &&
        chars::Is(in[i + 2], chars::kHexDig)) {
      out->push_back(static_cast<char>(chars::HexValue(in[i + 1]) * 16 +
                                       chars::HexValue(in[i + 2])));
      i += 2;
      changed = true;
    } else {
      out->push_back(in[i]);
    }
  }
  return changed;
}

// unescapeRepeatedly(): unquote until nothing changes ("%2541" is "A").
void UnescapeRepeatedly(std::string* s) {
  thread_local std::string next;
  const internal::LetGoIfLarge<std::string> let_go(next);
  while (UnquoteOnce(*s, &next)) s->swap(next);
}

// escapeOnce(): quote_from_bytes with the library's safe set, which is all
// of printable ASCII but '#' and '%'; so controls, space, '#', '%', DEL and
// every byte above 0x7f are written %XX.
void EscapeOnce(std::string* s) {
  thread_local std::string out;
  const internal::LetGoIfLarge<std::string> let_go(out);
  out.clear();
  for (char ch : *s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c > 0x20 && c < 0x7f && c != '#' && c != '%') {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(chars::kUpperHexDigits[c >> 4]);
      out.push_back(chars::kUpperHexDigits[c & 15]);
    }
  }
  s->swap(out);
}

// host.decode('utf-8', 'ignore'): well-formed UTF-8 sequences kept, other
// bytes dropped.
std::string DropInvalidUtf8(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const size_t n = static_cast<unsigned char>(s[i]) < 0x80
                         ? 1 : Utf8SequenceAt(s, i);
    if (n) out.append(s.substr(i, n));
    i += n ? n : 1;
  }
  return out;
}

// A host with bytes above 0x7f: the library encodes it with Python's
// "idna" codec and keeps it as it is when that fails.
void IdnaOrKeep(std::string* host) {
  if (std::all_of(host->begin(), host->end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x80; }))
    return;
  std::string ace;
  if (surt_internal::ToIdnaAscii(DropInvalidUtf8(*host), &ace)) host->swap(ace);
}

// attemptIPFormats(): a host of digits alone is a number taken modulo
// 2^32; one that matches the library's DECIMAL_IP or OCTAL_IP patterns
// (one to four parts of digits, led by a non-zero digit or by '0' and
// octal digits) is what the resolver makes of it, inet_aton's reading.
std::optional<uint32_t> AttemptIpFormats(std::string_view host) {
  if (host.empty()) return std::nullopt;
  if (std::all_of(host.begin(), host.end(), IsDigit)) {
    uint32_t v = 0;  // unsigned arithmetic wraps modulo 2^32
    for (char c : host) v = v * 10 + static_cast<uint32_t>(c - '0');
    return v;
  }
  const bool octal = host[0] == '0';
  size_t parts = 1;
  bool part_empty = true;
  for (size_t k = 0; k < host.size(); ++k) {
    const char c = host[k];
    if (c == '.') {
      if (part_empty || ++parts > 4) return std::nullopt;
      part_empty = true;
    } else if (IsDigit(c) && !(octal && c > '7')) {
      part_empty = false;
    } else {
      return std::nullopt;
    }
  }
  if (part_empty) return std::nullopt;
  return ip::ParseInetAton(host);
}

// normalizePath(): dot segments resolved ("." dropped, ".." pops, or stays
// when there is nothing to pop), empty segments dropped but a last one
// (a trailing '/'), always led by '/'. The first segment is skipped, as
// the library splits a path that starts with '/'.
void NormalizePath(std::string* path) {
  if (path->empty()) {
    *path = "/";
    return;
  }
  std::vector<std::string_view> kept;
  const std::string_view p = *path;
  size_t begin = p.find('/');
  if (begin == std::string_view::npos) {
    *path = "/";  // one segment only: skipped
    return;
  }
  ++begin;
  while (true) {
    const size_t end = std::min(p.find('/', begin), p.size());
    const std::string_view seg = p.substr(begin, end - begin);
    if (seg == ".") {
    } else if (seg == "..") {
      if (kept.empty()) {
        kept.push_back(seg);
      } else {
        kept.pop_back();
      }
    } else {
      kept.push_back(seg);
    }
    if (end == p.size()) break;
    begin = end + 1;
  }
  std::string out = "/";
  for (size_t k = 0; k + 1 < kept.size(); ++k) {
    if (!kept[k].empty()) {
      out.append(kept[k]);
      out.push_back('/');
    }
  }
  if (!kept.empty()) out.append(kept.back());
  path->swap(out);
}

// A match of one of the library's query session-id patterns at q[s]:
// its end, or npos.
size_t SessionIdAt(std::string_view q, size_t s, int pattern) {
  auto run = [&](size_t at, size_t n, bool digits) {
    if (at + n > q.size()) return false;
    for (size_t k = at; k < at + n; ++k) {
      const char c = Lower(q[k]);
      if (!((c >= 'a' && c <= 'z') || (digits && IsDigit(c)))) return false;
    }
    return true;
  };
  auto literal = [&](size_t at, std::string_view text) {
    return at + text.size() <= q.size() &&
           EqualsIgnoreCase(q.substr(at, text.size()), text);
  };
  auto non_amp = [&](size_t at) {  // [^&]+ from at: its end, or npos
    size_t e = at;
    while (e < q.size() && q[e] != '&') ++e;
    return e > at ? e : std::string_view::npos;
  };
  static constexpr std::string_view kAlnum32[] = {"jsessionid=",
                                                  "phpsessid=", "sid="};
  if (pattern < 3) {
    const std::string_view lit = kAlnum32[pattern];
    if (!literal(s, lit) || !run(s + lit.size(), 32, true))
      return std::string_view::npos;
    return s + lit.size() + 32;
  }
  if (pattern == 3) {  // ASPSESSIONID[a-zA-Z]{8}=[a-zA-Z]{24}
    if (!literal(s, "aspsessionid") || !run(s + 12, 8, false) ||
        !literal(s + 20, "=") || !run(s + 21, 24, false))
      return std::string_view::npos;
    return s + 45;
  }
  // cfid=[^&]+&cftoken=[^&]+
  if (!literal(s, "cfid=")) return std::string_view::npos;
  const size_t v1 = non_amp(s + 5);
  if (v1 == std::string_view::npos || !literal(v1, "&cftoken="))
    return std::string_view::npos;
  return non_amp(v1 + 9);
}

// stripQuerySessionID(): each pattern "^(.*)ID(?:&(.*))?$" in turn, the
// last place it matches (the first group is greedy), the id and the '&'
// after it removed.
void StripQuerySessionIds(std::string* query) {
  for (int pattern = 0; pattern < 5; ++pattern) {
    const std::string_view q = *query;
    for (size_t s = q.size() + 1; s-- > 0;) {
      const size_t e = SessionIdAt(q, s, pattern);
      if (e == std::string_view::npos || (e < q.size() && q[e] != '&'))
        continue;
      std::string out(q.substr(0, s));
      if (e < q.size()) out.append(q.substr(e + 1));
      query->swap(out);
      break;
    }
  }
}

// The end of "(" then one or more "[a-z](" 24 [0-9a-z] ")" then ")/"
// at p[k] (pattern 0), or of "(" 24 [0-9a-z] ")/" (pattern 1); npos if
// none.
size_t PathSessionIdAt(std::string_view p, size_t k, int pattern) {
  auto id24 = [&](size_t at) {
    if (at + 24 > p.size()) return false;
    for (size_t j = at; j < at + 24; ++j) {
      const char c = Lower(p[j]);
      if (!((c >= 'a' && c <= 'z') || IsDigit(c))) return false;
    }
    return true;
  };
  if (k >= p.size() || p[k] != '(') return std::string_view::npos;
  size_t at = k + 1;
  if (pattern == 1) {
    if (!id24(at)) return std::string_view::npos;
    at += 24;
  } else {
    int reps = 0;
    while (at + 27 <= p.size() && Lower(p[at]) >= 'a' && Lower(p[at]) <= 'z' &&
           p[at + 1] == '(' && id24(at + 2) && p[at + 26] == ')') {
      at += 27;
      ++reps;
    }
    if (reps == 0) return std::string_view::npos;
  }
  if (at + 2 > p.size() || p[at] != ')' || p[at + 1] != '/')
    return std::string_view::npos;
  return at + 2;
}

}  // namespace

namespace surt_internal {

// stripPathSessionID(): ASP.NET's "/(S(id))/" and "/(id)/" session
// segments before a path to an .aspx page, the last place they match. In
// linear time: where ".aspx" last starts before each '?' is found once.
void StripPathSessionIds(std::string* path) {
  if (path->find('(') == std::string::npos) return;
  for (int pattern = 0; pattern < 2; ++pattern) {
    const std::string_view p = *path;
    const size_t n = p.size();
    // aspx_before[i]: the last start t < i of ".aspx" (any case), or npos;
    // question_from[i]: the first '?' at or after i (n when none).
    thread_local std::vector<size_t> aspx_before, question_from;
    const internal::LetGoIfLarge<std::vector<size_t>> let_go_aspx(aspx_before),
        let_go_question(question_from);
    aspx_before.assign(n + 1, std::string_view::npos);
    question_from.assign(n + 1, n);
    for (size_t i = 1; i <= n; ++i) {
      const size_t t = i - 1;
      aspx_before[i] = t + 5 <= n && EqualsIgnoreCase(p.substr(t, 5), ".aspx")
                           ? t
                           : aspx_before[i - 1];
    }
    for (size_t i = n; i-- > 0;)
      question_from[i] = p[i] == '?' ? i : question_from[i + 1];
    for (size_t j = n; j-- > 0;) {
      if (p[j] != '/') continue;
      const size_t m = PathSessionIdAt(p, j + 1, pattern);
      if (m == std::string_view::npos) continue;
      // The rest must read "[^?]+\.aspx.*": a ".aspx" that starts past
      // its first byte and before its first '?'.
      const size_t t = aspx_before[question_from[m]];
      if (t == std::string_view::npos || t < m + 1) continue;
      std::string out(p.substr(0, j + 1));
      out.append(p.substr(m));
      path->swap(out);
      break;
    }
  }
}

}  // namespace surt_internal

namespace {

using surt_internal::StripPathSessionIds;

// Past this, a query's list of fields is sized before it is filled and let
// go after (a line of millions of fields).
constexpr size_t kLongQueryBytes = size_t{1} << 16;

// Bytes compared as unsigned, each lower-cased first when `lower`.
int CompareBytes(std::string_view a, std::string_view b, bool lower) {
  if (!lower) return a.compare(b);
  const size_t n = std::min(a.size(), b.size());
  for (size_t k = 0; k < n; ++k) {
    const unsigned char x = Lower(a[k]), y = Lower(b[k]);
    if (x != y) return x < y ? -1 : 1;
  }
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

// alphaReorderQuery(): fields split on '&' (empty ones kept), each at its
// first '=', sorted as Python sorts the tuples (a field without '=' before
// the same name with one); written at `out` (q.size() bytes, not within
// q), lower-cased when `lower` (as if q were lower-cased first).
// Each field by its first byte alone (4 bytes a field however many a line
// has; 8 for a query of 4 GiB or more), its name, '=' and value found as
// they are needed; a field the same as the one before it is not listed but
// written after it ("a&a&a&...&a" takes one).
template <class Offset>
void AlphaReorderQueryAs(std::string_view q, bool lower, char* out) {
  const size_t n = q.size();
  const auto name_end = [q, n](size_t at) {
    while (at < n && q[at] != '=' && q[at] != '&') ++at;
    return at;
  };
  const auto field_end = [q, n](size_t at) {
    while (at < n && q[at] != '&') ++at;
    return at;
  };
  thread_local std::vector<Offset> args;
  const internal::LetGoIfLarge<std::vector<Offset>> let_go(args);
  args.clear();
  if (n > kLongQueryBytes)  // sized once, let go after
    args.reserve(std::count(q.begin(), q.end(), '&') + 1);
  size_t steps = 0;
  std::string_view last;  // the field before
  for (size_t begin = 0; begin <= n;) {
    internal::Step(&steps);
    const size_t end = std::min(q.find('&', begin), n);
    const std::string_view field = q.substr(begin, end - begin);
    if (begin == 0 || field != last) args.push_back(static_cast<Offset>(begin));
    last = field;
    begin = end + 1;
  }
  std::sort(args.begin(), args.end(), [&](Offset x, Offset y) {
    internal::Step(&steps);
    const size_t xe = name_end(x), ye = name_end(y);
    const int c = CompareBytes(q.substr(x, xe - x), q.substr(y, ye - y), lower);
    if (c != 0) return c < 0;
    const bool x_value = xe < n && q[xe] == '=';
    const bool y_value = ye < n && q[ye] == '=';
    if (x_value != y_value) return !x_value;
    if (!x_value) return false;
    return CompareBytes(q.substr(xe + 1, field_end(xe + 1) - xe - 1),
                        q.substr(ye + 1, field_end(ye + 1) - ye - 1),
                        lower) < 0;
  });
  bool first = true;
  for (const Offset at : args) {
    const std::string_view field = q.substr(at, field_end(at) - at);
    // The field, then each one right after it that is the same.
    size_t next = at;
    do {
      if (!first) *out++ = '&';
      first = false;
      if (lower) {
        for (char c : field) *out++ = Lower(c);
      } else {
        out = std::copy(field.begin(), field.end(), out);
      }
      next += field.size() + 1;  // past it and its '&'
    } while (next + field.size() <= n &&
             q.compare(next, field.size(), field) == 0 &&
             (next + field.size() == n || q[next + field.size()] == '&'));
  }
}

void AlphaReorderQuery(std::string_view q, bool lower, char* out) {
  if (q.size() <= UINT32_MAX) {
    AlphaReorderQueryAs<uint32_t>(q, lower, out);
  } else {
    AlphaReorderQueryAs<size_t>(q, lower, out);
  }
}

void AlphaReorderQuery(std::string* query) {
  if (query->size() <= 1) return;
  std::string out(query->size(), '\0');
  AlphaReorderQuery(*query, false, out.data());
  query->swap(out);
}

bool IsAsciiLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// A byte EscapeOnce() keeps and UnescapeRepeatedly() cannot change.
bool IsPlainPrintable(char c) { return c > 0x20 && c < 0x7f && c != '%'; }

bool Contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// The host of the common shape: one or more labels of ASCII letters,
// digits, '-' and '_' joined by single dots, with a letter, '-' or '_' in
// it (so no IP format). Its end in `url` from `begin`, or npos.
size_t CommonHostEnd(std::string_view url, size_t begin) {
  bool not_ip = false;
  char prev = '.';
  size_t i = begin;
  for (; i < url.size(); ++i) {
    const char c = url[i];
    if (IsAsciiLetter(c) || c == '-' || c == '_') {
      not_ip = true;
    } else if (c == '.') {
      if (prev == '.') return std::string_view::npos;  // "..", leading '.'
    } else if (!IsDigit(c)) {
      break;
    }
    prev = c;
  }
  if (i == begin || prev == '.' || !not_ip) return std::string_view::npos;
  return i;
}

// The path of the common shape: "" or '/' then segments of plain
// printable bytes but '(' (no ASP.NET session segment), none "." or "..",
// none empty but the last. Its end (a '?', '#' or the end), or npos.
size_t CommonPathEnd(std::string_view url, size_t begin) {
  size_t i = begin, segment = begin + 1;
  for (; i < url.size() && url[i] != '?' && url[i] != '#'; ++i) {
    const char c = url[i];
    if (!IsPlainPrintable(c) || c == '(') return std::string_view::npos;
    if (c == '/' && i > begin) {
      const std::string_view seg = url.substr(segment, i - segment);
      if (seg.empty() || seg == "." || seg == "..")
        return std::string_view::npos;
      segment = i + 1;
    }
  }
  if (i > begin) {
    const std::string_view last = url.substr(segment, i - segment);
    if (last == "." || last == "..") return std::string_view::npos;
  }
  return i;
}

}  // namespace

namespace surt_internal {

// The common shape, where every step of the full path below is either
// the identity or a plain function of the bytes: a lower-case scheme
// (not "dns") and "//" (not "http://" or "https://" twice), a host per
// CommonHostEnd(), an optional port of 1 to 5 digits up to 65535, a path
// per CommonPathEnd(), an optional query of plain printable bytes without
// the session-id patterns' literals, then anything after '#'. So no
// unescaping or escaping changes anything, the host needs no IDNA, dot or
// IP rewrite, NormalizePath() keeps the path, and no session id is
// stripped. The key is then the host lower-cased without "www<digits>.",
// its labels reversed; the port unless 0 or the scheme's (http 80, https
// 443); the path lower-cased ("/" for none) without a trailing '/'; the
// query lower-cased, its fields sorted.
bool AppendCommonIaSurt(std::string_view url, std::string* out) {
  // scheme "://"
  size_t colon = 0;
  if (url.empty() || url[0] < 'a' || url[0] > 'z') return false;
  while (++colon < url.size()) {
    const char c = url[colon];
    if (!((c >= 'a' && c <= 'z') || IsDigit(c) || c == '+' || c == '-' ||
          c == '.'))
      break;
  }
  const std::string_view scheme = url.substr(0, colon);
  if (url.substr(colon, 3) != "://" || scheme == "dns") return false;
  const size_t host_begin = colon + 3;
  if ((scheme == "http" || scheme == "https") &&
      (StartsWith(url.substr(host_begin), "http://") ||
       StartsWith(url.substr(host_begin), "https://")))
    return false;
  const size_t host_end = CommonHostEnd(url, host_begin);
  if (host_end == std::string_view::npos) return false;
  size_t i = host_end;
  uint32_t port = 0;
  size_t port_begin = i, port_end = i;
  if (i < url.size() && url[i] == ':') {
    port_begin = ++i;
    while (i < url.size() && IsDigit(url[i]) && i - port_begin < 6)
      port = port * 10 + static_cast<uint32_t>(url[i++] - '0');
    port_end = i;
    if (i == port_begin || i - port_begin > 5 || port > 65535) return false;
    if ((scheme == "http" && port == 80) || (scheme == "https" && port == 443))
      port = 0;
  }
  if (i < url.size() && url[i] != '/' && url[i] != '?' && url[i] != '#')
    return false;  // '@', '[', '%', ... in the authority
  const size_t path_begin = i;
  const size_t path_end = CommonPathEnd(url, path_begin);
  if (path_end == std::string_view::npos) return false;
  std::string_view query;
  if (path_end < url.size() && url[path_end] == '?') {
    query = url.substr(path_end + 1);
    query = query.substr(0, std::min(query.find('#'), query.size()));
  }
  bool fields = false;  // more than one: sorted
  for (char c : query) {
    if (!IsPlainPrintable(c)) return false;
    fields |= c == '&';
  }

  // Written in place: the key is no longer than the URL and 2 bytes.
  const size_t base = out->size();
  out->resize(base + url.size() + 2);
  char* const start = &(*out)[base];
  char* w = start;
  // massageHost(): "www", digits, '.' at the start go.
  std::string_view host = url.substr(host_begin, host_end - host_begin);
  if (host.size() > 3 && EqualsIgnoreCase(host.substr(0, 3), "www")) {
    size_t k = 3;
    while (k < host.size() && IsDigit(host[k])) ++k;
    if (k < host.size() && host[k] == '.') host.remove_prefix(k + 1);
  }
  // hostToSURT(): labels reversed, joined by ','.
  for (size_t end = host.size();;) {
    const size_t dot = end == 0 ? std::string_view::npos : host.rfind('.', end - 1);
    const size_t begin = dot == std::string_view::npos ? 0 : dot + 1;
    for (size_t k = begin; k < end; ++k) *w++ = Lower(host[k]);
    if (dot == std::string_view::npos) break;
    *w++ = ',';
    end = dot;
  }
  if (port != 0) {  // its digits without leading zeros
    *w++ = ':';
    size_t k = port_begin;
    while (k + 1 < port_end && url[k] == '0') ++k;
    for (; k < port_end; ++k) *w++ = url[k];
  }
  *w++ = ')';
  std::string_view path = url.substr(path_begin, path_end - path_begin);
  if (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (path.empty()) {
    *w++ = '/';
  } else {
    for (char c : path) *w++ = Lower(c);
  }
  if (!query.empty()) {
    *w++ = '?';
    char* const q = w;
    for (char c : query) *w++ = Lower(c);
    const std::string_view lower(q, query.size());
    if (Contains(lower, "sid=") || Contains(lower, "jsessionid=") ||
        Contains(lower, "aspsessionid") || Contains(lower, "cfid=")) {
      out->resize(base);
      return false;
    }
    // Sorted over the lower-cased copy from a copy of it; a long query
    // from the URL's bytes, lower-cased as they are read (a query of
    // millions of fields is not held a third time).
    if (fields && query.size() > kLongQueryBytes) {
      AlphaReorderQuery(query, true, q);
    } else if (fields) {
      thread_local std::string copy;
      copy.assign(lower);
      AlphaReorderQuery(copy, false, q);
    }
  }
  out->resize(base + static_cast<size_t>(w - start));
  return true;
}

bool AppendFullIaSurt(std::string_view url, std::string* out) {
  if (url.empty()) {
    out->push_back('-');
    return true;
  }
  if (StartsWith(url, "filedesc")) {
    out->append(url);
    return true;
  }
  // handyurl.parse(): "http://https://a/" is "https://a/" (the last of
  // the leading "http://" and "https://").
  for (size_t p = 0, last = std::string_view::npos;;) {
    const std::string_view rest = url.substr(p);
    if (StartsWith(rest, "http://")) {
      last = p;
      p += 7;
    } else if (StartsWith(rest, "https://")) {
      last = p;
      p += 8;
    } else {
      if (last != std::string_view::npos) url.remove_prefix(last);
      break;
    }
  }
  // The RFC 2396 regular expression (no scheme: not called).
  const size_t colon = url.find(':');
  if (colon == std::string_view::npos) return false;
  const std::string_view scheme = url.substr(0, colon);
  std::string_view rest = url.substr(colon + 1), netloc;
  if (StartsWith(rest, "//")) {
    const size_t end = std::min(rest.find_first_of("/?#", 2), rest.size());
    netloc = rest.substr(2, end - 2);
    rest.remove_prefix(end);
  }
  const size_t path_end = std::min(rest.find_first_of("?#"), rest.size());
  std::string path(rest.substr(0, path_end));
  std::optional<std::string> query;
  if (path_end < rest.size() && rest[path_end] == '?') {
    const std::string_view q = rest.substr(path_end + 1);
    const std::string_view qv = q.substr(0, std::min(q.find('#'), q.size()));
    if (!qv.empty()) query.emplace(qv);
  }
  // urllib's hostname and port of the netloc, trailing ':' dropped.
  while (!netloc.empty() && netloc.back() == ':') netloc.remove_suffix(1);
  std::string_view hostinfo = netloc.substr(netloc.rfind('@') + 1);
  std::string_view hostname, port_text;
  if (const size_t br = hostinfo.find('['); br != std::string_view::npos) {
    const std::string_view bracketed = hostinfo.substr(br + 1);
    const size_t close = std::min(bracketed.find(']'), bracketed.size());
    hostname = bracketed.substr(0, close);
    const std::string_view after =
        bracketed.substr(std::min(close + 1, bracketed.size()));
    const size_t c = after.find(':');
    if (c != std::string_view::npos) port_text = after.substr(c + 1);
  } else {
    const size_t c = hostinfo.find(':');
    hostname = hostinfo.substr(0, c);
    if (c != std::string_view::npos) port_text = hostinfo.substr(c + 1);
  }
  uint32_t port = 0;  // 0: none ("o.port or None")
  if (!port_text.empty()) {
    uint64_t v = 0;
    for (char c : port_text) {
      if (!IsDigit(c)) return false;  // ValueError
      v = std::min<uint64_t>(v * 10 + static_cast<uint64_t>(c - '0'), 1u << 20);
    }
    if (v > 65535) return false;  // ValueError: port out of range
    port = static_cast<uint32_t>(v);
  }
  std::optional<std::string> host;
  if (!hostname.empty()) {
    // .hostname lower-cases up to the first '%' (an IPv6 zone's case).
    const size_t pct = std::min(hostname.find('%'), hostname.size());
    host.emplace(hostname);
    for (size_t k = 0; k < pct; ++k) (*host)[k] = Lower((*host)[k]);
  }
  bool has_path = !path.empty();
  // "http:////www.vikings.com": the host from the path.
  if (StartsWith(scheme, "http") && !host && has_path) {
    size_t b = path.find_first_not_of('/');
    if (b == std::string::npos) b = path.size();
    const size_t e = std::min(path.find('/', b), path.size());
    host.emplace(path.substr(b, e - b));
    path = "/" + (e < path.size() ? path.substr(e + 1) : std::string());
    has_path = true;
  }

  // GoogleURLCanonicalizer.canonicalize()
  if (query) {  // minimalEscape()
    UnescapeRepeatedly(&*query);
    EscapeOnce(&*query);
  }
  if (host && !host->empty()) {
    UnescapeRepeatedly(&*host);
    IdnaOrKeep(&*host);
    std::string h;  // replace(b'..', b'.'), one pass, then strip(b'.')
    for (size_t k = 0; k < host->size(); ++k) {
      h.push_back((*host)[k]);
      if ((*host)[k] == '.' && k + 1 < host->size() && (*host)[k + 1] == '.')
        ++k;
    }
    const size_t b = h.find_first_not_of('.');
    if (b == std::string::npos) {
      h.clear();
    } else {
      h = h.substr(b, h.find_last_not_of('.') + 1 - b);
    }
    if (const auto ip = AttemptIpFormats(h)) {
      h.clear();
      for (int shift = 24; shift >= 0; shift -= 8) {
        h.append(std::to_string((*ip >> shift) & 0xff));
        if (shift) h.push_back('.');
      }
    } else {
      LowerAll(&h);
      EscapeOnce(&h);
    }
    *host = h;
  }
  const bool with_host = host && !host->empty();
  if (has_path || with_host) {
    if (has_path) UnescapeRepeatedly(&path);
    if (with_host) {
      NormalizePath(&path);
      has_path = true;
    }
    EscapeOnce(&path);
  }

  // IAURLCanonicalizer.canonicalize(): the host lower-cased (the escapes
  // of a name IDNA refused too), then massageHost().
  if (with_host) LowerAll(&*host);
  if (with_host && scheme != "dns") {
    // massageHost(): "www", digits, '.' at the start go.
    const std::string& h = *host;
    if (StartsWith(h, "www")) {
      size_t k = 3;
      while (k < h.size() && IsDigit(h[k])) ++k;
      if (k < h.size() && h[k] == '.') host->erase(0, k + 1);
    }
  }
  if (port != 0) {
    std::string lower(scheme);
    LowerAll(&lower);
    if ((lower == "http" && port == 80) || (lower == "https" && port == 443))
      port = 0;
  }
  if (!path.empty()) {
    LowerAll(&path);
    StripPathSessionIds(&path);
    if (path.size() > 1 && path.back() == '/') path.pop_back();
  }
  if (query) {
    StripQuerySessionIds(&*query);
    LowerAll(&*query);
    AlphaReorderQuery(&*query);
    if (query->empty()) query.reset();
  }

  // handyurl.geturl_bytes(surt=True, with_scheme=False)
  const bool host_out = host && !host->empty();
  if (!host_out) {
    out->append(scheme);
    out->push_back(':');
  } else {
    // hostToSURT(): labels reversed, joined by ','.
    const std::string_view h = *host;
    size_t end = h.size();
    while (true) {
      const size_t dot = end == 0 ? std::string_view::npos : h.rfind('.', end - 1);
      const size_t begin = dot == std::string_view::npos ? 0 : dot + 1;
      out->append(h.substr(begin, end - begin));
      if (dot == std::string_view::npos) break;
      out->push_back(',');
      end = dot;
    }
    if (port != 0) {
      out->push_back(':');
      out->append(std::to_string(port));
    }
    out->push_back(')');
  }
  if (!path.empty()) {
    out->append(path);
  } else if (query) {
    out->push_back('/');
  }
  if (query) {
    out->push_back('?');
    out->append(*query);
  }
  return true;
}

}  // namespace surt_internal

bool AppendIaSurt(std::string_view url, std::string* out) {
  return surt_internal::AppendCommonIaSurt(url, out) ||
         surt_internal::AppendFullIaSurt(url, out);
}

bool AppendCrawlerSurt(const UriReference& n, std::string* out) {
  if (!n.valid() || !n.host()) return false;
  std::string_view host = *n.host();
  if (n.host_kind() == HostKind::kRegName) {
    if (host.size() > 4 && host.compare(0, 4, "www.") == 0)
      host.remove_prefix(4);
    // Labels from the last to the first, joined by ','.
    size_t end = host.size();
    while (true) {
      const size_t dot = end == 0 ? std::string_view::npos
                                  : host.rfind('.', end - 1);
      const size_t begin = dot == std::string_view::npos ? 0 : dot + 1;
      out->append(host.substr(begin, end - begin));
      if (dot == std::string_view::npos) break;
      out->push_back(',');
      end = dot;
    }
  } else {
    out->append(host);  // an IP address as written
  }
  if (const auto port = n.port(); port && !port->empty()) {
    out->push_back(':');
    out->append(*port);
  }
  out->push_back(')');
  out->append(n.path());
  if (const auto query = n.query()) {
    out->push_back('?');
    out->append(*query);
  }
  return true;
}

}  // namespace uriscan
