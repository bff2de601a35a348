// SPDX-License-Identifier: MIT
// Internal (not installed): whether a row is already its own normal form,
// from its columns alone (SurelyNormal) or with its scheme (AlreadyNormal).
#ifndef URISCAN_SRC_TRANSFORM_ALREADY_NORMAL_H_
#define URISCAN_SRC_TRANSFORM_ALREADY_NORMAL_H_

#include <cstddef>

#include "uriscan/normalize.h"
#include "uriscan/spans.h"

namespace uriscan {

// True when row i of `in` (scanned into `spans`, and valid) is already its
// own normal form under `profile`, as its flags and the scheme rules show
// without rewriting it. A false answer only means "look closer". `fold_www`
// is NormalizeOptions::fold_www (the crawler profile's host rule).
bool AlreadyNormal(const Batch& in, const ComponentSpans& spans, size_t i,
                   Profile profile, bool fold_www = false);

// True when row i (valid) is surely its own normal form under the syntax
// or scheme profile, judged from its flags, its first byte and as few
// boundary columns as can tell; false means "ask AlreadyNormal()". These
// are the rows that no rule of RFC 3986 section 6.2.2 (no percent-encoding,
// upper case or dot segment) and no scheme rule of section 6.2.3 can
// touch: those rules need a port, an authority with an empty path, or a
// "file" or "mailto" scheme. Most rows of real URL lists are such rows;
// each column read costs more than the test, and the row's bytes are read
// next anyway (to be hashed or copied).
inline bool SurelyNormal(const char* data, const ComponentSpans& s, size_t i,
                         Profile profile) {
  const uint16_t f = s.flags[i];
  if (f & (flags::kHasPctEncoded | flags::kHasUpperCase |
           flags::kHasDotSegment)) {
    return false;
  }
  if (profile == Profile::kSyntax) return true;
  if (profile != Profile::kScheme || (f & flags::kHasPort)) return false;
  // "file" and "mailto" (and, to be sure, every scheme starting with
  // their letters) are left to AlreadyNormal(). A row with a scheme has at
  // least two bytes; an empty row may come with no bytes at all.
  if (f & flags::kHasScheme) {
    const char first = data[s.uri_begin[i]];
    if (first == 'f' || first == 'm') return false;
  }
  return !(f & flags::kHasAuthority) | (s.path_begin[i] != s.path_end[i]);
}

}  // namespace uriscan

#endif  // URISCAN_SRC_TRANSFORM_ALREADY_NORMAL_H_
