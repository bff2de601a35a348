// SPDX-License-Identifier: MIT
// The extension's calls into the library (bridge.h): each catches every
// C++ exception and leaves its text in scratch that lives as long as the
// backend, so nothing needs unwinding when PostgreSQL later longjmps.
#include "postgres/bridge.h"

#include <malloc.h>

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "postgres/query_params.h"
#include "uriscan/hosts.h"
#include "uriscan/uriscan.h"

namespace {

using uriscan::UriReference;

// Set by a call on an input past 1 MiB: upg_release() then
// hands the memory that call freed back to the system.
bool large_call = false;

// Every call's input goes through here.
std::string_view View(const char* text, size_t size) {
  if (size > (size_t{1} << 20)) large_call = true;
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

// The scratch the calls leave their answers in, kept across calls; what a
// large input made it grow to is given back by upg_release().
struct Scratch {
  std::string text, text2;
  std::vector<uint32_t> ends;
};
Scratch& scratch() {
  static Scratch s;
  return s;
}
// Beyond this, scratch is freed after the call rather than kept.
constexpr size_t kKeptBytes = size_t{1} << 20;

template <class T>
void Shrink(T* v, size_t bytes) {
  // A swap: assigning T() keeps a string's capacity (its buffer is reused).
  if (bytes > kKeptBytes) T().swap(*v);
}

// What the glue gave to upg_set_interrupt_check(): whether PostgreSQL has
// an interrupt (a cancel, statement_timeout) pending.
int (*interrupt_pending)(void) = nullptr;
bool InterruptPending() { return interrupt_pending && interrupt_pending(); }

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

// uri_param (decoded) and uri_param_raw (as written).
int Param(const char* text, size_t size, const char* name, size_t name_size,
          bool raw, const char** out, size_t* out_size) {
  try {
    const UriReference uri = uriscan::ParseUriReference(View(text, size));
    const auto query = uri.query();
    if (!uri.valid() || !query) return UPG_NULL;
    std::string& decoded_name = scratch().text2;
    std::string& value = scratch().text;
    bool found = false, interrupted = false;
    size_t k = 0;
    uriscan::pg::ForEachRawParam(
        View(text, size),
        [&](std::string_view raw_name, std::string_view raw_value) {
          if ((++k & 0xffff) == 0 && InterruptPending()) {
            interrupted = true;
            return false;
          }
          decoded_name.clear();
          uriscan::pg::AppendFormDecoded(raw_name, &decoded_name);
          if (decoded_name != View(name, name_size)) return true;
          found = true;
          value.clear();
          if (raw) {
            value.assign(raw_value);
          } else {
            uriscan::pg::AppendFormDecoded(raw_value, &value);
          }
          return false;
        });
    if (interrupted) return UPG_INTERRUPTED;
    return found ? Give(value, out, out_size) : UPG_NULL;
  } catch (...) {
    return UPG_NO_MEMORY;
  }
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
  if (uri.host()) out->host_type = uriscan::HostKindName(uri.host_kind());
}

int upg_profile(const char* name, size_t size) {
  uriscan::Profile profile;
  if (!uriscan::ParseProfile(View(name, size), &profile)) return -1;
  return static_cast<int>(profile);
}

int upg_normalize(const char* text, size_t size, int profile,
                  const char** out, size_t* out_size) {
  try {
    std::string& normal = scratch().text;
    normal.clear();
    const UriReference uri = uriscan::ParseUriReference(View(text, size));
    if (!uriscan::Normalize(uri, static_cast<uriscan::Profile>(profile),
                            &normal))
      return UPG_NULL;
    return Give(normal, out, out_size);
  } catch (const uriscan::Interrupted&) {
    return UPG_INTERRUPTED;
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
  } catch (const uriscan::Interrupted&) {
    return UPG_INTERRUPTED;
  } catch (...) {
    return UPG_NO_MEMORY;
  }
}

int upg_resolve(const char* base, size_t base_size, const char* ref,
                size_t ref_size, const char** out, size_t* out_size) {
  try {
    std::string& target = scratch().text;
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
    std::string& key = scratch().text;
    key.clear();
    const UriReference uri = uriscan::ParseUriReference(View(text, size));
    if (!uri.valid() || !uri.scheme() ||
        !uriscan::AppendIaSurt(uri.text(), &key))
      return UPG_NULL;
    return Give(key, out, out_size);
  } catch (const uriscan::Interrupted&) {
    return UPG_INTERRUPTED;
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
  return Param(text, size, name, name_size, false, out, out_size);
}

int upg_param_raw(const char* text, size_t size, const char* name,
                  size_t name_size, const char** out, size_t* out_size) {
  return Param(text, size, name, name_size, true, out, out_size);
}

int upg_column(const char* text, size_t size, int column, const char** out,
               size_t* out_size) {
  try {
    static const uriscan::PublicSuffixList psl;
    std::string& value = scratch().text;
    value.clear();
    const UriReference uri = uriscan::ParseUriReference(View(text, size));
    if (!uri.valid()) return UPG_NULL;
    const auto decoded = [&](std::optional<std::string_view> part) -> int {
      if (!part) return UPG_NULL;
      value.resize(part->size());
      value.resize(uriscan::Decode(*part, uriscan::Decoding::kPercent,
                                   value.data()));
      return Give(value, out, out_size);
    };
    std::optional<std::string_view> answer;
    switch (column) {
      case UPG_AUTHORITY: answer = uri.authority(); break;
      case UPG_HOST_NOWWW:
        if (uri.host()) answer = uriscan::HostWithoutWww(*uri.host());
        break;
      case UPG_SUBDOMAIN:
        if (uri.host() && uri.host_kind() == uriscan::HostKind::kRegName)
          answer = psl.Subdomain(*uri.host());
        break;
      case UPG_EXTENSION: return decoded(uriscan::PathExtension(uri.path()));
      case UPG_PATH_DECODED: return decoded(uri.path());
      case UPG_QUERY_DECODED: return decoded(uri.query());
      case UPG_FRAGMENT_DECODED: return decoded(uri.fragment());
      case UPG_SURT_CRAWLER: {
        std::string& normal = scratch().text2;
        normal.clear();
        if (!uriscan::Normalize(uri, uriscan::Profile::kCrawler, &normal) ||
            !uriscan::AppendCrawlerSurt(uriscan::ParseUriReference(normal),
                                        &value))
          return UPG_NULL;
        return Give(value, out, out_size);
      }
      default: return UPG_NULL;
    }
    if (!answer) return UPG_NULL;
    value.assign(*answer);
    return Give(value, out, out_size);
  } catch (...) {
    return UPG_NO_MEMORY;
  }
}

int upg_list(const char* text, size_t size, int list, size_t* count,
             const char** bytes, const uint32_t** ends) {
  try {
    std::string& all = scratch().text;
    std::vector<uint32_t>& at = scratch().ends;
    all.clear();
    at.clear();
    const UriReference uri = uriscan::ParseUriReference(View(text, size));
    if (!uri.valid()) return UPG_NULL;
    const auto add = [&](std::string_view raw, uriscan::Decoding how) {
      const size_t from = all.size();
      all.resize(from + raw.size());
      all.resize(from + uriscan::Decode(raw, how, all.data() + from));
      at.push_back(static_cast<uint32_t>(all.size()));
    };
    bool interrupted = false;
    if (list == UPG_PATH_SEGMENTS) {
      for (std::string_view s : uriscan::PathSegmentsOf(uri.path()))
        add(s, uriscan::Decoding::kPercent);
    } else {
      size_t k = 0;
      uriscan::ForEachQueryField(
          uri.query().value_or(""),
          [&](std::string_view name, std::string_view) {
            if ((++k & 0xffff) == 0 && InterruptPending()) {
              interrupted = true;
              return false;
            }
            add(name, uriscan::Decoding::kForm);
            return true;
          });
    }
    if (interrupted) return UPG_INTERRUPTED;
    *count = at.size();
    *bytes = all.data();
    *ends = at.data();
    return UPG_VALUE;
  } catch (...) {
    return UPG_NO_MEMORY;
  }
}

int upg_params(const char* text, size_t size, size_t* count,
               const char** bytes_out, const uint32_t** ends_out) {
  try {
    // Every decoded byte in one buffer (no more than the input), and the
    // end of each name and value in it: 8 bytes a parameter.
    std::string& bytes = scratch().text;
    std::vector<uint32_t>& ends = scratch().ends;
    bytes.clear();
    ends.clear();
    const UriReference uri = uriscan::ParseUriReference(View(text, size));
    const auto query = uri.query();
    if (!uri.valid() || !query) return UPG_NULL;
    bool interrupted = false;
    size_t k = 0;
    uriscan::pg::ForEachRawParam(
        View(text, size),
        [&](std::string_view raw_name, std::string_view raw_value) {
          if ((++k & 0xffff) == 0 && InterruptPending()) {
            interrupted = true;
            return false;
          }
          uriscan::pg::AppendFormDecoded(raw_name, &bytes);
          ends.push_back(static_cast<uint32_t>(bytes.size()));
          uriscan::pg::AppendFormDecoded(raw_value, &bytes);
          ends.push_back(static_cast<uint32_t>(bytes.size()));
          return true;
        });
    if (interrupted) return UPG_INTERRUPTED;
    *count = ends.size() / 2;
    *bytes_out = bytes.data();
    *ends_out = ends.data();
    return UPG_VALUE;
  } catch (...) {
    return UPG_NO_MEMORY;
  }
}

void upg_set_interrupt_check(int (*pending)(void)) {
  interrupt_pending = pending;
  // The library's long loops (a query of millions of fields sorted by the
  // crawler or w3lib profile or the surt key) ask it too, and throw.
  uriscan::SetInterruptCheck(pending ? InterruptPending : nullptr);
}

void upg_release(void) {
  Scratch& s = scratch();
  Shrink(&s.text, s.text.capacity());
  Shrink(&s.text2, s.text2.capacity());
  Shrink(&s.ends, s.ends.capacity() * sizeof(uint32_t));
}

void upg_trim(void) {
  if (!large_call) return;
  // The library let its large scratch go (LetGoIfLarge) and the server its
  // query's memory, but malloc keeps freed heap pages for the next
  // allocation (and raises its mmap threshold after a large free): give
  // them back, so an idle backend is small again. Only after a large call:
  // trimming costs.
  malloc_trim(0);
  large_call = false;
}

}  // extern "C"
