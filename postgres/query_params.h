// SPDX-License-Identifier: MIT
// Query parameters for uri_param() and uri_params(), from the library's
// analytics API (uriscan/analytics.h): the split of the command's `params`
// and parameter columns, and application/x-www-form-urlencoded decoding.
#ifndef URISCAN_POSTGRES_QUERY_PARAMS_H_
#define URISCAN_POSTGRES_QUERY_PARAMS_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "uriscan/analytics.h"
#include "uriscan/uriscan.h"

namespace uriscan {
namespace pg {

// Calls visit(name, value) for each parameter of the reference `text`, in
// order, both as written (none for an invalid reference or one without a
// query), until visit returns false. The split of ExtractQueryParams()
// (analytics.h: fields on '&', empty ones skipped, each at its first '='),
// walked in place: a call keeps no column per parameter, so its memory is
// what the caller keeps of them.
template <class Visit>
void ForEachRawParam(std::string_view text, Visit visit) {
  const UriReference uri = ParseUriReference(text);
  const auto query = uri.query();
  if (!uri.valid() || !query) return;
  ForEachQueryField(*query, visit);
}

// Appends `raw` form-decoded ('+' a space, then each "%HH" that byte).
inline void AppendFormDecoded(std::string_view raw, std::string* out) {
  const size_t at = out->size();
  out->resize(at + raw.size());
  out->resize(at + Decode(raw, Decoding::kForm, out->data() + at));
}

}  // namespace pg
}  // namespace uriscan

#endif  // URISCAN_POSTGRES_QUERY_PARAMS_H_
