// SPDX-License-Identifier: MIT
// The registrable domain and public suffix of a reference's host, from a
// Public Suffix List loaded by libpsl: the command's registrable_domain and
// public_suffix columns and the PostgreSQL extension's functions.
#ifndef URISCAN_SRC_DERIVE_PUBLIC_SUFFIX_H_
#define URISCAN_SRC_DERIVE_PUBLIC_SUFFIX_H_

#include <string_view>

#include "uriscan/uri.h"

struct psl_ctx_st;

namespace uriscan {
namespace derive {

enum class SuffixPart : bool { kRegistrableDomain, kPublicSuffix };

// Sets *out to the part of the lower-cased host of `uri` that `psl` (not
// owned) gives, and returns true; returns false for an invalid reference,
// one without a host name (no authority, an empty host, an IP literal or
// IPv4 address) and a host the list has no such part for (a host that is
// itself a public suffix has no registrable domain). *out stays valid until
// the calling thread's next call: answers are kept per thread, since logs
// repeat their hosts and a lookup costs hundreds of nanoseconds.
bool PublicSuffixPart(const psl_ctx_st* psl, const UriReference& uri,
                      SuffixPart part, std::string_view* out);

}  // namespace derive
}  // namespace uriscan

#endif  // URISCAN_SRC_DERIVE_PUBLIC_SUFFIX_H_
