// SPDX-License-Identifier: MIT
// Query parameters for uri_param() and uri_params(): the split and the
// application/x-www-form-urlencoded decoding that the command's parameter
// columns use (docs/library.md, "PostgreSQL"). A stand-in, kept in this
// one place until the library gives parameters and decoding itself; the
// extension then calls that instead and this file goes.
#ifndef URISCAN_POSTGRES_QUERY_PARAMS_H_
#define URISCAN_POSTGRES_QUERY_PARAMS_H_

#include <algorithm>
#include <string>
#include <string_view>

#include "src/char_class.h"

namespace uriscan {
namespace pg {

// Calls visit(name, value) for each field of `query` in order, both as
// written: fields split on '&' (';' is not a separator), a field at its
// first '=' (none: an empty value), empty fields skipped.
template <class Visit>
void ForEachRawParam(std::string_view query, Visit visit) {
  while (!query.empty()) {
    const size_t amp = std::min(query.find('&'), query.size());
    const std::string_view field = query.substr(0, amp);
    query.remove_prefix(amp == query.size() ? amp : amp + 1);
    if (field.empty()) continue;
    const size_t eq = field.find('=');
    if (eq == std::string_view::npos) {
      visit(field, std::string_view());
    } else {
      visit(field.substr(0, eq), field.substr(eq + 1));
    }
  }
}

// application/x-www-form-urlencoded: '+' is a space, then each "%HH" is
// that byte (a '%' without two hex digits after it stays as it is).
inline void AppendFormDecoded(std::string_view raw, std::string* out) {
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (c == '+') {
      out->push_back(' ');
    } else if (c == '%' && i + 2 < raw.size() &&
               chars::Is(raw[i + 1], chars::kHexDig) &&
               chars::Is(raw[i + 2], chars::kHexDig)) {
      out->push_back(static_cast<char>(chars::HexValue(raw[i + 1]) * 16 +
                                       chars::HexValue(raw[i + 2])));
      i += 2;
    } else {
      out->push_back(c);
    }
  }
}

}  // namespace pg
}  // namespace uriscan

#endif  // URISCAN_POSTGRES_QUERY_PARAMS_H_
