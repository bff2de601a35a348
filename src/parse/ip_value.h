// SPDX-License-Identifier: MIT
// The address a host denotes: the IPv4 readings of inet_aton and of the
// WHATWG URL Standard, the value of an IPv6address, and the ranges they fall
// in.
#ifndef URISCAN_SRC_PARSE_IP_VALUE_H_
#define URISCAN_SRC_PARSE_IP_VALUE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace uriscan {
namespace ip {

// inet_aton's grammar (POSIX inet_addr; RFC 3986 sec. 7.4 describes it): 1 to 4
// parts separated by '.', each a C integer constant: "0x"/"0X" then hex
// digits, else "0" then octal digits, else decimal. Each part but the last is
// one byte; the last fills the bytes left (32, 24, 16 or 8 bits). A part out
// of range, an empty part, a digit outside its radix ("08", "0x") or any
// other byte means "not an address" (nullopt). Returns the address as a
// number, most significant byte first (127.0.0.1 is 0x7f000001).
std::optional<uint32_t> ParseInetAton(std::string_view text);

// The WHATWG URL Standard's IPv4 parser (section "IPv4 parser" of the host
// parsing algorithm), on a host that is already percent-decoded and ASCII
// lower-cased. Where it reads more than inet_aton:
// - a single trailing '.' is dropped ("127.1." is 127.0.0.1);
// - a part that is a bare "0x" is 0 ("0x.0x" is 0.0.0.0).
// Like inet_aton it refuses empty parts elsewhere ("1..2", ".1"), more than
// four parts, a digit outside its radix and any value out of range.
std::optional<uint32_t> ParseWhatwgIPv4(std::string_view text);

// A reg-name host as an IPv4 address, the reading behind the ip-rare-form
// risk flag: inet_aton on the text as written, else the WHATWG reading of
// the percent-decoded text ("127.1", "0x7f.1", "2130706433", "127.1.").
// Both need a digit first, so most names are settled by their first byte.
// The host's letters may be in either case; a triplet must be valid.
std::optional<uint32_t> ParseRegNameIPv4(std::string_view host);

// The 128-bit value of a text that matches IPv6address (RFC 3986 sec. 3.2.2),
// without brackets; nullopt if it does not match.
std::optional<std::array<uint8_t, 16>> ParseIPv6Value(std::string_view text);

// Where an address falls. Ranges from the IANA special-purpose address
// registries (RFC 6890): loopback 127/8 and ::1 (RFC 1122, RFC 4291),
// private 10/8, 172.16/12, 192.168/16 (RFC 1918), shared 100.64/10
// (RFC 6598) and unique-local fc00::/7 (RFC 4193), link-local 169.254/16
// (RFC 3927) and fe80::/10 (RFC 4291), unspecified 0/8 ("this network",
// RFC 1122) and ::.
enum class Range : uint8_t {
  kOther = 0,
  kLoopback,
  kPrivate,
  kLinkLocal,
  kUnspecified,
};
Range ClassifyIPv4(uint32_t address);

struct IPv6Class {
  Range range = Range::kOther;
  // IPv4 inside: IPv4-mapped ::ffff:0:0/96, IPv4-compatible ::/96 (but ::
  // and ::1; RFC 4291 sec. 2.5.5) or the NAT64 prefix 64:ff9b::/96 (RFC 6052).
  bool embeds_ipv4 = false;
};
// A mapped or compatible address is judged on its IPv4 part, as a host
// stack that accepts it sends to that IPv4 address. A NAT64 one is not:
// RFC 6052 sec. 3.1 forbids translating non-global IPv4 addresses.
IPv6Class ClassifyIPv6(const std::array<uint8_t, 16>& address);

}  // namespace ip
}  // namespace uriscan

#endif  // URISCAN_SRC_PARSE_IP_VALUE_H_
