// SPDX-License-Identifier: MIT
// The scalar functions of the DuckDB extension: each call takes a DuckDB
// vector (up to 2048 rows) as one batch of the library (one copy of the
// strings into contiguous bytes, one SIMD scan, the batch transforms) and
// writes the result vector.
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "duckdb/api.h"
#include "uriscan/uriscan.h"

DUCKDB_EXTENSION_EXTERN

namespace uriscan {
namespace duck {
namespace {

// The bytes of a DuckDB string: inline up to 12 bytes, else behind a
// pointer (duckdb.h's duckdb_string_t).
std::string_view Text(const duckdb_string_t& s) {
  const uint32_t n = s.value.inlined.length;
  return n <= 12 ? std::string_view(s.value.inlined.inlined, n)
                 : std::string_view(s.value.pointer.ptr, n);
}

// The strings of a VARCHAR vector as one batch: NULL rows are empty and
// flagged.
struct Input {
  std::string bytes;
  std::vector<uint32_t> offsets;
  std::vector<uint8_t> null;
  ComponentSpans spans;
  // Scan(): what was scanned last, when spans still hold its answers.
  bool scanned = false;
  std::string next_bytes;
  std::vector<uint32_t> next_offsets;
  std::vector<uint8_t> next_null;

  size_t size() const { return null.size(); }
  Batch batch() const { return Batch{bytes.data(), offsets.data(), size()}; }
  std::string_view Row(size_t i) const {
    return std::string_view(bytes).substr(offsets[i],
                                          offsets[i + 1] - offsets[i]);
  }
  UriReference Ref(size_t i) const { return spans.Row(i, bytes.data()); }

  void Load(duckdb_vector v, size_t n) {
    scanned = false;
    Copy(v, n, &bytes, &offsets, &null);
  }
  // Loads and scans. Several functions of one column (uri_scheme(u),
  // uri_host(u), ...) are called on the same vector in turn: a vector
  // whose bytes are those scanned last keeps their spans.
  void Scan(duckdb_vector v, size_t n) {
    Copy(v, n, &next_bytes, &next_offsets, &next_null);
    if (scanned && next_bytes == bytes && next_offsets == offsets &&
        next_null == null)
      return;
    bytes.swap(next_bytes);
    offsets.swap(next_offsets);
    null.swap(next_null);
    uriscan::Scan(batch(), &spans);
    scanned = true;
  }

 private:
  static void Copy(duckdb_vector v, size_t n, std::string* bytes,
                   std::vector<uint32_t>* offsets,
                   std::vector<uint8_t>* null) {
    const auto* s = static_cast<const duckdb_string_t*>(duckdb_vector_get_data(v));
    uint64_t* validity = duckdb_vector_get_validity(v);
    bytes->clear();
    offsets->assign(1, 0);
    null->assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
      if (validity && !duckdb_validity_row_is_valid(validity, i)) {
        (*null)[i] = 1;
      } else {
        const std::string_view text = Text(s[i]);
        if (bytes->size() + text.size() > UINT32_MAX)
          throw std::length_error("a vector of more than 4 GiB of text");
        bytes->append(text);
      }
      offsets->push_back(static_cast<uint32_t>(bytes->size()));
    }
  }
};

// Argument k of a call: the references (k = 0, scanned) or another text
// argument (a profile, a base, a name: loaded), in this thread's input of
// that number (DuckDB calls a function from many threads).
Input& Argument(duckdb_data_chunk chunk, idx_t k, bool scan) {
  thread_local Input inputs[2];
  Input& in = inputs[scan ? 0 : 1];
  const size_t n = duckdb_data_chunk_get_size(chunk);
  if (scan) {
    in.Scan(duckdb_data_chunk_get_vector(chunk, k), n);
  } else {
    in.Load(duckdb_data_chunk_get_vector(chunk, k), n);
  }
  return in;
}

class Output {
 public:
  explicit Output(duckdb_vector v) : v_(v) {}
  void Null(size_t i) {
    if (!validity_) {
      duckdb_vector_ensure_validity_writable(v_);
      validity_ = duckdb_vector_get_validity(v_);
    }
    duckdb_validity_set_row_invalid(validity_, i);
  }
  void Text(size_t i, std::string_view s) {
    duckdb_vector_assign_string_element_len(v_, i, s.data(), s.size());
  }
  void Optional(size_t i, std::optional<std::string_view> s) {
    if (s) {
      Text(i, *s);
    } else {
      Null(i);
    }
  }
  template <class T>
  T* Data() {
    return static_cast<T*>(duckdb_vector_get_data(v_));
  }

 private:
  duckdb_vector v_;
  uint64_t* validity_ = nullptr;
};

// The text arguments of a row that are the same for every row of the
// vector (a profile, a base, a parameter name), as DuckDB passes constants.
std::optional<std::string_view> SameForAll(const Input& in) {
  if (in.size() == 0 || in.null[0]) return std::nullopt;
  for (size_t i = 1; i < in.size(); ++i)
    if (in.null[i] || in.Row(i) != in.Row(0)) return std::nullopt;
  return in.Row(0);
}

// One Fingerprinter per profile, made once (they are safe to share).
const Fingerprinter& FingerprinterOf(Profile p) {
  static const Fingerprinter* const all[] = {
      new Fingerprinter(Profile::kSyntax), new Fingerprinter(Profile::kScheme),
      new Fingerprinter(Profile::kCrawler), new Fingerprinter(Profile::kW3lib)};
  return *all[static_cast<int>(p)];
}

Profile ProfileNamed(std::string_view name) {
  Profile p;
  if (!ParseProfile(name, &p))
    throw std::invalid_argument("'" + std::string(name) +
                                "' is not a profile; expected syntax, scheme, "
                                "crawler or w3lib");
  return p;
}

// Runs `body` and turns a C++ exception into the function's error.
template <class Body>
void Guard(duckdb_function_info info, const char* name, Body body) {
  try {
    body();
  } catch (const std::exception& e) {
    const std::string message = std::string(name) + ": " + e.what();
    duckdb_scalar_function_set_error(info, message.c_str());
  }
}

enum class Part {
  kScheme, kUserinfo, kHost, kPort, kPath, kQuery, kFragment, kHostType,
  kError, kHostNoWww
};

std::optional<std::string_view> PartOf(const UriReference& u, Part p) {
  if (p == Part::kError)
    return u.valid() ? std::nullopt
                     : std::optional<std::string_view>(
                           ErrorKindName(u.error().kind));
  if (!u.valid()) return std::nullopt;
  switch (p) {
    case Part::kScheme: return u.scheme();
    case Part::kUserinfo: return u.userinfo();
    case Part::kHost: return u.host();
    case Part::kPort: return u.port();
    case Part::kPath: return u.path();
    case Part::kQuery: return u.query();
    case Part::kFragment: return u.fragment();
    case Part::kHostType:
      if (!u.host()) return std::nullopt;
      return std::string_view(HostKindName(u.host_kind()));
    case Part::kHostNoWww:
      if (!u.host()) return std::nullopt;
      return HostWithoutWww(*u.host());
    case Part::kError: break;
  }
  return std::nullopt;
}

template <Part P>
void Component(duckdb_function_info info, duckdb_data_chunk chunk,
               duckdb_vector result) {
  Guard(info, "uri component", [&] {
    const Input& in = Argument(chunk, 0, true);
    const size_t n = in.size();
    Output out(result);
    for (size_t i = 0; i < n; ++i) {
      if (in.null[i]) {
        out.Null(i);
      } else {
        out.Optional(i, PartOf(in.Ref(i), P));
      }
    }
  });
}

void Valid(duckdb_function_info info, duckdb_data_chunk chunk,
           duckdb_vector result) {
  Guard(info, "uri_valid", [&] {
    const Input& in = Argument(chunk, 0, true);
    const size_t n = in.size();
    Output out(result);
    bool* data = out.Data<bool>();
    for (size_t i = 0; i < n; ++i) {
      if (in.null[i]) {
        out.Null(i);
      } else {
        data[i] = in.spans.error_kind[i] == 0;
      }
    }
  });
}

// uri_normalize(url[, profile]) and uri_key(url[, profile]): the profile of
// each row; one batch call when every row has the same.
template <bool kKey>
void NormalizeOrKey(duckdb_function_info info, duckdb_data_chunk chunk,
                    duckdb_vector result) {
  Guard(info, kKey ? "uri_key" : "uri_normalize", [&] {
    const Input& in = Argument(chunk, 0, true);
    const size_t n = in.size();
    std::optional<Profile> common = Profile::kScheme;
    const Input* profiles = nullptr;
    if (duckdb_data_chunk_get_column_count(chunk) > 1) {
      profiles = &Argument(chunk, 1, false);
      const auto same = SameForAll(*profiles);
      common.reset();
      if (same) common = ProfileNamed(*same);
    }
    Output out(result);
    const auto profile_of = [&](size_t i) {
      return common ? *common : ProfileNamed(profiles->Row(i));
    };
    // An invalid reference has no form, but under w3lib, which
    // canonicalizes much RFC 3986 refuses ("?a[]=1"): that one row alone.
    const auto is_null = [&](size_t i) {
      return in.null[i] || (profiles && profiles->null[i]) ||
             (in.spans.error_kind[i] != 0 && profile_of(i) != Profile::kW3lib);
    };
    if constexpr (kKey) {
      thread_local std::vector<uint64_t> keys;
      uint64_t* data = out.Data<uint64_t>();
      if (common) {
        FingerprinterOf(*common).Batch64(in.batch(), in.spans, &keys);
      }
      for (size_t i = 0; i < n; ++i) {
        const uint64_t key =
            is_null(i) ? 0
            : common   ? keys[i]
                       : FingerprinterOf(profile_of(i)).Key64(in.Row(i));
        if (key == 0 && (is_null(i) || in.spans.error_kind[i] != 0)) {
          out.Null(i);  // (0: a w3lib form refused too)
        } else {
          data[i] = key;
        }
      }
    } else {
      thread_local NormalizedBatch batch;
      thread_local std::string one;
      if (common) NormalizeBatch(in.batch(), in.spans, *common, &batch);
      for (size_t i = 0; i < n; ++i) {
        if (is_null(i)) {
          out.Null(i);
        } else if (common && in.spans.error_kind[i] == 0) {
          out.Text(i, batch.Get(i));
        } else {
          one.clear();
          if (Normalize(in.Ref(i), profile_of(i), &one)) {
            out.Text(i, one);
          } else {
            out.Null(i);
          }
        }
      }
    }
  });
}

// uri_resolve(base, ref): one batch call against a base every row shares.
void ResolveFn(duckdb_function_info info, duckdb_data_chunk chunk,
               duckdb_vector result) {
  Guard(info, "uri_resolve", [&] {
    const Input& bases = Argument(chunk, 0, false);
    const Input& refs = Argument(chunk, 1, true);
    const size_t n = refs.size();
    Output out(result);
    const auto same = SameForAll(bases);
    thread_local ResolvedBatch resolved;
    thread_local std::string one;
    std::optional<UriReference> base;
    if (same) {
      base = ParseUriReference(*same);
      ResolveBatch(*base, refs.batch(), refs.spans, ResolveOptions(), false,
                   &resolved);
    }
    for (size_t i = 0; i < n; ++i) {
      if (refs.null[i] || bases.null[i]) {
        out.Null(i);
      } else if (base) {
        if (resolved.status[i] == ResolveStatus::kOk) {
          out.Text(i, resolved.Get(i));
        } else {
          out.Null(i);
        }
      } else {
        one.clear();
        if (Resolve(ParseUriReference(bases.Row(i)), refs.Ref(i),
                    ResolveOptions(), &one) == ResolveStatus::kOk) {
          out.Text(i, one);
        } else {
          out.Null(i);
        }
      }
    }
  });
}

const PublicSuffixList& BuiltinList() {
  static const PublicSuffixList* const list = new PublicSuffixList();
  return *list;
}

template <bool kRegistrable>
void Suffix(duckdb_function_info info, duckdb_data_chunk chunk,
            duckdb_vector result) {
  Guard(info, kRegistrable ? "uri_registrable_domain" : "uri_public_suffix",
        [&] {
    const Input& in = Argument(chunk, 0, true);
    const size_t n = in.size();
    Output out(result);
    for (size_t i = 0; i < n; ++i) {
      const UriReference u = in.Ref(i);
      if (in.null[i] || !u.valid() || !u.host() ||
          u.host_kind() != HostKind::kRegName) {
        out.Null(i);
        continue;
      }
      const PublicSuffixList::Suffixes s = BuiltinList().Lookup(*u.host());
      out.Optional(i, kRegistrable ? s.registrable_domain : s.public_suffix);
    }
  });
}

void Surt(duckdb_function_info info, duckdb_data_chunk chunk,
          duckdb_vector result) {
  Guard(info, "uri_surt", [&] {
    const Input& in = Argument(chunk, 0, true);
    const size_t n = in.size();
    Output out(result);
    thread_local std::string key;
    for (size_t i = 0; i < n; ++i) {
      const UriReference u = in.Ref(i);
      key.clear();
      if (in.null[i] || !u.valid() || !u.scheme() ||
          !AppendIaSurt(u.text(), &key)) {
        out.Null(i);
      } else {
        out.Text(i, key);
      }
    }
  });
}

// A LIST vector's rows: row i's items are [offset, offset + length) of its
// child vector, which grows by `count` items per call of Add().
class ListOutput {
 public:
  explicit ListOutput(duckdb_vector v)
      : v_(v), entries_(static_cast<duckdb_list_entry*>(
                   duckdb_vector_get_data(v))) {}
  // Row i holds `count` items from the child's current size on; returns
  // where they go.
  size_t Add(size_t i, size_t count) {
    const size_t at = size_;
    size_ += count;
    duckdb_list_vector_reserve(v_, size_);
    duckdb_list_vector_set_size(v_, size_);
    entries_[i] = duckdb_list_entry{at, count};
    return at;
  }
  duckdb_vector child() const { return duckdb_list_vector_get_child(v_); }

 private:
  duckdb_vector v_;
  duckdb_list_entry* entries_;
  size_t size_ = 0;
};

void Risks(duckdb_function_info info, duckdb_data_chunk chunk,
           duckdb_vector result) {
  Guard(info, "uri_risks", [&] {
    const Input& in = Argument(chunk, 0, true);
    const size_t n = in.size();
    thread_local std::vector<uint32_t> flags;
    RiskFlags(in.batch(), in.spans, &flags);
    Output out(result);
    ListOutput list(result);
    for (size_t i = 0; i < n; ++i) {
      if (in.null[i] || in.spans.error_kind[i] != 0) {
        out.Null(i);
        list.Add(i, 0);
        continue;
      }
      const size_t count = static_cast<size_t>(__builtin_popcount(flags[i]));
      size_t at = list.Add(i, count);
      Output names(list.child());
      for (int bit = 0; bit < 32; ++bit)
        if (flags[i] & (1u << bit)) names.Text(at++, RiskFlagName(bit));
    }
  });
}

// A chunk's query parameters, their names decoded (UTF-8 with no NUL, as
// the command's decoded columns), and their values too when asked; row i's
// are [start[i], start[i + 1]).
struct Params {
  QueryParams params;
  std::vector<char> names, values;
  std::vector<uint32_t> name_offsets, value_offsets, start;

  void Make(const Input& in, bool decode_values) {
    ExtractQueryParams(in.bytes.data(), in.spans, &params);
    DecodeSpans(in.bytes.data(), params.name_begin.data(),
                params.name_end.data(), params.size(), Decoding::kForm,
                &names, &name_offsets);
    if (decode_values)
      DecodeSpans(in.bytes.data(), params.value_begin.data(),
                  params.value_end.data(), params.size(), Decoding::kForm,
                  &values, &value_offsets);
    params.RowStarts(in.size(), &start);
  }
  std::string_view Name(size_t k) const {
    return {names.data() + name_offsets[k],
            name_offsets[k + 1] - name_offsets[k]};
  }
  std::string_view Value(size_t k) const {
    return {values.data() + value_offsets[k],
            value_offsets[k + 1] - value_offsets[k]};
  }
};

// "scheme://...?..." : an absolute URI with an authority and a query.
bool LooksLikeUriWithQuery(std::string_view text) {
  if (text.find("://") == std::string_view::npos ||
      text.find('?') == std::string_view::npos)
    return false;
  const UriReference u = ParseUriReference(text);
  return u.valid() && u.scheme() && u.host() && u.query();
}

// uri_param (decoded) and uri_param_raw (as written).
template <bool kRaw>
void Param(duckdb_function_info info, duckdb_data_chunk chunk,
           duckdb_vector result) {
  Guard(info, kRaw ? "uri_param_raw" : "uri_param", [&] {
    const Input& in = Argument(chunk, 0, true);
    const size_t n = in.size();
    const Input& names = Argument(chunk, 1, false);
    thread_local Params p;
    p.Make(in, false);
    thread_local std::string value;
    Output out(result);
    for (size_t i = 0; i < n; ++i) {
      bool found = false;
      // uri_param('q', 'http://a/?q=1'): the arguments swapped. A name
      // that reads as an absolute URI with a query, and a first argument
      // with none, would only ever give NULL: said instead.
      if (!in.null[i] && !names.null[i] &&
          LooksLikeUriWithQuery(names.Row(i)) && !in.Ref(i).query())
        throw std::invalid_argument(
            "uri_param(uri, name) takes the URI first and the parameter's "
            "name second; the name '" + std::string(names.Row(i).substr(0, 200)) +
            "' reads as a URI with a query and the URI '" +
            std::string(in.Row(i).substr(0, 200)) +
            "' has none: swap the arguments");
      if (!in.null[i] && !names.null[i] && in.spans.error_kind[i] == 0) {
        for (uint32_t k = p.start[i]; k < p.start[i + 1] && !found; ++k) {
          if (p.Name(k) != names.Row(i)) continue;
          // Only the value asked for is decoded.
          const std::string_view raw(
              in.bytes.data() + p.params.value_begin[k],
              p.params.value_end[k] - p.params.value_begin[k]);
          if (kRaw) {
            out.Text(i, raw);
          } else {
            value.resize(raw.size());
            value.resize(Decode(raw, Decoding::kForm, value.data()));
            out.Text(i, value);
          }
          found = true;
        }
      }
      if (!found) out.Null(i);
    }
  });
}

void ParamsFn(duckdb_function_info info, duckdb_data_chunk chunk,
              duckdb_vector result) {
  Guard(info, "uri_params", [&] {
    const Input& in = Argument(chunk, 0, true);
    const size_t n = in.size();
    thread_local Params p;
    p.Make(in, true);
    Output out(result);
    ListOutput list(result);
    for (size_t i = 0; i < n; ++i) {
      // NULL for NULL, an invalid reference or one without a query, as
      // PostgreSQL's uri_params gives no row.
      if (in.null[i] || !in.Ref(i).valid() || !in.Ref(i).query()) {
        out.Null(i);
        list.Add(i, 0);
        continue;
      }
      const size_t count = p.start[i + 1] - p.start[i];
      const size_t at = list.Add(i, count);
      const duckdb_vector fields = list.child();
      Output name(duckdb_struct_vector_get_child(fields, 0));
      Output value(duckdb_struct_vector_get_child(fields, 1));
      for (size_t k = 0; k < count; ++k) {
        name.Text(at + k, p.Name(p.start[i] + k));
        value.Text(at + k, p.Value(p.start[i] + k));
      }
    }
  });
}

// uri_parse: STRUCT(valid, error, scheme, userinfo, host, port, path,
// query, fragment, host_type) from one scan.
void Parse(duckdb_function_info info, duckdb_data_chunk chunk,
           duckdb_vector result) {
  Guard(info, "uri_parse", [&] {
    const Input& in = Argument(chunk, 0, true);
    const size_t n = in.size();
    Output out(result);
    Output valid(duckdb_struct_vector_get_child(result, 0));
    bool* valid_data = valid.Data<bool>();
    static constexpr Part kParts[] = {
        Part::kError, Part::kScheme, Part::kUserinfo, Part::kHost,
        Part::kPort, Part::kPath, Part::kQuery, Part::kFragment,
        Part::kHostType};
    std::vector<Output> parts;
    for (size_t k = 0; k < std::size(kParts); ++k)
      parts.emplace_back(duckdb_struct_vector_get_child(result, k + 1));
    for (size_t i = 0; i < n; ++i) {
      if (in.null[i]) {
        out.Null(i);
        valid.Null(i);
        for (Output& o : parts) o.Null(i);
        continue;
      }
      const UriReference u = in.Ref(i);
      valid_data[i] = u.valid();
      for (size_t k = 0; k < std::size(kParts); ++k)
        parts[k].Optional(i, PartOf(u, kParts[k]));
    }
  });
}

// The derived columns of `parse --columns` (docs/cli.md), a row at a time.
// `f(u)` answers for a valid or invalid reference u with a view that lives
// until its next call; nullopt is NULL.
template <class F>
void PerRow(duckdb_function_info info, duckdb_data_chunk chunk,
            duckdb_vector result, const char* name, F f) {
  Guard(info, name, [&] {
    const Input& in = Argument(chunk, 0, true);
    Output out(result);
    for (size_t i = 0; i < in.size(); ++i) {
      if (in.null[i]) {
        out.Null(i);
      } else {
        out.Optional(i, f(in.Ref(i)));
      }
    }
  });
}

// The same for a LIST(VARCHAR) answer: `f(u, &items)` false is NULL.
template <class F>
void PerRowList(duckdb_function_info info, duckdb_data_chunk chunk,
                duckdb_vector result, const char* name, F f) {
  Guard(info, name, [&] {
    const Input& in = Argument(chunk, 0, true);
    Output out(result);
    ListOutput list(result);
    thread_local std::vector<std::string> items;
    for (size_t i = 0; i < in.size(); ++i) {
      items.clear();
      if (in.null[i] || !f(in.Ref(i), &items)) {
        out.Null(i);
        list.Add(i, 0);
        continue;
      }
      size_t at = list.Add(i, items.size());
      Output texts(list.child());
      for (const std::string& item : items) texts.Text(at++, item);
    }
  });
}

// `text` decoded (UTF-8 with no NUL, as the command's decoded columns).
std::string_view Decoded(std::string_view text, Decoding how) {
  thread_local std::string buffer;
  buffer.resize(text.size());
  buffer.resize(Decode(text, how, buffer.data()));
  return buffer;
}
std::optional<std::string_view> DecodedPart(const UriReference& u,
                                            std::optional<std::string_view> part) {
  if (!u.valid() || !part) return std::nullopt;
  return Decoded(*part, Decoding::kPercent);
}

void Authority(duckdb_function_info info, duckdb_data_chunk chunk,
               duckdb_vector result) {
  PerRow(info, chunk, result, "uri_authority", [](const UriReference& u) {
    return u.valid() ? u.authority() : std::nullopt;
  });
}

void Subdomain(duckdb_function_info info, duckdb_data_chunk chunk,
               duckdb_vector result) {
  PerRow(info, chunk, result, "uri_subdomain",
         [](const UriReference& u) -> std::optional<std::string_view> {
           if (!u.valid() || !u.host() || u.host_kind() != HostKind::kRegName)
             return std::nullopt;
           return BuiltinList().Subdomain(*u.host());
         });
}

void Extension(duckdb_function_info info, duckdb_data_chunk chunk,
               duckdb_vector result) {
  PerRow(info, chunk, result, "uri_extension",
         [](const UriReference& u) -> std::optional<std::string_view> {
           if (!u.valid()) return std::nullopt;
           return Decoded(PathExtension(u.path()), Decoding::kPercent);
         });
}

template <Part P>
void DecodedComponent(duckdb_function_info info, duckdb_data_chunk chunk,
                      duckdb_vector result) {
  PerRow(info, chunk, result, "uri decoded component",
         [](const UriReference& u) { return DecodedPart(u, PartOf(u, P)); });
}

void ErrorAt(duckdb_function_info info, duckdb_data_chunk chunk,
             duckdb_vector result) {
  Guard(info, "uri_error_at", [&] {
    const Input& in = Argument(chunk, 0, true);
    Output out(result);
    auto* data = out.Data<uint64_t>();
    for (size_t i = 0; i < in.size(); ++i) {
      if (in.null[i] || in.spans.error_kind[i] == 0) {
        out.Null(i);
      } else {
        data[i] = in.Ref(i).error().offset;
      }
    }
  });
}

void SurtCrawler(duckdb_function_info info, duckdb_data_chunk chunk,
                 duckdb_vector result) {
  PerRow(info, chunk, result, "uri_surt_crawler",
         [](const UriReference& u) -> std::optional<std::string_view> {
           thread_local std::string normal, key;
           normal.clear();
           key.clear();
           if (!Normalize(u, Profile::kCrawler, &normal) ||
               !AppendCrawlerSurt(ParseUriReference(normal), &key))
             return std::nullopt;
           return key;
         });
}

void PathSegments(duckdb_function_info info, duckdb_data_chunk chunk,
                  duckdb_vector result) {
  PerRowList(info, chunk, result, "uri_path_segments",
             [](const UriReference& u, std::vector<std::string>* items) {
               if (!u.valid()) return false;
               for (std::string_view s : PathSegmentsOf(u.path()))
                 items->emplace_back(Decoded(s, Decoding::kPercent));
               return true;
             });
}

void ParamNames(duckdb_function_info info, duckdb_data_chunk chunk,
                duckdb_vector result) {
  PerRowList(info, chunk, result, "uri_param_names",
             [](const UriReference& u, std::vector<std::string>* items) {
               if (!u.valid()) return false;
               ForEachQueryField(u.query().value_or(""),
                                 [&](std::string_view name, std::string_view) {
                                   items->emplace_back(
                                       Decoded(name, Decoding::kForm));
                                   return true;
                                 });
               return true;
             });
}

// ClickHouse's names whose answer is a whole URL or list of them.
// cutWWW: the reference with one leading "www." cut from its host.
void CutWww(duckdb_function_info info, duckdb_data_chunk chunk,
            duckdb_vector result) {
  PerRow(info, chunk, result, "cutWWW",
         [](const UriReference& u) -> std::optional<std::string_view> {
           if (!u.valid()) return std::nullopt;
           const std::string_view text = u.text();
           if (!u.host() || u.host_kind() != HostKind::kRegName) return text;
           const size_t cut = u.host()->size() - HostWithoutWww(*u.host()).size();
           if (cut == 0) return text;
           thread_local std::string out;
           const size_t at = static_cast<size_t>(u.host()->data() - text.data());
           out.assign(text.substr(0, at));
           out.append(text.substr(at + cut));
           return out;
         });
}

// cutQueryString and cutFragment: the reference without "?query" or
// "#fragment".
template <bool kQuery>
void CutPart(duckdb_function_info info, duckdb_data_chunk chunk,
             duckdb_vector result) {
  PerRow(info, chunk, result, kQuery ? "cutQueryString" : "cutFragment",
         [](const UriReference& u) -> std::optional<std::string_view> {
           if (!u.valid()) return std::nullopt;
           const std::string_view text = u.text();
           const auto part = kQuery ? u.query() : u.fragment();
           if (!part) return text;
           thread_local std::string out;
           const size_t at = static_cast<size_t>(part->data() - text.data());
           out.assign(text.substr(0, at - 1));  // without the '?' or '#'
           out.append(text.substr(at + part->size()));
           return out;
         });
}

// extractURLParameters: each field of the query as written ("a=1", "b").
void RawFields(duckdb_function_info info, duckdb_data_chunk chunk,
               duckdb_vector result) {
  PerRowList(info, chunk, result, "extractURLParameters",
             [](const UriReference& u, std::vector<std::string>* items) {
               if (!u.valid()) return false;
               ForEachQueryField(
                   u.query().value_or(""),
                   [&](std::string_view name, std::string_view value) {
                     // A value (even "") starts after the '=' it follows.
                     const char* end = value.data() ? value.data() + value.size()
                                                    : name.data() + name.size();
                     items->emplace_back(name.data(), end);
                     return true;
                   });
               return true;
             });
}

template <bool kPathOnly>
void Hierarchy(duckdb_function_info info, duckdb_data_chunk chunk,
               duckdb_vector result) {
  PerRowList(info, chunk, result, kPathOnly ? "URLPathHierarchy" : "URLHierarchy",
             [](const UriReference& u, std::vector<std::string>* items) {
               if (!u.valid()) return false;
               for (std::string_view s : UriHierarchy(u, kPathOnly))
                 items->emplace_back(s);
               return true;
             });
}

// decodeURLComponent and encodeURLComponent: of any text, not a reference.
template <bool kEncode>
void UrlComponent(duckdb_function_info info, duckdb_data_chunk chunk,
                  duckdb_vector result) {
  Guard(info, kEncode ? "encodeURLComponent" : "decodeURLComponent", [&] {
    const Input& in = Argument(chunk, 0, false);
    Output out(result);
    thread_local std::string encoded;
    for (size_t i = 0; i < in.size(); ++i) {
      if (in.null[i]) {
        out.Null(i);
      } else if (kEncode) {
        encoded.clear();
        AppendPercentEncoded(in.Row(i), &encoded);
        out.Text(i, encoded);
      } else {
        out.Text(i, Decoded(in.Row(i), Decoding::kPercent));
      }
    }
  });
}

// port(u[, default]): the port as a number; the default (or NULL) without
// one, with an empty one, or past 65535; NULL for an invalid reference.
void PortNumber(duckdb_function_info info, duckdb_data_chunk chunk,
                duckdb_vector result) {
  Guard(info, "port", [&] {
    const Input& in = Argument(chunk, 0, true);
    const size_t n = in.size();
    const bool has_default = duckdb_data_chunk_get_column_count(chunk) > 1;
    duckdb_vector defaults =
        has_default ? duckdb_data_chunk_get_vector(chunk, 1) : nullptr;
    const auto* default_data =
        has_default ? static_cast<const int32_t*>(duckdb_vector_get_data(defaults))
                    : nullptr;
    uint64_t* default_validity =
        has_default ? duckdb_vector_get_validity(defaults) : nullptr;
    Output out(result);
    auto* data = out.Data<int32_t>();
    for (size_t i = 0; i < n; ++i) {
      if (in.null[i]) {
        out.Null(i);
        continue;
      }
      const UriReference u = in.Ref(i);
      if (!u.valid()) {
        out.Null(i);
        continue;
      }
      const auto port = u.port();
      int32_t value = -1;
      if (port && !port->empty() && port->size() <= 5) {
        value = 0;
        for (char d : *port) value = value * 10 + (d - '0');
        if (value > 65535) value = -1;
      }
      if (value >= 0) {
        data[i] = value;
      } else if (has_default && (!default_validity ||
                                 duckdb_validity_row_is_valid(default_validity, i))) {
        data[i] = default_data[i];
      } else {
        out.Null(i);
      }
    }
  });
}

// firstSignificantSubdomain: the first label of the registrable domain.
void FirstSignificant(duckdb_function_info info, duckdb_data_chunk chunk,
                      duckdb_vector result) {
  PerRow(info, chunk, result, "firstSignificantSubdomain",
         [](const UriReference& u) -> std::optional<std::string_view> {
           if (!u.valid() || !u.host() || u.host_kind() != HostKind::kRegName)
             return std::nullopt;
           const auto domain = BuiltinList().Lookup(*u.host()).registrable_domain;
           if (!domain) return std::nullopt;
           return domain->substr(0, std::min(domain->find('.'), domain->size()));
         });
}

// Registration.
duckdb_logical_type Type(duckdb_type id) { return duckdb_create_logical_type(id); }

struct Signature {
  std::vector<duckdb_type> parameters;
  duckdb_logical_type result;  // owned; destroyed after registration
  duckdb_scalar_function_t function;
};

bool Register(duckdb_connection connection, const char* name,
              const std::vector<Signature>& overloads) {
  duckdb_scalar_function_set set = duckdb_create_scalar_function_set(name);
  for (const Signature& s : overloads) {
    duckdb_scalar_function f = duckdb_create_scalar_function();
    duckdb_scalar_function_set_name(f, name);
    for (duckdb_type p : s.parameters) {
      duckdb_logical_type t = Type(p);
      duckdb_scalar_function_add_parameter(f, t);
      duckdb_destroy_logical_type(&t);
    }
    duckdb_scalar_function_set_return_type(f, s.result);
    duckdb_scalar_function_set_function(f, s.function);
    duckdb_add_scalar_function_to_set(set, f);
    duckdb_destroy_scalar_function(&f);
  }
  const bool ok = duckdb_register_scalar_function_set(connection, set) ==
                  DuckDBSuccess;
  duckdb_destroy_scalar_function_set(&set);
  for (const Signature& s : overloads) {
    duckdb_logical_type t = s.result;
    duckdb_destroy_logical_type(&t);
  }
  return ok;
}

duckdb_logical_type ListOf(duckdb_logical_type child) {
  duckdb_logical_type list = duckdb_create_list_type(child);
  duckdb_destroy_logical_type(&child);
  return list;
}

duckdb_logical_type StructOf(std::vector<const char*> names,
                             const std::vector<duckdb_type>& types) {
  std::vector<duckdb_logical_type> members;
  for (duckdb_type t : types) members.push_back(Type(t));
  duckdb_logical_type s = duckdb_create_struct_type(
      members.data(), names.data(), static_cast<idx_t>(members.size()));
  for (duckdb_logical_type& m : members) duckdb_destroy_logical_type(&m);
  return s;
}

}  // namespace

bool RegisterScalarFunctions(duckdb_connection c) {
  constexpr duckdb_type V = DUCKDB_TYPE_VARCHAR;
  bool ok = true;
  const auto text = [&](const char* name, duckdb_scalar_function_t f) {
    ok &= Register(c, name, {{{V}, Type(V), f}});
  };
  text("uri_scheme", Component<Part::kScheme>);
  text("uri_userinfo", Component<Part::kUserinfo>);
  text("uri_host", Component<Part::kHost>);
  text("uri_port", Component<Part::kPort>);
  text("uri_path", Component<Part::kPath>);
  text("uri_query", Component<Part::kQuery>);
  text("uri_fragment", Component<Part::kFragment>);
  text("uri_host_type", Component<Part::kHostType>);
  text("uri_error", Component<Part::kError>);
  text("uri_registrable_domain", Suffix<true>);
  text("uri_public_suffix", Suffix<false>);
  text("uri_surt", Surt);
  ok &= Register(c, "uri_valid", {{{V}, Type(DUCKDB_TYPE_BOOLEAN), Valid}});
  ok &= Register(c, "uri_normalize",
                 {{{V}, Type(V), NormalizeOrKey<false>},
                  {{V, V}, Type(V), NormalizeOrKey<false>}});
  ok &= Register(c, "uri_key",
                 {{{V}, Type(DUCKDB_TYPE_UBIGINT), NormalizeOrKey<true>},
                  {{V, V}, Type(DUCKDB_TYPE_UBIGINT), NormalizeOrKey<true>}});
  ok &= Register(c, "uri_resolve", {{{V, V}, Type(V), ResolveFn}});
  ok &= Register(c, "uri_param", {{{V, V}, Type(V), Param<false>}});
  ok &= Register(c, "uri_param_raw", {{{V, V}, Type(V), Param<true>}});
  // The other columns of parse --columns that a reference alone gives.
  text("uri_authority", Authority);
  text("uri_host_nowww", Component<Part::kHostNoWww>);
  text("uri_subdomain", Subdomain);
  text("uri_extension", Extension);
  text("uri_path_decoded", DecodedComponent<Part::kPath>);
  text("uri_query_decoded", DecodedComponent<Part::kQuery>);
  text("uri_fragment_decoded", DecodedComponent<Part::kFragment>);
  text("uri_surt_crawler", SurtCrawler);
  ok &= Register(c, "uri_error_at",
                 {{{V}, Type(DUCKDB_TYPE_UBIGINT), ErrorAt}});
  ok &= Register(c, "uri_path_segments", {{{V}, ListOf(Type(V)), PathSegments}});
  ok &= Register(c, "uri_param_names", {{{V}, ListOf(Type(V)), ParamNames}});
  ok &= Register(c, "uri_risks", {{{V}, ListOf(Type(V)), Risks}});
  ok &= Register(c, "uri_params",
                 {{{V}, ListOf(StructOf({"name", "value"}, {V, V})), ParamsFn}});
  ok &= Register(
      c, "uri_parse",
      {{{V},
        StructOf({"valid", "error", "scheme", "userinfo", "host", "port",
                  "path", "query", "fragment", "host_type"},
                 {DUCKDB_TYPE_BOOLEAN, V, V, V, V, V, V, V, V, V}),
        Parse}});
  // Other tools' names, where their answer on a valid URL is ours
  // (docs/library.md lists each difference): netquack's, then ClickHouse's.
  // Left out: names whose meaning differs (ClickHouse's topLevelDomain is
  // the last label, not the public suffix).
  const struct {
    const char* alias;
    duckdb_scalar_function_t f;
  } kAliases[] = {
      {"extract_schema", Component<Part::kScheme>},
      {"protocol", Component<Part::kScheme>},
      {"fragment", Component<Part::kFragment>},
      {"extract_tld", Suffix<false>},
      {"extract_host", Component<Part::kHost>},
      {"extract_port", Component<Part::kPort>},
      {"extract_path", Component<Part::kPath>},
      {"extract_query_string", Component<Part::kQuery>},
      {"extract_domain", Suffix<true>},
      {"domain", Component<Part::kHost>},
      {"domainWithoutWWW", Component<Part::kHostNoWww>},
      {"path", Component<Part::kPath>},
      {"queryString", Component<Part::kQuery>},
      {"cutToFirstSignificantSubdomain", Suffix<true>},
  };
  for (const auto& a : kAliases) text(a.alias, a.f);
  ok &= Register(c, "extractURLParameter", {{{V, V}, Type(V), Param<false>}});
  const struct {
    const char* alias;
    duckdb_scalar_function_t f;
  } kMoreAliases[] = {
      {"cutWWW", CutWww},
      {"cutQueryString", CutPart<true>},
      {"cutFragment", CutPart<false>},
      {"decodeURLComponent", UrlComponent<false>},
      {"encodeURLComponent", UrlComponent<true>},
      {"netloc", Authority},
      {"firstSignificantSubdomain", FirstSignificant},
      {"extract_subdomain", Subdomain},
      {"extract_extension", Extension},
  };
  for (const auto& a : kMoreAliases) text(a.alias, a.f);
  const struct {
    const char* alias;
    duckdb_scalar_function_t f;
  } kListAliases[] = {
      {"extractURLParameters", RawFields},
      {"extractURLParameterNames", ParamNames},
      {"URLHierarchy", Hierarchy<false>},
      {"URLPathHierarchy", Hierarchy<true>},
      {"extract_path_segments", PathSegments},
  };
  for (const auto& a : kListAliases)
    ok &= Register(c, a.alias, {{{V}, ListOf(Type(V)), a.f}});
  ok &= Register(c, "extract_query_parameters",
                 {{{V}, ListOf(StructOf({"name", "value"}, {V, V})), ParamsFn}});
  constexpr duckdb_type I = DUCKDB_TYPE_INTEGER;
  ok &= Register(c, "port", {{{V}, Type(I), PortNumber},
                             {{V, I}, Type(I), PortNumber}});
  return ok;
}

}  // namespace duck
}  // namespace uriscan
