// SPDX-License-Identifier: MIT
// The identity a seen-state records for the keys of a profile, shared by
// the command and the Python package (header-only: the store itself needs
// nothing of the library).
#ifndef URISCAN_SRC_STORE_STATE_IDENTITY_H_
#define URISCAN_SRC_STORE_STATE_IDENTITY_H_

#include <algorithm>
#include <string>
#include <string_view>

#include "src/store/state_store.h"
#include "uriscan/fingerprint.h"
#include "uriscan/normalize.h"

namespace uriscan {

// What a state made with `fingerprinter`'s keys records about them: the
// profile, its version, the crawler's tracking list ("+fold-www" last when
// www. is folded) and the fingerprint seed.
inline StateStore::Identity StateIdentityOf(const Fingerprinter& fingerprinter,
                                           const NormalizeOptions& options) {
  StateStore::Identity id;
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

// The profile and options of a state's identity (StateIdentityOf()'s
// inverse); false for a profile this uriscan does not know.
inline bool ProfileOfIdentity(const StateStore::Identity& id, Profile* profile,
                              NormalizeOptions* options) {
  if (!ParseProfile(id.profile, profile)) return false;
  if (*profile != Profile::kCrawler) return true;
  options->tracking_params.clear();
  options->fold_www = false;
  std::string_view list = id.tracking;
  while (!list.empty()) {
    const size_t comma = std::min(list.find(','), list.size());
    const std::string_view name = list.substr(0, comma);
    if (name == "+fold-www") {
      options->fold_www = true;
    } else if (!name.empty()) {
      options->tracking_params.emplace_back(name);
    }
    list.remove_prefix(std::min(comma + 1, list.size()));
  }
  return true;
}

}  // namespace uriscan

#endif  // URISCAN_SRC_STORE_STATE_IDENTITY_H_
