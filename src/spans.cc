// SPDX-License-Identifier: MIT
// Batches and ComponentSpans: building, filling, checking.
#include "uriscan/spans.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "kernels/kernels.h"

namespace uriscan {

namespace {

// Calls visit(i) for each "\n" at bytes[i], in order. The newline kernel
// marks them in 64 KiB pieces so the bit words stay on the stack.
template <class Visit>
void ForEachNewline(std::string_view bytes, Visit visit) {
  constexpr size_t kPiece = 64 * 1024;
  uint64_t words[kPiece / 64];
  for (size_t piece = 0; piece < bytes.size(); piece += kPiece) {
    const size_t n = std::min(kPiece, bytes.size() - piece);
    kernels::NewlineMasks(
        reinterpret_cast<const uint8_t*>(bytes.data() + piece), n, words);
    for (size_t w = 0; w < (n + 63) / 64; ++w) {
      for (uint64_t bits = words[w]; bits != 0; bits &= bits - 1)
        visit(piece + w * 64 + static_cast<size_t>(__builtin_ctzll(bits)));
    }
  }
}

}  // namespace

bool BatchFromLines(std::string_view bytes, OwnedBatch* out) {
  out->data.clear();
  out->offsets.assign(1, 0);
  if (bytes.size() >= std::numeric_limits<uint32_t>::max()) return false;
  out->data.resize(bytes.size());
  const char* in = bytes.data();
  char* dst = out->data.data();
  size_t written = 0;
  size_t line_begin = 0;
  auto end_line = [&](size_t end) {  // the line [line_begin, end)
    std::memcpy(dst + written, in + line_begin, end - line_begin);
    written += end - line_begin;
    out->offsets.push_back(static_cast<uint32_t>(written));
  };
  // Lines are copied between the "\n"s, a "\r" just before one dropped.
  ForEachNewline(bytes, [&](size_t nl) {
    end_line(nl > line_begin && in[nl - 1] == '\r' ? nl - 1 : nl);
    line_begin = nl + 1;
  });
  if (line_begin < bytes.size()) end_line(bytes.size());
  out->data.resize(written);
  return true;
}

size_t CountLines(std::string_view bytes) {
  size_t n = 0;
  ForEachNewline(bytes, [&n](size_t) { ++n; });
  return n + (!bytes.empty() && bytes.back() != '\n');
}

void ComponentSpans::Resize(size_t n) {
  for (auto* col : {&uri_begin, &scheme_end, &authority_begin, &userinfo_end,
                    &host_begin, &host_end, &port_begin, &path_begin,
                    &path_end, &query_begin, &fragment_begin, &uri_end,
                    &error_offset}) {
    col->resize(n);
  }
  flags.resize(n);
  error_kind.resize(n);
}

void ComponentSpans::SetRow(size_t i, uint32_t begin, const UriReference& uri) {
  const Boundaries& b = uri.boundaries();
  uri_begin[i] = begin;
  scheme_end[i] = begin + b.scheme_end;
  authority_begin[i] = begin + b.authority_begin;
  userinfo_end[i] = begin + b.userinfo_end;
  host_begin[i] = begin + b.host_begin;
  host_end[i] = begin + b.host_end;
  port_begin[i] = begin + b.port_begin;
  path_begin[i] = begin + b.path_begin;
  path_end[i] = begin + b.path_end;
  query_begin[i] = begin + b.query_begin;
  fragment_begin[i] = begin + b.fragment_begin;
  uri_end[i] = begin + static_cast<uint32_t>(uri.text().size());
  flags[i] = uri.flags();
  error_kind[i] = static_cast<uint8_t>(uri.error().kind);
  error_offset[i] = uri.error().offset;
}

UriReference ComponentSpans::Row(size_t i, const char* data) const {
  const uint32_t base = uri_begin[i];
  Boundaries b;
  b.scheme_end = scheme_end[i] - base;
  b.authority_begin = authority_begin[i] - base;
  b.userinfo_end = userinfo_end[i] - base;
  b.host_begin = host_begin[i] - base;
  b.host_end = host_end[i] - base;
  b.port_begin = port_begin[i] - base;
  b.path_begin = path_begin[i] - base;
  b.path_end = path_end[i] - base;
  b.query_begin = query_begin[i] - base;
  b.fragment_begin = fragment_begin[i] - base;
  return UriReference(std::string_view(data + base, uri_end[i] - base), b,
                      flags[i], Error(i));
}

bool ComponentSpans::Validate(size_t i) const {
  if (i >= size()) return false;
  const uint32_t cols[] = {uri_begin[i],  scheme_end[i],     authority_begin[i],
                           userinfo_end[i], host_begin[i],   host_end[i],
                           port_begin[i], path_begin[i],     path_end[i],
                           query_begin[i], fragment_begin[i], uri_end[i]};
  for (size_t k = 1; k < sizeof(cols) / sizeof(cols[0]); ++k)
    if (cols[k] < cols[k - 1]) return false;
  const bool valid = error_kind[i] == 0;
  if (error_kind[i] >= kErrorKindCount) return false;
  if (!valid) {
    // Invalid rows: no flags, every boundary at uri_begin but the end.
    for (size_t k = 1; k + 1 < sizeof(cols) / sizeof(cols[0]); ++k)
      if (cols[k] != uri_begin[i]) return false;
    return flags[i] == 0 &&
           (error_offset[i] <= uri_end[i] - uri_begin[i] ||
            error_kind[i] == static_cast<uint8_t>(ErrorKind::kTooLong));
  }
  return error_offset[i] == 0;
}

void ScanScalar(const Batch& batch, ComponentSpans* spans) {
  spans->Resize(batch.count);
  for (size_t i = 0; i < batch.count; ++i) {
    spans->SetRow(i, batch.offsets[i], ParseUriReference(batch.Get(i)));
  }
}

void Scan(const Batch& batch, ComponentSpans* spans) {
  spans->Resize(batch.count);
  if (batch.count == 0) return;
  const kernels::SpanColumns cols{
      spans->uri_begin.data(),    spans->scheme_end.data(),
      spans->authority_begin.data(), spans->userinfo_end.data(),
      spans->host_begin.data(),   spans->host_end.data(),
      spans->port_begin.data(),   spans->path_begin.data(),
      spans->path_end.data(),     spans->query_begin.data(),
      spans->fragment_begin.data(), spans->uri_end.data(),
      spans->flags.data(),        spans->error_kind.data(),
      spans->error_offset.data()};
  spans->masks_.resize(kernels::MaskWords(batch.offsets[batch.count]));
  kernels::ScanBatch(reinterpret_cast<const uint8_t*>(batch.data),
                     batch.offsets, batch.count, spans->masks_.data(), cols);
  // The rare rows the fast path left (errors, IP literals).
  for (size_t i = 0; i < batch.count; ++i) {
    if (spans->error_kind[i] == kernels::kNeedsScalar)
      spans->SetRow(i, batch.offsets[i], ParseUriReference(batch.Get(i)));
  }
}

}  // namespace uriscan
