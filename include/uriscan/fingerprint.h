// SPDX-License-Identifier: MIT
// Fingerprints: 64- and 128-bit XXH3 keys of a URI's normal form under a
// profile, whole batches at a time.
#ifndef URISCAN_FINGERPRINT_H_
#define URISCAN_FINGERPRINT_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "uriscan/export.h"
#include "uriscan/normalize.h"
#include "uriscan/spans.h"

namespace uriscan {

struct Key128 {
  uint64_t low = 0, high = 0;
  friend bool operator==(Key128 a, Key128 b) {
    return a.low == b.low && a.high == b.high;
  }
  friend bool operator!=(Key128 a, Key128 b) { return !(a == b); }
};

// The key of a URI is XXH3 (xxHash 0.8, whose output is fixed across
// versions, machines and byte orders) of its normal form, seeded with the
// profile's seed:
//
//   seed = XXH3_64bits("uriscan fingerprint\0" NAME "\0" VERSION
//                      ["\0" PARAM ...])
//
// NAME is ProfileName(profile), VERSION is kProfileVersion in decimal, and
// the PARAMs (crawler only) are NormalizeOptions::tracking_params in order,
// then "+fold-www" when NormalizeOptions::fold_www is set.
// Two profiles, two versions of one, or two lists of tracking parameters
// thus hash the same bytes to unrelated keys. The 64-bit key is
// XXH3_64bits_withSeed; the 128-bit one XXH3_128bits_withSeed. Key 0 (both
// halves 0 for 128 bits) marks an invalid reference: a valid one that
// would hash to 0 gets 1 instead. Golden values are in
// tests/api/fingerprint_test.cc.
class URISCAN_EXPORT Fingerprinter {
 public:
  explicit Fingerprinter(Profile profile, NormalizeOptions options = {});

  Profile profile() const { return profile_; }
  uint64_t seed() const { return seed_; }

  // One reference from its text (parsed and normalized here); 0 if invalid.
  uint64_t Key64(std::string_view uri) const;
  Key128 Key128Of(std::string_view uri) const;

  // Row i of `batch` (scanned into `spans`) to (*keys)[i]; `*keys` is
  // resized to batch.count. Rows the flags show already normal are hashed
  // where they lie; the others are normalized into a scratch buffer first.
  // Rows are read where `spans` says, so batch.offsets may be null (spans
  // from Scanner::ScanLines()).
  void Batch64(const Batch& batch, const ComponentSpans& spans,
               std::vector<uint64_t>* keys) const;
  void Batch128(const Batch& batch, const ComponentSpans& spans,
                std::vector<Key128>* keys) const;

 private:
  template <class Key, class Hash>
  void Fill(const Batch& batch, const ComponentSpans& spans, Hash hash,
            std::vector<Key>* keys) const;

  Profile profile_;
  NormalizeOptions options_;
  uint64_t seed_;
};

}  // namespace uriscan

#endif  // URISCAN_FINGERPRINT_H_
