// SPDX-License-Identifier: MIT
// Query parameters for uri_param() and uri_params(), from the library's
// analytics API (uriscan/analytics.h): the split of the command's `params`
// and parameter columns, and application/x-www-form-urlencoded decoding.
#ifndef URISCAN_POSTGRES_QUERY_PARAMS_H_
#define URISCAN_POSTGRES_QUERY_PARAMS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "uriscan/analytics.h"
#include "uriscan/uriscan.h"

namespace uriscan {
namespace pg {

// Calls visit(name, value) for each parameter of the reference `text`, in
// order, both as written (none for an invalid reference or one without a
// query).
template <class Visit>
void ForEachRawParam(std::string_view text, Visit visit) {
  thread_local ComponentSpans spans;
  thread_local QueryParams params;
  const uint32_t offsets[2] = {0, static_cast<uint32_t>(text.size())};
  Scan(Batch{text.data(), offsets, 1}, &spans);
  ExtractQueryParams(text.data(), spans, &params);
  for (size_t k = 0; k < params.size(); ++k) {
    visit(text.substr(params.name_begin[k],
                      params.name_end[k] - params.name_begin[k]),
          text.substr(params.value_begin[k],
                      params.value_end[k] - params.value_begin[k]));
  }
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
