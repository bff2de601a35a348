// SPDX-License-Identifier: MIT
// RFC 3986 sec. 5.2: remove_dot_segments, the reference transform, merge and
// recomposition; the 1997 draft's variant; and Relativize, the inverse.
#include "uriscan/resolve.h"

#include <algorithm>
#include <optional>

#include "src/transform/scratch.h"

namespace uriscan {
namespace {

using Part = std::optional<std::string_view>;

bool EqualNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const unsigned char x = static_cast<unsigned char>(a[i]) | 0x20;
    if (x != (static_cast<unsigned char>(b[i]) | 0x20)) return false;
  }
  return true;  // scheme characters only: ALPHA DIGIT + - .
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// sec. 5.3 recomposition around a path the caller appends with `append_path`.
// When there is no authority and the path starts with "//" (remove_dot_segments
// can make one: "/a/..//b"), "/." goes first so the result does not reparse
// with an authority; the path means the same.
template <class AppendPath>
void Recompose(Part scheme, Part authority, AppendPath append_path, Part query,
               Part fragment, std::string* out) {
  if (scheme) {
    out->append(*scheme);
    out->push_back(':');
  }
  if (authority) {
    out->append("//");
    out->append(*authority);
  }
  const size_t path_begin = out->size();
  append_path(out);
  if (!authority && out->size() - path_begin >= 2 &&
      (*out)[path_begin] == '/' && (*out)[path_begin + 1] == '/') {
    out->insert(path_begin, "/.");
  }
  if (query) {
    out->push_back('?');
    out->append(*query);
  }
  if (fragment) {
    out->push_back('#');
    out->append(*fragment);
  }
}

// sec. 5.2.3 merge: the base path up to its last "/", or "/" for a base with an
// authority and an empty path, then the reference path.
void Merge(const UriReference& base, std::string_view ref_path,
           std::string* buf) {
  buf->clear();
  const std::string_view base_path = base.path();
  if (base.authority() && base_path.empty()) {
    buf->push_back('/');
  } else {
    const size_t slash = base_path.rfind('/');
    if (slash != std::string_view::npos)
      buf->append(base_path.substr(0, slash + 1));
  }
  buf->append(ref_path);
}

}  // namespace

const char* ResolveStatusName(ResolveStatus status) {
  switch (status) {
    case ResolveStatus::kOk: return "ok";
    case ResolveStatus::kBadBase: return "bad-base";
    case ResolveStatus::kBadReference: return "bad-reference";
    case ResolveStatus::kAboveRoot: return "above-root";
    case ResolveStatus::kSameDocument: return "same-document";
  }
  return "?";
}

bool RemoveDotSegments(std::string_view in, AboveRoot above_root,
                       std::string* out) {
  // The RFC's input/output buffers (sec. 5.2.4, rules A to E). `out` may hold a
  // prefix already; `floor` is where this path starts plus any ".." kept
  // with AboveRoot::kKeep, which later ".." never remove.
  const size_t start = out->size();
  size_t floor = start;
  // A ".." with nothing to remove: true to carry on, false to refuse.
  auto above = [&](bool rooted) {
    if (above_root == AboveRoot::kReject) return false;
    if (above_root == AboveRoot::kKeep) {
      out->append(rooted || out->size() > start ? "/.." : "..");
      floor = out->size();
    }
    return true;
  };
  auto remove_last_segment = [&](bool rooted) {
    if (out->size() <= floor) return above(rooted);
    const size_t slash = out->rfind('/');
    out->resize(slash == std::string::npos || slash < floor ? floor : slash);
    return true;
  };
  while (!in.empty()) {
    if (StartsWith(in, "../")) {  // A
      // Dropped, or kept as a segment; then the rest, from its "/", goes on.
      in.remove_prefix(above_root == AboveRoot::kKeep ? 2 : 3);
      if (!above(false)) return false;
    } else if (StartsWith(in, "./")) {  // A
      in.remove_prefix(2);
    } else if (StartsWith(in, "/./")) {  // B
      in.remove_prefix(2);
    } else if (in == "/.") {  // B
      in = "/";
    } else if (StartsWith(in, "/../")) {  // C
      in.remove_prefix(3);
      if (!remove_last_segment(true)) return false;
    } else if (in == "/..") {  // C
      in = "/";
      if (!remove_last_segment(true)) return false;
    } else if (in == "." || in == "..") {  // D
      if (in == ".." && !above(false)) return false;
      in = {};
    } else {  // E: the first segment, with its leading "/" if any
      const size_t end = in.find('/', 1);
      const size_t n = end == std::string_view::npos ? in.size() : end;
      out->append(in.substr(0, n));
      in.remove_prefix(n);
    }
  }
  return true;
}

ResolveStatus Resolve(const UriReference& base, const UriReference& ref,
                      const ResolveOptions& options, std::string* out) {
  if (!base.valid() || !base.scheme()) return ResolveStatus::kBadBase;
  if (!ref.valid()) return ResolveStatus::kBadReference;
  const size_t out_begin = out->size();
  Part scheme = ref.scheme();
  // sec. 5.2.2: "if ((not strict) and (R.scheme == Base.scheme))"
  if (options.nonstrict && scheme && EqualNoCase(*scheme, *base.scheme()))
    scheme.reset();
  const Part authority = ref.authority();
  const std::string_view path = ref.path();
  const Part query = ref.query();
  const Part fragment = ref.fragment();
  bool ok = true;
  auto dot_free = [&](std::string_view p) {
    return [&ok, p, &options](std::string* o) {
      ok = RemoveDotSegments(p, options.above_root, o);
    };
  };
  auto verbatim = [](std::string_view p) {
    return [p](std::string* o) { o->append(p); };
  };
  thread_local std::string merged;
  const internal::LetGoIfLarge<std::string> let_go(merged);

  if (options.draft_1997) {
    // 001 sec. 5.2: steps 2 to 7. Nothing but merged relative paths loses its
    // dot segments, and the base query is never used.
    if (!scheme && !authority && path.empty() && !query) {
      if (fragment) {
        out->push_back('#');
        out->append(*fragment);
      }
      return ResolveStatus::kSameDocument;
    }
    if (scheme) {
      Recompose(scheme, authority, verbatim(path), query, fragment, out);
    } else if (authority) {
      Recompose(base.scheme(), authority, verbatim(path), query, fragment,
                out);
    } else if (!path.empty() && path[0] == '/') {
      Recompose(base.scheme(), base.authority(), verbatim(path), query,
                fragment, out);
    } else {
      Merge(base, path, &merged);
      Recompose(base.scheme(), base.authority(), dot_free(merged), query,
                fragment, out);
    }
  } else if (scheme) {  // sec. 5.2.2
    Recompose(scheme, authority, dot_free(path), query, fragment, out);
  } else if (authority) {
    Recompose(base.scheme(), authority, dot_free(path), query, fragment, out);
  } else if (path.empty()) {
    Recompose(base.scheme(), base.authority(), verbatim(base.path()),
              query ? query : base.query(), fragment, out);
  } else if (path[0] == '/') {
    Recompose(base.scheme(), base.authority(), dot_free(path), query,
              fragment, out);
  } else {
    Merge(base, path, &merged);
    Recompose(base.scheme(), base.authority(), dot_free(merged), query,
              fragment, out);
  }
  if (!ok) {
    out->resize(out_begin);
    return ResolveStatus::kAboveRoot;
  }
  return ResolveStatus::kOk;
}

std::string Resolve(std::string_view base, std::string_view ref,
                    ResolveStatus* status, const ResolveOptions& options) {
  std::string out;
  const ResolveStatus s =
      Resolve(ParseUriReference(base), ParseUriReference(ref), options, &out);
  if (status) *status = s;
  return out;
}

bool Relativize(const UriReference& base, const UriReference& target,
                std::string* out) {
  if (!base.valid() || !base.scheme() || !target.valid() || !target.scheme())
    return false;
  // Resolution removes dot segments, so a target that has them is never a
  // result of it.
  std::string clean;
  RemoveDotSegments(target.path(), AboveRoot::kClamp, &clean);
  if (clean != target.path()) return false;
  const std::string whole(target.text());

  // Candidates from shortest-looking to the target itself; the shortest
  // that resolves back wins.
  std::vector<std::string> candidates;
  const Part query = target.query();
  const Part fragment = target.fragment();
  auto tail = [&](std::string s) {
    if (query) s += "?" + std::string(*query);
    if (fragment) s += "#" + std::string(*fragment);
    return s;
  };
  const bool same_scheme = *base.scheme() == *target.scheme();
  const bool same_authority = base.authority() == target.authority();
  if (same_scheme && same_authority) {
    const std::string_view tpath = target.path();
    const std::string_view bpath = base.path();
    if (tpath == bpath) {
      if (query == base.query()) {
        candidates.push_back(fragment ? "#" + std::string(*fragment) : "");
      }
      if (query) candidates.push_back(tail(""));
    }
    // A relative path: up from the base's directory to the longest common
    // directory, then down to the target.
    std::string_view dir = bpath.substr(0, bpath.rfind('/') + 1);
    if (bpath.rfind('/') == std::string_view::npos) dir = {};
    if (base.authority() && bpath.empty()) dir = "/";
    size_t common = 0;  // length of the shared prefix, ending at a '/'
    for (size_t i = 0; i < std::min(dir.size(), tpath.size()); ++i) {
      if (dir[i] != tpath[i]) break;
      if (dir[i] == '/') common = i + 1;
    }
    if (!dir.empty() && common > 0) {
      std::string rel;
      for (size_t i = common; i < dir.size(); ++i)
        if (dir[i] == '/') rel += "../";
      std::string_view rest = tpath.substr(common);
      rel += rest;
      // A first segment with ':' would read as a scheme; an empty path
      // would mean "the base itself".
      const size_t colon = rel.find(':'), slash = rel.find('/');
      if (rel.empty() || (colon != std::string::npos && colon < slash))
        rel.insert(0, "./");
      candidates.push_back(tail(rel));
    } else if (dir.empty() && !tpath.empty() && tpath[0] != '/') {
      std::string rel(tpath);
      const size_t colon = rel.find(':'), slash = rel.find('/');
      if (colon != std::string::npos && colon < slash) rel.insert(0, "./");
      candidates.push_back(tail(rel));
    }
    if (!tpath.empty() && tpath[0] == '/') candidates.push_back(tail(std::string(tpath)));
  }
  if (same_scheme && target.authority()) {
    candidates.push_back(tail("//" + std::string(*target.authority()) +
                              std::string(target.path())));
  }
  candidates.push_back(whole);
  std::sort(candidates.begin(), candidates.end(),
            [](const std::string& a, const std::string& b) {
              return a.size() < b.size();
            });
  std::string back;
  for (const std::string& c : candidates) {
    back.clear();
    if (Resolve(base, ParseUriReference(c), ResolveOptions{}, &back) ==
            ResolveStatus::kOk &&
        back == whole) {
      out->append(c);
      return true;
    }
  }
  return false;  // not even the target itself resolves to itself
}

namespace {

// Row i of `*out`: `ref` against `base`, or on failure the reference
// itself (keep_errors) or nothing.
void AppendRow(const UriReference& base, const UriReference& ref, size_t i,
               const ResolveOptions& options, bool keep_errors,
               ResolvedBatch* out) {
  const size_t before = out->data.size();
  const ResolveStatus s = Resolve(base, ref, options, &out->data);
  out->status[i] = s;
  if (s != ResolveStatus::kOk && s != ResolveStatus::kSameDocument) {
    out->data.resize(before);
    if (keep_errors) out->data.append(ref.text());
  }
  out->offsets.push_back(static_cast<uint32_t>(out->data.size()));
}

void StartRows(const Batch& refs, size_t reserve, ResolvedBatch* out) {
  out->data.clear();
  out->data.reserve(reserve);
  out->offsets.assign(1, 0);
  out->offsets.reserve(refs.count + 1);
  out->status.resize(refs.count);
}

// The bytes of the rows of `spans`, read where the spans point (so a
// batch's offsets may be null, as Scanner::ScanLines leaves them).
size_t RowBytes(const ComponentSpans& spans) {
  const size_t n = spans.size();
  return n == 0 ? 0 : spans.uri_end[n - 1] - spans.uri_begin[0];
}

}  // namespace

// Against one base most references of a crawl are a path (and query) with
// no dot segment: absolute ("/x?q") or relative to the base's directory
// ("x?q"). For those sec. 5.2.2 and sec. 5.2.3 reduce to a fixed prefix of
// the base followed by the reference's own bytes, because
// remove_dot_segments leaves a path with no "." or ".." segment as it is.
// Everything else takes the general path.
void ResolveBatch(const UriReference& base, const Batch& refs,
                  const ComponentSpans& ref_spans,
                  const ResolveOptions& options, bool keep_errors,
                  ResolvedBatch* out) {
  const size_t bytes = RowBytes(ref_spans);
  if (!base.valid() || !base.scheme() || options.draft_1997) {
    StartRows(refs, bytes, out);
    for (size_t i = 0; i < refs.count; ++i)
      AppendRow(base, ref_spans.Row(i, refs.data), i, options, keep_errors,
                out);
    return;
  }
  // "scheme:" or "scheme://authority": the prefix of an absolute path.
  std::string root;
  Recompose(base.scheme(), base.authority(),
            [](std::string*) {}, std::nullopt, std::nullopt, &root);
  // ...then the base's directory, if it has no dot segments of its own.
  std::string dir;
  Merge(base, "", &dir);
  std::string clean;
  const bool dir_clean = RemoveDotSegments(dir, AboveRoot::kClamp, &clean) &&
                         clean == dir;
  const std::string relative = root + dir;

  StartRows(refs, bytes + refs.count * relative.size(), out);
  constexpr uint16_t kSlow = flags::kHasScheme | flags::kHasAuthority |
                             flags::kHasDotSegment;
  for (size_t i = 0; i < refs.count; ++i) {
    const uint32_t path_begin = ref_spans.path_begin[i];
    const uint32_t path_end = ref_spans.path_end[i];
    const uint32_t end = ref_spans.uri_end[i];
    if (ref_spans.error_kind[i] == 0 && !(ref_spans.flags[i] & kSlow) &&
        path_begin < path_end) {
      const bool absolute = refs.data[path_begin] == '/';
      if (absolute || dir_clean) {
        out->data.append(absolute ? root : relative);
        out->data.append(refs.data + path_begin, end - path_begin);
        out->status[i] = ResolveStatus::kOk;
        out->offsets.push_back(static_cast<uint32_t>(out->data.size()));
        continue;
      }
    }
    AppendRow(base, ref_spans.Row(i, refs.data), i, options, keep_errors,
              out);
  }
}

void ResolveBatch(const Batch& bases, const ComponentSpans& base_spans,
                  const Batch& refs, const ComponentSpans& ref_spans,
                  const ResolveOptions& options, bool keep_errors,
                  ResolvedBatch* out) {
  StartRows(refs, 2 * RowBytes(ref_spans), out);
  for (size_t i = 0; i < refs.count; ++i)
    AppendRow(base_spans.Row(i, bases.data), ref_spans.Row(i, refs.data), i,
              options, keep_errors, out);
}

}  // namespace uriscan
