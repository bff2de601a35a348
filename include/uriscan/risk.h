// SPDX-License-Identifier: MIT
// Risk flags (RFC 3986 sec. 7): what makes a valid URI reference mislead a
// person, a filter or a lenient server, as a uint32_t column from spans.
#ifndef URISCAN_RISK_H_
#define URISCAN_RISK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "uriscan/export.h"
#include "uriscan/spans.h"
#include "uriscan/uri.h"

namespace uriscan {

// Bits of the risk column. Bit k is the k-th name in the output of
// `uriscan audit`, so the order is part of the contract; never renumber.
namespace risks {
// userinfo is defined, even empty: "http://u@h/" (sec. 7.5).
inline constexpr uint32_t kCredentials = 1u << 0;
// userinfo holds a ':' with at least one byte after it: "u:pw@" (sec. 3.2.1,
// deprecated; sec. 7.5).
inline constexpr uint32_t kPassword = 1u << 1;
// userinfo holds a '.' and no ':', so it reads as a host name:
// "http://www.bank.example@evil.example/" (sec. 7.6).
inline constexpr uint32_t kUserinfoHostLike = 1u << 2;
// A reg-name that inet_aton or the WHATWG URL Standard reads as an IPv4
// address: "0x7f.1", "0177.0.0.1", "127.1", "2130706433", "127.0.0.1."
// (sec. 7.4). The host is percent-decoded first, as WHATWG does.
inline constexpr uint32_t kIpRareForm = 1u << 3;
// The address the host denotes (an IPv4address, a rare form, an IPv6
// literal, or the IPv4 inside an IPv4-mapped or -compatible one) is in:
inline constexpr uint32_t kIpLoopback = 1u << 4;     // 127/8, ::1
inline constexpr uint32_t kIpPrivate = 1u << 5;      // 10/8, 172.16/12,
                                                     // 192.168/16, 100.64/10,
                                                     // fc00::/7
inline constexpr uint32_t kIpLinkLocal = 1u << 6;    // 169.254/16, fe80::/10
inline constexpr uint32_t kIpUnspecified = 1u << 7;  // 0.0.0.0/8, ::
// An IPv6 literal whose value embeds IPv4: ::ffff:0:0/96 (mapped), ::/96
// but :: and ::1 (compatible), 64:ff9b::/96 (NAT64).
inline constexpr uint32_t kIpEmbeddedIPv4 = 1u << 8;
// A '%' in the host (sec. 7.3: a decoding server sees another host).
inline constexpr uint32_t kHostPctEncoded = 1u << 9;
// %2F %3F %23 %40 %3A %5B %5D %5C (any case) in the path (sec. 7.3).
inline constexpr uint32_t kEncodedDelimiter = 1u << 10;
// "%25" followed by two hex digits, anywhere: "%252F" (sec. 7.3).
inline constexpr uint32_t kDoubleEncoded = 1u << 11;
// %00-%1F or %7F, anywhere (sec. 7.3; sec. 7.2 for CR and LF).
inline constexpr uint32_t kEncodedControl = 1u << 12;
// A ".." segment that would remove a segment above the root (sec. 5.2.4,
// sec. 7.3). Judged where the path stands on its own: a reference with a scheme
// or an authority, or a path that starts with "/". "../a" alone climbs
// from wherever its base is, so it is not flagged.
inline constexpr uint32_t kDotSegmentAboveRoot = 1u << 13;
// A path segment that is "." or ".." once %2E (any case) is decoded, with
// at least one %2E in it: "%2e%2E", ".%2e" (sec. 7.3, sec. 6.2.2.2).
inline constexpr uint32_t kEncodedDotSegment = 1u << 14;
// The scheme is javascript, vbscript or data, in any case.
inline constexpr uint32_t kScriptScheme = 1u << 15;
// The port's value is above 65535 (the grammar allows any digits, sec. 3.2.3).
inline constexpr uint32_t kPortOutOfRange = 1u << 16;
// How many named bits there are: bits 0 .. kCount - 1.
inline constexpr int kCount = 17;
// The whole value for an invalid reference (no other bit is ever set then).
inline constexpr uint32_t kInvalid = 1u << 31;
}  // namespace risks

// Computes the risk column of a scanned batch: (*out)[i] for row i of
// `spans`, which must come from a scan of `batch` (Scan(), ScanScalar(), or
// Scanner::ScanLines() over batch.data, whose offsets are not read). `*out`
// is resized to spans.size(), its capacity reused. Reads only the bytes the
// spans' flags say are worth reading (userinfo, scheme, a host that starts
// with a digit or '%', IP hosts, the '%' triplets of rows that have any, paths with
// dot segments); never parses a row again.
URISCAN_EXPORT void RiskFlags(const Batch& batch, const ComponentSpans& spans,
                              std::vector<uint32_t>* out);
// The same for one parsed reference (risks::kInvalid when !uri.valid()).
[[nodiscard]] URISCAN_EXPORT uint32_t RiskFlagsOf(const UriReference& uri);

// The stable name of bit `bit` ("credentials", ...), nullptr past kCount.
URISCAN_EXPORT const char* RiskFlagName(int bit);
// The names of the bits set, in bit order, joined by ','; "invalid" for
// risks::kInvalid; "" for 0. The FLAGS field of `uriscan audit`.
URISCAN_EXPORT std::string RiskFlagNames(uint32_t risk_flags);

}  // namespace uriscan

#endif  // URISCAN_RISK_H_
