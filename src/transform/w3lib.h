// SPDX-License-Identifier: MIT
// Internal (not installed): the w3lib profile, Scrapy's canonical URL form.
#ifndef URISCAN_SRC_TRANSFORM_W3LIB_H_
#define URISCAN_SRC_TRANSFORM_W3LIB_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "uriscan/uri.h"

namespace uriscan {

// Appends what w3lib.url.canonicalize_url(text) returns (w3lib 2.1 with its
// defaults, on Python's urllib.parse) for a valid reference: the scheme
// and the whole authority lower-cased, trailing ':' dropped; the path's
// triplets decoded and the bytes re-encoded with w3lib's safe set ("%2F"
// and "%3F" stay encoded, "%25" becomes a bare '%'), "/" when empty; the
// ';' parameters of the last segment kept as written (an empty one goes);
// the query split on '&' and ';', each field decoded as a form
// (application/x-www-form-urlencoded), blank values kept, sorted by name
// then value and re-encoded as a form; no fragment; then urlunparse's
// joining rules for the scheme.
void AppendW3libCanonical(const UriReference& uri, std::string* out);

// The same of any text, as canonicalize_url() reads it: split as
// urllib.parse.urlparse() splits (no RFC 3986 grammar: a '"', '{' or '['
// anywhere), the bytes outside w3lib's safe sets percent-encoded. False
// (appending nothing) where w3lib raises (text that is not UTF-8, an
// unbalanced '[' in the netloc) or where its answer would come from IDNA
// (a netloc beyond ASCII).
bool AppendW3libCanonicalOfText(std::string_view text, std::string* out);

// Whether AppendW3libCanonical() gives a valid reference back as it is,
// from its flags (no '%', no upper case in scheme or host) and its scheme,
// host and path: no userinfo, port, query or fragment, a path that is not
// empty and holds no ';', and a "//" that urlunsplit() writes back exactly
// when the reference has one. False only means "canonicalize to know".
bool W3libKeepsAsIs(uint16_t flags, std::string_view scheme,
                    std::string_view host, std::string_view path);

}  // namespace uriscan

#endif  // URISCAN_SRC_TRANSFORM_W3LIB_H_
