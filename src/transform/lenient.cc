// SPDX-License-Identifier: MIT
// RepairReference(): RFC 3987 sec. 3.1 mapping, lone '%', IDNA hosts.
#include "uriscan/lenient.h"

#include <algorithm>

#include "src/char_class.h"
#include "uriscan/hosts.h"

namespace uriscan {
namespace {

bool IsHex(char c) { return chars::Is(c, chars::kHexDig); }

// The bytes RFC 3987 sec. 3.1 maps to pct-encoded octets: non-ASCII, and
// the printable ASCII ones outside every RFC 3986 character class, which
// logs hold (space " < > \ ^ ` { | }).
bool NeedsEncoding(unsigned char c) {
  return c >= 0x80 || (c >= 0x20 && c < 0x7f && !chars::Is(c, chars::kAllowed));
}

void AppendEncoded(std::string_view s, std::string* out) {
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (NeedsEncoding(c)) {
      out->push_back('%');
      out->push_back(chars::kUpperHexDigits[c >> 4]);
      out->push_back(chars::kUpperHexDigits[c & 15]);
    } else if (c == '%' &&
               !(i + 2 < s.size() && IsHex(s[i + 1]) && IsHex(s[i + 2]))) {
      out->append("%25");
    } else {
      out->push_back(static_cast<char>(c));
    }
  }
}

// Where the host of `ref` lies (RFC 3986 sec. 3.2.2), when there is an
// authority: after "//" (itself after a scheme, or at the start), after the
// last '@', before a ":port"; false without one.
bool FindHost(std::string_view ref, size_t* begin, size_t* end) {
  size_t i = 0;
  while (i < ref.size() && chars::Is(ref[i], chars::kSchemeChar)) ++i;
  size_t slashes = 0;
  if (i > 0 && i < ref.size() && ref[i] == ':' &&
      chars::Is(ref[0], chars::kAlpha)) {
    slashes = i + 1;
  }
  if (ref.compare(slashes, 2, "//") != 0) return false;
  const size_t authority = slashes + 2;
  const size_t authority_end =
      std::min(ref.find_first_of("/?#", authority), ref.size());
  const size_t at = ref.rfind('@', authority_end - 1);
  *begin = at != std::string_view::npos && at >= authority ? at + 1 : authority;
  *end = authority_end;
  if (*begin < *end && ref[*begin] == '[') return true;  // an IP literal
  const size_t colon = ref.rfind(':', authority_end - 1);
  if (colon != std::string_view::npos && colon >= *begin) *end = colon;
  return true;
}

}  // namespace

bool RepairReference(std::string_view line, std::string* out) {
  const size_t start = out->size();
  size_t host_begin = 0, host_end = 0;
  bool idna = false;
  if (FindHost(line, &host_begin, &host_end)) {
    const std::string_view host = line.substr(host_begin, host_end - host_begin);
    bool ascii = true;
    for (char c : host) ascii &= static_cast<unsigned char>(c) < 0x80;
    if (!ascii) {
      std::string ace;
      if (AppendIdnaHost(host, &ace)) {
        AppendEncoded(line.substr(0, host_begin), out);
        out->append(ace);
        AppendEncoded(line.substr(host_end), out);
        idna = true;
      }
    }
  }
  if (!idna) AppendEncoded(line, out);
  return std::string_view(*out).substr(start) != line;
}

}  // namespace uriscan
