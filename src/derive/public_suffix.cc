// SPDX-License-Identifier: MIT
// PublicSuffixPart(): libpsl lookups behind a per-thread cache of hosts.
#include "src/derive/public_suffix.h"

#include <libpsl.h>

#include <optional>
#include <string>
#include <unordered_map>

namespace uriscan {
namespace derive {
namespace {

constexpr size_t kSuffixCacheSize = 1 << 16;  // hosts per thread

// Both parts at once: a row that wants one usually wants the other.
struct Answer {
  std::optional<std::string> registrable, suffix;
};

}  // namespace

bool PublicSuffixPart(const psl_ctx_st* psl, const UriReference& uri,
                      SuffixPart part, std::string_view* out) {
  const auto host = uri.host();
  if (!uri.valid() || !host || host->empty() ||
      uri.host_kind() != HostKind::kRegName)
    return false;
  thread_local std::unordered_map<std::string, Answer> cache;
  thread_local std::string lower;
  lower.assign(*host);
  for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? c + 32 : c;
  auto it = cache.find(lower);
  if (it == cache.end()) {
    if (cache.size() >= kSuffixCacheSize) cache.clear();
    Answer answer;
    if (const char* r = psl_registrable_domain(psl, lower.c_str()))
      answer.registrable = r;
    if (const char* p = psl_unregistrable_domain(psl, lower.c_str()))
      answer.suffix = p;
    it = cache.emplace(lower, std::move(answer)).first;
  }
  const std::optional<std::string>& value =
      part == SuffixPart::kRegistrableDomain ? it->second.registrable
                                             : it->second.suffix;
  if (!value) return false;
  *out = *value;
  return true;
}

}  // namespace derive
}  // namespace uriscan
