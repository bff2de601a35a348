// SPDX-License-Identifier: MIT
// The w3lib profile: w3lib.url.canonicalize_url as urllib.parse and w3lib
// apply it to a valid RFC 3986 reference, one step at a time.
#include "src/transform/w3lib.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/utf8.h"
#include "src/char_class.h"
#include "src/transform/scratch.h"

namespace uriscan {
namespace {

// urllib.parse.uses_params and uses_netloc (Python 3.11), without the empty
// scheme both hold (a relative reference: see the callers).
constexpr std::string_view kUsesParams[] = {
    "ftp",  "hdl", "prospero", "http", "imap", "https", "shttp",
    "rtsp", "rtspu", "sip",    "sips", "mms",  "sftp",  "tel"};
constexpr std::string_view kUsesNetloc[] = {
    "ftp",   "http",   "gopher",  "nntp", "telnet", "imap",    "wais",
    "file",  "mms",    "https",   "shttp", "snews", "prospero", "rtsp",
    "rtspu", "rsync",  "svn",     "svn+ssh", "sftp", "nfs",    "git",
    "git+ssh", "ws",   "wss"};

template <size_t N>
bool Listed(std::string_view scheme, const std::string_view (&list)[N]) {
  return std::find(list, list + N, scheme) != list + N;
}

char Lower(char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }
char Upper(char c) { return c >= 'a' && c <= 'z' ? c - 32 : c; }

// Whether s[i] starts a triplet "%HH": always in a valid reference; a '%'
// without two hex digits after it in other text is a byte like any other
// (Python's unquote leaves it as it is).
bool Triplet(std::string_view s, size_t i) {
  return s[i] == '%' && i + 2 < s.size() &&
         chars::Is(s[i + 1], chars::kHexDig) &&
         chars::Is(s[i + 2], chars::kHexDig);
}

unsigned char Octet(std::string_view s, size_t i) {  // "%HH" at s[i]
  return static_cast<unsigned char>(chars::HexValue(s[i + 1]) * 16 +
                                    chars::HexValue(s[i + 2]));
}

void AppendEncoded(unsigned char c, std::string* out) {
  out->push_back('%');
  out->push_back(chars::kUpperHexDigits[c >> 4]);
  out->push_back(chars::kUpperHexDigits[c & 15]);
}

// What quote(path, _path_safe_chars) leaves as it is: urllib's always-safe
// bytes (RFC 3986's unreserved set) and w3lib's safe set for a path: the
// reserved characters but '#', then '|' and '%'.
bool PathSafe(unsigned char c) {
  if (chars::Is(c, chars::kUnreserved)) return true;
  switch (c) {
    case ':': case '/': case '?': case '[': case ']': case '@': case '!':
    case '$': case '&': case '\'': case '(': case ')': case '*': case '+':
    case ',': case ';': case '=': case '|': case '%':
      return true;
    default:
      return false;
  }
}

// _unquotepath() then quote(): every triplet decoded but "%2F" and "%3F"
// (kept, hex in upper case), then each byte outside the safe set encoded.
// A decoded '%' stays bare ("%2541" gives "%41"). "/" when empty.
void AppendPath(std::string_view path, std::string* out) {
  const size_t begin = out->size();
  for (size_t i = 0; i < path.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(path[i]);
    if (Triplet(path, i)) {
      const unsigned char v = Octet(path, i);
      if (v == '/' || v == '?') {
        out->push_back('%');
        out->push_back(Upper(path[i + 1]));
        out->push_back(Upper(path[i + 2]));
        i += 2;
        continue;
      }
      c = v;
      i += 2;
    }
    if (PathSafe(c)) {
      out->push_back(static_cast<char>(c));
    } else {
      AppendEncoded(c, out);
    }
  }
  if (out->size() == begin) out->push_back('/');
}

// A form field's text decoded as parse_qsl_to_bytes() does, a byte at a
// time: '+' is a space, then each triplet its byte.
class FormBytes {
 public:
  explicit FormBytes(std::string_view s) : s_(s) {}
  bool Next(unsigned char* c) {
    if (i_ == s_.size()) return false;
    if (Triplet(s_, i_)) {
      *c = Octet(s_, i_);
      i_ += 3;
    } else {
      *c = static_cast<unsigned char>(s_[i_] == '+' ? ' ' : s_[i_]);
      ++i_;
    }
    return true;
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

// The decoded bytes of two fields' texts compared (as Python compares
// bytes): <0, 0 or >0.
int CompareDecoded(std::string_view a, std::string_view b) {
  if (a == b) return 0;
  FormBytes x(a), y(b);
  for (unsigned char ca = 0, cb = 0;;) {
    const bool more_a = x.Next(&ca), more_b = y.Next(&cb);
    if (!more_a || !more_b) return int{more_a} - int{more_b};
    if (ca != cb) return ca < cb ? -1 : 1;
  }
}

// urlencode()'s quote_plus of the decoded text: unreserved bytes as they
// are, space as '+'; into `out`, or only counted when it is null.
size_t AppendFormRecoded(std::string_view s, std::string* out) {
  size_t size = 0;
  FormBytes bytes(s);
  for (unsigned char c = 0; bytes.Next(&c);) {
    const bool as_is = chars::Is(c, chars::kUnreserved) || c == ' ';
    size += as_is ? 1 : 3;
    if (!out) continue;
    if (as_is) {
      out->push_back(c == ' ' ? '+' : static_cast<char>(c));
    } else {
      AppendEncoded(c, out);
    }
  }
  return size;
}

// Past this, a query's list of fields is sized before it is filled and let
// go after, and so is the output (a line of millions of fields).
constexpr size_t kLongQueryBytes = size_t{1} << 16;

// Where the field that starts at `at` ends: its '&' or ';', or the end.
size_t FieldEnd(std::string_view query, size_t at) {
  while (at < query.size() && query[at] != '&' && query[at] != ';') ++at;
  return at;
}

// The name and value of the field that starts at `at`, as written.
struct RawField {
  std::string_view name, value;
};
RawField FieldAt(std::string_view query, size_t at) {
  const std::string_view field = query.substr(at, FieldEnd(query, at) - at);
  const size_t eq = std::min(field.find('='), field.size());
  return {field.substr(0, eq),
          eq < field.size() ? field.substr(eq + 1) : std::string_view()};
}

// parse_qsl_to_bytes(query, keep_blank_values=True), sort(), urlencode():
// fields split on '&' and ';', empty ones skipped, a field without '=' a
// name with an empty value; sorted by name then value, bytes compared.
// Decoded as they are compared and written; the fields of a long query
// each by its first byte alone (4 bytes a field however many a line has),
// a short one's parsed once (by their place in `parsed`).
void AppendQuery(std::string_view query, std::string* out) {
  thread_local std::vector<uint32_t> fields;
  thread_local std::vector<RawField> parsed;
  // Let go after a long query, also when an interrupt throws out of here.
  const internal::LetGoIfLarge<std::vector<uint32_t>> let_go(fields);
  fields.clear();
  parsed.clear();
  const bool long_query = query.size() > kLongQueryBytes;
  if (long_query) {  // sized once, let go after
    fields.reserve(std::count_if(query.begin(), query.end(), [](char c) {
                     return c == '&' || c == ';';
                   }) +
                   1);
  }
  size_t begin = 0, steps = 0;
  while (begin <= query.size()) {
    internal::Step(&steps);
    const size_t end = FieldEnd(query, begin);
    if (end > begin && long_query) {
      fields.push_back(static_cast<uint32_t>(begin));
    } else if (end > begin) {
      fields.push_back(static_cast<uint32_t>(parsed.size()));
      parsed.push_back(FieldAt(query, begin));
    }
    begin = end + 1;
  }
  const auto field = [&](uint32_t k) {
    return long_query ? FieldAt(query, k) : parsed[k];
  };
  if (fields.empty()) return;  // urlunsplit writes no '?' for ""
  if (long_query) {  // the output's size, so that it grows without a copy
    size_t size = out->size() + fields.size();  // '?' and each '&'
    for (uint32_t at : fields) {
      const RawField f = field(at);
      size += AppendFormRecoded(f.name, nullptr) + 1 +
              AppendFormRecoded(f.value, nullptr);
    }
    out->reserve(size);
  }
  std::sort(fields.begin(), fields.end(), [&](uint32_t a, uint32_t b) {
    internal::Step(&steps);
    const RawField x = field(a), y = field(b);
    const int c = CompareDecoded(x.name, y.name);
    return c < 0 || (c == 0 && CompareDecoded(x.value, y.value) < 0);
  });
  out->push_back('?');
  for (size_t k = 0; k < fields.size(); ++k) {
    if (k) out->push_back('&');
    const RawField f = field(fields[k]);
    AppendFormRecoded(f.name, out);
    out->push_back('=');
    AppendFormRecoded(f.value, out);
  }
}

}  // namespace

bool W3libKeepsAsIs(uint16_t f, std::string_view scheme, std::string_view host,
                    std::string_view path) {
  // Every byte of a valid path without '%' is PathSafe(), and scheme and
  // host have no upper case: only the structure can change.
  if (f & (flags::kHasPctEncoded | flags::kHasUpperCase | flags::kHasUserinfo |
           flags::kHasPort | flags::kHasQuery | flags::kHasFragment)) {
    return false;
  }
  if (path.empty() || path.find(';') != std::string_view::npos) return false;
  const bool netloc_scheme =
      (f & flags::kHasScheme) && Listed(scheme, kUsesNetloc);
  if (f & flags::kHasAuthority) {  // the path is empty or starts with '/'
    return !host.empty() || (netloc_scheme && path.compare(0, 2, "//") != 0);
  }
  return !netloc_scheme;  // else "//" would be added
}

namespace {

bool Utf8Valid(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = Utf8SequenceAt(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

// What urlparse() splits a URL into (no fragment: canonicalize_url drops
// it): the scheme as written, the netloc, the path with its parameters,
// and the query ("" when there is none).
struct Parts {
  std::string_view scheme, netloc, path, query;
};

// _safe_ParseResult(), then the canonical form: see AppendW3libCanonical().
void AppendCanonical(const Parts& p, std::string* out) {
  // urlsplit() lower-cases the scheme.
  thread_local std::string scheme, path;
  const internal::LetGoIfLarge<std::string> let_go(path);
  scheme.clear();
  for (char c : p.scheme) scheme.push_back(Lower(c));
  // urlparse() takes the ';' parameters of the last segment off the path,
  // for the schemes of uses_params.
  std::string_view full_path = p.path, params;
  if ((scheme.empty() || Listed(scheme, kUsesParams)) &&
      full_path.find(';') != std::string_view::npos) {
    const size_t last_slash = full_path.rfind('/');
    const size_t semi = full_path.find(
        ';', last_slash == std::string_view::npos ? 0 : last_slash);
    if (semi != std::string_view::npos) {
      params = full_path.substr(semi + 1);
      full_path = full_path.substr(0, semi);
    }
  }
  path.clear();
  AppendPath(full_path, &path);
  // urlunparse() adds ";params" only when not empty, quoted with the safe
  // set that keeps '#' (nothing to quote in a valid reference's).
  if (!params.empty()) {
    path.push_back(';');
    for (char ch : params) {
      const auto c = static_cast<unsigned char>(ch);
      if (PathSafe(c) || c == '#') {
        path.push_back(ch);
      } else {
        AppendEncoded(c, &path);
      }
    }
  }
  // The netloc is ASCII (IDNA leaves it as it is), lower-cased whole
  // (userinfo and triplets too), without trailing ':'.
  std::string_view netloc = p.netloc;
  while (!netloc.empty() && netloc.back() == ':') netloc.remove_suffix(1);
  if (!scheme.empty()) {
    out->append(scheme);
    out->push_back(':');
  }
  // urlunsplit(): "//" and the netloc when there is one, or when the scheme
  // is one of uses_netloc and the path does not start with "//" (so
  // "http:////a" comes back as "http://a").
  if (!netloc.empty() ||
      (!scheme.empty() && Listed(scheme, kUsesNetloc) &&
       path.compare(0, 2, "//") != 0)) {
    out->append("//");
    for (char c : netloc) out->push_back(Lower(c));
    if (path[0] != '/') out->push_back('/');
  }
  out->append(path);
  AppendQuery(p.query, out);
}

}  // namespace

void AppendW3libCanonical(const UriReference& uri, std::string* out) {
  AppendCanonical(Parts{uri.scheme().value_or(std::string_view()),
                        uri.authority().value_or(std::string_view()),
                        uri.path(), uri.query().value_or(std::string_view())},
                  out);
}

bool AppendW3libCanonicalOfText(std::string_view text, std::string* out) {
  // w3lib's _strip(): C0 controls and spaces off both ends; urlsplit()
  // then drops every TAB, CR and LF.
  while (!text.empty() && static_cast<unsigned char>(text.front()) <= ' ')
    text.remove_prefix(1);
  while (!text.empty() && static_cast<unsigned char>(text.back()) <= ' ')
    text.remove_suffix(1);
  thread_local std::string url;
  const internal::LetGoIfLarge<std::string> let_go(url);
  url.clear();
  for (char c : text)
    if (c != '\t' && c != '\r' && c != '\n') url.push_back(c);
  // The text is str in Python: bytes that are not UTF-8 never get there.
  if (!Utf8Valid(url)) return false;
  std::string_view rest = url;
  Parts p;
  // A scheme: a letter, then letters, digits, '+', '-' or '.', then ':'.
  const size_t colon = rest.find(':');
  if (colon != std::string_view::npos && colon > 0 &&
      chars::Is(rest[0], chars::kAlpha) &&
      std::all_of(rest.begin(), rest.begin() + colon, [](char c) {
        return chars::Is(c, chars::kAlpha) || chars::Is(c, chars::kDigit) ||
               c == '+' || c == '-' || c == '.';
      })) {
    p.scheme = rest.substr(0, colon);
    rest.remove_prefix(colon + 1);
  }
  if (rest.substr(0, 2) == "//") {
    const size_t end = std::min(rest.find_first_of("/?#", 2), rest.size());
    p.netloc = rest.substr(2, end - 2);
    rest.remove_prefix(end);
    // urlsplit() raises for a '[' without ']' or the other way round; IDNA
    // of a netloc beyond ASCII is not w3lib's answer to copy here.
    if ((p.netloc.find('[') == std::string_view::npos) !=
            (p.netloc.find(']') == std::string_view::npos) ||
        std::any_of(p.netloc.begin(), p.netloc.end(),
                    [](char c) { return static_cast<unsigned char>(c) >= 0x80; }))
      return false;
  }
  rest = rest.substr(0, std::min(rest.find('#'), rest.size()));
  const size_t question = std::min(rest.find('?'), rest.size());
  p.path = rest.substr(0, question);
  if (question < rest.size()) p.query = rest.substr(question + 1);
  AppendCanonical(p, out);
  return true;
}

}  // namespace uriscan
