// SPDX-License-Identifier: MIT
// PublicSuffixList (include/uriscan/hosts.h) over libpsl.
#include <libpsl.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "uriscan/hosts.h"

namespace uriscan {
namespace {

constexpr size_t kCacheSize = 1 << 16;  // hosts per thread

struct Answer {
  std::string registrable, suffix;
  bool has_registrable, has_suffix;
};

}  // namespace

struct PublicSuffixList::Impl {
  psl_ctx_t* psl;
  bool owned;
  // Which list a thread's cache holds answers of (a freed list's address
  // may be reused, its number never is).
  uint64_t id = next_id.fetch_add(1) + 1;
  static std::atomic<uint64_t> next_id;
};
std::atomic<uint64_t> PublicSuffixList::Impl::next_id{0};

PublicSuffixList::PublicSuffixList()
    : impl_(new Impl{const_cast<psl_ctx_t*>(psl_builtin()), false}) {}

PublicSuffixList::PublicSuffixList(Impl* impl) : impl_(impl) {}

std::unique_ptr<PublicSuffixList> PublicSuffixList::FromFile(
    const std::string& file) {
  psl_ctx_t* psl = psl_load_file(file.c_str());
  if (!psl) return nullptr;
  return std::unique_ptr<PublicSuffixList>(
      new PublicSuffixList(new Impl{psl, true}));
}

PublicSuffixList::~PublicSuffixList() {
  if (impl_->owned) psl_free(impl_->psl);
  delete impl_;
}

PublicSuffixList::Suffixes PublicSuffixList::Lookup(
    std::string_view host) const {
  if (host.empty()) return {};
  // One cache per thread, emptied when another list asks.
  thread_local std::unordered_map<std::string, Answer> cache;
  thread_local uint64_t cache_owner = 0;
  thread_local std::string lower;
  if (cache_owner != impl_->id) {
    cache.clear();
    cache_owner = impl_->id;
  }
  lower.assign(host);
  for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? c + 32 : c;
  auto it = cache.find(lower);
  if (it == cache.end()) {
    if (cache.size() >= kCacheSize) cache.clear();
    const char* r = psl_registrable_domain(impl_->psl, lower.c_str());
    const char* p = psl_unregistrable_domain(impl_->psl, lower.c_str());
    it = cache.emplace(lower, Answer{r ? r : "", p ? p : "", r != nullptr,
                                     p != nullptr})
             .first;
  }
  Suffixes out;
  if (it->second.has_registrable) out.registrable_domain = it->second.registrable;
  if (it->second.has_suffix) out.public_suffix = it->second.suffix;
  return out;
}

std::optional<std::string_view> PublicSuffixList::Subdomain(
    std::string_view host) const {
  const auto registrable = Lookup(host).registrable_domain;
  if (!registrable) return std::nullopt;
  if (registrable->size() >= host.size()) return std::string_view();
  return host.substr(0, host.size() - registrable->size() - 1);
}

}  // namespace uriscan
