// SPDX-License-Identifier: MIT
// XXH3 of the normal form, seeded by the profile (see fingerprint.h).
#include "uriscan/fingerprint.h"

#include <string>

#define XXH_INLINE_ALL  // short keys: let the compiler inline XXH3
#include <xxhash.h>

#include "src/transform/scratch.h"
#include "src/transform/already_normal.h"

namespace uriscan {
namespace {

uint64_t ProfileSeed(Profile profile, const NormalizeOptions& options) {
  std::string tag("uriscan fingerprint");
  tag.push_back('\0');
  tag += ProfileName(profile);
  tag.push_back('\0');
  tag += std::to_string(kProfileVersion);
  if (profile == Profile::kCrawler) {
    for (const std::string& p : options.tracking_params) {
      tag.push_back('\0');
      tag += p;
    }
    // No parameter name starts with '+', so no list reads as this flag.
    if (options.fold_www) {
      tag.push_back('\0');
      tag += "+fold-www";
    }
  }
  return XXH3_64bits(tag.data(), tag.size());
}

uint64_t Hash64(std::string_view s, uint64_t seed) {
  const uint64_t h = XXH3_64bits_withSeed(s.data(), s.size(), seed);
  return h ? h : 1;
}

Key128 Hash128(std::string_view s, uint64_t seed) {
  const XXH128_hash_t h = XXH3_128bits_withSeed(s.data(), s.size(), seed);
  Key128 k{h.low64, h.high64};
  if (k.low == 0 && k.high == 0) k.low = 1;
  return k;
}

}  // namespace

Fingerprinter::Fingerprinter(Profile profile, NormalizeOptions options)
    : profile_(profile),
      options_(std::move(options)),
      seed_(ProfileSeed(profile_, options_)) {}

uint64_t Fingerprinter::Key64(std::string_view uri) const {
  std::string normal;
  if (!Normalize(ParseUriReference(uri), profile_, &normal, options_)) return 0;
  return Hash64(normal, seed_);
}

Key128 Fingerprinter::Key128Of(std::string_view uri) const {
  std::string normal;
  if (!Normalize(ParseUriReference(uri), profile_, &normal, options_)) return {};
  return Hash128(normal, seed_);
}

// (*keys)[i] = hash(normal form of row i, seed), or Key{} (0) when row i
// has none (invalid, but under w3lib where w3lib canonicalizes it).
template <class Key, class Hash>
void Fingerprinter::Fill(const Batch& batch, const ComponentSpans& spans,
                         Hash hash, std::vector<Key>* keys) const {
  keys->resize(batch.count);
  thread_local std::string normal;
  const internal::LetGoIfLarge<std::string> let_go(normal);
  for (size_t i = 0; i < batch.count; ++i) {
    if (spans.error_kind[i] != 0) {
      normal.clear();
      (*keys)[i] = profile_ == Profile::kW3lib &&
                           Normalize(spans.Row(i, batch.data), profile_,
                                     &normal, options_)
                       ? hash(std::string_view(normal), seed_)
                       : Key{};
    } else if (SurelyNormal(batch.data, spans, i, profile_) ||
               AlreadyNormal(batch, spans, i, profile_, options_.fold_www)) {
      (*keys)[i] = hash(std::string_view(batch.data + spans.uri_begin[i],
                                         spans.uri_end[i] - spans.uri_begin[i]),
                        seed_);
    } else {
      normal.clear();
      (void)Normalize(spans.Row(i, batch.data), profile_, &normal,
                      options_);  // the row is valid: checked above
      (*keys)[i] = hash(std::string_view(normal), seed_);
    }
  }
}

void Fingerprinter::Batch64(const Batch& batch, const ComponentSpans& spans,
                            std::vector<uint64_t>* keys) const {
  Fill(batch, spans,
       [](std::string_view s, uint64_t seed) { return Hash64(s, seed); }, keys);
}

void Fingerprinter::Batch128(const Batch& batch, const ComponentSpans& spans,
                             std::vector<Key128>* keys) const {
  Fill(batch, spans,
       [](std::string_view s, uint64_t seed) { return Hash128(s, seed); }, keys);
}

}  // namespace uriscan
