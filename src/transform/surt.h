// SPDX-License-Identifier: MIT
// The two ways AppendIaSurt() (include/uriscan/hosts.h) makes a key, apart
// for the differential test and the benchmark.
#ifndef URISCAN_SRC_TRANSFORM_SURT_H_
#define URISCAN_SRC_TRANSFORM_SURT_H_

#include <string>
#include <string_view>

namespace uriscan {
namespace surt_internal {

// The key of a URL of the common shape (a plain http or https URL that no
// step of the library's canonicalizers rewrites but for case, "www.", the
// default port, a trailing '/' and the order of query fields), written in
// one pass; false, appending nothing, for any other URL.
bool AppendCommonIaSurt(std::string_view url, std::string* out);

// The library's steps one by one, for every URL (AppendIaSurt's contract).
bool AppendFullIaSurt(std::string_view url, std::string* out);

// The Internet Archive canonicalizer's stripPathSessionID(): the last
// ASP.NET cookieless session segment ("/(S(24 letters or digits))/",
// "/(X(...)S(...))/" or "/(24 letters or digits)/") before a path to an
// .aspx page goes. Linear in the path's size. The crawler profile strips
// it as the surt column does.
void StripPathSessionIds(std::string* path);

// The IDNA step of the library (Python's "idna" codec, IDNA 2003): UTF-8
// text to A-labels by libidn2's UTS #46 transitional processing, which maps
// as IDNA 2003 does for the names both accept ("fa%C3%9F.de", sharp s, is "fass.de").
// False, `ace` untouched, where libidn2 refuses the name. Every derived host
// column and the crawler profile map hosts through it
// (AppendIdnaHost() in include/uriscan/hosts.h).
bool ToIdnaAscii(const std::string& utf8, std::string* ace);

}  // namespace surt_internal
}  // namespace uriscan

#endif  // URISCAN_SRC_TRANSFORM_SURT_H_
