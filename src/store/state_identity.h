// SPDX-License-Identifier: MIT
// The identity a seen-state records for the keys of a profile, shared by
// the command and the Python package (header-only: the store itself needs
// nothing of the library).
#ifndef URISCAN_SRC_STORE_STATE_IDENTITY_H_
#define URISCAN_SRC_STORE_STATE_IDENTITY_H_

#include <string>

#include "src/store/seen_state.h"
#include "uriscan/fingerprint.h"
#include "uriscan/normalize.h"

namespace uriscan {

// What a state made with `fingerprinter`'s keys records about them: the
// profile, its version, the crawler's tracking list ("+fold-www" last when
// www. is folded) and the fingerprint seed.
inline SeenState::Identity StateIdentityOf(const Fingerprinter& fingerprinter,
                                           const NormalizeOptions& options) {
  SeenState::Identity id;
  id.profile = ProfileName(fingerprinter.profile());
  id.version = kProfileVersion;
  if (fingerprinter.profile() == Profile::kCrawler) {
    for (const std::string& p : options.tracking_params) {
      if (!id.tracking.empty()) id.tracking += ',';
      id.tracking += p;
    }
    if (options.fold_www)
      id.tracking += id.tracking.empty() ? "+fold-www" : ",+fold-www";
  }
  id.tag = fingerprinter.seed();
  return id;
}

}  // namespace uriscan

#endif  // URISCAN_SRC_STORE_STATE_IDENTITY_H_
