// SPDX-License-Identifier: MIT
// The C API (uriscan_c.h) over the C++ one: every entry point catches all
// exceptions and turns them into status codes.
#include "uriscan/uriscan_c.h"
#include "uriscan/seen_state.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "uriscan/analytics.h"
#include "uriscan/error.h"
#include "uriscan/fingerprint.h"
#include "uriscan/ingest.h"
#include "uriscan/normalize.h"
#include "uriscan/spans.h"
#include "uriscan/uri.h"
#include "uriscan/version.h"

// The C enums and flags repeat the C++ values; they must never drift apart:
// every value is checked.
static_assert(URISCAN_ERROR_KIND_COUNT == uriscan::kErrorKindCount);
#define URISCAN_C_VALUES(X)                                                  \
  X(URISCAN_ERROR_NONE, ErrorKind::kNone)                                    \
  X(URISCAN_ERROR_DISALLOWED_BYTE, ErrorKind::kDisallowedByte)               \
  X(URISCAN_ERROR_BAD_PERCENT_ENCODING, ErrorKind::kBadPercentEncoding)      \
  X(URISCAN_ERROR_BAD_SCHEME, ErrorKind::kBadScheme)                         \
  X(URISCAN_ERROR_BAD_USERINFO, ErrorKind::kBadUserinfo)                     \
  X(URISCAN_ERROR_BAD_HOST, ErrorKind::kBadHost)                             \
  X(URISCAN_ERROR_BAD_IP_LITERAL, ErrorKind::kBadIpLiteral)                  \
  X(URISCAN_ERROR_BAD_PORT, ErrorKind::kBadPort)                             \
  X(URISCAN_ERROR_BAD_PATH, ErrorKind::kBadPath)                             \
  X(URISCAN_ERROR_BAD_QUERY, ErrorKind::kBadQuery)                           \
  X(URISCAN_ERROR_BAD_FRAGMENT, ErrorKind::kBadFragment)                     \
  X(URISCAN_ERROR_TOO_LONG, ErrorKind::kTooLong)                             \
  X(URISCAN_PROFILE_SYNTAX, Profile::kSyntax)                                \
  X(URISCAN_PROFILE_SCHEME, Profile::kScheme)                                \
  X(URISCAN_PROFILE_CRAWLER, Profile::kCrawler)                              \
  X(URISCAN_PROFILE_W3LIB, Profile::kW3lib)                                  \
  X(URISCAN_HOST_REG_NAME, HostKind::kRegName)                               \
  X(URISCAN_HOST_IPV4, HostKind::kIPv4)                                      \
  X(URISCAN_HOST_IPV6, HostKind::kIPv6)                                      \
  X(URISCAN_HOST_IPVFUTURE, HostKind::kIPvFuture)
#define URISCAN_CHECK_C_VALUE(c, cpp) \
  static_assert(c == static_cast<int>(uriscan::cpp));
URISCAN_C_VALUES(URISCAN_CHECK_C_VALUE)
#undef URISCAN_CHECK_C_VALUE
#undef URISCAN_C_VALUES
static_assert(URISCAN_FLAG_HAS_SCHEME == uriscan::flags::kHasScheme);
static_assert(URISCAN_FLAG_HAS_AUTHORITY == uriscan::flags::kHasAuthority);
static_assert(URISCAN_FLAG_HAS_USERINFO == uriscan::flags::kHasUserinfo);
static_assert(URISCAN_FLAG_HAS_PORT == uriscan::flags::kHasPort);
static_assert(URISCAN_FLAG_HAS_QUERY == uriscan::flags::kHasQuery);
static_assert(URISCAN_FLAG_HAS_FRAGMENT == uriscan::flags::kHasFragment);
static_assert(URISCAN_FLAG_HOST_KIND_SHIFT == uriscan::flags::kHostKindShift);
static_assert(URISCAN_FLAG_HOST_KIND_MASK == uriscan::flags::kHostKindMask);
static_assert(URISCAN_FLAG_HAS_PCT_ENCODED == uriscan::flags::kHasPctEncoded);
static_assert(URISCAN_FLAG_HAS_UPPER_CASE == uriscan::flags::kHasUpperCase);
static_assert(URISCAN_FLAG_HAS_DOT_SEGMENT == uriscan::flags::kHasDotSegment);
// One C column per C++ column (the names are checked where they are copied).
#define URISCAN_COUNT_COLUMN(name) +1
static_assert(sizeof(uriscan_columns) ==
              (0 URISCAN_SPAN_BOUNDARIES(URISCAN_COUNT_COLUMN) + 3) *
                  sizeof(void*));
#undef URISCAN_COUNT_COLUMN

static_assert(URISCAN_DECODE_PERCENT ==
              static_cast<int>(uriscan::Decoding::kPercent));
static_assert(URISCAN_DECODE_FORM == static_cast<int>(uriscan::Decoding::kForm));

struct uriscan_scanner {
  uriscan::Scanner scanner;
  uriscan::ComponentSpans spans;
  std::vector<uint64_t> keys;
  uriscan::QueryParams params;
};

namespace uriscan {
namespace {

// Runs `body`, turning any exception into a status: nothing escapes to C.
template <class Body>
uriscan_status Guard(Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return URISCAN_OUT_OF_MEMORY;
  } catch (const std::length_error&) {
    return URISCAN_OUT_OF_MEMORY;
  } catch (...) {
    return URISCAN_INTERNAL_ERROR;
  }
}

bool ValidProfile(uriscan_profile profile) {
  return static_cast<int>(profile) >= 0 &&
         static_cast<int>(profile) < kProfileCount;
}

bool ValidDecoding(uriscan_decoding how) {
  return how == URISCAN_DECODE_PERCENT || how == URISCAN_DECODE_FORM;
}

bool ValidKind(uriscan_error_kind kind) {
  return static_cast<int>(kind) >= 0 &&
         static_cast<int>(kind) < kErrorKindCount;
}

// The default options, built once: a default NormalizeOptions allocates its
// list of tracking parameters.
const NormalizeOptions& DefaultOptions() {
  static const NormalizeOptions options;
  return options;
}

// One Fingerprinter per profile for every call (its const members are
// thread-safe: their scratch is per thread).
const Fingerprinter& SharedFingerprinter(uriscan_profile profile) {
  static const Fingerprinter fingerprinters[kProfileCount] = {
      Fingerprinter(Profile::kSyntax), Fingerprinter(Profile::kScheme),
      Fingerprinter(Profile::kCrawler), Fingerprinter(Profile::kW3lib)};
  return fingerprinters[profile];
}

// Checks the (data, offsets, count) layout and builds the Batch; data may
// be NULL only when every offset is 0 (all rows empty).
uriscan_status MakeBatch(const char* data, const uint32_t* offsets,
                         size_t count, Batch* batch) {
  if (count == 0) {
    *batch = Batch{data ? data : "", offsets, 0};
    return URISCAN_OK;
  }
  if (offsets == nullptr) return URISCAN_INVALID_ARGUMENT;
  for (size_t i = 0; i < count; ++i) {
    if (offsets[i + 1] < offsets[i]) return URISCAN_INVALID_ARGUMENT;
  }
  if (data == nullptr) {
    if (offsets[count] != 0) return URISCAN_INVALID_ARGUMENT;
    data = "";
  }
  *batch = Batch{data, offsets, count};
  return URISCAN_OK;
}

void CopyColumns(const ComponentSpans& spans, const uriscan_columns& out) {
  const size_t n = spans.size();
  if (n == 0) return;
#define URISCAN_COPY_COLUMN(name) \
  if (out.name) std::memcpy(out.name, spans.name.data(), n * sizeof(uint32_t));
  URISCAN_SPAN_BOUNDARIES(URISCAN_COPY_COLUMN)
#undef URISCAN_COPY_COLUMN
  if (out.flags) std::memcpy(out.flags, spans.flags.data(), n * sizeof(uint16_t));
  if (out.error_kind) std::memcpy(out.error_kind, spans.error_kind.data(), n);
  if (out.error_offset) {
    std::memcpy(out.error_offset, spans.error_offset.data(),
                n * sizeof(uint32_t));
  }
}

// ScanLines into the handle's columns, with the checks both line calls
// share: *rows is the line count whenever the text could be split, and the
// text is scanned only when `capacity` rows fit.
uriscan_status ScanLinesInto(uriscan_scanner* s, const char* text,
                             size_t length, size_t capacity, size_t* rows) {
  if (s == nullptr || rows == nullptr || (text == nullptr && length > 0)) {
    return URISCAN_INVALID_ARGUMENT;
  }
  *rows = 0;
  if (length >= std::numeric_limits<uint32_t>::max()) return URISCAN_TOO_LARGE;
  const std::string_view view(text ? text : "", length);
  const size_t lines = CountLines(view);
  *rows = lines;
  if (lines > capacity) return URISCAN_BUFFER_TOO_SMALL;
  if (!s->scanner.ScanLines(view, &s->spans)) return URISCAN_TOO_LARGE;
  return URISCAN_OK;
}

// The arguments of a call from text to a text result in the caller's
// buffer (uriscan_normalize, uriscan_decode): false when they are invalid;
// else *out_length starts at 0.
bool TextCallArgs(const char* in, size_t length, const char* out,
                  size_t capacity, size_t* out_length) {
  if (out_length == nullptr || (in == nullptr && length > 0) ||
      (out == nullptr && capacity > 0))
    return false;
  *out_length = 0;
  return true;
}

// A text result into the caller's buffer: its length into *out_length,
// then the bytes and a NUL when there is room for them (and for the NUL).
uriscan_status WriteOut(std::string_view result, char* out, size_t capacity,
                        size_t* out_length) {
  *out_length = result.size();
  if (capacity < result.size()) return URISCAN_BUFFER_TOO_SMALL;
  if (!result.empty()) std::memcpy(out, result.data(), result.size());
  if (capacity > result.size()) out[result.size()] = '\0';
  return URISCAN_OK;
}

// Under Guard(): MakeBatch(), the batch scanned into the scanner's spans,
// then body(batch) gives the result.
template <class Body>
uriscan_status GuardedScan(uriscan_scanner* s, const char* data,
                           const uint32_t* offsets, size_t count,
                           Body&& body) {
  return Guard([&] {
    Batch batch;
    const uriscan_status st = MakeBatch(data, offsets, count, &batch);
    if (st != URISCAN_OK) return st;
    s->scanner.Scan(batch, &s->spans);
    return body(batch);
  });
}

}  // namespace
}  // namespace uriscan

using uriscan::Guard;

extern "C" {

const char* uriscan_version(void) { return URISCAN_VERSION_STRING; }

const char* uriscan_target_name(void) {
  return uriscan::DispatchedTargetName();
}

const char* uriscan_status_name(uriscan_status status) {
  switch (status) {
    case URISCAN_OK: return "ok";
    case URISCAN_INVALID_ARGUMENT: return "invalid-argument";
    case URISCAN_BUFFER_TOO_SMALL: return "buffer-too-small";
    case URISCAN_INVALID_URI: return "invalid-uri";
    case URISCAN_TOO_LARGE: return "too-large";
    case URISCAN_OUT_OF_MEMORY: return "out-of-memory";
    case URISCAN_INTERNAL_ERROR: return "internal-error";
    case URISCAN_READ_ERROR: return "read-error";
    case URISCAN_STOPPED: return "stopped";
    case URISCAN_STATE_ERROR: return "state-error";
    case URISCAN_STATUS_MAX_ENUM: break;
  }
  return nullptr;
}

const char* uriscan_error_name(uriscan_error_kind kind) {
  if (!uriscan::ValidKind(kind)) return nullptr;
  return uriscan::ErrorKindName(static_cast<uriscan::ErrorKind>(kind));
}

const char* uriscan_error_message(uriscan_error_kind kind) {
  if (!uriscan::ValidKind(kind)) return nullptr;
  return uriscan::ErrorKindMessage(static_cast<uriscan::ErrorKind>(kind));
}

const char* uriscan_profile_name(uriscan_profile profile) {
  if (!uriscan::ValidProfile(profile)) return nullptr;
  return uriscan::ProfileName(static_cast<uriscan::Profile>(profile));
}

uriscan_status uriscan_profile_from_name(const char* name, size_t length,
                                         uriscan_profile* profile) {
  if (profile == nullptr || (name == nullptr && length > 0)) {
    return URISCAN_INVALID_ARGUMENT;
  }
  return Guard([&] {
    uriscan::Profile p;
    if (!uriscan::ParseProfile(std::string_view(name ? name : "", length),
                               &p)) {
      return URISCAN_INVALID_ARGUMENT;
    }
    *profile = static_cast<uriscan_profile>(p);
    return URISCAN_OK;
  });
}

uriscan_scanner* uriscan_scanner_new(void) {
  try {
    return new uriscan_scanner();
  } catch (...) {
    return nullptr;
  }
}

void uriscan_scanner_free(uriscan_scanner* scanner) { delete scanner; }

uriscan_status uriscan_scan(uriscan_scanner* scanner, const char* data,
                            const uint32_t* offsets, size_t count,
                            const uriscan_columns* out) {
  if (scanner == nullptr || out == nullptr) return URISCAN_INVALID_ARGUMENT;
  return uriscan::GuardedScan(scanner, data, offsets, count,
                              [&](const uriscan::Batch&) {
    uriscan::CopyColumns(scanner->spans, *out);
    return URISCAN_OK;
  });
}

size_t uriscan_count_lines(const char* text, size_t length) {
  if (text == nullptr) return 0;
  return uriscan::CountLines(std::string_view(text, length));
}

uriscan_status uriscan_scan_lines(uriscan_scanner* scanner, const char* text,
                                  size_t length, const uriscan_columns* out,
                                  size_t capacity, size_t* rows) {
  if (out == nullptr) return URISCAN_INVALID_ARGUMENT;
  return Guard([&] {
    const uriscan_status st =
        uriscan::ScanLinesInto(scanner, text, length, capacity, rows);
    if (st != URISCAN_OK) return st;
    uriscan::CopyColumns(scanner->spans, *out);
    return URISCAN_OK;
  });
}

uriscan_status uriscan_check(const char* uri, size_t length,
                             uriscan_error_kind* kind, uint32_t* offset) {
  if (uri == nullptr && length > 0) return URISCAN_INVALID_ARGUMENT;
  return Guard([&] {
    const uriscan::UriReference u =
        uriscan::ParseUriReference(std::string_view(uri ? uri : "", length));
    if (kind) *kind = static_cast<uriscan_error_kind>(u.error().kind);
    if (offset) *offset = u.error().offset;
    return u.valid() ? URISCAN_OK : URISCAN_INVALID_URI;
  });
}

uriscan_status uriscan_normalize(const char* uri, size_t length,
                                 uriscan_profile profile, char* out,
                                 size_t capacity, size_t* out_length) {
  if (!uriscan::ValidProfile(profile) ||
      !uriscan::TextCallArgs(uri, length, out, capacity, out_length)) {
    return URISCAN_INVALID_ARGUMENT;
  }
  return Guard([&] {
    // Reused by the thread's later calls, so a size query followed by the
    // real call allocates nothing new.
    thread_local std::string normal;
    normal.clear();
    const uriscan::UriReference u =
        uriscan::ParseUriReference(std::string_view(uri ? uri : "", length));
    if (!uriscan::Normalize(u, static_cast<uriscan::Profile>(profile),
                            &normal, uriscan::DefaultOptions())) {
      return URISCAN_INVALID_URI;
    }
    return uriscan::WriteOut(normal, out, capacity, out_length);
  });
}

uriscan_status uriscan_fingerprint64(uriscan_profile profile, const char* uri,
                                     size_t length, uint64_t* key) {
  if (key == nullptr || !uriscan::ValidProfile(profile) ||
      (uri == nullptr && length > 0)) {
    return URISCAN_INVALID_ARGUMENT;
  }
  *key = 0;
  return Guard([&] {
    *key = uriscan::SharedFingerprinter(profile).Key64(
        std::string_view(uri ? uri : "", length));
    return *key != 0 ? URISCAN_OK : URISCAN_INVALID_URI;
  });
}

uriscan_status uriscan_fingerprint_batch(uriscan_scanner* scanner,
                                         uriscan_profile profile,
                                         const char* data,
                                         const uint32_t* offsets, size_t count,
                                         uint64_t* keys) {
  if (scanner == nullptr || !uriscan::ValidProfile(profile) ||
      (keys == nullptr && count > 0)) {
    return URISCAN_INVALID_ARGUMENT;
  }
  return uriscan::GuardedScan(scanner, data, offsets, count,
                              [&](const uriscan::Batch& batch) {
    uriscan::SharedFingerprinter(profile)
        .Batch64(batch, scanner->spans, &scanner->keys);
    if (count > 0) {
      std::memcpy(keys, scanner->keys.data(), count * sizeof(uint64_t));
    }
    return URISCAN_OK;
  });
}

uriscan_status uriscan_fingerprint_lines(uriscan_scanner* scanner,
                                         uriscan_profile profile,
                                         const char* text, size_t length,
                                         uint64_t* keys, size_t capacity,
                                         size_t* rows) {
  if (!uriscan::ValidProfile(profile) || (keys == nullptr && capacity > 0)) {
    return URISCAN_INVALID_ARGUMENT;
  }
  return Guard([&] {
    const uriscan_status st =
        uriscan::ScanLinesInto(scanner, text, length, capacity, rows);
    if (st != URISCAN_OK) return st;
    // Rows are read where the spans point, so no offsets are needed.
    const uriscan::Batch batch{text ? text : "", nullptr, *rows};
    uriscan::SharedFingerprinter(profile)
        .Batch64(batch, scanner->spans, &scanner->keys);
    if (*rows > 0) {
      std::memcpy(keys, scanner->keys.data(), *rows * sizeof(uint64_t));
    }
    return URISCAN_OK;
  });
}

uriscan_status uriscan_decode(const char* text, size_t length,
                              uriscan_decoding how, char* out,
                              size_t capacity, size_t* out_length) {
  if (!uriscan::ValidDecoding(how) ||
      !uriscan::TextCallArgs(text, length, out, capacity, out_length)) {
    return URISCAN_INVALID_ARGUMENT;
  }
  return Guard([&] {
    thread_local std::string decoded;
    decoded.resize(length);
    if (length > 0) {
      decoded.resize(uriscan::Decode(std::string_view(text, length),
                                     static_cast<uriscan::Decoding>(how),
                                     decoded.data()));
    }
    return uriscan::WriteOut(decoded, out, capacity, out_length);
  });
}

uriscan_status uriscan_decode_spans(const char* data, const uint32_t* begin,
                                    const uint32_t* end, size_t count,
                                    uriscan_decoding how, char* out,
                                    size_t capacity, uint32_t* out_offsets) {
  if (!uriscan::ValidDecoding(how) || out_offsets == nullptr ||
      (count > 0 && (data == nullptr || begin == nullptr || end == nullptr)) ||
      (out == nullptr && capacity > 0)) {
    return URISCAN_INVALID_ARGUMENT;
  }
  size_t total = 0;
  for (size_t k = 0; k < count; ++k) {
    if (end[k] < begin[k]) return URISCAN_INVALID_ARGUMENT;
    total += end[k] - begin[k];
  }
  if (capacity < total) {
    out_offsets[count] = static_cast<uint32_t>(
        std::min<size_t>(total, std::numeric_limits<uint32_t>::max()));
    return URISCAN_BUFFER_TOO_SMALL;
  }
  if (total > std::numeric_limits<uint32_t>::max()) return URISCAN_TOO_LARGE;
  return Guard([&] {
    thread_local std::vector<char> decoded;
    thread_local std::vector<uint32_t> offsets;
    uriscan::DecodeSpans(data, begin, end, count,
                         static_cast<uriscan::Decoding>(how), &decoded,
                         &offsets);
    if (!decoded.empty()) std::memcpy(out, decoded.data(), decoded.size());
    std::memcpy(out_offsets, offsets.data(), (count + 1) * sizeof(uint32_t));
    return URISCAN_OK;
  });
}

uriscan_status uriscan_query_params(uriscan_scanner* scanner,
                                    const char* data, const uint32_t* offsets,
                                    size_t count, const uriscan_params* out,
                                    size_t capacity, size_t* params) {
  if (scanner == nullptr || out == nullptr || params == nullptr) {
    return URISCAN_INVALID_ARGUMENT;
  }
  *params = 0;
  return uriscan::GuardedScan(scanner, data, offsets, count,
                              [&](const uriscan::Batch& batch) {
    uriscan::QueryParams& p = scanner->params;
    uriscan::ExtractQueryParams(batch.data, scanner->spans, &p);
    *params = p.size();
    if (capacity < p.size()) return URISCAN_BUFFER_TOO_SMALL;
    const auto copy = [&](uint32_t* to, const std::vector<uint32_t>& from) {
      if (to != nullptr && !from.empty())
        std::memcpy(to, from.data(), from.size() * sizeof(uint32_t));
    };
    copy(out->row, p.row);
    copy(out->name_begin, p.name_begin);
    copy(out->name_end, p.name_end);
    copy(out->value_begin, p.value_begin);
    copy(out->value_end, p.value_end);
    return URISCAN_OK;
  });
}

}  // extern "C"

// --- reading files ------------------------------------------------------

struct uriscan_log_reader {
  std::unique_ptr<uriscan::LogReader> reader;
  uriscan::LogBatch batch;
  std::vector<uriscan_log_ref> refs;
};

namespace {

void CopyError(const char* what, char* error, size_t error_size) {
  if (!error || error_size == 0) return;
  const size_t n = std::min(std::strlen(what), error_size - 1);
  std::memcpy(error, what, n);
  error[n] = '\0';
}

}  // namespace

uriscan_log_reader* uriscan_log_reader_new(const char* const* paths,
                                           size_t count, const char* format,
                                           const char* field, const char* base,
                                           int lenient, char* error,
                                           size_t error_size) {
  try {
    if ((!paths && count > 0) || !format) {
      CopyError("paths and format are required", error, error_size);
      return nullptr;
    }
    std::vector<std::string> files;
    for (size_t i = 0; i < count; ++i) {
      if (!paths[i]) {
        CopyError("path: NULL", error, error_size);
        return nullptr;
      }
      files.emplace_back(paths[i]);
    }
    uriscan::LogReaderOptions options;
    options.format = format;
    options.field = field ? field : "";
    options.base = base ? base : "";
    options.lenient = lenient != 0;
    auto r = std::make_unique<uriscan_log_reader>();
    r->reader = std::make_unique<uriscan::LogReader>(std::move(files), options);
    return r.release();
  } catch (const std::exception& e) {
    CopyError(e.what(), error, error_size);
    return nullptr;
  }
}

void uriscan_log_reader_free(uriscan_log_reader* reader) { delete reader; }

void uriscan_log_reader_stop(uriscan_log_reader* reader) {
  if (reader) reader->reader->Stop();
}

uriscan_status uriscan_log_reader_next(uriscan_log_reader* reader,
                                       const uriscan_log_ref** refs,
                                       size_t* count, char* error,
                                       size_t error_size) {
  if (!reader || !refs || !count) return URISCAN_INVALID_ARGUMENT;
  *refs = nullptr;
  *count = 0;
  return uriscan::Guard([&] {
    try {
      if (!reader->reader->Next(&reader->batch)) return URISCAN_OK;
    } catch (const uriscan::LogReadError& e) {
      CopyError(e.what(), error, error_size);
      return URISCAN_READ_ERROR;
    } catch (const uriscan::Interrupted&) {
      CopyError("stopped", error, error_size);
      return URISCAN_STOPPED;
    }
    const uriscan::LogBatch& b = reader->batch;
    reader->refs.resize(b.rows.size());
    for (size_t i = 0; i < b.rows.size(); ++i) {
      const std::string_view uri = b.uri(i);
      reader->refs[i] = {b.file, b.rows[i].line, uri.data(), uri.size()};
    }
    // (a run with no reference still has a non-NULL array, of 0 refs)
    static const uriscan_log_ref kNone{};
    *refs = reader->refs.empty() ? &kNone : reader->refs.data();
    *count = reader->refs.size();
    return URISCAN_OK;
  });
}

// ---- The seen-state ----

struct uriscan_seen_state {
  std::unique_ptr<uriscan::SeenState> state;
};

namespace {

// Rows of the uriscan_scan() layout as views; false for offsets that fall.
bool RowsOf(const char* data, const uint32_t* offsets, size_t count,
            std::vector<std::string_view>* rows) {
  if (count > 0 && !offsets) return false;
  rows->resize(count);
  for (size_t i = 0; i < count; ++i) {
    if (offsets[i + 1] < offsets[i] || (!data && offsets[i + 1] > offsets[i]))
      return false;
    (*rows)[i] = std::string_view(data ? data + offsets[i] : "",
                                  offsets[i + 1] - offsets[i]);
  }
  return true;
}

// `body` on the state, a SeenStateError as URISCAN_STATE_ERROR.
template <class Body>
uriscan_status OnState(char* error, size_t error_size, Body&& body) noexcept {
  return uriscan::Guard([&] {
    try {
      return body();
    } catch (const uriscan::SeenStateError& e) {
      CopyError(e.what(), error, error_size);
      return URISCAN_STATE_ERROR;
    }
  });
}

}  // namespace

uriscan_seen_state* uriscan_seen_state_open(
    const char* dir, const uriscan_seen_state_options* options, char* error,
    size_t error_size) {
  try {
    if (!dir) {
      CopyError("dir: NULL", error, error_size);
      return nullptr;
    }
    uriscan::SeenStateOptions o;
    if (options) {
      if (options->profile) {
        uriscan::Profile p;
        if (!uriscan::ParseProfile(options->profile, &p)) {
          CopyError("unknown profile (syntax, scheme, crawler or w3lib)",
                    error, error_size);
          return nullptr;
        }
        o.profile = p;
      }
      if (options->tracking_params) {
        o.normalize.tracking_params.clear();
        std::string_view list = options->tracking_params;
        while (!list.empty()) {
          const size_t comma = std::min(list.find(','), list.size());
          if (comma > 0) o.normalize.tracking_params.emplace_back(list.substr(0, comma));
          list.remove_prefix(std::min(comma + 1, list.size()));
        }
      }
      o.normalize.fold_www = options->fold_www != 0;
      if (options->keys_of) o.keys_of = options->keys_of;
      o.shards = options->shards;
      if (options->memory) o.memory = static_cast<size_t>(options->memory);
      o.read_only = options->read_only != 0;
      o.background_merges = options->inline_merges == 0;
    }
    auto s = std::make_unique<uriscan_seen_state>();
    s->state = uriscan::SeenState::Open(dir, o);
    return s.release();
  } catch (const std::exception& e) {
    CopyError(e.what(), error, error_size);
    return nullptr;
  } catch (...) {
    CopyError("internal error", error, error_size);
    return nullptr;
  }
}

void uriscan_seen_state_free(uriscan_seen_state* state) { delete state; }

uriscan_status uriscan_seen_state_add(uriscan_seen_state* state,
                                      const char* data,
                                      const uint32_t* offsets, size_t count,
                                      uint8_t* is_new, char* error,
                                      size_t error_size) {
  if (!state || (count > 0 && !is_new)) return URISCAN_INVALID_ARGUMENT;
  return OnState(error, error_size, [&] {
    std::vector<std::string_view> rows;
    if (!RowsOf(data, offsets, count, &rows)) return URISCAN_INVALID_ARGUMENT;
    state->state->Add(rows.data(), rows.size(), is_new);
    return URISCAN_OK;
  });
}

uriscan_status uriscan_seen_state_add_keys(uriscan_seen_state* state,
                                           const uint64_t* keys, size_t count,
                                           uint8_t* is_new, char* error,
                                           size_t error_size) {
  if (!state || (count > 0 && (!keys || !is_new)))
    return URISCAN_INVALID_ARGUMENT;
  return OnState(error, error_size, [&] {
    state->state->AddKeys(keys, count, is_new);
    return URISCAN_OK;
  });
}

uriscan_status uriscan_seen_state_contains(uriscan_seen_state* state,
                                           const char* data,
                                           const uint32_t* offsets,
                                           size_t count, uint8_t* seen,
                                           char* error, size_t error_size) {
  if (!state || (count > 0 && !seen)) return URISCAN_INVALID_ARGUMENT;
  return OnState(error, error_size, [&] {
    std::vector<std::string_view> rows;
    if (!RowsOf(data, offsets, count, &rows)) return URISCAN_INVALID_ARGUMENT;
    state->state->Contains(rows.data(), rows.size(), seen);
    return URISCAN_OK;
  });
}

uriscan_status uriscan_seen_state_contains_keys(uriscan_seen_state* state,
                                                const uint64_t* keys,
                                                size_t count, uint8_t* seen,
                                                char* error,
                                                size_t error_size) {
  if (!state || (count > 0 && (!keys || !seen)))
    return URISCAN_INVALID_ARGUMENT;
  return OnState(error, error_size, [&] {
    state->state->ContainsKeys(keys, count, seen);
    return URISCAN_OK;
  });
}

uriscan_status uriscan_seen_state_commit(uriscan_seen_state* state,
                                         const char* output, uint64_t* written,
                                         char* error, size_t error_size) {
  if (!state) return URISCAN_INVALID_ARGUMENT;
  return OnState(error, error_size, [&] {
    uint64_t n = 0;
    if (output) {
      n = state->state->Commit(std::string(output)).written;
    } else {
      state->state->Commit();
    }
    if (written) *written = n;
    return URISCAN_OK;
  });
}

uriscan_status uriscan_seen_state_discard(uriscan_seen_state* state) {
  if (!state) return URISCAN_INVALID_ARGUMENT;
  return uriscan::Guard([&] {
    state->state->Discard();
    return URISCAN_OK;
  });
}

uriscan_status uriscan_seen_state_stats_get(uriscan_seen_state* state,
                                            uriscan_seen_state_stats* stats) {
  if (!state || !stats) return URISCAN_INVALID_ARGUMENT;
  return uriscan::Guard([&] {
    const uriscan::SeenStateStats st = state->state->stats();
    *stats = {st.keys,          st.pending,         st.invalid,
              st.runs,          st.shards,          st.bytes,
              st.written_bytes, st.rewritten_bytes, st.commits,
              st.merges,        st.memory_bytes};
    return URISCAN_OK;
  });
}
