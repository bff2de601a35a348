// SPDX-License-Identifier: MIT
// The extension's calls into the library (bridge.h): each catches every
// C++ exception and leaves its text in scratch that lives as long as the
// backend, so nothing needs unwinding when PostgreSQL later longjmps.
#include "postgres/bridge.h"


#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "postgres/query_params.h"
#include "src/derive/host_type.h"
#include "uriscan/hosts.h"
#include "uriscan/uriscan.h"

namespace {

using uriscan::UriReference;

std::string_view View(const char* text, size_t size) {
  return std::string_view(text, size);
}

// The scratch of one function: a backend runs one query at a time on one
// thread, and the glue copies a result out before the next call.
int Give(const std::string& value, const char** out, size_t* out_size) {
  *out = value.data();
  *out_size = value.size();
  return UPG_VALUE;
}

void SetComponent(upg_parts* out, upg_component c, const UriReference& uri,
                  const std::optional<std::string_view>& value) {
  if (!value) return;
  out->begin[c] = static_cast<int32_t>(value->data() - uri.text().data());
  out->length[c] = static_cast<int32_t>(value->size());
}

// Keys of each profile, with the command's default options; made once.
const uriscan::Fingerprinter& FingerprinterOf(int profile) {
  static std::array<std::unique_ptr<uriscan::Fingerprinter>,
                    uriscan::kProfileCount>
      made;
  auto& f = made[static_cast<size_t>(profile)];
  if (!f)
    f = std::make_unique<uriscan::Fingerprinter>(
        static_cast<uriscan::Profile>(profile));
  return *f;
}

}  // namespace

extern "C" {

void upg_parse(const char* text, size_t size, upg_parts* out) {
  const UriReference uri = uriscan::ParseUriReference(View(text, size));
  for (int c = 0; c < UPG_COMPONENTS; ++c) {
    out->begin[c] = -1;
    out->length[c] = 0;
  }
  out->valid = uri.valid();
  out->error_at = uri.error().offset;
  out->error = nullptr;
  out->host_type = nullptr;
  if (!uri.valid()) {
    out->error = uriscan::ErrorKindName(uri.error().kind);
    return;
  }
  SetComponent(out, UPG_SCHEME, uri, uri.scheme());
  SetComponent(out, UPG_USERINFO, uri, uri.userinfo());
  SetComponent(out, UPG_HOST, uri, uri.host());
  SetComponent(out, UPG_PORT, uri, uri.port());
  SetComponent(out, UPG_PATH, uri, uri.path());
  SetComponent(out, UPG_QUERY, uri, uri.query());
  SetComponent(out, UPG_FRAGMENT, uri, uri.fragment());
  if (uri.host()) out->host_type = uriscan::derive::HostTypeName(uri.host_kind());
}

int upg_profile(const char* name, size_t size) {
  uriscan::Profile profile;
  if (!uriscan::ParseProfile(View(name, size), &profile)) return -1;
  return static_cast<int>(profile);
}

int upg_normalize(const char* text, size_t size, int profile,
                  const char** out, size_t* out_size) {
  try {
    static std::string normal;
    normal.clear();
    const UriReference uri = uriscan::ParseUriReference(View(text, size));
    if (!uriscan::Normalize(uri, static_cast<uriscan::Profile>(profile),
                            &normal))
      return UPG_NULL;
    return Give(normal, out, out_size);
  } catch (...) {
    return UPG_NO_MEMORY;
  }
}

int upg_key(const char* text, size_t size, int profile, int64_t* key) {
  try {
    const uint64_t k = FingerprinterOf(profile).Key64(View(text, size));
    if (k == 0) return UPG_NULL;  // 0 marks an invalid reference
    *key = static_cast<int64_t>(k);
    return UPG_VALUE;
  } catch (...) {
    return UPG_NO_MEMORY;
  }
}

int upg_resolve(const char* base, size_t base_size, const char* ref,
                size_t ref_size, const char** out, size_t* out_size) {
  try {
    static std::string target;
    target.clear();
    const uriscan::ResolveStatus status = uriscan::Resolve(
        uriscan::ParseUriReference(View(base, base_size)),
        uriscan::ParseUriReference(View(ref, ref_size)),
        uriscan::ResolveOptions(), &target);
    if (status != uriscan::ResolveStatus::kOk) return UPG_NULL;
    return Give(target, out, out_size);
  } catch (...) {
    return UPG_NO_MEMORY;
  }
}

int upg_public_suffix(const char* text, size_t size, int registrable,
                      const char** out, size_t* out_size) {
  try {
    // libpsl's built-in list, as the command uses without --psl.
    static const uriscan::PublicSuffixList psl;
    const UriReference uri = uriscan::ParseUriReference(View(text, size));
    const auto host = uri.host();
    if (!uri.valid() || !host || uri.host_kind() != uriscan::HostKind::kRegName)
      return UPG_NULL;
    const uriscan::PublicSuffixList::Suffixes answer = psl.Lookup(*host);
    const auto part =
        registrable ? answer.registrable_domain : answer.public_suffix;
    if (!part) return UPG_NULL;
    *out = part->data();
    *out_size = part->size();
    return UPG_VALUE;
  } catch (...) {
    return UPG_NO_MEMORY;
  }
}

int upg_surt(const char* text, size_t size, const char** out,
             size_t* out_size) {
  try {
    static std::string key;
    key.clear();
    const UriReference uri = uriscan::ParseUriReference(View(text, size));
    if (!uri.valid() || !uri.scheme() ||
        !uriscan::AppendIaSurt(uri.text(), &key))
      return UPG_NULL;
    return Give(key, out, out_size);
  } catch (...) {
    return UPG_NO_MEMORY;
  }
}

int upg_risks(const char* text, size_t size, uint32_t* bits) {
  const UriReference uri = uriscan::ParseUriReference(View(text, size));
  if (!uri.valid()) return UPG_NULL;
  *bits = uriscan::RiskFlagsOf(uri);
  return UPG_VALUE;
}

const char* upg_risk_name(int bit) { return uriscan::RiskFlagName(bit); }

int upg_param(const char* text, size_t size, const char* name,
              size_t name_size, const char** out, size_t* out_size) {
  try {
    const UriReference uri = uriscan::ParseUriReference(View(text, size));
    const auto query = uri.query();
    if (!uri.valid() || !query) return UPG_NULL;
    static std::string decoded_name, value;
    bool found = false;
    uriscan::pg::ForEachRawParam(
        View(text, size), [&](std::string_view raw_name, std::string_view raw_value) {
          if (found) return;
          decoded_name.clear();
          uriscan::pg::AppendFormDecoded(raw_name, &decoded_name);
          if (decoded_name != View(name, name_size)) return;
          found = true;
          value.clear();
          uriscan::pg::AppendFormDecoded(raw_value, &value);
        });
    return found ? Give(value, out, out_size) : UPG_NULL;
  } catch (...) {
    return UPG_NO_MEMORY;
  }
}

int upg_params(const char* text, size_t size, size_t* count,
               const char* const** names, const size_t** name_sizes,
               const char* const** values, const size_t** value_sizes) {
  try {
    // Every decoded byte in one buffer, then pointers into it once it no
    // longer moves.
    static std::string bytes;
    static std::vector<size_t> ends;  // name end, value end, per parameter
    static std::vector<const char*> name_ptrs, value_ptrs;
    static std::vector<size_t> name_lens, value_lens;
    bytes.clear();
    ends.clear();
    const UriReference uri = uriscan::ParseUriReference(View(text, size));
    const auto query = uri.query();
    if (!uri.valid() || !query) return UPG_NULL;
    uriscan::pg::ForEachRawParam(
        View(text, size), [&](std::string_view raw_name, std::string_view raw_value) {
          uriscan::pg::AppendFormDecoded(raw_name, &bytes);
          ends.push_back(bytes.size());
          uriscan::pg::AppendFormDecoded(raw_value, &bytes);
          ends.push_back(bytes.size());
        });
    const size_t n = ends.size() / 2;
    name_ptrs.resize(n);
    value_ptrs.resize(n);
    name_lens.resize(n);
    value_lens.resize(n);
    size_t at = 0;
    for (size_t k = 0; k < n; ++k) {
      name_ptrs[k] = bytes.data() + at;
      name_lens[k] = ends[2 * k] - at;
      at = ends[2 * k];
      value_ptrs[k] = bytes.data() + at;
      value_lens[k] = ends[2 * k + 1] - at;
      at = ends[2 * k + 1];
    }
    *count = n;
    *names = name_ptrs.data();
    *name_sizes = name_lens.data();
    *values = value_ptrs.data();
    *value_sizes = value_lens.data();
    return UPG_VALUE;
  } catch (...) {
    return UPG_NO_MEMORY;
  }
}

}  // extern "C"
